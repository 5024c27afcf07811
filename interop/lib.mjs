// Shared helpers for the zarrita interop scripts.
//
// Checksum definition (must match the Java side):
//   SHA-256 over every element of the whole array, visited in C order
//   (last index fastest), each element written little-endian with its
//   natural width (int8/uint8: 1 byte, int16/uint16/float16: 2,
//   int32/uint32/float32: 4, int64/uint64/float64: 8). bool is one byte
//   0 or 1. complex would be real then imaginary, but zarrita 0.7.5 has no
//   complex data types, so such arrays are reported as unreadable.
//   NaN values are hashed with the exact bits zarrita decoded (no
//   canonicalisation); fill values come from zarr.json ("NaN" -> the JS NaN,
//   0x7ff8000000000000 / 0x7fc00000).

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const WIDTH = {
  bool: 1, int8: 1, uint8: 1,
  int16: 2, uint16: 2, float16: 2,
  int32: 4, uint32: 4, float32: 4,
  int64: 8, uint64: 8, float64: 8,
};

/**
 * Opens the array in directory `dir`: Zarr v3 when it holds a zarr.json,
 * else Zarr v2 (a .zarray, with .zattrs if present).
 */
export async function openArray(dir) {
  const store = new FileSystemStore(path.resolve(dir));
  if (!fs.existsSync(path.join(dir, "zarr.json")) && fs.existsSync(path.join(dir, ".zarray"))) {
    return zarr.open.v2(store, { kind: "array" });
  }
  return zarr.open.v3(store, { kind: "array" });
}

/** Number of elements of a shape. */
function size(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

/** Little-endian bytes of one element. */
function elementWriter(dtype) {
  const w = WIDTH[dtype];
  if (w === undefined) throw new Error(`no checksum rule for data type ${dtype}`);
  const buf = new ArrayBuffer(8);
  const dv = new DataView(buf);
  const out = new Uint8Array(buf, 0, w);
  const set = {
    bool: (v) => dv.setUint8(0, v ? 1 : 0),
    int8: (v) => dv.setInt8(0, v),
    uint8: (v) => dv.setUint8(0, v),
    int16: (v) => dv.setInt16(0, v, true),
    uint16: (v) => dv.setUint16(0, v, true),
    float16: (v) => dv.setFloat16(0, v, true),
    int32: (v) => dv.setInt32(0, v, true),
    uint32: (v) => dv.setUint32(0, v, true),
    float32: (v) => dv.setFloat32(0, v, true),
    int64: (v) => dv.setBigInt64(0, v, true),
    uint64: (v) => dv.setBigUint64(0, v, true),
    float64: (v) => dv.setFloat64(0, v, true),
  }[dtype];
  return (v) => { set(v); return out; };
}

/**
 * Bytes of the array in C order, little-endian, given the strided chunk
 * zarrita's get() returns (its strides follow the array's transpose order).
 */
function cOrderBytes(dtype, data, shape, stride) {
  const n = size(shape);
  const w = WIDTH[dtype];
  const out = new Uint8Array(n * w);
  const isBool = dtype === "bool";
  // For floats read the raw bits so NaN payloads survive untouched.
  let raw = null;
  if (!isBool && data.buffer) {
    raw = new Uint8Array(data.buffer, data.byteOffset, data.length * w);
  }
  const littleHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const write = elementWriter(dtype);
  const rank = shape.length;
  const idx = new Array(rank).fill(0);
  let src = 0; // linear element offset into data, from strides
  for (let k = 0; k < n; k++) {
    if (isBool) {
      out[k] = data.get(src) ? 1 : 0;
    } else if (raw && littleHost) {
      const o = src * w;
      for (let b = 0; b < w; b++) out[k * w + b] = raw[o + b];
    } else {
      out.set(write(data[src]), k * w);
    }
    // advance the C-order multi-index, last dimension fastest
    for (let d = rank - 1; d >= 0; d--) {
      idx[d]++;
      src += stride[d];
      if (idx[d] < shape[d]) break;
      src -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

/**
 * Reads the whole array at `dir` with zarrita and returns
 * { hex, shape, dtype }. Throws when zarrita cannot read it.
 */
export async function checksumArray(dir) {
  const arr = await openArray(dir);
  const dtype = arr.dtype;
  if (WIDTH[dtype] === undefined) {
    throw new Error(`unsupported data type for checksum: ${dtype}`);
  }
  const shape = arr.shape.slice();
  const hash = createHash("sha256");
  if (shape.length === 0) {
    const v = await zarr.get(arr);
    hash.update(elementWriter(dtype)(v));
  } else if (size(shape) > 0) {
    const res = await zarr.get(arr);
    hash.update(cOrderBytes(dtype, res.data, res.shape, res.stride));
  }
  return { hex: hash.digest("hex"), shape, dtype };
}

/** One-line description of an error, including zarrita's cause chain. */
export function describeError(err) {
  const parts = [];
  let e = err;
  for (let i = 0; e && i < 5; i++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(" <- ").replace(/\s+/g, " ");
}
