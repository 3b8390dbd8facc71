// The value classes of sessions: TensorInfo, AnchorReturnType, DataFlow, InputShapeInfo, the
// public enums, Patterns, SessionOptions and its settings classes (TensorLocationSettings, ...).
// The core checks each (its tables, its messages).
import { asNDArray, describe, isKeywords, NDArray } from './values.mjs';

export function makeOptions({ M }) {
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
  /// PopART's settings classes (TensorLocationSettings, TensorLocation, ExecutionPhaseSettings, ...)
  /// from the core's list (M.settingsStructList(): fields in PopART's constructor order), with the
  /// option table's defaults; the core binds each call's arguments to fields
  /// (M.bindSettingsArguments: positional forms, keyword aliases): `new popart.TensorLocationSettings(
  /// popart.TensorStorage.OffChip, 0)` or one object of fields. An instance is a plain set of
  /// fields, so it goes wherever the nested object does (`opts.weightTensorLocationSettings = ...`).
  const settingsClasses = {};
  const defaultsAt = (path) => path.split('.').reduce((o, k) => o[k], sessionOptionsDefaults);
  for (const info of M.settingsStructList()) {
    const assign = (self, { field, fieldStruct }, v) => {
      // A settings field given one value: that struct's one-argument form (a storage for a location).
      self[field] = fieldStruct && (v === null || typeof v !== 'object') ? new settingsClasses[fieldStruct](v) : v;
    };
    const set = (self, k, v) => assign(self, M.bindSettingsArguments(info.name, 0, [k])[0], v);
    const cls = { [info.name]: class {
      constructor(...args) {
        const defaults = defaultsAt(info.paths[0]);
        info.fields.forEach((f, i) => {
          this[f] = info.fieldStructs[i] ? new settingsClasses[info.fieldStructs[i]]() : structuredClone(defaults[f]);
        });
        if (args.length === 1 && isKeywords(args[0])) {
          for (const [k, v] of Object.entries(args[0])) set(this, k, v);
          return;
        }
        M.bindSettingsArguments(info.name, args.length, []).forEach((a, i) => {
          if (args[i] !== undefined) assign(this, a, args[i]);
        });
      }
      /// The fields in PopART's constructor order.
      static fields() { return info.fields; }
    } }[info.name];
    settingsClasses[info.name] = cls;
  }

  /// The fields to send: the core checks them (its messages) as the session is made. A function of
  /// a "callback" option (compilationProgressLogger) is wrapped so that what it throws is reported
  /// and does not stop the call that made progress.
  const callbackNames = sessionOptionsList.filter((o) => o.type === 'callback').map((o) => o.name);
  function optionsSpec(o) {
    if (o === undefined || o === null) return undefined;
    const spec = { ...o };
    for (const name of callbackNames) {
      const fn = spec[name];
      if (typeof fn !== 'function') continue;
      spec[name] = (...args) => {
        try {
          fn(...args);
        } catch (e) {
          console.error(`popart: SessionOptions.${name} threw:`, e);
        }
      };
    }
    return spec;
  }

  return { TensorInfo, AnchorReturnType, DataFlow, InputShapeInfo, enums, popartEnumList, Patterns, SessionOptions,
           settingsClasses, optionsSpec };
}
