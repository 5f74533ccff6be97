/* serveplan.c — the serving planner on the simulator (include/scale/serveplan.h). */
#include "scale/serveplan.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "scale/inference.h"
#include "scale/servecal.h"

#define KV_MEM_FRAC 0.9   /* share of the HBM after weights given to KV (TensorRT-LLM's 0.9) */
#define BLOCK_TOKENS 16.0 /* tokens per KV block */
#define RATE_PROBES 8     /* bisection steps on the rate: 100^(1/2^8), about 2% apart */
#define N_BATCHES 4       /* batch caps tried: 16, 64, 256, 1024 */
#define WORK_MAX 2e9      /* request-steps a search may simulate (tens of seconds) */

scale_serve_plan_opts scale_serve_plan_opts_default(void) {
  scale_serve_plan_opts o;
  memset(&o, 0, sizeof o);
  o.isl.min_tokens = o.isl.max_tokens = 1024;
  o.osl.min_tokens = o.osl.max_tokens = 256;
  o.ttft_slo_s = o.tpot_slo_s = INFINITY;
  o.max_chips = 8;
  o.allow_dtype[SCALE_DTYPE_BF16] = o.allow_dtype[SCALE_DTYPE_FP8] = true;
  o.allow_dtype[SCALE_DTYPE_INT8] = o.allow_dtype[SCALE_DTYPE_INT4] = true;
  o.n_requests = 400;
  o.seed = 1;
  return o;
}

/* ---- one copy ------------------------------------------------------------------------------- */

/* A candidate's copy: its cost and its engine. */
typedef struct {
  scale_serve_cost cost;
  scale_serve_config engine;
} copy;

/* GEMMs in the narrowest rate the chip has for the stored weights. */
static scale_dtype compute_for(const scale_chip *chip, scale_dtype stored) {
  if (stored == SCALE_DTYPE_FP4 && scale_chip_flops_per_s(chip, SCALE_DTYPE_FP4) > 0.0)
    return SCALE_DTYPE_FP4;
  scale_dtype want = stored == SCALE_DTYPE_FP8 || stored == SCALE_DTYPE_FP4 ? SCALE_DTYPE_FP8
                     : stored == SCALE_DTYPE_INT8                         ? SCALE_DTYPE_INT8
                     : stored == SCALE_DTYPE_INT4 ? SCALE_DTYPE_INT8
                                                  : SCALE_DTYPE_BF16;
  return scale_chip_flops_per_s(chip, want) > 0.0 ? want : SCALE_DTYPE_BF16;
}

/* Builds the copy; false when the weights or one request's KV do not fit. */
static bool copy_of(const scale_model *m, const scale_chip *chip, const scale_serve_plan_opts *o,
                    double tp, scale_dtype dtype, double max_batch, copy *out) {
  scale_infer_config ic = scale_infer_config_default(tp, 1, o->isl.max_tokens + o->osl.max_tokens);
  ic.tp = tp;
  ic.weight_dtype = ic.kv_dtype = dtype;
  ic.compute_dtype = compute_for(chip, dtype);
  ic.ffn_layout = SCALE_FFN_AUTO; /* each phase its cheapest layout */
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(chip, p);
  if (scale_serve_cost_of(m, chip, &ic, p, &out->cost, NULL)) return false;
  scale_serve_config c = scale_serve_config_default();
  c.isl = o->isl;
  c.osl = o->osl;
  c.seed = o->seed;
  c.n_requests = o->n_requests;
  c.max_batch = max_batch;
  c.max_step_tokens = fmax(8192.0, max_batch);
  c.block_tokens = BLOCK_TOKENS;
  c.kv_blocks = fmin(floor(out->cost.kv_capacity_bytes * KV_MEM_FRAC /
                           (BLOCK_TOKENS * out->cost.kv_bytes_per_token)),
                     4e9);
  c.cost = scale_serve_cost_s;
  out->engine = c;
  return c.kv_blocks >= ceil((o->isl.max_tokens + o->osl.max_tokens) / BLOCK_TOKENS);
}

/* Runs the copy's engine at 'rate' (INFINITY: offline); false on a simulator error. */
static bool run_at(copy *cp, double rate, bool prefilled, double osl_max, scale_serve_result *r) {
  scale_serve_config c = cp->engine;
  c.rate_per_s = rate;
  c.prefilled = prefilled;
  c.cost_ctx = &cp->cost;
  if (osl_max > 0.0) c.osl.min_tokens = c.osl.max_tokens = osl_max;
  scale_serve *sim = NULL;
  if (scale_serve_new(&c, &sim, NULL)) return false;
  scale_status st = scale_serve_run(sim, r, NULL);
  scale_serve_free(sim);
  return st == SCALE_OK;
}

/* ---- aggregated ------------------------------------------------------------------------------ */

static double excess_of(const scale_serve_plan_opts *o, double ttft, double tpot) {
  double e = 0.0;
  if (isfinite(o->ttft_slo_s)) e = fmax(e, ttft / o->ttft_slo_s);
  if (isfinite(o->tpot_slo_s)) e = fmax(e, tpot / o->tpot_slo_s);
  return e;
}

static bool has_slo(const scale_serve_plan_opts *o) {
  return isfinite(o->ttft_slo_s) || isfinite(o->tpot_slo_s);
}

/* Fills the entry's rate-dependent fields from a run. */
static void take_run(scale_serve_plan_entry *e, const scale_serve_result *r, double rate) {
  e->rate_per_s = rate;
  e->unit_rate_per_s = isfinite(rate) ? rate : r->request_rate_per_s;
  e->tokens_per_s = r->throughput_tokens_per_s;
  e->ttft_p90_s = r->ttft_p90_s;
  e->tpot_p90_s = isfinite(r->tpot_p90_s) ? r->tpot_p90_s : 0.0;
  e->steady_batch = r->steady_batch;
  e->bind = r->bind;
}

/* The largest rate in [lo, hi] at which meets(rate) holds, meets(lo) known true: a bisection
 * in log space. 'probe' runs one rate and says whether it meets the SLO. */
typedef bool (*probe_fn)(void *ctx, double rate, scale_serve_result *r);

static double bisect(probe_fn probe, void *ctx, double lo, double hi, scale_serve_result *best) {
  for (int k = 0; k < RATE_PROBES; k++) {
    double mid = sqrt(lo * hi);
    scale_serve_result r;
    if (probe(ctx, mid, &r)) {
      lo = mid;
      *best = r;
    } else {
      hi = mid;
    }
  }
  return lo;
}

typedef struct {
  copy *cp;
  const scale_serve_plan_opts *o;
} agg_ctx;

static bool agg_probe(void *ctx, double rate, scale_serve_result *r) {
  agg_ctx *a = ctx;
  if (!run_at(a->cp, rate, false, 0.0, r)) return false;
  return excess_of(a->o, r->ttft_p90_s, isfinite(r->tpot_p90_s) ? r->tpot_p90_s : 0.0) <= 1.0;
}

static void price(scale_serve_plan_entry *e, const scale_chip *chip) {
  e->usd_per_million_tokens = e->tokens_per_s > 0.0
                                  ? chip->usd_per_hour * e->chips / 3600.0 / e->tokens_per_s * 1e6
                                  : (double)NAN;
}

/* Evaluates an aggregated candidate whose offline run is 'off'. */
static void eval_aggregated(copy *cp, const scale_serve_plan_opts *o, const scale_chip *chip,
                            const scale_serve_result *off, scale_serve_plan_entry *e) {
  double rate_max = off->request_rate_per_s;
  if (!has_slo(o)) {
    e->feasible = true;
    e->excess = 0.0;
    take_run(e, off, INFINITY);
    price(e, chip);
    return;
  }
  agg_ctx a = {cp, o};
  scale_serve_result low;
  double lo = 0.01 * rate_max;
  bool ok = agg_probe(&a, lo, &low);
  e->excess = excess_of(o, low.ttft_p90_s, isfinite(low.tpot_p90_s) ? low.tpot_p90_s : 0.0);
  take_run(e, &low, lo);
  e->feasible = ok;
  if (ok) {
    scale_serve_result best = low;
    double rate = bisect(agg_probe, &a, lo, rate_max, &best);
    take_run(e, &best, rate);
  }
  price(e, chip);
}

/* ---- disaggregated -------------------------------------------------------------------------- */

/* Prefill copies per decode copy tried. */
static const double prefill_ratios[] = {0.25, 0.5, 1.0, 2.0, 4.0};
#define N_RATIOS (int)(sizeof prefill_ratios / sizeof prefill_ratios[0])

typedef struct {
  copy *cp;
  const scale_serve_plan_opts *o;
  double ratio;      /* prefill copies per decode copy */
  double transfer_s; /* shipping one prompt's KV from the prefill to the decode copy */
  double ttft_p90_s; /* of the last probe */
} dis_ctx;

/* Whether the decode pool meets TPOT at 'rate' and the prefill pool (ratio copies taking the
 * same stream) meets TTFT, KV transfer included. r gets the decode pool's run. */
static bool dis_probe(void *ctx, double rate, scale_serve_result *r) {
  dis_ctx *d = ctx;
  scale_serve_result pre;
  if (!run_at(d->cp, rate / d->ratio, false, 1.0, &pre)) return false;
  d->ttft_p90_s = pre.ttft_p90_s + d->transfer_s;
  if (!run_at(d->cp, rate, true, 0.0, r)) return false;
  r->ttft_p90_s = d->ttft_p90_s;
  return excess_of(d->o, d->ttft_p90_s, isfinite(r->tpot_p90_s) ? r->tpot_p90_s : 0.0) <= 1.0;
}

/* The chip's bandwidth to ship KV between copies: NVLink in a GPU node, ICI on a TPU. */
static double kv_link_bytes_per_s(const scale_chip *chip) {
  return chip->kind == SCALE_HW_GPU ? chip->nvlink_bytes_per_s : chip->ici_link_bytes_per_s;
}

/* Evaluates the disaggregated form of a candidate (the same copy for both pools). */
static void eval_disaggregated(copy *cp, const scale_serve_plan_opts *o, const scale_chip *chip,
                               const scale_serve_result *off, scale_serve_plan_entry *best) {
  best->feasible = false;
  best->disagg = true;
  best->excess = INFINITY;
  double link = kv_link_bytes_per_s(chip);
  double transfer =
      link > 0.0 ? o->isl.max_tokens * cp->cost.kv_bytes_per_token / (cp->cost.tp * link) : 0.0;
  for (int k = 0; k < N_RATIOS; k++) {
    scale_serve_plan_entry e = *best;
    e.disagg = true;
    e.prefill_copies = prefill_ratios[k];
    e.chips = cp->cost.tp * (1.0 + prefill_ratios[k]);
    dis_ctx d = {cp, o, prefill_ratios[k], transfer, 0.0};
    double lo = 0.01 * off->request_rate_per_s, hi = 2.0 * off->request_rate_per_s;
    scale_serve_result low;
    bool ok = dis_probe(&d, lo, &low);
    e.excess = excess_of(o, low.ttft_p90_s, isfinite(low.tpot_p90_s) ? low.tpot_p90_s : 0.0);
    take_run(&e, &low, lo);
    e.feasible = ok;
    if (ok) {
      scale_serve_result r = low;
      double rate = bisect(dis_probe, &d, lo, hi, &r);
      take_run(&e, &r, rate);
    }
    price(&e, chip);
    bool better = e.feasible
                      ? !best->feasible || e.usd_per_million_tokens < best->usd_per_million_tokens
                      : !best->feasible && e.excess < best->excess;
    if (better) *best = e;
  }
}

/* ---- the search ----------------------------------------------------------------------------- */

/* What ranks an entry: its fleet's price per hour when a fleet is asked for, else its cost
 * per million output tokens. */
static double rank_key(const scale_serve_plan_entry *e) {
  return e->replicas > 0.0 ? e->fleet_usd_per_hour : e->usd_per_million_tokens;
}

static void insert_ranked(scale_serve_plan_report *out, const scale_serve_plan_entry *e) {
  int n = out->n_ranked, i = n < SCALE_SERVE_PLAN_TOP ? n : SCALE_SERVE_PLAN_TOP - 1;
  if (n == SCALE_SERVE_PLAN_TOP && !(rank_key(e) < rank_key(&out->ranked[i]))) return;
  while (i > 0 && rank_key(e) < rank_key(&out->ranked[i - 1])) {
    out->ranked[i] = out->ranked[i - 1];
    i--;
  }
  out->ranked[i] = *e;
  if (n < SCALE_SERVE_PLAN_TOP) out->n_ranked++;
}

/* Sizes the fleet of a feasible entry for the options' rate (none without one). */
static void size_fleet(scale_serve_plan_entry *e, const scale_serve_plan_opts *o,
                       const scale_chip *chip) {
  e->replicas = e->fleet_chips = e->fleet_usd_per_hour = 0.0;
  if (!(o->fleet_rate_per_s > 0.0) || !e->feasible || !(e->unit_rate_per_s > 0.0)) return;
  e->replicas = fmax(1.0, ceil(o->fleet_rate_per_s / e->unit_rate_per_s * (1.0 - 1e-12)));
  e->fleet_chips = e->replicas * e->chips;
  e->fleet_usd_per_hour = e->fleet_chips * chip->usd_per_hour;
}

static void record(scale_serve_plan_report *out, const scale_serve_plan_entry *e) {
  if (e->feasible) {
    insert_ranked(out, e);
    out->met = true;
    scale_serve_plan_entry *b = e->disagg ? &out->best_disaggregated : &out->best_aggregated;
    bool *has = e->disagg ? &out->has_disaggregated : &out->has_aggregated;
    if (!*has || rank_key(e) < rank_key(b)) *b = *e;
    *has = true;
  } else if (!out->met && e->excess < out->closest.excess) {
    out->closest = *e;
  }
}

static scale_status check_opts(const scale_model *m, const scale_chip *chip,
                               const scale_serve_plan_opts *o, scale_diag *diag) {
  scale_status st;
  if (o->isl.min_tokens < 1 || o->osl.min_tokens < 1 || o->isl.max_tokens < o->isl.min_tokens ||
      o->osl.max_tokens < o->osl.min_tokens)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: lengths must be >= 1");
  if ((st = scale_infer_check_context(m, "isl + osl", o->isl.max_tokens + o->osl.max_tokens, 1,
                                      diag)))
    return st;
  if (!(o->ttft_slo_s > 0.0) || !(o->tpot_slo_s > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: SLOs must be > 0");
  if (!(o->max_chips >= 1.0) || o->max_chips > 4096)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: max chips must be in [1, 4096]");
  if (!(o->fleet_rate_per_s >= 0.0) || !isfinite(o->fleet_rate_per_s))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: the fleet rate must be >= 0");
  if (!(o->n_requests >= 10.0) || o->n_requests > 1e5)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: requests must be in [10, 1e5]");
  if (o->disagg && o->osl.min_tokens < 2)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "plan: disaggregated serving needs outputs of >= 2 tokens");
  if (!(chip->usd_per_hour > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: %s has no price", chip->name);
  double n_dtypes = 0.0;
  for (int d = 0; d < SCALE_DTYPE_COUNT; d++)
    n_dtypes += o->allow_dtype[d];
  if (n_dtypes == 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "plan: no dtype allowed");
  /* a bound on the work, so that no command line asks for hours: candidates x simulations each
   * (offline, lowest rate, the bisection; disaggregated: both pools per ratio) x request-steps
   * of one simulation (each request's prompt chunks and decode steps, none shared) */
  double sims = 2.0 + RATE_PROBES + (o->disagg ? 2.0 * N_RATIOS * (1.0 + RATE_PROBES) : 0.0);
  double candidates = (floor(log2(o->max_chips)) + 1.0) * n_dtypes * N_BATCHES;
  double work =
      candidates * sims * o->n_requests * (ceil(o->isl.max_tokens / 8192.0) + o->osl.max_tokens);
  if (work > WORK_MAX)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "plan: the search would simulate about %.3g request-steps (at most "
                          "%g): fewer requests, chips, dtypes or output tokens",
                          work, WORK_MAX);
  return SCALE_OK;
}

scale_status scale_serve_plan(const scale_model *model, const scale_chip *chip,
                              const scale_serve_plan_opts *o, scale_serve_plan_report *out,
                              scale_diag *diag) {
  if (!model || !chip || !o || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "plan: NULL argument");
  memset(out, 0, sizeof *out);
  out->closest.excess = INFINITY;
  scale_status st = check_opts(model, chip, o, diag);
  if (st) return st;
  double p[SCALE_SERVE_N_PARAMS];
  out->fitted = scale_serve_params_of(chip, p);
  static const double batches[N_BATCHES] = {16, 64, 256, 1024};
  for (double tp = 1; tp <= o->max_chips; tp *= 2) /* at most 13 doublings (4096) */
    for (int d = 0; d < SCALE_DTYPE_COUNT; d++) {
      if (!o->allow_dtype[d]) continue;
      for (int b = 0; b < N_BATCHES; b++) {
        out->n_candidates++;
        copy cp;
        scale_serve_result off;
        if (!copy_of(model, chip, o, tp, (scale_dtype)d, batches[b], &cp) ||
            !run_at(&cp, INFINITY, false, 0.0, &off)) {
          out->n_too_big++;
          continue;
        }
        scale_serve_plan_entry e;
        memset(&e, 0, sizeof e);
        e.tp = tp;
        e.dtype = (scale_dtype)d;
        e.compute_dtype = compute_for(chip, (scale_dtype)d);
        e.max_batch = batches[b];
        e.chips = tp;
        e.step_tokens = cp.engine.max_step_tokens;
        e.block_tokens = cp.engine.block_tokens;
        e.kv_frac = KV_MEM_FRAC;
        e.prefill_layout =
            scale_serve_layout_at(&cp.cost, fmin(e.step_tokens, o->isl.max_tokens));
        eval_aggregated(&cp, o, chip, &off, &e);
        e.decode_layout = scale_serve_layout_at(&cp.cost, fmax(1.0, round(e.steady_batch)));
        size_fleet(&e, o, chip);
        record(out, &e);
        if (o->disagg) {
          eval_disaggregated(&cp, o, chip, &off, &e);
          size_fleet(&e, o, chip);
          record(out, &e);
        }
      }
    }
  return SCALE_OK;
}
