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

START_TEST(roofline_committed) {
  static scale_measured m;
  char path[1024];
  data_path(path, sizeof path, "this-machine.ini");
  scale_diag diag = {0};
  ck_assert_msg(scale_measured_load(path, &m, &diag) == SCALE_OK, "%s", diag.message);
  scale_measured_roofline r;
  scale_measured_roofline_eval(&m, 2.0, &r);
  /* "; theory vector_bits=512 n_cpus=2 clock_hz=2.596138e+09", 2 FMA units: fp32 has 16 lanes,
   * 2 cores x 2 FMA x 16 lanes x 2 FLOPs = 128 FLOPs a cycle; fp64 and half-width fp32 64 */
  double hz = 2.596138e9;
  scale_check_rel(r.theory_fp32_flops_per_s, 128.0 * hz, EXACT, "FLOP/s", "2 x 2 x 16 x 2 x f");
  scale_check_rel(r.theory_fp64_flops_per_s, 64.0 * hz, EXACT, "FLOP/s", "8 lanes");
  scale_check_rel(r.theory_fp32_half_flops_per_s, 64.0 * hz, EXACT, "FLOP/s", "256-bit halves");
  /* L1: 2 cores x (2 loads + 1 store) x 64 bytes a cycle */
  scale_check_rel(r.l1_theory_bytes_per_s, 384.0 * hz, EXACT, "B/s", "2 x 3 x 64 x f");
  /* the file's summary lines: "; multi-thread ... fp32 1.13827e+11 fp64 5.5165e+10 triad
   * 2.34359e+10", "; single-thread ... fp64 5.53923e+10": one thread's fp64 is the best */
  scale_check_rel(r.peak_fp32_flops_per_s, 1.13827e11, EXACT, "FLOP/s", "the roof, [chip]");
  scale_check_rel(r.peak_fp32_all_flops_per_s, 1.13827e11, EXACT, "FLOP/s", "; multi-thread");
  scale_check_rel(r.peak_fp64_flops_per_s, 5.53923e10, EXACT, "FLOP/s", "; single-thread");
  scale_check_rel(r.peak_fp64_1t_flops_per_s, 5.53923e10, EXACT, "FLOP/s", "; single-thread");
  scale_check_rel(r.dram_bytes_per_s, 2.34359e10, EXACT, "B/s", "hbm_bytes_per_s");
  scale_check_rel(r.dram_all_bytes_per_s, 2.34359e10, EXACT, "B/s", "triad at 128 MiB");
  scale_check_rel(r.critical_fp32_flops_per_byte, 1.13827e11 / 2.34359e10, EXACT, "FLOP/byte",
                  "ch. 1: C / W");
  scale_check_rel(r.critical_fp64_flops_per_byte, 5.53923e10 / 2.34359e10, EXACT, "FLOP/byte",
                  "ch. 1: C / W");
  /* the first one-thread triad line: 16368 bytes at 4.36183e+10 B/s, the smallest set */
  scale_check_rel(r.ws_small_bytes, 16368, EXACT, "B", "the first triad line");
  scale_check_rel(r.l1_1t_bytes_per_s, 4.36183e10, EXACT, "B/s", "the first triad line");
  /* the ratios the chapter discusses, from the same summary lines: fp32 1.13827e+11 over
   * 128 f; one thread's fp32 1.13581e+11 against two threads' 1.13827e+11 */
  scale_check_rel(r.peak_fp32_frac, 1.13827e11 / (128.0 * hz), EXACT, "", "peak / theory");
  scale_check_rel(r.peak_fp64_frac, 5.53923e10 / (64.0 * hz), EXACT, "", "peak / theory");
  scale_check_rel(r.peak_fp32_half_frac, 1.13827e11 / (64.0 * hz), EXACT, "", "half width");
  scale_check_rel(r.thread_speedup, 1.13827e11 / 1.13581e11, EXACT, "", "two threads / one");
  scale_check_rel(r.critical_fp32_theory_flops_per_byte, 128.0 * hz / 2.34359e10, EXACT,
                  "FLOP/byte", "theory / DRAM");
  scale_check_rel(r.critical_fp32_l1_flops_per_byte * r.l1_bytes_per_s, 1.13827e11, EXACT,
                  "FLOP/s", "peak = intensity x L1 bandwidth");
  scale_check_rel(r.l1_frac * 384.0 * hz, r.l1_bytes_per_s, EXACT, "B/s", "l1 = frac x theory");
  /* the roof: below the critical intensity I W, above it the peak; at 1 FLOP/byte 2.34359e10
   * for both roofs, at 1e4 the measured 1.13827e+11 and the predicted 128 f */
  scale_check_rel(scale_measured_roof_flops_per_s(&r, false, 1.0), 2.34359e10, EXACT, "FLOP/s",
                  "I W");
  scale_check_rel(scale_measured_roof_flops_per_s(&r, true, 1.0), 2.34359e10, EXACT, "FLOP/s",
                  "I W");
  scale_check_rel(scale_measured_roof_flops_per_s(&r, false, 1e4), 1.13827e11, EXACT, "FLOP/s",
                  "the measured peak");
  scale_check_rel(scale_measured_roof_flops_per_s(&r, true, 1e4), 128.0 * hz, EXACT, "FLOP/s",
                  "the theoretical peak");
  scale_measured_roofline_eval(&m, 0.0, &r);
  scale_check_nan(r.theory_fp32_flops_per_s);
}
END_TEST

START_TEST(points_committed) {
  static scale_measured m;
  char path[1024];
  data_path(path, sizeof path, "this-machine.ini");
  scale_diag diag = {0};
  ck_assert_msg(scale_measured_load(path, &m, &diag) == SCALE_OK, "%s", diag.message);
  static double x[SCALE_MEASURED_POINTS_MAX], y[SCALE_MEASURED_POINTS_MAX];
  /* 14 "; point stream kernel=triad threads=1" lines, the first 16368 B at 4.36183e+10 B/s */
  ck_assert_uint_eq(scale_measured_stream_points(&m, SCALE_STREAM_TRIAD, 1, x, y), 14);
  scale_check_rel(x[0], 16368, EXACT, "B", "the first triad line");
  scale_check_rel(y[0], 4.36183e10, EXACT, "B/s", "the first triad line");
  ck_assert_uint_eq(scale_measured_stream_points(&m, SCALE_STREAM_TRIAD, 99, x, y), 0);
  /* 9 square fp64 GEMMs on 2 threads, from 32^3 at 5.3674e+10 FLOP/s */
  ck_assert_uint_eq(scale_measured_gemm_sizes(&m, true, 2, x, y), 9);
  scale_check_rel(x[0], 32, EXACT, "", "the first fp64 square");
  scale_check_rel(y[0], 5.3674e10, EXACT, "FLOP/s", "its rate");
  scale_check_rel(x[1], 64, EXACT, "", "the second, 64^3");
  /* the triad as a roofline point: 2 FLOPs over 3 doubles of 8 bytes, 1/12 FLOP/byte; the
   * first one-thread point 4.36183e+10 B/s / 12 */
  ck_assert_uint_eq(scale_measured_stream_roof_points(&m, SCALE_STREAM_TRIAD, 1, x, y), 14);
  scale_check_rel(x[0], 1.0 / 12.0, EXACT, "FLOP/byte", "2 / 24");
  scale_check_rel(y[0], 4.36183e10 / 12.0, EXACT, "FLOP/s", "bandwidth x intensity");
  /* "; theory ... l1d_bytes=32768 l2_bytes=1048576 llc_bytes=33554432" */
  double bytes[3];
  const char *names[3];
  ck_assert_int_eq(scale_measured_caches(&m, bytes, names), 3);
  scale_check_rel(bytes[0], 32768, EXACT, "B", "l1d_bytes");
  scale_check_rel(bytes[1], 1048576, EXACT, "B", "l2_bytes");
  scale_check_rel(bytes[2], 33554432, EXACT, "B", "llc_bytes");
  ck_assert_str_eq(names[2], "LLC");
  m.l2_bytes = NAN; /* a file that does not say */
  ck_assert_int_eq(scale_measured_caches(&m, bytes, names), 2);
  ck_assert_str_eq(names[1], "LLC");
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
                                    {"roofline_committed", roofline_committed},
                                    {"points_committed", points_committed},
                                    {"load_refuses", load_refuses},
                                    {"trace_committed", trace_committed}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
