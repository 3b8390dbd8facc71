// The ONNX backend test suite (Debian's libonnx-testdata) on the CPU device.
//
//   popart_conformance [--data DIR] [--expected expected_pass.txt] [--failures known_failures.txt]
//                      [--filter SUBSTRING] [--write-lists] [--verbose]
//
// Every test directory (node/, pytorch-converted/, pytorch-operator/, simple/) holds model.onnx
// and test_data_set_N/{input_K.pb, output_K.pb}. Each data set is fed through an
// InferenceSession (batchesPerStep 1, every graph output anchored) and every output is compared
// with ONNX's tolerances (rtol 1e-3, atol 1e-7, NaN equal to NaN; integers exactly).
// A test is "passed", "failed" (wrong values, shapes or types, or an error while running) or
// "unsupported" (the session could not be created: unknown op, data type, feature), with a reason.
//
// Every input is fed at run time, as a user would (no InputShapeInfo, no input bound as a
// constant): symbolic dimensions and inputs whose values give shapes (Reshape's shape, Expand's
// shape, ...) are planned by the run (docs/architecture.md, "Static and run-time planning").
//
// The two lists hold every test exactly once and both are checked, so they stay exact: the run
// fails (exit 1) when a test of the allowlist (--expected) does not pass, when a test of the
// known failures (--failures) passes, when a test is in neither list (new test data) or in both,
// and (without --filter) when a listed test is not in the data. --expected and --failures go
// together. --write-lists rewrites both from the run (the known failures with their reasons).
#include <dirent.h>
#include <sys/stat.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/tensor_data.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "popart/popart.hpp"

namespace {

using popart::TensorData;

enum class Status { Passed, Failed, Unsupported };

struct Result {
  std::string name;      // "node/test_abs"
  std::string category;  // "node"
  Status status = Status::Unsupported;
  std::string reason;
};

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> v;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") v.push_back(n);
    }
    closedir(d);
  }
  std::sort(v.begin(), v.end());
  return v;
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string firstLine(const std::string& s, size_t max = 300) {
  std::string l = s.substr(0, s.find('\n'));
  if (l.size() > max) l = l.substr(0, max) + "...";
  return l;
}

TensorData readTensor(const std::string& path) {
  onnx::TensorProto tp;
  if (!tp.ParseFromString(readFile(path))) throw popart::error("cannot parse the TensorProto in {}", path);
  return popart::tensorFromProto(tp);
}

/// Compares one output; "" when equal within tolerance, else what differs.
std::string compare(const TensorData& got, const TensorData& want) {
  const popart::TensorInfo& g = got.info();
  const popart::TensorInfo& w = want.info();
  // BFLOAT16 reference data is stored as UINT16 bits: compare those bits.
  if (g.dataType() == popart::DataType::BFLOAT16 && w.dataType() == popart::DataType::UINT16)
    return compare(TensorData(popart::TensorInfo(popart::DataType::UINT16, g.shape()), got.data()), want);
  // PopART's ArgMax / ArgMin give INT32 where ONNX says INT64: integer outputs of another integer
  // type are compared by value (docs/python-api.md, "Data types").
  const bool integerValues = popart::isInteger(g.dataType()) && popart::isInteger(w.dataType());
  if (g.dataType() != w.dataType() && !integerValues) return "type " + g.data_type() + " instead of " + w.data_type();
  if (g.shape() != w.shape()) {
    std::ostringstream os;
    os << "shape " << g << " instead of " << w;
    return os.str();
  }
  const int64_t n = g.nelms();
  if (w.dataType() == popart::DataType::STRING) {
    return got.strings() == want.strings() ? "" : "string values differ";
  }
  const bool isFloat = popart::isFloatingPoint(w.dataType());
  for (int64_t i = 0; i < n; ++i) {
    const double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    const bool ok = isFloat ? (a == b || std::abs(a - b) <= 1e-7 + 1e-3 * std::abs(b)) : a == b;
    if (!ok) {
      std::ostringstream os;
      os << "value " << i << " is " << std::setprecision(9) << a << " instead of " << b;
      return os.str();
    }
  }
  return "";
}

/// Why a model cannot run at all (types this runtime does not have), or "".
std::string unsupportedTypes(const onnx::ModelProto& m) {
  for (const auto& vi : m.graph().input()) {
    if (vi.type().has_sequence_type()) return "sequence types are not supported";
    if (vi.type().has_optional_type()) return "optional types are not supported";
    if (vi.type().has_map_type()) return "map types are not supported";
  }
  for (const auto& vi : m.graph().output()) {
    if (vi.type().has_sequence_type()) return "sequence types are not supported";
    if (vi.type().has_optional_type()) return "optional types are not supported";
  }
  return "";
}

Result runTest(const std::string& dir, const std::string& name, const std::string& category, bool verbose) {
  Result r;
  r.name = category + "/" + name;
  r.category = category;
  try {
    const std::string modelPath = dir + "/model.onnx";
    onnx::ModelProto model = popart::loadModel(modelPath);
    std::string modelBytes;
    model.SerializeToString(&modelBytes);
    if (const std::string why = unsupportedTypes(model); !why.empty()) {
      r.reason = why;
      return r;
    }
    std::set<std::string> inits;
    for (const auto& t : model.graph().initializer()) inits.insert(t.name());
    std::vector<std::string> inputNames, outputNames;
    for (const auto& vi : model.graph().input()) {
      if (!inits.count(vi.name())) inputNames.push_back(vi.name());
    }
    for (const auto& vi : model.graph().output()) outputNames.push_back(vi.name());
    std::vector<std::string> sets;
    for (const auto& e : listDir(dir)) {
      if (e.rfind("test_data_set_", 0) == 0) sets.push_back(e);
    }
    if (sets.empty()) {
      r.reason = "no test data";
      return r;
    }
    int setsPassed = 0;
    for (const auto& set : sets) {
      const std::string sd = dir + "/" + set;
      std::map<std::string, TensorData> inputs;
      for (size_t k = 0; k < inputNames.size(); ++k) {
        const std::string f = sd + "/input_" + std::to_string(k) + ".pb";
        if (!exists(f)) continue;  // an optional input left out
        inputs.emplace(inputNames[k], readTensor(f));
      }
      std::vector<TensorData> expected;
      for (size_t k = 0; k < outputNames.size(); ++k)
        expected.push_back(readTensor(sd + "/output_" + std::to_string(k) + ".pb"));

      // The data's element types are the model's (BFLOAT16 test data is stored as UINT16 bits).
      for (auto& kv : inputs) {
        for (const auto& vi : model.graph().input()) {
          if (vi.name() != kv.first || !vi.type().tensor_type().elem_type()) continue;
          const popart::DataType t = popart::dataTypeFromOnnx(vi.type().tensor_type().elem_type());
          if (t != kv.second.info().dataType() && popart::dataTypeSize(t) == kv.second.info().getDataTypeSize())
            kv.second = TensorData(popart::TensorInfo(t, kv.second.info().shape()), kv.second.data());
        }
      }
      // Every input is fed at run time, as a user of the model would: symbolic dimensions and
      // shape-giving inputs are planned by the run.
      std::unique_ptr<popart::InferenceSession> session;
      try {
        session = popart::InferenceSession::createFromOnnxModel(
            modelBytes, popart::DataFlow(1, outputNames),
            popart::DeviceManager::createDeviceManager().createCpuDevice());
      } catch (const popart::error& e) {
        r.status = Status::Unsupported;
        r.reason = firstLine(e.what());
        return r;
      }
      try {
        session->prepareDevice();
        std::map<popart::TensorId, popart::NDArray> ins;
        for (const auto& kv : inputs) {
          popart::NDArray a(kv.second.info());
          if (a.isString()) {
            std::copy(kv.second.strings().begin(), kv.second.strings().end(), static_cast<std::string*>(a.data()));
          } else if (a.nelms()) {
            std::memcpy(a.data(), kv.second.data(), static_cast<size_t>(kv.second.nbytes()));
          }
          ins.emplace(kv.first, std::move(a));
        }
        auto anchors = session->initAnchorArrays();
        popart::StepIO io(popart::arrayRefs(ins), popart::arrayRefs(anchors));
        session->run(io);
        for (size_t k = 0; k < outputNames.size(); ++k) {
          const popart::NDArray& a = anchors.at(outputNames[k]);
          const TensorData got(popart::TensorInfo(a.dataType(), a.shape()), a.data());
          const std::string diff = compare(got, expected[k]);
          if (!diff.empty()) {
            r.status = Status::Failed;
            r.reason = set + " output '" + outputNames[k] + "': " + diff;
            return r;
          }
        }
        ++setsPassed;
      } catch (const std::exception& e) {
        r.status = Status::Failed;
        r.reason = set + ": " + firstLine(e.what());
        return r;
      }
      if (verbose && session->getRunTimePlanStats().runTimeShapes) std::cerr << r.name << ": planned at run time\n";
    }
    r.status = Status::Passed;
  } catch (const std::exception& e) {
    r.status = Status::Unsupported;
    r.reason = firstLine(e.what());
  }
  return r;
}

std::set<std::string> readList(const std::string& path) {
  std::set<std::string> s;
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read the list " + path);
  std::string line;
  while (std::getline(f, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty()) s.insert(line.substr(0, line.find(' ')));
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data", expectedPath, failuresPath, filter;
  bool writeLists = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--data")
      data = next();
    else if (a == "--expected")
      expectedPath = next();
    else if (a == "--failures")
      failuresPath = next();
    else if (a == "--filter")
      filter = next();
    else if (a == "--write-lists")
      writeLists = true;
    else if (a == "--verbose")
      verbose = true;
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (expectedPath.empty() != failuresPath.empty()) {
    std::cerr << "--expected and --failures go together: every test must be in exactly one of the two lists\n";
    return 2;
  }
  if (writeLists && (expectedPath.empty() || !filter.empty())) {
    std::cerr << "--write-lists needs --expected and --failures, and no --filter (it writes the whole lists)\n";
    return 2;
  }
  std::set<std::string> expected, knownFailures;
  if (!expectedPath.empty() && !writeLists) {
    try {
      expected = readList(expectedPath);
      knownFailures = readList(failuresPath);
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
      return 2;
    }
  }
  popart::logging::setLogLevel(popart::logging::Level::Off);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> results;
  for (const std::string category : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& name : listDir(data + "/" + category)) {
      const std::string full = category + "/" + name;
      if (!filter.empty() && full.find(filter) == std::string::npos) continue;
      if (!exists(data + "/" + full + "/model.onnx")) continue;
      results.push_back(runTest(data + "/" + full, name, category, verbose));
      const Result& r = results.back();
      if (verbose || r.status == Status::Failed)
        std::cerr << (r.status == Status::Passed   ? "PASS "
                      : r.status == Status::Failed ? "FAIL "
                                                   : "SKIP ")
                  << r.name << (r.reason.empty() ? "" : ": " + r.reason) << "\n";
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Summary and per-category table.
  std::map<std::string, std::array<int, 3>> byCat;
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& r : results) {
    auto& c = byCat[r.category];
    if (r.status == Status::Passed)
      ++passed, ++c[0];
    else if (r.status == Status::Failed)
      ++failed, ++c[1];
    else
      ++skipped, ++c[2];
  }
  std::cout << "| category | passed | failed | unsupported | total |\n|---|---|---|---|---|\n";
  for (const auto& kv : byCat)
    std::cout << "| " << kv.first << " | " << kv.second[0] << " | " << kv.second[1] << " | " << kv.second[2] << " | "
              << kv.second[0] + kv.second[1] + kv.second[2] << " |\n";
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped (" << std::fixed
            << std::setprecision(1) << secs << " s)\n";

  // Both lists are checked; problems go to stderr (scripts/test.sh shows only stdout's tail).
  int problems = 0;
  const std::string regen = "popart_conformance --write-lists --expected " + expectedPath + " --failures " +
                            failuresPath + " regenerates both lists";
  if (!expectedPath.empty() && !writeLists) {
    std::set<std::string> seen;
    auto problem = [&](const std::string& what) {
      std::cerr << what << "\n";
      ++problems;
    };
    for (const auto& r : results) {
      seen.insert(r.name);
      const bool listedPass = expected.count(r.name) != 0, listedFail = knownFailures.count(r.name) != 0;
      const std::string status = r.status == Status::Passed   ? "passes"
                                 : r.status == Status::Failed ? "fails (" + r.reason + ")"
                                                              : "is unsupported (" + r.reason + ")";
      if (listedPass && listedFail)
        problem("IN BOTH LISTS: " + r.name + " is in " + expectedPath + " and in " + failuresPath + "; it " + status);
      else if (listedPass && r.status != Status::Passed)
        problem("REGRESSION: " + r.name + " is in the allowlist " + expectedPath + " but " + status);
      else if (listedFail && r.status == Status::Passed)
        problem("NOW PASSES: " + r.name + " is in the known failures " + failuresPath +
                " but passes: move it to the allowlist " + expectedPath + " (" + regen + ")");
      else if (!listedPass && !listedFail)
        problem("NOT LISTED: " + r.name + " (new test data?) is in neither " + expectedPath + " nor " + failuresPath +
                "; it " + status + ": add it to the " +
                (r.status == Status::Passed ? "allowlist" : "known failures with its reason") + " (" + regen + ")");
    }
    if (filter.empty()) {
      for (const auto* list : {&expected, &knownFailures}) {
        for (const auto& e : *list) {
          if (!seen.count(e))
            problem("MISSING: " + e + " is in " + (list == &expected ? expectedPath : failuresPath) +
                    " but was not found in " + data);
        }
      }
    }
    std::cout << (problems == 0
                      ? "conformance lists: exact" + std::string(filter.empty() ? "" : " for the filtered tests") +
                            " (" + std::to_string(expected.size()) + " expected to pass, " +
                            std::to_string(knownFailures.size()) + " known failures)"
                      : "conformance lists: " + std::to_string(problems) +
                            " problem(s), listed on stderr; the run fails")
              << "\n";
  }
  if (writeLists) {
    if (!expectedPath.empty()) {
      std::ofstream f(expectedPath);
      f << "# ONNX backend tests that pass natively and under wasm. CI fails if one of these stops passing;\n"
           "# every other test is in known_failures.txt (each test is in exactly one of the two lists).\n"
           "# Regenerate both with: popart_conformance --write-lists --expected ... --failures ...\n";
      for (const auto& r : results) {
        if (r.status == Status::Passed) f << r.name << "\n";
      }
    }
    if (!failuresPath.empty()) {
      std::ofstream f(failuresPath);
      f << "# ONNX backend tests that do not pass yet, with the reason. CI fails if one of them passes: it\n"
           "# then belongs in expected_pass.txt. Regenerate both with: popart_conformance --write-lists ...\n";
      for (const auto& r : results) {
        if (r.status != Status::Passed)
          f << r.name << "  # " << (r.status == Status::Failed ? "FAILED: " : "UNSUPPORTED: ") << r.reason << "\n";
      }
    }
  }
  return problems == 0 ? 0 : 1;
}
