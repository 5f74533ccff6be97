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

/* ---- a decision: a training layout (the chapter's recipe) ----------------------------------- */

ex_train_layout ex_training_layout(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                   double batch_tokens, double seq_len, double hbm_bytes,
                                   double critical_batch_tokens, int64_t n_chips) {
  ex_train_layout none = {0, 0, 0};
  double n = (double)n_chips;
  if (!(n_params > 0.0) || !(batch_tokens > 0.0) || !(seq_len > 0.0) || !(hbm_bytes > 0.0) ||
      !(critical_batch_tokens > 0.0) || !isfinite(n_params * batch_tokens * hbm_bytes) ||
      n_heads < 1 || n_kv_heads < 1 || n_chips < 1 || n_chips > (1 << 30) ||
      (n_chips & (n_chips - 1)) != 0)
    return none;
  /* Memory first: ZeRO-3 over every chip keeps 16 bytes per parameter / n_chips (bf16 weights
   * and gradients, fp32 master weights and Adam moments); if that does not fit, nothing does. */
  if (16.0 * n_params / n > hbm_bytes) return none;
  /* FSDP over everything the batch allows: its gathers hide while each chip holds at least
   * the critical batch, and no more data shards than sequences; TP (inside the fast domain,
   * dividing the heads) takes the rest. */
  double sequences = batch_tokens / seq_len;
  int64_t tp = 1;
  while (tp <= 64 && (n / (double)tp > sequences || batch_tokens / (n / (double)tp) <
                                                         critical_batch_tokens))
    tp *= 2;
  if (tp > 64 || tp > n_chips || n_heads % tp != 0 ||
      (n_kv_heads % tp != 0 && tp % n_kv_heads != 0))
    return none;
  ex_train_layout pick = {1, n_chips / tp, tp};
  return pick;
}
