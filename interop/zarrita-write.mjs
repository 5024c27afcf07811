#!/usr/bin/env node
// Usage: node interop/zarrita-write.mjs OUTDIR [core|blosc]
//
// The second argument picks the fixture set (default core): "core" is the
// table below, "blosc" the BLOSC_FIXTURES table further down (v3 blosc codec,
// encoded by numcodecs.js 0.3.2 Blosc through zarrita's pipeline).
//
// Writes a Zarr v3 hierarchy of fixture arrays with zarrita 0.7.5 onto the
// filesystem (@zarrita/storage FileSystemStore). OUTDIR must not exist or be
// empty. OUTDIR/zarr.json is a group whose attributes list every fixture with
// its description and the SHA-256 expected from the formulas below (same rule
// as zarrita-checksum.mjs, see lib.mjs), computed here without reading back.
//
// Content: i is the C-order flat index of an element in the WHOLE array
// (i = sum(idx[d] * prod(shape[d+1..]))). Elements that are never written hold
// the fill value.
//
//   int32_plain            [7,5]     chunks [3,2]   bytes(little)
//                          v = (i - 17) * 123457
//   float32_zstd           [10,20,30] chunks [4,8,16] bytes(little) + zstd(level 3)
//                          v = (i % 1000) * 0.5 - 123.25
//   float64_gzip           [13,17]   chunks [5,5]   bytes(little) + gzip(level 5)
//                          v = i / 3 - 7   (IEEE double division)
//   uint16_big_transpose   [6,9]     chunks [4,4]   transpose [1,0] + bytes(big)
//                          v = i * 1021 + 7
//   int16_transpose3d      [3,4,5]   chunks [2,3,2] transpose [2,0,1] + bytes(little)
//                          v = i * 311 - 9000
//   int8_missing           [8,8]     chunks [4,4]   fill 7; only chunk (1,0) written
//                          v = i - 64 for rows 4..7, cols 0..3, else 7
//   float32_nan_fill       [5,5]     chunks [2,2]   fill "NaN"; chunk (0,0) fully and
//                          row 4 cols 2..3 (edge chunk (2,1)) written, v = i + 0.5, else NaN
//   float64_neginf_fill    [4,4]     chunks [2,2]   fill "-Infinity"; chunk (1,1) written
//                          v = i * 0.125 there, else -Infinity
//   bool_plain             [5,7]     chunks [2,3]   fill false; v = (i % 3 == 0)
//   uint8_1d               [9]       chunks [4]     fill 255; v = (i * 29) % 256
//   uint32_zstd            [6,5]     chunks [4,4]   zstd; v = 4294967295 - i * 100000007
//   uint64_plain           [4,6]     chunks [3,4]   v = 2^64 - 1 - i * 81985529216486895
//   int64_dimnames         [3,4]     chunks [2,2]   dimension_names ["y","x"], fill -1
//                          v = (i - 6) * 1000000000007
//   int32_dotkeys          [4,4]     chunks [2,2]   chunk key separator "."; v = i
//   float64_scalar         []        chunks []      v = 3.5
//
// Not written (zarrita 0.7.5 limits): sharding_indexed (zarr.set throws
// "set on sharded arrays"), float16 (needs globalThis.Float16Array, absent in
// Node 20), complex types (not supported), crc32c/zlib encode (unimplemented).
// gzip: zarrita's own gzip codec can only decode; this script registers a
// wrapper around it whose encode is node:zlib gzipSync (decode stays zarrita's).

import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { createHash } from "node:crypto";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const out = process.argv[2];
const set = process.argv[3] ?? "core";
if (!out || !["core", "blosc"].includes(set)) {
  process.stderr.write("usage: node zarrita-write.mjs OUTDIR [core|blosc]\n");
  process.exit(2);
}
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  process.stderr.write(`refusing to write into non-empty ${out}\n`);
  process.exit(1);
}
fs.mkdirSync(out, { recursive: true });

// --- gzip encoder for zarrita (see header) ---------------------------------
{
  const loadGzip = zarr.registry.get("gzip");
  zarr.registry.set("gzip", async () => {
    const Base = await loadGzip();
    return {
      kind: "bytes_to_bytes",
      fromConfig(config, meta) {
        const codec = Base.fromConfig(config, meta);
        const level = config?.level ?? 6;
        codec.encode = async (bytes) => new Uint8Array(zlib.gzipSync(bytes, { level }));
        return codec;
      },
    };
  });
}

// --- blosc shuffle words for numcodecs.js ------------------------------------
// The v3 blosc codec names its shuffle "noshuffle" | "shuffle" | "bitshuffle";
// numcodecs.js 0.3.2 Blosc wants 0 | 1 | 2 and, given a word, silently writes
// unshuffled blocks. This wrapper translates the word for encoding (decoding
// reads the shuffle from each buffer's header, so it is left alone). The
// typesize cannot be passed on: numcodecs.js always writes typesize 4.
{
  const loadBlosc = zarr.registry.get("blosc");
  const SHUFFLE = { noshuffle: 0, shuffle: 1, bitshuffle: 2 };
  zarr.registry.set("blosc", async () => {
    const Base = await loadBlosc();
    return {
      fromConfig(config, meta) {
        const shuffle = SHUFFLE[config?.shuffle] ?? config?.shuffle;
        return Base.fromConfig({ ...config, shuffle }, meta);
      },
    };
  });
}

const size = (shape) => shape.reduce((a, b) => a * b, 1);
function cStrides(shape) {
  const s = new Array(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = step;
    step *= shape[d];
  }
  return s;
}
function unravel(i, shape) {
  const idx = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    idx[d] = i % shape[d];
    i = Math.floor(i / shape[d]);
  }
  return idx;
}

const TYPED = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, float32: Float32Array, float64: Float64Array,
  bool: zarr.BoolArray,
};
const WIDTH = { bool: 1, int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4,
  uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8 };

/** Little-endian bytes of one value, for the expected checksum. */
function leBytes(dtype, v) {
  const dv = new DataView(new ArrayBuffer(8));
  switch (dtype) {
    case "bool": dv.setUint8(0, v ? 1 : 0); break;
    case "int8": dv.setInt8(0, v); break;
    case "uint8": dv.setUint8(0, v); break;
    case "int16": dv.setInt16(0, v, true); break;
    case "uint16": dv.setUint16(0, v, true); break;
    case "int32": dv.setInt32(0, v, true); break;
    case "uint32": dv.setUint32(0, v, true); break;
    case "float32": dv.setFloat32(0, v, true); break;
    case "int64": dv.setBigInt64(0, v, true); break;
    case "uint64": dv.setBigUint64(0, v, true); break;
    case "float64": dv.setFloat64(0, v, true); break;
    default: throw new Error(dtype);
  }
  return new Uint8Array(dv.buffer, 0, WIDTH[dtype]);
}

const bytesLE = { name: "bytes", configuration: { endian: "little" } };
const bytesBE = { name: "bytes", configuration: { endian: "big" } };
const zstd = { name: "zstd", configuration: { level: 3, checksum: false } };
const gzip = { name: "gzip", configuration: { level: 5 } };

// region: per-dimension [start, stop) written with f(i); everything else fill.
const FIXTURES = [
  { name: "int32_plain", dtype: "int32", shape: [7, 5], chunks: [3, 2],
    codecs: [bytesLE], fill: 0, f: (i) => (i - 17) * 123457 },
  { name: "float32_zstd", dtype: "float32", shape: [10, 20, 30], chunks: [4, 8, 16],
    codecs: [bytesLE, zstd], fill: 0, f: (i) => (i % 1000) * 0.5 - 123.25 },
  { name: "float64_gzip", dtype: "float64", shape: [13, 17], chunks: [5, 5],
    codecs: [bytesLE, gzip], fill: 0, f: (i) => i / 3 - 7 },
  { name: "uint16_big_transpose", dtype: "uint16", shape: [6, 9], chunks: [4, 4],
    codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, bytesBE],
    fill: 0, f: (i) => i * 1021 + 7 },
  { name: "int16_transpose3d", dtype: "int16", shape: [3, 4, 5], chunks: [2, 3, 2],
    codecs: [{ name: "transpose", configuration: { order: [2, 0, 1] } }, bytesLE],
    fill: 0, f: (i) => i * 311 - 9000 },
  { name: "int8_missing", dtype: "int8", shape: [8, 8], chunks: [4, 4],
    codecs: [bytesLE], fill: 7, f: (i) => i - 64, regions: [[[4, 8], [0, 4]]] },
  { name: "float32_nan_fill", dtype: "float32", shape: [5, 5], chunks: [2, 2],
    codecs: [bytesLE], fill: NaN, f: (i) => i + 0.5,
    regions: [[[0, 2], [0, 2]], [[4, 5], [2, 4]]] },
  { name: "float64_neginf_fill", dtype: "float64", shape: [4, 4], chunks: [2, 2],
    codecs: [bytesLE], fill: -Infinity, f: (i) => i * 0.125,
    regions: [[[2, 4], [2, 4]]] },
  { name: "bool_plain", dtype: "bool", shape: [5, 7], chunks: [2, 3],
    codecs: [bytesLE], fill: false, f: (i) => i % 3 === 0 },
  { name: "uint8_1d", dtype: "uint8", shape: [9], chunks: [4],
    codecs: [bytesLE], fill: 255, f: (i) => (i * 29) % 256 },
  { name: "uint32_zstd", dtype: "uint32", shape: [6, 5], chunks: [4, 4],
    codecs: [bytesLE, zstd], fill: 0, f: (i) => 4294967295 - i * 100000007 },
  { name: "uint64_plain", dtype: "uint64", shape: [4, 6], chunks: [3, 4],
    codecs: [bytesLE], fill: 0,
    f: (i) => 18446744073709551615n - BigInt(i) * 81985529216486895n },
  // fill_value is given as a JS number: zarrita's JSON writer cannot
  // serialise a BigInt, and its reader converts the number to BigInt.
  { name: "int64_dimnames", dtype: "int64", shape: [3, 4], chunks: [2, 2],
    codecs: [bytesLE], fill: -1, dimensionNames: ["y", "x"],
    f: (i) => BigInt(i - 6) * 1000000000007n },
  { name: "int32_dotkeys", dtype: "int32", shape: [4, 4], chunks: [2, 2],
    codecs: [bytesLE], fill: 0, separator: ".", f: (i) => i },
  { name: "float64_scalar", dtype: "float64", shape: [], chunks: [],
    codecs: [bytesLE], fill: 0, f: () => 3.5 },
];

// Blosc (v3 "blosc" codec); typesize as the spec asks: the element size.
const blosc = (cname, shuffle, typesize, clevel = 5) =>
  ({ name: "blosc", configuration: { cname, clevel, shuffle, typesize, blocksize: 0 } });
const BLOSC_FIXTURES = [
  { name: "float32_lz4_shuffle", dtype: "float32", shape: [40, 50], chunks: [16, 32],
    codecs: [bytesLE, blosc("lz4", "shuffle", 4)], fill: 0, f: (i) => Math.sin(i / 40) * 100 },
  { name: "float64_zstd_bitshuffle", dtype: "float64", shape: [20, 30], chunks: [8, 16],
    codecs: [bytesLE, blosc("zstd", "bitshuffle", 8, 3)], fill: 0, f: (i) => Math.cos(i / 25) * 1e3 + i },
  { name: "int16_blosclz_noshuffle", dtype: "int16", shape: [33, 21], chunks: [10, 10],
    codecs: [bytesLE, blosc("blosclz", "noshuffle", 2, 9)], fill: 0, f: (i) => ((i * 37) % 65536) - 32768 },
  { name: "uint8_zlib_shuffle", dtype: "uint8", shape: [30, 40], chunks: [16, 16],
    codecs: [bytesLE, blosc("zlib", "shuffle", 1)], fill: 0, f: (i) => (i * 29) % 256 },
  { name: "int64_lz4hc_shuffle", dtype: "int64", shape: [50], chunks: [16],
    codecs: [bytesLE, blosc("lz4hc", "shuffle", 8, 9)], fill: 0, f: (i) => BigInt(i - 25) * 1000000000007n },
  { name: "uint32_big_transpose_lz4", dtype: "uint32", shape: [12, 10], chunks: [5, 4],
    codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, bytesBE, blosc("lz4", "shuffle", 4)],
    fill: 0, f: (i) => (4294967295 - i * 100000007) >>> 0 },
  { name: "float32_missing_zstd", dtype: "float32", shape: [8, 8], chunks: [4, 4],
    codecs: [bytesLE, blosc("zstd", "shuffle", 4)], fill: -1.5, f: (i) => i * 0.25,
    regions: [[[4, 8], [0, 4]]] },
];

function inRegion(idx, region) {
  return region.every(([a, b], d) => idx[d] >= a && idx[d] < b);
}

function logicalValue(fx, i) {
  const fillOf = () =>
    fx.dtype === "int64" || fx.dtype === "uint64" ? BigInt(fx.fill) : fx.fill;
  if (!fx.regions) return fx.f(i);
  const idx = unravel(i, fx.shape);
  return fx.regions.some((r) => inRegion(idx, r)) ? fx.f(i) : fillOf();
}

function expectedSha256(fx) {
  const h = createHash("sha256");
  for (let i = 0; i < size(fx.shape); i++) h.update(leBytes(fx.dtype, logicalValue(fx, i)));
  return h.digest("hex");
}

/** A C-ordered chunk holding f(i) for the sub-box `region` of the array. */
function regionChunk(fx, region) {
  const shape = region.map(([a, b]) => b - a);
  const n = size(shape);
  const data = new TYPED[fx.dtype](n);
  const full = cStrides(fx.shape);
  for (let k = 0; k < n; k++) {
    const local = unravel(k, shape);
    const i = local.reduce((acc, x, d) => acc + (x + region[d][0]) * full[d], 0);
    if (data instanceof zarr.BoolArray) data.set(k, fx.f(i));
    else data[k] = fx.f(i);
  }
  return { data, shape, stride: cStrides(shape) };
}

const store = new FileSystemStore(path.resolve(out));
const root = zarr.root(store);
const summary = {};

for (const fx of set === "blosc" ? BLOSC_FIXTURES : FIXTURES) {
  const arr = await zarr.create(root.resolve(fx.name), {
    shape: fx.shape,
    chunkShape: fx.chunks,
    dtype: fx.dtype,
    codecs: fx.codecs,
    fillValue: fx.fill,
    chunkSeparator: fx.separator ?? "/",
    dimensionNames: fx.dimensionNames,
    attributes: { fixture: fx.name },
  });
  if (fx.shape.length === 0) {
    await zarr.set(arr, null, fx.f(0));
  } else {
    const regions = fx.regions ?? [fx.shape.map((s) => [0, s])];
    for (const region of regions) {
      const sel = region.map(([a, b]) => zarr.slice(a, b));
      await zarr.set(arr, sel, regionChunk(fx, region));
    }
  }
  summary[fx.name] = {
    data_type: fx.dtype,
    shape: fx.shape,
    codecs: fx.codecs.map((c) => c.name),
    expected_sha256: expectedSha256(fx),
  };
  process.stdout.write(`wrote ${fx.name}\n`);
}

await zarr.create(root, {
  attributes: {
    writer: `zarrita 0.7.5 (interop/zarrita-write.mjs, fixture set ${set})`,
    checksum_rule: "sha256 over all elements in C order, little-endian, bool as 1 byte",
    not_written: {
      sharded: "zarrita 0.7.5 cannot write sharding_indexed (set on sharded arrays is unsupported)",
      float16: "Node 20 has no Float16Array",
    },
    fixtures: summary,
  },
});
process.stdout.write(`wrote group ${out}\n`);
