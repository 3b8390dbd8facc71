// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file istepio.hpp
/// `IStepIO`: how a session pulls inputs and pushes anchors during `run`. Each `in` call asks for
/// the next micro-batch of one input; each `out` call for the place to write the next anchor
/// value. `StepIO` (stepio.hpp) implements it over user arrays; implement it yourself to stream
/// from elsewhere.

#include <string>
#include <vector>

#include "popart/iarray.hpp"
#include "popart/voiddata.hpp"

namespace popart {

/// What a session expects from a StepIO for one step; passed to IStepIO::assertNumElements.
struct StepIOSpec {
  struct Entry {
    TensorId id;
    TensorInfo info;        ///< one micro-batch (inputs) or one anchor value (outputs)
    int64_t expectedNelms;  ///< total elements the user's array must hold
    std::string factors;    ///< how expectedNelms was computed, for error messages
  };
  std::vector<Entry> inputs;
  std::vector<Entry> outputs;
  /// Graph inputs of the ONNX model the session does not stream: a StepIO may carry them and they
  /// are not read, as in PopART: the initializers (silently; PopART's Builder lists them among the
  /// graph inputs), and inputs nothing computed needs (with PopART's warning).
  std::vector<TensorId> initializerInputs;
  std::vector<TensorId> unusedInputs;
  /// Inputs whose values a session planned at run time took as constants of this run's plan
  /// (their values give shapes): given in the StepIO, not streamed.
  std::vector<TensorId> runTimeConstants;
  /// Inputs of sequence or optional type (given by their tensors; see IStepIO::inputElements).
  std::vector<TensorId> elementInputs;
};

/// What a model input or anchor of a non-tensor ONNX type holds (docs/python-api.md, "Sequences and
/// optional values"): a sequence of tensors, or an optional value (a tensor or a sequence, or None).
enum class ValueKind { Sequence, OptionalTensor, OptionalSequence };

class IStepIO {
 public:
  virtual ~IStepIO() = default;
  /// The next `numElements` elements of input `id`. The returned view must stay valid until
  /// `inComplete(id, ...)` is called.
  virtual ConstVoidData in(TensorId id, int64_t numElements, bool prefetch, bool isBroadcast = false) = 0;
  /// The view returned by the last `in(id, ...)` has been consumed.
  virtual void inComplete(TensorId id, int64_t numElements, bool isBroadcast = false) = 0;
  /// Where to write the next `numElements` elements of anchor `id`.
  virtual MutableVoidData out(TensorId id, int64_t numElements) = 0;
  /// The view returned by the last `out(id, ...)` has been written.
  virtual void outComplete(TensorId id) { (void)id; }
  /// Checks array sizes before the first step; throws popart::error with the expected counts.
  /// The default accepts anything (a streaming IStepIO checks each `in`/`out` as it goes).
  virtual void assertNumElements(const StepIOSpec& spec) const { (void)spec; }
  /// A session whose shapes are known only at run time asks for the whole array given for
  /// input `id` this step (its shape, and for shape-giving inputs its values) before it plans
  /// the run; nullptr when this StepIO cannot tell (arrays asked for one at a time).
  virtual IArray* inputArray(const TensorId& id) {
    (void)id;
    return nullptr;
  }
  /// Such a session calls this before the run with each anchor's array for the step (`info`:
  /// every return of the step, as getAnchorShape): a StepIO over arrays resizes the array when
  /// its shape or type differs. The default does nothing (callbacks size their own buffers).
  virtual void prepareOutput(const TensorId& id, const TensorInfo& info) {
    (void)id;
    (void)info;
  }

  /// A session whose model has an input of sequence or optional type asks for its tensors this run:
  /// fills `elements` (a sequence's tensors in order; an optional's one value) and returns true, or
  /// returns false when this StepIO gives none (an optional input is then None; an optional tensor
  /// may also be given as an ordinary input array). Sequences and optional values are given for
  /// one micro-batch (batchesPerStep, accumulation and replication factors of 1).
  virtual bool inputElements(const TensorId& id, ValueKind kind, std::vector<IArray*>& elements) {
    (void)id;
    (void)kind;
    (void)elements;
    return false;
  }
  /// Such a session calls this before the run for each anchor that is a sequence or optional value:
  /// `infos` are its tensors' types and shapes (none for an empty sequence or a None optional;
  /// `present` is false for None). The StepIO returns one array per tensor to write it into.
  virtual std::vector<IArray*> prepareOutputElements(const TensorId& id, ValueKind kind, bool present,
                                                     const std::vector<TensorInfo>& infos);

  void enableRuntimeAsserts(bool b) { runtimeAsserts_ = b; }
  bool runtimeAssertsEnabled() const { return runtimeAsserts_; }

 private:
  bool runtimeAsserts_ = true;
};

}  // namespace popart
