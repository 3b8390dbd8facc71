// The processes of a distributed session over Open MPI (distributed/process_group.hpp). Built with
// POPART_HAVE_MPI (CMake option POPART_MPI, on where libopenmpi-dev is found); without it
// world() says why a session cannot be distributed.
//
// Every collective is non-blocking and waited for with a deadline (collectiveTimeoutSeconds), so a
// process that died or never joined stops the others with an error instead of a hang. The
// session's own traffic runs on a duplicate of MPI_COMM_WORLD (a program's own MPI calls, through
// mpi4py say, do not mix with it), whose errors are returned rather than fatal.
#include "distributed/process_group.hpp"

#include <cstdlib>
#include <string>

#include "popart/error.hpp"
#include "popart/logging.hpp"

#if POPART_HAVE_MPI
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "common/element_type.hpp"
#endif

namespace popart {
namespace distributed {

namespace {
int envInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end && *end == '\0' && n >= 0 && n < (1L << 30) ? static_cast<int>(n) : fallback;
}
}  // namespace

LaunchInfo launchInfo() {
  LaunchInfo l;
  // Open MPI's mpirun, then PMIx and PMI launchers (MPICH, Slurm).
  const int size = envInt("OMPI_COMM_WORLD_SIZE", envInt("PMIX_SIZE", envInt("PMI_SIZE", -1)));
  if (size < 1) return l;
  l.launched = true;
  l.size = size;
  l.rank = envInt("OMPI_COMM_WORLD_RANK", envInt("PMIX_RANK", envInt("PMI_RANK", 0)));
  l.localRank = envInt("OMPI_COMM_WORLD_LOCAL_RANK", envInt("MPI_LOCALRANKID", 0));
  return l;
}

double collectiveTimeoutSeconds() {
  const char* v = std::getenv("POPART_DISTRIBUTED_TIMEOUT");
  if (!v || !*v) return 300.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (!end || *end != '\0' || !(s > 0))
    throw error("POPART_DISTRIBUTED_TIMEOUT='{}' must be a positive number of seconds", v);
  return s;
}

#if !POPART_HAVE_MPI

bool distributionAvailable() {
  return false;
}

ProcessGroup& world() {
  throw error(
      "Distributed replicated graphs (enableDistributedReplicatedGraphs) need this runtime built with Open MPI: a "
      "native build on a machine with libopenmpi-dev (CMake option POPART_MPI). The WebAssembly module cannot "
      "distribute a session; use local replicas (replicatedGraphCount) instead.");
}

#else

bool distributionAvailable() {
  return true;
}

namespace {

/// Set when MPI_Init did not return in time: the process cannot use MPI and must not wait for it
/// at exit.
bool g_initStuck = false;
/// Set when the processes fell out of step before the world was made: exit aborts the job.
bool g_abortAtExit = false;

/// The element types a sum across processes takes.
constexpr DataType kSummable[] = {DataType::FLOAT, DataType::DOUBLE,  DataType::INT32,
                                  DataType::INT64, DataType::FLOAT16, DataType::BFLOAT16};

/// The element count of one MPI call: below INT_MAX, and buckets of at most 16 MiB so that a large
/// model neither sends one message per tensor nor stages its whole gradient twice.
constexpr int64_t kBucketBytes = int64_t{16} << 20;

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    timeout_ = collectiveTimeoutSeconds();
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      startMpi(timeout_);
      ownsInit_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &req);
    try {
      wait(req, "starting the distributed session");
    } catch (const error&) {
      g_abortAtExit = true;
      throw;
    }
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    threaded_ = level >= MPI_THREAD_SERIALIZED;
    logging::session::info("Distributed: process {} of {} (MPI{})", rank_, size_,
                           ownsInit_ ? ", started by this runtime" : ", started by the program");
  }

  /// At exit: a world whose collective failed aborts the job (the other processes may be waiting
  /// in one); otherwise MPI is finalised if this runtime started it.
  void atExit() {
    stopSender();
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised) return;
    if (broken_) {
      MPI_Abort(MPI_COMM_WORLD, 1);
      return;
    }
    if (ownsInit_) MPI_Finalize();
  }

  /// MPI_Init waits for every process of the launch: it runs on a thread of its own, so that a
  /// process that never starts makes this one fail after `timeout` seconds instead of hanging.
  /// (MPI_THREAD_SERIALIZED: later calls come from the session's thread, one at a time.)
  static void startMpi(double timeout) {
    struct Start {
      std::mutex m;
      std::condition_variable cv;
      bool done = false;
      int rc = 0;
    };
    auto start = std::make_shared<Start>();
    std::thread([start] {
      int provided = 0;
      const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      std::lock_guard<std::mutex> lock(start->m);
      start->rc = rc;
      start->done = true;
      start->cv.notify_all();
    }).detach();
    std::unique_lock<std::mutex> lock(start->m);
    if (!start->cv.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return start->done; })) {
      g_initStuck = true;
      const LaunchInfo l = launchInfo();
      throw error(
          "MPI did not start within {} s (POPART_DISTRIBUTED_TIMEOUT): it waits for every process of the launch, and "
          "some did not get there (stopped, failed or still busy). This is process {} of {}",
          timeout, l.rank, l.size);
    }
    if (start->rc != MPI_SUCCESS) throw error("MPI could not start (MPI_Init_thread returned {})", start->rc);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allReduce(const std::vector<Buffer>& buffers, ReduceOp op) override {
    drain();
    reduceNow(buffers, op);
  }

  int64_t startAllReduce(const std::vector<Buffer>& buffers, ReduceOp op) override {
    if (!threaded_) {  // the program started MPI for one thread: no overlap
      reduceNow(buffers, op);
      return 0;
    }
    std::lock_guard<std::mutex> lock(m_);
    if (!sender_.joinable()) sender_ = std::thread([this] { sendLoop(); });
    jobs_.push_back({buffers, op});
    cv_.notify_all();
    return ++started_;
  }

  void finish(int64_t ticket) override {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return done_ >= ticket; });
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
  }

  void broadcast(const std::vector<Buffer>& buffers, int root) override {
    drain();
    broadcastNow(buffers, root);
  }

  std::vector<uint64_t> allGather(const std::vector<uint64_t>& mine) override {
    drain();
    return allGatherNow(mine);
  }

 private:
  struct Job {
    std::vector<Buffer> buffers;
    ReduceOp op;
  };

  /// The sender thread: the started reductions, one after another (MPI_THREAD_SERIALIZED: the
  /// session's thread makes no MPI call while any is pending, see drain()).
  void sendLoop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = jobs_.front();
      }
      std::exception_ptr e;
      try {
        reduceNow(job.buffers, job.op);
      } catch (...) {
        e = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m_);
      if (e && !failed_) failed_ = e;
      jobs_.pop_front();
      ++done_;
      cv_.notify_all();
    }
  }

  /// Waits for every started reduction (before a call from the session's thread).
  void drain() {
    int64_t last = 0;
    {
      std::lock_guard<std::mutex> lock(m_);
      last = started_;
    }
    if (last) finish(last);
  }

  void stopSender() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
      cv_.notify_all();
    }
    if (sender_.joinable()) sender_.join();
  }

  void reduceNow(const std::vector<Buffer>& buffers, ReduceOp op) {
    checkUsable("the sum across replicas");
    const bool logical = op == ReduceOp::LogicalAnd || op == ReduceOp::LogicalOr;
    for (const Buffer& b : buffers) {
      const bool ok = op == ReduceOp::BitOr ||
                      (logical ? b.type == DataType::BOOL
                               : std::find(std::begin(kSummable), std::end(kSummable), b.type) != std::end(kSummable));
      if (!ok) throw error("a combination across processes of {} tensors is not supported", dataTypeToString(b.type));
    }
    if (op == ReduceOp::BitOr || logical) {
      // Bytes: logical values are 0 / 1 bytes, a bitwise or of zero-filled parts is exact.
      std::vector<Buffer> bytes;
      for (const Buffer& b : buffers) bytes.push_back({b.data, DataType::UINT8, b.n * dataTypeSize(b.type)});
      std::vector<const Buffer*> all;
      for (const Buffer& b : bytes) {
        if (b.n > 0) all.push_back(&b);
      }
      if (!all.empty()) reduceType(DataType::UINT8, all, op);
      return;
    }
    // Buckets of one element type each: halves travel as floats (MPI has no 16-bit float sum).
    for (const DataType type : kSummable) {
      std::vector<const Buffer*> mine;
      for (const Buffer& b : buffers) {
        if (b.type == type && b.n > 0) mine.push_back(&b);
      }
      if (!mine.empty()) reduceType(type, mine, op);
    }
  }

  void broadcastNow(const std::vector<Buffer>& buffers, int root) {
    checkUsable("the broadcast");
    if (root < 0 || root >= size_)
      throw error("broadcast from rank {}: the processes are ranks 0 to {}", root, size_ - 1);
    for (const Buffer& b : buffers) {
      const int64_t bytes = b.n * dataTypeSize(b.type);
      for (int64_t at = 0; at < bytes; at += kBucketBytes) {
        const int chunk = static_cast<int>(std::min(kBucketBytes, bytes - at));
        MPI_Request req;
        check(MPI_Ibcast(static_cast<char*>(b.data) + at, chunk, MPI_BYTE, root, comm_, &req), "the broadcast");
        wait(req, "the broadcast");
      }
    }
  }

  std::vector<uint64_t> allGatherNow(const std::vector<uint64_t>& mine) {
    checkUsable("the exchange of settings");
    std::vector<uint64_t> all(mine.size() * static_cast<size_t>(size_));
    MPI_Request req;
    check(MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                         static_cast<int>(mine.size()), MPI_UINT64_T, comm_, &req),
          "the exchange of settings");
    wait(req, "the exchange of settings");
    return all;
  }

  std::vector<std::string> allGatherStrings(const std::string& mine) override {
    drain();
    const std::vector<uint64_t> sizes = allGatherNow({static_cast<uint64_t>(mine.size())});
    std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
    int64_t total = 0;
    for (int r = 0; r < size_; ++r) {
      counts[static_cast<size_t>(r)] = static_cast<int>(sizes[static_cast<size_t>(r)]);
      displs[static_cast<size_t>(r)] = static_cast<int>(total);
      total += static_cast<int64_t>(sizes[static_cast<size_t>(r)]);
    }
    if (total > (int64_t{1} << 30)) throw error("the processes' settings are too long to exchange ({} bytes)", total);
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Request req;
    check(MPI_Iallgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(),
                          displs.data(), MPI_CHAR, comm_, &req),
          "the exchange of settings");
    wait(req, "the exchange of settings");
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<size_t>(displs[static_cast<size_t>(r)]),
                               static_cast<size_t>(counts[static_cast<size_t>(r)])));
    return out;
  }

 private:
  void checkUsable(const char* what) const {
    if (broken_)
      throw error("{}: an earlier collective of this distributed session failed; the processes are no longer in step",
                  what);
  }

  void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    broken_ = true;
    throw error("{} between the processes failed (process {} of {}): {}", what, rank_, size_, std::string(text, len));
  }

  /// Waits for `req` until the deadline: a process that died or never joined makes this an error.
  void wait(MPI_Request& req, const char* what) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration<double>(timeout_);
    int spins = 0;
    for (;;) {
      int done = 0;
      check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what);
      if (done) return;
      if (clock::now() > deadline) {
        broken_ = true;
        throw error(
            "{}: the other processes did not take part within {} s (POPART_DISTRIBUTED_TIMEOUT): a process of the "
            "job stopped, failed or is still busy elsewhere. This is process {} of {}; when it exits, the job is "
            "aborted",
            what, timeout_, rank_, size_);
      }
      // Spin briefly (a reduction usually completes within microseconds), then sleep a little.
      if (++spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(std::min(spins - 1000, 1000)));
    }
  }

  static MPI_Op mpiOp(ReduceOp op) {
    switch (op) {
      case ReduceOp::Prod:
        return MPI_PROD;
      case ReduceOp::Min:
        return MPI_MIN;
      case ReduceOp::Max:
        return MPI_MAX;
      case ReduceOp::LogicalAnd:
        return MPI_LAND;
      case ReduceOp::LogicalOr:
        return MPI_LOR;
      case ReduceOp::BitOr:
        return MPI_BOR;
      default:
        return MPI_SUM;
    }
  }

  static MPI_Datatype wireType(DataType t) {
    switch (t) {
      case DataType::UINT8:
        return MPI_UINT8_T;
      case DataType::DOUBLE:
        return MPI_DOUBLE;
      case DataType::INT32:
        return MPI_INT32_T;
      case DataType::INT64:
        return MPI_INT64_T;
      default:  // FLOAT, and the 16-bit floats summed as floats
        return MPI_FLOAT;
    }
  }

  /// The buffers of one type, packed into buckets, summed, unpacked.
  void reduceType(DataType type, const std::vector<const Buffer*>& buffers, ReduceOp op) {
    const bool half = type == DataType::FLOAT16 || type == DataType::BFLOAT16;
    const int64_t wireSize = half ? 4 : dataTypeSize(type);
    const int64_t capacity = kBucketBytes / wireSize;
    std::vector<char> bucket(static_cast<size_t>(capacity * wireSize));
    struct Piece {
      const Buffer* b;
      int64_t from, n;
    };
    std::vector<Piece> pieces;
    int64_t used = 0;
    auto flush = [&] {
      if (!used) return;
      MPI_Request req;
      check(MPI_Iallreduce(MPI_IN_PLACE, bucket.data(), static_cast<int>(used), wireType(type), mpiOp(op), comm_, &req),
            "the sum across replicas");
      wait(req, "the sum across replicas");
      int64_t at = 0;
      for (const Piece& p : pieces) {
        unpack(type, bucket.data() + at * wireSize, *p.b, p.from, p.n);
        at += p.n;
      }
      pieces.clear();
      used = 0;
    };
    for (const Buffer* b : buffers) {
      for (int64_t from = 0; from < b->n;) {
        const int64_t n = std::min(b->n - from, capacity - used);
        pack(type, *b, from, n, bucket.data() + used * wireSize);
        pieces.push_back({b, from, n});
        used += n;
        from += n;
        if (used == capacity) flush();
      }
    }
    flush();
  }

  template <typename T>
  static void toFloats(const Buffer& b, int64_t from, int64_t n, char* dst) {
    const T* src = static_cast<const T*>(b.data) + from;
    float* out = reinterpret_cast<float*>(dst);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(src[i]);
  }
  template <typename T>
  static void fromFloats(const char* src, const Buffer& b, int64_t from, int64_t n) {
    T* out = static_cast<T*>(b.data) + from;
    const float* in = reinterpret_cast<const float*>(src);
    for (int64_t i = 0; i < n; ++i) out[i] = T(in[i]);
  }

  static void pack(DataType type, const Buffer& b, int64_t from, int64_t n, char* dst) {
    if (type == DataType::FLOAT16) return toFloats<float16_t>(b, from, n, dst);
    if (type == DataType::BFLOAT16) return toFloats<bfloat16_t>(b, from, n, dst);
    const int64_t size = dataTypeSize(type);
    std::memcpy(dst, static_cast<const char*>(b.data) + from * size, static_cast<size_t>(n * size));
  }

  static void unpack(DataType type, const char* src, const Buffer& b, int64_t from, int64_t n) {
    if (type == DataType::FLOAT16) return fromFloats<float16_t>(src, b, from, n);
    if (type == DataType::BFLOAT16) return fromFloats<bfloat16_t>(src, b, from, n);
    const int64_t size = dataTypeSize(type);
    std::memcpy(static_cast<char*>(b.data) + from * size, src, static_cast<size_t>(n * size));
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool ownsInit_ = false;
  std::atomic<bool> broken_{false};
  bool threaded_ = false;  ///< MPI allows calls from the sender thread
  // The sender thread and its queue (startAllReduce / finish).
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::thread sender_;
  int64_t started_ = 0, done_ = 0;
  bool stop_ = false;
  std::exception_ptr failed_;
  double timeout_ = 300.0;
};

MpiWorld* g_world = nullptr;

}  // namespace

ProcessGroup& world() {
  if (g_initStuck) throw error("MPI did not start earlier in this process: it cannot be distributed");
  if (!g_world) {
    static const bool registered = [] {
      std::atexit([] {
        if (g_initStuck) return;  // MPI_Init never returned: nothing to finalise
        if (g_world) return g_world->atExit();
        int initialised = 0, finalised = 0;
        MPI_Initialized(&initialised);
        MPI_Finalized(&finalised);
        if (initialised && !finalised && g_abortAtExit) MPI_Abort(MPI_COMM_WORLD, 1);
      });
      return true;
    }();
    (void)registered;
    g_world = new MpiWorld();  // lives until exit: MPI is finalised (or the job aborted) then
  }
  return *g_world;
}

#endif

}  // namespace distributed
}  // namespace popart
