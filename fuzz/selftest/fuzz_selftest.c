/* fuzz_selftest.c — a fuzz target with a planted bug, so that the harness itself is tested:
 * the input "boom" breaks an invariant. CTest fuzz.selftest.* checks that a replay fails on
 * fuzz/selftest/corpus/selftest/boom, skips regressions/selftest/pending-boom, and that
 * run.sh reports the finding with its reproducer (fuzz/CMakeLists.txt).
 */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 4 && memcmp(data, "boom", 4) == 0) fuzz_fail("selftest: the planted bug");
  return 0;
}
