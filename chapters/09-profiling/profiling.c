/* profiling.c — chapter 9, "How to Profile TPU Programs", as a program.
 *
 * The book profiles a TPU with JAX's profiler; this companion measures the machine that built
 * the book. It reads a measurement that `scale measure` wrote (by default the committed
 * chapters/09-profiling/this-machine.ini, so the book build is deterministic; --measured FILE
 * reads another, e.g. a fresh `scale measure --out FILE` of your own machine) and computes:
 *   - the machine's theoretical peak from its cores, clock, vector width and FMA units, and
 *     the measured GEMM peak and STREAM bandwidths as fractions of it;
 *   - the measured roofline: critical intensity from the measured peak and DRAM bandwidth, and
 *     every measured GEMM against the roof its intensity predicts;
 *   - the book chapter's own numbers: the 95.6 ms matmul and the 1.1 ms ReduceScatter against
 *     the roofline, Question 1's true shapes, and the padding of a tiled layout.
 * --figures DIR draws
 *   measured-roofline.svg   the predicted and the measured roof with every GEMM and triad point
 *   stream-bandwidth.svg    STREAM bandwidth against working set, with the cache sizes
 *   gemm-sizes.svg          GEMM FLOP/s against the size of square matrices
 *
 * Options: --measured FILE, --fma-units N (FMA units per core, which no operating system
 * reports: default 2, the x86 cores of the last decade).
 */
#include <math.h>
#include <stdio.h>

#include "chapter.h"
#include "scale/measure.h"
#include "scale/measured.h"

#define PTS SCALE_MEASURED_POINTS_MAX /* points of one kind a measurement holds */
#define V CHAPTER_V
#define VSI(key, label, v, unit) CHAPTER_VS(key, label, v, unit, SCALE_FMT_SI)

/* ---- the machine ----------------------------------------------------------------------------- */

/** The machine, its theoretical peaks and its measured GEMM peaks (r: its roofline). */
static void section_machine(chapter *ch, const scale_measured *m, double fma_units,
                            const scale_measured_roofline *r) {
  chapter_heading(ch, "The machine that built this book (measured by scale measure)");
  chapter_say(ch, "%s", m->chip.display_name);
  CHAPTER_VALUES(ch, "machine",
      V("n_cores", "cores (online CPUs)", m->n_cpus, ""),
      V("clock_hz", "clock the kernel reports", m->clock_hz, "Hz"),
      V("vector_bits", "widest vector instructions", m->vector_bits, "bit"),
      V("fma_units", "FMA units per core (assumed)", fma_units, ""),
      V("lanes_fp32", "fp32 lanes per vector", m->vector_bits / 32.0, ""),
      V("threads", "threads of the multi-thread runs", m->threads, ""),
      V("memory_bytes", "main memory", m->chip.hbm_bytes, "B"),
      {"l1d_bytes", "L1 data cache per core", m->chip.smem_bytes_per_core, "B", SCALE_FMT_IEC},
      {"llc_bytes", "last-level cache", m->chip.l2_bytes, "B", SCALE_FMT_IEC});

  chapter_heading(ch, "Theoretical peak against measured GEMM");
  double peak32 = r->peak_fp32_flops_per_s, peak64 = r->peak_fp64_flops_per_s;
  CHAPTER_VALUES(ch, "machine",
      VSI("theory_fp32", "theoretical fp32 peak", r->theory_fp32_flops_per_s, "FLOP/s"),
      VSI("theory_fp64", "theoretical fp64 peak", r->theory_fp64_flops_per_s, "FLOP/s"),
      {"theory_fp32_half", "fp32 peak issuing half-width", r->theory_fp32_half_flops_per_s,
       "FLOP/s", SCALE_FMT_SI},
      VSI("peak_fp32", "measured fp32 GEMM peak", peak32, "FLOP/s"),
      VSI("peak_fp64", "measured fp64 GEMM peak", peak64, "FLOP/s"),
      {"peak_fp32_all", "measured fp32 GEMM, all threads", r->peak_fp32_all_flops_per_s,
       "FLOP/s", SCALE_FMT_SI},
      VSI("peak_fp32_1t", "measured fp32 GEMM, one thread", r->peak_fp32_1t_flops_per_s, "FLOP/s"),
      VSI("peak_fp64_1t", "measured fp64 GEMM, one thread", r->peak_fp64_1t_flops_per_s, "FLOP/s"),
      V("peak_fp32_pct", "measured / theoretical, fp32", 100.0 * r->peak_fp32_frac, "%"),
      V("peak_fp64_pct", "measured / theoretical, fp64", 100.0 * r->peak_fp64_frac, "%"),
      V("peak_fp32_half_pct", "measured / half-width peak, fp32", 100.0 * r->peak_fp32_half_frac,
        "%"),
      V("thread_speedup", "fp32 peak, all threads / one", r->thread_speedup, "x"),
      V("fp64_over_fp32", "fp64 peak / fp32 peak", peak64 / peak32, ""));
}

/** The STREAM bandwidths and the measured roofline; 'check' the text's claims about them. */
static void section_bandwidth(chapter *ch, const scale_measured_roofline *r, bool check) {
  chapter_heading(ch, "Bandwidth: caches and main memory (STREAM triad)");
  double l1 = r->l1_bytes_per_s, l1_theory = r->l1_theory_bytes_per_s, dram = r->dram_bytes_per_s;
  CHAPTER_VALUES(ch, "machine",
      {"ws_small_bytes", "smallest working set", r->ws_small_bytes, "B", SCALE_FMT_IEC},
      {"ws_big_bytes", "largest working set", r->ws_big_bytes, "B", SCALE_FMT_IEC},
      V("l1_bw", "triad in L1, all threads", l1, "B/s"),
      V("l1_bw_1t", "triad in L1, one thread", r->l1_1t_bytes_per_s, "B/s"),
      V("l1_theory_bw", "L1 peak (2 loads + 1 store per cycle)", l1_theory, "B/s"),
      V("l1_pct", "triad in L1 / L1 peak", 100.0 * r->l1_frac, "%"),
      V("dram_bw", "triad in DRAM, best run", dram, "B/s"),
      V("dram_bw_all", "triad in DRAM, all threads", r->dram_all_bytes_per_s, "B/s"),
      V("dram_bw_1t", "triad in DRAM, one thread", r->dram_1t_bytes_per_s, "B/s"),
      V("dram_over_l1", "DRAM / L1 bandwidth", dram / l1, ""));

  chapter_heading(ch, "The measured roofline");
  double crit32 = r->critical_fp32_flops_per_byte, crit64 = r->critical_fp64_flops_per_byte;
  CHAPTER_VALUES(ch, "machine",
      V("critical_fp32", "critical intensity, fp32 from DRAM", crit32, "FLOP/byte"),
      V("critical_fp64", "critical intensity, fp64 from DRAM", crit64, "FLOP/byte"),
      V("critical_fp32_l1", "critical intensity, fp32 from L1",
        r->critical_fp32_l1_flops_per_byte, "FLOP/byte"),
      V("critical_fp32_theory", "theoretical peak / measured DRAM",
        r->critical_fp32_theory_flops_per_byte, "FLOP/byte"));
  chapter_claim(ch, true, crit32 > 1.0 && crit32 < 1e4,
                "the measured critical intensity lies between 1 and 10^4 FLOP/byte");
  /* What the text says of the committed measurement (not checked on another machine's). */
  chapter_claim(ch, check, r->peak_fp32_frac < 0.5 && r->peak_fp64_frac < 0.5,
                "the best GEMM falls well short of the theoretical peak");
  chapter_claim(ch, check, r->l1_frac < 0.3, "the triad reaches a small part of the L1 peak");
  chapter_claim(ch, check, dram < 0.5 * l1, "main memory is well below the L1 bandwidth");
  chapter_claim(ch, check, crit32 < 240.0, "this CPU's critical intensity is below a v5e's");
}

/* One row of the GEMM table: a shape at all threads, fp32. */
static void gemm_row(chapter *ch, const scale_measured *m, const scale_measured_roofline *r,
                     const char *stem, double mm, double nn, double kk) {
  const scale_measured_gemm *p = scale_measured_gemm_find(m, false, m->threads, mm, nn, kk);
  if (!p) {
    chapter_error(ch, "the measurement has no fp32 GEMM %gx%gx%g at %d threads", mm, nn, kk,
                  m->threads);
    return;
  }
  double roof = scale_measured_roof_flops_per_s(r, false, p->intensity_flops_per_byte);
  CHAPTER_VALUES(ch, stem,
      V("intensity", "intensity", p->intensity_flops_per_byte, "FLOP/byte"),
      VSI("flops_per_s", "measured", p->flops_per_s, "FLOP/s"),
      VSI("roof", "roof at that intensity", roof, "FLOP/s"),
      V("pct_of_roof", "measured / roof", 100.0 * p->flops_per_s / roof, "%"));
}

static void section_gemm(chapter *ch, const scale_measured *m, const scale_measured_roofline *r,
                         bool check) {
  chapter_heading(ch, "GEMM shapes (fp32, all threads) against the measured roof");
  const scale_measured_gemm *big = scale_measured_gemm_find(m, false, m->threads, 2048, 2048, 2048);
  if (big) {
    chapter_value(ch, "gemm.n2048.pct_of_peak", "2048^3 / measured peak",
                  100.0 * big->flops_per_s / r->peak_fp32_flops_per_s, "%", SCALE_FMT_PLAIN);
    chapter_claim(ch, check, big->flops_per_s < 0.9 * r->peak_fp32_flops_per_s,
                  "on the build machine the largest GEMM falls well short of the best one");
  }
  static const double shapes[][3] = {{64, 64, 64},     {256, 256, 256}, {1024, 1024, 1024},
                                     {2048, 2048, 2048}, {1, 2048, 2048}, {16, 2048, 2048},
                                     {256, 2048, 2048}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const double *d = shapes[i];
    char stem[32]; /* squares by their size n, skinny m x 2048 x 2048 by m */
    snprintf(stem, sizeof stem, d[0] == d[1] ? "gemm.n%.0f" : "gemm.m%.0f", d[0]);
    gemm_row(ch, m, r, stem, d[0], d[1], d[2]);
  }
}

/* ---- the book's profiling chapter ------------------------------------------------------------ */

static void section_book(chapter *ch, const scale_chip *v5e) {
  chapter_heading(ch, "The book's profile: a matmul on 8 TPU v2 cores");
  /* X bf16[32, 1024, 8192] . W_in bf16[8192, 32768]: B = 32 x 1024 tokens. */
  const int64_t b = 32 * 1024, d = 8192, f = 32768;
  const double core_rate = 23e12, n_cores = 8, measured_s = 96e-3;
  double flops = scale_measure_gemm_flops(b, f, d), rate = core_rate * n_cores;
  double t_math = scale_roofline_t_flops_s(flops, rate);
  CHAPTER_VALUES(ch, "book",
      {"mm.flops", "2BDF", flops, "FLOP", SCALE_FMT_SCI},
      V("mm.core_rate", "bf16 rate of one TPU v2 core", core_rate, "FLOP/s"),
      V("mm.rate", "8 cores", rate, "FLOP/s"),
      V("mm.expected_s", "expected (T_math)", t_math, "s"),
      V("mm.measured_s", "the profile shows", measured_s, "s"),
      V("mm.pct", "FLOPs utilisation",
        100.0 * scale_measure_achieved_frac(flops, measured_s, rate), "%"),
      /* per data-parallel shard (4-way DP, 2-way MP): [8 x 1024, 8192] . [8192, 16384] */
      V("mm.local_batch", "tokens per data-parallel shard", 8.0 * 1024, "tokens"),
      V("mm.local_intensity", "intensity of one core's matmul",
        scale_measure_gemm_intensity_flops_per_byte(8 * 1024, 16384, 8192, 2.0), "FLOP/byte"),
      V("mm.v5e_critical", "TPU v5e critical intensity, for scale",
        scale_chip_hbm_intensity(v5e, SCALE_DTYPE_BF16), "FLOP/byte"));
  chapter_claim(ch, true, fabs(t_math - 95.6e-3) < 0.05e-3, "the book's 95.6 ms");

  chapter_heading(ch, "The book's profile: a ReduceScatter on a TPU v2 4x2");
  /* bf16[8, 1024, 8192] per data-parallel shard; reduced and scattered over the 2-way model
   * axis: one hop, 1.2e11 bytes/s both ways (6e10 each way). */
  const double bidi = 1.2e11, rs_measured_s = 1.13e-3;
  double shard_bytes = 2.0 * 8 * 1024 * 8192;
  scale_group g = scale_group_ring(2, false, bidi / 2.0, 1e-6);
  scale_collective_cost cost = scale_collective_eval(&g, SCALE_COLL_REDUCE_SCATTER, shard_bytes);
  CHAPTER_VALUES(ch, "book",
      V("rs.bytes", "shard, SI", shard_bytes, "B"),
      {"rs.bytes_iec", "shard, binary", shard_bytes, "B", SCALE_FMT_IEC},
      V("rs.bidi", "W_ici both ways", bidi, "B/s"),
      V("rs.book_s", "book form V / W_bidi", cost.book_time_s, "s"),
      V("rs.precise_s", "precise (N-1)/N V / W on a line of 2", cost.time_s, "s"),
      V("rs.measured_s", "the profile shows", rs_measured_s, "s"),
      V("rs.pct", "of the roofline", 100.0 * cost.time_s / rs_measured_s, "%"),
      V("rs.over_mm_pct", "ReduceScatter / matmul time", 100.0 * rs_measured_s / measured_s, "%"));
}

/** Question 1 (true shapes from a replica group) and the padding of tiled layouts. */
static void section_shapes(chapter *ch) {
  chapter_heading(ch, "Question 1: true shapes from a replica group");
  /* Local W1 [4096, 8192]; the AllReduce's replica groups {0, 16, ..., 112} on 128 devices. */
  scale_mesh mesh;
  scale_sharding w;
  scale_diag diag = {0};
  double group = (112.0 - 0.0) / 16.0 + 1.0;
  scale_status st = scale_sharding_parse_array("{X:8, Y:16}", "W[F_X, D]", &mesh, &w, &diag);
  if (!chapter_status_ok(ch, st, &diag)) return;
  const double w_dims[2] = {32768, 8192};
  double local_f = scale_sharding_local_dim(&w, &mesh, w_dims, 0);
  CHAPTER_VALUES(ch, "q1",
      V("group", "devices in a replica group", group, ""),
      V("local_f", "local F of the profile", local_f, ""),
      V("true_f", "true F", 4096.0 * group, ""),
      {"w_bytes", "W in bf16, whole", 32768.0 * 8192 * 2, "B", SCALE_FMT_IEC},
      {"w_bytes_per_device", "W per device",
       scale_sharding_bytes_per_device(&w, &mesh, w_dims, SCALE_DTYPE_BF16), "B", SCALE_FMT_IEC},
      V("replication", "copies of each W element", scale_sharding_replication(&w, &mesh), ""));
  chapter_claim(ch, true, local_f == 4096.0,
                "Question 1's local 4096 follows from 32768 over 8 devices");

  chapter_heading(ch, "Reading a layout: padding of tiles");
  double padded = scale_measure_tiled_elements(3, 5, 2, 2);
  CHAPTER_VALUES(ch, "tile",
      V("book.padded", "f32[3,5] in T(2,2): elements", padded, ""),
      V("book.factor", "memory cost", padded / 15.0, "x"));
  double narrow = scale_measure_tiled_elements(8, 100, 8, 128);
  double wide = scale_measure_tiled_elements(8, 8192, 8, 128);
  CHAPTER_VALUES(ch, "tile", V("narrow.factor", "bf16[8,100] in T(8,128)", narrow / 800.0, "x"),
                 V("wide.factor", "bf16[8,8192] in T(8,128)", wide / 65536.0, "x"));
}

/* ---- a trace of the mesh executor ------------------------------------------------------------ */

static void section_trace(chapter *ch, const scale_trace *t) {
  chapter_heading(ch, "A trace of the mesh executor (4 ranks)");
  CHAPTER_VALUES(ch, "trace",
      V("ranks", "ranks (lanes)", t->n_ranks, ""),
      V("events", "complete events", t->n, ""),
      V("span_s", "from first to last event", scale_trace_end_s(t), "s"),
      V("rank0.collective_s", "rank 0 in collectives",
        scale_trace_total_s(t, 0, "collective"), "s"),
      V("rank0.compute_s", "rank 0 computing", scale_trace_total_s(t, 0, "compute"), "s"));
  const scale_trace_event *g = scale_trace_find(t, 0, "case2: all-gather A over X");
  const scale_trace_event *mm = scale_trace_find(t, 0, "case2: local matmul");
  if (!g || !mm) {
    chapter_error(ch, "the trace has no case 2 events on rank 0");
    return;
  }
  /* The same gather on every rank: they start together (a barrier) and end together (the ring
   * waits for its slowest member), so the spread of its durations is small. */
  CHAPTER_VALUES(ch, "trace.case2",
      V("gather_s", "case 2: all-gather of A", g->dur_s, "s"),
      {"gather_bytes", "bytes rank 0 sent in it", g->bytes, "B", SCALE_FMT_PLAIN},
      V("matmul_s", "case 2: local matmul", mm->dur_s, "s"),
      V("gather_spread", "slowest / fastest rank's gather", scale_trace_spread(t, g->name), "x"));
}

static void figure_trace(chapter *ch, const scale_trace *t) {
  static double x[3][3 * SCALE_TRACE_EVENTS_MAX], y[3][3 * SCALE_TRACE_EVENTS_MAX];
  static const char *cats[3] = {"collective", "compute", "check"};
  static const double lift[3] = {0.15, -0.15, 0.0};
  scale_plot_series s[3];
  for (int c = 0; c < 3; c++)
    s[c] = (scale_plot_series){.label = cats[c], .x = x[c], .y = y[c],
                               .n = scale_trace_lane(t, cats[c], lift[c], 1e3, x[c], y[c]),
                               .dashed = c == 2};
  scale_plot p = {.title = "A trace of scale-mesh on 4 ranks",
                  .desc = "Timeline of every phase on every rank: one lane per rank, collectives "
                          "drawn just above the lane, computation just below, checks on it.",
                  .x_label = "time since the start [ms]", .y_label = "rank",
                  .width_px = 760, .height_px = 320,
                  .y_min = -0.5, .y_max = t->n_ranks - 0.5,
                  .legend = SCALE_PLOT_LEGEND_TOP_RIGHT,
                  .series = s, .n_series = 3};
  chapter_figure(ch, "mesh-trace.svg", &p);
}

/* ---- figures --------------------------------------------------------------------------------- */

static void figure_roofline(chapter *ch, const scale_measured *m,
                            const scale_measured_roofline *r) {
  enum { N_ROOF = 121 };
  static double x[N_ROOF], y_meas[N_ROOF], y_theory[N_ROOF];
  static double sq_x[PTS], sq_y[PTS], sk_x[PTS], sk_y[PTS], tr_x[PTS], tr_y[PTS];
  chapter_logspace(x, N_ROOF, 0.01, 1e4);
  for (int i = 0; i < N_ROOF; i++) {
    y_meas[i] = scale_measured_roof_flops_per_s(r, false, x[i]);
    y_theory[i] = scale_measured_roof_flops_per_s(r, true, x[i]);
  }
  size_t n_sq = scale_measured_gemm_points(m, false, m->threads, true, sq_x, sq_y);
  size_t n_sk = scale_measured_gemm_points(m, false, m->threads, false, sk_x, sk_y);
  size_t n_tr = scale_measured_stream_roof_points(m, SCALE_STREAM_TRIAD, m->threads, tr_x, tr_y);
  scale_plot_series s[5] = {
      {.label = "predicted roof (theoretical peak)", .x = x, .y = y_theory, .n = N_ROOF,
       .dashed = true},
      {.label = "measured roof", .x = x, .y = y_meas, .n = N_ROOF},
      {.label = "square GEMMs", .x = sq_x, .y = sq_y, .n = n_sq, .dots = true},
      {.label = "skinny GEMMs (m x 2048 x 2048)", .x = sk_x, .y = sk_y, .n = n_sk, .dots = true},
      {.label = "STREAM triad (each working set)", .x = tr_x, .y = tr_y, .n = n_tr, .dots = true}};
  scale_plot_marker mk = {.vertical = true, .at = r->critical_fp32_flops_per_byte,
                          .label = "critical intensity"};
  scale_plot p = {.title = "The measured roofline of this machine (fp32, all threads)",
                  .desc = "Attainable FLOP/s against arithmetic intensity, log-log: the roof "
                          "predicted from the theoretical peak, the roof measured (GEMM peak and "
                          "DRAM triad bandwidth), and every measured GEMM and triad point.",
                  .x_label = "arithmetic intensity [FLOP/byte]", .y_label = "FLOP/s",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 480,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                  .series = s, .n_series = 5, .markers = &mk, .n_markers = 1};
  chapter_figure(ch, "measured-roofline.svg", &p);
}

static void figure_stream(chapter *ch, const scale_measured *m) {
  static double x[SCALE_STREAM_COUNT + 1][PTS], y[SCALE_STREAM_COUNT + 1][PTS];
  char labels[SCALE_STREAM_COUNT + 1][48];
  scale_plot_series s[SCALE_STREAM_COUNT + 1];
  /* every kernel on all threads, then the triad on one (unless all threads is one) */
  for (int k = 0; k <= SCALE_STREAM_COUNT; k++) {
    bool one = k == SCALE_STREAM_COUNT;
    scale_stream_kernel kernel = one ? SCALE_STREAM_TRIAD : (scale_stream_kernel)k;
    int threads = !one ? m->threads : m->threads > 1 ? 1 : -1; /* -1: no point, no series */
    size_t n = scale_measured_stream_points(m, kernel, threads, x[k], y[k]);
    snprintf(labels[k], sizeof labels[k], "%s, %d thread%s", scale_stream_kernel_name(kernel),
             one ? 1 : m->threads, one ? "" : "s");
    s[k] = (scale_plot_series){.label = labels[k], .x = x[k], .y = y[k], .n = n, .dots = true,
                               .dashed = one};
  }
  scale_plot_marker mk[3];
  double cache_bytes[3];
  const char *cache[3];
  int n_mk = scale_measured_caches(m, cache_bytes, cache);
  for (int i = 0; i < n_mk; i++)
    mk[i] = (scale_plot_marker){.vertical = true, .at = cache_bytes[i], .label = cache[i]};
  scale_plot p = {.title = "STREAM bandwidth against working set",
                  .desc = "Bytes per second of the copy, scale, add and triad kernels against "
                          "the bytes one pass touches, log-log, with the cache sizes marked.",
                  .x_label = "working set [bytes]", .y_label = "bandwidth [bytes/s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 440,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_LEFT,
                  .series = s, .n_series = SCALE_STREAM_COUNT + 1,
                  .markers = mk, .n_markers = (size_t)n_mk};
  chapter_figure(ch, "stream-bandwidth.svg", &p);
}

static void figure_gemm_sizes(chapter *ch, const scale_measured *m,
                              const scale_measured_roofline *r) {
  static double x[4][PTS], y[4][PTS];
  char labels[4][40];
  scale_plot_series s[4];
  for (int k = 0; k < 4; k++) { /* fp32 and fp64 (k >= 2), all threads and one (k odd) */
    int threads = k % 2 ? 1 : m->threads > 1 ? m->threads : -1; /* -1: no point, no series */
    size_t n = scale_measured_gemm_sizes(m, k >= 2, threads, x[k], y[k]);
    snprintf(labels[k], sizeof labels[k], "%s, %d thread%s", k >= 2 ? "fp64" : "fp32",
             k % 2 ? 1 : m->threads, k % 2 || m->threads == 1 ? "" : "s");
    s[k] = (scale_plot_series){.label = labels[k], .x = x[k], .y = y[k], .n = n, .dots = true,
                               .dashed = k % 2 == 1};
  }
  scale_plot_marker mk[2] = {{.at = r->theory_fp32_flops_per_s, .label = "fp32 theory"},
                             {.at = r->theory_fp64_flops_per_s, .label = "fp64 theory"}};
  scale_plot p = {.title = "Square GEMMs through OpenBLAS",
                  .desc = "FLOP/s of N x N x N GEMMs against N, log-log, fp32 and fp64, one "
                          "thread and all threads, with the theoretical peaks.",
                  .x_label = "N", .y_label = "FLOP/s",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                  .series = s, .n_series = 4, .markers = mk, .n_markers = 2};
  chapter_figure(ch, "gemm-sizes.svg", &p);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"measured", "a hardware file written by scale measure (default: the committed one)", ""},
      {"fma-units", "FMA units per core (no operating system reports it)", "2"},
      {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "09-profiling",
                         "How to profile: this machine's measured roofline, and the book's "
                         "profile against its roofline.",
                         opts);
  if (rc >= 0) return rc;
  double fma_units = chapter_option_number(&ch, &opts[1], SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER);
  bool committed = opts[0].value[0] == '\0'; /* the text describes the committed measurement */
  char path[4096];
  snprintf(path, sizeof path, "%s/chapters/09-profiling/this-machine.ini", scale_data_dir());
  static scale_measured m;
  scale_chip v5e;
  scale_diag diag = {0};
  scale_status st = scale_measured_load(committed ? path : opts[0].value, &m, &diag);
  if (ch.n_errors || !chapter_status_ok(&ch, st, &diag) || !chapter_load_chip(&ch, "tpu-v5e", &v5e))
    return chapter_end(&ch);

  static scale_trace tr;
  snprintf(path, sizeof path, "%s/chapters/09-profiling/mesh-trace.json", scale_data_dir());
  if (!chapter_status_ok(&ch, scale_trace_load(path, &tr, &diag), &diag)) return chapter_end(&ch);

  scale_measured_roofline r;
  scale_measured_roofline_eval(&m, fma_units, &r);
  section_machine(&ch, &m, fma_units, &r);
  section_bandwidth(&ch, &r, committed);
  section_gemm(&ch, &m, &r, committed);
  section_book(&ch, &v5e);
  section_shapes(&ch);
  section_trace(&ch, &tr);
  figure_trace(&ch, &tr);
  figure_roofline(&ch, &m, &r);
  figure_stream(&ch, &m);
  figure_gemm_sizes(&ch, &m, &r);
  return chapter_end(&ch);
}
