// ONNX TfIdfVectorizer (opset 9) built with aiOnnxOpset9().tfidfvectorizer: a case worked by hand,
// INT32 / INT64 / STRING input in every mode against a brute-force reference (every n-gram of
// every skip listed, then looked up in the pool), batches, and the errors.
#include <algorithm>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

struct TfIdfAttrs {
  int64_t minN = 1, maxN = 2, maxSkip = 0;
  std::string mode = "TF";
  std::vector<int64_t> counts{0, 4};
  std::vector<int64_t> indexes{0, 1, 2, 3, 4, 5, 6};
  std::vector<int64_t> pool{2, 3, 5, 4, 5, 6, 7, 8, 6, 7};
  std::vector<std::string> poolStrings;
  std::vector<float> weights;
};

/// The reference: the pool's n-grams listed (level by level from ngram_counts), then every n-gram
/// of each row (each start, each n, each skip; a 1-gram once per start) searched for in the list.
std::vector<double> tfidfReference(const std::vector<int64_t>& x, int64_t rows, const TfIdfAttrs& a) {
  std::vector<std::vector<int64_t>> grams;
  for (size_t level = 0; level < a.counts.size(); ++level) {
    const int64_t n = static_cast<int64_t>(level) + 1;
    const int64_t end = level + 1 < a.counts.size() ? a.counts[level + 1] : static_cast<int64_t>(a.pool.size());
    for (int64_t at = a.counts[level]; at < end; at += n)
      grams.emplace_back(a.pool.begin() + at, a.pool.begin() + at + n);
  }
  const int64_t outSize = *std::max_element(a.indexes.begin(), a.indexes.end()) + 1;
  const int64_t len = static_cast<int64_t>(x.size()) / rows;
  std::vector<double> out(static_cast<size_t>(rows * outSize), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> count(grams.size(), 0);
    for (int64_t n = a.minN; n <= a.maxN; ++n) {
      for (int64_t skip = 0; skip <= (n == 1 ? 0 : a.maxSkip); ++skip) {
        for (int64_t start = 0; start + (n - 1) * (skip + 1) < len; ++start) {
          std::vector<int64_t> g;
          for (int64_t k = 0; k < n; ++k) g.push_back(x[static_cast<size_t>(r * len + start + k * (skip + 1))]);
          const auto it = std::find(grams.begin(), grams.end(), g);
          if (it != grams.end()) ++count[static_cast<size_t>(it - grams.begin())];
        }
      }
    }
    for (size_t i = 0; i < grams.size(); ++i) {
      const double w = a.weights.empty() ? 1.0 : a.weights[i];
      const double c = static_cast<double>(count[i]);
      const double v = a.mode == "TF" ? c : a.mode == "IDF" ? (c > 0 ? w : 0.0) : c * w;
      out[static_cast<size_t>(r * outSize + a.indexes[i])] += v;
    }
  }
  return out;
}

template <typename T>
NDArray tfidfRun(const std::vector<T>& x, const Shape& xs, const TfIdfAttrs& a) {
  test::Net n;
  const TensorId xi = n.in(x, xs);
  return n.runOne(n.b->aiOnnxOpset9().tfidfvectorizer({xi}, a.maxN, a.maxSkip, a.minN, a.mode, a.counts, a.indexes,
                                                      a.poolStrings.empty() ? a.pool : std::vector<int64_t>{},
                                                      a.poolStrings, a.weights));
}

TEST(TfIdfVectorizer, HandWorkedCase) {
  // Pool: 1-grams 2, 3, 5, 4; 2-grams (5, 6), (7, 8), (6, 7). X = 3 5 6 7 3 5 6.
  // 1-grams: 3 twice, 5 twice. 2-grams of adjacent items: (5, 6) twice, (6, 7) once; one item
  // apart: (3, 6), (5, 7), (6, 3), (7, 5), (3, 6); two apart: (3, 7), (5, 3), (6, 5), (7, 6): none in
  // the pool. So TF is [0, 2, 2, 0, 2, 0, 1] with max_skip_count 0 or 2.
  TfIdfAttrs a;
  const std::vector<int64_t> x{3, 5, 6, 7, 3, 5, 6};
  for (int64_t skip : {0, 2}) {
    a.maxSkip = skip;
    EXPECT_EQ(tfidfRun(x, {7}, a).toVector<float>(), (std::vector<float>{0, 2, 2, 0, 2, 0, 1}));
  }
  // Three apart: (3, 3), (5, 5), (6, 6); with (3, 3) in the pool as the output's coordinate 7, it
  // counts once.
  a.maxSkip = 3;
  a.pool.insert(a.pool.end(), {3, 3});
  a.indexes.push_back(7);
  EXPECT_EQ(tfidfRun(x, {7}, a).toVector<float>(), (std::vector<float>{0, 2, 2, 0, 2, 0, 1, 1}));
  // IDF: the weight of each present n-gram; TFIDF: count x weight.
  a.weights = {0.5f, 1.5f, 2.0f, 3.0f, 0.25f, 4.0f, 1.0f, 10.0f};
  a.mode = "IDF";
  EXPECT_EQ(tfidfRun(x, {7}, a).toVector<float>(), (std::vector<float>{0, 1.5f, 2.0f, 0, 0.25f, 0, 1.0f, 10.0f}));
  a.mode = "TFIDF";
  EXPECT_EQ(tfidfRun(x, {7}, a).toVector<float>(), (std::vector<float>{0, 3.0f, 4.0f, 0, 0.5f, 0, 1.0f, 10.0f}));
  // The IPU model runs it too: its output size follows from the attributes alone.
  test::Net ipu;
  const TensorId y = ipu.b->aiOnnxOpset9().tfidfvectorizer({ipu.in(x, {7})}, a.maxN, a.maxSkip, a.minN, a.mode,
                                                           a.counts, a.indexes, a.pool, {}, a.weights);
  ipu.b->addOutputTensor(y);
  const auto out = test::runOnce(ipu.b->getModelProto(), ipu.inputs, {y}, {}, 1,
                                 test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
  EXPECT_EQ(out.at(y).toVector<float>(), (std::vector<float>{0, 3.0f, 4.0f, 0, 0.5f, 0, 1.0f, 10.0f}));
}

TEST(TfIdfVectorizer, AgainstReference) {
  // Tokens from a small alphabet so that n-grams repeat; a pool of 1-, 2- and 3-grams whose
  // output coordinates are permuted; every mode, gram range and skip, INT32 / INT64 / STRING.
  const int64_t rows = 3, len = 25;
  std::vector<int64_t> x;
  for (float v : test::randomFloats(static_cast<size_t>(rows * len), 400, 0, 5)) x.push_back(static_cast<int64_t>(v));
  TfIdfAttrs base;
  base.pool = {0, 1, 4, 0, 1, 1, 0, 2, 3, 4, 4, 3, 2, 2, 3, 0, 1, 4, 4, 0, 0, 0};
  base.counts = {0, 3, 13};
  base.indexes = {8, 0, 3, 1, 9, 2, 5, 4, 6, 7, 10};
  base.weights = {0.5f, 1, 2, 3, 0.25f, 4, 1.5f, 5, 6, 0.75f, 7};
  const std::vector<std::string> names{"a", "b", "c", "d", "e"};
  for (const std::string mode : {"TF", "IDF", "TFIDF"}) {
    for (auto [minN, maxN] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 3}, {2, 2}, {2, 3}, {3, 3}}) {
      for (int64_t skip : {0, 1, 4}) {
        TfIdfAttrs a = base;
        a.mode = mode;
        a.minN = minN;
        a.maxN = maxN;
        a.maxSkip = skip;
        const std::string what =
            mode + " " + std::to_string(minN) + ".." + std::to_string(maxN) + " skip " + std::to_string(skip);
        const std::vector<double> want = tfidfReference(x, rows, a);
        test::expectNear(tfidfRun(x, {rows, len}, a).toVector<float>(), want, 1e-6, what + " INT64");
        const std::vector<int32_t> x32(x.begin(), x.end());
        test::expectNear(tfidfRun(x32, {rows, len}, a).toVector<float>(), want, 1e-6, what + " INT32");
        // STRING: the same tokens as names.
        std::vector<std::string> xs;
        for (int64_t v : x) xs.push_back(names[static_cast<size_t>(v)]);
        for (int64_t v : a.pool) a.poolStrings.push_back(names[static_cast<size_t>(v)]);
        test::expectNear(tfidfRun(xs, {rows, len}, a).toVector<float>(), want, 1e-6, what + " STRING");
      }
    }
  }
  // One row: the output has no batch dimension.
  const NDArray one = tfidfRun(std::vector<int64_t>(x.begin(), x.begin() + len), {len}, base);
  EXPECT_EQ(one.shape(), (Shape{11}));
}

TEST(TfIdfVectorizer, Errors) {
  auto sessionError = [](const TfIdfAttrs& a, const std::vector<std::string>& fragments, DataType t = DataType::INT64,
                         const Shape& xs = {2, 6}) {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo(t, xs));
    const TensorId y = b->aiOnnxOpset9().tfidfvectorizer({x}, a.maxN, a.maxSkip, a.minN, a.mode, a.counts, a.indexes,
                                                         a.pool, a.poolStrings, a.weights);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  TfIdfAttrs a;
  sessionError(a, {"TfIdfVectorizer", "FLOAT", "INT32, INT64, STRING"}, DataType::FLOAT);
  sessionError(a, {"must have shape [C] or [N, C], got [1 2 6]"}, DataType::INT64, {1, 2, 6});
  TfIdfAttrs bad = a;
  bad.mode = "BM25";
  sessionError(bad, {"mode 'BM25' is not TF, IDF or TFIDF"});
  bad = a;
  bad.minN = 3;
  sessionError(bad, {"min_gram_length (3) must be at least 1 and at most max_gram_length (2)"});
  bad = a;
  bad.maxSkip = -1;
  sessionError(bad, {"max_skip_count must not be negative, got -1"});
  bad = a;
  bad.indexes.pop_back();
  sessionError(bad, {"ngram_indexes has 6 value(s) for the 7 n-gram(s) of the pool"});
  bad = a;
  bad.weights = {1, 2};
  sessionError(bad, {"weights has 2 value(s) for the 7 n-gram(s) of the pool"});
  bad = a;
  bad.counts = {0, 3};
  sessionError(bad, {"the 2-grams of the pool (offsets 3 to 10) are not a whole number of 2-grams"});
  bad = a;
  bad.counts = {1, 4};
  sessionError(bad, {"ngram_counts [1 4] must start at 0"});
  bad = a;
  bad.counts = {0, 12};
  sessionError(bad, {"must be non-decreasing offsets into the pool of 10 values"});
  bad = a;
  bad.pool = {2, 3, 5, 3, 5, 6, 7, 8, 6, 7};
  sessionError(bad, {"the pool holds the 1-gram at offset 3 twice"});
  bad = a;
  bad.indexes[2] = -1;
  sessionError(bad, {"ngram_indexes", "must not be negative"});
  // The pool must have the input's type.
  bad = a;
  bad.poolStrings = {"a", "b", "c", "d", "a", "b", "c", "d", "a", "b"};
  sessionError(bad, {"exactly one of pool_int64s and pool_strings"});
  bad.pool.clear();
  sessionError(bad, {"an integer input needs pool_int64s", "the node has pool_strings"});
  sessionError(a, {"a STRING input needs pool_strings", "the node has pool_int64s"}, DataType::STRING);
}

}  // namespace
}  // namespace popart
