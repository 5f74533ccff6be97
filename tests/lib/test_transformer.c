/* test_transformer.c — transformer.h on hand-built models with small numbers, every expected
 * value derived by hand in a comment: contraction FLOPs, parameters (dense, gated or not,
 * tied, GQA, MLA, MoE, Mamba-2), FLOPs of each part and of the whole model, attention's share,
 * training memory, activations and remat, KV cache, recurrent state, attention intensity and
 * the per-device block formulas. The book's own numbers are in test_transformer_book.c. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "scale.h"
#include "scale_check.h"

#define EXACT 1e-12

/* A tiny dense model: L 2, D 8, F 32 (gated), N 4, K 2, H 2, V 10, untied. By hand:
 *   attention 2D(N+K)H = 2*8*6*2 = 192; MLP 3DF = 768; norms 2D = 16; layer = 976;
 *   2 layers 1952 + embeddings 2VD = 160 + final norm 8 = 2120. */
static scale_model tiny(void) {
  scale_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.name, "tiny");
  m.arch = SCALE_ARCH_TRANSFORMER;
  m.n_layers = 2;
  m.d_model = 8;
  m.n_vocab = 10;
  m.n_heads = 4;
  m.n_kv_heads = 2;
  m.d_head = 2;
  m.d_ff = 32;
  m.gated_mlp = true;
  return m;
}

/* The book's typical shape: F = 4D, D = NH, N = K (MHA), gated. D 64, N 8, H 8, F 256. */
static scale_model typical(void) {
  scale_model m = tiny();
  m.n_layers = 4;
  m.d_model = 64;
  m.n_heads = 8;
  m.n_kv_heads = 8;
  m.d_head = 8;
  m.d_ff = 256;
  m.n_vocab = 100;
  return m;
}

/* A tiny MoE: tiny() with L 4, first layer dense (F 32), E 4, k 2, 1 shared, expert F 16.
 * By hand: expert 3*8*16 = 384; MoE block (4+1)*384 + router 8*4 = 1952; active block
 * (2+1)*384 + 32 = 1184; total 4*(192+16) + 1*768 + 3*1952 + 160 + 8 = 7624;
 * active 7624 - 3*(1952-1184) = 5320. */
static scale_model tiny_moe(void) {
  scale_model m = tiny();
  m.n_layers = 4;
  m.n_experts = 4;
  m.n_experts_active = 2;
  m.n_shared_experts = 1;
  m.d_ff_expert = 16;
  m.n_dense_layers = 1;
  return m;
}

/* A tiny MLA model: D 16, N 2, q_lora 4, kv_lora 6, rope 2, nope 3, v 5, L 3. By hand:
 *   W_DQ 16*4 = 64, W_UQ 4*2*(3+2) = 40, W_DKV 16*(6+2) = 128, W_UKV 6*2*(3+5) = 96,
 *   W_O 2*5*16 = 160: 488 matmul parameters, + norms 4 + 6 = 498. */
static scale_model tiny_mla(void) {
  scale_model m = tiny();
  m.n_layers = 3;
  m.d_model = 16;
  m.n_heads = 2;
  m.n_kv_heads = 2;
  m.d_head = 5;
  m.q_lora_rank = 4;
  m.kv_lora_rank = 6;
  m.d_head_rope = 2;
  m.d_head_nope = 3;
  m.d_head_v = 5;
  return m;
}

/* A tiny Mamba-2: D 8, expand 2 (d_inner 16), n 4, 1 group, head dim 4 (h 4), conv 4,
 * chunk 4, L 3, V 10 tied. By hand: d_in_proj = 2*16 + 2*1*4 + 4 = 44; mixer params:
 * in-proj 8*44 = 352, conv (16+8)*(4+1) = 120, 3h = 12, norm 16, out-proj 16*8 = 128: 628. */
static scale_model tiny_mamba(void) {
  scale_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.name, "tiny-mamba");
  m.arch = SCALE_ARCH_MAMBA2;
  m.n_layers = 3;
  m.d_model = 8;
  m.n_vocab = 10;
  m.tied_embeddings = true;
  m.ssm_d_state = 4;
  m.ssm_n_heads = 4;
  m.ssm_d_head = 4;
  m.ssm_expand = 2;
  m.ssm_n_groups = 1;
  m.ssm_d_conv = 4;
  m.ssm_chunk_size = 4;
  return m;
}

/* ---- counting dots -------------------------------------------------------------------------- */

START_TEST(test_pass_factors) {
  scale_check_rel(scale_transformer_pass_flops_per_param(SCALE_PASS_FORWARD), 2.0, EXACT, "FLOP",
                  "ch.4: 2NPM forward");
  scale_check_rel(scale_transformer_pass_flops_per_param(SCALE_PASS_BACKWARD), 4.0, EXACT, "FLOP",
                  "ch.4: 4NPM backward");
  scale_check_rel(scale_transformer_pass_flops_per_param(SCALE_PASS_TRAIN), 6.0, EXACT, "FLOP",
                  "ch.4: 6NPM training");
  scale_check_nan(scale_transformer_pass_flops_per_param(SCALE_PASS_COUNT));
  scale_check_nan(scale_transformer_pass_flops_per_param((scale_pass)-1));
  scale_check_rel(scale_transformer_matmul_flops(3, 5, 7), 210.0, EXACT, "FLOP", "2*3*5*7");
  scale_check_nan(scale_transformer_matmul_flops(-1, 5, 7));
  scale_check_rel(scale_transformer_dense_flops(1e9, 1e6, SCALE_PASS_TRAIN), 6e15, EXACT, "FLOP",
                  "6 x 1e9 params x 1e6 tokens");
  scale_check_rel(scale_transformer_dense_flops(1e9, 1e6, SCALE_PASS_FORWARD), 2e15, EXACT, "FLOP",
                  "2 x 1e9 x 1e6");
  scale_check_nan(scale_transformer_dense_flops(1e9, 1e6, SCALE_PASS_COUNT));
  scale_check_nan(scale_transformer_dense_flops(NAN, 1e6, SCALE_PASS_TRAIN));
}
END_TEST

START_TEST(test_einsum) {
  const double np_m[] = {3, 5, 7}; /* n, p, m */
  scale_check_rel(scale_transformer_einsum_flops("np,pm->nm", np_m), 210.0, EXACT, "FLOP",
                  "matmul 2NPM = 2*3*5*7");
  /* x.y over P = 5: 2P = 10 */
  const double p5[] = {5};
  scale_check_rel(scale_transformer_einsum_flops("p,p->", p5), 10.0, EXACT, "FLOP", "2P");
  /* batched QK^T: b 2, t 3, h 4, s 5; b batch, h contracting: 2*2*3*4*5 = 240 */
  const double bths[] = {2, 3, 4, 5};
  scale_check_rel(scale_transformer_einsum_flops("bth,bsh->bts", bths), 240.0, EXACT, "FLOP",
                  "2 B T H S");
  /* elementwise gating b 2, t 3, f 4: no contracting dim, no factor 2: 24 */
  const double btf[] = {2, 3, 4};
  scale_check_rel(scale_transformer_einsum_flops("btf,btf->btf", btf), 24.0, EXACT, "FLOP",
                  "ch.4: no factor 2 for an elementwise product");
  /* outer product i 3, j 4: 12 multiplies */
  const double ij[] = {3, 4};
  scale_check_rel(scale_transformer_einsum_flops("i,j->ij", ij), 12.0, EXACT, "FLOP", "I J");
  /* the book's C[GHIJKL] . D[GHMNKL]: 2 GHIJMNKL; sizes by first appearance G H I J K L M N */
  const double ghijklmn[] = {2, 3, 5, 7, 11, 13, 17, 19};
  scale_check_rel(scale_transformer_einsum_flops("GHIJKL,GHMNKL->GHIJMN", ghijklmn),
                  2.0 * 2 * 3 * 5 * 7 * 11 * 13 * 17 * 19, EXACT, "FLOP",
                  "ch.4 Counting Dots: 2 GH IJ MN KL");
  /* malformed specs */
  scale_check_nan(scale_transformer_einsum_flops("np,pm", np_m));        /* no output */
  scale_check_nan(scale_transformer_einsum_flops("np,pm,mk->nk", np_m)); /* three operands */
  scale_check_nan(scale_transformer_einsum_flops("nn,pm->nm", np_m));    /* repeated letter */
  scale_check_nan(scale_transformer_einsum_flops("np,pm->nq", np_m));    /* q from nowhere */
  scale_check_nan(scale_transformer_einsum_flops("np,pm->m", np_m));     /* n summed alone */
  scale_check_nan(scale_transformer_einsum_flops("n p,pm->nm", np_m));   /* a space */
  scale_check_nan(scale_transformer_einsum_flops("np->pm", np_m));       /* one operand */
  scale_check_nan(scale_transformer_einsum_flops(NULL, np_m));
  scale_check_nan(scale_transformer_einsum_flops("np,pm->nm", NULL));
  const double negative[] = {3, -5, 7};
  scale_check_nan(scale_transformer_einsum_flops("np,pm->nm", negative));
}
END_TEST

/* ---- parameters ----------------------------------------------------------------------------- */

START_TEST(test_params_dense) {
  scale_model m = tiny();
  scale_check_rel(scale_transformer_n_attention_params(&m), 192.0, EXACT, "params",
                  "2D(N+K)H = 2*8*(4+2)*2");
  scale_check_rel(scale_transformer_n_mlp_params(&m), 768.0, EXACT, "params", "3DF = 3*8*32");
  scale_check_rel(scale_transformer_n_norm_params(&m), 16.0, EXACT, "params", "2D");
  scale_check_rel(scale_transformer_n_embedding_params(&m), 160.0, EXACT, "params", "2VD");
  scale_check_rel(scale_transformer_n_mlp_layers(&m), 2.0, EXACT, "layers", "every layer");
  scale_check_rel(scale_transformer_n_moe_layers(&m), 0.0, EXACT, "layers", "dense model");
  scale_check_rel(scale_transformer_n_params(&m), 2120.0, EXACT, "params", "tiny(): 2120");
  scale_check_rel(scale_transformer_n_active_params(&m), 2120.0, EXACT, "params",
                  "dense: active = total");
  scale_check_rel(scale_transformer_n_expert_params(&m), 0.0, EXACT, "params", "no experts");
  scale_check_rel(scale_transformer_n_mamba2_params(&m), 0.0, EXACT, "params", "no mixer");

  m.tied_embeddings = true; /* one VD less: 2120 - 80 */
  scale_check_rel(scale_transformer_n_params(&m), 2040.0, EXACT, "params", "tied: 2120 - VD");
  m.gated_mlp = false; /* 2DF = 512 per layer: 2040 - 2*256 */
  scale_check_rel(scale_transformer_n_mlp_params(&m), 512.0, EXACT, "params", "2DF");
  scale_check_rel(scale_transformer_n_params(&m), 1528.0, EXACT, "params", "2040 - 2*256");
  m = tiny();
  m.n_kv_heads = 1; /* MQA: 2*8*(4+1)*2 = 160 */
  scale_check_rel(scale_transformer_n_attention_params(&m), 160.0, EXACT, "params", "MQA K=1");
  m.n_kv_heads = 4; /* MHA: 4DNH = 4*8*4*2 = 256 */
  scale_check_rel(scale_transformer_n_attention_params(&m), 256.0, EXACT, "params", "MHA 4DNH");
  scale_check_nan(scale_transformer_n_params(NULL));
  scale_check_nan(scale_transformer_n_active_params(NULL));
  scale_check_nan(scale_transformer_n_attention_params(NULL));
}
END_TEST

START_TEST(test_params_moe) {
  scale_model m = tiny_moe();
  scale_check_rel(scale_transformer_n_expert_params(&m), 384.0, EXACT, "params", "3*8*16");
  scale_check_rel(scale_transformer_n_moe_params(&m), 1952.0, EXACT, "params",
                  "(E+shared) experts + router DE = 5*384 + 32");
  scale_check_rel(scale_transformer_n_moe_active_params(&m), 1184.0, EXACT, "params",
                  "(k+shared) experts + router = 3*384 + 32");
  scale_check_rel(scale_transformer_n_moe_layers(&m), 3.0, EXACT, "layers", "L - dense = 4-1");
  scale_check_rel(scale_transformer_n_mlp_layers(&m), 1.0, EXACT, "layers", "n_dense_layers");
  scale_check_rel(scale_transformer_n_params(&m), 7624.0, EXACT, "params", "tiny_moe(): 7624");
  scale_check_rel(scale_transformer_n_active_params(&m), 5320.0, EXACT, "params",
                  "tiny_moe(): 5320");
  /* no dense layers and no d_ff: the MLP of width 0 adds nothing */
  m.n_dense_layers = 0;
  m.d_ff = 0;
  scale_check_rel(scale_transformer_n_mlp_layers(&m), 0.0, EXACT, "layers", "none dense");
  scale_check_rel(scale_transformer_n_params(&m), 4 * (192 + 16 + 1952) + 168.0, EXACT, "params",
                  "4 MoE layers + 168");
}
END_TEST

START_TEST(test_params_mla) {
  scale_model m = tiny_mla();
  scale_check_rel(scale_transformer_n_attention_params(&m), 498.0, EXACT, "params",
                  "tiny_mla(): 488 matmul + 10 norm");
  m.q_lora_rank = 0; /* full-rank queries: W_Q 16*2*5 = 160 replaces 64 + 40 + norm 4 */
  scale_check_rel(scale_transformer_n_attention_params(&m), 498.0 - 108.0 + 160.0, EXACT, "params",
                  "W_Q [D, N(nope+rope)]");
  /* Hand-made widths whose int64 sum overflows (INT64_MAX + 1): the sum is taken in double, so
   * the count grows with them instead of wrapping negative and falling back to d_head (and
   * UBSan does not abort). Issue 13 section 2. */
  m = tiny_mla();
  double small = scale_transformer_n_attention_params(&m);
  m.d_head_nope = INT64_MAX;
  m.d_head_rope = 1;
  ck_assert_msg(scale_transformer_n_attention_params(&m) > 1e15 * small, "got %g",
                scale_transformer_n_attention_params(&m));
}
END_TEST

START_TEST(test_params_mamba2) {
  scale_model m = tiny_mamba();
  scale_check_rel(scale_transformer_mamba2_d_in_proj(&m), 44.0, EXACT, "elements",
                  "2 d_inner + 2 groups n + h = 32 + 8 + 4");
  scale_check_rel(scale_transformer_n_mamba2_params(&m), 628.0, EXACT, "params",
                  "tiny_mamba(): 628");
  scale_check_rel(scale_transformer_n_attention_params(&m), 0.0, EXACT, "params", "no attention");
  scale_check_rel(scale_transformer_n_mlp_layers(&m), 0.0, EXACT, "layers", "no MLP");
  /* 3 * (628 + norm 8) + tied embedding 80 + final norm 8 = 1996 */
  scale_check_rel(scale_transformer_n_params(&m), 1996.0, EXACT, "params", "3*636 + 88");
  /* h derived from d_inner / head dim when n_heads is absent */
  m.ssm_n_heads = 0;
  scale_check_rel(scale_transformer_mamba2_d_in_proj(&m), 44.0, EXACT, "elements", "h = 16/4");
  scale_check_rel(
      scale_transformer_mamba2_d_in_proj(&(scale_model){.arch = SCALE_ARCH_TRANSFORMER}), 0.0,
      EXACT, "elements", "transformer: no mixer");
}
END_TEST

/* ---- FLOPs ---------------------------------------------------------------------------------- */

START_TEST(test_flops_parts) {
  scale_model m = tiny();
  /* 12 B T D (N+K) H for training = 6 * 192 params * 100 tokens = 115200 */
  scale_check_rel(scale_transformer_qkvo_flops(&m, 100, SCALE_PASS_TRAIN), 115200.0, EXACT, "FLOP",
                  "12BTD(N+K)H = 6*192*100");
  scale_check_rel(scale_transformer_mlp_flops(&m, 100, SCALE_PASS_TRAIN), 460800.0, EXACT, "FLOP",
                  "18BTDF = 18*100*8*32");
  scale_check_rel(scale_transformer_mlp_flops(&m, 100, SCALE_PASS_FORWARD), 153600.0, EXACT, "FLOP",
                  "6BTDF forward");
  scale_check_rel(scale_transformer_unembedding_flops(&m, 100, SCALE_PASS_TRAIN), 48000.0, EXACT,
                  "FLOP", "6BTDV = 6*100*8*10");
  /* attention, b 3, t = s = 5: 12 B T^2 N H = 12*3*25*4*2 = 7200 for training */
  scale_check_rel(scale_transformer_attention_flops(&m, 3, 5, 5, false, SCALE_PASS_TRAIN), 7200.0,
                  EXACT, "FLOP", "12BT^2NH");
  scale_check_rel(scale_transformer_attention_flops(&m, 3, 5, 5, false, SCALE_PASS_FORWARD), 2400.0,
                  EXACT, "FLOP", "4BT^2NH forward");
  scale_check_rel(scale_transformer_attention_flops(&m, 3, 5, 5, false, SCALE_PASS_BACKWARD),
                  4800.0, EXACT, "FLOP", "8BT^2NH backward");
  /* causal, t = s = 5: 5*6/2 = 15 of 25 pairs: 7200 * 15/25 = 4320 */
  scale_check_rel(scale_transformer_attention_flops(&m, 3, 5, 5, true, SCALE_PASS_TRAIN), 4320.0,
                  EXACT, "FLOP", "causal: t(t+1)/2 pairs");
  /* decode, t 1 against s 9: every key visible, causal or not: 4*1*9*4*2 = 288 forward */
  scale_check_rel(scale_transformer_attention_flops(&m, 1, 1, 9, true, SCALE_PASS_FORWARD), 288.0,
                  EXACT, "FLOP", "4 B S N H for one query");
  scale_check_rel(scale_transformer_attention_flops(&m, 1, 1, 9, false, SCALE_PASS_FORWARD), 288.0,
                  EXACT, "FLOP", "4 B S N H for one query");
  /* a chunk of 3 queries at the end of 9 keys: 27 - 3 = 24 pairs */
  scale_check_rel(scale_transformer_attention_flops(&m, 1, 3, 9, true, SCALE_PASS_FORWARD), 768.0,
                  EXACT, "FLOP", "ts - t(t-1)/2 = 24 pairs, 4NH = 32 each");
  scale_check_nan(scale_transformer_attention_flops(&m, 1, 10, 9, true, SCALE_PASS_FORWARD));
  scale_check_nan(scale_transformer_attention_flops(&m, -1, 5, 5, false, SCALE_PASS_FORWARD));
  scale_check_nan(scale_transformer_attention_flops(&m, 1, 5, 5, false, SCALE_PASS_COUNT));
  /* attention FLOPs depend on N, not K */
  scale_model mqa = m;
  mqa.n_kv_heads = 1;
  scale_check_rel(scale_transformer_attention_flops(&mqa, 3, 5, 5, false, SCALE_PASS_TRAIN), 7200.0,
                  EXACT, "FLOP", "6BTSKGH = 6BTSNH");
  scale_check_nan(scale_transformer_qkvo_flops(&m, -1, SCALE_PASS_TRAIN));
  scale_check_nan(scale_transformer_mlp_flops(&m, 1, SCALE_PASS_COUNT));
  scale_check_nan(scale_transformer_unembedding_flops(NULL, 1, SCALE_PASS_TRAIN));
}
END_TEST

START_TEST(test_flops_moe_mla) {
  scale_model m = tiny_moe();
  scale_check_rel(scale_transformer_moe_flops(&m, 10, SCALE_PASS_FORWARD), 23680.0, EXACT, "FLOP",
                  "2 * 1184 active params * 10 tokens");
  scale_check_rel(scale_transformer_moe_flops(&(scale_model){.d_model = 8}, 10, SCALE_PASS_TRAIN),
                  0.0, EXACT, "FLOP", "dense model: no MoE block");
  /* whole tiny MoE, b 1, t 1, forward: 2 * (active 5320 - input embedding 80 - norms
   * 4*16 + 8 = 72) = 2 * 5168 = 10336 plus attention 4 * 1 * 1 * 4 * 2 * 4 layers = 128 */
  scale_check_rel(scale_transformer_flops(&m, 1, 1, false, SCALE_PASS_FORWARD), 10336.0 + 128.0,
                  EXACT, "FLOP", "2 x matmul active params + attention");

  scale_model a = tiny_mla();
  /* MLA attention, b 1, t = s = 2: 2 * 1 * 4 pairs * N 2 * (H_qk 5 + H_v 5) = 160 forward */
  scale_check_rel(scale_transformer_attention_flops(&a, 1, 2, 2, false, SCALE_PASS_FORWARD), 160.0,
                  EXACT, "FLOP", "2 b t s N (H_qk + H_v)");
  scale_check_rel(scale_transformer_qkvo_flops(&a, 1, SCALE_PASS_FORWARD), 976.0, EXACT, "FLOP",
                  "2 * 488 matmul params (norms excluded)");
}
END_TEST

START_TEST(test_flops_total) {
  scale_model m = tiny();
  /* b 2, t 5, training: 6 * (2 layers * (192 + 768) + unembedding 80) * 10 tokens = 120000,
   * plus attention 2 layers * 12 * 2 * 25 * 4 * 2 = 9600 */
  scale_check_rel(scale_transformer_flops(&m, 2, 5, false, SCALE_PASS_TRAIN), 129600.0, EXACT,
                  "FLOP", "6 x matmul params x tokens + 12BT^2NH L");
  /* causal: attention 9600 * 15/25 = 5760 */
  scale_check_rel(scale_transformer_flops(&m, 2, 5, true, SCALE_PASS_TRAIN), 125760.0, EXACT,
                  "FLOP", "causal attention");
  /* one sequence of 5: (6 * 2000 * 5 + attention 2 * 12 * 25 * 4 * 2) / 5 = 64800 / 5 */
  scale_check_rel(scale_transformer_flops_per_token(&m, 5, false, SCALE_PASS_TRAIN), 12960.0, EXACT,
                  "FLOP/token", "FLOPs of one sequence / t");
  scale_check_nan(scale_transformer_flops_per_token(&m, 0, false, SCALE_PASS_TRAIN));
  scale_check_nan(scale_transformer_flops(&m, 2, 5, false, SCALE_PASS_COUNT));
  scale_check_nan(scale_transformer_flops(NULL, 2, 5, false, SCALE_PASS_TRAIN));
}
END_TEST

START_TEST(test_attention_share) {
  scale_model m = typical(); /* D 64: T/(8D) = T/512 */
  scale_check_rel(scale_transformer_attention_flops_ratio(&m, 512, false), 1.0, EXACT, "1",
                  "T/(8D) at T = 8D");
  scale_check_rel(scale_transformer_attention_flops_ratio(&m, 128, false), 0.25, EXACT, "1",
                  "T/(8D) = 128/512");
  scale_check_rel(scale_transformer_attention_flops_frac(&m, 512, false), 0.5, EXACT, "1",
                  "ratio 1: half the FLOPs");
  scale_check_rel(scale_transformer_attention_flops_frac(&m, 128, false), 0.2, EXACT, "1",
                  "0.25 / 1.25");
  /* causal at T = 512: pairs 512*513/2 instead of 512^2: ratio 513/1024 */
  scale_check_rel(scale_transformer_attention_flops_ratio(&m, 512, true), 513.0 / 1024.0, EXACT,
                  "1", "causal pairs");
  scale_check_rel(scale_transformer_n_tokens_attention_equals_qkvo(&m), 128.0, EXACT, "tokens",
                  "T = 2D");
  scale_check_rel(scale_transformer_n_tokens_attention_dominates(&m), 512.0, EXACT, "tokens",
                  "T = 8D");
  m.n_kv_heads = 1; /* GQA/MQA: 12BT^2NH = 12BTD(N+K)H at T = D(N+K)/N = 64*9/8 = 72 */
  scale_check_rel(scale_transformer_n_tokens_attention_equals_qkvo(&m), 72.0, EXACT, "tokens",
                  "T = D(N+K)/N");
  scale_model mamba = tiny_mamba();
  scale_check_rel(scale_transformer_attention_flops_ratio(&mamba, 4096, false), 0.0, EXACT, "1",
                  "no attention");
  scale_check_nan(scale_transformer_n_tokens_attention_equals_qkvo(&mamba));
  scale_check_nan(scale_transformer_n_tokens_attention_dominates(&mamba));
  scale_check_nan(scale_transformer_attention_flops_ratio(&m, -1, false));
}
END_TEST

START_TEST(test_mamba2_flops) {
  scale_model m = tiny_mamba();
  /* 2 * (8*44 + 16*8) = 960 per token forward */
  scale_check_rel(scale_transformer_mamba2_projection_flops(&m, 1, SCALE_PASS_FORWARD), 960.0,
                  EXACT, "FLOP", "2(D d_in_proj + d_inner D)");
  /* SSD, b 1, s 8, l 4 (2 chunks), h 4, p 4, n 4:
   *   C.B^T 2*4*16*4 = 512; with X 2*4*16*4 = 512; B.X 2*4*4*4*4 = 512;
   *   scan 4*2*4*4 = 128; C.states 2*4*4*4*4 = 512; sum 2176; x2 FLOPs = 4352 */
  scale_check_rel(scale_transformer_ssd_flops(&m, 1, 8, false, SCALE_PASS_FORWARD), 4352.0, EXACT,
                  "FLOP", "SSD with the parallel scan");
  /* naive recurrence 4*2*(2+1)*4*4 = 384 instead of 128: sum 2432 -> 4864 */
  scale_check_rel(scale_transformer_ssd_flops(&m, 1, 8, true, SCALE_PASS_FORWARD), 4864.0, EXACT,
                  "FLOP", "SSD with the naive recurrence");
  scale_check_rel(scale_transformer_ssd_flops(&m, 2, 8, false, SCALE_PASS_TRAIN), 6 * 4352.0, EXACT,
                  "FLOP", "b 2 x training 3x");
  /* the scan is linear in s; the naive recurrence is not */
  double scan = scale_transformer_ssd_flops(&m, 1, 4096, false, SCALE_PASS_FORWARD);
  double naive = scale_transformer_ssd_flops(&m, 1, 4096, true, SCALE_PASS_FORWARD);
  scale_check_rel(scale_transformer_ssd_flops(&m, 1, 8192, false, SCALE_PASS_FORWARD), 2 * scan,
                  EXACT, "FLOP", "linear in s");
  ck_assert_msg(naive > 2 * scan, "naive %g should exceed the scan %g at 1024 chunks", naive, scan);
  /* whole model, b 1, t 8, forward: 3 layers * (960*8 + 4352) + unembedding 2*8*10*8 = 1280 */
  scale_check_rel(scale_transformer_flops(&m, 1, 8, true, SCALE_PASS_FORWARD),
                  3 * (7680.0 + 4352.0) + 1280.0, EXACT, "FLOP", "layers + unembedding");
  scale_model t = tiny();
  scale_check_rel(scale_transformer_ssd_flops(&t, 1, 8, false, SCALE_PASS_FORWARD), 0.0, EXACT,
                  "FLOP", "transformer: no SSD");
  m.ssm_chunk_size = 0;
  scale_check_nan(scale_transformer_ssd_flops(&m, 1, 8, false, SCALE_PASS_FORWARD));
}
END_TEST

/* ---- MoE batch ------------------------------------------------------------------------------ */

START_TEST(test_moe_batch) {
  scale_model m = tiny_moe();
  scale_check_rel(scale_transformer_moe_sparsity(&m), 2.0, EXACT, "1", "E/k = 4/2");
  scale_check_rel(scale_transformer_moe_critical_batch(&m, 240), 480.0, EXACT, "tokens",
                  "dense critical batch x E/k");
  scale_model d = tiny();
  scale_check_nan(scale_transformer_moe_sparsity(&d));
  scale_check_nan(scale_transformer_moe_critical_batch(&d, 240));
  scale_check_nan(scale_transformer_moe_critical_batch(&m, -1));
}
END_TEST

/* ---- memory --------------------------------------------------------------------------------- */

START_TEST(test_train_state) {
  scale_precision book = SCALE_PRECISION_BF16_ADAM;
  scale_check_rel(scale_transformer_weight_bytes(&book, 1), 2.0, EXACT, "bytes", "bf16");
  scale_check_rel(scale_transformer_optimizer_bytes(&book, 1), 8.0, EXACT, "bytes",
                  "two fp32 moments");
  scale_check_rel(scale_transformer_weight_bytes(&book, 1) +
                      scale_transformer_optimizer_bytes(&book, 1),
                  10.0, EXACT, "bytes", "ch.5: 2 + 8 = 10 bytes per parameter");
  scale_check_rel(scale_transformer_train_state_bytes(&book, 1), 12.0, EXACT, "bytes",
                  "10 + bf16 gradients");
  /* ZeRO (Rajbhandari et al. 2019, section 3.1): mixed-precision Adam holds 2 + 2 + 12 = 16
   * bytes per parameter */
  scale_precision zero = SCALE_PRECISION_MIXED_ADAM;
  scale_check_rel(scale_transformer_train_state_bytes(&zero, 7.5e9), 16.0 * 7.5e9, EXACT, "bytes",
                  "ZeRO paper: 16 bytes/param, 120GB for 7.5B parameters");
  scale_check_rel(scale_transformer_optimizer_bytes(&zero, 1), 12.0, EXACT, "bytes", "ZeRO K = 12");
  scale_precision sgd = {SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 0, false};
  scale_check_rel(scale_transformer_train_state_bytes(&sgd, 1), 8.0, EXACT, "bytes",
                  "fp32 weights + fp32 grads, no state");
  scale_precision int8 = {SCALE_DTYPE_INT4, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, 1, false};
  scale_check_rel(scale_transformer_train_state_bytes(&int8, 2), 2 * (0.5 + 2 + 2), EXACT, "bytes",
                  "int4 + bf16 + one bf16 moment");
  scale_precision bad = {SCALE_DTYPE_COUNT, SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, 2, false};
  scale_check_nan(scale_transformer_weight_bytes(&bad, 1));
  scale_check_nan(scale_transformer_train_state_bytes(&bad, 1));
  bad = book;
  bad.n_moments = -1;
  scale_check_nan(scale_transformer_optimizer_bytes(&bad, 1));
  scale_check_nan(scale_transformer_weight_bytes(NULL, 1));
  scale_check_nan(scale_transformer_grad_bytes(&book, -1));
}
END_TEST

START_TEST(test_activations_remat) {
  scale_model m = tiny();
  scale_check_rel(scale_transformer_n_saved_per_layer(SCALE_REMAT_NONE), 20.0, EXACT, "tensors",
                  "ch.4: about 20");
  scale_check_rel(scale_transformer_n_saved_per_layer(SCALE_REMAT_BLOCK), 1.0, EXACT, "tensors",
                  "ch.4: the layer input");
  scale_check_rel(scale_transformer_n_saved_per_layer(SCALE_REMAT_BIG_MATMULS), 7.0, EXACT,
                  "tensors", "ch.4: closer to 7");
  scale_check_nan(scale_transformer_n_saved_per_layer(SCALE_REMAT_COUNT));
  /* 100 tokens, D 8, L 2, bf16: 20*100*8*2*2 = 64000 */
  scale_check_rel(scale_transformer_activation_bytes(&m, 100, SCALE_REMAT_NONE, SCALE_DTYPE_BF16),
                  64000.0, EXACT, "bytes", "20 x tokens x D x L x 2");
  scale_check_rel(scale_transformer_activation_bytes(&m, 100, SCALE_REMAT_BLOCK, SCALE_DTYPE_FP32),
                  6400.0, EXACT, "bytes", "1 x 100 x 8 x 2 x 4");
  scale_check_rel(scale_transformer_checkpoint_bytes(&m, 100, 4, SCALE_DTYPE_BF16), 12800.0, EXACT,
                  "bytes", "4 x 100 x 8 x 2 x 2");
  scale_check_nan(scale_transformer_activation_bytes(&m, 100, SCALE_REMAT_NONE, SCALE_DTYPE_COUNT));
  scale_check_nan(scale_transformer_checkpoint_bytes(&m, 100, -1, SCALE_DTYPE_BF16));

  /* remat FLOPs, b 2, t 5: block = a second forward of the layers:
   * 2 * 2 layers * (192 + 768) * 10 tokens = 38400, plus attention forward 2 * 4*2*25*4*2 = 3200 */
  scale_check_rel(scale_transformer_remat_extra_flops(&m, 2, 5, false, SCALE_REMAT_BLOCK), 41600.0,
                  EXACT, "FLOP", "forward of every layer");
  scale_check_rel(scale_transformer_remat_extra_flops(&m, 2, 5, false, SCALE_REMAT_BIG_MATMULS),
                  3200.0, EXACT, "FLOP", "4BT^2NH per layer");
  scale_check_rel(scale_transformer_remat_extra_flops(&m, 2, 5, false, SCALE_REMAT_NONE), 0.0,
                  EXACT, "FLOP", "nothing recomputed");
  scale_check_nan(scale_transformer_remat_extra_flops(&m, 2, 5, false, SCALE_REMAT_COUNT));
  /* 6ND -> 8ND: with no attention and no vocabulary the block remat adds exactly 2ND */
  scale_model novocab = tiny();
  novocab.n_vocab = 0;
  double train = scale_transformer_flops(&novocab, 1, 1, false, SCALE_PASS_TRAIN);
  double extra = scale_transformer_remat_extra_flops(&novocab, 1, 1, false, SCALE_REMAT_BLOCK);
  double attn = 2 * scale_transformer_attention_flops(&novocab, 1, 1, 1, false, SCALE_PASS_TRAIN);
  scale_check_rel((train - attn + (extra - attn / 3)) / (train - attn), 8.0 / 6.0, EXACT, "1",
                  "ch.4: 6ND -> 8ND");
}
END_TEST

/* ---- KV cache, state, intensity ------------------------------------------------------------- */

START_TEST(test_kv_cache) {
  scale_model m = tiny(); /* 2 L K H = 2*2*2*2 = 16 elements per token */
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16), 32.0, EXACT, "bytes",
                  "2LKH x 2");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT8), 16.0, EXACT, "bytes",
                  "2LKH x 1");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT4), 8.0, EXACT, "bytes",
                  "2LKH x 0.5");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_FP32), 64.0, EXACT, "bytes",
                  "2LKH x 4");
  scale_check_rel(scale_transformer_kv_bytes(&m, 1000, SCALE_DTYPE_BF16), 32000.0, EXACT, "bytes",
                  "per token x S");
  scale_check_nan(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_COUNT));
  scale_check_nan(scale_transformer_kv_bytes(&m, -1, SCALE_DTYPE_BF16));
  scale_model a = tiny_mla(); /* L (kv_lora + rope) = 3 * 8 = 24 elements per token */
  scale_check_rel(scale_transformer_kv_bytes_per_token(&a, SCALE_DTYPE_BF16), 48.0, EXACT, "bytes",
                  "MLA: latent + rotary key (24 elements), not 2LKH = 60");
  scale_model s = tiny_mamba();
  scale_check_rel(scale_transformer_kv_bytes_per_token(&s, SCALE_DTYPE_BF16), 0.0, EXACT, "bytes",
                  "Mamba-2: no KV cache");
  /* state: 3 layers * (h p n = 4*4*4 = 64 + conv (16 + 8) * 3 = 72) = 408 elements */
  scale_check_rel(scale_transformer_state_bytes_per_sequence(&s, SCALE_DTYPE_FP32), 408.0 * 4,
                  EXACT, "bytes", "L (d_inner n + conv_dim (d_conv-1)) x 4");
  scale_check_rel(scale_transformer_state_bytes_per_sequence(&m, SCALE_DTYPE_FP32), 0.0, EXACT,
                  "bytes", "transformer: no recurrent state");
  scale_check_nan(scale_transformer_state_bytes_per_sequence(&s, SCALE_DTYPE_COUNT));
}
END_TEST

START_TEST(test_attention_intensity) {
  scale_model m = tiny(); /* G = N/K = 2 */
  /* bf16: TSG/(TG+S); t 8, s 8: 128/24 */
  scale_check_rel(scale_transformer_attention_intensity_flops_per_byte(&m, 8, 8, SCALE_DTYPE_BF16),
                  128.0 / 24.0, EXACT, "FLOP/byte", "ch.4 Q4 TSG/(TG+S)");
  scale_check_rel(scale_transformer_attention_intensity_flops_per_byte(&m, 8, 8, SCALE_DTYPE_FP8),
                  256.0 / 24.0, EXACT, "FLOP/byte", "one-byte elements: twice");
  /* generation t 1, s 1e6: SG/(G+S) -> G */
  scale_check_rel(
      scale_transformer_attention_intensity_flops_per_byte(&m, 1, 1e6, SCALE_DTYPE_BF16),
      2e6 / (2 + 1e6), EXACT, "FLOP/byte", "SG/(G+S)");
  scale_check_nan(scale_transformer_attention_intensity_flops_per_byte(&m, 0, 8, SCALE_DTYPE_BF16));
  scale_model a = tiny_mla();
  scale_check_nan(scale_transformer_attention_intensity_flops_per_byte(&a, 8, 8, SCALE_DTYPE_BF16));
}
END_TEST

/* ---- per-device blocks ---------------------------------------------------------------------- */

START_TEST(test_blocks_per_device) {
  scale_model m = tiny(); /* d 8, a 4, k 2, d_h 2 (a d_h = d), F 32 */
  double b = 3, s = 5;
  /* paper: 4bsd^2 + 4bs k d_h d + 4bs^2 d + 5bs^2 a = 3840 + 1920 + 2400 + 1500 = 9660 */
  double gqa = 9660.0;
  scale_check_rel(scale_transformer_gqa_block_flops_per_device(&m, b, s, 1, 1, 1), gqa, EXACT,
                  "FLOP", "Amer 5.1 total");
  scale_check_rel(scale_transformer_gqa_block_flops_per_device(&m, b, s, 4, 1, 1), gqa / 4, EXACT,
                  "FLOP", "TP 4");
  scale_check_rel(scale_transformer_gqa_block_flops_per_device(&m, b, s, 1, 4, 1), gqa / 4, EXACT,
                  "FLOP", "CP 4: same as TP 4");
  scale_check_rel(scale_transformer_gqa_block_flops_per_device(&m, b, s, 2, 1, 2), gqa / 4, EXACT,
                  "FLOP", "TP 2 x DP 2: only the device count matters");
  /* weights 2d^2(1 + k/a) = 2*64*1.5 = 192 params, bf16 */
  scale_check_rel(scale_transformer_gqa_block_weight_bytes_per_device(&m, 1, SCALE_DTYPE_BF16),
                  384.0, EXACT, "bytes", "2d^2(1+k/a) w_byte");
  scale_check_rel(scale_transformer_gqa_block_weight_bytes_per_device(&m, 4, SCALE_DTYPE_BF16),
                  96.0, EXACT, "bytes", "TP divides the weights");
  /* activations (3bsd + 2bsd k/a) = 15*(24 + 8) = 480 elements */
  scale_check_rel(
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 1, 1, 1, SCALE_DTYPE_BF16),
      960.0, EXACT, "bytes", "(3bsd + 2bsd k/a) a_byte");
  /* TP 4: bsd + (2bsd + 2bsd k/a)/4 = 120 + (240 + 120)/4 = 210 */
  double tp4 =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 4, 1, 1, SCALE_DTYPE_BF16);
  double cp4 =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 1, 4, 1, SCALE_DTYPE_BF16);
  double dp4 =
      scale_transformer_gqa_block_activation_bytes_per_device(&m, b, s, 1, 1, 4, SCALE_DTYPE_BF16);
  scale_check_rel(tp4, 420.0, EXACT, "bytes", "bsd + 2bsd/TP + 2bsd k/(a TP)");
  scale_check_rel(cp4, 240.0, EXACT, "bytes", "(bsd/CP)(3 + 2k/a)");
  scale_check_rel(dp4, cp4, EXACT, "bytes", "act(CP) = act(DP)");
  ck_assert_msg(tp4 > cp4, "Amer 5.1: act(TP) > act(CP)");

  /* MLP: bs(6dI + 5I) = 15 * (1536 + 160) = 25440 */
  scale_check_rel(scale_transformer_mlp_block_flops_per_device(&m, b, s, 1, 1, 1), 25440.0, EXACT,
                  "FLOP", "Amer 5.2");
  scale_check_rel(scale_transformer_mlp_block_flops_per_device(&m, b, s, 1, 2, 4), 25440.0 / 8,
                  EXACT, "FLOP", "CP 2 x DP 4");
  scale_check_rel(scale_transformer_mlp_block_weight_bytes_per_device(&m, 2, SCALE_DTYPE_BF16),
                  768.0, EXACT, "bytes", "3dI/TP x 2");
  /* (2bsd + 4bsI) = 15 * (16 + 128) = 2160 elements; TP 4: 15 * (16 + 32) = 720 */
  scale_check_rel(
      scale_transformer_mlp_block_activation_bytes_per_device(&m, b, s, 1, 1, 1, SCALE_DTYPE_INT8),
      2160.0, EXACT, "bytes", "(2bsd + 4bsI) a_byte");
  scale_check_rel(
      scale_transformer_mlp_block_activation_bytes_per_device(&m, b, s, 4, 1, 1, SCALE_DTYPE_INT8),
      720.0, EXACT, "bytes", "(2bsd + 4bsI/TP) a_byte");

  scale_model mamba = tiny_mamba(); /* (8*44 + 16*8) = 480 params */
  scale_check_rel(scale_transformer_mamba2_weight_bytes_per_device(&mamba, 2, SCALE_DTYPE_BF16),
                  480.0, EXACT, "bytes", "(d d_inproj + d_inner d)/TP x 2");
  scale_check_nan(scale_transformer_mamba2_weight_bytes_per_device(&m, 2, SCALE_DTYPE_BF16));
  scale_check_nan(scale_transformer_gqa_block_flops_per_device(&mamba, b, s, 1, 1, 1));
  scale_check_nan(scale_transformer_gqa_block_flops_per_device(&m, b, s, 0.5, 1, 1));
  scale_model plain = m;
  plain.gated_mlp = false;
  scale_check_nan(scale_transformer_mlp_block_flops_per_device(&plain, b, s, 1, 1, 1));
  scale_model mla = tiny_mla();
  scale_check_nan(scale_transformer_gqa_block_weight_bytes_per_device(&mla, 1, SCALE_DTYPE_BF16));
}
END_TEST

int main(void) {
  Suite *suite = suite_create("transformer");
  const scale_check_case cases[] = {
      {"pass factors and matmuls", test_pass_factors},
      {"einsum FLOPs", test_einsum},
      {"dense parameters", test_params_dense},
      {"MoE parameters", test_params_moe},
      {"MLA parameters", test_params_mla},
      {"Mamba-2 parameters", test_params_mamba2},
      {"FLOPs of each part", test_flops_parts},
      {"MoE and MLA FLOPs", test_flops_moe_mla},
      {"whole-model FLOPs", test_flops_total},
      {"attention share", test_attention_share},
      {"Mamba-2 FLOPs", test_mamba2_flops},
      {"MoE batch", test_moe_batch},
      {"training state memory", test_train_state},
      {"activations and remat", test_activations_remat},
      {"KV cache and state", test_kv_cache},
      {"attention intensity", test_attention_intensity},
      {"per-device blocks", test_blocks_per_device},
  };
  scale_check_add_cases(suite, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(suite);
}
