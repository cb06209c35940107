#!/usr/bin/env python3
"""Writes datasets/unet-small.json: a small U-Net (Ronneberger et al. 2015, same-padding variant) in
Remat's native graph format, the default graph of scripts/run.sh.

Depth 3, 16 base channels, batch 4, one 1x128x128 input channel, 2 classes, float32. Sizes are exact
tensor sizes; `saves` follow PyTorch's autograd (convolutions keep input and weight, ReLU keeps its
output, max-pool keeps input and output indices (counted as its output), concatenation keeps
nothing, the loss keeps its logits); times follow the paper's cost model (10 for convolutions, 1
otherwise). Run: python3 datasets/tools/make_unet_small.py > datasets/unet-small.json
"""
import json
import sys

BATCH, CHANNELS, SIZE, BASE, DEPTH, CLASSES = 4, 1, 128, 16, 3, 2
F32 = 4

nodes = []


def tensor_bytes(shape):
    n = F32
    for d in shape:
        n *= d
    return n


def add_input(name, shape):
    nodes.append({"id": name, "kind": "input", "bytes": tensor_bytes(shape), "shape": shape, "dtype": "float32"})
    return name, shape


def add_param(name, shape):
    nodes.append({"id": name, "kind": "param", "bytes": tensor_bytes(shape), "shape": shape, "dtype": "float32"})
    return name


def add_op(name, op, inputs, shape, saves_inputs, saves_output, attrs=None):
    time = 10 if op.startswith("Conv") else 1
    node = {"id": name, "kind": "op", "op": op, "inputs": inputs, "bytes": tensor_bytes(shape), "shape": shape,
            "dtype": "float32", "fwd_time": time, "bwd_time": time,
            "saves": {"inputs": saves_inputs, "output": saves_output}}
    if attrs:
        node["attrs"] = attrs
    nodes.append(node)
    return name, shape


def conv(name, x, out_channels, kernel, padding):
    (xn, xs) = x
    w = add_param(name + "/W", [out_channels, xs[1], kernel, kernel])
    b = add_param(name + "/b", [out_channels])
    shape = [xs[0], out_channels, xs[2] + 2 * padding - kernel + 1, xs[3] + 2 * padding - kernel + 1]
    return add_op(name, "Conv", [xn, w, b], shape, [0, 1], False,
                  {"kernel_shape": [kernel, kernel], "pads": [padding] * 4, "strides": [1, 1]})


def relu(name, x):
    return add_op(name, "Relu", [x[0]], x[1], [], True)


def block(name, x, channels):
    x = relu(name + "/relu1", conv(name + "/conv1", x, channels, 3, 1))
    return relu(name + "/relu2", conv(name + "/conv2", x, channels, 3, 1))


x = add_input("image", [BATCH, CHANNELS, SIZE, SIZE])
label = add_input("label", [BATCH, SIZE, SIZE])
skips = []
for level in range(DEPTH):
    x = block(f"down{level}", x, BASE << level)
    skips.append(x)
    s = x[1]
    x = add_op(f"down{level}/pool", "MaxPool", [x[0]], [s[0], s[1], s[2] // 2, s[3] // 2], [0], True,
               {"kernel_shape": [2, 2], "strides": [2, 2]})
x = block("bottom", x, BASE << DEPTH)
for level in reversed(range(DEPTH)):
    s = x[1]
    channels = BASE << level
    w = add_param(f"up{level}/upconv/W", [s[1], channels, 2, 2])
    x = add_op(f"up{level}/upconv", "ConvTranspose", [x[0], w], [s[0], channels, s[2] * 2, s[3] * 2], [0, 1], False,
               {"kernel_shape": [2, 2], "strides": [2, 2]})
    skip = skips[level]
    x = add_op(f"up{level}/concat", "Concat", [skip[0], x[0]], [s[0], 2 * channels, s[2] * 2, s[3] * 2], [], False,
               {"axis": 1})
    x = block(f"up{level}", x, channels)
logits = conv("head", x, CLASSES, 1, 0)
add_op("loss", "SoftmaxCrossEntropy", [logits[0], label[0]], [], [0, 1], False)

json.dump({"format": "remat-graph", "version": 1, "name": "unet-small", "time_unit": "ticks",
           "cost_model": "paper", "nodes": nodes}, sys.stdout, indent=1)
sys.stdout.write("\n")
