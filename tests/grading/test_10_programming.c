/* test_10_programming.c — grading of chapter 10's exercises
 * (exercises/10-programming/programming_ex.h).
 *
 * One TCase per exercise id, each: the book's answers or the mesh executor's counted bytes (a
 * hand derivation in a comment), then the stored answers over a grid of inputs including domain
 * edges.
 * Book: jax-ml/scaling-book, sharding.md (chapter 3) and jax-stuff.md (chapter 10).
 */
#include "programming_ex.h"

#include "grading.h"
#include "grading_ref_programming.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const int64_t ranks[] = {1, 2, 3, 4, 8, 0, -2};
static const double sizes[] = {0.0, 8.0, 1048576.0, 3.3e9, -1.0, NAN};

START_TEST(programming_ring_bytes_sent) {
  /* The executor's counts on 4 ranks, V = 1 MiB (chapters/10-programming/mesh-run.tsv): an
   * AllGather over X (n = 2) sends 524288, an AllReduce over XY (n = 4) 1572864, an AllToAll
   * over XY 196608; hand: 1048576 (n-1)/n, 2 (n-1)/n, (n-1)/n^2. */
  GRADE_BOOK(ex_programming_ring_bytes_sent(0, 2, 1048576), 524288.0, 1e-12, "bytes",
             "scale-mesh: all-gather over X");
  GRADE_BOOK(ex_programming_ring_bytes_sent(1, 4, 1048576), 786432.0, 1e-12, "bytes",
             "scale-mesh: reduce-scatter over XY");
  GRADE_BOOK(ex_programming_ring_bytes_sent(2, 4, 1048576), 1572864.0, 1e-12, "bytes",
             "scale-mesh: all-reduce over XY");
  GRADE_BOOK(ex_programming_ring_bytes_sent(3, 4, 1048576), 196608.0, 1e-12, "bytes",
             "scale-mesh: all-to-all over XY");
  GRADE_BOOK(ex_programming_ring_bytes_sent(2, 1, 1048576), 0.0, 1e-12, "bytes",
             "hand: one rank sends nothing");
  static const int ops[] = {0, 1, 2, 3, 4, -1};
  for (size_t i = 0; i < N_OF(ops); i++)
    for (size_t j = 0; j < N_OF(ranks); j++)
      for (size_t k = 0; k < N_OF(sizes); k++)
        GRADE_VS_REF(ex_programming_ring_bytes_sent(ops[i], ranks[j], sizes[k]),
                     ref_programming_ring_bytes_sent(ops[i], ranks[j], sizes[k]), "bytes",
                     "ex_programming_ring_bytes_sent(%d, %lld, %g)", ops[i], (long long)ranks[j],
                     sizes[k]);
}
END_TEST

START_TEST(programming_case_bytes_sent) {
  /* The executor on {X:2, Y:2} with 256 x 256 doubles (524288 bytes): case 1 sends nothing;
   * case 2 gathers A[I, J_X] over X, 262144 per rank; case 3 all-reduces C (524288 bytes on
   * each rank) over X, 524288; case 4 gathers A[I_X, J] over X, 262144. */
  GRADE_BOOK(ex_programming_case_bytes_sent(1, 2, 524288, 524288), 0.0, 1e-12, "bytes",
             "scale-mesh: case 1");
  GRADE_BOOK(ex_programming_case_bytes_sent(2, 2, 524288, 524288), 262144.0, 1e-12, "bytes",
             "scale-mesh: case 2");
  GRADE_BOOK(ex_programming_case_bytes_sent(3, 2, 524288, 524288), 524288.0, 1e-12, "bytes",
             "scale-mesh: case 3");
  GRADE_BOOK(ex_programming_case_bytes_sent(4, 2, 524288, 524288), 262144.0, 1e-12, "bytes",
             "scale-mesh: case 4");
  /* Hand: case 3 over 4 ranks with 1000 bytes of C: 2 x 3/4 x 1000 = 1500. */
  GRADE_BOOK(ex_programming_case_bytes_sent(3, 4, 1.0, 1000.0), 1500.0, 1e-12, "bytes",
             "hand: AllReduce of C");
  static const int cases[] = {1, 2, 3, 4, 0, 5};
  for (size_t i = 0; i < N_OF(cases); i++)
    for (size_t j = 0; j < N_OF(ranks); j++)
      for (size_t k = 0; k < N_OF(sizes); k++) {
        double c = sizes[(k + 2) % N_OF(sizes)];
        GRADE_VS_REF(ex_programming_case_bytes_sent(cases[i], ranks[j], sizes[k], c),
                     ref_programming_case_bytes_sent(cases[i], ranks[j], sizes[k], c), "bytes",
                     "ex_programming_case_bytes_sent(%d, %lld, %g, %g)", cases[i],
                     (long long)ranks[j], sizes[k], c);
      }
}
END_TEST

static const double alphas[] = {0.0, 1e-6, 6e-6, -1e-6, NAN};
static const double bandwidths[] = {4.5e10, 2.2e9, 1.0, 0.0, -1.0, NAN};

START_TEST(programming_alpha_beta_time_s) {
  /* Hand: 3 messages of 6 us and 1.5 MiB at 2.2e9 byte/s: 1.8e-5 + 1572864 / 2.2e9 =
   * 7.329382e-4 s. No messages and no bytes: 0. */
  GRADE_BOOK(ex_programming_alpha_beta_time_s(6e-6, 2.2e9, 3, 1572864), 1.8e-5 + 1572864 / 2.2e9,
             1e-12, "s", "hand: 3 alpha + V / W");
  GRADE_BOOK(ex_programming_alpha_beta_time_s(6e-6, 2.2e9, 0, 0), 0.0, 1e-12, "s",
             "hand: nothing to send");
  static const int64_t msgs[] = {0, 1, 3, 1000, -1};
  for (size_t i = 0; i < N_OF(alphas); i++)
    for (size_t j = 0; j < N_OF(bandwidths); j++)
      for (size_t k = 0; k < N_OF(msgs); k++) {
        double b = sizes[(i + j + k) % N_OF(sizes)];
        GRADE_VS_REF(ex_programming_alpha_beta_time_s(alphas[i], bandwidths[j], msgs[k], b),
                     ref_programming_alpha_beta_time_s(alphas[i], bandwidths[j], msgs[k], b), "s",
                     "ex_programming_alpha_beta_time_s(%g, %g, %lld, %g)", alphas[i],
                     bandwidths[j], (long long)msgs[k], b);
      }
}
END_TEST

START_TEST(programming_crossover_bytes) {
  /* Book ch. 3 "A note on ICI latency": on a TPU v5e "any buffer under 4.5e10 x 1e-6 = 45kB"
   * per hop is latency-bound. */
  GRADE_BOOK(ex_programming_crossover_bytes(1e-6, 4.5e10), 45000.0, 1e-12, "bytes",
             "ch. 3: 45 kB on a v5e link");
  GRADE_BOOK(ex_programming_crossover_bytes(0.0, 4.5e10), 0.0, 1e-12, "bytes",
             "hand: no latency, never latency-bound");
  for (size_t i = 0; i < N_OF(alphas); i++)
    for (size_t j = 0; j < N_OF(bandwidths); j++)
      GRADE_VS_REF(ex_programming_crossover_bytes(alphas[i], bandwidths[j]),
                   ref_programming_crossover_bytes(alphas[i], bandwidths[j]), "bytes",
                   "ex_programming_crossover_bytes(%g, %g)", alphas[i], bandwidths[j]);
}
END_TEST

START_TEST(programming_collective_matmul_time_s) {
  /* Hand: 300 us of matmul and 200 us of gather on 4 ranks: chunks of 75 us, ring steps of
   * 66.7 us: 75 + 3 x 75 = 300 us (the gather hides completely). A slow network, 600 us of
   * gather: 75 + 3 x 200 = 675 us. One rank: the matmul alone. */
  GRADE_BOOK(ex_programming_collective_matmul_time_s(300e-6, 200e-6, 4), 300e-6, 1e-12, "s",
             "hand: compute-bound steps");
  GRADE_BOOK(ex_programming_collective_matmul_time_s(300e-6, 600e-6, 4), 675e-6, 1e-12, "s",
             "hand: communication-bound steps");
  GRADE_BOOK(ex_programming_collective_matmul_time_s(300e-6, 600e-6, 1), 300e-6, 1e-12, "s",
             "hand: one rank");
  static const double times[] = {0.0, 1e-6, 224e-6, 87e-6, 1.0, -1e-6, NAN};
  for (size_t i = 0; i < N_OF(times); i++)
    for (size_t j = 0; j < N_OF(times); j++)
      for (size_t k = 0; k < N_OF(ranks); k++)
        GRADE_VS_REF(ex_programming_collective_matmul_time_s(times[i], times[j], ranks[k]),
                     ref_programming_collective_matmul_time_s(times[i], times[j], ranks[k]), "s",
                     "ex_programming_collective_matmul_time_s(%g, %g, %lld)", times[i], times[j],
                     (long long)ranks[k]);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("10-programming");
  grade_add(suite, "programming.ring_bytes_sent", programming_ring_bytes_sent);
  grade_add(suite, "programming.case_bytes_sent", programming_case_bytes_sent);
  grade_add(suite, "programming.alpha_beta_time_s", programming_alpha_beta_time_s);
  grade_add(suite, "programming.crossover_bytes", programming_crossover_bytes);
  grade_add(suite, "programming.collective_matmul_time_s", programming_collective_matmul_time_s);
  return grade_run(suite);
}
