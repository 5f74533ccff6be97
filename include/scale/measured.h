/* measured.h — reading back what `scale measure` and scale-mesh write (chapter 9).
 *
 * `scale measure --out FILE` writes a hardware record (loaded by scale_chip_load_file) and, in
 * comment lines the INI loader skips, what chapter 9 needs beyond it: "; theory ..." (vector
 * width, online CPUs, clock, caches), "; multi-thread threads=N ..." and one "; point gemm ..."
 * or "; point stream ..." line per measured point. This module parses those lines into a
 * fixed-size record and answers the chapter's queries over the points (the best GEMM rate, one
 * shape's point, STREAM bandwidth at the smallest or largest working set).
 *
 * It also reads the Chrome trace the mesh executor (scale-mesh) writes: one complete event a
 * line, each with its rank, start, duration and bytes sent.
 *
 * Book: ch. 9 "How to Profile TPU Programs" (the measured roofline of this machine; a trace).
 */
#ifndef SCALE_MEASURED_H
#define SCALE_MEASURED_H

#include <stdbool.h>
#include <stddef.h>

#include "scale/hardware.h"
#include "scale/measure.h"
#include "scale/status.h"

/** Points a measurement file holds at most, of each kind; more are ignored. */
#define SCALE_MEASURED_POINTS_MAX 512

/** One measured GEMM C[m,n] = A[m,k] . B[k,n]. */
typedef struct {
  bool fp64;                       /**< fp64 (else fp32) */
  int threads;                     /**< threads it ran on */
  double m, n, k;                  /**< the shape [count] */
  double intensity_flops_per_byte; /**< recomputed from the shape, not read from the file */
  double flops_per_s;              /**< the measured rate */
} scale_measured_gemm;

/** One measured STREAM kernel run. */
typedef struct {
  scale_stream_kernel kernel; /**< SCALE_STREAM_COUNT when the file names an unknown kernel */
  int threads;                /**< threads it ran on */
  double working_set_bytes;   /**< bytes of its arrays */
  double bytes_per_s;         /**< the measured bandwidth */
} scale_measured_stream;

/** A measurement file read back. */
typedef struct {
  scale_chip chip;     /**< the hardware record, through the strict loader */
  double vector_bits;  /**< widest vector instructions [bit] */
  double n_cpus;       /**< online CPUs [count] */
  double clock_hz;     /**< clock the kernel reports [Hz] */
  double l2_bytes;     /**< per-core L2 [bytes]; NaN when the file does not say */
  int threads;         /**< threads of the multi-thread runs */
  int n_gemm, n_stream; /**< points in gemm[] and stream[] */
  scale_measured_gemm gemm[SCALE_MEASURED_POINTS_MAX];       /**< the GEMM points, file order */
  scale_measured_stream stream[SCALE_MEASURED_POINTS_MAX];   /**< the STREAM points */
} scale_measured;

/** Reads the measurement file 'path' into *out.
 *
 * Errors: what scale_chip_load_file() reports; SCALE_ERR_IO when the file cannot be read;
 *         SCALE_ERR_PARSE with the line for a point line missing a field; SCALE_ERR_MISSING_KEY
 *         when the file has no GEMM or STREAM point, no "; multi-thread" or no "; theory" line.
 */
scale_status scale_measured_load(const char *path, scale_measured *out, scale_diag *diag);

/** The best measured GEMM rate of a dtype on 'threads' threads [FLOP/s]; NaN when none ran. */
double scale_measured_gemm_best(const scale_measured *m, bool fp64, int threads);

/** The GEMM point of shape m x n x k of a dtype on 'threads' threads, or NULL. */
const scale_measured_gemm *scale_measured_gemm_find(const scale_measured *m, bool fp64,
                                                    int threads, double mm, double n, double k);

/** STREAM bandwidth of 'kernel' on 'threads' threads at its smallest ('smallest') or largest
 * working set [bytes/s], that working set into *ws_bytes when non-NULL; NaN (both) when none
 * ran. */
double scale_measured_stream_at(const scale_measured *m, scale_stream_kernel kernel, int threads,
                                bool smallest, double *ws_bytes);

/** The machine's roofline as its measurement states it: the theoretical peaks its "; theory"
 * line implies, the best measured GEMMs and STREAM triads, and the critical intensities. */
typedef struct {
  double theory_fp32_flops_per_s;      /**< scale_measure_cpu_peak_flops_per_s(), fp32 lanes */
  double theory_fp64_flops_per_s;      /**< the same, fp64 lanes */
  double theory_fp32_half_flops_per_s; /**< fp32 at half the vector width (a core that issues
                                            its widest instructions as two halves) */
  double peak_fp32_flops_per_s;        /**< the file's roof: chip.flops_per_s[fp32] */
  double peak_fp64_flops_per_s;        /**< the best fp64 GEMM, all threads or one */
  double peak_fp32_all_flops_per_s;    /**< the best fp32 GEMM on m->threads threads */
  double peak_fp32_1t_flops_per_s;     /**< the best fp32 GEMM on one thread */
  double peak_fp64_1t_flops_per_s;     /**< the best fp64 GEMM on one thread */
  double ws_small_bytes, ws_big_bytes; /**< the triad's smallest and largest working set */
  double l1_bytes_per_s;               /**< triad at the smallest working set, m->threads */
  double l1_1t_bytes_per_s;            /**< the same on one thread */
  double l1_theory_bytes_per_s;        /**< two loads and one store of a full vector per cycle
                                            per core: n_cpus clock 3 vector_bits / 8 */
  double dram_bytes_per_s;             /**< the file's roof: chip.hbm_bytes_per_s */
  double dram_all_bytes_per_s;         /**< triad at the largest working set, m->threads */
  double dram_1t_bytes_per_s;          /**< the same on one thread */
  double critical_fp32_flops_per_byte; /**< peak_fp32 / dram */
  double critical_fp64_flops_per_byte; /**< peak_fp64 / dram */
  double critical_fp32_l1_flops_per_byte;     /**< peak_fp32 / l1: the roof inside L1 */
  double critical_fp32_theory_flops_per_byte; /**< theory_fp32 / dram: the roof as predicted */
  double peak_fp32_frac;      /**< peak_fp32 / theory_fp32: how much of the peak a GEMM reaches */
  double peak_fp64_frac;      /**< peak_fp64 / theory_fp64 */
  double peak_fp32_half_frac; /**< peak_fp32 / theory_fp32_half */
  double thread_speedup;      /**< peak_fp32_all / peak_fp32_1t [1] */
  double l1_frac;             /**< l1 / l1_theory: how much of the L1 peak the triad reaches */
} scale_measured_roofline;

/** Fills *out from measurement 'm' with 'fma_units' FMA units per core (no operating system
 * reports them).
 *
 * Units:  fma_units [count per core] -> the record's fields.
 * Domain: fma_units > 0; the theoretical fields are NaN otherwise, the measured ones NaN where
 *         no point ran (scale_measured_gemm_best, scale_measured_stream_at).
 * Book:   ch. 9 (this machine's measured roofline); ch. 1, critical intensity = C / W.
 */
void scale_measured_roofline_eval(const scale_measured *m, double fma_units,
                                  scale_measured_roofline *out);

/** The roof of 'r' at arithmetic intensity 'intensity': the measured one (the fp32 peak and the
 * DRAM triad), or with 'theory' the one the theoretical fp32 peak predicts
 * (scale_measure_roof_flops_per_s) [FLOP/s].
 *
 * Units:  intensity [FLOP/byte] -> [FLOP/s].
 * Domain: intensity >= 0; NaN otherwise or where the record has no such peak.
 * Book:   ch. 1, attainable FLOP/s = min(C, I W); ch. 9 on this machine.
 */
double scale_measured_roof_flops_per_s(const scale_measured_roofline *r, bool theory,
                                       double intensity);

/** Writes the STREAM points of 'kernel' on 'threads' threads in file order: ws_bytes[i] the
 * working set, bytes_per_s[i] the bandwidth (each array holds m->n_stream points at most).
 * Returns the points written.
 *
 * Units:  -> ws_bytes [bytes], bytes_per_s [bytes/s].
 * Book:   ch. 9, bandwidth against working set (the cache levels as steps).
 */
size_t scale_measured_stream_points(const scale_measured *m, scale_stream_kernel kernel,
                                    int threads, double *ws_bytes, double *bytes_per_s);

/** Writes the STREAM points of 'kernel' on 'threads' threads as roofline points, in file order:
 * intensity[i] the kernel's FLOPs over its bytes on the doubles `scale measure` runs it on
 * (SCALE_MEASURE_STREAM_ELEM_BYTES; the same for every point), flops_per_s[i] its bandwidth
 * times that intensity. Returns the points written.
 *
 * Units:  -> intensity [FLOP/byte], flops_per_s [FLOP/s].
 * Book:   ch. 9, a measured roofline: a memory-bound kernel sits on the sloped roof.
 */
size_t scale_measured_stream_roof_points(const scale_measured *m, scale_stream_kernel kernel,
                                         int threads, double *intensity, double *flops_per_s);

/** The cache levels measurement 'm' names, smallest first, into bytes[] and names[]: "L1d"
 * (per core, chip.smem_bytes_per_core), "L2" (per core, l2_bytes) and "LLC" (the last level,
 * chip.l2_bytes), as `scale measure` records a CPU; a level it does not know is left out.
 * Returns how many (0 to 3).
 *
 * Units:  -> bytes [bytes].
 * Book:   ch. 9, the steps of bandwidth against working set.
 */
int scale_measured_caches(const scale_measured *m, double bytes[3], const char *names[3]);

/** Writes the square (m = n = k) GEMM points of a dtype on 'threads' threads in file order:
 * n[i] the size, flops_per_s[i] the rate (each array holds m->n_gemm points at most). Returns
 * the points written.
 *
 * Units:  -> n [count], flops_per_s [FLOP/s].
 * Book:   ch. 9, GEMM rate against size (small matrices far from the peak).
 */
size_t scale_measured_gemm_sizes(const scale_measured *m, bool fp64, int threads, double *n,
                                 double *flops_per_s);

/* ---- traces of the mesh executor ------------------------------------------------------------ */

/** Events a trace holds at most; more are ignored. */
#define SCALE_TRACE_EVENTS_MAX 1024

/** One complete event ("ph": "X") of a Chrome trace that scale-mesh wrote. */
typedef struct {
  char name[48];    /**< "case2: local matmul" */
  char cat[16];     /**< "collective", "compute" */
  int rank;         /**< the lane ("tid") */
  double ts_s;      /**< start [s] (the file's microseconds converted) */
  double dur_s;     /**< duration [s] */
  double bytes;     /**< bytes the rank sent in it ("bytes_sent") */
} scale_trace_event;

/** A trace read back: its complete events in file order. */
typedef struct {
  int n;                                      /**< events in ev[] */
  int n_ranks;                                /**< 1 + the largest rank seen */
  scale_trace_event ev[SCALE_TRACE_EVENTS_MAX]; /**< the events */
} scale_trace;

/** Reads the complete events of the trace 'path' (one event a line, as scale-mesh writes them)
 * into *out; other lines are skipped.
 *
 * Errors: SCALE_ERR_IO when the file cannot be read; SCALE_ERR_MISSING_KEY when it holds no
 *         complete event.
 */
scale_status scale_trace_load(const char *path, scale_trace *out, scale_diag *diag);

/** The first event named 'name' on 'rank', or NULL. */
const scale_trace_event *scale_trace_find(const scale_trace *t, int rank, const char *name);

/** When the last event ends: the largest ts_s + dur_s [s]; 0 for an empty trace. */
double scale_trace_end_s(const scale_trace *t);

/** Total duration of the events of category 'cat' on 'rank' [s]; 0 when there are none. */
double scale_trace_total_s(const scale_trace *t, int rank, const char *cat);

/** Slowest over fastest rank's duration of the first event named 'name' on each rank that has
 * one [1]; NaN when no rank has it. For a collective it shows how long the first rank in
 * waited for the last. */
double scale_trace_spread(const scale_trace *t, const char *name);

/* ---- a trace drawn as lanes (ch. 9's timeline) ---------------------------------------------- */

/** Writes the events of category 'cat' as line pieces of a timeline: for each event in file
 * order three points into x[] and y[], its start, its end and a NaN that breaks the line, at
 * height rank + lift, with times multiplied by 'x_per_s' (1e3 draws milliseconds). x and y hold
 * 3 * t->n points at most. Returns the points written.
 *
 * Book:   ch. 9 "How to Profile TPU Programs" (the trace viewer's timeline).
 */
size_t scale_trace_lane(const scale_trace *t, const char *cat, double lift, double x_per_s,
                        double *x, double *y);

/** Writes the roofline points of m's GEMM runs in fp64 (else fp32) on 'threads' threads that are
 * square (m = n = k) or, with 'square' false, not: in file order, intensity[i] their arithmetic
 * intensity and flops_per_s[i] their measured rate (each array holds m->n_gemm points at most).
 * Returns the points written.
 *
 * Units:  -> intensity [FLOP/byte], flops_per_s [FLOP/s].
 * Book:   ch. 9, a measured roofline (ch. 1's plot with this machine's points).
 */
size_t scale_measured_gemm_points(const scale_measured *m, bool fp64, int threads, bool square,
                                  double *intensity, double *flops_per_s);

#endif
