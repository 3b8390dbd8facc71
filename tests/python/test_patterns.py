"""Patterns that rewrite the IR, observed as PopART users observe them: the op types
Session._serializeIr lists with a pattern on and off, and outputs that do not change (NumPy
references, bit-identical between the two IRs)."""
import json
from collections import Counter

import numpy as np
import pytest


def _patterns(popart, off=(), inplace=False):
    p = popart.Patterns(popart.PatternsLevel.Default)
    p.enablePattern("InPlace", inplace)
    for name in off:
        p.enablePattern(name, False)
    return p


def _run(popart, b, x, y, xval, patterns, anchors=None):
    """Builds an inference session for b's model, runs it on xval; returns (op types in schedule
    order, the anchors' values, the memory stats)."""
    anchors = anchors or [y]
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, anchors),
                                popart.DeviceManager().createCpuDevice(), patterns=patterns)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: xval}, a))
    return [op["type"] for op in ir["maingraph"]], [a[t].copy() for t in anchors], s.getMemoryStats()


def _on_off(popart, b, x, y, xval, name):
    on, (y_on,), _ = _run(popart, b, x, y, xval, _patterns(popart))
    off, (y_off,), _ = _run(popart, b, x, y, xval, _patterns(popart, [name]))
    np.testing.assert_array_equal(y_on, y_off)
    return Counter(on), Counter(off), y_on


def _x(*shape):
    return np.random.default_rng(3).uniform(-1, 1, shape).astype(np.float32)


def test_transpose_undoing_a_transpose_goes(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 4]), "x")
    t = b.aiOnnx.transpose([b.aiOnnx.transpose([x], perm=[2, 0, 1])], perm=[1, 2, 0])
    y = b.aiOnnx.neg([t])
    b.addOutputTensor(y)
    xv = _x(2, 3, 4)
    on, off, yv = _on_off(popart, b, x, y, xv, "TransposeToIdentityOrReshapePattern")
    assert on == Counter({"Neg": 1})
    assert off == Counter({"Transpose": 2, "Neg": 1})
    np.testing.assert_array_equal(yv, -xv)


def test_op_to_identity_and_post_n_repl(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    y = b.aiOnnx.neg([b.aiOnnx.transpose([b.aiOnnx.abs([x])], perm=[0, 1])])
    b.addOutputTensor(y)
    xv = _x(2, 3)
    on, off, yv = _on_off(popart, b, x, y, xv, "OpToIdentity")
    assert on == Counter({"Abs": 1, "Neg": 1}) and off["Transpose"] == 1
    on, off, _ = _on_off(popart, b, x, y, xv, "PostNRepl")
    assert off == Counter({"Abs": 1, "Identity": 1, "Neg": 1})
    np.testing.assert_array_equal(yv, -np.abs(xv))


def test_sum_to_add_and_negative_one_scale(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [6]), "x")
    y = b.aiOnnx.sum([b.aiGraphcore.scale([x], -1.0), b.aiOnnx.exp([x])])
    b.addOutputTensor(y)
    xv = _x(6)
    on, off, yv = _on_off(popart, b, x, y, xv, "SumToAdd")
    assert on == Counter({"Neg": 1, "Exp": 1, "Add": 1})
    assert off == Counter({"Neg": 1, "Exp": 1, "Sum": 1})
    on, off, _ = _on_off(popart, b, x, y, xv, "NegativeOneScale")
    assert off == Counter({"Scale": 1, "Exp": 1, "Add": 1})
    np.testing.assert_allclose(yv, np.exp(xv.astype(np.float64)) - xv, rtol=1e-6)


def test_split_op_makes_slices(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 6]), "x")
    p0, p1 = b.aiOnnx.split([x], 2, axis=1, split=[2, 4])
    y = b.aiOnnx.concat([b.aiOnnx.neg([p1]), b.aiOnnx.abs([p0])], 1)
    b.addOutputTensor(y)
    xv = _x(4, 6)
    on, off, yv = _on_off(popart, b, x, y, xv, "SplitOp")
    assert on["Slice"] == 2 and "Split" not in on
    assert off["Split"] == 1 and "Slice" not in off
    np.testing.assert_array_equal(yv, np.concatenate([-xv[:, 2:], np.abs(xv[:, :2])], 1))


def test_pad_sum_makes_a_concat(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3, 2]), "x")
    ai = b.aiOnnxOpset9
    lo = ai.pad([b.aiOnnx.abs([x])], [0, 0, 3, 0])  # abs(x) in rows 0..2 of 6
    hi = ai.pad([b.aiOnnx.neg([x])], [3, 0, 0, 0])  # -x in rows 3..5
    y = b.aiOnnx.add([lo, hi])
    b.addOutputTensor(y)
    xv = _x(3, 2)
    on, off, yv = _on_off(popart, b, x, y, xv, "PadSum")
    assert on == Counter({"Abs": 1, "Neg": 1, "Concat": 1})
    assert off == Counter({"Abs": 1, "Neg": 1, "Pad": 2, "Add": 1})
    np.testing.assert_array_equal(yv, np.concatenate([np.abs(xv), -xv]))


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_upsample_to_resize(popart, mode):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 1, 2, 3]), "x")
    ai = b.aiOnnxOpset9  # Upsample's last opset
    y = ai.upsample([x, ai.constant(np.array([1, 1, 2, 2], np.float32))], mode)
    b.addOutputTensor(y)
    xv = _x(1, 1, 2, 3)
    on, off, yv = _on_off(popart, b, x, y, xv, "UpsampleToResize")
    assert on == Counter({"Resize": 1}) and off == Counter({"Upsample": 1})
    if mode == "nearest":
        np.testing.assert_array_equal(yv, xv.repeat(2, axis=2).repeat(2, axis=3))


def test_expand_cast_casts_first(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 3]), "x")
    shape = b.aiOnnx.constant(np.array([5, 3], np.int64))
    y = b.aiOnnx.cast([b.aiOnnx.expand([b.aiOnnx.abs([x]), shape])], "FLOAT16")
    b.addOutputTensor(y)
    xv = _x(1, 3)
    on, _, _ = _run(popart, b, x, y, xv, _patterns(popart))
    off, (yv,), _ = _run(popart, b, x, y, xv, _patterns(popart, ["ExpandCast"]))
    assert on == ["Abs", "Cast", "Expand"] and off == ["Abs", "Expand", "Cast"]
    np.testing.assert_array_equal(yv, np.broadcast_to(np.abs(xv).astype(np.float16), (5, 3)))


def test_exclude_patterns_acts_on_its_node(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4]), "x")
    a = b.aiGraphcore.scale([x], -1.0)
    y = b.aiGraphcore.scale([a], -1.0)
    b.excludePatterns(a, ["NegativeOneScale"])
    b.addOutputTensor(y)
    xv = _x(4)
    types, (yv,), _ = _run(popart, b, x, y, xv, _patterns(popart))
    assert types == ["Scale", "Neg"]
    np.testing.assert_array_equal(yv, xv)


def test_in_place_shares_buffers(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [256]), "x")
    y = b.aiOnnx.sigmoid([b.aiOnnx.relu([b.aiOnnx.exp([x])])])
    b.addOutputTensor(y)
    xv = _x(256)
    on, (y_on,), mem_on = _run(popart, b, x, y, xv, _patterns(popart, inplace=True))
    off, (y_off,), mem_off = _run(popart, b, x, y, xv, _patterns(popart, inplace=False))
    assert on == ["Exp", "ReluInplace", "SigmoidInplace"]
    assert off == ["Exp", "Relu", "Sigmoid"]
    np.testing.assert_array_equal(y_on, y_off)
    np.testing.assert_allclose(y_on, 1 / (1 + np.exp(-np.exp(xv.astype(np.float64)))), rtol=1e-6)
    assert mem_on["activationArenaBytes"] == 1024
    assert mem_off["activationArenaBytes"] == 2048


def test_in_place_preferences_and_anchors(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [8]), "x")
    e = b.aiOnnx.exp([x])
    s = b.aiOnnx.add([e, b.aiOnnx.abs([x])])
    y = b.aiOnnx.sigmoid([s])  # (a Relu would be fused into the Add)
    b.setInplacePreferences(s, {"AddRhsInplace": 20.0})
    b.setInplacePreferences(y, {"SigmoidInplace": 0.0})  # a priority <= 0 vetoes
    b.addOutputTensor(y)
    xv = _x(8)
    types, (yv,), _ = _run(popart, b, x, y, xv, _patterns(popart, inplace=True))
    assert types == ["Exp", "Abs", "AddRhsInplace", "Sigmoid"]
    # Anchored, Exp's output may not be overwritten: the Add takes the other input.
    b2 = popart.Builder()
    x2 = b2.addInputTensor(popart.TensorInfo("FLOAT", [8]), "x")
    e2 = b2.aiOnnx.exp([x2])
    y2 = b2.aiOnnx.add([e2, b2.aiOnnx.abs([x2])])
    b2.addOutputTensor(y2)
    types2, (y2v, e2v), _ = _run(popart, b2, x2, y2, xv, _patterns(popart, inplace=True), anchors=[y2, e2])
    assert types2 == ["Exp", "Abs", "AddRhsInplace"]
    np.testing.assert_allclose(e2v, np.exp(xv), rtol=1e-6)
    np.testing.assert_allclose(y2v, np.exp(xv) + np.abs(xv), rtol=1e-6)
    np.testing.assert_allclose(yv, 1 / (1 + np.exp(-y2v.astype(np.float64))), rtol=1e-6)


def test_in_place_keeps_training_gradients(popart):
    """In training the backward pass reads forward activations: InPlace must not overwrite them."""
    def step(inplace):
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 3]), "x")
        w = b.addInitializedInputTensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), "w")
        h = b.aiOnnx.sigmoid([b.aiOnnx.relu([b.aiOnnx.matmul([x, w])])])
        loss = b.aiGraphcore.l1loss([b.aiOnnx.add([h, b.aiOnnx.exp([h])])], 1.0)
        gw = popart.reservedGradientPrefix() + w
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss, gw]), loss,
                                   popart.SGD({"defaultLearningRate": (0.0, False)}),
                                   popart.DeviceManager().createCpuDevice(),
                                   patterns=_patterns(popart, inplace=inplace))
        ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
        s.prepareDevice()
        s.weightsFromHost()
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: _x(4, 3)}, a))
        return [op["type"] for op in ir["maingraph"]], a[loss], a[gw]

    types_on, loss_on, gw_on = step(True)
    types_off, loss_off, gw_off = step(False)
    assert any(t.endswith("Inplace") for t in types_on)
    assert not any(t.endswith("Inplace") for t in types_off)
    np.testing.assert_array_equal(loss_on, loss_off)
    np.testing.assert_array_equal(gw_on, gw_off)
    torch = pytest.importorskip("torch")
    xt = torch.tensor(_x(4, 3), dtype=torch.float64)
    wt = torch.tensor(np.linspace(-1, 1, 6).reshape(3, 2), requires_grad=True)
    ht = torch.sigmoid(torch.relu(xt @ wt))
    (ht + torch.exp(ht)).abs().mean().backward()  # l1loss reduces by the mean by default
    np.testing.assert_allclose(gw_on, wt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_post_n_repl_keeps_a_tensor_a_subgraph_reads(popart):
    """A subgraph reads an outer tensor by name: the Identity making it stays."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]), "x")
    c = b.addInputTensor(popart.TensorInfo("BOOL", [1]), "c")
    t = b.aiOnnx.identity([b.aiOnnx.abs([x])])
    then_b = b.createSubgraphBuilder()
    then_b.addInputTensorFromParentGraph(t)
    then_b.addOutputTensor(then_b.aiOnnx.sigmoid([t]))
    else_b = b.createSubgraphBuilder()
    else_b.addInputTensorFromParentGraph(t)
    else_b.addOutputTensor(else_b.aiOnnx.neg([t]))
    y = b.aiOnnx.logical_if([c], 1, else_b, then_b)[0]
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                                popart.DeviceManager().createCpuDevice(), patterns=_patterns(popart, inplace=True))
    types = [op["type"] for op in json.loads(s._serializeIr())["maingraph"]]
    assert types[:2] == ["Abs", "IdentityInplace"]
    s.prepareDevice()
    xv = _x(3)
    for cond, ref in ((True, 1 / (1 + np.exp(-np.abs(xv)))), (False, -np.abs(xv))):
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: xv, c: np.array([cond])}, a))
        np.testing.assert_allclose(a[y], ref, rtol=1e-6)


def test_weight_update_stays_after_readers_a_pattern_made(popart):
    """SplitOp replaces a weight's readers (the Splits) by new Slices: the SGD update of the weight
    still runs after them, so an anchored forward tensor holds the weights before the step."""
    w0 = np.array([[1, 2], [3, 4]], np.float32)
    for off in ([], ["SplitOp"]):
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2]), "x")
        w = b.addInitializedInputTensor(w0, "w")
        top, _ = b.aiOnnx.split([w], 2, axis=0)
        loss = b.aiGraphcore.identityloss([b.aiOnnx.reducesum([b.aiOnnx.add([top, x])], keepdims=0)])
        top2, _ = b.aiOnnx.split([w], 2, axis=0)  # a second reader the loss does not need
        z = b.aiOnnx.neg([top2])
        sess = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss, z]), loss,
                                      popart.SGD({"defaultLearningRate": (0.1, False)}),
                                      popart.DeviceManager().createCpuDevice(), patterns=_patterns(popart, off))
        types = [op["type"] for op in json.loads(sess._serializeIr())["maingraph"]]
        assert types.count("Split") == (2 if off else 0) and types.count("Slice") == (0 if off else 2)
        sess.prepareDevice()
        sess.weightsFromHost()
        a = sess.initAnchorArrays()
        xv = np.array([[0.5, -0.25]], np.float32)
        sess.run(popart.PyStepIO({x: xv}, a))
        assert a[loss] == pytest.approx(w0[0].sum() + xv.sum())
        np.testing.assert_array_equal(a[z], -w0[:1])  # read before the update
        out = {w: np.zeros((2, 2), np.float32)}
        sess.weightsToHost()
        sess.readWeights(popart.PyWeightsIO(out))
        np.testing.assert_allclose(out[w], w0 - np.array([[0.1], [0.0]], np.float32), rtol=1e-6)


def test_pre_uni_repl_alone_removes_a_one_input_sum(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [5]), "x")
    y = b.aiOnnx.neg([b.aiOnnx.sum([b.aiOnnx.abs([x])])])
    b.addOutputTensor(y)
    xv = _x(5)
    only = popart.Patterns(["PreUniRepl"]).enableRuntimeAsserts(False)
    none = popart.Patterns(popart.PatternsLevel.NoPatterns)
    on, (y_on,), _ = _run(popart, b, x, y, xv, only)
    off, (y_off,), _ = _run(popart, b, x, y, xv, none)
    assert on == ["Abs", "Neg"] and off == ["Abs", "Sum", "Neg"]
    np.testing.assert_array_equal(y_on, -np.abs(xv))
    np.testing.assert_array_equal(y_on, y_off)


@pytest.mark.parametrize("op,enabled,missing", [
    ("sqrt", [], "SqrtGradOp"),
    ("exp", ["ExpGradOp"], None),
    ("reciprocal", ["ExpGradOp"], "ReciprocalGradOp"),
])
def test_disabled_gradient_pattern_fails_as_in_popart(popart, op, enabled, missing):
    """PopART lowers these gradients only through their (mandatory) pattern: with it disabled and
    runtime asserts off, building the training session fails with PopART's sentence."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4]), "x")
    w = b.addInitializedInputTensor(np.linspace(1, 2, 4, dtype=np.float32), "w")
    y = getattr(b.aiOnnx, op)([b.aiOnnx.add([x, w])])
    loss = b.aiGraphcore.l1loss([y], 0.1)
    patterns = popart.Patterns(enabled).enableRuntimeAsserts(False)

    def session():
        return popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                                      popart.DeviceManager().createCpuDevice(), patterns=patterns)

    if missing is None:
        session()
        return
    with pytest.raises(popart.popart_exception) as e:
        session()
    assert e.value.args[0].endswith("This op should have been removed by pattern " + missing)


def _softmax_nll_step(popart, patterns, x, labels, w0):
    """One SGD step of nll(softmax(x @ w)) (Mean, label 3 ignored): (op types, loss, d loss/d logits)."""
    b = popart.Builder()
    xi = b.addInputTensor(popart.TensorInfo("FLOAT", list(x.shape)), "x")
    li = b.addInputTensor(popart.TensorInfo("INT32", list(labels.shape)), "label")
    w = b.addInitializedInputTensor(w0, "w")
    logits = b.aiOnnx.matmul([xi, w])
    loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([logits], axis=1), li], ignoreIndex=3)
    gl = popart.reservedGradientPrefix() + logits
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss, gl]), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice(), patterns=patterns)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x, li: labels}, a))
    return Counter(op["type"] for op in ir["maingraph"]), a[loss], a[gl]


def test_softmax_grad_direct_and_nlll_with_softmax_grad_direct(popart):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w0 = rng.uniform(-1, 1, (3, 5)).astype(np.float32)
    labels = np.array([0, 4, 2, 3], dtype=np.int32)
    z = x.astype(np.float64) @ w0.astype(np.float64)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    keep = labels != 3
    onehot = np.eye(5)[np.where(keep, labels, 0)]
    want_grad = np.where(keep[:, None], p - onehot, 0.0) / keep.sum()
    want_loss = -np.log(p[keep, labels[keep]]).mean()

    fused = _softmax_nll_step(popart, _patterns(popart), x, labels, w0)
    direct = _softmax_nll_step(popart, _patterns(popart, ["NlllWithSoftmaxGradDirect"]), x, labels, w0)
    apart = _softmax_nll_step(popart, _patterns(popart, ["SoftmaxGradDirect"]), x, labels, w0)
    assert fused[0]["NlllWithSoftmaxGradDirect"] == 1
    assert not {"Nll", "NllGrad", "SoftmaxGrad", "SoftmaxGradDirect"} & set(fused[0])
    assert direct[0]["SoftmaxGradDirect"] == 1 and direct[0]["Nll"] == 1 and direct[0]["NllGrad"] == 0
    assert apart[0]["NllGrad"] == 1 and apart[0]["SoftmaxGrad"] == 1
    for ops, loss, grad in (fused, direct, apart):
        np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
        np.testing.assert_allclose(grad, want_grad, atol=1e-6)
