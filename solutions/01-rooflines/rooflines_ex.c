/* rooflines_ex.c — reference solutions of chapter 1, "All About Rooflines".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "rooflines_ex.h"

#include <math.h>

/* Whether every dimension is a positive count. */
static int dims_ok(int64_t b, int64_t d, int64_t f) { return b >= 1 && d >= 1 && f >= 1; }

double ex_rooflines_t_math_s(double flops, double flops_per_s) {
  if (!(flops >= 0.0) || !(flops_per_s > 0.0)) return NAN;
  return flops / flops_per_s;
}

double ex_rooflines_t_comms_s(double bytes, double bytes_per_s) {
  if (!(bytes >= 0.0) || !(bytes_per_s > 0.0)) return NAN;
  return bytes / bytes_per_s;
}

double ex_rooflines_t_lower_s(double t_math_s, double t_comms_s) {
  if (!(t_math_s >= 0.0) || !(t_comms_s >= 0.0)) return NAN;
  return t_math_s > t_comms_s ? t_math_s : t_comms_s;
}

double ex_rooflines_t_upper_s(double t_math_s, double t_comms_s) {
  if (!(t_math_s >= 0.0) || !(t_comms_s >= 0.0)) return NAN;
  return t_math_s + t_comms_s;
}

double ex_rooflines_critical_intensity_flops_per_byte(double flops_per_s, double bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  return flops_per_s / bytes_per_s;
}

double ex_rooflines_dot_product_intensity_flops_per_byte(int64_t n) {
  if (n < 1) return NAN;
  double nd = (double)n;
  double flops = nd + (nd - 1.0);           /* n multiplies, n - 1 adds */
  double bytes = 2.0 * nd + 2.0 * nd + 2.0; /* read x and y in bf16, write one bf16 */
  return flops / bytes;
}

double ex_rooflines_matmul_flops(int64_t b, int64_t d, int64_t f) {
  if (!dims_ok(b, d, f)) return NAN;
  return 2.0 * (double)b * (double)d * (double)f;
}

double ex_rooflines_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f,
                                                    double bytes_per_element) {
  if (!dims_ok(b, d, f) || !(bytes_per_element > 0.0)) return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  double bytes = bytes_per_element * (bd * dd + dd * fd + bd * fd);
  return 2.0 * bd * dd * fd / bytes;
}

double ex_rooflines_two_chip_critical_d(double flops_per_s, double link_bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(link_bytes_per_s > 0.0)) return NAN;
  /* T_math = 2BDF / (2 C) = BDF / C; T_comms = 2BF / W (a bf16 [B, F] partial sum).
   * T_math > T_comms  <=>  D > 2 C / W. */
  return 2.0 * flops_per_s / link_bytes_per_s;
}

double ex_rooflines_int8_matmul_bytes(int64_t b, int64_t d, int64_t f) {
  if (!dims_ok(b, d, f)) return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  return bd * dd + dd * fd + bd * fd; /* 1 byte per element: read A and B, write C */
}

double ex_rooflines_int8_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f) {
  if (!dims_ok(b, d, f)) return NAN;
  return ex_rooflines_matmul_flops(b, d, f) / ex_rooflines_int8_matmul_bytes(b, d, f);
}

double ex_rooflines_critical_batch_int8(double int8_ops_per_s, double bytes_per_s) {
  if (!(int8_ops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  /* Intensity -> 2BDF / DF = 2B for B << D, F; compute-bound when 2B > C / W. */
  return int8_ops_per_s / bytes_per_s / 2.0;
}

double ex_rooflines_int8_matmul_time_s(int64_t b, int64_t d, int64_t f, double int8_ops_per_s,
                                       double bytes_per_s) {
  if (!dims_ok(b, d, f) || !(int8_ops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  double t_math = ex_rooflines_matmul_flops(b, d, f) / int8_ops_per_s;
  double t_comms = ex_rooflines_int8_matmul_bytes(b, d, f) / bytes_per_s;
  return t_math > t_comms ? t_math : t_comms;
}

double ex_rooflines_critical_batch_int8_weights(double bf16_flops_per_s, double bytes_per_s) {
  if (!(bf16_flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  /* 2BDF FLOPs over DF weight bytes (int8) for B << D, F: intensity 2B > C / W. */
  return bf16_flops_per_s / bytes_per_s / 2.0;
}

double ex_rooflines_attainable_flops_per_s(double intensity_flops_per_byte, double peak_flops_per_s,
                                           double bytes_per_s) {
  if (!(intensity_flops_per_byte >= 0.0) || !(peak_flops_per_s > 0.0) || !(bytes_per_s > 0.0))
    return NAN;
  double memory_bound = intensity_flops_per_byte * bytes_per_s;
  return memory_bound < peak_flops_per_s ? memory_bound : peak_flops_per_s;
}

double ex_rooflines_per_example_weights_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f) {
  if (!dims_ok(b, d, f)) return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  double bytes = bd * dd + bd * dd * fd + bd * fd; /* x, one [D, F] matrix per example, y */
  return 2.0 * bd * dd * fd / bytes;
}

double ex_rooflines_critical_batch_from_sparse_spec(double sparse_flops_per_s, double bytes_per_s) {
  if (!(sparse_flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  return sparse_flops_per_s / 2.0 / bytes_per_s; /* the dense rate is half the sparse one */
}
