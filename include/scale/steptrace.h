/* steptrace.h — the timeline of one predicted training step, stream by stream: the compute
 * stream's ops and, on a row per communication (TP, CP, FSDP, EP, PP, DP), the part the
 * step model hides under compute and the part it leaves exposed on the critical path.
 *
 * Built from a scale_step_result alone, by the step model's own composition (step.c):
 *   step = m (ops + exposed TP, CP, FSDP, EP and PP of a microbatch) + bubble
 *          + exposed DP + optimizer + overhead, raised to the scale-out NICs' busy time or
 *          the host's floor where those are longer, plus a Mamba-2 pipeline's stage latency.
 * Each microbatch is laid out as its ops in the order step.h names them, then its exposed
 * communications one after another; a communication's hidden part starts with the
 * microbatch it overlaps; the DP gradient traffic's hidden part ends with the last
 * microbatch (its buckets run under that backward). The step model prices busy time per op
 * and does not order ops within a microbatch, so the order inside one is a drawing choice;
 * the totals per stream and the end of the step are the model's. Microbatches past the
 * first SCALE_STEP_TRACE_DETAIL are drawn as one block per stream (their sum).
 *
 * Two renderers: Chrome trace-event JSON (Perfetto, chrome://tracing) and the book's
 * timeline chart (diagram.h's scale_diagram_timeline, the renderer of the pipeline Gantt
 * charts and the serving timeline).
 */
#ifndef SCALE_STEPTRACE_H
#define SCALE_STEPTRACE_H

#include <stddef.h>
#include <stdio.h>

#include "scale/status.h"
#include "scale/step.h"

/** Microbatches drawn one by one; the rest are one block per stream. */
#define SCALE_STEP_TRACE_DETAIL 16
/** Rows: compute, then one per communication (1 + scale_step_comm). */
#define SCALE_STEP_TRACE_ROWS (1 + SCALE_STEP_COMM_COUNT)
/** Events a trace can hold (every detailed microbatch's ops and communications, and the rest). */
#define SCALE_STEP_TRACE_MAX                                                                       \
  ((SCALE_STEP_TRACE_DETAIL + 1) * (SCALE_STEP_OP_COUNT + 2 * SCALE_STEP_COMM_COUNT + 1) + 16)

/** What an event is. */
typedef enum {
  SCALE_TRACE_OP = 0,   /**< an op of step.h on the compute row ('op' says which) */
  SCALE_TRACE_COMPUTE,  /**< compute step.h does not name (a Mamba-2 layer's) */
  SCALE_TRACE_HIDDEN,   /**< a communication's part under compute */
  SCALE_TRACE_EXPOSED,  /**< a communication's part on the critical path */
  SCALE_TRACE_BUBBLE,   /**< the pipeline's idle time (compute row) */
  SCALE_TRACE_OVERHEAD, /**< the fixed per-step cost */
  SCALE_TRACE_FLOOR,    /**< waiting on the scale-out NICs' or the host's floor */
  SCALE_TRACE_STAGES,   /**< a Mamba-2 pipeline's stage latency */
  SCALE_TRACE_KIND_COUNT
} scale_step_trace_kind;

/** One span of one stream. */
typedef struct {
  int row;                    /**< 0 compute, 1 + comm for a communication */
  scale_step_trace_kind kind;
  int op;                     /**< the op (SCALE_TRACE_OP), else -1 */
  int micro_first, micro_last; /**< microbatches it covers (0-based), -1 for none */
  double start_s, dur_s;      /**< [s], from the step's start */
} scale_step_trace_event;

/** A built trace. */
typedef struct {
  scale_step_trace_event events[SCALE_STEP_TRACE_MAX];
  size_t n_events;
  double end_s;                        /**< the step's end: the result's step_s [s] */
  double microbatches;                 /**< m */
  const char *row_names[SCALE_STEP_TRACE_ROWS]; /**< "compute", "tp (scale-up)", ... */
  char row_text[SCALE_STEP_TRACE_ROWS][32];
  bool row_used[SCALE_STEP_TRACE_ROWS];
} scale_step_trace;

/** Builds the trace of 'r' into *out (caller storage, about 60 kB; nothing allocated).
 * Errors: SCALE_ERR_INVALID for a NULL argument, a step whose times are not finite and >= 0,
 *         fewer than one microbatch, or more than 1e9. */
scale_status scale_step_trace_build(const scale_step_result *r, scale_step_trace *out,
                                    scale_diag *diag);

/** Writes 'trace' as Chrome trace-event JSON (one process titled 'title', a thread per used
 * row; "X" events in microseconds with args microbatch, exposed; otherData holding the step
 * time and the layout note). Errors: SCALE_ERR_IO when the write fails. */
scale_status scale_step_trace_json(const scale_step_trace *trace, const char *title, FILE *fp,
                                   scale_diag *diag);

/** Draws 'trace' as a timeline chart (scale_diagram_timeline), rows the used streams, ops in
 * one colour, hidden and exposed communication apart, idle hatched. Errors: as the renderer. */
scale_status scale_step_trace_svg(const scale_step_trace *trace, const char *title, char *buf,
                                  size_t size, size_t *len, scale_diag *diag);

#endif
