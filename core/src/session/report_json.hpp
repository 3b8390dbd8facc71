// The profiling reports as JSON documents (docs/ipu-model.md, "Report schema"): the graph report
// (target, memory by tile and category, ops, tensors with their tile mapping and liveness) and
// the execution report (runs and the simulated cycles). JSON text or CBOR bytes.
#pragma once

#include <string>

#include "popart/report.hpp"

namespace popart {

std::string graphReportJson(const report::Compilation& c, bool cbor);
std::string executionReportJson(const report::Report& r, bool cbor);
/// The CPU device without profiling: {"profilerMode": "NONE"}.
std::string noProfileJson(bool cbor);

}  // namespace popart
