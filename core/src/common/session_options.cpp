// SessionOptions as data (popart/reflection.hpp): one row per field, with its dotted name, its
// type (deduced from the member), its default (read from a default-constructed SessionOptions)
// and its documentation. SessionOptions::set / get / list and every binding read this table;
// tests/unit/reflection_test.cpp checks it against the fields declared in sessionoptions.hpp.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>

#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/reflection.hpp"
#include "popart/sessionoptions.hpp"

namespace popart {
namespace {

std::string describe(const OptionValue& v) {
  return std::string(optionValueKind(v)) + " " + optionValueToString(v);
}

[[noreturn]] void wrongKind(const std::string& name, const char* expected, const OptionValue& v) {
  throw error("SessionOptions.{} must be {}, got {}", name, expected, describe(v));
}

int64_t asInt(const std::string& name, const OptionValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    if (std::isfinite(*d) && *d == std::floor(*d) && std::fabs(*d) < 9.2e18) return static_cast<int64_t>(*d);
  }
  wrongKind(name, "an integer", v);
}

double asReal(const std::string& name, const OptionValue& v) {
  // Infinities are values PopART scripts use (outlineThreshold = -inf outlines everything).
  if (const auto* d = std::get_if<double>(&v); d && !std::isnan(*d)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  wrongKind(name, "a number (not NaN)", v);
}

std::vector<std::string> asStrings(const std::string& name, const OptionValue& v) {
  if (const auto* s = std::get_if<std::vector<std::string>>(&v)) return *s;
  // An empty list arrives from some bindings as an empty list of numbers.
  if (const auto* i = std::get_if<std::vector<int64_t>>(&v); i && i->empty()) return {};
  if (const auto* d = std::get_if<std::vector<double>>(&v); d && d->empty()) return {};
  wrongKind(name, "a list of strings", v);
}

// ---------------------------------------------------------------- conversions by member type

template <typename T, typename = void>
struct Conv;

template <>
struct Conv<bool> {
  static constexpr const char* type = "bool";
  static void from(bool& dst, const std::string& name, const OptionValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) {
      dst = *b;
      return;
    }
    wrongKind(name, "a boolean", v);
  }
  static OptionValue to(bool v) { return v; }
};

template <typename T>
struct Conv<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static constexpr const char* type = "int";
  static void from(T& dst, const std::string& name, const OptionValue& v) {
    const int64_t i = asInt(name, v);
    constexpr bool narrower = static_cast<uint64_t>(std::numeric_limits<T>::max()) <
                              static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        (narrower && i > static_cast<int64_t>(std::numeric_limits<T>::max())))
      throw error("SessionOptions.{} must be an integer from {} to {}, got {}", name,
                  static_cast<int64_t>(std::numeric_limits<T>::min()), std::numeric_limits<T>::max(), i);
    dst = static_cast<T>(i);
  }
  static OptionValue to(T v) { return static_cast<int64_t>(v); }
};

template <typename T>
struct Conv<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static constexpr const char* type = "float";
  static void from(T& dst, const std::string& name, const OptionValue& v) { dst = static_cast<T>(asReal(name, v)); }
  static OptionValue to(T v) { return static_cast<double>(v); }
};

template <>
struct Conv<std::string> {
  static constexpr const char* type = "string";
  static void from(std::string& dst, const std::string& name, const OptionValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) {
      dst = *s;
      return;
    }
    wrongKind(name, "a string", v);
  }
  static OptionValue to(const std::string& v) { return v; }
};

template <typename E>
struct Conv<E, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr const char* type = "enum";
  static void from(E& dst, const std::string& name, const OptionValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) {
      try {
        dst = enumFromString<E>(*s);
      } catch (const error& e) {
        throw error("SessionOptions.{}: {}", name, e.what());
      }
      return;
    }
    wrongKind(name, (std::string("a ") + EnumTraits<E>::name() + " name").c_str(), v);
  }
  static OptionValue to(E v) { return enumToString(v); }
};

template <>
struct Conv<std::map<std::string, std::string>> {
  static constexpr const char* type = "map";
  static void from(std::map<std::string, std::string>& dst, const std::string& name, const OptionValue& v) {
    if (const auto* m = std::get_if<std::map<std::string, std::string>>(&v)) {
      dst = *m;
      return;
    }
    wrongKind(name, "a map of strings", v);
  }
  static OptionValue to(const std::map<std::string, std::string>& v) { return v; }
};

template <>
struct Conv<std::map<TensorId, unsigned>> {
  static constexpr const char* type = "intmap";  // held as decimal strings in an OptionValue
  static void from(std::map<TensorId, unsigned>& dst, const std::string& name, const OptionValue& v) {
    const auto* m = std::get_if<std::map<std::string, std::string>>(&v);
    if (!m) wrongKind(name, "a map of tensor ids to depths", v);
    std::map<TensorId, unsigned> out;
    for (const auto& kv : *m) {
      char* end = nullptr;
      const unsigned long d = std::strtoul(kv.second.c_str(), &end, 10);
      if (kv.second.empty() || *end || d < 1 || d > 1000000)
        throw error("SessionOptions.{}['{}'] must be a buffering depth >= 1, got '{}'", name, kv.first, kv.second);
      out[kv.first] = static_cast<unsigned>(d);
    }
    dst = std::move(out);
  }
  static OptionValue to(const std::map<TensorId, unsigned>& v) {
    std::map<std::string, std::string> m;
    for (const auto& kv : v) m[kv.first] = std::to_string(kv.second);
    return m;
  }
};

template <>
struct Conv<std::vector<float>> {
  static constexpr const char* type = "floats";
  static void from(std::vector<float>& dst, const std::string& name, const OptionValue& v) {
    if (const auto* d = std::get_if<std::vector<double>>(&v)) {
      dst.assign(d->begin(), d->end());
      return;
    }
    if (const auto* i = std::get_if<std::vector<int64_t>>(&v)) {
      dst.assign(i->begin(), i->end());
      return;
    }
    wrongKind(name, "a list of numbers", v);
  }
  static OptionValue to(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }
};

template <>
struct Conv<std::vector<int>> {
  static constexpr const char* type = "ints";
  static void from(std::vector<int>& dst, const std::string& name, const OptionValue& v) {
    std::vector<int> out;
    if (const auto* i = std::get_if<std::vector<int64_t>>(&v)) {
      for (int64_t x : *i) {
        int y = 0;
        Conv<int>::from(y, name, x);
        out.push_back(y);
      }
    } else if (!std::holds_alternative<std::vector<double>>(v) || !std::get<std::vector<double>>(v).empty()) {
      wrongKind(name, "a list of integers", v);
    }
    dst = std::move(out);
  }
  static OptionValue to(const std::vector<int>& v) { return std::vector<int64_t>(v.begin(), v.end()); }
};

template <>
struct Conv<std::vector<std::string>> {
  static constexpr const char* type = "strings";
  static void from(std::vector<std::string>& dst, const std::string& name, const OptionValue& v) {
    dst = asStrings(name, v);
  }
  static OptionValue to(const std::vector<std::string>& v) { return v; }
};

template <>
struct Conv<std::set<std::string>> {
  static constexpr const char* type = "strings";
  static void from(std::set<std::string>& dst, const std::string& name, const OptionValue& v) {
    const auto s = asStrings(name, v);
    dst = std::set<std::string>(s.begin(), s.end());
  }
  static OptionValue to(const std::set<std::string>& v) { return std::vector<std::string>(v.begin(), v.end()); }
};

template <typename E>
struct Conv<std::set<E>, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr const char* type = "enums";
  static void from(std::set<E>& dst, const std::string& name, const OptionValue& v) {
    std::set<E> out;
    for (const auto& s : asStrings(name, v)) {
      E e{};
      Conv<E>::from(e, name, s);
      out.insert(e);
    }
    dst = std::move(out);
  }
  static OptionValue to(const std::set<E>& v) {
    std::vector<std::string> out;
    for (E e : v) out.push_back(enumToString(e));
    return out;
  }
};

/// A CommGroup (a TensorLocation's shardingDomain): PopART's [CommGroupType, replicaGroupSize] pair
/// (the bindings turn their CommGroup objects into it).
template <>
struct Conv<CommGroup> {
  static constexpr const char* type = "commGroup";
  static void from(CommGroup& dst, const std::string& name, const OptionValue& v) {
    const auto* p = std::get_if<std::vector<int64_t>>(&v);
    if (!p || p->size() != 2) wrongKind(name, "a CommGroup (or [CommGroupType, replicaGroupSize])", v);
    const int64_t t = (*p)[0], k = (*p)[1];
    if (t < 0 || t >= static_cast<int64_t>(CommGroupType::N) || k < 0 || k > std::numeric_limits<int32_t>::max())
      throw error(
          "SessionOptions.{} must be a CommGroup: [CommGroupType (0: All, 1: Consecutive, 2: Orthogonal, 3: "
          "Ungrouped), replicaGroupSize >= 0], got [{}, {}]",
          name, t, k);
    dst = CommGroup(static_cast<CommGroupType>(t), static_cast<unsigned>(k));
  }
  static OptionValue to(const CommGroup& v) {
    return std::vector<int64_t>{static_cast<int64_t>(v.type), static_cast<int64_t>(v.replicaGroupSize)};
  }
};

/// A callback field (compilationProgressLogger): the table holds whether it is set; the function
/// itself is set with SessionOptions::setCallback.
using ProgressCallback = CompilationProgressLogger;
template <>
struct Conv<ProgressCallback> {
  static constexpr const char* type = "callback";
  static void from(ProgressCallback& dst, const std::string& name, const OptionValue& v) {
    if (const auto* b = std::get_if<bool>(&v); b && !*b) {
      dst = nullptr;
      return;
    }
    wrongKind(name, "a function (progress, total), set with SessionOptions::setCallback (false clears it)", v);
  }
  static OptionValue to(const ProgressCallback& v) { return static_cast<bool>(v); }
};

template <typename T>
const char* enumNameOf() {
  if constexpr (std::is_enum_v<T>) {
    return EnumTraits<T>::name();
  } else {
    return "";
  }
}
template <typename T>
struct EnumOfSet {
  static const char* name() { return ""; }
};
template <typename E>
struct EnumOfSet<std::set<E>> {
  static const char* name() { return enumNameOf<E>(); }
};

// ---------------------------------------------------------------- the table

struct Field {
  OptionInfo info;
  const char* aliasOf = nullptr;  ///< a deprecated alias: the field's own name
  std::function<void(SessionOptions&, const OptionValue&)> set;
  std::function<OptionValue(const SessionOptions&)> get;
  std::function<void(SessionOptions&, ProgressCallback)> setCallback;  ///< a "callback" field's
};

// One instantiation per member type (not per field): the accessor is a plain function pointer.
template <typename T>
Field field(const char* name, const char* doc, T& (*ref)(SessionOptions&)) {
  Field f;
  f.info.name = name;
  f.info.type = Conv<T>::type;
  f.info.enumName = std::is_enum_v<T> ? enumNameOf<T>() : EnumOfSet<T>::name();
  f.info.doc = doc;
  const std::string n = name;
  f.set = [ref, n](SessionOptions& o, const OptionValue& v) {
    T tmp = ref(o);
    Conv<T>::from(tmp, n, v);
    ref(o) = std::move(tmp);
  };
  f.get = [ref](const SessionOptions& o) { return Conv<T>::to(ref(const_cast<SessionOptions&>(o))); };
  if constexpr (std::is_same_v<T, ProgressCallback>)
    f.setCallback = [ref](SessionOptions& o, ProgressCallback fn) { ref(o) = std::move(fn); };
  static const SessionOptions defaults;
  f.info.defaultValue = f.get(defaults);
  return f;
}

// F(path, doc): the member at `path` (dotted for nested settings) and its documentation.
#define F(path, doc)                                                   \
  field<std::decay_t<decltype(std::declval<SessionOptions&>().path)>>( \
      #path, doc, +[](SessionOptions & o) -> auto& { return o.path; })
// A(alias, path): PopART's deprecated second name of the field at `path` (reads and writes it;
// setting it logs PopART's deprecation warning).
#define A(alias, path)                                                                                                \
  deprecatedAlias(field<std::decay_t<decltype(std::declval<SessionOptions&>().path)>>(                                \
                      #alias, "Deprecated alias of " #path ".", +[](SessionOptions & o) -> auto& { return o.path; }), \
                  #path)

Field deprecatedAlias(Field f, const char* path) {
  f.aliasOf = path;
  return f;
}

const std::vector<Field>& fields() {
  static const std::vector<Field> table{
      // Training: gradient accumulation and replication.
      F(enableGradientAccumulation, "Accumulate accumulationFactor micro-batches per weight update (training)."),
      F(accumulationFactor, "Micro-batches per weight update when gradient accumulation is enabled."),
      F(enableReplicatedGraphs, "Data-parallel local replicas."),
      F(replicatedGraphCount, "The number of local replicas."),
      F(enableDistributedReplicatedGraphs, "Replication over several processes."),
      F(globalReplicationFactor, "Replicas over all processes."),
      F(globalReplicaOffset, "This process's first replica."),
      F(accumulationAndReplicationReductionType, "Sum or Mean of the gradients over accumulation and replicas."),
      F(meanAccumulationAndReplicationReductionStrategy, "When a Mean reduction divides: Post or Running."),
      // Model parallelism.
      F(virtualGraphMode, "Op placement on IPUs: Off, Manual (annotations), Auto, ExecutionPhases."),
      F(virtualGraphSplitRatios, "Auto placement: the share of the graph on each IPU."),
      F(enablePipelining, "Pipeline the virtual graphs (needs virtualGraphMode other than Off)."),
      F(executionPhaseSettings.phases, "Execution phases (0: off)."),
      F(executionPhaseSettings.stages, "Stages per phase."),
      F(executionPhaseSettings.weightIOSchedule, "When weights of a phase are loaded."),
      F(executionPhaseSettings.activationIOSchedule, "When activations of a phase are loaded."),
      F(executionPhaseSettings.optimizerStateIOSchedule, "When optimizer state of a phase is loaded."),
      F(executionPhaseSettings.accumulatorIOSchedule, "When accumulators of a phase are loaded."),
      F(executionPhaseSettings.schedule, "How execution phases are scheduled."),
      F(batchSerializationSettings.factor, "Split ops along the batch dimension into this many parts (0: off)."),
      F(batchSerializationSettings.concatOnVirtualGraphChange, "Concatenate batches where the IPU changes."),
      F(batchSerializationSettings.concatOnExecutionPhaseChange, "Concatenate batches where the phase changes."),
      F(batchSerializationSettings.concatOnPipelineStageChange, "Concatenate batches where the stage changes."),
      F(batchSerializationSettings.transformContext, "Where batch serialization applies."),
      F(batchSerializationSettings.method, "How batches are serialized."),
      F(batchSerializationSettings.batchSchedule, "How serialized batches are scheduled."),
      F(accumulateOuterFragmentSettings.schedule, "How the accumulate outer fragment is scheduled."),
      F(accumulateOuterFragmentSettings.excludedVirtualGraphs, "IPUs left out of the outer fragment schedule."),
      // Recomputation and outlining.
      F(autoRecomputation, "Which activations are recomputed in the backward pass."),
      F(explicitRecomputation, "Recompute with cloned ops rather than implicitly."),
      F(enableOutlining, "Extract repeated subgraphs into shared functions."),
      F(enableOutliningCopyCostPruning, "Outlining: count the copies of outlined sections in the cost model."),
      F(useLoopCandidateCreator, "Outlining: let Poplar create the tensors of loop-carried inputs."),
      F(enableConstantFoldingOfMultipleConsumers,
        "Fold a constant expression read by more than one op (false: it stays an op, computed at run time)."),
      F(throwIfLog2ScaleTensorNotInRange,
        "Assert at run time that the log2 scale of the FLOAT8 pow2-scaled ops is in [-32, 32)."),
      F(outlineThreshold, "The smallest subgraph worth outlining."),
      F(outlineSequenceBreakCost, "The cost of breaking a sequence when outlining."),
      F(subgraphCopyingStrategy, "When subgraph inputs and outputs are copied."),
      F(autodiffSettings.stitchStrategy, "How backward graphs get the forward values they need."),
      F(explicitPipelining, "Pipelining with explicit IR (deprecated in PopART)."),
      F(createImplicitPipeliningFwdOnlyProgram, "A forward-only program for implicit pipelining (deprecated)."),
      F(stashAllTensorsInferencePipeline, "Inference pipelining: stash every tensor crossing stages."),
      // Weights and numerics.
      F(constantWeights, "Inference: weights are constants (resetHostWeights and writeWeights are refused)."),
      F(enableStochasticRounding, "Stochastic rounding of float results."),
      F(enableFloatingPointChecks, "The first NaN or infinity an op produces is an error naming the op."),
      F(enableNonStableSoftmax, "Softmax without subtracting the maximum."),
      F(enableStableNorm, "Two-pass mean and variance in normalizations."),
      F(partialsTypeMatMuls, "Partials type of matmuls: \"float\" or \"half\"."),
      F(enableFullyConnectedPass, "Plan matmuls as fully connected layers."),
      F(enableSerializedMatmuls, "Allow serialized matmuls."),
      F(decomposeGradSum, "Decompose gradient sums into additions."),
      F(aliasZeroCopy, "Alias buffers instead of copying where possible."),
      F(delayVarUpdates, "Schedule weight updates as late as possible."),
      F(scheduleNonWeightUpdateGradientConsumersEarly,
        "With delayVarUpdates: schedule gradient consumers that are not weight updates early."),
      F(enableExplicitMainLoops, "Explicit main loops in the IR."),
      F(useHostCopyOps, "Host copies as ops in the IR."),
      F(strictOpVersions, "An op version the runtime does not know is an error."),
      F(mergeVarUpdate, "How weight updates are merged."),
      F(mergeVarUpdateMemThreshold, "Memory threshold for merged weight updates (bytes)."),
      F(looseThresholdAtPeak, "Memory threshold at the peak for AutoLoose merging (bytes)."),
      F(automaticLossScalingSettings.enabled, "Dynamic loss scaling (needs a non-const lossScaling)."),
      F(automaticLossScalingSettings.toTrackTensors, "Automatic loss scaling: the tensors to track."),
      F(automaticLossScalingSettings.binEdgeLocation, "Automatic loss scaling: histogram bin edge."),
      F(automaticLossScalingSettings.thresholdUpperCountProportion,
        "Automatic loss scaling: the share of gradients allowed in the upper bin."),
      F(automaticLossScalingSettings.updatePeriod, "Automatic loss scaling: steps between updates."),
      F(automaticLossScalingSettings.gradientTensorTrackingMethod, "Automatic loss scaling: tracked gradients."),
      F(ensureFp32LossScaleTensor, "An fp32 loss scale tensor in fp16 models."),
      F(groupNormStridedChannelGrouping, "GroupNorm's fast strided channel grouping (IPU only)."),
      F(enableSupportedDataTypeCasting, "Cast INT64/UINT64 to 32 bits when lowering to Poplar."),
      F(enableInplaceAmbiguityChecking, "Check the graph for ambiguous in-place updates."),
      F(replicatedCollectivesSettings.prepareScheduleForMergingCollectives,
        "Schedule mergeable collectives next to each other."),
      F(replicatedCollectivesSettings.mergeAllReduceCollectives, "Merge all-reduces that can run together."),
      F(_enableRngStateManagement, "PopART's internal switch for RNG state management."),
      F(enableLoadAndOffloadRNGState, "Allow the device RNG state to be read and written from the host."),
      // Streams and data.
      F(syntheticDataMode, "Generated data instead of host streams: Off, Zeros, RandomNormal, RandomUniform."),
      F(enablePrefetchDatastreams, "Prefetch input streams."),
      F(defaultBufferingDepth, "Stream buffering depth."),
      F(bufferingDepthMap, "Stream buffering depth per tensor."),
      F(rearrangeAnchorsOnHost, "Re-lay out anchors on the host."),
      F(rearrangeStreamsOnHost, "Re-lay out input streams on the host."),
      F(disableGradAccumulationTensorStreams, "Do not stream gradient accumulators to the host."),
      F(disableOptimizerStateTensorStreams, "Do not stream optimizer state to the host."),
      F(numIOTiles, "IO tiles for overlapped exchange."),
      F(groupHostSync, "Group the host streams at the start and end of a step."),
      F(enableMergeExchange, "Merge remote and host IO operations."),
      F(updatableNamedBuffers, "Named buffers the host may update between runs."),
      A(defaultPrefetchBufferingDepth, defaultBufferingDepth),
      A(prefetchBufferingDepthMap, bufferingDepthMap),
      // Tensor locations.
      F(activationTensorLocationSettings.location.storage,
        "Activations: OnChip or OffChip (no effect here: tensors live in host memory)."),
      F(activationTensorLocationSettings.location.loadTileSet,
        "Activations: the tiles loads go through (no effect here)."),
      F(activationTensorLocationSettings.location.storageTileSet,
        "Activations: the tiles that store them (no effect here)."),
      F(activationTensorLocationSettings.location.replicatedTensorSharding,
        "Activations: sharded over replicas (no effect here)."),
      F(activationTensorLocationSettings.location.shardingDomain,
        "Activations: the replicas a sharded tensor is split over (no effect here: not sharded)."),
      F(activationTensorLocationSettings.minElementsForOffChip, "Activations: smallest tensor stored off chip."),
      F(activationTensorLocationSettings.minElementsForReplicatedTensorSharding,
        "Activations: smallest tensor sharded over replicas."),
      F(weightTensorLocationSettings.location.storage,
        "Weights: OnChip or OffChip (no effect here: tensors live in host memory)."),
      F(weightTensorLocationSettings.location.loadTileSet, "Weights: the tiles loads go through (no effect here)."),
      F(weightTensorLocationSettings.location.storageTileSet, "Weights: the tiles that store them (no effect here)."),
      F(weightTensorLocationSettings.location.replicatedTensorSharding,
        "Weights: On shards the update of each weight of at least minElementsForReplicatedTensorSharding elements "
        "(and its optimizer state) over the replicas in replicated training; the weight itself stays whole here."),
      F(weightTensorLocationSettings.location.shardingDomain,
        "Weights: the replicas a sharded tensor is split over (a CommGroup: All, or Consecutive groups)."),
      F(weightTensorLocationSettings.minElementsForOffChip, "Weights: smallest tensor stored off chip."),
      F(weightTensorLocationSettings.minElementsForReplicatedTensorSharding,
        "Weights: smallest tensor sharded over replicas."),
      F(optimizerStateTensorLocationSettings.location.storage,
        "Optimizer state: OnChip or OffChip (no effect here: tensors live in host memory)."),
      F(optimizerStateTensorLocationSettings.location.loadTileSet,
        "Optimizer state: the tiles loads go through (no effect here)."),
      F(optimizerStateTensorLocationSettings.location.storageTileSet,
        "Optimizer state: the tiles that store them (no effect here)."),
      F(optimizerStateTensorLocationSettings.location.replicatedTensorSharding,
        "Optimizer state: On splits the optimizer state of each weight of at least "
        "minElementsForReplicatedTensorSharding elements over the replicas in replicated training; each replica "
        "updates its shard."),
      F(optimizerStateTensorLocationSettings.location.shardingDomain,
        "Optimizer state: the replicas a sharded tensor is split over (a CommGroup: All, or Consecutive groups)."),
      F(optimizerStateTensorLocationSettings.minElementsForOffChip,
        "Optimizer state: smallest tensor stored off chip."),
      F(optimizerStateTensorLocationSettings.minElementsForReplicatedTensorSharding,
        "Optimizer state: smallest tensor sharded over replicas."),
      F(accumulatorTensorLocationSettings.location.storage,
        "Accumulators: OnChip or OffChip (no effect here: tensors live in host memory)."),
      F(accumulatorTensorLocationSettings.location.loadTileSet,
        "Accumulators: the tiles loads go through (no effect here)."),
      F(accumulatorTensorLocationSettings.location.storageTileSet,
        "Accumulators: the tiles that store them (no effect here)."),
      F(accumulatorTensorLocationSettings.location.replicatedTensorSharding,
        "Accumulators: sharded over replicas (no effect here: accumulators stay whole)."),
      F(accumulatorTensorLocationSettings.location.shardingDomain,
        "Accumulators: the replicas a sharded tensor is split over (no effect here: not sharded)."),
      F(accumulatorTensorLocationSettings.minElementsForOffChip, "Accumulators: smallest tensor stored off chip."),
      F(accumulatorTensorLocationSettings.minElementsForReplicatedTensorSharding,
        "Accumulators: smallest tensor sharded over replicas."),
      // Instrumentation, reports, caching and debugging.
      F(instrumentWithHardwareCycleCounter, "Count cycles for getCycleCount."),
      F(hardwareInstrumentations, "Where cycles are counted: Outer, Inner."),
      F(enableEngineCaching, "Cache compiled executables in cachePath."),
      F(cachePath, "Where executables are cached."),
      F(enableVariablesCaching, "Cache the variables with the executable."),
      F(compileEngine, "false: build the graph but do not compile it."),
      F(logDir, "Directory for logs and .dot files."),
      F(dotChecks, "Where .dot graphs are written: Fwd0, Fwd1, Bwd0, PreAlias, MainLoops, Final, All."),
      F(firstDotOp, "First op written to .dot graphs."),
      F(finalDotOp, "Last op written to .dot graphs."),
      F(dotOpNames, "Op names in .dot graphs."),
      F(separateCallOpPdfs, "One .dot/PDF per subgraph."),
      F(exportPoplarComputationGraph, "Export the Poplar computation graph."),
      F(exportPoplarVertexGraph, "Export the Poplar vertex graph."),
      F(opxAliasChecking, "Check the IR's aliasing against the lowered Poplar tensors."),
      F(opxModifyChecking, "Check the IR's modifications against the lowered Poplar tensors."),
      F(compilationProgressTotal, "Progress ticks until compilation completes."),
      F(compilationProgressLogger,
        "A function (progress, total) told how far preparation is: (0, total) at session creation, (total, total) "
        "once prepareDevice has compiled."),
      F(timeLimitScheduler, "Scheduler time limit (seconds)."),
      F(swapLimitScheduler, "Scheduler swap limit."),
      F(kahnTieBreaker, "Scheduler tie breaker: greedy, fifo or random."),
      F(serializedPoprithmsShiftGraphsDir, "Directory the scheduler's Poprithms graphs are written to."),
      A(serializedPoprithmsAnnealGraphsDir, serializedPoprithmsShiftGraphsDir),
      F(transitiveClosureOptimizationThreshold, "Largest graph the scheduler's transitive closure pass runs on."),
      F(developerSettings.timePartitionLoggerThresholdPercentage, "Smallest share of time a logged scope takes."),
      F(experimentalSettings.createHostTransferableTensorWithOffset,
        "Spread host-transferable tensors over tiles by offset."),
      // Backend options.
      F(engineOptions, "Engine options (see engineOptionDefs; unknown keys: \"Unrecognised option 'x'\")."),
      F(convolutionOptions, "Convolution planning options."),
      F(lstmOptions, "LSTM options."),
      F(matmulOptions, "Matmul planning options."),
      F(reportOptions, "Report options (e.g. showExecutionSteps)."),
      F(gclOptions, "Collective communication options."),
      F(tensorLocationSettingsOverride, "Tensor location per tensor id."),
      F(customCodelets, "Custom codelet files added to the Poplar graph."),
      F(customCodeletCompileFlags, "Compile flags of custom codelets (e.g. \"-g\")."),
  };
  return table;
}
#undef F
#undef A

const Field& find(const std::string& name) {
  for (const auto& f : fields()) {
    if (f.info.name == name) return f;
  }
  throw error("SessionOptions has no option '{}'", name);
}

}  // namespace

void SessionOptions::set(const std::string& name, const OptionValue& value) {
  const Field& f = find(name);
  if (f.aliasOf)
    logging::session::warn(
        "{} has been deprecated and will be removed in a future release. Please use the alias {} instead.", name,
        f.aliasOf);
  f.set(*this, value);
}

void SessionOptions::setCallback(const std::string& name, CompilationProgressLogger fn) {
  const Field& f = find(name);
  if (!f.setCallback) throw error("SessionOptions.{} is a {} option, not a function", name, f.info.type);
  f.setCallback(*this, std::move(fn));
}

OptionValue SessionOptions::get(const std::string& name) const {
  return find(name).get(*this);
}

const std::vector<OptionInfo>& SessionOptions::list() {
  static const std::vector<OptionInfo> infos = [] {
    std::vector<OptionInfo> v;
    for (const auto& f : fields()) v.push_back(f.info);
    return v;
  }();
  return infos;
}

// ---------------------------------------------------------------- OptionValue

const char* optionValueKind(const OptionValue& v) {
  static const char* kinds[] = {"bool", "int", "float", "string", "ints", "floats", "strings", "map", "intss"};
  return kinds[v.index()];
}

namespace {
template <typename L>
void writeList(std::ostream& os, const L& l) {
  os << '[';
  for (size_t i = 0; i < l.size(); ++i) os << (i ? ", " : "") << l[i];
  os << ']';
}
}  // namespace

std::string optionValueToString(const OptionValue& v) {
  std::ostringstream os;
  if (const auto* b = std::get_if<bool>(&v)) {
    os << (*b ? "true" : "false");
  } else if (const auto* i = std::get_if<int64_t>(&v)) {
    os << *i;
  } else if (const auto* d = std::get_if<double>(&v)) {
    os << *d;
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    os << '\'' << *s << '\'';
  } else if (const auto* li = std::get_if<std::vector<int64_t>>(&v)) {
    writeList(os, *li);
  } else if (const auto* ld = std::get_if<std::vector<double>>(&v)) {
    writeList(os, *ld);
  } else if (const auto* ls = std::get_if<std::vector<std::string>>(&v)) {
    os << '[';
    for (size_t k = 0; k < ls->size(); ++k) os << (k ? ", " : "") << '\'' << (*ls)[k] << '\'';
    os << ']';
  } else if (const auto* m = std::get_if<std::map<std::string, std::string>>(&v)) {
    os << '{';
    bool first = true;
    for (const auto& kv : *m) {
      os << (first ? "" : ", ") << kv.first << ": " << kv.second;
      first = false;
    }
    os << '}';
  } else if (const auto* ll = std::get_if<std::vector<std::vector<int64_t>>>(&v)) {
    os << '[';
    for (size_t k = 0; k < ll->size(); ++k) {
      os << (k ? ", " : "");
      writeList(os, (*ll)[k]);
    }
    os << ']';
  }
  return os.str();
}

}  // namespace popart

namespace popart {

namespace {

/// PopART's class name of the settings at `prefix`: the four *TensorLocationSettings share
/// TensorLocationSettings, their `location` is a TensorLocation, the others are their field's
/// name capitalised (executionPhaseSettings: ExecutionPhaseSettings).
std::string settingsStructName(const std::string& prefix) {
  const std::string last = prefix.substr(prefix.rfind('.') == std::string::npos ? 0 : prefix.rfind('.') + 1);
  const std::string tls = "TensorLocationSettings";
  if (last.size() >= tls.size() && last.compare(last.size() - tls.size(), tls.size(), tls) == 0) return tls;
  if (last == "location") return "TensorLocation";
  std::string name = last;
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

}  // namespace

const std::vector<SettingsStructInfo>& settingsStructList() {
  static const std::vector<SettingsStructInfo> list = [] {
    // Every nested path, in the table's order ("weightTensorLocationSettings",
    // "weightTensorLocationSettings.location", ...).
    std::vector<std::string> prefixes;
    for (const auto& o : SessionOptions::list())
      for (size_t dot = o.name.find('.'); dot != std::string::npos; dot = o.name.find('.', dot + 1))
        if (std::find(prefixes.begin(), prefixes.end(), o.name.substr(0, dot)) == prefixes.end())
          prefixes.push_back(o.name.substr(0, dot));
    std::vector<SettingsStructInfo> v;
    for (const auto& prefix : prefixes) {
      const std::string name = settingsStructName(prefix);
      auto known = std::find_if(v.begin(), v.end(), [&](const SettingsStructInfo& s) { return s.name == name; });
      if (known != v.end()) {
        known->paths.push_back(prefix);
        continue;
      }
      SettingsStructInfo s{name, {prefix}, {}, {}, {}, {}};
      for (const auto& o : SessionOptions::list()) {
        if (o.name.rfind(prefix + ".", 0) != 0) continue;
        const std::string rest = o.name.substr(prefix.size() + 1);
        const std::string field = rest.substr(0, rest.find('.'));
        if (std::find(s.fields.begin(), s.fields.end(), field) != s.fields.end()) continue;
        s.fields.push_back(field);
        s.fieldStructs.push_back(rest.find('.') == std::string::npos ? "" : settingsStructName(prefix + "." + field));
      }
      // PopART's TensorLocation(storage), (storage, replicatedTensorSharding), (storage,
      // replicatedTensorSharding, shardingDomain) and the full form.
      if (name == "TensorLocation")
        s.forms = {{"storage"},
                   {"storage", "replicatedTensorSharding"},
                   {"storage", "replicatedTensorSharding", "shardingDomain"}};
      // PopART's TensorLocationSettings(storage, ...): the location's storage.
      if (name == "TensorLocationSettings") s.keywordAliases = {{"storage", "location"}};
      s.forms.push_back(s.fields);
      v.push_back(std::move(s));
    }
    return v;
  }();
  return list;
}

std::vector<SettingsArgument> bindSettingsArguments(const std::string& name, std::size_t positional,
                                                    const std::vector<std::string>& keywords) {
  const auto& list = settingsStructList();
  auto info = std::find_if(list.begin(), list.end(), [&](const SettingsStructInfo& s) { return s.name == name; });
  if (info == list.end()) throw error("'{}' is not a settings class of SessionOptions", name);
  auto argument = [&](const std::string& field) {
    const size_t i =
        static_cast<size_t>(std::find(info->fields.begin(), info->fields.end(), field) - info->fields.begin());
    return SettingsArgument{field, info->fieldStructs.at(i)};
  };
  std::string fields;
  for (const auto& f : info->fields) fields += (fields.empty() ? "" : ", ") + f;
  std::vector<SettingsArgument> out;
  if (positional > 0) {
    auto form = std::find_if(info->forms.begin(), info->forms.end(),
                             [&](const std::vector<std::string>& f) { return f.size() >= positional; });
    if (form == info->forms.end())
      throw error("{} takes at most {} positional arguments ({}), got {}", name, info->fields.size(), fields,
                  positional);
    for (size_t i = 0; i < positional; ++i) out.push_back(argument((*form)[i]));
  }
  for (const auto& k : keywords) {
    auto alias = info->keywordAliases.find(k);
    const std::string field = alias == info->keywordAliases.end() ? k : alias->second;
    if (std::find(info->fields.begin(), info->fields.end(), field) == info->fields.end())
      throw error("{} has no field '{}' (fields: {})", name, k, fields);
    out.push_back(argument(field));
  }
  return out;
}

}  // namespace popart
