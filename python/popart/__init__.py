"""popart: PopART's Python API over the popart-runtime core (CPU and IPU-model devices).

A PopART script runs as written: Builder, InferenceSession / TrainingSession, DataFlow,
PyStepIO, optimizers, SessionOptions, DeviceManager, ... The extension (popart._popart) marshals
values; every behaviour, table and message is the C++ core's."""
from . import _popart
from ._enums import ENUMS as _ENUMS
from ._popart import (  # noqa: F401
    Adam, Adaptive, AnchorReturnType, ClipNormSettings, ConstSGD, DataFlow, DeviceInfo, DeviceManager,
    GraphTransformer, IdentityLoss, InputShapeInfo, IStepIO, L1Loss, Logger, Loss, NllLoss, Optimizer, OptimizerValue,
    OptimizerValueMap, Patterns, PyStepIO, PyStepIOCallback, PyWeightsIO, SGD, TensorInfo,
    getLogger, getMemoryLimit, getNumThreads, ipuTarget, ipuTargetList,
    setMemoryLimit, setNumThreads, defaultAiOnnxOpset, defaultAiOnnxMlOpset,
    defaultAiGraphcoreOpset, versionString, versionNumber, packageHash, OperatorIdentifier, getSupportedOperations,
    getSupportedOperationsDefinition, getUnsupportedOperations, OpDefinition, CommGroup, ReplicaGrouping,
    VariableSettings, InputSettings, initializePoplarDebugInfo, closePoplarDebugInfo, DebugContext, DebugInfo,
    tensorValue)
from .builder import AiGraphcore, AiOnnx, Builder, OPSET_CLASSES as _OPSET_CLASSES  # noqa: F401
from .options import _STRUCTS, SessionOptions  # noqa: F401
from .session import InferenceSession, Session, TrainingSession  # noqa: F401

globals().update(_ENUMS)  # ReductionType, VirtualGraphMode, PatternsLevel, DeviceType, ...
globals().update({c.__name__: c for c in _OPSET_CLASSES.values()})  # AiOnnxOpset6, ..., AiOnnxOpset17
# TensorLocationSettings, TensorLocation, ExecutionPhaseSettings, BatchSerializationSettings, ...
globals().update(_STRUCTS)
# popart_exception, popart_internal_exception, poplar_exception, ...: the core's list (popart/error.hpp).
globals().update({_n: getattr(_popart, _n) for _n, _b, _d in _popart._errorClasses()})
# reservedGradientPrefix(), reservedRestoredPrefix(), ...: the core's list (popart/names.hpp).
globals().update({_n: getattr(_popart, _n) for _n, _v in _popart._reservedPrefixList()})

# Older spellings the seeds use.
error = popart_exception  # noqa: F821
StepIO = PyStepIO
AnchorReturnType.ALL = AnchorReturnType("All")  # poponnx: AnchorReturnType.ALL
AnchorReturnType.FINAL = AnchorReturnType("Final")
AnchorReturnType.SUM = AnchorReturnType("Sum")
# PopART's name for RecomputationType.None, which Python cannot spell.
RecomputationType.NoRecompute = RecomputationType["None"]  # noqa: F821
ScatterReduction.NoReduction = ScatterReduction["None"]  # noqa: F821


def _oom_summary(self):
    """The IPU model's summary report (memory by tile); for a host allocation over the memory
    limit, the message."""
    return getattr(self, "_summaryReport", self.args[0] if self.args else "")


def _oom_profile_path(self):
    """Where autoReport.all wrote the summary report, or ""."""
    return getattr(self, "_profilePath", "")


def _oom_graph_report(self):
    """The graph report (JSON, as Session.getGraphReport) of the compilation that did not fit: every
    tile's memory, the ones over capacity marked; "" for a host allocation."""
    return getattr(self, "_graphReport", "")


OutOfMemoryException.getSummaryReport = _oom_summary  # noqa: F821
OutOfMemoryException.getGraphReport = _oom_graph_report  # noqa: F821
OutOfMemoryException.getProfilePath = _oom_profile_path  # noqa: F821

__version__ = versionString()  # the core's (the CMake project version)


def reportSchema():
    """Every key of the report document getReport() returns, parents first: [{"path", "type",
    "optional", "doc"}], "[]" in a path standing for an array's elements ("compilation.ops[].name");
    the core's table (report::schema(); the same list as JS's popart.reportSchema())."""
    import json
    return json.loads(_popart._reportSchemaJson())


def describeModel(fnModel, inputShapeInfo=None, histogramBins=32):
    """The core's description of an ONNX model (bytes or a path) as data: nodes, tensors with the
    runtime's own inferred TensorInfo, initializer statistics and histograms, the opsets, the
    parameter count and an op histogram (popart::describeModel; the same document as JS's
    popart.describeModel). inputShapeInfo overrides input shapes, as for a session."""
    import json
    return json.loads(_popart._describeModel(fnModel, inputShapeInfo if inputShapeInfo is not None else InputShapeInfo(),
                                             histogramBins))


# PopART's extension module is `popart_core`: `popart.popart_core` and `import popart_core` (the
# top-level popart_core.py) are this package's names under that module name.
from . import popart_core  # noqa: E402,F401
