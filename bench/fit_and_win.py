#!/usr/bin/env python3
"""Plans that fit and win: each graph at 50, 60, 70 and 80% of its plain run's simulated peak, every
solver's recomputation overhead where its plan fits that budget in the simulator (`remat compare
--table json`, which judges every plan by the simulator), and whether the paper's DP (exact-dp, or
approx-dp where exact-dp refuses the graph's lower sets) is at or below both dtr and chain-dp wherever
they fit, and the same for dp-evict, Remat's own planner (the DP's plans refined by evictions), and for
fastsa (simulated annealing after Imanishi et al. 2023, seed 0). Writes
the table between the FIT-AND-WIN markers of BENCHMARKS.md (given graphs, it prints their rows and
writes nothing). Run through bench/fit-and-win.sh.
"""
import json
import os
import pathlib
import subprocess
import sys

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ.get("REMAT_BIN", str(ROOT / "build-release" / "bin" / "remat"))
FRACTIONS = (0.5, 0.6, 0.7, 0.8)
SOLVERS = ("exact-dp", "approx-dp", "dtr", "chain-dp", "chen-greedy", "dp-evict", "fastsa")
TIME_LIMIT = 120  # seconds per solver; the outer timeout only guards against a hang
OUTER_TIMEOUT = 900


def graphs():
    if len(sys.argv) > 1:
        return [pathlib.Path(p) for p in sys.argv[1:] if not p.startswith("--")]
    out = sorted((ROOT / "datasets").glob("*.json"))
    out = [p for p in out if p.name != "manifest.json"]
    corpus = ROOT.parent / "shared" / "corpus" / "paper-graphs"
    if corpus.is_dir():
        out += sorted(corpus.glob("cg_*.txt"))
    return out


def compare(path, budget):
    args = [REMAT, "compare", str(path), "--budget", str(budget), "--solvers", ",".join(SOLVERS), "--table", "json",
            "--time-limit", str(TIME_LIMIT)]
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=OUTER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def summary():
    """The figures the text beside the table quotes, read back from the table in BENCHMARKS.md: for
    dp-evict, the cells where a rival fits, those where it is at or below both, the geometric mean of its
    overhead over the best rival's, the same against DTR on the dataset rows, and the cells where it is
    below the DP."""
    import math
    text = (ROOT / "BENCHMARKS.md").read_text()
    body = text[text.index("<!-- FIT-AND-WIN -->"):text.index("<!-- /FIT-AND-WIN -->")]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in body.splitlines()
            if line.startswith("| ") and "% |" in line]
    num = lambda x: int(x) if x.isdigit() else None
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    for name, col in (("dp-evict", 8), ("fastsa", 10)):
        ratios, versus_dtr, at_or_below, below_dp = [], [], 0, 0
        for c in rows:
            if len(c) <= col:
                continue
            dp, dtr, chain, own = num(c[3]), num(c[4]), num(c[5]), num(c[col])
            rivals = [x for x in (dtr, chain) if x is not None]
            if own is not None and dp is not None and own < dp:
                below_dp += 1
            if not rivals:
                continue
            at_or_below += own is not None and own <= min(rivals)
            if own is not None and min(rivals) > 0:
                ratios.append(max(own, 1) / min(rivals))
            if own is not None and dtr and not c[0].startswith("cg_"):
                versus_dtr.append(max(own, 1) / dtr)
        print(f"{len(rows)} cells; a rival fits in {sum(1 for c in rows if num(c[4]) is not None or num(c[5]) is not None)}; "
              f"{name} at or below both rivals in {at_or_below}; geometric mean of {name} / best rival "
              f"{geo(ratios):.2f}x over {len(ratios)} cells; of {name} / dtr on the datasets {geo(versus_dtr):.2f}x "
              f"over {len(versus_dtr)} cells; {name} below the DP in {below_dp}")
    # Remat's planner against FastSA where either has a plan (no plan counts as above any plan).
    both = [(num(c[8]), num(c[10])) for c in rows if len(c) > 10 and (num(c[8]) is not None or num(c[10]) is not None)]
    print(f"dp-evict at or below fastsa in {sum(1 for e, f in both if e is not None and (f is None or e <= f))} "
          f"of the {len(both)} cells where either has a plan")


def main():
    if "--summary" in sys.argv[1:]:
        summary()
        return
    lines = ["| graph | budget | DP | DP overhead | dtr | chain-dp | chen-greedy | DP at or below dtr and chain-dp "
             "| dp-evict | dp-evict at or below dtr and chain-dp | fastsa | fastsa at or below dtr and chain-dp |",
             "|---|---:|---|---:|---:|---:|---:|---|---:|---|---:|---|"]
    losses = []
    evictLosses = []
    saLosses = []
    cells = 0
    for path in graphs():
        info = json.loads(subprocess.run([REMAT, "info", str(path), "--json"], capture_output=True, text=True,
                                         check=True).stdout)
        plain = info["vanilla_peak_bytes"]
        for f in FRACTIONS:
            budget = int(plain * f)
            j = compare(path, budget)
            name = path.stem
            if j is None:
                lines.append(f"| {name} | {int(f * 100)}% | - | timeout | | | | | | | | |")
                continue
            rows = {r["solver"]: r for r in j["rows"]}
            dp = "exact-dp" if rows["exact-dp"]["status"] not in ("limit", "time-limit") else "approx-dp"

            def cell(solver):
                r = rows[solver]
                if not r["fits_budget"]:
                    return None, r["status"]
                return r["metrics"]["overhead"], None

            dpo, dps = cell(dp)
            others = {s: cell(s) for s in ("dtr", "chain-dp", "chen-greedy", "dp-evict", "fastsa")}
            text = lambda c: str(c[0]) if c[0] is not None else c[1]
            rivals = [others[s][0] for s in ("dtr", "chain-dp") if others[s][0] is not None]
            if dpo is None:
                verdict = "no DP plan" + (" (a rival fits)" if rivals else "")
                if rivals:
                    losses.append(f"{name} at {int(f * 100)}%: {dp} {dps}; " +
                                  ", ".join(f"{s} {others[s][0]}" for s in ("dtr", "chain-dp") if others[s][0] is not None))
            elif not rivals or dpo <= min(rivals):
                verdict = "yes"
            else:
                verdict = f"no ({dpo / min(rivals):.2f}x)"
                losses.append(f"{name} at {int(f * 100)}%: {dp} {dpo}, best of dtr/chain-dp {min(rivals)}")
            # Remat's own planner, and FastSA, against the same rivals.
            def verdict_of(solver, sink):
                own, status = others[solver]
                if own is None:
                    if rivals:
                        sink.append(f"{name} at {int(f * 100)}%: {solver} {status}; " + ", ".join(
                            f"{s} {others[s][0]}" for s in ("dtr", "chain-dp") if others[s][0] is not None))
                    return "no plan" + (" (a rival fits)" if rivals else "")
                if not rivals or own <= min(rivals):
                    return "yes"
                sink.append(f"{name} at {int(f * 100)}%: {solver} {own}, best of dtr/chain-dp {min(rivals)}")
                return f"no ({own / min(rivals):.3f}x)"

            evict = verdict_of("dp-evict", evictLosses)
            anneal = verdict_of("fastsa", saLosses)
            cells += 1
            lines.append(f"| {name} | {int(f * 100)}% | {dp} | {text((dpo, dps))} | {text(others['dtr'])} | "
                         f"{text(others['chain-dp'])} | {text(others['chen-greedy'])} | {verdict} | "
                         f"{text(others['dp-evict'])} | {evict} | {text(others['fastsa'])} | {anneal} |")
            print(lines[-1], file=sys.stderr, flush=True)
    body = "\n".join(lines)
    body += f"\n\n{cells} graph-budget cells; the DP is not at or below both rivals in {len(losses)} of them"
    body += (":\n" + "\n".join(f"- {l}" for l in losses)) if losses else "."
    body += f"\n\ndp-evict is not at or below both rivals in {len(evictLosses)} of them"
    body += (":\n" + "\n".join(f"- {l}" for l in evictLosses)) if evictLosses else "."
    body += f"\n\nfastsa is not at or below both rivals in {len(saLosses)} of them"
    body += (":\n" + "\n".join(f"- {l}" for l in saLosses)) if saLosses else "."
    if any(not a.startswith("--") for a in sys.argv[1:]):
        # Some graphs only: their rows are printed (above), the whole table in BENCHMARKS.md is kept.
        print(body)
        return
    replace_section("FIT-AND-WIN", body)


if __name__ == "__main__":
    main()
