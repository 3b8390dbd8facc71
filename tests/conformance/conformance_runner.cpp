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

#include <google/protobuf/io/coded_stream.h>

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

/// A test's value: a tensor, or a sequence / optional value's tensors (onnx-data.proto's
/// SequenceProto and OptionalProto, read from the wire format: onnx.proto does not have them).
struct Value {
  enum class Kind { Tensor, Sequence, Optional } kind = Kind::Tensor;
  bool present = true;  // an optional's
  std::vector<TensorData> tensors;
};

/// The length-delimited fields of a message: (field number, bytes).
std::vector<std::pair<int, std::string>> messageFields(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::vector<std::pair<int, std::string>> fields;
  while (const uint32_t tag = in.ReadTag()) {
    const int field = static_cast<int>(tag >> 3);
    switch (tag & 7) {
      case 0: {
        uint64_t v;
        if (!in.ReadVarint64(&v)) throw popart::error("truncated varint");
        break;
      }
      case 2: {
        uint32_t n;
        std::string s;
        if (!in.ReadVarint32(&n) || !in.ReadString(&s, static_cast<int>(n))) throw popart::error("truncated field");
        fields.emplace_back(field, std::move(s));
        break;
      }
      case 1:
        if (!in.Skip(8)) throw popart::error("truncated field");
        break;
      case 5:
        if (!in.Skip(4)) throw popart::error("truncated field");
        break;
      default:
        throw popart::error("unsupported wire type {}", tag & 7);
    }
  }
  return fields;
}

TensorData tensorOf(const std::string& bytes) {
  onnx::TensorProto tp;
  if (!tp.ParseFromString(bytes)) throw popart::error("cannot parse a TensorProto");
  return popart::tensorFromProto(tp);
}

/// A SequenceProto's tensors (field 3).
std::vector<TensorData> sequenceOf(const std::string& bytes) {
  std::vector<TensorData> v;
  for (const auto& [field, b] : messageFields(bytes)) {
    if (field == 3) v.push_back(tensorOf(b));
    if (field >= 4) throw popart::error("sequences of non-tensors are not supported");
  }
  return v;
}

Value readValue(const std::string& path, const onnx::TypeProto& type) {
  Value v;
  const std::string bytes = readFile(path);
  if (type.has_sequence_type()) {
    v.kind = Value::Kind::Sequence;
    v.tensors = sequenceOf(bytes);
  } else if (type.has_optional_type()) {
    v.kind = Value::Kind::Optional;
    v.present = false;
    for (const auto& [field, b] : messageFields(bytes)) {
      if (field == 3) v.tensors.push_back(tensorOf(b)), v.present = true;  // tensor_value
      if (field == 5) v.tensors = sequenceOf(b), v.present = true;         // sequence_value
    }
  } else {
    v.tensors.push_back(tensorOf(bytes));
  }
  return v;
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
    if (vi.type().has_map_type()) return "map types are not supported";
  }
  for (const auto& vi : m.graph().output()) {
    if (vi.type().has_map_type()) return "map types are not supported";
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
    std::map<std::string, onnx::TypeProto> inputTypes;
    std::vector<onnx::TypeProto> outputTypes;
    for (const auto& vi : model.graph().input()) {
      if (!inits.count(vi.name())) inputNames.push_back(vi.name());
      inputTypes[vi.name()] = vi.type();
    }
    for (const auto& vi : model.graph().output()) {
      outputNames.push_back(vi.name());
      outputTypes.push_back(vi.type());
    }
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
      std::map<std::string, Value> inputs;
      for (size_t k = 0; k < inputNames.size(); ++k) {
        const std::string f = sd + "/input_" + std::to_string(k) + ".pb";
        if (!exists(f)) continue;  // an optional input left out
        inputs.emplace(inputNames[k], readValue(f, inputTypes.at(inputNames[k])));
      }
      std::vector<Value> expected;
      for (size_t k = 0; k < outputNames.size(); ++k)
        expected.push_back(readValue(sd + "/output_" + std::to_string(k) + ".pb", outputTypes[k]));

      // The data's element types are the model's (BFLOAT16 test data is stored as UINT16 bits).
      for (auto& kv : inputs) {
        const int elem = inputTypes.at(kv.first).tensor_type().elem_type();
        if (kv.second.kind != Value::Kind::Tensor || !elem) continue;
        TensorData& d = kv.second.tensors[0];
        const popart::DataType t = popart::dataTypeFromOnnx(elem);
        if (t != d.info().dataType() && popart::dataTypeSize(t) == d.info().getDataTypeSize())
          d = TensorData(popart::TensorInfo(t, d.info().shape()), d.data());
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
        auto array = [](const TensorData& d) {
          popart::NDArray a(d.info());
          if (a.isString()) {
            std::copy(d.strings().begin(), d.strings().end(), static_cast<std::string*>(a.data()));
          } else if (a.nelms()) {
            std::memcpy(a.data(), d.data(), static_cast<size_t>(d.nbytes()));
          }
          return a;
        };
        std::map<popart::TensorId, popart::NDArray> ins;
        std::map<popart::TensorId, std::vector<popart::NDArray>> elementIns;
        for (const auto& kv : inputs) {
          if (kv.second.kind == Value::Kind::Tensor) {
            ins.emplace(kv.first, array(kv.second.tensors[0]));
          } else if (kv.second.present) {
            auto& v = elementIns[kv.first];
            for (const auto& t : kv.second.tensors) v.push_back(array(t));
          }
        }
        auto anchors = session->initAnchorArrays();
        popart::StepIO io(popart::arrayRefs(ins), popart::arrayRefs(anchors));
        for (auto& [id, arrays] : elementIns) {
          std::vector<popart::IArray*> ptrs;
          for (auto& a : arrays) ptrs.push_back(&a);
          io.setInputElements(id, ptrs);
        }
        session->run(io);
        auto fail = [&](size_t k, const std::string& diff) {
          r.status = Status::Failed;
          r.reason = set + " output '" + outputNames[k] + "': " + diff;
          return r;
        };
        auto tensorOf = [](const popart::NDArray& a) {
          return TensorData(popart::TensorInfo(a.dataType(), a.shape()), a.data());
        };
        for (size_t k = 0; k < outputNames.size(); ++k) {
          const Value& want = expected[k];
          if (want.kind == Value::Kind::Tensor) {
            const std::string diff = compare(tensorOf(anchors.at(outputNames[k])), want.tensors[0]);
            if (!diff.empty()) return fail(k, diff);
            continue;
          }
          const auto& got = io.outputElements(outputNames[k]);
          if (want.kind == Value::Kind::Optional && io.outputPresent(outputNames[k]) != want.present)
            return fail(k, want.present ? "None instead of a value" : "a value instead of None");
          if (got.size() != want.tensors.size())
            return fail(k, std::to_string(got.size()) + " tensors instead of " + std::to_string(want.tensors.size()));
          for (size_t i = 0; i < got.size(); ++i) {
            const std::string diff = compare(tensorOf(got[i]), want.tensors[i]);
            if (!diff.empty()) return fail(k, "tensor " + std::to_string(i) + ": " + diff);
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

/// Why a known failure is expected to stay one (written after its reason in known_failures.txt).
std::string explanation(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("node/test_bernoulli") || starts("node/test_training_dropout"))
    return " -- the expected values are one draw of NumPy's random stream, which another generator cannot "
           "reproduce; the distribution is tested instead (SignalRandomOps.BernoulliDistribution, "
           "SignalRandomOps.TrainingModeDropoutMaskAndScale)";
  if (name == "node/test_adam_multiple")
    return " -- ONNX's test data were computed with epsilon 1e-2, but the node leaves epsilon at its default "
           "(1e-6); with 1e-2 the result is the expected 0.75913626";
  if (starts("node/test_castlike_BFLOAT16_to_FLOAT") || starts("node/test_castlike_FLOAT_to_BFLOAT16"))
    return " -- the test data give 'like' as [1], but the model declares it [3 4]: a declared static shape is the "
           "model's contract";
  return "";
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
          f << r.name << "  # " << (r.status == Status::Failed ? "FAILED: " : "UNSUPPORTED: ") << r.reason
            << explanation(r.name) << "\n";
      }
    }
  }
  return problems == 0 ? 0 : 1;
}
