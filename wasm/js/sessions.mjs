// The sessions: InferenceSession, TrainingSession and poponnx's Session over the core's sessions,
// their PopART argument forms (positional, keywords, older spellings) and the step I/O.
// The report methods come from reports.mjs.
import { asNDArray, describe, dtypeOf, isKeywords, NDArray, product, toTyped, TYPED_ARRAYS, valuesOf } from './values.mjs';
import { modelBytes, writeFileAtomic } from './files.mjs';

export function makeSessions({ readModel, SessionHandle, SessionReports, TensorInfo, DataFlow, InputShapeInfo, Patterns, optionsSpec,
                               DeviceInfo, Optimizer, lossSpecs }) {
  class PyStepIO {
    /// PyStepIO({id: TypedArray | NDArray | Array}, anchors from initAnchorArrays()).
    constructor(inputs, outputs) {
      this.inputs = inputs ?? {};
      this.outputs = outputs ?? {};
    }
  }

  /// A session planned at run time: each anchor's array of this run ({dtype, shape, bytes |
  /// strings}) into the PyStepIO's outputs (the user's anchors object). An NDArray takes the run's
  /// data and shape; a TypedArray of the same length is filled, one of another length replaced.
  function takeRunShapes(stepio, shaped) {
    for (const [id, v] of Object.entries(shaped)) {
      if (v.elements) {
        // A sequence anchor: an Array of NDArrays; an optional one: its value (an NDArray or an Array), or null.
        const arrays = v.elements.map((e, i) => new NDArray(valuesOf(e, `anchor '${id}' tensor ${i}`), e.shape, e.dtype));
        stepio.outputs[id] = !v.present ? null : v.kind === 'optionalTensor' ? arrays[0] : arrays;
        continue;
      }
      const data = valuesOf(v, `anchor '${id}'`);
      const cur = stepio.outputs[id];
      if (cur instanceof NDArray) {
        cur.data = data;
        cur.shape = v.shape;
        cur.dtype = v.dtype;
      } else if (ArrayBuffer.isView(cur) && cur.length === data.length && cur.constructor === data.constructor) {
        cur.set(data);
      } else {
        stepio.outputs[id] = data;
      }
    }
  }

  /// What InferenceSession, TrainingSession and poponnx's Session share.
  class SessionBase extends SessionReports {
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
        // The element count is the core's to check: a grouped weight (VariableSettings) holds one
        // value per group.
        views[id] = t;
      }
      this.handle.readWeights(views);
    }
    /// Writes `weights` ({id: TypedArray | NDArray}) to the host copy of each weight.
    writeWeights(weights) {
      const spec = {};
      for (const [id, w] of Object.entries(weights)) {
        const info = this.handle.getInfo(id);
        // A grouped weight holds a value per group, a sharded state its whole value: a typed array of
        // another size goes as it is, for the core to check.
        const n = info.shape.reduce((a, b) => a * b, 1);
        const shape = w instanceof NDArray ? undefined : w.length === n ? info.shape : [w.length];
        spec[id] = asNDArray(w, info.dtype, shape, `writeWeights '${id}'`);
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
    /// The model for inference with the current weights: a training session's loss output, and
    /// what only it needed (labels, the loss nodes), removed; no optimizer state (modelToHost
    /// keeps it to resume training). Node: written to `path`; without a path, the bytes.
    exportInferenceModel(path) {
      const bytes = this.handle.exportInferenceModelBytes();
      if (path === undefined) return bytes;
      writeFileAtomic(String(path), bytes);
    }
    /// PopART's compileAndExport: prepares the device if needed and saves the prepared plan's hash
    /// and the current weights. Node: to `path` (temporary file + rename); without a path (and in
    /// browsers) returns the bytes.
    compileAndExport(path) {
      const bytes = this.handle.compileAndExportToBytes();
      if (path === undefined) return bytes;
      writeFileAtomic(String(path), bytes);
      return undefined;
    }
    /// PopART's loadExecutable, before prepareDevice: a file path (Node) or compileAndExport's bytes.
    loadExecutable(fileOrBytes) {
      this.handle.loadExecutableFromBytes(modelBytes(fileOrBytes, 'loadExecutable', "compileAndExport's bytes"));
    }
    resetHostWeights(model, ignoreWeightsInModelWithoutCorrespondingHostWeight = false) {
      this.handle.resetHostWeights(readModel(model, 'resetHostWeights'),
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
    setRandomSeed(seed) { this.handle.setRandomSeed(seed); }
    isPrepared() { return this.handle.isPrepared(); }
    /// The session's device (the CPU device when it was made without one).
    getDevice() {
      const i = this.handle.getDevice();
      return new DeviceInfo({ type: i.type, options: i.options }, i);
    }
    getMemoryStats() { return this.handle.getMemoryStats(); }

    /// Plans of a session whose shapes are known only at run time (the CPU device):
    /// {runTimeShapes, plansBuilt, plansReused, plansCached, runTimeConstants}.
    getRunTimePlanStats() { return this.handle.getRunTimePlanStats(); }

    run(stepio, debugName = '') {
      const { inputs, anchors } = this._stepArgs(stepio);
      const shaped = this.handle.run(inputs, anchors, String(debugName));
      if (shaped) takeRunShapes(stepio, shaped);
    }
    /// A PyStepIO's inputs as NDArrays of the tensors' types, and its anchors' TypedArrays.
    _stepArgs(stepio) {
      if (!stepio || typeof stepio !== 'object' || !('inputs' in stepio) || !('outputs' in stepio)) {
        throw new Error(`expected a PyStepIO(inputs, anchors), got ${describe(stepio)}`);
      }
      const inputs = {};
      const isArrayValue = (x) => x instanceof NDArray || ArrayBuffer.isView(x) || (x && typeof x === 'object' && 'data' in x && 'shape' in x);
      for (const [id, v] of Object.entries(stepio.inputs ?? {})) {
        if (v === null || v === undefined) continue;  // an optional input: None
        if (Array.isArray(v) && v.every(isArrayValue) && (v.length > 0 || !this.handle.hasInfo(id))) {
          // A sequence input (or an optional sequence): its tensors.
          inputs[id] = { elements: v.map((x, i) => asNDArray(x, undefined, undefined, `input '${id}' tensor ${i}`)) };
          continue;
        }
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
        if (a === null || Array.isArray(a)) continue;  // a sequence or optional anchor of an earlier run
        anchors[id] = a instanceof NDArray ? a.data : a;
      }
      return { inputs, anchors };
    }
  }

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
      model: readModel(fnModel, what),
      dataFlow: dataFlow._spec,
      device: deviceInfo?._spec,
      isi: inputShapeInfo ? inputShapeInfo._spec() : undefined,
      options: optionsSpec(userOptions),
      patterns: patterns === undefined ? undefined : (patterns instanceof Patterns ? patterns : new Patterns(patterns))._spec,
      losses: losses === undefined ? undefined : lossSpecs(losses, what),
    };
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

  return { PyStepIO, InferenceSession, TrainingSession, Session };
}
