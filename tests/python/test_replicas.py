"""Issue 20 §1 names: VariableSettings / CommGroup / ReplicaGrouping / VariableRetrievalMode with
grouped weights at inference replicas, InputSettings with Broadcast streams,
getSupportedOperationsDefinition / getUnsupportedOperations (checked against the ONNX package's
own schemas), and initializePoplarDebugInfo / closePoplarDebugInfo (PopART's JSON layout)."""
import json

import numpy as np
import onnx
import onnx.numpy_helper
import pytest
from onnx import defs

from conftest import rand


def replica_options(popart, n):
    o = popart.SessionOptions()
    o.enableReplicatedGraphs = True
    o.replicatedGraphCount = n
    o.constantWeights = False
    return o


def grouped_session(popart, cpu, settings, init, replicas):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3], "x")
    w = b.addInitializedInputTensor(init, settings, "w")
    y = b.aiOnnxOpset11.mul([x, w])
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), cpu,
                                userOptions=replica_options(popart, replicas))
    s.prepareDevice()
    return s, x, w, y


def run(popart, s, x, y, xs):
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: xs}, anchors))
    return anchors[y]


def test_commgroup_types_and_retrieval_modes(popart):
    assert [m.name for m in popart.CommGroupType] == ["All", "Consecutive", "Orthogonal", "Ungrouped"]
    assert [m.name for m in popart.VariableRetrievalMode] == ["OnePerGroup", "AllReduceReplicas", "AllReplicas"]
    assert [m.name for m in popart.ReplicatedStreamMode] == ["Replicate", "Broadcast"]
    # PopART's user guide: a [2, 3, 4] weight, 4 replicas, Consecutive groups of 2.
    cg = popart.CommGroup(popart.CommGroupType.Consecutive, 2)
    one = popart.VariableSettings(cg, popart.VariableRetrievalMode.OnePerGroup)
    allr = popart.VariableSettings(cg, popart.VariableRetrievalMode.AllReplicas)
    assert one.getGroupCount(4) == one.groupCount(4) == 2
    assert one.numReplicasReturningVariable(4) == 2
    assert allr.numReplicasReturningVariable(4) == 4
    assert one.shapeOnHost([2, 3, 4], 4) == [2, 2, 3, 4]
    assert one.groups(4) == [[0, 1], [2, 3]]
    assert popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Orthogonal, 2)).groups(4) == [[0, 2], [1, 3]]
    assert popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Ungrouped, 0)).getGroupCount(4) == 4
    assert popart.VariableSettings().getGroupCount(4) == 1
    assert one.getSharedVariableDomain() == cg
    assert one.getRetrievalMode() == popart.VariableRetrievalMode.OnePerGroup
    g = one.getReplicaGrouping(4)
    assert (g.getNumGroups(), g.getStride(), g.getGroupSize()) == (2, 1, 2)
    assert popart.ReplicaGrouping(16, 4, 4).getReplicasAt(1) == [1, 5, 9, 13]
    with pytest.raises(popart.popart_exception, match="VariableSettings had 1 errors!"):
        popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Consecutive, 0))


@pytest.mark.parametrize("group_type", ["Consecutive", "Orthogonal"])
def test_grouped_weight_runs_per_group_and_reads_back(popart, cpu, group_type):
    settings = popart.VariableSettings(popart.CommGroup(getattr(popart.CommGroupType, group_type), 2),
                                       popart.VariableRetrievalMode.OnePerGroup)
    w0 = rand(2, 3, seed=1)
    s, x, w, y = grouped_session(popart, cpu, settings, w0, 4)
    xs = rand(4, 3, seed=2)
    group_of = [settings.getReplicaGrouping(4).getGroupAt(r) for r in range(4)]
    expected = xs.astype(np.float64) * w0.astype(np.float64)[group_of]
    np.testing.assert_allclose(run(popart, s, x, y, xs), expected, rtol=1e-6)
    assert s.getInfo(w).shape() == [3]

    s.weightsToHost()
    back = np.zeros((2, 3), np.float32)
    s.readWeights(popart.PyWeightsIO({w: back}))
    np.testing.assert_array_equal(back, w0)

    w1 = rand(2, 3, seed=3)
    s.writeWeights(popart.PyWeightsIO({w: w1}))
    s.weightsFromHost()
    np.testing.assert_allclose(run(popart, s, x, y, xs), xs.astype(np.float64) * w1.astype(np.float64)[group_of],
                               rtol=1e-6)

    # The saved model keeps one value per group, as PopART's ONNX checkpoints do.
    saved = onnx.load_from_string(s.modelToHostBytes())
    init = {t.name: onnx.numpy_helper.to_array(t) for t in saved.graph.initializer}
    np.testing.assert_array_equal(init[w], w1)


def test_all_replicas_retrieval_and_errors(popart, cpu):
    settings = popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Consecutive, 2),
                                       popart.VariableRetrievalMode.AllReplicas)
    w0 = rand(2, 3, seed=4)
    s, x, w, y = grouped_session(popart, cpu, settings, w0, 4)
    back = np.zeros((4, 3), np.float32)
    s.readWeights(popart.PyWeightsIO({w: back}))
    np.testing.assert_array_equal(back, w0[[0, 0, 1, 1]])
    with pytest.raises(popart.popart_exception, match=r"readWeights: the buffer for 'w'"):
        s.readWeights(popart.PyWeightsIO({w: np.zeros((2, 3), np.float32)}))
    # An init value without the group dimension: PopART's message, then the weight and factor.
    b = popart.Builder()
    wb = b.addInitializedInputTensor(rand(3, 3), settings, "w")
    b.addOutputTensor(b.aiOnnxOpset11.mul([b.addInputTensor("FLOAT", [3], "x"), wb]))
    with pytest.raises(popart.popart_exception, match=r"Return mismatch with possibly appended outer dimension "
                                                      r"\(3\) of Tensor: \"w\". should match numGroups: 2"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, ["w"]), cpu,
                                userOptions=replica_options(popart, 4))


def test_broadcast_input_feeds_every_replica(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), popart.InputSettings(popart.ReplicatedStreamMode.Broadcast),
                         "x")
    z = b.addInputTensor("FLOAT", [2], popart.InputSettings(popart.TileSet.IO, popart.ExchangeStrategy.OverlapLoops),
                         "z")
    y = b.aiOnnxOpset11.add([x, z])
    b.addOutputTensor(y)
    settings = popart.InputSettings(popart.ReplicatedStreamMode.Broadcast)
    assert settings.replicatedStreamMode() == popart.ReplicatedStreamMode.Broadcast
    assert settings.tileSet() == popart.TileSet.Compute
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(2, [y]), cpu,
                                userOptions=replica_options(popart, 3))
    s.prepareDevice()
    xs, zs = rand(2, 2, seed=5), rand(2, 3, 2, seed=6)
    anchors = s.initAnchorArrays()
    assert anchors[y].shape == (2, 3, 2)
    s.run(popart.PyStepIO({x: xs, z: zs}, anchors))
    np.testing.assert_allclose(anchors[y], xs[:, None, :] + zs, rtol=1e-6)
    with pytest.raises(popart.popart_exception, match="Broadcast input"):
        s.run(popart.PyStepIO({x: zs, z: zs}, anchors))


def _onnx_types_at(opset):
    """op type -> schema in force at `opset` (ai.onnx), from the ONNX package."""
    out = {}
    for sch in defs.get_all_schemas_with_history():
        if sch.domain not in ("", "ai.onnx") or sch.since_version > opset:
            continue
        if sch.name not in out or sch.since_version > out[sch.name].since_version:
            out[sch.name] = sch
    return {k: v for k, v in out.items() if not v.deprecated}


@pytest.mark.parametrize("opset", [9, 11, 13])
def test_unsupported_operations_against_onnx(popart, opset):
    supported = {o.type for o in popart.getSupportedOperations(False) if o.domain == "ai.onnx" and o.version <= opset}
    expected = sorted(t for t in _onnx_types_at(opset) if t not in supported)
    unsupported = popart.getUnsupportedOperations(opset)
    assert [o.type for o in unsupported] == expected
    onnx_types = _onnx_types_at(opset)
    assert all(o.domain == "ai.onnx" and o.version == onnx_types[o.type].since_version for o in unsupported)


def test_supported_operations_definition(popart):
    d = popart.getSupportedOperationsDefinition(False)
    assert len(d) == len(popart.getSupportedOperations(False))
    by = {(k.domain, k.type): v for k, v in d.items()}
    reshape = by[("ai.onnx", "Reshape")]
    assert [i.name for i in reshape.inputs] == ["data", "shape"]
    assert [i.constant for i in reshape.inputs] == [False, True]
    assert reshape.inputs[1].supportedTensors == [popart.DataType.INT64]
    conv = by[("ai.onnx", "Conv")]
    schema = defs.get_schema("Conv", 17, "")  # the newest version the Builder knows
    assert sorted(conv.attributes) == sorted(schema.attributes)
    assert conv.attributes["strides"].supportedValuesRegex == "*"
    assert [o.name for o in conv.outputs] == [o.name for o in schema.outputs]
    assert ("ai.graphcore", "Gelu") in by
    assert len(popart.getSupportedOperationsDefinition(True)) > len(d)


def test_debug_info_json(popart, cpu, tmp_path):
    fn = str(tmp_path / "debug.json")
    popart.initializePoplarDebugInfo(fn, "json")
    b = popart.Builder()
    i1 = b.addInputTensor("FLOAT", [1, 2, 4, 4], "data")
    i2 = b.addInitializedInputTensor(rand(2, 2, 3, 3), "filter")
    c1 = b.aiOnnx.conv([i1, i2], dilations=[1, 1], pads=[1, 1, 1, 1], strides=[1, 1], debugContext="conv1")
    b.addOutputTensor(c1)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [c1]), cpu)
    di = popart.DebugInfo(popart.DebugContext("foo"), "unit_test")
    di.setValue("arg", "42")
    popart.closePoplarDebugInfo()
    data = json.load(open(fn, encoding="utf-8"))
    names = {data["stringTable"][c["name"]]: c for c in data["contexts"] if c["layer"] != "popart"}
    assert {"data", "filter", "conv1", "foo"} <= set(names)
    conv = names["conv1"]
    assert conv["layer"] == "popartbuilder" and conv["category"] == "op"
    assert conv["attributes"]["strides"] == "[1 1]"
    ir_ops = [c for c in data["contexts"] if c["layer"] == "popart" and "Conv" in c["opid"]]
    assert len(ir_ops) == 1 and ir_ops[0]["parentId"] == conv["id"]
    assert ir_ops[0]["outputs"] == [c1]
    assert names["foo"]["arg"] == "42"
    del s
    with pytest.raises(popart.popart_exception, match="initializePoplarDebugInfo was not called"):
        popart.closePoplarDebugInfo()


def test_debug_info_written_when_it_ends(popart, tmp_path):
    """As Poplar's: a DebugInfo is written when it is destroyed, so one made inside a function
    called under another comes first; ids count from 1."""
    def inner(debug_context):
        di = popart.DebugInfo(debug_context, "unit_test")
        di.setValue("arg", "123")

    def outer(debug_context):
        di = popart.DebugInfo(debug_context, "unit_test")
        di.setValue("arg", "42")
        inner(popart.DebugContext(di, "inner"))

    fn = str(tmp_path / "debug.json")
    popart.initializePoplarDebugInfo(fn, "json")
    outer(popart.DebugContext())
    popart.closePoplarDebugInfo()
    data = json.load(open(fn, encoding="utf-8"))
    first, second = data["contexts"]
    assert data["stringTable"][first["name"]] == "inner" and first["arg"] == "123"
    assert first["parentId"] == second["id"] == 1
    assert data["stringTable"][second["name"]] == "" and second["arg"] == "42"
