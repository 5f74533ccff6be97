/* applied_inference_ex.c — reference solutions of chapter 8,
 * "Serving LLaMA 3-70B on TPUs".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "applied_inference_ex.h"

#include <math.h>

double ex_applied_inference_serving_memory_bytes(double n_params, double bytes_per_param,
                                                 double batch, double seq_len,
                                                 double kv_bytes_per_token) {
  if (!(n_params >= 0.0) || !(bytes_per_param > 0.0) || !(batch >= 0.0) || !(seq_len >= 0.0) ||
      !(kv_bytes_per_token >= 0.0))
    return NAN;
  return n_params * bytes_per_param + batch * seq_len * kv_bytes_per_token;
}

double ex_applied_inference_min_slice_chips(double total_bytes, double hbm_bytes_per_chip) {
  if (!(total_bytes >= 0.0) || !(hbm_bytes_per_chip > 0.0)) return NAN;
  double needed = total_bytes / hbm_bytes_per_chip;
  if (!(needed <= 1099511627776.0)) return NAN;
  double chips = 1.0;
  while (chips < needed) chips *= 2.0;
  return chips;
}

double ex_applied_inference_memory_bound_step_s(double param_bytes, double batch,
                                                double kv_bytes_per_seq, int64_t n_chips,
                                                double hbm_bytes_per_s) {
  if (!(param_bytes >= 0.0) || !(batch >= 0.0) || !(kv_bytes_per_seq >= 0.0) || n_chips < 1 ||
      !(hbm_bytes_per_s > 0.0))
    return NAN;
  return (param_bytes + batch * kv_bytes_per_seq) / ((double)n_chips * hbm_bytes_per_s);
}

double ex_applied_inference_tokens_per_s_per_chip(double batch, double step_s, int64_t n_chips) {
  if (!(batch >= 0.0) || !(step_s > 0.0) || n_chips < 1) return NAN;
  return batch / (step_s * (double)n_chips);
}

double ex_applied_inference_max_batch(int64_t n_chips, double hbm_bytes_per_chip,
                                      double param_bytes, double kv_bytes_per_seq) {
  if (n_chips < 1 || !(hbm_bytes_per_chip > 0.0) || !(param_bytes >= 0.0) ||
      !(kv_bytes_per_seq > 0.0))
    return NAN;
  double free_bytes = (double)n_chips * hbm_bytes_per_chip - param_bytes;
  if (free_bytes < 0.0) return NAN;
  return floor(free_bytes / kv_bytes_per_seq);
}

double ex_applied_inference_qps_per_chip(double batch, double step_s, double decode_tokens,
                                         int64_t n_chips) {
  if (!(batch >= 0.0) || !(step_s > 0.0) || !(decode_tokens > 0.0) || n_chips < 1) return NAN;
  return batch / (step_s * decode_tokens * (double)n_chips);
}

double ex_applied_inference_max_tp_ici(double f, int64_t n_axes, double alpha) {
  if (!(f > 0.0) || n_axes < 1 || !(alpha > 0.0)) return NAN;
  return (double)n_axes * f / alpha;
}

double ex_applied_inference_prefill_time_s(double n_params, double n_tokens, int64_t n_chips,
                                           double flops_per_s, double mfu_frac) {
  if (!(n_params >= 0.0) || !(n_tokens >= 0.0) || n_chips < 1 || !(flops_per_s > 0.0) ||
      !(mfu_frac > 0.0 && mfu_frac <= 1.0))
    return NAN;
  return 2.0 * n_params * n_tokens / ((double)n_chips * flops_per_s * mfu_frac);
}

double ex_applied_inference_kv_evicted_per_step(double batch, double prefill_len,
                                                double decode_len) {
  if (!(batch >= 0.0) || !(prefill_len >= 0.0) || !(decode_len > 0.0)) return NAN;
  return batch / decode_len * (prefill_len + decode_len);
}

double ex_applied_inference_disaggregation_ratio(double prefill_s, double batch, double step_s,
                                                 double decode_len) {
  if (!(prefill_s > 0.0) || !(batch >= 0.0) || !(step_s > 0.0) || !(decode_len > 0.0)) return NAN;
  return prefill_s * batch / (step_s * decode_len);
}

/* ---- a decision: the smallest slice -------------------------------------------------------- */

ex_serving_slice ex_applied_inference_smallest_slice(double n_params, double bytes_per_param,
                                                     double hbm_bytes_per_chip,
                                                     double hbm_bytes_per_s, double max_step_s,
                                                     int64_t max_chips) {
  ex_serving_slice none = {0};
  if (!(n_params > 0.0) || !(bytes_per_param > 0.0) || !(hbm_bytes_per_chip > 0.0) ||
      !(hbm_bytes_per_s > 0.0) || !(max_step_s > 0.0) || max_chips < 1 ||
      !isfinite(n_params * bytes_per_param))
    return none;
  double param_bytes = n_params * bytes_per_param;
  /* The smallest slice whose HBM holds the weights, then doubled until one batch-1 decode
   * step, bound by reading the weights, meets the target. */
  double chips = ex_applied_inference_min_slice_chips(param_bytes, hbm_bytes_per_chip);
  while (chips <= (double)max_chips &&
         ex_applied_inference_memory_bound_step_s(param_bytes, 1.0, 0.0, (int64_t)chips,
                                                  hbm_bytes_per_s) > max_step_s)
    chips *= 2.0;
  if (!(chips <= (double)max_chips)) return none;
  ex_serving_slice pick = {(int64_t)chips};
  return pick;
}
