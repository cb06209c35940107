#!/usr/bin/env python3
"""Reproduces the shape of the headline table of Kusumoto et al. (NeurIPS 2019) on the paper's own graphs
and writes it into BENCHMARKS.md between the PAPER-TABLE markers.

For each network: the vanilla peak (store-all with liveness), Chen's sqrt(n), and for approx-dp and exact-dp
the memory-centric plan at the DP model's least feasible budget, all measured by Remat's simulator with
liveness analysis (parameters, inputs, gradients included). The published reductions are shown beside.
Run through bench/paper-table.sh.
"""
import json
import pathlib
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = ROOT / "build-release" / "bin" / "remat"
CORPUS = ROOT.parent / "shared" / "corpus" / "paper-graphs"
NETWORKS = [("PSPNet", "cg_pspnet.txt", -71, -70, -58), ("U-Net", "cg_unet.txt", -45, -48, -18),
            ("ResNet50", "cg_resnet50.txt", -62, -62, -59), ("ResNet152", "cg_resnet152.txt", -75, -75, -74),
            ("VGG19", "cg_vgg19.txt", -36, -36, -34), ("DenseNet", "cg_densenet.txt", -81, -80, -79),
            ("GoogLeNet", "cg_googlenet.txt", -39, -39, -24)]


def remat(*args):
    out = subprocess.run([str(REMAT), *args, "--json"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"remat {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def gb(b):
    return f"{b / 1e9:.2f} GB"


def main():
    rows = []
    for name, file, pub_approx, pub_exact, pub_chen in NETWORKS:
        path = str(CORPUS / file)
        vanilla = remat("solve", path, "--solver", "store-all")["metrics"]["simulated_peak_bytes"]
        chen = remat("solve", path, "--solver", "chen-sqrtn", "--model", "paper")["metrics"]["simulated_peak_bytes"]
        dp = {}
        for solver in ("approx-dp", "exact-dp"):
            least = remat("min-budget", path, "--solver", solver, "--model", "paper")["min_budget_bytes"]
            plan = remat("solve", path, "--solver", solver, "--strategy", "memory", "--budget", str(least), "--model", "paper")
            dp[solver] = (least, plan["metrics"]["simulated_peak_bytes"])

        def cell(b):
            return f"{gb(b)} ({100 * (b - vanilla) / vanilla:+.0f}%)"

        rows.append(f"| {name} | {cell(dp['approx-dp'][1])} | {cell(dp['exact-dp'][1])} | {cell(chen)} | {gb(vanilla)} "
                    f"| {gb(dp['approx-dp'][0])} / {gb(dp['exact-dp'][0])} | {pub_approx}% / {pub_exact}% / {pub_chen}% |")
    table = "\n".join([
        "| network | approx DP | exact DP | Chen's sqrt(n) | vanilla | DP model least budget (approx / exact) "
        "| published reduction (approx / exact / Chen) |",
        "|---|---:|---:|---:|---:|---:|---:|", *rows])
    replace_section("PAPER-TABLE", table)
    print(table)


if __name__ == "__main__":
    main()
