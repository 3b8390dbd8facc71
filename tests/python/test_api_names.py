"""Names PopART scripts and PopART's own tests use (issue 20 §1-§3): module-level functions and
constants, enums, the popart_core module name, every PopART 3.4 SessionOptions field, the settings
classes, and Builder annotations. Values are checked against PopART's documented ones
(tensornames.hpp, opidentifier.hpp, sessionoptions.hpp), not against themselves."""
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import rand

# PopART's reserved-prefix values (willow/include/popart/tensornames.hpp), a sample of each kind.
POPART_PREFIXES = {
    "reservedGradientPrefix": "Gradient___",
    "reservedUpdatedVarPrefix": "UpdatedVar___",
    "reservedAccl1Prefix": "Accl1___",
    "reservedAccl3Prefix": "Accl3___",
    "reservedAcclToReducePrefix": "AcclIntoReduce___",
    "reservedAcclToAccumulatorPrefix": "AcclIntoAccumulator___",
    "reservedStashedPrefix": "Stashed___",
    "reservedRestoredPrefix": "Restored___",
    "reservedLossScalingPrefix": "lossScaling_",
    "reservedRandomSeedPrefix": "randomSeed___",
    "reservedRemoteArgPrefix": "RemoteArg___",
    "reservedDefaultLearningRatePrefix": "learningRate___default___",
    "reservedSpecificAdamBeta2Prefix": "adamBeta2___specific___",
    "reservedDefaultAdaptiveGradientScalingPrefix": "adaptiveGradientScaling___default___",
    "hostReduceGradCopyPrefix": "hostReduceGradCopy___",
}

# The 16 names issue 20 found refused, and the rest of PopART 3.4's SessionOptions fields.
POPART_34_FIELDS = [
    "enableOutliningCopyCostPruning", "transitiveClosureOptimizationThreshold",
    "createImplicitPipeliningFwdOnlyProgram", "defaultPrefetchBufferingDepth", "prefetchBufferingDepthMap",
    "opxModifyChecking", "opxAliasChecking", "experimentalSettings", "separateCallOpPdfs",
    "scheduleNonWeightUpdateGradientConsumersEarly", "groupNormStridedChannelGrouping", "updatableNamedBuffers",
    "stashAllTensorsInferencePipeline", "serializedPoprithmsShiftGraphsDir", "enableLoadAndOffloadRNGState",
    "groupHostSync",
    "logDir", "dotChecks", "firstDotOp", "finalDotOp", "dotOpNames", "exportPoplarComputationGraph",
    "exportPoplarVertexGraph", "enableOutlining", "outlineThreshold", "outlineSequenceBreakCost",
    "subgraphCopyingStrategy", "autoRecomputation", "mergeVarUpdate", "mergeVarUpdateMemThreshold",
    "looseThresholdAtPeak", "rearrangeAnchorsOnHost", "rearrangeStreamsOnHost", "enablePrefetchDatastreams",
    "defaultBufferingDepth", "bufferingDepthMap", "enableNonStableSoftmax", "enableReplicatedGraphs",
    "enableGradientAccumulation", "accumulationAndReplicationReductionType",
    "meanAccumulationAndReplicationReductionStrategy", "replicatedGraphCount", "accumulationFactor",
    "virtualGraphMode", "enablePipelining", "syntheticDataMode", "instrumentWithHardwareCycleCounter",
    "hardwareInstrumentations", "disableGradAccumulationTensorStreams", "disableOptimizerStateTensorStreams",
    "compileEngine", "constantWeights", "enableEngineCaching", "cachePath", "enableFloatingPointChecks",
    "enableStochasticRounding", "_enableRngStateManagement", "executionPhaseSettings",
    "accumulateOuterFragmentSettings", "explicitRecomputation", "explicitPipelining", "numIOTiles",
    "aliasZeroCopy", "batchSerializationSettings", "autodiffSettings", "delayVarUpdates",
    "enableFullyConnectedPass", "enableSerializedMatmuls", "partialsTypeMatMuls", "enableStableNorm",
    "engineOptions", "convolutionOptions", "lstmOptions", "matmulOptions", "reportOptions", "gclOptions",
    "customCodelets", "customCodeletCompileFlags", "timeLimitScheduler", "swapLimitScheduler", "kahnTieBreaker",
    "decomposeGradSum", "replicatedCollectivesSettings", "enableDistributedReplicatedGraphs",
    "globalReplicationFactor", "globalReplicaOffset", "strictOpVersions", "useHostCopyOps",
    "activationTensorLocationSettings", "weightTensorLocationSettings", "optimizerStateTensorLocationSettings",
    "accumulatorTensorLocationSettings", "tensorLocationSettingsOverride", "automaticLossScalingSettings",
    "developerSettings", "enableSupportedDataTypeCasting", "enableExplicitMainLoops",
    "compilationProgressTotal", "enableMergeExchange", "ensureFp32LossScaleTensor",
    "enableInplaceAmbiguityChecking",
]


# ---------------------------------------------------------------------------------------- §1 names

def test_device_selection_criterion_is_an_enum_acquire_accepts(popart):
    assert [m.name for m in popart.DeviceSelectionCriterion] == ["First", "Random"]

    # PopART's test_util.py: a default argument, so the enum must exist at import time.
    def helper(numIpus=1, selectionCriterion=popart.DeviceSelectionCriterion.Random):
        return numIpus, selectionCriterion
    assert helper()[1] == popart.DeviceSelectionCriterion.Random
    with pytest.raises(popart.popart_exception):  # no IPU hardware here: PopART's error, not a TypeError
        popart.DeviceManager().acquireAvailableDevice(1, selectionCriterion=popart.DeviceSelectionCriterion.Random)
    with pytest.raises(popart.popart_exception, match="DeviceSelectionCriterion"):
        popart.DeviceManager().acquireAvailableDevice(1, selectionCriterion="Sideways")


def test_popart_core_is_the_same_module_under_both_names(popart):
    import popart_core
    assert popart_core is popart.popart_core
    for name in ["Builder", "SessionOptions", "DeviceManager", "reservedRestoredPrefix", "DataType",
                 "DeviceSelectionCriterion", "versionString"]:
        assert getattr(popart_core, name) is getattr(popart, name), name


def test_popart_core_imports_first_in_a_fresh_interpreter():
    out = subprocess.run([sys.executable, "-c", "import popart_core; print(popart_core.reservedGradientPrefix())"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Gradient___"


def test_reserved_prefixes_have_popart_values(popart):
    for name, value in POPART_PREFIXES.items():
        assert getattr(popart, name)() == value, name
    # Every one is a function returning a distinct, non-empty string.
    names = [n for n in dir(popart) if re.fullmatch(r"(reserved\w+|hostReduce\w+|anchorSum|cycleCount)Prefix", n)]
    values = [getattr(popart, n)() for n in names]
    assert len(names) >= 60 and all(values) and len(set(values)) == len(values)


def test_gradient_tensors_use_the_reserved_prefix(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2], "x")
    w = b.addInitializedInputTensor(np.array([1.0, 2.0], np.float32), "w")
    y = b.aiOnnx.mul([x, w])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    grad = popart.reservedGradientPrefix() + w
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [grad]), deviceInfo=cpu, loss=loss,
                               optimizer=popart.ConstSGD(0.01))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    xv = rand(2) + 0.5
    s.run(popart.PyStepIO({x: xv}, anchors))
    np.testing.assert_allclose(anchors[grad], xv * np.sign(xv * [1.0, 2.0]), rtol=1e-6)


def test_version_functions(popart):
    s = popart.versionString()
    assert re.fullmatch(r"\d+\.\d+\.\d+", s)
    assert popart.versionNumber() == tuple(int(p) for p in s.split("."))
    assert s == popart.__version__
    h = popart.packageHash()
    assert h == "unknown" or re.fullmatch(r"[0-9a-f]{7,40}", h)


def test_default_opsets_are_popart_and_drive_builder_aionnx(popart):
    assert (popart.defaultAiOnnxOpset, popart.defaultAiOnnxMlOpset, popart.defaultAiGraphcoreOpset) == (10, 1, 1)
    b = popart.Builder()
    assert b.aiOnnx.getOpsetVersion() == popart.defaultAiOnnxOpset


def test_recompute_type_and_builder_annotations(popart):
    assert [m.name for m in popart.RecomputeType] == ["Undefined", "Checkpoint", "Recompute", "Recomputed"]
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2], "x")
    r = b.aiOnnx.relu([x])
    b.recomputeOutputInBackwardPass(r)
    attr = "__recompute_output_in_backward_pass"
    assert b.getInt64NodeAttribute(attr, {r}) == int(popart.RecomputeType.Recompute)
    b.recomputeOutputInBackwardPass({r}, popart.RecomputeType.Checkpoint)
    assert b.getInt64NodeAttribute(attr, {r}) == int(popart.RecomputeType.Checkpoint)
    with pytest.raises(popart.popart_exception, match="RecomputeType"):
        b.recomputeOutputInBackwardPass(r, 7)

    (c,) = b.checkpointOutput([r])
    assert c != r and b.getInt64NodeAttribute(attr, {c}) == int(popart.RecomputeType.Checkpoint)
    assert attr in b.getAllNodeAttributeNames({c})


def test_checkpoint_output_passes_values_through(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3], "x")
    (c,) = b.checkpointOutput([b.aiOnnx.relu([x])])
    b.addOutputTensor(c)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [c]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    xv = rand(3)
    s.run(popart.PyStepIO({x: xv}, anchors))
    np.testing.assert_array_equal(anchors[c], np.maximum(xv, 0))


def test_has_virtual_graph_and_pipeline_stage_follow_the_scopes(popart):
    b = popart.Builder()
    assert not b.hasVirtualGraph() and not b.hasPipelineStage() and not b.hasExecutionPhase()
    with b.virtualGraph(1):
        assert b.hasVirtualGraph() and not b.hasPipelineStage()
        with b.pipelineStage(0):
            assert b.hasPipelineStage()
        assert not b.hasPipelineStage()
    assert not b.hasVirtualGraph()
    with b.executionPhase(2):
        assert b.hasExecutionPhase()


def test_scoped_virtual_graph_and_pipeline_stage_values(popart):
    b = popart.Builder()
    for get, what in ((b.getVirtualGraph, "Virtual graph"), (b.getPipelineStage, "Pipeline stage")):
        with pytest.raises(popart.popart_exception, match=what + " not set in current scope"):
            get()
    with b.virtualGraph(2), b.pipelineStage(1):
        assert (b.getVirtualGraph(), b.getPipelineStage()) == (2, 1)
        with b.virtualGraph(3):
            assert b.getVirtualGraph() == 3
            x = b.addInputTensor("FLOAT", [1])
            r = b.aiOnnx.relu([x])
        assert b.getVirtualGraph() == 2
    # With an id: the node's annotation.
    assert (b.getVirtualGraph(r), b.getPipelineStage(r)) == (3, 1)
    # With the outputs of a multi-output node, as a set or a list: that node's annotation.
    with b.virtualGraph(1), b.pipelineStage(0):
        outs = b.aiOnnx.topk([x, b.aiOnnx.constant(np.array([1], np.int64))], 0)  # values, indices
    for ids in (set(outs), list(outs)):
        assert (b.getVirtualGraph(ids), b.getPipelineStage(ids)) == (1, 0)
    # Execution phases: the scope's, a node's, a multi-output node's.
    with pytest.raises(popart.popart_exception, match="Execution phase not set in current scope"):
        b.getExecutionPhase()
    with b.executionPhase(4):
        assert b.getExecutionPhase() == 4
    b.executionPhase(set(outs), 3)
    assert b.getExecutionPhase(set(outs)) == 3 and b.getExecutionPhase(outs[1]) == 3
    with pytest.raises(popart.popart_exception, match="does not have an attribute __execution_phase"):
        b.getExecutionPhase(r)
    with pytest.raises(popart.popart_exception, match="Could not find a node with outputs"):
        b.getVirtualGraph({outs[0], r})


# ---------------------------------------------------------------------------- §2 SessionOptions

def test_every_popart_34_field_exists(popart):
    opts = popart.SessionOptions()
    missing = [n for n in POPART_34_FIELDS if n not in dir(opts)]
    assert not missing
    for n in POPART_34_FIELDS:
        getattr(opts, n)  # readable


@pytest.mark.parametrize("name,default,value", [
    ("enableOutliningCopyCostPruning", True, False),
    ("transitiveClosureOptimizationThreshold", 100000, 5),
    ("createImplicitPipeliningFwdOnlyProgram", False, True),
    ("opxModifyChecking", False, True),
    ("opxAliasChecking", False, True),
    ("separateCallOpPdfs", True, False),
    ("scheduleNonWeightUpdateGradientConsumersEarly", False, True),
    ("groupNormStridedChannelGrouping", False, True),
    ("updatableNamedBuffers", [], ["a", "b"]),
    ("stashAllTensorsInferencePipeline", False, True),
    ("serializedPoprithmsShiftGraphsDir", "", "/tmp"),
    ("enableLoadAndOffloadRNGState", False, True),
    ("groupHostSync", False, True),
    ("customCodelets", [], ["codelet.cpp"]),
    ("customCodeletCompileFlags", "", "-g"),
    ("enableSupportedDataTypeCasting", True, False),
    ("compilationProgressTotal", 100, 7),
])
def test_new_fields_have_popart_defaults_and_round_trip(popart, name, default, value):
    opts = popart.SessionOptions()
    assert getattr(opts, name) == default
    setattr(opts, name, value)
    assert getattr(opts, name) == value


def test_deprecated_aliases_read_and_write_the_same_field(popart):
    opts = popart.SessionOptions()
    opts.defaultPrefetchBufferingDepth = 3
    assert opts.defaultBufferingDepth == 3
    opts.prefetchBufferingDepthMap = {"x": 2}
    assert opts.bufferingDepthMap == {"x": 2}  # depths as integers, as PopART's map
    opts.serializedPoprithmsAnnealGraphsDir = "d"
    assert opts.serializedPoprithmsShiftGraphsDir == "d"


def test_nested_settings_structs(popart):
    opts = popart.SessionOptions()
    opts.experimentalSettings.createHostTransferableTensorWithOffset = True
    assert opts.experimentalSettings.createHostTransferableTensorWithOffset is True
    assert opts.autodiffSettings.stitchStrategy == popart.AutodiffStitchStrategy.RecomputeAllNonInputs
    opts.replicatedCollectivesSettings.mergeAllReduceCollectives = True
    assert opts.replicatedCollectivesSettings.mergeAllReduceCollectives
    assert opts.developerSettings.timePartitionLoggerThresholdPercentage == 1.0


def test_unknown_options_stay_errors(popart):
    opts = popart.SessionOptions()
    with pytest.raises(AttributeError, match="SessionOptions has no option 'enableTheThing'"):
        opts.enableTheThing = True
    with pytest.raises(AttributeError, match="no option 'experimentalSettings.nothing'"):
        opts.experimentalSettings.nothing = 1
    with pytest.raises(popart.popart_exception, match="groupHostSync must be a boolean"):
        opts.groupHostSync = 3


# ------------------------------------------------------------------- §3 settings classes

def test_tensor_location_settings_as_popart(popart):
    opts = popart.SessionOptions()
    assert opts.weightTensorLocationSettings.location.storage == popart.TensorStorage.OnChip
    assert opts.weightTensorLocationSettings.minElementsForOffChip == 2
    assert opts.weightTensorLocationSettings.minElementsForReplicatedTensorSharding == 8192

    opts.weightTensorLocationSettings.location.storage = popart.TensorStorage.OffChip
    assert opts.weightTensorLocationSettings.location.storage == popart.TensorStorage.OffChip

    opts.activationTensorLocationSettings = popart.TensorLocationSettings(popart.TensorStorage.OffChip, 0)
    a = opts.activationTensorLocationSettings
    assert a.location.storage == popart.TensorStorage.OffChip and a.minElementsForOffChip == 0
    assert a.minElementsForReplicatedTensorSharding == 8192

    loc = popart.TensorLocation(popart.TensorStorage.OffChip, popart.ReplicatedTensorSharding.On)
    assert loc.replicatedTensorSharding == popart.ReplicatedTensorSharding.On
    loc4 = popart.TensorLocation(popart.TensorStorage.OnChip, popart.TileSet.IO, popart.TileSet.IO,
                                 popart.ReplicatedTensorSharding.Off)
    opts.optimizerStateTensorLocationSettings = popart.TensorLocationSettings(loc4, 5, 10)
    o = opts.optimizerStateTensorLocationSettings
    assert (o.location.loadTileSet, o.location.storageTileSet, o.minElementsForOffChip,
            o.minElementsForReplicatedTensorSharding) == (popart.TileSet.IO, popart.TileSet.IO, 5, 10)
    assert o == popart.TensorLocationSettings(loc4, 5, 10)
    # The other classes are untouched.
    assert opts.accumulatorTensorLocationSettings == popart.TensorLocationSettings()
    with pytest.raises(AttributeError, match="TensorLocation has no field 'where'"):
        popart.TensorLocation().where = 1
    with pytest.raises(TypeError, match=r"ExecutionPhaseSettings takes at most 7 positional arguments \(phases, "
                                        r"stages, .*\), got 9"):
        popart.ExecutionPhaseSettings(*[1] * 9)
    # PopART's keyword form TensorLocationSettings(storage=...): the core's keyword alias.
    k = popart.TensorLocationSettings(storage=popart.TensorStorage.OffChip, minElementsForOffChip=3)
    assert k == popart.TensorLocationSettings(popart.TensorLocation(popart.TensorStorage.OffChip), 3)


def test_settings_classes_are_the_cores_list(popart):
    structs = {s["name"]: s for s in popart._popart._settingsStructList()}
    assert set(structs) == {"TensorLocation", "TensorLocationSettings", "AccumulateOuterFragmentSettings",
                            "AutodiffSettings", "AutomaticLossScalingSettings", "BatchSerializationSettings",
                            "DeveloperSettings", "ExecutionPhaseSettings", "ExperimentalSettings",
                            "ReplicatedCollectivesSettings"}
    for name, s in structs.items():
        assert getattr(popart, name)._fields() == s["fields"]
    assert sorted(structs["TensorLocationSettings"]["paths"]) == [
        "accumulatorTensorLocationSettings", "activationTensorLocationSettings",
        "optimizerStateTensorLocationSettings", "weightTensorLocationSettings"]


def test_settings_classes_from_the_table(popart):
    eps = popart.ExecutionPhaseSettings(2, 1)
    assert (eps.phases, eps.stages, eps.weightIOSchedule) == (2, 1, popart.ExecutionPhaseIOSchedule.Preload)
    opts = popart.SessionOptions()
    opts.executionPhaseSettings = eps
    assert (opts.executionPhaseSettings.phases, opts.executionPhaseSettings.stages) == (2, 1)
    opts.batchSerializationSettings = popart.BatchSerializationSettings(4, False, True, True)
    assert opts.batchSerializationSettings.factor == 4
    assert opts.batchSerializationSettings.concatOnVirtualGraphChange is False
    opts.accumulateOuterFragmentSettings = popart.AccumulateOuterFragmentSettings(
        popart.AccumulateOuterFragmentSchedule.OverlapMemoryOptimized, [0])
    assert opts.accumulateOuterFragmentSettings.excludedVirtualGraphs == [0]
    # PopART's constructor order: enabled, toTrackTensors, binEdgeLocation, ...
    als = popart.AutomaticLossScalingSettings(True, ["t"], 0.5)
    assert (als.enabled, als.toTrackTensors, als.binEdgeLocation) == (True, ["t"], 0.5)
    with pytest.raises(TypeError, match="at most"):
        popart.ExecutionPhaseSettings(*range(9))


def test_options_still_reach_a_session(popart, cpu):
    """The new fields do not get in the way of a session (they are accepted without effect)."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2], "x")
    o = b.aiOnnx.relu([x])
    b.addOutputTensor(o)
    opts = popart.SessionOptions()
    opts.groupHostSync = True
    opts.weightTensorLocationSettings = popart.TensorLocationSettings(popart.TensorStorage.OffChip)
    opts.updatableNamedBuffers = ["x"]
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu, userOptions=opts)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    xv = rand(2)
    s.run(popart.PyStepIO({x: xv}, anchors))
    np.testing.assert_array_equal(anchors[o], np.maximum(xv, 0))



def test_session_options_doc_lists_every_option(popart):
    """docs/session-options.md has a line for every field of the core's table."""
    import os
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "session-options.md")).read()
    missing = [n for n, *_ in popart.SessionOptions.list() if "`%s`" % n not in doc]
    assert not missing


def test_builder_call_forms_as_popart(popart, cpu):
    """randomuniform / randomnormal take no args list; constant(value, debugContext) positionally."""
    b = popart.Builder()
    ai = b.aiOnnxOpset11
    c = ai.constant(np.array([1.5, -2.0], np.float32), "myconst")
    assert c.startswith("myconst")
    r = ai.randomuniform(shape=[2], low=3.0, high=4.0)
    n = ai.randomnormal([2], 1, 0.0, 1.0)  # shape, dtype, mean, scale positionally
    import inspect
    assert list(inspect.signature(ai.randomuniform).parameters)[0] == "shape"  # no args list
    assert list(inspect.signature(ai.constant).parameters)[:2] == ["value", "debugContext"]
    o = ai.add([c, r])
    b.addOutputTensor(o)
    b.addOutputTensor(n)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o, n]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, anchors))
    u = anchors[o] - np.array([1.5, -2.0], np.float32)
    assert np.all((u >= 3.0 - 1e-6) & (u <= 4.0 + 1e-6))
    assert anchors[n].shape == (2,) and np.all(np.isfinite(anchors[n]))


def test_get_supported_operations(popart):
    ops = popart.getSupportedOperations(False)
    public = {(o.domain, o.type) for o in ops}
    assert ("ai.onnx", "Conv") in public and ("ai.graphcore", "Gelu") in public
    assert ("ai.onnx.preview.training", "Adam") in public and ("ai.onnx", "SequenceAt") in public
    assert all(o.domain in ("ai.onnx", "ai.graphcore", "ai.onnx.preview.training") and o.version >= 1 for o in ops)
    every = popart.getSupportedOperations(includeInternal=True)
    internal = [o for o in every if o.domain == "internal"]
    assert internal and len(every) == len(ops) + len(internal)
    assert popart.OperatorIdentifier("ai.onnx", "Relu", 1) in ops


def test_setting_a_deprecated_alias_warns(popart, capfd):
    popart.getLogger().setLevel("WARN")
    try:
        opts = popart.SessionOptions()
        opts.defaultPrefetchBufferingDepth = 3
        assert opts.defaultBufferingDepth == 3
        err = capfd.readouterr().err
        assert "defaultPrefetchBufferingDepth has been deprecated" in err
        assert "Please use the alias defaultBufferingDepth instead." in err
    finally:
        popart.getLogger().setLevel("OFF")


def test_opset_classes_and_builder_getattr_annotation(popart):
    import inspect
    b = popart.Builder()
    assert isinstance(b.aiOnnxOpset11, popart.AiOnnxOpset11)
    assert isinstance(b.aiOnnxOpset11, popart.AiOnnx)
    annotated = inspect.signature(popart.Builder.__getattr__).return_annotation.__args__
    opsets = [getattr(popart, n) for n in dir(popart) if n.startswith("AiOnnxOpset") and n[11:].isdigit()]
    assert opsets and all(c in annotated for c in opsets)


def test_inplace_preferences_are_kept_and_change_nothing(popart):
    x0 = np.array([0.5, -1.0, 2.0], np.float32)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(x0))
    e = b.aiOnnx.exp([x])
    b.setInplacePreferences(e, {"ExpInplace": 1e8})
    y = b.aiOnnx.log([e])
    b.addOutputTensor(y)
    assert b.getStringVectorNodeAttribute("__inplace_op_names", {e}) == ["ExpInplace"]
    assert b.getFloatVectorNodeAttribute("__inplace_op_priorities", {e}) == [1e8]
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: x0}, a))
    np.testing.assert_allclose(a[y], x0, rtol=1e-6)
