#!/usr/bin/env node
// Usage: node interop/checksum-all.mjs DIR
// Finds every array under DIR (a directory whose zarr.json has node_type
// "array", or, without zarr.json, one holding a Zarr v2 .zarray; DIR itself
// counts, with RELPATH "."), reads each with
// zarrita and prints one line per array, sorted by RELPATH ('/'-separated):
//   RELPATH sha256 <hex>
//   RELPATH error <message>      (when zarrita cannot read it)
// Exit code 1 if any array failed (or DIR is unreadable), else 0.
// The checksum rule is documented in lib.mjs.
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { checksumArray, describeError } from "./lib.mjs";

const root = process.argv[2];
if (!root) {
  process.stderr.write("usage: node checksum-all.mjs DIR\n");
  process.exit(2);
}

/** Collects array directories below `dir`; does not descend into arrays. */
async function findArrays(dir, out) {
  let meta = null;
  try {
    meta = JSON.parse(await fs.readFile(path.join(dir, "zarr.json"), "utf8"));
  } catch {
    // no (readable) zarr.json: an implicit directory, keep walking
  }
  if (meta && meta.node_type === "array") {
    out.push(dir);
    return;
  }
  if (!meta) {
    try {
      await fs.access(path.join(dir, ".zarray"));
      out.push(dir); // Zarr v2 array
      return;
    } catch {
      // not a v2 array either
    }
  }
  const entries = await fs.readdir(dir, { withFileTypes: true });
  for (const e of entries) {
    if (e.isDirectory()) await findArrays(path.join(dir, e.name), out);
  }
}

let failed = false;
const dirs = [];
try {
  await findArrays(path.resolve(root), dirs);
} catch (err) {
  process.stderr.write(`cannot scan ${root}: ${describeError(err)}\n`);
  process.exit(1);
}
const rows = dirs.map((d) => ({
  dir: d,
  rel: path.relative(path.resolve(root), d).split(path.sep).join("/") || ".",
}));
rows.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
for (const { dir, rel } of rows) {
  try {
    const { hex } = await checksumArray(dir);
    process.stdout.write(`${rel} sha256 ${hex}\n`);
  } catch (err) {
    failed = true;
    process.stdout.write(`${rel} error ${describeError(err)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
