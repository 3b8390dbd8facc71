// libFuzzer harness: the Builder and the other values the JS bindings (wasm/bindings.cpp)
// marshal into, driven by a byte stream decoded into a sequence of calls.
//
// Each call is one the bindings make with values a JS caller chooses: Builder::opsetOp (domain,
// opset version, op type, inputs, number of outputs, attributes of every type code the bindings
// know: i f s ints floats strings dtype t g, input-count bounds), customOp, addInputTensor /
// addInitializedInputTensor (TensorInfo from a dtype string and a shape), addNodeAttribute and the
// node annotations, name scopes, subgraph builders, getModelProto and Builder::createFromOnnxModel;
// AnchorReturnType / DataFlow from strings and numbers, SessionOptions fields, Patterns by name or
// level, devices with options, optimizers from {key: (value, isConst)} maps; then an inference or
// training session on the built model, prepared and run once with small inputs.
//
// Bad values may only raise popart::error (fuzz_common.hpp). Strings and numbers are drawn from
// the names the core knows (op types from the op list, attribute names, modes, pattern and
// optimizer keys), mixed with arbitrary ones.
#include <fuzzer/FuzzedDataProvider.h>

#include <limits>

#include "common/checked_size.hpp"
#include "fuzz_common.hpp"
#include "ir/op_def.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"

using namespace popart;

namespace {

constexpr int kMaxCalls = 48;
constexpr int kMaxSessions = 2;
/// Initializer and tensor-attribute data the harness itself allocates (the Builder copies it a
/// few times): larger shapes are still tried through TensorInfo and addInputTensor.
constexpr int64_t kMaxDataBytes = 64 << 10;

const std::vector<std::string> kDtypes = {"FLOAT",     "FLOAT16", "BFLOAT16", "DOUBLE", "INT8",   "UINT8",    "INT16",
                                          "UINT16",    "INT32",   "UINT32",   "INT64",  "UINT64", "BOOL",     "STRING",
                                          "COMPLEX64", "float32", "float16",  "half",   "int32",  "UNDEFINED"};
const std::vector<std::string> kDomains = {"", "ai.onnx", "ai.graphcore", "internal", "ai.onnx.ml", "com.microsoft"};
const std::vector<std::string> kAttrNames = {"alpha",
                                             "allowzero",
                                             "auto_pad",
                                             "axes",
                                             "axis",
                                             "batch_dims",
                                             "beta",
                                             "bias",
                                             "blocksize",
                                             "broadcast",
                                             "ceil_mode",
                                             "clip",
                                             "coordinate_transformation_mode",
                                             "count_include_pad",
                                             "cubic_coeff_a",
                                             "dilations",
                                             "direction",
                                             "dtype",
                                             "end",
                                             "ends",
                                             "epsilon",
                                             "equation",
                                             "exclude_outside",
                                             "exclusive",
                                             "fmod",
                                             "gamma",
                                             "group",
                                             "hidden_size",
                                             "high",
                                             "ignoreIndex",
                                             "ignore_index",
                                             "is_test",
                                             "k",
                                             "keepdims",
                                             "kernel_shape",
                                             "lambd",
                                             "lambda",
                                             "largest",
                                             "layout",
                                             "linear_before_reset",
                                             "low",
                                             "max",
                                             "mean",
                                             "min",
                                             "mode",
                                             "momentum",
                                             "nearest_mode",
                                             "noop_with_empty_axes",
                                             "num_scan_inputs",
                                             "onesided",
                                             "output_datatype",
                                             "output_shape",
                                             "pads",
                                             "perm",
                                             "ratio",
                                             "reduction",
                                             "reverse",
                                             "scale",
                                             "scale0",
                                             "scale1",
                                             "scales",
                                             "scan_input_axes",
                                             "seed",
                                             "select_last_index",
                                             "shape",
                                             "size",
                                             "sorted",
                                             "spatial",
                                             "split",
                                             "start",
                                             "starts",
                                             "stash_type",
                                             "steps",
                                             "storage_order",
                                             "strides",
                                             "to",
                                             "training_mode",
                                             "transA",
                                             "transB",
                                             "upper",
                                             "value",
                                             "value_float",
                                             "value_floats",
                                             "value_int",
                                             "value_ints",
                                             "value_strings",
                                             "activations",
                                             "activation_alpha",
                                             "activation_beta",
                                             "body",
                                             "then_branch",
                                             "else_branch",
                                             "inputIsLogProbability",
                                             "__ipu_number",
                                             "__pipeline_stage",
                                             "__recompute_output_in_backward_pass",
                                             "__serialize_matmul_factor"};
const std::vector<std::string> kStrings = {"constant",
                                           "reflect",
                                           "edge",
                                           "wrap",
                                           "nearest",
                                           "linear",
                                           "cubic",
                                           "NOTSET",
                                           "SAME_UPPER",
                                           "SAME_LOWER",
                                           "VALID",
                                           "Sum",
                                           "Mean",
                                           "None",
                                           "NoReduction",
                                           "sum",
                                           "mean",
                                           "none",
                                           "DCR",
                                           "CRD",
                                           "forward",
                                           "reverse",
                                           "bidirectional",
                                           "half_pixel",
                                           "asymmetric",
                                           "align_corners",
                                           "pytorch_half_pixel",
                                           "tf_crop_and_resize",
                                           "round_prefer_floor",
                                           "round_prefer_ceil",
                                           "floor",
                                           "ceil",
                                           "LOWER",
                                           "UPPER",
                                           "NONE",
                                           "Tanh",
                                           "Sigmoid",
                                           "Relu",
                                           "Affine",
                                           "LeakyRelu",
                                           "ThresholdedRelu",
                                           "ScaledTanh",
                                           "HardSigmoid",
                                           "Elu",
                                           "Softsign",
                                           "Softplus",
                                           "ij,jk->ik",
                                           "...ii->...i",
                                           "i,i",
                                           "bij,bjk->bik",
                                           "ii",
                                           "i->",
                                           "ab,bc",
                                           "->",
                                           "a...,...a->...",
                                           "FLOAT",
                                           "HALF",
                                           "tanh",
                                           "",
                                           "x"};
const std::vector<std::string> kArts = {"All", "Final", "EveryN", "Sum", "all", ""};
const std::vector<std::string> kDeviceOptions = {
    "numIPUs", "tilesPerIPU", "compileIPUCode", "ipuVersion", "syncPattern", "gatewayMode", "x"};
const std::vector<std::string> kEngineOptions = {"debug.instrument", "debug.retainDebugInformation",
                                                 "target.deterministicWorkers",
                                                 "opt.internalExchangeOptimisationTarget", "x"};

/// Decodes values from the fuzzer's bytes, mostly from the lists the core knows.
class Source {
 public:
  Source(const uint8_t* data, size_t size) : p_(data, size) {}
  bool done() { return p_.remaining_bytes() == 0; }
  uint8_t byte(uint8_t hi) { return p_.ConsumeIntegralInRange<uint8_t>(0, hi); }
  bool flag() { return p_.ConsumeBool(); }
  /// One of `list`, or (about 1 in 16) an arbitrary short string.
  std::string pick(const std::vector<std::string>& list) {
    if (byte(15) == 0) return p_.ConsumeRandomLengthString(12);
    return list[p_.ConsumeIntegralInRange<size_t>(0, list.size() - 1)];
  }
  /// Mostly -3..8; sometimes a boundary value.
  int64_t smallInt() {
    const uint8_t k = byte(31);
    if (k < 28) return static_cast<int64_t>(k % 12) - 3;
    static const int64_t kEdges[] = {std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max(),
                                     int64_t{1} << 31,
                                     -(int64_t{1} << 31),
                                     int64_t{1} << 32,
                                     1000,
                                     -1000,
                                     std::numeric_limits<int32_t>::max()};
    if (k == 28) return kEdges[byte(7)];
    return p_.ConsumeIntegral<int64_t>();
  }
  /// A dimension: mostly 0..5.
  int64_t dim() {
    const uint8_t k = byte(31);
    if (k < 26) return k % 6;
    return smallInt();
  }
  Shape shape() {
    const int rank = byte(15) == 0 ? byte(8) : byte(4);
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(dim());
    return s;
  }
  std::vector<int64_t> ints() {
    std::vector<int64_t> v(byte(6));
    for (auto& x : v) x = smallInt();
    return v;
  }
  float real() {
    const uint8_t k = byte(15);
    if (k < 12) return static_cast<float>(static_cast<int>(k) - 4) * 0.5f;
    static const float kEdges[] = {std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   1e30f,
                                   -1e-30f,
                                   1e-8f};
    if (k == 12) return kEdges[byte(5)];
    return p_.ConsumeFloatingPoint<float>();
  }
  std::vector<float> reals() {
    std::vector<float> v(byte(6));
    for (auto& x : v) x = real();
    return v;
  }
  std::vector<std::string> strings(const std::vector<std::string>& list) {
    std::vector<std::string> v(byte(4));
    for (auto& x : v) x = pick(list);
    return v;
  }
  FuzzedDataProvider& raw() { return p_; }

 private:
  FuzzedDataProvider p_;
};

/// Tensor data the harness owns: small arrays with small values (kept alive while the Builder
/// reads them).
bool makeArray(Source& src, NDArray* out) {
  const TensorInfo info(src.pick(kDtypes), src.shape());  // may throw popart::error: a bad dtype or shape
  const int64_t bytes =
      checkedProduct({info.nelms(), info.dataType() == DataType::STRING ? 32 : info.getDataTypeSize()});
  if (bytes < 0 || bytes > kMaxDataBytes || info.dataType() == DataType::UNDEFINED) return false;
  NDArray a(info);
  if (info.dataType() == DataType::STRING) {
    auto* s = a.dataAs<std::string>();
    for (int64_t i = 0; i < info.nelms(); ++i) s[i] = src.pick(kStrings);
  } else {
    auto* p = static_cast<uint8_t*>(a.data());
    const int64_t size = info.getDataTypeSize();
    // Small values in the low byte: valid for every integer type; a float's low byte gives a tiny
    // denormal or 0, which is fine for shapes and indices.
    for (int64_t i = 0; i < info.nelms(); ++i) p[i * size] = static_cast<uint8_t>(src.smallInt() & 7);
    if (info.dataType() == DataType::FLOAT) {
      auto* f = a.dataAs<float>();
      for (int64_t i = 0; i < info.nelms(); ++i) f[i] = src.real();
    } else if (info.dataType() == DataType::INT64) {
      auto* q = a.dataAs<int64_t>();
      for (int64_t i = 0; i < info.nelms(); ++i) q[i] = src.smallInt();
    }
  }
  *out = std::move(a);
  return true;
}

class Harness {
 public:
  Harness(const uint8_t* data, size_t size) : src_(data, size) {}

  void run() {
    newRoot(Builder::create());
    for (int call = 0; call < kMaxCalls && !src_.done(); ++call) step();
    // Always end with a session on what was built (the main thing a JS caller does).
    if (sessions_ < kMaxSessions) session(false);
  }

 private:
  Builder& cur() { return *stack_.back(); }

  void newRoot(std::unique_ptr<Builder> b) {
    root_ = std::move(b);
    stack_ = {root_.get()};
    subgraphs_.clear();
  }

  TensorId anyId() {
    if (ids_.empty() || src_.byte(15) == 0)
      return src_.byte(3) == 0 ? std::string() : src_.raw().ConsumeRandomLengthString(8);
    return ids_[src_.raw().ConsumeIntegralInRange<size_t>(0, ids_.size() - 1)];
  }
  std::vector<TensorId> someIds(int max) {
    std::vector<TensorId> v(src_.byte(static_cast<uint8_t>(max)));
    for (auto& x : v) x = anyId();
    return v;
  }
  std::set<TensorId> nodeOuts() {
    if (!lastOuts_.empty() && src_.byte(3) != 0) return {lastOuts_.begin(), lastOuts_.end()};
    return {anyId()};
  }
  DebugContext name() {
    if (src_.byte(3) != 0) return {};
    return DebugContext(src_.raw().ConsumeRandomLengthString(10));
  }
  void remember(const std::vector<TensorId>& outs) {
    lastOuts_ = outs;
    for (const auto& o : outs) {
      if (ids_.size() < 256) ids_.push_back(o);
    }
  }

  /// One attribute value of each type code the JS bindings know.
  any attrValue(std::vector<NDArray>& keep) {
    switch (src_.byte(8)) {
      case 0:
        return src_.smallInt();
      case 1:
        return src_.real();
      case 2:
        return src_.pick(kStrings);
      case 3:
        return src_.ints();
      case 4:
        return src_.reals();
      case 5:
        return src_.strings(kStrings);
      case 6:
        return static_cast<int64_t>(onnxDataType(dataTypeFromString(src_.pick(kDtypes))));
      case 7: {
        NDArray a;
        if (!makeArray(src_, &a)) return int64_t{0};
        keep.push_back(std::move(a));
        return ConstVoidData(keep.back().data(), keep.back().info());
      }
      default:
        if (subgraphs_.empty()) return src_.smallInt();
        return static_cast<const Builder*>(
            subgraphs_[src_.raw().ConsumeIntegralInRange<size_t>(0, subgraphs_.size() - 1)]);
    }
  }

  unsigned numOutputs(const OpDef* def) {
    const uint8_t k = src_.byte(31);
    if (def && k < 24) return static_cast<unsigned>(std::max(def->minOutputs, 0) + (k % 2));
    if (k < 30) return k % 4;
    return src_.raw().ConsumeIntegral<unsigned>();
  }

  int opsetVersion(const std::string& domain, const OpDef* def) {
    auto it = versions_.find(domain);
    const uint8_t k = src_.byte(15);
    int v;
    if (it != versions_.end() && k < 12) {
      v = it->second;
    } else if (k < 14) {
      v = def ? std::max(def->sinceOpset, std::min(17, def->sinceOpset + src_.byte(17))) : 1 + src_.byte(17);
    } else {
      v = static_cast<int>(src_.smallInt());
    }
    versions_.emplace(domain, v);
    return v;
  }

  void addOp() {
    const auto& defs = allOpDefs();
    const OpDef& def = defs[src_.raw().ConsumeIntegralInRange<size_t>(0, defs.size() - 1)];
    const std::string domain = src_.byte(15) == 0 ? src_.pick(kDomains) : def.domain;
    const std::string type = src_.byte(31) == 0 ? src_.raw().ConsumeRandomLengthString(10) : def.type;
    const int version = opsetVersion(domain, &def);
    std::vector<TensorId> inputs;
    const int nIn =
        src_.byte(7) == 0
            ? src_.byte(6)
            : def.minInputs +
                  src_.byte(static_cast<uint8_t>(std::min(3, (def.maxInputs < 0 ? 3 : def.maxInputs) - def.minInputs)));
    for (int i = 0; i < nIn; ++i) inputs.push_back(anyId());
    const unsigned nOut = numOutputs(&def);
    std::vector<NDArray> keep;
    std::map<std::string, any> attrs;
    const int nAttrs = src_.byte(4);
    for (int i = 0; i < nAttrs; ++i) attrs[src_.pick(kAttrNames)] = attrValue(keep);
    const int minIn = src_.byte(7) == 0 ? static_cast<int>(src_.smallInt()) : def.minInputs;
    const int maxIn = src_.byte(7) == 0 ? static_cast<int>(src_.smallInt()) : def.maxInputs;
    if (fuzz::verbose()) {
      std::string ins;
      for (const auto& i : inputs) ins += " " + i;
      std::fprintf(stderr, "popart-fuzz: adding %s::%s:%d (%zu attributes) on%s\n", domain.c_str(), type.c_str(),
                   version, attrs.size(), ins.c_str());
    }
    remember(cur().opsetOp(domain, version, type, inputs, nOut, attrs, name(), minIn, maxIn));
  }

  void addCustomOp() {
    const std::string domain = src_.pick(kDomains);
    const std::string type = src_.raw().ConsumeRandomLengthString(10);
    const int version = opsetVersion(domain, nullptr);
    std::vector<NDArray> keep;
    std::map<std::string, any> attrs;
    const int nAttrs = src_.byte(3);
    for (int i = 0; i < nAttrs; ++i) attrs[src_.pick(kAttrNames)] = attrValue(keep);
    const auto inputs = someIds(4);
    if (src_.flag()) {
      remember(cur().customOp({domain, type, 1}, version, inputs, numOutputs(nullptr), attrs, name()));
    } else {
      const auto outs = std::vector<TensorId>(src_.strings(kStrings));
      cur().customOp({domain, type, 1}, version, inputs, outs, attrs, name());
      remember(outs);
    }
  }

  void nodeAttribute() {
    const std::string n = src_.pick(kAttrNames);
    const auto outs = nodeOuts();
    switch (src_.byte(8)) {
      case 0:
        return cur().addNodeAttribute(n, src_.smallInt(), outs);
      case 1:
        return cur().addNodeAttribute(n, src_.ints(), outs);
      case 2:
        return cur().addNodeAttribute(n, src_.real(), outs);
      case 3:
        return cur().addNodeAttribute(n, src_.reals(), outs);
      case 4:
        return cur().addNodeAttribute(n, src_.pick(kStrings), outs);
      case 5:
        return cur().addNodeAttribute(n, src_.strings(kStrings), outs);
      case 6:
        cur().nodeHasAttribute(n, outs);
        cur().getAllNodeAttributeNames(outs);
        return;
      case 7:
        cur().getInt64NodeAttribute(n, outs);
        return;
      default:
        return cur().removeNodeAttribute(n, outs);
    }
  }

  void annotate() {
    const TensorId id = lastOuts_.empty() || src_.flag() ? anyId() : lastOuts_[0];
    switch (src_.byte(7)) {
      case 0:
        return cur().virtualGraph(nodeOuts(), src_.smallInt());
      case 1:
        return cur().pipelineStage(nodeOuts(), src_.smallInt());
      case 2:
        return cur().recomputeOutputInBackwardPass(id, src_.smallInt());
      case 3:
        return cur().setAvailableMemoryProportion(id, src_.real());
      case 4:
        return cur().setPartialsType(id, src_.pick(kStrings));
      case 5:
        return cur().excludePatterns(id, src_.strings(Patterns::getAllPatternNames()));
      case 6:
        return cur().setSerializeMatMul(nodeOuts(),
                                        src_.pick({"input_channels", "output_channels", "reducing_dim", "none"}),
                                        src_.smallInt(), src_.flag());
      default:
        return cur().executionPhase(id, src_.smallInt());
    }
  }

  void introspect() {
    const TensorId id = anyId();
    switch (src_.byte(5)) {
      case 0:
        cur().getTensorShape(id);
        return;
      case 1:
        cur().getTensorDtypeString(id);
        return;
      case 2:
        cur().isInitializer(id);
        cur().getInputTensorIds();
        cur().getOutputTensorIds();
        cur().getValueTensorIds();
        cur().getTrainableTensorIds();
        return;
      case 3:
        cur().getModelProto(true);
        return;
      case 4:
        cur().getNameScope(src_.raw().ConsumeRandomLengthString(8));
        return;
      default:
        cur().getOnnxOpsetVersion();
        return;
    }
  }

  void sessionOption() {
    SessionOptions& o = opts_;
    switch (src_.byte(15)) {
      case 0:
        o.enableGradientAccumulation = src_.flag();
        o.accumulationFactor = src_.byte(7) == 0 ? src_.smallInt() : src_.byte(4);
        return;
      case 1:
        o.enableReplicatedGraphs = src_.flag();
        o.replicatedGraphCount = src_.byte(7) == 0 ? src_.smallInt() : src_.byte(4);
        return;
      case 2:
        o.constantWeights = src_.flag();
        return;
      case 3:
        o.engineOptions[src_.pick(kEngineOptions)] = src_.pick({"true", "false", "1", "0", ""});
        return;
      case 4:
        o.virtualGraphMode = static_cast<VirtualGraphMode>(src_.byte(3));
        o.virtualGraphSplitRatios = src_.reals();
        return;
      case 5:
        o.enablePipelining = src_.flag();
        return;
      case 6:
        o.partialsTypeMatMuls = src_.pick(kStrings);
        return;
      case 7:
        o.enableDistributedReplicatedGraphs = src_.flag();
        o.globalReplicationFactor = src_.smallInt();
        o.globalReplicaOffset = src_.smallInt();
        return;
      case 8:
        o.enableStochasticRounding = src_.flag();
        o.enableFloatingPointChecks = src_.flag();
        o.enableNonStableSoftmax = src_.flag();
        o.enableStableNorm = src_.flag();
        return;
      case 9:
        o.decomposeGradSum = src_.flag();
        o.aliasZeroCopy = src_.flag();
        o.delayVarUpdates = src_.flag();
        o.strictOpVersions = src_.flag();
        return;
      case 10:
        o.accumulationAndReplicationReductionType = static_cast<ReductionType>(src_.byte(2));
        return;
      case 11:
        o.autoRecomputation = static_cast<RecomputationType>(src_.byte(4));
        o.explicitRecomputation = src_.flag();
        return;
      case 12:
        o.kahnTieBreaker = src_.pick({"greedy", "fifo", "random", ""});
        return;
      case 13:
        o.convolutionOptions[src_.pick(kEngineOptions)] = src_.pick(kStrings);
        return;
      default:
        o.enableOutlining = src_.flag();
        o.outlineThreshold = src_.real();
        return;
    }
  }

  void patterns() {
    switch (src_.byte(3)) {
      case 0:
        patterns_ = Patterns(static_cast<PatternsLevel>(src_.byte(3)));
        return;
      case 1:
        patterns_ = Patterns(src_.strings(Patterns::getAllPatternNames()));
        return;
      case 2:
        patterns_.enableInPlace(src_.flag());
        return;
      default:
        patterns_.enablePattern(src_.pick(Patterns::getAllPatternNames()), src_.flag());
        return;
    }
  }

  void device() {
    auto& dm = DeviceManager::createDeviceManager();
    std::map<std::string, std::string> o;
    const int n = src_.byte(2);
    for (int i = 0; i < n; ++i) o[src_.pick(kDeviceOptions)] = std::to_string(src_.smallInt());
    switch (src_.byte(3)) {
      case 0:
        device_ = dm.createCpuDevice();
        return;
      case 1:
        device_ = dm.createIpuModelDevice(o);
        return;
      case 2:
        device_ = dm.createOfflineIPUDevice(o);
        return;
      default:
        device_ = dm.createSimDevice(o);
        return;
    }
  }

  std::map<std::string, std::pair<float, bool>> optimizerParams(const std::vector<std::string>& keys) {
    std::map<std::string, std::pair<float, bool>> m;
    const int n = src_.byte(3);
    for (int i = 0; i < n; ++i) m[src_.pick(keys)] = {src_.real(), src_.flag()};
    return m;
  }

  std::unique_ptr<Optimizer> optimizer() {
    switch (src_.byte(3)) {
      case 0:
        return std::make_unique<ConstSGD>(src_.real(), src_.real(), src_.real());
      case 1:
        return std::make_unique<Adam>(optimizerParams(Adam::getAllowedKeys()), static_cast<AdamMode>(src_.byte(4)));
      case 2:
        return std::make_unique<Adaptive>(optimizerParams(Adaptive::getAllowedKeys()),
                                          static_cast<AdaptiveMode>(src_.byte(3)));
      default: {
        std::vector<ClipNormSettings> clip;
        if (src_.byte(3) == 0) clip.push_back(ClipNormSettings::clipAllWeights(src_.real()));
        return std::make_unique<SGD>(
            optimizerParams(SGD::getAllowedKeys()), clip,
            src_.flag() ? SGDAccumulatorAndMomentum::Combined : SGDAccumulatorAndMomentum::Separate);
      }
    }
  }

  /// A session on the root builder's model: anchors as set (else the outputs, or the last
  /// node's outputs, returned All), prepared and run once.
  void session(bool training) {
    ++sessions_;
    const std::string model = root_->getModelProto();
    AnchorReturnTypeMap anchors = anchors_;
    if (anchors.empty()) {
      auto outs = root_->getOutputTensorIds();
      if (outs.empty()) outs = lastOuts_;
      for (const auto& o : outs) anchors.emplace(o, AnchorReturnType("All"));
    }
    const DataFlow df(bps_, anchors);
    auto dev = device_ ? device_ : DeviceManager::createDeviceManager().createCpuDevice();
    std::unique_ptr<Session> s;
    if (training) {
      const auto opt = optimizer();
      TensorId loss = src_.flag() || lastOuts_.empty() ? anyId() : lastOuts_[0];
      if (src_.byte(3) == 0) {
        L1Loss l1(loss, "l1:0", src_.real(), static_cast<ReductionType>(src_.byte(2)));
        s = TrainingSession::createFromOnnxModel(model, df, {&l1}, *opt, dev, isi_, opts_, patterns_);
      } else {
        s = TrainingSession::createFromOnnxModel(model, df, loss, *opt, dev, isi_, opts_, patterns_);
      }
    } else {
      s = InferenceSession::createFromOnnxModel(model, df, dev, isi_, opts_, patterns_);
    }
    s->prepareDevice();
    s->weightsFromHost();
    fuzz::runWithSmallInputs(*s);
    s->weightsToHost();
    s->getExecutionReport();
  }

  void step() {
    fuzz::guarded("a Builder call", [&] {
      switch (src_.byte(23)) {
        case 0:
        case 1:
          remember({cur().addInputTensor(TensorInfo(src_.pick(kDtypes), src_.shape()), name())});
          return;
        case 2: {
          NDArray a;
          if (makeArray(src_, &a))
            remember({cur().addInitializedInputTensor(ConstVoidData(a.data(), a.info()), name())});
          return;
        }
        case 3:
        case 4:
        case 5:
        case 6:
        case 7:
          return addOp();
        case 8:
          return addCustomOp();
        case 9:
          return nodeAttribute();
        case 10:
          return cur().addOutputTensor(anyId());
        case 11:
          if (src_.flag()) return cur().pushNameScope(src_.raw().ConsumeRandomLengthString(6));
          return cur().popNameScope();
        case 12:
          return annotate();
        case 13:
          return introspect();
        case 14: {
          // A subgraph builder becomes the current one; a second choice returns to its parent.
          if (src_.flag() && stack_.size() < 4) {
            Builder& sub = cur().createSubgraphBuilder();
            stack_.push_back(&sub);
            subgraphs_.push_back(&sub);
          } else if (stack_.size() > 1) {
            stack_.pop_back();
          }
          return;
        }
        case 15:
          switch (src_.byte(2)) {
            case 0:
              remember({cur().addUntypedInputTensor(name())});
              return;
            case 1:
              return cur().addInputTensorFromParentGraph(anyId());
            default:
              return cur().setGraphName(src_.raw().ConsumeRandomLengthString(8));
          }
        case 16: {
          const std::string art = src_.pick(kArts);
          const TensorId id = anyId();
          anchors_.erase(id);
          anchors_.emplace(
              id, src_.flag() ? AnchorReturnType(art, static_cast<int>(src_.smallInt())) : AnchorReturnType(art));
          return;
        }
        case 17:
          bps_ = src_.byte(7) == 0 ? static_cast<int>(src_.smallInt()) : 1 + src_.byte(2);
          (void)DataFlow(bps_, anchors_);
          return;
        case 18:
          return sessionOption();
        case 19:
          return patterns();
        case 20:
          if (src_.flag()) return device();
          isi_.add(anyId(), TensorInfo(src_.pick(kDtypes), src_.shape()));
          return;
        case 21:
          // The model round trip of Builder.createFromOnnxModel (subgraph builders belong to the
          // old root and go with it).
          newRoot(Builder::createFromOnnxModel(root_->getModelProto()));
          return;
        default:
          if (sessions_ >= kMaxSessions) return;
          return session(src_.flag());
      }
    });
  }

  Source src_;
  std::unique_ptr<Builder> root_;
  std::vector<Builder*> stack_;      // the current builder is the last
  std::vector<Builder*> subgraphs_;  // for 'g' attributes
  std::vector<TensorId> ids_;
  std::vector<TensorId> lastOuts_;
  std::map<std::string, int> versions_;
  AnchorReturnTypeMap anchors_;
  int bps_ = 1;
  SessionOptions opts_;
  Patterns patterns_;
  InputShapeInfo isi_;
  std::shared_ptr<DeviceInfo> device_;
  int sessions_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::init();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Harness h(data, size);
  fuzz::guarded("the Builder calls", [&] { h.run(); });
  return 0;
}
