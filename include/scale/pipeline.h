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
 * al. 2021), zero-bubble pipelines (Qi et al. 2023). All functions are pure: NaN outside their
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
  SCALE_PP_ZERO_BUBBLE, /**< backward split in dX and dW to fill the bubble: about 0 */
  SCALE_PP_COUNT
} scale_pp_schedule;

/** Name of a schedule as the CLI spells it ("1f1b", "gpipe", "interleaved", "zero-bubble");
 * "?" if invalid. Static storage. */
const char *scale_pp_schedule_name(scale_pp_schedule schedule);

/** Parses a schedule name (case-insensitive; also "zb"). Errors: SCALE_ERR_INVALID; *out
 * untouched. */
scale_status scale_pp_schedule_parse(const char *text, scale_pp_schedule *out);

/** Pipeline bubble as a fraction of the ideal (bubble-free) time: (p-1)/m for GPipe and 1F1B,
 * (p-1)/(v m) interleaved, 0 for zero-bubble; 0 when p = 1.
 *
 * Units:  p, m, v [count] -> [1].
 * Domain: p, m, v >= 1 and finite, a valid schedule; NaN otherwise.
 * Book:   ch. 5 "Pipelining"; Amer et al. section 2. 1F1B with p = 4, m = 8: 3/8 = 0.375.
 */
double scale_pipeline_bubble_frac(scale_pp_schedule schedule, double p, double m, double v);

/** Microbatches whose activations the first stage holds at its peak: min(m, p) for 1F1B and
 * zero-bubble, m for GPipe, min(m, min(m, p)(1 + (p-1)/(p v))) interleaved (schedule.h plays
 * the schedule and finds the same); 1 when p = 1.
 *
 * Units:  p, m, v [count] -> [count].
 * Domain: as scale_pipeline_bubble_frac().
 * Book:   Narayanan et al. 2021 (Megatron-LM interleaving); Amer et al. section 2. GPipe with
 *         p = 16, m = 64: 64; 1F1B: 16; interleaved with v = 2: 23.5.
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
