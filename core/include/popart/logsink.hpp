// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file logsink.hpp
/// A log destination that is a function (JS: popart.setLogDestination(fn), which the page's log
/// panel uses): every line the stream destination would get, with its level and module, goes to
/// the function instead.

#include <functional>
#include <string>

#include "popart/logging.hpp"

namespace popart {
namespace logging {

/// `line` is the whole line as the stream destination gets it, without the newline (PopART's
/// format; printtensor's text as it is, with level Info and module op).
using LineSink = std::function<void(Level level, Module module, const std::string& line)>;

/// Sends every line to `sink` in place of stderr / stdout / the file; an empty sink restores the
/// stream destination. The sink is called without the logger's lock held; a line it logs itself goes
/// to the stream.
void setLineSink(LineSink sink);

}  // namespace logging
}  // namespace popart
