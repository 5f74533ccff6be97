/* inference_ex.c — reference solutions of chapter 7,
 * "All About Transformer Inference".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "inference_ex.h"

#include <math.h>

double ex_inference_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                   double bytes_per_weight) {
  if (!(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0) || !(bytes_per_weight > 0.0)) return NAN;
  return flops_per_s * bytes_per_weight / (2.0 * hbm_bytes_per_s);
}

double ex_inference_decode_step_time_s(double b, double kv_bytes_per_seq, double n_params,
                                       double param_bytes, double flops_per_s,
                                       double hbm_bytes_per_s) {
  if (!(b >= 0.0) || !(kv_bytes_per_seq >= 0.0) || !(n_params >= 0.0) || !(param_bytes >= 0.0) ||
      !(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0))
    return NAN;
  double attention = b * kv_bytes_per_seq / hbm_bytes_per_s;
  double mlp_math = 2.0 * b * n_params / flops_per_s;
  double mlp_load = param_bytes / hbm_bytes_per_s;
  return attention + (mlp_math > mlp_load ? mlp_math : mlp_load);
}

double ex_inference_max_tokens_per_s(double b, double kv_bytes_per_seq, double param_bytes,
                                     double hbm_bytes_per_s) {
  if (!(b >= 0.0) || !(kv_bytes_per_seq >= 0.0) || !(param_bytes >= 0.0) ||
      !(hbm_bytes_per_s > 0.0))
    return NAN;
  double bytes = b * kv_bytes_per_seq + param_bytes;
  if (!(bytes > 0.0)) return NAN;
  return b * hbm_bytes_per_s / bytes;
}

double ex_inference_kv_bytes_per_token(int64_t l, int64_t k, int64_t h, double bytes_per_element) {
  if (l < 1 || k < 1 || h < 1 || !(bytes_per_element > 0.0)) return NAN;
  return 2.0 * (double)l * (double)k * (double)h * bytes_per_element;
}

double ex_inference_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                             int64_t v) {
  if (l < 1 || d < 1 || f < 1 || n < 1 || k < 1 || h < 1 || v < 1) return NAN;
  double per_layer = 3.0 * (double)f + 2.0 * (double)h * ((double)n + (double)k);
  return (double)l * (double)d * per_layer + (double)d * (double)v;
}

double ex_inference_param_load_time_s(double param_bytes, int64_t n_chips, double hbm_bytes_per_s) {
  if (!(param_bytes >= 0.0) || n_chips < 1 || !(hbm_bytes_per_s > 0.0)) return NAN;
  return param_bytes / ((double)n_chips * hbm_bytes_per_s);
}

double ex_inference_moe_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                                 int64_t v, int64_t e) {
  if (l < 1 || d < 1 || f < 1 || n < 1 || k < 1 || h < 1 || v < 1 || e < 1) return NAN;
  double per_layer = 3.0 * (double)f * (double)e + 2.0 * (double)h * ((double)n + (double)k);
  return (double)l * (double)d * per_layer + (double)d * (double)v;
}

double ex_inference_moe_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                       double bytes_per_weight, int64_t e, int64_t k) {
  if (!(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0) || !(bytes_per_weight > 0.0) || k < 1 ||
      e < k)
    return NAN;
  double dense = flops_per_s * bytes_per_weight / (2.0 * hbm_bytes_per_s);
  return dense * (double)e / (double)k;
}

double ex_inference_max_tp_memory_bound(double f, double b, double beta) {
  if (!(f > 0.0) || !(b > 0.0) || !(beta > 0.0)) return NAN;
  return f / (b * beta);
}

double ex_inference_ws2d_min_chips(double d, double f) {
  if (!(d > 0.0) || !(f > 0.0)) return NAN;
  return 32.0 * (f / d) * (3.0 / 4.0) * (3.0 / 4.0);
}

double ex_inference_prefill_attention_min_tokens(double flops_per_s, double hbm_bytes_per_s,
                                                 int64_t g) {
  if (!(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0) || g < 1) return NAN;
  double gg = (double)g;
  return flops_per_s / hbm_bytes_per_s * (gg + 1.0) / gg;
}
