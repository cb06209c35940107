#!/usr/bin/python3
"""Writes the small graphs that remat-runner's tests execute: an MLP, a small CNN with a skip connection,
a tiny transformer block, torchvision's ResNet-18 at 64x64 (the network `remat validate` checks on
the CPU in CI), ResNet-50 at 64x64, and the three transformers of datasets/ at a reduced size (ViT-B/16
at 32x32, BERT-base at 2x16 tokens, GPT-2 small at 1x32), each wrapped with its training loss.

    /usr/bin/python3 datasets/small/make_small.py [--remat build/bin/remat] [--out datasets/small]
                                                  [--onnx-dir DIR] [--only NAME ...]

Made the way datasets/generate.py makes the real networks (its OPSET, SEED and export settings are
imported from it): each module is built after torch.manual_seed(SEED), exported with
`torch.onnx.export(..., export_params=False, training=TrainingMode.TRAINING, do_constant_folding=False,
opset_version=OPSET)` under torch.no_grad(), so that its parameters become graph inputs, then imported
with `remat convert NAME.onnx NAME.json --batch B`. Needs Debian's python3 with torch 1.13 and onnx 1.12.

The transformer block avoids two patterns that the import once could not represent (see README.md):
the head merge `out.transpose(1, 2).reshape(B, T, C)`, a copy in PyTorch, and Pow with a constant
exponent. The import now handles both (copying reshapes, constants with values), and the reduced
transformers use them.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "datasets"))
from generate import OPSET, SEED, BertBase, GPT2Small  # noqa: E402  (the real networks' settings and modules)
from generate import WithLoss as TokenLoss  # noqa: E402


class WithLoss(nn.Module):
    """net(data) -> logits; returns cross_entropy(logits, labels). Parameters are `net.<key>`."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, data: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.net(data), labels)


class Mlp(nn.Module):
    """32 -> 64 -> 64 -> 10 with ReLU: Gemm, Relu, and the loss."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(32, 64), nn.Linear(64, 64), nn.Linear(64, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class CnnSkip(nn.Module):
    """conv-bn-relu, 2x2 max-pool, a residual block (two conv-bn, Add, ReLU), a strided conv-bn-relu,
    global mean (ReduceMean, no Flatten view) and a linear head."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.conv3, self.bn3 = nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.conv4, self.bn4 = nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        y = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(y)) + x)
        x = F.relu(self.bn4(self.conv4(x)))
        return self.fc(x.mean(dim=(2, 3)))


class ManualLayerNorm(nn.Module):
    """LayerNorm written as ONNX operations (ReduceMean, Sub, Mul, Add, Sqrt, Div), as opset 14 exports
    it, with the square as Mul(d, d) instead of Pow(d, 2)."""

    def __init__(self, width: int, eps: float = 1e-5):
        super().__init__()
        self.weight, self.bias, self.eps = nn.Parameter(torch.ones(width)), nn.Parameter(torch.zeros(width)), eps

    def forward(self, x):
        d = x - x.mean(dim=-1, keepdim=True)
        var = (d * d).mean(dim=-1, keepdim=True)
        return d / torch.sqrt(var + self.eps) * self.weight + self.bias


class TransformerBlock(nn.Module):
    """A pre-norm transformer block on a (B, T, C) input without embeddings: multi-head self-attention
    (heads split with Reshape and Transpose views, scores by MatMul, Softmax), a per-head output
    projection averaged over the heads (instead of merging heads with a transpose-reshape copy), a
    residual, a Tanh MLP with its residual, then the mean over tokens and a linear classifier."""

    def __init__(self, width: int = 16, heads: int = 2, classes: int = 10):
        super().__init__()
        self.heads, self.head_width = heads, width // heads
        self.ln1, self.ln2 = ManualLayerNorm(width), ManualLayerNorm(width)
        self.q, self.k, self.v = (nn.Linear(width, width, bias=False) for _ in range(3))
        self.proj = nn.Parameter(torch.randn(heads, self.head_width, width) / self.head_width ** 0.5)
        self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
        self.head = nn.Linear(width, classes)

    def split(self, t, b, n):
        return t.reshape(b, n, self.heads, self.head_width).transpose(1, 2)  # (B, H, T, D), views

    def forward(self, x):
        b, n, _ = x.shape
        y = self.ln1(x)
        q, k, v = self.split(self.q(y), b, n), self.split(self.k(y), b, n), self.split(self.v(y), b, n)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (self.head_width ** -0.5)
        out = torch.matmul(torch.softmax(scores, dim=-1), v)  # (B, H, T, D)
        x = x + torch.matmul(out, self.proj).mean(dim=1)  # per-head projection (B, H, T, C), mean over heads
        x = x + self.fc2(torch.tanh(self.fc1(self.ln2(x))))
        return self.head(x.mean(dim=1))


def resnet18():
    """torchvision's ResNet-18 as datasets/generate.py builds resnet50 (weights=None, 1000 classes); at
    64x64 its feature map before the average pool is 2x2. Its only view is the Flatten before the head."""
    return torchvision.models.resnet18(weights=None)


def resnet50():
    """datasets/resnet50.json's network (torchvision's ResNet-50, weights=None) at a reduced resolution:
    batch 2 at 64x64 instead of 32 at 224x224, so that CI validates it on a CPU in seconds."""
    return torchvision.models.resnet50(weights=None)


def bert_base_2x16():
    """datasets/bert_base.json's network (generate.py's BertBase: 12 layers, 768 wide, the 30522-token
    MLM head) at batch 2 and 16 tokens instead of 32 x 128."""
    return BertBase(batch=2, seq=16)


def gpt2_small_1x32():
    """datasets/gpt2_small.json's network (generate.py's GPT2Small) at batch 1 with a 32-token context
    instead of 8 x 1024 (its position table and causal mask are 32 long)."""
    return GPT2Small(batch=1, seq=32)


def vit_b_16_32px():
    """datasets/vit_b_16.json's network (torchvision's ViT-B/16, weights=None) at batch 2 on 32x32
    images: 2x2 patches and the class token, instead of 32 x 224x224."""
    return torchvision.models.vit_b_16(weights=None, image_size=32)


# name -> (builder, batch, inputs as (name, shape, dtype, high)); labels are int64 in [0, high).
NETWORKS = {
    "mlp": (Mlp, 4, [("x", (4, 32), "float32", 0), ("labels", (4,), "int64", 10)]),
    "cnn-skip": (CnnSkip, 2, [("images", (2, 3, 16, 16), "float32", 0), ("labels", (2,), "int64", 10)]),
    "transformer-block": (TransformerBlock, 2, [("x", (2, 8, 16), "float32", 0), ("labels", (2,), "int64", 10)]),
    "resnet18-64px": (resnet18, 2, [("images", (2, 3, 64, 64), "float32", 0), ("labels", (2,), "int64", 1000)]),
    "resnet50-64px": (resnet50, 2, [("images", (2, 3, 64, 64), "float32", 0), ("labels", (2,), "int64", 1000)]),
    "bert_base-2x16": (bert_base_2x16, 2,
                       [("input_ids", (2, 16), "int64", 30522), ("labels", (2, 16), "int64", 30522)]),
    "gpt2_small-1x32": (gpt2_small_1x32, 1,
                        [("input_ids", (1, 32), "int64", 50257), ("labels", (1, 32), "int64", 50257)]),
    "vit_b_16-32px": (vit_b_16_32px, 2, [("images", (2, 3, 32, 32), "float32", 0), ("labels", (2,), "int64", 1000)]),
}

# Token models return (batch, tokens, vocabulary) logits: the loss flattens them as generate.py does.
TOKEN_LOSS = {"bert_base-2x16": (32, 30522), "gpt2_small-1x32": (32, 50257)}


def export(name: str, path: Path) -> int:
    build, batch, inputs = NETWORKS[name]
    torch.manual_seed(SEED)
    model = TokenLoss(build(), flatten=TOKEN_LOSS[name]) if name in TOKEN_LOSS else WithLoss(build())
    args = tuple(torch.randint(0, high, shape) if dtype == "int64" else torch.randn(shape)
                 for _, shape, dtype, high in inputs)
    with torch.no_grad():
        torch.onnx.export(model, args, str(path), export_params=False, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, opset_version=OPSET,
                          input_names=[n for n, *_ in inputs], output_names=["loss"])
    return batch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--remat", type=Path, default=REPO / "build" / "bin" / "remat", help="the remat binary")
    parser.add_argument("--out", type=Path, default=HERE, help="where the JSON files go")
    parser.add_argument("--onnx-dir", type=Path, help="keep the ONNX files here (default: a temporary folder)")
    parser.add_argument("--only", nargs="+", choices=sorted(NETWORKS), help="write only these graphs")
    args = parser.parse_args()
    if not args.remat.exists():
        print(f"error: no remat binary at {args.remat} (build the target remat, or pass --remat)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        onnx_dir = args.onnx_dir or Path(tmp)
        onnx_dir.mkdir(parents=True, exist_ok=True)
        for name in args.only or NETWORKS:
            onnx_path = onnx_dir / f"{name}.onnx"
            batch = export(name, onnx_path)
            out = args.out / f"{name}.json"
            result = subprocess.run([str(args.remat), "convert", str(onnx_path), str(out), "--batch", str(batch)],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                print(f"{name}: conversion FAILED:\n{result.stderr}", file=sys.stderr)
                return 1
            print(f"{name}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
