/* memory.c — activations by recompute mode and parallelism, framework overhead (memory.h). */
#include "scale/memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/transformer.h"
#include "internal.h"

static double c(int64_t n) { return (double)n; }

static bool act_ok(const scale_model *m, double b, double s, const scale_memory_act *o) {
  return m && o && isfinite(b) && b > 0.0 && isfinite(s) && s > 0.0 && isfinite(o->tp) &&
         o->tp >= 1.0 && isfinite(o->cp) && o->cp >= 1.0 && isfinite(o->act_bytes) &&
         o->act_bytes > 0.0 && o->recompute > SCALE_RECOMPUTE_UNKNOWN &&
         o->recompute < SCALE_RECOMPUTE_COUNT && m->n_layers >= 1 && m->d_model >= 1;
}

/* The width of the MLP activations of an average layer: dense layers d_ff, MoE layers the
 * k routed experts plus the shared ones, each d_ff_expert wide (tokens spread evenly). */
static double mlp_width(const scale_model *m) {
  double layers = c(m->n_layers), moe = scale_transformer_n_moe_layers(m);
  double expert = (c(m->n_experts_active) + c(m->n_shared_experts)) * c(m->d_ff_expert);
  return ((layers - moe) * c(m->d_ff) + moe * expert) / layers;
}

/* Per token, split by tp: Q, K, V and the output projection's input [elements]. */
static double attention_widths(const scale_model *m) {
  double heads = c(m->n_heads);
  if (m->kv_lora_rank > 0) { /* MLA trains on the up-projected keys and values */
    double qk = heads * c(m->d_head_nope + m->d_head_rope), v = heads * c(m->d_head_v);
    return 2.0 * qk + v + v;
  }
  double q = heads * c(m->d_head), k = c(m->n_kv_heads > 0 ? m->n_kv_heads : m->n_heads);
  return q + 2.0 * k * c(m->d_head) + q;
}

/* Per token, split by tp: the attention core kept without recompute [bytes]. */
static double core_bytes_per_token(const scale_model *m, double s, const scale_memory_act *o) {
  double heads = c(m->n_heads);
  return o->flash ? 4.0 * heads : (2.0 * o->act_bytes + 1.0) * heads * s;
}

/* Per token: everything a transformer layer keeps without recompute, less the core. */
static double kept_bytes_per_token(const scale_model *m, const scale_memory_act *o) {
  double a = o->act_bytes, d = c(m->d_model), t = o->tp;
  double replicated = (4.0 * a + 2.0) * d;
  double split = a * (attention_widths(m) + (m->gated_mlp ? 3.0 : 2.0) * mlp_width(m));
  return (o->sp ? replicated / t : replicated) + split / t;
}

/* The layer input: the only tensor full recompute keeps [bytes per token]. */
static double input_bytes_per_token(const scale_model *m, const scale_memory_act *o) {
  double x = o->act_bytes * c(m->d_model);
  return o->sp ? x / o->tp : x;
}

double scale_memory_layer_activation_bytes(const scale_model *model, double b, double s,
                                           const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double tokens = b * s / act->cp;
  if (act->recompute == SCALE_RECOMPUTE_FULL) return tokens * input_bytes_per_token(model, act);
  if (model->arch == SCALE_ARCH_MAMBA2) /* no attention core: selective keeps it all */
    return scale_transformer_layer_activation_bytes(model, b, s, act->tp, act->cp, act->sp);
  double per_token = kept_bytes_per_token(model, act);
  if (act->recompute == SCALE_RECOMPUTE_NONE)
    per_token += core_bytes_per_token(model, s, act) / act->tp;
  return tokens * per_token;
}

double scale_memory_layer_working_bytes(const scale_model *model, double b, double s,
                                        const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  if (act->recompute == SCALE_RECOMPUTE_NONE) return 0.0;
  double tokens = b * s / act->cp;
  if (act->recompute == SCALE_RECOMPUTE_FULL) {
    scale_memory_act none = *act;
    none.recompute = SCALE_RECOMPUTE_NONE;
    return scale_memory_layer_activation_bytes(model, b, s, &none) -
           tokens * input_bytes_per_token(model, act);
  }
  if (model->arch == SCALE_ARCH_MAMBA2) return 0.0;
  return tokens * core_bytes_per_token(model, s, act) / act->tp;
}

double scale_memory_embedding_bytes(const scale_model *model, double b, double s,
                                    const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double mask = c(model->d_model);
  return b * s / act->cp * (act->sp ? mask / act->tp : mask);
}

double scale_memory_logits_bytes(const scale_model *model, double b, double s,
                                 const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double inputs = 2.0 * act->act_bytes * c(model->d_model);
  double per_token = (act->sp ? inputs / act->tp : inputs) + 4.0 * c(model->n_vocab) / act->tp;
  return b * s / act->cp * per_token;
}

/* ---- overhead ---- */

static double or_zero(double x) { return isnan(x) ? 0.0 : x; }

scale_memory_overhead scale_memory_overhead_of(const scale_chip *chip) {
  scale_memory_overhead o = {0.0, 0.0, 0.0};
  if (!chip) return o;
  o.context_bytes = or_zero(chip->memory_context_bytes);
  o.comm_buffer_bytes = or_zero(chip->memory_comm_buffer_bytes);
  o.fragmentation_frac = or_zero(chip->memory_fragmentation_frac);
  return o;
}

double scale_memory_overhead_bytes(const scale_memory_overhead *o, double tensor_bytes,
                                   double n_groups) {
  if (!o || !(tensor_bytes >= 0.0) || !(n_groups >= 0.0)) return NAN;
  double x =
      o->context_bytes + n_groups * o->comm_buffer_bytes + o->fragmentation_frac * tensor_bytes;
  return isfinite(x) && x >= 0.0 ? x : (double)NAN;
}

/* Weighted least squares of y = c + k x, weight 1 / (rows of the group). */
bool scale_memory_fit(const double *x, const double *y, const int *group, int n, int exclude,
                      double *context_bytes, double *fragmentation_frac) {
  if (context_bytes) *context_bytes = NAN;
  if (fragmentation_frac) *fragmentation_frac = NAN;
  if (!x || !y || !group || n < 2 || !context_bytes || !fragmentation_frac) return false;
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    if (group[i] < 0 || group[i] >= n || !isfinite(x[i]) || !isfinite(y[i])) return false;
    if (group[i] == exclude) continue;
    int rows = 0;
    for (int j = 0; j < n; j++)
      rows += group[j] == group[i];
    double w = 1.0 / rows;
    sw += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  double det = sw * sxx - sx * sx;
  if (!(sw > 0.0) || !(fabs(det) > 1e-12 * sxx * sw)) return false;
  double k = (sw * sxy - sx * sy) / det, ctx = (sy - k * sx) / sw;
  /* Both figures are physical only when >= 0: a negative one is pinned at 0 and the other
   * refitted alone (the allocator cannot give back memory it never had). */
  if (k < 1.0) k = 1.0, ctx = (sy - sx) / sw;
  if (ctx < 0.0) ctx = 0.0, k = fmax(1.0, sxy / sxx);
  *context_bytes = ctx;
  *fragmentation_frac = k - 1.0;
  return true;
}

/* ---- published runs ---- */

scale_status scale_memory_recompute_parse(const char *text, scale_recompute *out) {
  for (int i = SCALE_RECOMPUTE_NONE; text && out && i < SCALE_RECOMPUTE_COUNT; i++)
    if (strcmp(text, scale_recompute_name((scale_recompute)i)) == 0) {
      *out = (scale_recompute)i;
      return SCALE_OK;
    }
  return SCALE_ERR_INVALID;
}

scale_remat scale_memory_remat_of(scale_recompute r) {
  return r == SCALE_RECOMPUTE_NONE        ? SCALE_REMAT_NONE
         : r == SCALE_RECOMPUTE_SELECTIVE ? SCALE_REMAT_SELECTIVE
                                          : SCALE_REMAT_BLOCK;
}
