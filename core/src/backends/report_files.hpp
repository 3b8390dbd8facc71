// Where the engine option autoReport.all writes the reports, and the writer that writes them
// (report::setFileWriter: the file system by default, Node's fs in the WebAssembly module). Used
// by the session after prepareDevice and each run, and by the IPU model for an out-of-memory
// summary.
#pragma once

#include <string>

#include "popart/report.hpp"
#include "popart/sessionoptions.hpp"

namespace popart {

/// <autoReport.directory, default "."> / <session name> when autoReport.all is "true", else "".
std::string autoReportDirectory(const SessionOptions& options, const std::string& sessionName);

/// Writes one report file through the installed report::FileWriter (throws popart::error when it
/// cannot).
void writeReportFile(const std::string& path, const std::string& bytes);

}  // namespace popart
