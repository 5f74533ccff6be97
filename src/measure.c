/* measure.c — the arithmetic of a measured roofline (contract in include/scale/measure.h). */
#include "scale/measure.h"

#include <math.h>
#include <string.h>

/* Whether every dimension is a positive count. */
static int dims_ok(int64_t m, int64_t n, int64_t k) { return m >= 1 && n >= 1 && k >= 1; }

double scale_measure_gemm_flops(int64_t m, int64_t n, int64_t k) {
  if (!dims_ok(m, n, k)) return (double)NAN;
  return 2.0 * (double)m * (double)n * (double)k;
}

double scale_measure_gemm_bytes(int64_t m, int64_t n, int64_t k, double elem_bytes) {
  if (!dims_ok(m, n, k) || !(elem_bytes > 0.0) || !isfinite(elem_bytes)) return (double)NAN;
  double md = (double)m, nd = (double)n, kd = (double)k;
  return elem_bytes * (md * kd + kd * nd + md * nd);
}

double scale_measure_gemm_intensity_flops_per_byte(int64_t m, int64_t n, int64_t k,
                                                   double elem_bytes) {
  double flops = scale_measure_gemm_flops(m, n, k);
  double bytes = scale_measure_gemm_bytes(m, n, k, elem_bytes);
  if (isnan(flops) || isnan(bytes)) return (double)NAN;
  return flops / bytes;
}

const char *scale_stream_kernel_name(scale_stream_kernel kernel) {
  static const char *const names[SCALE_STREAM_COUNT] = {"copy", "scale", "add", "triad"};
  if ((int)kernel < 0 || kernel >= SCALE_STREAM_COUNT) return "?";
  return names[kernel];
}

double scale_stream_bytes(scale_stream_kernel kernel, int64_t n, double elem_bytes) {
  /* Arrays touched per element: copy and scale read one and write one; add and triad read two
   * and write one (STREAM's own accounting). */
  static const double arrays[SCALE_STREAM_COUNT] = {2.0, 2.0, 3.0, 3.0};
  if ((int)kernel < 0 || kernel >= SCALE_STREAM_COUNT) return (double)NAN;
  if (n < 1 || !(elem_bytes > 0.0) || !isfinite(elem_bytes)) return (double)NAN;
  return arrays[kernel] * (double)n * elem_bytes;
}

double scale_stream_flops(scale_stream_kernel kernel, int64_t n) {
  static const double per_elem[SCALE_STREAM_COUNT] = {0.0, 1.0, 1.0, 2.0};
  if ((int)kernel < 0 || kernel >= SCALE_STREAM_COUNT || n < 1) return (double)NAN;
  return per_elem[kernel] * (double)n;
}

double scale_measure_cpu_peak_flops_per_s(double n_cores, double clock_hz, double vector_bits,
                                          double n_fma_units, double elem_bytes) {
  if (!(n_cores > 0.0) || !(clock_hz > 0.0) || !(n_fma_units > 0.0) || !(elem_bytes > 0.0))
    return (double)NAN;
  if (!(vector_bits >= 8.0 * elem_bytes)) return (double)NAN;
  double lanes = vector_bits / (8.0 * elem_bytes);
  double rate = n_cores * clock_hz * n_fma_units * lanes * 2.0;
  return isfinite(rate) ? rate : (double)NAN;
}

double scale_measure_roof_flops_per_s(double peak_flops_per_s, double bytes_per_s,
                                      double intensity_flops_per_byte) {
  if (!(peak_flops_per_s > 0.0) || !(bytes_per_s > 0.0) || !(intensity_flops_per_byte >= 0.0))
    return (double)NAN;
  double slope = intensity_flops_per_byte * bytes_per_s;
  return slope < peak_flops_per_s ? slope : peak_flops_per_s;
}

double scale_measure_expected_time_s(double flops, double bytes, double peak_flops_per_s,
                                     double bytes_per_s) {
  if (!(flops >= 0.0) || !(bytes >= 0.0) || !(peak_flops_per_s > 0.0) || !(bytes_per_s > 0.0))
    return (double)NAN;
  double t_math = flops / peak_flops_per_s;
  double t_comms = bytes / bytes_per_s;
  double t = t_math > t_comms ? t_math : t_comms;
  return isfinite(t) ? t : (double)NAN;
}

double scale_measure_achieved_frac(double work, double time_s, double peak_per_s) {
  if (!(work >= 0.0) || !(time_s > 0.0) || !(peak_per_s > 0.0)) return (double)NAN;
  double frac = work / time_s / peak_per_s;
  return isfinite(frac) ? frac : (double)NAN;
}

double scale_measure_tiled_elements(int64_t rows, int64_t cols, int64_t tile_rows,
                                    int64_t tile_cols) {
  if (rows < 1 || cols < 1 || tile_rows < 1 || tile_cols < 1) return (double)NAN;
  double r = ceil((double)rows / (double)tile_rows) * (double)tile_rows;
  double c = ceil((double)cols / (double)tile_cols) * (double)tile_cols;
  return r * c;
}

scale_status scale_measure_fit_line(const double *x, const double *y, const double *w, size_t n,
                                    double *intercept, double *slope) {
  if (!x || !y || n < 2 || !intercept || !slope) return SCALE_ERR_INVALID;
  double sw = 0.0, mx = 0.0, my = 0.0;
  for (size_t i = 0; i < n; i++) {
    double wi = w ? w[i] : 1.0;
    if (!isfinite(x[i]) || !isfinite(y[i]) || !(wi > 0.0) || !isfinite(wi))
      return SCALE_ERR_INVALID;
    sw += wi;
    mx += wi * x[i];
    my += wi * y[i];
  }
  mx /= sw;
  my /= sw;
  double sxx = 0.0, sxy = 0.0;
  for (size_t i = 0; i < n; i++) {
    double wi = w ? w[i] : 1.0;
    sxx += wi * (x[i] - mx) * (x[i] - mx);
    sxy += wi * (x[i] - mx) * (y[i] - my);
  }
  if (!(sxx > 0.0)) return SCALE_ERR_INVALID;
  *slope = sxy / sxx;
  *intercept = my - *slope * mx;
  return SCALE_OK;
}

double scale_measure_crossover_bytes(double alpha_s, double bytes_per_s) {
  if (!(alpha_s >= 0.0) || !(bytes_per_s > 0.0)) return (double)NAN;
  double b = alpha_s * bytes_per_s;
  return isfinite(b) ? b : (double)NAN;
}

/* Whether times[0..n) are all finite and non-negative. */
static int times_ok(const double *times, size_t n) {
  if (!times || n == 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(times[i]) || times[i] < 0.0) return 0;
  return 1;
}

double scale_measure_median_s(const double *times, size_t n) {
  enum { MEDIAN_MAX = 1024 };
  if (n > MEDIAN_MAX || !times_ok(times, n)) return (double)NAN;
  double sorted[MEDIAN_MAX];
  memcpy(sorted, times, n * sizeof *times);
  for (size_t i = 1; i < n; i++) { /* insertion sort: n is a handful of repetitions */
    double x = sorted[i];
    size_t j = i;
    for (; j > 0 && sorted[j - 1] > x; j--) sorted[j] = sorted[j - 1];
    sorted[j] = x;
  }
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double scale_measure_min_s(const double *times, size_t n) {
  if (!times_ok(times, n)) return (double)NAN;
  double best = times[0];
  for (size_t i = 1; i < n; i++)
    if (times[i] < best) best = times[i];
  return best;
}
