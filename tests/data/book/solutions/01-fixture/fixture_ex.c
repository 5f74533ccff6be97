/* fixture_ex.c — reference solution of the fixture exercise. */
#include "fixture_ex.h"

double ex_fixture_ridge(double peak_flops_per_s, double hbm_bytes_per_s) {
  return peak_flops_per_s / hbm_bytes_per_s;
}
