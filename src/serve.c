/* serve.c — continuous batching of a request stream, a seeded discrete-step simulator
 * (include/scale/serve.h). */
#include "scale/serve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/transformer.h"

/* ---- the roofline cost ---------------------------------------------------------------------- */

double scale_serve_roofline_cost_s(const scale_serve_step *step, void *ctx) {
  const scale_serve_roofline *r = ctx;
  if (!r || !step || step->n_decode + step->n_prefill_tokens <= 0.0) return NAN;
  /* forward passes: 2 N FLOPs a token (transformer.h), prefill at the configured MFU */
  double t_flops =
      scale_transformer_dense_flops(r->n_params, step->n_decode, SCALE_PASS_FORWARD) /
          r->flops_per_s +
      scale_transformer_dense_flops(r->n_params, step->n_prefill_tokens, SCALE_PASS_FORWARD) /
          (r->flops_per_s * r->mfu_frac);
  double t_bytes =
      (r->param_bytes + step->decode_kv_tokens * r->kv_bytes_per_token) / r->hbm_bytes_per_s;
  return r->overhead_s + fmax(t_flops, t_bytes);
}

scale_status scale_serve_roofline_of(const scale_model *model, const scale_chip *chip,
                                     const scale_infer_config *cfg, double overhead_s,
                                     scale_serve_roofline *out, scale_diag *diag) {
  if (!model || !chip || !cfg || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  if (!(overhead_s >= 0.0) || !isfinite(overhead_s))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the step overhead must be finite and >= 0, got %g", overhead_s);
  scale_infer_memory mem = scale_infer_memory_eval(model, chip, cfg);
  memset(out, 0, sizeof *out);
  out->n_params = scale_transformer_n_active_params(model);
  out->param_bytes = mem.weight_bytes;
  out->kv_bytes_per_token = mem.kv_bytes_per_token;
  if (scale_model_n_local_layers(model) > 0 && cfg->context > 0) /* local layers: the average */
    out->kv_bytes_per_token = mem.kv_bytes_per_sequence / cfg->context; /* token at context */
  out->flops_per_s = cfg->tp * scale_chip_flops_per_s(chip, cfg->compute_dtype);
  out->hbm_bytes_per_s = cfg->tp * chip->hbm_bytes_per_s;
  out->mfu_frac = cfg->mfu_frac;
  out->overhead_s = overhead_s;
  out->kv_capacity_bytes = cfg->tp * (chip->hbm_bytes - mem.weight_bytes_per_chip);
  if (!(out->kv_bytes_per_token > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "serve: %s has no KV cache to page",
                          model->name);
  if (!(out->kv_capacity_bytes > 0.0) || !(out->flops_per_s > 0.0) ||
      !(out->hbm_bytes_per_s > 0.0) || !(out->n_params > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the weights of %s (%.3g bytes per chip) leave no HBM for KV "
                          "caches on %g x %s",
                          model->name, mem.weight_bytes_per_chip, cfg->tp, chip->name);
  return SCALE_OK;
}

/* ---- the simulator -------------------------------------------------------------------------- */

struct scale_serve {
  scale_serve_config cfg;
  size_t n;            /* requests */
  size_t slots;        /* min(max_batch, n): the active list's capacity */
  double *arrival_s;   /* [n], ascending */
  uint32_t *isl, *osl; /* [n] */
  uint32_t *blocks;    /* [n] KV blocks of the request's whole life (its reservation) */
  /* scratch of a run */
  uint32_t *prefilled; /* [n] prompt tokens done */
  uint32_t *redo;      /* [n] tokens it had made when preempted, to prefill again with its prompt */
  uint32_t *held;      /* [n] KV blocks it holds now */
  uint32_t *generated; /* [n] output tokens done */
  double *first_s;     /* [n] first-token time */
  double *finish_s;    /* [n] last-token time */
  double *sorted;      /* [n] percentile scratch */
  uint32_t *active;    /* [slots] running requests, in admission order */
  uint32_t *chunk;     /* [slots] tokens this step gives each running request */
  uint32_t *draft;     /* [slots] tokens drafted for each running request this step */
  uint32_t *requeue;   /* [slots] preempted requests waiting, the next to admit last */
  uint8_t *evicted;    /* [n] whether it was ever preempted (its prefills then recompute) */
  double *itl_hist;    /* [ITL_BINS] tokens whose inter-token latency fell in each bin */
};

/* The ITL histogram: ITL_BINS log-spaced bins from 1e-7 s to 1e4 s, 0.31% wide each, so a
 * bin's geometric centre is within 0.16% of every time in it (times outside go to the ends). */
#define ITL_BINS 8192
#define ITL_LOG_LO (-7.0)
#define ITL_LOG_HI 4.0

scale_serve_config scale_serve_config_default(void) {
  scale_serve_config c;
  memset(&c, 0, sizeof c);
  c.rate_per_s = 1.0;
  c.n_requests = 1000;
  c.isl.min_tokens = c.isl.max_tokens = 1024;
  c.osl.min_tokens = c.osl.max_tokens = 128;
  c.seed = 1;
  c.max_batch = 256;
  c.max_step_tokens = 8192;
  c.block_tokens = 16;
  c.kv_blocks = 1e6;
  c.ttft_slo_s = INFINITY;
  c.tpot_slo_s = INFINITY;
  return c;
}

const char *scale_serve_bind_name(scale_serve_bind bind) {
  switch (bind) {
  case SCALE_SERVE_BIND_LOAD:
    return "load";
  case SCALE_SERVE_BIND_KV:
    return "kv";
  case SCALE_SERVE_BIND_BATCH:
    return "batch";
  case SCALE_SERVE_BIND_COMPUTE:
    return "compute";
  default:
    return "?";
  }
}

const char *scale_serve_trace_kind_name(scale_serve_trace_kind kind) {
  static const char *const names[SCALE_SERVE_TRACE_KINDS] = {"idle", "prefill", "recompute",
                                                              "decode", "preempted"};
  return kind >= 0 && kind < SCALE_SERVE_TRACE_KINDS ? names[kind] : "?";
}

/* splitmix64 (Steele, Lea, Flood 2014): a tiny seeded generator, no global state. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double uniform01(uint64_t *state) { return (double)(splitmix64(state) >> 11) * 0x1.0p-53; }

static bool is_count(double x, double lo, double hi) { return x >= lo && x <= hi && x == floor(x); }

#define LEN_MAX 1e8 /* tokens of one prompt or output at most */
#define REQ_MAX 1e7 /* requests of one run at most */
#define BLOCKS_MAX 4e9
#define SPEC_MAX 64 /* tokens drafted a step at most */
#define PREEMPT_MAX 100.0 /* preemptions a request, on average, before a run is refused */

/* Largest scale_serve_kv_blocks(isl + osl) over the requests a config can draw. */
static double max_request_tokens(const scale_serve_config *c) {
  if (!c->table_isl) return c->isl.max_tokens + c->osl.max_tokens;
  double most = 0.0;
  for (size_t i = 0; i < (size_t)c->n_table; i++)
    most = fmax(most, (double)c->table_isl[i] + c->table_osl[i]);
  return most;
}

/* The length table's size and entries. */
static scale_status check_table(const scale_serve_config *c, scale_diag *diag) {
  if (!c->table_osl || !is_count(c->n_table, 1, REQ_MAX))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: a length table needs output lengths and 1 to %g pairs, got %g",
                          REQ_MAX, c->n_table);
  for (size_t i = 0; i < (size_t)c->n_table; i++)
    if (c->table_isl[i] < 1 || c->table_osl[i] < 1 || c->table_isl[i] > LEN_MAX ||
        c->table_osl[i] > LEN_MAX)
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "serve: length table pair %zu is %u + %u tokens; each must be in "
                            "[1, %g]",
                            i + 1, c->table_isl[i], c->table_osl[i], LEN_MAX);
  return SCALE_OK;
}

static scale_status check_lengths(const char *what, const scale_serve_lengths *l,
                                  scale_diag *diag) {
  if (!is_count(l->min_tokens, 1, LEN_MAX) || !is_count(l->max_tokens, 1, LEN_MAX) ||
      l->max_tokens < l->min_tokens)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: %s lengths must be integers with 1 <= min <= max <= %g, got "
                          "[%g, %g]",
                          what, LEN_MAX, l->min_tokens, l->max_tokens);
  return SCALE_OK;
}

double scale_serve_kv_blocks(double tokens, double block_tokens) {
  if (!(tokens >= 0) || !(block_tokens >= 1) || !isfinite(tokens) || !isfinite(block_tokens))
    return (double)NAN;
  return ceil(tokens / block_tokens);
}

static scale_status check_config(const scale_serve_config *c, scale_diag *diag) {
  scale_status st;
  if (!c->cost) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: no cost function");
  if (!(c->rate_per_s > 0.0)) /* NaN too; INFINITY is the offline run */
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the arrival rate must be > 0, got %g", c->rate_per_s);
  if (!is_count(c->n_requests, 1, REQ_MAX))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: requests must be an integer in [1, %g], got %g", REQ_MAX,
                          c->n_requests);
  if (c->table_isl ? (st = check_table(c, diag))
                   : ((st = check_lengths("input", &c->isl, diag)) ||
                      (st = check_lengths("output", &c->osl, diag))))
    return st;
  if (c->concurrency != 0.0 && !is_count(c->concurrency, 1, REQ_MAX))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the concurrency must be 0 (open loop) or an integer in [1, "
                          "%g], got %g",
                          REQ_MAX, c->concurrency);
  if (!is_count(c->max_batch, 1, BLOCKS_MAX))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the batch cap must be an integer >= 1, got %g", c->max_batch);
  if (!is_count(c->max_step_tokens, c->max_batch, 1e12))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the step token budget must be an integer >= the batch cap "
                          "(%g), got %g",
                          c->max_batch, c->max_step_tokens);
  if (!is_count(c->block_tokens, 1, LEN_MAX) || !is_count(c->kv_blocks, 1, BLOCKS_MAX))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: KV blocks (%g) and tokens per block (%g) must be integers >= 1",
                          c->kv_blocks, c->block_tokens);
  double longest = max_request_tokens(c), need = scale_serve_kv_blocks(longest, c->block_tokens);
  if (need > c->kv_blocks)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: a request of %g tokens needs %g KV blocks of %g tokens, more "
                          "than the %g that exist",
                          longest, need, c->block_tokens, c->kv_blocks);
  if (c->prefilled && c->concurrency > 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: prefilled requests (a decode pool) arrive open loop, not from "
                          "closed-loop clients");
  if (c->prefilled && c->table_isl)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: prefilled requests (a decode pool) take fixed or uniform "
                          "lengths, not a table");
  if (c->prefilled && c->osl.min_tokens < 2)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: prefilled requests (a decode pool) need outputs of >= 2 "
                          "tokens, got %g",
                          c->osl.min_tokens);
  if (!(c->request_overhead_s >= 0.0 && c->request_overhead_s <= 10.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the per-request handling time must be in [0, 10] s, got %g",
                          c->request_overhead_s);
  if (!is_count(c->warmup_requests, 0, c->n_requests - 1))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the warm-up must be an integer of requests below the %g "
                          "simulated, got %g",
                          c->n_requests, c->warmup_requests);
  if (!(c->prefix_hit_frac >= 0.0 && c->prefix_hit_frac <= 1.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the prefix cache hit share must be in [0, 1], got %g",
                          c->prefix_hit_frac);
  if (c->prefilled && c->prefix_hit_frac > 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: prefilled requests (a decode pool) have no prompt to find in "
                          "a prefix cache");
  if (!is_count(c->spec_tokens, 0, SPEC_MAX) ||
      !(c->spec_accept_frac >= 0.0 && c->spec_accept_frac <= 1.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: speculative decoding needs an integer of drafted tokens in [0, "
                          "%d] and an acceptance chance in [0, 1], got %g and %g",
                          SPEC_MAX, c->spec_tokens, c->spec_accept_frac);
  if (c->spec_tokens > 0.0 && !c->spec_draft_cost)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "serve: speculative decoding needs the draft's step cost");
  const scale_serve_trace *tr = c->trace;
  if (tr && ((!tr->steps && tr->steps_cap) || (!tr->events && tr->events_cap) ||
             (!tr->requests && tr->requests_cap) || tr->events_cap > UINT32_MAX))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "serve: a trace needs an array for each capacity it gives");
  if (isnan(c->ttft_slo_s) || isnan(c->tpot_slo_s) || c->ttft_slo_s <= 0.0 || c->tpot_slo_s <= 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: SLOs must be > 0 (INFINITY for none), got TTFT %g, TPOT %g",
                          c->ttft_slo_s, c->tpot_slo_s);
  return SCALE_OK;
}

double scale_serve_offline_batch(const scale_serve_config *c) {
  if (!c || c->table_isl || c->isl.min_tokens != c->isl.max_tokens ||
      c->osl.min_tokens != c->osl.max_tokens || !(c->block_tokens >= 1.0) ||
      !(c->max_batch >= 1.0) || !(c->kv_blocks >= 1.0))
    return NAN;
  double per = scale_serve_kv_blocks(c->isl.max_tokens + c->osl.max_tokens, c->block_tokens);
  return fmin(c->max_batch, floor(c->kv_blocks / per));
}

static uint32_t draw_length(const scale_serve_lengths *l, uint64_t *state) {
  double span = l->max_tokens - l->min_tokens + 1.0;
  double x = l->min_tokens + floor(uniform01(state) * span);
  return (uint32_t)fmin(x, l->max_tokens);
}

void scale_serve_free(scale_serve *sim) {
  if (!sim) return;
  free(sim->arrival_s);
  free(sim->isl);
  free(sim->osl);
  free(sim->blocks);
  free(sim->prefilled);
  free(sim->generated);
  free(sim->first_s);
  free(sim->finish_s);
  free(sim->sorted);
  free(sim->active);
  free(sim->chunk);
  free(sim->draft);
  free(sim->redo);
  free(sim->held);
  free(sim->requeue);
  free(sim->evicted);
  free(sim->itl_hist);
  free(sim);
}

scale_status scale_serve_new(const scale_serve_config *cfg, scale_serve **out, scale_diag *diag) {
  if (!out) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  *out = NULL;
  if (!cfg) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  scale_status st = check_config(cfg, diag);
  if (st) return st;
  scale_serve *s = calloc(1, sizeof *s);
  if (!s) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "serve: out of memory");
  s->cfg = *cfg;
  s->n = (size_t)cfg->n_requests;
  s->slots = (size_t)fmin(cfg->max_batch, cfg->n_requests);
  size_t n = s->n;
  s->arrival_s = malloc(n * sizeof *s->arrival_s);
  s->isl = malloc(n * sizeof *s->isl);
  s->osl = malloc(n * sizeof *s->osl);
  s->blocks = malloc(n * sizeof *s->blocks);
  s->prefilled = malloc(n * sizeof *s->prefilled);
  s->generated = malloc(n * sizeof *s->generated);
  s->first_s = malloc(n * sizeof *s->first_s);
  s->finish_s = malloc(n * sizeof *s->finish_s);
  s->sorted = malloc(n * sizeof *s->sorted);
  s->active = malloc(s->slots * sizeof *s->active);
  s->chunk = malloc(s->slots * sizeof *s->chunk);
  s->draft = malloc(s->slots * sizeof *s->draft);
  s->redo = malloc(n * sizeof *s->redo);
  s->held = malloc(n * sizeof *s->held);
  s->requeue = malloc(s->slots * sizeof *s->requeue);
  s->evicted = malloc(n * sizeof *s->evicted);
  s->itl_hist = malloc(ITL_BINS * sizeof *s->itl_hist);
  if (!s->arrival_s || !s->isl || !s->osl || !s->blocks || !s->prefilled || !s->generated ||
      !s->first_s || !s->finish_s || !s->sorted || !s->active || !s->chunk || !s->draft ||
      !s->redo || !s->held || !s->requeue || !s->evicted || !s->itl_hist) {
    scale_serve_free(s);
    return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "serve: out of memory for %zu requests", n);
  }
  /* Three independent streams from one seed, so changing a length distribution does not move
   * the arrivals. */
  uint64_t arrivals = cfg->seed, isl = cfg->seed ^ 0x5851F42D4C957F2Dull,
           osl = cfg->seed ^ 0x14057B7EF767814Full;
  double t = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (isfinite(cfg->rate_per_s)) t += -log1p(-uniform01(&arrivals)) / cfg->rate_per_s;
    s->arrival_s[i] = t;
    if (cfg->table_isl) { /* the table in order, again from its start when it runs out */
      size_t k = i % (size_t)cfg->n_table;
      s->isl[i] = cfg->table_isl[k];
      s->osl[i] = cfg->table_osl[k];
    } else {
      s->isl[i] = draw_length(&cfg->isl, &isl);
      s->osl[i] = draw_length(&cfg->osl, &osl);
    }
    s->blocks[i] =
        (uint32_t)scale_serve_kv_blocks((double)s->isl[i] + s->osl[i], cfg->block_tokens);
  }
  s->cfg.table_isl = s->cfg.table_osl = NULL; /* copied: the caller's table may go */
  s->cfg.n_table = 0.0;
  *out = s;
  return SCALE_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..m): v[ceil(p m) - 1]; NaN when m = 0. */
static double percentile(const double *v, size_t m, double p) {
  if (m == 0) return NAN;
  double r = ceil(p * (double)m) - 1.0;
  size_t i = r < 0.0 ? 0 : (size_t)r;
  return v[i < m ? i : m - 1];
}

/* Adds 'tokens' tokens of inter-token latency 'dt' to the histogram. */
static void itl_add(double *hist, double dt, double tokens) {
  double u = (log10(dt) - ITL_LOG_LO) / (ITL_LOG_HI - ITL_LOG_LO) * ITL_BINS;
  int b = u < 0.0 ? 0 : u >= ITL_BINS ? ITL_BINS - 1 : (int)u;
  hist[b] += tokens;
}

/* Nearest-rank percentile p of the histogram: the geometric centre of the bin holding the
 * ceil(p total)-th token; NaN when it is empty. */
static double itl_percentile(const double *hist, double p) {
  double total = 0.0;
  for (int b = 0; b < ITL_BINS; b++)
    total += hist[b];
  if (!(total > 0.0)) return NAN;
  double rank = fmax(1.0, ceil(p * total)), seen = 0.0;
  int b = 0;
  for (; b < ITL_BINS - 1; b++) {
    seen += hist[b];
    if (seen >= rank) break;
  }
  return pow(10.0, ITL_LOG_LO + (b + 0.5) * (ITL_LOG_HI - ITL_LOG_LO) / ITL_BINS);
}

/* Resets the arrivals of a closed-loop run: the first 'clients' requests at t = 0, the others
 * unsent (INFINITY) until a request finishes. */
static void closed_loop_reset(scale_serve *sim, size_t clients) {
  for (size_t i = 0; i < sim->n; i++)
    sim->arrival_s[i] = i < clients ? 0.0 : (double)INFINITY;
}

static void sample(scale_serve_result *r, double t, double frac, double *stride, double step) {
  if (fmod(step, *stride) != 0.0) return;
  if (r->n_samples == SCALE_SERVE_N_SAMPLES) { /* keep every other sample, sample half as often */
    for (int i = 0; i < SCALE_SERVE_N_SAMPLES / 2; i++) {
      r->sample_t_s[i] = r->sample_t_s[2 * i];
      r->sample_kv_frac[i] = r->sample_kv_frac[2 * i];
    }
    r->n_samples = SCALE_SERVE_N_SAMPLES / 2;
    *stride *= 2.0;
    if (fmod(step, *stride) != 0.0) return;
  }
  r->sample_t_s[r->n_samples] = t;
  r->sample_kv_frac[r->n_samples] = frac;
  r->n_samples++;
}

/* Where a run stands between steps. */
typedef struct {
  double t, t0;         /* the clock and the first arrival [s] */
  double blocks_used;   /* KV blocks reserved by the running requests */
  double stride;        /* steps between KV samples */
  double last_decode_s; /* the last step that decoded (prefill_alone) [s] */
  size_t next;          /* the first request not yet admitted */
  size_t n_active;      /* running requests: sim->active[0, n_active) */
  size_t finished;      /* requests done */
  size_t sent;          /* requests sent so far (closed loop; n for an open one) */
  uint64_t accept;      /* the stream of draft acceptances */
  double drafted, accepted; /* draft tokens proposed and kept */
  size_t n_requeued;    /* preempted requests waiting: sim->requeue[0, n_requeued) */
  double preemptions;   /* requests preempted so far */
  double recomputed;    /* tokens prefilled again after preemptions */
  double max_steps;     /* the bound on the steps: each moves a token, recomputes included */
} run_state;

/* ---- the step trace (only with cfg.trace set) ---- */

/* The first event of the step being recorded: the preemptions before it come first. */
static size_t trace_step_first(const scale_serve_trace *tr) {
  size_t first = tr->n_events;
  while (first > 0 && tr->events[first - 1].step == tr->n_steps)
    first--;
  return first;
}

/* Stops recording: the step being recorded is dropped with its events. */
static void trace_truncate(scale_serve_trace *tr) {
  tr->n_events = trace_step_first(tr);
  tr->truncated = true;
}

/* Request i is evicted at the start of the step about to run. */
static void trace_preempted(scale_serve_trace *tr, uint32_t i) {
  if (tr->truncated) return;
  if (tr->n_events == tr->events_cap) {
    trace_truncate(tr);
    return;
  }
  tr->events[tr->n_events++] =
      (scale_serve_trace_event){i, (uint32_t)tr->n_steps, SCALE_SERVE_TRACE_PREEMPTED, 0, 0, 0};
}

/* The tokens of a prompt of 'isl' found in the prefix cache: all but the last at most. */
static uint32_t cached_tokens(const scale_serve_config *c, uint32_t isl) {
  return (uint32_t)fmin(floor(c->prefix_hit_frac * (double)isl), (double)isl - 1.0);
}

/* Resets the scratch of 'sim' for a run (the first token of a prefilled request came with it)
 * and starts 'st' with its bound on the steps (each step moves a token). */
static void run_reset(scale_serve *sim, run_state *st) {
  const scale_serve_config *c = &sim->cfg;
  const size_t n = sim->n;
  memset(sim->itl_hist, 0, ITL_BINS * sizeof *sim->itl_hist);
  memset(st, 0, sizeof *st);
  st->sent = n;
  if (c->concurrency > 0.0) {
    st->sent = (size_t)fmin(c->concurrency, (double)n);
    closed_loop_reset(sim, st->sent);
  }
  double total_tokens = 0.0;
  for (size_t i = 0; i < n; i++) {
    sim->prefilled[i] = cached_tokens(c, sim->isl[i]);
    sim->generated[i] = sim->redo[i] = sim->held[i] = 0;
    sim->evicted[i] = 0;
    if (c->prefilled) {
      sim->prefilled[i] = sim->isl[i];
      sim->generated[i] = 1;
      sim->first_s[i] = sim->arrival_s[i];
    }
    total_tokens += (double)sim->isl[i] + sim->osl[i];
  }
  st->t0 = st->t = st->last_decode_s = sim->arrival_s[0];
  st->accept = c->seed ^ 0x9E3779B97F4A7C15ull;
  st->stride = 1.0;
  st->max_steps = total_tokens + (double)n + 1.0;
  if (c->trace) {
    c->trace->n_steps = c->trace->n_events = c->trace->n_requests = 0;
    c->trace->truncated = false;
  }
}

/* The prompt request i prefills: its own, and after a preemption the tokens it had made. */
static uint32_t prompt_of(const scale_serve *sim, uint32_t i) { return sim->isl[i] + sim->redo[i]; }

static bool prompt_done(const scale_serve *sim, uint32_t i) {
  return sim->prefilled[i] == prompt_of(sim, i);
}

/* The KV blocks request i takes at admission: its whole life's, or with kv_on_demand its prompt's
 * and the next token's. */
static double admit_blocks(const scale_serve *sim, uint32_t i) {
  const scale_serve_config *c = &sim->cfg;
  if (!c->kv_on_demand) return sim->blocks[i];
  return fmin(sim->blocks[i], scale_serve_kv_blocks((double)prompt_of(sim, i) + 1.0,
                                                    c->block_tokens));
}

/* Admission: preempted requests first (the last preempted first), then arrivals in order, while
 * a slot and the request's KV blocks are free. Returns what stopped it (LOAD: nothing
 * waiting). */
static scale_serve_bind admit(scale_serve *sim, run_state *st) {
  const scale_serve_config *c = &sim->cfg;
  for (;;) {
    bool requeued = st->n_requeued > 0;
    if (!requeued && !(st->next < sim->n && sim->arrival_s[st->next] <= st->t)) break;
    uint32_t i = requeued ? sim->requeue[st->n_requeued - 1] : (uint32_t)st->next;
    if (st->n_active >= sim->slots) return SCALE_SERVE_BIND_BATCH;
    double need = admit_blocks(sim, i);
    if (st->blocks_used + need > c->kv_blocks) return SCALE_SERVE_BIND_KV;
    st->blocks_used += need;
    sim->held[i] = (uint32_t)need;
    sim->active[st->n_active++] = i;
    if (requeued)
      st->n_requeued--;
    else
      st->next++;
  }
  return SCALE_SERVE_BIND_LOAD;
}

/* Tokens the draft proposes for a decoding request i this step: no more than it can use. */
static double drafts_of(const scale_serve *sim, uint32_t i) {
  return fmin(sim->cfg.spec_tokens, (double)(sim->osl[i] - sim->generated[i]) - 1.0);
}

/* Preempts the most recently admitted running request (recompute, as vLLM does): its blocks
 * freed, its prompt and the tokens it made to prefill again, at the head of the queue. */
static void preempt_last(scale_serve *sim, run_state *st) {
  uint32_t i = sim->active[--st->n_active];
  st->blocks_used -= sim->held[i];
  sim->held[i] = 0;
  sim->redo[i] = sim->generated[i];
  sim->prefilled[i] = cached_tokens(&sim->cfg, sim->isl[i]);
  sim->requeue[st->n_requeued++] = i;
  sim->evicted[i] = 1;
  if (sim->cfg.trace) trace_preempted(sim->cfg.trace, i);
  st->preemptions += 1.0;
  st->recomputed += (double)(prompt_of(sim, i) - sim->prefilled[i]);
  st->max_steps += (double)prompt_of(sim, i) + 1.0;
}

/* kv_on_demand: each decoding request, in admission order, gets the blocks the tokens of this
 * step need, preempting from the most recent while none are free (itself, when it is the most
 * recent). */
static void grow_kv(scale_serve *sim, run_state *st) {
  const scale_serve_config *c = &sim->cfg;
  for (size_t k = 0; c->kv_on_demand && k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    if (!prompt_done(sim, i)) continue;
    double tokens = (double)sim->isl[i] + sim->generated[i] + drafts_of(sim, i);
    double need = fmin(sim->blocks[i], scale_serve_kv_blocks(tokens, c->block_tokens));
    if (need <= sim->held[i]) continue;
    while (st->blocks_used + need - sim->held[i] > c->kv_blocks && k < st->n_active - 1)
      preempt_last(sim, st);
    if (st->blocks_used + need - sim->held[i] > c->kv_blocks) { /* it is the most recent */
      preempt_last(sim, st);
      break;
    }
    st->blocks_used += need - sim->held[i];
    sim->held[i] = (uint32_t)need;
  }
}

/* The step: one token per decoding request, then prompt chunks (sim->chunk) in admission
 * order; with prefill_alone, a step with prompt work left decodes nothing ('*decoding' then
 * false). Returns whether a prompt got less than it had left (the step's budget binds). */
static bool plan_step(scale_serve *sim, const run_state *st, scale_serve_step *step,
                      bool *decoding) {
  const scale_serve_config *c = &sim->cfg;
  memset(step, 0, sizeof *step);
  *decoding = true;
  for (size_t k = 0; c->prefill_alone && *decoding && k < st->n_active; k++)
    *decoding = prompt_done(sim, sim->active[k]);
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    sim->draft[k] = 0;
    if (!*decoding || !prompt_done(sim, i)) continue;
    double ctx = (double)sim->isl[i] + sim->generated[i];
    step->n_decode += 1.0;
    step->decode_kv_tokens += ctx;
    /* drafts it can still use, verified as prompt tokens: draft j attends to ctx + j tokens */
    double d = drafts_of(sim, i);
    sim->draft[k] = (uint32_t)d;
    step->n_prefill_tokens += d;
    step->prefill_ctx_tokens += d * ctx + d * (d + 1.0) / 2.0;
  }
  double budget = fmax(0.0, c->max_step_tokens - step->n_decode - step->n_prefill_tokens);
  bool starved = false;
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    sim->chunk[k] = 0;
    if (prompt_done(sim, i)) continue;
    double left = (double)(prompt_of(sim, i) - sim->prefilled[i]);
    double take = fmin(left, budget);
    if (take < left) starved = true;
    if (take > 0.0) {
      sim->chunk[k] = (uint32_t)take;
      budget -= take;
      step->n_prefill_tokens += take;
      step->n_prefill_seqs += 1.0;
      /* tokens p+1 .. p+take of the prompt attend to p+1 .. p+take tokens */
      step->prefill_ctx_tokens += take * (double)sim->prefilled[i] + take * (take + 1.0) / 2.0;
    }
  }
  return starved;
}

/* The decoding requests of the step that the latencies measure: those after the warm-up. */
static double measured_decoders(const scale_serve *sim, const run_state *st) {
  double n = 0.0;
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    n += i >= sim->cfg.warmup_requests && prompt_done(sim, i);
  }
  return n;
}

/* Books a step of 'dt' seconds bound by 'bind' into 'out' and advances the clock, with the
 * inter-token latencies it ends. */
static void account_step(scale_serve *sim, scale_serve_result *out, run_state *st, double dt,
                         scale_serve_bind bind, const scale_serve_step *step, bool decoding) {
  const scale_serve_config *c = &sim->cfg;
  sample(out, st->t - st->t0, st->blocks_used / c->kv_blocks, &st->stride, out->n_steps);
  out->bind_s[bind] += dt;
  out->busy_s += dt;
  out->steady_batch += (double)st->n_active * dt;
  out->max_running = fmax(out->max_running, (double)st->n_active);
  out->kv_peak_frac = fmax(out->kv_peak_frac, st->blocks_used / c->kv_blocks);
  out->n_steps += 1.0;
  st->t += dt;
  if (!c->prefill_alone) { /* every decoder made a token last step too */
    double decoders = c->warmup_requests > 0.0 ? measured_decoders(sim, st) : step->n_decode;
    itl_add(sim->itl_hist, dt, decoders);
  } else if (decoding) { /* since the last decode step, or since its first token if later */
    double stalled = 0.0;
    for (size_t k = 0; k < st->n_active; k++) {
      uint32_t i = sim->active[k];
      if (i < c->warmup_requests) continue;
      if (sim->first_s[i] > st->last_decode_s)
        itl_add(sim->itl_hist, st->t - sim->first_s[i], 1.0);
      else
        stalled += 1.0;
    }
    itl_add(sim->itl_hist, st->t - st->last_decode_s, stalled);
    st->last_decode_s = st->t;
  }
}

/* The tokens of 'drafted' a step keeps: each accepted with the config's chance while those
 * before it were. */
static uint32_t accepted(const scale_serve_config *c, uint64_t *rng, uint32_t drafted) {
  uint32_t n = 0;
  while (n < drafted && uniform01(rng) < c->spec_accept_frac) n++;
  return n;
}

/* The draft steps before a step: step j drafts for the requests given j tokens or more, each
 * reading its context and the j - 1 drafts before; NaN when the draft's cost is not a
 * positive time. */
static double draft_s(const scale_serve *sim, const run_state *st) {
  const scale_serve_config *c = &sim->cfg;
  double total = 0.0;
  for (uint32_t j = 1; j <= (uint32_t)c->spec_tokens; j++) {
    scale_serve_step d = {0, 0, 0, 0, 0};
    for (size_t k = 0; k < st->n_active; k++) {
      uint32_t i = sim->active[k];
      if (sim->draft[k] < j) continue;
      d.n_decode += 1.0;
      d.decode_kv_tokens += (double)sim->isl[i] + sim->generated[i] + (j - 1);
    }
    if (d.n_decode == 0.0) break;
    double t = c->spec_draft_cost(&d, c->spec_draft_ctx);
    if (!(t > 0.0) || !isfinite(t)) return NAN;
    total += t;
  }
  return total;
}

/* Applies the step: tokens out, finished requests leave and free their blocks (in a closed
 * loop, each one's client sends its next request). */
static void apply_step(scale_serve *sim, run_state *st, bool decoding) {
  size_t w = 0;
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    if (prompt_done(sim, i)) {
      if (decoding) {
        uint32_t kept = accepted(&sim->cfg, &st->accept, sim->draft[k]);
        sim->generated[i] += 1 + kept;
        st->drafted += sim->draft[k];
        st->accepted += kept;
      }
    } else if (sim->chunk[k] > 0) {
      sim->prefilled[i] += sim->chunk[k];
      if (prompt_done(sim, i)) { /* the prompt's last token makes the next one */
        if (sim->generated[i]++ == 0) sim->first_s[i] = st->t;
      }
    }
    if (sim->generated[i] == sim->osl[i]) {
      sim->finish_s[i] = st->t;
      st->blocks_used -= sim->held[i];
      st->finished++;
      if (st->sent < sim->n) sim->arrival_s[st->sent++] = st->t + sim->cfg.request_overhead_s;
    } else {
      sim->active[w] = i;
      sim->chunk[w] = sim->chunk[k];
      w++;
    }
  }
  st->n_active = w;
}

/* Records the step about to be applied (starting at st->t, 'dt' long, 'draft' of it drafting):
 * one event per running request, 'made' holding its tokens so far until trace_end_step().
 * Returns whether it was recorded. */
static bool trace_step(scale_serve *sim, const run_state *st, const scale_serve_step *work,
                       double dt, double draft, bool decoding) {
  scale_serve_trace *tr = sim->cfg.trace;
  if (tr->truncated) return false;
  if (tr->n_steps == tr->steps_cap || tr->n_events + st->n_active > tr->events_cap) {
    trace_truncate(tr);
    return false;
  }
  size_t first = trace_step_first(tr);
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    scale_serve_trace_event e = {i, (uint32_t)tr->n_steps, SCALE_SERVE_TRACE_IDLE, 0, 0,
                                 sim->generated[i]};
    if (prompt_done(sim, i) && decoding)
      e.kind = SCALE_SERVE_TRACE_DECODE, e.tokens = 1 + sim->draft[k], e.drafted = sim->draft[k];
    else if (!prompt_done(sim, i) && sim->chunk[k] > 0)
      e.kind = sim->evicted[i] ? SCALE_SERVE_TRACE_RECOMPUTE : SCALE_SERVE_TRACE_PREFILL,
      e.tokens = sim->chunk[k];
    tr->events[tr->n_events++] = e;
  }
  tr->steps[tr->n_steps++] = (scale_serve_trace_step){
      st->t - st->t0, dt, draft, *work, (uint32_t)first, (uint32_t)(tr->n_events - first)};
  return true;
}

/* After the step: each event's output tokens, now that the step is applied. */
static void trace_end_step(scale_serve *sim) {
  scale_serve_trace *tr = sim->cfg.trace;
  const scale_serve_trace_step *sp = &tr->steps[tr->n_steps - 1];
  for (uint32_t e = sp->first_event; e < sp->first_event + sp->n_events; e++)
    if (tr->events[e].kind != SCALE_SERVE_TRACE_PREEMPTED)
      tr->events[e].made = sim->generated[tr->events[e].request] - tr->events[e].made;
}

/* The lives of the first requests the trace holds. */
static void trace_requests(const scale_serve *sim, double t0) {
  scale_serve_trace *tr = sim->cfg.trace;
  tr->n_requests = sim->n < tr->requests_cap ? sim->n : tr->requests_cap;
  tr->truncated |= sim->n > tr->requests_cap;
  for (size_t i = 0; i < tr->n_requests; i++)
    tr->requests[i] = (scale_serve_trace_request){sim->arrival_s[i] - t0, sim->first_s[i] - t0,
                                                  sim->finish_s[i] - t0, sim->isl[i],
                                                  sim->osl[i]};
}

/* The report's totals and rates, the SLO's share and what bound the run most. */
static void report_totals(const scale_serve *sim, scale_serve_result *out, double t0) {
  const scale_serve_config *c = &sim->cfg;
  double last = t0, good_tokens = 0.0, n_good = 0.0;
  for (size_t i = 0; i < sim->n; i++) {
    last = fmax(last, sim->finish_s[i]);
    out->input_tokens += sim->isl[i];
    out->cached_tokens += cached_tokens(c, sim->isl[i]);
    out->output_tokens += sim->osl[i];
    double ttft = sim->first_s[i] - sim->arrival_s[i] + c->request_overhead_s;
    double tpot = sim->osl[i] > 1 ? (sim->finish_s[i] - sim->first_s[i]) / (sim->osl[i] - 1) : 0.0;
    if (ttft <= c->ttft_slo_s && tpot <= c->tpot_slo_s) {
      n_good += 1.0;
      good_tokens += sim->osl[i];
    }
  }
  out->n_requests = (double)sim->n;
  out->makespan_s = last - t0;
  out->throughput_tokens_per_s = out->output_tokens / out->makespan_s;
  out->request_rate_per_s = out->n_requests / out->makespan_s;
  out->good_frac = n_good / out->n_requests;
  out->goodput_tokens_per_s = good_tokens / out->makespan_s;
  out->steady_batch /= out->busy_s;
  out->bind = SCALE_SERVE_BIND_LOAD;
  for (int b = 1; b < SCALE_SERVE_BIND_COUNT; b++)
    if (out->bind_s[b] > out->bind_s[out->bind]) out->bind = (scale_serve_bind)b;
}

/* The report's TTFT, TPOT and ITL percentiles and means. */
static void report_latencies(scale_serve *sim, scale_serve_result *out) {
  const size_t n = sim->n, w = (size_t)sim->cfg.warmup_requests; /* measured: [w, n) */
  size_t m = 0;
  double sum = 0.0;
  for (size_t i = w; i < n; i++) {
    sim->sorted[m] = sim->first_s[i] - sim->arrival_s[i] + sim->cfg.request_overhead_s;
    sum += sim->sorted[m++];
  }
  qsort(sim->sorted, m, sizeof *sim->sorted, cmp_double);
  out->ttft_p50_s = percentile(sim->sorted, m, 0.50);
  out->ttft_p90_s = percentile(sim->sorted, m, 0.90);
  out->ttft_p99_s = percentile(sim->sorted, m, 0.99);
  out->ttft_mean_s = sum / (double)m;
  m = 0;
  sum = 0.0;
  for (size_t i = w; i < n; i++)
    if (sim->osl[i] > 1) {
      sim->sorted[m] = (sim->finish_s[i] - sim->first_s[i]) / (sim->osl[i] - 1);
      sum += sim->sorted[m++];
    }
  qsort(sim->sorted, m, sizeof *sim->sorted, cmp_double);
  out->tpot_p50_s = percentile(sim->sorted, m, 0.50);
  out->tpot_p90_s = percentile(sim->sorted, m, 0.90);
  out->tpot_p99_s = percentile(sim->sorted, m, 0.99);
  out->tpot_mean_s = m ? sum / (double)m : (double)NAN;
  out->itl_p50_s = itl_percentile(sim->itl_hist, 0.50);
  out->itl_p90_s = itl_percentile(sim->itl_hist, 0.90);
}

/* Whether the cost function's 'dt' for 'step' is a positive time; the error when not. */
static bool good_cost(double dt, const scale_serve_step *step, scale_diag *diag) {
  if (dt > 0.0 && isfinite(dt)) return true;
  scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                 "serve: the cost function gave %g s for a step of %g decodes and %g prompt tokens",
                 dt, step->n_decode, step->n_prefill_tokens);
  return false;
}

/* The steps from here on that only decode the running requests and end none of them: each
 * makes one token per request and nothing else moves (no prompt left, admission blocked or
 * nothing waiting, no drafts, no KV grown, no trace), so they are run without a pass over the
 * requests (most of an offline run's time). 0 when the next step is not such a step; *kv_tokens:
 * the first one's context in all. */
static double decode_window(const scale_serve *sim, const run_state *st, double *kv_tokens) {
  const scale_serve_config *c = &sim->cfg;
  if (c->trace || c->spec_tokens > 0.0 || c->kv_on_demand || st->n_active == 0) return 0.0;
  double left = HUGE_VAL, ctx = 0.0;
  for (size_t k = 0; k < st->n_active; k++) {
    uint32_t i = sim->active[k];
    if (!prompt_done(sim, i)) return 0.0;
    left = fmin(left, (double)(sim->osl[i] - sim->generated[i]));
    ctx += (double)sim->isl[i] + sim->generated[i]; /* integers: exact, in any order */
  }
  *kv_tokens = ctx;
  return left - 1.0;
}

/* Runs up to 'steps' of decode_window()'s steps, the first reading 'kv_tokens' of context, as
 * the loop of scale_serve_run() would run them one by one (the same costs, checks and books),
 * stopping early where an arrival could be admitted; the requests' tokens are added at the end.
 * Returns the status of the step that failed, if one did. */
static scale_status run_window(scale_serve *sim, run_state *st, scale_serve_result *out,
                               scale_serve_bind bind, double steps, double kv_tokens,
                               scale_diag *diag) {
  const scale_serve_config *c = &sim->cfg;
  double n = (double)st->n_active, done = 0.0;
  scale_status status = SCALE_OK;
  for (; done < steps; done += 1.0) {
    /* the first step is the one the caller checked; after it, its loop's checks stop us */
    if (done > 0.0 && (out->n_steps >= st->max_steps ||
                       (bind == SCALE_SERVE_BIND_LOAD && st->next < sim->n &&
                        sim->arrival_s[st->next] <= st->t)))
      break;
    scale_serve_step step = {n, kv_tokens + done * n, 0.0, 0.0, 0.0};
    double dt = c->cost(&step, c->cost_ctx);
    if (!good_cost(dt, &step, diag)) {
      status = SCALE_ERR_RANGE;
      break;
    }
    account_step(sim, out, st, dt, bind, &step, true);
  }
  for (size_t k = 0; k < st->n_active; k++)
    sim->generated[sim->active[k]] += (uint32_t)done;
  return status;
}

scale_status scale_serve_run(scale_serve *sim, scale_serve_result *out, scale_diag *diag) {
  if (!sim || !out) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  const scale_serve_config *c = &sim->cfg;
  memset(out, 0, sizeof *out);
  run_state st;
  run_reset(sim, &st);
  while (st.finished < sim->n) {
    if (out->n_steps >= st.max_steps) /* unreachable: every step moves a token */
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "serve: no progress after %g steps",
                            out->n_steps);
    if (st.preemptions > PREEMPT_MAX * (double)sim->n)
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "serve: %g preemptions for %zu requests: the KV cache thrashes (give "
                            "it more blocks, or admit fewer requests)",
                            st.preemptions, sim->n);
    if (st.n_active == 0 && st.next < sim->n && sim->arrival_s[st.next] > st.t)
      st.t = sim->arrival_s[st.next];
    scale_serve_bind bind = admit(sim, &st);
    grow_kv(sim, &st);
    double kv_tokens, window = decode_window(sim, &st, &kv_tokens);
    if (window > 0.0) {
      scale_status ws = run_window(sim, &st, out, bind, window, kv_tokens, diag);
      if (ws) return ws;
      continue;
    }
    scale_serve_step step;
    bool decoding;
    bool starved = plan_step(sim, &st, &step, &decoding);
    if (bind == SCALE_SERVE_BIND_LOAD && starved) bind = SCALE_SERVE_BIND_COMPUTE;
    double dt = c->cost(&step, c->cost_ctx);
    if (!good_cost(dt, &step, diag)) return SCALE_ERR_RANGE;
    double draft = c->spec_tokens > 0.0 ? draft_s(sim, &st) : 0.0;
    if (isnan(draft))
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "serve: the draft's cost function gave no positive time for a step "
                            "of %g decodes",
                            step.n_decode);
    out->draft_s += draft;
    dt += draft;
    bool traced = c->trace && trace_step(sim, &st, &step, dt, draft, decoding);
    account_step(sim, out, &st, dt, bind, &step, decoding);
    apply_step(sim, &st, decoding);
    if (traced) trace_end_step(sim);
  }
  if (c->trace) trace_requests(sim, st.t0);
  out->preemptions = st.preemptions;
  out->recomputed_tokens = st.recomputed;
  out->drafted_tokens = st.drafted;
  out->accepted_tokens = st.accepted;
  report_totals(sim, out, st.t0);
  report_latencies(sim, out);
  return SCALE_OK;
}

/* ---- empirical length tables ---------------------------------------------------------------- */

#define TABLE_MAX 1000000 /* pairs in a length table at most */

enum { LINE_OK, LINE_EOF, LINE_LONG, LINE_NUL };

/* Reads one line of 'fp' without its '\n' into buf[0..size) (NUL-terminated, its length in
 * *len): LINE_EOF at the end of the file, LINE_LONG past size - 1 bytes, LINE_NUL when it holds
 * a NUL byte (which a C string would silently cut). */
static int read_line(FILE *fp, char *buf, size_t size, size_t *len) {
  int ch;
  *len = 0;
  bool nul = false;
  while ((ch = getc(fp)) != EOF && ch != '\n') {
    if (*len + 1 >= size) return LINE_LONG;
    nul |= ch == '\0';
    buf[(*len)++] = (char)ch;
  }
  buf[*len] = '\0';
  if (ch == EOF && *len == 0) return LINE_EOF;
  return nul ? LINE_NUL : LINE_OK;
}

/* Parses one "isl<TAB>osl" line of integers in [1, LEN_MAX]; false when it is not one. */
static bool parse_pair(const char *line, uint32_t *isl, uint32_t *osl) {
  char *end;
  double a = strtod(line, &end);
  if (end == line || *end != '\t') return false;
  const char *second = end + 1;
  double b = strtod(second, &end);
  if (end == second || (*end != '\0' && *end != '\n' && *end != '\r')) return false;
  if (!is_count(a, 1, LEN_MAX) || !is_count(b, 1, LEN_MAX)) return false;
  *isl = (uint32_t)a;
  *osl = (uint32_t)b;
  return true;
}

/* Appends a pair to the growing arrays; false when out of memory. */
static bool push_pair(uint32_t **isl, uint32_t **osl, size_t *n, size_t *cap, uint32_t a,
                      uint32_t b) {
  if (*n == *cap) {
    size_t grown = *cap ? 2 * *cap : 512;
    uint32_t *x = realloc(*isl, grown * sizeof *x);
    if (!x) return false;
    *isl = x;
    uint32_t *y = realloc(*osl, grown * sizeof *y);
    if (!y) return false;
    *osl = y;
    *cap = grown;
  }
  (*isl)[*n] = a;
  (*osl)[*n] = b;
  (*n)++;
  return true;
}

scale_status scale_serve_lengths_load(const char *path, uint32_t **isl, uint32_t **osl, size_t *n,
                                      scale_diag *diag) {
  if (!path || !isl || !osl || !n)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  *isl = *osl = NULL;
  *n = 0;
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open the length table");
  char line[256];
  size_t cap = 0;
  int lineno = 0;
  bool header = false;
  scale_status st = SCALE_OK;
  int got;
  size_t len;
  while (!st && (got = read_line(fp, line, sizeof line, &len)) != LINE_EOF) {
    lineno++;
    if (got != LINE_OK) {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno,
                          got == LINE_LONG ? "line too long" : "a NUL byte in the line");
      break;
    }
    while (len > 0 && line[len - 1] == '\r')
      line[--len] = '\0';
    if (len == 0 || line[0] == '#') continue;
    uint32_t a, b;
    if (!header) {
      header = true;
      if (strcmp(line, "isl\tosl") != 0)
        st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno,
                            "the header must be 'isl<TAB>osl', got '%.40s'", line);
    } else if (*n >= TABLE_MAX) {
      st = scale_diag_set(diag, SCALE_ERR_RANGE, path, lineno, "more than %d pairs", TABLE_MAX);
    } else if (!parse_pair(line, &a, &b)) {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno,
                          "expected two integers in [1, %g] separated by a tab, got '%.40s'",
                          LEN_MAX, line);
    } else if (!push_pair(isl, osl, n, &cap, a, b)) {
      st = scale_diag_set(diag, SCALE_ERR_NOMEM, path, lineno, "out of memory");
    }
  }
  fclose(fp);
  if (!st && *n == 0) st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "no pairs");
  if (st) {
    free(*isl);
    free(*osl);
    *isl = *osl = NULL;
    *n = 0;
  }
  return st;
}
