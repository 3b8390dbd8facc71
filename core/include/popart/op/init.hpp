// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/init.hpp
/// How `aiGraphcore.init` fills the tensor it creates (PopART's `InitType`).

namespace popart {

/// NoInit leaves the values unspecified (this runtime gives zeros); Zero fills with zeros.
enum class InitType { NoInit = 0, Zero, N };

}  // namespace popart
