"""Numerics where PopART and naive implementations differ: Resize's coordinate transformations and
nearest modes against ONNX's reference implementation, PopART's nearest_mode "pytorch" against
PyTorch, LogSoftmax / Softmax of large inputs, and the TensorFlow variant of RMSProp against a
NumPy reference in double precision."""
import itertools

import numpy as np
import pytest
import torch
from onnx.backend.test.case.node.resize import cubic_coeffs, interpolate_nd, linear_coeffs, nearest_coeffs

from conftest import rand


def infer(popart, build, feeds, opset=13):
    b = popart.Builder(opsets={"ai.onnx": opset, "ai.graphcore": 1})
    ids = [b.addInputTensor(popart.TensorInfo(a), "in%d" % i) for i, a in enumerate(feeds)]
    outs = build(b, b.aiOnnx, ids)
    outs = [outs] if isinstance(outs, str) else list(outs)
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    return [a[o] for o in outs]


# ------------------------------------------------------------------ Resize

RESIZE_X = rand(1, 1, 4, 5, seed=1)
NEAREST_MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
COORD_MODES = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"]
TARGETS = [("scales", [1, 1, 2.0, 3.0]), ("scales", [1, 1, 0.6, 0.5]), ("scales", [1, 1, 1.7, 0.3]),
           ("sizes", [1, 1, 7, 3]), ("sizes", [1, 1, 1, 1]), ("scales", [1, 1, 0.3, 0.25])]
ROI = [0, 0, 0.2, 0.3, 1, 1, 0.9, 1.2]


def resize_case(popart, mode, coord, nearest, kind, target):
    roi = ROI if coord == "tf_crop_and_resize" else None

    def build(b, ai, i):
        ins = [i[0], ai.constant(np.array(roi or [], np.float32))]
        ins += [ai.constant(np.array(target, np.float32))] if kind == "scales" else \
            ["", ai.constant(np.array(target, np.int64))]
        return ai.resize(ins, mode=mode, coordinate_transformation_mode=coord, nearest_mode=nearest,
                         extrapolation_value=-7.0)

    (got,) = infer(popart, build, [RESIZE_X])
    coeffs = {"nearest": lambda r: nearest_coeffs(r, nearest), "linear": linear_coeffs, "cubic": cubic_coeffs}[mode]
    want = interpolate_nd(RESIZE_X, coeffs, output_size=target if kind == "sizes" else None,
                          scale_factors=np.array(target, np.float32) if kind == "scales" else None,
                          roi=None if roi is None else np.array(roi, np.float32),
                          coordinate_transformation_mode=coord, extrapolation_value=-7.0)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("coord", COORD_MODES)
@pytest.mark.parametrize("nearest", NEAREST_MODES)
def test_resize_nearest_matches_onnx_reference(popart, coord, nearest):
    for kind, target in TARGETS:
        resize_case(popart, "nearest", coord, nearest, kind, target)


@pytest.mark.parametrize("mode, coord", itertools.product(["linear", "cubic"], COORD_MODES))
def test_resize_linear_cubic_match_onnx_reference(popart, mode, coord):
    for kind, target in TARGETS:
        resize_case(popart, mode, coord, "round_prefer_floor", kind, target)


@pytest.mark.parametrize("scale", [2.0, 3.0001, 0.51, 1.5])
def test_resize_pytorch_nearest_mode_matches_torch(popart, scale):
    # PopART's nearest_mode "pytorch" (Resize-10's default there): index floor(x / scale).
    x = rand(1, 1, 6, seed=2)
    scales = np.array([1, 1, scale], np.float32)
    for opset, attrs in ((10, {}), (11, {"nearest_mode": "pytorch"})):
        def build(b, ai, i):
            if opset == 10:
                return ai.resize([i[0], ai.constant(scales)])
            return ai.resize([i[0], ai.constant(np.array([], np.float32)), ai.constant(scales)], **attrs)

        (got,) = infer(popart, build, [x], opset=opset)
        want = torch.nn.functional.interpolate(torch.from_numpy(x), scale_factor=float(scales[2]),
                                               recompute_scale_factor=False).numpy()
        np.testing.assert_array_equal(got, want)


def test_resize_output_size_rounds_in_float(popart):
    # 6 x float(5/6) is 5 in float arithmetic (PopART), 4.9999998 in double.
    x = rand(1, 1, 6, seed=3)
    (got,) = infer(popart, lambda b, ai, i: ai.resize([i[0], ai.constant(np.array([], np.float32)),
                                                       ai.constant(np.array([1, 1, 5 / 6], np.float32))],
                                                      mode="linear",
                                                      coordinate_transformation_mode="pytorch_half_pixel"), [x])
    want = torch.nn.functional.interpolate(torch.from_numpy(x), size=5, mode="linear", align_corners=False).numpy()
    assert got.shape == (1, 1, 5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ Softmax / LogSoftmax

@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax_and_logsoftmax_of_large_inputs(popart, axis, dtype):
    big = 30000.0 if dtype == np.float16 else 1e4  # x - max stays within half's range (65504)
    x = np.array([[0, 1, 2, 3], [big, big + 1, big + 2, big + 3], [-big, 0, big, 5]], np.float64).astype(dtype)
    ls, sm = infer(popart, lambda b, ai, i: [ai.logsoftmax([i[0]], axis), ai.softmax([i[0]], axis)], [x])
    xd = x.astype(np.float64)
    lse = xd.max(axis, keepdims=True) + np.log(np.exp(xd - xd.max(axis, keepdims=True)).sum(axis, keepdims=True))
    tol = 2e-3 if dtype == np.float16 else 1e-6
    assert np.all(np.isfinite(ls)) and np.all(np.isfinite(sm))
    np.testing.assert_allclose(ls.astype(np.float64), xd - lse, rtol=tol, atol=tol)
    np.testing.assert_allclose(sm.astype(np.float64), np.exp(xd - lse), rtol=tol, atol=tol)


def test_logsoftmax_gradient_of_large_inputs(popart):
    x = np.array([[0, 1, 2, 3], [10000, 10001, 10002, 10003]], np.float32)
    b = popart.Builder(opsets={"ai.onnx": 13, "ai.graphcore": 1})
    w = b.addInitializedInputTensor(x, "w")
    y = b.aiOnnx.logsoftmax([w], 1)
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [y]), loss, popart.ConstSGD(1.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, a))
    tw = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ty = torch.log_softmax(tw, 1)
    ty.abs().sum().backward()
    np.testing.assert_allclose(a[y], ty.detach().numpy(), rtol=1e-6, atol=1e-6)
    out = {w: np.zeros_like(x)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_allclose(out[w], (tw - tw.grad).detach().numpy(), rtol=1e-6, atol=2e-3)


# ------------------------------------------------------------------ RMSProp, TensorFlow's variant

def rmsprop_reference(w, grads, lr, alpha, eps, momentum, wd, l2, centered, tf):
    """Steps of PopART's Adaptive (RMSProp / CenteredRMSProp) in double. TF variant: the mean square
    starts at 1 and eps is inside the square root, lr is folded into the momentum buffer."""
    w = w.astype(np.float64)
    ms = np.ones_like(w) if tf else np.zeros_like(w)
    mg = np.zeros_like(w)
    mom = np.zeros_like(w)
    for g, lr_k, wd_k in zip(grads, lr, wd):
        g = g(w)
        if l2:
            g = g + wd_k * w
        ms = alpha * ms + (1 - alpha) * g * g
        var = ms
        if centered:
            mg = alpha * mg + (1 - alpha) * g
            var = ms - mg * mg
        x = g / np.sqrt(var + eps) if tf else g / (np.sqrt(var) + eps)
        decay = 0.0 if l2 else wd_k
        if momentum > 0 and tf:
            mom = momentum * mom + lr_k * x
            w = w - (mom + decay * w)
        elif momentum > 0:
            mom = momentum * mom + x
            w = w - lr_k * (mom + decay * w)
        else:
            w = w - lr_k * (x + decay * w)
    return w


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("mode", ["RMSProp", "CenteredRMSProp"])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("wd_mode", ["Decay", "L2Regularization"])
@pytest.mark.parametrize("tf", [True, False])
def test_rmsprop_against_numpy(popart, dtype, mode, momentum, wd_mode, tf):
    # loss = sum((x·w - target)²)/2 summed over the batch: dL/dw = sum x (x·w - target).
    steps, alpha, eps = 6, 0.9, 1e-3
    lrs = np.linspace(0.05, 0.01, steps)
    wds = np.linspace(0.01, 0.02, steps)
    x = rand(4, 3, seed=10)
    target = rand(4, 1, seed=11)
    w0 = rand(3, 1, seed=12).astype(dtype)
    b = popart.Builder(opsets={"ai.onnx": 13, "ai.graphcore": 1})
    xi = b.addInputTensor(popart.TensorInfo(x.astype(dtype)), "x")
    ti = b.addInputTensor(popart.TensorInfo(target.astype(dtype)), "t")
    wi = b.addInitializedInputTensor(w0, "w")
    r = b.aiOnnx.sub([b.aiOnnx.matmul([xi, wi]), ti])
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([b.aiOnnx.mul([r, r]), b.aiOnnx.constant(np.array(0.5, dtype))])],
                                      reduction=popart.ReductionType.Sum)

    def opt(k):
        return popart.Adaptive({"defaultLearningRate": (lrs[k], False), "defaultAlpha": (alpha, True),
                                "defaultMomentum": (momentum, True), "defaultEps": (eps, True),
                                "defaultWeightDecay": (wds[k], False)},
                               mode=getattr(popart.AdaptiveMode, mode),
                               weight_decay_mode=getattr(popart.WeightDecayMode, wd_mode), rmsprop_tf_variant=tf)

    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, opt(0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    for k in range(steps):
        if k:
            s.updateOptimizerFromHost(opt(k))
        s.run(popart.PyStepIO({xi: x.astype(dtype), ti: target.astype(dtype)}, a))
    out = {wi: np.zeros((3, 1), dtype)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    xd, td = x.astype(dtype).astype(np.float64), target.astype(dtype).astype(np.float64)
    want = rmsprop_reference(w0, [lambda w: xd.T @ (xd @ w - td)] * steps, lrs, alpha, eps, momentum, wds,
                             wd_mode == "L2Regularization", mode == "CenteredRMSProp", tf)
    if dtype == np.float32:
        np.testing.assert_allclose(out[wi], want, rtol=1e-5, atol=1e-6)
    else:  # FLOAT16 weights, gradients and Accl3; FLOAT Accl1 / Accl2 (PopART's defaults)
        np.testing.assert_allclose(out[wi].astype(np.float64), want, rtol=1e-2, atol=1e-2)


def test_rmsprop_tf_variant_state_starts_at_one(popart):
    b = popart.Builder(opsets={"ai.onnx": 13, "ai.graphcore": 1})
    w = b.addInitializedInputTensor(np.zeros(2, np.float32), "w")
    loss = b.aiGraphcore.identityloss([w], reduction=popart.ReductionType.Sum)
    for tf, ms in ((True, 1.0), (False, 0.0)):
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                                   popart.Adaptive({"defaultAlpha": (0.5, True)}, rmsprop_tf_variant=tf),
                                   popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
        s.weightsFromHost()
        s.run(popart.PyStepIO({}, s.initAnchorArrays()))
        out = {"Accl1___w": np.zeros(2, np.float32)}
        s.weightsToHost()
        s.readWeights(popart.PyWeightsIO(out))
        np.testing.assert_allclose(out["Accl1___w"], 0.5 * ms + 0.5 * 1.0)  # g = 1


def test_rmsprop_tf_variant_only_with_rmsprop_modes(popart):
    for mode in (popart.AdaptiveMode.AdaGrad, popart.AdaptiveMode.AdaDelta):
        with pytest.raises(popart.popart_exception, match="The rmspropTFVariant parameter is only valid with the "
                                                          "RMSProp and CenteredRMSProp optimizers."):
            popart.Adaptive({}, mode=mode, rmsprop_tf_variant=True)
