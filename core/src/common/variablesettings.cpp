// ReplicaGrouping, CommGroup and VariableSettings (popart/variablesettings.hpp): the arithmetic of
// replica groups, written once; the session and the IR ask it which group a replica is in and
// what shape a grouped weight has on the host.
#include "popart/variablesettings.hpp"

#include <sstream>

#include "popart/error.hpp"
#include "popart/reflection.hpp"

namespace popart {

// ------------------------------------------------------------------------------ ReplicaGrouping

ReplicaGrouping::ReplicaGrouping(unsigned numReplicas) : ReplicaGrouping(numReplicas, 1, numReplicas) {}

ReplicaGrouping::ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize)
    : numReplicas_(numReplicas), stride_(stride), groupSize_(groupSize) {
  if (numReplicas < 1 || stride < 1 || groupSize < 1)
    throw error("ReplicaGrouping: numReplicas ({}), stride ({}) and groupSize ({}) must all be at least 1", numReplicas,
                stride, groupSize);
  if (numReplicas % (uint64_t{stride} * groupSize) != 0)
    throw error(
        "ReplicaGrouping: numReplicas ({}) must be a multiple of stride ({}) * groupSize ({}) for the groups to "
        "cover the replicas",
        numReplicas, stride, groupSize);
}

unsigned ReplicaGrouping::getGroupAt(unsigned replica) const {
  if (replica >= numReplicas_)
    throw error("ReplicaGrouping: replica {} is out of range for {} replicas", replica, numReplicas_);
  return replica % stride_ + replica / (stride_ * groupSize_) * stride_;
}

unsigned ReplicaGrouping::getIndexInGroupAt(unsigned replica) const {
  if (replica >= numReplicas_)
    throw error("ReplicaGrouping: replica {} is out of range for {} replicas", replica, numReplicas_);
  return replica % (stride_ * groupSize_) / stride_;
}

unsigned ReplicaGrouping::getReplicaAt(unsigned group, unsigned index) const {
  if (group >= getNumGroups())
    throw error("ReplicaGrouping: group {} is out of range for {} groups", group, getNumGroups());
  if (index >= groupSize_) throw error("ReplicaGrouping: index {} is out of range for groups of {}", index, groupSize_);
  return group % stride_ + group / stride_ * stride_ * groupSize_ + index * stride_;
}

std::vector<unsigned> ReplicaGrouping::getReplicasAt(unsigned group) const {
  std::vector<unsigned> r;
  for (unsigned i = 0; i < groupSize_; ++i) r.push_back(getReplicaAt(group, i));
  return r;
}

ReplicaGrouping ReplicaGrouping::getTranspose() const {
  // One replica of each group, at equal positions: groups whose members are `stride_` groups'
  // positions apart. Consecutive <-> orthogonal when stride_ is 1 or the number of groups.
  if (stride_ == 1) return ReplicaGrouping(numReplicas_, groupSize_, numReplicas_ / groupSize_);
  if (stride_ * groupSize_ == numReplicas_) return ReplicaGrouping(numReplicas_, 1, stride_);
  throw error("ReplicaGrouping::getTranspose: {} has no transpose that is a ReplicaGrouping", str());
}

std::string ReplicaGrouping::str() const {
  return format("ReplicaGrouping(numReplicas={}, stride={}, groupSize={})", numReplicas_, stride_, groupSize_);
}

// ------------------------------------------------------------------------------------ CommGroup

const std::string& commGroupTypeName(CommGroupType t) {
  return enumToString(t);
}

std::string toString(const CommGroup& g) {
  return format("CommGroup(type={}, replicaGroupSize={})", commGroupTypeName(g.type), g.replicaGroupSize);
}

CommGroup::CommGroup(const ReplicaGrouping& grouping) {
  const unsigned n = grouping.getNumReplicas();
  if (grouping.getGroupSize() == n) {
    type = CommGroupType::All;
  } else if (grouping.getGroupSize() == 1) {
    type = CommGroupType::None;
  } else if (grouping.getStride() == 1) {
    type = CommGroupType::Consecutive;
    replicaGroupSize = grouping.getGroupSize();
  } else if (grouping.getStride() * grouping.getGroupSize() == n) {
    type = CommGroupType::Orthogonal;
    replicaGroupSize = grouping.getGroupSize();
  } else {
    throw error("{} cannot be expressed as a CommGroup (stride neither 1 nor the number of groups)", grouping.str());
  }
}

ReplicaGrouping CommGroup::toReplicaGrouping(unsigned numReplicas) const {
  if (numReplicas < 1) throw error("{}: the number of replicas must be at least 1", toString(*this));
  const unsigned k = replicaGroupSize;
  switch (type) {
    case CommGroupType::All:
      return ReplicaGrouping(numReplicas);
    case CommGroupType::None:
      return ReplicaGrouping(numReplicas, 1, 1);
    case CommGroupType::Consecutive:
    case CommGroupType::Orthogonal:
      if (k < 1)
        throw error("Attempting to use 0 as a CommGroupSize, groups of type {} must have legal size.",
                    commGroupTypeName(type));
      if (numReplicas % k != 0)
        throw error("{}: the replication factor {} is not a multiple of the replica group size {}", toString(*this),
                    numReplicas, k);
      return type == CommGroupType::Consecutive ? ReplicaGrouping(numReplicas, 1, k)
                                                : ReplicaGrouping(numReplicas, numReplicas / k, k);
    default:
      throw error("Bad CommGroupType {} in CommGroup", static_cast<int>(type));
  }
}

// ------------------------------------------------------------------------------ VariableSettings

const std::string& variableRetrievalModeName(VariableRetrievalMode m) {
  return enumToString(m);
}

VariableSettings::VariableSettings(CommGroup sharedVariableDomain) : commGroup_(sharedVariableDomain) {
  verify();
}

VariableSettings::VariableSettings(VariableRetrievalMode retrievalMode) : retrievalMode_(retrievalMode) {
  verify();
}

VariableSettings::VariableSettings(CommGroup sharedVariableDomain, VariableRetrievalMode retrievalMode)
    : commGroup_(sharedVariableDomain), retrievalMode_(retrievalMode) {
  verify();
}

VariableSettings::VariableSettings(const ReplicaGrouping& grouping, VariableRetrievalMode retrievalMode)
    : hasGrouping_(true), grouping_(grouping), retrievalMode_(retrievalMode) {
  verify();
}

void VariableSettings::verify() const {
  std::vector<std::string> problems;
  if (!hasGrouping_) {
    const int t = static_cast<int>(commGroup_.type);
    if (t < 0 || t >= static_cast<int>(CommGroupType::N)) {
      problems.push_back(format("bad CommGroupType {}", t));
    } else if ((commGroup_.type == CommGroupType::Consecutive || commGroup_.type == CommGroupType::Orthogonal) &&
               commGroup_.replicaGroupSize < 1) {
      problems.push_back(format("bad replicaGroupSize ({}) for domain type {}", commGroup_.replicaGroupSize,
                                commGroupTypeName(commGroup_.type)));
    }
  }
  const int m = static_cast<int>(retrievalMode_);
  if (m < 0 || m >= static_cast<int>(VariableRetrievalMode::N))
    problems.push_back(format("bad VariableRetrievalMode {}", m));
  if (problems.empty()) return;
  std::string all;
  for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
  throw error("VariableSettings had {} errors! ({})", problems.size(), all);
}

CommGroup VariableSettings::getSharedVariableDomain() const {
  return hasGrouping_ ? CommGroup(grouping_) : commGroup_;
}

ReplicaGrouping VariableSettings::getReplicaGrouping(unsigned numReplicas) const {
  if (!hasGrouping_) return commGroup_.toReplicaGrouping(numReplicas);
  if (grouping_.getNumReplicas() != numReplicas)
    throw error("VariableSettings with {} are used with {} replicas", grouping_.str(), numReplicas);
  return grouping_;
}

unsigned VariableSettings::numReplicasReturningVariable(unsigned replicaCount) const {
  const ReplicaGrouping g = getReplicaGrouping(replicaCount);
  return retrievalMode_ == VariableRetrievalMode::AllReplicas ? g.getNumReplicas() : g.getNumGroups();
}

unsigned VariableSettings::getGroupCount(unsigned replicaCount) const {
  return getReplicaGrouping(replicaCount).getNumGroups();
}

unsigned VariableSettings::getStride(unsigned replicaCount) const {
  return getReplicaGrouping(replicaCount).getStride();
}

unsigned VariableSettings::getRealGroupSize(unsigned replicaCount) const {
  return getReplicaGrouping(replicaCount).getGroupSize();
}

unsigned VariableSettings::getGroupRepresentative(unsigned group, unsigned replicaCount) const {
  if (hasGrouping_) return grouping_.getReplicaAt(group);
  // PopART's rule, which needs no replica count for a CommGroup.
  switch (commGroup_.type) {
    case CommGroupType::All:
      return 0;
    case CommGroupType::Consecutive:
      return commGroup_.replicaGroupSize * group;
    default:
      (void)replicaCount;
      return group;
  }
}

Shape VariableSettings::shapeOnReplica(const Shape& fullShape, unsigned replicaCount, const TensorId& name) const {
  const unsigned groups = getGroupCount(replicaCount);
  if (groups == 1) return fullShape;
  if (fullShape.empty())
    throw error(
        "Tensor '{}' should have at least one dimension when used with `popart::VariableSettings` with more than 1 "
        "replica groups.",
        name);
  if (fullShape[0] != static_cast<int64_t>(groups))
    throw error(
        "Return mismatch with possibly appended outer dimension ({}) of Tensor: \"{}\". should match numGroups: {}",
        fullShape[0], name, groups);
  return Shape(fullShape.begin() + 1, fullShape.end());
}

Shape VariableSettings::shapeOnHost(const Shape& replicaShape, unsigned replicaCount) const {
  const unsigned groups = getGroupCount(replicaCount);
  if (groups == 1) return replicaShape;
  Shape s{static_cast<int64_t>(groups)};
  s.insert(s.end(), replicaShape.begin(), replicaShape.end());
  return s;
}

std::vector<std::vector<int64_t>> VariableSettings::groups(unsigned replicaCount) const {
  const ReplicaGrouping g = getReplicaGrouping(replicaCount);
  std::vector<std::vector<int64_t>> out;
  for (unsigned i = 0; i < g.getNumGroups(); ++i) {
    std::vector<int64_t> members;
    for (unsigned r : g.getReplicasAt(i)) members.push_back(r);
    out.push_back(std::move(members));
  }
  return out;
}

bool VariableSettings::operator==(const VariableSettings& o) const {
  if (hasGrouping_ != o.hasGrouping_ || retrievalMode_ != o.retrievalMode_) return false;
  return hasGrouping_ ? grouping_ == o.grouping_ : commGroup_ == o.commGroup_;
}

std::string VariableSettings::str() const {
  return format("VariableSettings({}, {})", hasGrouping_ ? grouping_.str() : toString(commGroup_),
                variableRetrievalModeName(retrievalMode_));
}

std::string VariableSettings::serialize() const {
  const std::string mode = "mode=" + variableRetrievalModeName(retrievalMode_);
  if (hasGrouping_)
    return format("numReplicas={};stride={};groupSize={};{}", grouping_.getNumReplicas(), grouping_.getStride(),
                  grouping_.getGroupSize(), mode);
  return format("type={};size={};{}", commGroupTypeName(commGroup_.type), commGroup_.replicaGroupSize, mode);
}

VariableSettings VariableSettings::deserialize(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream is(text);
  std::string item;
  while (std::getline(is, item, ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw error("Invalid variable settings '{}': '{}' is not key=value", text, item);
    kv[item.substr(0, eq)] = item.substr(eq + 1);
  }
  auto num = [&](const char* k) -> unsigned {
    auto it = kv.find(k);
    if (it == kv.end()) throw error("Invalid variable settings '{}': no '{}'", text, k);
    try {
      const long v = std::stol(it->second);
      if (v < 0) throw std::out_of_range("negative");
      return static_cast<unsigned>(v);
    } catch (const std::exception&) {
      throw error("Invalid variable settings '{}': '{}' is not a count", text, it->second);
    }
  };
  if (!kv.count("mode")) throw error("Invalid variable settings '{}': no 'mode'", text);
  const auto mode = enumFromString<VariableRetrievalMode>(kv.at("mode"));
  if (kv.count("type")) {
    const auto type = enumFromString<CommGroupType>(kv.at("type"));
    return VariableSettings(CommGroup(type, num("size")), mode);
  }
  return VariableSettings(ReplicaGrouping(num("numReplicas"), num("stride"), num("groupSize")), mode);
}

}  // namespace popart
