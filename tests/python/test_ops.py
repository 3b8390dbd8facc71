"""Every op family of the op list once through the Python Builder (aiOnnx / aiGraphcore), against
NumPy or PyTorch. (String tensors have no NumPy dtype the module passes: the strings family is
covered by the C++ and JS suites.)"""
import numpy as np
import pytest
import torch

from conftest import rand


def run(popart, build, feeds, opset=17):
    """Builds `build(builder, aiOnnx, input ids)` over inputs shaped like `feeds`, runs it once on
    the CPU and returns the outputs (one array, or a list)."""
    b = popart.Builder(opsets={"ai.onnx": opset, "ai.graphcore": 1})
    ids = [b.addInputTensor(popart.TensorInfo(a), "in%d" % i) for i, a in enumerate(feeds)]
    outs = build(b, b.aiOnnx, ids)
    single = isinstance(outs, str)
    outs = [outs] if single else list(outs)
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    res = [a[o] for o in outs]
    return res[0] if single else res


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


X = rand(2, 3, 4, seed=1)
Y = np.abs(rand(2, 3, 4, seed=2)) + 0.5
IMG = rand(2, 3, 8, 8, seed=3)
W = rand(4, 3, 3, 3, seed=4)


CASES = {
    "elementwise": (lambda b, ai, i: [ai.add([i[0], i[1]]), ai.div([i[0], i[1]]), ai.exp([i[0]]),
                                      ai.pow([i[1], i[0]]), ai.max([i[0], i[1]]), ai.erf([i[0]])],
                    [X, Y], lambda: [X + Y, X / Y, np.exp(X), Y ** X, np.maximum(X, Y),
                                     torch.erf(t(X)).numpy()]),
    "activations": (lambda b, ai, i: [ai.relu([i[0]]), ai.sigmoid([i[0]]), ai.softmax([i[0]], 2),
                                      ai.leakyrelu([i[0]], 0.1), ai.hardswish([i[0]])],
                    [X], lambda: [np.maximum(X, 0), 1 / (1 + np.exp(-X)), torch.softmax(t(X), 2).numpy(),
                                  np.where(X > 0, X, 0.1 * X), torch.nn.functional.hardswish(t(X)).numpy()]),
    "shape": (lambda b, ai, i: [ai.transpose([i[0]], [2, 0, 1]), ai.concat([i[0], i[1]], 1),
                                b.reshape_const(ai, [i[0]], [4, 6]),
                                ai.slice([i[0], ai.constant(np.array([1], np.int64)),
                                          ai.constant(np.array([3], np.int64)),
                                          ai.constant(np.array([2], np.int64))]),
                                ai.cast([i[0]], "INT32")],
              [X, Y], lambda: [X.transpose(2, 0, 1), np.concatenate([X, Y], 1), X.reshape(4, 6), X[:, :, 1:3],
                               X.astype(np.int32)]),
    "reduce": (lambda b, ai, i: [ai.reducesum([i[0], ai.constant(np.array([1], np.int64))], keepdims=0),
                                 ai.reducemean([i[0]], axes=[2]), ai.argmax([i[0]], axis=1, keepdims=0)],
               [X], lambda: [X.sum(1), X.mean(2, keepdims=True), X.argmax(1)]),
    "matmul": (lambda b, ai, i: [ai.matmul([i[0], i[1]]), ai.gemm([i[0], i[1]], alpha=2.0)],
               [rand(3, 4, seed=5), rand(4, 5, seed=6)],
               lambda: [rand(3, 4, seed=5) @ rand(4, 5, seed=6), 2 * rand(3, 4, seed=5) @ rand(4, 5, seed=6)]),
    "conv": (lambda b, ai, i: [ai.conv([i[0], b.addInitializedInputTensor(W)], pads=[1, 1, 1, 1],
                                       strides=[2, 2])],
             [IMG], lambda: [torch.nn.functional.conv2d(t(IMG), t(W), padding=1, stride=2).numpy()]),
    "pool": (lambda b, ai, i: [ai.maxpool([i[0]], 1, [2, 2], strides=[2, 2])[0],
                               ai.averagepool([i[0]], [3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
                               ai.globalaveragepool([i[0]])],
             [IMG], lambda: [torch.nn.functional.max_pool2d(t(IMG), 2).numpy(),
                             torch.nn.functional.avg_pool2d(t(IMG), 3, 1, 1).numpy(),
                             IMG.mean((2, 3), keepdims=True)]),
    "norm": (lambda b, ai, i: [ai.batchnormalization([i[0]] + [b.addInitializedInputTensor(v) for v in (
                                   np.full(3, 1.5, np.float32), np.full(3, 0.1, np.float32),
                                   np.full(3, 0.2, np.float32), np.full(3, 2.0, np.float32))], 1)[0],
                               ai.instancenormalization([i[0], b.addInitializedInputTensor(np.ones(3, np.float32)),
                                                         b.addInitializedInputTensor(np.zeros(3, np.float32))])],
             [IMG], lambda: [1.5 * (IMG - 0.2) / np.sqrt(2.0 + 1e-5) + 0.1,
                             torch.nn.functional.instance_norm(t(IMG)).numpy()]),
    "gather": (lambda b, ai, i: [ai.gather([i[0], ai.constant(np.array([2, 0], np.int64))], axis=1),
                                 ai.topk([i[0], ai.constant(np.array([2], np.int64))], axis=2)[0]],
               [X], lambda: [X[:, [2, 0]], -np.sort(-X, 2)[:, :, :2]]),
    "tensor": (lambda b, ai, i: [ai.cumsum([i[0], ai.constant(np.array(1, np.int64))]),
                                 ai.trilu([b.reshape_const(ai, [i[0]], [6, 4])])],
               [X], lambda: [X.cumsum(1), np.triu(X.reshape(6, 4))]),
    "resize": (lambda b, ai, i: [ai.resize([i[0], "", ai.constant(np.array([1, 1, 2, 2], np.float32))],
                                           mode="nearest")],
               [IMG], lambda: [IMG.repeat(2, 2).repeat(2, 3)]),
    "linalg": (lambda b, ai, i: [ai.einsum([i[0], i[1]], "ij,jk->ik")],
               [rand(3, 4, seed=5), rand(4, 5, seed=6)], lambda: [rand(3, 4, seed=5) @ rand(4, 5, seed=6)]),
    "misc": (lambda b, ai, i: [ai.lrn([i[0]], 3)],
             [IMG], lambda: [torch.nn.functional.local_response_norm(t(IMG), 3).numpy()]),
    "quant": (lambda b, ai, i: [ai.dequantizelinear([ai.quantizelinear(
                  [i[0], ai.constant(np.array(0.1, np.float32)), ai.constant(np.array(10, np.uint8))]),
                  ai.constant(np.array(0.1, np.float32)), ai.constant(np.array(10, np.uint8))])],
              [X], lambda: [(np.clip(np.round(X / 0.1) + 10, 0, 255) - 10) * 0.1]),
    "signal": (lambda b, ai, i: [ai.hannwindow([ai.constant(np.array(8, np.int64))], periodic=0)],
               [X], lambda: [np.hanning(8).astype(np.float32)]),
    "losses": (lambda b, ai, i: [ai.softmaxcrossentropyloss([i[0], ai.constant(np.array([1, 3], np.int64))], 1)[0]],
               [rand(2, 5, seed=9)],
               lambda: [torch.nn.functional.cross_entropy(t(rand(2, 5, seed=9)), torch.tensor([1, 3])).numpy()]),
    "graphcore": (lambda b, ai, i: [b.aiGraphcore.scale([i[0]], 3.0), b.aiGraphcore.gelu([i[0]]),
                                    b.aiGraphcore.l1loss([i[0]], 0.5, reduction=popart_mod().ReductionType.Sum)],
                  [X], lambda: [3 * X, torch.nn.functional.gelu(t(X), approximate="tanh").numpy(), 0.5 * np.abs(X).sum()]),
}


def popart_mod():
    import popart
    return popart


@pytest.mark.parametrize("family", sorted(CASES))
def test_op_family(popart, family):
    build, feeds, ref = CASES[family]
    got = run(popart, build, feeds)
    for g, r in zip(got, ref()):
        r = np.asarray(r)
        assert g.shape == r.shape, family
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5, err_msg=family)


def test_random_family(popart):
    u = run(popart, lambda b, ai, i: ai.randomuniformlike([i[0]], seed=1.0), [X])
    assert u.shape == X.shape and (u >= 0).all() and (u < 1).all()


def test_rnn_family(popart):
    x, w, r = rand(3, 2, 4, seed=10), rand(1, 5, 4, seed=11) * 0.3, rand(1, 5, 5, seed=12) * 0.3
    y = run(popart, lambda b, ai, i: ai.rnn([i[0], b.addInitializedInputTensor(w), b.addInitializedInputTensor(r)],
                                            2, hidden_size=5)[0], [x])
    h = np.zeros((2, 5), np.float32)
    ref = []
    for step in range(3):
        h = np.tanh(x[step] @ w[0].T + h @ r[0].T)
        ref.append(h)
    np.testing.assert_allclose(y[:, 0], np.stack(ref), rtol=1e-4, atol=1e-5)


def test_controlflow_family(popart):
    def build(b, ai, i):
        branches = []
        for op in ("relu", "neg"):
            sub = b.createSubgraphBuilder()
            sub.addInputTensorFromParentGraph(i[0])
            sub.addOutputTensor(getattr(sub.aiOnnxOpset17, op)([i[0]]))
            branches.append(sub)
        cond = ai.constant(np.array(True))
        return ai.logical_if([cond], 1, branches[1], branches[0])[0]

    np.testing.assert_allclose(run(popart, build, [X]), np.maximum(X, 0))


def test_opset_versions_and_names(popart):
    b = popart.Builder(opsets={"ai.onnx": 9})
    assert b.aiOnnx.getOpsetVersion() == 9
    x = b.addInputTensor("FLOAT", [2, 2])
    assert b.aiOnnx.relu([x]) == "Relu:0"
    assert b.aiOnnx.relu([x]) == "Relu:0/1"
    with b.nameScope("scope"):
        assert b.aiOnnx.relu([x], debugContext="r").startswith("scope/r")
    assert "gather" in dir(b.aiOnnx) and "gelu" in dir(b.aiGraphcore)
    with pytest.raises(RuntimeError, match="already defined as 9"):
        b.aiOnnxOpset11
    assert "Adds ONNX Relu (version 6)" in b.aiOnnxOpset9.relu.__doc__
    out, mask = b.aiOnnx.dropout([x], 2, 0.5)  # num_outputs before the attributes
    assert isinstance(b.aiOnnx.dropout([x], ratio=0.1), list)  # num_outputs defaults to 1
    with pytest.raises(TypeError, match="num_outputs"):
        b.aiOnnx.maxpool([x], kernel_shape=[2, 2])  # required before kernel_shape
    # The constructor's opset holds before any op is added.
    with pytest.raises(RuntimeError) as e:
        popart.Builder(opsets={"ai.onnx": 9, "ai.graphcore": 1}).aiOnnxOpset8
    assert e.value.args[0].startswith("Invalid opset 'aiOnnxOpset8' selected. Opset for domain ai.onnx already "
                                      "defined as 9")


def test_builder_checks_window_parameters(popart):
    """PopART's Builder checks Conv / pooling windows and Pad's attribute as the op is added."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 4, 6, 6])
    w = b.addInputTensor("FLOAT", [8, 4, 1, 1])
    big = b.addInputTensor("FLOAT", [8, 4, 9, 9])
    with pytest.raises(popart.popart_exception) as e:
        b.aiOnnx.conv([x, w], kernel_shape=[3, 3])
    assert e.value.args[0] == "kernel_shape, [3 3], does not match inferred shape from weight input '%s', [1 1]" % w
    with pytest.raises(popart.popart_exception) as e:
        b.aiOnnx.conv([x, big], pads=[2, 0, 1, 0])
    assert e.value.args[0] == "Window parameter values combine to give invalid spatial output shape: [1 -2]"
    with pytest.raises(popart.popart_exception, match=r"^Length of strides vector 1 != number of spatial dimensions 2"):
        b.aiOnnx.maxpool([x], 1, kernel_shape=[2, 2], strides=[2])
    with pytest.raises(popart.popart_exception, match=r"^Padding vector \(length 2\) does not have 2 values"):
        b.aiOnnx.averagepool([x], kernel_shape=[2, 2], pads=[0, 0])
    with pytest.raises(popart.popart_exception, match=r"invalid spatial output shape: \[-1 -1\]"):
        b.aiOnnx.maxpool([x], 1, kernel_shape=[9, 9], strides=[2, 2])
    # The model is unchanged by the refused ops; a valid conv still builds.
    assert b.getTensorShape(b.aiOnnx.conv([x, w])) == [1, 8, 6, 6]
    b10 = popart.Builder()
    v = b10.addInputTensor("FLOAT", [10])
    with pytest.raises(popart.popart_exception, match=r"^Padding vector \(length 4\) doesn't contain 2 entries"):
        b10.aiOnnxOpset10.pad([v], [2, 3, 4, 5], "constant", 0.0)
    assert b10.getTensorShape(b10.aiOnnxOpset10.pad([v], [2, 3])) == [15]


def test_node_attributes_and_annotations(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 2], "x")
    with b.virtualGraph(1), b.pipelineStage(2):
        r = b.aiOnnx.relu([x])
    assert b.getVirtualGraph(r) == 1 and b.getPipelineStage(r) == 2
    n = b.aiOnnx.neg([x])
    assert not b.nodeHasAttribute("__ipu_number", [n])
    b.virtualGraph(n, 3)
    assert b.getInt64NodeAttribute("__ipu_number", [n]) == 3
    b.addNodeAttribute("test", [1.5, 2.5], {n})
    assert b.getFloatVectorNodeAttribute("test", [n]) == [1.5, 2.5]
    with pytest.raises(popart.popart_exception, match="Node already has attribute test"):
        b.addNodeAttribute("test", 1, {n})
    b.addNodeAttribute("s", "v", [n])
    assert b.getStringNodeAttribute("s", [n]) == "v"
    b.removeNodeAttribute("s", [n])
    with pytest.raises(popart.popart_exception, match="Node does not have an attribute s"):
        b.getStringNodeAttribute("s", [n])
    assert {"test", "__ipu_number"} <= set(b.getAllNodeAttributeNames([n]))
    b.setAvailableMemoryProportion(r, 0.3)
    b.setPartialsType(r, "HALF")
    with pytest.raises(popart.popart_exception) as e:
        b.setEnableConvDithering(r, True)
    assert e.value.args[0].startswith("Builder::setEnableConvDithering should only be called on convolutions")
    b.recomputeOutputInBackwardPass(r)
    w = b.addInitializedInputTensor(np.ones(2, np.float32), "w")
    assert b.getTrainableTensorIds() == [w] and b.isInitializer(w)
    assert b.getTensorShape(r) == [2, 2] and b.getTensorDtypeString(r) == "float32"
    import onnx
    m = onnx.load_from_string(b.getModelProto())
    assert any(a.name == "__ipu_number" for node in m.graph.node for a in node.attribute)
    xc = b.addInputTensor("FLOAT", [1, 1, 3, 3])
    c = b.aiOnnx.conv([xc, b.addInitializedInputTensor(np.ones([1, 1, 2, 2], np.float32))])
    b.setEnableConvDithering(c, True)
    assert b.getInt64NodeAttribute("__enable_conv_dithering", [c]) == 1
    with pytest.raises(popart.popart_exception, match="^enableConvDithering must be a bool value$"):
        b.setEnableConvDithering(c, 44)


@pytest.mark.parametrize("opset", [10, 11])
def test_subgraph_builder_takes_the_parents_opsets(popart, cpu, opset):
    """A Scan body built before the parent's aiOnnx is first used (PopART's own scan tests do
    this) is at the parent's opset, not the default one."""
    d0, d1 = np.array([0, 2, 4, 6], np.float32), np.array([1, 3, 5, 7], np.float32)
    b = popart.Builder(opsets={"ai.onnx": opset, "ai.graphcore": 1})
    t0, t1 = b.addInputTensor(popart.TensorInfo(d0)), b.addInputTensor(popart.TensorInfo(d1))
    sb = b.createSubgraphBuilder()
    sb.setGraphName("body")
    a, c = sb.addUntypedInputTensor(t0), sb.addUntypedInputTensor(t1)
    sb.addOutputTensor(sb.aiOnnx.add([a, c]))
    o = b.aiOnnx.scan([t0, t1], num_scan_inputs=2, body=sb, scan_input_directions=[0, 0],
                      scan_output_directions=[0], num_outputs=1)[0]
    b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({t0: d0, t1: d1}, anchors))
    np.testing.assert_array_equal(anchors[o], d0 + d1)
