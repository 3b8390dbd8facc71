#include "fuzz_common.hpp"

#include <set>

#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "onnx.pb.h"
#include "popart/half.hpp"
#include "popart/logging.hpp"
#include "popart/memorylimit.hpp"

namespace popart {
namespace fuzz {

void init() {
  setMemoryLimit(kMemoryBudget);
  logging::setLogLevel(logging::Level::Off);
}

bool verbose() {
  static const bool v = std::getenv("POPART_FUZZ_VERBOSE") != nullptr;
  return v;
}

void fail(const char* stage, const std::string& what) {
  std::fprintf(stderr, "\n==popart-fuzz== BUG during %s: %s\n", stage, what.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {

/// Small values: floats in [-1.25, 1.25], integers in {0, 1, 2} (valid indices along most
/// axes), alternating booleans.
void fill(NDArray& a) {
  const int64_t n = a.nelms();
  switch (a.info().dataType()) {
    case DataType::FLOAT: {
      auto* p = a.dataAs<float>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>((i * 7) % 11 - 5) * 0.25f;
      break;
    }
    case DataType::DOUBLE: {
      auto* p = a.dataAs<double>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>((i * 7) % 11 - 5) * 0.25;
      break;
    }
    case DataType::FLOAT16:
    case DataType::BFLOAT16: {
      const bool half = a.info().dataType() == DataType::FLOAT16;
      auto* p = a.dataAs<uint16_t>();
      for (int64_t i = 0; i < n; ++i) {
        const float f = static_cast<float>((i * 7) % 11 - 5) * 0.25f;
        p[i] = half ? floatToHalfBits(f) : static_cast<uint16_t>(bfloat16_t(f).bits);
      }
      break;
    }
    case DataType::STRING: {
      auto* p = a.dataAs<std::string>();
      for (int64_t i = 0; i < n; ++i) p[i] = (i & 1) ? "Fuzz" : "a b";
      break;
    }
    case DataType::BOOL: {
      auto* p = a.dataAs<uint8_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i & 1);
      break;
    }
    default: {
      // Integers, little-endian: the low byte holds i % 3, the rest 0.
      const int64_t size = a.info().getDataTypeSize();
      auto* p = static_cast<uint8_t*>(a.data());
      for (int64_t i = 0; i < n; ++i) p[i * size] = static_cast<uint8_t>(i % 3);
      break;
    }
  }
}

/// A session planned at run time (the CPU device): each input at its declared shape with every
/// symbolic dimension `symbolic`, values as fill() gives them.
bool runPlannedAtRunTime(Session& session, int64_t symbolic) {
  onnx::ModelProto model;
  if (!model.ParseFromString(session.modelToHostBytes())) return false;
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  const SessionOptions& o = session.getSessionOptions();
  const int64_t steps =
      checkedProduct({session.getDataFlow().batchesPerStep(), o.getAccumulationFactor(), o.getReplicationFactor()});
  if (steps < 0 || steps > kMaxRunMicroBatches) return false;
  std::map<TensorId, NDArray> inputs;
  for (const auto& vi : model.graph().input()) {
    if (inits.count(vi.name())) continue;
    const auto& tt = vi.type().tensor_type();
    if (!tt.elem_type() || !tt.has_shape()) return false;
    const DataType t = dataTypeFromOnnx(tt.elem_type());
    Shape shape;
    if (steps > 1) shape.push_back(steps);
    for (const auto& d : tt.shape().dim())
      shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : symbolic);
    const int64_t elemBytes = t == DataType::STRING ? 32 : dataTypeSize(t);
    const int64_t bytes = checkedProduct({TensorInfo(t, shape).nelms(), elemBytes});
    if (bytes < 0 || bytes > kMaxInputBytes) return false;
    NDArray a(t, shape);
    fill(a);
    inputs.emplace(vi.name(), std::move(a));
  }
  auto anchors = session.initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));
  session.run(io);
  return true;
}

}  // namespace

bool runWithSmallInputs(Session& session) {
  // Shapes known only at run time: two sizes of the symbolic dimensions, then the first again (a
  // plan reused from the cache).
  if (session.getRunTimePlanStats().runTimeShapes) {
    for (int64_t symbolic : {2, 3, 2}) {
      if (!runPlannedAtRunTime(session, symbolic)) return false;
    }
    return true;
  }
  const SessionMemoryStats m = session.getMemoryStats();
  if (verbose())
    std::fprintf(stderr, "popart-fuzz: arena %lld bytes, weights %lld bytes, constants %lld bytes\n",
                 static_cast<long long>(m.activationArenaBytes), static_cast<long long>(m.weightBytes),
                 static_cast<long long>(m.constantBytes));
  const int64_t total = m.activationArenaBytes + m.weightBytes + m.constantBytes;
  if (total < 0 || total > kMaxRunBytes) return false;
  const SessionOptions& o = session.getSessionOptions();
  const int64_t steps =
      checkedProduct({session.getDataFlow().batchesPerStep(), o.getAccumulationFactor(), o.getReplicationFactor()});
  if (steps < 0 || steps > kMaxRunMicroBatches) return false;
  std::map<TensorId, NDArray> inputs;
  for (const TensorId& id : session.getIr().streamInputIds()) {
    if (!session.hasInfo(id)) continue;
    const TensorInfo info = session.getInfo(id);
    const int64_t elemBytes = info.dataType() == DataType::STRING ? 32 : info.getDataTypeSize();
    const int64_t bytes = checkedProduct({info.nelms(), steps, elemBytes});
    if (bytes < 0 || bytes > kMaxInputBytes) return false;
    Shape shape = info.shape();
    if (steps > 1) shape.insert(shape.begin(), steps);
    NDArray a(info.dataType(), shape);
    fill(a);
    inputs.emplace(id, std::move(a));
  }
  auto anchors = session.initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));
  session.run(io);
  return true;
}

}  // namespace fuzz
}  // namespace popart
