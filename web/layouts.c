/* layouts.c — the module's exports for the training layout explorer of chapters 6 and 12
 * (widget-layouts.js).
 *
 * scale_web_layout(): one layout the reader edits (degrees, ZeRO stage, SP, microbatches,
 * schedule, remat, CP kind, mapping) on a model, chip, chip count, batch, sequence and token
 * budget -> the fields of `scale train ... --tokens T --json` the page shows, priced by the
 * calibrated step model exactly as the command prices it (src/cli/train.c: the same layout
 * defaults, scale_train_layout_map(), the same overrides of the mapping, scale_train_validate()
 * and scale_train_eval()). A layout the rules refuse is an answer too ("invalid": the reason),
 * since seeing why is the point of editing it.
 *
 * scale_web_layouts_search(): the planner on the same problem -> the ranked layouts of `scale
 * plan train ... --tokens T --json` (scale_plan_train() with the command's options; one thread),
 * each with the state keys that select it in the widget, the "why" sentence, and the search's
 * size and speed. A search takes up to seconds, so the page runs it in a Web Worker.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api.h"

WEB_EXPORT("scale_web_layout") int scale_web_layout(void);
WEB_EXPORT("scale_web_layouts_search") int scale_web_layouts_search(void);

/* The widget's chip counts: a search over more chips than this would run for many seconds. */
#define CHIPS_MAX 65536.0

/* The torus-axes keys of the state, in the order `scale plan` prints --X-axes. */
static const scale_train_dim axes_dims[] = {SCALE_TRAIN_DIM_TP, SCALE_TRAIN_DIM_FSDP,
                                            SCALE_TRAIN_DIM_DP, SCALE_TRAIN_DIM_CP};
static const char *const axes_keys[] = {"tpax", "fsdpax", "dpax", "cpax"};
#define N_AXES_KEYS (sizeof axes_dims / sizeof axes_dims[0])

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The problem both exports share: model, hw, chips, batch, seq, tokens; the step model's
 * parameters as the command picks them (the chip's own [step] fit, else the shipped one). */
typedef struct {
  scale_model model;
  scale_chip chip;
  scale_step_params params;
  scale_train_problem p;
} problem;

static bool problem_read(problem *pr) {
  if (!web_model("model", "llama-3-70b", &pr->model) || !web_chip("hw", "tpu-v5p", &pr->chip))
    return false;
  double chips = web_num("chips", 256, 1, CHIPS_MAX), batch = web_num("batch", 4194304, 1, 1e12),
         seq = web_num("seq", 4096, 1, 1 << 24), tokens = web_num("tokens", 0, 0, 1e18);
  if (web_failed()) return false;
  if (chips != floor(chips) || seq != floor(seq)) {
    web_error("chips and seq must be whole numbers");
    return false;
  }
  if (scale_step_params_of_chip(&pr->chip, &pr->params) != SCALE_OK) {
    scale_diag diag = {0};
    if (scale_step_params_load_file(scale_step_params_path(), &pr->params, &diag) != SCALE_OK) {
      web_error("%s:%d: %s", diag.file, diag.line, diag.message);
      return false;
    }
  }
  pr->p = scale_train_problem_make(&pr->model, &pr->chip, chips, batch, seq);
  pr->p.train_tokens = tokens;
  pr->p.step_params = &pr->params;
  return true;
}

/* A whole-number state value in [lo, hi]; NaN after web_error(). */
static double whole(const char *key, double dflt, double lo, double hi) {
  double v = web_num(key, dflt, lo, hi);
  if (isfinite(v) && v != floor(v)) {
    web_error("%s: %g is not a whole number", key, v);
    return (double)NAN;
  }
  return v;
}

/* Parses the enumerated state values into l; false after web_error(). */
static bool layout_names(scale_layout *l) {
  const char *remat = web_arg("remat"), *sched = web_arg("sched"), *cpk = web_arg("cpk");
  if (remat && scale_train_remat_parse(remat, &l->remat) != SCALE_OK)
    return web_error("remat: '%s' is not none, block, matmuls or selective", remat), false;
  if (sched && scale_pp_schedule_parse(sched, &l->schedule) != SCALE_OK)
    return web_error("sched: '%s' is not 1f1b, gpipe, interleaved, zb-h1, zb-h2, zb-v or "
                     "dualpipe",
                     sched),
           false;
  if (cpk && scale_cp_kind_parse(cpk, &l->cp_kind) != SCALE_OK)
    return web_error("cpk: '%s' is not ring, ulysses or allgather", cpk), false;
  return true;
}

/* The mapping overrides of `scale train --pp-link dcn --X-axes N`, with its checks. */
static bool layout_mapping(const scale_chip *chip, scale_layout *l, double ppdcn,
                           const double axes[N_AXES_KEYS]) {
  if (ppdcn > 0.0) {
    if (!(l->pp > 1.0)) return web_error("ppdcn: the pipeline on DCN needs pp above 1"), false;
    if (!(chip->dcn_bytes_per_s > 0.0))
      return web_error("ppdcn: %s has no DCN bandwidth", chip->name), false;
    l->link[SCALE_TRAIN_DIM_PP] = SCALE_TRAIN_LINK_DCN;
    l->n_axes[SCALE_TRAIN_DIM_PP] = 1.0;
  }
  for (size_t i = 0; i < N_AXES_KEYS; i++) {
    scale_train_dim d = axes_dims[i];
    if (!(axes[i] > 0.0)) continue; /* 0: the book's mapping */
    if (l->link[d] != SCALE_TRAIN_LINK_ICI)
      return web_error("%s: %s is mapped onto %s, not a TPU torus", axes_keys[i],
                       scale_train_dim_name(d), scale_train_link_name(l->link[d])),
             false;
    if (isfinite(chip->ici_n_axes) && axes[i] > chip->ici_n_axes)
      return web_error("%s: %g axes, the torus has %g", axes_keys[i], axes[i], chip->ici_n_axes),
             false;
    l->n_axes[d] = axes[i];
  }
  return true;
}

/* The layout of the state as `scale train` builds it from the same flags: fsdp takes the chips
 * dp x tp x pp x cp leave, m defaults to pp; false after web_error(). */
static bool layout_read(const scale_chip *chip, double chips, scale_layout *l) {
  *l = scale_layout_default();
  double big = CHIPS_MAX;
  double dp = whole("dp", 1, 1, big), tp = whole("tp", 1, 1, big), pp = whole("pp", 1, 1, big),
         cp = whole("cp", 1, 1, big), ep = whole("ep", 1, 1, big), m = whole("m", 0, 0, 1e6),
         v = whole("v", 1, 1, 64), zero = whole("zero", 3, 1, 3), sp = whole("sp", 0, 0, 1),
         tpo = whole("tpo", 0, 0, 1), ppdcn = whole("ppdcn", 0, 0, 1);
  double axes[N_AXES_KEYS];
  for (size_t i = 0; i < N_AXES_KEYS; i++)
    axes[i] = whole(axes_keys[i], 0, 0, 8);
  if (web_failed() || !layout_names(l)) return false;
  double rest = chips / (dp * tp * pp * cp);
  if (rest < 1.0 || rest != floor(rest))
    return web_error("dp x tp x pp x cp = %g does not divide the %g chips", dp * tp * pp * cp,
                     chips),
           false;
  l->dp = dp, l->fsdp = rest, l->zero_stage = (int)zero, l->tp = tp, l->sp = sp > 0.0;
  l->pp = pp, l->n_microbatches = m > 0.0 ? m : pp, l->n_virtual_stages = v, l->ep = ep;
  l->cp = cp, l->tp_overlap = tpo > 0.0;
  scale_train_layout_map(chip, chips, l);
  return layout_mapping(chip, l, ppdcn, axes);
}

/* Writes PREFIX KEY (KEY: the name `scale train --json` gives it), its value and display. */
static void fmt(const char *prefix, const char *key, double v, const char *unit, scale_fmt style) {
  char name[64];
  snprintf(name, sizeof name, "%s%s", prefix, key);
  web_json_fmt(name, v, unit, style);
}

static void str(const char *prefix, const char *key, const char *text) {
  char name[64];
  snprintf(name, sizeof name, "%s%s", prefix, key);
  web_json_str(name, text);
}

/* The numbers of one evaluated layout, under `scale train --json`'s keys after 'prefix'. */
static void result_fields(const char *prefix, const scale_train_result *r) {
  fmt(prefix, "step_time_s", r->step_time_s, "", SCALE_FMT_TIME);
  fmt(prefix, "compute_time_s", r->compute_time_s, "", SCALE_FMT_TIME);
  fmt(prefix, "exposed_comms_time_s", r->exposed_comms_time_s, "", SCALE_FMT_TIME);
  fmt(prefix, "bubble_time_s", r->bubble_time_s, "", SCALE_FMT_TIME);
  fmt(prefix, "mfu", r->mfu, "", SCALE_FMT_PERCENT);
  fmt(prefix, "tokens_per_s", r->tokens_per_s, "tokens/s", SCALE_FMT_SI);
  fmt(prefix, "memory_per_chip_bytes", r->memory_per_chip_bytes, "B", SCALE_FMT_SI);
  fmt(prefix, "hbm_bytes", r->hbm_bytes, "B", SCALE_FMT_SI);
  fmt(prefix, "memory_margin_bytes", r->memory_margin_bytes, "B", SCALE_FMT_SI);
  char name[64];
  snprintf(name, sizeof name, "%sfits", prefix);
  web_json_raw(name, r->fits ? "true" : "false", r->fits ? 4 : 5);
  fmt(prefix, "train_time_s", r->train_time_s, "", SCALE_FMT_TIME);
  fmt(prefix, "cost_usd", r->cost_usd, "", SCALE_FMT_USD);
  str(prefix, "bound", scale_train_bound_name(r->bound));
}

/* Memory per chip by part (what to shrink when a layout does not fit). */
static void memory_fields(const scale_train_result *r) {
  web_json_fmt("param_bytes", r->param_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("grad_bytes", r->grad_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("optimizer_bytes", r->optimizer_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("activation_bytes", r->activation_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("gathered_weight_bytes", r->gathered_weight_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("overhead_bytes", r->overhead_bytes, "B", SCALE_FMT_SI);
}

/** State: model, hw, chips, batch, seq, tokens; dp, tp, pp, cp, ep, m (0: pp), v, zero, sp,
 * tpo (0/1), remat, sched, cpk, ppdcn (0/1), tpax/fsdpax/dpax/cpax (0: the book's). Answer:
 * "layout" (the planner's spelling), "fsdp", "valid", "invalid" (why not, when not), then the
 * fields of `scale train --json` (step_time_s, mfu, memory_per_chip_bytes, train_time_s,
 * cost_usd, bound, fits, ...), the memory by part and the command's "reason". */
int scale_web_layout(void) {
  if (!web_request_parse()) return 2;
  static problem pr;
  static scale_layout l;
  if (!problem_read(&pr) || !layout_read(&pr.chip, pr.p.n_chips, &l)) return 2;
  char text[256];
  web_json_begin();
  web_json_str("layout", scale_plan_layout_str(&l, text, sizeof text));
  web_json_num("fsdp", l.fsdp);
  scale_diag diag = {0};
  if (scale_train_validate(&pr.p, &l, &diag) != SCALE_OK) {
    web_json_raw("valid", "false", 5);
    web_json_str("invalid", diag.message);
    return web_json_end();
  }
  scale_train_result r;
  scale_train_eval(&pr.p, &l, &r);
  if (!isfinite(r.step_time_s) || !isfinite(r.memory_per_chip_bytes))
    return web_error("%s", r.reason);
  web_json_raw("valid", "true", 4);
  result_fields("", &r);
  memory_fields(&r);
  web_json_str("reason", r.reason);
  return web_json_end();
}

/* Appends "&key=value" to buf (at *n of size). */
static void put_kv(char *buf, size_t size, size_t *n, const char *key, const char *value) {
  int k = snprintf(buf + *n, *n < size ? size - *n : 0, "%s%s=%s", *n ? "&" : "", key, value);
  if (k > 0) *n += (size_t)k;
}

static void put_num(char *buf, size_t size, size_t *n, const char *key, double v) {
  char t[32];
  snprintf(t, sizeof t, "%.17g", v);
  put_kv(buf, size, n, key, t);
}

/* The state (query string) that selects layout l in the widget: what scale_web_layout()
 * reads back, the mapping keys 0 where it is the book's. */
static char *entry_state(const scale_chip *chip, double chips, const scale_layout *l, char *buf,
                         size_t size) {
  scale_layout book = *l;
  scale_train_layout_map(chip, chips, &book);
  size_t n = 0;
  buf[0] = '\0';
  put_num(buf, size, &n, "dp", l->dp);
  put_num(buf, size, &n, "tp", l->tp);
  put_num(buf, size, &n, "pp", l->pp);
  put_num(buf, size, &n, "cp", l->cp);
  put_num(buf, size, &n, "ep", l->ep);
  put_num(buf, size, &n, "m", l->n_microbatches);
  put_num(buf, size, &n, "v", l->n_virtual_stages);
  put_num(buf, size, &n, "zero", l->zero_stage);
  put_num(buf, size, &n, "sp", l->sp ? 1 : 0);
  put_num(buf, size, &n, "tpo", l->tp_overlap ? 1 : 0);
  put_kv(buf, size, &n, "remat", scale_train_remat_name(l->remat));
  put_kv(buf, size, &n, "sched", scale_pp_schedule_name(l->schedule));
  put_kv(buf, size, &n, "cpk", scale_cp_kind_name(l->cp_kind));
  bool dcn = l->pp > 1 && l->link[SCALE_TRAIN_DIM_PP] != book.link[SCALE_TRAIN_DIM_PP];
  put_num(buf, size, &n, "ppdcn", dcn ? 1 : 0);
  for (size_t i = 0; i < N_AXES_KEYS; i++) {
    scale_train_dim d = axes_dims[i];
    bool own = l->link[d] == SCALE_TRAIN_LINK_ICI && l->n_axes[d] != book.n_axes[d];
    put_num(buf, size, &n, axes_keys[i], own ? l->n_axes[d] : 0);
  }
  return buf;
}

/* Entry i (0-based) as flat keys "rN_KEY", N = i + 1 (the answer stays one flat object). */
static void ranked_entry(const problem *pr, int i, const scale_plan_entry *e) {
  char prefix[16], text[256], state[512];
  snprintf(prefix, sizeof prefix, "r%d_", i + 1);
  str(prefix, "layout", scale_plan_layout_str(&e->layout, text, sizeof text));
  fmt(prefix, "score", e->score, "", SCALE_FMT_SCI);
  result_fields(prefix, &e->result);
  str(prefix, "state", entry_state(&pr->chip, pr->p.n_chips, &e->layout, state, sizeof state));
}

/** State: model, hw, chips, batch, seq, tokens, objective (time|cost|mfu), top (1-32, 8).
 * Answer: n_ranked, then for N = 1 .. n_ranked (best first) rN_layout, rN_score, rN_ before
 * each field of scale_web_layout's, and rN_state (the query string that selects it); "why",
 * layouts_enumerated, layouts_evaluated, search_time_s, layouts_per_s (enumerated per second
 * of search, as `scale plan train --json` counts it). */
int scale_web_layouts_search(void) {
  if (!web_request_parse()) return 2;
  static problem pr;
  if (!problem_read(&pr)) return 2;
  double top = whole("top", 8, 1, SCALE_PLAN_TOP_MAX);
  if (web_failed()) return 2;
  scale_plan_opts opts = scale_plan_opts_default();
  opts.top_k = (int)top;
  opts.n_threads = 1;
  const char *objective = web_arg("objective");
  if (objective && scale_plan_objective_parse(objective, &opts.objective) != SCALE_OK)
    return web_error("objective: '%s' is not time, cost or mfu", objective);
  static scale_plan_report report; /* about 50 kB: not on the stack */
  scale_diag diag = {0};
  double t0 = now_s();
  if (scale_plan_train(&pr.p, &opts, &report, &diag) != SCALE_OK)
    return web_error("%s", diag.message);
  double dt = now_s() - t0;
  char why[1024];
  web_json_begin();
  web_json_num("n_ranked", report.n_ranked);
  for (int i = 0; i < report.n_ranked; i++)
    ranked_entry(&pr, i, &report.ranked[i]);
  web_json_str("why", scale_plan_explain(&report, why, sizeof why));
  web_json_fmt("layouts_enumerated", report.n_candidates, "", SCALE_FMT_SCI);
  web_json_fmt("layouts_evaluated", report.n_evaluated, "", SCALE_FMT_SCI);
  web_json_fmt("layouts_pruned_memory", report.n_pruned[SCALE_PLAN_PRUNE_MEMORY], "",
               SCALE_FMT_SCI);
  web_json_fmt("search_time_s", dt, "", SCALE_FMT_TIME);
  web_json_fmt("layouts_per_s", dt > 0 ? report.n_candidates / dt : (double)NAN, "layouts/s",
               SCALE_FMT_SCI);
  return web_json_end();
}
