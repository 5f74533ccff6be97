/* measured.c — reading back the hardware file `scale measure` writes (measured.h). */
#include "scale/measured.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the comment lines ---------------------------------------------------------------------- */

/* Reads " key=NUMBER" of 'line' into *out; false when absent or not a number. */
static bool field(const char *line, const char *key, double *out) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, " %s=", key);
  const char *p = strstr(line, pattern);
  if (!p) return false;
  char *end;
  *out = strtod(p + strlen(pattern), &end);
  return end != p + strlen(pattern);
}

/* Reads " key=WORD" of 'line' into out[size]; false when absent, empty or too long. */
static bool field_word(const char *line, const char *key, char *out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, " %s=", key);
  const char *p = strstr(line, pattern);
  if (!p) return false;
  p += strlen(pattern);
  size_t n = strcspn(p, " \n");
  if (n == 0 || n >= size) return false;
  memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

static bool gemm_line(const char *line, scale_measured_gemm *p) {
  char dtype[16];
  double threads;
  if (!field_word(line, "dtype", dtype, sizeof dtype) || !field(line, "threads", &threads) ||
      !field(line, "m", &p->m) || !field(line, "n", &p->n) || !field(line, "k", &p->k) ||
      !field(line, "flops_per_s", &p->flops_per_s))
    return false;
  p->fp64 = strcmp(dtype, "fp64") == 0;
  p->threads = (int)threads;
  /* The intensity is recomputed from the shape, not trusted from the file. */
  p->intensity_flops_per_byte = scale_measure_gemm_intensity_flops_per_byte(
      (int64_t)p->m, (int64_t)p->n, (int64_t)p->k, p->fp64 ? 8.0 : 4.0);
  return true;
}

static bool stream_line(const char *line, scale_measured_stream *p) {
  char kernel[16];
  double threads;
  if (!field_word(line, "kernel", kernel, sizeof kernel) || !field(line, "threads", &threads) ||
      !field(line, "working_set_bytes", &p->working_set_bytes) ||
      !field(line, "bytes_per_s", &p->bytes_per_s))
    return false;
  p->kernel = SCALE_STREAM_COUNT;
  for (int k = 0; k < SCALE_STREAM_COUNT; k++)
    if (strcmp(kernel, scale_stream_kernel_name((scale_stream_kernel)k)) == 0)
      p->kernel = (scale_stream_kernel)k;
  p->threads = (int)threads;
  return true;
}

/* Reads one comment line into *out; false for a malformed point line. */
static bool read_line(const char *line, scale_measured *out) {
  double v;
  if (strncmp(line, "; theory ", 9) == 0) {
    field(line, "vector_bits", &out->vector_bits);
    field(line, "n_cpus", &out->n_cpus);
    field(line, "clock_hz", &out->clock_hz);
    field(line, "l2_bytes", &out->l2_bytes);
  } else if (strncmp(line, "; multi-thread ", 15) == 0 && field(line, "threads", &v)) {
    out->threads = (int)v;
  } else if (strncmp(line, "; point gemm ", 13) == 0 && out->n_gemm < SCALE_MEASURED_POINTS_MAX) {
    if (!gemm_line(line, &out->gemm[out->n_gemm])) return false;
    out->n_gemm++;
  } else if (strncmp(line, "; point stream ", 15) == 0 &&
             out->n_stream < SCALE_MEASURED_POINTS_MAX) {
    if (!stream_line(line, &out->stream[out->n_stream])) return false;
    out->n_stream++;
  }
  return true;
}

/* ---- loading -------------------------------------------------------------------------------- */

scale_status scale_measured_load(const char *path, scale_measured *out, scale_diag *diag) {
  memset(out, 0, sizeof *out);
  out->vector_bits = out->n_cpus = out->clock_hz = out->l2_bytes = (double)NAN;
  scale_status st = scale_chip_load_file(path, &out->chip, diag);
  if (st != SCALE_OK) return st;
  FILE *f = fopen(path, "r");
  if (!f) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot read the file");
  char line[1024];
  for (int n = 1; fgets(line, sizeof line, f); n++)
    if (!read_line(line, out)) {
      fclose(f);
      return scale_diag_set(diag, SCALE_ERR_PARSE, path, n, "malformed point line: %.80s",
                            line);
    }
  fclose(f);
  if (out->n_gemm == 0 || out->n_stream == 0 || out->threads < 1 || isnan(out->vector_bits))
    return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                          "no measured points or no '; theory' line (write it with scale "
                          "measure)");
  return SCALE_OK;
}

/* ---- queries -------------------------------------------------------------------------------- */

double scale_measured_gemm_best(const scale_measured *m, bool fp64, int threads) {
  double best = (double)NAN;
  for (int i = 0; i < m->n_gemm; i++)
    if (m->gemm[i].fp64 == fp64 && m->gemm[i].threads == threads &&
        (isnan(best) || m->gemm[i].flops_per_s > best))
      best = m->gemm[i].flops_per_s;
  return best;
}

const scale_measured_gemm *scale_measured_gemm_find(const scale_measured *m, bool fp64,
                                                    int threads, double mm, double n, double k) {
  for (int i = 0; i < m->n_gemm; i++) {
    const scale_measured_gemm *p = &m->gemm[i];
    if (p->fp64 == fp64 && p->threads == threads && p->m == mm && p->n == n && p->k == k) return p;
  }
  return NULL;
}

double scale_measured_stream_at(const scale_measured *m, scale_stream_kernel kernel, int threads,
                                bool smallest, double *ws_bytes) {
  double best_ws = (double)NAN, bw = (double)NAN;
  for (int i = 0; i < m->n_stream; i++) {
    const scale_measured_stream *p = &m->stream[i];
    if (p->kernel != kernel || p->threads != threads) continue;
    if (isnan(best_ws) ||
        (smallest ? p->working_set_bytes < best_ws : p->working_set_bytes > best_ws)) {
      best_ws = p->working_set_bytes;
      bw = p->bytes_per_s;
    }
  }
  if (ws_bytes) *ws_bytes = best_ws;
  return bw;
}

void scale_measured_roofline_eval(const scale_measured *m, double fma_units,
                                  scale_measured_roofline *out) {
  scale_measured_roofline r;
  double cores = m->n_cpus, hz = m->clock_hz, bits = m->vector_bits;
  r.theory_fp32_flops_per_s = scale_measure_cpu_peak_flops_per_s(cores, hz, bits, fma_units, 4.0);
  r.theory_fp64_flops_per_s = scale_measure_cpu_peak_flops_per_s(cores, hz, bits, fma_units, 8.0);
  r.theory_fp32_half_flops_per_s =
      scale_measure_cpu_peak_flops_per_s(cores, hz, bits / 2.0, fma_units, 4.0);
  /* the roof is the file's: the best GEMM and the best DRAM triad of any run */
  r.peak_fp32_flops_per_s = m->chip.flops_per_s[SCALE_DTYPE_FP32];
  r.peak_fp64_1t_flops_per_s = scale_measured_gemm_best(m, true, 1);
  r.peak_fp64_flops_per_s = fmax(scale_measured_gemm_best(m, true, m->threads),
                                 r.peak_fp64_1t_flops_per_s);
  r.peak_fp32_all_flops_per_s = scale_measured_gemm_best(m, false, m->threads);
  r.peak_fp32_1t_flops_per_s = scale_measured_gemm_best(m, false, 1);
  const scale_stream_kernel triad = SCALE_STREAM_TRIAD;
  r.l1_bytes_per_s = scale_measured_stream_at(m, triad, m->threads, true, &r.ws_small_bytes);
  r.l1_1t_bytes_per_s = scale_measured_stream_at(m, triad, 1, true, NULL);
  r.l1_theory_bytes_per_s = cores * hz * 3.0 * bits / 8.0;
  r.dram_all_bytes_per_s = scale_measured_stream_at(m, triad, m->threads, false, &r.ws_big_bytes);
  r.dram_1t_bytes_per_s = scale_measured_stream_at(m, triad, 1, false, NULL);
  r.dram_bytes_per_s = m->chip.hbm_bytes_per_s;
  r.critical_fp32_flops_per_byte = r.peak_fp32_flops_per_s / r.dram_bytes_per_s;
  r.critical_fp64_flops_per_byte = r.peak_fp64_flops_per_s / r.dram_bytes_per_s;
  r.critical_fp32_l1_flops_per_byte = r.peak_fp32_flops_per_s / r.l1_bytes_per_s;
  r.critical_fp32_theory_flops_per_byte = r.theory_fp32_flops_per_s / r.dram_bytes_per_s;
  r.peak_fp32_frac = r.peak_fp32_flops_per_s / r.theory_fp32_flops_per_s;
  r.peak_fp64_frac = r.peak_fp64_flops_per_s / r.theory_fp64_flops_per_s;
  r.peak_fp32_half_frac = r.peak_fp32_flops_per_s / r.theory_fp32_half_flops_per_s;
  r.thread_speedup = r.peak_fp32_all_flops_per_s / r.peak_fp32_1t_flops_per_s;
  r.l1_frac = r.l1_bytes_per_s / r.l1_theory_bytes_per_s;
  *out = r;
}

double scale_measured_roof_flops_per_s(const scale_measured_roofline *r, bool theory,
                                       double intensity) {
  double peak = theory ? r->theory_fp32_flops_per_s : r->peak_fp32_flops_per_s;
  return scale_measure_roof_flops_per_s(peak, r->dram_bytes_per_s, intensity);
}

size_t scale_measured_stream_points(const scale_measured *m, scale_stream_kernel kernel,
                                    int threads, double *ws_bytes, double *bytes_per_s) {
  size_t k = 0;
  for (int i = 0; i < m->n_stream; i++) {
    const scale_measured_stream *p = &m->stream[i];
    if (p->kernel != kernel || p->threads != threads) continue;
    ws_bytes[k] = p->working_set_bytes;
    bytes_per_s[k++] = p->bytes_per_s;
  }
  return k;
}

size_t scale_measured_stream_roof_points(const scale_measured *m, scale_stream_kernel kernel,
                                         int threads, double *intensity, double *flops_per_s) {
  size_t n = scale_measured_stream_points(m, kernel, threads, intensity, flops_per_s);
  double ai = scale_stream_flops(kernel, 1) /
              scale_stream_bytes(kernel, 1, SCALE_MEASURE_STREAM_ELEM_BYTES);
  for (size_t i = 0; i < n; i++) {
    intensity[i] = ai;
    flops_per_s[i] *= ai;
  }
  return n;
}

int scale_measured_caches(const scale_measured *m, double bytes[3], const char *names[3]) {
  const double size[3] = {m->chip.smem_bytes_per_core, m->l2_bytes, m->chip.l2_bytes};
  static const char *const level[3] = {"L1d", "L2", "LLC"};
  int n = 0;
  for (int i = 0; i < 3; i++)
    if (size[i] > 0) { /* NaN or 0: the file does not say */
      bytes[n] = size[i];
      names[n++] = level[i];
    }
  return n;
}

size_t scale_measured_gemm_sizes(const scale_measured *m, bool fp64, int threads, double *n,
                                 double *flops_per_s) {
  size_t k = 0;
  for (int i = 0; i < m->n_gemm; i++) {
    const scale_measured_gemm *p = &m->gemm[i];
    if (p->fp64 != fp64 || p->threads != threads || !(p->m == p->n && p->n == p->k)) continue;
    n[k] = p->n;
    flops_per_s[k++] = p->flops_per_s;
  }
  return k;
}

/* ---- traces of the mesh executor ------------------------------------------------------------ */

scale_status scale_trace_load(const char *path, scale_trace *out, scale_diag *diag) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot read the trace");
  char line[512];
  while (fgets(line, sizeof line, f) && out->n < SCALE_TRACE_EVENTS_MAX) {
    scale_trace_event *e = &out->ev[out->n];
    if (sscanf(line,
               " {\"name\": \"%47[^\"]\", \"cat\": \"%15[^\"]\", \"ph\": \"X\", \"pid\": 0, "
               "\"tid\": %d, \"ts\": %lf, \"dur\": %lf, \"args\": {\"bytes_sent\": %lf}}",
               e->name, e->cat, &e->rank, &e->ts_s, &e->dur_s, &e->bytes) == 6) {
      e->ts_s *= 1e-6; /* Chrome traces count microseconds */
      e->dur_s *= 1e-6;
      if (e->rank + 1 > out->n_ranks) out->n_ranks = e->rank + 1;
      out->n++;
    }
  }
  fclose(f);
  if (out->n == 0) return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                                         "holds no complete events");
  return SCALE_OK;
}

const scale_trace_event *scale_trace_find(const scale_trace *t, int rank, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (t->ev[i].rank == rank && strcmp(t->ev[i].name, name) == 0) return &t->ev[i];
  return NULL;
}

double scale_trace_end_s(const scale_trace *t) {
  double end = 0;
  for (int i = 0; i < t->n; i++)
    if (t->ev[i].ts_s + t->ev[i].dur_s > end) end = t->ev[i].ts_s + t->ev[i].dur_s;
  return end;
}

double scale_trace_total_s(const scale_trace *t, int rank, const char *cat) {
  double total = 0;
  for (int i = 0; i < t->n; i++)
    if (t->ev[i].rank == rank && strcmp(t->ev[i].cat, cat) == 0) total += t->ev[i].dur_s;
  return total;
}

double scale_trace_spread(const scale_trace *t, const char *name) {
  double t_min = (double)INFINITY, t_max = 0;
  for (int r = 0; r < t->n_ranks; r++) {
    const scale_trace_event *e = scale_trace_find(t, r, name);
    if (!e) continue;
    t_min = fmin(t_min, e->dur_s);
    t_max = fmax(t_max, e->dur_s);
  }
  return isinf(t_min) ? (double)NAN : t_max / t_min;
}

/* ---- a trace drawn as lanes ------------------------------------------------------------------ */

size_t scale_trace_lane(const scale_trace *t, const char *cat, double lift, double x_per_s,
                        double *x, double *y) {
  size_t k = 0;
  for (int i = 0; i < t->n; i++) {
    const scale_trace_event *e = &t->ev[i];
    if (strcmp(e->cat, cat) != 0) continue;
    double level = e->rank + lift;
    x[k] = e->ts_s * x_per_s, y[k++] = level;
    x[k] = (e->ts_s + e->dur_s) * x_per_s, y[k++] = level;
    x[k] = (double)NAN, y[k++] = (double)NAN;
  }
  return k;
}

size_t scale_measured_gemm_points(const scale_measured *m, bool fp64, int threads, bool square,
                                  double *intensity, double *flops_per_s) {
  size_t k = 0;
  for (int i = 0; i < m->n_gemm; i++) {
    const scale_measured_gemm *p = &m->gemm[i];
    bool is_square = p->m == p->n && p->n == p->k;
    if (p->fp64 != fp64 || p->threads != threads || is_square != square) continue;
    intensity[k] = p->intensity_flops_per_byte;
    flops_per_s[k++] = p->flops_per_s;
  }
  return k;
}
