/* tpus_ex.c — a fixture student of `scale grade`: this chapter does not compile (a missing
 * semicolon), so every exercise of 02-tpus gets the verdict BUILD with the compiler's error.
 */
#include "tpus_ex.h"

#include <math.h>

double ex_tpus_pod_hosts(int64_t n_chips, int64_t chips_per_host) {
  return (double)(n_chips / chips_per_host)
}
