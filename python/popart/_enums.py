"""PopART's enums (popart.ReductionType, popart.VirtualGraphMode, ...), made from the core's table
(popart/reflection.hpp allEnums()), so the names are the C++ ones and nothing is listed twice."""
import enum

from . import _popart


def _make():
    out = {}
    for name, (values, doc) in _popart._enums().items():
        e = enum.IntEnum(name, [(v, i) for i, v in enumerate(values)], module="popart")
        e.__doc__ = doc or name
        out[name] = e
    dt = enum.IntEnum("DataType", [(v, i) for i, v in enumerate(_popart._dataTypes())], module="popart")
    dt.__doc__ = "Element types (PopART's type strings)."
    out["DataType"] = dt
    return out


ENUMS = _make()
