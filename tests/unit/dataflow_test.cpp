// DataFlow / AnchorReturnType / Patterns / TensorInfo / logging: PopART's rules and messages.
#include "common/test_util.hpp"
#include "popart/logsink.hpp"

namespace popart {
namespace {

using test::expectError;

TEST(AnchorReturnType, CaseInsensitiveNames) {
  EXPECT_EQ(AnchorReturnType("ALL").id(), AnchorReturnTypeId::All);
  EXPECT_EQ(AnchorReturnType("all").id(), AnchorReturnTypeId::All);
  EXPECT_EQ(AnchorReturnType("Final").id(), AnchorReturnTypeId::Final);
  EXPECT_EQ(AnchorReturnType("SUM").id(), AnchorReturnTypeId::Sum);
  EXPECT_EQ(AnchorReturnType("EveryN", 2).rp(), 2);
  EXPECT_EQ(AnchorReturnType("everyn", 5).str(), "EveryN");
}

TEST(AnchorReturnType, Errors) {
  expectError([] { AnchorReturnType("Bogus"); }, {"Invalid anchor return type ID supplied: Bogus"});
  expectError([] { AnchorReturnType("EVERYN"); }, {"Must specify return period with option 'EVERYN'"});
  expectError([] { AnchorReturnType("EveryN", 0); }, {"Anchor return period must be greater than zero"});
  expectError([] { AnchorReturnType("All", 2); },
              {"A return period should not be supplied for this anchor return type"});
  expectError([] { AnchorReturnType("Final").rp(); }, {"A return period should not be supplied"});
}

TEST(DataFlow, Validation) {
  expectError([] { DataFlow(0, {"a"}); }, {"'Batches per step' must be greater than zero"});
  expectError(
      [] {
        DataFlow(2, {{"a", AnchorReturnType("EveryN", 4)}});
      },
      {"Return period must be <= to the number of batches per step"});
  expectError(
      [] {
        DataFlow(6, {{"a", AnchorReturnType("EveryN", 4)}});
      },
      {"Return period must be a factor of the number of batches per step"});
  DataFlow df(4, {{"b", AnchorReturnType("All")}, {"a", AnchorReturnType("Final")}});
  EXPECT_EQ(df.anchors(), (std::vector<TensorId>{"a", "b"}));  // map-key order
  EXPECT_TRUE(df.isAnchored("a"));
  EXPECT_EQ(df.nAnchors(), 2);
  EXPECT_EQ(df.art("a").id(), AnchorReturnTypeId::Final);
  expectError([&] { df.art("zz"); }, {"Tensor zz is not an anchor"});
  EXPECT_EQ(DataFlow().batchesPerStep(), 0);
}

TEST(Patterns, Levels) {
  Patterns none(PatternsLevel::NoPatterns);
  EXPECT_FALSE(none.isPatternEnabled("PreUniRepl"));
  EXPECT_FALSE(none.isInPlaceEnabled());
  Patterns minimal(PatternsLevel::Minimal);
  EXPECT_TRUE(minimal.isPatternEnabled("MatMulOp"));
  EXPECT_FALSE(minimal.isPatternEnabled("PreUniRepl"));
  EXPECT_FALSE(minimal.isInPlaceEnabled());
  Patterns dflt;
  EXPECT_TRUE(dflt.isPatternEnabled("PreUniRepl"));
  EXPECT_FALSE(dflt.isPatternEnabled("TiedGather"));
  EXPECT_TRUE(dflt.isInPlaceEnabled());
  Patterns all(PatternsLevel::All);
  EXPECT_TRUE(all.isPatternEnabled("TiedGather"));
}

TEST(Patterns, NamesAndMandatory) {
  expectError([] { Patterns({"NoSuchPattern"}); }, {"Unknown pattern NoSuchPattern"});
  expectError(
      [] {
        Patterns p;
        p.isPatternEnabled("Inplace");
      },
      {"did you mean InPlace?"});
  // PopART's spelling (its PatternCreator names), as its scripts list them.
  Patterns softmax({"PreUniRepl", "SoftmaxGradDirect", "NlllWithSoftmaxGradDirect"});
  EXPECT_TRUE(softmax.isSoftmaxGradDirectEnabled());
  EXPECT_TRUE(softmax.isNlllWithSoftmaxGradDirectEnabled());
  expectError([] { Patterns({"SoftMaxGradDirect"}); }, {"did you mean SoftmaxGradDirect?"});
  Patterns p;
  expectError([&] { p.enablePattern("MatMulOp", false); }, {"Pattern 'MatMulOp' is mandatory and cannot be disabled"});
  p.enablePattern("PreUniRepl", false);
  EXPECT_FALSE(p.isPreUniReplEnabled());
  // A list without the mandatory patterns is refused at session time unless asserts are off.
  Patterns listed({"PreUniRepl", "InPlace"});
  EXPECT_TRUE(listed.isInPlaceEnabled());
  expectError([&] { listed.ensureAllMandatoryPreAliasPatternsAreEnabled(); }, {"must be enabled"});
  listed.enableRuntimeAsserts(false);
  EXPECT_NO_THROW(listed.ensureAllMandatoryPreAliasPatternsAreEnabled());
}

TEST(TensorInfo, TypesAndShapes) {
  TensorInfo t("FLOAT", {2, 3, 4});
  EXPECT_EQ(t.nelms(), 24);
  EXPECT_EQ(t.nbytes(), 96);
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_EQ(t.data_type(), "FLOAT");
  EXPECT_EQ(t.data_type_lcase(), "float32");
  EXPECT_EQ(TensorInfo("float16", {}).nbytes(), 2);
  EXPECT_EQ(TensorInfo("INT64", {}).nelms(), 1);
  for (const char* s :
       {"UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "UINT32", "UINT64", "BOOL", "FLOAT16", "BFLOAT16",
        "FLOAT8_143", "FLOAT8_152", "FLOAT", "DOUBLE", "COMPLEX64", "COMPLEX128", "STRING", "UNDEFINED"}) {
    EXPECT_EQ(dataTypeToString(dataTypeFromString(s)), s);
  }
  expectError([] { TensorInfo("FLAOT", {1}); }, {"Unknown data type 'FLAOT'"});
  expectError([] { TensorInfo("FLOAT", {2, -1}); }, {"dimensions must be >= 0"});
  EXPECT_EQ(npOut({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
  expectError([] { npOut({2, 3}, {4}); }, {"not broadcastable"});
  std::ostringstream os;
  os << TensorInfo("INT32", {2, 5});
  EXPECT_EQ(os.str(), "INT32 [2 5]");
}

TEST(Half, RoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.1f}) {
    const float back = float16_t(f);
    EXPECT_NEAR(back, f, std::abs(f) * 1e-3f + 1e-7f);
  }
  EXPECT_TRUE(std::isinf(static_cast<float>(float16_t(1e6f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16_t(std::nanf("")))));
}

TEST(Logging, LevelsAndLogger) {
  EXPECT_EQ(logging::levelFromString("trace"), logging::Level::Trace);
  EXPECT_EQ(logging::levelFromString("ERR"), logging::Level::Err);
  expectError([] { logging::levelFromString("LOUD"); }, {"Invalid log level 'LOUD'"});
  getLogger("ir").setLevel("DEBUG");
  EXPECT_EQ(logging::getLogLevel(logging::Module::ir), logging::Level::Debug);
  EXPECT_TRUE(logging::shouldLog(logging::Module::ir, logging::Level::Info));
  getLogger().setLevel("OFF");
  EXPECT_FALSE(logging::shouldLog(logging::Module::ir, logging::Level::Critical));
  expectError([] { getLogger("nomodule"); }, {"Invalid logging module 'nomodule'"});
}

TEST(Logging, BuilderTracesEachOpAdded) {
  // PopART's TRACE line per op the Builder adds ("Adding ai.onnx.Abs..."), which scripts look for;
  // nothing at a higher level.
  std::vector<std::string> lines;
  logging::setLineSink([&](logging::Level, logging::Module m, const std::string& line) {
    if (m == logging::Module::builder) lines.push_back(line);
  });
  auto addAbs = [] {
    auto b = Builder::create();
    b->aiOnnxOpset11().abs({b->addInputTensor("FLOAT", {1, 2, 3})});
  };
  getLogger().setLevel("TRACE");
  addAbs();
  getLogger().setLevel("OFF");
  const size_t traced = lines.size();
  addAbs();
  getLogger().setLevel("DEBUG");
  addAbs();
  getLogger().setLevel("OFF");
  logging::setLineSink({});
  ASSERT_EQ(traced, 1u);
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("popart:builder"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(" T: Adding ai.onnx.Abs:11 node 'Abs' ([input] -> [Abs:0])"), std::string::npos) << lines[0];
}

TEST(Devices, CpuAndUnavailableHardware) {
  auto& dm = DeviceManager::createDeviceManager();
  auto d = dm.createCpuDevice();
  EXPECT_EQ(d->getType(), DeviceType::Cpu);
  EXPECT_TRUE(d->isAttached());
  EXPECT_TRUE(dm.enumerateDevices().empty());
  expectError([&] { dm.acquireAvailableDevice(3); }, {"must be a power of two"});
  expectError([&] { dm.acquireAvailableDevice(1); }, {"Failed to acquire device with 1 IPUs"});
  EXPECT_EQ(dm.tryAcquireAvailableDevice(1), nullptr);
  expectError([&] { dm.acquireDeviceById(5); }, {"Failed to acquire device with id '5'"});
  expectError([&] { dm.createIpuModelDevice({{"bogus", "1"}}); }, {"Invalid option `bogus'"});
}

}  // namespace
}  // namespace popart
