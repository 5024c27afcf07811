/* SPDX-License-Identifier: Apache-2.0 */
/* Deterministic ERA5-like float32 fields (no libm: the same bytes on every machine).
   mode 0: smooth field + random low mantissa byte (ratio ~1.3); mode 1: random low 2 bits (ratio ~2.5-3.5). */
#include <stdint.h>
#include <string.h>
static inline double zdg_wave(double t) { t = t - (double)(long)t; if (t < 0) t += 1.0; double u = t < 0.5 ? t * 2.0 : (t - 0.5) * 2.0; double p = 4.0 * u * (1.0 - u); return t < 0.5 ? p : -p; }
static inline void zdg_fill(unsigned char *b, long bytes, int mode, long seed) {
  uint64_t s = 0x9E3779B97F4A7C15ull ^ (uint64_t)seed * 0x2545F4914F6CDD1Dull;
#define ZDG_RND() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, (uint32_t)(s >> 11))
  for (int i = 0; i < 8; i++) (void)ZDG_RND();
  double phase = (ZDG_RND() / 4294967296.0); float base = 250.f + (float)(ZDG_RND() / 4294967296.0) * 40.f;
  long i = 0;
  for (; i + 4 <= bytes; i += 4) { long k = i / 4;
    float v = base + 10.f * (float)zdg_wave(phase + k * 0.00016) + 2.f * (float)zdg_wave(k * 0.0059);
    uint32_t bits; memcpy(&bits, &v, 4);
    bits = mode == 0 ? ((bits & ~0xFFu) | (ZDG_RND() & 255u)) : ((bits & ~0x3FFu) | (ZDG_RND() & 3u));
    memcpy(b + i, &bits, 4); }
  for (; i < bytes; i++) b[i] = (unsigned char)ZDG_RND();
}
