// DeviceManager and DeviceInfo.
#include "popart/devicemanager.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>
#include <sstream>

#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/reflection.hpp"

namespace popart {

std::string toString(DeviceType t) {
  return enumToString(t);
}

std::string toString(DeviceConnectionType t) {
  return enumToString(t);
}

DeviceInfo::DeviceInfo(DeviceType type, DeviceConnectionType connection, std::map<std::string, std::string> options,
                       int id)
    : type_(type), connection_(connection), options_(std::move(options)), id_(id) {}

std::string DeviceInfo::getVersion() const {
  return type_ == DeviceType::Cpu ? "cpu" : ipuVersion_;
}

const IpuTargetInfo& DeviceInfo::getTarget() const {
  if (type_ == DeviceType::Cpu) throw error("The CPU device has no IPU target");
  return ipuTarget(ipuVersion_);
}

std::string DeviceInfo::toString() const {
  std::ostringstream os;
  os << "Device Type:" << popart::toString(type_) << " Connection Type:" << popart::toString(connection_)
     << " Id:" << id_ << " Version:" << getVersion() << " NumIPUs:" << numIpus_ << " NumTilesPerIPU:" << tilesPerIpu_;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const DeviceInfo& d) {
  return os << d.toString();
}

DeviceManager& DeviceManager::createDeviceManager() {
  static DeviceManager m;
  return m;
}

std::shared_ptr<DeviceInfo> DeviceManager::createCpuDevice() {
  auto d = std::make_shared<DeviceInfo>(DeviceType::Cpu, DeviceConnectionType::Always,
                                        std::map<std::string, std::string>{}, nextId_++);
  d->numIpus_ = 1;
  d->tilesPerIpu_ = 1;
  return d;
}

namespace {

void checkOptions(const std::map<std::string, std::string>& options, const std::vector<std::string>& valid,
                  const char* type) {
  for (const auto& kv : options) {
    if (std::find(valid.begin(), valid.end(), kv.first) == valid.end()) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw error(
          "Invalid option `{}' passed to DevicexManager::createHostDevice for device type {}. Valid options "
          "are [{}]",
          kv.first, type, list);
    }
  }
}

}  // namespace

std::shared_ptr<DeviceInfo> DeviceManager::createIpuModelDevice(std::map<std::string, std::string>& options) {
  return createIpuModelDevice(static_cast<const std::map<std::string, std::string>&>(options));
}

namespace {

/// A device option's value, read as PopART does: strings holding numbers or booleans.
class DeviceOptions {
 public:
  DeviceOptions(const std::map<std::string, std::string>& options, const char* call) : options_(options), call_(call) {}

  int64_t integer(const std::string& key, int64_t dflt, int64_t lo, int64_t hi, const std::string& range) const {
    auto it = options_.find(key);
    if (it == options_.end()) return dflt;
    const std::string& v = it->second;
    size_t used = 0;
    int64_t n = 0;
    try {
      n = std::stoll(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != v.size() || n < lo || n > hi)
      throw error("{}: option '{}' must be an integer {} (got '{}')", call_, key, range, v);
    return n;
  }

  bool boolean(const std::string& key, bool dflt) const {
    auto it = options_.find(key);
    if (it == options_.end()) return dflt;
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (v == "true" || v == "1") return true;
    if (v == "false" || v == "0") return false;
    throw error("{}: option '{}' must be true or false (got '{}')", call_, key, it->second);
  }

  std::string oneOf(const std::string& key, const std::string& dflt, const std::vector<std::string>& valid) const {
    auto it = options_.find(key);
    if (it == options_.end()) return dflt;
    std::string list;
    for (const auto& v : valid) {
      if (v == it->second) return v;
      list += (list.empty() ? "" : ", ") + v;
    }
    throw error("{}: option '{}' must be one of {} (got '{}')", call_, key, list, it->second);
  }

 private:
  const std::map<std::string, std::string>& options_;
  const char* call_;
};

std::vector<std::string> ipuVersions() {
  std::vector<std::string> v;
  for (const auto& t : ipuTargetList()) v.push_back(t.version);
  return v;
}

/// numIPUs, ipuVersion and tilesPerIPU (default `dfltTiles`, 0: the whole chip).
void readIpuShape(const DeviceOptions& o, int64_t dfltTiles, int& numIpus, int& tiles, std::string& version) {
  version = o.oneOf("ipuVersion", "ipu2", ipuVersions());
  const IpuTargetInfo& t = ipuTarget(version);
  numIpus = static_cast<int>(o.integer("numIPUs", 1, 1, 1024, "from 1 to 1024"));
  tiles =
      static_cast<int>(o.integer("tilesPerIPU", dfltTiles ? dfltTiles : t.tilesPerIpu, 1, t.tilesPerIpu,
                                 "from 1 to " + std::to_string(t.tilesPerIpu) + " (the tiles of an " + version + ")"));
}

}  // namespace

std::shared_ptr<DeviceInfo> DeviceManager::createIpuModelDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU", "compileIPUCode", "ipuVersion"}, "IpuModel");
  const DeviceOptions o(options, "createIpuModelDevice");
  auto d = std::make_shared<DeviceInfo>(DeviceType::IpuModel, DeviceConnectionType::Always, options, nextId_++);
  readIpuShape(o, 4, d->numIpus_, d->tilesPerIpu_, d->ipuVersion_);
  d->compileIpuCode_ = o.boolean("compileIPUCode", true);
  d->numWorkerContexts_ = d->getTarget().workerContexts;
  return d;
}

/// Graphcore's simulator is part of the Poplar SDK; here a Sim device is run by the IPU model
/// (the same arithmetic, with its tile, memory and cycle modelling), shaped as PopART's: an ipu2 of
/// 4 tiles unless numIPUs / tilesPerIPU say otherwise.
std::shared_ptr<DeviceInfo> DeviceManager::createSimDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU"}, "Sim");
  const DeviceOptions o(options, "createSimDevice");
  auto d = std::make_shared<DeviceInfo>(DeviceType::Sim, DeviceConnectionType::Always, options, nextId_++);
  readIpuShape(o, 4, d->numIpus_, d->tilesPerIpu_, d->ipuVersion_);
  d->numWorkerContexts_ = d->getTarget().workerContexts;
  return d;
}

std::shared_ptr<DeviceInfo> DeviceManager::createOfflineIPUDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU", "ipuVersion", "syncPattern", "gatewayMode"}, "OfflineIpu");
  const DeviceOptions o(options, "createOfflineIPUDevice");
  auto d = std::make_shared<DeviceInfo>(DeviceType::OfflineIpu, DeviceConnectionType::Never, options, nextId_++);
  readIpuShape(o, 0, d->numIpus_, d->tilesPerIpu_, d->ipuVersion_);
  o.oneOf("syncPattern", "Full", {"Full", "SinglePipeline", "ReplicaAndLadder"});
  o.boolean("gatewayMode", false);
  d->numWorkerContexts_ = d->getTarget().workerContexts;
  return d;
}

std::shared_ptr<DeviceInfo> DeviceManager::createDevice(DeviceType type,
                                                        const std::map<std::string, std::string>& options) {
  switch (type) {
    case DeviceType::Cpu:
      if (!options.empty()) throw error("createCpuDevice takes no options, got {} of them", options.size());
      return createCpuDevice();
    case DeviceType::IpuModel:
      return createIpuModelDevice(options);
    case DeviceType::OfflineIpu:
      return createOfflineIPUDevice(options);
    case DeviceType::Sim:
      return createSimDevice(options);
    case DeviceType::Ipu:
      break;
  }
  throw error("A hardware IPU device is acquired (acquireAvailableDevice, acquireDeviceById), not created");
}

std::vector<std::shared_ptr<DeviceInfo>> DeviceManager::enumerateDevices(SyncPattern, int, DeviceType,
                                                                         DeviceConnectionType, int) {
  logging::devicex::info("enumerateDevices: no hardware IPUs in this build (it has no Poplar SDK)");
  return {};
}

std::shared_ptr<DeviceInfo> DeviceManager::acquireAvailableDevice(int numIpus, int, SyncPattern, DeviceConnectionType,
                                                                  DeviceSelectionCriterion) {
  if (numIpus <= 0 || (numIpus & (numIpus - 1)) != 0)
    throw error("You have attempted to acquire {} IPUs. The number of IPUs requested must be a power of two", numIpus);
  throw error(
      "Failed to acquire device with {} IPUs. Ensure that there are sufficient IPUs available. This build has "
      "no Poplar SDK and sees no hardware IPUs; use createCpuDevice() instead.",
      numIpus);
}

std::shared_ptr<DeviceInfo> DeviceManager::tryAcquireAvailableDevice(int numIpus, int, SyncPattern,
                                                                     DeviceConnectionType, DeviceSelectionCriterion) {
  if (numIpus <= 0 || (numIpus & (numIpus - 1)) != 0)
    throw error("You have attempted to acquire {} IPUs. The number of IPUs requested must be a power of two", numIpus);
  return nullptr;
}

std::shared_ptr<DeviceInfo> DeviceManager::acquireDeviceById(int id, SyncPattern, DeviceConnectionType) {
  throw error(
      "Failed to acquire device with id '{}'. This build has no Poplar SDK and sees no hardware IPUs; use "
      "createCpuDevice() instead.",
      id);
}

std::shared_ptr<DeviceInfo> DeviceManager::tryAcquireDeviceById(int, SyncPattern, DeviceConnectionType) {
  return nullptr;
}

}  // namespace popart
