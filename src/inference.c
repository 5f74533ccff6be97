/* inference.c — prefill, decode step, memory and thresholds of serving (chapters 7 and 8).
 *
 * See include/scale/inference.h for the contract of each function. Everything here is pure and
 * allocation-free; only scale_infer_validate() reports errors.
 */
#include "scale/inference.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/collectives.h"
#include "scale/roofline.h"
#include "scale/transformer.h"

/* ==== helpers ================================================================================ */

static bool nonneg(double x) { return isfinite(x) && x >= 0.0; }
static bool positive(double x) { return isfinite(x) && x > 0.0; }
static bool is_count(double x) { return isfinite(x) && x >= 1.0 && x == floor(x); }
static bool dtype_ok(scale_dtype d) { return (int)d >= 0 && d < SCALE_DTYPE_COUNT; }
static double c64(int64_t v) { return (double)v; }

static bool is_mamba(const scale_model *m) { return m->arch == SCALE_ARCH_MAMBA2; }
static bool is_moe(const scale_model *m) { return !is_mamba(m) && m->n_experts > 0; }

/* ==== book formulas on plain numbers ========================================================= */

/* [listing:step-time] */
double scale_infer_step_time_s(double batch, double kv_bytes_per_seq, double param_bytes,
                               double n_params, double flops_per_s, double hbm_bytes_per_s) {
  if (!nonneg(batch) || !nonneg(kv_bytes_per_seq) || !nonneg(param_bytes) || !nonneg(n_params) ||
      !positive(flops_per_s) || !positive(hbm_bytes_per_s))
    return NAN;
  /* every sequence's KV cache is read once a step (attention is always bandwidth-bound); the
   * matmuls take the longer of reading the weights and doing 2 x params FLOPs a sequence */
  double t_kv = batch * kv_bytes_per_seq / hbm_bytes_per_s;
  double t_flops = 2.0 * batch * n_params / flops_per_s;
  double t_params = param_bytes / hbm_bytes_per_s;
  return t_kv + fmax(t_flops, t_params);
}
/* [/listing:step-time] */

double scale_infer_min_step_time_s(double batch, double kv_bytes_per_seq, double param_bytes,
                                   double hbm_bytes_per_s) {
  if (!nonneg(batch) || !nonneg(kv_bytes_per_seq) || !nonneg(param_bytes) ||
      !positive(hbm_bytes_per_s))
    return NAN;
  return (batch * kv_bytes_per_seq + param_bytes) / hbm_bytes_per_s;
}

double scale_infer_prefill_time_s(double n_params, double n_tokens, double flops_per_s,
                                  double mfu_frac) {
  if (!nonneg(n_params) || !nonneg(n_tokens) || !positive(flops_per_s) || !positive(mfu_frac) ||
      mfu_frac > 1.0)
    return NAN;
  return 2.0 * n_params * n_tokens / (flops_per_s * mfu_frac);
}

double scale_infer_chips_needed(double bytes, double hbm_bytes_per_chip) {
  if (!nonneg(bytes) || !positive(hbm_bytes_per_chip)) return NAN;
  return bytes / hbm_bytes_per_chip;
}

double scale_infer_min_slice_chips(double bytes, double hbm_bytes_per_chip) {
  double n = scale_infer_chips_needed(bytes, hbm_bytes_per_chip);
  if (isnan(n)) return NAN;
  double chips = 1.0;
  while (chips < n)
    chips *= 2.0;
  return chips;
}

double scale_infer_max_batch(double free_bytes, double kv_bytes_per_seq) {
  if (!isfinite(free_bytes) || !positive(kv_bytes_per_seq)) return NAN;
  if (free_bytes <= 0.0) return 0.0;
  return floor(free_bytes / kv_bytes_per_seq);
}

double scale_infer_qps_per_chip(double batch, double step_s, double decode_len, double n_chips) {
  if (!nonneg(batch) || !positive(step_s) || !positive(decode_len) || !positive(n_chips))
    return NAN;
  return batch / (step_s * decode_len * n_chips);
}

double scale_infer_kv_evicted_per_step(double batch, double prompt_len, double decode_len) {
  if (!nonneg(batch) || !nonneg(prompt_len) || !positive(decode_len)) return NAN;
  return batch * (prompt_len + decode_len) / decode_len;
}

double scale_infer_disaggregation_ratio(double prefill_s, double batch, double step_s,
                                        double decode_len) {
  if (!nonneg(prefill_s) || !nonneg(batch) || !positive(step_s) || !positive(decode_len))
    return NAN;
  return prefill_s * batch / (step_s * decode_len);
}

double scale_infer_cost_usd_per_million_tokens(double usd_per_hour, double n_chips,
                                               double tokens_per_s) {
  if (!nonneg(usd_per_hour) || !positive(n_chips) || !positive(tokens_per_s)) return NAN;
  return n_chips * usd_per_hour / SCALE_SECONDS_PER_HOUR / tokens_per_s * 1e6;
}

/* ---- thresholds ----------------------------------------------------------------------------- */

/** Bandwidth of the model-parallel links the book calls W_ici: bidirectional ICI link on a
 * TPU, NVLink egress on a GPU; NaN when unknown. */
static double mp_link_bytes_per_s(const scale_chip *chip) {
  if (chip->kind == SCALE_HW_GPU) return chip->nvlink_bytes_per_s;
  return 2.0 * chip->ici_link_bytes_per_s;
}

double scale_infer_beta(const scale_chip *chip) {
  if (chip == NULL) return NAN;
  double w = mp_link_bytes_per_s(chip);
  if (!positive(w) || !positive(chip->hbm_bytes_per_s)) return NAN;
  return chip->hbm_bytes_per_s / w;
}

double scale_infer_max_tp_memory_bound(double d_ff, double batch, double beta) {
  if (!positive(d_ff) || !positive(batch) || !positive(beta)) return NAN;
  return d_ff / (batch * beta);
}

double scale_infer_max_tp_compute_bound(double d_ff, double n_axes, double alpha) {
  if (!positive(d_ff) || !positive(n_axes) || !positive(alpha)) return NAN;
  return n_axes * d_ff / alpha;
}

double scale_infer_ws1d_comms_s(double batch, double d_model, double act_bytes, double n_axes,
                                double link_bytes_per_s) {
  if (!nonneg(batch) || !nonneg(d_model) || !nonneg(act_bytes) || !(n_axes >= 1.0) ||
      !isfinite(n_axes) || !positive(link_bytes_per_s))
    return NAN;
  return 2.0 * act_bytes * batch * d_model / (n_axes * link_bytes_per_s);
}

double scale_infer_ws2d_comms_s(double batch, double d_model, double d_ff, double act_bytes,
                                double x, double yz, double link_bytes_per_s) {
  if (!nonneg(batch) || !nonneg(d_model) || !nonneg(d_ff) || !nonneg(act_bytes) || !(x >= 1.0) ||
      !isfinite(x) || !(yz >= 1.0) || !isfinite(yz) || !positive(link_bytes_per_s))
    return NAN;
  return act_bytes * batch * d_model / (x * link_bytes_per_s) +
         2.0 * act_bytes * batch * d_ff / (yz * link_bytes_per_s);
}

double scale_infer_ws2d_min_chips(double d_model, double d_ff, double n_axes_1d) {
  if (!positive(d_model) || !positive(d_ff) || !positive(n_axes_1d)) return NAN;
  return 2.0 * n_axes_1d * n_axes_1d * d_ff / d_model;
}

double scale_infer_latency_bound_tp(double batch, double d_model, double act_bytes,
                                    double link_bytes_per_s, double hop_latency_s) {
  if (!nonneg(batch) || !nonneg(d_model) || !nonneg(act_bytes) || !positive(link_bytes_per_s) ||
      !positive(hop_latency_s))
    return NAN;
  return act_bytes * batch * d_model / (link_bytes_per_s * hop_latency_s);
}

double scale_infer_kv_dominates_batch(double param_bytes, double kv_bytes_per_seq) {
  if (!nonneg(param_bytes) || !positive(kv_bytes_per_seq)) return NAN;
  return param_bytes / kv_bytes_per_seq;
}

double scale_infer_kv_dominates_flops_context(double n_params, double kv_bytes_per_token,
                                              double flops_per_s, double hbm_bytes_per_s) {
  if (!nonneg(n_params) || !positive(kv_bytes_per_token) || !positive(flops_per_s) ||
      !positive(hbm_bytes_per_s))
    return NAN;
  return 2.0 * n_params * hbm_bytes_per_s / (flops_per_s * kv_bytes_per_token);
}

double scale_infer_moe_critical_batch(const scale_model *model, const scale_chip *chip,
                                      scale_dtype weight_dtype, scale_dtype compute_dtype) {
  if (model == NULL || chip == NULL || !is_moe(model) || model->n_experts_active <= 0) return NAN;
  double b = scale_roofline_critical_batch(chip, weight_dtype, compute_dtype);
  return b * c64(model->n_experts) / c64(model->n_experts_active);
}

/* ---- speculative decoding ------------------------------------------------------------------- */

double scale_infer_spec_expected_tokens(double accept, double lookahead) {
  if (!(accept >= 0.0 && accept <= 1.0) || !nonneg(lookahead)) return NAN;
  if (accept == 1.0) return lookahead + 1.0;
  return (1.0 - pow(accept, lookahead + 1.0)) / (1.0 - accept);
}

double scale_infer_spec_speedup(double accept, double lookahead, double draft_cost_ratio,
                                double verify_cost_ratio) {
  double tokens = scale_infer_spec_expected_tokens(accept, lookahead);
  if (isnan(tokens) || !nonneg(draft_cost_ratio) || !positive(verify_cost_ratio)) return NAN;
  return tokens / (lookahead * draft_cost_ratio + verify_cost_ratio);
}

/* ==== a model on a chip ====================================================================== */

static const char *const bound_names[SCALE_BOUND_COUNT] = {"params", "flops", "ici", "kv"};

const char *scale_infer_bound_name(scale_infer_bound bound) {
  if ((int)bound < 0 || bound >= SCALE_BOUND_COUNT) return "?";
  return bound_names[bound];
}

scale_infer_config scale_infer_config_generate(double n_chips, double batch, double context,
                                              scale_dtype dtype) {
  scale_infer_config cfg = scale_infer_config_default(n_chips, batch, context);
  cfg.weight_dtype = cfg.kv_dtype = dtype;
  cfg.prompt = 0.0; /* its prompts are prefilled elsewhere */
  return cfg;
}

scale_infer_config scale_infer_config_default(double n_chips, double batch, double context) {
  scale_infer_config cfg;
  cfg.n_chips = n_chips;
  cfg.tp = n_chips;
  cfg.ffn_layout = SCALE_FFN_WS_1D;
  cfg.ep = 1.0;
  cfg.kv_sharding = SCALE_KV_SHARD_FULL;
  cfg.weight_dtype = SCALE_DTYPE_BF16;
  cfg.kv_dtype = SCALE_DTYPE_BF16;
  cfg.compute_dtype = SCALE_DTYPE_BF16;
  cfg.mfu_frac = 0.4;
  cfg.batch = batch;
  cfg.context = context;
  cfg.prompt = context;
  cfg.decode_len = 512.0;
  return cfg;
}

/** Builds the model-parallel group of 'tp' chips: on a TPU the prime factors of tp spread over
 * the torus axes (each axis at most its pod dimension, as square as possible), wraparound by the
 * chip's rule; on a GPU one NVLink switch axis. Returns false when the hardware cannot hold it.
 */
static bool build_group(const scale_chip *chip, double tp, scale_group *g) {
  g->n_axes = 1;
  for (int i = 0; i < SCALE_GROUP_AXES_MAX; i++) {
    g->axis[i].size = 1.0;
    g->axis[i].topology = SCALE_TOPO_RING;
    g->axis[i].wraps = false;
    g->axis[i].link_bytes_per_s = 1.0;
    g->axis[i].hop_latency_s = 0.0;
  }
  if (!is_count(tp)) return false;
  if (chip->kind == SCALE_HW_GPU) {
    if (!positive(chip->nvlink_bytes_per_s)) return false;
    if (positive(chip->nvlink_domain_size) && tp > chip->nvlink_domain_size) return false;
    g->axis[0].size = tp;
    g->axis[0].topology = SCALE_TOPO_SWITCH;
    /* a full mesh reaches its tp - 1 peers over as many direct links, each carrying its share
     * at once: a switch of that egress prices the same transfer */
    double mesh = scale_chip_scaleup_bytes_per_s(chip, tp);
    g->axis[0].link_bytes_per_s =
        scale_chip_scaleup_is_mesh(chip) && mesh > 0 ? mesh : chip->nvlink_bytes_per_s;
    g->axis[0].hop_latency_s = nonneg(chip->ici_hop_latency_s) ? chip->ici_hop_latency_s : 0.0;
    return true;
  }
  if (!positive(chip->ici_link_bytes_per_s)) return false;
  int n_axes = (int)(positive(chip->ici_n_axes) ? chip->ici_n_axes : 2.0);
  if (n_axes < 1) n_axes = 1;
  if (n_axes > SCALE_GROUP_AXES_MAX) n_axes = SCALE_GROUP_AXES_MAX;
  double limit[SCALE_GROUP_AXES_MAX], widest = 0.0;
  for (int i = 0; i < n_axes; i++) {
    limit[i] = positive(chip->pod_shape[i]) ? chip->pod_shape[i] : HUGE_VAL;
    widest = fmax(widest, limit[i]);
  }
  /* Largest prime factors first, each onto the smallest axis it still fits. Trial division
   * stops past the widest axis (a larger factor fits nowhere) and at 1e6 (a pod of unknown
   * shape): a 16-digit prime tp is refused at once instead of after 1e8 divisions. */
  double primes[64];
  int n_primes = 0;
  double rest = tp, p_max = fmin(widest, 1e6);
  for (double p = 2.0; p * p <= rest && p <= p_max && n_primes < 63; p += 1.0)
    while (fmod(rest, p) == 0.0 && n_primes < 63) {
      primes[n_primes++] = p;
      rest /= p;
    }
  if (rest > 1.0) primes[n_primes++] = rest;
  double size[SCALE_GROUP_AXES_MAX] = {1.0, 1.0, 1.0};
  for (int i = n_primes - 1; i >= 0; i--) {
    int best = -1;
    for (int a = 0; a < n_axes; a++)
      if (size[a] * primes[i] <= limit[a] && (best < 0 || size[a] < size[best])) best = a;
    if (best < 0) return false;
    size[best] *= primes[i];
  }
  int used = 0;
  double hop = nonneg(chip->ici_hop_latency_s) ? chip->ici_hop_latency_s : 0.0;
  for (int a = 0; a < n_axes; a++) {
    if (size[a] <= 1.0 && !(a == n_axes - 1 && used == 0)) continue;
    scale_group_axis *ax = &g->axis[used++];
    ax->size = size[a];
    ax->topology = SCALE_TOPO_RING;
    ax->wraps = scale_chip_axis_wraps(chip, size[a]);
    ax->link_bytes_per_s = chip->ici_link_bytes_per_s;
    ax->hop_latency_s = hop;
  }
  g->n_axes = used;
  return true;
}

/** Query heads, KV heads (1 for MLA's shared latent) and head dim of the attention. */
static double kv_heads(const scale_model *m) {
  if (is_mamba(m)) return 0.0;
  return m->kv_lora_rank > 0 ? 1.0 : c64(m->n_kv_heads);
}

/** Whether cfg is inside the domain of the evaluations (the checks of validate, without
 * messages). */
static bool config_ok(const scale_model *m, const scale_chip *chip, const scale_infer_config *c) {
  if (m == NULL || chip == NULL || c == NULL) return false;
  if (!is_count(c->n_chips) || !is_count(c->tp) || !is_count(c->batch) || !is_count(c->ep))
    return false;
  if (fmod(c->n_chips, c->tp) != 0.0) return false;
  if (!(c->context >= 1.0) || !isfinite(c->context) || !nonneg(c->prompt)) return false;
  if (!(c->decode_len >= 1.0) || !isfinite(c->decode_len)) return false;
  if (!positive(c->mfu_frac) || c->mfu_frac > 1.0) return false;
  if (!dtype_ok(c->weight_dtype) || !dtype_ok(c->kv_dtype) || !dtype_ok(c->compute_dtype))
    return false;
  if (!positive(scale_chip_flops_per_s(chip, c->compute_dtype))) return false;
  if (!positive(chip->hbm_bytes_per_s) || !positive(chip->hbm_bytes)) return false;
  if (c->kv_sharding != SCALE_KV_SHARD_FULL && c->kv_sharding != SCALE_KV_SHARD_HEADS) return false;
  if ((int)c->ffn_layout < 0 || c->ffn_layout >= SCALE_FFN_COUNT) return false;
  return true;
}

/** Sequences of the batch decoded by one data-parallel copy of tp chips. */
static double copy_batch(const scale_infer_config *c) { return c->batch * c->tp / c->n_chips; }

/** KV (or Mamba-2 state) bytes of one sequence at 'context' tokens. */
static double seq_kv_bytes(const scale_model *m, double context, scale_dtype dtype) {
  if (is_mamba(m)) return scale_transformer_state_bytes_per_sequence(m, dtype);
  return scale_transformer_kv_bytes(m, context, dtype);
}

/** Chips over which one copy's KV caches are divided: tp (FULL), min(tp, K) (HEADS). */
static double kv_split(const scale_model *m, const scale_infer_config *c) {
  double k = kv_heads(m);
  if (c->kv_sharding == SCALE_KV_SHARD_HEADS && k > 0.0) return fmin(c->tp, k);
  return c->tp;
}

/** Working activations of one layer for 'tokens' tokens split tp ways. */
static double activation_bytes(const scale_model *m, double tokens, double tp, scale_dtype d) {
  double width;
  if (is_mamba(m)) {
    width = c64(m->d_model) + scale_transformer_mamba2_d_in_proj(m) / tp;
  } else {
    double heads = (c64(m->n_heads) * 2.0 + 2.0 * c64(m->n_kv_heads)) * c64(m->d_head);
    double mlp_f = c64(m->d_ff);
    if (is_moe(m))
      mlp_f =
          fmax(mlp_f, (c64(m->n_experts_active) + c64(m->n_shared_experts)) * c64(m->d_ff_expert));
    double mlp = (m->gated_mlp ? 2.0 : 1.0) * mlp_f;
    width = c64(m->d_model) + (heads + mlp) / tp;
  }
  return tokens * width * scale_dtype_bytes(d);
}

scale_infer_memory scale_infer_memory_eval(const scale_model *model, const scale_chip *chip,
                                           const scale_infer_config *cfg) {
  scale_infer_memory r;
  r.n_params = r.weight_bytes = r.weight_bytes_per_chip = r.kv_bytes_per_token = NAN;
  r.kv_bytes_per_sequence = r.kv_bytes = r.kv_bytes_per_chip = NAN;
  r.activation_bytes_per_chip = r.total_bytes_per_chip = r.hbm_bytes_per_chip = NAN;
  r.max_batch = NAN;
  r.fits = false;
  if (!config_ok(model, chip, cfg)) return r;

  double copies = cfg->n_chips / cfg->tp;
  r.n_params = scale_transformer_n_params(model);
  r.weight_bytes = r.n_params * scale_dtype_bytes(cfg->weight_dtype);
  r.weight_bytes_per_chip = r.weight_bytes / cfg->tp;
  r.kv_bytes_per_token = scale_transformer_kv_bytes_per_token(model, cfg->kv_dtype);
  r.kv_bytes_per_sequence = seq_kv_bytes(model, cfg->context, cfg->kv_dtype);
  r.kv_bytes = cfg->batch * r.kv_bytes_per_sequence;
  double per_seq_per_chip = r.kv_bytes_per_sequence / kv_split(model, cfg);
  r.kv_bytes_per_chip = copy_batch(cfg) * per_seq_per_chip;
  double act_prefill = activation_bytes(model, cfg->prompt, cfg->tp, cfg->compute_dtype);
  double act_decode = activation_bytes(model, copy_batch(cfg), cfg->tp, cfg->compute_dtype);
  r.activation_bytes_per_chip = fmax(act_prefill, act_decode);
  r.total_bytes_per_chip =
      r.weight_bytes_per_chip + r.kv_bytes_per_chip + r.activation_bytes_per_chip;
  r.hbm_bytes_per_chip = chip->hbm_bytes;
  r.fits = r.total_bytes_per_chip <= r.hbm_bytes_per_chip;

  /* Largest batch: per copy, whole sequences in what weights and activations leave free (the
   * decode activations grow with the batch too: per sequence act_decode / copy batch). */
  double free_bytes = chip->hbm_bytes - r.weight_bytes_per_chip - act_prefill;
  double per_seq = per_seq_per_chip + act_decode / copy_batch(cfg);
  double b = per_seq > 0.0 ? scale_infer_max_batch(free_bytes, per_seq) : HUGE_VAL;
  /* act_decode counted per sequence may undercount when the prefill dominates: check. */
  for (int i = 0;
       i < 64 && b > 0.0 && isfinite(b) &&
       r.weight_bytes_per_chip + b * per_seq_per_chip +
               fmax(act_prefill, activation_bytes(model, b, cfg->tp, cfg->compute_dtype)) >
           chip->hbm_bytes;
       i++)
    b = b - 1.0 < b ? b - 1.0 : nextafter(b, 0.0); /* above 2^53, b - 1 == b */
  r.max_batch = isfinite(b) ? fmax(b, 0.0) * copies : b;
  return r;
}

scale_infer_prefill scale_infer_prefill_eval(const scale_model *model, const scale_chip *chip,
                                             const scale_infer_config *cfg) {
  scale_infer_prefill r;
  r.flops = r.time_s = r.ttft_s = r.attention_flops_frac = r.kv_bytes = NAN;
  if (!config_ok(model, chip, cfg)) return r;
  double p = cfg->prompt;
  r.flops = scale_transformer_flops(model, 1.0, p, true, SCALE_PASS_FORWARD);
  double attn = is_mamba(model)
                    ? 0.0
                    : c64(model->n_layers) * scale_transformer_attention_flops(
                                                 model, 1.0, p, p, true, SCALE_PASS_FORWARD);
  r.attention_flops_frac = r.flops > 0.0 ? attn / r.flops : 0.0;
  double c = scale_chip_flops_per_s(chip, cfg->compute_dtype);
  r.time_s = r.flops / (cfg->n_chips * c * cfg->mfu_frac);
  r.ttft_s = r.time_s;
  r.kv_bytes = seq_kv_bytes(model, p, cfg->kv_dtype);
  return r;
}

/** Weight bytes a decode step of 'b' tokens reads: everything, less the experts no token of
 * the step is routed to (expected E (1 - (1 - k/E)^b) experts touched per MoE layer). */
static double weights_read_bytes(const scale_model *m, double b, scale_dtype d) {
  double params = scale_transformer_n_params(m);
  if (is_moe(m) && m->n_experts_active > 0) {
    double e = c64(m->n_experts), k = c64(m->n_experts_active);
    double touched = e * (1.0 - pow(1.0 - k / e, b));
    params -=
        scale_transformer_n_moe_layers(m) * (e - touched) * scale_transformer_n_expert_params(m);
  }
  return params * scale_dtype_bytes(d);
}

/** Matmul FLOPs of one decoded token: 2 x the active parameters, less the input embedding
 * (a lookup) when it is not tied to the unembedding. */
static double decode_flops_per_token(const scale_model *m) {
  double active = scale_transformer_n_active_params(m);
  if (!m->tied_embeddings) active -= c64(m->n_vocab) * c64(m->d_model);
  return 2.0 * active;
}

/** Adds the cost of 'count' collectives 'op' of 'bytes' on 'g' to the totals. */
static void add_collective(const scale_group *g, scale_collective op, double bytes, double count,
                           double *time_s, double *latency_s, double *bandwidth_s) {
  if (count <= 0.0) return;
  scale_collective_cost cc = scale_collective_eval(g, op, bytes);
  *time_s += count * cc.time_s;
  *latency_s += count * cc.latency_time_s;
  *bandwidth_s += count * cc.bandwidth_time_s;
}

/* The group 'g' with its links at 'link' (NULL: the peaks). */
static void group_at(scale_group *g, const scale_infer_link *link) {
  if (!link) return;
  for (int i = 0; i < g->n_axes; i++) {
    g->axis[i].link_bytes_per_s *= link->bw_frac;
    if (!isnan(link->hop_latency_s)) g->axis[i].hop_latency_s = link->hop_latency_s;
  }
}

/* The expert-tensor-parallel group of a MoE layer under 'cfg' with its links at 'link': the tp /
 * ep chips that split each expert, whose partial sums the layer's AllReduce adds (EP spreads
 * the experts over ep groups of them, and dispatch and combine move the tokens). False when
 * every chip holds whole experts (ep = tp): the combine AllToAll returns finished outputs and
 * nothing is reduced. */
static bool expert_tp_group(const scale_chip *chip, const scale_infer_config *cfg,
                            const scale_infer_link *link, scale_group *g) {
  double etp = cfg->tp / cfg->ep;
  if (!(etp > 1.0) || !build_group(chip, etp, g)) return false;
  group_at(g, link);
  return true;
}

/* The sub-group of 'g' on the axes whose bit is set in 'mask'. */
static scale_group sub_group(const scale_group *g, unsigned mask) {
  scale_group s = *g;
  s.n_axes = 0;
  for (int i = 0; i < g->n_axes; i++)
    if (mask & (1u << i)) s.axis[s.n_axes++] = g->axis[i];
  return s;
}

/* The sums of a step's collectives. */
typedef struct {
  double latency_s, bandwidth_s, bytes, count; /* over all collectives added */
} comm_sums;

/* Adds 'count' collectives 'op' of an array of 'bytes' on 'g' to 's' (as its latency plus its
 * bandwidth time); returns their time. A group of one chip moves nothing. */
static double comm_add(const scale_group *g, scale_collective op, double bytes, double count,
                       comm_sums *s) {
  double n = scale_group_size(g);
  if (!(count > 0.0) || !(n > 1.0) || !(bytes > 0.0)) return 0.0;
  scale_collective_cost cc = scale_collective_eval(g, op, bytes);
  /* what one chip receives: (N-1)/N of the array (twice for AllReduce), or of its 1/N share
   * (AllToAll) */
  double recv = (n - 1.0) / n * bytes;
  if (op == SCALE_COLL_ALL_REDUCE) recv *= 2.0;
  if (op == SCALE_COLL_ALL_TO_ALL) recv /= n;
  s->latency_s += count * cc.latency_time_s;
  s->bandwidth_s += count * cc.bandwidth_time_s;
  s->bytes += count * recv;
  s->count += count;
  return count * (cc.latency_time_s + cc.bandwidth_time_s);
}

/* Matrices of one dense MLP that take its input (gate and up, or up) and its weights' bytes. */
static double mlp_in_matrices(const scale_model *m) { return m->gated_mlp ? 2.0 : 1.0; }
static double mlp_layer_bytes(const scale_model *m, scale_dtype d) {
  return (mlp_in_matrices(m) + 1.0) * c64(m->d_model) * c64(m->d_ff) * scale_dtype_bytes(d);
}

/* The dense MLPs' collectives of 'layers' layers under 'layout' on 'g' for 'tokens' tokens of
 * 'a' bytes an element, into 's' and *x (2-D: the D split); *read_s the gathered weights' HBM
 * reads. NaN for 2-D on a group of fewer than two axes (nothing to split D and F over). */
static double ffn_comm(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                       const scale_group *g, double tokens, double a, scale_ffn_layout layout,
                       double layers, comm_sums *s, double *x, double *read_s) {
  double d = c64(m->d_model), f = c64(m->d_ff), n = scale_group_size(g);
  *x = 1.0;
  *read_s = 0.0;
  if (layout == SCALE_FFN_WS_1D)
    return comm_add(g, SCALE_COLL_ALL_REDUCE, tokens * d * a, layers, s);
  if (layout == SCALE_FFN_WG) {
    double v = mlp_layer_bytes(m, c->weight_dtype);
    *read_s = layers * (n - 1.0) / n * v / chip->hbm_bytes_per_s;
    return comm_add(g, SCALE_COLL_ALL_GATHER, v, layers, s);
  }
  if (g->n_axes < 2 || chip->kind == SCALE_HW_GPU) return NAN;
  /* 2-D: every split of the axes into X (the D shards) and YZ (the F shards), the cheapest. */
  double best = HUGE_VAL;
  comm_sums best_s = *s;
  unsigned all = (1u << g->n_axes) - 1u;
  for (unsigned mask = 1; mask < all; mask++) {
    scale_group gx = sub_group(g, mask), gyz = sub_group(g, all & ~mask);
    double nx = scale_group_size(&gx), nyz = scale_group_size(&gyz);
    comm_sums t = *s;
    double time = comm_add(&gyz, SCALE_COLL_ALL_GATHER, tokens * d / nx * a, layers, &t) +
                  comm_add(&gx, SCALE_COLL_ALL_REDUCE, tokens * f / nyz * a,
                           layers * mlp_in_matrices(m), &t) +
                  comm_add(&gyz, SCALE_COLL_REDUCE_SCATTER, tokens * d / nx * a, layers, &t);
    if (time < best) {
      best = time;
      best_s = t;
      *x = nx;
    }
  }
  *s = best_s;
  return best;
}

/* The cheapest MLP layout at 'tokens' tokens (2-D only where the group can hold it). */
static scale_ffn_layout ffn_cheapest(const scale_model *m, const scale_chip *chip,
                                     const scale_infer_config *c, const scale_group *g,
                                     double tokens, double a, double layers) {
  scale_ffn_layout best = SCALE_FFN_WS_1D;
  double best_s = HUGE_VAL;
  for (int l = 0; l < SCALE_FFN_AUTO; l++) {
    comm_sums s = {0, 0, 0, 0};
    double x, read;
    double t = ffn_comm(m, chip, c, g, tokens, a, (scale_ffn_layout)l, layers, &s, &x, &read);
    if (t + read < best_s) { /* NaN (2-D impossible) never wins */
      best_s = t + read;
      best = (scale_ffn_layout)l;
    }
  }
  return best;
}

static const char *const ffn_names[SCALE_FFN_COUNT] = {"1d", "2d", "gathered", "auto"};

const char *scale_ffn_layout_name(scale_ffn_layout layout) {
  return (int)layout >= 0 && layout < SCALE_FFN_COUNT ? ffn_names[layout] : "?";
}

scale_infer_comms scale_infer_comms_eval(const scale_model *model, const scale_chip *chip,
                                         const scale_infer_config *cfg, double tokens,
                                         scale_ffn_layout layout, const scale_infer_link *link) {
  scale_infer_comms r;
  memset(&r, 0, sizeof r);
  r.layout = layout;
  r.x = 1.0;
  double *f[] = {&r.attn_s,    &r.ffn_s,       &r.moe_s,          &r.kv_s,  &r.gather_read_s,
                 &r.latency_s, &r.bandwidth_s, &r.bytes_per_chip, &r.count, &r.time_s};
  scale_group g;
  bool link_ok = !link || (positive(link->bw_frac) && link->bw_frac <= 1.0 &&
                           (isnan(link->hop_latency_s) || nonneg(link->hop_latency_s)) &&
                           (isnan(link->act_bytes) || positive(link->act_bytes)));
  bool one = cfg && cfg->tp == 1.0; /* nothing to build: one chip needs no links */
  if (!config_ok(model, chip, cfg) || !nonneg(tokens) || !link_ok || (int)layout < 0 ||
      layout >= SCALE_FFN_COUNT || (!one && !build_group(chip, cfg->tp, &g))) {
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
      *f[i] = NAN;
    return r;
  }
  if (one) {
    r.n_axes = 1;
    r.axis_size[0] = r.axis_size[1] = r.axis_size[2] = 1.0;
    if (layout == SCALE_FFN_AUTO) r.layout = SCALE_FFN_WS_1D;
    return r;
  }
  group_at(&g, link);
  r.n_axes = g.n_axes;
  for (int i = 0; i < 3; i++)
    r.axis_size[i] = i < g.n_axes ? g.axis[i].size : 1.0;
  double a =
      link && !isnan(link->act_bytes) ? link->act_bytes : scale_dtype_bytes(cfg->compute_dtype);
  double d = c64(model->d_model), layers = c64(model->n_layers);
  double mlp_layers = scale_transformer_n_mlp_layers(model);
  double moe_layers = scale_transformer_n_moe_layers(model);
  comm_sums s = {0, 0, 0, 0};
  r.attn_s = comm_add(&g, SCALE_COLL_ALL_REDUCE, tokens * d * a, layers, &s);
  if (layout == SCALE_FFN_AUTO)
    r.layout = ffn_cheapest(model, chip, cfg, &g, tokens, a, mlp_layers);
  r.ffn_s =
      ffn_comm(model, chip, cfg, &g, tokens, a, r.layout, mlp_layers, &s, &r.x, &r.gather_read_s);
  scale_group etp;
  if (expert_tp_group(chip, cfg, link, &etp))
    r.moe_s = comm_add(&etp, SCALE_COLL_ALL_REDUCE, tokens * d * a, moe_layers, &s);
  if (is_moe(model) && cfg->ep > 1.0)
    r.moe_s += comm_add(&g, SCALE_COLL_ALL_TO_ALL, tokens * c64(model->n_experts_active) * d * a,
                        2.0 * moe_layers, &s);
  if (!is_mamba(model) && cfg->kv_sharding == SCALE_KV_SHARD_FULL && cfg->tp > kv_heads(model))
    r.kv_s = comm_add(&g, SCALE_COLL_ALL_TO_ALL,
                      tokens * c64(model->n_heads) * c64(model->d_head) * a, 2.0 * layers, &s);
  r.latency_s = s.latency_s;
  r.bandwidth_s = s.bandwidth_s;
  r.bytes_per_chip = s.bytes;
  r.count = s.count;
  r.time_s = r.latency_s + r.bandwidth_s + r.gather_read_s;
  if (!isfinite(r.ffn_s))
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
      *f[i] = NAN;
  return r;
}

/* The book's MLP collectives of a decode step of 'b' tokens into the totals: 1-D an AllReduce
 * of [b, D]; 2-D ch. 7 Q7's formula at its best split X = sqrt(D N / 2F), clamped to [1, tp];
 * weight-gathered the AllGather of each MLP's weights and their HBM reads; AUTO the cheapest. */
static void book_mlp(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                     const scale_group *g, double b, double *t_ici, double *t_lat, double *t_bw) {
  double a = scale_dtype_bytes(c->compute_dtype), layers = scale_transformer_n_mlp_layers(m);
  double d = c64(m->d_model), f = c64(m->d_ff);
  scale_ffn_layout layout = c->ffn_layout;
  if (layout == SCALE_FFN_AUTO) layout = ffn_cheapest(m, chip, c, g, b, a, layers);
  if (layout == SCALE_FFN_WS_2D) {
    double x = fmin(fmax(sqrt(d * c->tp / (2.0 * f)), 1.0), c->tp);
    double t2 = scale_infer_ws2d_comms_s(b, d, f, a, x, c->tp / x, mp_link_bytes_per_s(chip));
    *t_ici += layers * t2;
    *t_bw += layers * t2;
  } else if (layout == SCALE_FFN_WG) {
    double v = mlp_layer_bytes(m, c->weight_dtype), n = c->tp;
    add_collective(g, SCALE_COLL_ALL_GATHER, v, layers, t_ici, t_lat, t_bw);
    *t_ici += layers * (n - 1.0) / n * v / chip->hbm_bytes_per_s;
  } else {
    add_collective(g, SCALE_COLL_ALL_REDUCE, b * d * a, layers, t_ici, t_lat, t_bw);
  }
}

scale_infer_decode scale_infer_decode_eval(const scale_model *model, const scale_chip *chip,
                                           const scale_infer_config *cfg) {
  scale_infer_decode r;
  r.t_kv_s = r.t_params_s = r.t_flops_s = r.t_ici_s = r.t_ici_latency_s = NAN;
  r.step_s = r.tokens_per_s = r.tokens_per_s_per_chip = r.latency_per_token_s = NAN;
  r.qps_per_chip = r.cost_usd_per_million_tokens = r.critical_batch = NAN;
  r.ici_latency_bound = false;
  r.bound = SCALE_BOUND_PARAMS;
  if (!config_ok(model, chip, cfg)) return r;
  scale_group g;
  if (cfg->tp > 1.0 && !build_group(chip, cfg->tp, &g)) return r;

  double w = chip->hbm_bytes_per_s;
  double c = scale_chip_flops_per_s(chip, cfg->compute_dtype);
  double b = copy_batch(cfg);
  double kv_seq = seq_kv_bytes(model, cfg->context, cfg->kv_dtype);
  r.t_kv_s = b * kv_seq / (kv_split(model, cfg) * w);
  r.t_params_s = weights_read_bytes(model, b, cfg->weight_dtype) / (cfg->tp * w);
  r.t_flops_s = b * decode_flops_per_token(model) / (cfg->tp * c);

  /* Model-parallel collectives of one step. */
  double t_ici = 0.0, t_lat = 0.0, t_bw = 0.0;
  if (cfg->tp > 1.0) {
    double a = scale_dtype_bytes(cfg->compute_dtype);
    double d = c64(model->d_model), layers = c64(model->n_layers);
    double act = b * d * a;
    double mlp_layers = scale_transformer_n_mlp_layers(model);
    double moe_layers = scale_transformer_n_moe_layers(model);
    double mixer_layers = layers; /* attention or Mamba-2 mixer: one AllReduce each */
    add_collective(&g, SCALE_COLL_ALL_REDUCE, act, mixer_layers, &t_ici, &t_lat, &t_bw);
    scale_group etp;
    if (expert_tp_group(chip, cfg, NULL, &etp))
      add_collective(&etp, SCALE_COLL_ALL_REDUCE, act, moe_layers, &t_ici, &t_lat, &t_bw);
    if (mlp_layers > 0.0) book_mlp(model, chip, cfg, &g, b, &t_ici, &t_lat, &t_bw);
    double k = kv_heads(model);
    if (!is_mamba(model) && cfg->kv_sharding == SCALE_KV_SHARD_FULL && cfg->tp > k) {
      double q = b * c64(model->n_heads) * c64(model->d_head) * a;
      add_collective(&g, SCALE_COLL_ALL_TO_ALL, q, 2.0 * layers, &t_ici, &t_lat, &t_bw);
    }
    if (is_moe(model) && cfg->ep > 1.0) {
      double routed = b * c64(model->n_experts_active) * d * a;
      add_collective(&g, SCALE_COLL_ALL_TO_ALL, routed, 2.0 * moe_layers, &t_ici, &t_lat, &t_bw);
    }
  }
  r.t_ici_s = t_ici;
  r.t_ici_latency_s = t_lat;
  r.ici_latency_bound = t_lat > t_bw;

  double matmul = fmax(fmax(r.t_flops_s, r.t_params_s), r.t_ici_s);
  r.step_s = r.t_kv_s + matmul;
  if (r.t_kv_s > matmul)
    r.bound = SCALE_BOUND_KV;
  else if (matmul == r.t_ici_s && r.t_ici_s > 0.0)
    r.bound = SCALE_BOUND_ICI;
  else if (matmul == r.t_flops_s)
    r.bound = SCALE_BOUND_FLOPS;
  else
    r.bound = SCALE_BOUND_PARAMS;
  r.tokens_per_s = cfg->batch / r.step_s;
  r.tokens_per_s_per_chip = r.tokens_per_s / cfg->n_chips;
  r.latency_per_token_s = r.step_s;
  r.qps_per_chip = scale_infer_qps_per_chip(cfg->batch, r.step_s, cfg->decode_len, cfg->n_chips);
  r.cost_usd_per_million_tokens =
      scale_infer_cost_usd_per_million_tokens(chip->usd_per_hour, cfg->n_chips, r.tokens_per_s);
  double bc = scale_roofline_critical_batch(chip, cfg->weight_dtype, cfg->compute_dtype);
  if (is_moe(model) && model->n_experts_active > 0)
    bc *= c64(model->n_experts) / c64(model->n_experts_active);
  r.critical_batch = bc;
  return r;
}

int scale_infer_frontier(const scale_model *model, const scale_chip *chip,
                         const scale_infer_config *cfg, const double *batches, int n,
                         scale_infer_point *out) {
  if (cfg == NULL || batches == NULL || out == NULL || n < 0) return -1;
  int n_fit = 0;
  for (int i = 0; i < n; i++) {
    scale_infer_config c = *cfg;
    c.batch = batches[i];
    scale_infer_decode dec = scale_infer_decode_eval(model, chip, &c);
    scale_infer_memory mem = scale_infer_memory_eval(model, chip, &c);
    out[i].batch = batches[i];
    out[i].context = cfg->context;
    out[i].step_s = dec.step_s;
    out[i].tokens_per_s_per_chip = dec.tokens_per_s_per_chip;
    out[i].cost_usd_per_million_tokens = dec.cost_usd_per_million_tokens;
    out[i].fits = mem.fits;
    if (mem.fits) n_fit++;
  }
  return n_fit;
}

scale_infer_slice scale_infer_slice_of(const scale_model *model, const scale_chip *chip,
                                       scale_dtype dtype, double context, double n_chips) {
  scale_infer_slice r;
  r.weight_bytes = r.kv_bytes_per_token = r.chips_needed = r.slice_chips = NAN;
  r.free_bytes = r.max_batch = NAN;
  /* n_chips NaN asks for the smallest slice (scale_infer_smallest_slice) */
  if (model == NULL || chip == NULL || !dtype_ok(dtype) || !nonneg(context) ||
      !positive(chip->hbm_bytes) || !(isnan(n_chips) || positive(n_chips)))
    return r;
  r.weight_bytes = scale_transformer_n_params(model) * scale_dtype_bytes(dtype);
  r.kv_bytes_per_token = scale_transformer_kv_bytes_per_token(model, dtype);
  r.chips_needed = scale_infer_chips_needed(r.weight_bytes, chip->hbm_bytes);
  r.slice_chips =
      isnan(n_chips) ? scale_infer_min_slice_chips(r.weight_bytes, chip->hbm_bytes) : n_chips;
  r.free_bytes = r.slice_chips * chip->hbm_bytes - r.weight_bytes;
  double seq = seq_kv_bytes(model, context, dtype);
  r.max_batch = seq > 0.0 ? scale_infer_max_batch(r.free_bytes, seq) : HUGE_VAL;
  return r;
}

scale_infer_slice scale_infer_smallest_slice(const scale_model *model, const scale_chip *chip,
                                             scale_dtype dtype, double context) {
  return scale_infer_slice_of(model, chip, dtype, context, NAN);
}

/* ==== validation ============================================================================= */

scale_status scale_infer_check_context(const scale_model *model, const char *what, double tokens,
                                       double min, scale_diag *diag) {
  if (!(tokens >= min) || !isfinite(tokens))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "%s must be >= %g token%s (got %g)", what,
                          min, min == 1.0 ? "" : "s", tokens);
  double max_ctx = model ? c64(model->n_ctx_max) : 0.0;
  const char *name = model && model->name[0] ? model->name : "the model";
  if (max_ctx > 0.0 && tokens > max_ctx)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "%s %g exceeds %s's maximum of %g tokens",
                          what, tokens, name, max_ctx);
  if (tokens > SCALE_INFER_CONTEXT_MAX)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "%s %g exceeds %g tokens (%s names no maximum context)", what, tokens,
                          SCALE_INFER_CONTEXT_MAX, name);
  return SCALE_OK;
}

scale_status scale_infer_validate(const scale_model *model, const scale_chip *chip,
                                  const scale_infer_config *cfg, scale_diag *diag) {
  if (model == NULL || chip == NULL || cfg == NULL)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing model, hardware or layout");
  if (!is_count(cfg->n_chips))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "chips must be a whole number >= 1 (got %g)", cfg->n_chips);
  if (!is_count(cfg->tp))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "model parallelism must be a whole number >= 1 (got %g)", cfg->tp);
  if (fmod(cfg->n_chips, cfg->tp) != 0.0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "model parallelism %g does not divide the %g chips", cfg->tp,
                          cfg->n_chips);
  if (!is_count(cfg->batch))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "batch must be a whole number >= 1 (got %g)", cfg->batch);
  double copies = cfg->n_chips / cfg->tp;
  if (fmod(cfg->batch, copies) != 0.0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "batch %g is not a multiple of the %g data-parallel copies "
                          "(chips / model parallelism)",
                          cfg->batch, copies);
  scale_status st = scale_infer_check_context(model, "context", cfg->context, 1.0, diag);
  if (!st) st = scale_infer_check_context(model, "prompt", cfg->prompt, 0.0, diag);
  if (st) return st;
  if (!(cfg->decode_len >= 1.0) || !isfinite(cfg->decode_len))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "decode length must be >= 1 (got %g)",
                          cfg->decode_len);
  if (!positive(cfg->mfu_frac) || cfg->mfu_frac > 1.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "MFU must be in (0, 1] (got %g)",
                          cfg->mfu_frac);
  if (!dtype_ok(cfg->weight_dtype) || !dtype_ok(cfg->kv_dtype) || !dtype_ok(cfg->compute_dtype))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "invalid dtype");
  if (!positive(scale_chip_flops_per_s(chip, cfg->compute_dtype)))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s has no %s matmul rate",
                          chip->name[0] ? chip->name : "the hardware",
                          scale_dtype_name(cfg->compute_dtype));
  if (!positive(chip->hbm_bytes) || !positive(chip->hbm_bytes_per_s))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "the hardware has no HBM figures");
  if (cfg->kv_sharding != SCALE_KV_SHARD_FULL && cfg->kv_sharding != SCALE_KV_SHARD_HEADS)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "invalid KV sharding");
  if (!is_count(cfg->ep))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "expert parallelism must be a whole number >= 1 (got %g)", cfg->ep);
  if (cfg->ep > 1.0) {
    if (!is_moe(model))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "expert parallelism needs a mixture-of-experts model");
    if (fmod(cfg->tp, cfg->ep) != 0.0 || fmod(c64(model->n_experts), cfg->ep) != 0.0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "expert parallelism %g must divide the model parallelism %g and "
                            "the %lld experts",
                            cfg->ep, cfg->tp, (long long)model->n_experts);
  }
  if ((int)cfg->ffn_layout < 0 || cfg->ffn_layout >= SCALE_FFN_COUNT)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "invalid MLP layout");
  if (cfg->ffn_layout == SCALE_FFN_WS_2D && cfg->tp < 2.0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "2-D weight-stationary sharding needs model parallelism >= 2");
  if (cfg->tp > 1.0) {
    scale_group g;
    if (!build_group(chip, cfg->tp, &g)) {
      if (chip->kind == SCALE_HW_GPU)
        return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                              "model parallelism %g exceeds the NVLink domain of %g GPUs", cfg->tp,
                              chip->nvlink_domain_size);
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "model parallelism %g does not fit the %gx%gx%g pod's torus", cfg->tp,
                            chip->pod_shape[0], chip->pod_shape[1], chip->pod_shape[2]);
    }
  }
  return SCALE_OK;
}

/* ---- the best slice within a latency limit (ch. 8) ----------------------------------------- */

bool scale_infer_best_within_latency(const scale_model *model, const scale_chip *chip,
                                     const scale_infer_config *base, double max_step_s,
                                     double max_batch, scale_infer_config *best_cfg,
                                     scale_infer_decode *best) {
  if (!(max_step_s > 0) || !(max_batch >= 1) || !(base->n_chips >= 1)) return false;
  bool found = false;
  double best_tput = 0;
  for (double n = base->n_chips; n <= scale_chip_pod_chips(chip); n *= 2) {
    scale_infer_config q = *base;
    q.n_chips = q.tp = n;
    q.batch = 1;
    if (scale_infer_validate(model, chip, &q, NULL) != SCALE_OK) continue;
    for (double b = 1; b <= max_batch; b += 1) {
      q.batch = b;
      scale_infer_decode d = scale_infer_decode_eval(model, chip, &q);
      if (!scale_infer_memory_eval(model, chip, &q).fits || !(d.step_s <= max_step_s)) break;
      if (d.tokens_per_s_per_chip > best_tput) {
        best_tput = d.tokens_per_s_per_chip, found = true;
        *best_cfg = q, *best = d;
      }
    }
  }
  return found;
}

/* ---- KV caches with local layers; the best lookahead (ch. 7) -------------------------------- */

/* [listing:local-kv] */
double scale_infer_local_kv_bytes(const scale_model *model, scale_dtype dtype, double context,
                                  double local_frac, double window) {
  if (!(context >= 0) || !(local_frac >= 0 && local_frac <= 1) || !(window >= 0))
    return (double)NAN;
  /* The library's KV per token covers all L layers; local layers cap their share. */
  double per_token = scale_transformer_kv_bytes_per_token(model, dtype);
  double global = (1.0 - local_frac) * per_token * context;
  double local = local_frac * per_token * fmin(context, window);
  return global + local;
}
/* [/listing:local-kv] */

double scale_infer_spec_best_lookahead(double accept, double draft_cost_ratio,
                                       double verify_cost_ratio, int max_lookahead,
                                       double *speedup) {
  double best = 0.0, best_g = (double)NAN;
  for (int g = 1; g <= max_lookahead; g++) {
    double s = scale_infer_spec_speedup(accept, g, draft_cost_ratio, verify_cost_ratio);
    if (s > best) best = s, best_g = g;
  }
  if (speedup) *speedup = isnan(best_g) ? (double)NAN : best;
  return best_g;
}

/* ---- curves the chapters draw (ch. 8) ------------------------------------------------------- */

double scale_infer_frontier_curve(const scale_infer_point *pts, int n, double *lat_s,
                                  double *tput) {
  double last = 0.0;
  for (int i = 0; i < n; i++) {
    lat_s[i] = pts[i].fits ? pts[i].step_s : (double)NAN;
    tput[i] = pts[i].fits ? pts[i].tokens_per_s_per_chip : (double)NAN;
    if (pts[i].fits) last = pts[i].batch;
  }
  return last;
}

int scale_infer_decode_sweep(const scale_model *model, const scale_chip *chip,
                             const scale_infer_config *cfg, int max_n, scale_infer_decode *out) {
  scale_infer_config c = *cfg;
  c.batch = 1.0; /* the largest batch does not depend on it; one sequence is always a batch */
  scale_infer_memory mem = scale_infer_memory_eval(model, chip, &c);
  int k = 0;
  for (int i = 1; i <= max_n && i <= (int)mem.max_batch; i++, k++) {
    c.batch = (double)i;
    out[k] = scale_infer_decode_eval(model, chip, &c);
  }
  return k;
}

scale_infer_decode scale_infer_decode_at_max_batch(const scale_model *model,
                                                   const scale_chip *chip,
                                                   const scale_infer_config *cfg,
                                                   scale_infer_memory *mem) {
  scale_infer_config c = *cfg;
  scale_infer_memory m = scale_infer_memory_eval(model, chip, &c);
  if (mem) *mem = m;
  c.batch = m.max_batch; /* 0 when not one sequence fits: NaN fields, as validate refuses it */
  return scale_infer_decode_eval(model, chip, &c);
}

void scale_infer_decode_curve(const scale_infer_decode *d, int n, double *batch, double *step_s,
                              double *params_s, double *kv_s, double *flops_s, double *ici_s) {
  for (int i = 0; i < n; i++) {
    batch[i] = (double)(i + 1);
    step_s[i] = d[i].step_s;
    params_s[i] = d[i].t_params_s;
    kv_s[i] = d[i].t_kv_s;
    flops_s[i] = d[i].t_flops_s;
    ici_s[i] = d[i].t_ici_s;
  }
}

/* ---- ch. 8's serving example: the book's step on a slice, the slice table, frontiers ------- */

/* [listing:book-step] */
double scale_infer_book_step_s(const scale_model *model, const scale_chip *chip, double n_chips,
                               double batch, scale_dtype dtype, double context) {
  if (!positive(n_chips) || !dtype_ok(dtype)) return (double)NAN;
  double n_params = scale_transformer_n_params(model);
  double kv_seq = scale_transformer_kv_bytes(model, context, dtype);
  double weights = n_params * scale_dtype_bytes(dtype);
  return scale_infer_step_time_s(batch, kv_seq, weights, n_params,
                                 n_chips * scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16),
                                 n_chips * chip->hbm_bytes_per_s);
}
/* [/listing:book-step] */

void scale_infer_table_add(scale_infer_table *t, const char *key, const char *label, double value,
                           const char *unit, scale_fmt style) {
  if (t->n >= SCALE_INFER_TABLE_MAX) return;
  scale_quantity *q = &t->row[t->n++];
  snprintf(q->key, sizeof q->key, "%s", key);
  q->label = label, q->value = value, q->unit = unit, q->style = style;
}

scale_infer_served_slice scale_infer_slice_served(const scale_model *model, const scale_chip *chip,
                                                  scale_dtype dtype, double context, double n_chips,
                                                  double decode_len) {
  scale_infer_served_slice s = {.slice =
                                    scale_infer_slice_of(model, chip, dtype, context, n_chips)};
  double chips = s.slice.slice_chips, batch = s.slice.max_batch;
  s.step_s = scale_infer_book_step_s(model, chip, chips, batch, dtype, context);
  s.qps_per_chip = scale_infer_qps_per_chip(batch, s.step_s, decode_len, chips);
  return s;
}

void scale_infer_slice_table(const scale_infer_served_slice *s, bool full, scale_infer_table *out) {
  const scale_infer_slice *sl = &s->slice;
  out->n = 0;
  if (full) {
    scale_infer_table_add(out, "weight_bytes", "weights", sl->weight_bytes, "B", SCALE_FMT_SI);
    scale_infer_table_add(out, "kv_per_token", "KV per token", sl->kv_bytes_per_token, "B",
                          SCALE_FMT_SI);
    scale_infer_table_add(out, "chips_needed", "chips' worth of HBM", sl->chips_needed, "",
                          SCALE_FMT_PLAIN);
  }
  scale_infer_table_add(out, "chips", full ? "slice" : "twice the slice", sl->slice_chips, "chips",
                        SCALE_FMT_PLAIN);
  if (full)
    scale_infer_table_add(out, "free_bytes", "HBM left for KV", sl->free_bytes, "B", SCALE_FMT_SI);
  scale_infer_table_add(out, "max_batch", "sequences that fit", sl->max_batch, "", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "step_s", full ? "step at that batch" : "step", s->step_s, "s",
                        SCALE_FMT_TIME);
  scale_infer_table_add(out, "qps_per_chip", "queries/s per chip", s->qps_per_chip, "1/s",
                        SCALE_FMT_PLAIN);
}

bool scale_infer_frontiers_eval(const scale_model *model, const scale_chip *chip,
                                const scale_infer_config *cfg, const double *contexts,
                                int n_contexts, int n_batches, scale_infer_frontiers *out) {
  if (n_contexts < 1 || n_contexts > SCALE_INFER_FRONTIER_CONTEXTS || n_batches < 1 ||
      n_batches > SCALE_INFER_FRONTIER_BATCHES)
    return false;
  double batches[SCALE_INFER_FRONTIER_BATCHES];
  for (int i = 0; i < n_batches; i++)
    batches[i] = (double)(i + 1);
  out->n_contexts = n_contexts, out->n_batches = n_batches, out->worst_step_s = 0.0;
  scale_infer_config c = *cfg;
  for (int k = 0; k < n_contexts; k++) {
    c.context = out->context[k] = contexts[k];
    if (scale_infer_frontier(model, chip, &c, batches, n_batches, out->point[k]) < 0) return false;
    double max_b =
        scale_infer_frontier_curve(out->point[k], n_batches, out->lat_s[k], out->tput[k]);
    out->max_batch[k] = max_b;
    if (max_b >= 1.0)
      out->worst_step_s = fmax(out->worst_step_s, out->point[k][(int)max_b - 1].step_s);
  }
  return true;
}

void scale_infer_frontier_table(const scale_infer_frontiers *f, int k, scale_infer_table *out) {
  out->n = 0;
  scale_infer_table_add(out, "max_batch", "largest batch", f->max_batch[k], "", SCALE_FMT_PLAIN);
  if (f->max_batch[k] < 1.0) return;
  const scale_infer_point *p = &f->point[k][(int)f->max_batch[k] - 1];
  scale_infer_table_add(out, "max_step_s", "its step", p->step_s, "s", SCALE_FMT_TIME);
  scale_infer_table_add(out, "max_tput", "its throughput per chip", p->tokens_per_s_per_chip,
                        "tokens/s", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "max_cost", "its cost", p->cost_usd_per_million_tokens, "USD",
                        SCALE_FMT_USD);
}

/* ---- ch. 7's tables ------------------------------------------------------------------------- */

void scale_infer_book_table(const scale_model *model, const scale_chip *chip, double n_chips,
                            double context, double kv_divisor, const double *batches, int n,
                            scale_infer_table *out) {
  double n_params = scale_transformer_n_params(model);
  double wbytes = n_params * scale_dtype_bytes(SCALE_DTYPE_BF16);
  double w = n_chips * chip->hbm_bytes_per_s;
  double f = n_chips * scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
  double kv_seq = scale_transformer_kv_bytes(model, context, SCALE_DTYPE_BF16) / kv_divisor;
  out->n = 0;
  for (int i = 0; i < n && i < (SCALE_INFER_TABLE_MAX - 1) / 4; i++) {
    double b = batches[i];
    double step = scale_infer_step_time_s(b, kv_seq, wbytes, n_params, f, w);
    char key[32];
    snprintf(key, sizeof key, "b%.0f.kv_bytes", b);
    scale_infer_table_add(out, key, "KV of the batch", b * kv_seq, "B", SCALE_FMT_SI);
    snprintf(key, sizeof key, "b%.0f.total_bytes", b);
    scale_infer_table_add(out, key, "total memory", b * kv_seq + wbytes, "B", SCALE_FMT_SI);
    snprintf(key, sizeof key, "b%.0f.step_s", b);
    scale_infer_table_add(out, key, "step time", step, "s", SCALE_FMT_TIME);
    snprintf(key, sizeof key, "b%.0f.tokens_per_s", b);
    scale_infer_table_add(out, key, "throughput", b / step, "tokens/s", SCALE_FMT_PLAIN);
  }
  scale_infer_table_add(out, "max_batch", "largest batch that fits",
                        scale_infer_max_batch(n_chips * chip->hbm_bytes - wbytes, kv_seq), "",
                        SCALE_FMT_PLAIN);
}

void scale_infer_kv_reduction_table(const scale_model *model, double kv_heads, double context,
                                    double window, double local_frac, scale_infer_table *out) {
  scale_model gqa = *model, mqa = *model;
  gqa.n_kv_heads = (int64_t)kv_heads;
  mqa.n_kv_heads = 1;
  out->n = 0;
  const struct {
    const char *key, *label;
    const scale_model *m;
    scale_dtype dtype;
  } per_token[5] = {{"mha_per_token", "MHA, bf16", model, SCALE_DTYPE_BF16},
                    {"gqa_per_token", "GQA, bf16", &gqa, SCALE_DTYPE_BF16},
                    {"mqa_per_token", "MQA (one KV head), bf16", &mqa, SCALE_DTYPE_BF16},
                    {"gqa_int8_per_token", "GQA, int8", &gqa, SCALE_DTYPE_INT8},
                    {"gqa_int4_per_token", "GQA, int4", &gqa, SCALE_DTYPE_INT4}};
  for (int i = 0; i < 5; i++)
    scale_infer_table_add(out, per_token[i].key, per_token[i].label,
                          scale_transformer_kv_bytes_per_token(per_token[i].m, per_token[i].dtype),
                          "B", SCALE_FMT_SI);
  scale_infer_table_add(out, "long_context", "long context", context, "tokens", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "window", "local window", window, "tokens", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "local_pct", "local layers", 100.0 * local_frac, "%", SCALE_FMT_PLAIN);
  double mha_seq = scale_transformer_kv_bytes(model, context, SCALE_DTYPE_BF16);
  double local_seq =
      scale_infer_local_kv_bytes(&gqa, SCALE_DTYPE_INT8, context, local_frac, window);
  scale_infer_table_add(out, "mha_seq", "MHA bf16, one long sequence", mha_seq, "B", SCALE_FMT_SI);
  scale_infer_table_add(out, "gqa_int8_seq", "GQA int8, one long sequence",
                        scale_transformer_kv_bytes(&gqa, context, SCALE_DTYPE_INT8), "B",
                        SCALE_FMT_SI);
  scale_infer_table_add(out, "local_seq", "GQA int8 with local layers", local_seq, "B",
                        SCALE_FMT_SI);
  scale_infer_table_add(out, "combined_factor", "reduction over MHA bf16", mha_seq / local_seq, "x",
                        SCALE_FMT_PLAIN);
}

void scale_infer_kv_sharding_table(const scale_model *model, const scale_chip *chip,
                                   const scale_infer_config *cfg, scale_infer_table *out) {
  scale_infer_config c[2] = {*cfg, *cfg};
  c[0].kv_sharding = SCALE_KV_SHARD_FULL;
  c[1].kv_sharding = SCALE_KV_SHARD_HEADS;
  scale_infer_memory mem[2];
  scale_infer_decode dec[2];
  for (int k = 0; k < 2; k++) {
    mem[k] = scale_infer_memory_eval(model, chip, &c[k]);
    dec[k] = scale_infer_decode_eval(model, chip, &c[k]);
  }
  static const char *const how[2] = {"full", "heads"};
  static const char *const label[4][2] = {
      {"KV per chip, heads then batch", "KV per chip, heads only"},
      {"KV loading, heads then batch", "KV loading, heads only"},
      {"collectives, heads then batch", "collectives, heads only"},
      {"step, heads then batch", "step, heads only"}};
  static const char *const what[4] = {"kv_per_chip", "t_kv_s", "t_ici_s", "step_s"};
  out->n = 0;
  for (int q = 0; q < 4; q++)
    for (int k = 0; k < 2; k++) {
      double v[4] = {mem[k].kv_bytes_per_chip, dec[k].t_kv_s, dec[k].t_ici_s, dec[k].step_s};
      char key[32];
      snprintf(key, sizeof key, "%s_%s", how[k], what[q]);
      scale_infer_table_add(out, key, label[q][k], v[q], q ? "s" : "B",
                            q ? SCALE_FMT_TIME : SCALE_FMT_SI);
    }
}

void scale_infer_frontier_ends_table(const scale_infer_frontiers *f, int k,
                                     scale_infer_table *out) {
  const scale_infer_point *one = &f->point[k][0];
  double largest = f->max_batch[k];
  int last = largest >= 1.0 ? (int)largest - 1 : 0;
  const scale_infer_point *full = &f->point[k][last];
  out->n = 0;
  scale_infer_table_add(out, "min_step_s", "step at batch 1", one->step_s, "s", SCALE_FMT_TIME);
  scale_infer_table_add(out, "min_tput", "throughput per chip at batch 1",
                        one->tokens_per_s_per_chip, "tokens/s", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "min_cost", "cost at batch 1", one->cost_usd_per_million_tokens, "USD",
                        SCALE_FMT_USD);
  scale_infer_table_add(out, "cost_ratio", "cost at batch 1 / cost at the largest batch",
                        one->cost_usd_per_million_tokens / full->cost_usd_per_million_tokens, "x",
                        SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "latency_ratio", "latency at the largest batch / at batch 1",
                        full->step_s / one->step_s, "x", SCALE_FMT_PLAIN);
}

/* ---- ch. 8's tables ------------------------------------------------------------------------- */

static void table_set(scale_infer_table *out, const scale_quantity *rows, int n) {
  out->n = 0;
  for (int i = 0; i < n && i < SCALE_INFER_TABLE_MAX; i++)
    out->row[out->n++] = rows[i];
}
#define TABLE_SET(out, rows) table_set(out, rows, (int)(sizeof rows / sizeof rows[0]))

static double bf16_rate(const scale_chip *chip) {
  return scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
}

/* int8 weights of 'model' */
static double int8_weight_bytes(const scale_model *model) {
  return scale_transformer_n_params(model) * scale_dtype_bytes(SCALE_DTYPE_INT8);
}

void scale_infer_price_table(const scale_chip *chip, scale_infer_table *out) {
  double f = bf16_rate(chip);
  const scale_quantity q[] = {
      {"flops_per_s", "bf16 FLOP/s", f, "FLOP/s", SCALE_FMT_SCI},
      {"usd_per_hour", "price per chip-hour", chip->usd_per_hour, "USD/h", SCALE_FMT_USD},
      {"flops_per_usd", "FLOPs per dollar", f * 3600.0 / chip->usd_per_hour, "FLOP/$",
       SCALE_FMT_SCI}};
  TABLE_SET(out, q);
}

void scale_infer_kv_table(const scale_model *model, const scale_chip *chip,
                          scale_infer_table *out) {
  const double long_ctx = 32768, big_batch = 240; /* the book's long context and batch */
  double seq = scale_transformer_kv_bytes(model, long_ctx, SCALE_DTYPE_INT8);
  const scale_quantity q[] = {
      {"per_token", "int8 KV per token",
       scale_transformer_kv_bytes_per_token(model, SCALE_DTYPE_INT8), "B", SCALE_FMT_PLAIN},
      {"long_context", "long context", long_ctx, "tokens", SCALE_FMT_PLAIN},
      {"seq", "one long sequence", seq, "B", SCALE_FMT_SI},
      {"batch", "batch", big_batch, "", SCALE_FMT_PLAIN},
      {"batch_bytes", "KV of the batch", big_batch * seq, "B", SCALE_FMT_SI},
      {"chips", "chips to hold weights and caches",
       scale_infer_chips_needed(int8_weight_bytes(model) + big_batch * seq, chip->hbm_bytes), "",
       SCALE_FMT_PLAIN}};
  TABLE_SET(out, q);
}

void scale_infer_batch_table(const scale_model *m, const scale_chip *chip, double batch,
                             double context, scale_infer_table *out) {
  const scale_dtype i8 = SCALE_DTYPE_INT8;
  double kv_seq = scale_transformer_kv_bytes(m, context, i8);
  double weights = int8_weight_bytes(m), total = batch * kv_seq + weights;
  double slice = scale_infer_min_slice_chips(total, chip->hbm_bytes);
  /* the library's view of that slice: activations included, collectives modelled */
  scale_infer_config cfg = scale_infer_config_generate(slice, batch, context, i8);
  scale_infer_memory mem = scale_infer_memory_eval(m, chip, &cfg);
  scale_infer_decode dec = scale_infer_decode_eval(m, chip, &cfg);
  double step = scale_infer_book_step_s(m, chip, slice, batch, i8, context);
  double step2 = scale_infer_book_step_s(m, chip, 2 * slice, batch, i8, context);
  double alpha = scale_chip_ici_intensity(chip, SCALE_DTYPE_BF16), f = (double)m->d_ff;
  const scale_quantity q[] = {
      {"batch", "batch", batch, "", SCALE_FMT_PLAIN},
      {"context", "context", context, "tokens", SCALE_FMT_PLAIN},
      {"kv_bytes", "KV caches", batch * kv_seq, "B", SCALE_FMT_SI},
      {"weight_bytes", "int8 weights", weights, "B", SCALE_FMT_SI},
      {"total_bytes", "total", total, "B", SCALE_FMT_SI},
      {"chips_needed", "chips' worth of HBM", scale_infer_chips_needed(total, chip->hbm_bytes), "",
       SCALE_FMT_PLAIN},
      {"slice", "smallest power-of-two slice", slice, "chips", SCALE_FMT_PLAIN},
      {"mem_per_chip", "memory per chip, activations included", mem.total_bytes_per_chip, "B",
       SCALE_FMT_SI},
      {"hbm_per_chip", "HBM per chip", chip->hbm_bytes, "B", SCALE_FMT_SI},
      {"step_s", "step (book formula)", step, "s", SCALE_FMT_TIME},
      {"tokens_per_s", "tokens/s", batch / step, "tokens/s", SCALE_FMT_PLAIN},
      {"tokens_per_s_per_chip", "tokens/s per chip", batch / step / slice, "tokens/s",
       SCALE_FMT_PLAIN},
      {"eval_step_s", "step (library, with collectives)", dec.step_s, "s", SCALE_FMT_TIME},
      {"eval_t_ici_s", "collectives (hidden)", dec.t_ici_s, "s", SCALE_FMT_TIME},
      {"eval_t_params_s", "weight reads", dec.t_params_s, "s", SCALE_FMT_TIME},
      {"cost_per_m", "cost per million tokens", dec.cost_usd_per_million_tokens, "USD",
       SCALE_FMT_USD},
      {"alpha", "C / W_ici", alpha, "FLOP/byte", SCALE_FMT_PLAIN},
      {"max_tp", "ICI-bound above (two axes)", scale_infer_max_tp_compute_bound(f, 2, alpha), "",
       SCALE_FMT_PLAIN},
      {"max_tp_2550", "same with alpha = 2550", scale_infer_max_tp_compute_bound(f, 2, 2550), "",
       SCALE_FMT_PLAIN},
      {"chips2", "twice the slice", 2 * slice, "chips", SCALE_FMT_PLAIN},
      {"step2_s", "step on twice the chips", step2, "s", SCALE_FMT_TIME},
      {"tokens_per_s_per_chip2", "tokens/s per chip there", batch / step2 / (2 * slice),
       "tokens/s", SCALE_FMT_PLAIN}};
  TABLE_SET(out, q);
}

void scale_infer_full_hbm_table(const scale_model *model, const scale_chip *chip, double context,
                                double decode_len, scale_infer_table *out) {
  double full = scale_infer_min_step_time_s(0, 0, chip->hbm_bytes, chip->hbm_bytes_per_s);
  scale_infer_slice s4 = scale_infer_smallest_slice(model, chip, SCALE_DTYPE_INT4, context);
  const scale_quantity q[] = {
      {"step_s", "reading one full HBM", full, "s", SCALE_FMT_TIME},
      {"decode_len", "median decode length", decode_len, "tokens", SCALE_FMT_PLAIN},
      {"request_s", "one request's decode at that pace", full * decode_len, "s", SCALE_FMT_TIME},
      {"int4_params_s", "int4 weights alone on their slice",
       scale_infer_min_step_time_s(0, 0, s4.weight_bytes, s4.slice_chips * chip->hbm_bytes_per_s),
       "s", SCALE_FMT_TIME}};
  TABLE_SET(out, q);
}

void scale_infer_sharding_table(const scale_model *model, const scale_chip *chip,
                                scale_infer_table *out) {
  const double batch = 64, n = 32; /* the book's 4x8 */
  double d = (double)model->d_model, f = (double)model->d_ff;
  double beta = scale_infer_beta(chip);
  double w_ici = 2.0 * chip->ici_link_bytes_per_s; /* bidirectional, the book's W_ici */
  const scale_quantity q[] = {
      {"batch", "batch", batch, "", SCALE_FMT_PLAIN},
      {"chips", "chips", n, "", SCALE_FMT_PLAIN},
      {"max_tp_book", "F / (8 B)", scale_infer_max_tp_memory_bound(f, batch, 8), "",
       SCALE_FMT_PLAIN},
      {"beta", "beta", beta, "", SCALE_FMT_PLAIN},
      {"max_tp", "F / (B beta)", scale_infer_max_tp_memory_bound(f, batch, beta), "",
       SCALE_FMT_PLAIN},
      {"w_ici", "W_ici (both directions)", w_ici, "B/s", SCALE_FMT_SI},
      {"t_ici_s", "T_ici = 2BD / W_ici",
       scale_infer_ws1d_comms_s(batch, d, scale_dtype_bytes(SCALE_DTYPE_BF16), 2, w_ici), "s",
       SCALE_FMT_TIME},
      {"t_hbm_s", "T_hbm = 2DF / (Y W_hbm)",
       scale_infer_min_step_time_s(0, 0, 2 * d * f, n * chip->hbm_bytes_per_s), "s",
       SCALE_FMT_TIME},
      {"t_math_s", "T_math = 2BDF / (Y C)", 2 * batch * d * f / (n * bf16_rate(chip)), "s",
       SCALE_FMT_TIME}};
  TABLE_SET(out, q);
}

/* ch. 8's prefill: 16 chips at 40% MFU */
static const double prefill_chips = 16, prefill_mfu = 0.4;

static double book_prefill_s(const scale_model *model, const scale_chip *chip, double context) {
  return scale_infer_prefill_time_s(scale_transformer_n_params(model), context,
                                    prefill_chips * bf16_rate(chip), prefill_mfu);
}

void scale_infer_prefill_table(const scale_model *model, const scale_chip *chip, double context,
                               scale_infer_table *out) {
  scale_infer_config cfg = scale_infer_config_default(prefill_chips, 1, context);
  cfg.mfu_frac = prefill_mfu;
  scale_infer_prefill p = scale_infer_prefill_eval(model, chip, &cfg);
  const scale_quantity q[] = {
      {"chips", "chips", prefill_chips, "", SCALE_FMT_PLAIN},
      {"mfu_pct", "MFU", 100 * prefill_mfu, "%", SCALE_FMT_PLAIN},
      {"s", "prefill, 2 x params FLOPs per token", book_prefill_s(model, chip, context), "s",
       SCALE_FMT_TIME},
      {"eval_s", "prefill with attention FLOPs", p.time_s, "s", SCALE_FMT_TIME},
      {"attn_pct", "attention share of the FLOPs", 100 * p.attention_flops_frac, "%",
       SCALE_FMT_PLAIN},
      {"kv_bytes", "bf16 KV the prefill writes", p.kv_bytes, "B", SCALE_FMT_SI}};
  TABLE_SET(out, q);
}

void scale_infer_disaggregation_table(const scale_model *model, const scale_chip *chip,
                                      double batch, double context, double decode_len,
                                      scale_infer_table *out) {
  double t = book_prefill_s(model, chip, context);
  scale_infer_slice sl = scale_infer_smallest_slice(model, chip, SCALE_DTYPE_BF16, context);
  double step = scale_infer_book_step_s(model, chip, sl.slice_chips, sl.max_batch,
                                        SCALE_DTYPE_BF16, context);
  const scale_quantity q[] = {
      {"ratio", "prefill servers per generate server, full batch",
       scale_infer_disaggregation_ratio(t, sl.max_batch, step, decode_len), "", SCALE_FMT_PLAIN},
      {"ratio_b", "same with the example batch",
       scale_infer_disaggregation_ratio(t, batch, step, decode_len), "", SCALE_FMT_PLAIN}};
  TABLE_SET(out, q);
}

void scale_infer_gpu_table(const scale_model *m, const scale_chip *gpu, const scale_chip *tpu,
                           double batch, double context, scale_infer_table *out) {
  const scale_dtype d = SCALE_DTYPE_FP8;
  double n = gpu->nvlink_domain_size > 0 ? gpu->nvlink_domain_size : 8;
  scale_infer_slice sl = scale_infer_smallest_slice(m, gpu, d, context);
  scale_infer_slice sl16 = scale_infer_smallest_slice(m, gpu, SCALE_DTYPE_BF16, context);
  scale_infer_config cfg = scale_infer_config_generate(n, batch, context, d);
  cfg.compute_dtype = d;
  scale_infer_decode dec = scale_infer_decode_eval(m, gpu, &cfg);
  scale_infer_memory mem;
  scale_infer_decode full = scale_infer_decode_at_max_batch(m, gpu, &cfg, &mem);
  /* the TPU counterpart: 16 chips, int8, largest batch */
  scale_infer_config tcfg = scale_infer_config_generate(16, 1, context, SCALE_DTYPE_INT8);
  scale_infer_memory tmem;
  scale_infer_decode tdec = scale_infer_decode_at_max_batch(m, tpu, &tcfg, &tmem);
  const scale_quantity q[] = {
      {"chips", "GPUs in one NVLink domain", n, "", SCALE_FMT_PLAIN},
      {"hbm_bytes", "HBM per GPU", gpu->hbm_bytes, "B", SCALE_FMT_SI},
      {"hbm_bytes_per_s", "HBM bandwidth per GPU", gpu->hbm_bytes_per_s, "B/s", SCALE_FMT_SI},
      {"bcrit_fp8", "critical batch, fp8 x fp8", scale_roofline_critical_batch(gpu, d, d),
       "tokens", SCALE_FMT_PLAIN},
      {"bcrit_int8w", "critical batch, 8-bit weights, bf16 FLOPs",
       scale_roofline_critical_batch(gpu, d, SCALE_DTYPE_BF16), "tokens", SCALE_FMT_PLAIN},
      {"slice_fp8", "smallest slice, fp8", sl.slice_chips, "GPUs", SCALE_FMT_PLAIN},
      {"slice_bf16", "smallest slice, bf16", sl16.slice_chips, "GPUs", SCALE_FMT_PLAIN},
      {"step_s", "step at the example batch", dec.step_s, "s", SCALE_FMT_TIME},
      {"tput", "tokens/s per GPU", dec.tokens_per_s_per_chip, "tokens/s", SCALE_FMT_PLAIN},
      {"cost", "cost per million tokens", dec.cost_usd_per_million_tokens, "USD", SCALE_FMT_USD},
      {"max_batch", "largest batch that fits", mem.max_batch, "", SCALE_FMT_PLAIN},
      {"full_step_s", "step at the largest batch", full.step_s, "s", SCALE_FMT_TIME},
      {"full_tput", "tokens/s per GPU there", full.tokens_per_s_per_chip, "tokens/s",
       SCALE_FMT_PLAIN},
      {"full_cost", "cost per million tokens there", full.cost_usd_per_million_tokens, "USD",
       SCALE_FMT_USD},
      {"tpu_max_batch", "TPU 4x4 int8: largest batch", tmem.max_batch, "", SCALE_FMT_PLAIN},
      {"tpu_step_s", "its step", tdec.step_s, "s", SCALE_FMT_TIME},
      {"tpu_cost", "its cost per million tokens", tdec.cost_usd_per_million_tokens, "USD",
       SCALE_FMT_USD}};
  TABLE_SET(out, q);
}

void scale_infer_layout_table(const scale_infer_config *cfg, const scale_infer_decode *d,
                              const scale_infer_prefill *p, scale_infer_table *out) {
  const scale_quantity q[] = {
      {"chips", "best: chips in the slice", cfg->n_chips, "", SCALE_FMT_PLAIN},
      {"weight_bits", "  weight bits", 8 * scale_dtype_bytes(cfg->weight_dtype), "",
       SCALE_FMT_PLAIN},
      {"kv_bits", "  KV-cache bits", 8 * scale_dtype_bytes(cfg->kv_dtype), "", SCALE_FMT_PLAIN},
      {"batch", "  batch", cfg->batch, "", SCALE_FMT_PLAIN},
      {"step_s", "  step", d->step_s, "s", SCALE_FMT_TIME},
      {"tput", "  tokens/s per chip", d->tokens_per_s_per_chip, "", SCALE_FMT_PLAIN},
      {"cost", "  cost per million tokens", d->cost_usd_per_million_tokens, "USD", SCALE_FMT_USD},
      {"ttft_s", "  time to first token", p->ttft_s, "s", SCALE_FMT_TIME}};
  TABLE_SET(out, q);
}

void scale_infer_one_chip_table(const scale_model *model, const scale_chip *chip,
                                scale_infer_table *out) {
  double n = scale_transformer_n_params(model);
  const scale_quantity q[] = {
      {"params", "LLaMA 3 405B parameters", n, "", SCALE_FMT_SCI},
      {"flops_per_token", "forward FLOPs per token (matmuls)", 2 * n, "FLOP", SCALE_FMT_SCI},
      {"t_flops_s", "FLOPs-bound, one chip", 2 * n / bf16_rate(chip), "s", SCALE_FMT_TIME},
      {"t_bytes_s", "bf16 weight reads, one chip",
       scale_infer_min_step_time_s(0, 0, 2 * n, chip->hbm_bytes_per_s), "s", SCALE_FMT_TIME}};
  TABLE_SET(out, q);
}

void scale_infer_batch_memory_table(const scale_model *model, const scale_chip *chip,
                                    scale_infer_table *out) {
  scale_infer_config cfg = scale_infer_config_default(1, 240, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_memory mem = scale_infer_memory_eval(model, chip, &cfg);
  double used = mem.weight_bytes + mem.kv_bytes + mem.activation_bytes_per_chip;
  const scale_quantity q[] = {
      {"weight_bytes", "int8 weights", mem.weight_bytes, "B", SCALE_FMT_SI},
      {"kv_bytes", "int8 KV caches", mem.kv_bytes, "B", SCALE_FMT_SI},
      {"act_bytes", "working activations of one layer", mem.activation_bytes_per_chip, "B",
       SCALE_FMT_SI},
      {"slice", "smallest slice", scale_infer_min_slice_chips(used, chip->hbm_bytes), "chips",
       SCALE_FMT_PLAIN}};
  TABLE_SET(out, q);
}

void scale_infer_latency_limit_table(const scale_model *model, const scale_chip *chip,
                                     double limit_s, scale_infer_table *out) {
  double n = scale_transformer_n_params(model); /* int8: a byte a parameter */
  double min_chips = scale_infer_min_slice_chips(n, limit_s * chip->hbm_bytes_per_s);
  scale_infer_config q0 = scale_infer_config_generate(min_chips, 1, 8192, SCALE_DTYPE_INT8);
  scale_infer_config best = {0};
  scale_infer_decode d = {0}; /* zeros when no slice meets the limit */
  scale_infer_best_within_latency(model, chip, &q0, limit_s, 4096, &best, &d);
  double pod = scale_chip_pod_chips(chip);
  const scale_quantity q[] = {
      {"limit_s", "latency limit", limit_s, "s", SCALE_FMT_TIME},
      {"min_chips", "fewest chips whose weight reads fit the limit", min_chips, "chips",
       SCALE_FMT_PLAIN},
      {"best_chips", "best slice", best.n_chips, "chips", SCALE_FMT_PLAIN},
      {"best_batch", "its batch", best.batch, "", SCALE_FMT_PLAIN},
      {"best_step_s", "its step", d.step_s, "s", SCALE_FMT_TIME},
      {"best_tput", "its throughput per chip", d.tokens_per_s_per_chip, "tokens/s",
       SCALE_FMT_PLAIN},
      {"pod_chips", "a full pod", pod, "chips", SCALE_FMT_PLAIN},
      {"pod_step_s", "int8 weight reads over a full pod",
       scale_infer_min_step_time_s(0, 0, n, pod * chip->hbm_bytes_per_s), "s", SCALE_FMT_TIME}};
  TABLE_SET(out, q);
}
