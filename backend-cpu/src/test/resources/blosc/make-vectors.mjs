// Writes Blosc1 test vectors with numcodecs.js (c-blosc 1.x compiled to WebAssembly) and checks
// Blosc buffers written by zarr-direct with it. Run from the repository root:
//   node backend-cpu/src/test/resources/blosc/make-vectors.mjs            (writes the vectors here)
//   node backend-cpu/src/test/resources/blosc/make-vectors.mjs check DIR  (decodes DIR/*.blosc listed in DIR/vectors.json)
// numcodecs.js always writes typesize 4 and chooses the block size itself.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { default: Blosc } = await import(new URL('../../../../../interop/node_modules/numcodecs/dist/blosc.js', import.meta.url));

// The same generator as BloscVectorsTest.data: xorshift32 noise, "smooth" int32 values or random bytes.
export function data(kind, n) {
  const out = new Uint8Array(n);
  let x = 2463534242;
  const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x; };
  if (kind === 'random') {
    for (let i = 0; i < n; i++) out[i] = next() & 0xff;
    return out;
  }
  for (let i = 0; i < n; i += 4) {
    const e = i / 4;
    const m = e % 1000;
    const v = (250000 + (((m * (1000 - m)) >> 4) & ~15) + ((next() & 15) === 0 ? 1 : 0)) | 0;
    for (let b = 0; b < 4 && i + b < n; b++) out[i + b] = (v >>> (8 * b)) & 0xff;
  }
  return out;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const SHUFFLES = ['noshuffle', 'shuffle', 'bitshuffle'];

if (process.argv[2] === 'check') {
  const dir = process.argv[3];
  const manifest = JSON.parse(readFileSync(join(dir, 'vectors.json'), 'utf8'));
  let failed = 0;
  for (const v of manifest) {
    const decoded = await new Blosc().decode(new Uint8Array(readFileSync(join(dir, v.file))));
    const ok = decoded.length === v.nbytes && sha256(decoded) === v.sha256;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${v.file}`);
  }
  console.log(`${manifest.length - failed} of ${manifest.length} decoded by numcodecs.js`);
  process.exit(failed ? 1 : 0);
}

const cases = [];
// One block of 150016 bytes (37504 elements, a multiple of 8) and a 3-byte leftover block.
for (const cname of ['blosclz', 'lz4', 'lz4hc', 'zlib', 'zstd']) {
  for (let shuffle = 0; shuffle < 3; shuffle++) {
    cases.push({ cname, clevel: 5, shuffle, blocksize: 0, kind: 'smooth', nbytes: 150019 });
  }
}
// Several blocks, split and not split, and leftover blocks whose elements are not a multiple of 8.
cases.push({ cname: 'lz4', clevel: 5, shuffle: 2, blocksize: 0, kind: 'smooth', nbytes: 600013 });
cases.push({ cname: 'lz4', clevel: 5, shuffle: 2, blocksize: 0, kind: 'smooth', nbytes: 150013 });
cases.push({ cname: 'blosclz', clevel: 9, shuffle: 1, blocksize: 20000, kind: 'smooth', nbytes: 200003 });
cases.push({ cname: 'zstd', clevel: 9, shuffle: 2, blocksize: 20000, kind: 'smooth', nbytes: 100003 });
cases.push({ cname: 'zlib', clevel: 1, shuffle: 1, blocksize: 16384, kind: 'smooth', nbytes: 100002 });
// Incompressible and small inputs: raw streams and memcpyed buffers.
cases.push({ cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0, kind: 'random', nbytes: 20001 });
cases.push({ cname: 'lz4', clevel: 0, shuffle: 1, blocksize: 0, kind: 'smooth', nbytes: 1000 });
for (const nbytes of [0, 1, 100]) cases.push({ cname: 'lz4', clevel: 5, shuffle: 1, blocksize: 0, kind: 'smooth', nbytes });

const manifest = [];
for (const c of cases) {
  const raw = data(c.kind, c.nbytes);
  const encoded = await new Blosc(c.clevel, c.cname, c.shuffle, c.blocksize).encode(raw);
  const back = await new Blosc().decode(encoded);
  if (sha256(back) !== sha256(raw)) throw new Error(`numcodecs.js does not round-trip ${JSON.stringify(c)}`);
  const file = `${c.cname}-${SHUFFLES[c.shuffle]}-c${c.clevel}-b${c.blocksize}-${c.kind}-${c.nbytes}.blosc`;
  writeFileSync(join(here, file), encoded);
  manifest.push({ file, cname: c.cname, clevel: c.clevel, shuffle: SHUFFLES[c.shuffle], kind: c.kind,
    blocksize: c.blocksize, nbytes: c.nbytes, sha256: sha256(raw) });
  console.log(file, encoded.length);
}
writeFileSync(join(here, 'vectors.json'), JSON.stringify(manifest, null, 1) + '\n');
