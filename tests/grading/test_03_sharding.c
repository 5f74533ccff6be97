/* test_03_sharding.c — grading of chapter 3's exercises (exercises/03-sharding/sharding_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named), then the reference over a grid of inputs including domain edges.
 * Book: jax-ml/scaling-book, sharding.md ("Sharded Matrices and How to Multiply Them").
 */
#include "sharding_ex.h"

#include <string.h>

#include "grading.h"
#include "grading_decision.h"
#include "grading_ref_sharding.h"

static const double rates[] = {9e10, 4.5e10, 1.8e11, 4.59e14, 1.0, 0.0, -1.0, NAN};
static const double amounts[] = {0.0, 256.0, 32768.0, 8388608.0, 1e12, -1.0, NAN};
static const int64_t counts[] = {1, 2, 3, 4, 8, 16, 64, 0, -4};
static const int64_t dims[] = {1, 2, 1024, 8192, 32768, 0, -1};
static const double latencies[] = {1e-6, 0.0, -1e-6, NAN};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(sharding_bytes_per_device) {
  /* Book ch. 3 Pop Quiz: int8[128, 2048] as A[I_XY, J] on {X: 2, Y: 8, Z: 2}: int8[8, 2048],
   * "16,384 bytes" per device. */
  GRADE_BOOK(ex_sharding_bytes_per_device(128.0 * 2048.0, 2 * 8), 16384.0, 1e-12, "byte",
             "ch. 3 Pop Quiz: 16,384 bytes per device");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_sharding_bytes_per_device(amounts[i], counts[j]),
                   ref_sharding_bytes_per_device(amounts[i], counts[j]), "byte",
                   "ex_sharding_bytes_per_device(%g, %lld)", amounts[i], (long long)counts[j]);
}
END_TEST

START_TEST(sharding_total_bytes) {
  /* Book ch. 3 Pop Quiz: one copy per Z-plane, 2 planes: "128 * 2048 * 2 = 512kiB" = 524288. */
  GRADE_BOOK(ex_sharding_total_bytes(128.0 * 2048.0, 32, 16), 524288.0, 1e-12, "byte",
             "ch. 3 Pop Quiz: 512 KiB in total");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t k = 0; k < N_OF(counts); k++)
        GRADE_VS_REF(ex_sharding_total_bytes(amounts[i], counts[j], counts[k]),
                     ref_sharding_total_bytes(amounts[i], counts[j], counts[k]), "byte",
                     "ex_sharding_total_bytes(%g, %lld, %lld)", amounts[i], (long long)counts[j],
                     (long long)counts[k]);
}
END_TEST

START_TEST(sharding_replication_ratio) {
  /* Book ch. 3 Question 1: A[I_X, ...] on {X: 4, Y: 8, Z: 2} (64 devices): ratio Y * Z = 16. */
  GRADE_BOOK(ex_sharding_replication_ratio(4 * 8 * 2, 4), 16.0, 0.0, "", "ch. 3 Question 1: 16");
  for (size_t i = 0; i < N_OF(counts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_sharding_replication_ratio(counts[i], counts[j]),
                   ref_sharding_replication_ratio(counts[i], counts[j]), "",
                   "ex_sharding_replication_ratio(%lld, %lld)", (long long)counts[i],
                   (long long)counts[j]);
}
END_TEST

START_TEST(sharding_allgather_time_s) {
  /* Book ch. 3 Question 2 (TPU v4p 4x4x4, 9e10 byte/s bidi, B = 1024, D = 4096, bf16):
   * AllGather_X([B_X, D_Y]) gathers [B, D_Y] = 2 * 1024 * 4096 / 4 bytes: "23 us" (exact
   * 23.30 us); AllGather_XY gathers all 2BD bytes over 2 axes: "46us" (exact 46.60 us, the book
   * truncates; 2%). Question 3: B = 128 in bf16 (256 bytes) is latency-bound: 2 hops, "2us".
   * Pop Quiz 2 (v5e, were the axis a ring): "34e6 / 9e10 = 377us"; exact 33554432 / 9e10 =
   * 372.8 us (the book rounds 33.5e6 up to 34e6). */
  GRADE_BOOK(ex_sharding_allgather_time_s(2.0 * 1024 * 4096 / 4, 4, 1, 9e10, 1e-6), 23e-6, 2e-2,
             "s", "ch. 3 Question 2 part 1: 23 us");
  GRADE_BOOK(ex_sharding_allgather_time_s(2.0 * 1024 * 4096, 4 + 4, 2, 9e10, 1e-6), 46e-6, 2e-2,
             "s", "ch. 3 Question 2 part 2: 46 us");
  GRADE_BOOK(ex_sharding_allgather_time_s(256.0, 4, 1, 9e10, 1e-6), 2e-6, 1e-9, "s",
             "ch. 3 Question 3: latency-bound, 2 us");
  GRADE_BOOK(ex_sharding_allgather_time_s(33554432.0, 4, 1, 9e10, 1e-6), 33554432.0 / 9e10, 1e-9,
             "s", "ch. 3 Pop Quiz 2, exact (book prints 377 us from 34e6 bytes)");
  static const int64_t n_axes[] = {1, 2, 3, 0};
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t a = 0; a < N_OF(n_axes); a++)
        for (size_t r = 0; r < N_OF(rates); r++)
          for (size_t l = 0; l < N_OF(latencies); l++)
            GRADE_VS_REF(ex_sharding_allgather_time_s(amounts[i], counts[j], n_axes[a], rates[r],
                                                      latencies[l]),
                         ref_sharding_allgather_time_s(amounts[i], counts[j], n_axes[a], rates[r],
                                                       latencies[l]),
                         "s", "ex_sharding_allgather_time_s(%g, %lld, %lld, %g, %g)", amounts[i],
                         (long long)counts[j], (long long)n_axes[a], rates[r], latencies[l]);
}
END_TEST

START_TEST(sharding_allgather_no_wrap_time_s) {
  /* Book ch. 3 Pop Quiz 2: AllGather_Y of bf16[2048, 8192] on a v5e axis of 4 without wraparound:
   * 3 hops of 8.4e6 bytes at 4.5e10 byte/s, "3 * 8.4e6 / 4.5e10 = 560us" (exact
   * 3 * 8388608 / 4.5e10 = 559.24 us). With E = F = 256 each 32 KiB shard needs 0.73 us < 1 us,
   * so latency-bound: "3 * 1us = 3us". */
  GRADE_BOOK(ex_sharding_allgather_no_wrap_time_s(2.0 * 2048 * 8192, 4, 4.5e10, 1e-6), 560e-6, 2e-3,
             "s", "ch. 3 Pop Quiz 2 part 1: 560 us");
  GRADE_BOOK(ex_sharding_allgather_no_wrap_time_s(2.0 * 256 * 256, 4, 4.5e10, 1e-6), 3e-6, 1e-9,
             "s", "ch. 3 Pop Quiz 2 part 2: 3 us");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t r = 0; r < N_OF(rates); r++)
        for (size_t l = 0; l < N_OF(latencies); l++)
          GRADE_VS_REF(
              ex_sharding_allgather_no_wrap_time_s(amounts[i], counts[j], rates[r], latencies[l]),
              ref_sharding_allgather_no_wrap_time_s(amounts[i], counts[j], rates[r], latencies[l]),
              "s", "ex_sharding_allgather_no_wrap_time_s(%g, %lld, %g, %g)", amounts[i],
              (long long)counts[j], rates[r], latencies[l]);
}
END_TEST

START_TEST(sharding_latency_bound_bytes) {
  /* Book ch. 3 "A note on ICI latency": "4.5e10 * 1e-6 = 45kB". */
  GRADE_BOOK(ex_sharding_latency_bound_bytes(4.5e10, 1e-6), 45e3, 1e-9, "byte",
             "ch. 3 ICI latency note: 45 kB");
  for (size_t r = 0; r < N_OF(rates); r++)
    for (size_t l = 0; l < N_OF(latencies); l++)
      GRADE_VS_REF(ex_sharding_latency_bound_bytes(rates[r], latencies[l]),
                   ref_sharding_latency_bound_bytes(rates[r], latencies[l]), "byte",
                   "ex_sharding_latency_bound_bytes(%g, %g)", rates[r], latencies[l]);
}
END_TEST

START_TEST(sharding_allreduce_time_s) {
  /* Book ch. 3 Question 2 part 3: AllReduce_Z([B_X, D_Y]{U_Z}), B = 1024, D = 4096, bf16 at
   * 9e10 byte/s. Each device's [B_X, D_Y] shard is 2BD / 16 = 524288 bytes; the book computes
   * "4BD / (X * Y * W) = 4 * 1024 * 4096 / (16 * 9e10) = 11.6us" (exact 11.65 us, tested at 1%
   * and exactly). The older edition (0819a7d) priced the unsharded array, 4BD / W = 190us. */
  GRADE_BOOK(ex_sharding_allreduce_time_s(2.0 * 1024 * 4096 / 16, 9e10), 11.6e-6, 1e-2, "s",
             "ch. 3 Question 2 part 3: 11.6 us");
  GRADE_BOOK(ex_sharding_allreduce_time_s(2.0 * 1024 * 4096 / 16, 9e10), 2.0 * 524288 / 9e10, 1e-9,
             "s", "hand: ch. 3 Question 2 part 3 on the [B_X, D_Y] shard");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t r = 0; r < N_OF(rates); r++)
      GRADE_VS_REF(ex_sharding_allreduce_time_s(amounts[i], rates[r]),
                   ref_sharding_allreduce_time_s(amounts[i], rates[r]), "s",
                   "ex_sharding_allreduce_time_s(%g, %g)", amounts[i], rates[r]);
}
END_TEST

START_TEST(sharding_alltoall_time_s) {
  /* Book ch. 3 AllToAll: a quarter of an AllGather on a bidirectional ring. Hand: 2BD bytes of
   * Question 2 (8388608) at 9e10 byte/s: 8388608 / (4 * 9e10) = 23.30 us. */
  GRADE_BOOK(ex_sharding_alltoall_time_s(8388608.0, 9e10), 8388608.0 / 3.6e11, 1e-9, "s",
             "ch. 3 AllToAll = AllGather / 4");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t r = 0; r < N_OF(rates); r++)
      GRADE_VS_REF(ex_sharding_alltoall_time_s(amounts[i], rates[r]),
                   ref_sharding_alltoall_time_s(amounts[i], rates[r]), "s",
                   "ex_sharding_alltoall_time_s(%g, %g)", amounts[i], rates[r]);
}
END_TEST

START_TEST(sharding_strategy1_time_s) {
  /* Book ch. 3 Question 4, T = max(2BDF / C, 2DF / W) on a v5p (4.59e14, 1.8e11). Hand,
   * D = 8192, F = 32768: B = 1024 is comms-bound, 536870912 / 1.8e11 = 2.9826 ms; B = 4096 is
   * compute-bound, 2 * 4096 * 8192 * 32768 / 4.59e14 = 4.7909 ms. */
  GRADE_BOOK(ex_sharding_strategy1_time_s(1024, 8192, 32768, 4.59e14, 1.8e11), 536870912.0 / 1.8e11,
             1e-9, "s", "hand: ch. 3 Question 4 strategy 1 (comms)");
  GRADE_BOOK(ex_sharding_strategy1_time_s(4096, 8192, 32768, 4.59e14, 1.8e11),
             2199023255552.0 / 4.59e14, 1e-9, "s", "hand: ch. 3 Question 4 strategy 1 (math)");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(dims); j++)
      for (size_t r = 0; r < N_OF(rates); r++)
        GRADE_VS_REF(ex_sharding_strategy1_time_s(dims[i], dims[j], 4096, 4.59e14, rates[r]),
                     ref_sharding_strategy1_time_s(dims[i], dims[j], 4096, 4.59e14, rates[r]), "s",
                     "ex_sharding_strategy1_time_s(%lld, %lld, 4096, 4.59e14, %g)",
                     (long long)dims[i], (long long)dims[j], rates[r]);
  for (size_t j = 0; j < N_OF(dims); j++)
    for (size_t r = 0; r < N_OF(rates); r++)
      GRADE_VS_REF(ex_sharding_strategy1_time_s(256, 8192, dims[j], rates[r], 1.8e11),
                   ref_sharding_strategy1_time_s(256, 8192, dims[j], rates[r], 1.8e11), "s",
                   "ex_sharding_strategy1_time_s(256, 8192, %lld, %g, 1.8e11)", (long long)dims[j],
                   rates[r]);
}
END_TEST

START_TEST(sharding_strategy2_time_s) {
  /* Book ch. 3 Question 4, T = max(2BDF / (XC), 4BF / W). Hand, B = 1024, D = 8192, F = 32768,
   * X = 4 on a v5p: T_math = 549755813888 / (4 * 4.59e14) = 0.2994 ms, T_comms = 134217728 /
   * 1.8e11 = 0.7457 ms: comms-bound, 0.7457 ms (faster than strategy 1's 2.98 ms). */
  GRADE_BOOK(ex_sharding_strategy2_time_s(1024, 8192, 32768, 4, 4.59e14, 1.8e11),
             134217728.0 / 1.8e11, 1e-9, "s", "hand: ch. 3 Question 4 strategy 2");
  GRADE_BOOK(ex_sharding_strategy2_time_s(1024, 65536, 32768, 2, 4.59e14, 1.8e11),
             2.0 * 1024 * 65536 * 32768 / (2 * 4.59e14), 1e-9, "s",
             "hand: ch. 3 Question 4 strategy 2, compute-bound for D / 2X > C / W");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t x = 0; x < N_OF(counts); x++)
      for (size_t r = 0; r < N_OF(rates); r++)
        GRADE_VS_REF(
            ex_sharding_strategy2_time_s(dims[i], 8192, 2048, counts[x], 4.59e14, rates[r]),
            ref_sharding_strategy2_time_s(dims[i], 8192, 2048, counts[x], 4.59e14, rates[r]), "s",
            "ex_sharding_strategy2_time_s(%lld, 8192, 2048, %lld, 4.59e14, %g)", (long long)dims[i],
            (long long)counts[x], rates[r]);
  for (size_t j = 0; j < N_OF(dims); j++)
    for (size_t r = 0; r < N_OF(rates); r++)
      GRADE_VS_REF(ex_sharding_strategy2_time_s(64, dims[j], dims[j], 4, rates[r], 1.8e11),
                   ref_sharding_strategy2_time_s(64, dims[j], dims[j], 4, rates[r], 1.8e11), "s",
                   "ex_sharding_strategy2_time_s(64, %lld, %lld, 4, %g, 1.8e11)",
                   (long long)dims[j], (long long)dims[j], rates[r]);
}
END_TEST

START_TEST(sharding_strategy2_min_d) {
  /* Book ch. 3 Question 4: "D > 2 * 2550 = 5100" with C / W = 4.59e14 / 1.8e11 = 2550 (v5p). */
  GRADE_BOOK(ex_sharding_strategy2_min_d(4.59e14, 1.8e11), 5100.0, 1e-9, "elements",
             "ch. 3 Question 4: D > 5100");
  for (size_t i = 0; i < N_OF(rates); i++)
    for (size_t j = 0; j < N_OF(rates); j++)
      GRADE_VS_REF(ex_sharding_strategy2_min_d(rates[i], rates[j]),
                   ref_sharding_strategy2_min_d(rates[i], rates[j]), "elements",
                   "ex_sharding_strategy2_min_d(%g, %g)", rates[i], rates[j]);
}
END_TEST

START_TEST(sharding_gather_vs_scatter_ratio) {
  /* Book ch. 3 Question 9 part 3: "the communication cost ratio of the two algorithms is M/K".
   * Hand: N = 1024, M = 8192, K = 2048 -> 4. */
  GRADE_BOOK(ex_sharding_gather_vs_scatter_ratio(1024, 8192, 2048), 4.0, 1e-12, "",
             "ch. 3 Question 9: M / K");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(dims); j++)
      for (size_t k = 0; k < N_OF(dims); k++)
        GRADE_VS_REF(ex_sharding_gather_vs_scatter_ratio(dims[i], dims[j], dims[k]),
                     ref_sharding_gather_vs_scatter_ratio(dims[i], dims[j], dims[k]), "",
                     "ex_sharding_gather_vs_scatter_ratio(%lld, %lld, %lld)", (long long)dims[i],
                     (long long)dims[j], (long long)dims[k]);
}
END_TEST

START_TEST(sharding_allgather_link_elements) {
  /* Book ch. 3 Question 10 part 1: N^2 (1 - 1/D). Hand: N = 1024, D = 4: 786432; D = 1: 0. */
  GRADE_BOOK(ex_sharding_allgather_link_elements(1024, 4), 786432.0, 1e-12, "elements",
             "ch. 3 Question 10 part 1");
  GRADE_BOOK(ex_sharding_allgather_link_elements(1024, 1), 0.0, 0.0, "elements",
             "hand: one device moves nothing");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_sharding_allgather_link_elements(dims[i], counts[j]),
                   ref_sharding_allgather_link_elements(dims[i], counts[j]), "elements",
                   "ex_sharding_allgather_link_elements(%lld, %lld)", (long long)dims[i],
                   (long long)counts[j]);
}
END_TEST

START_TEST(sharding_alltoall_link_elements) {
  /* Book ch. 3 Question 10 part 2: N^2 / 2 (1 - 1/D), half the AllGather's (part 3). Hand:
   * N = 1024, D = 4: 393216. */
  GRADE_BOOK(ex_sharding_alltoall_link_elements(1024, 4), 393216.0, 1e-12, "elements",
             "ch. 3 Question 10 part 2");
  GRADE_BOOK(ex_sharding_allgather_link_elements(4096, 16) /
                 ex_sharding_alltoall_link_elements(4096, 16),
             2.0, 1e-12, "", "ch. 3 Question 10 part 3: a factor of 2 on a one-way ring");
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_sharding_alltoall_link_elements(dims[i], counts[j]),
                   ref_sharding_alltoall_link_elements(dims[i], counts[j]), "elements",
                   "ex_sharding_alltoall_link_elements(%lld, %lld)", (long long)dims[i],
                   (long long)counts[j]);
}
END_TEST

START_TEST(sharding_alltoall_chunk_hops) {
  /* Book ch. 3 AllToAll footnote: N^2 / 4 chunk-hops on an even bidirectional ring: 4 for N = 4,
   * 16 for N = 8. Hand for odd N: 5 -> 1 + 2 + 2 + 1 = 6 = (N^2 - 1) / 4; N = 1 -> 0. */
  GRADE_BOOK(ex_sharding_alltoall_chunk_hops(4), 4.0, 0.0, "chunk-hops", "ch. 3 footnote: N^2/4");
  GRADE_BOOK(ex_sharding_alltoall_chunk_hops(8), 16.0, 0.0, "chunk-hops", "ch. 3 footnote: N^2/4");
  GRADE_BOOK(ex_sharding_alltoall_chunk_hops(5), 6.0, 0.0, "chunk-hops", "hand: odd ring");
  GRADE_BOOK(ex_sharding_alltoall_chunk_hops(1), 0.0, 0.0, "chunk-hops", "hand: one device");
  static const int64_t ns[] = {1, 2, 3, 4, 7, 16, 255, 256, 1000, 0, -2};
  for (size_t i = 0; i < N_OF(ns); i++)
    GRADE_VS_REF(ex_sharding_alltoall_chunk_hops(ns[i]), ref_sharding_alltoall_chunk_hops(ns[i]),
                 "chunk-hops", "ex_sharding_alltoall_chunk_hops(%lld)", (long long)ns[i]);
}
END_TEST

/* ==== a decision exercise (grading_decision.h) ============================================== */

/* One shape of Question 4 on an axis of x v5p chips; the student gets the book's v5p figures. */
typedef struct {
  int64_t b, d, f, x;
} strategy_instance;

#define V5P_FLOPS_PER_S 4.59e14 /* bf16, ch. 3 Q4 */
#define V5P_BIDI_BYTES_PER_S 1.8e11 /* the book's bidirectional ICI bandwidth of the ring */

static const char *const strategy_names[] = {"strategy"};

#ifdef GRADING_HAVE_LIBSCALE
#include "scale/collectives.h"
#include "scale/hardware.h"
#include "scale/sharding.h"

/* The library's time of strategy k (1 or 2) on a v5p ring of x chips, precise collectives;
 * NaN outside its domain. */
static double lib_strategy_s(const strategy_instance *in, int k) {
  static scale_chip v5p;
  static int loaded;
  if (!loaded) {
    ck_assert_msg(scale_chip_load("tpu-v5p", &v5p, NULL) == SCALE_OK, "grading: no tpu-v5p");
    loaded = 1;
  }
  double x = (double)in->x;
  scale_group g;
  if (scale_group_from_chip(&v5p, &x, 1, SCALE_WRAP_YES, &g, NULL) != SCALE_OK) return NAN;
  scale_sharding_strategy s =
      scale_sharding_compare_strategies(&g, scale_chip_flops_per_s(&v5p, SCALE_DTYPE_BF16),
                                        (double)in->b, (double)in->d, (double)in->f,
                                        SCALE_DTYPE_BF16, false);
  return k == 1 ? s.gather_t_s : s.reduce_t_s;
}
#define LIB_STRATEGY(in, k) GRADE_LIB(lib_strategy_s(in, k))
#else
#define LIB_STRATEGY(in, k) GRADE_LIB(0.0)
#endif

static void strategy_explain(const grade_candidate *c, char *out, size_t size) {
  snprintf(out, size, "%s", c->fields[0] == 1 ? "AllGather W, then multiply"
                                              : "multiply, then AllReduce C");
}

static size_t strategy_candidates(const strategy_instance *in, grade_candidate *c) {
  for (int k = 1; k <= 2; k++) {
    memset(&c[k - 1], 0, sizeof c[k - 1]);
    c[k - 1].fields[0] = k;
    c[k - 1].cost = LIB_STRATEGY(in, k);
  }
  return 2;
}

START_TEST(sharding_matmul_strategy) {
  /* Book ch. 3 Q4: strategy 2 wins when D > 2 C / W = 5100; the library's precise times decide
   * (the shapes are far enough from the boundary that the book's forms agree). */
  static const strategy_instance in[] = {{1024, 8192, 32768, 4},  {8192, 2048, 32768, 4},
                                         {512, 32768, 16384, 8},  {16384, 1024, 8192, 16},
                                         {2048, 16384, 65536, 16}, {32768, 2048, 4096, 2}};
  grade_credit_sum sum = {0};
  grade_candidate cands[2];
  for (size_t i = 0; i < N_OF(in); i++) {
    size_t n = strategy_candidates(&in[i], cands);
    ex_sharding_choice got = ex_sharding_matmul_strategy(in[i].b, in[i].d, in[i].f, in[i].x,
                                                         V5P_FLOPS_PER_S, V5P_BIDI_BYTES_PER_S);
    char label[128], why[768];
    snprintf(label, sizeof label, "B %lld D %lld F %lld on %lld v5p", (long long)in[i].b,
             (long long)in[i].d, (long long)in[i].f, (long long)in[i].x);
    grade_decision dec = {label, 1, strategy_names, "s", strategy_explain};
    grade_credit_add(&sum, grade_decision_credit(&dec, cands, n, &got.strategy, why, sizeof why),
                     why);
  }
  /* Outside the Domain (the library has no time for them either): strategy 0. */
  static const strategy_instance bad[] = {{0, 8192, 32768, 4}, {1024, 8192, 32768, 1}};
  for (size_t i = 0; i < N_OF(bad); i++) {
    size_t n = strategy_candidates(&bad[i], cands);
    for (size_t k = 0; k < n; k++)
      ck_assert_msg(!isfinite(cands[k].cost) || bad[i].x < 2, "grading: a time outside the domain");
    ex_sharding_choice got = ex_sharding_matmul_strategy(bad[i].b, bad[i].d, bad[i].f, bad[i].x,
                                                         V5P_FLOPS_PER_S, V5P_BIDI_BYTES_PER_S);
    if (got.strategy != 0) {
      char message[256];
      snprintf(message, sizeof message,
               "ex_sharding_matmul_strategy(%lld, %lld, %lld, %lld, ...) = strategy %lld, "
               "expected 0 (outside the Domain)",
               (long long)bad[i].b, (long long)bad[i].d, (long long)bad[i].f,
               (long long)bad[i].x, (long long)got.strategy);
      grading_case_failed(1, message);
    }
  }
  grade_credit_end(&sum);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("03-sharding");
  grade_add(suite, "sharding.bytes_per_device", sharding_bytes_per_device);
  grade_add(suite, "sharding.total_bytes", sharding_total_bytes);
  grade_add(suite, "sharding.replication_ratio", sharding_replication_ratio);
  grade_add(suite, "sharding.allgather_time_s", sharding_allgather_time_s);
  grade_add(suite, "sharding.allgather_no_wrap_time_s", sharding_allgather_no_wrap_time_s);
  grade_add(suite, "sharding.latency_bound_bytes", sharding_latency_bound_bytes);
  grade_add(suite, "sharding.allreduce_time_s", sharding_allreduce_time_s);
  grade_add(suite, "sharding.alltoall_time_s", sharding_alltoall_time_s);
  grade_add(suite, "sharding.strategy1_time_s", sharding_strategy1_time_s);
  grade_add(suite, "sharding.strategy2_time_s", sharding_strategy2_time_s);
  grade_add(suite, "sharding.strategy2_min_d", sharding_strategy2_min_d);
  grade_add(suite, "sharding.gather_vs_scatter_ratio", sharding_gather_vs_scatter_ratio);
  grade_add(suite, "sharding.allgather_link_elements", sharding_allgather_link_elements);
  grade_add(suite, "sharding.alltoall_link_elements", sharding_alltoall_link_elements);
  grade_add(suite, "sharding.alltoall_chunk_hops", sharding_alltoall_chunk_hops);
  grade_add(suite, "sharding.matmul_strategy", sharding_matmul_strategy);
  return grade_run(suite);
}
