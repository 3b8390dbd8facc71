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

std::shared_ptr<DeviceInfo> DeviceManager::createIpuModelDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU", "compileIPUCode", "ipuVersion"}, "IpuModel");
  throw error("The IPU-model device is not available in this build yet; use createCpuDevice()");
}

std::shared_ptr<DeviceInfo> DeviceManager::createSimDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU"}, "Sim");
  throw error(
      "The IPU simulator needs Graphcore's Poplar SDK, which this build does not have; use "
      "createCpuDevice()");
}

std::shared_ptr<DeviceInfo> DeviceManager::createOfflineIPUDevice(const std::map<std::string, std::string>& options) {
  checkOptions(options, {"numIPUs", "tilesPerIPU", "ipuVersion", "syncPattern", "gatewayMode"}, "OfflineIpu");
  throw error("The offline IPU device is not available in this build yet; use createCpuDevice()");
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
