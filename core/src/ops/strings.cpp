// String ops: StringNormalizer.
#include <set>

#include "common/strings.hpp"
#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/strings_params.hpp"

namespace popart {
namespace ops {
std::vector<std::string> normalizeStrings(const Op& op, const std::string* in, int64_t n) {
  const std::string action = op.attrs.getString("case_change_action", "NONE");
  const bool caseSensitive = op.attrs.getInt("is_case_sensitive", 0) != 0;
  std::set<std::string> stop;
  for (const auto& w : op.attrs.getStrings("stopwords", {})) stop.insert(caseSensitive ? w : asciiLower(w));
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = in[i];
    if (stop.count(caseSensitive ? s : asciiLower(s))) continue;
    std::string t = s;
    if (action == "LOWER") t = asciiLower(t);
    if (action == "UPPER") t = asciiUpper(t);
    out.push_back(t);
  }
  if (out.empty()) out.emplace_back();
  return out;
}

}  // namespace ops

namespace {

using namespace ops;

void setupStringNormalizer(Op& op) {
  requireType(op, 0, {DataType::STRING});
  const Shape& x = op.inShape(0);
  if (!(x.size() == 1 || (x.size() == 2 && x[0] == 1)))
    throw error("the input must have shape [C] or [1, C], got {}", x);
  const std::string action = op.attrs.getString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    throw error("case_change_action '{}' is not NONE, LOWER or UPPER", action);
  const TensorData& d = op.requireInData(0, "the strings (the output size depends on them)");
  const int64_t kept = static_cast<int64_t>(normalizeStrings(op, d.strings().data(), d.info().nelms()).size());
  setOutput(op, 0, DataType::STRING, x.size() == 1 ? Shape{kept} : Shape{1, kept});
}

}  // namespace

void define_StringNormalizer(OpDef& d) {
  d.setup = setupStringNormalizer;
  d.shapeInputsMask = 1;
}

}  // namespace popart
