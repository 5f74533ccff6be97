/* rooflines_ex.c — a fixture student of `scale grade` (tests/grading/check_grade.sh fixture):
 * the stubs of exercises/01-rooflines, except three exercises that prove the verdicts:
 *   rooflines.t_math_s           crashes (writes through a null pointer)  -> CRASH
 *   rooflines.t_comms_s          never returns                           -> TIMEOUT
 *   rooflines.critical_batch_int8 is right                               -> OK
 *   rooflines.t_upper_s          right formula, no domain check -> FAIL with its value points
 * and every other exercise is a stub -> FAIL. 02-tpus does not compile -> BUILD;
 * 03-sharding is missing -> BUILD.
 */
#include "rooflines_ex.h"

#include <math.h>
#include <stdlib.h>

double ex_rooflines_t_math_s(double flops, double flops_per_s) {
  /* A null pointer the compiler cannot see through: this environment variable is never set. */
  volatile double *result = (volatile double *)getenv("SCALE_GRADE_FIXTURE_NEVER_SET");
  *result = flops / flops_per_s;
  return *result;
}

double ex_rooflines_t_comms_s(double bytes, double bytes_per_s) {
  volatile double t = 0.0;
  while (t >= 0.0) t += bytes / bytes_per_s; /* never ends */
  return t;
}

double ex_rooflines_t_lower_s(double t_math_s, double t_comms_s) {
  (void)t_math_s; (void)t_comms_s;
  return NAN;
}

double ex_rooflines_t_upper_s(double t_math_s, double t_comms_s) {
  return t_math_s + t_comms_s; /* the right formula without the contract's NaN checks */
}

double ex_rooflines_critical_intensity_flops_per_byte(double flops_per_s, double bytes_per_s) {
  (void)flops_per_s; (void)bytes_per_s;
  return NAN;
}

double ex_rooflines_dot_product_intensity_flops_per_byte(int64_t n) {
  (void)n;
  return NAN;
}

double ex_rooflines_matmul_flops(int64_t b, int64_t d, int64_t f) {
  (void)b; (void)d; (void)f;
  return NAN;
}

double ex_rooflines_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f,
                                                    double bytes_per_element) {
  (void)b; (void)d; (void)f; (void)bytes_per_element;
  return NAN;
}

double ex_rooflines_two_chip_critical_d(double flops_per_s, double link_bytes_per_s) {
  (void)flops_per_s; (void)link_bytes_per_s;
  return NAN;
}

double ex_rooflines_int8_matmul_bytes(int64_t b, int64_t d, int64_t f) {
  (void)b; (void)d; (void)f;
  return NAN;
}

double ex_rooflines_int8_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f) {
  (void)b; (void)d; (void)f;
  return NAN;
}

double ex_rooflines_critical_batch_int8(double int8_ops_per_s, double bytes_per_s) {
  if (!(int8_ops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  return int8_ops_per_s / bytes_per_s / 2.0;
}

double ex_rooflines_int8_matmul_time_s(int64_t b, int64_t d, int64_t f, double int8_ops_per_s,
                                       double bytes_per_s) {
  (void)b; (void)d; (void)f; (void)int8_ops_per_s; (void)bytes_per_s;
  return NAN;
}

double ex_rooflines_critical_batch_int8_weights(double bf16_flops_per_s, double bytes_per_s) {
  (void)bf16_flops_per_s; (void)bytes_per_s;
  return NAN;
}

double ex_rooflines_attainable_flops_per_s(double intensity_flops_per_byte,
                                           double peak_flops_per_s, double bytes_per_s) {
  (void)intensity_flops_per_byte; (void)peak_flops_per_s; (void)bytes_per_s;
  return NAN;
}

double ex_rooflines_per_example_weights_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f) {
  (void)b; (void)d; (void)f;
  return NAN;
}

double ex_rooflines_critical_batch_from_sparse_spec(double sparse_flops_per_s, double bytes_per_s) {
  (void)sparse_flops_per_s; (void)bytes_per_s;
  return NAN;
}
