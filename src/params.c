/* params.c — the descriptions of the calibrated models' parameters (params.h). */
#include "scale/params.h"

#include <stddef.h>

/* ==== the step model's parameters =========================================================== */

const scale_step_param_info scale_params_step_info[SCALE_STEP_N_PARAMS] = {
#define INFO(e, key, unit, lo, hi, prior, log_scale, meaning)                                     \
  {key, unit, lo, hi, prior, log_scale, meaning},
    SCALE_STEP_PARAM_LIST(INFO)
#undef INFO
};

const scale_step_param_info *scale_step_param_describe(scale_step_param p) {
  return (unsigned)p < SCALE_STEP_N_PARAMS ? &scale_params_step_info[p] : NULL;
}

/* ==== the serving step cost's parameters ==================================================== */

const scale_serve_param_info scale_params_serve_info[SCALE_SERVE_N_PARAMS] = {
#define SERVE_INFO(e, key, unit, lo, hi, prior, log_scale, meaning)                                \
  {key, unit, lo, hi, prior, log_scale, meaning},
    SCALE_SERVE_PARAM_LIST(SERVE_INFO)
#undef SERVE_INFO
};

const scale_serve_param_info *scale_serve_param_describe(int p) {
  return p >= 0 && p < SCALE_SERVE_N_PARAMS ? &scale_params_serve_info[p] : NULL;
}
