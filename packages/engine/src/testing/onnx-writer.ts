/**
 * A dependency-free ONNX writer: hand-encodes the protobuf wire format for the subset of
 * `onnx.proto` that small test models need (ModelProto, GraphProto, NodeProto, AttributeProto,
 * TensorProto, ValueInfoProto, OperatorSetIdProto, StringStringEntryProto).
 *
 * Tests use it to write fixture models with the same tensor names and layouts as the real
 * checkpoints, so the model store and the inference code run their real paths on files the tests
 * made themselves (the hub is not reachable from CI).
 *
 * @example
 *   const bytes = encodeModel({
 *     graph: {
 *       name: 'double',
 *       inputs: [valueInfo('x', 'float32', ['batch', 4])],
 *       outputs: [valueInfo('y', 'float32', ['batch', 4])],
 *       initializers: [tensor('two', 'float32', [1], [2])],
 *       nodes: [node('Mul', ['x', 'two'], ['y'])],
 *     },
 *   });
 */
import { toHalf } from '../inference/tensors.js';

/** ONNX `TensorProto.DataType` values for the element types the writer supports. */
export const ONNX_DATA_TYPES = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
} as const;
export type OnnxElementType = keyof typeof ONNX_DATA_TYPES;

/** Tensor element data: numbers (converted per type), a typed array, or raw little-endian bytes. */
export type TensorData =
  readonly number[] | Float32Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint16Array;

export interface TensorSpec {
  name: string;
  type: OnnxElementType;
  dims: readonly number[];
  /** float16 data is given as IEEE half bit patterns (`Uint16Array`) or numbers (converted). */
  data: TensorData;
}

/** A dimension: a fixed size, or a symbolic name (`"batch"`). */
export type Dim = number | string;

export interface ValueInfoSpec {
  name: string;
  type: OnnxElementType;
  shape: readonly Dim[];
}

export type AttributeValue =
  | { int: number | bigint }
  | { float: number }
  | { string: string }
  | { ints: readonly (number | bigint)[] }
  | { floats: readonly number[] }
  | { tensor: TensorSpec };

export interface NodeSpec {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string;
  domain?: string;
  attributes?: Readonly<Record<string, AttributeValue>>;
}

export interface GraphSpec {
  name: string;
  nodes: readonly NodeSpec[];
  inputs: readonly ValueInfoSpec[];
  outputs: readonly ValueInfoSpec[];
  initializers?: readonly TensorSpec[];
  docString?: string;
}

export interface ModelSpec {
  graph: GraphSpec;
  /** Default opset 17 (default domain). */
  opset?: number;
  /** Default IR version 8. */
  irVersion?: number;
  producerName?: string;
  producerVersion?: string;
  docString?: string;
  metadata?: Readonly<Record<string, string>>;
}

// --- convenience constructors -------------------------------------------------------------------

export function tensor(
  name: string,
  type: OnnxElementType,
  dims: readonly number[],
  data: TensorData,
): TensorSpec {
  return { name, type, dims, data };
}

export function valueInfo(name: string, type: OnnxElementType, shape: readonly Dim[]): ValueInfoSpec {
  return { name, type, shape };
}

export function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attributes?: Readonly<Record<string, AttributeValue>>,
  name?: string,
): NodeSpec {
  return { opType, inputs, outputs, ...(attributes ? { attributes } : {}), ...(name ? { name } : {}) };
}

// --- protobuf wire format ------------------------------------------------------------------------

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const UTF8 = new TextEncoder();

/** Appends protobuf fields into growable chunks; `finish()` concatenates them. */
class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  private varint(value: bigint): void {
    // int64 fields: negative values are written as their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, value: number | bigint): this {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new RangeError(`protobuf int field ${field}: ${value} is not a safe integer`);
    }
    this.tag(field, WIRE_VARINT);
    this.varint(BigInt(value));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(BigInt(value.length));
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, UTF8.encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

// --- element data --------------------------------------------------------------------------------

/** IEEE 754 half-precision bit pattern of `value` (round to nearest even): the engine's `toHalf`. */
export const toFloat16Bits = toHalf;

function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) {
    if (!Number.isInteger(d) || d < 0) throw new RangeError(`tensor dim ${d} is not a non-negative integer`);
    n *= d;
  }
  return n;
}

/** Raw little-endian bytes of a tensor's elements, checked against its dims. */
export function rawTensorBytes(spec: TensorSpec): Uint8Array {
  const count = elementCount(spec.dims);
  const { data, type } = spec;
  if (data.length !== count) {
    throw new RangeError(
      `tensor ${spec.name}: ${data.length} values for dims [${spec.dims.join(',')}] (${count} expected)`,
    );
  }
  const size = { float32: 4, uint8: 1, int8: 1, int32: 4, int64: 8, bool: 1, float16: 2 }[type];
  const out = new Uint8Array(count * size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    const v = data[i] ?? 0;
    switch (type) {
      case 'float32':
        view.setFloat32(i * 4, Number(v), true);
        break;
      case 'float16':
        view.setUint16(i * 2, data instanceof Uint16Array ? Number(v) : toFloat16Bits(Number(v)), true);
        break;
      case 'int32':
        view.setInt32(i * 4, Number(v), true);
        break;
      case 'int64':
        view.setBigInt64(i * 8, typeof v === 'bigint' ? v : BigInt(Math.trunc(v)), true);
        break;
      case 'uint8':
      case 'bool':
        view.setUint8(i, Number(v));
        break;
      case 'int8':
        view.setInt8(i, Number(v));
        break;
    }
  }
  return out;
}

// --- messages ------------------------------------------------------------------------------------

function writeTensor(w: ProtoWriter, spec: TensorSpec): void {
  for (const d of spec.dims) w.int(1, d); // dims
  w.int(2, ONNX_DATA_TYPES[spec.type]); // data_type
  w.string(8, spec.name); // name
  w.bytes(9, rawTensorBytes(spec)); // raw_data
}

function writeValueInfo(w: ProtoWriter, spec: ValueInfoSpec): void {
  w.string(1, spec.name);
  w.message(2, (type) =>
    type.message(1, (t) => {
      t.int(1, ONNX_DATA_TYPES[spec.type]); // elem_type
      t.message(2, (shape) => {
        for (const d of spec.shape) {
          shape.message(1, (dim) => {
            if (typeof d === 'number') dim.int(1, d);
            else dim.string(2, d);
          });
        }
      });
    }),
  );
}

const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, tensor: 4, floats: 6, ints: 7 } as const;

function writeAttribute(w: ProtoWriter, name: string, value: AttributeValue): void {
  w.string(1, name);
  if ('int' in value) {
    w.int(3, value.int).int(20, ATTRIBUTE_TYPE.int);
  } else if ('float' in value) {
    w.float(2, value.float).int(20, ATTRIBUTE_TYPE.float);
  } else if ('string' in value) {
    w.string(4, value.string).int(20, ATTRIBUTE_TYPE.string);
  } else if ('ints' in value) {
    for (const v of value.ints) w.int(8, v);
    w.int(20, ATTRIBUTE_TYPE.ints);
  } else if ('floats' in value) {
    for (const v of value.floats) w.float(7, v);
    w.int(20, ATTRIBUTE_TYPE.floats);
  } else {
    const t = value.tensor;
    w.message(5, (m) => writeTensor(m, t)).int(20, ATTRIBUTE_TYPE.tensor);
  }
}

function writeNode(w: ProtoWriter, spec: NodeSpec, index: number): void {
  for (const i of spec.inputs) w.string(1, i);
  for (const o of spec.outputs) w.string(2, o);
  w.string(3, spec.name ?? `${spec.opType}_${index}`);
  w.string(4, spec.opType);
  for (const [name, value] of Object.entries(spec.attributes ?? {})) {
    w.message(5, (a) => writeAttribute(a, name, value));
  }
  if (spec.domain) w.string(7, spec.domain);
}

function checkGraph(graph: GraphSpec): void {
  const defined = new Set<string>([
    ...graph.inputs.map((v) => v.name),
    ...(graph.initializers ?? []).map((t) => t.name),
  ]);
  for (const n of graph.nodes) {
    for (const i of n.inputs) {
      if (i !== '' && !defined.has(i))
        throw new Error(`graph ${graph.name}: node ${n.opType} reads undefined tensor "${i}"`);
    }
    for (const o of n.outputs) defined.add(o);
  }
  for (const o of graph.outputs) {
    if (!defined.has(o.name)) throw new Error(`graph ${graph.name}: output "${o.name}" is never produced`);
  }
}

/** Serialises a model to ONNX protobuf bytes (a valid `.onnx` file). Nodes must be in topological order. */
export function encodeModel(spec: ModelSpec): Uint8Array {
  checkGraph(spec.graph);
  const w = new ProtoWriter();
  w.int(1, spec.irVersion ?? 8); // ir_version
  w.string(2, spec.producerName ?? 'vesta-onnx-writer');
  w.string(3, spec.producerVersion ?? '1');
  if (spec.docString) w.string(6, spec.docString);
  w.message(7, (g) => {
    const graph = spec.graph;
    graph.nodes.forEach((n, i) => g.message(1, (m) => writeNode(m, n, i)));
    g.string(2, graph.name);
    for (const t of graph.initializers ?? []) g.message(5, (m) => writeTensor(m, t));
    if (graph.docString) g.string(10, graph.docString);
    for (const v of graph.inputs) g.message(11, (m) => writeValueInfo(m, v));
    for (const v of graph.outputs) g.message(12, (m) => writeValueInfo(m, v));
  });
  w.message(8, (o) => o.string(1, '').int(2, spec.opset ?? 17)); // opset_import
  for (const [key, value] of Object.entries(spec.metadata ?? {})) {
    w.message(14, (m) => m.string(1, key).string(2, value));
  }
  return w.finish();
}
