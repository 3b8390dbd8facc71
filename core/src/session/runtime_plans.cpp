// Run-time planning (docs/architecture.md, "Static and run-time planning"): an inference session
// on the CPU device whose model leaves shapes to the run (a symbolic input dimension that
// InputShapeInfo does not give, a shape-giving input such as Reshape's shape fed at run time)
// plans each run from what it brings. A plan is the static one made for the run: the model with
// the run's input shapes as InputShapeInfo and the values of the inputs that give shapes as
// constants (folded like any constant), prepared and compiled as prepareDevice does. Plans are
// kept by their signature (input shapes, and those inputs' values), the least recently used
// dropped past Session::kMaxRunTimePlans; a run whose signature is cached reuses its plan.
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>

#include "backends/backend.hpp"
#include "common/tensor_data.hpp"
#include "ir/ir.hpp"
#include "ir/runtime_info.hpp"
#include "ir/tensor.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "passes/prepare.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/session.hpp"
#include "session/replica_weights.hpp"

namespace popart {

struct Session::RunTimePlans {
  /// The model as given (initializers inline), and what sessions are made with.
  onnx::ModelProto model;
  std::string modelBaseDir;
  InputShapeInfo given;
  DataFlow dataFlow;
  SessionOptions options;
  Patterns patterns;
  int64_t numIpus = 1;
  /// The model's inputs without an initializer, in order, with their declared element types.
  std::vector<TensorId> inputs;
  std::map<TensorId, DataType> declaredType;
  /// Inputs whose values give shapes: each plan takes this run's values as constants.
  std::set<TensorId> valueInputs;
  /// Inputs of sequence or optional type, with their declared types: each plan takes the run's
  /// tensors of them as inputs "<id>[<i>]" (withElementInputs).
  std::map<TensorId, onnx::TypeProto> structInputs;
  /// This run's arrays of them (elementStepIO serves the plan's "<id>[<i>]" inputs from them).
  std::map<TensorId, std::vector<IArray*>> runElements;

  struct Plan {
    std::unique_ptr<Ir> ir;
    std::unique_ptr<Executable> executable;
    std::unique_ptr<ReplicaWeights> weights;
    std::unique_ptr<StepIOSpec> spec;
    uint64_t lastUse = 0;
  };
  /// Exchanges the session's compiled members with `p`'s: parks the selected plan in its (empty)
  /// cache entry, or selects a parked one.
  static void exchange(Session& s, Plan& p) {
    std::swap(s.ir_, p.ir);
    std::swap(s.executable_, p.executable);
    std::swap(s.replicaWeights_, p.weights);
    std::swap(s.stepIOSpec_, p.spec);
  }
  /// Plans by signature. The selected one's members live in the Session (its ir_ is set only
  /// while a plan is selected), its cache entry holding none.
  std::map<std::string, Plan> cache;
  std::string current;
  uint64_t clock = 0;
  int64_t built = 0;
  int64_t reused = 0;
};

namespace {

/// The model's inputs (without initializers) that tensor `id` is computed from: through the
/// producers in the main graph and in bodies (whose nodes may read outer tensors).
std::set<TensorId> inputsUpstreamOf(const onnx::ModelProto& model, const TensorId& id) {
  std::map<std::string, const onnx::NodeProto*> producer;
  std::function<void(const onnx::GraphProto&)> index = [&](const onnx::GraphProto& g) {
    for (const auto& n : g.node()) {
      for (const auto& o : n.output()) producer.emplace(o, &n);
      for (const auto& a : n.attribute()) {
        if (a.has_g()) index(a.g());
        for (const auto& sg : a.graphs()) index(sg);
      }
    }
  };
  index(model.graph());
  std::set<std::string> inits, inputs;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  for (const auto& vi : model.graph().input()) {
    if (!inits.count(vi.name())) inputs.insert(vi.name());
  }
  std::set<TensorId> found;
  std::set<std::string> seen;
  std::vector<std::string> todo{id};
  while (!todo.empty()) {
    const std::string t = todo.back();
    todo.pop_back();
    if (t.empty() || !seen.insert(t).second) continue;
    if (inputs.count(t)) found.insert(t);
    auto it = producer.find(t);
    if (it == producer.end()) continue;
    std::set<std::string> reads(it->second->input().begin(), it->second->input().end());
    for (const auto& a : it->second->attribute()) {
      if (a.has_g()) namesReadBy(a.g(), reads);
      for (const auto& sg : a.graphs()) namesReadBy(sg, reads);
    }
    todo.insert(todo.end(), reads.begin(), reads.end());
  }
  return found;
}

/// The model with `values` as Constant nodes in place of those inputs.
onnx::ModelProto withConstantInputs(const onnx::ModelProto& model, const std::map<TensorId, TensorData>& values) {
  onnx::ModelProto m = model;
  auto* g = m.mutable_graph();
  auto* ins = g->mutable_input();
  for (int i = ins->size() - 1; i >= 0; --i) {
    if (values.count(ins->Get(i).name())) ins->DeleteSubrange(i, 1);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const auto& kv : values) {
    onnx::NodeProto* n = nodes.Add();
    n->set_op_type("Constant");
    n->set_name(kv.first + "/run-time constant");
    n->add_output(kv.first);
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    tensorToProto(kv.second, a->mutable_t());
  }
  for (const auto& n : g->node()) *nodes.Add() = n;
  g->mutable_node()->Swap(&nodes);
  return m;
}

ValueKind valueKind(const onnx::TypeProto& t) {
  if (t.has_sequence_type()) return ValueKind::Sequence;
  return t.optional_type().elem_type().has_sequence_type() ? ValueKind::OptionalSequence : ValueKind::OptionalTensor;
}

/// A sequence or optional input as one run gives it.
struct GivenElements {
  bool present = false;
  std::vector<IArray*> arrays;
  std::vector<TensorId> ids;  ///< the plan's inputs for them, "<id>[<i>]"
};

/// The model with each sequence or optional input `id` made of the run's tensors: inputs
/// "<id>[<i>]" and the node that makes the value of them (SequenceConstruct, Optional).
onnx::ModelProto withElementInputs(const onnx::ModelProto& model, const std::map<TensorId, onnx::TypeProto>& types,
                                   const std::map<TensorId, GivenElements>& given) {
  onnx::ModelProto m = model;
  auto* g = m.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const auto& vi : g->input()) {
    auto it = given.find(vi.name());
    if (it == given.end()) {
      *inputs.Add() = vi;
      continue;
    }
    const onnx::TypeProto& type = types.at(vi.name());
    const ValueKind kind = valueKind(type);
    const GivenElements& e = it->second;
    for (size_t i = 0; i < e.ids.size(); ++i) {
      onnx::ValueInfoProto* in = inputs.Add();
      in->set_name(e.ids[i]);
      in->mutable_type()->mutable_tensor_type()->set_elem_type(onnxDataType(e.arrays[i]->dataType()));
    }
    auto node = [&](const char* op, const std::string& out) {
      onnx::NodeProto* n = nodes.Add();
      n->set_op_type(op);
      n->set_name(vi.name() + "/" + op);
      n->add_output(out);
      return n;
    };
    const bool sequence = kind != ValueKind::OptionalTensor;
    const std::string seqName = kind == ValueKind::Sequence ? vi.name() : vi.name() + "/sequence";
    if (sequence && e.present) {
      onnx::NodeProto* n = node(e.ids.empty() ? "SequenceEmpty" : "SequenceConstruct", seqName);
      for (const auto& id : e.ids) n->add_input(id);
      if (e.ids.empty()) {
        const DataType elem = elemTypeOf(type);
        onnx::AttributeProto* a = n->add_attribute();
        a->set_name("dtype");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(onnxDataType(elem != DataType::UNDEFINED ? elem : DataType::FLOAT));
      }
    }
    if (kind == ValueKind::Sequence) continue;
    onnx::NodeProto* n = node("Optional", vi.name());
    if (e.present) {
      n->add_input(kind == ValueKind::OptionalSequence ? seqName : e.ids.at(0));
    } else {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name("type");
      a->set_type(onnx::AttributeProto::TYPE_PROTO);
      *a->mutable_tp() = type.optional_type().elem_type();
    }
  }
  g->mutable_input()->Swap(&inputs);
  for (const auto& n : g->node()) *nodes.Add() = n;
  g->mutable_node()->Swap(&nodes);
  return m;
}

/// The StepIO of a run whose plan has sequence or optional inputs or anchors: their tensors come
/// from (and go to) the arrays the user's StepIO gives for them; everything else is the user's.
class ElementStepIO : public IStepIO {
 public:
  explicit ElementStepIO(IStepIO& user) : user_(user) { enableRuntimeAsserts(user.runtimeAssertsEnabled()); }
  std::map<TensorId, IArray*> in_, out_;
  std::vector<TensorId> structInputs_;

  ConstVoidData in(TensorId id, int64_t n, bool prefetch, bool isBroadcast) override {
    auto it = in_.find(id);
    if (it == in_.end()) return user_.in(id, n, prefetch, isBroadcast);
    return ConstVoidData(it->second->data(), TensorInfo(it->second->dataType(), it->second->shape()));
  }
  void inComplete(TensorId id, int64_t n, bool isBroadcast) override {
    if (!in_.count(id)) user_.inComplete(id, n, isBroadcast);
  }
  MutableVoidData out(TensorId id, int64_t n) override {
    auto it = out_.find(id);
    if (it == out_.end()) return user_.out(id, n);
    return MutableVoidData(it->second->data(), TensorInfo(it->second->dataType(), it->second->shape()));
  }
  void outComplete(TensorId id) override {
    if (!out_.count(id)) user_.outComplete(id);
  }
  void assertNumElements(const StepIOSpec& spec) const override {
    StepIOSpec user = spec;
    auto drop = [](std::vector<StepIOSpec::Entry>& v, const std::map<TensorId, IArray*>& m) {
      v.erase(std::remove_if(v.begin(), v.end(), [&](const StepIOSpec::Entry& e) { return m.count(e.id) != 0; }),
              v.end());
    };
    drop(user.inputs, in_);
    drop(user.outputs, out_);
    user.elementInputs = structInputs_;
    user_.assertNumElements(user);
    for (const auto& e : spec.inputs) {
      auto it = in_.find(e.id);
      if (it == in_.end()) continue;
      const IArray& a = *it->second;
      if (a.dataType() != e.info.dataType() || a.shape() != e.info.shape())
        throw error("Input '{}' is given as {} {}, but this run's plan takes {}", e.id, dataTypeToString(a.dataType()),
                    a.shape(), e.info.toString());
    }
  }
  IArray* inputArray(const TensorId& id) override {
    auto it = in_.find(id);
    return it == in_.end() ? user_.inputArray(id) : it->second;
  }
  void prepareOutput(const TensorId& id, const TensorInfo& info) override {
    if (!out_.count(id)) user_.prepareOutput(id, info);
  }

 private:
  IStepIO& user_;
};

error differs(const TensorId& id, int64_t microBatch) {
  return error(
      "Input '{}' gives a shape (its values are the run's constants), so it must hold the same values in every "
      "micro-batch of a step; micro-batch {} differs from the first",
      id, microBatch);
}

}  // namespace

// Here rather than in session.cpp: the runTime_ member's type is complete only in this file.
Session::Session(std::string name, std::shared_ptr<DeviceInfo> device)
    : name_(std::move(name)), device_(std::move(device)), ir_(std::make_unique<Ir>()) {}

Session::~Session() = default;

void Session::startRunTimePlanning(const IrBundle& b, const std::exception& need) {
  if (b.options.syntheticDataMode != SyntheticDataMode::Off) throw error(need.what());  // no data to plan from
  auto rt = std::make_unique<RunTimePlans>();
  // The import took the model over (big initializers moved into their tensors): put it back.
  rt->model = ir_->model();
  for (auto& tp : *rt->model.mutable_graph()->mutable_initializer()) {
    if (!ir_->isStrippedInitializer(tp.name())) continue;
    const Tensor* t = ir_->mainGraph().tensor(tp.name());
    if (!t || !t->data) throw internal_error("run-time planning: the data of initializer '{}' was lost", tp.name());
    tensorToProto(t->hostData(), &tp);
  }
  rt->modelBaseDir = b.modelBaseDir;
  rt->given = b.inputShapeInfo;
  rt->dataFlow = b.dataFlow;
  rt->options = b.options;
  rt->patterns = b.patterns;
  rt->numIpus = b.numIpus;
  std::set<std::string> inits;
  for (const auto& t : rt->model.graph().initializer()) inits.insert(t.name());
  for (const auto& vi : rt->model.graph().input()) {
    if (inits.count(vi.name())) continue;
    rt->inputs.push_back(vi.name());
    if (vi.type().has_sequence_type() || vi.type().has_optional_type()) {
      rt->structInputs.emplace(vi.name(), vi.type());
      continue;
    }
    const int elem = vi.type().tensor_type().elem_type();
    if (elem) rt->declaredType[vi.name()] = dataTypeFromOnnx(elem);
  }
  if (const auto* r = dynamic_cast<const RunTimeInfoNeeded*>(&need)) {
    if (r->kind() == RunTimeInfoNeeded::Kind::Value) {
      for (const auto& id : inputsUpstreamOf(rt->model, r->tensor())) rt->valueInputs.insert(id);
    }
  }
  ir_.reset();
  runTime_ = std::move(rt);
  logging::session::info(
      "The model's shapes are not all known when it is compiled ({}): the CPU device plans each run for its inputs",
      need.what());
}

void Session::selectRunTimePlan(IStepIO& io) {
  RunTimePlans& rt = *runTime_;
  const int64_t bps = rt.dataFlow.batchesPerStep();
  const int64_t af = rt.options.getAccumulationFactor();
  const int64_t rf = rt.options.getReplicationFactor();
  const size_t lead = static_cast<size_t>((bps > 1) + (af > 1) + (rf > 1));
  const int64_t micro = bps * af * rf;

  // A value input found while planning adds to the signature: at most one more pass per input.
  for (size_t attempt = 0; attempt <= rt.inputs.size(); ++attempt) {
    InputShapeInfo shapes;
    std::map<TensorId, TensorData> values;
    std::map<TensorId, GivenElements> elements;
    std::ostringstream key, said;
    for (const auto& id : rt.inputs) {
      const bool isValue = rt.valueInputs.count(id) != 0;
      if (auto st = rt.structInputs.find(id); st != rt.structInputs.end()) {
        // A sequence or optional input: its tensors are the plan's inputs "<id>[<i>]".
        const ValueKind kind = valueKind(st->second);
        if (micro != 1)
          throw error(
              "Input '{}' is a sequence or optional value, which is given for one micro-batch, but a step of this "
              "session has {} (batchesPerStep {}, accumulationFactor {}, replicationFactor {})",
              id, micro, bps, af, rf);
        if (isValue)
          throw error("Input '{}' is a sequence or optional value, and a shape depends on its values: not supported",
                      id);
        GivenElements e;
        e.present = io.inputElements(id, kind, e.arrays);
        if (!e.present && kind == ValueKind::OptionalTensor) {
          if (IArray* a = io.inputArray(id)) {
            e.present = true;
            e.arrays = {a};
          }
        }
        if (!e.present && kind == ValueKind::Sequence)
          throw error("The stepIO has no tensors for input '{}', a sequence: give a list of arrays", id);
        if (kind == ValueKind::OptionalTensor && e.arrays.size() > 1)
          throw error("Input '{}' is an optional tensor, but {} arrays are given for it", id, e.arrays.size());
        const DataType declared = elemTypeOf(st->second);
        key << id << (e.present ? " " : " None") << e.arrays.size() << '{';
        said << (said.tellp() ? ", " : "") << id << (e.present ? "" : " None");
        if (e.present) said << " [";
        for (size_t i = 0; i < e.arrays.size(); ++i) {
          const IArray& a = *e.arrays[i];
          if (declared != DataType::UNDEFINED && a.dataType() != declared)
            throw error("Input '{}' holds {} tensors, but tensor {} of it is given as {} data", id,
                        dataTypeToString(declared), i, dataTypeToString(a.dataType()));
          const TensorInfo info(a.dataType(), a.shape());
          e.ids.push_back(elementTensorId(id, i));
          shapes.add(e.ids.back(), info);
          key << info.data_type() << a.shape() << ';';
          said << (i ? " " : "") << info.toString();
        }
        if (e.present) said << "]";
        key << "};";
        elements.emplace(id, std::move(e));
        continue;
      }
      if (rt.given.has(id) && !isValue) {
        shapes.add(id, rt.given.get(id));
        continue;
      }
      IArray* a = io.inputArray(id);
      if (!a)
        throw error(
            "The stepIO has no input for tensor '{}', whose shape (or value) this session takes from each run (its "
            "shapes are known only at run time): give every input as an array (StepIO / PyStepIO)",
            id);
      const Shape full = a->shape();
      if (full.size() < lead)
        throw error(
            "Input '{}' is given as an array of shape {}, but a step of {} micro-batches needs {} leading "
            "dimension(s) for them (batchesPerStep {}, accumulationFactor {}, replicationFactor {})",
            id, full, micro, lead, bps, af, rf);
      const Shape sample(full.begin() + static_cast<std::ptrdiff_t>(lead), full.end());
      const DataType given = a->dataType();
      auto dt = rt.declaredType.find(id);
      const DataType type = dt != rt.declaredType.end() ? dt->second : given;
      const TensorInfo info(type, sample);
      key << format("{} {}{};", id, info.data_type(), sample);
      said << (said.tellp() ? ", " : "") << id << ' ' << info.toString();
      if (!isValue) {
        shapes.add(id, info);
        continue;
      }
      // The value: one micro-batch's, the same in every micro-batch of the step.
      const TensorInfo givenInfo(given, sample);
      const int64_t n = givenInfo.nelms();
      TensorData v(givenInfo);
      if (given == DataType::STRING) {
        const auto* p = static_cast<const std::string*>(a->data());
        for (int64_t m = 1; m < micro; ++m) {
          if (!std::equal(p, p + n, p + m * n)) throw differs(id, m);
        }
        std::copy(p, p + n, v.strings().begin());
        key << '=';
        for (int64_t i = 0; i < n; ++i) key << p[i].size() << ':' << p[i];
      } else {
        const auto* p = static_cast<const char*>(a->data());
        const auto bytes = static_cast<size_t>(givenInfo.nbytes());
        for (int64_t m = 1; m < micro && bytes; ++m) {
          if (std::memcmp(p, p + static_cast<size_t>(m) * bytes, bytes) != 0) throw differs(id, m);
        }
        v = TensorData(givenInfo, p);
        if (given != type) v = v.castTo(type);
        key << '=' << std::string(static_cast<const char*>(v.data()), static_cast<size_t>(v.nbytes()));
        if (n <= 8) {
          said << " =";
          for (double d : v.toDouble()) said << ' ' << d;
        }
      }
      key << ';';
      values.emplace(id, std::move(v));
    }
    const std::string k = key.str();
    rt.runElements.clear();
    for (const auto& [id, e] : elements) rt.runElements.emplace(id, e.arrays);
    if (ir_ && k == rt.current) {
      ++rt.reused;
      rt.cache.at(k).lastUse = ++rt.clock;
      break;
    }
    if (ir_) RunTimePlans::exchange(*this, rt.cache.at(rt.current));  // parked
    auto it = rt.cache.find(k);
    if (it == rt.cache.end()) {
      onnx::ModelProto m = withConstantInputs(
          elements.empty() ? rt.model : withElementInputs(rt.model, rt.structInputs, elements), values);
      IrBundle b;
      b.model = &m;
      b.modelBaseDir = rt.modelBaseDir;
      b.inputShapeInfo = shapes;
      b.dataFlow = rt.dataFlow;
      b.options = rt.options;
      b.patterns = rt.patterns;
      b.sessionName = name_;
      b.mode = ExecutionMode::Inference;
      b.evaluator = &backend_->constEvaluator();
      b.numIpus = rt.numIpus;
      auto ir = std::make_unique<Ir>();
      try {
        passes::prepare(*ir, b);
      } catch (const RunTimeInfoNeeded& need) {
        // A shape-giving value: the model's inputs it comes from become the run's constants.
        size_t added = 0;
        if (need.kind() == RunTimeInfoNeeded::Kind::Value) {
          for (const auto& id : inputsUpstreamOf(rt.model, need.tensor())) added += rt.valueInputs.insert(id).second;
        }
        if (!added)
          throw error("{} (the session plans at run time, but this value does not come from the model's inputs)",
                      need.what());
        continue;
      }
      while (rt.cache.size() >= kMaxRunTimePlans) {
        auto oldest = rt.cache.begin();
        for (auto c = rt.cache.begin(); c != rt.cache.end(); ++c) {
          if (c->second.lastUse < oldest->second.lastUse) oldest = c;
        }
        rt.cache.erase(oldest);
      }
      ir_ = std::move(ir);  // nothing is selected: the other members are empty too
      try {
        compileIr();
      } catch (...) {
        ir_.reset();
        executable_.reset();
        replicaWeights_.reset();
        throw;
      }
      stepIOSpec_ = std::make_unique<StepIOSpec>(makeStepIOSpec());
      stepIOSpec_->runTimeConstants.assign(rt.valueInputs.begin(), rt.valueInputs.end());
      ++rt.built;
      rt.cache[k].lastUse = ++rt.clock;
      logging::session::info("Planned a run for {} (plan {} of this session; {} kept)", said.str(), rt.built,
                             rt.cache.size());
    } else {
      RunTimePlans::exchange(*this, it->second);
      it->second.lastUse = ++rt.clock;
      ++rt.reused;
    }
    rt.current = k;
    break;
  }
  if (!ir_) throw internal_error("run-time planning found no plan for the run");
}

std::unique_ptr<IStepIO> Session::elementStepIO(IStepIO& io) {
  const bool structInputs = runTime_ && !runTime_->structInputs.empty();
  if (!structInputs && ir().structAnchors().empty()) return nullptr;
  const int64_t micro = int64_t(ir().dataFlow().batchesPerStep()) * ir().options().getAccumulationFactor() *
                        ir().options().getReplicationFactor();
  auto eio = std::make_unique<ElementStepIO>(io);
  if (structInputs) {
    for (const auto& [id, arrays] : runTime_->runElements) {
      eio->structInputs_.push_back(id);
      for (size_t i = 0; i < arrays.size(); ++i) eio->in_[elementTensorId(id, i)] = arrays[i];
    }
  }
  for (const auto& [id, sa] : ir().structAnchors()) {
    if (micro != 1)
      throw error(
          "Anchor '{}' is a sequence or optional value, which is returned for one micro-batch, but a step of this "
          "session has {} (batchesPerStep, accumulationFactor and replicationFactor multiplied)",
          id, micro);
    std::vector<TensorInfo> infos;
    for (const auto& e : sa.elements) infos.push_back(ir().mainGraph().getTensor(e).info);
    const ValueKind kind = sa.value.isSequence() ? ValueKind::Sequence
                           : sa.value.ofSequence ? ValueKind::OptionalSequence
                                                 : ValueKind::OptionalTensor;
    const bool present = sa.value.isSequence() || sa.value.present;
    const std::vector<IArray*> arrays = io.prepareOutputElements(id, kind, present, infos);
    if (arrays.size() != infos.size())
      throw error("The stepIO gave {} arrays for the {} tensors of anchor '{}'", arrays.size(), infos.size(), id);
    for (size_t i = 0; i < arrays.size(); ++i) {
      if (arrays[i]->dataType() != infos[i].dataType() || arrays[i]->shape() != infos[i].shape())
        throw error("The stepIO gave tensor {} of anchor '{}' an array of {} {}, but it is {}", i, id,
                    dataTypeToString(arrays[i]->dataType()), arrays[i]->shape(), infos[i].toString());
      eio->out_[sa.elements[i]] = arrays[i];
    }
  }
  return eio;
}

Ir& Session::ir() const {
  if (!ir_)
    throw error(
        "Session '{}' plans its shapes at run time (its model's shapes are not all known when it is compiled), and "
        "has not run yet: this needs the plan of a run",
        name_);
  return *ir_;
}

Session::RunTimePlanStats Session::getRunTimePlanStats() const {
  RunTimePlanStats s;
  if (!runTime_) return s;
  s.runTimeShapes = true;
  s.plansBuilt = runTime_->built;
  s.plansReused = runTime_->reused;
  s.plansCached = static_cast<int64_t>(runTime_->cache.size());
  s.runTimeConstants.assign(runTime_->valueInputs.begin(), runTime_->valueInputs.end());
  return s;
}

const DataFlow& Session::runTimeDataFlow() const {
  if (!runTime_) throw internal_error("runTimeDataFlow of a session without run-time planning");
  return runTime_->dataFlow;
}

const SessionOptions& Session::runTimeOptions() const {
  if (!runTime_) throw internal_error("runTimeOptions of a session without run-time planning");
  return runTime_->options;
}

onnx::ModelProto Session::runTimeModel() const {
  if (!runTime_) throw internal_error("runTimeModel of a session without run-time planning");
  return runTime_->model;
}

std::map<TensorId, TensorInfo> Session::runTimeAnchorPlaceholders() const {
  const RunTimePlans& rt = *runTime_;
  std::map<TensorId, TensorInfo> m;
  for (const auto& id : rt.dataFlow.anchors()) {
    // A sequence or optional anchor's arrays come with the run (IStepIO::prepareOutputElements).
    bool structured = false;
    for (const auto& vi : rt.model.graph().output()) {
      structured = structured || (vi.name() == id && (vi.type().has_sequence_type() || vi.type().has_optional_type()));
    }
    if (structured) continue;
    DataType t = DataType::FLOAT;
    Shape s{0};
    auto from = [&](const onnx::ValueInfoProto& vi) {
      if (vi.name() != id) return;
      const auto& tt = vi.type().tensor_type();
      if (tt.elem_type()) t = dataTypeFromOnnx(tt.elem_type());
      if (!tt.has_shape()) return;
      s.clear();
      for (const auto& d : tt.shape().dim()) s.push_back(d.has_dim_value() ? d.dim_value() : 0);
    };
    for (const auto& vi : rt.model.graph().output()) from(vi);
    for (const auto& vi : rt.model.graph().value_info()) from(vi);
    m.emplace(id, TensorInfo(t, s));
  }
  return m;
}

}  // namespace popart
