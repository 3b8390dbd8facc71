// Builder (aiOnnxOpsetN from the generated ONNX table, aiGraphcore from the core's table) and
// GraphTransformer: ONNX models built and rewritten by the core.
import { ONNX_OPS, FIRST_OPSET, LAST_OPSET } from './ops.gen.mjs';
import { asNDArray, attrType, describe, idList } from './values.mjs';
import { saveExternally, writeFileAtomic } from './files.mjs';

/// A getter's ids: undefined (the current scope's), else the node's outputs as an array.
const idsOrNone = (ids) => (ids === undefined ? undefined : idList(ids));

export function makeBuilder({ M, Handle, versionInfo, readModel, BuilderHandle, GraphTransformerHandle, TensorInfo, InputSettings,
                              VariableSettings, CommGroup, enums }) {
  const recomputeTypes = M.enums().RecomputeType;
  function pickSchema(name, version) {
    const versions = ONNX_OPS[name];
    if (!versions) return null;
    let best = null;
    for (const v of versions) if (v[0] <= version) best = v;
    if (!best || best[2]) return null;  // not in this opset, or deprecated there
    return best;
  }

  /// `builder.aiOnnxOpsetN`: one method per op with the C++ signature: (args, [num_outputs],
  /// required attributes, optional attributes, debugContext); ops without inputs (Constant,
  /// RandomUniform, RandomNormal) take no args.
  function makeOpset(builder, version) {
    const o = { getOpsetVersion: () => version };
    for (const name of Object.keys(ONNX_OPS)) {
      const s = pickSchema(name, version);
      if (!s) continue;
      const [, opType, , variadicOut, nOut, minIn, maxIn, attrs] = s;
      o[name] = (...params) => {
        let i = 0;
        const args = maxIn === 0 ? [] : (params[i++] ?? []);  // no `args` for ops without inputs (PopART's)
        const numOutputs = variadicOut ? params[i++] : nOut;
        const list = [];
        for (const [an, at, req, dflt] of attrs) {
          let v = params[i++];
          if (opType === 'Constant' && an === 'value') v = asNDArray(v, undefined, undefined, 'constant value');
          if (v === undefined || v === null) {
            if (req) throw new Error(`${opType}: missing required attribute '${an}'`);
            if (dflt === null || at === 'ints' || at === 'floats' || at === 'strings') continue;
            v = dflt;
          }
          if ((at === 'ints' || at === 'floats' || at === 'strings') && !req && v.length === 0) continue;
          if (at === 'g') v = v._raw;
          list.push([an, at, v]);
        }
        const name_ = params[i] === undefined ? '' : String(params[i]);
        const outs = builder.handle.op('ai.onnx', version, opType, Array.from(args), numOutputs, list, name_, minIn,
                                       maxIn);
        return nOut > 1 || variadicOut ? outs : outs[0];
      };
    }
    return o;
  }

  /// `builder.aiGraphcore`: one method per row of the core's table (graphcoreOps), taking
  /// (args, ...the attributes in the table's order, debugContext), as the C++ methods do
  /// (no args for inputsForm 'none'; one id or a list for 'arg'; a list of id lists for
  /// 'groups'). Returns the output id, the
  /// list of ids (returnsList) or undefined (no outputs).
  const graphcoreOps = M.graphcoreOps();
  function makeGraphcore(builder) {
    const gc = { getOpsetVersion: () => 1, ops: graphcoreOps };
    for (const op of graphcoreOps) {
      gc[op.method] = (...all) => {
        const args = op.inputsForm === 'none' ? [] : all.shift();
        const params = all;
        const p = {};
        op.attrs.forEach((a, i) => {
          if (params[i] === undefined || params[i] === null) return;
          if (a.type === 'graph' && !(params[i] instanceof Builder)) {
            throw new Error(`aiGraphcore.${op.method} ${a.name} must be a Builder (a subgraph)`);
          }
          // A CommGroup where the table has PopART's [CommGroupType, replicaGroupSize] pair.
          p[a.name] = a.type === 'graph' ? params[i]._raw
            : params[i] instanceof CommGroup
              ? [Object.keys(enums.CommGroupType).indexOf(params[i].type), params[i].replicaGroupSize] : params[i];
        });
        const dc = params[op.attrs.length];
        if (dc !== undefined) p.debugContext = String(dc);
        // 'groups' (multiconv): one list of ids per group, passed as an array of arrays.
        const ids = op.inputsForm === 'groups' ? Array.from(args ?? [], (g) => (typeof g === 'string' ? g : Array.from(g)))
          : typeof args === 'string' ? [args] : Array.from(args ?? []);
        const outs = builder.handle.graphcore(op.method, ids, p);
        return op.returnsList ? outs : outs[0];
      };
    }
    return gc;
  }

  /// PopART's GraphTransformer: ONNX-level rewrites of a model given as bytes or (Node) a path;
  /// in Node its external data is read on load (files.mjs withExternalData). Each method rewrites
  /// the model in place; getModelProto() returns it.
  class GraphTransformer extends Handle {
    constructor(modelProtoOrFilename) {
      super(GraphTransformerHandle.create(readModel(modelProtoOrFilename, 'GraphTransformer', false)));
    }
    getModelProto() { return this.handle.getModelProto(); }
    removeUnusedInputs() { this.handle.transform('removeUnusedInputs', false); }
    prepareNodesForTraining() { this.handle.transform('prepareNodesForTraining', false); }
    convertFloatsToHalfs() { this.handle.transform('convertFloatsToHalfs', false); }
    convertUINT8ToINT32() { this.handle.transform('convertUINT8ToINT32', false); }
    convertUINT16ToINT32() { this.handle.transform('convertUINT16ToINT32', false); }
    convertINT8ToINT32() { this.handle.transform('convertINT8ToINT32', false); }
    convertINT16ToINT32() { this.handle.transform('convertINT16ToINT32', false); }
    convertINT64ToINT32(clip = false) { this.handle.transform('convertINT64ToINT32', !!clip); }
    convertDoublesToFloats() { this.handle.transform('convertDoublesToFloats', false); }
    convertDoublesToHalfs() { this.handle.transform('convertDoublesToHalfs', false); }
    convertBFloats16ToFloat32() { this.handle.transform('convertBFloats16ToFloat32', false); }
    convertInitializersToConstants(ids) { this.handle.convertInitializersToConstants(idList(ids)); }
    convertAllFixedPointInitializersToConstants() {
      this.handle.transform('convertAllFixedPointInitializersToConstants', false);
    }
    saveInitializersExternally(ids, fileName) { saveExternally(this.handle, ids, fileName); }
    saveInitializersExternallyToBytes(ids, location) {
      return this.handle.saveInitializersExternallyToBytes(idList(ids), String(location));
    }
    /// The files the model's externally stored tensors name, and their data put inline from
    /// {location: Uint8Array} (what a browser does with files the user gave it; Node reads them
    /// itself when a model is loaded).
    externalDataLocations() { return this.handle.externalDataLocations(); }
    inlineExternalData(files) { this.handle.inlineExternalData(files); }
  }

  class Builder extends Handle {
    /// new Builder(), new Builder(modelBytesOrPath), or new Builder({modelProtoOrFilename, opsets}).
    constructor(arg = undefined, opsets = undefined, _handle = undefined) {
      let h = _handle;
      if (!h) {
        let model = arg;
        if (arg && typeof arg === 'object' && !ArrayBuffer.isView(arg) && !(arg instanceof ArrayBuffer)) {
          model = arg.modelProtoOrFilename;
          opsets = arg.opsets;
        }
        h = model === undefined || model === null ? BuilderHandle.create()
                                                  : BuilderHandle.createFromOnnxModel(readModel(model, 'Builder', false));
      }
      super(h);
      this._opsets = new Map();
      this._onnxDefault = opsets?.['ai.onnx'];
    }
    static create() { return new Builder(); }
    /// The core's table of the aiGraphcore methods.
    static graphcoreOps() { return graphcoreOps; }
    static createFromOnnxModel(model) { return new Builder(model); }
    /// A subgraph's builder, at this builder's opsets (a body is often built before the parent's
    /// aiOnnx is first used).
    createSubgraphBuilder() {
      return new Builder(undefined, { 'ai.onnx': this._onnxDefault }, this.handle.createSubgraphBuilder());
    }
    setGraphName(n) { this.handle.setGraphName(String(n)); }
    embedReplicationFactor(n) { this.handle.embedReplicationFactor(Number(n)); }

    aiOnnxOpset(version) {
      if (!Number.isInteger(version) || version < FIRST_OPSET || version > LAST_OPSET) {
        throw new Error(`Invalid opset '${version}' selected: ai.onnx opsets ${FIRST_OPSET}..${LAST_OPSET} are supported`);
      }
      this.handle.useOpset('ai.onnx', version);
      if (!this._opsets.has(version)) this._opsets.set(version, makeOpset(this, version));
      return this._opsets.get(version);
    }
    /// The ai.onnx ops at opsets['ai.onnx'], else at the core Builder's ai.onnx opset (the model's, or
    /// the one already used), else at the core's default: the rule of Python's Builder.aiOnnx.
    get aiOnnx() {
      return this.aiOnnxOpset(this._onnxDefault ?? (this.handle.getOnnxOpsetVersion() || versionInfo.defaultAiOnnxOpset));
    }
    get aiGraphcore() {
      if (!this._gc) {
        this.handle.useOpset('ai.graphcore', 1);
        this._gc = makeGraphcore(this);
      }
      return this._gc;
    }
    get aiGraphcoreOpset1() { return this.aiGraphcore; }

    /// addInputTensor(TensorInfo | dtype, [shape], [InputSettings], [debugContext])
    addInputTensor(info, shapeOrName = undefined, name = '', maybeName = '') {
      if (info instanceof TensorInfo) {
        if (shapeOrName instanceof InputSettings) {
          return this.handle.addInputTensorWithSettings(info.dtype, info.shape(), shapeOrName, String(name ?? ''));
        }
        return this.handle.addInputTensor(info.dtype, info.shape(), String(shapeOrName ?? ''));
      }
      if (shapeOrName === undefined) throw new Error(`addInputTensor('${info}', shape): the shape is missing ([] for a scalar)`);
      if (name instanceof InputSettings) {
        return this.handle.addInputTensorWithSettings(String(info), shapeOrName, name, String(maybeName ?? ''));
      }
      return this.handle.addInputTensor(String(info), shapeOrName, String(name ?? ''));
    }
    addUntypedInputTensor(name = '') { return this.handle.addUntypedInputTensor(String(name)); }
    addInputTensorFromParentGraph(id) { this.handle.addInputTensorFromParentGraph(String(id)); }
    /// addInitializedInputTensor(NDArray | {data, shape, dtype} | TypedArray, [debugContext])
    /// addInitializedInputTensor(array, VariableSettings, [debugContext]): PopART's grouped weight
    /// (one value per replica group in the outer dimension when there is more than one group).
    addInitializedInputTensor(array, name = '', maybeName = '') {
      const a = asNDArray(array, undefined, undefined, 'addInitializedInputTensor');
      if (name instanceof VariableSettings) {
        return this.handle.addInitializedInputTensorWithSettings(a, name, String(maybeName ?? ''));
      }
      return this.handle.addInitializedInputTensor(a, String(name));
    }
    addOutputTensor(id) { this.handle.addOutputTensor(String(id)); }
    /// poponnx's builder.add(a, b): the same as builder.aiOnnx.add([a, b]).
    add(...args) {
      const ins = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
      if (ins.length !== 2 || !ins.every((x) => typeof x === 'string')) {
        throw new Error(`builder.add(a, b) takes two tensor ids, got (${args.map(describe).join(', ')}); other ops ` +
                        `are builder.aiOnnx.<op>([inputs], ...), e.g. builder.aiOnnx.add([a, b])`);
      }
      return this.aiOnnx.add(ins);
    }
    customOp(opName, opVersion, domain, inputs, attributes = {}, numOutputs = 1, name = '') {
      const list = Object.entries(attributes).map(([k, v]) => [k, attrType(v), v]);
      return this.handle.op(domain, opVersion, opName, Array.from(inputs), numOutputs, list, name, 0, -1);
    }
    getModelProto(humanReadable = false) { return this.handle.getModelProto(!!humanReadable); }
    saveModelProto(path) { writeFileAtomic(path, this.getModelProto()); }
    /// PopART's: the initializers' data moved to the file `fileName` (ONNX external data; Node only).
    saveInitializersExternally(ids, fileName) { saveExternally(this.handle, ids, fileName); }
    /// The same without a file system: returns the data file's bytes (the model names `location`).
    saveInitializersExternallyToBytes(ids, location) {
      return this.handle.saveInitializersExternallyToBytes(idList(ids), String(location));
    }
    getTensorShape(id) { return this.handle.getTensorShape(String(id)); }
    getTensorDtypeString(id) { return this.handle.getTensorDtypeString(String(id)); }
    isInitializer(id) { return this.handle.isInitializer(String(id)); }
    getInputTensorIds() { return this.handle.getInputTensorIds(); }
    getOutputTensorIds() { return this.handle.getOutputTensorIds(); }
    getValueTensorIds() { return this.handle.getValueTensorIds(); }
    getTrainableTensorIds() { return this.handle.getTrainableTensorIds(); }
    pushNameScope(s) { this.handle.pushNameScope(String(s)); }
    popNameScope() { this.handle.popNameScope(); }
    getNameScope(s = '') { return this.handle.getNameScope(String(s)); }
    /// Runs `fn` inside the name scope (PopART's `with builder.nameScope(...)`).
    nameScope(s, fn) {
      this.pushNameScope(s);
      try { return fn(); } finally { this.popNameScope(); }
    }
    addNodeAttribute(name, value, outputIds) {
      this.handle.addNodeAttribute(String(name), attrType(value), value, Array.from(outputIds));
    }
    nodeHasAttribute(name, outputIds) { return this.handle.nodeHasAttribute(String(name), Array.from(outputIds)); }
    getAllNodeAttributeNames(outputIds) { return this.handle.getAllNodeAttributeNames(Array.from(outputIds)); }
    /// PopART's typed getters of a node attribute (the node making `outputIds`).
    getInt64NodeAttribute(name, outputIds) { return this._attr('Int64', name, outputIds); }
    getInt64VectorNodeAttribute(name, outputIds) { return this._attr('Int64Vector', name, outputIds); }
    getFloatNodeAttribute(name, outputIds) { return this._attr('Float', name, outputIds); }
    getFloatVectorNodeAttribute(name, outputIds) { return this._attr('FloatVector', name, outputIds); }
    getStringNodeAttribute(name, outputIds) { return this._attr('String', name, outputIds); }
    getStringVectorNodeAttribute(name, outputIds) { return this._attr('StringVector', name, outputIds); }
    _attr(kind, name, outputIds) { return this.handle.getNodeAttribute(kind, String(name), idList(outputIds)); }
    removeNodeAttribute(name, outputIds) { this.handle.removeNodeAttribute(String(name), idList(outputIds)); }
    /// Runs `fn` with the scoped attribute `name` set to `value` (every node made meanwhile gets
    /// it), then restores what was set before: PopART's `with builder.virtualGraph(n):`.
    _scoped(name, value, fn) {
      const prev = this.handle.getAttributeInt(name);
      this.handle.setAttributeInt(name, value);
      try {
        return fn();
      } finally {
        if (prev === null) this.handle.clearAttribute(name);
        else this.handle.setAttributeInt(name, prev);
      }
    }
    /// virtualGraph(ids, value) annotates nodes; virtualGraph(value, fn) runs fn in the scope
    /// (PopART's `with builder.virtualGraph(value):`). The same for pipelineStage,
    /// executionPhase, schedulePriority and recomputeOutput.
    virtualGraph(ids, value = 0) {
      if (typeof value === 'function') return this._scoped('__ipu_number', ids, value);
      this.handle.virtualGraph(idList(ids), value);
    }
    pipelineStage(ids, value) {
      if (typeof value === 'function') return this._scoped('__pipeline_stage', ids, value);
      this.handle.pipelineStage(idList(ids), value);
    }
    executionPhase(ids, value = 0) {
      if (typeof value === 'function') return this._scoped('__execution_phase', ids, value);
      this.handle.executionPhase(idList(ids), value);
    }
    schedulePriority(value, fn) { return this._scoped('__schedule_priority', value, fn); }
    /// PopART's `with builder.commGroup(type, size):` — the collectives made in fn act over that
    /// replica group (node attribute __collectiveCommGroup = [type, size]).
    commGroup(type, groupSize, fn) {
      const t = typeof type === 'number' ? type : Object.keys(enums.CommGroupType).indexOf(String(type));
      if (t < 0) throw new Error(`commGroup: unknown CommGroupType '${type}'`);
      return this._scoped('__collectiveCommGroup', [t, Number(groupSize)], fn);
    }
    /// value: a RecomputeType name ('Recompute', the default) or its number.
    recomputeOutputInBackwardPass(ids, value = 'Recompute') {
      for (const id of idList(ids)) this.handle.recomputeOutputInBackwardPass(String(id), value);
    }
    /// recomputeOutput(value, fn): fn's nodes get the RecomputeType (its number or name);
    /// recomputeOutput(ids, value): as recomputeOutputInBackwardPass.
    recomputeOutput(a, b) {
      if (typeof b === 'function') {
        const v = typeof a === 'string' ? recomputeTypes.indexOf(a) : a;  // the core's names, in value order
        if (v < 0) throw new Error(`Invalid RecomputeType '${a}'`);
        return this._scoped('__recompute_output_in_backward_pass', v, b);
      }
      this.recomputeOutputInBackwardPass(a, b);
    }
    /// An Identity of each tensor marked RecomputeType Checkpoint; their ids.
    checkpointOutput(ids) { return this.handle.checkpointOutput(idList(ids)); }
    /// The node's virtual graph / pipeline stage / execution phase (an id, or a Set or array of
    /// the node's outputs); without ids, the current scope's.
    getVirtualGraph(ids) { return this.handle.getVirtualGraph(idsOrNone(ids)); }
    getPipelineStage(ids) { return this.handle.getPipelineStage(idsOrNone(ids)); }
    getExecutionPhase(ids) { return this.handle.getExecutionPhase(idsOrNone(ids)); }
    /// Whether a scoped virtual graph / pipeline stage / execution phase is set.
    hasVirtualGraph() { return this.handle.hasVirtualGraph(); }
    hasPipelineStage() { return this.handle.hasPipelineStage(); }
    hasExecutionPhase() { return this.handle.hasExecutionPhase(); }
    setAvailableMemoryProportion(id, p) { this.handle.setAvailableMemoryProportion(String(id), p); }
    setPartialsType(id, t) { this.handle.setPartialsType(String(id), String(t)); }
    setEnableConvDithering(id, value) {
      this.handle.setEnableConvDithering(String(id), typeof value === 'boolean' ? Number(value) : value);
    }
    /// PopART's inplacing priorities ({ExpInplace: 10}); kept on the node, no effect on a run here.
    setInplacePreferences(id, prefs) { this.handle.setInplacePreferences(String(id), prefs); }
    excludePatterns(id, names) { this.handle.excludePatterns(String(id), Array.from(names)); }
  }
  for (let v = FIRST_OPSET; v <= LAST_OPSET; ++v) {
    Object.defineProperty(Builder.prototype, `aiOnnxOpset${v}`, { get() { return this.aiOnnxOpset(v); } });
  }

  return { Builder, GraphTransformer };
}
