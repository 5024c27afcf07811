#!/usr/bin/env node
// Usage: node interop/v2-write.mjs OUTDIR
//
// Writes a Zarr v2 hierarchy of fixture arrays under an empty/new OUTDIR,
// independently of zarr-direct, in two ways:
//
//  * writer "script": this script lays out .zarray and every chunk itself:
//    it pads edge chunks with the fill value, orders elements C or F, writes
//    each element in the dtype's byte order, applies the filters (shuffle and
//    delta are implemented below: numcodecs.js 0.3.2 has no filters) and
//    compresses with numcodecs.js 0.3.2 codecs (Zlib, GZip, Zstd, Blosc).
//  * writer "zarrita": this script writes only .zarray; zarrita 0.7.5 opens
//    the array with zarr.open.v2 and encodes the chunks with zarr.set. That
//    is zarrita's only way to write v2: zarr.create writes v3 metadata only,
//    and its gzip/zlib codecs cannot encode, so these fixtures use blosc,
//    zstd, shuffle and delta.
//
// OUTDIR/.zgroup is the root group; OUTDIR/.zattrs lists every fixture with
// the SHA-256 expected from its formula (checksum rule in lib.mjs), computed
// without reading anything back. OUTDIR/.zmetadata consolidates the whole
// hierarchy as zarr-python 2 does.
//
// Content: i is the C-order flat index of an element in the WHOLE array;
// the value is f(i) from the table in FIXTURES; elements of regions never
// written hold the fill value.
//
// numcodecs.js Blosc quirks (0.3.2): its typesize is fixed at 4 whatever the
// dtype (the header says 4 for int16 and float64 too), and its shuffle must
// be the integer 0/1/2 (a word such as "shuffle" silently gives no shuffle).

import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import Zlib from "numcodecs/zlib";
import GZip from "numcodecs/gzip";
import Zstd from "numcodecs/zstd";
import Blosc from "numcodecs/blosc";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: node v2-write.mjs OUTDIR\n");
  process.exit(2);
}
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  process.stderr.write(`refusing to write into non-empty ${out}\n`);
  process.exit(1);
}
fs.mkdirSync(out, { recursive: true });

const size = (shape) => shape.reduce((a, b) => a * b, 1);
function unravel(i, shape) {
  const idx = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    idx[d] = i % shape[d];
    i = Math.floor(i / shape[d]);
  }
  return idx;
}
function flatC(idx, shape) {
  let i = 0;
  for (let d = 0; d < shape.length; d++) i = i * shape[d] + idx[d];
  return i;
}

// NumPy type strings: kind and width; byte order comes from the prefix.
const TYPES = {
  b1: { name: "bool", w: 1 }, i1: { name: "int8", w: 1 }, u1: { name: "uint8", w: 1 },
  i2: { name: "int16", w: 2 }, u2: { name: "uint16", w: 2 }, i4: { name: "int32", w: 4 },
  u4: { name: "uint32", w: 4 }, i8: { name: "int64", w: 8 }, u8: { name: "uint64", w: 8 },
  f4: { name: "float32", w: 4 }, f8: { name: "float64", w: 8 },
};
const WIDTH = Object.fromEntries(Object.values(TYPES).map((t) => [t.name, t.w]));
function parseDtype(typestr) {
  const t = TYPES[typestr.slice(1)];
  if (!t) throw new Error(`no rule for dtype ${typestr}`);
  return { ...t, little: typestr[0] !== ">" };
}

/** Bytes of one value in the given width and byte order. */
function valueBytes(name, v, little) {
  const dv = new DataView(new ArrayBuffer(8));
  switch (name) {
    case "bool": dv.setUint8(0, v ? 1 : 0); break;
    case "int8": dv.setInt8(0, v); break;
    case "uint8": dv.setUint8(0, v); break;
    case "int16": dv.setInt16(0, v, little); break;
    case "uint16": dv.setUint16(0, v, little); break;
    case "int32": dv.setInt32(0, v, little); break;
    case "uint32": dv.setUint32(0, v, little); break;
    case "float32": dv.setFloat32(0, v, little); break;
    case "int64": dv.setBigInt64(0, BigInt(v), little); break;
    case "uint64": dv.setBigUint64(0, BigInt(v), little); break;
    case "float64": dv.setFloat64(0, v, little); break;
    default: throw new Error(name);
  }
  return new Uint8Array(dv.buffer, 0, WIDTH[name]);
}

// --- filters, as numcodecs defines them -----------------------------------

/** numcodecs Shuffle(elementsize): byte k of every element, then byte k+1 ... */
function shuffle(bytes, elementsize) {
  const n = Math.floor(bytes.length / elementsize);
  const outb = new Uint8Array(bytes.length);
  for (let k = 0; k < elementsize; k++) {
    for (let i = 0; i < n; i++) outb[k * n + i] = bytes[i * elementsize + k];
  }
  outb.set(bytes.subarray(n * elementsize), n * elementsize); // trailing bytes stay
  return outb;
}

/** numcodecs Delta(dtype) on integer values in storage order, wrapping like NumPy. */
function delta(values, name) {
  const bits = WIDTH[name] * 8;
  const signed = name.startsWith("int");
  const wrap = (x) => (signed ? BigInt.asIntN(bits, x) : BigInt.asUintN(bits, x));
  const big = values.map((v) => BigInt(v));
  const outv = big.map((v, k) => (k === 0 ? v : wrap(v - big[k - 1])));
  return name === "int64" || name === "uint64" ? outv : outv.map(Number);
}

async function compress(compressor, bytes) {
  if (compressor === null) return bytes;
  const { id, ...cfg } = compressor;
  const codec = { zlib: Zlib, gzip: GZip, zstd: Zstd, blosc: Blosc }[id];
  if (!codec) throw new Error(`no encoder for compressor ${id}`);
  return new Uint8Array(await codec.fromConfig(cfg).encode(bytes));
}

// --- fixtures ---------------------------------------------------------------

const zlib5 = { id: "zlib", level: 5 };
const gzip5 = { id: "gzip", level: 5 };
const zstd3 = { id: "zstd", level: 3 };
const blosc = (cname, shuffle, clevel = 5) => ({ id: "blosc", cname, clevel, shuffle, blocksize: 0 });

// regions: per-dimension [start, stop) written with f(i); the rest is never written.
const FIXTURES = [
  { name: "int32_c_zlib", dtype: "<i4", shape: [7, 5], chunks: [3, 2], order: "C",
    compressor: zlib5, fill: 0, f: (i) => (i - 17) * 123457 },
  { name: "float64_f_gzip_big", dtype: ">f8", shape: [13, 17], chunks: [5, 5], order: "F",
    compressor: gzip5, fill: 0, f: (i) => i / 3 - 7 },
  { name: "float32_c_zstd", dtype: "<f4", shape: [10, 20, 30], chunks: [4, 8, 16], order: "C",
    compressor: zstd3, fill: 0, f: (i) => (i % 1000) * 0.5 - 123.25 },
  { name: "uint16_f_zstd_big_slash", dtype: ">u2", shape: [6, 9, 4], chunks: [4, 4, 3], order: "F",
    compressor: zstd3, fill: 0, separator: "/", f: (i) => (i * 1021 + 7) % 65536 },
  { name: "float32_blosc_lz4_shuffle", dtype: "<f4", shape: [40, 50], chunks: [16, 32], order: "C",
    compressor: blosc("lz4", 1), fill: 0, f: (i) => Math.sin(i / 40) * 100 },
  { name: "float64_f_blosc_zstd_bitshuffle", dtype: "<f8", shape: [20, 30], chunks: [8, 16], order: "F",
    compressor: blosc("zstd", 2, 3), fill: 0, f: (i) => Math.cos(i / 25) * 1e3 + i },
  { name: "int16_blosc_blosclz_noshuffle_big", dtype: ">i2", shape: [33, 21], chunks: [10, 10], order: "C",
    compressor: blosc("blosclz", 0, 9), fill: 0, f: (i) => ((i * 37) % 65536) - 32768 },
  { name: "uint8_f_blosc_zlib_shuffle", dtype: "|u1", shape: [30, 40], chunks: [16, 16], order: "F",
    compressor: blosc("zlib", 1), fill: 0, f: (i) => (i * 29) % 256 },
  { name: "int64_blosc_lz4hc_shuffle", dtype: "<i8", shape: [50], chunks: [16], order: "C",
    compressor: blosc("lz4hc", 1, 9), fill: 0, f: (i) => BigInt(i - 25) * 1000000000007n },
  { name: "uint32_f_big_shuffle_zlib", dtype: ">u4", shape: [12, 10], chunks: [5, 4], order: "F",
    filters: [{ id: "shuffle", elementsize: 4 }], compressor: zlib5, fill: 0,
    f: (i) => (4294967295 - i * 100000007) >>> 0 },
  { name: "int32_delta_zstd", dtype: "<i4", shape: [40, 30], chunks: [16, 16], order: "C",
    filters: [{ id: "delta", dtype: "<i4" }], compressor: zstd3, fill: 0, f: (i) => i * 3 + ((i * 7) % 11) },
  { name: "int16_f_big_delta_shuffle_gzip", dtype: ">i2", shape: [17, 13], chunks: [8, 8], order: "F",
    filters: [{ id: "delta", dtype: ">i2" }, { id: "shuffle", elementsize: 2 }], compressor: gzip5, fill: 0,
    f: (i) => ((i * i) % 65536) - 32768 },
  { name: "int8_missing_raw", dtype: "|i1", shape: [8, 8], chunks: [4, 4], order: "C",
    compressor: null, fill: 7, f: (i) => i - 64, regions: [[[4, 8], [0, 4]]] },
  { name: "float32_nan_fill_zlib", dtype: "<f4", shape: [5, 5], chunks: [2, 2], order: "C",
    compressor: zlib5, fill: "NaN", f: (i) => i + 0.5, regions: [[[0, 2], [0, 2]], [[4, 5], [2, 4]]] },
  { name: "bool_zstd", dtype: "|b1", shape: [9, 7], chunks: [4, 4], order: "C",
    compressor: zstd3, fill: false, f: (i) => i % 3 === 0 },
  { name: "float64_null_fill_dims", dtype: "<f8", shape: [6, 4], chunks: [4, 4], order: "C",
    compressor: zstd3, fill: null, dims: ["lat", "lon"], f: (i) => i * 0.125 },
  { name: "sub/int32_nested", dtype: "<i4", shape: [5, 6], chunks: [5, 6], order: "C",
    compressor: gzip5, fill: 0, f: (i) => i * i },
  { name: "float64_scalar", dtype: "<f8", shape: [], chunks: [], order: "C",
    compressor: zlib5, fill: 0, f: () => 3.5 },
  // Chunks encoded by zarrita (zarr.open.v2 + zarr.set); .zarray from here.
  { name: "zarrita_float32_f_big_blosc", writer: "zarrita", dtype: ">f4", shape: [30, 20], chunks: [16, 8],
    order: "F", compressor: blosc("lz4", 1), fill: 0, f: (i) => Math.fround(i * 0.75 - 40) },
  { name: "zarrita_uint16_shuffle_zstd", writer: "zarrita", dtype: "<u2", shape: [25, 9], chunks: [8, 4],
    order: "C", filters: [{ id: "shuffle", elementsize: 2 }], compressor: zstd3, fill: 0,
    f: (i) => (i * 911) % 65536 },
  { name: "zarrita_int32_f_delta_blosc_zstd", writer: "zarrita", dtype: "<i4", shape: [14, 11], chunks: [6, 5],
    order: "F", filters: [{ id: "delta", dtype: "<i4" }], compressor: blosc("zstd", 2, 5), fill: 0,
    f: (i) => i * 1000 - 77 },
];

function inRegion(idx, region) {
  return region.every(([a, b], d) => idx[d] >= a && idx[d] < b);
}

/** The stored value of element with flat C index i, or the fill (null fill reads as 0). */
function logicalValue(fx, i) {
  const t = parseDtype(fx.dtype);
  const fill = fx.fill === "NaN" ? NaN : fx.fill === null ? (t.name === "bool" ? false : 0) : fx.fill;
  if (!fx.regions) return fx.f(i);
  const idx = unravel(i, fx.shape);
  return fx.regions.some((r) => inRegion(idx, r)) ? fx.f(i) : fill;
}

function expectedSha256(fx) {
  const t = parseDtype(fx.dtype);
  const h = createHash("sha256");
  for (let i = 0; i < size(fx.shape); i++) h.update(valueBytes(t.name, logicalValue(fx, i), true));
  return h.digest("hex");
}

function zarray(fx) {
  const doc = {
    chunks: fx.chunks,
    compressor: fx.compressor,
    dtype: fx.dtype,
    fill_value: fx.fill,
    filters: fx.filters ?? null,
    order: fx.order,
    shape: fx.shape,
    zarr_format: 2,
  };
  if (fx.separator) doc.dimension_separator = fx.separator;
  return doc;
}

/** Encodes the chunk at grid index `cidx`; null when no written region touches it. */
async function encodeChunk(fx, cidx) {
  const t = parseDtype(fx.dtype);
  const rank = fx.shape.length;
  const lo = cidx.map((c, d) => c * fx.chunks[d]);
  const hi = lo.map((l, d) => Math.min(l + fx.chunks[d], fx.shape[d]));
  if (fx.regions && !fx.regions.some((r) => r.every(([a, b], d) => a < hi[d] && b > lo[d]))) return null;
  const n = size(fx.chunks);
  const fillValue = fx.fill === "NaN" ? NaN : fx.fill === null ? 0 : fx.fill;
  // Values in storage order: C (last index fastest) or F (first index fastest).
  const values = new Array(n);
  for (let k = 0; k < n; k++) {
    const local = new Array(rank);
    let r = k;
    const dims = fx.order === "C" ? [...Array(rank).keys()].reverse() : [...Array(rank).keys()];
    for (const d of dims) {
      local[d] = r % fx.chunks[d];
      r = Math.floor(r / fx.chunks[d]);
    }
    const g = local.map((x, d) => x + lo[d]);
    const inside = g.every((x, d) => x < fx.shape[d]);
    values[k] = inside ? logicalValue(fx, flatC(g, fx.shape)) : fillValue;
  }
  let vals = values;
  let bytes = null;
  for (const f of fx.filters ?? []) {
    if (f.id === "delta") {
      if (bytes !== null) throw new Error("delta after shuffle is not written here");
      vals = delta(vals, t.name);
    } else if (f.id === "shuffle") {
      if (bytes === null) bytes = toBytes(vals, t);
      bytes = shuffle(bytes, f.elementsize);
    } else {
      throw new Error(`no filter ${f.id}`);
    }
  }
  if (bytes === null) bytes = toBytes(vals, t);
  return compress(fx.compressor, bytes);
}

function toBytes(vals, t) {
  const b = new Uint8Array(vals.length * t.w);
  vals.forEach((v, k) => b.set(valueBytes(t.name, v, t.little), k * t.w));
  return b;
}

function gridIndices(fx) {
  const grid = fx.shape.map((s, d) => Math.ceil(s / fx.chunks[d]));
  const total = size(grid);
  return Array.from({ length: total }, (_, k) => unravel(k, grid));
}

/** zarrita writes the chunks: the values of each region as a C-ordered typed array. */
async function writeWithZarrita(fx, dir) {
  const store = new FileSystemStore(path.resolve(dir));
  const arr = await zarr.open.v2(store, { kind: "array" });
  const t = parseDtype(fx.dtype);
  const Ctr = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint16: Uint16Array }[t.name];
  const region = fx.shape.map((s) => [0, s]);
  const data = new Ctr(size(fx.shape));
  for (let i = 0; i < data.length; i++) data[i] = fx.f(i);
  const stride = fx.shape.map((_, d) => size(fx.shape.slice(d + 1)));
  await zarr.set(arr, region.map(([a, b]) => zarr.slice(a, b)), { data, shape: fx.shape, stride });
}

const summary = {};
const consolidated = { ".zgroup": { zarr_format: 2 } };
fs.writeFileSync(path.join(out, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
for (const fx of FIXTURES) {
  const dir = path.join(out, ...fx.name.split("/"));
  fs.mkdirSync(dir, { recursive: true });
  const parent = fx.name.includes("/") ? fx.name.slice(0, fx.name.lastIndexOf("/")) : null;
  if (parent && !consolidated[`${parent}/.zgroup`]) {
    fs.writeFileSync(path.join(out, parent, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
    consolidated[`${parent}/.zgroup`] = { zarr_format: 2 };
  }
  const doc = zarray(fx);
  fs.writeFileSync(path.join(dir, ".zarray"), JSON.stringify(doc, null, 4));
  consolidated[`${fx.name}/.zarray`] = doc;
  if (fx.dims) {
    const attrs = { _ARRAY_DIMENSIONS: fx.dims };
    fs.writeFileSync(path.join(dir, ".zattrs"), JSON.stringify(attrs));
    consolidated[`${fx.name}/.zattrs`] = attrs;
  }
  if (fx.writer === "zarrita") {
    await writeWithZarrita(fx, dir);
  } else {
    for (const cidx of gridIndices(fx)) {
      const bytes = await encodeChunk(fx, cidx);
      if (bytes === null) continue;
      const key = cidx.length === 0 ? "0" : cidx.join(fx.separator ?? ".");
      const file = path.join(dir, ...key.split("/"));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
    }
  }
  summary[fx.name] = {
    dtype: fx.dtype,
    order: fx.order,
    shape: fx.shape,
    writer: fx.writer ?? "script",
    compressor: fx.compressor?.id ?? null,
    filters: (fx.filters ?? []).map((f) => f.id),
    expected_sha256: expectedSha256(fx),
  };
  process.stdout.write(`wrote ${fx.name}\n`);
}
const rootAttrs = {
  writer: "interop/v2-write.mjs (numcodecs.js 0.3.2 codecs; zarrita 0.7.5 for zarrita_* chunks)",
  checksum_rule: "sha256 over all elements in C order, little-endian, bool as 1 byte",
  fixtures: summary,
};
fs.writeFileSync(path.join(out, ".zattrs"), JSON.stringify(rootAttrs, null, 2));
consolidated[".zattrs"] = rootAttrs;
fs.writeFileSync(path.join(out, ".zmetadata"),
  JSON.stringify({ metadata: consolidated, zarr_consolidated_format: 1 }, null, 4));
process.stdout.write(`wrote group ${out}\n`);
