/* gpus.c — chapter 12, "How to Think About GPUs", as a program.
 *
 * The GPU at three scales and what they mean for training an LLM: the chip (SMs, tensor
 * cores, memory, critical intensities, V100 ... GB200), the NVLink node, the fat tree, the
 * collectives on it, the rooflines of DP/FSDP, TP, EP and PP, the LLaMA 3 and DeepSeek-V3
 * layouts beside the planner's, and Quizzes 1-5. Every number gpus.md cites is emitted with
 * --values; --figures DIR draws fat-tree-bandwidth.svg, allgather-time.svg, dp-thresholds.svg,
 * tp-thresholds.svg and ep-thresholds.svg. --chip NAME changes the example sections and the
 * AllGather figure (default the book's H100); the book's comparisons keep their hardware.
 * The quizzes' and examples' tables are gpu.h's worked examples, the figures gpuplot.h's.
 */
#include <math.h>
#include <stdio.h>

#include "chapter.h"
#include "scale/gpuplot.h"

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
static double d1(const scale_chip *c) { return c->net_levels[0].fanout; }
static double w1(const scale_chip *c) { return c->net_levels[0].member_bytes_per_s; }
static double w2(const scale_chip *c) { return c->net_levels[1].member_bytes_per_s; }
/** DP's critical batch over x groups of y GPUs, 16-bit, the tree extended as needed. */
static double dp(const scale_chip *c, double x, double y, double moe) {
  return scale_gpu_dp_critical_batch_inner(c, chapter_dtype16(c), x, y, moe);
}

/** The tables of a worked example of gpu.h, filled and emitted section by section. */
static scale_gpu_table tables[SCALE_GPU_TABLES_MAX];

/** Emits tables[0..n), each under its stem. */
static void emit(chapter *ch, int n) {
  for (int i = 0; i < n; i++)
    chapter_quantities(ch, tables[i].stem, tables[i].row, tables[i].n, false);
}

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

static void section_quiz1(chapter *ch, const scale_chip *chips, const scale_chip *v5p,
                          const scale_chip *v5e) {
  chapter_heading(ch, "Quiz 1: GPU hardware");
  emit(ch, scale_gpu_quiz1_tables(&chips[H100], &chips[B200], v5p, v5e, tables));
}

static void section_node(chapter *ch, const scale_chip *h100, const scale_chip *sys) {
  chapter_heading(ch, "The node: NVLink and NVSwitch (Quiz 2)");
  emit(ch, scale_gpu_quiz2_tables(h100, tables));
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  for (int s = 0; s < N_SYSTEMS; s++) /* n/a: a GB200 rack's file names no NVSwitch */
    chapter_quantities(ch, gpus[systems[s]].key, q, scale_gpu_node_summary(&sys[s], q), true);
}

/* ==== the fat tree and its collectives ======================================================= */

static void section_tree(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Beyond the node: the fat tree (Quiz 3)");
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  for (int s = 0; s < N_SYSTEMS; s++) {
    const char *p = gpus[systems[s]].key;
    chapter_say(ch, "%s:", sys[s].display_name);
    for (int l = 1; l <= sys[s].n_net_levels; l++) {
      char stem[64];
      snprintf(stem, sizeof stem, "%s.l%d", p, l);
      chapter_quantities(ch, stem, q, scale_gpu_level_summary(&sys[s], l, q), false);
    }
    chapter_quantities(ch, p, q, scale_gpu_tree_summary(&sys[s], q), false);
  }
  emit(ch, scale_gpu_quiz3_tables(&sys[0], &sys[2], tables));
}

static void section_collectives(chapter *ch, const scale_chip *h100) {
  chapter_heading(ch, "Collectives on the H100 SuperPod (Quiz 4, pop quizzes)");
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  chapter_quantities(ch, "coll", q, scale_gpu_collective_summary(h100, q), false);
  emit(ch, scale_gpu_collective_tables(h100, tables));
}

/* ==== LLM rooflines and the reference layouts ================================================ */

static void section_rooflines(chapter *ch, const scale_chip *sys) {
  chapter_heading(ch, "Rooflines for LLM scaling: DP, TP, EP, PP");
  const double moe = 128.0 / 4.0; /* the book's MoE example: E = 128, k = 4 */
  const chapter_val e[] = {V("dp.moe_e", "experts E", 128.0, ""),
                           V("dp.moe_k", "experts per token k", 4.0, "")};
  CHAPTER_EMIT(ch, NULL, e);
  for (int s = 0; s < N_SYSTEMS; s++) {
    const char *key = gpus[systems[s]].key;
    char stem[32];
    snprintf(stem, sizeof stem, "dp.%s", key);
    chapter_say(ch, "%s:", sys[s].display_name);
    scale_quantity d[SCALE_GPU_SUMMARY_MAX];
    chapter_quantities(ch, stem, d, scale_gpu_dp_summary(&sys[s], moe, d), false);
    emit(ch, scale_gpu_roofline_tables(&sys[s], key, tables));
  }
  emit(ch, scale_gpu_roofline_example_tables(&sys[0], tables));
}

static void section_layouts(chapter *ch, const scale_chip *h100, const scale_model *llama,
                            const scale_model *ds) {
  chapter_heading(ch, "LLaMA 3 and DeepSeek-V3 layouts");
  emit(ch, scale_gpu_layout_tables(h100, llama, ds, scale_transformer_moe_sparsity(ds), tables));
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
      V("pp8_threshold_book", "C / (8 W_node)",
        scale_gpu_dp_critical_batch_book(h, chapter_dtype16(h), 64, 1), "tokens")};
  CHAPTER_EMIT(ch, "q5", r);
  /* Q3: Megatron-LM's table (sequence 4096): 16B on 192 GPUs, batch 192; 70B on 768, batch
   * 384, 16-way model parallel; 314B on 3072, batch 1536, 64-way model parallel. */
  static const struct {
    const char *key;
    double gpus, seqs, mp;
  } mg[] = {{"q5.m16b", 192, 192, 1}, {"q5.m70b", 768, 384, 16}, {"q5.m314b", 3072, 1536, 64}};
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  for (int i = 0; i < 3; i++)
    chapter_quantities(ch, mg[i].key, q,
                       scale_gpu_dp_replicas_summary(h, mg[i].gpus, mg[i].seqs, mg[i].mp, 4096, q),
                       false);
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
               {"dp-thresholds.svg", SCALE_GPU_CURVE_DP_BATCH},
               {"tp-thresholds.svg", SCALE_GPU_CURVE_TP_DEGREE},
               {"ep-thresholds.svg", SCALE_GPU_CURVE_EP_DEGREE}};
  static scale_gpuplot fig;
  scale_diag d = {0};
  for (size_t i = 0; i < sizeof plots / sizeof plots[0]; i++)
    if (chapter_status_ok(ch, scale_gpuplot_systems(sys, N_SYSTEMS, plots[i].kind, &fig, &d), &d))
      chapter_figure(ch, plots[i].file, &fig.plot);
  if (chapter_status_ok(ch, scale_gpuplot_allgather_time(example, &fig, &d), &d))
    chapter_figure(ch, "allgather-time.svg", &fig.plot);
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
  section_quiz1(&ch, chips, &v5p, &v5e);
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
