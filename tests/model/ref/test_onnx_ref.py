#!/usr/bin/python3
"""ctest model_onnx_ref: the float64 NumPy reference (onnx_ref.py) against values computed by
hand (written next to each case), then the committed models' sidecars (models/onnx) against
the outputs PyTorch gave for their sample inputs, and the command line. NumPy only.

usage: test_onnx_ref.py MODELS_DIR      (the repository's models/onnx)
       test_onnx_ref.py MODELS_DIR --shapes NPUKIT
           only: `npukit model-info`'s inferred shapes against the reference's (ctest
           model_onnx_shapes)
"""

import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import numpy as np
    sys.path.insert(0, HERE)
    import onnx_ref
    from onnx_ref import RefError
except ImportError as e:
    print("FAIL: the NumPy reference needs NumPy (Debian package python3-numpy): %s" % e)
    sys.exit(1)

passed = failed = 0

# The models' tolerance: PyTorch computed in float32, the reference in float64; the largest
# difference may be this fraction of the output's largest magnitude (measured: below 1e-6).
MODEL_REL_TOL = 1e-5


def ok(msg):
    global passed
    passed += 1
    print("ok: " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)


def check(name, op, inputs, want, attrs=None, opset=17, out=0, exact=False, dtype=None):
    """Run one operator and compare output `out` with `want` (to 1e-12, or exactly)."""
    try:
        got = onnx_ref.run_op(op, inputs, attrs, opset)[out]
    except RefError as e:
        bad("%s: %s raised: %s" % (name, op, e))
        return
    want = np.asarray(want)
    if got.shape != want.shape:
        bad("%s: shape %s, want %s" % (name, list(got.shape), list(want.shape)))
    elif dtype is not None and got.dtype != dtype:
        bad("%s: type %s, want %s" % (name, got.dtype, np.dtype(dtype)))
    elif exact and not np.array_equal(got, want):
        bad("%s: %s, want %s" % (name, got.tolist(), want.tolist()))
    elif not exact and not np.allclose(got, want, rtol=1e-12, atol=1e-12):
        bad("%s: %s, want %s" % (name, got.tolist(), want.tolist()))
    else:
        ok(name)


def check_error(name, op, inputs, words, attrs=None, opset=17):
    try:
        onnx_ref.run_op(op, inputs, attrs, opset)
    except RefError as e:
        if words in str(e):
            ok("%s: error '%s'" % (name, e))
        else:
            bad("%s: error '%s' lacks '%s'" % (name, e, words))
        return
    bad("%s: no error" % name)


f32 = np.float32
i8, u8 = np.int8, np.uint8
X33 = np.arange(1, 10, dtype=f32).reshape(1, 1, 3, 3)  # [[1,2,3],[4,5,6],[7,8,9]]
ONES22 = np.ones((1, 1, 2, 2), f32)


def test_operators():
    A, B = np.array([[1, 2], [3, 4]], f32), np.array([[5, 6], [7, 8]], f32)
    # A@B = [[19,22],[43,50]], + C [1,-1] broadcast over the rows
    check("Gemm plain", "Gemm", [A, B, np.array([1, -1], f32)], [[20, 21], [44, 49]],
          dtype=np.float64)
    # A^T B^T = [[1*5+3*6, 1*7+3*8],[2*5+4*6, 2*7+4*8]] = [[23,31],[34,46]]; *2, + 0.5*2
    check("Gemm transA transB alpha beta", "Gemm", [A, B, np.array([[2]], f32)],
          [[47, 63], [69, 93]], {"transA": 1, "transB": 1, "alpha": 2.0, "beta": 0.5})
    check("Gemm without C", "Gemm", [A, B], [[19, 22], [43, 50]])
    check_error("Gemm inner dimensions", "Gemm", [A, np.ones((3, 2), f32)], "inner dimensions")
    # batch of 2: [1,2].[3,4] = 11, [0,1].[3,4] = 4; 1-D a: the added dimension dropped
    check("MatMul batched", "MatMul", [np.array([[[1, 2]], [[0, 1]]], f32),
                                       np.array([[3], [4]], f32)], [[[11]], [[4]]])
    check("MatMul 1-D", "MatMul", [np.array([1, 2], f32), np.array([[3], [4]], f32)], [11])

    check("Add broadcast", "Add", [np.array([[1], [2]], f32), np.array([10, 20, 30], f32)],
          [[11, 21, 31], [12, 22, 32]])
    check("Sub scalar", "Sub", [np.array([5, 3], f32), np.array(1, f32)], [4, 2])
    check("Mul broadcast", "Mul", [A, np.array([10, 100], f32)], [[10, 200], [30, 400]])
    check("Div float", "Div", [np.array([1, 3], f32), np.array([2, 4], f32)], [0.5, 0.75])
    # integer division truncates toward zero: 7/2 = 3, -7/2 = -3
    check("Div int64", "Div", [np.array([7, -7]), np.array([2, 2])], [3, -3], exact=True,
          dtype=np.int64)
    check("Pow", "Pow", [np.array([2, 3, 4], f32), np.array([3, 2, 0.5], f32)], [8, 9, 2])

    check("Relu", "Relu", [np.array([-1, 0, 2], f32)], [0, 0, 2])
    check("Relu int8", "Relu", [np.array([-5, 7], i8)], [0, 7], exact=True, dtype=i8)
    check("LeakyRelu alpha 0.1", "LeakyRelu", [np.array([-2, 3], f32)], [-0.2, 3],
          {"alpha": 0.1})
    check("LeakyRelu default alpha 0.01", "LeakyRelu", [np.array([-1], f32)], [-0.01])
    # erf(1) = 0.8427007929497149, erf(-1/2) = -0.5204998778130465 (tables)
    check("Erf", "Erf", [np.array([0, 1, -0.5], f32)],
          [0, 0.8427007929497149, -0.5204998778130465])
    # Gelu(1) = (1 + erf(1/sqrt 2)) / 2 = 0.8413447460685429 (the normal CDF at 1);
    # Gelu(-1) = -Phi(-1) = -0.15865525393145707
    check("Gelu erf", "Gelu", [np.array([1, -1, 0], f32)],
          [0.8413447460685429, -0.15865525393145707, 0])
    # tanh form at 1: (1 + tanh(sqrt(2/pi) * 1.044715)) / 2 = 0.8411919906082768
    check("Gelu tanh", "Gelu", [np.array([1], f32)], [0.8411919906082768],
          {"approximate": "tanh"})
    check_error("Gelu approximate", "Gelu", [np.array([1], f32)], "approximate 'x'",
                {"approximate": "x"})
    check("Sqrt", "Sqrt", [np.array([4, 2.25], f32)], [2, 1.5])
    check("Reciprocal", "Reciprocal", [np.array([4, -0.5], f32)], [0.25, -2])
    # tanh(ln(3)/2) = (3 - 1)/(3 + 1) = 0.5
    check("Tanh", "Tanh", [np.array([0, math.log(3) / 2])], [0, 0.5])
    # sigmoid(ln 3) = 3/4, sigmoid(-ln 3) = 1/4; +-1000 saturate without overflow
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        check("Sigmoid", "Sigmoid", [np.array([0, math.log(3), -math.log(3), 1000, -1000])],
              [0.5, 0.75, 0.25, 1, 0])
    check_error("Sqrt of integers", "Sqrt", [np.array([4])], "needs a float input")

    # exp([0, ln 2, ln 5]) = [1, 2, 5], sum 8
    check("Softmax", "Softmax", [np.array([0, math.log(2), math.log(5)])], [0.125, 0.25, 0.625])
    check("Softmax axis 0", "Softmax", [np.array([[0], [math.log(3)]])], [[0.25], [0.75]],
          {"axis": 0})
    # before opset 13 the input is coerced to 2-D at axis 1: one row of [1, 3, 1, 3]/8
    s3 = [[[0, math.log(3)], [0, math.log(3)]]]
    check("Softmax opset 11 (2-D coercion)", "Softmax", [np.array(s3)],
          [[[0.125, 0.375], [0.125, 0.375]]], opset=11)
    check("Softmax opset 13 (last axis)", "Softmax", [np.array(s3)],
          [[[0.25, 0.75], [0.25, 0.75]]], opset=13)

    # rows [1,3] (mean 2, variance 1) and [0,4] (mean 2, variance 4), epsilon 0:
    # normalised [-1, 1] both, times scale [2, 3], plus B [0.5, 0]
    ln_in = [np.array([[1, 3], [0, 4]], f32), np.array([2, 3], f32), np.array([0.5, 0], f32)]
    check("LayerNormalization Y", "LayerNormalization", ln_in, [[-1.5, 3], [-1.5, 3]],
          {"epsilon": 0.0})
    check("LayerNormalization Mean", "LayerNormalization", ln_in, [[2], [2]], {"epsilon": 0.0},
          out=1)
    check("LayerNormalization InvStdDev", "LayerNormalization", ln_in, [[1], [0.5]],
          {"epsilon": 0.0}, out=2)
    # default epsilon 1e-5: row [1,3] gives +-1/sqrt(1 + 1e-5)
    e = 1 / math.sqrt(1.00001)
    check("LayerNormalization epsilon", "LayerNormalization", [np.array([1, 3], f32),
                                                                np.ones(2, f32)], [-e, e])
    # axis 0 of [[1,3],[0,4]]: mean 2, variance (1+1+4+4)/4 = 2.5
    v = 1 / math.sqrt(2.5)
    check("LayerNormalization axis 0", "LayerNormalization", [ln_in[0], np.ones((2, 2), f32)],
          [[-v, v], [-2 * v, 2 * v]], {"axis": 0, "epsilon": 0.0})

    R = np.array([[1, 2], [3, 4]], f32)
    check("ReduceMean axes [1]", "ReduceMean", [R], [[1.5], [3.5]], {"axes": [1]})
    check("ReduceMean axes [0] keepdims 0", "ReduceMean", [R], [2, 3],
          {"axes": [0], "keepdims": 0})
    check("ReduceMean all", "ReduceMean", [R], [[2.5]])
    check("ReduceMean opset 18 axes input", "ReduceMean", [R, np.array([-1])], [[1.5], [3.5]],
          opset=18)
    check("ReduceMean opset 18 noop", "ReduceMean", [R], R, {"noop_with_empty_axes": 1},
          opset=18)

    # 2x2 ones over [[1,2,3],[4,5,6],[7,8,9]]: the sums of the four 2x2 blocks, + bias 1
    check("Conv valid + bias", "Conv", [X33, ONES22, np.array([1], f32)], [[[[13, 17], [25, 29]]]])
    # pads 1, stride 2: windows {1}, {2,3}, {4,7}, {5,6,8,9}
    check("Conv pads 1 stride 2", "Conv", [X33, ONES22], [[[[1, 5], [11, 28]]]],
          {"pads": [1, 1, 1, 1], "strides": [2, 2]})
    # dilation 2: the corners 1 + 3 + 7 + 9
    check("Conv dilation 2", "Conv", [X33, ONES22], [[[[20]]]], {"dilations": [2, 2]})
    # group 2: channel 0 (2) times 10, channel 1 (3) times 100
    check("Conv group 2", "Conv", [np.array([2, 3], f32).reshape(1, 2, 1, 1),
                                   np.array([10, 100], f32).reshape(2, 1, 1, 1)],
          [[[[20]], [[300]]]], {"group": 2})
    # SAME_UPPER: the one pad row/column goes at the end: last column 3+6, 6+9, 9
    check("Conv SAME_UPPER", "Conv", [X33, ONES22],
          [[[[12, 16, 9], [24, 28, 15], [15, 17, 9]]]], {"auto_pad": "SAME_UPPER"})
    check("Conv SAME_LOWER", "Conv", [X33, ONES22],
          [[[[1, 3, 5], [5, 12, 16], [11, 24, 28]]]], {"auto_pad": "SAME_LOWER"})
    # two input channels summed, two output channels: W[0] = ones, W[1] = [1, -1] per channel
    x2 = np.concatenate([X33, 10 * X33], axis=1)
    w2 = np.stack([np.ones((2, 1, 1), f32), np.array([1, -1], f32).reshape(2, 1, 1)])
    check("Conv 2 channels in and out", "Conv", [x2, w2],
          np.concatenate([11 * X33, -9 * X33], axis=1))
    check_error("Conv 1-D", "Conv", [np.ones((1, 1, 3), f32), np.ones((1, 1, 2), f32)], "2-D")
    check_error("Conv window too large", "Conv", [X33, np.ones((1, 1, 4, 4), f32)],
                "larger than the padded input")

    X44 = np.arange(16, dtype=f32).reshape(1, 1, 4, 4)
    check("MaxPool 2x2 stride 2", "MaxPool", [X44], [[[[5, 7], [13, 15]]]],
          {"kernel_shape": [2, 2], "strides": [2, 2]})
    check("MaxPool indices", "MaxPool", [X44], [[[[5, 7], [13, 15]]]],
          {"kernel_shape": [2, 2], "strides": [2, 2]}, out=1, exact=True, dtype=np.int64)
    # a tie: the first position in row-major window order (flat index 1 of [[1,5],[5,0]])
    check("MaxPool indices on a tie", "MaxPool", [np.array([[[[1, 5], [5, 0]]]], f32)], [[[[1]]]],
          {"kernel_shape": [2, 2]}, out=1, exact=True)
    # ceil_mode on 3x3 (0..8), kernel 2 stride 2: 2x2 windows, the last ones partial
    X9 = np.arange(9, dtype=f32).reshape(1, 1, 3, 3)
    check("MaxPool ceil_mode", "MaxPool", [X9], [[[[4, 5], [7, 8]]]],
          {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1})
    check("MaxPool floor mode", "MaxPool", [X9], [[[[4]]]],
          {"kernel_shape": [2, 2], "strides": [2, 2]})
    # pads are -inf: negative inputs are not lost to zeros
    check("MaxPool pads with negative inputs", "MaxPool",
          [np.array([[[[-1, -2], [-3, -4]]]], f32)],
          [[[[-1, -1, -2], [-1, -1, -2], [-3, -3, -4]]]], {"kernel_shape": [2, 2],
                                                          "pads": [1, 1, 1, 1]})
    # 1x3 input, kernel 1, stride 2, end pad 1, ceil: a third window would start in the pad
    # (at 4 >= 3): dropped, so [1, 3]
    check("MaxPool ceil_mode drops a window in the pad", "MaxPool",
          [np.array([[[[1, 2, 3]]]], f32)], [[[[1, 3]]]],
          {"kernel_shape": [1, 1], "strides": [1, 2], "pads": [0, 0, 0, 1], "ceil_mode": 1})
    check("MaxPool dilation 2", "MaxPool", [X9], [[[[8]]]],
          {"kernel_shape": [2, 2], "dilations": [2, 2]})

    check("AveragePool", "AveragePool", [X33], [[[[3, 4], [6, 7]]]], {"kernel_shape": [2, 2]})
    # pads 1 stride 2 on [[1,2],[3,4]]: each window holds one input element and three pads
    P = np.array([[[[1, 2], [3, 4]]]], f32)
    pool_p = {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    check("AveragePool pads excluded", "AveragePool", [P], [[[[1, 2], [3, 4]]]], pool_p)
    check("AveragePool pads included", "AveragePool", [P], [[[[0.25, 0.5], [0.75, 1]]]],
          dict(pool_p, count_include_pad=1))
    # ceil_mode on 1..9, kernel 2 stride 2: {1,2,4,5} = 3, {3,6} = 4.5, {7,8} = 7.5, {9} = 9;
    # the ceil-mode extra is never counted, even with count_include_pad
    pool_c = {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}
    check("AveragePool ceil_mode", "AveragePool", [X33], [[[[3, 4.5], [7.5, 9]]]], pool_c)
    check("AveragePool ceil_mode count_include_pad", "AveragePool", [X33],
          [[[[3, 4.5], [7.5, 9]]]], dict(pool_c, count_include_pad=1))
    # pads 1 at the start only, with ceil_mode and count_include_pad on 1..9, kernel 2 stride 2:
    # windows from -1: {pad,pad,pad,1} /4, {pad,pad,2,3} /4, {pad,4,pad,7} /4, {5,6,8,9} /4
    check("AveragePool begin pads, ceil, included", "AveragePool", [X33],
          [[[[0.25, 1.25], [2.75, 7]]]],
          {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 0, 0], "ceil_mode": 1,
           "count_include_pad": 1})

    T = np.arange(24, dtype=f32).reshape(2, 3, 4)
    for axis, shape in ((1, (2, 12)), (0, (1, 24)), (-1, (6, 4)), (3, (24, 1))):
        check("Flatten axis %d" % axis, "Flatten", [T], T.reshape(shape), {"axis": axis},
              exact=True)
    check_error("Flatten axis 4", "Flatten", [T], "out of range", {"axis": 4})
    check("Reshape -1", "Reshape", [T, np.array([4, -1])], T.reshape(4, 6), exact=True)
    check("Reshape 0 copies", "Reshape", [T, np.array([0, -1])], T.reshape(2, 12), exact=True)
    check("Reshape allowzero", "Reshape", [np.zeros((0, 3), f32), np.array([3, 0])],
          np.zeros((3, 0)), {"allowzero": 1})
    check_error("Reshape count", "Reshape", [T, np.array([5, -1])], "cannot become")
    check("Transpose default", "Transpose", [np.array([[1, 2, 3], [4, 5, 6]])],
          [[1, 4], [2, 5], [3, 6]], exact=True)
    check("Transpose perm", "Transpose", [T], T.transpose(0, 2, 1), {"perm": [0, 2, 1]},
          exact=True)
    check("Identity", "Identity", [np.array([7, 8], i8)], [7, 8], exact=True, dtype=i8)
    check("Constant value_floats", "Constant", [], [1.5, 2], {"value_floats": [1.5, 2.0]},
          dtype=f32)
    check("Constant value", "Constant", [], [[1, 2]], {"value": np.array([[1, 2]], np.int64)},
          exact=True)

    # round half to even: 1.5 -> 2, 2.5 -> 2, -2.5 -> -2; 300 and -300 saturate
    check("QuantizeLinear int8", "QuantizeLinear",
          [np.array([0, 1.5, 2.5, -2.5, 300, -300], f32), np.array(1, f32), np.array(0, i8)],
          [0, 2, 2, -2, 127, -128], exact=True, dtype=i8)
    # no zero point: uint8; scale 0.5: 0.5 -> 0, 1.5 -> 2, -2 -> 0 (saturated), 400 -> 255
    check("QuantizeLinear uint8 default", "QuantizeLinear",
          [np.array([0.25, 0.75, -1, 200], f32), np.array(0.5, f32)], [0, 2, 0, 255],
          exact=True, dtype=u8)
    # zero point 128, scale 2: 0.5 -> 0, 1.5 -> 2, -1.5 -> -2; plus 128
    check("QuantizeLinear zero point", "QuantizeLinear",
          [np.array([1, 3, -3], f32), np.array(2, f32), np.array(128, u8)], [128, 130, 126],
          exact=True)
    # per axis 0: row 1 scale 2 zero point 10: 3/2 = 1.5 -> 2, 4/2 = 2; +10
    check("QuantizeLinear per axis", "QuantizeLinear",
          [np.array([[1, 2], [3, 4]], f32), np.array([1, 2], f32), np.array([0, 10], i8)],
          [[1, 2], [12, 12]], {"axis": 0}, exact=True)
    check_error("QuantizeLinear per axis length", "QuantizeLinear",
                [np.ones((2, 2), f32), np.array([1, 2, 3], f32), np.array([0, 0, 0], i8)],
                "does not fit axis", {"axis": 0})
    # (x - zp) * scale: (-128+1)/2, (0+1)/2, (127+1)/2
    check("DequantizeLinear int8", "DequantizeLinear",
          [np.array([-128, 0, 127], i8), np.array(0.5, f32), np.array(-1, i8)],
          [-63.5, 0.5, 64])
    check("DequantizeLinear uint8", "DequantizeLinear",
          [np.array([0, 255], u8), np.array(1, f32), np.array(128, u8)], [-128, 127])
    check("DequantizeLinear int32", "DequantizeLinear",
          [np.array([1000], np.int32), np.array(0.001)], [1.0])
    # per axis 1: column 1 (10 - 2) * 0.25 = 2
    check("DequantizeLinear per axis", "DequantizeLinear",
          [np.array([[10, 10]], i8), np.array([1, 0.25], f32), np.array([0, 2], i8)], [[10, 2]])

    # a - 128 = [[2,4],[2,3]]; b = [[3],[4]]: accumulators 22 and 18; times 0.5 * 1 / 2:
    # 5.5 -> 6 and 4.5 -> 4 (half to even both ways); plus 10
    qa = np.array([[130, 132], [130, 131]], u8)
    qb = np.array([[3], [4]], i8)
    qm = [qa, np.array(0.5, f32), np.array(128, u8), qb, np.array(1, f32), np.array(0, i8),
          np.array(2, f32)]
    check("QLinearMatMul", "QLinearMatMul", qm + [np.array(10, u8)], [[16], [14]], exact=True,
          dtype=u8)
    # 6 + 250 saturates to 255, 4 + 250 = 254 does not
    check("QLinearMatMul saturates", "QLinearMatMul", qm + [np.array(250, u8)], [[255], [254]],
          exact=True)
    # per-row a_scale [0.5, 1]: row 1 is 18 * 1 / 2 = 9; plus 10
    qr = list(qm)
    qr[1], qr[2] = np.array([0.5, 1], f32), np.array([128, 128], u8)
    check("QLinearMatMul per-row scale", "QLinearMatMul", qr + [np.array(10, u8)],
          [[16], [19]], exact=True)
    # x = [[1,2],[3,4]], W = [2, -3] (1x1), per-channel w_scale [0.5, 1], B = [1, 0]:
    # channel 0: (2x + 1) * 0.5 = 1.5, 2.5, 3.5, 4.5 -> 2, 2, 4, 4; channel 1: -3x
    qx = np.array([[[[1, 2], [3, 4]]]], u8)
    qc = [qx, np.array(1, f32), np.array(0, u8), np.array([2, -3], i8).reshape(2, 1, 1, 1),
          np.array([0.5, 1], f32), np.array([0, 0], i8), np.array(1, f32), np.array(0, i8),
          np.array([1, 0], np.int32)]
    check("QLinearConv per channel with bias", "QLinearConv", qc,
          [[[[2, 2], [4, 4]], [[-3, -6], [-9, -12]]]], exact=True, dtype=i8)
    # x zero point 1 and y scale 0.25: channel 0 = (2(x-1) + 1) * 0.5 / 0.25 = 2, 6, 10, 14;
    # channel 1 = -3(x-1) * 4 = 0, -12, -24, -36
    qz = list(qc)
    qz[2], qz[6] = np.array(1, u8), np.array(0.25, f32)
    check("QLinearConv zero point", "QLinearConv", qz,
          [[[[2, 6], [10, 14]], [[0, -12], [-24, -36]]]], exact=True)
    qs = list(qc)
    qs[0] = np.array([[[[200, 0], [0, 0]]]], u8)
    check("QLinearConv saturates", "QLinearConv", qs,
          [[[[127, 0], [0, 0]], [[-128, 0], [0, 0]]]], exact=True)
    # x.view(x.size(0), -1) as PyTorch exports it, one operator at a time, on x of [4, 2, 3]
    x423 = np.zeros((4, 2, 3), f32)
    check("Shape", "Shape", [x423], [4, 2, 3], exact=True, dtype=np.int64)
    check("Shape start -2", "Shape", [x423], [2, 3], {"start": -2}, exact=True)
    check("Shape end 1", "Shape", [x423], [4], {"end": 1}, exact=True)
    check("Gather scalar index", "Gather", [np.array([4, 2, 3], np.int64), np.array(0)], 4,
          exact=True)
    check("Unsqueeze axes input", "Unsqueeze", [np.array(4), np.array([0])], [4], exact=True)
    check("Unsqueeze axes attribute (opset 11)", "Unsqueeze", [np.array(4)], [4],
          {"axes": [0]}, opset=11, exact=True)
    check("Concat", "Concat", [np.array([4]), np.array([-1])], [4, -1], {"axis": 0},
          exact=True)
    # rows 1 then 0 of [[1,2,3],[4,5,6]] (axis 0); columns -1 and 0 (axis 1)
    M = np.array([[1, 2, 3], [4, 5, 6]], f32)
    check("Gather rows", "Gather", [M, np.array([1, 0])], [[4, 5, 6], [1, 2, 3]], exact=True)
    check("Gather negative column", "Gather", [M, np.array([-1, 0])], [[3, 1], [6, 4]],
          {"axis": 1}, exact=True)
    check("Squeeze all ones", "Squeeze", [np.zeros((1, 3, 1), f32)], np.zeros(3), exact=True)
    check("Squeeze axis", "Squeeze", [np.zeros((1, 3, 1), f32), np.array([0])],
          np.zeros((3, 1)), exact=True)
    check_error("Gather out of range", "Gather", [M, np.array([2])], "out of range")
    check_error("Squeeze a 3", "Squeeze", [M, np.array([1])], "not of size 1")
    check_error("Concat without axis", "Concat", [M, M], "no axis")
    # the pads PyTorch's ZeroPad2d(1) exports, one operator at a time (by hand)
    check("ConstantOfShape int64 zeros", "ConstantOfShape", [np.array([4])], [0, 0, 0, 0],
          {"value": np.array([0], np.int64)}, exact=True, dtype=np.int64)
    check("ConstantOfShape default float", "ConstantOfShape", [np.array([2, 1])], [[0], [0]],
          exact=True, dtype=np.float32)
    P = np.array([[1, 1], [2, 2], [0, 0], [3, 3]], np.int64)
    # rows from the last (-1) down past the first (INT64_MIN + 1), step -1: reversed
    check("Slice reversed rows", "Slice",
          [P, np.array([-1]), np.array([-2 ** 63 + 1]), np.array([0]), np.array([-1])],
          [[3, 3], [0, 0], [2, 2], [1, 1]], exact=True)
    # columns 0..2 of M step 2: [1, 3], [4, 6]; starts clamped (-9 -> 0), ends clamped (9 -> 3)
    check("Slice step 2", "Slice", [M, np.array([-9]), np.array([9]), np.array([1]),
                                    np.array([2])], [[1, 3], [4, 6]], exact=True)
    check("Slice start past end", "Slice", [M, np.array([5]), np.array([9])],
          np.zeros((0, 3)), exact=True)
    check("Slice negative step from below the start", "Slice",
          [np.array([7, 8, 9]), np.array([-9]), np.array([-9]), np.array([0]), np.array([-1])],
          [7], exact=True)
    check("Slice attributes (opset 9)", "Slice", [M], [[5, 6]],
          {"starts": [1, 1], "ends": [2, 3]}, opset=9, exact=True)
    check("Cast int64 to float", "Cast", [np.array([3, -2])], [3, -2], {"to": 1}, exact=True,
          dtype=np.float32)
    check("Cast float to int32 truncates", "Cast", [np.array([2.7, -2.7], f32)], [2, -2],
          {"to": 6}, exact=True, dtype=np.int32)
    check_error("Cast out of range", "Cast", [np.array([300.0], f32)], "does not fit",
                {"to": 2})
    # pads [0,1, 1,0] of [[1,2],[3,4]]: a row before, a column after
    check("Pad constant", "Pad", [np.array([[1, 2], [3, 4]], f32), np.array([1, 0, 0, 1])],
          [[0, 0, 0], [1, 2, 0], [3, 4, 0]])
    check("Pad attribute (opset 2)", "Pad", [np.array([5], f32)], [0, 5, 0, 0],
          {"pads": [1, 2]}, opset=2)
    check_error("Pad value 1", "Pad", [M, np.array([1, 0, 0, 0]), np.array(1.0, f32)],
                "only the value 0")
    check_error("Pad reflect", "Pad", [M, np.array([1, 0, 0, 0])], "mode", {"mode": "reflect"})
    check_error("unknown operator", "Einsum", [A], "not supported")


def test_every_operator_covered(src_root):
    """Every operator of src/model/ops.def has a reference."""
    path = os.path.join(src_root, "src", "model", "ops.def")
    try:
        with open(path) as f:
            names = [line.split('"')[1] for line in f if line.startswith("NPK_OP(")]
    except OSError as e:
        bad("%s: %s" % (path, e))
        return
    missing = [n for n in names if n not in onnx_ref.OPS]
    if len(names) < 29 or missing:
        bad("ops.def: %d operators, without a reference: %s" % (len(names), missing))
    else:
        ok("all %d operators of ops.def have a reference" % len(names))


def test_models(models_dir):
    for name in ("mlp", "lenet", "transformer_block", "rmsnorm_block"):
        base = os.path.join(models_dir, name)
        try:
            g = onnx_ref.load_sidecar(base + ".npz")
            x = np.load(base + "_samples.npy")
            want = np.load(base + "_torch.npy")
            got = onnx_ref.run(g, x)
        except (RefError, OSError) as e:
            bad("%s: %s" % (name, e))
            continue
        if got.shape != want.shape or got.dtype != np.float64:
            bad("%s: output %s %s, want %s float64" % (name, got.dtype, list(got.shape),
                                                       list(want.shape)))
            continue
        rel = np.abs(got - want).max() / np.abs(want).max()
        if rel <= MODEL_REL_TOL:
            ok("%s: reference vs PyTorch on %s: max difference %.2g of the largest output "
               "(tolerance %g)" % (name, list(x.shape), rel, MODEL_REL_TOL))
        else:
            bad("%s: reference vs PyTorch: max difference %.3g of the largest output"
                % (name, rel))
        if name in ("mlp", "lenet"):
            same = np.array_equal(got.argmax(axis=1), want.argmax(axis=1))
            (ok if same else bad)("%s: the reference's classes are PyTorch's" % name)


def test_cli(models_dir, tmp):
    ref = os.path.join(HERE, "onnx_ref.py")
    mlp = os.path.join(models_dir, "mlp")

    def cli(*args):
        p = subprocess.run([sys.executable, ref] + list(args), capture_output=True, text=True,
                           timeout=300)
        return p.returncode, p.stdout + p.stderr

    y = os.path.join(tmp, "y.npy")
    st, out = cli(mlp + ".npz", "--input", mlp + "_samples.npy", "--output", y)
    want = np.load(mlp + "_torch.npy")
    if st == 0 and os.path.exists(y) and np.allclose(np.load(y), want, rtol=0, atol=1e-4):
        ok("cli: --input/--output writes the MLP's logits")
    else:
        bad("cli --input/--output: status %d: %s" % (st, out))
    # the first 8 test images are the samples: --accuracy --limit 8 counts what PyTorch got
    labels = np.load(mlp + "_labels.npy")
    n = int((want.argmax(axis=1) == labels).sum())
    st, out = cli(mlp + ".npz", "--accuracy", "--limit", "8")
    if st == 0 and "(%d/8)" % n in out:
        ok("cli: --accuracy --limit 8 gives %d/8 as the samples do" % n)
    else:
        bad("cli --accuracy: status %d, want %d/8: %s" % (st, n, out))
    # --compare: PyTorch's float32 logits are within 1e-4 of the reference, not within 1e-9
    inp = ("--input", mlp + "_samples.npy", "--compare", mlp + "_torch.npy")
    for tol, want_st, words in (("1e-4", 0, "within: max |difference|"),
                                ("1e-9", 1, "OUTSIDE: max |difference|")):
        st, out = cli(mlp + ".npz", *inp, "--atol", tol)
        if st == want_st and words in out and "agrees in 8 of 8" in out:
            ok("cli: --compare --atol %s: status %d" % (tol, st))
        else:
            bad("cli --compare --atol %s: status %d, want %d and '%s': %s"
                % (tol, st, want_st, words, out))
    bad_x = os.path.join(tmp, "bad.npy")
    np.save(bad_x, np.zeros((1, 783), f32))
    for args, words in (((mlp + ".npz", "--input", bad_x), "is declared ['N', 784], the array "
                         "is [1, 783]"),
                        ((os.path.join(tmp, "none.npz"), "--input", bad_x), "not a sidecar"),
                        ((bad_x, "--input", bad_x), "not a sidecar"),
                        ((mlp + ".npz",), "give --input"),
                        ((mlp + ".npz", "--input", mlp + "_samples.npy", "--compare", bad_x),
                         "shape [1, 783], the reference's is [8, 10]")):
        st, out = cli(*args)
        if st != 0 and words in out:
            ok("cli error: %s" % words)
        else:
            bad("cli %s: status %d, want an error with '%s': %s" % (args, st, words, out))


def test_graph_errors():
    """A graph whose node reads an undefined value or uses an unknown operator."""
    base = {"format": onnx_ref.SIDECAR_FORMAT, "opset": 17, "arrays": {}, "initializers": [],
            "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
            "outputs": [{"name": "y", "dtype": "float32", "shape": [2]}]}
    for nodes, words in (([{"op": "Relu", "name": "r", "inputs": ["ghost"], "outputs": ["y"]}],
                          "node 'r' (Relu): input 'ghost' is defined nowhere"),
                         ([{"op": "Einsum", "name": "e", "inputs": ["x"], "outputs": ["y"]}],
                          "node 'e' (Einsum): operator 'Einsum' not supported")):
        try:
            onnx_ref.run(dict(base, nodes=nodes), np.zeros(2, f32))
            bad("graph error '%s' not raised" % words)
        except RefError as e:
            (ok if words in str(e) else bad)("graph error: %s" % e)


def test_shapes(models_dir, npukit):
    """npukit model-info's inferred shapes (src/model/infer.c, batch 1) are the shapes of the
    values the reference computes, for every node output of the four models."""
    for name in ("mlp", "lenet", "transformer_block", "rmsnorm_block"):
        base = os.path.join(models_dir, name)
        p = subprocess.run([npukit, "model-info", base + ".onnx"], capture_output=True,
                           text=True, timeout=60)
        # "        out NAME   float32 [1,8,32]"
        c_shapes = {}
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[0] == "out" and f[3].startswith("["):
                c_shapes[f[1]] = [int(d) for d in f[3].strip("[]").split(",") if d]
        if p.returncode != 0 or not c_shapes:
            bad("%s: npukit model-info: status %d: %s" % (name, p.returncode, p.stderr))
            continue
        g = onnx_ref.load_sidecar(base + ".npz")
        x = np.load(base + "_samples.npy")[:1]
        names = [o for n in g["nodes"] for o in n["outputs"] if o]
        vals = onnx_ref.run(g, {g["inputs"][0]["name"]: x}, names)
        differ = ["%s: C %s, reference %s" % (k, c_shapes.get(k), list(v.shape))
                  for k, v in vals.items() if c_shapes.get(k) != list(v.shape)]
        if differ or len(c_shapes) != len(names):
            bad("%s: %d values in model-info, %d in the reference; differ: %s"
                % (name, len(c_shapes), len(names), differ))
        else:
            ok("%s: model-info's shapes of all %d node outputs are the reference's"
               % (name, len(names)))


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--shapes":
        test_shapes(os.path.abspath(sys.argv[1]), sys.argv[3])
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    if len(sys.argv) != 2:
        print("usage: test_onnx_ref.py MODELS_DIR [--shapes NPUKIT]", file=sys.stderr)
        return 2
    models_dir = os.path.abspath(sys.argv[1])
    test_operators()
    test_every_operator_covered(os.path.dirname(os.path.dirname(models_dir)))
    test_graph_errors()
    test_models(models_dir)
    with tempfile.TemporaryDirectory() as tmp:
        test_cli(models_dir, tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
