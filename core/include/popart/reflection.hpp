// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file reflection.hpp
/// The core's tables as data, so that every face of the API (C++, the JS package, Python, the
/// CLI, the browser page) reads the same names, types, defaults and documentation instead of
/// keeping its own copy:
///
/// - every public enum's name and value names (`allEnums()`, `enumToString`, `enumFromString`);
/// - every `SessionOptions` field (`SessionOptions::list()`, `set(name, value)`, `get(name)`);
/// - the optimizers' hyper-parameter keys and defaults (`optimizerParamList()`).
///
/// Bindings marshal their language's values to `OptionValue` and call these; they decide nothing.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace popart {

/// A value read or written through the tables. Integers are int64, reals double; `std::vector`s
/// are lists; a map of strings is what map-valued options hold; a list of integer lists is one
/// list per input group of a method (multiconv's strides, pads, ... per convolution).
using OptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                 std::vector<std::string>, std::map<std::string, std::string>, std::vector<std::vector<int64_t>>>;

/// "bool", "int", "float", "string", "ints", "floats", "strings", "map" or "intss": the kind of a
/// value.
const char* optionValueKind(const OptionValue& v);
/// A value as text ("true", "4", "0.5", "'abc'", "[1, 2]", "{k: v}") for messages and docs.
std::string optionValueToString(const OptionValue& v);

/// A public enum: its C++ name and the names of its values, in order of value.
struct EnumInfo {
  std::string name;
  std::vector<std::string> values;
  std::string doc;
};

/// Every public enum the bindings expose (VirtualGraphMode, RecomputationType, ReductionType,
/// SyntheticDataMode, AnchorReturnTypeId, AdamMode, ...).
const std::vector<EnumInfo>& allEnums();
/// One of allEnums() by name (throws popart::error for an unknown name).
const EnumInfo& enumInfo(const std::string& name);

template <typename E>
struct EnumTraits;

#define POPART_REFLECT_ENUM(E)                         \
  enum class E;                                        \
  template <>                                          \
  struct EnumTraits<E> {                               \
    static constexpr const char* name() { return #E; } \
  };
POPART_REFLECT_ENUM(VirtualGraphMode)
POPART_REFLECT_ENUM(RecomputationType)
POPART_REFLECT_ENUM(MergeVarUpdateType)
POPART_REFLECT_ENUM(SyntheticDataMode)
POPART_REFLECT_ENUM(Instrumentation)
POPART_REFLECT_ENUM(SubgraphCopyingStrategy)
POPART_REFLECT_ENUM(DotCheck)
POPART_REFLECT_ENUM(TensorStorage)
POPART_REFLECT_ENUM(ReplicatedTensorSharding)
POPART_REFLECT_ENUM(ExecutionPhaseIOSchedule)
POPART_REFLECT_ENUM(ExecutionPhaseSchedule)
POPART_REFLECT_ENUM(BatchSerializationBatchSchedule)
POPART_REFLECT_ENUM(BatchSerializationTransformContext)
POPART_REFLECT_ENUM(BatchSerializationMethod)
POPART_REFLECT_ENUM(AccumulateOuterFragmentSchedule)
POPART_REFLECT_ENUM(GradientTensorTrackingMethod)
POPART_REFLECT_ENUM(AutodiffStitchStrategy)
POPART_REFLECT_ENUM(ReductionType)
POPART_REFLECT_ENUM(MeanReductionStrategy)
POPART_REFLECT_ENUM(AnchorReturnTypeId)
POPART_REFLECT_ENUM(TileSet)
POPART_REFLECT_ENUM(ExchangeStrategy)
POPART_REFLECT_ENUM(PatternsLevel)
POPART_REFLECT_ENUM(AdamMode)
POPART_REFLECT_ENUM(AdaptiveMode)
POPART_REFLECT_ENUM(WeightDecayMode)
POPART_REFLECT_ENUM(SGDAccumulatorAndMomentum)
POPART_REFLECT_ENUM(OptimizerReductionType)
POPART_REFLECT_ENUM(DeviceType)
POPART_REFLECT_ENUM(DeviceConnectionType)
POPART_REFLECT_ENUM(SyncPattern)
POPART_REFLECT_ENUM(ScatterReduction)
POPART_REFLECT_ENUM(InitType)
POPART_REFLECT_ENUM(RecomputeType)
POPART_REFLECT_ENUM(DeviceSelectionCriterion)
POPART_REFLECT_ENUM(IrSerializationFormat)
POPART_REFLECT_ENUM(CommGroupType)
POPART_REFLECT_ENUM(CollectiveOperator)
POPART_REFLECT_ENUM(VariableRetrievalMode)
POPART_REFLECT_ENUM(ReplicatedStreamMode)
#undef POPART_REFLECT_ENUM

namespace detail {
/// The name of value `v` of enum `enumName` (throws popart::internal_error when out of range).
const std::string& enumValueName(const char* enumName, int v);
/// The value named `s` of enum `enumName`: exact, then case-insensitive; throws popart::error
/// naming the enum and listing its values otherwise.
int enumValueFromName(const char* enumName, const std::string& s);
}  // namespace detail

/// "Manual" for VirtualGraphMode::Manual.
template <typename E>
const std::string& enumToString(E v) {
  return detail::enumValueName(EnumTraits<E>::name(), static_cast<int>(v));
}
/// VirtualGraphMode::Manual for "Manual" (or "manual"); an unknown name is a popart::error
/// listing the valid ones.
template <typename E>
E enumFromString(const std::string& s) {
  return static_cast<E>(detail::enumValueFromName(EnumTraits<E>::name(), s));
}

/// A field of an options table: `name` is dotted for nested settings
/// ("executionPhaseSettings.phases"); `type` is "bool", "int", "float", "string", "enum"
/// (`enumName` names it), "enums" (a set of enum values), "ints", "floats", "strings", "map" (of
/// strings) or "intmap" (of integers, held as decimal strings in the OptionValue).
struct OptionInfo {
  std::string name;
  std::string type;
  std::string enumName;
  OptionValue defaultValue;
  std::string doc;
};

/// A settings struct of SessionOptions (PopART's TensorLocationSettings, ExecutionPhaseSettings,
/// ...): its class name, the option paths of that kind (the four *TensorLocationSettings share
/// TensorLocationSettings; the fields' defaults are read under the first path), its fields in
/// PopART's constructor order and the positional forms it takes (each a list of field names; a
/// call with n arguments takes the first form with at least n names). A field that is itself a
/// settings struct given a plain value takes it as that struct's one-argument form
/// (TensorLocationSettings(TensorStorage.OffChip) is TensorLocationSettings(TensorLocation(OffChip))).
struct SettingsStructInfo {
  std::string name;
  std::vector<std::string> paths;
  std::vector<std::string> fields;
  /// For each field that is itself a settings struct: its class name ("" for the others).
  std::vector<std::string> fieldStructs;
  std::vector<std::vector<std::string>> forms;
  /// Keyword names that set a field (TensorLocationSettings(storage=...) sets its location).
  std::map<std::string, std::string> keywordAliases;
};
/// Every settings struct, from SessionOptions::list()'s nested names.
const std::vector<SettingsStructInfo>& settingsStructList();

/// A field one argument of a settings call sets: its name, and its settings class when the field
/// is itself a settings struct ("" otherwise); a binding given a plain value (not a settings
/// object or a dict of fields) for such a field passes it to that class's one-argument form.
struct SettingsArgument {
  std::string field;
  std::string fieldStruct;
};

/// Matches a call of settings class `name` (`positional` values, then `keywords` by name) to its
/// fields: the positional values take the first form with at least that many names, a keyword
/// its field (or the field of its alias: TensorLocationSettings(storage=...) sets `location`).
/// The result has one entry per argument, positional first. A setter (`settings.field = v`) is a
/// call with one keyword. Throws popart::error for an unknown class, more positional values than
/// any form takes ("TensorLocation takes at most 3 positional arguments (storage, loadTileSet,
/// storageTileSet, ...), got 4") and an unknown keyword ("TensorLocation has no field 'x'
/// (fields: ...)"); Python raises them as TypeError and AttributeError.
std::vector<SettingsArgument> bindSettingsArguments(const std::string& name, std::size_t positional,
                                                    const std::vector<std::string>& keywords);

/// A hyper-parameter key of an optimizer's map constructor ("defaultLearningRate", ...), with
/// its default value and whether that default is const.
struct OptimizerParamInfo {
  std::string optimizer;  ///< "SGD", "Adam" or "Adaptive"
  std::string key;
  float defaultValue;
  bool defaultIsConst;
  std::string doc;
};
/// Every optimizer's keys (what `SGD({...})`, `Adam({...})`, `Adaptive({...})` and their
/// insertSpecific accept).
const std::vector<OptimizerParamInfo>& optimizerParamList();

/// A pattern name (popart/patterns.hpp): PopART's names, and this runtime's own fusions.
/// `defaultState` is "Mandatory", "On" or "Off"; `rewrite` says whether enabling it changes the
/// IR in this runtime (most of PopART's patterns lower an op this runtime has a kernel for; `doc`
/// says why there is nothing to rewrite).
struct PatternInfo {
  std::string name;
  std::string defaultState;
  bool rewrite;
  std::string doc;
};
const std::vector<PatternInfo>& patternList();

/// An attribute of a Graphcore op: `type` is "float", "int", "ints", "bool" (an int 0/1 in the
/// model), "enum" (the value name, a string in the model; `enumName` names the enum), "dtype" (a
/// DataType, given by name or number; PopART's DataType number, an int, in the model) or "intss"
/// (a list of integer lists, one per input group of a "groups" method, concatenated in the model).
/// Required attributes have no default; optional ones without a default are left out of the
/// node when not given.
struct OpAttrInfo {
  std::string name;
  std::string type;
  std::string enumName;
  bool required = false;
  bool hasDefault = false;
  OptionValue defaultValue;
  std::string doc;
  /// The node's attribute name when it differs from the method's parameter name (PopART's lstm
  /// writes outputFullSequence as "output_full_sequence"); empty: the same.
  std::string onnxName;
  /// A "dtype" written as an ONNX TensorProto data type number (PopART's ctcloss outDataType)
  /// rather than as PopART's DataType number.
  bool onnxDataTypeNumber = false;
};

/// A method of `aiGraphcore` (AiGraphcoreOpset1): its name, the op type it adds, its input
/// count, its attributes in the order of the method's parameters, its outputs and its
/// documentation. Attribute types: "float", "int", "bool", "ints", "floats", "string", "strings",
/// "enum" (a value name of `enumName`), "dtype" (a DataType name or number).
struct GraphcoreOpInfo {
  std::string method;
  std::string opType;
  int minInputs;
  int maxInputs;
  std::vector<OpAttrInfo> attrs;
  std::string doc;
  /// How many outputs the node has (0: none, as abort), unless `numOutputsFrom` names the
  /// integer attribute that gives the count.
  int numOutputs = 1;
  std::string numOutputsFrom;
  /// PopART's method returns the list of output ids (std::vector<TensorId>) rather than one id.
  bool returnsList = false;
  /// How the method takes its inputs: "args" (a list of ids), "arg" (one id, as PopART's
  /// reshape), "none" (no inputs: init) or "groups" (a list of id lists, one per group: multiconv's
  /// [[x0, w0(, b0)], [x1, w1(, b1)], ...], given to AiGraphcoreOpset1::callGroupsMethod). JS and
  /// Python accept a list for "arg" too.
  std::string inputsForm = "args";
  /// For "groups": how many ids a group holds (at least, at most); the node's inputs are the
  /// groups one after the other, each padded with "" (absent) to the most.
  int minGroupInputs = 0;
  int maxGroupInputs = 0;
  /// PopART's Python method defaults `args` to an empty list (abort, the bitwise ops): the faces
  /// accept a call without it (the input count is still checked).
  bool argsOptional = false;
};
/// Every aiGraphcore method (what AiGraphcoreOpset1::call and the JS / Python faces build from).
const std::vector<GraphcoreOpInfo>& graphcoreOpList();

}  // namespace popart
