// 16-bit floating-point tensors through a FLOAT kernel (see half_via_float.hpp).
#include "backends/cpu/half_via_float.hpp"

#include <map>
#include <memory>
#include <vector>

#include "common/checked_size.hpp"
#include "ir/graph.hpp"
#include "popart/half.hpp"

namespace popart {
namespace cpu {
namespace {

bool isHalf(DataType t) {
  return t == DataType::FLOAT16 || t == DataType::BFLOAT16;
}

/// Slots of the FLOAT copy: input i is slot i, output i is slot numInputs + i.
class LocalContext : public KernelContext {
 public:
  explicit LocalContext(const Op& op) : nIn_(op.numInputs()), op_(op) {}
  int in(int i) const override { return op_.hasInput(i) ? i : -1; }
  int out(int i) const override { return op_.hasOutput(i) ? nIn_ + i : -1; }
  void needScratch(int64_t bytes) override { scratch = bytes < 0 || scratch < 0 ? -1 : std::max(scratch, bytes); }
  int64_t scratch = 0;

 private:
  int nIn_;
  const Op& op_;
};

/// One tensor of the op as the wrapper sees it: the outer slot, and for a 16-bit tensor its
/// FLOAT buffer's offset in scratch.
struct Port {
  int outer = -1;
  DataType type = DataType::UNDEFINED;
  int64_t n = 0;
  int64_t offset = -1;  ///< -1: passed through
};

void widen(DataType t, const void* src, float* dst, int64_t n) {
  if (t == DataType::FLOAT16) {
    const auto* p = static_cast<const float16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(p[i]);
  } else {
    const auto* p = static_cast<const bfloat16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(p[i]);
  }
}

void narrow(DataType t, const float* src, void* dst, int64_t n) {
  if (t == DataType::FLOAT16) {
    auto* p = static_cast<float16_t*>(dst);
    for (int64_t i = 0; i < n; ++i) p[i] = float16_t(src[i]);
  } else {
    auto* p = static_cast<bfloat16_t*>(dst);
    for (int64_t i = 0; i < n; ++i) p[i] = bfloat16_t(src[i]);
  }
}

}  // namespace

bool hasHalfFloat(const Op& op) {
  for (int i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i) && isHalf(op.inType(i))) return true;
  }
  for (int i = 0; i < op.numOutputs(); ++i) {
    if (op.hasOutput(i) && isHalf(op.outInfo(i).dataType())) return true;
  }
  return false;
}

KernelFn viaFloat(const Op& op, KernelContext& kc, KernelFactory factory) {
  // The FLOAT copy of the op, in a graph of its own that the kernel keeps alive (a factory may
  // keep pointers into the op or its constant data).
  auto shadow = std::make_shared<Graph>(op.graph().ir(), op.graph().id() + "/float");
  Op& copy = shadow->addOp(op.def(), op.name(), op.opset());
  copy.attrs = op.attrs;
  copy.subgraphs = op.subgraphs;
  copy.numFormalInputs = op.numFormalInputs;
  auto floatInfo = [](const TensorInfo& info) {
    return isHalf(info.dataType()) ? TensorInfo(DataType::FLOAT, info.shape()) : info;
  };
  std::map<TensorId, Tensor*> made;
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) {
      copy.connectInput(i, nullptr);
      continue;
    }
    const Tensor& t = *op.input(i);
    Tensor*& c = made[t.id];
    if (!c) {
      c = &shadow->addTensor(t.id, t.kind, floatInfo(t.info));
      if (t.data) c->data = isHalf(t.info.dataType()) ? t.data->castTo(DataType::FLOAT) : *t.data;
    }
    copy.connectInput(i, c);
  }
  for (int i = 0; i < op.numOutputs(); ++i) {
    if (!op.hasOutput(i)) {
      copy.connectOutput(i, nullptr);
      continue;
    }
    const Tensor& t = *op.output(i);
    copy.connectOutput(i, &shadow->addTensor(shadow->uniqueTensorId(t.id), TensorKind::ActGrad, floatInfo(t.info)));
  }

  const int nIn = op.numInputs(), nOut = op.numOutputs();
  // Scratch: the slot table, the FLOAT buffers, then the FLOAT kernel's own scratch.
  std::vector<Port> ports(static_cast<size_t>(nIn + nOut));
  int64_t offset = scratchAlign(static_cast<int64_t>(ports.size() * sizeof(void*)));
  for (int k = 0; k < nIn + nOut; ++k) {
    const bool input = k < nIn;
    const int i = input ? k : k - nIn;
    if (input ? !op.hasInput(i) : !op.hasOutput(i)) continue;
    const TensorInfo& info = input ? op.inInfo(i) : op.outInfo(i);
    Port& p = ports[static_cast<size_t>(k)];
    p.outer = input ? kc.in(i) : kc.out(i);
    p.type = info.dataType();
    p.n = info.nelms();
    if (isHalf(p.type)) {
      p.offset = offset;
      offset = scratchSum(offset, scratchAlign(checkedProduct({p.n, static_cast<int64_t>(sizeof(float))})));
    }
  }
  LocalContext local(copy);
  KernelFn inner = factory(copy, local);
  kc.needScratch(scratchSum(offset, local.scratch));
  const int64_t innerScratch = offset;
  return [shadow, ports, nIn, inner, innerScratch](const RunState& s) {
    void** slots = reinterpret_cast<void**>(s.scratch);
    for (size_t k = 0; k < ports.size(); ++k) {
      const Port& p = ports[k];
      if (p.outer < 0) {
        slots[k] = nullptr;
        continue;
      }
      if (p.offset < 0) {
        slots[k] = s.slots[p.outer];
        continue;
      }
      float* buf = reinterpret_cast<float*>(s.scratch + p.offset);
      slots[k] = buf;
      if (static_cast<int>(k) < nIn) widen(p.type, s.slots[p.outer], buf, p.n);
    }
    RunState run = s;
    run.slots = slots;
    run.scratch = s.scratch + innerScratch;
    inner(run);
    for (size_t k = static_cast<size_t>(nIn); k < ports.size(); ++k) {
      const Port& p = ports[k];
      if (p.outer >= 0 && p.offset >= 0) narrow(p.type, static_cast<const float*>(slots[k]), s.slots[p.outer], p.n);
    }
  };
}

}  // namespace cpu
}  // namespace popart
