/* servefit_bench.c — how fast the serving fit runs (issue 26 target: `scale validate --serving`
 * and `scale calibrate --serving` within 15 s on two cores): loading the shipped serving rows
 * (each simulated once into its trace), one full fit, one leave-one-group-out fit, and every
 * group's (scale_serve_loo, on all cores).
 *
 * Usage: servefit_bench   (run from anywhere; SCALE_DATA_DIR selects the data).
 * Prints the wall and CPU seconds of each stage and the fit's figures; exits 1 on a failure.
 * Not a test: timings vary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scale.h"
#include "scale/servecal.h"

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  double wall, cpu;
} stamp;

static stamp now(void) {
  return (stamp){clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

static void report(const char *what, stamp t0) {
  stamp t1 = now();
  printf("servefit_bench: %-34s %8.3f s wall %8.3f s CPU\n", what, t1.wall - t0.wall,
         t1.cpu - t0.cpu);
}

int main(void) {
  char dir[4200], buf[512];
  snprintf(dir, sizeof dir, "%.4000s/measurements", scale_data_dir());
  scale_serve_set *set = NULL;
  scale_diag diag;
  stamp t0 = now();
  if (scale_serve_set_load(dir, &set, &diag)) {
    fprintf(stderr, "servefit_bench: %s\n", scale_diag_format(&diag, buf, sizeof buf));
    return 1;
  }
  report("load and simulate the rows", t0);
  int n = scale_serve_set_rows(set);
  double p[SCALE_SERVE_N_PARAMS], *loo = malloc((size_t)n * sizeof *loo);
  if (!loo) {
    scale_serve_set_free(set);
    return 1;
  }
  t0 = now();
  double rms = scale_serve_fit(set, -1, p);
  report("one fit (every group)", t0);
  t0 = now();
  scale_serve_loo_group(set, 0, loo);
  report("one leave-one-group-out fit", t0);
  t0 = now();
  scale_serve_loo(set, loo);
  report("every leave-one-group-out fit", t0);
  printf("servefit_bench: %d rows in %d groups, RMS log error %.4f, LOO MAPE %.2f%%\n", n,
         scale_serve_set_groups(set), rms, 100 * scale_serve_mape(set, -1, loo));
  free(loo);
  scale_serve_set_free(set);
  return 0;
}
