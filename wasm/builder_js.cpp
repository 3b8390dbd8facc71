// Embind bindings of the Builder and the GraphTransformer (the JS package's Builder and
// GraphTransformer classes, wasm/js/index.mjs). Marshalling only; see bindings.cpp.
#include <emscripten/bind.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "js_values.hpp"

namespace popart {
namespace wasm {
namespace {

// ---------------------------------------------------------------- Builder

/// Owns a top-level Builder, or points into one for subgraph builders (the parent owns those).
class BuilderJs {
 public:
  explicit BuilderJs(std::shared_ptr<Builder> root) : root_(std::move(root)), b_(root_.get()) {}
  BuilderJs(std::shared_ptr<Builder> root, Builder* sub) : root_(std::move(root)), b_(sub) {}

  static BuilderJs* create() { return new BuilderJs(std::shared_ptr<Builder>(Builder::create())); }
  static BuilderJs* createFromOnnxModel(const val& bytes) {
    return guarded(
        [&] { return new BuilderJs(std::shared_ptr<Builder>(Builder::createFromOnnxModel(bytesFrom(bytes)))); });
  }

  BuilderJs* createSubgraphBuilder() {
    return guarded([&] { return new BuilderJs(root_, &b_->createSubgraphBuilder()); });
  }
  void setGraphName(const std::string& n) {
    guarded([&] { b_->setGraphName(n); });
  }
  void embedReplicationFactor(int n) {
    guarded([&] { b_->embedReplicationFactor(n); });
  }

  std::string addInputTensor(const std::string& dtype, const val& shape, const std::string& name) {
    return guarded([&] { return b_->addInputTensor(dtype, toInts(shape, "addInputTensor shape"), name); });
  }
  std::string addUntypedInputTensor(const std::string& name) {
    return guarded([&] { return b_->addUntypedInputTensor(name); });
  }
  void addInputTensorFromParentGraph(const std::string& id) {
    guarded([&] { b_->addInputTensorFromParentGraph(id); });
  }
  std::string addInitializedInputTensor(const val& nd, const std::string& name) {
    return guarded([&] {
      NDArray a = ndarrayFrom(nd);
      return b_->addInitializedInputTensor(ConstVoidData(a.data(), a.info()), name);
    });
  }
  /// PopART's addInputTensor(info, InputSettings, debugContext); settings: {replicatedStreamMode,
  /// tileSet, exchangeStrategy}.
  std::string addInputTensorWithSettings(const std::string& dtype, const val& shape, const val& settings,
                                         const std::string& name) {
    return guarded([&] {
      return b_->addInputTensor(dtype, toInts(shape, "addInputTensor shape"), inputSettingsFrom(settings), name);
    });
  }
  /// PopART's addInitializedInputTensor(initData, VariableSettings, debugContext).
  std::string addInitializedInputTensorWithSettings(const val& nd, const val& settings, const std::string& name) {
    return guarded([&] {
      NDArray a = ndarrayFrom(nd);
      return b_->addInitializedInputTensor(ConstVoidData(a.data(), a.info()), variableSettingsFrom(settings), name);
    });
  }
  void addOutputTensor(const std::string& id) {
    guarded([&] { b_->addOutputTensor(id); });
  }

  int getOnnxOpsetVersion() {
    return guarded([&] { return b_->getOnnxOpsetVersion(); });
  }
  void useOpset(const std::string& domain, int version) {
    guarded([&] { b_->useOpset(domain, version); });
  }

  /// attrs: [[name, type, value], ...] with type i | f | s | ints | floats | strings | t | g | dtype
  val op(const std::string& domain, const val& versionJs, const std::string& type, const val& inputs,
         const val& numOutputsJs, const val& attrs, const std::string& name, int minInputs, int maxInputs) {
    return guarded([&] {
      const int version = toInt32(versionJs, type + " opset version", 1);
      const auto numOutputs = static_cast<unsigned>(toInt32(numOutputsJs, type + " numOutputs", 0));
      std::map<std::string, any> a;
      std::vector<NDArray> tensors;  // keeps tensor attribute data alive until the node is added
      tensors.reserve(attrs["length"].as<unsigned>());
      for (unsigned i = 0; i < attrs["length"].as<unsigned>(); ++i) {
        val e = attrs[i];
        const auto n = e[0].as<std::string>();
        const auto t = e[1].as<std::string>();
        val v = e[2];
        const std::string what = type + " attribute '" + n + "'";
        if (t == "i")
          a[n] = typeOf(v) == "boolean" ? int64_t{v.as<bool>()} : toInt(v, what);
        else if (t == "f")
          a[n] = v.as<float>();
        else if (t == "s")
          a[n] = v.as<std::string>();
        else if (t == "ints")
          a[n] = toInts(v, what);
        else if (t == "floats")
          a[n] = toFloats(v);
        else if (t == "strings")
          a[n] = toStrings(v);
        else if (t == "dtype")
          a[n] = static_cast<int64_t>(onnxDataType(dataTypeFromString(v.as<std::string>())));
        else if (t == "t") {
          tensors.push_back(ndarrayFrom(v));
          a[n] = ConstVoidData(tensors.back().data(), tensors.back().info());
        } else if (t == "g") {
          a[n] = static_cast<const Builder*>(v.as<BuilderJs*>(emscripten::allow_raw_pointers())->b_);
        } else {
          throw error("internal: attribute '{}' has unknown type code '{}'", n, t);
        }
      }
      return jsStrings(
          b_->opsetOp(domain, version, type, toStrings(inputs), numOutputs, a, name, minInputs, maxInputs));
    });
  }

  /// aiGraphcore.<name>(args, params): params hold the attributes by name (marshalled by the
  /// types of the core's table) and the debugContext.
  val graphcore(const std::string& name, const val& args, const val& p) {
    return guarded([&] {
      std::map<std::string, OptionValue> attrs;
      std::map<std::string, const Builder*> graphs;
      for (const auto& op : graphcoreOpList()) {
        if (op.method != name) continue;
        for (const auto& a : op.attrs) {
          if (isUndef(p[a.name])) continue;
          if (a.type == "graph")  // the JS layer passes the subgraph Builder's handle
            graphs[a.name] = p[a.name].as<BuilderJs*>(emscripten::allow_raw_pointers())->b_;
          else
            attrs[a.name] = optionValueFrom(p[a.name], a.type, "aiGraphcore." + name + " " + a.name);
        }
      }
      const std::string dn = isUndef(p["debugContext"]) ? std::string() : p["debugContext"].as<std::string>();
      for (const auto& op : graphcoreOpList()) {
        if (op.method != name || op.inputsForm != "groups") continue;
        if (!val::global("Array").call<bool>("isArray", args))
          throw error("aiGraphcore.{} args must be an array of input arrays ([[x0, w0(, b0)], ...])", name);
        std::vector<std::vector<TensorId>> groups;
        const auto n = args["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i) {
          if (!val::global("Array").call<bool>("isArray", args[i]))
            throw error("aiGraphcore.{} args[{}] must be an array of tensor ids", name, i);
          groups.push_back(toStrings(args[i]));
        }
        return jsStrings(b_->aiGraphcoreOpset1().callGroupsMethod(name, groups, attrs, dn));
      }
      return jsStrings(b_->aiGraphcoreOpset1().callMethod(name, toStrings(args), attrs, graphs, dn));
    });
  }

  val getModelProto(bool humanReadable) {
    return guarded([&] {
      const std::string s = b_->getModelProto(humanReadable);
      return u8Copy(s.data(), s.size());
    });
  }

  /// saveInitializersExternally without a file system: the data file's bytes (index.mjs writes
  /// them with Node's fs; a browser keeps them).
  val saveInitializersExternallyToBytes(const val& ids, const std::string& location) {
    return guarded([&] {
      const std::string s = b_->saveInitializersExternallyToBytes(toStrings(ids), location);
      return u8Copy(s.data(), s.size());
    });
  }

  val getTensorShape(const std::string& id) {
    return guarded([&] { return jsShape(b_->getTensorShape(id)); });
  }
  std::string getTensorDtypeString(const std::string& id) {
    return guarded([&] { return b_->getTensorDtypeString(id); });
  }
  bool isInitializer(const std::string& id) {
    return guarded([&] { return b_->isInitializer(id); });
  }
  val getInputTensorIds() {
    return guarded([&] { return jsStrings(b_->getInputTensorIds()); });
  }
  val getOutputTensorIds() {
    return guarded([&] { return jsStrings(b_->getOutputTensorIds()); });
  }
  val getValueTensorIds() {
    return guarded([&] { return jsStrings(b_->getValueTensorIds()); });
  }
  val getTrainableTensorIds() {
    return guarded([&] { return jsStrings(b_->getTrainableTensorIds()); });
  }
  void pushNameScope(const std::string& s) {
    guarded([&] { b_->pushNameScope(s); });
  }
  void popNameScope() {
    guarded([&] { b_->popNameScope(); });
  }
  std::string getNameScope(const std::string& s) {
    return guarded([&] { return b_->getNameScope(s); });
  }

  void addNodeAttribute(const std::string& name, const std::string& type, const val& v, const val& outs) {
    guarded([&] {
      const std::set<TensorId> ids = toIdSet(outs);
      const std::string what = "addNodeAttribute '" + name + "'";
      if (type == "i")
        b_->addNodeAttribute(name, toInt(v, what), ids);
      else if (type == "f")
        b_->addNodeAttribute(name, v.as<float>(), ids);
      else if (type == "s")
        b_->addNodeAttribute(name, v.as<std::string>(), ids);
      else if (type == "ints")
        b_->addNodeAttribute(name, toInts(v, what), ids);
      else if (type == "floats")
        b_->addNodeAttribute(name, toFloats(v), ids);
      else if (type == "strings")
        b_->addNodeAttribute(name, toStrings(v), ids);
      else
        throw error("addNodeAttribute: unknown attribute type '{}'", type);
    });
  }
  bool nodeHasAttribute(const std::string& name, const val& outs) {
    return guarded([&] { return b_->nodeHasAttribute(name, toIdSet(outs)); });
  }
  /// A node attribute by PopART's getter kind ("Int64", "Int64Vector", "Float", "FloatVector",
  /// "String", "StringVector"): the core's typed getters and their errors.
  val getNodeAttribute(const std::string& kind, const std::string& name, const val& outs) {
    return guarded([&]() -> val {
      const std::set<TensorId> ids = toIdSet(outs);
      auto array = [](const auto& v) {
        val a = val::array();
        for (const auto& x : v) a.call<void>("push", val(static_cast<double>(x)));
        return a;
      };
      if (kind == "Int64") return val(static_cast<double>(b_->getInt64NodeAttribute(name, ids)));
      if (kind == "Int64Vector") return array(b_->getInt64VectorNodeAttribute(name, ids));
      if (kind == "Float") return val(b_->getFloatNodeAttribute(name, ids));
      if (kind == "FloatVector") return array(b_->getFloatVectorNodeAttribute(name, ids));
      if (kind == "String") return val(b_->getStringNodeAttribute(name, ids));
      if (kind == "StringVector") return jsStrings(b_->getStringVectorNodeAttribute(name, ids));
      throw error("getNodeAttribute: unknown kind '{}'", kind);
    });
  }
  void removeNodeAttribute(const std::string& name, const val& outs) {
    guarded([&] { b_->removeNodeAttribute(name, toIdSet(outs)); });
  }
  val getAllNodeAttributeNames(const val& outs) {
    return guarded([&] { return jsStrings(b_->getAllNodeAttributeNames(toIdSet(outs))); });
  }
  /// Sets the placement annotation `set` (virtualGraph, pipelineStage, executionPhase; `what`
  /// names it in errors) to `v` on the nodes of the outputs `outs`.
  void annotate(const val& outs, const val& v, const std::string& what,
                void (Builder::*set)(const std::set<TensorId>&, int64_t)) {
    guarded([&] { (b_->*set)(toIdSet(outs), toInt(v, what + " value")); });
  }
  void virtualGraph(const val& outs, const val& v) { annotate(outs, v, "virtualGraph", &Builder::virtualGraph); }
  void pipelineStage(const val& outs, const val& v) { annotate(outs, v, "pipelineStage", &Builder::pipelineStage); }
  void executionPhase(const val& outs, const val& v) { annotate(outs, v, "executionPhase", &Builder::executionPhase); }
  /// `v`: a RecomputeType name ("Recompute") or its number.
  void recomputeOutputInBackwardPass(const std::string& id, const val& v) {
    guarded([&] {
      if (typeOf(v) == "string")
        b_->recomputeOutputInBackwardPass(id, enumFromString<RecomputeType>(v.as<std::string>()));
      else
        b_->recomputeOutputInBackwardPass(id, toInt(v, "recomputeOutputInBackwardPass value"));
    });
  }
  val checkpointOutput(const val& ids) {
    return guarded([&] { return jsStrings(b_->checkpointOutput(toStrings(ids))); });
  }
  /// A placement annotation: `scoped()` (the current scope's) when `ids` is undefined, else
  /// `ofNode` of the node making `ids` (an array of its outputs).
  template <typename Scoped, typename OfNode>
  double placement(const val& ids, Scoped scoped, OfNode ofNode) {
    return guarded([&] { return static_cast<double>(ids.isUndefined() ? scoped() : ofNode(toIdSet(ids))); });
  }
  double getVirtualGraph(const val& ids) {
    return placement(
        ids, [&] { return b_->getVirtualGraph(); }, [&](const auto& o) { return b_->getVirtualGraph(o); });
  }
  double getPipelineStage(const val& ids) {
    return placement(
        ids, [&] { return b_->getPipelineStage(); }, [&](const auto& o) { return b_->getPipelineStage(o); });
  }
  double getExecutionPhase(const val& ids) {
    return placement(
        ids, [&] { return b_->getExecutionPhase(); }, [&](const auto& o) { return b_->getExecutionPhase(o); });
  }
  /// The scoped integer attributes (PopART's `with builder.virtualGraph(n):` and the like): set,
  /// read (null when not set) and clear one; the JS layer runs the scope's function between.
  /// An integer, or a list of integers (commGroup's [type, size]).
  void setAttributeInt(const std::string& name, const val& v) {
    guarded([&] {
      if (val::global("Array").call<bool>("isArray", v))
        b_->setAttribute(name, any(std::vector<int64_t>(toInts(v, name + " value"))));
      else
        b_->setAttribute(name, any(static_cast<int64_t>(toInt(v, name + " value"))));
    });
  }
  val getAttributeInt(const std::string& name) {
    return guarded([&] {
      if (!b_->hasAttribute(name)) return val::null();
      const any a = b_->getAttribute(name);
      if (const auto* v = std::any_cast<std::vector<int64_t>>(&a)) return jsShape(*v);
      return val(static_cast<double>(std::any_cast<int64_t>(a)));
    });
  }
  void clearAttribute(const std::string& name) {
    guarded([&] { b_->clearAttribute(name); });
  }
  bool hasVirtualGraph() { return b_->hasVirtualGraph(); }
  bool hasPipelineStage() { return b_->hasPipelineStage(); }
  bool hasExecutionPhase() { return b_->hasExecutionPhase(); }
  void setAvailableMemoryProportion(const std::string& id, float v) {
    guarded([&] { b_->setAvailableMemoryProportion(id, v); });
  }
  /// {opType: priority} (PopART's inplacing preferences).
  void setInplacePreferences(const std::string& id, const val& prefs) {
    guarded([&] {
      std::map<std::string, float> m;
      for (const auto& k : toStrings(val::global("Object").call<val>("keys", prefs)))
        m[k] = toFloat(prefs[k], "setInplacePreferences priority of " + k);
      b_->setInplacePreferences(id, m);
    });
  }
  void setEnableConvDithering(const std::string& id, const val& value) {
    guarded([&] { b_->setEnableConvDithering(id, toInt(value, "setEnableConvDithering value")); });
  }
  void setPartialsType(const std::string& id, const std::string& t) {
    guarded([&] { b_->setPartialsType(id, t); });
  }
  void excludePatterns(const std::string& id, const val& names) {
    guarded([&] { b_->excludePatterns(id, toStrings(names)); });
  }

 private:
  std::shared_ptr<Builder> root_;
  Builder* b_;
};

// ---------------------------------------------------------------- GraphTransformer

/// popart::GraphTransformer over model bytes (a browser has no file paths; index.mjs reads a
/// path with Node's fs and writes external data files).
class GraphTransformerJs {
 public:
  static GraphTransformerJs* create(const val& bytes) {
    return guarded([&] { return new GraphTransformerJs(bytesFrom(bytes)); });
  }
  val getModelProto() {
    return guarded([&] {
      const std::string s = g_.getModelProto();
      return u8Copy(s.data(), s.size());
    });
  }
  /// One of the element type conversions (or removeUnusedInputs / prepareNodesForTraining /
  /// convertAllFixedPointInitializersToConstants) by its C++ name.
  void transform(const std::string& name, bool clip) {
    guarded([&] {
      using GT = GraphTransformer;
      static const std::map<std::string, void (GT::*)()> methods{
          {"removeUnusedInputs", &GT::removeUnusedInputs},
          {"prepareNodesForTraining", &GT::prepareNodesForTraining},
          {"convertFloatsToHalfs", &GT::convertFloatsToHalfs},
          {"convertUINT8ToINT32", &GT::convertUINT8ToINT32},
          {"convertUINT16ToINT32", &GT::convertUINT16ToINT32},
          {"convertINT8ToINT32", &GT::convertINT8ToINT32},
          {"convertINT16ToINT32", &GT::convertINT16ToINT32},
          {"convertDoublesToFloats", &GT::convertDoublesToFloats},
          {"convertDoublesToHalfs", &GT::convertDoublesToHalfs},
          {"convertBFloats16ToFloat32", &GT::convertBFloats16ToFloat32},
          {"convertAllFixedPointInitializersToConstants", &GT::convertAllFixedPointInitializersToConstants},
      };
      if (name == "convertINT64ToINT32") return g_.convertINT64ToINT32(clip);
      auto it = methods.find(name);
      if (it == methods.end()) throw error("GraphTransformer has no method '{}'", name);
      (g_.*(it->second))();
    });
  }
  void convertInitializersToConstants(const val& ids) {
    guarded([&] { g_.convertInitializersToConstants(toStrings(ids)); });
  }
  val saveInitializersExternallyToBytes(const val& ids, const std::string& location) {
    return guarded([&] {
      const std::string s = g_.saveInitializersExternallyToBytes(toStrings(ids), location);
      return u8Copy(s.data(), s.size());
    });
  }
  val externalDataLocations() {
    return guarded([&] { return jsStrings(g_.externalDataLocations()); });
  }
  /// `files`: {location: Uint8Array} of the external data files (read by the JS layer).
  void inlineExternalData(const val& files) {
    guarded([&] {
      std::map<std::string, std::string> m;
      for (const auto& k : toStrings(val::global("Object").call<val>("keys", files))) m[k] = bytesFrom(files[k]);
      g_.inlineExternalData(m);
    });
  }

 private:
  explicit GraphTransformerJs(const std::string& bytes) : g_(bytes) {}
  GraphTransformer g_;
};

}  // namespace
}  // namespace wasm
}  // namespace popart

EMSCRIPTEN_BINDINGS(popart_builder) {
  using namespace emscripten;
  using popart::wasm::BuilderJs;
  using popart::wasm::GraphTransformerJs;
  class_<BuilderJs>("BuilderHandle")
      .class_function("create", &BuilderJs::create, allow_raw_pointers())
      .class_function("createFromOnnxModel", &BuilderJs::createFromOnnxModel, allow_raw_pointers())
      .function("createSubgraphBuilder", &BuilderJs::createSubgraphBuilder, allow_raw_pointers())
      .function("setGraphName", &BuilderJs::setGraphName)
      .function("embedReplicationFactor", &BuilderJs::embedReplicationFactor)
      .function("addInputTensor", &BuilderJs::addInputTensor)
      .function("addUntypedInputTensor", &BuilderJs::addUntypedInputTensor)
      .function("addInputTensorFromParentGraph", &BuilderJs::addInputTensorFromParentGraph)
      .function("addInitializedInputTensor", &BuilderJs::addInitializedInputTensor)
      .function("addInitializedInputTensorWithSettings", &BuilderJs::addInitializedInputTensorWithSettings)
      .function("addInputTensorWithSettings", &BuilderJs::addInputTensorWithSettings)
      .function("addOutputTensor", &BuilderJs::addOutputTensor)
      .function("useOpset", &BuilderJs::useOpset)
      .function("getOnnxOpsetVersion", &BuilderJs::getOnnxOpsetVersion)
      .function("op", &BuilderJs::op)
      .function("graphcore", &BuilderJs::graphcore)
      .function("getModelProto", &BuilderJs::getModelProto)
      .function("saveInitializersExternallyToBytes", &BuilderJs::saveInitializersExternallyToBytes)
      .function("getTensorShape", &BuilderJs::getTensorShape)
      .function("getTensorDtypeString", &BuilderJs::getTensorDtypeString)
      .function("isInitializer", &BuilderJs::isInitializer)
      .function("getInputTensorIds", &BuilderJs::getInputTensorIds)
      .function("getOutputTensorIds", &BuilderJs::getOutputTensorIds)
      .function("getValueTensorIds", &BuilderJs::getValueTensorIds)
      .function("getTrainableTensorIds", &BuilderJs::getTrainableTensorIds)
      .function("pushNameScope", &BuilderJs::pushNameScope)
      .function("popNameScope", &BuilderJs::popNameScope)
      .function("getNameScope", &BuilderJs::getNameScope)
      .function("addNodeAttribute", &BuilderJs::addNodeAttribute)
      .function("nodeHasAttribute", &BuilderJs::nodeHasAttribute)
      .function("getAllNodeAttributeNames", &BuilderJs::getAllNodeAttributeNames)
      .function("virtualGraph", &BuilderJs::virtualGraph)
      .function("pipelineStage", &BuilderJs::pipelineStage)
      .function("executionPhase", &BuilderJs::executionPhase)
      .function("recomputeOutputInBackwardPass", &BuilderJs::recomputeOutputInBackwardPass)
      .function("checkpointOutput", &BuilderJs::checkpointOutput)
      .function("getVirtualGraph", &BuilderJs::getVirtualGraph)
      .function("getExecutionPhase", &BuilderJs::getExecutionPhase)
      .function("getPipelineStage", &BuilderJs::getPipelineStage)
      .function("getNodeAttribute", &BuilderJs::getNodeAttribute)
      .function("removeNodeAttribute", &BuilderJs::removeNodeAttribute)
      .function("setAttributeInt", &BuilderJs::setAttributeInt)
      .function("getAttributeInt", &BuilderJs::getAttributeInt)
      .function("clearAttribute", &BuilderJs::clearAttribute)
      .function("hasVirtualGraph", &BuilderJs::hasVirtualGraph)
      .function("hasPipelineStage", &BuilderJs::hasPipelineStage)
      .function("hasExecutionPhase", &BuilderJs::hasExecutionPhase)
      .function("setAvailableMemoryProportion", &BuilderJs::setAvailableMemoryProportion)
      .function("setInplacePreferences", &BuilderJs::setInplacePreferences)
      .function("setPartialsType", &BuilderJs::setPartialsType)
      .function("setEnableConvDithering", &BuilderJs::setEnableConvDithering)
      .function("excludePatterns", &BuilderJs::excludePatterns);

  class_<GraphTransformerJs>("GraphTransformerHandle")
      .class_function("create", &GraphTransformerJs::create, allow_raw_pointers())
      .function("getModelProto", &GraphTransformerJs::getModelProto)
      .function("transform", &GraphTransformerJs::transform)
      .function("convertInitializersToConstants", &GraphTransformerJs::convertInitializersToConstants)
      .function("saveInitializersExternallyToBytes", &GraphTransformerJs::saveInitializersExternallyToBytes)
      .function("externalDataLocations", &GraphTransformerJs::externalDataLocations)
      .function("inlineExternalData", &GraphTransformerJs::inlineExternalData);
}
