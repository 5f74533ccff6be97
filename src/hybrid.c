/* hybrid.c — the hybrid-parallelism study of Amer et al. (arXiv 2602.09109): volumes, memory,
 * Mamba-2 splits, overlap and the design guide. See include/scale/hybrid.h. */
#include "scale/hybrid.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/memory.h"
#include "scale/training.h"

/* ==== helpers ================================================================================ */

static double c(int64_t v) { return (double)v; }

/** A degree: finite and >= 1. */
static bool degree_ok(double x) { return isfinite(x) && x >= 1.0; }

/** A size: finite and >= 0. */
static bool size_ok(double x) { return isfinite(x) && x >= 0.0; }

static bool dtype_ok(scale_dtype dtype) { return isfinite(scale_dtype_bytes(dtype)); }

static bool attention_model(const scale_model *m) {
  return m && m->arch == SCALE_ARCH_TRANSFORMER && m->n_heads > 0 && m->n_kv_heads > 0 &&
         m->d_head > 0 && m->kv_lora_rank == 0;
}

static bool mamba_model(const scale_model *m) {
  return m && m->arch == SCALE_ARCH_MAMBA2 && m->ssm_n_heads > 0 && m->ssm_d_head > 0 &&
         m->ssm_d_state > 0 && m->ssm_chunk_size > 0;
}

/** Whether a divides b exactly (both counts). */
static bool divides(double a, double b) { return a >= 1.0 && fmod(b, a) == 0.0; }

/* ==== collectives (Table 2) ================================================================== */

const char *scale_hybrid_coll_name(scale_hybrid_coll op) {
  static const char *const names[SCALE_HYBRID_COLL_COUNT] = {
      "reduce", "gather", "all-gather", "reduce-scatter", "all-to-all", "all-reduce"};
  return (unsigned)op < SCALE_HYBRID_COLL_COUNT ? names[op] : "?";
}

double scale_hybrid_collective_bytes(scale_hybrid_coll op, double n, double t_bytes) {
  if (!degree_ok(n) || !size_ok(t_bytes)) return NAN;
  switch (op) {
  case SCALE_HYBRID_REDUCE:
  case SCALE_HYBRID_GATHER:
    return (n - 1.0) * t_bytes;
  case SCALE_HYBRID_ALL_GATHER:
  case SCALE_HYBRID_REDUCE_SCATTER:
  case SCALE_HYBRID_ALL_TO_ALL:
    return (n - 1.0) / n * t_bytes;
  case SCALE_HYBRID_ALL_REDUCE:
    return 2.0 * (n - 1.0) / n * t_bytes;
  default:
    return NAN;
  }
}

/* ==== per-layer forward communication (Table 3) ============================================== */

const char *scale_hybrid_strategy_name(scale_hybrid_strategy st) {
  static const char *const names[SCALE_HYBRID_STRATEGY_COUNT] = {"dp", "tp", "cp", "tpsp", "tpup"};
  return (unsigned)st < SCALE_HYBRID_STRATEGY_COUNT ? names[st] : "?";
}

/* [listing:table3] */
double scale_hybrid_attention_fwd_bytes(const scale_model *model, scale_hybrid_strategy st,
                                        double degree, double b, double s, scale_dtype dtype) {
  if (!attention_model(model) || !degree_ok(degree) || !size_ok(b) || !size_ok(s) ||
      !dtype_ok(dtype))
    return NAN;
  double beta = scale_dtype_bytes(dtype), n = degree;
  double a = c(model->n_heads), k = c(model->n_kv_heads), h = c(model->d_head);
  double d = a * h; /* the attention width the AllReduce carries */
  switch (st) {
  case SCALE_HYBRID_DP:
    return 0.0;
  case SCALE_HYBRID_TP:   /* one AllReduce: 2(n-1)/n sent and as much received */
  case SCALE_HYBRID_TPSP: /* AllGather + ReduceScatter: the same bytes */
    return 4.0 * (n - 1.0) / n * b * s * d * beta;
  case SCALE_HYBRID_CP: /* K and V: each rank's s/n block passes n - 1 hops, in and out */
    return 4.0 * (n - 1.0) / n * b * s * k * h * beta;
  case SCALE_HYBRID_TPUP: /* Q, K, V, O AllToAlls of (s/n)(heads x h / n)(n - 1) each way */
    if (n > k) return NAN;
    return 4.0 * (n - 1.0) / (n * n) * b * s * h * (a + k) * beta;
  default:
    return NAN;
  }
}
/* [/listing:table3] */

double scale_hybrid_s5_comm_elements(const scale_model *model, scale_hybrid_strategy st, double s) {
  if (!attention_model(model) || !size_ok(s)) return NAN;
  switch (st) {
  case SCALE_HYBRID_DP:
    return 0.0;
  case SCALE_HYBRID_TP:
    return 2.0 * s * c(model->n_heads) * c(model->d_head);
  case SCALE_HYBRID_CP:
    return 2.0 * s * c(model->n_kv_heads) * c(model->d_head);
  default:
    return NAN;
  }
}

/* ==== Mamba-2 ================================================================================ */

void scale_hybrid_mamba2_split(const scale_model *model, double tp, double cp, double dp, double b,
                               double s, scale_hybrid_ssm_split *out) {
  if (!out) return;
  if (!mamba_model(model) || !degree_ok(tp) || !degree_ok(cp) || !degree_ok(dp) ||
      !(isfinite(b) && b > 0.0) || !(isfinite(s) && s > 0.0)) {
    *out = (scale_hybrid_ssm_split){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, false};
    return;
  }
  double h = c(model->ssm_n_heads), g = c(model->ssm_n_groups), p = c(model->ssm_d_head);
  double n = c(model->ssm_d_state), d = c(model->d_model), l = c(model->ssm_chunk_size);
  double inner = c(scale_model_ssm_d_inner(model));
  double in_proj = scale_transformer_mamba2_d_in_proj(model);
  out->heads = h / tp;
  out->groups = g / tp;
  out->d_inner = inner / tp;
  out->d_in_proj = in_proj / tp;
  out->weight_params = (d * in_proj + inner * d) / tp;
  out->tokens = s / cp;
  out->sequences = b / dp;
  out->chunks = (s / cp) / l;
  out->state_elements = (b / dp) * (h / tp) * p * n;
  out->halo_elements = (b / dp) * (c(model->ssm_d_conv) - 1.0) * (inner + 2.0 * g * n) / tp;
  out->tp_all_reduces = tp > 1.0 ? 1.0 : 0.0;
  out->valid = divides(tp, h) && divides(tp, g) && divides(cp, s);
}

/* [listing:mamba_cp] */
double scale_hybrid_mamba2_fwd_bytes(const scale_model *model, scale_hybrid_strategy st,
                                     double degree, double b, double s, scale_dtype dtype) {
  if (!mamba_model(model) || !degree_ok(degree) || !size_ok(b) || !size_ok(s) || !dtype_ok(dtype))
    return NAN;
  double beta = scale_dtype_bytes(dtype), n = degree, d = c(model->d_model);
  double inner = c(scale_model_ssm_d_inner(model));
  double state = b * c(model->ssm_n_heads) * c(model->ssm_d_head) * c(model->ssm_d_state);
  double conv_channels = inner + 2.0 * c(model->ssm_n_groups) * c(model->ssm_d_state);
  double halo = b * (c(model->ssm_d_conv) - 1.0) * conv_channels;
  switch (st) {
  case SCALE_HYBRID_DP:
    return 0.0;
  case SCALE_HYBRID_TP:
  case SCALE_HYBRID_TPSP:
    return 4.0 * (n - 1.0) / n * b * s * d * beta;
  case SCALE_HYBRID_CP: /* AllGather of n states (send n - 1, receive n - 1) + the halo */
    if (n == 1.0) return 0.0;
    return (2.0 * (n - 1.0) * state + 2.0 * halo) * beta;
  default:
    return NAN;
  }
}
/* [/listing:mamba_cp] */

/* ==== memory per device ====================================================================== */

bool scale_hybrid_layout_is(const scale_hybrid_layout *l, double dp, double pp, double tp,
                            double cp) {
  return l->dp == dp && l->pp == pp && l->tp == tp && l->cp == cp;
}

void scale_hybrid_memory_per_device(const scale_model *model, const scale_hybrid_layout *layout,
                                    const scale_precision *prec, double mbs, double s,
                                    double in_flight, scale_hybrid_memory *out) {
  if (!out) return;
  *out = (scale_hybrid_memory){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
  if (!model || !layout || !prec || !degree_ok(layout->dp) || !degree_ok(layout->pp) ||
      !degree_ok(layout->tp) || !degree_ok(layout->cp) || layout->zero < 0 || layout->zero > 3 ||
      !degree_ok(mbs) || !degree_ok(in_flight) || !(isfinite(s) && s > 0.0))
    return;
  double params = scale_transformer_n_params(model) / (layout->tp * layout->pp);
  double parts[3];
  double states =
      scale_train_zero_bytes_per_chip(prec, params, layout->zero, layout->dp * layout->cp, parts);
  double stage =
      c(model->n_layers) / layout->pp *
      scale_transformer_layer_activation_bytes(model, mbs, s, layout->tp, layout->cp, layout->sp);
  /* the head: the last stage keeps its inputs and the fp32 logits of the microbatch it runs,
   * which under 1F1B is its only one in flight (the first stage holds in_flight) */
  scale_memory_act head = {layout->tp, layout->cp, layout->sp, SCALE_RECOMPUTE_NONE, true, 2.0};
  double logits = scale_memory_logits_bytes(model, mbs, s, &head);
  if (!isfinite(states) || !isfinite(stage) || !isfinite(logits)) return;
  out->params = params;
  out->weight_bytes = parts[0];
  out->grad_bytes = parts[1];
  out->optimizer_bytes = parts[2];
  out->activation_bytes = in_flight * stage;
  out->logits_bytes = logits;
  out->total_bytes = states + fmax(in_flight * stage, stage + logits);
}

/* ==== overlap ================================================================================ */

/* [listing:overlap] */
double scale_hybrid_overlap_s(scale_hybrid_dependency dep, double t_comp, double t_comm,
                              double n_chunks) {
  if (!size_ok(t_comp) || !size_ok(t_comm)) return NAN;
  switch (dep) {
  case SCALE_HYBRID_DEP_NONE:
    return t_comp + t_comm;
  case SCALE_HYBRID_DEP_WEAK:
    return fmax(t_comp, t_comm);
  case SCALE_HYBRID_DEP_STRONG:
    if (!degree_ok(n_chunks)) return NAN;
    return (n_chunks - 1.0) / n_chunks * fmax(t_comp, t_comm) + (t_comp + t_comm) / n_chunks;
  default:
    return NAN;
  }
}
/* [/listing:overlap] */

double scale_hybrid_ring_cp_min_block_tokens(const scale_model *model, double flops_per_s,
                                             double link_bytes_per_s, scale_dtype dtype,
                                             bool causal_unbalanced) {
  if (!attention_model(model) || !(isfinite(flops_per_s) && flops_per_s > 0.0) ||
      !(isfinite(link_bytes_per_s) && link_bytes_per_s > 0.0) || !dtype_ok(dtype))
    return NAN;
  double block = flops_per_s / link_bytes_per_s * c(model->n_kv_heads) * scale_dtype_bytes(dtype) /
                 (2.0 * c(model->n_heads));
  return causal_unbalanced ? 2.0 * block : block;
}

double scale_hybrid_peer_bytes_per_s(const scale_chip *chip) {
  /* a full mesh: each of the domain's other members has its own share of the egress */
  if (!chip || !(chip->nvlink_domain_size >= 2.0)) return NAN;
  return chip->nvlink_bytes_per_s / (chip->nvlink_domain_size - 1.0);
}

void scale_hybrid_tp_layer_fwd_s(const scale_model *model, const scale_chip *chip, double tp,
                                 double s, double *comp_s, double *comm_s) {
  double flops = scale_transformer_gqa_block_flops_per_device(model, 1, s, tp, 1, 1) +
                 scale_transformer_mlp_block_flops_per_device(model, 1, s, tp, 1, 1);
  *comp_s = flops / scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
  *comm_s = scale_hybrid_attention_fwd_bytes(model, SCALE_HYBRID_TP, tp, 1, s, SCALE_DTYPE_BF16) /
            scale_hybrid_peer_bytes_per_s(chip);
}

/* ==== the design guide ======================================================================= */

const char *scale_hybrid_rule_name(scale_hybrid_rule rule) {
  static const char *const names[SCALE_HYBRID_RULE_COUNT] = {
      "fits-dp", "smallest-split", "split-kind", "tp-bound", "tp-domain", "cp-ring"};
  return (unsigned)rule < SCALE_HYBRID_RULE_COUNT ? names[rule] : "?";
}

/** The chip's fast (scale-up) link per device, one way [bytes/s], and its domain size. */
static double fast_link(const scale_chip *chip) {
  return chip->kind == SCALE_HW_GPU ? chip->nvlink_bytes_per_s : chip->ici_link_bytes_per_s;
}

static double fast_domain(const scale_chip *chip) {
  return chip->kind == SCALE_HW_GPU ? chip->nvlink_domain_size : scale_chip_pod_chips(chip);
}

scale_hybrid_problem scale_hybrid_paper_problem(const scale_model *model, const scale_chip *chip,
                                                double gbs, double s) {
  return (scale_hybrid_problem){model, chip, 8, gbs, s, 1, 1, SCALE_PRECISION_MEGATRON};
}

void scale_hybrid_problem_memory(const scale_hybrid_problem *p, const scale_hybrid_layout *l,
                                 scale_hybrid_memory *out) {
  double m = p->gbs / (l->dp * p->mbs);
  double in_flight = scale_pipeline_microbatches_in_flight(SCALE_PP_1F1B, l->pp, fmax(m, 1.0), 1.0);
  scale_hybrid_memory_per_device(p->model, l, &p->prec, p->mbs, p->s, in_flight, out);
}

static bool fits(const scale_hybrid_problem *p, const scale_hybrid_layout *l,
                 scale_hybrid_memory *mem) {
  scale_hybrid_problem_memory(p, l, mem);
  return mem->total_bytes <= p->chip->hbm_bytes;
}

/** The kinds of model split the guide tries (codes of the SPLIT_KIND rule). */
enum { SPLIT_NONE = 0, SPLIT_PP = 1, SPLIT_TP = 2, SPLIT_CP = 3 };

/** Whether a split of 'kind' and degree k is allowed by the model's shape and the sequence. */
static bool split_ok(const scale_hybrid_problem *p, int kind, double k) {
  const scale_model *m = p->model;
  if (k <= 1.0) return true;
  if (kind == SPLIT_PP) return k <= c(m->n_layers);
  if (kind == SPLIT_CP) return divides(k, p->s);
  return scale_transformer_tp_check(m, k, NULL) == SCALE_OK;
}

/** The layout with dp = n / (k1 k2) and degree k1 of kind1, k2 of kind2 (SP on with TP). */
static scale_hybrid_layout split_layout(const scale_hybrid_problem *p, int kind1, double k1,
                                        int kind2, double k2) {
  scale_hybrid_layout l = {p->n_chips / (k1 * k2), 1, 1, 1, p->zero, false};
  double *deg[4] = {NULL, &l.pp, &l.tp, &l.cp};
  *deg[kind1] *= k1;
  if (kind2 != SPLIT_NONE) *deg[kind2] *= k2;
  l.sp = l.tp > 1.0;
  return l;
}

static scale_hybrid_rule_eval ineq(double lhs, double rhs) {
  return (scale_hybrid_rule_eval){lhs, rhs, lhs <= rhs};
}

/* [listing:guide] */
void scale_hybrid_guide_eval(const scale_hybrid_problem *problem, scale_hybrid_guide *out) {
  if (!out) return;
  scale_hybrid_guide g = {.layout = {NAN, NAN, NAN, NAN, 0, false}, .feasible = false};
  for (int r = 0; r < SCALE_HYBRID_RULE_COUNT; r++)
    g.rule[r] = (scale_hybrid_rule_eval){NAN, NAN, false};
  const scale_hybrid_problem *p = problem;
  if (!p || !p->model || !p->chip || !degree_ok(p->n_chips) || !(p->gbs > 0.0) || !(p->s > 0.0) ||
      !(p->mbs > 0.0) || !isfinite(p->gbs + p->s + p->mbs)) {
    *out = g;
    return;
  }
  const scale_model *m = p->model;
  double n = p->n_chips, hbm = p->chip->hbm_bytes;
  bool mamba = m->arch == SCALE_ARCH_MAMBA2;
  scale_hybrid_memory mem;

  /* rule 1: pure DP when a full replica fits */
  scale_hybrid_layout dp_only = {n, 1, 1, 1, p->zero, false};
  bool found = fits(p, &dp_only, &mem);
  g.rule[SCALE_HYBRID_RULE_FITS_DP] = ineq(mem.total_bytes, hbm);

  /* rules 2-3: the smallest split that fits, DP as large as possible, kinds in the family's
   * order: a transformer whose activations outweigh its model state (long sequences) CP, TP,
   * PP; otherwise PP, TP, CP; Mamba-2 TP, PP, CP. Then pairs of the first kind with another. */
  bool act_heavy = mem.activation_bytes > mem.weight_bytes + mem.grad_bytes + mem.optimizer_bytes;
  int order[3];
  if (mamba) {
    order[0] = SPLIT_TP, order[1] = SPLIT_PP, order[2] = SPLIT_CP;
  } else if (act_heavy) {
    order[0] = SPLIT_CP, order[1] = SPLIT_TP, order[2] = SPLIT_PP;
  } else {
    order[0] = SPLIT_PP, order[1] = SPLIT_TP, order[2] = SPLIT_CP;
  }
  scale_hybrid_layout pick = dp_only;
  int kind = SPLIT_NONE;
  for (int a = 0; a < 3 && !found; a++)
    for (double k = 2.0; k <= n && !found; k *= 2.0) {
      if (!split_ok(p, order[a], k)) continue;
      scale_hybrid_layout l = split_layout(p, order[a], k, SPLIT_NONE, 1.0);
      if (fits(p, &l, &mem)) pick = l, found = true, kind = order[a];
    }
  for (int b = 1; b < 3 && !found; b++)
    for (double k = 2.0; k <= n && !found; k *= 2.0)
      for (double k2 = 2.0; k * k2 <= n && !found; k2 *= 2.0) {
        if (!split_ok(p, order[0], k) || !split_ok(p, order[b], k2)) continue;
        scale_hybrid_layout l = split_layout(p, order[0], k, order[b], k2);
        if (fits(p, &l, &mem)) pick = l, found = true, kind = order[0];
      }
  g.feasible = found;
  if (found) {
    g.layout = pick;
    scale_hybrid_problem_memory(p, &pick, &g.memory);
    g.rule[SCALE_HYBRID_RULE_SMALLEST_SPLIT] = ineq(g.memory.total_bytes, hbm);
    double preferred = mamba ? SPLIT_TP : act_heavy ? SPLIT_CP : SPLIT_PP;
    g.rule[SCALE_HYBRID_RULE_SPLIT_KIND] =
        (scale_hybrid_rule_eval){kind, preferred, kind == SPLIT_NONE || kind == preferred};
  }

  /* rules 4-6 at the pick (or at pure DP when nothing fits) */
  const scale_hybrid_layout *at = found ? &pick : &dp_only;
  scale_dtype dtype = p->prec.weight_dtype;
  double flops = scale_chip_flops_per_s(p->chip, dtype), link = fast_link(p->chip);
  double width = mamba ? c(scale_model_ssm_d_inner(m)) : c(m->d_ff);
  g.rule[SCALE_HYBRID_RULE_TP_BOUND] =
      ineq(at->tp, scale_train_tp_max_degree(width, flops, link, 1.0));
  g.rule[SCALE_HYBRID_RULE_TP_DOMAIN] = ineq(at->tp, fast_domain(p->chip));
  if (mamba) /* CP for Mamba only when nothing else fits: lhs the CP degree, rhs 1 */
    g.rule[SCALE_HYBRID_RULE_CP_RING] = ineq(at->cp, found && kind == SPLIT_CP ? at->cp : 1.0);
  else
    g.rule[SCALE_HYBRID_RULE_CP_RING] =
        at->cp > 1.0 ? ineq(scale_hybrid_ring_cp_min_block_tokens(m, flops, link, dtype, false),
                            p->s / at->cp)
                     : ineq(0.0, p->s);
  *out = g;
}
/* [/listing:guide] */

/* ==== context parallelism on a host-synchronous framework ===================================== */

/* [listing:cp_host] */
double scale_hybrid_cp_host_bound_s(const scale_step_job *job, double device_s,
                                    double host_layer_s) {
  double n = scale_step_cp_layer_microbatches(job);
  if (isfinite(n) && job->cp == 1.0) n = 0.0; /* without CP the host runs ahead */
  if (!isfinite(n) || !(isfinite(device_s) && device_s > 0.0) || !size_ok(host_layer_s)) return NAN;
  return fmax(device_s, n * host_layer_s);
}
/* [/listing:cp_host] */

double scale_hybrid_predict_step_s(const scale_step_job *job, const scale_step_params *params,
                                   double host_layer_s, double stage_s) {
  if (!job || !job->model || !params) return NAN;
  /* the device's time alone: the step model's own floor and stage latency off, the
   * arguments' applied */
  scale_step_params device_params = *params;
  device_params.v[SCALE_STEP_MESH_CP_HOST_S] = 0.0;
  device_params.v[SCALE_STEP_MESH_SSM_STAGE_S] = 0.0;
  double device = scale_step_time_s(job, &device_params);
  double stages = job->model->arch == SCALE_ARCH_MAMBA2 ? scale_step_ssm_stages(job) : 0.0;
  if (!size_ok(stage_s)) return NAN;
  return scale_hybrid_cp_host_bound_s(job, device, host_layer_s) + stages * stage_s;
}

/* ==== tables of named quantities ============================================================== */

double scale_hybrid_table_value(const scale_hybrid_table *t, const char *key) {
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->row[i].key, key)) return t->row[i].value;
  return NAN;
}

void scale_hybrid_table_add(scale_hybrid_table *t, const char *key, const char *label, double value,
                            const char *unit, scale_fmt style) {
  if (t->n >= SCALE_HYBRID_TABLE_MAX) return;
  int i = t->n++;
  scale_quantity *q = &t->row[i];
  snprintf(q->key, sizeof q->key, "%s", key);
  snprintf(t->label[i], sizeof t->label[i], "%s", label);
  q->label = t->label[i], q->value = value, q->unit = unit, q->style = style;
  t->text[i] = NULL;
}

void scale_hybrid_table_add_text(scale_hybrid_table *t, const char *key, const char *label,
                                 double value, const char *text) {
  int n = t->n;
  scale_hybrid_table_add(t, key, label, value, "1", SCALE_FMT_PLAIN);
  if (t->n > n) t->text[n] = text;
}

void scale_hybrid_table_add_flag(scale_hybrid_table *t, const char *key, const char *label,
                                 bool yes) {
  scale_hybrid_table_add_text(t, key, label, yes ? 1.0 : 0.0, yes ? "yes" : "no");
}

void scale_hybrid_table_add_layout(scale_hybrid_table *t, const char *prefix, double dp, double pp,
                                   double tp, double cp) {
  static const char *const what[4] = {"dp", "pp", "tp", "cp"};
  static const char *const label[4] = {"DP", "PP", "TP", "CP"};
  const double v[4] = {dp, pp, tp, cp};
  for (int i = 0; i < 4; i++) {
    char key[sizeof t->row[0].key];
    snprintf(key, sizeof key, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", what[i]);
    scale_hybrid_table_add(t, key, label[i], v[i], "", SCALE_FMT_PLAIN);
  }
}

scale_hybrid_table *scale_hybrid_collective_table(const double *ns, int n,
                                                  scale_hybrid_table *out) {
  out->n = 0;
  for (int op = 0; op < SCALE_HYBRID_COLL_COUNT; op++)
    for (int i = 0; i < n; i++) {
      const char *name = scale_hybrid_coll_name((scale_hybrid_coll)op);
      char key[sizeof out->row[0].key], label[SCALE_HYBRID_LABEL_MAX];
      snprintf(key, sizeof key, "n%.0f.%s", ns[i], name);
      for (char *p = key; *p; p++)
        if (*p == '-') *p = '_';
      snprintf(label, sizeof label, "%s over N = %.0f [x T]", name, ns[i]);
      scale_hybrid_table_add(out, key, label,
                             scale_hybrid_collective_bytes((scale_hybrid_coll)op, ns[i], 1.0), "",
                             SCALE_FMT_PLAIN);
    }
  return out;
}

scale_hybrid_table *scale_hybrid_attention_table(const scale_model *model, const double *degrees,
                                                 int n, double s, scale_dtype dtype,
                                                 scale_hybrid_table *out) {
  out->n = 0;
  for (int st = 0; st < SCALE_HYBRID_STRATEGY_COUNT; st++)
    for (int k = 0; k < n; k++) {
      const char *name = scale_hybrid_strategy_name((scale_hybrid_strategy)st);
      char key[sizeof out->row[0].key], label[SCALE_HYBRID_LABEL_MAX];
      snprintf(key, sizeof key, "%s.%.0f", name, degrees[k]);
      snprintf(label, sizeof label, "%s, %s %.0f", model->display_name, name, degrees[k]);
      double bytes = scale_hybrid_attention_fwd_bytes(model, (scale_hybrid_strategy)st, degrees[k],
                                                      1, s, dtype);
      scale_hybrid_table_add(out, key, label, bytes, "B", SCALE_FMT_SI);
    }
  return out;
}

scale_hybrid_table *scale_hybrid_memory_table(const scale_hybrid_memory *mem, double hbm_bytes,
                                              scale_hybrid_table *out) {
  out->n = 0;
  scale_hybrid_table_add(out, "w", "weights", mem->weight_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "g", "gradients", mem->grad_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "o", "optimizer", mem->optimizer_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "a", "activations", mem->activation_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "total", "total", mem->total_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add_flag(out, "fits", "fits", mem->total_bytes <= hbm_bytes);
  return out;
}

scale_hybrid_table *scale_hybrid_ssm_split_table(const scale_hybrid_ssm_split *s,
                                                 scale_hybrid_table *out) {
  const struct {
    const char *key, *label;
    double v;
    scale_fmt style;
  } rows[] = {{"heads", "heads", s->heads, SCALE_FMT_PLAIN},
              {"groups", "groups", s->groups, SCALE_FMT_PLAIN},
              {"inproj", "in-projection columns", s->d_in_proj, SCALE_FMT_PLAIN},
              {"weights", "projection weights", s->weight_params, SCALE_FMT_SI},
              {"tokens", "tokens per sequence", s->tokens, SCALE_FMT_PLAIN},
              {"seqs", "sequences", s->sequences, SCALE_FMT_PLAIN},
              {"chunks", "SSD chunks", s->chunks, SCALE_FMT_PLAIN},
              {"state", "state elements", s->state_elements, SCALE_FMT_SI},
              {"halo", "conv halo elements", s->halo_elements, SCALE_FMT_SI},
              {"ar", "forward AllReduces", s->tp_all_reduces, SCALE_FMT_PLAIN}};
  out->n = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    scale_hybrid_table_add(out, rows[i].key, rows[i].label, rows[i].v, "", rows[i].style);
  return out;
}

/** Appends the overlap rows of scale_hybrid_overlap_table(). */
static void add_overlap(scale_hybrid_table *out, double t_comp, double t_comm, const double *chunks,
                        int n) {
  scale_hybrid_table_add(out, "none", "no overlap",
                         scale_hybrid_overlap_s(SCALE_HYBRID_DEP_NONE, t_comp, t_comm, 1), "s",
                         SCALE_FMT_TIME);
  scale_hybrid_table_add(out, "weak", "weak dependency (ideal)",
                         scale_hybrid_overlap_s(SCALE_HYBRID_DEP_WEAK, t_comp, t_comm, 1), "s",
                         SCALE_FMT_TIME);
  for (int i = 0; i < n; i++) {
    double t = scale_hybrid_overlap_s(SCALE_HYBRID_DEP_STRONG, t_comp, t_comm, chunks[i]);
    char key[sizeof out->row[0].key];
    snprintf(key, sizeof key, "strong%.0f", chunks[i]);
    scale_hybrid_table_add(out, key, "strong, chunked", t, "s", SCALE_FMT_TIME);
    snprintf(key, sizeof key, "exposed%.0f", chunks[i]);
    scale_hybrid_table_add(out, key, "exposed", t - t_comp, "s", SCALE_FMT_TIME);
  }
  scale_hybrid_table_add(out, "exposed_none", "exposed, no overlap", t_comm, "s", SCALE_FMT_TIME);
}

scale_hybrid_table *scale_hybrid_overlap_table(double t_comp, double t_comm, const double *chunks,
                                               int n, scale_hybrid_table *out) {
  out->n = 0;
  add_overlap(out, t_comp, t_comm, chunks, n);
  return out;
}

scale_hybrid_table *scale_hybrid_tp_overlap_table(const scale_model *model, const scale_chip *chip,
                                                  double tp, double s, const double *chunks, int n,
                                                  scale_hybrid_table *out) {
  double comp, comm;
  scale_hybrid_tp_layer_fwd_s(model, chip, tp, s, &comp, &comm);
  out->n = 0;
  scale_hybrid_table_add(out, "comp", "compute at peak", comp, "s", SCALE_FMT_TIME);
  scale_hybrid_table_add(out, "comm", "two AllReduces over one link", comm, "s", SCALE_FMT_TIME);
  add_overlap(out, comp, comm, chunks, n);
  return out;
}

scale_hybrid_table *scale_hybrid_zero_table(const scale_precision *prec, double n_params,
                                            double n_devices, scale_hybrid_table *out) {
  out->n = 0;
  for (int z = 0; z <= 3; z++) {
    char key[sizeof out->row[0].key];
    snprintf(key, sizeof key, "s%d", z);
    scale_hybrid_table_add(out, key, "ZeRO paper example",
                           scale_train_zero_bytes_per_chip(prec, n_params, z, n_devices, NULL), "B",
                           SCALE_FMT_SI);
  }
  return out;
}

scale_hybrid_table *scale_hybrid_guide_table(const scale_hybrid_guide *g, scale_hybrid_table *out) {
  const scale_hybrid_layout *l = &g->layout;
  out->n = 0;
  scale_hybrid_table_add_layout(out, NULL, l->dp, l->pp, l->tp, l->cp);
  scale_hybrid_table_add(out, "mem", "memory of the pick", g->memory.total_bytes, "B",
                         SCALE_FMT_SI);
  for (int r = 0; r < SCALE_HYBRID_RULE_COUNT; r++) {
    const char *name = scale_hybrid_rule_name((scale_hybrid_rule)r);
    const scale_hybrid_rule_eval *e = &g->rule[r];
    /* the memory rules compare bytes; the others degrees, a split kind or tokens */
    const char *unit =
        r == SCALE_HYBRID_RULE_FITS_DP || r == SCALE_HYBRID_RULE_SMALLEST_SPLIT ? "B" : "";
    char key[sizeof out->row[0].key], label[SCALE_HYBRID_LABEL_MAX];
    snprintf(key, sizeof key, "%s.lhs", name);
    snprintf(label, sizeof label, "%s: left side", name);
    scale_hybrid_table_add(out, key, label, e->lhs, unit, SCALE_FMT_SI);
    snprintf(key, sizeof key, "%s.rhs", name);
    snprintf(label, sizeof label, "%s: right side", name);
    scale_hybrid_table_add(out, key, label, e->rhs, unit, SCALE_FMT_SI);
    /* the relation the two sides are in, so a rule that fails reads as failing (the split
     * kind is a comparison of kinds, shown as "vs" by the page) */
    if (r == SCALE_HYBRID_RULE_SPLIT_KIND) continue;
    snprintf(key, sizeof key, "%s.rel", name);
    snprintf(label, sizeof label, "%s: holds (1 yes)", name);
    scale_hybrid_table_add_text(out, key, label, e->holds ? 1.0 : 0.0, e->holds ? "≤" : ">");
  }
  return out;
}

scale_hybrid_table *scale_hybrid_cp_traffic_table(const scale_model *mamba, const char *mamba_name,
                                                  const scale_model *attn, const char *attn_name,
                                                  double cp, const double *seqs, int n,
                                                  scale_dtype dtype, scale_hybrid_table *out) {
  out->n = 0;
  for (int i = 0; i < n; i++) {
    double s = seqs[i], k = s / 1024;
    double mb = scale_hybrid_mamba2_fwd_bytes(mamba, SCALE_HYBRID_CP, cp, 1, s, dtype);
    double at = scale_hybrid_attention_fwd_bytes(attn, SCALE_HYBRID_CP, cp, 1, s, dtype);
    double tp = scale_hybrid_mamba2_fwd_bytes(mamba, SCALE_HYBRID_TP, cp, 1, s, dtype);
    char key[sizeof out->row[0].key], label[SCALE_HYBRID_LABEL_MAX];
    snprintf(key, sizeof key, "mcp.s%.0fk", k);
    snprintf(label, sizeof label, "%s CP %.0f", mamba_name, cp);
    scale_hybrid_table_add(out, key, label, mb, "B", SCALE_FMT_SI);
    snprintf(key, sizeof key, "acp.s%.0fk", k);
    snprintf(label, sizeof label, "%s CP %.0f", attn_name, cp);
    scale_hybrid_table_add(out, key, label, at, "B", SCALE_FMT_SI);
    snprintf(key, sizeof key, "cpratio.s%.0fk", k);
    scale_hybrid_table_add(out, key, "attention over Mamba", at / mb, "", SCALE_FMT_PLAIN);
    snprintf(key, sizeof key, "mtp.s%.0fk", k);
    snprintf(label, sizeof label, "%s TP %.0f", mamba_name, cp);
    scale_hybrid_table_add(out, key, label, tp, "B", SCALE_FMT_SI);
  }
  return out;
}

scale_hybrid_table *scale_hybrid_ssd_table(const scale_model *model, const char *key, double s,
                                           scale_hybrid_table *out) {
  double ssd = scale_transformer_ssd_flops(model, 1, s, false, SCALE_PASS_FORWARD);
  double proj = scale_transformer_mamba2_projection_flops(model, s, SCALE_PASS_FORWARD);
  double naive = scale_transformer_ssd_flops(model, 1, s, true, SCALE_PASS_FORWARD);
  char k[sizeof out->row[0].key];
  out->n = 0;
  snprintf(k, sizeof k, "ssd.%s.share", key);
  scale_hybrid_table_add(out, k, "SSD over projections", ssd / proj, "", SCALE_FMT_PLAIN);
  snprintf(k, sizeof k, "ssd.%s.naive", key);
  scale_hybrid_table_add(out, k, "naive recurrence over scan", naive / ssd, "", SCALE_FMT_PLAIN);
  snprintf(k, sizeof k, "act.%s", key);
  scale_hybrid_table_add(out, k, "activations per layer",
                         scale_transformer_layer_activation_bytes(model, 1, s, 1, 1, false), "B",
                         SCALE_FMT_SI);
  return out;
}

scale_hybrid_table *scale_hybrid_case_table(const scale_chip *chip, double n_chips, double gbs,
                                            double s, scale_hybrid_table *out) {
  out->n = 0;
  scale_hybrid_table_add(out, "hw.flops", "910B cube peak (bf16)",
                         scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16), "FLOP/s", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "hw.hbm", "HBM per NPU (as the paper states it)", chip->hbm_bytes,
                         "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "hw.hbm_bw", "HBM bandwidth", chip->hbm_bytes_per_s, "B/s",
                         SCALE_FMT_SI);
  scale_hybrid_table_add(out, "hw.egress", "HCCS egress per NPU (one way)",
                         chip->nvlink_bytes_per_s, "B/s", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "hw.peer", "one direct HCCS link (one way)",
                         scale_hybrid_peer_bytes_per_s(chip), "B/s", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "hw.chips", "NPUs", n_chips, "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "case.gbs", "global batch", gbs, "sequences", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "case.seq", "sequence length", s, "tokens", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "case.tokens", "tokens per step", gbs * s, "tokens", SCALE_FMT_PLAIN);
  return out;
}
