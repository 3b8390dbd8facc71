// The JavaScript API of the popart runtime: PopART's names over the WebAssembly core.
// `createPopart()` instantiates the module and resolves to an object holding the API classes.
// Every C++ error arrives as a JS Error with the C++ message; the module keeps working after one.
// Embind handles never reach user code: each class owns its handle and frees it in dispose()
// (also `Symbol.dispose`, and a FinalizationRegistry as a safety net for forgotten objects).
// One module per concern, each a factory over the instantiated module: module.mjs (checked entry
// points, Handle), options.mjs (TensorInfo, DataFlow, Patterns, SessionOptions, enums),
// replicas.mjs (VariableSettings, InputSettings, debug info), devices.mjs, builder.mjs (Builder, GraphTransformer), optimizers.mjs (optimizers, pre-1.2
// losses), reports.mjs (the session's reports), sessions.mjs; values.mjs and files.mjs hold the
// plain helpers (NDArray, TypedArrays, Node's file system).
import createPopartModule from './popart_wasm.mjs';
import { describe, errorFrom, isNode, NDArray, TYPED_ARRAYS, valuesOf } from './values.mjs';
import { makeModule } from './module.mjs';
import { makeOptions } from './options.mjs';
import { makeDevices } from './devices.mjs';
import { makeReplicas } from './replicas.mjs';
import { makeBuilder } from './builder.mjs';
import { makeOptimizers } from './optimizers.mjs';
import { makeReports } from './reports.mjs';
import { makeSessions } from './sessions.mjs';

export { NDArray, TYPED_ARRAYS };

/// Builds the API object over one instantiated module `raw`.
function makeApi(raw) {
  const ctx = makeModule(raw);
  Object.assign(ctx, makeOptions(ctx));
  Object.assign(ctx, makeReplicas(ctx));
  Object.assign(ctx, makeDevices(ctx));
  Object.assign(ctx, makeBuilder(ctx));
  Object.assign(ctx, makeOptimizers(ctx));
  Object.assign(ctx, makeReports(ctx));
  Object.assign(ctx, makeSessions(ctx));
  const {
    M, versionInfo, reservedPrefixFns, exceptionClasses, readModel, TensorInfo, AnchorReturnType, DataFlow, InputShapeInfo, Patterns, SessionOptions,
    enums, DeviceManager, DeviceInfo, Builder, GraphTransformer, InferenceSession, TrainingSession, Session, PyStepIO,
    Optimizer, Loss, SGD, ConstSGD, Adam, Adaptive, ClipNormSettings, NllLoss, L1Loss, IdentityLoss, memoryCategories,
    reportSchema, ReplicaGrouping, CommGroup, VariableSettings, InputSettings, initializePoplarDebugInfo,
    closePoplarDebugInfo, settingsClasses,
  } = ctx;

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
    return JSON.parse(M.describeModel(readModel(model, 'describeModel'), shapes ?? undefined, options.histogramBins));
  }

  /// tensorValue(bytesOrPath, name): the stored value of an initializer or a Constant's output
  /// (main graph first, then subgraphs) as an NDArray with its `name`; FLOAT16 / BFLOAT16 as their
  /// raw 16-bit patterns (Uint16Array), as everywhere in the package.
  function tensorValue(model, name) {
    if (typeof name !== 'string') throw new Error(`tensorValue: name must be a string, got ${describe(name)}`);
    const v = M.tensorValue(readModel(model, 'tensorValue'), name);
    const nd = new NDArray(valuesOf(v, `tensorValue: '${name}'`), v.shape, v.dtype);
    nd.name = v.name;
    return nd;
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

  /// Where the core's log lines go: 'stderr', 'stdout', or a function(line, level, module) called
  /// with each line (PopART's format) in place of the streams. A function that throws is reported
  /// on the console and does not stop the call that logged.
  function setLogDestination(dest) {
    if (typeof dest !== 'function') return M.setLogDestination(dest);
    return M.setLogDestination((line, level, module) => {
      try {
        dest(line, level, module);
      } catch (e) {
        console.error('popart: the log destination function threw:', e);
      }
    });
  }

  return {
    TensorInfo, NDArray, AnchorReturnType, DataFlow, InputShapeInfo, Patterns, SessionOptions,
    DeviceManager, DeviceInfo, Builder, GraphTransformer, InferenceSession, TrainingSession, Session, PyStepIO, StepIO: PyStepIO, getLogger, setLogDestination,
    Optimizer, Loss, SGD, ConstSGD, Adam, Adaptive, ClipNormSettings, NllLoss, L1Loss, IdentityLoss, describeModel, tensorValue,
    ReplicaGrouping, CommGroup, VariableSettings, InputSettings,
    ...enums,
    ...settingsClasses,
    ...reservedPrefixFns,
    /// popart_exception, popart_internal_exception, popart_runtime_error, OutOfMemoryException,
    /// poplar_exception, poplar_runtime_error, poplibs_exception: the classes of the errors the
    /// module throws (Error subclasses; the core's list).
    ...exceptionClasses,
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
    memoryCategories,
    reportSchema,
    /// The IPU generations the IPU-model and offline devices model (the core's ipuTargetList):
    /// every field of the core's IpuTargetInfo (ipuTargetJson; the same objects as Python's ipuTargetList()).
    ipuTargets: () => M.ipuTargets(),
    /// Every optimizer hyper-parameter key: {optimizer, key, default, isConst, doc}.
    optimizerParams: () => M.optimizerParams(),
    /// The optimizer and loss constructors (the classes SGD ... IdentityLoss take these arguments,
    /// positionally): [{name, family, base, doc, signatures: [{doc, args: [{name, kind, enumName,
    /// required, default?, doc}]}]}].
    factoryList: () => M.factoryList(),
    /// The settings classes (TensorLocationSettings ... take these forms): [{name, paths, fields,
    /// fieldStructs, forms, keywordAliases}].
    settingsStructList: () => M.settingsStructList(),
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
