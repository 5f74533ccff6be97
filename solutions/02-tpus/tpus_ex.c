/* tpus_ex.c — reference solutions of chapter 2, "How to Think About TPUs".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "tpus_ex.h"

#include <math.h>

double ex_tpus_param_load_time_s(double n_params, double bytes_per_param, int64_t n_chips,
                                 double hbm_bytes_per_s) {
  if (!(n_params >= 0.0) || !(bytes_per_param > 0.0) || n_chips < 1 || !(hbm_bytes_per_s > 0.0))
    return NAN;
  double bytes_per_chip = n_params * bytes_per_param / (double)n_chips;
  return bytes_per_chip / hbm_bytes_per_s;
}

double ex_tpus_pod_hosts(int64_t n_chips, int64_t chips_per_host) {
  if (n_chips < 1 || chips_per_host < 1) return NAN;
  return (double)((n_chips + chips_per_host - 1) / chips_per_host); /* round up */
}

double ex_tpus_pod_cores(int64_t n_chips, int64_t cores_per_chip) {
  if (n_chips < 1 || cores_per_chip < 1) return NAN;
  return (double)n_chips * (double)cores_per_chip;
}

double ex_tpus_pod_flops_per_s(int64_t n_chips, double flops_per_s_per_chip) {
  if (n_chips < 1 || !(flops_per_s_per_chip > 0.0)) return NAN;
  return (double)n_chips * flops_per_s_per_chip;
}

double ex_tpus_pod_hbm_bytes(int64_t n_chips, double hbm_bytes_per_chip) {
  if (n_chips < 1 || !(hbm_bytes_per_chip > 0.0)) return NAN;
  return (double)n_chips * hbm_bytes_per_chip;
}

double ex_tpus_pcie_critical_batch(double flops_per_s, double pcie_bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(pcie_bytes_per_s > 0.0)) return NAN;
  /* 2BDF / C > 2(BD + DF + BF) / W; with B << D and F = 4D: 8BD^2 / C > 8D^2 / W. */
  return flops_per_s / pcie_bytes_per_s;
}

double ex_tpus_critical_batch_exact(int64_t d, int64_t f, double ops_per_s, double bytes_per_s,
                                    double bytes_per_element) {
  if (d < 1 || f < 1 || !(ops_per_s > 0.0) || !(bytes_per_s > 0.0) || !(bytes_per_element > 0.0))
    return NAN;
  double dd = (double)d, fd = (double)f, s = bytes_per_element;
  /* 2BDF / C = s (DF + BD + BF) / W, solved for B:
   *   B (2DF / C - s (D + F) / W) = s DF / W. */
  double per_token = 2.0 * dd * fd / ops_per_s - s * (dd + fd) / bytes_per_s;
  if (!(per_token > 0.0)) return INFINITY;
  return s * dd * fd / bytes_per_s / per_token;
}

double ex_tpus_axis_hops(int64_t from, int64_t to, int64_t n, int wraparound) {
  if (n < 1 || from < 0 || to < 0 || from >= n || to >= n) return NAN;
  int64_t straight = from > to ? from - to : to - from;
  if (wraparound && n - straight < straight) return (double)(n - straight);
  return (double)straight;
}

double ex_tpus_transfer_time_s(double bytes, int64_t n_ports, double link_bytes_per_s, int64_t hops,
                               double hop_latency_s) {
  if (!(bytes >= 0.0) || n_ports < 1 || !(link_bytes_per_s > 0.0) || hops < 0 ||
      !(hop_latency_s >= 0.0))
    return NAN;
  return (double)hops * hop_latency_s + bytes / ((double)n_ports * link_bytes_per_s);
}

double ex_tpus_pcie_load_time_s(double array_bytes, int64_t n_chips, double pcie_bytes_per_s) {
  if (!(array_bytes >= 0.0) || n_chips < 1 || !(pcie_bytes_per_s > 0.0)) return NAN;
  return array_bytes / (double)n_chips / pcie_bytes_per_s;
}

double ex_tpus_gather_to_one_time_s(double array_bytes, int64_t n_chips, int64_t n_links,
                                    double link_bytes_per_s) {
  if (!(array_bytes >= 0.0) || n_chips < 1 || n_links < 1 || !(link_bytes_per_s > 0.0)) return NAN;
  double received = array_bytes * (double)(n_chips - 1) / (double)n_chips;
  return received / ((double)n_links * link_bytes_per_s);
}

double ex_tpus_offload_matvec_time_s(int64_t n, int64_t b, int64_t n_chips, double pcie_bytes_per_s,
                                     int64_t n_ici_links, double ici_link_bytes_per_s,
                                     double hbm_bytes_per_s, double flops_per_s) {
  if (n < 1 || b < 1 || n_chips < 1 || n_ici_links < 1 || !(pcie_bytes_per_s > 0.0) ||
      !(ici_link_bytes_per_s > 0.0) || !(hbm_bytes_per_s > 0.0) || !(flops_per_s > 0.0))
    return NAN;
  double nd = (double)n, bd = (double)b;
  double matrix_bytes = nd * nd; /* int8 */
  double t_pcie = ex_tpus_pcie_load_time_s(matrix_bytes, n_chips, pcie_bytes_per_s);
  double t_ici =
      ex_tpus_gather_to_one_time_s(matrix_bytes, n_chips, n_ici_links, ici_link_bytes_per_s);
  double t_hbm = (matrix_bytes + 2.0 * bd * nd) / hbm_bytes_per_s;
  double t_math = 2.0 * bd * nd * nd / flops_per_s;
  double t = t_pcie;
  if (t_ici > t) t = t_ici;
  if (t_hbm > t) t = t_hbm;
  if (t_math > t) t = t_math;
  return t;
}

double ex_tpus_mxu_flops_per_s(int64_t mxu_dim, double clock_hz, int64_t n_mxu) {
  if (mxu_dim < 1 || !(clock_hz > 0.0) || n_mxu < 1) return NAN;
  double cells = (double)mxu_dim * (double)mxu_dim;
  return 2.0 * cells * clock_hz * (double)n_mxu; /* one multiply-add per cell per cycle */
}

double ex_tpus_mxu_padded_dim(int64_t n, int64_t mxu_dim) {
  if (n < 1 || mxu_dim < 1) return NAN;
  return (double)(((n + mxu_dim - 1) / mxu_dim) * mxu_dim);
}

double ex_tpus_vmem_critical_intensity_flops_per_byte(double flops_per_s, double hbm_bytes_per_s,
                                                      double vmem_to_hbm_ratio) {
  if (!(flops_per_s > 0.0) || !(hbm_bytes_per_s > 0.0) || !(vmem_to_hbm_ratio > 0.0)) return NAN;
  return flops_per_s / (hbm_bytes_per_s * vmem_to_hbm_ratio);
}
