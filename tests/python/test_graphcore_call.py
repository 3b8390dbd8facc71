"""aiGraphcore.call through the Python Builder, as PopART scripts call it (`call(args, num_outputs,
callee)` with a subgraph from createSubgraphBuilder): values against NumPy (typed, untyped and
parent-scope callee inputs, a callee called twice, nested calls), the ONNX round trip, gradients
through the callee against central finite differences (a weight inside the callee trained, the
gradient of the call's input anchored), random ops in a callee drawing once for the forward and
backward pass, PopART's errors and the IPU model's cost of a call."""
import numpy as np
import onnx
import pytest


def session(popart, b, outs, device=None):
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                device or popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    return s


def run(popart, b, feeds, outs):
    s = session(popart, b, outs)
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, a))
    return [a[o] for o in outs]


def add_matmul_subgraph(b, typed, shape):
    """sg(a, b, c) = [(a + b) @ c, tanh(a)]."""
    sg = b.createSubgraphBuilder()
    if typed:
        ins = [sg.addInputTensor("FLOAT", shape) for _ in range(3)]
    else:
        ins = [sg.addUntypedInputTensor() for _ in range(3)]
    sg.addOutputTensor(sg.aiOnnx.matmul([sg.aiOnnx.add(ins[:2]), ins[2]]))
    sg.addOutputTensor(sg.aiOnnx.tanh([ins[0]]))
    return sg


@pytest.mark.parametrize("typed", [True, False])
def test_call_two_outputs_called_twice(popart, typed):
    rng = np.random.default_rng(1)
    a, bb, c = (rng.standard_normal((3, 3)).astype(np.float32) for _ in range(3))
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(x)) for x in (a, bb, c)]
    sg = add_matmul_subgraph(b, typed, [3, 3])
    y0, t0 = b.aiGraphcore.call(ids, 2, sg)
    y1, t1 = b.aiGraphcore.call([y0, ids[1], ids[2]], num_outputs=2, callee=sg)
    assert b.getTensorShape(y0) == [3, 3]
    got = run(popart, b, dict(zip(ids, (a, bb, c))), [y0, t0, y1, t1])
    a64, b64, c64 = (x.astype(np.float64) for x in (a, bb, c))
    r0 = (a64 + b64) @ c64
    want = [r0, np.tanh(a64), (r0 + b64) @ c64, np.tanh(r0)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_inputs_named_after_parent_tensors_are_bound_by_the_call(popart):
    """PopART's form: the callee's inputs come from addInputTensorFromParentGraph(i0), (i1); a call
    binds them in order to any arguments (the second call passes another tensor for i0)."""
    rng = np.random.default_rng(3)
    x0, x1, x2 = (rng.standard_normal((2, 2)).astype(np.float32) for _ in range(3))
    b = popart.Builder()
    i0, i1, i2 = (b.addInputTensor(popart.TensorInfo(v)) for v in (x0, x1, x2))
    sg = b.createSubgraphBuilder()
    sg.addInputTensorFromParentGraph(i0)
    sg.addInputTensorFromParentGraph(i1)
    sg.addOutputTensor(sg.aiOnnx.matmul([i0, i1]))
    act = b.aiGraphcore.call([i0, i1], 1, sg)[0]
    out = b.aiGraphcore.call([act, i2], 1, sg)[0]
    (got,) = run(popart, b, {i0: x0, i1: x1, i2: x2}, [out])
    want = (x0.astype(np.float64) @ x1) @ x2
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # The callee's inputs carry the parent tensors' names and types.
    callee = [a.g for n in onnx.load_from_string(b.getModelProto()).graph.node for a in n.attribute
              if a.name == "callee"][0]
    assert [vi.name for vi in callee.input] == [i0, i1]
    assert [d.dim_value for d in callee.input[0].type.tensor_type.shape.dim] == [2, 2]
    with pytest.raises(popart.popart_exception, match="number of inputs \\(1\\) does not match"):
        b.aiGraphcore.call([i0], 1, sg)


@pytest.mark.parametrize("cond_type", [np.bool_, np.float32])
def test_if_branch_inputs_from_the_parent_read_its_tensors(popart, cond_type):
    """PopART's form of If: branch inputs named after the parent's tensors; the condition may be
    a FLOAT (non-zero is true), fed at run time."""
    a0, b0 = np.array([3.0], np.float32), np.array([6.0], np.float32)
    for cond, want in ((True, a0 + b0), (False, b0 - a0)):
        b = popart.Builder()
        a, bb = b.addInputTensor(popart.TensorInfo(a0)), b.addInputTensor(popart.TensorInfo(b0))
        cv = np.array([cond]).astype(cond_type)
        c = b.addInputTensor(popart.TensorInfo(cv))
        then_b = b.createSubgraphBuilder()
        then_b.addInputTensorFromParentGraph(a)
        then_b.addInputTensorFromParentGraph(bb)
        then_b.addOutputTensor(then_b.aiOnnx.add([a, bb]))
        else_b = b.createSubgraphBuilder()
        else_b.addInputTensorFromParentGraph(a)
        else_b.addInputTensorFromParentGraph(bb)
        else_b.addOutputTensor(else_b.aiOnnx.sub([bb, a]))
        o = b.aiOnnx.logical_if([c], 1, else_b, then_b)[0]
        (got,) = run(popart, b, {a: a0, bb: b0, c: cv}, [o])
        np.testing.assert_allclose(got, want)


def test_nested_calls_and_parent_scope_tensors(popart):
    rng = np.random.default_rng(2)
    x, y, p = (rng.standard_normal(4) for _ in range(3))
    b = popart.Builder()
    ix, iy, ip = (b.addInputTensor(popart.TensorInfo(v)) for v in (x, y, p))
    sg1 = b.createSubgraphBuilder()
    sx, sy = sg1.addUntypedInputTensor(), sg1.addUntypedInputTensor()
    sg0 = sg1.createSubgraphBuilder()
    z = sg0.addUntypedInputTensor()
    sg0.addInputTensorFromParentGraph(ip)
    sg0.addOutputTensor(sg0.aiOnnx.add([sg0.aiOnnx.sub([sg0.aiOnnx.add([z, z]), sg0.aiOnnx.sin([z])]), ip]))
    # sg0's input named after ip (addInputTensorFromParentGraph) is bound by the call, as in PopART.
    inner = sg1.aiGraphcore.call([sg1.aiOnnx.mul([sx, sy]), ip], 1, sg0)[0]
    sg1.addOutputTensor(sg1.aiOnnx.add([inner, sy]))
    out = b.aiGraphcore.call([ix, iy], 1, sg1)[0]
    (got,) = run(popart, b, {ix: x, iy: y, ip: p}, [out])
    zz = x * y
    np.testing.assert_allclose(got, 2 * zz - np.sin(zz) + p + y, rtol=1e-12)


def test_onnx_node_as_popart_writes_it_and_round_trip(popart):
    rng = np.random.default_rng(3)
    a, bb, c = (rng.standard_normal((2, 2)).astype(np.float32) for _ in range(3))
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(x)) for x in (a, bb, c)]
    y, _ = b.aiGraphcore.call(ids, 2, add_matmul_subgraph(b, False, [2, 2]))
    proto = b.getModelProto()
    m = onnx.load_from_string(proto)
    (node,) = [n for n in m.graph.node if n.op_type == "Call"]
    assert node.domain == "ai.graphcore"
    attrs = {at.name: at for at in node.attribute}
    assert attrs["num_outputs"].i == 2
    assert attrs["callee"].type == onnx.AttributeProto.GRAPH
    assert [len(attrs["callee"].g.input), len(attrs["callee"].g.output)] == [3, 2]
    # Loaded back by a Builder, saved again, run: the same values.
    b2 = popart.Builder(proto)
    feeds = dict(zip(ids, (a, bb, c)))
    (g1,) = run(popart, b, feeds, [y])
    s = popart.InferenceSession(b2.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    an = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, an))
    np.testing.assert_array_equal(an[y], g1)
    np.testing.assert_allclose(g1, (a + bb) @ c, rtol=1e-5)


def _model(popart, x0, w0, v0):
    """loss = sum(c * call(call(x, w), w)) with callee(s, w) = tanh(s @ w + v); v read from the
    parent graph. Returns the builder, ids and c."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(x0))
    w = b.addInitializedInputTensor(w0)
    v = b.addInitializedInputTensor(v0)
    sg = b.createSubgraphBuilder()
    sx, sw = sg.addUntypedInputTensor(), sg.addUntypedInputTensor()
    sg.addInputTensorFromParentGraph(v)
    sg.addOutputTensor(sg.aiOnnx.tanh([sg.aiOnnx.add([sg.aiOnnx.matmul([sx, sw]), v])]))
    h = b.aiGraphcore.call([x, w, v], 1, sg)[0]
    y = b.aiGraphcore.call([h, w, v], 1, sg)[0]
    c = np.random.default_rng(9).standard_normal(x0.shape)  # y has x's shape
    cid = b.aiOnnx.constant(c)
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([y, cid])], reduction=popart.ReductionType.Sum)
    return b, x, w, v, loss


def _loss(x, w, v, c_seed=9):
    h = np.tanh(x @ w + v)
    y = np.tanh(h @ w + v)
    c = np.random.default_rng(c_seed).standard_normal(y.shape)
    return float(np.sum(y * c))


def _fd(f, a, h=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        ap, am = a.copy(), a.copy()
        ap[i] += h
        am[i] -= h
        g[i] = (f(ap) - f(am)) / (2 * h)
    return g


def test_gradients_through_the_callee_against_finite_differences(popart):
    rng = np.random.default_rng(4)
    x0, w0, v0 = rng.standard_normal((2, 3)), rng.standard_normal((3, 3)) * 0.5, rng.standard_normal(3)
    b, x, w, v, loss = _model(popart, x0, w0, v0)
    gp = popart.reservedGradientPrefix()
    anchors = [loss, gp + x, gp + w, gp + v]
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, anchors), loss, popart.SGD({"defaultLearningRate": (0.0, False)}),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: x0}, a))
    np.testing.assert_allclose(a[loss], _loss(x0, w0, v0), rtol=1e-12)
    np.testing.assert_allclose(a[gp + x], _fd(lambda t: _loss(t, w0, v0), x0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a[gp + w], _fd(lambda t: _loss(x0, t, v0), w0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a[gp + v], _fd(lambda t: _loss(x0, w0, t), v0), rtol=1e-6, atol=1e-8)


def test_training_updates_a_weight_used_in_the_callee(popart):
    rng = np.random.default_rng(5)
    x0, w0, v0 = rng.standard_normal((2, 3)), rng.standard_normal((3, 3)) * 0.5, rng.standard_normal(3)
    b, x, w, v, loss = _model(popart, x0, w0, v0)
    lr = 0.05
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(lr),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: x0}, a))
    s.weightsToHost()
    got = {w: np.zeros_like(w0), v: np.zeros_like(v0)}
    s.readWeights(popart.PyWeightsIO(got))
    np.testing.assert_allclose(got[w], w0 - lr * _fd(lambda t: _loss(x0, t, v0), w0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[v], v0 - lr * _fd(lambda t: _loss(x0, w0, t), v0), rtol=1e-6, atol=1e-8)


def test_random_ops_in_callees_draw_once_for_forward_and_backward(popart):
    """A Dropout in a callee called twice, trained for 2 batches: each call's gradient is dropped
    where its output is (the forward mask, not a second draw); calls and batches draw different
    masks; the training IR has the callee's ops in place of the Calls, inference keeps them."""
    import json
    n, bps = 64, 2
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [n]))
    sg = b.createSubgraphBuilder()
    sx = sg.addUntypedInputTensor()
    sg.addOutputTensor(sg.aiOnnx.dropout([sx], 1, 0.5)[0])
    a0, a1 = b.aiGraphcore.scale([x], 0.5), b.aiGraphcore.scale([x], 0.25)
    y0, y1 = b.aiGraphcore.call([a0], 1, sg)[0], b.aiGraphcore.call([a1], 1, sg)[0]
    loss = b.aiGraphcore.identityloss([b.aiOnnx.add([y0, y1])], reduction=popart.ReductionType.Sum)
    gp = popart.reservedGradientPrefix()
    anchors = [y0, y1, gp + a0, gp + a1]
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(bps, anchors), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    s.setRandomSeed(7)
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.ones((bps, n), np.float32)}, a))
    for step in range(bps):
        np.testing.assert_array_equal(a[y0][step] == 0, a[gp + a0][step] == 0)
        np.testing.assert_array_equal(a[y1][step] == 0, a[gp + a1][step] == 0)
        assert not np.array_equal(a[y0][step] == 0, a[y1][step] == 0)
        np.testing.assert_array_equal(a[y0][step][a[y0][step] != 0], 1.0)  # 0.5 / (1 - 0.5)
    assert not np.array_equal(a[y0][0] == 0, a[y0][1] == 0)
    types = [op["type"] for op in json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]
    assert "Call" not in types and "Dropout" in types
    b.addOutputTensor(y0)
    inference = session(popart, b, [y0])
    types = [op["type"] for op in json.loads(inference._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]
    assert "Call" in types


def test_popart_errors(popart):
    b = popart.Builder()
    i0 = b.addInputTensor("FLOAT", [2])
    i1 = b.addInputTensor("FLOAT", [2])
    sg = b.createSubgraphBuilder()
    s0 = sg.addInputTensor("FLOAT", [2])
    sg.addOutputTensor(sg.aiOnnx.neg([s0]))
    with pytest.raises(popart.popart_exception) as e:
        b.aiGraphcore.call([i0, i1], 1, sg)
    assert "number of inputs (2) does not match that of the callee subgraph (1)" in str(e.value)
    assert str(e.value).startswith("For CallOp '")
    with pytest.raises(popart.popart_exception, match=r"number of outputs \(3\) does not match"):
        b.aiGraphcore.call([i0], 3, sg)
    with pytest.raises(popart.popart_exception, match="callee must be a popart.Builder"):
        b.aiGraphcore.call([i0], 1, "not a graph")


def test_ipu_model_costs_the_callee(popart):
    flops = []
    for n in (16, 128):
        b = popart.Builder()
        ia = b.addInputTensor("FLOAT", [n, n])
        ib = b.addInputTensor("FLOAT", [n, n])
        sg = b.createSubgraphBuilder()
        sa, sb = sg.addUntypedInputTensor(), sg.addUntypedInputTensor()
        sg.addOutputTensor(sg.aiOnnx.matmul([sa, sb]))
        y = b.aiGraphcore.call([ia, ib], 1, sg)[0]
        s = session(popart, b, [y], popart.DeviceManager().createOfflineIPUDevice())
        report = s.getReport()
        (call,) = [o for o in report.compilation.ops if o.type == "Call"]
        assert call.flops == 2 * n ** 3
        flops.append(call.computeCycles)
    assert flops[1] > flops[0]
