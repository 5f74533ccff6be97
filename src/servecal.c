/* servecal.c — the calibrated serving step cost, the serving rows and their fit
 * (include/scale/servecal.h). */
#include "scale/servecal.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "scale/file.h"
#include "scale/step.h"
#include "scale/transformer.h"

/* ---- the parameters (their table is in params.h) -------------------------------------------- */

static const scale_serve_param_info *const param_info = scale_params_serve_info;

bool scale_serve_params_of(const scale_chip *chip, double p[SCALE_SERVE_N_PARAMS]) {
  bool fitted = chip && chip->has_serve;
  for (int i = 0; i < SCALE_SERVE_N_PARAMS; i++)
    p[i] = fitted ? chip->serve[i] : param_info[i].prior;
  /* Without a serving fit (every TPU: no serving row is fitted) the GEMMs' ceiling is the one
   * the chip's training fit measured, not the cuBLAS prior. */
  if (!fitted && chip && chip->has_step) {
    const scale_serve_param_info *d = &param_info[SCALE_SERVE_MATMUL_FRAC];
    p[SCALE_SERVE_MATMUL_FRAC] = fmin(d->hi, fmax(d->lo, chip->step[SCALE_STEP_MM_ETA_MAX]));
  }
  return fitted;
}

/* ---- the calibrated cost -------------------------------------------------------------------- */

/* The step model's value of 'e' on this chip: its calibrated [step], else the prior. */
static double step_param(const scale_chip *chip, scale_step_param e) {
  return chip->has_step ? chip->step[e] : scale_step_param_describe(e)->prior;
}

/* How fast the copy's collectives run: the links at the share of their peak the training fit
 * measured for them, an NVLink hop at its fitted latency (a GPU file names none), an ICI hop at
 * the chip's; activations in bf16 on the wire. */
static scale_infer_link tp_link(const scale_chip *chip) {
  scale_infer_link l = {1.0, NAN, 2.0};
  if (chip->kind == SCALE_HW_GPU) {
    l.bw_frac = step_param(chip, SCALE_STEP_UP_BW_ETA);
    l.hop_latency_s = step_param(chip, SCALE_STEP_UP_LATENCY_S);
  } else {
    l.bw_frac = step_param(chip, SCALE_STEP_ICI_BW_ETA);
  }
  return l;
}

/* The collectives of each MLP layout the copy may use, as a fixed time and a time per token:
 * the bandwidth terms are linear in the tokens, the latency and weight gathers constant, so two
 * evaluations give both exactly. Where a layout cannot be priced (2-D on one axis or a GPU) its
 * entries are NaN; false when the copy's own layout is one of those. */
static bool comms_of(const scale_model *model, const scale_chip *chip,
                     const scale_infer_config *cfg, scale_serve_cost *out) {
  scale_infer_link link = tp_link(chip);
  bool any = false;
  for (int l = 0; l < SCALE_FFN_AUTO; l++) {
    out->comm_fixed_s[l] = out->comm_token_s[l] = out->comm_count[l] = NAN;
    if (cfg->ffn_layout != SCALE_FFN_AUTO && cfg->ffn_layout != (scale_ffn_layout)l) continue;
    scale_ffn_layout lay = (scale_ffn_layout)l;
    scale_infer_comms c1 = scale_infer_comms_eval(model, chip, cfg, 1.0, lay, &link);
    double t1 = c1.time_s;
    double t2 = scale_infer_comms_eval(model, chip, cfg, 1025.0, lay, &link).time_s;
    if (!isfinite(t1) || !isfinite(t2)) continue;
    out->comm_count[l] = c1.count;
    out->comm_token_s[l] = (t2 - t1) / 1024.0;
    out->comm_fixed_s[l] = t1 - out->comm_token_s[l];
    any = true;
  }
  return any;
}

/* The routed experts of a MoE model: their count, bytes and active parameters (0 if dense). */
static void moe_of(const scale_model *model, const scale_infer_config *cfg, scale_serve_cost *out) {
  double layers = scale_transformer_n_moe_layers(model);
  double one = scale_transformer_n_expert_params(model) * layers;
  if (!(layers > 0.0) || !(one > 0.0) || model->n_experts < 1) return;
  out->n_experts = (double)model->n_experts;
  out->experts_active = (double)model->n_experts_active;
  out->expert_bytes = one * scale_dtype_bytes(cfg->weight_dtype);
  out->routed_active_params = one * out->experts_active;
  /* each expert split over the tp / ep chips of its expert-TP group (all tp without EP) */
  out->expert_dim = (double)model->d_ff_expert * cfg->ep / cfg->tp;
}

double scale_serve_experts_touched(const scale_serve_cost *c, double tokens) {
  if (!c || !(c->n_experts > 0.0) || !(tokens > 0.0)) return 0.0;
  return c->n_experts * (1.0 - pow(1.0 - c->experts_active / c->n_experts, tokens));
}

/* GEMM efficiency by shape at 'm' rows (step.h's eta). */
static double eta_of(const scale_serve_cost *c, double m) {
  return c->p[c->matmul_param] * m / (m + c->mm_dim_half);
}

/* Routed experts' grouped GEMMs at 'm' rows an expert: the dense efficiency, the share
 * moe_gemm_frac that routing, permutation and combine leave, and a narrow expert's penalty
 * n / (n + expert_dim_half) on its width n a chip (few output tiles, short weight rows). */
static double expert_eta_of(const scale_serve_cost *c, double m) {
  double n = c->expert_dim;
  return eta_of(c, m) * c->p[SCALE_SERVE_MOE_GEMM_FRAC] * n /
         (n + c->p[SCALE_SERVE_EXPERT_DIM_HALF]);
}

scale_status scale_serve_cost_of(const scale_model *model, const scale_chip *chip,
                                 const scale_infer_config *cfg,
                                 const double p[SCALE_SERVE_N_PARAMS], scale_serve_cost *out,
                                 scale_diag *diag) {
  if (!model || !chip || !cfg || !p || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "serve: NULL argument");
  for (int i = 0; i < SCALE_SERVE_N_PARAMS; i++)
    if (!(p[i] >= param_info[i].lo && p[i] <= param_info[i].hi))
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "serve: %s = %g is outside [%g, %g]",
                            param_info[i].key, p[i], param_info[i].lo, param_info[i].hi);
  scale_infer_memory mem = scale_infer_memory_eval(model, chip, cfg);
  memset(out, 0, sizeof *out);
  memcpy(out->p, p, sizeof out->p);
  out->n_params = scale_transformer_n_active_params(model);
  out->weight_bytes = mem.weight_bytes;
  out->kv_bytes_per_token = mem.kv_bytes_per_token;
  out->attn_flops_per_pair =
      4.0 * (double)model->n_layers * (double)model->n_heads * (double)model->d_head;
  if (scale_model_n_local_layers(model) > 0 && cfg->context > 0) {
    /* local layers hold and read at most their window: the cache's average token at the
     * configured context, which every sequence is priced at (an approximation for shorter
     * ones, which the window caps less) */
    double held = mem.kv_bytes_per_sequence / (cfg->context * mem.kv_bytes_per_token);
    out->kv_bytes_per_token *= held;
    out->attn_flops_per_pair *= held;
  }
  out->flops_per_s = cfg->tp * scale_chip_flops_per_s(chip, cfg->compute_dtype);
  out->hbm_bytes_per_s = cfg->tp * chip->hbm_bytes_per_s;
  /* A TPU's MXU takes the weights stationary while they stream from HBM: a decode's few rows
   * cost what the weight read costs, the step "flat until about B = 240, then linear" (ch. 7
   * Appendix A), so its GEMMs lose nothing by shape; a GPU's tiles do (step.h's eta). */
  out->mm_dim_half = chip->kind == SCALE_HW_GPU ? step_param(chip, SCALE_STEP_MM_DIM_HALF) : 0.0;
  out->matmul_param =
      cfg->compute_dtype == SCALE_DTYPE_FP4 ? SCALE_SERVE_FP4_MATMUL_FRAC : SCALE_SERVE_MATMUL_FRAC;
  out->tp = cfg->tp;
  out->ffn_layout = cfg->ffn_layout;
  out->kv_heads_per_chip = fmax(1.0, (double)model->n_kv_heads / cfg->tp);
  out->kv_read_factor = cfg->kv_sharding == SCALE_KV_SHARD_HEADS && model->n_kv_heads > 0
                            ? cfg->tp / fmin(cfg->tp, (double)model->n_kv_heads)
                            : 1.0;
  bool comms = comms_of(model, chip, cfg, out);
  /* Two GPU kernel effects a TPU lacks: a custom AllReduce's flag handshake with each peer
   * (XLA compiles a TPU's collectives into the step's program: its hops are all it waits for),
   * and decode attention leaving SMs idle below a work item or so each (a TPU core runs the
   * ragged attention of every sequence in one kernel, bandwidth-bound). */
  bool gpu = chip->kind == SCALE_HW_GPU;
  out->sync_peers = gpu ? cfg->tp - 1.0 : 0.0;
  out->kv_cta_scale = gpu ? 1.0 : 0.0;
  out->kv_capacity_bytes = cfg->tp * (chip->hbm_bytes - mem.weight_bytes_per_chip);
  moe_of(model, cfg, out);
  if (!(out->kv_bytes_per_token > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "serve: %s has no KV cache to page",
                          model->name);
  if (!(out->kv_capacity_bytes > 0.0) || !(out->flops_per_s > 0.0) ||
      !(out->hbm_bytes_per_s > 0.0) || !(out->n_params > 0.0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: the weights of %s (%.3g bytes per chip) leave no HBM for KV "
                          "caches on %g x %s",
                          model->name, mem.weight_bytes_per_chip, cfg->tp, chip->name);
  if (!comms && cfg->ffn_layout == SCALE_FFN_WS_2D)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: 2-D weight-stationary MLPs need a TPU model-parallel group over "
                          "two torus axes or more (%g x %s has %s)",
                          cfg->tp, chip->name,
                          chip->kind == SCALE_HW_GPU ? "one NVLink switch" : "one axis");
  if (!comms)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                          "serve: %s has no interconnect for tensor parallelism over %g chips",
                          chip->name, cfg->tp);
  return SCALE_OK;
}

/* (a^k + b^k)^(1/k) for a, b >= 0: a max that both terms raise near a = b (a GEMM at the ridge
 * neither streams its weights at full bandwidth nor computes at full rate); the sum at k = 1.
 * Scaled by the larger so that neither power overflows; the larger's power is 1 exactly (pow(1,
 * k) = 1), so it is not computed (pow() is most of a fit's time). */
static double smooth_max(double a, double b, double k) {
  double m = fmax(a, b);
  if (!(m > 0.0)) return m;
  double pa = a == m ? 1.0 : pow(a / m, k), pb = b == m ? 1.0 : pow(b / m, k);
  double s = pa + pb;
  return s == 1.0 ? m : m * pow(s, 1.0 / k); /* pow(1, y) = 1 exactly */
}

/* What no parameter changes in the linear layers of a step of 'tokens' tokens. */
typedef struct {
  double tokens;       /* of the step [count] */
  double weight_bytes; /* the weights it reads: all but the experts no token touches [bytes] */
  double shared_flops; /* of its GEMMs over the shared (not routed) parameters [FLOP] */
  double routed_flops; /* of the routed experts' GEMMs (0: dense) [FLOP] */
  double routed_rows;  /* rows of one expert's GEMM: tokens k / E on average [count] */
} linear_terms;

static linear_terms linear_terms_of(const scale_serve_cost *c, double tokens) {
  linear_terms t = {tokens, 0, 0, 0, 0};
  double idle = (c->n_experts - scale_serve_experts_touched(c, tokens)) * c->expert_bytes;
  t.weight_bytes = c->weight_bytes - idle;
  double shared = c->n_params - c->routed_active_params;
  t.shared_flops = scale_transformer_dense_flops(shared, tokens, SCALE_PASS_FORWARD);
  if (c->routed_active_params > 0.0) {
    t.routed_flops =
        scale_transformer_dense_flops(c->routed_active_params, tokens, SCALE_PASS_FORWARD);
    t.routed_rows = tokens * c->experts_active / c->n_experts;
  }
  return t;
}

/* The linear layers' time of a step whose terms are 't'; sets whether the GEMMs bound it. */
static double linear_of(const scale_serve_cost *c, const linear_terms *t, bool *gemm_bound) {
  double t_weights = t->weight_bytes / (c->hbm_bytes_per_s * c->p[SCALE_SERVE_WEIGHT_BW_FRAC]);
  double t_gemm = t->shared_flops / (c->flops_per_s * eta_of(c, t->tokens));
  if (c->routed_active_params > 0.0)
    t_gemm += t->routed_flops / (c->flops_per_s * expert_eta_of(c, t->routed_rows));
  *gemm_bound = t_gemm > t_weights;
  return smooth_max(t_weights, t_gemm, c->p[SCALE_SERVE_LINEAR_K]);
}

/* The layout that prices a step of 'tokens' tokens, and its collectives' time. */
static double comm_at(const scale_serve_cost *c, double tokens, scale_ffn_layout *layout) {
  double best = HUGE_VAL;
  *layout = c->ffn_layout == SCALE_FFN_AUTO ? SCALE_FFN_WS_1D : c->ffn_layout;
  for (int l = 0; l < SCALE_FFN_AUTO; l++) {
    double t = c->comm_fixed_s[l] + c->comm_token_s[l] * tokens;
    if (t < best) { /* NaN: not priced */
      best = t;
      *layout = (scale_ffn_layout)l;
    }
  }
  return best;
}

scale_ffn_layout scale_serve_layout_at(const scale_serve_cost *c, double tokens) {
  scale_ffn_layout l = SCALE_FFN_WS_1D;
  if (c) comm_at(c, tokens, &l);
  return l;
}

/* The engine's time of a step of 'tokens' tokens but its requests': the step's, and each
 * collective's synchronisation: before a chip reads or writes a peer's buffer it sets a flag
 * there and waits for the peer's (the custom AllReduce kernels of TensorRT-LLM and vLLM), one
 * round trip with each of the tp - 1 others, which no byte count prices. */
static double step_overhead_s(const scale_serve_cost *c, double tokens) {
  if (!(c->tp > 1.0)) return c->p[SCALE_SERVE_OVERHEAD_S];
  scale_ffn_layout l;
  comm_at(c, tokens, &l);
  return c->p[SCALE_SERVE_OVERHEAD_S] +
         c->p[SCALE_SERVE_OVERHEAD_COLL_S] * c->comm_count[l] * c->sync_peers;
}

/* The model-parallel collectives of a step of 'tokens' tokens; 0 on one chip. */
static double tp_of(const scale_serve_cost *c, double tokens) {
  if (!(c->tp > 1.0)) return 0.0;
  scale_ffn_layout l;
  return comm_at(c, tokens, &l);
}

/* Time of the token-count-dependent terms of a step with 'tokens' tokens (no KV, no attention). */
static scale_serve_parts parts_of_tokens(const scale_serve_cost *c, double tokens) {
  scale_serve_parts r = {0, 0, 0, 0, 0, false};
  r.overhead_s = step_overhead_s(c, tokens);
  linear_terms t = linear_terms_of(c, tokens);
  r.linear_s = linear_of(c, &t, &r.gemm_bound);
  r.tp_s = tp_of(c, tokens);
  return r;
}

/* Decode attention's KV reads over 'steps' steps that decode 'seqs' sequences reading
 * 'kv_tokens' tokens of context in all, where 'kv_per_seq' sums each step's kv_tokens / n_decode
 * and 'seqs_per_batch' counts the steps with decodes. A step of b sequences with contexts l_i
 * takes
 *   kv_bytes_per_token sum_i (l_i + kv_ctx_half) / (W kv_bw_frac eff(b)),
 *   eff(b) = b h / (b h + kv_cta_half)      (h: KV heads a chip)
 * kv_ctx_half: a sequence's fixed cost in tokens of context (its partly filled last block, its
 * setup and reduction); eff: a step with few (sequence, KV head) work items leaves SMs idle.
 * 1 / eff = 1 + kv_cta_half / (b h) makes the sum over steps additive in the four sums. */
static double kv_sums_s(const scale_serve_cost *c, double kv_tokens, double seqs, double kv_per_seq,
                        double steps) {
  double ctx_half = c->p[SCALE_SERVE_KV_CTX_HALF];
  double tokens =
      kv_tokens + ctx_half * seqs +
      c->kv_cta_scale * c->p[SCALE_SERVE_KV_CTA_HALF] / c->kv_heads_per_chip *
          (kv_per_seq + ctx_half * steps);
  return tokens * c->kv_bytes_per_token * c->kv_read_factor /
         (c->hbm_bytes_per_s * c->p[SCALE_SERVE_KV_BW_FRAC]);
}

/* The KV reads of one step of 'n_decode' sequences reading 'kv_tokens' tokens in all. */
static double kv_s(const scale_serve_cost *c, double n_decode, double kv_tokens) {
  if (!(n_decode > 0.0)) return 0.0;
  return kv_sums_s(c, kv_tokens, n_decode, kv_tokens / n_decode, 1.0);
}

static double attn_s(const scale_serve_cost *c, double ctx_tokens) {
  return ctx_tokens * c->attn_flops_per_pair / (c->flops_per_s * c->p[SCALE_SERVE_ATTN_FRAC]);
}

scale_serve_parts scale_serve_cost_parts(const scale_serve_cost *c, const scale_serve_step *s) {
  scale_serve_parts r = {NAN, NAN, NAN, NAN, NAN, false};
  if (!c || !s || !(s->n_decode + s->n_prefill_tokens > 0.0)) return r;
  r = parts_of_tokens(c, s->n_decode + s->n_prefill_tokens);
  r.overhead_s += c->p[SCALE_SERVE_OVERHEAD_SEQ_S] * s->n_decode;
  r.kv_s = kv_s(c, s->n_decode, s->decode_kv_tokens);
  r.attn_s = attn_s(c, s->prefill_ctx_tokens);
  return r;
}

static double parts_sum(const scale_serve_parts *p) {
  return p->overhead_s + p->linear_s + p->kv_s + p->attn_s + p->tp_s;
}

scale_serve_parts scale_serve_decode_parts(const scale_serve_cost *cost, double batch,
                                           double context) {
  scale_serve_step s = {batch, batch * context, 0.0, 0.0, 0.0};
  return scale_serve_cost_parts(cost, &s);
}

scale_serve_parts scale_serve_prefill_parts(const scale_serve_cost *cost, double prompt) {
  scale_serve_step s = {0.0, 0.0, prompt, 1.0, prompt * (prompt + 1.0) / 2.0};
  return scale_serve_cost_parts(cost, &s);
}

double scale_serve_parts_total(const scale_serve_parts *p) { return parts_sum(p); }

double scale_serve_cost_s(const scale_serve_step *step, void *ctx) {
  scale_serve_parts p = scale_serve_cost_parts(ctx, step);
  return parts_sum(&p);
}

/* ---- both cores ----------------------------------------------------------------------------- */

#define THREADS_MAX 16

/* A thread's share of run_shared()'s indices: first, first + step, ... */
typedef struct {
  void (*fn)(void *ctx, int i);
  void *ctx;
  int n, first, step;
} share;

static void *share_run(void *arg) {
  const share *w = arg;
  for (int i = w->first; i < w->n; i += w->step)
    w->fn(w->ctx, i);
  return NULL;
}

/* Runs fn(ctx, i) for every i in [0, n), dealt round-robin to a thread a core; each i must
 * write only its own results, so that they do not depend on the threads. Where a thread cannot
 * start (the WebAssembly build has none), the caller runs its share. */
static void run_shared(int n, void (*fn)(void *ctx, int i), void *ctx) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int k = cores > 1 ? (int)fmin((double)cores, THREADS_MAX) : 1;
  if (k > n) k = n > 0 ? n : 1;
  share shares[THREADS_MAX];
  pthread_t threads[THREADS_MAX];
  bool started[THREADS_MAX] = {false};
  for (int t = 0; t < k; t++)
    shares[t] = (share){fn, ctx, n, t, k};
  for (int t = 1; t < k; t++)
    started[t] = pthread_create(&threads[t], NULL, share_run, &shares[t]) == 0;
  share_run(&shares[0]);
  for (int t = 1; t < k; t++) {
    if (started[t])
      pthread_join(threads[t], NULL);
    else
      share_run(&shares[t]);
  }
}

/* ---- the serving rows ----------------------------------------------------------------------- */

#define N_COLUMNS 19
static const char *const columns[N_COLUMNS] = {
    "id",    "group",       "model",  "hardware", "chips",    "tp",        "weights",
    "kv",    "compute",     "isl",    "osl",      "requests", "max_batch", "step_tokens",
    "block", "kv_mem_frac", "metric", "measured", "source"};

/* Splits 'line' at tabs into f[0..N_COLUMNS); returns the number of fields found. */
static int split_tabs(char *line, char **f) {
  int n = 0;
  for (char *p = line;; n++) {
    if (n < N_COLUMNS) f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) return n + 1;
    *tab = '\0';
    p = tab + 1;
  }
}

typedef struct {
  const char *file;
  int line;
  scale_diag *diag;
} cursor;

static scale_status bad(const cursor *c, scale_status st, const char *what, const char *col,
                        const char *text) {
  return scale_diag_set(c->diag, st, c->file, c->line, "column '%s': %s, got '%.60s'", col, what,
                        text);
}

static scale_status number(const cursor *c, const char *col, const char *text, double lo, double hi,
                           bool whole, double *out) {
  char *end;
  double x = strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(x))
    return bad(c, SCALE_ERR_PARSE, "expected a number", col, text);
  if (x < lo || x > hi || (whole && x != floor(x)))
    return scale_diag_set(c->diag, SCALE_ERR_RANGE, c->file, c->line,
                          "column '%s': %s in [%g, %g], got %g", col,
                          whole ? "an integer" : "a number", lo, hi, x);
  *out = x;
  return SCALE_OK;
}

static scale_status text(const cursor *c, const char *col, const char *t, char *dst, size_t size) {
  size_t len = strlen(t);
  if (len == 0 || len >= size) return bad(c, SCALE_ERR_PARSE, "empty or too long", col, t);
  memcpy(dst, t, len + 1);
  return SCALE_OK;
}

static scale_status dtype(const cursor *c, const char *col, const char *t, scale_dtype *out) {
  return scale_dtype_parse(t, out) ? bad(c, SCALE_ERR_PARSE, "expected a dtype", col, t) : SCALE_OK;
}

static scale_status parse_row(const cursor *c, char **f, scale_serve_row *r) {
  scale_status st;
  memset(r, 0, sizeof *r);
  if ((st = text(c, "id", f[0], r->id, sizeof r->id)) ||
      (st = text(c, "group", f[1], r->group, sizeof r->group)) ||
      (st = text(c, "model", f[2], r->model, sizeof r->model)) ||
      (st = text(c, "hardware", f[3], r->hardware, sizeof r->hardware)) ||
      (st = number(c, "chips", f[4], 1, 1e6, true, &r->chips)) ||
      (st = number(c, "tp", f[5], 1, 1024, true, &r->tp)) ||
      (st = dtype(c, "weights", f[6], &r->weight_dtype)) ||
      (st = dtype(c, "kv", f[7], &r->kv_dtype)) ||
      (st = dtype(c, "compute", f[8], &r->compute_dtype)) ||
      (st = number(c, "isl", f[9], 1, 1e7, true, &r->isl)) ||
      (st = number(c, "osl", f[10], 1, 1e7, true, &r->osl)) ||
      (st = number(c, "requests", f[11], 1, 1e6, true, &r->requests)) ||
      (st = number(c, "max_batch", f[12], 1, 1e6, true, &r->max_batch)) ||
      (st = number(c, "step_tokens", f[13], 1, 1e7, true, &r->step_tokens)) ||
      (st = number(c, "block", f[14], 1, 1e5, true, &r->block_tokens)) ||
      (st = number(c, "kv_mem_frac", f[15], 0.01, 1, false, &r->kv_mem_frac)) ||
      (st = number(c, "measured", f[17], 1e-12, 1e15, false, &r->measured)) ||
      (st = text(c, "source", f[18], r->source, sizeof r->source)))
    return st;
  if (strcmp(f[16], "output_tokens_per_s") != 0)
    return bad(c, SCALE_ERR_PARSE, "expected output_tokens_per_s", "metric", f[16]);
  r->metric = SCALE_SERVE_METRIC_OUTPUT_TOKENS_PER_S;
  if (fmod(r->chips, r->tp) != 0.0)
    return scale_diag_set(c->diag, SCALE_ERR_INVALID, c->file, c->line,
                          "tp %g does not divide chips %g", r->tp, r->chips);
  if (r->step_tokens < r->max_batch)
    return scale_diag_set(c->diag, SCALE_ERR_RANGE, c->file, c->line,
                          "step_tokens %g is below max_batch %g", r->step_tokens, r->max_batch);
  snprintf(r->file, sizeof r->file, "%s", c->file);
  r->line = c->line;
  return SCALE_OK;
}

static scale_status load_file(const char *path, const char *name, scale_serve_row *rows, int cap,
                              int *n, scale_diag *diag) {
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open");
  char line[2048];
  char *f[N_COLUMNS];
  cursor c = {name, 0, diag};
  bool header = false;
  scale_status st = SCALE_OK;
  while (!st && fgets(line, sizeof line, fp)) {
    c.line++;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, name, c.line, "line too long");
      break;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (len == 0 || line[0] == '#') continue;
    int k = split_tabs(line, f);
    if (k != N_COLUMNS) {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, name, c.line,
                          "expected %d tab-separated "
                          "fields, got %d",
                          N_COLUMNS, k);
      break;
    }
    if (!header) {
      for (int i = 0; i < N_COLUMNS && !st; i++)
        if (strcmp(f[i], columns[i]) != 0)
          st =
              scale_diag_set(diag, SCALE_ERR_PARSE, name, c.line,
                             "header column %d must be '%s', got '%.40s'", i + 1, columns[i], f[i]);
      header = true;
      continue;
    }
    if (*n >= cap) {
      st = scale_diag_set(diag, SCALE_ERR_RANGE, name, c.line, "more than %d serving rows", cap);
      break;
    }
    st = parse_row(&c, f, &rows[*n]);
    for (int j = 0; !st && j < *n; j++)
      if (strcmp(rows[j].id, rows[*n].id) == 0)
        st = scale_diag_set(diag, SCALE_ERR_DUPLICATE_KEY, name, c.line, "id '%s' seen before",
                            rows[j].id);
    if (!st) (*n)++;
  }
  fclose(fp);
  return st;
}

static int compare_names(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

scale_status scale_serve_rows_load_dir(const char *dir, scale_serve_row *rows, int cap, int *n,
                                       scale_diag *diag) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return scale_diag_set(diag, SCALE_ERR_IO, dir, 0, "cannot read the folder");
  static const int files_max = 64;
  char names[64][SCALE_NAME_MAX];
  int k = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 13 || len >= SCALE_NAME_MAX || strncmp(e->d_name, "serving-", 8) != 0 ||
        strcmp(e->d_name + len - 4, ".tsv") != 0 || k >= files_max)
      continue;
    memcpy(names[k++], e->d_name, len + 1);
  }
  closedir(d);
  qsort(names, (size_t)k, sizeof names[0], compare_names);
  scale_status st = SCALE_OK;
  for (int i = 0; i < k && !st; i++) {
    char path[4096 + SCALE_NAME_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    st = load_file(path, names[i], rows, cap, n, diag);
  }
  return st;
}

/* ---- traces --------------------------------------------------------------------------------- */

/* Consecutive steps with the same token counts, merged: their KV and attention work summed. */
typedef struct {
  double n_decode, n_prefill_tokens;  /* per step */
  double count;                       /* steps */
  double kv_tokens, ctx_tokens;       /* summed over the steps */
  double seqs, kv_per_seq, dec_steps; /* kv_sums_s()'s sums over the steps */
} run_rec;

typedef struct {
  run_rec *recs;
  int *step; /* each record's entry in its row's step table, once compacted */
  int n, cap;
  bool nomem;
} trace;

/* The distinct step sizes of the rows that share one cost (a group's rows: the same model,
 * chip, layout and dtypes), with their linear terms: a step's linear time depends on the cost
 * and its tokens alone, so the fit prices each size once for all those rows. */
typedef struct {
  linear_terms *terms; /* by increasing tokens */
  int n;
} step_table;

/* A unit-duration cost that records the step: an offline run's steps do not depend on time. */
static double record_step(const scale_serve_step *s, void *ctx) {
  trace *t = ctx;
  run_rec *last = t->n ? &t->recs[t->n - 1] : NULL;
  bool dec = s->n_decode > 0.0;
  double per_seq = dec ? s->decode_kv_tokens / s->n_decode : 0.0;
  if (last && last->n_decode == s->n_decode && last->n_prefill_tokens == s->n_prefill_tokens) {
    last->count += 1.0;
    last->kv_tokens += s->decode_kv_tokens;
    last->ctx_tokens += s->prefill_ctx_tokens;
    last->seqs += s->n_decode;
    last->kv_per_seq += per_seq;
    last->dec_steps += dec;
    return 1.0;
  }
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 256;
    run_rec *r = realloc(t->recs, (size_t)cap * sizeof *r);
    if (!r) {
      t->nomem = true;
      return NAN; /* stops the run with an error */
    }
    t->recs = r;
    t->cap = cap;
  }
  t->recs[t->n++] =
      (run_rec){s->n_decode,           s->n_prefill_tokens, 1.0,     s->decode_kv_tokens,
                s->prefill_ctx_tokens, s->n_decode,         per_seq, dec};
  return 1.0;
}

static int by_tokens(const void *a, const void *b) {
  const run_rec *x = a, *y = b;
  double tx = x->n_decode + x->n_prefill_tokens, ty = y->n_decode + y->n_prefill_tokens;
  return (tx > ty) - (tx < ty);
}

/* Merges every step of a trace with the same token count, wherever it ran: a step's linear,
 * TP and overhead terms depend only on its tokens, and its KV and attention terms add up, so
 * the sum over the trace is unchanged and a prediction costs one term per distinct count. */
static void compact(trace *t) {
  if (t->n == 0) return;
  qsort(t->recs, (size_t)t->n, sizeof *t->recs, by_tokens);
  int w = 0;
  for (int k = 1; k < t->n; k++) {
    run_rec *last = &t->recs[w], *r = &t->recs[k];
    if (r->n_decode + r->n_prefill_tokens == last->n_decode + last->n_prefill_tokens) {
      last->count += r->count;
      last->kv_tokens += r->kv_tokens;
      last->ctx_tokens += r->ctx_tokens;
      last->seqs += r->seqs;
      last->kv_per_seq += r->kv_per_seq;
      last->dec_steps += r->dec_steps;
    } else {
      t->recs[++w] = *r;
    }
  }
  t->n = w + 1;
}

struct scale_serve_set {
  int n, n_groups;
  scale_serve_row rows[SCALE_SERVE_ROWS_MAX];
  int group[SCALE_SERVE_ROWS_MAX];
  char groups[SCALE_SERVE_GROUPS_MAX][SCALE_NAME_MAX];
  scale_serve_cost cost[SCALE_SERVE_ROWS_MAX]; /* the row's copy, parameters set per call */
  trace traces[SCALE_SERVE_ROWS_MAX];
  double output_tokens[SCALE_SERVE_ROWS_MAX]; /* of the simulated copy */
  double copies[SCALE_SERVE_ROWS_MAX];
  double batch[SCALE_SERVE_ROWS_MAX];
  int table_of[SCALE_SERVE_ROWS_MAX];           /* the first row with the same cost */
  step_table tables[SCALE_SERVE_ROWS_MAX];      /* that row's, shared by those rows */
};

void scale_serve_set_free(scale_serve_set *set) {
  if (!set) return;
  for (int i = 0; i < set->n; i++) {
    free(set->traces[i].recs);
    free(set->traces[i].step);
    free(set->tables[i].terms);
  }
  free(set);
}

static int group_of(scale_serve_set *set, const char *name) {
  for (int g = 0; g < set->n_groups; g++)
    if (strcmp(set->groups[g], name) == 0) return g;
  if (set->n_groups == SCALE_SERVE_GROUPS_MAX) return -1;
  /* name is often a row's field of this same set: a copy that may overlap */
  char *to = set->groups[set->n_groups];
  size_t n = strnlen(name, SCALE_NAME_MAX - 1);
  memmove(to, name, n);
  to[n] = '\0';
  return set->n_groups++;
}

/* The engine of one copy for row r: its KV blocks from the HBM the weights leave. */
static scale_serve_config row_engine(const scale_serve_row *r, const scale_serve_cost *cost) {
  scale_serve_config c = scale_serve_config_default();
  c.rate_per_s = INFINITY;
  c.isl.min_tokens = c.isl.max_tokens = r->isl;
  c.osl.min_tokens = c.osl.max_tokens = r->osl;
  c.max_batch = r->max_batch;
  c.max_step_tokens = r->step_tokens;
  c.block_tokens = r->block_tokens;
  c.kv_blocks = fmin(floor(cost->kv_capacity_bytes * r->kv_mem_frac /
                           (r->block_tokens * cost->kv_bytes_per_token)),
                     4e9);
  return c;
}

/* Resolves row i (model, chip, copy) and simulates its offline run once into its trace. */
static scale_status resolve_row(scale_serve_set *set, int i, scale_diag *diag) {
  const scale_serve_row *r = &set->rows[i];
  scale_model m;
  scale_chip chip;
  scale_status st;
  if ((st = scale_model_load(r->model, &m, diag)) ||
      (st = scale_chip_load(r->hardware, &chip, diag)))
    return st;
  scale_infer_config ic = scale_infer_config_default(r->tp, 1, r->isl + r->osl);
  ic.tp = r->tp;
  ic.weight_dtype = r->weight_dtype;
  ic.kv_dtype = r->kv_dtype;
  ic.compute_dtype = r->compute_dtype;
  double prior[SCALE_SERVE_N_PARAMS];
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++)
    prior[k] = param_info[k].prior;
  if ((st = scale_serve_cost_of(&m, &chip, &ic, prior, &set->cost[i], diag))) return st;
  scale_serve_config c = row_engine(r, &set->cost[i]);
  c.n_requests = r->requests / (r->chips / r->tp); /* each copy takes its share */
  c.n_requests = fmax(1.0, floor(c.n_requests));
  c.cost = record_step;
  c.cost_ctx = &set->traces[i];
  scale_serve *sim = NULL;
  scale_serve_result res;
  if ((st = scale_serve_new(&c, &sim, diag))) return st;
  st = scale_serve_run(sim, &res, diag);
  scale_serve_free(sim);
  if (set->traces[i].nomem) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  if (st) return st;
  compact(&set->traces[i]);
  set->output_tokens[i] = res.output_tokens;
  set->copies[i] = r->chips / r->tp;
  set->batch[i] = res.steady_batch;
  return SCALE_OK;
}

typedef struct {
  scale_serve_set *set;
  scale_status *st;
  scale_diag *diag;
} resolve_job;

static void resolve_one(void *ctx, int i) {
  resolve_job *j = ctx;
  j->st[i] = resolve_row(j->set, i, &j->diag[i]);
}

/* Resolves rows [0, n), on all cores; the first failure's status and diagnostic. */
static scale_status resolve_rows(scale_serve_set *set, int n, scale_diag *diag) {
  resolve_job j = {set, calloc((size_t)n + 1, sizeof *j.st),
                   calloc((size_t)n + 1, sizeof *j.diag)};
  scale_status st = SCALE_OK;
  if (!j.st || !j.diag)
    st = scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  else
    run_shared(n, resolve_one, &j);
  for (int i = 0; !st && i < n; i++) {
    if (!(st = j.st[i])) continue;
    const scale_serve_row *r = &set->rows[i];
    if (j.diag[i].line == 0) /* name the row a library error came from */
      scale_diag_set(diag, st, r->file, r->line, "row %.15s: %.200s", r->id, j.diag[i].message);
    else if (diag)
      *diag = j.diag[i];
  }
  free(j.st);
  free(j.diag);
  return st;
}

static double rec_tokens(const run_rec *r) { return r->n_decode + r->n_prefill_tokens; }

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Entry of 'tokens' in table 'tb' (there is one). */
static int table_index(const step_table *tb, double tokens) {
  int lo = 0, hi = tb->n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (tb->terms[mid].tokens < tokens)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Builds the step table of the rows whose cost is row o's, and their records' entries in it;
 * false when out of memory. */
static bool build_table(scale_serve_set *set, int o) {
  int n = 0;
  for (int i = o; i < set->n; i++)
    if (set->table_of[i] == o) n += set->traces[i].n;
  double *tokens = malloc(((size_t)n + 1) * sizeof *tokens);
  step_table *tb = &set->tables[o];
  tb->terms = tokens ? malloc(((size_t)n + 1) * sizeof *tb->terms) : NULL;
  if (!tb->terms) {
    free(tokens);
    return false;
  }
  n = 0;
  for (int i = o; i < set->n; i++)
    for (int k = 0; set->table_of[i] == o && k < set->traces[i].n; k++)
      tokens[n++] = rec_tokens(&set->traces[i].recs[k]);
  qsort(tokens, (size_t)n, sizeof *tokens, compare_doubles);
  for (int k = 0; k < n; k++)
    if (tb->n == 0 || tokens[k] != tb->terms[tb->n - 1].tokens)
      tb->terms[tb->n++] = linear_terms_of(&set->cost[o], tokens[k]);
  free(tokens);
  bool ok = true;
  for (int i = o; i < set->n; i++) {
    trace *t = &set->traces[i];
    if (set->table_of[i] != o) continue;
    t->step = malloc(((size_t)t->n + 1) * sizeof *t->step);
    ok &= t->step != NULL;
    for (int k = 0; t->step && k < t->n; k++)
      t->step[k] = table_index(tb, rec_tokens(&t->recs[k]));
  }
  return ok;
}

/* Shares a step table among the rows of each cost. */
static scale_status build_tables(scale_serve_set *set, scale_diag *diag) {
  for (int i = 0; i < set->n; i++) {
    set->table_of[i] = i;
    for (int j = 0; j < i && set->table_of[i] == i; j++)
      if (!memcmp(&set->cost[i], &set->cost[j], sizeof set->cost[i])) set->table_of[i] = j;
  }
  for (int i = 0; i < set->n; i++)
    if (set->table_of[i] == i && !build_table(set, i))
      return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  return SCALE_OK;
}

scale_status scale_serve_set_load(const char *dir, scale_serve_set **out, scale_diag *diag) {
  *out = NULL;
  scale_serve_set *set = calloc(1, sizeof *set);
  if (!set) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  scale_status st = scale_serve_rows_load_dir(dir, set->rows, SCALE_SERVE_ROWS_MAX, &set->n, diag);
  int n = 0; /* the rows before the first whose group does not fit */
  while (!st && n < set->n && (set->group[n] = group_of(set, set->rows[n].group)) >= 0)
    n++;
  if (!st) st = resolve_rows(set, n, diag); /* their errors come first */
  if (!st && n < set->n)
    st = scale_diag_set(diag, SCALE_ERR_RANGE, set->rows[n].file, set->rows[n].line,
                        "more than %d serving groups", SCALE_SERVE_GROUPS_MAX);
  if (!st && set->n == 0) st = scale_diag_set(diag, SCALE_ERR_NOT_FOUND, dir, 0, "no serving rows");
  if (!st) st = build_tables(set, diag);
  if (st) {
    scale_serve_set_free(set);
    return st;
  }
  *out = set;
  return SCALE_OK;
}

int scale_serve_set_rows(const scale_serve_set *set) { return set ? set->n : 0; }
int scale_serve_set_groups(const scale_serve_set *set) { return set ? set->n_groups : 0; }
const scale_serve_row *scale_serve_set_row(const scale_serve_set *set, int i) {
  return set && i >= 0 && i < set->n ? &set->rows[i] : NULL;
}
int scale_serve_set_row_group(const scale_serve_set *set, int i) {
  return set && i >= 0 && i < set->n ? set->group[i] : -1;
}
const char *scale_serve_set_group_name(const scale_serve_set *set, int g) {
  return set && g >= 0 && g < set->n_groups ? set->groups[g] : NULL;
}
double scale_serve_set_row_batch(const scale_serve_set *set, int i) {
  return set && i >= 0 && i < set->n ? set->batch[i] : (double)NAN;
}

/* ---- predictions and the fit ---------------------------------------------------------------- */

/* Row i's value from its run's total step time: every copy runs the same trace at once. */
static double row_value(const scale_serve_set *set, int i, double total_s) {
  return set->output_tokens[i] * set->copies[i] / total_s;
}

double scale_serve_set_predict(const scale_serve_set *set, int i,
                               const double p[SCALE_SERVE_N_PARAMS], scale_serve_parts *parts) {
  if (!set || i < 0 || i >= set->n || !p) return NAN;
  scale_serve_cost c = set->cost[i];
  memcpy(c.p, p, sizeof c.p);
  scale_serve_parts sum = {0, 0, 0, 0, 0, false};
  double gemm_s = 0.0;
  const trace *t = &set->traces[i];
  for (int k = 0; k < t->n; k++) {
    const run_rec *r = &t->recs[k];
    scale_serve_parts q = parts_of_tokens(&c, r->n_decode + r->n_prefill_tokens);
    sum.overhead_s += r->count * q.overhead_s + r->seqs * c.p[SCALE_SERVE_OVERHEAD_SEQ_S];
    sum.linear_s += r->count * q.linear_s;
    sum.tp_s += r->count * q.tp_s;
    if (q.gemm_bound) gemm_s += r->count * q.linear_s;
    sum.kv_s += kv_sums_s(&c, r->kv_tokens, r->seqs, r->kv_per_seq, r->dec_steps);
    sum.attn_s += attn_s(&c, r->ctx_tokens);
  }
  sum.gemm_bound = gemm_s > 0.5 * sum.linear_s;
  if (parts) *parts = sum;
  return row_value(set, i, parts_sum(&sum));
}

/* Parameter k at position u in [0, 1] of its (log-)range. */
static double at(int k, double u) {
  const scale_serve_param_info *d = &param_info[k];
  double x =
      d->log_scale ? exp(log(d->lo) + u * (log(d->hi) - log(d->lo))) : d->lo + u * (d->hi - d->lo);
  return fmin(d->hi, fmax(d->lo, x));
}

static double pos(int k, double x) {
  const scale_serve_param_info *d = &param_info[k];
  return d->log_scale ? (log(x) - log(d->lo)) / (log(d->hi) - log(d->lo))
                      : (x - d->lo) / (d->hi - d->lo);
}

/* The pull toward the priors, as calibrate.h's: SCALE_SERVE_PRIOR_WEIGHT times each parameter's
 * distance from its prior as a fraction of its range, squared and summed. */
static double prior_pull(const double *p) {
  double sum = 0.0;
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++) {
    double d = SCALE_SERVE_PRIOR_WEIGHT * (pos(k, p[k]) - pos(k, param_info[k].prior));
    sum += d * d;
  }
  return sum;
}

/* The fit's cache. A search of one parameter changes one part of a row's time, and only in the
 * rows the parameter enters: the state keeps each row's parts summed over its trace at the
 * current parameters, and a trial value recomputes that part of those rows alone, summed in the
 * order scale_serve_set_predict() sums it, so that every objective is the one the rows'
 * predictions give, to the last bit (the fitted values do not depend on the cache). */
enum { PART_OVERHEAD, PART_LINEAR, PART_KV, PART_ATTN, PART_TP, N_PARTS };

/* The part parameter k enters. */
static int part_of(int k) {
  switch (k) {
  case SCALE_SERVE_OVERHEAD_S:
  case SCALE_SERVE_OVERHEAD_SEQ_S:
  case SCALE_SERVE_OVERHEAD_COLL_S: return PART_OVERHEAD;
  case SCALE_SERVE_KV_BW_FRAC:
  case SCALE_SERVE_KV_CTX_HALF:
  case SCALE_SERVE_KV_CTA_HALF: return PART_KV;
  case SCALE_SERVE_ATTN_FRAC: return PART_ATTN;
  default: return PART_LINEAR;
  }
}

/* Whether parameter k changes a step's time under cost 'c'. */
static bool enters(const scale_serve_cost *c, int k) {
  switch (k) {
  case SCALE_SERVE_OVERHEAD_COLL_S: return c->sync_peers > 0.0;
  case SCALE_SERVE_KV_CTA_HALF: return c->kv_cta_scale > 0.0;
  case SCALE_SERVE_MATMUL_FRAC:
  case SCALE_SERVE_FP4_MATMUL_FRAC: return c->matmul_param == k;
  case SCALE_SERVE_MOE_GEMM_FRAC:
  case SCALE_SERVE_EXPERT_DIM_HALF: return c->routed_active_params > 0.0;
  default: return true;
  }
}

/* Part 'part' of row i's time under 'c', summed over its trace as the prediction sums it; the
 * linear part from the linear time of each step size of the row's table, 'lin'. */
static double trace_part(const scale_serve_set *set, int i, const scale_serve_cost *c, int part,
                         const double *lin) {
  const trace *t = &set->traces[i];
  double sum = 0.0;
  for (int k = 0; k < t->n; k++) {
    const run_rec *r = &t->recs[k];
    switch (part) {
    case PART_OVERHEAD:
      sum += r->count * step_overhead_s(c, rec_tokens(r)) +
             r->seqs * c->p[SCALE_SERVE_OVERHEAD_SEQ_S];
      break;
    case PART_LINEAR: sum += r->count * lin[t->step[k]]; break;
    case PART_KV: sum += kv_sums_s(c, r->kv_tokens, r->seqs, r->kv_per_seq, r->dec_steps); break;
    case PART_ATTN: sum += attn_s(c, r->ctx_tokens); break;
    default: sum += r->count * tp_of(c, rec_tokens(r)); break;
    }
  }
  return sum;
}

/* lin[j]: the linear time under 'c' of step size j of table 'tb'. */
static void table_linear(const step_table *tb, const scale_serve_cost *c, double *lin) {
  bool bound;
  for (int j = 0; j < tb->n; j++)
    lin[j] = linear_of(c, &tb->terms[j], &bound);
}

/* The step time of a row whose parts are q, summed in parts_sum()'s order. */
static double parts_total(const double *q) {
  return q[PART_OVERHEAD] + q[PART_LINEAR] + q[PART_KV] + q[PART_ATTN] + q[PART_TP];
}

/* The squared log error of row i whose parts are q. */
static double sq_log_error(const scale_serve_set *set, int i, const double *q) {
  double e = log(row_value(set, i, parts_total(q)) / set->rows[i].measured);
  return e * e;
}

/* One trial value's changed part and squared log error of each row it enters. */
typedef struct {
  double part[SCALE_SERVE_ROWS_MAX], e2[SCALE_SERVE_ROWS_MAX];
} fit_trial;

typedef struct {
  const scale_serve_set *set;
  int exclude;                                  /* the group left out, -1: none */
  double p[SCALE_SERVE_N_PARAMS];               /* the current parameters */
  scale_serve_cost cost[SCALE_SERVE_ROWS_MAX];  /* each row's cost at p */
  double parts[SCALE_SERVE_ROWS_MAX][N_PARTS];  /* each row's parts at p */
  double e2[SCALE_SERVE_ROWS_MAX];              /* each row's squared log error at p */
  fit_trial trial[3];                           /* a golden section's two points and a spare */
  bool used[SCALE_SERVE_ROWS_MAX];              /* the step tables of rows in the fit */
  int lin_at[SCALE_SERVE_ROWS_MAX];             /* where each table's linear times start */
  double *lin;                                  /* the tables' linear times at a trial value */
} fit_state;

static void state_free(fit_state *s) {
  if (s) free(s->lin);
  free(s);
}

/* lin of the tables in the fit whose cost parameter k enters, under the state's costs. */
static void state_tables(fit_state *s, int k) {
  for (int o = 0; o < s->set->n; o++)
    if (s->used[o] && (k < 0 || enters(&s->cost[o], k)))
      table_linear(&s->set->tables[o], &s->cost[o], s->lin + s->lin_at[o]);
}

/* Moves the state to p, every part of every row in the fit recomputed. */
static void state_at(fit_state *s, const double *p) {
  const scale_serve_set *set = s->set;
  memcpy(s->p, p, sizeof s->p);
  for (int i = 0; i < set->n; i++)
    memcpy(s->cost[i].p, p, sizeof s->cost[i].p);
  state_tables(s, -1);
  for (int i = 0; i < set->n; i++) {
    if (set->group[i] == s->exclude) continue;
    for (int part = 0; part < N_PARTS; part++)
      s->parts[i][part] =
          trace_part(set, i, &s->cost[i], part, s->lin + s->lin_at[set->table_of[i]]);
    s->e2[i] = sq_log_error(set, i, s->parts[i]);
  }
}

/* A state at p for the rows outside group 'exclude'; NULL when out of memory. */
static fit_state *state_new(const scale_serve_set *set, int exclude, const double *p) {
  fit_state *s = malloc(sizeof *s);
  if (!s) return NULL;
  s->set = set;
  s->exclude = exclude;
  size_t n_lin = 0;
  for (int i = 0; i < set->n; i++) {
    s->cost[i] = set->cost[i];
    s->used[i] = false;
    s->lin_at[i] = (int)n_lin;
    n_lin += set->table_of[i] == i ? (size_t)set->tables[i].n : 0;
  }
  for (int i = 0; i < set->n; i++)
    s->used[set->table_of[i]] |= set->group[i] != exclude;
  if (!(s->lin = malloc((n_lin + 1) * sizeof *s->lin))) {
    state_free(s);
    return NULL;
  }
  state_at(s, p);
  return s;
}

/* Group-weighted mean of the rows' squared log errors e2, groups other than the state's
 * 'exclude'; with 'pulled', plus the pull of parameters p toward the priors over the number of
 * groups (what the fit minimises: the rows' sum of group mean squares and the pull, as
 * calibrate.c's residuals). */
static double objective(const fit_state *s, const double *e2, const double *p, bool pulled) {
  double sum[SCALE_SERVE_GROUPS_MAX] = {0}, cnt[SCALE_SERVE_GROUPS_MAX] = {0};
  const scale_serve_set *set = s->set;
  for (int i = 0; i < set->n; i++) {
    if (set->group[i] == s->exclude) continue;
    sum[set->group[i]] += e2[i];
    cnt[set->group[i]] += 1.0;
  }
  double total = 0.0, groups = 0.0;
  for (int g = 0; g < set->n_groups; g++)
    if (cnt[g] > 0.0) {
      total += sum[g] / cnt[g];
      groups += 1.0;
    }
  if (pulled) total += prior_pull(p);
  return groups > 0.0 ? total / groups : (double)NAN;
}

/* The objective with p[k] = x and the other parameters the state's, its rows into 't'. */
static double try_value(fit_state *s, int k, double x, fit_trial *t) {
  const scale_serve_set *set = s->set;
  int part = part_of(k);
  for (int i = 0; i < set->n; i++)
    s->cost[i].p[k] = x;
  if (part == PART_LINEAR) state_tables(s, k);
  for (int i = 0; i < set->n; i++) {
    const scale_serve_cost *c = &s->cost[i];
    if (set->group[i] == s->exclude) continue;
    if (!enters(c, k)) {
      t->e2[i] = s->e2[i];
      continue;
    }
    double q[N_PARTS];
    memcpy(q, s->parts[i], sizeof q);
    q[part] = t->part[i] = trace_part(set, i, c, part, s->lin + s->lin_at[set->table_of[i]]);
    t->e2[i] = sq_log_error(set, i, q);
  }
  for (int i = 0; i < set->n; i++)
    s->cost[i].p[k] = s->p[k];
  double p[SCALE_SERVE_N_PARAMS];
  memcpy(p, s->p, sizeof p);
  p[k] = x;
  return objective(s, t->e2, p, true);
}

/* Moves the state to p[k] = x, whose rows try_value() put into 't'. */
static void commit(fit_state *s, int k, double x, const fit_trial *t) {
  const scale_serve_set *set = s->set;
  s->p[k] = x;
  for (int i = 0; i < set->n; i++) {
    s->cost[i].p[k] = x;
    if (set->group[i] == s->exclude || !enters(&s->cost[i], k)) continue;
    s->parts[i][part_of(k)] = t->part[i];
    s->e2[i] = t->e2[i];
  }
}

/* Golden-section search of parameter k over [0, 1] of its range, the others held. */
static void golden(fit_state *s, int k) {
  const double g = 0.5 * (sqrt(5.0) - 1.0);
  double a = 0.0, b = 1.0, best_u = pos(k, s->p[k]), best = objective(s, s->e2, s->p, true);
  double c = b - g * (b - a), d = a + g * (b - a);
  fit_trial *tc = &s->trial[0], *td = &s->trial[1], *spare;
  double fc = try_value(s, k, at(k, c), tc);
  double fd = try_value(s, k, at(k, d), td);
  for (int it = 0; it < 24; it++) { /* 0.618^24: 1e-5 of the range */
    spare = tc, tc = td, td = spare; /* the point kept moves to the other end */
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - g * (b - a);
      fc = try_value(s, k, at(k, c), tc);
    } else {
      a = c, c = d, fc = fd;
      d = a + g * (b - a);
      fd = try_value(s, k, at(k, d), td);
    }
  }
  double u = fc < fd ? c : d, fu = fmin(fc, fd);
  if (fu < best) { /* never worse than where it started */
    commit(s, k, at(k, u), fc < fd ? tc : td);
  } else if (at(k, best_u) != s->p[k]) { /* the start, as its position maps back */
    try_value(s, k, at(k, best_u), &s->trial[2]);
    commit(s, k, at(k, best_u), &s->trial[2]);
  }
}

double scale_serve_fit(const scale_serve_set *set, int exclude, double p[SCALE_SERVE_N_PARAMS]) {
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++)
    p[k] = param_info[k].prior;
  fit_state *s = set ? state_new(set, exclude, p) : NULL;
  double f = s ? objective(s, s->e2, s->p, true) : (double)NAN;
  if (isnan(f)) {
    state_free(s);
    return NAN;
  }
  for (int sweep = 0; sweep < 20; sweep++) {
    for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++)
      golden(s, k);
    double f2 = objective(s, s->e2, s->p, true);
    bool done = f - f2 < 1e-6 * fmax(f, 1e-12);
    f = f2;
    if (done) break;
  }
  memcpy(p, s->p, sizeof s->p);
  double rms = sqrt(objective(s, s->e2, s->p, false)); /* the rows' error, without the pull */
  state_free(s);
  return rms;
}

void scale_serve_set_predict_all(const scale_serve_set *set, const double p[SCALE_SERVE_N_PARAMS],
                                 double *pred) {
  double prior[SCALE_SERVE_N_PARAMS];
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++)
    prior[k] = param_info[k].prior;
  fit_state *s = set && p ? state_new(set, -1, prior) : NULL;
  for (int k = 0; s && k < SCALE_SERVE_N_PARAMS; k++) {
    try_value(s, k, p[k], &s->trial[0]);
    commit(s, k, p[k], &s->trial[0]);
  }
  for (int i = 0; set && i < set->n; i++) {
    pred[i] = s ? row_value(set, i, parts_total(s->parts[i])) : (double)NAN;
  }
  state_free(s);
}

void scale_serve_loo_group(const scale_serve_set *set, int g, double *pred) {
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_fit(set, g, p);
  for (int i = 0; set && i < set->n; i++)
    if (set->group[i] == g) pred[i] = scale_serve_set_predict(set, i, p, NULL);
}

typedef struct {
  const scale_serve_set *set;
  double *pred;
} loo_job;

static void loo_one(void *ctx, int g) {
  const loo_job *j = ctx;
  scale_serve_loo_group(j->set, g, j->pred);
}

void scale_serve_loo(const scale_serve_set *set, double *pred) {
  loo_job j = {set, pred};
  if (set) run_shared(set->n_groups, loo_one, &j);
}

double scale_serve_mape(const scale_serve_set *set, int g, const double *pred) {
  double sum = 0.0, n = 0.0;
  for (int i = 0; set && i < set->n; i++)
    if (g < 0 || set->group[i] == g) {
      sum += fabs(pred[i] / set->rows[i].measured - 1.0);
      n += 1.0;
    }
  return n > 0.0 ? sum / n : (double)NAN;
}

/* ---- writing the fit ------------------------------------------------------------------------ */

static void write_serve(FILE *fp, const double *p, const scale_serve_set *set, double rms_log,
                        double loo_mape) {
  fprintf(fp,
          "[serve]\n"
          "; The calibrated serving step cost (include/scale/servecal.h), written by\n"
          "; `scale calibrate --serving`: do not edit by hand (tests/lib/test_servecal.c\n"
          "; checks that a fresh fit reproduces it). One fit, written into the file of\n"
          "; every chip with serving rows and of every NVIDIA GPU (on a GPU without rows it\n"
          "; is the best estimate, not a validated one): golden-section coordinate descent\n"
          "; on the group-weighted mean of log(predicted / measured)^2 over\n"
          "; measurements/serving-*.tsv, %d rows in %d groups, RMS log error %.4f,\n"
          "; leave-one-group-out MAPE %.1f%%. Groups:\n",
          set->n, set->n_groups, rms_log, 100.0 * loo_mape);
  for (int g = 0; g < set->n_groups; g++)
    fprintf(fp, ";   %s\n", set->groups[g]);
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++) {
    const scale_serve_param_info *d = &param_info[k];
    fprintf(fp, "; %s\n; range [%g, %g] %s, prior %g\n%s = %.6g\n", d->meaning, d->lo, d->hi,
            d->unit, d->prior, d->key, p[k]);
  }
}

typedef struct {
  const double *p;
  const scale_serve_set *set;
  double rms_log, loo_mape;
} serve_section;

static scale_status emit_serve(FILE *fp, void *ctx) {
  const serve_section *x = ctx;
  write_serve(fp, x->p, x->set, x->rms_log, x->loo_mape);
  return ferror(fp) ? SCALE_ERR_IO : SCALE_OK;
}

scale_status scale_serve_write_hardware(const char *src, const char *dst,
                                        const double p[SCALE_SERVE_N_PARAMS],
                                        const scale_serve_set *set, double rms_log, double loo_mape,
                                        scale_diag *diag) {
  /* where it was, else before [step_fit]: `scale calibrate` rewrites [step_fit] and [step] and
   * keeps what precedes them, so neither fit moves the other's section */
  static const char *const drop[] = {"serve"};
  serve_section x = {p, set, rms_log, loo_mape};
  return scale_file_rewrite_sections(src, dst, drop, 1, "step_fit", emit_serve, &x, diag);
}
