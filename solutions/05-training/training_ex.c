/* training_ex.c — reference solutions of chapter 5,
 * "How to Parallelize a Transformer for Training".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "training_ex.h"

#include <math.h>

double ex_training_dp_critical_batch(double flops_per_s, double link_bytes_per_s, int64_t n_axes) {
  if (!(flops_per_s > 0.0) || !(link_bytes_per_s > 0.0) || n_axes < 1) return NAN;
  return flops_per_s / (2.0 * link_bytes_per_s * (double)n_axes);
}

double ex_training_max_pure_dp_params(double hbm_bytes) {
  if (!(hbm_bytes >= 0.0)) return NAN;
  return hbm_bytes / 10.0;
}

double ex_training_param_optimizer_bytes(double n_params) {
  if (!(n_params >= 0.0)) return NAN;
  return (2.0 + 4.0 + 4.0) * n_params;
}

double ex_training_checkpoint_bytes(double n_tokens, int64_t l, int64_t d, int64_t f) {
  if (!(n_tokens >= 0.0) || l < 1 || d < 1 || f < 1) return NAN;
  return 2.0 * (double)l * n_tokens * ((double)d + 2.0 * (double)f);
}

double ex_training_time_s(double total_flops, double n_chips, double flops_per_s, double mfu_frac) {
  if (!(total_flops >= 0.0) || !(n_chips > 0.0) || !(flops_per_s > 0.0) ||
      !(mfu_frac > 0.0 && mfu_frac <= 1.0))
    return NAN;
  return total_flops / (n_chips * flops_per_s * mfu_frac);
}

double ex_training_tp_max_degree(double f, double flops_per_s, double link_bytes_per_s,
                                 int64_t n_axes) {
  if (!(f > 0.0) || !(flops_per_s > 0.0) || !(link_bytes_per_s > 0.0) || n_axes < 1) return NAN;
  return (double)n_axes * f * 2.0 * link_bytes_per_s / flops_per_s;
}

double ex_training_fsdp_tp_x_opt(double b, double f, double n_chips, double m_x, double m_y) {
  if (!(b > 0.0) || !(f > 0.0) || !(n_chips > 0.0) || !(m_x > 0.0) || !(m_y > 0.0)) return NAN;
  return sqrt(b / f * m_x / m_y * n_chips);
}

double ex_training_fsdp_tp_critical_batch(double f, double flops_per_s, double link_bytes_per_s,
                                          double m_x, double m_y) {
  if (!(f > 0.0) || !(flops_per_s > 0.0) || !(link_bytes_per_s > 0.0) || !(m_x > 0.0) ||
      !(m_y > 0.0))
    return NAN;
  double alpha = flops_per_s / (2.0 * link_bytes_per_s);
  return alpha * alpha / (m_x * m_y * f);
}

double ex_training_dcn_critical_batch(double pod_flops_per_s, double pod_dcn_bytes_per_s) {
  if (!(pod_flops_per_s > 0.0) || !(pod_dcn_bytes_per_s > 0.0)) return NAN;
  return pod_flops_per_s / pod_dcn_bytes_per_s;
}

double ex_training_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                            int64_t v) {
  if (l < 1 || d < 1 || f < 1 || n < 1 || k < 1 || h < 1 || v < 1) return NAN;
  double ld = (double)l * (double)d;
  double mlp = 3.0 * ld * (double)f;
  double attention = 2.0 * ld * (double)h * ((double)n + (double)k);
  return mlp + attention + 2.0 * (double)v * (double)d;
}
