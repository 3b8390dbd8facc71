// Checked sizes and the memory limit.
#include "common/checked_size.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "popart/error.hpp"
#include "popart/memorylimit.hpp"
#include "popart/ndarraywrapper.hpp"

#if defined(__EMSCRIPTEN__)
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace popart {
namespace {

enum class Source { Platform, Environment, User };

struct LimitState {
  std::atomic<int64_t> user{0};  // setMemoryLimit; 0 = not set
  int64_t env = 0;               // POPART_MEMORY_LIMIT; 0 = not set
  std::atomic<int64_t> platform{0};
  std::string platformName;

  LimitState() {
#if defined(__EMSCRIPTEN__)
    platform = static_cast<int64_t>(emscripten_get_heap_max());
    platformName = "the WebAssembly module's maximum memory";
#else
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const int64_t phys = pages > 0 && pageSize > 0 ? checkedProduct({pages, pageSize}) : kMax;
    platform = phys < 0 ? kMax : phys;
    platformName = "the machine's physical memory";
    rlimit rl{};
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < static_cast<rlim_t>(platform)) {
      platform = static_cast<int64_t>(rl.rlim_cur);
      platformName = "the process's address-space limit (ulimit -v)";
    }
#endif
    if (const char* e = std::getenv("POPART_MEMORY_LIMIT")) {
      env = parse(e);
      if (env <= 0) std::fprintf(stderr, "popart: ignoring invalid POPART_MEMORY_LIMIT '%s'\n", e);
    }
  }

  // "1073741824", "512M", "2G", "64k": bytes, or -1 when malformed.
  static int64_t parse(const std::string& s) {
    if (s.empty()) return -1;
    size_t i = 0;
    int64_t v = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (!checkedMul(v, 10, &v) || !checkedAdd(v, s[i] - '0', &v)) return -1;
    }
    if (i == 0) return -1;
    int64_t mult = 1;
    if (i < s.size()) {
      switch (s[i]) {
        case 'k':
        case 'K':
          mult = int64_t{1} << 10;
          break;
        case 'm':
        case 'M':
          mult = int64_t{1} << 20;
          break;
        case 'g':
        case 'G':
          mult = int64_t{1} << 30;
          break;
        default:
          return -1;
      }
      ++i;
      if (i < s.size() && (s[i] == 'B' || s[i] == 'b')) ++i;
    }
    if (i != s.size() || !checkedMul(v, mult, &v)) return -1;
    return v;
  }

  int64_t limit(Source* src) const {
    int64_t l = platform.load();
    Source s = Source::Platform;
    const int64_t u = user.load();
    if (u > 0 && u < l) {
      l = u;
      s = Source::User;
    } else if (u == 0 && env > 0 && env < l) {
      l = env;
      s = Source::Environment;
    }
    if (src) *src = s;
    return l;
  }
};

LimitState& state() {
  static LimitState s;
  return s;
}

}  // namespace

void setMemoryLimit(int64_t bytes) {
  if (bytes < 0) throw error("setMemoryLimit: the limit must be >= 0 bytes (0 restores the default), got {}", bytes);
  state().user = bytes;
}

int64_t getMemoryLimit() {
  return state().limit(nullptr);
}

void lowerPlatformMemoryLimit(int64_t bytes) {
  if (bytes <= 0) throw error("the platform memory limit must be > 0 bytes, got {}", bytes);
  LimitState& st = state();
  if (bytes < st.platform) st.platform = bytes;
}

int64_t getPlatformMemoryLimit() {
  return state().platform;
}

int64_t checkedProduct(std::initializer_list<int64_t> factors) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f < 0 || !checkedMul(p, f, &p)) return -1;
  }
  return p;
}

int64_t checkedProduct(const Shape& shape) {
  int64_t p = 1;
  for (int64_t f : shape) {
    if (f < 0 || !checkedMul(p, f, &p)) return -1;
  }
  return p;
}

std::string formatBytes(int64_t bytes) {
  if (bytes < 0) return "more than 2^63 bytes";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return std::string(buf) + " (" + std::to_string(bytes) + " bytes)";
}

std::string memoryLimitSource() {
  Source s;
  state().limit(&s);
  switch (s) {
    case Source::User:
      return "set by setMemoryLimit";
    case Source::Environment:
      return "set by POPART_MEMORY_LIMIT";
    case Source::Platform:
      break;
  }
  return state().platformName;
}

bool allocationFits(int64_t bytes) {
  return bytes >= 0 && bytes <= getMemoryLimit() && static_cast<uint64_t>(bytes) <= std::numeric_limits<size_t>::max();
}

std::string describeMemoryLimit() {
  return formatBytes(getMemoryLimit()) + " (" + memoryLimitSource() + ")";
}

void throwOverMemoryLimit(int64_t bytes, const std::string& what) {
  throw memory_allocation_err("{} needs {}, more than the memory limit of {} ({})", what, formatBytes(bytes),
                              formatBytes(getMemoryLimit()), memoryLimitSource());
}

namespace detail {
std::size_t ndarrayBytes(const TensorInfo& info) {
  auto what = [&] { return "an array of " + info.toString(); };
  if (info.dataType() == DataType::STRING)
    allocationSize(checkedProduct({info.nelms(), static_cast<int64_t>(sizeof(std::string))}), what);
  return allocationSize(info.nbytes(), what);
}
}  // namespace detail

}  // namespace popart
