/* test_model_features.c — the features of today's models in the schema and the cost model:
 * local (sliding or chunked) attention, attention sinks, QK-norm, biases, MTP heads and
 * positional schemes. Each priced quantity against a hand derivation in the comment, or a
 * publisher's number (GPT-OSS model card, DeepSeek-V3 report). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "scale.h"
#include "scale/file.h"
#include "scale/modelimport.h"
#include "scale_check.h"

static char dir[64];

static void setup(void) { scale_check_tmpdir(dir, sizeof dir, "/tmp/scale-test-feat-XXXXXX"); }

static void teardown(void) { scale_check_rmdir(dir); }

/* A tiny GQA transformer: L 2, D 64, V 1000, N 8, K 2, H 8, F 256 gated. */
#define HEAD                                                                                       \
  "; hand arithmetic\n[model]\ndisplay_name = Tiny\narch = transformer\nn_layers = 2\n"           \
  "d_model = 64\nn_vocab = 1000\nn_ctx_max = 128\n"
#define ATTN "[attention]\nn_heads = 8\nn_kv_heads = 2\nd_head = 8\n"
#define MLP "[mlp]\nd_ff = 256\ngated_mlp = 1\n"

static scale_model load(const char *text) {
  scale_model m;
  scale_diag d = {0};
  const char *path = scale_check_write(dir, "tiny.ini", text);
  ck_assert_msg(scale_model_load_file(path, &m, &d) == SCALE_OK, "%s", d.message);
  return m;
}

static void refused(const char *text, int line, const char *words) {
  scale_model m;
  scale_diag d = {0};
  const char *path = scale_check_write(dir, "tiny.ini", text);
  ck_assert_int_ne(scale_model_load_file(path, &m, &d), SCALE_OK);
  ck_assert_int_eq(d.line, line);
  ck_assert_msg(strstr(d.message, words) != NULL, "'%s' lacks '%s'", d.message, words);
}

START_TEST(keys_load_and_bad_ones_are_refused) {
  scale_model m = load(HEAD ATTN "position = learned\nwindow_tokens = 4\nwindow_chunked = 1\n"
                                 "window_period = 2\nn_local_per_period = 1\nnope_global = 1\n"
                                 "sinks = 1\nqk_norm = 1\nqkv_bias = 1\no_bias = 1\n" MLP
                                 "mlp_bias = 1\n");
  ck_assert_int_eq(m.position, SCALE_POS_LEARNED);
  ck_assert(m.window_chunked && m.nope_global && m.sinks && m.qk_norm && m.qkv_bias && m.o_bias &&
            m.mlp_bias);
  ck_assert_int_eq(m.window_tokens, 4);
  /* an absent key keeps today's meaning: rope, no window, no extras */
  m = load(HEAD ATTN MLP);
  ck_assert_int_eq(m.position, SCALE_POS_ROPE);
  ck_assert_int_eq(scale_model_n_local_layers(&m), 0);
  refused(HEAD ATTN "position = sinusoid\n" MLP, 13, "'position' must be rope");
  refused(HEAD ATTN "window_tokens = -1\n" MLP, 13, "window_tokens");
  refused(HEAD ATTN "sinks = 2\n" MLP, 13, "sinks");
  refused(HEAD ATTN "window_period = 2\n" MLP, 0, "need window_tokens");
  refused(HEAD ATTN "window_tokens = 4\nwindow_period = 2\nn_local_per_period = 3\n" MLP, 0,
          "n_local_per_period (3) must be in [1, window_period = 2]");
  refused(HEAD "n_mtp_layers = 17\n" ATTN MLP, 9, "n_mtp_layers");
  refused(HEAD ATTN "window_tokens = 4\nnope_global = 1\n" MLP, 0, "nope_global needs");
}
END_TEST

START_TEST(local_layer_counts) {
  /* local-first periods: Gemma 3 27B 62 layers, 5 of 6 local: 10 x 5 + min(62 mod 6, 5) = 52;
   * Gemma 2 27B 46 layers, 1 of 2: 23; Llama 4 Scout 48 layers, 3 of 4: 36; period 0: all */
  struct {
    int64_t l, p, k, want;
  } cases[] = {{62, 6, 5, 52}, {46, 2, 1, 23}, {48, 4, 3, 36}, {32, 0, 0, 32}, {7, 3, 2, 5}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    scale_model m = {.n_layers = cases[i].l, .window_tokens = 1024,
                     .window_period = cases[i].p, .n_local_per_period = cases[i].k};
    ck_assert_int_eq(scale_model_n_local_layers(&m), cases[i].want);
  }
}
END_TEST

START_TEST(local_pairs_by_hand) {
  scale_model m = load(HEAD ATTN "window_tokens = 4\n" MLP);
  /* sliding W 4, six queries from position 0: 1 + 2 + 3 + 4 + 4 + 4 = 18 */
  scale_check_rel(scale_transformer_local_pairs(&m, 6, 6, true), 18, 0, "pairs", "hand sum");
  /* one query at position 9 (decode at s = 10): its window, 4 keys */
  scale_check_rel(scale_transformer_local_pairs(&m, 1, 10, true), 4, 0, "pairs", "min(10, 4)");
  m.window_chunked = true;
  /* chunked W 4, six queries: chunk 0 sees 1+2+3+4, chunk 1 sees 1+2: 13 */
  scale_check_rel(scale_transformer_local_pairs(&m, 6, 6, true), 13, 0, "pairs", "hand sum");
  /* position 9: 9 mod 4 + 1 = 2 keys of its chunk */
  scale_check_rel(scale_transformer_local_pairs(&m, 1, 10, true), 2, 0, "pairs", "9 mod 4 + 1");
}
END_TEST

START_TEST(attention_flops_average_the_layers) {
  /* 2 layers, the first local (W 4), the second global; t = s = 6 causal: global pairs
   * 6 x 7 / 2 = 21, local 18; forward 2 b pairs N (2H) per layer: the average layer
   * 2 x 19.5 x 8 x 16 = 4992 FLOPs */
  scale_model m = load(HEAD ATTN "window_tokens = 4\nwindow_period = 2\nn_local_per_period = 1\n" MLP);
  scale_check_rel(scale_transformer_attention_flops(&m, 1, 6, 6, true, SCALE_PASS_FORWARD), 4992,
                  1e-15, "FLOP", "hand derivation in the comment");
  scale_model g = load(HEAD ATTN MLP);
  scale_check_rel(scale_transformer_attention_flops(&g, 1, 6, 6, true, SCALE_PASS_FORWARD),
                  2 * 21 * 8 * 16, 1e-15, "FLOP", "global: 21 pairs");
  /* the model's FLOPs differ by exactly the two layers' attention difference */
  double dm = scale_transformer_flops(&g, 1, 6, true, SCALE_PASS_TRAIN) -
              scale_transformer_flops(&m, 1, 6, true, SCALE_PASS_TRAIN);
  scale_check_rel(dm, 3 * 2 * (21 - 18) * 8 * 16, 1e-12, "FLOP", "one layer, 3 fewer pairs, x3");
}
END_TEST

START_TEST(gemma3_kv_cache_at_32k) {
  /* Gemma 3 27B (config: 62 layers, 16 KV heads x 128, sliding_window 1024, 5 local per
   * global): per layer and token 2 K H x 2 bytes = 8192 bytes in bf16. At 32768 tokens the 52
   * local layers hold 1024 tokens, the 10 global ones 32768: 8192 x (52 x 1024 + 10 x 32768) =
   * 3,120,562,176 bytes, against 8192 x 62 x 32768 = 16,642,998,272 global-only (5.3x). */
  scale_model m = {.arch = SCALE_ARCH_TRANSFORMER, .n_layers = 62, .d_model = 5376,
                   .n_vocab = 262208, .n_heads = 32, .n_kv_heads = 16, .d_head = 128,
                   .d_ff = 21504, .gated_mlp = true, .window_tokens = 1024,
                   .window_period = 6, .n_local_per_period = 5};
  scale_check_rel(scale_transformer_kv_bytes(&m, 32768, SCALE_DTYPE_BF16), 3120562176.0, 1e-15,
                  "B", "hand derivation in the comment");
  scale_check_rel(scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16) * 32768,
                  16642998272.0, 1e-15, "B", "global-only");
  /* below the window every layer holds every token */
  scale_check_rel(scale_transformer_kv_bytes(&m, 1000, SCALE_DTYPE_BF16), 8192.0 * 62 * 1000,
                  1e-15, "B", "1000 < 1024 tokens");
  /* inference's per-sequence KV is the same count */
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_infer_config cfg = scale_infer_config_default(1, 1, 32768);
  cfg.kv_dtype = SCALE_DTYPE_BF16;
  scale_infer_memory mem = scale_infer_memory_eval(&m, &h100, &cfg);
  scale_check_rel(mem.kv_bytes_per_sequence, 3120562176.0, 1e-15, "B", "as above");
}
END_TEST

START_TEST(extras_count_their_parameters) {
  /* per layer: QK-norm 2H = 16, sinks N = 8, QKV bias (N + 2K) H = 96, out bias D = 64, MLP
   * bias 2F + D = 576: 760 a layer, 1520 for 2 layers; learned positions n_ctx_max D = 8192 */
  scale_model plain = load(HEAD ATTN MLP);
  scale_model m = load(HEAD ATTN "sinks = 1\nqk_norm = 1\nqkv_bias = 1\no_bias = 1\n" MLP
                                 "mlp_bias = 1\n");
  scale_check_rel(scale_transformer_n_params(&m) - scale_transformer_n_params(&plain), 1520, 0,
                  "", "hand derivation in the comment");
  /* vector work: no FLOPs (the FLOP contract of transformer.h) */
  scale_check_rel(scale_transformer_flops(&m, 1, 16, true, SCALE_PASS_TRAIN),
                  scale_transformer_flops(&plain, 1, 16, true, SCALE_PASS_TRAIN), 0, "FLOP",
                  "biases, norms and sinks are vector work");
  scale_model pos = load(HEAD ATTN "position = learned\n" MLP);
  scale_check_rel(scale_transformer_n_params(&pos) - scale_transformer_n_params(&plain), 8192, 0,
                  "", "128 positions x D 64");
}
END_TEST

START_TEST(gpt_oss_120b_model_card) {
  /* OpenAI, gpt-oss model card (arXiv 2508.10925), Table 1: 116.83B total, 5.13B active per
   * token; the active count leaves out the input embedding (V D = 201088 x 2880, a lookup)
   * and keeps the unembedding. With sinks and biases counted (the imported config). */
  scale_model m;
  char path[512];
  snprintf(path, sizeof path, "%s/hf/gpt-oss-120b.json", SCALE_TEST_DATA_DIR);
  char *text = NULL;
  size_t len = 0;
  ck_assert_int_eq(scale_file_read(path, &text, &len, NULL), SCALE_OK);
  scale_json *j = NULL;
  ck_assert_int_eq(scale_json_parse(text, len, &j, NULL), SCALE_OK);
  ck_assert_int_eq(scale_model_import_hf(scale_json_root(j), "g", &m, NULL, NULL), SCALE_OK);
  scale_json_free(j);
  free(text);
  scale_check_rel(scale_transformer_n_params(&m), 116.83e9, 5e-4, "", "model card Table 1");
  double active = scale_transformer_n_active_params(&m) - 201088.0 * 2880.0;
  scale_check_rel(active, 5.13e9, 5e-3, "", "model card Table 1");
}
END_TEST

START_TEST(qwen25_qkv_bias_exact) {
  /* Qwen2.5 7B's checkpoint holds 7,615,616,512 parameters (HF Qwen/Qwen2.5-7B); without its
   * q, k, v biases the schema counted 129,024 fewer: (28 + 2 x 4) x 128 x 28 layers. */
  scale_model m = scale_check_model("qwen-2.5-7b");
  ck_assert(m.qkv_bias);
  scale_check_rel(scale_transformer_n_params(&m), 7615616512.0, 0, "", "the checkpoint's count");
}
END_TEST

START_TEST(deepseek_v3_mtp_apart) {
  /* DeepSeek-V3 report (arXiv 2412.19437) section 4.2 and its model card: 671B main
   * parameters, and the published checkpoint 685B with the 14B of the MTP module. Our MTP
   * count: one MoE block, the 2D x D projection, 3 norms, and the checkpoint's copies of the
   * embedding and head: 13.46e9, "14B" being 685 - 671 of rounded totals (within 4%). */
  scale_model m = scale_check_model("deepseek-v3");
  ck_assert_int_eq(m.n_mtp_layers, 1);
  scale_check_rel(scale_transformer_n_params(&m), 671e9, 2e-3, "", "report: 671B main");
  scale_check_rel(scale_transformer_n_mtp_params(&m), 14e9, 0.04, "", "685B - 671B");
}
END_TEST

START_TEST(mtp_train_flops_by_hand) {
  /* one MTP depth on a dense model, t = 16 tokens: 6 (attention matrices 2 D (N + K) H =
   * 10240 + MLP 3 D F = 49152 + projection 2 D^2 = 8192) x 16 + causal attention 3 x 2 x
   * 136 pairs x 8 x 16 + the head 6 D V x 16 */
  scale_model m = load(HEAD "n_mtp_layers = 1\n" ATTN MLP);
  double want = 6.0 * (10240 + 49152 + 8192) * 16 + 3.0 * 2 * 136 * 8 * 16 + 6.0 * 64 * 1000 * 16;
  scale_check_rel(scale_transformer_mtp_train_flops(&m, 1, 16), want, 1e-15, "FLOP",
                  "hand derivation in the comment");
  /* apart from the model's FLOPs */
  scale_model plain = load(HEAD ATTN MLP);
  scale_check_rel(scale_transformer_flops(&m, 1, 16, true, SCALE_PASS_TRAIN),
                  scale_transformer_flops(&plain, 1, 16, true, SCALE_PASS_TRAIN), 0, "FLOP",
                  "MTP counted apart");
}
END_TEST

static scale_step_job job(const scale_model *m, const scale_chip *c) {
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = m, j.chip = c;
  j.dp = 8, j.tp = j.pp = j.cp = j.ep = 1, j.mbs = 1, j.vp = 1, j.gbs = 8, j.seq = 8192;
  j.zero = 1, j.attention = SCALE_ATTENTION_FLASH, j.dtype = SCALE_DTYPE_BF16;
  return j;
}

START_TEST(step_prices_the_window) {
  /* Gemma 3 27B's shape at 8192 tokens: the MFU's model FLOPs take the 10 global layers at
   * s/2 keys a query and the 52 local ones at their window's pairs over the sequence,
   * (1024 x 1025 / 2 + 7168 x 1024) / 8192 = 960.06 keys: attention 12 N H tokens x
   * (10 x 4096 + 52 x 960.06) on top of 6 N_active tokens */
  scale_model m = {.arch = SCALE_ARCH_TRANSFORMER, .n_layers = 62, .d_model = 5376,
                   .n_vocab = 262208, .n_heads = 32, .n_kv_heads = 16, .d_head = 128,
                   .d_ff = 21504, .gated_mlp = true, .tied_embeddings = true,
                   .window_tokens = 1024, .window_period = 6, .n_local_per_period = 5};
  scale_model global = m;
  global.window_tokens = global.window_period = global.n_local_per_period = 0;
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_step_params p = scale_step_params_prior();
  scale_step_job jl = job(&m, &h100), jg = job(&global, &h100);
  scale_step_result rl, rg;
  scale_step_eval(&jl, &p, &rl);
  scale_step_eval(&jg, &p, &rg);
  double tokens = 8.0 * 8192, keys = (1024.0 * 1025 / 2 + 7168.0 * 1024) / 8192;
  double want = 6 * scale_transformer_n_active_params(&m) * tokens +
                12.0 * 32 * 128 * tokens * (10 * 4096.0 + 52 * keys);
  scale_check_rel(rl.model_flops, want, 1e-12, "FLOP", "hand derivation in the comment");
  /* the scores op: the local layers' share runs ~8.5x fewer keys, so the op is well below
   * the global-only one, and above the 10 global layers' share of it */
  ck_assert(rl.op_s[SCALE_STEP_OP_SCORES] < 0.4 * rg.op_s[SCALE_STEP_OP_SCORES]);
  ck_assert(rl.op_s[SCALE_STEP_OP_SCORES] > 10.0 / 62 * rg.op_s[SCALE_STEP_OP_SCORES]);
  /* the rest of the layer is untouched */
  scale_check_rel(rl.op_s[SCALE_STEP_OP_QKV], rg.op_s[SCALE_STEP_OP_QKV], 0, "s", "same matmul");
}
END_TEST

START_TEST(memory_flash_is_window_free) {
  /* flash attention keeps O(s) per layer (the logsumexp), unfused s x s: a local kernel with
   * flash keeps what a global one keeps, so the window changes no activation byte */
  scale_model m = load(HEAD ATTN "window_tokens = 4\n" MLP), g = load(HEAD ATTN MLP);
  scale_memory_act act = {.tp = 1, .cp = 1, .act_bytes = 2, .flash = true,
                          .recompute = SCALE_RECOMPUTE_NONE};
  scale_check_rel(scale_memory_layer_activation_bytes(&m, 1, 64, &act),
                  scale_memory_layer_activation_bytes(&g, 1, 64, &act), 0, "B", "flash");
}
END_TEST

static Suite *features_suite(void) {
  Suite *s = suite_create("model_features");
  TCase *tc = tcase_create("features");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, keys_load_and_bad_ones_are_refused);
  tcase_add_test(tc, local_layer_counts);
  tcase_add_test(tc, local_pairs_by_hand);
  tcase_add_test(tc, attention_flops_average_the_layers);
  tcase_add_test(tc, gemma3_kv_cache_at_32k);
  tcase_add_test(tc, extras_count_their_parameters);
  tcase_add_test(tc, gpt_oss_120b_model_card);
  tcase_add_test(tc, qwen25_qkv_bias_exact);
  tcase_add_test(tc, deepseek_v3_mtp_apart);
  tcase_add_test(tc, mtp_train_flops_by_hand);
  tcase_add_test(tc, step_prices_the_window);
  tcase_add_test(tc, memory_flash_is_window_free);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(features_suite()); }
