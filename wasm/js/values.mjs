// Values at the edge of the JS API: the TypedArray of each ONNX data type, NDArray (the unit of
// data exchange), the checks that turn a JS value into a TypedArray or a shape (errors naming the
// argument, nothing silently becoming NaN), attribute type codes, and Node detection.
export const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

export const isNode = typeof process === 'object' && typeof process.versions === 'object' &&
               typeof process.versions.node === 'string';

export function nodeModule(name) {
  if (!isNode) throw new Error(`file paths need Node.js; in a browser pass the bytes (Uint8Array) instead`);
  return process.getBuiltinModule(name);
}

/// The TypedArray class for each ONNX data type.
export const TYPED_ARRAYS = {
  FLOAT: Float32Array, DOUBLE: Float64Array, FLOAT16: Uint16Array, BFLOAT16: Uint16Array,
  INT8: Int8Array, UINT8: Uint8Array, BOOL: Uint8Array, INT16: Int16Array, UINT16: Uint16Array,
  INT32: Int32Array, UINT32: Uint32Array, INT64: BigInt64Array, UINT64: BigUint64Array, STRING: Array,
};

export function product(shape) { return shape.reduce((a, b) => a * b, 1); }

/// How a value reads in an error message (as the bindings' describe()).
export function describe(v) {
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
export function checkElements(data, dtype, what) {
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
export function toTyped(data, dtype, what) {
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
export function shapeArg(shape, what) {
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

/// The core's {dtype, bytes: Uint8Array | strings: string[]} as the dtype's TypedArray (a view of
/// the bytes), or the strings; `what` names the value when JavaScript cannot hold its type.
export function valuesOf(v, what) {
  if (v.strings !== undefined) return v.strings;
  const T = TYPED_ARRAYS[v.dtype];
  if (!T) throw new Error(`${what} has data type ${v.dtype}, which JavaScript cannot hold`);
  return new T(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength / T.BYTES_PER_ELEMENT);
}

export function dtypeOf(data) {
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

export function asNDArray(v, dtype, shape, what) {
  if (v instanceof NDArray) return v;
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !Array.isArray(v) && 'data' in v) {
    return new NDArray(v.data, v.shape, v.dtype ?? dtype);
  }
  const data = toTyped(v, dtype ?? dtypeOf(v), what);
  return new NDArray(data, shape ?? [data.length], dtype ?? dtypeOf(v));
}

/// PopART's exception classes (popart_exception, popart_internal_exception, poplar_exception,
/// OutOfMemoryException, ...), made once from the core's list (the module's errorClasses(): name,
/// base, doc; bases first) and shared by every module, so `instanceof` works across modules.
const ERROR_CLASSES = new Map();
export function errorClasses(list) {
  for (const { name, base, doc } of list) {
    if (ERROR_CLASSES.has(name)) continue;
    const Base = base ? ERROR_CLASSES.get(base) : Error;
    const C = { [name]: class extends Base {} }[name];
    Object.defineProperty(C.prototype, 'name', { value: name, configurable: true, writable: true });
    Object.defineProperty(C, 'doc', { value: doc });
    ERROR_CLASSES.set(name, C);
  }
  return Object.fromEntries(ERROR_CLASSES);
}

/// The JS error for a failure reported by the module's takeError(): an instance of its class
/// (popart_exception, ...) with the C++ message, and the exception's own fields (an
/// OutOfMemoryException's `summaryReport`, `profilePath` and `graphReport`).
export function errorFrom({ message, errorClass, ...fields }) {
  const C = ERROR_CLASSES.get(errorClass) ?? Error;
  return Object.assign(new C(message), fields);
}

/// The attribute type code of a JS value for customOp / addNodeAttribute: the codes of the
/// generated op tables (ops.gen.mjs, core/src/builder/gen_builder.py): 'i', 'f', 's', 'ints',
/// 'floats', 'strings'.
export function attrType(v) {
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

/// One tensor id or a list of them, as an Array.
export function idList(ids) { return typeof ids === 'string' ? [ids] : Array.from(ids); }

/// A plain object (not an Array, bytes or one of the API's classes): Python's keyword arguments.
export const isKeywords = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x) &&
                                 [Object.prototype, null].includes(Object.getPrototypeOf(x));
