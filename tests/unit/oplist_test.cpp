// The op list (core/src/oplist/*.def) against the code: every line's family names the files that
// define the op (ops/<family>.cpp) and run it (backends/cpu/kernels/<family>.cpp), and the
// registry's OpDefs carry the list's family, arity and opset.
#include <fstream>
#include <regex>
#include <sstream>

#include "common/test_util.hpp"
#include "ir/op_def.hpp"

namespace popart {
namespace {

struct Line {
  std::string file, enumName, type, domain, family;
  int minIn, maxIn, minOut, maxOut, since;
};

std::string src(const std::string& rel) {
  return std::string(POPART_SOURCE_DIR) + "/core/src/" + rel;
}

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The list in the order the X-macro sees it (ops.def and the files it includes).
void readList(const std::string& file, std::vector<Line>& out) {
  std::ifstream f(src("oplist/" + file));
  ASSERT_TRUE(f) << "cannot open oplist/" << file;
  static const std::regex include(R"re(^\s*#include\s+"oplist/([\w.]+)")re");
  static const std::regex op(
      R"re(^POPART_OP\((\w+),\s*"(\w+)",\s*(\w+),\s*(\w+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*(\d+)\))re");
  std::string line;
  while (std::getline(f, line)) {
    std::smatch m;
    if (std::regex_search(line, m, include)) {
      readList(m[1], out);
    } else if (std::regex_search(line, m, op)) {
      out.push_back({file, m[1], m[2], m[3], m[4], std::stoi(m[5]), std::stoi(m[6]), std::stoi(m[7]), std::stoi(m[8]),
                     std::stoi(m[9])});
    } else {
      EXPECT_EQ(line.rfind("POPART_OP(", 0), std::string::npos) << "oplist/" << file << ": unreadable line " << line;
    }
  }
}

std::vector<Line> opList() {
  std::vector<Line> v;
  readList("ops.def", v);
  return v;
}

/// Whether `text` defines op `e`: `define_E(` / `makeCpuKernel_E(`, or a family macro `NAME(E, ...)`.
bool defines(const std::string& text, const std::string& prefix, const std::string& e) {
  if (text.find(prefix + e + "(") != std::string::npos) return true;
  return std::regex_search(text, std::regex("\\b[A-Z][A-Z0-9_]*\\(" + e + "\\s*[,)]"));
}

TEST(OpList, RegistryMatchesTheList) {
  const auto list = opList();
  const auto& defs = allOpDefs();
  ASSERT_EQ(list.size(), defs.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Line& l = list[i];
    const OpDef& d = defs[i];
    EXPECT_EQ(d.type, l.type);
    EXPECT_EQ(d.family, l.family) << l.type;
    EXPECT_EQ(d.minInputs, l.minIn) << l.type;
    EXPECT_EQ(d.maxInputs, l.maxIn) << l.type;
    EXPECT_EQ(d.minOutputs, l.minOut) << l.type;
    EXPECT_EQ(d.maxOutputs, l.maxOut) << l.type;
    EXPECT_EQ(d.sinceOpset, l.since) << l.type;
    EXPECT_TRUE(l.maxIn == -1 || l.maxIn >= l.minIn) << l.type;
    EXPECT_TRUE(l.maxOut == -1 || l.maxOut >= l.minOut) << l.type;
  }
}

TEST(OpList, FamilyMatchesFiles) {
  std::map<std::string, std::string> opsFiles, kernelFiles;
  for (const Line& l : opList()) {
    auto& ops = opsFiles[l.family];
    auto& kernels = kernelFiles[l.family];
    if (ops.empty()) ops = readFile(src("ops/" + l.family + ".cpp"));
    if (kernels.empty()) kernels = readFile(src("backends/cpu/kernels/" + l.family + ".cpp"));
    ASSERT_FALSE(ops.empty()) << "oplist/" << l.file << ": family '" << l.family << "' of " << l.enumName
                              << " has no core/src/ops/" << l.family << ".cpp";
    ASSERT_FALSE(kernels.empty()) << "oplist/" << l.file << ": family '" << l.family << "' of " << l.enumName
                                  << " has no core/src/backends/cpu/kernels/" << l.family << ".cpp";
    EXPECT_TRUE(defines(ops, "define_", l.enumName))
        << l.enumName << " is listed in family '" << l.family << "' but ops/" << l.family
        << ".cpp does not define it (define_" << l.enumName << ")";
    EXPECT_TRUE(defines(kernels, "makeCpuKernel_", l.enumName))
        << l.enumName << " is listed in family '" << l.family << "' but backends/cpu/kernels/" << l.family
        << ".cpp has no makeCpuKernel_" << l.enumName;
  }
}

TEST(OpList, AreaFilesHoldOneFamilyEach) {
  // ops_<area>.def files are named for what they hold (ops.def itself holds the common families).
  for (const Line& l : opList()) {
    if (l.file == "ops.def") continue;
    const std::string area = l.file.substr(4, l.file.size() - 8);  // ops_<area>.def
    EXPECT_EQ(l.family, area) << l.enumName << " (family " << l.family << ") is in oplist/" << l.file;
  }
}

}  // namespace
}  // namespace popart
