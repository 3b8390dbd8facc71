// Host threads used by the CPU kernels (an extension: PopART itself runs on IPUs).
//
// One process-wide pool: 1 thread (the caller's) by default, or POPART_NUM_THREADS from the
// environment when it is set. Large GEMMs (and the convolutions and matmuls built on them) split
// their columns or rows over the pool; results match a single-threaded run to rounding. A build
// without threads (WebAssembly without -pthread) always reports 1; the pthread WebAssembly build
// (popart_wasm_mt) allows up to 4.
#pragma once

namespace popart {

/// Sets how many threads kernels may use, the caller's included (>= 1; clamped to 1 in builds
/// without threads, to 4 in the pthread WebAssembly build). Not to be called while a session runs
/// in another thread.
void setNumThreads(int n);
/// The number of threads kernels may use (>= 1).
int getNumThreads();

}  // namespace popart
