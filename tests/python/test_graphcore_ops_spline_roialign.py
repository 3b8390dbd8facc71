"""aiGraphcore splinebasis / splineweighting and ONNX RoiAlign through the Python Builder, called as
PopART scripts call them: the spline basis against scipy's B-splines (open and closed splines of
degree 1 to 3), splineweighting against its definition in NumPy (double), RoiAlign against
torchvision.ops.roi_align (aligned=False, PopART's reading; aligned=True for opset 16's half_pixel)
with X's gradient against torch.autograd; the errors they raise."""
import itertools

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper  # noqa: F401  (onnx.numpy_helper.from_array)
import pytest
import torch
from scipy.interpolate import BSpline

from conftest import grads, run

torchvision = pytest.importorskip("torchvision")


# ---------------------------------------------------------------- splinebasis / splineweighting

def spline_basis_ref(pseudo, kernel_size, is_open, degree):
    """[basis, weightIndex] from the B-spline definition: per dimension, u = pseudo * (K - degree *
    open) lies in knot interval floor(u); control point floor(u) + k (mod K) has weight
    B(u - floor(u) + degree - k) for the cardinal B-spline B of the degree (scipy), products over
    every choice of k per dimension, dimension 0 varying fastest."""
    E, D = pseudo.shape
    b = BSpline.basis_element(np.arange(degree + 2, dtype=np.float64), extrapolate=False)
    basis, index = [], []
    for e in range(E):
        rb, ri = [], []
        for ks in itertools.product(range(degree + 1), repeat=D):
            ks = ks[::-1]  # dimension 0 fastest
            v, wi, stride = 1.0, 0, 1
            for d in range(D):
                u = np.float32(pseudo[e, d]) * np.float32(kernel_size[d] - (degree if is_open[d] else 0))
                knot = np.floor(np.float64(u))
                piece = float(b(np.float64(u) - knot + degree - ks[d])) if degree > 0 else 1.0
                v *= 0.0 if np.isnan(piece) else piece
                wi += int((int(knot) + ks[d]) % kernel_size[d]) * stride
                stride *= int(kernel_size[d])
            rb.append(v)
            ri.append(wi)
        basis.append(rb)
        index.append(ri)
    return np.array(basis), np.array(index, np.int32)


@pytest.mark.parametrize("degree,kernel_size,is_open", [
    (1, [5], [1]), (1, [5], [0]), (2, [4, 6], [1, 0]), (2, [5, 5], [0, 0]), (3, [5, 4], [1, 1]), (3, [6], [0]),
    (1, [3, 4, 5], [1, 0, 1])])
def test_splinebasis_matches_scipy_bsplines(popart, degree, kernel_size, is_open):
    rng = np.random.default_rng(degree)
    pseudo = rng.uniform(0, 1, (12, len(kernel_size))).astype(np.float32)
    ks, op = np.array(kernel_size, np.int32), np.array(is_open, np.uint8)
    basis, index = run(popart, lambda b, i: b.aiGraphcore.splinebasis(i, degree=degree), [pseudo, ks, op])
    want_b, want_i = spline_basis_ref(pseudo, ks, op, degree)
    assert basis.shape == ((12, (degree + 1) ** len(kernel_size))) and index.dtype == np.int32
    np.testing.assert_allclose(basis, want_b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(index, want_i)
    np.testing.assert_allclose(basis.sum(1), 1.0, rtol=1e-5)


def test_splineweighting_matches_its_definition(popart):
    rng = np.random.default_rng(5)
    E, Min, Mout, K, S = 9, 3, 4, 7, 4
    x = rng.normal(0, 1, (E, Min)).astype(np.float32)
    w = rng.normal(0, 1, (K, Min, Mout)).astype(np.float32)
    basis = rng.uniform(0, 1, (E, S)).astype(np.float32)
    index = rng.integers(0, K, (E, S)).astype(np.int32)
    y = run(popart, lambda b, i: b.aiGraphcore.splineweighting(i), [x, w, basis, index])
    want = np.einsum("es,ei,esio->eo", basis.astype(np.float64), x.astype(np.float64), w.astype(np.float64)[index])
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_spline_convolution_node_as_popart_writes_it(popart):
    # ai.graphcore SplineBasis / SplineWeighting nodes in an ONNX model (PopART's op names).
    rng = np.random.default_rng(6)
    pseudo = rng.uniform(0, 1, (6, 2)).astype(np.float32)
    ks, op = np.array([3, 4], np.int32), np.array([1, 0], np.uint8)
    x = rng.normal(0, 1, (6, 2)).astype(np.float32)
    w = rng.normal(0, 1, (12, 2, 3)).astype(np.float32)
    nodes = [oh.make_node("SplineBasis", ["pseudo", "ks", "open"], ["basis", "index"], domain="ai.graphcore", degree=1),
             oh.make_node("SplineWeighting", ["x", "w", "basis", "index"], ["y"], domain="ai.graphcore")]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("pseudo", onnx.TensorProto.FLOAT, pseudo.shape),
                                       oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
                          [onnx.numpy_helper.from_array(a, n) for a, n in ((ks, "ks"), (op, "open"), (w, "w"))])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"pseudo": pseudo, "x": x}, a))
    basis, index = spline_basis_ref(pseudo, ks, op, 1)
    want = np.einsum("es,ei,esio->eo", basis, x.astype(np.float64), w.astype(np.float64)[index])
    np.testing.assert_allclose(a["y"], want, rtol=1e-5, atol=1e-5)


def test_spline_errors(popart):
    b = popart.Builder()
    p = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 2]))
    ks = b.addInputTensor(popart.TensorInfo("INT32", [2]))
    op = b.addInputTensor(popart.TensorInfo("UINT8", [2]))
    bad = b.aiGraphcore.splinebasis([p, ks, op], degree=5)[0]
    b.addOutputTensor(bad)
    with pytest.raises(popart.popart_exception, match=r"SplineBasisOp degree = 5 is not valid: must be between 0 and 3\."):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [bad]),
                                popart.DeviceManager().createCpuDevice())
    with pytest.raises(TypeError, match="degree"):
        b.aiGraphcore.splinebasis([p, ks, op])
    # No gradient (as PopART): training through splineweighting names the op.
    x = np.ones((3, 2), np.float32)
    w = np.ones((2, 2, 2), np.float32)
    with pytest.raises(popart.popart_exception, match="SplineWeighting"):
        grads(popart, lambda bb, ws, ins: bb.aiGraphcore.splineweighting([ws[0], ws[1], ins[0], ins[1]]), [x, w],
              [np.full((3, 1), 0.5, np.float32), np.zeros((3, 1), np.int32)])


# ---------------------------------------------------------------- RoiAlign

def roi_case(seed, n=2, c=3, h=9, w=11, r=7):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, (n, c, h, w)).astype(np.float32)
    boxes = np.sort(rng.uniform(-3, 14, (r, 2, 2)), axis=1).reshape(r, 4).astype(np.float32)  # x1 y1 x2 y2
    idx = rng.integers(0, n, r)
    return x, boxes, idx


def torch_roi_align(x, boxes, idx, oh_, ow, scale, ratio, aligned, dtype=torch.float64):
    rois = torch.tensor(np.concatenate([idx.reshape(-1, 1), boxes], 1), dtype=dtype)
    return torchvision.ops.roi_align(torch.tensor(x, dtype=dtype), rois, (oh_, ow), scale, ratio, aligned)


@pytest.mark.parametrize("ratio,scale,index_type", [(2, 1.0, np.int64), (0, 0.5, np.int64), (1, 0.75, np.int32),
                                                    (3, 1.0, np.int32)])
def test_roialign_opset10_matches_torchvision(popart, ratio, scale, index_type):
    x, boxes, idx = roi_case(ratio)
    y = run(popart, lambda b, i: b.aiOnnx.roialign(i, output_height=3, output_width=4, sampling_ratio=ratio,
                                                   spatial_scale=scale), [x, boxes, idx.astype(index_type)])
    ref = torch_roi_align(x, boxes, idx, 3, 4, scale, ratio if ratio > 0 else -1, False)
    np.testing.assert_allclose(y, ref.numpy(), rtol=1e-5, atol=1e-5)


def test_roialign_opset16_half_pixel_matches_torchvision_aligned(popart):
    x, boxes, idx = roi_case(7)
    b = popart.Builder(opsets={"ai.onnx": 16, "ai.graphcore": 1})
    ids = [b.addInputTensor(popart.TensorInfo(a)) for a in (x, boxes, idx)]
    y = b.aiOnnx.roialign(ids, output_height=2, output_width=3, sampling_ratio=2, spatial_scale=0.8)
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, (x, boxes, idx))), a))
    np.testing.assert_allclose(a[y], torch_roi_align(x, boxes, idx, 2, 3, 0.8, 2, True).numpy(), rtol=1e-5, atol=1e-5)


def test_roialign_gradient_of_x_matches_torch(popart):
    x, boxes, idx = roi_case(11, r=5)
    t, c, (gx,) = grads(popart, lambda b, w, i: b.aiOnnx.roialign([w[0], i[0], i[1]], output_height=3, output_width=3,
                                                                  sampling_ratio=2, spatial_scale=0.9),
                        [x], [boxes, idx.astype(np.int32)])
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    rois = torch.tensor(np.concatenate([idx.reshape(-1, 1), boxes], 1), dtype=torch.float64)
    ref = torchvision.ops.roi_align(xt, rois, (3, 3), 0.9, 2, False)
    (ref * torch.tensor(c, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(t, ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gx, xt.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_roialign_errors(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2, 4]))
    r = b.addInputTensor(popart.TensorInfo("FLOAT", [3, 4]))
    i = b.addInputTensor(popart.TensorInfo("INT64", [3]))
    y = b.aiOnnx.roialign([x, r, i], output_height=2, output_width=2)
    b.addOutputTensor(y)
    with pytest.raises(popart.popart_exception, match="The size of input data must be 4"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())


def test_spline_ops_in_float16(popart):
    # PopART's types: FLOAT16 (and FLOAT) data (computed in float, as the other 16-bit kernels).
    rng = np.random.default_rng(8)
    pseudo = rng.uniform(0, 1, (10, 2)).astype(np.float16)
    ks, op = np.array([4, 5], np.int32), np.array([1, 0], np.uint8)
    x = rng.normal(0, 1, (10, 3)).astype(np.float16)
    w = rng.normal(0, 1, (20, 3, 2)).astype(np.float16)

    def build(b, i):
        basis, index = b.aiGraphcore.splinebasis(i[:3], 3)
        return [basis, index, b.aiGraphcore.splineweighting([i[3], i[4], basis, index])]

    basis, index, y = run(popart, build, [pseudo, ks, op, x, w])
    assert basis.dtype == np.float16 and y.dtype == np.float16
    want_b, want_i = spline_basis_ref(pseudo.astype(np.float32), ks, op, 3)
    np.testing.assert_array_equal(index, want_i)
    np.testing.assert_allclose(basis, want_b, rtol=2e-3, atol=1e-3)
    want = np.einsum("es,ei,esio->eo", basis.astype(np.float64), x.astype(np.float64), w.astype(np.float64)[index])
    np.testing.assert_allclose(y, want, rtol=1e-2, atol=1e-2)
