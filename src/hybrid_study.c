/* hybrid_study.c — the hybrid paper's case study as data (hybrid_study.h). */
#include "scale/hybrid_study.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/calibrate.h"

/* ==== pricing a row ========================================================================= */

void scale_hybrid_study_step_eval(const scale_step_job *job, const scale_step_params *params,
                                  scale_step_result *out) {
  if (job->model->arch == SCALE_ARCH_MAMBA2)
    scale_hybrid_mamba2_step_result(job, params, out);
  else
    scale_step_eval(job, params, out);
}

/** The host's floor of 'job' with mesh_cp_host_s = h [s]. */
static double host_floor_s(const scale_step_job *job, const scale_step_params *params, double h) {
  scale_step_params p = *params;
  p.v[SCALE_STEP_MESH_CP_HOST_S] = h;
  scale_step_result r;
  scale_hybrid_study_step_eval(job, &p, &r);
  return r.host_s;
}

scale_hybrid_fit_row scale_hybrid_study_fit_row(const scale_step_job *job,
                                                const scale_step_params *params, double measured_s,
                                                int group) {
  double f1 = host_floor_s(job, params, 1.0), f2 = host_floor_s(job, params, 2.0);
  scale_hybrid_fit_row r = {
      .device_s = scale_hybrid_predict_step_s(job, params, 0.0, 0.0),
      .units = f2 - f1,
      .fixed_s = f1 - (f2 - f1),
      .stages = job->model->arch == SCALE_ARCH_MAMBA2 ? scale_hybrid_ssm_stages(job) : 0.0,
      .measured = measured_s,
      .group = group};
  return r;
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
    scale_step_job job = scale_step_job_from_measurement(&out->rows[i], &out->model, chip);
    out->fit[i] = scale_hybrid_study_fit_row(&job, params, out->rows[i].measured, group);
    scale_step_result r;
    scale_hybrid_study_step_eval(&job, params, &r);
    out->pred_s[i] = r.step_s;
  }
  return SCALE_OK;
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
