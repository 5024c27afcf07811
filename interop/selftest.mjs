#!/usr/bin/env node
// Usage: node interop/selftest.mjs [WORKDIR]
//
// Probes what zarrita 0.7.5 can READ, using arrays this script assembles by
// hand (node:zlib gzip, numcodecs zstd, own crc32c and shard layout), i.e.
// independently of zarrita's writer. Each case prints
//   PASS|FAIL|LIMIT  name  detail
// INFO: behaviour worth knowing, neither pass nor fail.
// PASS: zarrita's checksum equals the one computed from the formula.
// LIMIT: a documented zarrita limitation behaved as expected (error or wrong
// data). FAIL: anything else. Exit code 1 if any FAIL.
//
// Values: i = C-order flat index in the whole array; v = i * 0.25 - 3
// (float32), unless a case says otherwise.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { createHash } from "node:crypto";
import Zstd from "numcodecs/zstd";
import { checksumArray, describeError } from "./lib.mjs";

const work = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), "zarrita-selftest-"));
fs.mkdirSync(work, { recursive: true });

// CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32c(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
if (crc32c(new TextEncoder().encode("123456789")) !== 0xe3069283) throw new Error("crc32c self-check");

const size = (s) => s.reduce((a, b) => a * b, 1);
const f = (i) => i * 0.25 - 3;

/** float32 LE bytes of the box [origin, origin+shape) clipped to arrShape, padded with fill. */
function chunkBytes(arrShape, origin, shape, fill, order = null) {
  const n = size(shape);
  const vals = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    let rem = k;
    const idx = new Array(shape.length);
    for (let d = shape.length - 1; d >= 0; d--) { idx[d] = rem % shape[d]; rem = Math.floor(rem / shape[d]); }
    const g = idx.map((x, d) => x + origin[d]);
    const inside = g.every((x, d) => x < arrShape[d]);
    let i = 0;
    for (let d = 0; d < g.length; d++) i = i * arrShape[d] + g[d];
    vals[k] = inside ? f(i) : fill;
  }
  return new Uint8Array(vals.buffer);
}

function expected(arrShape) {
  const h = createHash("sha256");
  const b = Buffer.alloc(4);
  for (let i = 0; i < size(arrShape); i++) { b.writeFloatLE(f(i)); h.update(b); }
  return h.digest("hex");
}

function meta(shape, chunks, codecs, extra = {}) {
  return {
    zarr_format: 3, node_type: "array", shape, data_type: "float32",
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0, codecs, attributes: {}, ...extra,
  };
}

function put(dir, rel, bytes) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, bytes);
}

/** Iterates chunk-grid coordinates in C order. */
function* grid(counts) {
  const n = size(counts);
  for (let k = 0; k < n; k++) {
    let rem = k;
    const c = new Array(counts.length);
    for (let d = counts.length - 1; d >= 0; d--) { c[d] = rem % counts[d]; rem = Math.floor(rem / counts[d]); }
    yield c;
  }
}

/** Writes a regular (unsharded) float32 array; `enc` turns raw LE bytes into stored bytes. */
async function writeRegular(name, shape, chunks, codecs, enc, extra = {}, key = (c) => "c/" + c.join("/")) {
  const dir = path.join(work, name);
  put(dir, "zarr.json", JSON.stringify(meta(shape, chunks, codecs, extra)));
  for (const c of grid(shape.map((s, d) => Math.ceil(s / chunks[d])))) {
    put(dir, key(c), await enc(chunkBytes(shape, c.map((x, d) => x * chunks[d]), chunks, 0)));
  }
  return dir;
}

/** Writes a sharded float32 array (inner codecs bytes+gzip, index bytes+crc32c). */
function writeSharded(name, shape, shard, inner, indexLocation) {
  const dir = path.join(work, name);
  const cfg = {
    chunk_shape: inner,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 5 } }],
    index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
  };
  if (indexLocation) cfg.index_location = indexLocation;
  put(dir, "zarr.json", JSON.stringify(meta(shape, shard, [{ name: "sharding_indexed", configuration: cfg }])));
  const perShard = shard.map((s, d) => s / inner[d]);
  const nInner = size(perShard);
  const indexBytes = 16 * nInner + 4;
  for (const sc of grid(shape.map((s, d) => Math.ceil(s / shard[d])))) {
    const parts = [];
    const index = new BigUint64Array(2 * nInner);
    let offset = indexLocation === "start" ? indexBytes : 0;
    let k = 0;
    for (const ic of grid(perShard)) {
      const origin = ic.map((x, d) => sc[d] * shard[d] + x * inner[d]);
      if (origin.some((o, d) => o >= shape[d])) {
        index[2 * k] = index[2 * k + 1] = 0xffffffffffffffffn; // empty inner chunk
      } else {
        const b = zlib.gzipSync(chunkBytes(shape, origin, inner, 0));
        index[2 * k] = BigInt(offset);
        index[2 * k + 1] = BigInt(b.length);
        parts.push(b);
        offset += b.length;
      }
      k++;
    }
    const ib = new Uint8Array(index.buffer);
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(crc32c(ib));
    const idx = Buffer.concat([ib, crc]);
    const body = indexLocation === "start" ? [idx, ...parts] : [...parts, idx];
    put(dir, "c/" + sc.join("/"), Buffer.concat(body));
  }
  return dir;
}

const bytesLE = { name: "bytes", configuration: { endian: "little" } };
const zstd = new Zstd(3);
let failed = false;

async function check(name, dir, shape, expectation = "pass") {
  let line;
  try {
    const { hex } = await checksumArray(dir);
    const ok = hex === expected(shape);
    if (expectation === "pass") line = `${ok ? "PASS" : "FAIL"}  ${name}  ${ok ? "checksum matches formula" : "checksum differs"}`;
    else if (expectation === "info") line = `INFO  ${name}  read ${ok ? "correct" : "wrong"} data without error`;
    else line = `${ok ? "FAIL" : "LIMIT"}  ${name}  ${ok ? "unexpectedly read correctly" : "read, but wrong data"}`;
    if (line.startsWith("FAIL")) failed = true;
  } catch (err) {
    if (expectation === "pass") failed = true;
    line = `${expectation === "pass" ? "FAIL" : "LIMIT"}  ${name}  error: ${describeError(err)}`;
  }
  process.stdout.write(line + "\n");
}

const zenc = (b) => zstd.encode(b);
const S = [11, 9];
const CH = [4, 4];

await check("bytes+gzip(node:zlib)", await writeRegular("gzip", S, CH, [bytesLE, { name: "gzip", configuration: { level: 1 } }], (b) => zlib.gzipSync(b)), S);
await check("bytes+zstd(numcodecs)", await writeRegular("zstd", S, CH, [bytesLE, { name: "zstd", configuration: { level: 3, checksum: false } }], zenc), S);
await check("bytes+crc32c", await writeRegular("crc32c", S, CH, [bytesLE, { name: "crc32c" }], (b) => {
  const c = Buffer.alloc(4); c.writeUInt32LE(crc32c(b)); return Buffer.concat([b, c]);
}), S);
await check("crc32c with a wrong checksum", await writeRegular("crc32c_bad", S, CH, [bytesLE, { name: "crc32c" }], (b) => {
  const c = Buffer.alloc(4); c.writeUInt32LE((crc32c(b) ^ 1) >>> 0); return Buffer.concat([b, c]);
}), S, "info");
await check("bytes+gzip+crc32c", await writeRegular("gzip_crc", S, CH, [bytesLE, { name: "gzip", configuration: { level: 1 } }, { name: "crc32c", configuration: {} }], (b) => {
  const g = zlib.gzipSync(b); const c = Buffer.alloc(4); c.writeUInt32LE(crc32c(g)); return Buffer.concat([g, c]);
}), S);
await check("chunk_key_encoding v2 '.'", await writeRegular("v2keys", S, CH, [bytesLE], (b) => b,
  { chunk_key_encoding: { name: "v2", configuration: { separator: "." } } }, (c) => c.join(".")), S);
await check("chunk_key_encoding default without configuration", await writeRegular("defaultnocfg", S, CH, [bytesLE], (b) => b,
  { chunk_key_encoding: { name: "default" } }), S);
await check("bytes without configuration", await writeRegular("bytes_nocfg", S, CH, [{ name: "bytes" }], (b) => b), S);
await check("gzip without configuration", await writeRegular("gzip_nocfg", S, CH, [bytesLE, { name: "gzip" }], (b) => zlib.gzipSync(b)), S);
await check("crc32c without configuration", await writeRegular("crc_nocfg", S, CH, [bytesLE, { name: "crc32c" }], (b) => {
  const c = Buffer.alloc(4); c.writeUInt32LE(crc32c(b)); return Buffer.concat([b, c]);
}), S);
await check("zstd without configuration", await writeRegular("zstd_nocfg", S, CH, [bytesLE, { name: "zstd" }], zenc), S, "limit");
await check("no codecs at all (codecs: [])", await writeRegular("nocodecs", S, CH, [], (b) => b), S);
await check("sharded, index end, partial shards", writeSharded("sharded_end", [12, 13], [8, 8], [4, 4]), [12, 13]);
await check("sharded, index_location end explicit", writeSharded("sharded_end2", [16, 16], [8, 8], [4, 4], "end"), [16, 16]);
await check("sharded, index_location start", writeSharded("sharded_start", [16, 16], [8, 8], [4, 4], "start"), [16, 16], "limit");

// fill_value forms, on an array with no chunks at all (all fill).
// "__RAW:x__" puts the literal x into zarr.json (exact big integers).
async function fillCase(name, dtype, fillValue, expectBytes, expectation = "pass") {
  const dir = path.join(work, "fill_" + name.replace(/[^A-Za-z0-9.-]+/g, "_"));
  const m = meta([2], [2], [bytesLE]);
  m.data_type = dtype;
  m.fill_value = fillValue;
  put(dir, "zarr.json", JSON.stringify(m).replace(/"__RAW:([^"]*)__"/, "$1"));
  const want = createHash("sha256").update(Buffer.concat([expectBytes, expectBytes])).digest("hex");
  let line;
  try {
    const { hex } = await checksumArray(dir);
    const ok = hex === want;
    line = expectation === "pass" ? `${ok ? "PASS" : "FAIL"}  fill ${name}` : `${ok ? "FAIL" : "LIMIT"}  fill ${name}  ${ok ? "read correctly" : "wrong value"}`;
    if (line.startsWith("FAIL")) failed = true;
  } catch (err) {
    if (expectation === "pass") failed = true;
    line = `${expectation === "pass" ? "FAIL" : "LIMIT"}  fill ${name}  error: ${describeError(err)}`;
  }
  process.stdout.write(line + "\n");
}
const le = (fn, n) => { const b = Buffer.alloc(n); fn(b); return b; };
await fillCase('float32 "NaN"', "float32", "NaN", le((b) => b.writeUInt32LE(0x7fc00000), 4));
await fillCase('float64 "Infinity"', "float64", "Infinity", le((b) => b.writeDoubleLE(Infinity), 8));
await fillCase('float32 "-Infinity"', "float32", "-Infinity", le((b) => b.writeFloatLE(-Infinity), 4));
await fillCase("float32 1.5", "float32", 1.5, le((b) => b.writeFloatLE(1.5), 4));
await fillCase("bool true", "bool", true, Buffer.from([1]));
await fillCase("uint64 18446744073709551615 (JSON number)", "uint64", "__RAW:18446744073709551615__", le((b) => b.writeBigUInt64LE(18446744073709551615n), 8), "limit");
await fillCase("int64 9007199254740993 (JSON number > 2^53)", "int64", "__RAW:9007199254740993__", le((b) => b.writeBigInt64LE(9007199254740993n), 8), "limit");
await fillCase('float32 hex "0x3fc00000" (=1.5)', "float32", "0x3fc00000", le((b) => b.writeFloatLE(1.5), 4), "limit");
await fillCase('float64 hex "0x7ff8000000000000" (NaN)', "float64", "0x7ff8000000000000", le((b) => b.writeDoubleLE(NaN), 8), "limit");
await fillCase("complex64 [1,2]", "complex64", [1, 2], Buffer.concat([le((b) => b.writeFloatLE(1), 4), le((b) => b.writeFloatLE(2), 4)]), "limit");
await fillCase("float16 0", "float16", 0, Buffer.alloc(2), "limit");

process.stdout.write(`workdir ${work}\n`);
process.exitCode = failed ? 1 : 0;
