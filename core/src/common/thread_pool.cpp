#include "common/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "popart/error.hpp"

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define POPART_NO_THREADS 1
#endif

namespace popart {
namespace {

thread_local bool tInRegion = false;  // this thread is running a task (or is a pool thread)

// Busy-wait before blocking, in time (a pause instruction takes from a few to over a hundred
// cycles, depending on the CPU): a futex wake-up of a sleeping worker costs tens of microseconds,
// and on a VM whose idle virtual CPU halted, milliseconds.
constexpr auto kSpinTime = std::chrono::microseconds(500);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Spins (pausing) while `busy()` holds, for at most kSpinTime (the caller then blocks).
template <typename F>
void spinWhile(F busy) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  do {
    for (int i = 0; i < 64; ++i) {
      if (!busy()) return;
      relax();
    }
  } while (std::chrono::steady_clock::now() < until);
}

class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }

  // Lock-free: tasks (which run while the caller holds runMutex_) ask for it too.
  int size() const { return size_.load(std::memory_order_relaxed); }

  void resize(int n) {
    if (n < 1) throw error("setNumThreads: the number of threads must be at least 1 (got {})", n);
#if defined(POPART_NO_THREADS)
    n = 1;
#elif defined(POPART_MAX_THREADS)
    n = std::min(n, POPART_MAX_THREADS);  // wasm: the pre-started worker pool's size + 1
#endif
    std::lock_guard<std::mutex> hold(runMutex_);
    if (static_cast<size_t>(n) == workers_.size() + 1) return;
    stopWorkers();
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { workerLoop(); });
    size_.store(n);
  }

  void run(int64_t n, void (*fn)(void*, int64_t), void* ctx) {
    std::unique_lock<std::mutex> hold(runMutex_, std::try_to_lock);
    if (n <= 1 || tInRegion || !hold.owns_lock() || workers_.empty()) {
      for (int64_t i = 0; i < n; ++i) fn(ctx, i);
      return;
    }
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = fn;
      ctx_ = ctx;
      n_ = n;
      next_.store(0);
      finished_ = 0;
      error_ = nullptr;
      const uint64_t gen = ++generation_;
      gate_.store(gen << kGenShift);  // open, nobody joined
    }
    wake_.notify_all();
    tInRegion = true;
    work();
    tInRegion = false;
    // Close the region: a worker that has not joined by now (not scheduled yet: its core is busy
    // with another process) never runs its tasks, so only the ones that joined are waited for.
    // Waiting for every worker instead cost a scheduler time slice per region on a loaded machine
    // (two threads ran the MLP ten times slower than one while another process held a core).
    const uint64_t joined = gate_.fetch_or(kClosed) & kCountMask;
    // Tasks are short (a GEMM block): spin on completion before sleeping.
    spinWhile([&] { return finished_.load(std::memory_order_acquire) != joined; });
    std::unique_lock<std::mutex> lk(m_);
    done_.wait(lk, [&] { return finished_.load() == joined; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

  ~Pool() {
    std::lock_guard<std::mutex> hold(runMutex_);
    stopWorkers();
  }

 private:
  Pool() {
    int n = 1;
    if (const char* env = std::getenv("POPART_NUM_THREADS")) n = std::max(1, std::atoi(env));
    resize(n);
  }

  // Takes task indices until none is left.
  void work() {
    for (int64_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) {
      try {
        fn_(ctx_, i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }

  void workerLoop() {
    tInRegion = true;  // a task's own parallelFor runs serially in this thread
    uint64_t seen = 0;
    for (;;) {
      // Kernels issue parallel regions back to back: spin a while before sleeping, since a
      // futex wake-up costs tens of microseconds (~60 us on this VM), as much as a small GEMM.
      spinWhile([&] { return generation_.load(std::memory_order_acquire) == seen; });
      {
        std::unique_lock<std::mutex> lk(m_);
        wake_.wait(lk, [&] { return stop_ || generation_.load() != seen; });
        if (stop_) return;
        seen = generation_.load();
      }
      if (!join(seen)) continue;  // the caller finished that region alone
      work();
      std::lock_guard<std::mutex> lk(m_);
      finished_.fetch_add(1, std::memory_order_release);
      done_.notify_one();
    }
  }

  // Joins region `gen` if it is still the current one and open.
  bool join(uint64_t gen) {
    uint64_t s = gate_.load(std::memory_order_acquire);
    for (;;) {
      if ((s >> kGenShift) != (gen & kGenMask) || (s & kClosed)) return false;
      if (gate_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) return true;
    }
  }

  void stopWorkers() {  // runMutex_ held
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    size_.store(1);
    stop_ = false;
  }

  std::atomic<int> size_{1};
  std::mutex runMutex_;  // one parallel region (or resize) at a time
  std::mutex m_;         // the job fields below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
  std::atomic<uint64_t> generation_{0};
  void (*fn_)(void*, int64_t) = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  // The region's gate: its generation (low 32 bits) above kGenShift, kClosed once the caller has
  // done its share, and the count of workers that joined it below.
  static constexpr int kGenShift = 32;
  static constexpr uint64_t kGenMask = 0xffffffffu;
  static constexpr uint64_t kClosed = uint64_t{1} << 31;
  static constexpr uint64_t kCountMask = kClosed - 1;
  std::atomic<uint64_t> gate_{0};
  std::atomic<uint64_t> finished_{0};  // workers of the region that joined and are done
  std::exception_ptr error_;
};

}  // namespace

void setNumThreads(int n) {
  Pool::get().resize(n);
}

int getNumThreads() {
  return Pool::get().size();
}

namespace detail {
void parallelForImpl(int64_t n, void (*fn)(void*, int64_t), void* ctx) {
  Pool::get().run(n, fn, ctx);
}
}  // namespace detail

}  // namespace popart
