// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file error.hpp
/// Exceptions thrown by the runtime. All derive from `std::runtime_error`, so
/// `catch (const std::exception&)` sees them; `what()` is a message in the user's vocabulary
/// (node, op, tensor, shape) rather than the name of an internal pass.

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "popart/format.hpp"

namespace popart {

/// A user-facing error: bad input, a call in the wrong order, an unsupported feature.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& what) : std::runtime_error(what) {}
  explicit error(const char* what) : std::runtime_error(what) {}
  /// `error("tensor {} not found", id)`: `{}` placeholders are filled in order.
  template <typename A, typename... Args>
  error(const std::string& fmt, const A& a, const Args&... args) : std::runtime_error(format(fmt, a, args...)) {}
};

/// A broken internal invariant (a bug in this library, not in the user's model).
class internal_error : public error {
 public:
  using error::error;
};

/// An error raised while a session runs (PopART's `popart::runtime_error`).
class runtime_error : public error {
 public:
  using error::error;
};

/// Poplar's runtime errors (Python: `popart.poplar_runtime_error`, a `popart.poplar_exception`): a
/// run that reaches an `aiGraphcore.abort` op raises it, with a message starting "Abort Program".
class poplar_runtime_error : public runtime_error {
 public:
  using runtime_error::runtime_error;
};

/// The errors PopART passes on from Poplar (Python: `popart.poplar_exception`): an engine option
/// Poplar does not know ("Unrecognised option 'x'"), a profile asked of a device that keeps none
/// ("Profiling is disabled for current device type.").
class poplar_error : public error {
 public:
  using error::error;
};

/// The device cannot hold the graph (tile memory exhausted on the IPU model).
class memory_allocation_err : public error {
 public:
  using error::error;
};

/// `prepareDevice` on an IPU device whose tiles cannot hold the program (an offline IPU, or the IPU
/// model with the engine option `debug.allowOutOfMemory` = `false`). The message names the worst
/// tiles and the largest tensors on them; the summary report has the whole memory picture.
class OutOfMemoryException : public memory_allocation_err {
 public:
  OutOfMemoryException(const std::string& what, std::string summaryReport, std::string profilePath = "",
                       std::string graphReport = "")
      : memory_allocation_err(what),
        summary_(std::move(summaryReport)),
        profilePath_(std::move(profilePath)),
        graphReport_(std::move(graphReport)) {}
  const std::string& getSummaryReport() const { return summary_; }
  /// Where autoReport wrote the reports ("" when it did not).
  const std::string& getProfilePath() const { return profilePath_; }
  /// The graph report (Session::getGraphReport's JSON) of the compilation that did not fit: the
  /// memory of every tile, the ones over capacity marked ("" for a host allocation). Not in
  /// PopART, whose graph report of a failed compilation is in the profile directory.
  const std::string& getGraphReport() const { return graphReport_; }

 private:
  std::string summary_;
  std::string profilePath_;
  std::string graphReport_;
};

/// Thrown when `popart::Patterns` names a pattern that does not exist.
class pattern_error : public error {
 public:
  using error::error;
};

/// One exception class of the bindings (Python's `popart.popart_exception`, JS's
/// `popart.popart_exception`, ...): its name, the name of its base class ("" for the language's
/// own: Python's RuntimeError, JS's Error) and its doc string.
struct ErrorClass {
  const char* name;
  const char* base;
  const char* doc;
};
/// PopART's exception classes, each base before its subclasses: the one list the Python and JS
/// bindings make their classes from.
const std::vector<ErrorClass>& errorClasses();
/// The name of the class in errorClasses() that `e` is raised as in Python and JS (an
/// OutOfMemoryException as "OutOfMemoryException", an internal_error as
/// "popart_internal_exception", ...; an exception that is not a popart::error as
/// "popart_exception").
const char* errorClassOf(const std::exception& e);

}  // namespace popart

/// Checks user input in every build type: `POPART_CHECK(cond, "fmt {}", arg)`.
#define POPART_CHECK(cond, ...)                      \
  do {                                               \
    if (!(cond)) throw ::popart::error(__VA_ARGS__); \
  } while (0)

/// Checks an internal invariant in every build type.
#define POPART_ASSERT(cond)                                                                                        \
  do {                                                                                                             \
    if (!(cond))                                                                                                   \
      throw ::popart::internal_error("internal error: assertion '{}' failed at {}:{}", #cond, __FILE__, __LINE__); \
  } while (0)
