/* test_04_transformers.c — grading of chapter 4's exercises
 * (exercises/04-transformers/transformers_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named; where exact arithmetic contradicts the book the exact value is tested and
 * the book's figure named), then the reference over a grid of inputs: each argument in turn
 * swept over typical values and its domain edges (0, negative, NaN) with the others fixed.
 * Book: jax-ml/scaling-book, transformers.md ("All the Transformer Math You Need to Know").
 */
#include "transformers_ex.h"

#include "grading.h"
#include "grading_ref_transformers.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(transformers_n_params) {
  /* Hand: per layer 3DF = 201,326,592, 4DNH = 67,108,864, D = 4096, sum 268,439,552; x 64 =
   * 17,180,131,328; + 2DV = 262,144,000 gives 17,442,275,328. The book prints "16e9": it rounds
   * D to 4e3 and F to 16e3 before multiplying (which gives 16.64e9). */
  GRADE_BOOK(ex_transformers_n_params(64, 4096, 16384, 32, 128, 32000), 17442275328.0, 1e-12,
             "params", "ch. 4 Question 1, exact (book prints 16e9 from rounded D, F)");
  GRADE_BOOK(ex_transformers_n_params(64, 4000, 16000, 32, 125, 32000), 16e9, 0.05, "params",
             "ch. 4 Question 1 with the book's rounded D = 4e3, F = 16e3: 16e9");
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(g[i], 4096, 16384, 32, 128, 32000),
                   ref_transformers_n_params(g[i], 4096, 16384, 32, 128, 32000), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)g[i], (double)4096, (double)16384, (double)32, (double)128, (double)32000);
  }
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(64, g[i], 16384, 32, 128, 32000),
                   ref_transformers_n_params(64, g[i], 16384, 32, 128, 32000), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)64, (double)g[i], (double)16384, (double)32, (double)128, (double)32000);
  }
  { /* sweep f */
    static const int64_t g[] = {16384, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(64, 4096, g[i], 32, 128, 32000),
                   ref_transformers_n_params(64, 4096, g[i], 32, 128, 32000), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)g[i], (double)32, (double)128, (double)32000);
  }
  { /* sweep n */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(64, 4096, 16384, g[i], 128, 32000),
                   ref_transformers_n_params(64, 4096, 16384, g[i], 128, 32000), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)g[i], (double)128, (double)32000);
  }
  { /* sweep h */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(64, 4096, 16384, 32, g[i], 32000),
                   ref_transformers_n_params(64, 4096, 16384, 32, g[i], 32000), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)g[i], (double)32000);
  }
  { /* sweep v */
    static const int64_t g[] = {32000, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_n_params(64, 4096, 16384, 32, 128, g[i]),
                   ref_transformers_n_params(64, 4096, 16384, 32, 128, g[i]), "params",
                   "ex_transformers_n_params(%g, %g, %g, %g, %g, %g)", (double)64, (double)4096, (double)16384, (double)32, (double)128, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_attention_param_frac) {
  /* Book: 4D^2 / (4D^2 + 12D^2) = 1/4. Hand for LLaMA 3 70B's D = 8192, F = 28,672, N H = 8192
   * (MHA): 32768 / (32768 + 86016) = 0.275862. */
  GRADE_BOOK(ex_transformers_attention_param_frac(4096, 16384, 32, 128), 0.25, 1e-12, "1",
             "ch. 4 Question 1: 1/4");
  GRADE_BOOK(ex_transformers_attention_param_frac(8192, 28672, 64, 128), 32768.0 / 118784.0, 1e-12,
             "1", "hand: 4D / (4D + 3F)");
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_param_frac(g[i], 16384, 32, 128),
                   ref_transformers_attention_param_frac(g[i], 16384, 32, 128), "1",
                   "ex_transformers_attention_param_frac(%g, %g, %g, %g)", (double)g[i], (double)16384, (double)32, (double)128);
  }
  { /* sweep f */
    static const int64_t g[] = {16384, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_param_frac(4096, g[i], 32, 128),
                   ref_transformers_attention_param_frac(4096, g[i], 32, 128), "1",
                   "ex_transformers_attention_param_frac(%g, %g, %g, %g)", (double)4096, (double)g[i], (double)32, (double)128);
  }
  { /* sweep n */
    static const int64_t g[] = {32, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_param_frac(4096, 16384, g[i], 128),
                   ref_transformers_attention_param_frac(4096, 16384, g[i], 128), "1",
                   "ex_transformers_attention_param_frac(%g, %g, %g, %g)", (double)4096, (double)16384, (double)g[i], (double)128);
  }
  { /* sweep h */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_param_frac(4096, 16384, 32, g[i]),
                   ref_transformers_attention_param_frac(4096, 16384, 32, g[i]), "1",
                   "ex_transformers_attention_param_frac(%g, %g, %g, %g)", (double)4096, (double)16384, (double)32, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_kv_cache_bytes) {
  /* Book Question 1: 2 L N H = 2 x 64 x 4096 int8 bytes per token = 524,288 ("512kB"). KV
   * section: 2 x 8192 x 64 x 8192 bytes = 8,589,934,592 = 8 GiB. bf16 doubles it. */
  GRADE_BOOK(ex_transformers_kv_cache_bytes(1, 64, 32, 128, 1.0), 524288.0, 1e-12, "byte",
             "ch. 4 Question 1: 512kB / token");
  GRADE_BOOK(ex_transformers_kv_cache_bytes(8192, 64, 64, 128, 1.0), 8589934592.0, 1e-12, "byte",
             "ch. 4 KV caching: 8GiB");
  GRADE_BOOK(ex_transformers_kv_cache_bytes(8192, 64, 64, 128, 2.0), 17179869184.0, 1e-12, "byte",
             "hand: bf16 is twice int8");
  { /* sweep s */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_kv_cache_bytes(g[i], 64, 8, 128, 1.0),
                   ref_transformers_kv_cache_bytes(g[i], 64, 8, 128, 1.0), "byte",
                   "ex_transformers_kv_cache_bytes(%g, %g, %g, %g, %g)", (double)g[i], (double)64, (double)8, (double)128, (double)1.0);
  }
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_kv_cache_bytes(8192, g[i], 8, 128, 1.0),
                   ref_transformers_kv_cache_bytes(8192, g[i], 8, 128, 1.0), "byte",
                   "ex_transformers_kv_cache_bytes(%g, %g, %g, %g, %g)", (double)8192, (double)g[i], (double)8, (double)128, (double)1.0);
  }
  { /* sweep k */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_kv_cache_bytes(8192, 64, g[i], 128, 1.0),
                   ref_transformers_kv_cache_bytes(8192, 64, g[i], 128, 1.0), "byte",
                   "ex_transformers_kv_cache_bytes(%g, %g, %g, %g, %g)", (double)8192, (double)64, (double)g[i], (double)128, (double)1.0);
  }
  { /* sweep h */
    static const int64_t g[] = {128, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_kv_cache_bytes(8192, 64, 8, g[i], 1.0),
                   ref_transformers_kv_cache_bytes(8192, 64, 8, g[i], 1.0), "byte",
                   "ex_transformers_kv_cache_bytes(%g, %g, %g, %g, %g)", (double)8192, (double)64, (double)8, (double)g[i], (double)1.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {1.0, 2.5, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_kv_cache_bytes(8192, 64, 8, 128, g[i]),
                   ref_transformers_kv_cache_bytes(8192, 64, 8, 128, g[i]), "byte",
                   "ex_transformers_kv_cache_bytes(%g, %g, %g, %g, %g)", (double)8192, (double)64, (double)8, (double)128, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_sharded_matmul_flops_per_device) {
  /* Hand, B = 1024, D = 8192, F = 32768 on X = 4, Y = 8: 2 x 2^10 x 2^13 x 2^15 / 2^5 =
   * 2^34 = 17,179,869,184. */
  GRADE_BOOK(ex_transformers_sharded_matmul_flops_per_device(1024, 8192, 32768, 4, 8),
             17179869184.0, 1e-12, "FLOP", "ch. 4 Question 2: 2BDF / (XY)");
  GRADE_BOOK(ex_transformers_sharded_matmul_flops_per_device(3, 5, 7, 1, 1), 210.0, 1e-12, "FLOP",
             "hand: unsharded 2BDF");
  { /* sweep b */
    static const int64_t g[] = {1024, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_flops_per_device(g[i], 8192, 32768, 4, 8),
                   ref_transformers_sharded_matmul_flops_per_device(g[i], 8192, 32768, 4, 8), "FLOP",
                   "ex_transformers_sharded_matmul_flops_per_device(%g, %g, %g, %g, %g)", (double)g[i], (double)8192, (double)32768, (double)4, (double)8);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_flops_per_device(1024, g[i], 32768, 4, 8),
                   ref_transformers_sharded_matmul_flops_per_device(1024, g[i], 32768, 4, 8), "FLOP",
                   "ex_transformers_sharded_matmul_flops_per_device(%g, %g, %g, %g, %g)", (double)1024, (double)g[i], (double)32768, (double)4, (double)8);
  }
  { /* sweep f */
    static const int64_t g[] = {32768, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_flops_per_device(1024, 8192, g[i], 4, 8),
                   ref_transformers_sharded_matmul_flops_per_device(1024, 8192, g[i], 4, 8), "FLOP",
                   "ex_transformers_sharded_matmul_flops_per_device(%g, %g, %g, %g, %g)", (double)1024, (double)8192, (double)g[i], (double)4, (double)8);
  }
  { /* sweep x */
    static const int64_t g[] = {4, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_flops_per_device(1024, 8192, 32768, g[i], 8),
                   ref_transformers_sharded_matmul_flops_per_device(1024, 8192, 32768, g[i], 8), "FLOP",
                   "ex_transformers_sharded_matmul_flops_per_device(%g, %g, %g, %g, %g)", (double)1024, (double)8192, (double)32768, (double)g[i], (double)8);
  }
  { /* sweep y */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_flops_per_device(1024, 8192, 32768, 4, g[i]),
                   ref_transformers_sharded_matmul_flops_per_device(1024, 8192, 32768, 4, g[i]), "FLOP",
                   "ex_transformers_sharded_matmul_flops_per_device(%g, %g, %g, %g, %g)", (double)1024, (double)8192, (double)32768, (double)4, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_sharded_matmul_total_flops) {
  /* Hand: 2 x 2^10 x 2^13 x 2^15 x 4 = 2^41 = 2,199,023,255,552. */
  GRADE_BOOK(ex_transformers_sharded_matmul_total_flops(1024, 8192, 32768, 4), 2199023255552.0,
             1e-12, "FLOP", "ch. 4 Question 2: 2BDF Z");
  { /* sweep b */
    static const int64_t g[] = {1024, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_total_flops(g[i], 8192, 32768, 4),
                   ref_transformers_sharded_matmul_total_flops(g[i], 8192, 32768, 4), "FLOP",
                   "ex_transformers_sharded_matmul_total_flops(%g, %g, %g, %g)", (double)g[i], (double)8192, (double)32768, (double)4);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_total_flops(1024, g[i], 32768, 4),
                   ref_transformers_sharded_matmul_total_flops(1024, g[i], 32768, 4), "FLOP",
                   "ex_transformers_sharded_matmul_total_flops(%g, %g, %g, %g)", (double)1024, (double)g[i], (double)32768, (double)4);
  }
  { /* sweep f */
    static const int64_t g[] = {32768, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_total_flops(1024, 8192, g[i], 4),
                   ref_transformers_sharded_matmul_total_flops(1024, 8192, g[i], 4), "FLOP",
                   "ex_transformers_sharded_matmul_total_flops(%g, %g, %g, %g)", (double)1024, (double)8192, (double)g[i], (double)4);
  }
  { /* sweep z */
    static const int64_t g[] = {4, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_sharded_matmul_total_flops(1024, 8192, 32768, g[i]),
                   ref_transformers_sharded_matmul_total_flops(1024, 8192, 32768, g[i]), "FLOP",
                   "ex_transformers_sharded_matmul_total_flops(%g, %g, %g, %g)", (double)1024, (double)8192, (double)32768, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_contraction_flops) {
  /* Hand: 2 x 2 x 3 x 5 x 7 x 11 x 13 x 17 = 2 x 510,510 = 1,021,020; with every axis 64:
   * 2 x 64^7 = 8,796,093,022,208 (overflows 32-bit ints; exact in double). */
  GRADE_BOOK(ex_transformers_contraction_flops(2, 3, 5, 7, 11, 13, 17), 1021020.0, 1e-12, "FLOP",
             "ch. 4 Question 3: 2 IJKLMNO");
  GRADE_BOOK(ex_transformers_contraction_flops(64, 64, 64, 64, 64, 64, 64), 8796093022208.0, 1e-12,
             "FLOP", "hand: 2 x 64^7");
  { /* sweep i */
    static const int64_t g[] = {2, 1, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(g[i], 3, 5, 7, 11, 13, 17),
                   ref_transformers_contraction_flops(g[i], 3, 5, 7, 11, 13, 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)g[i], (double)3, (double)5, (double)7, (double)11, (double)13, (double)17);
  }
  { /* sweep j */
    static const int64_t g[] = {3, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, g[i], 5, 7, 11, 13, 17),
                   ref_transformers_contraction_flops(2, g[i], 5, 7, 11, 13, 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)g[i], (double)5, (double)7, (double)11, (double)13, (double)17);
  }
  { /* sweep k */
    static const int64_t g[] = {5, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, 3, g[i], 7, 11, 13, 17),
                   ref_transformers_contraction_flops(2, 3, g[i], 7, 11, 13, 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)3, (double)g[i], (double)7, (double)11, (double)13, (double)17);
  }
  { /* sweep l */
    static const int64_t g[] = {7, 1, 2, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, 3, 5, g[i], 11, 13, 17),
                   ref_transformers_contraction_flops(2, 3, 5, g[i], 11, 13, 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)3, (double)5, (double)g[i], (double)11, (double)13, (double)17);
  }
  { /* sweep m */
    static const int64_t g[] = {11, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, 3, 5, 7, g[i], 13, 17),
                   ref_transformers_contraction_flops(2, 3, 5, 7, g[i], 13, 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)3, (double)5, (double)7, (double)g[i], (double)13, (double)17);
  }
  { /* sweep n */
    static const int64_t g[] = {13, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, 3, 5, 7, 11, g[i], 17),
                   ref_transformers_contraction_flops(2, 3, 5, 7, 11, g[i], 17), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)3, (double)5, (double)7, (double)11, (double)g[i], (double)17);
  }
  { /* sweep o */
    static const int64_t g[] = {17, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_contraction_flops(2, 3, 5, 7, 11, 13, g[i]),
                   ref_transformers_contraction_flops(2, 3, 5, 7, 11, 13, g[i]), "FLOP",
                   "ex_transformers_contraction_flops(%g, %g, %g, %g, %g, %g, %g)", (double)2, (double)3, (double)5, (double)7, (double)11, (double)13, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_attention_intensity_flops_per_byte) {
  /* Book: prefill S = T gives TG / (G + 1): T = 4096, G = 8: 32768 / 9 = 3640.89. Generation
   * T = 1 gives SG / (G + S): S = 8192, G = 8: 65536 / 8200 = 7.99220, tending to G. The book's
   * "compute bound at S=240" reads TG / (G + 1) as T; exactly, at T = S = 240, G = 8 the intensity
   * is 1920 / 9 = 213.3. */
  GRADE_BOOK(ex_transformers_attention_intensity_flops_per_byte(4096, 4096, 8), 32768.0 / 9.0,
             1e-12, "FLOP/byte", "ch. 4 Question 4: prefill TG / (G + 1)");
  GRADE_BOOK(ex_transformers_attention_intensity_flops_per_byte(1, 8192, 8), 65536.0 / 8200.0,
             1e-12, "FLOP/byte", "ch. 4 Question 4: generation SG / (G + S)");
  GRADE_BOOK(ex_transformers_attention_intensity_flops_per_byte(1, 1000000000, 8), 8.0, 1e-6,
             "FLOP/byte", "ch. 4 Question 4: tends to G for large S");
  GRADE_BOOK(ex_transformers_attention_intensity_flops_per_byte(240, 240, 8), 1920.0 / 9.0, 1e-12,
             "FLOP/byte", "hand: T = S = 240 (the book's 'S=240' reads TG/(G+1) as T)");
  { /* sweep t */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_intensity_flops_per_byte(g[i], 4096, 8),
                   ref_transformers_attention_intensity_flops_per_byte(g[i], 4096, 8), "FLOP/byte",
                   "ex_transformers_attention_intensity_flops_per_byte(%g, %g, %g)", (double)g[i], (double)4096, (double)8);
  }
  { /* sweep s */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_intensity_flops_per_byte(4096, g[i], 8),
                   ref_transformers_attention_intensity_flops_per_byte(4096, g[i], 8), "FLOP/byte",
                   "ex_transformers_attention_intensity_flops_per_byte(%g, %g, %g)", (double)4096, (double)g[i], (double)8);
  }
  { /* sweep g */
    static const int64_t g[] = {8, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_intensity_flops_per_byte(4096, 4096, g[i]),
                   ref_transformers_attention_intensity_flops_per_byte(4096, 4096, g[i]), "FLOP/byte",
                   "ex_transformers_attention_intensity_flops_per_byte(%g, %g, %g)", (double)4096, (double)4096, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_attention_equals_qkvo_tokens) {
  /* Book: D = 4096 gives 8192. */
  GRADE_BOOK(ex_transformers_attention_equals_qkvo_tokens(4096), 8192.0, 1e-12, "tokens",
             "ch. 4 Question 5: 2D = 8192");
  { /* sweep d */
    static const int64_t g[] = {4096, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_equals_qkvo_tokens(g[i]),
                   ref_transformers_attention_equals_qkvo_tokens(g[i]), "tokens",
                   "ex_transformers_attention_equals_qkvo_tokens(%g)", (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_attention_flops_ratio) {
  /* Book: T / (8D); at T = 8D = 65,536 (~64K) for D = 8192 the ratio is 1; T = 16384 gives 1/4;
   * Gemma-27B's D = 4608 crosses 1 at 36,864 ("around 32k"). */
  GRADE_BOOK(ex_transformers_attention_flops_ratio(65536, 8192), 1.0, 1e-12, "1",
             "ch. 4: attention dominates once T > 8D (~64K for D ~ 8k)");
  GRADE_BOOK(ex_transformers_attention_flops_ratio(16384, 8192), 0.25, 1e-12, "1",
             "hand: T / (8D)");
  GRADE_BOOK(ex_transformers_attention_flops_ratio(36864, 4608), 1.0, 1e-12, "1",
             "ch. 4: Gemma-27B D = 4608 (book: around 32k)");
  { /* sweep t */
    static const int64_t g[] = {16384, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_flops_ratio(g[i], 8192),
                   ref_transformers_attention_flops_ratio(g[i], 8192), "1",
                   "ex_transformers_attention_flops_ratio(%g, %g)", (double)g[i], (double)8192);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_attention_flops_ratio(16384, g[i]),
                   ref_transformers_attention_flops_ratio(16384, g[i]), "1",
                   "ex_transformers_attention_flops_ratio(%g, %g)", (double)16384, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_train_flops) {
  /* Book Question 7: 6 x 37e9 x 14.8e12 = 3.2856e24, printed "3.3e24"; ch. 6: 6 x 70e9 x 15e12
   * = 6.3e24. */
  GRADE_BOOK(ex_transformers_train_flops(37e9, 14.8e12), 3.2856e24, 1e-12, "FLOP",
             "hand: 6 x 37e9 x 14.8e12");
  GRADE_BOOK(ex_transformers_train_flops(37e9, 14.8e12), 3.3e24, 0.01, "FLOP",
             "ch. 4 Question 7: 3.3e24");
  GRADE_BOOK(ex_transformers_train_flops(70e9, 15e12), 6.3e24, 1e-12, "FLOP",
             "ch. 6: 6.3e24");
  { /* sweep n_params */
    static const double g[] = {37000000000.0, 92500000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_train_flops(g[i], 14800000000000.0),
                   ref_transformers_train_flops(g[i], 14800000000000.0), "FLOP",
                   "ex_transformers_train_flops(%g, %g)", (double)g[i], (double)14800000000000.0);
  }
  { /* sweep n_tokens */
    static const double g[] = {14800000000000.0, 37000000000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_train_flops(37000000000.0, g[i]),
                   ref_transformers_train_flops(37000000000.0, g[i]), "FLOP",
                   "ex_transformers_train_flops(%g, %g)", (double)37000000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_mfu_frac) {
  /* Hand: 2.79e6 h x 3600 s/h = 1.0044e10 chip-seconds; x 1.513e15 = 1.5196572e25 FLOPs
   * (book: 1.52e25); 3.2856e24 / 1.5196572e25 = 0.216207. The book prints 21.7%, the ratio of
   * its rounded 3.3e24 / 1.52e25: we test the exact value. */
  GRADE_BOOK(ex_transformers_mfu_frac(3.2856e24, 2.79e6 * 3600.0, 1.513e15),
             3.2856e24 / 1.5196572e25, 1e-9, "1", "ch. 4 Question 7 exact 21.62% (book 21.7%)");
  { /* sweep model_flops */
    static const double g[] = {3.2856e+24, 8.213999999999999e+24, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_mfu_frac(g[i], 10044000000.0, 1513000000000000.0),
                   ref_transformers_mfu_frac(g[i], 10044000000.0, 1513000000000000.0), "1",
                   "ex_transformers_mfu_frac(%g, %g, %g)", (double)g[i], (double)10044000000.0, (double)1513000000000000.0);
  }
  { /* sweep chip_time_s */
    static const double g[] = {10044000000.0, 25110000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_mfu_frac(3.2856e+24, g[i], 1513000000000000.0),
                   ref_transformers_mfu_frac(3.2856e+24, g[i], 1513000000000000.0), "1",
                   "ex_transformers_mfu_frac(%g, %g, %g)", (double)3.2856e+24, (double)g[i], (double)1513000000000000.0);
  }
  { /* sweep flops_per_s */
    static const double g[] = {1513000000000000.0, 3782500000000000.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_mfu_frac(3.2856e+24, 10044000000.0, g[i]),
                   ref_transformers_mfu_frac(3.2856e+24, 10044000000.0, g[i]), "1",
                   "ex_transformers_mfu_frac(%g, %g, %g)", (double)3.2856e+24, (double)10044000000.0, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_activation_bytes) {
  /* Hand: 2 x 20 x 4e6 x 8192 x 64 = 8.388608e13 (book: "84TB"); block remat saves one:
   * 4.194304e12 (book: "4.2TB"). */
  GRADE_BOOK(ex_transformers_activation_bytes(4e6, 8192, 64, 20.0, 2.0), 8.388608e13, 1e-12, "byte",
             "ch. 4 gradient checkpointing: 84TB");
  GRADE_BOOK(ex_transformers_activation_bytes(4e6, 8192, 64, 1.0, 2.0), 4.194304e12, 1e-12, "byte",
             "ch. 4 block remat: 4.2TB");
  { /* sweep n_tokens */
    static const double g[] = {4000000.0, 10000000.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_activation_bytes(g[i], 8192, 64, 20.0, 2.0),
                   ref_transformers_activation_bytes(g[i], 8192, 64, 20.0, 2.0), "byte",
                   "ex_transformers_activation_bytes(%g, %g, %g, %g, %g)", (double)g[i], (double)8192, (double)64, (double)20.0, (double)2.0);
  }
  { /* sweep d */
    static const int64_t g[] = {8192, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_activation_bytes(4000000.0, g[i], 64, 20.0, 2.0),
                   ref_transformers_activation_bytes(4000000.0, g[i], 64, 20.0, 2.0), "byte",
                   "ex_transformers_activation_bytes(%g, %g, %g, %g, %g)", (double)4000000.0, (double)g[i], (double)64, (double)20.0, (double)2.0);
  }
  { /* sweep l */
    static const int64_t g[] = {64, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_activation_bytes(4000000.0, 8192, g[i], 20.0, 2.0),
                   ref_transformers_activation_bytes(4000000.0, 8192, g[i], 20.0, 2.0), "byte",
                   "ex_transformers_activation_bytes(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192, (double)g[i], (double)20.0, (double)2.0);
  }
  { /* sweep n_saved_per_layer */
    static const double g[] = {20.0, 50.0, 0.0, 1.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_activation_bytes(4000000.0, 8192, 64, g[i], 2.0),
                   ref_transformers_activation_bytes(4000000.0, 8192, 64, g[i], 2.0), "byte",
                   "ex_transformers_activation_bytes(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192, (double)64, (double)g[i], (double)2.0);
  }
  { /* sweep bytes_per_element */
    static const double g[] = {2.0, 5.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_activation_bytes(4000000.0, 8192, 64, 20.0, g[i]),
                   ref_transformers_activation_bytes(4000000.0, 8192, 64, 20.0, g[i]), "byte",
                   "ex_transformers_activation_bytes(%g, %g, %g, %g, %g)", (double)4000000.0, (double)8192, (double)64, (double)20.0, (double)g[i]);
  }
}
END_TEST

START_TEST(transformers_moe_critical_batch) {
  /* Book: 120 x 256 / 8 = 3840 (also in libscale's evidence test_transformer_book.c). */
  GRADE_BOOK(ex_transformers_moe_critical_batch(120.0, 256, 8), 3840.0, 1e-12, "tokens",
             "ch. 4 MoE: 120 E / k = 3840");
  GRADE_BOOK(ex_transformers_moe_critical_batch(240.0, 16, 2), 1920.0, 1e-12, "tokens",
             "hand: ch. 7 Question 5's E = 16, k = 2 with bf16 weights");
  { /* sweep dense_critical_batch */
    static const double g[] = {120.0, 300.0, 1.0, 0.0, -1.0, NAN};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_moe_critical_batch(g[i], 256, 8),
                   ref_transformers_moe_critical_batch(g[i], 256, 8), "tokens",
                   "ex_transformers_moe_critical_batch(%g, %g, %g)", (double)g[i], (double)256, (double)8);
  }
  { /* sweep n_experts */
    static const int64_t g[] = {256, 1, 2, 7, 0, -3};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_moe_critical_batch(120.0, g[i], 8),
                   ref_transformers_moe_critical_batch(120.0, g[i], 8), "tokens",
                   "ex_transformers_moe_critical_batch(%g, %g, %g)", (double)120.0, (double)g[i], (double)8);
  }
  { /* sweep n_active */
    static const int64_t g[] = {8, 1, 256, 257, 0, -1};
    for (size_t i = 0; i < N_OF(g); i++)
      GRADE_VS_REF(ex_transformers_moe_critical_batch(120.0, 256, g[i]),
                   ref_transformers_moe_critical_batch(120.0, 256, g[i]), "tokens",
                   "ex_transformers_moe_critical_batch(%g, %g, %g)", (double)120.0, (double)256, (double)g[i]);
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("04-transformers");
  grade_add(suite, "transformers.n_params", transformers_n_params);
  grade_add(suite, "transformers.attention_param_frac", transformers_attention_param_frac);
  grade_add(suite, "transformers.kv_cache_bytes", transformers_kv_cache_bytes);
  grade_add(suite, "transformers.sharded_matmul_flops_per_device", transformers_sharded_matmul_flops_per_device);
  grade_add(suite, "transformers.sharded_matmul_total_flops", transformers_sharded_matmul_total_flops);
  grade_add(suite, "transformers.contraction_flops", transformers_contraction_flops);
  grade_add(suite, "transformers.attention_intensity_flops_per_byte", transformers_attention_intensity_flops_per_byte);
  grade_add(suite, "transformers.attention_equals_qkvo_tokens", transformers_attention_equals_qkvo_tokens);
  grade_add(suite, "transformers.attention_flops_ratio", transformers_attention_flops_ratio);
  grade_add(suite, "transformers.train_flops", transformers_train_flops);
  grade_add(suite, "transformers.mfu_frac", transformers_mfu_frac);
  grade_add(suite, "transformers.activation_bytes", transformers_activation_bytes);
  grade_add(suite, "transformers.moe_critical_batch", transformers_moe_critical_batch);
  return grade_run(suite);
}
