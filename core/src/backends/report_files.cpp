#include "backends/report_files.hpp"

#include <filesystem>

#include "onnx/model_io.hpp"
#include "popart/error.hpp"

namespace popart {
namespace {

report::FileWriter& userFileWriter() {
  static report::FileWriter w;
  return w;
}

/// The default report::FileWriter: the file system, the directory created, the file written
/// through a temporary renamed into place.
void writeToFileSystem(const std::string& path, const std::string& bytes) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw error("autoReport.directory: cannot create '{}': {}", dir.string(), ec.message());
  writeFileAtomically(path, bytes);
}

}  // namespace

void report::setFileWriter(FileWriter writer) {
  userFileWriter() = std::move(writer);
}

std::string autoReportDirectory(const SessionOptions& options, const std::string& sessionName) {
  const auto& eo = options.engineOptions;
  auto all = eo.find("autoReport.all");
  if (all == eo.end() || all->second != "true") return "";
  auto d = eo.find("autoReport.directory");
  return (std::filesystem::path(d == eo.end() || d->second.empty() ? "." : d->second) / sessionName).string();
}

void writeReportFile(const std::string& path, const std::string& bytes) {
  if (userFileWriter())
    userFileWriter()(path, bytes);
  else
    writeToFileSystem(path, bytes);
}

}  // namespace popart
