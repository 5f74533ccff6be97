/* test_12_gpus.c — grading of chapter 12's exercises
 * (exercises/12-gpus/gpus_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, gpus.md ("How to Think About GPUs").
 */
#include "gpus_ex.h"

#include "grading.h"
#include "grading_train_layout.h"
#include "grading_ref_gpus.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(gpus_cuda_cores) {
  /* Book: H100 132 x 4 x 32 = 16896; B200 148 x 4 x 32 = 18944. */
  GRADE_BOOK(ex_gpus_cuda_cores(132), 16896.0, 1e-12, "cores", "ch. 12 Quiz 1 Q1: H100 16896");
  GRADE_BOOK(ex_gpus_cuda_cores(148), 18944.0, 1e-12, "cores", "ch. 12 Quiz 1 Q1: B200 18944");
  { /* sweep n_sms */
    static const int64_t g[] = {132, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_cuda_cores(g[i]),
                   ref_gpus_cuda_cores(g[i]), "cores",
                   "ex_gpus_cuda_cores(%g)", (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_vector_flops_per_s) {
  /* Book: 132 x 4 x 32 x 1.59e9 = 26.9e12 (exact 26.865e12); boost 33.5e12 (exact 33.454e12). */
  GRADE_BOOK(ex_gpus_vector_flops_per_s(132, 1.59e9), 26.9e12, 2e-3, "FLOP/s",
             "ch. 12 Quiz 1 Q2: 26.9 TFLOP/s");
  GRADE_BOOK(ex_gpus_vector_flops_per_s(132, 1.98e9), 33.5e12, 2e-3, "FLOP/s",
             "ch. 12 Quiz 1 Q2: 33.5 TFLOP/s with boost");
  { /* sweep n_sms */
    static const int64_t g[] = {132, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_vector_flops_per_s(g[i], 1590000000.0),
                   ref_gpus_vector_flops_per_s(g[i], 1590000000.0), "FLOP/s",
                   "ex_gpus_vector_flops_per_s(%g, %g)", (double)g[i], (double)1590000000.0);
  }
  { /* sweep clock_hz */
    static const double g[] = {1590000000.0, 3975000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_vector_flops_per_s(132, g[i]),
                   ref_gpus_vector_flops_per_s(132, g[i]), "FLOP/s",
                   "ex_gpus_vector_flops_per_s(%g, %g)", (double)132, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_clock_hz) {
  /* Book: 80e12 / 37888 = 2.1 GHz (exact 2.1115e9). */
  GRADE_BOOK(ex_gpus_clock_hz(80e12, 148), 2.1e9, 0.01, "Hz", "ch. 12 Quiz 1 Q6: 2.1GHz");
  GRADE_BOOK(ex_gpus_clock_hz(80e12, 148), 80e12 / 37888.0, 1e-12, "Hz", "hand: exact");
  { /* sweep vector_fma_flops_per_s */
    static const double g[] = {80000000000000.0, 200000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_clock_hz(g[i], 148),
                   ref_gpus_clock_hz(g[i], 148), "Hz",
                   "ex_gpus_clock_hz(%g, %g)", (double)g[i], (double)148);
  }
  { /* sweep n_sms */
    static const int64_t g[] = {148, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_clock_hz(80000000000000.0, g[i]),
                   ref_gpus_clock_hz(80000000000000.0, g[i]), "Hz",
                   "ex_gpus_clock_hz(%g, %g)", (double)80000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_matmul_time_s) {
  /* Book: B = 64 is memory-bound, 2BD + 2DF + 2BF = 524,288 + 67,108,864 + 1,048,576 = 68,681,728 bytes / 8e12 =
   * 8.585 us ("8.6us"); B = 512 is
   * compute-bound, 2 x 512 x 4096 x 8192 / 2.25e15 = 15.27 us (the book divides by 2.3e15 and
   * prints 15us). */
  GRADE_BOOK(ex_gpus_matmul_time_s(64, 4096, 8192, 2.25e15, 8e12), 68681728.0 / 8e12, 1e-12, "s",
             "ch. 12 Quiz 1 Q4: 8.6us");
  GRADE_BOOK(ex_gpus_matmul_time_s(512, 4096, 8192, 2.25e15, 8e12), 34359738368.0 / 2.25e15, 1e-12,
             "s", "ch. 12 Quiz 1 Q4: 15us (exact 15.27)");
  { /* sweep b */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_matmul_time_s(g[i], 4096, 8192, 2250000000000000.0, 8000000000000.0),
                   ref_gpus_matmul_time_s(g[i], 4096, 8192, 2250000000000000.0, 8000000000000.0), "s",
                   "ex_gpus_matmul_time_s(%g, %g, %g, %g, %g)", (double)g[i], (double)4096, (double)8192, (double)2250000000000000.0, (double)8000000000000.0);
  }
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_matmul_time_s(64, g[i], 8192, 2250000000000000.0, 8000000000000.0),
                   ref_gpus_matmul_time_s(64, g[i], 8192, 2250000000000000.0, 8000000000000.0), "s",
                   "ex_gpus_matmul_time_s(%g, %g, %g, %g, %g)", (double)64, (double)g[i], (double)8192, (double)2250000000000000.0, (double)8000000000000.0);
  }
  { /* sweep f */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_matmul_time_s(64, 4096, g[i], 2250000000000000.0, 8000000000000.0),
                   ref_gpus_matmul_time_s(64, 4096, g[i], 2250000000000000.0, 8000000000000.0), "s",
                   "ex_gpus_matmul_time_s(%g, %g, %g, %g, %g)", (double)64, (double)4096, (double)g[i], (double)2250000000000000.0, (double)8000000000000.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {2250000000000000.0, 5625000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_matmul_time_s(64, 4096, 8192, g[i], 8000000000000.0),
                   ref_gpus_matmul_time_s(64, 4096, 8192, g[i], 8000000000000.0), "s",
                   "ex_gpus_matmul_time_s(%g, %g, %g, %g, %g)", (double)64, (double)4096, (double)8192, (double)g[i], (double)8000000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {8000000000000.0, 20000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_matmul_time_s(64, 4096, 8192, 2250000000000000.0, g[i]),
                   ref_gpus_matmul_time_s(64, 4096, 8192, 2250000000000000.0, g[i]), "s",
                   "ex_gpus_matmul_time_s(%g, %g, %g, %g, %g)", (double)64, (double)4096, (double)8192, (double)2250000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_vector_add_time_s) {
  /* Book: 12 x 1024^3 / 3.35e12 = 3.846 ms ("about 3.84ms"); N = 65,536: 0.2348 us ("0.23us"). */
  GRADE_BOOK(ex_gpus_vector_add_time_s(1073741824.0, 3.35e12), 3.84e-3, 2e-3, "s",
             "ch. 12 Quiz 1 Q7: 3.84ms");
  GRADE_BOOK(ex_gpus_vector_add_time_s(65536.0, 3.35e12), 786432.0 / 3.35e12, 1e-12, "s",
             "ch. 12 Quiz 1 Q7: 0.23us");
  { /* sweep n */
    static const double g[] = {1073741824.0, 2684354560.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_vector_add_time_s(g[i], 3350000000000.0),
                   ref_gpus_vector_add_time_s(g[i], 3350000000000.0), "s",
                   "ex_gpus_vector_add_time_s(%g, %g)", (double)g[i], (double)3350000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {3350000000000.0, 8375000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_vector_add_time_s(1073741824.0, g[i]),
                   ref_gpus_vector_add_time_s(1073741824.0, g[i]), "s",
                   "ex_gpus_vector_add_time_s(%g, %g)", (double)1073741824.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_node_bandwidth_bytes_per_s) {
  /* Book: switches 4 x 64 x 25e9 = 6.4e12, GPUs 8 x 450e9 = 3.6e12: 3.6TB/s. Hand: with 16
   * GPUs the switches (6.4e12) would bind. */
  GRADE_BOOK(ex_gpus_node_bandwidth_bytes_per_s(8, 450e9, 4, 64, 25e9), 3.6e12, 1e-12, "byte/s",
             "ch. 12 Quiz 2 Q1: 3.6TB/s");
  GRADE_BOOK(ex_gpus_node_bandwidth_bytes_per_s(16, 450e9, 4, 64, 25e9), 6.4e12, 1e-12, "byte/s",
             "hand: the switches bind");
  { /* sweep n_gpus */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_node_bandwidth_bytes_per_s(g[i], 450000000000.0, 4, 64, 25000000000.0),
                   ref_gpus_node_bandwidth_bytes_per_s(g[i], 450000000000.0, 4, 64, 25000000000.0), "byte/s",
                   "ex_gpus_node_bandwidth_bytes_per_s(%g, %g, %g, %g, %g)", (double)g[i], (double)450000000000.0, (double)4, (double)64, (double)25000000000.0);
  }
  { /* sweep gpu_egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_node_bandwidth_bytes_per_s(8, g[i], 4, 64, 25000000000.0),
                   ref_gpus_node_bandwidth_bytes_per_s(8, g[i], 4, 64, 25000000000.0), "byte/s",
                   "ex_gpus_node_bandwidth_bytes_per_s(%g, %g, %g, %g, %g)", (double)8, (double)g[i], (double)4, (double)64, (double)25000000000.0);
  }
  { /* sweep n_switches */
    static const int64_t g[] = {4, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, g[i], 64, 25000000000.0),
                   ref_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, g[i], 64, 25000000000.0), "byte/s",
                   "ex_gpus_node_bandwidth_bytes_per_s(%g, %g, %g, %g, %g)", (double)8, (double)450000000000.0, (double)g[i], (double)64, (double)25000000000.0);
  }
  { /* sweep ports_per_switch */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, 4, g[i], 25000000000.0),
                   ref_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, 4, g[i], 25000000000.0), "byte/s",
                   "ex_gpus_node_bandwidth_bytes_per_s(%g, %g, %g, %g, %g)", (double)8, (double)450000000000.0, (double)4, (double)g[i], (double)25000000000.0);
  }
  { /* sweep port_bytes_per_s */
    static const double g[] = {25000000000.0, 62500000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, 4, 64, g[i]),
                   ref_gpus_node_bandwidth_bytes_per_s(8, 450000000000.0, 4, 64, g[i]), "byte/s",
                   "ex_gpus_node_bandwidth_bytes_per_s(%g, %g, %g, %g, %g)", (double)8, (double)450000000000.0, (double)4, (double)64, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_allgather_time_s) {
  /* Book: 536,870,912 x 7 / 3.6e12 = 1.044 ms ("1.04ms"); Pop Quiz 1: 2 x 1024 x 16384 x 7 /
   * (8 x 450e9) = 65.2 us ("65us"). */
  GRADE_BOOK(ex_gpus_allgather_time_s(536870912.0, 8, 450e9), 536870912.0 * 7.0 / 3.6e12, 1e-12,
             "s", "ch. 12 Quiz 2 Q3: 1.04ms");
  GRADE_BOOK(ex_gpus_allgather_time_s(33554432.0, 8, 450e9), 65e-6, 5e-3, "s",
             "ch. 12 Pop Quiz 1: 65us");
  { /* sweep bytes */
    static const double g[] = {536870912.0, 1342177280.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allgather_time_s(g[i], 8, 450000000000.0),
                   ref_gpus_allgather_time_s(g[i], 8, 450000000000.0), "s",
                   "ex_gpus_allgather_time_s(%g, %g, %g)", (double)g[i], (double)8, (double)450000000000.0);
  }
  { /* sweep n */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allgather_time_s(536870912.0, g[i], 450000000000.0),
                   ref_gpus_allgather_time_s(536870912.0, g[i], 450000000000.0), "s",
                   "ex_gpus_allgather_time_s(%g, %g, %g)", (double)536870912.0, (double)g[i], (double)450000000000.0);
  }
  { /* sweep egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allgather_time_s(536870912.0, 8, g[i]),
                   ref_gpus_allgather_time_s(536870912.0, 8, g[i]), "s",
                   "ex_gpus_allgather_time_s(%g, %g, %g)", (double)536870912.0, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_alltoall_time_s) {
  /* Hand: 536,870,912 x 7 / (450e9 x 64) = 130.49 us, 1/8 of the AllGather's 1.044 ms. */
  GRADE_BOOK(ex_gpus_alltoall_time_s(536870912.0, 8, 450e9), 536870912.0 * 7.0 / (450e9 * 64.0),
             1e-12, "s", "hand: B (N - 1) / (W N^2)");
  GRADE_BOOK(ex_gpus_alltoall_time_s(536870912.0, 1, 450e9), 0.0, 1e-12, "s",
             "hand: one GPU sends nothing");
  { /* sweep bytes */
    static const double g[] = {536870912.0, 1342177280.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_alltoall_time_s(g[i], 8, 450000000000.0),
                   ref_gpus_alltoall_time_s(g[i], 8, 450000000000.0), "s",
                   "ex_gpus_alltoall_time_s(%g, %g, %g)", (double)g[i], (double)8, (double)450000000000.0);
  }
  { /* sweep n */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_alltoall_time_s(536870912.0, g[i], 450000000000.0),
                   ref_gpus_alltoall_time_s(536870912.0, g[i], 450000000000.0), "s",
                   "ex_gpus_alltoall_time_s(%g, %g, %g)", (double)536870912.0, (double)g[i], (double)450000000000.0);
  }
  { /* sweep egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_alltoall_time_s(536870912.0, 8, g[i]),
                   ref_gpus_alltoall_time_s(536870912.0, 8, g[i]), "s",
                   "ex_gpus_alltoall_time_s(%g, %g, %g)", (double)536870912.0, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_allreduce_time_s) {
  /* Hand: 2 x 1e9 x 7 / (8 x 450e9) = 3.889 ms without SHARP; 1e9 / 450e9 = 2.222 ms with it
   * (the book: "about 2 B / W" to "B / W"). */
  GRADE_BOOK(ex_gpus_allreduce_time_s(1e9, 8, 450e9, 0), 14e9 / 3.6e12, 1e-12, "s",
             "hand: 2 B (N - 1) / (N W)");
  GRADE_BOOK(ex_gpus_allreduce_time_s(1e9, 8, 450e9, 1), 1e9 / 450e9, 1e-12, "s",
             "ch. 12 SHARP: B / W");
  { /* sweep bytes */
    static const double g[] = {1000000000.0, 2500000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allreduce_time_s(g[i], 8, 450000000000.0, 0),
                   ref_gpus_allreduce_time_s(g[i], 8, 450000000000.0, 0), "s",
                   "ex_gpus_allreduce_time_s(%g, %g, %g, %g)", (double)g[i], (double)8, (double)450000000000.0, (double)0);
  }
  { /* sweep n */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allreduce_time_s(1000000000.0, g[i], 450000000000.0, 0),
                   ref_gpus_allreduce_time_s(1000000000.0, g[i], 450000000000.0, 0), "s",
                   "ex_gpus_allreduce_time_s(%g, %g, %g, %g)", (double)1000000000.0, (double)g[i], (double)450000000000.0, (double)0);
  }
  { /* sweep egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allreduce_time_s(1000000000.0, 8, g[i], 0),
                   ref_gpus_allreduce_time_s(1000000000.0, 8, g[i], 0), "s",
                   "ex_gpus_allreduce_time_s(%g, %g, %g, %g)", (double)1000000000.0, (double)8, (double)g[i], (double)0);
  }
  { /* sweep sharp */
    static const int64_t g[] = {0, 1, 2, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_allreduce_time_s(1000000000.0, 8, 450000000000.0, g[i]),
                   ref_gpus_allreduce_time_s(1000000000.0, 8, 450000000000.0, g[i]), "s",
                   "ex_gpus_allreduce_time_s(%g, %g, %g, %g)", (double)1000000000.0, (double)8, (double)450000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_two_level_allgather_time_s) {
  /* Book: in the node B x 7 / (8 x 450e9) = B / 514e9, across 2 nodes B / (2 x 400e9) =
   * B / 800e9: the node level binds. Hand, B = 1e9: 1.9444 ms. With 32 nodes (an SU) the leaf
   * ring binds: 1e9 x 31 / (32 x 400e9) = 2.4219 ms. */
  GRADE_BOOK(ex_gpus_two_level_allgather_time_s(1e9, 8, 450e9, 2, 400e9), 7e9 / 3.6e12, 1e-12, "s",
             "ch. 12 Quiz 4 Q5: node-bound, B / 514e9");
  GRADE_BOOK(ex_gpus_two_level_allgather_time_s(1e9, 8, 450e9, 32, 400e9), 31e9 / 12.8e12, 1e-12,
             "s", "hand: leaf-bound over an SU");
  { /* sweep bytes */
    static const double g[] = {1000000000.0, 2500000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_two_level_allgather_time_s(g[i], 8, 450000000000.0, 2, 400000000000.0),
                   ref_gpus_two_level_allgather_time_s(g[i], 8, 450000000000.0, 2, 400000000000.0), "s",
                   "ex_gpus_two_level_allgather_time_s(%g, %g, %g, %g, %g)", (double)g[i], (double)8, (double)450000000000.0, (double)2, (double)400000000000.0);
  }
  { /* sweep gpus_per_node */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_two_level_allgather_time_s(1000000000.0, g[i], 450000000000.0, 2, 400000000000.0),
                   ref_gpus_two_level_allgather_time_s(1000000000.0, g[i], 450000000000.0, 2, 400000000000.0), "s",
                   "ex_gpus_two_level_allgather_time_s(%g, %g, %g, %g, %g)", (double)1000000000.0, (double)g[i], (double)450000000000.0, (double)2, (double)400000000000.0);
  }
  { /* sweep gpu_egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_two_level_allgather_time_s(1000000000.0, 8, g[i], 2, 400000000000.0),
                   ref_gpus_two_level_allgather_time_s(1000000000.0, 8, g[i], 2, 400000000000.0), "s",
                   "ex_gpus_two_level_allgather_time_s(%g, %g, %g, %g, %g)", (double)1000000000.0, (double)8, (double)g[i], (double)2, (double)400000000000.0);
  }
  { /* sweep n_nodes */
    static const int64_t g[] = {2, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_two_level_allgather_time_s(1000000000.0, 8, 450000000000.0, g[i], 400000000000.0),
                   ref_gpus_two_level_allgather_time_s(1000000000.0, 8, 450000000000.0, g[i], 400000000000.0), "s",
                   "ex_gpus_two_level_allgather_time_s(%g, %g, %g, %g, %g)", (double)1000000000.0, (double)8, (double)450000000000.0, (double)g[i], (double)400000000000.0);
  }
  { /* sweep node_egress_bytes_per_s */
    static const double g[] = {400000000000.0, 1000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_two_level_allgather_time_s(1000000000.0, 8, 450000000000.0, 2, g[i]),
                   ref_gpus_two_level_allgather_time_s(1000000000.0, 8, 450000000000.0, 2, g[i]), "s",
                   "ex_gpus_two_level_allgather_time_s(%g, %g, %g, %g, %g)", (double)1000000000.0, (double)8, (double)450000000000.0, (double)2, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_dp_critical_batch) {
  /* Book: 990e12 / 450e9 = 2200; 990e12 / 400e9 = 2475; B200 2250e12 / 400e9 = 5625; MoE
   * 32 x 2475 = 79,200. */
  GRADE_BOOK(ex_gpus_dp_critical_batch(990e12, 450e9, 1, 1), 2200.0, 1e-12, "tokens",
             "ch. 12: 2200 within a node");
  GRADE_BOOK(ex_gpus_dp_critical_batch(990e12, 400e9, 1, 1), 2475.0, 1e-12, "tokens",
             "ch. 12: 2475 across nodes");
  GRADE_BOOK(ex_gpus_dp_critical_batch(2250e12, 400e9, 1, 1), 5625.0, 1e-12, "tokens",
             "ch. 12 Quiz 5 Q1: 5625 on B200");
  GRADE_BOOK(ex_gpus_dp_critical_batch(990e12, 400e9, 128, 4), 79200.0, 1e-12, "tokens",
             "ch. 12: 79,200 for E = 128, k = 4");
  { /* sweep flops_per_s */
    static const double g[] = {990000000000000.0, 2475000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_dp_critical_batch(g[i], 400000000000.0, 1, 1),
                   ref_gpus_dp_critical_batch(g[i], 400000000000.0, 1, 1), "tokens",
                   "ex_gpus_dp_critical_batch(%g, %g, %g, %g)", (double)g[i], (double)400000000000.0, (double)1, (double)1);
  }
  { /* sweep collective_bytes_per_s */
    static const double g[] = {400000000000.0, 1000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_dp_critical_batch(990000000000000.0, g[i], 1, 1),
                   ref_gpus_dp_critical_batch(990000000000000.0, g[i], 1, 1), "tokens",
                   "ex_gpus_dp_critical_batch(%g, %g, %g, %g)", (double)990000000000000.0, (double)g[i], (double)1, (double)1);
  }
  { /* sweep n_experts */
    static const int64_t g[] = {1, 128, 0, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_dp_critical_batch(990000000000000.0, 400000000000.0, g[i], 1),
                   ref_gpus_dp_critical_batch(990000000000000.0, 400000000000.0, g[i], 1), "tokens",
                   "ex_gpus_dp_critical_batch(%g, %g, %g, %g)", (double)990000000000000.0, (double)400000000000.0, (double)g[i], (double)1);
  }
  { /* sweep n_active */
    static const int64_t g[] = {1, 2, 0, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_dp_critical_batch(990000000000000.0, 400000000000.0, 1, g[i]),
                   ref_gpus_dp_critical_batch(990000000000000.0, 400000000000.0, 1, g[i]), "tokens",
                   "ex_gpus_dp_critical_batch(%g, %g, %g, %g)", (double)990000000000000.0, (double)400000000000.0, (double)1, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_tp_max_degree) {
  /* Book: F / 2475 = 28000 / 2475 = 11.3 ("about 11-way"); B200 in a node F / 2500. */
  GRADE_BOOK(ex_gpus_tp_max_degree(28000.0, 990e12, 400e9), 11.0, 0.03, "GPUs",
             "ch. 12: about 11-way");
  GRADE_BOOK(ex_gpus_tp_max_degree(25000.0, 2250e12, 900e9), 10.0, 1e-12, "GPUs",
             "ch. 12 Quiz 5 Q1: Y < F / 2500 on B200");
  { /* sweep f */
    static const double g[] = {28000.0, 70000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_tp_max_degree(g[i], 990000000000000.0, 400000000000.0),
                   ref_gpus_tp_max_degree(g[i], 990000000000000.0, 400000000000.0), "GPUs",
                   "ex_gpus_tp_max_degree(%g, %g, %g)", (double)g[i], (double)990000000000000.0, (double)400000000000.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {990000000000000.0, 2475000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_tp_max_degree(28000.0, g[i], 400000000000.0),
                   ref_gpus_tp_max_degree(28000.0, g[i], 400000000000.0), "GPUs",
                   "ex_gpus_tp_max_degree(%g, %g, %g)", (double)28000.0, (double)g[i], (double)400000000000.0);
  }
  { /* sweep collective_bytes_per_s */
    static const double g[] = {400000000000.0, 1000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_tp_max_degree(28000.0, 990000000000000.0, g[i]),
                   ref_gpus_tp_max_degree(28000.0, 990000000000000.0, g[i]), "GPUs",
                   "ex_gpus_tp_max_degree(%g, %g, %g)", (double)28000.0, (double)990000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_min_gpus_for_weights_and_adam) {
  /* Book: 700GB / 80GB = 8.75, "at least 9 GPUs". */
  GRADE_BOOK(ex_gpus_min_gpus_for_weights_and_adam(70e9, 80e9), 9.0, 1e-12, "GPUs",
             "ch. 12 Quiz 5 Q2: 9 GPUs");
  GRADE_BOOK(ex_gpus_min_gpus_for_weights_and_adam(8e9, 80e9), 1.0, 1e-12, "GPUs",
             "hand: exactly one GPU's worth");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_min_gpus_for_weights_and_adam(g[i], 80000000000.0),
                   ref_gpus_min_gpus_for_weights_and_adam(g[i], 80000000000.0), "GPUs",
                   "ex_gpus_min_gpus_for_weights_and_adam(%g, %g)", (double)g[i], (double)80000000000.0);
  }
  { /* sweep hbm_bytes_per_gpu */
    static const double g[] = {80000000000.0, 200000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_min_gpus_for_weights_and_adam(70000000000.0, g[i]),
                   ref_gpus_min_gpus_for_weights_and_adam(70000000000.0, g[i]), "GPUs",
                   "ex_gpus_min_gpus_for_weights_and_adam(%g, %g)", (double)70000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_pipeline_comms_time_s) {
  /* Hand: 2 x 4e6 x 8192 / (400e9 x 16) = 10.24 ms per hop, 16 + 8 - 2 = 22 hops: 225.28 ms.
   * A single stage with one microbatch has 1 + 1 - 2 = 0 hops. */
  GRADE_BOOK(ex_gpus_pipeline_comms_time_s(4e6, 8192.0, 400e9, 16, 8), 0.22528, 1e-12, "s",
             "hand: 2BD / (W N_MB) x (N_MB + N_stages - 2)");
  GRADE_BOOK(ex_gpus_pipeline_comms_time_s(4e6, 8192.0, 400e9, 1, 1), 0.0, 1e-12, "s",
             "hand: a single stage and microbatch sends nothing");
  { /* sweep b */
    static const double g[] = {4000000.0, 10000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_pipeline_comms_time_s(g[i], 8192.0, 400000000000.0, 16, 8),
                   ref_gpus_pipeline_comms_time_s(g[i], 8192.0, 400000000000.0, 16, 8), "s",
                   "ex_gpus_pipeline_comms_time_s(%g, %g, %g, %g, %g)", (double)g[i], (double)8192.0, (double)400000000000.0, (double)16, (double)8);
  }
  { /* sweep d */
    static const double g[] = {8192.0, 20480.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_pipeline_comms_time_s(4000000.0, g[i], 400000000000.0, 16, 8),
                   ref_gpus_pipeline_comms_time_s(4000000.0, g[i], 400000000000.0, 16, 8), "s",
                   "ex_gpus_pipeline_comms_time_s(%g, %g, %g, %g, %g)", (double)4000000.0, (double)g[i], (double)400000000000.0, (double)16, (double)8);
  }
  { /* sweep bytes_per_s */
    static const double g[] = {400000000000.0, 1000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_pipeline_comms_time_s(4000000.0, 8192.0, g[i], 16, 8),
                   ref_gpus_pipeline_comms_time_s(4000000.0, 8192.0, g[i], 16, 8), "s",
                   "ex_gpus_pipeline_comms_time_s(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192.0, (double)g[i], (double)16, (double)8);
  }
  { /* sweep n_microbatches */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_pipeline_comms_time_s(4000000.0, 8192.0, 400000000000.0, g[i], 8),
                   ref_gpus_pipeline_comms_time_s(4000000.0, 8192.0, 400000000000.0, g[i], 8), "s",
                   "ex_gpus_pipeline_comms_time_s(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192.0, (double)400000000000.0, (double)g[i], (double)8);
  }
  { /* sweep n_stages */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_pipeline_comms_time_s(4000000.0, 8192.0, 400000000000.0, 16, g[i]),
                   ref_gpus_pipeline_comms_time_s(4000000.0, 8192.0, 400000000000.0, 16, g[i]), "s",
                   "ex_gpus_pipeline_comms_time_s(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192.0, (double)400000000000.0, (double)16, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_fat_tree_level_bytes_per_node) {
  /* Book ch. 12 Quiz 3 Q1 (NDR 400 Gbps = 50e9 byte/s per cable and per port): the leaf level,
   * 32 nodes x 8 cables = 256 cables and 8 leaf switches x 32 node-facing ports = 256 ports:
   * "32 * 400 / 8 = 12.8TB/s for 32 nodes, again exactly 400GB/s"; the spine, 4 SUs x
   * 8 x 16 x 2 = 1024 uplink cables and 16 switches x 64 ports = 1024 ports over 128 nodes:
   * "with 128 nodes is again 400GB/s". Hand: half the spine ports, 512 x 50e9 / 128 = 200e9
   * (the switches bind). */
  GRADE_BOOK(ex_gpus_fat_tree_level_bytes_per_node(32, 256, 50e9, 256, 50e9), 400e9, 1e-12,
             "byte/s", "ch. 12 Quiz 3 Q1: leaf, 400GB/s per node");
  GRADE_BOOK(ex_gpus_fat_tree_level_bytes_per_node(128, 1024, 50e9, 1024, 50e9), 400e9, 1e-12,
             "byte/s", "ch. 12 Quiz 3 Q1: spine, 400GB/s per node");
  GRADE_BOOK(ex_gpus_fat_tree_level_bytes_per_node(128, 1024, 50e9, 512, 50e9), 200e9, 1e-12,
             "byte/s", "hand: half the spine ports bind");
  { /* sweep n_nodes */
    static const int64_t g[] = {32, 128, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_fat_tree_level_bytes_per_node(g[i], 256, 50000000000.0, 256, 50000000000.0),
                   ref_gpus_fat_tree_level_bytes_per_node(g[i], 256, 50000000000.0, 256, 50000000000.0), "byte/s",
                   "ex_gpus_fat_tree_level_bytes_per_node(%g, %g, %g, %g, %g)", (double)g[i], (double)256, (double)50000000000.0, (double)256, (double)50000000000.0);
  }
  { /* sweep n_cables */
    static const int64_t g[] = {256, 1024, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_fat_tree_level_bytes_per_node(32, g[i], 50000000000.0, 256, 50000000000.0),
                   ref_gpus_fat_tree_level_bytes_per_node(32, g[i], 50000000000.0, 256, 50000000000.0), "byte/s",
                   "ex_gpus_fat_tree_level_bytes_per_node(%g, %g, %g, %g, %g)", (double)32, (double)g[i], (double)50000000000.0, (double)256, (double)50000000000.0);
  }
  { /* sweep cable_bytes_per_s */
    static const double g[] = {50000000000.0, 125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_fat_tree_level_bytes_per_node(32, 256, g[i], 256, 50000000000.0),
                   ref_gpus_fat_tree_level_bytes_per_node(32, 256, g[i], 256, 50000000000.0), "byte/s",
                   "ex_gpus_fat_tree_level_bytes_per_node(%g, %g, %g, %g, %g)", (double)32, (double)256, (double)g[i], (double)256, (double)50000000000.0);
  }
  { /* sweep n_switch_ports */
    static const int64_t g[] = {256, 512, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_fat_tree_level_bytes_per_node(32, 256, 50000000000.0, g[i], 50000000000.0),
                   ref_gpus_fat_tree_level_bytes_per_node(32, 256, 50000000000.0, g[i], 50000000000.0), "byte/s",
                   "ex_gpus_fat_tree_level_bytes_per_node(%g, %g, %g, %g, %g)", (double)32, (double)256, (double)50000000000.0, (double)g[i], (double)50000000000.0);
  }
  { /* sweep port_bytes_per_s */
    static const double g[] = {50000000000.0, 125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_fat_tree_level_bytes_per_node(32, 256, 50000000000.0, 256, g[i]),
                   ref_gpus_fat_tree_level_bytes_per_node(32, 256, 50000000000.0, 256, g[i]), "byte/s",
                   "ex_gpus_fat_tree_level_bytes_per_node(%g, %g, %g, %g, %g)", (double)32, (double)256, (double)50000000000.0, (double)256, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_spine_switches) {
  /* Book ch. 12 Quiz 3 Q2: the 1024-GPU pod has 16 spine switches of 3.2TB/s for 4 SUs of
   * 12.8TB/s of uplinks; 2048 GPUs "would need 2x more spine switches, so we'd have 8 SUs with
   * 32 spine switches"; "for 4096 GPUs, we actually run out of ports": 64 spine switches, but a
   * leaf switch has 32 uplink ports, so a core level is needed (INFINITY). Hand: 300 GPUs make
   * 2 SUs (a partial SU is whole): 2 x 12.8e12 / 3.2e12 = 8. */
  GRADE_BOOK(ex_gpus_spine_switches(1024, 256, 12.8e12, 3.2e12, 32), 16.0, 1e-12, "switches",
             "ch. 12 Quiz 3: 16 spine switches for 1024 GPUs");
  GRADE_BOOK(ex_gpus_spine_switches(2048, 256, 12.8e12, 3.2e12, 32), 32.0, 1e-12, "switches",
             "ch. 12 Quiz 3 Q2: 32 spine switches for 2048 GPUs");
  GRADE_BOOK(ex_gpus_spine_switches(4096, 256, 12.8e12, 3.2e12, 32), INFINITY, 0.0, "switches",
             "ch. 12 Quiz 3 Q2: 4096 GPUs run out of ports (a core level)");
  GRADE_BOOK(ex_gpus_spine_switches(300, 256, 12.8e12, 3.2e12, 32), 8.0, 1e-12, "switches",
             "hand: a partial SU counts whole");
  { /* sweep n_gpus */
    static const int64_t g[] = {2048, 1024, 300, 4096, 1, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_spine_switches(g[i], 256, 12800000000000.0, 3200000000000.0, 32),
                   ref_gpus_spine_switches(g[i], 256, 12800000000000.0, 3200000000000.0, 32), "switches",
                   "ex_gpus_spine_switches(%g, %g, %g, %g, %g)", (double)g[i], (double)256, (double)12800000000000.0, (double)3200000000000.0, (double)32);
  }
  { /* sweep gpus_per_su */
    static const int64_t g[] = {256, 128, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_spine_switches(2048, g[i], 12800000000000.0, 3200000000000.0, 32),
                   ref_gpus_spine_switches(2048, g[i], 12800000000000.0, 3200000000000.0, 32), "switches",
                   "ex_gpus_spine_switches(%g, %g, %g, %g, %g)", (double)2048, (double)g[i], (double)12800000000000.0, (double)3200000000000.0, (double)32);
  }
  { /* sweep su_uplink_bytes_per_s */
    static const double g[] = {12800000000000.0, 32000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_spine_switches(2048, 256, g[i], 3200000000000.0, 32),
                   ref_gpus_spine_switches(2048, 256, g[i], 3200000000000.0, 32), "switches",
                   "ex_gpus_spine_switches(%g, %g, %g, %g, %g)", (double)2048, (double)256, (double)g[i], (double)3200000000000.0, (double)32);
  }
  { /* sweep switch_bytes_per_s */
    static const double g[] = {3200000000000.0, 8000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_spine_switches(2048, 256, 12800000000000.0, g[i], 32),
                   ref_gpus_spine_switches(2048, 256, 12800000000000.0, g[i], 32), "switches",
                   "ex_gpus_spine_switches(%g, %g, %g, %g, %g)", (double)2048, (double)256, (double)12800000000000.0, (double)g[i], (double)32);
  }
  { /* sweep leaf_uplink_ports */
    static const int64_t g[] = {32, 64, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_spine_switches(2048, 256, 12800000000000.0, 3200000000000.0, g[i]),
                   ref_gpus_spine_switches(2048, 256, 12800000000000.0, 3200000000000.0, g[i]), "switches",
                   "ex_gpus_spine_switches(%g, %g, %g, %g, %g)", (double)2048, (double)256, (double)12800000000000.0, (double)3200000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_sharded_allgather_time_s) {
  /* Book ch. 12 Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]), D = 8192, F = 32,768 (536,870,912
   * bytes) over one H100 SU of 256 GPUs. "When Y <= 8, we remain bounded by the leaf switch":
   * 2DF (32 - 1) / (32 x 400e9) = 1.30023 ms, the same for Y = 1 (x = 256) and Y = 8 (x = 32)
   * ("exactly 8-way model parallelism ... leave[s] the overall cost the same"). For Y = 16 the
   * book writes 2DF / (Y x 50GB/s) = 0.67109 ms; exactly, the leaf ring has d = 16 members each
   * carrying 8/16 of the array: 536870912 x (15/16) x 0.5 / 400e9 = 0.62915 ms (the book drops
   * the ring's 15/16). Hand: Y = 4 within a node, x = 64: the leaf still binds, 1.30023 ms. */
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 256, 1, 8, 450e9, 32, 400e9),
             536870912.0 * 31.0 / (32.0 * 400e9), 1e-12, "s",
             "ch. 12 Pop Quiz 3: Y = 1, 2DF x 31 / (32 x 400e9)");
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 32, 8, 8, 450e9, 32, 400e9),
             536870912.0 * 31.0 / (32.0 * 400e9), 1e-12, "s",
             "ch. 12 Pop Quiz 3: Y = 8 costs the same");
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 64, 4, 8, 450e9, 32, 400e9),
             536870912.0 * 31.0 / (32.0 * 400e9), 1e-12, "s", "hand: Y = 4, the leaf binds");
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450e9, 32, 400e9),
             536870912.0 * 15.0 / 16.0 * 0.5 / 400e9, 1e-12, "s",
             "ch. 12 Pop Quiz 3: Y = 16, exact (book's 2DF / (Y x 50e9) without 15/16)");
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450e9, 32, 400e9),
             536870912.0 / (16.0 * 50e9) * 15.0 / 16.0, 1e-12, "s",
             "ch. 12 Pop Quiz 3: the book's form times the ring's 15/16");
  GRADE_BOOK(ex_gpus_sharded_allgather_time_s(536870912.0, 1, 256, 8, 450e9, 32, 400e9), 0.0,
             0.0, "s", "hand: x = 1 gathers nothing");
  { /* sweep bytes */
    static const double g[] = {536870912.0, 1342177280.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(g[i], 16, 16, 8, 450000000000.0, 32, 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(g[i], 16, 16, 8, 450000000000.0, 32, 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)16, (double)16, (double)8, (double)450000000000.0, (double)32, (double)400000000000.0);
  }
  { /* sweep x */
    static const int64_t g[] = {16, 1, 2, 32, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, g[i], 16, 8, 450000000000.0, 32, 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(536870912.0, g[i], 16, 8, 450000000000.0, 32, 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)g[i], (double)16, (double)8, (double)450000000000.0, (double)32, (double)400000000000.0);
  }
  { /* sweep y */
    static const int64_t g[] = {16, 1, 2, 8, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, 16, g[i], 8, 450000000000.0, 32, 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(536870912.0, 16, g[i], 8, 450000000000.0, 32, 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)16, (double)g[i], (double)8, (double)450000000000.0, (double)32, (double)400000000000.0);
  }
  { /* sweep gpus_per_node */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, g[i], 450000000000.0, 32, 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(536870912.0, 16, 16, g[i], 450000000000.0, 32, 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)16, (double)16, (double)g[i], (double)450000000000.0, (double)32, (double)400000000000.0);
  }
  { /* sweep gpu_egress_bytes_per_s */
    static const double g[] = {450000000000.0, 1125000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, g[i], 32, 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, g[i], 32, 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)16, (double)16, (double)8, (double)g[i], (double)32, (double)400000000000.0);
  }
  { /* sweep n_nodes */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450000000000.0, g[i], 400000000000.0),
                   ref_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450000000000.0, g[i], 400000000000.0), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)16, (double)16, (double)8, (double)450000000000.0, (double)g[i], (double)400000000000.0);
  }
  { /* sweep node_egress_bytes_per_s */
    static const double g[] = {400000000000.0, 1000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450000000000.0, 32, g[i]),
                   ref_gpus_sharded_allgather_time_s(536870912.0, 16, 16, 8, 450000000000.0, 32, g[i]), "s",
                   "ex_gpus_sharded_allgather_time_s(%g, %g, %g, %g, %g, %g, %g)", (double)536870912.0, (double)16, (double)16, (double)8, (double)450000000000.0, (double)32, (double)g[i]);
  }
}
END_TEST

START_TEST(gpus_resident_warps) {
  /* Book ch. 12: "up to 64 resident warps per SM" but "you can only fit 8
   * (256 * 1024 / (4 * 32 * 256)) at a time if each thread uses 256 registers". Hand: 64
   * registers a thread fit 32 warps; 16 registers would fit 128, capped at 64. */
  GRADE_BOOK(ex_gpus_resident_warps(262144.0, 256, 32, 64), 8.0, 1e-12, "warps",
             "ch. 12: 8 resident warps at 256 registers a thread");
  GRADE_BOOK(ex_gpus_resident_warps(262144.0, 64, 32, 64), 32.0, 1e-12, "warps",
             "hand: 64 registers a thread");
  GRADE_BOOK(ex_gpus_resident_warps(262144.0, 16, 32, 64), 64.0, 1e-12, "warps",
             "hand: the scheduler's limit of 64");
  { /* sweep register_file_bytes */
    static const double g[] = {262144.0, 655360.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_resident_warps(g[i], 256, 32, 64),
                   ref_gpus_resident_warps(g[i], 256, 32, 64), "warps",
                   "ex_gpus_resident_warps(%g, %g, %g, %g)", (double)g[i], (double)256, (double)32, (double)64);
  }
  { /* sweep registers_per_thread */
    static const int64_t g[] = {256, 255, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_resident_warps(262144.0, g[i], 32, 64),
                   ref_gpus_resident_warps(262144.0, g[i], 32, 64), "warps",
                   "ex_gpus_resident_warps(%g, %g, %g, %g)", (double)262144.0, (double)g[i], (double)32, (double)64);
  }
  { /* sweep warp_threads */
    static const int64_t g[] = {32, 64, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_resident_warps(262144.0, 256, g[i], 64),
                   ref_gpus_resident_warps(262144.0, 256, g[i], 64), "warps",
                   "ex_gpus_resident_warps(%g, %g, %g, %g)", (double)262144.0, (double)256, (double)g[i], (double)64);
  }
  { /* sweep max_warps */
    static const int64_t g[] = {64, 4, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_gpus_resident_warps(262144.0, 256, 32, g[i]),
                   ref_gpus_resident_warps(262144.0, 256, 32, g[i]), "warps",
                   "ex_gpus_resident_warps(%g, %g, %g, %g)", (double)262144.0, (double)256, (double)32, (double)g[i]);
  }
}
END_TEST

/* ==== a decision exercise: a training layout (grading_train_layout.h) ======================= */

/* Through the contract's struct: the proxy of the student's function. */
static void gpus_layout_call(const train_instance *in, int64_t out[3]) {
  ex_gpu_layout l = ex_gpus_layout_h100(
      in->n_params, in->n_heads, in->n_kv_heads, in->batch_tokens, in->seq_len, in->hbm_bytes,
      in->critical_batch_tokens, in->n_chips);
  out[0] = l.dp;
  out[1] = l.fsdp;
  out[2] = l.tp;
}

START_TEST(gpus_layout_h100) {
  /* The arguments are the library's figures (scale_transformer_n_params, the model's heads,
   * the chip's HBM: nvidia-smi's 81559 MiB x 1048576 = 85,520,809,984 bytes, not the book's
   * decimal 80e9), checked whenever the costs are recorded; the critical batch is the
   * book's v5p figure C / W_ici = 4.59e14 / 1.8e11 = 2550 tokens (ch. 5). */
  static const train_instance in[] = {
      {"LLaMA 3 70B, 1M tokens on 64 H100", "nvidia-h100-sxm", "llama-3-70b", 64, 1048576.0,
       4096.0, 70553706496.0, 64, 8, 85520809984.0, 2550.0},
      {"LLaMA 3 70B, 256K tokens on 128 H100", "nvidia-h100-sxm", "llama-3-70b", 128, 262144.0,
       4096.0, 70553706496.0, 64, 8, 85520809984.0, 2550.0}
  };
  static const train_instance none = {
      "LLaMA 3 405B, 1M tokens on 8 H100", "nvidia-h100-sxm", "llama-3-405b", 8, 1048576.0,
      4096.0, 405853388800.0, 128, 8, 85520809984.0, 2550.0};
  grade_train_layouts(gpus_layout_call, "layout_h100", in, N_OF(in), &none);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("12-gpus");
  grade_add(suite, "gpus.cuda_cores", gpus_cuda_cores);
  grade_add(suite, "gpus.vector_flops_per_s", gpus_vector_flops_per_s);
  grade_add(suite, "gpus.clock_hz", gpus_clock_hz);
  grade_add(suite, "gpus.matmul_time_s", gpus_matmul_time_s);
  grade_add(suite, "gpus.vector_add_time_s", gpus_vector_add_time_s);
  grade_add(suite, "gpus.node_bandwidth_bytes_per_s", gpus_node_bandwidth_bytes_per_s);
  grade_add(suite, "gpus.allgather_time_s", gpus_allgather_time_s);
  grade_add(suite, "gpus.alltoall_time_s", gpus_alltoall_time_s);
  grade_add(suite, "gpus.allreduce_time_s", gpus_allreduce_time_s);
  grade_add(suite, "gpus.two_level_allgather_time_s", gpus_two_level_allgather_time_s);
  grade_add(suite, "gpus.dp_critical_batch", gpus_dp_critical_batch);
  grade_add(suite, "gpus.tp_max_degree", gpus_tp_max_degree);
  grade_add(suite, "gpus.min_gpus_for_weights_and_adam", gpus_min_gpus_for_weights_and_adam);
  grade_add(suite, "gpus.pipeline_comms_time_s", gpus_pipeline_comms_time_s);
  grade_add(suite, "gpus.resident_warps", gpus_resident_warps);
  grade_add(suite, "gpus.fat_tree_level_bytes_per_node", gpus_fat_tree_level_bytes_per_node);
  grade_add(suite, "gpus.spine_switches", gpus_spine_switches);
  grade_add(suite, "gpus.sharded_allgather_time_s", gpus_sharded_allgather_time_s);
  grade_add(suite, "gpus.layout_h100", gpus_layout_h100);
  return grade_run(suite);
}
