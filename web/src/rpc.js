// The UI side of the runtime worker's protocol: request(op, args, {onProgress, transfer}) returns
// a promise with a `cancel()`; while any request runs, <body data-busy="true">. The core's log
// lines arrive on their own ({kind: 'log', line, level, module}) and go to onLog.
export class RuntimeClient {
  constructor(url, { onBusy, onLog } = {}) {
    this.worker = new Worker(url, { type: 'module' });
    this.next = 1;
    this.pending = new Map();
    this.onBusy = onBusy ?? (() => {});
    this.onLog = onLog ?? (() => {});
    this.worker.onmessage = (ev) => this._message(ev.data);
    this.worker.onerror = (ev) => {
      const err = new Error(`the runtime worker failed: ${ev.message ?? 'unknown error'}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this._busy();
    };
  }

  request(op, args = {}, { onProgress, transfer = [], quiet = false } = {}) {
    const id = this.next++;
    let cancel;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, quiet });
      cancel = () => this.worker.postMessage({ cancel: id });
    });
    this.worker.postMessage({ id, op, args }, transfer);
    this._busy();
    promise.cancel = cancel;
    promise.id = id;
    return promise;
  }

  _message(m) {
    if (m.kind === 'log') {
      this.onLog({ line: m.line, level: m.level, module: m.module });
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.kind === 'progress') {
      p.onProgress?.(m.data);
      return;
    }
    this.pending.delete(m.id);
    this._busy();
    if (m.kind === 'result') p.resolve(m.value);
    else p.reject(Object.assign(new Error(m.error.message), m.error));
  }

  _busy() {
    const busy = [...this.pending.values()].some((p) => !p.quiet);
    this.onBusy(busy);
  }

  /// Stops the worker at once (a prepare in the core cannot be interrupted otherwise): every
  /// pending request fails with an AbortError. The client is unusable afterwards.
  terminate() {
    this.worker.terminate();
    const err = Object.assign(new Error('cancelled: the runtime was restarted'), { name: 'AbortError' });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this._busy();
  }
}
