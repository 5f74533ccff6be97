/* hybrid-parallelism.c — chapter 13, the hybrid-parallelism study of Amer et al. (arXiv
 * 2602.09109), as a script over hybrid.h, hybrid_grid.h and hybrid_study.h: Tables 2 and 3,
 * memory by strategy and ZeRO stage, overlap and the ring-CP block, Mamba-2's splits, the
 * design guide against the step model and `scale plan`, and Tables 10, 11, 13 and 14
 * predicted beside measured. --values emits every number hybrid-parallelism.md cites;
 * --figures DIR draws one predicted-against-measured figure per table (study-<model>.svg).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"
#include "scale/hybrid.h"
#include "scale/hybrid_grid.h"
#include "scale/hybrid_study.h"
#include "scale/plan.h"

#define N_CHIPS 8.0
#define SEQ 4096.0
#define GBS 1024.0
#define TOKENS (GBS * SEQ)
#define OFF_FRAC 0.25 /* a prediction this far from the measurement is named in the text */
#define V CHAPTER_V
#define VS CHAPTER_VS
#define BF16 SCALE_DTYPE_BF16
#define ZERO_STAGE 1         /* the paper's distributed optimizer (scale_hybrid_paper_problem) */
enum { L7, L1, M7, M1, L8 }; /* LLaMA 2 7B, Llama 3.2 1B, Mamba-7B, Mamba-1B, LLaMA 3 8B */

static scale_hybrid_table tab; /* the table being emitted; val() reads its rows */
static double val(const char *key) { return scale_hybrid_table_value(&tab, key); }

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

/* ==== Table 2 and Table 3 ==================================================================== */

static void section_volumes(chapter *ch, const scale_model *l7, const scale_model *l1) {
  chapter_heading(ch, "Collective volumes per device (Table 2), in multiples of the array T");
  static const double ns[] = {2, 8, 64}, degrees[] = {2, 4, 8};
  emit(ch, "t2", scale_hybrid_collective_table(ns, 3, &tab));
  chapter_heading(ch, "One attention layer's forward communication per device (Table 3)");
  chapter_say(ch, "b = 1, s = %.0f, bf16, bytes sent plus received", SEQ);
  emit(ch, "t3.l7", scale_hybrid_attention_table(l7, degrees, 3, SEQ, BF16, &tab));
  double ulysses = val("tpup.8") / val("tp.8");
  emit(ch, "t3.l1", scale_hybrid_attention_table(l1, degrees, 3, SEQ, BF16, &tab));
  double tp8 = val("tp.8"), cp8 = val("cp.8");
  double s5_tp = scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_TP, SEQ);
  const chapter_val r[] = {
      V("t3.l1.cp_over_tp", "Llama 3.2 1B: CP over TP (k d_h / d)", cp8 / tp8, ""),
      V("t3.l7.tpup_over_tp8", "LLaMA 2 7B at 8: Ulysses over TP", ulysses, ""),
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
    emit(ch, stem, scale_hybrid_memory_table(&mem, hbm, &tab));
  }
  chapter_claim(ch, true, tot[1] > hbm && tot[2] <= hbm,
                "a replica does not fit with ZeRO-1, does with ZeRO-2");
  chapter_claim(ch, true, tot[4] <= hbm && tot[5] <= hbm && tot[7] <= hbm,
                "every single model split fits");
  chapter_claim(ch, true, tot[6] < tot[5] && tot[5] < tot[4] && tot[4] < tot[7],
                "TP+SP < TP < PP < CP in memory");
  /* the ZeRO paper's own example: 7.5B parameters over 64 devices, 2 + 2 + 12 bytes */
  const scale_precision mixed = SCALE_PRECISION_MIXED_ADAM;
  emit(ch, "zero.paper", scale_hybrid_zero_table(&mixed, 7.5e9, 64, &tab));
}

static void section_overlap(chapter *ch, const scale_model *l7, const scale_model *l1,
                            const scale_chip *npu, const scale_chip *h100) {
  chapter_heading(ch, "Overlap: one LLaMA 2 7B layer, TP 2 on the 910B, forward");
  /* two AllReduces per layer (attention, MLP) over the one direct link to the TP peer */
  static const double chunks[] = {2, 4, 16};
  emit(ch, "ov", scale_hybrid_tp_overlap_table(l7, npu, 2, SEQ, chunks, 3, &tab));
  chapter_heading(ch, "Ring CP: the smallest block whose K/V pass hides");
  double peak = scale_chip_flops_per_s(npu, BF16), peer = scale_hybrid_peer_bytes_per_s(npu);
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
    emit(ch, stem, scale_hybrid_ssm_split_table(&s, &tab));
  }
  const chapter_val r[] = {V("ssm.m7.d_in_proj", "Mamba-7B in-projection width",
                             scale_transformer_mamba2_d_in_proj(m7), ""),
                           V("ssm.m7.groups", "Mamba-7B groups", (double)m7->ssm_n_groups, "")};
  CHAPTER_EMIT(ch, NULL, r);
  chapter_heading(ch, "CP traffic per layer and device: Mamba's states against attention's K/V");
  static const double seqs[] = {4096, 32768, 131072};
  emit(ch, NULL,
       scale_hybrid_cp_traffic_table(m7, "Mamba-7B", l7, "LLaMA 2 7B", 8, seqs, 3, BF16, &tab));
  chapter_heading(ch, "The SSD scan's share of the cube work (forward, 4K)");
  emit(ch, NULL, scale_hybrid_ssd_table(m7, "m7", SEQ, &tab));
  emit(ch, NULL, scale_hybrid_ssd_table(m1, "m1", SEQ, &tab));
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
    emit(ch, stem, scale_hybrid_guide_table(&g, &tab));
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
  static const double seqs[2] = {4096, 32768};
  static scale_hybrid_grid_case cases[2 * 5 * 2]; /* [chip][model][sequence] */
  const scale_hybrid_grid_axes ax = {models, 5, chips, prm, 2, seqs, 2, TOKENS};
  scale_hybrid_grid_tally k;
  scale_diag d = {0};
  if (!chapter_status_ok(ch, scale_hybrid_grid_run(&ax, cases, &k, &d), &d)) return;
  int other_4k = 0, not_mixed_32k = 0;
  for (int c = 0; c < 2 * 5 * 2; c++) {
    int h = c / 10, i = c / 2 % 5, j = c % 2;
    char stem[48];
    snprintf(stem, sizeof stem, "grid.%s.%s.s%.0fk", h ? "h100" : "npu", keys[i], seqs[j] / 1024);
    emit(ch, stem, scale_hybrid_grid_case_table(&cases[c], &tab));
    /* the text: at 4K they differ only on Mamba-7B on the 910B (case 4); at 32K only where
     * the step model mixes CP with PP or TP */
    other_4k += !cases[c].same_step && j == 0 && c != 4;
    not_mixed_32k += !cases[c].same_step && j == 1 && !scale_hybrid_grid_step_mixes_cp(&cases[c]);
  }
  emit(ch, "grid", scale_hybrid_grid_tally_table(&k, &tab));
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
  static scale_plan_report rep;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (chapter_plan_train(ch, &tp, &o, &rep, 1)) {
    chapter_plan_counts(ch, "plan", &rep);
    chapter_claim(ch, true, rep.n_pruned_total == rep.n_pruned[SCALE_PLAN_PRUNE_MEMORY],
                  "only memory pruned LLaMA 2 7B's layouts on the 910B");
  }
  scale_hybrid_problem p = scale_hybrid_paper_problem(l7, npu, GBS, SEQ);
  scale_plan_hybrid_result r;
  scale_plan_hybrid(&p, prm, &r);
  chapter_value(ch, "plan.paper_space", "the paper's space: (dp, pp, tp, cp) on 8", r.n_candidates,
                "", SCALE_FMT_PLAIN);
}

/* ==== the case study ========================================================================== */

/** What the text says of each table of the study (hybrid_study.h loads them in this order). */
typedef struct {
  const char *title;      /**< figure title */
  const char *figure;     /**< figure file */
  const char *expect_off; /**< the rows the text names as off by > 25%, space-separated ids */
  double spearman_floor;  /**< the figure reached when written: the text's claim */
  bool best_predicted;    /**< the text says the measured best is predicted best */
  bool worst_predicted;   /**< the text says the measured worst is predicted worst */
} study_spec;

static const study_spec tables[SCALE_HYBRID_STUDY_TABLES] = {
    {"LLaMA 2 7B (Table 10)", "study-llama-2-7b.svg", "", 0.95, true, true},
    {"Llama 3.2 1B (Table 11)", "study-llama-3.2-1b.svg", "T11-02 T11-12", 0.92, true, true},
    {"Mamba-7B (Table 13)", "study-mamba-2-7b.svg", "T13-04 T13-11 T13-12", 0.92, false, true},
    {"Mamba-1B (Table 14)", "study-mamba-2-1b.svg", "T14-01 T14-02 T14-05 T14-11 T14-12", 0.89,
     true, false},
};
#define N_TABLES SCALE_HYBRID_STUDY_TABLES

static scale_hybrid_study_table study[N_TABLES];
static scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX];
static int n_paper;

static void study_figure(chapter *ch, const study_spec *t, const scale_hybrid_study_table *sd) {
  /* one dot per layout, the identity and the +-25% band */
  scale_plot_point pts[SCALE_HYBRID_STUDY_ROWS_MAX];
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

/** What the text claims of table 'key': best and worst predicted, the rows off, the Spearman. */
static void study_claims(chapter *ch, const char *key, const study_spec *t,
                         const scale_hybrid_study_stats *u) {
  const bool got[2] = {u->best_predicted, u->worst_predicted},
             said[2] = {t->best_predicted, t->worst_predicted};
  char what[700];
  for (int k = 0; k < 2; k++) {
    snprintf(what, sizeof what, "%s: the %s layout is%s predicted (the text says%s)", key,
             k ? "worst" : "best", got[k] ? "" : " not", said[k] ? " it is" : " it is not");
    chapter_claim(ch, true, got[k] == said[k], what);
  }
  snprintf(what, sizeof what, "%s: the rows off by more than 25%% are [%s] (the text names [%s])",
           key, u->off, t->expect_off);
  chapter_claim(ch, true, strcmp(u->off, t->expect_off) == 0, what);
  snprintf(what, sizeof what, "%s: Spearman %.3f is at least the %.2f the text states", key,
           u->spearman, t->spearman_floor);
  chapter_claim(ch, true, u->spearman >= t->spearman_floor, what);
}

/** The host's floor, then each table's rows beside the paper's, its summary and its figure. */
static void section_study(chapter *ch, const scale_chip *npu, const scale_step_params *prm) {
  chapter_heading(ch, "CP on a host-synchronous framework: the host's time per layer-microbatch");
  emit(ch, NULL, scale_hybrid_study_host_table(study, npu, prm, &tab));
  for (int ti = 0; ti < N_TABLES; ti++) {
    const study_spec *t = &tables[ti];
    const char *key = scale_hybrid_study_key(ti);
    const scale_hybrid_study_table *sd = &study[ti];
    chapter_heading(ch, t->title);
    for (int i = 0; i < sd->n; i++) {
      char stem[48];
      snprintf(stem, sizeof stem, "%s.r%02d", key, i + 1);
      if (scale_hybrid_study_row_table(sd, i, paper, n_paper, OFF_FRAC, &tab))
        emit(ch, stem, &tab);
      else
        chapter_error(ch, "paper-columns.txt: no row %s", sd->rows[i].id);
    }
    scale_hybrid_study_stats u;
    scale_hybrid_study_table_stats(sd, OFF_FRAC, &u);
    emit(ch, key, scale_hybrid_study_summary_table(sd, &u, OFF_FRAC, paper, n_paper, &tab));
    chapter_say(ch, "rows off by more than 25%%: %s", u.off[0] ? u.off : "none");
    study_claims(ch, key, t, &u);
    study_figure(ch, t, sd);
  }
}

/** Predicted over measured by group of rows, the ranges of the measured rows, their claims. */
static void section_study_groups(chapter *ch, const scale_step_params *prm) {
  chapter_heading(ch, "Predicted over measured, by group of rows");
  scale_hybrid_study_groups u;
  scale_hybrid_study_groups_eval(study, N_TABLES, prm->v[SCALE_STEP_MESH_SSM_STAGE_S], &u);
  emit(ch, "groups", scale_hybrid_study_groups_table(&u, &tab));
  chapter_claim(ch, true, u.llama_pp_lo < 1.0 && u.llama_pp_hi > 1.0,
                "the LLaMA pipelines are priced on both sides of the measurement");
  chapter_claim(ch, true, u.mamba_pp_bare_hi < 1.0,
                "without the stage latency every Mamba pipeline is predicted too fast");
  chapter_claim(ch, true, u.mamba_pp_lo < 1.0 && u.mamba_pp_hi > 1.0,
                "with it the Mamba pipelines are priced on both sides of the measurement");
  /* what one more pipeline stage adds, measured; the Mamba tables' rows without CP or PP */
  emit(ch, NULL, scale_hybrid_study_ranges_table(study, prm->v[SCALE_STEP_MESH_CP_HOST_S], &tab));
  for (int ti = 0; ti < N_TABLES; ti++) {
    scale_hybrid_study_ranges g;
    scale_hybrid_study_table_ranges(&study[ti], prm->v[SCALE_STEP_MESH_CP_HOST_S], &g);
    double cp = g.host_cp_mean_s, tp = g.host_tpcp_mean_s;
    bool mamba = study[ti].model.arch == SCALE_ARCH_MAMBA2;
    /* TP's collectives lengthen the host's floor for LLaMA, whose TP all-reduces follow its CP
     * block with few launches behind; a Mamba-2 layer's one is followed by its scan's many */
    if (g.n_host_cp > 0 && g.n_host_tpcp > 0)
      chapter_claim(ch, true, mamba ? tp <= cp : tp > 1.05 * cp,
                    mamba ? "Mamba: TP adds nothing to the host's time per layer-microbatch"
                          : "LLaMA: TP x CP takes longer per layer-microbatch than pure CP");
    if (mamba && g.stage_hi_s > 0)
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
  static const char *const files[5] = {"llama-2-7b", "llama-3.2-1b", "mamba-2-7b-amer",
                                       "mamba-2-1b-amer", "llama-3-8b"};
  static const char *const keys[5] = {"l7", "l1", "m7", "m1", "l8"};
  scale_chip npu, h100;
  static scale_model m[5];
  bool ok = chapter_load_chip(&ch, "ascend-910b", &npu) &&
            chapter_load_chip(&ch, "nvidia-h100-sxm", &h100);
  for (int i = 0; i < 5 && ok; i++)
    ok = chapter_load_model(&ch, files[i], &m[i]);
  if (!ok) return chapter_end(&ch);
  /* each chip's own fitted parameters (its [step] section) */
  scale_step_params prm, prm_h100;
  if (scale_step_params_of_chip(&npu, &prm) != SCALE_OK ||
      scale_step_params_of_chip(&h100, &prm_h100) != SCALE_OK) {
    chapter_error(&ch, "a chip has no [step] section (run scale calibrate)");
    return chapter_end(&ch);
  }
  const scale_model *models[5] = {&m[0], &m[1], &m[2], &m[3], &m[4]};
  const scale_chip *chips[2] = {&npu, &h100};
  const scale_step_params *chip_prm[2] = {&prm, &prm_h100};
  chapter_heading(&ch, "The case study's machine and workload (section 6.1)");
  emit(&ch, NULL, scale_hybrid_case_table(&npu, N_CHIPS, GBS, SEQ, &tab));
  section_volumes(&ch, models[L7], models[L1]);
  section_memory(&ch, models[L7], &npu);
  section_overlap(&ch, models[L7], models[L1], &npu, &h100);
  section_mamba(&ch, models[M7], models[M1], models[L7]);
  section_guide(&ch, models, keys, &npu);
  section_grid(&ch, models, keys, chips, chip_prm);
  section_planner(&ch, models[L7], &npu, &prm);
  scale_diag d = {0};
  if (chapter_status_ok(&ch, scale_hybrid_study_load_all(&npu, &prm, study, paper, &n_paper, &d),
                        &d)) {
    section_study(&ch, &npu, &prm);
    section_study_groups(&ch, &prm);
  }
  return chapter_end(&ch);
}
