// The JavaScript API of the popart runtime: PopART's names over the WebAssembly core.
// `createPopart()` instantiates the module and resolves to an object holding the API classes.
// Every C++ error arrives as a JS Error with the C++ message; the module keeps working after one.
// Embind handles never reach user code: each class owns its handle and frees it in dispose()
// (also `Symbol.dispose`, and a FinalizationRegistry as a safety net for forgotten objects).
import createPopartModule from './popart_wasm.mjs';
import { ONNX_OPS, FIRST_OPSET, LAST_OPSET } from './ops.gen.mjs';

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

const isNode = typeof process === 'object' && typeof process.versions === 'object' &&
               typeof process.versions.node === 'string';

function nodeModule(name) {
  if (!isNode) throw new Error(`file paths need Node.js; in a browser pass the bytes (Uint8Array) instead`);
  return process.getBuiltinModule(name);
}

/// The TypedArray class for each ONNX data type.
export const TYPED_ARRAYS = {
  FLOAT: Float32Array, DOUBLE: Float64Array, FLOAT16: Uint16Array, BFLOAT16: Uint16Array,
  INT8: Int8Array, UINT8: Uint8Array, BOOL: Uint8Array, INT16: Int16Array, UINT16: Uint16Array,
  INT32: Int32Array, UINT32: Uint32Array, INT64: BigInt64Array, UINT64: BigUint64Array, STRING: Array,
};

function product(shape) { return shape.reduce((a, b) => a * b, 1); }

/// How a value reads in an error message (as the bindings' describe()).
function describe(v) {
  if (typeof v === 'string') return `the string "${v}"`;
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' || v === null) return String(v);
  if (v === undefined || typeof v === 'boolean') return `${v} (${typeof v})`;
  if (Array.isArray(v)) return 'an Array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/// [min, max] of the integer data types (FLOAT16 / BFLOAT16 are raw 16-bit patterns).
const INT_RANGES = {
  INT8: [-128, 127], UINT8: [0, 255], BOOL: [0, 1], INT16: [-32768, 32767], UINT16: [0, 65535],
  FLOAT16: [0, 65535], BFLOAT16: [0, 65535], INT32: [-(2 ** 31), 2 ** 31 - 1], UINT32: [0, 2 ** 32 - 1],
  INT64: [-(2n ** 63n), 2n ** 63n - 1n], UINT64: [0n, 2n ** 64n - 1n],
};

/// Checks the elements of a plain Array for `dtype`: numbers (booleans and BigInts too), integers
/// within range for the integer types. A string, an object, undefined, a nested Array, a fraction
/// for an integer type... is an error naming `what` and the index: nothing becomes NaN or wraps.
function checkElements(data, dtype, what) {
  const range = INT_RANGES[dtype];
  for (let i = 0; i < data.length; ++i) {
    const v = data[i];
    const t = typeof v;
    if (t !== 'number' && t !== 'bigint' && t !== 'boolean') {
      const hint = Array.isArray(v) ? ' (nested Arrays are not flattened: pass a flat row-major Array, a ' +
                                      'TypedArray or an NDArray with a shape)' : '';
      throw new Error(`${what}[${i}] is ${describe(v)}, not a number${hint}`);
    }
    if (!range || t === 'boolean') continue;
    if (t === 'number' && !Number.isInteger(v)) {
      throw new Error(`${what}[${i}] is ${v}, not an integer, but the data type is ${dtype}` +
                      (dtype.includes('FLOAT') ? ' (given as raw 16-bit patterns)' : ''));
    }
    const big = typeof range[0] === 'bigint';
    const x = big ? BigInt(v) : Number(v);
    if (x < range[0] || x > range[1]) {
      throw new Error(`${what}[${i}] is ${describe(v)}, outside the range of ${dtype} (${range[0]} to ${range[1]})`);
    }
  }
}

/// Converts `data` (TypedArray, Array or number) to the TypedArray of `dtype`; TypedArrays of the
/// right class pass through without a copy. INT64/UINT64 accept numbers (converted with BigInt).
/// Plain Arrays are checked element by element (checkElements).
function toTyped(data, dtype, what) {
  const T = TYPED_ARRAYS[dtype];
  if (!T) throw new Error(`${what}: data type ${dtype} cannot be passed from JavaScript`);
  if (dtype === 'STRING') {
    if (!Array.isArray(data)) throw new Error(`${what}: STRING data must be an Array of strings`);
    return data.map(String);
  }
  if (data instanceof T) return data;
  if (typeof data === 'number' || typeof data === 'bigint' || typeof data === 'boolean') data = [data];
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new Error(`${what}: expected a TypedArray, an Array or an NDArray, got ${describe(data)}`);
  }
  if (Array.isArray(data)) checkElements(data, dtype, what);
  const big = T === BigInt64Array || T === BigUint64Array;
  return T.from(data, big ? (v) => BigInt(v) : (v) => Number(v));
}

/// A shape: an Array (or TypedArray) of non-negative integers; anything else is an error naming `what`.
function shapeArg(shape, what) {
  if (!Array.isArray(shape) && !ArrayBuffer.isView(shape)) {
    throw new Error(`${what} must be an Array of integers, got ${describe(shape)}`);
  }
  return Array.from(shape, (d, i) => {
    const n = typeof d === 'bigint' ? Number(d) : d;
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new Error(`${what}[${i}] must be a non-negative integer, got ${describe(d)}`);
    }
    return n;
  });
}

/// {data, shape, dtype}: a dense row-major array, the unit of data exchange.
export class NDArray {
  constructor(data, shape, dtype) {
    if (dtype === undefined) dtype = dtypeOf(data);
    if (shape === undefined) shape = data?.length === undefined ? [] : [data.length];  // a number: a scalar
    this.dtype = String(dtype).toUpperCase();
    this.shape = shapeArg(shape, 'NDArray shape');
    this.data = toTyped(data, this.dtype, 'NDArray');
    if (this.data.length !== product(this.shape)) {
      throw new Error(`NDArray: ${this.data.length} elements do not fill shape [${this.shape.join(' ')}] ` +
                      `(${product(this.shape)} elements)`);
    }
  }
  static zeros(shape, dtype = 'FLOAT') {
    const T = TYPED_ARRAYS[dtype];
    const n = product(shape);
    return new NDArray(dtype === 'STRING' ? new Array(n).fill('') : new T(n), shape, dtype);
  }
  get size() { return this.data.length; }
}

function dtypeOf(data) {
  if (data instanceof NDArray) return data.dtype;
  if (data instanceof Float32Array) return 'FLOAT';
  if (data instanceof Float64Array) return 'DOUBLE';
  if (data instanceof Int32Array) return 'INT32';
  if (data instanceof BigInt64Array) return 'INT64';
  if (data instanceof BigUint64Array) return 'UINT64';
  if (data instanceof Int8Array) return 'INT8';
  if (data instanceof Uint8Array) return 'UINT8';
  if (data instanceof Int16Array) return 'INT16';
  if (data instanceof Uint16Array) return 'UINT16';
  if (data instanceof Uint32Array) return 'UINT32';
  if (Array.isArray(data) && data.length && typeof data[0] === 'string') return 'STRING';
  return 'FLOAT';
}

function asNDArray(v, dtype, shape, what) {
  if (v instanceof NDArray) return v;
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !Array.isArray(v) && 'data' in v) {
    return new NDArray(v.data, v.shape, v.dtype ?? dtype);
  }
  const data = toTyped(v, dtype ?? dtypeOf(v), what);
  return new NDArray(data, shape ?? [data.length], dtype ?? dtypeOf(v));
}

function modelBytes(model, what) {
  if (typeof model === 'string') {
    const fs = nodeModule('fs');
    try {
      return new Uint8Array(fs.readFileSync(model));
    } catch (e) {
      throw new Error(`${what}: cannot read '${model}': ${e.message}`);
    }
  }
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (ArrayBuffer.isView(model)) return model;
  throw new Error(`${what}: expected ONNX model bytes (Uint8Array) or a file path`);
}

/// Writes `bytes` to `path` through a temporary file and a rename: a failure never leaves a
/// half-written file, and an existing file stays as it was.
function writeFileAtomic(path, bytes) {
  const fs = nodeModule('fs');
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, path);
  } catch (e) {
    try { fs.unlinkSync(tmp); } catch { /* nothing to clean */ }
    throw new Error(`cannot write '${path}': ${e.message}`);
  }
}

/// saveInitializersExternally (Builder, GraphTransformer) in Node: the parent directory checked
/// first, the core moves the initializers' data out of the model (location `fileName`, offsets,
/// lengths) and returns it, Node's fs writes it. A browser has no file system: use
/// saveInitializersExternallyToBytes(ids, location) and keep the bytes next to the model.
function saveExternally(handle, ids, fileName) {
  const fn = String(fileName);
  if (!isNode) {
    throw new Error('saveInitializersExternally writes a file, which needs Node; in a browser call ' +
                    'saveInitializersExternallyToBytes(ids, location) and keep the returned bytes');
  }
  const fs = nodeModule('fs');
  const dir = nodeModule('path').dirname(fn);
  let isDir = false;
  try { isDir = fs.statSync(dir).isDirectory(); } catch { /* missing */ }
  if (!isDir) {
    throw new Error(`Cannot save tensor data externally to the file '${fn}': its parent directory does not exist`);
  }
  writeFileAtomic(fn, handle.saveInitializersExternallyToBytes(idList(ids), fn));
}

/// The JS Error for a failure reported by the module's takeError(): the C++ message, and the
/// exception's own fields (an OutOfMemoryException's `summaryReport` and `profilePath`).
function errorFrom({ message, ...fields }) {
  return Object.assign(new Error(message), fields);
}

/// Writes one of the core's autoReport files (engine option autoReport.all) with Node's fs, the
/// directory created; returns null, or the failure's message for the core to throw. A browser
/// has no file system: nothing is written there, the reports are read through the API.
function writeReportFile(path, bytes) {
  if (!isNode) return null;
  try {
    nodeModule('fs').mkdirSync(nodeModule('path').dirname(path), { recursive: true });
  } catch (e) {
    return `cannot write '${path}': ${e.message}`;
  }
  try {
    writeFileAtomic(path, bytes);
    return null;
  } catch (e) {
    return e.message;
  }
}

/// Builds the API object over one instantiated module `raw`.
function makeApi(raw) {
  // Every C++ entry point reports a failure through takeError(); `checked` turns it into a JS
  // Error with the C++ message, right after the call.
  const check = () => {
    const e = raw.takeError();
    if (e !== null) throw errorFrom(e);
  };
  raw.setFileWriter(writeReportFile);
  check();
  // A WebAssembly trap (RuntimeError: a bug in the runtime, never bad input, which the core
  // reports as errors) can leave the module's memory inconsistent: every later call then fails
  // with this message instead of with unrelated faults.
  let trapped = null;
  const checked = (obj) => new Proxy(obj, {
    get(target, prop) {
      const v = target[prop];
      if (typeof v !== 'function' || prop === 'delete' || prop === 'isDeleted') {
        return typeof v === 'function' ? v.bind(target) : v;
      }
      return (...args) => {
        if (trapped) throw new Error(trapped);
        let r;
        try {
          r = v.apply(target, args);
        } catch (e) {
          if (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) {
            trapped = `the WebAssembly module stopped after an internal fault (${e.message}); this is a bug in ` +
                      'popart, please report it. Create a new module with createPopart() to continue.';
            throw new Error(trapped);
          }
          throw e;
        }
        check();
        return r;
      };
    },
  });
  const M = checked(raw);
  // The core's version and default opsets (popart/version.hpp, popart/names.hpp).
  const versionInfo = Object.freeze(M.versionInfo());
  // reservedGradientPrefix(), reservedRestoredPrefix(), ...: the core's list.
  const reservedPrefixFns = Object.fromEntries(
    Object.entries(M.reservedPrefixes()).map(([name, value]) => [name, () => value]));
  const BuilderHandle = checked(raw.BuilderHandle);
  const SessionHandle = checked(raw.SessionHandle);
  const GraphTransformerHandle = checked(raw.GraphTransformerHandle);

  const registry = typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((h) => { try { if (!h.isDeleted()) h.delete(); } catch { /* gone */ } })
      : null;

  class Handle {
    constructor(h) {
      this._raw = h;
      this._h = checked(h);
      if (registry) registry.register(this, h, this);
    }
    get handle() {
      if (!this._h) throw new Error(`${this.constructor.name} has been disposed`);
      return this._h;
    }
    dispose() {
      if (this._h) {
        if (registry) registry.unregister(this);
        this._raw.delete();
        this._h = null;
        this._raw = null;
      }
    }
    [disposeSymbol]() { this.dispose(); }
  }

  // ------------------------------------------------------------ value classes

  class TensorInfo {
    constructor(dtype, shape) {
      if (ArrayBuffer.isView(dtype) || dtype instanceof NDArray) {
        const a = asNDArray(dtype);
        dtype = a.dtype;
        shape = a.shape;
      }
      if (shape !== undefined && !Array.isArray(shape) && !ArrayBuffer.isView(shape)) {
        throw new Error(`TensorInfo shape must be an Array of integers, got ${describe(shape)}`);
      }
      const i = M.tensorInfo(String(dtype), Array.from(shape ?? []));
      this._dtype = i.dtype;
      this._shape = i.shape;
      this._nelms = i.nelms;
      this._nbytes = i.nbytes;
    }
    data_type() { return this._dtype; }
    data_type_lcase() { return this._dtype.toLowerCase(); }
    get dtype() { return this._dtype; }
    shape() { return this._shape.slice(); }
    rank() { return this._shape.length; }
    nelms() { return this._nelms; }
    nbytes() { return this._nbytes; }
    dim(i) { return this._shape[i]; }
    toString() { return `${this._dtype} [${this._shape.join(' ')}]`; }
  }

  function AnchorReturnType(art, period, tileSet) {
    if (!new.target) return new AnchorReturnType(art, period, tileSet);
    if (typeof art !== 'string') {
      throw new Error(`AnchorReturnType: expected 'All', 'Final', 'Sum' or 'EveryN', got ${describe(art)}`);
    }
    const spec = { art };
    if (period !== undefined) spec.period = period;
    this.art = M.checkAnchorReturnType(spec);  // the canonical name: 'All', 'Final', 'Sum', 'EveryN'
    if (period !== undefined) this.period = period;
  }
  AnchorReturnType.prototype.id = function id() { return this.art; };
  AnchorReturnType.prototype.rp = function rp() { return this.period ?? 1; };
  // poponnx's enum spelling, AnchorReturnType.ALL: the same as AnchorReturnType('ALL').
  AnchorReturnType.ALL = Object.freeze(new AnchorReturnType('ALL'));
  AnchorReturnType.FINAL = Object.freeze(new AnchorReturnType('FINAL'));
  AnchorReturnType.SUM = Object.freeze(new AnchorReturnType('SUM'));
  /// EveryN needs its return period: AnchorReturnType.EVERYN(n) = AnchorReturnType('EVERYN', n).
  AnchorReturnType.EVERYN = function EVERYN(period) { return new AnchorReturnType('EVERYN', period); };

  /// An anchor's return type given as an AnchorReturnType, a name ('All') or {art, period}.
  function artArg(a, what) {
    if (a instanceof AnchorReturnType) return a;
    if (typeof a === 'string') return new AnchorReturnType(a);
    if (a === AnchorReturnType.EVERYN) {
      throw new Error(`${what}: AnchorReturnType.EVERYN needs a return period: use AnchorReturnType.EVERYN(n) or ` +
                      `AnchorReturnType('EveryN', n)`);
    }
    if (a && typeof a === 'object' && typeof a.art === 'string') return new AnchorReturnType(a.art, a.period);
    throw new Error(`${what}: expected an AnchorReturnType (e.g. AnchorReturnType('All')), got ${describe(a)}`);
  }
  function anchorIds(ids, what) {
    for (const [i, id] of ids.entries()) {
      if (typeof id !== 'string') throw new Error(`${what}: anchors[${i}] is ${describe(id)}, not a tensor id`);
    }
    return ids;
  }

  class DataFlow {
    /// DataFlow(batchesPerStep, {id: AnchorReturnType}), the legacy
    /// DataFlow(batchesPerStep, [ids], AnchorReturnType('All')), or poponnx's
    /// DataFlow(batchesPerStep, batchSize, [ids], AnchorReturnType.ALL) (batchSize is not used: the
    /// batch size comes from the model's input shapes; the core logs it as deprecated).
    constructor(batchesPerStep = 0, ...rest) {
      const poponnx = typeof rest[0] === 'number' || typeof rest[0] === 'bigint';
      const [anchors = {}, art = undefined, extra = undefined] = poponnx ? rest.slice(1) : rest;
      if (extra !== undefined || rest.length > (poponnx ? 3 : 2)) {
        throw new Error('DataFlow: too many arguments; the forms are DataFlow(batchesPerStep, {id: AnchorReturnType}), ' +
                        'DataFlow(batchesPerStep, [ids], art) and DataFlow(batchesPerStep, batchSize, [ids], art)');
      }
      let spec;
      if (poponnx) {
        const what = "DataFlow(batchesPerStep, batchSize, anchors, art) (poponnx's form)";
        if (!Array.isArray(anchors)) throw new Error(`${what}: anchors must be an Array of tensor ids, got ${describe(anchors)}`);
        const a = artArg(art ?? 'All', what);
        spec = { batchesPerStep, batchSize: rest[0], anchorIds: anchorIds(anchors, what).slice(),
                 art: { art: a.art, period: a.period } };
        spec.anchors = Object.fromEntries(anchors.map((id) => [id, spec.art]));
      } else if (Array.isArray(anchors)) {
        const a = artArg(art ?? 'All', 'DataFlow(batchesPerStep, anchors, art)');
        spec = { batchesPerStep, anchors: {} };
        for (const id of anchorIds(anchors, 'DataFlow')) spec.anchors[id] = { art: a.art, period: a.period };
      } else if (anchors && typeof anchors === 'object' && !ArrayBuffer.isView(anchors)) {
        if (art !== undefined) {
          throw new Error('DataFlow(batchesPerStep, {id: AnchorReturnType}) takes no third argument; give each ' +
                          'anchor its return type in the object');
        }
        spec = { batchesPerStep, anchors: {} };
        for (const [id, a] of Object.entries(anchors)) {
          const r = artArg(a, `DataFlow anchor '${id}'`);
          spec.anchors[id] = { art: r.art, period: r.period };
        }
      } else {
        throw new Error(`DataFlow: anchors must be {id: AnchorReturnType} or an Array of tensor ids, got ${describe(anchors)}`);
      }
      M.checkDataFlow(spec);
      spec.batchesPerStep = Number(spec.batchesPerStep);  // integers (checked), possibly given as BigInts
      if (spec.batchSize !== undefined) spec.batchSize = Number(spec.batchSize);
      this._spec = spec;
    }
    batchesPerStep() { return this._spec.batchesPerStep; }
    /// The batchSize of poponnx's form; 0 for the other forms.
    batchSize() { return this._spec.batchSize ?? 0; }
    anchors() { return Object.keys(this._spec.anchors); }
    nAnchors() { return Object.keys(this._spec.anchors).length; }
    isAnchored(id) { return id in this._spec.anchors; }
    art(id) {
      const a = this._spec.anchors[id];
      if (!a) throw new Error(`Tensor ${id} is not anchored`);
      return new AnchorReturnType(a.art, a.period);
    }
  }

  class InputShapeInfo {
    constructor() { this._infos = {}; }
    add(id, info) {
      const i = info instanceof TensorInfo ? info : new TensorInfo(info.dtype, info.shape);
      this._infos[id] = i;
    }
    get(id) {
      if (!(id in this._infos)) throw new Error(`No input shape info for tensor '${id}'`);
      return this._infos[id];
    }
    has(id) { return id in this._infos; }
    _spec() {
      const s = {};
      for (const [id, i] of Object.entries(this._infos)) s[id] = { dtype: i.dtype, shape: i.shape() };
      return s;
    }
  }

  // The public enums from the core's table: PatternsLevel.Default === 'Default', and so on.
  const enums = Object.fromEntries(Object.entries(M.enums()).map(
    ([name, values]) => [name, Object.freeze(Object.fromEntries(values.map((v) => [v, v])))]));
  const { PatternsLevel } = enums;
  const popartEnumList = (name) => Object.keys(enums[name]).join(', ');

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

  const patternList = Object.freeze(M.patternList().map((p) => Object.freeze(p)));
  class Patterns {
    /// Patterns(PatternsLevel) or Patterns([names]).
    constructor(levelOrNames = PatternsLevel.Default) {
      this._spec = Array.isArray(levelOrNames) ? { names: levelOrNames.map(String) } : { level: String(levelOrNames) };
      this._spec.enable = {};
      M.checkPatterns(this._spec);
    }
    static create(names) { return new Patterns(names); }
    static getAllPatternNames() { return M.allPatternNames(); }
    /// Every pattern name: its default state ('Mandatory', 'On', 'Off'), whether this runtime
    /// rewrites the IR for it, and what it does (or why there is nothing to rewrite here).
    static list() { return patternList; }
    enablePattern(name, enabled) {
      const s = { ...this._spec, enable: { ...this._spec.enable, [name]: !!enabled } };
      M.checkPatterns(s);
      this._spec = s;
      return this;
    }
    /// The core's answer, for level-built and list-built Patterns alike.
    isPatternEnabled(name) { return M.patternEnabled(this._spec, String(name)); }
    set inplaceEnabled(v) { this._spec.inplace = !!v; }
    get inplaceEnabled() { return this.isPatternEnabled('InPlace'); }
  }

  /// Session options: PopART's field names with the core's defaults (map-valued options such as
  /// engineOptions start as empty objects, so `opts.engineOptions['k'] = 'v'` works); unknown
  /// names are an error when a session is created.
  const sessionOptionsDefaults = M.sessionOptionsDefaults();
  const sessionOptionsList = Object.freeze(M.sessionOptionsList());
  class SessionOptions {
    constructor(fields = {}) {
      Object.assign(this, structuredClone(sessionOptionsDefaults), fields);
    }
    /// Every field: {name (dotted for nested settings), type, enumName, default, doc}.
    static list() { return sessionOptionsList; }
  }
  function optionsSpec(o) {
    if (o === undefined || o === null) return undefined;
    const spec = { ...o };
    M.checkSessionOptions(spec);
    return spec;
  }

  class DeviceInfo {
    constructor(spec, info) {
      this._spec = spec;
      const { options, ...rest } = info;
      Object.assign(this, rest);
      this.type = spec.type;
    }
    toString() { return this.description; }
  }

  let deviceManager = null;
  class DeviceManagerClass {
    createCpuDevice() { return this._create({ type: 'cpu' }); }
    createIpuModelDevice(options = {}) { return this._create({ type: 'ipuModel', options }); }
    createOfflineIPUDevice(options = {}) { return this._create({ type: 'offlineIpu', options }); }
    createSimDevice(options = {}) { return this._create({ type: 'sim', options }); }
    /// The core's acquire* (this build sees no hardware IPUs: an error naming createCpuDevice()).
    acquireAvailableDevice(numIpus = 1) {
      const i = M.acquireDevice('available', numIpus);
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    acquireDeviceById(id) {
      const i = M.acquireDevice('byId', id);
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    enumerateDevices() { return M.enumerateDevices().map((d) => new DeviceInfo({ type: 'ipu' }, d)); }
    _create(spec) { return new DeviceInfo(spec, M.checkDevice(spec)); }
  }
  function DeviceManager() {
    if (!deviceManager) deviceManager = new DeviceManagerClass();
    return deviceManager;
  }

  // ------------------------------------------------------------ Builder

  function pickSchema(name, version) {
    const versions = ONNX_OPS[name];
    if (!versions) return null;
    let best = null;
    for (const v of versions) if (v[0] <= version) best = v;
    if (!best || best[2]) return null;  // not in this opset, or deprecated there
    return best;
  }

  /// `builder.aiOnnxOpsetN`: one method per op with the C++ signature: (args, [num_outputs],
  /// required attributes, optional attributes, debugContext).
  function makeOpset(builder, version) {
    const o = { getOpsetVersion: () => version };
    for (const name of Object.keys(ONNX_OPS)) {
      const s = pickSchema(name, version);
      if (!s) continue;
      const [, opType, , variadicOut, nOut, minIn, maxIn, attrs] = s;
      o[name] = (...params) => {
        let i = 0;
        const args = opType === 'Constant' ? [] : (params[i++] ?? []);
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
          p[a.name] = a.type === 'graph' ? params[i]._raw : params[i];
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

  /// PopART's GraphTransformer: ONNX-level rewrites of a model given as bytes (a path is read with
  /// Node's fs, so externally stored data of such a model resolves against the working
  /// directory; a browser has no paths). Each method rewrites the model in place; getModelProto()
  /// returns it.
  class GraphTransformer extends Handle {
    constructor(modelProtoOrFilename) {
      super(GraphTransformerHandle.create(modelBytes(modelProtoOrFilename, 'GraphTransformer')));
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
                                                  : BuilderHandle.createFromOnnxModel(modelBytes(model, 'Builder'));
      }
      super(h);
      this._fromModel = !_handle && arg !== undefined && arg !== null && !(arg.opsets && !arg.modelProtoOrFilename);
      this._opsets = new Map();
      this._onnxDefault = opsets?.['ai.onnx'];
    }
    static create() { return new Builder(); }
    /// The core's table of the aiGraphcore methods.
    static graphcoreOps() { return graphcoreOps; }
    static createFromOnnxModel(model) { return new Builder(model); }
    createSubgraphBuilder() { return new Builder(undefined, undefined, this.handle.createSubgraphBuilder()); }
    setGraphName(n) { this.handle.setGraphName(String(n)); }

    aiOnnxOpset(version) {
      if (!Number.isInteger(version) || version < FIRST_OPSET || version > LAST_OPSET) {
        throw new Error(`Invalid opset '${version}' selected: ai.onnx opsets ${FIRST_OPSET}..${LAST_OPSET} are supported`);
      }
      this.handle.useOpset('ai.onnx', version);
      if (!this._opsets.has(version)) this._opsets.set(version, makeOpset(this, version));
      return this._opsets.get(version);
    }
    get aiOnnx() {
      let v = this._onnxDefault;
      if (v === undefined && this._fromModel) v = this.handle.getOnnxOpsetVersion() || undefined;
      if (v === undefined && this._opsets.size) v = [...this._opsets.keys()][0];
      return this.aiOnnxOpset(v ?? versionInfo.defaultAiOnnxOpset);
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
    virtualGraph(ids, value = 0) { this.handle.virtualGraph(idList(ids), value); }
    pipelineStage(ids, value) { this.handle.pipelineStage(idList(ids), value); }
    /// value: a RecomputeType name ('Recompute', the default) or its number.
    recomputeOutputInBackwardPass(ids, value = 'Recompute') {
      for (const id of idList(ids)) this.handle.recomputeOutputInBackwardPass(String(id), value);
    }
    /// An Identity of each tensor marked RecomputeType Checkpoint; their ids.
    checkpointOutput(ids) { return this.handle.checkpointOutput(idList(ids)); }
    /// The node's virtual graph / pipeline stage; without an id, the current scope's.
    getVirtualGraph(id) { return this.handle.getVirtualGraph(id === undefined ? undefined : String(id)); }
    getPipelineStage(id) { return this.handle.getPipelineStage(id === undefined ? undefined : String(id)); }
    /// Whether a scoped virtual graph / pipeline stage / execution phase is set.
    hasVirtualGraph() { return this.handle.hasVirtualGraph(); }
    hasPipelineStage() { return this.handle.hasPipelineStage(); }
    hasExecutionPhase() { return this.handle.hasExecutionPhase(); }
    setAvailableMemoryProportion(id, p) { this.handle.setAvailableMemoryProportion(String(id), p); }
    setPartialsType(id, t) { this.handle.setPartialsType(String(id), String(t)); }
    /// PopART's inplacing priorities ({ExpInplace: 10}); kept on the node, no effect on a run here.
    setInplacePreferences(id, prefs) { this.handle.setInplacePreferences(String(id), prefs); }
    excludePatterns(id, names) { this.handle.excludePatterns(String(id), Array.from(names)); }
  }
  for (let v = FIRST_OPSET; v <= LAST_OPSET; ++v) {
    Object.defineProperty(Builder.prototype, `aiOnnxOpset${v}`, { get() { return this.aiOnnxOpset(v); } });
  }

  // ------------------------------------------------------------ sessions

  class PyStepIO {
    /// PyStepIO({id: TypedArray | NDArray | Array}, anchors from initAnchorArrays()).
    constructor(inputs, outputs) {
      this.inputs = inputs ?? {};
      this.outputs = outputs ?? {};
    }
  }

  /// What InferenceSession, TrainingSession and poponnx's Session share.
  class SessionBase extends Handle {
    prepareDevice(loadEngine = true) { this.handle.prepareDevice(!!loadEngine); }
    loadEngineAndConnectStreams() { this.handle.loadEngineAndConnectStreams(); }
    weightsFromHost() { this.handle.weightsFromHost(); }
    weightsToHost() { this.handle.weightsToHost(); }
    /// Fills `weights` ({id: TypedArray | NDArray}) with the host copy of each weight.
    readWeights(weights) {
      const views = {};
      for (const [id, w] of Object.entries(weights)) {
        const info = this.handle.getInfo(id);
        const t = w instanceof NDArray ? w.data : w;
        if (!(t instanceof TYPED_ARRAYS[info.dtype])) {
          throw new Error(`readWeights: '${id}' is ${info.dtype}; pass a ${TYPED_ARRAYS[info.dtype].name}`);
        }
        if (t.length !== product(info.shape)) {
          throw new Error(`readWeights: '${id}' has ${product(info.shape)} elements, the array has ${t.length}`);
        }
        views[id] = t;
      }
      this.handle.readWeights(views);
    }
    /// Writes `weights` ({id: TypedArray | NDArray}) to the host copy of each weight.
    writeWeights(weights) {
      const spec = {};
      for (const [id, w] of Object.entries(weights)) {
        const info = this.handle.getInfo(id);
        spec[id] = asNDArray(w, info.dtype, w instanceof NDArray ? undefined : info.shape, `writeWeights '${id}'`);
      }
      this.handle.writeWeights(spec);
    }
    /// The model with the current weights, as ONNX bytes.
    modelToHostBytes() { return this.handle.modelToHostBytes(); }
    /// Node: writes the model to `path` (temporary file + rename). Browsers: use modelToHostBytes().
    modelToHost(path) {
      if (path === undefined) return this.modelToHostBytes();
      writeFileAtomic(path, this.modelToHostBytes());
    }
    resetHostWeights(model, ignoreWeightsInModelWithoutCorrespondingHostWeight = false) {
      this.handle.resetHostWeights(modelBytes(model, 'resetHostWeights'),
                                   !!ignoreWeightsInModelWithoutCorrespondingHostWeight);
    }
    getInfo(id) {
      const i = this.handle.getInfo(String(id));
      return new TensorInfo(i.dtype, i.shape);
    }
    hasInfo(id) { return this.handle.hasInfo(String(id)); }
    getAllTensorIds() { return this.handle.getAllTensorIds(); }
    getAnchorShape(id) { return this.handle.getAnchorShape(String(id)); }
    /// {id: NDArray} sized for every anchor; `run` fills them in place.
    initAnchorArrays() {
      const out = {};
      // The core checks each array's size (the error names the anchor and its factors).
      for (const [id, info] of Object.entries(this.handle.anchorArrayInfos())) {
        try {
          out[id] = NDArray.zeros(info.shape, info.dtype);
        } catch (e) {
          if (!(e instanceof RangeError)) throw e;
          throw new Error(`initAnchorArrays: the array for anchor '${id}' (${info.dtype} ` +
                          `[${info.shape.join(' ')}]) cannot be allocated in JavaScript: ${e.message}`);
        }
      }
      return out;
    }
    getSummaryReport(resetProfile = true) { return this.handle.getSummaryReport(!!resetProfile); }
    /// The IR as PopART's JSON text ({"maingraph": [ops], subgraph id: [ops]}); PopART's Python
    /// spells it _serializeIr(IrSerializationFormat.JSON).
    serializeIr(format = 'JSON') { return this.handle.serializeIr(String(format)); }
    _serializeIr(format = 'JSON') { return this.serializeIr(format); }
    /// The profile as a plain object: report::Report's fields (popart/report.hpp).
    getReport() { return this.handle.getReport(); }
    /// JSON text, or with useCbor a Uint8Array of CBOR bytes (the same document).
    getGraphReport(useCbor = false) { return this.handle.getGraphReport(!!useCbor); }
    getExecutionReport(useCbor = false, resetProfile = true) {
      return this.handle.getExecutionReport(!!useCbor, !!resetProfile);
    }
    /// The IPU model's cycles of the last run ("" the device, "inner_ipu_<i>" IPU i).
    getCycleCount(id = '') { return this.handle.getCycleCount(String(id)); }
    setRandomSeed(seed) { this.handle.setRandomSeed(seed); }
    isPrepared() { return this.handle.isPrepared(); }
    /// The session's device (the CPU device when it was made without one).
    getDevice() {
      const i = this.handle.getDevice();
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    getMemoryStats() { return this.handle.getMemoryStats(); }

    run(stepio, debugName = '') {
      const { inputs, anchors } = this._stepArgs(stepio);
      this.handle.run(inputs, anchors, String(debugName));
    }
    /// A PyStepIO's inputs as NDArrays of the tensors' types, and its anchors' TypedArrays.
    _stepArgs(stepio) {
      if (!stepio || typeof stepio !== 'object' || !('inputs' in stepio) || !('outputs' in stepio)) {
        throw new Error(`expected a PyStepIO(inputs, anchors), got ${describe(stepio)}`);
      }
      const inputs = {};
      for (const [id, v] of Object.entries(stepio.inputs ?? {})) {
        if (!this.handle.hasInfo(id)) {
          inputs[id] = asNDArray(v, undefined, undefined, `input '${id}'`);  // the core names the bad id
          continue;
        }
        const info = this.handle.getInfo(id);
        if (v instanceof NDArray || (v && typeof v === 'object' && 'data' in v && 'shape' in v)) {
          inputs[id] = asNDArray(v, info.dtype, undefined, `input '${id}'`);
          continue;
        }
        // A TypedArray keeps its own data type (the core reports a mismatch, as natively); plain
        // Arrays and numbers are converted to the tensor's type.
        const own = ArrayBuffer.isView(v) && !(v instanceof TYPED_ARRAYS[info.dtype]) ? dtypeOf(v) : info.dtype;
        const data = toTyped(v, own, `input '${id}'`);
        const sample = product(info.shape);
        let shape;
        if (data.length === sample) shape = info.shape;
        else if (sample > 0 && data.length % sample === 0) shape = [data.length / sample, ...info.shape];
        else shape = [data.length];  // the core reports the element-count mismatch
        inputs[id] = new NDArray(data, shape, own);
      }
      const anchors = {};
      for (const [id, a] of Object.entries(stepio.outputs ?? {})) {
        anchors[id] = a instanceof NDArray ? a.data : a;
      }
      return { inputs, anchors };
    }
  }

  /// A plain object (not an Array, bytes or one of the API's classes): Python's keyword arguments.
  const isKeywords = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x) &&
                            [Object.prototype, null].includes(Object.getPrototypeOf(x));
  /// Keyword spellings of older APIs: dataFeed (poponnx and PopART before 1.0) is dataFlow.
  const KEYWORD_ALIASES = { model: 'fnModel', dataFeed: 'dataFlow', device: 'deviceInfo', options: 'userOptions' };

  /// The keyword forms f({fnModel, dataFlow, ...}) and f(model, {dataFlow, ...}) (Python's
  /// `f(model, dataFlow=...)`) as {name: value}; null for the positional form. An unknown name, or
  /// one given twice (dataFlow and dataFeed), is an error.
  function keywordArgs(args, names, what) {
    let kw;
    const out = {};
    if (args.length === 1 && isKeywords(args[0])) {
      kw = args[0];
    } else if (args.length === 2 && isKeywords(args[1])) {
      kw = args[1];
      out.fnModel = args[0];
    } else {
      return null;
    }
    for (const [k, v] of Object.entries(kw)) {
      const name = KEYWORD_ALIASES[k] ?? k;
      if (!names.includes(name)) {
        throw new Error(`${what}: unknown argument '${k}'; the arguments are ${names.join(', ')} (dataFeed is ` +
                        `accepted for dataFlow)`);
      }
      if (name in out) throw new Error(`${what}: '${k}' gives ${name} a second time`);
      out[name] = v;
    }
    return out;
  }

  /// Checks and marshals the arguments sessions share ({fnModel, dataFlow, deviceInfo, losses,
  /// inputShapeInfo, userOptions, patterns}). No deviceInfo: the core's default CPU device (logged).
  function sessionSpec(o, what) {
    const { fnModel, dataFlow, deviceInfo, losses, inputShapeInfo, userOptions, patterns } = o;
    if (!(dataFlow instanceof DataFlow)) throw new Error(`${what}: dataFlow must be a DataFlow, got ${describe(dataFlow)}`);
    if (deviceInfo !== undefined && !(deviceInfo instanceof DeviceInfo)) {
      throw new Error(`${what}: deviceInfo must come from DeviceManager() (or be left out for the CPU device), ` +
                      `got ${describe(deviceInfo)}`);
    }
    if (inputShapeInfo !== undefined && inputShapeInfo !== null && !(inputShapeInfo instanceof InputShapeInfo)) {
      throw new Error(`${what}: inputShapeInfo must be an InputShapeInfo, got ${describe(inputShapeInfo)}`);
    }
    return {
      model: modelBytes(fnModel, what),
      dataFlow: dataFlow._spec,
      device: deviceInfo?._spec,
      isi: inputShapeInfo ? inputShapeInfo._spec() : undefined,
      options: optionsSpec(userOptions),
      patterns: patterns === undefined ? undefined : (patterns instanceof Patterns ? patterns : new Patterns(patterns))._spec,
      losses: losses === undefined ? undefined : lossSpecs(losses, what),
    };
  }

  // ------------------------------------------------------------ losses (pre-1.2 API)

  const reductionName = (r) => {
    const v = r ?? 'Sum';
    if (!Object.hasOwn(enums.ReductionType, v)) {
      throw new Error(`Invalid reduction type '${v}'; expected ${popartEnumList('ReductionType')}`);
    }
    return v;
  };
  /// The pre-1.2 loss objects: TrainingSession(..., losses, ...) appends them to the model.
  class Loss {
    constructor(type, inputs, output, reduction, extra = {}) {
      for (const id of [...inputs, output])
        if (typeof id !== 'string') throw new Error(`${type} loss: tensor ids must be strings`);
      this._spec = { type, inputs, output, reduction: reductionName(reduction), ...extra };
    }
    output() { return this._spec.output; }
  }
  class NllLoss extends Loss {
    /// NllLoss(probs, label, output, reduction = 'Sum') or
    /// NllLoss(probs, label, output, ignoreIndex, reduction = 'Sum', inputIsLogProbability = false).
    constructor(probs, label, output, ...rest) {
      if (typeof rest[0] === 'number') {
        super('Nll', [probs, label], output, rest[1], { ignoreIndex: rest[0], inputIsLogProbability: !!rest[2] });
      } else {
        super('Nll', [probs, label], output, rest[0]);
      }
    }
  }
  class L1Loss extends Loss {
    constructor(input, output, lambda, reduction = 'Sum') {
      if (typeof lambda !== 'number') throw new Error('L1Loss: lambda must be a number');
      super('L1', [input], output, reduction, { lambda });
    }
  }
  class IdentityLoss extends Loss {
    constructor(input, output, reduction = 'Sum') { super('IdentityLoss', [input], output, reduction); }
  }
  function lossSpecs(losses, what) {
    if (!Array.isArray(losses)) throw new Error(`${what}: losses must be an array of NllLoss / L1Loss / IdentityLoss`);
    return losses.map((l, i) => {
      if (!(l instanceof Loss)) throw new Error(`${what}: losses[${i}] is not an NllLoss, L1Loss or IdentityLoss`);
      return l._spec;
    });
  }

  class InferenceSession extends SessionBase {
    /// (model, dataFlow, deviceInfo, [losses,] inputShapeInfo, userOptions, patterns),
    /// ({fnModel, dataFlow, deviceInfo, ...}) or (model, {dataFlow, deviceInfo, ...}) (dataFeed is
    /// dataFlow's older name). Without a deviceInfo the session runs on the CPU device (logged).
    constructor(...args) {
      let o = keywordArgs(args, ['fnModel', 'dataFlow', 'deviceInfo', 'losses', 'inputShapeInfo', 'userOptions',
                                 'patterns'], 'InferenceSession');
      if (!o) {
        const a = Array.isArray(args[3]) ? args : [...args.slice(0, 3), undefined, ...args.slice(3)];
        const [fnModel, dataFlow, deviceInfo, losses, inputShapeInfo, userOptions, patterns] = a;
        o = { fnModel, dataFlow, deviceInfo, losses, inputShapeInfo, userOptions, patterns };
      }
      const s = sessionSpec(o, 'InferenceSession');
      super(SessionHandle.createInference(s.model, s.dataFlow, s.device, s.isi, s.options, s.patterns, s.losses));
      this._dataFlow = o.dataFlow;
    }
    static createFromOnnxModel(...args) { return new InferenceSession(...args); }
  }

  // ------------------------------------------------------------ optimizers

  /// Optimizer values: a number (constant), [value, isConst] (PopART's tuples) or
  /// {value, isConst}.
  function optimizerParams(params, what) {
    if (params === undefined) return {};
    if (!isKeywords(params)) {
      throw new Error(`${what}: expected {key: value} (e.g. {defaultLearningRate: [0.1, false]}), got ${describe(params)}`);
    }
    const out = {};
    for (const [k, v] of Object.entries(params)) {
      let pair = null;
      if (typeof v === 'number') pair = [v, true];
      else if (Array.isArray(v) && v.length === 2) pair = [v[0], v[1]];
      else if (v && typeof v === 'object' && 'value' in v) pair = [v.value, v.isConst ?? true];
      if (!pair || typeof pair[0] !== 'number' || typeof pair[1] !== 'boolean') {
        throw new Error(`${what}: value '${k}' must be a number, [value, isConst] or {value, isConst}, got ` +
                        `${describe(v)}`);
      }
      out[k] = pair;
    }
    return out;
  }

  /// Gradient clipping by norm: ClipNormSettings(weightIds, maxNorm) or
  /// ClipNormSettings.clipAllWeights(maxNorm).
  class ClipNormSettings {
    constructor(weightIds, maxNorm) {
      if (!Array.isArray(weightIds) || typeof maxNorm !== 'number')
        throw new Error('ClipNormSettings(weightIds: string[], maxNorm: number)');
      this._spec = { weights: weightIds.map(String), maxNorm };
    }
    static clipWeights(weightIds, maxNorm) { return new ClipNormSettings(weightIds, maxNorm); }
    static clipAllWeights(maxNorm) {
      const c = new ClipNormSettings([], maxNorm);
      c._spec = { allWeights: true, maxNorm };
      return c;
    }
  }
  function clipNormSpecs(list) {
    if (!Array.isArray(list)) throw new Error('clipNormSettings must be an array of ClipNormSettings');
    return list.map((c) => {
      if (!(c instanceof ClipNormSettings)) throw new Error('clipNormSettings must be an array of ClipNormSettings');
      return c._spec;
    });
  }

  class Optimizer {
    constructor(spec) {
      M.checkOptimizer(spec);
      this._spec = spec;
    }
    type() { return this._spec.type === 'ConstSGD' ? 'SGD' : this._spec.type; }
    /// Weight-specific values (keys as PopART's insertSpecific).
    insertSpecific(weightId, params) {
      const spec = { ...this._spec,
                     specific: { ...(this._spec.specific ?? {}), [weightId]: optimizerParams(params, 'insertSpecific') } };
      M.checkOptimizer(spec);
      this._spec = spec;
      return this;
    }
  }
  class SGD extends Optimizer {
    /// SGD({defaultLearningRate: [0.1, false], defaultMomentum: 0.9, ...}, clipNormSettings,
    ///     accumulatorAndMomentum 'Combined' | 'Separate'), or poponnx's / early PopART's
    /// SGD(learningRate): a non-constant learning rate (updateOptimizer can change it; ConstSGD is the
    /// constant form), every other value at its default.
    constructor(params = {}, clipNormSettings = [], accumulatorAndMomentum = 'Combined') {
      if (typeof params === 'number') {
        if (arguments.length > 1) {
          throw new Error('SGD(learningRate) takes only the learning rate; give other values as SGD({defaultLearningRate: ' +
                          '[lr, false], defaultWeightDecay: wd, ...}, clipNormSettings, accumulatorAndMomentum)');
        }
        super({ type: 'SGD', learningRate: params, specific: {}, clipNormSettings: [] });
        return;
      }
      super({ type: 'SGD', params: optimizerParams(params, 'SGD'), specific: {}, accumulatorAndMomentum,
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class ConstSGD extends Optimizer {
    constructor(learningRate, weightDecay = 0, lossScaling = 1, clipNormSettings = []) {
      for (const [k, v] of Object.entries({ learningRate, weightDecay, lossScaling }))
        if (typeof v !== 'number') throw new Error(`ConstSGD: ${k} must be a number`);
      super({ type: 'ConstSGD', params: { learningRate, weightDecay, lossScaling },
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class Adam extends Optimizer {
    /// Adam(values, mode 'Adam' | 'AdamNoBias' | 'AdaMax' | 'Lamb' | 'LambNoBias',
    ///      weightDecayMode 'Decay' | 'L2Regularization')
    constructor(params = {}, mode = 'Adam', weightDecayMode = 'Decay', clipNormSettings = []) {
      super({ type: 'Adam', params: optimizerParams(params, 'Adam'), specific: {}, mode, weightDecayMode,
              clipNormSettings: clipNormSpecs(clipNormSettings) });
    }
  }
  class Adaptive extends Optimizer {
    /// Adaptive(values, mode 'AdaGrad' | 'RMSProp' | 'CenteredRMSProp' | 'AdaDelta', weightDecayMode,
    ///          rmspropTFVariant)
    constructor(params = {}, mode = 'RMSProp', weightDecayMode = 'Decay', rmspropTFVariant = false) {
      super({ type: 'Adaptive', params: optimizerParams(params, 'Adaptive'), specific: {}, mode, weightDecayMode,
              rmspropTFVariant });
    }
  }

  class TrainingSession extends SessionBase {
    /// (model, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo, userOptions, patterns),
    /// ({fnModel, dataFlow, loss, optimizer, deviceInfo, ...}) or (model, {dataFlow, loss, ...})
    /// (dataFeed is dataFlow's older name). `loss` is the id of a scalar loss tensor, or (pre-1.2)
    /// an array of NllLoss / L1Loss / IdentityLoss (keyword `losses`), whose sum is trained on.
    /// Without a deviceInfo the session runs on the CPU device (logged).
    constructor(...args) {
      let o = keywordArgs(args, ['fnModel', 'dataFlow', 'loss', 'losses', 'optimizer', 'deviceInfo', 'inputShapeInfo',
                                 'userOptions', 'patterns'], 'TrainingSession');
      if (o) {
        if (o.loss !== undefined && o.losses !== undefined) throw new Error('TrainingSession: give loss or losses, not both');
        o.loss = o.loss ?? o.losses;
        delete o.losses;
      } else {
        const [fnModel, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo, userOptions, patterns] = args;
        o = { fnModel, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo, userOptions, patterns };
      }
      const { loss, optimizer } = o;
      if (typeof loss !== 'string' && !Array.isArray(loss))
        throw new Error('TrainingSession: loss must be the id of a scalar tensor or an array of losses');
      if (!(optimizer instanceof Optimizer)) throw new Error('TrainingSession: optimizer must be an SGD, ConstSGD, Adam or Adaptive');
      const s = sessionSpec(o, 'TrainingSession');
      const lossArg = typeof loss === 'string' ? loss : lossSpecs(loss, 'TrainingSession');
      super(SessionHandle.createTraining(s.model, s.dataFlow, lossArg, optimizer._spec, s.device, s.isi, s.options,
                                         s.patterns));
      this._dataFlow = o.dataFlow;
      this._optimizer = optimizer;
    }
    static createFromOnnxModel(...args) { return new TrainingSession(...args); }
    /// Replaces the non-const optimizer values and writes them to the device: the next run uses
    /// them. `optimizer` must be a valid replacement (same type, const-ness, specific weights).
    updateOptimizerFromHost(optimizer) {
      this.handle.updateOptimizerFromHost(TrainingSession._spec(optimizer));
      this._optimizer = optimizer;
    }
    /// Pre-1.2 API: updateOptimizer(opt) then optimizerFromHost().
    updateOptimizer(optimizer) {
      this.handle.updateOptimizer(TrainingSession._spec(optimizer));
      this._optimizer = optimizer;
    }
    optimizerFromHost() { this.handle.optimizerFromHost(); }
    /// Ids of the tensors holding the non-const hyper-parameters.
    getOptimizerTensorIds() { return this.handle.getOptimizerTensorIds(); }
    static _spec(optimizer) {
      if (!(optimizer instanceof Optimizer)) throw new Error('updateOptimizer: expected an SGD, ConstSGD, Adam or Adaptive');
      return optimizer._spec;
    }
  }

  const LEGACY_ARGS = ['fnModel', 'dataFlow', 'losses', 'optimizer', 'deviceInfo', 'inputShapeInfo', 'userOptions',
                       'patterns'];
  const LEGACY_FORM = 'the forms are Session(model, dataFeed[, losses[, optimizer]]) and Session({fnModel, dataFeed, ' +
                      'losses, optimizer, deviceInfo, inputShapeInfo, userOptions, patterns})';

  /// poponnx's Session (2018-19), a thin layer over the modern sessions (the core's LegacySession):
  /// Session(model, dataFeed, losses, optimizer) trains with train(stepio), evaluates the losses
  /// with evaluate(stepio) and runs the forward pass with infer(stepio). Deprecated (logged).
  class LegacySession extends SessionBase {
    constructor(...args) {
      let o = keywordArgs(args, LEGACY_ARGS, 'Session');
      if (!o) {
        const [fnModel, dataFlow, ...rest] = args;
        o = { fnModel, dataFlow };
        // After the model and the DataFlow, each argument is recognised by its class.
        rest.forEach((v, i) => {
          const slot = Array.isArray(v) ? 'losses' : v instanceof Optimizer ? 'optimizer'
                     : v instanceof InputShapeInfo ? 'inputShapeInfo' : v instanceof DeviceInfo ? 'deviceInfo'
                     : v instanceof Patterns ? 'patterns' : null;
          if (!slot || slot in o) {
            throw new Error(`Session: argument ${i + 3} (${describe(v)}) is ${slot ? `a second ${slot}` : 'not losses ' +
                            '(an Array), an optimizer, an InputShapeInfo, a DeviceInfo or Patterns'}; ${LEGACY_FORM}`);
          }
          o[slot] = v;
        });
      }
      if (o.optimizer !== undefined && !(o.optimizer instanceof Optimizer)) {
        throw new Error(`Session: optimizer must be an SGD, ConstSGD, Adam or Adaptive, got ${describe(o.optimizer)}`);
      }
      const s = sessionSpec(o, 'Session');
      super(SessionHandle.createLegacy(s.model, s.dataFlow, s.losses, o.optimizer?._spec, s.device, s.isi, s.options,
                                       s.patterns));
      this._dataFlow = o.dataFlow;
    }
    /// One step of TrainingSession.run (needs losses and an optimizer).
    train(stepio) { this._legacyStep('train', stepio); }
    /// The forward pass and the losses, without weight updates (needs losses).
    evaluate(stepio) { this._legacyStep('evaluate', stepio); }
    /// The forward pass only.
    infer(stepio) { this._legacyStep('infer', stepio); }
    updateOptimizer(optimizer) { this.handle.updateOptimizer(TrainingSession._spec(optimizer)); }
    optimizerFromHost() { this.handle.optimizerFromHost(); }
    /// With an optimizer: the ids of the tensors holding its non-const hyper-parameters.
    getOptimizerTensorIds() { return this.handle.getOptimizerTensorIds(); }
    _legacyStep(mode, stepio) {
      const { inputs, anchors } = this._stepArgs(stepio);
      this.handle.legacyStep(mode, inputs, anchors);
    }
  }
  /// Session(...) and new Session(...) both make a LegacySession.
  function Session(...args) { return new LegacySession(...args); }
  Session.prototype = LegacySession.prototype;

  // ------------------------------------------------------------ describing a model

  /// describeModel(bytesOrPath, {inputShapes?, histogramBins?}): the core's description of the
  /// model (popart/describe.hpp) as a plain object: nodes, tensors with the runtime's inferred
  /// types and shapes, initializer statistics. inputShapes maps input names to {dtype?, shape}
  /// or TensorInfo (or is an InputShapeInfo); a missing dtype keeps the model's.
  function describeModel(model, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new Error(`describeModel: options must be an object {inputShapes?, histogramBins?}, got ${describe(options)}`);
    }
    for (const k of Object.keys(options)) {
      if (k !== 'inputShapes' && k !== 'histogramBins') {
        throw new Error(`describeModel: unknown option '${k}' (the options are inputShapes and histogramBins)`);
      }
    }
    let shapes = options.inputShapes;
    if (shapes instanceof InputShapeInfo) {
      shapes = shapes._spec();
    } else if (shapes !== undefined && shapes !== null) {
      if (typeof shapes !== 'object') {
        throw new Error(`describeModel: inputShapes must be an object {name: {dtype?, shape}}, got ${describe(shapes)}`);
      }
      shapes = Object.fromEntries(Object.entries(shapes).map(([id, v]) =>
        [id, v instanceof TensorInfo ? { dtype: v.data_type(), shape: v.shape() } : v]));
    }
    return JSON.parse(M.describeModel(modelBytes(model, 'describeModel'), shapes ?? undefined, options.histogramBins));
  }

  // ------------------------------------------------------------ logging

  const loggerCache = new Map();
  function getLogger(module = '') {
    if (!loggerCache.has(module)) {
      loggerCache.set(module, {
        setLevel: (level) => M.setLogLevel(module, String(level).toUpperCase()),
        getLevel: () => M.getLogLevel(module || 'popart'),
      });
    }
    return loggerCache.get(module);
  }

  return {
    TensorInfo, NDArray, AnchorReturnType, DataFlow, InputShapeInfo, Patterns, SessionOptions,
    DeviceManager, DeviceInfo, Builder, GraphTransformer, InferenceSession, TrainingSession, Session, PyStepIO, StepIO: PyStepIO, getLogger,
    Optimizer, SGD, ConstSGD, Adam, Adaptive, ClipNormSettings, NllLoss, L1Loss, IdentityLoss, describeModel,
    ReplicaGrouping, CommGroup, VariableSettings, InputSettings,
    ...enums,
    ...reservedPrefixFns,
    /// This runtime's version: "major.minor.point", [major, minor, point], the git commit built.
    versionString: () => versionInfo.versionString,
    versionNumber: () => [...versionInfo.versionNumber],
    packageHash: () => versionInfo.packageHash,
    /// The ai.onnx / ai.onnx.ml / ai.graphcore opsets a Builder uses unless told otherwise.
    defaultAiOnnxOpset: versionInfo.defaultAiOnnxOpset,
    defaultAiOnnxMlOpset: versionInfo.defaultAiOnnxMlOpset,
    defaultAiGraphcoreOpset: versionInfo.defaultAiGraphcoreOpset,
    /// [{domain, type, version}] of every op this runtime runs (version: the earliest opset of
    /// its domain it is implemented at); includeInternal adds the internal (gradient, optimizer) ops.
    getSupportedOperations: (includeInternal) => M.getSupportedOperations(Boolean(includeInternal)),
    /// The same ops with their definitions: [{domain, type, version, inputs: [{name,
    /// supportedTensors: [DataType names], constant}], outputs: [{name, supportedTensors}],
    /// attributes: {name: {supportedValuesRegex}}}] (PopART returns a map keyed by the operator).
    getSupportedOperationsDefinition: (includeInternal) => M.getSupportedOperationsDefinition(Boolean(includeInternal)),
    /// The ai.onnx op types of opset `opsetVersion` this runtime does not implement.
    getUnsupportedOperations: (opsetVersion) => M.getUnsupportedOperations(Number(opsetVersion)),
    initializePoplarDebugInfo, closePoplarDebugInfo,
    /// {EnumName: [value names]} of every public enum (the core's table).
    enumValues: Object.freeze(M.enums()),
    /// The memory categories of the reports, in the order of getReport()'s
    /// compilation.memory.byCategoryByTile (the core's names).
    memoryCategories: Object.freeze(M.memoryCategories()),
    /// The IPU generations the IPU-model and offline devices model (the core's ipuTargetList):
    /// [{version, product, tilesPerIpu, bytesPerTile, clockHz, workerContexts, ipuLinksPerIpu}].
    ipuTargets: () => M.ipuTargets(),
    /// Every optimizer hyper-parameter key: {optimizer, key, default, isConst, doc}.
    optimizerParams: () => M.optimizerParams(),
    /// Bytes allocated on the wasm heap (for leak checks).
    heapInUse: () => M.heapInUse(),
    /// Threads the kernels use (1 unless created with {threads} > 1; see createPopart).
    setNumThreads: (n) => {
      if (!Number.isInteger(n) || n < 1) throw new Error(`setNumThreads: expected an integer >= 1 (got ${n})`);
      M.setNumThreads(n);
    },
    getNumThreads: () => M.getNumThreads(),
    /// The memory limit in bytes that every buffer sized from a model is checked against
    /// (default: the module's maximum memory; 0 restores it). See docs/reliability.md.
    setMemoryLimit: (bytes) => M.setMemoryLimit(Number(bytes)),
    getMemoryLimit: () => M.getMemoryLimit(),
    module: raw,
  };
}

function attrType(v) {
  if (typeof v === 'string') return 's';
  if (typeof v === 'number') return Number.isInteger(v) ? 'i' : 'f';
  if (typeof v === 'bigint') return 'i';
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const a = Array.from(v);
    if (a.length && typeof a[0] === 'string') return 'strings';
    if (ArrayBuffer.isView(v) && (v instanceof Float32Array || v instanceof Float64Array)) return 'floats';
    return a.every((x) => Number.isInteger(x) || typeof x === 'bigint') ? 'ints' : 'floats';
  }
  throw new Error(`attribute value ${String(v)} is not an int, float, string or a list of these`);
}

function idList(ids) { return typeof ids === 'string' ? [ids] : Array.from(ids); }

/// Most threads the pthread build runs (its pre-started worker pool + the caller).
export const MAX_THREADS = 4;
/// The module's initial memory (-sINITIAL_MEMORY) and the range createPopart's maximumMemory
/// takes (the compiled-in maximum is 2 GiB).
const INITIAL_MEMORY = 32 * 1024 * 1024;
export const MIN_MAXIMUM_MEMORY = INITIAL_MEMORY;
export const MAX_MAXIMUM_MEMORY = 2 * 1024 * 1024 * 1024;

/// Instantiates the WebAssembly module and resolves to the API. `options.threads` (default 1):
/// more than 1 loads the pthread build (popart_wasm_mt, at most MAX_THREADS; it needs
/// SharedArrayBuffer, which browsers give only to cross-origin isolated pages). Other options go
/// to Emscripten (e.g. {locateFile} when the .wasm is served from elsewhere).
export async function createPopart(options = {}) {
  const { threads = 1, maximumMemory, ...moduleArg } = options ?? {};
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
    throw new Error(`createPopart: threads must be an integer from 1 to ${MAX_THREADS} (got ${threads})`);
  if (maximumMemory !== undefined) {
    // The module's memory with a smaller maximum than the compiled-in 2 GiB: the core's memory
    // limit follows it, and an allocation beyond it fails cleanly.
    if (!Number.isInteger(maximumMemory) || maximumMemory < MIN_MAXIMUM_MEMORY || maximumMemory > MAX_MAXIMUM_MEMORY)
      throw new Error(`createPopart: maximumMemory must be a whole number of bytes from ${MIN_MAXIMUM_MEMORY} to ` +
                      `${MAX_MAXIMUM_MEMORY} (got ${maximumMemory})`);
    const page = 65536;
    moduleArg.wasmMemory = new WebAssembly.Memory({
      initial: INITIAL_MEMORY / page, maximum: Math.floor(maximumMemory / page), shared: threads > 1,
    });
  }
  const finish = (api) => {
    if (maximumMemory !== undefined) {
      api.module.setModuleMaximumMemory(Math.floor(maximumMemory / 65536) * 65536);
      const e = api.module.takeError();
      if (e !== null) throw errorFrom(e);
    }
    return api;
  };
  if (threads === 1) return finish(makeApi(await createPopartModule(moduleArg)));
  if (typeof SharedArrayBuffer === 'undefined') {
    throw new Error('createPopart: threads > 1 needs SharedArrayBuffer; in a browser, serve the page cross-origin ' +
                    'isolated (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp)');
  }
  let factory;
  try {
    factory = (await import('./popart_wasm_mt.mjs')).default;
  } catch (e) {
    throw new Error(`createPopart: the pthread build (popart_wasm_mt.mjs) could not be loaded: ${e.message}`);
  }
  // Emscripten's worker script is CommonJS; the package ships it as .cjs ("type": "module").
  const userLocate = moduleArg.locateFile;
  const locateFile = (path, prefix) => {
    const p = path.endsWith('.worker.js') ? path.slice(0, -3) + '.cjs' : path;
    return userLocate ? userLocate(p, prefix) : prefix + p;
  };
  const raw = await factory({ ...moduleArg, locateFile });
  const api = finish(makeApi(raw));
  api.setNumThreads(threads);
  if (isNode) {
    // Idle pool workers would keep Node from exiting (the main thread owns all the work).
    for (const w of [...raw.PThread.unusedWorkers, ...raw.PThread.runningWorkers]) w.unref?.();
  }
  return api;
}

export default createPopart;
