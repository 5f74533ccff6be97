/* profiling_ex.c — exercises of chapter 9, "How to Profile TPU Programs": your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in profiling_ex.h. Check your work with
 * `scale grade profiling`.
 */
#include "profiling_ex.h"

#include <math.h>

double ex_profiling_expected_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s) {
  (void)b; (void)d; (void)f; (void)flops_per_s;
  return NAN;
}

double ex_profiling_reduce_scatter_time_s(double array_bytes, int64_t n_batch_shards,
                                          double bidi_bytes_per_s) {
  (void)array_bytes; (void)n_batch_shards; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_profiling_tiled_padding_factor(int64_t rows, int64_t cols, int64_t tile_rows,
                                         int64_t tile_cols) {
  (void)rows; (void)cols; (void)tile_rows; (void)tile_cols;
  return NAN;
}

double ex_profiling_true_dim(int64_t local_dim, int64_t first, int64_t stride, int64_t last) {
  (void)local_dim; (void)first; (void)stride; (void)last;
  return NAN;
}

double ex_profiling_gemm_intensity_flops_per_byte(int64_t m, int64_t n, int64_t k,
                                                  double elem_bytes) {
  (void)m; (void)n; (void)k; (void)elem_bytes;
  return NAN;
}

double ex_profiling_cpu_peak_flops_per_s(double n_cores, double clock_hz, double vector_bits,
                                         double n_fma_units, double elem_bytes) {
  (void)n_cores; (void)clock_hz; (void)vector_bits; (void)n_fma_units; (void)elem_bytes;
  return NAN;
}

double ex_profiling_roofline_time_s(double flops, double bytes, double peak_flops_per_s,
                                    double bytes_per_s) {
  (void)flops; (void)bytes; (void)peak_flops_per_s; (void)bytes_per_s;
  return NAN;
}

double ex_profiling_achieved_frac(double work, double time_s, double peak_per_s) {
  (void)work; (void)time_s; (void)peak_per_s;
  return NAN;
}

double ex_profiling_stream_bandwidth_bytes_per_s(int kernel, int64_t n, double elem_bytes,
                                                 double time_s) {
  (void)kernel; (void)n; (void)elem_bytes; (void)time_s;
  return NAN;
}
