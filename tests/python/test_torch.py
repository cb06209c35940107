"""remat.torch end to end on the CPU: capture, plan, apply, one training step, measure (issue 38).

For torchvision's ResNet-18, MobileNetV2, DenseNet-121 and ViT at small sizes and a small GPT written
in plain PyTorch (tiny_gpt.py): the captured plain-run peak within 1.5% of the plain step as the allocator
measures it; store-all applied, and the best plan apply can run at two budgets, train with gradients
equal to the plain step's and a measured peak within 3% of the engine's prediction and at most the
budget plus 3%. The budgets are 50% and 70% of the plain peak where a plan can meet them (MobileNetV2 and
DenseNet-121 at these sizes, the GPT at 70%); where that is below approx-dp's least budget (ResNet-18,
whose parameters and their gradients alone take 60% of the peak at this size, and the GPT at 50%), 50%
and 70% of the way from that least budget to the plain peak.

    PYTHONPATH=build/python:tests/python /usr/bin/python3 -m unittest tests/python/test_torch.py
"""

import os
import sys
import unittest
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))

import remat  # noqa: E402
from remat.torch import (CaptureError, PlanError, apply, best_plan, capture, in_place_pins, measure,  # noqa: E402
                          normalize)
from tiny_gpt import TinyGPT, gpt_loss  # noqa: E402

PLAIN_TOLERANCE = 0.015
PLAN_TOLERANCE = 0.03


def max_relative_difference(reference, other):
    worst = 0.0
    for a, b in zip(reference, other):
        scale = a.abs().max().item()
        if scale > 0:
            worst = max(worst, (a - b).abs().max().item() / scale)
    return worst


class EndToEnd(unittest.TestCase):
    report = []

    def run_step(self, step, model, inputs, loss_fn, targets):
        """One measured step under a fixed seed; its measurement and the parameters' gradients."""
        torch.manual_seed(1234)
        m = measure(step, inputs, loss_fn, targets)
        return m, [p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p)
                   for p in model.parameters()]

    def check(self, name, model, inputs, loss_fn, targets):
        cap = capture(model, inputs, loss_fn, targets, repeats=1)
        graph = remat.Graph.from_json(cap.graph, name)
        predicted_plain = graph.info()["vanilla_peak_bytes"]
        plain, reference = self.run_step(model, model, inputs, loss_fn, targets)
        error = predicted_plain / plain.peak_bytes - 1
        self.report.append(f"{name}: plain run predicted {predicted_plain} measured {plain.peak_bytes} ({error:+.2%})")
        self.assertLessEqual(abs(error), PLAIN_TOLERANCE, f"{name}: captured plain-run peak")

        ops = graph.op_ids
        store_all = remat.simulate(graph, [ops])
        applied = apply(cap, [ops])
        m, grads = self.run_step(applied, model, inputs + targets, None, ())
        difference = max_relative_difference(reference, grads)
        self.report.append(f"{name}: store-all applied: measured {m.peak_bytes}, predicted "
                           f"{store_all['metrics']['simulated_peak_bytes']}, gradients {difference:.1e}")
        self.assertLessEqual(difference, 1e-5)
        self.assertLessEqual(abs(m.peak_bytes / store_all["metrics"]["simulated_peak_bytes"] - 1), PLAN_TOLERANCE)

        least = remat.min_budget(graph, "approx-dp")["min_budget_bytes"]
        self.assertIsNotNone(least)
        for fraction in (0.5, 0.7):
            budget = int(fraction * predicted_plain)
            if budget < least:  # below what the parameters, their gradients and the least activations take
                budget = int(least + fraction * (predicted_plain - least))
            best = best_plan(model, inputs, loss_fn, targets, budget=budget, cap=cap,
                             solvers=["store-all", "chen-sqrtn", "approx-dp", "exact-dp", "dtr"])
            self.assertIsNotNone(best.step, f"{name} at {budget} bytes: {best.summary()}")
            predicted = best.predicted_peak_bytes
            m, grads = self.run_step(best.step, model, inputs + targets, None, ())
            difference = max_relative_difference(reference, grads)
            where = "of the plain peak" if budget == int(fraction * predicted_plain) else "from the least budget"
            self.report.append(f"{name}: {best.solver} at {fraction:.0%} {where} ({budget} bytes): measured {m.peak_bytes}, "
                               f"predicted {predicted} ({m.peak_bytes / predicted - 1:+.2%}), overhead "
                               f"{best.overhead_percent:.1f}%, gradients {difference:.1e}")
            self.assertLessEqual(difference, 1e-5, f"{name}: gradients under {best.solver}")
            self.assertLessEqual(abs(m.peak_bytes / predicted - 1), PLAN_TOLERANCE, f"{name}: {best.solver}'s peak")
            self.assertLessEqual(m.peak_bytes, budget * (1 + PLAN_TOLERANCE), f"{name}: {best.solver} over budget")
            # best_plan ran the same step once before handing it out (verify): the same peak, within it.
            self.assertEqual(best.measured_peak_bytes, m.peak_bytes, f"{name}: {best.summary()}")
            self.assertLessEqual(best.measured_peak_bytes, budget)
            self.assertLess(predicted, predicted_plain)

    def test_resnet18(self):
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18(weights=None, num_classes=10)
        self.check("resnet18", model, (torch.randn(16, 3, 96, 96),), F.cross_entropy,
                   (torch.randint(0, 10, (16,)),))

    def test_mobilenet_v2(self):
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.mobilenet_v2(weights=None, num_classes=10)  # dropout in the classifier
        self.check("mobilenet_v2", model, (torch.randn(16, 3, 96, 96),), F.cross_entropy,
                   (torch.randint(0, 10, (16,)),))

    def test_densenet121(self):
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.densenet121(weights=None, num_classes=10)
        self.check("densenet121", model, (torch.randn(8, 3, 96, 96),), F.cross_entropy,
                   (torch.randint(0, 10, (8,)),))

    def test_vit(self):
        # torchvision's ViT: nn.MultiheadAttention traced through (its projections, scores, softmax and
        # attention dropout are nodes), the class token expanded to the batch size read from a later value.
        from torchvision.models.vision_transformer import VisionTransformer
        torch.manual_seed(0)
        model = VisionTransformer(image_size=64, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64,
                                  mlp_dim=128, num_classes=10, attention_dropout=0.1)
        self.check("vit", model, (torch.randn(16, 3, 64, 64),), F.cross_entropy, (torch.randint(0, 10, (16,)),))

    def test_tiny_gpt(self):
        torch.manual_seed(0)
        model = TinyGPT(vocab=256, dim=64, heads=4, layers=2, context=128)
        idx = torch.randint(0, 256, (8, 128))
        self.check("tiny_gpt", model, (idx,), gpt_loss, (torch.randint(0, 256, (8, 128)),))

    @classmethod
    def tearDownClass(cls):
        print("\n" + "\n".join(cls.report), file=sys.stderr)


class Refusals(unittest.TestCase):
    def test_data_dependent_control_flow_names_the_node(self):
        class Branchy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = self.fc(x)
                if h.sum() > 0:  # depends on the data
                    h = h * 2
                return h

        with self.assertRaises(CaptureError) as caught:
            capture(Branchy(), (torch.randn(2, 8),), lambda out: out.sum())
        self.assertIn("data-dependent control flow", str(caught.exception))
        self.assertIn("gt", caught.exception.node)

    def test_hasattr_is_the_example_s_answer(self):
        # A loss written for models that return an object with logits and for those that return a tensor:
        # fx's proxies have every attribute, so the tensor's `logits` was read; the example says it has none.
        def loss(out, y):
            return F.cross_entropy(out.logits if hasattr(out, "logits") else out, y)

        cap = capture(nn.Linear(4, 3), (torch.randn(5, 4),), loss, (torch.randint(0, 3, (5,)),), measure=False)
        self.assertEqual([n["op"] for n in cap.graph["nodes"] if n["kind"] == "op"],
                         ["Gemm", "Saved", "SoftmaxCrossEntropyLoss"])

    def test_shape_control_flow_is_captured(self):
        class ByShape(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                for _ in range(x.shape[0] // 2):  # a loop over a shape: the example's count
                    x = self.fc(x)
                return x

        cap = capture(ByShape(), (torch.randn(4, 8),), lambda out: out.pow(2).mean(), measure=False)
        self.assertEqual(sum(1 for n in cap.graph["nodes"] if n.get("attrs", {}).get("module") == "model.fc"), 2)

    def test_elements_of_a_chunk_depend_on_what_it_split(self):
        class Shuffle(nn.Module):  # ShuffleNet's pattern: a view of a copy, chunked, read through getitem
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = self.fc(x).view(2, 4, -1).transpose(0, 1).contiguous().view(4, -1)
                a, b = h.chunk(2, dim=1)
                return a * b

        cap = capture(Shuffle(), (torch.randn(4, 8),), lambda out: out.sum(), measure=False)
        nodes = {n["id"]: n for n in cap.graph["nodes"]}
        chunked = [n for n in nodes.values() if n.get("attrs", {}).get("torch") == "getitem"]
        self.assertEqual(len(chunked), 2)
        for n in chunked:  # each reads the view it was chunked from, not only the storage's maker
            self.assertIn("view_1", n["inputs"], n)

    def test_loss_must_be_a_scalar(self):
        with self.assertRaises(CaptureError) as caught:
            capture(nn.Linear(4, 3), (torch.randn(2, 4),), None, measure=False)
        self.assertIn("scalar loss", str(caught.exception))

    def test_a_traced_module_s_own_parameters_are_captured(self):
        # A module outside torch.nn is traced through, and its forward reads its parameters as attributes
        # (ConvNeXt's LayerNorm2d): the capture used to look each one up through fx's patched __getattr__,
        # which made it a proxy again, without end.
        class LayerNorm2d(nn.LayerNorm):
            def forward(self, x):
                x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps)
                return x.permute(0, 3, 1, 2)

        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), LayerNorm2d(8), nn.GELU(), nn.Conv2d(8, 8, 3, padding=1),
                              LayerNorm2d(8), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
        x, y = torch.randn(2, 3, 16, 16), torch.tensor([0, 3])
        cap = capture(model, (x,), F.cross_entropy, (y,), measure=False)
        graph = remat.Graph.from_json(cap.graph)
        params = {n["id"] for n in cap.graph["nodes"] if n["kind"] == "param"}
        self.assertEqual(len(params), len(list(model.parameters())), params)
        ops = graph.op_ids
        step = apply(cap, [ops[:len(ops) // 2], ops[len(ops) // 2:]])
        model.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        reference = [p.grad.clone() for p in model.parameters()]
        model.zero_grad(set_to_none=True)
        step(x, y).backward()
        self.assertLess(max_relative_difference(reference, [p.grad for p in model.parameters()]), 1e-5)

    def test_torch_nn_transformer_layers_are_traced_through(self):
        # fx keeps torch.nn's modules whole; a transformer layer kept whole would be one node holding all
        # its backward keeps. Traced through, a plan recomputes inside the layers, with exact gradients.
        # With a padding mask, which attention turns into an additive one by a write whose result it does
        # not read back (`m.masked_fill_(pad, -inf)`, then `baddbmm(m, ...)`): recomputed without the
        # write, the scores lost their mask (gradients 0.36 off).
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
                self.embed, self.encoder, self.head = nn.Linear(16, 32), nn.TransformerEncoder(layer, 2), nn.Linear(32, 5)

            def forward(self, x, pad):
                return self.head(self.encoder(self.embed(x), src_key_padding_mask=pad).mean(1))

        torch.manual_seed(0)
        model = Encoder()
        pad = torch.zeros(8, 24, dtype=torch.bool)
        pad[:, 18:] = True
        x, y = (torch.randn(8, 24, 16), pad), torch.randint(0, 5, (8,))
        cap = capture(model, x, F.cross_entropy, (y,), measure=False)
        ops = {n["op"] for n in cap.graph["nodes"] if n["kind"] == "op"}
        self.assertFalse(ops & {"TransformerEncoder", "TransformerEncoderLayer", "MultiheadAttention"}, ops)
        self.assertTrue({"Softmax", "baddbmm", "Dropout", "LayerNormalization"} <= ops, ops)
        graph = remat.Graph.from_json(cap.graph)
        torch.manual_seed(1)
        plain = measure(model, x, F.cross_entropy, (y,))
        reference = [p.grad.clone() for p in model.parameters()]
        predicted = graph.info()["vanilla_peak_bytes"]
        self.assertLessEqual(abs(predicted / plain.peak_bytes - 1), PLAIN_TOLERANCE)
        plan = remat.solve(graph, "exact-dp", budget=int(0.6 * predicted))
        self.assertEqual(plan["status"], "optimal")
        inside = {i for seg in plan["segments"][:-1] for i in seg}
        self.assertTrue(any(cap.fx_name.get(i, "").startswith("softmax") for i in inside), plan["segments"])
        step = apply(cap, plan)
        torch.manual_seed(1)
        measured = measure(step, x + (y,))
        self.assertLessEqual(max_relative_difference(reference, [p.grad for p in model.parameters()]), 1e-5)
        self.assertLessEqual(measured.peak_bytes, int(0.6 * predicted))

    def test_swin_s_attention_is_traced_through_and_its_mask_recomputed(self):
        # torchvision registers Swin's attention with torch.fx.wrap (fx's tracer cannot pad to a window);
        # this one traces through it. Its shifted windows build their mask by nine item assignments into
        # one tensor: a recomputation must run all nine (with only the first, 0.9 off at 4 of 11 cuts).
        from torchvision.models.swin_transformer import SwinTransformer
        torch.manual_seed(0)
        model = SwinTransformer(patch_size=[2, 2], embed_dim=16, depths=[2], num_heads=[2], window_size=[4, 4],
                                num_classes=5)
        x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))
        cap = capture(model, (x,), F.cross_entropy, (y,), measure=False)
        ops = {n["op"] for n in cap.graph["nodes"] if n["kind"] == "op"}
        self.assertIn("roll", ops)
        self.assertIn("Softmax", ops)
        self.assertNotIn("shifted_window_attention", ops)
        graph = remat.Graph.from_json(cap.graph)
        torch.manual_seed(1)
        measure(model, (x,), F.cross_entropy, (y,))
        reference = [p.grad.clone() for p in model.parameters()]
        ids = graph.op_ids
        for k in range(10, len(ids), 10):
            step = apply(cap, [ids[:k], ids[k:]])
            torch.manual_seed(1)
            measure(step, (x, y))
            self.assertEqual(max_relative_difference(reference, [p.grad for p in model.parameters()]), 0.0, ids[k - 1])

    def test_a_transformer_module_that_cannot_be_traced_through_is_kept_whole(self):
        # As on PyTorch versions whose attention asks a question of the data (here a stand-in for
        # F.multi_head_attention_forward that does): the capture keeps nn.MultiheadAttention whole and
        # says so, rather than refusing a model it captured before.
        from unittest import mock
        original = F.multi_head_attention_forward

        def asks_the_data(query, *args, **kwargs):
            if query.sum() > 1e30:
                raise AssertionError("not reached")
            return original(query, *args, **kwargs)

        model = nn.MultiheadAttention(8, 2, batch_first=True)

        class Step(nn.Module):
            def __init__(self):
                super().__init__()
                self.attention = model

            def forward(self, x):
                return self.attention(x, x, x, need_weights=False)[0].mean()

        x = torch.randn(2, 5, 8)
        with mock.patch.object(F, "multi_head_attention_forward", asks_the_data):
            with self.assertWarnsRegex(UserWarning, r"MultiheadAttention kept whole .*data-dependent control flow"):
                cap = capture(Step(), (x,), measure=False)
        ops = [n["op"] for n in cap.graph["nodes"] if n["kind"] == "op"]
        self.assertIn("MultiheadAttention", ops)

    def test_pytorch_2_s_mask_dtype_helper_answers_from_the_example(self):
        # PyTorch 2's attention and transformer layers ask F._none_or_dtype(mask), which raises for anything
        # but None or a tensor (1.13 has no such helper: a stand-in with 2.x's body).
        from unittest import mock

        def none_or_dtype(value):
            if value is None:
                return None
            if isinstance(value, torch.Tensor):
                return value.dtype
            raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")

        class Masked(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, mask):
                h = self.fc(x)
                return h.masked_fill(mask, 0.0) if F._none_or_dtype(mask) == torch.bool else h + mask

        x, mask = torch.randn(3, 4), torch.rand(3, 4) > 0.5
        with mock.patch.object(F, "_none_or_dtype", none_or_dtype, create=True):
            cap = capture(Masked(), (x, mask), lambda out: out.sum(), measure=False)
        self.assertIn("Where", [n["op"] for n in cap.graph["nodes"] if n["kind"] == "op"])

    def test_pytorch_2_s_causal_mask_question_takes_the_mask_as_given(self):
        # PyTorch 2's nn.TransformerEncoder asks _detect_is_causal_mask whether the mask it is given is
        # causal, a question about the data; the answer only picks a kernel, so a mask given as an input
        # is taken as given (1.13 has no such helper: a stand-in with 2.x's body, asked as 2.x asks it).
        from unittest import mock
        import torch.nn.modules.transformer as transformer

        def detect(mask, is_causal=None, size=None):
            make_causal = is_causal is True
            if is_causal is None and mask is not None:
                sz = size if size is not None else mask.size(-2)
                causal = torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)
                make_causal = bool((mask == causal).all()) if mask.size() == causal.size() else False
            return make_causal

        class Scores(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, mask):
                h = self.fc(x)
                causal = transformer._detect_is_causal_mask(mask, None, x.shape[0])
                scores = h @ h.t() + (torch.triu(torch.full((5, 5), float("-inf")), diagonal=1) if causal else mask)
                return scores.softmax(-1).sum()

        x, mask = torch.randn(5, 4), torch.triu(torch.full((5, 5), float("-inf")), diagonal=1)
        with mock.patch.object(transformer, "_detect_is_causal_mask", detect, create=True):
            cap = capture(Scores(), (x, mask), measure=False)
            self.assertIs(transformer._detect_is_causal_mask, detect)  # put back after the trace
        reads = [n for n in cap.module.graph.nodes if n.op == "placeholder" and n.name == "mask"]
        self.assertTrue(reads and reads[0].users, "the mask is read as given")

    def test_the_step_refuses_inputs_of_other_shapes(self):
        # The graph, and every size in it, is the example's: another batch size is refused with the input.
        model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
        cap = capture(model, (torch.randn(8, 4),), F.cross_entropy, (torch.randint(0, 2, (8,)),), measure=False)
        step = apply(cap, [[n["id"] for n in cap.graph["nodes"] if n["kind"] == "op"]])
        with self.assertRaisesRegex(ValueError, r"input: the plan is for the captured shapes, \(8, 4\) "
                                                r"torch.float32, got \(5, 4\)"):
            step(torch.randn(5, 4), torch.randint(0, 2, (5,)))
        self.assertEqual(step(torch.randn(8, 4), torch.randint(0, 2, (8,))).dim(), 0)

    def test_state_is_left_as_it_was(self):
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18(weights=None, num_classes=10)
        images = torch.randn(2, 3, 32, 32)
        before = {k: v.clone() for k, v in model.state_dict().items()}
        rng = torch.get_rng_state()
        capture(model, (images,), F.cross_entropy, (torch.tensor([1, 2]),), measure=False)
        self.assertTrue(torch.equal(rng, torch.get_rng_state()))
        for k, v in model.state_dict().items():
            self.assertTrue(torch.equal(before[k], v), k)
        self.assertTrue(all(p.grad is None for p in model.parameters()))

    def test_a_budget_no_plan_meets_names_the_least_budget_to_ask_for(self):
        torch.manual_seed(0)
        model = TinyGPT(vocab=64, dim=32, heads=2, layers=1, context=32)
        idx, targets = torch.randint(0, 64, (4, 32)), torch.randint(0, 64, (4, 32))
        cap = capture(model, (idx,), gpt_loss, (targets,), measure=False)
        least = remat.min_budget(remat.Graph.from_json(cap.graph), "exact-dp")["min_budget_bytes"]
        solvers = ["store-all", "exact-dp", "dtr"]
        # Captured without measuring, the graph has no workspace, so the plan at the least budget measures
        # above it (set aside with verify: test_a_plan_that_measures_over_the_budget_is_set_aside); what
        # is tested here is the budget named, in the simulator's terms.
        below = best_plan(model, (idx,), gpt_loss, (targets,), budget=least - 1, cap=cap, solvers=solvers,
                          verify=False)
        self.assertIsNone(below.step)
        self.assertEqual((below.least_appliable_bytes, below.least_appliable_solver), (least, "exact-dp"))
        self.assertIn(f"exact-dp's least budget is {least / 2**20:.1f} MiB ({least} bytes)", below.summary())
        self.assertIn("least feasible budget for exact-dp", below.summary())  # the row says why it has no plan
        at = best_plan(model, (idx,), gpt_loss, (targets,), budget=least, cap=cap, solvers=solvers, verify=False)
        self.assertIsNotNone(at.step, at.summary())
        self.assertLessEqual(at.predicted_peak_bytes, least)
        self.assertIsNone(at.least_appliable_bytes)

    def test_a_plan_that_measures_over_the_budget_is_set_aside(self):
        # Captured without measuring, the graph has no workspace: the convolutions' and the loss's
        # temporaries are not in the prediction, so every step measures above it. A plan that fits in the
        # simulator and not on the device is set aside, the solvers plan again for the budget less the
        # most a plan measured over its prediction, and the model is left as it was.
        import torchvision
        torch.manual_seed(0)
        model = torchvision.models.resnet18(weights=None, num_classes=10)
        images, labels = torch.randn(2, 3, 32, 32), torch.tensor([1, 2])
        cap = capture(model, (images,), F.cross_entropy, (labels,), measure=False)
        plain = remat.Graph.from_json(cap.graph).info()["vanilla_peak_bytes"]
        before = {k: v.clone() for k, v in model.state_dict().items()}
        rng = torch.get_rng_state()
        solvers = ["store-all", "exact-dp", "approx-dp"]

        def runs_hold(best, budget):
            for v in best.verified:  # each run judged by its measured peak, each re-plan by the rule
                self.assertEqual(v["fits"], v["measured_peak_bytes"] <= budget, v)
            for k in range(1, len(best.verified)):
                excess = max(v["measured_peak_bytes"] - v["predicted_peak_bytes"] for v in best.verified[:k])
                self.assertIn(best.verified[k]["planned_at_bytes"], (best.verified[k - 1]["planned_at_bytes"],
                                                                     budget - excess), best.verified)
            self.assertEqual(best.verified[0]["planned_at_bytes"], budget)

        # At exactly the plain run's prediction: the plain run measures over it, and so does every plan
        # the solvers find for less (they hold the same parameters and most of the same tensors).
        tight = best_plan(model, (images,), F.cross_entropy, (labels,), budget=plain, cap=cap, solvers=solvers)
        self.assertIsNone(tight.step, tight.summary())
        first = tight.verified[0]
        self.assertEqual((first["solver"], first["predicted_peak_bytes"], first["fits"]), ("store-all", plain, False))
        self.assertGreater(first["measured_peak_bytes"], plain)
        self.assertGreater(len(tight.verified), 1, tight.verified)  # it planned again, below the budget
        self.assertLess(tight.verified[1]["planned_at_bytes"], plain)
        runs_hold(tight, plain)
        self.assertIn("set aside: store-all measured", tight.summary())
        least = min(v["measured_peak_bytes"] for v in tight.verified)
        self.assertIn(f"the least measured was {least / 2**20:.1f} MiB, {least} bytes", tight.summary())
        self.assertTrue(torch.equal(rng, torch.get_rng_state()))
        for k, v in model.state_dict().items():
            self.assertTrue(torch.equal(before[k], v), k)
        self.assertTrue(all(p.grad is None for p in model.parameters()))

        # With a little room: the plain run still measures over, and a plan made for the budget less its
        # excess fits, measured, and is the one applied.
        budget = plain + (first["measured_peak_bytes"] - plain) // 2
        replanned = best_plan(model, (images,), F.cross_entropy, (labels,), budget=budget, cap=cap, solvers=solvers)
        self.assertIsNotNone(replanned.step, replanned.summary())
        runs_hold(replanned, budget)
        self.assertEqual(replanned.verified[0]["solver"], "store-all")
        self.assertLess(replanned.verified[-1]["planned_at_bytes"], budget)
        self.assertLessEqual(replanned.measured_peak_bytes, budget)
        self.assertEqual(measure(replanned.step, (images, labels)).peak_bytes, replanned.measured_peak_bytes)
        self.assertIn(f"planned at {replanned.verified[-1]['planned_at_bytes']} bytes", replanned.summary())

        # With room for the plain run as measured: applied at once.
        roomy = best_plan(model, (images,), F.cross_entropy, (labels,), budget=first["measured_peak_bytes"], cap=cap,
                          solvers=solvers)
        self.assertEqual((roomy.solver, len(roomy.verified)), ("store-all", 1), roomy.summary())
        self.assertEqual(roomy.measured_peak_bytes, first["measured_peak_bytes"])
        self.assertIn(f"measured {roomy.measured_peak_bytes / 2**20:.1f} MiB", roomy.summary())
        unverified = best_plan(model, (images,), F.cross_entropy, (labels,), budget=plain, cap=cap,
                               solvers=solvers, verify=False)
        self.assertEqual(unverified.solver, "store-all")
        self.assertEqual((unverified.verified, unverified.measured_peak_bytes), ([], None))

    def test_a_plan_ahead_of_the_one_that_fits_is_planned_again(self):
        # Captured with the temporaries taken out of the graph, every plan measures above its prediction,
        # by what its convolutions' temporaries add at its peak. (Times in proportion to the bytes made, so
        # that the plans' order does not depend on the machine's speed.) At 95% of the plain peak, exact-dp's
        # plan measures over and Chen's lower plan fits: exact-dp plans again for less, and its new plan,
        # which fits with less overhead than Chen's, is the one applied.
        torch.manual_seed(0)
        layers = [nn.Conv2d(3, 16, 3, padding=1), nn.ReLU()]
        for _ in range(7):
            layers += [nn.Conv2d(16, 16, 3, padding=1), nn.Tanh()]
        model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
        images, labels = torch.randn(4, 3, 64, 64), torch.tensor([1, 2, 3, 4])
        cap = capture(model, (images,), F.cross_entropy, (labels,))
        for node in cap.graph["nodes"]:
            node.pop("workspace", None)
            node.pop("bwd_workspace", None)
            if "fwd_time" in node:  # times that repeat on any machine: a nanosecond per byte made, twice back
                node["fwd_time"], node["bwd_time"] = max(node["bytes"], 1), 2 * max(node["bytes"], 1)
        graph = remat.Graph.from_json(cap.graph)
        budget = int(0.95 * graph.info()["vanilla_peak_bytes"])
        best = best_plan(model, (images,), F.cross_entropy, (labels,), budget=budget, cap=cap,
                         solvers=["store-all", "exact-dp", "chen-sqrtn", "chen-greedy"])
        first = best.verified[0]
        if first["fits"]:
            self.skipTest(f"exact-dp's plan measured {first['measured_peak_bytes']} bytes, within the budget: "
                          "on this machine the convolutions allocate no temporaries to leave out")
        self.assertEqual(first["solver"], "exact-dp", best.summary())
        self.assertIsNotNone(best.step, best.summary())
        applied = best.applied_run
        self.assertEqual([v for v in best.verified if v["applied"]], [applied])
        passed_over = [v for v in best.verified if v["fits"] and not v["applied"]]
        self.assertEqual(len(passed_over), 1, best.summary())
        self.assertIn(passed_over[0]["solver"], ("chen-sqrtn", "chen-greedy"))
        self.assertLess(best.verified.index(passed_over[0]), best.verified.index(applied))
        self.assertEqual(passed_over[0]["planned_at_bytes"], budget)
        # the re-plan: exact-dp, for the budget less the most a plan measured over its prediction
        excess = max(v["measured_peak_bytes"] - v["predicted_peak_bytes"] for v in best.verified
                     if v is not applied)
        self.assertEqual((best.solver, applied["planned_at_bytes"]), ("exact-dp", budget - excess))
        self.assertLessEqual(applied["measured_peak_bytes"], budget)
        self.assertEqual(measure(best.step, (images, labels)).peak_bytes, applied["measured_peak_bytes"])
        # ... with less overhead than the plan passed over, as the simulator predicts both
        chen = next(r for r in best.comparison["rows"] if r["solver"] == passed_over[0]["solver"])
        self.assertLess(best.plan["metrics"]["overhead"], chen["metrics"]["overhead"])
        self.assertIn(f"passed over: {passed_over[0]['solver']} measured", best.summary())
        self.assertIn(f"applied: exact-dp, planned at {budget - excess} bytes", best.summary())

    def test_a_plan_that_runs_out_of_memory_on_the_device_is_set_aside(self):
        # After the capture, the buffer the step's outer product reads becomes 2^44 elements long (a view
        # of one stored element): verified, the product asks the allocator for 2 PiB, a real allocation
        # failure, which sets the plan aside instead of ending best_plan.
        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)
                self.register_buffer("w", torch.ones(8))

            def forward(self, x):
                v = self.lin(x).flatten()
                return torch.outer(v, self.w).mean()

        torch.manual_seed(0)
        model = Outer()
        x = torch.randn(8, 4)
        cap = capture(model, (x,), None, measure=False)
        model.w.set_(torch.ones(1).storage(), 0, (1 << 44,), (0,))
        best = best_plan(model, (x,), None, budget=1 << 30, cap=cap, solvers=["store-all"])
        self.assertIsNone(best.step, best.summary())
        self.assertEqual(len(best.verified), 1)
        run = best.verified[0]
        self.assertEqual((run["solver"], run["measured_peak_bytes"], run["fits"]), ("store-all", None, False))
        self.assertIn("allocate", run["error"])
        self.assertIn("set aside: store-all ran out of memory on the device", best.summary())
        self.assertIn("measured over the budget or ran out of memory)", best.summary())
        self.assertTrue(all(p.grad is None for p in model.parameters()))


class InPlace(unittest.TestCase):
    """An operation that writes its operand in place must not be recomputed from the value it overwrote:
    EfficientNet's `SiLU(inplace=True)` after batch norm, with the cut between them, trained with wrong
    gradients until apply moved such writes into the segment that made the value."""

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.down, self.bn3 = nn.Conv2d(3, 8, 1), nn.BatchNorm2d(8)
            self.head = nn.Linear(8, 4)

        def forward(self, x):
            h = F.silu(self.bn1(self.conv1(x)), inplace=True)
            out = self.bn2(self.conv2(h))
            out += self.bn3(self.down(x))  # the shortcut is made after bn2: the write reads a later value
            out = F.silu(out, inplace=True)
            return self.head(out.mean((2, 3)))

    def gradients(self, model, step, x, y):
        model.zero_grad(set_to_none=True)
        step(x, y).backward() if step is not None else F.cross_entropy(model(x), y).backward()
        return [p.grad.clone() for p in model.parameters()]

    @staticmethod
    def captured(module):
        """The module (seeded), a batch, its capture and the graph's operations in order."""
        torch.manual_seed(0)
        model = module()
        x, y = torch.randn(2, 3, 8, 8), torch.randint(0, 4, (2,))
        cap = capture(model, (x,), F.cross_entropy, (y,), measure=False)
        return model, x, y, cap, remat.Graph.from_json(cap.graph).op_ids

    @staticmethod
    def cut(ops, *after):
        """The chain's segments, each ending at one of `after`, the rest last."""
        segments, current = [], []
        for ident in ops:
            current.append(ident)
            if ident in after:
                segments.append(current)
                current = []
        return segments + [current]

    def test_writes_run_in_the_segment_that_made_their_value(self):
        model, x, y, cap, ops = self.captured(self.Block)
        nodes = {n["id"]: n for n in cap.graph["nodes"]}
        fx_nodes = {n.name: n for n in cap.module.graph.nodes}
        writes = [i for i in ops if nodes[i]["op"] != "Saved" and fx_nodes[cap.fx_name[i]].meta["writes"]]
        self.assertEqual(writes, ["silu", "iadd", "silu_1"], ops)
        reference = self.gradients(model, None, x, y)
        # Cut between bn1 and its in-place SiLU, and between bn2 and the in-place add: the SiLU moves back
        # to bn1's segment; the add cannot (it reads the shortcut of a later segment), so bn2 moves on.
        plan = self.cut(ops, "model_bn1", "model_bn2", "iadd")
        step = apply(cap, plan)
        self.assertLess(max_relative_difference(reference, self.gradients(model, step, x, y)), 1e-5)
        where = {i: k for k, seg in enumerate(step.segments) for i in seg}
        self.assertEqual(where["silu"], where["model_bn1"], step.segments)
        self.assertEqual(where["model_bn2"], where["iadd"], step.segments)

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.head = nn.Linear(8, 4)

        def forward(self, x):
            h = self.bn1(self.conv1(x))
            out = h + 0  # a value of its own for the add to write into
            out += h
            return self.head(self.bn2(self.conv2(out)).mean((2, 3)))

    def test_a_write_into_an_earlier_segment_s_value_is_not_run_twice(self):
        # `x += y` keeps nothing for its backward, so it stays in the segment the plan gave it; when that
        # segment is recomputed (conv2's output, which bn2 keeps, is rebuilt from the add's result), the
        # add is not run again on the value the forward already wrote.
        model, x, y, cap, ops = self.captured(self.Residual)
        reference = self.gradients(model, None, x, y)
        step = apply(cap, self.cut(ops, "add", "model_bn2"))
        self.assertEqual([s[0] for s in step.segments][1], "iadd", step.segments)
        self.assertLess(max_relative_difference(reference, self.gradients(model, step, x, y)), 1e-5)

    class ReadBeforeWrite(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.short = nn.Conv2d(3, 8, 1)
            self.head = nn.Linear(8, 4)

        def forward(self, x):
            h = self.bn(self.conv(x))
            m = h.mean((2, 3))  # reads h before the writes (and keeps nothing of it)
            h += self.short(x)
            h = F.silu(h, inplace=True)
            return self.head(h.mean((2, 3)) + m)

    def test_a_write_neither_move_can_place_is_refused_with_the_reason(self):
        # The SiLU keeps the value from before its write, so it must run where bn made the value; the add
        # before it reads the shortcut of a later segment, and the mean reads bn's value in between.
        _, _, _, cap, ops = self.captured(self.ReadBeforeWrite)
        first = ops[:ops.index("model_bn") + 1]
        second = [i for i in ops[len(first):] if i in ("mean", "model_short", "iadd")]
        plan = [first, second, [i for i in ops if i not in first and i not in second]]
        with self.assertRaises(PlanError) as caught:
            apply(cap, plan)
        self.assertIn("writes model_bn's value in place in segment 3", str(caught.exception))


    def test_the_dps_plan_only_chains_apply_runs_as_planned(self):
        # A value an in-place SiLU overwrites survives only in the copy the SiLU keeps: pinned recompute,
        # its maker is never a checkpoint, so the DPs cannot keep it past the write and rebuild the copy
        # from it for free (what the unpinned exact-dp plans do here, and apply must move).
        _, _, _, block, _ = self.captured(self.Block)
        self.assertEqual(in_place_pins(block), ["model_bn1", "model_bn2", "iadd"])
        torch.manual_seed(0)
        layers, channels = [], 3
        for _ in range(6):
            layers += [nn.Conv2d(channels, 16, 3, padding=1), nn.BatchNorm2d(16), nn.SiLU(inplace=True)]
            channels = 16
        model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
        x, y = torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))
        cap = capture(model, (x,), F.cross_entropy, (y,))
        pins = in_place_pins(cap)
        self.assertEqual(pins, [f"model_{3 * k + 1}" for k in range(6)])  # each batch norm
        # The captured graph carries them, so every plan made of it is under them without asking.
        self.assertEqual(cap.graph["pins"], {"recompute": pins})
        graph = remat.Graph.from_json(cap.graph)
        unpinned = remat.Graph.from_json({k: v for k, v in cap.graph.items() if k != "pins"})
        self.assertEqual(graph.info()["pins"], {"keep": [], "recompute": pins})
        self.assertEqual(unpinned.info()["pins"], {"keep": [], "recompute": []})
        plain = graph.info()["vanilla_peak_bytes"]
        moved = 0
        for fraction in (0.6, 0.7, 0.8):
            for pinned in (False, True):
                plan = remat.solve(graph if pinned else unpinned, "exact-dp", budget=int(fraction * plain))
                self.assertEqual(plan["status"], "optimal", (fraction, pinned))
                self.assertEqual((plan["pins"] or {}).get("recompute"), pins if pinned else None)
                segments = [list(s) for s in plan["segments"]]
                as_run = normalize(cap, segments)
                if pinned:
                    self.assertEqual(as_run, segments, fraction)
                    with warnings.catch_warnings():
                        warnings.simplefilter("error")  # applied as planned: nothing to warn of
                        apply(cap, plan)
                elif as_run != segments:
                    moved += 1
                    with self.assertWarnsRegex(UserWarning, r"moved to another segment .*in_place_pins"):
                        apply(cap, plan)  # the plan's figures are not the moved chain's: said so
        self.assertGreater(moved, 0)
        reference = self.gradients(model, None, x, y)
        best = best_plan(model, (x,), F.cross_entropy, (y,), budget=int(0.7 * plain), cap=cap,
                         solvers=["exact-dp"])
        self.assertEqual((best.solver, best.pinned), ("exact-dp", pins), best.summary())
        row = next(r for r in best.comparison["rows"] if r["solver"] == "exact-dp")
        self.assertEqual(best.plan["metrics"]["overhead"], row["metrics"]["overhead"])  # applied as planned
        self.assertIn("pinned recompute: 6 operations", best.summary())
        self.assertLessEqual(best.measured_peak_bytes, best.budget_bytes)
        self.assertLess(max_relative_difference(reference, self.gradients(model, best.step, x, y)), 1e-5)
        # The same plan from the command line, on the written graph (which carries the pins), and on the
        # graph without its pins given the written pins file
        import json
        import subprocess
        import tempfile
        cli = os.path.join(os.path.dirname(remat.__file__), "..", "..", "bin", "remat")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "chain.json")
            cap.write(path)
            cap.write_pins(os.path.join(tmp, "chain.pins.json"))
            for extra in ([], ["--no-graph-pins", "--pins", os.path.join(tmp, "chain.pins.json")]):
                out = subprocess.run([cli, "solve", path, "--solver", "exact-dp", "--budget", str(best.budget_bytes),
                                      "--json"] + extra, check=True, capture_output=True, text=True).stdout
                self.assertEqual(json.loads(out)["metrics"]["overhead"], row["metrics"]["overhead"], extra)
                self.assertEqual(json.loads(out)["pins"]["recompute"], pins)

class Bindings(unittest.TestCase):
    """The engine from Python: the same answers as the command line, bad input as ValueError with its place."""

    def test_a_captured_graph_is_native_json_the_command_line_reads(self):
        import json
        import subprocess
        import tempfile
        torch.manual_seed(0)
        cap = capture(TinyGPT(vocab=64, dim=32, heads=2, layers=1, context=8), (torch.randint(0, 64, (2, 8)),),
                      gpt_loss, (torch.randint(0, 64, (2, 8)),), measure=False)
        graph = remat.Graph.from_json(cap.graph, "tiny")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tiny.json")
            cap.write(path)
            cli = os.path.join(os.path.dirname(remat.__file__), "..", "..", "bin", "remat")
            info = json.loads(subprocess.run([cli, "info", path, "--json"], check=True, capture_output=True,
                                             text=True).stdout)
            self.assertEqual(info["vanilla_peak_bytes"], graph.info()["vanilla_peak_bytes"])
            self.assertEqual(remat.Graph.read(path).info()["vanilla_peak_bytes"], info["vanilla_peak_bytes"])
        plan = remat.solve(graph, "approx-dp", budget=info["vanilla_peak_bytes"])
        self.assertEqual(plan["status"], "optimal")
        again = remat.simulate(graph, plan["segments"])
        self.assertEqual(again["metrics"]["simulated_peak_bytes"], plan["metrics"]["simulated_peak_bytes"])

    def test_bad_input_is_a_value_error_that_says_where(self):
        with self.assertRaisesRegex(ValueError, "/nodes"):
            remat.Graph.from_json({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "input"}]})
        graph = remat.Graph.read(os.path.join(os.path.dirname(__file__), "..", "..", "datasets", "small", "mlp.json"))
        with self.assertRaisesRegex(ValueError, "no solver 'nope'"):
            remat.solve(graph, "nope")
        with self.assertRaisesRegex(ValueError, "budget"):
            remat.solve(graph, "exact-dp", budget="lots")
        ops = graph.op_ids
        with self.assertRaisesRegex(ValueError, "lower sets"):
            remat.simulate(graph, [ops[-1:], ops])  # the last operation first: not a lower set
        with self.assertRaisesRegex(ValueError, "not an operation"):
            remat.simulate(graph, [["no-such-node"]])
        with self.assertRaisesRegex(ValueError, "no-such-node"):
            remat.compare(graph, budget="least", solvers=["exact-dp"], recompute=["no-such-node"])

    def test_pins_are_the_command_line_s(self):
        # An MLP whose activations outweigh its parameters: pinned keep, its first layer's output is never
        # recomputed, and exact-dp's least budget rises; the same number from Python and the command line.
        import json
        import subprocess
        import tempfile
        torch.manual_seed(0)
        layers = []
        for _ in range(6):
            layers += [nn.Linear(64, 64), nn.Tanh()]
        model = nn.Sequential(*layers, nn.Linear(64, 10))
        cap = capture(model, (torch.randn(512, 64),), F.cross_entropy, (torch.randint(0, 10, (512,)),), measure=False)
        graph = remat.Graph.from_json(cap.graph)
        first = graph.op_ids[0]
        pinned = remat.min_budget(graph, "exact-dp", keep=[first])["min_budget_bytes"]
        self.assertGreater(pinned, remat.min_budget(graph, "exact-dp")["min_budget_bytes"])
        self.assertEqual(remat.min_budget(graph, "exact-dp", recompute=[first])["min_budget_bytes"],
                         remat.min_budget(graph, "exact-dp")["min_budget_bytes"])
        cli = os.path.join(os.path.dirname(remat.__file__), "..", "..", "bin", "remat")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mlp.json")
            cap.write(path)
            out = json.loads(subprocess.run([cli, "min-budget", path, "--solver", "exact-dp", "--keep", first, "--json"],
                                            check=True, capture_output=True, text=True).stdout)
        self.assertEqual(out["min_budget_bytes"], pinned)
        plan = remat.solve(graph, "exact-dp", budget=pinned, keep=[first])
        self.assertEqual((plan["status"], plan["pins"]["keep"]), ("optimal", [first]))
        self.assertEqual(remat.solve(graph, "exact-dp", budget=pinned - 1, keep=[first])["status"], "infeasible")
        row = remat.compare(graph, budget=pinned, solvers=["exact-dp"], recompute=[first])["rows"][0]
        self.assertEqual(row["pins"]["recompute"], [first])

if __name__ == "__main__":
    unittest.main()
