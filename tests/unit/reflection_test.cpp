// The core's tables as data (popart/reflection.hpp): SessionOptions fields, enums, optimizer keys.
// The SessionOptions table is checked against the fields sessionoptions.hpp declares, so a field
// added to the header without a row (or the reverse) fails here.
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "common/test_util.hpp"
#include "ir/op_def.hpp"

namespace popart {
namespace {

using test::expectError;

/// (type, name) of the data members declared in `struct name { ... };` in `text`: statements
/// (split at ';', comments removed) with a type, a name and an optional initializer; methods
/// (anything with a parenthesis) are skipped.
std::vector<std::pair<std::string, std::string>> structFields(const std::string& text, const std::string& name) {
  const size_t start = text.find("struct " + name + " {");
  EXPECT_NE(start, std::string::npos) << name;
  const size_t open = text.find('{', start);
  const size_t end = text.find("\n};", start);
  std::string body = std::regex_replace(text.substr(open + 1, end - open - 1), std::regex(R"(//[^\n]*)"), "");
  body = std::regex_replace(body, std::regex(R"(\s+)"), " ");
  // Constructors with empty bodies end a statement too.
  body = std::regex_replace(body, std::regex(R"(\{\})"), "{};");
  std::vector<std::pair<std::string, std::string>> out;
  static const std::regex member(R"(^\s*([A-Za-z_][\w:<>, ]*?) ([A-Za-z_]\w*)\s*(=.*|\{.*\})?\s*$)");
  std::istringstream statements(body);
  std::string st;
  while (std::getline(statements, st, ';')) {
    std::smatch m;
    if (st.find('(') != std::string::npos) continue;
    if (std::regex_match(st, m, member)) out.push_back({m[1].str(), m[2].str()});
  }
  return out;
}

TEST(Reflection, SessionOptionsTableMatchesTheHeader) {
  std::ifstream f(std::string(POPART_SOURCE_DIR) + "/core/include/popart/sessionoptions.hpp");
  ASSERT_TRUE(f.good());
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::set<std::string> declared;
  // Nested settings structs to any depth (weightTensorLocationSettings.location.storage).
  std::function<void(const std::string&, const std::string&)> collect = [&](const std::string& strct,
                                                                            const std::string& prefix) {
    for (const auto& [type, name] : structFields(text, strct)) {
      const std::string t = std::regex_replace(type, std::regex(R"(\s+)"), "");
      if (text.find("struct " + t + " {") != std::string::npos) {
        collect(t, prefix + name + ".");
      } else {
        declared.insert(prefix + name);
      }
    }
  };
  collect("SessionOptions", "");
  std::set<std::string> listed;
  for (const auto& o : SessionOptions::list()) {
    // PopART's deprecated second names of a field (defaultPrefetchBufferingDepth, ...) are rows
    // without a member of their own.
    if (o.doc.rfind("Deprecated alias of ", 0) == 0) {
      EXPECT_TRUE(declared.count(o.doc.substr(20, o.doc.size() - 21))) << o.name << ": " << o.doc;
      continue;
    }
    listed.insert(o.name);
  }
  for (const auto& n : declared) EXPECT_TRUE(listed.count(n)) << "declared but not in the table: " << n;
  for (const auto& n : listed) EXPECT_TRUE(declared.count(n)) << "in the table but not declared: " << n;
  EXPECT_GT(declared.size(), 90u);
}

TEST(Reflection, SessionOptionsSetGetDefaults) {
  SessionOptions o;
  for (const auto& info : SessionOptions::list()) {
    EXPECT_FALSE(info.doc.empty()) << info.name;
    EXPECT_EQ(o.get(info.name), info.defaultValue) << info.name;
    o.set(info.name, info.defaultValue);  // every default can be written back
    if (info.type == "enum" || info.type == "enums") {
      EXPECT_NO_THROW(enumInfo(info.enumName)) << info.name;
    }
  }
  EXPECT_EQ(std::get<bool>(SessionOptions().get("constantWeights")), true);
  o.set("accumulationFactor", int64_t{4});
  EXPECT_EQ(o.accumulationFactor, 4);
  o.set("accumulationFactor", 8.0);  // an integral real is an integer
  EXPECT_EQ(o.accumulationFactor, 8);
  o.set("virtualGraphMode", std::string("Manual"));
  EXPECT_EQ(o.virtualGraphMode, VirtualGraphMode::Manual);
  o.set("virtualGraphMode", std::string("auto"));
  EXPECT_EQ(o.virtualGraphMode, VirtualGraphMode::Auto);
  EXPECT_EQ(std::get<std::string>(o.get("virtualGraphMode")), "Auto");
  o.set("executionPhaseSettings.phases", int64_t{3});
  EXPECT_EQ(o.executionPhaseSettings.phases, 3);
  o.set("accumulationAndReplicationReductionType", std::string("Mean"));
  EXPECT_EQ(o.accumulationAndReplicationReductionType, ReductionType::Mean);
  o.set("engineOptions", std::map<std::string, std::string>{{"debug.instrument", "true"}});
  EXPECT_EQ(o.engineOptions.at("debug.instrument"), "true");
  o.set("hardwareInstrumentations", std::vector<std::string>{"Outer", "Inner"});
  EXPECT_EQ(o.hardwareInstrumentations.size(), 2u);
  o.set("virtualGraphSplitRatios", std::vector<double>{0.25, 0.75});
  EXPECT_EQ(o.virtualGraphSplitRatios, (std::vector<float>{0.25f, 0.75f}));
  o.set("bufferingDepthMap", std::map<std::string, std::string>{{"x", "3"}});
  EXPECT_EQ(o.bufferingDepthMap.at("x"), 3u);
}

TEST(Reflection, SessionOptionsErrors) {
  SessionOptions o;
  expectError([&] { o.set("noSuchOption", true); }, {"SessionOptions has no option 'noSuchOption'"});
  expectError([&] { o.get("executionPhaseSettings.nope"); }, {"has no option 'executionPhaseSettings.nope'"});
  expectError([&] { o.set("constantWeights", int64_t{1}); },
              {"SessionOptions.constantWeights must be a boolean, got int 1"});
  expectError([&] { o.set("accumulationFactor", 2.5); }, {"SessionOptions.accumulationFactor must be an integer"});
  expectError([&] { o.set("defaultBufferingDepth", int64_t{1} << 40); }, {"must be an integer from"});
  expectError([&] { o.set("virtualGraphMode", std::string("Sideways")); },
              {"SessionOptions.virtualGraphMode: Invalid VirtualGraphMode 'Sideways'",
               "expected one of Off, Manual, Auto, ExecutionPhases"});
  expectError([&] { o.set("engineOptions", std::string("x")); }, {"engineOptions must be a map of strings"});
  expectError(
      [&] {
        o.set("bufferingDepthMap", std::map<std::string, std::string>{{"x", "0"}});
      },
      {"bufferingDepthMap['x'] must be a buffering depth >= 1"});
  EXPECT_EQ(o.virtualGraphMode, VirtualGraphMode::Off);  // a failed set changes nothing
}

TEST(Reflection, Enums) {
  std::set<std::string> names;
  for (const auto& e : allEnums()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.values.empty()) << e.name;
    EXPECT_FALSE(e.doc.empty()) << e.name;
    std::set<std::string> values(e.values.begin(), e.values.end());
    EXPECT_EQ(values.size(), e.values.size()) << e.name;
  }
  EXPECT_EQ(enumToString(RecomputationType::NormOnly), "NormOnly");
  EXPECT_EQ(enumFromString<AnchorReturnTypeId>("EveryN"), AnchorReturnTypeId::EveryN);
  EXPECT_EQ(enumFromString<SyntheticDataMode>("randomnormal"), SyntheticDataMode::RandomNormal);
  expectError([] { enumFromString<AdamMode>("Adamax2"); },
              {"Invalid AdamMode 'Adamax2'; expected one of Adam, AdamNoBias, AdaMax, Lamb, LambNoBias"});
  expectError([] { enumInfo("NoSuchEnum"); }, {"Unknown enum 'NoSuchEnum'"});
}

TEST(Reflection, OptimizerParams) {
  std::map<std::string, std::set<std::string>> keys;
  for (const auto& p : optimizerParamList()) {
    keys[p.optimizer].insert(p.key);
    EXPECT_FALSE(p.doc.empty()) << p.optimizer << " " << p.key;
  }
  EXPECT_EQ(keys["SGD"], (std::set<std::string>(SGD::getAllowedKeys().begin(), SGD::getAllowedKeys().end())));
  EXPECT_EQ(keys["Adam"].count("defaultBeta2"), 1u);
  EXPECT_EQ(keys["Adaptive"].count("defaultAlpha"), 1u);
  for (const auto& p : optimizerParamList()) {
    if (p.optimizer == "SGD" && p.key == "defaultLearningRate") {
      EXPECT_FLOAT_EQ(p.defaultValue, 0.1f);
      EXPECT_TRUE(p.defaultIsConst);
    }
  }
}

TEST(Reflection, SettingsStructsFromTheOptionTable) {
  std::map<std::string, SettingsStructInfo> byName;
  for (const auto& st : settingsStructList()) byName[st.name] = st;
  ASSERT_EQ(byName.count("TensorLocationSettings"), 1u);
  const auto& tls = byName["TensorLocationSettings"];
  // The four *TensorLocationSettings share the class; its location is a TensorLocation.
  EXPECT_EQ(std::set<std::string>(tls.paths.begin(), tls.paths.end()),
            (std::set<std::string>{"weightTensorLocationSettings", "optimizerStateTensorLocationSettings",
                                   "accumulatorTensorLocationSettings", "activationTensorLocationSettings"}));
  EXPECT_EQ(tls.fields,
            (std::vector<std::string>{"location", "minElementsForOffChip", "minElementsForReplicatedTensorSharding"}));
  EXPECT_EQ(tls.fieldStructs, (std::vector<std::string>{"TensorLocation", "", ""}));
  EXPECT_EQ(tls.keywordAliases.at("storage"), "location");
  const auto& loc = byName["TensorLocation"];
  EXPECT_EQ(loc.forms.size(), 4u);
  EXPECT_EQ(loc.forms[1], (std::vector<std::string>{"storage", "replicatedTensorSharding"}));
  EXPECT_EQ(loc.forms[2], (std::vector<std::string>{"storage", "replicatedTensorSharding", "shardingDomain"}));
  EXPECT_EQ(loc.forms[3], loc.fields);
  // Every field of every struct is an option (or a nested struct) under each of its paths.
  for (const auto& [name, st] : byName) {
    EXPECT_EQ(st.forms.back(), st.fields) << name;
    for (const auto& path : st.paths)
      for (size_t i = 0; i < st.fields.size(); ++i) {
        bool found = false;
        for (const auto& o : SessionOptions::list())
          found = found || o.name == path + "." + st.fields[i] || o.name.rfind(path + "." + st.fields[i] + ".", 0) == 0;
        EXPECT_TRUE(found) << path << "." << st.fields[i];
      }
  }
  EXPECT_EQ(byName["ExecutionPhaseSettings"].fields.at(0), "phases");
}

TEST(Reflection, SettingsCallsBindToFields) {
  auto fields = [](const std::vector<SettingsArgument>& args) {
    std::vector<std::string> v;
    for (const auto& a : args) v.push_back(a.field + (a.fieldStruct.empty() ? "" : ":" + a.fieldStruct));
    return v;
  };
  // TensorLocation's positional forms, PopART's: (storage[, sharding[, shardingDomain]]), then
  // (storage, loadTileSet, storageTileSet, sharding[, shardingDomain]).
  EXPECT_EQ(fields(bindSettingsArguments("TensorLocation", 1, {})), (std::vector<std::string>{"storage"}));
  EXPECT_EQ(fields(bindSettingsArguments("TensorLocation", 2, {})),
            (std::vector<std::string>{"storage", "replicatedTensorSharding"}));
  EXPECT_EQ(fields(bindSettingsArguments("TensorLocation", 3, {}))[2], "shardingDomain");
  EXPECT_EQ(fields(bindSettingsArguments("TensorLocation", 4, {}))[2], "storageTileSet");
  // A struct field reports its class; the alias `storage` sets the location.
  EXPECT_EQ(fields(bindSettingsArguments("TensorLocationSettings", 2, {"storage"})),
            (std::vector<std::string>{"location:TensorLocation", "minElementsForOffChip", "location:TensorLocation"}));
  EXPECT_EQ(fields(bindSettingsArguments("ExecutionPhaseSettings", 0, {"stages"})),
            (std::vector<std::string>{"stages"}));
  expectError([] { bindSettingsArguments("TensorLocationSettings", 4, {}); },
              {"TensorLocationSettings takes at most 3 positional arguments (location, minElementsForOffChip, "
               "minElementsForReplicatedTensorSharding), got 4"});
  expectError([] { bindSettingsArguments("TensorLocation", 0, {"tiles"}); },
              {"TensorLocation has no field 'tiles' (fields: storage, loadTileSet"});
  expectError([] { bindSettingsArguments("Nope", 0, {}); }, {"'Nope' is not a settings class"});
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

/// The model of one aiGraphcore node on [2, 3] float inputs, made by `add`.
template <typename F>
std::string oneNode(int nInputs, F add) {
  auto b = Builder::create();
  std::vector<TensorId> in;
  for (int i = 0; i < nInputs; ++i) in.push_back(b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x"));
  b->addOutputTensor(add(b->aiGraphcoreOpset1(), in));
  return b->getModelProto();
}

TEST(Reflection, GraphcoreTypedMethodsAndTheTableAgree) {
  // The C++ methods' default arguments and the table's defaults give the same node.
  EXPECT_EQ(oneNode(1, [](AiGraphcoreOpset1 gc, auto in) { return gc.identityloss(in); }),
            oneNode(1, [](AiGraphcoreOpset1 gc, auto in) { return gc.callMethod("identityloss", in)[0]; }));
  EXPECT_EQ(oneNode(2, [](AiGraphcoreOpset1 gc, auto in) { return gc.scaledadd(in); }),
            oneNode(2, [](AiGraphcoreOpset1 gc, auto in) { return gc.callMethod("scaledadd", in)[0]; }));
  EXPECT_EQ(oneNode(1, [](AiGraphcoreOpset1 gc, auto in) { return gc.l1loss(in, 0.5f); }),
            oneNode(1, [](AiGraphcoreOpset1 gc, auto in) {
              return gc.callMethod("l1loss", in, {{"lambda", 0.5}})[0];
            }));
  std::set<std::string> methods;
  for (const auto& op : graphcoreOpList()) {
    EXPECT_TRUE(methods.insert(op.method).second) << op.method;
    EXPECT_FALSE(op.doc.empty()) << op.method;
    for (const auto& a : op.attrs) {
      if (a.type == "enum") {
        EXPECT_NO_THROW(enumInfo(a.enumName)) << op.method << " " << a.name;
      }
    }
  }
  // The table and the op list agree: every method adds a graphcore op of the list, and every
  // graphcore op of the list has a method.
  std::set<std::string> opTypes;
  for (const auto& op : graphcoreOpList()) {
    EXPECT_NE(findOpDef("ai.graphcore", op.opType), nullptr) << op.method << " adds an unknown op " << op.opType;
    opTypes.insert(op.opType);
  }
  for (const OpDef& d : allOpDefs()) {
    if (d.domain == "ai.graphcore") {
      EXPECT_TRUE(opTypes.count(d.type)) << d.type << " has no aiGraphcore method";
    }
  }
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  auto gc = b->aiGraphcoreOpset1();
  expectError([&] { gc.callMethod("frobnicate", {x}); }, {"aiGraphcore has no op 'frobnicate'", "nllloss"});
  expectError([&] { gc.callMethod("scale", {x}); }, {"aiGraphcore.scale: missing required attribute 'scale'"});
  expectError([&] { gc.callMethod("scale", {x}, {{"scale", 2.0}, {"bias", 1.0}}); }, {"has no attribute 'bias'"});
  expectError(
      [&] {
        gc.callMethod("identityloss", {x}, {{"reduction", std::string("Median")}});
      },
      {"Invalid ReductionType 'Median'"});
  expectError([&] { gc.callMethod("scale", {x}, {{"scale", std::string("2")}}); }, {"scale scale must be a number"});
}

}  // namespace
}  // namespace popart
