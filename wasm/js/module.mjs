// The instantiated WebAssembly module as the API sees it: every entry point checked (a C++ error
// becomes a JS Error with the C++ message right after the call; a WebAssembly trap stops the
// module with a clear message), and Handle, the owner of one Embind object (dispose(),
// Symbol.dispose, a FinalizationRegistry as a safety net).
import { disposeSymbol, errorClasses, errorFrom } from './values.mjs';
import { modelBytes, withExternalData, writeReportFile } from './files.mjs';

/// The checked module `M`, its handle classes and Handle, over one instantiated module `raw`.
export function makeModule(raw) {
  // popart_exception, popart_internal_exception, ...: the core's list (popart/error.hpp).
  const exceptionClasses = errorClasses(raw.errorClasses());
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
  /// An ONNX model (bytes or, in Node, a path) as bytes, with its external data inline (Node;
  /// `strict`: a data file that cannot be read is an error, else the model is kept as it is).
  const readModel = (model, what, strict = true) =>
    withExternalData(modelBytes(model, what), model, (bytes) => checked(GraphTransformerHandle.create(bytes)), strict);

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

  return { raw, M, checked, Handle, versionInfo, reservedPrefixFns, exceptionClasses, readModel, BuilderHandle, SessionHandle,
           GraphTransformerHandle };
}
