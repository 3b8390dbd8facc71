// Python value <-> core type conversions (py_common.hpp).
#include <cstring>

#include "popart/commgroup.hpp"
#include "py_common.hpp"

namespace popart {
namespace py_bind {

DataType dataTypeOf(const py::dtype& dt, const std::string& what) {
  const char kind = dt.kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw error("{} has NumPy dtype {}, which the runtime has no type for (use a numeric or bool array)", what,
                py::str(py::handle(dt)).cast<std::string>());
  if (dt.attr("byteorder").cast<std::string>() == ">")
    throw error("{} is big-endian ({}); convert it with .astype('{}')", what,
                py::str(py::handle(dt)).cast<std::string>(), py::str(dt.attr("newbyteorder")("=")).cast<std::string>());
  return dataTypeFromString(dt.attr("name").cast<std::string>());
}

py::dtype numpyDtype(DataType t) {
  if (t == DataType::BFLOAT16 || t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152 || t == DataType::STRING ||
      t == DataType::UNDEFINED)
    throw error("{} tensors have no NumPy dtype", dataTypeToString(t));
  return py::dtype(dataTypeToLcaseString(t));
}

DataType toDataType(py::handle h, const std::string& what) {
  if (py::isinstance<py::str>(h)) return dataTypeFromString(h.cast<std::string>());
  if (py::isinstance<py::dtype>(h)) return dataTypeOf(py::reinterpret_borrow<py::dtype>(h), what);
  if (py::hasattr(h, "name") && py::hasattr(h, "value") && !py::isinstance<py::type>(h))
    return dataTypeFromString(h.attr("name").cast<std::string>());  // popart.DataType.FLOAT
  if (py::isinstance<py::type>(h)) {
    try {
      return dataTypeOf(py::dtype::from_args(py::reinterpret_borrow<py::object>(h)), what);
    } catch (const py::error_already_set&) {
    }
  }
  throw error("{} must be a data type name (\"FLOAT\", \"float32\"), a NumPy dtype or popart.DataType, got {}", what,
              py::repr(h).cast<std::string>());
}

int enumValue(const char* enumName, py::handle h, const std::string& what) {
  const EnumInfo& info = enumInfo(enumName);
  if (py::isinstance<py::str>(h)) return detail::enumValueFromName(enumName, h.cast<std::string>());
  if (!py::isinstance<py::type>(h) && py::hasattr(h, "name") && py::hasattr(h, "value") &&
      py::isinstance<py::str>(h.attr("name"))) {
    const std::string type = py::type::handle_of(h).attr("__name__").cast<std::string>();
    if (type != enumName)
      throw error("{} must be a popart.{} value, got popart.{}.{}", what, enumName, type,
                  h.attr("name").cast<std::string>());
    return detail::enumValueFromName(enumName, h.attr("name").cast<std::string>());
  }
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) {
    const auto v = h.cast<int64_t>();
    if (v >= 0 && v < static_cast<int64_t>(info.values.size())) return static_cast<int>(v);
  }
  std::string names;
  for (const auto& n : info.values) names += (names.empty() ? "" : ", ") + n;
  throw error("{} must be a popart.{} value or one of the names {}, got {}", what, enumName, names,
              py::repr(h).cast<std::string>());
}

py::object pyEnum(const std::string& enumName, const std::string& valueName) {
  py::object cls = py::module_::import("popart").attr(enumName.c_str());
  return cls.attr(valueName.c_str());
}

std::vector<std::string> toStrings(py::handle h, const std::string& what) {
  if (h.is_none()) return {};
  if (py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h))
    throw error("{} must be a list of strings, got the string {}", what, py::repr(h).cast<std::string>());
  std::vector<std::string> out;
  if (!py::isinstance<py::iterable>(h))
    throw error("{} must be a list of strings, got {}", what, py::repr(h).cast<std::string>());
  for (py::handle e : py::reinterpret_borrow<py::iterable>(h)) {
    if (!py::isinstance<py::str>(e))
      throw error("{} must be a list of strings; element {} is {}", what, out.size(), py::repr(e).cast<std::string>());
    out.push_back(e.cast<std::string>());
  }
  return out;
}

namespace {
bool isEnumMember(py::handle v) {
  return !py::isinstance<py::type>(v) && py::hasattr(v, "name") && py::hasattr(v, "value") &&
         py::isinstance<py::str>(v.attr("name")) && !py::isinstance<py::str>(v);
}
bool isInt(py::handle v) {
  return (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) ||
         (!py::isinstance<py::array>(v) && py::hasattr(v, "dtype") && py::hasattr(v, "item") &&
          py::isinstance<py::int_>(v.attr("item")()) && !py::isinstance<py::bool_>(v.attr("item")()));
}
}  // namespace

OptionValue optionValueFrom(py::handle v, const std::string& type, const std::string& what) {
  if (type == "intss") {  // one list of integers per group (multiconv's per-convolution lists)
    if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
      throw error("{} must be a list of integer lists, got {}", what, py::repr(v).cast<std::string>());
    std::vector<std::vector<int64_t>> out;
    for (py::handle e : py::reinterpret_borrow<py::iterable>(v)) {
      const std::string at = what + "[" + std::to_string(out.size()) + "]";
      const OptionValue inner = optionValueFrom(e, "ints", at);
      if (const auto* l = std::get_if<std::vector<int64_t>>(&inner))
        out.push_back(*l);
      else if (const auto* d = std::get_if<std::vector<double>>(&inner); d && d->empty())
        out.emplace_back();
      else
        throw error("{} must be a list of integers, got {}", at, py::repr(e).cast<std::string>());
    }
    return out;
  }
  if (type == "map" || type == "intmap") {
    if (!py::isinstance<py::dict>(v))
      throw error("{} must be a dict of strings, got {}", what, py::repr(v).cast<std::string>());
    std::map<std::string, std::string> m;
    for (auto kv : py::reinterpret_borrow<py::dict>(v)) {
      if (!py::isinstance<py::str>(kv.first))
        throw error("{}: keys must be strings, got {}", what, py::repr(kv.first).cast<std::string>());
      // Poplar's option values are strings; numbers and booleans are written as Poplar reads them.
      py::handle val = kv.second;
      std::string s;
      if (py::isinstance<py::bool_>(val))
        s = val.cast<bool>() ? "true" : "false";
      else if (py::isinstance<py::str>(val) || py::isinstance<py::int_>(val) || py::isinstance<py::float_>(val))
        s = py::str(val).cast<std::string>();
      else
        throw error("{}['{}'] must be a string, got {}", what, kv.first.cast<std::string>(),
                    py::repr(val).cast<std::string>());
      m[kv.first.cast<std::string>()] = s;
    }
    return m;
  }
  if (isEnumMember(v)) return v.attr("name").cast<std::string>();
  // A 1-D NumPy array is read as the list it holds (PopART scripts pass np.array shapes).
  if (py::isinstance<py::array>(v) && py::reinterpret_borrow<py::array>(v).ndim() == 1)
    return optionValueFrom(v.attr("tolist")(), type, what);
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (isInt(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v) ||
      (!py::isinstance<py::array>(v) && py::hasattr(v, "dtype") && py::isinstance<py::float_>(v.attr("item")())))
    return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v) || py::isinstance<py::set>(v) ||
      py::isinstance<py::frozenset>(v)) {
    std::vector<py::handle> items;
    for (py::handle e : py::reinterpret_borrow<py::iterable>(v)) items.push_back(e);
    bool allStrings = !items.empty(), allInts = true;
    for (auto e : items) {
      if (!py::isinstance<py::str>(e) && !isEnumMember(e)) allStrings = false;
      // A list of booleans is a list of 0 / 1 where integers are expected (multiconv's enableConvDithering).
      if (!isInt(e) && !(type == "ints" && py::isinstance<py::bool_>(e))) allInts = false;
    }
    if (allStrings || type == "strings" || type == "enums") {
      std::vector<std::string> s;
      for (auto e : items) {
        if (isEnumMember(e))
          s.push_back(e.attr("name").cast<std::string>());
        else if (py::isinstance<py::str>(e))
          s.push_back(e.cast<std::string>());
        else
          throw error("{} must hold strings or popart enum values; element {} is {}", what, s.size(),
                      py::repr(e).cast<std::string>());
      }
      return s;
    }
    if (allInts) {
      std::vector<int64_t> r;
      for (auto e : items) r.push_back(py::isinstance<py::bool_>(e) ? int64_t{e.cast<bool>()} : e.cast<int64_t>());
      return r;
    }
    std::vector<double> d;
    for (auto e : items) {
      if (py::isinstance<py::bool_>(e) || !(py::isinstance<py::float_>(e) || isInt(e)))
        throw error("{}[{}] must be a number, got {}", what, d.size(), py::repr(e).cast<std::string>());
      d.push_back(e.cast<double>());
    }
    return d;
  }
  // A CommGroup object where the table has PopART's [CommGroupType, replicaGroupSize] pair
  // (replicatedallreduce(commGroup=popart.CommGroup(...))).
  if ((type == "ints" || type == "commGroup") && py::isinstance<CommGroup>(v)) {
    const auto g = v.cast<CommGroup>();
    return std::vector<int64_t>{static_cast<int64_t>(g.type), static_cast<int64_t>(g.replicaGroupSize)};
  }
  throw error("{} cannot be set from {}", what, py::repr(v).cast<std::string>());
}

py::object pyFromOptionValue(const OptionValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

ArrayRef::ArrayRef(py::handle obj, const std::string& what, bool writeable) {
  if (!py::isinstance<py::array>(obj)) {
    if (writeable)
      throw error("{} must be a NumPy array (it is written to), got {}", what,
                  py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
    array_ = py::array::ensure(obj);  // a list or scalar: converted once, here
    if (!array_) {
      PyErr_Clear();
      throw error("{} must be a NumPy array, got {}", what, py::repr(obj).cast<std::string>());
    }
  } else {
    array_ = py::reinterpret_borrow<py::array>(obj);
  }
  if (!(array_.flags() & py::array::c_style))
    throw error(
        "{} cannot be used as it is not c-contiguous (shape {}, strides {}): the runtime reads arrays in "
        "place, a conversion would copy it; pass np.ascontiguousarray(...)",
        what, py::str(array_.attr("shape")).cast<std::string>(), py::str(array_.attr("strides")).cast<std::string>());
  if (writeable && !array_.writeable()) throw error("{} is read-only; the runtime writes into it", what);
  Shape shape(array_.shape(), array_.shape() + array_.ndim());
  info_ = TensorInfo(dataTypeOf(array_.dtype(), what), shape);
  data_ = const_cast<void*>(array_.data());
}

}  // namespace py_bind
}  // namespace popart
