"""apply: a plan's lower-set chain run on the captured training step, exactly as Remat lowers it.

    step = apply(cap, plan)          # plan: the plan JSON (a dict, or a path) of exact-dp, approx-dp, chen
    loss = step(images, labels)      # the model's own parameters; optimizer and loop as before
    loss.backward()

The plan's segments V_1..V_k (its `segments`) are run in order, each node of the traced step as one unit.
Segments before the last keep, after their forward, only what Remat's canonical lowering keeps
(docs/simulator.md, "Lowering a chain"): their checkpoints (values a later segment reads) and what their
backward reads from outside them. Everything else their backward needs is dropped and rebuilt, when that
backward first asks for it, by running again only the nodes that make it, in order:
`torch.autograd.graph.saved_tensors_hooks` stores a handle instead of each such tensor in the forward
and fills the handles from the recomputation (as `torch.utils.checkpoint` does without reentrance, but
node by node, so that what is recomputed is what the simulator counts, not the whole segment). A tensor
an operation keeps of its own (max-pool's indices, dropout's mask) is rebuilt by running that operation
again with the random state it had; batch norm's running statistics are restored after such a re-run,
so they are updated once per step, as in plain training. The last segment runs as plain autograd does.

What the step then holds is what `remat` predicts for the plan (`metrics.simulated_peak_bytes`), with
the nodes that apply moved (see `normalize`) the plan's prediction must be computed again for the
chain apply runs: `AppliedStep.segments`.
"""

from __future__ import annotations

import json
import warnings
import weakref
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

import torch
import torch.fx as fx
import torch.nn as nn

from . import _memory
from ._capture import Capture
from ._trace import _evaluate


class PlanError(ValueError):
    """A plan that apply cannot run as it stands, with the reason."""


def _segments_of(plan: Union[Dict[str, Any], str, Sequence[Sequence[str]]]) -> List[List[str]]:
    if isinstance(plan, str):
        with open(plan, encoding="utf-8") as f:
            plan = json.load(f)
    if isinstance(plan, dict):
        segments = plan.get("segments")
        if not segments:
            raise PlanError(f"the plan of {plan.get('solver', 'this solver')} is not a lower-set chain (no "
                            "`segments`): apply runs the plans of exact-dp, approx-dp, chen-sqrtn and chen-greedy")
        return [list(s) for s in segments]
    return [list(s) for s in plan]


def in_place_pins(cap: Capture) -> List[str]:
    """The operations to pin `recompute` (docs/pins.md: never a checkpoint of a lower-set chain) so that the
    DPs plan only chains `apply` runs as planned: for each in-place write whose backward keeps the value from
    before the write (SiLU's, Hardswish's and ReLU6's input), the operation that made the value and the
    writes into it before this one. None of them a checkpoint, the write stays in its maker's segment, where
    `normalize` would otherwise move it after the DP has costed the chain. `best_plan` passes them to every
    solver; exact-dp, approx-dp and milp honour them.

        remat.compare(graph, budget=b, recompute=in_place_pins(cap))"""
    nodes = {n["id"]: n for n in cap.graph["nodes"]}
    ops = [n["id"] for n in cap.graph["nodes"] if n["kind"] == "op"]
    keeps_before = {nodes[i]["attrs"]["of"] for i in ops if nodes[i]["op"] == "Saved"}
    writes_of: Dict[str, List[str]] = {}  # a value's maker -> the writes into it so far, in order
    pins: List[str] = []
    for ident, maker in _in_place_writes(cap, nodes, ops):
        if maker is None or nodes[maker]["kind"] != "op":  # a step input's: normalize refuses such a plan
            continue
        group = writes_of.setdefault(maker, [])
        if ident in keeps_before:
            pins.extend(m for m in [maker] + group if m not in pins)
        group.append(ident)
    return pins


def _in_place_writes(cap: Capture, nodes: Dict[str, Dict[str, Any]],
                     ops: List[str]) -> Iterator[Tuple[str, Optional[str]]]:
    """Each operation that writes an operand in place (capture marks it: fx meta `writes`), in the graph's
    order, with the operation that made the storage it wrote (None where the graph does not say)."""
    fx_nodes = {n.name: n for n in cap.module.graph.nodes}
    for ident in ops:
        node = nodes[ident]
        fxn = fx_nodes.get(cap.fx_name.get(ident, ""))
        if node["op"] == "Saved" or fxn is None or not fxn.meta.get("writes"):
            continue
        # A write returns the value it wrote, a zero-byte alias whose first input is the storage's maker.
        yield ident, (node["inputs"][0] if node["bytes"] == 0 and node["inputs"] else None)


def normalize(cap: Capture, segments: List[List[str]]) -> List[List[str]]:
    """The chain apply runs: the plan's, except that a node's own saved tensors (`ID:saved`) go with the
    node that makes them, and an operation that writes a value in place runs in the segment of the
    operation that made it (a recomputation must not see the value already written). Both moves keep
    every L_i a lower set. Raises PlanError when neither can be done."""
    seg_of: Dict[str, int] = {}
    for i, seg in enumerate(segments):
        for ident in seg:
            seg_of[ident] = i
    nodes = {n["id"]: n for n in cap.graph["nodes"]}
    ops = [n["id"] for n in cap.graph["nodes"] if n["kind"] == "op"]
    missing = [i for i in ops if i not in seg_of]
    if missing or len(seg_of) != len(ops):
        raise PlanError(f"the plan's segments do not cover this graph's operations exactly "
                        f"({len(missing)} missing, e.g. {missing[:3]}); was it made for another graph?")
    _move_in_place_writes(cap, nodes, ops, seg_of)
    for ident in ops:
        node = nodes[ident]
        if node["op"] == "Saved":
            seg_of[ident] = seg_of[node["attrs"]["of"]]
    for ident in ops:  # every operand in the same or an earlier segment (the moves above keep this)
        for u in nodes[ident]["inputs"]:
            if u in seg_of and seg_of[u] > seg_of[ident]:
                raise PlanError(f"segment {seg_of[ident] + 1} reads {u} from segment {seg_of[u] + 1}: the "
                                "plan's sets are not an increasing chain of lower sets")
    out: List[List[str]] = [[] for _ in segments]
    for ident in ops:
        out[seg_of[ident]].append(ident)
    return [s for s in out if s]


def _move_in_place_writes(cap: Capture, nodes: Dict[str, Dict[str, Any]], ops: List[str],
                          seg_of: Dict[str, int]) -> None:
    """Puts each in-place write whose backward keeps the value from before the write (a tensor of its
    own: SiLU's, Hardswish's and ReLU6's input) into the segment of the operation that made the value,
    with the writes of the same value before it: its segment's recomputation would otherwise re-run it
    on the value it already overwrote (`silu(x, inplace=True)` applied twice). The writes move earlier,
    or else the value's maker and its writes move later; PlanError where neither keeps the chain's sets
    lower sets. Writes that keep nothing of their own (`x += y`, ReLU's, which keeps its result) stay
    where the plan put them: the recomputation does not re-run a write into a value from an earlier
    segment (`_Run._recompute`)."""
    consumers: Dict[str, List[str]] = {}
    for ident in ops:
        for u in nodes[ident]["inputs"]:
            consumers.setdefault(u, []).append(ident)
    saved_of = {nodes[i]["attrs"]["of"]: i for i in ops if nodes[i]["op"] == "Saved"}
    writes_of: Dict[str, List[str]] = {}  # a value's maker -> the writes into it so far, in order
    single = len(set(seg_of.values())) <= 1
    for ident, maker in _in_place_writes(cap, nodes, ops):
        if maker is None or maker not in seg_of:
            if single or ident not in saved_of:
                continue
            raise PlanError(f"{ident} writes {'the step input ' + maker if maker else 'an operand'} in place "
                            "and keeps the value from before: apply cannot recompute it; only the plain step runs")
        group = writes_of.setdefault(maker, [])
        group.append(ident)
        if ident not in saved_of:
            continue
        members = [maker] + group
        here, there = seg_of[ident], seg_of[maker]
        if all(seg_of[m] == there for m in members):
            continue
        own = {saved_of.get(m) for m in members}
        reads = [u for m in group for u in nodes[m]["inputs"] if u not in members and u not in own]
        if all(seg_of.get(u, 0) <= there for u in reads):
            for m in group:
                seg_of[m] = there  # the writes, earlier: what they read is made by then
        elif all(seg_of[c] >= here for m in members for c in consumers.get(m, [])
                 if c not in members and c not in own):
            for m in members:
                seg_of[m] = here  # the maker and the writes, later: nothing reads them before
        else:
            raise PlanError(f"{ident} writes {maker}'s value in place in segment {here + 1} and keeps the value "
                            f"from before, which segment {there + 1} made and a segment between them reads: "
                            "no chain of lower sets near this plan lets apply recompute it")


class _Holder:
    """What a dropped tensor is saved as: filled by the recomputation, emptied when autograd lets go."""

    __slots__ = ("__weakref__",)


class AppliedStep(nn.Module):
    """The captured step, run under a plan: call it as the step (inputs..., targets...) -> loss."""

    def __init__(self, cap: Capture, segments: List[List[str]]):
        super().__init__()
        self.gm = cap.module
        self.segments = segments
        self._build(cap)

    def _build(self, cap: Capture) -> None:
        graph_nodes = {n["id"]: n for n in cap.graph["nodes"]}
        by_fx: Dict[str, int] = {}
        for i, seg in enumerate(self.segments):
            for ident in seg:
                name = cap.fx_name.get(ident)
                if name is not None:
                    by_fx[name] = max(by_fx.get(name, i), i) if graph_nodes[ident]["op"] != "Saved" else by_fx.get(name, i)
        last = len(self.segments) - 1
        self._order: List[fx.Node] = []
        self._segment: Dict[fx.Node, int] = {}
        # Facts about shapes (`x.shape[0]`, `d // heads`): the graph is specialised to the example's shapes
        # (forward checks that the inputs have them), so these are its values, not operations to run. Run,
        # they would tie a node to a value it only takes the size of, which no edge of the Remat graph
        # records: ViT's class token is expanded to `x.shape[0]` of a value a later segment makes.
        self._constants: Dict[fx.Node, Any] = {
            n: n.meta["real"] for n in self.gm.graph.nodes
            if n.op in ("call_function", "call_method") and not n.meta.get("data", True) and not _tensors(n.meta.get("real"))}
        self._examples = [(str(n.target), n.meta["real"]) for n in self.gm.graph.nodes if n.op == "placeholder"]
        for n in self.gm.graph.nodes:
            if n.op == "output" or n in self._constants:
                continue
            producers = [self._segment[p] for p in n.all_input_nodes if p in self._segment]
            floor = max(producers, default=0)
            seg = by_fx.get(n.name, floor)
            if seg < floor:
                raise PlanError(f"{n.name} runs in segment {seg + 1} but reads a value of segment {floor + 1}")
            self._segment[n] = seg
        nodes = [n for n in self.gm.graph.nodes if n.op != "output" and n not in self._constants]
        position = {n: k for k, n in enumerate(nodes)}
        self._order = sorted(nodes, key=lambda n: (self._segment[n], position[n]))
        self._output = next(n for n in self.gm.graph.nodes if n.op == "output")
        # Boundaries: values of segment i < last that a later segment reads (they stay after the forward).
        self._boundary: Set[fx.Node] = set()
        for n in nodes:
            for u in n.users:
                if u.op != "output" and u not in self._constants and self._segment.get(u, last) > self._segment[n]:
                    self._boundary.add(n)
        # When each value is last read, in the order they run, so that nothing lives longer than there.
        self._last_use: Dict[fx.Node, fx.Node] = {}
        for n in self._order:
            for p in n.all_input_nodes:
                if p not in self._constants:
                    self._last_use[p] = n
        self._last = last
        self._random = {n for n in nodes if n.meta.get("random", False)}

    def forward(self, *args):
        if len(args) != len(self._examples):
            raise TypeError(f"the step takes {len(self._examples)} arguments (the inputs, then the targets), "
                            f"got {len(args)}")
        for (name, example), given in zip(self._examples, args):
            if isinstance(example, torch.Tensor) and (not isinstance(given, torch.Tensor) or
                                                      given.shape != example.shape or given.dtype != example.dtype):
                got = f"{tuple(given.shape)} {given.dtype}" if isinstance(given, torch.Tensor) else type(given).__name__
                raise ValueError(f"{name}: the plan is for the captured shapes, {tuple(example.shape)} "
                                 f"{example.dtype}, got {got}; capture and plan again for other shapes (a last, "
                                 "smaller batch: drop it, as DataLoader(drop_last=True) does, or pad it)")
        run = _Run(self)
        return run.forward(args)


class _Run:
    """One step: the forward with handles for what segments before the last drop, and their recomputation."""

    def __init__(self, step: AppliedStep):
        self.step = step
        self.env: Dict[fx.Node, Any] = {}
        self.maker: Dict[int, fx.Node] = {}  # storage -> the node whose value last wrote it
        self.kept: Dict[int, bool] = {}  # storage -> held after its segment's forward (a boundary, or outside it)
        # Storage -> weak references to the tensors seen on it. Addresses are reused once a storage is
        # freed, so an entry counts only while one of them is alive (a freed storage has no live tensor).
        self.alive: Dict[int, List[Any]] = {}
        self.handles: Dict[Tuple[fx.Node, int], Any] = {}  # (node, k-th pack) -> weak ref of its holder
        self.rebuild: List[Dict[Tuple[fx.Node, int], Tuple]] = [dict() for _ in step.segments]
        self.outside: List[Dict[fx.Node, Any]] = [dict() for _ in step.segments]  # values read from before
        self.storage: "weakref.WeakKeyDictionary[_Holder, torch.Tensor]" = weakref.WeakKeyDictionary()
        self.rng: Dict[fx.Node, Tuple] = {}
        self.done: Set[int] = set()
        for t in list(step.gm.parameters()) + list(step.gm.buffers()):
            key = _memory.storage_key(t)
            if key != 0:
                self.kept[key] = True

    # -- forward ---------------------------------------------------------------------------------------
    def forward(self, args):
        step = self.step
        placeholders = iter(args)
        current = 0
        self.env.update(step._constants)
        for n in step._order:
            seg = step._segment[n]
            while current < seg:
                self._end_of_forward(current)
                current += 1
            if n.op == "placeholder":
                value = next(placeholders)
            elif n.op == "get_attr":
                value = _fetch(step.gm, str(n.target))
            else:
                value = self._run_node(n, seg)
            self.env[n] = value
            self._note_storages(n, value, seg)
            for p in n.all_input_nodes:
                if step._last_use.get(p) is n:
                    self.env.pop(p, None)
            if not n.users:
                self.env.pop(n, None)
        while current < step._last:
            self._end_of_forward(current)
            current += 1
        result = fx.node.map_arg(step._output.args[0], lambda x: self.env[x])
        self.env.clear()
        return result

    def _note_storages(self, n: fx.Node, value: Any, seg: int) -> None:
        for t in _tensors(value):
            key = _memory.storage_key(t)
            if key == 0:
                continue
            if not self._known(key):
                self.kept.pop(key, None)
            self.maker[key] = n  # the last node whose value is this storage: it holds what was written last
            self.alive.setdefault(key, []).append(weakref.ref(t))
            held = n in self.step._boundary or seg == self.step._last or n.op in ("placeholder", "get_attr")
            self.kept[key] = self.kept.get(key, False) or held

    def _known(self, key: int) -> bool:
        refs = self.alive.get(key)
        if refs is None:
            return key in self.kept  # parameters and buffers, which live as long as the model
        refs[:] = [r for r in refs if r() is not None]
        if not refs:
            del self.alive[key]
            return False
        return True

    def _run_node(self, n: fx.Node, seg: int) -> Any:
        step = self.step
        args = fx.node.map_arg(n.args, lambda x: self.env[x])
        kwargs = fx.node.map_arg(n.kwargs, lambda x: self.env[x])
        if seg == step._last:
            return _evaluate(step.gm, n.op, n.target, args, kwargs)
        if n in step._random:
            self.rng[n] = _rng_state()
        for p in n.all_input_nodes:  # what the recomputation will read from outside this segment
            if p in step._constants:
                continue
            if (step._segment[p] != seg or p.op == "placeholder") and p in self.env:
                self.outside[seg].setdefault(p, self.env[p])
        count = 0
        pending: List[Tuple[_Holder, torch.Tensor, int]] = []

        def pack(t: torch.Tensor):
            nonlocal count
            k = count
            count += 1
            key = _memory.storage_key(t)
            if key != 0 and not self._known(key):
                self.kept.pop(key, None)
                self.maker.pop(key, None)
            if key == 0 or self.kept.get(key, False) or t.dim() == 0:
                return t  # a value the step holds anyway (a parameter, a checkpoint) or a scalar: keep it
            holder = _Holder()
            if key in self.kept:  # a value of this segment that is dropped: rebuilt from what made it
                recipe = ("view", self.maker[key], tuple(t.shape), tuple(t.stride()), t.storage_offset())
            else:  # n's output or a tensor of its own: rebuilt by running n again
                recipe = ("own", n, k)
                pending.append((holder, t, k))
            self.handles[(n, k)] = weakref.ref(holder)
            self.rebuild[seg][(n, k)] = recipe
            return holder

        def unpack(x):
            if not isinstance(x, _Holder):
                return x
            if seg not in self.done:
                self._recompute(seg)
            return self.storage[x]

        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            value = _evaluate(step.gm, n.op, n.target, args, kwargs)
        if n in step._boundary:  # n's own output, packed by n, stays as the checkpoint it is
            outputs = {_memory.storage_key(t) for t in _tensors(value)}
            for holder, t, k in pending:
                if _memory.storage_key(t) in outputs:
                    self.storage[holder] = t
                    del self.rebuild[seg][(n, k)]
        pending.clear()  # autograd keeps `pack` (and so this list) with every tensor it saved
        return value

    def _needed(self, seg: int) -> Set[fx.Node]:
        """The nodes of segment `seg` its recomputation runs: those whose values or own tensors its
        backward reads, and the nodes of the segment they are made from."""
        step = self.step
        needed: Set[fx.Node] = set()
        stack = [recipe[1] for recipe in self.rebuild[seg].values()]
        while stack:
            n = stack.pop()
            if n in needed or n in step._constants or step._segment[n] != seg or n.op in ("placeholder", "get_attr"):
                continue
            needed.add(n)
            stack.extend(n.all_input_nodes)
        return needed

    def _end_of_forward(self, seg: int) -> None:
        """Segment `seg` has run: of the values it read from outside, keep only what its recomputation reads."""
        needed = self._needed(seg)
        reads = {p for n in needed for p in n.all_input_nodes}
        outside = self.outside[seg]
        for p in list(outside):
            if p not in reads:
                del outside[p]

    # -- backward --------------------------------------------------------------------------------------
    def _recompute(self, seg: int) -> None:
        step = self.step
        recipes = self.rebuild[seg]
        needed = self._needed(seg)
        wanted = {recipe[1] for recipe in recipes.values() if recipe[0] == "view"}  # kept to the end
        env: Dict[fx.Node, Any] = {}
        order = [n for n in step._order if n in needed]
        last_use: Dict[fx.Node, fx.Node] = {}
        for n in order:
            for p in n.all_input_nodes:
                last_use[p] = n

        def value_of(p: fx.Node):
            if p in env:
                return env[p]
            if p in step._constants:
                return step._constants[p]
            if p.op == "get_attr":
                return _fetch(step.gm, str(p.target))
            return self.outside[seg][p]

        # Storages this segment read from earlier ones: a write into one of them is in it already (the
        # forward made it), and running it again would write twice (see _move_in_place_writes).
        outside_keys = {_memory.storage_key(t) for v in self.outside[seg].values() for t in _tensors(v)} - {0}
        with torch.enable_grad():
            for n in order:
                written = [value_of(p) for p in n.all_input_nodes if p.name in n.meta.get("writes", ())]
                if written and all(_memory.storage_key(t) in outside_keys for t in written):
                    value = written[0]  # what the write returned: the value it wrote into
                else:
                    value = self._rerun(n, seg, args_of=value_of)
                if n in wanted or n in last_use:
                    env[n] = value
                del value  # re-run for its own tensors alone: its output goes at once
                for p in n.all_input_nodes:
                    if last_use.get(p) is n and p not in wanted:
                        env.pop(p, None)
        for (n, k), recipe in recipes.items():
            ref = self.handles.get((n, k))
            holder = ref() if ref is not None else None
            if holder is None or recipe[0] != "view":
                continue
            _, maker, size, stride, offset = recipe
            base = env[maker].detach()
            self.storage[holder] = base.as_strided(size, stride, offset)
        self.outside[seg].clear()
        self.done.add(seg)

    def _rerun(self, n: fx.Node, seg: int, args_of) -> Any:
        """Runs node n of segment `seg` again as its forward ran it (its random state, its batch norm's
        statistics put back), filling the handles of the tensors of its own that its backward reads."""
        step = self.step
        recipes = self.rebuild[seg]
        args = fx.node.map_arg(n.args, args_of)
        kwargs = fx.node.map_arg(n.kwargs, args_of)
        count = 0

        def inner_pack(t: torch.Tensor):
            nonlocal count
            k = count
            count += 1
            ref = self.handles.get((n, k))
            holder = ref() if ref is not None else None
            if holder is not None and recipes.get((n, k), ("",))[0] == "own":
                self.storage[holder] = t.detach()
            return None

        buffers = _buffers_of(step.gm, n)
        saved = [b.detach().clone() for b in buffers]
        with _rng_restored(self.rng.get(n)), torch.autograd.graph.saved_tensors_hooks(inner_pack, lambda _: None):
            value = _evaluate(step.gm, n.op, n.target, args, kwargs)
        with torch.no_grad():
            for b, s in zip(buffers, saved):
                b.copy_(s)
        return value


def _fetch(gm: fx.GraphModule, target: str) -> Any:
    value: Any = gm
    for atom in target.split("."):
        value = getattr(value, atom)
    return value


def _tensors(value: Any) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []

    def visit(x):
        if isinstance(x, torch.Tensor):
            out.append(x)
        return x

    fx.node.map_aggregate(value, visit)
    return out


def _buffers_of(gm: fx.GraphModule, n: fx.Node) -> List[torch.Tensor]:
    if n.op != "call_module":
        return []
    return [b for b in gm.get_submodule(str(n.target)).buffers() if b.is_floating_point() or b.dtype == torch.long]


def _rng_state() -> Tuple:
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


class _rng_restored:
    """Runs a block with the random state a node had in the forward, then puts the current one back."""

    def __init__(self, state: Optional[Tuple]):
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.saved = _rng_state()
            torch.set_rng_state(self.state[0])
            if self.state[1] is not None:
                torch.cuda.set_rng_state_all(self.state[1])

    def __exit__(self, *exc):
        if self.state is not None:
            torch.set_rng_state(self.saved[0])
            if self.saved[1] is not None:
                torch.cuda.set_rng_state_all(self.saved[1])
        return False


def apply(cap: Capture, plan: Union[Dict[str, Any], str, Sequence[Sequence[str]]]) -> AppliedStep:
    """The captured step under `plan` (plan JSON as a dict or a file, or the segments as lists of node ids)."""
    if isinstance(plan, dict) and not plan.get("segments") and plan.get("solver") == "store-all":
        plan = [[n["id"] for n in cap.graph["nodes"] if n["kind"] == "op"]]  # the plain run: one segment
    given = _segments_of(plan)
    chain = normalize(cap, given)
    # The plan's figures are the chain's it was made for; where writes moved they no longer hold.
    saved = {n["id"] for n in cap.graph["nodes"] if n["kind"] == "op" and n["op"] == "Saved"}
    before = {i: frozenset(seg) - saved for seg in given for i in seg if i not in saved}
    after = {i: frozenset(seg) - saved for seg in chain for i in seg if i not in saved}
    if len(given) == len(chain):  # the same segments, some operations elsewhere: name those
        index = {i: k for k, seg in enumerate(chain) for i in seg}
        moved = sorted(i for k, seg in enumerate(given) for i in seg if i not in saved and index[i] != k)
    else:  # a segment emptied: every operation whose segment changed
        moved = sorted(i for i in before if before[i] != after[i])
    if moved:
        warnings.warn(f"remat.torch.apply: {len(moved)} operation(s) moved to another segment (in-place writes "
                      f"kept with the value they overwrite, e.g. {', '.join(moved[:3])}): the plan's predicted "
                      "peak and overhead are for the chain it was made for, not this one. Simulate "
                      "`step.segments` again (remat.simulate), or plan under the captured graph's pins "
                      "(its \"pins\", `in_place_pins(cap)`), which `cap.graph` and its file carry and every "
                      "solver call honours unless told otherwise: their plans apply runs as planned",
                      stacklevel=2)
    return AppliedStep(cap, chain)
