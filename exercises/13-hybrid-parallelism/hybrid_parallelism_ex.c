/* hybrid_parallelism_ex.c — exercises of chapter 13, "Hybrid Parallelism: DP, TP, PP and CP for
 * Transformers and Mamba-2": your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in hybrid_parallelism_ex.h. Check your work with
 * `scale grade hybrid_parallelism`.
 */
#include "hybrid_parallelism_ex.h"

#include <math.h>

double ex_hybrid_parallelism_collective_bytes(int64_t op, int64_t n, double t_bytes) {
  (void)op; (void)n; (void)t_bytes;
  return NAN;
}

double ex_hybrid_parallelism_tp_fwd_bytes(double b, double s, int64_t d, int64_t t,
                                          double bytes_per_element) {
  (void)b; (void)s; (void)d; (void)t; (void)bytes_per_element;
  return NAN;
}

double ex_hybrid_parallelism_cp_fwd_bytes(double b, double s, int64_t k, int64_t d_head, int64_t c,
                                          double bytes_per_element) {
  (void)b; (void)s; (void)k; (void)d_head; (void)c; (void)bytes_per_element;
  return NAN;
}

double ex_hybrid_parallelism_ulysses_fwd_bytes(double b, double s, int64_t a, int64_t k,
                                               int64_t d_head, int64_t u,
                                               double bytes_per_element) {
  (void)b; (void)s; (void)a; (void)k; (void)d_head; (void)u; (void)bytes_per_element;
  return NAN;
}

double ex_hybrid_parallelism_zero_state_bytes(double n_params, int64_t stage, int64_t n_shards) {
  (void)n_params; (void)stage; (void)n_shards;
  return NAN;
}

double ex_hybrid_parallelism_strong_overlap_s(double t_comp, double t_comm, int64_t n_chunks) {
  (void)t_comp; (void)t_comm; (void)n_chunks;
  return NAN;
}

double ex_hybrid_parallelism_ring_cp_min_block(double flops_per_s, double link_bytes_per_s,
                                               int64_t a, int64_t k, double bytes_per_element) {
  (void)flops_per_s; (void)link_bytes_per_s; (void)a; (void)k; (void)bytes_per_element;
  return NAN;
}

double ex_hybrid_parallelism_mamba_in_proj(int64_t d_model, int64_t expand, int64_t n_groups,
                                           int64_t d_state, int64_t n_heads) {
  (void)d_model; (void)expand; (void)n_groups; (void)d_state; (void)n_heads;
  return NAN;
}

double ex_hybrid_parallelism_mamba_cp_fwd_bytes(double b, int64_t n_heads, int64_t d_head,
                                                int64_t d_state, int64_t n_groups,
                                                int64_t d_inner, int64_t d_conv, int64_t c,
                                                double bytes_per_element) {
  (void)b; (void)n_heads; (void)d_head; (void)d_state; (void)n_groups; (void)d_inner; (void)d_conv; (void)c; (void)bytes_per_element;
  return NAN;
}

double ex_hybrid_parallelism_mfu(double n_params, int64_t n_layers, int64_t d_model, double s,
                                 double tokens, double step_s, double n_chips, double flops_per_s) {
  (void)n_params; (void)n_layers; (void)d_model; (void)s; (void)tokens; (void)step_s; (void)n_chips; (void)flops_per_s;
  return NAN;
}

double ex_hybrid_parallelism_guide_pp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param; (void)activation_bytes; (void)hbm_bytes; (void)n_chips;
  return NAN;
}

double ex_hybrid_parallelism_max_hiding_cp(double s, double min_block_tokens, int64_t n_chips) {
  (void)s; (void)min_block_tokens; (void)n_chips;
  return NAN;
}

double ex_hybrid_parallelism_guide_tp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_groups, int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param;
  (void)activation_bytes; (void)hbm_bytes; (void)n_groups; (void)n_chips;
  return NAN;
}

double ex_hybrid_parallelism_first_split(int is_mamba, double activation_bytes,
                                         double model_state_bytes) {
  (void)is_mamba; (void)activation_bytes; (void)model_state_bytes;
  return NAN;
}

/* Decision exercises: every field 0 is the "none" layout (not a layout: it scores nothing). */

ex_hybrid_layout ex_hybrid_parallelism_layout_transformer(double n_params,
                                                          double weight_grad_bytes_per_param,
                                                          double optimizer_bytes_per_param,
                                                          double activation_bytes,
                                                          double hbm_bytes, int64_t n_tp_units,
                                                          int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param;
  (void)activation_bytes; (void)hbm_bytes; (void)n_tp_units; (void)n_chips;
  ex_hybrid_layout none = {0, 0, 0, 0};
  return none;
}

ex_hybrid_layout ex_hybrid_parallelism_layout_long_context(double n_params,
                                                           double weight_grad_bytes_per_param,
                                                           double optimizer_bytes_per_param,
                                                           double activation_bytes,
                                                           double hbm_bytes, int64_t n_tp_units,
                                                           int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param;
  (void)activation_bytes; (void)hbm_bytes; (void)n_tp_units; (void)n_chips;
  ex_hybrid_layout none = {0, 0, 0, 0};
  return none;
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba(double n_params,
                                                    double weight_grad_bytes_per_param,
                                                    double optimizer_bytes_per_param,
                                                    double activation_bytes, double hbm_bytes,
                                                    int64_t n_tp_units, int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param;
  (void)activation_bytes; (void)hbm_bytes; (void)n_tp_units; (void)n_chips;
  ex_hybrid_layout none = {0, 0, 0, 0};
  return none;
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba_long(double n_params,
                                                         double weight_grad_bytes_per_param,
                                                         double optimizer_bytes_per_param,
                                                         double activation_bytes,
                                                         double hbm_bytes, int64_t n_tp_units,
                                                         int64_t n_chips) {
  (void)n_params; (void)weight_grad_bytes_per_param; (void)optimizer_bytes_per_param;
  (void)activation_bytes; (void)hbm_bytes; (void)n_tp_units; (void)n_chips;
  ex_hybrid_layout none = {0, 0, 0, 0};
  return none;
}
