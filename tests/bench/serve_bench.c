/* serve_bench.c — how fast the request-stream simulator runs (issue 15 target: 100,000 requests
 * in under 2 s). LLaMA 3 8B (llama-3-8b) on one H100 at the roofline cost with a 2 ms step
 * overhead: Poisson arrivals near saturation, prompts U{128..2048}, outputs U{32..512}, batch cap
 * 256, 8192 tokens a step, 16-token KV blocks; then the same stream with the calibrated step
 * cost (servecal.h), which `scale infer` uses by default, open loop and closed loop (256
 * clients, each sending its next request when its previous one ends).
 *
 * Usage: serve_bench   (run from anywhere; SCALE_DATA_DIR selects the data).
 * Prints the wall and CPU seconds of scale_serve_new + scale_serve_run and the run's summary;
 * exits 1 on a failure. Not a test: timings vary.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "scale.h"
#include "scale/serve.h"
#include "scale/servecal.h"

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  char buf[512];
  if (scale_model_load("llama-3-8b", &m, &diag) ||
      scale_chip_load("nvidia-h100-sxm", &chip, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    return 1;
  }
  scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
  scale_serve_roofline rf;
  if (scale_serve_roofline_of(&m, &chip, &ic, 2e-3, &rf, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    return 1;
  }
  scale_serve_config c = scale_serve_config_default();
  c.rate_per_s = 16; /* about 90% of the ~17.7 requests/s the engine sustains */
  c.n_requests = 100000;
  c.isl.min_tokens = 128, c.isl.max_tokens = 2048;
  c.osl.min_tokens = 32, c.osl.max_tokens = 512;
  c.max_batch = 256;
  c.max_step_tokens = 8192;
  c.block_tokens = 16;
  c.kv_blocks = floor(rf.kv_capacity_bytes / (16 * rf.kv_bytes_per_token));
  c.cost = scale_serve_roofline_cost_s;
  c.cost_ctx = &rf;
  double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  scale_serve *sim = NULL;
  scale_serve_result r;
  if (scale_serve_new(&c, &sim, &diag) || scale_serve_run(sim, &r, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    scale_serve_free(sim);
    return 1;
  }
  double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  scale_serve_free(sim);
  printf("serve_bench: %.0f requests, %.0f steps in %.3f s wall, %.3f s CPU (target < 2 s)\n",
         r.n_requests, r.n_steps, wall, cpu);
  printf("serve_bench: throughput %.4g tokens/s, steady batch %.4g, binds %s, TTFT p50 %.4g s, "
         "TPOT p50 %.4g s\n",
         r.throughput_tokens_per_s, r.steady_batch, scale_serve_bind_name(r.bind), r.ttft_p50_s,
         r.tpot_p50_s);
  /* the calibrated cost, bf16 as above, at 90% of the rate it sustains offline */
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  scale_serve_cost cal;
  if (scale_serve_cost_of(&m, &chip, &ic, p, &cal, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    return 1;
  }
  c.cost = scale_serve_cost_s;
  c.cost_ctx = &cal;
  c.rate_per_s = INFINITY;
  c.n_requests = 2000;
  if (scale_serve_new(&c, &sim, &diag) || scale_serve_run(sim, &r, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    scale_serve_free(sim);
    return 1;
  }
  scale_serve_free(sim);
  c.rate_per_s = 0.9 * r.request_rate_per_s;
  c.n_requests = 100000;
  w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  if (scale_serve_new(&c, &sim, &diag) || scale_serve_run(sim, &r, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    scale_serve_free(sim);
    return 1;
  }
  wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  scale_serve_free(sim);
  printf("serve_bench (calibrated): %.0f requests at %.3g/s, %.0f steps in %.3f s wall, %.3f s "
         "CPU (target < 2 s)\n",
         r.n_requests, c.rate_per_s, r.n_steps, wall, cpu);
  /* the closed loop: 256 clients, each sending its next request when its previous one ends */
  c.concurrency = 256;
  w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  if (scale_serve_new(&c, &sim, &diag) || scale_serve_run(sim, &r, &diag)) {
    fprintf(stderr, "serve_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    scale_serve_free(sim);
    return 1;
  }
  wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  scale_serve_free(sim);
  printf("serve_bench (calibrated, closed loop): %.0f requests from %g clients, %.0f steps in "
         "%.3f s wall, %.3f s CPU (target < 2 s); ITL p50 %.4g s\n",
         r.n_requests, c.concurrency, r.n_steps, wall, cpu, r.itl_p50_s);
  return 0;
}
