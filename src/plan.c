/* plan.c — exhaustive layout search for training (plan.h). */
#include "scale/plan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "scale/energy.h"
#include "scale/hybrid_study.h"

#define MAX_DIVISORS 512
#define MAX_THREADS 8

/* ==== names ================================================================================= */

static const char *const objective_names[SCALE_PLAN_OBJECTIVE_COUNT] = {"time", "cost", "mfu",
                                                                        "goodput", "energy"};
static const char *const prune_names[SCALE_PLAN_PRUNE_COUNT] = {
    "tp-divisibility", "cp-divisibility", "pp-depth",     "batch-too-small",
    "ep-divisibility", "other-invalid",   "out-of-memory"};

const char *scale_plan_objective_name(scale_plan_objective objective) {
  return (unsigned)objective < SCALE_PLAN_OBJECTIVE_COUNT ? objective_names[objective] : "?";
}

scale_status scale_plan_objective_parse(const char *text, scale_plan_objective *out) {
  for (int i = 0; text && i < SCALE_PLAN_OBJECTIVE_COUNT; i++)
    if (strcmp(text, objective_names[i]) == 0) {
      *out = (scale_plan_objective)i;
      return SCALE_OK;
    }
  return SCALE_ERR_INVALID;
}

const char *scale_plan_prune_name(scale_plan_prune rule) {
  return (unsigned)rule < SCALE_PLAN_PRUNE_COUNT ? prune_names[rule] : "?";
}

scale_plan_opts scale_plan_opts_default(void) {
  scale_plan_opts o;
  memset(&o, 0, sizeof o);
  o.objective = SCALE_PLAN_TIME;
  o.top_k = 5;
  o.fail_rate_per_chip_hour = o.ckpt_bytes = o.ckpt_write_bytes_per_s = o.restart_s = NAN;
  o.power_w = o.pue = NAN;
  o.goodput_frac = 1.0;
  for (int i = 0; i < SCALE_TRAIN_DIM_COUNT; i++)
    o.allow[i] = true;
  for (int i = 0; i < SCALE_REMAT_COUNT; i++)
    o.allow_remat[i] = true;
  o.partial_remat = true;
  for (int i = 0; i < SCALE_PP_COUNT; i++)
    o.allow_schedule[i] = true;
  for (int i = 1; i <= 3; i++)
    o.allow_zero[i] = true;
  return o;
}

/* ==== one worker's search =================================================================== */

/* A thread's share of the search: its own ranking and counters. */
typedef struct {
  const scale_train_problem *problem;
  const scale_plan_opts *opts;
  bool problem_ok;          /* scale_train_problem_ok(): else every candidate is invalid */
  double tps[MAX_DIVISORS]; /* the tp values this worker owns */
  int n_tps;
  scale_plan_report report; /* ranked[] kept sorted, best first */
  scale_layout layout;      /* scratch */
  scale_train_result result;
  scale_train_cache cache;  /* what does not depend on the layout, and op times by shape */
  scale_plan_prune pruned_by; /* the rule that pruned the tuple being counted, else _COUNT */
} worker;

static bool divides(double a, double b) { return b > 0 && fmod(b, a) == 0.0; }

/* Divisors of n (n <= 2^53, found by trial division up to sqrt(n)), ascending. */
static int divisors(double n, double *out) {
  int lo = 0, hi = 0;
  double high[MAX_DIVISORS];
  for (double d = 1; d * d <= n && lo < MAX_DIVISORS / 2; d++)
    if (fmod(n, d) == 0.0) {
      out[lo++] = d;
      if (d * d != n) high[hi++] = n / d;
    }
  for (int i = hi - 1; i >= 0; i--)
    out[lo++] = high[i];
  return lo;
}

static double score_of(const scale_plan_opts *o, const scale_train_problem *p,
                       const scale_train_result *r) {
  switch (o->objective) {
  case SCALE_PLAN_TIME:
    return r->step_time_s;
  case SCALE_PLAN_MFU:
    return -r->mfu;
  case SCALE_PLAN_COST: {
    double price = p->chip->usd_per_hour;
    double per_hour = isnan(price) ? 1.0 : price; /* without a price, chip-hours */
    return p->n_chips * per_hour * r->step_time_s / 3600.0 / p->batch_tokens;
  }
  case SCALE_PLAN_GOODPUT: /* goodput_frac: the job's, computed once a search */
    return r->step_time_s / o->goodput_frac;
  case SCALE_PLAN_ENERGY: {
    double pue = isnan(o->pue) ? 1.0 : o->pue;
    return p->n_chips * o->power_w * pue * r->step_time_s / o->goodput_frac / p->batch_tokens;
  }
  case SCALE_PLAN_OBJECTIVE_COUNT:
    break;
  }
  return r->step_time_s;
}

/* Total order on layouts for ties: the degrees, then the policies. */
static int layout_cmp(const scale_layout *a, const scale_layout *b) {
  const double ka[] = {a->tp,
                       a->cp,
                       a->pp,
                       a->fsdp,
                       a->dp,
                       a->ep,
                       a->etp,
                       a->zero_stage,
                       a->sp,
                       a->schedule,
                       a->n_microbatches,
                       a->remat,
                       a->cp_kind,
                       a->link[SCALE_TRAIN_DIM_PP],
                       a->n_axes[SCALE_TRAIN_DIM_FSDP],
                       a->n_axes[SCALE_TRAIN_DIM_TP],
                       a->n_axes[SCALE_TRAIN_DIM_DP]};
  const double kb[] = {b->tp,
                       b->cp,
                       b->pp,
                       b->fsdp,
                       b->dp,
                       b->ep,
                       b->etp,
                       b->zero_stage,
                       b->sp,
                       b->schedule,
                       b->n_microbatches,
                       b->remat,
                       b->cp_kind,
                       b->link[SCALE_TRAIN_DIM_PP],
                       b->n_axes[SCALE_TRAIN_DIM_FSDP],
                       b->n_axes[SCALE_TRAIN_DIM_TP],
                       b->n_axes[SCALE_TRAIN_DIM_DP]};
  for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
    if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return 0;
}

/* Dimensions in use, plus a pipeline pushed onto DCN: on ties the simpler layout wins. */
static int complexity(const scale_layout *l) {
  const double degrees[] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  int n = 0;
  for (size_t i = 0; i < sizeof degrees / sizeof degrees[0]; i++)
    n += degrees[i] > 1;
  return n + (l->pp > 1 && l->link[SCALE_TRAIN_DIM_PP] == SCALE_TRAIN_LINK_DCN);
}

/* Ranking order: the score; within 1e-9 of it, fewer dimensions, then less memory per chip,
 * then the degrees (a total order, so the ranking does not depend on threads). */
static bool better(double score_a, const scale_layout *a, const scale_train_result *ra,
                   double score_b, const scale_layout *b, const scale_train_result *rb) {
  if (fabs(score_a - score_b) > 1e-9 * fmax(fabs(score_a), fabs(score_b))) return score_a < score_b;
  int ca = complexity(a), cb = complexity(b);
  if (ca != cb) return ca < cb;
  if (ra->memory_per_chip_bytes != rb->memory_per_chip_bytes)
    return ra->memory_per_chip_bytes < rb->memory_per_chip_bytes;
  return layout_cmp(a, b) < 0;
}

/* Inserts the current candidate into the worker's sorted top-K if it belongs there. */
static void rank(worker *w, double score) {
  scale_plan_report *r = &w->report;
  int k = w->opts->top_k;
  if (r->n_ranked == k && !better(score, &w->layout, &w->result, r->ranked[k - 1].score,
                                  &r->ranked[k - 1].layout, &r->ranked[k - 1].result))
    return;
  int i = r->n_ranked < k ? r->n_ranked++ : k - 1;
  while (i > 0 && better(score, &w->layout, &w->result, r->ranked[i - 1].score,
                         &r->ranked[i - 1].layout, &r->ranked[i - 1].result)) {
    r->ranked[i] = r->ranked[i - 1];
    i--;
  }
  r->ranked[i].layout = w->layout;
  r->ranked[i].result = w->result;
  r->ranked[i].score = score;
}

/* [listing:plan_consider] One candidate: the cheap rules, validation, evaluation, ranking.
 * Whether it fit (and w->result holds its evaluation). */
static bool consider(worker *w, double n_seq) {
  scale_layout *l = &w->layout;
  scale_plan_report *r = &w->report;
  r->n_candidates++;
  if (w->pruned_by != SCALE_PLAN_PRUNE_COUNT) { /* counting a pruned tuple's variants */
    r->n_pruned[w->pruned_by]++;
    return false;
  }
  double dpf = l->dp * l->fsdp;
  if (dpf > n_seq || l->n_microbatches > n_seq / dpf) {
    r->n_pruned[SCALE_PLAN_PRUNE_BATCH]++;
    return false;
  }
  if (l->cp > 1 && l->cp_kind == SCALE_CP_ULYSSES &&
      w->problem->model->arch == SCALE_ARCH_TRANSFORMER &&
      !divides(l->cp, (double)w->problem->model->n_heads / l->tp)) {
    r->n_pruned[SCALE_PLAN_PRUNE_CP]++;
    return false;
  }
  if (!w->problem_ok || !scale_train_candidate_ok(w->problem, l)) {
    r->n_pruned[SCALE_PLAN_PRUNE_INVALID]++;
    return false;
  }
  scale_train_eval_cached(w->problem, l, &w->cache, &w->result);
  r->n_evaluated++;
  if (!w->result.fits) {
    r->n_pruned[SCALE_PLAN_PRUNE_MEMORY]++;
    return false;
  }
  double score = score_of(w->opts, w->problem, &w->result);
  if (isnan(score)) {
    r->n_pruned[SCALE_PLAN_PRUNE_INVALID]++;
    return false;
  }
  rank(w, score);
  return true;
}
/* [/listing:plan_consider] */

/* Whether the ring CP just evaluated leaves communication exposed that an all-gather of K and
 * V (the same bytes less the ring's third pass, none of it hidden) could undercut: CP's own
 * under the step model, any under the roofline. Where the ring hides it all, or does not fit
 * (an all-gather holds more), all-gather CP cannot win and is not enumerated. */
static bool ring_exposed(const worker *w) {
  if (w->problem->step_params) return w->result.step.exposed_s[SCALE_STEP_COMM_CP] > 0.0;
  return w->result.exposed_comms_time_s > 0.0;
}

enum { PARTIAL_TRIES = 3 }; /* layers added to the estimate before giving up */

/* Block remat of the fewest of each stage's L layers that fits, after block remat of all of
 * them fit (w->result) where keeping every activation did not. Memory falls with the share
 * linearly on one stage and piecewise linearly with a pipeline, so one probe at half the
 * layers and the full share's memory give the share that reaches HBM; rounded up to whole
 * layers and stepped up until it fits. Each try is a candidate of its own. */
static void partial_remat(worker *w, double n_seq) {
  scale_layout *l = &w->layout;
  double layers = scale_train_stage_layers(w->problem->model, l->pp);
  double all_bytes = w->result.memory_per_chip_bytes, cap = w->result.hbm_bytes;
  double half = floor(layers / 2.0);
  if (half < 1.0) return;
  l->remat_frac = half / layers;
  bool fits = consider(w, n_seq);
  double probe = w->result.memory_per_chip_bytes;
  double slope = (all_bytes - probe) / (1.0 - l->remat_frac); /* bytes per share, < 0 */
  double lo = fits ? 1.0 : half + 1.0, hi = fits ? half - 1.0 : layers - 1.0;
  double n = fmax(lo, ceil((l->remat_frac + (cap - probe) / slope) * layers - 1e-9));
  for (int t = 0; t < PARTIAL_TRIES && slope < 0.0 && n <= hi; t++, n++) {
    l->remat_frac = n / layers;
    if (consider(w, n_seq)) break;
  }
  l->remat_frac = 1.0;
}

/* Policies of one degree tuple: ZeRO stage, SP, remat, CP kind. */
static void policies(worker *w, double n_seq) {
  const scale_plan_opts *o = w->opts;
  scale_layout *l = &w->layout;
  int zero_lo = l->fsdp > 1 ? 1 : 3, zero_hi = 3;
  for (int z = zero_lo; z <= zero_hi; z++) {
    if (l->fsdp > 1 && !o->allow_zero[z]) continue;
    l->zero_stage = z;
    for (int sp = 0; sp <= (l->tp > 1 && o->allow[SCALE_TRAIN_DIM_TP] ? 1 : 0); sp++) {
      l->sp = sp != 0;
      bool none_fits[SCALE_CP_COUNT] = {false};
      for (int rm = 0; rm < SCALE_REMAT_COUNT; rm++) {
        if (!o->allow_remat[rm]) continue;
        l->remat = (scale_remat)rm;
        bool gather = false; /* whether all-gather CP may beat the ring */
        for (int ck = 0; ck < (l->cp > 1 ? SCALE_CP_COUNT : 1); ck++) {
          l->cp_kind = (scale_cp_kind)ck;
          if (ck == SCALE_CP_ALLGATHER && !gather) continue;
          bool fits = consider(w, n_seq);
          if (rm == SCALE_REMAT_NONE) none_fits[ck] = fits;
          if (ck == SCALE_CP_RING) gather = fits && ring_exposed(w);
          if (rm == SCALE_REMAT_BLOCK && fits && !none_fits[ck] && o->partial_remat)
            partial_remat(w, n_seq);
        }
      }
    }
  }
}

/* The ICI dimensions of a mapped layout that move data (EP reuses the data-parallel axes and
 * PP sends point to point, so neither takes torus axes of its own). */
static int ici_dims(const scale_layout *l, int dims[SCALE_TRAIN_DIM_COUNT]) {
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  int k = 0;
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    if (d != SCALE_TRAIN_DIM_EP && d != SCALE_TRAIN_DIM_PP && degree[d] > 1 &&
        l->link[d] == SCALE_TRAIN_LINK_ICI)
      dims[k++] = d;
  return k;
}

/* Every split of the torus axes among the ICI dimensions (each at least one axis; the spare
 * axes to one of them: on a 3-D v5p, FSDP x TP is (2, 1) or (1, 2), the book's M_X, M_Y),
 * then the microbatch counts. The book's own split is one of them. */
static void axis_splits(worker *w, double n_seq, const double *ms, int n_ms) {
  scale_layout *l = &w->layout;
  const scale_chip *c = w->problem->chip;
  int dims[SCALE_TRAIN_DIM_COUNT];
  int k = c->kind == SCALE_HW_TPU ? ici_dims(l, dims) : 0;
  double axes = isfinite(c->ici_n_axes) ? c->ici_n_axes : 1;
  int n_splits = k >= 2 && k < axes ? k : 1;
  for (int split = 0; split < n_splits; split++) {
    if (n_splits > 1)
      for (int i = 0; i < k; i++)
        l->n_axes[dims[i]] = i == split ? axes - (k - 1) : 1;
    for (int f = 0; f < n_ms; f++) {
      l->n_microbatches = ms[f];
      policies(w, n_seq);
    }
  }
}

/* Whether counting the embedding and the loss as a layer each in the pipeline split
 * (Megatron's account-for-embedding/loss-in-pipeline-split) evens a split that is uneven
 * without them: the end stages then run a layer fewer, as Llama 3's 405B pipeline does (126
 * layers + 2 over 16 x 4 chunks). Only for the schedules whose ends are two stages (not the
 * V-shaped ones, whose first and last chunks share a stage). */
static bool embed_loss_evens(const scale_layout *l, double layers) {
  if (l->schedule != SCALE_PP_1F1B && l->schedule != SCALE_PP_GPIPE &&
      l->schedule != SCALE_PP_INTERLEAVED)
    return false;
  double units = scale_pipeline_chunks(l->schedule, l->n_virtual_stages) * l->pp;
  return fmod(layers, units) != 0.0 && fmod(layers + 2.0, units) == 0.0;
}

/* Pipeline schedules and microbatch counts (or gradient accumulation), and the mappings onto
 * the hardware: the book's (innermost dimensions into the fast domain) and, for a pipeline,
 * the same with the stages pushed outermost onto DCN; then every split of the torus axes. */
static void schedules(worker *w, double n_seq) {
  const scale_plan_opts *o = w->opts;
  const scale_train_problem *p = w->problem;
  scale_layout *l = &w->layout;
  const double ms[4] = {1, 2, 4, 8};
  if (l->pp == 1) {
    l->schedule = SCALE_PP_1F1B;
    l->n_virtual_stages = 1;
    l->pp_embed_loss = false;
    scale_train_layout_map(p->chip, p->n_chips, l);
    axis_splits(w, n_seq, ms, 4);
    return;
  }
  double layers = (double)p->model->n_layers;
  const double pms[4] = {l->pp, 2 * l->pp, 4 * l->pp, 8 * l->pp};
  for (int s = 0; s < SCALE_PP_COUNT; s++) {
    if (!o->allow_schedule[s]) continue;
    l->schedule = (scale_pp_schedule)s;
    l->n_virtual_stages = s == SCALE_PP_INTERLEAVED ? 2 : 1;
    /* DualPipe runs half the stages each way: an odd pipeline has no mirror. A schedule
     * that breaks the rule is enumerated, not evaluated (prune_tuple()). */
    scale_plan_prune outer = w->pruned_by;
    if ((scale_pipeline_chunks(l->schedule, l->n_virtual_stages) * l->pp > layers ||
         (s == SCALE_PP_DUALPIPE && fmod(l->pp, 2.0) != 0.0)) &&
        outer == SCALE_PLAN_PRUNE_COUNT)
      w->pruned_by = SCALE_PLAN_PRUNE_PP;
    l->pp_embed_loss = embed_loss_evens(l, layers);
    for (int mapping = 0; mapping < 2; mapping++) {
      scale_train_layout_map(p->chip, p->n_chips, l);
      if (mapping == 1) {
        if (l->link[SCALE_TRAIN_DIM_PP] == SCALE_TRAIN_LINK_DCN || isnan(p->chip->dcn_bytes_per_s))
          continue; /* the book's mapping already put the pipeline outermost */
        l->link[SCALE_TRAIN_DIM_PP] = SCALE_TRAIN_LINK_DCN;
        l->n_axes[SCALE_TRAIN_DIM_PP] = 1;
      }
      axis_splits(w, n_seq, pms, 4);
    }
    w->pruned_by = outer;
  }
}

/* A tuple broken by 'rule': its variants are enumerated (not evaluated) so that the count of
 * layouts is the same whichever rule prunes them. */
static void prune_tuple(worker *w, scale_plan_prune rule, double n_seq) {
  w->pruned_by = rule;
  schedules(w, n_seq);
  w->pruned_by = SCALE_PLAN_PRUNE_COUNT;
}

static bool tp_ok(const scale_model *m, double tp) {
  return scale_transformer_tp_check(m, tp, NULL) == SCALE_OK;
}

/* Whether no variant of the degree tuple can fit: the memory floor of its most sharded
 * allowed ZeRO stage is over HBM (most MoE tuples: the experts alone overflow). */
static bool tuple_overflows(worker *w) {
  scale_layout *l = &w->layout;
  double floor_bytes = INFINITY;
  for (int z = l->fsdp > 1 ? 1 : 3; z <= 3; z++) {
    if (l->fsdp > 1 && !w->opts->allow_zero[z]) continue;
    l->zero_stage = z;
    floor_bytes = fmin(floor_bytes, scale_train_memory_floor_bytes(w->problem, l, &w->cache));
  }
  return floor_bytes > w->problem->chip->hbm_bytes;
}

/* One degree tuple: the cheap divisibility rules, then its schedules and policies. */
static void tuple(worker *w, double n_seq) {
  const scale_train_problem *p = w->problem;
  const scale_model *m = p->model;
  const scale_layout *l = &w->layout;
  if (!tp_ok(m, l->tp))
    prune_tuple(w, SCALE_PLAN_PRUNE_TP, n_seq);
  else if (l->cp > 1 && !divides(l->cp, p->seq_len))
    prune_tuple(w, SCALE_PLAN_PRUNE_CP, n_seq);
  else if (l->pp > (double)m->n_layers)
    prune_tuple(w, SCALE_PLAN_PRUNE_PP, n_seq);
  else if (l->dp * l->fsdp > n_seq)
    prune_tuple(w, SCALE_PLAN_PRUNE_BATCH, n_seq);
  else if (l->ep > 1 && !divides(l->ep, (double)m->n_experts))
    prune_tuple(w, SCALE_PLAN_PRUNE_EP, n_seq);
  else if (tuple_overflows(w))
    prune_tuple(w, SCALE_PLAN_PRUNE_MEMORY, n_seq);
  else
    schedules(w, n_seq);
}

/* The expert grids of one degree tuple: on a MoE, every etp dividing tp and every ep dividing
 * the stage's dp x fsdp x tp x cp ranks over etp (Megatron-Core's parallel folding, the
 * validator's rule); a dense model keeps ep 1 and etp unset. */
static void expert_grids(worker *w, double n_seq, double tp, double cp, double pp, double fsdp,
                         double dp) {
  const scale_plan_opts *o = w->opts;
  bool moe = scale_model_is_moe(w->problem->model);
  double etps[MAX_DIVISORS], eps[MAX_DIVISORS];
  int n_etp = moe ? divisors(tp, etps) : (etps[0] = 0, 1);
  for (int iet = 0; iet < n_etp; iet++) {
    double etp = etps[iet];
    double stage = dp * fsdp * tp * cp;
    int n_ep =
        moe && o->allow[SCALE_TRAIN_DIM_EP] ? divisors(stage / fmax(etp, 1), eps) : (eps[0] = 1, 1);
    for (int ie = 0; ie < n_ep; ie++) {
      scale_layout *l = &w->layout;
      *l = scale_layout_default();
      l->tp = tp, l->cp = cp, l->pp = pp, l->fsdp = fsdp, l->dp = dp, l->ep = eps[ie];
      l->etp = etp;
      tuple(w, n_seq);
    }
  }
}

/* Every degree tuple with the worker's tp values. */
static void search(worker *w) {
  const scale_train_problem *p = w->problem;
  const scale_plan_opts *o = w->opts;
  double n = p->n_chips, n_seq = floor(p->batch_tokens / p->seq_len);
  double cps[MAX_DIVISORS], pps[MAX_DIVISORS], fsdps[MAX_DIVISORS];
  for (int it = 0; it < w->n_tps; it++) {
    double tp = w->tps[it];
    int n_cp = o->allow[SCALE_TRAIN_DIM_CP] ? divisors(n / tp, cps) : (cps[0] = 1, 1);
    for (int ic = 0; ic < n_cp; ic++) {
      double cp = cps[ic];
      int n_pp = o->allow[SCALE_TRAIN_DIM_PP] ? divisors(n / (tp * cp), pps) : (pps[0] = 1, 1);
      for (int ip = 0; ip < n_pp; ip++) {
        double pp = pps[ip], rest = n / (tp * cp * pp);
        int n_fsdp = o->allow[SCALE_TRAIN_DIM_FSDP] ? divisors(rest, fsdps) : (fsdps[0] = 1, 1);
        for (int ifs = 0; ifs < n_fsdp; ifs++) {
          double fsdp = fsdps[ifs], dp = rest / fsdp;
          if (dp > 1 && !o->allow[SCALE_TRAIN_DIM_DP]) continue;
          expert_grids(w, n_seq, tp, cp, pp, fsdp, dp);
        }
      }
    }
  }
}

static void *run_worker(void *arg) {
  search(arg);
  return NULL;
}

/* ==== the whole search ====================================================================== */

static void merge(scale_plan_report *out, const worker *w, int top_k) {
  out->n_candidates += w->report.n_candidates;
  out->n_evaluated += w->report.n_evaluated;
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    out->n_pruned[i] += w->report.n_pruned[i];
  for (int i = 0; i < w->report.n_ranked; i++) {
    const scale_plan_entry *e = &w->report.ranked[i];
    int n = out->n_ranked;
    if (n == top_k && !better(e->score, &e->layout, &e->result, out->ranked[n - 1].score,
                              &out->ranked[n - 1].layout, &out->ranked[n - 1].result))
      continue;
    int j = n < top_k ? out->n_ranked++ : top_k - 1;
    while (j > 0 && better(e->score, &e->layout, &e->result, out->ranked[j - 1].score,
                           &out->ranked[j - 1].layout, &out->ranked[j - 1].result)) {
      out->ranked[j] = out->ranked[j - 1];
      j--;
    }
    out->ranked[j] = *e;
  }
}

/* The goodput of a job of 'n_chips' (energy.h, Daly's interval); 1 without a failure model. */
static double goodput_of(const scale_plan_opts *o, double n_chips) {
  if (isnan(o->fail_rate_per_chip_hour)) return 1.0;
  double mtbi = scale_energy_mtbi_s(o->fail_rate_per_chip_hour, n_chips);
  double ckpt = scale_energy_ckpt_s(o->ckpt_bytes, o->ckpt_write_bytes_per_s);
  return scale_energy_goodput_frac(scale_energy_daly_interval_s(ckpt, mtbi), ckpt, o->restart_s,
                                   mtbi);
}

static scale_status check(const scale_train_problem *p, const scale_plan_opts *o,
                          scale_diag *diag) {
  if (!p || !p->model || !p->chip)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "plan: missing model or hardware");
  if (!(p->n_chips >= 1) || p->n_chips != floor(p->n_chips) || p->n_chips > SCALE_PLAN_CHIPS_MAX)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "plan: chip count %g must be an integer from 1 to 1e9", p->n_chips);
  if (!(p->batch_tokens >= p->seq_len) || !(p->seq_len >= 1))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "plan: the batch (%g tokens) must hold at least one sequence (%g)",
                          p->batch_tokens, p->seq_len);
  if (o->top_k < 1 || o->top_k > SCALE_PLAN_TOP_MAX)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "plan: top_k %d must be 1..%d", o->top_k,
                          SCALE_PLAN_TOP_MAX);
  if ((unsigned)o->objective >= SCALE_PLAN_OBJECTIVE_COUNT || o->n_threads < 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "plan: invalid options");
  if (o->objective == SCALE_PLAN_ENERGY && !(o->power_w > 0.0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "plan: the energy objective needs a chip's power");
  if (o->objective == SCALE_PLAN_GOODPUT && isnan(o->fail_rate_per_chip_hour))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "plan: the goodput objective needs an interruption rate");
  if (!isnan(o->fail_rate_per_chip_hour) && !(goodput_of(o, p->n_chips) > 0.0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "plan: the failure inputs give no goodput (rate, checkpoint, restart)");
  return SCALE_OK;
}

scale_status scale_plan_train(const scale_train_problem *problem, const scale_plan_opts *opts,
                              scale_plan_report *out, scale_diag *diag) {
  scale_plan_opts local = opts ? *opts : scale_plan_opts_default();
  const scale_plan_opts *o = &local;
  scale_status st = check(problem, o, diag);
  if (st) return st;
  local.goodput_frac = goodput_of(o, problem->n_chips);
  memset(out, 0, sizeof *out);

  double all_tps[MAX_DIVISORS];
  int n_tps =
      o->allow[SCALE_TRAIN_DIM_TP] ? divisors(problem->n_chips, all_tps) : (all_tps[0] = 1, 1);
  int n_threads = o->n_threads;
  if (n_threads == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    n_threads = cores > 0 ? (int)cores : 1;
  }
  if (n_threads > MAX_THREADS) n_threads = MAX_THREADS;
  if (n_threads > n_tps) n_threads = n_tps;

  /* Workers hold a report each (tens of kB): on the heap, not on thread stacks. */
  worker *workers = calloc((size_t)n_threads, sizeof *workers);
  if (!workers) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "plan: out of memory");
  for (int t = 0; t < n_threads; t++) {
    workers[t].problem = problem;
    workers[t].opts = o;
    workers[t].problem_ok = scale_train_problem_ok(problem);
    workers[t].pruned_by = SCALE_PLAN_PRUNE_COUNT;
    scale_train_cache_init(&workers[t].cache, problem);
  }
  /* Deal tp values round-robin so threads get similar shares (small tp = most work). */
  for (int i = 0; i < n_tps; i++) {
    worker *w = &workers[i % n_threads];
    w->tps[w->n_tps++] = all_tps[i];
  }
  pthread_t threads[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  for (int t = 1; t < n_threads; t++)
    started[t] = pthread_create(&threads[t], NULL, run_worker, &workers[t]) == 0;
  search(&workers[0]);
  for (int t = 1; t < n_threads; t++) {
    if (started[t])
      pthread_join(threads[t], NULL);
    else
      search(&workers[t]); /* could not start a thread: do its share here */
  }
  for (int t = 0; t < n_threads; t++)
    merge(out, &workers[t], o->top_k);
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    out->n_pruned_total += out->n_pruned[i];
  out->n_threads_used = n_threads;
  free(workers);
  return SCALE_OK;
}

/* ==== text ================================================================================== */

/* ", 2 axes" when an ICI dimension spans more than one torus axis, else "". */
static const char *axes_note(const scale_layout *l, scale_train_dim d) {
  if (l->link[d] != SCALE_TRAIN_LINK_ICI || !(l->n_axes[d] > 1)) return "";
  return l->n_axes[d] >= 3 ? ", 3 axes" : ", 2 axes";
}

char *scale_plan_layout_str(const scale_layout *l, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
#define PUT(...)                                                                                   \
  do {                                                                                             \
    int k_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                              \
    if (k_ > 0) n += (size_t)k_;                                                                   \
  } while (0)
  const char *sep = "";
  if (l->dp > 1) {
    PUT("%sdp %g", sep, l->dp);
    sep = " x ";
  }
  if (l->fsdp > 1) {
    PUT("%sfsdp %g (zero-%d%s)", sep, l->fsdp, l->zero_stage, axes_note(l, SCALE_TRAIN_DIM_FSDP));
    sep = " x ";
  }
  if (l->tp > 1) {
    const char *axes = axes_note(l, SCALE_TRAIN_DIM_TP);
    if (l->sp)
      PUT("%stp %g (sp%s)", sep, l->tp, axes);
    else if (*axes)
      PUT("%stp %g (%s)", sep, l->tp, axes + 2); /* skip ", " */
    else
      PUT("%stp %g", sep, l->tp);
    sep = " x ";
  }
  if (l->pp > 1) {
    PUT("%spp %g [%s", sep, l->pp, scale_pp_schedule_name(l->schedule));
    if (l->schedule == SCALE_PP_INTERLEAVED) PUT(" v=%g", l->n_virtual_stages);
    PUT(" m=%g%s%s]", l->n_microbatches, l->pp_embed_loss ? " embed+loss" : "",
        l->link[SCALE_TRAIN_DIM_PP] != SCALE_TRAIN_LINK_DCN ? ""
        : scale_layout_on_torus(l)                                       ? " over dcn"
                                                            : " over scale-out");
    sep = " x ";
  }
  if (l->ep > 1 || l->etp > 1) {
    PUT("%sep %g", sep, l->ep);
    if (l->etp > 1) PUT(" (etp %g)", l->etp);
    sep = " x ";
  }
  if (l->cp > 1) {
    PUT("%scp %g (%s)", sep, l->cp, scale_cp_kind_name(l->cp_kind));
    sep = " x ";
  }
  if (!*sep) PUT("1 chip");
  if (l->pp == 1 && l->n_microbatches > 1) PUT(", %g microbatches", l->n_microbatches);
  PUT(", remat %s", scale_train_remat_name(l->remat));
  if (l->remat_frac < 1.0) PUT(" of %.3g%% of the layers", 100.0 * l->remat_frac);
#undef PUT
  return buf;
}

char *scale_plan_explain(const scale_plan_report *r, char *buf, size_t size) {
  if (size == 0) return buf;
  buf[0] = '\0';
  if (r->n_ranked < 2) return buf;
  const scale_train_result *a = &r->ranked[0].result, *b = &r->ranked[1].result;
  double gap = (b->step_time_s / a->step_time_s - 1.0) * 100.0;
  char second[160];
  scale_plan_layout_str(&r->ranked[1].layout, second, sizeof second);
  if (fabs(gap) < 0.05) {
    int ca = complexity(&r->ranked[0].layout), cb = complexity(&r->ranked[1].layout);
    if (ca != cb)
      snprintf(buf, size,
               "The runner-up (%s) ties within 0.05%% of the step time; the best wins as the "
               "simpler layout (%d parallel dimensions against %d).",
               second, ca, cb);
    else {
      /* The difference itself: two sizes of three digits each often print the same. */
      char mem[32], less[32];
      double saved = b->memory_per_chip_bytes - a->memory_per_chip_bytes;
      scale_format(mem, sizeof mem, a->memory_per_chip_bytes, "B", SCALE_FMT_SI);
      scale_format(less, sizeof less, saved, "B", SCALE_FMT_SI);
      if (saved > 0.0)
        snprintf(buf, size,
                 "The runner-up (%s) ties within 0.05%% of the step time; the best wins by "
                 "needing less memory per chip (%s, %s less).",
                 second, mem, less);
      else
        snprintf(buf, size,
                 "The runner-up (%s) ties within 0.05%% of the step time and in memory (%s per "
                 "chip); the best comes first in the search's fixed order.",
                 second, mem);
    }
    return buf;
  }
  if (b->step_model) {
    /* the step model: where the runner-up's extra time goes, by part */
    int worst = scale_step_worst_exposed(&b->step);
    char comm[512] = "", t[6][32];
    const double times[6] = {b->compute_time_s,       a->compute_time_s, b->exposed_comms_time_s,
                             a->exposed_comms_time_s, b->bubble_time_s,  a->bubble_time_s};
    for (int i = 0; i < 6; i++)
      scale_format(t[i], sizeof t[i], times[i], "s", SCALE_FMT_TIME);
    if (worst >= 0) {
      char w[32];
      scale_format(w, sizeof w, b->step.exposed_s[worst], "s", SCALE_FMT_TIME);
      snprintf(comm, sizeof comm, "; its largest exposed communication is %s on %s, %s (%s)",
               scale_step_comm_name((scale_step_comm)worst),
               scale_step_net_name(b->step.net[worst]), w,
               scale_step_comm_rule((scale_step_comm)worst, r->ranked[1].layout.tp_overlap));
    }
    snprintf(buf, size,
             "The runner-up (%s) is %.3g%% slower per step (step model): compute %s against %s, "
             "exposed communication %s against %s, bubble %s against %s%s.",
             second, gap, t[0], t[1], t[2], t[3], t[4], t[5], comm);
  } else if (b->bound == SCALE_TRAIN_BOUND_COMMS)
    snprintf(buf, size,
             "The runner-up (%s) is %.3g%% slower per step: it is comms-bound, its %s taking "
             "%.3g ms against %.3g ms of compute (%s).",
             second, gap, scale_train_comm_name(b->binding_comm), b->comms_time_s * 1e3,
             b->compute_time_s * 1e3, b->reason ? b->reason : "");
  else
    snprintf(buf, size,
             "The runner-up (%s) is %.3g%% slower per step: both are compute-bound; it loses "
             "%.3g ms to %s (bubble %.3g%%, exposed comms %.3g ms, remat %.3g%% extra FLOPs).",
             second, gap, (b->step_time_s - a->step_time_s) * 1e3,
             b->bubble_frac > a->bubble_frac ? "the pipeline bubble" : "extra work",
             b->bubble_frac * 100.0, b->exposed_comms_time_s * 1e3,
             b->flops_per_chip > 0 ? b->remat_flops_per_chip / b->flops_per_chip * 100.0 : 0.0);
  return buf;
}

/* ==== serving search ======================================================================== */

static const char *const infer_objective_names[SCALE_PLAN_INFER_OBJECTIVE_COUNT] = {"throughput",
                                                                                    "cost"};

const char *scale_plan_infer_objective_name(scale_plan_infer_objective objective) {
  return (unsigned)objective < SCALE_PLAN_INFER_OBJECTIVE_COUNT ? infer_objective_names[objective]
                                                                : "?";
}

scale_status scale_plan_infer_objective_parse(const char *text, scale_plan_infer_objective *out) {
  for (int i = 0; text && i < SCALE_PLAN_INFER_OBJECTIVE_COUNT; i++)
    if (strcmp(text, infer_objective_names[i]) == 0) {
      *out = (scale_plan_infer_objective)i;
      return SCALE_OK;
    }
  return SCALE_ERR_INVALID;
}

scale_plan_infer_opts scale_plan_infer_opts_default(double prompt, double decode_len) {
  scale_plan_infer_opts o;
  memset(&o, 0, sizeof o);
  o.prompt = prompt;
  o.decode_len = decode_len;
  o.objective = SCALE_PLAN_INFER_THROUGHPUT;
  o.allow_weight[SCALE_DTYPE_BF16] = o.allow_weight[SCALE_DTYPE_INT8] = true;
  o.allow_kv[SCALE_DTYPE_BF16] = o.allow_kv[SCALE_DTYPE_INT8] = true;
  o.top_k = 5;
  return o;
}

void scale_plan_infer_opts_only_dtype(scale_plan_infer_opts *opts, scale_dtype dtype) {
  if ((int)dtype < 0 || dtype >= SCALE_DTYPE_COUNT) return;
  for (int d = 0; d < SCALE_DTYPE_COUNT; d++)
    opts->allow_weight[d] = opts->allow_kv[d] = d == (int)dtype;
}

double scale_plan_infer_fewest_chips(const scale_plan_infer_report *report) {
  double fewest = NAN;
  for (int i = 0; i < report->n_ranked; i++)
    if (!(report->ranked[i].config.n_chips >= fewest)) fewest = report->ranked[i].config.n_chips;
  return fewest;
}

/* Total order for ties: fewer chips, then the config's fields. */
static bool infer_better(const scale_plan_infer_entry *a, const scale_plan_infer_entry *b) {
  if (fabs(a->score - b->score) > 1e-9 * fmax(fabs(a->score), fabs(b->score)))
    return a->score < b->score;
  const scale_infer_config *x = &a->config, *y = &b->config;
  const double ka[] = {x->n_chips,
                       x->tp,
                       x->batch,
                       (double)x->ffn_layout,
                       scale_dtype_bytes(x->weight_dtype),
                       scale_dtype_bytes(x->kv_dtype)};
  const double kb[] = {y->n_chips,
                       y->tp,
                       y->batch,
                       (double)y->ffn_layout,
                       scale_dtype_bytes(y->weight_dtype),
                       scale_dtype_bytes(y->kv_dtype)};
  for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
    if (ka[i] != kb[i]) return ka[i] < kb[i];
  return false;
}

static void infer_rank(scale_plan_infer_report *r, const scale_plan_infer_entry *e, int k) {
  if (r->n_ranked == k && !infer_better(e, &r->ranked[k - 1])) return;
  int i = r->n_ranked < k ? r->n_ranked++ : k - 1;
  while (i > 0 && infer_better(e, &r->ranked[i - 1])) {
    r->ranked[i] = r->ranked[i - 1];
    i--;
  }
  r->ranked[i] = *e;
}

/* Batches of one slice layout: double until HBM runs out; rank what meets the target. */
static void infer_batches(const scale_model *m, const scale_chip *c, const scale_plan_infer_opts *o,
                          scale_infer_config cfg, scale_plan_infer_report *r) {
  double copies = cfg.n_chips / cfg.tp;
  scale_plan_infer_entry e;
  for (double per_copy = 1; per_copy <= 1 << 20; per_copy *= 2) {
    cfg.batch = per_copy * copies;
    r->n_candidates++;
    if (scale_infer_validate(m, c, &cfg, NULL) != SCALE_OK) {
      r->n_invalid++;
      return;
    }
    e.memory = scale_infer_memory_eval(m, c, &cfg);
    if (!e.memory.fits) {
      r->n_too_big++;
      return; /* larger batches only need more memory */
    }
    e.decode = scale_infer_decode_eval(m, c, &cfg);
    if (o->max_step_s > 0 && !(e.decode.step_s <= o->max_step_s)) {
      r->n_too_slow++;
      return; /* larger batches only take longer per step */
    }
    e.config = cfg;
    e.prefill = scale_infer_prefill_eval(m, c, &cfg);
    double cost = e.decode.cost_usd_per_million_tokens;
    e.score = o->objective == SCALE_PLAN_INFER_COST && isfinite(cost)
                  ? cost
                  : -e.decode.tokens_per_s_per_chip;
    if (isfinite(e.score)) infer_rank(r, &e, o->top_k);
  }
}

scale_status scale_plan_infer(const scale_model *model, const scale_chip *chip,
                              const scale_plan_infer_opts *opts, scale_plan_infer_report *out,
                              scale_diag *diag) {
  if (!model || !chip || !opts || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "plan infer: missing argument");
  const scale_plan_infer_opts *o = opts;
  if (!(o->prompt >= 0) || !(o->decode_len >= 1) || !(o->max_step_s >= 0) ||
      !(o->max_chips >= 0 && o->max_chips <= SCALE_PLAN_CHIPS_MAX) || o->top_k < 1 ||
      o->top_k > SCALE_PLAN_TOP_MAX || (unsigned)o->objective >= SCALE_PLAN_INFER_OBJECTIVE_COUNT)
    return scale_diag_set(
        diag, SCALE_ERR_INVALID, "", 0,
        "plan infer: prompt >= 0, output >= 1, latency >= 0, max chips 0..1e9 and "
        "top 1..%d",
        SCALE_PLAN_TOP_MAX);
  memset(out, 0, sizeof *out);
  double limit = o->max_chips;
  if (limit == 0)
    limit = chip->kind == SCALE_HW_GPU ? chip->nvlink_domain_size : scale_chip_pod_chips(chip);
  if (!(limit >= 1)) limit = 1;
  if (limit > SCALE_PLAN_CHIPS_MAX) limit = SCALE_PLAN_CHIPS_MAX; /* also caps inf and 1e308 */
  double context = o->prompt + o->decode_len / 2.0;
  /* One model copy per slice (tp = chips): replicas of a slice serve more traffic at the same
   * tokens/s per chip and cost, so they add nothing to rank. At most 30 slice sizes. */
  for (double chips = 1; chips <= limit; chips *= 2) {
    double tp = chips;
    for (int wd = 0; wd < SCALE_DTYPE_COUNT; wd++) {
      if (!o->allow_weight[wd]) continue;
      for (int kd = 0; kd < SCALE_DTYPE_COUNT; kd++) {
        if (!o->allow_kv[kd]) continue;
        for (int ws2d = 0; ws2d < (tp > 1 ? 2 : 1); ws2d++) {
          scale_infer_config cfg = scale_infer_config_default(chips, 1, context);
          cfg.tp = tp;
          cfg.weight_dtype = (scale_dtype)wd;
          cfg.kv_dtype = (scale_dtype)kd;
          cfg.ffn_layout = ws2d ? SCALE_FFN_WS_2D : SCALE_FFN_WS_1D;
          cfg.prompt = o->prompt;
          cfg.decode_len = o->decode_len;
          infer_batches(model, chip, o, cfg, out);
        }
      }
    }
  }
  return SCALE_OK;
}

/* ==== the hybrid paper's search space ======================================================== */

/** Whether the model's shape and the batch allow (dp, pp, tp) (the space's degrees). */
static bool hybrid_shape_ok(const scale_model *m, double dp, double pp, double tp, double gbs) {
  if (pp > (double)m->n_layers || fmod(gbs, dp) != 0) return false;
  if (m->arch == SCALE_ARCH_MAMBA2)
    return fmod((double)m->ssm_n_heads, tp) == 0 && fmod((double)m->ssm_n_groups, tp) == 0;
  return fmod((double)m->n_heads, tp) == 0 && fmod((double)m->n_kv_heads, tp) == 0;
}

double scale_plan_hybrid_memory_bytes(const scale_hybrid_problem *p, const scale_hybrid_layout *l) {
  scale_hybrid_memory mem;
  scale_hybrid_problem_memory(p, l, &mem);
  return mem.total_bytes;
}

double scale_plan_hybrid_step_s(const scale_hybrid_problem *p, const scale_hybrid_layout *l,
                                const scale_step_params *params) {
  scale_step_job j = {.model = p->model, .chip = p->chip, .dp = l->dp, .tp = l->tp, .pp = l->pp,
                      .cp = l->cp, .ep = 1, .zero = 0, .mbs = p->mbs, .vp = 1,
                      .recompute = SCALE_RECOMPUTE_NONE, .sp = false,
                      .attention = SCALE_ATTENTION_FLASH, .tp_overlap = false, .gbs = p->gbs,
                      .seq = p->s, .dtype = SCALE_DTYPE_BF16};
  scale_step_result r;
  scale_step_eval(&j, params, &r);
  return r.step_s;
}

scale_status scale_plan_hybrid(const scale_hybrid_problem *problem, const scale_step_params *params,
                               scale_plan_hybrid_result *out) {
  if (!problem || !params || !out || !problem->model || !problem->chip ||
      !(problem->n_chips >= 1) || !(problem->gbs > 0) || !(problem->s > 0) || !(problem->mbs > 0))
    return SCALE_ERR_INVALID;
  double n = problem->n_chips, best = INFINITY;
  *out = (scale_plan_hybrid_result){{NAN, NAN, NAN, NAN, problem->zero, false}, NAN, 0, 0};
  scale_hybrid_layout pick = out->layout;
  for (double tp = 1; tp <= n; tp *= 2)
    for (double cp = 1; tp * cp <= n; cp *= 2)
      for (double pp = 1; tp * cp * pp <= n; pp *= 2) {
        scale_hybrid_layout l = {n / (tp * cp * pp), pp, tp, cp, problem->zero, tp > 1.0};
        out->n_candidates++;
        if (!hybrid_shape_ok(problem->model, l.dp, pp, tp, problem->gbs) ||
            !(scale_plan_hybrid_memory_bytes(problem, &l) <= problem->chip->hbm_bytes))
          continue;
        out->n_kept++;
        double t = scale_plan_hybrid_step_s(problem, &l, params);
        if (t < best) pick = l, best = t;
      }
  if (isfinite(best)) out->layout = pick, out->step_s = best;
  return SCALE_OK;
}
