/* rooflines_ex.c — exercises of chapter 1, "All About Rooflines": your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in rooflines_ex.h. Check your work with
 * `scale grade rooflines`.
 */
#include "rooflines_ex.h"

#include <math.h>

double ex_rooflines_t_math_s(double flops, double flops_per_s) {
  (void)flops; (void)flops_per_s;
  return NAN;
}

double ex_rooflines_t_comms_s(double bytes, double bytes_per_s) {
  (void)bytes; (void)bytes_per_s;
  return NAN;
}

double ex_rooflines_t_lower_s(double t_math_s, double t_comms_s) {
  (void)t_math_s; (void)t_comms_s;
  return NAN;
}

double ex_rooflines_t_upper_s(double t_math_s, double t_comms_s) {
  (void)t_math_s; (void)t_comms_s;
  return NAN;
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
  (void)int8_ops_per_s; (void)bytes_per_s;
  return NAN;
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
