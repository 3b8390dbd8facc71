// The kernels' thread pool (see popart/threads.hpp): parallelFor over task indices, the caller
// running a share. Nested calls, calls from a pool thread, and calls while another thread holds
// the pool run serially in the caller, so kernels may use parallelFor without knowing who calls.
#pragma once

#include <cstdint>
#include <type_traits>

#include "popart/threads.hpp"

namespace popart {
namespace detail {
/// Runs fn(ctx, i) for every i in [0, n) and returns when all have finished; the first exception
/// thrown by any task is rethrown here (the remaining tasks still run).
void parallelForImpl(int64_t n, void (*fn)(void*, int64_t), void* ctx);
}  // namespace detail

/// f(i) for i in [0, n), spread over getNumThreads() threads.
template <typename F>
void parallelFor(int64_t n, F&& f) {
  detail::parallelForImpl(
      n, [](void* ctx, int64_t i) { (*static_cast<std::remove_reference_t<F>*>(ctx))(i); }, &f);
}

}  // namespace popart
