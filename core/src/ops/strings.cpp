// String ops: StringNormalizer, TfIdfVectorizer.
#include <algorithm>
#include <set>

#include "common/strings.hpp"
#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/strings_params.hpp"

namespace popart {
namespace ops {
std::vector<std::string> normalizeStrings(const Op& op, const std::string* in, int64_t n) {
  const std::string action = op.attrs.getString("case_change_action", "NONE");
  const bool caseSensitive = op.attrs.getInt("is_case_sensitive", 0) != 0;
  std::set<std::string> stop;
  for (const auto& w : op.attrs.getStrings("stopwords", {})) stop.insert(caseSensitive ? w : asciiLower(w));
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = in[i];
    if (stop.count(caseSensitive ? s : asciiLower(s))) continue;
    std::string t = s;
    if (action == "LOWER") t = asciiLower(t);
    if (action == "UPPER") t = asciiUpper(t);
    out.push_back(t);
  }
  if (out.empty()) out.emplace_back();
  return out;
}

TfIdfPlan tfidfPlan(const Op& op) {
  TfIdfPlan p;
  const bool strings = op.inType(0) == DataType::STRING;
  const std::string mode = op.attrs.getString("mode");
  if (mode == "TF") {
    p.mode = TfIdfPlan::Mode::TF;
  } else if (mode == "IDF") {
    p.mode = TfIdfPlan::Mode::IDF;
  } else if (mode == "TFIDF") {
    p.mode = TfIdfPlan::Mode::TFIDF;
  } else {
    throw error("mode '{}' is not TF, IDF or TFIDF", mode);
  }
  p.minN = op.attrs.getInt("min_gram_length");
  p.maxN = op.attrs.getInt("max_gram_length");
  p.maxSkip = op.attrs.getInt("max_skip_count");
  if (p.minN < 1 || p.maxN < p.minN)
    throw error("min_gram_length ({}) must be at least 1 and at most max_gram_length ({})", p.minN, p.maxN);
  if (p.maxSkip < 0) throw error("max_skip_count must not be negative, got {}", p.maxSkip);
  const bool hasInts = op.attrs.has("pool_int64s"), hasStrings = op.attrs.has("pool_strings");
  if (hasInts == hasStrings) throw error("exactly one of pool_int64s and pool_strings must be given");
  if (strings != hasStrings)
    throw error("{} input needs {} (the pool has the input's type), but the node has {}",
                strings ? "a STRING" : "an integer", strings ? "pool_strings" : "pool_int64s",
                hasStrings ? "pool_strings" : "pool_int64s");
  std::vector<int64_t> pool;
  if (hasInts) {
    pool = op.attrs.getInts("pool_int64s");
  } else {
    for (const auto& str : op.attrs.getStrings("pool_strings"))
      pool.push_back(p.stringIds.emplace(str, static_cast<int64_t>(p.stringIds.size())).first->second);
  }
  const auto counts = op.attrs.getInts("ngram_counts");
  const int64_t poolSize = static_cast<int64_t>(pool.size());
  if (counts.empty() || counts[0] != 0) throw error("ngram_counts {} must start at 0 (the first 1-gram)", counts);
  p.trie.emplace_back();
  std::set<std::vector<int64_t>> seen;
  int32_t ngrams = 0;
  for (size_t level = 0; level < counts.size(); ++level) {
    const int64_t n = static_cast<int64_t>(level) + 1;
    const int64_t begin = counts[level], end = level + 1 < counts.size() ? counts[level + 1] : poolSize;
    if (end < begin || end > poolSize)
      throw error("ngram_counts {} must be non-decreasing offsets into the pool of {} values", counts, poolSize);
    if ((end - begin) % n != 0)
      throw error("the {}-grams of the pool (offsets {} to {}) are not a whole number of {}-grams", n, begin, end, n);
    for (int64_t at = begin; at < end; at += n) {
      const std::vector<int64_t> gram(pool.begin() + at, pool.begin() + at + n);
      if (!seen.insert(gram).second) throw error("the pool holds the {}-gram at offset {} twice", n, at);
      int32_t node = 0;
      for (int64_t tok : gram) {
        const auto it = p.trie[static_cast<size_t>(node)].next.find(tok);
        if (it != p.trie[static_cast<size_t>(node)].next.end()) {
          node = it->second;
        } else {
          p.trie[static_cast<size_t>(node)].next.emplace(tok, static_cast<int32_t>(p.trie.size()));
          node = static_cast<int32_t>(p.trie.size());
          p.trie.emplace_back();
        }
      }
      p.trie[static_cast<size_t>(node)].ngram = ngrams++;
    }
  }
  p.outIndex = op.attrs.getInts("ngram_indexes");
  if (p.numNgrams() != ngrams)
    throw error("ngram_indexes has {} value(s) for the {} n-gram(s) of the pool", p.outIndex.size(), ngrams);
  for (int64_t i : p.outIndex) {
    if (i < 0) throw error("ngram_indexes {} must not be negative", p.outIndex);
    p.outSize = std::max(p.outSize, i + 1);
  }
  p.weights = op.attrs.getFloats("weights", std::vector<float>(p.outIndex.size(), 1.0f));
  if (p.weights.size() != p.outIndex.size())
    throw error("weights has {} value(s) for the {} n-gram(s) of the pool", p.weights.size(), p.outIndex.size());
  return p;
}

void TfIdfPlan::count(const int64_t* tokens, int64_t len, int64_t* counts) const {
  for (int64_t start = 0; start < len; ++start) {
    // A 1-gram is counted once per position, whatever the skip.
    const int64_t skips = maxN == 1 ? 0 : maxSkip;
    for (int64_t skip = 0; skip <= skips; ++skip) {
      int32_t node = 0;
      for (int64_t k = 0; k < maxN; ++k) {
        const int64_t pos = start + k * (skip + 1);
        if (pos >= len) break;
        const auto& next = trie[static_cast<size_t>(node)].next;
        const auto it = next.find(tokens[pos]);
        if (it == next.end()) break;
        node = it->second;
        const int64_t n = k + 1;
        const int32_t g = trie[static_cast<size_t>(node)].ngram;
        if (g >= 0 && n >= minN && (n > 1 || skip == 0)) ++counts[g];
      }
    }
  }
}

void TfIdfPlan::weigh(const int64_t* counts, float* out) const {
  std::fill(out, out + outSize, 0.0f);
  for (int64_t g = 0; g < numNgrams(); ++g) {
    const int64_t c = counts[g];
    if (c == 0) continue;
    const float w = weights[static_cast<size_t>(g)];
    const float v = mode == Mode::TF ? static_cast<float>(c) : mode == Mode::IDF ? w : static_cast<float>(c) * w;
    out[outIndex[static_cast<size_t>(g)]] += v;
  }
}

}  // namespace ops

namespace {

using namespace ops;

void setupStringNormalizer(Op& op) {
  requireType(op, 0, {DataType::STRING});
  const Shape& x = op.inShape(0);
  if (!(x.size() == 1 || (x.size() == 2 && x[0] == 1)))
    throw error("the input must have shape [C] or [1, C], got {}", x);
  const std::string action = op.attrs.getString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    throw error("case_change_action '{}' is not NONE, LOWER or UPPER", action);
  const TensorData& d = op.requireInData(0, "the strings (the output size depends on them)");
  const int64_t kept = static_cast<int64_t>(normalizeStrings(op, d.strings().data(), d.info().nelms()).size());
  setOutput(op, 0, DataType::STRING, x.size() == 1 ? Shape{kept} : Shape{1, kept});
}

/// TfIdfVectorizer(X [C] or [N, C] of INT32, INT64 or STRING): FLOAT [max(ngram_indexes) + 1],
/// one row per row of X.
void setupTfIdfVectorizer(Op& op) {
  requireType(op, 0, {DataType::INT32, DataType::INT64, DataType::STRING});
  const Shape& x = op.inShape(0);
  if (x.size() != 1 && x.size() != 2) throw error("the input must have shape [C] or [N, C], got {}", x);
  const int64_t size = tfidfPlan(op).outSize;
  setOutput(op, 0, DataType::FLOAT, x.size() == 1 ? Shape{size} : Shape{x[0], size});
}

}  // namespace

void define_TfIdfVectorizer(OpDef& d) {
  d.setup = setupTfIdfVectorizer;
}
void define_StringNormalizer(OpDef& d) {
  d.setup = setupStringNormalizer;
  d.shapeInputsMask = 1;
}

}  // namespace popart
