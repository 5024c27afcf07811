/* SPDX-License-Identifier: Apache-2.0 */
/* Files for the manual device harnesses of this folder: a whole file, and the stream manifests of
   zd_inflate_gen.py and tools/gpu/inflate-kernel-ab.sh ("<format> <label> <timed> <stream file>
   <original file>" a line; format 0 deflate, 1 zlib, 2 gzip). Both exit 2 on a file they cannot read. */
#ifndef ZD_HARNESS_IO_H
#define ZD_HARNESS_IO_H
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static std::vector<unsigned char> zd_slurp(const std::string &p) {
    std::vector<unsigned char> b;
    FILE *f = fopen(p.c_str(), "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", p.c_str()); exit(2); }
    fseek(f, 0, SEEK_END);
    b.resize(ftell(f));
    fseek(f, 0, SEEK_SET);
    if (!b.empty() && fread(b.data(), 1, b.size(), f) != b.size()) exit(2);
    fclose(f);
    return b;
}

struct ZdStream { int format; std::string label; int timed; std::vector<unsigned char> z, o; };

/* Every line of the manifest at path, its two files read. */
static std::vector<ZdStream> zd_read_manifest(const std::string &path) {
    std::vector<ZdStream> all;
    FILE *m = fopen(path.c_str(), "r");
    if (!m) { fprintf(stderr, "cannot open %s\n", path.c_str()); exit(2); }
    int fmt, timed;
    char lab[256], zf[4096], of[4096];
    while (fscanf(m, "%d %255s %d %4095s %4095s", &fmt, lab, &timed, zf, of) == 5) {
        ZdStream s;
        s.format = fmt;
        s.label = lab;
        s.timed = timed;
        s.z = zd_slurp(zf);
        s.o = zd_slurp(of);
        all.push_back(std::move(s));
    }
    fclose(m);
    return all;
}
#endif
