#!/usr/bin/env python3
"""Mutation fuzzing of ringlab's input paths (importers, scenarios, sweep files, rank orders, schedule
and results files).

Each run mutates one fixture (deletes spans, inserts tokens, flips bytes, duplicates lines), feeds it to
the matching subcommand, and requires exit code 0, 2 (bad input) or 3 (sweep with failed points): an
exit code 1 (internal error), a signal, a timeout or a sanitizer report is a failure, and the input is
kept in KEEP_DIR for a regression test. Deterministic for a seed.
Usage: mutate_inputs.py RINGLAB_BINARY SOURCE_DIR ITERATIONS SEED [KEEP_DIR]"""
import os, random, subprocess, sys, tempfile

binary, src, iters, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
keep_dir = sys.argv[5] if len(sys.argv) > 5 else tempfile.gettempdir()
rng = random.Random(seed)
imp = os.path.join(src, "tests/data/import")
cases = [
    ("--slurm", os.path.join(imp, "two_level_fat_tree.conf")),
    ("--nvidia-smi", os.path.join(imp, "dgx_h100_topo_m.txt")),
    ("--nccl-xml", os.path.join(imp, "dgx_a100_nccl_topo.xml")),
    ("--ibnetdiscover", os.path.join(imp, "small_fabric.ibnetdiscover")),
    ("train", os.path.join(src, "scenarios/brief-4x8-v100.json")),
    ("simulate", os.path.join(src, "scenarios/two-racks-40g.json")),
    ("sweep", os.path.join(src, "scenarios/sweeps/nodes-speed-algorithm.json")),
    ("rank-order", os.path.join(src, "tests/data/rank_order/reversed.hosts")),
    ("schedule", os.path.join(src, "tests/data/schedule/ring4.schedule.json")),
    ("results", os.path.join(src, "tests/data/results/ring4.results.json")),
]
tokens = [b"[", b"]", b"{", b"}", b",", b"-", b"0", b"999999999999", b"-1", b"\"", b"<", b">", b"/", b"#",
          b"NV18", b"SYS", b"x", b"\n", b"=", b"1e308", b"nan", b"\x00", b"\xff", b"[1-", b"Gbps", b"MiB"]

def mutate(data: bytes) -> bytes:
    d = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(4)
        pos = rng.randrange(len(d) + 1)
        if op == 0 and d:  # delete a span
            del d[pos:pos + rng.randint(1, 20)]
        elif op == 1:  # insert a token
            d[pos:pos] = rng.choice(tokens)
        elif op == 2 and d:  # flip a byte
            d[min(pos, len(d) - 1)] = rng.randrange(256)
        else:  # duplicate a line
            lines = bytes(d).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            d = bytearray(b"\n".join(lines))
    return bytes(d)

bad = 0
with tempfile.TemporaryDirectory() as tmp:
    for it in range(iters):
        kind, path = rng.choice(cases)
        data = mutate(open(path, "rb").read())
        ext = os.path.splitext(path)[1]
        f = os.path.join(tmp, f"in{ext}")
        open(f, "wb").write(data)
        if kind.startswith("--"):
            cmd = [binary, "topo", "import", kind, f, "-o", os.path.join(tmp, "out.json")]
        elif kind == "sweep":
            cmd = [binary, "sweep", f, "--jobs", "1", "-o", os.path.join(tmp, "out.csv")]
        elif kind == "simulate":
            cmd = [binary, kind, f, "--sizes", "1MiB"]
        elif kind == "rank-order":
            cmd = [binary, "simulate", "--rank-order", f, "--sizes", "1MiB"]
        elif kind == "schedule":
            cmd = [binary, "simulate", "--schedule", f]
        elif kind == "results":
            cmd = [binary, "compare", f, f]
        else:
            cmd = [binary, kind, f]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=60, cwd=src)
        except subprocess.TimeoutExpired:
            print(f"TIMEOUT {kind} iteration {it}"); open(os.path.join(keep_dir, f"timeout-{seed}-{it}{ext}"), "wb").write(data); bad += 1; continue
        err = p.stderr.decode(errors="replace")
        if p.returncode not in (0, 2, 3) or "Sanitizer" in err or "runtime error" in err:
            bad += 1
            keep = os.path.join(keep_dir, f"crash-{seed}-{it}{ext}")
            open(keep, "wb").write(data)
            print(f"FAIL rc={p.returncode} {kind} kept {keep}\n{err[-1500:]}")
print(f"{iters} runs, {bad} failures")
sys.exit(1 if bad else 0)
