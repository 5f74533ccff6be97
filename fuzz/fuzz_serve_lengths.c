/* fuzz_serve_lengths.c — fuzz target: the empirical length tables of the request simulator
 * (scale_serve_lengths_load, src/serve.c), then a closed-loop run over the loaded table.
 *
 * Input: the bytes of a length table ('#' comments, the header "isl<TAB>osl", pairs), written
 * to TMP/fuzz-input.tsv (the loader takes a path).
 * Invariants: a failure is a status of status.h with a one-line diagnostic, a line >= 0 and
 * both arrays NULL; a loaded table has 1..1e6 pairs, each in [1, 1e8]. A run of 2 clients over
 * its first 64 pairs (prompts alone, a linear step cost) generates exactly the table's output
 * tokens, finishes every request, and reports finite times with TTFT, TPOT and ITL percentiles
 * ordered p50 <= p90.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"
#include "scale/serve.h"

static char input_path[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  fuzz_tmpdir(dir, sizeof dir);
  snprintf(input_path, sizeof input_path, "%s/fuzz-input.tsv", dir);
  return 0;
}

static double linear_cost(const scale_serve_step *s, void *ctx) {
  (void)ctx;
  return 1e-3 + 1e-5 * (s->n_decode + s->n_prefill_tokens);
}

/* A closed loop of 2 clients over the first pairs (short ones, so a run stays fast). */
static void run_table(const uint32_t *isl, const uint32_t *osl, size_t n) {
  size_t m = n < 64 ? n : 64;
  double output = 0.0;
  for (size_t i = 0; i < m; i++) {
    if (isl[i] > 4096 || osl[i] > 4096) return; /* a long table is the loader's test only */
    output += osl[i];
  }
  scale_serve_config c = scale_serve_config_default();
  c.rate_per_s = INFINITY;
  c.concurrency = 2;
  c.n_requests = (double)m;
  c.table_isl = isl, c.table_osl = osl, c.n_table = (double)m;
  c.max_batch = 8, c.max_step_tokens = 512, c.block_tokens = 16, c.kv_blocks = 4096;
  c.prefill_alone = true;
  c.cost = linear_cost;
  scale_serve *sim = NULL;
  scale_serve_result r;
  scale_diag diag;
  if (scale_serve_new(&c, &sim, &diag) != SCALE_OK) fuzz_fail("serve_new: %s", diag.message);
  if (scale_serve_run(sim, &r, &diag) != SCALE_OK) fuzz_fail("serve_run: %s", diag.message);
  scale_serve_free(sim);
  if (r.n_requests != (double)m || r.output_tokens != output)
    fuzz_fail("run: %g requests, %g tokens; expected %zu, %g", r.n_requests, r.output_tokens, m,
              output);
  if (!(isfinite(r.makespan_s) && r.makespan_s > 0 && r.ttft_p50_s <= r.ttft_p90_s))
    fuzz_fail("run: makespan %g, TTFT %g / %g", r.makespan_s, r.ttft_p50_s, r.ttft_p90_s);
  if (isfinite(r.itl_p50_s) != isfinite(r.itl_p90_s) ||
      (isfinite(r.itl_p50_s) && !(r.itl_p50_s > 0 && r.itl_p50_s <= r.itl_p90_s)))
    fuzz_fail("run: ITL %g / %g", r.itl_p50_s, r.itl_p90_s);
  if (isfinite(r.tpot_p50_s) && !(r.tpot_p50_s > 0 && r.tpot_p50_s <= r.tpot_p90_s))
    fuzz_fail("run: TPOT %g / %g", r.tpot_p50_s, r.tpot_p90_s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  fuzz_write_file(input_path, data, size);
  uint32_t *isl = (uint32_t *)&size, *osl = (uint32_t *)&size; /* must be reset */
  size_t n = 7;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_serve_lengths_load(input_path, &isl, &osl, &n, &diag);
  if (st != SCALE_OK) {
    if ((int)st < 0 || st >= SCALE_STATUS_COUNT) fuzz_fail("load: status %d", (int)st);
    fuzz_check_diag(&diag, "scale_serve_lengths_load");
    if (diag.line < 0) fuzz_fail("load: line %d", diag.line);
    if (isl || osl || n) fuzz_fail("load: failed but returned a table");
    return 0;
  }
  if (n < 1 || n > 1000000) fuzz_fail("load: %zu pairs", n);
  for (size_t i = 0; i < n; i++)
    if (isl[i] < 1 || osl[i] < 1 || isl[i] > 100000000u || osl[i] > 100000000u)
      fuzz_fail("load: pair %zu is %u, %u", i, isl[i], osl[i]);
  run_table(isl, osl, n);
  free(isl);
  free(osl);
  return 0;
}
