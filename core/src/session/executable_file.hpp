// The prepared session on disk: Session::compileAndExport / loadExecutable. A file holds the
// plan's hash (of the prepared IR, the options, the device and the constants' values), the
// runtime's version and the weights at export time (docs/python-api.md).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace popart {

class DeviceInfo;
class Ir;
class TensorInfo;

struct ExecutableFile {
  struct Weight {
    std::string dtype;
    std::vector<int64_t> shape;
    std::vector<char> bytes;
  };
  std::string hash;
  std::string version;
  std::string device;
  std::map<std::string, Weight> weights;
};

/// The hash a plan is valid for: the prepared IR (ops, attributes, shapes, schedule), every
/// option, the device, the anchors and the values of the constants (which kernels precompute
/// from; weights train), as 16 hex digits.
std::string planHash(const Ir& ir, const DeviceInfo& device);
/// What the processes of a distributed session must agree on, each part named and hashed (16 hex
/// digits): the model, the session options (all but each process's own replica settings), the
/// data flow, the device; last the weights' current values (which broadcastWeights can align).
std::vector<std::pair<std::string, std::string>> distributedAgreement(const Ir& ir, const DeviceInfo& device);

/// `f` as the bytes of an executable file (a magic number, then CBOR).
std::string executableBytes(const ExecutableFile& f);
/// Writes `f` to `path` (via a temporary file and a rename; parent directories are made).
void writeExecutableFile(const std::string& path, const ExecutableFile& f);
/// Parses the bytes of an executable file; a popart::error names `what` (the path, say) when they
/// are not one.
ExecutableFile executableFromBytes(const std::string& bytes, const std::string& what);
/// Reads an executable file; a popart::error names the path when it is not one.
ExecutableFile readExecutableFile(const std::string& path);

}  // namespace popart
