/* tpus_ex.c — exercises of chapter 2, "How to Think About TPUs": your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in tpus_ex.h. Check your work with
 * `scale grade tpus`.
 */
#include "tpus_ex.h"

#include <math.h>

double ex_tpus_param_load_time_s(double n_params, double bytes_per_param, int64_t n_chips,
                                 double hbm_bytes_per_s) {
  (void)n_params; (void)bytes_per_param; (void)n_chips; (void)hbm_bytes_per_s;
  return NAN;
}

double ex_tpus_pod_hosts(int64_t n_chips, int64_t chips_per_host) {
  (void)n_chips; (void)chips_per_host;
  return NAN;
}

double ex_tpus_pod_cores(int64_t n_chips, int64_t cores_per_chip) {
  (void)n_chips; (void)cores_per_chip;
  return NAN;
}

double ex_tpus_pod_flops_per_s(int64_t n_chips, double flops_per_s_per_chip) {
  (void)n_chips; (void)flops_per_s_per_chip;
  return NAN;
}

double ex_tpus_pod_hbm_bytes(int64_t n_chips, double hbm_bytes_per_chip) {
  (void)n_chips; (void)hbm_bytes_per_chip;
  return NAN;
}

double ex_tpus_pcie_critical_batch(double flops_per_s, double pcie_bytes_per_s) {
  (void)flops_per_s; (void)pcie_bytes_per_s;
  return NAN;
}

double ex_tpus_critical_batch_exact(int64_t d, int64_t f, double ops_per_s, double bytes_per_s,
                                    double bytes_per_element) {
  (void)d; (void)f; (void)ops_per_s; (void)bytes_per_s; (void)bytes_per_element;
  return NAN;
}

double ex_tpus_axis_hops(int64_t from, int64_t to, int64_t n, int wraparound) {
  (void)from; (void)to; (void)n; (void)wraparound;
  return NAN;
}

double ex_tpus_transfer_time_s(double bytes, int64_t n_ports, double link_bytes_per_s,
                               int64_t hops, double hop_latency_s) {
  (void)bytes; (void)n_ports; (void)link_bytes_per_s; (void)hops; (void)hop_latency_s;
  return NAN;
}

double ex_tpus_pcie_load_time_s(double array_bytes, int64_t n_chips, double pcie_bytes_per_s) {
  (void)array_bytes; (void)n_chips; (void)pcie_bytes_per_s;
  return NAN;
}

double ex_tpus_gather_to_one_time_s(double array_bytes, int64_t n_chips, int64_t n_links,
                                    double link_bytes_per_s) {
  (void)array_bytes; (void)n_chips; (void)n_links; (void)link_bytes_per_s;
  return NAN;
}

double ex_tpus_offload_matvec_time_s(int64_t n, int64_t b, int64_t n_chips,
                                     double pcie_bytes_per_s, int64_t n_ici_links,
                                     double ici_link_bytes_per_s, double hbm_bytes_per_s,
                                     double flops_per_s) {
  (void)n;
  (void)b;
  (void)n_chips;
  (void)pcie_bytes_per_s;
  (void)n_ici_links;
  (void)ici_link_bytes_per_s;
  (void)hbm_bytes_per_s;
  (void)flops_per_s;
  return NAN;
}

double ex_tpus_mxu_flops_per_s(int64_t mxu_dim, double clock_hz, int64_t n_mxu) {
  (void)mxu_dim; (void)clock_hz; (void)n_mxu;
  return NAN;
}

double ex_tpus_mxu_padded_dim(int64_t n, int64_t mxu_dim) {
  (void)n; (void)mxu_dim;
  return NAN;
}

double ex_tpus_vmem_critical_intensity_flops_per_byte(double flops_per_s, double hbm_bytes_per_s,
                                                      double vmem_to_hbm_ratio) {
  (void)flops_per_s; (void)hbm_bytes_per_s; (void)vmem_to_hbm_ratio;
  return NAN;
}
