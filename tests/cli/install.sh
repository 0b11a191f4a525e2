#!/usr/bin/env bash
# `cmake --install` into a fresh prefix: the binary, the SimGrid engine library, the man page and the
# completion scripts land where expected, the installed binary runs (and finds the engine next to
# itself), the man page renders, and the bash completion loads and completes from the App tree.
# Usage: install.sh BUILD_DIR TMPDIR
set -euo pipefail
build=$1 prefix=$2/install_test_$$
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*"; exit 1; }
for f in bin/ringlab lib/libringlab_simgrid.so share/man/man1/ringlab.1 \
         share/bash-completion/completions/ringlab share/zsh/site-functions/_ringlab; do
  [ -f "$prefix/$f" ] || fail "missing $prefix/$f"
done
man1=$prefix/share/man/man1/ringlab.1
grep -q '^\.TH RINGLAB 1' "$man1" || fail "ringlab.1 has no .TH header"
grep -q '^\.SS "ringlab topo export"' "$man1" || fail "ringlab.1 lacks the topo export section"
if command -v man >/dev/null; then
  page=$(MANWIDTH=100 man -l "$man1" 2>&1)
  grep -q -- '--detail TEXT' <<<"$page" || fail "man -l did not render --detail: $page"
  grep -q 'default: 1MiB:1GiB:x4' <<<"$page" || fail "man page lacks the --sizes default"
fi

cd "$2"  # away from the source tree: the installed binary needs nothing from it
out=$("$prefix/bin/ringlab" simulate --sizes 1MiB) || fail "installed ringlab simulate failed"
grep -Eq '1048576 +262144 +float +sum' <<<"$out" || fail "unexpected simulate output: $out"
out=$("$prefix/bin/ringlab" simulate --sizes 1MiB --engine simgrid 2>&1) || fail "--engine simgrid: $out"
grep -Eq '1048576 +262144 +float +sum' <<<"$out" || fail "unexpected simgrid output: $out"

completion=$prefix/share/bash-completion/completions/ringlab
bash -c "source '$completion'; complete -p ringlab" | grep -q -- '-F _ringlab ringlab' || fail "complete -p ringlab"
complete_words() {  # the completions bash offers for the words given, the last one being completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ringlab; echo "${COMPREPLY[*]}"' \
    _ "$completion" "$@"
}
[ "$(complete_words ringlab si)" = "simulate" ] || fail "ringlab si<TAB>: $(complete_words ringlab si)"
[ "$(complete_words ringlab topo ex)" = "export" ] || fail "ringlab topo ex<TAB>: $(complete_words ringlab topo ex)"
[ "$(complete_words ringlab topo export -f g)" = "graphml" ] || fail "-f g<TAB>: $(complete_words ringlab topo export -f g)"
[ "$(complete_words ringlab topo export --det)" = "--detail" ] || fail "--det<TAB>: $(complete_words ringlab topo export --det)"
[ "$(complete_words ringlab simulate --sch)" = "--schedule" ] || fail "--sch<TAB>: $(complete_words ringlab simulate --sch)"
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_ringlab" || fail "zsh -n _ringlab"; fi
echo "installed into $prefix: binary, engine, man page, completion all work"
