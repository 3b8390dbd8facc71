// The device backend interface: what a session needs from a device. The CPU backend implements
// it; the IPU-model backend wraps it; a Poplar backend would implement it on a Poplar host.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "popart/devicemanager.hpp"
#include "popart/names.hpp"
#include "popart/report.hpp"
#include "popart/session.hpp"

namespace popart {

class Op;

class Ir;
class ConstEvaluator;

/// A model lowered onto a device: buffers, kernels and their order.
class Executable {
 public:
  virtual ~Executable() = default;
  /// Host weights (IR tensor data) -> device.
  virtual void weightsFromHost() = 0;
  /// Device weights -> host (IR tensor data).
  virtual void weightsToHost() = 0;
  /// Host -> device for the given Variable tensors only (e.g. optimizer hyper-parameters); ids
  /// the executable does not hold are ignored.
  virtual void tensorsFromHost(const std::vector<TensorId>& ids) = 0;
  /// Where the next micro-batch of stream `id` is read from (the memory must stay valid until
  /// execute() returns). The executable may read it in place.
  virtual void setInput(const TensorId& id, const void* data) = 0;
  /// Runs one micro-batch of the forward program (plus backward and updates when training).
  virtual void execute() = 0;
  /// Replicated training: the ops (GradientAllReduce) whose outputs the replicas sum between
  /// the program's phases, in order; the program runs in reductions().size() + 1 phases.
  virtual std::vector<const Op*> reductions() const { return {}; }
  /// Runs phase k of one micro-batch (all of it, as execute(), when there are no reductions).
  /// Between phases, the outputs of reduction k may be changed through mutableTensorData.
  virtual void executePhase(size_t k) {
    if (k == 0) execute();
  }
  /// A writable view of the device buffer of tensor `id` while a micro-batch runs.
  void* mutableTensorData(const TensorId& id) { return const_cast<void*>(tensorData(id)); }
  /// The current device value of any tensor that may be anchored.
  virtual const void* tensorData(const TensorId& id) const = 0;
  virtual void setRandomSeed(uint64_t seed) = 0;
  virtual SessionMemoryStats memoryStats() const = 0;
  /// Text for Session::getSummaryReport on devices without a compilation profile (the CPU).
  virtual std::string summary() const = 0;
  /// The IPU model's layout of the program (nullptr: the device has no such model).
  virtual const report::Compilation* compilation() const { return nullptr; }
  /// Measured host time per scheduled op (devices that run on the host with profiling on).
  virtual std::vector<report::HostOp> hostOps() const { return {}; }
  /// False for compile-only devices (offline IPUs): no buffers, nothing runs.
  virtual bool canExecute() const { return true; }
};

/// Whether the user asked for profiling: engine options `autoReport.all` or `debug.instrument`
/// = "true", or the environment variable POPART_PROFILE=1 (host time per op on the CPU).
bool profilingEnabled(const SessionOptions& options);

class Backend {
 public:
  virtual ~Backend() = default;
  /// Lowers a prepared IR. Throws popart::error (e.g. out of device memory).
  virtual std::unique_ptr<Executable> compile(Ir& ir) = 0;
  /// Evaluates ops on host data for constant folding during IR preparation.
  virtual const ConstEvaluator& constEvaluator() const = 0;
};

/// The backend for a device (throws for devices this build cannot drive).
std::unique_ptr<Backend> createBackend(const DeviceInfo& device);

}  // namespace popart
