"""Cast to and from STRING through an InferenceSession: float32 values written as text read back
as the same values, ONNX's literals (NaN, INF, +INF, -INF) read as NumPy reads them, and text that
is not a number is an error. (STRING tensors cross the Python API only as initializers; the text
itself is checked against NumPy's str() forms in tests/unit/ops_cast_string_test.cpp and by the
ONNX backend tests.)"""
import numpy as np
import pytest
from onnx import TensorProto, helper, mapping


def run(popart, cpu, nodes, inputs, outputs, initializers=()):
    vi = [helper.make_tensor_value_info(k, mapping.NP_TYPE_TO_TENSOR_TYPE[v.dtype], list(v.shape))
          for k, v in inputs.items()]
    out = [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs]
    g = helper.make_graph(nodes, "g", vi, out, list(initializers))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, outputs), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, anchors))
    return anchors


def strings(name, values):
    """A STRING initializer (PyStepIO feeds numeric and bool arrays only)."""
    return helper.make_tensor(name, TensorProto.STRING, [len(values)], [v.encode() for v in values])


def test_cast_float_to_string_reads_back_as_the_same_floats(popart, cpu):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(200) * 10.0 ** rng.integers(-8, 20, 200)).astype(np.float32)
    x[:4] = [0.0, -0.0, 1.0, 123456789.0]
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING),
             helper.make_node("Cast", ["y"], ["z"], to=TensorProto.FLOAT)]
    got = run(popart, cpu, nodes, {"x": x}, ["z"])
    np.testing.assert_array_equal(got["z"], x)


def test_cast_string_to_float_reads_onnx_literals(popart, cpu):
    text = ["0.47892547", "NaN", "INF", "+INF", "-INF", "nan", "1E8", "-1e-5"]
    nodes = [helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["f", "x"], ["y"])]
    got = run(popart, cpu, nodes, {"x": np.zeros(len(text), np.float32)}, ["y"], [strings("s", text)])
    np.testing.assert_array_equal(got["y"], np.array(text, dtype=object).astype(np.float32))


def test_cast_of_text_that_is_not_a_number_is_an_error(popart, cpu):
    nodes = [helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT), helper.make_node("Add", ["f", "x"], ["y"])]
    with pytest.raises(popart.popart_exception, match="element 1 of the input is 'abc', which is not a number"):
        run(popart, cpu, nodes, {"x": np.zeros(2, np.float32)}, ["y"], [strings("s", ["1", "abc"])])
