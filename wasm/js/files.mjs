// Node's file system behind the API: model bytes from a path, atomic writes, externally saved
// initializers and the core's autoReport files. A browser has no file system: these explain so
// (or, for the reports, write nothing).
import { idList, isNode, nodeModule } from './values.mjs';

export function modelBytes(model, what, kind = 'ONNX model bytes') {
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
  throw new Error(`${what}: expected ${kind} (Uint8Array) or a file path`);
}

/// In Node, a model whose tensors are stored in external files (ONNX external data) comes back
/// with their data inline: the core lists the locations (a checked GraphTransformerHandle from
/// `openTransformer(bytes)`), Node's fs reads them (relative to the model file's directory, or
/// for bytes to the working directory, as PopART), the core puts them in. Other models, and any model in a browser (no file system:
/// the core's error names the tensor and the file), are returned as they are. `strict` (a session,
/// describeModel): a file that cannot be read is the core's error naming the tensor and the file;
/// otherwise (GraphTransformer, Builder) the model is then returned as it is.
export function withExternalData(bytes, model, openTransformer, strict = true) {
  if (!isNode) return bytes;
  // Every external tensor names its file with the key "location": without it, nothing to do.
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf('location') < 0) return bytes;
  const gt = openTransformer(bytes);
  try {
    const locations = gt.externalDataLocations();
    if (locations.length === 0) return bytes;
    const fs = nodeModule('fs');
    const path = nodeModule('path');
    const base = typeof model === 'string' ? path.dirname(model) : process.cwd();
    const files = {};
    for (const loc of locations) {
      try {
        files[loc] = new Uint8Array(fs.readFileSync(path.resolve(base, loc)));
      } catch {
        // Left out: strict, the core names the tensor and the file it could not read; else the
        // model stays as it is (a GraphTransformer or Builder may never need the data).
        if (!strict) return bytes;
      }
    }
    gt.inlineExternalData(files);
    return gt.getModelProto();
  } finally {
    gt.delete();
  }
}

/// Writes `bytes` to `path` through a temporary file and a rename: a failure never leaves a
/// half-written file, and an existing file stays as it was.
export function writeFileAtomic(path, bytes) {
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
export function saveExternally(handle, ids, fileName) {
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
/// Writes one of the core's autoReport files (engine option autoReport.all) with Node's fs, the
/// directory created; returns null, or the failure's message for the core to throw. A browser
/// has no file system: nothing is written there, the reports are read through the API.
export function writeReportFile(path, bytes) {
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
