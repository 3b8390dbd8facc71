#include "session/replica_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/element_type.hpp"
#include "common/tensor_data.hpp"
#include "ir/op.hpp"
#include "ir/tensor.hpp"
#include "ops/collectives.hpp"
#include "popart/error.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

using distributed::ReduceOp;
using ops::Collective;

ReduceOp reduceOpOf(CollectiveOperator op) {
  switch (op) {
    case CollectiveOperator::Mul:
      return ReduceOp::Prod;
    case CollectiveOperator::Min:
      return ReduceOp::Min;
    case CollectiveOperator::Max:
      return ReduceOp::Max;
    case CollectiveOperator::LogicalAnd:
      return ReduceOp::LogicalAnd;
    case CollectiveOperator::LogicalOr:
      return ReduceOp::LogicalOr;
    default:  // Add, Mean, SquareAdd: sums
      return ReduceOp::Sum;
  }
}

/// Element-wise arithmetic on one element type (the 16-bit floats computed in float).
template <typename T, typename A = T>
struct Math {
  static void fill(void* p, int64_t n, ReduceOp op) {
    A v = A(0);
    if (op == ReduceOp::Prod) v = A(1);
    if (op == ReduceOp::Min)
      v = std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity() : std::numeric_limits<A>::max();
    if (op == ReduceOp::Max)
      v = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
    T* a = static_cast<T*>(p);
    for (int64_t i = 0; i < n; ++i) a[i] = T(v);
  }
  static void combine(void* acc, const void* v, int64_t n, ReduceOp op) {
    T* a = static_cast<T*>(acc);
    const T* b = static_cast<const T*>(v);
    for (int64_t i = 0; i < n; ++i) {
      const A x = static_cast<A>(a[i]), y = static_cast<A>(b[i]);
      A r = x + y;
      if (op == ReduceOp::Prod) r = x * y;
      if (op == ReduceOp::Min) r = y < x ? y : x;
      if (op == ReduceOp::Max) r = y > x ? y : x;
      a[i] = T(r);
    }
  }
  static void square(void* p, int64_t n) {
    T* a = static_cast<T*>(p);
    for (int64_t i = 0; i < n; ++i) {
      const A x = static_cast<A>(a[i]);
      a[i] = T(x * x);
    }
  }
};

/// BOOL (0 / 1 bytes): the logical operators.
struct Logic {
  static void fill(void* p, int64_t n, ReduceOp op) {
    std::memset(p, op == ReduceOp::LogicalAnd ? 1 : 0, static_cast<size_t>(n));
  }
  static void combine(void* acc, const void* v, int64_t n, ReduceOp op) {
    auto* a = static_cast<unsigned char*>(acc);
    const auto* b = static_cast<const unsigned char*>(v);
    for (int64_t i = 0; i < n; ++i) a[i] = op == ReduceOp::LogicalAnd ? (a[i] && b[i]) : (a[i] || b[i]);
  }
  static void square(void*, int64_t) {}
};

/// Calls f(Math<...>{}) for the element type `t` (BOOL: Logic). The ops' setup admits only the
/// types this combines (ops/collectives.cpp).
template <typename F>
void withMath(DataType t, F&& f) {
  visitElementType<ElementTypes::NumericAndBool>(
      t,
      [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, bool>)
          f(Logic{});
        else if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)
          f(Math<T, float>{});
        else
          f(Math<T>{});
      },
      "{} tensors cannot be combined across replicas");
}

/// This process's replicas' sums of the gradients, in place in replica 0's outputs (replica
/// order: the same sums on every run and in every process).
std::vector<distributed::Buffer> sumLocally(const Op& op, const std::vector<Executable*>& replicas) {
  std::vector<distributed::Buffer> sums;
  for (int i = 0; i < op.numOutputs(); ++i) {
    const Tensor* t = op.output(i);
    const DataType type = t->info.dataType();
    const int64_t n = t->info.nelms();
    void* sum = replicas[0]->mutableTensorData(t->id);
    for (size_t r = 1; r < replicas.size(); ++r) {
      if (!addElements(sum, replicas[r]->tensorData(t->id), type, n))
        throw error("{}: '{}' ({}) cannot be summed across replicas", op.describe(), op.input(i)->id,
                    t->info.toString());
    }
    sums.push_back({sum, type, n});
  }
  return sums;
}

/// The sums scaled and copied from replica 0 to the others.
void shareSums(const Op& op, const std::vector<distributed::Buffer>& sums, const std::vector<Executable*>& replicas,
               double scale) {
  for (int i = 0; i < op.numOutputs(); ++i) {
    const distributed::Buffer& b = sums[static_cast<size_t>(i)];
    if (scale != 1.0) scaleElements(b.data, b.type, b.n, scale);
    const size_t bytes = static_cast<size_t>(op.output(i)->info.nbytes());
    for (size_t r = 1; r < replicas.size() && bytes; ++r)
      std::memcpy(replicas[r]->mutableTensorData(op.output(i)->id), b.data, bytes);
  }
}

/// The common case of replicated training: every weight's gradient summed over every replica.
void sumGradients(const Op& op, const std::vector<Executable*>& replicas, distributed::ProcessGroup* processes,
                  double scale) {
  const std::vector<distributed::Buffer> sums = sumLocally(op, replicas);
  if (processes) processes->allReduce(sums, ReduceOp::Sum);
  shareSums(op, sums, replicas, scale);
}

/// Input i -> output i of `op` (one pair of a collective) between the replicas' groups.
void exchangeOne(const Op& op, int i, const Collective& c, const std::vector<Executable*>& replicas,
                 int64_t firstReplica, distributed::ProcessGroup* processes) {
  const TensorId& inId = op.input(i)->id;
  const TensorId& outId = op.output(i)->id;
  const DataType t = op.input(i)->info.dataType();
  const int64_t n = op.input(i)->info.nelms();
  const int64_t es = dataTypeSize(t);
  const ReplicaGrouping& g = c.grouping;
  const int64_t k = g.getGroupSize(), groups = g.getNumGroups();
  const int64_t shard = (n + k - 1) / k;
  auto groupOf = [&](size_t r) { return g.getGroupAt(static_cast<unsigned>(firstReplica + static_cast<int64_t>(r))); };
  auto indexOf = [&](size_t r) {
    return g.getIndexInGroupAt(static_cast<unsigned>(firstReplica + static_cast<int64_t>(r)));
  };

  if (c.kind == Collective::Kind::ReduceScatter && c.op == CollectiveOperator::Local) {
    // Each replica keeps its own shard of its own input (zeros past the end).
    std::vector<char> staged(static_cast<size_t>(shard * es));
    for (size_t r = 0; r < replicas.size(); ++r) {
      const int64_t from = indexOf(r) * shard, take = std::max<int64_t>(0, std::min(shard, n - from));
      std::fill(staged.begin(), staged.end(), 0);
      if (take)
        std::memcpy(staged.data(), static_cast<const char*>(replicas[r]->tensorData(inId)) + from * es,
                    static_cast<size_t>(take * es));
      std::memcpy(replicas[r]->mutableTensorData(outId), staged.data(), staged.size());
    }
    return;
  }

  // One row per group: the group's result (reductions: over [k * shard] elements for a
  // reduce-scatter, whose input is padded with zeros; all-gather: [k * n], the members' inputs
  // by position).
  const int64_t row =
      c.kind == Collective::Kind::AllReduce ? n : k * (c.kind == Collective::Kind::AllGather ? n : shard);
  std::vector<char> result(static_cast<size_t>(groups * row * es));
  if (c.kind == Collective::Kind::AllGather) {
    for (size_t r = 0; r < replicas.size(); ++r)
      std::memcpy(result.data() + (groupOf(r) * row + indexOf(r) * n) * es, replicas[r]->tensorData(inId),
                  static_cast<size_t>(n * es));
    if (processes) processes->allReduce({{result.data(), t, groups * row}}, ReduceOp::BitOr);
  } else {
    const ReduceOp rop = reduceOpOf(c.op);
    withMath(t, [&](auto m) {
      m.fill(result.data(), groups * row, rop);
      std::vector<char> staged(static_cast<size_t>(row * es), 0);
      // In replica order: the same results on every run and in every process.
      for (size_t r = 0; r < replicas.size(); ++r) {
        std::memcpy(staged.data(), replicas[r]->tensorData(inId), static_cast<size_t>(n * es));
        if (c.op == CollectiveOperator::SquareAdd) m.square(staged.data(), n);
        m.combine(result.data() + groupOf(r) * row * es, staged.data(), row, rop);
      }
    });
    if (processes) processes->allReduce({{result.data(), t, groups * row}}, rop);
    double scale = c.scale;
    if (c.op == CollectiveOperator::Mean) scale /= static_cast<double>(k);
    if (scale != 1.0 && !scaleElements(result.data(), t, groups * row, scale))
      throw error("{}: {} tensors cannot be scaled (CollectiveOperator Mean takes floating-point tensors)",
                  op.describe(), dataTypeToString(t));
  }
  for (size_t r = 0; r < replicas.size(); ++r) {
    const char* from = result.data() + groupOf(r) * row * es;
    int64_t count = row;
    if (c.kind == Collective::Kind::ReduceScatter) {
      from += indexOf(r) * shard * es;
      count = shard;
    } else if (c.kind == Collective::Kind::AllReduce) {
      count = n;
    }
    std::memcpy(replicas[r]->mutableTensorData(outId), from, static_cast<size_t>(count * es));
  }
}

}  // namespace

void exchangeAcrossReplicas(const Op& op, const std::vector<Executable*>& replicas, int64_t firstReplica,
                            distributed::ProcessGroup* processes) {
  if (replicas.empty()) throw internal_error("an exchange between no replicas");
  const Collective c = ops::collectiveOf(op);
  if (op.kind() == OpKind::GradAllReduce && c.grouping.getNumGroups() == 1)
    return sumGradients(op, replicas, processes, c.scale);
  for (int i = 0; i < op.numOutputs(); ++i) exchangeOne(op, i, c, replicas, firstReplica, processes);
}

bool startExchange(const Op& op, const std::vector<Executable*>& replicas, distributed::ProcessGroup& processes,
                   PendingExchange& pending) {
  if (op.kind() != OpKind::GradAllReduce || replicas.empty()) return false;
  const Collective c = ops::collectiveOf(op);
  if (c.grouping.getNumGroups() != 1) return false;
  pending.op = &op;
  pending.scale = c.scale;
  pending.sums = sumLocally(op, replicas);
  pending.ticket = processes.startAllReduce(pending.sums, ReduceOp::Sum);
  return true;
}

void completeExchange(const PendingExchange& pending, const std::vector<Executable*>& replicas,
                      distributed::ProcessGroup& processes) {
  processes.finish(pending.ticket);
  shareSums(*pending.op, pending.sums, replicas, pending.scale);
}

}  // namespace popart
