/* transformers_ex.c — reference solutions of chapter 4,
 * "All the Transformer Math You Need to Know".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "transformers_ex.h"

#include <math.h>

double ex_transformers_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t h, int64_t v) {
  if (l < 1 || d < 1 || f < 1 || n < 1 || h < 1 || v < 1) return NAN;
  double dd = (double)d, nh = (double)n * (double)h;
  double per_layer = 3.0 * dd * (double)f + 4.0 * dd * nh + dd;
  return (double)l * per_layer + 2.0 * dd * (double)v;
}

double ex_transformers_attention_param_frac(int64_t d, int64_t f, int64_t n, int64_t h) {
  if (d < 1 || f < 1 || n < 1 || h < 1) return NAN;
  double attention = 4.0 * (double)d * (double)n * (double)h;
  return attention / (attention + 3.0 * (double)d * (double)f);
}

double ex_transformers_kv_cache_bytes(int64_t s, int64_t l, int64_t k, int64_t h,
                                      double bytes_per_element) {
  if (s < 1 || l < 1 || k < 1 || h < 1 || !(bytes_per_element > 0.0)) return NAN;
  return 2.0 * (double)s * (double)l * (double)k * (double)h * bytes_per_element;
}

double ex_transformers_sharded_matmul_flops_per_device(int64_t b, int64_t d, int64_t f, int64_t x,
                                                       int64_t y) {
  if (b < 1 || d < 1 || f < 1 || x < 1 || y < 1) return NAN;
  return 2.0 * (double)b * (double)d * (double)f / ((double)x * (double)y);
}

double ex_transformers_sharded_matmul_total_flops(int64_t b, int64_t d, int64_t f, int64_t z) {
  if (b < 1 || d < 1 || f < 1 || z < 1) return NAN;
  return 2.0 * (double)b * (double)d * (double)f * (double)z;
}

double ex_transformers_contraction_flops(int64_t i, int64_t j, int64_t k, int64_t l, int64_t m,
                                         int64_t n, int64_t o) {
  if (i < 1 || j < 1 || k < 1 || l < 1 || m < 1 || n < 1 || o < 1) return NAN;
  return 2.0 * (double)i * (double)j * (double)k * (double)l * (double)m * (double)n * (double)o;
}

double ex_transformers_attention_intensity_flops_per_byte(int64_t t, int64_t s, int64_t g) {
  if (t < 1 || s < 1 || g < 1) return NAN;
  double td = (double)t, sd = (double)s, gd = (double)g;
  return td * sd * gd / (td * gd + sd);
}

double ex_transformers_attention_equals_qkvo_tokens(int64_t d) {
  if (d < 1) return NAN;
  return 2.0 * (double)d;
}

double ex_transformers_attention_flops_ratio(int64_t t, int64_t d) {
  if (t < 1 || d < 1) return NAN;
  return (double)t / (8.0 * (double)d);
}

double ex_transformers_train_flops(double n_params, double n_tokens) {
  if (!(n_params >= 0.0) || !(n_tokens >= 0.0)) return NAN;
  return 6.0 * n_params * n_tokens;
}

double ex_transformers_mfu_frac(double model_flops, double chip_time_s, double flops_per_s) {
  if (!(model_flops >= 0.0) || !(chip_time_s > 0.0) || !(flops_per_s > 0.0)) return NAN;
  return model_flops / (chip_time_s * flops_per_s);
}

double ex_transformers_activation_bytes(double n_tokens, int64_t d, int64_t l,
                                        double n_saved_per_layer, double bytes_per_element) {
  if (!(n_tokens >= 0.0) || d < 1 || l < 1 || !(n_saved_per_layer >= 0.0) ||
      !(bytes_per_element > 0.0))
    return NAN;
  return bytes_per_element * n_saved_per_layer * n_tokens * (double)d * (double)l;
}

double ex_transformers_moe_critical_batch(double dense_critical_batch, int64_t n_experts,
                                          int64_t n_active) {
  if (!(dense_critical_batch > 0.0) || n_active < 1 || n_experts < n_active) return NAN;
  return dense_critical_batch * (double)n_experts / (double)n_active;
}
