"""capture: an nn.Module, example inputs and a loss into a Remat graph (native JSON, docs/formats.md).

    from remat.torch import capture
    cap = capture(model, (images,), torch.nn.functional.cross_entropy, (labels,))
    cap.write("model.json")            # remat solve model.json --budget 2GiB ...

What a node is: one call of the traced forward (torch.fx, leaf modules as fx has them: torch.nn's own
modules are one node each, everything else is traced through, and so are torch.nn's transformer layers
and nn.MultiheadAttention, down to the operations of their attention), run as one unit by `apply`. For each
node the capture runs the step once, node by node, and measures rather than guesses:

- its output's bytes: the storage it allocates (a view, an in-place operation or `x += y` allocates none
  and is written as a view of the value whose storage it shares, as the simulator counts views);
- what its backward keeps, from `torch.autograd.graph.saved_tensors_hooks`: each packed tensor is one of
  its inputs, its output, a parameter, or a tensor of its own (max-pool's indices, dropout's mask,
  batch norm's statistics, cross-entropy's log-probabilities). Tensors of its own are one more node,
  `ID:saved` (op `Saved`, no gradient), computed with it and kept by its backward, so the simulator holds
  them from the forward to the backward exactly as autograd does;
- unless `measure=False`: its forward and backward times (median of `repeats`, nanoseconds) and the
  temporaries each allocates beyond what it leaves behind (`workspace`, `bwd_workspace`), run alone on
  the device of the model (CPU: from the profiler's allocator events; CUDA: the caching allocator's
  statistics).

Values that need no gradient (the inputs, masks and positions computed from shapes alone) are resident
`input` nodes; parameters that train are `param` nodes, buffers and frozen parameters `input` nodes (no
gradient), each storage once (a tied embedding is one node). What cannot be captured faithfully is
refused with the node and the reason (CaptureError): data-dependent control flow, an operation with
several fresh outputs, a loss that is not a scalar.

The model's state is left as it was: batch-norm running statistics and the random number generators are
restored, parameters' `.grad` untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import json
import statistics
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx as fx
import torch.nn as nn

from . import _memory
from ._trace import CaptureError, _evaluate, trace

# How an fx target reads as an operation type in the graph (the ONNX names Remat's op table uses where
# one fits; the torch name otherwise). Views use the table's view types, which the simulator aliases.
_OP_NAMES = {
    nn.Conv1d: "Conv", nn.Conv2d: "Conv", nn.Conv3d: "Conv", nn.Linear: "Gemm",
    nn.BatchNorm1d: "BatchNormalization", nn.BatchNorm2d: "BatchNormalization",
    nn.BatchNorm3d: "BatchNormalization", nn.LayerNorm: "LayerNormalization", nn.ReLU: "Relu",
    nn.ReLU6: "Clip", nn.GELU: "Gelu", nn.Tanh: "Tanh", nn.Sigmoid: "Sigmoid", nn.SiLU: "Silu",
    nn.Hardswish: "HardSwish", nn.Hardsigmoid: "HardSigmoid", nn.MaxPool2d: "MaxPool",
    nn.AvgPool2d: "AveragePool", nn.AdaptiveAvgPool2d: "GlobalAveragePool", nn.Dropout: "Dropout",
    nn.Embedding: "Gather", nn.Softmax: "Softmax", nn.CrossEntropyLoss: "SoftmaxCrossEntropyLoss",
    nn.Identity: "Identity", nn.Flatten: "Flatten",
}
_FUNCTION_NAMES = {
    "add": "Add", "iadd": "Add", "sub": "Sub", "isub": "Sub", "mul": "Mul", "imul": "Mul", "truediv": "Div",
    "itruediv": "Div", "matmul": "MatMul", "relu": "Relu", "gelu": "Gelu", "softmax": "Softmax",
    "cross_entropy": "SoftmaxCrossEntropyLoss", "cat": "Concat", "layer_norm": "LayerNormalization",
    "dropout": "Dropout", "embedding": "Gather", "linear": "Gemm", "conv2d": "Conv", "max_pool2d": "MaxPool",
    "adaptive_avg_pool2d": "GlobalAveragePool", "avg_pool2d": "AveragePool", "mean": "ReduceMean",
    "masked_fill": "Where", "tanh": "Tanh", "pow": "Pow", "sqrt": "Sqrt", "exp": "Exp",
}
_TRANSPOSES = {"transpose", "permute", "t", "mT", "swapaxes"}


@dataclasses.dataclass
class Capture:
    """A captured training step: the Remat graph (`graph`, native JSON as a dict) and the traced step
    (`module`: an fx GraphModule over the model, taking the inputs then the targets, returning the loss;
    `apply` splits it). `fx_name[id]` is the fx node a graph node came from."""

    graph: Dict[str, Any]
    module: fx.GraphModule
    fx_name: Dict[str, str]
    n_inputs: int

    def json(self) -> str:
        return json.dumps(self.graph, indent=1) + "\n"

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.json())

    def write_pins(self, path: str) -> None:
        """Writes the pins file (docs/pins.md) of `in_place_pins`. The graph carries them already (its
        "pins", which the command line and Studio honour unless told `--no-graph-pins`); the file is for a
        graph written without them."""
        from ._apply import in_place_pins  # _apply imports this module
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps({"recompute": in_place_pins(self)}, indent=1) + "\n")


class TrainingStep(nn.Module):
    """The model and its loss in one module: (inputs..., targets...) -> the scalar loss."""

    def __init__(self, model: nn.Module, loss_fn: Optional[Callable], n_inputs: int):
        super().__init__()
        self.model = model
        if isinstance(loss_fn, nn.Module):
            self.loss = loss_fn
        else:
            self._loss_fn = loss_fn
        self._n_inputs = n_inputs

    def step(self, args):
        out = self.model(*args[: self._n_inputs])
        loss = getattr(self, "loss", None) or self._loss_fn
        return loss(out, *args[self._n_inputs:]) if loss is not None else out


def _step_module(model: nn.Module, loss_fn, n_inputs: int, n_targets: int) -> TrainingStep:
    """A TrainingStep whose forward has one named parameter per input and target (fx makes a placeholder
    of each; the names are the model's own where its forward has them)."""
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params[:n_inputs]]
    except (TypeError, ValueError):
        names = []
    names += [f"input{i}" for i in range(len(names), n_inputs)]
    names += ["target" if n_targets == 1 else f"target{j}" for j in range(n_targets)]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        names = [f"input{i}" for i in range(n_inputs)] + [f"target{j}" for j in range(n_targets)]
    cls = type("TrainingStep", (TrainingStep,), {})
    source = f"def forward(self, {', '.join(names)}):\n    return self.step(({', '.join(names)},))\n"
    scope: Dict[str, Any] = {}
    exec(source, scope)  # noqa: S102 - the source is built above from identifiers only
    cls.forward = scope["forward"]
    return cls(model, loss_fn, n_inputs)


def _tensors_in(args: Any) -> List[fx.Node]:
    """The fx nodes among a node's arguments, in order (repeats kept: `x * x` reads x twice)."""
    found: List[fx.Node] = []
    fx.node.map_arg(args, lambda n: found.append(n))
    return found


def _op_type(node: fx.Node, root: nn.Module) -> str:
    if node.op == "call_module":
        module = root.get_submodule(str(node.target))
        return _OP_NAMES.get(type(module), type(module).__name__)
    name = str(node.target) if node.op == "call_method" else getattr(node.target, "__name__", str(node.target))
    return _FUNCTION_NAMES.get(name.rstrip("_") if name.endswith("_") and not name.startswith("_") else name, name)


def _torch_name(node: fx.Node, root: nn.Module) -> str:
    if node.op == "call_module":
        return type(root.get_submodule(str(node.target))).__name__
    if node.op == "call_method":
        return "Tensor." + str(node.target)
    return getattr(node.target, "__name__", str(node.target))


class _Recorder(fx.Interpreter):
    """Runs the traced step with autograd, recording what each node's backward packs."""

    def __init__(self, gm: fx.GraphModule):
        super().__init__(gm)
        self.packed: Dict[fx.Node, List[torch.Tensor]] = {}
        self.values: Dict[fx.Node, Any] = {}

    def run_node(self, n: fx.Node) -> Any:
        if n.op in ("placeholder", "get_attr", "output"):
            value = super().run_node(n)
        else:
            packed: List[torch.Tensor] = []

            def pack(t):
                packed.append(t)
                return t

            state = torch.get_rng_state()
            # The operands' version counters: an operation that writes one in place (`relu_`, `x += y`,
            # `silu(x, inplace=True)`) bumps it, and apply must not recompute such a write from a value
            # that it already overwrote (apply.normalize).
            operands = [(p, t, t._version) for p in n.all_input_nodes if p.op != "get_attr"
                        for t in _tensors_of(self.values.get(p))]
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                value = super().run_node(n)
            n.meta["writes"] = sorted({p.name for p, t, version in operands if t._version != version})
            self.packed[n] = packed
            # A node that draws random numbers (dropout) is re-run by apply with the state it had.
            n.meta["random"] = not torch.equal(state, torch.get_rng_state()) or _draws_on_cuda(n, value)
        self.values[n] = value
        return value


def _single_tensor(value: Any) -> Optional[torch.Tensor]:
    """The one tensor of a tuple whose other elements are None (a module's `(output, None)`), else None."""
    if isinstance(value, (tuple, list)) and all(v is None or isinstance(v, torch.Tensor) for v in value):
        tensors = [v for v in value if v is not None]
        if len(tensors) == 1:
            return tensors[0]
    return None


def _tensors_of(value: Any) -> List[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def _draws_on_cuda(n: fx.Node, value: Any) -> bool:
    """Whether a node on CUDA draws random numbers (the CUDA generator's state is not compared cheaply
    per node; its dropout-like modules and functions are known by name)."""
    if not (isinstance(value, torch.Tensor) and value.is_cuda):
        return False
    name = str(n.target).lower() if n.op != "call_function" else getattr(n.target, "__name__", "").lower()
    return "dropout" in name or "rand" in name or "bernoulli" in name


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _measure_node(node: fx.Node, root: nn.Module, values: Dict[fx.Node, Any], device: torch.device,
                  repeats: int) -> Tuple[int, int, int, int]:
    """Forward time, backward time (ns, medians) and forward and backward workspace (bytes) of one node run
    alone on copies of its operands, as the step ran them."""

    leaves: List[torch.Tensor] = []

    def fresh():
        leaves.clear()

        def copy(n: fx.Node):
            v = values[n]
            if isinstance(v, torch.Tensor):
                c = v.detach().clone()
                if not v.requires_grad:
                    return c
                leaves.append(c.requires_grad_())
                return c.clone()  # not a leaf, so that an in-place operation may write it
            return v

        args = fx.node.map_arg(node.args, copy)
        kwargs = fx.node.map_arg(node.kwargs, copy)
        return args, kwargs

    def grad_inputs():
        wanted = list(leaves)
        if node.op == "call_module":
            wanted += [p for p in root.get_submodule(str(node.target)).parameters() if p.requires_grad]
        return wanted

    forward_times, backward_times = [], []
    fwd_ws = bwd_ws = 0
    for rep in range(repeats + 1):
        args, kwargs = fresh()
        _sync(device)
        start = time.perf_counter_ns()
        out = _evaluate(root, node.op, node.target, args, kwargs)
        _sync(device)
        forward_times.append(time.perf_counter_ns() - start)
        out = single if (single := _single_tensor(out)) is not None else out
        wrt = grad_inputs()
        if not (isinstance(out, torch.Tensor) and out.requires_grad and wrt):
            backward_times.append(0)
            continue
        seed = torch.ones_like(out)
        _sync(device)
        start = time.perf_counter_ns()
        torch.autograd.grad(out, wrt, seed, allow_unused=True)
        _sync(device)
        backward_times.append(time.perf_counter_ns() - start)
    # Memory, once, on fresh operands: the most held beyond what stays.
    args, kwargs = fresh()
    out, peak, end = _memory.extra_during(device, lambda: _evaluate(root, node.op, node.target, args, kwargs))
    out = single if (single := _single_tensor(out)) is not None else out
    fwd_ws = max(0, peak - end)
    wrt = grad_inputs()
    if isinstance(out, torch.Tensor) and out.requires_grad and wrt:
        seed = torch.ones_like(out)
        _, peak, end = _memory.extra_during(
            device, lambda: torch.autograd.grad(out, wrt, seed, allow_unused=True, retain_graph=True))
        bwd_ws = max(0, peak - end)
    return (int(statistics.median(forward_times[1:])), int(statistics.median(backward_times[1:])), fwd_ws, bwd_ws)


def capture(model: nn.Module, inputs: Sequence[Any], loss_fn: Optional[Callable] = None,
            targets: Sequence[Any] = (), *, name: Optional[str] = None, measure: bool = True,
            repeats: int = 3) -> Capture:
    """Captures one training step of `model` on `inputs` (a tuple of its forward's positional arguments):
    loss = loss_fn(model(*inputs), *targets), or model(*inputs) itself when loss_fn is None (then the model
    returns the scalar loss). The model runs where its parameters are, in training mode, as given."""
    inputs = tuple(inputs)
    targets = tuple(targets)
    step = _step_module(model, loss_fn, len(inputs), len(targets))
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    examples = inputs + targets

    with state_kept(step, device):
        gm = trace(step, examples)
        recorder = _Recorder(gm)
        loss = recorder.run(*examples)
        _read_writes(gm, recorder)
        graph, fx_name = _build_graph(gm, step, recorder, loss, name or type(model).__name__, device,
                                      measure, repeats)
    cap = Capture(graph=graph, module=gm, fx_name=fx_name, n_inputs=len(inputs))
    # The graph carries the pins its in-place writes need (docs/pins.md, "In a graph file"), so that every
    # plan made of it, here or from its file on the command line and in Studio, is one apply runs as planned.
    from ._apply import in_place_pins  # _apply imports this module
    pins = in_place_pins(cap)
    if pins:
        graph["pins"] = {"recompute": pins}
    return cap


def _read_writes(gm: fx.GraphModule, rec: "_Recorder") -> None:
    """Makes the nodes that read a value after an in-place write read the write instead: where Python
    keeps using the variable (`m = zeros_like(a); m.masked_fill_(a, -inf); baddbmm(m, q, k)`, as
    nn.MultiheadAttention turns a padding mask into an additive one, or Swin's `mask[h, w] = k` nine
    times), fx records baddbmm reading the zeros. Run in order that is the same tensor, but apply,
    recomputing baddbmm's segment, would run what it reads and not the writes: attention without its
    mask, and wrong gradients. Each reader, a later write included, reads the last write before it (and
    a write's `writes` names that node), so the writes form a chain that a recomputation runs whole.
    Only writes that return the tensor they wrote (`masked_fill_`, `relu_`, `x += y`) are linked so."""
    latest: Dict[fx.Node, fx.Node] = {}  # a value, or a write into it -> the last write into it so far
    for n in gm.graph.nodes:
        for p in list(n.all_input_nodes):
            q = latest.get(p)
            if q is None or q is n:
                continue
            n.replace_input_with(p, q)
            if p.name in n.meta.get("writes", ()):
                n.meta["writes"] = sorted((set(n.meta["writes"]) - {p.name}) | {q.name})
        written = [p for p in n.all_input_nodes if p.name in n.meta.get("writes", ())]
        if len(written) != 1 or rec.values.get(n) is not rec.values.get(written[0]):
            continue
        v = written[0]
        for k in [k for k, w in latest.items() if w is v] + [v]:
            latest[k] = n
    gm.recompile()


@contextlib.contextmanager
def state_kept(module: nn.Module, device: torch.device):
    """Runs steps of `module` and leaves it as it was: its parameters' gradients, its buffers (batch
    norm's running statistics) and the random state (of the CPU and of `device`), even where a step fails."""
    grads = {p: p.grad for p in module.parameters()}
    buffers = {k: b.detach().clone() for k, b in module.named_buffers()}
    with torch.random.fork_rng(devices=[device.index or 0] if device.type == "cuda" else []):
        try:
            yield
        finally:
            with torch.no_grad():
                for k, b in module.named_buffers():
                    b.copy_(buffers[k])
            for p, g in grads.items():
                p.grad = g


def _build_graph(gm: fx.GraphModule, step: nn.Module, rec: _Recorder, loss: Any, name: str,
                 device: torch.device, measure: bool, repeats: int) -> Tuple[Dict[str, Any], Dict[str, str]]:
    if not (isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.requires_grad):
        raise CaptureError("output", "the step must return the scalar loss, a one-element tensor that requires "
                                     f"a gradient; it returned {type(loss).__name__}"
                           + (f" of shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else ""))
    nodes: List[Dict[str, Any]] = []
    rid: Dict[fx.Node, str] = {}  # fx node -> the graph node holding its value
    owner: Dict[int, str] = {}  # storage address -> the graph node that allocated it
    used_ids = set()
    fx_name: Dict[str, str] = {}

    def unique(base: str) -> str:
        candidate = base
        k = 1
        while candidate in used_ids:
            k += 1
            candidate = f"{base}_{k}"
        used_ids.add(candidate)
        return candidate

    def describe(t: torch.Tensor) -> Dict[str, Any]:
        return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}

    # Parameters and buffers, each storage once, in the model's order: `param` when they train.
    tensor_id: Dict[int, str] = {}
    tensor_of: Dict[str, torch.Tensor] = {}  # graph node -> a tensor holding its value
    for qualified, t in list(step.named_parameters()) + list(step.named_buffers()):
        key = _memory.storage_key(t)
        if key in owner and key != 0:
            tensor_id[id(t)] = owner[key]
            continue
        ident = unique(qualified.removeprefix("model."))
        trains = isinstance(t, nn.Parameter) and t.requires_grad and t.is_floating_point()
        node = {"id": ident, "kind": "param" if trains else "input", "bytes": _memory.storage_bytes(t)}
        node.update(describe(t))
        if not trains:
            node["attrs"] = {"buffer" if not isinstance(t, nn.Parameter) else "frozen": True}
        nodes.append(node)
        tensor_id[id(t)] = ident
        tensor_of[ident] = t
        if key != 0:
            owner[key] = ident

    def resident(fxn: fx.Node, t: torch.Tensor, why: str) -> str:
        key = _memory.storage_key(t)
        if key in owner and key != 0:
            return owner[key]
        ident = unique(fxn.name)
        node = {"id": ident, "kind": "input", "bytes": _memory.storage_bytes(t), "attrs": {"captured": why}}
        node.update(describe(t))
        nodes.append(node)
        if key != 0:
            owner[key] = ident
        fx_name[ident] = fxn.name
        tensor_of[ident] = t
        return ident

    through: Dict[fx.Node, List[fx.Node]] = {}  # a tuple of tensors -> the graph values it is made from

    def operands_of(fxn: fx.Node) -> List[fx.Node]:
        found: List[fx.Node] = []
        for n in _tensors_in((fxn.args, fxn.kwargs)):
            found += [n] if n in rid else through.get(n, [])
        return found

    for fxn in gm.graph.nodes:
        value = rec.values.get(fxn)
        if fxn.op == "output":
            continue
        if fxn.op == "placeholder":
            if isinstance(value, torch.Tensor):
                rid[fxn] = resident(fxn, value, "input")
            continue
        if fxn.op == "get_attr":
            if isinstance(value, torch.Tensor):
                rid[fxn] = tensor_id.get(id(value)) or resident(fxn, value, "constant")
            continue
        single = _single_tensor(value)
        if single is not None:
            value = single  # nn.MultiheadAttention's (output, None): a node with one output
        if isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
            fresh = [v for v in value if isinstance(v, torch.Tensor) and _memory.storage_key(v) not in owner]
            if fresh and any(v.requires_grad for v in fresh):
                raise CaptureError(fxn.name, f"{_torch_name(fxn, gm)} returns several new tensors; one node per "
                                             "output is not supported yet")
            for v in value:  # views of known values, or values that need no gradient
                if isinstance(v, torch.Tensor) and _memory.storage_key(v) not in owner:
                    resident(fxn, v, "no gradient")
            # Its elements (chunk's, split's) are read through getitem: those nodes depend on its operands.
            through[fxn] = operands_of(fxn)
            continue
        if not isinstance(value, torch.Tensor):
            continue  # shapes, sizes, dtypes: not tensors of the step
        operands = operands_of(fxn)
        if not value.requires_grad:
            key = _memory.storage_key(value)
            rid[fxn] = owner[key] if key in owner and key != 0 else resident(fxn, value, "no gradient")
            continue

        inputs = [rid[n] for n in operands]
        module_tensors: List[torch.Tensor] = []
        if fxn.op == "call_module":
            sub = gm.get_submodule(str(fxn.target))
            module_tensors = list(sub.parameters()) + list(sub.buffers())
            inputs += [tensor_id[id(t)] for t in module_tensors if id(t) in tensor_id]

        key = _memory.storage_key(value)
        is_view = key != 0 and key in owner
        ident = unique(fxn.name)
        node: Dict[str, Any] = {"id": ident, "kind": "op"}
        if is_view:
            base = owner[key]
            if base in inputs:
                inputs.remove(base)
            inputs.insert(0, base)
            target = _torch_name(fxn, gm).split(".")[-1]
            node["op"] = "Transpose" if target in _TRANSPOSES else (
                "Identity" if target.endswith("_") or target.startswith("i") or fxn.op == "call_module" else "Reshape")
            node["bytes"] = 0
        else:
            node["op"] = _op_type(fxn, gm)
            node["bytes"] = _memory.storage_bytes(value)
            owner[key] = ident
        node["inputs"] = inputs
        node.update(describe(value))

        # What its backward keeps: each packed tensor's storage is an operand's, its own output's, or its own.
        by_storage: Dict[int, int] = {}
        for pos, i in enumerate(inputs):
            t = tensor_of.get(i)
            if t is not None:
                by_storage.setdefault(_memory.storage_key(t), pos)
        saved_inputs, saves_output, own, own_keys = set(), False, 0, set()
        for p in rec.packed.get(fxn, []):
            k = _memory.storage_key(p)
            if k == 0:
                continue
            if k == key and (not is_view or p.shape == value.shape):
                saves_output = True
            elif k in by_storage:
                saved_inputs.add(by_storage[k])
            elif p.dim() == 0:
                continue  # a scalar (a Python number autograd wrapped): apply keeps it as it is
            elif k not in own_keys:
                own_keys.add(k)
                own += _memory.storage_bytes(p)
        aux = None
        if own:
            aux = {"id": unique(f"{ident}:saved"), "kind": "op", "op": "Saved", "inputs": list(inputs),
                   "bytes": own, "saves": {"inputs": [], "output": False},
                   "attrs": {"of": ident, "what": "tensors its backward keeps of its own"}}
            nodes.append(aux)
            fx_name[aux["id"]] = fxn.name
            node["inputs"] = inputs + [aux["id"]]
            saved_inputs.add(len(inputs))
        node["saves"] = {"inputs": sorted(saved_inputs), "output": saves_output}
        attrs = {"torch": _torch_name(fxn, gm)}
        module_path = str(fxn.target) if fxn.op == "call_module" else fxn.meta.get("module", "")
        if module_path:
            attrs["module"] = module_path
        node["attrs"] = attrs
        if measure:
            fwd, bwd, ws, bws = _measure_node(fxn, gm, rec.values, device, repeats)
            node["fwd_time"], node["bwd_time"] = fwd, bwd
            if ws:
                node["workspace"] = ws
            if bws != ws:
                node["bwd_workspace"] = bws
        if aux is not None and not is_view:
            # Rebuilding these tensors alone means running the node again: its output exists while they
            # are made (and goes at once when nothing needs it), which the Saved step holds as workspace.
            aux["workspace"] = node["bytes"] + node.get("workspace", 0)
            aux["bwd_workspace"] = 0
        nodes.append(node)
        rid[fxn] = ident
        tensor_of[ident] = value
        fx_name[ident] = fxn.name

    loss.backward()  # releases the recorded graph (and checks that it is one)
    for p in step.parameters():
        p.grad = None
    graph = {"format": "remat-graph", "version": 1, "name": name, "time_unit": "ns", "cost_model": "file",
             "nodes": nodes}
    return graph, fx_name
