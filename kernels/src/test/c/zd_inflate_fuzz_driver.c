/* SPDX-License-Identifier: Apache-2.0 */
/* Sanitizer fuzz driver for the host build of the deflate/zlib/gzip decoders (manual run, not
 * part of mvn test). Every input is decoded into an exactly sized heap buffer, so ASan catches any
 * write or read outside it; a mismatch between an accepted input and the original is reported
 * (a corrupted stream may still decode correctly, e.g. a flipped bit in a gzip OS byte).
 *   gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -shared -fPIC -pthread \
 *       -I src/main/c src/main/c/host/zd_host.c -o libzdasan.so
 *   gcc -O1 -g -fsanitize=address,undefined src/test/c/zd_inflate_fuzz_driver.c -o inffuzz -L. -lzdasan -Wl,-rpath,.
 *   ./inffuzz stream.gz original.bin 2 1000     (format: 0 deflate, 1 zlib, 2 gzip)
 * InflateSanitizerTest builds and runs it in mvn test.
 * Truncates every third iteration, flips 1-4 bits otherwise; 3 items every 7th run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
unsigned zd_host_inflate_decode(const uint8_t *, uint64_t, uint8_t *, uint64_t, unsigned, unsigned);
static uint8_t *rd(const char *f, size_t *n) {
    FILE *fp = fopen(f, "rb");
    if (fp == NULL) exit(2);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *b = malloc(*n + 1);
    if (*n && fread(b, 1, *n, fp) != *n) exit(2);
    fclose(fp);
    return b;
}
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    size_t zn, on;
    uint8_t *z = rd(argv[1], &zn), *o = rd(argv[2], &on);
    unsigned fmt = (unsigned)atoi(argv[3]);
    int it = atoi(argv[4]), ok = 0, rej = 0, same = 0;
    srand(42);
    for (int k = 0; k < it; k++) {
        size_t n = zn;
        uint8_t *f = malloc(zn + 1);
        memcpy(f, z, zn);
        if (k % 3 == 0) n = zn ? (size_t)rand() % zn : 0;
        else if (zn) {
            int fl = 1 + rand() % 4;
            for (int j = 0; j < fl; j++) f[rand() % zn] ^= (uint8_t)(1u << (rand() % 8));
        }
        uint8_t *in = malloc(n + 1); /* exactly sized, so a read past n is caught */
        memcpy(in, f, n);
        uint8_t *d = malloc(on + 1);
        unsigned s = zd_host_inflate_decode(in, n, d, on, fmt, (k % 7 == 0) ? 3u : 1u);
        if (s == 0) {
            ok++;
            if (memcmp(d, o, on) == 0) same++;
        } else rej++;
        free(d);
        free(in);
        free(f);
    }
    printf("%s: %d accepted (%d equal to the original), %d rejected\n", argv[1], ok, same, rej);
    free(z);
    free(o);
    return 0;
}
