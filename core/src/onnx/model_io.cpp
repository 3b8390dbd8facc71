#include "onnx/model_io.hpp"

#include "onnx/external_data.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "popart/error.hpp"
#include "popart/logging.hpp"

#if !defined(__EMSCRIPTEN__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace popart {

bool isExistingFile(const std::string& s) {
  if (s.empty() || s.size() > 4096 || s.find('\0') != std::string::npos) return false;
  struct stat st {};
  return ::stat(s.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += (c >= 32 && c < 127) ? c : '.';
  if (s.size() > 64) out += "...";
  return out;
}

}  // namespace

std::string modelBaseDir(const std::string& modelProtoOrFilename) {
  if (!isExistingFile(modelProtoOrFilename)) return "";
  const auto slash = modelProtoOrFilename.find_last_of('/');
  return slash == std::string::npos ? "." : modelProtoOrFilename.substr(0, slash);
}

onnx::ModelProto parseModelBytes(const std::string& bytes, const std::string& what) {
  onnx::ModelProto m;
  if (bytes.empty()) throw error("Failed to load a ModelProto from {}: it is empty", what);
  if (!m.ParseFromString(bytes)) {
    throw error(
        "Failed to load a ModelProto from {} ({} bytes): the bytes are not a valid serialized "
        "ONNX ModelProto (corrupt or truncated)",
        what, bytes.size());
  }
  validateModel(m);
  return m;
}

onnx::ModelProto loadModel(const std::string& s) {
  if (isExistingFile(s)) {
    // Stream the file into the parser: no copy of the whole file in memory.
    const int fd = ::open(s.c_str(), O_RDONLY);
    if (fd < 0) throw error("Could not open the file '{}': {}", s, std::strerror(errno));
    onnx::ModelProto m;
    const bool ok = m.ParseFromFileDescriptor(fd);
    ::close(fd);
    if (!ok)
      throw error(
          "Failed to load a ModelProto from the file '{}': the bytes are not a valid serialized ONNX "
          "ModelProto (corrupt or truncated)",
          s);
    validateModel(m);
    return m;
  }
  onnx::ModelProto m;
  if (!s.empty() && m.ParseFromString(s) && m.has_graph()) {
    validateModel(m);
    return m;
  }
  const bool looksLikePath =
      s.size() < 4096 && s.find('\0') == std::string::npos && (s.find('/') != std::string::npos || s.size() < 256);
  if (looksLikePath && !s.empty()) {
    throw error(
        "Failed to load a ModelProto from the string '{}'. There is no file at that path, and "
        "it is not a serialized ONNX model. Check that it is either a valid path to an existing "
        "onnx model file, or is a valid onnx ModelProto string.",
        printable(s));
  }
  throw error(
      "Failed to load a ModelProto from the string ({} bytes): not a valid serialized ONNX "
      "ModelProto (corrupt or truncated). Check that it is either a valid path to an existing "
      "onnx model file, or is a valid onnx ModelProto string.",
      s.size());
}

void validateModel(const onnx::ModelProto& m) {
  if (!m.has_graph()) throw error("Invalid ONNX model: it has no graph (corrupt or truncated?)");
  const auto& g = m.graph();
  if (m.opset_import_size() == 0 && m.ir_version() >= 3) throw error("Invalid ONNX model: it declares no opset_import");
  std::set<std::string> defined;
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) throw error("Invalid ONNX model: an initializer has no name");
    defined.insert(t.name());
  }
  for (const auto& t : g.sparse_initializer()) defined.insert(t.values().name());
  for (const auto& vi : g.input()) {
    if (vi.name().empty()) throw error("Invalid ONNX model: a graph input has no name");
    defined.insert(vi.name());
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (n.op_type().empty())
      throw error("Invalid ONNX model: node {} ('{}') has no op_type (corrupt or truncated?)", i, n.name());
    for (const auto& o : n.output()) {
      if (!o.empty()) defined.insert(o);
    }
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    for (const auto& in : n.input()) {
      if (!in.empty() && !defined.count(in)) {
        // Subgraph nodes may read outer-scope names; only the main graph is checked here.
        throw error(
            "Invalid ONNX model: input '{}' of node '{}' ({}) is not a graph input, an "
            "initializer or the output of any node",
            in, n.name(), n.op_type());
      }
    }
  }
  for (const auto& o : g.output()) {
    if (!defined.count(o.name()))
      throw error("Invalid ONNX model: graph output '{}' is not produced by any node, input or initializer", o.name());
  }
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(reinterpret_cast<uintptr_t>(&bytes) % 100000);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw error("Cannot write '{}': could not create the temporary file '{}'", path, tmp);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      throw error("Cannot write '{}': writing {} bytes failed (disk full?)", path, bytes.size());
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw error("Cannot write '{}': renaming the temporary file into place failed: {}", path, std::strerror(errno));
  }
}

void saveModelAtomically(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw error("Cannot serialize the model for '{}'", path);
  writeFileAtomically(path, bytes);
}

// ------------------------------------------------------------------ tensors

namespace {

template <typename T, typename Field>
void copyField(const Field& f, TensorData& d, int64_t n, const std::string& name) {
  if (static_cast<int64_t>(f.size()) != n)
    throw error("initializer '{}' holds {} values but its shape needs {}", name, f.size(), n);
  T* p = d.as<T>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(f.Get(static_cast<int>(i)));
}

}  // namespace

TensorInfo protoTensorInfo(const onnx::TensorProto& tp) {
  Shape shape(tp.dims().begin(), tp.dims().end());
  for (auto d : shape) {
    if (d < 0) throw error("tensor '{}' has a negative dimension in shape {}", tp.name(), shape);
  }
  DataType t;
  try {
    t = dataTypeFromOnnx(tp.data_type());
  } catch (const error&) {
    throw error("tensor '{}' has an unsupported data type ({})", tp.name(), tp.data_type());
  }
  return TensorInfo(t, shape);
}

TensorData takeTensorFromProto(onnx::TensorProto& tp, const std::string& baseDir) {
  if (tp.has_raw_data() && tp.data_location() != onnx::TensorProto::EXTERNAL) {
    const TensorInfo info = protoTensorInfo(tp);
    if (info.dataType() != DataType::STRING && static_cast<int64_t>(tp.raw_data().size()) == info.nbytes())
      return TensorData::adopt(info, std::unique_ptr<std::string>(tp.release_raw_data()));
  }
  TensorData d = tensorFromProto(tp, baseDir);  // the other layouts, and its error messages
  delete tp.release_raw_data();                 // frees the bytes (clear_raw_data() would keep the capacity)
  return d;
}

TensorData tensorFromProto(const onnx::TensorProto& tp, const std::string& baseDir) {
  const TensorInfo info = protoTensorInfo(tp);
  const DataType t = info.dataType();
  const int64_t n = info.nelms();

  if (t == DataType::STRING) {
    TensorData d(info);
    if (tp.string_data_size() != n)
      throw error("string tensor '{}' holds {} values but its shape needs {}", tp.name(), tp.string_data_size(), n);
    for (int64_t i = 0; i < n; ++i) d.strings()[static_cast<size_t>(i)] = tp.string_data(static_cast<int>(i));
    return d;
  }

  if (tp.data_location() == onnx::TensorProto::EXTERNAL) {
    const ExternalDataRef ref = externalDataRef(tp);
    const std::string& location = ref.location;
    const int64_t offset = ref.offset, length = ref.length;
    // Absolute as is; relative to the model's directory, or (a model given as bytes, as PopART
    // does) to the working directory.
    const std::string path = externalDataPath(location, baseDir);
#if defined(__EMSCRIPTEN__)
    throw error(
        "tensor '{}' stores its data in the external file {}, which the WebAssembly module cannot read itself "
        "(in Node the JS API reads external data when a session or describeModel loads the model; in a browser "
        "there is no file system): put the data inline (GraphTransformer.inlineExternalData) or give the model "
        "with its initializers inside it (ONNX's onnx.save_model(model, path, save_as_external_data=False))",
        tp.name(), path);
#endif
    std::ifstream f(path, std::ios::binary);
    if (!f)
      throw error("tensor '{}' stores its data in the external file {}, but it doesn't exist or is not accessible{}",
                  tp.name(), path,
                  baseDir.empty() && location[0] != '/'
                      ? " (a relative location of a model given as bytes is relative to the working directory; "
                        "load the model from its file path to read it relative to the model)"
                      : "");
    const int64_t need = length >= 0 ? length : info.nbytes();
    if (need != info.nbytes())
      throw error("tensor '{}': external data length {} does not match {} ({} bytes)", tp.name(), need, info.toString(),
                  info.nbytes());
    std::string buf(static_cast<size_t>(need), '\0');
    f.seekg(offset);
    f.read(&buf[0], need);
    if (f.gcount() != need) throw error("tensor '{}': external data file '{}' is truncated", tp.name(), path);
    return TensorData(info, buf.data());
  }

  if (tp.has_raw_data()) {
    if (static_cast<int64_t>(tp.raw_data().size()) != info.nbytes())
      throw error("tensor '{}' has {} bytes of raw data but {} needs {}", tp.name(), tp.raw_data().size(),
                  info.toString(), info.nbytes());
    return TensorData(info, tp.raw_data().data());
  }

  TensorData d(info);
  if (n == 0) return d;
  switch (t) {
    case DataType::FLOAT:
      copyField<float>(tp.float_data(), d, n, tp.name());
      break;
    case DataType::DOUBLE:
      copyField<double>(tp.double_data(), d, n, tp.name());
      break;
    case DataType::INT64:
      copyField<int64_t>(tp.int64_data(), d, n, tp.name());
      break;
    case DataType::INT32:
      copyField<int32_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::INT16:
      copyField<int16_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::INT8:
      copyField<int8_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::UINT16:
      copyField<uint16_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::UINT8:
      copyField<uint8_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::BOOL: {
      if (static_cast<int64_t>(tp.int32_data_size()) != n)
        throw error("initializer '{}' holds {} values but its shape needs {}", tp.name(), tp.int32_data_size(), n);
      uint8_t* p = d.as<uint8_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = tp.int32_data(static_cast<int>(i)) != 0;  // 7 or 256: true
      break;
    }
    case DataType::FLOAT16:
      if (n > 1 && static_cast<int64_t>(tp.int32_data_size()) == (n + 1) / 2) {
        // PopART's Builder and modelToHost: two halves per int32, little-endian.
        std::memcpy(d.data(), tp.int32_data().data(), static_cast<size_t>(n) * 2);
        break;
      }
      copyField<uint16_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::BFLOAT16:
      copyField<uint16_t>(tp.int32_data(), d, n, tp.name());
      break;
    case DataType::UINT32:
      copyField<uint32_t>(tp.uint64_data(), d, n, tp.name());
      break;
    case DataType::UINT64:
      copyField<uint64_t>(tp.uint64_data(), d, n, tp.name());
      break;
    case DataType::COMPLEX64:
      copyField<float>(tp.float_data(), d, 2 * n, tp.name());
      break;
    case DataType::COMPLEX128:
      copyField<double>(tp.double_data(), d, 2 * n, tp.name());
      break;
    default:
      throw error("tensor '{}': data type {} cannot be read", tp.name(), dataTypeToString(t));
  }
  return d;
}

namespace {

template <typename T, typename Field>
void appendAll(const TensorData& d, Field* f) {
  const T* p = static_cast<const T*>(d.data());
  const int64_t n = d.info().nelms();
  f->Reserve(static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i) f->Add(p[i]);
}

/// The typed field PopART's Builder writes for `d`'s element type: one value per element, except
/// FLOAT16, two halves per int32 of int32_data (PopART's form; tensorFromProto reads both it and
/// ONNX's one-per-element form). False where raw_data is the only form (BFLOAT16, COMPLEX).
bool writeTypedField(const TensorData& d, onnx::TensorProto* tp) {
  switch (d.info().dataType()) {
    case DataType::FLOAT16: {
      const int64_t n = d.info().nelms();
      auto* f = tp->mutable_int32_data();
      f->Resize(static_cast<int>((n + 1) / 2), 0);
      if (n > 0) std::memcpy(f->mutable_data(), d.data(), static_cast<size_t>(n) * 2);  // empty: both null
      return true;
    }
    case DataType::FLOAT:
      appendAll<float>(d, tp->mutable_float_data());
      return true;
    case DataType::DOUBLE:
      appendAll<double>(d, tp->mutable_double_data());
      return true;
    case DataType::INT64:
      appendAll<int64_t>(d, tp->mutable_int64_data());
      return true;
    case DataType::INT32:
      appendAll<int32_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::INT16:
      appendAll<int16_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::INT8:
      appendAll<int8_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::UINT16:
      appendAll<uint16_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::UINT8:
      appendAll<uint8_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::BOOL:
      appendAll<uint8_t>(d, tp->mutable_int32_data());
      return true;
    case DataType::UINT32:
      appendAll<uint32_t>(d, tp->mutable_uint64_data());
      return true;
    case DataType::UINT64:
      appendAll<uint64_t>(d, tp->mutable_uint64_data());
      return true;
    default:
      return false;
  }
}

}  // namespace

void tensorToProto(const TensorData& d, onnx::TensorProto* tp, ProtoValues form) {
  const TensorInfo& info = d.info();
  tp->clear_dims();
  for (auto x : info.shape()) tp->add_dims(x);
  tp->set_data_type(onnxDataType(info.dataType()));
  tp->clear_raw_data();
  tp->clear_float_data();
  tp->clear_int32_data();
  tp->clear_int64_data();
  tp->clear_double_data();
  tp->clear_uint64_data();
  tp->clear_string_data();
  tp->clear_external_data();
  tp->set_data_location(onnx::TensorProto::DEFAULT);
  if (info.dataType() == DataType::STRING) {
    for (const auto& s : d.strings()) tp->add_string_data(s);
    return;
  }
  if (form == ProtoValues::Typed && writeTypedField(d, tp)) return;
  tp->set_raw_data(std::string(static_cast<const char*>(d.data()), static_cast<size_t>(info.nbytes())));
}

ProtoValues protoValuesOf(const onnx::TensorProto& tp) {
  if (tp.has_raw_data() || tp.data_location() == onnx::TensorProto::EXTERNAL) return ProtoValues::Raw;
  const bool typed = tp.float_data_size() || tp.int32_data_size() || tp.int64_data_size() || tp.double_data_size() ||
                     tp.uint64_data_size();
  return typed ? ProtoValues::Typed : ProtoValues::Raw;
}

TensorInfo infoFromValueInfo(const onnx::ValueInfoProto& vi, bool* ok, std::string* shapeText,
                             std::string* firstUnknown) {
  *ok = true;
  std::ostringstream txt;
  if (!vi.has_type() || !vi.type().has_tensor_type()) {
    *ok = false;
    if (shapeText) *shapeText = "(no tensor type)";
    return TensorInfo();
  }
  const auto& tt = vi.type().tensor_type();
  DataType t = DataType::UNDEFINED;
  try {
    t = dataTypeFromOnnx(tt.elem_type());
  } catch (const error&) {
    *ok = false;
  }
  if (t == DataType::UNDEFINED) *ok = false;
  Shape s;
  txt << '[';
  if (!tt.has_shape()) {
    *ok = false;
    txt << "unknown rank";
  } else {
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (i) txt << ", ";  // PopART's form: [fubar, 2, 32, 32]
      if (d.has_dim_value() && d.dim_value() >= 0) {
        s.push_back(d.dim_value());
        txt << d.dim_value();
      } else {
        const std::string v = d.has_dim_param()   ? d.dim_param()
                              : d.has_dim_value() ? std::to_string(d.dim_value())
                                                  : std::string("?");
        if (firstUnknown && firstUnknown->empty()) *firstUnknown = v;
        *ok = false;
        s.push_back(0);
        txt << v;
      }
    }
  }
  txt << ']';
  if (shapeText) *shapeText = txt.str();
  if (!*ok) return TensorInfo();
  try {
    return TensorInfo(t, s);
  } catch (const error& e) {
    throw error("{} (tensor '{}' is declared {} {})", e.what(), vi.name(), dataTypeToString(t), txt.str());
  }
}

void setValueInfoType(const TensorInfo& info, onnx::ValueInfoProto* vi) {
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnxDataType(info.dataType()));
  auto* sh = tt->mutable_shape();
  sh->clear_dim();
  for (auto d : info.shape()) sh->add_dim()->set_dim_value(d);
}

DataType elemTypeOf(const onnx::TypeProto& t) {
  const onnx::TypeProto* e = &t;
  if (e->has_optional_type()) e = &e->optional_type().elem_type();
  if (e->has_sequence_type()) e = &e->sequence_type().elem_type();
  return e->has_tensor_type() && e->tensor_type().elem_type() ? dataTypeFromOnnx(e->tensor_type().elem_type())
                                                              : DataType::UNDEFINED;
}

}  // namespace popart
