// Node attributes: typed values parsed from ONNX AttributeProto (or set by patterns).
#pragma once

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "common/tensor_data.hpp"

namespace onnx {
class GraphProto;
class AttributeProto;
}  // namespace onnx

namespace popart {

using GraphProtoPtr = std::shared_ptr<const onnx::GraphProto>;

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, TensorData, GraphProtoPtr, std::vector<GraphProtoPtr>>;

/// Name of an attribute value's type as ONNX spells it ("INT", "FLOATS", ...).
const char* attrTypeName(const AttrValue& v);

/// PopART writes a list (a shape too) as "[2 3]" (its vector printer).
template <typename T>
std::string listText(const std::vector<T>& v) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
  os << ']';
  return os.str();
}
/// An attribute value as PopART's IR dumps and debug info write it: "3", "0.5", "abc", "[1 2]",
/// "tensor FLOAT [2]", "graph".
std::string attrValueText(const AttrValue& v);

/// A node's attributes. Getters throw popart::error naming the attribute when it is missing
/// (required form) or has another type; the op's setup adds the node context.
class Attributes {
 public:
  bool has(const std::string& name) const { return m_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { m_[name] = std::move(v); }
  void erase(const std::string& name) { m_.erase(name); }
  const std::map<std::string, AttrValue>& all() const { return m_; }

  int64_t getInt(const std::string& name) const;
  int64_t getInt(const std::string& name, int64_t dflt) const;
  float getFloat(const std::string& name) const;
  float getFloat(const std::string& name, float dflt) const;
  std::string getString(const std::string& name) const;
  std::string getString(const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> getInts(const std::string& name) const;
  std::vector<int64_t> getInts(const std::string& name, const std::vector<int64_t>& dflt) const;
  std::vector<float> getFloats(const std::string& name) const;
  std::vector<float> getFloats(const std::string& name, const std::vector<float>& dflt) const;
  std::vector<std::string> getStrings(const std::string& name) const;
  std::vector<std::string> getStrings(const std::string& name, const std::vector<std::string>& dflt) const;
  const TensorData& getTensor(const std::string& name) const;
  GraphProtoPtr getGraph(const std::string& name) const;

 private:
  template <typename T>
  const T& get(const std::string& name, const char* typeName) const;
  std::map<std::string, AttrValue> m_;
};

}  // namespace popart
