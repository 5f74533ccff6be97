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
