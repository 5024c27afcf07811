#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes deflate/zlib/gzip test streams for zd_inflate_check.cu (manual GPU check, not part of Maven).

  python3 src/test/cuda/zd_inflate_gen.py /tmp/zdinf [--distinct 8] [--min-mib 1] [--max-mib 4]

For each data kind (field: ERA5-like float32, as zd_bench_data.h makes; text; runs; random; zeros;
shuffled16: int16 values byte-shuffled, as netCDF-like stores hold them)
it makes --distinct chunks of 1-4 MiB and compresses each as gzip (level 5, GzipCodec's default),
zlib (level 1, numcodecs' default) and raw deflate (level 6); the check replicates them to the
batch sizes it times. Also writes edge cases (empty, 1 byte, odd sizes, multi-member gzip, header
fields, stored blocks) that the check decodes but does not time. Manifest lines:
  <format 0 deflate | 1 zlib | 2 gzip> <label> <timed 0|1> <stream file> <original file>
It also prints single-thread CPU zlib decode speed for the same streams, as a baseline.
"""
import array, math, os, random, struct, sys, time, zlib


def field(n, rnd):
    k = (n + 3) // 4
    base = 250.0 + rnd.random() * 40.0
    phase = rnd.random()
    a = array.array('f', (base + 10.0 * math.sin(6.283 * (phase + i * 0.00016)) + 2.0 * math.sin(i * 0.037)
                          for i in range(k)))
    b = bytearray(a.tobytes())
    for i in range(0, len(b), 4):
        b[i] = rnd.getrandbits(8)  # noisy low mantissa byte: ratio ~1.3, like real reanalysis fields
    return bytes(b[:n])


def text(n, rnd):
    words = [b'the ', b'zarr ', b'array ', b'chunk ', b'of ', b'decode ', b'kernel ', b'device ', b'memory ',
             b'and ', b'shard ', b'codec ', b'a ', b'is ', b'compressed ', b'float ', b'temperature ', b'\n']
    out = bytearray()
    while len(out) < n:
        out += words[min(int(abs(rnd.gauss(0, 5))), len(words) - 1)]
    return bytes(out[:n])


def runs(n, rnd):
    out = bytearray()
    while len(out) < n:
        out += bytes([rnd.randrange(8)]) * rnd.randrange(1, 200)
    return bytes(out[:n])


def shuffled16(n, rnd):
    """int16 packed values of a smooth field, byte-shuffled as numcodecs.shuffle writes them: the
    high bytes compress, the low ones hardly (make_netcdf_like_store.py's chunks)."""
    k = (n + 1) // 2
    phase = rnd.random() * 6.283
    v = array.array('h', (max(-32768, min(32767, int(9000 * math.sin(phase + i * 0.0007)
                                                   + 3000 * math.sin(i * 0.013) + rnd.gauss(0, 60))))
                          for i in range(k)))
    b = v.tobytes()
    return (b[0::2] + b[1::2])[:n]


# new kinds go last: the generator's draws for the kinds before them stay the same
KINDS = {'field': field, 'text': text, 'runs': runs,
         'random': lambda n, r: r.randbytes(n), 'zeros': lambda n, r: bytes(n), 'shuffled16': shuffled16}


def deflate(d, level, wbits, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, 8, strategy)
    return c.compress(d) + c.flush()


def gzip_member(d, level, flags=0, name=b'', comment=b'', extra=b''):
    h = bytearray(b'\x1f\x8b\x08' + bytes([flags]) + b'\0\0\0\0\0\xff')
    if flags & 4: h += struct.pack('<H', len(extra)) + extra
    if flags & 8: h += name + b'\0'
    if flags & 16: h += comment + b'\0'
    if flags & 2: h += struct.pack('<H', zlib.crc32(bytes(h)) & 0xFFFF)
    return bytes(h) + deflate(d, level, -15) + struct.pack('<II', zlib.crc32(d), len(d) & 0xFFFFFFFF)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'zdinf'
    opts = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    distinct = int(opts.get('--distinct', 8))
    lo, hi = float(opts.get('--min-mib', 1)), float(opts.get('--max-mib', 4))
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(24)
    lines, cpu = [], {}
    serial = [0]

    def put(fmt, label, timed, stream, original):
        i = serial[0]
        serial[0] += 1
        zf, of = os.path.join(out, '%05d.z' % i), os.path.join(out, '%05d.o' % i)
        open(zf, 'wb').write(stream)
        open(of, 'wb').write(original)
        lines.append('%d %s %d %s %s' % (fmt, label, timed, zf, of))
        if timed:
            wb = {0: -15, 1: 15, 2: 31}[fmt]
            t = time.perf_counter()
            assert zlib.decompressobj(wb).decompress(stream) == original
            c = cpu.setdefault(label, [0, 0.0])
            c[0] += len(original)
            c[1] += time.perf_counter() - t

    for kind, gen in KINDS.items():
        for j in range(distinct):
            n = int(rnd.uniform(lo, hi) * (1 << 20))
            d = gen(n, rnd)
            put(2, 'gzip-L5-' + kind, 1, gzip_member(d, 5), d)
            put(1, 'zlib-L1-' + kind, 1, deflate(d, 1, 15), d)
            put(0, 'deflate-L6-' + kind, 1, deflate(d, 6, -15), d)
    # edge cases, checked but not timed
    for n in (0, 1, 2, 3, 31, 4097, 65535, 65536, 65537, 300001):
        d = text(n, rnd)
        for level in (0, 1, 9):
            for strategy in (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED):
                put(0, 'edge-deflate', 0, deflate(d, level, -15, strategy), d)
                put(1, 'edge-zlib', 0, deflate(d, level, 15, strategy), d)
                put(2, 'edge-gzip', 0, gzip_member(d, level, flags=(n + level) & 31, name=b'n', comment=b'c', extra=b'xyz'), d)
    parts = [field(100000, rnd), b'', text(70001, rnd), bytes(40000)]
    put(2, 'edge-gzip-members', 0, b''.join(gzip_member(p, 6) for p in parts), b''.join(parts))
    open(os.path.join(out, 'manifest.txt'), 'w').write('\n'.join(lines) + '\n')
    print('%d streams in %s/manifest.txt' % (len(lines), out))
    for label, (b, s) in sorted(cpu.items()):
        print('CPU zlib 1 thread  %-22s %7.1f MB/s decoded (x16 cores: ~%.1f GB/s)' % (label, b / s / 1e6, 16 * b / s / 1e9))


if __name__ == '__main__':
    main()
