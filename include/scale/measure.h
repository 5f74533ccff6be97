/* measure.h — the arithmetic of measuring a machine's roofline (chapter 9, `scale measure`).
 *
 * `scale measure` times GEMMs through OpenBLAS and STREAM-style kernels on this machine; the
 * timing and the BLAS calls live in the command (src/cli/measure.c), so libscale stays pure.
 * What a measurement means lives here: the FLOPs and the minimum bytes of a GEMM shape, the
 * bytes and FLOPs of each STREAM kernel, a CPU's theoretical peak from its vector width, FMA
 * units, cores and clock, the roofline a measured peak and bandwidth draw, and the summaries
 * of repeated timings.
 *
 * Book: ch. 9 "How to Profile TPU Programs" (measured time against the roofline), ch. 1 "All
 * About Rooflines" (intensity, critical intensity).
 * All functions are pure: no printing, NaN outside their domain.
 */
#ifndef SCALE_MEASURE_H
#define SCALE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "scale/status.h"

/* ---- GEMM ----------------------------------------------------------------------------------- */

/** FLOPs of C[m,n] = A[m,k] . B[k,n]: one multiply and one add per (i, j, l) triple.
 *
 * Units:  m, n, k [count] -> [FLOP].
 * Domain: m, n, k >= 1; NaN otherwise. Products are taken in double.
 * Book:   ch. 1, a matmul of [B,D] by [D,F] does 2BDF FLOPs.
 */
double scale_measure_gemm_flops(int64_t m, int64_t n, int64_t k);

/** Minimum bytes a GEMM moves to and from memory: read A and B once, write C once
 * (beta = 0, so C is not read), each element 'elem_bytes' wide.
 *
 * Units:  m, n, k [count], elem_bytes [bytes] -> [bytes].
 * Domain: m, n, k >= 1, elem_bytes > 0; NaN otherwise.
 * Book:   ch. 1 Question 1, bytes = BD + DF + BF elements.
 */
double scale_measure_gemm_bytes(int64_t m, int64_t n, int64_t k, double elem_bytes);

/** Arithmetic intensity of a GEMM shape: gemm_flops / gemm_bytes.
 *
 * Units:  -> [FLOP/byte]. Domain: as both callees; NaN otherwise.
 * Book:   ch. 1, intensity 2BDF / (bytes (BD + DF + BF)); for fp32 and m = n = k = N it is N/6.
 */
double scale_measure_gemm_intensity_flops_per_byte(int64_t m, int64_t n, int64_t k,
                                                   double elem_bytes);

/* ---- STREAM --------------------------------------------------------------------------------- */

/** The four kernels of McCalpin's STREAM benchmark on arrays a, b, c of n elements. */
typedef enum {
  SCALE_STREAM_COPY = 0, /**< c[i] = a[i]: 2 arrays moved, no FLOPs */
  SCALE_STREAM_SCALE,    /**< b[i] = s c[i]: 2 arrays, 1 FLOP per element */
  SCALE_STREAM_ADD,      /**< c[i] = a[i] + b[i]: 3 arrays, 1 FLOP per element */
  SCALE_STREAM_TRIAD,    /**< a[i] = b[i] + s c[i]: 3 arrays, 2 FLOPs per element */
  SCALE_STREAM_COUNT
} scale_stream_kernel;

/** Bytes of one element of the arrays `scale measure`'s STREAM kernels run on: doubles. */
#define SCALE_MEASURE_STREAM_ELEM_BYTES 8.0

/** Lowercase name of 'kernel' ("copy", "scale", "add", "triad"); "?" when out of range. */
const char *scale_stream_kernel_name(scale_stream_kernel kernel);

/** Bytes one pass of 'kernel' over n elements counts, STREAM's way: each array read or written
 * once, no write-allocate traffic (a cache that reads a line before writing it moves more).
 *
 * Units:  n [count], elem_bytes [bytes] -> [bytes].
 * Domain: n >= 1, elem_bytes > 0, a valid kernel; NaN otherwise.
 */
double scale_stream_bytes(scale_stream_kernel kernel, int64_t n, double elem_bytes);

/** FLOPs of one pass of 'kernel' over n elements (copy 0, scale and add n, triad 2n).
 *
 * Units:  n [count] -> [FLOP]. Domain: n >= 1, a valid kernel; NaN otherwise.
 */
double scale_stream_flops(scale_stream_kernel kernel, int64_t n);

/* ---- the CPU's theoretical peak --------------------------------------------------------------- */

/** Theoretical peak of a CPU: cores x clock x FMA units x (vector bits / element bits) lanes
 * x 2 FLOPs per fused multiply-add.
 *
 * Units:  n_cores [count], clock_hz [1/s], vector_bits [bit], n_fma_units [count per core],
 *         elem_bytes [bytes] -> [FLOP/s].
 * Domain: every argument > 0 and vector_bits >= 8 elem_bytes (at least one lane); NaN
 *         otherwise. A machine that issues a wide instruction as two halves (AVX-512 on AMD Zen
 *         4) reaches half of what its widest instruction suggests: pass the width it executes.
 * Book:   ch. 2 computes an MXU's rate the same way (multiply-adds per cycle x 2 x clock).
 */
double scale_measure_cpu_peak_flops_per_s(double n_cores, double clock_hz, double vector_bits,
                                          double n_fma_units, double elem_bytes);

/* ---- the measured roofline -------------------------------------------------------------------- */

/** Attainable rate at 'intensity' under a roof of 'peak_flops_per_s' and a slope of
 * 'bytes_per_s': min(peak, intensity x bandwidth).
 *
 * Units:  [FLOP/s], [bytes/s], [FLOP/byte] -> [FLOP/s].
 * Domain: peak > 0, bandwidth > 0, intensity >= 0; NaN otherwise.
 * Book:   ch. 1, the roofline plot.
 */
double scale_measure_roof_flops_per_s(double peak_flops_per_s, double bytes_per_s,
                                      double intensity_flops_per_byte);

/** Expected time of an operation of 'flops' FLOPs moving 'bytes' bytes on a measured roofline
 * (perfect overlap): max(flops / peak, bytes / bandwidth).
 *
 * Units:  [FLOP], [bytes], [FLOP/s], [bytes/s] -> [s].
 * Domain: flops >= 0, bytes >= 0, peak > 0, bandwidth > 0; NaN otherwise.
 * Book:   ch. 9, "how long do we expect this to take?" before reading the profile.
 */
double scale_measure_expected_time_s(double flops, double bytes, double peak_flops_per_s,
                                     double bytes_per_s);

/** Achieved fraction of a peak: (work / time) / peak, e.g. the model FLOPs utilisation a
 * profile shows. 'work' is FLOPs or bytes, 'peak' the matching rate.
 *
 * Units:  [FLOP or bytes], [s], [FLOP/s or bytes/s] -> [fraction].
 * Domain: work >= 0, time > 0, peak > 0; NaN otherwise.
 * Book:   ch. 9, 95.6 ms expected against 96 ms measured: "fantastic FLOPs utilization".
 */
double scale_measure_achieved_frac(double work, double time_s, double peak_per_s);

/* ---- reading a profile ------------------------------------------------------------------------ */

/** Elements a 2-D array of rows x cols occupies once padded to whole tiles of tile_rows x
 * tile_cols (an XLA layout such as {1,0:T(8,128)}: each dimension rounded up to a multiple of
 * its tile).
 *
 * Units:  counts -> [count] (multiply by the element size for bytes).
 * Domain: every argument >= 1; NaN otherwise.
 * Book:   ch. 9 "How to read an XLA op": f32[3,5] with T(2,2) is padded to [4,6], 24 elements
 *         for 15, about 1.6x.
 */
double scale_measure_tiled_elements(int64_t rows, int64_t cols, int64_t tile_rows,
                                    int64_t tile_cols);

/* ---- latency and bandwidth (alpha-beta) ------------------------------------------------------ */

/** Weighted least-squares line y = intercept + slope x through (x[i], y[i]), i < n, minimising
 * sum w[i] (intercept + slope x[i] - y[i])^2, into *intercept and *slope. 'w' NULL weighs every
 * point 1; w[i] = 1 / y[i]^2 minimises relative errors, which is how timings spanning several
 * decades are fitted (otherwise the largest transfer decides the latency). Used to fit the
 * alpha-beta model T = alpha + bytes / bandwidth to measured transfers.
 *
 * Errors: SCALE_ERR_INVALID for n < 2, NULL x or y, a non-finite value, a weight <= 0, or every
 *         x equal.
 */
scale_status scale_measure_fit_line(const double *x, const double *y, const double *w, size_t n,
                                    double *intercept, double *slope);

/** Message size at which a transfer's latency equals its bandwidth time: alpha x bandwidth.
 * Smaller messages are latency-bound, larger ones bandwidth-bound.
 *
 * Units:  alpha_s [s], bytes_per_s [bytes/s] -> [bytes].
 * Domain: alpha_s >= 0, bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 3 "A note on ICI latency" (the latency-bound regime of small collectives).
 */
double scale_measure_crossover_bytes(double alpha_s, double bytes_per_s);

/* ---- summaries of repeated timings ------------------------------------------------------------ */

/** Median of times[0..n) (the mean of the middle two for even n), without changing the input.
 *
 * Units:  [s] -> [s]. Domain: 1 <= n <= 1024, every time finite and >= 0; NaN otherwise.
 */
double scale_measure_median_s(const double *times, size_t n);

/** Smallest of times[0..n): the best repetition, which a noisy shared machine reports most
 * faithfully for a compute-bound kernel.
 *
 * Units:  [s] -> [s]. Domain: n >= 1, every time finite and >= 0; NaN otherwise.
 */
double scale_measure_min_s(const double *times, size_t n);

#endif
