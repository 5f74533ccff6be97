/* training_ex.c — exercises of chapter 5, "How to Parallelize a Transformer for Training":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in training_ex.h. Check your work with
 * `scale grade training`.
 */
#include "training_ex.h"

#include <math.h>

double ex_training_dp_critical_batch(double flops_per_s, double link_bytes_per_s, int64_t n_axes) {
  (void)flops_per_s; (void)link_bytes_per_s; (void)n_axes;
  return NAN;
}

double ex_training_max_pure_dp_params(double hbm_bytes) {
  (void)hbm_bytes;
  return NAN;
}

double ex_training_param_optimizer_bytes(double n_params) {
  (void)n_params;
  return NAN;
}

double ex_training_checkpoint_bytes(double n_tokens, int64_t l, int64_t d, int64_t f) {
  (void)n_tokens; (void)l; (void)d; (void)f;
  return NAN;
}

double ex_training_time_s(double total_flops, double n_chips, double flops_per_s, double mfu_frac) {
  (void)total_flops; (void)n_chips; (void)flops_per_s; (void)mfu_frac;
  return NAN;
}

double ex_training_tp_max_degree(double f, double flops_per_s, double link_bytes_per_s,
                                 int64_t n_axes) {
  (void)f; (void)flops_per_s; (void)link_bytes_per_s; (void)n_axes;
  return NAN;
}

double ex_training_fsdp_tp_x_opt(double b, double f, double n_chips, double m_x, double m_y) {
  (void)b; (void)f; (void)n_chips; (void)m_x; (void)m_y;
  return NAN;
}

double ex_training_fsdp_tp_critical_batch(double f, double flops_per_s, double link_bytes_per_s,
                                          double m_x, double m_y) {
  (void)f; (void)flops_per_s; (void)link_bytes_per_s; (void)m_x; (void)m_y;
  return NAN;
}

double ex_training_dcn_critical_batch(double pod_flops_per_s, double pod_dcn_bytes_per_s) {
  (void)pod_flops_per_s; (void)pod_dcn_bytes_per_s;
  return NAN;
}

double ex_training_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                            int64_t v) {
  (void)l; (void)d; (void)f; (void)n; (void)k; (void)h; (void)v;
  return NAN;
}

ex_train_layout ex_training_layout(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                   double batch_tokens, double seq_len, double hbm_bytes,
                                   double critical_batch_tokens, int64_t n_chips) {
  (void)n_params; (void)n_heads; (void)n_kv_heads; (void)batch_tokens; (void)seq_len;
  (void)hbm_bytes; (void)critical_batch_tokens; (void)n_chips;
  ex_train_layout none = {0, 0, 0}; /* not a layout: it scores nothing */
  return none;
}
