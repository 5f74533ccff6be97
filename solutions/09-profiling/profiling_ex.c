/* profiling_ex.c — reference solutions of chapter 9, "How to Profile TPU Programs".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "profiling_ex.h"

#include <math.h>

/* Whether every dimension is a positive count. */
static int dims_ok(int64_t a, int64_t b, int64_t c) { return a >= 1 && b >= 1 && c >= 1; }

/* x when finite, else NaN (a product of huge inputs never comes back as inf). */
static double finite_or_nan(double x) { return isfinite(x) ? x : (double)NAN; }

double ex_profiling_expected_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s) {
  if (!dims_ok(b, d, f) || !(flops_per_s > 0.0)) return NAN;
  double flops = 2.0 * (double)b * (double)d * (double)f;
  return finite_or_nan(flops / flops_per_s);
}

double ex_profiling_reduce_scatter_time_s(double array_bytes, int64_t n_batch_shards,
                                          double bidi_bytes_per_s) {
  if (!(array_bytes >= 0.0) || n_batch_shards < 1 || !(bidi_bytes_per_s > 0.0)) return NAN;
  double shard_bytes = array_bytes / (double)n_batch_shards;
  return finite_or_nan(shard_bytes / bidi_bytes_per_s);
}

double ex_profiling_tiled_padding_factor(int64_t rows, int64_t cols, int64_t tile_rows,
                                         int64_t tile_cols) {
  if (rows < 1 || cols < 1 || tile_rows < 1 || tile_cols < 1) return NAN;
  double padded_rows = ceil((double)rows / (double)tile_rows) * (double)tile_rows;
  double padded_cols = ceil((double)cols / (double)tile_cols) * (double)tile_cols;
  return padded_rows * padded_cols / ((double)rows * (double)cols);
}

double ex_profiling_true_dim(int64_t local_dim, int64_t first, int64_t stride, int64_t last) {
  if (local_dim < 1 || first < 0 || stride < 1 || last < first) return NAN;
  if ((last - first) % stride != 0) return NAN;
  double group = (double)((last - first) / stride) + 1.0;
  return (double)local_dim * group;
}

double ex_profiling_gemm_intensity_flops_per_byte(int64_t m, int64_t n, int64_t k,
                                                  double elem_bytes) {
  if (!dims_ok(m, n, k) || !(elem_bytes > 0.0) || !isfinite(elem_bytes)) return NAN;
  double md = (double)m, nd = (double)n, kd = (double)k;
  double flops = 2.0 * md * nd * kd;
  double bytes = elem_bytes * (md * kd + kd * nd + md * nd);
  return finite_or_nan(flops / bytes);
}

double ex_profiling_cpu_peak_flops_per_s(double n_cores, double clock_hz, double vector_bits,
                                         double n_fma_units, double elem_bytes) {
  if (!(n_cores > 0.0) || !(clock_hz > 0.0) || !(n_fma_units > 0.0) || !(elem_bytes > 0.0))
    return NAN;
  if (!(vector_bits >= 8.0 * elem_bytes)) return NAN;
  double lanes = vector_bits / (8.0 * elem_bytes);
  return finite_or_nan(n_cores * clock_hz * n_fma_units * lanes * 2.0);
}

double ex_profiling_roofline_time_s(double flops, double bytes, double peak_flops_per_s,
                                    double bytes_per_s) {
  if (!(flops >= 0.0) || !(bytes >= 0.0) || !(peak_flops_per_s > 0.0) || !(bytes_per_s > 0.0))
    return NAN;
  double t_math = flops / peak_flops_per_s;
  double t_comms = bytes / bytes_per_s;
  return finite_or_nan(t_math > t_comms ? t_math : t_comms);
}

double ex_profiling_achieved_frac(double work, double time_s, double peak_per_s) {
  if (!(work >= 0.0) || !(time_s > 0.0) || !(peak_per_s > 0.0)) return NAN;
  return finite_or_nan(work / time_s / peak_per_s);
}

double ex_profiling_stream_bandwidth_bytes_per_s(int kernel, int64_t n, double elem_bytes,
                                                 double time_s) {
  /* copy and scale: read one array, write one; add and triad: read two, write one. */
  static const double arrays[4] = {2.0, 2.0, 3.0, 3.0};
  if (kernel < 0 || kernel > 3 || n < 1 || !(elem_bytes > 0.0) || !(time_s > 0.0)) return NAN;
  return finite_or_nan(arrays[kernel] * (double)n * elem_bytes / time_s);
}
