/* hybrid_parallelism_ex.c — reference solutions of chapter 13's exercises
 * (exercises/13-hybrid-parallelism/hybrid_parallelism_ex.h). Standard C only.
 */
#include "hybrid_parallelism_ex.h"

#include <math.h>
#include <stdbool.h>

/* a finite, non-negative size */
static int size_ok(double x) { return isfinite(x) && x >= 0.0; }

/* a finite, positive rate */
static int pos(double x) { return isfinite(x) && x > 0.0; }

double ex_hybrid_parallelism_collective_bytes(int64_t op, int64_t n, double t_bytes) {
  if (n < 1 || !size_ok(t_bytes)) return NAN;
  double nn = (double)n;
  switch (op) {
  case 0:
  case 1:
    return (nn - 1.0) * t_bytes;
  case 2:
  case 3:
  case 4:
    return (nn - 1.0) / nn * t_bytes;
  case 5:
    return 2.0 * (nn - 1.0) / nn * t_bytes;
  default:
    return NAN;
  }
}

double ex_hybrid_parallelism_tp_fwd_bytes(double b, double s, int64_t d, int64_t t,
                                          double bytes_per_element) {
  if (!size_ok(b) || !size_ok(s) || d < 1 || t < 1 || !pos(bytes_per_element)) return NAN;
  double tt = (double)t;
  return 4.0 * (tt - 1.0) / tt * b * s * (double)d * bytes_per_element;
}

double ex_hybrid_parallelism_cp_fwd_bytes(double b, double s, int64_t k, int64_t d_head, int64_t c,
                                          double bytes_per_element) {
  if (!size_ok(b) || !size_ok(s) || k < 1 || d_head < 1 || c < 1 || !pos(bytes_per_element))
    return NAN;
  double cc = (double)c;
  return 4.0 * (cc - 1.0) / cc * b * s * (double)k * (double)d_head * bytes_per_element;
}

double ex_hybrid_parallelism_ulysses_fwd_bytes(double b, double s, int64_t a, int64_t k,
                                               int64_t d_head, int64_t u,
                                               double bytes_per_element) {
  if (!size_ok(b) || !size_ok(s) || a < 1 || k < 1 || d_head < 1 || u < 1 || u > k ||
      !pos(bytes_per_element))
    return NAN;
  double uu = (double)u;
  return 4.0 * (uu - 1.0) / (uu * uu) * b * s * (double)d_head * ((double)a + (double)k) *
         bytes_per_element;
}

double ex_hybrid_parallelism_zero_state_bytes(double n_params, int64_t stage, int64_t n_shards) {
  if (!size_ok(n_params) || stage < 0 || stage > 3 || n_shards < 1) return NAN;
  double nd = (double)n_shards;
  double w = 2.0, g = 2.0, o = 12.0;
  if (stage >= 1) o /= nd;
  if (stage >= 2) g /= nd;
  if (stage >= 3) w /= nd;
  return (w + g + o) * n_params;
}

double ex_hybrid_parallelism_strong_overlap_s(double t_comp, double t_comm, int64_t n_chunks) {
  if (!size_ok(t_comp) || !size_ok(t_comm) || n_chunks < 1) return NAN;
  double c = (double)n_chunks;
  return (c - 1.0) / c * fmax(t_comp, t_comm) + (t_comp + t_comm) / c;
}

double ex_hybrid_parallelism_ring_cp_min_block(double flops_per_s, double link_bytes_per_s,
                                               int64_t a, int64_t k, double bytes_per_element) {
  if (!pos(flops_per_s) || !pos(link_bytes_per_s) || a < 1 || k < 1 || !pos(bytes_per_element))
    return NAN;
  return flops_per_s / link_bytes_per_s * (double)k * bytes_per_element / (2.0 * (double)a);
}

double ex_hybrid_parallelism_mamba_in_proj(int64_t d_model, int64_t expand, int64_t n_groups,
                                           int64_t d_state, int64_t n_heads) {
  if (d_model < 1 || expand < 1 || n_groups < 1 || d_state < 1 || n_heads < 1) return NAN;
  return 2.0 * (double)expand * (double)d_model + 2.0 * (double)n_groups * (double)d_state +
         (double)n_heads;
}

double ex_hybrid_parallelism_mamba_cp_fwd_bytes(double b, int64_t n_heads, int64_t d_head,
                                                int64_t d_state, int64_t n_groups,
                                                int64_t d_inner, int64_t d_conv, int64_t c,
                                                double bytes_per_element) {
  if (!size_ok(b) || n_heads < 1 || d_head < 1 || d_state < 1 || n_groups < 1 || d_inner < 1 ||
      d_conv < 1 || c < 1 || !pos(bytes_per_element))
    return NAN;
  if (c == 1) return 0.0;
  double state = b * (double)n_heads * (double)d_head * (double)d_state;
  double halo = b * ((double)d_conv - 1.0) *
                ((double)d_inner + 2.0 * (double)n_groups * (double)d_state);
  return (2.0 * ((double)c - 1.0) * state + 2.0 * halo) * bytes_per_element;
}

double ex_hybrid_parallelism_mfu(double n_params, int64_t n_layers, int64_t d_model, double s,
                                 double tokens, double step_s, double n_chips, double flops_per_s) {
  if (!size_ok(n_params) || n_layers < 1 || d_model < 1 || !(isfinite(s) && s >= 1.0) ||
      !size_ok(tokens) || !pos(step_s) || !pos(n_chips) || !pos(flops_per_s))
    return NAN;
  double per_token = 6.0 * n_params + 12.0 * (double)n_layers * (double)d_model * s;
  return per_token * tokens / (step_s * n_chips * flops_per_s);
}

double ex_hybrid_parallelism_guide_pp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_chips) {
  if (!size_ok(n_params) || !size_ok(weight_grad_bytes_per_param) ||
      !size_ok(optimizer_bytes_per_param) || !size_ok(activation_bytes) || !size_ok(hbm_bytes) ||
      n_chips < 1)
    return NAN;
  double n = (double)n_chips;
  for (double k = 1.0; k <= n; k *= 2.0) {
    double dp = n / k;
    double mem = n_params / k * (weight_grad_bytes_per_param + optimizer_bytes_per_param / dp) +
                 activation_bytes;
    if (mem <= hbm_bytes) return k;
  }
  return NAN;
}

double ex_hybrid_parallelism_max_hiding_cp(double s, double min_block_tokens, int64_t n_chips) {
  if (!(isfinite(s) && s >= 1.0) || !size_ok(min_block_tokens) || n_chips < 1) return NAN;
  double best = 1.0;
  for (double c = 2.0; c <= (double)n_chips; c *= 2.0)
    if (s / c >= min_block_tokens) best = c;
  return best;
}

double ex_hybrid_parallelism_guide_tp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_groups, int64_t n_chips) {
  if (!size_ok(n_params) || !size_ok(weight_grad_bytes_per_param) ||
      !size_ok(optimizer_bytes_per_param) || !size_ok(activation_bytes) || !size_ok(hbm_bytes) ||
      n_groups < 1 || n_chips < 1)
    return NAN;
  double n = (double)n_chips;
  for (double t = 1.0; t <= n; t *= 2.0) {
    if (fmod((double)n_groups, t) != 0.0) continue;
    double mem = n_params / t * (weight_grad_bytes_per_param + optimizer_bytes_per_param / (n / t)) +
                 activation_bytes / t;
    if (mem <= hbm_bytes) return t;
  }
  return NAN;
}

double ex_hybrid_parallelism_first_split(int is_mamba, double activation_bytes,
                                         double model_state_bytes) {
  if ((is_mamba != 0 && is_mamba != 1) || !size_ok(activation_bytes) ||
      !size_ok(model_state_bytes))
    return NAN;
  if (is_mamba) return 2.0;
  return activation_bytes > model_state_bytes ? 3.0 : 1.0;
}

/* ---- decision exercises: a layout ------------------------------------------------------------ */

/* The chapter's memory per device of (dp, pp, tp, cp): model state split by tp pp with the
 * optimizer also sharded over the dp x cp replicas (ZeRO-1); 1F1B's first stage keeps one
 * microbatch of the whole depth, which TP (with SP) and CP split. */
static double layout_bytes(double n_params, double wg, double opt, double act, double dp,
                           double pp, double tp, double cp) {
  return n_params / (tp * pp) * (wg + opt / (dp * cp)) + act / (tp * cp);
}

/* The cheapest layout that fits: splits cost DP < PP < CP < TP for a transformer (TP's
 * AllReduces sit on the critical path, CP's ring hides only on long blocks, PP pays a bubble),
 * so the least TP, then the least CP, then the least PP; DP takes the rest. For Mamba-2 on
 * the paper's framework CP comes before PP ('cp_before_pp'): its CP exchanges only chunk
 * states, while each added pipeline stage pays the framework's stage latency (chapter 13).
 * None (all 0) when nothing fits. */
static ex_hybrid_layout cheapest_fit(double n_params, double wg, double opt, double act,
                                     double hbm, int64_t n_tp_units, int64_t n_chips,
                                     bool cp_before_pp) {
  ex_hybrid_layout none = {0, 0, 0, 0};
  if (!pos(n_params) || !pos(wg) || !size_ok(opt) || !size_ok(act) || !pos(hbm) ||
      n_tp_units < 1 || n_chips < 1 || n_chips > (1 << 20) || (n_chips & (n_chips - 1)) != 0)
    return none;
  double n = (double)n_chips;
  for (int64_t tp = 1; tp <= n_chips; tp *= 2) {
    if (n_tp_units % tp != 0) continue;
    /* the outer of the other two splits is the dearer one, kept least */
    for (int64_t outer = 1; tp * outer <= n_chips; outer *= 2)
      for (int64_t inner = 1; tp * outer * inner <= n_chips; inner *= 2) {
        int64_t cp = cp_before_pp ? inner : outer, pp = cp_before_pp ? outer : inner;
        double dp = n / (double)(tp * cp * pp);
        if (layout_bytes(n_params, wg, opt, act, dp, (double)pp, (double)tp, (double)cp) <= hbm)
          return (ex_hybrid_layout){(int64_t)dp, pp, tp, cp};
      }
  }
  return none;
}

ex_hybrid_layout ex_hybrid_parallelism_layout_transformer(double n_params,
                                                          double weight_grad_bytes_per_param,
                                                          double optimizer_bytes_per_param,
                                                          double activation_bytes,
                                                          double hbm_bytes, int64_t n_tp_units,
                                                          int64_t n_chips) {
  return cheapest_fit(n_params, weight_grad_bytes_per_param, optimizer_bytes_per_param,
                      activation_bytes, hbm_bytes, n_tp_units, n_chips, false);
}

ex_hybrid_layout ex_hybrid_parallelism_layout_long_context(double n_params,
                                                           double weight_grad_bytes_per_param,
                                                           double optimizer_bytes_per_param,
                                                           double activation_bytes,
                                                           double hbm_bytes, int64_t n_tp_units,
                                                           int64_t n_chips) {
  return cheapest_fit(n_params, weight_grad_bytes_per_param, optimizer_bytes_per_param,
                      activation_bytes, hbm_bytes, n_tp_units, n_chips, false);
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba(double n_params,
                                                    double weight_grad_bytes_per_param,
                                                    double optimizer_bytes_per_param,
                                                    double activation_bytes, double hbm_bytes,
                                                    int64_t n_tp_units, int64_t n_chips) {
  return cheapest_fit(n_params, weight_grad_bytes_per_param, optimizer_bytes_per_param,
                      activation_bytes, hbm_bytes, n_tp_units, n_chips, true);
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba_long(double n_params,
                                                         double weight_grad_bytes_per_param,
                                                         double optimizer_bytes_per_param,
                                                         double activation_bytes,
                                                         double hbm_bytes, int64_t n_tp_units,
                                                         int64_t n_chips) {
  return cheapest_fit(n_params, weight_grad_bytes_per_param, optimizer_bytes_per_param,
                      activation_bytes, hbm_bytes, n_tp_units, n_chips, true);
}
