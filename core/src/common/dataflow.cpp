// DataFlow, AnchorReturnType, InputShapeInfo and ReductionType names.
#include "popart/dataflow.hpp"

#include <functional>

#include "common/strings.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/logging.hpp"
#include "popart/op/loss.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

AnchorReturnTypeId artFromString(const std::string& s) {
  const std::string u = asciiUpper(s);
  if (u == "ALL") return AnchorReturnTypeId::All;
  if (u == "FINAL") return AnchorReturnTypeId::Final;
  if (u == "SUM") return AnchorReturnTypeId::Sum;
  if (u == "EVERYN") return AnchorReturnTypeId::EveryN;
  throw error("Invalid anchor return type ID supplied: {}", s);
}

}  // namespace

AnchorReturnType::AnchorReturnType() = default;

AnchorReturnType::AnchorReturnType(std::string artString, TileSet tileSet, ExchangeStrategy exchangeStrategy)
    : id_(artFromString(artString)), tileSet_(tileSet), exchangeStrategy_(exchangeStrategy) {
  if (id_ == AnchorReturnTypeId::EveryN) throw error("Must specify return period with option 'EVERYN'");
  str_ = enumToString(id_);
}

AnchorReturnType::AnchorReturnType(std::string artString, int returnPeriod, TileSet tileSet,
                                   ExchangeStrategy exchangeStrategy)
    : id_(artFromString(artString)),
      returnPeriod_(returnPeriod),
      tileSet_(tileSet),
      exchangeStrategy_(exchangeStrategy) {
  if (id_ != AnchorReturnTypeId::EveryN)
    throw error("A return period should not be supplied for this anchor return type");
  if (returnPeriod <= 0) throw error("Anchor return period must be greater than zero");
  str_ = enumToString(id_);
}

int AnchorReturnType::rp() const {
  if (id_ != AnchorReturnTypeId::EveryN)
    throw error("A return period should not be supplied for this anchor return type");
  return returnPeriod_;
}

std::size_t AnchorReturnType::hash() const {
  return std::hash<int>()(static_cast<int>(id_)) ^ (std::hash<int>()(returnPeriod_) << 1);
}

DataFlow::DataFlow() = default;
DataFlow::DataFlow(int batchesPerStep) : batchesPerStep_(batchesPerStep) {}

DataFlow::DataFlow(int batchesPerStep, const AnchorReturnTypeMap& anchorMap)
    : batchesPerStep_(batchesPerStep), m_(anchorMap) {
  for (const auto& kv : m_) anchors_.push_back(kv.first);
  validate();
}

DataFlow::DataFlow(int batchesPerStep, const std::vector<TensorId>& anchorIds, const AnchorReturnType& art)
    : batchesPerStep_(batchesPerStep) {
  for (const auto& id : anchorIds) m_.emplace(id, art);
  for (const auto& kv : m_) anchors_.push_back(kv.first);
  validate();
}

DataFlow::DataFlow(int batchesPerStep, int batchSize, const std::vector<TensorId>& anchorIds,
                   const AnchorReturnType& art)
    : DataFlow(batchesPerStep, anchorIds, art) {
  if (batchSize <= 0)
    throw error(
        "DataFlow(batchesPerStep, batchSize, anchors, art) (poponnx's form): batchSize must be greater than zero, "
        "got {}",
        batchSize);
  batchSize_ = batchSize;
  logging::session::warn(
      "DataFlow(batchesPerStep, batchSize, anchors, art) is poponnx's form and is deprecated: batchSize ({}) is not "
      "used, the batch size comes from the model's input shapes. Use DataFlow(batchesPerStep, anchors, art).",
      batchSize);
}

void DataFlow::validate() const {
  if (batchesPerStep_ <= 0) throw error("'Batches per step' must be greater than zero");
  for (const auto& kv : m_) {
    const AnchorReturnType& art = kv.second;
    if (art.id() != AnchorReturnTypeId::EveryN) continue;
    if (art.rp() > batchesPerStep_) throw error("Return period must be <= to the number of batches per step");
    if (batchesPerStep_ % art.rp() != 0)
      throw error("Return period must be a factor of the number of batches per step");
  }
}

bool DataFlow::isAnchored(const TensorId& id) const {
  return m_.count(id) != 0;
}

const AnchorReturnType& DataFlow::art(const TensorId& id) const {
  auto it = m_.find(id);
  if (it == m_.end()) throw error("Tensor {} is not an anchor", id);
  return it->second;
}

std::size_t DataFlow::hash() const {
  std::size_t h = std::hash<int>()(batchesPerStep_);
  for (const auto& kv : m_) h = h * 31 + std::hash<std::string>()(kv.first) + kv.second.hash();
  return h;
}

const TensorInfo& InputShapeInfo::get(const TensorId& id) const {
  auto it = infos_.find(id);
  if (it == infos_.end()) throw error("No input shape info for tensor '{}'", id);
  return it->second;
}

std::string reductionTypeToString(ReductionType r) {
  // The spelling of the ONNX "reduction" attribute, "None" for NoReduction.
  return r == ReductionType::NoReduction ? "None" : enumToString(r);
}

ReductionType reductionTypeFromString(const std::string& s) {
  const std::string u = asciiUpper(s);
  if (u == "SUM") return ReductionType::Sum;
  if (u == "MEAN") return ReductionType::Mean;
  if (u == "NONE" || u == "NOREDUCTION") return ReductionType::NoReduction;
  throw error("Invalid reduction type '{}'; expected Sum, Mean or None", s);
}

}  // namespace popart
