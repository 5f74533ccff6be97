/* test_06_applied_training.c — grading of chapter 6's exercises
 * (exercises/06-applied-training/applied_training_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, applied-training.md ("Training LLaMA 3 on TPUs").
 */
#include "applied_training_ex.h"

#include "grading.h"
#include "grading_train_layout.h"
#include "grading_ref_applied_training.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(applied_training_ffw_params) {
  /* Hand: 3 x 80 x 8192 x 28672 = 56,371,445,760; the book prints 56.3e9 (truncated). */
  GRADE_BOOK(ex_applied_training_ffw_params(80, 8192, 28672), 56371445760.0, 1e-12, "params",
             "ch. 6 FFW params: 56.3e9 (exact 56.37e9)");
  { /* sweep l */
    static const int64_t g[] = {80, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_ffw_params(g[i], 8192, 28672),
                   ref_applied_training_ffw_params(g[i], 8192, 28672), "params",
                   "ex_applied_training_ffw_params(%g, %g, %g)", (double)g[i], (double)8192, (double)28672);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_ffw_params(80, g[i], 28672),
                   ref_applied_training_ffw_params(80, g[i], 28672), "params",
                   "ex_applied_training_ffw_params(%g, %g, %g)", (double)80, (double)g[i], (double)28672);
  }
  { /* sweep f */
    static const int64_t g[] = {28672, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_ffw_params(80, 8192, g[i]),
                   ref_applied_training_ffw_params(80, 8192, g[i]), "params",
                   "ex_applied_training_ffw_params(%g, %g, %g)", (double)80, (double)8192, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_attention_params) {
  /* Hand: 80 x (2 x 8192 x 64 x 128 + 2 x 8192 x 8 x 128) = 12,079,595,520 (book: 12e9). */
  GRADE_BOOK(ex_applied_training_attention_params(80, 8192, 64, 8, 128), 12079595520.0, 1e-12,
             "params", "ch. 6 attention params: 12e9");
  { /* sweep l */
    static const int64_t g[] = {80, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_attention_params(g[i], 8192, 64, 8, 128),
                   ref_applied_training_attention_params(g[i], 8192, 64, 8, 128), "params",
                   "ex_applied_training_attention_params(%g, %g, %g, %g, %g)", (double)g[i], (double)8192, (double)64, (double)8, (double)128);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_attention_params(80, g[i], 64, 8, 128),
                   ref_applied_training_attention_params(80, g[i], 64, 8, 128), "params",
                   "ex_applied_training_attention_params(%g, %g, %g, %g, %g)", (double)80, (double)g[i], (double)64, (double)8, (double)128);
  }
  { /* sweep n */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_attention_params(80, 8192, g[i], 8, 128),
                   ref_applied_training_attention_params(80, 8192, g[i], 8, 128), "params",
                   "ex_applied_training_attention_params(%g, %g, %g, %g, %g)", (double)80, (double)8192, (double)g[i], (double)8, (double)128);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_attention_params(80, 8192, 64, g[i], 128),
                   ref_applied_training_attention_params(80, 8192, 64, g[i], 128), "params",
                   "ex_applied_training_attention_params(%g, %g, %g, %g, %g)", (double)80, (double)8192, (double)64, (double)g[i], (double)128);
  }
  { /* sweep h */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_attention_params(80, 8192, 64, 8, g[i]),
                   ref_applied_training_attention_params(80, 8192, 64, 8, g[i]), "params",
                   "ex_applied_training_attention_params(%g, %g, %g, %g, %g)", (double)80, (double)8192, (double)64, (double)8, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_vocab_params) {
  /* Hand: 2 x 128256 x 8192 = 2,101,346,304 (book: 2.1e9). */
  GRADE_BOOK(ex_applied_training_vocab_params(128256, 8192), 2101346304.0, 1e-12, "params",
             "ch. 6 vocab params: 2.1e9");
  { /* sweep v */
    static const int64_t g[] = {128256, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_vocab_params(g[i], 8192),
                   ref_applied_training_vocab_params(g[i], 8192), "params",
                   "ex_applied_training_vocab_params(%g, %g)", (double)g[i], (double)8192);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_vocab_params(128256, g[i]),
                   ref_applied_training_vocab_params(128256, g[i]), "params",
                   "ex_applied_training_vocab_params(%g, %g)", (double)128256, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_flops_per_token) {
  /* Book: 6 x 70e9 = 4.2e11 FLOPs / token. */
  GRADE_BOOK(ex_applied_training_flops_per_token(70e9), 4.2e11, 1e-12, "FLOP",
             "ch. 6: 4.2e11 FLOPs per token");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_flops_per_token(g[i]),
                   ref_applied_training_flops_per_token(g[i]), "FLOP",
                   "ex_applied_training_flops_per_token(%g)", (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_run_time_s) {
  /* Hand: 6.3e24 / (8960 x 4.59e14 x 0.4) = 3.8297e6 s = 44.3 days (book: 3.8e6 s, "about 44
   * days"); on one chip at 100%: 1.3725e10 s = 435.2 years of 365 days (book: 435 years). */
  GRADE_BOOK(ex_applied_training_run_time_s(70e9, 15e12, 8960.0, 4.59e14, 0.4), 3.8e6, 0.01, "s",
             "ch. 6: 3.8e6 seconds, about 44 days");
  GRADE_BOOK(ex_applied_training_run_time_s(70e9, 15e12, 8960.0, 4.59e14, 0.4),
             6.3e24 / (8960.0 * 4.59e14 * 0.4), 1e-12, "s", "hand: 6.3e24 / (N C MFU)");
  GRADE_BOOK(ex_applied_training_run_time_s(70e9, 15e12, 1.0, 4.59e14, 1.0), 435.0 * 365.0 * 86400.0,
             1e-3, "s", "ch. 6: 435 years on one chip");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_run_time_s(g[i], 15000000000000.0, 8960.0, 459000000000000.0, 0.4),
                   ref_applied_training_run_time_s(g[i], 15000000000000.0, 8960.0, 459000000000000.0, 0.4), "s",
                   "ex_applied_training_run_time_s(%g, %g, %g, %g, %g)", (double)g[i], (double)15000000000000.0, (double)8960.0, (double)459000000000000.0, (double)0.4);
  }
  { /* sweep n_tokens */
    static const double g[] = {15000000000000.0, 37500000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_run_time_s(70000000000.0, g[i], 8960.0, 459000000000000.0, 0.4),
                   ref_applied_training_run_time_s(70000000000.0, g[i], 8960.0, 459000000000000.0, 0.4), "s",
                   "ex_applied_training_run_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)g[i], (double)8960.0, (double)459000000000000.0, (double)0.4);
  }
  { /* sweep n_chips */
    static const double g[] = {8960.0, 22400.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_run_time_s(70000000000.0, 15000000000000.0, g[i], 459000000000000.0, 0.4),
                   ref_applied_training_run_time_s(70000000000.0, 15000000000000.0, g[i], 459000000000000.0, 0.4), "s",
                   "ex_applied_training_run_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)15000000000000.0, (double)g[i], (double)459000000000000.0, (double)0.4);
  }
  { /* sweep flops_per_s */
    static const double g[] = {459000000000000.0, 1147500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_run_time_s(70000000000.0, 15000000000000.0, 8960.0, g[i], 0.4),
                   ref_applied_training_run_time_s(70000000000.0, 15000000000000.0, 8960.0, g[i], 0.4), "s",
                   "ex_applied_training_run_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)15000000000000.0, (double)8960.0, (double)g[i], (double)0.4);
  }
  { /* sweep mfu_frac */
    static const double g[] = {0.4, 1.0, 0.25, 0.0, 1.5, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_run_time_s(70000000000.0, 15000000000000.0, 8960.0, 459000000000000.0, g[i]),
                   ref_applied_training_run_time_s(70000000000.0, 15000000000000.0, 8960.0, 459000000000000.0, g[i]), "s",
                   "ex_applied_training_run_time_s(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)15000000000000.0, (double)8960.0, (double)459000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_memory_bytes) {
  /* Book ch. 6, the minimum number of TPUs, checkpointing "4 times per layer": params 2 x 70GB
   * "~140GB", optimizer 8 x 70GB "~560GB", checkpoints 2 x 8192 x 4e6 x 4 x 80 = 20.97152e12
   * ("~20.9TB"); hand total 700e9 + 20.97152e12 = 21.67152e12, the book's "~21.6TB" (tested at
   * 1%). The older edition (0819a7d) checkpointed 3 times per layer: 16.42864e12, "~16.5TB". */
  GRADE_BOOK(ex_applied_training_memory_bytes(70e9, 4e6, 8192, 80, 4.0), 21.67152e12, 1e-12, "byte",
             "hand: 700e9 + 20.97152e12");
  GRADE_BOOK(ex_applied_training_memory_bytes(70e9, 4e6, 8192, 80, 4.0), 21.6e12, 0.01, "byte",
             "ch. 6: ~21.6TB");
  GRADE_BOOK(ex_applied_training_memory_bytes(70e9, 4e6, 8192, 80, 3.0), 16.42864e12, 1e-12, "byte",
             "hand: the older edition's 3 checkpoints per layer, 700e9 + 15.73e12");
  { /* sweep n_params */
    static const double g[] = {70000000000.0, 175000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_memory_bytes(g[i], 4000000.0, 8192, 80, 4.0),
                   ref_applied_training_memory_bytes(g[i], 4000000.0, 8192, 80, 4.0), "byte",
                   "ex_applied_training_memory_bytes(%g, %g, %g, %g, %g)", (double)g[i], (double)4000000.0, (double)8192, (double)80, (double)4.0);
  }
  { /* sweep batch_tokens */
    static const double g[] = {4000000.0, 10000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_memory_bytes(70000000000.0, g[i], 8192, 80, 4.0),
                   ref_applied_training_memory_bytes(70000000000.0, g[i], 8192, 80, 4.0), "byte",
                   "ex_applied_training_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)g[i], (double)8192, (double)80, (double)4.0);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_memory_bytes(70000000000.0, 4000000.0, g[i], 80, 4.0),
                   ref_applied_training_memory_bytes(70000000000.0, 4000000.0, g[i], 80, 4.0), "byte",
                   "ex_applied_training_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)4000000.0, (double)g[i], (double)80, (double)4.0);
  }
  { /* sweep l */
    static const int64_t g[] = {80, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_memory_bytes(70000000000.0, 4000000.0, 8192, g[i], 4.0),
                   ref_applied_training_memory_bytes(70000000000.0, 4000000.0, 8192, g[i], 4.0), "byte",
                   "ex_applied_training_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)4000000.0, (double)8192, (double)g[i], (double)4.0);
  }
  { /* sweep n_checkpoints_per_layer */
    static const double g[] = {4.0, 10.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_memory_bytes(70000000000.0, 4000000.0, 8192, 80, g[i]),
                   ref_applied_training_memory_bytes(70000000000.0, 4000000.0, 8192, 80, g[i]), "byte",
                   "ex_applied_training_memory_bytes(%g, %g, %g, %g, %g)", (double)70000000000.0, (double)4000000.0, (double)8192, (double)80, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_min_chips) {
  /* Hand: 21.67152e12 / 96e9 = 225.745, so 226 chips; the book prints "21.6e12 / 96e9 = 225"
   * from its rounded total (a minimum has to round up). The older edition (0819a7d): 16.5e12,
   * 171 (hand: 16.42864e12 / 96e9 = 171.13, so 172). */
  GRADE_BOOK(ex_applied_training_min_chips(21.67152e12, 96e9), 226.0, 1e-12, "chips",
             "hand: ceil(225.745) (book prints 225)");
  GRADE_BOOK(ex_applied_training_min_chips(21.6e12, 96e9), 225.0, 1e-12, "chips",
             "ch. 6: 21.6e12 / 96e9 = 225");
  GRADE_BOOK(ex_applied_training_min_chips(16.42864e12, 96e9), 172.0, 1e-12, "chips",
             "hand: ceil(171.13), the older edition's total");
  GRADE_BOOK(ex_applied_training_min_chips(96e9, 96e9), 1.0, 1e-12, "chips", "hand: exactly one");
  { /* sweep total_bytes */
    static const double g[] = {21671520000000.0, 54178800000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_min_chips(g[i], 96000000000.0),
                   ref_applied_training_min_chips(g[i], 96000000000.0), "chips",
                   "ex_applied_training_min_chips(%g, %g)", (double)g[i], (double)96000000000.0);
  }
  { /* sweep hbm_bytes_per_chip */
    static const double g[] = {96000000000.0, 240000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_min_chips(21671520000000.0, g[i]),
                   ref_applied_training_min_chips(21671520000000.0, g[i]), "chips",
                   "ex_applied_training_min_chips(%g, %g)", (double)21671520000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_max_pure_dp_chips) {
  /* Book: 4M tokens of 4K sequences is a sequence batch of 1024. */
  GRADE_BOOK(ex_applied_training_max_pure_dp_chips(4194304.0, 4096.0), 1024.0, 1e-12, "chips",
             "ch. 6: 1024 sequences");
  GRADE_BOOK(ex_applied_training_max_pure_dp_chips(4e6, 8192.0), 488.0, 1e-12, "chips",
             "hand: floor(488.28)");
  { /* sweep batch_tokens */
    static const double g[] = {4194304.0, 10485760.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_max_pure_dp_chips(g[i], 4096.0),
                   ref_applied_training_max_pure_dp_chips(g[i], 4096.0), "chips",
                   "ex_applied_training_max_pure_dp_chips(%g, %g)", (double)g[i], (double)4096.0);
  }
  { /* sweep seq_len */
    static const double g[] = {4096.0, 10240.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_max_pure_dp_chips(4194304.0, g[i]),
                   ref_applied_training_max_pure_dp_chips(4194304.0, g[i]), "chips",
                   "ex_applied_training_max_pure_dp_chips(%g, %g)", (double)4194304.0, (double)g[i]);
  }
}
END_TEST

START_TEST(applied_training_tp_degree) {
  /* Hand: X_opt = sqrt(4.19e6 / 28672 x 2 x 8960) = sqrt(2,618,750) = 1618.3, Y = 8960 / 1618.3
   * = 5.537; the book rounds to a power of two, "4-way model parallelism". */
  GRADE_BOOK(ex_applied_training_tp_degree(8960.0, 4.19e6, 28672.0, 2.0, 1.0),
             8960.0 / sqrt(2618750.0), 1e-12, "chips", "hand: N / X_opt = 5.54 (book: 4-way)");
  { /* sweep n_chips */
    static const double g[] = {8960.0, 22400.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_tp_degree(g[i], 4190000.0, 28672.0, 2.0, 1.0),
                   ref_applied_training_tp_degree(g[i], 4190000.0, 28672.0, 2.0, 1.0), "chips",
                   "ex_applied_training_tp_degree(%g, %g, %g, %g, %g)", (double)g[i], (double)4190000.0, (double)28672.0, (double)2.0, (double)1.0);
  }
  { /* sweep batch_tokens */
    static const double g[] = {4190000.0, 10475000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_tp_degree(8960.0, g[i], 28672.0, 2.0, 1.0),
                   ref_applied_training_tp_degree(8960.0, g[i], 28672.0, 2.0, 1.0), "chips",
                   "ex_applied_training_tp_degree(%g, %g, %g, %g, %g)", (double)8960.0, (double)g[i], (double)28672.0, (double)2.0, (double)1.0);
  }
  { /* sweep f */
    static const double g[] = {28672.0, 71680.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_tp_degree(8960.0, 4190000.0, g[i], 2.0, 1.0),
                   ref_applied_training_tp_degree(8960.0, 4190000.0, g[i], 2.0, 1.0), "chips",
                   "ex_applied_training_tp_degree(%g, %g, %g, %g, %g)", (double)8960.0, (double)4190000.0, (double)g[i], (double)2.0, (double)1.0);
  }
  { /* sweep m_x */
    static const double g[] = {2.0, 5.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_tp_degree(8960.0, 4190000.0, 28672.0, g[i], 1.0),
                   ref_applied_training_tp_degree(8960.0, 4190000.0, 28672.0, g[i], 1.0), "chips",
                   "ex_applied_training_tp_degree(%g, %g, %g, %g, %g)", (double)8960.0, (double)4190000.0, (double)28672.0, (double)g[i], (double)1.0);
  }
  { /* sweep m_y */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_applied_training_tp_degree(8960.0, 4190000.0, 28672.0, 2.0, g[i]),
                   ref_applied_training_tp_degree(8960.0, 4190000.0, 28672.0, 2.0, g[i]), "chips",
                   "ex_applied_training_tp_degree(%g, %g, %g, %g, %g)", (double)8960.0, (double)4190000.0, (double)28672.0, (double)2.0, (double)g[i]);
  }
}
END_TEST

/* ==== a decision exercise: a training layout (grading_train_layout.h) ======================= */

/* Through the contract's struct: the proxy of the student's function. */
static void applied_training_layout_call(const train_instance *in, int64_t out[3]) {
  ex_applied_layout l = ex_applied_training_llama3_70b_layout(
      in->n_params, in->n_heads, in->n_kv_heads, in->batch_tokens, in->seq_len, in->hbm_bytes,
      in->critical_batch_tokens, in->n_chips);
  out[0] = l.dp;
  out[1] = l.fsdp;
  out[2] = l.tp;
}

START_TEST(applied_training_llama3_70b_layout) {
  /* The arguments are the library's figures (scale_transformer_n_params, the model's heads,
   * the chip's HBM), checked whenever the costs are recorded; the critical batch is the
   * book's v5p figure C / W_ici = 4.59e14 / 1.8e11 = 2550 tokens (ch. 5). */
  static const train_instance in[] = {
      {"LLaMA 3 70B, 2M tokens on 8192 v5p", "tpu-v5p", "llama-3-70b", 8192, 2097152.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0},
      {"LLaMA 3 70B, 4M tokens on 8192 v5p", "tpu-v5p", "llama-3-70b", 8192, 4194304.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0},
      {"LLaMA 3 70B, 8M tokens on 8192 v5p", "tpu-v5p", "llama-3-70b", 8192, 8388608.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0},
      {"LLaMA 3 70B, 16M tokens on 8192 v5p", "tpu-v5p", "llama-3-70b", 8192, 16777216.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0}
  };
  static const train_instance none = {
      "LLaMA 3 70B, 256K tokens on 8192 v5p", "tpu-v5p", "llama-3-70b", 8192, 262144.0,
      4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0};
  grade_train_layouts(applied_training_layout_call, "llama3_70b_layout", in, N_OF(in), &none);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("06-applied-training");
  grade_add(suite, "applied_training.ffw_params", applied_training_ffw_params);
  grade_add(suite, "applied_training.attention_params", applied_training_attention_params);
  grade_add(suite, "applied_training.vocab_params", applied_training_vocab_params);
  grade_add(suite, "applied_training.flops_per_token", applied_training_flops_per_token);
  grade_add(suite, "applied_training.run_time_s", applied_training_run_time_s);
  grade_add(suite, "applied_training.memory_bytes", applied_training_memory_bytes);
  grade_add(suite, "applied_training.min_chips", applied_training_min_chips);
  grade_add(suite, "applied_training.max_pure_dp_chips", applied_training_max_pure_dp_chips);
  grade_add(suite, "applied_training.tp_degree", applied_training_tp_degree);
  grade_add(suite, "applied_training.llama3_70b_layout", applied_training_llama3_70b_layout);
  return grade_run(suite);
}
