// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/l1.hpp
/// `L1Loss` (pre-1.2 loss API): declared with the other losses in popart/op/loss.hpp.

#include "popart/op/loss.hpp"
