// The IPU model: lays a prepared IR out on an emulated IPU target (tile mapping of every tensor,
// memory per tile over the schedule, cycles per op in bulk-synchronous supersteps, several IPUs
// and pipelining). The equations and constants are in docs/ipu-model.md; this file's constants
// are the ones that page lists.
#pragma once

#include <cstdint>

#include "popart/devicemanager.hpp"
#include "popart/report.hpp"

namespace popart {

class Ir;

namespace ipu_model {

/// The model's constants (docs/ipu-model.md, "Constants").
struct ModelConstants {
  /// A tensor is spread over ceil(bytes / minBytesPerTile) tiles (at most the IPU's).
  int64_t minBytesPerTile = 512;
  /// Contractions (MatMul, Gemm, Conv, RNNs) reach this fraction of the AMP's peak per tile.
  double ampEfficiency = 0.85;
  /// Elementwise and other vector ops: elements per worker instruction (64-bit vectors).
  int vectorBytes = 8;
  /// Data-movement ops (copies, transposes, gathers): bytes per tile-cycle.
  int copyBytesPerTileCycle = 8;
  /// Cycles the supervisor takes to launch a compute set's vertices on a tile.
  int computeSetOverheadCycles = 50;
  /// Code per tile for each distinct vertex type it runs, contractions and others.
  int64_t codeBytesContraction = 6 * 1024;
  int64_t codeBytesOther = 1024;
  /// Control code on every tile of an IPU, per superstep of the program.
  int64_t controlBytesPerSuperstep = 16;
  /// Exchange receive buffers: what an op receives per tile, up to this (larger operands arrive in
  /// chunks of it).
  int64_t maxExchangeBufferBytes = 64 * 1024;
  /// Vertex state per op per tile: a base plus one field per operand.
  int64_t vertexStateBytes = 64;
  int64_t vertexStateBytesPerOperand = 16;
};

/// Lays `ir` (prepared: scheduled, patterns applied) out on `device` (an IPU model or an offline
/// IPU). Throws popart::error for placement errors (virtualGraph / pipelineStage annotations
/// missing or out of range, numIPUs that the replication factor does not divide).
report::Compilation modelCompilation(const Ir& ir, const DeviceInfo& device, const ModelConstants& k = {});

/// The program cycles of `microBatches` micro-batches (and their host transfers) under the
/// compilation's cycle model: a run of `microBatches / batches` micro-batches per batch.
report::Run modelRun(const report::Compilation& c, int64_t batches, int64_t microBatchesPerBatch);

}  // namespace ipu_model
}  // namespace popart
