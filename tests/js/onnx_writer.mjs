// A minimal ONNX ModelProto writer for tests whose models the JS Builder cannot make yet
// (sequence and optional types): protobuf's wire format for the few fields they use.
const enc = new TextEncoder();

function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const field = (num, wire) => varint((num << 3) | wire);
/// A varint field.
export const int = (num, v) => [...field(num, 0), ...varint(v)];
/// A length-delimited field: a string or an encoded message (an Array of bytes).
export function bytes(num, v) {
  const b = typeof v === 'string' ? Array.from(enc.encode(v)) : v;
  return [...field(num, 2), ...varint(b.length), ...b];
}

// TypeProto: tensor_type 1 {elem_type 1, shape 2 {dim 1 {dim_value 1 | dim_param 2}}},
// sequence_type 4 {elem_type 1}, optional_type 9 {elem_type 1}.
export function tensorType(elem, dims) {
  const t = [...int(1, elem)];
  if (dims) t.push(...bytes(2, dims.flatMap((d) => bytes(1, typeof d === 'string' ? bytes(2, d) : int(1, d)))));
  return bytes(1, t);
}
export const sequenceType = (elemType) => bytes(4, bytes(1, elemType));
export const optionalType = (elemType) => bytes(9, bytes(1, elemType));
/// ValueInfoProto {name 1, type 2}.
export const valueInfo = (name, type) => [...bytes(1, name), ...bytes(2, type)];

/// NodeProto {input 1, output 2, name 3, op_type 4, attribute 5}; `attrs` {name: int | graph bytes}.
export function node(opType, inputs, outputs, attrs = {}) {
  const n = [...inputs.flatMap((i) => bytes(1, i)), ...outputs.flatMap((o) => bytes(2, o)), ...bytes(3, `${opType}_${outputs[0]}`),
             ...bytes(4, opType)];
  for (const [name, v] of Object.entries(attrs)) {
    // AttributeProto {name 1, i 3, g 6, type 20 (INT 2, GRAPH 5)}
    const a = typeof v === 'number' ? [...bytes(1, name), ...int(3, v), ...int(20, 2)] : [...bytes(1, name), ...bytes(6, v), ...int(20, 5)];
    n.push(...bytes(5, a));
  }
  return n;
}

/// GraphProto {node 1, name 2, input 11, output 12}.
export const graph = (name, nodes, inputs, outputs) =>
  [...nodes.flatMap((n) => bytes(1, n)), ...bytes(2, name), ...inputs.flatMap((i) => bytes(11, i)), ...outputs.flatMap((o) => bytes(12, o))];

/// ModelProto {ir_version 1, graph 7, opset_import 8 {domain 1, version 2}} as a Uint8Array.
export const model = (g, opset) => Uint8Array.from([...int(1, 8), ...bytes(7, g), ...bytes(8, [...bytes(1, ''), ...int(2, opset)])]);

export const FLOAT = 1;
export const INT64 = 7;
export const BOOL = 9;
