/* gpu.c — GPU clusters, switched-network collectives and ch. 12 rooflines (gpu.h). */
#include "scale/gpu.h"

#include <math.h>
#include <stdio.h>

#include "scale/roofline.h"

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

int scale_gpu_tree_summary(const scale_chip *c, scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  double all = scale_gpu_level_gpus(c, c->n_net_levels);
  const scale_quantity q[] = {{"tree_gpus", "GPUs in the tree", all, "", SCALE_FMT_PLAIN},
                              {"tree_ag_bw", "AllGather bandwidth of the whole tree",
                               scale_gpu_allgather_bytes_per_s(c, all), "B/s", SCALE_FMT_SI}};
  return COPY_ROWS(out, q);
}

/* ==== ch. 12's worked examples ============================================================== */

#define PLAIN SCALE_FMT_PLAIN
#define SI SCALE_FMT_SI
#define SCI SCALE_FMT_SCI
#define TIME SCALE_FMT_TIME

/* Fills table t with 'stem' and rows[0..n); returns 1 (one table written). */
static int table(scale_gpu_table *t, const char *stem, const scale_quantity *rows, int n) {
  snprintf(t->stem, sizeof t->stem, "%s", stem);
  t->n = copy_rows(t->row, rows, n < SCALE_GPU_TABLE_MAX ? n : SCALE_GPU_TABLE_MAX);
  return 1;
}
#define TABLE(t, stem, rows) table(t, stem, rows, (int)(sizeof rows / sizeof rows[0]))

/* The 16-bit matmul rate of the chip (the book's C). */
static double c16(const scale_chip *c) { return scale_chip_flops_per_s(c, scale_gpu_dtype16(c)); }

/* Quiz 1's inputs: the clocks the book's tensor-core arithmetic uses (not the boost clocks),
 * the H100's base clock (Q2), a TPU core's VPU (8 sublanes x 128 lanes x 4 ALUs), an FMA. */
#define H100_TC_CLOCK_HZ 1.76e9
#define B200_TC_CLOCK_HZ 1.86e9
#define H100_BASE_CLOCK_HZ 1.59e9
#define TPU_VPU_ALUS_PER_CORE (4.0 * 8.0 * 128.0)
#define FMA_FLOPS 2.0

/* Quiz 1 Q4: an fp16 matmul of batch b by a [4096, 8192] weight on the chip. */
static int quiz1_matmul(const scale_chip *b200, double b, scale_gpu_table *t) {
  scale_matmul mm = scale_matmul_bf16(b, 4096.0, 8192.0);
  mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_FP16;
  scale_roofline_estimate e = scale_roofline_matmul_eval(b200, &mm);
  char stem[32];
  snprintf(stem, sizeof stem, "q1.b%.0f", b);
  const scale_quantity q[] = {{"b", "batch B", b, "", PLAIN},
                              {"bytes", "bytes 2BD + 2DF + 2BF", e.bytes, "B", SI},
                              {"t_math", "T_math", e.t_math_s, "s", TIME},
                              {"t_comms", "T_comms", e.t_comms_s, "s", TIME},
                              {"t", "max(T_math, T_comms)", e.t_lower_s, "s", TIME}};
  return TABLE(t, stem, q);
}

/* Quiz 1 Q5-Q7: SMEM and registers against VMEM, the B200's clock, adding two fp32[N]. */
static int quiz1_vector(const scale_chip *h100, const scale_chip *b200, const scale_chip *v5e,
                        scale_gpu_table *t) {
  double boost = scale_gpu_vector_flops_per_s_at(h100, h100->clock_hz, 1); /* 1 op a cycle */
  const double n64k = 65536.0, n1g = 1073741824.0, hbm = h100->hbm_bytes_per_s;
  const scale_quantity q[] = {
      {"h100_smem_plus_regs", "H100 SMEM + registers",
       (h100->smem_bytes_per_core + h100->register_bytes_per_core) * h100->n_cores, "B", SI},
      {"v5e_vmem", "TPU v5e VMEM", v5e->vmem_bytes, "B", SI},
      {"b200_flops_per_cycle", "B200 vector FLOPs per cycle (FMA)",
       scale_gpu_fp32_cores(b200) * FMA_FLOPS, "FLOP", PLAIN},
      {"b200_clock", "B200 clock implied by 80 TFLOP/s", scale_gpu_vector_clock_hz(b200, FMA_FLOPS),
       "Hz", SI},
      {"add_intensity", "intensity of an fp32 add", scale_roofline_intensity_flops_per_byte(1, 12),
       "FLOP/byte", PLAIN},
      {"h100_vector_intensity", "H100 vector critical intensity (no FMA)", boost / hbm, "FLOP/byte",
       PLAIN},
      {"add_rate", "elements per second, HBM-bound", hbm / 12.0, "elements/s", SCI},
      {"add_t_64k", "add time", scale_roofline_eval(n64k, 12.0 * n64k, boost, hbm).t_lower_s, "s",
       TIME},
      {"add_t_1g", "add time", scale_roofline_eval(n1g, 12.0 * n1g, boost, hbm).t_lower_s, "s",
       TIME},
      {"n_64k", "N", n64k, "", PLAIN},
      {"n_1g", "N", n1g, "", SCI}};
  return TABLE(t, "q1", q);
}

int scale_gpu_quiz1_tables(const scale_chip *h100, const scale_chip *b200, const scale_chip *v5p,
                           const scale_chip *v5e, scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  double boost = scale_gpu_vector_flops_per_s_at(h100, h100->clock_hz, 1); /* Q2: 1 op a cycle */
  const scale_quantity q[] = {
      {"subpartitions_per_sm", "subpartitions per SM", SCALE_GPU_SUBPARTITIONS_PER_SM, "", PLAIN},
      {"h100_cuda_cores", "H100 fp32 CUDA cores", scale_gpu_fp32_cores(h100), "", PLAIN},
      {"b200_cuda_cores", "B200 fp32 CUDA cores", scale_gpu_fp32_cores(b200), "", PLAIN},
      {"h100_tc_clock", "H100 tensor-core clock (book)", H100_TC_CLOCK_HZ, "Hz", SI},
      {"h100_tc_flops_per_cycle", "H100 FLOPs per tensor core per cycle",
       scale_gpu_flops_per_tensor_core_cycle_at(h100, SCALE_DTYPE_BF16, H100_TC_CLOCK_HZ), "FLOP",
       PLAIN},
      {"b200_tc_clock", "B200 clock (book footnote)", B200_TC_CLOCK_HZ, "Hz", SI},
      {"b200_tc_flops_per_cycle", "B200 FLOPs per tensor core per cycle",
       scale_gpu_flops_per_tensor_core_cycle_at(b200, SCALE_DTYPE_BF16, B200_TC_CLOCK_HZ), "FLOP",
       PLAIN},
      {"v5p_alus", "TPU v5p VPU ALUs", v5p->n_cores * TPU_VPU_ALUS_PER_CORE, "", PLAIN},
      {"h100_base_clock", "H100 base clock", H100_BASE_CLOCK_HZ, "Hz", SI},
      {"h100_vector_base", "H100 vector fp32, base clock",
       scale_gpu_vector_flops_per_s_at(h100, H100_BASE_CLOCK_HZ, 1), "FLOP/s", SI},
      {"h100_vector_boost", "H100 vector fp32, boost", boost, "FLOP/s", SI},
      {"h100_tc_over_vector", "tensor cores / CUDA cores (no FMA)", c16(h100) / boost, "", PLAIN},
      {"d", "D", 4096.0, "", PLAIN},
      {"f", "F", 8192.0, "", PLAIN}};
  int n = TABLE(&out[0], "q1", q);
  n += quiz1_matmul(b200, 64.0, &out[n]);
  n += quiz1_matmul(b200, 512.0, &out[n]);
  return n + quiz1_vector(h100, b200, v5e, &out[n]);
}

int scale_gpu_quiz2_tables(const scale_chip *h, scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  double bytes = 2.0 * 4096.0 * 65536.0; /* Q3: bf16[4096, 65536] gathered over 8 GPUs */
  const scale_quantity node[] = {
      {"h100_switch_bw", "4 NVSwitches x 64 ports x 25 GB/s", scale_gpu_node_switch_bytes_per_s(h),
       "B/s", SI},
      {"h100_gpu_bw", "8 GPUs x 450 GB/s", h->nvlink_domain_size * h->nvlink_bytes_per_s, "B/s",
       SI},
      {"h100_bw", "peak through the node (the smaller)", scale_gpu_node_bytes_per_s(h), "B/s", SI},
      {"h100_bisection", "bisection bandwidth (both directions)",
       scale_gpu_node_bisection_bytes_per_s(h), "B/s", SI},
      {"h100_switches", "NVSwitches per node", h->n_nvswitches, "", PLAIN},
      {"h100_switch_one", "one NVSwitch", h->nvswitch_bytes_per_s, "B/s", SI}};
  const scale_quantity q2[] = {
      {"d", "D", 4096.0, "", PLAIN},
      {"f", "F", 65536.0, "", PLAIN},
      {"bytes", "bf16[4096, 65536]", bytes, "B", SI},
      {"ag_s", "AllGather over the node", scale_gpu_all_gather_s(h, 8, 1, bytes), "s", TIME},
      {"ag_asymptote_s", "bytes / GPU egress", bytes / h->nvlink_bytes_per_s, "s", TIME}};
  return TABLE(&out[0], "node", node) + TABLE(&out[1], "q2", q2);
}

int scale_gpu_quiz3_tables(const scale_chip *h, const scale_chip *gb200,
                           scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  /* Q2: a core level beyond the data file's tree joins 16 pods of 1024 GPUs */
  scale_chip big;
  scale_gpu_tree_extend(h, 16384.0, &big);
  const scale_quantity gb[] = {{"egress_over_h100", "GB200 rack egress / H100 node egress",
                                egress(gb200, 2) / egress(h, 2), "", PLAIN},
                               {"gpus_over_h100", "GPUs per GB200 rack / per H100 node",
                                fanout(gb200, 1) / fanout(h, 1), "", PLAIN}};
  const scale_quantity q3[] = {
      {"spine_per_node", "spine egress per node", egress(h, 3) / fanout(h, 2), "B/s", SI},
      {"scaleout_per_gpu", "scale-out egress per GPU", egress(h, 2) / fanout(h, 1), "B/s", SI},
      {"g2048", "GPUs", 2048.0, "", PLAIN},
      {"g4096", "GPUs", 4096.0, "", PLAIN},
      {"sus_2048", "SUs in 2048 GPUs", 2048.0 / scale_gpu_level_gpus(h, 2), "", PLAIN},
      {"pods_4096", "1024-GPU pods in 4096 GPUs", 4096.0 / scale_gpu_level_gpus(h, h->n_net_levels),
       "", PLAIN},
      {"core_member_bw", "egress of one pod into a core level (full bisection)", egress(&big, 4),
       "B/s", SI}};
  return TABLE(&out[0], "gb200", gb) + TABLE(&out[1], "q3", q3);
}

/* Pop Quiz 3 over one SU for each inner axis Y, then Quiz 4 (the Pop Quiz 3 array, Q3 and Q4)
 * and the sample array. */
static int su_tables(const scale_chip *h, double bytes, scale_gpu_table *out) {
  static const double ys[] = {1, 2, 4, 8, 16, 32, 64};
  double n = fanout(h, 1), su = scale_gpu_level_gpus(h, 2);
  int k = 0;
  for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
    char stem[32];
    snprintf(stem, sizeof stem, "pq3.y%.0f", ys[i]);
    /* the book's answer: leaf-bound up to Y = 8, then 2DF / (Y x 50 GB/s) */
    const scale_quantity y[] = {{"y", "Y", ys[i], "", PLAIN},
                                {"t", "AllGather over the SU",
                                 scale_gpu_all_gather_s(h, su / ys[i], ys[i], bytes), "s", TIME},
                                {"t_book", "the book's formula",
                                 scale_gpu_all_gather_su_book_s(h, ys[i], bytes), "s", TIME}};
    k += TABLE(&out[k], stem, y);
  }
  double spine = scale_gpu_all_reduce_s(h, 4, su, bytes, 1);
  const scale_quantity q4[] = {
      {"su_ag_bw", "AllGather bandwidth over one SU", 1.0 / scale_gpu_all_gather_s(h, su, 1, 1.0),
       "B/s", SI},
      {"y2", "Y", 2.0, "", PLAIN},
      {"y4", "Y", 4.0, "", PLAIN},
      {"q3_t_y2", "SHARP AllReduce, Y = 2 in a node", scale_gpu_all_reduce_s(h, n / 2, 2, bytes, 1),
       "s", TIME},
      {"q3_t_y4", "SHARP AllReduce, Y = 4 in a node", scale_gpu_all_reduce_s(h, n / 4, 4, bytes, 1),
       "s", TIME},
      {"q4_t", "SHARP AllReduce over the spine, Y = 256", spine, "s", TIME},
      {"q4_bw", "its bandwidth (bytes / time)", bytes / spine, "B/s", SI},
      {"q5_node_bw", "2 nodes: node-level bandwidth", 1.0 / scale_gpu_all_gather_s(h, n, 1, 1.0),
       "B/s", SI},
      {"q5_leaf_bw", "2 nodes: leaf-level bandwidth", 1.0 / scale_gpu_all_gather_s(h, 2, n, 1.0),
       "B/s", SI},
      {"q5_bw", "2 nodes: effective AllGather bandwidth", scale_gpu_allgather_bytes_per_s(h, 2 * n),
       "B/s", SI}};
  k += TABLE(&out[k], "q4", q4);
  const scale_quantity sample[] = {{"sample_bytes", "sample array", bytes, "B", SI}};
  return k + TABLE(&out[k], "coll", sample);
}

int scale_gpu_collective_tables(const scale_chip *h, scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  double n = fanout(h, 1), w1 = egress(h, 1), w2 = egress(h, 2);
  double pq1 = 2.0 * 1024.0 * 16384.0; /* Pop Quiz 1: AllGather(bf16[B_X, F]) */
  double a2a = scale_gpu_all_to_all_s(h, n, 1.0), a2a_2 = scale_gpu_all_to_all_s(h, 2 * n, 1.0);
  double ragged = scale_gpu_ragged_all_to_all_frac(4, 8); /* Pop Quiz 2: 4 of 8 */
  double pq3 = 2.0 * 8192.0 * 32768.0; /* Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]) over one SU */
  const scale_quantity p1[] = {
      {"b", "B", 1024.0, "", PLAIN},
      {"f", "F", 16384.0, "", PLAIN},
      {"bytes", "bf16[1024, 16384]", pq1, "B", SI},
      {"t", "AllGather, precise", scale_gpu_all_gather_s(h, n, 1, pq1), "s", TIME},
      {"t_approx", "bytes / GPU egress", pq1 / w1, "s", TIME}};
  const scale_quantity a[] = {
      {"a2a_node_bw", "AllToAll: bytes / time in a node", 1.0 / a2a, "B/s", SI},
      {"a2a_2node_bw", "AllToAll: bytes / time over 2 nodes", 1.0 / a2a_2, "B/s", SI},
      {"a2a_slowdown", "2 nodes vs 1 node, exact", a2a_2 / a2a, "", PLAIN},
      {"a2a_slowdown_approx", "2 nodes vs 1 node, B/(MW) vs B/(NW)",
       (1.0 / (2.0 * w2)) / (1.0 / (n * w1)), "", PLAIN}};
  const scale_quantity p2[] = {
      {"k", "k", 4.0, "", PLAIN},
      {"n", "N", 8.0, "", PLAIN},
      {"exact_frac", "ragged 4 of 8: expected fraction sent", ragged, "", PLAIN},
      {"approx_frac", "ragged 4 of 8: min(k/N, 1)", fmin(4.0 / 8.0, 1.0), "", PLAIN},
      {"t_exact", "ragged AllToAll of 1 GB in a node", ragged * scale_gpu_all_to_all_s(h, n, 1e9),
       "s", TIME},
      {"t_dense", "dense AllToAll of 1 GB in a node", scale_gpu_all_to_all_s(h, n, 1e9), "s",
       TIME}};
  const scale_quantity ds[] = {
      {"ds_k", "k", 8.0, "", PLAIN},
      {"ds_n", "N", 64.0, "", PLAIN},
      {"ragged_ds", "ragged 8 of 64: expected fraction", scale_gpu_ragged_all_to_all_frac(8, 64),
       "", PLAIN},
      {"ragged_ds_approx", "ragged 8 of 64: min(k/N, 1)", 8.0 / 64.0, "", PLAIN}};
  const scale_quantity p3[] = {{"d", "D", 8192.0, "", PLAIN},
                               {"f", "F", 32768.0, "", PLAIN},
                               {"bytes", "bf16[8192, 32768]", pq3, "B", SI}};
  int k = TABLE(&out[0], "pq1", p1) + TABLE(&out[1], "coll", a) + TABLE(&out[2], "pq2", p2);
  k += TABLE(&out[k], "coll", ds) + TABLE(&out[k + 1], "pq3", p3);
  return k + su_tables(h, pq3, &out[k]);
}

int scale_gpu_roofline_tables(const scale_chip *c, const char *key,
                              scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  scale_dtype d16 = scale_gpu_dtype16(c);
  double cc = c16(c), n = fanout(c, 1), w1 = egress(c, 1), w2 = egress(c, 2);
  double z_ds = scale_gpu_ep_max_degree(c, d16, 2048.0, 8.0, 4096.0); /* DeepSeek-V3's F, k */
  const scale_quantity tp[] = {
      {"div_node", "TP in a node: Y < F / this", cc / w1, "", PLAIN},
      {"div_beyond", "TP beyond a node: F / this", cc / w2, "", PLAIN},
      {"llama", "largest TP degree, F = 28672", scale_gpu_tp_max_degree(c, d16, 28672.0), "",
       PLAIN},
      {"llama_node", "F W_gpu / C, F = 28672", 28672.0 * w1 / cc, "", PLAIN}};
  const scale_quantity ep[] = {
      {"f_large", "EP for any Z needs F > D_node C / W_node", n * cc / w2, "", PLAIN},
      {"z_max_ds", "largest EP degree, F = 2048, k = 8", z_ds, "", PLAIN},
      {"nodes_max_ds", "  in nodes", z_ds / n, "", PLAIN}};
  char stem[2][32];
  snprintf(stem[0], sizeof stem[0], "tp.%s", key);
  snprintf(stem[1], sizeof stem[1], "ep.%s", key);
  return TABLE(&out[0], stem[0], tp) + TABLE(&out[1], stem[1], ep);
}

int scale_gpu_roofline_example_tables(const scale_chip *h,
                                      scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  /* PP: LLaMA 3 70B, 4M tokens over 64 pipelines of 8 stages, 16 microbatches, node egress;
   * the step's T_math at peak, 6 N B / (GPUs C) */
  double b = 4e6 / 64.0, t_math = 6.0 * 70e9 * 4e6 / (4096.0 * c16(h));
  double sends = scale_gpu_pp_comms_s(b, 8192.0, 16, 8, egress(h, 2));
  const scale_quantity tp[] = {{"f_example", "the book's F", 28000.0, "", PLAIN},
                               {"h100_f28000", "largest TP degree, F = 28000",
                                scale_gpu_tp_max_degree(h, SCALE_DTYPE_BF16, 28000.0), "", PLAIN},
                               {"h100_f28000_beyond", "F / (C / W_node), F = 28000",
                                28000.0 * egress(h, 2) / c16(h), "", PLAIN},
                               {"h100_f28000_node", "F / (C / W_gpu), F = 28000",
                                28000.0 * egress(h, 1) / c16(h), "", PLAIN}};
  const scale_quantity ep[] = {
      {"h100_ratio_ds64", "T_math / T_comms, F = 2048, k = 8, Z = 64",
       scale_gpu_ep_compute_comms_ratio(h, SCALE_DTYPE_BF16, 1.0, 1.0, 2048.0, 8.0, 64.0), "",
       PLAIN}};
  const scale_quantity pp[] = {
      {"pipelines", "pipelines", 64.0, "", PLAIN},
      {"stages", "stages", 8.0, "", PLAIN},
      {"microbatches", "microbatches", 16.0, "", PLAIN},
      {"b", "tokens per pipeline", b, "tokens", PLAIN},
      {"t", "all pipeline sends of a step", sends, "s", TIME},
      {"t_math", "the step's FLOPs at peak on 4096 GPUs", t_math, "s", TIME},
      {"frac", "sends / step FLOP time", sends / t_math, "", PLAIN}};
  return TABLE(&out[0], "tp", tp) + TABLE(&out[1], "ep", ep) + TABLE(&out[2], "pp", pp);
}

/* DP's critical batch over x groups of y GPUs and the book's asymptote for replicas of mp GPUs,
 * 16-bit. */
static double dp_inner(const scale_chip *c, double x, double y, double moe) {
  return scale_gpu_dp_critical_batch_inner(c, scale_gpu_dtype16(c), x, y, moe);
}
static double dp_book(const scale_chip *c, double mp, double moe) {
  return scale_gpu_dp_critical_batch_book(c, scale_gpu_dtype16(c), mp, moe);
}

int scale_gpu_layout_tables(const scale_chip *h, const scale_model *llama, const scale_model *ds,
                            double moe, scale_gpu_table out[SCALE_GPU_TABLES_MAX]) {
  /* LLaMA 3 405B (Llama 3 paper, Table 4): TP 8, PP 16, ZeRO-1 DP 128 on 16k H100s; 16
   * sequences of 8192 tokens per DP rank, 16M tokens per step. */
  double tp = 8, pp = 16, dpd = 128, seqs_per_dp = 16, seq_len = 8192;
  double batch = seqs_per_dp * dpd * seq_len, all = tp * pp * dpd, pure = dp_inner(h, all, 1, 1);
  const scale_quantity l[] = {
      {"seq", "tokens per sequence", seq_len, "tokens", PLAIN},
      {"seqs", "sequences per step", seqs_per_dp * dpd, "", PLAIN},
      {"tp", "TP", tp, "", PLAIN},
      {"pp", "PP", pp, "", PLAIN},
      {"dp", "DP (ZeRO-1)", dpd, "", PLAIN},
      {"gpus", "GPUs", all, "", PLAIN},
      {"batch", "tokens per step", batch, "tokens", SCI},
      {"mp", "GPUs per model replica (TP x PP)", tp * pp, "", PLAIN},
      {"per_gpu", "tokens per GPU", batch / all, "tokens", PLAIN},
      {"dp_threshold", "DP threshold, exact (TP x PP inner)", dp_inner(h, dpd, tp * pp, 1),
       "tokens", PLAIN},
      {"dp_threshold_book", "C / W_node / PP", dp_book(h, tp * pp, 1), "tokens", PLAIN},
      {"pure_dp_threshold", "pure DP over all GPUs, exact", pure, "tokens", PLAIN},
      {"pure_dp_batch", "batch pure DP would need", pure * all, "tokens", SCI},
      {"d_ff_70b", "LLaMA 3 70B MLP width F", (double)llama->d_ff, "", PLAIN}};
  /* DeepSeek-V3: EP 64, PP 16, DP 2 (ZeRO-1) on 2048 H800s; 4096 sequences of 15360 tokens. */
  double ep = 64, dpp = 16, ddp = 2, seqs = 4096, seq = 15360;
  const scale_quantity d[] = {
      {"ep", "EP", ep, "", PLAIN},
      {"pp", "PP", dpp, "", PLAIN},
      {"dp", "DP (ZeRO-1)", ddp, "", PLAIN},
      {"gpus", "GPUs", ep * dpp * ddp, "", PLAIN},
      {"seqs", "sequences per step", seqs, "", PLAIN},
      {"seq", "tokens per sequence", seq, "", PLAIN},
      {"batch", "tokens per step", seqs * seq, "tokens", PLAIN},
      {"mp", "GPUs per model replica (EP x PP)", ep * dpp, "", PLAIN},
      {"per_gpu", "tokens per GPU", seqs * seq / (ep * dpp * ddp), "tokens", PLAIN},
      {"e", "routed experts E", (double)ds->n_experts, "", PLAIN},
      {"k", "experts per token k", (double)ds->n_experts_active, "", PLAIN},
      {"f", "expert width F", (double)ds->d_ff_expert, "", PLAIN},
      {"sparsity", "E / k", moe, "", PLAIN},
      {"dp_threshold", "MoE DP threshold, exact (EP x PP inner, H100 tree)",
       dp_inner(h, ddp, ep * dpp, moe), "tokens", PLAIN},
      {"dp_gain", "2-way ring: bandwidth x D / (D - 1)", ddp / (ddp - 1.0), "", PLAIN},
      {"pure_dp_threshold", "MoE pure DP over 2048 GPUs, exact",
       dp_inner(h, ep * dpp * ddp, 1, moe), "tokens", PLAIN}};
  return TABLE(&out[0], "llama3", l) + TABLE(&out[1], "ds", d);
}

int scale_gpu_dp_replicas_summary(const scale_chip *c, double n_gpus, double seqs, double mp,
                                  double seq_len, scale_quantity out[SCALE_GPU_SUMMARY_MAX]) {
  const scale_quantity q[] = {
      {"gpus", "GPUs", n_gpus, "", PLAIN},
      {"mp", "model-parallel degree", mp, "", PLAIN},
      {"seqs", "sequences per batch", seqs, "", PLAIN},
      {"per_gpu", "tokens per GPU", seqs * seq_len / n_gpus, "tokens", PLAIN},
      {"threshold", "DP threshold, exact", dp_inner(c, n_gpus / mp, mp, 1), "tokens", PLAIN},
      {"threshold_book", "C / W_node / nodes spanned by the model", dp_book(c, mp, 1), "tokens",
       PLAIN}};
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
