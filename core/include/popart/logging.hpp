// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file logging.hpp
/// PopART's logging: levels TRACE..OFF per module, configured from the environment
/// (`POPART_LOG_LEVEL`, `POPART_LOG_DEST` = stderr | stdout | a file path, `POPART_LOG_CONFIG` =
/// a JSON object mapping module names to levels) or from code.
/// Line format: `<time> popart:<module> <pid>.<tid> <T|D|I|W|E|C>: message`.

#include <string>

#include "popart/format.hpp"

namespace popart {
namespace logging {

enum class Level { Trace = 0, Debug = 1, Info = 2, Warn = 3, Err = 4, Critical = 5, Off = 6, N = 7 };

enum class Module { popart = 0, session, ir, devicex, transform, pattern, builder, op, opx, ces, python, none, N };

/// Sets the level of one module.
void setLogLevel(Module m, Level l);
/// Sets the level of every module.
void setLogLevel(Level l);
Level getLogLevel(Module m);
/// Level from its name ("TRACE", "DEBUG", "INFO", "WARN", "ERR", "CRITICAL", "OFF"; any case).
/// Throws popart::error for another name.
Level levelFromString(const std::string& s);
/// Module from its name ("popart", "session", "ir", ..., "all" is not a module).
Module moduleFromString(const std::string& s);
std::string levelToString(Level l);
std::string moduleToString(Module m);
/// Sends log lines to "stderr", "stdout" or a file path.
void setLogDestination(const std::string& dest);
bool shouldLog(Module m, Level l);
/// Writes one line (already formatted) if the module's level allows it.
void log(Module m, Level l, const std::string& msg);
/// Writes `text` and a newline to the log destination whatever the levels, with no prefix and
/// flushed (aiGraphcore.printtensor's output, which Poplar writes to stderr).
void print(const std::string& text);
/// Flushes the destination.
void flush();

template <typename... Args>
void logf(Module m, Level l, const std::string& fmt, const Args&... args) {
  if (shouldLog(m, l)) log(m, l, format(fmt, args...));
}

#define POPART_LOGGING_LEVEL_FUNCTIONS(MODULE)         \
  template <typename... Args>                          \
  void trace(const std::string& f, const Args&... a) { \
    logf(Module::MODULE, Level::Trace, f, a...);       \
  }                                                    \
  template <typename... Args>                          \
  void debug(const std::string& f, const Args&... a) { \
    logf(Module::MODULE, Level::Debug, f, a...);       \
  }                                                    \
  template <typename... Args>                          \
  void info(const std::string& f, const Args&... a) {  \
    logf(Module::MODULE, Level::Info, f, a...);        \
  }                                                    \
  template <typename... Args>                          \
  void warn(const std::string& f, const Args&... a) {  \
    logf(Module::MODULE, Level::Warn, f, a...);        \
  }                                                    \
  template <typename... Args>                          \
  void err(const std::string& f, const Args&... a) {   \
    logf(Module::MODULE, Level::Err, f, a...);         \
  }                                                    \
  template <typename... Args>                          \
  void crit(const std::string& f, const Args&... a) {  \
    logf(Module::MODULE, Level::Critical, f, a...);    \
  }                                                    \
  inline bool isEnabled(Level l) {                     \
    return shouldLog(Module::MODULE, l);               \
  }

// logging::info(...) logs under the "popart" module; logging::ir::info(...) under "ir", ...
POPART_LOGGING_LEVEL_FUNCTIONS(popart)
namespace session {
POPART_LOGGING_LEVEL_FUNCTIONS(session)
}
namespace ir {
POPART_LOGGING_LEVEL_FUNCTIONS(ir)
}
namespace devicex {
POPART_LOGGING_LEVEL_FUNCTIONS(devicex)
}
namespace transform {
POPART_LOGGING_LEVEL_FUNCTIONS(transform)
}
namespace pattern {
POPART_LOGGING_LEVEL_FUNCTIONS(pattern)
}
namespace builder {
POPART_LOGGING_LEVEL_FUNCTIONS(builder)
}
namespace op {
POPART_LOGGING_LEVEL_FUNCTIONS(op)
}
namespace opx {
POPART_LOGGING_LEVEL_FUNCTIONS(opx)
}
namespace ces {
POPART_LOGGING_LEVEL_FUNCTIONS(ces)
}

#undef POPART_LOGGING_LEVEL_FUNCTIONS

}  // namespace logging

/// PopART's Python-style logger handle: `popart::getLogger("all").setLevel("TRACE")`.
class Logger {
 public:
  explicit Logger(std::string name = "all") : name_(std::move(name)) {}
  /// Sets the level of this logger's module ("all": every module).
  void setLevel(const std::string& level);
  void debug(const std::string& msg);
  void info(const std::string& msg);
  void warn(const std::string& msg);
  void error(const std::string& msg);
  void critical(const std::string& msg);
  const std::string& name() const { return name_; }

 private:
  void emit(logging::Level l, const std::string& msg);
  std::string name_;
};

/// Returns a logger for a module name, or "all".
Logger getLogger(const std::string& name = "all");

}  // namespace popart
