// Logging: per-module levels, environment configuration, line formatting.
#include "popart/logging.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/strings.hpp"
#include "popart/error.hpp"
#include "popart/logsink.hpp"

#if !defined(__EMSCRIPTEN__)
#include <unistd.h>
#endif

namespace popart {
namespace logging {
namespace {

constexpr size_t kModules = static_cast<size_t>(Module::N);
const std::array<const char*, kModules> kModuleNames{"popart",  "session", "ir",  "devicex", "transform", "pattern",
                                                     "builder", "op",      "opx", "ces",     "python",    "none"};
const std::array<const char*, 7> kLevelNames{"TRACE", "DEBUG", "INFO", "WARN", "ERR", "CRITICAL", "OFF"};
const std::array<char, 7> kLevelLetters{'T', 'D', 'I', 'W', 'E', 'C', 'O'};

struct State {
  std::array<std::atomic<int>, kModules> levels;
  std::mutex mu;
  std::ostream* out = &std::cerr;
  std::ofstream file;
  LineSink sink;  // when set, the destination (setLineSink)

  State() {
    for (auto& l : levels) l = static_cast<int>(Level::Off);
    if (const char* lvl = std::getenv("POPART_LOG_LEVEL")) {
      try {
        const Level l = levelFromString(lvl);
        for (auto& x : levels) x = static_cast<int>(l);
      } catch (const error&) {
        std::cerr << "popart: ignoring invalid POPART_LOG_LEVEL '" << lvl << "'\n";
      }
    }
    if (const char* dest = std::getenv("POPART_LOG_DEST")) {
      try {
        setDest(dest);
      } catch (const error& e) {
        std::cerr << "popart: ignoring POPART_LOG_DEST: " << e.what() << "\n";
      }
    }
    if (const char* cfg = std::getenv("POPART_LOG_CONFIG")) readConfig(cfg);
  }

  void setDest(const std::string& d) {
    if (d == "stderr") {
      out = &std::cerr;
    } else if (d == "stdout") {
      out = &std::cout;
    } else {
      // A second file closes the first; a file that cannot be opened is an error and leaves the
      // current destination as it was.
      std::ofstream f(d, std::ios::app);
      if (!f) throw error("setLogDestination: cannot open '{}' for appending", d);
      out = &std::cerr;
      if (file.is_open()) file.close();
      file = std::move(f);
      out = &file;
      return;
    }
    if (file.is_open()) file.close();
  }

  // POPART_LOG_CONFIG names a JSON file {"module": "LEVEL", ...}; a flat object is all we read.
  void readConfig(const std::string& path) {
    std::ifstream f(path);
    if (!f) return;
    std::string txt((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<std::string> strings;
    for (size_t i = 0; i < txt.size(); ++i) {
      if (txt[i] != '"') continue;
      const size_t j = txt.find('"', i + 1);
      if (j == std::string::npos) break;
      strings.push_back(txt.substr(i + 1, j - i - 1));
      i = j;
    }
    for (size_t i = 0; i + 1 < strings.size(); i += 2) {
      try {
        levels[static_cast<size_t>(moduleFromString(strings[i]))] = static_cast<int>(levelFromString(strings[i + 1]));
      } catch (const error&) {
      }
    }
  }
};

State& state() {
  static State s;
  return s;
}

/// True on a thread while it runs the line sink: a line the sink itself logs goes to the stream
/// (no recursion).
thread_local bool inSink = false;

struct SinkCall {
  SinkCall() { inSink = true; }
  ~SinkCall() { inSink = false; }
  SinkCall(const SinkCall&) = delete;
  SinkCall& operator=(const SinkCall&) = delete;
};

/// Sends one line to the destination: the line sink (without the lock: the function may log or
/// change the destination) or the stream (flushed when `flush`).
void emit(Level l, Module m, const std::string& line, bool flush) {
  auto& s = state();
  LineSink sink;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.sink || inSink) {
      *s.out << line << '\n';
      if (flush) s.out->flush();
      return;
    }
    sink = s.sink;
  }
  SinkCall guard;
  sink(l, m, line);
}

}  // namespace

void setLogLevel(Module m, Level l) {
  state().levels[static_cast<size_t>(m)] = static_cast<int>(l);
}

void setLogLevel(Level l) {
  for (auto& x : state().levels) x = static_cast<int>(l);
}

Level getLogLevel(Module m) {
  return static_cast<Level>(state().levels[static_cast<size_t>(m)].load());
}

Level levelFromString(const std::string& s) {
  const std::string u = asciiUpper(s);
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (u == kLevelNames[i]) return static_cast<Level>(i);
  }
  if (u == "ERROR") return Level::Err;
  if (u == "WARNING") return Level::Warn;
  throw error("Invalid log level '{}'; expected one of TRACE, DEBUG, INFO, WARN, ERR, CRITICAL, OFF", s);
}

Module moduleFromString(const std::string& s) {
  for (size_t i = 0; i < kModuleNames.size(); ++i) {
    if (s == kModuleNames[i]) return static_cast<Module>(i);
  }
  throw error("Invalid logging module '{}'", s);
}

std::string levelToString(Level l) {
  return kLevelNames.at(static_cast<size_t>(l));
}
std::string moduleToString(Module m) {
  return kModuleNames.at(static_cast<size_t>(m));
}

void setLogDestination(const std::string& dest) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.setDest(dest);
  s.sink = nullptr;  // a stream destination replaces a function (setLineSink)
}

bool shouldLog(Module m, Level l) {
  return l != Level::Off && static_cast<int>(l) >= state().levels[static_cast<size_t>(m)].load();
}

void log(Module m, Level l, const std::string& msg) {
  if (!shouldLog(m, l)) return;
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  char ts[32];
  std::tm tmv{};
#if defined(_WIN32)
  localtime_s(&tmv, &t);
#else
  localtime_r(&t, &tmv);
#endif
  std::strftime(ts, sizeof ts, "%H:%M:%S", &tmv);
#if defined(__EMSCRIPTEN__)
  const long pid = 0;
#else
  const long pid = static_cast<long>(getpid());
#endif
  const size_t tid = std::hash<std::thread::id>()(std::this_thread::get_id()) % 100000;
  char msbuf[8];
  std::snprintf(msbuf, sizeof msbuf, ".%03d", static_cast<int>(ms));
  const std::string line = std::string(ts) + msbuf + " popart:" + kModuleNames[static_cast<size_t>(m)] + ' ' +
                           std::to_string(pid) + '.' + std::to_string(tid) + ' ' +
                           kLevelLetters[static_cast<size_t>(l)] + ": " + msg;
  emit(l, m, line, l >= Level::Err);
}

void print(const std::string& text) {
  emit(Level::Info, Module::op, text, true);
}

void setLineSink(LineSink sink) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sink = std::move(sink);
  if (!s.sink) s.out->flush();
}

void flush() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.out->flush();
}

}  // namespace logging

void Logger::setLevel(const std::string& level) {
  const logging::Level l = logging::levelFromString(level);
  if (name_ == "all") {
    logging::setLogLevel(l);
  } else {
    logging::setLogLevel(logging::moduleFromString(name_), l);
  }
}

void Logger::emit(logging::Level l, const std::string& msg) {
  const logging::Module m = name_ == "all" ? logging::Module::popart : logging::moduleFromString(name_);
  logging::log(m, l, msg);
}

void Logger::debug(const std::string& msg) {
  emit(logging::Level::Debug, msg);
}
void Logger::info(const std::string& msg) {
  emit(logging::Level::Info, msg);
}
void Logger::warn(const std::string& msg) {
  emit(logging::Level::Warn, msg);
}
void Logger::error(const std::string& msg) {
  emit(logging::Level::Err, msg);
}
void Logger::critical(const std::string& msg) {
  emit(logging::Level::Critical, msg);
}

Logger getLogger(const std::string& name) {
  if (name != "all") logging::moduleFromString(name);  // validates
  return Logger(name);
}

}  // namespace popart
