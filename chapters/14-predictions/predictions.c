/* predictions.c — the appendix "How good are these predictions?" as a program.
 *
 * Predicts every published training run of measurements/ with the calibrated step model
 * (step.h) twice: with the shipped parameters (in-sample) and leave-one-group-out (LOGO: each
 * group with parameters fitted without it, the honest figure). Emits, for predictions.md:
 *   pred.*              counts and pooled errors (all rows, the Megatron A100 rows, TPU rows)
 *   pred.GROUP.*        per group: rows, MAPE, max error, in-sample and LOGO, Spearman's rho
 *                       for ranking groups
 *   pred.worst.K.*      the WORST_N rows with the largest LOGO error: id, group, chip, layout,
 *                       measured, predicted, error, and a reason computed from the step's
 *                       breakdown (which term binds, what the row leaves unstated)
 *   host.*, stage.*     the hybrid study's two framework parameters (hybrid_study.h) fitted
 *                       to its four tables, and left out table by table (host.logo.tNN,
 *                       stage.logo.tNN, tNN.logo_spearman)
 * and with --figures DIR predictions.svg: LOGO-predicted against measured step time, log-log,
 * one marker per group, with the diagonal and +-25%.
 *
 * Text values (ids, reasons) are value lines whose display is the text and whose value is the
 * row's LOGO error (chapter_text_value); the renderer cites displays, so the page never types
 * them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chapter.h"

#define WORST_N 6
#define TEXT_MAX 320

/** Everything the page shows, computed once. */
typedef struct {
  scale_calib_set *set;
  scale_step_params shipped;                       /**< the fit hardware/ ships */
  scale_step_params held[SCALE_CALIB_GROUPS_MAX];  /**< fitted without group g */
  double *pred;                                    /**< in-sample prediction per row [s] */
  double *logo;                                    /**< LOGO prediction per row [s] */
} study;

/* ---- computing -------------------------------------------------------------------------------- */

static bool study_load(chapter *ch, study *s) {
  scale_diag d;
  if (scale_step_params_load_file(scale_step_params_path(), &s->shipped, &d) != SCALE_OK ||
      scale_calib_set_load(scale_measurements_dir(), &s->set, &d) != SCALE_OK) {
    chapter_error(ch, "%s:%d: %s", d.file, d.line, d.message);
    return false;
  }
  int n = s->set->n;
  s->pred = malloc(sizeof(double) * (size_t)n);
  s->logo = malloc(sizeof(double) * (size_t)n);
  if (!s->pred || !s->logo) {
    chapter_error(ch, "out of memory");
    return false;
  }
  for (int g = 0; g < s->set->n_groups; g++)
    if (scale_calibrate_fit(s->set, g, &s->held[g], NULL) != SCALE_OK) {
      chapter_error(ch, "the fit without group %s failed", s->set->groups[g]);
      return false;
    }
  for (int i = 0; i < n; i++) {
    const scale_calib_point *p = &s->set->points[i];
    s->pred[i] = scale_calib_predict_s(p, &s->shipped);
    s->logo[i] = scale_calib_predict_s(p, &s->held[p->group]);
  }
  return true;
}

static void study_free(study *s) {
  free(s->pred);
  free(s->logo);
  scale_calib_set_free(s->set);
}

static double rel_err(const study *s, const double *pred, int i) {
  return pred[i] / s->set->points[i].measured_s - 1;
}

/** Which rows a pooled figure takes. */
typedef enum { POOL_ALL, POOL_MEGATRON, POOL_TPU } pool;

static bool in_pool(const scale_calib_point *p, pool which) {
  if (which == POOL_MEGATRON) return strncmp(p->row.group, "megatron-2021", 13) == 0;
  if (which == POOL_TPU) return p->chip.kind == SCALE_HW_TPU;
  return true;
}

/** Mean absolute error of 'pred' over the pool; its row count into *n. */
static double pooled_mape(const study *s, const double *pred, pool which, int *n) {
  double sum = 0;
  *n = 0;
  for (int i = 0; i < s->set->n; i++)
    if (in_pool(&s->set->points[i], which)) sum += fabs(rel_err(s, pred, i)), (*n)++;
  if (*n == 0) return NAN;
  return sum / *n;
}

static void layout_text(const scale_measurement *r, char *buf, size_t size) {
  int len = snprintf(buf, size, "DP %g, TP %g, PP %g, CP %g", r->dp, r->tp, r->pp, r->cp);
  if (len > 0 && (size_t)len < size && r->zero > 0)
    len += snprintf(buf + len, size - (size_t)len, ", ZeRO-%d", r->zero);
  if (len > 0 && (size_t)len < size && r->mbs > 0)
    snprintf(buf + len, size - (size_t)len, ", micro-batch %g", r->mbs);
}

/** Why row i misses: the direction, the term of the predicted step that binds (the largest of
 * compute, an exposed communication, the bubble, the fixed overhead) with its share, and what
 * the row leaves the model to assume. */
static void reason_text(const study *s, int i, char *buf, size_t size) {
  const scale_calib_point *p = &s->set->points[i];
  scale_step_job job = scale_calib_step_job(&p->row, &p->model, &p->chip);
  scale_step_result r;
  scale_step_eval(&job, &s->held[p->group], &r);
  double err = rel_err(s, s->logo, i);
  int worst = scale_step_worst_exposed(&r);
  double comm = worst >= 0 ? r.exposed_s[worst] : 0;
  const char *what = "compute (matmul efficiency at these shapes)";
  double share = r.compute_s / r.step_s;
  if (comm / r.step_s > share / 4 && comm >= r.bubble_s) {
    what = scale_step_comm_name((scale_step_comm)worst);
    share = comm / r.step_s;
  } else if (r.bubble_s / r.step_s > share / 4) {
    what = "the pipeline bubble";
    share = r.bubble_s / r.step_s;
  }
  int len;
  if (worst >= 0 && what == scale_step_comm_name((scale_step_comm)worst))
    len = snprintf(buf, size, "too %s: exposed %s traffic on %s is %.0f%% of the modelled step",
                   err > 0 ? "slow" : "fast", what, scale_step_net_name(r.net[worst]),
                   100 * share);
  else
    len = snprintf(buf, size, "too %s: %s is %.0f%% of the modelled step",
                   err > 0 ? "slow" : "fast", what, 100 * share);
  if (len > 0 && (size_t)len < size && p->row.mbs <= 0)
    snprintf(buf + len, size - (size_t)len, "; micro-batch not stated (fastest of 1-8 taken)");
}

/* ---- the page's values ------------------------------------------------------------------------ */

static void section_totals(chapter *ch, const study *s) {
  chapter_heading(ch, "The data and the fit");
  chapter_value(ch, "pred.rows", "published training rows", s->set->n, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "pred.groups", "groups (tables)", s->set->n_groups, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "pred.params", "fitted parameters", SCALE_STEP_N_PARAMS, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "pred.prior_weight", "the fit's pull toward the priors", s->set->prior_weight,
                "", SCALE_FMT_PLAIN);
  static const struct {
    pool which;
    const char *key, *label;
  } pools[] = {{POOL_ALL, "all", "all rows"},
               {POOL_MEGATRON, "megatron", "Megatron 2021 A100 rows"},
               {POOL_TPU, "tpu", "TPU rows"}};
  for (size_t k = 0; k < sizeof pools / sizeof pools[0]; k++) {
    int n;
    double in = pooled_mape(s, s->pred, pools[k].which, &n);
    double out = pooled_mape(s, s->logo, pools[k].which, &n);
    char label[96];
    snprintf(label, sizeof label, "%s: rows", pools[k].label);
    chapter_valuef(ch, label, n, "", SCALE_FMT_PLAIN, "pred.%s.rows", pools[k].key);
    snprintf(label, sizeof label, "%s: MAPE in-sample", pools[k].label);
    chapter_valuef(ch, label, in, "", SCALE_FMT_PERCENT, "pred.%s.mape", pools[k].key);
    snprintf(label, sizeof label, "%s: MAPE LOGO", pools[k].label);
    chapter_valuef(ch, label, out, "", SCALE_FMT_PERCENT, "pred.%s.logo_mape", pools[k].key);
  }
}

static void section_groups(chapter *ch, const study *s) {
  chapter_heading(ch, "Per group");
  for (int g = 0; g < s->set->n_groups; g++) {
    const char *name = s->set->groups[g];
    scale_calib_stats in, out;
    scale_calib_group_stats(s->set, g, s->pred, &in);
    scale_calib_group_stats(s->set, g, s->logo, &out);
    char label[96];
    snprintf(label, sizeof label, "%s: rows", name);
    chapter_valuef(ch, label, in.n, "", SCALE_FMT_PLAIN, "pred.%s.rows", name);
    snprintf(label, sizeof label, "%s: MAPE in-sample", name);
    chapter_valuef(ch, label, in.mape, "", SCALE_FMT_PERCENT, "pred.%s.mape", name);
    snprintf(label, sizeof label, "%s: MAPE LOGO", name);
    chapter_valuef(ch, label, out.mape, "", SCALE_FMT_PERCENT, "pred.%s.logo_mape", name);
    snprintf(label, sizeof label, "%s: max error LOGO", name);
    chapter_valuef(ch, label, out.max_err, "", SCALE_FMT_PERCENT, "pred.%s.logo_max", name);
    if (isfinite(out.spearman)) { /* ranking groups only */
      snprintf(label, sizeof label, "%s: Spearman LOGO", name);
      chapter_valuef(ch, label, out.spearman, "", SCALE_FMT_PLAIN, "pred.%s.logo_rho", name);
    }
  }
}

/** Indices of the WORST_N rows by |LOGO error|, largest first. */
static void worst_rows(const study *s, int *idx) {
  for (int k = 0; k < WORST_N; k++) {
    idx[k] = -1;
    for (int i = 0; i < s->set->n; i++) {
      bool taken = false;
      for (int j = 0; j < k; j++) taken = taken || idx[j] == i;
      if (!taken && (idx[k] < 0 || fabs(rel_err(s, s->logo, i)) > fabs(rel_err(s, s->logo, idx[k]))))
        idx[k] = i;
    }
  }
}

static void section_worst(chapter *ch, const study *s) {
  chapter_heading(ch, "The worst rows (LOGO)");
  int idx[WORST_N];
  worst_rows(s, idx);
  for (int k = 0; k < WORST_N && idx[k] >= 0; k++) {
    int i = idx[k];
    const scale_calib_point *p = &s->set->points[i];
    double err = rel_err(s, s->logo, i);
    char key[64], text[TEXT_MAX];
    snprintf(key, sizeof key, "pred.worst.%d.id", k + 1);
    chapter_text_value(ch, key, "row", err, p->row.id);
    snprintf(key, sizeof key, "pred.worst.%d.group", k + 1);
    chapter_text_value(ch, key, "group", err, p->row.group);
    snprintf(key, sizeof key, "pred.worst.%d.model", k + 1);
    chapter_text_value(ch, key, "model", err, p->model.display_name);
    snprintf(key, sizeof key, "pred.worst.%d.chip", k + 1);
    snprintf(text, sizeof text, "%g x %s", p->row.chips, p->chip.display_name);
    chapter_text_value(ch, key, "chips", err, text);
    snprintf(key, sizeof key, "pred.worst.%d.layout", k + 1);
    layout_text(&p->row, text, sizeof text);
    chapter_text_value(ch, key, "layout", err, text);
    chapter_valuef(ch, "measured step", p->measured_s, "s", SCALE_FMT_TIME, "pred.worst.%d.measured",
                   k + 1);
    chapter_valuef(ch, "LOGO prediction", s->logo[i], "s", SCALE_FMT_TIME, "pred.worst.%d.logo",
                   k + 1);
    chapter_valuef(ch, "LOGO error", err, "", SCALE_FMT_PERCENT, "pred.worst.%d.err", k + 1);
    snprintf(key, sizeof key, "pred.worst.%d.reason", k + 1);
    reason_text(s, i, text, sizeof text);
    chapter_text_value(ch, key, "why", err, text);
  }
}

/* ---- the hybrid study's framework costs ------------------------------------------------------- */

/** The two framework parameters of the hybrid study (hybrid_study.h, chapter 13) fitted here to
 * its four tables beside the ones stored in hardware/ascend-910b.ini, then left out table by
 * table: each fit's parameters and the left-out table's Spearman. */
static void section_hybrid(chapter *ch) {
  static const char *const keys[SCALE_HYBRID_STUDY_TABLES] = {"t10", "t11", "t13", "t14"};
  static scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES];
  static scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX];
  int n_paper;
  scale_chip npu;
  scale_step_params prm;
  scale_diag d = {0};
  if (!chapter_load_chip(ch, "ascend-910b", &npu)) return;
  if (scale_step_params_of_chip(&npu, &prm) != SCALE_OK) {
    chapter_error(ch, "ascend-910b has no [step] section (run scale calibrate)");
    return;
  }
  if (!chapter_status_ok(ch, scale_hybrid_study_load_all(&npu, &prm, t, paper, &n_paper, &d), &d))
    return;
  chapter_heading(ch, "The hybrid study's framework costs");
  double h, k, stored = prm.v[SCALE_STEP_MESH_CP_HOST_S];
  double stored_k = prm.v[SCALE_STEP_MESH_SSM_STAGE_S];
  scale_hybrid_study_fit(t, SCALE_HYBRID_STUDY_TABLES, -1, &h, &k);
  chapter_value(ch, "host.fit", "host time per CP layer-microbatch, fitted to the four tables", h,
                "s", SCALE_FMT_TIME);
  chapter_value(ch, "stage.fit", "Mamba-2 stage latency fitted with it", k, "s", SCALE_FMT_TIME);
  chapter_claim(ch, true, fabs(h / stored - 1) < 0.01 && fabs(k / stored_k - 1) < 0.01,
                "the stored parameters are this fit (scale calibrate runs the same one)");
  scale_hybrid_study_logo g;
  scale_hybrid_study_logo_eval(t, &g);
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++) {
    chapter_valuef(ch, "host time fitted without this table", g.host_s[ti], "s", SCALE_FMT_TIME,
                   "host.logo.%s", keys[ti]);
    chapter_valuef(ch, "stage latency fitted without this table", g.stage_s[ti], "s",
                   SCALE_FMT_TIME, "stage.logo.%s", keys[ti]);
    chapter_valuef(ch, "Spearman with that fit", g.spearman[ti], "", SCALE_FMT_PLAIN,
                   "%s.logo_spearman", keys[ti]);
  }
  chapter_value(ch, "host.logo_lo", "least of the held-out fits", g.host_lo_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "host.logo_hi", "most of the held-out fits", g.host_hi_s, "s", SCALE_FMT_TIME);
  chapter_claim(ch, true, h >= 1e-3 && h <= 3e-2, "the fit lies in the plausible 1-30 ms");
  chapter_claim(ch, true, g.host_hi_s / g.host_lo_s < 1.1, "the held-out fits agree within 10%");
}

/* ---- the figure ------------------------------------------------------------------------------- */

/** Predicted (LOGO) against measured step time: one series per group whose points are
 * separated by NaN (so no line joins them, only each point's marker), the diagonal, ±25%. */
static void figure_scatter(chapter *ch, const study *s) {
  int n = s->set->n, n_groups = s->set->n_groups;
  double *x = malloc(sizeof(double) * (size_t)(2 * n)), *y = malloc(sizeof(double) * (size_t)(2 * n));
  scale_plot_series ser[SCALE_CALIB_GROUPS_MAX + 2];
  if (!x || !y) {
    chapter_error(ch, "out of memory");
    free(x), free(y);
    return;
  }
  double lo = INFINITY, hi = 0;
  size_t at = 0;
  for (int g = 0; g < n_groups; g++) {
    size_t start = at;
    for (int i = 0; i < n; i++) {
      if (s->set->points[i].group != g) continue;
      x[at] = s->set->points[i].measured_s, y[at++] = s->logo[i];
      x[at] = y[at] = NAN, at++;
      lo = fmin(lo, fmin(s->set->points[i].measured_s, s->logo[i]));
      hi = fmax(hi, fmax(s->set->points[i].measured_s, s->logo[i]));
    }
    ser[g] = (scale_plot_series){.label = s->set->groups[g], .x = x + start, .y = y + start,
                                 .n = at - start, .dots = true};
  }
  lo *= 0.7, hi *= 1.4;
  double dx[2] = {lo, hi};
  /* the band's two lines as one series (one style), a NaN between them */
  double bx[5] = {lo, hi, NAN, lo, hi}, by[5] = {1.25 * lo, 1.25 * hi, NAN, 0.75 * lo, 0.75 * hi};
  ser[n_groups] = (scale_plot_series){.label = "predicted = measured", .x = dx, .y = dx, .n = 2};
  ser[n_groups + 1] = (scale_plot_series){.label = "±25%", .x = bx, .y = by, .n = 5, .dashed = true};
  scale_plot p = {.title = "Step time: predicted (leave-one-group-out) against measured",
                  .desc = "One marker per published run, one marker shape and colour per group, "
                          "with the diagonal and the ±25% band",
                  .x_label = "measured step time [s]",
                  .y_label = "predicted step time, LOGO [s]",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720,
                  .height_px = 560,
                  .x_min = lo, .x_max = hi, .y_min = lo, .y_max = hi,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = ser,
                  .n_series = (size_t)n_groups + 2};
  chapter_figure(ch, "predictions.svg", &p);
  free(x);
  free(y);
}

int main(int argc, char **argv) {
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "14-predictions",
                         "How good are the step model's predictions: every published run "
                         "predicted leave-one-group-out, per group, and the worst rows.",
                         NULL);
  if (rc >= 0) return rc;
  study s = {0};
  if (study_load(&ch, &s)) {
    section_totals(&ch, &s);
    section_groups(&ch, &s);
    section_worst(&ch, &s);
    section_hybrid(&ch);
    figure_scatter(&ch, &s);
  }
  study_free(&s);
  return chapter_end(&ch);
}
