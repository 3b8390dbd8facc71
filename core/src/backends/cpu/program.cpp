#include "backends/cpu/program.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "common/checked_size.hpp"
#include "ops/collectives.hpp"
#include "ops/op_util.hpp"
#include "passes/memory_plan.hpp"
#include "patterns/inplace.hpp"
#include "popart/error.hpp"
#include "popart/error_context.hpp"
#include "popart/logging.hpp"
#include "popart/memorylimit.hpp"

namespace popart {
namespace cpu {
namespace {

class SlotContext : public KernelContext {
 public:
  SlotContext(const Op& op, const std::map<const Tensor*, int>& slotOf) : op_(op), slotOf_(slotOf) {}
  int in(int i) const override { return op_.hasInput(i) ? slotOf_.at(op_.input(i)) : -1; }
  int out(int i) const override { return op_.hasOutput(i) ? slotOf_.at(op_.output(i)) : -1; }
  void needScratch(int64_t bytes) override { scratch = bytes < 0 || scratch < 0 ? -1 : std::max(scratch, bytes); }
  int64_t scratch = 0;

 private:
  const Op& op_;
  const std::map<const Tensor*, int>& slotOf_;
};

}  // namespace

Program::Program(const Graph& graph, const std::vector<Op*>& schedule, const std::vector<const Tensor*>& keepAlive,
                 bool profile)
    : profile_(profile) {
  for (const auto& id : graph.inputIds) slotFor(&graph.getTensor(id));
  for (const auto& id : graph.implicitInputIds) slotFor(&graph.getTensor(id));
  build(schedule, keepAlive);
  opUs_.assign(steps_.size(), 0.0);
}

std::shared_ptr<Program> Program::forSubgraph(const Graph& graph) {
  std::vector<const Tensor*> outs;
  for (const auto& id : graph.outputIds) outs.push_back(&graph.getTensor(id));
  return std::make_shared<Program>(graph, graph.topologicalOrder(), outs, false);
}

int Program::slot(const TensorId& id) const {
  auto it = slotById_.find(id);
  return it == slotById_.end() ? -1 : it->second;
}

int Program::addSlot(const Tensor* t, SlotKind k) {
  const int id = static_cast<int>(slots_.size());
  slots_.push_back(Slot{k, t});
  slotOf_[t] = id;
  slotById_[t->id] = id;
  return id;
}

int Program::slotFor(const Tensor* t) {
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
  if (const Tensor* src = aliasSource(t)) {  // a view, or the output of an op InPlace made in-place
    const int s = addSlot(t, SlotKind::Alias);
    int root = slotFor(src);
    while (slots_[static_cast<size_t>(root)].kind == SlotKind::Alias) root = slots_[static_cast<size_t>(root)].root;
    slots_[static_cast<size_t>(s)].root = root;
    return s;
  }
  // String tensors are arrays of std::string owned by the program, not arena bytes.
  if (t->info.dataType() == DataType::STRING) return addSlot(t, SlotKind::Strings);
  return addSlot(t, SlotKind::Arena);
}

void Program::build(const std::vector<Op*>& sched, const std::vector<const Tensor*>& keepAlive) {
  for (const Op* op : sched) {
    for (const Tensor* t : op->inputs()) {
      if (t) slotFor(t);
    }
    for (const Tensor* t : op->outputs()) {
      if (t) slotFor(t);
    }
  }
  for (const Tensor* t : keepAlive) slotFor(t);

  // Liveness of arena buffers (a view keeps its root alive).
  const int end = static_cast<int>(sched.size());
  std::vector<int> first(slots_.size(), end), last(slots_.size(), -1);
  auto rootOf = [&](int s) {
    return slots_[static_cast<size_t>(s)].kind == SlotKind::Alias ? slots_[static_cast<size_t>(s)].root : s;
  };
  for (int i = 0; i < end; ++i) {
    const Op* op = sched[static_cast<size_t>(i)];
    for (const Tensor* t : op->outputs()) {
      if (!t) continue;
      const int r = rootOf(slotOf_.at(t));
      first[static_cast<size_t>(r)] = std::min(first[static_cast<size_t>(r)], i);
      last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
    }
    for (const Tensor* t : op->inputs()) {
      if (!t) continue;
      const int r = rootOf(slotOf_.at(t));
      last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], i);
    }
  }
  for (const Tensor* t : keepAlive) last[static_cast<size_t>(rootOf(slotOf_.at(t)))] = end;
  std::vector<LiveRange> ranges;
  std::vector<int> rangeSlot;
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].kind != SlotKind::Arena) continue;
    ranges.push_back({slots_[s].tensor->info.nbytes(), std::min(first[s], last[s]), std::max(last[s], first[s])});
    rangeSlot.push_back(static_cast<int>(s));
  }
  const ArenaPlan plan = planArena(ranges);
  stats_.activationArenaBytes = plan.arenaBytes;
  stats_.activationTotalBytes = plan.totalBytes;
  checkMemory(plan, {});
  arena_.resize(static_cast<size_t>(plan.arenaBytes), /*zero=*/true);

  ptrs_.assign(slots_.size(), nullptr);
  for (size_t i = 0; i < ranges.size(); ++i) ptrs_[static_cast<size_t>(rangeSlot[i])] = arena_.data() + plan.offsets[i];
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Tensor* t = slots_[s].tensor;
    switch (slots_[s].kind) {
      case SlotKind::Const:
        if (!t->data) throw internal_error("constant '{}' has no data", t->id);
        ptrs_[s] = const_cast<void*>(t->data->data());
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

  int64_t scratch = 0;
  const Op* scratchOp = nullptr;
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
      throw withContext(e, "while preparing {} for the CPU device: {}", op->describeWithInputs(), e.what());
    }
    if (!fn) throw error("{}: no CPU kernel for its input types", op->describeWithInputs());
    steps_.push_back(std::move(fn));
    stepOps_.push_back(op);
    if (kc.scratch < 0 || kc.scratch > scratch) {
      scratch = kc.scratch;
      scratchOp = op;
      if (scratch < 0) break;
    }
  }
  checkMemory(plan, {scratch, scratchOp});
  for (size_t i = 0; i < stepOps_.size(); ++i) {
    if (ops::acrossReplicas(*stepOps_[i])) phaseEnds_.push_back(i + 1);
  }
  phaseEnds_.push_back(steps_.size());
  scratch_.resize(static_cast<size_t>(scratch));
  logging::devicex::debug("CPU program: {} kernels, arena {} bytes ({} without reuse), scratch {} bytes", steps_.size(),
                          plan.arenaBytes, plan.totalBytes, scratch);
}

void Program::checkMemory(const ArenaPlan& plan, const ScratchNeed& scratch) const {
  // What this program allocates (arena, weights, string arrays, scratch) plus the host data the
  // IR already holds for it (constants, the host copy of the weights), in 64 bits.
  int64_t weights = 0, constants = 0, strings = 0;
  std::vector<std::pair<int64_t, const Slot*>> big;
  bool overflow = plan.arenaBytes < 0 || scratch.bytes < 0;
  for (const Slot& sl : slots_) {
    const int64_t b = sl.kind == SlotKind::Strings
                          ? checkedProduct({sl.tensor->info.nelms(), static_cast<int64_t>(sizeof(std::string))})
                          : sl.tensor->info.nbytes();
    int64_t* sum = sl.kind == SlotKind::Weight    ? &weights
                   : sl.kind == SlotKind::Const   ? &constants
                   : sl.kind == SlotKind::Strings ? &strings
                                                  : nullptr;
    if (sl.kind == SlotKind::Arena || sum) big.push_back({b, &sl});
    if (sum && (b < 0 || !checkedAdd(*sum, b, sum))) overflow = true;
  }
  int64_t total = 0;
  for (int64_t part : {plan.arenaBytes, 2 * weights, constants, strings, std::max<int64_t>(scratch.bytes, 0)}) {
    if (part < 0 || !checkedAdd(total, part, &total)) overflow = true;
  }
  if (!overflow && allocationFits(total)) return;
  std::ostringstream os;
  os << "prepareDevice: the graph needs " << (overflow ? std::string("more than 2^63 bytes") : formatBytes(total))
     << " of host memory on the CPU device (activations " << formatBytes(plan.arenaBytes)
     << " after buffer reuse, weights " << formatBytes(weights) << " plus their host copy, constants "
     << formatBytes(constants);
  if (strings) os << ", strings " << formatBytes(strings);
  if (scratch.op) os << ", scratch " << formatBytes(scratch.bytes) << " for " << scratch.op->describe();
  os << "), more than the memory limit of " << formatBytes(getMemoryLimit()) << " (" << memoryLimitSource() << ").";
  std::sort(big.begin(), big.end(), [](const auto& a, const auto& b) {
    return static_cast<uint64_t>(a.first) > static_cast<uint64_t>(b.first);  // overflowed (< 0) first
  });
  os << " Largest tensors:";
  for (size_t i = 0; i < std::min<size_t>(3, big.size()); ++i) {
    const Tensor* t = big[i].second->tensor;
    const SlotKind k = big[i].second->kind;
    os << (i ? ";" : "") << " '" << t->id << "' " << t->info.toString() << ' ' << formatBytes(big[i].first) << " ("
       << (k == SlotKind::Weight  ? "weight"
           : k == SlotKind::Const ? "constant"
                                  : "activation");
    if (t->producer) os << ", output of " << t->producer->describe();
    os << ')';
  }
  throw memory_allocation_err(os.str());
}

void Program::checkFloatingPoint(const Op& op) const {
  for (const Tensor* t : op.outputs()) {
    if (!t || !isFloatingPoint(t->info.dataType())) continue;
    const int s = slotOf_.at(t);
    const SlotKind k = slots_[static_cast<size_t>(s)].kind;
    const void* p = ptrs_[static_cast<size_t>(k == SlotKind::Alias ? slots_[static_cast<size_t>(s)].root : s)];
    const int64_t n = t->info.nelms();
    int64_t bad = -1;
    double v = 0;
    auto scan = [&](auto tag) {
      using T = decltype(tag);
      const T* x = static_cast<const T*>(p);
      for (int64_t i = 0; i < n && bad < 0; ++i) {
        const double d = static_cast<double>(static_cast<float>(x[i]));
        if (!std::isfinite(d)) bad = i, v = d;
      }
    };
    switch (t->info.dataType()) {
      case DataType::FLOAT:
        scan(float{});
        break;
      case DataType::DOUBLE: {
        const double* x = static_cast<const double*>(p);
        for (int64_t i = 0; i < n && bad < 0; ++i)
          if (!std::isfinite(x[i])) bad = i, v = x[i];
        break;
      }
      case DataType::FLOAT16:
        scan(float16_t{});
        break;
      case DataType::BFLOAT16:
        scan(bfloat16_t{});
        break;
      default:
        break;
    }
    if (bad >= 0)
      throw error(
          "Floating-point check (enableFloatingPointChecks): {} produced {} in its output '{}' {} at element {}",
          op.describeWithInputs(), std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"), t->id, t->info.toString(), bad);
  }
}

void Program::run(std::mt19937_64& rng) {
  for (size_t k = 0; k < phaseEnds_.size(); ++k) runPhase(rng, k);
}

std::vector<const Op*> Program::reductions() const {
  std::vector<const Op*> ops;
  for (size_t k = 0; k + 1 < phaseEnds_.size(); ++k) ops.push_back(stepOps_[phaseEnds_[k] - 1]);
  return ops;
}

void Program::runPhase(std::mt19937_64& rng, size_t k) {
  if (k >= phaseEnds_.size()) throw internal_error("program phase {} of {}", k, phaseEnds_.size());
  if (k == 0) {
    for (int a : aliasOrder_)
      ptrs_[static_cast<size_t>(a)] = ptrs_[static_cast<size_t>(slots_[static_cast<size_t>(a)].root)];
    lastRunUs_ = 0;
  }
  RunState st;
  st.slots = ptrs_.data();
  st.scratch = scratch_.data();
  st.rng = &rng;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = k == 0 ? 0 : phaseEnds_[k - 1]; i < phaseEnds_[k]; ++i) {
    try {
      if (profile_) {
        const auto s0 = std::chrono::steady_clock::now();
        steps_[i](st);
        opUs_[i] += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0).count();
      } else {
        steps_[i](st);
      }
      if (fpChecks_) checkFloatingPoint(*stepOps_[i]);
    } catch (const internal_error&) {
      throw;
    } catch (const poplar_runtime_error&) {
      throw;  // an Abort: its message names the node and starts as PopART's ("Abort Program")
    } catch (const error& e) {
      throw runtime_error("while running {}: {}", stepOps_[i]->describe(), e.what());
    }
  }
  lastRunUs_ += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<report::HostOp> Program::hostOps(int64_t runs) const {
  std::vector<report::HostOp> v;
  if (!profile_) return v;
  v.reserve(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i)
    v.push_back({stepOps_[i]->name(), stepOps_[i]->type(), runs, opUs_[i] * 1e-6});
  return v;
}

std::string Program::profileText(int64_t runs) const {
  if (!profile_ || runs <= 0) return "";
  std::ostringstream os;
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
    os << "  " << r.second << ": " << r.first / runs << " (" << (total > 0 ? 100 * r.first / total : 0) << "%, "
       << byType[r.second].second << " ops)\n";
  std::vector<std::pair<double, size_t>> slow;
  for (size_t i = 0; i < steps_.size(); ++i) slow.push_back({opUs_[i], i});
  std::sort(slow.rbegin(), slow.rend());
  os << "Slowest ops (us per micro-batch):\n";
  for (size_t k = 0; k < std::min<size_t>(10, slow.size()); ++k)
    os << "  " << slow[k].first / runs << "  " << stepOps_[slow[k].second]->describeWithInputs() << "\n";
  return os.str();
}

}  // namespace cpu
}  // namespace popart
