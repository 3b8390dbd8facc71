#include "common/attributes.hpp"

#include <cmath>
#include <type_traits>

#include "popart/error.hpp"

namespace popart {

const char* attrTypeName(const AttrValue& v) {
  static const char* names[] = {"INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR", "GRAPH", "GRAPHS"};
  return names[v.index()];
}

namespace {

template <typename T>
struct IsList : std::false_type {};
template <typename E>
struct IsList<std::vector<E>> : std::true_type {};

/// An empty list attribute has no element type (PopART's Python Builder writes `[]` as INTS):
/// it reads as an empty list of any list type.
template <typename T>
const T* emptyListAs(const AttrValue& v) {
  static const T empty{};
  if constexpr (IsList<T>::value) {
    const bool emptyList = std::visit(
        [](const auto& x) {
          if constexpr (IsList<std::decay_t<decltype(x)>>::value) return x.empty();
          return false;
        },
        v);
    if (emptyList) return &empty;
  }
  return nullptr;
}

}  // namespace

template <typename T>
const T& Attributes::get(const std::string& name, const char* typeName) const {
  auto it = m_.find(name);
  if (it == m_.end()) throw error("required attribute '{}' is missing", name);
  if (const T* p = std::get_if<T>(&it->second)) return *p;
  if (const T* p = emptyListAs<T>(it->second)) return *p;
  throw error("attribute '{}' must be {}, but it is {}", name, typeName, attrTypeName(it->second));
}

int64_t Attributes::getInt(const std::string& name) const {
  // ONNX writers sometimes store an integer-valued attribute as FLOAT; accept exact values.
  auto it = m_.find(name);
  if (it != m_.end()) {
    if (const float* f = std::get_if<float>(&it->second)) {
      // In int64's range (2^63 is a float exactly) and whole: inf, NaN and 1e30 are not integers.
      const float limit = 9223372036854775808.0f;
      if (*f >= -limit && *f < limit && std::trunc(*f) == *f) return static_cast<int64_t>(*f);
    }
  }
  return get<int64_t>(name, "INT");
}
int64_t Attributes::getInt(const std::string& name, int64_t dflt) const {
  return has(name) ? getInt(name) : dflt;
}

float Attributes::getFloat(const std::string& name) const {
  auto it = m_.find(name);
  if (it != m_.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<float>(*i);
  }
  return get<float>(name, "FLOAT");
}
float Attributes::getFloat(const std::string& name, float dflt) const {
  return has(name) ? getFloat(name) : dflt;
}

std::string Attributes::getString(const std::string& name) const {
  return get<std::string>(name, "STRING");
}
std::string Attributes::getString(const std::string& name, const std::string& dflt) const {
  return has(name) ? getString(name) : dflt;
}

std::vector<int64_t> Attributes::getInts(const std::string& name) const {
  return get<std::vector<int64_t>>(name, "INTS");
}
std::vector<int64_t> Attributes::getInts(const std::string& name, const std::vector<int64_t>& dflt) const {
  return has(name) ? getInts(name) : dflt;
}

std::vector<float> Attributes::getFloats(const std::string& name) const {
  return get<std::vector<float>>(name, "FLOATS");
}
std::vector<float> Attributes::getFloats(const std::string& name, const std::vector<float>& dflt) const {
  return has(name) ? getFloats(name) : dflt;
}

std::vector<std::string> Attributes::getStrings(const std::string& name) const {
  return get<std::vector<std::string>>(name, "STRINGS");
}
std::vector<std::string> Attributes::getStrings(const std::string& name, const std::vector<std::string>& dflt) const {
  return has(name) ? getStrings(name) : dflt;
}

const TensorData& Attributes::getTensor(const std::string& name) const {
  return get<TensorData>(name, "TENSOR");
}
GraphProtoPtr Attributes::getGraph(const std::string& name) const {
  return get<GraphProtoPtr>(name, "GRAPH");
}

std::string attrValueText(const AttrValue& v) {
  std::ostringstream os;
  if (const auto* i = std::get_if<int64_t>(&v)) {
    os << *i;
  } else if (const auto* f = std::get_if<float>(&v)) {
    os << *f;
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    os << *s;
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    os << listText(*is);
  } else if (const auto* fs = std::get_if<std::vector<float>>(&v)) {
    os << listText(*fs);
  } else if (const auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    os << listText(*ss);
  } else if (const auto* t = std::get_if<TensorData>(&v)) {
    os << "tensor " << t->info();
  } else {
    os << "graph";  // subgraphs are listed as graphs of their own
  }
  return os.str();
}

}  // namespace popart
