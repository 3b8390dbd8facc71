// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file popart.hpp
/// Includes the whole public API.

#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/builder.hpp"
#include "popart/clipnormsettings.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/logging.hpp"
#include "popart/memorylimit.hpp"
#include "popart/ndarraywrapper.hpp"
#include "popart/op/identity.hpp"
#include "popart/op/l1.hpp"
#include "popart/op/loss.hpp"
#include "popart/op/nll.hpp"
#include "popart/optimizer.hpp"
#include "popart/optimizervalue.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/sgd.hpp"
#include "popart/stepio.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/voiddata.hpp"
