// describeModel on every zoo model against the reference descriptions that
// tests/zoo/make_describe_refs.py makes with the onnx Python package and NumPy (<model>.describe.json
// in POPART_DESCRIBE_REFS, default the zoo directory): nodes, every tensor's dtype and shape (where
// onnx.shape_inference knows it; the runtime must know every shape), initializer statistics to
// 1e-6 relative and histogram counts exactly (the core repeats numpy.histogram's arithmetic).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "popart/describe.hpp"
#include "popart/error.hpp"

namespace popart {
namespace {

using nlohmann::json;

std::string zooDir() {
  const char* env = std::getenv("POPART_ZOO_DIR");
  return env ? env : POPART_ZOO_DIR;
}

std::string refDir() {
  const char* env = std::getenv("POPART_DESCRIBE_REFS");
  return env ? env : zooDir();
}

json readJson(const std::string& path) {
  std::ifstream f(path);
  if (!f)
    throw error("cannot open '{}': make it with /usr/bin/python3 tests/zoo/make_describe_refs.py {} --out {}", path,
                zooDir(), refDir());
  return json::parse(f);
}

/// |a - b| <= 1e-6 relative (plus 1e-12 absolute for values at 0).
void expectClose(const json& ours, const json& ref, const std::string& what) {
  if (ref.is_null()) {
    EXPECT_TRUE(ours.is_null()) << what;
    return;
  }
  ASSERT_TRUE(ours.is_number()) << what << ": " << ours.dump();
  const double a = ours.get<double>(), b = ref.get<double>();
  EXPECT_LE(std::abs(a - b), 1e-6 * std::abs(b) + 1e-12) << what << ": ours " << a << ", reference " << b;
}

/// Attribute values: numbers within 1e-6 relative (FLOAT attributes are float32), the rest equal.
void expectSameValue(const json& ours, const json& ref, const std::string& what) {
  if (ref.is_number()) {
    expectClose(ours, ref, what);
  } else if (ref.is_array()) {
    ASSERT_TRUE(ours.is_array()) << what;
    ASSERT_EQ(ours.size(), ref.size()) << what;
    for (size_t i = 0; i < ref.size(); ++i) expectSameValue(ours[i], ref[i], what + "[" + std::to_string(i) + "]");
  } else if (ref.is_object()) {
    ASSERT_TRUE(ours.is_object()) << what;
    for (auto it = ref.begin(); it != ref.end(); ++it) {
      ASSERT_TRUE(ours.contains(it.key())) << what << "." << it.key();
      expectSameValue(ours[it.key()], it.value(), what + "." + it.key());
    }
  } else {
    EXPECT_EQ(ours, ref) << what;
  }
}

void expectSameStats(const json& ours, const json& ref, const std::string& what) {
  if (ref.is_null()) {
    EXPECT_TRUE(ours.is_null()) << what << ": " << ours.dump();
    return;
  }
  ASSERT_TRUE(ours.is_object()) << what;
  for (const char* k : {"count", "zeros", "nans", "infs"}) EXPECT_EQ(ours[k], ref[k]) << what << "." << k;
  for (const char* k : {"min", "max", "mean", "std"}) expectClose(ours[k], ref[k], what + "." + k);
  if (ref["histogram"].is_null()) {
    EXPECT_TRUE(ours["histogram"].is_null()) << what;
    return;
  }
  expectClose(ours["histogram"]["min"], ref["histogram"]["min"], what + ".histogram.min");
  expectClose(ours["histogram"]["max"], ref["histogram"]["max"], what + ".histogram.max");
  EXPECT_EQ(ours["histogram"]["counts"], ref["histogram"]["counts"]) << what << ".histogram.counts";
}

class ZooDescribe : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDescribe, MatchesOnnxAndNumPy) {
  const std::string name = GetParam();
  const json ref = readJson(refDir() + "/" + name + ".describe.json");
  ASSERT_EQ(ref["histogramBins"], 32);
  const auto t0 = std::chrono::steady_clock::now();
  const ModelDescription d = describeModel(zooDir() + "/" + name + ".onnx");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ describe ] " << name << ": " << ms << " ms\n";
  const json j = json::parse(toJson(d));

  EXPECT_TRUE(j["shapeInference"]["ok"]) << j["shapeInference"]["message"];
  EXPECT_EQ(j["shapeInference"]["message"], "");
  for (const char* k : {"irVersion", "producerName", "producerVersion", "graphName", "docString", "modelBytes",
                        "opsets", "inputs", "outputs", "parameterCount", "parameterBytes"})
    EXPECT_EQ(j[k], ref[k]) << k;
  using Histogram = std::map<std::string, int64_t>;
  EXPECT_EQ(j["opHistogram"].get<Histogram>(), ref["opHistogram"].get<Histogram>());

  ASSERT_EQ(j["nodes"].size(), ref["nodes"].size());
  for (size_t i = 0; i < ref["nodes"].size(); ++i) {
    const json& a = j["nodes"][i];
    const json& b = ref["nodes"][i];
    for (const char* k : {"name", "opType", "domain", "opset", "inputs", "outputs"})
      EXPECT_EQ(a[k], b[k]) << "node " << i << " " << k;
    EXPECT_EQ(a["supported"], true) << "node " << b["name"];  // every zoo model runs
    ASSERT_EQ(a["attributes"].size(), b["attributes"].size()) << "node " << b["name"];
    for (size_t k = 0; k < b["attributes"].size(); ++k) {
      EXPECT_EQ(a["attributes"][k]["name"], b["attributes"][k]["name"]);
      EXPECT_EQ(a["attributes"][k]["type"], b["attributes"][k]["type"]);
      expectSameValue(a["attributes"][k]["value"], b["attributes"][k]["value"],
                      b["name"].get<std::string>() + "." + b["attributes"][k]["name"].get<std::string>());
    }
  }

  ASSERT_EQ(j["tensors"].size(), ref["tensors"].size());
  int withStats = 0;
  for (const json& t : j["tensors"]) {
    const std::string id = t["name"];
    ASSERT_TRUE(ref["tensors"].contains(id)) << id;
    const json& r = ref["tensors"][id];
    EXPECT_EQ(t["kind"], r["kind"]) << id;
    EXPECT_EQ(t["producer"], r["producer"]) << id;
    EXPECT_EQ(t["consumers"], r["consumers"]) << id;
    // The runtime infers every shape of a model it imports; ONNX's inference may know less.
    EXPECT_EQ(t["shapeSource"], "inferred") << id;
    if (!r["dtype"].is_null()) {
      EXPECT_EQ(t["dtype"], r["dtype"]) << id;
    }
    if (!r["shape"].is_null()) {
      ASSERT_EQ(t["shape"].size(), r["shape"].size()) << id << ": " << t["shape"].dump() << " vs " << r["shape"].dump();
      for (size_t k = 0; k < r["shape"].size(); ++k) {
        if (r["shape"][k].is_number()) {
          EXPECT_EQ(t["shape"][k], r["shape"][k]) << id << " dim " << k;
        }
      }
    }
    for (const char* k : {"elements", "bytes"}) {
      if (!r[k].is_null()) {
        EXPECT_EQ(t[k], r[k]) << id << " " << k;
      }
    }
    EXPECT_TRUE(t["elements"].is_number()) << id;
    expectSameStats(t["stats"], r["stats"], id);
    withStats += r["stats"].is_null() ? 0 : 1;
  }
  EXPECT_GT(withStats, 0);
}

std::vector<std::string> zooModels() {
  return {"mlp",          "cnn_small",       "alexnet",           "resnet18",
          "mobilenet_v2", "squeezenet1_0",   "transformer_layer", "transformer_layer_opset17",
          "alexnet_seed", "alexnet_seed_out"};
}

INSTANTIATE_TEST_SUITE_P(Models, ZooDescribe, ::testing::ValuesIn(zooModels()));

// Speed is a benchmark's business (bench/RESULTS.md: `popart info resnet18.onnx`), not a test's:
// each test above prints its model's time.
}  // namespace
}  // namespace popart
