/* test_07_inference.c — grading of chapter 7's exercises
 * (exercises/07-inference/inference_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, inference.md ("All About Transformer Inference").
 */
#include "inference_ex.h"

#include "grading.h"
#include "grading_ref_inference.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(inference_critical_batch) {
  /* Book: 1.97e14 / 8.2e11 = 240 (exact 240.24); int8 weights with bf16 FLOPs 120; int8 x int8
   * 240 again. */
  GRADE_BOOK(ex_inference_critical_batch(1.97e14, 8.2e11, 2.0), 240.0, 2e-3, "tokens",
             "ch. 7: B_crit = 240");
  GRADE_BOOK(ex_inference_critical_batch(1.97e14, 8.2e11, 1.0), 120.0, 2e-3, "tokens",
             "ch. 7: 120 with int8 weights, bf16 FLOPs");
  GRADE_BOOK(ex_inference_critical_batch(3.94e14, 8.2e11, 1.0), 240.0, 2e-3, "tokens",
             "ch. 7: 240 with int8 x int8");
  GRADE_BOOK(ex_inference_critical_batch(1.97e14, 8.2e11, 2.0), 1.97e14 / 8.2e11, 1e-12, "tokens",
             "hand: exact 240.24");
  { /* sweep flops_per_s */
    static const double g[] = {197000000000000.0, 492500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_critical_batch(g[i], 820000000000.0, 2.0),
                   ref_inference_critical_batch(g[i], 820000000000.0, 2.0), "tokens",
                   "ex_inference_critical_batch(%g, %g, %g)", (double)g[i], (double)820000000000.0, (double)2.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {820000000000.0, 2050000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_critical_batch(197000000000000.0, g[i], 2.0),
                   ref_inference_critical_batch(197000000000000.0, g[i], 2.0), "tokens",
                   "ex_inference_critical_batch(%g, %g, %g)", (double)197000000000000.0, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_weight */
    static const double g[] = {2.0, 5.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_critical_batch(197000000000000.0, 820000000000.0, g[i]),
                   ref_inference_critical_batch(197000000000000.0, 820000000000.0, g[i]), "tokens",
                   "ex_inference_critical_batch(%g, %g, %g)", (double)197000000000000.0, (double)820000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_decode_step_time_s) {
  /* Book ch. 7 Pop Quiz: "(4 * 819e6 + 30e9) / (16 * 8.2e11) = 2.5 ms" and
   * "(256 * 819e6) / (16 * 8.2e11) + (2 * 256 * 30e9) / (16 * 1.97e14) = 21ms". Hand: batch 4:
   * 33.276e9 / 1.312e13 = 2.536 ms; batch 256: 15.980 ms + 4.873 ms = 20.854 ms. (The older
   * edition, 0819a7d, divided by 16 x 8.1e11: 2.568 ms and 21.05 ms.) */
  GRADE_BOOK(ex_inference_decode_step_time_s(4.0, 819e6, 30e9, 30e9, 16 * 1.97e14, 16 * 8.2e11),
             (4.0 * 819e6 + 30e9) / 1.312e13, 1e-9, "s", "ch. 7 Pop Quiz: exact 2.536 ms");
  GRADE_BOOK(ex_inference_decode_step_time_s(4.0, 819e6, 30e9, 30e9, 16 * 1.97e14, 16 * 8.2e11),
             2.5e-3, 0.02, "s", "ch. 7 Pop Quiz: 2.5 ms at batch 4");
  GRADE_BOOK(ex_inference_decode_step_time_s(256.0, 819e6, 30e9, 30e9, 16 * 1.97e14, 16 * 8.2e11),
             21e-3, 1e-2, "s", "ch. 7 Pop Quiz: 21ms at batch 256");
  { /* sweep b */
    static const double g[] = {4.0, 10.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(g[i], 819200000.0, 30000000000.0, 30000000000.0, 3152000000000000.0, 13120000000000.0),
                   ref_inference_decode_step_time_s(g[i], 819200000.0, 30000000000.0, 30000000000.0, 3152000000000000.0, 13120000000000.0), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)g[i], (double)819200000.0, (double)30000000000.0, (double)30000000000.0, (double)3152000000000000.0, (double)13120000000000.0);
  }
  { /* sweep kv_bytes_per_seq */
    static const double g[] = {819200000.0, 2048000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(4.0, g[i], 30000000000.0, 30000000000.0, 3152000000000000.0, 13120000000000.0),
                   ref_inference_decode_step_time_s(4.0, g[i], 30000000000.0, 30000000000.0, 3152000000000000.0, 13120000000000.0), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)4.0, (double)g[i], (double)30000000000.0, (double)30000000000.0, (double)3152000000000000.0, (double)13120000000000.0);
  }
  { /* sweep n_params */
    static const double g[] = {30000000000.0, 75000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(4.0, 819200000.0, g[i], 30000000000.0, 3152000000000000.0, 13120000000000.0),
                   ref_inference_decode_step_time_s(4.0, 819200000.0, g[i], 30000000000.0, 3152000000000000.0, 13120000000000.0), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)g[i], (double)30000000000.0, (double)3152000000000000.0, (double)13120000000000.0);
  }
  { /* sweep param_bytes */
    static const double g[] = {30000000000.0, 75000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, g[i], 3152000000000000.0, 13120000000000.0),
                   ref_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, g[i], 3152000000000000.0, 13120000000000.0), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)30000000000.0, (double)g[i], (double)3152000000000000.0, (double)13120000000000.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {3152000000000000.0, 7880000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, 30000000000.0, g[i], 13120000000000.0),
                   ref_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, 30000000000.0, g[i], 13120000000000.0), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)30000000000.0, (double)30000000000.0, (double)g[i], (double)13120000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {13120000000000.0, 32800000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, 30000000000.0, 3152000000000000.0, g[i]),
                   ref_inference_decode_step_time_s(4.0, 819200000.0, 30000000000.0, 30000000000.0, 3152000000000000.0, g[i]), "s",
                   "ex_inference_decode_step_time_s(%g, %g, %g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)30000000000.0, (double)30000000000.0, (double)3152000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_max_tokens_per_s) {
  /* Hand, the Pop Quiz's batch 4: 4 x 1.296e13 / (4 x 819e6 + 30e9) = 1557.8 tokens/s; with no
   * KV the bound is B W / P: 256 x 1.296e13 / 30e9 = 110,592. */
  GRADE_BOOK(ex_inference_max_tokens_per_s(4.0, 819e6, 30e9, 1.296e13), 4.0 * 1.296e13 / 33.276e9,
             1e-12, "tokens/s", "hand: B W / (B KV + P)");
  GRADE_BOOK(ex_inference_max_tokens_per_s(256.0, 0.0, 30e9, 1.296e13), 110592.0, 1e-12,
             "tokens/s", "hand: B W / P");
  { /* sweep b */
    static const double g[] = {4.0, 10.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tokens_per_s(g[i], 819200000.0, 30000000000.0, 13120000000000.0),
                   ref_inference_max_tokens_per_s(g[i], 819200000.0, 30000000000.0, 13120000000000.0), "tokens/s",
                   "ex_inference_max_tokens_per_s(%g, %g, %g, %g)", (double)g[i], (double)819200000.0, (double)30000000000.0, (double)13120000000000.0);
  }
  { /* sweep kv_bytes_per_seq */
    static const double g[] = {819200000.0, 2048000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tokens_per_s(4.0, g[i], 30000000000.0, 13120000000000.0),
                   ref_inference_max_tokens_per_s(4.0, g[i], 30000000000.0, 13120000000000.0), "tokens/s",
                   "ex_inference_max_tokens_per_s(%g, %g, %g, %g)", (double)4.0, (double)g[i], (double)30000000000.0, (double)13120000000000.0);
  }
  { /* sweep param_bytes */
    static const double g[] = {30000000000.0, 75000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tokens_per_s(4.0, 819200000.0, g[i], 13120000000000.0),
                   ref_inference_max_tokens_per_s(4.0, 819200000.0, g[i], 13120000000000.0), "tokens/s",
                   "ex_inference_max_tokens_per_s(%g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)g[i], (double)13120000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {13120000000000.0, 32800000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tokens_per_s(4.0, 819200000.0, 30000000000.0, g[i]),
                   ref_inference_max_tokens_per_s(4.0, 819200000.0, 30000000000.0, g[i]), "tokens/s",
                   "ex_inference_max_tokens_per_s(%g, %g, %g, %g)", (double)4.0, (double)819200000.0, (double)30000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_kv_bytes_per_token) {
  /* Hand: 2 x 64 x 8 x 256 = 262,144 bytes in int8 (Question 1); LLaMA 2 13B in bf16:
   * 2 x 40 x 40 x 128 x 2 = 819,200 bytes, x 8192 tokens = 6.71e9 (book: 6.7 GB). */
  GRADE_BOOK(ex_inference_kv_bytes_per_token(64, 8, 256, 1.0), 262144.0, 1e-12, "byte",
             "ch. 7 Question 1: 2 L K H");
  GRADE_BOOK(8192.0 * ex_inference_kv_bytes_per_token(40, 40, 128, 2.0), 6.7e9, 0.01, "byte",
             "ch. 7: 6.7 GB per 8k sequence of LLaMA 2 13B");
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_kv_bytes_per_token(g[i], 8, 256, 1.0),
                   ref_inference_kv_bytes_per_token(g[i], 8, 256, 1.0), "byte",
                   "ex_inference_kv_bytes_per_token(%g, %g, %g, %g)", (double)g[i], (double)8, (double)256, (double)1.0);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_kv_bytes_per_token(64, g[i], 256, 1.0),
                   ref_inference_kv_bytes_per_token(64, g[i], 256, 1.0), "byte",
                   "ex_inference_kv_bytes_per_token(%g, %g, %g, %g)", (double)64, (double)g[i], (double)256, (double)1.0);
  }
  { /* sweep h */
    static const int64_t g[] = {256, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_kv_bytes_per_token(64, 8, g[i], 1.0),
                   ref_inference_kv_bytes_per_token(64, 8, g[i], 1.0), "byte",
                   "ex_inference_kv_bytes_per_token(%g, %g, %g, %g)", (double)64, (double)8, (double)g[i], (double)1.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_kv_bytes_per_token(64, 8, 256, g[i]),
                   ref_inference_kv_bytes_per_token(64, 8, 256, g[i]), "byte",
                   "ex_inference_kv_bytes_per_token(%g, %g, %g, %g)", (double)64, (double)8, (double)256, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_n_params) {
  /* Hand: 64 x 4096 x (49,152 + 20,480) = 18,253,611,008, + 4096 x 32,128 = 131,596,288:
   * 18,385,207,296 (book: 18.4e9). */
  GRADE_BOOK(ex_inference_n_params(64, 4096, 16384, 32, 8, 256, 32128), 18385207296.0, 1e-12,
             "params", "ch. 7 Question 1: 18.4e9");
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(g[i], 4096, 16384, 32, 8, 256, 32128),
                   ref_inference_n_params(g[i], 4096, 16384, 32, 8, 256, 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)4096, (double)16384, (double)32, (double)8, (double)256, (double)32128);
  }
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, g[i], 16384, 32, 8, 256, 32128),
                   ref_inference_n_params(64, g[i], 16384, 32, 8, 256, 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)g[i], (double)16384, (double)32, (double)8, (double)256, (double)32128);
  }
  { /* sweep f */
    static const int64_t g[] = {16384, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, 4096, g[i], 32, 8, 256, 32128),
                   ref_inference_n_params(64, 4096, g[i], 32, 8, 256, 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)g[i], (double)32, (double)8, (double)256, (double)32128);
  }
  { /* sweep n */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, 4096, 16384, g[i], 8, 256, 32128),
                   ref_inference_n_params(64, 4096, 16384, g[i], 8, 256, 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)g[i], (double)8, (double)256, (double)32128);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, 4096, 16384, 32, g[i], 256, 32128),
                   ref_inference_n_params(64, 4096, 16384, 32, g[i], 256, 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)g[i], (double)256, (double)32128);
  }
  { /* sweep h */
    static const int64_t g[] = {256, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, 4096, 16384, 32, 8, g[i], 32128),
                   ref_inference_n_params(64, 4096, 16384, 32, 8, g[i], 32128), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)8, (double)g[i], (double)32128);
  }
  { /* sweep v */
    static const int64_t g[] = {32128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_n_params(64, 4096, 16384, 32, 8, 256, g[i]),
                   ref_inference_n_params(64, 4096, 16384, 32, 8, 256, g[i]), "params",
                   "ex_inference_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)8, (double)256, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_param_load_time_s) {
  /* Hand: 18,385,207,296 / (16 x 8.2e11) = 1.4013e-3 s (book: 1.4 ms). */
  GRADE_BOOK(ex_inference_param_load_time_s(18385207296.0, 16, 8.2e11), 1.4e-3, 1e-2, "s",
             "ch. 7 Question 3: 1.4 ms");
  GRADE_BOOK(ex_inference_param_load_time_s(18385207296.0, 16, 8.2e11),
             18385207296.0 / 1.312e13, 1e-12, "s", "hand: P / (N W)");
  { /* sweep param_bytes */
    static const double g[] = {18385207296.0, 45963018240.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_param_load_time_s(g[i], 16, 820000000000.0),
                   ref_inference_param_load_time_s(g[i], 16, 820000000000.0), "s",
                   "ex_inference_param_load_time_s(%g, %g, %g)", (double)g[i], (double)16, (double)820000000000.0);
  }
  { /* sweep n_chips */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_param_load_time_s(18385207296.0, g[i], 820000000000.0),
                   ref_inference_param_load_time_s(18385207296.0, g[i], 820000000000.0), "s",
                   "ex_inference_param_load_time_s(%g, %g, %g)", (double)18385207296.0, (double)g[i], (double)820000000000.0);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {820000000000.0, 2050000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_param_load_time_s(18385207296.0, 16, g[i]),
                   ref_inference_param_load_time_s(18385207296.0, 16, g[i]), "s",
                   "ex_inference_param_load_time_s(%g, %g, %g)", (double)18385207296.0, (double)16, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_moe_n_params) {
  /* Hand: 64 x 4096 x (786,432 + 20,480) = 211,527,139,328, + 131,596,288 = 211,658,735,616
   * (libscale's evidence test_inference_book.c: 211.7e9). With E = 1 it is Question 1's count. */
  GRADE_BOOK(ex_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, 32128, 16), 211658735616.0,
             1e-12, "params", "ch. 7 Question 5: 211.7e9");
  GRADE_BOOK(ex_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, 32128, 1), 18385207296.0,
             1e-12, "params", "hand: E = 1 is the dense model");
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(g[i], 4096, 16384, 32, 8, 256, 32128, 16),
                   ref_inference_moe_n_params(g[i], 4096, 16384, 32, 8, 256, 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)4096, (double)16384, (double)32, (double)8, (double)256, (double)32128, (double)16);
  }
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, g[i], 16384, 32, 8, 256, 32128, 16),
                   ref_inference_moe_n_params(64, g[i], 16384, 32, 8, 256, 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)g[i], (double)16384, (double)32, (double)8, (double)256, (double)32128, (double)16);
  }
  { /* sweep f */
    static const int64_t g[] = {16384, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, g[i], 32, 8, 256, 32128, 16),
                   ref_inference_moe_n_params(64, 4096, g[i], 32, 8, 256, 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)g[i], (double)32, (double)8, (double)256, (double)32128, (double)16);
  }
  { /* sweep n */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, 16384, g[i], 8, 256, 32128, 16),
                   ref_inference_moe_n_params(64, 4096, 16384, g[i], 8, 256, 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)g[i], (double)8, (double)256, (double)32128, (double)16);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, 16384, 32, g[i], 256, 32128, 16),
                   ref_inference_moe_n_params(64, 4096, 16384, 32, g[i], 256, 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)g[i], (double)256, (double)32128, (double)16);
  }
  { /* sweep h */
    static const int64_t g[] = {256, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, 16384, 32, 8, g[i], 32128, 16),
                   ref_inference_moe_n_params(64, 4096, 16384, 32, 8, g[i], 32128, 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)8, (double)g[i], (double)32128, (double)16);
  }
  { /* sweep v */
    static const int64_t g[] = {32128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, g[i], 16),
                   ref_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, g[i], 16), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)8, (double)256, (double)g[i], (double)16);
  }
  { /* sweep e */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, 32128, g[i]),
                   ref_inference_moe_n_params(64, 4096, 16384, 32, 8, 256, 32128, g[i]), "params",
                   "ex_inference_moe_n_params(%g, %g, %g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)8, (double)256, (double)32128, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_moe_critical_batch) {
  /* Book ch. 7 Question 5 part 2: "240 * (16 / 2) = 1920" tokens: the bf16 critical batch times
   * E / k, i.e. the answer for 2-byte weights (exact 240.24 x 8 = 1921.95). The question's int8
   * weights with bf16 FLOPs halve it: hand 120.12 x 8 = 960.98 (the book does not print this). */
  GRADE_BOOK(ex_inference_moe_critical_batch(1.97e14, 8.2e11, 2.0, 16, 2), 1920.0, 2e-3, "tokens",
             "ch. 7 Question 5: 240 x 16 / 2 = 1920");
  GRADE_BOOK(ex_inference_moe_critical_batch(1.97e14, 8.2e11, 2.0, 16, 2), 8.0 * 1.97e14 / 8.2e11,
             1e-12, "tokens", "hand: bf16 weights, 240.24 x 8");
  GRADE_BOOK(ex_inference_moe_critical_batch(1.97e14, 8.2e11, 1.0, 16, 2), 4.0 * 1.97e14 / 8.2e11,
             1e-12, "tokens", "hand: int8 weights, bf16 FLOPs, 120.12 x 8");
  { /* sweep flops_per_s */
    static const double g[] = {197000000000000.0, 492500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_critical_batch(g[i], 820000000000.0, 1.0, 16, 2),
                   ref_inference_moe_critical_batch(g[i], 820000000000.0, 1.0, 16, 2), "tokens",
                   "ex_inference_moe_critical_batch(%g, %g, %g, %g, %g)", (double)g[i], (double)820000000000.0, (double)1.0, (double)16, (double)2);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {820000000000.0, 2050000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_critical_batch(197000000000000.0, g[i], 1.0, 16, 2),
                   ref_inference_moe_critical_batch(197000000000000.0, g[i], 1.0, 16, 2), "tokens",
                   "ex_inference_moe_critical_batch(%g, %g, %g, %g, %g)", (double)197000000000000.0, (double)g[i], (double)1.0, (double)16, (double)2);
  }
  { /* sweep bytes_per_weight */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_critical_batch(197000000000000.0, 820000000000.0, g[i], 16, 2),
                   ref_inference_moe_critical_batch(197000000000000.0, 820000000000.0, g[i], 16, 2), "tokens",
                   "ex_inference_moe_critical_batch(%g, %g, %g, %g, %g)", (double)197000000000000.0, (double)820000000000.0, (double)g[i], (double)16, (double)2);
  }
  { /* sweep e */
    static const int64_t g[] = {16, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_critical_batch(197000000000000.0, 820000000000.0, 1.0, g[i], 2),
                   ref_inference_moe_critical_batch(197000000000000.0, 820000000000.0, 1.0, g[i], 2), "tokens",
                   "ex_inference_moe_critical_batch(%g, %g, %g, %g, %g)", (double)197000000000000.0, (double)820000000000.0, (double)1.0, (double)g[i], (double)2);
  }
  { /* sweep k */
    static const int64_t g[] = {2, 1, 16, 17, 0, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_moe_critical_batch(197000000000000.0, 820000000000.0, 1.0, 16, g[i]),
                   ref_inference_moe_critical_batch(197000000000000.0, 820000000000.0, 1.0, 16, g[i]), "tokens",
                   "ex_inference_moe_critical_batch(%g, %g, %g, %g, %g)", (double)197000000000000.0, (double)820000000000.0, (double)1.0, (double)16, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_max_tp_memory_bound) {
  /* Book: 16384 / (32 x 8) = 64; ch. 8 (LLaMA 3 70B, B = 64): 28,672 / (64 x 8) = 56. */
  GRADE_BOOK(ex_inference_max_tp_memory_bound(16384.0, 32.0, 8.0), 64.0, 1e-12, "chips",
             "ch. 7: 64 ways");
  GRADE_BOOK(ex_inference_max_tp_memory_bound(28672.0, 64.0, 8.0), 56.0, 1e-12, "chips",
             "ch. 8: 56 ways");
  { /* sweep f */
    static const double g[] = {16384.0, 40960.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tp_memory_bound(g[i], 32.0, 8.0),
                   ref_inference_max_tp_memory_bound(g[i], 32.0, 8.0), "chips",
                   "ex_inference_max_tp_memory_bound(%g, %g, %g)", (double)g[i], (double)32.0, (double)8.0);
  }
  { /* sweep b */
    static const double g[] = {32.0, 80.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tp_memory_bound(16384.0, g[i], 8.0),
                   ref_inference_max_tp_memory_bound(16384.0, g[i], 8.0), "chips",
                   "ex_inference_max_tp_memory_bound(%g, %g, %g)", (double)16384.0, (double)g[i], (double)8.0);
  }
  { /* sweep beta */
    static const double g[] = {8.0, 20.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_max_tp_memory_bound(16384.0, 32.0, g[i]),
                   ref_inference_max_tp_memory_bound(16384.0, 32.0, g[i]), "chips",
                   "ex_inference_max_tp_memory_bound(%g, %g, %g)", (double)16384.0, (double)32.0, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_ws2d_min_chips) {
  /* Hand: F = 4D gives 128 x 9/16 = 72; the book prints 81 for "128 (3/4)^2", which is
   * arithmetically 72. F = 3.5D: 63. */
  GRADE_BOOK(ex_inference_ws2d_min_chips(8192.0, 32768.0), 72.0, 1e-12, "chips",
             "ch. 7 Question 7 exact 72 (book prints 81)");
  GRADE_BOOK(ex_inference_ws2d_min_chips(8192.0, 28672.0), 63.0, 1e-12, "chips",
             "ch. 7 Question 7 general form, F = 3.5D");
  { /* sweep d */
    static const double g[] = {8192.0, 20480.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_ws2d_min_chips(g[i], 32768.0),
                   ref_inference_ws2d_min_chips(g[i], 32768.0), "chips",
                   "ex_inference_ws2d_min_chips(%g, %g)", (double)g[i], (double)32768.0);
  }
  { /* sweep f */
    static const double g[] = {32768.0, 81920.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_ws2d_min_chips(8192.0, g[i]),
                   ref_inference_ws2d_min_chips(8192.0, g[i]), "chips",
                   "ex_inference_ws2d_min_chips(%g, %g)", (double)8192.0, (double)g[i]);
  }
}
END_TEST

START_TEST(inference_prefill_attention_min_tokens) {
  /* Book ch. 7 "What about attention?": prefill intensity ST / (S + T) = T / 2, so attention is
   * "compute bound for any reasonable sequence length (roughly > 480 tokens)": hand
   * 2 x 1.97e14 / 8.2e11 = 480.49. With G = 8 query heads per KV head the intensity is 8T / 9:
   * hand 240.24 x 9 / 8 = 270.27. */
  GRADE_BOOK(ex_inference_prefill_attention_min_tokens(1.97e14, 8.2e11, 1), 480.0, 2e-3, "tokens",
             "ch. 7: roughly 480 tokens");
  GRADE_BOOK(ex_inference_prefill_attention_min_tokens(1.97e14, 8.2e11, 1), 2.0 * 1.97e14 / 8.2e11,
             1e-12, "tokens", "hand: 2 C / W");
  GRADE_BOOK(ex_inference_prefill_attention_min_tokens(1.97e14, 8.2e11, 8),
             1.97e14 / 8.2e11 * 9.0 / 8.0, 1e-12, "tokens", "hand: G = 8, C / W x 9 / 8");
  { /* sweep flops_per_s */
    static const double g[] = {197000000000000.0, 492500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_prefill_attention_min_tokens(g[i], 820000000000.0, 1),
                   ref_inference_prefill_attention_min_tokens(g[i], 820000000000.0, 1), "tokens",
                   "ex_inference_prefill_attention_min_tokens(%g, %g, %g)", (double)g[i], (double)820000000000.0, (double)1);
  }
  { /* sweep hbm_bytes_per_s */
    static const double g[] = {820000000000.0, 2050000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_prefill_attention_min_tokens(197000000000000.0, g[i], 1),
                   ref_inference_prefill_attention_min_tokens(197000000000000.0, g[i], 1), "tokens",
                   "ex_inference_prefill_attention_min_tokens(%g, %g, %g)", (double)197000000000000.0, (double)g[i], (double)1);
  }
  { /* sweep g */
    static const int64_t g[] = {1, 2, 8, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_inference_prefill_attention_min_tokens(197000000000000.0, 820000000000.0, g[i]),
                   ref_inference_prefill_attention_min_tokens(197000000000000.0, 820000000000.0, g[i]), "tokens",
                   "ex_inference_prefill_attention_min_tokens(%g, %g, %g)", (double)197000000000000.0, (double)820000000000.0, (double)g[i]);
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("07-inference");
  grade_add(suite, "inference.critical_batch", inference_critical_batch);
  grade_add(suite, "inference.decode_step_time_s", inference_decode_step_time_s);
  grade_add(suite, "inference.max_tokens_per_s", inference_max_tokens_per_s);
  grade_add(suite, "inference.kv_bytes_per_token", inference_kv_bytes_per_token);
  grade_add(suite, "inference.n_params", inference_n_params);
  grade_add(suite, "inference.param_load_time_s", inference_param_load_time_s);
  grade_add(suite, "inference.moe_n_params", inference_moe_n_params);
  grade_add(suite, "inference.moe_critical_batch", inference_moe_critical_batch);
  grade_add(suite, "inference.max_tp_memory_bound", inference_max_tp_memory_bound);
  grade_add(suite, "inference.ws2d_min_chips", inference_ws2d_min_chips);
  grade_add(suite, "inference.prefill_attention_min_tokens", inference_prefill_attention_min_tokens);
  return grade_run(suite);
}
