/* planner.c — the module's export for the training planner (plan.h), for widgets that rank
 * layouts and for the speed check of the live book (tests/browser/widget_check.py).
 *
 * scale_web_plan(): model, hw, chips, batch, seq, top, objective, cost -> the ranked layouts
 * of `scale plan train --model M --hw H --chips N --batch-tokens B --seq S --top K
 * --objective O [--roofline] --threads 1 --json` (src/cli/plan.c: the same problem, the same
 * step parameters, scale_plan_train()), with how many layouts it evaluated and how fast. The
 * search runs on the page's one thread (web/wasm/pthread.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"

WEB_EXPORT("scale_web_plan") int scale_web_plan(void);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The step model's parameters as the command picks them: the chip's own [step] fit, else the
 * shipped one (cli_load_step_params). */
static bool step_params(const scale_chip *chip, scale_step_params *out) {
  if (scale_step_params_of_chip(chip, out) == SCALE_OK) return true;
  scale_diag diag = {0};
  if (scale_step_params_load_file(scale_step_params_path(), out, &diag) == SCALE_OK) return true;
  web_error("%s:%d: %s", diag.file, diag.line, diag.message);
  return false;
}

static void ranked_entry(const scale_plan_entry *e) {
  char text[256];
  web_json_open(NULL, '{');
  web_json_str("layout", scale_plan_layout_str(&e->layout, text, sizeof text));
  web_json_num("score", e->score);
  web_json_fmt("step_time_s", e->result.step_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("compute_time_s", e->result.compute_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("exposed_comms_time_s", e->result.exposed_comms_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("mfu", e->result.mfu, "", SCALE_FMT_PERCENT);
  web_json_fmt("memory_per_chip_bytes", e->result.memory_per_chip_bytes, "B", SCALE_FMT_SI);
  web_json_str("bound", scale_train_bound_name(e->result.bound));
  web_json_close('}');
}

/** model (llama-3-70b), hw (tpu-v5p), chips (256), batch (1048576 tokens), seq (4096), top (5),
 * objective (time|cost|mfu), cost (step|roofline). Answer: "ranked" (layout, score, times,
 * MFU, memory, bound; best first), "why", layouts_enumerated, layouts_evaluated,
 * search_time_s and layouts_per_s (as `scale plan train --json` names them). */
int scale_web_plan(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  static scale_model model;
  if (!web_model("model", "llama-3-70b", &model) || !web_chip("hw", "tpu-v5p", &chip)) return 2;
  double chips = web_num("chips", 256, 1, 1 << 20), batch = web_num("batch", 1048576, 1, 1e12),
         seq = web_num("seq", 4096, 1, 1 << 24), top = web_num("top", 5, 1, SCALE_PLAN_TOP_MAX);
  if (web_failed()) return 2;
  if (chips != floor(chips) || top != floor(top))
    return web_error("chips and top must be whole numbers");
  scale_plan_opts opts = scale_plan_opts_default();
  opts.top_k = (int)top;
  opts.n_threads = 1;
  const char *objective = web_arg("objective"), *cost = web_arg("cost");
  if (objective && scale_plan_objective_parse(objective, &opts.objective) != SCALE_OK)
    return web_error("objective: '%s' is not time, cost or mfu", objective);
  bool roofline = cost && strcmp(cost, "roofline") == 0;
  if (cost && !roofline && strcmp(cost, "step") != 0)
    return web_error("cost: '%s' is not step or roofline", cost);
  static scale_step_params params;
  if (!roofline && !step_params(&chip, &params)) return 2;

  scale_train_problem p = scale_train_problem_make(&model, &chip, chips, batch, seq);
  p.step_params = roofline ? NULL : &params;
  static scale_plan_report report; /* about 50 kB: not on the stack */
  scale_diag diag = {0};
  double t0 = now_s();
  if (scale_plan_train(&p, &opts, &report, &diag) != SCALE_OK) return web_error("%s", diag.message);
  double dt = now_s() - t0;
  char why[1024];
  web_json_begin();
  web_json_open("ranked", '[');
  for (int i = 0; i < report.n_ranked; i++)
    ranked_entry(&report.ranked[i]);
  web_json_close(']');
  web_json_str("why", scale_plan_explain(&report, why, sizeof why));
  web_json_num("layouts_enumerated", report.n_candidates);
  web_json_num("layouts_evaluated", report.n_evaluated);
  web_json_fmt("search_time_s", dt, "", SCALE_FMT_TIME);
  web_json_fmt("layouts_per_s", dt > 0 ? report.n_evaluated / dt : (double)NAN, "layouts/s",
               SCALE_FMT_SI);
  return web_json_end();
}
