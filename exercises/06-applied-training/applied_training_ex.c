/* applied_training_ex.c — exercises of chapter 6, "Training LLaMA 3 on TPUs":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in applied_training_ex.h. Check your work with
 * `scale grade applied_training`.
 */
#include "applied_training_ex.h"

#include <math.h>

double ex_applied_training_ffw_params(int64_t l, int64_t d, int64_t f) {
  (void)l; (void)d; (void)f;
  return NAN;
}

double ex_applied_training_attention_params(int64_t l, int64_t d, int64_t n, int64_t k, int64_t h) {
  (void)l; (void)d; (void)n; (void)k; (void)h;
  return NAN;
}

double ex_applied_training_vocab_params(int64_t v, int64_t d) {
  (void)v; (void)d;
  return NAN;
}

double ex_applied_training_flops_per_token(double n_params) {
  (void)n_params;
  return NAN;
}

double ex_applied_training_run_time_s(double n_params, double n_tokens, double n_chips,
                                      double flops_per_s, double mfu_frac) {
  (void)n_params; (void)n_tokens; (void)n_chips; (void)flops_per_s; (void)mfu_frac;
  return NAN;
}

double ex_applied_training_memory_bytes(double n_params, double batch_tokens, int64_t d, int64_t l,
                                        double n_checkpoints_per_layer) {
  (void)n_params; (void)batch_tokens; (void)d; (void)l; (void)n_checkpoints_per_layer;
  return NAN;
}

double ex_applied_training_min_chips(double total_bytes, double hbm_bytes_per_chip) {
  (void)total_bytes; (void)hbm_bytes_per_chip;
  return NAN;
}

double ex_applied_training_max_pure_dp_chips(double batch_tokens, double seq_len) {
  (void)batch_tokens; (void)seq_len;
  return NAN;
}

double ex_applied_training_tp_degree(double n_chips, double batch_tokens, double f, double m_x,
                                     double m_y) {
  (void)n_chips; (void)batch_tokens; (void)f; (void)m_x; (void)m_y;
  return NAN;
}

ex_applied_layout ex_applied_training_llama3_70b_layout(double n_params, int64_t n_heads,
                                                        int64_t n_kv_heads, double batch_tokens,
                                                        double seq_len, double hbm_bytes,
                                                        double critical_batch_tokens,
                                                        int64_t n_chips) {
  (void)n_params; (void)n_heads; (void)n_kv_heads; (void)batch_tokens; (void)seq_len;
  (void)hbm_bytes; (void)critical_batch_tokens; (void)n_chips;
  ex_applied_layout none = {0, 0, 0}; /* not a layout: it scores nothing */
  return none;
}
