#!/usr/bin/env python3
"""NetworkX reads `topo export -f graphml` with numbers as numbers (typed GraphML keys).

Usage: graphml_networkx.py RINGLAB SCENARIO TMPDIR. Exits 77 (CTest: skipped) without python3-networkx.
"""
import os
import subprocess
import sys

try:
    import networkx as nx
except ImportError:
    print("SKIP: python3-networkx is not installed")
    sys.exit(77)

ringlab, scenario, tmp = sys.argv[1:4]
path = os.path.join(tmp, f"graphml_networkx_{os.getpid()}.graphml")
subprocess.run([ringlab, "topo", "export", scenario, "-f", "graphml", "-o", path], check=True)
g = nx.read_graphml(path)
os.remove(path)

assert len(g) == 28, f"expected 28 devices in a DGX H100 on one switch, got {len(g)}"
assert g.nodes["node0/gpu0"]["name"] == "node0/gpu0"  # node id = device name
nvlinks = [d for a, b, d in g.edges(data=True) if d["kind"] == "nvlink4"]
assert len(nvlinks) == 8, f"expected 8 GPU-NVSwitch links, got {len(nvlinks)}"
link = nvlinks[0]
assert isinstance(link["bandwidth_bps"], float), type(link["bandwidth_bps"])
assert link["bandwidth_bps"] == 3.6e12, link["bandwidth_bps"]  # 18 NVLink4 links x 25 GB/s x 8 bit
assert isinstance(link["lanes"], int) and link["lanes"] == 18, link["lanes"]
assert isinstance(link["latency_ps"], int) and link["latency_ps"] > 0, link["latency_ps"]
assert link["label"] == "NVLink4 x18", link["label"]
switch = next(d for n, d in g.nodes(data=True) if d["kind"] == "leaf")
assert isinstance(switch["tier"], int) and switch["tier"] == 1, switch["tier"]
assert isinstance(switch["in_network_reduction"], bool)
gpu = next(d for n, d in g.nodes(data=True) if d["kind"] == "gpu")
assert gpu["gpu_model"] == "h100" and gpu["host"] == "node0", gpu
print(f"networkx {nx.__version__}: {len(g)} nodes, {g.number_of_edges()} edges, NVLink4 bandwidth_bps "
      f"{link['bandwidth_bps']:.4g} (float), lanes {link['lanes']} (int)")
