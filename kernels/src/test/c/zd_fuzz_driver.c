/* SPDX-License-Identifier: Apache-2.0 */
/* Sanitizer fuzz driver for the host build (manual run, not part of mvn test):
 *   gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -shared -fPIC -pthread \
 *       -I src/main/c src/main/c/host/zd_host.c -o libzdasan.so
 *   gcc -O1 -g -fsanitize=address,undefined src/test/c/zd_fuzz_driver.c -o fuzz -L. -lzdasan -Wl,-rpath,.
 *   ASAN_OPTIONS=detect_leaks=0 ./fuzz frame.zst original.bin 1000
 * Truncates every third iteration, flips 1-4 bits otherwise; group size 3 every 7th run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
unsigned zd_host_zstd_decode(const uint8_t*, uint64_t, uint8_t*, uint64_t, uint8_t*, uint64_t, unsigned);
static uint8_t* rd(const char* f, size_t* n){FILE* fp=fopen(f,"rb"); fseek(fp,0,2); *n=ftell(fp); fseek(fp,0,0); uint8_t* b=malloc(*n+1); if(fread(b,1,*n,fp)!=*n) exit(1); fclose(fp); return b;}
int main(int argc,char**argv){ size_t zn,on; uint8_t* z=rd(argv[1],&zn); uint8_t* o=rd(argv[2],&on); int it=atoi(argv[3]); srand(42);
 int ok=0, rej=0; uint8_t* sc=malloc(131072);
 for(int k=0;k<it;k++){ uint8_t* f=malloc(zn); memcpy(f,z,zn); size_t n=zn;
   if(k%3==0) n=rand()%zn; else { int fl=1+rand()%4; for(int j=0;j<fl;j++) f[rand()%zn]^=1<<(rand()%8); }
   uint8_t* d=malloc(on); unsigned s=zd_host_zstd_decode(f,n,d,on,sc,131072,(k%7==0)?3:1); if(s==0) ok++; else rej++; free(d); free(f);}
 printf("%s: %d accepted %d rejected\n",argv[1],ok,rej); return 0; }
