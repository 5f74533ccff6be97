/* test_09_profiling.c — grading of chapter 9's exercises (exercises/09-profiling/profiling_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named) or a hand derivation, then the stored answers over a grid of inputs
 * including domain edges.
 * Book: jax-ml/scaling-book, profiling.md ("How to Profile TPU Programs") and roofline.md.
 */
#include "profiling_ex.h"

#include "grading.h"
#include "grading_ref_profiling.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const int64_t dims[] = {1, 3, 128, 4096, 32768, 0, -2};
static const double rates[] = {23e12 * 8, 1.97e14, 1e11, 1.0, 0.0, -1.0, NAN};
static const double amounts[] = {0.0, 1.0, 134217728.0, 1e12, -1.0, NAN};

START_TEST(profiling_expected_matmul_time_s) {
  /* Book ch. 9: 2 * 32 * 1024 * 8192 * 32768 / (23e12 * 8) = 95.6 ms (exact 95.62 ms). */
  GRADE_BOOK(ex_profiling_expected_matmul_time_s(32 * 1024, 8192, 32768, 23e12 * 8), 95.6e-3,
             1e-3, "s", "ch. 9: 95.6 ms");
  /* Hand: 2 * 4 * 5 * 6 = 240 FLOPs at 120 FLOP/s take 2 s; 2^67 FLOPs stay finite. */
  GRADE_BOOK(ex_profiling_expected_matmul_time_s(4, 5, 6, 120.0), 2.0, 1e-12, "s", "hand: 2BDF/C");
  GRADE_BOOK(ex_profiling_expected_matmul_time_s(1 << 22, 1 << 22, 1 << 22, 1.0),
             1.4757395258967641e20, 1e-12, "s", "hand: 2^67 in double, no integer overflow");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(rates); j++) {
      int64_t b = dims[i], d = dims[(i + 2) % N_OF(dims)], f = dims[(i + j) % N_OF(dims)];
      GRADE_VS_REF(ex_profiling_expected_matmul_time_s(b, d, f, rates[j]),
                   ref_profiling_expected_matmul_time_s(b, d, f, rates[j]), "s",
                   "ex_profiling_expected_matmul_time_s(%lld, %lld, %lld, %g)", (long long)b,
                   (long long)d, (long long)f, rates[j]);
    }
}
END_TEST

START_TEST(profiling_reduce_scatter_time_s) {
  /* Book ch. 9: bf16[32, 1024, 8192] is 2 * 32 * 1024 * 8192 = 536870912 bytes; 4 batch shards
   * of 134217728 bytes ("134MB") over 1.2e11 byte/s: "roughly 1.1ms" (exact 1.118 ms). */
  GRADE_BOOK(ex_profiling_reduce_scatter_time_s(536870912.0, 4, 1.2e11), 1.1e-3, 2e-2, "s",
             "ch. 9: roughly 1.1 ms");
  GRADE_BOOK(ex_profiling_reduce_scatter_time_s(536870912.0, 4, 1.2e11), 134217728.0 / 1.2e11,
             1e-12, "s", "hand: 134217728 / 1.2e11");
  static const int64_t shards[] = {1, 2, 4, 7, 0, -1};
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(shards); j++)
      for (size_t k = 0; k < N_OF(rates); k += 2)
        GRADE_VS_REF(ex_profiling_reduce_scatter_time_s(amounts[i], shards[j], rates[k]),
                     ref_profiling_reduce_scatter_time_s(amounts[i], shards[j], rates[k]), "s",
                     "ex_profiling_reduce_scatter_time_s(%g, %lld, %g)", amounts[i],
                     (long long)shards[j], rates[k]);
}
END_TEST

START_TEST(profiling_tiled_padding_factor) {
  /* Book ch. 9: f32[3,5] with T(2,2) is padded to [4,6]: 24 / 15 = 1.6, "about 1.6x". */
  GRADE_BOOK(ex_profiling_tiled_padding_factor(3, 5, 2, 2), 1.6, 1e-12, "ratio",
             "ch. 9: [3,5] -> [4,6]");
  /* Hand: whole tiles pad nothing; one element in an (8,128) tile costs 1024. */
  GRADE_BOOK(ex_profiling_tiled_padding_factor(32, 8192, 8, 128), 1.0, 1e-12, "ratio",
             "hand: bf16[32,8192] in T(8,128)");
  GRADE_BOOK(ex_profiling_tiled_padding_factor(1, 1, 8, 128), 1024.0, 1e-12, "ratio",
             "hand: one element, one tile");
  static const int64_t sizes[] = {1, 3, 5, 8, 100, 129, 0, -4};
  static const int64_t tiles[] = {1, 2, 8, 128, 0};
  for (size_t i = 0; i < N_OF(sizes); i++)
    for (size_t j = 0; j < N_OF(tiles); j++) {
      int64_t r = sizes[i], c = sizes[(i + 3) % N_OF(sizes)];
      int64_t tr = tiles[j], tc = tiles[(j + 2) % N_OF(tiles)];
      GRADE_VS_REF(ex_profiling_tiled_padding_factor(r, c, tr, tc),
                   ref_profiling_tiled_padding_factor(r, c, tr, tc), "ratio",
                   "ex_profiling_tiled_padding_factor(%lld, %lld, %lld, %lld)", (long long)r,
                   (long long)c, (long long)tr, (long long)tc);
    }
}
END_TEST

START_TEST(profiling_true_dim) {
  /* Book ch. 9 Question 1: local W [4096, 8192], replica group {0,16,...,112}: 8-way model
   * parallelism, so W is [32768, 8192]. */
  GRADE_BOOK(ex_profiling_true_dim(4096, 0, 16, 112), 32768.0, 1e-12, "elements",
             "ch. 9 Q1: 32,768");
  /* Hand: a group of one device is the array itself; {3, 5, 7} is 3 devices. */
  GRADE_BOOK(ex_profiling_true_dim(10, 5, 4, 5), 10.0, 1e-12, "elements", "hand: one device");
  GRADE_BOOK(ex_profiling_true_dim(10, 3, 2, 7), 30.0, 1e-12, "elements", "hand: {3,5,7}");
  static const int64_t firsts[] = {0, 1, 16, -1};
  static const int64_t strides[] = {1, 2, 16, 0, -16};
  static const int64_t lasts[] = {0, 7, 112, 113, -5};
  for (size_t i = 0; i < N_OF(firsts); i++)
    for (size_t j = 0; j < N_OF(strides); j++)
      for (size_t k = 0; k < N_OF(lasts); k++) {
        int64_t local = dims[(i + j + k) % N_OF(dims)];
        GRADE_VS_REF(ex_profiling_true_dim(local, firsts[i], strides[j], lasts[k]),
                     ref_profiling_true_dim(local, firsts[i], strides[j], lasts[k]), "elements",
                     "ex_profiling_true_dim(%lld, %lld, %lld, %lld)", (long long)local,
                     (long long)firsts[i], (long long)strides[j], (long long)lasts[k]);
      }
}
END_TEST

START_TEST(profiling_gemm_intensity_flops_per_byte) {
  /* Hand: square fp32 N: 2N^3 / (12 N^2) = N/6; 1024 -> 170.67. GEMV m = 1, n = k = 4096 in
   * fp32: 8192 / (4 * 4098) = 0.49976. Book ch. 1 Q1 int8 (1 byte), B = 512, D = F = 8192:
   * 2BDF / (BD + DF + BF) = 910.2. */
  GRADE_BOOK(ex_profiling_gemm_intensity_flops_per_byte(1024, 1024, 1024, 4.0), 1024.0 / 6.0,
             1e-12, "FLOP/byte", "hand: N/6");
  GRADE_BOOK(ex_profiling_gemm_intensity_flops_per_byte(1, 4096, 4096, 4.0),
             8192.0 / (4.0 * 4098.0), 1e-12, "FLOP/byte", "hand: GEMV about 1/2");
  GRADE_BOOK(ex_profiling_gemm_intensity_flops_per_byte(512, 8192, 8192, 1.0),
             2.0 * 512 * 8192 * 8192 / (512.0 * 8192 * 2 + 8192.0 * 8192), 1e-12, "FLOP/byte",
             "ch. 1 Q1: 2BDF / (BD + DF + BF)");
  static const double elems[] = {1.0, 2.0, 4.0, 8.0, 0.0, -4.0, NAN};
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(elems); j++) {
      int64_t m = dims[i], n = dims[(i + j) % N_OF(dims)], k = dims[(i + 2 * j) % N_OF(dims)];
      GRADE_VS_REF(ex_profiling_gemm_intensity_flops_per_byte(m, n, k, elems[j]),
                   ref_profiling_gemm_intensity_flops_per_byte(m, n, k, elems[j]), "FLOP/byte",
                   "ex_profiling_gemm_intensity_flops_per_byte(%lld, %lld, %lld, %g)",
                   (long long)m, (long long)n, (long long)k, elems[j]);
    }
}
END_TEST

START_TEST(profiling_cpu_peak_flops_per_s) {
  /* Hand: 2 cores x 2.6e9 x 2 FMA units x 16 fp32 lanes (512 bits) x 2 = 3.328e11; fp64 half;
   * one 256-bit FMA unit at 3 GHz on one core in fp32: 3e9 x 8 x 2 = 4.8e10. */
  GRADE_BOOK(ex_profiling_cpu_peak_flops_per_s(2, 2.6e9, 512, 2, 4), 3.328e11, 1e-12, "FLOP/s",
             "hand: 2 x 2.6e9 x 2 x 16 x 2");
  GRADE_BOOK(ex_profiling_cpu_peak_flops_per_s(2, 2.6e9, 512, 2, 8), 1.664e11, 1e-12, "FLOP/s",
             "hand: fp64 has half the lanes");
  GRADE_BOOK(ex_profiling_cpu_peak_flops_per_s(1, 3e9, 256, 1, 4), 4.8e10, 1e-12, "FLOP/s",
             "hand: one unit, 8 lanes");
  static const double cores[] = {1, 2, 64, 0, -1};
  static const double bits[] = {128, 256, 512, 16, 0, NAN};
  for (size_t i = 0; i < N_OF(cores); i++)
    for (size_t j = 0; j < N_OF(bits); j++) {
      double clock = j % 2 ? 2.6e9 : 3.7e9, units = i % 2 ? 2.0 : 1.0, elem = j % 3 ? 4.0 : 8.0;
      GRADE_VS_REF(ex_profiling_cpu_peak_flops_per_s(cores[i], clock, bits[j], units, elem),
                   ref_profiling_cpu_peak_flops_per_s(cores[i], clock, bits[j], units, elem),
                   "FLOP/s", "ex_profiling_cpu_peak_flops_per_s(%g, %g, %g, %g, %g)", cores[i],
                   clock, bits[j], units, elem);
    }
  GRADE_VS_REF(ex_profiling_cpu_peak_flops_per_s(2, 2.6e9, 512, 0, 4),
               ref_profiling_cpu_peak_flops_per_s(2, 2.6e9, 512, 0, 4), "FLOP/s",
               "ex_profiling_cpu_peak_flops_per_s(2, 2.6e9, 512, 0, 4)");
  GRADE_VS_REF(ex_profiling_cpu_peak_flops_per_s(2, -1, 512, 2, 4),
               ref_profiling_cpu_peak_flops_per_s(2, -1, 512, 2, 4), "FLOP/s",
               "ex_profiling_cpu_peak_flops_per_s(2, -1, 512, 2, 4)");
}
END_TEST

START_TEST(profiling_roofline_time_s) {
  /* Hand: 1e9 FLOPs at 1e11 = 10 ms, 4e8 bytes at 2e10 = 20 ms: memory-bound, 20 ms. Book
   * ch. 9: the 95.6 ms matmul is compute-bound on any sensible bandwidth. */
  GRADE_BOOK(ex_profiling_roofline_time_s(1e9, 4e8, 1e11, 2e10), 0.02, 1e-12, "s",
             "hand: max(10 ms, 20 ms)");
  GRADE_BOOK(ex_profiling_roofline_time_s(1e9, 1e8, 1e11, 2e10), 0.01, 1e-12, "s",
             "hand: max(10 ms, 5 ms)");
  GRADE_BOOK(ex_profiling_roofline_time_s(2.0 * 32 * 1024 * 8192 * 32768, 1.2e9, 23e12 * 8, 5.6e12),
             95.6e-3, 1e-3, "s", "ch. 9: 95.6 ms, compute-bound");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(amounts); j++)
      for (size_t k = 0; k < N_OF(rates); k += 3) {
        double bw = rates[(k + 1) % N_OF(rates)];
        GRADE_VS_REF(ex_profiling_roofline_time_s(amounts[i], amounts[j], rates[k], bw),
                     ref_profiling_roofline_time_s(amounts[i], amounts[j], rates[k], bw), "s",
                     "ex_profiling_roofline_time_s(%g, %g, %g, %g)", amounts[i], amounts[j],
                     rates[k], bw);
      }
}
END_TEST

START_TEST(profiling_achieved_frac) {
  /* Book ch. 9: 95.6 ms expected, 96 ms measured: 99.6% of peak. */
  double flops = 2.0 * 32 * 1024 * 8192 * 32768;
  GRADE_BOOK(ex_profiling_achieved_frac(flops, 96e-3, 23e12 * 8), 0.996, 1e-3, "fraction",
             "ch. 9: 95.6 / 96");
  GRADE_BOOK(ex_profiling_achieved_frac(50.0, 1.0, 100.0), 0.5, 1e-12, "fraction",
             "hand: 50 per second of 100");
  static const double times[] = {1e-3, 0.5, 2.0, 0.0, -1.0, NAN};
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(times); j++)
      for (size_t k = 0; k < N_OF(rates); k += 2)
        GRADE_VS_REF(ex_profiling_achieved_frac(amounts[i], times[j], rates[k]),
                     ref_profiling_achieved_frac(amounts[i], times[j], rates[k]), "fraction",
                     "ex_profiling_achieved_frac(%g, %g, %g)", amounts[i], times[j], rates[k]);
}
END_TEST

START_TEST(profiling_stream_bandwidth_bytes_per_s) {
  /* Hand: a triad over 1e7 doubles moves 3 x 8e7 = 2.4e8 bytes; in 4 ms that is 6e10 byte/s.
   * A copy of the same moves 1.6e8 bytes: 4e10 byte/s. */
  GRADE_BOOK(ex_profiling_stream_bandwidth_bytes_per_s(3, 10000000, 8, 4e-3), 6e10, 1e-12,
             "byte/s", "hand: triad 3 arrays");
  GRADE_BOOK(ex_profiling_stream_bandwidth_bytes_per_s(0, 10000000, 8, 4e-3), 4e10, 1e-12,
             "byte/s", "hand: copy 2 arrays");
  static const int kernels[] = {0, 1, 2, 3, 4, -1};
  static const double times[] = {1e-3, 2.0, 0.0, NAN};
  for (size_t i = 0; i < N_OF(kernels); i++)
    for (size_t j = 0; j < N_OF(dims); j++)
      for (size_t k = 0; k < N_OF(times); k++) {
        double elem = k % 2 ? 4.0 : 8.0;
        GRADE_VS_REF(ex_profiling_stream_bandwidth_bytes_per_s(kernels[i], dims[j], elem, times[k]),
                     ref_profiling_stream_bandwidth_bytes_per_s(kernels[i], dims[j], elem,
                                                                times[k]),
                     "byte/s", "ex_profiling_stream_bandwidth_bytes_per_s(%d, %lld, %g, %g)",
                     kernels[i], (long long)dims[j], elem, times[k]);
      }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("09-profiling");
  grade_add(suite, "profiling.expected_matmul_time_s", profiling_expected_matmul_time_s);
  grade_add(suite, "profiling.reduce_scatter_time_s", profiling_reduce_scatter_time_s);
  grade_add(suite, "profiling.tiled_padding_factor", profiling_tiled_padding_factor);
  grade_add(suite, "profiling.true_dim", profiling_true_dim);
  grade_add(suite, "profiling.gemm_intensity_flops_per_byte",
            profiling_gemm_intensity_flops_per_byte);
  grade_add(suite, "profiling.cpu_peak_flops_per_s", profiling_cpu_peak_flops_per_s);
  grade_add(suite, "profiling.roofline_time_s", profiling_roofline_time_s);
  grade_add(suite, "profiling.achieved_frac", profiling_achieved_frac);
  grade_add(suite, "profiling.stream_bandwidth_bytes_per_s",
            profiling_stream_bandwidth_bytes_per_s);
  return grade_run(suite);
}
