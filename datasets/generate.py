#!/usr/bin/python3
"""Exports real networks to ONNX (training mode, no weights) and converts them to Remat's native JSON.

Every network is built with random initialisation (nothing is downloaded) and wrapped so that its
ONNX graph takes the data *and* the labels and returns the scalar training loss, exactly what one
training step computes before backpropagation:

    /usr/bin/python3 datasets/generate.py [--out datasets] [--onnx-dir DIR] [--remat build/bin/remat]
                                          [--only name1,name2] [--list] [--convert-only]

For each network the script
  1. exports `<onnx-dir>/<name>.onnx` with `torch.onnx.export(..., export_params=False,
     training=TrainingMode.TRAINING, do_constant_folding=False, opset_version=OPSET)`: parameters and
     buffers become graph inputs named `net.<state-dict key>`, the file holds no initializers;
  2. checks it (`onnx.checker`, then `onnx.shape_inference` with data propagation) and records whether
     every value got a fully static shape, the op types, the parameter inputs and embedded constants;
  3. runs `<remat> convert <name>.onnx <out>/<name>.json --batch <B>` if the binary exists.

`<out>/manifest.json` describes every network (entries of networks not exported in this run are kept
from the previous manifest); it is deterministic: same environment, same bytes. Needs Debian's
python3 with torch 1.13, torchvision 0.14 and onnx 1.12. The ONNX files go to a temporary directory
that is deleted at the end unless --onnx-dir is given. Exits non-zero if any export, check or
conversion failed. With --convert-only nothing is exported: the ONNX files already in --onnx-dir are
converted again (after a change to Remat's ONNX reader), and the manifest is left as it is.
"""

import argparse
import dataclasses
import gc
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.models.googlenet import InceptionAux as GoogLeNetAux

REPO = Path(__file__).resolve().parent.parent

# Opset 14 is the first whose BatchNormalization has `training_mode` (torch exports training-mode
# batch norm at opsets 9-13 in the old 5-output form); SoftmaxCrossEntropyLoss needs 12. It exports
# all twelve networks, so every network uses it.
OPSET = 14
SEED = 0

# The export settings, recorded verbatim in the manifest (input/output names are per network).
EXPORT_SETTINGS = {
    "export_params": False,
    "training": "torch.onnx.TrainingMode.TRAINING",
    "do_constant_folding": False,
    "opset_version": OPSET,
    "dynamic_axes": None,
    "operator_export_type": "torch.onnx.OperatorExportType.ONNX",
    "traced_under": "torch.no_grad()",
    "seed": f"torch.manual_seed({SEED}) before building each network and its example inputs",
}


# --------------------------------------------------------------------------------------------------
# The network table's types


@dataclasses.dataclass(frozen=True)
class InputSpec:
    """One graph input: data (float32) or ids/labels (int64 values drawn from [0, high))."""

    name: str
    shape: Tuple[int, ...]
    dtype: str  # "float32" or "int64"
    meaning: str
    high: int = 0  # int64 inputs only

    def example(self) -> torch.Tensor:
        if self.dtype == "int64":
            return torch.randint(0, self.high, self.shape, dtype=torch.int64)
        return torch.randn(self.shape)

    def manifest(self) -> dict:
        entry = {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "meaning": self.meaning}
        if self.dtype == "int64":
            entry["values"] = [0, self.high - 1]
        return entry


@dataclasses.dataclass(frozen=True)
class Network:
    name: str
    description: str
    builder: str  # what builds the network, as code
    batch: int
    inputs: Tuple[InputSpec, ...]  # in graph order: data first, labels last
    loss: str  # the formula of the exported loss
    build: Callable[[], nn.Module]  # module(*inputs) -> scalar loss


def image_inputs(batch: int, channels: int, size: int, classes: int) -> Tuple[InputSpec, ...]:
    return (
        InputSpec("images", (batch, channels, size, size), "float32", "input images, NCHW"),
        InputSpec("labels", (batch,), "int64", "class index of each image", classes),
    )


def segmentation_inputs(batch: int, channels: int, size: int, out_size: int, classes: int) -> Tuple[InputSpec, ...]:
    return (
        InputSpec("images", (batch, channels, size, size), "float32", "input images, NCHW"),
        InputSpec("labels", (batch, out_size, out_size), "int64", "class index of each output pixel", classes),
    )


def token_inputs(batch: int, seq: int, vocab: int, labels_meaning: str) -> Tuple[InputSpec, ...]:
    return (
        InputSpec("input_ids", (batch, seq), "int64", "token ids", vocab),
        InputSpec("labels", (batch, seq), "int64", labels_meaning, vocab),
    )


# --------------------------------------------------------------------------------------------------
# Losses. The wrapped network is the attribute `net`, so parameters are named `net.<state-dict key>`.


class WithLoss(nn.Module):
    """net(data) -> logits, or a tuple (main logits, auxiliary logits...) in training mode;
    loss = cross_entropy(main) + sum(weight_i * cross_entropy(aux_i)).

    Logits are (N, C) or (N, C, H, W) with labels (N,) or (N, H, W): SoftmaxCrossEntropyLoss handles
    both. `flatten` reshapes (B, T, V) token logits to (B*T, V) and labels to (B*T,) with constant
    shapes (no Shape nodes in the graph)."""

    def __init__(self, net: nn.Module, aux_weights: Tuple[float, ...] = (), ignore_index: int = -100,
                 flatten: Optional[Tuple[int, int]] = None):
        super().__init__()
        self.net = net
        self.aux_weights = aux_weights
        self.ignore_index = ignore_index
        self.flatten = flatten  # (rows, classes)

    def ce(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        if self.flatten is not None:
            rows, classes = self.flatten
            logits, labels = logits.reshape(rows, classes), labels.reshape(rows)
        return F.cross_entropy(logits, labels, ignore_index=self.ignore_index)

    def forward(self, data: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        out = self.net(data)
        if not self.aux_weights:
            return self.ce(out, labels)
        main, *aux = out
        assert len(aux) == len(self.aux_weights), "the network must return one logits tensor per weight"
        loss = self.ce(main, labels)
        for weight, logits in zip(self.aux_weights, aux):
            loss = loss + weight * self.ce(logits, labels)
        return loss


# --------------------------------------------------------------------------------------------------
# Networks written here: U-Net, PSPNet, BERT-base, GPT-2 small


def conv_out(size: int, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


class UNet(nn.Module):
    """The original U-Net (Ronneberger et al., MICCAI 2015, Fig. 1): unpadded 3x3 convolutions, 2x2
    max-pooling, 2x2 up-convolutions halving the channels, center-cropped skip connections, a final
    1x1 convolution. The paper's "drop-out layers at the end of the contracting path" are one
    Dropout(0.5) after the bottom block. All sizes are Python constants, so the graph has no Shape
    nodes: the crop offsets are computed here from the input size."""

    def __init__(self, in_channels: int = 1, classes: int = 2, widths=(64, 128, 256, 512, 1024), size: int = 572):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3), nn.ReLU(inplace=True),
                                 nn.Conv2d(cout, cout, 3), nn.ReLU(inplace=True))

        self.down = nn.ModuleList()
        cin, skip_sizes = in_channels, []
        for i, width in enumerate(widths):
            self.down.append(block(cin, width))
            cin, size = width, size - 4
            if i < len(widths) - 1:
                skip_sizes.append(size)
                assert size % 2 == 0, "every max-pooled map must have an even size"
                size //= 2
        self.pool = nn.MaxPool2d(2)
        self.dropout = nn.Dropout(0.5)
        self.up = nn.ModuleList()
        self.up_block = nn.ModuleList()
        self.crops = []  # (offset, length) of each skip's center crop, bottom level first
        for width, skip in zip(reversed(widths[:-1]), reversed(skip_sizes)):
            self.up.append(nn.ConvTranspose2d(2 * width, width, 2, stride=2))
            size *= 2
            self.crops.append(((skip - size) // 2, size))
            self.up_block.append(block(2 * width, width))
            size -= 4
        self.head = nn.Conv2d(widths[0], classes, 1)
        self.out_size = size

    def forward(self, x):
        skips = []
        for block in self.down[:-1]:
            x = block(x)
            skips.append(x)
            x = self.pool(x)
        x = self.dropout(self.down[-1](x))
        for up, block, skip, (offset, length) in zip(self.up, self.up_block, reversed(skips), self.crops):
            x = up(x)
            skip = skip[:, :, offset:offset + length, offset:offset + length]
            x = block(torch.cat([skip, x], dim=1))
        return self.head(x)


class StatsBatchNorm2d(nn.BatchNorm2d):
    """BatchNorm2d without F.batch_norm's Python check that a channel has more than one value in
    training mode, which PSPNet's 1x1 pyramid bin fails at batch 1. torch.batch_norm is the op that
    F.batch_norm calls, so the exported node (BatchNormalization, training_mode=1) is the same."""

    def forward(self, x):
        return torch.batch_norm(x, self.weight, self.bias, self.running_mean, self.running_var, self.training,
                                self.momentum, self.eps, torch.backends.cudnn.enabled)


class PSPNet(nn.Module):
    """PSPNet (Zhao et al., CVPR 2017): a dilated ResNet-101 (output stride 8), the pyramid pooling
    module (bins 1, 2, 3, 6; each a 1x1 conv to 512 + BN + ReLU, bilinearly upsampled and concatenated
    with the features), a 3x3 conv head (512, BN, ReLU, dropout 0.1, as the paper's Caffe model),
    a 1x1 classifier and a bilinear upsample to the input size; in training mode an auxiliary head on
    layer3 (3x3 conv 256 + BN + ReLU + dropout 0.1 + 1x1 classifier) also returns logits."""

    def __init__(self, classes: int = 17, size: int = 713, bins=(1, 2, 3, 6)):
        super().__init__()
        r = torchvision.models.resnet101(weights=None, replace_stride_with_dilation=[False, True, True])
        # Only the used parts, so no unused parameter becomes a graph input.
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layer1, self.layer2, self.layer3, self.layer4 = r.layer1, r.layer2, r.layer3, r.layer4
        feature = conv_out(conv_out(conv_out(size, 7, 2, 3), 3, 2, 1), 3, 2, 1)  # conv1, maxpool, layer2
        for b in bins:
            # AdaptiveAvgPool2d exports to ONNX only when the bin count divides the map size.
            assert feature % b == 0, f"the {feature}x{feature} feature map does not split into {b}x{b} bins"
        self.feature, self.size = feature, size
        self.pyramid = nn.ModuleList(
            nn.Sequential(nn.AdaptiveAvgPool2d(b), nn.Conv2d(2048, 512, 1, bias=False), StatsBatchNorm2d(512),
                          nn.ReLU(inplace=True))
            for b in bins)
        self.head = nn.Sequential(
            nn.Conv2d(2048 + 512 * len(bins), 512, 3, padding=1, bias=False), nn.BatchNorm2d(512),
            nn.ReLU(inplace=True), nn.Dropout(0.1), nn.Conv2d(512, classes, 1))
        self.aux = nn.Sequential(
            nn.Conv2d(1024, 256, 3, padding=1, bias=False), nn.BatchNorm2d(256), nn.ReLU(inplace=True),
            nn.Dropout(0.1), nn.Conv2d(256, classes, 1))

    def upsample(self, x, size):
        return F.interpolate(x, size=(size, size), mode="bilinear", align_corners=True)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        aux = self.layer3(x)
        x = self.layer4(aux)
        x = torch.cat([x] + [self.upsample(stage(x), self.feature) for stage in self.pyramid], dim=1)
        main = self.upsample(self.head(x), self.size)
        if not self.training:
            return main
        return main, self.upsample(self.aux(aux), self.size)


class BertBase(nn.Module):
    """BERT-base (Devlin et al. 2019) for masked-language-model training: token embedding + learned
    position embedding (the first `seq` rows of the 512x768 table) + LayerNorm + dropout, 12 post-LN
    nn.TransformerEncoderLayer, and BERT's MLM head (dense 768x768 + GELU + LayerNorm, then a
    768x30522 decoder). No segment embeddings and no pooler/NSP head."""

    def __init__(self, batch=32, seq=128, vocab=30522, max_positions=512, d=768, layers=12, heads=12, ff=3072,
                 dropout=0.1):
        super().__init__()
        self.seq = seq
        self.token_embedding = nn.Embedding(vocab, d)
        self.position_embedding = nn.Parameter(torch.randn(max_positions, d) * 0.02)
        self.embedding_norm = nn.LayerNorm(d, eps=1e-12)
        self.embedding_dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, heads, ff, dropout=dropout, activation="gelu", layer_norm_eps=1e-12,
                                       batch_first=True, norm_first=False)
            for _ in range(layers))
        self.mlm_transform = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.LayerNorm(d, eps=1e-12))
        self.mlm_decoder = nn.Linear(d, vocab)

    def forward(self, ids):
        # Slicing a learned table equals looking up positions 0..seq-1, without an arange in the graph.
        x = self.token_embedding(ids) + self.position_embedding[: self.seq]
        x = self.embedding_dropout(self.embedding_norm(x))
        for layer in self.layers:
            x = layer(x)
        return self.mlm_decoder(self.mlm_transform(x))


class CausalSelfAttention(nn.Module):
    def __init__(self, batch, seq, d, heads, dropout):
        super().__init__()
        self.shape = (batch, seq, heads, d // heads)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x, future):
        b, t, h, hd = self.shape
        q, k, v = self.qkv(x).split(h * hd, dim=2)
        q, k, v = (y.reshape(b, t, h, hd).transpose(1, 2) for y in (q, k, v))  # (b, h, t, hd)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        scores = scores.masked_fill(future, float("-inf"))
        att = self.attn_dropout(torch.softmax(scores, dim=-1))
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, t, h * hd)
        return self.resid_dropout(self.proj(y))


class GPT2Block(nn.Module):
    def __init__(self, batch, seq, d, heads, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(batch, seq, d, heads, dropout)
        self.ln_2 = nn.LayerNorm(d)
        # GPT-2's GELU is the tanh approximation.
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d),
                                 nn.Dropout(dropout))

    def forward(self, x, future):
        x = x + self.attn(self.ln_1(x), future)
        return x + self.mlp(self.ln_2(x))


class GPT2Small(nn.Module):
    """GPT-2 small (Radford et al. 2019): token + learned position embeddings, dropout 0.1, 12 pre-LN
    blocks (causal self-attention with 12 heads as explicit matmul/softmax, MLP 768-3072-768 with
    tanh-GELU), final LayerNorm and an untied LM head 768x50257 without bias."""

    def __init__(self, batch=8, seq=1024, vocab=50257, d=768, layers=12, heads=12, dropout=0.1):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, d)
        # seq equals GPT-2's context (1024), so the whole position table is added.
        self.position_embedding = nn.Parameter(torch.randn(seq, d) * 0.01)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(GPT2Block(batch, seq, d, heads, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        # True above the diagonal: the future positions a query must not see. Non-persistent, so it
        # is not a parameter input but one Constant in the graph (1 MiB of bool), shared by all blocks.
        self.register_buffer("future", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, ids):
        x = self.dropout(self.token_embedding(ids) + self.position_embedding)
        for block in self.blocks:
            x = block(x, self.future)
        return self.lm_head(self.ln_f(x))


# --------------------------------------------------------------------------------------------------
# One builder per network. Each returns a module taking the network's inputs and returning the loss.


def build_resnet50():
    return WithLoss(torchvision.models.resnet50(weights=None))


def build_resnet152():
    return WithLoss(torchvision.models.resnet152(weights=None))


def build_vgg19():
    return WithLoss(torchvision.models.vgg19(weights=None))


def build_densenet161():
    return WithLoss(torchvision.models.densenet161(weights=None))


def _googlenet_aux_forward(self: GoogLeNetAux, x):
    # torchvision pools the 14x14 map with adaptive_avg_pool2d to 4x4, which has no ONNX export (4
    # does not divide 14: its windows start at 0, 3, 7, 10). The GoogLeNet paper's auxiliary
    # classifier pools with a 5x5 average pool of stride 3 instead: same 4x4 output, same layers after.
    x = F.avg_pool2d(x, kernel_size=5, stride=3)
    x = torch.flatten(self.conv(x), 1)
    x = F.relu(self.fc1(x), inplace=True)
    return self.fc2(self.dropout(x))


def build_googlenet():
    net = torchvision.models.googlenet(weights=None, aux_logits=True, init_weights=True)
    for aux in (net.aux1, net.aux2):
        aux.forward = _googlenet_aux_forward.__get__(aux)
    # In training mode GoogLeNet returns (logits, aux_logits2, aux_logits1); the paper weighs both 0.3.
    return WithLoss(net, aux_weights=(0.3, 0.3))


def build_unet():
    return WithLoss(UNet())


def build_pspnet():
    # 255 is the "void" label of the PSPNet training code; it changes nothing in the graph's shape.
    return WithLoss(PSPNet(), aux_weights=(0.4,), ignore_index=255)


def build_mobilenet_v2():
    return WithLoss(torchvision.models.mobilenet_v2(weights=None))


def build_inception_v3():
    net = torchvision.models.inception_v3(weights=None, aux_logits=True, init_weights=True)
    return WithLoss(net, aux_weights=(0.4,))  # returns (logits, aux_logits) in training mode


def build_bert_base():
    return WithLoss(BertBase(), flatten=(32 * 128, 30522))


def build_gpt2_small():
    return WithLoss(GPT2Small(), flatten=(8 * 1024, 50257))


def build_vit_b_16():
    return WithLoss(torchvision.models.vit_b_16(weights=None))


CE = "cross_entropy(logits, labels)"

NETWORKS: List[Network] = [
    Network("resnet50", "ResNet-50 (He et al. 2016), 1000 ImageNet classes.",
            "torchvision.models.resnet50(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE, build_resnet50),
    Network("resnet152", "ResNet-152 (He et al. 2016), 1000 ImageNet classes.",
            "torchvision.models.resnet152(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE, build_resnet152),
    Network("vgg19", "VGG-19 without batch norm (Simonyan & Zisserman 2015), 1000 classes, dropout 0.5 in the "
            "classifier.", "torchvision.models.vgg19(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE,
            build_vgg19),
    Network("densenet161", "DenseNet-161 (Huang et al. 2017), 1000 ImageNet classes.",
            "torchvision.models.densenet161(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE,
            build_densenet161),
    Network("googlenet", "GoogLeNet / Inception-v1 (Szegedy et al. 2015) with batch norm, both auxiliary "
            "classifiers in the graph. Workaround: the auxiliary heads pool 14x14 to 4x4 with the paper's "
            "5x5/3 average pool instead of torchvision's adaptive_avg_pool2d((4, 4)), which has no ONNX "
            "export (4 does not divide 14).",
            "torchvision.models.googlenet(weights=None, aux_logits=True, init_weights=True), "
            "aux1/aux2 pooling replaced", 32, image_inputs(32, 3, 224, 1000),
            "cross_entropy(logits) + 0.3 * cross_entropy(aux_logits2) + 0.3 * cross_entropy(aux_logits1)",
            build_googlenet),
    Network("unet", "The original U-Net (Ronneberger et al. 2015): unpadded 3x3 convolutions, 64-1024 "
            "channels over 4 down and 4 up levels, 2x2 up-convolutions, center-cropped skip connections, "
            "dropout 0.5 at the end of the contracting path, 1x1 convolution to 2 classes; 572x572 in, "
            "388x388 out; per-pixel cross-entropy (without the paper's weight map).",
            "datasets/generate.py UNet()", 8, segmentation_inputs(8, 1, 572, 388, 2),
            "cross_entropy(logits, labels) per pixel, mean", build_unet),
    Network("pspnet", "PSPNet (Zhao et al. 2017): ResNet-101 dilated to output stride 8 (90x90 features), "
            "pyramid pooling (bins 1, 2, 3, 6 -> 1x1 conv 512 + BN + ReLU -> bilinear upsample -> concat), "
            "3x3 conv head 512 + BN + ReLU + dropout 0.1, 17 classes, auxiliary head on layer3, logits "
            "bilinearly upsampled (align_corners) to 713x713. Workaround: at batch 1 the 1x1 pyramid bin has "
            "one value per channel, which F.batch_norm refuses in training mode; the pyramid's batch norms "
            "call torch.batch_norm directly (same BatchNormalization node). Plain (element-wise) dropout, "
            "as in the paper's Caffe model: Dropout2d has no training-mode ONNX export.",
            "datasets/generate.py PSPNet() on torchvision.models.resnet101(weights=None, "
            "replace_stride_with_dilation=[False, True, True])", 1, segmentation_inputs(1, 3, 713, 713, 17),
            "cross_entropy(logits) + 0.4 * cross_entropy(aux_logits), per pixel, ignore_index 255",
            build_pspnet),
    Network("mobilenet_v2", "MobileNetV2 (Sandler et al. 2018), 1000 ImageNet classes.",
            "torchvision.models.mobilenet_v2(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE,
            build_mobilenet_v2),
    Network("inception_v3", "Inception-v3 (Szegedy et al. 2016) with its auxiliary classifier in the graph; "
            "the auxiliary loss weight 0.4 is torchvision's reference recipe.",
            "torchvision.models.inception_v3(weights=None, aux_logits=True, init_weights=True)", 32,
            image_inputs(32, 3, 299, 1000), "cross_entropy(logits) + 0.4 * cross_entropy(aux_logits)",
            build_inception_v3),
    Network("bert_base", "BERT-base encoder (Devlin et al. 2019) for masked-LM training: token embedding "
            "30522x768 + learned position embedding + LayerNorm + dropout, 12 nn.TransformerEncoderLayer "
            "(768, 12 heads, 3072, GELU, post-LN, dropout 0.1), BERT's MLM head (768x768 dense + GELU + "
            "LayerNorm, 768x30522 decoder), cross-entropy over every token (masked-out positions would "
            "carry the ignored label -100).",
            "datasets/generate.py BertBase() with torch.nn.TransformerEncoderLayer(768, 12, 3072, "
            "activation='gelu', batch_first=True, norm_first=False)", 32,
            token_inputs(32, 128, 30522, "token id to predict at each position"),
            "cross_entropy(logits.reshape(4096, 30522), labels.reshape(4096))", build_bert_base),
    Network("gpt2_small", "GPT-2 small (Radford et al. 2019): token + position embeddings, 12 pre-LN blocks "
            "(causal self-attention with 12 heads as explicit matmul/softmax with a fixed causal mask, "
            "MLP 768-3072-768 with tanh-GELU), dropout 0.1, final LayerNorm, untied LM head 768x50257; "
            "the labels are the next tokens (input_ids shifted by one).",
            "datasets/generate.py GPT2Small()", 8,
            token_inputs(8, 1024, 50257, "next token id at each position"),
            "cross_entropy(logits.reshape(8192, 50257), labels.reshape(8192))", build_gpt2_small),
    Network("vit_b_16", "ViT-B/16 (Dosovitskiy et al. 2021), 1000 ImageNet classes.",
            "torchvision.models.vit_b_16(weights=None)", 32, image_inputs(32, 3, 224, 1000), CE, build_vit_b_16),
]


# --------------------------------------------------------------------------------------------------
# Export and checks


def export(network: Network, path: Path) -> Tuple[nn.Module, List[str]]:
    """Exports `network` to `path`; returns the module (for its state dict) and torch's warnings."""
    torch.manual_seed(SEED)
    model = network.build()
    args = tuple(spec.example() for spec in network.inputs)
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        torch.onnx.export(model, args, str(path), export_params=False, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, opset_version=OPSET,
                          input_names=[spec.name for spec in network.inputs], output_names=["loss"])
    # Collapse warnings that differ only in a quoted name (one per batch norm, for instance).
    kinds = Counter(re.sub(r"'[^']*'", "'...'", str(w.message).splitlines()[0])[:160] for w in caught)
    return model, [f"{text} (x{count})" if count > 1 else text for text, count in sorted(kinds.items())]


ELEMENT_BYTES = {onnx.TensorProto.FLOAT: 4, onnx.TensorProto.DOUBLE: 8, onnx.TensorProto.INT64: 8,
                 onnx.TensorProto.INT32: 4, onnx.TensorProto.BOOL: 1, onnx.TensorProto.FLOAT16: 2,
                 onnx.TensorProto.UINT8: 1, onnx.TensorProto.INT8: 1}


def tensor_bytes(t: onnx.TensorProto) -> int:
    return math.prod(t.dims) * ELEMENT_BYTES.get(t.data_type, 4)


def static_shape(value_type: onnx.TypeProto) -> Optional[List[int]]:
    """The shape if it is fully static, else None."""
    if not value_type.HasField("tensor_type") or not value_type.tensor_type.HasField("shape"):
        return None
    dims = value_type.tensor_type.shape.dim
    if any(not d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def summarize_names(names: List[str]) -> Dict[str, int]:
    """Counts names by their last component (`net.layer1.0.bn1.num_batches_tracked` -> num_batches_tracked)."""
    return dict(Counter(name.rsplit(".", 1)[-1] for name in names))


def inspect(network: Network, path: Path, model: nn.Module) -> dict:
    """Checks the exported file and describes it for the manifest."""
    onnx.checker.check_model(str(path))
    proto = onnx.load(str(path), load_external_data=False)
    graph = proto.graph

    try:
        inferred = onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)
        inference_error = None
    except Exception as error:  # still record what the lenient inference finds
        inferred = onnx.shape_inference.infer_shapes(proto, data_prop=True)
        inference_error = str(error).splitlines()[0][:300]
    types = {v.name: v.type for v in list(inferred.graph.input) + list(inferred.graph.output)
             + list(inferred.graph.value_info)}
    not_static = []
    for node in inferred.graph.node:
        for name in node.output:
            if name and (name not in types or static_shape(types[name]) is None):
                not_static.append(f"{name} ({node.op_type})")
    not_static += [f"{v.name} (graph input)" for v in graph.input if static_shape(v.type) is None]

    data_names = [spec.name for spec in network.inputs]
    graph_inputs = [v.name for v in graph.input]
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    persistent = set(model.state_dict().keys())
    param_inputs = [n for n in graph_inputs if n in params]
    buffer_inputs = [n for n in graph_inputs if n in buffers]
    other_inputs = [n for n in graph_inputs if n not in params and n not in buffers and n not in data_names]
    missing = sorted((persistent | set(params)) - set(graph_inputs))

    constants = [(tensor_bytes(a.t), node.output[0], list(a.t.dims), onnx.TensorProto.DataType.Name(a.t.data_type))
                 for node in graph.node if node.op_type == "Constant" for a in node.attribute if a.name == "value"]
    largest = max(constants) if constants else None

    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "ir_version": proto.ir_version,
        "opset": {o.domain or "ai.onnx": o.version for o in proto.opset_import},
        "nodes": len(graph.node),
        "op_types": dict(sorted(Counter(n.op_type for n in graph.node).items())),
        "initializers": len(graph.initializer),
        "graph_inputs": len(graph_inputs),
        "data_inputs": [n for n in graph_inputs if n in data_names],
        "outputs": [{"name": v.name, "shape": static_shape(v.type)} for v in inferred.graph.output],
        "parameters": {
            "as": "graph inputs named after the state dict (no initializers)" if not graph.initializer
            else "initializers",
            "trainable_inputs": len(param_inputs),
            "trainable_elements": sum(params[n].numel() for n in param_inputs),
            "buffer_inputs": len(buffer_inputs),
            "buffer_elements": sum(buffers[n].numel() for n in buffer_inputs),
            "buffer_kinds": summarize_names(buffer_inputs),
            # State-dict entries the graph never reads (e.g. batch-norm counters) are not inputs.
            "missing_from_graph": summarize_names(missing),
            "other_inputs": other_inputs,
        },
        "embedded_constants": {
            "count": len(constants),
            "bytes": sum(c[0] for c in constants),
            "largest": None if largest is None else {"output": largest[1], "shape": largest[2], "dtype": largest[3],
                                                     "bytes": largest[0]},
        },
        "checker": "passed",
        "shape_inference": {
            "strict_error": inference_error,
            "all_static": not not_static,
            "values": sum(len([o for o in n.output if o]) for n in graph.node),
            "not_static": not_static[:200],
            "not_static_count": len(not_static),
            "not_static_by_op": dict(Counter(v.rsplit(" (", 1)[1].rstrip(")") for v in not_static)),
        },
    }


def convert(remat: Path, onnx_path: Path, out: Path, network: Network) -> Optional[str]:
    """Runs `remat convert`; returns None on success or why it failed."""
    target = out / f"{network.name}.json"
    command = [str(remat), "convert", str(onnx_path), str(target), "--batch", str(network.batch)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return None
    detail = (result.stderr or result.stdout).strip().splitlines()
    return f"`{' '.join(command)}` exited with {result.returncode}" + (f": {detail[0]}" if detail else "")


# --------------------------------------------------------------------------------------------------
# Manifest


def load_manifest(path: Path) -> Dict[str, dict]:
    if not path.exists():
        return {}
    try:
        return {entry["name"]: entry for entry in json.loads(path.read_text())["networks"]}
    except (ValueError, KeyError, TypeError):
        print(f"warning: {path} is not a manifest written by this script; it is replaced", file=sys.stderr)
        return {}


def write_manifest(path: Path, entries: Dict[str, dict]) -> None:
    order = [n.name for n in NETWORKS]
    networks = sorted(entries.values(), key=lambda e: order.index(e["name"]) if e["name"] in order else len(order))
    totals, users = Counter(), Counter()
    for entry in networks:
        for op, count in entry["onnx"]["op_types"].items():
            totals[op] += count
            users[op] += 1
    manifest = {
        "generator": "datasets/generate.py",
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__, "onnx": onnx.__version__},
        "opset": OPSET,
        "export_settings": EXPORT_SETTINGS,
        # Every op type across all networks: {op: {"nodes": total count, "networks": how many use it}}.
        "op_types": {op: {"nodes": totals[op], "networks": users[op]} for op in sorted(totals)},
        "networks": networks,
    }
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def manifest_entry(network: Network, onnx_info: dict) -> dict:
    return {
        "name": network.name,
        "description": network.description,
        "builder": network.builder,
        "batch": network.batch,
        "inputs": [spec.manifest() for spec in network.inputs],
        "loss": network.loss,
        "opset": OPSET,
        "export": dict(EXPORT_SETTINGS, input_names=[s.name for s in network.inputs], output_names=["loss"]),
        "onnx": onnx_info,
        "json": f"{network.name}.json",
    }


# --------------------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "datasets",
                        help="where the native JSON files and manifest.json go (default: datasets/)")
    parser.add_argument("--onnx-dir", type=Path, help="keep the ONNX files here (default: a temporary directory)")
    parser.add_argument("--remat", type=Path, default=REPO / "build" / "bin" / "remat",
                        help="the remat binary that converts ONNX (default: build/bin/remat)")
    parser.add_argument("--only", help="comma-separated network names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the networks and exit")
    parser.add_argument("--convert-only", action="store_true",
                        help="do not export: convert the ONNX files already in --onnx-dir (after a reader change)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    by_name = {n.name: n for n in NETWORKS}

    if args.list:
        for n in NETWORKS:
            data = n.inputs[0]
            print(f"{n.name:<14} batch {n.batch:<3} {data.name} {'x'.join(map(str, data.shape[1:]))}")
        return 0

    selected = NETWORKS
    if args.only:
        names = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [s for s in names if s not in by_name]
        if unknown:
            print(f"error: unknown network(s) {', '.join(unknown)}; --list shows them", file=sys.stderr)
            return 2
        selected = [n for n in NETWORKS if n.name in names]

    if args.convert_only:
        if args.onnx_dir is None or not args.remat.is_file():
            print("error: --convert-only needs --onnx-dir with the exported files and a remat binary", file=sys.stderr)
            return 2
        failures = []
        for network in selected:
            why = convert(args.remat, args.onnx_dir / f"{network.name}.onnx", args.out, network)
            print(f"{network.name}: {'conversion FAILED: ' + why if why else 'converted'}", flush=True)
            if why:
                failures.append(f"{network.name}: {why}")
        return 1 if failures else 0

    args.out.mkdir(parents=True, exist_ok=True)
    keep_onnx = args.onnx_dir is not None
    onnx_dir = args.onnx_dir if keep_onnx else Path(tempfile.mkdtemp(prefix="remat-onnx-"))
    onnx_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    entries = load_manifest(manifest_path)
    have_remat = args.remat.is_file()
    if not have_remat:
        print(f"note: no remat binary at {args.remat}; the ONNX files are not converted to native JSON")
    failures = []

    try:
        for network in selected:
            path = onnx_dir / f"{network.name}.onnx"
            print(f"{network.name}: exporting (batch {network.batch}) ...", flush=True)
            start = time.monotonic()
            try:
                model, messages = export(network, path)
                seconds = time.monotonic() - start
                info = inspect(network, path, model)
            except Exception as error:  # report and go on with the other networks
                failures.append(f"{network.name}: export/check failed: {type(error).__name__}: {error}")
                print(f"  FAILED: {type(error).__name__}: {str(error)[:2000]}", flush=True)
                entries.pop(network.name, None)
                continue
            finally:
                model = None
                gc.collect()
            entries[network.name] = manifest_entry(network, info)
            shapes = info["shape_inference"]
            print(f"  {info['nodes']} nodes, {info['bytes'] / 1024:.0f} KiB, {seconds:.1f} s, "
                  f"shapes {'all static' if shapes['all_static'] else str(shapes['not_static_count']) + ' not static'}, "
                  f"{info['initializers']} initializers, {info['parameters']['trainable_inputs']} parameter inputs",
                  flush=True)
            for message in messages:
                print(f"  torch warning: {message}")

            if not have_remat:
                failures.append(f"{network.name}: not converted (no remat binary at {args.remat})")
                continue
            why = convert(args.remat, path, args.out, network)
            if why:
                failures.append(f"{network.name}: conversion failed: {why}")
                print(f"  conversion FAILED: {why}", flush=True)
            else:
                print(f"  converted to {args.out / (network.name + '.json')}", flush=True)
    finally:
        write_manifest(manifest_path, entries)
        if not keep_onnx:
            shutil.rmtree(onnx_dir, ignore_errors=True)

    print(f"wrote {manifest_path}")
    if failures:
        print(f"\n{len(failures)} problem(s):", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
