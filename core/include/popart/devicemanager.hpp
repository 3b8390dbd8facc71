// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file devicemanager.hpp
/// `DeviceManager` (a singleton) creates and acquires devices; `DeviceInfo` describes one.
/// Here: a CPU device, an IPU-model device (the CPU's arithmetic for an emulated IPU target) and
/// an offline IPU device (compile only). Hardware IPUs need Graphcore's Poplar SDK, which this
/// build does not have: `enumerateDevices` lists none and `acquire*` fail with a clear message. A
/// backend for them plugs in behind the same interface.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace popart {

enum class DeviceType { IpuModel = 0, Cpu, Ipu, OfflineIpu, Sim };
enum class DeviceConnectionType { Always = 0, OnDemand, Never };
enum class SyncPattern { Full = 0, SinglePipeline, ReplicaAndLadder };
enum class DeviceSelectionCriterion { First = 0, Random };

std::string toString(DeviceType t);
std::string toString(DeviceConnectionType t);

/// The public figures of an IPU generation, which the IPU model emulates (docs/ipu-model.md gives
/// the sources). Peak FLOP/s = tilesPerIpu * flopsPerTileCycle * clockHz.
struct IpuTargetInfo {
  std::string version;   ///< "ipu1", "ipu2", "ipu21" (the devices' `ipuVersion` option)
  std::string product;   ///< the chip and its card
  int tilesPerIpu;       ///< tiles on one chip
  int64_t bytesPerTile;  ///< In-Processor-Memory (SRAM) per tile
  double clockHz;
  int flopsPerTileCycleFloat;  ///< FLOAT multiply-accumulate throughput (2 FLOPs per MAC)
  int flopsPerTileCycleHalf;   ///< FLOAT16
  int flopsPerTileCycleFp8;    ///< 0: no FP8
  int workerContexts;          ///< hardware threads per tile
  int exchangeBytesPerTileCycle;
  int ipuLinksPerIpu;
  double ipuLinkBytesPerSec;  ///< one link, one direction
  double hostBytesPerSec;     ///< PCIe to the host, one direction
  int syncCycles;             ///< a global (bulk-synchronous) sync, per superstep
  int ipusPerChassis;         ///< IPUs joined by IPU-Links in one machine (an IPU-M2000: 4)
  double gatewayBytesPerSec;  ///< between machines, one direction (IPU-M2000: its gateway links)
};
/// Every IPU generation the model knows, oldest first.
const std::vector<IpuTargetInfo>& ipuTargetList();
/// The target of a version name; throws popart::error naming the known versions.
const IpuTargetInfo& ipuTarget(const std::string& version);
/// `t` as a JSON object, every field of IpuTargetInfo under its own name: what the Python
/// (`ipuTargetList()`, `ipuTarget()`, `DeviceInfo.target`) and JS (`ipuTargets()`) faces return,
/// marshalled from this one function.
std::string ipuTargetJson(const IpuTargetInfo& t);

class DeviceInfo {
 public:
  DeviceInfo(DeviceType type, DeviceConnectionType connection, std::map<std::string, std::string> options, int id = 0);
  virtual ~DeviceInfo() = default;

  DeviceType getType() const { return type_; }
  DeviceConnectionType getConnectionType() const { return connection_; }
  int getId() const { return id_; }
  /// Version string ("cpu", "ipu1", "ipu2").
  std::string getVersion() const;
  std::string getIpuVersion() const { return getVersion(); }
  int getNumIpus() const { return numIpus_; }
  int getTilesPerIPU() const { return tilesPerIpu_; }
  int getTilesPerIpu() const { return tilesPerIpu_; }
  int getNumWorkerContexts() const { return numWorkerContexts_; }
  /// The emulated chip (IPU-model and offline devices); throws for the CPU device.
  const IpuTargetInfo& getTarget() const;
  /// IPU model: whether the model compiles IPU code (the `compileIPUCode` option; the estimate of
  /// code memory depends on it).
  bool getCompileIPUCode() const { return compileIpuCode_; }
  std::vector<unsigned> getDriverIds() const { return {}; }
  const std::map<std::string, std::string>& getOptions() const { return options_; }

  /// CPU and IPU-model devices are always attached; attach/detach only flip the flag.
  bool attach() {
    attached_ = true;
    return true;
  }
  void detach() { attached_ = false; }
  bool isAttached() const { return attached_; }
  bool tryAttachUntilTimeout() { return attach(); }
  /// Whether a session on this device can run (offline devices compile only).
  bool canRun() const { return type_ != DeviceType::OfflineIpu; }
  std::string toString() const;

 protected:
  DeviceType type_;
  DeviceConnectionType connection_;
  std::map<std::string, std::string> options_;
  int id_;
  int numIpus_ = 1;
  int tilesPerIpu_ = 0;
  int numWorkerContexts_ = 1;
  std::string ipuVersion_;
  bool compileIpuCode_ = true;
  bool attached_ = true;

  friend class DeviceManager;
};

std::ostream& operator<<(std::ostream& os, const DeviceInfo& d);

class DeviceManager {
 public:
  /// The process-wide instance.
  static DeviceManager& createDeviceManager();

  /// The CPU device: the fastest way to run a model here.
  std::shared_ptr<DeviceInfo> createCpuDevice();
  /// An IPU model: the CPU's arithmetic on an emulated IPU target. Options (strings or numbers
  /// as strings): numIPUs (1), tilesPerIPU (4, as PopART: 1 .. the chip's tiles), compileIPUCode
  /// ("true"), ipuVersion ("ipu1" | "ipu2" | "ipu21", default "ipu2").
  std::shared_ptr<DeviceInfo> createIpuModelDevice(std::map<std::string, std::string>& options);
  std::shared_ptr<DeviceInfo> createIpuModelDevice(const std::map<std::string, std::string>& options = {});
  /// A simulator device; not available in this build (throws).
  std::shared_ptr<DeviceInfo> createSimDevice(const std::map<std::string, std::string>& options = {});
  /// A compile-only IPU device: sessions prepare and report, but `run` is refused. Options:
  /// numIPUs (1), tilesPerIPU (the full chip), ipuVersion ("ipu2"), syncPattern ("Full" |
  /// "SinglePipeline" | "ReplicaAndLadder"), gatewayMode ("false").
  std::shared_ptr<DeviceInfo> createOfflineIPUDevice(const std::map<std::string, std::string>& options = {});
  /// The create* method of `type` (Cpu, IpuModel, OfflineIpu, Sim) with `options`; Ipu (hardware)
  /// throws: such devices are acquired. For bindings that name the device type as data.
  std::shared_ptr<DeviceInfo> createDevice(DeviceType type, const std::map<std::string, std::string>& options = {});

  /// Hardware IPUs visible to this process: none in this build.
  std::vector<std::shared_ptr<DeviceInfo>> enumerateDevices(
      SyncPattern pattern = SyncPattern::Full, int numIpus = 1, DeviceType deviceType = DeviceType::Ipu,
      DeviceConnectionType connectionType = DeviceConnectionType::Always, int tilesPerIPU = 0);
  std::shared_ptr<DeviceInfo> acquireAvailableDevice(
      int numIpus = 1, int tilesPerIpu = 0, SyncPattern pattern = SyncPattern::Full,
      DeviceConnectionType connectionType = DeviceConnectionType::Always,
      DeviceSelectionCriterion selectionCriterion = DeviceSelectionCriterion::First);
  /// Like acquireAvailableDevice, but returns nullptr instead of throwing.
  std::shared_ptr<DeviceInfo> tryAcquireAvailableDevice(
      int numIpus = 1, int tilesPerIpu = 0, SyncPattern pattern = SyncPattern::Full,
      DeviceConnectionType connectionType = DeviceConnectionType::Always,
      DeviceSelectionCriterion selectionCriterion = DeviceSelectionCriterion::First);
  std::shared_ptr<DeviceInfo> acquireDeviceById(int id, SyncPattern pattern = SyncPattern::Full,
                                                DeviceConnectionType connectionType = DeviceConnectionType::Always);
  std::shared_ptr<DeviceInfo> tryAcquireDeviceById(int id, SyncPattern pattern = SyncPattern::Full,
                                                   DeviceConnectionType connectionType = DeviceConnectionType::Always);
  void setOnDemandAttachTimeout(unsigned seconds) { attachTimeout_ = seconds; }

 private:
  DeviceManager() = default;
  unsigned attachTimeout_ = 0;
  int nextId_ = 0;
};

}  // namespace popart
