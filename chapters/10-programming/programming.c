/* programming.c — chapter 10, "Programming TPUs in JAX", as a program: sharded programs run
 * for real by the MPI mesh executor (src/mesh/, `scale-mesh`), in place of JAX's shard_map.
 *
 * A chapter program cannot start MPI ranks while the book builds, so it reads what scale-mesh
 * wrote on the build machine, committed next to the chapter:
 *   mesh-run.tsv     mpirun -n 4 scale-mesh --reps 5 --tsv mesh-run.tsv
 *                    (collectives over X, Y and both; the four matmul cases; collective matmul)
 *   mesh-sweep.tsv   mpirun -n 4 scale-mesh --run sweep --reps 10 --tsv mesh-sweep.tsv
 *                    (AllGather over all 4 ranks from 32 bytes to 4 MiB)
 * and computes, with the library:
 *   - each case's plan (scale_sharding_matmul_plan) on the executor's mesh, its bytes per rank
 *     from chapter 3's ring formulas against the bytes the executor counted, and the same
 *     program's communication time on a TPU v5e 2x2 at the book's sizes;
 *   - a latency-bandwidth (alpha-beta) model fitted to the measured AllGathers, against the
 *     bandwidth-only time of chapter 3, and the message size where the two terms cross;
 *   - collective matmul: the measured overlap gain against the book's measurement.
 * --figures DIR draws alpha-beta.svg (measured AllGathers, the fit, bandwidth only).
 * Options: --run FILE, --sweep FILE (another machine's scale-mesh output).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chapter.h"
#include "scale/measure.h"

/* ---- the executor's rows -------------------------------------------------------------------- */

enum { ROWS_MAX = 256 };

typedef struct {
  char kind[16], name[48], axes[8], check[16], extra[224];
  double n, bytes, sent, expected, time_s;
} mesh_row;

typedef struct {
  int n;
  mesh_row row[ROWS_MAX];
} mesh_rows;

/* Copies field 'i' (tab-separated) of 'line' into out. */
static void tsv_field(const char *line, int i, char *out, size_t size) {
  const char *p = line;
  for (int k = 0; k < i && p; k++) {
    p = strchr(p, '\t');
    if (p) p++;
  }
  size_t n = p ? strcspn(p, "\t\n") : 0;
  if (n >= size) n = size - 1;
  if (p) memcpy(out, p, n);
  out[n] = '\0';
}

static bool load_rows(chapter *ch, const char *path, mesh_rows *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) {
    chapter_error(ch, "cannot read %s (write it with scale-mesh --tsv)", path);
    return false;
  }
  char line[1024], num[64];
  bool header = true;
  while (fgets(line, sizeof line, f) && out->n < ROWS_MAX) {
    if (header) { /* the first line names the columns */
      header = false;
      continue;
    }
    mesh_row *r = &out->row[out->n];
    tsv_field(line, 0, r->kind, sizeof r->kind);
    tsv_field(line, 1, r->name, sizeof r->name);
    tsv_field(line, 2, r->axes, sizeof r->axes);
    tsv_field(line, 7, r->check, sizeof r->check);
    tsv_field(line, 9, r->extra, sizeof r->extra);
    double *nums[5] = {&r->n, &r->bytes, &r->sent, &r->expected, NULL};
    const int cols[4] = {3, 4, 5, 6};
    for (int k = 0; k < 4; k++) {
      tsv_field(line, cols[k], num, sizeof num);
      *nums[k] = strtod(num, NULL);
    }
    tsv_field(line, 8, num, sizeof num);
    r->time_s = strtod(num, NULL);
    if (!r->kind[0] || !(r->time_s > 0)) {
      chapter_error(ch, "%s: malformed row %d", path, out->n + 2);
      break;
    }
    out->n++;
  }
  fclose(f);
  return ch->n_errors == 0 && out->n > 0;
}

static const mesh_row *find_row(const mesh_rows *rows, const char *kind, const char *name,
                                const char *axes) {
  for (int i = 0; i < rows->n; i++) {
    const mesh_row *r = &rows->row[i];
    if (strcmp(r->kind, kind) == 0 && strcmp(r->name, name) == 0 &&
        (!axes || strcmp(r->axes, axes) == 0))
      return r;
  }
  return NULL;
}

/* ---- the four cases -------------------------------------------------------------------------- */

static void section_cases(chapter *ch, const mesh_rows *run, const scale_chip *v5e) {
  chapter_heading(ch, "The four cases of chapter 3, executed on {X:2, Y:2}");
  static const char *specs[4][2] = {{"A[I_X, J]", "B[J, K_Y]"},
                                    {"A[I, J_X]", "B[J, K]"},
                                    {"A[I, J_X]", "B[J_X, K]"},
                                    {"A[I_X, J]", "B[J, K_X]"}};
  scale_mesh mesh;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  if (scale_sharding_mesh_parse("{X:2, Y:2}", &mesh, &diag) != SCALE_OK) {
    chapter_error(ch, "mesh: %s", diag.message);
    return;
  }
  const double n_exec = 256, n_book = 8192; /* the executor's sizes; the book's */
  for (int c = 0; c < 4; c++) {
    scale_sharding a, b;
    if (scale_sharding_parse(specs[c][0], &mesh, &a, &diag) != SCALE_OK ||
        scale_sharding_parse(specs[c][1], &mesh, &b, &diag) != SCALE_OK) {
      chapter_error(ch, "case %d: %s", c + 1, diag.message);
      return;
    }
    /* The executor moves doubles: plan in fp32 (4 bytes) and count twice the bytes. */
    double dims[2] = {n_exec, n_exec};
    scale_sharded_matmul plan, on_v5e;
    if (scale_sharding_matmul_plan(&mesh, &a, dims, &b, dims, SCALE_DTYPE_FP32, NULL,
                                   SCALE_WRAP_AUTO, &plan, &diag) != SCALE_OK) {
      chapter_error(ch, "case %d: %s", c + 1, diag.message);
      return;
    }
    double book_dims[2] = {n_book, n_book};
    if (scale_sharding_matmul_plan(&mesh, &a, book_dims, &b, book_dims, SCALE_DTYPE_BF16, v5e,
                                   SCALE_WRAP_AUTO, &on_v5e, &diag) != SCALE_OK) {
      chapter_error(ch, "case %d on v5e: %s", c + 1, diag.message);
      return;
    }
    double expected = 0, v = 0;
    for (int s = 0; s < plan.n_steps; s++) {
      double n = scale_sharding_axes_size(&mesh, plan.step[s].axes_mask);
      v = plan.step[s].bytes * 2.0;
      expected += scale_collective_ring_link_bytes(plan.step[s].op, n, v, false);
    }
    char name[16], stem[16];
    snprintf(name, sizeof name, "case %d", c + 1);
    snprintf(stem, sizeof stem, "case%d", c + 1);
    const mesh_row *r = find_row(run, "matmul", name, NULL);
    if (!r) {
      chapter_error(ch, "mesh-run.tsv has no row for %s", name);
      return;
    }
    chapter_stem_value(ch, stem, "kind", "case the library plans", (double)plan.kind, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, stem, "v_bytes", "V of the collective (doubles)", v, "B",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, stem, "expected_bytes", "bytes per rank, chapter 3", expected, "B",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, stem, "sent_bytes", "bytes per rank, counted", r->sent, "B",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, stem, "time_s", "measured, 4 ranks", r->time_s, "s", SCALE_FMT_TIME);
    chapter_stem_value(ch, stem, "flops_per_rank", "FLOPs per rank", plan.flops_per_device * 1.0,
                       "FLOP", SCALE_FMT_SCI);
    chapter_stem_value(ch, stem, "v5e_comms_s", "same program, v5e 2x2, 8192^2 bf16",
                       on_v5e.book_comms_time_s, "s", SCALE_FMT_TIME);
    chapter_claim(ch, true, r->sent == expected && strcmp(r->check, "FAILED") != 0,
                  "the executor's bytes equal chapter 3's and its result checked out");
    chapter_claim(ch, true, strcmp(r->check, c == 2 ? "tol 1e-12" : "bitwise") == 0,
                  "case 3 is checked to a tolerance, the others bitwise");
  }
}

/* ---- the collectives and the alpha-beta fit ------------------------------------------------- */

static void section_collectives(chapter *ch, const mesh_rows *run) {
  chapter_heading(ch, "Collectives, measured (V = 1 MiB)");
  static const char *ops[4] = {"all-gather", "reduce-scatter", "all-reduce", "all-to-all"};
  static const char *keys[4] = {"ag", "rs", "ar", "a2a"};
  static const char *axes[2] = {"X", "XY"};
  for (int o = 0; o < 4; o++)
    for (int a = 0; a < 2; a++) {
      const mesh_row *r = find_row(run, "collective", ops[o], axes[a]);
      if (!r) {
        chapter_error(ch, "mesh-run.tsv has no %s over %s", ops[o], axes[a]);
        return;
      }
      chapter_valuef(ch, "bytes sent per rank", r->sent, "B", SCALE_FMT_PLAIN, "coll.%s.%s.sent",
                     keys[o], axes[a]);
      chapter_valuef(ch, "time", r->time_s, "s", SCALE_FMT_TIME, "coll.%s.%s.time_s", keys[o],
                     axes[a]);
      chapter_claim(ch, true, r->sent == r->expected && strcmp(r->check, "bitwise") == 0,
                    "every collective checked bitwise with chapter 3's bytes");
    }
  const mesh_row *r = find_row(run, "collective", "all-gather", "X");
  if (r) chapter_value(ch, "coll.v_bytes", "V", r->bytes, "B", SCALE_FMT_IEC);
}

typedef struct {
  double alpha_s, bytes_per_s, crossover_bytes, n;
} alpha_beta;

static alpha_beta section_alpha_beta(chapter *ch, const mesh_rows *sweep, bool check) {
  chapter_heading(ch, "A latency-bandwidth model of this machine's AllGather");
  alpha_beta ab = {(double)NAN, (double)NAN, (double)NAN, (double)NAN};
  double x[ROWS_MAX], y[ROWS_MAX];
  size_t n = 0;
  for (int i = 0; i < sweep->n; i++) {
    const mesh_row *r = &sweep->row[i];
    if (strcmp(r->kind, "sweep") != 0) continue;
    x[n] = r->sent;
    y[n++] = r->time_s;
    ab.n = r->n;
  }
  /* Relative errors: the sizes span five decades, and an unweighted fit would let the largest
   * transfer decide the latency. */
  double w[ROWS_MAX];
  for (size_t i = 0; i < n; i++) w[i] = 1.0 / (y[i] * y[i]);
  double intercept, slope;
  if (scale_measure_fit_line(x, y, w, n, &intercept, &slope) != SCALE_OK || !(slope > 0) ||
      !(intercept > 0) || !(ab.n > 1)) {
    chapter_error(ch, "the sweep does not fit T = (n-1) alpha + bytes / W with positive terms");
    return ab;
  }
  /* T = (n - 1) alpha + sent / W: n - 1 ring steps, each paying one latency. */
  ab.alpha_s = intercept / (ab.n - 1);
  ab.bytes_per_s = 1.0 / slope;
  ab.crossover_bytes = scale_measure_crossover_bytes(ab.alpha_s, ab.bytes_per_s);
  chapter_value(ch, "ab.points", "measured sizes", (double)n, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "ab.n", "ranks in the ring", ab.n, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "ab.alpha_s", "alpha: latency per ring step", ab.alpha_s, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "ab.bandwidth", "W: bandwidth per rank", ab.bytes_per_s, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "ab.crossover_bytes", "message where alpha = bytes / W", ab.crossover_bytes,
                "B", SCALE_FMT_IEC);
  chapter_value(ch, "ab.crossover_v", "AllGather V at the crossover (n messages)",
                ab.crossover_bytes * ab.n, "B", SCALE_FMT_IEC);
  /* Smallest and largest points: measured, the fit, and chapter 3's bandwidth-only time. */
  static const char *which[2] = {"small", "large"};
  for (int k = 0; k < 2; k++) {
    size_t i = k == 0 ? 0 : n - 1;
    double fit = intercept + slope * x[i];
    double bw_only = x[i] / ab.bytes_per_s;
    chapter_valuef(ch, "V", x[i] * ab.n / (ab.n - 1), "B", SCALE_FMT_IEC, "ab.%s.v_bytes",
                   which[k]);
    chapter_valuef(ch, "measured", y[i], "s", SCALE_FMT_TIME, "ab.%s.measured_s", which[k]);
    chapter_valuef(ch, "alpha-beta", fit, "s", SCALE_FMT_TIME, "ab.%s.fit_s", which[k]);
    chapter_valuef(ch, "bandwidth only (chapter 3)", bw_only, "s", SCALE_FMT_TIME,
                   "ab.%s.bw_only_s", which[k]);
  }
  /* The text: small transfers are latency-bound by orders of magnitude, large ones fit. */
  double small_bw_only = x[0] / ab.bytes_per_s;
  double large_fit = intercept + slope * x[n - 1];
  chapter_claim(ch, check, y[0] > 100.0 * small_bw_only && fabs(large_fit / y[n - 1] - 1.0) < 0.3,
                "bandwidth alone misses small AllGathers by orders of magnitude; the fit holds "
                "for large ones");
  return ab;
}

static void figure_alpha_beta(chapter *ch, const mesh_rows *sweep, const alpha_beta *ab) {
  static double xv[ROWS_MAX], yv[ROWS_MAX], xf[61], yf[61], yb[61];
  size_t n = 0;
  for (int i = 0; i < sweep->n; i++)
    if (strcmp(sweep->row[i].kind, "sweep") == 0) {
      xv[n] = sweep->row[i].bytes;
      yv[n++] = sweep->row[i].time_s;
    }
  if (n < 2 || !isfinite(ab->alpha_s)) return;
  chapter_logspace(xf, 61, xv[0], xv[n - 1]);
  for (int i = 0; i < 61; i++) {
    double sent = xf[i] * (ab->n - 1) / ab->n;
    yf[i] = (ab->n - 1) * ab->alpha_s + sent / ab->bytes_per_s;
    yb[i] = sent / ab->bytes_per_s;
  }
  scale_plot_series s[3] = {
      {.label = "measured (4 ranks)", .x = xv, .y = yv, .n = n, .dots = true},
      {.label = "alpha-beta fit", .x = xf, .y = yf, .n = 61},
      {.label = "bandwidth only (chapter 3)", .x = xf, .y = yb, .n = 61, .dashed = true}};
  scale_plot_marker mk = {.vertical = true, .at = ab->crossover_bytes * ab->n,
                          .label = "crossover"};
  scale_plot p = {.title = "AllGather on 4 ranks of the build machine",
                  .desc = "Measured AllGather time against the array size V, log-log, with the "
                          "fitted latency-bandwidth model and the bandwidth-only formula.",
                  .x_label = "V [bytes]", .y_label = "time [s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s, .n_series = 3, .markers = &mk, .n_markers = 1};
  chapter_figure(ch, "alpha-beta.svg", &p);
}

/* ---- collective matmul -------------------------------------------------------------------- */

static void section_cmatmul(chapter *ch, const mesh_rows *run) {
  chapter_heading(ch, "Collective matmul: A[I, J_Y] . B[J, K_Y]");
  const mesh_row *base = find_row(run, "cmatmul", "all-gather then matmul", NULL);
  const mesh_row *coll = find_row(run, "cmatmul", "collective matmul", NULL);
  if (!base || !coll) {
    chapter_error(ch, "mesh-run.tsv has no collective matmul rows");
    return;
  }
  chapter_value(ch, "cm.n", "ranks on Y", coll->n, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "cm.v_bytes", "A, gathered", coll->bytes, "B", SCALE_FMT_IEC);
  chapter_value(ch, "cm.sent", "bytes sent per rank, both ways", coll->sent, "B",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "cm.base_s", "AllGather, then matmul", base->time_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "cm.coll_s", "collective matmul", coll->time_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "cm.gain", "measured overlap gain", base->time_s / coll->time_s, "x",
                SCALE_FMT_PLAIN);
  chapter_claim(ch, true, base->sent == coll->sent,
                "collective matmul sends exactly the AllGather's bytes");
  /* The book's measurement (jax-stuff.md, 2x4 TPU mesh, B, D, F = 1024, 2048, 8192). */
  const double book_jit = 311e-6, book_coll = 244e-6, book_local = 224e-6;
  chapter_value(ch, "book.cm.jit_s", "book: jit with an AllGather", book_jit, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "book.cm.coll_s", "book: shard_map collective matmul", book_coll, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "book.cm.local_s", "book: no gather needed", book_local, "s", SCALE_FMT_TIME);
  chapter_value(ch, "book.cm.gain", "book: overlap gain", book_jit / book_coll, "x",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "book.cm.left_pct", "book: left over the local matmul",
                100.0 * (book_coll - book_local) / book_local, "%", SCALE_FMT_PLAIN);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {{"run", "scale-mesh --tsv output (default: the committed run)", ""},
                           {"sweep", "scale-mesh --run sweep --tsv output", ""},
                           {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "10-programming",
                         "Sharded programs executed across MPI ranks: cases, collectives, "
                         "alpha-beta, collective matmul.",
                         opts);
  if (rc >= 0) return rc;
  char run_path[4096], sweep_path[4096];
  snprintf(run_path, sizeof run_path, "%s", opts[0].value);
  snprintf(sweep_path, sizeof sweep_path, "%s", opts[1].value);
  if (!run_path[0])
    snprintf(run_path, sizeof run_path, "%s/chapters/10-programming/mesh-run.tsv",
             scale_data_dir());
  if (!sweep_path[0])
    snprintf(sweep_path, sizeof sweep_path, "%s/chapters/10-programming/mesh-sweep.tsv",
             scale_data_dir());
  static mesh_rows run, sweep;
  scale_chip v5e;
  if (!load_rows(&ch, run_path, &run) || !load_rows(&ch, sweep_path, &sweep) ||
      !chapter_load_chip(&ch, "tpu-v5e", &v5e))
    return chapter_end(&ch);
  section_cases(&ch, &run, &v5e);
  section_collectives(&ch, &run);
  alpha_beta ab = section_alpha_beta(&ch, &sweep, opts[1].value[0] == '\0');
  section_cmatmul(&ch, &run);
  figure_alpha_beta(&ch, &sweep, &ab);
  return chapter_end(&ch);
}
