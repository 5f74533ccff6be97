/* pipeline.h — pipeline schedules and their formulas: bubble, microbatches in flight, layers
 * per stage (chapters 5, 13).
 *
 * A pipeline of p stages runs m microbatches per step; an interleaved schedule gives each
 * stage v virtual stages (chunks of layers), which divides the bubble by v at the cost of v
 * times the sends. Everything here is a pure function of (schedule, p, m, v) or of the layer
 * count: the training, memory and step models (training.h, memory.h, step.h) and the hybrid
 * study (hybrid.h) read their pipelines through these functions, so each formula has one copy.
 *
 * Book: ch. 5 "Pipelining"; Amer et al. (arXiv 2602.09109) section 2; GPipe (Huang et al.
 * 2019), PipeDream-Flush 1F1B (Narayanan et al. 2019), Megatron-LM interleaving (Narayanan et
 * al. 2021), zero-bubble pipelines (Qi et al. 2023, arXiv 2401.10241), DualPipe (DeepSeek-V3
 * report, arXiv 2412.19437). All functions are pure: NaN outside their
 * domain.
 */
#ifndef SCALE_PIPELINE_H
#define SCALE_PIPELINE_H

#include "scale/status.h"

/** Pipeline schedules. */
typedef enum {
  SCALE_PP_1F1B = 0,    /**< one-forward-one-backward (PipeDream-Flush): bubble (p-1)/m */
  SCALE_PP_GPIPE,       /**< all forwards then all backwards: bubble (p-1)/m, m in flight */
  SCALE_PP_INTERLEAVED, /**< interleaved 1F1B with v virtual stages: bubble (p-1)/(v m) */
  SCALE_PP_ZB_H1,       /**< zero bubble H1 (Qi et al. 2023): W passes deferred into the
                             bubble, residual (p-1)(F+B-W), 1F1B's memory */
  SCALE_PP_ZB_H2,       /**< zero bubble H2: more warm-up forwards, (p-1)(F+B-2W), 2p-1 in
                             flight, optimizer post-validation */
  SCALE_PP_ZB_V,        /**< zero bubble V: 2 chunks a stage in a V, 1F1B's memory */
  SCALE_PP_DUALPIPE,    /**< DeepSeek-V3's bidirectional schedule: two parameter copies */
  SCALE_PP_COUNT,
  SCALE_PP_ZERO_BUBBLE = SCALE_PP_ZB_H1 /**< "zero-bubble" as frameworks ship it: ZB-H1 */
} scale_pp_schedule;

/** Name of a schedule as the CLI spells it ("1f1b", "gpipe", "interleaved", "zb-h1", "zb-h2",
 * "zb-v", "dualpipe"); "?" if invalid. Static storage. */
const char *scale_pp_schedule_name(scale_pp_schedule schedule);

/** Parses a schedule name (case-insensitive; also "zero-bubble" and "zb" for ZB-H1, the
 * schedule Megatron-LM and the paper's code ship as zero bubble). Errors: SCALE_ERR_INVALID;
 * *out untouched. */
scale_status scale_pp_schedule_parse(const char *text, scale_pp_schedule *out);

/** Pipeline bubble as a fraction of the ideal time m (F + B + W), for a stage whose forward,
 * input-gradient backward and weight-gradient backward of one microbatch take f, b, w (any
 * one unit; the whole stage, all its chunks):
 *
 *   1F1B, GPipe       (p-1)(f+b+w)                      Narayanan et al. 2019
 *   interleaved       (p-1)(f+b+w) / v                  Narayanan et al. 2021
 *   ZB-H1             (p-1)(f+b-w)                      Qi et al. 2023, Table 1
 *   ZB-H2             (p-1)(f+b-2w)                     Qi et al. 2023, Table 1
 *   ZB-V              (p-1)(f+b-2w) / 2                 ZB-H2's over chunks of half a stage
 *                                                        (the paper states only its zero at
 *                                                        f = b = w; this residual is ours)
 *   DualPipe          (p/2-1)(f&b + b+w - 3w)           DeepSeek-V3 report, Table 2, with
 *                                                        f&b = f+b+w (what the pair hides
 *                                                        already out of f and b)
 *
 * and for the zero-bubble schedules and DualPipe at least the critical path's floor: the
 * first stage's last forward waits (p-1)(f+b) for its input gradient while at most the rest
 * of its own work runs, (p-1)(f+b) - (m-1)(b+w) linear (ZB-V and DualPipe with their own
 * rest, pipeline.c); never below 0. 0 when p = 1. m < p is a pipeline that never fills, priced
 * by the same formulas.
 *
 * Units:  p, m, v [count]; f, b, w [any one unit] -> [1].
 * Domain: p, m, v >= 1 and finite, f, b, w >= 0 with f + b + w > 0, a valid schedule; NaN
 *         otherwise.
 * Book:   ch. 5 "Pipelining"; Qi et al. 2023 (arXiv 2401.10241); DeepSeek-V3 (arXiv
 *         2412.19437). ZB-H1 at p = 4, m = 8, f = b = w: 3 f / (8 x 3 f) = 1/8.
 */
double scale_pipeline_bubble_split_frac(scale_pp_schedule schedule, double p, double m, double v,
                                        double f, double b, double w);

/** scale_pipeline_bubble_split_frac() at f = b = w, the point the papers quote: (p-1)/m for
 * GPipe and 1F1B, (p-1)/(v m) interleaved, (p-1)/(3m) for ZB-H1, 0 for ZB-H2 and ZB-V at
 * m >= p; 0 when p = 1.
 *
 * Units:  p, m, v [count] -> [1].
 * Domain: p, m, v >= 1 and finite, a valid schedule; NaN otherwise.
 * Book:   ch. 5 "Pipelining"; Amer et al. section 2. 1F1B with p = 4, m = 8: 3/8 = 0.375.
 */
double scale_pipeline_bubble_frac(scale_pp_schedule schedule, double p, double m, double v);

/** Chunks (virtual stages) each stage holds: v interleaved, 2 for ZB-V's V, 1 otherwise. Each
 * chunk sends its activations on, so the pipeline's sends scale with it.
 *
 * Units:  v [count] -> [count].  Domain: v >= 1 finite, a valid schedule; NaN otherwise.
 * Book:   Qi et al. 2023 (ZB-V: "2x" the P2P of 1F1B).
 */
double scale_pipeline_chunks(scale_pp_schedule schedule, double v);

/** Copies of its stage's parameters (with their gradients and optimizer state) a rank keeps:
 * 2 for DualPipe, whose rank i also holds stage p-1-i, 1 otherwise.
 *
 * Units:  [count].  Domain: a valid schedule; NaN otherwise.
 * Book:   DeepSeek-V3 report, Table 2 ("Parameter 2x").
 */
double scale_pipeline_param_copies(scale_pp_schedule schedule);

/** Whether the schedule splits the backward into its input-gradient (B) and weight-gradient
 * (W) passes, run apart: the zero-bubble family and DualPipe. */
int scale_pipeline_splits_backward(scale_pp_schedule schedule);

/** Microbatches whose activations the first stage holds at its peak (in whole-stage units):
 * min(m, p) for 1F1B, ZB-H1 and ZB-V, min(m, 2p-1) for ZB-H2, min(m, p+1) for DualPipe, m for
 * GPipe, min(m, min(m, p)(1 + (p-1)/(p v))) interleaved (schedule.h plays the schedule and
 * finds the same); 1 when p = 1.
 *
 * Units:  p, m, v [count] -> [count].
 * Domain: as scale_pipeline_bubble_frac().
 * Book:   Narayanan et al. 2021 (Megatron-LM interleaving); Amer et al. section 2. GPipe with
 *         p = 16, m = 64: 64; 1F1B: 16; interleaved with v = 2: 23.5. Qi et al. 2023 Table 1
 *         (ZB-H2 (2p-1) M_B); DeepSeek-V3 Table 2 (DualPipe PP+1).
 */
double scale_pipeline_microbatches_in_flight(scale_pp_schedule schedule, double p, double m,
                                             double v);

/** Layers the fullest pipeline stage holds: v chunks of ceil(L / (p v)) layers each (the
 * stage that sets the pace of an uneven split); L when p = v = 1.
 *
 * Units:  n_layers, p, v [count] -> [count].
 * Domain: n_layers, p, v >= 1 and finite; NaN otherwise.
 * Book:   ch. 6 (uneven stages); DeepSeek-V3's 61 layers over 16 stages: 4 on the fullest.
 */
double scale_pipeline_stage_layers(double n_layers, double p, double v);

/** The layer-microbatch slots a stage's clock passes in one step: the fullest stage's
 * ceil(L / p) layers times the m + p - 1 ticks of a 1F1B pipeline (its m microbatches and
 * the p - 1 ticks of fill): the count of per-layer exchanges a host-synchronous framework
 * waits on (step.h, scale_step_cp_host_s()).
 *
 * Units:  n_layers, p, m [count] -> [count].
 * Domain: n_layers, p >= 1, m > 0 (a fraction of a microbatch per replica prices as such),
 *         all finite; NaN otherwise.
 * Book:   Amer et al. Table 10 (CP on the Ascend mesh). L = 24, p = 2, m = 4: 12 x 5 = 60.
 */
double scale_pipeline_layer_slots(double n_layers, double p, double m);

#endif
