// StepIO over user arrays, StepIOCallback, WeightsIO.
#include "popart/stepio.hpp"

#include <algorithm>
#include <sstream>

#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {

StepIO::StepIO(std::map<TensorId, IArray&> inputs, std::map<TensorId, IArray&> outputs) {
  for (auto& kv : inputs) inputs_[kv.first] = Slot{&kv.second, 0};
  for (auto& kv : outputs) outputs_[kv.first] = Slot{&kv.second, 0};
}

ConstVoidData StepIO::in(TensorId id, int64_t numElements, bool, bool) {
  auto it = inputs_.find(id);
  if (it == inputs_.end()) throw error("No input data given for tensor '{}' in the StepIO", id);
  Slot& s = it->second;
  const int64_t total = static_cast<int64_t>(s.array->nelms());
  if (numElements == 0) return ConstVoidData(s.array->data(), TensorInfo(s.array->dataType(), {0}));
  if (total == 0 || numElements > total)
    throw error("The StepIO array for input '{}' holds {} elements, fewer than one micro-batch ({})", id, total,
                numElements);
  if (s.offset + numElements > total) s.offset = 0;  // wrap around
  const int64_t elem = elementStride(s.array->dataType());
  ConstVoidData d(static_cast<const char*>(s.array->data()) + s.offset * elem,
                  TensorInfo(s.array->dataType(), {numElements}));
  return d;
}

void StepIO::inComplete(TensorId id, int64_t numElements, bool) {
  auto it = inputs_.find(id);
  if (it == inputs_.end()) return;
  Slot& s = it->second;
  s.offset += numElements;
  if (s.offset >= static_cast<int64_t>(s.array->nelms())) s.offset = 0;
}

MutableVoidData StepIO::out(TensorId id, int64_t numElements) {
  auto it = outputs_.find(id);
  if (it == outputs_.end()) throw error("No output array given for anchor '{}' in the StepIO", id);
  Slot& s = it->second;
  const int64_t total = static_cast<int64_t>(s.array->nelms());
  if (numElements == 0) return MutableVoidData(s.array->data(), TensorInfo(s.array->dataType(), {0}));
  if (numElements > total)
    throw error("The StepIO array for anchor '{}' holds {} elements, fewer than one value ({})", id, total,
                numElements);
  if (s.offset + numElements > total) s.offset = 0;
  const int64_t elem = elementStride(s.array->dataType());
  MutableVoidData d(static_cast<char*>(s.array->data()) + s.offset * elem,
                    TensorInfo(s.array->dataType(), {numElements}));
  s.offset += numElements;
  if (s.offset >= total) s.offset = 0;
  return d;
}

void StepIO::outComplete(TensorId) {}

IArray* StepIO::inputArray(const TensorId& id) {
  auto it = inputs_.find(id);
  return it == inputs_.end() ? nullptr : it->second.array;
}

void StepIO::prepareOutput(const TensorId& id, const TensorInfo& info) {
  auto it = outputs_.find(id);
  if (it == outputs_.end()) return;  // assertNumElements names the missing anchor
  IArray& a = *it->second.array;
  it->second.offset = 0;
  if (a.dataType() == info.dataType() && a.shape() == info.shape()) return;
  if (!a.resize(info))
    throw error(
        "Anchor '{}' is {} in this run, but its array in the StepIO is {} {} and cannot be resized (the session's "
        "shapes are known only at run time: give an NDArray, as initAnchorArrays makes, or an array of the run's "
        "shape)",
        id, info.toString(), dataTypeToString(a.dataType()), a.shape());
}

void StepIO::assertNumElements(const StepIOSpec& spec) const {
  std::ostringstream modelInputs;
  for (size_t i = 0; i < spec.inputs.size(); ++i) modelInputs << (i ? ", " : "") << "'" << spec.inputs[i].id << "'";
  for (const auto& kv : inputs_) {
    bool known = false;
    for (const auto& e : spec.inputs) known = known || e.id == kv.first;
    auto listed = [&](const std::vector<TensorId>& ids) {
      return std::find(ids.begin(), ids.end(), kv.first) != ids.end();
    };
    if (!known && (listed(spec.initializerInputs) || listed(spec.runTimeConstants) || listed(spec.elementInputs)))
      continue;
    if (!known && listed(spec.unusedInputs)) {
      logging::devicex::warn(
          "The input Tensor {} to the ONNX Model does not appear in the optimized PopART Ir, possibly due to constant "
          "folding. Therefore, the input buffer provided will not be used. ",
          kv.first);
      continue;
    }
    if (!known)
      throw error(
          "The tensor '{}' has been provided as one of the inputs to the stepIO, but it is not registered as "
          "one of the inputs to the model. The model's inputs are: {}",
          kv.first, modelInputs.str());
  }
  for (const auto& e : spec.inputs) {
    auto it = inputs_.find(e.id);
    if (it == inputs_.end())
      throw error(
          "The stepIO has no input for tensor '{}' ({}); every model input must be given. The model's inputs "
          "are: {}",
          e.id, e.info.toString(), modelInputs.str());
    const IArray& a = *it->second.array;
    const bool narrowable = a.dataType() == DataType::INT64 && e.info.dataType() == DataType::INT32;
    if (a.dataType() != e.info.dataType() && !narrowable)
      throw error("Input '{}' is given as {} data, but the model expects {} ({})", e.id, dataTypeToString(a.dataType()),
                  e.info.data_type(), e.info.toString());
    if (static_cast<int64_t>(a.nelms()) != e.expectedNelms)
      throw error(
          "Unexpected number of input elements for Tensor {}. Expected {}, but received {}. To calculate the "
          "expected number of input elements: {} = {}. The array given has shape {}.",
          e.id, e.expectedNelms, a.nelms(), e.factors, e.expectedNelms, a.shape());
  }
  for (const auto& kv : outputs_) {
    bool known = false;
    for (const auto& e : spec.outputs) known = known || e.id == kv.first;
    if (!known && !outputElements_.count(kv.first))
      throw error(
          "The tensor '{}' has been provided as one of the outputs of the stepIO, but it is not an anchor of "
          "the session's DataFlow",
          kv.first);
  }
  for (const auto& e : spec.outputs) {
    auto it = outputs_.find(e.id);
    if (it == outputs_.end())
      throw error(
          "The stepIO has no output array for anchor '{}'; give one for every anchor (initAnchorArrays makes "
          "them)",
          e.id);
    const IArray& a = *it->second.array;
    const bool narrowable = a.dataType() == DataType::INT64 && e.info.dataType() == DataType::INT32;
    if (a.dataType() != e.info.dataType() && !narrowable)
      throw error("The output array for anchor '{}' holds {} data, but the anchor is {}", e.id,
                  dataTypeToString(a.dataType()), e.info.toString());
    if (static_cast<int64_t>(a.nelms()) != e.expectedNelms)
      throw error(
          "Unexpected number of output elements for anchor {}. Expected {}, but received {}. To calculate the "
          "expected number of output elements: {} = {}. The array given has shape {}.",
          e.id, e.expectedNelms, a.nelms(), e.factors, e.expectedNelms, a.shape());
  }
}

void StepIO::setInputElements(const TensorId& id, std::vector<IArray*> elements) {
  for (const IArray* a : elements) {
    if (!a) throw error("StepIO::setInputElements: element arrays of input '{}' may not be null", id);
  }
  inputElements_[id] = std::move(elements);
}

bool StepIO::inputElements(const TensorId& id, ValueKind, std::vector<IArray*>& elements) {
  auto it = inputElements_.find(id);
  if (it == inputElements_.end()) return false;
  elements = it->second;
  return true;
}

std::vector<IArray*> StepIO::prepareOutputElements(const TensorId& id, ValueKind, bool present,
                                                   const std::vector<TensorInfo>& infos) {
  Elements& e = outputElements_[id];
  e.present = present;
  e.arrays.clear();
  e.arrays.reserve(infos.size());
  for (const auto& info : infos) e.arrays.emplace_back(info);
  std::vector<IArray*> out;
  for (auto& a : e.arrays) out.push_back(&a);
  return out;
}

const std::vector<NDArray>& StepIO::outputElements(const TensorId& id) const {
  auto it = outputElements_.find(id);
  if (it == outputElements_.end())
    throw error("The last run returned no sequence or optional value for anchor '{}'", id);
  return it->second.arrays;
}

bool StepIO::outputPresent(const TensorId& id) const {
  auto it = outputElements_.find(id);
  if (it == outputElements_.end())
    throw error("The last run returned no sequence or optional value for anchor '{}'", id);
  return it->second.present;
}

std::vector<IArray*> IStepIO::prepareOutputElements(const TensorId& id, ValueKind, bool,
                                                    const std::vector<TensorInfo>&) {
  throw error(
      "Anchor '{}' is a sequence or optional value, and this stepIO cannot take one (it has no "
      "prepareOutputElements): use StepIO or PyStepIO",
      id);
}

ConstVoidData StepIOCallback::in(TensorId id, int64_t, bool prefetch, bool) {
  return in_(id, prefetch);
}
void StepIOCallback::inComplete(TensorId id, int64_t, bool) {
  inComplete_(id);
}
MutableVoidData StepIOCallback::out(TensorId id, int64_t) {
  return out_(id);
}
void StepIOCallback::outComplete(TensorId id) {
  outComplete_(id);
}

MutableVoidData WeightsIO::weight(TensorId id) const {
  auto it = weights_.find(id);
  if (it == weights_.end()) throw error("No tensor '{}' in the WeightsIO", id);
  return it->second;
}

}  // namespace popart
