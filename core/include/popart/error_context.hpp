// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file error_context.hpp
/// An error that another layer wrapped to say where it happened (the node whose shapes were being
/// inferred, the gradient being built, the constant being folded, the kernel being prepared).

#include <string>
#include <utility>

#include "popart/error.hpp"

namespace popart {

/// `what()` is the whole text, context included; `message()` is the innermost error's own
/// sentence: PopART's message where PopART has one for the same mistake. The Python binding gives
/// `message()` as the exception's `args[0]` (PopART's scripts compare it with ==, startswith,
/// endswith) and the whole text as its `fullMessage` attribute and a note (PEP 678).
class contextual_error : public error {
 public:
  contextual_error(const std::string& what, std::string message) : error(what), message_(std::move(message)) {}
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

/// The error's own sentence: `message()` of a contextual_error, else `what()`.
inline std::string ownMessage(const error& e) {
  const auto* c = dynamic_cast<const contextual_error*>(&e);
  return c ? c->message() : std::string(e.what());
}

/// `throw withContext(e, "while building the gradient of {}: {}", node, e.what())`: the formatted
/// text as what(), `e`'s own sentence as message().
template <typename... Args>
contextual_error withContext(const error& e, const std::string& fmt, const Args&... args) {
  return contextual_error(format(fmt, args...), ownMessage(e));
}

}  // namespace popart
