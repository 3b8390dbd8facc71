"""InferenceSession, TrainingSession and poponnx's Session: PopART's Python constructors (keyword
names, the older dataFeed / losses forms) over the core's sessions, and initAnchorArrays."""
import json

from . import _popart
from .options import SessionOptions


class _Node:
    """A JSON object with attribute access (lists of objects become lists of _Node)."""

    def __init__(self, d):
        for k, v in d.items():
            setattr(self, k, _node(v))

    def __repr__(self):
        return "Report(" + ", ".join(sorted(vars(self))) + ")"


def _node(v):
    if isinstance(v, dict):
        return _Node(v)
    if isinstance(v, list):
        return [_node(x) for x in v]
    return v


class _Report(_Node):
    """The report document (the core's report::reportJson) with attribute access."""

    def __repr__(self):
        return "Report(compilation, execution)"


def _options(userOptions):
    if userOptions is None:
        return _popart._SessionOptions()
    if isinstance(userOptions, SessionOptions):
        return userOptions._o
    raise TypeError("userOptions must be a popart.SessionOptions, got %s" % type(userOptions).__name__)


def _dataflow(dataFlow, dataFeed, cls):
    if dataFlow is not None and dataFeed is not None:
        raise TypeError("%s: give dataFlow or its older name dataFeed, not both" % cls)
    df = dataFlow if dataFlow is not None else dataFeed
    if df is None:
        raise TypeError("%s: missing the dataFlow argument (a popart.DataFlow)" % cls)
    return df


class _SessionMixin:
    def initAnchorArrays(self):
        """{anchorId: np.ndarray} shaped by the anchors' return types (All: [bps, af, rf] + S, ...;
        prefix dims of size 1 are dropped), zero-filled."""
        return self._anchorArrays()

    @property
    def dataFlow(self):
        return self._dataFlow()

    @property
    def replicationFactor(self):
        return self._replicationFactor()

    @property
    def accumulationFactor(self):
        return self._accumulationFactor()

    def getReport(self):
        """The profile as an object (PopART 3.x's pva Report): the core's one report document
        (docs/ipu-model.md, "Report schema"; popart.reportSchema() lists its keys) with attribute
        access. `compilation` is the graph report (`compilation.target.totalMemory`,
        `.architecture`, `compilation.memory.byTile.total`, ...) and `execution` the execution
        report (`execution.runs[i].name`, `.cycles`); the runs are not reset."""
        return _Report(json.loads(self._getReportJson()))

    def getTensorIds(self):
        return self.getAllTensorIds()


class InferenceSession(_SessionMixin, _popart._Session):
    """InferenceSession(fnModel, dataFlow, deviceInfo, inputShapeInfo=InputShapeInfo(), patterns=None,
    userOptions=SessionOptions(), name="inference"). `fnModel`: ModelProto bytes or a file path.
    Older forms: dataFeed= for dataFlow, losses=[...] (run with the forward pass), no deviceInfo
    (a CPU device, with a warning)."""

    def __init__(self, fnModel, dataFlow=None, deviceInfo=None, inputShapeInfo=None, patterns=None,
                 userOptions=None, name="inference", *, dataFeed=None, losses=None):
        _popart._Session.__init__(
            self, "inference", fnModel, _dataflow(dataFlow, dataFeed, "InferenceSession"), deviceInfo,
            inputShapeInfo if inputShapeInfo is not None else _popart.InputShapeInfo(), _options(userOptions),
            patterns if patterns is not None else _popart.Patterns(), name, None, losses, None)


class TrainingSession(_SessionMixin, _popart._Session):
    """TrainingSession(fnModel, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo=InputShapeInfo(),
    patterns=None, userOptions=SessionOptions(), name="training"). `loss`: the id of a scalar tensor.
    Older forms: dataFeed= for dataFlow, losses=[NllLoss(...), L1Loss(...)] for loss."""

    def __init__(self, fnModel, dataFlow=None, loss=None, optimizer=None, deviceInfo=None, inputShapeInfo=None,
                 patterns=None, userOptions=None, name="training", *, dataFeed=None, losses=None):
        if loss is not None and losses is not None:
            raise TypeError("TrainingSession: give loss (a tensor id) or the older losses=[...], not both")
        if loss is not None and not isinstance(loss, str):
            raise TypeError("TrainingSession: loss must be the id (str) of a scalar loss tensor, got %s" %
                            type(loss).__name__)
        if optimizer is None:
            raise TypeError("TrainingSession: missing the optimizer argument (popart.SGD(...), ...)")
        _popart._Session.__init__(
            self, "training", fnModel, _dataflow(dataFlow, dataFeed, "TrainingSession"), deviceInfo,
            inputShapeInfo if inputShapeInfo is not None else _popart.InputShapeInfo(), _options(userOptions),
            patterns if patterns is not None else _popart.Patterns(), name, loss, losses, optimizer)


class Session(_SessionMixin, _popart._Session):
    """poponnx's Session(fnModel, dataFeed, losses=None, optimizer=None, ...): train / evaluate /
    infer (deprecated; a layer over InferenceSession and TrainingSession)."""

    def __init__(self, fnModel, dataFeed=None, losses=None, optimizer=None, deviceInfo=None, inputShapeInfo=None,
                 userOptions=None, patterns=None, *, dataFlow=None):
        _popart._Session.__init__(
            self, "legacy", fnModel, _dataflow(dataFlow, dataFeed, "Session"), deviceInfo,
            inputShapeInfo if inputShapeInfo is not None else _popart.InputShapeInfo(), _options(userOptions),
            patterns if patterns is not None else _popart.Patterns(), "session", None, losses or [], optimizer)

    def prepareDevice(self):
        self._legacyPrepareDevice()

    def weightsFromHost(self):
        self._legacyWeightsFromHost()
