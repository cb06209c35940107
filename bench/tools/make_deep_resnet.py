#!/usr/bin/env python3
"""Writes a deep ResNet-like graph in Remat's native format to stdout, for scaling benchmarks.

   make_deep_resnet.py OPS [SEED]

Residual blocks of conv -> relu -> conv -> add(skip) -> relu, with random tensor sizes (1 to 64 MiB)
and the paper's times (10 for convolutions, 1 otherwise), until OPS operations exist. Deterministic
in the seed.
"""
import json
import random
import sys

ops = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
nodes = [{"id": "x", "kind": "input", "bytes": 1 << 20}]
count = 0
prev = "x"


def add(name, op, inputs, saves_inputs, saves_output):
    global count
    count += 1
    time = 10 if op == "Conv" else 1
    nodes.append({"id": name, "kind": "op", "op": op, "inputs": inputs, "bytes": rng.randint(1, 64) << 20,
                  "fwd_time": time, "bwd_time": time, "saves": {"inputs": saves_inputs, "output": saves_output}})
    return name


block = 0
while count + 5 <= ops:
    b = f"b{block}"
    nodes.append({"id": b + "/W1", "kind": "param", "bytes": 1 << 16})
    nodes.append({"id": b + "/W2", "kind": "param", "bytes": 1 << 16})
    c1 = add(b + "/conv1", "Conv", [prev, b + "/W1"], [0, 1], False)
    r1 = add(b + "/relu1", "Relu", [c1], [], True)
    c2 = add(b + "/conv2", "Conv", [r1, b + "/W2"], [0, 1], False)
    s = add(b + "/add", "Add", [c2, prev], [], False)
    prev = add(b + "/relu2", "Relu", [s], [], True)
    block += 1
while count < ops:
    prev = add(f"tail{count}", "Relu", [prev], [], True)
json.dump({"format": "remat-graph", "version": 1, "name": f"deep-resnet-{ops}", "time_unit": "ticks",
           "cost_model": "paper", "nodes": nodes}, sys.stdout)
sys.stdout.write("\n")
