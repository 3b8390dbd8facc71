// The kernels' thread pool (common/thread_pool.hpp): every index runs exactly once, errors reach
// the caller and leave the pool usable, nested regions run serially, bad thread counts are refused.
#include <atomic>
#include <vector>

#include "common/test_util.hpp"
#include "common/thread_pool.hpp"

namespace popart {
namespace {

struct Threads {
  explicit Threads(int n) { setNumThreads(n); }
  ~Threads() { setNumThreads(1); }
};

TEST(ThreadPool, EveryIndexOnce) {
  Threads two(2);
  for (int64_t n : {0, 1, 2, 3, 17, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    for (auto& h : hits) h = 0;
    parallelFor(n, [&](int64_t i) { ++hits[static_cast<size_t>(i)]; });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << i << " of " << n;
  }
}

TEST(ThreadPool, ErrorsReachTheCallerAndThePoolKeepsWorking) {
  Threads two(2);
  std::atomic<int> ran{0};
  test::expectError(
      [&] {
        parallelFor(8, [&](int64_t i) {
          ++ran;
          if (i == 5) throw error("task {} failed", i);
        });
      },
      {"task 5 failed"});
  EXPECT_EQ(ran.load(), 8);  // the other tasks still ran
  std::atomic<int64_t> sum{0};
  parallelFor(100, [&](int64_t i) { sum += i; });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ThreadPool, NestedRegionsRunSerially) {
  Threads two(2);
  std::atomic<int64_t> sum{0};
  parallelFor(4, [&](int64_t i) { parallelFor(10, [&](int64_t j) { sum += i * 10 + j; }); });
  EXPECT_EQ(sum.load(), 780);  // 0 + 1 + ... + 39
}

TEST(ThreadPool, TasksMayAskForTheThreadCount) {
  // Kernels inside a task (a GEMM in Winograd's 16 products) query the count: no deadlock, on
  // one thread or two.
  for (int n : {1, 2}) {
    Threads t(n);
    std::atomic<int> seen{0};
    parallelFor(4, [&](int64_t) { seen += getNumThreads(); });
    EXPECT_EQ(seen.load(), 4 * n);
  }
}

TEST(ThreadPool, ThreadCount) {
  Threads two(2);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  EXPECT_EQ(getNumThreads(), 1);
#else
  EXPECT_EQ(getNumThreads(), 2);
#endif
  test::expectError([] { setNumThreads(0); }, {"at least 1", "got 0"});
  setNumThreads(1);
  EXPECT_EQ(getNumThreads(), 1);
}

}  // namespace
}  // namespace popart
