#include "session/external_weights.hpp"

#include <sys/stat.h>
#include <cstdio>
#include <fstream>
#include <vector>

#include "ir/ir.hpp"
#include "onnx/external_data.hpp"
#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/session.hpp"

namespace popart {

namespace {

std::string currentLocation(const std::string& original, const std::map<std::string, std::string>& renames) {
  auto it = renames.find(original);
  return it == renames.end() ? original : it->second;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

void writeExternalInitializer(onnx::TensorProto& tp, const TensorData* d,
                              const std::map<std::string, std::string>& renames, const std::string& baseDir) {
  const std::string location = currentLocation(externalLocation(tp), renames);
  int64_t offset = 0, length = -1;
  for (auto& kv : *tp.mutable_external_data()) {
    if (kv.key() == "location") kv.set_value(location);
    if (kv.key() == "offset") offset = std::stoll(kv.value());
    if (kv.key() == "length") length = std::stoll(kv.value());
  }
  // The file must be there even when there is nothing new to write (PopART opens it too): a
  // relative location is resolved as on load, so a moved working directory is an error here.
  const std::string path = externalDataPath(location, baseDir);
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  if (!f.is_open())
    throw error(
        "Trying to update initializer '{}', stored in file '{}', when writing modelToHost. Failed to open file '{}'",
        tp.name(), location, path);
  if (!d) return;
  const int64_t n = d->info().nbytes();
  if (length >= 0 && length != n)
    throw error(
        "Trying to update initializer '{}', stored in file '{}', when writing modelToHost: its external data length "
        "{} does not match {} ({} bytes)",
        tp.name(), location, length, d->info().toString(), n);
  f.seekp(offset, std::ios::beg);
  f.write(static_cast<const char*>(d->data()), static_cast<std::streamsize>(n));
  f.flush();
  if (!f) throw error("modelToHost: writing initializer '{}' into its external file '{}' failed", tp.name(), path);
}

void Session::updateExternallySavedTensorLocations(const std::string& fromLocation, const std::string& toLocation) {
  const std::string to = externalDataPath(toLocation, modelBaseDir_);
  const std::string from = externalDataPath(fromLocation, modelBaseDir_);
  if (exists(to))
    throw error("Updating externally saved tensor location from file '{}' to file '{}', but file '{}' already exists",
                fromLocation, toLocation, toLocation);
  if (!exists(from))
    throw error("Updating externally saved tensor location from file '{}' to file '{}', but file '{}' does not exist",
                fromLocation, toLocation, fromLocation);
  std::vector<std::string> originals;
  for (const auto& tp : ir_->model().graph().initializer()) {
    const std::string loc = externalLocation(tp);
    if (!loc.empty() && currentLocation(loc, externalLocations_) == fromLocation) originals.push_back(loc);
  }
  if (originals.empty()) throw error("No ONNX model initializers have external location set to '{}'", fromLocation);
  // The data moves as it is (the same offsets): a copy of the file.
  {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw error("updateExternallySavedTensorLocations: cannot read '{}'", from);
    writeFileAtomically(to, bytes);
  }
  for (const auto& o : originals) {
    logging::session::debug("Changing the external data location from '{}' to '{}'", fromLocation, toLocation);
    externalLocations_[o] = toLocation;
  }
}

}  // namespace popart
