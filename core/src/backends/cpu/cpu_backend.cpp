// CpuBackend::compile: slots for every tensor (streams, constants, weights, arena buffers and
// views that alias them), a liveness-based arena plan, and one kernel per scheduled op.
#include "backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "backends/cpu/kernel.hpp"
#include "common/aligned_buffer.hpp"
#include "ir/memory_plan.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace cpu {
namespace {

enum class SlotKind { Stream, Const, Weight, Arena, Alias, Strings };

struct Slot {
  SlotKind kind;
  Tensor* tensor;
  int root = -1;       // Alias: the slot it views
  int64_t offset = 0;  // Arena: byte offset
};

class SlotContext : public KernelContext {
 public:
  SlotContext(const Op& op, const std::map<const Tensor*, int>& slotOf) : op_(op), slotOf_(slotOf) {}
  int in(int i) const override { return op_.hasInput(i) ? slotOf_.at(op_.input(i)) : -1; }
  int out(int i) const override { return op_.hasOutput(i) ? slotOf_.at(op_.output(i)) : -1; }
  void needScratch(size_t bytes) override { scratch = std::max(scratch, bytes); }
  size_t scratch = 0;

 private:
  const Op& op_;
  const std::map<const Tensor*, int>& slotOf_;
};

class CpuExecutable : public Executable {
 public:
  explicit CpuExecutable(Ir& ir) : ir_(ir) {
    // Per-op timing: engineOptions {"debug.instrument": "true"} or POPART_PROFILE=1.
    auto it = ir.options().engineOptions.find("debug.instrument");
    profile_ = (it != ir.options().engineOptions.end() && it->second == "true");
    if (const char* env = std::getenv("POPART_PROFILE")) profile_ = profile_ || std::string(env) == "1";
    build();
    opUs_.assign(steps_.size(), 0.0);
  }

  void weightsFromHost() override {
    for (auto& kv : weights_) {
      const Tensor& t = *slots_[static_cast<size_t>(kv.first)].tensor;
      std::memcpy(kv.second.data(), t.data->data(), static_cast<size_t>(t.info.nbytes()));
    }
  }

  void weightsToHost() override {
    for (auto& kv : weights_) {
      Tensor& t = *slots_[static_cast<size_t>(kv.first)].tensor;
      std::memcpy(t.data->data(), kv.second.data(), static_cast<size_t>(t.info.nbytes()));
    }
  }

  void setInput(const TensorId& id, const void* data) override {
    auto it = slotById_.find(id);
    if (it == slotById_.end()) return;  // an input the compiled graph does not read
    ptrs_[static_cast<size_t>(it->second)] = const_cast<void*>(data);
  }

  void execute() override {
    for (int a : aliasOrder_)
      ptrs_[static_cast<size_t>(a)] = ptrs_[static_cast<size_t>(slots_[static_cast<size_t>(a)].root)];
    RunState st;
    st.slots = ptrs_.data();
    st.scratch = scratch_.data();
    st.rng = &rng_;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < steps_.size(); ++i) {
      try {
        if (profile_) {
          const auto s0 = std::chrono::steady_clock::now();
          steps_[i](st);
          opUs_[i] += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0).count();
        } else {
          steps_[i](st);
        }
      } catch (const internal_error&) {
        throw;
      } catch (const error& e) {
        throw runtime_error("while running {}: {}", stepOps_[i]->describe(), e.what());
      }
    }
    lastRunUs_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    ++runs_;
  }

  const void* tensorData(const TensorId& id) const override {
    auto it = slotById_.find(id);
    if (it == slotById_.end()) throw internal_error("tensor '{}' has no buffer on the CPU device", id);
    return ptrs_[static_cast<size_t>(it->second)];
  }

  void setRandomSeed(uint64_t seed) override { rng_.seed(seed); }

  SessionMemoryStats memoryStats() const override { return stats_; }

  std::string summary() const override {
    std::ostringstream os;
    os << "Device: CPU\n"
       << "Ops: " << steps_.size() << " kernels (" << ir_.schedule().size() << " scheduled ops)\n"
       << "Activation arena: " << stats_.activationArenaBytes << " bytes (" << stats_.activationTotalBytes
       << " without reuse)\n"
       << "Weights: " << stats_.weightBytes << " bytes; constants: " << stats_.constantBytes << " bytes\n"
       << "Scratch: " << scratch_.size() << " bytes\n"
       << "Micro-batches executed: " << runs_ << "; last took " << lastRunUs_ << " us\n";
    if (profile_ && runs_ > 0) {
      // Time per op type, then the slowest ops.
      std::map<std::string, std::pair<double, int>> byType;
      double total = 0;
      for (size_t i = 0; i < steps_.size(); ++i) {
        auto& e = byType[stepOps_[i]->type()];
        e.first += opUs_[i];
        e.second += 1;
        total += opUs_[i];
      }
      std::vector<std::pair<double, std::string>> rows;
      for (const auto& kv : byType) rows.push_back({kv.second.first, kv.first});
      std::sort(rows.rbegin(), rows.rend());
      os << "Time per op type (us per micro-batch, share):\n";
      for (const auto& r : rows)
        os << "  " << r.second << ": " << r.first / runs_ << " (" << (total > 0 ? 100 * r.first / total : 0) << "%, "
           << byType[r.second].second << " ops)\n";
      std::vector<std::pair<double, size_t>> slow;
      for (size_t i = 0; i < steps_.size(); ++i) slow.push_back({opUs_[i], i});
      std::sort(slow.rbegin(), slow.rend());
      os << "Slowest ops (us per micro-batch):\n";
      for (size_t k = 0; k < std::min<size_t>(10, slow.size()); ++k)
        os << "  " << slow[k].first / runs_ << "  " << stepOps_[slow[k].second]->describeWithInputs() << "\n";
    }
    return os.str();
  }

 private:
  int addSlot(Tensor* t, SlotKind k) {
    const int id = static_cast<int>(slots_.size());
    slots_.push_back(Slot{k, t});
    slotOf_[t] = id;
    slotById_[t->id] = id;
    return id;
  }

  int slotFor(Tensor* t) {
    auto it = slotOf_.find(t);
    if (it != slotOf_.end()) return it->second;
    switch (t->kind) {
      case TensorKind::Stream:
        return addSlot(t, SlotKind::Stream);
      case TensorKind::Const:
        return addSlot(t, SlotKind::Const);
      case TensorKind::Variable:
        return addSlot(t, SlotKind::Weight);
      case TensorKind::ActGrad:
        break;
    }
    const Op* p = t->producer;
    if (p && p->def().view == ViewKind::Reshape && p->hasInput(0) && p->output(0) == t &&
        p->inInfo(0).nbytes() == t->info.nbytes()) {
      const int s = addSlot(t, SlotKind::Alias);
      int root = slotFor(p->input(0));
      while (slots_[static_cast<size_t>(root)].kind == SlotKind::Alias) root = slots_[static_cast<size_t>(root)].root;
      slots_[static_cast<size_t>(s)].root = root;
      return s;
    }
    // String tensors are arrays of std::string owned by the executable, not arena bytes.
    if (t->info.dataType() == DataType::STRING) return addSlot(t, SlotKind::Strings);
    return addSlot(t, SlotKind::Arena);
  }

  void build() {
    const auto& sched = ir_.schedule();
    for (const Op* op : sched) {
      for (Tensor* t : op->inputs()) {
        if (t) slotFor(t);
      }
      for (Tensor* t : op->outputs()) {
        if (t) slotFor(t);
      }
    }
    for (const auto& id : ir_.dataFlow().anchors()) slotFor(&ir_.mainGraph().getTensor(id));

    // Liveness of arena buffers (a view keeps its root alive).
    const int end = static_cast<int>(sched.size());
    std::vector<int> first(slots_.size(), end), last(slots_.size(), -1);
    auto rootOf = [&](int s) {
      return slots_[static_cast<size_t>(s)].kind == SlotKind::Alias ? slots_[static_cast<size_t>(s)].root : s;
    };
    for (int i = 0; i < end; ++i) {
      const Op* op = sched[static_cast<size_t>(i)];
      for (Tensor* t : op->outputs()) {
        if (!t) continue;
        const int r = rootOf(slotOf_.at(t));
        first[static_cast<size_t>(r)] = std::min(first[static_cast<size_t>(r)], i);
        last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
      }
      for (Tensor* t : op->inputs()) {
        if (!t) continue;
        const int r = rootOf(slotOf_.at(t));
        last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
      }
    }
    for (const auto& id : ir_.dataFlow().anchors()) {
      const int r = rootOf(slotById_.at(id));
      last[static_cast<size_t>(r)] = end;
    }
    std::vector<LiveRange> ranges;
    std::vector<int> rangeSlot;
    for (size_t s = 0; s < slots_.size(); ++s) {
      if (slots_[s].kind != SlotKind::Arena) continue;
      ranges.push_back({slots_[s].tensor->info.nbytes(), std::min(first[s], last[s]), std::max(last[s], first[s])});
      rangeSlot.push_back(static_cast<int>(s));
    }
    const ArenaPlan plan = planArena(ranges);
    arena_.resize(static_cast<size_t>(plan.arenaBytes));
    stats_.activationArenaBytes = plan.arenaBytes;
    stats_.activationTotalBytes = plan.totalBytes;

    ptrs_.assign(slots_.size(), nullptr);
    for (size_t i = 0; i < ranges.size(); ++i) {
      slots_[static_cast<size_t>(rangeSlot[i])].offset = plan.offsets[i];
      ptrs_[static_cast<size_t>(rangeSlot[i])] = arena_.data() + plan.offsets[i];
    }
    for (size_t s = 0; s < slots_.size(); ++s) {
      Tensor* t = slots_[s].tensor;
      switch (slots_[s].kind) {
        case SlotKind::Const:
          if (!t->data) throw internal_error("constant '{}' has no data", t->id);
          ptrs_[s] = t->data->data();
          stats_.constantBytes += t->info.nbytes();
          break;
        case SlotKind::Weight: {
          AlignedBuffer& b = weights_[static_cast<int>(s)];
          b.resize(static_cast<size_t>(t->info.nbytes()));
          ptrs_[s] = b.data();
          stats_.weightBytes += t->info.nbytes();
          break;
        }
        case SlotKind::Alias:
          aliasOrder_.push_back(static_cast<int>(s));
          break;
        case SlotKind::Strings: {
          auto& v = strings_[static_cast<int>(s)];
          v.assign(static_cast<size_t>(t->info.nelms()), std::string());
          ptrs_[s] = v.data();
          break;
        }
        default:
          break;
      }
    }

    size_t scratch = 0;
    for (const Op* op : sched) {
      const bool aliased = op->def().view == ViewKind::Reshape && op->hasOutput(0) &&
                           slots_[static_cast<size_t>(slotOf_.at(op->output(0)))].kind == SlotKind::Alias;
      if (aliased) continue;
      SlotContext kc(*op, slotOf_);
      KernelFn fn;
      try {
        fn = kernelFactory(op->kind())(*op, kc);
      } catch (const internal_error&) {
        throw;
      } catch (const error& e) {
        throw error("while preparing {} for the CPU device: {}", op->describeWithInputs(), e.what());
      }
      if (!fn) throw error("{}: no CPU kernel for its input types", op->describeWithInputs());
      steps_.push_back(std::move(fn));
      stepOps_.push_back(op);
      scratch = std::max(scratch, kc.scratch);
    }
    scratch_.resize(scratch);
    logging::devicex::info("CPU executable: {} kernels, arena {} bytes ({} without reuse), scratch {} bytes",
                           steps_.size(), plan.arenaBytes, plan.totalBytes, scratch);
  }

  Ir& ir_;
  std::vector<Slot> slots_;
  std::map<const Tensor*, int> slotOf_;
  std::map<TensorId, int> slotById_;
  std::vector<void*> ptrs_;
  std::vector<int> aliasOrder_;
  std::map<int, AlignedBuffer> weights_;
  std::map<int, std::vector<std::string>> strings_;
  AlignedBuffer arena_, scratch_;
  std::vector<KernelFn> steps_;
  std::vector<const Op*> stepOps_;
  std::mt19937_64 rng_{0};
  SessionMemoryStats stats_;
  double lastRunUs_ = 0;
  bool profile_ = false;
  std::vector<double> opUs_;
  int64_t runs_ = 0;
};

class EvalContext : public KernelContext {
 public:
  explicit EvalContext(const Op& op) : op_(op) {}
  int in(int i) const override { return op_.hasInput(i) ? i : -1; }
  int out(int i) const override { return op_.hasOutput(i) ? op_.numInputs() + i : -1; }
  void needScratch(size_t bytes) override { scratch = std::max(scratch, bytes); }
  size_t scratch = 0;

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
  AlignedBuffer scratch(kc.scratch);
  std::mt19937_64 rng(0);
  RunState st;
  st.slots = ptrs.data();
  st.scratch = scratch.data();
  st.rng = &rng;
  fn(st);
  return outs;
}

std::unique_ptr<Executable> CpuBackend::compile(Ir& ir) {
  return std::make_unique<CpuExecutable>(ir);
}

}  // namespace cpu

std::unique_ptr<Backend> createBackend(const DeviceInfo& device) {
  switch (device.getType()) {
    case DeviceType::Cpu:
      return std::make_unique<cpu::CpuBackend>();
    default:
      break;
  }
  throw error("No backend for {} devices in this build", toString(device.getType()));
}

}  // namespace popart
