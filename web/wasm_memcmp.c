/* wasm_memcmp.c — memcmp() for the WebAssembly module, eight bytes at a time.
 *
 * wasi-libc's memcmp compares byte by byte, and the planner's hot path compares each layout's
 * 40-byte shape key with the step cache's keys (step.c ops_of): a fifth of the search's time in
 * the module went there. The linker takes this definition instead of libc's. Same contract as
 * the C standard's: the sign of the first differing byte, as unsigned char.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (; n >= 8; p += 8, q += 8, n -= 8) {
    uint64_t x, y;
    memcpy(&x, p, 8); /* one unaligned 64-bit load each: wasm allows them */
    memcpy(&y, q, 8);
    if (x != y) break; /* the bytes below find which one differs */
  }
  for (; n; p++, q++, n--)
    if (*p != *q) return *p < *q ? -1 : 1;
  return 0;
}
