// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file stepio.hpp
/// `StepIO`: an IStepIO over maps of user arrays (NDArrayWrapper, NDArray, ...). Inputs have
/// shape `[batchesPerStep, accumulationFactor, replicationFactor] + S` where prefix dimensions of
/// size 1 may be left out; data is consumed one micro-batch at a time, wrapping at the end.
/// The arrays are referenced, not copied: they must outlive the StepIO.

#include <functional>
#include <map>

#include "popart/iarray.hpp"
#include "popart/istepio.hpp"
#include "popart/ndarraywrapper.hpp"

namespace popart {

class StepIO : public IStepIO {
 public:
  StepIO(std::map<TensorId, IArray&> inputs, std::map<TensorId, IArray&> outputs);

  ConstVoidData in(TensorId id, int64_t numElements, bool prefetch, bool isBroadcast) override;
  void inComplete(TensorId id, int64_t numElements, bool isBroadcast) override;
  MutableVoidData out(TensorId id, int64_t numElements) override;
  void outComplete(TensorId id) override;
  void assertNumElements(const StepIOSpec& spec) const override;
  IArray* inputArray(const TensorId& id) override;
  /// Resizes the anchor's array (IArray::resize) when it is not `info` already; an array that
  /// cannot be resized is an error naming the anchor and both shapes.
  void prepareOutput(const TensorId& id, const TensorInfo& info) override;

  /// Gives input `id` of sequence or optional type (istepio.hpp, ValueKind): its tensors' arrays
  /// (not owned; they must outlive the runs). An optional input not given is None.
  void setInputElements(const TensorId& id, std::vector<IArray*> elements);
  bool inputElements(const TensorId& id, ValueKind kind, std::vector<IArray*>& elements) override;
  std::vector<IArray*> prepareOutputElements(const TensorId& id, ValueKind kind, bool present,
                                             const std::vector<TensorInfo>& infos) override;
  /// After a run: the tensors of anchor `id`, a sequence or optional value (none for an empty
  /// sequence or a None optional); throws if the last run returned no such anchor.
  const std::vector<NDArray>& outputElements(const TensorId& id) const;
  /// Whether the optional anchor `id` held a value in the last run.
  bool outputPresent(const TensorId& id) const;

 private:
  struct Slot {
    IArray* array;
    int64_t offset;  // in elements
  };
  std::map<TensorId, Slot> inputs_;
  std::map<TensorId, Slot> outputs_;
  std::map<TensorId, std::vector<IArray*>> inputElements_;
  struct Elements {
    bool present = true;
    std::vector<NDArray> arrays;
  };
  std::map<TensorId, Elements> outputElements_;
};

/// References to every array of a map, as StepIO takes them:
/// `StepIO stepio(arrayRefs(inputs), arrayRefs(anchors));` (the arrays are not copied).
template <typename Map>
std::map<TensorId, IArray&> arrayRefs(Map& arrays) {
  std::map<TensorId, IArray&> m;
  for (auto& kv : arrays) m.emplace(kv.first, kv.second);
  return m;
}

/// An IStepIO that calls user functions (PopART's StepIOCallback).
class StepIOCallback : public IStepIO {
 public:
  using InputCallback = std::function<ConstVoidData(TensorId, bool prefetch)>;
  using InputCompleteCallback = std::function<void(TensorId)>;
  using OutputCallback = std::function<MutableVoidData(TensorId)>;
  using OutputCompleteCallback = std::function<void(TensorId)>;

  StepIOCallback(InputCallback in, InputCompleteCallback inComplete, OutputCallback out,
                 OutputCompleteCallback outComplete)
      : in_(std::move(in)),
        inComplete_(std::move(inComplete)),
        out_(std::move(out)),
        outComplete_(std::move(outComplete)) {}

  ConstVoidData in(TensorId id, int64_t numElements, bool prefetch, bool isBroadcast) override;
  void inComplete(TensorId id, int64_t numElements, bool isBroadcast) override;
  MutableVoidData out(TensorId id, int64_t numElements) override;
  void outComplete(TensorId id) override;

 private:
  InputCallback in_;
  InputCompleteCallback inComplete_;
  OutputCallback out_;
  OutputCompleteCallback outComplete_;
};

/// Weights transfer for Session::readWeights / writeWeights: id -> user memory.
class IWeightsIO {
 public:
  virtual ~IWeightsIO() = default;
  virtual bool contains(TensorId id) const = 0;
  virtual MutableVoidData weight(TensorId id) const = 0;
};

class WeightsIO : public IWeightsIO {
 public:
  void insert(TensorId id, MutableVoidData data) { weights_[id] = data; }
  bool contains(TensorId id) const override { return weights_.count(id) != 0; }
  MutableVoidData weight(TensorId id) const override;
  const std::map<TensorId, MutableVoidData>& weights() const { return weights_; }

 private:
  std::map<TensorId, MutableVoidData> weights_;
};

}  // namespace popart
