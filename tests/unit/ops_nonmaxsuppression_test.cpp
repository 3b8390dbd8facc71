// ONNX NonMaxSuppression (opset 11) built with aiOnnxOpset11().nonmaxsuppression: cases worked by
// hand (folded at import: constant inputs), random boxes fed at run time (the CPU device plans per
// value) against a brute-force reference in double, the IPU model's static-shape error, and the
// errors.
#include <algorithm>
#include <array>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

/// NonMaxSuppression's selection, written out slowly: while a candidate is left, take the
/// highest-scoring one (the lowest index on ties), then drop every candidate whose intersection
/// over union with it exceeds the threshold.
std::vector<int64_t> nmsReference(const std::vector<float>& boxes, const std::vector<float>& scores, int64_t B,
                                  int64_t C, int64_t N, int64_t maxOut, double iouThr, bool hasScoreThr,
                                  double scoreThr, bool centre) {
  auto rect = [&](int64_t b, int64_t i) {
    const float* q = &boxes[static_cast<size_t>((b * N + i) * 4)];
    std::array<double, 4> r;  // x0, y0, x1, y1
    if (centre) {
      r = {q[0] - q[2] / 2.0, q[1] - q[3] / 2.0, q[0] + q[2] / 2.0, q[1] + q[3] / 2.0};
    } else {
      r = {std::min<double>(q[1], q[3]), std::min<double>(q[0], q[2]), std::max<double>(q[1], q[3]),
           std::max<double>(q[0], q[2])};
    }
    return r;
  };
  auto iou = [](const std::array<double, 4>& a, const std::array<double, 4>& c) {
    const double areaA = (a[2] - a[0]) * (a[3] - a[1]), areaC = (c[2] - c[0]) * (c[3] - c[1]);
    if (areaA <= 0 || areaC <= 0) return 0.0;
    const double w = std::max(0.0, std::min(a[2], c[2]) - std::max(a[0], c[0]));
    const double h = std::max(0.0, std::min(a[3], c[3]) - std::max(a[1], c[1]));
    return w * h / (areaA + areaC - w * h);
  };
  std::vector<int64_t> out;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t c = 0; c < C; ++c) {
      std::vector<bool> alive(static_cast<size_t>(N));
      for (int64_t i = 0; i < N; ++i)
        alive[static_cast<size_t>(i)] = !hasScoreThr || scores[static_cast<size_t>((b * C + c) * N + i)] > scoreThr;
      for (int64_t taken = 0; taken < maxOut; ++taken) {
        int64_t best = -1;
        for (int64_t i = 0; i < N; ++i) {
          if (alive[static_cast<size_t>(i)] && (best < 0 || scores[static_cast<size_t>((b * C + c) * N + i)] >
                                                                scores[static_cast<size_t>((b * C + c) * N + best)]))
            best = i;
        }
        if (best < 0) break;
        out.insert(out.end(), {b, c, best});
        for (int64_t i = 0; i < N; ++i) {
          if (i == best || iou(rect(b, best), rect(b, i)) > iouThr) alive[static_cast<size_t>(i)] = false;
        }
      }
    }
  }
  return out;
}

/// The selected triples of NonMaxSuppression over constant inputs (folded at import).
std::vector<int64_t> nmsFolded(const std::vector<float>& boxes, const Shape& bs, const std::vector<float>& scores,
                               const Shape& ss, int64_t maxOut, float iouThr, float scoreThr, int64_t centre = 0) {
  test::Net n;
  auto ai = n.b->aiOnnxOpset11();
  const TensorId y = ai.nonmaxsuppression(
      {test::constant(ai, boxes, bs), test::constant(ai, scores, ss),
       test::constant(ai, std::vector<int64_t>{maxOut}, {}), test::constant(ai, std::vector<float>{iouThr}, {}),
       test::constant(ai, std::vector<float>{scoreThr}, {})},
      centre);
  const NDArray got = n.runOne(y);
  EXPECT_EQ(got.shape().size(), 2u);
  EXPECT_EQ(got.shape().back(), 3);
  return got.toVector<int64_t>();
}

TEST(NonMaxSuppression, HandWorkedCases) {
  // Box 0 [0, 0, 2, 2] (area 4); box 1 shifted by 1 in x: intersection 2, union 6, IoU 1/3;
  // box 2 far away; box 3 inside box 0: intersection 1, union 4, IoU 1/4.
  const std::vector<float> boxes{0, 0, 2, 2, 0, 1, 2, 3, 10, 10, 11, 11, 0, 0, 1, 1};
  const Shape bs{1, 4, 4}, ss{1, 1, 4};
  const std::vector<float> scores{0.9f, 0.8f, 0.7f, 0.95f};
  // IoU threshold 0.3 suppresses box 1 (1/3 > 0.3) but not box 0 by box 3 (1/4).
  EXPECT_EQ(nmsFolded(boxes, bs, scores, ss, 10, 0.3f, 0.0f), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 2}));
  // IoU threshold 0.2 suppresses box 0 by box 3 (1/4 > 0.2); box 1 does not overlap box 3.
  EXPECT_EQ(nmsFolded(boxes, bs, scores, ss, 10, 0.2f, 0.0f), (std::vector<int64_t>{0, 0, 3, 0, 0, 1, 0, 0, 2}));
  // At most two per class; a score threshold of 0.85 leaves boxes 0 and 3 only.
  EXPECT_EQ(nmsFolded(boxes, bs, scores, ss, 2, 0.5f, 0.0f), (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
  EXPECT_EQ(nmsFolded(boxes, bs, scores, ss, 10, 0.5f, 0.85f), (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
  // max_output_boxes_per_class 0 selects nothing: an empty [0, 3].
  EXPECT_TRUE(nmsFolded(boxes, bs, scores, ss, 0, 0.5f, 0.0f).empty());
  // Corners in any order: box 0 given as [2, 2, 0, 0] is the same box.
  std::vector<float> flipped = boxes;
  std::swap(flipped[0], flipped[2]);
  std::swap(flipped[1], flipped[3]);
  EXPECT_EQ(nmsFolded(flipped, bs, scores, ss, 10, 0.3f, 0.0f), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 2}));
  // center_point_box 1: [x_centre, y_centre, width, height]; the same boxes as above.
  const std::vector<float> centred{1, 1, 2, 2, 2, 1, 2, 2, 10.5f, 10.5f, 1, 1, 0.5f, 0.5f, 1, 1};
  EXPECT_EQ(nmsFolded(centred, bs, scores, ss, 10, 0.3f, 0.0f, 1), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 2}));
  // Equal scores: the lower index first. Two classes, each selecting in its own order.
  EXPECT_EQ(nmsFolded(boxes, bs, {0.5f, 0.5f, 0.5f, 0.5f, 0.1f, 0.2f, 0.3f, 0.4f}, {1, 2, 4}, 10, 0.3f, 0.0f),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 1, 3, 0, 1, 2, 0, 1, 1}));
  // An empty box (zero width) overlaps nothing and is never suppressed.
  EXPECT_EQ(nmsFolded({0, 0, 1, 1, 0, 0, 1, 0}, {1, 2, 4}, {0.9f, 0.8f}, {1, 1, 2}, 10, 0.0f, 0.0f),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
}

TEST(NonMaxSuppression, RunTimeInputsAgainstReference) {
  // Boxes fed at run time: the CPU device plans each distinct value; the optional inputs vary.
  const int64_t B = 2, C = 3, N = 40;
  for (int centre = 0; centre < 2; ++centre) {
    for (int withScoreThr = 0; withScoreThr < 2; ++withScoreThr) {
      const auto corner = test::randomFloats(static_cast<size_t>(B * N * 2), 300 + centre, 0, 10);
      const auto size = test::randomFloats(static_cast<size_t>(B * N * 2), 310 + centre, 0.5f, 4);
      std::vector<float> boxes;
      for (size_t i = 0; i < corner.size(); i += 2) {
        if (centre) {
          boxes.insert(boxes.end(), {corner[i], corner[i + 1], size[i], size[i + 1]});
        } else if ((i / 2) % 2 == 1) {  // half the boxes with their corners swapped
          boxes.insert(boxes.end(), {corner[i] + size[i], corner[i + 1] + size[i + 1], corner[i], corner[i + 1]});
        } else {
          boxes.insert(boxes.end(), {corner[i], corner[i + 1], corner[i] + size[i], corner[i + 1] + size[i + 1]});
        }
      }
      const auto scores = test::randomFloats(static_cast<size_t>(B * C * N), 320 + withScoreThr, 0, 1);
      test::Net n;
      auto ai = n.b->aiOnnxOpset11();
      const TensorId b = n.in(boxes, {B, N, 4}), s = n.in(scores, {B, C, N});
      const TensorId m = n.in(std::vector<int64_t>{7}, {1});
      const TensorId iou = n.in(std::vector<float>{0.25f}, {});
      std::vector<TensorId> args{b, s, m, iou};
      if (withScoreThr) args.push_back(n.in(std::vector<float>{0.3f}, {1}));
      const NDArray got = n.runOne(ai.nonmaxsuppression(args, centre));
      const auto want = nmsReference(boxes, scores, B, C, N, 7, 0.25, withScoreThr != 0, 0.3, centre != 0);
      EXPECT_EQ(got.shape(), (Shape{static_cast<int64_t>(want.size() / 3), 3}));
      EXPECT_EQ(got.toVector<int64_t>(), want) << "centre " << centre << ", score threshold " << withScoreThr;
      EXPECT_GT(want.size(), static_cast<size_t>(3 * B * C));  // more than one box per class kept
    }
  }
}

TEST(NonMaxSuppression, IpuModelNeedsKnownInputs) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId boxes = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 3, 4}));
  const TensorId scores = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 1, 3}));
  const TensorId y = ai.nonmaxsuppression({boxes, scores, test::constant(ai, std::vector<int64_t>{2}, {})});
  b->addOutputTensor(y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"NonMaxSuppression", "output size depends on them", "must be known when the model is compiled"});
}

TEST(NonMaxSuppression, Errors) {
  auto sessionError = [](const Shape& bs, const Shape& ss, const std::vector<std::string>& fragments,
                         DataType bt = DataType::FLOAT, int64_t centre = 0, float iouThr = 0.5f,
                         bool floatMax = false) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset11();
    const TensorId boxes = b->addInputTensor(TensorInfo(bt, bs));
    const TensorId scores = b->addInputTensor(TensorInfo(DataType::FLOAT, ss));
    const TensorId m =
        floatMax ? test::constant(ai, std::vector<float>{2}, {}) : test::constant(ai, std::vector<int64_t>{2}, {});
    const TensorId y =
        ai.nonmaxsuppression({boxes, scores, m, test::constant(ai, std::vector<float>{iouThr}, {})}, centre);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  sessionError({1, 3, 4}, {1, 1, 3}, {"NonMaxSuppression", "INT32", "FLOAT"}, DataType::INT32);
  sessionError({1, 3, 5}, {1, 1, 3}, {"boxes must have shape [num_batches, spatial_dimension, 4]", "[1 3 5]"});
  sessionError({3, 4}, {1, 1, 3}, {"boxes must have shape"});
  sessionError({1, 3, 4}, {1, 1, 4},
               {"scores must have shape [num_batches, num_classes, spatial_dimension]", "[1 1 4]"});
  sessionError({2, 3, 4}, {1, 1, 3}, {"scores must have shape"});
  sessionError({1, 3, 4}, {1, 1, 3}, {"center_point_box must be 0 or 1, got 2"}, DataType::FLOAT, 2);
  sessionError({1, 3, 4}, {1, 1, 3}, {"iou_threshold must be in [0, 1], got 1.5"}, DataType::FLOAT, 0, 1.5f);
  sessionError({1, 3, 4}, {1, 1, 3}, {"max_output_boxes_per_class", "must be one INT64 value"}, DataType::FLOAT, 0,
               0.5f, true);
}

}  // namespace
}  // namespace popart
