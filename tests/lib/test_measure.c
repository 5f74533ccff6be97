/* test_measure.c — measure.h: the arithmetic behind `scale measure` and chapter 9, against
 * hand derivations, and the book's profiling chapter's own worked numbers.
 *
 * Book = "How to Scale Your Model" (jax-ml/scaling-book), profiling.md and roofline.md.
 */
#include <math.h>

#include "scale/measure.h"
#include "scale_check.h"

#define EXACT 1e-12
#define BOOK3 5e-3

START_TEST(gemm_counts_by_hand) {
  /* 2 x 3 x 4 x 5 = 120 FLOPs; fp32 bytes 4 (3*5 + 5*4 + 3*4) = 4 x 47 = 188. */
  scale_check_rel(scale_measure_gemm_flops(3, 4, 5), 120.0, EXACT, "FLOP", "hand: 2mnk");
  scale_check_rel(scale_measure_gemm_bytes(3, 4, 5, 4.0), 188.0, EXACT, "bytes",
                  "hand: 4 (mk + kn + mn)");
  scale_check_rel(scale_measure_gemm_intensity_flops_per_byte(3, 4, 5, 4.0), 120.0 / 188.0, EXACT,
                  "FLOP/byte", "hand: 120 / 188");
  /* Square fp32 N: 2N^3 / (12 N^2) = N/6; N = 1024 gives 170.67. fp64: N/12. */
  scale_check_rel(scale_measure_gemm_intensity_flops_per_byte(1024, 1024, 1024, 4.0), 1024.0 / 6.0,
                  EXACT, "FLOP/byte", "hand: square fp32 N/6");
  scale_check_rel(scale_measure_gemm_intensity_flops_per_byte(1024, 1024, 1024, 8.0),
                  1024.0 / 12.0, EXACT, "FLOP/byte", "hand: square fp64 N/12");
  /* Skinny: a matrix-vector product m = 1, n = k = 4096 in fp32: 2 * 4096^2 / (4 (4096 +
   * 4096^2 + 4096)) = 8192 / (4 * 4098) = 0.49976: a GEMV is memory-bound everywhere. */
  scale_check_rel(scale_measure_gemm_intensity_flops_per_byte(1, 4096, 4096, 4.0),
                  8192.0 / (4.0 * 4098.0), EXACT, "FLOP/byte", "hand: GEMV ~ 1/2");
  /* No integer overflow at sizes where 2mnk passes 2^63: 2 * (2^22)^3 = 2^67. */
  scale_check_rel(scale_measure_gemm_flops(1 << 22, 1 << 22, 1 << 22), ldexp(1.0, 67), EXACT,
                  "FLOP", "hand: 2^67 in double");
}
END_TEST

START_TEST(gemm_domain) {
  scale_check_nan(scale_measure_gemm_flops(0, 4, 5));
  scale_check_nan(scale_measure_gemm_flops(3, -1, 5));
  scale_check_nan(scale_measure_gemm_bytes(3, 4, 5, 0.0));
  scale_check_nan(scale_measure_gemm_bytes(3, 4, 5, (double)NAN));
  scale_check_nan(scale_measure_gemm_intensity_flops_per_byte(3, 4, 0, 4.0));
}
END_TEST

START_TEST(stream_accounting) {
  /* STREAM's table: copy and scale 16 bytes per double element, add and triad 24. */
  scale_check_rel(scale_stream_bytes(SCALE_STREAM_COPY, 1000, 8.0), 16000.0, EXACT, "bytes",
                  "STREAM: copy 2 arrays");
  scale_check_rel(scale_stream_bytes(SCALE_STREAM_SCALE, 1000, 8.0), 16000.0, EXACT, "bytes",
                  "STREAM: scale 2 arrays");
  scale_check_rel(scale_stream_bytes(SCALE_STREAM_ADD, 1000, 8.0), 24000.0, EXACT, "bytes",
                  "STREAM: add 3 arrays");
  scale_check_rel(scale_stream_bytes(SCALE_STREAM_TRIAD, 1000, 8.0), 24000.0, EXACT, "bytes",
                  "STREAM: triad 3 arrays");
  scale_check_rel(scale_stream_flops(SCALE_STREAM_COPY, 1000), 0.0, EXACT, "FLOP", "copy: none");
  scale_check_rel(scale_stream_flops(SCALE_STREAM_TRIAD, 1000), 2000.0, EXACT, "FLOP",
                  "triad: multiply and add");
  ck_assert_str_eq(scale_stream_kernel_name(SCALE_STREAM_TRIAD), "triad");
  ck_assert_str_eq(scale_stream_kernel_name(SCALE_STREAM_COUNT), "?");
  scale_check_nan(scale_stream_bytes(SCALE_STREAM_COUNT, 1000, 8.0));
  scale_check_nan(scale_stream_bytes(SCALE_STREAM_ADD, 0, 8.0));
  scale_check_nan(scale_stream_flops((scale_stream_kernel)-1, 10));
}
END_TEST

START_TEST(cpu_peak) {
  /* One core at 3 GHz with two 256-bit FMA units: fp32 8 lanes x 2 units x 2 = 32 FLOP/cycle,
   * 9.6e10 FLOP/s; fp64 half of it. */
  scale_check_rel(scale_measure_cpu_peak_flops_per_s(1.0, 3e9, 256.0, 2.0, 4.0), 9.6e10, EXACT,
                  "FLOP/s", "hand: 1 x 3e9 x 2 x 8 x 2");
  scale_check_rel(scale_measure_cpu_peak_flops_per_s(1.0, 3e9, 256.0, 2.0, 8.0), 4.8e10, EXACT,
                  "FLOP/s", "hand: fp64 half");
  scale_check_nan(scale_measure_cpu_peak_flops_per_s(1.0, 3e9, 16.0, 2.0, 4.0)); /* < 1 lane */
  scale_check_nan(scale_measure_cpu_peak_flops_per_s(0.0, 3e9, 256.0, 2.0, 4.0));
  scale_check_nan(scale_measure_cpu_peak_flops_per_s(1.0, (double)NAN, 256.0, 2.0, 4.0));
}
END_TEST

START_TEST(roof_and_expected_time) {
  /* Roof 1e11 FLOP/s over 1e10 bytes/s: the knee at 10 FLOP/byte; at 2 the slope 2e10. */
  scale_check_rel(scale_measure_roof_flops_per_s(1e11, 1e10, 2.0), 2e10, EXACT, "FLOP/s",
                  "hand: below the knee");
  scale_check_rel(scale_measure_roof_flops_per_s(1e11, 1e10, 50.0), 1e11, EXACT, "FLOP/s",
                  "hand: above the knee");
  scale_check_rel(scale_measure_roof_flops_per_s(1e11, 1e10, 10.0), 1e11, EXACT, "FLOP/s",
                  "hand: at the knee both agree");
  scale_check_nan(scale_measure_roof_flops_per_s(1e11, 0.0, 2.0));
  scale_check_nan(scale_measure_roof_flops_per_s(1e11, 1e10, -1.0));
  /* 1e9 FLOPs and 4e8 bytes: 10 ms of math, 40 ms of memory: 40 ms. */
  scale_check_rel(scale_measure_expected_time_s(1e9, 4e8, 1e11, 1e10), 0.04, EXACT, "s",
                  "hand: memory-bound max");
  scale_check_rel(scale_measure_expected_time_s(1e9, 0.0, 1e11, 1e10), 0.01, EXACT, "s",
                  "hand: compute only");
  scale_check_nan(scale_measure_expected_time_s(-1.0, 0.0, 1e11, 1e10));
}
END_TEST

START_TEST(book_profiling_matmul) {
  /* Book ch. 9: X bf16[32,1024,8192] . W bf16[8192,32768] on 8 TPU v2 cores of 23e12 FLOP/s:
   * "2 * 32 * 1024 * 8192 * 32768 / (23e12 * 8) = 95.6ms", measured 96 ms. */
  double flops = scale_measure_gemm_flops(32 * 1024, 32768, 8192);
  double bytes = scale_measure_gemm_bytes(32 * 1024, 32768, 8192, 2.0);
  /* The bandwidth is irrelevant as long as the op is compute-bound: use v2's 7e11 HBM. */
  double t = scale_measure_expected_time_s(flops, bytes, 23e12 * 8.0, 7e11 * 8.0);
  scale_check_rel(t, 95.6e-3, BOOK3, "s", "ch. 9: 95.6 ms");
  /* 95.6 expected against 96 measured: 99.6% of peak. */
  scale_check_rel(scale_measure_achieved_frac(flops, 96e-3, 23e12 * 8.0), 95.6 / 96.0, BOOK3,
                  "fraction", "ch. 9: 95.6 / 96");
  scale_check_nan(scale_measure_achieved_frac(flops, 0.0, 1.0));
}
END_TEST

START_TEST(tiled_padding) {
  /* Book ch. 9: f32[3,5] with T(2,2) pads to [4,6]: 24 elements for 15, "about 1.6x". */
  scale_check_rel(scale_measure_tiled_elements(3, 5, 2, 2), 24.0, EXACT, "elements",
                  "ch. 9: [3,5] -> [4,6]");
  scale_check_rel(scale_measure_tiled_elements(3, 5, 2, 2) / 15.0, 1.6, EXACT, "ratio",
                  "ch. 9: about 1.6x");
  /* Hand: an exact fit pads nothing; bf16[8, 8192] in T(8,128) is 65536 elements. */
  scale_check_rel(scale_measure_tiled_elements(8, 8192, 8, 128), 65536.0, EXACT, "elements",
                  "hand: whole tiles");
  /* Hand: one element in an (8,128) tile occupies the whole tile. */
  scale_check_rel(scale_measure_tiled_elements(1, 1, 8, 128), 1024.0, EXACT, "elements",
                  "hand: one tile");
  scale_check_nan(scale_measure_tiled_elements(0, 5, 2, 2));
  scale_check_nan(scale_measure_tiled_elements(3, 5, 2, 0));
}
END_TEST

START_TEST(alpha_beta) {
  /* Points on T = 2e-6 + V / 1e9 exactly: the fit returns them (1e-12 relative). */
  const double v[] = {8, 1024, 65536, 1048576, 4194304};
  double t[5];
  for (int i = 0; i < 5; i++) t[i] = 2e-6 + v[i] / 1e9;
  double a = (double)NAN, b = (double)NAN;
  ck_assert_int_eq(scale_measure_fit_line(v, t, NULL, 5, &a, &b), SCALE_OK);
  scale_check_rel(a, 2e-6, 1e-9, "s", "hand: intercept alpha");
  scale_check_rel(b, 1e-9, 1e-12, "s/byte", "hand: slope 1 / bandwidth");
  /* Hand: (0, 1), (1, 0), (2, 3): mean x 1, mean y 4/3, sxy = (-1)(-1/3) + (1)(5/3) = 2,
   * sxx = 2: slope 1, intercept 4/3 - 1 = 1/3. */
  const double x3[] = {0, 1, 2}, y3[] = {1, 0, 3};
  ck_assert_int_eq(scale_measure_fit_line(x3, y3, NULL, 3, &a, &b), SCALE_OK);
  scale_check_rel(b, 1.0, EXACT, "", "hand: slope");
  scale_check_rel(a, 1.0 / 3.0, EXACT, "", "hand: intercept");
  const double same[] = {1, 1, 1};
  ck_assert_int_eq(scale_measure_fit_line(same, y3, NULL, 3, &a, &b), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_measure_fit_line(x3, y3, NULL, 1, &a, &b), SCALE_ERR_INVALID);
  /* Weights: exact points fit exactly whatever the weights; a weight of 0 is refused. Hand:
   * (0, 0), (1, 1), (2, 4) with weights 1, 1, 1e-9 tend to the line through the first two. */
  double w5[5];
  for (int i = 0; i < 5; i++) w5[i] = 1.0 / (t[i] * t[i]);
  ck_assert_int_eq(scale_measure_fit_line(v, t, w5, 5, &a, &b), SCALE_OK);
  scale_check_rel(a, 2e-6, 1e-9, "s", "hand: weighted, exact points");
  const double xw[] = {0, 1, 2}, yw[] = {0, 1, 4}, ww[] = {1, 1, 1e-9}, wz[] = {1, 0, 1};
  ck_assert_int_eq(scale_measure_fit_line(xw, yw, ww, 3, &a, &b), SCALE_OK);
  scale_check_rel(b, 1.0, 1e-6, "", "hand: the third point weighs nothing");
  ck_assert_int_eq(scale_measure_fit_line(xw, yw, wz, 3, &a, &b), SCALE_ERR_INVALID);
  /* Crossover: 2 us of latency at 1e9 bytes/s: 2000 bytes. */
  scale_check_rel(scale_measure_crossover_bytes(2e-6, 1e9), 2000.0, EXACT, "bytes",
                  "hand: alpha x bandwidth");
  scale_check_nan(scale_measure_crossover_bytes(2e-6, 0.0));
  scale_check_nan(scale_measure_crossover_bytes(-1.0, 1e9));
}
END_TEST

START_TEST(summaries) {
  const double odd[] = {3.0, 1.0, 2.0};
  const double even[] = {4.0, 1.0, 3.0, 2.0};
  scale_check_rel(scale_measure_median_s(odd, 3), 2.0, EXACT, "s", "hand: middle of 1 2 3");
  scale_check_rel(scale_measure_median_s(even, 4), 2.5, EXACT, "s", "hand: mean of 2 and 3");
  ck_assert(odd[0] == 3.0 && odd[1] == 1.0); /* the input is untouched */
  scale_check_rel(scale_measure_min_s(even, 4), 1.0, EXACT, "s", "hand: best of 4");
  const double bad[] = {1.0, (double)NAN};
  scale_check_nan(scale_measure_median_s(bad, 2));
  scale_check_nan(scale_measure_min_s(bad, 2));
  scale_check_nan(scale_measure_median_s(odd, 0));
}
END_TEST

static Suite *measure_suite(void) {
  Suite *s = suite_create("measure");
  const scale_check_case cases[] = {
      {"gemm_counts_by_hand", gemm_counts_by_hand},
      {"gemm_domain", gemm_domain},
      {"stream_accounting", stream_accounting},
      {"cpu_peak", cpu_peak},
      {"roof_and_expected_time", roof_and_expected_time},
      {"book_profiling_matmul", book_profiling_matmul},
      {"tiled_padding", tiled_padding},
      {"alpha_beta", alpha_beta},
      {"summaries", summaries},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(measure_suite()); }
