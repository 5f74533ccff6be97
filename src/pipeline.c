/* pipeline.c — pipeline schedules and their formulas (pipeline.h). */
#include "scale/pipeline.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <strings.h>

static const char *const schedule_names[SCALE_PP_COUNT] = {"1f1b", "gpipe", "interleaved",
                                                           "zero-bubble"};

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
  if (strcasecmp(text, "zb") == 0 || strcasecmp(text, "zerobubble") == 0) {
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

double scale_pipeline_bubble_frac(scale_pp_schedule schedule, double p, double m, double v) {
  if (!schedule_domain(p, m, v)) return NAN;
  if (p == 1.0) return 0.0;
  switch (schedule) {
  case SCALE_PP_1F1B:
  case SCALE_PP_GPIPE:
    return (p - 1.0) / m;
  case SCALE_PP_INTERLEAVED:
    return (p - 1.0) / (v * m);
  case SCALE_PP_ZERO_BUBBLE:
    return 0.0;
  default:
    return NAN;
  }
}

double scale_pipeline_microbatches_in_flight(scale_pp_schedule schedule, double p, double m,
                                             double v) {
  if (!schedule_domain(p, m, v)) return NAN;
  if (p == 1.0) return 1.0;
  switch (schedule) {
  case SCALE_PP_1F1B:
  case SCALE_PP_ZERO_BUBBLE:
    return fmin(m, p);
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
