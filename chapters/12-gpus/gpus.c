/* gpus.c — chapter 12, "How to Think About GPUs", as a program.
 *
 * The GPU at three scales and what they mean for training an LLM: the chip (SMs, tensor
 * cores, memory, critical intensities, V100 ... GB200), the NVLink node, the fat tree, the
 * collectives on it, the rooflines of DP/FSDP, TP, EP and PP, the LLaMA 3 and DeepSeek-V3
 * layouts beside the planner's, and Quizzes 1-5. Every number gpus.md cites is emitted with
 * --values; --figures DIR draws fat-tree-bandwidth.svg, allgather-time.svg, dp-thresholds.svg,
 * tp-thresholds.svg and ep-thresholds.svg. --chip NAME changes the example sections and the
 * AllGather figure (default the book's H100); the book's comparisons keep their hardware.

 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"
#include "scale/gpuplot.h"

/* ---- constants the book states (inputs of its questions, never hardware data) --------------- */

#define TPU_VPU_ALUS_PER_CORE (4.0 * 8.0 * 128.0) /* 8 sublanes x 128 lanes x 4 ALUs (Quiz 1) */
#define H100_BASE_CLOCK_HZ 1.59e9                 /* Quiz 1 Q2 (1.59 GHz base / 1.98 GHz boost) */
#define H100_TC_CLOCK_HZ 1.76e9 /* the clocks the book's tensor-core arithmetic uses */
#define B200_TC_CLOCK_HZ 1.86e9
#define FMA_FLOPS 2.0 /* Quiz 1 Q6 */

/** The GPUs of the chapter's tables: a short key and the hardware file. */
static const struct {
  const char *key, *stem;
} gpus[] = {{"v100", "nvidia-v100"}, {"a100", "nvidia-a100-80gb"}, {"h100", "nvidia-h100-sxm"},
            {"h200", "nvidia-h200"}, {"b200", "nvidia-b200"},      {"gb200", "gb200-nvl72"}};
#define N_GPUS (sizeof gpus / sizeof gpus[0])
enum { V100, A100, H100, H200, B200, GB200 };
static const int systems[] = {H100, B200, GB200}; /* the node table's three systems */
#define N_SYSTEMS 3

/* Each section is a table of entries printed by CHAPTER_EMIT (chapter.h). */
#define V CHAPTER_V
#define VS CHAPTER_VS
#define ROW CHAPTER_VROW

/* ---- helpers -------------------------------------------------------------------------------- */

static double c16(const scale_chip *c) { return scale_chip_flops_per_s(c, chapter_dtype16(c)); }
static double tree_gpus(const scale_chip *c) { return scale_gpu_level_gpus(c, c->n_net_levels); }
static double d1(const scale_chip *c) { return c->net_levels[0].fanout; }
static double w1(const scale_chip *c) { return c->net_levels[0].member_bytes_per_s; }
static double w2(const scale_chip *c) { return c->net_levels[1].member_bytes_per_s; }
/** DP's critical batch over x groups of y GPUs, 16-bit, the tree extended as needed. */
static double dp(const scale_chip *c, double x, double y, double moe) {
  return scale_gpu_dp_critical_batch_inner(c, chapter_dtype16(c), x, y, moe);
}
/** The book's asymptote of that batch with model replicas of mp GPUs: C (E/k) / W_node / nodes. */
static double dp_book(const scale_chip *c, double mp, double moe) {
  return scale_gpu_dp_critical_batch_book(c, chapter_dtype16(c), mp, moe);
}
static double ep_max(const scale_chip *c, double f) {
  return scale_gpu_ep_max_degree(c, chapter_dtype16(c), f, 8.0, 4096.0);
}
static double ag(const scale_chip *c, double x, double y, double bytes) {
  return scale_gpu_all_gather_s(c, x, y, bytes);
}
static double ar(const scale_chip *c, double x, double y, double bytes, int sharp) {
  return scale_gpu_all_reduce_s(c, x, y, bytes, sharp);
}
/** Emits a summary table of gpu.h under 'stem'; with 'opt' a row the chip lacks prints n/a. */
/* ==== the chip and the node ================================================================== */

static void section_chips(chapter *ch, const scale_chip *chips) {
  chapter_heading(ch, "The chips: compute, memory and critical intensities");
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  for (size_t i = 0; i < N_GPUS; i++) {
    chapter_say(ch, "%s:", chips[i].display_name);
    /* optional rows: a V100 has no fp8 rate */
    chapter_quantities(ch, gpus[i].key, q, scale_gpu_chip_summary(&chips[i], q), true);
  }
}

static void section_example_chip(chapter *ch, const scale_chip *c) {
  /* Rows only: the text cites the book's chips, so the --chip walk-through emits no values
   * (a value no page cites would be a warning, an error under `scale book --strict`). */
  chapter_heading(ch, "The example chip (--chip)");
  chapter_say(ch, "%s", c->display_name);
  const chapter_val r[] = {
      ROW("SM subpartitions", c->n_cores * SCALE_GPU_SUBPARTITIONS_PER_SM, ""),
      V("chip.cuda_cores_per_subpartition", "fp32 CUDA cores per subpartition",
        SCALE_GPU_FP32_LANES_PER_SUBPARTITION, ""),
      ROW("fp32 CUDA cores (Hopper/Blackwell layout)", scale_gpu_fp32_cores(c), ""),
      ROW("critical intensity, 16-bit", scale_chip_hbm_intensity(c, chapter_dtype16(c)),
          "FLOP/byte"),
      ROW("peak bandwidth through the node", scale_gpu_node_bytes_per_s(c), "B/s"),
      ROW("DP threshold in a node (tokens/GPU)", dp(c, d1(c), 1, 1), "tokens")};
  CHAPTER_EMIT(ch, NULL, r);
}

static void section_quiz1(chapter *ch, const scale_chip *h100, const scale_chip *b200,
                          const scale_chip *v5p, const scale_chip *v5e) {
  chapter_heading(ch, "Quiz 1: GPU hardware");
  double boost = scale_gpu_vector_flops_per_s_at(h100, h100->clock_hz, 1); /* Q2: 1 op a cycle */
  const chapter_val r[] = {
      V("subpartitions_per_sm", "subpartitions per SM", SCALE_GPU_SUBPARTITIONS_PER_SM, ""),
      V("h100_cuda_cores", "H100 fp32 CUDA cores", scale_gpu_fp32_cores(h100), ""),
      V("b200_cuda_cores", "B200 fp32 CUDA cores", scale_gpu_fp32_cores(b200), ""),
      V("h100_tc_clock", "H100 tensor-core clock (book)", H100_TC_CLOCK_HZ, "Hz"),
      V("h100_tc_flops_per_cycle", "H100 FLOPs per tensor core per cycle",
        scale_gpu_flops_per_tensor_core_cycle_at(h100, SCALE_DTYPE_BF16, H100_TC_CLOCK_HZ), "FLOP"),
      V("b200_tc_clock", "B200 clock (book footnote)", B200_TC_CLOCK_HZ, "Hz"),
      V("b200_tc_flops_per_cycle", "B200 FLOPs per tensor core per cycle",
        scale_gpu_flops_per_tensor_core_cycle_at(b200, SCALE_DTYPE_BF16, B200_TC_CLOCK_HZ), "FLOP"),
      V("v5p_alus", "TPU v5p VPU ALUs", v5p->n_cores * TPU_VPU_ALUS_PER_CORE, ""),
      V("h100_base_clock", "H100 base clock", H100_BASE_CLOCK_HZ, "Hz"),
      VS("h100_vector_base", "H100 vector fp32, base clock",
         scale_gpu_vector_flops_per_s_at(h100, H100_BASE_CLOCK_HZ, 1), "FLOP/s", SCALE_FMT_SI),
      VS("h100_vector_boost", "H100 vector fp32, boost", boost, "FLOP/s", SCALE_FMT_SI),
      V("h100_tc_over_vector", "tensor cores / CUDA cores (no FMA)", c16(h100) / boost, ""),
      V("d", "D", 4096.0, ""),
      V("f", "F", 8192.0, "")};
  CHAPTER_EMIT(ch, "q1", r);
  static const double q4_b[] = {64.0, 512.0}; /* Q4: two fp16 matmuls on a B200 */
  for (int i = 0; i < 2; i++) {
    scale_matmul mm = scale_matmul_bf16(q4_b[i], 4096.0, 8192.0);
    mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_FP16;
    scale_roofline_estimate e = scale_roofline_matmul_eval(b200, &mm);
    char p[32];
    snprintf(p, sizeof p, "q1.b%.0f", q4_b[i]);
    const chapter_val m[] = {
        V("b", "batch B", q4_b[i], ""), V("bytes", "bytes 2BD + 2DF + 2BF", e.bytes, "B"),
        V("t_math", "T_math", e.t_math_s, "s"), V("t_comms", "T_comms", e.t_comms_s, "s"),
        V("t", "max(T_math, T_comms)", e.t_lower_s, "s")};
    CHAPTER_EMIT(ch, p, m);
  }
  /* Q5 SMEM and registers against VMEM; Q6 the B200 clock from its vector rate (an FMA is 2
   * FLOPs); Q7 adding two fp32[N] vectors: N FLOPs, 12 N bytes */
  const double n64k = 65536.0, n1g = 1073741824.0, hbm = h100->hbm_bytes_per_s;
  const chapter_val r2[] = {
      V("h100_smem_plus_regs", "H100 SMEM + registers",
        (h100->smem_bytes_per_core + h100->register_bytes_per_core) * h100->n_cores, "B"),
      V("v5e_vmem", "TPU v5e VMEM", v5e->vmem_bytes, "B"),
      V("b200_flops_per_cycle", "B200 vector FLOPs per cycle (FMA)",
        scale_gpu_fp32_cores(b200) * FMA_FLOPS, "FLOP"),
      V("b200_clock", "B200 clock implied by 80 TFLOP/s",
        scale_gpu_vector_clock_hz(b200, FMA_FLOPS), "Hz"),
      V("add_intensity", "intensity of an fp32 add",
        scale_roofline_intensity_flops_per_byte(1.0, 12.0), "FLOP/byte"),
      V("h100_vector_intensity", "H100 vector critical intensity (no FMA)", boost / hbm,
        "FLOP/byte"),
      V("add_rate", "elements per second, HBM-bound", hbm / 12.0, "elements/s"),
      V("add_t_64k", "add time", scale_roofline_eval(n64k, 12.0 * n64k, boost, hbm).t_lower_s, "s"),
      V("add_t_1g", "add time", scale_roofline_eval(n1g, 12.0 * n1g, boost, hbm).t_lower_s, "s"),
      V("n_64k", "N", n64k, ""),
      VS("n_1g", "N", n1g, "", SCALE_FMT_SCI)};
  CHAPTER_EMIT(ch, "q1", r2);
}

static void section_node(chapter *ch, const scale_chip *h, const scale_chip *sys) {
  chapter_heading(ch, "The node: NVLink and NVSwitch (Quiz 2)");
  double q3 = 2.0 * 4096.0 * 65536.0; /* Quiz 2 Q3: bf16[4096, 65536] gathered over 8 GPUs */
  const chapter_val r[] = {
      V("node.h100_switch_bw", "4 NVSwitches x 64 ports x 25 GB/s",
        scale_gpu_node_switch_bytes_per_s(h), "B/s"),
      V("node.h100_gpu_bw", "8 GPUs x 450 GB/s", h->nvlink_domain_size * h->nvlink_bytes_per_s,
        "B/s"),
      V("node.h100_bw", "peak through the node (the smaller)", scale_gpu_node_bytes_per_s(h),
        "B/s"),
      V("node.h100_bisection", "bisection bandwidth (both directions)",
        scale_gpu_node_bisection_bytes_per_s(h), "B/s"),
      V("node.h100_switches", "NVSwitches per node", h->n_nvswitches, ""),
      V("node.h100_switch_one", "one NVSwitch", h->nvswitch_bytes_per_s, "B/s"),
      V("q2.d", "D", 4096.0, ""),
      V("q2.f", "F", 65536.0, ""),
      V("q2.bytes", "bf16[4096, 65536]", q3, "B"),
      V("q2.ag_s", "AllGather over the node", ag(h, 8, 1, q3), "s"),
      V("q2.ag_asymptote_s", "bytes / GPU egress", q3 / h->nvlink_bytes_per_s, "s")};
  CHAPTER_EMIT(ch, NULL, r);
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  for (int s = 0; s < N_SYSTEMS; s++) /* n/a: a GB200 rack's file names no NVSwitch */
    chapter_quantities(ch, gpus[systems[s]].key, q, scale_gpu_node_summary(&sys[s], q), true);
}

/* ==== the fat tree and its collectives ======================================================= */

static void section_tree(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Beyond the node: the fat tree (Quiz 3)");
  for (int s = 0; s < N_SYSTEMS; s++) {
    const scale_chip *c = &sys[s];
    const char *p = gpus[systems[s]].key;
    chapter_say(ch, "%s:", c->display_name);
    for (int l = 1; l <= c->n_net_levels; l++) {
      char stem[64];
      snprintf(stem, sizeof stem, "%s.l%d", p, l);
      scale_quantity q[SCALE_GPU_SUMMARY_MAX];
      chapter_quantities(ch, stem, q, scale_gpu_level_summary(c, l, q), false);
    }
    const chapter_val t[] = {V("tree_gpus", "GPUs in the tree", tree_gpus(c), ""),
                               V("tree_ag_bw", "AllGather bandwidth of the whole tree",
                                 scale_gpu_allgather_bytes_per_s(c, tree_gpus(c)), "B/s")};
    CHAPTER_EMIT(ch, p, t);
  }
  /* Quiz 3 Q1: every level of the H100 SuperPod gives each node the same egress; Q2: how many
   * SUs make 2048 GPUs, pods 4096, and a core level beyond the data file's tree */
  const scale_chip *h = &sys[0];
  scale_chip big;
  scale_gpu_tree_extend(h, 16384.0, &big);
  const chapter_val r[] = {
      V("gb200.egress_over_h100", "GB200 rack egress / H100 node egress", w2(&sys[2]) / w2(h), ""),
      V("gb200.gpus_over_h100", "GPUs per GB200 rack / per H100 node", d1(&sys[2]) / d1(h), ""),
      V("q3.spine_per_node", "spine egress per node",
        h->net_levels[2].member_bytes_per_s / h->net_levels[1].fanout, "B/s"),
      V("q3.scaleout_per_gpu", "scale-out egress per GPU", w2(h) / d1(h), "B/s"),
      V("q3.g2048", "GPUs", 2048.0, ""),
      V("q3.g4096", "GPUs", 4096.0, ""),
      V("q3.sus_2048", "SUs in 2048 GPUs", 2048.0 / scale_gpu_level_gpus(h, 2), ""),
      V("q3.pods_4096", "1024-GPU pods in 4096 GPUs", 4096.0 / tree_gpus(h), ""),
      V("q3.core_member_bw", "egress of one pod into a core level (full bisection)",
        big.net_levels[3].member_bytes_per_s, "B/s")};
  CHAPTER_EMIT(ch, NULL, r);
}

static void section_collectives(chapter *ch, const scale_chip *h) {
  chapter_heading(ch, "Collectives on the H100 SuperPod (Quiz 4, pop quizzes)");
  double n = d1(h), su = scale_gpu_level_gpus(h, 2);
  double pq1 = 2.0 * 1024.0 * 16384.0; /* Pop Quiz 1: AllGather(bf16[B_X, F]) */
  double a2a = scale_gpu_all_to_all_s(h, n, 1.0), a2a_2 = scale_gpu_all_to_all_s(h, 2 * n, 1.0);
  double ragged = scale_gpu_ragged_all_to_all_frac(4, 8); /* Pop Quiz 2: 4 of 8 */
  double pq3 = 2.0 * 8192.0 * 32768.0; /* Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]) over one SU */
  scale_quantity sum[SCALE_GPU_SUMMARY_MAX];
  chapter_quantities(ch, "coll", sum, scale_gpu_collective_summary(h, sum), false);
  const chapter_val r[] = {
      V("pq1.b", "B", 1024.0, ""),
      V("pq1.f", "F", 16384.0, ""),
      V("pq1.bytes", "bf16[1024, 16384]", pq1, "B"),
      V("pq1.t", "AllGather, precise", ag(h, n, 1, pq1), "s"),
      V("pq1.t_approx", "bytes / GPU egress", pq1 / w1(h), "s"),
      V("coll.a2a_node_bw", "AllToAll: bytes / time in a node", 1.0 / a2a, "B/s"),
      V("coll.a2a_2node_bw", "AllToAll: bytes / time over 2 nodes", 1.0 / a2a_2, "B/s"),
      V("coll.a2a_slowdown", "2 nodes vs 1 node, exact", a2a_2 / a2a, ""),
      V("coll.a2a_slowdown_approx", "2 nodes vs 1 node, B/(MW) vs B/(NW)",
        (1.0 / (2.0 * w2(h))) / (1.0 / (n * w1(h))), ""),
      V("pq2.k", "k", 4.0, ""),
      V("pq2.n", "N", 8.0, ""),
      V("pq2.exact_frac", "ragged 4 of 8: expected fraction sent", ragged, ""),
      V("pq2.approx_frac", "ragged 4 of 8: min(k/N, 1)", fmin(4.0 / 8.0, 1.0), ""),
      V("pq2.t_exact", "ragged AllToAll of 1 GB in a node",
        ragged * scale_gpu_all_to_all_s(h, n, 1e9), "s"),
      V("pq2.t_dense", "dense AllToAll of 1 GB in a node", scale_gpu_all_to_all_s(h, n, 1e9), "s"),
      V("coll.ds_k", "k", 8.0, ""),
      V("coll.ds_n", "N", 64.0, ""),
      V("coll.ragged_ds", "ragged 8 of 64: expected fraction",
        scale_gpu_ragged_all_to_all_frac(8, 64), ""),
      V("coll.ragged_ds_approx", "ragged 8 of 64: min(k/N, 1)", 8.0 / 64.0, ""),
      V("pq3.d", "D", 8192.0, ""),
      V("pq3.f", "F", 32768.0, ""),
      V("pq3.bytes", "bf16[8192, 32768]", pq3, "B")};
  CHAPTER_EMIT(ch, NULL, r);
  static const double ys[] = {1, 2, 4, 8, 16, 32, 64};
  for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
    char p[32];
    snprintf(p, sizeof p, "pq3.y%.0f", ys[i]);
    /* the book's answer: leaf-bound up to Y = 8, then 2DF / (Y x 50 GB/s) */
    const chapter_val y[] = {
        V("y", "Y", ys[i], ""),
        V("t", "AllGather over the SU", ag(h, su / ys[i], ys[i], pq3), "s"),
        V("t_book", "the book's formula", scale_gpu_all_gather_su_book_s(h, ys[i], pq3), "s")};
    CHAPTER_EMIT(ch, p, y);
  }
  /* Quiz 4: Q1 an SU's AllGather is leaf-bound; Q3 a SHARP AllReduce of bf16[D, F_Y] over X in
   * a node, X Y = 8; Q4 Y = 256 (one SU), X = 4 over the spine; Q5 two nodes: the node binds */
  const chapter_val q[] = {
      V("su_ag_bw", "AllGather bandwidth over one SU", 1.0 / ag(h, su, 1, 1.0), "B/s"),
      V("y2", "Y", 2.0, ""),
      V("y4", "Y", 4.0, ""),
      V("q3_t_y2", "SHARP AllReduce, Y = 2 in a node", ar(h, n / 2, 2, pq3, 1), "s"),
      V("q3_t_y4", "SHARP AllReduce, Y = 4 in a node", ar(h, n / 4, 4, pq3, 1), "s"),
      V("q4_t", "SHARP AllReduce over the spine, Y = 256", ar(h, 4, su, pq3, 1), "s"),
      V("q4_bw", "its bandwidth (bytes / time)", pq3 / ar(h, 4, su, pq3, 1), "B/s"),
      V("q5_node_bw", "2 nodes: node-level bandwidth", 1.0 / ag(h, n, 1, 1.0), "B/s"),
      V("q5_leaf_bw", "2 nodes: leaf-level bandwidth", 1.0 / ag(h, 2, n, 1.0), "B/s"),
      V("q5_bw", "2 nodes: effective AllGather bandwidth",
        scale_gpu_allgather_bytes_per_s(h, 2 * n), "B/s")};
  CHAPTER_EMIT(ch, "q4", q);
  const chapter_val s[] = {V("coll.sample_bytes", "sample array", pq3, "B")};
  CHAPTER_EMIT(ch, NULL, s);
}

/* ==== LLM rooflines and the reference layouts ================================================ */

static void section_rooflines(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Rooflines for LLM scaling: DP, TP, EP, PP");
  const double moe = 128.0 / 4.0; /* the book's MoE example: E = 128, k = 4 */
  const chapter_val e[] = {V("dp.moe_e", "experts E", 128.0, ""),
                             V("dp.moe_k", "experts per token k", 4.0, "")};
  CHAPTER_EMIT(ch, NULL, e);
  for (int s = 0; s < N_SYSTEMS; s++) {
    const scale_chip *c = &sys[s];
    double n = d1(c), cc = c16(c);
    char q[3][32];
    for (int k = 0; k < 3; k++)
      snprintf(q[k], sizeof q[k], "%s.%s", (const char *[]){"dp", "tp", "ep"}[k],
               gpus[systems[s]].key);
    chapter_say(ch, "%s:", c->display_name);
    scale_quantity d[SCALE_GPU_SUMMARY_MAX];
    int n_d = scale_gpu_dp_summary(c, moe, d);
    const chapter_val t[] = {V("div_node", "TP in a node: Y < F / this", cc / w1(c), ""),
                               V("div_beyond", "TP beyond a node: F / this", cc / w2(c), ""),
                               V("llama", "largest TP degree, F = 28672",
                                 scale_gpu_tp_max_degree(c, chapter_dtype16(c), 28672.0), ""),
                               V("llama_node", "F W_gpu / C, F = 28672", 28672.0 * w1(c) / cc, "")};
    const chapter_val x[] = {
        V("f_large", "EP for any Z needs F > D_node C / W_node", n * cc / w2(c), ""),
        V("z_max_ds", "largest EP degree, F = 2048, k = 8", ep_max(c, 2048.0), ""),
        V("nodes_max_ds", "  in nodes", ep_max(c, 2048.0) / n, "")};
    chapter_quantities(ch, q[0], d, n_d, false);
    CHAPTER_EMIT(ch, q[1], t);
    CHAPTER_EMIT(ch, q[2], x);
  }
  /* the book's TP example (F = 28000); EP with DeepSeek-V3's experts at Z = 64; PP: LLaMA 3
   * 70B, 4M tokens over 64 pipelines of 8 stages, 16 microbatches, node egress */
  const scale_chip *h = &sys[0];
  double b = 4e6 / 64.0, t_math = scale_train_time_s(6.0 * 70e9 * 4e6, 4096.0, c16(h), 1.0);
  double sends = scale_gpu_pp_comms_s(b, 8192.0, 16, 8, w2(h));
  const chapter_val r[] = {
      V("tp.f_example", "the book's F", 28000.0, ""),
      V("tp.h100_f28000", "largest TP degree, F = 28000",
        scale_gpu_tp_max_degree(h, SCALE_DTYPE_BF16, 28000.0), ""),
      V("tp.h100_f28000_beyond", "F / (C / W_node), F = 28000", 28000.0 * w2(h) / c16(h), ""),
      V("tp.h100_f28000_node", "F / (C / W_gpu), F = 28000", 28000.0 * w1(h) / c16(h), ""),
      V("ep.h100_ratio_ds64", "T_math / T_comms, F = 2048, k = 8, Z = 64",
        scale_gpu_ep_compute_comms_ratio(h, SCALE_DTYPE_BF16, 1.0, 1.0, 2048.0, 8.0, 64.0), ""),
      V("pp.pipelines", "pipelines", 64.0, ""),
      V("pp.stages", "stages", 8.0, ""),
      V("pp.microbatches", "microbatches", 16.0, ""),
      V("pp.b", "tokens per pipeline", b, "tokens"),
      V("pp.t", "all pipeline sends of a step", sends, "s"),
      V("pp.t_math", "the step's FLOPs at peak on 4096 GPUs", t_math, "s"),
      V("pp.frac", "sends / step FLOP time", sends / t_math, "")};
  CHAPTER_EMIT(ch, NULL, r);
}

static void section_layouts(chapter *ch, const scale_chip *h, const scale_model *llama,
                            const scale_model *ds) {
  chapter_heading(ch, "LLaMA 3 and DeepSeek-V3 layouts");
  /* LLaMA 3 405B's pre-training layout (Llama 3 paper, Table 4): TP 8, PP 16, ZeRO-1 DP 128
   * on 16k H100s; 16 sequences of 8192 tokens per DP rank, 16M tokens per step. */
  double tp = 8, pp = 16, dpd = 128, seqs_per_dp = 16, seq_len = 8192;
  double batch = seqs_per_dp * dpd * seq_len, all = tp * pp * dpd;
  const chapter_val l[] = {
      V("seq", "tokens per sequence", seq_len, "tokens"),
      V("seqs", "sequences per step", seqs_per_dp * dpd, ""),
      V("tp", "TP", tp, ""),
      V("pp", "PP", pp, ""),
      V("dp", "DP (ZeRO-1)", dpd, ""),
      V("gpus", "GPUs", all, ""),
      VS("batch", "tokens per step", batch, "tokens", SCALE_FMT_SCI),
      V("mp", "GPUs per model replica (TP x PP)", tp * pp, ""),
      V("per_gpu", "tokens per GPU", batch / all, "tokens"),
      V("dp_threshold", "DP threshold, exact (TP x PP inner)", dp(h, dpd, tp * pp, 1), "tokens"),
      V("dp_threshold_book", "C / W_node / PP", dp_book(h, tp * pp, 1), "tokens"),
      V("pure_dp_threshold", "pure DP over all GPUs, exact", dp(h, all, 1, 1), "tokens"),
      VS("pure_dp_batch", "batch pure DP would need", dp(h, all, 1, 1) * all, "tokens",
         SCALE_FMT_SCI),
      V("d_ff_70b", "LLaMA 3 70B MLP width F", llama->d_ff, "")};
  CHAPTER_EMIT(ch, "llama3", l);
  /* DeepSeek-V3: EP 64, PP 16, DP 2 (ZeRO-1) on 2048 H800s; 4096 sequences of 15360 tokens. */
  double ep = 64, dpp = 16, ddp = 2, seqs = 4096, seq = 15360;
  double moe = scale_transformer_moe_sparsity(ds);
  const chapter_val d[] = {
      V("ep", "EP", ep, ""),
      V("pp", "PP", dpp, ""),
      V("dp", "DP (ZeRO-1)", ddp, ""),
      V("gpus", "GPUs", ep * dpp * ddp, ""),
      V("seqs", "sequences per step", seqs, ""),
      V("seq", "tokens per sequence", seq, ""),
      V("batch", "tokens per step", seqs * seq, "tokens"),
      V("mp", "GPUs per model replica (EP x PP)", ep * dpp, ""),
      V("per_gpu", "tokens per GPU", seqs * seq / (ep * dpp * ddp), "tokens"),
      V("e", "routed experts E", ds->n_experts, ""),
      V("k", "experts per token k", ds->n_experts_active, ""),
      V("f", "expert width F", ds->d_ff_expert, ""),
      V("sparsity", "E / k", moe, ""),
      V("dp_threshold", "MoE DP threshold, exact (EP x PP inner, H100 tree)",
        dp(h, ddp, ep * dpp, moe), "tokens"),
      V("dp_gain", "2-way ring: bandwidth x D / (D - 1)", ddp / (ddp - 1.0), ""),
      V("pure_dp_threshold", "MoE pure DP over 2048 GPUs, exact", dp(h, ep * dpp * ddp, 1, moe),
        "tokens")};
  CHAPTER_EMIT(ch, "ds", d);
}

/* ==== the planner and Quiz 5 ================================================================= */

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
  const chapter_val r[] = {V("pub_step", "published layout: step", pub.step_time_s, "s"),
                             V("pub_mfu", "  MFU", 100.0 * pub.mfu, "%"),
                             V("pub_bubble", "  pipeline bubble", 100.0 * pub.bubble_frac, "%"),
                             V("pub_mem", "  memory per GPU", pub.memory_per_chip_bytes, "B")};
  CHAPTER_EMIT(ch, stem, r);
  chapter_plan_row(ch, stem, &rep, 0, "dp fsdp tp pp cp m step mfu mem");
  const chapter_val b[] = {
      V("r1_ep", "planner's best: EP", rep.ranked[0].layout.ep, ""),
      V("gap", "published step / planner's step",
        pub.step_time_s / rep.ranked[0].result.step_time_s, ""),
      VS("evaluated", "layouts evaluated", rep.n_evaluated, "", SCALE_FMT_SCI)};
  CHAPTER_EMIT(ch, stem, b);
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
  chapter_claim(ch, true, best && best->tp > d1(h100),
                "the planner's LLaMA 3 layout runs TP across nodes");
  /* DeepSeek-V3 (on the H100 tree: no H800 file): EP 64, PP 16 with DualPipe (its bubble and
   * two parameter copies, pipeline.h), ZeRO-1 over the 128 data-parallel GPUs, BF16 Adam
   * moments. */
  p = scale_train_problem_make(ds, h100, 2048, 4096.0 * 15360.0, 4096);
  p.efficiency_frac = efficiency;
  l = scale_layout_default();
  l.ep = 64, l.pp = 16, l.fsdp = 128, l.zero_stage = 1, l.n_microbatches = 120;
  l.schedule = SCALE_PP_DUALPIPE, l.remat = SCALE_REMAT_BIG_MATMULS;
  l.precision = (scale_precision){SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, 2, false};
  compare_with_planner(ch, "pds", &p, &l);
}

static void section_quiz5(chapter *ch, const scale_chip *h, const scale_model *llama) {
  chapter_heading(ch, "Quiz 5: LLM rooflines");
  /* Q2: LLaMA 3 70B, bf16 weights + fp32 Adam (10 bytes per parameter), 15T tokens on 4096
   * H100s at 45% MFU (the book rounds N to 70e9); Q2.3: model parallelism for F = 28672 with
   * a batch of 4M tokens */
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  double n = scale_transformer_n_params(llama), tokens = 15e12, n_gpus = 4096, mfu = 0.45;
  double state =
      scale_transformer_weight_bytes(&prec, n) + scale_transformer_optimizer_bytes(&prec, n);
  double min_gpus = scale_train_min_chips_for_memory(state, h->hbm_bytes);
  double flops = scale_transformer_dense_flops(n, tokens, SCALE_PASS_TRAIN);
  double t = scale_train_time_s(flops, n_gpus, c16(h), mfu);
  double t_book = scale_train_time_s(scale_transformer_dense_flops(70e9, tokens, SCALE_PASS_TRAIN),
                                     n_gpus, c16(h), mfu);
  double f = llama->d_ff, batch = 4e6;
  const chapter_val r[] = {
      VS("params", "LLaMA 3 70B parameters", n, "", SCALE_FMT_SCI),
      VS("bytes_per_param", "weights + Adam bytes per parameter", state / n, "B", SCALE_FMT_PLAIN),
      V("state", "weights + optimizer", state, "B"),
      V("min_gpus", "fewest H100s that hold them", min_gpus, ""),
      V("min_nodes", "in 8-GPU nodes", ceil(min_gpus / d1(h)), ""),
      VS("tokens", "training tokens", tokens, "tokens", SCALE_FMT_SCI),
      V("gpus", "GPUs", n_gpus, ""),
      VS("mfu", "MFU", mfu, "", SCALE_FMT_PERCENT),
      VS("flops", "6 N D", flops, "FLOP", SCALE_FMT_SCI),
      V("rate", "cluster FLOP/s at that MFU", n_gpus * c16(h) * mfu, "FLOP/s"),
      VS("time_s", "training time", t, "s", SCALE_FMT_SCI),
      V("time", "training time", t, "s"),
      VS("params_book", "the book's parameter count", 70e9, "", SCALE_FMT_SCI),
      V("time_70e9", "training time with N = 70e9", t_book, "s"),
      V("tp_node", "F W_gpu / C", f * w1(h) / c16(h), ""),
      V("tp_book", "F / 1995 (the book's divisor)", f / 1995.0, ""),
      V("tp_book_divisor", "the book's divisor", 1995.0, ""),
      V("tp8_mem", "weights + optimizer per GPU, 8-way TP", state / 8.0, "B"),
      V("hbm", "H100 HBM", h->hbm_bytes, "B"),
      VS("batch", "batch", batch, "tokens", SCALE_FMT_SCI),
      V("per_gpu", "tokens per GPU", batch / n_gpus, "tokens"),
      V("zero3_x", "ZeRO-3 degree with 8-way TP", n_gpus / 8, ""),
      V("zero3_threshold", "512-way ZeRO-3 with 8-way TP inner, exact", dp(h, n_gpus / 8, 8, 1),
        "tokens"),
      V("pp8_threshold", "64-way DP with TP 8 x PP 8 inner, exact", dp(h, n_gpus / 64, 64, 1),
        "tokens"),
      V("pp8_bw", "8 nodes x node egress", 8.0 * w2(h), "B/s"),
      V("pp8_threshold_book", "C / (8 W_node)", dp_book(h, 64, 1), "tokens")};
  CHAPTER_EMIT(ch, "q5", r);
  /* Q3: Megatron-LM's table (sequence 4096): 16B on 192 GPUs, batch 192; 70B on 768, batch
   * 384, 16-way model parallel; 314B on 3072, batch 1536, 64-way model parallel. */
  static const struct {
    const char *key;
    double gpus, seqs, mp;
  } mg[] = {{"q5.m16b", 192, 192, 1}, {"q5.m70b", 768, 384, 16}, {"q5.m314b", 3072, 1536, 64}};
  for (int i = 0; i < 3; i++) {
    const chapter_val m[] = {
        V("gpus", "GPUs", mg[i].gpus, ""),
        V("mp", "model-parallel degree", mg[i].mp, ""),
        V("seqs", "sequences per batch", mg[i].seqs, ""),
        V("per_gpu", "tokens per GPU", mg[i].seqs * 4096.0 / mg[i].gpus, "tokens"),
        V("threshold", "DP threshold, exact", dp(h, mg[i].gpus / mg[i].mp, mg[i].mp, 1), "tokens"),
        V("threshold_book", "C / W_node / nodes spanned by the model", dp_book(h, mg[i].mp, 1),
          "tokens")};
    CHAPTER_EMIT(ch, mg[i].key, m);
  }
  chapter_stem_value(ch, "q5", "seq", "sequence length", 4096.0, "tokens", SCALE_FMT_PLAIN);
}

/* ==== figures ================================================================================ */

/** A system's fat tree as a concept diagram (diagram.h). */
static void diagram_tree(chapter *ch, const scale_chip *c, const char *file) {
  static char svg[1 << 16];
  scale_diag d = {0};
  chapter_diagram(ch, file, scale_diagram_fat_tree(c, svg, sizeof svg, NULL, &d), svg, &d);
}

static void figures(chapter *ch, const scale_chip *sys, const scale_chip *example) {
  static const char *const trees[] = {"tree-h100.svg", "tree-b200.svg", "tree-gb200.svg"};
  for (int s = 0; s < N_SYSTEMS; s++)
    diagram_tree(ch, &sys[s], trees[s]);
  static const struct {
    const char *file;
    scale_gpu_curve_kind kind;
  } plots[] = {{"fat-tree-bandwidth.svg", SCALE_GPU_CURVE_ALLGATHER_BW},
               {"allgather-time.svg", SCALE_GPU_CURVE_ALLGATHER_BW},
               {"dp-thresholds.svg", SCALE_GPU_CURVE_DP_BATCH},
               {"tp-thresholds.svg", SCALE_GPU_CURVE_TP_DEGREE},
               {"ep-thresholds.svg", SCALE_GPU_CURVE_EP_DEGREE}};
  static scale_gpuplot fig;
  for (size_t i = 0; i < sizeof plots / sizeof plots[0]; i++) {
    scale_diag d = {0};
    scale_status st = i == 1 ? scale_gpuplot_allgather_time(example, &fig, &d)
                             : scale_gpuplot_systems(sys, N_SYSTEMS, plots[i].kind, &fig, &d);
    if (chapter_status_ok(ch, st, &d)) chapter_figure(ch, plots[i].file, &fig.plot);
  }
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"chip", "GPU of the example sections and the AllGather figure", "nvidia-h100-sxm"}, {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "12-gpus",
                         "How to think about GPUs: chips, NVLink nodes, fat trees, collectives "
                         "and LLM rooflines.",
                         opts);
  if (rc >= 0) return rc;
  static scale_chip chips[N_GPUS], sys[N_SYSTEMS];
  scale_chip example, v5p, v5e;
  scale_model llama, ds, l405;
  for (size_t i = 0; i < N_GPUS; i++)
    if (!chapter_load_chip(&ch, gpus[i].stem, &chips[i])) return chapter_end(&ch);
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
  figures(&ch, sys, &example);
  return chapter_end(&ch);
}
