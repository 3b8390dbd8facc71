// StringNormalizer's normalisation and TfIdfVectorizer's n-gram pool, shared by shape inference
// and the kernels.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Stop words removed, then case changed; an empty result is one empty string (ONNX's rule).
std::vector<std::string> normalizeStrings(const Op& op, const std::string* in, int64_t n);

/// TfIdfVectorizer's attributes, checked, with its pool of n-grams as a trie over tokens (the
/// pool_int64s values, or for STRING input the index of each distinct pool string).
struct TfIdfPlan {
  enum class Mode { TF, IDF, TFIDF };
  Mode mode = Mode::TF;
  int64_t minN = 1, maxN = 1, maxSkip = 0;
  int64_t outSize = 0;            ///< max(ngram_indexes) + 1
  std::vector<int64_t> outIndex;  ///< per pool n-gram: its output coordinate
  std::vector<float> weights;     ///< per pool n-gram (all 1 without the attribute)
  struct Node {
    std::unordered_map<int64_t, int32_t> next;
    int32_t ngram = -1;  ///< the pool n-gram ending here
  };
  std::vector<Node> trie;                              ///< node 0 is the root
  std::unordered_map<std::string, int64_t> stringIds;  ///< STRING input: a pool string's token

  int64_t numNgrams() const { return static_cast<int64_t>(outIndex.size()); }
  /// The token of a string (-1, matching nothing, when it is not in the pool).
  int64_t tokenOf(const std::string& s) const {
    const auto it = stringIds.find(s);
    return it == stringIds.end() ? -1 : it->second;
  }
  /// Adds the counts of the pool's n-grams in tokens[0, len) to counts[numNgrams()]: every start
  /// and, for n >= 2, every skip 0 .. maxSkip between consecutive items.
  void count(const int64_t* tokens, int64_t len, int64_t* counts) const;
  /// The output row from the counts: TF the count, IDF the weight of a present n-gram, TFIDF
  /// count x weight.
  void weigh(const int64_t* counts, float* out) const;
};
/// Reads and checks TfIdfVectorizer's attributes against input 0's type.
TfIdfPlan tfidfPlan(const Op& op);

}  // namespace ops
}  // namespace popart
