// Every differentiable op of the op list has a grad rule: the test walks the registry and fails
// for an op without `OpDef::grad` unless the list below says why it has no gradient.
#include <map>
#include <set>
#include <string>

#include "common/test_util.hpp"
#include "ir/op_def.hpp"

namespace popart {
namespace {

/// Ops with no gradient, and why. Anything not here and not internal must have a grad rule.
const std::map<std::string, std::string>& notDifferentiable() {
  static const std::map<std::string, std::string> m = {};
  return m;
}

TEST(GradCoverage, EveryDifferentiableOpHasAGradRule) {
  std::vector<std::string> missing;
  for (const OpDef& d : allOpDefs()) {
    if (d.domain == "internal") continue;  // grad ops and weight updates: the runtime's own
    const std::string key = d.domain + "::" + d.type;
    if (d.grad) {
      EXPECT_EQ(notDifferentiable().count(key), 0u) << key << " has a grad rule but is listed as not differentiable";
      continue;
    }
    if (!notDifferentiable().count(key)) missing.push_back(key);
  }
  std::string all;
  for (const auto& m : missing) all += " " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " ops have no grad rule and are not listed as not "
                               << "differentiable (tests/unit/grad_coverage_test.cpp):" << all;
}

}  // namespace
}  // namespace popart
