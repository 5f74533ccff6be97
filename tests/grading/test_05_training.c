/* test_05_training.c — grading of chapter 5's exercises
 * (exercises/05-training/training_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, training.md ("How to Parallelize a Transformer for Training").
 */
#include "training_ex.h"

#include "grading.h"
#include "grading_train_layout.h"
#include "grading_ref_training.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(training_dp_critical_batch) {
  /* Book: 4.59e14 / 1.8e11 = 2550 per chip ("at least 2,550"); over three axes 850. */
  GRADE_BOOK(ex_training_dp_critical_batch(4.59e14, 9e10, 1), 2550.0, 1e-12, "tokens",
             "ch. 5 data parallelism: 2,550 on v5p");
  GRADE_BOOK(ex_training_dp_critical_batch(4.59e14, 9e10, 3), 850.0, 1e-12, "tokens",
             "ch. 5: 850 with all three axes");
  { /* sweep flops_per_s */
    static const double g[] = {459000000000000.0, 1147500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_dp_critical_batch(g[i], 90000000000.0, 1),
                   ref_training_dp_critical_batch(g[i], 90000000000.0, 1), "tokens",
                   "ex_training_dp_critical_batch(%g, %g, %g)", (double)g[i], (double)90000000000.0, (double)1);
  }
  { /* sweep link_bytes_per_s */
    static const double g[] = {90000000000.0, 225000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_dp_critical_batch(459000000000000.0, g[i], 1),
                   ref_training_dp_critical_batch(459000000000000.0, g[i], 1), "tokens",
                   "ex_training_dp_critical_batch(%g, %g, %g)", (double)459000000000000.0, (double)g[i], (double)1);
  }
  { /* sweep n_axes */
    static const int64_t g[] = {1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_dp_critical_batch(459000000000000.0, 90000000000.0, g[i]),
                   ref_training_dp_critical_batch(459000000000000.0, 90000000000.0, g[i]), "tokens",
                   "ex_training_dp_critical_batch(%g, %g, %g)", (double)459000000000000.0, (double)90000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(training_max_pure_dp_params) {
  /* Hand: 96e9 / 10 = 9.6e9; the book says "roughly 9B". */
  GRADE_BOOK(ex_training_max_pure_dp_params(96e9), 9.6e9, 1e-12, "params",
             "ch. 5: 96GB / 10 (book: roughly 9B)");
  { /* sweep hbm_bytes */
    static const double g[] = {96000000000.0, 240000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_max_pure_dp_params(g[i]),
                   ref_training_max_pure_dp_params(g[i]), "params",
                   "ex_training_max_pure_dp_params(%g)", (double)g[i]);
  }
}
END_TEST

START_TEST(training_param_optimizer_bytes) {
  GRADE_BOOK(ex_training_param_optimizer_bytes(13e9), 130e9, 1e-12, "byte",
             "ch. 5 Question 2: 130GB");
  { /* sweep n_params */
    static const double g[] = {13000000000.0, 32500000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_param_optimizer_bytes(g[i]),
                   ref_training_param_optimizer_bytes(g[i]), "byte",
                   "ex_training_param_optimizer_bytes(%g)", (double)g[i]);
  }
}
END_TEST

START_TEST(training_checkpoint_bytes) {
  /* Hand: 2 x 40 x 16e6 x (5120 + 27648) = 4.194304e13 (book: "4.2e13 = 42TB"); at 3M tokens
   * 7.86432e12 (book: "~7.86e12"). */
  GRADE_BOOK(ex_training_checkpoint_bytes(16e6, 40, 5120, 13824), 4.194304e13, 1e-12, "byte",
             "ch. 5 Question 2: 42TB");
  GRADE_BOOK(ex_training_checkpoint_bytes(3e6, 40, 5120, 13824), 7.86e12, 1e-3, "byte",
             "ch. 5 Question 3: 7.86e12");
  { /* sweep n_tokens */
    static const double g[] = {16000000.0, 40000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_checkpoint_bytes(g[i], 40, 5120, 13824),
                   ref_training_checkpoint_bytes(g[i], 40, 5120, 13824), "byte",
                   "ex_training_checkpoint_bytes(%g, %g, %g, %g)", (double)g[i], (double)40, (double)5120, (double)13824);
  }
  { /* sweep l */
    static const int64_t g[] = {40, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_checkpoint_bytes(16000000.0, g[i], 5120, 13824),
                   ref_training_checkpoint_bytes(16000000.0, g[i], 5120, 13824), "byte",
                   "ex_training_checkpoint_bytes(%g, %g, %g, %g)", (double)16000000.0, (double)g[i], (double)5120, (double)13824);
  }
  { /* sweep d */
    static const int64_t g[] = {5120, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_checkpoint_bytes(16000000.0, 40, g[i], 13824),
                   ref_training_checkpoint_bytes(16000000.0, 40, g[i], 13824), "byte",
                   "ex_training_checkpoint_bytes(%g, %g, %g, %g)", (double)16000000.0, (double)40, (double)g[i], (double)13824);
  }
  { /* sweep f */
    static const int64_t g[] = {13824, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_checkpoint_bytes(16000000.0, 40, 5120, g[i]),
                   ref_training_checkpoint_bytes(16000000.0, 40, 5120, g[i]), "byte",
                   "ex_training_checkpoint_bytes(%g, %g, %g, %g)", (double)16000000.0, (double)40, (double)5120, (double)g[i]);
  }
}
END_TEST

START_TEST(training_time_s) {
  /* Hand: 6.3e24 / (18,823.5 x 4.59e14 x 0.5) = 1.4583e6 s = 16.88 days (book: "approximately
   * 17 days"); 2.34e20 / (4096 x 4.6e14 x 0.4) = 0.31048 s (book: "300ms", rounded). */
  GRADE_BOOK(ex_training_time_s(6.3e24, 16e6 / 850.0, 4.59e14, 0.5), 17.0 * 86400.0, 0.01, "s",
             "ch. 5: about 17 days");
  GRADE_BOOK(ex_training_time_s(6.0 * 3e6 * 13e9, 4096.0, 4.6e14, 0.4), 0.310483186, 1e-8, "s",
             "ch. 5 Question 3 exact 310ms (book prints 300ms)");
  { /* sweep total_flops */
    static const double g[] = {6.3e+24, 1.5750000000000001e+25, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_time_s(g[i], 8960.0, 459000000000000.0, 0.5),
                   ref_training_time_s(g[i], 8960.0, 459000000000000.0, 0.5), "s",
                   "ex_training_time_s(%g, %g, %g, %g)", (double)g[i], (double)8960.0, (double)459000000000000.0, (double)0.5);
  }
  { /* sweep n_chips */
    static const double g[] = {8960.0, 22400.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_time_s(6.3e+24, g[i], 459000000000000.0, 0.5),
                   ref_training_time_s(6.3e+24, g[i], 459000000000000.0, 0.5), "s",
                   "ex_training_time_s(%g, %g, %g, %g)", (double)6.3e+24, (double)g[i], (double)459000000000000.0, (double)0.5);
  }
  { /* sweep flops_per_s */
    static const double g[] = {459000000000000.0, 1147500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_time_s(6.3e+24, 8960.0, g[i], 0.5),
                   ref_training_time_s(6.3e+24, 8960.0, g[i], 0.5), "s",
                   "ex_training_time_s(%g, %g, %g, %g)", (double)6.3e+24, (double)8960.0, (double)g[i], (double)0.5);
  }
  { /* sweep mfu_frac */
    static const double g[] = {0.5, 1.0, 0.25, 0.0, 1.5, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_time_s(6.3e+24, 8960.0, 459000000000000.0, g[i]),
                   ref_training_time_s(6.3e+24, 8960.0, 459000000000000.0, g[i]), "s",
                   "ex_training_time_s(%g, %g, %g, %g)", (double)6.3e+24, (double)8960.0, (double)459000000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(training_tp_max_degree) {
  /* Hand: 28672 / 2550 = 11.244 (book: "n_axes x 11"); 8-way needs F = 8 x 2550 = 20,400. */
  GRADE_BOOK(ex_training_tp_max_degree(28672.0, 4.59e14, 9e10, 1), 28672.0 / 2550.0, 1e-12, "chips",
             "ch. 5: F / 2550, about 11 for LLaMA 3 70B");
  GRADE_BOOK(ex_training_tp_max_degree(20400.0, 4.59e14, 9e10, 1), 8.0, 1e-12, "chips",
             "hand: F = 20,400 allows 8-way");
  GRADE_BOOK(ex_training_tp_max_degree(28672.0, 4.59e14, 9e10, 2), 2.0 * 28672.0 / 2550.0, 1e-12,
             "chips", "ch. 5: n_axes x F / 2550");
  { /* sweep f */
    static const double g[] = {28672.0, 71680.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_tp_max_degree(g[i], 459000000000000.0, 90000000000.0, 1),
                   ref_training_tp_max_degree(g[i], 459000000000000.0, 90000000000.0, 1), "chips",
                   "ex_training_tp_max_degree(%g, %g, %g, %g)", (double)g[i], (double)459000000000000.0, (double)90000000000.0, (double)1);
  }
  { /* sweep flops_per_s */
    static const double g[] = {459000000000000.0, 1147500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_tp_max_degree(28672.0, g[i], 90000000000.0, 1),
                   ref_training_tp_max_degree(28672.0, g[i], 90000000000.0, 1), "chips",
                   "ex_training_tp_max_degree(%g, %g, %g, %g)", (double)28672.0, (double)g[i], (double)90000000000.0, (double)1);
  }
  { /* sweep link_bytes_per_s */
    static const double g[] = {90000000000.0, 225000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_tp_max_degree(28672.0, 459000000000000.0, g[i], 1),
                   ref_training_tp_max_degree(28672.0, 459000000000000.0, g[i], 1), "chips",
                   "ex_training_tp_max_degree(%g, %g, %g, %g)", (double)28672.0, (double)459000000000000.0, (double)g[i], (double)1);
  }
  { /* sweep n_axes */
    static const int64_t g[] = {1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_tp_max_degree(28672.0, 459000000000000.0, 90000000000.0, g[i]),
                   ref_training_tp_max_degree(28672.0, 459000000000000.0, 90000000000.0, g[i]), "chips",
                   "ex_training_tp_max_degree(%g, %g, %g, %g)", (double)28672.0, (double)459000000000000.0, (double)90000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(training_fsdp_tp_x_opt) {
  /* Hand: sqrt(48000 / 32768 x 2 x 64) = sqrt(187.5) = 13.693 (the book prints 13.9); Question
   * 3: sqrt(3e6 x 2 x 4096 / 13824) = sqrt(1,777,777.8) = 1333.3 (book: 1333). */
  GRADE_BOOK(ex_training_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, 2.0, 1.0), sqrt(187.5), 1e-12,
             "chips", "ch. 5 X_opt exact 13.69 (book prints 13.9)");
  GRADE_BOOK(ex_training_fsdp_tp_x_opt(3e6, 13824.0, 4096.0, 2.0, 1.0), 1333.0, 1e-3, "chips",
             "ch. 5 Question 3: 1333");
  { /* sweep b */
    static const double g[] = {48000.0, 120000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_x_opt(g[i], 32768.0, 64.0, 2.0, 1.0),
                   ref_training_fsdp_tp_x_opt(g[i], 32768.0, 64.0, 2.0, 1.0), "chips",
                   "ex_training_fsdp_tp_x_opt(%g, %g, %g, %g, %g)", (double)g[i], (double)32768.0, (double)64.0, (double)2.0, (double)1.0);
  }
  { /* sweep f */
    static const double g[] = {32768.0, 81920.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_x_opt(48000.0, g[i], 64.0, 2.0, 1.0),
                   ref_training_fsdp_tp_x_opt(48000.0, g[i], 64.0, 2.0, 1.0), "chips",
                   "ex_training_fsdp_tp_x_opt(%g, %g, %g, %g, %g)", (double)48000.0, (double)g[i], (double)64.0, (double)2.0, (double)1.0);
  }
  { /* sweep n_chips */
    static const double g[] = {64.0, 160.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_x_opt(48000.0, 32768.0, g[i], 2.0, 1.0),
                   ref_training_fsdp_tp_x_opt(48000.0, 32768.0, g[i], 2.0, 1.0), "chips",
                   "ex_training_fsdp_tp_x_opt(%g, %g, %g, %g, %g)", (double)48000.0, (double)32768.0, (double)g[i], (double)2.0, (double)1.0);
  }
  { /* sweep m_x */
    static const double g[] = {2.0, 5.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, g[i], 1.0),
                   ref_training_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, g[i], 1.0), "chips",
                   "ex_training_fsdp_tp_x_opt(%g, %g, %g, %g, %g)", (double)48000.0, (double)32768.0, (double)64.0, (double)g[i], (double)1.0);
  }
  { /* sweep m_y */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, 2.0, g[i]),
                   ref_training_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, 2.0, g[i]), "chips",
                   "ex_training_fsdp_tp_x_opt(%g, %g, %g, %g, %g)", (double)48000.0, (double)32768.0, (double)64.0, (double)2.0, (double)g[i]);
  }
}
END_TEST

START_TEST(training_fsdp_tp_critical_batch) {
  /* Hand: 2550^2 / (2 x 32768) = 99.22 (book: "roughly 99"); 2550^2 / (2 x 13824) = 235.19
   * (book Question 3: 235). */
  GRADE_BOOK(ex_training_fsdp_tp_critical_batch(32768.0, 4.59e14, 9e10, 2.0, 1.0),
             2550.0 * 2550.0 / 65536.0, 1e-12, "tokens", "ch. 5: about 99 per chip");
  GRADE_BOOK(ex_training_fsdp_tp_critical_batch(13824.0, 4.59e14, 9e10, 2.0, 1.0), 235.0, 1e-3,
             "tokens", "ch. 5 Question 3: 235");
  { /* sweep f */
    static const double g[] = {32768.0, 81920.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_critical_batch(g[i], 459000000000000.0, 90000000000.0, 2.0, 1.0),
                   ref_training_fsdp_tp_critical_batch(g[i], 459000000000000.0, 90000000000.0, 2.0, 1.0), "tokens",
                   "ex_training_fsdp_tp_critical_batch(%g, %g, %g, %g, %g)", (double)g[i], (double)459000000000000.0, (double)90000000000.0, (double)2.0, (double)1.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {459000000000000.0, 1147500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_critical_batch(32768.0, g[i], 90000000000.0, 2.0, 1.0),
                   ref_training_fsdp_tp_critical_batch(32768.0, g[i], 90000000000.0, 2.0, 1.0), "tokens",
                   "ex_training_fsdp_tp_critical_batch(%g, %g, %g, %g, %g)", (double)32768.0, (double)g[i], (double)90000000000.0, (double)2.0, (double)1.0);
  }
  { /* sweep link_bytes_per_s */
    static const double g[] = {90000000000.0, 225000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, g[i], 2.0, 1.0),
                   ref_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, g[i], 2.0, 1.0), "tokens",
                   "ex_training_fsdp_tp_critical_batch(%g, %g, %g, %g, %g)", (double)32768.0, (double)459000000000000.0, (double)g[i], (double)2.0, (double)1.0);
  }
  { /* sweep m_x */
    static const double g[] = {2.0, 5.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, 90000000000.0, g[i], 1.0),
                   ref_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, 90000000000.0, g[i], 1.0), "tokens",
                   "ex_training_fsdp_tp_critical_batch(%g, %g, %g, %g, %g)", (double)32768.0, (double)459000000000000.0, (double)90000000000.0, (double)g[i], (double)1.0);
  }
  { /* sweep m_y */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, 90000000000.0, 2.0, g[i]),
                   ref_training_fsdp_tp_critical_batch(32768.0, 459000000000000.0, 90000000000.0, 2.0, g[i]), "tokens",
                   "ex_training_fsdp_tp_critical_batch(%g, %g, %g, %g, %g)", (double)32768.0, (double)459000000000000.0, (double)90000000000.0, (double)2.0, (double)g[i]);
  }
}
END_TEST

START_TEST(training_dcn_critical_batch) {
  /* Book ch. 5 "Scaling Between Pods": "4.46e14 / 6.25e9 = 71,360" (per chip, exact), summed up
   * as "about 71,000". The older edition (0819a7d) divided a pod's 3.8e18 FLOP/s by 2000 hosts x
   * 2.5e10 byte/s = 5e13 and printed 76,000 (exact 76,000: the ratio is the same per chip or
   * per pod, so the same function answers both). */
  GRADE_BOOK(ex_training_dcn_critical_batch(4.46e14, 6.25e9), 71360.0, 1e-12, "tokens",
             "ch. 5 scaling between pods: 4.46e14 / 6.25e9 = 71,360");
  GRADE_BOOK(ex_training_dcn_critical_batch(3.8e18, 5e13), 76000.0, 1e-12, "tokens",
             "hand: the older edition's per-pod 3.8e18 / 5e13");
  { /* sweep pod_flops_per_s */
    static const double g[] = {3.8e+18, 9.5e+18, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_dcn_critical_batch(g[i], 50000000000000.0),
                   ref_training_dcn_critical_batch(g[i], 50000000000000.0), "tokens",
                   "ex_training_dcn_critical_batch(%g, %g)", (double)g[i], (double)50000000000000.0);
  }
  { /* sweep pod_dcn_bytes_per_s */
    static const double g[] = {50000000000000.0, 125000000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_dcn_critical_batch(3.8e+18, g[i]),
                   ref_training_dcn_critical_batch(3.8e+18, g[i]), "tokens",
                   "ex_training_dcn_critical_batch(%g, %g)", (double)3.8e+18, (double)g[i]);
  }
}
END_TEST

START_TEST(training_n_params) {
  /* Hand: 3LDF = 8,493,465,600 (book 8.5e9), 4DNHL = 4,194,304,000 (4.2e9), 2VD = 327,680,000
   * (0.33e9): 13,015,449,600. The book sums its parts to "13.0e9" (the older edition, 0819a7d,
   * printed 0.39e9 and 13.1e9). */
  GRADE_BOOK(ex_training_n_params(40, 5120, 13824, 40, 40, 128, 32000), 13015449600.0, 1e-12,
             "params", "ch. 5 Question 1 exact");
  GRADE_BOOK(ex_training_n_params(40, 5120, 13824, 40, 40, 128, 32000), 13.0e9, 5e-3,
             "params", "ch. 5 Question 1: 13.0e9");
  GRADE_BOOK(ex_training_n_params(80, 8192, 28672, 64, 8, 128, 128256), 70552387584.0, 1e-12,
             "params", "hand: LLaMA 3 70B (ch. 6 prints 70.4e9)");
  { /* sweep l */
    static const int64_t g[] = {40, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(g[i], 5120, 13824, 40, 40, 128, 32000),
                   ref_training_n_params(g[i], 5120, 13824, 40, 40, 128, 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)5120, (double)13824, (double)40, (double)40, (double)128, (double)32000);
  }
  { /* sweep d */
    static const int64_t g[] = {5120, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, g[i], 13824, 40, 40, 128, 32000),
                   ref_training_n_params(40, g[i], 13824, 40, 40, 128, 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)g[i], (double)13824, (double)40, (double)40, (double)128, (double)32000);
  }
  { /* sweep f */
    static const int64_t g[] = {13824, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, 5120, g[i], 40, 40, 128, 32000),
                   ref_training_n_params(40, 5120, g[i], 40, 40, 128, 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)5120, (double)g[i], (double)40, (double)40, (double)128, (double)32000);
  }
  { /* sweep n */
    static const int64_t g[] = {40, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, 5120, 13824, g[i], 40, 128, 32000),
                   ref_training_n_params(40, 5120, 13824, g[i], 40, 128, 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)5120, (double)13824, (double)g[i], (double)40, (double)128, (double)32000);
  }
  { /* sweep k */
    static const int64_t g[] = {40, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, 5120, 13824, 40, g[i], 128, 32000),
                   ref_training_n_params(40, 5120, 13824, 40, g[i], 128, 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)5120, (double)13824, (double)40, (double)g[i], (double)128, (double)32000);
  }
  { /* sweep h */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, 5120, 13824, 40, 40, g[i], 32000),
                   ref_training_n_params(40, 5120, 13824, 40, 40, g[i], 32000), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)5120, (double)13824, (double)40, (double)40, (double)g[i], (double)32000);
  }
  { /* sweep v */
    static const int64_t g[] = {32000, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_training_n_params(40, 5120, 13824, 40, 40, 128, g[i]),
                   ref_training_n_params(40, 5120, 13824, 40, 40, 128, g[i]), "params",
                   "ex_training_n_params(%g, %g, %g, %g, %g, %g, %g)", (double)40, (double)5120, (double)13824, (double)40, (double)40, (double)128, (double)g[i]);
  }
}
END_TEST

/* ==== a decision exercise: a training layout (grading_train_layout.h) ======================= */

/* Through the contract's struct: the proxy of the student's function. */
static void training_layout_call(const train_instance *in, int64_t out[3]) {
  ex_train_layout l = ex_training_layout(
      in->n_params, in->n_heads, in->n_kv_heads, in->batch_tokens, in->seq_len, in->hbm_bytes,
      in->critical_batch_tokens, in->n_chips);
  out[0] = l.dp;
  out[1] = l.fsdp;
  out[2] = l.tp;
}

START_TEST(training_layout) {
  /* The arguments are the library's figures (scale_transformer_n_params, the model's heads,
   * the chip's HBM), checked whenever the costs are recorded; the critical batch is the
   * book's v5p figure C / W_ici = 4.59e14 / 1.8e11 = 2550 tokens (ch. 5). */
  static const train_instance in[] = {
      {"LLaMA 3 8B, 1M tokens on 256 v5p", "tpu-v5p", "llama-3-8b", 256, 1048576.0,
       4096.0, 8030261248.0, 32, 8, 96000000000.0, 2550.0},
      {"LLaMA 3 70B, 4M tokens on 2048 v5p", "tpu-v5p", "llama-3-70b", 2048, 4194304.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0},
      {"LLaMA 3 70B, 1M tokens on 2048 v5p", "tpu-v5p", "llama-3-70b", 2048, 1048576.0,
       4096.0, 70553706496.0, 64, 8, 96000000000.0, 2550.0}
  };
  static const train_instance none = {
      "LLaMA 3 405B, 1M tokens on 64 v5p", "tpu-v5p", "llama-3-405b", 64, 1048576.0,
      4096.0, 405853388800.0, 128, 8, 96000000000.0, 2550.0};
  grade_train_layouts(training_layout_call, "layout", in, N_OF(in), &none);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("05-training");
  grade_add(suite, "training.dp_critical_batch", training_dp_critical_batch);
  grade_add(suite, "training.max_pure_dp_params", training_max_pure_dp_params);
  grade_add(suite, "training.param_optimizer_bytes", training_param_optimizer_bytes);
  grade_add(suite, "training.checkpoint_bytes", training_checkpoint_bytes);
  grade_add(suite, "training.time_s", training_time_s);
  grade_add(suite, "training.tp_max_degree", training_tp_max_degree);
  grade_add(suite, "training.fsdp_tp_x_opt", training_fsdp_tp_x_opt);
  grade_add(suite, "training.fsdp_tp_critical_batch", training_fsdp_tp_critical_batch);
  grade_add(suite, "training.dcn_critical_batch", training_dcn_critical_batch);
  grade_add(suite, "training.n_params", training_n_params);
  grade_add(suite, "training.layout", training_layout);
  return grade_run(suite);
}
