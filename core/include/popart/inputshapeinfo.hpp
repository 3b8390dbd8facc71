// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file inputshapeinfo.hpp
/// `InputShapeInfo`: per-input TensorInfo overrides; they win over the ONNX model's shapes.

#include <map>

#include "popart/tensorinfo.hpp"

namespace popart {

class InputShapeInfo {
 public:
  InputShapeInfo() = default;
  void add(const TensorId& id, const TensorInfo& info) { infos_[id] = info; }
  /// Throws popart::error if `id` was not added.
  const TensorInfo& get(const TensorId& id) const;
  bool has(const TensorId& id) const { return infos_.count(id) != 0; }
  const std::map<TensorId, TensorInfo>& getInfos() const { return infos_; }

 private:
  std::map<TensorId, TensorInfo> infos_;
};

}  // namespace popart
