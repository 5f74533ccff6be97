/* schedule.h — pipeline schedules played out op by op: the timeline of every forward and
 * backward pass on every stage (chapter 5's Gantt charts).
 *
 * pipeline.h prices a schedule by closed forms (the bubble (p-1)/m, the microbatches in
 * flight). This module plays the schedule instead: each stage runs its passes in the order the
 * schedule gives, each pass starting when its stage is free and its input has arrived (a
 * forward needs the previous virtual stage's forward of the same microbatch, a backward the
 * next one's backward). The idle area of the result is the bubble, measured rather than
 * assumed; tests/lib/test_schedule.c holds it against the closed forms, and diagram.h draws it.
 *
 * Orders: GPipe runs every forward, then every backward. 1F1B (PipeDream-Flush) runs
 * min(p - s - 1, m) forwards on stage s, then alternates one forward and one backward, then
 * drains the backwards. Interleaved (Megatron-LM, Narayanan et al. 2021) does the same over
 * m v virtual microbatches with min(2 (p - s - 1) + (v - 1) p, m v) warm-up forwards; the k-th
 * forward of a stage runs chunk (k / p) mod v of microbatch (k / (p v)) p + k mod p, the k-th
 * backward the chunks in reverse, so it needs m to be a multiple of p as Megatron does.
 * Transfers between stages are free here: the timeline shows the schedule, not the network.
 *
 * Book: ch. 5 "Pipelining"; GPipe (Huang et al. 2019); PipeDream-Flush (Narayanan et al. 2019).
 */
#ifndef SCALE_SCHEDULE_H
#define SCALE_SCHEDULE_H

#include <stddef.h>

#include "scale/pipeline.h"
#include "scale/status.h"

/** Most passes a timeline may hold: 2 m v p <= this (bounds every loop the inputs control). */
#define SCALE_SCHEDULE_OPS_MAX 65536

/** The kind of one pass. */
typedef enum {
  SCALE_PP_FORWARD = 0,
  SCALE_PP_BACKWARD /**< the whole backward (input and weight gradients) */
} scale_pp_pass_kind;

/** One pass on one stage. */
typedef struct {
  int stage; /**< 0 .. p-1 */
  int micro; /**< microbatch 0 .. m-1 */
  int chunk; /**< virtual stage (chunk of layers) on this stage, 0 .. v-1 */
  scale_pp_pass_kind kind;
  double start_s; /**< when it starts [s] */
  double dur_s;   /**< how long it runs [s] */
} scale_pp_pass;

/** A played-out schedule. */
typedef struct {
  size_t n_passes;       /**< passes written */
  double makespan_s;     /**< first start to last end [s] */
  double busy_s;         /**< sum of every pass's duration over all stages [s] */
  double bubble_frac;    /**< idle area over busy area: (p makespan - busy) / busy [1] */
  double peak_in_flight; /**< most microbatches stage 0 holds activations for at once
                          * (forward chunks begun, not yet backed through, over v) [count] */
} scale_timeline;

/** Plays 'schedule' for p stages, m microbatches and v chunks per stage, where one
 * microbatch's forward through a whole stage takes t_fwd_s and its backward t_bwd_s (a chunk
 * takes 1/v of each). Writes every pass into passes[0..cap), in the order they were played
 * (passes may be NULL with cap 0 to measure only), and the totals into *out.
 *
 * Units:  p, m, v [count]; t_fwd_s, t_bwd_s [s].
 * Domain: 1 <= p, m, v; v = 1 unless interleaved; m a multiple of p when interleaved with p > 1;
 *         2 m v p <= SCALE_SCHEDULE_OPS_MAX; times finite and > 0.
 * Errors: SCALE_ERR_INVALID outside the domain, for a NULL out, or for a schedule this module
 *         does not play (zero-bubble: its weight-gradient split is not modelled here);
 *         SCALE_ERR_RANGE when cap is too small (*out still holds the totals).
 * Book:   ch. 5: 1F1B with p = 4, m = 8 idles (p - 1)/m = 3/8 of its busy time.
 */
scale_status scale_schedule_play(scale_pp_schedule schedule, int p, int m, int v, double t_fwd_s,
                                 double t_bwd_s, scale_pp_pass *passes, size_t cap,
                                 scale_timeline *out);

#endif
