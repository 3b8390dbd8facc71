// CpuBackend::compile: slots for every tensor (streams, constants, weights, arena buffers and
// views that alias them), a liveness-based arena plan, and one kernel per scheduled op.
#include "backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <sstream>

#include "backends/cpu/isa.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/program.hpp"
#include "common/aligned_buffer.hpp"
#include "common/checked_size.hpp"
#include "passes/memory_plan.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace cpu {
namespace {

class CpuExecutable : public Executable {
 public:
  explicit CpuExecutable(Ir& ir) : ir_(ir) {
    // Per-op timing when the user asked for profiling (profilingEnabled).
    const bool profile = profilingEnabled(ir.options());
    std::vector<const Tensor*> anchors;
    for (const auto& id : ir.dataFlow().anchors()) anchors.push_back(&ir.mainGraph().getTensor(id));
    program_ = std::make_unique<Program>(ir.mainGraph(), ir.schedule(), anchors, profile);
    program_->setFloatingPointChecks(ir.options().enableFloatingPointChecks);
    logging::devicex::info("CPU executable: {} kernels, arena {} bytes ({} without reuse)", program_->numKernels(),
                           program_->stats().activationArenaBytes, program_->stats().activationTotalBytes);
  }

  void weightsFromHost() override {
    for (auto& kv : program_->weights()) {
      const Tensor& t = program_->slotTensor(kv.first);
      std::memcpy(kv.second.data(), t.data->data(), static_cast<size_t>(t.info.nbytes()));
    }
  }

  void tensorsFromHost(const std::vector<TensorId>& ids) override {
    for (const auto& id : ids) {
      const int s = program_->slot(id);
      auto it = program_->weights().find(s);
      if (s < 0 || it == program_->weights().end()) continue;
      const Tensor& t = program_->slotTensor(s);
      std::memcpy(it->second.data(), t.data->data(), static_cast<size_t>(t.info.nbytes()));
    }
  }

  void weightsToHost() override {
    for (auto& kv : program_->weights()) {
      Tensor& t = const_cast<Tensor&>(program_->slotTensor(kv.first));
      std::memcpy(t.data->data(), kv.second.data(), static_cast<size_t>(t.info.nbytes()));
    }
  }

  void setInput(const TensorId& id, const void* data) override {
    const int s = program_->slot(id);
    if (s >= 0) program_->setPtr(s, data);  // an input the compiled graph does not read is ignored
  }

  void execute() override {
    program_->run(rng_);
    ++runs_;
  }

  std::vector<const Op*> reductions() const override { return program_->reductions(); }

  void executePhase(size_t k) override {
    program_->runPhase(rng_, k);
    if (k + 1 == program_->numPhases()) ++runs_;
  }

  const void* tensorData(const TensorId& id) const override {
    const int s = program_->slot(id);
    if (s < 0) throw internal_error("tensor '{}' has no buffer on the CPU device", id);
    return program_->ptr(s);
  }

  void setRandomSeed(uint64_t seed) override { rng_.seed(seed); }

  SessionMemoryStats memoryStats() const override { return program_->stats(); }

  std::vector<report::HostOp> hostOps() const override { return program_->hostOps(runs_); }

  std::string summary() const override {
    const SessionMemoryStats& st = program_->stats();
    std::ostringstream os;
    std::string built;
    for (const std::string& n : builtIsas()) built += (built.empty() ? "" : ", ") + n;
    os << "Device: CPU\n"
       << "Kernels: " << builtIsas()[activeIsaIndex()] << " (this build has " << built << "; POPART_CPU_ISA chooses)\n"
       << "Ops: " << program_->numKernels() << " kernels (" << ir_.schedule().size() << " scheduled ops)\n"
       << "Activation arena: " << st.activationArenaBytes << " bytes (" << st.activationTotalBytes
       << " without reuse)\n"
       << "Weights: " << st.weightBytes << " bytes; constants: " << st.constantBytes << " bytes\n"
       << "Scratch: " << program_->scratchBytes() << " bytes\n"
       << "Micro-batches executed: " << runs_ << "; last took " << program_->lastRunUs() << " us\n"
       << program_->profileText(runs_);
    return os.str();
  }

 private:
  Ir& ir_;
  std::unique_ptr<Program> program_;
  std::mt19937_64 rng_{0};
  int64_t runs_ = 0;
};

class EvalContext : public KernelContext {
 public:
  explicit EvalContext(const Op& op) : op_(op) {}
  int in(int i) const override { return op_.hasInput(i) ? i : -1; }
  int out(int i) const override { return op_.hasOutput(i) ? op_.numInputs() + i : -1; }
  void needScratch(int64_t bytes) override { scratch = bytes < 0 || scratch < 0 ? -1 : std::max(scratch, bytes); }
  int64_t scratch = 0;

 private:
  const Op& op_;
};

}  // namespace

std::vector<TensorData> CpuConstEvaluator::evaluate(const Op& op) const {
  std::vector<TensorData> outs;
  for (int i = 0; i < op.numOutputs(); ++i)
    outs.emplace_back(op.hasOutput(i) ? op.outInfo(i) : TensorInfo(DataType::FLOAT, {0}));
  if (op.kind() == OpKind::Constant && op.attrs.has("value_string")) {
    outs[0].strings()[0] = op.attrs.getString("value_string");
    return outs;
  }
  if (op.kind() == OpKind::Constant && op.attrs.has("value_strings")) {
    outs[0].strings() = op.attrs.getStrings("value_strings");
    return outs;
  }
  if (op.kind() == OpKind::Constant && op.attrs.has("value") &&
      op.attrs.getTensor("value").info().dataType() == DataType::STRING) {
    outs[0] = op.attrs.getTensor("value");
    return outs;
  }
  std::vector<void*> ptrs(static_cast<size_t>(op.numInputs() + op.numOutputs()), nullptr);
  for (int i = 0; i < op.numInputs(); ++i) {
    if (const TensorData* d = op.inData(i)) ptrs[static_cast<size_t>(i)] = const_cast<void*>(d->data());
  }
  for (int i = 0; i < op.numOutputs(); ++i)
    ptrs[static_cast<size_t>(op.numInputs() + i)] = outs[static_cast<size_t>(i)].data();
  EvalContext kc(op);
  KernelFn fn = kernelFactory(op.kind())(op, kc);
  if (!fn) throw error("no CPU kernel for {}", op.describeWithInputs());
  AlignedBuffer scratch(allocationSize(kc.scratch, [&] { return "the scratch memory of " + op.describe(); }));
  std::mt19937_64 rng(0);
  RunState st;
  st.slots = ptrs.data();
  st.scratch = scratch.data();
  st.rng = &rng;
  fn(st);
  return outs;
}

std::unique_ptr<Executable> CpuBackend::compile(Ir& ir) {
  activeIsaIndex();  // a bad POPART_CPU_ISA is an error of prepareDevice, not of a run
  return std::make_unique<CpuExecutable>(ir);
}

}  // namespace cpu

}  // namespace popart
