"""best_plan: the common question in one call. Given a model, example inputs, a loss and a memory budget:
which plan that `apply` can run fits the budget with the least recomputation, what does Remat predict for
it, how does it compare with the overall winner, and the wrapped step that trains with it.

    from remat.torch import best_plan
    best = best_plan(model, (images,), torch.nn.functional.cross_entropy, (labels,), budget="6GiB")
    print(best.summary())
    loss = best.step(images, labels); loss.backward(); optimizer.step()

Every prediction is the engine's (`remat.compare` and `remat.simulate`: the bindings). `apply` runs
lower-set chains: the plans of exact-dp, approx-dp, chen-sqrtn and chen-greedy (and store-all, a single
segment); DTR's and the MILP's schedules are compared but cannot be applied yet.

With `verify` (the default), the plan is also run once, as `measure` runs a step, before it is handed
out: one that measures over the budget (where PyTorch's autograd holds memory the simulator does not
follow: docs/simulator.md), or runs out of the device's memory, is set aside for the next one. The solvers
of plans set aside plan again for the budget less the most a plan measured above its prediction, and a
plan of theirs that fits with less overhead than the next one replaces it. So the step returned is one
that was seen to fit on this device, and a plan a few kilobytes over does not hand the choice to one
with far more recomputation. The model is left as it was: its
gradients, buffers and the random state.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import torch
import torch.nn as nn

from ._apply import AppliedStep, PlanError, apply, in_place_pins, normalize, _segments_of
from ._capture import Capture, capture, state_kept
from ._measure import measure


@dataclasses.dataclass
class BestPlan:
    capture: Capture
    comparison: Dict[str, Any]  # remat.compare's answer: every solver's row, the winner
    plan: Optional[Dict[str, Any]]  # the plan apply runs (plan JSON), simulated by the engine; None: none fits
    solver: Optional[str]
    step: Optional[AppliedStep]  # the training step under that plan; None when no appliable plan fits
    budget_bytes: int
    plain_peak_bytes: int
    # Where no appliable plan fits: the least budget exact-dp can meet (approx-dp's where exact-dp cannot
    # answer), by remat.min_budget, and the solver it is from; the budget to ask for instead.
    least_appliable_bytes: Optional[int] = None
    least_appliable_solver: Optional[str] = None
    # With verify: each plan run, in the order tried, as {"solver", "planned_at_bytes" (the budget it was
    # solved for: the budget, or less where plans before it measured over it), "predicted_peak_bytes",
    # "measured_peak_bytes", "fits", "error", "applied"}; the applied plan is the one with "applied" true. A
    # plan that fits is passed over only for a re-planned one that fits with less overhead. A run that ran
    # out of memory on the device has no measured peak and the allocator's message as error.
    verified: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    # Plans that fit in the simulator but that apply cannot run as they stand (an in-place write it cannot
    # recompute, apply.normalize): {"solver", "reason"}, each once.
    unappliable: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    # The operations every solver was asked to pin `recompute` (in_place_pins: the makers of values an
    # in-place write overwrites and keeps a copy of); the DPs honour them, and the summary says how many.
    pinned: List[str] = dataclasses.field(default_factory=list)

    @property
    def applied_run(self) -> Optional[Dict[str, Any]]:
        """The applied plan's entry in `verified` (with verify), else None."""
        return next((v for v in self.verified if v["applied"]), None)

    @property
    def measured_peak_bytes(self) -> Optional[int]:
        """The applied plan's peak as `measure` saw it (with verify), else None."""
        run = self.applied_run
        return run["measured_peak_bytes"] if run else None

    @property
    def predicted_peak_bytes(self) -> Optional[int]:
        return self.plan["metrics"]["simulated_peak_bytes"] if self.plan else None

    @property
    def overhead_percent(self) -> Optional[float]:
        if not self.plan:
            return None
        plain = self.comparison["vanilla"]["metrics"]["total_time"]
        return 100.0 * self.plan["metrics"]["overhead"] / plain if plain > 0 else 0.0

    def summary(self) -> str:
        mib = 1 << 20
        lines = [f"budget {self.budget_bytes / mib:.1f} MiB; plain run {self.plain_peak_bytes / mib:.1f} MiB"]
        for row in self.comparison["rows"]:
            m = row["metrics"] or {}
            peak = m.get("simulated_peak_bytes")
            lines.append(f"  {row['solver']:<14} {row['status']:<12} "
                         + (f"peak {peak / mib:8.1f} MiB  overhead {row['overhead_percent']:6.2f}%" if peak else
                            row.get("message", ""))  # without a plan, why (often the least budget it reaches)
                         + ("  fits" if row.get("fits") else "")
                         + ("  (ignores the in-place pins: not a winner)" if row.get("pins_ignored") and peak else ""))
        winner = self.comparison.get("winner")
        lines.append(f"overall winner: {winner or 'none fits'}"
                     + (" (among the solvers that honour the pins)" if self.pinned else ""))
        if self.pinned:
            lines.append(f"pinned recompute: {len(self.pinned)} operations whose value an in-place write keeps a copy "
                         "of, so that the write stays in their segment (exact-dp, approx-dp, milp and store-all "
                         "honour it; a schedule that ignores it may rebuild a copy from the overwritten value)")
        def planned(v: Dict[str, Any]) -> str:
            return (f", planned at {v['planned_at_bytes']} bytes" if v["planned_at_bytes"] != self.budget_bytes
                    else "")

        for u in self.unappliable:
            lines.append(f"not applied: {u['solver']}'s plan: {u['reason']}")
        for v in self.verified:
            if v["applied"]:
                continue
            if v["fits"]:
                lines.append(f"passed over: {v['solver']} measured {v['measured_peak_bytes']} bytes, within the "
                             f"budget (predicted {v['predicted_peak_bytes']}{planned(v)}); a plan made again for "
                             "less has less overhead")
            elif v["measured_peak_bytes"] is None:
                lines.append(f"set aside: {v['solver']} ran out of memory on the device (predicted "
                             f"{v['predicted_peak_bytes']}{planned(v)}): {v['error']}")
            else:
                over = v["measured_peak_bytes"] - self.budget_bytes
                lines.append(f"set aside: {v['solver']} measured {v['measured_peak_bytes']} bytes, {over} over the "
                             f"budget (predicted {v['predicted_peak_bytes']}{planned(v)})")
        if self.plan:
            measured = (f", measured {self.measured_peak_bytes / mib:.1f} MiB"
                        if self.measured_peak_bytes is not None else "")
            run = self.applied_run
            again = (planned(run) + " (the budget less the most a plan measured over its prediction)"
                     if run and planned(run) else "")
            lines.append(f"applied: {self.solver}{again}, predicted peak {self.predicted_peak_bytes / mib:.1f} MiB"
                         f"{measured}, overhead {self.overhead_percent:.2f}% of the plain step")
        elif self.verified:
            measured = [v["measured_peak_bytes"] for v in self.verified if v["measured_peak_bytes"] is not None]
            least = (f"; the least measured was {min(measured) / mib:.1f} MiB, {min(measured)} bytes" if measured
                     else "")
            lines.append("applied: none (every plan apply can run that fits in the simulator, planned for the budget "
                         f"or for less, measured over the budget or ran out of memory{least})")
        elif self.least_appliable_bytes is not None:
            lines.append(f"applied: none (no plan apply can run fits the budget); {self.least_appliable_solver}'s "
                         f"least budget is {self.least_appliable_bytes / mib:.1f} MiB "
                         f"({self.least_appliable_bytes} bytes)")
        else:
            lines.append("applied: none (no plan apply can run fits the budget)")
        return "\n".join(lines)


def appliable(row: Dict[str, Any]) -> bool:
    """Whether apply can run a plan: a lower-set chain (its plan JSON has `segments`), or the plain run."""
    return bool(row.get("segments")) or row.get("solver") == "store-all"


# How many times best_plan plans again, for a budget less what the plans measured above their prediction,
# when every plan it verified measured over the budget.
_REPLANS = 3


def _measured_peak(step: AppliedStep, model: nn.Module, inputs: Sequence[Any], targets: Sequence[Any]) -> int:
    """The peak of one step under the plan, as `measure` sees it, leaving the model as it was: its
    parameters' gradients, its buffers (batch norm's running statistics) and the random state."""
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    with state_kept(model, device):
        return measure(step, tuple(inputs) + tuple(targets)).peak_bytes


def _out_of_memory(error: BaseException) -> bool:
    """Whether a step failed for want of device memory: CUDA's out-of-memory error (a RuntimeError, its
    own class from torch 1.13 on), or the CPU allocator's refusal."""
    text = str(error).lower()
    return isinstance(error, MemoryError) or "out of memory" in text or "can't allocate memory" in text


def best_plan(model: nn.Module, inputs: Sequence[Any], loss_fn: Optional[Callable] = None,
              targets: Sequence[Any] = (), *, budget: Union[int, str], solvers: Optional[List[str]] = None,
              time_limit: Optional[float] = 60.0, cap: Optional[Capture] = None, verify: bool = True) -> BestPlan:
    """Captures the step (or takes `cap`), compares the solvers at `budget` (bytes or a size such as
    "6GiB"), and applies the plan with the least simulated overhead among those apply can run that fit
    the budget in the simulator, for the chain apply actually runs (see `normalize`). With `verify`, each
    such plan in that order is run once on `inputs` and `targets` and the first whose measured peak is
    within the budget is chosen. Where plans ahead of it (or all) measured over, the solvers that gave
    those plan again for the budget less the most any plan measured above its prediction, up to three
    times, and a re-planned plan that fits and has less overhead replaces the one chosen
    (`BestPlan.verified` has every run)."""
    import remat  # the engine's bindings

    cap = cap or capture(model, inputs, loss_fn, targets)
    graph = remat.Graph.from_json(cap.graph, cap.graph.get("name", "captured"))
    if solvers is None:  # the MILP and its LP bound take minutes on networks of this size: only when named
        solvers = [s["id"] for s in remat.solvers() if not s["wants_time_limit"]]
    pinned = in_place_pins(cap)
    comparison = remat.compare(graph, budget=budget, solvers=solvers, time_limit=time_limit, recompute=pinned)
    budget_bytes = next((r["budget_bytes"] for r in comparison["rows"] if r.get("budget_bytes")), None)
    if budget_bytes is None:
        raise ValueError(f"budget {budget!r}: give a number of bytes or a size such as 6GiB")

    unappliable: List[Dict[str, Any]] = []

    def candidates(rows: List[Dict[str, Any]], asked: int) -> List[Dict[str, Any]]:
        """The plans of `rows` that apply can run and that fit `asked` in the simulator, as apply runs
        them, least overhead first, then least peak."""
        out: List[Dict[str, Any]] = []
        for row in rows:
            if not (appliable(row) and row.get("fits")):
                continue
            if not row.get("segments"):  # the plain run: one segment, nothing recomputed
                row = dict(row, segments=[graph.op_ids])
            try:
                segments = normalize(cap, _segments_of(row))
            except PlanError as reason:
                if all(u["solver"] != row["solver"] for u in unappliable):
                    unappliable.append({"solver": row["solver"], "reason": str(reason)})
                continue
            if segments != [list(s) for s in row["segments"]]:
                row = dict(remat.simulate(graph, segments, budget=asked, label=row["solver"]), solver=row["solver"])
                if row["status"] not in ("optimal", "feasible"):
                    continue
            out.append(row)
        out.sort(key=lambda r: (r["metrics"]["overhead"], r["metrics"]["simulated_peak_bytes"]))
        return out

    def ahead(row: Dict[str, Any], of: Optional[Dict[str, Any]]) -> bool:
        """Whether `row` would be chosen before `of` (None: before nothing chosen yet)."""
        def order(r: Dict[str, Any]):
            return (r["metrics"]["overhead"], r["metrics"]["simulated_peak_bytes"])
        return of is None or order(row) < order(of)

    best: Optional[Dict[str, Any]] = None
    step: Optional[AppliedStep] = None
    verified: List[Dict[str, Any]] = []
    tried: Dict[Any, bool] = {}  # a plan two solvers (or two rounds) found is run once: whether it fit
    asked = budget_bytes
    pool = candidates(comparison["rows"], asked)
    for attempt in range(1 + (_REPLANS if verify else 0)):
        over = set()  # the solvers whose plans, ahead of the one chosen, measured over the budget this round
        for row in pool:
            if not ahead(row, best):  # a re-planned round only looks for a plan ahead of the one it has
                break
            key = tuple(tuple(s) for s in row["segments"])
            if key in tried:
                if not tried[key]:  # measured over already: this solver plans again too
                    over.add(row["solver"])
                continue
            with warnings.catch_warnings():  # its chain is apply's already, simulated again (candidates)
                warnings.simplefilter("ignore")
                candidate = apply(cap, row)
            if verify:
                error: Optional[str] = None
                try:
                    peak: Optional[int] = _measured_peak(candidate, model, inputs, targets)
                except (RuntimeError, MemoryError) as failure:  # a plan over the device's memory: the next one
                    if not _out_of_memory(failure):
                        raise
                    text = str(failure).strip()
                    peak, error = None, text.splitlines()[0] if text else "out of memory"
                    if torch.cuda.is_available():
                        torch.cuda.empty_cache()
                fits = peak is not None and peak <= budget_bytes
                tried[key] = fits
                verified.append({"solver": row["solver"], "planned_at_bytes": asked,
                                 "predicted_peak_bytes": row["metrics"]["simulated_peak_bytes"],
                                 "measured_peak_bytes": peak, "fits": fits, "error": error, "applied": False})
                if not fits:
                    over.add(row["solver"])
                    continue
            best, step = row, candidate
            if verify:
                for v in verified:
                    v["applied"] = v is verified[-1]
            break
        if not verify or not over:
            break
        # Plans ahead of the one chosen (or all of them) measured over the budget: their solvers plan again
        # for the budget less the most any plan measured above its prediction, so that a plan erring as much
        # still fits; a re-planned plan that is verified to fit and is still ahead replaces the one chosen.
        excess = max((v["measured_peak_bytes"] - v["predicted_peak_bytes"] for v in verified
                      if v["measured_peak_bytes"] is not None), default=0)
        if excess <= 0 or budget_bytes - excess >= asked:
            break
        asked = budget_bytes - excess
        pool = candidates(remat.compare(graph, budget=asked, solvers=sorted(over), time_limit=time_limit,
                                        recompute=pinned)["rows"], asked)
    least: Optional[int] = None
    least_solver: Optional[str] = None
    if best is None and not verified:  # what to ask for instead: the least budget of the DP apply runs best
        for solver in ("exact-dp", "approx-dp"):
            answer = remat.min_budget(graph, solver, time_limit=time_limit, recompute=pinned)
            if answer["min_budget_bytes"] is not None:
                least, least_solver = answer["min_budget_bytes"], solver
                break
    return BestPlan(capture=cap, comparison=comparison, plan=best, solver=best["solver"] if best else None,
                    step=step, budget_bytes=budget_bytes,
                    plain_peak_bytes=comparison["vanilla"]["metrics"]["simulated_peak_bytes"],
                    least_appliable_bytes=least, least_appliable_solver=least_solver, verified=verified,
                    unappliable=unappliable, pinned=pinned)
