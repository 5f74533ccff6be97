/* hybrid-parallelism.c — chapter 13, the hybrid-parallelism study of Amer et al. (arXiv
 * 2602.09109), as a program.
 *
 * Walks through the collective volumes of Tables 2 and 3, memory per device by strategy and
 * ZeRO stage, the overlap classes of section 2.6 and the ring-CP block, what each parallelism
 * splits in a Mamba-2 layer, the design guide of section 7 on the paper's models and on a
 * grid against the calibrated step model's best (scale_plan_hybrid) and `scale plan`, and
 * the case study: Tables 10, 11, 13 and 14 predicted beside measured (hybrid_study.h), with
 * the measured time per CP layer-microbatch the host's floor rests on (chapter 14 fits the
 * framework's two parameters and leaves each table out). Every number
 * hybrid-parallelism.md cites is emitted with --values; --figures DIR draws one
 * predicted-against-measured figure per table (study-<model>.svg).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chapter.h"
#include "scale/calibrate.h"
#include "scale/hybrid.h"
#include "scale/hybrid_grid.h"
#include "scale/hybrid_study.h"
#include "scale/measurements.h"
#include "scale/plan.h"

#define N_CHIPS 8.0
#define SEQ 4096.0
#define GBS 1024.0
#define TOKENS (GBS * SEQ)
#define OFF_FRAC 0.25 /* a prediction this far from the measurement is named in the text */
#define V CHAPTER_V
#define VS CHAPTER_VS
#define BF16 SCALE_DTYPE_BF16

#define ZERO_STAGE 1 /* the paper's distributed optimizer (scale_hybrid_paper_problem) */

/** Emits the library table 't', each row under "stem.KEY" (KEY alone with a NULL stem): its
 * numbers through chapter_quantities(), its text rows (flags, relations) as text values. */
static void emit(chapter *ch, const char *stem, const scale_hybrid_table *t) {
  for (int i = 0; i < t->n; i++) {
    char key[160];
    snprintf(key, sizeof key, "%s%s%s", stem ? stem : "", stem ? "." : "", t->row[i].key);
    if (t->text[i])
      chapter_text_value(ch, key, t->row[i].label, t->row[i].value, t->text[i]);
    else
      chapter_quantities(ch, stem, &t->row[i], 1, false);
  }
}

/* ==== the setup, Table 2 and Table 3 ========================================================== */

static void section_setup(chapter *ch, const scale_chip *npu) {
  chapter_heading(ch, "The case study's machine and workload (section 6.1)");
  double peer = scale_hybrid_peer_bytes_per_s(npu);
  const chapter_val r[] = {
      VS("hw.flops", "910B cube peak (bf16)", scale_chip_flops_per_s(npu, BF16), "FLOP/s",
         SCALE_FMT_SI),
      V("hw.hbm", "HBM per NPU (as the paper states it)", npu->hbm_bytes, "B"),
      V("hw.hbm_bw", "HBM bandwidth", npu->hbm_bytes_per_s, "B/s"),
      V("hw.egress", "HCCS egress per NPU (one way)", npu->nvlink_bytes_per_s, "B/s"),
      V("hw.peer", "one direct HCCS link (one way)", peer, "B/s"),
      V("hw.chips", "NPUs", N_CHIPS, ""),
      V("case.gbs", "global batch", GBS, "sequences"),
      V("case.seq", "sequence length", SEQ, "tokens"),
      V("case.tokens", "tokens per step", TOKENS, "tokens")};
  CHAPTER_EMIT(ch, NULL, r);
}

static double t3(const scale_model *m, scale_hybrid_strategy st, double degree, double s) {
  return scale_hybrid_attention_fwd_bytes(m, st, degree, 1, s, BF16);
}

static void section_volumes(chapter *ch, const scale_model *l7, const scale_model *l1) {
  chapter_heading(ch, "Collective volumes per device (Table 2), in multiples of the array T");
  static const double ns[] = {2, 8, 64}, degrees[] = {2, 4, 8};
  scale_hybrid_table t;
  scale_hybrid_collective_table(ns, 3, &t);
  emit(ch, "t2", &t);
  chapter_heading(ch, "One attention layer's forward communication per device (Table 3)");
  chapter_say(ch, "b = 1, s = %.0f, bf16, bytes sent plus received", SEQ);
  scale_hybrid_attention_table(l7, degrees, 3, SEQ, BF16, &t);
  emit(ch, "t3.l7", &t);
  scale_hybrid_attention_table(l1, degrees, 3, SEQ, BF16, &t);
  emit(ch, "t3.l1", &t);
  double tp8 = t3(l1, SCALE_HYBRID_TP, 8, SEQ), cp8 = t3(l1, SCALE_HYBRID_CP, 8, SEQ);
  double s5_tp = scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_TP, SEQ);
  const chapter_val r[] = {
      V("t3.l1.cp_over_tp", "Llama 3.2 1B: CP over TP (k d_h / d)", cp8 / tp8, ""),
      V("t3.l7.tpup_over_tp8", "LLaMA 2 7B at 8: Ulysses over TP",
        t3(l7, SCALE_HYBRID_TPUP, 8, SEQ) / t3(l7, SCALE_HYBRID_TP, 8, SEQ), ""),
      VS("s5.l1.tp", "section 5.2 TP, 2 s a d_h", s5_tp, "elements", SCALE_FMT_SCI),
      VS("s5.l1.cp", "section 5.2 CP, 2 s k d_h",
         scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_CP, SEQ), "elements", SCALE_FMT_SCI),
      V("s5.factor8", "Table 3 TP 8 over section 5.2 TP", tp8 / 2.0 / s5_tp, "")};
  CHAPTER_EMIT(ch, NULL, r);
}

/* ==== memory and overlap ====================================================================== */

static void section_memory(chapter *ch, const scale_model *l7, const scale_chip *npu) {
  chapter_heading(ch, "Memory per device, LLaMA 2 7B on 8 NPUs, 4K tokens, micro-batch 1");
  chapter_value(ch, "mem.l7.params", "parameters", scale_transformer_n_params(l7), "",
                SCALE_FMT_SCI);
  static const struct {
    const char *key;
    scale_hybrid_layout l;
  } rows[] = {{"dp8z0", {8, 1, 1, 1, 0, false}},          {"dp8z1", {8, 1, 1, 1, 1, false}},
              {"dp8z2", {8, 1, 1, 1, 2, false}},          {"dp8z3", {8, 1, 1, 1, 3, false}},
              {"pp8", {1, 8, 1, 1, ZERO_STAGE, false}},   {"tp8", {1, 1, 8, 1, ZERO_STAGE, false}},
              {"tp8sp", {1, 1, 8, 1, ZERO_STAGE, true}},  {"cp8", {1, 1, 1, 8, ZERO_STAGE, false}},
              {"dp4pp2", {4, 2, 1, 1, ZERO_STAGE, false}}};
  double tot[9], hbm = npu->hbm_bytes;
  scale_hybrid_problem p = scale_hybrid_paper_problem(l7, npu, GBS, SEQ);
  for (int i = 0; i < 9; i++) {
    scale_hybrid_memory mem;
    scale_hybrid_problem_memory(&p, &rows[i].l, &mem);
    tot[i] = mem.total_bytes;
    chapter_say(ch, "%s:", rows[i].key);
    char stem[32];
    snprintf(stem, sizeof stem, "mem.%s", rows[i].key);
    scale_hybrid_table t;
    scale_hybrid_memory_table(&mem, hbm, &t);
    emit(ch, stem, &t);
  }
  chapter_claim(ch, true, tot[1] > hbm && tot[2] <= hbm,
                "a replica does not fit with ZeRO-1, does with ZeRO-2");
  chapter_claim(ch, true, tot[4] <= hbm && tot[5] <= hbm && tot[7] <= hbm,
                "every single model split fits");
  chapter_claim(ch, true, tot[6] < tot[5] && tot[5] < tot[4] && tot[4] < tot[7],
                "TP+SP < TP < PP < CP in memory");
  /* the ZeRO paper's own example: 7.5B parameters over 64 devices, 2 + 2 + 12 bytes */
  const scale_precision mixed = SCALE_PRECISION_MIXED_ADAM;
  for (int z = 0; z <= 3; z++)
    chapter_valuef(ch, "ZeRO paper example",
                   scale_train_zero_bytes_per_chip(&mixed, 7.5e9, z, 64, NULL), "B", SCALE_FMT_SI,
                   "zero.paper.s%d", z);
}

static void section_overlap(chapter *ch, const scale_model *l7, const scale_model *l1,
                            const scale_chip *npu, const scale_chip *h100) {
  chapter_heading(ch, "Overlap: one LLaMA 2 7B layer, TP 2 on the 910B, forward");
  /* two AllReduces per layer (attention, MLP) over the one direct link to the TP peer */
  double comp, comm, peak = scale_chip_flops_per_s(npu, BF16);
  double peer = scale_hybrid_peer_bytes_per_s(npu);
  scale_hybrid_tp_layer_fwd_s(l7, npu, 2, SEQ, &comp, &comm);
  const chapter_val r[] = {V("ov.comp", "compute at peak", comp, "s"),
                           V("ov.comm", "two AllReduces over one link", comm, "s")};
  CHAPTER_EMIT(ch, NULL, r);
  static const double chunks[] = {2, 4, 16};
  scale_hybrid_table t;
  scale_hybrid_overlap_table(comp, comm, chunks, 3, &t);
  emit(ch, "ov", &t);

  chapter_heading(ch, "Ring CP: the smallest block whose K/V pass hides");
  double f_h100 = scale_chip_flops_per_s(h100, BF16),
         l1_block = scale_hybrid_ring_cp_min_block_tokens(l1, peak, peer, BF16, false);
  const chapter_val c[] = {
      V("cp.l7.npu", "LLaMA 2 7B on the 910B (one link)",
        scale_hybrid_ring_cp_min_block_tokens(l7, peak, peer, BF16, false), "tokens"),
      V("cp.l1.npu", "Llama 3.2 1B on the 910B", l1_block, "tokens"),
      V("cp.l7.h100", "LLaMA 2 7B on H100 NVLink",
        scale_hybrid_ring_cp_min_block_tokens(l7, f_h100, h100->nvlink_bytes_per_s, BF16, false),
        "tokens"),
      V("cp.l7.npu_causal", "LLaMA 2 7B on the 910B, causal, unbalanced",
        scale_hybrid_ring_cp_min_block_tokens(l7, peak, peer, BF16, true), "tokens"),
      V("cp.block2", "block at 4K over CP 2", SEQ / 2, "tokens"),
      V("cp.block8", "block at 4K over CP 8", SEQ / 8, "tokens")};
  CHAPTER_EMIT(ch, NULL, c);
  chapter_claim(ch, true, SEQ / 2 < l1_block,
                "at 4K no CP degree hides the ring on the 910B, even for GQA");
}

/* ==== Mamba-2 ================================================================================= */

static void section_mamba(chapter *ch, const scale_model *m7, const scale_model *m1,
                          const scale_model *l7) {
  chapter_heading(ch, "What each parallelism splits in a Mamba-2 layer (Mamba-7B, b = 8)");
  const struct {
    const char *key;
    double tp, cp, dp;
  } cases[] = {{"none", 1, 1, 1}, {"tp8", 8, 1, 1}, {"cp8", 1, 8, 1}, {"dp8", 1, 1, 8}};
  for (size_t i = 0; i < 4; i++) {
    scale_hybrid_ssm_split s;
    scale_hybrid_mamba2_split(m7, cases[i].tp, cases[i].cp, cases[i].dp, 8, SEQ, &s);
    char stem[32];
    snprintf(stem, sizeof stem, "ssm.%s", cases[i].key);
    chapter_say(ch, "%s:", cases[i].key);
    scale_hybrid_table t;
    scale_hybrid_ssm_split_table(&s, &t);
    emit(ch, stem, &t);
  }
  const chapter_val r[] = {V("ssm.m7.d_in_proj", "Mamba-7B in-projection width",
                               scale_transformer_mamba2_d_in_proj(m7), ""),
                             V("ssm.m7.groups", "Mamba-7B groups", (double)m7->ssm_n_groups, "")};
  CHAPTER_EMIT(ch, NULL, r);

  chapter_heading(ch, "CP traffic per layer and device: Mamba's states against attention's K/V");
  static const double seqs[] = {4096, 32768, 131072};
  for (size_t i = 0; i < 3; i++) {
    double s = seqs[i], k = s / 1024;
    double mb = scale_hybrid_mamba2_fwd_bytes(m7, SCALE_HYBRID_CP, 8, 1, s, BF16);
    double at = t3(l7, SCALE_HYBRID_CP, 8, s);
    chapter_valuef(ch, "Mamba-7B CP 8", mb, "B", SCALE_FMT_SI, "mcp.s%.0fk", k);
    chapter_valuef(ch, "LLaMA 2 7B CP 8", at, "B", SCALE_FMT_SI, "acp.s%.0fk", k);
    chapter_valuef(ch, "attention over Mamba", at / mb, "", SCALE_FMT_PLAIN, "cpratio.s%.0fk", k);
    chapter_valuef(ch, "Mamba-7B TP 8",
                   scale_hybrid_mamba2_fwd_bytes(m7, SCALE_HYBRID_TP, 8, 1, s, BF16), "B",
                   SCALE_FMT_SI, "mtp.s%.0fk", k);
  }

  chapter_heading(ch, "The SSD scan's share of the cube work (forward, 4K)");
  const scale_model *ms[] = {m7, m1};
  for (size_t i = 0; i < 2; i++) {
    double ssd = scale_transformer_ssd_flops(ms[i], 1, SEQ, false, SCALE_PASS_FORWARD);
    double proj = scale_transformer_mamba2_projection_flops(ms[i], SEQ, SCALE_PASS_FORWARD);
    const chapter_val e[] = {
        V("share", "SSD over projections", ssd / proj, ""),
        V("naive", "naive recurrence over scan",
          scale_transformer_ssd_flops(ms[i], 1, SEQ, true, SCALE_PASS_FORWARD) / ssd, "")};
    CHAPTER_EMIT(ch, i == 0 ? "ssd.m7" : "ssd.m1", e);
    chapter_valuef(ch, "activations per layer",
                   scale_transformer_layer_activation_bytes(ms[i], 1, SEQ, 1, 1, false), "B",
                   SCALE_FMT_SI, "act.%s", i == 0 ? "m7" : "m1");
  }
  chapter_value(ch, "act.l7", "LLaMA 2 7B activations per layer",
                scale_transformer_layer_activation_bytes(l7, 1, SEQ, 1, 1, false), "B",
                SCALE_FMT_SI);
}

/* ==== the design guide and the planners ======================================================= */

static void section_guide(chapter *ch, const scale_model *const models[4],
                          const char *const keys[4], const scale_chip *npu) {
  chapter_heading(ch, "The design guide on the paper's four models (8 x 910B, 4K)");
  static const double paper_best[4][4] = {{4, 2, 1, 1}, {8, 1, 1, 1}, {4, 1, 2, 1}, {8, 1, 1, 1}};
  int agree = 0;
  double tp_bound_min = INFINITY;
  for (int i = 0; i < 4; i++) {
    scale_hybrid_problem p = scale_hybrid_paper_problem(models[i], npu, GBS, SEQ);
    scale_hybrid_guide g;
    scale_hybrid_guide_eval(&p, &g);
    char stem[32];
    snprintf(stem, sizeof stem, "guide.%s", keys[i]);
    scale_hybrid_table t;
    scale_hybrid_guide_table(&g, &t);
    emit(ch, stem, &t);
    tp_bound_min = fmin(tp_bound_min, g.rule[SCALE_HYBRID_RULE_TP_BOUND].rhs);
    const double *b = paper_best[i];
    agree += scale_hybrid_layout_is(&g.layout, b[0], b[1], b[2], b[3]);
  }
  chapter_value(ch, "guide.agree_paper", "guide picks = the paper's best", agree, "",
                SCALE_FMT_PLAIN);
  chapter_claim(ch, true, agree == 4, "the guide picks the paper's four best layouts");
  chapter_claim(ch, true, tp_bound_min >= 4, "the tp-bound allows TP 4 on every model");
}

static void section_grid(chapter *ch, const scale_model *const models[5], const char *const keys[5],
                         const scale_chip *const chips[2], const scale_step_params *const prm[2]) {
  chapter_heading(ch, "The guide against the step model and `scale plan` on a grid");
  const char *chip_keys[2] = {"npu", "h100"};
  static const double seqs[2] = {4096, 32768};
  static scale_hybrid_grid_case cases[2 * 5 * 2]; /* [chip][model][sequence] */
  const scale_hybrid_grid_axes ax = {models, 5, chips, prm, 2, seqs, 2, TOKENS};
  scale_hybrid_grid_tally k;
  scale_diag d = {0};
  if (!chapter_status_ok(ch, scale_hybrid_grid_run(&ax, cases, &k, &d), &d)) return;
  int other_4k = 0, not_mixed_32k = 0;
  scale_hybrid_table t;
  for (int c = 0; c < 2 * 5 * 2; c++) {
    int h = c / 10, i = c / 2 % 5, j = c % 2;
    char stem[48];
    snprintf(stem, sizeof stem, "grid.%s.%s.s%.0fk", chip_keys[h], keys[i], seqs[j] / 1024);
    scale_hybrid_grid_case_table(&cases[c], &t);
    emit(ch, stem, &t);
    /* the text: at 4K they differ only on Mamba-7B on the 910B (case 4); at 32K only where
     * the step model mixes CP with PP or TP */
    other_4k += !cases[c].same_step && j == 0 && c != 4;
    not_mixed_32k += !cases[c].same_step && j == 1 && !scale_hybrid_grid_step_mixes_cp(&cases[c]);
  }
  scale_hybrid_grid_tally_table(&k, &t);
  emit(ch, "grid", &t);
  chapter_claim(
      ch, true, k.search_outside == k.plan_search,
      "where the guide's degrees are faster, scale plan never tried their microbatch count");
  chapter_claim(ch, true, other_4k == 0,
                "at 4K the step model and the guide differ only on Mamba-7B on the 910B");
  chapter_claim(ch, true, not_mixed_32k == 0,
                "at 32K they differ only where the step model mixes CP with PP or TP");
  chapter_claim(ch, true, k.step_tp_small == k.n, "the step model's best keeps TP <= 2");
  chapter_claim(ch, true, k.agree_plan < k.agree_step,
                "the step model agrees with the guide more often than scale plan does");
}

static void section_planner(chapter *ch, const scale_model *l7, const scale_chip *npu,
                            const scale_step_params *prm) {
  chapter_heading(ch, "What scale plan searches (LLaMA 2 7B on 8 x 910B)");
  scale_train_problem tp = scale_train_problem_make(l7, npu, N_CHIPS, TOKENS, SEQ);
  tp.step_params = prm;
  scale_plan_report *rep = malloc(sizeof *rep);
  if (!rep) return;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (chapter_plan_train(ch, &tp, &o, rep, 1)) {
    chapter_plan_counts(ch, "plan", rep);
    chapter_claim(ch, true, rep->n_pruned_total == rep->n_pruned[SCALE_PLAN_PRUNE_MEMORY],
                  "only memory pruned LLaMA 2 7B's layouts on the 910B");
  }
  free(rep);
  scale_hybrid_problem p = scale_hybrid_paper_problem(l7, npu, GBS, SEQ);
  scale_plan_hybrid_result r;
  scale_plan_hybrid(&p, prm, &r);
  chapter_value(ch, "plan.paper_space", "the paper's space: (dp, pp, tp, cp) on 8", r.n_candidates,
                "", SCALE_FMT_PLAIN);
}

/* ==== the case study ========================================================================== */

/** What the text says of each table of the study (hybrid_study.h loads them in this order). */
typedef struct {
  const char *key;        /**< value stem: "t10" */
  const char *title;      /**< figure title */
  const char *figure;     /**< figure file */
  const char *expect_off; /**< the rows the text names as off by > 25%, space-separated ids */
  double spearman_floor;  /**< the figure reached when written: the text's claim */
  bool best_predicted;    /**< the text says the measured best is predicted best */
  bool worst_predicted;   /**< the text says the measured worst is predicted worst */
} study_spec;

static const study_spec tables[SCALE_HYBRID_STUDY_TABLES] = {
    {"t10", "LLaMA 2 7B (Table 10)", "study-llama-2-7b.svg", "", 0.95, true, true},
    {"t11", "Llama 3.2 1B (Table 11)", "study-llama-3.2-1b.svg", "T11-02 T11-12", 0.92, true,
     true},
    {"t13", "Mamba-7B (Table 13)", "study-mamba-2-7b.svg", "T13-04 T13-11 T13-12", 0.92, false, true},
    {"t14", "Mamba-1B (Table 14)", "study-mamba-2-1b.svg", "T14-01 T14-02 T14-05 T14-11 T14-12",
     0.89, true, false},
};
#define N_TABLES SCALE_HYBRID_STUDY_TABLES
#define ROWS_MAX SCALE_HYBRID_STUDY_ROWS_MAX

static scale_hybrid_study_table study[N_TABLES];
static scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX];
static int n_paper;

static bool is_mamba(const scale_hybrid_study_table *sd) {
  return sd->model.arch == SCALE_ARCH_MAMBA2;
}

/** The CP host bound: the stored host time and stage latency (chapter 14 fits them), the
 * measured time per CP layer-microbatch of every pure-CP row (DP x CP only) the host time
 * rests on, and whether TP's collectives lengthen the host's floor: a LLaMA layer's TP
 * all-reduces follow its CP block with few launches behind them, so they add; a Mamba-2
 * layer's one a pass is followed by the many launches of its chunked scan. */
static void section_cp_host(chapter *ch, const scale_step_params *prm) {
  chapter_heading(ch, "CP on a host-synchronous framework: the host's time per layer-microbatch");
  double stored = prm->v[SCALE_STEP_MESH_CP_HOST_S];
  const chapter_val r[] = {
      V("host.stored", "mesh_cp_host_s in hardware/ascend-910b.ini", stored, "s"),
      V("stage.stored", "mesh_ssm_stage_s in hardware/ascend-910b.ini",
        prm->v[SCALE_STEP_MESH_SSM_STAGE_S], "s")};
  CHAPTER_EMIT(ch, NULL, r);
  scale_hybrid_table t;
  scale_hybrid_study_host_table(study, stored, &t);
  emit(ch, "host", &t);
  for (int ti = 0; ti < N_TABLES; ti++) {
    scale_hybrid_study_ranges g;
    scale_hybrid_study_table_ranges(&study[ti], stored, &g);
    double cp = g.host_cp_mean_s, tp = g.host_tpcp_mean_s;
    if (g.n_host_cp == 0 || g.n_host_tpcp == 0) continue;
    bool mamba = is_mamba(&study[ti]);
    chapter_claim(ch, true, mamba ? tp <= cp : tp > 1.05 * cp,
                  mamba ? "Mamba: TP adds nothing to the host's time per layer-microbatch"
                        : "LLaMA: TP x CP takes longer per layer-microbatch than pure CP");
  }
}

static void study_figure(chapter *ch, const study_spec *t, const scale_hybrid_study_table *sd) {
  /* one dot per layout, the identity and the +-25% band */
  scale_plot_point pts[ROWS_MAX];
  for (int i = 0; i < sd->n; i++)
    pts[i] = (scale_plot_point){sd->rows[i].measured, sd->pred_s[i], NULL};
  double lo, hi;
  scale_hybrid_study_step_span(sd, &lo, &hi);
  scale_plot_parity_lines lines;
  scale_plot p = scale_plot_parity(
      t->title, "Predicted against measured step time of every layout (dots)",
      "measured step time [s]", "predicted step time [s]", 0.7 * lo, 1.3 * hi, OFF_FRAC, &lines);
  p.points = pts, p.n_points = (size_t)sd->n;
  chapter_figure(ch, t->figure, &p);
}

/** What the text claims of table t: best and worst predicted, the rows off, the Spearman. */
static void study_claims(chapter *ch, const study_spec *t, const scale_hybrid_study_stats *u) {
  bool best_ok = u->best_predicted, worst_ok = u->worst_predicted;
  char what[700];
  snprintf(what, sizeof what, "%s: the best layout is%s predicted (the text says%s)", t->key,
           best_ok ? "" : " not", t->best_predicted ? " it is" : " it is not");
  chapter_claim(ch, true, best_ok == t->best_predicted, what);
  snprintf(what, sizeof what, "%s: the worst layout is%s predicted (the text says%s)", t->key,
           worst_ok ? "" : " not", t->worst_predicted ? " it is" : " it is not");
  chapter_claim(ch, true, worst_ok == t->worst_predicted, what);
  snprintf(what, sizeof what, "%s: the rows off by more than 25%% are [%s] (the text names [%s])",
           t->key, u->off, t->expect_off);
  chapter_claim(ch, true, strcmp(u->off, t->expect_off) == 0, what);
  snprintf(what, sizeof what, "%s: Spearman %.3f is at least the %.2f the text states", t->key,
           u->spearman, t->spearman_floor);
  chapter_claim(ch, true, u->spearman >= t->spearman_floor, what);
}

static void section_study(chapter *ch) {
  for (int ti = 0; ti < N_TABLES; ti++) {
    const study_spec *t = &tables[ti];
    const scale_hybrid_study_table *sd = &study[ti];
    chapter_heading(ch, t->title);
    scale_hybrid_table tab;
    for (int i = 0; i < sd->n; i++) {
      int k = scale_hybrid_study_paper_find(paper, n_paper, sd->rows[i].id);
      if (k < 0) {
        chapter_error(ch, "paper-columns.txt: no row %s", sd->rows[i].id);
        continue;
      }
      char stem[48];
      snprintf(stem, sizeof stem, "%s.r%02d", t->key, i + 1);
      scale_hybrid_study_row_table(sd, i, &paper[k], OFF_FRAC, &tab);
      emit(ch, stem, &tab);
    }
    scale_hybrid_study_stats u;
    scale_hybrid_study_table_stats(sd, OFF_FRAC, &u);
    scale_hybrid_study_summary_table(sd, &u, OFF_FRAC, paper, n_paper, &tab);
    emit(ch, t->key, &tab);
    chapter_say(ch, "rows off by more than 25%%: %s", u.off[0] ? u.off : "none");
    study_claims(ch, t, &u);
    study_figure(ch, t, sd);
  }
}

/** Ranges the text cites: predicted over measured for groups of rows (pipelines of each
 * family, CP rows without PP) and the device model alone for the host-bound rows. */
static void section_study_groups(chapter *ch, const scale_step_params *prm) {
  chapter_heading(ch, "Predicted over measured, by group of rows");
  scale_hybrid_study_groups u;
  scale_hybrid_study_groups_eval(study, N_TABLES, prm->v[SCALE_STEP_MESH_SSM_STAGE_S], &u);
  scale_hybrid_table t;
  scale_hybrid_study_groups_table(&u, &t);
  emit(ch, "groups", &t);
  chapter_claim(ch, true, u.llama_pp_lo < 1.0 && u.llama_pp_hi > 1.0,
                "the LLaMA pipelines are priced on both sides of the measurement");
  chapter_claim(ch, true, u.mamba_pp_bare_hi < 1.0,
                "without the stage latency every Mamba pipeline is predicted too fast");
  chapter_claim(ch, true, u.mamba_pp_lo < 1.0 && u.mamba_pp_hi > 1.0,
                "with it the Mamba pipelines are priced on both sides of the measurement");
  /* what one more pipeline stage adds to a measured step, measured alone: with dp = 8 / (tp pp
   * cp) each device always runs 1024 x 4096 / 8 tokens of layers, so a pipeline that cost only
   * its sends and its 1F1B bubble ((pp - 1) / m of a step with m = 1024 / dp microbatches)
   * would add well under 1% of a step per stage; and the rows of the Mamba tables with neither
   * CP nor PP (the composition's own price: no floor, no stage latency) */
  scale_hybrid_study_ranges_table(study, prm->v[SCALE_STEP_MESH_CP_HOST_S], &t);
  emit(ch, NULL, &t);
  for (int ti = 0; ti < N_TABLES; ti++) {
    scale_hybrid_study_ranges g;
    scale_hybrid_study_table_ranges(&study[ti], prm->v[SCALE_STEP_MESH_CP_HOST_S], &g);
    if (is_mamba(&study[ti]) && g.stage_hi_s > 0)
      chapter_claim(ch, true, g.stage_lo_s > 0 && g.stage_hi_s < 1.3 * g.stage_lo_s,
                    "a Mamba table's stage cost is nearly one figure whatever TP, CP and DP");
  }
}

int main(int argc, char **argv) {
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "13-hybrid-parallelism",
                         "The hybrid-parallelism study of Amer et al.: DP, TP, PP and CP for "
                         "Transformers and Mamba-2, reproduced.",
                         NULL);
  if (rc >= 0) return rc;
  scale_chip npu, h100;
  scale_model l7, l1, m7, m1, l8;
  if (!chapter_load_chip(&ch, "ascend-910b", &npu) ||
      !chapter_load_chip(&ch, "nvidia-h100-sxm", &h100) ||
      !chapter_load_model(&ch, "llama-2-7b", &l7) ||
      !chapter_load_model(&ch, "llama-3.2-1b", &l1) ||
      !chapter_load_model(&ch, "mamba-2-7b-amer", &m7) ||
      !chapter_load_model(&ch, "mamba-2-1b-amer", &m1) ||
      !chapter_load_model(&ch, "llama-3-8b", &l8))
    return chapter_end(&ch);
  /* each chip's own fitted parameters (its [step] section) */
  scale_step_params prm, prm_h100;
  if (scale_step_params_of_chip(&npu, &prm) != SCALE_OK ||
      scale_step_params_of_chip(&h100, &prm_h100) != SCALE_OK) {
    chapter_error(&ch, "a chip has no [step] section (run scale calibrate)");
    return chapter_end(&ch);
  }
  const scale_model *models[5] = {&l7, &l1, &m7, &m1, &l8};
  const char *const keys[5] = {"l7", "l1", "m7", "m1", "l8"};
  const scale_chip *chips[2] = {&npu, &h100};
  const scale_step_params *chip_prm[2] = {&prm, &prm_h100};
  section_setup(&ch, &npu);
  section_volumes(&ch, &l7, &l1);
  section_memory(&ch, &l7, &npu);
  section_overlap(&ch, &l7, &l1, &npu, &h100);
  section_mamba(&ch, &m7, &m1, &l7);
  section_guide(&ch, models, keys, &npu);
  section_grid(&ch, models, keys, chips, chip_prm);
  section_planner(&ch, &l7, &npu, &prm);
  scale_diag d = {0};
  if (chapter_status_ok(&ch, scale_hybrid_study_load_all(&npu, &prm, study, paper, &n_paper, &d),
                        &d)) {
    section_cp_host(&ch, &prm);
    section_study(&ch);
    section_study_groups(&ch, &prm);
  }
  return chapter_end(&ch);
}
