// TensorInfo and broadcasting.
#include "popart/tensorinfo.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "common/checked_size.hpp"
#include "popart/error.hpp"

namespace popart {

TensorInfo::TensorInfo(DataType t, const Shape& s) {
  set(t, s);
}

TensorInfo::TensorInfo(const std::string& dataType, const Shape& s) {
  set(dataTypeFromString(dataType), s);
}

void TensorInfo::set(DataType t, const Shape& s) {
  for (auto d : s) {
    if (d < 0) throw error("Invalid shape {}: dimensions must be >= 0", s);
  }
  const int64_t n = checkedProduct(s);
  if (n < 0)
    throw error(
        "Invalid shape {}: its element count overflows a 64-bit integer (a {} tensor of this shape cannot exist)", s,
        dataTypeToString(t));
  int64_t bytes = 0;
  if (!checkedMul(n, dataTypeSize(t), &bytes))
    throw error("Invalid shape {}: a {} tensor of this shape ({} elements) needs more bytes than a 64-bit size holds",
                s, dataTypeToString(t), n);
  dataType_ = t;
  shape_ = s;
  nelms_ = n;
}

int64_t TensorInfo::nbytes() const {
  return nelms_ * dataTypeSize(dataType_);
}

int64_t TensorInfo::dim(int i) const {
  const int r = rank();
  if (i < -r || i >= r) throw error("dim({}) is out of range for a tensor of rank {}", i, r);
  return shape_[static_cast<size_t>(i < 0 ? i + r : i)];
}

const std::string& TensorInfo::data_type() const {
  return dataTypeToString(dataType_);
}
const std::string& TensorInfo::data_type_lcase() const {
  return dataTypeToLcaseString(dataType_);
}

std::string TensorInfo::toString() const {
  std::ostringstream os;
  append(os);
  return os.str();
}

void TensorInfo::append(std::ostream& os) const {
  os << data_type() << ' ' << shape_;
}

std::ostream& operator<<(std::ostream& os, const TensorInfo& info) {
  info.append(os);
  return os;
}

std::ostream& operator<<(std::ostream& os, DataType t) {
  return os << dataTypeToString(t);
}

Shape npOut(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      throw error("shapes {} and {} are not broadcastable (numpy rules)", a, b);
    }
  }
  return out;
}

}  // namespace popart
