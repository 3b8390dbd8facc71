// Linear algebra: Einsum (explicit and implicit outputs, ellipsis broadcasting, repeated
// subscripts as diagonals, summation) and Det.
#include <algorithm>
#include <cctype>
#include <map>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/linalg_params.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {
namespace {

/// Subscripts of one term: a letter's character code, or kEllipsis.
constexpr int kEllipsis = -1;
/// Label code of the i-th dimension covered by the ellipsis (letters are < 128).
constexpr int kEllipsisDim0 = 1000;

std::vector<int> parseTerm(const std::string& eq, const std::string& term, const char* where) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char ch = term[i];
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      out.push_back(static_cast<unsigned char>(ch));
    } else if (ch == '.') {
      if (term.compare(i, 3, "...") != 0)
        throw error("equation '{}': a '.' that is not part of '...' in {}", eq, where);
      if (ellipsis) throw error("equation '{}': more than one '...' in {}", eq, where);
      ellipsis = true;
      out.push_back(kEllipsis);
      i += 2;
    } else {
      throw error("equation '{}': unexpected character '{}' in {} (subscripts are letters, '...', ',' and '->')", eq,
                  std::string(1, ch), where);
    }
  }
  return out;
}

std::string labelName(int code) {
  return code >= kEllipsisDim0 ? format("... dimension {}", code - kEllipsisDim0)
                               : std::string("'") + static_cast<char>(code) + "'";
}

}  // namespace

EinsumPlan einsumPlan(const std::string& equation, const std::vector<Shape>& operands) {
  std::string eq;
  for (char ch : equation) {
    if (!std::isspace(static_cast<unsigned char>(ch))) eq += ch;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  if (arrow != std::string::npos && eq.find("->", arrow + 2) != std::string::npos)
    throw error("equation '{}' has more than one '->'", equation);

  // Operand terms.
  std::vector<std::vector<int>> terms;
  {
    size_t start = 0;
    while (true) {
      const size_t comma = lhs.find(',', start);
      const std::string t = lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      terms.push_back(parseTerm(equation, t, format("operand term {}", terms.size()).c_str()));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (terms.size() != operands.size())
    throw error("equation '{}' has {} operand term(s), but the node has {} input(s)", equation, terms.size(),
                operands.size());

  // The ellipsis: its rank per operand, and the broadcast shape of the dimensions it covers.
  std::vector<int64_t> ellRanks(terms.size(), 0);
  int64_t ellRank = 0;
  bool anyEllipsis = false;
  for (size_t k = 0; k < terms.size(); ++k) {
    const int64_t letters =
        static_cast<int64_t>(std::count_if(terms[k].begin(), terms[k].end(), [](int c) { return c != kEllipsis; }));
    const bool hasEll = letters != static_cast<int64_t>(terms[k].size());
    const int64_t rank = static_cast<int64_t>(operands[k].size());
    if (hasEll) {
      anyEllipsis = true;
      if (rank < letters)
        throw error("equation '{}': input {} has rank {}, fewer than the {} subscript(s) of its term", equation, k,
                    rank, letters);
      ellRanks[k] = rank - letters;
      ellRank = std::max(ellRank, ellRanks[k]);
    } else if (rank != letters) {
      throw error("equation '{}': input {} has rank {}, but its term has {} subscript(s)", equation, k, rank, letters);
    }
  }
  Shape ellShape(static_cast<size_t>(ellRank), 1);
  // Each operand's dimensions as label codes.
  std::vector<std::vector<int>> dimCodes(terms.size());
  std::map<int, int64_t> sizeOf;
  std::map<int, int> occurrences;
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& sh = operands[k];
    size_t d = 0;
    for (int c : terms[k]) {
      if (c == kEllipsis) {
        for (int64_t i = 0; i < ellRanks[k]; ++i, ++d) {
          const int64_t e = ellRank - ellRanks[k] + i;
          int64_t& tgt = ellShape[static_cast<size_t>(e)];
          if (sh[d] != 1 && tgt != 1 && tgt != sh[d])
            throw error("equation '{}': the '...' dimensions of input {} ({}) do not broadcast with the others",
                        equation, k, sh);
          if (sh[d] != 1) tgt = sh[d];
          dimCodes[k].push_back(kEllipsisDim0 + static_cast<int>(e));
        }
        continue;
      }
      auto it = sizeOf.find(c);
      if (it != sizeOf.end() && it->second != sh[d])
        throw error("equation '{}': subscript {} has size {} in input {} but size {} elsewhere", equation, labelName(c),
                    sh[d], k, it->second);
      sizeOf[c] = sh[d];
      ++occurrences[c];
      dimCodes[k].push_back(c);
      ++d;
    }
  }
  for (int64_t e = 0; e < ellRank; ++e) sizeOf[kEllipsisDim0 + static_cast<int>(e)] = ellShape[static_cast<size_t>(e)];

  // Output labels.
  std::vector<int> outCodes;
  if (arrow != std::string::npos) {
    const std::vector<int> rhs = parseTerm(equation, eq.substr(arrow + 2), "the output term");
    for (int c : rhs) {
      if (c == kEllipsis) {
        for (int64_t e = 0; e < ellRank; ++e) outCodes.push_back(kEllipsisDim0 + static_cast<int>(e));
        continue;
      }
      if (!occurrences.count(c))
        throw error("equation '{}': output subscript {} does not appear in any input term", equation, labelName(c));
      if (std::find(outCodes.begin(), outCodes.end(), c) != outCodes.end())
        throw error("equation '{}': output subscript {} appears more than once", equation, labelName(c));
      outCodes.push_back(c);
    }
  } else {
    if (anyEllipsis) {
      for (int64_t e = 0; e < ellRank; ++e) outCodes.push_back(kEllipsisDim0 + static_cast<int>(e));
    }
    for (const auto& kv : occurrences) {  // std::map: sorted by character code
      if (kv.second == 1) outCodes.push_back(kv.first);
    }
  }

  EinsumPlan plan;
  std::map<int, size_t> labelOf;
  std::vector<int> codes = outCodes;
  for (const auto& kv : sizeOf) {
    if (std::find(outCodes.begin(), outCodes.end(), kv.first) == outCodes.end()) codes.push_back(kv.first);
  }
  for (size_t l = 0; l < codes.size(); ++l) {
    labelOf[codes[l]] = l;
    plan.sizes.push_back(sizeOf[codes[l]]);
  }
  plan.outRank = static_cast<int64_t>(outCodes.size());
  for (size_t l = 0; l < outCodes.size(); ++l) plan.outShape.push_back(plan.sizes[l]);
  for (size_t k = 0; k < terms.size(); ++k) {
    std::vector<int64_t> st(codes.size(), 0);
    std::vector<bool> present(codes.size(), false);
    const Shape& sh = operands[k];
    int64_t stride = 1;
    for (size_t d = sh.size(); d-- > 0;) {
      const size_t l = labelOf.at(dimCodes[k][d]);
      present[l] = true;
      if (!(sh[d] == 1 && plan.sizes[l] != 1)) st[l] += stride;  // else: broadcast
      stride *= sh[d];
    }
    plan.strides.push_back(st);
    plan.present.push_back(present);
  }
  return plan;
}

namespace {

void setupEinsum(Op& op) {
  std::vector<Shape> shapes;
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) throw error("input {} is missing", i);
    if (i > 0) requireSameType(op, 0, i);
    shapes.push_back(op.inShape(i));
  }
  const DataType t = op.inType(0);
  if (t == DataType::BOOL || t == DataType::STRING)
    throw error("Einsum needs numeric inputs, got {}", dataTypeToString(t));
  const EinsumPlan plan = einsumPlan(op.attrs.getString("equation"), shapes);
  setOutput(op, 0, t, plan.outShape);
}

void setupDet(Op& op) {
  requireFloat(op, 0);
  requireRank(op, 0, 2, true);
  const Shape& x = op.inShape(0);
  if (x[x.size() - 1] != x[x.size() - 2])
    throw error("Det needs square matrices in the last two dimensions, got {}", op.inInfo(0).toString());
  setOutput(op, 0, op.inType(0), Shape(x.begin(), x.end() - 2));
}

/// (dY [...], A [..., M, M]) -> dA = dY * the cofactor matrix of A.
void setupDetGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  const Shape& a = op.inShape(1);
  if (a.size() < 2 || op.inShape(0) != Shape(a.begin(), a.end() - 2))
    throw error("the gradient {} does not match the matrices {}", op.inShape(0), a);
  setOutput(op, 0, op.inInfo(1));
}

/// Einsum: dA_k = Einsum(dY and the other operands -> A_k's subscripts); labels that only A_k
/// has (summed away) are broadcast back with Expand. Equations with "..." or a subscript repeated
/// within one operand (diagonals) are refused.
void gradEinsum(GradCtx& c) {
  std::string eq;
  for (char ch : c.op().attrs.getString("equation"))
    if (!std::isspace(static_cast<unsigned char>(ch))) eq.push_back(ch);
  if (eq.find('.') != std::string::npos)
    throw error("the gradient of Einsum '{}' is not supported: the equation has an ellipsis", eq);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms{""};
  for (char ch : lhs) {
    if (ch == ',')
      terms.emplace_back();
    else
      terms.back().push_back(ch);
  }
  std::string rhs;
  if (arrow != std::string::npos) {
    rhs = eq.substr(arrow + 2);
  } else {  // implicit output: the letters used once, in alphabetical order
    std::map<char, int> count;
    for (char ch : lhs)
      if (ch != ',') ++count[ch];
    for (const auto& kv : count)
      if (kv.second == 1) rhs.push_back(kv.first);
  }
  for (const std::string& t : terms) {
    for (size_t i = 0; i < t.size(); ++i)
      if (t.find(t[i], i + 1) != std::string::npos)
        throw error("the gradient of Einsum '{}' is not supported: '{}' repeats a subscript", eq, t);
  }
  for (size_t k = 0; k < terms.size(); ++k) {
    if (!c.needsInGrad(static_cast<int>(k))) continue;
    std::string others = rhs, sub = rhs;
    std::vector<Tensor*> ins{c.outGrad(0)};
    for (size_t j = 0; j < terms.size(); ++j) {
      if (j == k) continue;
      others += terms[j];
      sub += "," + terms[j];
      ins.push_back(c.in(static_cast<int>(j)));
    }
    std::string target;
    Shape kept;
    const Shape& shape = c.in(static_cast<int>(k))->info.shape();
    for (size_t i = 0; i < terms[k].size(); ++i) {
      const bool has = others.find(terms[k][i]) != std::string::npos;
      if (has) target.push_back(terms[k][i]);
      kept.push_back(has ? shape[i] : 1);
    }
    Attributes a;
    a.set("equation", sub + "->" + target);
    Tensor* g = c.add1(OpKind::Einsum, ins, a);
    if (target != terms[k]) g = c.add1(OpKind::Expand, {c.reshape(g, kept), c.constInts(shape)});
    c.setInGrad(static_cast<int>(k), g);
  }
}

void gradDet(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::DetGrad, {c.outGrad(0), c.in(0)}));
}

}  // namespace
}  // namespace ops

void define_Einsum(OpDef& d) {
  d.setup = ops::setupEinsum;
  d.grad = ops::gradEinsum;
}
void define_Det(OpDef& d) {
  d.setup = ops::setupDet;
  d.grad = ops::gradDet;
}
void define_DetGrad(OpDef& d) {
  d.setup = ops::setupDetGrad;
}

}  // namespace popart
