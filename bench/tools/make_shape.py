"""Prints a generated graph in Remat's native JSON, for the size limits of the figures and `remat info`.

  make_shape.py chain N            N ops in a chain
  make_shape.py random N [W]       N ops, each reading 1 to 3 of the W (default 8) ops before it (seed 1)
  make_shape.py lattice N W        N ops in rows of W, each reading the op above it and the one above left
  make_shape.py fan N              one op feeding N - 2 ops that one op joins
  make_shape.py dense N K          N ops, each reading the K ops before it (about N * K edges)
"""
import json
import random
import sys


def inputs_of(kind, n, arg):
    r = random.Random(1)
    for i in range(n):
        if i == 0:
            yield ["x"]
        elif kind == "chain":
            yield [i - 1]
        elif kind == "random":
            yield sorted({r.randrange(max(0, i - arg), i) for _ in range(r.randint(1, 3))})
        elif kind == "lattice":
            yield [i - arg] + ([i - arg - 1] if i % arg else []) if i >= arg else [0] if i else ["x"]
        elif kind == "fan":
            yield [0] if i < n - 1 else list(range(1, n - 1))
        elif kind == "dense":
            yield list(range(max(0, i - arg), i))
        else:
            sys.exit(f"unknown shape {kind}")


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    arg = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    nodes = [{"id": "x", "kind": "input", "bytes": 1024}]
    for i, ins in enumerate(inputs_of(kind, n, arg)):
        ids = [v if v == "x" else f"n{v}" for v in ins]
        nodes.append({"id": f"n{i}", "kind": "op", "op": "Relu", "inputs": ids, "bytes": 1024, "fwd_time": 1,
                      "bwd_time": 1, "saves": {"inputs": [], "output": True}})
    name = f"{kind}-{n}" + (f"-{arg}" if len(sys.argv) > 3 else "")
    json.dump({"format": "remat-graph", "version": 1, "name": name, "time_unit": "ticks", "nodes": nodes},
              sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
