/* plan_bench.c — how fast the planner searches: layouts per second of scale_train_eval() in a
 * tight loop on one core (the calibrated step model, as scale plan prices layouts, and the
 * roofline), and the wall time of three standard searches with the step model (issue 14:
 * LLaMA 3 70B on 8960 TPU v5p, LLaMA 3 405B on 16,384 H100, DeepSeek-V3 on 2048 H800-class
 * GPUs; targets: >= 2e6 evaluations/s on one core, each search under 2 s).
 *
 * Usage: plan_bench [--threads N]   (run from anywhere; SCALE_DATA_DIR selects the data).
 * Prints one line per measurement; exits 1 if a search fails. Not a test: timings vary.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scale.h"
#include "scale/plan.h"

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of the process: on a shared, oversubscribed machine the honest "one core" figure */
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int load(const char *model_name, const char *chip_name, scale_model *m, scale_chip *c) {
  scale_diag diag;
  if (scale_model_load(model_name, m, &diag) || scale_chip_load(chip_name, c, &diag)) {
    fprintf(stderr, "plan_bench: %s\n", diag.message);
    return 1;
  }
  return 0;
}

static scale_step_params params;

/* Evaluates one layout repeatedly (two microbatch counts): the cost of the hot path alone,
 * through the planner's cache (op times by shape) or without it (one scale train call). */
static int eval_rate(const scale_step_params *step, bool cached, const char *label) {
  scale_model m;
  scale_chip c;
  if (load("llama-3-70b", "tpu-v5p", &m, &c)) return 1;
  scale_train_problem p = scale_train_problem_make(&m, &c, 8960, 4194304, 4096);
  p.step_params = step;
  scale_layout l = scale_layout_default();
  l.fsdp = 280, l.tp = 32, l.sp = true, l.zero_stage = 3; /* 1024 sequences: m = 1 or 2 */
  scale_train_layout_map(&c, 8960, &l);
  scale_train_result r;
  static scale_train_cache cache;
  scale_train_cache_init(&cache, &p);
  const int n = 2000000;
  double sink = 0, t0 = now_s(), c0 = cpu_s();
  for (int i = 0; i < n; i++) {
    l.n_microbatches = (double)(1 + (i & 1)); /* defeat hoisting */
    if (cached)
      scale_train_eval_cached(&p, &l, &cache, &r);
    else
      scale_train_eval(&p, &l, &r);
    sink += r.step_time_s;
  }
  double dt = now_s() - t0, dc = cpu_s() - c0;
  printf("eval (%s): %d layouts in %.3f s wall, %.3f s CPU = %.3g layouts/s per CPU second "
         "(checksum %.6g)\n",
         label, n, dt, dc, n / dc, sink / n);
  return 0;
}

static int standard(const char *label, const char *model_name, const char *chip_name,
                    double chips, double batch, double seq, int threads) {
  scale_model m;
  scale_chip c;
  if (load(model_name, chip_name, &m, &c)) return 1;
  scale_train_problem p = scale_train_problem_make(&m, &c, chips, batch, seq);
  p.step_params = &params;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = threads;
  scale_plan_report *r = malloc(sizeof *r);
  if (!r) return 1;
  scale_diag diag;
  double t0 = now_s(), c0 = cpu_s();
  scale_status st = scale_plan_train(&p, &o, r, &diag);
  double dt = now_s() - t0, dc = cpu_s() - c0;
  if (st) {
    fprintf(stderr, "plan_bench: %s: %s\n", label, diag.message);
    free(r);
    return 1;
  }
  char best[200] = "nothing fits";
  if (r->n_ranked) scale_plan_layout_str(&r->ranked[0].layout, best, sizeof best);
  printf("%s: %.3g candidates, %.3g evaluated in %.3f s wall, %.3f s CPU (%d threads) = %.3g "
         "evaluated per CPU second; best: %s\n",
         label, r->n_candidates, r->n_evaluated, dt, dc, r->n_threads_used, r->n_evaluated / dc,
         best);
  free(r);
  return 0;
}

int main(int argc, char **argv) {
  int threads = 0;
  if (argc == 3 && strcmp(argv[1], "--threads") == 0) threads = atoi(argv[2]);
  scale_diag diag;
  if (scale_step_params_load_file(scale_step_params_path(), &params, &diag)) {
    fprintf(stderr, "plan_bench: %s:%d: %s\n", diag.file, diag.line, diag.message);
    return 1;
  }
  int rc = eval_rate(&params, true, "step model, planner's cache");
  rc |= eval_rate(&params, false, "step model, one scale train call");
  rc |= eval_rate(NULL, true, "roofline");
  rc |= standard("llama-3-70b on 8960 tpu-v5p", "llama-3-70b", "tpu-v5p", 8960, 4194304, 4096,
                 threads);
  rc |= standard("llama-3-405b on 16384 h100", "llama-3-405b", "nvidia-h100-sxm", 16384,
                 16777216, 8192, threads);
  rc |= standard("deepseek-v3 on 2048 h100", "deepseek-v3", "nvidia-h100-sxm", 2048, 62914560,
                 4096, threads);
  return rc;
}
