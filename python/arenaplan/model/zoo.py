"""Built-in models with the published layer shapes and deterministic int8 weights.

They give arenaplan real work with nothing downloaded: the MLPerf Tiny
reference architectures (keyword spotting DS-CNN, visual wake words
MobileNetV1-0.25, CIFAR-10 ResNet-8, anomaly-detection autoencoder) built in
code. Weights come from a seeded generator, and quantisation parameters are
chosen so that activations stay inside the int8 range (so runs exercise
the arithmetic, not just saturation). They are not trained: accuracy is not
the point, shapes, memory and bit-exact arithmetic are.
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import InvalidArgument
from .model import Model, Operator, Quantization, Tensor

__all__ = ["names", "load", "GraphBuilder"]


def _conv_out(size: int, kernel: int, stride: int, dilation: int, padding: str) -> int:
    if padding == "SAME":
        return (size + stride - 1) // stride
    return (size - (kernel - 1) * dilation - 1) // stride + 1


class GraphBuilder:
    """Builds an int8 Model op by op, with TFLite's option names and semantics."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.tensors: List[Tensor] = []
        self.ops: List[Operator] = []
        self.inputs: List[int] = []

    # --- tensors --------------------------------------------------------------
    def _tensor(self, name: str, shape: Sequence[int], dtype: str = "int8",
                quant: Optional[Quantization] = None, data: Optional[np.ndarray] = None) -> int:
        t = Tensor(len(self.tensors), name, tuple(int(d) for d in shape), dtype, quant, data)
        self.tensors.append(t)
        return t.index

    def _act(self, name: str, shape: Sequence[int], scale: float, zero_point: int) -> int:
        return self._tensor(name, shape, "int8", Quantization((float(np.float32(scale)),), (int(zero_point),)))

    def input(self, shape: Sequence[int], scale: float = 0.05, zero_point: int = 0) -> int:
        t = self._act("input", shape, scale, zero_point)
        self.inputs.append(t)
        return t

    def _scale(self, t: int) -> float:
        return self.tensors[t].quantization.scale[0]

    def _op(self, op_type: str, inputs: Sequence[int], outputs: Sequence[int], **options) -> int:
        self.ops.append(Operator(len(self.ops), op_type, tuple(inputs), tuple(outputs), dict(options)))
        return outputs[0]

    def _weights(self, name: str, shape: Sequence[int], out_axis: int, fan_in: int,
                 x_scale: float) -> Tuple[int, int, float]:
        """int8 weights with per-channel scales, an int32 bias; returns (w, b, output scale).

        Quantised values have a spread of about 40 (weights) and 30 (activations), so an
        accumulator of fan_in products spreads over about 30 * 40 * sqrt(fan_in). Filter
        scales of 1 / (40 * sqrt(fan_in)) keep the real-valued activations at a steady
        magnitude from layer to layer, and the output scale maps the accumulator's spread
        to about 30 output steps, so every layer's scale equals its input's.
        """
        q = np.clip(np.rint(self.rng.normal(0.0, 40.0, size=shape)), -127, 127).astype(np.int8)
        channels = shape[out_axis]
        w_base = 1.0 / (40.0 * math.sqrt(fan_in))
        w_scales = (self.rng.uniform(0.8, 1.2, size=channels) * w_base).astype(np.float32)
        w = self._tensor(f"{name}/weights", shape, "int8",
                         Quantization(tuple(float(s) for s in w_scales), (0,) * channels, out_axis), q)
        b_scales = (np.float32(x_scale) * w_scales).astype(np.float32)
        spread = 30.0 * 40.0 * math.sqrt(fan_in)
        bias = np.rint(self.rng.normal(0.0, spread / 4.0, size=channels)).astype(np.int32)
        b = self._tensor(f"{name}/bias", (channels,), "int32",
                         Quantization(tuple(float(s) for s in b_scales), (0,) * channels), bias)
        y_scale = float(x_scale) * w_base * spread / 30.0
        return w, b, y_scale

    @staticmethod
    def _out_zero_point(activation: str) -> int:
        return -128 if activation in ("RELU", "RELU6") else 0

    # --- ops --------------------------------------------------------------------
    def conv2d(self, x: int, out_c: int, kernel: Tuple[int, int], stride: int = 1,
               padding: str = "SAME", activation: str = "RELU", name: str = "conv") -> int:
        n, h, w, c = self.tensors[x].shape
        kh, kw = kernel
        wt, b, y_scale = self._weights(name, (out_c, kh, kw, c), 0, kh * kw * c, self._scale(x))
        oh, ow = _conv_out(h, kh, stride, 1, padding), _conv_out(w, kw, stride, 1, padding)
        y = self._act(name, (n, oh, ow, out_c), y_scale, self._out_zero_point(activation))
        return self._op("CONV_2D", (x, wt, b), (y,), padding=padding, stride_h=stride, stride_w=stride,
                        dilation_h_factor=1, dilation_w_factor=1, fused_activation_function=activation)

    def depthwise(self, x: int, kernel: Tuple[int, int] = (3, 3), stride: int = 1, multiplier: int = 1,
                  padding: str = "SAME", activation: str = "RELU", name: str = "dw") -> int:
        n, h, w, c = self.tensors[x].shape
        kh, kw = kernel
        out_c = c * multiplier
        wt, b, y_scale = self._weights(name, (1, kh, kw, out_c), 3, kh * kw, self._scale(x))
        oh, ow = _conv_out(h, kh, stride, 1, padding), _conv_out(w, kw, stride, 1, padding)
        y = self._act(name, (n, oh, ow, out_c), y_scale, self._out_zero_point(activation))
        return self._op("DEPTHWISE_CONV_2D", (x, wt, b), (y,), padding=padding, stride_h=stride,
                        stride_w=stride, depth_multiplier=multiplier, dilation_h_factor=1,
                        dilation_w_factor=1, fused_activation_function=activation)

    def fully_connected(self, x: int, units: int, activation: str = "NONE", name: str = "fc") -> int:
        shape = self.tensors[x].shape
        depth = shape[-1]
        batch = int(np.prod(shape[:-1]))
        wt, b, y_scale = self._weights(name, (units, depth), 0, depth, self._scale(x))
        # Keep FC per-tensor, as TFLite's converter emits it.
        wq = self.tensors[wt].quantization
        self.tensors[wt].quantization = Quantization((wq.scale[0],), (0,))
        bq = self.tensors[b].quantization
        self.tensors[b].quantization = Quantization((bq.scale[0],), (0,))
        y = self._act(name, (batch, units), y_scale, self._out_zero_point(activation))
        return self._op("FULLY_CONNECTED", (x, wt, b), (y,), fused_activation_function=activation,
                        keep_num_dims=False, weights_format=0)

    def avgpool(self, x: int, size: Tuple[int, int], stride: int = 1, padding: str = "VALID",
                name: str = "pool") -> int:
        n, h, w, c = self.tensors[x].shape
        q = self.tensors[x].quantization
        oh, ow = _conv_out(h, size[0], stride, 1, padding), _conv_out(w, size[1], stride, 1, padding)
        y = self._act(name, (n, oh, ow, c), q.scale[0], q.zero_point[0])
        return self._op("AVERAGE_POOL_2D", (x,), (y,), padding=padding, stride_h=stride, stride_w=stride,
                        filter_height=size[0], filter_width=size[1], fused_activation_function="NONE")

    def reshape(self, x: int, shape: Sequence[int], name: str = "reshape") -> int:
        q = self.tensors[x].quantization
        new_shape = self._tensor(f"{name}/shape", (len(shape),), "int32", None,
                                 np.array(shape, dtype=np.int32))
        y = self._act(name, shape, q.scale[0], q.zero_point[0])
        return self._op("RESHAPE", (x, new_shape), (y,), new_shape=tuple(int(d) for d in shape))

    def add(self, a: int, b: int, activation: str = "RELU", name: str = "add") -> int:
        scale = 1.5 * max(self._scale(a), self._scale(b))
        y = self._act(name, self.tensors[a].shape, scale, self._out_zero_point(activation))
        return self._op("ADD", (a, b), (y,), fused_activation_function=activation, pot_scale_int16=False)

    def softmax(self, x: int, name: str = "softmax") -> int:
        y = self._act(name, self.tensors[x].shape, 1.0 / 256.0, -128)
        return self._op("SOFTMAX", (x,), (y,), beta=1.0)

    def build(self, output: int) -> Model:
        return Model(self.name, self.tensors, self.ops, tuple(self.inputs), (output,),
                     source=f"zoo:{self.name}")


# --- the architectures --------------------------------------------------------------
def _ds_cnn(seed: int) -> Model:
    """MLPerf Tiny keyword spotting DS-CNN: 49x10 MFCC in, 12 classes out."""
    g = GraphBuilder("ds_cnn", seed)
    x = g.input((1, 49, 10, 1), scale=0.5, zero_point=0)
    x = g.conv2d(x, 64, (10, 4), stride=2, name="conv0")
    for i in range(4):
        x = g.depthwise(x, (3, 3), name=f"dw{i + 1}")
        x = g.conv2d(x, 64, (1, 1), name=f"pw{i + 1}")
    x = g.avgpool(x, (25, 5))
    x = g.reshape(x, (1, 64))
    x = g.fully_connected(x, 12)
    return g.build(g.softmax(x))


def _mobilenet_v1_025(seed: int) -> Model:
    """MLPerf Tiny visual wake words MobileNetV1 (alpha 0.25), 96x96x3 in, 2 classes out."""
    g = GraphBuilder("mobilenet_v1_025", seed)
    x = g.input((1, 96, 96, 3), scale=1.0 / 128.0, zero_point=0)
    x = g.conv2d(x, 8, (3, 3), stride=2, activation="RELU6", name="conv0")
    blocks = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128)] + [(1, 128)] * 5 + [(2, 256), (1, 256)]
    for i, (stride, out_c) in enumerate(blocks):
        x = g.depthwise(x, (3, 3), stride=stride, activation="RELU6", name=f"dw{i + 1}")
        x = g.conv2d(x, out_c, (1, 1), activation="RELU6", name=f"pw{i + 1}")
    x = g.avgpool(x, (3, 3))
    x = g.reshape(x, (1, 256))
    x = g.fully_connected(x, 2)
    return g.build(g.softmax(x))


def _resnet8(seed: int) -> Model:
    """MLPerf Tiny image classification ResNet-8: 32x32x3 CIFAR-10 in, 10 classes out."""
    g = GraphBuilder("resnet8", seed)
    x = g.input((1, 32, 32, 3), scale=1.0 / 128.0, zero_point=0)
    x = g.conv2d(x, 16, (3, 3), name="conv0")
    for stack, (filters, stride) in enumerate([(16, 1), (32, 2), (64, 2)]):
        y = g.conv2d(x, filters, (3, 3), stride=stride, name=f"s{stack}/conv1")
        y = g.conv2d(y, filters, (3, 3), activation="NONE", name=f"s{stack}/conv2")
        if stride != 1:
            x = g.conv2d(x, filters, (1, 1), stride=stride, activation="NONE", name=f"s{stack}/shortcut")
        x = g.add(x, y, name=f"s{stack}/add")
    x = g.avgpool(x, (8, 8))
    x = g.reshape(x, (1, 64))
    x = g.fully_connected(x, 10)
    return g.build(g.softmax(x))


def _autoencoder(seed: int) -> Model:
    """MLPerf Tiny anomaly detection autoencoder: 640 in, 640 out, 8-wide bottleneck."""
    g = GraphBuilder("autoencoder", seed)
    x = g.input((1, 640), scale=0.05, zero_point=0)
    for i, units in enumerate([128, 128, 128, 128, 8, 128, 128, 128, 128]):
        x = g.fully_connected(x, units, activation="RELU", name=f"dense{i}")
    x = g.fully_connected(x, 640, name="dense_out")
    return g.build(x)


_BUILDERS: Dict[str, Callable[[int], Model]] = {
    "ds_cnn": _ds_cnn,
    "mobilenet_v1_025": _mobilenet_v1_025,
    "resnet8": _resnet8,
    "autoencoder": _autoencoder,
}

#: The model the command line uses when none is given.
DEFAULT = "ds_cnn"


def names() -> List[str]:
    """Names of the built-in models."""
    return list(_BUILDERS)


def load(name: str = DEFAULT, seed: int = 0) -> Model:
    """Build a zoo model; the same (name, seed) always gives the same weights."""
    if name not in _BUILDERS:
        raise InvalidArgument(f"unknown zoo model {name!r}; choose one of {', '.join(_BUILDERS)}")
    return _BUILDERS[name](seed)
