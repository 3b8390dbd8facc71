// The Builder's state: the ModelProto being built, tensor ids and their inferred infos.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/tensor_data.hpp"
#include "onnx.pb.h"
#include "popart/debugcontext.hpp"
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/voiddata.hpp"

namespace popart {

class Builder;

class BuilderImpl {
 public:
  explicit BuilderImpl(BuilderImpl* parent = nullptr);
  ~BuilderImpl();

  void loadModelProto(const std::string& modelProtoOrFilename);

  void addOpsetRequirement(const std::string& domain, int version);
  int getOpsetVersion(const std::string& domain) const;

  TensorId addInputTensor(const TensorInfo& info, const DebugContext& dc);
  TensorId addUntypedInputTensor(const DebugContext& dc);
  void addInputTensorFromParentGraph(const TensorId& id);
  TensorId addInitializedInputTensor(const ConstVoidData& data, const DebugContext& dc);
  void addOutputTensor(const TensorId& id);
  /// A graph input's setting, kept in the model's metadata_props as "<name>:<id>" = value.
  void setInputSetting(const char* name, const TensorId& id, const std::string& value);
  /// The model's metadata_props entry `key` (replaced when there).
  void setModelProperty(const std::string& key, const std::string& value);

  /// Adds a node. `explicitOutputs` names the outputs instead of generated ids.
  std::vector<TensorId> op(const std::string& domain, int version, const std::string& type,
                           const std::vector<TensorId>& inputs, unsigned numOutputs,
                           const std::map<std::string, any>& attributes, const DebugContext& dc, int minInputs,
                           int maxInputs, const std::vector<TensorId>* explicitOutputs = nullptr);

  // Node attributes of the node producing all of `outs`.
  onnx::NodeProto& findNode(const std::set<TensorId>& outs);
  void addNodeAttribute(const std::string& name, const any& value, const std::set<TensorId>& outs);
  bool nodeHasAttribute(const std::string& name, const std::set<TensorId>& outs);
  const onnx::AttributeProto& getNodeAttribute(const std::string& name, const std::set<TensorId>& outs);
  void removeNodeAttribute(const std::string& name, const std::set<TensorId>& outs);
  /// The node's attribute `name` set to `value`: an existing one is replaced (the new one is the
  /// node's last attribute, as after removeNodeAttribute + addNodeAttribute).
  void setNodeAttribute(const std::string& name, const any& value, const std::set<TensorId>& outs);
  std::vector<std::string> getAllNodeAttributeNames(const std::set<TensorId>& outs);

  std::map<std::string, any> scopedAttributes;
  std::vector<std::string> nameScopes;

  const onnx::ModelProto& model() const { return model_; }
  onnx::ModelProto& model() { return model_; }
  std::string serialize() const;
  std::string humanReadable() const;
  bool knows(const TensorId& id) const;  ///< in this graph or an enclosing one
  bool isInitializer(const TensorId& id) const;
  /// The inferred info of a tensor, or nullptr when it is unknown.
  const TensorInfo* info(const TensorId& id) const;
  /// PopART's Builder checks of Conv, AveragePool, MaxPool and Pad (attribute form), made by the
  /// typed ai.onnx methods (not customOp) as the op is added, with its messages: the window
  /// parameters' lengths, Conv's kernel_shape against its weight, a negative spatial output size.
  /// (Shapes not known yet: checked at the session.)
  void verifyWindowParameters(const std::string& domain, const std::string& type, const std::vector<TensorId>& inputs,
                              const std::map<std::string, any>& attrs) const;
  std::vector<TensorId> inputIds() const;
  std::vector<TensorId> outputIds() const;
  std::vector<TensorId> valueIds() const;
  std::vector<TensorId> trainableIds() const;
  void setGraphName(const std::string& n) { model_.mutable_graph()->set_name(n); }

 private:
  TensorId nextId(const std::string& name, int index);
  void checkInputs(const std::string& type, const std::vector<TensorId>& inputs, int minIn, int maxIn) const;
  void inferShapes(const onnx::NodeProto& node, const std::string& domain, int version);
  void recordInfo(const TensorId& id, const TensorInfo& info);
  /// With initializePoplarDebugInfo open: the node's debug context (layer "popartbuilder"), its id
  /// kept in the node's `__debug_info_id` attribute; an input's.
  void recordDebugInfo(onnx::NodeProto& node, const std::string& domain, int version, const DebugContext& dc,
                       const std::vector<TensorId>& inputs, const std::vector<TensorId>& outputs);
  void recordTensorDebugInfo(const char* api, const DebugContext& dc, const TensorId& id);

  BuilderImpl* parent_;
  onnx::ModelProto model_;
  std::set<TensorId> ids_;  ///< every id defined in this graph
  /// Inputs named after a parent's tensor (addInputTensorFromParentGraph): not the parent's value.
  std::set<TensorId> parentNamedInputs_;
  std::map<TensorId, TensorInfo> infos_;
  std::map<TensorId, TensorData> values_;  ///< known values (initializers, constants) for inference
  int nodeCounter_ = 0;
};

}  // namespace popart
