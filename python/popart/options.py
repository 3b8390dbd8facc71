"""SessionOptions: attribute access over the core's option table (SessionOptions::list / set /
get in popart/reflection.hpp). An unknown attribute raises AttributeError; dict-valued options
(engineOptions, ...) and nested settings (executionPhaseSettings.phases, ...) write through, so
`opts.engineOptions["k"] = "v"` and `opts.batchSerializationSettings.factor = 2` persist."""
from . import _popart
from ._enums import ENUMS

_TABLE = {name: (type_, enum_name, default, doc) for name, type_, enum_name, default, doc in
          _popart._sessionOptionsList()}
# The settings structs (TensorLocationSettings, ExecutionPhaseSettings, ...): the core's list, each
# with its class name, the option paths of its kind, its fields and positional forms.
_STRUCT_INFO = {s["name"]: s for s in _popart._settingsStructList()}
# Every nested settings path, at any depth ("weightTensorLocationSettings",
# "weightTensorLocationSettings.location"), and its struct's name.
_PATH_STRUCT = {path: s["name"] for s in _STRUCT_INFO.values() for path in s["paths"]}
_PREFIXES = set(_PATH_STRUCT)


def _to_python(name, value):
    type_, enum_name = _TABLE[name][0], _TABLE[name][1]
    if type_ == "enum" and enum_name in ENUMS:
        return ENUMS[enum_name][value]
    if type_ == "enums" and enum_name in ENUMS:
        return {ENUMS[enum_name][v] for v in value}
    if type_ == "map":
        return _OptionDict(None, name, value)
    if type_ == "intmap":
        return _OptionDict(None, name, {k: int(v) for k, v in value.items()})
    if type_ == "commGroup":  # [CommGroupType, replicaGroupSize]
        return _popart.CommGroup(value[0], value[1])
    return value


class _OptionDict(dict):
    """A dict option that writes every change back to its SessionOptions."""

    def __init__(self, owner, name, value):
        super().__init__(value)
        self._owner = owner
        self._name = name

    def _sync(self):
        if self._owner is not None:
            self._owner._o.set(self._name, dict(self))

    def __setitem__(self, k, v):
        super().__setitem__(k, v)
        try:
            self._sync()
        except Exception:
            super().__delitem__(k)
            raise

    def __delitem__(self, k):
        super().__delitem__(k)
        self._sync()

    def update(self, *a, **kw):
        super().update(*a, **kw)
        self._sync()

    def clear(self):
        super().clear()
        self._sync()

    def pop(self, *a):
        r = super().pop(*a)
        self._sync()
        return r

    def setdefault(self, k, v=None):
        r = super().setdefault(k, v)
        self._sync()
        return r


class _Settings:
    """A nested settings struct of SessionOptions (executionPhaseSettings, ...): its fields read and
    write the options they belong to."""

    def __init__(self, owner, prefix):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, k):
        return self._owner._get(self._prefix + "." + k)

    def __setattr__(self, k, v):
        self._owner._set(self._prefix + "." + k, v)

    def __dir__(self):
        p = self._prefix + "."
        return sorted({n[len(p):].split(".")[0] for n in _TABLE if n.startswith(p)})

    def _asdict(self):
        return {k: (v._asdict() if isinstance(v, _Settings) else v) for k in self.__dir__() for v in [getattr(self, k)]}

    def __eq__(self, other):
        return hasattr(other, "_asdict") and _plain(self._asdict()) == _plain(other._asdict())

    def __repr__(self):
        return "%s(%s)" % (self._prefix, ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__dir__()))


class SessionOptions:
    """PopART's session options, by PopART's field names (the core's table: names, kinds, defaults)."""

    __slots__ = ("_o", "_callbacks")

    def __init__(self, **kwargs):
        object.__setattr__(self, "_o", _popart._SessionOptions())
        object.__setattr__(self, "_callbacks", {})  # the functions of "callback" options, as given
        for k, v in kwargs.items():
            setattr(self, k, v)

    def _get(self, name):
        if name in _PREFIXES:
            return _Settings(self, name)
        if name not in _TABLE:
            raise AttributeError("SessionOptions has no option '%s'" % name)
        if _TABLE[name][0] == "callback":
            return self._callbacks.get(name)
        v = _to_python(name, self._o.get(name))
        if isinstance(v, _OptionDict):
            v._owner = self
        return v

    def _set(self, name, value):
        if name in _PREFIXES:
            if hasattr(value, "_asdict"):  # another options' settings, popart.TensorLocationSettings(...), ...
                value = value._asdict()
            if not isinstance(value, dict):
                raise TypeError("SessionOptions.%s takes a dict of its fields or a %s" % (name, _struct_name(name)))
            for k, v in value.items():
                self._set(name + "." + k, v)
            return
        if name not in _TABLE:
            raise AttributeError("SessionOptions has no option '%s'" % name)
        if _TABLE[name][0] == "callback" and (value is None or callable(value)):
            # compilationProgressLogger = fn(progress, total); None clears it.
            if value is None:
                self._o.set(name, False)
                self._callbacks.pop(name, None)
            else:
                self._o.setCallback(name, value)
                self._callbacks[name] = value
            return
        self._o.set(name, value)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._get(name)

    def __setattr__(self, name, value):
        self._set(name, value)

    def __dir__(self):
        return sorted({n.split(".")[0] for n in _TABLE} | {"enableExplicitIR", "getAccumulationFactor",
                                                            "getReplicationFactor"})

    def enableExplicitIR(self, enable):
        self._o.enableExplicitIR(enable)

    def getAccumulationFactor(self):
        return self._o.getAccumulationFactor()

    def getReplicationFactor(self):
        return self._o.getReplicationFactor()

    def getGlobalReplicationFactor(self):
        return self._o.getGlobalReplicationFactor()

    @staticmethod
    def list():
        """Every option: (name, kind, enum name, default, documentation), from the core's table."""
        return [(n,) + t for n, t in _TABLE.items()]


def _plain(v):
    """Enum members as their names, for comparisons."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return getattr(v, "name", v)


def _struct_name(prefix):
    """The PopART class of a settings path: weightTensorLocationSettings -> TensorLocationSettings."""
    return _PATH_STRUCT[prefix]


class _Struct:
    """A settings value (popart.ExecutionPhaseSettings(...), popart.TensorLocationSettings(...)):
    its fields, their order (PopART's constructor order) and its defaults are the core's
    (settingsStructList; defaults from the option table), and the core binds each call's
    arguments to fields (bindSettingsArguments: positional forms, keyword aliases). Assign it to
    the SessionOptions field of that kind."""

    _info = None

    def __init__(self, *args, **kwargs):
        info = self._info
        p = info["paths"][0] + "."
        for k, struct in zip(info["fields"], info["fieldStructs"]):
            object.__setattr__(self, k, _STRUCTS[struct]() if struct else _to_python(p + k, _TABLE[p + k][2]))
        for (field, _), v in zip(_popart._bindSettingsArguments(info["name"], len(args), []), args):
            setattr(self, field, v)
        for k, v in kwargs.items():
            setattr(self, k, v)

    @classmethod
    def _fields(cls):
        return list(cls._info["fields"])

    def __setattr__(self, k, v):
        ((field, struct),) = _popart._bindSettingsArguments(self._info["name"], 0, [k])
        if struct and not hasattr(v, "_asdict") and not isinstance(v, dict):
            v = _STRUCTS[struct](v)  # TensorLocationSettings(TensorStorage.OffChip): its location's storage
        object.__setattr__(self, field, v)

    def _asdict(self):
        return {k: (v._asdict() if hasattr(v, "_asdict") else v) for k in self._fields() for v in [getattr(self, k)]}

    def __eq__(self, other):
        return hasattr(other, "_asdict") and _plain(self._asdict()) == _plain(other._asdict())

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % (k, getattr(self, k)) for k in self._fields()))


def _make_structs():
    return {name: type(name, (_Struct,), {"_info": info, "__module__": "popart",
                                          "__doc__": "PopART's %s(%s); fields, forms and defaults from the core's "
                                                     "options table." % (name, ", ".join(info["fields"]))})
            for name, info in _STRUCT_INFO.items()}


_STRUCTS = _make_structs()
