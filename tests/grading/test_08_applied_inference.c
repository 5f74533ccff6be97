/* test_08_applied_inference.c — grading of chapter 8's exercises
 * (exercises/08-applied-inference/applied_inference_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, applied-inference.md ("Serving LLaMA 3-70B on TPUs").
 */
#include "applied_inference_ex.h"

#include <string.h>

#include "grading.h"
#include "grading_decision.h"
#include "grading_ref_applied_inference.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(applied_inference_serving_memory_bytes) {
  /* Book: 160e3 x 8192 x 32 = 41.9e9 of KV + 70e9 = 112e9 (exact 111.94e9); with the exact
   * 163,840 bytes per token: 70e9 + 42.95e9 = 112.95e9. */
  GRADE_BOOK(ex_applied_inference_serving_memory_bytes(70e9, 1.0, 32.0, 8192.0, 160e3), 112e9,
             5e-3, "byte", "ch. 8: 112GB");
  GRADE_BOOK(ex_applied_inference_serving_memory_bytes(70e9, 1.0, 32.0, 8192.0, 163840.0),
             70e9 + 42949672960.0, 1e-12, "byte", "hand: exact KV per token");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_serving_memory_bytes(g[i], 1.0, 32.0, 8192.0, 160000.0),
                   ref_applied_inference_serving_memory_bytes(g[i], 1.0, 32.0, 8192.0, 160000.0), "byte",
                   "ex_applied_inference_serving_memory_bytes(%g, %g, %g, %g, %g)", (double)g[i], (double)1.0, (double)32.0, (double)8192.0, (double)160000.0);
  }
  { /* sweep bytes_per_param */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_serving_memory_bytes(70000000000.0, g[i], 32.0, 8192.0, 160000.0),
                   ref_applied_inference_serving_memory_bytes(70000000000.0, g[i], 32.0, 8192.0, 160000.0), "byte",
                   "ex_applied_inference_serving_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)g[i], (double)32.0, (double)8192.0, (double)160000.0);
  }
  { /* sweep batch */
    static const double g[] = {32.0, 80.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_serving_memory_bytes(70000000000.0, 1.0, g[i], 8192.0, 160000.0),
                   ref_applied_inference_serving_memory_bytes(70000000000.0, 1.0, g[i], 8192.0, 160000.0), "byte",
                   "ex_applied_inference_serving_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)1.0, (double)g[i], (double)8192.0, (double)160000.0);
  }
  { /* sweep seq_len */
    static const double g[] = {8192.0, 20480.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_serving_memory_bytes(70000000000.0, 1.0, 32.0, g[i], 160000.0),
                   ref_applied_inference_serving_memory_bytes(70000000000.0, 1.0, 32.0, g[i], 160000.0), "byte",
                   "ex_applied_inference_serving_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)1.0, (double)32.0, (double)g[i], (double)160000.0);
  }
  { /* sweep kv_bytes_per_token */
    static const double g[] = {160000.0, 400000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_serving_memory_bytes(70000000000.0, 1.0, 32.0, 8192.0, g[i]),
                   ref_applied_inference_serving_memory_bytes(70000000000.0, 1.0, 32.0, 8192.0, g[i]), "byte",
                   "ex_applied_inference_serving_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)1.0, (double)32.0, (double)8192.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_min_slice_chips) {
  /* Book: 112e9 / 16e9 = 7 -> a 4x2 (8 chips); 140e9 (bf16) -> 8.75 -> 4x4 (16); 70e9 (int8)
   * -> 4.4 -> 4x2 (8); 35e9 (int4) -> 2.2 -> 2x2 (4). */
  GRADE_BOOK(ex_applied_inference_min_slice_chips(112e9, 16e9), 8.0, 1e-12, "chips",
             "ch. 8: a 4x2");
  GRADE_BOOK(ex_applied_inference_min_slice_chips(140e9, 16e9), 16.0, 1e-12, "chips",
             "ch. 8 table: bf16 needs a 4x4");
  GRADE_BOOK(ex_applied_inference_min_slice_chips(70e9, 16e9), 8.0, 1e-12, "chips",
             "ch. 8 table: int8 needs a 4x2");
  GRADE_BOOK(ex_applied_inference_min_slice_chips(35e9, 16e9), 4.0, 1e-12, "chips",
             "ch. 8 table: int4 needs a 2x2");
  GRADE_BOOK(ex_applied_inference_min_slice_chips(0.0, 16e9), 1.0, 1e-12, "chips",
             "hand: at least one chip");
  { /* sweep total_bytes */
    static const double g[] = {111940000000.0, 16000000000.0, 16000000001.0, 0.0, 1e+30, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_min_slice_chips(g[i], 16000000000.0),
                   ref_applied_inference_min_slice_chips(g[i], 16000000000.0), "chips",
                   "ex_applied_inference_min_slice_chips(%g, %g)", (double)g[i], (double)16000000000.0);
  }
  { /* sweep hbm_bytes_per_chip */
    static const double g[] = {16000000000.0, 40000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_min_slice_chips(111940000000.0, g[i]),
                   ref_applied_inference_min_slice_chips(111940000000.0, g[i]), "chips",
                   "ex_applied_inference_min_slice_chips(%g, %g)", (double)111940000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_memory_bound_step_s) {
  /* Book ch. 8: "112e9 / (8 * 8.2e11) = 17ms", and "17 / 2 = 8.5ms" on a 4x4. Hand:
   * (70e9 + 32 x 1.31072e9) / (8 x 8.2e11) = 111.94e9 / 6.56e12 = 17.064 ms; on 16 chips
   * 8.532 ms. (The older edition, 0819a7d, divided by 8 x 8.1e11: 17.275 ms.) */
  GRADE_BOOK(ex_applied_inference_memory_bound_step_s(70e9, 32.0, 1.31072e9, 8, 8.2e11), 17e-3,
             0.02, "s", "ch. 8: 17 ms on a 4x2");
  GRADE_BOOK(ex_applied_inference_memory_bound_step_s(70e9, 32.0, 1.31072e9, 8, 8.2e11),
             111.94304e9 / 6.56e12, 1e-9, "s", "hand: 17.064 ms");
  GRADE_BOOK(ex_applied_inference_memory_bound_step_s(70e9, 32.0, 1.31072e9, 16, 8.2e11), 8.5e-3,
             0.01, "s", "ch. 8: 8.5 ms on a 4x4");
  GRADE_BOOK(ex_applied_inference_memory_bound_step_s(70e9, 32.0, 1.31072e9, 16, 8.2e11),
             111.94304e9 / 13.12e12, 1e-9, "s", "hand: 8.532 ms on a 4x4");
  { /* sweep param_bytes */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_memory_bound_step_s(g[i], 32.0, 1310720000.0, 8, 820000000000.0),
                   ref_applied_inference_memory_bound_step_s(g[i], 32.0, 1310720000.0, 8, 820000000000.0), "s",
                   "ex_applied_inference_memory_bound_step_s(%g, %g, %g, %g, %g)", (double)g[i], (double)32.0, (double)1310720000.0, (double)8, (double)820000000000.0);
  }
  { /* sweep batch */
    static const double g[] = {32.0, 80.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_memory_bound_step_s(70000000000.0, g[i], 1310720000.0, 8, 820000000000.0),
                   ref_applied_inference_memory_bound_step_s(70000000000.0, g[i], 1310720000.0, 8, 820000000000.0), "s",
                   "ex_applied_inference_memory_bound_step_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)g[i], (double)1310720000.0, (double)8, (double)820000000000.0);
  }
  { /* sweep kv_bytes_per_seq */
    static const double g[] = {1310720000.0, 3276800000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_memory_bound_step_s(70000000000.0, 32.0, g[i], 8, 820000000000.0),
                   ref_applied_inference_memory_bound_step_s(70000000000.0, 32.0, g[i], 8, 820000000000.0), "s",
                   "ex_applied_inference_memory_bound_step_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)32.0, (double)g[i], (double)8, (double)820000000000.0);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_memory_bound_step_s(70000000000.0, 32.0, 1310720000.0, g[i], 820000000000.0),
                   ref_applied_inference_memory_bound_step_s(70000000000.0, 32.0, 1310720000.0, g[i], 820000000000.0), "s",
                   "ex_applied_inference_memory_bound_step_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)32.0, (double)1310720000.0, (double)g[i], (double)820000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {820000000000.0, 2050000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_memory_bound_step_s(70000000000.0, 32.0, 1310720000.0, 8, g[i]),
                   ref_applied_inference_memory_bound_step_s(70000000000.0, 32.0, 1310720000.0, 8, g[i]), "s",
                   "ex_applied_inference_memory_bound_step_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)32.0, (double)1310720000.0, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_tokens_per_s_per_chip) {
  /* Book: 32 / 0.017 = 1882 tokens/s, 235 per chip (exact 235.29). */
  GRADE_BOOK(ex_applied_inference_tokens_per_s_per_chip(32.0, 0.017, 8), 235.0, 2e-3, "tokens/s",
             "ch. 8: 235 tokens / s / chip");
  GRADE_BOOK(ex_applied_inference_tokens_per_s_per_chip(32.0, 0.017, 1), 32.0 / 0.017, 1e-12,
             "tokens/s", "ch. 8: 1882 tokens / s");
  { /* sweep batch */
    static const double g[] = {32.0, 80.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_tokens_per_s_per_chip(g[i], 0.017, 8),
                   ref_applied_inference_tokens_per_s_per_chip(g[i], 0.017, 8), "tokens/s",
                   "ex_applied_inference_tokens_per_s_per_chip(%g, %g, %g)", (double)g[i], (double)0.017, (double)8);
  }
  { /* sweep step_s */
    static const double g[] = {0.017, 0.0425, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_tokens_per_s_per_chip(32.0, g[i], 8),
                   ref_applied_inference_tokens_per_s_per_chip(32.0, g[i], 8), "tokens/s",
                   "ex_applied_inference_tokens_per_s_per_chip(%g, %g, %g)", (double)32.0, (double)g[i], (double)8);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_tokens_per_s_per_chip(32.0, 0.017, g[i]),
                   ref_applied_inference_tokens_per_s_per_chip(32.0, 0.017, g[i]), "tokens/s",
                   "ex_applied_inference_tokens_per_s_per_chip(%g, %g, %g)", (double)32.0, (double)0.017, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_max_batch) {
  /* Hand: (16 x 16e9 - 140e9) / (327,680 x 8192) = 116e9 / 2.68435456e9 = 43.2 -> 43 (book 43).
   * int8 on a 4x2: (128e9 - 70e9) / 1.34217728e9 = 43.2 -> 43 (the book prints 52 from its
   * 68GB of free HBM, a subtraction slip: 128 - 70 = 58). */
  GRADE_BOOK(ex_applied_inference_max_batch(16, 16e9, 140e9, 2684354560.0), 43.0, 1e-12,
             "sequences", "ch. 8 table: 43 in bf16 on a 4x4");
  GRADE_BOOK(ex_applied_inference_max_batch(8, 16e9, 70e9, 1342177280.0), 43.0, 1e-12,
             "sequences", "hand: int8 on a 4x2 (book prints 52)");
  { /* sweep n_chips */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_batch(g[i], 16000000000.0, 140000000000.0, 2684354560.0),
                   ref_applied_inference_max_batch(g[i], 16000000000.0, 140000000000.0, 2684354560.0), "sequences",
                   "ex_applied_inference_max_batch(%g, %g, %g, %g)", (double)g[i], (double)16000000000.0, (double)140000000000.0, (double)2684354560.0);
  }
  { /* sweep hbm_bytes_per_chip */
    static const double g[] = {16000000000.0, 40000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_batch(16, g[i], 140000000000.0, 2684354560.0),
                   ref_applied_inference_max_batch(16, g[i], 140000000000.0, 2684354560.0), "sequences",
                   "ex_applied_inference_max_batch(%g, %g, %g, %g)", (double)16, (double)g[i], (double)140000000000.0, (double)2684354560.0);
  }
  { /* sweep param_bytes */
    static const double g[] = {140000000000.0, 350000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_batch(16, 16000000000.0, g[i], 2684354560.0),
                   ref_applied_inference_max_batch(16, 16000000000.0, g[i], 2684354560.0), "sequences",
                   "ex_applied_inference_max_batch(%g, %g, %g, %g)", (double)16, (double)16000000000.0, (double)g[i], (double)2684354560.0);
  }
  { /* sweep kv_bytes_per_seq */
    static const double g[] = {2684354560.0, 6710886400.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_batch(16, 16000000000.0, 140000000000.0, g[i]),
                   ref_applied_inference_max_batch(16, 16000000000.0, 140000000000.0, g[i]), "sequences",
                   "ex_applied_inference_max_batch(%g, %g, %g, %g)", (double)16, (double)16000000000.0, (double)140000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_qps_per_chip) {
  /* Book ch. 8: "43 / (0.019 * 512 * N)", 0.27 / 0.55 / 1.11 for N = 16 / 8 / 4 (exact 0.2763,
   * 0.5525, 1.1050, truncated); with twice the chips and 140 sequences "14.39 / num_chips":
   * 0.44 / 0.90 / 1.80 (exact 0.4497, 0.8994, 1.7989). The older edition (0819a7d) printed
   * 0.66 and 1.72 from 52 and 67 sequences, and 0.51 / 1.03 / 2.06 with 161. */
  GRADE_BOOK(ex_applied_inference_qps_per_chip(43.0, 0.019, 512.0, 16), 0.27, 0.03, "1/s",
             "ch. 8: 0.27 (exact 0.276)");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(43.0, 0.019, 512.0, 16), 43.0 / 155.648, 1e-12,
             "1/s", "hand: exact");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(43.0, 0.019, 512.0, 8), 0.55, 0.01, "1/s",
             "ch. 8: int8 on 8 chips, 0.55");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(43.0, 0.019, 512.0, 4), 1.11, 0.01, "1/s",
             "ch. 8: int4 on 4 chips, 1.11");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(140.0, 0.019, 512.0, 32), 0.44, 0.025, "1/s",
             "ch. 8 doubled topology: bf16 on a 4x8, 0.44 (exact 0.4497)");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(140.0, 0.019, 512.0, 16), 0.90, 0.01, "1/s",
             "ch. 8 doubled topology: int8 on a 4x4, 0.90");
  GRADE_BOOK(ex_applied_inference_qps_per_chip(140.0, 0.019, 512.0, 8), 1.80, 0.01, "1/s",
             "ch. 8 doubled topology: int4 on a 2x4, 1.80");
  { /* sweep batch */
    static const double g[] = {43.0, 107.5, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_qps_per_chip(g[i], 0.019, 512.0, 16),
                   ref_applied_inference_qps_per_chip(g[i], 0.019, 512.0, 16), "1/s",
                   "ex_applied_inference_qps_per_chip(%g, %g, %g, %g)", (double)g[i], (double)0.019, (double)512.0, (double)16);
  }
  { /* sweep step_s */
    static const double g[] = {0.019, 0.0475, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_qps_per_chip(43.0, g[i], 512.0, 16),
                   ref_applied_inference_qps_per_chip(43.0, g[i], 512.0, 16), "1/s",
                   "ex_applied_inference_qps_per_chip(%g, %g, %g, %g)", (double)43.0, (double)g[i], (double)512.0, (double)16);
  }
  { /* sweep decode_tokens */
    static const double g[] = {512.0, 1280.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_qps_per_chip(43.0, 0.019, g[i], 16),
                   ref_applied_inference_qps_per_chip(43.0, 0.019, g[i], 16), "1/s",
                   "ex_applied_inference_qps_per_chip(%g, %g, %g, %g)", (double)43.0, (double)0.019, (double)g[i], (double)16);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_qps_per_chip(43.0, 0.019, 512.0, g[i]),
                   ref_applied_inference_qps_per_chip(43.0, 0.019, 512.0, g[i]), "1/s",
                   "ex_applied_inference_qps_per_chip(%g, %g, %g, %g)", (double)43.0, (double)0.019, (double)512.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_max_tp_ici) {
  /* Book ch. 8: "Y > 2 * F / 2200 = 2 * 28672 / 2200 = 26" (26.07). v5e's own alpha
   * 1.97e14 / 9e10 = 2189 gives 26.2. The older edition (0819a7d) used v5p's 2550: 22 (22.49). */
  GRADE_BOOK(ex_applied_inference_max_tp_ici(28672.0, 2, 2200.0), 26.0, 0.01, "chips",
             "ch. 8: 26");
  GRADE_BOOK(ex_applied_inference_max_tp_ici(28672.0, 2, 2550.0), 2.0 * 28672.0 / 2550.0, 1e-12,
             "chips", "hand: the older edition's alpha 2550");
  GRADE_BOOK(ex_applied_inference_max_tp_ici(28672.0, 2, 1.97e14 / 9e10), 26.197, 1e-4, "chips",
             "hand: v5e alpha");
  { /* sweep f */
    static const double g[] = {28672.0, 71680.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_tp_ici(g[i], 2, 2550.0),
                   ref_applied_inference_max_tp_ici(g[i], 2, 2550.0), "chips",
                   "ex_applied_inference_max_tp_ici(%g, %g, %g)", (double)g[i], (double)2, (double)2550.0);
  }
  { /* sweep n_axes */
    static const int64_t g[] = {2, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_tp_ici(28672.0, g[i], 2550.0),
                   ref_applied_inference_max_tp_ici(28672.0, g[i], 2550.0), "chips",
                   "ex_applied_inference_max_tp_ici(%g, %g, %g)", (double)28672.0, (double)g[i], (double)2550.0);
  }
  { /* sweep alpha */
    static const double g[] = {2550.0, 6375.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_max_tp_ici(28672.0, 2, g[i]),
                   ref_applied_inference_max_tp_ici(28672.0, 2, g[i]), "chips",
                   "ex_applied_inference_max_tp_ici(%g, %g, %g)", (double)28672.0, (double)2, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_prefill_time_s) {
  /* Book: 2 x 70e9 x 8192 / (16 x 1.97e14 x 0.4) = 0.91 s (exact 0.90963). */
  GRADE_BOOK(ex_applied_inference_prefill_time_s(70e9, 8192.0, 16, 1.97e14, 0.4), 0.91, 5e-3, "s",
             "ch. 8: 0.91 s");
  GRADE_BOOK(ex_applied_inference_prefill_time_s(70e9, 8192.0, 16, 1.97e14, 0.4),
             1.14688e15 / 1.2608e15, 1e-12, "s", "hand: exact");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_prefill_time_s(g[i], 8192.0, 16, 197000000000000.0, 0.4),
                   ref_applied_inference_prefill_time_s(g[i], 8192.0, 16, 197000000000000.0, 0.4), "s",
                   "ex_applied_inference_prefill_time_s(%g, %g, %g, %g, %g)", (double)g[i], (double)8192.0, (double)16, (double)197000000000000.0, (double)0.4);
  }
  { /* sweep n_tokens */
    static const double g[] = {8192.0, 20480.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_prefill_time_s(70000000000.0, g[i], 16, 197000000000000.0, 0.4),
                   ref_applied_inference_prefill_time_s(70000000000.0, g[i], 16, 197000000000000.0, 0.4), "s",
                   "ex_applied_inference_prefill_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)g[i], (double)16, (double)197000000000000.0, (double)0.4);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_prefill_time_s(70000000000.0, 8192.0, g[i], 197000000000000.0, 0.4),
                   ref_applied_inference_prefill_time_s(70000000000.0, 8192.0, g[i], 197000000000000.0, 0.4), "s",
                   "ex_applied_inference_prefill_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)8192.0, (double)g[i], (double)197000000000000.0, (double)0.4);
  }
  { /* sweep flops_per_s */
    static const double g[] = {197000000000000.0, 492500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_prefill_time_s(70000000000.0, 8192.0, 16, g[i], 0.4),
                   ref_applied_inference_prefill_time_s(70000000000.0, 8192.0, 16, g[i], 0.4), "s",
                   "ex_applied_inference_prefill_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)8192.0, (double)16, (double)g[i], (double)0.4);
  }
  { /* sweep mfu_frac */
    static const double g[] = {0.4, 1.0, 0.25, 0.0, 1.5, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_prefill_time_s(70000000000.0, 8192.0, 16, 197000000000000.0, g[i]),
                   ref_applied_inference_prefill_time_s(70000000000.0, 8192.0, 16, 197000000000000.0, g[i]), "s",
                   "ex_applied_inference_prefill_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)8192.0, (double)16, (double)197000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_kv_evicted_per_step) {
  /* Book: 32 / 4096 sequences finish per step, 32 x 12288 / 4096 = 96 tokens evicted. */
  GRADE_BOOK(ex_applied_inference_kv_evicted_per_step(32.0, 8192.0, 4096.0), 96.0, 1e-12, "tokens",
             "ch. 8: 96 tokens per step");
  { /* sweep batch */
    static const double g[] = {32.0, 80.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_kv_evicted_per_step(g[i], 8192.0, 4096.0),
                   ref_applied_inference_kv_evicted_per_step(g[i], 8192.0, 4096.0), "tokens",
                   "ex_applied_inference_kv_evicted_per_step(%g, %g, %g)", (double)g[i], (double)8192.0, (double)4096.0);
  }
  { /* sweep prefill_len */
    static const double g[] = {8192.0, 20480.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_kv_evicted_per_step(32.0, g[i], 4096.0),
                   ref_applied_inference_kv_evicted_per_step(32.0, g[i], 4096.0), "tokens",
                   "ex_applied_inference_kv_evicted_per_step(%g, %g, %g)", (double)32.0, (double)g[i], (double)4096.0);
  }
  { /* sweep decode_len */
    static const double g[] = {4096.0, 10240.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_kv_evicted_per_step(32.0, 8192.0, g[i]),
                   ref_applied_inference_kv_evicted_per_step(32.0, 8192.0, g[i]), "tokens",
                   "ex_applied_inference_kv_evicted_per_step(%g, %g, %g)", (double)32.0, (double)8192.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_inference_disaggregation_ratio) {
  /* Book: P / 0.91 = 32 G / (0.019 x 512), P = 3G (exact 29.12 / 9.728 = 2.9934). */
  GRADE_BOOK(ex_applied_inference_disaggregation_ratio(0.91, 32.0, 0.019, 512.0), 3.0, 0.01, "1",
             "ch. 8: P = 3G");
  GRADE_BOOK(ex_applied_inference_disaggregation_ratio(0.91, 32.0, 0.019, 512.0), 29.12 / 9.728,
             1e-12, "1", "hand: exact");
  { /* sweep prefill_s */
    static const double g[] = {0.91, 2.275, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_disaggregation_ratio(g[i], 32.0, 0.019, 512.0),
                   ref_applied_inference_disaggregation_ratio(g[i], 32.0, 0.019, 512.0), "1",
                   "ex_applied_inference_disaggregation_ratio(%g, %g, %g, %g)", (double)g[i], (double)32.0, (double)0.019, (double)512.0);
  }
  { /* sweep batch */
    static const double g[] = {32.0, 80.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_disaggregation_ratio(0.91, g[i], 0.019, 512.0),
                   ref_applied_inference_disaggregation_ratio(0.91, g[i], 0.019, 512.0), "1",
                   "ex_applied_inference_disaggregation_ratio(%g, %g, %g, %g)", (double)0.91, (double)g[i], (double)0.019, (double)512.0);
  }
  { /* sweep step_s */
    static const double g[] = {0.019, 0.0475, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_disaggregation_ratio(0.91, 32.0, g[i], 512.0),
                   ref_applied_inference_disaggregation_ratio(0.91, 32.0, g[i], 512.0), "1",
                   "ex_applied_inference_disaggregation_ratio(%g, %g, %g, %g)", (double)0.91, (double)32.0, (double)g[i], (double)512.0);
  }
  { /* sweep decode_len */
    static const double g[] = {512.0, 1280.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_inference_disaggregation_ratio(0.91, 32.0, 0.019, g[i]),
                   ref_applied_inference_disaggregation_ratio(0.91, 32.0, 0.019, g[i]), "1",
                   "ex_applied_inference_disaggregation_ratio(%g, %g, %g, %g)", (double)0.91, (double)32.0, (double)0.019, (double)g[i]);
  }
}
END_TEST

/* ==== a decision exercise: the smallest slice (grading_decision.h) ========================== */

/** One serving instance on TPU v5e, and the student's arguments (the library's figures, checked
 * while recording). */
typedef struct {
  const char *label;
  const char *model; /* models/NAME.ini */
  double max_step_s;
  double n_params; /* scale_transformer_n_params */
} slice_instance;

#define SLICE_CHIP "tpu-v5e"
#define SLICE_HBM_BYTES 16e9
#define SLICE_HBM_BYTES_PER_S 8.2e11
#define SLICE_MAX_CHIPS 256 /* a v5e pod */
#define SLICE_PROMPT 2048.0
#define SLICE_DECODE 512.0

static const char *const slice_names[] = {"n_chips"};

#ifdef GRADING_HAVE_LIBSCALE
#include "scale/hardware.h"
#include "scale/plan.h"
#include "scale/transformer.h"

/* out[0] the slice's chips when the library's search up to that many chips finds a layout
 * within the target (NaN otherwise), out[1] the step time of its best layout [s] (NaN: none),
 * out[2] the target [s]. */
static void lib_slice_eval(const slice_instance *in, double n_chips, double out[3]) {
  scale_chip chip;
  scale_model m;
  ck_assert_msg(scale_chip_load(SLICE_CHIP, &chip, NULL) == SCALE_OK &&
                    scale_model_load(in->model, &m, NULL) == SCALE_OK,
                "grading: cannot load %s or %s", SLICE_CHIP, in->model);
  if (grading_recording())
    ck_assert_msg(scale_transformer_n_params(&m) == in->n_params &&
                      chip.hbm_bytes == SLICE_HBM_BYTES &&
                      chip.hbm_bytes_per_s == SLICE_HBM_BYTES_PER_S,
                  "grading: %s: the suite's arguments are not the library's (%.17g params)",
                  in->label, scale_transformer_n_params(&m));
  scale_plan_infer_opts o = scale_plan_infer_opts_default(SLICE_PROMPT, SLICE_DECODE);
  o.max_step_s = in->max_step_s;
  o.max_chips = n_chips;
  o.top_k = 1;
  for (int d = 0; d < SCALE_DTYPE_COUNT; d++)
    o.allow_weight[d] = o.allow_kv[d] = d == SCALE_DTYPE_BF16;
  static scale_plan_infer_report r;
  ck_assert_msg(scale_plan_infer(&m, &chip, &o, &r, NULL) == SCALE_OK, "grading: plan_infer");
  out[0] = r.n_ranked > 0 ? n_chips : (double)NAN;
  out[1] = r.n_ranked > 0 ? r.ranked[0].decode.step_s : (double)NAN;
  out[2] = in->max_step_s;
}

static double lib_slice_value(const slice_instance *in, double n_chips, int k) {
  double out[3];
  lib_slice_eval(in, n_chips, out);
  return out[k];
}
#define LIB_SLICE(in, n, k) GRADE_LIB(lib_slice_value(in, n, k))
#else
#define LIB_SLICE(in, n, k) GRADE_LIB(0.0)
#endif

static void slice_explain(const grade_candidate *c, char *out, size_t size) {
  if (isnan(c->detail[0]))
    snprintf(out, size, "no layout on it fits and meets %.3g ms per token",
             1e3 * c->detail[1]);
  else
    snprintf(out, size, "serves at %.3g ms per token", 1e3 * c->detail[0]);
}

/* Slices of 1, 2, 4, ... 256 chips: cost its chips when it serves within the target. */
static size_t slice_candidates(const slice_instance *in, grade_candidate *c) {
  size_t n = 0;
  for (int64_t chips = 1; chips <= SLICE_MAX_CHIPS; chips *= 2) {
    grade_candidate *k = &c[n++];
    memset(k, 0, sizeof *k);
    k->fields[0] = chips;
    k->cost = LIB_SLICE(in, (double)chips, 0);
    k->detail[0] = LIB_SLICE(in, (double)chips, 1);
    k->detail[1] = LIB_SLICE(in, (double)chips, 2);
  }
  return n;
}

static int64_t slice_call(const slice_instance *in, double hbm_bytes, int64_t max_chips) {
  ex_serving_slice got = ex_applied_inference_smallest_slice(
      in->n_params, 2.0, hbm_bytes, SLICE_HBM_BYTES_PER_S, in->max_step_s, max_chips);
  return got.n_chips;
}

START_TEST(applied_inference_smallest_slice) {
  /* By hand (bf16 weights, batch-1 step = weights / (chips x 8.2e11)): LLaMA 3 8B (16.1e9
   * bytes) needs 2 chips to hold it, 9.8 ms < 20 ms; at 4 ms, 8 chips (4 give 4.9 ms);
   * LLaMA 3 70B (141e9 bytes) 16 chips (10.8 ms) for 50 ms, 32 (5.4 ms) for 8 ms; LLaMA 3
   * 405B (812e9 bytes) 64 chips. The library's search (collectives, KV, compute) agrees. */
  static const slice_instance in[] = {
      {"LLaMA 3 8B at 20 ms/token on v5e", "llama-3-8b", 0.02, 8030261248.0},
      {"LLaMA 3 8B at 4 ms/token on v5e", "llama-3-8b", 0.004, 8030261248.0},
      {"LLaMA 3 70B at 50 ms/token on v5e", "llama-3-70b", 0.05, 70553706496.0},
      {"LLaMA 3 70B at 8 ms/token on v5e", "llama-3-70b", 0.008, 70553706496.0},
      {"LLaMA 3 405B at 50 ms/token on v5e", "llama-3-405b", 0.05, 405853388800.0}};
  static const slice_instance none = {"LLaMA 3 405B at 2 ms/token on v5e", "llama-3-405b",
                                      0.002, 405853388800.0};
  grade_credit_sum sum = {0};
  grade_candidate cands[16];
  char why[768], message[512];
  for (size_t i = 0; i < N_OF(in); i++) {
    size_t n = slice_candidates(&in[i], cands);
    int64_t got = slice_call(&in[i], SLICE_HBM_BYTES, SLICE_MAX_CHIPS);
    grade_decision d = {in[i].label, 1, slice_names, "chips", slice_explain};
    grade_credit_add(&sum, grade_decision_credit(&d, cands, n, &got, why, sizeof why), why);
  }
  size_t n = slice_candidates(&none, cands);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(!isfinite(cands[i].cost), "grading: %s: a slice serves", none.label);
  int64_t got = slice_call(&none, SLICE_HBM_BYTES, SLICE_MAX_CHIPS);
  if (got != 0) {
    snprintf(message, sizeof message,
             "smallest_slice(%s) = %lld chips, expected 0: no slice of a pod serves it", none.label,
             (long long)got);
    grading_case_failed(1, message);
  }
  /* Outside the Domain: no HBM, no chips to use. */
  int64_t bad[2] = {slice_call(&in[0], 0.0, SLICE_MAX_CHIPS),
                    slice_call(&in[0], SLICE_HBM_BYTES, 0)};
  for (int i = 0; i < 2; i++)
    if (bad[i] != 0) {
      snprintf(message, sizeof message,
               "smallest_slice(%s with %s) = %lld chips, expected 0 (outside the Domain)",
               in[0].label, i == 0 ? "hbm_bytes_per_chip = 0" : "max_chips = 0",
               (long long)bad[i]);
      grading_case_failed(1, message);
    }
  grade_credit_end(&sum);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("08-applied-inference");
  grade_add(suite, "applied_inference.serving_memory_bytes", applied_inference_serving_memory_bytes);
  grade_add(suite, "applied_inference.min_slice_chips", applied_inference_min_slice_chips);
  grade_add(suite, "applied_inference.memory_bound_step_s", applied_inference_memory_bound_step_s);
  grade_add(suite, "applied_inference.tokens_per_s_per_chip", applied_inference_tokens_per_s_per_chip);
  grade_add(suite, "applied_inference.max_batch", applied_inference_max_batch);
  grade_add(suite, "applied_inference.qps_per_chip", applied_inference_qps_per_chip);
  grade_add(suite, "applied_inference.max_tp_ici", applied_inference_max_tp_ici);
  grade_add(suite, "applied_inference.prefill_time_s", applied_inference_prefill_time_s);
  grade_add(suite, "applied_inference.kv_evicted_per_step", applied_inference_kv_evicted_per_step);
  grade_add(suite, "applied_inference.disaggregation_ratio", applied_inference_disaggregation_ratio);
  grade_add(suite, "applied_inference.smallest_slice", applied_inference_smallest_slice);
  return grade_run(suite);
}
