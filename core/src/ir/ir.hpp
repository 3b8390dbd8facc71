// The IR: what a session builds from a model before any device is involved.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "popart/dataflow.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"

namespace onnx {
class ModelProto;
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace popart {

class Optimizer;

enum class ExecutionMode { Inference, Training };

/// Evaluates an op whose inputs all have host values (constant folding). Implemented by a
/// backend so the IR itself needs no kernels.
class ConstEvaluator {
 public:
  virtual ~ConstEvaluator() = default;
  /// One TensorData per output of `op`.
  virtual std::vector<TensorData> evaluate(const Op& op) const = 0;
};

/// Constant folding on the host, for callers without a session (the Builder's shape inference
/// folds small constants with it). Declared here, provided by the host backend (backends/cpu).
const ConstEvaluator& hostConstEvaluator();

struct IrBundle {
  /// The model; the Ir takes its contents over (moves from it).
  onnx::ModelProto* model = nullptr;
  std::string modelBaseDir;
  InputShapeInfo inputShapeInfo;
  DataFlow dataFlow;
  SessionOptions options;
  Patterns patterns;
  std::string sessionName;
  ExecutionMode mode = ExecutionMode::Inference;
  const ConstEvaluator* evaluator = nullptr;
  /// Training: the scalar loss tensor and the optimizer (owned by the session).
  TensorId loss;
  const Optimizer* optimizer = nullptr;
  /// The device's IPUs (VirtualGraphMode::Auto splits the graph over a replica's share).
  int64_t numIpus = 1;
};

class Ir {
 public:
  Ir();
  ~Ir();
  Ir(const Ir&) = delete;
  Ir& operator=(const Ir&) = delete;

  /// Takes the bundle's settings and model, checks the options that concern the IR, and imports
  /// the model (shape inference and constant folding on the way). passes::prepare(ir, bundle)
  /// (passes/prepare.hpp) runs this and the rest of the pipeline up to lowering.
  void load(const IrBundle& bundle);
  /// Checks that every anchor names a tensor of the main graph.
  void validateAnchors() const;
  /// Removes ops and tensors nothing anchored, updated or side-effecting depends on.
  void prune();

  Graph& mainGraph() { return *main_; }
  const Graph& mainGraph() const { return *main_; }
  ExecutionMode mode() const { return mode_; }
  bool isTraining() const { return mode_ == ExecutionMode::Training; }
  const DataFlow& dataFlow() const { return dataFlow_; }
  const SessionOptions& options() const { return options_; }
  const Patterns& patterns() const { return patterns_; }
  const std::string& sessionName() const { return sessionName_; }
  /// The ops of the main graph in execution order.
  const std::vector<Op*>& schedule() const { return schedule_; }
  /// The model as imported. Large initializer payloads are moved into the IR's tensors: see
  /// isStrippedInitializer; exporters refill them from the tensors.
  const onnx::ModelProto& model() const { return *model_; }
  bool isStrippedInitializer(const TensorId& id) const { return stripped_.count(id) != 0; }
  /// The opset imported for a domain (0 when the model does not import it).
  int opsetVersion(const std::string& domain) const;
  /// For a scratch IR (the Builder's inference of one node): the opsets its subgraphs' nodes see.
  void setOpsetVersion(const std::string& domain, int version) { opsets_[canonicalDomain(domain)] = version; }
  /// A scratch IR of the Builder's shape inference: there, as in ONNX's shape inference (which
  /// PopART's Builder runs), ops whose output type is fixed do not check their inputs' types.
  void setShapeInferenceOnly() { shapeInferenceOnly_ = true; }
  bool shapeInferenceOnly() const { return shapeInferenceOnly_; }
  /// Stream (input) tensors of the main graph, in model order.
  const std::vector<TensorId>& streamInputIds() const { return streamIds_; }
  /// Initializers of the model in model order (weights or constants now).
  const std::vector<TensorId>& initializerIds() const { return initializerIds_; }
  bool isInitializer(const TensorId& id) const;
  /// Type and shape of a tensor that pruning removed (nothing depended on it), or nullptr.
  const TensorInfo* prunedTensorInfo(const TensorId& id) const {
    auto it = prunedInfos_.find(id);
    return it == prunedInfos_.end() ? nullptr : &it->second;
  }
  const ConstEvaluator* evaluator() const { return evaluator_; }

  /// Imports a subgraph given as attribute `attr` of `owner` (a GRAPH attribute of its node).
  /// `inputInfos` give the types of its formal inputs where the owner knows them (an unset
  /// TensorInfo keeps the type written in the subgraph). Outer-scope reads become implicit inputs.
  Graph& importSubgraph(Op& owner, const std::string& attr, const std::vector<TensorInfo>& inputInfos);

  /// An anchor naming a sequence or optional value of the main graph: the value, and the tensors
  /// anchored in its place ("<id>[<i>]", one per element; none for an absent optional).
  struct StructAnchor {
    StructValue value;
    std::vector<TensorId> elements;
  };
  const std::map<TensorId, StructAnchor>& structAnchors() const { return structAnchors_; }

  /// Human-readable listing of the schedule (for reports and debugging).
  std::string scheduleText() const;
  /// Re-computes the schedule after graph edits.
  void updateSchedule();

 private:
  void importModel(const IrBundle& b);
  /// PopART's checks of automaticLossScalingSettings and of pipelining (stages from the
  /// pipelineStage / virtualGraph annotations of the imported model).
  void verifySettings(const IrBundle& b) const;
  void registerInitializers(const IrBundle& b);
  /// The model's metadata_props value "<name>:<id>" (a graph input's setting), or nullptr.
  const std::string* inputSetting(const char* name, const TensorId& id) const;
  void registerInputs(const IrBundle& b);
  void importNodes(const onnx::GraphProto& g, Graph& graph);
  void importNode(const onnx::NodeProto& node, Graph& graph);
  bool tryFold(Op& op);
  Tensor* resolveTensor(Graph& g, const TensorId& id);
  /// Checks `node`'s input and output counts against an op's (max < 0: any number); returns the
  /// input count without trailing absent optionals.
  static int checkArity(const onnx::NodeProto& node, const std::string& name, int opset, int minIn, int maxIn,
                        int minOut, int maxOut);
  // Sequence and optional values (ir/structured.cpp).
  friend class StructImporter;
  /// Imports `node` if it makes or reads a sequence or optional value (or is a Loop that must be
  /// unrolled); false when it is an ordinary op.
  bool importStructured(const onnx::NodeProto& node, Graph& graph, const std::string& name);
  /// A Loop whose body needs per-iteration information (a shape from the iteration count): unrolled
  /// when its trip count and condition are known; false when they are not.
  bool unrollLoopIfBounded(const onnx::NodeProto& node, Graph& graph, const std::string& name);
  /// Anchors (and main-graph outputs) that name sequence or optional values: their tensors.
  void anchorStructValues();

  std::unique_ptr<Graph> main_;
  std::vector<std::unique_ptr<Graph>> subgraphs_;
  std::unique_ptr<onnx::ModelProto> model_;
  std::map<std::string, int> opsets_;
  bool shapeInferenceOnly_ = false;
  std::map<TensorId, TensorInfo> prunedInfos_;
  ExecutionMode mode_ = ExecutionMode::Inference;
  DataFlow dataFlow_;
  SessionOptions options_;
  Patterns patterns_;
  std::string sessionName_;
  std::vector<Op*> schedule_;
  std::vector<TensorId> streamIds_;
  std::vector<TensorId> initializerIds_;
  std::set<TensorId> stripped_;
  const ConstEvaluator* evaluator_ = nullptr;
  int nodeCounter_ = 0;
  /// How many nodes of the graph being imported read each tensor (for
  /// enableConstantFoldingOfMultipleConsumers = false).
  std::map<std::string, int> importConsumers_;
  std::map<TensorId, StructAnchor> structAnchors_;
  /// Outputs of the nodes ONNX's Gradient nodes differentiate: not folded at import.
  std::set<std::string> keepUnfolded_;
};

/// PopART's pipelining depth check: batchesPerStep (or the gradient accumulation factor) must be
/// at least the number of pipeline stages (2 * forwardStages - 1 in training).
void checkPipelineDepth(const Ir& ir, int64_t forwardStages);

}  // namespace popart
