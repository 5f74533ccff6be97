/* test_13_hybrid_parallelism.c — grading of chapter 13's exercises
 * (exercises/13-hybrid-parallelism/hybrid_parallelism_ex.h).
 *
 * One TCase per exercise id, each: the paper's figures or a hand derivation first (tolerance
 * per case; where the paper rounds, its figure is named beside the exact value), then the
 * reference over a grid of inputs: each argument in turn swept over typical values and its
 * domain edges (0, negative, NaN) with the others fixed.
 * Paper: Amer et al., arXiv 2602.09109 (digest ../shared/reference/hybrid-paper.md); ZeRO:
 * Rajbhandari et al., arXiv 1910.02054.
 */
#include "hybrid_parallelism_ex.h"

#include "grading.h"
#include "grading_ref_hybrid_parallelism.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(hybrid_parallelism_collective_bytes) {
  /* Table 2, by hand: AllReduce of 1e9 over 8: 2 x 7/8 x 1e9 = 1.75e9; AllGather over 64:
   * 63/64 x 1e9 = 984,375,000; Reduce over 8 of 1e6: 7e6; one device moves nothing. */
  GRADE_BOOK(ex_hybrid_parallelism_collective_bytes(5, 8, 1e9), 1.75e9, 1e-12, "byte",
             "Table 2: 2(N-1)/N T");
  GRADE_BOOK(ex_hybrid_parallelism_collective_bytes(2, 64, 1e9), 984375000.0, 1e-12, "byte",
             "Table 2: (N-1)/N T");
  GRADE_BOOK(ex_hybrid_parallelism_collective_bytes(0, 8, 1e6), 7e6, 1e-12, "byte",
             "Table 2: (N-1) T");
  GRADE_BOOK(ex_hybrid_parallelism_collective_bytes(5, 1, 1e9), 0.0, 1e-12, "byte",
             "hand: a group of one moves nothing");
  { /* sweep op */
    static const int64_t g[] = {5, 0, 1, 2, 3, 4, 6, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_collective_bytes(g[i], 8, 1000000000.0),
                   ref_hybrid_parallelism_collective_bytes(g[i], 8, 1000000000.0), "byte",
                   "ex_hybrid_parallelism_collective_bytes(%g, %g, %g)", (double)g[i], (double)8, (double)1000000000.0);
  }
  { /* sweep n */
    static const int64_t g[] = {8, 2, 64, 1, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_collective_bytes(5, g[i], 1000000000.0),
                   ref_hybrid_parallelism_collective_bytes(5, g[i], 1000000000.0), "byte",
                   "ex_hybrid_parallelism_collective_bytes(%g, %g, %g)", (double)5, (double)g[i], (double)1000000000.0);
  }
  { /* sweep t_bytes */
    static const double g[] = {1000000000.0, 2500000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_collective_bytes(5, 8, g[i]),
                   ref_hybrid_parallelism_collective_bytes(5, 8, g[i]), "byte",
                   "ex_hybrid_parallelism_collective_bytes(%g, %g, %g)", (double)5, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_tp_fwd_bytes) {
  /* Table 3 by hand, LLaMA 2 7B: 4 x 7/8 x 4096 x 4096 x 2 = 117,440,512 bytes; TP 2:
   * 67,108,864. */
  GRADE_BOOK(ex_hybrid_parallelism_tp_fwd_bytes(1, 4096, 4096, 8, 2), 117440512.0, 1e-12, "byte",
             "Table 3: 4(TP-1)/TP bsd");
  GRADE_BOOK(ex_hybrid_parallelism_tp_fwd_bytes(1, 4096, 4096, 2, 2), 67108864.0, 1e-12, "byte",
             "Table 3: 4(TP-1)/TP bsd");
  { /* sweep b */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_tp_fwd_bytes(g[i], 4096.0, 4096, 8, 2.0),
                   ref_hybrid_parallelism_tp_fwd_bytes(g[i], 4096.0, 4096, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_tp_fwd_bytes(%g, %g, %g, %g, %g)", (double)g[i], (double)4096.0, (double)4096, (double)8, (double)2.0);
  }
  { /* sweep s */
    static const double g[] = {4096.0, 10240.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_tp_fwd_bytes(1.0, g[i], 4096, 8, 2.0),
                   ref_hybrid_parallelism_tp_fwd_bytes(1.0, g[i], 4096, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_tp_fwd_bytes(%g, %g, %g, %g, %g)", (double)1.0, (double)g[i], (double)4096, (double)8, (double)2.0);
  }
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, g[i], 8, 2.0),
                   ref_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, g[i], 8, 2.0), "byte",
                   "ex_hybrid_parallelism_tp_fwd_bytes(%g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)g[i], (double)8, (double)2.0);
  }
  { /* sweep t */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, 4096, g[i], 2.0),
                   ref_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, 4096, g[i], 2.0), "byte",
                   "ex_hybrid_parallelism_tp_fwd_bytes(%g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)4096, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 4.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, 4096, 8, g[i]),
                   ref_hybrid_parallelism_tp_fwd_bytes(1.0, 4096.0, 4096, 8, g[i]), "byte",
                   "ex_hybrid_parallelism_tp_fwd_bytes(%g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)4096, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_cp_fwd_bytes) {
  /* Table 3 by hand, Llama 3.2 1B: 4 x 7/8 x 4096 x 8 x 64 x 2 = 14,680,064 bytes, a quarter of
   * TP's 58,720,256 (k d_h = 512 = d / 4). */
  GRADE_BOOK(ex_hybrid_parallelism_cp_fwd_bytes(1, 4096, 8, 64, 8, 2), 14680064.0, 1e-12, "byte",
             "Table 3: 4(CP-1)/CP bskd_h");
  { /* sweep b */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(g[i], 4096.0, 8, 64, 8, 2.0),
                   ref_hybrid_parallelism_cp_fwd_bytes(g[i], 4096.0, 8, 64, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)g[i], (double)4096.0, (double)8, (double)64, (double)8, (double)2.0);
  }
  { /* sweep s */
    static const double g[] = {4096.0, 10240.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(1.0, g[i], 8, 64, 8, 2.0),
                   ref_hybrid_parallelism_cp_fwd_bytes(1.0, g[i], 8, 64, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)1.0, (double)g[i], (double)8, (double)64, (double)8, (double)2.0);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, g[i], 64, 8, 2.0),
                   ref_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, g[i], 64, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)g[i], (double)64, (double)8, (double)2.0);
  }
  { /* sweep d_head */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, g[i], 8, 2.0),
                   ref_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, g[i], 8, 2.0), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)8, (double)g[i], (double)8, (double)2.0);
  }
  { /* sweep c */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, 64, g[i], 2.0),
                   ref_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, 64, g[i], 2.0), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)8, (double)64, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 4.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, 64, 8, g[i]),
                   ref_hybrid_parallelism_cp_fwd_bytes(1.0, 4096.0, 8, 64, 8, g[i]), "byte",
                   "ex_hybrid_parallelism_cp_fwd_bytes(%g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)8, (double)64, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_ulysses_fwd_bytes) {
  /* Table 3 by hand, LLaMA 2 7B: 4 x 7/64 x 4096 x 128 x 64 x 2 = 29,360,128 bytes. From the
   * parts of section 2.6 for Llama 3.2 1B at u = 4: Comm_q = Comm_o = 2 x 1024 x 512 x 3 =
   * 3,145,728, Comm_k = Comm_v = 2 x 1024 x 128 x 3 = 786,432 elements: 15,728,640 bytes. */
  GRADE_BOOK(ex_hybrid_parallelism_ulysses_fwd_bytes(1, 4096, 32, 32, 128, 8, 2), 29360128.0, 1e-12,
             "byte", "Table 3: 4(T-1)/T^2 bs d_h (a + k)");
  GRADE_BOOK(ex_hybrid_parallelism_ulysses_fwd_bytes(1, 4096, 32, 8, 64, 4, 2), 15728640.0, 1e-12,
             "byte", "section 2.6: Comm_q + Comm_k + Comm_v + Comm_o");
  { /* sweep b */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(g[i], 4096.0, 32, 32, 128, 8, 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(g[i], 4096.0, 32, 32, 128, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)4096.0, (double)32, (double)32, (double)128, (double)8, (double)2.0);
  }
  { /* sweep s */
    static const double g[] = {4096.0, 10240.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, g[i], 32, 32, 128, 8, 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, g[i], 32, 32, 128, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)g[i], (double)32, (double)32, (double)128, (double)8, (double)2.0);
  }
  { /* sweep a */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, g[i], 32, 128, 8, 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, g[i], 32, 128, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)g[i], (double)32, (double)128, (double)8, (double)2.0);
  }
  { /* sweep k */
    static const int64_t g[] = {32, 8, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, g[i], 128, 8, 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, g[i], 128, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)32, (double)g[i], (double)128, (double)8, (double)2.0);
  }
  { /* sweep d_head */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, g[i], 8, 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, g[i], 8, 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)32, (double)32, (double)g[i], (double)8, (double)2.0);
  }
  { /* sweep u */
    static const int64_t g[] = {8, 1, 2, 4, 33, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, 128, g[i], 2.0),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, 128, g[i], 2.0), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)32, (double)32, (double)128, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 4.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, 128, 8, g[i]),
                   ref_hybrid_parallelism_ulysses_fwd_bytes(1.0, 4096.0, 32, 32, 128, 8, g[i]), "byte",
                   "ex_hybrid_parallelism_ulysses_fwd_bytes(%g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)4096.0, (double)32, (double)32, (double)128, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_zero_state_bytes) {
  /* ZeRO paper Figure 1, 7.5B parameters over 64: 16 x 7.5e9 = 120 GB; (4 + 12/64) x 7.5e9 =
   * 31.40625 GB ("31.4GB"); (2 + 14/64) x 7.5e9 = 16.640625 GB ("16.6GB"); 16/64 x 7.5e9 =
   * 1.875 GB (printed "1.9GB"). */
  GRADE_BOOK(ex_hybrid_parallelism_zero_state_bytes(7.5e9, 0, 64), 120e9, 1e-12, "byte",
             "ZeRO Figure 1: 120GB");
  GRADE_BOOK(ex_hybrid_parallelism_zero_state_bytes(7.5e9, 1, 64), 31.40625e9, 1e-12, "byte",
             "ZeRO Figure 1: 31.4GB");
  GRADE_BOOK(ex_hybrid_parallelism_zero_state_bytes(7.5e9, 2, 64), 16.640625e9, 1e-12, "byte",
             "ZeRO Figure 1: 16.6GB");
  GRADE_BOOK(ex_hybrid_parallelism_zero_state_bytes(7.5e9, 3, 64), 1.875e9, 1e-12, "byte",
             "ZeRO Figure 1 exact 1.875GB (printed 1.9GB)");
  { /* sweep n_params */
    static const double g[] = {7500000000.0, 18750000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_zero_state_bytes(g[i], 1, 64),
                   ref_hybrid_parallelism_zero_state_bytes(g[i], 1, 64), "byte",
                   "ex_hybrid_parallelism_zero_state_bytes(%g, %g, %g)", (double)g[i], (double)1, (double)64);
  }
  { /* sweep stage */
    static const int64_t g[] = {0, 1, 2, 3, 4, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_zero_state_bytes(7500000000.0, g[i], 64),
                   ref_hybrid_parallelism_zero_state_bytes(7500000000.0, g[i], 64), "byte",
                   "ex_hybrid_parallelism_zero_state_bytes(%g, %g, %g)", (double)7500000000.0, (double)g[i], (double)64);
  }
  { /* sweep n_shards */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_zero_state_bytes(7500000000.0, 1, g[i]),
                   ref_hybrid_parallelism_zero_state_bytes(7500000000.0, 1, g[i]), "byte",
                   "ex_hybrid_parallelism_zero_state_bytes(%g, %g, %g)", (double)7500000000.0, (double)1, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_strong_overlap_s) {
  /* By hand: (c-1)/c x 3 + 5/c: c = 1 5 s (no overlap), c = 2 4 s, c = 4 3.5 s. */
  GRADE_BOOK(ex_hybrid_parallelism_strong_overlap_s(3, 2, 1), 5.0, 1e-12, "s", "hand: serial");
  GRADE_BOOK(ex_hybrid_parallelism_strong_overlap_s(3, 2, 2), 4.0, 1e-12, "s", "hand: 2 chunks");
  GRADE_BOOK(ex_hybrid_parallelism_strong_overlap_s(3, 2, 4), 3.5, 1e-12, "s", "hand: 4 chunks");
  { /* sweep t_comp */
    static const double g[] = {3.0, 0.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_strong_overlap_s(g[i], 2.0, 4),
                   ref_hybrid_parallelism_strong_overlap_s(g[i], 2.0, 4), "s",
                   "ex_hybrid_parallelism_strong_overlap_s(%g, %g, %g)", (double)g[i], (double)2.0, (double)4);
  }
  { /* sweep t_comm */
    static const double g[] = {2.0, 7.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_strong_overlap_s(3.0, g[i], 4),
                   ref_hybrid_parallelism_strong_overlap_s(3.0, g[i], 4), "s",
                   "ex_hybrid_parallelism_strong_overlap_s(%g, %g, %g)", (double)3.0, (double)g[i], (double)4);
  }
  { /* sweep n_chunks */
    static const int64_t g[] = {4, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_strong_overlap_s(3.0, 2.0, g[i]),
                   ref_hybrid_parallelism_strong_overlap_s(3.0, 2.0, g[i]), "s",
                   "ex_hybrid_parallelism_strong_overlap_s(%g, %g, %g)", (double)3.0, (double)2.0, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_ring_cp_min_block) {
  /* By hand: 9.89e14 / 4.5e11 = 2197.8 tokens for MHA in bf16 (k beta / 2a = 1; the digest's
   * "about 2.2K"); with k = a/4 a quarter, 549.4. */
  GRADE_BOOK(ex_hybrid_parallelism_ring_cp_min_block(9.89e14, 4.5e11, 32, 32, 2), 9.89e14 / 4.5e11,
             1e-12, "tokens", "Ring Attention: c >= F / W for MHA in bf16");
  GRADE_BOOK(ex_hybrid_parallelism_ring_cp_min_block(9.89e14, 4.5e11, 32, 8, 2),
             9.89e14 / 4.5e11 / 4.0, 1e-12, "tokens", "GQA: k / a = 1/4");
  { /* sweep flops_per_s */
    static const double g[] = {989000000000000.0, 378880000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ring_cp_min_block(g[i], 450000000000.0, 32, 32, 2.0),
                   ref_hybrid_parallelism_ring_cp_min_block(g[i], 450000000000.0, 32, 32, 2.0), "tokens",
                   "ex_hybrid_parallelism_ring_cp_min_block(%g, %g, %g, %g, %g)", (double)g[i], (double)450000000000.0, (double)32, (double)32, (double)2.0);
  }
  { /* sweep link_bytes_per_s */
    static const double g[] = {450000000000.0, 28000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ring_cp_min_block(989000000000000.0, g[i], 32, 32, 2.0),
                   ref_hybrid_parallelism_ring_cp_min_block(989000000000000.0, g[i], 32, 32, 2.0), "tokens",
                   "ex_hybrid_parallelism_ring_cp_min_block(%g, %g, %g, %g, %g)", (double)989000000000000.0, (double)g[i], (double)32, (double)32, (double)2.0);
  }
  { /* sweep a */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, g[i], 32, 2.0),
                   ref_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, g[i], 32, 2.0), "tokens",
                   "ex_hybrid_parallelism_ring_cp_min_block(%g, %g, %g, %g, %g)", (double)989000000000000.0, (double)450000000000.0, (double)g[i], (double)32, (double)2.0);
  }
  { /* sweep k */
    static const int64_t g[] = {32, 8, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, 32, g[i], 2.0),
                   ref_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, 32, g[i], 2.0), "tokens",
                   "ex_hybrid_parallelism_ring_cp_min_block(%g, %g, %g, %g, %g)", (double)989000000000000.0, (double)450000000000.0, (double)32, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 4.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, 32, 32, g[i]),
                   ref_hybrid_parallelism_ring_cp_min_block(989000000000000.0, 450000000000.0, 32, 32, g[i]), "tokens",
                   "ex_hybrid_parallelism_ring_cp_min_block(%g, %g, %g, %g, %g)", (double)989000000000000.0, (double)450000000000.0, (double)32, (double)32, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_mamba_in_proj) {
  /* Section 5.3 by hand, Mamba-7B: 2 x 8192 + 2 x 8 x 128 + 128 = 18,560; Mamba-1B: 2 x 4096 +
   * 2 x 8 x 64 + 64 = 9,280. */
  GRADE_BOOK(ex_hybrid_parallelism_mamba_in_proj(4096, 2, 8, 128, 128), 18560.0, 1e-12, "elements",
             "section 5.3: 2 d_inner + 2 ngroups n + h");
  GRADE_BOOK(ex_hybrid_parallelism_mamba_in_proj(2048, 2, 8, 64, 64), 9280.0, 1e-12, "elements",
             "section 5.3: Mamba-1B");
  { /* sweep d_model */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_in_proj(g[i], 2, 8, 128, 128),
                   ref_hybrid_parallelism_mamba_in_proj(g[i], 2, 8, 128, 128), "elements",
                   "ex_hybrid_parallelism_mamba_in_proj(%g, %g, %g, %g, %g)", (double)g[i], (double)2, (double)8, (double)128, (double)128);
  }
  { /* sweep expand */
    static const int64_t g[] = {2, 1, 4, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_in_proj(4096, g[i], 8, 128, 128),
                   ref_hybrid_parallelism_mamba_in_proj(4096, g[i], 8, 128, 128), "elements",
                   "ex_hybrid_parallelism_mamba_in_proj(%g, %g, %g, %g, %g)", (double)4096, (double)g[i], (double)8, (double)128, (double)128);
  }
  { /* sweep n_groups */
    static const int64_t g[] = {8, 1, 2, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_in_proj(4096, 2, g[i], 128, 128),
                   ref_hybrid_parallelism_mamba_in_proj(4096, 2, g[i], 128, 128), "elements",
                   "ex_hybrid_parallelism_mamba_in_proj(%g, %g, %g, %g, %g)", (double)4096, (double)2, (double)g[i], (double)128, (double)128);
  }
  { /* sweep d_state */
    static const int64_t g[] = {128, 1, 64, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_in_proj(4096, 2, 8, g[i], 128),
                   ref_hybrid_parallelism_mamba_in_proj(4096, 2, 8, g[i], 128), "elements",
                   "ex_hybrid_parallelism_mamba_in_proj(%g, %g, %g, %g, %g)", (double)4096, (double)2, (double)8, (double)g[i], (double)128);
  }
  { /* sweep n_heads */
    static const int64_t g[] = {128, 1, 64, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_in_proj(4096, 2, 8, 128, g[i]),
                   ref_hybrid_parallelism_mamba_in_proj(4096, 2, 8, 128, g[i]), "elements",
                   "ex_hybrid_parallelism_mamba_in_proj(%g, %g, %g, %g, %g)", (double)4096, (double)2, (double)8, (double)128, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_mamba_cp_fwd_bytes) {
  /* By hand, Mamba-7B, CP 8, bf16: state 128 x 64 x 128 = 1,048,576, halo 3 x (8192 + 2048) =
   * 30,720 elements; (2 x 7 x 1,048,576 + 2 x 30,720) x 2 = 29,483,008 bytes, at any length
   * (Table 8: O(d d_state CP)). */
  GRADE_BOOK(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1, 128, 64, 128, 8, 8192, 4, 8, 2),
             29483008.0, 1e-12, "byte", "hand: states AllGather + conv halo");
  GRADE_BOOK(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1, 128, 64, 128, 8, 8192, 4, 1, 2), 0.0,
             1e-12, "byte", "hand: no CP, nothing moves");
  { /* sweep b */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(g[i], 128, 64, 128, 8, 8192, 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(g[i], 128, 64, 128, 8, 8192, 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)128, (double)64, (double)128, (double)8, (double)8192, (double)4, (double)8, (double)2.0);
  }
  { /* sweep n_heads */
    static const int64_t g[] = {128, 1, 64, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, g[i], 64, 128, 8, 8192, 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, g[i], 64, 128, 8, 8192, 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)g[i], (double)64, (double)128, (double)8, (double)8192, (double)4, (double)8, (double)2.0);
  }
  { /* sweep d_head */
    static const int64_t g[] = {64, 1, 2, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, g[i], 128, 8, 8192, 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, g[i], 128, 8, 8192, 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)g[i], (double)128, (double)8, (double)8192, (double)4, (double)8, (double)2.0);
  }
  { /* sweep d_state */
    static const int64_t g[] = {128, 1, 64, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, g[i], 8, 8192, 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, g[i], 8, 8192, 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)g[i], (double)8, (double)8192, (double)4, (double)8, (double)2.0);
  }
  { /* sweep n_groups */
    static const int64_t g[] = {8, 1, 2, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, g[i], 8192, 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, g[i], 8192, 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)128, (double)g[i], (double)8192, (double)4, (double)8, (double)2.0);
  }
  { /* sweep d_inner */
    static const int64_t g[] = {8192, 1, 4096, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, g[i], 4, 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, g[i], 4, 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)128, (double)8, (double)g[i], (double)4, (double)8, (double)2.0);
  }
  { /* sweep d_conv */
    static const int64_t g[] = {4, 1, 2, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, g[i], 8, 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, g[i], 8, 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)128, (double)8, (double)8192, (double)g[i], (double)8, (double)2.0);
  }
  { /* sweep c */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, 4, g[i], 2.0),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, 4, g[i], 2.0), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)128, (double)8, (double)8192, (double)4, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 4.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, 4, 8, g[i]),
                   ref_hybrid_parallelism_mamba_cp_fwd_bytes(1.0, 128, 64, 128, 8, 8192, 4, 8, g[i]), "byte",
                   "ex_hybrid_parallelism_mamba_cp_fwd_bytes(%g, %g, %g, %g, %g, %g, %g, %g, %g)", (double)1.0, (double)128, (double)64, (double)128, (double)8, (double)8192, (double)4, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_mfu) {
  /* Table 10's best layout: (6 x 6.74e9 + 12 x 32 x 4096 x 4096) x 4,194,304 / (101.8 x 8 x
   * 3.7888e14) = 0.63728; the paper prints 63.7% (rounded to 0.05 points: rtol 1e-3). */
  GRADE_BOOK(ex_hybrid_parallelism_mfu(6.74e9, 32, 4096, 4096, 4194304, 101.8, 8, 3.7888e14), 0.637,
             1e-3, "", "Table 10: 63.7% at (4,2,1,1)");
  { /* sweep n_params */
    static const double g[] = {6740000000.0, 1236000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(g[i], 32, 4096, 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(g[i], 32, 4096, 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)32, (double)4096, (double)4096.0, (double)4194304.0, (double)101.8, (double)8.0, (double)378880000000000.0);
  }
  { /* sweep n_layers */
    static const int64_t g[] = {32, 1, 16, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, g[i], 4096, 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, g[i], 4096, 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)g[i], (double)4096, (double)4096.0, (double)4194304.0, (double)101.8, (double)8.0, (double)378880000000000.0);
  }
  { /* sweep d_model */
    static const int64_t g[] = {4096, 1, 2048, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, g[i], 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, g[i], 4096.0, 4194304.0, 101.8, 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)g[i], (double)4096.0, (double)4194304.0, (double)101.8, (double)8.0, (double)378880000000000.0);
  }
  { /* sweep s */
    static const double g[] = {4096.0, 1.0, 32768.0, 0.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, 4096, g[i], 4194304.0, 101.8, 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, 4096, g[i], 4194304.0, 101.8, 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)4096, (double)g[i], (double)4194304.0, (double)101.8, (double)8.0, (double)378880000000000.0);
  }
  { /* sweep tokens */
    static const double g[] = {4194304.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, g[i], 101.8, 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, g[i], 101.8, 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)4096, (double)4096.0, (double)g[i], (double)101.8, (double)8.0, (double)378880000000000.0);
  }
  { /* sweep step_s */
    static const double g[] = {101.8, 28.3, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, g[i], 8.0, 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, g[i], 8.0, 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)4096, (double)4096.0, (double)4194304.0, (double)g[i], (double)8.0, (double)378880000000000.0);
  }
  { /* sweep n_chips */
    static const double g[] = {8.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, 101.8, g[i], 378880000000000.0),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, 101.8, g[i], 378880000000000.0), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)4096, (double)4096.0, (double)4194304.0, (double)101.8, (double)g[i], (double)378880000000000.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {378880000000000.0, 989000000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, 101.8, 8.0, g[i]),
                   ref_hybrid_parallelism_mfu(6740000000.0, 32, 4096, 4096.0, 4194304.0, 101.8, 8.0, g[i]), "1",
                   "ex_hybrid_parallelism_mfu(%g, %g, %g, %g, %g, %g, %g, %g)", (double)6740000000.0, (double)32, (double)4096, (double)4096.0, (double)4194304.0, (double)101.8, (double)8.0, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_guide_pp_degree) {
  /* Section 6.4: LLaMA 2 7B on 8 x 60 GB: pure DP needs 6,738,415,616 x (6 + 12/8) + 18.25e9 =
   * 68.79e9 > 60e9; PP 2 needs 3,369,207,808 x (6 + 12/4) + 18.25e9 = 48.57e9: the paper's PP 2.
   * Llama 3.2 1B (1,235,814,400 x 7.5 + 4.56e9 = 13.8e9) fits as pure DP, the paper's best. With
   * 60e9 of activations nothing fits. */
  GRADE_BOOK(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6, 12, 18.25e9, 60e9, 8), 2.0,
             1e-12, "chips", "section 6.4: LLaMA -> PP = 2, DP = 4");
  GRADE_BOOK(ex_hybrid_parallelism_guide_pp_degree(1235814400.0, 6, 12, 4.56e9, 60e9, 8), 1.0,
             1e-12, "chips", "section 6.4: small models: pure DP");
  GRADE_BOOK(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6, 12, 60e9, 60e9, 8), NAN,
             1e-12, "chips", "hand: activations alone fill the HBM, no degree fits");
  { /* sweep n_params */
    static const double g[] = {6738415616.0, 1235814400.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(g[i], 6.0, 12.0, 18250000000.0, 60000000000.0, 8),
                   ref_hybrid_parallelism_guide_pp_degree(g[i], 6.0, 12.0, 18250000000.0, 60000000000.0, 8), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)g[i], (double)6.0, (double)12.0, (double)18250000000.0, (double)60000000000.0, (double)8);
  }
  { /* sweep weight_grad_bytes_per_param */
    static const double g[] = {6.0, 4.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, g[i], 12.0, 18250000000.0, 60000000000.0, 8),
                   ref_hybrid_parallelism_guide_pp_degree(6738415616.0, g[i], 12.0, 18250000000.0, 60000000000.0, 8), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)6738415616.0, (double)g[i], (double)12.0, (double)18250000000.0, (double)60000000000.0, (double)8);
  }
  { /* sweep optimizer_bytes_per_param */
    static const double g[] = {12.0, 8.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, g[i], 18250000000.0, 60000000000.0, 8),
                   ref_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, g[i], 18250000000.0, 60000000000.0, 8), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)6738415616.0, (double)6.0, (double)g[i], (double)18250000000.0, (double)60000000000.0, (double)8);
  }
  { /* sweep activation_bytes */
    static const double g[] = {18250000000.0, 4560000000.0, 60000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, g[i], 60000000000.0, 8),
                   ref_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, g[i], 60000000000.0, 8), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)6738415616.0, (double)6.0, (double)12.0, (double)g[i], (double)60000000000.0, (double)8);
  }
  { /* sweep hbm_bytes */
    static const double g[] = {60000000000.0, 80000000000.0, 20000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, 18250000000.0, g[i], 8),
                   ref_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, 18250000000.0, g[i], 8), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)6738415616.0, (double)6.0, (double)12.0, (double)18250000000.0, (double)g[i], (double)8);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {8, 1, 2, 16, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, 18250000000.0, 60000000000.0, g[i]),
                   ref_hybrid_parallelism_guide_pp_degree(6738415616.0, 6.0, 12.0, 18250000000.0, 60000000000.0, g[i]), "chips",
                   "ex_hybrid_parallelism_guide_pp_degree(%g, %g, %g, %g, %g, %g)", (double)6738415616.0, (double)6.0, (double)12.0, (double)18250000000.0, (double)60000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_max_hiding_cp) {
  /* By hand: at 4K on the 910B no degree leaves 13,531 tokens per device (4096 / 2 = 2048): 1;
   * at 32K on H100 NVLink 32768 / 8 = 4096 >= 2,198: 8; at 32K on the 910B 16,384 >= 13,531 but
   * 8,192 is not: 2. */
  GRADE_BOOK(ex_hybrid_parallelism_max_hiding_cp(4096, 13531, 8), 1.0, 1e-12, "chips",
             "chapter 13: no CP hides its ring at 4K on the 910B");
  GRADE_BOOK(ex_hybrid_parallelism_max_hiding_cp(32768, 2198, 8), 8.0, 1e-12, "chips",
             "hand: 4096 >= 2198");
  GRADE_BOOK(ex_hybrid_parallelism_max_hiding_cp(32768, 13531, 8), 2.0, 1e-12, "chips",
             "hand: 16384 >= 13531 > 8192");
  { /* sweep s */
    static const double g[] = {32768.0, 4096.0, 131072.0, 1.0, 0.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_max_hiding_cp(g[i], 2198.0, 8),
                   ref_hybrid_parallelism_max_hiding_cp(g[i], 2198.0, 8), "chips",
                   "ex_hybrid_parallelism_max_hiding_cp(%g, %g, %g)", (double)g[i], (double)2198.0, (double)8);
  }
  { /* sweep min_block_tokens */
    static const double g[] = {2198.0, 13531.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_max_hiding_cp(32768.0, g[i], 8),
                   ref_hybrid_parallelism_max_hiding_cp(32768.0, g[i], 8), "chips",
                   "ex_hybrid_parallelism_max_hiding_cp(%g, %g, %g)", (double)32768.0, (double)g[i], (double)8);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {8, 1, 2, 64, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_max_hiding_cp(32768.0, 2198.0, g[i]),
                   ref_hybrid_parallelism_max_hiding_cp(32768.0, 2198.0, g[i]), "chips",
                   "ex_hybrid_parallelism_max_hiding_cp(%g, %g, %g)", (double)32768.0, (double)2198.0, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_guide_tp_degree) {
  /* Section 6.3.1: Mamba-7B as pure DP needs 4.517e9 x (6 + 12/8) + 28.2e9 = 62.08e9 > 60e9;
   * at TP 2, 2.2585e9 x (6 + 3) + 14.1e9 = 34.43e9: the paper's TP 2. Mamba-1B fits as pure DP
   * (7.015e8 x 7.5 + 4.57e9 = 9.83e9), the paper's best. With 3 groups only TP 1 divides them,
   * and it does not fit. */
  GRADE_BOOK(ex_hybrid_parallelism_guide_tp_degree(4.517e9, 6, 12, 28.2e9, 60e9, 8, 8), 2.0, 1e-12,
             "chips", "section 6.3.1: Mamba-7B -> TP = 2, DP = 4");
  GRADE_BOOK(ex_hybrid_parallelism_guide_tp_degree(7.015e8, 6, 12, 4.57e9, 60e9, 8, 8), 1.0, 1e-12,
             "chips", "section 6.4: small models: pure DP");
  GRADE_BOOK(ex_hybrid_parallelism_guide_tp_degree(4.517e9, 6, 12, 28.2e9, 60e9, 3, 8), NAN, 1e-12,
             "chips", "hand: TP must divide the groups");
  { /* sweep n_params */
    static const double g[] = {4517000000.0, 701500000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(g[i], 6.0, 12.0, 28200000000.0, 60000000000.0, 8, 8),
                   ref_hybrid_parallelism_guide_tp_degree(g[i], 6.0, 12.0, 28200000000.0, 60000000000.0, 8, 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)6.0, (double)12.0, (double)28200000000.0, (double)60000000000.0, (double)8, (double)8);
  }
  { /* sweep weight_grad_bytes_per_param */
    static const double g[] = {6.0, 4.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, g[i], 12.0, 28200000000.0, 60000000000.0, 8, 8),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, g[i], 12.0, 28200000000.0, 60000000000.0, 8, 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)g[i], (double)12.0, (double)28200000000.0, (double)60000000000.0, (double)8, (double)8);
  }
  { /* sweep optimizer_bytes_per_param */
    static const double g[] = {12.0, 8.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, g[i], 28200000000.0, 60000000000.0, 8, 8),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, g[i], 28200000000.0, 60000000000.0, 8, 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)6.0, (double)g[i], (double)28200000000.0, (double)60000000000.0, (double)8, (double)8);
  }
  { /* sweep activation_bytes */
    static const double g[] = {28200000000.0, 4570000000.0, 200000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, g[i], 60000000000.0, 8, 8),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, g[i], 60000000000.0, 8, 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)6.0, (double)12.0, (double)g[i], (double)60000000000.0, (double)8, (double)8);
  }
  { /* sweep hbm_bytes */
    static const double g[] = {60000000000.0, 80000000000.0, 20000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, g[i], 8, 8),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, g[i], 8, 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)6.0, (double)12.0, (double)28200000000.0, (double)g[i], (double)8, (double)8);
  }
  { /* sweep n_groups */
    static const int64_t g[] = {8, 1, 2, 3, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, 60000000000.0, g[i], 8),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, 60000000000.0, g[i], 8), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)6.0, (double)12.0, (double)28200000000.0, (double)60000000000.0, (double)g[i], (double)8);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {8, 1, 2, 16, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, 60000000000.0, 8, g[i]),
                   ref_hybrid_parallelism_guide_tp_degree(4517000000.0, 6.0, 12.0, 28200000000.0, 60000000000.0, 8, g[i]), "chips",
                   "ex_hybrid_parallelism_guide_tp_degree(%g, %g, %g, %g, %g, %g, %g)", (double)4517000000.0, (double)6.0, (double)12.0, (double)28200000000.0, (double)60000000000.0, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(hybrid_parallelism_first_split) {
  /* Sections 6.2.3, 6.3.3, 4.2: LLaMA 2 7B at 4K (18.25e9 of activations < 50.5e9 of state):
   * PP (1); at 32K (146e9 > 50.5e9): CP (3); Mamba: TP (2). */
  GRADE_BOOK(ex_hybrid_parallelism_first_split(0, 18.25e9, 50.5e9), 1.0, 1e-12, "",
             "section 6.2.3: PP before TP");
  GRADE_BOOK(ex_hybrid_parallelism_first_split(0, 146e9, 50.5e9), 3.0, 1e-12, "",
             "section 4.2: CP when activations dominate");
  GRADE_BOOK(ex_hybrid_parallelism_first_split(1, 18.25e9, 50.5e9), 2.0, 1e-12, "",
             "section 6.3.3: TP first for Mamba");
  { /* sweep is_mamba */
    static const int g[] = {0, 1, 2, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_first_split(g[i], 18250000000.0, 50500000000.0),
                   ref_hybrid_parallelism_first_split(g[i], 18250000000.0, 50500000000.0), "",
                   "ex_hybrid_parallelism_first_split(%g, %g, %g)", (double)g[i], (double)18250000000.0, (double)50500000000.0);
  }
  { /* sweep activation_bytes */
    static const double g[] = {18250000000.0, 146000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_first_split(0, g[i], 50500000000.0),
                   ref_hybrid_parallelism_first_split(0, g[i], 50500000000.0), "",
                   "ex_hybrid_parallelism_first_split(%g, %g, %g)", (double)0, (double)g[i], (double)50500000000.0);
  }
  { /* sweep model_state_bytes */
    static const double g[] = {50500000000.0, 10000000000.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_hybrid_parallelism_first_split(0, 18250000000.0, g[i]),
                   ref_hybrid_parallelism_first_split(0, 18250000000.0, g[i]), "",
                   "ex_hybrid_parallelism_first_split(%g, %g, %g)", (double)0, (double)18250000000.0, (double)g[i]);
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("13-hybrid-parallelism");
  grade_add(suite, "hybrid_parallelism.collective_bytes", hybrid_parallelism_collective_bytes);
  grade_add(suite, "hybrid_parallelism.tp_fwd_bytes", hybrid_parallelism_tp_fwd_bytes);
  grade_add(suite, "hybrid_parallelism.cp_fwd_bytes", hybrid_parallelism_cp_fwd_bytes);
  grade_add(suite, "hybrid_parallelism.ulysses_fwd_bytes", hybrid_parallelism_ulysses_fwd_bytes);
  grade_add(suite, "hybrid_parallelism.zero_state_bytes", hybrid_parallelism_zero_state_bytes);
  grade_add(suite, "hybrid_parallelism.strong_overlap_s", hybrid_parallelism_strong_overlap_s);
  grade_add(suite, "hybrid_parallelism.ring_cp_min_block", hybrid_parallelism_ring_cp_min_block);
  grade_add(suite, "hybrid_parallelism.mamba_in_proj", hybrid_parallelism_mamba_in_proj);
  grade_add(suite, "hybrid_parallelism.mamba_cp_fwd_bytes", hybrid_parallelism_mamba_cp_fwd_bytes);
  grade_add(suite, "hybrid_parallelism.mfu", hybrid_parallelism_mfu);
  grade_add(suite, "hybrid_parallelism.guide_pp_degree", hybrid_parallelism_guide_pp_degree);
  grade_add(suite, "hybrid_parallelism.max_hiding_cp", hybrid_parallelism_max_hiding_cp);
  grade_add(suite, "hybrid_parallelism.guide_tp_degree", hybrid_parallelism_guide_tp_degree);
  grade_add(suite, "hybrid_parallelism.first_split", hybrid_parallelism_first_split);
  return grade_run(suite);
}
