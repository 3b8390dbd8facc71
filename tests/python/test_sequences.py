"""Sequences and optional values (docs/python-api.md, "Sequences and optional values"): a
sequence input is a list of arrays and a sequence anchor becomes a list in the anchors dict; an
optional input is an array or None (left out), an optional anchor an array, a list or None. The
sequence ops against NumPy, a Loop carrying a sequence, the plan cache per length."""
import numpy as np
import pytest
from onnx import TensorProto, helper


def seq_type(elem=TensorProto.FLOAT):
    return helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, None))


def model(nodes, inputs, outputs, opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def concat_model():
    """y = ConcatFromSequence(x, axis 0), n = SequenceLength(x), z = SequenceMap(x, Neg) (a sequence)."""
    body = helper.make_graph([helper.make_node("Neg", ["e"], ["ne"])], "body",
                             [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)],
                             [helper.make_tensor_value_info("ne", TensorProto.FLOAT, None)])
    return model(
        [helper.make_node("ConcatFromSequence", ["x"], ["y"], axis=0),
         helper.make_node("SequenceLength", ["x"], ["n"]),
         helper.make_node("SequenceMap", ["x"], ["z"], body=body)],
        [helper.make_value_info("x", seq_type())],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_value_info("z", seq_type())])


def test_sequence_input_and_anchor(popart, cpu):
    s = popart.InferenceSession(concat_model(), popart.DataFlow(1, ["y", "n", "z"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    assert "z" not in anchors  # a sequence anchor comes with the run
    rng = np.random.default_rng(7)
    for rows in ([2, 1], [3], [2, 1], [1, 1, 4]):
        xs = [rng.standard_normal((r, 3)).astype(np.float32) for r in rows]
        s.run(popart.PyStepIO({"x": xs}, anchors))
        np.testing.assert_array_equal(anchors["y"], np.concatenate(xs, axis=0))
        assert anchors["n"] == len(xs)
        assert isinstance(anchors["z"], list) and len(anchors["z"]) == len(xs)
        for got, x in zip(anchors["z"], xs):
            np.testing.assert_array_equal(got, -x)
    st = s.getRunTimePlanStats()
    assert st["plansBuilt"] == 3 and st["plansReused"] == 1
    # A tuple works as a list; an empty sequence is ConcatFromSequence's error, and the session keeps working.
    s.run(popart.PyStepIO({"x": (np.ones((1, 3), np.float32),)}, anchors))
    np.testing.assert_array_equal(anchors["y"], np.ones((1, 3), np.float32))
    with pytest.raises(popart.popart_exception, match="is empty"):
        s.run(popart.PyStepIO({"x": []}, anchors))
    with pytest.raises(popart.popart_exception, match="a sequence: give a list of arrays"):
        s.run(popart.PyStepIO({}, anchors))


def test_split_insert_at_against_numpy(popart, cpu):
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    onnx_model = model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=0),
         helper.make_node("SequenceInsert", ["parts", "t", "pos"], ["more"]),
         helper.make_node("SequenceAt", ["more", "at"], ["picked"]),
         helper.make_node("ConcatFromSequence", ["more"], ["cat"], axis=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 4]),
         helper.make_tensor_value_info("split", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("pos", TensorProto.INT64, []),
         helper.make_tensor_value_info("at", TensorProto.INT64, [])],
        [helper.make_value_info("more", seq_type()),
         helper.make_tensor_value_info("picked", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("cat", TensorProto.FLOAT, None)])
    s = popart.InferenceSession(onnx_model, popart.DataFlow(1, ["more", "picked", "cat"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    t = np.full((1, 4), -1, np.float32)
    for split, pos, at in (([1, 2, 3], 1, 1), ([3, 3, 0], -1, 3), ([6, 0, 0], 0, -1)):
        s.run(popart.PyStepIO({"x": x, "split": np.array(split, np.int64), "t": t,
                               "pos": np.array(pos, np.int64), "at": np.array(at, np.int64)}, anchors))
        parts = np.split(x, np.cumsum(split)[:-1], axis=0)
        parts.insert(pos if pos >= 0 else pos + len(parts), t)
        assert len(anchors["more"]) == len(parts)
        for got, want in zip(anchors["more"], parts):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(anchors["picked"], parts[at])
        np.testing.assert_array_equal(anchors["cat"], np.concatenate(parts, axis=0))
    assert sorted(s.getRunTimePlanStats()["runTimeConstants"]) == ["at", "pos", "split"]


def test_optional_input_and_anchor(popart, cpu):
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    onnx_model = model(
        [helper.make_node("OptionalHasElement", ["o"], ["has"]), helper.make_node("Identity", ["o"], ["same"])],
        [helper.make_value_info("o", opt)],
        [helper.make_tensor_value_info("has", TensorProto.BOOL, []), helper.make_value_info("same", opt)], opset=16)
    s = popart.InferenceSession(onnx_model, popart.DataFlow(1, ["has", "same"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    v = np.array([1.5, -2], np.float32)
    s.run(popart.PyStepIO({"o": v}, anchors))
    assert bool(anchors["has"]) and isinstance(anchors["same"], np.ndarray)
    np.testing.assert_array_equal(anchors["same"], v)
    s.run(popart.PyStepIO({"o": None}, anchors))
    assert not bool(anchors["has"]) and anchors["same"] is None
    s.run(popart.PyStepIO({}, anchors))  # left out: None too
    assert anchors["same"] is None


def test_loop_carrying_a_sequence(popart, cpu):
    """As ONNX's test_loop13_seq: each iteration i appends x[: i + 1]."""
    x = np.array([1, 2, 3, 4, 5], np.float32)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", TensorProto.INT64, [], [1])),
         helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", TensorProto.INT64, [1], [0])),
         helper.make_node("Constant", [], ["ax"], value=helper.make_tensor("ax", TensorProto.INT64, [1], [0])),
         helper.make_node("Add", ["i", "one"], ["end"]),
         helper.make_node("Unsqueeze", ["end", "ax"], ["end1"]),
         helper.make_node("Slice", ["x", "zero", "end1"], ["prefix"]),
         helper.make_node("SequenceInsert", ["seq_in", "prefix"], ["seq_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_value_info("seq_in", seq_type())],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_value_info("seq_out", seq_type())])
    onnx_model = model(
        [helper.make_node("SequenceEmpty", [], ["empty"]),
         helper.make_node("Loop", ["M", "cond", "empty"], ["seq"], body=body)],
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
        [helper.make_value_info("seq", seq_type())], opset=13)
    s = popart.InferenceSession(onnx_model, popart.DataFlow(1, ["seq"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    for m, cond in ((3, True), (5, True), (4, False)):
        s.run(popart.PyStepIO({"M": np.array(m, np.int64), "cond": np.array(cond), "x": x}, anchors))
        want = [x[: i + 1] for i in range(m)] if cond else []
        assert len(anchors["seq"]) == len(want)
        for got, w in zip(anchors["seq"], want):
            np.testing.assert_array_equal(got, w)


def test_ipu_model_needs_static_lengths(popart):
    dev = popart.DeviceManager().createIpuModelDevice({"numIPUs": 1})
    with pytest.raises(popart.popart_exception, match="Input tensor 'x' is a sequence"):
        popart.InferenceSession(concat_model(), popart.DataFlow(1, ["y"]), dev)


def test_built_with_the_builder(popart, cpu):
    """SplitToSequence, SequenceAt, ConcatFromSequence and a sequence anchor from the Builder."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3, 2]), "x")
    rows = b.aiOnnxOpset13.splittosequence([x])
    last = b.aiOnnxOpset13.constant(np.array(-1, np.int64))
    at = b.aiOnnxOpset13.sequenceat([rows, last])
    back = b.aiOnnxOpset13.concatfromsequence([rows], 1)
    for o in (rows, at, back):
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [rows, at, back]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    xv = np.arange(6, dtype=np.float32).reshape(3, 2)
    s.run(popart.PyStepIO({x: xv}, anchors))
    assert [r.shape for r in anchors[rows]] == [(1, 2)] * 3
    np.testing.assert_array_equal(anchors[at], xv[2:])
    np.testing.assert_array_equal(anchors[back], xv.reshape(1, 6))
