"""Tracing with real tensors: torch.fx's symbolic tracer, with every node's value computed as it is recorded.

`torch.fx.symbolic_trace` records a module's forward as a graph of calls, but it cannot follow Python that
needs a value: `if x.shape[1] > 3:`, `int(x.size(0))`, `range(n_heads)` over a shape, `len(x)`. Here each
recorded node also runs on the example inputs (under `torch.no_grad()`), so such questions get the
example's answer and the graph is specialised to the example's shapes, which is what a memory plan is
for anyway. A question whose answer depends on the *data* (a tensor's values, `.item()` of an
activation, a loop over a tensor) is data-dependent control flow: the graph would hold for this batch
only, so it is refused with the node and the line that asked.

`x += y` on a traced value stays in place (`operator.iadd`), as the module runs it: fx's default tracer
records an out-of-place add there, which allocates a tensor the module never allocates.
"""

from __future__ import annotations

import operator
import types
import warnings
from typing import Any, Dict, List, Tuple

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.proxy import Attribute


class CaptureError(ValueError):
    """A model that cannot be captured faithfully: `node` names the fx node (or module) and `reason` says why."""

    def __init__(self, node: str, reason: str):
        super().__init__(f"{node}: {reason}")
        self.node = node
        self.reason = reason


# Results of these are facts about shapes and types, known from the example without reading any data.
_STATIC_METHODS = {"size", "dim", "numel", "nelement", "ndimension", "element_size", "is_contiguous", "get_device",
                   "is_floating_point", "is_complex"}
_STATIC_ATTRIBUTES = {"shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_sparse", "T",
                      "is_nested", "is_quantized", "is_meta", "is_mps"}
_STATIC_FUNCTIONS = {torch.is_floating_point, torch.is_complex, torch.numel}
# Of those, the ones that are types rather than numbers: a traced step takes them as constants.
_TYPE_ATTRIBUTES = {"dtype", "device", "layout"}

# torch.nn's modules that fx keeps as one call each but that are made of other modules and functions:
# the transformer's. Kept whole, a transformer layer would be one node holding everything its backward
# keeps (a captured nn.TransformerEncoder was one operation, and nothing inside it could be recomputed);
# traced through, attention's projections, scores, softmax and dropout are nodes of their own.
_TRACED_THROUGH = (nn.MultiheadAttention, nn.TransformerEncoderLayer, nn.TransformerEncoder,
                   nn.TransformerDecoderLayer, nn.TransformerDecoder, nn.Transformer)


def _real(a: Any) -> Any:
    return fx.node.map_aggregate(a, lambda x: x.meta["real"] if isinstance(x, fx.Node) else x)


def _depends_on_data(a: Any) -> bool:
    found = False

    def visit(x):
        nonlocal found
        if isinstance(x, fx.Node) and x.meta.get("data", False):
            found = True
        return x

    fx.node.map_aggregate(a, visit)
    return found


def _where(node: fx.Node) -> str:
    trace = (node.stack_trace or "").strip().splitlines()
    frames = [line.strip() for line in trace if line.strip().startswith("File ")]
    return f" ({frames[0]})" if frames else ""


class _RealProxy(fx.Proxy):
    """A proxy that answers what Python needs to know from the example's value, shapes only."""

    def __getattr__(self, k):
        if "real" not in self.node.meta:
            return _RealAttribute(self, k)
        real = self.node.meta["real"]
        if not hasattr(real, k):
            # `hasattr(out, "logits")` in a loss: the example's value answers, where fx's proxies have every
            # attribute (and the loss then read a tensor's `logits`).
            raise AttributeError(f"{type(real).__name__!r} object has no attribute {k!r}")
        if k in _TYPE_ATTRIBUTES and isinstance(real, torch.Tensor):
            # What torch's argument parser takes only as itself (`zeros_like(m, dtype=q.dtype)`, which
            # nn.MultiheadAttention runs on a mask): a fact of the example, as a constant.
            return getattr(real, k)
        return _RealAttribute(self, k)

    def _static(self, what: str):
        node = self.node
        if node.meta.get("data", False):
            raise CaptureError(node.name, f"data-dependent control flow: {what} of a value computed from the "
                                          f"inputs' data{_where(node)}; the graph would hold for this batch only")
        return node.meta["real"]

    def _structure(self, what: str):
        """A tensor's or a tuple of tensors' length is a matter of shapes, known from the example."""
        real = self.node.meta["real"]
        if isinstance(real, torch.Tensor) or (isinstance(real, (tuple, list)) and
                                               all(x is None or isinstance(x, torch.Tensor) for x in real)):
            return real
        return self._static(what)

    def __len__(self):
        return len(self._structure("len()"))

    def __iter__(self):
        # fx's own reads the caller's bytecode to count an unpacking, which fails on Python 3.11 with
        # torch 1.13; the example's value says how many elements there are.
        return self.tracer.iter(self)

    def __int__(self):
        return int(self._static("int()"))

    def __index__(self):
        return operator.index(self._static("an index"))

    def __float__(self):
        return float(self._static("float()"))

    def __setitem__(self, key, value):
        # `mask[h0:h1, w0:w1] = k` (Swin's attention mask): fx's proxies take no assignment. Recorded as
        # a write that returns what it wrote, which the capture makes every later reader read.
        self.tracer.create_proxy("call_function", setitem_, (self, key, value), {})

    def __iadd__(self, other):
        return self.tracer.create_proxy("call_function", operator.iadd, (self, other), {})

    def __isub__(self, other):
        return self.tracer.create_proxy("call_function", operator.isub, (self, other), {})

    def __imul__(self, other):
        return self.tracer.create_proxy("call_function", operator.imul, (self, other), {})

    def __itruediv__(self, other):
        return self.tracer.create_proxy("call_function", operator.itruediv, (self, other), {})


def setitem_(tensor: Any, key: Any, value: Any) -> Any:
    """`tensor[key] = value` as a call that returns the tensor it wrote in place."""
    tensor[key] = value
    return tensor


class _RealAttribute(Attribute, _RealProxy):
    pass


def _evaluate(root: torch.nn.Module, kind: str, target: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if kind == "call_module":
        return root.get_submodule(str(target))(*args, **kwargs)
    if kind == "call_method":
        return getattr(args[0], str(target))(*args[1:], **kwargs)
    return target(*args, **kwargs)


class RealTracer(fx.Tracer):
    """fx's tracer with leaf modules as fx has them (torch.nn's own modules, but for the transformer's:
    _TRACED_THROUGH), plus the example's values."""

    def __init__(self, example_inputs: Tuple[Any, ...], through: bool = True):
        super().__init__()
        self._through = through
        self.record_stack_traces = True
        self._examples = list(example_inputs)
        self._placeholders = 0
        self._module_stack: List[str] = []
        self._computing = False  # while a node's real value is computed, modules run as themselves

    def proxy(self, node: fx.Node) -> fx.Proxy:
        return _RealProxy(node, self)

    def is_leaf_module(self, m: torch.nn.Module, module_qualified_name: str) -> bool:
        if self._through and isinstance(m, _TRACED_THROUGH):
            return False
        return super().is_leaf_module(m, module_qualified_name)

    def call_module(self, m, forward, args, kwargs):
        if self._computing:
            return forward(*args, **kwargs)
        path = self.path_of_module(m)
        self._module_stack.append(path)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self._module_stack.pop()

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        if kind == "output":
            return node
        node.meta["module"] = self._module_stack[-1] if self._module_stack else ""
        if kind == "placeholder":
            if self._placeholders >= len(self._examples):
                raise CaptureError(node.name, "the forward takes more arguments than the example inputs give")
            node.meta["real"] = self._examples[self._placeholders]
            node.meta["data"] = True
            self._placeholders += 1
            return node
        if kind == "get_attr":
            # Looked up as the module holds it: during the trace, fx's Module.__getattr__ would make the
            # parameter a proxy again, and this node again (a traced module's `self.weight`: ConvNeXt's
            # LayerNorm2d recursed without end).
            value, computing = self.root, self._computing
            self._computing = True
            try:
                for atom in str(target).split("."):
                    value = getattr(value, atom)
            finally:
                self._computing = computing
            node.meta["real"] = value
            node.meta["data"] = isinstance(value, torch.Tensor)
            return node
        real_args, real_kwargs = _real(node.args), _real(node.kwargs)
        self._computing = True
        try:
            with torch.no_grad():
                value = _evaluate(self.root, kind, target, real_args, real_kwargs)
        finally:
            self._computing = False
        node.meta["real"] = value
        static = (kind == "call_method" and target in _STATIC_METHODS) or (
            kind == "call_function" and target in _STATIC_FUNCTIONS) or (
            kind == "call_function" and target is getattr and len(node.args) > 1 and node.args[1] in _STATIC_ATTRIBUTES)
        node.meta["data"] = not static and _depends_on_data((node.args, node.kwargs))
        return node

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        if self._computing:
            return attr_val
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def to_bool(self, obj: fx.Proxy) -> bool:
        return bool(obj._static("a condition (if, while, assert, and, or)"))

    def iter(self, obj: fx.Proxy):
        value = obj._structure("iteration")
        return iter([obj[i] for i in range(len(value))])


# Tensor factories take sizes, not tensors, so torch never asks a proxy among their arguments to trace
# them (`torch.arange(0, t)` with `t` from `x.shape` fails under fx's own tracer); during a trace they are
# recorded as calls.
_FACTORIES = ("arange", "zeros", "ones", "full", "empty", "randn", "rand", "randint", "eye", "linspace",
              "tensor", "as_tensor", "tril_indices", "triu_indices")


def _body_traced(fn):
    """A function of torch.nn.functional written in Python (attention's), with its own first check for
    `__torch_function__` answered "no": given proxies, fx records it as one call of the whole function;
    this runs its body instead, so that each operation in it is recorded. Only the function's own check
    changes (a copy of its globals); the functions it calls keep theirs."""
    scope = dict(fn.__globals__)
    scope["has_torch_function"] = lambda *_: False
    for name, wrap in _PROXY_AWARE.items():
        if name in scope:
            scope[name] = wrap(scope[name])
    body = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    body.__kwdefaults__ = fn.__kwdefaults__
    return body


# Traced op by op (see _TRACED_THROUGH): the attention that nn.MultiheadAttention calls.
_FUNCTIONS_TRACED_THROUGH = ("multi_head_attention_forward",)


def _dtype_of_proxies(fn):
    """PyTorch 2's `F._none_or_dtype(mask)` (its attention and transformer layers ask it of a mask) raises
    for anything but None or a tensor; a traced mask's dtype is the example's."""
    def call(value):
        if isinstance(value, fx.Proxy) and isinstance(value.node.meta.get("real"), torch.Tensor):
            return value.node.meta["real"].dtype
        return fn(value)

    return call


# Helpers of torch.nn.functional that refuse proxies, made to answer from the example while tracing (in
# F itself and in the scope of the functions traced through).
_PROXY_AWARE = {"_none_or_dtype": _dtype_of_proxies}


def _causal_unless_said(fn):
    """PyTorch 2's `_detect_is_causal_mask(mask, is_causal, size)` (nn.TransformerEncoder and Decoder ask it
    of the mask they are given) compares the mask with a causal one: a question about its data, which a
    mask given as an input cannot answer for every batch. Its answer only picks the kernel (the causal
    one, or the mask applied as given, which computes the same), so for such a mask it is "as given"
    unless the caller said `is_causal=True`."""
    def call(mask, is_causal=None, size=None):
        if isinstance(mask, fx.Proxy) and mask.node.meta.get("data", False):
            return is_causal is True
        return fn(mask, is_causal, size)

    return call


# The same in torch.nn.modules.transformer (module, name, wrapper), where PyTorch 2 defines it.
_MODULE_PROXY_AWARE = (("torch.nn.modules.transformer", "_detect_is_causal_mask", _causal_unless_said),)


def _flatten_args(a: Any) -> List[Any]:
    out: List[Any] = []

    def visit(x):
        out.append(x)
        return x

    fx.node.map_aggregate(a, visit)
    return out


def trace(module: torch.nn.Module, example_inputs: Tuple[Any, ...]) -> fx.GraphModule:
    """The module's forward as an fx GraphModule whose nodes carry `meta["real"]` (the example's value),
    `meta["data"]` (whether it depends on the inputs' or parameters' data) and `meta["module"]` (the
    qualified name of the module that called it, "" at the top).

    Where tracing through torch.nn's transformer modules or torchvision's fx-wrapped functions fails
    (their code differs between versions; PyTorch 2's nn.TransformerEncoder compares a mask given as an
    input with a causal one, a question about the data), they are kept whole, one node each, as fx keeps
    them, with a warning that says why: nothing inside them can then be recomputed."""
    kept = sorted({type(m).__name__ for m in module.modules() if isinstance(m, _TRACED_THROUGH)})
    if _library_wraps(module):
        kept.append("torchvision's fx-wrapped functions")
    try:
        return _trace(module, example_inputs, through=True)
    except Exception as first:  # noqa: BLE001 - any failure inside torch's or torchvision's code, then without
        if not kept:
            raise
        try:
            gm = _trace(module, example_inputs, through=False)
        except Exception:
            raise first from None
        warnings.warn(f"remat.torch: {', '.join(kept)} kept whole (one node each, nothing inside recomputed): "
                      f"tracing through failed: {first}", stacklevel=3)
        return gm


def _library_wraps(module: torch.nn.Module) -> bool:
    """Whether a module of `module` comes from a torchvision model's file that registered functions with
    `torch.fx.wrap` (Swin's)."""
    import torch.fx._symbolic_trace as symbolic

    registry = getattr(symbolic, "_wrapped_fns_to_patch", None)
    scopes = registry.values() if isinstance(registry, dict) else (
        [e[0] for e in registry if isinstance(e, tuple) and e] if isinstance(registry, list) else [])
    wrapping = {scope["__name__"] for scope in scopes if _is_library(scope)}
    return any(type(m).__module__ in wrapping for m in module.modules())


def _is_library(scope: Any) -> bool:
    return isinstance(scope, dict) and str(scope.get("__name__", "")).startswith("torchvision.models.")


def _library_wraps_removed():
    """The functions torchvision's models register with `torch.fx.wrap`, left out of fx's list while a
    trace runs (and put back after), so that the trace goes through them. torchvision wraps them because
    fx's own tracer cannot answer their questions about shapes (Swin's `shifted_window_attention` pads to
    a multiple of the window); this tracer can, and kept whole, each of Swin's attentions was one node
    that nothing inside could be recomputed of. The list is fx's private registry (a list of
    (globals, name) in PyTorch 1.x, a dict of them in 2.x); where it is neither, nothing is changed. A
    user's own `torch.fx.wrap` stays."""
    import contextlib
    import torch.fx._symbolic_trace as symbolic

    registry = getattr(symbolic, "_wrapped_fns_to_patch", None)
    library = _is_library

    @contextlib.contextmanager
    def removed():
        if isinstance(registry, list):
            saved = list(registry)
            registry[:] = [e for e in registry if not (isinstance(e, tuple) and e and library(e[0]))]
        elif isinstance(registry, dict):
            saved = dict(registry)
            for key in [k for k, scope in registry.items() if library(scope)]:
                del registry[key]
        else:
            saved = None
        try:
            yield
        finally:
            if isinstance(registry, list):
                registry[:] = saved
            elif isinstance(registry, dict):
                registry.clear()
                registry.update(saved)

    return removed()


def _trace(module: torch.nn.Module, example_inputs: Tuple[Any, ...], through: bool) -> fx.GraphModule:
    if through:
        with _library_wraps_removed():
            return _trace_with(module, example_inputs, through)
    return _trace_with(module, example_inputs, through)


def _trace_with(module: torch.nn.Module, example_inputs: Tuple[Any, ...], through: bool) -> fx.GraphModule:
    tracer = RealTracer(example_inputs, through)
    originals = {name: getattr(torch, name) for name in _FACTORIES if hasattr(torch, name)}
    functionals = {name: getattr(F, name) for name in _FUNCTIONS_TRACED_THROUGH
                   if through and isinstance(getattr(F, name, None), types.FunctionType)}
    helpers = {name: getattr(F, name) for name in _PROXY_AWARE if through and callable(getattr(F, name, None))}
    import importlib
    elsewhere = []  # (module, name, original, wrapper)
    for module_name, name, wrap in _MODULE_PROXY_AWARE if through else ():
        where = importlib.import_module(module_name)
        if callable(getattr(where, name, None)):
            elsewhere.append((where, name, getattr(where, name), wrap))

    def recorded(fn):
        def call(*args, **kwargs):
            if any(isinstance(a, fx.Proxy) for a in _flatten_args((args, kwargs))):
                return tracer.create_proxy("call_function", fn, args, kwargs)
            return fn(*args, **kwargs)

        return call

    try:
        for name, fn in originals.items():
            setattr(torch, name, recorded(fn))
        for name, fn in functionals.items():
            setattr(F, name, _body_traced(fn))
        for name, fn in helpers.items():
            setattr(F, name, _PROXY_AWARE[name](fn))
        for where, name, fn, wrap in elsewhere:
            setattr(where, name, wrap(fn))
        graph = tracer.trace(module)
    except CaptureError:
        raise
    except fx.proxy.TraceError as e:
        raise CaptureError(type(module).__name__, f"cannot be traced: {e}") from e
    finally:
        for name, fn in originals.items():
            setattr(torch, name, fn)
        for name, fn in functionals.items():
            setattr(F, name, fn)
        for name, fn in helpers.items():
            setattr(F, name, fn)
        for where, name, fn, _ in elsewhere:
            setattr(where, name, fn)
    gm = fx.GraphModule(tracer.root, graph, type(module).__name__)
    return gm


def placeholders(gm: fx.GraphModule) -> List[fx.Node]:
    return [n for n in gm.graph.nodes if n.op == "placeholder"]


def node_targets(node: fx.Node) -> str:
    """How a node reads in messages and in the graph: `conv2d (layer1.0.conv1)`, `add`, `flatten`."""
    if node.op == "call_module":
        return str(node.target)
    if node.op == "call_method":
        return str(node.target)
    return getattr(node.target, "__name__", str(node.target))
