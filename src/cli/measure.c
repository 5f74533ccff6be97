/* measure.c — `scale measure`: this machine's roofline, measured, as a hardware file.
 *
 * Two sweeps, each with one thread and with every online CPU:
 *   - GEMM through OpenBLAS (cblas_sgemm, cblas_dgemm) over square shapes N x N x N and skinny
 *     ones m x N x N with small m, fp32 and fp64: FLOP/s against arithmetic intensity;
 *   - the four STREAM kernels (copy, scale, add, triad) on doubles against the working set,
 *     from a few KiB (L1) to well past the last-level cache (DRAM).
 * Each point is timed several times after a warm-up and the best repetition kept (a shared
 * machine only ever slows a kernel down). The GEMMs are checked: one element of C against a dot
 * product in double, so a BLAS that skips work cannot pass as fast.
 *
 * The result is a hardware file of hardware/NAME.ini's schema (kind, peak rates, memory, caches),
 * every value with the comment of where it comes from, followed by every measured point as a
 * comment line "; point gemm ..." / "; point stream ..." that chapter 9 reads back. Written to
 * --out FILE (and loaded back with the library's strict loader before the command says OK) or
 * to stdout. Progress goes to stderr, one line per point.
 *
 * BLAS linkage lives here, in the command, so libscale stays pure: the arithmetic of a
 * measurement (FLOPs, bytes, intensity, peaks) is include/scale/measure.h. Built without
 * OpenBLAS (SCALE_HAVE_OPENBLAS unset at configure time), the command says so and exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "scale/measure.h"

#ifdef SCALE_HAVE_OPENBLAS
#include <cblas.h>
#endif

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale measure [--quick] [--out FILE] [--json] [--threads N]\n\n"
          "Measures this machine's roofline: a GEMM sweep through OpenBLAS (square and skinny\n"
          "shapes, fp32 and fp64: FLOP/s against arithmetic intensity) and the STREAM kernels\n"
          "(copy, scale, add, triad) against working-set size (caches, then DRAM), with one\n"
          "thread and with every core. Writes a hardware file of hardware/*.ini's schema that\n"
          "every other command accepts (scale hw show FILE, scale roofline --hw FILE), with each\n"
          "measured point as a comment. Progress goes to stderr.\n\n"
          "  --quick      a short sweep (under 30 s on two cores)\n"
          "  --out FILE   write the hardware file to FILE (checked by loading it back);\n"
          "               without it the file goes to stdout\n"
          "  --json       print every point and the summary as JSON on stdout instead\n"
          "  --threads N  threads of the multi-thread runs (default: every online CPU)\n");
}

#ifdef SCALE_HAVE_OPENBLAS

/* ==== the machine, as the operating system reports it ========================================= */

typedef struct {
  char model[128];            /**< /proc/cpuinfo "model name", or "unknown CPU" */
  char arch[32];              /**< uname machine: x86_64, aarch64 */
  double n_cpus;              /**< online CPUs */
  double clock_hz;            /**< /proc/cpuinfo "cpu MHz" x 1e6, NaN if absent */
  double vector_bits;         /**< widest vector ISA in the flags (512, 256, 128), NaN if none */
  char vector_isa[16];        /**< its flag name: avx512f, avx2, avx, sse2, asimd */
  double mem_bytes;           /**< physical memory */
  double l1d_bytes;           /**< L1 data cache per core, NaN if unknown */
  double l2_bytes;            /**< L2 per core, NaN if unknown */
  double llc_bytes;           /**< largest cache (L3 if any), NaN if unknown */
} machine;

/* Whether the space-separated 'flags' contains the word 'flag'. */
static bool has_flag(const char *flags, const char *flag) {
  size_t n = strlen(flag);
  for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n) {
    bool starts = p == flags || p[-1] == ' ' || p[-1] == '\t';
    bool ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
    if (starts && ends) return true;
  }
  return false;
}

/* Reads a sysfs cache size such as "32K" or "32768K" into bytes; NaN if unreadable. */
static double read_cache_size(int index, int *level, char *type, size_t type_size) {
  char path[128], text[64];
  double bytes = (double)NAN;
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
  FILE *f = fopen(path, "r");
  if (!f) return (double)NAN;
  if (fgets(text, sizeof text, f)) {
    char *end;
    double v = strtod(text, &end);
    if (end != text && v > 0) bytes = v * (*end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : 1.0);
  }
  fclose(f);
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
  f = fopen(path, "r");
  *level = 0;
  if (f) {
    if (fscanf(f, "%d", level) != 1) *level = 0;
    fclose(f);
  }
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
  f = fopen(path, "r");
  type[0] = '\0';
  if (f) {
    if (fgets(type, (int)type_size, f)) type[strcspn(type, "\n")] = '\0';
    fclose(f);
  }
  return bytes;
}

static void probe_machine(machine *m) {
  memset(m, 0, sizeof *m);
  snprintf(m->model, sizeof m->model, "unknown CPU");
  snprintf(m->arch, sizeof m->arch, "unknown");
  m->clock_hz = m->vector_bits = m->l1d_bytes = m->l2_bytes = m->llc_bytes = (double)NAN;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  m->n_cpus = n > 0 ? (double)n : 1.0;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  m->mem_bytes = pages > 0 && page > 0 ? (double)pages * (double)page : (double)NAN;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[4096];
    bool have_model = false, have_mhz = false, have_flags = false;
    while (fgets(line, sizeof line, f)) {
      char *colon = strchr(line, ':');
      if (!colon) continue;
      char *value = colon + 1;
      while (*value == ' ' || *value == '\t') value++;
      value[strcspn(value, "\n")] = '\0';
      if (!have_model && strncmp(line, "model name", 10) == 0) {
        snprintf(m->model, sizeof m->model, "%s", value);
        have_model = true;
      } else if (!have_mhz && strncmp(line, "cpu MHz", 7) == 0) {
        double mhz = strtod(value, NULL);
        if (mhz > 0) m->clock_hz = mhz * 1e6;
        have_mhz = true;
      } else if (!have_flags && (strncmp(line, "flags", 5) == 0 ||
                                 strncmp(line, "Features", 8) == 0)) {
        static const struct {
          const char *flag;
          double bits;
        } isa[] = {{"avx512f", 512}, {"avx2", 256}, {"avx", 256}, {"sse2", 128}, {"asimd", 128}};
        for (size_t i = 0; i < sizeof isa / sizeof isa[0]; i++)
          if (has_flag(value, isa[i].flag)) {
            m->vector_bits = isa[i].bits;
            snprintf(m->vector_isa, sizeof m->vector_isa, "%s", isa[i].flag);
            break;
          }
        have_flags = true;
      }
    }
    fclose(f);
  }
  f = popen("uname -m 2>/dev/null", "r");
  if (f) {
    if (fgets(m->arch, sizeof m->arch, f)) m->arch[strcspn(m->arch, "\n")] = '\0';
    pclose(f);
  }
  for (int i = 0; i < 8; i++) {
    int level;
    char type[32];
    double bytes = read_cache_size(i, &level, type, sizeof type);
    if (isnan(bytes)) continue;
    if (level == 1 && strcmp(type, "Data") == 0) m->l1d_bytes = bytes;
    if (level == 2) m->l2_bytes = bytes;
    if (level >= 2 && (isnan(m->llc_bytes) || bytes > m->llc_bytes)) m->llc_bytes = bytes;
  }
}

/* ==== timing =================================================================================== */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/** How long to time each point: at least 'min_reps' repetitions and 'target_s' in all. */
typedef struct {
  double target_s;
  int min_reps;
  int max_reps;
} budget;

enum { REPS_MAX = 64 };

/* ==== GEMM ===================================================================================== */

typedef struct {
  bool fp64;
  int threads;
  int64_t m, n, k;
  double intensity_flops_per_byte;
  double flops_per_s;
  double time_s; /**< best repetition */
} gemm_point;

typedef struct {
  float *sa, *sb, *sc;
  double *da, *db, *dc;
} gemm_buffers;

static void gemm_run(const gemm_buffers *g, bool fp64, int64_t m, int64_t n, int64_t k) {
  if (fp64)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, g->da,
                (int)k, g->db, (int)n, 0.0, g->dc, (int)n);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, g->sa,
                (int)k, g->sb, (int)n, 0.0f, g->sc, (int)n);
}

/* Whether C[i][j] equals the dot product of row i of A and column j of B (in double). */
static bool gemm_check(const gemm_buffers *g, bool fp64, int64_t m, int64_t n, int64_t k) {
  int64_t i = m - 1, j = n / 2;
  double want = 0.0, got, mag = 0.0;
  for (int64_t l = 0; l < k; l++) {
    double a = fp64 ? g->da[i * k + l] : (double)g->sa[i * k + l];
    double b = fp64 ? g->db[l * n + j] : (double)g->sb[l * n + j];
    want += a * b;
    mag += fabs(a * b);
  }
  got = fp64 ? g->dc[i * n + j] : (double)g->sc[i * n + j];
  return fabs(got - want) <= (fp64 ? 1e-10 : 1e-4) * (mag > 0 ? mag : 1.0);
}

static bool gemm_measure(const gemm_buffers *g, const budget *b, gemm_point *p) {
  openblas_set_num_threads(p->threads);
  gemm_run(g, p->fp64, p->m, p->n, p->k); /* warm-up: threads, pages, caches */
  if (!gemm_check(g, p->fp64, p->m, p->n, p->k)) return false;
  double times[REPS_MAX], start = now_s();
  int reps = 0;
  while (reps < b->max_reps && (reps < b->min_reps || now_s() - start < b->target_s)) {
    double t0 = now_s();
    gemm_run(g, p->fp64, p->m, p->n, p->k);
    times[reps++] = now_s() - t0;
  }
  p->time_s = scale_measure_min_s(times, (size_t)reps);
  double elem = p->fp64 ? 8.0 : 4.0;
  p->intensity_flops_per_byte = scale_measure_gemm_intensity_flops_per_byte(p->m, p->n, p->k, elem);
  p->flops_per_s = scale_measure_gemm_flops(p->m, p->n, p->k) / p->time_s;
  return isfinite(p->flops_per_s) && p->flops_per_s > 0;
}

/* ==== STREAM =================================================================================== */

typedef struct {
  scale_stream_kernel kernel;
  int threads;
  double working_set_bytes; /**< bytes one pass touches (scale_stream_bytes) */
  double bytes_per_s;
  double time_s; /**< best time of one pass */
} stream_point;

/* The kernels, called through a volatile pointer so no pass can be merged with the next. */
static void k_copy(double *a, double *b, double *c, double s, int64_t n) {
  (void)b, (void)s;
  for (int64_t i = 0; i < n; i++) c[i] = a[i];
}
static void k_scale(double *a, double *b, double *c, double s, int64_t n) {
  (void)a;
  for (int64_t i = 0; i < n; i++) b[i] = s * c[i];
}
static void k_add(double *a, double *b, double *c, double s, int64_t n) {
  (void)s;
  for (int64_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}
static void k_triad(double *a, double *b, double *c, double s, int64_t n) {
  for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
typedef void (*stream_fn)(double *, double *, double *, double, int64_t);
static stream_fn volatile stream_fns[SCALE_STREAM_COUNT] = {k_copy, k_scale, k_add, k_triad};

typedef struct {
  double *a, *b, *c;         /**< this thread's slice */
  int64_t n;                 /**< elements in the slice */
  scale_stream_kernel kernel;
  int64_t passes;            /**< passes per batch */
  int batches;
  pthread_barrier_t *barrier;
  double *batch_times;       /**< thread 0 writes the batch times here */
  bool timer;                /**< whether this thread times */
} stream_job;

static void *stream_worker(void *arg) {
  stream_job *j = arg;
  stream_fn fn = stream_fns[j->kernel];
  for (int bi = 0; bi < j->batches; bi++) {
    pthread_barrier_wait(j->barrier);
    double t0 = now_s();
    for (int64_t p = 0; p < j->passes; p++) fn(j->a, j->b, j->c, 0.5 + 1e-3 * (double)(p & 7), j->n);
    pthread_barrier_wait(j->barrier);
    if (j->timer) j->batch_times[bi] = now_s() - t0;
  }
  return NULL;
}

/* Runs 'batches' batches of 'passes' passes of the kernel on 'threads' threads over n elements
 * of a, b, c; fills times[0..batches) with the time of each batch. */
static bool stream_batches(double *a, double *b, double *c, int64_t n, scale_stream_kernel kernel,
                           int threads, int64_t passes, int batches, double *times) {
  enum { THREADS_MAX = 256 };
  pthread_t tid[THREADS_MAX];
  stream_job jobs[THREADS_MAX];
  pthread_barrier_t barrier;
  if (threads < 1 || threads > THREADS_MAX) return false;
  if (pthread_barrier_init(&barrier, NULL, (unsigned)threads) != 0) return false;
  int64_t per = n / threads;
  bool ok = true;
  int started = 0;
  for (int t = 0; t < threads; t++) {
    int64_t lo = per * t, hi = t == threads - 1 ? n : lo + per;
    jobs[t] = (stream_job){a + lo, b + lo, c + lo, hi - lo, kernel, passes, batches, &barrier,
                           times, t == 0};
    if (t == 0) continue;
    if (pthread_create(&tid[t], NULL, stream_worker, &jobs[t]) != 0) {
      ok = false;
      break;
    }
    started++;
  }
  if (!ok) {
    /* Threads already started wait at the barrier forever: nothing safe to do but exit. */
    fprintf(stderr, "scale: measure: cannot start a thread\n");
    exit(CLI_EXIT_FAIL);
  }
  stream_worker(&jobs[0]);
  for (int t = 1; t <= started; t++) pthread_join(tid[t], NULL);
  pthread_barrier_destroy(&barrier);
  return true;
}

static bool stream_measure(double *a, double *b, double *c, int64_t n, const budget *bud,
                           stream_point *p) {
  double bytes = scale_stream_bytes(p->kernel, n, SCALE_MEASURE_STREAM_ELEM_BYTES);
  /* One batch lasts about a millisecond or a pass, whichever is longer (a barrier costs
   * microseconds); estimate with a 10 GB/s guess, then correct after one timed batch. */
  int64_t passes = (int64_t)ceil(1e-3 * 1e10 / bytes);
  if (passes < 1) passes = 1;
  double t1;
  if (!stream_batches(a, b, c, n, p->kernel, p->threads, passes, 1, &t1)) return false;
  double t_pass = t1 > 0 ? t1 / (double)passes : 1e-3;
  passes = (int64_t)ceil(1e-3 / t_pass);
  if (passes < 1) passes = 1;
  double per_batch = (double)passes * t_pass; /* about a millisecond, or one long pass */
  int batches = (int)ceil(bud->target_s / per_batch);
  if (batches < bud->min_reps) batches = bud->min_reps;
  if (batches > REPS_MAX) batches = REPS_MAX;
  double times[REPS_MAX];
  if (!stream_batches(a, b, c, n, p->kernel, p->threads, passes, batches, times)) return false;
  p->time_s = scale_measure_min_s(times, (size_t)batches) / (double)passes;
  p->working_set_bytes = bytes;
  p->bytes_per_s = bytes / p->time_s;
  return isfinite(p->bytes_per_s) && p->bytes_per_s > 0;
}

/* ==== the whole measurement ==================================================================== */

enum { GEMM_POINTS_MAX = 128, STREAM_POINTS_MAX = 256 };

typedef struct {
  machine m;
  int threads;          /**< threads of the multi-thread runs */
  bool quick;
  char config[256];     /**< openblas_get_config() */
  char corename[64];    /**< openblas_get_corename() */
  char when[32];        /**< UTC date and time */
  int n_gemm, n_stream;
  gemm_point gemm[GEMM_POINTS_MAX];
  stream_point stream[STREAM_POINTS_MAX];
  double wall_s;        /**< how long the sweep took */
} measurement;

/* Best GEMM rate of a dtype on 'threads' threads (0: any), NaN if none, and its point. On a
 * shared machine the best repetition of any run is the fairest evidence of what it can do. */
static double gemm_best(const measurement *r, bool fp64, int threads, const gemm_point **which) {
  double best = (double)NAN;
  for (int i = 0; i < r->n_gemm; i++) {
    const gemm_point *p = &r->gemm[i];
    if (p->fp64 != fp64 || (threads && p->threads != threads)) continue;
    if (isnan(best) || p->flops_per_s > best) {
      best = p->flops_per_s;
      if (which) *which = p;
    }
  }
  return best;
}

/* Bandwidth of 'kernel' on 'threads' threads (0: the best of any) at the largest working set
 * (DRAM), NaN if none, and its point. */
static double stream_dram(const measurement *r, scale_stream_kernel kernel, int threads,
                          const stream_point **which) {
  double ws = -1, bw = (double)NAN;
  for (int i = 0; i < r->n_stream; i++) {
    const stream_point *p = &r->stream[i];
    if (p->kernel != kernel || (threads && p->threads != threads)) continue;
    if (p->working_set_bytes < ws) continue;
    if (p->working_set_bytes == ws && !(p->bytes_per_s > bw)) continue;
    ws = p->working_set_bytes;
    bw = p->bytes_per_s;
    if (which) *which = p;
  }
  return bw;
}

static void progress(int i, int total, const char *what, double value, const char *unit) {
  char buf[64];
  fprintf(stderr, "measure: [%d/%d] %-40s %s\n", i, total, what,
          scale_format(buf, sizeof buf, value, unit, SCALE_FMT_SI));
  fflush(stderr);
}

/* What the sweeps measure: thread counts, GEMM sizes and STREAM working sets, and the count of
 * points done for the progress lines. */
typedef struct {
  int thread_counts[2], n_counts; /* 1 and --threads (once when equal) */
  const int64_t *square, *skinny; /* square GEMMs m = n = k; skinny ones m x nk x nk */
  int n_square, n_skinny;
  int64_t skinny_nk, max_dim;     /* the skinny GEMMs' n = k; the largest dimension */
  double ws_list[64], ws_max;     /* STREAM working sets [B], up to ws_max */
  int n_ws;
  int total, done;                /* points to measure; measured */
} sweep_plan;

static void plan_sweeps(const measurement *r, sweep_plan *s) {
  const bool q = r->quick;
  static const int64_t square_quick[] = {64, 128, 256, 512, 1024};
  static const int64_t square_full[] = {32, 64, 128, 256, 512, 768, 1024, 1536, 2048};
  static const int64_t skinny_quick[] = {1, 8, 64};
  static const int64_t skinny_full[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  s->square = q ? square_quick : square_full;
  s->skinny = q ? skinny_quick : skinny_full;
  s->n_square = q ? 5 : 9;
  s->n_skinny = q ? 3 : 9;
  s->skinny_nk = q ? 1024 : 2048;
  s->max_dim = q ? 1024 : 2048;
  s->thread_counts[0] = 1;
  s->thread_counts[1] = r->threads;
  s->n_counts = r->threads > 1 ? 2 : 1;

  /* Working sets of the STREAM sweep: 16 KiB to past four times the last-level cache. */
  double llc = isnan(r->m.llc_bytes) ? 32.0 * 1048576.0 : r->m.llc_bytes;
  /* Four times the last-level cache (twice with --quick, but at least 160 MiB), within 1 GiB
   * and a quarter of the memory: past every cache on all but the largest-cache machines. */
  const double mib = 1048576.0;
  double ws_max = (q ? 2.0 : 4.0) * llc;
  if (ws_max < (q ? 160.0 : 64.0) * mib) ws_max = (q ? 160.0 : 64.0) * mib;
  if (ws_max > 1024.0 * mib) ws_max = 1024.0 * mib;
  if (r->m.mem_bytes > 0 && ws_max > r->m.mem_bytes / 4.0) ws_max = r->m.mem_bytes / 4.0;
  s->ws_max = ws_max;
  s->n_ws = 0;
  for (double ws = 16384.0; ws <= ws_max && s->n_ws < 63; ws *= q ? 4.0 : 2.0)
    s->ws_list[s->n_ws++] = ws;
  if (s->n_ws == 0 || s->ws_list[s->n_ws - 1] < ws_max) s->ws_list[s->n_ws++] = ws_max;

  s->total = s->n_counts * 2 * (s->n_square + s->n_skinny) +
             s->n_counts * SCALE_STREAM_COUNT * s->n_ws;
  s->done = 0;
}

static void gemm_buffers_free(gemm_buffers *g) {
  free(g->sa), free(g->sb), free(g->sc), free(g->da), free(g->db), free(g->dc);
}

/* Every GEMM of the plan, fp32 and fp64, at each thread count: 0 or a failure reported. */
static int gemm_sweep(measurement *r, sweep_plan *s) {
  const budget gemm_budget = {r->quick ? 0.03 : 0.2, 3, REPS_MAX};
  gemm_buffers g;
  size_t elems = (size_t)s->max_dim * (size_t)s->max_dim;
  g.sa = malloc(elems * sizeof(float));
  g.sb = malloc(elems * sizeof(float));
  g.sc = malloc(elems * sizeof(float));
  g.da = malloc(elems * sizeof(double));
  g.db = malloc(elems * sizeof(double));
  g.dc = malloc(elems * sizeof(double));
  if (!g.sa || !g.sb || !g.sc || !g.da || !g.db || !g.dc) {
    gemm_buffers_free(&g);
    return cli_fail("measure: out of memory for the GEMM buffers");
  }
  uint32_t seed = 12345u;
  for (size_t i = 0; i < elems; i++) {
    seed = seed * 1664525u + 1013904223u;
    double v = (double)(seed >> 8) / 16777216.0 - 0.5;
    g.sa[i] = g.sb[i] = (float)v;
    g.da[i] = g.db[i] = v;
  }
  for (int tc = 0; tc < s->n_counts; tc++)
    for (int dt = 0; dt < 2; dt++)
      for (int k = 0; k < s->n_square + s->n_skinny; k++) {
        gemm_point *p = &r->gemm[r->n_gemm];
        p->fp64 = dt == 1;
        p->threads = s->thread_counts[tc];
        p->m = k < s->n_square ? s->square[k] : s->skinny[k - s->n_square];
        p->n = p->k = k < s->n_square ? s->square[k] : s->skinny_nk;
        if (!gemm_measure(&g, &gemm_budget, p)) {
          gemm_buffers_free(&g);
          return cli_fail("measure: %s GEMM %lldx%lldx%lld gave a wrong result or no time",
                          p->fp64 ? "fp64" : "fp32", (long long)p->m, (long long)p->n,
                          (long long)p->k);
        }
        r->n_gemm++;
        char what[96];
        snprintf(what, sizeof what, "gemm %s %d thread%s %lldx%lldx%lld", p->fp64 ? "fp64" : "fp32",
                 p->threads, p->threads > 1 ? "s" : "", (long long)p->m, (long long)p->n,
                 (long long)p->k);
        progress(++s->done, s->total, what, p->flops_per_s, "FLOP/s");
      }
  gemm_buffers_free(&g);
  return CLI_EXIT_OK;
}

/* Every STREAM kernel at every working set and thread count: 0 or a failure reported. Three
 * arrays of the largest size; smaller working sets use their prefixes. */
static int stream_sweep(measurement *r, sweep_plan *s) {
  const budget stream_budget = {r->quick ? 0.02 : 0.15, 3, REPS_MAX};
  int64_t n_max = (int64_t)(s->ws_max / 24.0) + 64;
  double *a = malloc((size_t)n_max * sizeof *a);
  double *b = malloc((size_t)n_max * sizeof *b);
  double *c = malloc((size_t)n_max * sizeof *c);
  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return cli_fail("measure: out of memory for the STREAM arrays");
  }
  for (int64_t i = 0; i < n_max; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
  for (int tc = 0; tc < s->n_counts; tc++)
    for (int w = 0; w < s->n_ws; w++)
      for (int kk = 0; kk < SCALE_STREAM_COUNT; kk++) {
        stream_point *p = &r->stream[r->n_stream];
        p->kernel = (scale_stream_kernel)kk;
        p->threads = s->thread_counts[tc];
        double per_elem = scale_stream_bytes(p->kernel, 1, SCALE_MEASURE_STREAM_ELEM_BYTES);
        int64_t n = (int64_t)(s->ws_list[w] / per_elem);
        if (n < 64 * p->threads) n = 64 * p->threads;
        if (n > n_max) n = n_max;
        if (!stream_measure(a, b, c, n, &stream_budget, p)) {
          free(a), free(b), free(c);
          return cli_fail("measure: the STREAM %s kernel could not be timed",
                          scale_stream_kernel_name(p->kernel));
        }
        r->n_stream++;
        char what[96], ws[32];
        snprintf(what, sizeof what, "stream %s %d thread%s %s", scale_stream_kernel_name(p->kernel),
                 p->threads, p->threads > 1 ? "s" : "",
                 scale_format(ws, sizeof ws, p->working_set_bytes, "B", SCALE_FMT_IEC));
        progress(++s->done, s->total, what, p->bytes_per_s, "B/s");
      }
  /* Every array must hold finite numbers: the passes were real arithmetic. */
  bool finite = isfinite(a[0]) && isfinite(b[n_max / 2]) && isfinite(c[n_max - 1]);
  free(a), free(b), free(c);
  if (!finite) return cli_fail("measure: the STREAM arrays hold non-finite values");
  return CLI_EXIT_OK;
}

static int run_sweeps(measurement *r) {
  sweep_plan s;
  plan_sweeps(r, &s);
  int rc = gemm_sweep(r, &s);
  return rc ? rc : stream_sweep(r, &s);
}

/* ==== output =================================================================================== */

/* The file's head: what measured it, the machine, and the theory and single- and
 * multi-thread figures the chapter reads from its comments. */
static void write_hardware_head(FILE *out, const measurement *r) {
  const machine *m = &r->m;
  double f32 = gemm_best(r, false, r->threads, NULL), f64 = gemm_best(r, true, r->threads, NULL);
  double f32_1 = gemm_best(r, false, 1, NULL), f64_1 = gemm_best(r, true, 1, NULL);
  double bw = stream_dram(r, SCALE_STREAM_TRIAD, r->threads, NULL);
  double bw_1 = stream_dram(r, SCALE_STREAM_TRIAD, 1, NULL);
  fprintf(out, "; %s, measured by `scale measure%s` (scale %s) on %s.\n", m->model,
          r->quick ? " --quick" : "", SCALE_VERSION_STRING, r->when);
  fprintf(out, "; Machine as the operating system reports it: %s, %g online CPUs, widest vector "
               "ISA %s (%g bits),\n; cpu MHz %.1f; OpenBLAS %s (core %s). The sweep took %.1f s.\n",
          m->arch, m->n_cpus, m->vector_isa[0] ? m->vector_isa : "none", m->vector_bits,
          m->clock_hz / 1e6, r->config, r->corename, r->wall_s);
  fprintf(out, ";\n; A CPU is neither a TPU nor a GPU, and the loader knows only those two kinds; "
               "it is recorded\n; as kind = gpu, its cores in n_cores, its L1d per core in "
               "smem_bytes_per_core and its\n; last-level cache in l2_bytes. 'HBM' here is main "
               "memory (DRAM).\n");
  fprintf(out, "; theory vector_bits=%g n_cpus=%g clock_hz=%.7g l1d_bytes=%.0f l2_bytes=%.0f "
               "llc_bytes=%.0f\n",
          m->vector_bits, m->n_cpus, m->clock_hz, m->l1d_bytes, m->l2_bytes, m->llc_bytes);
  fprintf(out, "; single-thread fp32_flops_per_s=%.6g fp64_flops_per_s=%.6g triad_bytes_per_s=%.6g\n",
          f32_1, f64_1, bw_1);
  fprintf(out, "; multi-thread threads=%d fp32_flops_per_s=%.6g fp64_flops_per_s=%.6g "
               "triad_bytes_per_s=%.6g\n",
          r->threads, f32, f64, bw);
}

/* The [chip] section: the best rates of the sweep and the machine's sizes, each with its
 * source. */
static void write_hardware_chip(FILE *out, const measurement *r) {
  const machine *m = &r->m;
  const gemm_point *g32 = NULL;
  const stream_point *dram = NULL;
  double f32_best = gemm_best(r, false, 0, &g32);
  double bw_best = stream_dram(r, SCALE_STREAM_TRIAD, 0, &dram);
  fprintf(out, "\n[chip]\nkind = gpu\n");
  char name[SCALE_NAME_MAX];
  snprintf(name, sizeof name, "%.48s (measured)", m->model);
  fprintf(out, "display_name = %s\n", name);
  if (g32)
    fprintf(out, "; measured: best cblas_sgemm of the sweep (%d thread%s, %lldx%lldx%lld)\n",
            g32->threads, g32->threads > 1 ? "s" : "", (long long)g32->m, (long long)g32->n,
            (long long)g32->k);
  fprintf(out, "fp32_flops_per_s = %.6g\n", f32_best);
  fprintf(out, "; not a bf16 rate: the key is required and this CPU's BLAS has no bf16 GEMM, so "
               "it holds the\n; measured fp32 rate (hardware/nvidia-v100.ini does the same with "
               "fp16)\n");
  fprintf(out, "bf16_flops_per_s = %.6g\n", f32_best);
  if (!isnan(m->clock_hz)) {
    fprintf(out, "; /proc/cpuinfo \"cpu MHz\" of the first CPU (the clock the kernel reports, "
                 "not a boost clock)\n");
    fprintf(out, "clock_hz = %.7g\n", m->clock_hz);
  }
  fprintf(out, "; online CPUs (sysconf _SC_NPROCESSORS_ONLN)\nn_cores = %g\n", m->n_cpus);
  fprintf(out, "; physical memory (sysconf _SC_PHYS_PAGES x _SC_PAGESIZE)\n");
  fprintf(out, "hbm_bytes = %.6g\n", m->mem_bytes);
  if (dram) {
    char ws[32];
    fprintf(out, "; measured: best STREAM triad at the largest working set, %s (past every "
                 "cache; %d thread%s)\n",
            scale_format(ws, sizeof ws, dram->working_set_bytes, "B", SCALE_FMT_IEC),
            dram->threads, dram->threads > 1 ? "s" : "");
  }
  fprintf(out, "hbm_bytes_per_s = %.6g\n", bw_best);
  if (!isnan(m->l1d_bytes))
    fprintf(out, "; sysfs cpu0/cache: level-1 data cache per core\nsmem_bytes_per_core = %.0f\n",
            m->l1d_bytes);
  if (!isnan(m->llc_bytes))
    fprintf(out, "; sysfs cpu0/cache: the last-level cache\nl2_bytes = %.0f\n", m->llc_bytes);

}

/* Every measured point as a comment line (read by chapters/09-profiling). */
static void write_hardware_points(FILE *out, const measurement *r) {
  fprintf(out, "\n; ---- every measured point (read by chapters/09-profiling) ----\n");
  for (int i = 0; i < r->n_gemm; i++) {
    const gemm_point *p = &r->gemm[i];
    fprintf(out, "; point gemm dtype=%s threads=%d m=%lld n=%lld k=%lld "
                 "intensity_flops_per_byte=%.6g flops_per_s=%.6g time_s=%.6g\n",
            p->fp64 ? "fp64" : "fp32", p->threads, (long long)p->m, (long long)p->n,
            (long long)p->k, p->intensity_flops_per_byte, p->flops_per_s, p->time_s);
  }
  for (int i = 0; i < r->n_stream; i++) {
    const stream_point *p = &r->stream[i];
    fprintf(out, "; point stream kernel=%s threads=%d working_set_bytes=%.6g bytes_per_s=%.6g "
                 "time_s=%.6g\n",
            scale_stream_kernel_name(p->kernel), p->threads, p->working_set_bytes, p->bytes_per_s,
            p->time_s);
  }
}

static void write_hardware_file(FILE *out, const measurement *r) {
  write_hardware_head(out, r);
  write_hardware_chip(out, r);
  write_hardware_points(out, r);
}

static void write_json(FILE *out, const measurement *r) {
  cli_json j;
  cli_json_init(&j, out);
  cli_json_object_begin(&j, NULL);
  cli_json_object_begin(&j, "machine");
  cli_json_string(&j, "model", r->m.model);
  cli_json_string(&j, "arch", r->m.arch);
  cli_json_number(&j, "n_cpus", r->m.n_cpus);
  cli_json_number(&j, "clock_hz", r->m.clock_hz);
  cli_json_number(&j, "vector_bits", r->m.vector_bits);
  cli_json_number(&j, "memory_bytes", r->m.mem_bytes);
  cli_json_number(&j, "l1d_bytes", r->m.l1d_bytes);
  cli_json_number(&j, "l2_bytes", r->m.l2_bytes);
  cli_json_number(&j, "llc_bytes", r->m.llc_bytes);
  cli_json_string(&j, "openblas_config", r->config);
  cli_json_string(&j, "measured_utc", r->when);
  cli_json_bool(&j, "quick", r->quick);
  cli_json_number(&j, "threads", r->threads);
  cli_json_number(&j, "wall_s", r->wall_s);
  cli_json_object_end(&j);
  cli_json_object_begin(&j, "summary");
  cli_json_number(&j, "fp32_flops_per_s", gemm_best(r, false, 0, NULL));
  cli_json_number(&j, "fp64_flops_per_s", gemm_best(r, true, 0, NULL));
  cli_json_number(&j, "fp32_flops_per_s_all_threads", gemm_best(r, false, r->threads, NULL));
  cli_json_number(&j, "fp64_flops_per_s_all_threads", gemm_best(r, true, r->threads, NULL));
  cli_json_number(&j, "fp32_flops_per_s_one_thread", gemm_best(r, false, 1, NULL));
  cli_json_number(&j, "fp64_flops_per_s_one_thread", gemm_best(r, true, 1, NULL));
  cli_json_number(&j, "dram_bytes_per_s", stream_dram(r, SCALE_STREAM_TRIAD, 0, NULL));
  cli_json_number(&j, "dram_bytes_per_s_all_threads",
                  stream_dram(r, SCALE_STREAM_TRIAD, r->threads, NULL));
  cli_json_number(&j, "dram_bytes_per_s_one_thread", stream_dram(r, SCALE_STREAM_TRIAD, 1, NULL));
  cli_json_object_end(&j);
  cli_json_array_begin(&j, "gemm");
  for (int i = 0; i < r->n_gemm; i++) {
    const gemm_point *p = &r->gemm[i];
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "dtype", p->fp64 ? "fp64" : "fp32");
    cli_json_number(&j, "threads", p->threads);
    cli_json_number(&j, "m", (double)p->m);
    cli_json_number(&j, "n", (double)p->n);
    cli_json_number(&j, "k", (double)p->k);
    cli_json_number(&j, "intensity_flops_per_byte", p->intensity_flops_per_byte);
    cli_json_number(&j, "flops_per_s", p->flops_per_s);
    cli_json_number(&j, "time_s", p->time_s);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  cli_json_array_begin(&j, "stream");
  for (int i = 0; i < r->n_stream; i++) {
    const stream_point *p = &r->stream[i];
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "kernel", scale_stream_kernel_name(p->kernel));
    cli_json_number(&j, "threads", p->threads);
    cli_json_number(&j, "working_set_bytes", p->working_set_bytes);
    cli_json_number(&j, "bytes_per_s", p->bytes_per_s);
    cli_json_number(&j, "time_s", p->time_s);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

/* The measurement itself, once the options are known. */
static int measure_run(bool quick, const char *out_path, bool json, double threads) {
  static measurement r; /* large: keep it off the stack */
  memset(&r, 0, sizeof r);
  r.quick = quick;
  /* Open the output first: a path that cannot be written fails now, not after the sweep. */
  FILE *out_file = NULL;
  if (out_path && !(out_file = fopen(out_path, "w")))
    return cli_fail("measure: cannot write '%s': %s", out_path, strerror(errno));

  probe_machine(&r.m);
  r.threads = threads > 0 ? (int)threads : (int)r.m.n_cpus;
  snprintf(r.config, sizeof r.config, "%s", openblas_get_config());
  snprintf(r.corename, sizeof r.corename, "%s", openblas_get_corename());
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(r.when, sizeof r.when, "%Y-%m-%d %H:%M UTC", &tm);
  fprintf(stderr, "measure: %s, %g CPUs, %d thread%s for the multi-thread runs%s\n", r.m.model,
          r.m.n_cpus, r.threads, r.threads > 1 ? "s" : "", r.quick ? " (quick)" : "");

  double start = now_s();
  int rc = run_sweeps(&r);
  if (rc != CLI_EXIT_OK) {
    if (out_file) fclose(out_file), remove(out_path);
    return rc;
  }
  r.wall_s = now_s() - start;

  if (out_file) {
    write_hardware_file(out_file, &r);
    if (ferror(out_file) | fclose(out_file))
      return cli_fail("measure: cannot write '%s': %s", out_path, strerror(errno));
    scale_chip chip;
    scale_diag diag;
    memset(&diag, 0, sizeof diag);
    if (scale_chip_load_file(out_path, &chip, &diag) != SCALE_OK) {
      cli_print_diag(&diag);
      return CLI_EXIT_FAIL;
    }
    fprintf(stderr, "measure: wrote %s (loads as hardware: scale hw show %s)\n", out_path,
            out_path);
  }
  if (json)
    write_json(stdout, &r);
  else if (!out_path)
    write_hardware_file(stdout, &r);
  else {
    printf("%s (measured in %.1f s)\n", r.m.model, r.wall_s);
    cli_row("GEMM fp32 peak (best)", gemm_best(&r, false, 0, NULL), "FLOP/s", SCALE_FMT_SI);
    cli_row("GEMM fp32 peak, all threads", gemm_best(&r, false, r.threads, NULL), "FLOP/s",
            SCALE_FMT_SI);
    cli_row("GEMM fp32 peak, one thread", gemm_best(&r, false, 1, NULL), "FLOP/s", SCALE_FMT_SI);
    cli_row("GEMM fp64 peak (best)", gemm_best(&r, true, 0, NULL), "FLOP/s", SCALE_FMT_SI);
    cli_row("DRAM triad (best)", stream_dram(&r, SCALE_STREAM_TRIAD, 0, NULL), "B/s",
            SCALE_FMT_SI);
    cli_row("DRAM triad, all threads", stream_dram(&r, SCALE_STREAM_TRIAD, r.threads, NULL), "B/s",
            SCALE_FMT_SI);
    cli_row("DRAM triad, one thread", stream_dram(&r, SCALE_STREAM_TRIAD, 1, NULL), "B/s",
            SCALE_FMT_SI);
  }
  return CLI_EXIT_OK;
}

#endif

int cli_cmd_measure(int argc, char **argv) {
  enum { OPT_QUICK = 256, OPT_OUT, OPT_JSON, OPT_THREADS };
  static const struct option options[] = {{"quick", no_argument, NULL, OPT_QUICK},
                                          {"out", required_argument, NULL, OPT_OUT},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"threads", required_argument, NULL, OPT_THREADS},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  bool quick = false;
  const char *out_path = NULL;
  bool json = false;
  double threads = 0;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_QUICK: quick = true; break;
    case OPT_OUT: out_path = optarg; break;
    case OPT_JSON: json = true; break;
    case OPT_THREADS:
      if (!cli_parse_number("threads", optarg, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &threads))
        return CLI_EXIT_USAGE;
      if (threads > 256) return cli_usage("--threads: at most 256, got %s", optarg);
      break;
    case 'h': usage(stdout); return CLI_EXIT_OK;
    default: return cli_bad_option("measure", argv);
    }
  }
  if (optind < argc) return cli_usage("measure: unexpected argument '%s'", argv[optind]);
  if (out_path && !out_path[0]) return cli_usage("--out: empty file name");

#ifdef SCALE_HAVE_OPENBLAS
  return measure_run(quick, out_path, json, threads);
#else
  (void)quick, (void)json, (void)threads;
  return cli_fail("measure: this scale was built without OpenBLAS (install libopenblas-dev "
                  "and configure again)");
#endif
}
