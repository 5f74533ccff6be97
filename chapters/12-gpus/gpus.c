/* gpus.c — chapter 12, "How to Think About GPUs", as a program.
 *
 * Walks through the GPU at three scales and what they mean for training an LLM:
 *   the chip      SMs, tensor cores, CUDA cores, FLOPs per tensor-core cycle, matmul vs vector
 *                 rate, the memory hierarchy, critical intensities per dtype (V100 ... GB200)
 *   the node      NVLink egress, NVSwitch capacity, node and bisection bandwidth
 *   the cluster   the fat tree level by level and its effective AllGather bandwidth
 *   collectives   AllGather / ReduceScatter / AllReduce (with and without SHARP), AllToAll,
 *                 ragged AllToAll, reductions over arrays sharded on an inner axis
 *   rooflines     DP/FSDP, MoE, small-X DP, TP, EP (two regimes), PP, GB200 NVL72, and the
 *                 LLaMA 3 and DeepSeek-V3 layouts
 * and answers Quizzes 1-5 with computed values. Every number chapters/12-gpus/gpus.md cites is
 * emitted here with --values; --figures DIR draws
 *   fat-tree-bandwidth.svg  effective AllGather bandwidth against GPUs spanned (by level)
 *   allgather-time.svg      AllGather time against bytes in a node and across 2, 32, 128 nodes
 *   dp-thresholds.svg       per-GPU batch that keeps DP/FSDP compute-bound, against X
 *   tp-thresholds.svg       largest compute-bound TP degree against the MLP width F
 *   ep-thresholds.svg       largest compute-bound EP degree against F (k = 8)
 *
 * --chip NAME changes the hardware of the walk-through's example sections and of the AllGather
 * figure (default: the book's H100 with its reference SuperPod). The book's comparisons keep
 * their own hardware (H100, B200, GB200 NVL72).
 *
 * gpu.h has no function for a fat tree larger than its data file, for a DP threshold over an
 * inner model-parallel axis, or for the largest compute-bound EP degree; extend_tree(),
 * dp_threshold() and ep_max_degree() below build them from library calls.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"

/* ---- constants the book states (inputs of its questions, never hardware data) --------------- */

/** fp32 CUDA cores (ALU lanes) in one SM subpartition (ch. 12 "What Is a GPU?"). */
#define CUDA_CORES_PER_SUBPARTITION 32.0
/** TPU VPU: 8 sublanes x 128 lanes, 4 independent ALUs each (ch. 12 Quiz 1 Q1, ch. 2). */
#define TPU_VPU_ALUS_PER_CORE (4.0 * 8.0 * 128.0)
/** H100 base clock the book's Quiz 1 Q2 uses (its table: 1.59 GHz base / 1.98 GHz boost). */
#define H100_BASE_CLOCK_HZ 1.59e9
/** Clocks the book's tensor-core arithmetic divides by ("What Is a GPU?" and its footnote). */
#define H100_TC_CLOCK_HZ 1.76e9
#define B200_TC_CLOCK_HZ 1.86e9
/** SM subpartitions per SM, each with one tensor core and 32 fp32 lanes on Hopper/Blackwell. */
#define SUBPARTITIONS_PER_SM 4.0
/** FLOPs an FMA counts for (ch. 12 Quiz 1 Q6). */
#define FMA_FLOPS 2.0

#define N_CURVE 97
#define MAX_POINTS 2400

/** The GPUs of the chapter's tables: a short key and the hardware file. */
static const struct {
  const char *key;
  const char *stem;
} gpus[] = {{"v100", "nvidia-v100"}, {"a100", "nvidia-a100-80gb"}, {"h100", "nvidia-h100-sxm"},
            {"h200", "nvidia-h200"}, {"b200", "nvidia-b200"},      {"gb200", "gb200-nvl72"}};
#define N_GPUS (sizeof gpus / sizeof gpus[0])
enum { V100, A100, H100, H200, B200, GB200 };

/** The three systems of the roofline comparison (ch. 12 node table). */
static const int systems[] = {H100, B200, GB200};
#define N_SYSTEMS 3

/* ---- helpers ------------------------------------------------------------------------------- */

/** The chip's 8-bit matmul dtype: fp8, else int8 (A100); the book's "fp8/int8" column. */
static scale_dtype dtype8(const scale_chip *c) {
  return isfinite(scale_chip_flops_per_s(c, SCALE_DTYPE_FP8)) ? SCALE_DTYPE_FP8 : SCALE_DTYPE_INT8;
}

static double c16(const scale_chip *c) { return scale_chip_flops_per_s(c, chapter_dtype16(c)); }

/** GPUs joined by the chip's whole fat tree. */
static double tree_gpus(const scale_chip *c) { return scale_gpu_level_gpus(c, c->n_net_levels); }

/* [listing:extend_tree] */
/** 'c' with one more fat-tree level when n_gpus exceed its tree: the new level joins
 * ceil(n_gpus / top) copies of the top unit, each egressing what its own members egress
 * together (full bisection carried upward, as core switches are sized to do). */
static scale_chip extend_tree(const scale_chip *c, double n_gpus) {
  scale_chip out = *c;
  double top = tree_gpus(c);
  if (!(n_gpus > top) || c->n_net_levels >= SCALE_NET_LEVELS_MAX)
    return out;
  const scale_net_level *last = &c->net_levels[c->n_net_levels - 1];
  out.net_levels[out.n_net_levels++] = (scale_net_level){
      .fanout = ceil(n_gpus / top), .member_bytes_per_s = last->fanout * last->member_bytes_per_s};
  return out;
}
/* [/listing:extend_tree] */

/* [listing:dp_threshold] */
/** Per-GPU batch (tokens) above which data parallelism over x groups of y model-parallel GPUs
 * is compute-bound: per layer T_math = 8 B D F k / (x y C) against T_comms = 8 D F E t_AG,
 * t_AG the AllGather seconds per byte of the full array over x with inner axis y; so
 * B / (x y) > C (E / k) t_AG. With y = 1 this is scale_gpu_dp_critical_batch(). */
static double dp_threshold(const scale_chip *c, double x, double y, double moe_factor) {
  scale_chip tree = extend_tree(c, x * y);
  return c16(c) * moe_factor * scale_gpu_all_gather_s(&tree, x, y, 1.0);
}
/* [/listing:dp_threshold] */

/** Largest expert-parallel degree z (> the node size) whose MLP stays compute-bound, by
 * bisection on scale_gpu_ep_compute_comms_ratio() (which falls as z grows); z_cap when even
 * z_cap is compute-bound (the book's large-F regime). */
static double ep_max_degree(const scale_chip *c, double f, double k, double z_cap) {
  scale_dtype d = chapter_dtype16(c);
  double lo = c->net_levels[0].fanout, hi = z_cap;
  /* B and D cancel in the ratio; any positive values do. */
  if (scale_gpu_ep_compute_comms_ratio(c, d, 1.0, 1.0, f, k, hi) >= 1.0)
    return hi;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (scale_gpu_ep_compute_comms_ratio(c, d, 1.0, 1.0, f, k, mid) >= 1.0)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/** Bandwidth-only AllGather time of 'bytes' over n GPUs of 'c' (tree extended as needed). */
static double ag_s(const scale_chip *c, double n, double y, double bytes) {
  scale_chip tree = extend_tree(c, n * y);
  return scale_gpu_all_gather_s(&tree, n, y, bytes);
}

/* ==== the chip ============================================================================= */

static void section_chips(chapter *ch, const scale_chip *chips) {
  chapter_heading(ch, "The chips: compute, memory and critical intensities");
  for (size_t i = 0; i < N_GPUS; i++) {
    const scale_chip *c = &chips[i];
    const char *p = gpus[i].key;
    chapter_say(ch, "%s:", c->display_name);
    chapter_stem_value(ch, p, "sms", "SMs", c->n_cores, "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "tc_per_sm", "tensor cores per SM", c->n_matmul_units, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value_opt(ch, p, "clock", "boost clock", c->clock_hz, "Hz", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "flops16", "16-bit matmul peak", c16(c), "FLOP/s", SCALE_FMT_SCI);
    chapter_stem_value_opt(ch, p, "flops8", "8-bit matmul peak",
                           scale_chip_flops_per_s(c, dtype8(c)), "FLOP/s", SCALE_FMT_SCI);
    chapter_stem_value(ch, p, "vector", "vector (CUDA core) fp32", c->vector_flops_per_s, "FLOP/s",
                       SCALE_FMT_SCI);
    chapter_stem_value(ch, p, "matmul_over_vector", "matmul / vector rate",
                       scale_gpu_matmul_to_vector_ratio(c, chapter_dtype16(c)), "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value_opt(ch, p, "flops_per_tc_cycle", "FLOPs per tensor core per cycle",
                           scale_gpu_flops_per_tensor_core_cycle(c, chapter_dtype16(c)), "FLOP",
                           SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "hbm", "HBM capacity", c->hbm_bytes, "B", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "hbm_bw", "HBM bandwidth", c->hbm_bytes_per_s, "B/s", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "smem", "SMEM per SM", c->smem_bytes_per_core, "B", SCALE_FMT_IEC);
    chapter_stem_value(ch, p, "l2", "L2 cache", c->l2_bytes, "B", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "smem_total", "SMEM over all SMs",
                       c->smem_bytes_per_core * c->n_cores, "B", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "regs_total", "registers over all SMs",
                       c->register_bytes_per_core * c->n_cores, "B", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "int16", "critical intensity, 16-bit",
                       scale_chip_hbm_intensity(c, chapter_dtype16(c)), "FLOP/byte",
                       SCALE_FMT_PLAIN);
    chapter_stem_value_opt(ch, p, "int8bit", "critical intensity, 8-bit",
                           scale_chip_hbm_intensity(c, dtype8(c)), "FLOP/byte", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "vector_intensity", "vector rate / HBM bandwidth",
                       c->vector_flops_per_s / c->hbm_bytes_per_s, "FLOP/byte", SCALE_FMT_PLAIN);
    chapter_stem_value_opt(ch, p, "nvlink", "NVLink egress per GPU", c->nvlink_bytes_per_s, "B/s",
                           SCALE_FMT_SI);
  }
}

static void section_example_chip(chapter *ch, const scale_chip *c) {
  /* Rows only: the text cites the book's chips, so the --chip walk-through emits no values
   * (a value no page cites would be a warning, an error under `scale book --strict`). */
  chapter_heading(ch, "The example chip (--chip)");
  chapter_say(ch, "%s", c->display_name);
  chapter_row(ch, "SM subpartitions", c->n_cores * SUBPARTITIONS_PER_SM, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "chip", "cuda_cores_per_subpartition", "fp32 CUDA cores per subpartition",
                     CUDA_CORES_PER_SUBPARTITION, "", SCALE_FMT_PLAIN);
  chapter_row(ch, "fp32 CUDA cores (Hopper/Blackwell layout)",
              c->n_cores * SUBPARTITIONS_PER_SM * CUDA_CORES_PER_SUBPARTITION, "",
              SCALE_FMT_PLAIN);
  chapter_row(ch, "critical intensity, 16-bit", scale_chip_hbm_intensity(c, chapter_dtype16(c)),
              "FLOP/byte", SCALE_FMT_PLAIN);
  chapter_row(ch, "peak bandwidth through the node", scale_gpu_node_bytes_per_s(c), "B/s",
              SCALE_FMT_SI);
  chapter_row(ch, "DP threshold in a node (tokens/GPU)",
              c->n_net_levels > 0 ? dp_threshold(c, c->net_levels[0].fanout, 1, 1) : (double)NAN,
              "tokens", SCALE_FMT_PLAIN);
}

/* ==== Quiz 1 ================================================================================ */

static void section_quiz1(chapter *ch, const scale_chip *h100, const scale_chip *b200,
                          const scale_chip *v5p, const scale_chip *v5e) {
  chapter_heading(ch, "Quiz 1: GPU hardware");
  /* Q1: CUDA cores vs the v5p's VPU ALUs. */
  chapter_stem_value(ch, "q1", "subpartitions_per_sm", "subpartitions per SM", SUBPARTITIONS_PER_SM,
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "h100_cuda_cores", "H100 fp32 CUDA cores",
                     h100->n_cores * SUBPARTITIONS_PER_SM * CUDA_CORES_PER_SUBPARTITION, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "b200_cuda_cores", "B200 fp32 CUDA cores",
                     b200->n_cores * SUBPARTITIONS_PER_SM * CUDA_CORES_PER_SUBPARTITION, "",
                     SCALE_FMT_PLAIN);
  /* Tensor-core FLOPs per cycle at the clocks the book divides by. */
  chapter_stem_value(ch, "q1", "h100_tc_clock", "H100 tensor-core clock (book)", H100_TC_CLOCK_HZ,
                     "Hz", SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "h100_tc_flops_per_cycle", "H100 FLOPs per tensor core per cycle",
                     c16(h100) / (h100->n_cores * h100->n_matmul_units * H100_TC_CLOCK_HZ), "FLOP",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "b200_tc_clock", "B200 clock (book footnote)", B200_TC_CLOCK_HZ,
                     "Hz", SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "b200_tc_flops_per_cycle", "B200 FLOPs per tensor core per cycle",
                     c16(b200) / (b200->n_cores * b200->n_matmul_units * B200_TC_CLOCK_HZ), "FLOP",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "v5p_alus", "TPU v5p VPU ALUs", v5p->n_cores * TPU_VPU_ALUS_PER_CORE,
                     "", SCALE_FMT_PLAIN);
  /* Q2: one vector op per ALU per cycle (no FMA). */
  double lanes = h100->n_cores * SUBPARTITIONS_PER_SM * CUDA_CORES_PER_SUBPARTITION;
  double base = lanes * H100_BASE_CLOCK_HZ, boost = lanes * h100->clock_hz;
  chapter_stem_value(ch, "q1", "h100_base_clock", "H100 base clock", H100_BASE_CLOCK_HZ, "Hz",
                     SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "h100_vector_base", "H100 vector fp32, base clock", base, "FLOP/s",
                     SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "h100_vector_boost", "H100 vector fp32, boost", boost, "FLOP/s",
                     SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "h100_tc_over_vector", "tensor cores / CUDA cores (no FMA)",
                     c16(h100) / boost, "", SCALE_FMT_PLAIN);
  /* Q4: two matmuls on a B200. */
  static const double q4_b[] = {64.0, 512.0};
  for (int i = 0; i < 2; i++) {
    scale_matmul mm = scale_matmul_bf16(q4_b[i], 4096.0, 8192.0);
    mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_FP16;
    scale_roofline_estimate e = scale_roofline_matmul_eval(b200, &mm);
    char p[32];
    snprintf(p, sizeof p, "q1.b%.0f", q4_b[i]);
    if (i == 0) {
      chapter_stem_value(ch, "q1", "d", "D", mm.d, "", SCALE_FMT_PLAIN);
      chapter_stem_value(ch, "q1", "f", "F", mm.f, "", SCALE_FMT_PLAIN);
    }
    chapter_stem_value(ch, p, "b", "batch B", q4_b[i], "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "bytes", "bytes 2BD + 2DF + 2BF", e.bytes, "B", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "t_math", "T_math", e.t_math_s, "s", SCALE_FMT_TIME);
    chapter_stem_value(ch, p, "t_comms", "T_comms", e.t_comms_s, "s", SCALE_FMT_TIME);
    chapter_stem_value(ch, p, "t", "max(T_math, T_comms)", e.t_lower_s, "s", SCALE_FMT_TIME);
  }
  /* Q5: SMEM and registers over the chip, against a v5p's VMEM. */
  chapter_stem_value(ch, "q1", "h100_smem_plus_regs", "H100 SMEM + registers",
                     (h100->smem_bytes_per_core + h100->register_bytes_per_core) * h100->n_cores,
                     "B", SCALE_FMT_SI);
  chapter_stem_value(ch, "q1", "v5e_vmem", "TPU v5e VMEM", v5e->vmem_bytes, "B", SCALE_FMT_SI);
  /* Q6: B200 clock from its vector rate, counting an FMA as 2 FLOPs. */
  double b200_lanes = b200->n_cores * SUBPARTITIONS_PER_SM * CUDA_CORES_PER_SUBPARTITION;
  chapter_stem_value(ch, "q1", "b200_flops_per_cycle", "B200 vector FLOPs per cycle (FMA)",
                     b200_lanes * FMA_FLOPS, "FLOP", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "b200_clock", "B200 clock implied by 80 TFLOP/s",
                     b200->vector_flops_per_s / (b200_lanes * FMA_FLOPS), "Hz", SCALE_FMT_SI);
  /* Q7: adding two fp32[N] vectors: N FLOPs, 12N bytes. */
  chapter_stem_value(ch, "q1", "add_intensity", "intensity of an fp32 add",
                     scale_roofline_intensity_flops_per_byte(1.0, 12.0), "FLOP/byte",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "h100_vector_intensity", "H100 vector critical intensity (no FMA)",
                     boost / h100->hbm_bytes_per_s, "FLOP/byte", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "add_rate", "elements per second, HBM-bound",
                     h100->hbm_bytes_per_s / 12.0, "elements/s", SCALE_FMT_SCI);
  static const double q7_n[] = {65536.0, 1073741824.0};
  static const char *const q7_key[] = {"add_t_64k", "add_t_1g"};
  for (int i = 0; i < 2; i++) {
    scale_roofline_estimate e =
        scale_roofline_eval(q7_n[i], 12.0 * q7_n[i], boost, h100->hbm_bytes_per_s);
    chapter_stem_value(ch, "q1", q7_key[i], "add time", e.t_lower_s, "s", SCALE_FMT_TIME);
  }
  chapter_stem_value(ch, "q1", "n_64k", "N", q7_n[0], "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q1", "n_1g", "N", q7_n[1], "", SCALE_FMT_SCI);
}

/* ==== the node ============================================================================== */

static void section_node(chapter *ch, const scale_chip *h100, const scale_chip *sys) {
  chapter_heading(ch, "The node: NVLink and NVSwitch (Quiz 2)");
  chapter_stem_value(ch, "node", "h100_switch_bw", "4 NVSwitches x 64 ports x 25 GB/s",
                     h100->n_nvswitches * h100->nvswitch_bytes_per_s, "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "node", "h100_gpu_bw", "8 GPUs x 450 GB/s",
                     h100->nvlink_domain_size * h100->nvlink_bytes_per_s, "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "node", "h100_bw", "peak through the node (the smaller)",
                     scale_gpu_node_bytes_per_s(h100), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "node", "h100_bisection", "bisection bandwidth (both directions)",
                     scale_gpu_node_bisection_bytes_per_s(h100), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "node", "h100_switches", "NVSwitches per node", h100->n_nvswitches, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "node", "h100_switch_one", "one NVSwitch", h100->nvswitch_bytes_per_s,
                     "B/s", SCALE_FMT_SI);
  /* Quiz 2 Q3: bf16[4096, 65536] gathered over 8 GPUs. */
  double q3 = 2.0 * 4096.0 * 65536.0;
  chapter_stem_value(ch, "q2", "d", "D", 4096.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q2", "f", "F", 65536.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q2", "bytes", "bf16[4096, 65536]", q3, "B", SCALE_FMT_SI);
  chapter_stem_value(ch, "q2", "ag_s", "AllGather over the node",
                     scale_gpu_all_gather_s(h100, 8, 1, q3), "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "q2", "ag_asymptote_s", "bytes / GPU egress",
                     q3 / h100->nvlink_bytes_per_s, "s", SCALE_FMT_TIME);
  for (int s = 0; s < N_SYSTEMS; s++) {
    const scale_chip *c = &sys[s];
    const char *p = gpus[systems[s]].key;
    chapter_stem_value(ch, p, "node_gpus", "GPUs per node", c->net_levels[0].fanout, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "gpu_egress", "GPU egress", c->net_levels[0].member_bytes_per_s,
                       "B/s", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "node_egress", "node egress", c->net_levels[1].member_bytes_per_s,
                       "B/s", SCALE_FMT_SI);
    chapter_stem_value_opt(ch, p, "switch_bw", "NVSwitch capacity",
                           c->n_nvswitches * c->nvswitch_bytes_per_s, "B/s", SCALE_FMT_SI);
    chapter_stem_value(ch, p, "node_bw", "peak through the node", scale_gpu_node_bytes_per_s(c),
                       "B/s", SCALE_FMT_SI);
  }
}

/* ==== the fat tree ========================================================================== */

static void section_tree(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Beyond the node: the fat tree (Quiz 3)");
  static const char *const level_name[] = {"l1", "l2", "l3", "l4"};
  for (int s = 0; s < N_SYSTEMS; s++) {
    const scale_chip *c = &sys[s];
    const char *p = gpus[systems[s]].key;
    chapter_say(ch, "%s:", c->display_name);
    for (int l = 1; l <= c->n_net_levels; l++) {
      char q[64];
      snprintf(q, sizeof q, "%s.%s", p, level_name[l - 1]);
      const scale_net_level *lv = &c->net_levels[l - 1];
      chapter_stem_value(ch, q, "fanout", "members", lv->fanout, "", SCALE_FMT_PLAIN);
      chapter_stem_value(ch, q, "gpus", "GPUs joined", scale_gpu_level_gpus(c, l), "",
                         SCALE_FMT_PLAIN);
      chapter_stem_value(ch, q, "member_bw", "egress of one member", lv->member_bytes_per_s, "B/s",
                         SCALE_FMT_SI);
      chapter_stem_value(ch, q, "per_gpu", "egress per GPU",
                         lv->member_bytes_per_s / scale_gpu_level_member_gpus(c, l), "B/s",
                         SCALE_FMT_SI);
      chapter_stem_value(ch, q, "total", "egress of all members into the level",
                         lv->fanout * lv->member_bytes_per_s, "B/s", SCALE_FMT_SI);
      chapter_stem_value(ch, q, "ag_bw", "AllGather bandwidth D W / (D - 1)",
                         scale_gpu_level_allgather_bytes_per_s(c, l), "B/s", SCALE_FMT_SI);
    }
    chapter_stem_value(ch, p, "tree_gpus", "GPUs in the tree", tree_gpus(c), "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "tree_ag_bw", "AllGather bandwidth of the whole tree",
                       scale_gpu_allgather_bytes_per_s(c, tree_gpus(c)), "B/s", SCALE_FMT_SI);
  }
  chapter_stem_value(ch, "gb200", "egress_over_h100", "GB200 rack egress / H100 node egress",
                     sys[2].net_levels[1].member_bytes_per_s /
                         sys[0].net_levels[1].member_bytes_per_s,
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "gb200", "gpus_over_h100", "GPUs per GB200 rack / per H100 node",
                     sys[2].net_levels[0].fanout / sys[0].net_levels[0].fanout, "",
                     SCALE_FMT_PLAIN);
  /* Quiz 3 Q1: every level of the H100 SuperPod gives each node the same egress. */
  const scale_chip *h = &sys[0];
  chapter_stem_value(ch, "q3", "spine_per_node", "spine egress per node",
                     h->net_levels[2].member_bytes_per_s / h->net_levels[1].fanout, "B/s",
                     SCALE_FMT_SI);
  chapter_stem_value(ch, "q3", "scaleout_per_gpu", "scale-out egress per GPU",
                     h->net_levels[1].member_bytes_per_s / h->net_levels[0].fanout, "B/s",
                     SCALE_FMT_SI);
  /* Quiz 3 Q2: how many SUs make 2048 and 4096 GPUs. */
  chapter_stem_value(ch, "q3", "g2048", "GPUs", 2048.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q3", "g4096", "GPUs", 4096.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q3", "sus_2048", "SUs in 2048 GPUs", 2048.0 / scale_gpu_level_gpus(h, 2),
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q3", "pods_4096", "1024-GPU pods in 4096 GPUs", 4096.0 / tree_gpus(h), "",
                     SCALE_FMT_PLAIN);
  scale_chip big = extend_tree(h, 16384.0);
  chapter_stem_value(ch, "q3", "core_member_bw",
                     "egress of one pod into a core level (full bisection)",
                     big.net_levels[3].member_bytes_per_s, "B/s", SCALE_FMT_SI);
}

/* ==== collectives =========================================================================== */

static void section_collectives(chapter *ch, const scale_chip *h) {
  chapter_heading(ch, "Collectives on the H100 SuperPod (Quiz 4, pop quizzes)");
  double w1 = h->net_levels[0].member_bytes_per_s, w2 = h->net_levels[1].member_bytes_per_s;
  double d1 = h->net_levels[0].fanout;
  /* In a node: AllGather, AllReduce with and without SHARP. */
  chapter_stem_value(ch, "coll", "ag_node_bw", "AllGather bandwidth in a node",
                     1.0 / scale_gpu_all_gather_s(h, d1, 1, 1.0), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "ar_node_bw", "AllReduce bandwidth in a node, no SHARP",
                     1.0 / scale_gpu_all_reduce_s(h, d1, 1, 1.0, 0), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "ar_sharp_node_bw", "AllReduce bandwidth in a node, SHARP",
                     1.0 / scale_gpu_all_reduce_s(h, d1, 1, 1.0, 1), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "sharp_gain", "SHARP speed-up in theory",
                     scale_gpu_all_reduce_s(h, d1, 1, 1.0, 0) /
                         scale_gpu_all_reduce_s(h, d1, 1, 1.0, 1),
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "coll", "ar_sharp_pod_bw", "AllReduce bandwidth over the pod, SHARP",
                     1.0 / scale_gpu_all_reduce_s(h, tree_gpus(h), 1, 1.0, 1), "B/s", SCALE_FMT_SI);
  /* Pop Quiz 1: AllGather(bf16[B_X, F]), B = 1024, F = 16384. */
  double pq1 = 2.0 * 1024.0 * 16384.0;
  chapter_stem_value(ch, "pq1", "b", "B", 1024.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq1", "f", "F", 16384.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq1", "bytes", "bf16[1024, 16384]", pq1, "B", SCALE_FMT_SI);
  chapter_stem_value(ch, "pq1", "t", "AllGather, precise", scale_gpu_all_gather_s(h, d1, 1, pq1),
                     "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "pq1", "t_approx", "bytes / GPU egress", pq1 / w1, "s", SCALE_FMT_TIME);
  /* AllToAll in a node and across two nodes; Pop Quiz 2's ragged variant. */
  double a2a_node = scale_gpu_all_to_all_s(h, d1, 1.0),
         a2a_2 = scale_gpu_all_to_all_s(h, 2 * d1, 1.0);
  chapter_stem_value(ch, "coll", "a2a_node_bw", "AllToAll: bytes / time in a node", 1.0 / a2a_node,
                     "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "a2a_2node_bw", "AllToAll: bytes / time over 2 nodes", 1.0 / a2a_2,
                     "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "a2a_slowdown", "2 nodes vs 1 node, exact", a2a_2 / a2a_node, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "coll", "a2a_slowdown_approx", "2 nodes vs 1 node, B/(MW) vs B/(NW)",
                     (1.0 / (2.0 * w2)) / (1.0 / (d1 * w1)), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq2", "k", "k", 4.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq2", "n", "N", 8.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq2", "exact_frac", "ragged 4 of 8: expected fraction sent",
                     scale_gpu_ragged_all_to_all_frac(4, 8), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq2", "approx_frac", "ragged 4 of 8: min(k/N, 1)", fmin(4.0 / 8.0, 1.0),
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq2", "t_exact", "ragged AllToAll of 1 GB in a node",
                     scale_gpu_ragged_all_to_all_frac(4, 8) * scale_gpu_all_to_all_s(h, d1, 1e9),
                     "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "pq2", "t_dense", "dense AllToAll of 1 GB in a node",
                     scale_gpu_all_to_all_s(h, d1, 1e9), "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "coll", "ds_k", "k", 8.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "coll", "ds_n", "N", 64.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "coll", "ragged_ds", "ragged 8 of 64: expected fraction",
                     scale_gpu_ragged_all_to_all_frac(8, 64), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "coll", "ragged_ds_approx", "ragged 8 of 64: min(k/N, 1)", 8.0 / 64.0, "",
                     SCALE_FMT_PLAIN);
  /* Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]) over one SU, Y inner; D = 8192, F = 32768. */
  double su = scale_gpu_level_gpus(h, 2);
  double pq3 = 2.0 * 8192.0 * 32768.0;
  chapter_stem_value(ch, "pq3", "d", "D", 8192.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq3", "f", "F", 32768.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pq3", "bytes", "bf16[8192, 32768]", pq3, "B", SCALE_FMT_SI);
  static const double ys[] = {1, 2, 4, 8, 16, 32, 64};
  for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
    char p[32];
    snprintf(p, sizeof p, "pq3.y%.0f", ys[i]);
    chapter_stem_value(ch, p, "y", "Y", ys[i], "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "t", "AllGather over the SU",
                       scale_gpu_all_gather_s(h, su / ys[i], ys[i], pq3), "s", SCALE_FMT_TIME);
    /* the book's answer: leaf-bound up to Y = 8, then 2DF / (Y x 50 GB/s) */
    double book = ys[i] <= d1 ? pq3 * (su / d1 - 1.0) / (su / d1) / w2 : pq3 * d1 / (ys[i] * w2);
    chapter_stem_value(ch, p, "t_book", "the book's formula", book, "s", SCALE_FMT_TIME);
  }
  /* Quiz 4 Q1: an AllGather over one SU is bound by the leaf: B (M-1) / (M W_node). */
  chapter_stem_value(ch, "q4", "su_ag_bw", "AllGather bandwidth over one SU",
                     1.0 / scale_gpu_all_gather_s(h, su, 1, 1.0), "B/s", SCALE_FMT_SI);
  /* Quiz 4 Q3: SHARP AllReduce of bf16[D, F_Y] over X in one node, X Y = 8 (Y = 2, 4). */
  double q43 = 2.0 * 8192.0 * 32768.0;
  chapter_stem_value(ch, "q4", "y2", "Y", 2.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q4", "y4", "Y", 4.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q4", "q3_t_y2", "SHARP AllReduce, Y = 2 in a node",
                     scale_gpu_all_reduce_s(h, d1 / 2, 2, q43, 1), "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "q4", "q3_t_y4", "SHARP AllReduce, Y = 4 in a node",
                     scale_gpu_all_reduce_s(h, d1 / 4, 4, q43, 1), "s", SCALE_FMT_TIME);
  /* Quiz 4 Q4: Y = 256 (one SU), X = 4 over the spine. */
  chapter_stem_value(ch, "q4", "q4_t", "SHARP AllReduce over the spine, Y = 256",
                     scale_gpu_all_reduce_s(h, 4, su, q43, 1), "s", SCALE_FMT_TIME);
  chapter_stem_value(ch, "q4", "q4_bw", "its bandwidth (bytes / time)",
                     q43 / scale_gpu_all_reduce_s(h, 4, su, q43, 1), "B/s", SCALE_FMT_SI);
  /* Quiz 4 Q5: exactly 2 nodes: the node level binds. */
  chapter_stem_value(ch, "q4", "q5_node_bw", "2 nodes: node-level bandwidth",
                     1.0 / scale_gpu_all_gather_s(h, d1, 1, 1.0), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "q4", "q5_leaf_bw", "2 nodes: leaf-level bandwidth",
                     1.0 / scale_gpu_all_gather_s(h, 2, d1, 1.0), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "q4", "q5_bw", "2 nodes: effective AllGather bandwidth",
                     scale_gpu_allgather_bytes_per_s(h, 2 * d1), "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "coll", "sample_bytes", "sample array", q43, "B", SCALE_FMT_SI);
}

/* ==== LLM rooflines ========================================================================= */

static void section_rooflines(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Rooflines for LLM scaling: DP, TP, EP, PP");
  static const double moe_e = 128.0, moe_k = 4.0; /* the book's MoE example (E = 128, k = 4) */
  chapter_stem_value(ch, "dp", "moe_e", "experts E", moe_e, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "dp", "moe_k", "experts per token k", moe_k, "", SCALE_FMT_PLAIN);
  for (int s = 0; s < N_SYSTEMS; s++) {
    const scale_chip *c = &sys[s];
    const char *p = gpus[systems[s]].key;
    char q[64];
    double d1 = c->net_levels[0].fanout, w1 = c->net_levels[0].member_bytes_per_s;
    double w2 = c->net_levels[1].member_bytes_per_s, cc = c16(c);
    chapter_say(ch, "%s:", c->display_name);
    snprintf(q, sizeof q, "dp.%s", p);
    chapter_stem_value(ch, q, "node", "DP in a node, exact", dp_threshold(c, d1, 1, 1), "tokens",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "node_asym", "DP in a node, C / W_gpu", cc / w1, "tokens",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "two_nodes", "DP over 2 nodes, exact", dp_threshold(c, 2 * d1, 1, 1),
                       "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "two_nodes_book", "DP over 2 nodes, C / W_node x 1/2", cc / w2 * 0.5,
                       "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "tree", "DP over the whole tree, exact",
                       dp_threshold(c, tree_gpus(c), 1, 1), "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "beyond_asym", "DP beyond a node, C / W_node", cc / w2, "tokens",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "moe_tree", "MoE DP over the tree, exact",
                       dp_threshold(c, tree_gpus(c), 1, moe_e / moe_k), "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "moe_asym", "MoE DP, E/k x C / W_node", moe_e / moe_k * cc / w2,
                       "tokens", SCALE_FMT_PLAIN);
    snprintf(q, sizeof q, "tp.%s", p);
    chapter_stem_value(ch, q, "div_node", "TP in a node: Y < F / this", cc / w1, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "div_beyond", "TP beyond a node: F / this", cc / w2, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "llama", "largest TP degree, F = 28672",
                       scale_gpu_tp_max_degree(c, chapter_dtype16(c), 28672.0), "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "llama_node", "F W_gpu / C, F = 28672", 28672.0 * w1 / cc, "",
                       SCALE_FMT_PLAIN);
    snprintf(q, sizeof q, "ep.%s", p);
    chapter_stem_value(ch, q, "f_large", "EP for any Z needs F > D_node C / W_node", d1 * cc / w2,
                       "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "z_max_ds", "largest EP degree, F = 2048, k = 8",
                       ep_max_degree(c, 2048.0, 8.0, 4096.0), "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, q, "nodes_max_ds", "  in nodes",
                       ep_max_degree(c, 2048.0, 8.0, 4096.0) / d1, "", SCALE_FMT_PLAIN);
  }
  const scale_chip *h = &sys[0];
  /* The book's TP example, F = 28000. */
  chapter_stem_value(ch, "tp", "f_example", "the book's F", 28000.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "tp", "h100_f28000", "largest TP degree, F = 28000",
                     scale_gpu_tp_max_degree(h, SCALE_DTYPE_BF16, 28000.0), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "tp", "h100_f28000_beyond", "F / (C / W_node), F = 28000",
                     28000.0 * h->net_levels[1].member_bytes_per_s / c16(h), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "tp", "h100_f28000_node", "F / (C / W_gpu), F = 28000",
                     28000.0 * h->net_levels[0].member_bytes_per_s / c16(h), "", SCALE_FMT_PLAIN);
  /* EP with DeepSeek-V3's experts (F = 2048, k = 8) at Z = 64 on the H100 tree. */
  chapter_stem_value(ch, "ep", "h100_ratio_ds64", "T_math / T_comms, F = 2048, k = 8, Z = 64",
                     scale_gpu_ep_compute_comms_ratio(h, SCALE_DTYPE_BF16, 1.0, 1.0, 2048.0, 8.0,
                                                      64.0), "", SCALE_FMT_PLAIN);
  /* PP: LLaMA 3 70B, 4M tokens over 64 pipelines of 8 stages, 16 microbatches, node egress. */
  double b = 4e6 / 64.0, d = 8192.0, w = h->net_levels[1].member_bytes_per_s;
  chapter_stem_value(ch, "pp", "pipelines", "pipelines", 64.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pp", "stages", "stages", 8.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pp", "microbatches", "microbatches", 16.0, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pp", "b", "tokens per pipeline", b, "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "pp", "t", "all pipeline sends of a step",
                     scale_gpu_pp_comms_s(b, d, 16, 8, w), "s", SCALE_FMT_TIME);
  double t_math = scale_train_time_s(6.0 * 70e9 * 4e6, 4096.0, c16(h), 1.0);
  chapter_stem_value(ch, "pp", "t_math", "the step's FLOPs at peak on 4096 GPUs", t_math, "s",
                     SCALE_FMT_TIME);
  chapter_stem_value(ch, "pp", "frac", "sends / step FLOP time",
                     scale_gpu_pp_comms_s(b, d, 16, 8, w) / t_math, "", SCALE_FMT_PLAIN);
}

/* ==== the reference layouts ================================================================= */

static void section_layouts(chapter *ch, const scale_chip *h, const scale_model *llama,
                            const scale_model *ds) {
  chapter_heading(ch, "LLaMA 3 and DeepSeek-V3 layouts");
  /* LLaMA 3 405B's pre-training layout (Llama 3 paper, Table 4): TP 8, PP 16, ZeRO-1 DP 128
   * on 16k H100s; 16 sequences of 8192 tokens per DP rank, 16M tokens per step. */
  double tp = 8, pp = 16, dp = 128, seqs_per_dp = 16, seq_len = 8192;
  double batch = seqs_per_dp * dp * seq_len;
  chapter_stem_value(ch, "llama3", "seq", "tokens per sequence", seq_len, "tokens",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "seqs", "sequences per step", seqs_per_dp * dp, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "tp", "TP", tp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "pp", "PP", pp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "dp", "DP (ZeRO-1)", dp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "gpus", "GPUs", tp * pp * dp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "batch", "tokens per step", batch, "tokens", SCALE_FMT_SCI);
  chapter_stem_value(ch, "llama3", "mp", "GPUs per model replica (TP x PP)", tp * pp, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "per_gpu", "tokens per GPU", batch / (tp * pp * dp), "tokens",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "dp_threshold", "DP threshold, exact (TP x PP inner)",
                     dp_threshold(h, dp, tp * pp, 1), "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "dp_threshold_book", "C / W_node / PP",
                     c16(h) / h->net_levels[1].member_bytes_per_s / pp, "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "pure_dp_threshold", "pure DP over all GPUs, exact",
                     dp_threshold(h, tp * pp * dp, 1, 1), "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "llama3", "pure_dp_batch", "batch pure DP would need",
                     dp_threshold(h, tp * pp * dp, 1, 1) * tp * pp * dp, "tokens", SCALE_FMT_SCI);
  chapter_stem_value(ch, "llama3", "d_ff_70b", "LLaMA 3 70B MLP width F", llama->d_ff, "",
                     SCALE_FMT_PLAIN);
  /* DeepSeek-V3: EP 64, PP 16, DP 2 (ZeRO-1) on 2048 H800s; 4096 sequences of 15360 tokens. */
  double ep = 64, dpp = 16, ddp = 2, seqs = 4096, seq = 15360;
  double moe = scale_transformer_moe_sparsity(ds);
  chapter_stem_value(ch, "ds", "ep", "EP", ep, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "pp", "PP", dpp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "dp", "DP (ZeRO-1)", ddp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "gpus", "GPUs", ep * dpp * ddp, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "seqs", "sequences per step", seqs, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "seq", "tokens per sequence", seq, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "batch", "tokens per step", seqs * seq, "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "mp", "GPUs per model replica (EP x PP)", ep * dpp, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "per_gpu", "tokens per GPU", seqs * seq / (ep * dpp * ddp), "tokens",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "e", "routed experts E", ds->n_experts, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "k", "experts per token k", ds->n_experts_active, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "f", "expert width F", ds->d_ff_expert, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "sparsity", "E / k", moe, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "dp_threshold", "MoE DP threshold, exact (EP x PP inner, H100 tree)",
                     dp_threshold(h, ddp, ep * dpp, moe), "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "dp_gain", "2-way ring: bandwidth x D / (D - 1)", ddp / (ddp - 1.0),
                     "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "ds", "pure_dp_threshold", "MoE pure DP over 2048 GPUs, exact",
                     dp_threshold(h, ep * dpp * ddp, 1, moe), "tokens", SCALE_FMT_PLAIN);
}

/* ==== Quiz 5 ================================================================================ */

/* The published layout beside the planner's best on the same problem (issue 10's agreement
 * with practice): both evaluated by training.h at the stated efficiency. */
static const scale_layout *compare_with_planner(chapter *ch, const char *stem,
                                                const scale_train_problem *p,
                                                scale_layout *published) {
  scale_train_result pub;
  if (!chapter_train_eval(ch, p, published, &pub)) return NULL;
  static scale_plan_report rep;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (!chapter_plan_train(ch, p, &o, &rep, 1)) return NULL;
  const scale_train_result *best = &rep.ranked[0].result;
  chapter_stem_value(ch, stem, "pub_step", "published layout: step", pub.step_time_s, "s",
                     SCALE_FMT_TIME);
  chapter_stem_value(ch, stem, "pub_mfu", "  MFU", 100.0 * pub.mfu, "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "pub_bubble", "  pipeline bubble", 100.0 * pub.bubble_frac, "%",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "pub_mem", "  memory per GPU", pub.memory_per_chip_bytes, "B",
                     SCALE_FMT_SI);
  chapter_plan_row(ch, stem, &rep, 0, "dp fsdp tp pp cp m step mfu mem");
  chapter_stem_value(ch, stem, "r1_ep", "planner's best: EP", rep.ranked[0].layout.ep, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "gap", "published step / planner's step",
                     pub.step_time_s / best->step_time_s, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "evaluated", "layouts evaluated", rep.n_evaluated, "",
                     SCALE_FMT_SCI);
  return &rep.ranked[0].layout;
}

static void section_planner(chapter *ch, const scale_chip *h100, const scale_model *l405,
                            const scale_model *ds) {
  chapter_heading(ch, "The planner against the published layouts");
  const double efficiency = 0.4; /* the Llama 3 paper reports 38-43% BF16 MFU */
  chapter_stem_value(ch, "practice", "efficiency", "assumed fraction of peak", 100.0 * efficiency,
                     "%", SCALE_FMT_PLAIN);
  /* LLaMA 3 405B: TP 8, PP 16 interleaved, ZeRO-1 DP 128; 16 sequences per DP rank. */
  scale_train_problem p = scale_train_problem_make(l405, h100, 16384, 16777216, 8192);
  p.efficiency_frac = efficiency;
  scale_layout l = scale_layout_default();
  l.tp = 8, l.sp = true, l.pp = 16, l.fsdp = 128, l.zero_stage = 1, l.n_microbatches = 16;
  l.schedule = SCALE_PP_INTERLEAVED, l.n_virtual_stages = 4;
  const scale_layout *best = compare_with_planner(ch, "pl3", &p, &l);
  /* the published layout priced by the calibrated step model (appendix 14) */
  chapter_calibrated_gap(ch, "pl3", &p, &l);
  chapter_claim(ch, true, best && best->tp > h100->net_levels[0].fanout,
                "the planner's LLaMA 3 layout runs TP across nodes");
  /* DeepSeek-V3 (on the H100 tree: no H800 file): EP 64, PP 16 with DualPipe (modelled as
   * zero-bubble), ZeRO-1 over the 128 data-parallel GPUs, BF16 Adam moments. */
  p = scale_train_problem_make(ds, h100, 2048, 4096.0 * 15360.0, 4096);
  p.efficiency_frac = efficiency;
  l = scale_layout_default();
  l.ep = 64, l.pp = 16, l.fsdp = 128, l.zero_stage = 1, l.n_microbatches = 120;
  l.schedule = SCALE_PP_ZERO_BUBBLE, l.remat = SCALE_REMAT_BIG_MATMULS;
  scale_precision bf16_moments = {SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, 2, false};
  l.precision = bf16_moments;
  compare_with_planner(ch, "pds", &p, &l);
}

static void section_quiz5(chapter *ch, const scale_chip *h, const scale_model *llama) {
  chapter_heading(ch, "Quiz 5: LLM rooflines");
  /* Q2: LLaMA 3 70B, bf16 weights + fp32 Adam (10 bytes per parameter). */
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  double n = scale_transformer_n_params(llama);
  double state =
      scale_transformer_weight_bytes(&prec, n) + scale_transformer_optimizer_bytes(&prec, n);
  chapter_stem_value(ch, "q5", "params", "LLaMA 3 70B parameters", n, "", SCALE_FMT_SCI);
  chapter_stem_value(ch, "q5", "bytes_per_param", "weights + Adam bytes per parameter", state / n,
                     "B", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "state", "weights + optimizer", state, "B", SCALE_FMT_SI);
  double min_gpus = scale_train_min_chips_for_memory(state, h->hbm_bytes);
  chapter_stem_value(ch, "q5", "min_gpus", "fewest H100s that hold them", min_gpus, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "min_nodes", "in 8-GPU nodes",
                     ceil(min_gpus / h->net_levels[0].fanout), "", SCALE_FMT_PLAIN);
  double tokens = 15e12, n_gpus = 4096, mfu = 0.45;
  double flops = scale_transformer_dense_flops(n, tokens, SCALE_PASS_TRAIN);
  chapter_stem_value(ch, "q5", "tokens", "training tokens", tokens, "tokens", SCALE_FMT_SCI);
  chapter_stem_value(ch, "q5", "gpus", "GPUs", n_gpus, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "mfu", "MFU", mfu, "", SCALE_FMT_PERCENT);
  chapter_stem_value(ch, "q5", "flops", "6 N D", flops, "FLOP", SCALE_FMT_SCI);
  chapter_stem_value(ch, "q5", "rate", "cluster FLOP/s at that MFU", n_gpus * c16(h) * mfu,
                     "FLOP/s", SCALE_FMT_SCI);
  double t = scale_train_time_s(flops, n_gpus, c16(h), mfu);
  chapter_stem_value(ch, "q5", "time_s", "training time", t, "s", SCALE_FMT_SCI);
  chapter_stem_value(ch, "q5", "time", "training time", t, "s", SCALE_FMT_TIME);
  /* The book rounds N to 70e9. */
  chapter_stem_value(ch, "q5", "params_book", "the book's parameter count", 70e9, "",
                     SCALE_FMT_SCI);
  double t_book = scale_train_time_s(scale_transformer_dense_flops(70e9, tokens, SCALE_PASS_TRAIN),
                                     n_gpus, c16(h), mfu);
  chapter_stem_value(ch, "q5", "time_70e9", "training time with N = 70e9", t_book, "s",
                     SCALE_FMT_TIME);
  /* Q2.3: model parallelism for F = 28672; batch 4M tokens. */
  double f = llama->d_ff, batch = 4e6;
  chapter_stem_value(ch, "q5", "tp_node", "F W_gpu / C",
                     f * h->net_levels[0].member_bytes_per_s / c16(h), "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "tp_book", "F / 1995 (the book's divisor)", f / 1995.0, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "tp_book_divisor", "the book's divisor", 1995.0, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "tp8_mem", "weights + optimizer per GPU, 8-way TP", state / 8.0, "B",
                     SCALE_FMT_SI);
  chapter_stem_value(ch, "q5", "hbm", "H100 HBM", h->hbm_bytes, "B", SCALE_FMT_SI);
  chapter_stem_value(ch, "q5", "batch", "batch", batch, "tokens", SCALE_FMT_SCI);
  chapter_stem_value(ch, "q5", "per_gpu", "tokens per GPU", batch / n_gpus, "tokens",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "zero3_x", "ZeRO-3 degree with 8-way TP", n_gpus / 8, "",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "zero3_threshold", "512-way ZeRO-3 with 8-way TP inner, exact",
                     dp_threshold(h, n_gpus / 8, 8, 1), "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "pp8_threshold", "64-way DP with TP 8 x PP 8 inner, exact",
                     dp_threshold(h, n_gpus / 64, 64, 1), "tokens", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, "q5", "pp8_bw", "8 nodes x node egress",
                     8.0 * h->net_levels[1].member_bytes_per_s, "B/s", SCALE_FMT_SI);
  chapter_stem_value(ch, "q5", "pp8_threshold_book", "C / (8 W_node)",
                     c16(h) / (8.0 * h->net_levels[1].member_bytes_per_s), "tokens",
                     SCALE_FMT_PLAIN);
  /* Q3: Megatron-LM's table (sequence 4096): 16B on 192 GPUs, batch 192; 70B on 768, batch
   * 384, 16-way model parallel; 314B on 3072, batch 1536, 64-way model parallel. */
  static const struct {
    const char *key;
    double gpus, seqs, mp;
  } mg[] = {{"m16b", 192, 192, 1}, {"m70b", 768, 384, 16}, {"m314b", 3072, 1536, 64}};
  for (int i = 0; i < 3; i++) {
    char p[32];
    snprintf(p, sizeof p, "q5.%s", mg[i].key);
    chapter_stem_value(ch, p, "gpus", "GPUs", mg[i].gpus, "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "mp", "model-parallel degree", mg[i].mp, "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "seqs", "sequences per batch", mg[i].seqs, "", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "per_gpu", "tokens per GPU", mg[i].seqs * 4096.0 / mg[i].gpus,
                       "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "threshold", "DP threshold, exact",
                       dp_threshold(h, mg[i].gpus / mg[i].mp, mg[i].mp, 1), "tokens",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, p, "threshold_book", "C / W_node / nodes spanned by the model",
                       c16(h) / h->net_levels[1].member_bytes_per_s /
                           fmax(1.0, mg[i].mp / h->net_levels[0].fanout),
                       "tokens", SCALE_FMT_PLAIN);
  }
  chapter_stem_value(ch, "q5", "seq", "sequence length", 4096.0, "tokens", SCALE_FMT_PLAIN);
}

/* ==== figures =============================================================================== */

/** GPU counts 2..D_1, then whole nodes: every one up to 64 nodes, then doubling. */
static int group_sizes(const scale_chip *c, double max_gpus, double *out, int cap) {
  int n = 0;
  double d1 = c->net_levels[0].fanout;
  for (double x = 2; x <= d1 && n < cap; x++)
    out[n++] = x;
  for (double k = 2; k * d1 <= max_gpus && n < cap; k = k < 64 ? k + 1 : 2 * k)
    out[n++] = k * d1;
  return n;
}

/** The largest group size among the series: the x axis ends there rather than at the next
 * decade, which would leave most of a decade empty. */
static double largest_x(const scale_plot_series *s, int n) {
  double hi = 1.0;
  for (int i = 0; i < n; i++)
    if (s[i].n > 0) hi = fmax(hi, s[i].x[s[i].n - 1]);
  return hi;
}

static void figure_tree(chapter *ch, const scale_chip *sys) {
  static double x[N_SYSTEMS][MAX_POINTS], y[N_SYSTEMS][MAX_POINTS];
  scale_plot_series s[N_SYSTEMS];
  for (int i = 0; i < N_SYSTEMS; i++) {
    const scale_chip *c = &sys[i];
    int n = group_sizes(c, tree_gpus(c), x[i], MAX_POINTS);
    for (int j = 0; j < n; j++)
      y[i][j] = scale_gpu_allgather_bytes_per_s(c, x[i][j]);
    s[i] = (scale_plot_series){
        .label = c->display_name, .x = x[i], .y = y[i], .n = (size_t)n, .dashed = i == 1};
  }
  scale_plot p = {.title = "Effective AllGather bandwidth by GPUs spanned",
                  .desc = "Bytes over AllGather time for a group of contiguous GPUs, one line "
                          "per system: high inside a node, then stepping down to the leaf "
                          "level's D W / (D - 1) as the group spans more nodes.",
                  .x_label = "GPUs in the group",
                  .y_label = "AllGather bandwidth [B/s]",
                  .x_axis = SCALE_PLOT_LOG,
                  .x_min = 1,
                  .x_max = largest_x(s, N_SYSTEMS),
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_LEFT,
                  .series = s,
                  .n_series = N_SYSTEMS};
  chapter_figure(ch, "fat-tree-bandwidth.svg", &p);
}

static void figure_allgather(chapter *ch, const scale_chip *c) {
  static double bytes[N_CURVE], t[4][N_CURVE];
  static const double nodes[] = {1, 2, 32, 128};
  static const char *const labels[] = {"1 node", "2 nodes", "32 nodes", "128 nodes"};
  double d1 = c->net_levels[0].fanout;
  for (int i = 0; i < N_CURVE; i++)
    bytes[i] = 1e6 * pow(1e5, (double)i / (N_CURVE - 1));
  scale_plot_series s[4];
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < N_CURVE; i++)
      t[k][i] = ag_s(c, nodes[k] * d1, 1, bytes[i]);
    s[k] = (scale_plot_series){
        .label = labels[k], .x = bytes, .y = t[k], .n = N_CURVE, .dashed = k % 2 == 1};
  }
  char title[160];
  snprintf(title, sizeof title, "AllGather time on %s", c->display_name);
  scale_plot p = {.title = title,
                  .desc = "Bandwidth-bound AllGather time against array size in one node and "
                          "across 2, 32 and 128 nodes; one node and two nodes coincide because "
                          "the node level binds over two nodes.",
                  .x_label = "array size [bytes]",
                  .y_label = "time [s]",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = 4};
  chapter_figure(ch, "allgather-time.svg", &p);
}

static void figure_dp(chapter *ch, const scale_chip *sys) {
  static double x[N_SYSTEMS][MAX_POINTS], y[N_SYSTEMS][MAX_POINTS];
  scale_plot_series s[N_SYSTEMS];
  for (int i = 0; i < N_SYSTEMS; i++) {
    const scale_chip *c = &sys[i];
    int n = group_sizes(c, 16384.0, x[i], MAX_POINTS);
    for (int j = 0; j < n; j++)
      y[i][j] = dp_threshold(c, x[i][j], 1, 1);
    s[i] = (scale_plot_series){
        .label = c->display_name, .x = x[i], .y = y[i], .n = (size_t)n, .dashed = i == 1};
  }
  scale_plot p = {.title = "Data parallelism: tokens per GPU to stay compute-bound",
                  .desc = "Per-GPU batch above which pure data parallelism or FSDP over X GPUs "
                          "hides its gradient ReduceScatter and AllGather, for H100, B200 and "
                          "GB200 NVL72 fat trees (extended with full bisection beyond their "
                          "reference size).",
                  .x_label = "data-parallel GPUs X",
                  .y_label = "critical batch [tokens/GPU]",
                  .x_axis = SCALE_PLOT_LOG,
                  .x_min = 1,
                  .x_max = largest_x(s, N_SYSTEMS),
                  .y_axis = SCALE_PLOT_LINEAR,
                  .y_min = 0,
                  .y_max = 6000,
                  .legend = SCALE_PLOT_LEGEND_TOP_RIGHT,
                  .series = s,
                  .n_series = N_SYSTEMS};
  chapter_figure(ch, "dp-thresholds.svg", &p);
}

static void figure_tp(chapter *ch, const scale_chip *sys) {
  static double f[N_CURVE], y[N_SYSTEMS][N_CURVE];
  for (int i = 0; i < N_CURVE; i++)
    f[i] = 1e3 * pow(1e3, (double)i / (N_CURVE - 1));
  scale_plot_series s[N_SYSTEMS];
  for (int k = 0; k < N_SYSTEMS; k++) {
    for (int i = 0; i < N_CURVE; i++)
      y[k][i] = scale_gpu_tp_max_degree(&sys[k], chapter_dtype16(&sys[k]), f[i]);
    s[k] = (scale_plot_series){
        .label = sys[k].display_name, .x = f, .y = y[k], .n = N_CURVE, .dashed = k == 1};
  }
  scale_plot p = {.title = "Tensor parallelism: largest compute-bound degree",
                  .desc = "Largest TP degree Y whose activation collectives hide under the MLP "
                          "FLOPs, against the MLP width F: F W_gpu / C inside a node, then the "
                          "node plus F W_node / C once it pays to leave it.",
                  .x_label = "MLP width F",
                  .y_label = "TP degree Y",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = N_SYSTEMS};
  chapter_figure(ch, "tp-thresholds.svg", &p);
}

static void figure_ep(chapter *ch, const scale_chip *sys) {
  static double f[N_CURVE], y[N_SYSTEMS][N_CURVE];
  for (int i = 0; i < N_CURVE; i++)
    f[i] = 1e3 * pow(100.0, (double)i / (N_CURVE - 1));
  scale_plot_series s[N_SYSTEMS];
  for (int k = 0; k < N_SYSTEMS; k++) {
    for (int i = 0; i < N_CURVE; i++)
      y[k][i] = ep_max_degree(&sys[k], f[i], 8.0, 4096.0);
    s[k] = (scale_plot_series){
        .label = sys[k].display_name, .x = f, .y = y[k], .n = N_CURVE, .dashed = k == 1};
  }
  scale_plot p = {.title = "Expert parallelism across nodes: largest compute-bound degree (k = 8)",
                  .desc = "Largest EP degree Z beyond one node whose two AllToAlls hide under the "
                          "expert FLOPs, against the expert width F with 8 experts per token; "
                          "curves reach the 4096 cap where F exceeds D_node C / W_node.",
                  .x_label = "expert width F",
                  .y_label = "EP degree Z",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = N_SYSTEMS};
  chapter_figure(ch, "ep-thresholds.svg", &p);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"chip", "GPU of the example sections and the AllGather figure", "nvidia-h100-sxm"}, {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "12-gpus",
                         "How to think about GPUs: chips, NVLink nodes, fat trees, collectives "
                         "and LLM rooflines.",
                         opts);
  if (rc >= 0)
    return rc;

  static scale_chip chips[N_GPUS], sys[N_SYSTEMS];
  scale_chip example, v5p, v5e;
  scale_model llama, ds, l405;
  for (size_t i = 0; i < N_GPUS; i++)
    if (!chapter_load_chip(&ch, gpus[i].stem, &chips[i]))
      return chapter_end(&ch);
  if (!chapter_load_chip(&ch, opts[0].value, &example) ||
      !chapter_load_chip(&ch, "tpu-v5p", &v5p) || !chapter_load_chip(&ch, "tpu-v5e", &v5e) ||
      !chapter_load_model(&ch, "llama-3-70b", &llama) ||
      !chapter_load_model(&ch, "deepseek-v3", &ds) ||
      !chapter_load_model(&ch, "llama-3-405b", &l405))
    return chapter_end(&ch);
  if (example.kind != SCALE_HW_GPU || example.n_net_levels < 2) {
    chapter_error(&ch, "--chip %s: a GPU with a fat tree (node and scale-out levels) is needed",
                  opts[0].value);
    return chapter_end(&ch);
  }
  for (int s = 0; s < N_SYSTEMS; s++)
    sys[s] = chips[systems[s]];

  chapter_say(&ch, "Chapter 12: How to Think About GPUs. Example chip: %s.", example.display_name);
  section_chips(&ch, chips);
  section_example_chip(&ch, &example);
  section_quiz1(&ch, &chips[H100], &chips[B200], &v5p, &v5e);
  section_node(&ch, &chips[H100], sys);
  section_tree(&ch, sys);
  section_collectives(&ch, &chips[H100]);
  section_rooflines(&ch, sys);
  section_layouts(&ch, &chips[H100], &llama, &ds);
  section_planner(&ch, &chips[H100], &l405, &ds);
  section_quiz5(&ch, &chips[H100], &llama);

  figure_tree(&ch, sys);
  figure_allgather(&ch, &example);
  figure_dp(&ch, sys);
  figure_tp(&ch, sys);
  figure_ep(&ch, sys);
  return chapter_end(&ch);
}
