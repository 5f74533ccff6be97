/* gpus_ex.c — exercises of chapter 12, "How to Think About GPUs":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in gpus_ex.h. Check your work with
 * `scale grade gpus`.
 */
#include "gpus_ex.h"

#include <math.h>

double ex_gpus_cuda_cores(int64_t n_sms) {
  (void)n_sms;
  return NAN;
}

double ex_gpus_vector_flops_per_s(int64_t n_sms, double clock_hz) {
  (void)n_sms; (void)clock_hz;
  return NAN;
}

double ex_gpus_clock_hz(double vector_fma_flops_per_s, int64_t n_sms) {
  (void)vector_fma_flops_per_s; (void)n_sms;
  return NAN;
}

double ex_gpus_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                             double hbm_bytes_per_s) {
  (void)b; (void)d; (void)f; (void)flops_per_s; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_gpus_vector_add_time_s(double n, double hbm_bytes_per_s) {
  (void)n; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_gpus_node_bandwidth_bytes_per_s(int64_t n_gpus, double gpu_egress_bytes_per_s,
                                          int64_t n_switches, int64_t ports_per_switch,
                                          double port_bytes_per_s) {
  (void)n_gpus; (void)gpu_egress_bytes_per_s; (void)n_switches; (void)ports_per_switch;
  (void)port_bytes_per_s;
  return NAN;
}

double ex_gpus_allgather_time_s(double bytes, int64_t n, double egress_bytes_per_s) {
  (void)bytes; (void)n; (void)egress_bytes_per_s;
  return NAN;
}

double ex_gpus_alltoall_time_s(double bytes, int64_t n, double egress_bytes_per_s) {
  (void)bytes; (void)n; (void)egress_bytes_per_s;
  return NAN;
}

double ex_gpus_allreduce_time_s(double bytes, int64_t n, double egress_bytes_per_s, int64_t sharp) {
  (void)bytes; (void)n; (void)egress_bytes_per_s; (void)sharp;
  return NAN;
}

double ex_gpus_two_level_allgather_time_s(double bytes, int64_t gpus_per_node,
                                          double gpu_egress_bytes_per_s, int64_t n_nodes,
                                          double node_egress_bytes_per_s) {
  (void)bytes; (void)gpus_per_node; (void)gpu_egress_bytes_per_s; (void)n_nodes;
  (void)node_egress_bytes_per_s;
  return NAN;
}

double ex_gpus_dp_critical_batch(double flops_per_s, double collective_bytes_per_s,
                                 int64_t n_experts, int64_t n_active) {
  (void)flops_per_s; (void)collective_bytes_per_s; (void)n_experts; (void)n_active;
  return NAN;
}

double ex_gpus_tp_max_degree(double f, double flops_per_s, double collective_bytes_per_s) {
  (void)f; (void)flops_per_s; (void)collective_bytes_per_s;
  return NAN;
}

double ex_gpus_min_gpus_for_weights_and_adam(double n_params, double hbm_bytes_per_gpu) {
  (void)n_params; (void)hbm_bytes_per_gpu;
  return NAN;
}

double ex_gpus_pipeline_comms_time_s(double b, double d, double bytes_per_s,
                                     int64_t n_microbatches, int64_t n_stages) {
  (void)b; (void)d; (void)bytes_per_s; (void)n_microbatches; (void)n_stages;
  return NAN;
}

double ex_gpus_fat_tree_level_bytes_per_node(int64_t n_nodes, int64_t n_cables,
                                             double cable_bytes_per_s, int64_t n_switch_ports,
                                             double port_bytes_per_s) {
  (void)n_nodes; (void)n_cables; (void)cable_bytes_per_s; (void)n_switch_ports;
  (void)port_bytes_per_s;
  return NAN;
}

double ex_gpus_spine_switches(int64_t n_gpus, int64_t gpus_per_su, double su_uplink_bytes_per_s,
                              double switch_bytes_per_s, int64_t leaf_uplink_ports) {
  (void)n_gpus; (void)gpus_per_su; (void)su_uplink_bytes_per_s; (void)switch_bytes_per_s;
  (void)leaf_uplink_ports;
  return NAN;
}

double ex_gpus_sharded_allgather_time_s(double bytes, int64_t x, int64_t y, int64_t gpus_per_node,
                                        double gpu_egress_bytes_per_s, int64_t n_nodes,
                                        double node_egress_bytes_per_s) {
  (void)bytes; (void)x; (void)y; (void)gpus_per_node; (void)gpu_egress_bytes_per_s;
  (void)n_nodes; (void)node_egress_bytes_per_s;
  return NAN;
}

double ex_gpus_resident_warps(double register_file_bytes, int64_t registers_per_thread,
                              int64_t warp_threads, int64_t max_warps) {
  (void)register_file_bytes; (void)registers_per_thread; (void)warp_threads; (void)max_warps;
  return NAN;
}

ex_gpu_layout ex_gpus_layout_h100(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                  double batch_tokens, double seq_len, double hbm_bytes,
                                  double critical_batch_tokens, int64_t n_chips) {
  (void)n_params; (void)n_heads; (void)n_kv_heads; (void)batch_tokens; (void)seq_len;
  (void)hbm_bytes; (void)critical_batch_tokens; (void)n_chips;
  ex_gpu_layout none = {0, 0, 0}; /* not a layout: it scores nothing */
  return none;
}
