/* test_measured.c — measured.h: reading back the committed measurement of chapter 9
 * (chapters/09-profiling/this-machine.ini, written by `scale measure`) and the committed trace
 * of the mesh executor (mesh-trace.json), and refusing broken files.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/measured.h"
#include "scale_check.h"

#define EXACT 1e-12

static void data_path(char *buf, size_t size, const char *file) {
  snprintf(buf, size, "%s/chapters/09-profiling/%s", scale_data_dir(), file);
}

/* Copies 'from' to DIR/copy.ini in a fresh temporary folder, dropping lines that start with
 * 'drop' (NULL: none) and appending 'extra' (NULL: nothing); the folder into dir, the file's
 * path into buf. */
static void copy_with(const char *from, const char *drop, const char *extra, char *dir,
                      char *buf, size_t size) {
  scale_check_tmpdir(dir, size, "/tmp/scale-test-measured-XXXXXX");
  snprintf(buf, size, "%s/copy.ini", dir);
  FILE *in = fopen(from, "r"), *out = fopen(buf, "w");
  ck_assert(in && out);
  char line[1024];
  while (fgets(line, sizeof line, in))
    if (!drop || strncmp(line, drop, strlen(drop)) != 0) fputs(line, out);
  if (extra) fputs(extra, out);
  fclose(in);
  fclose(out);
}

START_TEST(load_committed) {
  static scale_measured m;
  char path[1024];
  data_path(path, sizeof path, "this-machine.ini");
  scale_diag diag = {0};
  ck_assert_msg(scale_measured_load(path, &m, &diag) == SCALE_OK, "%s", diag.message);
  /* the file's own lines: "; theory vector_bits=512 n_cpus=2 ...", "; multi-thread threads=2",
   * 72 "; point gemm" and 112 "; point stream" lines */
  scale_check_rel(m.vector_bits, 512, EXACT, "bit", "; theory vector_bits=512");
  scale_check_rel(m.n_cpus, 2, EXACT, "", "; theory n_cpus=2");
  scale_check_rel(m.l2_bytes, 1048576, EXACT, "B", "; theory l2_bytes=1048576");
  ck_assert_int_eq(m.threads, 2);
  ck_assert_int_eq(m.n_gemm, 72);
  ck_assert_int_eq(m.n_stream, 112);
  /* the first point: fp32 32^3 on one thread; intensity 2 n^3 / (3 n^2 4 B) = n / 6 */
  ck_assert(!m.gemm[0].fp64 && m.gemm[0].threads == 1);
  scale_check_rel(m.gemm[0].intensity_flops_per_byte, 32.0 / 6.0, EXACT, "FLOP/byte",
                  "2 n^3 / (12 n^2)");
  scale_check_rel(m.gemm[0].flops_per_s, 1.0224e11, EXACT, "FLOP/s", "the file's first point");
  const scale_measured_gemm *p = scale_measured_gemm_find(&m, false, 1, 32, 32, 32);
  ck_assert_ptr_eq(p, &m.gemm[0]);
  ck_assert_ptr_null(scale_measured_gemm_find(&m, false, 1, 33, 32, 32));
  /* the roofline points of one kind: fp32 single-thread squares start with the 32^3 point, and
   * the four kinds (square or not, at one and at all threads) share out the fp32 points */
  static double ai[SCALE_MEASURED_POINTS_MAX], fl[SCALE_MEASURED_POINTS_MAX];
  size_t n_sq1 = scale_measured_gemm_points(&m, false, 1, true, ai, fl);
  ck_assert(n_sq1 > 0);
  scale_check_rel(ai[0], 32.0 / 6.0, EXACT, "FLOP/byte", "the 32^3 point first");
  scale_check_rel(fl[0], 1.0224e11, EXACT, "FLOP/s", "its rate");
  size_t n_fp32 = 0, n_kinds = n_sq1;
  for (int i = 0; i < m.n_gemm; i++) n_fp32 += !m.gemm[i].fp64;
  n_kinds += scale_measured_gemm_points(&m, false, 1, false, ai, fl);
  n_kinds += scale_measured_gemm_points(&m, false, m.threads, true, ai, fl);
  n_kinds += scale_measured_gemm_points(&m, false, m.threads, false, ai, fl);
  ck_assert_uint_eq(n_kinds, n_fp32);
  /* the best rate is the largest of the matching points, checked by hand */
  double best = 0;
  for (int i = 0; i < m.n_gemm; i++)
    if (m.gemm[i].fp64 && m.gemm[i].threads == m.threads) best = fmax(best, m.gemm[i].flops_per_s);
  scale_check_rel(scale_measured_gemm_best(&m, true, m.threads), best, EXACT, "FLOP/s", "max");
  scale_check_nan(scale_measured_gemm_best(&m, true, 99));
  double ws_small, ws_big;
  double small = scale_measured_stream_at(&m, SCALE_STREAM_TRIAD, 1, true, &ws_small);
  double big = scale_measured_stream_at(&m, SCALE_STREAM_TRIAD, 1, false, &ws_big);
  ck_assert(ws_small < ws_big && small > 0 && big > 0);
  for (int i = 0; i < m.n_stream; i++)
    if (m.stream[i].kernel == SCALE_STREAM_TRIAD && m.stream[i].threads == 1)
      ck_assert(m.stream[i].working_set_bytes >= ws_small &&
                m.stream[i].working_set_bytes <= ws_big);
  scale_check_nan(scale_measured_stream_at(&m, SCALE_STREAM_TRIAD, 99, true, NULL));
}
END_TEST

START_TEST(load_refuses) {
  static scale_measured m;
  char path[1024], dir[1024], tmp[1024];
  data_path(path, sizeof path, "this-machine.ini");
  scale_diag diag = {0};
  /* a point line without its rate: a parse error at that line */
  copy_with(path, NULL, "; point gemm dtype=fp32 threads=1 m=8 n=8 k=8\n", dir, tmp, sizeof tmp);
  ck_assert_int_eq(scale_measured_load(tmp, &m, &diag), SCALE_ERR_PARSE);
  ck_assert_int_gt(diag.line, 0);
  ck_assert(strstr(diag.message, "malformed point line") != NULL);
  scale_check_rmdir(dir);
  /* without the "; theory" line */
  copy_with(path, "; theory ", NULL, dir, tmp, sizeof tmp);
  ck_assert_int_eq(scale_measured_load(tmp, &m, &diag), SCALE_ERR_MISSING_KEY);
  scale_check_rmdir(dir);
  ck_assert_int_ne(scale_measured_load("/nonexistent/measured.ini", &m, &diag), SCALE_OK);
}
END_TEST

START_TEST(trace_committed) {
  static scale_trace t;
  char path[1024];
  data_path(path, sizeof path, "mesh-trace.json");
  scale_diag diag = {0};
  ck_assert_msg(scale_trace_load(path, &t, &diag) == SCALE_OK, "%s", diag.message);
  /* 112 lines with "ph": "X" in the file, on 4 ranks (its "otherData": "ranks": 4) */
  ck_assert_int_eq(t.n, 112);
  ck_assert_int_eq(t.n_ranks, 4);
  const scale_trace_event *e = scale_trace_find(&t, 0, "case2: local matmul");
  ck_assert_ptr_nonnull(e);
  ck_assert(e->rank == 0 && strcmp(e->cat, "compute") == 0 && e->dur_s > 0 && e->dur_s < 1);
  ck_assert_ptr_null(scale_trace_find(&t, 7, "case2: local matmul"));
  /* Sums over the file's events (json.load of mesh-trace.json, microseconds): the last event
   * ends at 165730.351; rank 0 computes 4842.683 and spends 14032.49 in collectives; its
   * four ranks' "case2: all-gather A over X" take 488.295, 459.142, 4134.24 and 2288.749. */
  scale_check_rel(scale_trace_end_s(&t), 165730.351e-6, 1e-9, "s", "max ts + dur");
  scale_check_rel(scale_trace_total_s(&t, 0, "compute"), 4842.683e-6, 1e-9, "s", "rank 0");
  scale_check_rel(scale_trace_total_s(&t, 0, "collective"), 14032.49e-6, 1e-9, "s", "rank 0");
  scale_check_rel(scale_trace_total_s(&t, 9, "compute"), 0, 1e-12, "s", "no such rank");
  scale_check_rel(scale_trace_spread(&t, "case2: all-gather A over X"), 4134.24 / 459.142, 1e-9,
                  "", "slowest / fastest");
  scale_check_nan(scale_trace_spread(&t, "no such event"));
  /* rank 0's compute events drawn as lanes: three points each, the pieces summing to its
   * compute total (milliseconds), at height 0 - 0.15 */
  static double x[3 * SCALE_TRACE_EVENTS_MAX], y[3 * SCALE_TRACE_EVENTS_MAX];
  size_t k = scale_trace_lane(&t, "compute", -0.15, 1e3, x, y);
  ck_assert(k > 0 && k % 3 == 0);
  double rank0_ms = 0;
  for (size_t i = 0; i < k; i += 3) {
    ck_assert(isnan(x[i + 2]) && isnan(y[i + 2]) && y[i] == y[i + 1]);
    if (fabs(y[i] + 0.15) < 1e-12) rank0_ms += x[i + 1] - x[i];
  }
  scale_check_rel(rank0_ms, 4842.683e-3, 1e-9, "ms", "rank 0's compute, as above");
  ck_assert_uint_eq(scale_trace_lane(&t, "no such category", 0, 1, x, y), 0);
  ck_assert_int_eq(scale_trace_load("/nonexistent/trace.json", &t, &diag), SCALE_ERR_IO);
}
END_TEST

int main(void) {
  Suite *s = suite_create("measured");
  const scale_check_case cases[] = {{"load_committed", load_committed},
                                    {"load_refuses", load_refuses},
                                    {"trace_committed", trace_committed}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
