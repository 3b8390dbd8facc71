"""popart: PopART's Python API over the popart-runtime core (CPU and IPU-model devices).

A PopART script runs as written: Builder, InferenceSession / TrainingSession, DataFlow,
PyStepIO, optimizers, SessionOptions, DeviceManager, ... The extension (popart._popart) marshals
values; every behaviour, table and message is the C++ core's."""
from . import _popart
from ._enums import ENUMS as _ENUMS
from ._popart import (  # noqa: F401
    Adam, Adaptive, AnchorReturnType, ClipNormSettings, ConstSGD, DataFlow, DeviceInfo, DeviceManager,
    IdentityLoss, InputShapeInfo, IStepIO, L1Loss, Logger, Loss, NllLoss, Optimizer, OptimizerValue,
    OptimizerValueMap, OutOfMemoryException, Patterns, PyStepIO, PyStepIOCallback, PyWeightsIO, SGD, TensorInfo,
    getLogger, getMemoryLimit, getNumThreads, ipuTarget, ipuTargetList, popart_exception, popart_internal_exception, popart_runtime_error,
    poplar_exception, poplar_runtime_error, reservedAccl1Prefix, reservedAccl2Prefix, reservedAccl3Prefix,
    reservedAcclPrefix, reservedAccumPrefix, reservedGradientPrefix, reservedLossScalingPrefix, reservedStepPrefix,
    reservedUpdatedVarPrefix, setMemoryLimit, setNumThreads)
from .builder import AiGraphcore, AiOnnx, Builder  # noqa: F401
from .options import SessionOptions  # noqa: F401
from .session import InferenceSession, Session, TrainingSession  # noqa: F401

globals().update(_ENUMS)  # ReductionType, VirtualGraphMode, PatternsLevel, DeviceType, ...

# Older spellings the seeds use.
error = popart_exception
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


OutOfMemoryException.getSummaryReport = _oom_summary
OutOfMemoryException.getProfilePath = _oom_profile_path

__version__ = "0.1.0"


def describeModel(fnModel, inputShapeInfo=None, histogramBins=32):
    """The core's description of an ONNX model (bytes or a path) as data: nodes, tensors with the
    runtime's own inferred TensorInfo, initializer statistics and histograms, the opsets, the
    parameter count and an op histogram (popart::describeModel; the same document as JS's
    popart.describeModel). inputShapeInfo overrides input shapes, as for a session."""
    import json
    return json.loads(_popart._describeModel(fnModel, inputShapeInfo if inputShapeInfo is not None else InputShapeInfo(),
                                             histogramBins))
