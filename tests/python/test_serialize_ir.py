"""Session._serializeIr(IrSerializationFormat.JSON): the IR as PopART's JSON document."""
import json

import numpy as np
import pytest


def _ops(ir, graph="maingraph"):
    return ir[graph]


def test_inference_ir_lists_ops_in_schedule_order_with_tensors(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    w = b.addInitializedInputTensor(np.ones((3, 4), np.float32), "w")
    m = b.aiOnnx.matmul([x, w], "mm")
    r = b.aiOnnx.sin([m], "act")
    t = b.aiOnnx.transpose([r], perm=[1, 0], debugContext="tr")
    b.addOutputTensor(t)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [t]), cpu)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    assert list(ir) == ["maingraph"]
    ops = _ops(ir)
    assert [o["type"] for o in ops] == ["MatMul", "Sin", "Transpose"]
    mm = ops[0]
    assert mm["domain"] == "ai.onnx" and mm["name"] == "mm" and mm["version"].isdigit()
    assert [(i["name"], i["shape"], i["type"], i["index"]) for i in mm["inputs"]] == [
        (x, "[2 3]", "FLOAT", "0"), (w, "[3 4]", "FLOAT", "1")]
    assert [o["index"] for o in mm["outputs"]] == ["0"]
    # Each op reads what its predecessor wrote.
    assert ops[1]["inputs"][0]["name"] == mm["outputs"][0]["name"]
    assert ops[2]["outputs"][0]["name"] == t
    assert ops[2]["attributes"]["perm"] == "[1 0]"
    # The default argument is JSON; before prepareDevice and after it, the same document.
    before = s._serializeIr()
    s.prepareDevice()
    assert s._serializeIr() == before


def test_training_ir_has_the_backward_pass_and_updates(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    w = b.addInitializedInputTensor(np.ones((3, 1), np.float32), "w")
    y = b.aiOnnx.matmul([x, w])
    loss = b.aiGraphcore.l1loss([y], 0.5)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                               popart.SGD({"defaultLearningRate": (0.1, False)}), cpu)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    ops = _ops(ir)
    types = [op["type"] for op in ops]
    assert types[:2] == ["MatMul", "L1"] and "L1Grad" in types
    # The last op updates the weight in place from a gradient the backward pass made.
    update = ops[-1]
    assert update["type"] == "SGDVarUpdate" and update["outputs"] == []
    assert update["inputs"][0]["name"] == w
    made = {o["name"]: op["type"] for op in ops for o in op["outputs"]}
    assert made[update["inputs"][1]["name"]] == "MatMul"  # x^T @ dL/dy


def test_ops_carry_popart_op_settings(popart, cpu):
    """PopART's serializer writes each op's settings among its attributes: recompute, tileSet,
    executionContext, scope, schedulePriority, and the IPU annotations when they are set."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    w = b.addInitializedInputTensor(np.ones((3, 1), np.float32), "w")
    with b.schedulePriority(3):
        y = b.aiOnnx.matmul([x, w], "mm")
    r = b.aiOnnx.relu([y], "act")
    b.recomputeOutputInBackwardPass(r)
    with b.virtualGraph(0):
        loss = b.aiGraphcore.l1loss([r], 0.5)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                               popart.SGD({"defaultLearningRate": (0.1, False)}), cpu)
    # (The Relu marked Recompute has a clone, "act/recompute", in the backward pass: not listed
    # here. The clone reads the MatMul's output last, so the clone is the one in place.)
    ops = {op["type"]: op["attributes"] for op in _ops(json.loads(s._serializeIr(popart.IrSerializationFormat.JSON)))
           if (op["type"] != "MatMul" or "grad" not in op["name"]) and not op["name"].endswith("/recompute")}
    act, mm, l1 = ops["Relu"], ops["MatMul"], ops["L1"]
    assert act["recompute"] == "YES" and mm["recompute"] == "NO"
    assert mm["schedulePriority"] == "3" and act["schedulePriority"] == "0"
    assert all(a["tileSet"] == "0" and a["executionContext"] == "Normal" and a["scope"] == "" for a in ops.values())
    assert l1["__ipu_number"] == "0" and "__ipu_number" not in mm
    assert "__schedule_priority" not in mm and "__recompute_output_in_backward_pass" not in act


def test_subgraphs_follow_the_main_graph(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    c = b.addInputTensor(popart.TensorInfo("BOOL", [1]), "c")
    then_b = b.createSubgraphBuilder()
    then_b.addInputTensorFromParentGraph(x)
    then_b.addOutputTensor(then_b.aiOnnx.relu([x]))
    else_b = b.createSubgraphBuilder()
    else_b.addInputTensorFromParentGraph(x)
    else_b.addOutputTensor(else_b.aiOnnx.neg([x]))
    out = b.aiOnnx.logical_if([c], 1, else_b, then_b)[0]
    b.addOutputTensor(out)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out]), cpu)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    keys = list(ir)
    assert keys[0] == "maingraph" and len(keys) == 3
    assert [o["type"] for o in _ops(ir)] == ["If"]
    sub_types = sorted(op["type"] for k in keys[1:] for op in ir[k])
    assert sub_types == ["Neg", "Relu"]


def test_graphs_are_keyed_by_their_names(popart, cpu):
    b = popart.Builder()
    b.setGraphName("body_graph")
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    sg = b.createSubgraphBuilder()
    sg.setGraphName("my_callee")
    sg.addInputTensorFromParentGraph(x)
    sg.addOutputTensor(sg.aiOnnx.sin([x]))
    o = b.aiGraphcore.call([x], 1, sg)[0]
    b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    assert list(ir) == ["body_graph", "my_callee"]
    assert [op["type"] for op in ir["body_graph"]] == ["Call"]
    assert ir["body_graph"][0]["domain"] == "ai.graphcore"
    assert [op["type"] for op in ir["my_callee"]] == ["Sin"]


def test_unknown_format_is_an_error(popart, cpu):
    proto = popart.Builder()
    x = proto.addInputTensor(popart.TensorInfo("FLOAT", [1]))
    o = proto.aiOnnx.relu([x])
    proto.addOutputTensor(o)
    s = popart.InferenceSession(proto.getModelProto(), popart.DataFlow(1, [o]), cpu)
    with pytest.raises(popart.popart_exception, match="IrSerializationFormat"):
        s._serializeIr(7)


@pytest.mark.parametrize("like,plain", [("randomnormallike", "RandomNormal"), ("randomuniformlike", "RandomUniform")])
def test_random_like_ops_become_plain_ones(popart, cpu, like, plain):
    """PopART's mandatory RandomNormalLikeOpPattern / RandomUniformLikeOpPattern: the *Like op is
    replaced by the plain op with the input's shape and type."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT16", [3, 4]))
    o = getattr(b.aiOnnx, like)([x])
    b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    assert [op["type"] for op in ir["maingraph"]] == [plain]
    assert ir["maingraph"][0]["attributes"]["shape"] == "[3 4]"
    s.prepareDevice()
    s.setRandomSeed(1)
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.zeros((3, 4), np.float16)}, a))
    assert a[o].shape == (3, 4) and a[o].dtype == np.float16
    assert len(np.unique(a[o])) > 1
