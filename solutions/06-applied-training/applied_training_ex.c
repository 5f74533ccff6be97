/* applied_training_ex.c — reference solutions of chapter 6,
 * "Training LLaMA 3 on TPUs".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "applied_training_ex.h"

#include <math.h>

double ex_applied_training_ffw_params(int64_t l, int64_t d, int64_t f) {
  if (l < 1 || d < 1 || f < 1) return NAN;
  return 3.0 * (double)l * (double)d * (double)f;
}

double ex_applied_training_attention_params(int64_t l, int64_t d, int64_t n, int64_t k, int64_t h) {
  if (l < 1 || d < 1 || n < 1 || k < 1 || h < 1) return NAN;
  double dh = (double)d * (double)h;
  return (double)l * (2.0 * dh * (double)n + 2.0 * dh * (double)k);
}

double ex_applied_training_vocab_params(int64_t v, int64_t d) {
  if (v < 1 || d < 1) return NAN;
  return 2.0 * (double)v * (double)d;
}

double ex_applied_training_flops_per_token(double n_params) {
  if (!(n_params >= 0.0)) return NAN;
  return 6.0 * n_params;
}

double ex_applied_training_run_time_s(double n_params, double n_tokens, double n_chips,
                                      double flops_per_s, double mfu_frac) {
  if (!(n_params >= 0.0) || !(n_tokens >= 0.0) || !(n_chips > 0.0) || !(flops_per_s > 0.0) ||
      !(mfu_frac > 0.0 && mfu_frac <= 1.0))
    return NAN;
  return 6.0 * n_params * n_tokens / (n_chips * flops_per_s * mfu_frac);
}

double ex_applied_training_memory_bytes(double n_params, double batch_tokens, int64_t d, int64_t l,
                                        double n_checkpoints_per_layer) {
  if (!(n_params >= 0.0) || !(batch_tokens >= 0.0) || d < 1 || l < 1 ||
      !(n_checkpoints_per_layer >= 0.0))
    return NAN;
  double weights_and_adam = (2.0 + 8.0) * n_params;
  double checkpoints = 2.0 * (double)d * batch_tokens * n_checkpoints_per_layer * (double)l;
  return weights_and_adam + checkpoints;
}

double ex_applied_training_min_chips(double total_bytes, double hbm_bytes_per_chip) {
  if (!(total_bytes >= 0.0) || !(hbm_bytes_per_chip > 0.0)) return NAN;
  return ceil(total_bytes / hbm_bytes_per_chip);
}

double ex_applied_training_max_pure_dp_chips(double batch_tokens, double seq_len) {
  if (!(batch_tokens >= 0.0) || !(seq_len > 0.0)) return NAN;
  return floor(batch_tokens / seq_len);
}

double ex_applied_training_tp_degree(double n_chips, double batch_tokens, double f, double m_x,
                                     double m_y) {
  if (!(n_chips > 0.0) || !(batch_tokens > 0.0) || !(f > 0.0) || !(m_x > 0.0) || !(m_y > 0.0))
    return NAN;
  double x_opt = sqrt(batch_tokens / f * m_x / m_y * n_chips);
  return n_chips / x_opt;
}

/* ---- a decision: a training layout (the chapter's recipe) ----------------------------------- */

ex_applied_layout ex_applied_training_llama3_70b_layout(double n_params, int64_t n_heads,
                                                        int64_t n_kv_heads, double batch_tokens,
                                                        double seq_len, double hbm_bytes,
                                                        double critical_batch_tokens,
                                                        int64_t n_chips) {
  ex_applied_layout none = {0, 0, 0};
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
  ex_applied_layout pick = {1, n_chips / tp, tp};
  return pick;
}
