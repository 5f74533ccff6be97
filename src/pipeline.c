/* pipeline.c — pipeline schedules and their formulas (pipeline.h). */
#include "scale/pipeline.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <strings.h>

static const char *const schedule_names[SCALE_PP_COUNT] = {"1f1b",  "gpipe", "interleaved", "zb-h1",
                                                           "zb-h2", "zb-v",  "dualpipe"};

/* ==== names ================================================================================= */

const char *scale_pp_schedule_name(scale_pp_schedule schedule) {
  return (unsigned)schedule < SCALE_PP_COUNT ? schedule_names[schedule] : "?";
}

scale_status scale_pp_schedule_parse(const char *text, scale_pp_schedule *out) {
  if (text == NULL || out == NULL) return SCALE_ERR_INVALID;
  for (int i = 0; i < SCALE_PP_COUNT; i++) {
    if (strcasecmp(text, schedule_names[i]) == 0) {
      *out = (scale_pp_schedule)i;
      return SCALE_OK;
    }
  }
  if (strcasecmp(text, "zb") == 0 || strcasecmp(text, "zerobubble") == 0 ||
      strcasecmp(text, "zero-bubble") == 0) {
    *out = SCALE_PP_ZERO_BUBBLE;
    return SCALE_OK;
  }
  return SCALE_ERR_INVALID;
}

/* ==== formulas ============================================================================== */

/* p, m, v are counts of at least one (a fractional m is a batch that does not split evenly,
 * priced as such; below one there is no pipeline to speak of). */
static bool schedule_domain(double p, double m, double v) {
  return p >= 1.0 && m >= 1.0 && v >= 1.0 && isfinite(p + m + v);
}

/* The floor of a schedule's bubble from its critical path (in f, b, w units): the first
 * rank's last forward of its first chunk waits for that microbatch to cross the other ranks
 * and come back, (p-1)(f+b) (the other ranks' chunks, forward and input gradient), and the
 * rank fills the wait with at most the rest of its own work:
 *   linear (ZB-H1, ZB-H2): the B and W of its m-1 other microbatches, (m-1)(b+w);
 *   ZB-V: those of its first chunk, (m-1)(b+w)/2, and all of its last chunk, m(f+b+w)/2;
 *   DualPipe: those of its m/2 - 1 other microbatches of that direction and all m/2 of the
 *   other direction, (m/2-1)(b+w) + (m/2)(f+b+w).
 * A lower bound, not a schedule: what no ordering of the passes can beat (the formulas of the
 * papers assume m >= p and fall below it when the pipeline never fills). */
static double bubble_floor(scale_pp_schedule schedule, double p, double m, double f, double b,
                           double w) {
  double wait = (p - 1.0) * (f + b);
  switch (schedule) {
  case SCALE_PP_ZB_V:
    return wait - (m - 1.0) * (b + w) / 2.0 - m * (f + b + w) / 2.0;
  case SCALE_PP_DUALPIPE:
    return wait - (m / 2.0 - 1.0) * (b + w) - m / 2.0 * (f + b + w);
  default:
    return wait - (m - 1.0) * (b + w);
  }
}

/* A schedule's bubble as its paper gives it (f, b, w units; m >= p). */
static double bubble_published(scale_pp_schedule schedule, double p, double v, double f, double b,
                               double w) {
  switch (schedule) {
  case SCALE_PP_1F1B:
  case SCALE_PP_GPIPE:
    return (p - 1.0) * (f + b + w);
  case SCALE_PP_INTERLEAVED:
    return (p - 1.0) * (f + b + w) / v;
  case SCALE_PP_ZB_H1:
    return (p - 1.0) * (f + b - w);
  case SCALE_PP_ZB_H2:
    return (p - 1.0) * (f + b - 2.0 * w);
  /* V-shape: 2p chunks of half a stage, each rank holding chunks i and 2p-1-i; ZB-H2's
   * residual per chunk pair (the paper's zero at f = b = w) */
  case SCALE_PP_ZB_V:
    return (p - 1.0) * (f + b - 2.0 * w) / 2.0;
  /* Table 2: (PP/2-1)(F&B + B - 3W), its B the whole backward b + w; F&B, a forward and a
   * backward chunk run together, is priced as both: what one hides of the other (a MoE
   * stage's all-to-alls) the caller has already left out of f and b */
  case SCALE_PP_DUALPIPE:
    return (p / 2.0 - 1.0) * ((f + b + w) + (b + w) - 3.0 * w);
  default:
    return NAN;
  }
}

double scale_pipeline_bubble_split_frac(scale_pp_schedule schedule, double p, double m, double v,
                                        double f, double b, double w) {
  if (!schedule_domain(p, m, v) || !(f >= 0.0 && b >= 0.0 && w >= 0.0 && f + b + w > 0.0) ||
      !isfinite(f + b + w) || (unsigned)schedule >= SCALE_PP_COUNT)
    return NAN;
  if (p == 1.0) return 0.0;
  if (schedule == SCALE_PP_DUALPIPE && fmod(p, 2.0) != 0.0) return NAN;
  double bubble = bubble_published(schedule, p, v, f, b, w);
  if (scale_pipeline_splits_backward(schedule))
    bubble = fmax(bubble, bubble_floor(schedule, p, m, f, b, w));
  return fmax(0.0, bubble) / (m * (f + b + w));
}

double scale_pipeline_bubble_frac(scale_pp_schedule schedule, double p, double m, double v) {
  return scale_pipeline_bubble_split_frac(schedule, p, m, v, 1.0, 1.0, 1.0);
}

double scale_pipeline_chunks(scale_pp_schedule schedule, double v) {
  if (!(v >= 1.0 && isfinite(v)) || (unsigned)schedule >= SCALE_PP_COUNT) return NAN;
  if (schedule == SCALE_PP_INTERLEAVED) return v;
  return schedule == SCALE_PP_ZB_V ? 2.0 : 1.0;
}

double scale_pipeline_param_copies(scale_pp_schedule schedule) {
  if ((unsigned)schedule >= SCALE_PP_COUNT) return NAN;
  return schedule == SCALE_PP_DUALPIPE ? 2.0 : 1.0;
}

int scale_pipeline_splits_backward(scale_pp_schedule schedule) {
  return schedule >= SCALE_PP_ZB_H1 && schedule <= SCALE_PP_DUALPIPE;
}

double scale_pipeline_microbatches_in_flight(scale_pp_schedule schedule, double p, double m,
                                             double v) {
  if (!schedule_domain(p, m, v)) return NAN;
  if (p == 1.0) return 1.0;
  switch (schedule) {
  case SCALE_PP_1F1B:
  case SCALE_PP_ZB_H1:
  case SCALE_PP_ZB_V:
    return fmin(m, p);
  case SCALE_PP_ZB_H2:
    return fmin(m, 2.0 * p - 1.0);
  case SCALE_PP_DUALPIPE:
    return fmin(m, p + 1.0);
  case SCALE_PP_GPIPE:
    return m;
  case SCALE_PP_INTERLEAVED:
    /* Megatron's 2 (p-1) + (v-1) p warm-up chunks, plus the one in the steady state, but
     * never more than the m microbatches there are (at m = p every forward runs first). */
    return fmin(m, fmin(m, p) * (1.0 + (p - 1.0) / (p * v)));
  default:
    return NAN;
  }
}

double scale_pipeline_stage_layers(double n_layers, double p, double v) {
  if (!(n_layers >= 1.0 && p >= 1.0 && v >= 1.0 && isfinite(n_layers + p + v))) return NAN;
  return ceil(n_layers / (p * v)) * v;
}

double scale_pipeline_layer_slots(double n_layers, double p, double m) {
  if (!(n_layers >= 1.0 && p >= 1.0 && m > 0.0 && isfinite(n_layers + p + m))) return NAN;
  return ceil(n_layers / p) * (m + p - 1.0);
}
