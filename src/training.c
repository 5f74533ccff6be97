/* training.c — parallel layouts for training and their cost (training.h; book
 * ch. 5-6). */
#include "scale/training.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "scale/gpu.h"
#include "scale/memory.h"

/* ==== small helpers =========================================================================== */

static bool pos(double x) { return isfinite(x) && x > 0.0; }
static bool nonneg(double x) { return isfinite(x) && x >= 0.0; }
static bool degree_ok(double x) { return isfinite(x) && x >= 1.0 && x == floor(x); }
static double c64(int64_t v) { return (double)v; }

/* Whether integer-valued doubles satisfy b | a. */
static bool divides(double b, double a) { return b >= 1.0 && scale_fmod_zero(a, b); }

/* ==== names =================================================================================== */

static const char *const dim_names[SCALE_TRAIN_DIM_COUNT] = {"dp", "fsdp", "tp", "pp", "ep", "cp"};
static const char *const link_names[SCALE_TRAIN_LINK_COUNT] = {"ici", "nvlink", "dcn"};
static const char *const cp_names[SCALE_CP_COUNT] = {"ring", "ulysses", "allgather"};
static const char *const comm_names[SCALE_TRAIN_COMM_COUNT] = {
    "fsdp-all-gather", "fsdp-reduce-scatter", "dp-all-reduce", "tp-all-gather", "tp-reduce-scatter",
    "pp-send",         "ep-all-to-all",       "cp-attention",  "cp-all-reduce"};
static const char *const bound_names[SCALE_TRAIN_BOUND_COUNT] = {"compute", "comms", "memory"};
static const char *const remat_names[SCALE_REMAT_COUNT] = {"none", "block", "matmuls", "selective"};

const char *scale_train_dim_name(scale_train_dim dim) {
  return (unsigned)dim < SCALE_TRAIN_DIM_COUNT ? dim_names[dim] : "?";
}
const char *scale_train_link_name(scale_train_link link) {
  return (unsigned)link < SCALE_TRAIN_LINK_COUNT ? link_names[link] : "?";
}
const char *scale_cp_kind_name(scale_cp_kind kind) {
  return (unsigned)kind < SCALE_CP_COUNT ? cp_names[kind] : "?";
}
const char *scale_train_comm_name(scale_train_comm comm) {
  return (unsigned)comm < SCALE_TRAIN_COMM_COUNT ? comm_names[comm] : "?";
}
const char *scale_train_bound_name(scale_train_bound bound) {
  return (unsigned)bound < SCALE_TRAIN_BOUND_COUNT ? bound_names[bound] : "?";
}
const char *scale_train_remat_name(scale_remat remat) {
  return (unsigned)remat < SCALE_REMAT_COUNT ? remat_names[remat] : "?";
}

scale_status scale_cp_kind_parse(const char *text, scale_cp_kind *out) {
  if (text == NULL || out == NULL) return SCALE_ERR_INVALID;
  for (int i = 0; i < SCALE_CP_COUNT; i++) {
    if (strcasecmp(text, cp_names[i]) == 0) {
      *out = (scale_cp_kind)i;
      return SCALE_OK;
    }
  }
  return SCALE_ERR_INVALID;
}

scale_status scale_train_remat_parse(const char *text, scale_remat *out) {
  if (text == NULL || out == NULL) return SCALE_ERR_INVALID;
  if (strcasecmp(text, "none") == 0) {
    *out = SCALE_REMAT_NONE;
  } else if (strcasecmp(text, "block") == 0 || strcasecmp(text, "full") == 0) {
    *out = SCALE_REMAT_BLOCK;
  } else if (strcasecmp(text, "matmuls") == 0 || strcasecmp(text, "big-matmuls") == 0) {
    *out = SCALE_REMAT_BIG_MATMULS;
  } else if (strcasecmp(text, "selective") == 0) {
    *out = SCALE_REMAT_SELECTIVE;
  } else {
    return SCALE_ERR_INVALID;
  }
  return SCALE_OK;
}

/* ==== layout and problem ====================================================================== */

double scale_train_stage_layers(const scale_model *model, double pp) {
  if (!model || !(pp >= 1.0)) return NAN;
  return floor((double)model->n_layers / pp);
}

double scale_train_remat_layers(const scale_model *model, const scale_layout *layout) {
  if (!layout) return NAN;
  return round(layout->remat_frac * scale_train_stage_layers(model, layout->pp));
}

scale_layout scale_layout_default(void) {
  scale_layout l;
  memset(&l, 0, sizeof l);
  l.dp = l.fsdp = l.tp = l.pp = l.ep = l.cp = 1.0;
  l.zero_stage = 3;
  l.sp = false;
  l.n_microbatches = 1.0;
  l.schedule = SCALE_PP_1F1B;
  l.n_virtual_stages = 1.0;
  l.cp_kind = SCALE_CP_RING;
  l.remat = SCALE_REMAT_BLOCK;
  l.remat_frac = 1.0;
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  l.precision = prec;
  l.act_dtype = SCALE_DTYPE_BF16;
  for (int i = 0; i < SCALE_TRAIN_DIM_COUNT; i++) {
    l.link[i] = SCALE_TRAIN_LINK_ICI;
    l.n_axes[i] = 1.0;
  }
  return l;
}

bool scale_layout_on_torus(const scale_layout *layout) {
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    if (layout->link[d] == SCALE_TRAIN_LINK_ICI) return true;
  return false;
}

double scale_layout_n_chips(const scale_layout *layout) {
  if (layout == NULL) return NAN;
  return layout->dp * layout->fsdp * layout->tp * layout->pp * layout->cp;
}

scale_train_problem scale_train_problem_make(const scale_model *model, const scale_chip *chip,
                                             double n_chips, double batch_tokens, double seq_len) {
  scale_train_problem p;
  memset(&p, 0, sizeof p);
  p.model = model;
  p.chip = chip;
  p.n_chips = n_chips;
  p.batch_tokens = batch_tokens;
  p.seq_len = seq_len;
  p.efficiency_frac = 1.0;
  p.compute_dtype = SCALE_DTYPE_BF16;
  p.mfu_counts_attention = false;
  p.train_tokens = 0.0;
  return p;
}

/* Book ch. 5 "Scaling Across Pods": the model-parallel and FSDP dimensions fill
 * the fast domain (an ICI slice up to a pod, or an NVLink domain), pure DP goes
 * over DCN. */
/* The dimensions that take chips, innermost first: the order in which they fill the fast
 * domain (scale_train_layout_map) and in which each strides over the ones inside it
 * (tree_bandwidth). EP reuses the data-parallel chips. */
static const scale_train_dim map_order[] = {SCALE_TRAIN_DIM_TP, SCALE_TRAIN_DIM_CP,
                                            SCALE_TRAIN_DIM_FSDP, SCALE_TRAIN_DIM_PP,
                                            SCALE_TRAIN_DIM_DP};
#define N_MAP_ORDER (sizeof map_order / sizeof map_order[0])

/* A layout's degree of dimension 'd'. */
static double degree_of(const scale_layout *l, scale_train_dim d) {
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  return (unsigned)d < SCALE_TRAIN_DIM_COUNT ? degree[d] : (double)NAN;
}

void scale_train_layout_map(const scale_chip *chip, double n_chips, scale_layout *layout) {
  if (chip == NULL || layout == NULL) return;
  bool gpu = chip->kind == SCALE_HW_GPU;
  double domain;
  if (gpu) {
    domain = isfinite(chip->nvlink_domain_size) ? chip->nvlink_domain_size : 1.0;
  } else {
    double pod = scale_chip_pod_chips(chip);
    domain = isfinite(pod) ? fmin(pod, n_chips) : n_chips;
  }
  scale_train_link fast = gpu ? SCALE_TRAIN_LINK_NVLINK : SCALE_TRAIN_LINK_ICI;
  const double degree[SCALE_TRAIN_DIM_COUNT] = {layout->dp, layout->fsdp, layout->tp,
                                                layout->pp, layout->ep,   layout->cp};
  double inner = 1.0;
  for (size_t i = 0; i < N_MAP_ORDER; i++) {
    scale_train_dim d = map_order[i];
    inner *= degree[d];
    layout->link[d] =
        (degree[d] <= 1.0 || inner <= domain * (1.0 + 1e-9)) ? fast : SCALE_TRAIN_LINK_DCN;
    layout->n_axes[d] = 1.0;
  }
  /* EP's ranks are etp apart: the expert grid (etp x ep) folded over the stage. */
  double ep_span = layout->ep * (layout->etp >= 1.0 ? layout->etp : 1.0);
  layout->link[SCALE_TRAIN_DIM_EP] =
      (layout->ep <= 1.0 || ep_span <= domain * (1.0 + 1e-9)) ? fast : SCALE_TRAIN_LINK_DCN;
  layout->n_axes[SCALE_TRAIN_DIM_EP] = 1.0;
  if (gpu) return;

  /* Share the torus axes among the ICI dimensions that move data (degree > 1).
   */
  double axes = isfinite(chip->ici_n_axes) && chip->ici_n_axes >= 1.0 ? chip->ici_n_axes : 1.0;
  int k = 0;
  int largest = -1;
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    if (d == SCALE_TRAIN_DIM_EP || d == SCALE_TRAIN_DIM_PP)
      continue; /* EP reuses the DP axes; PP is p2p */
    if (degree[d] > 1.0 && layout->link[d] == SCALE_TRAIN_LINK_ICI) {
      k++;
      if (largest < 0 || degree[d] > degree[largest]) largest = d;
    }
  }
  if (k == 0) return;
  if ((double)k >= axes) return; /* one axis each */
  layout->n_axes[largest] = axes - (double)(k - 1);
}

/* ==== validation ============================================================================== */

static scale_status invalid(scale_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fills diag (if any) with a one-line message and returns SCALE_ERR_INVALID. */
static scale_status invalid(scale_diag *diag, const char *fmt, ...) {
  if (diag == NULL) return SCALE_ERR_INVALID;
  diag->file[0] = '\0';
  diag->line = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
  return SCALE_ERR_INVALID;
}

/* Chunks a pipeline stage holds under the layout's schedule (pipeline.h); 1 without one. */
static double layout_chunks(const scale_layout *l) {
  return l->pp > 1.0 ? scale_pipeline_chunks(l->schedule, l->n_virtual_stages) : 1.0;
}

/* The pipeline's split units: the layers, and the embedding and loss when counted. */
static double layout_units(const scale_layout *l, double layers) {
  return layers + (l->pp > 1.0 && l->pp_embed_loss ? 2.0 : 0.0);
}

/* A pipeline's schedule against the model: its chunks fit the layers (with the embedding and
 * the loss as a layer each when counted so); DualPipe's two directions halve both the stages
 * and the microbatches. Fewer microbatches than stages is a pipeline that never fills: valid,
 * priced by its bubble (Megatron runs it). */
static scale_status validate_schedule(const scale_layout *layout, double layers, scale_diag *diag) {
  if ((unsigned)layout->schedule >= SCALE_PP_COUNT)
    return invalid(diag, "unknown pipeline schedule");
  if (layout->schedule == SCALE_PP_INTERLEAVED && !degree_ok(layout->n_virtual_stages))
    return invalid(diag, "virtual stages %g must be an integer >= 1", layout->n_virtual_stages);
  double chunks = layout_chunks(layout);
  double units = layers + (layout->pp_embed_loss ? 2.0 : 0.0);
  if (chunks * layout->pp > units)
    return invalid(diag, "pp x chunks = %g exceed the model's %g layers%s", chunks * layout->pp,
                   units, layout->pp_embed_loss ? " with the embedding and loss stages"
                                                : " (--pp-embed-loss counts those two)");
  if (layout->schedule == SCALE_PP_DUALPIPE &&
      (fmod(layout->pp, 2.0) != 0.0 || fmod(layout->n_microbatches, 2.0) != 0.0))
    return invalid(diag, "dualpipe needs an even pp and microbatches (pp %g, m %g)", layout->pp,
                   layout->n_microbatches);
  return SCALE_OK;
}

/* The problem's own rules (the layout's come after). */
static scale_status validate_problem(const scale_train_problem *problem, scale_diag *diag) {
  const scale_chip *chip = problem->chip;
  if (!pos(problem->n_chips) || problem->n_chips != floor(problem->n_chips))
    return invalid(diag, "chip count %g must be a positive integer", problem->n_chips);
  if (!pos(problem->batch_tokens))
    return invalid(diag, "batch %g tokens must be positive", problem->batch_tokens);
  if (!pos(problem->seq_len) || problem->seq_len != floor(problem->seq_len))
    return invalid(diag, "sequence length %g must be a positive integer", problem->seq_len);
  if (problem->batch_tokens < problem->seq_len)
    return invalid(diag, "batch of %g tokens is shorter than one sequence of %g",
                   problem->batch_tokens, problem->seq_len);
  if (!pos(problem->efficiency_frac) || problem->efficiency_frac > 1.0)
    return invalid(diag, "efficiency %g must be in (0, 1]", problem->efficiency_frac);
  if (!pos(scale_chip_flops_per_s(chip, problem->compute_dtype)))
    return invalid(diag, "the chip has no matmul rate for the compute dtype");
  if (!nonneg(problem->train_tokens))
    return invalid(diag, "token budget %g must be >= 0", problem->train_tokens);
  return SCALE_OK;
}

/* The layout's rules, tp's against the model unless 'tp_checked'. */
static scale_status validate_layout(const scale_train_problem *problem, const scale_layout *layout,
                                    bool tp_checked, scale_diag *diag) {
  const scale_model *m = problem->model;
  const scale_chip *chip = problem->chip;
  const double degree[SCALE_TRAIN_DIM_COUNT] = {layout->dp, layout->fsdp, layout->tp,
                                                layout->pp, layout->ep,   layout->cp};
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    if (!degree_ok(degree[d]))
      return invalid(diag, "%s %g must be an integer >= 1", dim_names[d], degree[d]);
  double used = scale_layout_n_chips(layout);
  if (used != problem->n_chips)
    return invalid(diag, "dp x fsdp x tp x pp x cp = %g, not the %g chips of the run", used,
                   problem->n_chips);
  if (layout->fsdp > 1.0 && (layout->zero_stage < 1 || layout->zero_stage > 3))
    return invalid(diag, "ZeRO stage %d must be 1, 2 or 3", layout->zero_stage);

  bool mamba = m->arch == SCALE_ARCH_MAMBA2;
  double tp = layout->tp;
  scale_status tp_status = tp_checked ? SCALE_OK : scale_transformer_tp_check(m, tp, diag);
  if (tp_status) return tp_status;

  double layers = c64(m->n_layers);
  if (layout->pp > layers)
    return invalid(diag, "pp %g is deeper than the model's %g layers", layout->pp, layers);
  if (!degree_ok(layout->n_microbatches))
    return invalid(diag, "microbatches %g must be an integer >= 1", layout->n_microbatches);
  if (layout->pp > 1.0) {
    scale_status st = validate_schedule(layout, layers, diag);
    if (st) return st;
  }

  if (layout->ep > 1.0) {
    if (!scale_model_is_moe(m))
      return invalid(diag, "ep %g on a dense model (it has no experts to split)", layout->ep);
    if (!divides(layout->ep, c64(m->n_experts)))
      return invalid(diag, "ep %g does not divide the %g experts", layout->ep, c64(m->n_experts));
    /* the expert grid (etp x ep) is folded over the stage's tp x cp x dp ranks */
    double stage = layout->dp * layout->fsdp * layout->tp * layout->cp;
    double etp = layout->etp >= 1.0 ? layout->etp : 1.0;
    if (!divides(etp, layout->tp))
      return invalid(diag, "etp %g does not divide tp %g", etp, layout->tp);
    if (!divides(layout->ep * etp, stage))
      return invalid(diag, "ep x etp = %g does not divide the dp x fsdp x tp x cp = %g chips "
                     "of a stage", layout->ep * etp, stage);
  }

  if (layout->cp > 1.0) {
    if ((unsigned)layout->cp_kind >= SCALE_CP_COUNT)
      return invalid(diag, "unknown context-parallel kind");
    if (!divides(layout->cp, problem->seq_len))
      return invalid(diag, "cp %g does not divide the sequence length %g", layout->cp,
                     problem->seq_len);
    if (layout->cp_kind == SCALE_CP_ULYSSES && !mamba && !divides(layout->cp, c64(m->n_heads) / tp))
      return invalid(diag, "Ulysses cp %g does not divide the %g query heads per TP shard",
                     layout->cp, c64(m->n_heads) / tp);
  }

  double n_seq = floor(problem->batch_tokens / problem->seq_len);
  double dpf = layout->dp * layout->fsdp;
  if (dpf > n_seq)
    return invalid(diag,
                   "dp x fsdp = %g exceeds the %g sequences of the batch (split sequences "
                   "with cp)",
                   dpf, n_seq);
  if (layout->n_microbatches > n_seq / dpf)
    return invalid(diag, "%g microbatches exceed the %g sequences per data-parallel shard",
                   layout->n_microbatches, n_seq / dpf);

  if ((unsigned)layout->remat >= SCALE_REMAT_COUNT) return invalid(diag, "unknown remat policy");
  if (!(layout->remat_frac > 0.0 && layout->remat_frac <= 1.0))
    return invalid(diag, "the share of layers recomputed must be in (0, 1], not %g",
                   layout->remat_frac);
  if (layout->remat_frac < 1.0 && layout->remat != SCALE_REMAT_BLOCK)
    return invalid(diag, "recomputing a share of the layers needs block (full) remat");
  if (!isfinite(scale_dtype_bytes(layout->act_dtype)) ||
      !isfinite(scale_transformer_train_state_bytes(&layout->precision, 1.0)))
    return invalid(diag, "invalid dtype in the layout's precision");

  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    if (degree[d] <= 1.0) continue;
    scale_train_link link = layout->link[d];
    if ((unsigned)link >= SCALE_TRAIN_LINK_COUNT)
      return invalid(diag, "unknown link for a dimension");
    if (link == SCALE_TRAIN_LINK_ICI && !pos(chip->ici_link_bytes_per_s))
      return invalid(diag, "the chip has no ICI links for %s %g (map it to nvlink or dcn)",
                     dim_names[d], degree[d]);
    if (link == SCALE_TRAIN_LINK_NVLINK && !pos(chip->nvlink_bytes_per_s))
      return invalid(diag, "the chip has no NVLink for a dimension of %g", degree[d]);
    if (link == SCALE_TRAIN_LINK_DCN && !pos(chip->dcn_bytes_per_s))
      return invalid(diag, "the chip has no DCN bandwidth for a dimension of %g", degree[d]);
    if (link == SCALE_TRAIN_LINK_ICI && !(layout->n_axes[d] >= 1.0))
      return invalid(diag, "a dimension of %g spans %g ICI axes (need >= 1)", degree[d],
                     layout->n_axes[d]);
  }
  return SCALE_OK;
}

scale_status scale_train_validate(const scale_train_problem *problem, const scale_layout *layout,
                                  scale_diag *diag) {
  if (problem == NULL || layout == NULL || problem->model == NULL || problem->chip == NULL)
    return invalid(diag, "missing model, hardware or layout");
  scale_status st = validate_problem(problem, diag);
  return st ? st : validate_layout(problem, layout, false, diag);
}

bool scale_train_problem_ok(const scale_train_problem *problem) {
  return problem && problem->model && problem->chip && validate_problem(problem, NULL) == SCALE_OK;
}

bool scale_train_candidate_ok(const scale_train_problem *problem, const scale_layout *layout) {
  return validate_layout(problem, layout, true, NULL) == SCALE_OK;
}

/* ==== pieces ================================================================================== */

double scale_train_zero_bytes_per_chip(const scale_precision *prec, double n_params, int stage,
                                       double n_shards, double out[3]) {
  double w = scale_transformer_weight_bytes(prec, n_params);
  double g = scale_transformer_grad_bytes(prec, n_params);
  double o = scale_transformer_optimizer_bytes(prec, n_params);
  if (stage < 0 || stage > 3 || !(n_shards >= 1.0) || !isfinite(n_shards) || !isfinite(w + g + o)) {
    if (out) out[0] = out[1] = out[2] = NAN;
    return NAN;
  }
  if (stage >= 1) o /= n_shards;
  if (stage >= 2) g /= n_shards;
  if (stage >= 3) w /= n_shards;
  if (out) {
    out[0] = w;
    out[1] = g;
    out[2] = o;
  }
  return w + g + o;
}

/* ==== thresholds ============================================================================== */

double scale_train_dp_critical_batch(double flops_per_s, double link_bytes_per_s, double n_axes) {
  if (!pos(flops_per_s) || !pos(link_bytes_per_s) || !(n_axes >= 1.0) || !isfinite(n_axes))
    return NAN;
  return flops_per_s / (2.0 * link_bytes_per_s * n_axes);
}

double scale_train_tp_max_degree(double d_ff, double flops_per_s, double link_bytes_per_s,
                                 double n_axes_tp) {
  if (!pos(d_ff) || !pos(flops_per_s) || !pos(link_bytes_per_s) || !pos(n_axes_tp)) return NAN;
  return n_axes_tp * d_ff * 2.0 * link_bytes_per_s / flops_per_s;
}

double scale_train_fsdp_tp_x_opt(double batch_tokens, double d_ff, double n_chips,
                                 double n_axes_fsdp, double n_axes_tp) {
  if (!pos(batch_tokens) || !pos(d_ff) || !pos(n_chips) || !pos(n_axes_fsdp) || !pos(n_axes_tp))
    return NAN;
  return sqrt(batch_tokens / d_ff * (n_axes_fsdp / n_axes_tp) * n_chips);
}

double scale_train_fsdp_tp_critical_batch(double d_ff, double flops_per_s, double link_bytes_per_s,
                                          double n_axes_fsdp, double n_axes_tp) {
  if (!pos(d_ff) || !pos(flops_per_s) || !pos(link_bytes_per_s) || !pos(n_axes_fsdp) ||
      !pos(n_axes_tp))
    return NAN;
  double alpha = flops_per_s / (2.0 * link_bytes_per_s);
  return alpha * alpha / (n_axes_fsdp * n_axes_tp * d_ff);
}

/* [listing:mlp_times] */
scale_train_mlp_times scale_train_book_mlp_times(double b, double d, double f, double x, double y,
                                                 double m_x, double m_y, double flops_per_s,
                                                 double link_bytes_per_s) {
  scale_train_mlp_times t = {NAN, NAN, NAN, NAN};
  if (!pos(b) || !pos(d) || !pos(f) || !(x >= 1.0) || !(y >= 1.0) || !pos(m_x) || !pos(m_y) ||
      !pos(flops_per_s) || !pos(link_bytes_per_s) || !isfinite(x * y))
    return t;
  double w_ici = 2.0 * link_bytes_per_s; /* both directions of a link */
  t.math_s = 4.0 * b * d * f / (x * y * flops_per_s);
  t.fsdp_s = x > 1.0 ? 4.0 * d * f / (y * w_ici * m_x) : 0.0;
  t.tp_s = y > 1.0 ? 4.0 * b * d / (x * w_ici * m_y) : 0.0;
  t.comms_s = fmax(t.fsdp_s, t.tp_s);
  return t;
}
/* [/listing:mlp_times] */

double scale_train_dcn_critical_batch(double flops_per_s, double dcn_bytes_per_s) {
  if (!pos(flops_per_s) || !pos(dcn_bytes_per_s)) return NAN;
  return flops_per_s / dcn_bytes_per_s;
}

double scale_train_moe_critical_batch(double dense_critical_batch, double n_experts,
                                      double n_active) {
  if (!nonneg(dense_critical_batch) || !(n_active >= 1.0) || !(n_experts >= n_active) ||
      !isfinite(n_experts))
    return NAN;
  return dense_critical_batch * n_experts / n_active;
}

double scale_train_max_pure_dp_params(double hbm_bytes, const scale_precision *prec) {
  if (!nonneg(hbm_bytes)) return NAN;
  double per =
      scale_transformer_weight_bytes(prec, 1.0) + scale_transformer_optimizer_bytes(prec, 1.0);
  if (!pos(per)) return NAN;
  return hbm_bytes / per;
}

double scale_train_max_dp_chips(double batch_tokens, double critical_batch) {
  if (!nonneg(batch_tokens) || !pos(critical_batch)) return NAN;
  return batch_tokens / critical_batch;
}

double scale_train_time_s(double total_flops, double n_chips, double flops_per_s, double mfu) {
  if (!nonneg(total_flops) || !pos(n_chips) || !pos(flops_per_s) || !pos(mfu)) return NAN;
  return total_flops / (n_chips * flops_per_s * mfu);
}

double scale_train_min_chips_for_memory(double total_bytes, double hbm_bytes) {
  if (!nonneg(total_bytes) || !pos(hbm_bytes)) return NAN;
  return ceil(total_bytes / hbm_bytes);
}

/* ==== evaluation ============================================================================== */

/* Bandwidth of a collective of dimension 'd' [bytes/s] (NaN if the chip lacks
 * the link). */
static double link_bandwidth(const scale_chip *chip, const scale_layout *l, scale_train_dim d) {
  switch (l->link[d]) {
  case SCALE_TRAIN_LINK_ICI: /* ch. 3: W_ici bidirectional, times the axes
                                spanned */
    return 2.0 * chip->ici_link_bytes_per_s * l->n_axes[d];
  case SCALE_TRAIN_LINK_NVLINK: /* ch. 12: one-way NVLink egress of a GPU */
    return chip->nvlink_bytes_per_s;
  case SCALE_TRAIN_LINK_DCN: /* ch. 5: per-chip DCN egress */
    return chip->dcn_bytes_per_s;
  default:
    return NAN;
  }
}

/* On a GPU cluster with a fat tree (hardware net_levels), the AllGather-type collectives of
 * dimension 'd' (TP, CP, FSDP, DP) run over the tree: its group of X GPUs strides over the
 * product Y of the dimensions mapped inside it (tp, cp, fsdp, pp: innermost first, as
 * scale_train_layout_map() places them), and gpu.h gives the time of gathering the whole
 * array (Y chip shards) over it. The bandwidth that turns the chip's own shard V into that
 * time is V / T = 1 / (Y x T(1 byte)) (ch. 12: 412.9 GB/s for DP over a 1024-GPU SuperPod, the
 * node egress of 400 GB/s shared by 8 GPUs once the inner dimensions span whole nodes).
 * NaN when the chip has no tree or the group is larger than it (callers fall back). */
static double tree_bandwidth(const scale_chip *chip, const scale_layout *l, scale_train_dim d) {
  if (chip->kind != SCALE_HW_GPU || chip->n_net_levels < 1) return NAN;
  if (d == SCALE_TRAIN_DIM_PP || d == SCALE_TRAIN_DIM_EP) return NAN; /* not gathers */
  double inner = 1.0, degree = degree_of(l, d);
  for (size_t i = 0; i < N_MAP_ORDER && map_order[i] != d; i++)
    inner *= degree_of(l, map_order[i]);
  if (degree <= 1.0) return NAN;
  double t = scale_gpu_all_gather_s(chip, degree, inner, 1.0);
  return t > 0.0 ? 1.0 / (inner * t) : (double)NAN;
}

/* Bandwidth of a point-to-point pipeline send: one link, one way. */
static double send_bandwidth(const scale_chip *chip, const scale_layout *l) {
  switch (l->link[SCALE_TRAIN_DIM_PP]) {
  case SCALE_TRAIN_LINK_ICI:
    return chip->ici_link_bytes_per_s;
  case SCALE_TRAIN_LINK_NVLINK:
    return chip->nvlink_bytes_per_s;
  case SCALE_TRAIN_LINK_DCN:
    return chip->dcn_bytes_per_s;
  default:
    return NAN;
  }
}

/* Book volume of an AllToAll in which each of 'n' chips holds 'chip_bytes': on
 * an ICI ring the whole array n V over 4 (ch. 3 summary table: AllToAll costs a
 * quarter of an AllGather); through a switch or a NIC, the (n-1)/n of its share
 * that leaves the chip. */
static double all_to_all_bytes(scale_train_link link, double n, double chip_bytes) {
  if (n <= 1.0) return 0.0;
  if (link == SCALE_TRAIN_LINK_ICI) return n * chip_bytes / 4.0;
  return (n - 1.0) / n * chip_bytes;
}

static void set_comm(scale_train_comm_cost *c, scale_train_dim dim, scale_train_link link,
                     double bw, double fwd_layer, double bwd_layer, double step) {
  c->dim = dim;
  c->link = link;
  c->bandwidth_bytes_per_s = bw;
  c->fwd_bytes_per_layer = fwd_layer;
  c->bwd_bytes_per_layer = bwd_layer;
  c->fwd_time_per_layer_s = fwd_layer > 0.0 ? fwd_layer / bw : 0.0;
  c->bwd_time_per_layer_s = bwd_layer > 0.0 ? bwd_layer / bw : 0.0;
  c->step_bytes = step;
  c->step_time_s = step > 0.0 ? step / bw : 0.0;
}

static void fill_nan(scale_train_result *out) {
  out->tokens_per_chip = out->microbatch_tokens = out->flops_per_chip = NAN;
  out->fwd_flops_per_layer = out->bwd_flops_per_layer = out->remat_flops_per_chip = NAN;
  out->compute_time_s = out->comms_time_s = out->total_comms_time_s = NAN;
  out->exposed_comms_time_s = out->bubble_frac = out->bubble_time_s = NAN;
  out->step_time_s = out->step_time_no_overlap_s = NAN;
  out->param_bytes = out->grad_bytes = out->optimizer_bytes = out->activation_bytes = NAN;
  out->gathered_weight_bytes = out->cp_buffer_bytes = out->overhead_bytes = NAN;
  out->memory_per_chip_bytes = NAN;
  out->hbm_bytes = out->memory_margin_bytes = NAN;
  out->model_flops_per_step = out->mfu = out->tokens_per_s = NAN;
  out->train_time_s = out->cost_usd = NAN;
  for (int i = 0; i < SCALE_TRAIN_LINK_COUNT + SCALE_TRAIN_DIM_COUNT; i++)
    out->link_time_s[i] = NAN;
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    scale_train_comm_cost *c = &out->comm[i];
    c->dim = SCALE_TRAIN_DIM_DP;
    c->link = SCALE_TRAIN_LINK_ICI;
    c->bandwidth_bytes_per_s = c->fwd_bytes_per_layer = c->bwd_bytes_per_layer = NAN;
    c->fwd_time_per_layer_s = c->bwd_time_per_layer_s = c->step_bytes = c->step_time_s = NAN;
  }
  out->fits = false;
  out->bound = SCALE_TRAIN_BOUND_COMPUTE;
  out->binding_comm = SCALE_TRAIN_COMM_FSDP_ALL_GATHER;
  out->reason = "invalid input";
}

static const char *comm_reason(scale_train_comm comm, scale_train_link link) {
  switch (comm) {
  case SCALE_TRAIN_COMM_FSDP_ALL_GATHER:
  case SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER:
    return link == SCALE_TRAIN_LINK_DCN
               ? "FSDP weight gathers over DCN outlast the matmuls: keep FSDP "
                 "inside the fast "
                 "domain"
               : "FSDP weight gathers and gradient scatters outlast the "
                 "matmuls: the per-chip "
                 "batch is below C / (W M_X)";
  case SCALE_TRAIN_COMM_DP_ALL_REDUCE:
    return link == SCALE_TRAIN_LINK_DCN
               ? "the gradient AllReduce over DCN outlasts the matmuls: the "
                 "batch per slice is "
                 "below C / W_dcn"
               : "the gradient AllReduce outlasts the matmuls: the per-chip "
                 "batch is below "
                 "C / (W M_X)";
  case SCALE_TRAIN_COMM_TP_ALL_GATHER:
  case SCALE_TRAIN_COMM_TP_REDUCE_SCATTER:
    return "tensor-parallel activation collectives outlast the matmuls: tp is "
           "above "
           "M_Y F W / C";
  case SCALE_TRAIN_COMM_PP_SEND:
    return "pipeline sends between stages outlast the matmuls";
  case SCALE_TRAIN_COMM_EP_ALL_TO_ALL:
    return "MoE token AllToAlls outlast the expert matmuls";
  case SCALE_TRAIN_COMM_CP_ATTENTION:
    return "context-parallel attention traffic outlasts the matmuls";
  case SCALE_TRAIN_COMM_CP_ALL_REDUCE:
    return "the gradient AllReduce over the context-parallel group outlasts "
           "the matmuls";
  default:
    return "communication outlasts the matmuls";
  }
}

/* Names the quantity that came out inf or NaN, and the input behind it, so a refusal never
 * blames the matmuls or the HBM for an overflow; NULL when every figure is finite. */
static const char *nonfinite_reason(const scale_train_result *r) {
  if (!isfinite(r->flops_per_chip))
    return "not finite: the FLOPs per chip overflow (batch tokens or model size out of range)";
  if (!isfinite(r->compute_time_s))
    return "not finite: the compute time (the chip's peak FLOP/s is out of range)";
  if (!isfinite(r->comms_time_s) || !isfinite(r->total_comms_time_s))
    return "not finite: the communication time (a link bandwidth or the bytes sent are out of "
           "range)";
  if (!isfinite(r->memory_per_chip_bytes))
    return "not finite: the memory per chip (batch tokens or model size out of range)";
  if (!isfinite(r->step_time_s) || !(r->step_time_s > 0))
    return "not finite: the step time (sizes or hardware rates out of range)";
  return NULL;
}

/* ==== the step model's job of a layout ======================================================== */

/* Network and bandwidth of a group of 'n' chips of dimension 'd', 'stride' apart, as the
 * layout maps it: on a TPU its ICI axes (both directions of each) or DCN; on a GPU the NVLink
 * domain or the fabric, priced as the step model prices a group that crosses nodes. A
 * pipeline send uses one link one way. */
static scale_step_link step_link(const scale_chip *chip, const scale_layout *l, scale_train_dim d,
                                 double stride, double n) {
  scale_step_link k;
  bool send = d == SCALE_TRAIN_DIM_PP;
  k.n_axes = 1.0;
  if (chip->kind == SCALE_HW_TPU) {
    if (l->link[d] == SCALE_TRAIN_LINK_DCN) {
      k.net = SCALE_STEP_NET_OUT;
      k.bytes_per_s = chip->dcn_bytes_per_s;
    } else {
      k.net = SCALE_STEP_NET_ICI;
      k.bytes_per_s = send ? chip->ici_link_bytes_per_s
                           : 2.0 * chip->ici_link_bytes_per_s * l->n_axes[d];
      /* its rings run along every axis the group spans, whatever bandwidth share it has */
      if (!send) k.n_axes = scale_step_torus_axes(chip, n, l->n_axes[d]);
    }
    return k;
  }
  double domain = chip->nvlink_domain_size;
  if (l->link[d] == SCALE_TRAIN_LINK_DCN && domain >= 1.0 && stride * n <= domain)
    stride = domain; /* pushed onto the fabric although it would fit: one member per node */
  k.net = scale_step_group_net(chip, stride, n, &k.bytes_per_s);
  if (send && k.net == SCALE_STEP_NET_OUT) k.bytes_per_s = chip->dcn_bytes_per_s;
  return k;
}

/* The share of the layers whose whole forward block remat reruns, collectives included:
 * remat_frac of them; 0 under the other policies, which rerun no collective. */
static double remat_share(const scale_layout *l) {
  return l->remat == SCALE_REMAT_BLOCK ? l->remat_frac : 0.0;
}

/* remat policy -> the recompute mode of practice: a whole block (full), or the attention core
 * (selective). The book's big-matmuls policy recomputes the same FLOPs as selective (the
 * non-weight matmuls), so it is timed as selective; its smaller memory is priced apart. */
static scale_recompute recompute_of(scale_remat remat) {
  switch (remat) {
  case SCALE_REMAT_NONE: return SCALE_RECOMPUTE_NONE;
  case SCALE_REMAT_BIG_MATMULS:
  case SCALE_REMAT_SELECTIVE: return SCALE_RECOMPUTE_SELECTIVE;
  default: return SCALE_RECOMPUTE_FULL;
  }
}

/* The step model's job for 'l': Megatron's data-parallel group is dp x fsdp with ZeRO over
 * fsdp; the ranks are ordered tp, cp, fsdp, pp, dp (pp outermost when it is on DCN), which
 * gives each group's stride. The layout's attention core, 16-bit activations. */
static void step_job_fields(const scale_train_problem *p, const scale_layout *l,
                            scale_step_job *j) {
  memset(j, 0, sizeof *j);
  const scale_chip *chip = p->chip;
  double n_seq = p->batch_tokens / p->seq_len, dpf = l->dp * l->fsdp;
  j->model = p->model;
  j->chip = chip;
  j->dp = dpf;
  j->tp = l->tp;
  j->pp = l->pp;
  j->cp = l->cp;
  j->ep = l->ep;
  j->etp = l->etp;
  j->capacity_factor = l->capacity_factor;
  j->zero = l->fsdp > 1.0 ? l->zero_stage : 0;
  j->fsdp = l->fsdp > 1.0 ? l->fsdp : 0.0;
  j->mbs = n_seq / (dpf * l->n_microbatches);
  j->vp = layout_chunks(l);
  j->schedule = l->pp > 1.0 ? l->schedule : SCALE_PP_1F1B;
  j->embed_loss_stages = l->pp > 1.0 && l->pp_embed_loss;
  j->recompute = recompute_of(l->remat);
  j->recompute_frac = l->remat == SCALE_REMAT_BLOCK ? l->remat_frac : 1.0;
  j->sp = l->sp && l->tp > 1.0;
  j->attention = l->unfused_attention ? SCALE_ATTENTION_UNFUSED : SCALE_ATTENTION_FLASH;
  j->tp_overlap = l->tp_overlap;
  j->gbs = n_seq;
  j->seq = p->seq_len;
  j->dtype = p->compute_dtype;
  j->ulysses = l->cp_kind == SCALE_CP_ULYSSES;
  j->cp_allgather = l->cp_kind == SCALE_CP_ALLGATHER;
  j->mapped = true;
}

/* The links of the step model's job for 'l' into j->link[]. */
static void step_links_of(const scale_chip *chip, const scale_layout *l, scale_step_job *j) {
  bool pp_out = l->pp > 1.0 && l->link[SCALE_TRAIN_DIM_PP] == SCALE_TRAIN_LINK_DCN;
  double tc = l->tp * l->cp;
  j->link[SCALE_STEP_COMM_TP] = step_link(chip, l, SCALE_TRAIN_DIM_TP, 1.0, l->tp);
  j->link[SCALE_STEP_COMM_CP] = step_link(chip, l, SCALE_TRAIN_DIM_CP, l->tp, l->cp);
  j->link[SCALE_STEP_COMM_FSDP] = step_link(chip, l, SCALE_TRAIN_DIM_FSDP, tc, l->fsdp);
  j->link[SCALE_STEP_COMM_EP] = step_link(chip, l, SCALE_TRAIN_DIM_EP, tc, l->ep);
  j->link[SCALE_STEP_COMM_PP] =
      step_link(chip, l, SCALE_TRAIN_DIM_PP, tc * l->fsdp * (pp_out ? l->dp : 1.0), l->pp);
  /* the gradient all-reduce: over dp (x cp) when there is pure data parallelism, else over
   * the cp ranks that hold the same weights */
  scale_train_dim dd = l->dp > 1.0 || l->cp <= 1.0 ? SCALE_TRAIN_DIM_DP : SCALE_TRAIN_DIM_CP;
  double dstride = dd == SCALE_TRAIN_DIM_CP ? l->tp : tc * l->fsdp * (pp_out ? 1.0 : l->pp);
  j->link[SCALE_STEP_COMM_DP] =
      step_link(chip, l, dd, dstride, dd == SCALE_TRAIN_DIM_CP ? l->cp : l->dp * l->cp);
}

static void step_job_of(const scale_train_problem *p, const scale_layout *l, scale_step_job *j) {
  step_job_fields(p, l, j);
  step_links_of(p->chip, l, j);
}

void scale_train_step_job(const scale_train_problem *problem, const scale_layout *layout,
                          scale_step_job *job) {
  if (problem && problem->model && problem->chip && layout && job)
    step_job_of(problem, layout, job);
}

/* Why a step-model step is what it is, in words that agree with its bound: compute when
 * exposed communication is under a quarter of the step (naming the largest exposed part when
 * it is 5% or more), else that communication. */
static const char *step_reason(const scale_step_result *s, double exposed_s, int *worst,
                               scale_train_bound *bound) {
  *worst = scale_step_worst_exposed(s);
  double w = *worst < 0 ? 0.0 : s->exposed_s[*worst];
  *bound = *worst >= 0 && exposed_s >= 0.25 * s->step_s ? SCALE_TRAIN_BOUND_COMMS
                                                        : SCALE_TRAIN_BOUND_COMPUTE;
  if (*worst < 0 || w < 0.05 * s->step_s)
    return s->bubble_s >= 0.1 * s->step_s
               ? "the ops set the pace, but the pipeline bubble idles the stages: raise the "
                 "microbatches"
               : "the ops at their shapes' efficiency set the pace; exposed communication is "
                 "under 5% of the step";
  static const char *const comms[SCALE_STEP_COMM_COUNT] = {
      [SCALE_STEP_COMM_TP] = "tensor-parallel all-reduces sit on the critical path (measured "
                             "latency and bandwidth of the network TP crosses)",
      [SCALE_STEP_COMM_CP] = "the context-parallel exchange outlasts the attention it hides under",
      [SCALE_STEP_COMM_FSDP] = "ZeRO-3 gathers outlast the compute they are prefetched under",
      [SCALE_STEP_COMM_EP] = "MoE all-to-alls sit on the critical path",
      [SCALE_STEP_COMM_PP] = "pipeline sends per microbatch and virtual stage add up",
      [SCALE_STEP_COMM_DP] = "the gradient reduction outlasts the backward pass it is bucketed "
                             "under"};
  static const char *const most[SCALE_STEP_COMM_COUNT] = {
      [SCALE_STEP_COMM_TP] = "the ops set the pace; the most exposed communication is "
                             "tensor parallelism's all-reduces",
      [SCALE_STEP_COMM_CP] = "the ops set the pace; the most exposed communication is the "
                             "context-parallel exchange",
      [SCALE_STEP_COMM_FSDP] = "the ops set the pace; the most exposed communication is ZeRO-3's "
                               "gathers",
      [SCALE_STEP_COMM_EP] = "the ops set the pace; the most exposed communication is the MoE "
                             "all-to-alls",
      [SCALE_STEP_COMM_PP] = "the ops set the pace; the most exposed communication is the "
                             "pipeline's sends",
      [SCALE_STEP_COMM_DP] = "the ops set the pace; the most exposed communication is the "
                             "gradient reduction"};
  const char *const *table = *bound == SCALE_TRAIN_BOUND_COMMS ? comms : most;
  return table[*worst] ? table[*worst] : "communication sits on the critical path";
}

/* The step model's times into *out (scale_train_eval with step parameters). */
/* The step model's job for 'l' through the cache: its links depend only on the degrees and
 * the mapping, which a search holds over every policy of a degree tuple. */
static void cached_step_job(const scale_train_problem *p, const scale_layout *l,
                            scale_train_cache *k, scale_step_job *j) {
  double key[SCALE_TRAIN_LINK_KEY] = {l->tp, l->cp, l->fsdp, l->dp, l->pp, l->ep};
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    key[6 + d] = (double)l->link[d];
    key[6 + SCALE_TRAIN_DIM_COUNT + d] = l->n_axes[d];
  }
  step_job_fields(p, l, j);
  if (k->links_valid && memcmp(k->link_key, key, sizeof key) == 0) {
    memcpy(j->link, k->links, sizeof k->links);
    return;
  }
  step_links_of(p->chip, l, j);
  memcpy(k->link_key, key, sizeof key);
  memcpy(k->links, j->link, sizeof k->links);
  k->links_valid = true;
}

static void step_times(const scale_train_problem *p, const scale_layout *l,
                       scale_train_cache *cache, scale_train_result *out) {
  scale_step_job job;
  cached_step_job(p, l, cache, &job);
  scale_step_eval_cached(&job, p->step_params, &cache->step, &out->step);
  const scale_step_result *s = &out->step;
  out->step_model = true;
  out->compute_time_s = s->compute_s + s->optimizer_s;
  double total = 0.0, exposed = 0.0, busiest = 0.0;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    total += s->comm_s[k];
    exposed += s->exposed_s[k];
    busiest = fmax(busiest, s->comm_s[k]);
  }
  out->comms_time_s = busiest;
  out->total_comms_time_s = total;
  out->exposed_comms_time_s = exposed;
  out->bubble_frac = s->bubble_frac;
  out->bubble_time_s = s->bubble_s;
  out->step_time_s = s->step_s;
  out->step_time_no_overlap_s = s->step_s + total - exposed;
}

/* Activations at the peak of the fullest stage (memory.h): the first stage holds its layers'
 * saved tensors and the embedding's for every microbatch in flight, the last stage one
 * microbatch and the logits (both ends on one stage without a pipeline); plus the working set
 * the backward pass of one layer rebuilds. The attention core's as the layout runs it. */
static double activation_bytes(const scale_train_problem *p, const scale_layout *l,
                               double mb_tokens, double layers_stage) {
  const scale_model *m = p->model;
  double tp = l->tp, pp = l->pp, seq = p->seq_len;
  double v = l->schedule == SCALE_PP_INTERLEAVED ? layout_chunks(l) : 1.0;
  scale_memory_act act = {tp, l->cp, l->sp && tp > 1.0, recompute_of(l->remat),
                          !l->unfused_attention, scale_dtype_bytes(l->act_dtype)};
  double b = mb_tokens * l->cp / seq; /* sequences per microbatch */
  double layer = scale_memory_layer_activation_bytes(m, b, seq, &act);
  if (l->remat == SCALE_REMAT_BLOCK && l->remat_frac < 1.0) {
    /* the layers block remat leaves alone keep every activation */
    scale_memory_act kept = act;
    kept.recompute = SCALE_RECOMPUTE_NONE;
    double all = scale_memory_layer_activation_bytes(m, b, seq, &kept);
    layer = l->remat_frac * layer + (1.0 - l->remat_frac) * all;
  }
  if (l->remat == SCALE_REMAT_BIG_MATMULS) {
    /* The book's policy keeps only the 7 big matmul outputs of [tokens, D] (ch. 4), less
     * than Megatron's selective (which keeps the MLP's activations): the two block inputs
     * stay replicated over tp unless sp splits them. */
    double saved = scale_transformer_n_saved_per_layer(l->remat), t = act.sp ? tp : 1.0;
    layer = (2.0 / t + (saved - 2.0) / tp) * act.act_bytes * c64(m->d_model) * mb_tokens;
  }
  double in_flight = scale_pipeline_microbatches_in_flight(l->schedule, pp, l->n_microbatches, v);
  double embedding = scale_memory_embedding_bytes(m, b, seq, &act);
  /* the embedding counted as a layer takes one of the first stage's slots */
  double first_layers = pp > 1.0 && l->pp_embed_loss ? fmax(0.0, layers_stage - 1.0) : layers_stage;
  double first = in_flight * (layer * first_layers + embedding);
  double logits = scale_memory_logits_bytes(m, b, seq, &act);
  double peak = pp > 1.0 ? fmax(first, layer * layers_stage + logits) : first + logits;
  return peak + scale_memory_layer_working_bytes(m, b, seq, &act);
}

/* Communicators a chip belongs to: one per parallel dimension of degree > 1. */
static double n_comm_groups(const scale_layout *l) {
  return (l->dp > 1.0) + (l->fsdp > 1.0) + (l->tp > 1.0) + (l->pp > 1.0) + (l->cp > 1.0) +
         (l->ep > 1.0);
}

void scale_train_cache_init(scale_train_cache *k, const scale_train_problem *problem) {
  k->problem = problem;
  k->links_valid = false;
  scale_step_cache_init(&k->step);
  for (int i = 0; i < SCALE_REMAT_COUNT; i++)
    k->remat_flops[i] = NAN;
  if (problem == NULL || problem->model == NULL) return;
  const scale_model *m = problem->model;
  double batch = problem->batch_tokens, seq = problem->seq_len, n_seq = batch / seq;
  k->train_flops = scale_transformer_flops(m, n_seq, seq, true, SCALE_PASS_TRAIN);
  k->fwd_flops = scale_transformer_flops(m, n_seq, seq, true, SCALE_PASS_FORWARD);
  k->unembed_fwd = scale_transformer_unembedding_flops(m, batch, SCALE_PASS_FORWARD);
  k->n_params = scale_transformer_n_params(m);
  k->n_moe_layers = scale_transformer_n_moe_layers(m);
  k->n_expert = k->n_moe_layers * c64(m->n_experts) * scale_transformer_n_expert_params(m);
  k->n_embed = scale_transformer_n_embedding_params(m) + c64(m->d_model);
  k->model_flops =
      scale_transformer_dense_flops(scale_transformer_n_active_params(m), batch, SCALE_PASS_TRAIN);
  if (problem->mfu_counts_attention)
    k->model_flops += c64(m->n_layers) *
                      scale_transformer_attention_flops(m, n_seq, seq, seq, true, SCALE_PASS_TRAIN);
}

void scale_train_eval(const scale_train_problem *problem, const scale_layout *l,
                      scale_train_result *out) {
  scale_train_cache cache;
  scale_train_cache_init(&cache, problem);
  scale_train_eval_cached(problem, l, &cache, out);
}

/* ==== the roofline evaluation, in named steps ================================================= */

/** What every step of an evaluation reads: the problem, the layout and their derived counts. */
typedef struct {
  const scale_train_problem *problem;
  const scale_layout *l;
  scale_train_cache *cache;
  const scale_model *m;
  const scale_chip *chip;
  double peak, n_chips, batch, seq, layers;   /**< peak FLOP/s, the run, L */
  double a, w, g, d_model;                    /**< activation, weight, grad bytes; D */
  double tp, pp, cp, ep, fsdp, dp, micro, v;  /**< degrees, microbatches, virtual stages */
  double n_seq, dpf;                          /**< sequences per step; dp x fsdp */
  int zero;                                   /**< ZeRO stage over fsdp (0 without it) */
  double layers_stage;                        /**< the fullest stage's layers */
  double layer_params, stage_params;          /**< an average layer's, a stage's [params] */
  int busiest;                                /**< resource with the most traffic */
  bool step;                                  /**< priced by the step model */
} eval_ctx;

/* The problem and layout in range, and what every step derives from them; false: NaN out. */
static bool eval_setup(const scale_train_problem *problem, const scale_layout *l,
                       scale_train_cache *cache, eval_ctx *x) {
  if (problem == NULL || l == NULL || problem->model == NULL || problem->chip == NULL ||
      cache == NULL || cache->problem != problem || (unsigned)l->remat >= SCALE_REMAT_COUNT)
    return false;
  *x = (eval_ctx){.problem = problem, .l = l, .cache = cache, .m = problem->model,
                  .chip = problem->chip};
  x->peak = scale_chip_flops_per_s(x->chip, problem->compute_dtype);
  x->n_chips = problem->n_chips, x->batch = problem->batch_tokens, x->seq = problem->seq_len;
  x->layers = c64(x->m->n_layers);
  if (!pos(x->peak) || !pos(x->n_chips) || !pos(x->batch) || !pos(x->seq) ||
      !pos(problem->efficiency_frac) || !(x->layers >= 1.0) ||
      !(l->dp >= 1.0 && l->fsdp >= 1.0 && l->tp >= 1.0 && l->pp >= 1.0 && l->ep >= 1.0 &&
        l->cp >= 1.0 && l->n_microbatches >= 1.0))
    return false;
  x->a = scale_dtype_bytes(l->act_dtype);
  x->w = scale_transformer_weight_bytes(&l->precision, 1.0);
  x->g = scale_transformer_grad_bytes(&l->precision, 1.0);
  x->d_model = c64(x->m->d_model);
  x->tp = l->tp, x->pp = l->pp, x->cp = l->cp, x->ep = l->ep, x->fsdp = l->fsdp, x->dp = l->dp;
  x->micro = l->n_microbatches;
  x->v = layout_chunks(l);
  if (!(x->v >= 1.0)) x->v = 1.0;
  x->zero = x->fsdp > 1.0 ? l->zero_stage : 0;
  x->n_seq = x->batch / x->seq;
  x->dpf = x->dp * x->fsdp;
  x->step = problem->step_params != NULL;
  return true;
}

#define UNPACK                                                                                     \
  const scale_train_problem *problem = x->problem;                                                 \
  const scale_layout *l = x->l;                                                                    \
  const scale_model *m = x->m;                                                                     \
  (void)problem, (void)l, (void)m

/* Compute: the model's training FLOPs, evenly split; the parameters a chip holds. */
static void eval_compute(eval_ctx *x, scale_train_result *out) {
  UNPACK;
  scale_train_cache *cache = x->cache;
  double n_chips = x->n_chips, batch = x->batch, seq = x->seq, layers = x->layers;
  double tp = x->tp, pp = x->pp, cp = x->cp, ep = x->ep, micro = x->micro, v = x->v;
  double n_seq = x->n_seq, dpf = x->dpf, peak = x->peak;
  /* ---- compute: the model's training FLOPs, evenly split (ch. 4 FLOPs; ch. 5
   * T_math). ---- */
  double train_flops = cache->train_flops, fwd_flops = cache->fwd_flops;
  double unembed_fwd = cache->unembed_fwd;
  if (isnan(cache->remat_flops[l->remat]))
    cache->remat_flops[l->remat] =
        scale_transformer_remat_extra_flops(m, n_seq, seq, true, l->remat);
  /* block remat of a share of the layers recomputes that share of the forwards */
  double remat_flops = cache->remat_flops[l->remat] *
                       (l->remat == SCALE_REMAT_BLOCK ? l->remat_frac : 1.0);
  double rate = peak * problem->efficiency_frac;
  out->tokens_per_chip = batch / (dpf * cp);
  out->microbatch_tokens = out->tokens_per_chip / micro;
  out->flops_per_chip = (train_flops + remat_flops) / n_chips;
  out->remat_flops_per_chip = remat_flops / n_chips;
  /* One layer on one chip over the step: its share of the layers' forward work.
   */
  out->fwd_flops_per_layer = (fwd_flops - unembed_fwd) / layers / (dpf * cp * tp);
  out->bwd_flops_per_layer = 2.0 * out->fwd_flops_per_layer;
  /* Uneven stages: with L layers over pp x v (virtual) stages the slowest stage holds
   * ceil(L / (pp v)) layers and sets the pace of the whole pipeline (DeepSeek-V3: 61 layers
   * over 16 stages, 4 on the slowest, 64/61 of the even split). */
  double units = layout_units(l, layers);
  double layers_stage = x->layers_stage = scale_pipeline_stage_layers(units, pp, v);
  double imbalance = pp * v > 1.0 ? layers_stage * pp / units : 1.0;
  out->compute_time_s = out->flops_per_chip / rate * imbalance;

  /* ---- parameters per chip (TP and EP shards of one stage) ---- */
  double n_params = cache->n_params, n_expert = cache->n_expert, n_embed = cache->n_embed;
  double n_dense_layers_params = n_params - n_expert - n_embed;
  /* An average layer's weights on one chip [params]: the dense part sliced over tp, the
   * experts over the expert grid ep x etp (etp of the tp ranks slice each expert; the other
   * tp / etp hold whole experts of their own EP shard, Megatron-Core's parallel folding). */
  double etp = l->etp >= 1.0 ? l->etp : 1.0;
  x->layer_params = n_dense_layers_params / layers / tp + n_expert / layers / (ep * etp);
  x->stage_params = x->layer_params * layers_stage + n_embed / (pp * tp);
  /* DualPipe: each rank holds its stage and its mirror's (pipeline.h) */
  if (pp > 1.0) x->stage_params *= scale_pipeline_param_copies(l->schedule);

}

/* The roofline's gradient and weight traffic: FSDP/ZeRO, DP and CP's gradient AllReduce. */
static void weight_comms(const eval_ctx *x, const double *bw, scale_train_result *out) {
  UNPACK;
  double w = x->w, g = x->g, micro = x->micro, fsdp = x->fsdp, dp = x->dp, cp = x->cp;
  double layer_params = x->layer_params, stage_params = x->stage_params;
  int zero = x->zero;
  double grad_shard = zero >= 1 ? fsdp : 1.0; /* gradients are reduced-scattered first */
  /* FSDP (ZeRO-3): AllGather the layer's weights in the forward pass and again
   * in the backward pass, ReduceScatter its gradients, once per microbatch
   * (book: "4DF + 8DF" per MLP layer of 2DF weights). ZeRO-1/2: ReduceScatter
   * gradients and AllGather the updated weights once per step (the same volume
   * as DP's AllReduce). */
  if (fsdp > 1.0) {
    double vw = layer_params * w, vg = layer_params * g;
    double stage_w = stage_params * w, stage_g = stage_params * g;
    if (zero >= 3) {
      set_comm(&out->comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER], SCALE_TRAIN_DIM_FSDP,
               l->link[SCALE_TRAIN_DIM_FSDP], bw[SCALE_TRAIN_DIM_FSDP], vw * micro, vw * micro,
               2.0 * stage_w * micro);
      set_comm(&out->comm[SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER], SCALE_TRAIN_DIM_FSDP,
               l->link[SCALE_TRAIN_DIM_FSDP], bw[SCALE_TRAIN_DIM_FSDP], 0.0, vg * micro,
               stage_g * micro);
    } else {
      set_comm(&out->comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER], SCALE_TRAIN_DIM_FSDP,
               l->link[SCALE_TRAIN_DIM_FSDP], bw[SCALE_TRAIN_DIM_FSDP], 0.0, vw, stage_w);
      set_comm(&out->comm[SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER], SCALE_TRAIN_DIM_FSDP,
               l->link[SCALE_TRAIN_DIM_FSDP], bw[SCALE_TRAIN_DIM_FSDP], 0.0, vg, stage_g);
    }
  }
  /* DP: AllReduce of the gradients (of the FSDP shard under hybrid sharding)
   * once per step, 2V (book: "0 + 8DF" per MLP layer). Over DCN V is the chip's
   * own shard, so the book's 2 x 2 x 2 DF / (M W_dcn) comes out. */
  if (dp > 1.0) {
    double vg = layer_params * g / grad_shard;
    set_comm(&out->comm[SCALE_TRAIN_COMM_DP_ALL_REDUCE], SCALE_TRAIN_DIM_DP,
             l->link[SCALE_TRAIN_DIM_DP], bw[SCALE_TRAIN_DIM_DP], 0.0, 2.0 * vg,
             2.0 * stage_params * g / grad_shard);
  }
  /* CP ranks hold the same weights: their gradients are AllReduced too. */
  if (cp > 1.0) {
    double vg = layer_params * g / (zero >= 2 ? fsdp : 1.0);
    set_comm(&out->comm[SCALE_TRAIN_COMM_CP_ALL_REDUCE], SCALE_TRAIN_DIM_CP,
             l->link[SCALE_TRAIN_DIM_CP], bw[SCALE_TRAIN_DIM_CP], 0.0, 2.0 * vg,
             2.0 * stage_params * g / (zero >= 2 ? fsdp : 1.0));
  }
}

/* The roofline's activation traffic: TP, PP, EP and CP, per layer over the step. */
static void activation_comms(const eval_ctx *x, const double *bw, scale_train_result *out) {
  UNPACK;
  const scale_chip *chip = x->chip;
  double tp = x->tp, pp = x->pp, cp = x->cp, ep = x->ep, v = x->v, a = x->a;
  double d_model = x->d_model, layers = x->layers, layers_stage = x->layers_stage;
  double tokens = out->tokens_per_chip;
  double redo = remat_share(l);
  /* TP: each block AllGathers its [tokens, D] input and ReduceScatters its
   * output, forward and backward (book: "4BD + 4BD" per MLP block); two blocks
   * per transformer layer. With block remat the forward collectives run again
   * during the backward pass, in the share of the layers it recomputes. */
  if (tp > 1.0) {
    double blocks;
    if (m->arch == SCALE_ARCH_MAMBA2)
      blocks = m->d_ff > 0 ? 2.0 : 1.0;
    else
      blocks = 2.0;
    double v_act = blocks * tokens * d_model * a;
    double bwd = (1.0 + redo) * v_act;
    set_comm(&out->comm[SCALE_TRAIN_COMM_TP_ALL_GATHER], SCALE_TRAIN_DIM_TP,
             l->link[SCALE_TRAIN_DIM_TP], bw[SCALE_TRAIN_DIM_TP], v_act, bwd,
             (v_act + bwd) * layers_stage);
    set_comm(&out->comm[SCALE_TRAIN_COMM_TP_REDUCE_SCATTER], SCALE_TRAIN_DIM_TP,
             l->link[SCALE_TRAIN_DIM_TP], bw[SCALE_TRAIN_DIM_TP], v_act, bwd,
             (v_act + bwd) * layers_stage);
  }
  /* PP: each stage sends its [tokens, D] activations forward and their
   * gradients back, once per microbatch and virtual stage, split over the TP
   * ranks (Megatron scatter/gather). */
  if (pp > 1.0) {
    double sent = tokens * d_model * a / tp * v;
    double sbw = send_bandwidth(chip, l);
    set_comm(&out->comm[SCALE_TRAIN_COMM_PP_SEND], SCALE_TRAIN_DIM_PP,
             l->link[SCALE_TRAIN_DIM_PP], sbw, sent / layers_stage, sent / layers_stage,
             2.0 * sent);
  }
  /* EP: dispatch and combine AllToAll of k copies of each token per MoE layer,
   * forward and backward (Amer et al. section 2; DeepSeek-V3 section 3.2). */
  if (ep > 1.0 && scale_model_is_moe(m)) {
    double moe_frac = x->cache->n_moe_layers / layers;
    double per_chip = tokens * c64(m->n_experts_active) * d_model * a / (l->sp ? tp : 1.0);
    double vol = 2.0 * moe_frac * all_to_all_bytes(l->link[SCALE_TRAIN_DIM_EP], ep, per_chip);
    double bwd = (1.0 + redo) * vol;
    set_comm(&out->comm[SCALE_TRAIN_COMM_EP_ALL_TO_ALL], SCALE_TRAIN_DIM_EP,
             l->link[SCALE_TRAIN_DIM_EP], bw[SCALE_TRAIN_DIM_EP], vol, bwd,
             (vol + bwd) * layers_stage);
  }
  /* CP: ring attention gathers the keys and values of the whole sequence (the
   * AllGather of V = tokens cp 2KH bytes) forward, and again with their
   * gradients backward; Ulysses AllToAlls Q, K, V and the output forward and
   * backward. */
  if (cp > 1.0 && m->arch != SCALE_ARCH_MAMBA2) {
    double fwd, bwd;
    if (l->cp_kind == SCALE_CP_ULYSSES) {
      double h = c64(m->d_head), heads = c64(m->n_heads), kv = c64(m->n_kv_heads);
      double per_chip = tokens * (2.0 * heads + 2.0 * kv) * h * a / tp;
      fwd = all_to_all_bytes(l->link[SCALE_TRAIN_DIM_CP], cp, per_chip);
      bwd = fwd;
    } else {
      /* a chip's K and V per token: the layer's, split over the KV heads TP shards */
      double kv_token = scale_transformer_kv_bytes_per_token(m, l->act_dtype) / layers;
      double kv_split = m->n_kv_heads > 0 ? fmin(tp, c64(m->n_kv_heads)) : 1.0;
      bool gather = l->cp_kind == SCALE_CP_ALLGATHER;
      /* all-gather: the other ranks' K and V forward, dK and dV reduce-scattered back */
      fwd = tokens * (gather ? cp - 1.0 : cp) * kv_token / kv_split;
      bwd = gather ? fwd : 2.0 * fwd;
    }
    bwd += redo * fwd;
    set_comm(&out->comm[SCALE_TRAIN_COMM_CP_ATTENTION], SCALE_TRAIN_DIM_CP,
             l->link[SCALE_TRAIN_DIM_CP], bw[SCALE_TRAIN_DIM_CP], fwd, bwd,
             (fwd + bwd) * layers_stage);
  }

}

/* The roofline's bubble: a split-backward schedule's from the FLOPs of F, B and W (per
 * layer F, W the linear layers' weight gradients (1 - a) F with a the attention's share of
 * the FLOPs, B the rest of the backward's 2F: (1 + a) F); the others' need no split. */
static double roofline_bubble_frac(const eval_ctx *x) {
  const scale_layout *l = x->l;
  if (x->pp <= 1.0) return 0.0;
  if (!scale_pipeline_splits_backward(l->schedule))
    return scale_pipeline_bubble_frac(l->schedule, x->pp, x->micro, x->v);
  double a = x->m->arch == SCALE_ARCH_TRANSFORMER
                 ? scale_transformer_attention_flops_frac(x->m, x->seq, true)
                 : 0.0;
  if (!(a >= 0.0 && a < 1.0)) a = 0.0;
  return scale_pipeline_bubble_split_frac(l->schedule, x->pp, x->micro, x->v, 1.0, 1.0 + a,
                                          1.0 - a);
}

/* The roofline's overlap: each resource's traffic, the busiest against compute, the bubble. */
static void roofline_overlap(eval_ctx *x, scale_train_result *out) {
  int busiest = 0;
  /* ---- resources: ICI axes per dimension; NVLink egress and DCN NICs shared
   * ---- */
  for (int i = 0; i < SCALE_TRAIN_LINK_COUNT + SCALE_TRAIN_DIM_COUNT; i++)
    out->link_time_s[i] = 0.0;
  double total = 0.0;
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    scale_train_comm_cost *c = &out->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    int r = c->link == SCALE_TRAIN_LINK_ICI ? (int)c->dim : SCALE_TRAIN_DIM_COUNT + (int)c->link;
    out->link_time_s[r] += c->step_time_s;
    total += c->step_time_s;
  }
  for (int i = 1; i < SCALE_TRAIN_LINK_COUNT + SCALE_TRAIN_DIM_COUNT; i++)
    if (out->link_time_s[i] > out->link_time_s[busiest]) busiest = i;
  out->comms_time_s = out->link_time_s[busiest];
  out->total_comms_time_s = total;
  out->exposed_comms_time_s = fmax(0.0, out->comms_time_s - out->compute_time_s);
  out->bubble_frac = roofline_bubble_frac(x);
  double busy = out->compute_time_s + out->exposed_comms_time_s;
  out->bubble_time_s = busy * out->bubble_frac;
  out->step_time_s = busy * (1.0 + out->bubble_frac);
  out->step_time_no_overlap_s = (out->compute_time_s + total) * (1.0 + out->bubble_frac);
  x->busiest = busiest;
}

/* The collectives and step time of the book's roofline (the step model's are step_times'). */
static void roofline_comms(eval_ctx *x, scale_train_result *out) {
  double bw[SCALE_TRAIN_DIM_COUNT];
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    double tree = tree_bandwidth(x->chip, x->l, (scale_train_dim)d);
    bw[d] = isnan(tree) ? link_bandwidth(x->chip, x->l, (scale_train_dim)d) : tree;
  }
  weight_comms(x, bw, out);
  activation_comms(x, bw, out);
  roofline_overlap(x, out);
}

double scale_train_memory_floor_bytes(const scale_train_problem *problem,
                                      const scale_layout *l, const scale_train_cache *cache) {
  double tp = l->tp, pp = l->pp, ep = l->ep, fsdp = l->fsdp, cp = l->cp;
  if (!(tp >= 1.0 && pp >= 1.0 && ep >= 1.0 && fsdp >= 1.0 && cp >= 1.0)) return NAN;
  double etp = l->etp >= 1.0 ? l->etp : 1.0;
  double dense = cache->n_params - cache->n_expert - cache->n_embed;
  /* eval_compute's stage_params with the layers spread evenly (the slowest stage holds at
   * least layers / pp) and one copy of them */
  double stage_params =
      (dense / tp + cache->n_expert / (ep * etp)) / pp + cache->n_embed / (pp * tp);
  /* eval_memory's ZeRO sharding */
  bool zero12 = l->zero_stage == 1 || l->zero_stage == 2;
  int zero = fsdp > 1.0 ? l->zero_stage : 0;
  int zero_mem = zero12 && fsdp * cp > 1.0 ? l->zero_stage : zero;
  double states = scale_train_zero_bytes_per_chip(&l->precision, stage_params, zero_mem,
                                                  zero12 ? fsdp * cp : fsdp, NULL);
  scale_memory_overhead overhead = scale_memory_overhead_of(problem->chip);
  return states + fmax(0.0, overhead.context_bytes) +
         fmax(0.0, overhead.fragmentation_frac) * states;
}

/* Memory per chip: states, activations, gathered weights, CP buffers and the overhead. */
static void eval_memory(const eval_ctx *x, scale_train_result *out) {
  UNPACK;
  const scale_chip *chip = x->chip;
  const scale_precision *prec = &l->precision;
  double fsdp = x->fsdp, cp = x->cp, tp = x->tp, a = x->a, w = x->w, layers = x->layers;
  int zero = x->zero;
  double stage_params = x->stage_params, layer_params = x->layer_params;
  double layers_stage = x->layers_stage;
  /* ZeRO-1/2 shard the optimizer state (and gradients) over every rank holding the same
   * weights, the context-parallel ones too, as Megatron's distributed optimizer does over
   * its data x context group; ZeRO-3's weight shards stay in the fsdp group. */
  bool zero12 = l->zero_stage == 1 || l->zero_stage == 2;
  int zero_mem = zero12 && fsdp * cp > 1.0 ? l->zero_stage : zero;
  double parts[3];
  scale_train_zero_bytes_per_chip(prec, stage_params, zero_mem, zero12 ? fsdp * cp : fsdp, parts);
  out->param_bytes = parts[0];
  out->grad_bytes = parts[1];
  out->optimizer_bytes = parts[2];
  out->activation_bytes = activation_bytes(problem, l, out->microbatch_tokens, layers_stage);
  /* ZeRO-3 gathers what the matmuls read: each shard cast to the compute dtype first (fp32
   * master weights travel and land in bf16), this layer's and the next's, prefetched. */
  double gathered = scale_dtype_bytes(problem->compute_dtype);
  out->gathered_weight_bytes = zero >= 3 ? 2.0 * layer_params * fmin(w, gathered) : 0.0;
  double mb = out->microbatch_tokens;
  if (cp > 1.0 && m->arch != SCALE_ARCH_MAMBA2) {
    double kv_token = scale_transformer_kv_bytes_per_token(m, l->act_dtype) / layers;
    if (l->cp_kind == SCALE_CP_ULYSSES)
      out->cp_buffer_bytes =
          mb * (c64(m->n_heads) + 2.0 * c64(m->n_kv_heads)) * c64(m->d_head) * a / tp;
    else if (l->cp_kind == SCALE_CP_ALLGATHER) /* one layer's gathered K and V */
      out->cp_buffer_bytes = mb * cp * kv_token / fmin(tp, fmax(1.0, c64(m->n_kv_heads)));
    else
      out->cp_buffer_bytes = 2.0 * mb * kv_token / fmin(tp, fmax(1.0, c64(m->n_kv_heads)));
  }
  double tensors = out->param_bytes + out->grad_bytes + out->optimizer_bytes +
                   out->activation_bytes + out->gathered_weight_bytes + out->cp_buffer_bytes;
  scale_memory_overhead overhead = scale_memory_overhead_of(chip);
  out->overhead_bytes = scale_memory_overhead_bytes(&overhead, tensors, n_comm_groups(l));
  out->memory_per_chip_bytes = tensors + out->overhead_bytes;
  out->hbm_bytes = chip->hbm_bytes;
  out->memory_margin_bytes = out->hbm_bytes - out->memory_per_chip_bytes;
  out->fits = out->memory_per_chip_bytes <= out->hbm_bytes;

}

/* The run: MFU, throughput, time and cost. */
static void eval_run(const eval_ctx *x, scale_train_result *out) {
  const scale_train_problem *problem = x->problem;
  double n_chips = x->n_chips, peak = x->peak, batch = x->batch;
  const scale_chip *chip = x->chip;
  double model_flops = x->cache->model_flops;
  out->model_flops_per_step = model_flops;
  out->mfu = model_flops / (n_chips * peak * out->step_time_s);
  out->tokens_per_s = batch / out->step_time_s;
  if (problem->train_tokens > 0.0) {
    out->train_time_s = problem->train_tokens / out->tokens_per_s;
    out->cost_usd = out->train_time_s / SCALE_SECONDS_PER_HOUR * n_chips * chip->usd_per_hour;
  } else {
    out->train_time_s = NAN;
    out->cost_usd = NAN;
  }

}

/* What binds: the busiest link's largest collective, and the one-line reason. */
static void eval_bound(const eval_ctx *x, scale_train_result *out) {
  int busiest = x->busiest;
  bool step = x->step;
  scale_train_comm worst = SCALE_TRAIN_COMM_FSDP_ALL_GATHER;
  double worst_t = -1.0;
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    const scale_train_comm_cost *c = &out->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    int r = c->link == SCALE_TRAIN_LINK_ICI ? (int)c->dim : SCALE_TRAIN_DIM_COUNT + (int)c->link;
    if (r == busiest && c->step_time_s > worst_t) {
      worst_t = c->step_time_s;
      worst = (scale_train_comm)i;
    }
  }
  out->binding_comm = worst;
  const char *why_not_finite = nonfinite_reason(out);
  if (why_not_finite) {
    out->bound = SCALE_TRAIN_BOUND_COMPUTE;
    out->reason = why_not_finite;
  } else if (!out->fits) {
    out->bound = SCALE_TRAIN_BOUND_MEMORY;
    out->reason = "weights, optimizer state and saved activations exceed the chip's HBM";
  } else if (step) {
    int k;
    out->reason = step_reason(&out->step, out->exposed_comms_time_s, &k, &out->bound);
  } else if (out->comms_time_s > out->compute_time_s) {
    out->bound = SCALE_TRAIN_BOUND_COMMS;
    out->reason = comm_reason(worst, out->comm[worst].link);
  } else {
    out->bound = SCALE_TRAIN_BOUND_COMPUTE;
    out->reason = out->bubble_frac >= 0.1
                      ? "the ops set the pace, but the pipeline bubble idles the stages: "
                        "raise the microbatches"
                      : "the ops set the pace: every link's collectives hide under the matmuls";
  }
}

#undef UNPACK

void scale_train_eval_cached(const scale_train_problem *problem, const scale_layout *l,
                             scale_train_cache *cache, scale_train_result *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  eval_ctx x;
  if (!eval_setup(problem, l, cache, &x)) {
    fill_nan(out);
    return;
  }
  eval_compute(&x, out);
  if (x.step)
    step_times(problem, l, cache, out);
  else
    roofline_comms(&x, out);
  eval_memory(&x, out);
  eval_run(&x, out);
  eval_bound(&x, out);
}

/* ---- layouts the chapters build ------------------------------------------------------------- */

static bool positive_integer(double x) { return x >= 1.0 && isfinite(x) && x == floor(x); }

double scale_train_fsdp_cp_degree(double n_chips, double n_seqs, double seq_tokens) {
  if (!positive_integer(n_chips) || !positive_integer(n_seqs) || !positive_integer(seq_tokens))
    return (double)NAN;
  double f = fmin(n_chips, n_seqs);
  for (; f > 1.0; f--)
    if (fmod(n_chips, f) == 0.0 && fmod(seq_tokens, n_chips / f) == 0.0) break;
  return f;
}

void scale_train_layer_comm_totals(const scale_train_result *r, double *bytes, double *time_s) {
  *bytes = 0.0;
  *time_s = 0.0;
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    const scale_train_comm_cost *c = &r->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    *bytes += c->fwd_bytes_per_layer + c->bwd_bytes_per_layer;
    *time_s += c->fwd_time_per_layer_s + c->bwd_time_per_layer_s;
  }
}

bool scale_train_scaling_layout(const scale_train_problem *problem, double tp,
                                double slice_chips, scale_layout *layout) {
  double n = problem->n_chips, n_seq = floor(problem->batch_tokens / problem->seq_len);
  *layout = scale_layout_default();
  layout->dp = n > slice_chips ? n / slice_chips : 1.0;
  double inner = n / layout->dp;
  if (tp > inner) return false;
  layout->tp = tp;
  layout->fsdp = fmin(inner / tp, n_seq / layout->dp);
  layout->cp = inner / (tp * layout->fsdp);
  scale_train_layout_map(problem->chip, n, layout);
  return scale_train_validate(problem, layout, NULL) == SCALE_OK;
}

/* ---- the scaling study of ch. 5 -------------------------------------------------------------- */

void scale_train_scaling_sweep(const scale_model *model, const scale_chip *chip, double batch,
                               double seq, double tp, double slice_chips, const double *n_chips,
                               int n, double *step_s, double *compute_s) {
  for (int i = 0; i < n; i++) {
    scale_train_problem p = scale_train_problem_make(model, chip, n_chips[i], batch, seq);
    scale_layout l;
    scale_train_result r;
    step_s[i] = NAN;
    if (!scale_train_scaling_layout(&p, tp, slice_chips, &l)) continue;
    scale_train_eval(&p, &l, &r);
    if (r.fits) step_s[i] = r.step_time_s;
    compute_s[i] = r.compute_time_s;
  }
}

/* ---- what a prediction assumes ---------------------------------------------------------------- */

/* The bubble formula each schedule is priced by (pipeline.h), as a line. */
static const char *const schedule_assumption[SCALE_PP_COUNT] = {
    "1F1B's bubble is (p-1)/m of the ideal, every stage as fast as the priced one "
    "(Narayanan et al. 2019)",
    "GPipe's bubble is (p-1)/m of the ideal, every stage as fast as the priced one",
    "interleaving v chunks divides 1F1B's bubble by v, (p-1)/(v m) (Narayanan et al. 2021)",
    "zero-bubble H1's deferred W passes fill the bubble as Qi et al. 2023 schedule them, "
    "leaving (p-1)(F+B-W)",
    "zero-bubble H2 leaves (p-1)(F+B-2W) (Qi et al. 2023), with optimizer post-validation "
    "instead of a step-wide sync, holding 2p-1 microbatches",
    "zero-bubble V's two chunks a stage leave half of ZB-H2's residual, (p-1)(F+B-2W)/2",
    "DualPipe leaves (p/2-1)(F&B+B-3W) (DeepSeek-V3 Table 2), its F&B chunk pair priced as "
    "F+B+W with a MoE layer's all-to-alls hidden under the pair's compute",
};

int scale_train_assumptions(const scale_train_problem *problem, const scale_layout *l,
                            const scale_train_result *r, const char **lines, int max) {
  if (problem == NULL || l == NULL || r == NULL || lines == NULL || max <= 0) return 0;
  int n = 0;
#define ASSUME(text)                                                                                 do {                                                                                                 if (n < max) lines[n++] = (text);                                                                } while (0)
  if (l->pp > 1.0 && (unsigned)l->schedule < SCALE_PP_COUNT) {
    ASSUME(schedule_assumption[l->schedule]);
    bool split = scale_pipeline_splits_backward(l->schedule);
    if (l->n_microbatches < l->pp)
      ASSUME(split ? "with fewer microbatches than stages the pipeline never fills: the bubble "
                     "is at least the critical path's (p-1)(F+B) less the rank's other work"
                   : "with fewer microbatches than stages the pipeline never fills, still "
                     "priced (p-1)/m");
    if (split && l->tp > 1.0 && !l->tp_overlap)
      ASSUME("with W deferred, the backward's TP all-reduces have no weight-gradient GEMM to "
             "hide under: all exposed");
    ASSUME(l->pp_embed_loss
               ? "the embedding and the loss each take a layer's slot in the pipeline split "
                 "(Megatron's account-for-embedding/loss-in-pipeline-split)"
               : "each stage runs L/pp layers; the priced one also runs the embedding, "
                 "unembedding and loss");
    ASSUME("pipeline sends sit on the critical path, once per microbatch and chunk each way");
  }
  if (!r->step_model) return n;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
    if (r->step.net[k] == SCALE_STEP_NET_OUT && r->step.comm_s[k] > 0.0) {
      ASSUME("the scale-out NICs carry every collective that crosses nodes one after another: "
             "the step lasts at least their sum");
      break;
    }
  if (r->step.comm_s[SCALE_STEP_COMM_DP] > 0.0)
    ASSUME("gradient buckets hide under the last microbatch's backward, all but the last");
  if (scale_model_is_moe(problem->model)) {
    ASSUME(l->capacity_factor > 0.0
               ? "MoE: tokens balanced over the experts, each expert's padded or cut to the "
                 "capacity factor x its balanced share"
               : "MoE: tokens balanced over the experts, none dropped (the fitted "
                 "Megatron-Bridge runs force-balance them)");
    ASSUME(l->etp > 1.0 ? "MoE: each expert sliced over etp ranks, which run the tokens of "
                          "tp / etp TP ranks' shards"
                        : "MoE: expert TP 1, each expert whole on its rank, each TP rank "
                          "routing its 1/tp of the tokens");
    if (l->ep > 1.0)
      ASSUME("MoE: the dispatch and combine all-to-alls sit on the critical path at the fitted "
             "ep_exposed_frac of their time (no overlap with compute unless DualPipe)");
  }
#undef ASSUME
  return n;
}

double scale_train_book_mlp_split(double d, double f, double n_chips, double y, double n_axes,
                                  double flops_per_s, double link_bytes_per_s, const double *b,
                                  int n, double *math_s, double *comms_s) {
  double x = n_chips / y, m_x = y > 1.0 ? n_axes - 1.0 : n_axes, m_y = 1.0;
  for (int i = 0; i < n; i++) {
    scale_train_mlp_times t =
        scale_train_book_mlp_times(b[i], d, f, x, y, m_x, m_y, flops_per_s, link_bytes_per_s);
    if (math_s) math_s[i] = t.math_s;
    if (comms_s) comms_s[i] = t.comms_s;
  }
  if (!pos(d) || !(y >= 1.0) || !(x >= 1.0) || !pos(m_x)) return NAN;
  if (y > 1.0 && !(y < scale_train_tp_max_degree(f, flops_per_s, link_bytes_per_s, m_y)))
    return NAN;
  return x * scale_train_dp_critical_batch(flops_per_s, link_bytes_per_s, m_x);
}

/* ---- ch. 5's tables ------------------------------------------------------------------------- */

static int copy_rows(scale_quantity *out, const scale_quantity *rows, int n) {
  for (int i = 0; i < n; i++)
    out[i] = rows[i];
  return n;
}
#define COPY_ROWS(out, rows) copy_rows(out, rows, (int)(sizeof rows / sizeof rows[0]))

static double bf16_rate(const scale_chip *chip) {
  return scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
}

/* the DP threshold over all the chip's ICI axes: the book's 850 on a v5p */
static double dp_critical_all_axes(const scale_chip *chip) {
  return scale_train_dp_critical_batch(bf16_rate(chip), chip->ici_link_bytes_per_s,
                                       chip->ici_n_axes);
}

int scale_train_chip_table(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double c = bf16_rate(chip), link = chip->ici_link_bytes_per_s;
  const scale_quantity q[] = {
      {"flops", "C, bf16", c, "FLOP/s", SCALE_FMT_SCI},
      {"link", "one ICI link, one way", link, "B/s", SCALE_FMT_SI},
      {"w_ici", "W_ici, bidirectional", 2.0 * link, "B/s", SCALE_FMT_SI},
      {"alpha", "alpha = C / W_ici", scale_train_dp_critical_batch(c, link, 1.0), "",
       SCALE_FMT_PLAIN},
      {"dcn", "DCN egress per chip", chip->dcn_bytes_per_s, "B/s", SCALE_FMT_SI},
      {"hbm", "HBM", chip->hbm_bytes, "B", SCALE_FMT_SI},
      {"axes", "ICI axes", chip->ici_n_axes, "", SCALE_FMT_PLAIN},
      {"pod", "chips in a pod", scale_chip_pod_chips(chip), "", SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_train_dp_thresholds(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double c = bf16_rate(chip), three = dp_critical_all_axes(chip);
  double chips16 = scale_train_max_dp_chips(16e6, three);
  double run_flops = 6.0 * 70e9 * 15e12; /* the book's 6 x 70e9 x 15e12 */
  scale_precision bf16 = SCALE_PRECISION_BF16_ADAM;
  const scale_quantity q[] = {
      {"crit1", "DP/FSDP, one axis",
       scale_train_dp_critical_batch(c, chip->ici_link_bytes_per_s, 1.0), "tokens",
       SCALE_FMT_PLAIN},
      {"crit3", "DP/FSDP, three axes", three, "tokens", SCALE_FMT_PLAIN},
      {"pod_batch", "  times a pod", three * scale_chip_pod_chips(chip), "tokens", SCALE_FMT_SCI},
      {"deepseek_chips", "DeepSeek-V2's 40M batch: chips", scale_train_max_dp_chips(40e6, three),
       "", SCALE_FMT_PLAIN},
      {"l70_chips", "16M batch: chips", chips16, "", SCALE_FMT_PLAIN},
      {"l70_flops", "LLaMA 3 70B training FLOPs", run_flops, "FLOP", SCALE_FMT_SCI},
      {"l70_days", "  on those chips at 50% MFU",
       scale_train_time_s(run_flops, chips16, c, 0.5) / SCALE_SECONDS_PER_DAY, "days",
       SCALE_FMT_PLAIN},
      {"bytes_per_param", "weights + Adam bytes per parameter",
       scale_transformer_weight_bytes(&bf16, 1.0) + scale_transformer_optimizer_bytes(&bf16, 1.0),
       "B", SCALE_FMT_PLAIN},
      {"max_params", "largest pure-DP model",
       scale_train_max_pure_dp_params(chip->hbm_bytes, &bf16), "", SCALE_FMT_SCI}};
  return COPY_ROWS(out, q);
}

int scale_train_tp_thresholds(const scale_chip *chip, const scale_model *llama,
                              const scale_model *gemma, scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double c = bf16_rate(chip), link = chip->ici_link_bytes_per_s;
  double f70 = (double)llama->d_ff, f2 = 2.0 * (double)gemma->d_ff;
  const scale_quantity q[] = {
      {"l70_f", "LLaMA 3 70B F", f70, "", SCALE_FMT_PLAIN},
      {"l70_max", "  largest compute-bound TP, one axis",
       scale_train_tp_max_degree(f70, c, link, 1.0), "", SCALE_FMT_PLAIN},
      {"gemma_f2", "Gemma 7B, 2F", f2, "", SCALE_FMT_PLAIN},
      {"gemma_max", "  largest compute-bound TP", scale_train_tp_max_degree(f2, c, link, 1.0), "",
       SCALE_FMT_PLAIN},
      {"f_for_8", "F that 8-way TP needs", 8.0 * scale_train_dp_critical_batch(c, link, 1.0), "",
       SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_train_mixed_thresholds(const scale_chip *chip,
                                 scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double c = bf16_rate(chip), link = chip->ici_link_bytes_per_s;
  /* the book's 4x4x4 example: N = 64, B = 48,000, F = 32,768 */
  double x = scale_train_fsdp_tp_x_opt(48000.0, 32768.0, 64.0, 2.0, 1.0);
  double c30 = scale_train_fsdp_tp_critical_batch(30000.0, c, link, 2.0, 1.0);
  const scale_quantity q[] = {
      {"x_opt", "X_opt, N = 64, B = 48000, F = 32768", x, "", SCALE_FMT_PLAIN},
      {"y_opt", "  Y = N / X", 64.0 / x, "", SCALE_FMT_PLAIN},
      {"crit", "B / N floor, F = 32768",
       scale_train_fsdp_tp_critical_batch(32768.0, c, link, 2.0, 1.0), "tokens", SCALE_FMT_PLAIN},
      {"crit30k", "B / N floor, F = 30000", c30, "tokens", SCALE_FMT_PLAIN},
      {"fsdp_chips_2m", "2M batch, pure FSDP: chips",
       scale_train_max_dp_chips(2e6, dp_critical_all_axes(chip)), "", SCALE_FMT_PLAIN},
      {"mixed_chips_2m", "2M batch, FSDP x TP: chips", scale_train_max_dp_chips(2e6, c30), "",
       SCALE_FMT_PLAIN},
      {"two_pods", "2M batch on two pods: per chip", 2e6 / (2.0 * scale_chip_pod_chips(chip)),
       "tokens", SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_train_dcn_thresholds(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  const scale_quantity q[] = {
      {"crit_book", "C / W_dcn with the book's 4.46e14",
       scale_train_dcn_critical_batch(4.46e14, chip->dcn_bytes_per_s), "tokens", SCALE_FMT_PLAIN},
      {"crit", "C / W_dcn with the table's C",
       scale_train_dcn_critical_batch(bf16_rate(chip), chip->dcn_bytes_per_s), "tokens",
       SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_train_moe_thresholds(const scale_chip *chip, const scale_model *moe,
                               scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double e = (double)moe->n_experts, k = (double)moe->n_experts_active;
  const scale_quantity q[] = {
      {"e", "DeepSeek-V3 E", e, "", SCALE_FMT_PLAIN},
      {"k", "DeepSeek-V3 k", k, "", SCALE_FMT_PLAIN},
      {"crit3", "  DP threshold, three axes",
       scale_train_moe_critical_batch(dp_critical_all_axes(chip), e, k), "tokens",
       SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

/* A bubble row of the pipeline table: key TAG.mM, labelled by its chapter key pp.TAG.mM. */
#define BUBBLE(s, tag, m)                                                                          \
  {tag ".m" #m, "pp." tag ".m" #m, 100.0 * scale_pipeline_bubble_frac(s, 16.0, m, 2.0), "%",       \
   SCALE_FMT_PLAIN}
#define BUBBLES(s, tag) BUBBLE(s, tag, 16), BUBBLE(s, tag, 32), BUBBLE(s, tag, 64)
#define IN_FLIGHT(s, tag, label, v)                                                                \
  {"inflight." tag, label, scale_pipeline_microbatches_in_flight(s, 16.0, 64.0, v), "",            \
   SCALE_FMT_PLAIN}

int scale_train_pipeline_table(scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  const scale_quantity q[] = {
      BUBBLES(SCALE_PP_1F1B, "1f1b"), /* GPipe: 1F1B's bubble, more in flight (below) */
      BUBBLES(SCALE_PP_INTERLEAVED, "inter"),
      BUBBLES(SCALE_PP_ZB_H1, "zb"),
      BUBBLES(SCALE_PP_ZB_H2, "zb2"),
      BUBBLES(SCALE_PP_ZB_V, "zbv"),
      BUBBLES(SCALE_PP_DUALPIPE, "dual"),
      IN_FLIGHT(SCALE_PP_GPIPE, "gpipe", "microbatches held, GPipe, m = 64", 1.0),
      IN_FLIGHT(SCALE_PP_1F1B, "1f1b", "microbatches held, 1F1B, m = 64", 1.0),
      IN_FLIGHT(SCALE_PP_INTERLEAVED, "inter", "microbatches held, interleaved v = 2, m = 64", 2.0),
      IN_FLIGHT(SCALE_PP_ZB_H2, "zb2", "microbatches held, ZB-H2, m = 64", 1.0),
      IN_FLIGHT(SCALE_PP_DUALPIPE, "dual", "microbatches held, DualPipe, m = 64", 1.0),
      {"copies.dual", "parameter copies, DualPipe", scale_pipeline_param_copies(SCALE_PP_DUALPIPE),
       "", SCALE_FMT_PLAIN},
      /* an attention-heavy backward (B = 2F, W = F) leaves ZB-H2 a residual */
      {"zb2.split", "ZB-H2 bubble, m = 32, F:B:W = 1:2:1",
       100.0 * scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H2, 16.0, 32.0, 1.0, 1.0, 2.0, 1.0),
       "%", SCALE_FMT_PLAIN},
      /* one microbatch per stage (m = p) meets the critical path's floor; fewer cannot */
      {"zb.m4", "ZB-H1 bubble, m = 4 < p",
       100.0 * scale_pipeline_bubble_frac(SCALE_PP_ZB_H1, 16.0, 4.0, 1.0), "%", SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_train_book_strategies(double n, scale_train_strategy out[SCALE_TRAIN_STRATEGIES]) {
  static const struct {
    const char *key, *label;
    bool moe;
    double dp, fsdp;       /* degrees n / these (0: 1) */
    double tp, pp, cp, ep; /* degrees (0: 1) */
    int zero;
    bool sp;
    scale_pp_schedule schedule;
    scale_cp_kind cp_kind;
  } rows[SCALE_TRAIN_STRATEGIES] = {
      {"dp", "pure data parallelism", false, 1, 0, 0, 0, 0, 0, 3, false, SCALE_PP_1F1B,
       SCALE_CP_RING},
      {"zero1", "ZeRO-1", false, 0, 1, 0, 0, 0, 0, 1, false, SCALE_PP_1F1B, SCALE_CP_RING},
      {"fsdp", "FSDP (ZeRO-3)", false, 0, 1, 0, 0, 0, 0, 3, false, SCALE_PP_1F1B, SCALE_CP_RING},
      {"tp8", "FSDP x TP 8", false, 0, 8, 8, 0, 0, 0, 3, false, SCALE_PP_1F1B, SCALE_CP_RING},
      {"tp8sp", "FSDP x TP 8 with SP", false, 0, 8, 8, 0, 0, 0, 3, true, SCALE_PP_1F1B,
       SCALE_CP_RING},
      {"tp32", "FSDP x TP 32 with SP", false, 0, 32, 32, 0, 0, 0, 3, true, SCALE_PP_1F1B,
       SCALE_CP_RING},
      {"pp1f1b", "FSDP x PP 8, 1F1B", false, 0, 8, 0, 8, 0, 0, 3, false, SCALE_PP_1F1B,
       SCALE_CP_RING},
      {"ppzb", "FSDP x PP 8, ZB-H2", false, 0, 8, 0, 8, 0, 0, 3, false, SCALE_PP_ZB_H2,
       SCALE_CP_RING},
      {"cpring", "FSDP x CP 4, ring", false, 0, 4, 0, 0, 4, 0, 3, false, SCALE_PP_1F1B,
       SCALE_CP_RING},
      {"cpuly", "FSDP x CP 4, Ulysses", false, 0, 4, 0, 0, 4, 0, 3, false, SCALE_PP_1F1B,
       SCALE_CP_ULYSSES},
      {"ep", "MoE: FSDP x EP 8", true, 0, 1, 0, 0, 0, 8, 3, false, SCALE_PP_1F1B, SCALE_CP_RING}};
  for (int i = 0; i < SCALE_TRAIN_STRATEGIES; i++) {
    scale_layout l = scale_layout_default();
    l.dp = rows[i].dp > 0.0 ? n / rows[i].dp : 1.0;
    l.fsdp = rows[i].fsdp > 0.0 ? n / rows[i].fsdp : 1.0;
    /* TP, PP, CP and EP are the fixed degrees the rows name; FSDP takes the rest */
    l.tp = rows[i].tp > 0.0 ? rows[i].tp : 1.0;
    l.pp = rows[i].pp > 0.0 ? rows[i].pp : 1.0;
    l.cp = rows[i].cp > 0.0 ? rows[i].cp : 1.0;
    l.ep = rows[i].ep > 0.0 ? rows[i].ep : 1.0;
    l.n_microbatches = l.pp;
    l.zero_stage = rows[i].zero, l.sp = rows[i].sp, l.schedule = rows[i].schedule;
    l.cp_kind = rows[i].cp_kind;
    out[i] = (scale_train_strategy){rows[i].key, rows[i].label, rows[i].moe, l};
  }
  return SCALE_TRAIN_STRATEGIES;
}

int scale_train_result_table(const scale_train_problem *p, const scale_train_result *r,
                             scale_quantity out[SCALE_TRAIN_TABLE_MAX]) {
  double bytes, time_s;
  scale_train_layer_comm_totals(r, &bytes, &time_s);
  double flops = r->fwd_flops_per_layer + r->bwd_flops_per_layer;
  const scale_quantity q[] = {
      {"flops", "  fwd + bwd FLOPs of one layer, one chip", flops, "FLOP", SCALE_FMT_SCI},
      {"t_math", "  their time at peak", flops / bf16_rate(p->chip), "s", SCALE_FMT_TIME},
      {"bytes", "  bytes moved per layer (fwd + bwd)", bytes, "B", SCALE_FMT_SI},
      {"t_comms", "  their time", time_s, "s", SCALE_FMT_TIME},
      {"ratio", "  busiest link / compute, whole step", r->comms_time_s / r->compute_time_s, "",
       SCALE_FMT_PLAIN},
      {"bubble", "  pipeline bubble", 100.0 * r->bubble_frac, "%", SCALE_FMT_PLAIN},
      {"step", "  step time", r->step_time_s, "s", SCALE_FMT_TIME},
      {"mem", "  memory per chip", r->memory_per_chip_bytes, "B", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}
