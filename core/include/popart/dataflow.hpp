// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file dataflow.hpp
/// `DataFlow`: batches per step and the anchors (tensors returned to the host), each with an
/// `AnchorReturnType` (All, EveryN(N), Final, Sum).

#include <map>
#include <string>
#include <vector>

#include "popart/names.hpp"

namespace popart {

enum class AnchorReturnTypeId { Final = 0, EveryN, All, Sum };
/// Where a stream's data lives on the IPU (kept for API compatibility).
enum class TileSet { Compute = 0, IO };
enum class ExchangeStrategy { JustInTime = 0, OverlapInnerLoop, OverlapLoops, OverlapStep, N };

class AnchorReturnType {
 public:
  /// "All" by default.
  AnchorReturnType();
  /// "All", "Final", "Sum" (any case). "EveryN" needs a period: use the other constructor.
  explicit AnchorReturnType(std::string artString, TileSet tileSet = TileSet::Compute,
                            ExchangeStrategy exchangeStrategy = ExchangeStrategy::JustInTime);
  /// "EveryN" with a return period (> 0).
  AnchorReturnType(std::string artString, int returnPeriod, TileSet tileSet = TileSet::Compute,
                   ExchangeStrategy exchangeStrategy = ExchangeStrategy::JustInTime);

  AnchorReturnTypeId id() const { return id_; }
  /// The return period; only for EveryN (otherwise an error, as in PopART).
  int rp() const;
  const std::string& str() const { return str_; }
  TileSet tileSet() const { return tileSet_; }
  ExchangeStrategy exchangeStrategy() const { return exchangeStrategy_; }
  std::size_t hash() const;

 private:
  AnchorReturnTypeId id_ = AnchorReturnTypeId::All;
  int returnPeriod_ = 0;
  std::string str_ = "All";
  TileSet tileSet_ = TileSet::Compute;
  ExchangeStrategy exchangeStrategy_ = ExchangeStrategy::JustInTime;
};

using AnchorReturnTypeMap = std::map<TensorId, AnchorReturnType>;

/// How one input stream feeds the replicas (PopART's ReplicatedStreamMode).
enum class ReplicatedStreamMode {
  Replicate = 0,  ///< each replica reads its own micro-batch: the host array has a replica dimension
  Broadcast,      ///< one host micro-batch goes to every replica: no replica dimension
  N
};

/// PopART's InputSettings: what `Builder::addInputTensor(info, settings)` records for a stream
/// input. The replicated stream mode acts (Session::run, stepio shapes); the tile set and
/// exchange strategy are kept in the model and have no effect here (no IO tiles, no overlap).
class InputSettings {
 public:
  InputSettings() = default;
  InputSettings(TileSet tileSet, ExchangeStrategy exchangeStrategy)
      : tileSet_(tileSet), exchangeStrategy_(exchangeStrategy) {}
  InputSettings(ReplicatedStreamMode replicatedStreamMode)  // NOLINT: implicit, as PopART's
      : replicatedStreamMode_(replicatedStreamMode) {}

  const TileSet& tileSet() const { return tileSet_; }
  const ExchangeStrategy& exchangeStrategy() const { return exchangeStrategy_; }
  ReplicatedStreamMode replicatedStreamMode() const { return replicatedStreamMode_; }
  void setTileSet(TileSet t) { tileSet_ = t; }
  void setExchangeStrategy(ExchangeStrategy e) { exchangeStrategy_ = e; }
  void setReplicatedStreamMode(ReplicatedStreamMode m) { replicatedStreamMode_ = m; }

 private:
  TileSet tileSet_ = TileSet::Compute;
  ExchangeStrategy exchangeStrategy_ = ExchangeStrategy::JustInTime;
  ReplicatedStreamMode replicatedStreamMode_ = ReplicatedStreamMode::Replicate;
};

class DataFlow {
 public:
  /// batchesPerStep 0, no anchors.
  DataFlow();
  explicit DataFlow(int batchesPerStep);
  DataFlow(int batchesPerStep, const AnchorReturnTypeMap& anchorMap);
  /// Legacy form: the same return type for every listed anchor.
  DataFlow(int batchesPerStep, const std::vector<TensorId>& anchorIds,
           const AnchorReturnType& art = AnchorReturnType("All"));
  /// poponnx's form (2018-19), e.g. `DataFlow(500, 4, {"l1LossVal"}, AnchorReturnType("ALL"))`: the
  /// listed anchors all get `art`. `batchSize` (> 0) is not used, as the batch size comes from the
  /// model's input shapes: it is logged as deprecated, and a session warns if an input's first
  /// dimension differs from it.
  DataFlow(int batchesPerStep, int batchSize, const std::vector<TensorId>& anchorIds, const AnchorReturnType& art);

  bool isAnchored(const TensorId& id) const;
  /// The anchors, in map-key order.
  const std::vector<TensorId>& anchors() const { return anchors_; }
  int nAnchors() const { return static_cast<int>(anchors_.size()); }
  int batchesPerStep() const { return batchesPerStep_; }
  /// The batchSize given to poponnx's form; 0 for the other forms.
  int batchSize() const { return batchSize_; }
  void setBatchesPerStep(int bps) { batchesPerStep_ = bps; }
  /// The return type of an anchor; "Tensor X is not an anchor" otherwise.
  const AnchorReturnType& art(const TensorId& id) const;
  const AnchorReturnTypeMap& getAnchorReturnTypeMap() const { return m_; }
  std::size_t hash() const;

 private:
  void validate() const;
  int batchesPerStep_ = 0;
  int batchSize_ = 0;
  AnchorReturnTypeMap m_;
  std::vector<TensorId> anchors_;
};

}  // namespace popart
