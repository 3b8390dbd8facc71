// popart_lib_bench: the zoo's convolutions and GEMMs on our CPU kernels beside Debian's XNNPACK
// (libxnnpack-dev, a 2022-02 snapshot) and oneDNN (libdnnl-dev 2.6), one thread each, in one
// process (issue 24). Prints Markdown tables:
//   popart_lib_bench [--zoo DIR] [--models a,b,...] [--target-ms T] [--rounds R] [--warmup W]
//                    [--max-runs N] [--clock wall|cpu] [--list]
// Cases: every Conv node of the conv models and every Gemm / MatMul node of all the models, with
// the shapes the runtime's own import infers (popart::describeModel), deduplicated by geometry
// and counted per model. For each case:
// - ours: a one-node ONNX model (the Builder API) run by an InferenceSession on the CPU device
//   (NCHW; the weights are initializers), with the CPU device's profile on: "ours op" is the op's
//   own host time in each run (what the library columns are compared with), "ours session" the
//   whole run (the op plus copying the input in and the output out, and the session's fixed cost).
// - XNNPACK: the NHWC operator (its native layout; the transposes from and to NCHW are not timed),
//   and for depthwise convolutions also the NCHW operator where the snapshot has one.
// - oneDNN: the primitive with `any` memory formats (its blocked layout; weights reordered once,
//   outside the timing), and the same with the input reordered from NCHW and the output back to
//   NCHW inside the timing: what a drop-in kernel for our layout would cost. GEMMs use the matmul
//   primitive on row-major activations (no reorder), the weights in its `any` format when constant.
// Every library's output is compared with ours (max |difference| / max |ours|); a difference over
// 1e-4 is marked and makes the exit status 1. Times are medians (and minima) over samples taken in
// interleaved rounds, so that a change in the machine's load hits every column alike.
#include <omp.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_util.hpp"
#include "popart/builder.hpp"
#include "popart/describe.hpp"
#include "popart/popart.hpp"
#include "popart/threads.hpp"

namespace {

using bench::Clock;

constexpr double kTolerance = 1e-4;

// ---------------------------------------------------------------- options

struct Options {
  std::string zoo = "build/zoo";
  std::vector<std::string> models = {"resnet18",  "mobilenet_v2", "squeezenet1_0",    "alexnet",
                                     "cnn_small", "mlp",          "transformer_layer"};
  double targetMs = 300;  // per implementation and case, over all rounds
  int rounds = 5, warmup = 2, maxRuns = 500;
  bool cpuClock = false, listOnly = false;
};

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream all(s);
  std::string one;
  while (std::getline(all, one, ','))
    if (!one.empty()) out.push_back(one);
  return out;
}

// ---------------------------------------------------------------- cases

struct ConvGeom {
  int64_t n = 1, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0, group = 1, oh = 0, ow = 0;
  bool bias = false;
  bool depthwise() const { return group > 1 && group == c && group == oc; }
  double flops() const { return 2.0 * n * oc * oh * ow * (c / group) * kh * kw; }
  popart::Shape inShape() const { return {n, c, h, w}; }
  popart::Shape weightShape() const { return {oc, c / group, kh, kw}; }
  popart::Shape outShape() const { return {n, oc, oh, ow}; }
};

/// Y[batch][m][n] = A[batch][m][k] B[batch?][k][n] (+ bias[n]). A constant B is shared by the
/// batch (folded into m); an activation B has its own matrix per batch.
struct GemmGeom {
  std::string op;  // "Gemm" or "MatMul"
  popart::Shape aShape, bShape, outShape;
  int64_t batch = 1, m = 0, k = 0, n = 0;
  bool transB = false, constB = true, bias = false;
  double flops() const { return 2.0 * batch * m * k * n; }
};

struct Case {
  bool isConv = true;
  ConvGeom conv;
  GemmGeom gemm;
  std::string key, text;
  std::vector<std::pair<std::string, int>> counts;  // per model, in model order
  int count(const std::string& model) const {
    for (const auto& c : counts)
      if (c.first == model) return c.second;
    return 0;
  }
};

std::string dims(const popart::Shape& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

const popart::AttributeDescription* attribute(const popart::NodeDescription& node, const std::string& name) {
  for (const auto& a : node.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<int64_t> intsAttr(const popart::NodeDescription& node, const std::string& name,
                              std::vector<int64_t> fallback) {
  const auto* a = attribute(node, name);
  return a && !a->ints.empty() ? a->ints : fallback;
}

double floatAttr(const popart::NodeDescription& node, const std::string& name, double fallback) {
  const auto* a = attribute(node, name);
  return a && !a->floats.empty() ? a->floats[0] : fallback;
}

struct GraphShapes {
  std::map<std::string, const popart::TensorDescription*> byName;
  popart::Shape shape(const std::string& name) const {
    auto it = byName.find(name);
    if (it == byName.end() || !it->second->shape) throw popart::error("no shape for tensor '{}'", name);
    popart::Shape s;
    for (const auto& d : *it->second->shape) {
      if (!d.known()) throw popart::error("tensor '{}' has a symbolic dimension", name);
      s.push_back(d.value);
    }
    return s;
  }
  bool stored(const std::string& name) const {
    auto it = byName.find(name);
    return it != byName.end() &&
           (it->second->kind == popart::TensorRole::Initializer || it->second->kind == popart::TensorRole::Constant);
  }
};

ConvGeom convGeom(const popart::NodeDescription& node, const GraphShapes& g) {
  const auto* autoPad = attribute(node, "auto_pad");
  if (autoPad && !autoPad->strings.empty() && autoPad->strings[0] != "NOTSET")
    throw popart::error("auto_pad {} is not handled", autoPad->strings[0]);
  const popart::Shape x = g.shape(node.inputs.at(0)), w = g.shape(node.inputs.at(1)), y = g.shape(node.outputs.at(0));
  if (x.size() != 4) throw popart::error("only 2-D convolutions are handled (input {})", dims(x));
  ConvGeom c;
  c.n = x[0], c.c = x[1], c.h = x[2], c.w = x[3];
  c.oc = w[0], c.kh = w[2], c.kw = w[3];
  const auto s = intsAttr(node, "strides", {1, 1}), d = intsAttr(node, "dilations", {1, 1}),
             p = intsAttr(node, "pads", {0, 0, 0, 0});
  c.sh = s[0], c.sw = s[1], c.dh = d[0], c.dw = d[1];
  c.pt = p[0], c.pl = p[1], c.pb = p[2], c.pr = p[3];
  c.group = intsAttr(node, "group", {1})[0];
  c.oh = y[2], c.ow = y[3];
  c.bias = node.inputs.size() > 2 && !node.inputs[2].empty();
  return c;
}

GemmGeom gemmGeom(const popart::NodeDescription& node, const GraphShapes& g) {
  GemmGeom m;
  m.op = node.opType;
  m.aShape = g.shape(node.inputs.at(0));
  m.bShape = g.shape(node.inputs.at(1));
  m.outShape = g.shape(node.outputs.at(0));
  m.constB = g.stored(node.inputs[1]);
  if (node.opType == "Gemm") {
    if (intsAttr(node, "transA", {0})[0] != 0 || floatAttr(node, "alpha", 1) != 1 || floatAttr(node, "beta", 1) != 1)
      throw popart::error("only Gemm with transA = 0 and alpha = beta = 1 is handled");
    m.transB = intsAttr(node, "transB", {0})[0] != 0;
    m.bias = node.inputs.size() > 2 && !node.inputs[2].empty();
    if (m.bias && g.shape(node.inputs[2]) != popart::Shape{m.outShape[1]})
      throw popart::error("only a Gemm bias of shape [N] is handled");
    m.m = m.aShape[0], m.k = m.aShape[1], m.n = m.outShape[1];
    return m;
  }
  if (m.bShape.size() == 2 && m.constB) {  // [..., M, K] x [K, N]: the batch folds into M
    m.k = m.bShape[0], m.n = m.bShape[1];
    m.m = popart::TensorInfo("FLOAT", m.aShape).nelms() / m.k;
    return m;
  }
  if (m.aShape.size() != 3 || m.bShape.size() != 3 || m.aShape[0] != m.bShape[0])
    throw popart::error("only batched MatMul [B, M, K] x [B, K, N] is handled (got {} x {})", dims(m.aShape),
                        dims(m.bShape));
  m.batch = m.aShape[0], m.m = m.aShape[1], m.k = m.aShape[2], m.n = m.bShape[2];
  return m;
}

std::string convKey(const ConvGeom& c) {
  std::ostringstream o;
  o << "conv " << c.n << ' ' << c.c << ' ' << c.h << ' ' << c.w << ' ' << c.oc << ' ' << c.kh << ' ' << c.kw << ' '
    << c.sh << ' ' << c.sw << ' ' << c.dh << ' ' << c.dw << ' ' << c.pt << ' ' << c.pl << ' ' << c.pb << ' ' << c.pr
    << ' ' << c.group << ' ' << c.bias;
  return o.str();
}

std::string convText(const ConvGeom& c) {
  std::ostringstream o;
  o << dims(c.inShape()) << " -> " << c.oc << ", " << c.kh << 'x' << c.kw;
  if (c.sh != 1 || c.sw != 1) o << " s" << c.sh << (c.sh != c.sw ? "x" + std::to_string(c.sw) : "");
  if (c.pt || c.pl || c.pb || c.pr) {
    if (c.pt == c.pl && c.pt == c.pb && c.pt == c.pr)
      o << " p" << c.pt;
    else
      o << " p" << c.pt << ',' << c.pl << ',' << c.pb << ',' << c.pr;
  }
  if (c.dh != 1 || c.dw != 1) o << " d" << c.dh << 'x' << c.dw;
  if (c.depthwise())
    o << " dw";
  else if (c.group != 1)
    o << " g" << c.group;
  if (!c.bias) o << " no bias";
  return o.str();
}

std::string gemmKey(const GemmGeom& g) {
  std::ostringstream o;
  o << "gemm " << g.batch << ' ' << g.m << ' ' << g.k << ' ' << g.n << ' ' << g.transB << ' ' << g.constB << ' '
    << g.bias << ' ' << dims(g.aShape);
  return o.str();
}

std::string gemmText(const GemmGeom& g) {
  std::ostringstream o;
  o << g.op << ' ' << dims(g.aShape) << " x " << dims(g.bShape) << (g.transB ? "^T" : "");
  o << (g.constB ? "" : " (B activation)") << (g.bias ? " + bias" : "");
  return o.str();
}

std::vector<Case> collectCases(const Options& o) {
  std::vector<Case> cases;
  std::map<std::string, size_t> index;
  for (const auto& model : o.models) {
    const std::string path = o.zoo + "/" + model + ".onnx";
    const popart::ModelDescription d = popart::describeModel(path);
    if (!d.shapeInferenceOk) throw popart::error("{}: shape inference failed: {}", path, d.shapeInferenceMessage);
    GraphShapes shapes;
    for (const auto& t : d.graph.tensors) shapes.byName[t.name] = &t;
    for (const auto& node : d.graph.nodes) {
      if (node.opType != "Conv" && node.opType != "Gemm" && node.opType != "MatMul") continue;
      Case c;
      try {
        c.isConv = node.opType == "Conv";
        if (c.isConv) {
          c.conv = convGeom(node, shapes);
          c.key = convKey(c.conv), c.text = convText(c.conv);
        } else {
          c.gemm = gemmGeom(node, shapes);
          c.key = gemmKey(c.gemm), c.text = gemmText(c.gemm);
        }
      } catch (const popart::error& e) {
        std::printf("skipped %s node '%s': %s\n", model.c_str(), node.name.c_str(), e.what());
        continue;
      }
      auto it = index.find(c.key);
      if (it == index.end()) {
        it = index.emplace(c.key, cases.size()).first;
        cases.push_back(c);
      }
      auto& counts = cases[it->second].counts;
      if (counts.empty() || counts.back().first != model) counts.emplace_back(model, 0);
      ++counts.back().second;
    }
  }
  // Convolutions first, then GEMMs, each in order of first appearance.
  std::stable_partition(cases.begin(), cases.end(), [](const Case& c) { return c.isConv; });
  return cases;
}

// ---------------------------------------------------------------- data and checks

std::vector<float> randomData(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// max |got - ref| / max |ref| (infinite for a NaN).
double relativeDiff(const float* ref, const float* got, size_t n) {
  double scale = 0, diff = 0;
  for (size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::abs(static_cast<double>(ref[i])));
    const double d = std::abs(static_cast<double>(got[i]) - ref[i]);
    if (std::isnan(d)) return INFINITY;
    diff = std::max(diff, d);
  }
  return diff / std::max(scale, 1e-30);
}

/// [N][C][HW] -> [N][HW][C] (rows x cols transposed per batch), or back with rows and cols swapped.
std::vector<float> transposeInner(const float* x, int64_t batch, int64_t rows, int64_t cols) {
  std::vector<float> y(static_cast<size_t>(batch * rows * cols) + XNN_EXTRA_BYTES / sizeof(float));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) y[(b * cols + c) * rows + r] = x[(b * rows + r) * cols + c];
  return y;
}

// ---------------------------------------------------------------- ours

/// A one-node model run by an InferenceSession on the CPU device.
class OursSession {
 public:
  OursSession(const std::string& model, const std::vector<std::pair<popart::TensorId, const float*>>& inputs,
              const popart::TensorId& output)
      : output_(output) {
    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    popart::SessionOptions options;
    options.engineOptions["debug.instrument"] = "true";  // the host time per op (kernelMs)
    session_ = popart::InferenceSession::createFromOnnxModel(model, popart::DataFlow(1, {output}), device,
                                                             popart::InputShapeInfo(), options);
    session_->prepareDevice();
    std::map<popart::TensorId, popart::IArray&> in;
    for (const auto& x : inputs) {
      wrappers_.push_back(std::make_unique<popart::NDArrayWrapper<float>>(const_cast<float*>(x.second),
                                                                          session_->getInfo(x.first).shape()));
      in.emplace(x.first, *wrappers_.back());
    }
    anchors_ = session_->initAnchorArrays();
    stepio_ = std::make_unique<popart::StepIO>(in, popart::arrayRefs(anchors_));
  }
  void run() { session_->run(*stepio_); }
  const float* output() const { return anchors_.at(output_).dataAs<float>(); }
  /// The host time of the ops since prepareDevice, in ms (the CPU device's profile).
  double kernelMs() const {
    double s = 0;
    for (const auto& op : session_->getReport().execution.hostOps) s += op.seconds;
    return s * 1e3;
  }

 private:
  popart::TensorId output_;
  std::unique_ptr<popart::InferenceSession> session_;
  std::vector<std::unique_ptr<popart::NDArrayWrapper<float>>> wrappers_;
  std::map<popart::TensorId, popart::NDArray> anchors_;
  std::unique_ptr<popart::StepIO> stepio_;
};

popart::ConstVoidData floats(const std::vector<float>& v, const popart::Shape& shape) {
  return popart::ConstVoidData(v.data(), popart::TensorInfo("FLOAT", shape));
}

std::unique_ptr<OursSession> oursConv(const ConvGeom& g, const std::vector<float>& x, const std::vector<float>& w,
                                      const std::vector<float>& b) {
  auto builder = popart::Builder::create();
  const auto xi = builder->addInputTensor("FLOAT", g.inShape());
  std::vector<popart::TensorId> args{xi, builder->addInitializedInputTensor(floats(w, g.weightShape()))};
  if (g.bias) args.push_back(builder->addInitializedInputTensor(floats(b, {g.oc})));
  const auto y =
      builder->aiOnnxOpset13().conv(args, {g.dh, g.dw}, g.group, {g.kh, g.kw}, {g.pt, g.pl, g.pb, g.pr}, {g.sh, g.sw});
  builder->addOutputTensor(y);
  return std::make_unique<OursSession>(builder->getModelProto(),
                                       std::vector<std::pair<popart::TensorId, const float*>>{{xi, x.data()}}, y);
}

std::unique_ptr<OursSession> oursGemm(const GemmGeom& g, const std::vector<float>& a, const std::vector<float>& b,
                                      const std::vector<float>& bias) {
  auto builder = popart::Builder::create();
  auto ops = builder->aiOnnxOpset13();
  const auto ai = builder->addInputTensor("FLOAT", g.aShape);
  std::vector<std::pair<popart::TensorId, const float*>> inputs{{ai, a.data()}};
  popart::TensorId bi;
  if (g.constB) {
    bi = builder->addInitializedInputTensor(floats(b, g.bShape));
  } else {
    bi = builder->addInputTensor("FLOAT", g.bShape);
    inputs.emplace_back(bi, b.data());
  }
  popart::TensorId y;
  if (g.op == "Gemm") {
    std::vector<popart::TensorId> args{ai, bi};
    if (g.bias) args.push_back(builder->addInitializedInputTensor(floats(bias, {g.n})));
    y = ops.gemm(args, 1.0f, 1.0f, 0, g.transB ? 1 : 0);
  } else {
    y = ops.matmul({ai, bi});
  }
  builder->addOutputTensor(y);
  return std::make_unique<OursSession>(builder->getModelProto(), inputs, y);
}

/// An Identity session on `shape` (the session's fixed cost per run, for scale).
std::unique_ptr<OursSession> oursIdentity(const popart::Shape& shape, const std::vector<float>& x) {
  auto builder = popart::Builder::create();
  const auto xi = builder->addInputTensor("FLOAT", shape);
  const auto y = builder->aiOnnxOpset13().identity({xi});
  builder->addOutputTensor(y);
  return std::make_unique<OursSession>(builder->getModelProto(),
                                       std::vector<std::pair<popart::TensorId, const float*>>{{xi, x.data()}}, y);
}

// ---------------------------------------------------------------- XNNPACK

void xnnCheck(xnn_status s, const char* what) {
  if (s != xnn_status_success) throw popart::error("XNNPACK {} failed (status {})", what, static_cast<int>(s));
}

struct XnnOperator {
  xnn_operator_t op = nullptr;
  XnnOperator() = default;
  XnnOperator(const XnnOperator&) = delete;
  XnnOperator& operator=(const XnnOperator&) = delete;
  ~XnnOperator() {
    if (op) xnn_delete_operator(op);
  }
};

/// A convolution on XNNPACK's NHWC operator, or on its NCHW one (`nchw`: the snapshot has NCHW
/// kernels for a few shapes only; `supported()` is false for the others).
class XnnConv {
 public:
  XnnConv(const ConvGeom& g, const std::vector<float>& xNchw, const std::vector<float>& w, const std::vector<float>& b,
          bool nchw)
      : g_(g), nchw_(nchw) {
    // ONNX weights [G * OCg][ICg][KH][KW] -> XNNPACK's [G][OCg][KH][KW][ICg] (the same for depthwise).
    const int64_t icg = g.c / g.group, khw = g.kh * g.kw;
    std::vector<float> k(w.size());
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < icg; ++i)
        for (int64_t s = 0; s < khw; ++s) k[(o * khw + s) * icg + i] = w[(o * icg + i) * khw + s];
    auto create = nchw ? xnn_create_convolution2d_nchw_f32 : xnn_create_convolution2d_nhwc_f32;
    const xnn_status s =
        create(static_cast<uint32_t>(g.pt), static_cast<uint32_t>(g.pr), static_cast<uint32_t>(g.pb),
               static_cast<uint32_t>(g.pl), static_cast<uint32_t>(g.kh), static_cast<uint32_t>(g.kw),
               static_cast<uint32_t>(g.sh), static_cast<uint32_t>(g.sw), static_cast<uint32_t>(g.dh),
               static_cast<uint32_t>(g.dw), static_cast<uint32_t>(g.group), static_cast<size_t>(icg),
               static_cast<size_t>(g.oc / g.group), static_cast<size_t>(g.c), static_cast<size_t>(g.oc), k.data(),
               g.bias ? b.data() : nullptr, -INFINITY, INFINITY, 0, &op_.op);
    if (nchw && s == xnn_status_unsupported_parameter) return;
    xnnCheck(s, "create convolution");
    const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
    if (nchw) {
      x_.assign(xNchw.begin(), xNchw.end());
      x_.resize(x_.size() + XNN_EXTRA_BYTES / sizeof(float));
    } else {
      x_ = transposeInner(xNchw.data(), g.n, g.c, hw);
    }
    y_.resize(static_cast<size_t>(g.n * g.oc * ohw));
    auto setup = nchw ? xnn_setup_convolution2d_nchw_f32 : xnn_setup_convolution2d_nhwc_f32;
    xnnCheck(setup(op_.op, static_cast<size_t>(g.n), static_cast<size_t>(g.h), static_cast<size_t>(g.w), x_.data(),
                   y_.data(), nullptr),
             "setup convolution");
  }
  bool supported() const { return op_.op != nullptr; }
  void run() { xnnCheck(xnn_run_operator(op_.op, nullptr), "run convolution"); }
  std::vector<float> outputNchw() const {
    if (nchw_) return y_;
    auto y = transposeInner(y_.data(), g_.n, g_.oh * g_.ow, g_.oc);
    y.resize(y_.size());
    return y;
  }

 private:
  ConvGeom g_;
  bool nchw_;
  XnnOperator op_;
  std::vector<float> x_, y_;
};

/// A GEMM on XNNPACK's fully-connected operator. Its weights are packed when the operator is
/// created, so with an activation B every run creates (packs), sets up and runs one operator per
/// batch: what the snapshot offers for a product of two activations.
class XnnGemm {
 public:
  XnnGemm(const GemmGeom& g, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& bias)
      : g_(g), a_(a), b_(b), y_(static_cast<size_t>(g.batch * g.m * g.n)) {
    a_.resize(a_.size() + XNN_EXTRA_BYTES / sizeof(float));
    if (!g.constB) return;
    // Gemm's B^T is XNNPACK's [output_channels][input_channels]; a plain B is [K][N].
    xnnCheck(
        xnn_create_fully_connected_nc_f32(static_cast<size_t>(g.k), static_cast<size_t>(g.n), static_cast<size_t>(g.k),
                                          static_cast<size_t>(g.n), b.data(), g.bias ? bias.data() : nullptr, -INFINITY,
                                          INFINITY, g.transB ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS, &op_.op),
        "create fully connected");
    xnnCheck(xnn_setup_fully_connected_nc_f32(op_.op, static_cast<size_t>(g.m), a_.data(), y_.data(), nullptr),
             "setup fully connected");
  }
  void run() {
    if (g_.constB) {
      xnnCheck(xnn_run_operator(op_.op, nullptr), "run fully connected");
      return;
    }
    for (int64_t i = 0; i < g_.batch; ++i) {
      XnnOperator op;
      xnnCheck(xnn_create_fully_connected_nc_f32(static_cast<size_t>(g_.k), static_cast<size_t>(g_.n),
                                                 static_cast<size_t>(g_.k), static_cast<size_t>(g_.n),
                                                 b_.data() + i * g_.k * g_.n, nullptr, -INFINITY, INFINITY,
                                                 XNN_FLAG_TRANSPOSE_WEIGHTS, &op.op),
               "create fully connected");
      xnnCheck(xnn_setup_fully_connected_nc_f32(op.op, static_cast<size_t>(g_.m), a_.data() + i * g_.m * g_.k,
                                                y_.data() + i * g_.m * g_.n, nullptr),
               "setup fully connected");
      xnnCheck(xnn_run_operator(op.op, nullptr), "run fully connected");
    }
  }
  const std::vector<float>& output() const { return y_; }

 private:
  GemmGeom g_;
  std::vector<float> a_, b_, y_;
  XnnOperator op_;
};

// ---------------------------------------------------------------- oneDNN

using dnnl::memory;
using Args = std::unordered_map<int, memory>;

/// A primitive with a user-managed scratchpad, and the reorders from and to the user's layout.
class DnnlPrimitive {
 public:
  /// The primitive alone, on the data already in its layout.
  void run() {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  /// The input reordered from the user's layout, the primitive, the output reordered back.
  void runWithReorders() {
    if (srcReorder_) srcReorder_->execute(stream_, srcUser_, args_.at(DNNL_ARG_SRC));
    prim_.execute(stream_, args_);
    if (dstReorder_) dstReorder_->execute(stream_, args_.at(DNNL_ARG_DST), dstUser_);
    stream_.wait();
  }
  bool needsReorders() const { return srcReorder_ || dstReorder_; }
  const float* output() const { return static_cast<const float*>(dstUser_.get_data_handle()); }
  const std::string& impl() const { return impl_; }

 protected:
  explicit DnnlPrimitive(const dnnl::engine& e) : engine_(e), stream_(e) {}

  /// The source in the layout `want`: the user's memory itself when the layouts agree, else a
  /// copy reordered now (runWithReorders repeats that reorder).
  memory placeSource(const memory::desc& want) {
    if (srcUser_.get_desc() == want) return srcUser_;
    memory m(want, engine_);
    srcReorder_ = std::make_unique<dnnl::reorder>(srcUser_, m);
    srcReorder_->execute(stream_, srcUser_, m);
    stream_.wait();
    return m;
  }
  /// The weights in the layout `want`, reordered once.
  memory placeWeights(memory user, const memory::desc& want) {
    if (user.get_desc() == want) return user;
    memory m(want, engine_);
    dnnl::reorder(user, m).execute(stream_, user, m);
    stream_.wait();
    return m;
  }
  /// The output in the layout `want`, and its reorder to the user's layout.
  memory placeOutput(const memory::desc& want) {
    if (dstUser_.get_desc() == want) return dstUser_;
    memory m(want, engine_);
    dstReorder_ = std::make_unique<dnnl::reorder>(m, dstUser_);
    return m;
  }
  template <typename PrimitiveDesc>
  void finish(const PrimitiveDesc& pd) {
    impl_ = pd.impl_info_str();
    args_[DNNL_ARG_SCRATCHPAD] = memory(pd.scratchpad_desc(), engine_);
  }

  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  Args args_;
  memory srcUser_, dstUser_;
  std::unique_ptr<dnnl::reorder> srcReorder_, dstReorder_;
  std::string impl_;
};

dnnl::primitive_attr userScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

class DnnlConv : public DnnlPrimitive {
 public:
  DnnlConv(const dnnl::engine& e, const ConvGeom& g, const std::vector<float>& x, const std::vector<float>& w,
           const std::vector<float>& b)
      : DnnlPrimitive(e) {
    using tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    const memory::dims src{g.n, g.c, g.h, g.w}, dst{g.n, g.oc, g.oh, g.ow}, bias{g.oc};
    const bool grouped = g.group != 1;
    const memory::dims wei = grouped ? memory::dims{g.group, g.oc / g.group, g.c / g.group, g.kh, g.kw}
                                     : memory::dims{g.oc, g.c, g.kh, g.kw};
    const memory::desc biasMd = g.bias ? memory::desc(bias, f32, tag::x) : memory::desc();
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto,
                                            memory::desc(src, f32, tag::any), memory::desc(wei, f32, tag::any), biasMd,
                                            memory::desc(dst, f32, tag::any), {g.sh, g.sw}, {g.dh - 1, g.dw - 1},
                                            {g.pt, g.pl}, {g.pb, g.pr});
    const dnnl::convolution_forward::primitive_desc pd(d, userScratchpad(), engine_);
    prim_ = dnnl::convolution_forward(pd);
    srcUser_ = memory({src, f32, tag::nchw}, engine_, const_cast<float*>(x.data()));
    dstUser_ = memory({dst, f32, tag::nchw}, engine_);
    const memory weiUser({wei, f32, grouped ? tag::goihw : tag::oihw}, engine_, const_cast<float*>(w.data()));
    args_[DNNL_ARG_SRC] = placeSource(pd.src_desc());
    args_[DNNL_ARG_WEIGHTS] = placeWeights(weiUser, pd.weights_desc());
    if (g.bias) args_[DNNL_ARG_BIAS] = memory(biasMd, engine_, const_cast<float*>(b.data()));
    args_[DNNL_ARG_DST] = placeOutput(pd.dst_desc());
    finish(pd);
  }
};

/// The matmul primitive on row-major activations; a constant B in the primitive's own format.
class DnnlMatmul : public DnnlPrimitive {
 public:
  DnnlMatmul(const dnnl::engine& e, const GemmGeom& g, const std::vector<float>& a, const std::vector<float>& b,
             const std::vector<float>& bias)
      : DnnlPrimitive(e) {
    using tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    const bool batched = !g.constB;
    const memory::desc src =
        batched ? memory::desc({g.batch, g.m, g.k}, f32, tag::abc) : memory::desc({g.m, g.k}, f32, tag::ab);
    const memory::desc dst =
        batched ? memory::desc({g.batch, g.m, g.n}, f32, tag::abc) : memory::desc({g.m, g.n}, f32, tag::ab);
    const memory::desc weiUserMd = batched ? memory::desc({g.batch, g.k, g.n}, f32, tag::abc)
                                           : memory::desc({g.k, g.n}, f32, g.transB ? tag::ba : tag::ab);
    const memory::desc biasMd = g.bias ? memory::desc(batched ? memory::dims{1, 1, g.n} : memory::dims{1, g.n}, f32,
                                                      batched ? tag::abc : tag::ab)
                                       : memory::desc();
    dnnl::matmul::primitive_desc pd;
    try {
      const memory::desc weiAny(g.constB ? memory::desc({g.k, g.n}, f32, tag::any) : weiUserMd);
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weiAny, biasMd, dst), userScratchpad(), engine_);
    } catch (const dnnl::error&) {  // no implementation takes `any` weights here: the user's layout
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weiUserMd, biasMd, dst), userScratchpad(), engine_);
    }
    prim_ = dnnl::matmul(pd);
    srcUser_ = memory(src, engine_, const_cast<float*>(a.data()));
    dstUser_ = memory(dst, engine_);
    const memory weiUser(weiUserMd, engine_, const_cast<float*>(b.data()));
    args_[DNNL_ARG_SRC] = placeSource(pd.src_desc());
    args_[DNNL_ARG_WEIGHTS] = placeWeights(weiUser, pd.weights_desc());
    if (g.bias) args_[DNNL_ARG_BIAS] = memory(biasMd, engine_, const_cast<float*>(bias.data()));
    args_[DNNL_ARG_DST] = placeOutput(pd.dst_desc());
    finish(pd);
  }
};

// ---------------------------------------------------------------- timing

/// The columns. kOurs is the op's time within kOursSession's runs (the CPU device's profile).
enum Impl { kOursSession, kOurs, kXnn, kXnnNchw, kDnnl, kDnnlReorder, kImplCount };

struct Stat {
  bool present = false;
  double median = 0, min = 0;
};

Stat stat(const std::vector<double>& samples) {
  Stat s;
  s.present = !samples.empty();
  if (s.present) {
    s.median = bench::median(samples);
    s.min = *std::min_element(samples.begin(), samples.end());
  }
  return s;
}

struct Runner {
  Impl impl;
  std::function<void()> step;
  /// Optional: a running total in ms, read after each sample outside the timing; its increase over
  /// the sample is a sample of `counterImpl`.
  std::function<double()> counter;
  Impl counterImpl = kOurs;
  std::vector<double> samples, counterSamples;
  int perRound = 1;
  double lastCount = 0;
};

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

/// Every runner warmed up, then `rounds` rounds in which each runner takes its share of samples
/// in turn. Wall time, or this thread's CPU time with --clock cpu (every implementation runs on the
/// calling thread).
void timeInterleaved(std::vector<Runner>& runners, const Options& o) {
  auto once = [&](Runner& r) {
    const double c0 = o.cpuClock ? threadCpuMs() : 0;
    const auto t0 = Clock::now();
    r.step();
    const double t = o.cpuClock ? threadCpuMs() - c0 : bench::ms(t0, Clock::now());
    if (r.counter) {
      const double count = r.counter();
      r.counterSamples.push_back(count - r.lastCount);
      r.lastCount = count;
    }
    return t;
  };
  for (auto& r : runners) {
    double t = 0;
    for (int i = 0; i < std::max(o.warmup, 1); ++i) t = once(r);
    r.counterSamples.clear();
    const double share = o.targetMs / o.rounds;
    r.perRound =
        std::clamp(static_cast<int>(std::ceil(share / std::max(t, 1e-3))), 1, std::max(o.maxRuns / o.rounds, 1));
  }
  for (int round = 0; round < o.rounds; ++round)
    for (auto& r : runners)
      for (int i = 0; i < r.perRound; ++i) r.samples.push_back(once(r));
}

// ---------------------------------------------------------------- one case

struct Result {
  Stat stat[kImplCount];
  double diffXnn = -1, diffXnnNchw = -1, diffDnnl = -1;
  std::string dnnlImpl;
  bool gemm = false, mismatch = false;
  /// The fastest library time on its native layout (XNNPACK NHWC / NCHW, oneDNN blocked).
  double bestLib() const {
    double best = INFINITY;
    for (Impl i : {kXnn, kXnnNchw, kDnnl})
      if (stat[i].present) best = std::min(best, stat[i].median);
    return best;
  }
};

Result runCase(const Case& c, const dnnl::engine& engine, const Options& o) {
  Result res;
  res.gemm = !c.isConv;
  std::vector<float> x, w, b;  // conv: input, weights, bias; GEMM: A, B, bias
  size_t outElems = 0;
  if (c.isConv) {
    const ConvGeom& g = c.conv;
    x = randomData(static_cast<size_t>(popart::TensorInfo("FLOAT", g.inShape()).nelms()), 1.0f, 1);
    const int64_t fanIn = g.c / g.group * g.kh * g.kw;
    w = randomData(static_cast<size_t>(g.oc * fanIn), 1.0f / std::sqrt(static_cast<float>(fanIn)), 2);
    b = randomData(static_cast<size_t>(g.oc), 0.1f, 3);
    outElems = static_cast<size_t>(popart::TensorInfo("FLOAT", g.outShape()).nelms());
  } else {
    const GemmGeom& g = c.gemm;
    x = randomData(static_cast<size_t>(g.batch * g.m * g.k), 1.0f, 1);
    w = randomData(static_cast<size_t>(popart::TensorInfo("FLOAT", g.bShape).nelms()),
                   1.0f / std::sqrt(static_cast<float>(g.k)), 2);
    b = randomData(static_cast<size_t>(g.n), 0.1f, 3);
    outElems = static_cast<size_t>(g.batch * g.m * g.n);
  }

  auto ours = c.isConv ? oursConv(c.conv, x, w, b) : oursGemm(c.gemm, x, w, b);
  std::unique_ptr<XnnConv> xnnConv, xnnNchw;
  std::unique_ptr<XnnGemm> xnnGemm;
  std::unique_ptr<DnnlPrimitive> dnnl;
  if (c.isConv) {
    xnnConv = std::make_unique<XnnConv>(c.conv, x, w, b, false);
    if (c.conv.depthwise()) {
      xnnNchw = std::make_unique<XnnConv>(c.conv, x, w, b, true);
      if (!xnnNchw->supported()) xnnNchw.reset();
    }
    dnnl = std::make_unique<DnnlConv>(engine, c.conv, x, w, b);
  } else {
    xnnGemm = std::make_unique<XnnGemm>(c.gemm, x, w, b);
    dnnl = std::make_unique<DnnlMatmul>(engine, c.gemm, x, w, b);
  }
  res.dnnlImpl = dnnl->impl();

  // Check every output against ours (one run each).
  ours->run();
  const float* ref = ours->output();
  if (xnnConv) {
    xnnConv->run();
    res.diffXnn = relativeDiff(ref, xnnConv->outputNchw().data(), outElems);
  }
  if (xnnNchw) {
    xnnNchw->run();
    res.diffXnnNchw = relativeDiff(ref, xnnNchw->outputNchw().data(), outElems);
  }
  if (xnnGemm) {
    xnnGemm->run();
    res.diffXnn = relativeDiff(ref, xnnGemm->output().data(), outElems);
  }
  dnnl->runWithReorders();
  res.diffDnnl = relativeDiff(ref, dnnl->output(), outElems);
  res.mismatch =
      !(res.diffXnn <= kTolerance) || !(res.diffDnnl <= kTolerance) || (xnnNchw && !(res.diffXnnNchw <= kTolerance));

  std::vector<Runner> runners(1);
  runners[0].impl = kOursSession;
  runners[0].step = [&] { ours->run(); };
  runners[0].counter = [&] { return ours->kernelMs(); };
  auto add = [&](Impl impl, std::function<void()> step) {
    runners.emplace_back();
    runners.back().impl = impl;
    runners.back().step = std::move(step);
  };
  if (xnnConv) add(kXnn, [&] { xnnConv->run(); });
  if (xnnGemm) add(kXnn, [&] { xnnGemm->run(); });
  if (xnnNchw) add(kXnnNchw, [&] { xnnNchw->run(); });
  add(kDnnl, [&] { dnnl->run(); });
  if (dnnl->needsReorders()) add(kDnnlReorder, [&] { dnnl->runWithReorders(); });
  timeInterleaved(runners, o);
  for (const auto& r : runners) {
    res.stat[r.impl] = stat(r.samples);
    if (r.counter) res.stat[r.counterImpl] = stat(r.counterSamples);
  }
  if (!res.stat[kDnnlReorder].present) res.stat[kDnnlReorder] = res.stat[kDnnl];  // no reorder needed
  return res;
}

// ---------------------------------------------------------------- report

/// "median (min)" in microseconds.
std::string cell(const Stat& s) {
  if (!s.present) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f (%.1f)", s.median * 1e3, s.min * 1e3);
  return buf;
}

std::string diffCell(double d) {
  if (d < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e%s", d, d <= kTolerance ? "" : " !");
  return buf;
}

std::string countsText(const Case& c) {
  std::string t;
  for (const auto& m : c.counts) t += (t.empty() ? "" : ", ") + m.first + " x" + std::to_string(m.second);
  return t;
}

/// The library columns' names: a GEMM runs on XNNPACK's fully-connected operator and on oneDNN's
/// matmul with row-major activations.
const char* xnnHeader(bool conv) {
  return conv ? "XNNPACK NHWC" : "XNNPACK FC";
}
const char* dnnlHeader(bool conv) {
  return conv ? "oneDNN blocked" : "oneDNN matmul";
}

/// "ratio (library)": ours over the fastest library column, either each library on its own layout
/// or (`dropIn`) only what takes and gives our NCHW layout as it is: XNNPACK's NCHW operator and
/// oneDNN with its reorders (for GEMMs every column is row-major, so both are the same).
std::string ratioCell(const Result& r, bool dropIn) {
  const std::vector<Impl> native{kXnn, kXnnNchw, kDnnl}, nchw{kXnnNchw, kDnnlReorder};
  double best = INFINITY;
  const char* name = "";
  for (Impl i : dropIn && !r.gemm ? nchw : native) {
    if (r.stat[i].present && r.stat[i].median < best) {
      best = r.stat[i].median;
      name = i == kXnn || i == kXnnNchw ? "XNNPACK" : "oneDNN";
    }
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f (%s)", r.stat[kOurs].median / best, name);
  return buf;
}

void printCaseHeader(bool conv) {
  std::printf(
      "\n| # | %s | in models | MFLOP | ours session | ours op | %s | %s%s | oneDNN +reorder | ours / best lib "
      "| ours / best NCHW drop-in | diff XNNPACK | diff oneDNN | oneDNN impl |\n",
      conv ? "convolution (NCHW in -> out channels, kernel)" : "GEMM", xnnHeader(conv), conv ? "XNNPACK NCHW | " : "",
      dnnlHeader(conv));
  std::printf("|---|---|---|--:|--:|--:|--:|%s--:|--:|--:|--:|--:|--:|---|\n", conv ? "--:|" : "");
}

void printCaseRow(size_t i, const Case& c, const Result& r) {
  std::string diffXnn = diffCell(r.diffXnn);
  if (r.diffXnnNchw >= 0) diffXnn += " / " + diffCell(r.diffXnnNchw);
  std::printf("| %zu | %s | %s | %.1f | %s | %s | %s | ", i + 1, c.text.c_str(), countsText(c).c_str(),
              (c.isConv ? c.conv.flops() : c.gemm.flops()) * 1e-6, cell(r.stat[kOursSession]).c_str(),
              cell(r.stat[kOurs]).c_str(), cell(r.stat[kXnn]).c_str());
  if (c.isConv) std::printf("%s | ", cell(r.stat[kXnnNchw]).c_str());
  std::printf("%s | %s | %s | %s | %s | %s | %s |\n", cell(r.stat[kDnnl]).c_str(), cell(r.stat[kDnnlReorder]).c_str(),
              ratioCell(r, false).c_str(), ratioCell(r, true).c_str(), diffXnn.c_str(), diffCell(r.diffDnnl).c_str(),
              r.dnnlImpl.c_str());
  std::fflush(stdout);
}

/// Per model: the sum over its nodes of each column's median (a node counted as often as it occurs).
void printTotals(const std::vector<Case>& cases, const std::vector<Result>& results, const Options& o, bool conv) {
  std::printf("\n%s per model (sum over its %s of the median ms, each geometry times its count; ratios of ours op)\n\n",
              conv ? "Convolution time" : "GEMM time", conv ? "Conv nodes" : "Gemm / MatMul nodes");
  std::printf(
      "| model | nodes | ours session | ours op | %s | %s | oneDNN +reorder | best lib per node | ours / best lib "
      "per node | ours / oneDNN +reorder |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
      xnnHeader(conv), dnnlHeader(conv));
  for (const auto& model : o.models) {
    int nodes = 0;
    double sum[kImplCount] = {}, best = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const int n = cases[i].count(model);
      if (!n || cases[i].isConv != conv) continue;
      nodes += n;
      for (int k = 0; k < kImplCount; ++k)
        if (results[i].stat[k].present) sum[k] += n * results[i].stat[k].median;
      best += n * results[i].bestLib();
    }
    if (!nodes) continue;
    std::printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", model.c_str(), nodes,
                sum[kOursSession], sum[kOurs], sum[kXnn], sum[kDnnl], sum[kDnnlReorder], best, sum[kOurs] / best,
                sum[kOurs] / sum[kDnnlReorder]);
  }
}

// ---------------------------------------------------------------- main

int usage() {
  std::cerr << "usage: popart_lib_bench [--zoo DIR] [--models a,b,...] [--target-ms T] [--rounds R] [--warmup W] "
               "[--max-runs N] [--clock wall|cpu] [--list]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      o.listOnly = true;
      continue;
    }
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--zoo")
      o.zoo = v;
    else if (a == "--models")
      o.models = splitList(v);
    else if (a == "--target-ms")
      o.targetMs = std::stod(v);
    else if (a == "--rounds")
      o.rounds = std::max(1, std::stoi(v));
    else if (a == "--warmup")
      o.warmup = std::stoi(v);
    else if (a == "--max-runs")
      o.maxRuns = std::stoi(v);
    else if (a == "--clock" && (v == "wall" || v == "cpu"))
      o.cpuClock = v == "cpu";
    else
      return usage();
  }
  try {
    // One thread everywhere: ours (the caller's), oneDNN (Debian builds it on OpenMP), XNNPACK (no
    // pthreadpool: operators run on the caller).
    popart::setNumThreads(1);
    omp_set_num_threads(1);
    xnnCheck(xnn_initialize(nullptr), "initialize");
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);

    const std::vector<Case> cases = collectCases(o);
    const dnnl_version_t* v = dnnl_version();
    std::printf(
        "# Convolutions and GEMMs of the zoo: ours vs XNNPACK vs oneDNN\n\n"
        "One thread each (ours %d, OpenMP max threads %d); oneDNN %d.%d.%d. Per case: microseconds, median (min) of "
        "the %s time over %d interleaved rounds of about %.0f ms per column and case; per model: milliseconds.\n"
        "ours session: a run of a one-node InferenceSession on the CPU device (NCHW), input and output copies "
        "included; ours op: the op's own time in those runs (the device's profile, wall time).\n"
        "XNNPACK NHWC: its native layout, the transposes from and to NCHW not timed; XNNPACK NCHW: depthwise only, "
        "where the snapshot has an NCHW kernel. oneDNN blocked: the primitive on its own (`any`) layouts, weights "
        "reordered once; +reorder: with the input reordered from and the output to NCHW in each run.\n"
        "ours / best lib: ours over the fastest library column on its native layout; ours / best NCHW drop-in: over "
        "the fastest that takes and gives NCHW as it is (XNNPACK NCHW, oneDNN +reorder). GEMMs: XNNPACK's "
        "fully-connected operator, oneDNN's matmul, both on row-major activations; with B an activation, XNNPACK "
        "creates (packs) and runs one operator per batch in every run, as its operators take constant weights. "
        "diff: max |lib - ours| / max "
        "|ours| (! over %.0e).\n",
        popart::getNumThreads(), omp_get_max_threads(), v->major, v->minor, v->patch,
        o.cpuClock ? "thread CPU" : "wall", o.rounds, o.targetMs, kTolerance);
    if (o.listOnly) {
      for (size_t i = 0; i < cases.size(); ++i)
        std::printf("%zu. %s  [%s]\n", i + 1, cases[i].text.c_str(), countsText(cases[i]).c_str());
      return 0;
    }

    // The session's fixed cost per run, for scale.
    {
      std::vector<float> one{1.0f};
      auto tiny = oursIdentity({1}, one);
      std::vector<Runner> r(1);
      r[0].impl = kOursSession;
      r[0].step = [&] { tiny->run(); };
      timeInterleaved(r, o);
      std::printf("\nA session run of an Identity on 1 value (the fixed cost per run): %s us\n",
                  cell(stat(r[0].samples)).c_str());
    }

    std::vector<Result> results(cases.size());
    bool mismatch = false;
    for (int pass = 0; pass < 2; ++pass) {
      const bool conv = pass == 0;
      bool header = false;
      for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].isConv != conv) continue;
        if (!header) {
          printCaseHeader(conv);
          header = true;
        }
        results[i] = runCase(cases[i], engine, o);
        mismatch = mismatch || results[i].mismatch;
        printCaseRow(i, cases[i], results[i]);
      }
    }
    printTotals(cases, results, o, true);
    printTotals(cases, results, o, false);
    xnn_deinitialize();
    if (mismatch) {
      std::printf("\nerror: a library's output differs from ours by more than %.0e (marked !)\n", kTolerance);
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
