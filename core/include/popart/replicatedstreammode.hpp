// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file replicatedstreammode.hpp
/// PopART's header of `ReplicatedStreamMode`, which this runtime declares with InputSettings in
/// popart/dataflow.hpp.
#include "popart/dataflow.hpp"
