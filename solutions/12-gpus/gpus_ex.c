/* gpus_ex.c — reference solutions of chapter 12,
 * "How to Think About GPUs".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "gpus_ex.h"

#include <math.h>

double ex_gpus_cuda_cores(int64_t n_sms) {
  if (n_sms < 1) return NAN;
  return 4.0 * 32.0 * (double)n_sms;
}

double ex_gpus_vector_flops_per_s(int64_t n_sms, double clock_hz) {
  if (n_sms < 1 || !(clock_hz > 0.0)) return NAN;
  return 4.0 * 32.0 * (double)n_sms * clock_hz;
}

double ex_gpus_clock_hz(double vector_fma_flops_per_s, int64_t n_sms) {
  if (!(vector_fma_flops_per_s > 0.0) || n_sms < 1) return NAN;
  return vector_fma_flops_per_s / (4.0 * 32.0 * (double)n_sms * 2.0);
}

double ex_gpus_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                             double hbm_bytes_per_s) {
  if (b < 1 || d < 1 || f < 1 || !(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0)) return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  double t_math = 2.0 * bd * dd * fd / flops_per_s;
  double t_mem = 2.0 * (bd * dd + dd * fd + bd * fd) / hbm_bytes_per_s;
  return t_math > t_mem ? t_math : t_mem;
}

double ex_gpus_vector_add_time_s(double n, double hbm_bytes_per_s) {
  if (!(n >= 0.0) || !(hbm_bytes_per_s > 0.0)) return NAN;
  return 12.0 * n / hbm_bytes_per_s;
}

double ex_gpus_node_bandwidth_bytes_per_s(int64_t n_gpus, double gpu_egress_bytes_per_s,
                                          int64_t n_switches, int64_t ports_per_switch,
                                          double port_bytes_per_s) {
  if (n_gpus < 1 || !(gpu_egress_bytes_per_s > 0.0) || n_switches < 1 || ports_per_switch < 1 ||
      !(port_bytes_per_s > 0.0))
    return NAN;
  double gpus = (double)n_gpus * gpu_egress_bytes_per_s;
  double switches = (double)n_switches * (double)ports_per_switch * port_bytes_per_s;
  return gpus < switches ? gpus : switches;
}

double ex_gpus_allgather_time_s(double bytes, int64_t n, double egress_bytes_per_s) {
  if (!(bytes >= 0.0) || n < 1 || !(egress_bytes_per_s > 0.0)) return NAN;
  double nd = (double)n;
  return bytes * (nd - 1.0) / (nd * egress_bytes_per_s);
}

double ex_gpus_alltoall_time_s(double bytes, int64_t n, double egress_bytes_per_s) {
  if (!(bytes >= 0.0) || n < 1 || !(egress_bytes_per_s > 0.0)) return NAN;
  double nd = (double)n;
  return bytes * (nd - 1.0) / (egress_bytes_per_s * nd * nd);
}

double ex_gpus_allreduce_time_s(double bytes, int64_t n, double egress_bytes_per_s, int64_t sharp) {
  if (!(bytes >= 0.0) || n < 1 || !(egress_bytes_per_s > 0.0) || (sharp != 0 && sharp != 1))
    return NAN;
  if (sharp) return bytes / egress_bytes_per_s;
  double nd = (double)n;
  return 2.0 * bytes * (nd - 1.0) / (nd * egress_bytes_per_s);
}

double ex_gpus_two_level_allgather_time_s(double bytes, int64_t gpus_per_node,
                                          double gpu_egress_bytes_per_s, int64_t n_nodes,
                                          double node_egress_bytes_per_s) {
  if (!(bytes >= 0.0) || gpus_per_node < 1 || !(gpu_egress_bytes_per_s > 0.0) || n_nodes < 1 ||
      !(node_egress_bytes_per_s > 0.0))
    return NAN;
  double g = (double)gpus_per_node, m = (double)n_nodes;
  double in_node = bytes * (g - 1.0) / (g * gpu_egress_bytes_per_s);
  double across = bytes * (m - 1.0) / (m * node_egress_bytes_per_s);
  return in_node > across ? in_node : across;
}

double ex_gpus_dp_critical_batch(double flops_per_s, double collective_bytes_per_s,
                                 int64_t n_experts, int64_t n_active) {
  if (!(flops_per_s > 0.0) || !(collective_bytes_per_s > 0.0) || n_active < 1 ||
      n_experts < n_active)
    return NAN;
  return flops_per_s / collective_bytes_per_s * (double)n_experts / (double)n_active;
}

double ex_gpus_tp_max_degree(double f, double flops_per_s, double collective_bytes_per_s) {
  if (!(f > 0.0) || !(flops_per_s > 0.0) || !(collective_bytes_per_s > 0.0)) return NAN;
  return f * collective_bytes_per_s / flops_per_s;
}

double ex_gpus_min_gpus_for_weights_and_adam(double n_params, double hbm_bytes_per_gpu) {
  if (!(n_params >= 0.0) || !(hbm_bytes_per_gpu > 0.0)) return NAN;
  return ceil(10.0 * n_params / hbm_bytes_per_gpu);
}

double ex_gpus_pipeline_comms_time_s(double b, double d, double bytes_per_s,
                                     int64_t n_microbatches, int64_t n_stages) {
  if (!(b >= 0.0) || !(d > 0.0) || !(bytes_per_s > 0.0) || n_microbatches < 1 || n_stages < 1)
    return NAN;
  double mb = (double)n_microbatches;
  return 2.0 * b * d / (bytes_per_s * mb) * (mb + (double)n_stages - 2.0);
}

double ex_gpus_fat_tree_level_bytes_per_node(int64_t n_nodes, int64_t n_cables,
                                             double cable_bytes_per_s, int64_t n_switch_ports,
                                             double port_bytes_per_s) {
  if (n_nodes < 1 || n_cables < 1 || !(cable_bytes_per_s > 0.0) || n_switch_ports < 1 ||
      !(port_bytes_per_s > 0.0))
    return NAN;
  double cables = (double)n_cables * cable_bytes_per_s;
  double ports = (double)n_switch_ports * port_bytes_per_s;
  return (cables < ports ? cables : ports) / (double)n_nodes;
}

double ex_gpus_spine_switches(int64_t n_gpus, int64_t gpus_per_su, double su_uplink_bytes_per_s,
                              double switch_bytes_per_s, int64_t leaf_uplink_ports) {
  if (n_gpus < 1 || gpus_per_su < 1 || !(su_uplink_bytes_per_s > 0.0) ||
      !(switch_bytes_per_s > 0.0) || leaf_uplink_ports < 1)
    return NAN;
  double n_sus = ceil((double)n_gpus / (double)gpus_per_su);
  double spines = ceil(n_sus * su_uplink_bytes_per_s / switch_bytes_per_s);
  return spines > (double)leaf_uplink_ports ? (double)INFINITY : spines;
}

/** One level's share of the sharded AllGather: (d - 1) / d x carried / w, 0 when d <= 1. */
static double level_s(double d, double carried, double w) {
  return d > 1.0 ? (d - 1.0) / d * carried / w : 0.0;
}

double ex_gpus_sharded_allgather_time_s(double bytes, int64_t x, int64_t y, int64_t gpus_per_node,
                                        double gpu_egress_bytes_per_s, int64_t n_nodes,
                                        double node_egress_bytes_per_s) {
  if (!(bytes >= 0.0) || x < 1 || y < 1 || gpus_per_node < 1 || n_nodes < 1 ||
      !(gpu_egress_bytes_per_s > 0.0) || !(node_egress_bytes_per_s > 0.0))
    return NAN;
  double g = (double)gpus_per_node, m = (double)n_nodes, xy = (double)x * (double)y,
         yy = (double)y;
  if (xy > g * m) return NAN;
  double d1 = fmin(g, fmin(g, xy) / yy);
  double d2 = fmin(m, fmin(g * m, xy) / fmax(yy, g));
  double t1 = level_s(d1, fmin(1.0, 1.0 / yy), gpu_egress_bytes_per_s);
  double t2 = level_s(d2, fmin(1.0, g / yy), node_egress_bytes_per_s);
  return bytes * (t1 > t2 ? t1 : t2);
}

double ex_gpus_resident_warps(double register_file_bytes, int64_t registers_per_thread,
                              int64_t warp_threads, int64_t max_warps) {
  if (!(register_file_bytes > 0.0) || registers_per_thread < 1 || warp_threads < 1 ||
      max_warps < 1)
    return NAN;
  double fit = floor(register_file_bytes / (4.0 * (double)registers_per_thread *
                                            (double)warp_threads));
  return fit < (double)max_warps ? fit : (double)max_warps;
}

/* ---- a decision: a training layout (the chapter's recipe) ----------------------------------- */

ex_gpu_layout ex_gpus_layout_h100(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                  double batch_tokens, double seq_len, double hbm_bytes,
                                  double critical_batch_tokens, int64_t n_chips) {
  ex_gpu_layout none = {0, 0, 0};
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
  ex_gpu_layout pick = {1, n_chips / tp, tp};
  return pick;
}
