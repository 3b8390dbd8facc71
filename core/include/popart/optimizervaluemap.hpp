// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file optimizervaluemap.hpp
/// PopART's header name for `OptimizerValueMap`, which lives in optimizervalue.hpp.

#include "popart/optimizervalue.hpp"
