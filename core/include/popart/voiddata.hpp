// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file voiddata.hpp
/// Untyped views of host memory with a TensorInfo. They never own the memory.

#include "popart/tensorinfo.hpp"

namespace popart {

/// A read-only view: `data` must outlive every use of the view.
struct ConstVoidData {
  ConstVoidData() = default;
  ConstVoidData(const void* d, const TensorInfo& i) : data(d), info(i) {}
  const void* data = nullptr;
  TensorInfo info;
  /// Store the view's element data in `storage` so the view stays valid on its own.
  void store(std::vector<char>&& storage, const TensorInfo& i) {
    owned_ = std::move(storage);
    data = owned_.data();
    info = i;
  }

 private:
  std::vector<char> owned_;
};

/// A writable view.
struct MutableVoidData {
  MutableVoidData() = default;
  MutableVoidData(void* d, const TensorInfo& i) : data(d), info(i) {}
  void* data = nullptr;
  TensorInfo info;
};

}  // namespace popart
