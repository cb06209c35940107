"""Remat: plan activation recomputation for training (Kusumoto et al., NeurIPS 2019).

    import remat                                   # PYTHONPATH=build/python (docs/python.md)
    g = remat.Graph.read("datasets/resnet50.json")
    plan = remat.solve(g, "exact-dp", budget="2GiB")
    table = remat.compare(g, budget="2GiB")

The engine's calls (`Graph`, `solve`, `compare`, `min_budget`, `simulate`, `solvers`) come from the C++
library through its bindings (`remat._remat`, built by the normal build); plans and results are the
plan JSON the command line prints, as dicts. `remat.torch` (capture a PyTorch training step, apply a
plan to it, measure it) is pure Python over torch and imports without the bindings.
"""

try:
    from ._remat import Graph, compare, min_budget, simulate, solve, solvers
except ImportError as _missing:  # remat.torch alone (python/ on PYTHONPATH, or a machine without the build)
    _why = str(_missing)

    def __getattr__(name):
        if name in ("Graph", "compare", "min_budget", "simulate", "solve", "solvers"):
            raise ImportError(f"remat.{name} needs the engine's bindings (remat._remat), which are built by "
                              f"scripts/build.sh into build/python: use PYTHONPATH=build/python ({_why})")
        raise AttributeError(f"module 'remat' has no attribute '{name}'")
else:
    __all__ = ["Graph", "compare", "min_budget", "simulate", "solve", "solvers"]
