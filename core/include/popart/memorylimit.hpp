// Copyright (c) the popart-runtime authors. Public header.
// The host-memory limit (an extension: PopART sizes its buffers for IPU memory).
//
// Every buffer the runtime sizes from a model or from a user's value (tensor data, constant
// folding results, a session's activations, weights and scratch memory, anchor and input arrays)
// is computed in 64 bits with overflow checks and compared with one limit before it is allocated,
// so that a model that cannot fit fails with an error naming its largest tensors, instead of
// exhausting the machine or, in WebAssembly, wrapping a 32-bit size.
//
// The default limit is what the platform can give: natively the machine's physical memory; in
// WebAssembly the module's maximum memory (2 GiB, or `createPopart({ maximumMemory })`).
// POPART_MEMORY_LIMIT (bytes, or with a K, M or G suffix: "512M") lowers it for the process;
// setMemoryLimit() sets it from code. Fuzzers and services use it as an allocation budget.
#pragma once

#include <cstdint>
#include <string>

namespace popart {

/// Sets the limit in bytes (> 0), or restores the default with 0. A value over what the platform
/// can give is clamped to it.
void setMemoryLimit(int64_t bytes);
/// The limit in bytes now in force.
int64_t getMemoryLimit();
/// What the platform can give (the default limit): physical memory natively, the module's
/// maximum memory in WebAssembly.
int64_t getPlatformMemoryLimit();
/// For embedders whose platform gives less than the runtime detects (the JS package calls it
/// when a WebAssembly module is created with a smaller maximum memory): lowers
/// getPlatformMemoryLimit() to `bytes` (> 0).
void lowerPlatformMemoryLimit(int64_t bytes);
/// The limit in force and where it comes from, e.g. "2.00 GiB (2147483648 bytes) (the
/// WebAssembly module's maximum memory)".
std::string describeMemoryLimit();

}  // namespace popart
