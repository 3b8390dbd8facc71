// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file debugcontext.hpp
/// `DebugContext`: the optional name given to a Builder op or input. PopART code passes a plain
/// string, which converts implicitly.

#include <string>

namespace popart {

class DebugContext {
 public:
  DebugContext() = default;
  DebugContext(const char* name) : name_(name ? name : "") {}        // NOLINT: implicit by design
  DebugContext(std::string name) : name_(std::move(name)) {}         // NOLINT: implicit by design
  DebugContext(const DebugContext& parent, const std::string& name)  // nested context
      : name_(parent.name_.empty() ? name : parent.name_ + "/" + name) {}
  /// The name given by the user ("" when none).
  const std::string& getPathName() const { return name_; }
  bool empty() const { return name_.empty(); }

 private:
  std::string name_;
};

}  // namespace popart
