"""aiGraphcore.multiconv through the Python Builder, called as PopART scripts call it (a list of
[x, w(, b)] lists, per-convolution lists of lists, PopART's keyword names): values against
torch.nn.functional.conv1d / conv2d / conv3d, gradients of data, weights and bias against
torch.autograd (anchored as reservedGradientPrefix() + id), the ONNX node PopART writes (read back
with onnx, and a hand-written node imported), and PopART's errors."""
import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper  # noqa: F401  (onnx.numpy_helper.from_array)
import pytest
import torch
from conftest import train_step_lr0

F = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}


def torch_conv(x, w, b=None, strides=None, pads=None, dilations=None):
    """torch's convolution with ONNX's pads (begins, then ends; torch pads symmetrically, so an
    asymmetric pad is applied with F.pad first). Groups from the shapes, as PopART infers them."""
    n = x.dim() - 2
    pads = pads or [0] * (2 * n)
    # F.pad takes the last dimension first: (end_lo, end_hi, ..., first_lo, first_hi)
    spec = []
    for d in reversed(range(n)):
        spec += [pads[d], pads[d + n]]
    x = torch.nn.functional.pad(x, spec)
    return F[n](x, w, b, stride=strides or 1, dilation=dilations or 1, groups=x.shape[1] // w.shape[1])


def rand(shape, seed):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


CONVS = [
    # (x shape, w shape, bias, strides, pads, dilations)
    ((1, 6, 5, 5), (9, 6, 3, 3), False, [1, 1], [2, 2, 2, 2], [1, 1]),
    ((2, 3, 7, 6), (4, 3, 2, 2), True, [2, 1], [0, 1, 1, 0], [2, 2]),
    ((2, 4, 9), (4, 2, 3), True, [2], [1, 2], [2]),  # 2 groups
    ((1, 2, 4, 3, 5), (3, 2, 2, 1, 3), False, [1, 1, 2], [1, 0, 0, 0, 1, 1], [1, 1, 1]),
]


@pytest.mark.parametrize("picked", [(0, 1), (2, 3, 0), (1,), (3, 2)])
def test_multiconv_matches_torch(popart, picked):
    convs = [CONVS[i] for i in picked]
    b = popart.Builder()
    feeds, tensors, ref = {}, [], []
    for k, (xs, ws, has_bias, s, p, d) in enumerate(convs):
        x, w, bias = rand(xs, 3 * k), rand(ws, 3 * k + 1), rand(ws[0], 3 * k + 2)
        xi = b.addInputTensor(popart.TensorInfo(x))
        feeds[xi] = x
        t = [xi, b.addInitializedInputTensor(w)]
        if has_bias:
            t.append(b.addInputTensor(popart.TensorInfo(bias)))
            feeds[t[-1]] = bias
        tensors.append(t)
        ref.append(torch_conv(torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
                              torch.tensor(bias, dtype=torch.float64) if has_bias else None, s, p, d).numpy())
    outs = b.aiGraphcore.multiconv(tensors, dilations=[c[5] for c in convs], pads=[c[4] for c in convs],
                                   strides=[c[3] for c in convs])
    assert isinstance(outs, list) and len(outs) == len(convs)
    for o, r in zip(outs, ref):
        assert b.getTensorShape(o) == list(r.shape)
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, a))
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(a[o], r, rtol=1e-5, atol=1e-5)


def test_multiconv_defaults_and_shapes(popart):
    # PopART's shape-inference test: defaults (stride 1, no pads, dilation 1) and one conv with lists.
    b = popart.Builder()
    d0 = b.addInputTensor("FLOAT", [1, 6, 4])
    f0 = b.addInputTensor("FLOAT", [9, 6, 3])
    d1 = b.addInputTensor("FLOAT", [2, 3, 5, 5])
    f1 = b.addInputTensor("FLOAT", [4, 3, 2, 2])
    c0, c1 = b.aiGraphcore.multiconv([[d0, f0], [d1, f1]])
    assert b.getTensorShape(c0) == [1, 9, 2] and b.getTensorShape(c1) == [2, 4, 4, 4]
    [c2] = b.aiGraphcore.multiconv([[d1, f1]], pads=[[0, 0, 0, 0]], dilations=[[2, 2]], strides=[[1, 1]])
    assert b.getTensorShape(c2) == [2, 4, 3, 3]
    # inDilations and outPads: (5 - 1) * 2 + 1 = 9 dilated, 9 - 1 = 8 outputs, + 1 + 2 padding.
    [c3] = b.aiGraphcore.multiconv([[d1, f1]], inDilations=[[2, 1]], outPads=[[1, 0, 2, 0]])
    assert b.getTensorShape(c3) == [2, 4, 11, 4]


def test_multiconv_input_dilations_and_output_padding(popart):
    # torch: an input dilation is a transposed convolution's stride; checked here by inserting the
    # zeros by hand, and the output padding with F.pad.
    x, w, bias = rand((2, 3, 4, 5), 1), rand((2, 3, 2, 3), 2), rand(2, 3)
    b = popart.Builder()
    xi = b.addInputTensor(popart.TensorInfo(x))
    wi, bi = b.addInitializedInputTensor(w), b.addInitializedInputTensor(bias)
    [y] = b.aiGraphcore.multiconv([[xi, wi, bi]], inDilations=[[2, 3]], outPads=[[1, 0, 0, 2]], pads=[[0, 1, 1, 0]],
                                  strides=[[1, 2]])
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x}, a))
    xd = np.zeros((2, 3, 7, 13), np.float64)
    xd[:, :, ::2, ::3] = x
    ref = torch_conv(torch.tensor(xd), torch.tensor(w, dtype=torch.float64), torch.tensor(bias, dtype=torch.float64),
                     [1, 2], [0, 1, 1, 0])
    ref = torch.nn.functional.pad(ref, (0, 2, 1, 0)).numpy()
    assert a[y].shape == ref.shape
    np.testing.assert_allclose(a[y], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("with_lists", [False, True])
def test_multiconv_gradients_match_torch(popart, with_lists):
    x0, w0 = rand((1, 4, 6, 5), 1), rand((6, 2, 3, 3), 2)          # 2 groups, no bias
    x1, w1, b1 = rand((2, 3, 7), 3), rand((4, 3, 2), 4), rand(4, 5)  # 1-D with bias
    strides = [[2, 1], [2]] if with_lists else []
    pads = [[1, 0, 1, 2], [1, 1]] if with_lists else []
    dil = [[1, 2], [3]] if with_lists else []
    b = popart.Builder()
    ids = [b.addInitializedInputTensor(v) for v in (x0, w0, x1, w1, b1)]
    c0, c1 = b.aiGraphcore.multiconv([ids[:2], ids[2:]], dilations=dil, pads=pads, strides=strides)
    r0 = np.random.default_rng(7).uniform(-1, 1, b.getTensorShape(c0)).astype(np.float32)
    r1 = np.random.default_rng(8).uniform(-1, 1, b.getTensorShape(c1)).astype(np.float32)
    k0, k1 = b.addInputTensor(popart.TensorInfo(r0)), b.addInputTensor(popart.TensorInfo(r1))
    s0 = b.aiOnnx.reducesum([b.aiOnnx.mul([c0, k0])], keepdims=0)
    s1 = b.aiOnnx.reducesum([b.aiOnnx.mul([c1, k1])], keepdims=0)
    loss = b.aiGraphcore.identityloss([b.aiOnnx.add([s0, s1])])
    anchors = [c0, c1] + [popart.reservedGradientPrefix() + i for i in ids]
    a = train_step_lr0(popart, b, loss, anchors, {k0: r0, k1: r1})

    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x0, w0, x1, w1, b1)]
    t0 = torch_conv(ts[0], ts[1], None, strides[0] if strides else None, pads[0] if pads else None,
                    dil[0] if dil else None)
    t1 = torch_conv(ts[2], ts[3], ts[4], strides[1] if strides else None, pads[1] if pads else None,
                    dil[1] if dil else None)
    ((t0 * torch.tensor(r0, dtype=torch.float64)).sum() + (t1 * torch.tensor(r1, dtype=torch.float64)).sum()).backward()
    np.testing.assert_allclose(a[c0], t0.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a[c1], t1.detach().numpy(), rtol=1e-5, atol=1e-5)
    for i, t in zip(ids, ts):
        np.testing.assert_allclose(a[popart.reservedGradientPrefix() + i], t.grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=i)


def test_multiconv_node_as_popart_writes_it(popart):
    b = popart.Builder()
    x0 = b.addInputTensor("FLOAT", [1, 2, 5, 5])
    w0 = b.addInputTensor("FLOAT", [3, 2, 3, 3])
    x1 = b.addInputTensor("FLOAT", [1, 2, 7])
    w1 = b.addInputTensor("FLOAT", [4, 2, 2])
    b1 = b.addInputTensor("FLOAT", [4])
    outs = b.aiGraphcore.multiconv([[x0, w0], [x1, w1, b1]], dilations=[[1, 1], [2]], pads=[[1, 1, 1, 1], [0, 1]],
                                   strides=[[2, 2], [1]], availableMemoryProportions=[0.9, 0.2],
                                   partialsTypes=["float", "half"], planType="serial", perConvReservedTiles=100,
                                   cycleBackOff=0.3, enableConvDithering=[True, False])
    model = onnx.load_model_from_string(b.getModelProto())
    [node] = model.graph.node
    assert (node.op_type, node.domain) == ("MultiConv", "ai.graphcore")
    assert list(node.input) == [x0, w0, "", x1, w1, b1] and list(node.output) == outs
    a = {at.name: oh.get_attribute_value(at) for at in node.attribute}
    assert a["numConvs"] == 2
    assert a["dilations"] == [1, 1, 2] and a["pads"] == [1, 1, 1, 1, 0, 1] and a["strides"] == [2, 2, 1]
    assert "inDilations" not in a and "outPads" not in a
    np.testing.assert_allclose(a["__available_memory"], [0.9, 0.2], rtol=1e-6)
    assert a["__partials_type"] == [b"float", b"half"]
    assert a["__enable_conv_dithering"] == [1, 0]
    assert a["planType"] == b"serial" and a["perConvReservedTiles"] == 100
    assert a["cycleBackOff"] == pytest.approx(0.3)


def test_multiconv_imports_a_hand_written_node(popart):
    # The last convolution's absent bias left out (5 inputs for 2 convolutions); IPU hints ignored.
    x0, w0, bias0 = rand((1, 2, 4, 4), 1), rand((2, 2, 3, 3), 2), rand(2, 3)
    x1, w1 = rand((1, 1, 5), 4), rand((2, 1, 2), 5)
    node = oh.make_node("MultiConv", ["x0", "w0", "b0", "x1", "w1"], ["y0", "y1"], domain="ai.graphcore", numConvs=2,
                        pads=[1, 1, 1, 1, 0, 0], strides=[1, 1, 2], __partials_type=["half", "half"])
    graph = oh.make_graph([node], "g", [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, v.shape)
                                        for n, v in (("x0", x0), ("x1", x1))],
                          [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in ("y0", "y1")],
                          [onnx.numpy_helper.from_array(v, n) for n, v in (("w0", w0), ("b0", bias0), ("w1", w1))])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y0", "y1"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x0": x0, "x1": x1}, a))
    r0 = torch_conv(torch.tensor(x0), torch.tensor(w0), torch.tensor(bias0), None, [1, 1, 1, 1])
    r1 = torch_conv(torch.tensor(x1), torch.tensor(w1), None, [2])
    np.testing.assert_allclose(a["y0"], r0.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a["y1"], r1.numpy(), rtol=1e-5, atol=1e-5)


def test_multiconv_errors(popart):
    b = popart.Builder()
    d0 = b.addInputTensor("FLOAT", [1, 2, 4, 4])
    f0 = b.addInputTensor("FLOAT", [10, 2, 3, 3])
    mc = b.aiGraphcore.multiconv
    with pytest.raises(popart.popart_exception) as e:
        mc([[d0, f0], [d0, f0]], dilations=[[1, 1], [2, 2, 2]])
    assert e.value.args[0] == "Length of dilations vector 3 != number of spatial dimensions 2"
    with pytest.raises(popart.popart_exception) as e:
        mc([[d0, f0], [d0, f0]], dilations=[[1, 1], [2, 2], [3, 3]])
    assert e.value.args[0].endswith("number of dilations parameter sets (3) does not match the number of input sets (2)")
    with pytest.raises(popart.popart_exception, match="must have at least two inputs - data and weights$"):
        mc([[d0], [d0, f0]])
    with pytest.raises(popart.popart_exception, match="can have at most three inputs - data, weights, and bias$"):
        mc([[d0, f0, d0, f0], [d0, f0]])
    with pytest.raises(popart.popart_exception, match="has no input tensors. Provide at least one set of inputs"):
        mc([])
    with pytest.raises(popart.popart_exception, match="number of partialsTypes parameter sets"):
        mc([[d0, f0]], partialsTypes=["float", "float"])
    with pytest.raises(popart.popart_exception, match=r"availableMemoryProportion must be in \(0,1\]"):
        mc([[d0, f0]], availableMemoryProportions=[0.0])
    with pytest.raises(popart.popart_exception, match=r"strides\[0\] must be a list of integers"):
        mc([[d0, f0]], strides=[2, 2])
    with pytest.raises(popart.popart_exception, match="list of input lists"):
        mc(d0)


@pytest.mark.parametrize("dtype,tol", [(np.float16, 2e-3), (np.float64, 1e-12)])
def test_multiconv_float16_and_double(popart, dtype, tol):
    # FLOAT16 computes in float partials (the Conv kernel's), DOUBLE in double; input dilation and
    # output padding move the 16-bit elements as they are.
    x = np.random.default_rng(1).uniform(-1, 1, (1, 2, 5, 4)).astype(dtype)
    w = np.random.default_rng(2).uniform(-1, 1, (3, 2, 2, 2)).astype(dtype)
    b = popart.Builder()
    xi, wi = b.addInputTensor(popart.TensorInfo(x)), b.addInitializedInputTensor(w)
    [y] = b.aiGraphcore.multiconv([[xi, wi]], inDilations=[[2, 1]], outPads=[[1, 0, 0, 1]])
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x}, a))
    xd = np.zeros((1, 2, 9, 4))
    xd[:, :, ::2, :] = x
    ref = torch.nn.functional.conv2d(torch.tensor(xd), torch.tensor(w.astype(np.float64)))
    ref = torch.nn.functional.pad(ref, (0, 1, 1, 0)).numpy()
    assert a[y].dtype == dtype and a[y].shape == ref.shape
    np.testing.assert_allclose(a[y].astype(np.float64), ref, rtol=tol, atol=tol)
