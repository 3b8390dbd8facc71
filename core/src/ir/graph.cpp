// Tensor, Op and Graph.
#include <algorithm>
#include <queue>
#include <sstream>
#include <tuple>

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "ir/placement.hpp"
#include "ir/runtime_info.hpp"
#include "ir/tensor.hpp"
#include "popart/error.hpp"
#include "popart/error_context.hpp"

namespace popart {

const char* tensorKindName(TensorKind k) {
  switch (k) {
    case TensorKind::Stream:
      return "Stream";
    case TensorKind::Variable:
      return "Variable";
    case TensorKind::Const:
      return "Const";
    case TensorKind::ActGrad:
      return "ActGrad";
  }
  return "?";
}

void Tensor::removeConsumer(const Op* op) {
  auto it = std::find(consumers.begin(), consumers.end(), op);
  if (it != consumers.end()) consumers.erase(it);
}

// ------------------------------------------------------------------ Op

Op::Op(const OpDef& def, Graph& graph, OpId id, std::string name, int opset)
    : def_(&def), graph_(&graph), id_(id), name_(std::move(name)), opset_(opset) {}

Tensor* Op::input(int i) const {
  if (!hasInput(i)) throw error("{}: input {} is missing", describe(), i);
  return inputs_[static_cast<size_t>(i)];
}

Tensor* Op::output(int i) const {
  if (!hasOutput(i)) throw internal_error("{}: output {} does not exist", describe(), i);
  return outputs_[static_cast<size_t>(i)];
}

const TensorData* Op::inData(int i) const {
  if (!hasInput(i)) return nullptr;
  const Tensor* t = inputs_[static_cast<size_t>(i)];
  return t->data ? &*t->data : nullptr;
}

const TensorData* Op::inConstData(int i) const {
  return hasInput(i) && input(i)->isConst() ? inData(i) : nullptr;
}

RunTimeInfoNeeded valueNeeded(int input, const Tensor& t, const std::string& what) {
  return RunTimeInfoNeeded(
      format("input {} ('{}') gives {} and must be known when the model is compiled (a constant or an "
             "initializer), but it is computed at run time ({} tensor). This runtime needs static shapes.",
             input, t.id, what, tensorKindName(t.kind)),
      RunTimeInfoNeeded::Kind::Value, t.id);
}

const TensorData& Op::requireInData(int i, const char* what) const {
  if (const TensorData* d = inData(i)) return *d;
  throw valueNeeded(i, *input(i), what);
}

std::string Op::describe() const {
  std::ostringstream os;
  os << "node '" << name_ << "' (" << type();
  if (domain() != "ai.onnx") os << ", domain " << domain();
  os << ", opset " << opset_ << ")";
  return os.str();
}

std::string Op::describeWithInputs() const {
  std::ostringstream os;
  os << "node '" << name_ << "' (" << type();
  if (domain() != "ai.onnx") os << ", domain " << domain();
  os << ", opset " << opset_;
  for (int i = 0; i < numInputs(); ++i) {
    if (!hasInput(i)) continue;
    const Tensor* t = inputs_[static_cast<size_t>(i)];
    os << ", input '" << t->id << "' " << t->info;
  }
  os << ")";
  return os.str();
}

void Op::setup() {
  try {
    def_->setup(*this);
  } catch (const internal_error&) {
    throw;
  } catch (const RunTimeInfoNeeded& e) {
    throw RunTimeInfoNeeded(format("{} (while inferring shapes for {})", e.what(), describeWithInputs()), e);
  } catch (const error& e) {
    // The op's own message first (PopART's wording where it has one), then the node.
    throw withContext(e, "{} (while inferring shapes for {})", e.what(), describeWithInputs());
  }
}

void Op::connectInput(int i, Tensor* t) {
  if (i >= numInputs()) inputs_.resize(static_cast<size_t>(i) + 1, nullptr);
  if (inputs_[static_cast<size_t>(i)]) disconnectInput(i);
  inputs_[static_cast<size_t>(i)] = t;
  if (t) t->consumers.push_back(this);
}

void Op::disconnectInput(int i) {
  if (!hasInput(i)) return;
  inputs_[static_cast<size_t>(i)]->removeConsumer(this);
  inputs_[static_cast<size_t>(i)] = nullptr;
}

void Op::disconnectAllInputs() {
  for (int i = 0; i < numInputs(); ++i) disconnectInput(i);
}

void Op::connectOutput(int i, Tensor* t) {
  if (i >= numOutputs()) outputs_.resize(static_cast<size_t>(i) + 1, nullptr);
  outputs_[static_cast<size_t>(i)] = t;
  if (t) t->producer = this;
}

// ------------------------------------------------------------------ Graph

Tensor* Graph::tensor(const TensorId& id) const {
  auto it = tensors_.find(id);
  return it == tensors_.end() ? nullptr : it->second.get();
}

Tensor& Graph::getTensor(const TensorId& id) const {
  if (Tensor* t = tensor(id)) return *t;
  throw error("no tensor '{}' in the graph", id);
}

Tensor& Graph::addTensor(const TensorId& id, TensorKind kind, const TensorInfo& info) {
  if (hasTensor(id)) throw error("tensor '{}' is defined twice", id);
  auto t = std::make_unique<Tensor>(id, kind, info, *this);
  Tensor& ref = *t;
  tensors_[id] = std::move(t);
  return ref;
}

void Graph::removeTensor(const TensorId& id) {
  tensors_.erase(id);
}

TensorId Graph::uniqueTensorId(const std::string& base) const {
  if (!hasTensor(base)) return base;
  for (int i = 1;; ++i) {
    TensorId c = base + "/" + std::to_string(i);
    if (!hasTensor(c)) return c;
  }
}

std::vector<Tensor*> Graph::tensorsOfKind(TensorKind k) const {
  std::vector<Tensor*> v;
  for (const auto& kv : tensors_) {
    if (kv.second->kind == k) v.push_back(kv.second.get());
  }
  return v;
}

Op& Graph::addOp(const OpDef& def, const std::string& name, int opset) {
  const OpId id = nextOpId_++;
  auto op = std::make_unique<Op>(def, *this, id, name, opset);
  Op& ref = *op;
  ops_[id] = std::move(op);
  return ref;
}

void Graph::removeOp(Op* op) {
  for (auto& kv : ops_) {
    auto& a = kv.second->after;
    a.erase(std::remove(a.begin(), a.end(), op), a.end());
  }
  op->disconnectAllInputs();
  for (Tensor* t : op->outputs()) {
    if (t && t->producer == op) t->producer = nullptr;
  }
  ops_.erase(op->id());
}

std::vector<Op*> Graph::topologicalOrder() const {
  std::map<const Op*, int> pending;
  std::map<const Op*, std::vector<Op*>> followers;  // from `after` constraints
  // (phase, rank, id): with phased execution the phases run one after another; then the rank;
  // ties broken by op id (= import order).
  using Key = std::tuple<int64_t, OpId, OpId, Op*>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  const bool phased = phasedExecution(ir_->options());
  auto key = [phased](Op* op) {
    return Key{phased ? executionPhaseOf(*op) : 0, op->scheduleRank >= 0 ? op->scheduleRank : op->id(), op->id(), op};
  };
  for (const auto& kv : ops_) {
    for (Op* first : kv.second->after) followers[first].push_back(kv.second.get());
  }
  for (const auto& kv : ops_) {
    Op* op = kv.second.get();
    int n = static_cast<int>(op->after.size());
    for (Tensor* t : op->inputs()) {
      if (t && t->producer) ++n;
    }
    pending[op] = n;
    if (n == 0) ready.push(key(op));
  }
  std::vector<Op*> order;
  order.reserve(ops_.size());
  while (!ready.empty()) {
    Op* op = std::get<3>(ready.top());
    ready.pop();
    order.push_back(op);
    for (Op* f : followers[op]) {
      if (--pending[f] == 0) ready.push(key(f));
    }
    for (Tensor* t : op->outputs()) {
      if (!t) continue;
      for (Op* c : t->consumers) {
        // A consumer may use the same tensor at several inputs: count each use.
        if (--pending[c] == 0) ready.push(key(c));
      }
    }
  }
  if (order.size() != ops_.size()) throw error("the graph '{}' has a cycle", id_);
  return order;
}

bool drawsRandomNumbers(const Graph& g) {
  for (const auto& kv : g.ops()) {
    const Op& op = *kv.second;
    switch (op.kind()) {
      case OpKind::Bernoulli:
      case OpKind::RandomUniform:
      case OpKind::RandomUniformLike:
      case OpKind::RandomNormal:
      case OpKind::RandomNormalLike:
      case OpKind::GcShapedDropout:
      case OpKind::DropoutGrad:
        return true;
      case OpKind::Dropout:
        if (op.opset() < 7 || op.opset() >= 12 || op.attrs.getInt("training", 0) != 0) return true;
        break;
      default:
        break;
    }
    for (const Graph* sg : op.subgraphs) {
      if (sg && drawsRandomNumbers(*sg)) return true;
    }
  }
  return false;
}

}  // namespace popart
