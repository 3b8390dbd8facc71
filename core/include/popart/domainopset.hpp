// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file domainopset.hpp
/// Base of the Builder's per-domain, per-version op builders (`AiOnnxOpset11`, ...).

#include <map>
#include <string>
#include <vector>

#include "popart/debugcontext.hpp"
#include "popart/names.hpp"

namespace popart {

class BuilderImpl;
class Builder;

class DomainOpSet {
 public:
  /// Registers the opset requirement with the builder (throws if the domain already has
  /// another version).
  DomainOpSet(BuilderImpl* impl, const std::string& domain, int version);
  virtual ~DomainOpSet() = default;
  virtual int getOpsetVersion() const { return version_; }
  const std::string& getDomain() const { return domain_; }

 protected:
  /// Adds a node; returns its output ids. `attributes` values are int64_t, float, std::string,
  /// std::vector of those, ConstVoidData (tensor) or const Builder* (subgraph).
  /// `minInputs`/`maxInputs` (-1: any) are checked, as is every input id.
  std::vector<TensorId> op(const char* opType, const std::vector<TensorId>& inputs, unsigned numOutputs,
                           const std::map<std::string, any>& attributes, const DebugContext& debugContext,
                           int minInputs, int maxInputs) const;
  BuilderImpl* impl_;
  std::string domain_;
  int version_;
};

}  // namespace popart
