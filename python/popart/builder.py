"""popart.Builder: PopART's Python Builder over the core's Builder. The aiOnnxOpsetN methods come
from the generated ONNX op table (_onnx_ops.py, the same generator as the C++ and JS methods);
aiGraphcore's from the core's Graphcore op table (graphcoreOpList()). Nothing is listed by hand."""
import contextlib
import inspect
import keyword
import typing

from . import _popart
from ._onnx_ops import FIRST_OPSET, LAST_OPSET, ONNX_OPS

_DEFAULT_ONNX_OPSET = _popart.defaultAiOnnxOpset  # the core's (PopART's) default ai.onnx opset
_NO_DEFAULT = inspect.Parameter.empty


def _pname(name):
    """A Python parameter name for an attribute: `lambda` is spelled `lambda_` (keywords cannot be
    parameter names; `**{"lambda": v}` works too)."""
    return name + "_" if keyword.iskeyword(name) else name


def _incompatible(where, sig, detail):
    """A TypeError in pybind11's wording, which PopART scripts match on: "<name>(): incompatible
    function arguments. The following argument types are supported: ..."."""
    return TypeError("%s(): incompatible function arguments. The following argument types are supported:\n"
                     "    1. %s%s\n\n%s" % (where.rsplit(".", 1)[-1], where, sig, detail))


def _bind(sig, args, kwargs, where):
    for k in list(kwargs):
        if keyword.iskeyword(k):
            kwargs[k + "_"] = kwargs.pop(k)
    try:
        return sig.bind(*args, **kwargs)
    except TypeError as e:
        raise _incompatible(where, sig, e) from None


def _is_default(value, default):
    """True when an attribute value equals its schema default (a float within float epsilon)."""
    if default is None:
        return False
    if isinstance(value, (list, tuple)) or isinstance(default, (list, tuple)):
        return (isinstance(value, (list, tuple)) and isinstance(default, (list, tuple))
                and list(value) == list(default))
    if isinstance(default, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return abs(float(value) - default) <= 1.1920929e-07
    return type(value) is type(default) and value == default


def _schema(versions, opset):
    best = None
    for v in versions:
        if v[0] <= opset:
            best = v
    return best


def _onnx_method(builder, opset, name, schema):
    since, op_type, deprecated, variadic, nout, min_in, max_in, attrs = schema
    params = []
    # Ops without inputs (Constant, RandomUniform, RandomNormal, ...) take no `args`, as PopART's.
    if max_in != 0:
        params.append(inspect.Parameter("args", inspect.Parameter.POSITIONAL_OR_KEYWORD))
    if variadic:
        # num_outputs defaults to 1 when every later parameter has a default (dropout, topk, ...),
        # as scripts often leave it out; before a required attribute it must be given.
        later_required = any(required for _, _, required, _ in attrs)
        params.append(inspect.Parameter("num_outputs", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=_NO_DEFAULT if later_required else 1))
    # PopART's constant(value, debugContext): Constant's other attributes (sparse_value,
    # value_float, ...) are keyword-only, so the second positional argument is the name.
    constant = op_type == "Constant"
    keyword_only = []
    for a_name, a_type, required, default in attrs:
        dflt = _NO_DEFAULT if required else (default if default is not None else None)
        if constant and a_name != "value":
            keyword_only.append(inspect.Parameter(_pname(a_name), inspect.Parameter.KEYWORD_ONLY, default=dflt))
        else:
            params.append(inspect.Parameter(_pname(a_name), inspect.Parameter.POSITIONAL_OR_KEYWORD, default=dflt))
    params.append(inspect.Parameter("debugContext", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=""))
    params += keyword_only
    sig = inspect.Signature(params)
    impl = builder._impl
    multi = variadic or nout > 1

    def method(*args, **kwargs):
        where = "aiOnnxOpset%d.%s" % (opset, name)
        bound = _bind(sig, args, kwargs, where)
        given = set(bound.arguments)
        bound.apply_defaults()
        a = bound.arguments
        inputs = a.get("args", [])
        if isinstance(inputs, str):
            raise TypeError("aiOnnxOpset%d.%s: args must be a list of tensor ids, got the string %r" %
                            (opset, name, inputs))
        n_out = a["num_outputs"] if variadic else nout
        attr_list = []
        for a_name, a_type, required, a_default in attrs:
            v = a[_pname(a_name)]
            # An empty list means "not given", except a Reduce op's axes passed as []: PopART
            # writes it, and the op then reduces over no axis (None reduces over all).
            keep_empty = a_name == "axes" and op_type.startswith("Reduce") and _pname(a_name) in given
            if v is None or (not required and isinstance(v, (list, tuple)) and len(v) == 0 and not keep_empty):
                continue
            # PopART's builder writes an optional attribute only when it differs from the schema's
            # default (floats by more than float epsilon): rnn(..., direction="forward") leaves
            # `direction` out, so addNodeAttribute("direction", ...) may add it afterwards.
            if not required and _is_default(v, a_default):
                continue
            attr_list.append((a_name, a_type, v))
        dc = a["debugContext"]
        try:
            out = impl.op("ai.onnx", opset, op_type, inputs, n_out, attr_list,
                          dc if isinstance(dc, str) else str(dc), min_in, max_in)
        except TypeError as e:  # an attribute of the wrong type
            raise _incompatible(where, sig, e) from None
        return out if multi else out[0]

    method.__name__ = name
    method.__qualname__ = "AiOnnxOpset%d.%s" % (opset, name)
    method.__signature__ = sig
    method.__doc__ = "Adds ONNX %s (version %d). https://onnx.ai/onnx/operators/onnx__%s.html" % (
        op_type, since, op_type)
    return method


class AiOnnx:
    """The ai.onnx ops of one opset (builder.aiOnnxOpset11, builder.aiOnnx): methods generated from
    the ONNX schemas for every op the runtime supports."""

    def __init__(self, builder, opset):
        builder._impl.useOpset("ai.onnx", opset)  # fixes the model's ai.onnx opset (errors on a clash)
        self._builder = builder
        self._opset = opset

    def __getattr__(self, name):
        versions = ONNX_OPS.get(name)
        schema = _schema(versions, self._opset) if versions else None
        if schema is None or schema[2]:
            raise AttributeError("aiOnnxOpset%d has no op '%s'%s" % (
                self._opset, name, "" if not versions else " (not in this opset)"))
        m = _onnx_method(self._builder, self._opset, name, schema)
        setattr(self, name, m)  # cached on the instance
        return m

    def __dir__(self):
        return sorted(n for n, v in ONNX_OPS.items() if (_schema(v, self._opset) or (0, 0, True))[2] is False)

    def getOpsetVersion(self):
        return self._opset

    def __str__(self):
        return "AiOnnx%d" % self._opset  # PopART's per-opset class name


def _graphcore_method(builder, name, op_type, min_in, max_in, attrs, doc, num_outputs, num_outputs_from,
                      returns_list, inputs_form, args_optional):
    params = []
    if inputs_form != "none":
        # args defaults to [] when it may be empty and no required attribute follows (call's
        # num_outputs and callee are required, so its args is too, as in PopART).
        later_required = any(a[3] for a in attrs)
        params.append(inspect.Parameter("args", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=[] if (min_in == 0 or args_optional) and not later_required
                                        else _NO_DEFAULT))
    for a_name, a_type, enum_name, required, has_default, default, _ in attrs:
        dflt = _NO_DEFAULT if required else (default if has_default else None)
        params.append(inspect.Parameter(_pname(a_name), inspect.Parameter.POSITIONAL_OR_KEYWORD, default=dflt))
    params.append(inspect.Parameter("debugContext", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=""))
    sig = inspect.Signature(params)
    impl = builder._impl
    names = [a[0] for a in attrs]

    # PopART's overloads that leave out trailing optional numeric attributes take the debug context
    # in their place (init(shape, data_type, init_type, "name")): a string where only a number can
    # go, as the last positional argument, is the debug context.
    numeric = [i + (inputs_form != "none") for i, at in enumerate(attrs)
               if not at[3] and at[1] in ("int", "float", "ints", "floats")]

    def method(*args, **kwargs):
        last = len(args) - 1
        if (last in numeric and "debugContext" not in kwargs and isinstance(args[last], str)):
            args, kwargs = args[:last], dict(kwargs, debugContext=args[last])
        a = _bind(sig, args, kwargs, "aiGraphcore.%s" % name).arguments
        dc = a.get("debugContext", "")
        inputs = a.get("args", [])
        if inputs_form == "arg" and isinstance(inputs, str):
            inputs = [inputs]
        outs = impl.graphcore(name, inputs, {k: a[_pname(k)] for k in names if _pname(k) in a},
                              dc if isinstance(dc, str) else str(dc))
        if returns_list:
            return outs
        return outs[0] if outs else None

    method.__name__ = name
    method.__qualname__ = "AiGraphcoreOpset1." + name
    method.__signature__ = sig
    method.__doc__ = doc
    return method


def _opset_class(version):
    cls = type("AiOnnxOpset%d" % version, (AiOnnx,), {
        "__doc__": "The ai.onnx ops of opset %d (builder.aiOnnxOpset%d)." % (version, version),
        "__module__": "popart"})
    return cls


# PopART's per-opset classes (popart.AiOnnxOpset11, ...): what builder.aiOnnxOpsetN returns.
OPSET_CLASSES = {v: _opset_class(v) for v in range(FIRST_OPSET, LAST_OPSET + 1)}


class AiGraphcore:
    """Graphcore's ops (domain ai.graphcore, version 1), from the core's table."""

    _TABLE = None

    def __init__(self, builder):
        if AiGraphcore._TABLE is None:
            AiGraphcore._TABLE = {op[0]: op for op in _popart._graphcoreOps()}
        for name, op in AiGraphcore._TABLE.items():
            setattr(self, name, _graphcore_method(builder, *op))

    def getOpsetVersion(self):
        return 1


class Builder:
    """Builds an ONNX model: popart.Builder(modelProtoOrFilename=None, opsets=None)."""

    def __init__(self, modelProtoOrFilename=None, opsets=None, _impl=None):
        self._impl = _impl if _impl is not None else _popart._Builder(modelProtoOrFilename)
        self._opsets = dict(opsets or {})
        self._onnx = {}
        self._graphcore = None

    # ------------------------------------------------------------------ opsets
    def _aiOnnx(self, version):
        if version not in self._onnx:
            if not FIRST_OPSET <= version <= LAST_OPSET:
                raise AttributeError("aiOnnxOpset%d: supported ai.onnx opsets are %d..%d" %
                                     (version, FIRST_OPSET, LAST_OPSET))
            if "ai.onnx" in self._opsets:  # the constructor's opset is the model's: another one is an error
                self._impl.useOpset("ai.onnx", int(self._opsets["ai.onnx"]))
            self._onnx[version] = OPSET_CLASSES[version](self, version)
        return self._onnx[version]

    @property
    def aiOnnx(self):
        """The ai.onnx ops at the model's opset (opsets["ai.onnx"], else the opset already used, else 10)."""
        v = self._opsets.get("ai.onnx")
        if v is None:
            v = self._impl.getOnnxOpsetVersion() or _DEFAULT_ONNX_OPSET
        return self._aiOnnx(int(v))

    @property
    def aiGraphcore(self):
        if self._graphcore is None:
            self._graphcore = AiGraphcore(self)
        return self._graphcore

    aiGraphcoreOpset1 = aiGraphcore

    def __getattr__(self, name) -> typing.Union[tuple(OPSET_CLASSES.values())]:
        """builder.aiOnnxOpsetN: the ops of ai.onnx opset N (an AiOnnxOpsetN)."""
        if name.startswith("aiOnnxOpset") and name[len("aiOnnxOpset"):].isdigit():
            return self._aiOnnx(int(name[len("aiOnnxOpset"):]))
        raise AttributeError("'Builder' object has no attribute '%s'" % name)

    # ------------------------------------------------------------------ tensors
    def addInputTensor(self, tensorInfo, shape=None, debugContext="", settings=None):
        """addInputTensor(TensorInfo) or addInputTensor("FLOAT", [shape]) (also with a name), and
        PopART's forms with InputSettings: addInputTensor(info, settings, debugContext) and
        addInputTensor("FLOAT", [shape], settings, debugContext)."""
        if isinstance(tensorInfo, _popart.TensorInfo):
            if isinstance(shape, _popart.InputSettings):
                settings, shape = shape, None  # addInputTensor(info, settings[, name])
            if shape is not None and isinstance(shape, str) and not debugContext:
                debugContext, shape = shape, None  # addInputTensor(info, "name")
            if shape is not None:
                raise TypeError("addInputTensor(TensorInfo, debugContext=''): unexpected shape argument")
            if isinstance(debugContext, _popart.InputSettings):
                settings, debugContext = debugContext, ""
            return self._impl.addInputTensor(tensorInfo, None, str(debugContext), settings)
        if isinstance(debugContext, _popart.InputSettings):
            settings, debugContext = debugContext, ""  # addInputTensor(dtype, shape, settings[, name])
        return self._impl.addInputTensor(tensorInfo, shape, str(debugContext), settings)

    def addUntypedInputTensor(self, debugContext=""):
        return self._impl.addUntypedInputTensor(debugContext)

    def addInputTensorFromParentGraph(self, tensorId):
        self._impl.addInputTensorFromParentGraph(tensorId)

    def addInitializedInputTensor(self, initVal, variableSettings=None, debugContext=""):
        """A weight initialised from a NumPy array (copied): addInitializedInputTensor(initVal[,
        debugContext]) or PopART's addInitializedInputTensor(initVal, variableSettings[,
        debugContext]), where initVal has an outer dimension of one value per replica group when
        the settings make more than one group."""
        if variableSettings is not None and not isinstance(variableSettings, _popart.VariableSettings):
            if debugContext:
                raise TypeError("addInitializedInputTensor(initVal, variableSettings, debugContext): "
                                "variableSettings must be a popart.VariableSettings")
            debugContext, variableSettings = variableSettings, None  # addInitializedInputTensor(v, "name")
        return self._impl.addInitializedInputTensor(initVal, str(debugContext), variableSettings)

    def addOutputTensor(self, outputName):
        self._impl.addOutputTensor(outputName)

    def add(self, a, b, debugContext=""):
        """poponnx's builder.add(a, b): aiOnnx.add([a, b])."""
        return self.aiOnnx.add([a, b], debugContext=debugContext)

    def createSubgraphBuilder(self):
        # The parent's opsets (PopART's scan / loop bodies are often built before the parent's
        # aiOnnx is first used, which is when its opset reaches the model).
        sub = Builder(opsets=self._opsets, _impl=self._impl.createSubgraphBuilder())
        sub._parent = self
        return sub

    def setGraphName(self, name):
        self._impl.setGraphName(name)

    def embedReplicationFactor(self, replicationFactor):
        """Writes the replication factor the model's grouped weights (VariableSettings) are laid
        out for into the model."""
        self._impl.embedReplicationFactor(replicationFactor)

    def customOp(self, opName, opVersion, domain, inputs, attributes=None, numOutputs=1, name=""):
        out = self._impl.customOp(opName, opVersion, domain, inputs, attributes or {}, numOutputs, name)
        return out

    def reshape_const(self, aiOnnx, args, shape, debugContext=""):
        """PopART's helper: Reshape by a constant shape."""
        import numpy as np
        s = aiOnnx.constant(np.array(shape, dtype=np.int64), debugContext=debugContext + "_const")
        return aiOnnx.reshape([args[0], s], debugContext=debugContext)

    # ------------------------------------------------------------------ introspection
    def getModelProto(self, humanReadable=False):
        """The serialized ONNX ModelProto (bytes)."""
        return self._impl.getModelProto(humanReadable)

    def saveModelProto(self, filename):
        self._impl.saveModelProto(filename)

    def saveInitializersExternally(self, ids, fileName):
        """Moves the initializers `ids` to the file `fileName` (ONNX external data)."""
        self._impl.saveInitializersExternally(list(ids), str(fileName))

    def getInputTensorIds(self):
        return self._impl.getInputTensorIds()

    def getOutputTensorIds(self):
        return self._impl.getOutputTensorIds()

    def getValueTensorIds(self):
        return self._impl.getValueTensorIds()

    def getTrainableTensorIds(self):
        return self._impl.getTrainableTensorIds()

    def getTensorShape(self, tensorId):
        return self._impl.getTensorShape(tensorId)

    def getTensorDtypeString(self, tensorId):
        return self._impl.getTensorDtypeString(tensorId)

    def isInitializer(self, tensorId):
        return self._impl.isInitializer(tensorId)

    def hasValueInfo(self, tensorId):
        return self._impl.hasValueInfo(tensorId)

    # ------------------------------------------------------------------ node attributes
    def addNodeAttribute(self, attributeName, attributeValue, nodeOutputNames):
        self._impl.addNodeAttribute(attributeName, attributeValue, nodeOutputNames)

    def nodeHasAttribute(self, attributeName, nodeOutputNames):
        return self._impl.nodeHasAttribute(attributeName, nodeOutputNames)

    def getInt64NodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getInt64NodeAttribute(attributeName, nodeOutputNames)

    def getInt64VectorNodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getInt64VectorNodeAttribute(attributeName, nodeOutputNames)

    def getFloatNodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getFloatNodeAttribute(attributeName, nodeOutputNames)

    def getFloatVectorNodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getFloatVectorNodeAttribute(attributeName, nodeOutputNames)

    def getStringNodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getStringNodeAttribute(attributeName, nodeOutputNames)

    def getStringVectorNodeAttribute(self, attributeName, nodeOutputNames):
        return self._impl.getStringVectorNodeAttribute(attributeName, nodeOutputNames)

    def removeNodeAttribute(self, attributeName, nodeOutputNames):
        self._impl.removeNodeAttribute(attributeName, nodeOutputNames)

    def getAllNodeAttributeNames(self, nodeOutputNames):
        return self._impl.getAllNodeAttributeNames(nodeOutputNames)

    # ------------------------------------------------------------------ scopes and IPU annotations
    @contextlib.contextmanager
    def nameScope(self, name):
        self._impl.pushNameScope(name)
        try:
            yield
        finally:
            self._impl.popNameScope()

    def getNameScope(self, name=""):
        return self._impl.getNameScope(name)

    @contextlib.contextmanager
    def _scoped(self, attr, value):
        """Sets the scoped attribute `attr` (an integer, or a list of integers) while inside."""
        prev = self._impl.getAttributeInt(attr)
        self._impl.setAttributeInt(attr, [int(v) for v in value] if isinstance(value, (list, tuple)) else int(value))
        try:
            yield
        finally:
            if prev is None:
                self._impl.clearAttribute(attr)
            else:
                self._impl.setAttributeInt(attr, prev)

    def virtualGraph(self, arg0, value=None):
        """virtualGraph(ids, value) annotates nodes; `with builder.virtualGraph(value):` scopes."""
        if value is None:
            return self._scoped("__ipu_number", arg0)
        self._impl.virtualGraph(arg0, value)

    def pipelineStage(self, arg0, value=None):
        if value is None:
            return self._scoped("__pipeline_stage", arg0)
        self._impl.pipelineStage(arg0, value)

    def executionPhase(self, arg0, value=None):
        if value is None:
            return self._scoped("__execution_phase", arg0)
        self._impl.executionPhase(arg0, value)

    def schedulePriority(self, value):
        return self._scoped("__schedule_priority", value)

    def commGroup(self, type=0, groupSize=0):
        """`with builder.commGroup(popart.CommGroupType.Consecutive, 4):` the collectives made inside
        act over that replica group (node attribute __collectiveCommGroup = [type, groupSize])."""
        return self._scoped("__collectiveCommGroup", [type, groupSize])

    def getVirtualGraph(self, nodeOutputName=None):
        """The virtual graph of the node making `nodeOutputName` (an id or a set of its outputs); without it, the current scope's."""
        if nodeOutputName is None:
            return self._impl.getVirtualGraph()
        return self._impl.getVirtualGraph(nodeOutputName)

    def getExecutionPhase(self, nodeOutputNames=None):
        """The execution phase of the node making `nodeOutputNames` (an id or a set); without it, the current scope's."""
        if nodeOutputNames is None:
            return self._impl.getExecutionPhase()
        return self._impl.getExecutionPhase(nodeOutputNames)

    def getPipelineStage(self, nodeOutputName=None):
        """The pipeline stage of the node making `nodeOutputName`; without it, the current scope's."""
        if nodeOutputName is None:
            return self._impl.getPipelineStage()
        return self._impl.getPipelineStage(nodeOutputName)

    def recomputeOutputInBackwardPass(self, nodeOutputNames, value="Recompute"):
        """Marks the nodes' outputs with a RecomputeType (default Recompute)."""
        self._impl.recomputeOutputInBackwardPass(nodeOutputNames, value)

    def recomputeOutput(self, arg0, value=None):
        """`with builder.recomputeOutput(popart.RecomputeType.Recompute):` marks the nodes created in
        the scope; recomputeOutput(nodeOutputNames, value) marks existing nodes (PopART's two forms)."""
        if value is None and not isinstance(arg0, (str, list, tuple, set, frozenset)):
            return self._scoped("__recompute_output_in_backward_pass", int(arg0))
        self._impl.recomputeOutputInBackwardPass(arg0, "Recompute" if value is None else value)

    def checkpointOutput(self, nodeOutputNames):
        """An Identity of each tensor marked RecomputeType.Checkpoint; returns their ids."""
        return self._impl.checkpointOutput(nodeOutputNames)

    def hasVirtualGraph(self):
        """Whether a `with builder.virtualGraph(n):` scope is active."""
        return self._impl.hasVirtualGraph()

    def hasPipelineStage(self):
        """Whether a `with builder.pipelineStage(n):` scope is active."""
        return self._impl.hasPipelineStage()

    def hasExecutionPhase(self):
        """Whether a `with builder.executionPhase(n):` scope is active."""
        return self._impl.hasExecutionPhase()

    def setAvailableMemoryProportion(self, nodeOutputNames, availableMemoryProportion):
        self._impl.setAvailableMemoryProportion(nodeOutputNames, availableMemoryProportion)

    def setInplacePreferences(self, nodeOutputName, prefs):
        """PopART's inplacing priorities ({"ExpInplace": 10.0}); kept on the node, no effect on a run here."""
        self._impl.setInplacePreferences(nodeOutputName, {str(k): float(v) for k, v in dict(prefs).items()})

    def setPartialsType(self, nodeOutputName, partialsType):
        self._impl.setPartialsType(nodeOutputName, partialsType)

    def setEnableConvDithering(self, nodeOutputName, value):
        """Poplar's convolution dithering for a Conv (1 / True on); kept on the node, no effect on results here."""
        self._impl.setEnableConvDithering(nodeOutputName, value)

    def setSerializeMatMul(self, nodeOutputNames, mode, factor=0, keep_precision=False):
        self._impl.setSerializeMatMul(nodeOutputNames, mode, factor, keep_precision)

    def excludePatterns(self, nodeOutputName, patternNames):
        self._impl.excludePatterns(nodeOutputName, patternNames)


def _add_cpp_docs():
    """The public C++ header's /// comments (Builder.<method>) for the methods without a docstring."""
    docs = _popart._cppDocs
    for name, f in list(vars(Builder).items()):
        if callable(f) and not name.startswith("_") and not getattr(f, "__doc__", None):
            d = docs.get("Builder." + name)
            if d:
                f.__doc__ = d


_add_cpp_docs()
