// Model import keeps one copy of big weights: initializers take over the parsed ModelProto's
// raw_data (TensorData::adopt) instead of copying it. Checked here: adoption really shares the
// bytes, bad sizes are refused, and a model with big weights still computes the right values and
// exports them (modelToHost refills the stripped initializers from the tensors).
#include <cmath>

#include "common/tensor_data.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"

namespace popart {
namespace {

TEST(TensorDataAdopt, TakesTheStringsBytesWithoutACopy) {
  std::vector<float> v = test::randomFloats(2048, 7);
  auto bytes = std::make_unique<std::string>(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  const char* where = bytes->data();
  TensorData d = TensorData::adopt(TensorInfo(DataType::FLOAT, {32, 64}), std::move(bytes));
  EXPECT_EQ(static_cast<const void*>(d.data()), static_cast<const void*>(where));
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(d.as<float>()[i], v[i]);
  // Copies are deep and moves keep the adopted storage alive.
  TensorData copy = d;
  EXPECT_NE(copy.data(), d.data());
  TensorData moved = std::move(d);
  EXPECT_EQ(static_cast<const void*>(moved.data()), static_cast<const void*>(where));
  EXPECT_EQ(moved.as<float>()[5], v[5]);
  EXPECT_EQ(copy.as<float>()[2047], v[2047]);
}

TEST(TensorDataAdopt, RefusesBytesOfTheWrongSize) {
  test::expectError(
      [] { TensorData::adopt(TensorInfo(DataType::FLOAT, {4}), std::make_unique<std::string>(15, '\0')); },
      {"15 bytes", "FLOAT"});
}

TEST(TensorDataAdopt, TakeTensorFromProtoClearsRawData) {
  onnx::TensorProto tp;
  tp.set_name("w");
  tp.set_data_type(onnx::TensorProto::FLOAT);
  tp.add_dims(3);
  const float v[3] = {1.5f, -2.0f, 4.25f};
  tp.set_raw_data(std::string(reinterpret_cast<const char*>(v), sizeof(v)));
  TensorData d = takeTensorFromProto(tp);
  EXPECT_FALSE(tp.has_raw_data());
  EXPECT_EQ(d.info(), TensorInfo(DataType::FLOAT, {3}));
  EXPECT_EQ(d.as<float>()[2], 4.25f);
  // A size mismatch keeps tensorFromProto's message, naming the tensor.
  tp.set_raw_data(std::string(10, '\0'));
  test::expectError([&] { takeTensorFromProto(tp); }, {"'w'", "10 bytes"});
}

/// y = x [4, 64] @ w [64, 32] (8 KiB: adopted) and yc = Conv(xc [1, 16, 8, 8], wc [16, 16, 3, 3],
/// pad 1) (9 KiB: adopted, then Winograd-transformed), each against a double reference.
TEST(ModelImport, BigAdoptedWeightsComputeAndExport) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const std::vector<float> w = test::randomFloats(64 * 32, 11), wc = test::randomFloats(16 * 16 * 9, 12);
  const std::vector<float> x = test::randomFloats(4 * 64, 13), xc = test::randomFloats(16 * 64, 14);
  const TensorId xi = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 64}));
  const TensorId xci = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 16, 8, 8}));
  const TensorId wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo(DataType::FLOAT, {64, 32})));
  const TensorId wci =
      b->addInitializedInputTensor(ConstVoidData(wc.data(), TensorInfo(DataType::FLOAT, {16, 16, 3, 3})));
  const TensorId y = ai.matmul({xi, wi});
  const TensorId yc = ai.conv({xci, wci}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1});
  b->addOutputTensor(y);
  b->addOutputTensor(yc);
  // The Builder writes float_data (as PopART's); exporters write raw_data, which is adopted.
  onnx::ModelProto built;
  ASSERT_TRUE(built.ParseFromString(b->getModelProto()));
  for (auto& tp : *built.mutable_graph()->mutable_initializer())
    tensorToProto(tensorFromProto(tp), &tp, ProtoValues::Raw);
  const std::string proto = built.SerializeAsString();

  std::map<TensorId, NDArray> inputs;
  inputs.emplace(xi, NDArray::fromVector(x, {4, 64}));
  inputs.emplace(xci, NDArray::fromVector(xc, {1, 16, 8, 8}));
  auto check = [&](const std::map<TensorId, NDArray>& out) {
    const auto vy = out.at(y).toVector<float>(), vyc = out.at(yc).toVector<float>();
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 32; ++j) {
        double r = 0;
        for (int k = 0; k < 64; ++k) r += double(x[i * 64 + k]) * w[k * 32 + j];
        ASSERT_NEAR(vy[i * 32 + j], r, 1e-4);
      }
    }
    for (int m = 0; m < 16; ++m) {
      for (int oh = 0; oh < 8; ++oh) {
        for (int ow = 0; ow < 8; ++ow) {
          double r = 0;
          for (int c = 0; c < 16; ++c) {
            for (int kh = 0; kh < 3; ++kh) {
              for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih < 0 || ih >= 8 || iw < 0 || iw >= 8) continue;
                r += double(xc[c * 64 + ih * 8 + iw]) * wc[((m * 16 + c) * 3 + kh) * 3 + kw];
              }
            }
          }
          ASSERT_NEAR(vyc[m * 64 + oh * 8 + ow], r, 1e-4);
        }
      }
    }
  };
  auto s = InferenceSession::createFromOnnxModel(proto, DataFlow(1, std::vector<TensorId>{y, yc}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));
  s->run(io);
  check(anchors);

  // The export carries the weights (refilled from the tensors), and a session made from it
  // computes the same.
  onnx::ModelProto exported;
  ASSERT_TRUE(exported.ParseFromString(s->modelToHostBytes()));
  for (const auto& tp : exported.graph().initializer()) {
    const std::vector<float>& want = tp.name() == wi ? w : wc;
    ASSERT_EQ(tp.raw_data().size(), want.size() * sizeof(float)) << tp.name();
    EXPECT_EQ(std::memcmp(tp.raw_data().data(), want.data(), tp.raw_data().size()), 0) << tp.name();
  }
  check(test::runOnce(exported.SerializeAsString(), inputs, {y, yc}));
}

}  // namespace
}  // namespace popart
