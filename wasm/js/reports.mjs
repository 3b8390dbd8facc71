// The profile of a session: the summary report, the core's one report document (getReport(), the
// same document as Python's, its keys the core's table reportSchema()), the graph and execution
// reports as JSON or CBOR, the IR as JSON, the cycle counters.

export function makeReports({ M, Handle }) {
  /// The report methods of every session (SessionBase extends it).
  class SessionReports extends Handle {
    getSummaryReport(resetProfile = true) { return this.handle.getSummaryReport(!!resetProfile); }
    /// The IR as PopART's JSON text ({"maingraph": [ops], subgraph id: [ops]}); PopART's Python
    /// spells it _serializeIr(IrSerializationFormat.JSON).
    serializeIr(format = 'JSON') { return this.handle.serializeIr(String(format)); }
    _serializeIr(format = 'JSON') { return this.serializeIr(format); }
    /// The profile as one plain object, the core's report document: {compilation: the graph
    /// report, execution: the execution report} (the runs not reset); reportSchema() lists its keys.
    getReport() { return this.handle.getReport(); }
    /// JSON text, or with useCbor a Uint8Array of CBOR bytes (the same document).
    getGraphReport(useCbor = false) { return this.handle.getGraphReport(!!useCbor); }
    getExecutionReport(useCbor = false, resetProfile = true) {
      return this.handle.getExecutionReport(!!useCbor, !!resetProfile);
    }
    /// The IPU model's cycles of the last run ("" the device, "inner_ipu_<i>" IPU i).
    getCycleCount(id = '') { return this.handle.getCycleCount(String(id)); }
  }

  return {
    SessionReports,
    /// The memory categories of the reports (the keys of compilation.memory.byTile besides
    /// 'total', and of compilation.memory.byCategory), in the core's order.
    memoryCategories: Object.freeze(M.memoryCategories()),
    /// Every key of getReport()'s document, parents first: {path, type, optional, doc} (the core's
    /// report::schema()).
    reportSchema: () => M.reportSchema(),
  };
}
