/* model.c — loading models/NAME.ini (model.h). */
#include "scale/model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Plausible ranges (models/README.md "Ranges"): every published model sits well inside them,
 * and every product the cost model forms from them (expand x D, L x D x F, ...) stays far from
 * 2^53, so counts are exact in a double and never overflow 64 bits. */
#define DIM 1, 1e7     /* widths: D, H, a latent rank */
#define DIM0 0, 1e7    /* a width that may be 0 (absent) */
#define FF 0, 1e8      /* MLP and expert widths (0: no dense MLP) */
#define HEADS 1, 1e5   /* head counts */
#define LAYERS 1, 1e5  /* L */
#define EXPERTS 0, 1e5 /* expert counts (0: dense) */

#define F(section, key, kind, member, required, ...)                                               \
  { section, key, kind, offsetof(scale_model, member), required, __VA_ARGS__ }

static const ini_field model_fields[] = {
    F("model", "arch", INI_CUSTOM, arch, true, 0, 0), /* transformer | mamba2 */
    F("model", "display_name", INI_STRING, display_name, true, 0, 0),
    F("model", "n_layers", INI_COUNT, n_layers, true, LAYERS),
    F("model", "d_model", INI_COUNT, d_model, true, DIM),
    F("model", "n_vocab", INI_COUNT, n_vocab, true, 1, 1e8),
    F("model", "tied_embeddings", INI_BOOL, tied_embeddings, false, 0, 1),
    F("model", "n_ctx_max", INI_COUNT, n_ctx_max, false, 1, 1e9),
    F("model", "n_params_reported", INI_WHOLE, n_params_reported, false, 0, 1e15),
    F("model", "n_mtp_layers", INI_COUNT, n_mtp_layers, false, 0, 16),
    F("attention", "n_heads", INI_COUNT, n_heads, false, HEADS),
    F("attention", "n_kv_heads", INI_COUNT, n_kv_heads, false, HEADS),
    F("attention", "d_head", INI_COUNT, d_head, false, DIM),
    F("attention", "position", INI_CUSTOM, position, false, 0, 0), /* rope|learned|alibi|none */
    F("attention", "window_tokens", INI_COUNT, window_tokens, false, 0, 1e9),
    F("attention", "window_chunked", INI_BOOL, window_chunked, false, 0, 1),
    F("attention", "window_period", INI_COUNT, window_period, false, 0, 1e5),
    F("attention", "n_local_per_period", INI_COUNT, n_local_per_period, false, 0, 1e5),
    F("attention", "nope_global", INI_BOOL, nope_global, false, 0, 1),
    F("attention", "sinks", INI_BOOL, sinks, false, 0, 1),
    F("attention", "qk_norm", INI_BOOL, qk_norm, false, 0, 1),
    F("attention", "qkv_bias", INI_BOOL, qkv_bias, false, 0, 1),
    F("attention", "o_bias", INI_BOOL, o_bias, false, 0, 1),
    F("mlp", "d_ff", INI_COUNT, d_ff, false, FF),
    F("mlp", "gated_mlp", INI_BOOL, gated_mlp, false, 0, 1),
    F("mlp", "mlp_bias", INI_BOOL, mlp_bias, false, 0, 1),
    F("moe", "n_experts", INI_COUNT, n_experts, false, EXPERTS),
    F("moe", "n_experts_active", INI_COUNT, n_experts_active, false, EXPERTS),
    F("moe", "n_shared_experts", INI_COUNT, n_shared_experts, false, EXPERTS),
    F("moe", "d_ff_expert", INI_COUNT, d_ff_expert, false, FF),
    F("moe", "n_dense_layers", INI_COUNT, n_dense_layers, false, 0, 1e5),
    F("mla", "q_lora_rank", INI_COUNT, q_lora_rank, false, DIM0),
    F("mla", "kv_lora_rank", INI_COUNT, kv_lora_rank, false, DIM0),
    F("mla", "d_head_rope", INI_COUNT, d_head_rope, false, DIM0),
    F("mla", "d_head_nope", INI_COUNT, d_head_nope, false, DIM0),
    F("mla", "d_head_v", INI_COUNT, d_head_v, false, DIM0),
    F("mamba2", "d_state", INI_COUNT, ssm_d_state, false, DIM),
    F("mamba2", "n_heads", INI_COUNT, ssm_n_heads, false, HEADS),
    F("mamba2", "d_head", INI_COUNT, ssm_d_head, false, DIM),
    F("mamba2", "expand", INI_COUNT, ssm_expand, false, 1, 64),
    F("mamba2", "n_groups", INI_COUNT, ssm_n_groups, false, HEADS),
    F("mamba2", "d_conv", INI_COUNT, ssm_d_conv, false, 1, 1024),
    F("mamba2", "chunk_size", INI_COUNT, ssm_chunk_size, false, 1, 1e6),
};
#undef F
#undef DIM
#undef DIM0
#undef FF
#undef HEADS
#undef LAYERS
#undef EXPERTS

static const int n_model_fields = (int)(sizeof model_fields / sizeof model_fields[0]);

/* Fails unless every named key of 'section' is present (keys: NULL-terminated list). */
static scale_status require(const ini_file *file, const char *why, const char *section,
                            const char *const *keys, scale_diag *diag) {
  for (; *keys; keys++) {
    if (ini_find_key(file, model_fields, n_model_fields, section, *keys) < 0)
      return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, file->path, 0,
                            "missing required key '%s' in [%s] (%s)", *keys, section, why);
  }
  return SCALE_OK;
}

static scale_status check_sections(const ini_file *file, const scale_model *m, scale_diag *diag) {
  static const char *const mamba[] = {"d_state",  "n_heads", "d_head",     "expand",
                                      "n_groups", "d_conv",  "chunk_size", NULL};
  static const char *const attention[] = {"n_heads", "n_kv_heads", "d_head", NULL};
  static const char *const mlp[] = {"d_ff", "gated_mlp", NULL};
  static const char *const moe[] = {"n_experts", "n_experts_active", "d_ff_expert", NULL};
  if (m->arch == SCALE_ARCH_MAMBA2) return require(file, "a mamba2 model", "mamba2", mamba, diag);
  scale_status st = require(file, "a transformer", "attention", attention, diag);
  if (!st) st = require(file, "a transformer", "mlp", mlp, diag);
  if (!st && (m->n_experts > 0 || m->n_experts_active > 0))
    st = require(file, "a MoE model", "moe", moe, diag);
  return st;
}

static scale_status cross_check(const char *path, const scale_model *m, scale_diag *diag) {
  if (m->n_layers <= 0 || m->d_model <= 0 || m->n_vocab <= 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "n_layers, d_model and n_vocab must be > 0");
  if (m->arch == SCALE_ARCH_TRANSFORMER) {
    if (m->n_heads <= 0 || m->n_kv_heads <= 0 || m->d_head <= 0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                            "n_heads, n_kv_heads and d_head must be > 0");
    if (m->n_heads % m->n_kv_heads != 0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                            "n_kv_heads (%lld) must divide n_heads (%lld)",
                            (long long)m->n_kv_heads, (long long)m->n_heads);
  } else if (m->ssm_d_state <= 0 || m->ssm_n_heads <= 0 || m->ssm_d_head <= 0 ||
             m->ssm_expand <= 0 || m->ssm_n_groups <= 0) {
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "mamba2 d_state, n_heads, d_head, expand, n_groups must be > 0");
  }
  if (m->arch == SCALE_ARCH_TRANSFORMER && m->d_ff <= 0 &&
      (m->n_experts == 0 || m->n_dense_layers > 0))
    return scale_diag_set(
        diag, SCALE_ERR_INVALID, path, 0,
        "d_ff must be >= 1 for a dense MLP layer (0 only when every layer is MoE)");
  if (m->n_experts > 0 && (m->n_experts_active < 1 || m->d_ff_expert < 1))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "a MoE model needs n_experts_active >= 1 and d_ff_expert >= 1");
  if (m->n_experts_active > m->n_experts)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "n_experts_active (%lld) exceeds n_experts (%lld)",
                          (long long)m->n_experts_active, (long long)m->n_experts);
  if (m->n_dense_layers > m->n_layers)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0, "n_dense_layers exceeds n_layers");
  return SCALE_OK;
}

/* The local-attention keys agree: a period needs a window and 1..P local layers in it. */
static scale_status window_check(const char *path, const scale_model *m, scale_diag *diag) {
  bool window = m->window_tokens > 0;
  if (!window && (m->window_period || m->n_local_per_period || m->window_chunked))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "window_period, n_local_per_period and window_chunked need "
                          "window_tokens >= 1");
  if (window && m->window_period > 0 &&
      (m->n_local_per_period < 1 || m->n_local_per_period > m->window_period))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "n_local_per_period (%lld) must be in [1, window_period = %lld]",
                          (long long)m->n_local_per_period, (long long)m->window_period);
  if (window && m->window_period == 0 && m->n_local_per_period)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "n_local_per_period needs window_period >= 1");
  if (m->nope_global && (!window || m->window_period == 0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "nope_global needs global layers (window_tokens and window_period)");
  if (m->position == SCALE_POS_LEARNED && m->n_ctx_max <= 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "position = learned needs n_ctx_max (the table's rows)");
  if (m->n_mtp_layers > 0 && m->arch != SCALE_ARCH_TRANSFORMER)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0, "n_mtp_layers needs a transformer");
  return SCALE_OK;
}

static scale_status apply_position(const ini_file *file, scale_model *m, scale_diag *diag) {
  static const char *const names[] = {"rope", "learned", "alibi", "none"};
  int at = ini_find_key(file, model_fields, n_model_fields, "attention", "position");
  if (at < 0) return SCALE_OK;
  const ini_entry *entry = &file->entries[at];
  for (int i = 0; i < 4; i++)
    if (strcmp(entry->value, names[i]) == 0) return m->position = (scale_position)i, SCALE_OK;
  return scale_diag_set(diag, SCALE_ERR_PARSE, file->path, entry->line,
                        "'position' must be rope, learned, alibi or none, got '%.60s'",
                        entry->value);
}

static scale_status apply_arch(const ini_file *file, scale_model *m, scale_diag *diag) {
  const ini_entry *entry =
      &file->entries[ini_find_key(file, model_fields, n_model_fields, "model", "arch")];
  if (strcmp(entry->value, "transformer") == 0)
    m->arch = SCALE_ARCH_TRANSFORMER;
  else if (strcmp(entry->value, "mamba2") == 0)
    m->arch = SCALE_ARCH_MAMBA2;
  else
    return scale_diag_set(diag, SCALE_ERR_PARSE, file->path, entry->line,
                          "'arch' must be transformer or mamba2, got '%.60s'", entry->value);
  return SCALE_OK;
}

scale_status scale_model_load_file(const char *path, scale_model *out, scale_diag *diag) {
  if (!path || !*path) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "empty path");
  ini_file *file = malloc(sizeof *file);
  if (!file) return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  scale_model m;
  memset(&m, 0, sizeof m);
  scale_status st = ini_read(path, model_fields, n_model_fields, file, diag);
  if (!st) st = ini_check_required(file, model_fields, n_model_fields, diag);
  if (!st) st = ini_apply(file, model_fields, &m, diag);
  if (!st) st = apply_arch(file, &m, diag);
  if (!st) st = apply_position(file, &m, diag);
  if (!st) st = check_sections(file, &m, diag);
  if (!st) st = cross_check(path, &m, diag);
  if (!st) st = window_check(path, &m, diag);
  free(file);
  if (st) return st;
  const char *slash = strrchr(path, '/');
  snprintf(m.name, sizeof m.name, "%s", slash ? slash + 1 : path);
  char *dot = strrchr(m.name, '.');
  if (dot && strcmp(dot, ".ini") == 0) *dot = '\0';
  *out = m;
  return SCALE_OK;
}

scale_status scale_model_load(const char *name, scale_model *out, scale_diag *diag) {
  char path[1024];
  scale_status st = scale_data_resolve("models", name, path, sizeof path, diag);
  return st ? st : scale_model_load_file(path, out, diag);
}

bool scale_model_is_moe(const scale_model *model) { return model->n_experts > 0; }

int64_t scale_model_n_local_layers(const scale_model *model) {
  if (!model || model->window_tokens <= 0) return 0;
  int64_t l = model->n_layers, p = model->window_period, k = model->n_local_per_period;
  if (p <= 0) return l;
  return l / p * k + (l % p < k ? l % p : k);
}

int64_t scale_model_ssm_d_inner(const scale_model *model) {
  if (model->arch != SCALE_ARCH_MAMBA2) return 0;
  /* In double: two int64 counts can overflow 64 bits (signed overflow is undefined). */
  double d_inner = (double)model->ssm_expand * (double)model->d_model;
  return d_inner >= 0 && d_inner <= 0x1p53 ? (int64_t)d_inner : -1; /* 2^53 */
}
