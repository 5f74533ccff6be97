/* transformer.c — parameters, FLOPs, memory, KV cache and state of transformers and Mamba-2.
 *
 * Every count is taken in double: products such as 6 N D overflow 64-bit integers.
 * See include/scale/transformer.h for the contract of each function.
 */
#include "scale/transformer.h"

#include <math.h>
#include <stddef.h>

#include "internal.h"

/* ---- helpers -------------------------------------------------------------------------------- */

/** Whether x is a usable size: finite and >= 0. */
static bool size_ok(double x) { return isfinite(x) && x >= 0.0; }

/** Whether x is a usable parallel degree: finite and >= 1. */
static bool degree_ok(double x) { return isfinite(x) && x >= 1.0; }

static double c(int64_t v) { return (double)v; }

static bool is_mamba(const scale_model *m) { return m->arch == SCALE_ARCH_MAMBA2; }

static bool is_mla(const scale_model *m) { return !is_mamba(m) && m->kv_lora_rank > 0; }

static bool is_moe(const scale_model *m) { return !is_mamba(m) && m->n_experts > 0; }

/** Forward multiples of 'pass' (1, 2 or 3), NaN for an invalid pass. */
static double pass_multiple(scale_pass pass) {
  return scale_transformer_pass_flops_per_param(pass) / 2.0;
}

/** Weight matrices of an MLP: 3 gated, 2 plain. */
static double mlp_matrices(const scale_model *m) { return m->gated_mlp ? 3.0 : 2.0; }

/** MLA query/key head width (H_nope + H_rope, or d_head when those are absent). */
static double mla_qk_head(const scale_model *m) {
  double h = c(m->d_head_nope) + c(m->d_head_rope); /* in double: no int64 overflow */
  return h > 0 ? h : c(m->d_head);
}

/** MLA value head width (d_head_v, or d_head when absent). */
static double mla_v_head(const scale_model *m) {
  return c(m->d_head_v > 0 ? m->d_head_v : m->d_head);
}

/** Parameters of the attention matmuls of one layer (no norms). */
static double attention_matmul_params(const scale_model *m) {
  if (is_mamba(m)) {
    return 0.0;
  }
  double d = c(m->d_model), n = c(m->n_heads);
  if (!is_mla(m)) {
    return 2.0 * d * (n + c(m->n_kv_heads)) * c(m->d_head);
  }
  double qk = mla_qk_head(m), v = mla_v_head(m), rope = c(m->d_head_rope);
  double qr = c(m->q_lora_rank), kvr = c(m->kv_lora_rank);
  double q = m->q_lora_rank > 0 ? d * qr + qr * n * qk : d * n * qk;
  double kv = d * (kvr + rope) + kvr * n * ((qk - rope) + v);
  double o = n * v * d;
  return q + kv + o;
}

/** Norm vectors inside one MLA block (on the query and KV latents). */
static double mla_norm_params(const scale_model *m) {
  return is_mla(m) ? c(m->q_lora_rank) + c(m->kv_lora_rank) : 0.0;
}

static double ssm_d_inner(const scale_model *m) { return c(m->ssm_expand) * c(m->d_model); }

/** SSM heads h (given, or d_inner / head dim). */
static double ssm_heads(const scale_model *m) {
  if (m->ssm_n_heads > 0) {
    return c(m->ssm_n_heads);
  }
  return m->ssm_d_head > 0 ? ssm_d_inner(m) / c(m->ssm_d_head) : 0.0;
}

/** SSM head dim p (given, or d_inner / h). */
static double ssm_head_dim(const scale_model *m) {
  if (m->ssm_d_head > 0) {
    return c(m->ssm_d_head);
  }
  double h = ssm_heads(m);
  return h > 0.0 ? ssm_d_inner(m) / h : 0.0;
}

/** Channels of the causal conv: x, B and C. */
static double ssm_conv_dim(const scale_model *m) {
  return ssm_d_inner(m) + 2.0 * c(m->ssm_n_groups) * c(m->ssm_d_state);
}

/** Matmul parameters of one Mamba-2 mixer (in- and out-projection). */
static double mamba2_matmul_params(const scale_model *m) {
  if (!is_mamba(m)) {
    return 0.0;
  }
  double d = c(m->d_model);
  return d * scale_transformer_mamba2_d_in_proj(m) + ssm_d_inner(m) * d;
}

/** Unmasked (query, key) pairs of t queries against s keys. */
static double attention_pairs(double t, double s, bool causal) {
  if (!causal) {
    return t * s;
  }
  if (t > s) {
    return NAN;
  }
  return t * s - t * (t - 1.0) / 2.0;
}

/** Keys seen, summed over the queries at positions 0 .. n-1, of a local layer: a sliding
 * window sees min(p + 1, w) keys; a chunked layer the p mod w + 1 keys of the query's chunk. */
static double local_prefix_pairs(double n, double w, bool chunked) {
  if (chunked) {
    double r = fmod(n, w);
    return floor(n / w) * w * (w + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
  }
  return n <= w ? n * (n + 1.0) / 2.0 : w * (w + 1.0) / 2.0 + (n - w) * w;
}

/** Pairs of one local layer: the last t of s positions when causal, else t queries each
 * against min(s, w) keys. */
static double local_pairs(const scale_model *m, double t, double s, bool causal) {
  double w = c(m->window_tokens);
  if (!causal) {
    return t * fmin(s, w);
  }
  if (t > s) {
    return NAN;
  }
  return local_prefix_pairs(s, w, m->window_chunked) -
         local_prefix_pairs(s - t, w, m->window_chunked);
}

double scale_transformer_local_pairs(const scale_model *model, double t, double s, bool causal) {
  if (model == NULL || !size_ok(t) || !size_ok(s)) {
    return NAN;
  }
  return model->window_tokens > 0 ? local_pairs(model, t, s, causal) : attention_pairs(t, s, causal);
}

/** Pairs of an average layer: global layers see attention_pairs(), local ones local_pairs(). */
static double layer_pairs(const scale_model *m, double t, double s, bool causal) {
  double local = c(scale_model_n_local_layers(m));
  if (local <= 0.0) {
    return attention_pairs(t, s, causal); /* the exact expression of a model without windows */
  }
  double l = c(m->n_layers);
  return ((l - local) * attention_pairs(t, s, causal) + local * local_pairs(m, t, s, causal)) / l;
}

/** Per-layer parameters beside the attention matrices: QK-norm weights (H each for q and k),
 * one sink logit per head, the Q, K, V biases and the output bias. */
static double attention_extra_params(const scale_model *m) {
  if (is_mamba(m)) {
    return 0.0;
  }
  double n = c(m->n_heads), k = c(m->n_kv_heads), h = c(m->d_head);
  return (m->qk_norm ? 2.0 * h : 0.0) + (m->sinks ? n : 0.0) +
         (m->qkv_bias ? (n + 2.0 * k) * h : 0.0) + (m->o_bias ? c(m->d_model) : 0.0);
}

/** Biases of one MLP of width f: the input branch(es) and the output (mlp_bias). */
static double mlp_bias_params(const scale_model *m, double f) {
  return m->mlp_bias ? (m->gated_mlp ? 2.0 : 1.0) * f + c(m->d_model) : 0.0;
}

/** Biases of one MoE layer: its experts' (all, or the k + shared a token uses) and the
 * router's E. */
static double moe_layer_bias_params(const scale_model *m, bool active) {
  double experts = c(active ? m->n_experts_active : m->n_experts) + c(m->n_shared_experts);
  return m->mlp_bias ? experts * mlp_bias_params(m, c(m->d_ff_expert)) + c(m->n_experts) : 0.0;
}

/** Biases of every MLP, dense and expert (the router's E too), of the model; 'active' counts
 * only the k + shared experts a token uses. */
static double all_mlp_bias_params(const scale_model *m, bool active) {
  if (!m->mlp_bias || is_mamba(m)) {
    return 0.0;
  }
  double dense = scale_transformer_n_mlp_layers(m) * mlp_bias_params(m, c(m->d_ff));
  if (!is_moe(m)) {
    return dense;
  }
  return dense + scale_transformer_n_moe_layers(m) * moe_layer_bias_params(m, active);
}

/** FLOPs of every layer of the model (no unembedding) for b sequences of t tokens. */
static double layers_flops(const scale_model *m, double b, double t, bool causal, scale_pass pass) {
  double tokens = b * t;
  double per_layer = scale_transformer_qkvo_flops(m, tokens, pass) +
                     scale_transformer_attention_flops(m, b, t, t, causal, pass) +
                     scale_transformer_mamba2_projection_flops(m, tokens, pass) +
                     scale_transformer_ssd_flops(m, b, t, false, pass);
  return c(m->n_layers) * per_layer +
         scale_transformer_n_mlp_layers(m) * scale_transformer_mlp_flops(m, tokens, pass) +
         scale_transformer_n_moe_layers(m) * scale_transformer_moe_flops(m, tokens, pass);
}

/** Matmul FLOPs of every layer per token, excluding dot-product attention and SSD. */
static double layers_weight_flops_per_token(const scale_model *m, scale_pass pass) {
  return c(m->n_layers) * (scale_transformer_qkvo_flops(m, 1.0, pass) +
                           scale_transformer_mamba2_projection_flops(m, 1.0, pass)) +
         scale_transformer_n_mlp_layers(m) * scale_transformer_mlp_flops(m, 1.0, pass) +
         scale_transformer_n_moe_layers(m) * scale_transformer_moe_flops(m, 1.0, pass);
}

/* ---- counting dots -------------------------------------------------------------------------- */

double scale_transformer_pass_flops_per_param(scale_pass pass) {
  switch (pass) {
  case SCALE_PASS_FORWARD:
    return 2.0;
  case SCALE_PASS_BACKWARD:
    return 4.0;
  case SCALE_PASS_TRAIN:
    return 6.0;
  default:
    return NAN;
  }
}

#define EINSUM_MAX_LABELS 52

static bool is_letter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

static int letter_slot(char ch) { return ch >= 'a' ? ch - 'a' : 26 + (ch - 'A'); }

double scale_transformer_einsum_flops(const char *spec, const double *sizes) {
  if (spec == NULL || sizes == NULL) {
    return NAN;
  }
  int index[EINSUM_MAX_LABELS];
  unsigned where[EINSUM_MAX_LABELS] = {0}; /* bit 0: first operand, 1: second, 2: output */
  for (int i = 0; i < EINSUM_MAX_LABELS; i++) {
    index[i] = -1;
  }
  int n_labels = 0, part = 0;
  for (const char *p = spec; *p != '\0'; p++) {
    if (*p == ',') {
      if (part != 0) {
        return NAN;
      }
      part = 1;
      continue;
    }
    if (*p == '-') {
      if (part != 1 || p[1] != '>') {
        return NAN;
      }
      part = 2;
      p++;
      continue;
    }
    if (!is_letter(*p)) {
      return NAN;
    }
    int slot = letter_slot(*p);
    if (index[slot] < 0) {
      index[slot] = n_labels++;
    }
    unsigned bit = 1u << part;
    if (where[index[slot]] & bit) {
      return NAN; /* a letter twice in one operand (a trace or diagonal) */
    }
    where[index[slot]] |= bit;
  }
  if (part != 2) {
    return NAN;
  }
  double flops = 1.0;
  bool contracting = false;
  for (int i = 0; i < n_labels; i++) {
    bool in_a = where[i] & 1u, in_b = where[i] & 2u, out = where[i] & 4u;
    if (!size_ok(sizes[i]) || (!in_a && !in_b) || (in_a != in_b && !out)) {
      return NAN;
    }
    contracting = contracting || (in_a && in_b && !out);
    flops *= sizes[i];
  }
  return contracting ? 2.0 * flops : flops;
}

double scale_transformer_matmul_flops(double n, double p, double m) {
  if (!size_ok(n) || !size_ok(p) || !size_ok(m)) {
    return NAN;
  }
  return 2.0 * n * p * m;
}

double scale_transformer_dense_flops(double n_params, double n_tokens, scale_pass pass) {
  if (!size_ok(n_params) || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) * n_params * n_tokens;
}

/* ---- parameters ----------------------------------------------------------------------------- */

double scale_transformer_n_attention_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  return attention_matmul_params(model) + mla_norm_params(model) + attention_extra_params(model);
}

double scale_transformer_n_mlp_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  return mlp_matrices(model) * c(model->d_model) * c(model->d_ff);
}

double scale_transformer_n_expert_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (!is_moe(model)) {
    return 0.0;
  }
  return mlp_matrices(model) * c(model->d_model) * c(model->d_ff_expert);
}

double scale_transformer_n_moe_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (!is_moe(model)) {
    return 0.0;
  }
  double experts = c(model->n_experts) + c(model->n_shared_experts);
  return experts * scale_transformer_n_expert_params(model) +
         c(model->d_model) * c(model->n_experts);
}

double scale_transformer_n_moe_active_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (!is_moe(model)) {
    return 0.0;
  }
  double experts = c(model->n_experts_active) + c(model->n_shared_experts);
  return experts * scale_transformer_n_expert_params(model) +
         c(model->d_model) * c(model->n_experts);
}

double scale_transformer_n_moe_layers(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  return is_moe(model) ? c(model->n_layers) - c(model->n_dense_layers) : 0.0;
}

double scale_transformer_n_mlp_layers(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (model->d_ff <= 0) {
    return 0.0;
  }
  return is_moe(model) ? c(model->n_dense_layers) : c(model->n_layers);
}

double scale_transformer_mamba2_d_in_proj(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (!is_mamba(model)) {
    return 0.0;
  }
  return 2.0 * ssm_d_inner(model) + 2.0 * c(model->ssm_n_groups) * c(model->ssm_d_state) +
         ssm_heads(model);
}

double scale_transformer_n_mamba2_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (!is_mamba(model)) {
    return 0.0;
  }
  double conv = ssm_conv_dim(model) * (c(model->ssm_d_conv) + 1.0); /* taps + bias */
  double per_head = 3.0 * ssm_heads(model);                         /* dt bias, A, D */
  double norm = ssm_d_inner(model);
  return mamba2_matmul_params(model) + conv + per_head + norm;
}

double scale_transformer_n_norm_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  double d = c(model->d_model);
  if (is_mamba(model)) {
    return model->d_ff > 0 ? 2.0 * d : d;
  }
  return 2.0 * d;
}

double scale_transformer_n_embedding_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  double vd = c(model->n_vocab) * c(model->d_model);
  double positions = model->position == SCALE_POS_LEARNED ? c(model->n_ctx_max) * c(model->d_model)
                                                           : 0.0;
  return (model->tied_embeddings ? vd : 2.0 * vd) + positions;
}

double scale_transformer_n_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  double per_layer = scale_transformer_n_attention_params(model) +
                     scale_transformer_n_mamba2_params(model) +
                     scale_transformer_n_norm_params(model);
  return c(model->n_layers) * per_layer +
         scale_transformer_n_mlp_layers(model) * scale_transformer_n_mlp_params(model) +
         scale_transformer_n_moe_layers(model) * scale_transformer_n_moe_params(model) +
         scale_transformer_n_embedding_params(model) + c(model->d_model) +
         all_mlp_bias_params(model, false);
}

double scale_transformer_n_active_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  double idle =
      scale_transformer_n_moe_params(model) - scale_transformer_n_moe_active_params(model);
  return scale_transformer_n_params(model) - scale_transformer_n_moe_layers(model) * idle -
         (all_mlp_bias_params(model, false) - all_mlp_bias_params(model, true));
}

double scale_transformer_n_mtp_params(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  if (is_mamba(model) || model->n_mtp_layers <= 0) {
    return 0.0;
  }
  double d = c(model->d_model), vd = c(model->n_vocab) * d;
  /* the block's MLP is what the main model's last layer has (MoE in DeepSeek-V3) */
  double mlp = is_moe(model) ? scale_transformer_n_moe_params(model)
                             : scale_transformer_n_mlp_params(model);
  double bias = is_moe(model) ? moe_layer_bias_params(model, false)
                              : mlp_bias_params(model, c(model->d_ff));
  double block = scale_transformer_n_attention_params(model) + 2.0 * d + mlp + bias;
  /* + the projection M of [h; e] (2D x D), its two input norms and the head's norm, and the
   * checkpoint's own copies of the embedding and the output head (shared in training) */
  return c(model->n_mtp_layers) * (block + 2.0 * d * d + 3.0 * d + 2.0 * vd);
}

double scale_transformer_mtp_train_flops(const scale_model *model, double b, double t) {
  if (model == NULL || !size_ok(b) || !size_ok(t)) {
    return NAN;
  }
  if (is_mamba(model) || model->n_mtp_layers <= 0) {
    return 0.0;
  }
  scale_pass pass = SCALE_PASS_TRAIN;
  double tokens = b * t, d = c(model->d_model);
  double mlp = is_moe(model) ? scale_transformer_moe_flops(model, tokens, pass)
                             : scale_transformer_mlp_flops(model, tokens, pass);
  double block = scale_transformer_qkvo_flops(model, tokens, pass) +
                 scale_transformer_attention_flops(model, b, t, t, true, pass) + mlp;
  double projection = scale_transformer_pass_flops_per_param(pass) * 2.0 * d * d * tokens;
  return c(model->n_mtp_layers) *
         (block + projection + scale_transformer_unembedding_flops(model, tokens, pass));
}

/* ---- FLOPs ---------------------------------------------------------------------------------- */

double scale_transformer_qkvo_flops(const scale_model *model, double n_tokens, scale_pass pass) {
  if (model == NULL || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) * attention_matmul_params(model) * n_tokens;
}

double scale_transformer_attention_flops(const scale_model *model, double b, double t, double s,
                                         bool causal, scale_pass pass) {
  if (model == NULL || !size_ok(b) || !size_ok(t) || !size_ok(s)) {
    return NAN;
  }
  double pairs = layer_pairs(model, t, s, causal);
  double head_widths = 0.0; /* H of QK^T plus H of the product with V */
  if (is_mla(model)) {
    head_widths = mla_qk_head(model) + mla_v_head(model);
  } else if (!is_mamba(model)) {
    head_widths = 2.0 * c(model->d_head);
  }
  /* forward: 2 b pairs N H_qk + 2 b pairs N H_v */
  return pass_multiple(pass) * 2.0 * b * pairs * c(model->n_heads) * head_widths;
}

double scale_transformer_mlp_flops(const scale_model *model, double n_tokens, scale_pass pass) {
  if (model == NULL || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) * scale_transformer_n_mlp_params(model) *
         n_tokens;
}

double scale_transformer_moe_flops(const scale_model *model, double n_tokens, scale_pass pass) {
  if (model == NULL || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) *
         scale_transformer_n_moe_active_params(model) * n_tokens;
}

double scale_transformer_unembedding_flops(const scale_model *model, double n_tokens,
                                           scale_pass pass) {
  if (model == NULL || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) * c(model->d_model) * c(model->n_vocab) *
         n_tokens;
}

double scale_transformer_mamba2_projection_flops(const scale_model *model, double n_tokens,
                                                 scale_pass pass) {
  if (model == NULL || !size_ok(n_tokens)) {
    return NAN;
  }
  return scale_transformer_pass_flops_per_param(pass) * mamba2_matmul_params(model) * n_tokens;
}

double scale_transformer_ssd_flops(const scale_model *model, double b, double s,
                                   bool naive_recurrence, scale_pass pass) {
  if (model == NULL || !size_ok(b) || !size_ok(s)) {
    return NAN;
  }
  double mult = pass_multiple(pass);
  if (!is_mamba(model)) {
    return 0.0 * mult;
  }
  if (model->ssm_chunk_size <= 0) {
    return NAN;
  }
  double l = c(model->ssm_chunk_size), n = c(model->ssm_d_state);
  double h = ssm_heads(model), p = ssm_head_dim(model);
  double chunks = s / l;
  double recurrence = naive_recurrence ? h * chunks * (chunks + 1.0) * p * n : h * chunks * p * n;
  double sum = chunks * h * l * l * n    /* 1: C.B^T within a chunk */
               + chunks * h * l * l * p  /* 2: masked scores times X */
               + chunks * h * l * p * n  /* 3: chunk states B.X */
               + recurrence              /* 4: states passed between chunks */
               + chunks * h * p * n * l; /* 5: C.states, the off-diagonal output */
  return mult * 2.0 * b * sum;
}

double scale_transformer_flops(const scale_model *model, double b, double t, bool causal,
                               scale_pass pass) {
  if (model == NULL || !size_ok(b) || !size_ok(t)) {
    return NAN;
  }
  return layers_flops(model, b, t, causal, pass) +
         scale_transformer_unembedding_flops(model, b * t, pass);
}

double scale_transformer_flops_per_token(const scale_model *model, double t, bool causal,
                                         scale_pass pass) {
  if (model == NULL || !isfinite(t) || t <= 0.0) {
    return NAN;
  }
  return scale_transformer_flops(model, 1.0, t, causal, pass) / t;
}

double scale_transformer_attention_flops_ratio(const scale_model *model, double t, bool causal) {
  if (model == NULL || !size_ok(t)) {
    return NAN;
  }
  double attention = c(model->n_layers) * scale_transformer_attention_flops(
                                              model, 1.0, t, t, causal, SCALE_PASS_FORWARD);
  double weights = t * layers_weight_flops_per_token(model, SCALE_PASS_FORWARD);
  if (attention == 0.0) {
    return 0.0;
  }
  return attention / weights;
}

double scale_transformer_attention_flops_frac(const scale_model *model, double t, bool causal) {
  double ratio = scale_transformer_attention_flops_ratio(model, t, causal);
  return ratio / (1.0 + ratio);
}

double scale_transformer_n_tokens_attention_equals_qkvo(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  /* attention is a b t s with a = its FLOPs for b = t = s = 1; projections are q b t */
  double a = scale_transformer_attention_flops(model, 1.0, 1.0, 1.0, false, SCALE_PASS_FORWARD);
  double q = scale_transformer_qkvo_flops(model, 1.0, SCALE_PASS_FORWARD);
  return a > 0.0 ? q / a : (double)NAN;
}

double scale_transformer_n_tokens_attention_dominates(const scale_model *model) {
  if (model == NULL) {
    return NAN;
  }
  double a = c(model->n_layers) *
             scale_transformer_attention_flops(model, 1.0, 1.0, 1.0, false, SCALE_PASS_FORWARD);
  double w = layers_weight_flops_per_token(model, SCALE_PASS_FORWARD);
  return a > 0.0 ? w / a : (double)NAN;
}

/* ---- mixture of experts --------------------------------------------------------------------- */

double scale_transformer_moe_sparsity(const scale_model *model) {
  if (model == NULL || !is_moe(model) || model->n_experts_active <= 0) {
    return NAN;
  }
  return c(model->n_experts) / c(model->n_experts_active);
}

double scale_transformer_moe_critical_batch(const scale_model *model, double dense_critical_batch) {
  if (!size_ok(dense_critical_batch)) {
    return NAN;
  }
  return dense_critical_batch * scale_transformer_moe_sparsity(model);
}

/* ---- memory: weights, gradients, optimizer -------------------------------------------------- */

double scale_transformer_weight_bytes(const scale_precision *prec, double n_params) {
  if (prec == NULL || !size_ok(n_params)) {
    return NAN;
  }
  return scale_dtype_bytes(prec->weight_dtype) * n_params;
}

double scale_transformer_grad_bytes(const scale_precision *prec, double n_params) {
  if (prec == NULL || !size_ok(n_params)) {
    return NAN;
  }
  return scale_dtype_bytes(prec->grad_dtype) * n_params;
}

double scale_transformer_optimizer_bytes(const scale_precision *prec, double n_params) {
  if (prec == NULL || !size_ok(n_params) || prec->n_moments < 0) {
    return NAN;
  }
  double copies = (double)prec->n_moments + (prec->master_weights ? 1.0 : 0.0);
  return copies * scale_dtype_bytes(prec->state_dtype) * n_params;
}

double scale_transformer_train_state_bytes(const scale_precision *prec, double n_params) {
  return scale_transformer_weight_bytes(prec, n_params) +
         scale_transformer_grad_bytes(prec, n_params) +
         scale_transformer_optimizer_bytes(prec, n_params);
}

/* ---- memory: activations and rematerialization ---------------------------------------------- */

double scale_transformer_n_saved_per_layer(scale_remat remat) {
  switch (remat) {
  case SCALE_REMAT_NONE:
    return 20.0;
  case SCALE_REMAT_BLOCK:
    return 1.0;
  case SCALE_REMAT_BIG_MATMULS:
    return 7.0;
  case SCALE_REMAT_SELECTIVE:
    return 17.0;
  default:
    return NAN;
  }
}

double scale_transformer_checkpoint_bytes(const scale_model *model, double n_tokens,
                                          double n_per_layer, scale_dtype dtype) {
  if (model == NULL || !size_ok(n_tokens) || !size_ok(n_per_layer)) {
    return NAN;
  }
  return n_per_layer * n_tokens * c(model->d_model) * c(model->n_layers) * scale_dtype_bytes(dtype);
}

double scale_transformer_activation_bytes(const scale_model *model, double n_tokens,
                                          scale_remat remat, scale_dtype dtype) {
  return scale_transformer_checkpoint_bytes(model, n_tokens,
                                            scale_transformer_n_saved_per_layer(remat), dtype);
}

double scale_transformer_remat_extra_flops(const scale_model *model, double b, double t,
                                           bool causal, scale_remat remat) {
  if (model == NULL || !size_ok(b) || !size_ok(t)) {
    return NAN;
  }
  switch (remat) {
  case SCALE_REMAT_NONE:
    return 0.0;
  case SCALE_REMAT_BLOCK:
    return layers_flops(model, b, t, causal, SCALE_PASS_FORWARD);
  case SCALE_REMAT_BIG_MATMULS:
    return c(model->n_layers) *
           (scale_transformer_attention_flops(model, b, t, t, causal, SCALE_PASS_FORWARD) +
            scale_transformer_ssd_flops(model, b, t, false, SCALE_PASS_FORWARD));
  case SCALE_REMAT_SELECTIVE:
    return c(model->n_layers) *
           scale_transformer_attention_flops(model, b, t, t, causal, SCALE_PASS_FORWARD);
  default:
    return NAN;
  }
}

/* ---- inference: KV cache and recurrent state ------------------------------------------------ */

double scale_transformer_kv_bytes_per_token(const scale_model *model, scale_dtype dtype) {
  if (model == NULL) {
    return NAN;
  }
  double bytes = scale_dtype_bytes(dtype), l = c(model->n_layers);
  if (is_mamba(model)) {
    return 0.0 * bytes;
  }
  if (is_mla(model)) {
    return l * (c(model->kv_lora_rank) + c(model->d_head_rope)) * bytes;
  }
  return 2.0 * l * c(model->n_kv_heads) * c(model->d_head) * bytes;
}

double scale_transformer_kv_bytes(const scale_model *model, double n_tokens, scale_dtype dtype) {
  if (!size_ok(n_tokens)) {
    return NAN;
  }
  double per_token = scale_transformer_kv_bytes_per_token(model, dtype);
  double local = model ? c(scale_model_n_local_layers(model)) : 0.0;
  if (!(local > 0.0)) {
    return n_tokens * per_token;
  }
  /* a local layer holds at most its window (a chunked one: its chunk) of the latest tokens */
  double l = c(model->n_layers), w = c(model->window_tokens);
  return per_token / l * ((l - local) * n_tokens + local * fmin(n_tokens, w));
}

double scale_transformer_state_bytes_per_sequence(const scale_model *model, scale_dtype dtype) {
  if (model == NULL) {
    return NAN;
  }
  double bytes = scale_dtype_bytes(dtype);
  if (!is_mamba(model)) {
    return 0.0 * bytes;
  }
  double ssm = ssm_heads(model) * ssm_head_dim(model) * c(model->ssm_d_state);
  double conv = ssm_conv_dim(model) * (c(model->ssm_d_conv) - 1.0);
  return c(model->n_layers) * (ssm + conv) * bytes;
}

double scale_transformer_attention_intensity_flops_per_byte(const scale_model *model, double t,
                                                            double s, scale_dtype dtype) {
  if (model == NULL || is_mamba(model) || is_mla(model) || !isfinite(t) || !isfinite(s) ||
      t <= 0.0 || s <= 0.0) {
    return NAN;
  }
  double nh = c(model->n_heads) * c(model->d_head), kh = c(model->n_kv_heads) * c(model->d_head);
  double flops = 4.0 * t * s * nh;               /* per sequence: QK^T and AV */
  double elements = 2.0 * t * nh + 2.0 * s * kh; /* read Q, write O; read K, V */
  return flops / (elements * scale_dtype_bytes(dtype));
}

/* ---- per-device blocks under TP, CP and DP -------------------------------------------------- */

static bool gqa_ok(const scale_model *m) {
  return m != NULL && !is_mamba(m) && !is_mla(m) && m->n_heads > 0;
}

static bool gated_mlp_ok(const scale_model *m) { return m != NULL && m->gated_mlp && m->d_ff > 0; }

static bool layout_ok(double b, double s, double tp, double cp, double dp) {
  return size_ok(b) && size_ok(s) && degree_ok(tp) && degree_ok(cp) && degree_ok(dp);
}

double scale_transformer_gqa_block_flops_per_device(const scale_model *model, double b, double s,
                                                    double tp, double cp, double dp) {
  if (!gqa_ok(model) || !layout_ok(b, s, tp, cp, dp)) {
    return NAN;
  }
  double n = c(model->n_heads), h = c(model->d_head);
  double projections = scale_transformer_qkvo_flops(model, b * s, SCALE_PASS_FORWARD);
  double scores = 4.0 * b * s * s * n * h; /* QK^T and SV, every pair */
  double softmax = 5.0 * b * s * s * n;
  return (projections + scores + softmax) / (tp * cp * dp);
}

double scale_transformer_gqa_block_weight_bytes_per_device(const scale_model *model, double tp,
                                                           scale_dtype dtype) {
  if (!gqa_ok(model) || !degree_ok(tp)) {
    return NAN;
  }
  return attention_matmul_params(model) / tp * scale_dtype_bytes(dtype);
}

double scale_transformer_gqa_block_activation_bytes_per_device(const scale_model *model, double b,
                                                               double s, double tp, double cp,
                                                               double dp, scale_dtype dtype) {
  if (!gqa_ok(model) || !layout_ok(b, s, tp, cp, dp)) {
    return NAN;
  }
  double nh = c(model->n_heads) * c(model->d_head), kh = c(model->n_kv_heads) * c(model->d_head);
  double tokens = (b / dp) * (s / cp);
  return tokens * (c(model->d_model) + (2.0 * nh + 2.0 * kh) / tp) * scale_dtype_bytes(dtype);
}

double scale_transformer_mlp_block_flops_per_device(const scale_model *model, double b, double s,
                                                    double tp, double cp, double dp) {
  if (!gated_mlp_ok(model) || !layout_ok(b, s, tp, cp, dp)) {
    return NAN;
  }
  double d = c(model->d_model), f = c(model->d_ff);
  return b * s * (6.0 * d * f + 5.0 * f) / (tp * cp * dp);
}

double scale_transformer_mlp_block_weight_bytes_per_device(const scale_model *model, double tp,
                                                           scale_dtype dtype) {
  if (!gated_mlp_ok(model) || !degree_ok(tp)) {
    return NAN;
  }
  return scale_transformer_n_mlp_params(model) / tp * scale_dtype_bytes(dtype);
}

double scale_transformer_mlp_block_activation_bytes_per_device(const scale_model *model, double b,
                                                               double s, double tp, double cp,
                                                               double dp, scale_dtype dtype) {
  if (!gated_mlp_ok(model) || !layout_ok(b, s, tp, cp, dp)) {
    return NAN;
  }
  double tokens = (b / dp) * (s / cp);
  double d = c(model->d_model), f = c(model->d_ff);
  return tokens * (2.0 * d + 4.0 * f / tp) * scale_dtype_bytes(dtype);
}

double scale_transformer_mamba2_weight_bytes_per_device(const scale_model *model, double tp,
                                                        scale_dtype dtype) {
  if (model == NULL || !is_mamba(model) || !degree_ok(tp)) {
    return NAN;
  }
  return mamba2_matmul_params(model) / tp * scale_dtype_bytes(dtype);
}

/* ---- activations of one layer as the hybrid paper counts them -------------------------------- */

double scale_transformer_layer_activation_bytes(const scale_model *model, double b, double s, double tp,
                                           double cp, bool sp) {
  if (!model || !(b >= 0.0 && isfinite(b)) || !(s >= 0.0 && isfinite(s)) || !(tp >= 1.0 && isfinite(tp)) ||
      !(cp >= 1.0 && isfinite(cp))) return NAN;
  double t = tp, tokens = b * s / cp, d = (double)(model->d_model);
  if (model->arch == SCALE_ARCH_TRANSFORMER) {
    /* Korthikanti et al. Table 2 (16-bit, flash attention: no 5as/h term) */
    return sp ? 34.0 * tokens * d / t : tokens * d * (10.0 + 24.0 / t);
  }
  if (!is_mamba(model) || !(model->ssm_n_heads > 0 && model->ssm_d_head > 0 &&
                             model->ssm_d_state > 0 && model->ssm_chunk_size > 0))
    return NAN;
  double inner = (double)(scale_model_ssm_d_inner(model));
  double in_proj = scale_transformer_mamba2_d_in_proj(model);
  double gn = (double)(model->ssm_n_groups) * (double)(model->ssm_d_state);
  double per_token = 2.0 * d / (sp ? t : 1.0) + (in_proj + inner + 2.0 * gn + 2.0 * inner) / t;
  double chunk_states = b * (s / cp) / (double)(model->ssm_chunk_size) * (double)(model->ssm_n_heads) / t *
                        (double)(model->ssm_d_head) * (double)(model->ssm_d_state);
  double mlp = model->d_ff > 0 ? tokens * (2.0 * d + 4.0 * (double)(model->d_ff) / t) : 0.0;
  /* 16-bit activations; the chunk states in fp32, as mamba_ssm's chunk_state kernel keeps them */
  return 2.0 * (tokens * per_token + mlp) + 4.0 * chunk_states;
}

/* ---- names of the activation policies a run states ------------------------------------------ */

static const char *const recompute_names[SCALE_RECOMPUTE_COUNT] = {"-", "none", "selective",
                                                                   "full"};
static const char *const attention_names[SCALE_ATTENTION_COUNT] = {"unfused", "flash"};

const char *scale_attention_name(scale_attention attention) {
  return (unsigned)attention < SCALE_ATTENTION_COUNT ? attention_names[attention] : "?";
}

const char *scale_recompute_name(scale_recompute recompute) {
  return (unsigned)recompute < SCALE_RECOMPUTE_COUNT ? recompute_names[recompute] : "?";
}

/* ---- tensor parallelism: the one divisibility rule -------------------------------------------- */

/* Whether b splits a evenly (b a count >= 1). */
static bool tp_divides(double b, double a) { return b >= 1.0 && scale_fmod_zero(a, b); }

scale_status scale_transformer_tp_check(const scale_model *m, double tp, scale_diag *diag) {
  if (!m || !(isfinite(tp) && tp >= 1.0 && tp == floor(tp))) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g must be an integer >= 1", tp);
  if (tp == 1.0) return SCALE_OK;
  if (m->arch == SCALE_ARCH_MAMBA2) {
    double heads = (double)(m->ssm_n_heads);
    if (heads > 0.0 && !tp_divides(tp, heads))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g does not divide the %g SSM heads", tp, heads);
    double groups = (double)(m->ssm_n_groups); /* the grouped norm and B, C split by group */
    if (groups > 0.0 && !tp_divides(tp, groups))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g does not divide the %g SSM groups", tp, groups);
  } else {
    double n = (double)(m->n_heads), k = (double)(m->n_kv_heads);
    if (!tp_divides(tp, n)) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g does not divide the %g query heads", tp, n);
    if (k > 0.0 && !tp_divides(tp, k) && !tp_divides(k, tp))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g and the %g KV heads do not divide one another", tp, k);
  }
  if (m->d_ff > 0 && !tp_divides(tp, (double)(m->d_ff)))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g does not divide the MLP width F = %g", tp, (double)(m->d_ff));
  if (m->d_ff_expert > 0 && !tp_divides(tp, (double)(m->d_ff_expert)))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "tp %g does not divide the expert width %g", tp, (double)(m->d_ff_expert));
  return SCALE_OK;
}
