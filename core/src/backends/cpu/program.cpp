#include "backends/cpu/program.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "ir/memory_plan.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace cpu {
namespace {

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
  const Op* p = t->producer;
  if (p && p->def().view == ViewKind::Reshape && p->hasInput(0) && p->output(0) == t &&
      p->inInfo(0).nbytes() == t->info.nbytes()) {
    const int s = addSlot(t, SlotKind::Alias);
    int root = slotFor(p->input(0));
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
  arena_.resize(static_cast<size_t>(plan.arenaBytes));
  stats_.activationArenaBytes = plan.arenaBytes;
  stats_.activationTotalBytes = plan.totalBytes;

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
  logging::devicex::debug("CPU program: {} kernels, arena {} bytes ({} without reuse), scratch {} bytes", steps_.size(),
                          plan.arenaBytes, plan.totalBytes, scratch);
}

void Program::run(std::mt19937_64& rng) {
  for (int a : aliasOrder_)
    ptrs_[static_cast<size_t>(a)] = ptrs_[static_cast<size_t>(slots_[static_cast<size_t>(a)].root)];
  RunState st;
  st.slots = ptrs_.data();
  st.scratch = scratch_.data();
  st.rng = &rng;
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
