// Every code example of the five seed documents (poponnx 2018-19, PopART 1.x with loss objects,
// PopART 2.x/3.x), translated line by line into C++, each followed by checks of what it means: the
// anchors and return types the example asked for, the shapes, the loss and optimizer it set up, and
// where data runs through, the outputs against PyTorch or closed forms.
//
// The Python lines that make the model (`torch.onnx.export(alexnet, input_, "alexnet.onnx", ...)`)
// are tests/zoo/make_zoo.py's SEED_MODELS, exported as the seeds call torch (weights=None for
// pretrained=True/False: no downloads). Docs 000 and 002 export without output_names yet anchor
// "output", which only exists with doc 001's output_names=["output"]: they use that export
// ("alexnet_seed"). Doc 003 anchors the output its text calls "out" with a batch of 10
// ("alexnet_seed_out").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "common/test_util.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/popart.hpp"

namespace popart {
namespace {

using test::expectError;

std::string zooDir() {
  const char* env = std::getenv("POPART_ZOO_DIR");
  return env ? env : POPART_ZOO_DIR;
}

/// "alexnet.onnx" of the seeds: the zoo's export of it.
std::string seedModel(const std::string& name) {
  const std::string path = zooDir() + "/" + name + ".onnx";
  if (!std::ifstream(path))
    throw error("'{}' is missing: build the zoo with /usr/bin/python3 tests/zoo/make_zoo.py {}", path, zooDir());
  return path;
}

std::vector<float> readFloats(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw error("cannot open '{}'", path);
  const auto n = static_cast<size_t>(f.tellg()) / 4;
  f.seekg(0);
  std::vector<float> v(n);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 4));
  return v;
}

std::string tmpPath(const std::string& name) {
  return std::string(POPART_TEST_TMPDIR) + "/seed_examples_" + name;
}

/// Collects the "session" module's warnings in a file while alive.
class LogCapture {
 public:
  explicit LogCapture(const std::string& name) : path_(tmpPath(name + ".log")), old_(logging::getLogLevel(kModule)) {
    std::remove(path_.c_str());
    logging::setLogDestination(path_);
    logging::setLogLevel(kModule, logging::Level::Warn);
  }
  ~LogCapture() {
    logging::setLogLevel(kModule, old_);
    logging::setLogDestination("stderr");
  }
  std::string text() const {
    logging::flush();
    std::ifstream f(path_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

 private:
  static constexpr logging::Module kModule = logging::Module::session;
  std::string path_;
  logging::Level old_;
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const SGD& sgdOf(const TrainingSession& s) {
  return dynamic_cast<const SGD&>(s.getOptimizer());
}

/// The op types reading tensor `id` in a session's IR. (A loss that is not anchored is pruned after
/// autodiff: its gradient op, which reads the labels, is what remains of it.)
std::set<std::string> consumerTypes(const Session& s, const TensorId& id) {
  std::set<std::string> types;
  for (const Op* op : s.getIr().mainGraph().getTensor(id).consumers) types.insert(op->type());
  return types;
}

// ---------------------------------------------------------------- doc 000 (PopART 1.x, losses)

TEST(Seed000, ImportForInference) {
  const std::string alexnet = seedModel("alexnet_seed");  // input_, model, torch.onnx.export

  // # Create a runtime environment
  AnchorReturnTypeMap anchors{{"output", AnchorReturnType("ALL")}};
  DataFlow dataFeed(100, anchors);
  auto device = DeviceManager::createDeviceManager().createCpuDevice();

  auto session = InferenceSession::createFromOnnxModel(alexnet, dataFeed, device);

  EXPECT_EQ(session->getDataFlow().anchors(), std::vector<TensorId>{"output"});
  EXPECT_EQ(session->getDataFlow().art("output").id(), AnchorReturnTypeId::All);
  EXPECT_EQ(session->getDataFlow().batchesPerStep(), 100);
  EXPECT_EQ(session->getAnchorShape("output"), (Shape{100, 4, 1000}));
  EXPECT_EQ(session->getInfo("input.1"), TensorInfo("FLOAT", {4, 3, 224, 224}));
  EXPECT_EQ(session->getDevice()->getType(), DeviceType::Cpu);
}

TEST(Seed000, CreateTrainingSessionWithLosses) {
  const std::string alexnet = seedModel("alexnet_seed");
  AnchorReturnTypeMap anchors{{"output", AnchorReturnType("ALL")}};
  DataFlow dataFeed(100, anchors);

  NllLoss nll("output", "labels", "loss");
  std::vector<Loss*> losses{&nll};
  ConstSGD optimizer(0.001);

  // # We need to describe the labels input shape
  InputShapeInfo inputShapeInfo;
  inputShapeInfo.add("labels", TensorInfo("INT32", {4}));
  auto device = DeviceManager::createDeviceManager().createCpuDevice();

  auto session = TrainingSession::createFromOnnxModel(alexnet, dataFeed, losses, optimizer, device, inputShapeInfo);

  EXPECT_EQ(session->getAnchorShape("output"), (Shape{100, 4, 1000}));
  EXPECT_EQ(session->getInfo("labels"), TensorInfo("INT32", {4}));
  EXPECT_EQ(consumerTypes(*session, "labels"), std::set<std::string>{"NllGrad"});  // the NllLoss's gradient
  EXPECT_TRUE(session->getIr().isTraining());
  EXPECT_FLOAT_EQ(sgdOf(*session).learningRates().getDefault().val(), 0.001f);
  EXPECT_TRUE(sgdOf(*session).learningRates().getDefault().isConst());
  EXPECT_TRUE(session->getIr().isTraining());
}

// ---------------------------------------------------------------- doc 001 (PopART 2.x/3.x)

TEST(Seed001, ImportingGraphs) {
  const std::string alexnet = seedModel("alexnet_seed");
  const std::string output_name = "output";

  // # Create a runtime environment
  AnchorReturnTypeMap anchors{{output_name, AnchorReturnType("All")}};
  DataFlow dataFlow(100, anchors);
  auto device = DeviceManager::createDeviceManager().createCpuDevice();

  auto session = InferenceSession::createFromOnnxModel(alexnet, dataFlow, device);

  EXPECT_EQ(session->getDataFlow().art(output_name).id(), AnchorReturnTypeId::All);
  EXPECT_EQ(session->getAnchorShape(output_name), (Shape{100, 4, 1000}));
}

TEST(Seed001, ImportingSession) {
  const std::string alexnet = seedModel("alexnet_seed");
  const std::string output_name = "output";

  // # Create a runtime environment
  AnchorReturnTypeMap anchors{{output_name, AnchorReturnType("All")}};
  DataFlow dataFlow(100, anchors);

  // # Append an Nll loss operation to the model
  auto builder = Builder::createFromOnnxModel(alexnet);
  auto labels = builder->addInputTensor("INT32", {4});
  auto nlll = builder->aiGraphcoreOpset1().nllloss({output_name, labels});

  ConstSGD optimizer(0.001);

  // # Run session on CPU
  auto device = DeviceManager::createDeviceManager().createCpuDevice();
  auto session = TrainingSession::createFromOnnxModel(builder->getModelProto(), dataFlow, nlll, optimizer, device);

  EXPECT_EQ(labels, "input");
  EXPECT_EQ(nlll, "Nll:0");
  EXPECT_EQ(session->getInfo(labels), TensorInfo("INT32", {4}));
  EXPECT_EQ(consumerTypes(*session, labels), std::set<std::string>{"NllGrad"});
  EXPECT_TRUE(session->getIr().isTraining());
  EXPECT_EQ(session->getAnchorShape(output_name), (Shape{100, 4, 1000}));
  EXPECT_FLOAT_EQ(sgdOf(*session).learningRates().getDefault().val(), 0.001f);
  EXPECT_TRUE(sgdOf(*session).learningRates().getDefault().isConst());
}

TEST(Seed001, ExecutingAnImportedGraph) {
  const std::string alexnet = seedModel("alexnet_seed");
  const std::string output_name = "output";

  // # Obtain inputs/outputs name of loaded model (onnx.load: here the Builder reads the model)
  auto loaded_model = Builder::createFromOnnxModel(alexnet);
  std::vector<TensorId> inputs_name;
  for (const auto& id : loaded_model->getInputTensorIds()) {
    if (!loaded_model->isInitializer(id)) inputs_name.push_back(id);
  }
  const std::vector<TensorId> outputs_name = loaded_model->getOutputTensorIds();
  EXPECT_EQ(inputs_name, std::vector<TensorId>{"input.1"});
  EXPECT_EQ(outputs_name, std::vector<TensorId>{"output"});

  // # Create a runtime environment
  AnchorReturnTypeMap anchors{{output_name, AnchorReturnType("All")}};
  DataFlow dataFlow(100, anchors);
  auto device = DeviceManager::createDeviceManager().createCpuDevice();

  auto session = InferenceSession::createFromOnnxModel(alexnet, dataFlow, device);

  session->prepareDevice();

  // input_1 = np.random.randn(4, 3, 224, 224): the zoo's input, whose PyTorch output is known
  const std::vector<float> x = readFloats(zooDir() + "/alexnet_seed.input.bin");
  std::map<TensorId, NDArray> inputs;
  inputs.emplace("input.1", NDArray::fromVector(x, {4, 3, 224, 224}));
  auto anchorArrays = session->initAnchorArrays();
  StepIO stepio(arrayRefs(inputs), arrayRefs(anchorArrays));

  EXPECT_EQ(anchorArrays.at(output_name).shape(), (Shape{100, 4, 1000}));
  // The example stops here: its StepIO holds one batch, and a step is batchesPerStep = 100.
  expectError([&] { session->run(stepio); },
              {"Unexpected number of input elements for Tensor input.1", "Expected 60211200", "received 602112"});

  // One batch of the same session's structure gives PyTorch's output.
  auto one = InferenceSession::createFromOnnxModel(alexnet, DataFlow(1, anchors), device);
  one->prepareDevice();
  auto out1 = one->initAnchorArrays();
  StepIO io1(arrayRefs(inputs), arrayRefs(out1));
  one->run(io1);
  const std::vector<float> ref = readFloats(zooDir() + "/alexnet_seed.output.bin");
  const NDArray& y = out1.at(output_name);
  ASSERT_EQ(y.nelms(), ref.size());
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::abs(double(y.dataAs<float>()[i]) - ref[i]));
  EXPECT_LE(worst, 1e-4);
}

// ---------------------------------------------------------------- doc 002 (early PopART, no device)

TEST(Seed002, InferenceSessionWithoutDevice) {
  const std::string alexnet = seedModel("alexnet_seed");
  LogCapture log("seed002_inference");

  // # Create a runtime environment
  AnchorReturnTypeMap anchors{{"output", AnchorReturnType("ALL")}};
  DataFlow dataFeed(100, anchors);

  auto session = InferenceSession::createFromOnnxModel(alexnet, dataFeed);

  EXPECT_EQ(session->getDevice()->getType(), DeviceType::Cpu);
  EXPECT_TRUE(contains(log.text(), "InferenceSession(model, dataFeed) was given no deviceInfo")) << log.text();
  EXPECT_EQ(session->getAnchorShape("output"), (Shape{100, 4, 1000}));
}

TEST(Seed002, TrainingSessionWithoutDevice) {
  const std::string alexnet = seedModel("alexnet_seed");
  LogCapture log("seed002_training");

  AnchorReturnTypeMap anchors{{"output", AnchorReturnType("ALL")}};
  DataFlow dataFeed(100, anchors);

  NllLoss nll("output", "labels", "loss");
  std::vector<Loss*> losses{&nll};
  ConstSGD optimizer(0.001);

  // # We need to describe the labels input shape
  InputShapeInfo inputShapeInfo;
  inputShapeInfo.add("labels", TensorInfo("INT32", {4}));

  auto session = TrainingSession::createFromOnnxModel(alexnet, dataFeed, losses, optimizer, inputShapeInfo);

  EXPECT_EQ(session->getDevice()->getType(), DeviceType::Cpu);
  EXPECT_TRUE(contains(log.text(), "was given no deviceInfo")) << log.text();
  EXPECT_EQ(session->getInfo("labels"), TensorInfo("INT32", {4}));
  EXPECT_EQ(consumerTypes(*session, "labels"), std::set<std::string>{"NllGrad"});
  EXPECT_FLOAT_EQ(sgdOf(*session).learningRates().getDefault().val(), 0.001f);
}

// ---------------------------------------------------------------- doc 003 (poponnx)

TEST(Seed003, ImportingGraphs) {
  // in = Variable(torch.randn(10, 3, 224, 224)); torch.onnx.export(model, in, "alexnet.onnx")
  const std::string alexnet = seedModel("alexnet_seed_out");
  LogCapture log("seed003_import");

  // # Create a runtime environment
  DataFlow dataFeed(500, 4, {"l1LossVal"}, AnchorReturnType("ALL"));
  L1Loss l1("out", "l1LossVal", 0.1f);
  std::vector<Loss*> losses{&l1};
  ConstSGD optimizer(0.001);

  auto session = Session::createFromOnnxModel(alexnet, dataFeed, losses, &optimizer);

  EXPECT_TRUE(session->hasOptimizer());
  EXPECT_TRUE(session->hasLosses());
  const Session& s = session->session();
  EXPECT_EQ(s.getDataFlow().anchors(), std::vector<TensorId>{"l1LossVal"});
  EXPECT_EQ(s.getDataFlow().art("l1LossVal").id(), AnchorReturnTypeId::All);
  EXPECT_EQ(s.getAnchorShape("l1LossVal"), (Shape{500}));
  EXPECT_EQ(dataFeed.batchSize(), 4);
  EXPECT_EQ(s.getInfo("input.1"), TensorInfo("FLOAT", {10, 3, 224, 224}));  // the batch comes from the model
  EXPECT_EQ(s.getInfo("l1LossVal"), TensorInfo("FLOAT", {}));
  EXPECT_EQ(s.getDevice()->getType(), DeviceType::Cpu);
  const auto& train = dynamic_cast<const TrainingSession&>(s);
  EXPECT_FLOAT_EQ(sgdOf(train).learningRates().getDefault().val(), 0.001f);
  const std::string text = log.text();
  EXPECT_TRUE(contains(text, "DataFlow(batchesPerStep, batchSize, anchors, art) is poponnx's form")) << text;
  EXPECT_TRUE(contains(text, "batchSize 4 (poponnx's form) differs from the first dimension of input 'input.1'"))
      << text;
  EXPECT_TRUE(contains(text, "Session(model, dataFeed, losses, optimizer) is poponnx's API")) << text;
  EXPECT_TRUE(contains(text, "was given no deviceInfo")) << text;
}

TEST(Seed003, BuildingGraphs) {
  auto builder = Builder::create();

  // # Build a simple graph
  auto i1 = builder->addInputTensor(TensorInfo("FLOAT", {1, 2, 32, 32}));
  auto i2 = builder->addInputTensor(TensorInfo("FLOAT", {1, 2, 32, 32}));

  auto o = builder->add(i1, i2);

  builder->addOutputTensor(o);

  auto proto = builder->getModelProto();

  // # Create a runtime environment
  DataFlow dataFeed(500, 4, {o}, AnchorReturnType("ALL"));

  auto session = Session::createFromOnnxModel(proto, dataFeed);

  EXPECT_EQ(o, "Add:0");
  EXPECT_FALSE(session->hasOptimizer());
  EXPECT_EQ(session->session().getAnchorShape(o), (Shape{500, 1, 2, 32, 32}));
  // "Executing graphs": infer runs the forward pass, 500 batches per step.
  session->prepareDevice();
  const size_t n = 500 * 2 * 32 * 32;
  std::map<TensorId, NDArray> inputs;
  inputs.emplace(i1, NDArray::fromVector(test::randomFloats(n, 1), {500, 1, 2, 32, 32}));
  inputs.emplace(i2, NDArray::fromVector(test::randomFloats(n, 2), {500, 1, 2, 32, 32}));
  auto anchors = session->initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));
  session->infer(io);
  const float* y = anchors.at(o).dataAs<float>();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], inputs.at(i1).dataAs<float>()[i] + inputs.at(i2).dataAs<float>()[i]) << i;
}

TEST(Seed003, TrainingExample) {
  // The example's "...": an 'image' [2] times a weight w, an L1 loss 'loss' (lambda 0.1, Sum), 1000
  // batches per step (so that np.zeros([1000]) holds the 'loss' anchor), ConstSGD(0.001).
  auto b = Builder::create();
  const auto image = b->addInputTensor("FLOAT", {2}, "image");
  const std::vector<float> w0{0.5f, -0.75f};
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {2})), "w");
  const auto out = b->aiOnnxOpset9().mul({image, w});
  b->addOutputTensor(out);
  const auto proto = b->getModelProto();
  DataFlow dataFeed(1000, 1, {"loss"}, AnchorReturnType("ALL"));
  L1Loss l1(out, "loss", 0.1f);
  std::vector<Loss*> losses{&l1};
  ConstSGD optimizer(0.001);

  auto session = Session::createFromOnnxModel(proto, dataFeed, losses, &optimizer);

  session->prepareDevice();
  session->weightsFromHost();
  session->optimizerFromHost();

  std::vector<float> image_data(2000);
  for (size_t t = 0; t < 1000; ++t) {
    image_data[2 * t] = 1.0f + static_cast<float>(t % 3);
    image_data[2 * t + 1] = 2.0f - 0.25f * static_cast<float>(t % 5);
  }
  std::map<TensorId, NDArray> inputs;
  inputs.emplace("image", NDArray::fromVector(image_data, {1000, 2}));
  std::map<TensorId, NDArray> anchors;
  anchors.emplace("loss", NDArray::fromVector(std::vector<float>(1000, 0.0f), {1000}));
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));

  session->train(io);

  // Closed form: loss_t = 0.1 (|x0 w0| + |x1 w1|), then w -= 0.001 * 0.1 * sign(x w) * x.
  double wd[2] = {w0[0], w0[1]};
  for (size_t t = 0; t < 1000; ++t) {
    double loss = 0;
    for (int i = 0; i < 2; ++i) loss += 0.1 * std::abs(image_data[2 * t + i] * wd[i]);
    ASSERT_NEAR(anchors.at("loss").dataAs<float>()[t], loss, 1e-4) << "step " << t;
    for (int i = 0; i < 2; ++i) {
      const double x = image_data[2 * t + i];
      wd[i] -= 0.001 * 0.1 * (x * wd[i] > 0 ? 1 : -1) * x;
    }
  }
}

// ---------------------------------------------------------------- doc 004 (executing graphs)

/// The model the fragments of doc 004 talk about: inputs 'a' and 'b' [1], a weight 'w' = 2,
/// o = a * w + b.
struct Doc004Model {
  std::string proto;
  TensorId o;
};

Doc004Model doc004Model() {
  auto b = Builder::create();
  const auto a = b->addInputTensor("FLOAT", {1}, "a");
  const auto bb = b->addInputTensor("FLOAT", {1}, "b");
  const float w0 = 2.0f;
  const auto w = b->addInitializedInputTensor(ConstVoidData(&w0, TensorInfo("FLOAT", {1})), "w");
  const auto o = b->aiOnnxOpset9().add({b->aiOnnxOpset9().mul({a, w}), bb});
  b->addOutputTensor(o);
  return {b->getModelProto(), o};
}

float readW(Session& s) {
  s.weightsToHost();
  float w = 0;
  WeightsIO io;
  io.insert("w", MutableVoidData(&w, TensorInfo("FLOAT", {1})));
  s.readWeights(io);
  return w;
}

TEST(Seed004, StepIOAndOptimizerUpdates) {
  const Doc004Model m = doc004Model();
  const TensorId o = m.o;
  const std::vector<float> learningRate{0.05f, 0.02f, 0.01f};
  L1Loss l1(o, "l1", 1.0f);
  auto session = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {{o, AnchorReturnType("ALL")}}),
                                                      std::vector<Loss*>{&l1}, SGD(learningRate[0]), test::cpu());
  session->prepareDevice();

  // # Create buffers to receive results from the execution
  auto anchors = session->initAnchorArrays();

  // # Generate some random input data
  std::map<TensorId, NDArray> data;
  data.emplace("a", NDArray::fromVector(std::vector<float>{0.75f}, {1}));
  data.emplace("b", NDArray::fromVector(std::vector<float>{0.25f}, {1}));

  StepIO stepio(arrayRefs(data), arrayRefs(anchors));

  session->weightsFromHost();
  session->optimizerFromHost();

  EXPECT_FALSE(sgdOf(*session).learningRates().getDefault().isConst());  // SGD(lr): not constant
  float w = 2.0f;
  for (size_t step = 0; step < learningRate.size(); ++step) {
    // # Update learning rate parameter between training steps
    const float stepLr = learningRate[step];
    SGD sgd(stepLr);  // popart.SGD(stepLr)
    session->updateOptimizer(&sgd);
    session->optimizerFromHost();

    session->run(stepio);
    EXPECT_FLOAT_EQ(anchors.at(o).dataAs<float>()[0], 0.75f * w + 0.25f);
    w -= stepLr * 0.75f;  // d|a w + b| / dw = a (the output stays positive)
    EXPECT_NEAR(readW(*session), w, 1e-6) << "step " << step;
  }
}

TEST(Seed004, DataFlowDeviceAndInferenceSession) {
  const Doc004Model m = doc004Model();
  const TensorId o = m.o;
  const std::string onnxPb = tmpPath("onnx.pb");
  {
    std::ofstream f(onnxPb, std::ios::binary);
    f << m.proto;
  }

  auto df = DataFlow(1, {{o, AnchorReturnType("ALL")}});
  EXPECT_EQ(df.art(o).id(), AnchorReturnTypeId::All);

  auto device = DeviceManager::createDeviceManager().createCpuDevice();
  auto s = InferenceSession::createFromOnnxModel(onnxPb, df, device);

  // # Acquire a two-IPU pair; # Acquire IPU configuration 5: no IPUs in this build.
  expectError([] { DeviceManager::createDeviceManager().acquireAvailableDevice(2); }, {"createCpuDevice()"});
  expectError([] { DeviceManager::createDeviceManager().acquireDeviceById(5); }, {"createCpuDevice()"});

  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, NDArray> data;
  data.emplace("a", NDArray::fromVector(std::vector<float>{3.0f}, {1}));
  data.emplace("b", NDArray::fromVector(std::vector<float>{-1.0f}, {1}));
  StepIO stepio(arrayRefs(data), arrayRefs(anchors));
  s->run(stepio);
  EXPECT_EQ(anchors.at(o).dataAs<float>()[0], 5.0f);  // 3 * 2 - 1

  // The return types of the list: EVERYN(N) and FINAL.
  DataFlow every(4, {{o, AnchorReturnType("EVERYN", 2)}});
  EXPECT_EQ(InferenceSession::createFromOnnxModel(onnxPb, every, device)->getAnchorShape(o), (Shape{2, 1}));
  DataFlow last(4, {{o, AnchorReturnType("FINAL")}});
  EXPECT_EQ(InferenceSession::createFromOnnxModel(onnxPb, last, device)->getAnchorShape(o), (Shape{1}));
}

TEST(Seed004, SavingAndLoadingAModel) {
  const Doc004Model m = doc004Model();
  const std::string testOnnx = tmpPath("test.onnx");
  const std::string trained = tmpPath("trained_model.onnx");
  {
    std::ofstream f(testOnnx, std::ios::binary);  // "a file of saved parameters, from an earlier session"
    f << m.proto;
  }
  L1Loss l1(m.o, "l1", 1.0f);
  auto session = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {{m.o, AnchorReturnType("ALL")}}),
                                                      std::vector<Loss*>{&l1}, ConstSGD(0.5), test::cpu());
  session->prepareDevice();
  session->weightsFromHost();
  auto anchors = session->initAnchorArrays();
  std::map<TensorId, NDArray> data;
  data.emplace("a", NDArray::fromVector(std::vector<float>{1.0f}, {1}));
  data.emplace("b", NDArray::fromVector(std::vector<float>{0.0f}, {1}));
  StepIO stepio(arrayRefs(data), arrayRefs(anchors));
  session->run(stepio);  // w = 2 - 0.5

  session->modelToHost(trained);

  auto reloaded = InferenceSession::createFromOnnxModel(trained, DataFlow(1, {m.o}), test::cpu());
  reloaded->prepareDevice();
  auto a2 = reloaded->initAnchorArrays();
  StepIO io2(arrayRefs(data), arrayRefs(a2));
  reloaded->run(io2);
  EXPECT_EQ(a2.at(m.o).dataAs<float>()[0], 1.5f);

  session->resetHostWeights(testOnnx);
  session->weightsFromHost();
  EXPECT_EQ(readW(*session), 2.0f);
}

TEST(Seed004, TurningOnExecutionTracing) {
  const logging::Level before = logging::getLogLevel(logging::Module::popart);
  logging::setLogLevel(logging::levelFromString("TRACE"));  // popart.getLogger().setLevel("TRACE")
  EXPECT_EQ(logging::getLogLevel(logging::Module::popart), logging::Level::Trace);
  EXPECT_EQ(logging::getLogLevel(logging::Module::session), logging::Level::Trace);
  logging::setLogLevel(before);
}

}  // namespace
}  // namespace popart
