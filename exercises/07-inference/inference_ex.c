/* inference_ex.c — exercises of chapter 7, "All About Transformer Inference":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in inference_ex.h. Check your work with
 * `scale grade inference`.
 */
#include "inference_ex.h"

#include <math.h>

double ex_inference_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                   double bytes_per_weight) {
  (void)flops_per_s; (void)hbm_bytes_per_s; (void)bytes_per_weight;
  return NAN;
}

double ex_inference_decode_step_time_s(double b, double kv_bytes_per_seq, double n_params,
                                       double param_bytes, double flops_per_s,
                                       double hbm_bytes_per_s) {
  (void)b; (void)kv_bytes_per_seq; (void)n_params; (void)param_bytes; (void)flops_per_s;
  (void)hbm_bytes_per_s;
  return NAN;
}

double ex_inference_max_tokens_per_s(double b, double kv_bytes_per_seq, double param_bytes,
                                     double hbm_bytes_per_s) {
  (void)b; (void)kv_bytes_per_seq; (void)param_bytes; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_inference_kv_bytes_per_token(int64_t l, int64_t k, int64_t h, double bytes_per_element) {
  (void)l; (void)k; (void)h; (void)bytes_per_element;
  return NAN;
}

double ex_inference_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                             int64_t v) {
  (void)l; (void)d; (void)f; (void)n; (void)k; (void)h; (void)v;
  return NAN;
}

double ex_inference_param_load_time_s(double param_bytes, int64_t n_chips, double hbm_bytes_per_s) {
  (void)param_bytes; (void)n_chips; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_inference_moe_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                                 int64_t v, int64_t e) {
  (void)l; (void)d; (void)f; (void)n; (void)k; (void)h; (void)v; (void)e;
  return NAN;
}

double ex_inference_moe_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                       double bytes_per_weight, int64_t e, int64_t k) {
  (void)flops_per_s; (void)hbm_bytes_per_s; (void)bytes_per_weight; (void)e; (void)k;
  return NAN;
}

double ex_inference_max_tp_memory_bound(double f, double b, double beta) {
  (void)f; (void)b; (void)beta;
  return NAN;
}

double ex_inference_ws2d_min_chips(double d, double f) {
  (void)d; (void)f;
  return NAN;
}

double ex_inference_prefill_attention_min_tokens(double flops_per_s, double hbm_bytes_per_s,
                                                 int64_t g) {
  (void)flops_per_s; (void)hbm_bytes_per_s; (void)g;
  return NAN;
}
