/* hybrid_study.c — the hybrid paper's case study as data (hybrid_study.h). */
#include "scale/hybrid_study.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/calibrate.h"

/* ==== pricing a row ========================================================================= */

scale_calib_framework_row scale_hybrid_study_fit_row(const scale_step_job *job,
                                                const scale_step_params *params, double measured_s,
                                                int group) {
  double device_s = scale_hybrid_predict_step_s(job, params, 0.0, 0.0);
  return scale_calib_framework_row_of(job, params, device_s, measured_s, group);
}

/* ==== a table =============================================================================== */

scale_status scale_hybrid_study_load(const char *path, const scale_chip *chip,
                                     const scale_step_params *params, int group,
                                     scale_hybrid_study_table *out, scale_diag *diag) {
  scale_status st =
      scale_measurements_load_file(path, out->rows, SCALE_HYBRID_STUDY_ROWS_MAX, &out->n, diag);
  if (st != SCALE_OK) return st;
  if (out->n < 1) return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0, "no rows");
  for (int i = 1; i < out->n; i++)
    if (strcmp(out->rows[i].model, out->rows[0].model) != 0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0, "rows name models '%s' and '%s'",
                            out->rows[0].model, out->rows[i].model);
  st = scale_model_load(out->rows[0].model, &out->model, diag);
  if (st != SCALE_OK) return st;
  for (int i = 0; i < out->n; i++) {
    scale_step_job job = scale_calib_step_job(&out->rows[i], &out->model, chip);
    out->fit[i] = scale_hybrid_study_fit_row(&job, params, out->rows[i].measured, group);
    scale_step_result r;
    scale_step_eval(&job, params, &r);
    out->pred_s[i] = r.step_s;
  }
  return SCALE_OK;
}

/** Whether two measured rows run the same (dp, pp, tp, cp): two rows may share a layout. */
static bool same_row_layout(const scale_measurement *a, const scale_measurement *b) {
  return a->dp == b->dp && a->pp == b->pp && a->tp == b->tp && a->cp == b->cp;
}

void scale_hybrid_study_table_stats(const scale_hybrid_study_table *t, double off_frac,
                                    scale_hybrid_study_stats *out) {
  double meas[SCALE_HYBRID_STUDY_ROWS_MAX], device[SCALE_HYBRID_STUDY_ROWS_MAX], err_sum = 0;
  *out = (scale_hybrid_study_stats){0};
  for (int i = 0; i < t->n; i++) {
    meas[i] = t->rows[i].measured, device[i] = t->fit[i].device_s;
    double err = fabs(t->pred_s[i] / meas[i] - 1.0);
    err_sum += err;
    if (err > off_frac) {
      size_t used = strlen(out->off);
      snprintf(out->off + used, sizeof out->off - used, "%s%s", used ? " " : "", t->rows[i].id);
      out->n_off++;
    }
    if (meas[i] < meas[out->best_meas]) out->best_meas = i;
    if (meas[i] > meas[out->worst_meas]) out->worst_meas = i;
    if (t->pred_s[i] < t->pred_s[out->best_pred]) out->best_pred = i;
    if (t->pred_s[i] > t->pred_s[out->worst_pred]) out->worst_pred = i;
  }
  out->spearman = scale_calib_spearman(t->pred_s, meas, t->n);
  out->spearman_device = scale_calib_spearman(device, meas, t->n);
  out->mape_frac = err_sum / t->n;
  out->best_predicted = same_row_layout(&t->rows[out->best_meas], &t->rows[out->best_pred]);
  out->worst_predicted = same_row_layout(&t->rows[out->worst_meas], &t->rows[out->worst_pred]);
}

/* ==== the paper's printed columns =========================================================== */

static const char PAPER_HEADER[] = "id\ttokens_per_s\tmemory_bytes\tmemory_known\tmfu_frac";

/** Parses one data line (no newline) into *r; SCALE_OK or why not, with diag set. */
static scale_status paper_line(char *text, const char *path, int line, scale_hybrid_paper_row *r,
                               scale_diag *diag) {
  char *field[6];
  int n = 0;
  for (char *p = text; p && n < 6; n++) {
    field[n] = p;
    if ((p = strchr(p, '\t'))) *p++ = '\0';
  }
  double v[4];
  if (n != 5)
    return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "expected 5 tab-separated fields");
  if (!field[0][0] || strlen(field[0]) >= sizeof r->id)
    return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "bad id '%s'", field[0]);
  for (int i = 0; i < 4; i++)
    if (!scale_strict_number(field[i + 1], &v[i]))
      return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "'%s' is not a number",
                            field[i + 1]);
  if (!(v[0] > 0) || !(v[1] >= 0) || (v[2] != 0 && v[2] != 1) || !(v[3] > 0 && v[3] <= 1))
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, line,
                          "throughput > 0, memory >= 0, memory_known 0 or 1, MFU in (0, 1]");
  snprintf(r->id, sizeof r->id, "%s", field[0]);
  r->tokens_per_s = v[0], r->memory_bytes = v[1], r->memory_known = v[2] == 1, r->mfu_frac = v[3];
  return SCALE_OK;
}

scale_status scale_hybrid_study_paper_load(const char *path, scale_hybrid_paper_row *rows, int cap,
                                           int *n, scale_diag *diag) {
  *n = 0;
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
  char text[512];
  bool header = false;
  scale_status st = SCALE_OK;
  for (int line = 1; st == SCALE_OK && fgets(text, sizeof text, fp); line++) {
    size_t len = strlen(text);
    if (len > 0 && text[len - 1] == '\n')
      text[--len] = '\0';
    else if (!feof(fp))
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "line too long");
    if (st != SCALE_OK || text[0] == '#' || len == 0) continue;
    if (!header) {
      header = strcmp(text, PAPER_HEADER) == 0;
      if (!header) st = scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "expected the header");
      continue;
    }
    scale_hybrid_paper_row r;
    if ((st = paper_line(text, path, line, &r, diag)) != SCALE_OK) break;
    if (scale_hybrid_study_paper_find(rows, *n, r.id) >= 0)
      st = scale_diag_set(diag, SCALE_ERR_DUPLICATE_KEY, path, line, "row %s twice", r.id);
    else if (*n >= cap)
      st = scale_diag_set(diag, SCALE_ERR_RANGE, path, line, "more than %d rows", cap);
    else
      rows[(*n)++] = r;
  }
  if (st == SCALE_OK && ferror(fp)) st = scale_diag_set(diag, SCALE_ERR_IO, path, 0, "read error");
  if (st == SCALE_OK && !header) st = scale_diag_set(diag, SCALE_ERR_PARSE, path, 0, "no header");
  fclose(fp);
  return st;
}

int scale_hybrid_study_paper_find(const scale_hybrid_paper_row *rows, int n, const char *id) {
  for (int i = 0; i < n; i++)
    if (strcmp(rows[i].id, id) == 0) return i;
  return -1;
}

/* ==== the study's analyses over its tables ================================================= */

#define STUDY_TABLES_MAX 16 /* the fit's groups are 0..15 */

void scale_hybrid_study_fit(const scale_hybrid_study_table *t, int n, int skip, double *host_s,
                            double *stage_s) {
  scale_calib_framework_row rows[STUDY_TABLES_MAX * SCALE_HYBRID_STUDY_ROWS_MAX]; /* about 28 kB */
  int m = 0;
  *host_s = *stage_s = NAN;
  if (n > STUDY_TABLES_MAX) return;
  for (int ti = 0; ti < n; ti++)
    for (int i = 0; i < t[ti].n; i++)
      rows[m++] = t[ti].fit[i];
  if (scale_calib_fit_framework(rows, m, skip, host_s, stage_s) != SCALE_OK)
    *host_s = *stage_s = NAN;
}

double scale_hybrid_study_spearman_at(const scale_hybrid_study_table *t, double host_s,
                                      double stage_s) {
  double pred[SCALE_HYBRID_STUDY_ROWS_MAX], meas[SCALE_HYBRID_STUDY_ROWS_MAX];
  for (int i = 0; i < t->n; i++)
    pred[i] = scale_calib_framework_row_s(&t->fit[i], host_s, stage_s), meas[i] = t->rows[i].measured;
  return scale_calib_spearman(pred, meas, t->n);
}

/** The host-bound rows' mean measured time per CP layer-microbatch into *r. */
static void host_means(const scale_hybrid_study_table *t, double host_s,
                       scale_hybrid_study_ranges *r) {
  double cp_sum = 0, tp_sum = 0;
  for (int i = 0; i < t->n; i++) {
    const scale_measurement *m = &t->rows[i];
    const scale_calib_framework_row *f = &t->fit[i];
    if (!(m->cp > 1 && m->pp == 1 && f->device_s / f->units < host_s)) continue;
    double per = m->measured / f->units;
    if (m->tp == 1)
      cp_sum += per, r->n_host_cp++;
    else
      tp_sum += per, r->n_host_tpcp++;
  }
  r->host_cp_mean_s = r->n_host_cp ? cp_sum / r->n_host_cp : (double)NAN;
  r->host_tpcp_mean_s = r->n_host_tpcp ? tp_sum / r->n_host_tpcp : (double)NAN;
}

void scale_hybrid_study_table_ranges(const scale_hybrid_study_table *t, double host_s,
                                     scale_hybrid_study_ranges *out) {
  *out = (scale_hybrid_study_ranges){INFINITY, 0, INFINITY, 0, NAN, NAN, 0, 0};
  for (int i = 0; i < t->n; i++) {
    const scale_measurement *a = &t->rows[i];
    for (int k = 0; k < t->n; k++) {
      const scale_measurement *b = &t->rows[k];
      if (a->tp != b->tp || a->cp != b->cp || !(b->pp > a->pp)) continue;
      double per_stage = (b->measured - a->measured) / (b->pp - a->pp);
      out->stage_lo_s = fmin(out->stage_lo_s, per_stage);
      out->stage_hi_s = fmax(out->stage_hi_s, per_stage);
    }
    if (a->cp == 1 && a->pp == 1) {
      double ratio = t->pred_s[i] / a->measured;
      out->plain_lo = fmin(out->plain_lo, ratio), out->plain_hi = fmax(out->plain_hi, ratio);
    }
  }
  host_means(t, host_s, out);
}

static void widen(double *lo, double *hi, double x) { *lo = fmin(*lo, x), *hi = fmax(*hi, x); }

void scale_hybrid_study_groups_eval(const scale_hybrid_study_table *t, int n, double stage_s,
                                    scale_hybrid_study_groups *out) {
  *out = (scale_hybrid_study_groups){INFINITY, 0, INFINITY, 0, 0, INFINITY, 0, INFINITY, 0};
  for (int ti = 0; ti < n; ti++) {
    bool mamba = t[ti].model.arch == SCALE_ARCH_MAMBA2;
    for (int i = 0; i < t[ti].n; i++) {
      const scale_measurement *r = &t[ti].rows[i];
      double pred = t[ti].pred_s[i], ratio = pred / r->measured;
      if (r->pp > 1 && !mamba) widen(&out->llama_pp_lo, &out->llama_pp_hi, ratio);
      if (r->pp > 1 && mamba) {
        widen(&out->mamba_pp_lo, &out->mamba_pp_hi, ratio);
        double bare = (pred - t[ti].fit[i].stages * stage_s) / r->measured;
        out->mamba_pp_bare_hi = fmax(out->mamba_pp_bare_hi, bare);
      }
      if (r->cp > 1 && r->pp == 1 && ti != 0) { /* out of sample */
        widen(&out->cp_lo, &out->cp_hi, ratio);
        widen(&out->dev_cp_lo, &out->dev_cp_hi, t[ti].fit[i].device_s / r->measured);
      }
    }
  }
}

/* ==== the whole study ======================================================================== */

scale_status scale_hybrid_study_load_all(const scale_chip *chip, const scale_step_params *params,
                                         scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                         scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX],
                                         int *n_paper, scale_diag *diag) {
  static const char *const files[SCALE_HYBRID_STUDY_TABLES] = {
      "hybrid-910b.tsv", "hybrid/hybrid-910b-table11.tsv", "hybrid/hybrid-910b-table13.tsv",
      "hybrid/hybrid-910b-table14.tsv"};
  char path[4096];
  for (int i = 0; i < SCALE_HYBRID_STUDY_TABLES; i++) {
    snprintf(path, sizeof path, "%s/%s", scale_measurements_dir(), files[i]);
    scale_status st = scale_hybrid_study_load(path, chip, params, i, &t[i], diag);
    if (st != SCALE_OK) return st;
  }
  snprintf(path, sizeof path, "%s/hybrid/paper-columns.txt", scale_measurements_dir());
  return scale_hybrid_study_paper_load(path, paper, SCALE_HYBRID_STUDY_PAPER_MAX, n_paper, diag);
}

int scale_hybrid_study_find(const scale_hybrid_study_table *t, double dp, double pp, double tp,
                            double cp) {
  for (int i = 0; i < t->n; i++) {
    const scale_measurement *r = &t->rows[i];
    if (r->dp == dp && r->pp == pp && r->tp == tp && r->cp == cp) return i;
  }
  return -1;
}

bool scale_hybrid_study_pure_cp(const scale_measurement *r) {
  return r->cp > 1 && r->tp == 1 && r->pp == 1;
}

void scale_hybrid_study_logo_eval(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                  scale_hybrid_study_logo *out) {
  out->host_lo_s = INFINITY, out->host_hi_s = 0;
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++) {
    scale_hybrid_study_fit(t, SCALE_HYBRID_STUDY_TABLES, ti, &out->host_s[ti], &out->stage_s[ti]);
    out->spearman[ti] = scale_hybrid_study_spearman_at(&t[ti], out->host_s[ti], out->stage_s[ti]);
    out->host_lo_s = fmin(out->host_lo_s, out->host_s[ti]);
    out->host_hi_s = fmax(out->host_hi_s, out->host_s[ti]);
  }
}

void scale_hybrid_study_host_bound_range(const scale_hybrid_study_table *t, int n, double host_s,
                                         double *lo_s, double *hi_s) {
  *lo_s = INFINITY, *hi_s = 0;
  for (int ti = 0; ti < n; ti++)
    for (int i = 0; i < t[ti].n; i++) {
      const scale_calib_framework_row *f = &t[ti].fit[i];
      if (!scale_hybrid_study_pure_cp(&t[ti].rows[i]) || !(f->device_s / f->units < host_s))
        continue; /* the device binds, or not pure CP */
      double per = t[ti].rows[i].measured / f->units;
      *lo_s = fmin(*lo_s, per), *hi_s = fmax(*hi_s, per);
    }
}

double scale_hybrid_study_row_memory_bytes(const scale_hybrid_study_table *t, int i) {
  const scale_measurement *r = &t->rows[i];
  scale_hybrid_problem p = scale_hybrid_paper_problem(&t->model, NULL, r->gbs, r->seq);
  scale_hybrid_layout l = {r->dp, r->pp, r->tp, r->cp, p.zero, r->tp > 1.0};
  scale_hybrid_memory mem;
  scale_hybrid_problem_memory(&p, &l, &mem);
  return mem.total_bytes;
}

void scale_hybrid_study_step_span(const scale_hybrid_study_table *t, double *lo_s, double *hi_s) {
  *lo_s = *hi_s = t->rows[0].measured;
  for (int i = 0; i < t->n; i++) {
    *lo_s = fmin(*lo_s, fmin(t->rows[i].measured, t->pred_s[i]));
    *hi_s = fmax(*hi_s, fmax(t->rows[i].measured, t->pred_s[i]));
  }
}

double scale_hybrid_study_memory_spearman(const scale_hybrid_study_table *t,
                                          const scale_hybrid_paper_row *paper, int n_paper) {
  double meas[SCALE_HYBRID_STUDY_ROWS_MAX], pred[SCALE_HYBRID_STUDY_ROWS_MAX];
  int n = 0;
  for (int i = 0; i < t->n; i++) {
    int k = scale_hybrid_study_paper_find(paper, n_paper, t->rows[i].id);
    if (k < 0 || !paper[k].memory_known) continue; /* a copy error in the paper's column */
    meas[n] = paper[k].memory_bytes;
    pred[n++] = scale_hybrid_study_row_memory_bytes(t, i);
  }
  return n >= 2 ? scale_calib_spearman(pred, meas, n) : (double)NAN;
}

/* The measured step of t's row at (pp, tp, cp), whatever its dp; NaN when there is none. */
static double measured_at(const scale_hybrid_study_table *t, double pp, double tp, double cp) {
  for (int i = 0; i < t->n; i++) {
    const scale_measurement *r = &t->rows[i];
    if (r->pp == pp && r->tp == tp && r->cp == cp) return r->measured;
  }
  return NAN;
}

double scale_hybrid_study_pp1_extrapolated_s(const scale_hybrid_study_table *t, double tp,
                                             double cp, double pp_a, double pp_b) {
  if (!(pp_b > pp_a)) return NAN;
  double a = measured_at(t, pp_a, tp, cp), b = measured_at(t, pp_b, tp, cp);
  return a - (pp_a - 1.0) * (b - a) / (pp_b - pp_a);
}

/* ==== the study as tables ==================================================================== */

scale_hybrid_table *scale_hybrid_study_row_table(const scale_hybrid_study_table *t, int i,
                                                 const scale_hybrid_paper_row *paper, int n_paper,
                                                 double off_frac, scale_hybrid_table *out) {
  const scale_measurement *r = &t->rows[i];
  double meas = r->measured, pred = t->pred_s[i];
  int k = scale_hybrid_study_paper_find(paper, n_paper, r->id);
  out->n = 0;
  if (k < 0) return NULL;
  const scale_hybrid_paper_row *pc = &paper[k];
  const char *mem = pc->memory_known ? "measured memory" : "measured memory (copy error: the MFU)";
  char off[64];
  snprintf(off, sizeof off, "off by more than %.0f%%", 100.0 * off_frac);
  out->n = 0;
  scale_hybrid_table_add_layout(out, NULL, r->dp, r->pp, r->tp, r->cp);
  scale_hybrid_table_add(out, "meas_s", "measured step", meas, "s", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "pred_s", "predicted step", pred, "s", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "device_s", "device time alone", t->fit[i].device_s, "s",
                         SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "ratio", "predicted / measured", pred / meas, "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "meas_tps", "measured throughput", pc->tokens_per_s, "tok/s",
                         SCALE_FMT_SI);
  scale_hybrid_table_add(out, "pred_tps", "predicted throughput", r->gbs * r->seq / pred, "tok/s",
                         SCALE_FMT_SI);
  scale_hybrid_table_add(out, "meas_mem", mem, pc->memory_bytes, "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "pred_mem", "predicted memory",
                         scale_hybrid_study_row_memory_bytes(t, i), "B", SCALE_FMT_SI);
  scale_hybrid_table_add(out, "meas_mfu", "measured MFU", 100.0 * pc->mfu_frac, "%",
                         SCALE_FMT_PLAIN);
  /* the same FLOPs over the predicted time: the paper's MFU definition kept */
  scale_hybrid_table_add(out, "pred_mfu", "predicted MFU", 100.0 * pc->mfu_frac * meas / pred, "%",
                         SCALE_FMT_PLAIN);
  scale_hybrid_table_add_flag(out, "off", off, fabs(pred / meas - 1.0) > off_frac);
  return out;
}

scale_hybrid_table *scale_hybrid_study_summary_table(const scale_hybrid_study_table *t,
                                                     const scale_hybrid_study_stats *u,
                                                     double off_frac,
                                                     const scale_hybrid_paper_row *paper,
                                                     int n_paper, scale_hybrid_table *out) {
  char off[64];
  snprintf(off, sizeof off, "rows off by > %.0f%%", 100.0 * off_frac);
  out->n = 0;
  scale_hybrid_table_add(out, "n", "rows", t->n, "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "spearman", "Spearman (step time)", u->spearman, "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "spearman_device", "Spearman (device time alone)", u->spearman_device,
                         "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "mem_spearman", "Spearman (memory)",
                         scale_hybrid_study_memory_spearman(t, paper, n_paper), "",
                         SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "mape", "mean |error|", 100.0 * u->mape_frac, "%", SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "n_off", off, u->n_off, "", SCALE_FMT_PLAIN);
  const char *const what[4] = {"best_meas", "worst_meas", "best_pred", "worst_pred"};
  const int end[4] = {u->best_meas, u->worst_meas, u->best_pred, u->worst_pred};
  for (int k = 0; k < 4; k++) {
    const scale_measurement *r = &t->rows[end[k]];
    scale_hybrid_table_add_layout(out, what[k], r->dp, r->pp, r->tp, r->cp);
    int j = scale_hybrid_study_paper_find(paper, n_paper, r->id);
    if (k >= 2 || j < 0) continue;
    char key[sizeof out->row[0].key];
    snprintf(key, sizeof key, "%s.mfu", what[k]);
    scale_hybrid_table_add(out, key, "measured MFU", 100.0 * paper[j].mfu_frac, "%",
                           SCALE_FMT_PLAIN);
  }
  return out;
}

scale_hybrid_table *scale_hybrid_study_groups_table(const scale_hybrid_study_groups *u,
                                                    scale_hybrid_table *out) {
  const struct {
    const char *key, *label;
    double v;
  } rows[] = {{"llama_pp_lo", "LLaMA pipelines: least pred / meas", u->llama_pp_lo},
              {"llama_pp_hi", "LLaMA pipelines: most pred / meas", u->llama_pp_hi},
              {"mamba_pp_bare_hi", "Mamba pipelines without the stage latency: most pred / meas",
               u->mamba_pp_bare_hi},
              {"mamba_pp_lo", "Mamba pipelines: least pred / meas", u->mamba_pp_lo},
              {"mamba_pp_hi", "Mamba pipelines: most pred / meas", u->mamba_pp_hi},
              {"cp_lo", "CP rows without PP, Tables 11-14: least pred / meas", u->cp_lo},
              {"cp_hi", "CP rows without PP, Tables 11-14: most pred / meas", u->cp_hi},
              {"dev_cp_lo", "the same rows, device time alone: least", u->dev_cp_lo},
              {"dev_cp_hi", "the same rows, device time alone: most", u->dev_cp_hi}};
  out->n = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    scale_hybrid_table_add(out, rows[i].key, rows[i].label, rows[i].v, "", SCALE_FMT_PLAIN);
  return out;
}

const char *scale_hybrid_study_key(int i) {
  static const char *const keys[SCALE_HYBRID_STUDY_TABLES] = {"t10", "t11", "t13", "t14"};
  return i >= 0 && i < SCALE_HYBRID_STUDY_TABLES ? keys[i] : "?";
}

scale_hybrid_table *
scale_hybrid_study_host_table(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                              const scale_chip *chip, const scale_step_params *params,
                              scale_hybrid_table *out) {
  double host_s = params->v[SCALE_STEP_MESH_CP_HOST_S];
  char key[sizeof out->row[0].key], label[SCALE_HYBRID_LABEL_MAX];
  out->n = 0;
  snprintf(label, sizeof label, "mesh_cp_host_s in hardware/%s.ini", chip->name);
  scale_hybrid_table_add(out, "host.stored", label, host_s, "s", SCALE_FMT_TIME);
  snprintf(label, sizeof label, "mesh_ssm_stage_s in hardware/%s.ini", chip->name);
  scale_hybrid_table_add(out, "stage.stored", label, params->v[SCALE_STEP_MESH_SSM_STAGE_S], "s",
                         SCALE_FMT_TIME);
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++)
    for (int i = 0; i < t[ti].n; i++) {
      const scale_measurement *r = &t[ti].rows[i];
      const scale_calib_framework_row *f = &t[ti].fit[i];
      if (!scale_hybrid_study_pure_cp(r)) continue;
      snprintf(key, sizeof key, "host.meas.%s.cp%.0f", scale_hybrid_study_key(ti), r->cp);
      scale_hybrid_table_add(out, key, "measured per CP layer-microbatch", r->measured / f->units,
                             "s", SCALE_FMT_TIME);
      snprintf(key, sizeof key, "host.device.%s.cp%.0f", scale_hybrid_study_key(ti), r->cp);
      scale_hybrid_table_add(out, key, "the device's own time per layer-microbatch",
                             f->device_s / f->units, "s", SCALE_FMT_TIME);
    }
  double lo, hi;
  scale_hybrid_study_host_bound_range(t, SCALE_HYBRID_STUDY_TABLES, host_s, &lo, &hi);
  scale_hybrid_table_add(out, "host.meas_lo", "pure-CP rows the host binds: least", lo, "s",
                         SCALE_FMT_TIME);
  scale_hybrid_table_add(out, "host.meas_hi", "pure-CP rows the host binds: most", hi, "s",
                         SCALE_FMT_TIME);
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++) {
    scale_hybrid_study_ranges g;
    scale_hybrid_study_table_ranges(&t[ti], host_s, &g);
    if (g.n_host_cp == 0 || g.n_host_tpcp == 0) continue;
    snprintf(key, sizeof key, "host.tp_cp.%s", scale_hybrid_study_key(ti));
    scale_hybrid_table_add(out, key, "pure CP, measured per layer-microbatch (mean)",
                           g.host_cp_mean_s, "s", SCALE_FMT_TIME);
    snprintf(key, sizeof key, "host.tp_tpcp.%s", scale_hybrid_study_key(ti));
    scale_hybrid_table_add(out, key, "TP x CP, measured per layer-microbatch (mean)",
                           g.host_tpcp_mean_s, "s", SCALE_FMT_TIME);
  }
  return out;
}

/** Appends the range [lo, hi] labelled 'label' as "KEY.WHAT_lo" and "KEY.WHAT_hi". */
static void add_range(scale_hybrid_table *out, const char *key, const char *what, const char *label,
                      double lo, double hi, const char *unit, scale_fmt style) {
  char k[sizeof out->row[0].key], l[SCALE_HYBRID_LABEL_MAX];
  snprintf(k, sizeof k, "%s.%s_lo", key, what);
  snprintf(l, sizeof l, "%s: least", label);
  scale_hybrid_table_add(out, k, l, lo, unit, style);
  snprintf(k, sizeof k, "%s.%s_hi", key, what);
  snprintf(l, sizeof l, "%s: most", label);
  scale_hybrid_table_add(out, k, l, hi, unit, style);
}

scale_hybrid_table *
scale_hybrid_study_ranges_table(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                double host_s, scale_hybrid_table *out) {
  scale_hybrid_study_ranges g[SCALE_HYBRID_STUDY_TABLES];
  out->n = 0;
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++) {
    scale_hybrid_study_table_ranges(&t[ti], host_s, &g[ti]);
    if (g[ti].stage_hi_s > 0)
      add_range(out, scale_hybrid_study_key(ti), "stage", "one more stage adds (measured)",
                g[ti].stage_lo_s, g[ti].stage_hi_s, "s", SCALE_FMT_TIME);
  }
  /* Mamba-7B at TP 1 x CP 2 without PP does not fit: its step from Table 13's two pipelines */
  double base = scale_hybrid_study_pp1_extrapolated_s(&t[2], 1, 2, 2, 4);
  if (isfinite(base))
    scale_hybrid_table_add(out, "t13.tp1cp2_base",
                           "Mamba-7B (4, 1, 1, 2) extrapolated from its pipelines", base, "s",
                           SCALE_FMT_PLAIN);
  for (int ti = 0; ti < SCALE_HYBRID_STUDY_TABLES; ti++)
    if (t[ti].model.arch == SCALE_ARCH_MAMBA2 && g[ti].plain_hi > 0)
      add_range(out, scale_hybrid_study_key(ti), "plain", "rows without CP or PP, pred / meas",
                g[ti].plain_lo, g[ti].plain_hi, "", SCALE_FMT_PLAIN);
  return out;
}
