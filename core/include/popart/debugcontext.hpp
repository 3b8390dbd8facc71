// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file debugcontext.hpp
/// `DebugContext`: the optional name given to a Builder op or input. PopART code passes a plain
/// string, which converts implicitly. `DebugInfo` and initializePoplarDebugInfo /
/// closePoplarDebugInfo record debug contexts as PopART does through Poplar (docs/python-api.md,
/// "Debug info").

#include <cstdint>
#include <string>

namespace popart {

class DebugInfo;

class DebugContext {
 public:
  DebugContext() = default;
  DebugContext(const char* name) : name_(name ? name : "") {}        // NOLINT: implicit by design
  DebugContext(std::string name) : name_(std::move(name)) {}         // NOLINT: implicit by design
  DebugContext(const DebugContext& parent, const std::string& name)  // nested context
      : name_(parent.name_.empty() ? name : parent.name_ + "/" + name), parentId_(parent.parentId_) {}
  /// A context under a recorded DebugInfo (its id becomes the parentId of what is recorded with
  /// this context).
  inline DebugContext(const DebugInfo& parent, std::string name);
  /// The name given by the user ("" when none).
  const std::string& getPathName() const { return name_; }
  bool empty() const { return name_.empty(); }
  /// The debug-info context this one is under (-1: none).
  int64_t parentId() const { return parentId_; }

 private:
  std::string name_;
  int64_t parentId_ = -1;
};

/// A recorded debug context of a layer ("popartbuilder", "popart", or the user's own), with
/// fields set by setValue. Nothing is recorded unless initializePoplarDebugInfo is open.
class DebugInfo {
 public:
  DebugInfo(const DebugContext& debugContext, const std::string& layer);
  /// The context is written out when its DebugInfo ends, as Poplar's (so a context created
  /// under this one comes before it in the file).
  ~DebugInfo();
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;
  void setValue(const std::string& name, const std::string& value);
  /// Its id in the recording (-1 when nothing is being recorded).
  int64_t getId() const { return id_; }

 private:
  int64_t id_;
};

inline DebugContext::DebugContext(const DebugInfo& parent, std::string name)
    : name_(std::move(name)), parentId_(parent.getId()) {}

/// PopART's: starts recording the debug contexts of what the Builder and sessions create (one
/// context per Builder op and input, layer "popartbuilder"; one per op of each prepared IR,
/// layer "popart", with the Builder's context as its parent) and of DebugInfo objects, to be
/// written to `filename` by closePoplarDebugInfo. Only `format` "json" exists (Poplar also had
/// "cbor"). A second call before closing is an error.
void initializePoplarDebugInfo(const std::string& filename, const std::string& format = "json");
/// Writes the recording as Poplar's DebugInfo JSON ({"contexts": [{"id", "parentId", "layer",
/// "name" (a stringTable index), "category", "api", "opid", "inputs", "outputs", "attributes",
/// ...}], "stringTable": [...]}) and stops recording.
void closePoplarDebugInfo();
/// Not in PopART: closes the recording and returns its JSON text (also written to the file, if
/// one was given): for the JS package in a browser, which has no file system.
std::string closePoplarDebugInfoToString();

}  // namespace popart
