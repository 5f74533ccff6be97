/* test_model_data.c — evidence tests for the shipped model files, models/NAME.ini.
 *
 * Three kinds of evidence:
 *   1. every shipped model loads through scale_model_load() (stems listed explicitly, and
 *      scale_data_list() finds at least as many);
 *   2. every field of every file equals the published configuration, typed here a second time
 *      from the source named in each row (HuggingFace config.json, the model's paper);
 *   3. a parameter count written out in this file, from the loaded fields only (no library
 *      function), matches the publisher's own total, n_params_reported.
 * Plus the book's own figures for the models it uses (chapters 4-8), recomputed exactly; where
 * the book's printed figure is off, the comment names it.
 *
 * Only model.h and hardware.h (scale_data_list) are used.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale_check.h"

/* ---- the shipped stems ---------------------------------------------------------------------- */

static const char *const shipped[] = {
    "llama-2-7b",  "llama-2-13b", "llama-2-70b",  "llama-3-8b",   "llama-3-70b",
    "llama-3-405b", "gemma-7b",   "gemma-2-27b",  "mixtral-8x7b", "deepseek-v3",
    "gpt-3-175b",  "mamba-2-2.7b", "qwen-2.5-7b", "qwen3-30b-a3b", "qwen3-8b",
    "qwen3-14b",   "qwen3-32b",   "gpt-oss-20b",
};
enum { N_SHIPPED = (int)(sizeof shipped / sizeof shipped[0]) };

/* ---- the published configurations ---------------------------------------------------------- */

/* One row: the values a model's publisher gives, the tolerance of this file's independent
 * parameter count against the publisher's total, and why that tolerance. */
typedef struct {
  const char *source;   /* where every number of 'want' comes from */
  scale_model want;     /* expected record; absent sections stay 0 */
  double count_rtol;    /* |count - n_params_reported| / n_params_reported allowed */
  const char *count_why;
} published;

#define EXACT 1e-12

static const published models[] = {
    {"HF meta-llama/Llama-2-7b-hf config.json; arXiv 2307.09288 Table 1",
     {.name = "llama-2-7b", .display_name = "LLaMA 2 7B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 32, .d_model = 4096, .n_vocab = 32000, .tied_embeddings = false,
      .n_ctx_max = 4096, .n_params_reported = 6738415616.0, .n_heads = 32, .n_kv_heads = 32,
      .d_head = 128, .d_ff = 11008, .gated_mlp = true},
     EXACT, "the checkpoint holds exactly embeddings, q/k/v/o, gate/up/down and RMSNorms"},
    {"HF meta-llama/Llama-2-13b-hf config.json; arXiv 2307.09288 Table 1; book ch. 5, ch. 7",
     {.name = "llama-2-13b", .display_name = "LLaMA 2 13B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 40, .d_model = 5120, .n_vocab = 32000, .tied_embeddings = false,
      .n_ctx_max = 4096, .n_params_reported = 13015864320.0, .n_heads = 40, .n_kv_heads = 40,
      .d_head = 128, .d_ff = 13824, .gated_mlp = true},
     EXACT, "as LLaMA 2 7B"},
    {"HF meta-llama/Llama-2-70b-hf config.json; arXiv 2307.09288 Table 1",
     {.name = "llama-2-70b", .display_name = "LLaMA 2 70B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 80, .d_model = 8192, .n_vocab = 32000, .tied_embeddings = false,
      .n_ctx_max = 4096, .n_params_reported = 68976648192.0, .n_heads = 64, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 28672, .gated_mlp = true},
     EXACT, "as LLaMA 2 7B"},
    {"HF meta-llama/Meta-Llama-3-8B config.json; arXiv 2407.21783 Table 3; book ch. 7",
     {.name = "llama-3-8b", .display_name = "LLaMA 3 8B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 32, .d_model = 4096, .n_vocab = 128256, .tied_embeddings = false,
      .n_ctx_max = 8192, .n_params_reported = 8030261248.0, .n_heads = 32, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 14336, .gated_mlp = true},
     EXACT, "as LLaMA 2 7B"},
    {"HF meta-llama/Meta-Llama-3-70B config.json; arXiv 2407.21783 Table 3; book ch. 6, ch. 8",
     {.name = "llama-3-70b", .display_name = "LLaMA 3 70B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 80, .d_model = 8192, .n_vocab = 128256, .tied_embeddings = false,
      .n_ctx_max = 8192, .n_params_reported = 70553706496.0, .n_heads = 64, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 28672, .gated_mlp = true},
     EXACT, "as LLaMA 2 7B"},
    {"HF meta-llama/Llama-3.1-405B config.json (linked by book ch. 6 Q2); arXiv 2407.21783",
     {.name = "llama-3-405b", .display_name = "LLaMA 3.1 405B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 126, .d_model = 16384, .n_vocab = 128256, .tied_embeddings = false,
      .n_ctx_max = 131072, .n_params_reported = 405853388800.0, .n_heads = 128,
      .n_kv_heads = 8, .d_head = 128, .d_ff = 53248, .gated_mlp = true},
     EXACT, "as LLaMA 2 7B"},
    {"HF google/gemma-7b config.json; arXiv 2403.08295 Tables 1 and 2",
     {.name = "gemma-7b", .display_name = "Gemma 7B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 28, .d_model = 3072, .n_vocab = 256000, .tied_embeddings = true,
      .n_ctx_max = 8192, .n_params_reported = 8538074112.0, .n_heads = 16, .n_kv_heads = 16,
      .d_head = 256, .d_ff = 24576, .gated_mlp = true},
     /* The paper's Table 2 counts a 256128-row embedding (786,825,216 = 256128 x 3072); the
      * config's vocabulary is 256000: 128 x 3072 = 393,216 fewer, 4.6e-5 of the total. */
     1e-4, "paper counts 128 padding rows of the embedding that the config drops"},
    {"HF google/gemma-2-27b config.json; arXiv 2408.00118 Tables 1 and 2; book ch. 4",
     {.name = "gemma-2-27b", .display_name = "Gemma 2 27B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 46, .d_model = 4608, .n_vocab = 256000, .tied_embeddings = true,
      .n_ctx_max = 8192, .n_params_reported = 27227128320.0, .n_heads = 32, .n_kv_heads = 16,
      .d_head = 128, .d_ff = 36864, .gated_mlp = true, .window_tokens = 4096,
      .window_period = 2, .n_local_per_period = 1},
     /* Gemma 2 has 4 RMSNorms per layer (pre and post, around attention and MLP); the count
      * below has 2: 46 x 2 x 4608 = 423,936 fewer, 1.6e-5 of the total. */
     1e-4, "two post-norms per layer not in the simple count"},
    {"HF mistralai/Mixtral-8x7B-v0.1 config.json; arXiv 2401.04088 Table 1",
     {.name = "mixtral-8x7b", .display_name = "Mixtral 8x7B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 32, .d_model = 4096, .n_vocab = 32000, .tied_embeddings = false,
      .n_ctx_max = 32768, .n_params_reported = 46702792704.0, .n_heads = 32, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 0, .gated_mlp = true, .n_experts = 8, .n_experts_active = 2,
      .n_shared_experts = 0, .d_ff_expert = 14336, .n_dense_layers = 0},
     EXACT, "embeddings, attention, 8 SwiGLU experts, router, RMSNorms: the whole checkpoint"},
    {"HF deepseek-ai/DeepSeek-V3 config.json; arXiv 2412.19437 sections 2.1, 4.2, 4.3",
     {.name = "deepseek-v3", .display_name = "DeepSeek-V3", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 61, .d_model = 7168, .n_vocab = 129280, .tied_embeddings = false,
      .n_ctx_max = 131072, .n_params_reported = 671e9, .n_heads = 128, .n_kv_heads = 128,
      .d_head = 192, .d_ff = 18432, .gated_mlp = true, .n_experts = 256, .n_experts_active = 8,
      .n_shared_experts = 1, .d_ff_expert = 2048, .n_dense_layers = 3, .q_lora_rank = 1536,
      .kv_lora_rank = 512, .d_head_rope = 64, .d_head_nope = 128, .d_head_v = 128,
      .n_mtp_layers = 1},
     /* The report prints "671B": half a unit of its last digit is 0.5e9 / 671e9 = 7.5e-4.
      * The count below gives 671,026,404,352 (3.9e-5 above). */
     7.5e-4, "the report rounds to 671B"},
    {"arXiv 2005.14165 Table 2.1 and section 2.1 (GPT-3 175B)",
     {.name = "gpt-3-175b", .display_name = "GPT-3 175B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 96, .d_model = 12288, .n_vocab = 50257, .tied_embeddings = true,
      .n_ctx_max = 2048, .n_params_reported = 175e9, .n_heads = 96, .n_kv_heads = 96,
      .d_head = 128, .d_ff = 49152, .gated_mlp = false},
     /* The count below gives 174,566,105,088; adding the learned position embeddings
      * (2048 x 12288 = 25.2M), the biases (96 x (4D + F + D) = 10.6M) and the LayerNorm
      * offsets (1.2M) still gives only about 174.60e9. The paper's "175.0B" is 0.23% high: its
      * last printed digit is not exact arithmetic. Documented exception: 0.5%. */
     5e-3, "paper's 175.0B is 0.23% above exact arithmetic"},
    {"HF Qwen/Qwen2.5-7B config.json and model card (7.61B); arXiv 2412.15115",
     {.name = "qwen-2.5-7b", .display_name = "Qwen2.5 7B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 28, .d_model = 3584, .n_vocab = 152064, .tied_embeddings = false,
      .n_ctx_max = 32768, .n_params_reported = 7615616512.0, .n_heads = 28, .n_kv_heads = 4,
      .d_head = 128, .d_ff = 18944, .gated_mlp = true, .qkv_bias = true},
     /* The q, k, v biases, 28 x (3584 + 512 + 512) = 129,024, are counted below. */
     EXACT, "embeddings, attention with q/k/v biases, SwiGLU, RMSNorms: the whole checkpoint"},
    {"HF Qwen/Qwen3-30B-A3B config.json (max_position_embeddings 40960) and model card (30.5B "
     "total); arXiv 2505.09388",
     {.name = "qwen3-30b-a3b", .display_name = "Qwen3-30B-A3B",
      .arch = SCALE_ARCH_TRANSFORMER, .n_layers = 48, .d_model = 2048, .n_vocab = 151936,
      .tied_embeddings = false, .n_ctx_max = 40960, .n_params_reported = 30.5e9, .n_heads = 32,
      .n_kv_heads = 4, .d_head = 128, .d_ff = 0, .gated_mlp = true, .n_experts = 128,
      .n_experts_active = 8, .n_shared_experts = 0, .d_ff_expert = 768, .n_dense_layers = 0,
      .qk_norm = true},
     /* The card prints "30.5B": half a unit of the last digit is 0.05e9 / 30.5e9 = 1.64e-3.
      * The count below gives 30,532,122,624 (1.05e-3 above; Keras Hub's count). */
     1.64e-3, "the model card rounds to 30.5B"},
    /* Qwen3 dense (model_type qwen3): config.json of each, as vendored verbatim in
     * citsjtu2020/LLM-Prof sglang/Model_Config.md (commit 8434c8d); totals from Keras Hub's
     * Qwen3 presets (keras-team/keras-hub keras_hub/src/models/qwen3/qwen3_presets.py,
     * commit 1df65da), which count every tensor of the checkpoint, QK-norm included. */
    {"HF Qwen/Qwen3-8B config.json; Keras Hub qwen3_8b_en: 8,190,735,360",
     {.name = "qwen3-8b", .display_name = "Qwen3-8B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 36, .d_model = 4096, .n_vocab = 151936, .tied_embeddings = false,
      .n_ctx_max = 40960, .n_params_reported = 8190735360.0, .n_heads = 32, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 12288, .gated_mlp = true, .qk_norm = true},
     EXACT, "embeddings, attention, QK-norm, SwiGLU, RMSNorms: the whole checkpoint"},
    {"HF Qwen/Qwen3-14B config.json; Keras Hub qwen3_14b_en: 14,768,307,200",
     {.name = "qwen3-14b", .display_name = "Qwen3-14B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 40, .d_model = 5120, .n_vocab = 151936, .tied_embeddings = false,
      .n_ctx_max = 40960, .n_params_reported = 14768307200.0, .n_heads = 40, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 17408, .gated_mlp = true, .qk_norm = true},
     EXACT, "embeddings, attention, QK-norm, SwiGLU, RMSNorms: the whole checkpoint"},
    {"HF Qwen/Qwen3-32B config.json; Keras Hub qwen3_32b_en: 32,762,123,264",
     {.name = "qwen3-32b", .display_name = "Qwen3-32B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 64, .d_model = 5120, .n_vocab = 151936, .tied_embeddings = false,
      .n_ctx_max = 40960, .n_params_reported = 32762123264.0, .n_heads = 64, .n_kv_heads = 8,
      .d_head = 128, .d_ff = 25600, .gated_mlp = true, .qk_norm = true},
     /* 64 heads of 128 = 8192 wide on a 5120 residual: H is not D / N. */
     EXACT, "embeddings, attention, QK-norm, SwiGLU, RMSNorms: the whole checkpoint"},
    {"HF openai/gpt-oss-20b config.json (EchoCog/gpt-oss-20b config.json, commit 52971a1); "
     "arXiv 2508.10925 (20.9B total, 3.6B active)",
     {.name = "gpt-oss-20b", .display_name = "GPT-OSS-20B", .arch = SCALE_ARCH_TRANSFORMER,
      .n_layers = 24, .d_model = 2880, .n_vocab = 201088, .tied_embeddings = false,
      .n_ctx_max = 131072, .n_params_reported = 20.9e9, .n_heads = 64, .n_kv_heads = 8,
      .d_head = 64, .d_ff = 0, .gated_mlp = true, .n_experts = 32, .n_experts_active = 4,
      .n_shared_experts = 0, .d_ff_expert = 2880, .n_dense_layers = 0, .window_tokens = 128,
      .window_period = 2, .n_local_per_period = 1, .sinks = true, .qkv_bias = true,
      .o_bias = true, .mlp_bias = true},
     /* The card prints "20.9B": half a unit of the last digit is 0.05e9 / 20.9e9 = 2.4e-3.
      * The count below gives 20,914,757,184 (7.0e-4 above). */
     2.4e-3, "the model card rounds to 20.9B"},
};
enum { N_MODELS = (int)(sizeof models / sizeof models[0]) };

/* Mamba-2 2.7B: HF state-spaces/mamba2-2.7b config.json (d_model 2560, n_layer 64, vocab 50277
 * padded to a multiple of 16 = 50288, tied embeddings, ssm_cfg {"layer": "Mamba2"}) and the
 * defaults of mamba_ssm/modules/mamba2.py (d_state 128, d_conv 4, expand 2, headdim 64,
 * ngroups 1, chunk_size 256); nheads = expand x d_model / headdim = 5120 / 64 = 80. */
static const scale_model mamba2_2_7b = {
    .name = "mamba-2-2.7b", .display_name = "Mamba-2 2.7B", .arch = SCALE_ARCH_MAMBA2,
    .n_layers = 64, .d_model = 2560, .n_vocab = 50288, .tied_embeddings = true,
    .n_ctx_max = 2048, .n_params_reported = 2.7e9, .ssm_d_state = 128, .ssm_n_heads = 80,
    .ssm_d_head = 64, .ssm_expand = 2, .ssm_n_groups = 1, .ssm_d_conv = 4,
    .ssm_chunk_size = 256};

/* Asserts that every field of 'got' equals 'want'. */
static void expect_record(const scale_model *got, const scale_model *want, const char *source) {
#define SAME_INT(f)                                                                           \
  ck_assert_msg(got->f == want->f, "%s: %s = %lld, published %lld (%s)", want->name, #f,     \
                (long long)got->f, (long long)want->f, source)
  ck_assert_str_eq(got->name, want->name);
  ck_assert_str_eq(got->display_name, want->display_name);
  ck_assert_msg(got->arch == want->arch, "%s: arch", want->name);
  ck_assert_msg(got->tied_embeddings == want->tied_embeddings, "%s: tied_embeddings (%s)",
                want->name, source);
  ck_assert_msg(got->gated_mlp == want->gated_mlp, "%s: gated_mlp (%s)", want->name, source);
  scale_check_rel(got->n_params_reported, want->n_params_reported, 0.0, "parameters", source);
  SAME_INT(n_layers);
  SAME_INT(d_model);
  SAME_INT(n_vocab);
  SAME_INT(n_ctx_max);
  SAME_INT(n_heads);
  SAME_INT(n_kv_heads);
  SAME_INT(d_head);
  SAME_INT(d_ff);
  SAME_INT(n_experts);
  SAME_INT(n_experts_active);
  SAME_INT(n_shared_experts);
  SAME_INT(d_ff_expert);
  SAME_INT(n_dense_layers);
  SAME_INT(q_lora_rank);
  SAME_INT(kv_lora_rank);
  SAME_INT(d_head_rope);
  SAME_INT(d_head_nope);
  SAME_INT(d_head_v);
  SAME_INT(ssm_d_state);
  SAME_INT(ssm_n_heads);
  SAME_INT(ssm_d_head);
  SAME_INT(ssm_expand);
  SAME_INT(ssm_n_groups);
  SAME_INT(ssm_d_conv);
  SAME_INT(ssm_chunk_size);
  SAME_INT(n_mtp_layers);
  SAME_INT(position);
  SAME_INT(window_tokens);
  SAME_INT(window_chunked);
  SAME_INT(window_period);
  SAME_INT(n_local_per_period);
  SAME_INT(nope_global);
  SAME_INT(sinks);
  SAME_INT(qk_norm);
  SAME_INT(qkv_bias);
  SAME_INT(o_bias);
  SAME_INT(mlp_bias);
#undef SAME_INT
}

/* ---- an independent parameter count ----------------------------------------------------------
 *
 * Written out here from the record's fields, on purpose without any library function:
 *   embeddings  V*D, twice when the unembedding is a separate matrix;
 *   attention   per layer, standard: Q D*N*H, K and V 2*D*K*H, O N*H*D;
 *               MLA (kv_lora_rank > 0): Q D*q_lora + q_lora (its RMSNorm) + q_lora*N*(nope+rope)
 *               (or D*N*(nope+rope) when q_lora is 0), KV D*(kv_lora+rope) + kv_lora (norm)
 *               + kv_lora*N*(nope+v), O N*v*D;
 *   MLP         m = 3 matrices when gated, else 2; a dense layer m*D*F; a MoE layer
 *               (E + shared)*m*D*F_e plus the router E*D; the first n_dense_layers are dense
 *               (all layers when E = 0);
 *   norms       2*D per layer and D for the final norm (RMSNorm scales);
 *   extras      qk_norm 2*H a layer (a query and a key RMSNorm of width H, Qwen3); qkv_bias
 *               (N + 2K)*H and o_bias D a layer; sinks N a layer (GPT-OSS); mlp_bias, per
 *               routed expert 2*F_e + D (gate/up and down) plus E for the router (GPT-OSS).
 * 'active' counts k routed experts (plus the shared ones) instead of all E. MTP layers
 * (DeepSeek-V3) are not counted: the report's 671B leaves its 14B MTP module out.
 */
static double transformer_params(const scale_model *m, bool active) {
  double L = (double)m->n_layers, D = (double)m->d_model, V = (double)m->n_vocab;
  double N = (double)m->n_heads, K = (double)m->n_kv_heads, H = (double)m->d_head;
  double embeddings = V * D * (m->tied_embeddings ? 1.0 : 2.0);

  double attention;
  if (m->kv_lora_rank > 0) {
    double ql = (double)m->q_lora_rank, kvl = (double)m->kv_lora_rank;
    double rope = (double)m->d_head_rope, nope = (double)m->d_head_nope;
    double v = (double)m->d_head_v;
    double q = ql > 0 ? D * ql + ql + ql * N * (nope + rope) : D * N * (nope + rope);
    double kv = D * (kvl + rope) + kvl + kvl * N * (nope + v);
    attention = q + kv + N * v * D;
  } else {
    attention = 2.0 * D * N * H + 2.0 * D * K * H;
  }
  if (m->qk_norm) attention += 2.0 * H;
  if (m->qkv_bias) attention += (N + 2.0 * K) * H;
  if (m->o_bias) attention += D;
  if (m->sinks) attention += N;

  double mats = m->gated_mlp ? 3.0 : 2.0;
  double n_moe = m->n_experts > 0 ? (double)(m->n_layers - m->n_dense_layers) : 0.0;
  double n_dense = L - n_moe;
  double experts = (double)(active ? m->n_experts_active : m->n_experts);
  double moe_layer = (experts + (double)m->n_shared_experts) * mats * D *
                         (double)m->d_ff_expert +
                     (double)m->n_experts * D;
  if (m->mlp_bias && m->n_experts > 0)
    moe_layer += experts * (2.0 * (double)m->d_ff_expert + D) + (double)m->n_experts;
  double dense_layer = mats * D * (double)m->d_ff;

  return embeddings + L * (attention + 2.0 * D) + n_dense * dense_layer + n_moe * moe_layer + D;
}

/* Mamba-2 (mamba_ssm/modules/mamba2.py), per layer with d_inner = expand*D, h heads, G groups,
 * state N: in_proj D*(2*d_inner + 2*G*N + h) (z, x, B, C, dt), depthwise conv with bias
 * (d_inner + 2*G*N)*(d_conv + 1), dt_bias, A_log and D 3*h, gated RMSNorm d_inner, out_proj
 * d_inner*D, the block's RMSNorm D; plus embeddings V*D (tied) and the final norm D. */
static double mamba2_params(const scale_model *m) {
  double D = (double)m->d_model, d_inner = (double)(m->ssm_expand * m->d_model);
  double h = (double)m->ssm_n_heads, G = (double)m->ssm_n_groups;
  double N = (double)m->ssm_d_state, w = (double)m->ssm_d_conv;
  double layer = D * (2.0 * d_inner + 2.0 * G * N + h) + (d_inner + 2.0 * G * N) * (w + 1.0) +
                 3.0 * h + d_inner + d_inner * D + D;
  double embeddings = (double)m->n_vocab * D * (m->tied_embeddings ? 1.0 : 2.0);
  return embeddings + (double)m->n_layers * layer + D;
}

/* ---- tests: loading ------------------------------------------------------------------------- */

START_TEST(every_shipped_model_loads) {
  scale_model m = scale_check_model(shipped[_i]);
  ck_assert_str_eq(m.name, shipped[_i]);
  ck_assert_msg(m.display_name[0] != '\0', "%s: empty display_name", shipped[_i]);
  ck_assert_msg(m.n_params_reported > 0, "%s: n_params_reported missing", shipped[_i]);
  ck_assert_msg(m.n_ctx_max > 0, "%s: n_ctx_max missing", shipped[_i]);
}
END_TEST

START_TEST(data_list_finds_every_model) {
  char names[128][SCALE_NAME_MAX];
  int n = scale_data_list("models", names, 128);
  ck_assert_msg(n >= 12, "scale_data_list(\"models\") found %d files, want >= 12", n);
  ck_assert_msg(n >= N_SHIPPED, "found %d files, %d shipped", n, N_SHIPPED);
  for (int s = 0; s < N_SHIPPED; s++) {
    bool found = false;
    for (int i = 0; i < n && i < 128; i++) found = found || strcmp(names[i], shipped[s]) == 0;
    ck_assert_msg(found, "scale_data_list misses %s", shipped[s]);
  }
  for (int i = 0; i < n && i < 128; i++) /* no broken file ships */
    (void)scale_check_model(names[i]);
}
END_TEST

/* ---- tests: fields equal the published configuration ----------------------------------------- */

START_TEST(fields_match_published_config) {
  const published *p = &models[_i];
  scale_model m = scale_check_model(p->want.name);
  expect_record(&m, &p->want, p->source);
}
END_TEST

START_TEST(mamba2_fields_match_published_config) {
  scale_model m = scale_check_model("mamba-2-2.7b");
  expect_record(&m, &mamba2_2_7b, "HF state-spaces/mamba2-2.7b config + Mamba2 defaults");
  /* d_inner = expand x D = 5120, split into 80 heads of 64 channels. */
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), 5120);
  ck_assert_int_eq(m.ssm_n_heads * m.ssm_d_head, scale_model_ssm_d_inner(&m));
  ck_assert(!scale_model_is_moe(&m));
}
END_TEST

START_TEST(moe_flag_and_ssm_width_follow_the_architecture) {
  const scale_model *w = &models[_i].want;
  scale_model m = scale_check_model(w->name);
  ck_assert_msg(scale_model_is_moe(&m) == (w->n_experts > 0), "%s: is_moe", w->name);
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), 0); /* transformers have no SSM */
}
END_TEST

/* ---- tests: parameter counts ----------------------------------------------------------------- */

START_TEST(counted_params_match_reported) {
  const published *p = &models[_i];
  scale_model m = scale_check_model(p->want.name);
  scale_check_rel(transformer_params(&m, false), m.n_params_reported, p->count_rtol,
                  "parameters", p->count_why);
}
END_TEST

START_TEST(mamba2_counted_params_match_reported) {
  scale_model m = scale_check_model("mamba-2-2.7b");
  /* Hand count: layer = 2560*(10240+256+80) + 5376*5 + 240 + 5120 + 5120*2560 + 2560
   * = 40,216,560; x 64 + 50288*2560 + 2560 = 2,702,599,680. The name says "2.7B": half a unit
   * of its last digit is 0.05e9 / 2.7e9 = 1.85e-2. */
  scale_check_rel(mamba2_params(&m), 2702599680.0, EXACT, "parameters", "hand count above");
  scale_check_rel(mamba2_params(&m), m.n_params_reported, 1.85e-2, "parameters",
                  "Dao & Gu 2024: Mamba-2 2.7B");
}
END_TEST

START_TEST(active_params_match_reported) {
  /* Mixtral: 2 of 8 experts; Mistral AI's announcement: 12.9B active per token (the paper
   * rounds to 13B). Count: 262,144,000 embeddings + 32 x (41,943,040 attention + 2 x
   * 176,160,768 experts + 32,768 router + 8,192 norms) + 4,096 = 12,879,925,248. */
  scale_model mix = scale_check_model("mixtral-8x7b");
  scale_check_rel(transformer_params(&mix, true), 12879925248.0, EXACT, "parameters",
                  "hand count above");
  scale_check_rel(transformer_params(&mix, true), 12.9e9, 0.05e9 / 12.9e9, "parameters",
                  "Mixtral of Experts: 12.9B active");
  /* DeepSeek-V3: 37B activated (report abstract). The count here, 37.55e9, includes both
   * embedding matrices; without the input embedding (a lookup, 0.93e9) it is 36.63e9: the
   * report's convention is not stated, so allow 2%. */
  scale_model ds = scale_check_model("deepseek-v3");
  scale_check_rel(transformer_params(&ds, true), 37e9, 2e-2, "parameters",
                  "DeepSeek-V3 report: 37B activated");
  /* Qwen3 30B-A3B: model card 3.3B activated; the count gives 3.353e9, which the card
   * truncates rather than rounds; allow 2%. */
  scale_model qw = scale_check_model("qwen3-30b-a3b");
  scale_check_rel(transformer_params(&qw, true), 3.3e9, 2e-2, "parameters",
                  "Qwen3-30B-A3B model card: 3.3B activated");
  /* A dense model's active count is its total. */
  scale_model l70 = scale_check_model("llama-3-70b");
  scale_check_rel(transformer_params(&l70, true), transformer_params(&l70, false), EXACT,
                  "parameters", "dense: every parameter is active");
}
END_TEST

/* ---- tests: the book's figures for these models ---------------------------------------------- */

START_TEST(book_llama_3_70b_counts) {
  scale_model m = scale_check_model("llama-3-70b");
  double L = (double)m.n_layers, D = (double)m.d_model, F = (double)m.d_ff;
  double N = (double)m.n_heads, K = (double)m.n_kv_heads, H = (double)m.d_head;
  double V = (double)m.n_vocab;
  /* ch. 6 table: ffw_multiplier F // D = 3.5 (exact: 28672 / 8192). */
  scale_check_rel(F / D, 3.5, 0.0, "", "book ch. 6, LLaMA 3-70B table");
  /* ch. 6 "Counting Parameters": FFW 3*L*D*F = 80 x 8192 x 28672 x 3 = 56,371,445,760. The
   * book prints 56.3e9, a truncation: to three digits it is 56.4e9. */
  scale_check_rel(3.0 * L * D * F, 56371445760.0, EXACT, "parameters",
                  "ch. 6 FFW params (book prints 56.3e9)");
  /* Vocab 2*V*D = 2 x 128256 x 8192 = 2,101,346,304: the book's 2.1e9. */
  scale_check_rel(2.0 * V * D, 2101346304.0, EXACT, "parameters", "ch. 6 vocab params 2.1e9");
  scale_check_rel(2.0 * V * D, 2.1e9, 0.05e9 / 2.1e9, "parameters", "ch. 6 vocab params");
  /* Attention L*(2*D*N*H + 2*D*K*H) = 80 x (134,217,728 + 16,777,216) = 12,079,595,520: the
   * book's 12e9. */
  double attention = L * (2.0 * D * N * H + 2.0 * D * K * H);
  scale_check_rel(attention, 12079595520.0, EXACT, "parameters", "ch. 6 attention params");
  scale_check_rel(attention, 12e9, 0.5e9 / 12e9, "parameters", "ch. 6 attention params 12e9");
  /* Total without norms: 70,552,387,584. The book's 70.4e9 adds its rounded parts
   * (56.3 + 2.1 + 12); exact arithmetic gives 70.55e9, and the checkpoint (with the norms)
   * holds 70,553,706,496 = n_params_reported. */
  double total = 3.0 * L * D * F + 2.0 * V * D + attention;
  scale_check_rel(total, 70552387584.0, EXACT, "parameters", "ch. 6 total (book prints 70.4e9)");
  scale_check_rel(total + (2.0 * L + 1.0) * D, m.n_params_reported, EXACT, "parameters",
                  "total plus 2L+1 RMSNorm scales = the checkpoint");
  /* ch. 8: KV cache per token in int8, 2*K*H*L = 2 x 8 x 128 x 80 = 163,840 bytes. The book
   * writes "160kB" (and 162e3 in the next sentence); exact is 163,840 bytes. */
  scale_check_rel(2.0 * K * H * L * 1.0, 163840.0, EXACT, "bytes",
                  "ch. 8 KV per token (book 160kB)");
}
END_TEST

START_TEST(book_llama_2_13b_counts) {
  scale_model m = scale_check_model("llama-2-13b");
  double L = (double)m.n_layers, D = (double)m.d_model, F = (double)m.d_ff;
  double N = (double)m.n_heads, K = (double)m.n_kv_heads, H = (double)m.d_head;
  double V = (double)m.n_vocab;
  /* ch. 5 "Some Problems to Work" and ch. 7 "What about memory?": F / D = 2.7 (exactly
   * 13824 / 5120), N = K = 40, H = 128, V = 32000, L = 40. */
  scale_check_rel(F / D, 2.7, 1e-15, "", "book ch. 5 and ch. 7 LLaMA 2-13B table");
  /* FFW 3*L*D*F = 8,493,465,600 (book 8.5e9). */
  scale_check_rel(3.0 * L * D * F, 8493465600.0, EXACT, "parameters", "ch. 7 FFW params");
  scale_check_rel(3.0 * L * D * F, 8.5e9, 0.05e9 / 8.5e9, "parameters", "ch. 7 FFW 8.5e9");
  /* Attention 4*D*N*H*L = 4,194,304,000 (book 4.2e9). */
  scale_check_rel(4.0 * D * N * H * L, 4194304000.0, EXACT, "parameters", "ch. 7 attention");
  scale_check_rel(4.0 * D * N * H * L, 4.2e9, 0.05e9 / 4.2e9, "parameters", "ch. 7 attn 4.2e9");
  /* Vocab 2*V*D = 327,680,000: ch. 7 prints 0.3e9; ch. 5 question 1 adds it as 0.39e9, a slip
   * (exact 0.33e9), so its total 13.1e9 is 0.6% high. ch. 7's total "13e9" is right:
   * 8,493,465,600 + 4,194,304,000 + 327,680,000 = 13,015,449,600. */
  scale_check_rel(2.0 * V * D, 327680000.0, EXACT, "parameters",
                  "ch. 7 vocab (ch. 5 says 0.39e9)");
  double total = 3.0 * L * D * F + 4.0 * D * N * H * L + 2.0 * V * D;
  scale_check_rel(total, 13015449600.0, EXACT, "parameters", "ch. 7 total 13e9 (ch. 5: 13.1e9)");
  scale_check_rel(total, 13e9, 0.5e9 / 13e9, "parameters", "ch. 7 total 13e9");
  /* ch. 7: one 8192-token KV cache in bf16, 2 x 2 bytes x H x K x L x T = 6,710,886,400 bytes,
   * the book's "6.7GB" (its table labels the same figure GiB; it is 6.25 GiB). */
  double kv_bytes = 2.0 * 2.0 * H * K * L * 8192.0;
  scale_check_rel(kv_bytes, 6710886400.0, EXACT, "bytes", "ch. 7 KV cache, 8192 tokens bf16");
  scale_check_rel(kv_bytes, 6.7e9, 0.05e9 / 6.7e9, "bytes", "ch. 7 KV cache 6.7GB");
}
END_TEST

START_TEST(book_other_models) {
  /* ch. 7: "LLaMA-3 8B has 32 query heads and 8 KV heads". */
  scale_model l8 = scale_check_model("llama-3-8b");
  ck_assert_int_eq(l8.n_heads, 32);
  ck_assert_int_eq(l8.n_kv_heads, 8);
  /* ch. 4: "Gemma-27B, D=4608"; attention FLOPs pass the matmul FLOPs once T > 8D = 36,864
   * (the book says "around 32k"). */
  scale_model g27 = scale_check_model("gemma-2-27b");
  ck_assert_int_eq(g27.d_model, 4608);
  ck_assert_int_eq(8 * g27.d_model, 36864);
  /* ch. 5: "For Gemma 7B, F ~ 50k": the paper's 49,152 "feedforward hidden dims" count both
   * GeGLU input branches, 2 x 24,576; the config's intermediate_size (our d_ff) is one. */
  scale_model g7 = scale_check_model("gemma-7b");
  ck_assert_int_eq(2 * g7.d_ff, 49152);
  /* ch. 5 and 6: LLaMA 3-70B "F ~ 30,000" is 28,672. */
  scale_model l70 = scale_check_model("llama-3-70b");
  scale_check_rel((double)l70.d_ff, 30000.0, 0.05, "", "book ch. 5: F ~ 30,000");
}
END_TEST

static Suite *model_data_suite(void) {
  Suite *s = suite_create("model_data");

  TCase *tc = tcase_create("load");
  tcase_add_loop_test(tc, every_shipped_model_loads, 0, N_SHIPPED);
  tcase_add_test(tc, data_list_finds_every_model);
  suite_add_tcase(s, tc);

  tc = tcase_create("published_config");
  tcase_add_loop_test(tc, fields_match_published_config, 0, N_MODELS);
  tcase_add_test(tc, mamba2_fields_match_published_config);
  tcase_add_loop_test(tc, moe_flag_and_ssm_width_follow_the_architecture, 0, N_MODELS);
  suite_add_tcase(s, tc);

  tc = tcase_create("param_count");
  tcase_add_loop_test(tc, counted_params_match_reported, 0, N_MODELS);
  tcase_add_test(tc, mamba2_counted_params_match_reported);
  tcase_add_test(tc, active_params_match_reported);
  suite_add_tcase(s, tc);

  tc = tcase_create("book");
  tcase_add_test(tc, book_llama_3_70b_counts);
  tcase_add_test(tc, book_llama_2_13b_counts);
  tcase_add_test(tc, book_other_models);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(model_data_suite()); }
