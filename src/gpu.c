/* gpu.c — GPU clusters, switched-network collectives and ch. 12 rooflines (gpu.h). */
#include "scale/gpu.h"

#include <math.h>

#define NaN ((double)NAN)

static bool is_count(double v) { return v >= 1 && v == floor(v) && isfinite(v); }

/* ==== chip and node ========================================================================= */

double scale_gpu_fp32_cores(const scale_chip *chip) {
  if (!(chip->n_cores > 0)) return NaN;
  return chip->n_cores * SCALE_GPU_SUBPARTITIONS_PER_SM * SCALE_GPU_FP32_LANES_PER_SUBPARTITION;
}

double scale_gpu_vector_flops_per_s_at(const scale_chip *chip, double clock_hz,
                                       double flops_per_cycle) {
  if (!(clock_hz > 0) || !(flops_per_cycle > 0)) return NaN;
  return scale_gpu_fp32_cores(chip) * clock_hz * flops_per_cycle;
}

double scale_gpu_vector_clock_hz(const scale_chip *chip, double flops_per_cycle) {
  if (!(flops_per_cycle > 0) || !(chip->vector_flops_per_s > 0)) return NaN;
  return chip->vector_flops_per_s / (scale_gpu_fp32_cores(chip) * flops_per_cycle);
}

scale_dtype scale_gpu_dtype8(const scale_chip *chip) {
  return isfinite(scale_chip_flops_per_s(chip, SCALE_DTYPE_FP8)) ? SCALE_DTYPE_FP8
                                                                 : SCALE_DTYPE_INT8;
}

double scale_gpu_flops_per_tensor_core_cycle_at(const scale_chip *chip, scale_dtype dtype,
                                                double clock_hz) {
  if (!(clock_hz > 0)) return NaN;
  return scale_chip_flops_per_s(chip, dtype) / (chip->n_cores * chip->n_matmul_units * clock_hz);
}

double scale_gpu_flops_per_tensor_core_cycle(const scale_chip *chip, scale_dtype dtype) {
  return scale_gpu_flops_per_tensor_core_cycle_at(chip, dtype, chip->clock_hz);
}

double scale_gpu_matmul_to_vector_ratio(const scale_chip *chip, scale_dtype dtype) {
  return scale_chip_flops_per_s(chip, dtype) / chip->vector_flops_per_s;
}

double scale_gpu_node_switch_bytes_per_s(const scale_chip *chip) {
  return chip->n_nvswitches * chip->nvswitch_bytes_per_s;
}

double scale_gpu_node_bytes_per_s(const scale_chip *chip) {
  double links = chip->nvlink_domain_size * chip->nvlink_bytes_per_s;
  double switches = scale_gpu_node_switch_bytes_per_s(chip);
  return isnan(switches) ? links : fmin(links, switches);
}

double scale_gpu_node_bisection_bytes_per_s(const scale_chip *chip) {
  return chip->nvlink_domain_size * chip->nvlink_bytes_per_s;
}

/* ==== the fat tree ========================================================================== */

/* Every level joins at least two members over a link of positive bandwidth. A level of one
 * member is no level: its AllGather bandwidth f W / (f - 1) divides by zero. */
static bool tree_ok(const scale_chip *chip) {
  if (chip->n_net_levels < 1 || chip->n_net_levels > SCALE_NET_LEVELS_MAX) return false;
  for (int i = 0; i < chip->n_net_levels; i++) {
    const scale_net_level *l = &chip->net_levels[i];
    if (!is_count(l->fanout) || l->fanout < 2 || !(l->member_bytes_per_s > 0)) return false;
  }
  return true;
}

double scale_gpu_level_member_gpus(const scale_chip *chip, int level) {
  if (level < 1 || level > chip->n_net_levels) return level == 0 ? 1.0 : NaN;
  double s = 1.0;
  for (int i = 0; i < level - 1; i++)
    s *= chip->net_levels[i].fanout;
  return s;
}

double scale_gpu_level_gpus(const scale_chip *chip, int level) {
  if (level < 1 || level > chip->n_net_levels) return NaN;
  return scale_gpu_level_member_gpus(chip, level) * chip->net_levels[level - 1].fanout;
}

double scale_gpu_level_allgather_bytes_per_s(const scale_chip *chip, int level) {
  if (level < 1 || level > chip->n_net_levels || !tree_ok(chip)) return NaN;
  const scale_net_level *l = &chip->net_levels[level - 1];
  return l->fanout * l->member_bytes_per_s / (l->fanout - 1.0);
}

int scale_gpu_levels_spanned(const scale_chip *chip, double n_gpus) {
  if (!(n_gpus > 1)) return 0;
  for (int level = 1; level <= chip->n_net_levels; level++)
    if (n_gpus <= scale_gpu_level_gpus(chip, level)) return level;
  return -1;
}

/* [listing:gpu_all_gather] The time of a ring at every level of the tree, levels overlapped.
 * 'ring' counts the (d-1)/d of a ring; without it (SHARP) the switches reduce in place. */
static double tree_s(const scale_chip *chip, double x, double y, double bytes, bool ring) {
  if (!is_count(x) || !is_count(y) || !(bytes >= 0)) return NaN;
  double extent = x * y;
  if (!tree_ok(chip) || extent > scale_gpu_level_gpus(chip, chip->n_net_levels)) return NaN;
  double worst = 0.0;
  for (int i = 1; i <= chip->n_net_levels; i++) {
    double below = scale_gpu_level_member_gpus(chip, i); /* S_(i-1) */
    if (extent <= below) break;                          /* the group stays inside a member */
    const scale_net_level *l = &chip->net_levels[i - 1];
    double span = fmin(below * l->fanout, extent);     /* GPUs of one level-i unit used */
    double d = fmin(l->fanout, span / fmax(y, below)); /* members holding the group */
    if (d <= 1.0) continue;
    double share = fmin(1.0, below / y); /* of the array each member carries */
    double passes = ring ? (d - 1.0) / d : 1.0;
    worst = fmax(worst, passes * share / l->member_bytes_per_s);
  }
  return bytes * worst;
}
/* [/listing:gpu_all_gather] */

double scale_gpu_all_gather_s(const scale_chip *chip, double x, double y, double bytes) {
  return tree_s(chip, x, y, bytes, true);
}

double scale_gpu_allgather_bytes_per_s(const scale_chip *chip, double n_gpus) {
  if (!(n_gpus >= 2)) return NaN;
  return 1.0 / scale_gpu_all_gather_s(chip, n_gpus, 1.0, 1.0);
}

double scale_gpu_all_reduce_s(const scale_chip *chip, double x, double y, double bytes, int sharp) {
  return sharp ? tree_s(chip, x, y, bytes, false) : 2.0 * tree_s(chip, x, y, bytes, true);
}

double scale_gpu_all_to_all_s(const scale_chip *chip, double n, double bytes) {
  if (!is_count(n) || !(bytes >= 0) || !tree_ok(chip)) return NaN;
  double node = chip->net_levels[0].fanout;
  if (n <= node) return bytes * (n - 1.0) / (chip->net_levels[0].member_bytes_per_s * n * n);
  double m = n / node;
  if (m != floor(m) || chip->n_net_levels < 2 || n > scale_gpu_level_gpus(chip, chip->n_net_levels))
    return NaN;
  return bytes * (m - 1.0) / (m * m * chip->net_levels[1].member_bytes_per_s);
}

double scale_gpu_ragged_all_to_all_frac(double k, double z) {
  if (!(z >= 1) || !(k >= 0)) return NaN;
  return 1.0 - pow((z - 1.0) / z, k);
}

double scale_gpu_all_gather_su_book_s(const scale_chip *chip, double y, double bytes) {
  if (chip->n_net_levels < 2 || !(y >= 1) || !(bytes >= 0)) return NaN;
  double node = chip->net_levels[0].fanout, nodes = chip->net_levels[1].fanout;
  double w = chip->net_levels[1].member_bytes_per_s;
  if (y <= node) return bytes * (nodes - 1.0) / nodes / w; /* every node, the whole array */
  return bytes * node / (y * w);                            /* each node D_1 / y of it */
}

/* ==== LLM rooflines ========================================================================= */

double scale_gpu_dp_critical_batch(const scale_chip *chip, scale_dtype dtype, double x,
                                   double moe_factor) {
  if (!(x >= 2) || !(moe_factor >= 1)) return NaN;
  /* T_math = 8 B D F / (X C) vs T_comms = 8 D F x (AllGather seconds per byte over X). */
  return scale_chip_flops_per_s(chip, dtype) * moe_factor * scale_gpu_all_gather_s(chip, x, 1, 1);
}

double scale_gpu_dp_critical_batch_book(const scale_chip *chip, scale_dtype dtype,
                                        double mp_gpus, double moe_factor) {
  if (chip->n_net_levels < 2 || !(mp_gpus >= 1) || !(moe_factor >= 1)) return NaN;
  double nodes = fmax(1.0, mp_gpus / chip->net_levels[0].fanout); /* a replica's nodes */
  return scale_chip_flops_per_s(chip, dtype) * moe_factor / chip->net_levels[1].member_bytes_per_s /
         nodes;
}

double scale_gpu_tp_max_degree(const scale_chip *chip, scale_dtype dtype, double f) {
  if (chip->n_net_levels < 2 || !(f > 0)) return NaN;
  double c = scale_chip_flops_per_s(chip, dtype);
  double in_node = f * chip->net_levels[0].member_bytes_per_s / c;
  double node = chip->net_levels[0].fanout;
  if (in_node < node) return in_node;
  return node + f * chip->net_levels[1].member_bytes_per_s / c;
}

double scale_gpu_ep_compute_comms_ratio(const scale_chip *chip, scale_dtype dtype, double b,
                                        double d, double f, double k, double z) {
  if (chip->n_net_levels < 2) return NaN;
  double node = chip->net_levels[0].fanout;
  if (!(z > node) || !(b > 0) || !(d > 0) || !(f > 0) || !(k > 0)) return NaN;
  double c = scale_chip_flops_per_s(chip, dtype);
  double t_math = 4.0 * b * k * d * f / (z * c);
  double t_comms = 4.0 * b * d * (z - node) / (chip->net_levels[1].member_bytes_per_s * z) *
                   fmin(node * k / z, 1.0);
  return t_math / t_comms;
}

double scale_gpu_pp_comms_s(double b, double d, double n_microbatches, double n_stages,
                            double bytes_per_s) {
  if (!(b > 0) || !(d > 0) || !is_count(n_microbatches) || !is_count(n_stages) ||
      !(bytes_per_s > 0))
    return NaN;
  return 2.0 * b * d / (bytes_per_s * n_microbatches) * (n_microbatches + n_stages - 2.0);
}

/* ==== trees beyond the data file, inner axes, the EP limit ================================== */

/* [listing:extend_tree] */
void scale_gpu_tree_extend(const scale_chip *chip, double n_gpus, scale_chip *out) {
  *out = *chip;
  double top = scale_gpu_level_gpus(chip, chip->n_net_levels);
  if (!(n_gpus > top) || chip->n_net_levels >= SCALE_NET_LEVELS_MAX) return;
  const scale_net_level *last = &chip->net_levels[chip->n_net_levels - 1];
  out->net_levels[out->n_net_levels++] = (scale_net_level){
      .fanout = ceil(n_gpus / top), .member_bytes_per_s = last->fanout * last->member_bytes_per_s};
}
/* [/listing:extend_tree] */

/* [listing:dp_threshold] */
double scale_gpu_dp_critical_batch_inner(const scale_chip *chip, scale_dtype dtype, double x,
                                         double y, double moe_factor) {
  if (!(moe_factor >= 1)) return NaN;
  scale_chip tree;
  scale_gpu_tree_extend(chip, x * y, &tree);
  return scale_chip_flops_per_s(chip, dtype) * moe_factor * scale_gpu_all_gather_s(&tree, x, y, 1);
}
/* [/listing:dp_threshold] */

double scale_gpu_ep_max_degree(const scale_chip *chip, scale_dtype dtype, double f, double k,
                               double z_cap) {
  if (chip->n_net_levels < 2 || !(f > 0) || !(k > 0)) return NaN;
  double lo = chip->net_levels[0].fanout, hi = z_cap;
  if (!(z_cap > lo)) return NaN;
  /* B and D cancel in the ratio; any positive values do. */
  if (scale_gpu_ep_compute_comms_ratio(chip, dtype, 1.0, 1.0, f, k, hi) >= 1.0) return hi;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (scale_gpu_ep_compute_comms_ratio(chip, dtype, 1.0, 1.0, f, k, mid) >= 1.0)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int scale_gpu_group_sizes(const scale_chip *chip, double max_gpus, double *out, int cap) {
  if (chip->n_net_levels < 1) return 0;
  double node = chip->net_levels[0].fanout;
  int n = 0;
  for (double x = 2; x <= node && x <= max_gpus && n < cap; x++)
    out[n++] = x;
  /* whole nodes: every count up to 64, then doubling */
  for (double k = 2; k * node <= max_gpus && n < cap; k = k < 64 ? k + 1 : 2 * k)
    out[n++] = k * node;
  return n;
}

/* ==== summary tables ======================================================================== */

scale_dtype scale_gpu_dtype16(const scale_chip *chip) {
  return isfinite(scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16)) ? SCALE_DTYPE_BF16
                                                                  : SCALE_DTYPE_FP16;
}

/* Level l's fanout D_l and member egress W_l (1-based); NaN beyond the chip's levels. */
static double fanout(const scale_chip *chip, int l) {
  return l >= 1 && l <= chip->n_net_levels ? chip->net_levels[l - 1].fanout : NaN;
}
static double egress(const scale_chip *chip, int l) {
  return l >= 1 && l <= chip->n_net_levels ? chip->net_levels[l - 1].member_bytes_per_s : NaN;
}

static int copy_rows(scale_quantity *out, const scale_quantity *rows, int n) {
  for (int i = 0; i < n; i++)
    out[i] = rows[i];
  return n;
}
#define COPY_ROWS(out, rows) copy_rows(out, rows, (int)(sizeof rows / sizeof rows[0]))

int scale_gpu_chip_summary(const scale_chip *c, scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  scale_dtype d16 = scale_gpu_dtype16(c), d8 = scale_gpu_dtype8(c);
  const scale_quantity q[] = {
      {"sms", "SMs", c->n_cores, "", SCALE_FMT_PLAIN},
      {"tc_per_sm", "tensor cores per SM", c->n_matmul_units, "", SCALE_FMT_PLAIN},
      {"clock", "boost clock", c->clock_hz, "Hz", SCALE_FMT_SI},
      {"flops16", "16-bit matmul peak", scale_chip_flops_per_s(c, d16), "FLOP/s", SCALE_FMT_SCI},
      {"flops8", "8-bit matmul peak", scale_chip_flops_per_s(c, d8), "FLOP/s", SCALE_FMT_SCI},
      {"vector", "vector (CUDA core) fp32", c->vector_flops_per_s, "FLOP/s", SCALE_FMT_SCI},
      {"matmul_over_vector", "matmul / vector rate", scale_gpu_matmul_to_vector_ratio(c, d16), "",
       SCALE_FMT_PLAIN},
      {"flops_per_tc_cycle", "FLOPs per tensor core per cycle",
       scale_gpu_flops_per_tensor_core_cycle(c, d16), "FLOP", SCALE_FMT_PLAIN},
      {"hbm", "HBM capacity", c->hbm_bytes, "B", SCALE_FMT_SI},
      {"hbm_bw", "HBM bandwidth", c->hbm_bytes_per_s, "B/s", SCALE_FMT_SI},
      {"smem", "SMEM per SM", c->smem_bytes_per_core, "B", SCALE_FMT_IEC},
      {"l2", "L2 cache", c->l2_bytes, "B", SCALE_FMT_SI},
      {"smem_total", "SMEM over all SMs", c->smem_bytes_per_core * c->n_cores, "B", SCALE_FMT_SI},
      {"regs_total", "registers over all SMs", c->register_bytes_per_core * c->n_cores, "B",
       SCALE_FMT_SI},
      {"int16", "critical intensity, 16-bit", scale_chip_hbm_intensity(c, d16), "FLOP/byte",
       SCALE_FMT_PLAIN},
      {"int8bit", "critical intensity, 8-bit", scale_chip_hbm_intensity(c, d8), "FLOP/byte",
       SCALE_FMT_PLAIN},
      {"vector_intensity", "vector rate / HBM bandwidth",
       c->vector_flops_per_s / c->hbm_bytes_per_s, "FLOP/byte", SCALE_FMT_PLAIN},
      {"nvlink", "NVLink egress per GPU", c->nvlink_bytes_per_s, "B/s", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}

int scale_gpu_node_summary(const scale_chip *c, scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  const scale_quantity q[] = {
      {"node_gpus", "GPUs per node", fanout(c, 1), "", SCALE_FMT_PLAIN},
      {"gpu_egress", "GPU egress", egress(c, 1), "B/s", SCALE_FMT_SI},
      {"node_egress", "node egress", egress(c, 2), "B/s", SCALE_FMT_SI},
      {"switch_bw", "NVSwitch capacity", scale_gpu_node_switch_bytes_per_s(c), "B/s", SCALE_FMT_SI},
      {"node_bw", "peak through the node", scale_gpu_node_bytes_per_s(c), "B/s", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}

int scale_gpu_level_summary(const scale_chip *c, int level,
                            scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  double d = fanout(c, level), w = egress(c, level);
  const scale_quantity q[] = {
      {"fanout", "members", d, "", SCALE_FMT_PLAIN},
      {"gpus", "GPUs joined", scale_gpu_level_gpus(c, level), "", SCALE_FMT_PLAIN},
      {"member_bw", "egress of one member", w, "B/s", SCALE_FMT_SI},
      {"per_gpu", "egress per GPU", w / scale_gpu_level_member_gpus(c, level), "B/s", SCALE_FMT_SI},
      {"total", "egress of all members into the level", d * w, "B/s", SCALE_FMT_SI},
      {"ag_bw", "AllGather bandwidth D W / (D - 1)",
       scale_gpu_level_allgather_bytes_per_s(c, level), "B/s", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}

int scale_gpu_dp_summary(const scale_chip *c, double moe_factor,
                         scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  scale_dtype d16 = scale_gpu_dtype16(c);
  double n = fanout(c, 1), cc = scale_chip_flops_per_s(c, d16);
  double all = scale_gpu_level_gpus(c, c->n_net_levels);
  const scale_quantity q[] = {
      {"node", "DP in a node, exact", scale_gpu_dp_critical_batch_inner(c, d16, n, 1, 1), "tokens",
       SCALE_FMT_PLAIN},
      {"node_asym", "DP in a node, C / W_gpu", cc / egress(c, 1), "tokens", SCALE_FMT_PLAIN},
      {"two_nodes", "DP over 2 nodes, exact",
       scale_gpu_dp_critical_batch_inner(c, d16, 2 * n, 1, 1), "tokens", SCALE_FMT_PLAIN},
      {"two_nodes_book", "DP over 2 nodes, C / W_node x 1/2", cc / egress(c, 2) * 0.5, "tokens",
       SCALE_FMT_PLAIN},
      {"tree", "DP over the whole tree, exact",
       scale_gpu_dp_critical_batch_inner(c, d16, all, 1, 1), "tokens", SCALE_FMT_PLAIN},
      {"beyond_asym", "DP beyond a node, C / W_node",
       scale_gpu_dp_critical_batch_book(c, d16, 1, 1), "tokens", SCALE_FMT_PLAIN},
      {"moe_tree", "MoE DP over the tree, exact",
       scale_gpu_dp_critical_batch_inner(c, d16, all, 1, moe_factor), "tokens", SCALE_FMT_PLAIN},
      {"moe_asym", "MoE DP, E/k x C / W_node",
       scale_gpu_dp_critical_batch_book(c, d16, 1, moe_factor), "tokens", SCALE_FMT_PLAIN}};
  return COPY_ROWS(out, q);
}

int scale_gpu_collective_summary(const scale_chip *c,
                                 scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  double n = fanout(c, 1), all = scale_gpu_level_gpus(c, c->n_net_levels);
  double ar = scale_gpu_all_reduce_s(c, n, 1, 1, 0), sharp = scale_gpu_all_reduce_s(c, n, 1, 1, 1);
  const scale_quantity q[] = {
      {"ag_node_bw", "AllGather bandwidth in a node", 1.0 / scale_gpu_all_gather_s(c, n, 1, 1.0),
       "B/s", SCALE_FMT_SI},
      {"ar_node_bw", "AllReduce bandwidth in a node, no SHARP", 1.0 / ar, "B/s", SCALE_FMT_SI},
      {"ar_sharp_node_bw", "AllReduce bandwidth in a node, SHARP", 1.0 / sharp, "B/s",
       SCALE_FMT_SI},
      {"sharp_gain", "SHARP speed-up in theory", ar / sharp, "", SCALE_FMT_PLAIN},
      {"ar_sharp_pod_bw", "AllReduce bandwidth over the pod, SHARP",
       1.0 / scale_gpu_all_reduce_s(c, all, 1, 1.0, 1), "B/s", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}

/* ==== curves for figures ===================================================================== */

int scale_gpu_curve(const scale_chip *chip, scale_gpu_curve_kind kind, double x_max, double *x,
                    double *y, int cap) {
  scale_dtype d16 = scale_gpu_dtype16(chip);
  bool widths = kind == SCALE_GPU_CURVE_TP_DEGREE || kind == SCALE_GPU_CURVE_EP_DEGREE;
  int n = 0;
  if (widths && cap >= 2 && x_max > 1e3) {
    n = cap;
    for (int i = 0; i < n; i++)
      x[i] = 1e3 * pow(x_max / 1e3, (double)i / (double)(n - 1));
  } else if (!widths) {
    double top = scale_gpu_level_gpus(chip, chip->n_net_levels);
    n = scale_gpu_group_sizes(chip, x_max > 0 ? x_max : top, x, cap);
  }
  for (int i = 0; i < n; i++)
    switch (kind) {
    case SCALE_GPU_CURVE_ALLGATHER_BW:
      y[i] = scale_gpu_allgather_bytes_per_s(chip, x[i]);
      break;
    case SCALE_GPU_CURVE_DP_BATCH:
      y[i] = scale_gpu_dp_critical_batch_inner(chip, d16, x[i], 1, 1);
      break;
    case SCALE_GPU_CURVE_TP_DEGREE:
      y[i] = scale_gpu_tp_max_degree(chip, d16, x[i]);
      break;
    default:
      y[i] = scale_gpu_ep_max_degree(chip, d16, x[i], SCALE_GPU_CURVE_EP_K, SCALE_GPU_CURVE_EP_CAP);
    }
  return n;
}
