// Sessions and data transfer of the Python module: the session handle (popart/session.py makes
// InferenceSession / TrainingSession of it), PyStepIO over NumPy arrays without copies,
// PyStepIOCallback, PyWeightsIO and poponnx's Session. The GIL is released while the core works.
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

#include "popart/describe.hpp"
#include "py_common.hpp"

namespace popart {
namespace py_bind {

namespace {

using release = py::call_guard<py::gil_scoped_release>;

std::string modelArg(py::handle h) {
  if (py::isinstance<py::bytes>(h) || py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::hasattr(h, "__fspath__")) return py::str(h.attr("__fspath__")()).cast<std::string>();
  throw error("fnModel must be ONNX ModelProto bytes or a file path, got {}",
              py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>());
}

std::map<TensorId, ArrayRef> arrays(const py::dict& d, const char* what, bool writeable) {
  std::map<TensorId, ArrayRef> m;
  for (auto kv : d) {
    if (!py::isinstance<py::str>(kv.first))
      throw error("{} keys must be tensor ids (str), got {}", what, py::repr(kv.first).cast<std::string>());
    const auto id = kv.first.cast<std::string>();
    m.emplace(id, ArrayRef(kv.second, format("{} '{}'", what, id), writeable));
  }
  return m;
}

/// A zero-filled NumPy array of `info` (initAnchorArrays' arrays, and a run's resized anchors).
py::array zeroArray(const TensorInfo& info) {
  py::array a(numpyDtype(info.dataType()), info.shape());
  if (a.nbytes()) std::memset(a.mutable_data(), 0, static_cast<std::size_t>(a.nbytes()));
  return a;
}

/// PyStepIO(inputs, outputs): a StepIO over the user's arrays, read and written in place. A
/// session planned at run time puts a new array of the run's shape into `outputs` for an anchor
/// whose shape changed (the dict is the user's: anchors[id] is then the run's array).
class PyStepIO : public IStepIO {
 public:
  PyStepIO(const py::dict& inputs, const py::dict& outputs)
      : outputs_(outputs),
        in_(arrays(tensorsOf(inputs), "PyStepIO input", false)),
        out_(arrays(tensorsOf(outputs), "PyStepIO output", true)) {
    // Sequence and optional inputs: a list (or tuple) of arrays; None for an absent optional.
    for (auto kv : inputs) {
      if (!isArrayList(kv.second)) continue;
      const auto id = kv.first.cast<std::string>();
      auto& refs = inElements_[id];
      size_t i = 0;
      for (auto item : kv.second) refs.emplace_back(item, format("PyStepIO input '{}' tensor {}", id, i++), false);
    }
    connect();
  }
  bool inputElements(const TensorId& id, ValueKind, std::vector<IArray*>& elements) override {
    auto it = inElements_.find(id);
    if (it == inElements_.end()) return false;
    elements.clear();
    for (auto& r : it->second) elements.push_back(&r);
    return true;
  }
  /// A sequence anchor becomes a list of new arrays in `outputs`; an optional one its value or None.
  std::vector<IArray*> prepareOutputElements(const TensorId& id, ValueKind kind, bool present,
                                             const std::vector<TensorInfo>& infos) override {
    py::gil_scoped_acquire gil;
    auto& refs = outElements_[id];
    refs.clear();
    py::list list;
    for (const auto& info : infos) {
      const py::array a = zeroArray(info);
      list.append(a);
      refs.emplace_back(a, format("PyStepIO output '{}' tensor {}", id, refs.size()), true);
    }
    if (!present)
      outputs_[py::str(id)] = py::none();
    else if (kind == ValueKind::OptionalTensor)
      outputs_[py::str(id)] = list[0];
    else
      outputs_[py::str(id)] = list;
    if (out_.erase(id)) connect();
    std::vector<IArray*> v;
    for (auto& r : refs) v.push_back(&r);
    return v;
  }
  ConstVoidData in(TensorId id, int64_t n, bool prefetch, bool bc) override { return io_->in(id, n, prefetch, bc); }
  void inComplete(TensorId id, int64_t n, bool bc) override { io_->inComplete(id, n, bc); }
  MutableVoidData out(TensorId id, int64_t n) override { return io_->out(id, n); }
  void outComplete(TensorId id) override { io_->outComplete(id); }
  void assertNumElements(const StepIOSpec& spec) const override { io_->assertNumElements(spec); }
  IArray* inputArray(const TensorId& id) override { return io_->inputArray(id); }
  void prepareOutput(const TensorId& id, const TensorInfo& info) override {
    auto it = out_.find(id);
    if (it == out_.end() || (it->second.dataType() == info.dataType() && it->second.shape() == info.shape())) return;
    py::gil_scoped_acquire gil;
    const py::array a = zeroArray(info);
    outputs_[py::str(id)] = a;
    out_.erase(it);
    out_.emplace(id, ArrayRef(a, format("PyStepIO output '{}'", id), true));
    connect();
  }

 private:
  void connect() {
    std::map<TensorId, IArray&> i, o;
    for (auto& kv : in_) i.emplace(kv.first, kv.second);
    for (auto& kv : out_) o.emplace(kv.first, kv.second);
    io_ = std::make_unique<StepIO>(i, o);
  }
  /// The entries of `d` that are arrays (not lists of them, not None).
  /// A sequence: a list or tuple of NumPy arrays (or an empty one). Other lists are array data.
  static bool isArrayList(py::handle h) {
    if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) return false;
    for (auto item : h) {
      if (!py::isinstance<py::array>(item)) return false;
    }
    return true;
  }
  static py::dict tensorsOf(const py::dict& d) {
    py::dict t;
    for (auto kv : d) {
      if (!isArrayList(kv.second) && !kv.second.is_none()) t[kv.first] = kv.second;
    }
    return t;
  }
  py::dict outputs_;
  std::map<TensorId, ArrayRef> in_, out_;
  std::map<TensorId, std::deque<ArrayRef>> inElements_, outElements_;
  std::unique_ptr<StepIO> io_;
};

/// PyStepIOCallback(input_callback(id, prefetch), input_complete_callback(id),
/// output_callback(id), output_complete_callback(id)): each array the callbacks return is held
/// until its complete call. Called while the core runs: each call takes the GIL.
class PyStepIOCallback : public IStepIO {
 public:
  PyStepIOCallback(py::function in, py::function inComplete, py::function out, py::function outComplete)
      : in_(std::move(in)),
        inComplete_(std::move(inComplete)),
        out_(std::move(out)),
        outComplete_(std::move(outComplete)) {}

  ConstVoidData in(TensorId id, int64_t, bool prefetch, bool) override {
    py::gil_scoped_acquire gil;
    try {
      py::object r = in_(id, prefetch);
      if (r.is_none()) {
        if (prefetch) return {};
        throw error("PyStepIOCallback: input_callback returned None for '{}' (allowed only when prefetch is true)", id);
      }
      auto& q = heldIn_[id];
      q.emplace_back(r, format("the array input_callback returned for '{}'", id), false);
      return ConstVoidData(q.back().data(), q.back().info());
    } catch (py::error_already_set& e) {
      throw error("PyStepIOCallback: input_callback('{}') raised {}", id, e.what());
    }
  }
  void inComplete(TensorId id, int64_t, bool) override {
    py::gil_scoped_acquire gil;
    try {
      inComplete_(id);
    } catch (py::error_already_set& e) {
      throw error("PyStepIOCallback: input_complete_callback('{}') raised {}", id, e.what());
    }
    auto& q = heldIn_[id];
    if (!q.empty()) q.pop_front();
  }
  MutableVoidData out(TensorId id, int64_t) override {
    py::gil_scoped_acquire gil;
    try {
      py::object r = out_(id);
      auto& q = heldOut_[id];
      q.emplace_back(r, format("the array output_callback returned for '{}'", id), true);
      return MutableVoidData(q.back().data(), q.back().info());
    } catch (py::error_already_set& e) {
      throw error("PyStepIOCallback: output_callback('{}') raised {}", id, e.what());
    }
  }
  void outComplete(TensorId id) override {
    py::gil_scoped_acquire gil;
    try {
      outComplete_(id);
    } catch (py::error_already_set& e) {
      throw error("PyStepIOCallback: output_complete_callback('{}') raised {}", id, e.what());
    }
    auto& q = heldOut_[id];
    if (!q.empty()) q.pop_front();
  }

 private:
  py::function in_, inComplete_, out_, outComplete_;
  std::map<TensorId, std::deque<ArrayRef>> heldIn_, heldOut_;
};

/// PyWeightsIO({id: array}): user buffers for readWeights (written) and writeWeights (read).
class PyWeightsIO : public IWeightsIO {
 public:
  explicit PyWeightsIO(const py::dict& d) : arrays_(arrays(d, "PyWeightsIO array", false)) {}
  bool contains(TensorId id) const override { return arrays_.count(id) != 0; }
  MutableVoidData weight(TensorId id) const override {
    auto it = arrays_.find(id);
    if (it == arrays_.end()) throw error("No tensor '{}' in the PyWeightsIO", id);
    auto& a = const_cast<ArrayRef&>(it->second);
    return MutableVoidData(a.data(), a.info());
  }
  void checkWriteable() const {
    for (const auto& kv : arrays_)
      if (!kv.second.array().writeable())
        throw error("PyWeightsIO array '{}' is read-only; readWeights writes into it", kv.first);
  }

 private:
  std::map<TensorId, ArrayRef> arrays_;
};

/// A session (owned), or poponnx's Session (then s_ is its main session).
class PySession {
 public:
  explicit PySession(std::unique_ptr<Session> s) : owned_(std::move(s)), s_(owned_.get()) {}
  explicit PySession(std::unique_ptr<LegacySession> s) : legacy_(std::move(s)), s_(&legacy_->session()) {}
  Session& s() { return *s_; }
  TrainingSession& training() {
    auto* t = dynamic_cast<TrainingSession*>(s_);
    if (!t) throw error("This is not a TrainingSession");
    return *t;
  }
  LegacySession& legacy(const char* call) {
    if (!legacy_) throw error("{} is a method of poponnx's Session only; use run()", call);
    return *legacy_;
  }
  bool isLegacy() const { return legacy_ != nullptr; }

  /// Held while the core works on this session with the GIL released: a second call meanwhile
  /// (another thread, or a PyStepIOCallback callback calling back into the session) is an error,
  /// not a data race.
  class Busy {
   public:
    explicit Busy(PySession& p) : p_(p) {
      if (!p_.busy_.try_lock())
        throw error(
            "This session is already busy (a call from another thread, or from a PyStepIOCallback "
            "callback, while it runs); calls on one session must not overlap");
    }
    ~Busy() { p_.busy_.unlock(); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    PySession& p_;
  };

 private:
  std::mutex busy_;
  std::unique_ptr<Session> owned_;
  std::unique_ptr<LegacySession> legacy_;
  Session* s_;
};

/// A session call that returns bytes (a serialized model), run without the GIL, as Python bytes.
template <std::string (Session::*F)()>
py::bytes sessionBytes(PySession& p) {
  const PySession::Busy busy(p);
  std::string b;
  {
    py::gil_scoped_release nogil;
    b = (p.s().*F)();
  }
  return py::bytes(b);
}

std::vector<Loss*> lossPtrs(const py::object& losses) {
  std::vector<Loss*> v;
  if (losses.is_none()) return v;
  for (py::handle l : py::reinterpret_borrow<py::iterable>(losses)) {
    try {
      v.push_back(l.cast<Loss*>());
    } catch (const py::cast_error&) {
      throw error("losses must be a list of popart.NllLoss / L1Loss / IdentityLoss, got {}",
                  py::repr(l).cast<std::string>());
    }
  }
  return v;
}

PySession* createSession(const std::string& kind, py::object model, const DataFlow& df,
                         std::shared_ptr<DeviceInfo> device, const InputShapeInfo& isi, const SessionOptions& opts,
                         const Patterns& patterns, const std::string& name, py::object loss, py::object losses,
                         const Optimizer* optimizer) {
  const std::string m = modelArg(model);
  const std::vector<Loss*> lp = lossPtrs(losses);
  const bool haveLosses = !losses.is_none();
  const std::string lossId = loss.is_none() ? std::string() : loss.cast<std::string>();
  py::gil_scoped_release nogil;  // import, autodiff and IR preparation
  if (kind == "inference") {
    if (!device) device = defaultSessionDevice("InferenceSession(fnModel, dataFlow)");
    if (haveLosses)
      return new PySession(InferenceSession::createFromOnnxModel(m, df, device, lp, isi, opts, patterns, name));
    return new PySession(InferenceSession::createFromOnnxModel(m, df, device, isi, opts, patterns, name));
  }
  if (kind == "training") {
    if (!optimizer) throw error("TrainingSession needs an optimizer (optimizer=popart.SGD(...), ...)");
    if (!device) device = defaultSessionDevice("TrainingSession(fnModel, dataFlow, loss, optimizer)");
    if (haveLosses)
      return new PySession(
          TrainingSession::createFromOnnxModel(m, df, lp, *optimizer, device, isi, opts, patterns, name));
    if (lossId.empty())
      throw error("TrainingSession needs a loss: loss=<the id of a scalar loss tensor> (or the pre-1.2 losses=[...])");
    return new PySession(
        TrainingSession::createFromOnnxModel(m, df, lossId, *optimizer, device, isi, opts, patterns, name));
  }
  return new PySession(Session::createFromOnnxModel(m, df, lp, optimizer, device, isi, opts, patterns));
}

}  // namespace

void bindSession(py::module_& m) {
  // The model as data (the core's JSON; popart.describeModel parses it).
  m.def(
      "_describeModel",
      [](py::handle model, const InputShapeInfo& isi, int bins) {
        const std::string source = modelArg(model);
        DescribeOptions o;
        o.histogramBins = bins;
        py::gil_scoped_release unlocked;
        return toJson(describeModel(source, isi, o));
      },
      py::arg("fnModel"), py::arg("inputShapeInfo"), py::arg("histogramBins"));
  // A stored tensor's value (popart.tensorValue): a NumPy array; BFLOAT16 as uint16 and FLOAT8 as
  // uint8 bit patterns (NumPy has no such dtypes), STRING as an object array.
  m.def(
      "tensorValue",
      [](py::handle model, const std::string& name) -> py::object {
        const std::string source = modelArg(model);
        StoredTensorValue v;
        {
          py::gil_scoped_release unlocked;
          v = tensorValue(source, name);
        }
        const DataType t = dataTypeFromString(v.dtype);
        if (t == DataType::STRING) {
          py::list items;
          for (const auto& str : v.strings) items.append(py::bytes(str).attr("decode")("utf-8", "replace"));
          return py::module_::import("numpy").attr("array")(items, "object").attr("reshape")(py::cast(v.shape));
        }
        const py::dtype dt = t == DataType::BFLOAT16                                  ? py::dtype("uint16")
                             : t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152 ? py::dtype("uint8")
                                                                                      : numpyDtype(t);
        py::array a(dt, std::vector<py::ssize_t>(v.shape.begin(), v.shape.end()));
        if (!v.bytes.empty()) std::memcpy(a.mutable_data(), v.bytes.data(), v.bytes.size());
        return std::move(a);
      },
      py::arg("fnModel"), py::arg("name"),
      "The stored value of an initializer or a Constant's output of the model (bytes or a path), main graph "
      "first, then subgraphs; raises popart.popart_exception when the model stores none.");
  py::class_<IStepIO>(m, "IStepIO")
      .def("enableRuntimeAsserts", &IStepIO::enableRuntimeAsserts)
      .def("runtimeAssertsEnabled", &IStepIO::runtimeAssertsEnabled);
  py::class_<PyStepIO, IStepIO>(m, "PyStepIO",
                                "A StepIO over NumPy arrays {id: array}: inputs are read and anchors written in "
                                "place (C-contiguous arrays of the tensor's dtype; no copy).")
      .def(py::init<const py::dict&, const py::dict&>(), py::arg("inputs"), py::arg("outputs"));
  py::class_<PyStepIOCallback, IStepIO>(m, "PyStepIOCallback", "A StepIO that asks Python callbacks for each array.")
      .def(py::init<py::function, py::function, py::function, py::function>(), py::arg("input_callback"),
           py::arg("input_complete_callback"), py::arg("output_callback"), py::arg("output_complete_callback"));
  py::class_<PyWeightsIO>(m, "PyWeightsIO", "User buffers {id: array} for readWeights / writeWeights.")
      .def(py::init<const py::dict&>(), py::arg("weights"));

  py::class_<PySession>(m, "_Session")
      .def(py::init(&createSession), py::arg("kind"), py::arg("fnModel"), py::arg("dataFlow"), py::arg("deviceInfo"),
           py::arg("inputShapeInfo"), py::arg("userOptions"), py::arg("patterns"), py::arg("name"), py::arg("loss"),
           py::arg("losses"), py::arg("optimizer"))
      .def(
          "prepareDevice",
          [](PySession& p, bool load) {
            const PySession::Busy busy(p);
            p.s().prepareDevice(load);
          },
          py::arg("loadEngine") = true, release())
      .def(
          "loadEngineAndConnectStreams",
          [](PySession& p) {
            const PySession::Busy busy(p);
            p.s().loadEngineAndConnectStreams();
          },
          release())
      .def(
          "weightsFromHost",
          [](PySession& p) {
            const PySession::Busy busy(p);
            p.s().weightsFromHost();
          },
          release())
      .def(
          "weightsToHost",
          [](PySession& p) {
            const PySession::Busy busy(p);
            p.s().weightsToHost();
          },
          release())
      .def("readWeights",
           [](PySession& p, const PyWeightsIO& w) {
             const PySession::Busy busy(p);
             w.checkWriteable();
             py::gil_scoped_release nogil;
             p.s().readWeights(w);
           })
      .def(
          "writeWeights",
          [](PySession& p, const PyWeightsIO& w) {
            const PySession::Busy busy(p);
            p.s().writeWeights(w);
          },
          release())
      .def(
          "run",
          [](PySession& p, IStepIO& io, const std::string& debugName) {
            const PySession::Busy busy(p);
            p.s().run(io, debugName);
          },
          py::arg("stepio"), py::arg("debugName") = "", release())
      .def(
          "broadcastWeights",
          [](PySession& p, int rootRank) {
            const PySession::Busy busy(p);
            p.s().broadcastWeights(rootRank);
          },
          py::arg("rootRank") = 0, release())
      .def(
          "modelToHost",
          [](PySession& p, const std::string& fn) {
            const PySession::Busy busy(p);
            p.s().modelToHost(fn);
          },
          release())
      .def(
          "compileAndExport",
          [](PySession& p, const std::string& fn) {
            const PySession::Busy busy(p);
            p.s().compileAndExport(fn);
          },
          py::arg("filename"), release())
      .def(
          "loadExecutable",
          [](PySession& p, const std::string& fn) {
            const PySession::Busy busy(p);
            p.s().loadExecutableFromFile(fn);
          },
          py::arg("filename"), release())
      .def(
          "updateExternallySavedTensorLocations",
          [](PySession& p, const std::string& fromLocation, const std::string& toLocation) {
            const PySession::Busy busy(p);
            p.s().updateExternallySavedTensorLocations(fromLocation, toLocation);
          },
          py::arg("fromLocation"), py::arg("toLocation"), release())
      .def("modelToHostBytes", &sessionBytes<&Session::modelToHostBytes>)
      .def(
          "exportInferenceModel",
          [](PySession& p, const std::string& fn) {
            const PySession::Busy busy(p);
            p.s().exportInferenceModel(fn);
          },
          py::arg("fn"), release())
      .def("exportInferenceModelBytes", &sessionBytes<&Session::exportInferenceModelBytes>)
      .def(
          "resetHostWeights",
          [](PySession& p, py::object model, bool ignore) {
            const PySession::Busy busy(p);
            const std::string s = modelArg(model);
            py::gil_scoped_release nogil;
            p.s().resetHostWeights(s, ignore);
          },
          py::arg("modelProtoOrFilename"), py::arg("ignoreWeightsInModelWithoutCorrespondingHostWeight") = false)
      .def("getInfo", [](PySession& p, const std::string& id) { return p.s().getInfo(id); })
      .def("hasInfo", [](PySession& p, const std::string& id) { return p.s().hasInfo(id); })
      .def("getAllTensorIds", [](PySession& p) { return p.s().getAllTensorIds(); })
      .def("getAnchorShape", [](PySession& p, const std::string& id) { return p.s().getAnchorShape(id); })
      .def("_anchorArrays",
           [](PySession& p) {
             py::dict d;
             for (const auto& kv : p.s().getAnchorArrayInfos()) d[py::str(kv.first)] = zeroArray(kv.second);
             return d;
           })
      .def(
          "getSummaryReport", [](PySession& p, bool reset) { return p.s().getSummaryReport(reset); },
          py::arg("resetProfile") = true)
      // PopART's _serializeIr(popart.IrSerializationFormat.JSON): the IR as JSON text.
      .def(
          "_serializeIr",
          [](PySession& p, int format) {
            return p.s().serializeIr(static_cast<popart::IrSerializationFormat>(format));
          },
          py::arg("format") = 0)
      // The reports: JSON text, or CBOR as bytes (the core's documents: docs/ipu-model.md).
      .def(
          "getGraphReport",
          [](PySession& p, bool cbor) -> py::object {
            std::string r = p.s().getGraphReport(cbor);
            if (cbor) return py::bytes(r);
            return py::str(r);
          },
          py::arg("useCbor") = false)
      .def(
          "getExecutionReport",
          [](PySession& p, bool cbor, bool reset) -> py::object {
            std::string r = p.s().getExecutionReport(cbor, reset);
            if (cbor) return py::bytes(r);
            return py::str(r);
          },
          py::arg("useCbor") = false, py::arg("resetProfile") = true)
      // The one report document (Session::getReportJson): popart/session.py's getReport() wraps it.
      .def(
          "_getReportJson",
          [](PySession& p, bool cbor) -> py::object {
            std::string r = p.s().getReportJson(cbor);
            if (cbor) return py::bytes(r);
            return py::str(r);
          },
          py::arg("useCbor") = false)
      .def(
          "getCycleCount", [](PySession& p, const std::string& id) { return p.s().getCycleCount(id); },
          py::arg("id") = "")
      .def("setRandomSeed", [](PySession& p, uint64_t seed) { p.s().setRandomSeed(seed); })
      .def("getRandomSeed", [](PySession& p) { return p.s().getRandomSeed(); })
      .def("isPrepared", [](PySession& p) { return p.s().isPrepared(); })
      .def("getDevice", [](PySession& p) { return p.s().getDevice(); })
      .def("_dataFlow", [](PySession& p) { return p.s().getDataFlow(); })
      .def("_replicationFactor", [](PySession& p) { return p.s().getSessionOptions().getReplicationFactor(); })
      .def("_accumulationFactor", [](PySession& p) { return p.s().getSessionOptions().getAccumulationFactor(); })
      .def(
          "getRunTimePlanStats",
          [](PySession& p) {
            const Session::RunTimePlanStats st = p.s().getRunTimePlanStats();
            py::dict d;
            d["runTimeShapes"] = st.runTimeShapes;
            d["plansBuilt"] = st.plansBuilt;
            d["plansReused"] = st.plansReused;
            d["plansCached"] = st.plansCached;
            d["runTimeConstants"] = st.runTimeConstants;
            return d;
          },
          "Plans of a session whose shapes are known only at run time (the CPU device): {runTimeShapes, "
          "plansBuilt, plansReused, plansCached, runTimeConstants}.")
      .def("getMemoryStats",
           [](PySession& p) {
             const auto ms = p.s().getMemoryStats();
             py::dict d;
             for (const auto& [name, bytes] : ms.fields()) d[name] = bytes;
             return d;
           })
      // training
      .def(
          "updateOptimizerFromHost",
          [](PySession& p, const Optimizer& o) {
            const PySession::Busy busy(p);
            p.training().updateOptimizerFromHost(&o);
          },
          release())
      .def(
          "updateOptimizer",
          [](PySession& p, const Optimizer& o) {
            const PySession::Busy busy(p);
            if (p.isLegacy())
              p.legacy("updateOptimizer").updateOptimizer(&o);
            else
              p.training().updateOptimizer(&o);
          },
          release())
      .def(
          "optimizerFromHost",
          [](PySession& p) {
            const PySession::Busy busy(p);
            if (p.isLegacy())
              p.legacy("optimizerFromHost").optimizerFromHost();
            else
              p.training().optimizerFromHost();
          },
          release())
      .def("getOptimizerTensorIds", [](PySession& p) { return p.training().getOptimizerTensorIds(); })
      // poponnx's Session
      .def(
          "train",
          [](PySession& p, IStepIO& io) {
            const PySession::Busy busy(p);
            p.legacy("train").train(io);
          },
          release())
      .def(
          "evaluate",
          [](PySession& p, IStepIO& io) {
            const PySession::Busy busy(p);
            p.legacy("evaluate").evaluate(io);
          },
          release())
      .def(
          "infer",
          [](PySession& p, IStepIO& io) {
            const PySession::Busy busy(p);
            p.legacy("infer").infer(io);
          },
          release())
      .def("_isLegacy", &PySession::isLegacy)
      .def(
          "_legacyPrepareDevice",
          [](PySession& p) {
            const PySession::Busy busy(p);
            p.legacy("prepareDevice").prepareDevice();
          },
          release())
      .def(
          "_legacyWeightsFromHost",
          [](PySession& p) {
            const PySession::Busy busy(p);
            p.legacy("weightsFromHost").weightsFromHost();
          },
          release());
}

}  // namespace py_bind
}  // namespace popart
