/* test_transformer_book.c — evidence: every answered problem and worked example of the book's
 * ch. 4 "All the Transformer Math You Need to Know", the parameter and FLOP counts of ch. 6
 * (LLaMA 3 70B) and ch. 7 (LLaMA 2 13B), the KV cache sizes of ch. 7-8, the parameter counts
 * of every shipped model against its publisher, and the Mamba-2 and per-device block results
 * of Amer et al. (arXiv 2602.09109) section 5.
 *
 * The book's hyperparameter tables are typed here as hand-built models, so these tests do not
 * depend on models/NAME.ini; the last cases load the shipped files. Where the book prints a
 * number that exact arithmetic contradicts, the test computes the exact value and names the
 * book's figure; the tolerance of a book figure is its printed precision.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale.h"
#include "scale_check.h"

#define EXACT 1e-12

static scale_model dense(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                         int64_t v) {
  scale_model m;
  memset(&m, 0, sizeof m);
  m.arch = SCALE_ARCH_TRANSFORMER;
  m.n_layers = l;
  m.d_model = d;
  m.d_ff = f;
  m.gated_mlp = true;
  m.n_heads = n;
  m.n_kv_heads = k;
  m.d_head = h;
  m.n_vocab = v;
  return m;
}

/* ch. 4 Q1: D 4096, F 4D, V 32000, L 64, NH = D, MHA (N = 32, H = 128; any N with NH = D
 * gives the same counts). */
static scale_model q1_model(void) { return dense(64, 4096, 4 * 4096, 32, 32, 128, 32000); }

/* ch. 6 "Training LLaMA 3 on TPUs", LLaMA 3 70B table: L 80, D 8192, F 28672, N 64, K 8,
 * H 128, V 128256. */
static scale_model llama3_70b(void) { return dense(80, 8192, 28672, 64, 8, 128, 128256); }

/* ch. 7 "All About Transformer Inference", LLaMA 2 13B table: L 40, D 5120, F/D 2.7
 * (F = 13824), N = K = 40, H 128, V 32000. */
static scale_model llama2_13b(void) { return dense(40, 5120, 13824, 40, 40, 128, 32000); }

/* ---- ch. 4 problems ---------------------------------------------------------------------------
 */

START_TEST(test_q1_params_and_kv) {
  scale_model m = q1_model();
  /* Exact, by hand: per layer 3DF = 201,326,592, 4DNH = 67,108,864, norms 2D = 8192, sum
   * 268,443,648; x 64 = 17,180,393,472; + 2DV 262,144,000 + final norm 4096
   * = 17,442,541,568. The book prints "16e9": it rounds D to 4e3 and F to 16e3 first. */
  scale_check_rel(scale_transformer_n_params(&m), 17442541568.0, EXACT, "params",
                  "ch.4 Q1 exact (book prints 16e9 from rounded D, F)");
  /* the book's 16e9 is what the same formula gives for D = 4000, F = 16000 (16.64e9, printed
   * to one significant figure pair as 16e9) */
  scale_model rounded = dense(64, 4000, 16000, 32, 32, 125, 32000);
  scale_check_rel(scale_transformer_n_params(&rounded), 16e9, 0.05, "params",
                  "ch.4 Q1 book figure 16e9 (rounded inputs)");
  /* attention share of the layer's parameters: 4DNH / (4DNH + 3DF) = 1/4 */
  double attn = scale_transformer_n_attention_params(&m), mlp = scale_transformer_n_mlp_params(&m);
  scale_check_rel(attn / (attn + mlp), 0.25, EXACT, "1", "ch.4 Q1: 1/4 of the parameters");
  /* KV cache per token in int8: 2 L N H = 2 * 64 * 4096 = 524,288 bytes = 512 KiB */
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT8), 524288.0, EXACT,
                  "bytes", "ch.4 Q1: 512kB / token");
}
END_TEST

START_TEST(test_q2_sharded_matmul) {
  /* A[B_X, D_Y] *_D W[D_Y, F] on {X: 4, Y: 8, Z: 4}: the theoretical FLOPs are 2BDF; the
   * computation is replicated over Z, so 2BDF Z are performed, 2BDF/(XY) per device.
   * B, D, F are symbolic in the book; take B 1024, D 8192, F 32768. */
  double b = 1024, d = 8192, f = 32768, x = 4, y = 8, z = 4;
  double theory = scale_transformer_matmul_flops(b, d, f);
  scale_check_rel(theory, 2.0 * 1024 * 8192 * 32768, EXACT, "FLOP", "ch.4 Q2: 2BDF");
  scale_check_rel(theory * z / (x * y * z), 2.0 * b * d * f / (x * y), EXACT, "FLOP",
                  "ch.4 Q2: 2BDF/(XY) per device");
}
END_TEST

START_TEST(test_q3_contraction) {
  /* A[I,J,K,L] * B[I,J,M,N,O] -> C[K,L,M,N,O]: I, J contracting, no batch: 2 IJKLMNO */
  const double sizes[] = {2, 3, 5, 7, 11, 13, 17};
  scale_check_rel(scale_transformer_einsum_flops("IJKL,IJMNO->KLMNO", sizes),
                  2.0 * 2 * 3 * 5 * 7 * 11 * 13 * 17, EXACT, "FLOP", "ch.4 Q3: 2 IJKLMNO");
  /* "If we had a shared axis, it would only be counted once": I kept in the output */
  scale_check_rel(scale_transformer_einsum_flops("IJKL,IJMNO->IKLMNO", sizes),
                  2.0 * 2 * 3 * 5 * 7 * 11 * 13 * 17, EXACT, "FLOP",
                  "ch.4 Q3: a batch axis counted once");
}
END_TEST

START_TEST(test_q4_attention_intensity) {
  scale_model m = llama3_70b(); /* G = 64/8 = 8 */
  /* prefill, S = T: TG/(G+1) = 4096 * 8/9 */
  scale_check_rel(
      scale_transformer_attention_intensity_flops_per_byte(&m, 4096, 4096, SCALE_DTYPE_BF16),
      4096.0 * 8 / 9, EXACT, "FLOP/byte", "ch.4 Q4 prefill TG/(G+1)");
  /* generation, T = 1: SG/(G+S) -> G */
  scale_check_rel(
      scale_transformer_attention_intensity_flops_per_byte(&m, 1, 8192, SCALE_DTYPE_BF16),
      8192.0 * 8 / (8 + 8192), EXACT, "FLOP/byte", "ch.4 Q4 generation SG/(G+S)");
  scale_check_rel(
      scale_transformer_attention_intensity_flops_per_byte(&m, 1, 1e9, SCALE_DTYPE_BF16), 8.0, 1e-6,
      "FLOP/byte", "ch.4 Q4: -> G for large S");
  /* the book's "compute bound at S=240" reads TG/(G+1) as T; exactly, intensity 240 is
   * reached at T = 240 (G+1)/G = 270 for G = 8 */
  scale_check_rel(
      scale_transformer_attention_intensity_flops_per_byte(&m, 270, 270, SCALE_DTYPE_BF16), 240.0,
      EXACT, "FLOP/byte", "ch.4 Q4: 240 at T = 270 for G = 8 (book: S=240)");
}
END_TEST

START_TEST(test_q5_attention_equals_projections) {
  scale_model m = dense(32, 4096, 4 * 4096, 32, 32, 128, 32000); /* MHA, D = NH = 4096 */
  scale_check_rel(scale_transformer_n_tokens_attention_equals_qkvo(&m), 8192.0, EXACT, "tokens",
                  "ch.4 Q5: T = 2D = 8192 for D = 4096");
  /* at T = 2D the two are equal, per layer and in training */
  scale_check_rel(scale_transformer_attention_flops(&m, 1, 8192, 8192, false, SCALE_PASS_TRAIN),
                  scale_transformer_qkvo_flops(&m, 8192, SCALE_PASS_TRAIN), EXACT, "FLOP",
                  "ch.4 Q5: 12BT^2NH = 24BTDNH");
}
END_TEST

START_TEST(test_q6_remat_big_matmuls) {
  /* saving only the 7 big matmul outputs recomputes QK^T and softmax(QK^T)V: 4 B T^2 N H
   * per layer. Q1's model, B 2, T 4096: 64 layers * 4 * 2 * 4096^2 * 32 * 128 */
  scale_model m = q1_model();
  scale_check_rel(scale_transformer_remat_extra_flops(&m, 2, 4096, false, SCALE_REMAT_BIG_MATMULS),
                  64.0 * 4 * 2 * 4096.0 * 4096.0 * 32 * 128, EXACT, "FLOP",
                  "ch.4 Q6: 4BT^2NH per layer");
}
END_TEST

START_TEST(test_q7_deepseek_mfu) {
  /* 6 * 37e9 * 14.8e12 = 3.2856e24 FLOPs (book: 3.3e24) over 2.79e6 H800 hours at 1.513e15
   * FLOP/s = 1.5196572e25 (book: 1.52e25): MFU 0.21620. The book prints 21.7%, the ratio of its
   * rounded figures 3.3e24 / 1.52e25; exact arithmetic gives 21.6%. */
  double flops = scale_transformer_dense_flops(37e9, 14.8e12, SCALE_PASS_TRAIN);
  scale_check_rel(flops, 3.2856e24, EXACT, "FLOP", "6 x 37e9 x 14.8e12");
  scale_check_rel(flops, 3.3e24, 0.01, "FLOP", "ch.4 Q7 book: 3.3e24");
  double available = 2.79e6 * SCALE_SECONDS_PER_HOUR * 1.513e15;
  scale_check_rel(flops / available, 3.2856e24 / 1.5196572e25, 1e-9, "1",
                  "ch.4 Q7 exact 21.62% (book prints 21.7%)");
  scale_check_rel(flops / available, 0.217, 0.005, "1", "ch.4 Q7 book figure 21.7%");
}
END_TEST

START_TEST(test_q8_moe_batch) {
  /* DeepSeek: E 256 routed experts, k 8: B > 120 E/k = 3840 for int8 weights on v5e */
  scale_model m = dense(61, 7168, 18432, 128, 128, 192, 129280);
  m.n_experts = 256;
  m.n_experts_active = 8;
  m.n_shared_experts = 1;
  m.d_ff_expert = 2048;
  m.n_dense_layers = 3;
  scale_check_rel(scale_transformer_moe_sparsity(&m), 32.0, EXACT, "1", "E/k = 256/8");
  scale_check_rel(scale_transformer_moe_critical_batch(&m, 120), 3840.0, EXACT, "tokens",
                  "ch.4 Q8: 120 x 256/8 = 3840");
  /* the 120 is v5e's 1.97e14 / 8.2e11 = 240.2 FLOP/byte halved for 1-byte weights; unrounded
   * the threshold is 3844 */
  scale_check_rel(scale_transformer_moe_critical_batch(&m, 1.97e14 / 8.2e11 / 2), 3840.0, 0.002,
                  "tokens", "ch.4 Q8 from the v5e ratio (3844 unrounded)");
}
END_TEST

/* ---- ch. 4 worked examples in the text --------------------------------------------------------
 */

START_TEST(test_text_rule_of_thumb) {
  scale_model m = q1_model();
  m.n_vocab = 0; /* layers only */
  /* without attention, training FLOPs are 6 x (matmul params) x tokens: 18BTDF + 24BTDNH */
  double tokens = 1e6;
  double matmul_params = 64.0 * (3.0 * 4096 * 16384 + 4.0 * 4096 * 4096);
  double attention = 64 * scale_transformer_attention_flops(&m, 1, 1, 1, false, SCALE_PASS_TRAIN);
  scale_check_rel(scale_transformer_flops(&m, tokens, 1, false, SCALE_PASS_TRAIN) -
                      tokens * attention,
                  6.0 * matmul_params * tokens, EXACT, "FLOP",
                  "ch.4: (18BTDF + 24BTDNH) L = 6 x tokens x params");
}
END_TEST

START_TEST(test_text_attention_fraction) {
  /* F = 4D, D = NH, N = K: attention / matmul FLOPs = T/(8D); dominant beyond 8D = 64K
   * tokens for D = 8192 */
  scale_model m = dense(80, 8192, 4 * 8192, 64, 64, 128, 128256);
  scale_check_rel(scale_transformer_attention_flops_ratio(&m, 16384, false), 16384.0 / 65536.0,
                  EXACT, "1", "ch.4: T/(8D)");
  scale_check_rel(scale_transformer_n_tokens_attention_dominates(&m), 65536.0, EXACT, "tokens",
                  "ch.4: T > 8D, ~64K tokens for D ~ 8k");
  /* "Gemma-27B, D=4608 ... attention becomes dominant around 32k": the rule gives
   * 8D = 36,864. Gemma 2 27B's real shape (NH = 4096, K = 16, F = 8D) pushes it further:
   * matmul FLOPs per token 2(2D(N+K)H + 3DF) = 2(56,623,104 + 509,607,936) = 1,132,462,080;
   * attention per token per unit T 4NH = 16,384; T = 69,120. */
  scale_model rule = dense(46, 4608, 4 * 4608, 36, 36, 128, 256000);
  scale_check_rel(scale_transformer_n_tokens_attention_dominates(&rule), 36864.0, EXACT, "tokens",
                  "ch.4: 8D for D = 4608 (book: around 32k)");
  scale_model gemma = dense(46, 4608, 36864, 32, 16, 128, 256000);
  scale_check_rel(scale_transformer_n_tokens_attention_dominates(&gemma), 69120.0, EXACT, "tokens",
                  "Gemma 2 27B's own shape");
}
END_TEST

START_TEST(test_text_checkpointing) {
  /* B T = 4M tokens (the book takes 4e6), L 64, D 8192, bf16 */
  scale_model m = dense(64, 8192, 4 * 8192, 64, 64, 128, 32000);
  scale_check_rel(scale_transformer_activation_bytes(&m, 4e6, SCALE_REMAT_NONE, SCALE_DTYPE_BF16),
                  2.0 * 20 * 4e6 * 8192 * 64, EXACT, "bytes", "ch.4: 2 x 20 x BT x D x L");
  scale_check_rel(scale_transformer_activation_bytes(&m, 4e6, SCALE_REMAT_NONE, SCALE_DTYPE_BF16),
                  84e12, 0.005, "bytes", "ch.4: 84TB");
  scale_check_rel(scale_transformer_activation_bytes(&m, 4e6, SCALE_REMAT_BLOCK, SCALE_DTYPE_BF16),
                  4.2e12, 0.005, "bytes", "ch.4: 4.2TB with block remat");
  /* block remat: 6ND -> about 8ND (a second forward pass of the layers) */
  double train = scale_transformer_flops(&m, 1, 2048, true, SCALE_PASS_TRAIN);
  double extra = scale_transformer_remat_extra_flops(&m, 1, 2048, true, SCALE_REMAT_BLOCK);
  scale_check_rel((train + extra) / train, 8.0 / 6.0, 0.01, "1", "ch.4: 6ND -> about 8ND");
}
END_TEST

START_TEST(test_text_kv_cache) {
  /* 8k context, 64 layers, KH = NH = D = 8192, int8: 2 * 8192 * 64 * 8192 = 8 GiB */
  scale_model m = dense(64, 8192, 4 * 8192, 64, 64, 128, 32000);
  scale_check_rel(scale_transformer_kv_bytes(&m, 8192, SCALE_DTYPE_INT8), 8.0 * SCALE_GIBI, EXACT,
                  "bytes", "ch.4: 8GiB");
}
END_TEST

START_TEST(test_text_causal) {
  /* causal masking halves the dot-product FLOPs where a kernel exploits it: exactly
   * T(T+1)/2 of T^2 pairs */
  scale_model m = llama3_70b();
  double full = scale_transformer_attention_flops(&m, 1, 8192, 8192, false, SCALE_PASS_TRAIN);
  double causal = scale_transformer_attention_flops(&m, 1, 8192, 8192, true, SCALE_PASS_TRAIN);
  scale_check_rel(causal / full, 8193.0 / 16384.0, EXACT, "1", "ch.4 Note [causal masking]");
}
END_TEST

/* ---- ch. 6-8: LLaMA 3 70B and LLaMA 2 13B -----------------------------------------------------
 */

START_TEST(test_ch6_llama3_70b) {
  scale_model m = llama3_70b();
  /* FFW 8192 * 28672 * 3 * 80 = 56,371,445,760 (book: 56.3e9, truncated) */
  scale_check_rel(80 * scale_transformer_n_mlp_params(&m), 56371445760.0, EXACT, "params",
                  "D F 3 L");
  scale_check_rel(80 * scale_transformer_n_mlp_params(&m), 56.3e9, 0.002, "params",
                  "ch.6 FFW 56.3e9");
  /* vocab 2 * 128256 * 8192 = 2,101,346,304 (book: 2.1e9) */
  scale_check_rel(scale_transformer_n_embedding_params(&m), 2.1e9, 0.001, "params",
                  "ch.6 vocab 2.1e9");
  /* attention 80 * (2*8192*64*128 + 2*8192*8*128) = 12,079,595,520 (book: 12e9) */
  scale_check_rel(80 * scale_transformer_n_attention_params(&m), 12079595520.0, EXACT, "params",
                  "L 2D(N+K)H");
  scale_check_rel(80 * scale_transformer_n_attention_params(&m), 12e9, 0.01, "params",
                  "ch.6 attention 12e9");
  /* total: 56,371,445,760 + 2,101,346,304 + 12,079,595,520 + norms 80*2*8192 + 8192
   * = 70,553,706,496, the published checkpoint's count to the parameter. The book sums its
   * rounded terms to 70.4e9 (0.2% low). */
  scale_check_rel(scale_transformer_n_params(&m), 70553706496.0, EXACT, "params",
                  "HF Meta-Llama-3-70B: 70,553,706,496");
  scale_check_rel(scale_transformer_n_params(&m), 70.4e9, 0.003, "params",
                  "ch.6 book figure 70.4e9");
  /* FLOPs per token 6 x params: exact 4.2332e11; book 6 * 70e9 = 4.2e11 */
  double per_token =
      scale_transformer_dense_flops(scale_transformer_n_params(&m), 1, SCALE_PASS_TRAIN);
  scale_check_rel(per_token, 6.0 * 70553706496.0, EXACT, "FLOP", "6 x params");
  scale_check_rel(per_token, 4.2e11, 0.01, "FLOP", "ch.6: 4.2e11 FLOPs / token");
  /* 15T tokens: exact 6.3498e24; book 4.2e11 * 15e12 = 6.3e24 */
  scale_check_rel(per_token * 15e12, 6.3e24, 0.01, "FLOP", "ch.6: 6.3e24 FLOPs");
  /* the full count at LLaMA 3's 4096-token pretraining context (causal kernel) adds
   * attention, 80 * 12 * 2048.5 * 64 * 128 = 1.61e10 per token (+3.8%), and leaves out the
   * input embedding lookup, 6 * 1.05e9 (-1.5%): within 3% of the rule */
  scale_check_rel(scale_transformer_flops_per_token(&m, 4096, true, SCALE_PASS_TRAIN), per_token,
                  0.03, "FLOP/token", "ch.4: 6 x params is a good approximation");
}
END_TEST

START_TEST(test_ch7_llama2_13b) {
  scale_model m = llama2_13b();
  /* FFW 5120 * 13824 * 3 * 40 = 8,493,465,600 (book 8.5e9); vocab 2 * 32000 * 5120 =
   * 327,680,000 (book 0.3e9); attention 4 * 5120^2 * 40 = 4,194,304,000 (book 4.2e9);
   * with norms 40 * 2 * 5120 + 5120: 13,015,864,320, the published count exactly */
  scale_check_rel(40 * scale_transformer_n_mlp_params(&m), 8.5e9, 0.001, "params",
                  "ch.7 FFW 8.5e9");
  scale_check_rel(scale_transformer_n_embedding_params(&m), 0.33e9, 0.01, "params",
                  "ch.7 vocab 0.3e9 (ch.5 Q1: 0.33e9)");
  scale_check_rel(40 * scale_transformer_n_attention_params(&m), 4.2e9, 0.002, "params",
                  "ch.7 attention 4.2e9");
  scale_check_rel(scale_transformer_n_params(&m), 13015864320.0, EXACT, "params",
                  "HF Llama-2-13b: 13,015,864,320 (book: 13e9)");
  /* KV for one 8192-token sequence in bf16: 8192 * 40 * 128 * 40 * 2 * 2 = 6,710,886,400
   * bytes, "6.7GB" (the table's "6.7 GiB" is 6.25 GiB) */
  scale_check_rel(scale_transformer_kv_bytes(&m, 8192, SCALE_DTYPE_BF16), 6710886400.0, EXACT,
                  "bytes", "2 bytes H K L T x 2");
  scale_check_rel(scale_transformer_kv_bytes(&m, 8192, SCALE_DTYPE_BF16), 6.7e9, 0.002, "bytes",
                  "ch.7: 6.7GB");
  /* ch. 5 Q2: bf16 params + two fp32 moments: (2 + 4 + 4) * 13e9 ~ 130GB */
  scale_precision book = SCALE_PRECISION_BF16_ADAM;
  double n = scale_transformer_n_params(&m);
  scale_check_rel(scale_transformer_weight_bytes(&book, n) +
                      scale_transformer_optimizer_bytes(&book, n),
                  130e9, 0.002, "bytes", "ch.5 Q2: ~130GB");
}
END_TEST

START_TEST(test_ch8_llama3_70b_kv) {
  scale_model m = llama3_70b();
  /* int8: 2 * 8 * 128 * 80 = 163,840 bytes per token (book: "160kB") */
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT8), 163840.0, EXACT,
                  "bytes", "ch.8: 2 K H L = 160kB");
  /* batch 32 at 8192 tokens: exact 42,949,672,960 bytes; the book's 41.9e9 multiplies the
   * rounded 160e3 */
  scale_check_rel(32 * scale_transformer_kv_bytes(&m, 8192, SCALE_DTYPE_INT8), 42949672960.0, EXACT,
                  "bytes", "163840 x 8192 x 32 (book: 41.9e9 from 160e3)");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16), 327680.0, EXACT,
                  "bytes", "bf16 twice int8");
}
END_TEST

/* ---- shipped models against their publishers ------------------------------------------------- */

START_TEST(test_publisher_counts) {
  /* Counts typed from the publishers, independently of models/NAME.ini. */
  static const struct {
    const char *name;
    double total, active, rtol;
    const char *source;
  } rows[] = {
      {"llama-2-13b", 13.0e9, 13.0e9, 0.01, "Touvron et al. 2023, LLaMA 2 13B"},
      {"llama-3-70b", 70.6e9, 70.6e9, 0.01, "HF Meta-Llama-3-70B: 70.6B"},
      {"llama-3-405b", 405e9, 405e9, 0.01, "Llama 3 Herd paper: 405B"},
      {"mixtral-8x7b", 46.7e9, 12.9e9, 0.01, "Mistral AI: 46.7B total, 12.9B per token"},
      {"gpt-3-175b", 175e9, 175e9, 0.01, "Brown et al. 2020 Table 2.1: 175.0B"},
      {"gemma-2-27b", 27.2e9, 27.2e9, 0.01, "Gemma 2 paper Table 2: 27.2B"},
      {"mamba-2-2.7b", 2.7e9, 2.7e9, 0.01, "state-spaces/mamba2-2.7b: 2.7B"},
      /* DeepSeek's 37B activated and Qwen's 3.3B are given to two digits; counting both
       * embeddings as active, as Mixtral's 12.9B does, gives 37.55e9 and 3.35e9 (+1.5%);
       * leaving the input embedding out gives 36.6e9 and 3.04e9. */
      {"deepseek-v3", 671e9, 37e9, 0.02, "DeepSeek-V3 report: 671B total, 37B activated"},
      {"qwen3-30b-a3b", 30.5e9, 3.3e9, 0.02, "Qwen3 model card: 30.5B total, 3.3B activated"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    scale_model m = scale_check_model(rows[i].name);
    scale_check_rel(scale_transformer_n_params(&m), rows[i].total, rows[i].rtol, "params",
                    rows[i].source);
    scale_check_rel(scale_transformer_n_active_params(&m), rows[i].active, rows[i].rtol, "params",
                    rows[i].source);
  }
}
END_TEST

START_TEST(test_every_shipped_model) {
  /* every models/NAME.ini: our count within 1% of the count its file cites */
  char names[64][SCALE_NAME_MAX];
  int n = scale_data_list("models", names, 64);
  ck_assert_msg(n >= 12, "expected at least 12 shipped models, found %d", n);
  for (int i = 0; i < n; i++) {
    scale_model m = scale_check_model(names[i]);
    ck_assert_msg(m.n_params_reported > 0, "%s: no n_params_reported", names[i]);
    double got = scale_transformer_n_params(&m);
    ck_assert_msg(fabs(got / m.n_params_reported - 1.0) < 0.01,
                  "%s: counted %.6g params, its file reports %.6g", names[i], got,
                  m.n_params_reported);
    ck_assert_msg(scale_transformer_n_active_params(&m) <= got, "%s: active > total", names[i]);
  }
}
END_TEST

START_TEST(test_deepseek_mla) {
  scale_model m = scale_check_model("deepseek-v3");
  /* MLA caches the 512-wide latent and the 64-wide rotary key per layer: 61 * 576 elements,
   * 70,272 bytes in bf16 (DeepSeek-V2 section 2.1.4: (d_c + d_h^R) l = 4.5 d_h l elements),
   * instead of 2 L N H = 2 * 61 * 128 * 128 elements (2,998,272 bf16 bytes): 42.7x less */
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16), 70272.0, EXACT,
                  "bytes", "L (kv_lora + rope) x 2");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16), 4.5 * 128 * 61 * 2,
                  EXACT, "bytes", "DeepSeek-V2: 4.5 d_h l");
  /* attention projections of one layer: W_DQ 7168*1536 + W_UQ 1536*128*192 + W_DKV
   * 7168*576 + W_UKV 512*128*256 + W_O 128*128*7168 = 11,010,048 + 37,748,736 + 4,128,768 +
   * 16,777,216 + 117,440,512 = 187,105,280, plus norms 1536 + 512 */
  scale_check_rel(scale_transformer_n_attention_params(&m), 187105280.0 + 2048.0, EXACT, "params",
                  "DeepSeek-V3 MLA, by hand");
  scale_check_rel(scale_transformer_moe_critical_batch(&m, 120), 3840.0, EXACT, "tokens",
                  "ch.4 Q8 with the shipped file");
}
END_TEST

/* ---- Amer et al. section 5 --------------------------------------------------------------------
 */

/* The paper's Mamba models (Tab. 9/12): Mamba-1B d 2048, L 16, n 64, 8 groups, expand 2,
 * chunk 64; Mamba-7B d 4096, L 40, n 128. The head dim p is not given; p = 64 (Mamba-2's
 * default) is assumed, so h = d_inner / 64. */
static scale_model paper_mamba(int64_t l, int64_t d, int64_t n) {
  scale_model m;
  memset(&m, 0, sizeof m);
  m.arch = SCALE_ARCH_MAMBA2;
  m.n_layers = l;
  m.d_model = d;
  m.n_vocab = 50288;
  m.ssm_d_state = n;
  m.ssm_d_head = 64;
  m.ssm_expand = 2;
  m.ssm_n_groups = 8;
  m.ssm_d_conv = 4;
  m.ssm_chunk_size = 64;
  return m;
}

START_TEST(test_amer_mamba2) {
  /* Mamba-7B: d_inproj = 2*8192 + 2*8*128 + 128 = 18,560; projections per token
   * 2(4096*18560 + 8192*4096) = 219,152,384; SSD per token 2h[l(n+p) + pn(2 + 1/l)] =
   * 256 * (64*192 + 8192*2.015625) = 7,372,800: 3.36% of the projections ("about 3.4%") */
  scale_model m7 = paper_mamba(40, 4096, 128);
  scale_check_rel(scale_transformer_mamba2_d_in_proj(&m7), 18560.0, EXACT, "elements",
                  "Amer 5.3 d_inproj");
  double proj7 = scale_transformer_mamba2_projection_flops(&m7, 1, SCALE_PASS_FORWARD);
  double ssd7 = scale_transformer_ssd_flops(&m7, 1, 4096, false, SCALE_PASS_FORWARD) / 4096;
  scale_check_rel(proj7, 219152384.0, EXACT, "FLOP", "Mamba-7B projections per token");
  scale_check_rel(ssd7, 7372800.0, EXACT, "FLOP", "Mamba-7B SSD per token");
  scale_check_rel(ssd7 / proj7, 0.034, 0.02, "1", "Mamba-7B: SSD about 3.4% of projections");
  /* Mamba-1B: d_inproj 9280; projections 54,788,096; SSD 128 * (8192 + 8256) = 2,105,344:
   * 3.84% ("about 3.8%") */
  scale_model m1 = paper_mamba(16, 2048, 64);
  double proj1 = scale_transformer_mamba2_projection_flops(&m1, 1, SCALE_PASS_FORWARD);
  double ssd1 = scale_transformer_ssd_flops(&m1, 1, 4096, false, SCALE_PASS_FORWARD) / 4096;
  scale_check_rel(proj1, 54788096.0, EXACT, "FLOP", "Mamba-1B projections per token");
  scale_check_rel(ssd1, 2105344.0, EXACT, "FLOP", "Mamba-1B SSD per token");
  scale_check_rel(ssd1 / proj1, 0.038, 0.02, "1", "Mamba-1B: SSD about 3.8% of projections");
  /* the paper's example s 16, l 4, Z = 4 chunks: the naive recurrence costs Z(Z+1) chunk
   * steps of h p n, the scan Z: the difference is 2 b h p n Z^2 */
  scale_model z = m1;
  z.ssm_chunk_size = 4;
  double naive = scale_transformer_ssd_flops(&z, 1, 16, true, SCALE_PASS_FORWARD);
  double scan = scale_transformer_ssd_flops(&z, 1, 16, false, SCALE_PASS_FORWARD);
  scale_check_rel(naive - scan, 2.0 * 64 * 64 * 64 * 16, 1e-9, "FLOP",
                  "Amer 5.3: O(Z^2) naive vs O(Z) scan, Z = 4");
}
END_TEST

START_TEST(test_amer_state_vs_kv) {
  /* Mamba-2 2.7B (d 2560, d_inner 5120, n 128, 1 group, conv 4, L 64): per layer SSM state
   * 5120*128 = 655,360 + conv (5120 + 256)*3 = 16,128 elements: 42,975,232 for the model,
   * whatever the context. A transformer of equal width and depth with MHA caches 2D = 5120
   * elements per token per layer, so its cache passes the Mamba state after
   * n + (1 + g n/D)(d_conv - 1) = 128 + 1.05 * 3 = 131.15 tokens. */
  scale_model mamba = scale_check_model("mamba-2-2.7b");
  double state = scale_transformer_state_bytes_per_sequence(&mamba, SCALE_DTYPE_BF16);
  scale_check_rel(state, 42975232.0 * 2, EXACT, "bytes", "L (d_inner n + conv) x 2");
  scale_check_rel(scale_transformer_kv_bytes(&mamba, 1e6, SCALE_DTYPE_BF16), 0.0, EXACT, "bytes",
                  "no KV cache at any length");
  scale_model equal = dense(64, 2560, 4 * 2560, 20, 20, 128, 50288);
  scale_check_rel(state / scale_transformer_kv_bytes_per_token(&equal, SCALE_DTYPE_BF16), 131.15,
                  EXACT, "tokens", "equal-width transformer: KV = state at 131 tokens");
}
END_TEST

START_TEST(test_amer_blocks) {
  /* LLaMA-7B of the paper (Llama-2-7B: d 4096, 32 heads, d_h 128, I 11008), b 1, s 4096:
   * the GQA and MLP block FLOPs per device are the same for every split of 8 devices */
  scale_model m = dense(32, 4096, 11008, 32, 32, 128, 32000);
  double b = 1, s = 4096;
  /* 4bsd^2 + 4bs k d_h d + 4bs^2 d + 5bs^2 a with k d_h = d: 8bsd^2 + 4bs^2 d + 5bs^2 a */
  double gqa = 8 * s * 4096.0 * 4096 + 4 * s * s * 4096 + 5 * s * s * 32;
  double mlp = s * (6.0 * 4096 * 11008 + 5 * 11008);
  static const double splits[][3] = {{8, 1, 1}, {1, 8, 1}, {1, 1, 8}, {2, 2, 2}, {4, 2, 1}};
  for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
    double tp = splits[i][0], cp = splits[i][1], dp = splits[i][2];
    scale_check_rel(scale_transformer_gqa_block_flops_per_device(&m, b, s, tp, cp, dp), gqa / 8,
                    EXACT, "FLOP", "Amer 5.1: FLOPs depend only on the device count");
    scale_check_rel(scale_transformer_mlp_block_flops_per_device(&m, b, s, tp, cp, dp), mlp / 8,
                    EXACT, "FLOP", "Amer 5.2: bs(6dI + 5I) / devices");
  }
  /* weights: TP < CP = DP; activations: TP > CP = DP (section 5.1 conclusions) */
  double w_tp = scale_transformer_gqa_block_weight_bytes_per_device(&m, 8, SCALE_DTYPE_BF16);
  double w_1 = scale_transformer_gqa_block_weight_bytes_per_device(&m, 1, SCALE_DTYPE_BF16);
  scale_check_rel(w_1, 2.0 * 4096 * 4096 * 2 * 2, EXACT, "bytes", "2d^2(1 + k/a) w_byte, MHA");
  scale_check_rel(w_tp, w_1 / 8, EXACT, "bytes", "TP divides the weights");
  double a_tp =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 8, 1, 1, SCALE_DTYPE_BF16);
  double a_cp =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 1, 8, 1, SCALE_DTYPE_BF16);
  double a_dp =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 1, 1, 8, SCALE_DTYPE_BF16);
  ck_assert_msg(a_tp > a_cp, "act(TP) %g > act(CP) %g", a_tp, a_cp);
  scale_check_rel(a_cp, a_dp, EXACT, "bytes", "act(CP) = act(DP)");
}
END_TEST

/* Book contradiction, ch. 4: the "Other Operations" table prices the unembedding
 * A[B,T,D] * W_unembed[D,V] at 6BTDV training FLOPs (2BTDV forward, 4BTDV backward, as every
 * matmul), while the summary table's "Vocab" row prints 12BTDV, twice as much, without saying
 * why; counting the input embedding as a second such matmul would give it, but the embedding is
 * a lookup, not a matmul. Exactly, for the book's Q1 model (D = 4096, V = 32,000) and
 * B x T = 1e6 tokens: 6 x 1e6 x 4096 x 32000 = 7.864e17 FLOPs; 12BTDV would be 1.573e18. The
 * library keeps 6BTDV. */
START_TEST(test_vocab_flops_6_not_12) {
  scale_model m = q1_model();
  double bt = 1e6;
  double six = 6.0 * bt * 4096.0 * 32000.0;
  scale_check_rel(scale_transformer_unembedding_flops(&m, bt, SCALE_PASS_TRAIN), six, EXACT,
                  "FLOP", "ch. 4 Other Operations: 6BTDV");
  scale_check_rel(scale_transformer_unembedding_flops(&m, bt, SCALE_PASS_FORWARD), six / 3.0,
                  EXACT, "FLOP", "ch. 4: 2BTDV forward");
  ck_assert_msg(scale_transformer_unembedding_flops(&m, bt, SCALE_PASS_TRAIN) < 12.0 * bt * 4096.0 *
                                                                                   32000.0,
                "the summary table's 12BTDV is twice the matmul's training FLOPs");
}
END_TEST

int main(void) {
  Suite *suite = suite_create("transformer_book");
  const scale_check_case cases[] = {
      {"vocab_flops_6_not_12", test_vocab_flops_6_not_12},
      {"ch4 Q1 parameters and KV", test_q1_params_and_kv},
      {"ch4 Q2 sharded matmul", test_q2_sharded_matmul},
      {"ch4 Q3 contraction", test_q3_contraction},
      {"ch4 Q4 attention intensity", test_q4_attention_intensity},
      {"ch4 Q5 attention = projections", test_q5_attention_equals_projections},
      {"ch4 Q6 remat big matmuls", test_q6_remat_big_matmuls},
      {"ch4 Q7 DeepSeek MFU", test_q7_deepseek_mfu},
      {"ch4 Q8 MoE batch", test_q8_moe_batch},
      {"ch4 rule of thumb", test_text_rule_of_thumb},
      {"ch4 attention fraction", test_text_attention_fraction},
      {"ch4 gradient checkpointing", test_text_checkpointing},
      {"ch4 KV cache", test_text_kv_cache},
      {"ch4 causal masking", test_text_causal},
      {"ch6 LLaMA 3 70B", test_ch6_llama3_70b},
      {"ch7 LLaMA 2 13B", test_ch7_llama2_13b},
      {"ch8 LLaMA 3 70B KV", test_ch8_llama3_70b_kv},
      {"publisher counts", test_publisher_counts},
      {"every shipped model", test_every_shipped_model},
      {"DeepSeek-V3 MLA", test_deepseek_mla},
      {"Amer Mamba-2 FLOPs", test_amer_mamba2},
      {"Amer state vs KV", test_amer_state_vs_kv},
      {"Amer per-device blocks", test_amer_blocks},
  };
  scale_check_add_cases(suite, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(suite);
}
