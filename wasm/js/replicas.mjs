// PopART's replica groups and input settings (ReplicaGrouping, CommGroup, VariableSettings,
// InputSettings) and the Poplar debug-info calls: plain values; every rule is the core's.
import { writeFileAtomic } from './files.mjs';

export function makeReplicas({ M, enums }) {
  /// PopART's replica groups (popart/replicagrouping.hpp, commgroup.hpp, variablesettings.hpp):
  /// plain values here; every rule (group counts, members, shapes, errors) is the core's, asked
  /// through M.variableSettingsInfo.
  class ReplicaGrouping {
    constructor(numReplicas, stride = 1, groupSize = numReplicas) {
      Object.assign(this, { numReplicas, stride, groupSize });
      M.variableSettingsInfo({ replicaGrouping: this }, numReplicas);  // checks it
    }
    getNumReplicas() { return this.numReplicas; }
    getStride() { return this.stride; }
    getGroupSize() { return this.groupSize; }
    getNumGroups() { return this.numReplicas / this.groupSize; }
    getReplicasAt(group) { return M.variableSettingsInfo({ replicaGrouping: this }, this.numReplicas).groups[group]; }
  }
  class CommGroup {
    /// CommGroup(type = 'All', replicaGroupSize = 0); type: a CommGroupType name.
    constructor(type = 'All', replicaGroupSize = 0) {
      this.type = String(type);
      this.replicaGroupSize = replicaGroupSize;
    }
    toReplicaGrouping(numReplicas) {
      const i = M.variableSettingsInfo({ commGroup: this }, numReplicas);
      return new ReplicaGrouping(numReplicas, i.stride, i.realGroupSize);
    }
  }
  class VariableSettings {
    /// VariableSettings([CommGroup | ReplicaGrouping | VariableRetrievalMode], [retrievalMode]).
    constructor(domain = undefined, retrievalMode = undefined) {
      if (typeof domain === 'string') [domain, retrievalMode] = [undefined, domain];
      if (domain instanceof ReplicaGrouping) this.replicaGrouping = domain;
      else if (domain !== undefined) this.commGroup = domain instanceof CommGroup ? domain : new CommGroup(...domain);
      this.retrievalMode = retrievalMode ?? 'OnePerGroup';
      M.variableSettingsInfo(this, 0);  // checks them
    }
    _info(replicaCount) { return M.variableSettingsInfo(this, replicaCount); }
    getSharedVariableDomain() {
      if (this.commGroup) return this.commGroup;
      const i = this._info(0);
      return new CommGroup(i.commGroupType, i.replicaGroupSize);
    }
    getRetrievalMode() { return this.retrievalMode; }
    getGroupCount(replicaCount) { return this._info(replicaCount).groupCount; }
    numReplicasReturningVariable(replicaCount) { return this._info(replicaCount).numReplicasReturningVariable; }
    getStride(replicaCount) { return this._info(replicaCount).stride; }
    getRealGroupSize(replicaCount) { return this._info(replicaCount).realGroupSize; }
    groups(replicaCount) { return this._info(replicaCount).groups; }
    getReplicaGrouping(replicaCount) {
      const i = this._info(replicaCount);
      return new ReplicaGrouping(replicaCount, i.stride, i.realGroupSize);
    }
  }
  /// PopART's InputSettings: InputSettings(ReplicatedStreamMode) or InputSettings(tileSet,
  /// exchangeStrategy) (names of the enums). Only the replicated stream mode acts (docs/js-api.md).
  class InputSettings {
    constructor(a = undefined, exchangeStrategy = undefined) {
      if (a !== undefined && enums.ReplicatedStreamMode[a] !== undefined && exchangeStrategy === undefined) {
        this.replicatedStreamMode = a;
      } else {
        if (a !== undefined) this.tileSet = a;
        if (exchangeStrategy !== undefined) this.exchangeStrategy = exchangeStrategy;
      }
    }
    setReplicatedStreamMode(m) { this.replicatedStreamMode = m; }
    setTileSet(t) { this.tileSet = t; }
    setExchangeStrategy(e) { this.exchangeStrategy = e; }
  }

  /// initializePoplarDebugInfo(filename, format = 'json'): the module records; closePoplarDebugInfo()
  /// returns the JSON text and, in Node, writes it to the file given (browsers: pass '' and keep
  /// the text).
  let debugInfoFile = null;
  function initializePoplarDebugInfo(filename = '', format = 'json') {
    M.initializePoplarDebugInfo(String(format));
    debugInfoFile = filename ? String(filename) : null;
  }
  function closePoplarDebugInfo() {
    const text = M.closePoplarDebugInfo();
    const fn = debugInfoFile;
    debugInfoFile = null;
    if (fn) writeFileAtomic(fn, new TextEncoder().encode(text));
    return text;
  }

  return { ReplicaGrouping, CommGroup, VariableSettings, InputSettings, initializePoplarDebugInfo, closePoplarDebugInfo };
}
