// The pre-1.2 loss objects (popart/op/loss.hpp) and how a session appends them to its model.
#include "session/losses.hpp"

#include <set>

#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {

Loss::Loss(std::vector<TensorId> inputs, TensorId output, ReductionType reduction)
    : inputs_(std::move(inputs)), output_(std::move(output)), reduction_(reduction) {
  if (reduction_ == ReductionType::N) throw error("invalid ReductionType for the loss '{}'", output_);
}

NllLoss::NllLoss(const TensorId& probs, const TensorId& label, const TensorId& output, ReductionType reduction)
    : Loss({probs, label}, output, reduction) {}

NllLoss::NllLoss(const TensorId& probs, const TensorId& label, const TensorId& output, int ignoreIndex,
                 ReductionType reduction, bool inputIsLogProbability)
    : Loss({probs, label}, output, reduction),
      hasIgnoreIndex_(true),
      ignoreIndex_(ignoreIndex),
      inputIsLogProbability_(inputIsLogProbability) {}

std::map<std::string, int64_t> NllLoss::intAttributes() const {
  std::map<std::string, int64_t> a{{"inputIsLogProbability", inputIsLogProbability_ ? 1 : 0}};
  if (hasIgnoreIndex_) a["ignoreIndex"] = ignoreIndex_;
  return a;
}

L1Loss::L1Loss(const TensorId& in, const TensorId& output, float lambda, ReductionType reduction)
    : Loss({in}, output, reduction), lambda_(lambda) {}

IdentityLoss::IdentityLoss(const TensorId& in, const TensorId& output, ReductionType reduction)
    : Loss({in}, output, reduction) {}

namespace {

std::set<std::string> modelTensorNames(const onnx::GraphProto& g) {
  std::set<std::string> names;
  for (const auto& i : g.input()) names.insert(i.name());
  for (const auto& i : g.initializer()) names.insert(i.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) names.insert(o);
  }
  return names;
}

void addAttr(onnx::NodeProto* node, const std::string& name, const std::string& v) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace

TensorId appendLosses(onnx::ModelProto& model, const std::vector<Loss*>& losses, const InputShapeInfo& inputShapeInfo,
                      bool forTraining) {
  if (losses.empty()) {
    if (forTraining) throw error("TrainingSession: the list of losses is empty; give at least one loss");
    return "";
  }
  onnx::GraphProto* g = model.mutable_graph();
  std::set<std::string> names = modelTensorNames(*g);
  std::vector<TensorId> outputs;
  for (size_t k = 0; k < losses.size(); ++k) {
    const Loss* loss = losses[k];
    if (!loss) throw error("Loss {} of the list of losses is null", k);
    const std::string what = loss->opType() + " loss '" + loss->output() + "'";
    if (names.count(loss->output()))
      throw error("The output '{}' of the {} is already a tensor of the model; give the loss a new tensor id",
                  loss->output(), what);
    for (const TensorId& in : loss->getInputs()) {
      if (names.count(in)) continue;
      if (!inputShapeInfo.has(in))
        throw error(
            "The input '{}' of the {} is not a tensor of the model; if it is a new input (e.g. the labels), give "
            "its type and shape with InputShapeInfo::add(\"{}\", TensorInfo(...))",
            in, what, in);
      auto* vi = g->add_input();
      vi->set_name(in);
      setValueInfoType(inputShapeInfo.get(in), vi);
      names.insert(in);
    }
    onnx::NodeProto* node = g->add_node();
    node->set_op_type(loss->opType());
    node->set_domain("ai.graphcore");
    node->set_name(loss->output());
    for (const TensorId& in : loss->getInputs()) node->add_input(in);
    node->add_output(loss->output());
    addAttr(node, "reduction", reductionTypeToString(loss->getReductionType()));
    for (const auto& kv : loss->intAttributes()) {
      auto* a = node->add_attribute();
      a->set_name(kv.first);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(kv.second);
    }
    for (const auto& kv : loss->floatAttributes()) {
      auto* a = node->add_attribute();
      a->set_name(kv.first);
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(static_cast<float>(kv.second));
    }
    names.insert(loss->output());
    outputs.push_back(loss->output());
  }
  bool hasGraphcore = false;
  for (const auto& o : model.opset_import()) hasGraphcore = hasGraphcore || o.domain() == "ai.graphcore";
  if (!hasGraphcore) {
    auto* o = model.add_opset_import();
    o->set_domain("ai.graphcore");
    o->set_version(1);
  }
  TensorId final = outputs[0];
  if (outputs.size() > 1) {
    // Several losses: training minimises their sum.
    final = "finalLoss";
    for (int i = 1; names.count(final); ++i) final = "finalLoss_" + std::to_string(i);
    onnx::NodeProto* sum = g->add_node();
    sum->set_op_type("Sum");
    sum->set_name(final);
    for (const auto& o : outputs) sum->add_input(o);
    sum->add_output(final);
  }
  logging::session::info("Appended {} loss op(s) to the model; the loss is '{}'", losses.size(), final);
  return final;
}

}  // namespace popart
