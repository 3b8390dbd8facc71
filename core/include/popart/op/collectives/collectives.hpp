// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/collectives/collectives.hpp
/// PopART's `CollectiveOperator`: how `aiGraphcore.replicatedallreduce` and
/// `replicatedreducescatter` combine the replicas' values (their `collectiveOperator` argument, the
/// node attribute `__collectiveOperator`).

namespace popart {

/// Add: the sum over the replica group; Mean: the sum divided by the group's size; Mul, Min, Max:
/// the product, least, greatest value; LogicalAnd, LogicalOr: of BOOL tensors; SquareAdd: the sum
/// of the squares; Local: no exchange (each replica keeps its own value, or its own shard).
enum class CollectiveOperator { Add = 0, Mean, Mul, Min, Max, LogicalAnd, LogicalOr, SquareAdd, Local, N };

}  // namespace popart
