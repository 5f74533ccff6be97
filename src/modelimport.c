/* modelimport.c — model records from Hugging Face configs (modelimport.h). */
#include "scale/modelimport.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

typedef struct {
  const scale_json_value *cfg;
  scale_import_notes *notes;
  scale_diag *diag;
  scale_status st;
} reader;

static void note(reader *r, const char *text) {
  if (r->notes && r->notes->n < SCALE_IMPORT_NOTES_MAX)
    snprintf(r->notes->text[r->notes->n++], sizeof r->notes->text[0], "%s", text);
}

static bool refuse(reader *r, scale_status st, const char *key, const char *why) {
  if (!r->st) r->st = scale_diag_set(r->diag, st, "", 0, "config: '%s' %s", key, why);
  return false;
}

/** A whole number field in [lo, 2^40]; 'dflt' < 0 makes it required, else its default. */
static int64_t count(reader *r, const char *key, int64_t dflt, int64_t lo) {
  const scale_json_value *v = scale_json_member(r->cfg, key);
  if (!v || v->type == SCALE_JSON_NULL) {
    if (dflt < 0) refuse(r, SCALE_ERR_MISSING_KEY, key, "is missing");
    return dflt < 0 ? 0 : dflt;
  }
  if (v->type != SCALE_JSON_NUMBER || v->number != floor(v->number) || v->number < (double)lo ||
      v->number > 1099511627776.0) {
    char why[80];
    snprintf(why, sizeof why, "must be a whole number from %lld to 2^40", (long long)lo);
    refuse(r, SCALE_ERR_INVALID, key, why);
    return 0;
  }
  return (int64_t)v->number;
}

static bool flag(reader *r, const char *key, bool dflt) {
  const scale_json_value *v = scale_json_member(r->cfg, key);
  if (!v || v->type == SCALE_JSON_NULL) return dflt;
  if (v->type != SCALE_JSON_BOOL) return refuse(r, SCALE_ERR_INVALID, key, "must be true or false");
  return v->boolean;
}

static bool present(reader *r, const char *key) {
  const scale_json_value *v = scale_json_member(r->cfg, key);
  return v && v->type != SCALE_JSON_NULL && !(v->type == SCALE_JSON_BOOL && !v->boolean);
}

static const char *string(reader *r, const char *key) {
  const scale_json_value *v = scale_json_member(r->cfg, key);
  if (!v) return refuse(r, SCALE_ERR_MISSING_KEY, key, "is missing"), NULL;
  if (v->type != SCALE_JSON_STRING)
    return refuse(r, SCALE_ERR_INVALID, key, "must be a string"), NULL;
  return v->str;
}

/** The attention of a dense or MoE transformer: N, K (default N), H (default D / N). */
static void attention(reader *r, scale_model *m) {
  m->n_heads = count(r, "num_attention_heads", -1, 1);
  m->n_kv_heads = count(r, "num_key_value_heads", m->n_heads, 1);
  if (!r->st && m->n_heads % m->n_kv_heads)
    refuse(r, SCALE_ERR_INVALID, "num_key_value_heads", "must divide num_attention_heads");
  int64_t h = m->n_heads && m->d_model % m->n_heads == 0 ? m->d_model / m->n_heads : -1;
  m->d_head = count(r, "head_dim", h, 1);
}

/** Layers, width, vocabulary, context and embeddings, common to every family. */
static void trunk(reader *r, scale_model *m, bool tied_default) {
  m->n_layers = count(r, "num_hidden_layers", -1, 1);
  m->d_model = count(r, "hidden_size", -1, 1);
  m->n_vocab = count(r, "vocab_size", -1, 1);
  m->n_ctx_max = count(r, "max_position_embeddings", 0, 0);
  m->tied_embeddings = flag(r, "tie_word_embeddings", tied_default);
}

/** The array member 'key' (NULL when absent or not an array). */
static const scale_json_value *array(reader *r, const char *key) {
  const scale_json_value *v = scale_json_member(r->cfg, key);
  return v && v->type == SCALE_JSON_ARRAY ? v : NULL;
}

/** A periodic local/global pattern from per-layer flags (local[i]): the first global layer
 * closes the period, which every later layer must repeat; false when it does not. */
static bool periodic(const bool *local, int64_t n, scale_model *m) {
  int64_t p = 0;
  while (p < n && local[p])
    p++;
  if (p == n) return m->window_period = 0, m->n_local_per_period = 0, true; /* all local */
  for (int64_t i = 0; i < n; i++)
    if (local[i] != (i % (p + 1) < p)) return false;
  m->window_period = p + 1, m->n_local_per_period = p;
  return true;
}

/** layer_types ("sliding_attention" | "full_attention" per layer) into the window pattern. */
static void layer_types(reader *r, const scale_json_value *types, scale_model *m) {
  bool local[4096];
  int64_t n = 0;
  for (const scale_json_value *v = types->child; v; v = v->next, n++) {
    if (n >= 4096 || v->type != SCALE_JSON_STRING ||
        (strcmp(v->str, "sliding_attention") && strcmp(v->str, "full_attention"))) {
      refuse(r, SCALE_ERR_INVALID, "layer_types",
             "must list sliding_attention or full_attention for each layer");
      return;
    }
    local[n] = strcmp(v->str, "sliding_attention") == 0;
  }
  if (n != m->n_layers)
    refuse(r, SCALE_ERR_INVALID, "layer_types", "must have num_hidden_layers entries");
  else if (!periodic(local, n, m))
    refuse(r, SCALE_ERR_INVALID, "layer_types",
           "is not a repeating pattern of local layers then global ones (the schema's "
           "window_period)");
}

/** Sliding-window attention: which layers, and the window. */
static void windows(reader *r, const char *type, scale_model *m) {
  if (!present(r, "sliding_window") || !flag(r, "use_sliding_window", true)) return;
  m->window_tokens = count(r, "sliding_window", 0, 1);
  if (strncmp(type, "qwen", 4) == 0 &&
      count(r, "max_window_layers", m->n_layers, 0) < m->n_layers) {
    refuse(r, SCALE_ERR_INVALID, "max_window_layers",
           "below num_hidden_layers: sliding windows on the last layers only are not in the "
           "schema (local layers open each period)");
    return;
  }
  const scale_json_value *types = array(r, "layer_types");
  if (types) {
    layer_types(r, types, m);
    return;
  }
  if (strcmp(type, "gemma2") == 0 || strcmp(type, "gpt_oss") == 0) /* even layers local */
    m->window_period = 2, m->n_local_per_period = 1;
  else if (strncmp(type, "gemma3", 6) == 0) {
    m->window_period = count(r, "sliding_window_pattern", 6, 1); /* transformers' default */
    m->n_local_per_period = m->window_period - 1;
    if (m->window_period == 1) m->window_period = 0, m->n_local_per_period = 0;
  }
}

/** Llama 4: chunked attention on the RoPE layers, NoPE (global) on every interval-th. */
static void llama4_attention(reader *r, scale_model *m) {
  m->window_tokens = count(r, "attention_chunk_size", 0, 1);
  int64_t every = count(r, "no_rope_layer_interval", 4, 1);
  const scale_json_value *rope = array(r, "no_rope_layers");
  bool local[4096];
  int64_t n = 0;
  for (const scale_json_value *v = rope ? rope->child : NULL; v; v = v->next, n++) {
    if (n >= 4096 || v->type != SCALE_JSON_NUMBER || (v->number != 0 && v->number != 1))
      {
      refuse(r, SCALE_ERR_INVALID, "no_rope_layers", "must be 0 or 1 per layer");
      return;
    }
    local[n] = v->number == 1; /* 1: the layer uses RoPE (and chunked attention) */
  }
  if (!rope || n == 0)
    for (n = 0; n < m->n_layers && n < 4096; n++)
      local[n] = (n + 1) % every != 0;
  if (n != m->n_layers)
    {
      refuse(r, SCALE_ERR_INVALID, "no_rope_layers",
                        "must have num_hidden_layers entries");
      return;
    }
  if (!periodic(local, n, m) || m->window_period == 0)
    {
      refuse(r, SCALE_ERR_INVALID, "no_rope_layers",
                        "is not a repeating pattern of RoPE layers then a NoPE one");
      return;
    }
  if (!m->window_tokens) m->window_period = m->n_local_per_period = 0;
  m->window_chunked = m->window_tokens > 0;
  m->nope_global = m->window_tokens > 0;
}

/** Biases, QK-norm, sinks, positions and MTP, as each family's modeling code has them. */
static void feature_fields(reader *r, const char *type, scale_model *m) {
  bool gpt_oss = strcmp(type, "gpt_oss") == 0;
  bool bias = flag(r, "attention_bias", gpt_oss);
  m->qkv_bias = bias || strcmp(type, "qwen2") == 0 || strcmp(type, "qwen2_moe") == 0;
  m->o_bias = bias;
  m->mlp_bias = flag(r, "mlp_bias", false) || gpt_oss; /* GPT-OSS: experts' and router's */
  m->sinks = gpt_oss;
  m->qk_norm = strcmp(type, "qwen3") == 0 || strcmp(type, "qwen3_moe") == 0 ||
               strncmp(type, "gemma3", 6) == 0;
  if (flag(r, "alibi", false)) m->position = SCALE_POS_ALIBI;
  m->n_mtp_layers = count(r, "num_nextn_predict_layers", 0, 0);
  if (m->n_mtp_layers > 16)
    refuse(r, SCALE_ERR_INVALID, "num_nextn_predict_layers", "must be at most 16");
}

/** What the schema still leaves out, as notes saying how the model is priced. */
static void feature_notes(reader *r, const char *type, const scale_model *m) {
  if (strncmp(type, "gemma2", 6) == 0 || strncmp(type, "gemma3", 6) == 0)
    note(r, "the post-attention and post-MLP RMSNorms (2 D parameters a layer) and any logit "
            "soft-capping: not counted");
  if (strncmp(type, "deepseek", 8) == 0 || strcmp(type, "kimi_k2") == 0)
    note(r, "the router's sigmoid scoring, expert bias and node-limited groups: priced as a "
            "plain top-k router");
  if (strncmp(type, "llama4", 6) == 0) {
    note(r, "the QK L2-norm of the RoPE layers (no parameters) and the attention temperature "
            "tuning of the NoPE layers: not priced (vector work)");
    if (m->n_dense_layers)
      note(r, "the dense layers interleave with the MoE layers (interleave_moe_layer_step); "
              "priced as leading dense layers (the same counts; a pipeline stage holds the "
              "average mix)");
  }
}

static void dense(reader *r, scale_model *m) {
  m->d_ff = count(r, "intermediate_size", -1, 1);
  m->gated_mlp = true;
}

static void experts(reader *r, scale_model *m, const char *n_key, const char *width_key) {
  m->n_experts = count(r, n_key, -1, 1);
  m->n_experts_active = count(r, "num_experts_per_tok", -1, 1);
  m->d_ff_expert = count(r, width_key, -1, 1);
  m->gated_mlp = true;
  if (!r->st && m->n_experts_active > m->n_experts)
    refuse(r, SCALE_ERR_INVALID, "num_experts_per_tok", "exceeds the number of experts");
}

static void qwen_moe(reader *r, scale_model *m, bool qwen2) {
  experts(r, m, "num_experts", "moe_intermediate_size");
  if (count(r, "decoder_sparse_step", 1, 1) != 1)
    refuse(r, SCALE_ERR_INVALID, "decoder_sparse_step", "must be 1 (experts on every layer)");
  const scale_json_value *dense_layers = scale_json_member(r->cfg, "mlp_only_layers");
  if (dense_layers && dense_layers->type == SCALE_JSON_ARRAY && dense_layers->child)
    refuse(r, SCALE_ERR_INVALID, "mlp_only_layers", "must be empty (dense layers in between)");
  if (!qwen2) return;
  /* Qwen's shared expert is one MLP of shared_expert_intermediate_size: as many experts of
   * the routed width as it is wide (Qwen1.5-MoE: 5632 = 4 x 1408), the same parameters. */
  int64_t shared = count(r, "shared_expert_intermediate_size", 0, 0);
  if (!r->st && m->d_ff_expert && shared % m->d_ff_expert)
    refuse(r, SCALE_ERR_INVALID, "shared_expert_intermediate_size",
           "must be a multiple of moe_intermediate_size");
  m->n_shared_experts = m->d_ff_expert ? shared / m->d_ff_expert : 0;
}

static void deepseek(reader *r, scale_model *m) {
  experts(r, m, "n_routed_experts", "moe_intermediate_size");
  m->d_ff = count(r, "intermediate_size", -1, 1);
  m->n_shared_experts = count(r, "n_shared_experts", 0, 0);
  m->n_dense_layers = count(r, "first_k_dense_replace", 0, 0);
  if (count(r, "moe_layer_freq", 1, 1) != 1)
    refuse(r, SCALE_ERR_INVALID, "moe_layer_freq", "must be 1 (experts on every layer)");
  m->q_lora_rank = count(r, "q_lora_rank", 0, 0);
  m->kv_lora_rank = count(r, "kv_lora_rank", -1, 1);
  m->d_head_rope = count(r, "qk_rope_head_dim", -1, 1);
  m->d_head_nope = count(r, "qk_nope_head_dim", -1, 1);
  m->d_head_v = count(r, "v_head_dim", -1, 1);
  m->n_heads = count(r, "num_attention_heads", -1, 1);
  m->n_kv_heads = count(r, "num_key_value_heads", m->n_heads, 1);
  m->d_head = m->d_head_nope + m->d_head_rope;
}

static void mamba2(reader *r, scale_model *m) {
  m->arch = SCALE_ARCH_MAMBA2;
  m->ssm_d_state = count(r, "state_size", -1, 1);
  m->ssm_n_heads = count(r, "num_heads", -1, 1);
  m->ssm_d_head = count(r, "head_dim", -1, 1);
  m->ssm_expand = count(r, "expand", -1, 1);
  m->ssm_n_groups = count(r, "n_groups", 1, 1);
  m->ssm_d_conv = count(r, "conv_kernel", -1, 1);
  m->ssm_chunk_size = count(r, "chunk_size", -1, 1);
}

/** Llama 4's text model: routed experts plus one shared expert of the same width, on every
 * interleave_moe_layer_step-th layer; the other layers a dense MLP of intermediate_size_mlp. */
static void llama4(reader *r, scale_model *m) {
  experts(r, m, "num_local_experts", "intermediate_size");
  m->n_shared_experts = 1;
  int64_t step = count(r, "interleave_moe_layer_step", 1, 1);
  const scale_json_value *listed = array(r, "moe_layers");
  int64_t moe = step ? m->n_layers / step : 0;
  if (listed) {
    moe = 0;
    for (const scale_json_value *v = listed->child; v; v = v->next)
      moe++;
  }
  m->n_dense_layers = m->n_layers - moe;
  if (!r->st && (moe < 1 || moe > m->n_layers))
    refuse(r, SCALE_ERR_INVALID, "moe_layers", "must name 1 to num_hidden_layers layers");
  m->d_ff = m->n_dense_layers > 0 ? count(r, "intermediate_size_mlp", -1, 1) : 0;
}

typedef enum {
  FAM_UNKNOWN,
  FAM_LLAMA4,
  FAM_HYBRID,
  FAM_DENSE,
  FAM_EXPERTS,
  FAM_QWEN2_MOE,
  FAM_QWEN3_MOE,
  FAM_DEEPSEEK,
  FAM_MAMBA2
} family_kind;

static family_kind kind_of(const char *type) {
  static const struct {
    const char *type;
    family_kind kind;
  } families[] = {
      {"llama", FAM_DENSE},          {"mistral", FAM_DENSE},        {"qwen2", FAM_DENSE},
      {"qwen3", FAM_DENSE},          {"gemma", FAM_DENSE},          {"gemma2", FAM_DENSE},
      {"gemma3", FAM_DENSE},         {"gemma3_text", FAM_DENSE},    {"mixtral", FAM_EXPERTS},
      {"gpt_oss", FAM_EXPERTS},      {"qwen2_moe", FAM_QWEN2_MOE},  {"qwen3_moe", FAM_QWEN3_MOE},
      {"deepseek_v2", FAM_DEEPSEEK}, {"deepseek_v3", FAM_DEEPSEEK}, {"kimi_k2", FAM_DEEPSEEK},
      {"mamba2", FAM_MAMBA2},        {"llama4", FAM_LLAMA4},        {"llama4_text", FAM_LLAMA4},
      {"nemotron_h", FAM_HYBRID}};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
    if (strcmp(type, families[i].type) == 0) return families[i].kind;
  return FAM_UNKNOWN;
}

/** Reads the family 'type' into m; false (with the refusal set) for an unknown one. */
static bool family(reader *r, const char *type, scale_model *m) {
  family_kind kind = kind_of(type);
  if (kind == FAM_UNKNOWN)
    return refuse(r, SCALE_ERR_INVALID, "model_type",
                  "names a family scale does not import (known: llama, mistral, mixtral, qwen2, "
                  "qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, gpt_oss, deepseek_v2, "
                  "deepseek_v3, kimi_k2, llama4, mamba2)");
  if (kind == FAM_HYBRID)
    return refuse(r, SCALE_ERR_INVALID, "hybrid_override_pattern",
                  "mixes Mamba-2, attention and MLP layers: a model file has one kind of "
                  "layer (arch = transformer or mamba2), so this hybrid is not imported");
  trunk(r, m, strncmp(type, "gemma", 5) == 0 || kind == FAM_MAMBA2);
  if (kind == FAM_MAMBA2) return mamba2(r, m), true;
  if (kind == FAM_DEEPSEEK) return deepseek(r, m), true;
  attention(r, m);
  if (kind == FAM_LLAMA4) return llama4(r, m), true;
  if (kind == FAM_DENSE)
    dense(r, m);
  else if (kind == FAM_EXPERTS)
    experts(r, m, "num_local_experts", "intermediate_size");
  else
    qwen_moe(r, m, kind == FAM_QWEN2_MOE);
  return true;
}

scale_status scale_model_import_hf(const scale_json_value *config, const char *name,
                                   scale_model *out, scale_import_notes *notes, scale_diag *diag) {
  if (!config || config->type != SCALE_JSON_OBJECT || !name || !name[0] || !out ||
      strlen(name) >= sizeof out->name)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "config: the top level must be an object, and the model needs a name");
  const scale_json_value *text = scale_json_member(config, "text_config");
  reader r = {text && text->type == SCALE_JSON_OBJECT ? text : config, notes, diag, SCALE_OK};
  if (notes) notes->n = 0;
  scale_model m = {0};
  snprintf(m.name, sizeof m.name, "%s", name);
  snprintf(m.display_name, sizeof m.display_name, "%s", name);
  const char *type = string(&r, "model_type");
  if (type && family(&r, type, &m)) {
    if (strncmp(type, "llama4", 6) == 0)
      llama4_attention(&r, &m);
    else
      windows(&r, type, &m);
    feature_fields(&r, type, &m);
    feature_notes(&r, type, &m);
  }
  if (r.st) return r.st;
  *out = m;
  return SCALE_OK;
}

scale_status scale_model_index_params(const scale_json_value *index, const scale_json_value *config,
                                      double *out, scale_diag *diag) {
  const scale_json_value *meta = scale_json_member(index, "metadata");
  const scale_json_value *size = scale_json_member(meta, "total_size");
  if (!size)
    return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, "", 0,
                          "index: 'metadata.total_size' is missing");
  if (size->type != SCALE_JSON_NUMBER || !(size->number > 0) || size->number != floor(size->number))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "index: 'metadata.total_size' must be a whole number of bytes > 0");
  const scale_json_value *text = scale_json_member(config, "text_config");
  const scale_json_value *cfg = text && text->type == SCALE_JSON_OBJECT ? text : config;
  if (scale_json_member(cfg, "quantization_config") ||
      scale_json_member(config, "quantization_config"))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "config: 'quantization_config': a quantized checkpoint's bytes are not "
                          "parameters times one dtype");
  const scale_json_value *dtype = scale_json_member(cfg, "torch_dtype");
  if (!dtype) dtype = scale_json_member(config, "torch_dtype");
  const char *d = dtype && dtype->type == SCALE_JSON_STRING ? dtype->str : "";
  double bytes = strcmp(d, "bfloat16") == 0 || strcmp(d, "float16") == 0 ? 2
                 : strcmp(d, "float32") == 0                             ? 4
                                                                         : 0;
  if (bytes == 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "config: 'torch_dtype' must be bfloat16, float16 or float32 to count "
                          "an index's bytes as parameters");
  *out = size->number / bytes;
  return SCALE_OK;
}

/* ---- writing a model file ------------------------------------------------------------------ */

static void key(FILE *f, const char *k, int64_t v) { fprintf(f, "%s = %lld\n", k, (long long)v); }

/* A section header; with a source, a comment saying where its numbers come from (every number
 * of a shipped file names its source, tests/cli/test_data_sources.sh). */
static void section(FILE *f, const char *name, const char *source) {
  fprintf(f, "\n[%s]\n", name);
  if (source) fprintf(f, "; from the source above\n");
}

/* The [attention] keys beyond N, K, H: each written only when set (absent = today's file). */
static void write_features(FILE *f, const scale_model *m) {
  static const char *const positions[] = {"rope", "learned", "alibi", "none"};
  if (m->position != SCALE_POS_ROPE) fprintf(f, "position = %s\n", positions[m->position]);
  if (m->window_tokens) {
    key(f, "window_tokens", m->window_tokens);
    if (m->window_chunked) key(f, "window_chunked", 1);
    if (m->window_period)
      key(f, "window_period", m->window_period), key(f, "n_local_per_period", m->n_local_per_period);
    if (m->nope_global) key(f, "nope_global", 1);
  }
  if (m->sinks) key(f, "sinks", 1);
  if (m->qk_norm) key(f, "qk_norm", 1);
  if (m->qkv_bias) key(f, "qkv_bias", 1);
  if (m->o_bias) key(f, "o_bias", 1);
}

scale_status scale_model_write(const scale_model *m, const char *source,
                               const scale_import_notes *notes, FILE *f) {
  if (!m || !f) return SCALE_ERR_INVALID;
  if (source) fprintf(f, "; %s\n", source);
  for (int i = 0; notes && i < notes->n; i++)
    fprintf(f, "; Not in this schema: %s.\n", notes->text[i]);
  fprintf(f, "[model]\ndisplay_name = %s\narch = %s\n", m->display_name,
          m->arch == SCALE_ARCH_MAMBA2 ? "mamba2" : "transformer");
  if (source) fprintf(f, "; from the source above\n");
  key(f, "n_layers", m->n_layers), key(f, "d_model", m->d_model), key(f, "n_vocab", m->n_vocab);
  key(f, "tied_embeddings", m->tied_embeddings);
  if (m->n_ctx_max) key(f, "n_ctx_max", m->n_ctx_max);
  if (m->n_mtp_layers) key(f, "n_mtp_layers", m->n_mtp_layers);
  if (m->arch == SCALE_ARCH_MAMBA2) {
    section(f, "mamba2", source);
    key(f, "d_state", m->ssm_d_state), key(f, "n_heads", m->ssm_n_heads);
    key(f, "d_head", m->ssm_d_head), key(f, "expand", m->ssm_expand);
    key(f, "n_groups", m->ssm_n_groups), key(f, "d_conv", m->ssm_d_conv);
    key(f, "chunk_size", m->ssm_chunk_size);
  } else {
    section(f, "attention", source);
    key(f, "n_heads", m->n_heads), key(f, "n_kv_heads", m->n_kv_heads), key(f, "d_head", m->d_head);
    write_features(f, m);
    section(f, "mlp", source);
    key(f, "d_ff", m->d_ff), key(f, "gated_mlp", m->gated_mlp);
    if (m->mlp_bias) key(f, "mlp_bias", 1);
  }
  if (m->n_experts) {
    section(f, "moe", source);
    key(f, "n_experts", m->n_experts), key(f, "n_experts_active", m->n_experts_active);
    key(f, "n_shared_experts", m->n_shared_experts), key(f, "d_ff_expert", m->d_ff_expert);
    key(f, "n_dense_layers", m->n_dense_layers);
  }
  if (m->kv_lora_rank) {
    section(f, "mla", source);
    key(f, "q_lora_rank", m->q_lora_rank), key(f, "kv_lora_rank", m->kv_lora_rank);
    key(f, "d_head_rope", m->d_head_rope), key(f, "d_head_nope", m->d_head_nope);
    key(f, "d_head_v", m->d_head_v);
  }
  return ferror(f) ? SCALE_ERR_IO : SCALE_OK;
}
