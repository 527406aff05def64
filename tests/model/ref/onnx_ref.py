#!/usr/bin/python3
"""The float64 NumPy reference of the ONNX operators npukit reads (src/model/ops.def).

Every operator of the list is computed here in float64 (integer tensors keep their integer
type), written from the ONNX operator documentation; the lowerings to the NPUs are checked
against it. ONNX files cannot be read without the onnx module, so the reference runs a model
from its sidecar NAME.npz, which the export scripts in models/onnx write beside NAME.onnx:
the initializers and tensor attributes as arrays, and `graph`, a JSON string of the opset, the
graph's inputs and outputs and the nodes (op, name, inputs, outputs, attributes) in
topological order (models/onnx/README.md documents it). Needs NumPy only.

  onnx_ref.py MODEL.npz --input X.npy --output Y.npy   run the model on X, write Y (float64)
  onnx_ref.py MODEL.npz --input X.npy --compare Y.npy --atol A --rtol R
                                                       compare Y (an NPU's output) with it
  onnx_ref.py MODEL.npz --accuracy                     accuracy on the 10,000 Fashion-MNIST
                                                       test images (pixels / 255)

Conventions where ONNX leaves a choice (the lowerings must match them):
- QuantizeLinear, QLinearMatMul, QLinearConv round half to even (np.rint) and saturate to the
  output type's range; the quantised products are accumulated exactly (int64, or float64 with
  integer values below 2^53) and scaled once by a_scale * b_scale / y_scale computed in
  float64.
- AveragePool with ceil_mode: a window that starts inside the input but runs past the padded
  end averages over the part inside [-pad_begin, I + pad_end) with count_include_pad=1, over
  the part inside the input with count_include_pad=0.
- MaxPool's Indices (storage_order 0): on a tie, the first position in row-major window order.
- Erf is math.erf element by element (float64 to within an ulp or two).
"""

import argparse
import gzip
import json
import math
import os
import struct
import sys

import numpy as np

DATA_DIR = "/usr/share/datasets/fashion-mnist"
SIDECAR_FORMAT = "npukit-onnx-sidecar-1"


class RefError(Exception):
    """A bad model, input or file: the message names it."""


# ---------------------------------------------------------------------------------------------
# helpers


def _is_float(a):
    return np.issubdtype(a.dtype, np.floating)


def _f64(a):
    """Float tensors are computed in float64; integer tensors keep their type."""
    return a.astype(np.float64) if _is_float(a) else a


def _need_float(op, a):
    if not _is_float(a):
        raise RefError("%s needs a float input, not %s" % (op, a.dtype))
    return a.astype(np.float64)


def _axis(axis, rank, op):
    if not -rank <= axis < rank:
        raise RefError("%s: axis %d out of range for rank %d" % (op, axis, rank))
    return axis % rank


def _saturate(v, dtype):
    """Integer values (already rounded) clipped to dtype's range and converted."""
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max).astype(dtype)


def _per_axis(p, x, axis, op):
    """A scale or zero point: a scalar (per tensor) or 1-D of x's length along axis, shaped
    to broadcast against x."""
    p = np.asarray(p)
    if p.size == 1 and p.ndim <= 1:
        return p.reshape(())
    a = _axis(axis, x.ndim, op)
    if p.ndim != 1 or p.shape[0] != x.shape[a]:
        raise RefError("%s: a per-axis parameter of shape %s does not fit axis %d of %s"
                       % (op, list(p.shape), a, list(x.shape)))
    shape = [1] * x.ndim
    shape[a] = p.shape[0]
    return p.reshape(shape)


# ---------------------------------------------------------------------------------------------
# windows (Conv, QLinearConv, MaxPool, AveragePool): 2-D, NCHW


def _window_geometry(op, spatial, kernel, attrs, ceil_mode=False):
    """Per spatial dimension: (pad_begin, pad_end, extra_end, out, stride, dilation)."""
    nd = len(spatial)
    strides = attrs.get("strides", [1] * nd)
    dil = attrs.get("dilations", [1] * nd)
    pads = attrs.get("pads", [0] * (2 * nd))
    auto_pad = attrs.get("auto_pad", "NOTSET")
    if len(strides) != nd or len(dil) != nd or len(pads) != 2 * nd:
        raise RefError("%s: strides, dilations or pads of the wrong length" % op)
    geo = []
    for i in range(nd):
        size, k, s, d = spatial[i], kernel[i], strides[i], dil[i]
        if k < 1 or s < 1 or d < 1:
            raise RefError("%s: kernel, stride and dilation must be at least 1" % op)
        eff = d * (k - 1) + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out = -(-size // s)
            total = max((out - 1) * s + eff - size, 0)
            small = total // 2
            pb, pe = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small, small)
        elif auto_pad in ("NOTSET", "VALID"):
            pb, pe = (pads[i], pads[i + nd]) if auto_pad == "NOTSET" else (0, 0)
            span = size + pb + pe - eff
            if span < 0:
                raise RefError("%s: the window (%d) is larger than the padded input (%d)"
                               % (op, eff, size + pb + pe))
            out = (-(-span // s) if ceil_mode else span // s) + 1
            if ceil_mode and (out - 1) * s >= size + pb:
                out -= 1  # a last window starting in the end padding is dropped
        else:
            raise RefError("%s: auto_pad '%s' unknown" % (op, auto_pad))
        extra = max((out - 1) * s + eff - (size + pb + pe), 0)
        geo.append((pb, pe, extra, out, s, d))
    return geo


def _padded(x, geo, value):
    """x (N, C, H, W) padded by the geometry's pads and ceil-mode extra."""
    widths = [(0, 0), (0, 0)] + [(g[0], g[1] + g[2]) for g in geo]
    return np.pad(x, widths, mode="constant", constant_values=value)


def _taps(geo, kernel):
    """Every kernel offset (i, j) with the slices of the padded input it sees."""
    (_, _, _, oh, sh, dh), (_, _, _, ow, sw, dw) = geo
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            yield i, j, (slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                         slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _conv_core(op, x, w, attrs):
    """float64 convolution without bias: x (N, C, H, W), w (M, C/group, kH, kW)."""
    if x.ndim != 4 or w.ndim != 4:
        raise RefError("%s: only 2-D convolutions (4-D X and W), not %d-D and %d-D"
                       % (op, x.ndim, w.ndim))
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    group = attrs.get("group", 1)
    if group < 1 or c % group or m % group or c // group != cg:
        raise RefError("%s: %d channels, group %d and W of shape %s do not fit"
                       % (op, c, group, list(w.shape)))
    kernel = list(w.shape[2:])
    if "kernel_shape" in attrs and list(attrs["kernel_shape"]) != kernel:
        raise RefError("%s: kernel_shape %s differs from W's %s" % (op, attrs["kernel_shape"], kernel))
    geo = _window_geometry(op, x.shape[2:], kernel, attrs)
    xp = _padded(x, geo, 0.0)
    y = np.zeros((n, m, geo[0][3], geo[1][3]))
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * mg:(g + 1) * mg]
        for i, j, (si, sj) in _taps(geo, kernel):
            # (mg, cg) . (n, cg, oh, ow) over the channels -> (mg, n, oh, ow)
            y[:, g * mg:(g + 1) * mg] += np.tensordot(ws[:, :, i, j], xs[:, :, si, sj],
                                                      axes=([1], [1])).transpose(1, 0, 2, 3)
    return y


def _pool(op, x, attrs):
    if x.ndim != 4:
        raise RefError("%s: only 2-D pooling (a 4-D input), not %d-D" % (op, x.ndim))
    kernel = attrs.get("kernel_shape")
    if kernel is None or len(kernel) != 2:
        raise RefError("%s: kernel_shape must name 2 dimensions" % op)
    geo = _window_geometry(op, x.shape[2:], kernel, attrs, attrs.get("ceil_mode", 0) != 0)
    return geo, kernel


# ---------------------------------------------------------------------------------------------
# the operators: f(inputs, attrs, opset) -> list of outputs; inputs[i] is None when omitted


def op_gemm(ins, at, _):
    a, b = _f64(ins[0]), _f64(ins[1])
    if a.ndim != 2 or b.ndim != 2:
        raise RefError("Gemm: A and B must be matrices")
    if at.get("transA", 0):
        a = a.T
    if at.get("transB", 0):
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise RefError("Gemm: inner dimensions differ: %d and %d" % (a.shape[1], b.shape[0]))
    y = at.get("alpha", 1.0) * (a @ b)
    if len(ins) > 2 and ins[2] is not None:
        y = y + at.get("beta", 1.0) * _f64(ins[2])
    return [y]


def op_matmul(ins, _, __):
    return [np.matmul(_f64(ins[0]), _f64(ins[1]))]


def _int_div(a, b):
    q = np.abs(a) // np.abs(b)  # truncation toward zero, as C
    return (np.sign(a) * np.sign(b) * q).astype(np.result_type(a, b))


BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Div": lambda a, b: a / b if _is_float(a) else _int_div(a, b),
}


def op_binary(name):
    def f(ins, _, __):
        return [BINARY[name](_f64(ins[0]), _f64(ins[1]))]
    return f


def op_pow(ins, _, __):
    x = _f64(ins[0])
    return [np.power(x, _f64(ins[1]).astype(x.dtype))]


def op_relu(ins, _, __):
    x = _f64(ins[0])
    return [np.maximum(x, np.zeros((), x.dtype))]


def op_leaky_relu(ins, at, _):
    x = _need_float("LeakyRelu", ins[0])
    return [np.where(x >= 0, x, at.get("alpha", 0.01) * x)]


_erf = np.vectorize(math.erf, otypes=[np.float64])


def op_erf(ins, _, __):
    return [_erf(_need_float("Erf", ins[0]))]


def op_gelu(ins, at, _):
    x = _need_float("Gelu", ins[0])
    approx = at.get("approximate", "none")
    if approx == "none":
        return [0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))]
    if approx == "tanh":
        return [0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))]
    raise RefError("Gelu: approximate '%s' unknown" % approx)


def op_sigmoid(ins, _, __):
    x = _need_float("Sigmoid", ins[0])
    e = np.exp(-np.abs(x))  # no overflow for either sign
    return [np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))]


def op_unary(name, f):
    return lambda ins, _, __: [f(_need_float(name, ins[0]))]


def _softmax_last(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def op_softmax(ins, at, opset):
    x = _need_float("Softmax", ins[0])
    if opset >= 13:
        a = _axis(at.get("axis", -1), x.ndim, "Softmax")
        return [np.moveaxis(_softmax_last(np.moveaxis(x, a, -1)), -1, a)]
    # before opset 13: the input is coerced to 2-D at axis, the softmax runs over the rows
    a = at.get("axis", 1)
    a = a % x.ndim if -x.ndim <= a < 0 else a
    if not 0 <= a <= x.ndim:
        raise RefError("Softmax: axis %d out of range" % a)
    rows = int(np.prod(x.shape[:a], dtype=np.int64))
    return [_softmax_last(x.reshape(rows, -1)).reshape(x.shape)]


def op_layer_norm(ins, at, _):
    x = _need_float("LayerNormalization", ins[0])
    a = _axis(at.get("axis", -1), x.ndim, "LayerNormalization")
    axes = tuple(range(a, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    d = x - mean
    inv = 1.0 / np.sqrt((d * d).mean(axis=axes, keepdims=True) + at.get("epsilon", 1e-5))
    y = d * inv * _f64(ins[1])
    if len(ins) > 2 and ins[2] is not None:
        y = y + _f64(ins[2])
    return [y, mean, inv]


def op_reduce_mean(ins, at, opset):
    x = _need_float("ReduceMean", ins[0])
    if opset >= 18:
        axes = ins[1] if len(ins) > 1 and ins[1] is not None else None
        axes = None if axes is None or axes.size == 0 else [int(v) for v in axes.reshape(-1)]
        if axes is None and at.get("noop_with_empty_axes", 0):
            return [x]
    else:
        axes = at.get("axes")
    axes = tuple(range(x.ndim)) if axes is None else tuple(
        sorted({_axis(v, x.ndim, "ReduceMean") for v in axes}))
    return [x.mean(axis=axes, keepdims=bool(at.get("keepdims", 1)))]


def op_conv(ins, at, _):
    x, w = _need_float("Conv", ins[0]), _need_float("Conv", ins[1])
    y = _conv_core("Conv", x, w, at)
    if len(ins) > 2 and ins[2] is not None:
        y += _f64(ins[2]).reshape(1, -1, 1, 1)
    return [y]


def op_max_pool(ins, at, _):
    x = _f64(ins[0])
    geo, kernel = _pool("MaxPool", x, at)
    if at.get("storage_order", 0):
        raise RefError("MaxPool: storage_order 1 (column-major indices) is not modelled")
    low = -np.inf if _is_float(x) else np.iinfo(x.dtype).min
    xp = _padded(x, geo, low)
    n, c, h, w = x.shape
    # the flat index (n, c, h, w) of every padded position; pads get -1
    idx = _padded(np.arange(n * c * h * w, dtype=np.int64).reshape(x.shape), geo, -1)
    y = ind = None
    for _, _, (si, sj) in _taps(geo, kernel):
        v, k = xp[:, :, si, sj], idx[:, :, si, sj]
        if y is None:
            y, ind = v.copy(), k.copy()
        else:
            better = v > y  # the first maximum in window order is kept
            y = np.where(better, v, y)
            ind = np.where(better, k, ind)
    return [y, ind]


def op_avg_pool(ins, at, _):
    x = _need_float("AveragePool", ins[0])
    geo, kernel = _pool("AveragePool", x, at)
    xp = _padded(x, geo, 0.0)
    inside = np.ones((1, 1) + x.shape[2:])
    if at.get("count_include_pad", 0):
        # the explicit pads count, the ceil-mode extra does not
        inside = np.pad(inside, [(0, 0), (0, 0)] + [(g[0], g[1]) for g in geo], constant_values=1)
        mask = np.pad(inside, [(0, 0), (0, 0)] + [(0, g[2]) for g in geo])
    else:
        mask = _padded(inside, geo, 0.0)
    total = count = 0.0
    for _, _, (si, sj) in _taps(geo, kernel):
        total = total + xp[:, :, si, sj]
        count = count + mask[:, :, si, sj]
    return [total / count]


def op_flatten(ins, at, _):
    x = ins[0]
    a = at.get("axis", 1)
    if not -x.ndim <= a <= x.ndim:
        raise RefError("Flatten: axis %d out of range for rank %d" % (a, x.ndim))
    a = a + x.ndim if a < 0 else a
    return [x.reshape(int(np.prod(x.shape[:a], dtype=np.int64)),
                      int(np.prod(x.shape[a:], dtype=np.int64)))]


def op_reshape(ins, at, _):
    x, shape = ins[0], [int(v) for v in np.asarray(ins[1]).reshape(-1)]
    if not at.get("allowzero", 0):
        shape = [x.shape[i] if v == 0 and i < x.ndim else v for i, v in enumerate(shape)]
    if shape.count(-1) > 1:
        raise RefError("Reshape: more than one -1 in %s" % shape)
    try:
        return [x.reshape(shape)]
    except ValueError:
        raise RefError("Reshape: %s cannot become %s" % (list(x.shape), shape))


def op_transpose(ins, at, _):
    x = ins[0]
    perm = at.get("perm", list(range(x.ndim))[::-1])
    if sorted(perm) != list(range(x.ndim)):
        raise RefError("Transpose: perm %s is not a permutation of %d axes" % (perm, x.ndim))
    return [np.transpose(x, perm)]


def op_identity(ins, _, __):
    return [ins[0]]


def op_shape(ins, at, _):
    r = ins[0].ndim
    start, end = at.get("start", 0), at.get("end", r)
    start, end = (v + r if v < 0 else v for v in (start, end))
    start, end = (min(max(v, 0), r) for v in (start, end))
    return [np.array(ins[0].shape[start:end], dtype=np.int64)]


def op_gather(ins, at, _):
    x, idx = ins[0], np.asarray(ins[1]).astype(np.int64)
    a = _axis(at.get("axis", 0), x.ndim, "Gather")
    d = x.shape[a]
    if idx.size and (idx.min() < -d or idx.max() >= d):
        raise RefError("Gather: an index is out of range for dimension %d" % d)
    return [np.take(x, np.where(idx < 0, idx + d, idx), axis=a)]


def _axes(ins, at, opset, op):
    if opset >= 13:
        return None if len(ins) < 2 or ins[1] is None else [int(v) for v in ins[1].reshape(-1)]
    return at.get("axes")


def op_unsqueeze(ins, at, opset):
    x, axes = ins[0], _axes(ins, at, opset, "Unsqueeze")
    if not axes:
        raise RefError("Unsqueeze: no axes")
    r = x.ndim + len(axes)
    axes = sorted(_axis(a, r, "Unsqueeze") for a in axes)
    if len(set(axes)) != len(axes):
        raise RefError("Unsqueeze: an axis is named twice")
    for a in axes:
        x = np.expand_dims(x, a)
    return [x]


def op_squeeze(ins, at, opset):
    x, axes = ins[0], _axes(ins, at, opset, "Squeeze")
    if axes is None:
        return [x.reshape([d for d in x.shape if d != 1])]
    axes = [_axis(a, x.ndim, "Squeeze") for a in axes]
    if any(x.shape[a] != 1 for a in axes):
        raise RefError("Squeeze: an axis is not of size 1")
    return [np.squeeze(x, axis=tuple(axes))]


def op_concat(ins, at, _):
    if "axis" not in at:
        raise RefError("Concat: no axis")
    a = _axis(at["axis"], ins[0].ndim, "Concat")
    try:
        return [np.concatenate(ins, axis=a)]
    except ValueError as e:
        raise RefError("Concat: %s" % e)


def op_constant(_, at, __):
    if "value" in at:
        return [at["value"]]
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in at:
            return [np.array(at[key], dtype=dtype)]
    raise RefError("Constant: no value attribute the reference knows")


def op_constant_of_shape(ins, at, _):
    shape = [int(d) for d in np.asarray(ins[0]).reshape(-1)]
    if any(d < 0 for d in shape):
        raise RefError("ConstantOfShape: a negative dimension")
    v = np.asarray(at.get("value", np.zeros(1, np.float32)))
    if v.size != 1:
        raise RefError("ConstantOfShape: the value has %d elements" % v.size)
    return [np.full(shape, v.reshape(-1)[0], dtype=v.dtype)]


def op_slice(ins, at, opset):
    x = ins[0]
    if opset >= 10:
        get = lambda k: None if len(ins) <= k or ins[k] is None else [int(v) for v in ins[k].reshape(-1)]
        starts, ends, axes, steps = get(1), get(2), get(3), get(4)
    else:
        starts, ends, axes, steps = at.get("starts"), at.get("ends"), at.get("axes"), None
    if starts is None or ends is None or len(starts) != len(ends):
        raise RefError("Slice: starts and ends are required, of one length")
    axes = list(range(len(starts))) if axes is None else [_axis(a, x.ndim, "Slice") for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    idx = [slice(None)] * x.ndim
    for a, b, e, s in zip(axes, starts, ends, steps):
        if s == 0:
            raise RefError("Slice: step 0")
        # Python's slice clamps as ONNX does; None stands for "past the end" after clamping
        d = x.shape[a]
        b = max(b + d, 0) if b < 0 else b
        b = min(b, d - 1) if s < 0 else b
        e = e + d if e < 0 else e
        if e < 0:   # before the first element: through it (negative step) or nothing
            e = None if s < 0 else 0
        idx[a] = slice(b, e, s)
    return [x[tuple(idx)]]


_CAST = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_,
         11: np.float64}


def op_cast(ins, at, _):
    to = at.get("to")
    if to not in _CAST:
        raise RefError("Cast: element type %r not supported" % to)
    x = ins[0]
    t = _CAST[to]
    if _is_float(x) and np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        tr = np.trunc(x.astype(np.float64))
        if np.isnan(tr).any() or tr.min(initial=0) < info.min or tr.max(initial=0) > info.max:
            raise RefError("Cast: a value does not fit %s" % np.dtype(t).name)
    return [x.astype(t)]


def op_pad(ins, at, opset):
    x = ins[0]
    if at.get("mode", "constant") not in ("constant", b"constant"):
        raise RefError("Pad: mode %r is not supported" % at.get("mode"))
    if opset >= 11:
        pads = [int(v) for v in ins[1].reshape(-1)]
        value = 0 if len(ins) < 3 or ins[2] is None else ins[2].reshape(-1)[0]
        if len(ins) > 3 and ins[3] is not None:
            raise RefError("Pad: the axes input is not supported")
    else:
        pads, value = at.get("pads"), at.get("value", 0.0)
    r = x.ndim
    if pads is None or len(pads) != 2 * r or min(pads) < 0:
        raise RefError("Pad: pads must be 2 * rank non-negative integers")
    if value != 0:
        raise RefError("Pad: only the value 0 is supported")
    return [np.pad(x, [(pads[i], pads[i + r]) for i in range(r)], mode="constant")]


def op_quantize(ins, at, _):
    x = _f64(ins[0])
    zp = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), np.uint8)
    if zp.dtype not in (np.int8, np.uint8):
        raise RefError("QuantizeLinear: only int8 and uint8 outputs, not %s" % zp.dtype)
    axis = at.get("axis", 1)
    scale = _per_axis(_f64(ins[1]), x, axis, "QuantizeLinear")
    zpb = _per_axis(zp, x, axis, "QuantizeLinear").astype(np.float64)
    return [_saturate(np.rint(x / scale) + zpb, zp.dtype)]


def op_dequantize(ins, at, _):
    x = ins[0]
    axis = at.get("axis", 1)
    zp = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), x.dtype)
    scale = _per_axis(_f64(ins[1]), x, axis, "DequantizeLinear")
    zpb = _per_axis(zp, x, axis, "DequantizeLinear")
    return [(x.astype(np.int64) - zpb.astype(np.int64)) * scale]


def _qparam(p, rank, where, op):
    """QLinearMatMul's scale or zero point: a scalar, or per row of a (where=-2) or per column
    of b (where=-1): 1-D, or N-D with a 1 in the other matrix dimension."""
    p = np.asarray(p)
    if p.size == 1:
        return p.reshape(())
    if p.ndim == 1:
        shape = [1] * max(rank, 2)
        shape[where] = p.shape[0]
        return p.reshape(shape)
    return p


def op_qlinear_matmul(ins, _, __):
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = ins[:8]
    op = "QLinearMatMul"
    acc = np.matmul(a.astype(np.int64) - _qparam(a_zp, a.ndim, -2, op).astype(np.int64),
                    b.astype(np.int64) - _qparam(b_zp, b.ndim, -1, op).astype(np.int64))
    mult = (_qparam(_f64(a_s), a.ndim, -2, op) * _qparam(_f64(b_s), b.ndim, -1, op)
            / _f64(y_s).reshape(()))
    return [_saturate(np.rint(acc * mult) + y_zp.astype(np.float64).reshape(()), y_zp.dtype)]


def op_qlinear_conv(ins, at, _):
    x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp = ins[:8]
    op = "QLinearConv"
    m = w.shape[0]
    w_zp = np.asarray(w_zp).astype(np.float64)
    w_zp = w_zp.reshape(()) if w_zp.size == 1 else w_zp.reshape(m, 1, 1, 1)
    # integer values: the float64 accumulation is exact (|sum| far below 2^53)
    acc = _conv_core(op, x.astype(np.float64) - np.float64(np.asarray(x_zp).reshape(())),
                     w.astype(np.float64) - w_zp, at)
    if len(ins) > 8 and ins[8] is not None:
        acc += ins[8].astype(np.float64).reshape(1, -1, 1, 1)
    ws = _f64(np.asarray(w_s))
    ws = ws.reshape(()) if ws.size == 1 else ws.reshape(1, m, 1, 1)
    mult = _f64(x_s).reshape(()) * ws / _f64(y_s).reshape(())
    return [_saturate(np.rint(acc * mult) + y_zp.astype(np.float64).reshape(()), y_zp.dtype)]


OPS = {
    "Gemm": op_gemm, "MatMul": op_matmul,
    "Add": op_binary("Add"), "Sub": op_binary("Sub"), "Mul": op_binary("Mul"),
    "Div": op_binary("Div"), "Pow": op_pow,
    "Relu": op_relu, "LeakyRelu": op_leaky_relu, "Gelu": op_gelu, "Erf": op_erf,
    "Sqrt": op_unary("Sqrt", np.sqrt), "Reciprocal": op_unary("Reciprocal", np.reciprocal), "Tanh": op_unary("Tanh", np.tanh), "Sigmoid": op_sigmoid,
    "Softmax": op_softmax, "LayerNormalization": op_layer_norm, "ReduceMean": op_reduce_mean,
    "Conv": op_conv, "MaxPool": op_max_pool, "AveragePool": op_avg_pool,
    "Flatten": op_flatten, "Reshape": op_reshape, "Transpose": op_transpose,
    "Identity": op_identity, "Constant": op_constant, "Shape": op_shape, "Gather": op_gather,
    "Unsqueeze": op_unsqueeze, "Squeeze": op_squeeze, "Concat": op_concat,
    "ConstantOfShape": op_constant_of_shape, "Slice": op_slice, "Cast": op_cast, "Pad": op_pad,
    "QuantizeLinear": op_quantize, "DequantizeLinear": op_dequantize,
    "QLinearMatMul": op_qlinear_matmul, "QLinearConv": op_qlinear_conv,
}


def run_op(op, inputs, attrs=None, opset=17):
    """One operator on arrays (None for an omitted optional input); returns its outputs."""
    if op not in OPS:
        raise RefError("operator '%s' not supported" % op)
    return OPS[op]([None if i is None else np.asarray(i) for i in inputs], attrs or {}, opset)


# ---------------------------------------------------------------------------------------------
# the sidecar and the graph


def load_sidecar(path):
    """The graph (a dict from the JSON) with 'arrays': the npz's arrays by key."""
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise RefError("%s: not a sidecar .npz (an .npy array)" % path)
        with z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as e:
        raise RefError("%s: not a sidecar .npz: %s" % (path, e))
    if "graph" not in arrays:
        raise RefError("%s: no 'graph' entry (not a sidecar written by models/onnx)" % path)
    try:
        g = json.loads(str(arrays.pop("graph")))
    except ValueError as e:
        raise RefError("%s: the graph JSON is malformed: %s" % (path, e))
    if not isinstance(g, dict) or g.get("format") != SIDECAR_FORMAT:
        raise RefError("%s: not a sidecar of format %s" % (path, SIDECAR_FORMAT))
    g["arrays"] = arrays
    g["path"] = path
    return g


def _attrs(g, node):
    out = {}
    for k, v in node.get("attrs", {}).items():
        if isinstance(v, dict) and "tensor" in v:
            if v["tensor"] not in g["arrays"]:
                raise RefError("node '%s': tensor attribute '%s' missing" % (node["name"], k))
            v = g["arrays"][v["tensor"]]
        out[k] = v
    return out


def _bind_input(info, x):
    x = np.asarray(x)
    dims = info["shape"]
    fixed = all(isinstance(d, int) and d == x.shape[i] or isinstance(d, str)
                for i, d in enumerate(dims)) if x.ndim == len(dims) else False
    if not fixed:
        raise RefError("input '%s' is declared %s, the array is %s"
                       % (info["name"], dims, list(x.shape)))
    return _f64(x) if _is_float(x) else x.astype(info["dtype"])


def run(g, feeds, outputs=None):
    """Run the graph. feeds: one array (the first graph input) or {name: array}. Returns the
    first graph output (one array was fed) or {name: array} of the graph outputs."""
    single = not isinstance(feeds, dict)
    if single:
        feeds = {g["inputs"][0]["name"]: feeds}
    env = {i["name"]: g["arrays"][i["key"]] for i in g["initializers"]}
    for info in g["inputs"]:
        if info["name"] not in feeds:
            raise RefError("no value for graph input '%s'" % info["name"])
        env[info["name"]] = _bind_input(info, feeds[info["name"]])
    for n in g["nodes"]:
        where = "node '%s' (%s)" % (n["name"], n["op"])
        ins = []
        for name in n["inputs"]:
            if name == "":
                ins.append(None)
            elif name not in env:
                raise RefError("%s: input '%s' is defined nowhere before it" % (where, name))
            else:
                ins.append(env[name])
        try:
            res = run_op(n["op"], ins, _attrs(g, n), g["opset"])
        except RefError as e:
            raise RefError("%s: %s" % (where, e))
        for name, v in zip(n["outputs"], res):
            if name:
                env[name] = v
    names = outputs or [o["name"] for o in g["outputs"]]
    if single:
        return env[names[0]]
    return {k: env[k] for k in names}


# ---------------------------------------------------------------------------------------------
# Fashion-MNIST


def read_idx(path, want_dims):
    """A gzip'd IDX file of unsigned bytes: (dims, uint8 array)."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise RefError("%s: cannot read: %s (Debian package dataset-fashion-mnist)" % (path, e))
    if len(raw) < 4 + 4 * want_dims or raw[:3] != b"\0\0\x08" or raw[3] != want_dims:
        raise RefError("%s: not an IDX file of unsigned bytes with %d dimensions" % (path, want_dims))
    dims = struct.unpack(">%dI" % want_dims, raw[4:4 + 4 * want_dims])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * want_dims)
    if body.size != int(np.prod(dims, dtype=np.int64)):
        raise RefError("%s: %d data bytes, the header says %s" % (path, body.size, dims))
    return dims, body.reshape(dims)


def load_fashion(data_dir, prefix):
    """(images uint8 [n, 784], labels uint8 [n]) of the 'train' or 't10k' set."""
    (n, rows, cols), img = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"), 3)
    (nl,), lab = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"), 1)
    if rows * cols != 784 or nl != n:
        raise RefError("%s: %d images of %dx%d and %d labels; expected 28x28 and as many labels"
                       % (prefix, n, rows, cols, nl))
    return img.reshape(n, 784), lab


def accuracy(g, data_dir=DATA_DIR, limit=None, batch=1000):
    """(correct answers, images) of the model on the test images (pixels / 255, shaped as the
    model's input with the batch dimension first)."""
    x, y = load_fashion(data_dir, "t10k")
    if limit is not None:
        x, y = x[:limit], y[:limit]
    shape = g["inputs"][0]["shape"][1:]
    correct = 0
    for i in range(0, x.shape[0], batch):
        xb = (x[i:i + batch].astype(np.float64) / 255.0).reshape([-1] + shape)
        out = run(g, xb)
        correct += int((out.reshape(xb.shape[0], -1).argmax(axis=1) == y[i:i + batch]).sum())
    return correct, x.shape[0]


def compare(ref, got, atol, rtol):
    """(within, report): got (an NPU's output) against the reference, element by element:
    within when every |got - ref| <= atol + rtol * |ref|."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, "shape %s, the reference's is %s" % (list(got.shape), list(ref.shape))
    diff = np.abs(got.astype(np.float64) - ref)
    outside = int((diff > atol + rtol * np.abs(ref)).sum())
    worst = np.unravel_index(int(diff.argmax()), diff.shape) if diff.size else ()
    msg = "max |difference| %.6g at %s (reference %.6g, compared %.6g); %d of %d elements " \
          "beyond %g + %g * |reference|" % (diff.max() if diff.size else 0.0, list(worst),
                                            ref[worst] if diff.size else 0.0,
                                            got[worst] if diff.size else 0.0,
                                            outside, diff.size, atol, rtol)
    if ref.ndim >= 1 and ref.size:
        rows = ref.reshape(-1, ref.shape[-1]).argmax(axis=1)
        same = int((rows == got.reshape(-1, ref.shape[-1]).argmax(axis=1)).sum())
        msg += "; the largest element of the last axis agrees in %d of %d" % (same, rows.size)
    return outside == 0, msg


def _load_npy(path):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise RefError("%s: cannot read: %s" % (path, e))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Run an ONNX model's sidecar (NAME.npz, written by models/onnx) with the "
                    "float64 NumPy reference of npukit's operators.")
    ap.add_argument("model", help="the sidecar NAME.npz")
    ap.add_argument("--input", help="input array (.npy) for the model's first input")
    ap.add_argument("--output", help="where to write the first output (.npy, float64)")
    ap.add_argument("--compare", metavar="Y.npy",
                    help="compare the output with Y.npy (an NPU's, say); status 1 when an "
                         "element differs by more than ATOL + RTOL * |reference|")
    ap.add_argument("--atol", type=float, default=0.0, help="with --compare (default: 0)")
    ap.add_argument("--rtol", type=float, default=0.0, help="with --compare (default: 0)")
    ap.add_argument("--accuracy", action="store_true",
                    help="print the accuracy on the Fashion-MNIST test images")
    ap.add_argument("--data-dir", default=DATA_DIR,
                    help="the gzip'd IDX files (default: %(default)s)")
    ap.add_argument("--limit", type=int, help="with --accuracy: the first LIMIT images only")
    args = ap.parse_args(argv)
    if not args.accuracy and not args.input:
        ap.error("give --input (and --output) or --accuracy")
    if args.compare and not args.input:
        ap.error("--compare needs --input")
    if args.atol < 0 or args.rtol < 0:
        ap.error("--atol and --rtol must be at least 0")
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    try:
        g = load_sidecar(args.model)
        if args.input:
            y = run(g, _load_npy(args.input))
            if args.output:
                np.save(args.output, y)
            elif not args.compare:
                print(np.array2string(y, precision=6))
            if args.compare:
                within, msg = compare(y, _load_npy(args.compare), args.atol, args.rtol)
                print("%s: %s: %s" % (args.compare, "within" if within else "OUTSIDE", msg))
                if not within:
                    return 1
        if args.accuracy:
            c, n = accuracy(g, args.data_dir, args.limit)
            print("accuracy: %.2f %% (%d/%d)" % (100.0 * c / n, c, n))
    except RefError as e:
        print("onnx_ref.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
