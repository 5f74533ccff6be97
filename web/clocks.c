/* clocks.c — the module's export for the two clocks of chapter 5 (widget-clocks.js).
 *
 * scale_web_clocks(): a model, a chip, one strategy (dp, fsdp, tp, pp or ep) of degree n, the
 * tokens per chip b and the sequence length -> each chip's compute time and communication time
 * per step under the book's roofline, exactly as `scale train --model M --hw H --chips n
 * --batch-tokens B --seq S --STRATEGY n --roofline --json` computes them (src/cli/train.c:
 * the same layout, mapping and scale_train_eval()); where the two clocks cross, found on that
 * same evaluation; the book's closed-form threshold (ch. 5, times E/k for expert
 * parallelism); and the two clocks against b as a plot.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"

WEB_EXPORT("scale_web_clocks") int scale_web_clocks(void);

#define CURVE_POINTS 37 /* 2^6 .. 2^18 tokens per chip, three points an octave */

typedef enum { DP, FSDP, TP, PP, EP, N_STRATEGIES } strategy;
static const char *const strategy_names[N_STRATEGIES] = {"dp", "fsdp", "tp", "pp", "ep"};

/* The layout of `scale train --STRATEGY n` on n chips (fsdp takes the chips the others leave,
 * 1 here; m = pp microbatches), mapped onto the chip as the command maps it. */
static scale_layout layout_of(const scale_chip *chip, strategy s, double n) {
  scale_layout l = scale_layout_default();
  l.dp = s == DP ? n : 1.0;
  l.fsdp = s == FSDP || s == EP ? n : 1.0;
  l.tp = s == TP ? n : 1.0;
  l.pp = s == PP ? n : 1.0;
  l.ep = s == EP ? n : 1.0;
  l.n_microbatches = l.pp;
  scale_train_layout_map(chip, n, &l);
  return l;
}

/* Argument axes (1..the torus's axes, or "auto": the mapping's): the ICI axes the strategy's
 * dimension spans, as `scale train --DIM-axes N` overrides them. false after web_error(). */
static bool torus_axes(const scale_chip *chip, scale_layout *l, scale_train_dim dim) {
  const char *text = web_arg("axes");
  if (!text || strcmp(text, "auto") == 0) return true;
  double axes = web_num("axes", 1, 1, 3);
  if (web_failed()) return false;
  if (l->link[dim] != SCALE_TRAIN_LINK_ICI || axes != floor(axes) || axes > chip->ici_n_axes) {
    web_error("axes: %s runs over %s here, not over 1-%g torus axes", scale_train_dim_name(dim),
              scale_train_link_name(l->link[dim]), chip->ici_n_axes);
    return false;
  }
  l->n_axes[dim] = axes;
  return true;
}

/* The batch of the step when each data shard holds b tokens. */
static double batch_of(strategy s, double n, double b) { return s == TP || s == PP ? b : b * n; }

static scale_train_result eval_at(scale_train_problem *p, const scale_layout *l, strategy s,
                                  double n, double b) {
  scale_train_result r;
  p->batch_tokens = batch_of(s, n, b);
  scale_train_eval(p, l, &r);
  return r;
}

/* Tokens per chip where communication time equals compute time, by bisection on log b over
 * [1, 2^30] (compute grows with b, a data-parallel collective does not); NaN when the clocks
 * do not cross there (TP and PP: both grow alike). Leaves p's batch changed. */
static double crossover(scale_train_problem *p, const scale_layout *l, strategy s, double n) {
  double lo = 0.0, hi = 30.0; /* log2 b */
  scale_train_result a = eval_at(p, l, s, n, exp2(lo)), z = eval_at(p, l, s, n, exp2(hi));
  double ga = a.comms_time_s - a.compute_time_s, gz = z.comms_time_s - z.compute_time_s;
  if (!(ga > 0.0 && gz < 0.0)) return (double)NAN;
  for (int i = 0; i < 40; i++) { /* log2 b to 30 / 2^40: far below a digit */
    double mid = 0.5 * (lo + hi);
    scale_train_result m = eval_at(p, l, s, n, exp2(mid));
    if (m.comms_time_s - m.compute_time_s > 0.0)
      lo = mid;
    else
      hi = mid;
  }
  return exp2(0.5 * (lo + hi));
}

/* The book's threshold on b (ch. 5): data parallelism over M ICI axes is compute-bound above
 * C / (W_link M); an expert's weights see k/E of the tokens, so times E/k. NaN off ICI or for
 * TP and PP (whose ratio does not depend on b). */
static double book_threshold(const scale_chip *chip, const scale_model *m, const scale_layout *l,
                             strategy s) {
  scale_train_dim d = s == DP ? SCALE_TRAIN_DIM_DP : SCALE_TRAIN_DIM_FSDP;
  if (s == TP || s == PP || l->link[d] != SCALE_TRAIN_LINK_ICI) return (double)NAN;
  double dense = scale_train_dp_critical_batch(scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16),
                                               chip->ici_link_bytes_per_s, l->n_axes[d]);
  if (s != EP) return dense;
  return scale_train_moe_critical_batch(dense, (double)m->n_experts, (double)m->n_experts_active);
}

static void clocks_plot(scale_train_problem *p, const scale_layout *l, strategy s, double n,
                        double b, double cross, const char *title) {
  double x[CURVE_POINTS], comp[CURVE_POINTS], comm[CURVE_POINTS];
  for (int i = 0; i < CURVE_POINTS; i++) {
    x[i] = exp2(6.0 + i / 3.0);
    scale_train_result r = eval_at(p, l, s, n, x[i]);
    comp[i] = r.compute_time_s > 0.0 ? r.compute_time_s : (double)NAN; /* log axis: > 0 */
    comm[i] = r.comms_time_s > 0.0 ? r.comms_time_s : (double)NAN;
  }
  scale_plot_series series[2] = {
      {.label = "compute per chip", .x = x, .y = comp, .n = CURVE_POINTS},
      {.label = "communication per chip", .x = x, .y = comm, .n = CURVE_POINTS, .dashed = true}};
  char here[64], at[64], t[32];
  snprintf(here, sizeof here, "b = %s", scale_format(t, sizeof t, b, "", SCALE_FMT_PLAIN));
  snprintf(at, sizeof at, "crossover %s", scale_format(t, sizeof t, cross, "", SCALE_FMT_PLAIN));
  scale_plot_marker marks[2] = {{.vertical = true, .at = b, .label = here},
                                {.vertical = true, .at = cross, .label = at}};
  bool has_cross = isfinite(cross) && cross >= x[0] && cross <= x[CURVE_POINTS - 1];
  scale_plot plot = {.title = title,
                     .desc = "Compute time and communication time per chip and step against "
                             "the tokens per chip, log-log, with the crossover marked",
                     .x_label = "tokens per chip b",
                     .y_label = "time per step [s]",
                     .x_axis = SCALE_PLOT_LOG,
                     .y_axis = SCALE_PLOT_LOG,
                     .width_px = 640,
                     .height_px = 360,
                     .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                     .series = series,
                     .n_series = 2,
                     .markers = marks,
                     .n_markers = has_cross ? 2 : 1};
  web_json_svg("svg", &plot);
}

/** model (llama-3-70b), hw (tpu-v5p), strategy (fsdp), n (64), b (4096 tokens per chip), seq
 * (1024), axes (auto). Answer: the fields of `scale train ... --roofline --json` the page shows
 * (with _text), "crossover_tokens_per_chip", "book_threshold_tokens_per_chip", "svg". */
int scale_web_clocks(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  static scale_model model;
  if (!web_model("model", "llama-3-70b", &model) || !web_chip("hw", "tpu-v5p", &chip)) return 2;
  const char *sname = web_arg("strategy");
  strategy s = FSDP;
  if (sname) {
    for (s = DP; s < N_STRATEGIES && strcmp(sname, strategy_names[s]) != 0; s++)
      continue;
    if (s == N_STRATEGIES)
      return web_error("strategy: '%s' is none of dp, fsdp, tp, pp, ep", sname);
  }
  double n = web_num("n", 64, 1, 1 << 20), b = web_num("b", 4096, 1, 1 << 30),
         seq = web_num("seq", 1024, 1, 1 << 24);
  if (web_failed()) return 2;
  if (n != floor(n)) return web_error("n: the degree must be a whole number");

  scale_layout l = layout_of(&chip, s, n);
  scale_train_dim dim = s == DP   ? SCALE_TRAIN_DIM_DP
                        : s == TP ? SCALE_TRAIN_DIM_TP
                        : s == PP ? SCALE_TRAIN_DIM_PP
                                  : SCALE_TRAIN_DIM_FSDP;
  if (!torus_axes(&chip, &l, dim)) return 2;
  scale_train_problem p = scale_train_problem_make(&model, &chip, n, batch_of(s, n, b), seq);
  scale_diag diag = {0};
  if (scale_train_validate(&p, &l, &diag) != SCALE_OK) return web_error("%s", diag.message);
  scale_train_result r;
  scale_train_eval(&p, &l, &r);
  if (!isfinite(r.step_time_s)) return web_error("%s", r.reason);
  double cross = crossover(&p, &l, s, n);
  double book = book_threshold(&chip, &model, &l, s);

  web_json_begin();
  web_json_str("model_display", model.display_name);
  web_json_str("hw_display", chip.display_name);
  web_json_fmt("batch_tokens", batch_of(s, n, b), "tokens", SCALE_FMT_PLAIN);
  web_json_fmt("tokens_per_chip", r.tokens_per_chip, "tokens", SCALE_FMT_PLAIN);
  web_json_fmt("compute_time_s", r.compute_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("comms_time_s", r.comms_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("step_time_s", r.step_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("mfu", r.mfu, "", SCALE_FMT_PERCENT);
  web_json_fmt("memory_per_chip_bytes", r.memory_per_chip_bytes, "B", SCALE_FMT_SI);
  web_json_str("bound", scale_train_bound_name(r.bound));
  web_json_str("link", scale_train_link_name(l.link[dim]));
  web_json_num("n_axes", l.n_axes[dim]);
  web_json_fmt("crossover_tokens_per_chip", cross, "tokens", SCALE_FMT_PLAIN);
  web_json_fmt("book_threshold_tokens_per_chip", book, "tokens", SCALE_FMT_PLAIN);
  if (s == EP)
    web_json_fmt("e_over_k", (double)model.n_experts / (double)model.n_experts_active, "",
                 SCALE_FMT_PLAIN);
  char title[200];
  snprintf(title, sizeof title, "Two clocks: %s on %d %s, %s", model.display_name, (int)n,
           chip.display_name, strategy_names[s]);
  clocks_plot(&p, &l, s, n, b, cross, title);
  return web_json_end();
}
