/* transformers_ex.c — exercises of chapter 4, "All the Transformer Math You Need to Know":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in transformers_ex.h. Check your work with
 * `scale grade transformers`.
 */
#include "transformers_ex.h"

#include <math.h>

double ex_transformers_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t h, int64_t v) {
  (void)l; (void)d; (void)f; (void)n; (void)h; (void)v;
  return NAN;
}

double ex_transformers_attention_param_frac(int64_t d, int64_t f, int64_t n, int64_t h) {
  (void)d; (void)f; (void)n; (void)h;
  return NAN;
}

double ex_transformers_kv_cache_bytes(int64_t s, int64_t l, int64_t k, int64_t h,
                                      double bytes_per_element) {
  (void)s; (void)l; (void)k; (void)h; (void)bytes_per_element;
  return NAN;
}

double ex_transformers_sharded_matmul_flops_per_device(int64_t b, int64_t d, int64_t f, int64_t x,
                                                       int64_t y) {
  (void)b; (void)d; (void)f; (void)x; (void)y;
  return NAN;
}

double ex_transformers_sharded_matmul_total_flops(int64_t b, int64_t d, int64_t f, int64_t z) {
  (void)b; (void)d; (void)f; (void)z;
  return NAN;
}

double ex_transformers_contraction_flops(int64_t i, int64_t j, int64_t k, int64_t l, int64_t m,
                                         int64_t n, int64_t o) {
  (void)i; (void)j; (void)k; (void)l; (void)m; (void)n; (void)o;
  return NAN;
}

double ex_transformers_attention_intensity_flops_per_byte(int64_t t, int64_t s, int64_t g) {
  (void)t; (void)s; (void)g;
  return NAN;
}

double ex_transformers_attention_equals_qkvo_tokens(int64_t d) {
  (void)d;
  return NAN;
}

double ex_transformers_attention_flops_ratio(int64_t t, int64_t d) {
  (void)t; (void)d;
  return NAN;
}

double ex_transformers_train_flops(double n_params, double n_tokens) {
  (void)n_params; (void)n_tokens;
  return NAN;
}

double ex_transformers_mfu_frac(double model_flops, double chip_time_s, double flops_per_s) {
  (void)model_flops; (void)chip_time_s; (void)flops_per_s;
  return NAN;
}

double ex_transformers_activation_bytes(double n_tokens, int64_t d, int64_t l,
                                        double n_saved_per_layer, double bytes_per_element) {
  (void)n_tokens; (void)d; (void)l; (void)n_saved_per_layer; (void)bytes_per_element;
  return NAN;
}

double ex_transformers_moe_critical_batch(double dense_critical_batch, int64_t n_experts,
                                          int64_t n_active) {
  (void)dense_critical_batch; (void)n_experts; (void)n_active;
  return NAN;
}
