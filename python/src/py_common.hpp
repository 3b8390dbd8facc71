// Shared helpers of the Python extension (popart._popart): conversions between Python values and
// the core's types. Marshalling only; the core decides what a value must be and words the errors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "popart/popart.hpp"

namespace popart {
namespace py_bind {

namespace py = pybind11;

/// The core's DataType of a NumPy dtype ("float32" -> FLOAT ...); a dtype the runtime has no type
/// for (object, str, complex...) is an error naming `what`.
DataType dataTypeOf(const py::dtype& dt, const std::string& what);
/// The NumPy dtype of a core DataType (np.dtype("float32") for FLOAT).
py::dtype numpyDtype(DataType t);
/// A DataType from a string ("FLOAT", "float32"), a NumPy dtype or type (np.float32), or a
/// popart.DataType member.
DataType toDataType(py::handle h, const std::string& what);

/// An enum value from its name (any case), a member of the matching Python enum (popart.X.Name)
/// or its integer value; anything else is an error naming `what` and listing the names.
int enumValue(const char* enumName, py::handle h, const std::string& what);
template <typename E>
E toEnum(py::handle h, const std::string& what) {
  return static_cast<E>(enumValue(EnumTraits<E>::name(), h, what));
}
/// The member `valueName` of the Python enum `enumName` (popart.<enumName>), built in
/// popart/__init__.py from the core's table.
py::object pyEnum(const std::string& enumName, const std::string& valueName);

/// A Python value as an OptionValue for a field of kind `type` (the core's table: "bool", "int",
/// "float", "string", "enum", "enums", "ints", "floats", "strings", "map", "intss": a list of
/// integer lists). Enum members become
/// their names; the core checks kinds and ranges.
OptionValue optionValueFrom(py::handle v, const std::string& type, const std::string& what);
py::object pyFromOptionValue(const OptionValue& v);

/// A list of strings (any Python iterable of str; a single str is refused).
std::vector<std::string> toStrings(py::handle h, const std::string& what);

/// A user's NumPy array seen through IArray, without a copy. The array must be C-contiguous (and
/// writeable when `writeable`), of a dtype the runtime knows; otherwise an error naming `what`.
class ArrayRef : public IArray {
 public:
  ArrayRef(py::handle obj, const std::string& what, bool writeable);
  void* data() override { return data_; }
  DataType dataType() const override { return info_.dataType(); }
  std::size_t rank() const override { return info_.shape().size(); }
  int64_t dim(std::size_t i) const override { return info_.shape().at(i); }
  std::size_t nelms() const override { return static_cast<std::size_t>(info_.nelms()); }
  const Shape shape() const override { return info_.shape(); }
  const TensorInfo& info() const { return info_; }
  const py::array& array() const { return array_; }

 private:
  py::array array_;  // keeps the memory alive
  void* data_ = nullptr;
  TensorInfo info_;
};

void bindValues(py::module_& m);
void bindBuilder(py::module_& m);
void bindReplicas(py::module_& m);
void bindGraphTransformer(py::module_& m);
void bindSession(py::module_& m);

}  // namespace py_bind
}  // namespace popart
