/* applied_inference_ex.c — exercises of chapter 8, "Serving LLaMA 3-70B on TPUs":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in applied_inference_ex.h. Check your work with
 * `scale grade applied_inference`.
 */
#include "applied_inference_ex.h"

#include <math.h>

double ex_applied_inference_serving_memory_bytes(double n_params, double bytes_per_param,
                                                 double batch, double seq_len,
                                                 double kv_bytes_per_token) {
  (void)n_params; (void)bytes_per_param; (void)batch; (void)seq_len; (void)kv_bytes_per_token;
  return NAN;
}

double ex_applied_inference_min_slice_chips(double total_bytes, double hbm_bytes_per_chip) {
  (void)total_bytes; (void)hbm_bytes_per_chip;
  return NAN;
}

double ex_applied_inference_memory_bound_step_s(double param_bytes, double batch,
                                                double kv_bytes_per_seq, int64_t n_chips,
                                                double hbm_bytes_per_s) {
  (void)param_bytes; (void)batch; (void)kv_bytes_per_seq; (void)n_chips; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_applied_inference_tokens_per_s_per_chip(double batch, double step_s, int64_t n_chips) {
  (void)batch; (void)step_s; (void)n_chips;
  return NAN;
}

double ex_applied_inference_max_batch(int64_t n_chips, double hbm_bytes_per_chip,
                                      double param_bytes, double kv_bytes_per_seq) {
  (void)n_chips; (void)hbm_bytes_per_chip; (void)param_bytes; (void)kv_bytes_per_seq;
  return NAN;
}

double ex_applied_inference_qps_per_chip(double batch, double step_s, double decode_tokens,
                                         int64_t n_chips) {
  (void)batch; (void)step_s; (void)decode_tokens; (void)n_chips;
  return NAN;
}

double ex_applied_inference_max_tp_ici(double f, int64_t n_axes, double alpha) {
  (void)f; (void)n_axes; (void)alpha;
  return NAN;
}

double ex_applied_inference_prefill_time_s(double n_params, double n_tokens, int64_t n_chips,
                                           double flops_per_s, double mfu_frac) {
  (void)n_params; (void)n_tokens; (void)n_chips; (void)flops_per_s; (void)mfu_frac;
  return NAN;
}

double ex_applied_inference_kv_evicted_per_step(double batch, double prefill_len,
                                                double decode_len) {
  (void)batch; (void)prefill_len; (void)decode_len;
  return NAN;
}

double ex_applied_inference_disaggregation_ratio(double prefill_s, double batch, double step_s,
                                                 double decode_len) {
  (void)prefill_s; (void)batch; (void)step_s; (void)decode_len;
  return NAN;
}

ex_serving_slice ex_applied_inference_smallest_slice(double n_params, double bytes_per_param,
                                                     double hbm_bytes_per_chip,
                                                     double hbm_bytes_per_s, double max_step_s,
                                                     int64_t max_chips) {
  (void)n_params; (void)bytes_per_param; (void)hbm_bytes_per_chip; (void)hbm_bytes_per_s;
  (void)max_step_s; (void)max_chips;
  ex_serving_slice none = {0}; /* not a slice: it scores nothing */
  return none;
}
