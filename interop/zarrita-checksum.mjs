#!/usr/bin/env node
// Usage: node interop/zarrita-checksum.mjs PATH
// PATH is a directory holding an array (zarr.json, or v2 .zarray). Reads it with
// zarrita and prints
//   sha256 <64 lowercase hex digits>
//   shape [d0,d1,...] dtype <data_type>
// The checksum rule is documented in lib.mjs. Exit code 1 (message on stderr)
// when zarrita cannot open or read the array.
import { checksumArray, describeError } from "./lib.mjs";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node zarrita-checksum.mjs PATH\n");
  process.exit(2);
}
try {
  const { hex, shape, dtype } = await checksumArray(dir);
  process.stdout.write(`sha256 ${hex}\nshape [${shape.join(",")}] dtype ${dtype}\n`);
} catch (err) {
  process.stderr.write(`cannot read ${dir}: ${describeError(err)}\n`);
  process.exit(1);
}
