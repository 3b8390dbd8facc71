"""SessionOptions: attribute access over the core's option table (SessionOptions::list / set /
get in popart/reflection.hpp). An unknown attribute raises AttributeError; dict-valued options
(engineOptions, ...) and nested settings (executionPhaseSettings.phases, ...) write through, so
`opts.engineOptions["k"] = "v"` and `opts.batchSerializationSettings.factor = 2` persist."""
from . import _popart
from ._enums import ENUMS

_TABLE = {name: (type_, enum_name, default, doc) for name, type_, enum_name, default, doc in
          _popart._sessionOptionsList()}
_PREFIXES = {name.rsplit(".", 1)[0] for name in _TABLE if "." in name}


def _to_python(name, value):
    type_, enum_name = _TABLE[name][0], _TABLE[name][1]
    if type_ == "enum" and enum_name in ENUMS:
        return ENUMS[enum_name][value]
    if type_ == "enums" and enum_name in ENUMS:
        return {ENUMS[enum_name][v] for v in value}
    if type_ == "map":
        return _OptionDict(None, name, value)
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
        return sorted(n[len(p):] for n in _TABLE if n.startswith(p) and "." not in n[len(p):])

    def __repr__(self):
        return "%s(%s)" % (self._prefix, ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__dir__()))


class SessionOptions:
    """PopART's session options, by PopART's field names (the core's table: names, kinds, defaults)."""

    __slots__ = ("_o",)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_o", _popart._SessionOptions())
        for k, v in kwargs.items():
            setattr(self, k, v)

    def _get(self, name):
        if name in _PREFIXES:
            return _Settings(self, name)
        if name not in _TABLE:
            raise AttributeError("SessionOptions has no option '%s'" % name)
        v = _to_python(name, self._o.get(name))
        if isinstance(v, _OptionDict):
            v._owner = self
        return v

    def _set(self, name, value):
        if name in _PREFIXES:
            if isinstance(value, _Settings):
                value = {k: getattr(value, k) for k in value.__dir__()}
            if not isinstance(value, dict):
                raise TypeError("SessionOptions.%s takes a dict of its fields or another options' %s" % (name, name))
            for k, v in value.items():
                self._set(name + "." + k, v)
            return
        if name not in _TABLE:
            raise AttributeError("SessionOptions has no option '%s'" % name)
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
