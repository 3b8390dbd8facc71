// The IPU generations the IPU model emulates: public figures, one row each. Sources and how each
// figure is derived: docs/ipu-model.md.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "popart/devicemanager.hpp"
#include "popart/error.hpp"

namespace popart {

const std::vector<IpuTargetInfo>& ipuTargetList() {
  // clang-format off
  static const std::vector<IpuTargetInfo> targets = {
      // version, product, tiles, bytes/tile, clock, FLOPs/tile-cycle f32 f16 f8, workers,
      // exchange B/tile-cycle, IPU-Links, link B/s, host B/s, sync cycles, IPUs per chassis,
      // between-chassis B/s
      {"ipu1", "Colossus Mk1 GC2 (C2 card)", 1216, 256 * 1024, 1.6e9, 16, 64, 0, 6, 4, 3, 64e9, 32e9, 200, 16, 12.5e9},
      {"ipu2", "Colossus Mk2 GC200 (IPU-M2000)", 1472, 624 * 1024, 1.33e9, 32, 128, 0, 6, 4, 10, 32e9, 32e9, 200, 4,
       25e9},
      {"ipu21", "Colossus Mk2 with FP8 (C600 card)", 1472, 624 * 1024, 1.486e9, 32, 128, 256, 6, 4, 10, 32e9, 32e9,
       200, 8, 12.5e9},
  };
  // clang-format on
  return targets;
}

const IpuTargetInfo& ipuTarget(const std::string& version) {
  std::string known;
  for (const auto& t : ipuTargetList()) {
    if (t.version == version) return t;
    known += (known.empty() ? "" : ", ") + t.version;
  }
  throw error("Unknown IPU version '{}' (known: {})", version, known);
}

std::string ipuTargetJson(const IpuTargetInfo& t) {
  return nlohmann::json{{"version", t.version},
                        {"product", t.product},
                        {"tilesPerIpu", t.tilesPerIpu},
                        {"bytesPerTile", t.bytesPerTile},
                        {"clockHz", t.clockHz},
                        {"flopsPerTileCycleFloat", t.flopsPerTileCycleFloat},
                        {"flopsPerTileCycleHalf", t.flopsPerTileCycleHalf},
                        {"flopsPerTileCycleFp8", t.flopsPerTileCycleFp8},
                        {"workerContexts", t.workerContexts},
                        {"exchangeBytesPerTileCycle", t.exchangeBytesPerTileCycle},
                        {"ipuLinksPerIpu", t.ipuLinksPerIpu},
                        {"ipuLinkBytesPerSec", t.ipuLinkBytesPerSec},
                        {"hostBytesPerSec", t.hostBytesPerSec},
                        {"syncCycles", t.syncCycles},
                        {"ipusPerChassis", t.ipusPerChassis},
                        {"gatewayBytesPerSec", t.gatewayBytesPerSec}}
      .dump();
}

}  // namespace popart
