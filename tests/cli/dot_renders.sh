#!/usr/bin/env bash
# `topo export -f dot` of a 1,024-GPU fat tree renders with graphviz's dot within a time limit, and the
# file says that hosts were collapsed. Exits 77 (CTest: skipped) when dot is not installed.
# Usage: dot_renders.sh RINGLAB SCENARIO TMPDIR SECONDS
set -euo pipefail
ringlab=$1 scenario=$2 tmp=$3 limit=$4
command -v dot >/dev/null || { echo "SKIP: graphviz dot is not installed"; exit 77; }
out=$tmp/dot_renders_$$
"$ringlab" topo export "$scenario" -f dot -o "$out.dot" 2>"$out.err"
grep -q "each host drawn as one box" "$out.err" || { echo "no collapse note on stderr:"; cat "$out.err"; exit 1; }
grep -q "// hosts collapsed to one box each" "$out.dot" || { echo "no collapse comment in the DOT file"; exit 1; }
start=$(date +%s.%N)
timeout "$limit" dot -Tsvg "$out.dot" -o "$out.svg"
end=$(date +%s.%N)
grep -q "node127: 8x H100, 8x 400G IB" "$out.svg" || { echo "host box missing from the SVG"; exit 1; }
awk -v s="$start" -v e="$end" 'BEGIN { printf "dot -Tsvg took %.2f s\n", e - s }'
rm -f "$out.dot" "$out.err" "$out.svg"
