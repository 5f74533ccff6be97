/* calibrate.c — Levenberg-Marquardt fit of the step model, and the error figures (see
 * calibrate.h). Reading order: loading the set; the parameter map; residuals; the solver;
 * statistics; writing a parameter file.
 */
#include "scale/calibrate.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/file.h"
#include "scale/memory.h"
#include "scale/precision.h"
#include "scale/training.h"

/* ---- the set -------------------------------------------------------------------------------- */

static int add_group(scale_calib_set *set, const char *name) {
  int g = scale_calib_group_index(set, name);
  if (g >= 0 || set->n_groups == SCALE_CALIB_GROUPS_MAX) return g;
  snprintf(set->groups[set->n_groups], SCALE_NAME_MAX, "%s", name);
  return set->n_groups++;
}

int scale_calib_group_index(const scale_calib_set *set, const char *name) {
  for (int g = 0; g < set->n_groups; g++)
    if (strcmp(set->groups[g], name) == 0) return g;
  return -1;
}

static int add_host_group(scale_calib_set *set, const char *name) {
  for (int g = 0; g < set->n_host_groups; g++)
    if (strcmp(set->host_groups[g], name) == 0) return g;
  if (set->n_host_groups == SCALE_CALIB_GROUPS_MAX) return -1;
  snprintf(set->host_groups[set->n_host_groups], SCALE_NAME_MAX, "%s", name);
  return set->n_host_groups++;
}

/* Point i's model and chip: a copy of an earlier point's with the same stem (the same file
 * gives the same struct), else loaded. About 40 distinct files under 300 rows: each is parsed
 * once, which keeps the load cheap enough for `scale train`'s coverage caveat. */
static scale_status load_point_files(scale_calib_point *points, int i, scale_diag *diag) {
  scale_calib_point *p = &points[i];
  int model_at = -1, chip_at = -1;
  for (int k = 0; k < i && (model_at < 0 || chip_at < 0); k++) {
    if (model_at < 0 && strcmp(points[k].row.model, p->row.model) == 0) model_at = k;
    if (chip_at < 0 && strcmp(points[k].row.hardware, p->row.hardware) == 0) chip_at = k;
  }
  scale_status st = SCALE_OK;
  if (model_at >= 0)
    p->model = points[model_at].model;
  else
    st = scale_model_load(p->row.model, &p->model, diag);
  if (st) return st;
  if (chip_at >= 0)
    p->chip = points[chip_at].chip;
  else
    st = scale_chip_load(p->row.hardware, &p->chip, diag);
  return st;
}

/** The rows of dir/hybrid/ into set->host_points (none when the folder is absent). */
static scale_status load_host_rows(const char *dir, scale_calib_set *set,
                                   scale_measurement *rows, scale_diag *diag) {
  char sub[4200];
  snprintf(sub, sizeof sub, "%.4000s/hybrid", dir);
  DIR *d = opendir(sub);
  if (!d) return SCALE_OK;
  closedir(d);
  int n = 0;
  scale_status st = scale_measurements_load_dir(sub, rows, SCALE_CALIB_ROWS_MAX, &n, diag);
  for (int i = 0; !st && i < n; i++) {
    scale_calib_point *p = &set->host_points[i];
    p->row = rows[i];
    st = load_point_files(set->host_points, i, diag);
    if (st) break;
    p->measured_s = scale_measurement_step_s(&rows[i], &p->model);
    p->group = add_host_group(set, rows[i].group);
    if (p->group < 0)
      return scale_diag_set(diag, SCALE_ERR_RANGE, rows[i].file, rows[i].line,
                            "more than %d groups", SCALE_CALIB_GROUPS_MAX);
    set->n_host = i + 1;
  }
  return st;
}

/* The index into set->kernel_chips of chip 'stem' into *at, loaded on first use. */
static scale_status kernel_chip_index(scale_calib_set *set, const char *stem, int *at,
                                      scale_diag *diag) {
  for (*at = 0; *at < set->n_kernel_chips; (*at)++)
    if (strcmp(set->kernel_chips[*at].name, stem) == 0) return SCALE_OK;
  if (set->n_kernel_chips == SCALE_CALIB_KERNEL_CHIPS_MAX)
    return scale_diag_set(diag, SCALE_ERR_RANGE, stem, 0, "more than %d chips in kernels/",
                          SCALE_CALIB_KERNEL_CHIPS_MAX);
  scale_status st = scale_chip_load(stem, &set->kernel_chips[*at], diag);
  if (!st) set->n_kernel_chips++;
  return st;
}

/** The GEMMs of dir/kernels/ into set->kernels, each with its chip (none when the folder is
 * absent). */
static scale_status load_kernel_rows(const char *dir, scale_calib_set *set, scale_diag *diag) {
  char sub[4200];
  snprintf(sub, sizeof sub, "%.4000s/kernels", dir);
  DIR *d = opendir(sub);
  if (!d) return SCALE_OK;
  closedir(d);
  set->kernels = calloc(SCALE_CALIB_ROWS_MAX, sizeof *set->kernels);
  set->kernel_chip = calloc(SCALE_CALIB_ROWS_MAX, sizeof *set->kernel_chip);
  if (!set->kernels || !set->kernel_chip) return SCALE_ERR_NOMEM;
  scale_status st = scale_measurements_kernels_load_dir(sub, set->kernels, SCALE_CALIB_ROWS_MAX,
                                                        &set->n_kernels, diag);
  for (int i = 0; !st && i < set->n_kernels; i++)
    st = kernel_chip_index(set, set->kernels[i].hardware, &set->kernel_chip[i], diag);
  return st;
}

scale_status scale_calib_set_load(const char *dir, scale_calib_set **out, scale_diag *diag) {
  *out = NULL;
  scale_measurement *rows = calloc(SCALE_CALIB_ROWS_MAX, sizeof *rows);
  scale_calib_set *set = calloc(1, sizeof *set);
  if (set) set->points = calloc(SCALE_CALIB_ROWS_MAX, sizeof *set->points);
  if (set) set->host_points = calloc(SCALE_CALIB_ROWS_MAX, sizeof *set->host_points);
  if (!rows || !set || !set->points || !set->host_points) {
    free(rows);
    scale_calib_set_free(set);
    return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  }
  int n = 0;
  scale_status st = scale_measurements_load_dir(dir, rows, SCALE_CALIB_ROWS_MAX, &n, diag);
  for (int i = 0; !st && i < n; i++) {
    scale_calib_point *p = &set->points[i];
    p->row = rows[i];
    st = load_point_files(set->points, i, diag);
    if (st) break;
    p->measured_s = scale_measurement_step_s(&rows[i], &p->model);
    p->group = add_group(set, rows[i].group);
    if (p->group < 0)
      st = scale_diag_set(diag, SCALE_ERR_RANGE, rows[i].file, rows[i].line,
                          "more than %d groups", SCALE_CALIB_GROUPS_MAX);
    set->n = i + 1;
  }
  if (!st) st = load_host_rows(dir, set, rows, diag);
  if (!st) st = load_kernel_rows(dir, set, diag);
  free(rows);
  if (st) {
    scale_calib_set_free(set);
    return st;
  }
  set->prior_weight = SCALE_CALIB_PRIOR_WEIGHT;
  *out = set;
  return SCALE_OK;
}

void scale_calib_set_free(scale_calib_set *set) {
  if (!set) return;
  free(set->points);
  free(set->host_points);
  free(set->kernels);
  free(set->kernel_chip);
  free(set);
}

double scale_calib_predict_s(const scale_calib_point *point, const scale_step_params *params) {
  scale_step_job job = scale_calib_step_job(&point->row, &point->model, &point->chip);
  /* a Mamba-2 row (of dir/hybrid/ only) states its micro-batch */
  if (point->row.mbs > 0 || point->model.arch == SCALE_ARCH_MAMBA2)
    return scale_step_time_s(&job, params);
  /* micro-batch not stated: the published run was tuned, so take the fastest of 1, 2, 4, 8
   * sequences that divides the per-replica batch */
  double best = NAN, per_replica = point->row.gbs / point->row.dp;
  for (double mbs = 1; mbs <= 8; mbs *= 2) {
    if (fmod(per_replica, mbs) != 0) continue;
    job.mbs = mbs;
    double t = scale_step_time_s(&job, params);
    if (isnan(best) || t < best) best = t; /* a NaN time never replaces a finite one */
  }
  return best;
}

/* ---- the parameter map: unbounded u <-> value inside [lo, hi] -------------------------------- */

static double to_value(int i, double u) {
  const scale_step_param_info *d = scale_step_param_describe((scale_step_param)i);
  double s = 1.0 / (1.0 + exp(-u));
  if (d->log_scale) return exp(log(d->lo) + (log(d->hi) - log(d->lo)) * s);
  return d->lo + (d->hi - d->lo) * s;
}

/** A parameter's position in its range, 0 at lo and 1 at hi (log or linear as it is fitted). */
static double range_pos(int i, double value) {
  const scale_step_param_info *d = scale_step_param_describe((scale_step_param)i);
  return d->log_scale ? (log(value) - log(d->lo)) / (log(d->hi) - log(d->lo))
                      : (value - d->lo) / (d->hi - d->lo);
}

static double to_u(int i, double value) {
  double s = fmin(fmax(range_pos(i, value), 1e-6), 1 - 1e-6);
  return log(s / (1 - s));
}

static scale_step_params params_of(const double *u) {
  scale_step_params p;
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) p.v[i] = to_value(i, u[i]);
  return p;
}

/* ---- residuals ------------------------------------------------------------------------------ */

enum { P = SCALE_STEP_N_PARAMS, MAX_ITER = 2000 };

/** The rows a fit uses, their weights, and the parameters it may move. */
typedef struct {
  const scale_calib_set *set;
  int *index;     /**< rows used */
  double *weight; /**< 1 / sqrt(rows of the row's group) */
  int n;
  bool moves[P];  /**< parameters this stage fits; the others keep their values */
  double prior_w; /**< the pull of each moving parameter toward its prior (set->prior_weight) */
} fit_rows;

/** The n rows' weighted log errors, then P rows pulling each moving parameter toward its prior:
 * prior_w times its distance from the prior as a fraction of its range (a Gaussian prior, so
 * the fit is the most probable parameters, not merely the closest fit). Data that pin a
 * parameter outweigh the pull; along directions the rows cannot tell apart (a kernel's fixed
 * cost against the step's, say) it keeps the parameter at its documented value instead of
 * letting it drift to a bound. Returns the sum of squares. */
static double residuals(const fit_rows *f, const double *u, double *r) {
  scale_step_params p = params_of(u);
  double cost = 0;
  for (int k = 0; k < f->n; k++) {
    const scale_calib_point *pt = &f->set->points[f->index[k]];
    double pred = scale_calib_predict_s(pt, &p);
    double e = isfinite(pred) && pred > 0 ? log(pred / pt->measured_s) : 10.0;
    r[k] = f->weight[k] * e;
    cost += r[k] * r[k];
  }
  scale_step_params prior = scale_step_params_prior();
  for (int i = 0; i < P; i++) {
    double e = f->moves[i] ? range_pos(i, p.v[i]) - range_pos(i, prior.v[i]) : 0.0;
    r[f->n + i] = f->prior_w * e;
    cost += r[f->n + i] * r[f->n + i];
  }
  return cost;
}

/* ---- the solver ----------------------------------------------------------------------------- */

#define MAX_STEP 0.5

/** Solves a x = b (P x P, Gaussian elimination with partial pivoting); false if singular. */
static bool solve(double a[P][P], double *b, double *x) {
  for (int c = 0; c < P; c++) {
    int piv = c;
    for (int r = c + 1; r < P; r++)
      if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
    if (fabs(a[piv][c]) < 1e-300) return false;
    for (int k = 0; k < P; k++) {
      double t = a[c][k];
      a[c][k] = a[piv][k];
      a[piv][k] = t;
    }
    double t = b[c];
    b[c] = b[piv];
    b[piv] = t;
    for (int r = c + 1; r < P; r++) {
      double f = a[r][c] / a[c][c];
      for (int k = c; k < P; k++) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int c = P - 1; c >= 0; c--) {
    double s = b[c];
    for (int k = c + 1; k < P; k++) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return true;
}

/** Forward-difference Jacobian of the residuals in u. */
static void jacobian(const fit_rows *f, const double *u, const double *r, double *jac,
                     double *work) {
  double up[P];
  memcpy(up, u, sizeof up);
  for (int i = 0; i < P; i++) {
    const double h = 1e-6;
    if (!f->moves[i]) { /* a zero column: the step leaves the parameter where it is */
      for (int k = 0; k < f->n + P; k++) jac[k * P + i] = 0;
      continue;
    }
    up[i] = u[i] + h;
    residuals(f, up, work);
    for (int k = 0; k < f->n + P; k++) jac[k * P + i] = (work[k] - r[k]) / h;
    up[i] = u[i];
  }
}

/** One damped Gauss-Newton step: (J'J + lambda diag(J'J)) d = -J'r. */
static bool lm_step(const fit_rows *f, const double *jac, const double *r, double lambda,
                    double *d) {
  double a[P][P], g[P];
  for (int i = 0; i < P; i++) {
    g[i] = 0;
    for (int k = 0; k < f->n + P; k++) g[i] -= jac[k * P + i] * r[k];
    for (int j = 0; j < P; j++) {
      double s = 0;
      for (int k = 0; k < f->n + P; k++) s += jac[k * P + i] * jac[k * P + j];
      a[i][j] = s;
    }
  }
  for (int i = 0; i < P; i++) a[i][i] += lambda * a[i][i] + 1e-12;
  return solve(a, g, d);
}

static scale_status levenberg_marquardt(const fit_rows *f, double *u, int *iterations,
                                        double *cost_out) {
  double *r = malloc(sizeof(double) * (size_t)(f->n + P) * 3);
  double *jac = malloc(sizeof(double) * (size_t)(f->n + P) * P);
  if (!r || !jac) {
    free(r);
    free(jac);
    return SCALE_ERR_NOMEM;
  }
  double *trial = r + f->n + P, *work = r + 2 * (f->n + P);
  double cost = residuals(f, u, r), lambda = 1e-3;
  int it = 0;
  bool converged = false;
  for (; !converged && it < MAX_ITER && lambda < 1e12; it++) {
    jacobian(f, u, r, jac, work);
    bool improved = false;
    while (!improved && lambda < 1e12) {
      double d[P], ut[P];
      if (lm_step(f, jac, r, lambda, d)) {
        /* a trust region in u: no parameter moves by more than MAX_STEP at once, so a long
         * Gauss-Newton step cannot throw one into its range's saturated end */
        double longest = 0;
        for (int i = 0; i < P; i++) longest = fmax(longest, fabs(d[i]));
        double scale = longest > MAX_STEP ? MAX_STEP / longest : 1.0;
        for (int i = 0; i < P; i++) ut[i] = u[i] + scale * d[i];
        double c = residuals(f, ut, trial);
        if (c < cost) {
          improved = true;
          double gain = (cost - c) / cost;
          memcpy(u, ut, sizeof ut);
          memcpy(r, trial, sizeof(double) * (size_t)(f->n + P));
          cost = c;
          lambda = fmax(lambda / 3, 1e-9);
          converged = gain < 1e-12;
          continue;
        }
      }
      lambda *= 4;
    }
  }
  *iterations = it;
  *cost_out = cost;
  free(r);
  free(jac);
  return SCALE_OK;
}

/** Whether a parameter prices the TPU's own network (ICI latency, bandwidth, half size). */
static bool tpu_param(int i) {
  return i == SCALE_STEP_ICI_LATENCY_S || i == SCALE_STEP_ICI_BW_ETA ||
         i == SCALE_STEP_ICI_HALF_BYTES;
}

/** Whether a parameter is the hybrid paper's framework's (the host stage fits it, by grid). */
static bool framework_param(int i) {
  return i == SCALE_STEP_MESH_CP_HOST_S || i == SCALE_STEP_MESH_SSM_STAGE_S;
}

/** Whether a parameter prices what only a MoE layer runs (its grouped GEMMs, its all-to-alls). */
static bool moe_param(int i) {
  return i == SCALE_STEP_GROUPED_ETA || i == SCALE_STEP_EP_EXPOSED_FRAC ||
         i == SCALE_STEP_MOE_SYNC_S;
}

/** The rows a fit stage takes: dense GPU/NPU runs with 16-bit matmuls, dense GPU/NPU runs
 * with 8- or 4-bit matmuls, MoE GPU/NPU runs, TPU runs. */
typedef enum { ROWS_DENSE, ROWS_LOWP, ROWS_MOE, ROWS_TPU } row_kind;

static row_kind kind_of(const scale_calib_point *pt) {
  if (pt->chip.kind == SCALE_HW_TPU) return ROWS_TPU;
  if (scale_model_is_moe(&pt->model)) return ROWS_MOE;
  bool lowp = pt->row.precision == SCALE_DTYPE_FP8 || pt->row.precision == SCALE_DTYPE_FP4;
  return lowp ? ROWS_LOWP : ROWS_DENSE;
}

/** Whether a stage fitting rows of 'kind' moves parameter i: the 16-bit dense rows every
 * device parameter but the TPU network's, the MoE layer's and the 8-bit discount; the others
 * only their own (fitted jointly, the 8-bit rows would move the 16-bit parameters, and with
 * them every 16-bit prediction, toward what only low precision costs). */
static bool stage_moves(row_kind kind, int i) {
  if (framework_param(i)) return false;
  if (kind == ROWS_TPU) return tpu_param(i);
  if (kind == ROWS_MOE) return moe_param(i);
  if (kind == ROWS_LOWP) return i == SCALE_STEP_LOWP_ETA;
  return !tpu_param(i) && !moe_param(i) && i != SCALE_STEP_LOWP_ETA;
}

/** Fills f with the rows of one stage (of 'kind'), 'exclude' left out, weighted
 * 1 / sqrt(rows of the group); counts the groups it takes into *n_groups. */
static void stage_rows(const scale_calib_set *set, int exclude, row_kind kind, fit_rows *f,
                       int *n_groups) {
  int per_group[SCALE_CALIB_GROUPS_MAX] = {0};
  f->n = 0;
  for (int i = 0; i < set->n; i++)
    if (set->points[i].group != exclude && kind_of(&set->points[i]) == kind)
      per_group[set->points[i].group]++;
  for (int g = 0; g < set->n_groups; g++) *n_groups += per_group[g] > 0;
  for (int i = 0; i < set->n; i++) {
    int g = set->points[i].group;
    if (per_group[g] == 0 || kind_of(&set->points[i]) != kind) continue;
    f->index[f->n] = i;
    f->weight[f->n++] = 1.0 / sqrt((double)per_group[g]);
  }
  for (int i = 0; i < P; i++) f->moves[i] = stage_moves(kind, i);
}

/** Drops from f the rows with CP on a mesh (those mesh_cp_host_s can bind). */
static void hold_host_rows(fit_rows *f) {
  int kept = 0;
  for (int k = 0; k < f->n; k++) {
    const scale_calib_point *pt = &f->set->points[f->index[k]];
    scale_step_job job = scale_calib_step_job(&pt->row, &pt->model, &pt->chip);
    double w;
    scale_step_net net = scale_step_group_net(&pt->chip, job.tp, job.cp, &w);
    if (job.cp > 1 && net == SCALE_STEP_NET_MESH) continue;
    f->index[kept] = f->index[k], f->weight[kept++] = f->weight[k];
  }
  f->n = kept;
}

/* ==== the paper's framework: its two parameters, fitted ===================================== */

/** A size: finite and >= 0. */
static bool size_ok(double x) { return isfinite(x) && x >= 0.0; }

enum { FIT_GROUPS = 16, FIT_GRID = 2001, STAGE_GRID = 6001, FIT_ROUNDS = 16 };
#define FIT_LO_S 1e-4
#define FIT_HI_S 5e-2
#define STAGE_HI_S 60.0

double scale_calib_framework_row_s(const scale_calib_framework_row *r, double host_layer_s,
                              double stage_s) {
  if (!r || !size_ok(host_layer_s) || !size_ok(stage_s)) return NAN;
  return fmax(r->device_s, r->units * host_layer_s + r->fixed_s) + r->stages * stage_s;
}

static bool fit_row_ok(const scale_calib_framework_row *r) {
  return r->group >= 0 && r->group < FIT_GROUPS && isfinite(r->device_s) && r->device_s > 0.0 &&
         isfinite(r->measured) && r->measured > 0.0 && size_ok(r->units) && size_ok(r->fixed_s) &&
         size_ok(r->stages);
}

/** Group-weighted squared log error of the rows of the groups 'in' marks (skip left out). */
static double fit_loss(const scale_calib_framework_row *rows, int n, const bool *in, const double *per,
                       int skip, double h, double k) {
  double loss = 0.0;
  for (int i = 0; i < n; i++) {
    if (rows[i].group == skip || !in[rows[i].group]) continue;
    double r = log(scale_calib_framework_row_s(&rows[i], h, k) / rows[i].measured);
    loss += r * r / per[rows[i].group];
  }
  return loss;
}

/** The grid point with the least loss, one parameter moving, the other held: the host time h
 * (log-spaced over [FIT_LO_S, FIT_HI_S]) when 'host', else the stage latency k (even over
 * [0, STAGE_HI_S]); the first wins a tie. */
static double grid_fit(const scale_calib_framework_row *rows, int n, const bool *in, const double *per,
                       int skip, bool host, double h, double k) {
  int points = host ? FIT_GRID : STAGE_GRID;
  double best = NAN, best_loss = INFINITY;
  for (int g = 0; g < points; g++) {
    double t = (double)g / (points - 1);
    double x = host ? FIT_LO_S * pow(FIT_HI_S / FIT_LO_S, t) : STAGE_HI_S * t;
    double loss = fit_loss(rows, n, in, per, skip, host ? x : h, host ? k : x);
    if (loss < best_loss) best_loss = loss, best = x;
  }
  return best;
}

scale_status scale_calib_fit_framework(const scale_calib_framework_row *rows, int n, int skip_group,
                                        double *host_layer_s, double *stage_s) {
  if (host_layer_s) *host_layer_s = NAN;
  if (stage_s) *stage_s = NAN;
  if (!rows || n < 1 || !host_layer_s || !stage_s) return SCALE_ERR_INVALID;
  double per[FIT_GROUPS] = {0};
  bool host_in[FIT_GROUPS] = {false}, stage_in[FIT_GROUPS] = {false};
  for (int i = 0; i < n; i++) {
    if (!fit_row_ok(&rows[i])) return SCALE_ERR_INVALID;
    if (rows[i].group == skip_group) continue;
    per[rows[i].group] += 1.0;
    host_in[rows[i].group] |= rows[i].units > 0.0;
    stage_in[rows[i].group] |= rows[i].stages > 0.0;
  }
  bool any_host = false, any_stage = false;
  for (int g = 0; g < FIT_GROUPS; g++) any_host |= host_in[g], any_stage |= stage_in[g];
  /* alternate the two one-parameter fits (each a grid, so the rounds end on a fixed point) */
  double h = 0.0, k = 0.0;
  for (int round = 0; round < FIT_ROUNDS; round++) {
    if (any_host) h = grid_fit(rows, n, host_in, per, skip_group, true, h, k);
    double k_next = any_stage ? grid_fit(rows, n, stage_in, per, skip_group, false, h, k) : 0.0;
    if (k_next == k && round > 0) break;
    k = k_next;
  }
  *host_layer_s = any_host ? h : (double)NAN;
  *stage_s = any_stage ? k : (double)NAN;
  return any_host || any_stage ? SCALE_OK : SCALE_ERR_INVALID;
}

/** The host floor of a step (step.h's host_s) with mesh_cp_host_s = h. */
static double host_floor(const scale_step_job *job, const scale_step_params *device, double h) {
  scale_step_params p = *device;
  p.v[SCALE_STEP_MESH_CP_HOST_S] = h;
  scale_step_result r;
  scale_step_eval(job, &p, &r);
  return r.host_s;
}

scale_calib_framework_row scale_calib_framework_row_of(const scale_step_job *job,
                                                       const scale_step_params *device,
                                                       double device_s, double measured_s,
                                                       int group) {
  scale_calib_framework_row r = {.device_s = device_s, .measured = measured_s, .group = group};
  double f1 = host_floor(job, device, 1.0), f2 = host_floor(job, device, 2.0);
  r.units = isfinite(f1) && isfinite(f2) ? f2 - f1 : 0;
  r.fixed_s = isfinite(f1) ? f1 - r.units : 0;
  if (job->model->arch == SCALE_ARCH_MAMBA2) r.stages = scale_step_ssm_stages(job);
  return r;
}

/** A measured row as the framework's fit sees it (group set by the caller). */
static scale_calib_framework_row fit_row(const scale_calib_point *pt, const scale_step_params *device) {
  scale_step_job job = scale_calib_step_job(&pt->row, &pt->model, &pt->chip);
  return scale_calib_framework_row_of(&job, device, scale_calib_predict_s(pt, device),
                                      pt->measured_s, 0);
}

/** Fits the framework's two parameters, mesh_cp_host_s (host time per CP layer-microbatch)
 * and mesh_ssm_stage_s (latency per added Mamba-2 stage), with the device parameters held,
 * over every group of the fit and of dir/hybrid/ that has a CP row on a mesh or a Mamba-2
 * pipeline on one (each group weighed equally: scale_calib_fit_framework), 'exclude' left
 * out. A parameter no group fits keeps its value. */
static scale_status host_stage(const scale_calib_set *set, int exclude, double *u) {
  int total = set->n + set->n_host, map[2 * SCALE_CALIB_GROUPS_MAX], k = 0;
  scale_calib_framework_row *rows = malloc(sizeof *rows * (size_t)total);
  int *grp = malloc(sizeof(int) * (size_t)total);
  if (!rows || !grp) {
    free(rows);
    free(grp);
    return SCALE_ERR_NOMEM;
  }
  scale_step_params device = params_of(u);
  device.v[SCALE_STEP_MESH_CP_HOST_S] = device.v[SCALE_STEP_MESH_SSM_STAGE_S] = 0.0;
  for (int g = 0; g < 2 * SCALE_CALIB_GROUPS_MAX; g++) map[g] = -1;
  for (int i = 0; i < total; i++) {
    bool host = i >= set->n;
    const scale_calib_point *pt = host ? &set->host_points[i - set->n] : &set->points[i];
    grp[i] = host ? SCALE_CALIB_GROUPS_MAX + pt->group : pt->group;
    if ((!host && pt->group == exclude) || pt->chip.kind == SCALE_HW_TPU) {
      grp[i] = -1;
      continue;
    }
    rows[i] = fit_row(pt, &device);
    bool framework = rows[i].units > 0 || rows[i].stages > 0;
    if (framework && map[grp[i]] < 0 && k < 16) map[grp[i]] = k++; /* the fit's 16 groups */
  }
  /* the rows of the groups the framework's parameters price, renumbered 0..k-1 */
  int n = 0;
  for (int i = 0; i < total; i++) {
    int g = grp[i] >= 0 ? map[grp[i]] : -1;
    if (g < 0) continue;
    rows[n] = rows[i];
    rows[n++].group = g;
  }
  double h = NAN, stage = NAN;
  if (n > 0 && scale_calib_fit_framework(rows, n, -1, &h, &stage) == SCALE_OK) {
    if (isfinite(h)) u[SCALE_STEP_MESH_CP_HOST_S] = to_u(SCALE_STEP_MESH_CP_HOST_S, h);
    if (isfinite(stage)) u[SCALE_STEP_MESH_SSM_STAGE_S] = to_u(SCALE_STEP_MESH_SSM_STAGE_S, stage);
  }
  free(rows);
  free(grp);
  return SCALE_OK;
}

/* Three stages. The dense GPU and NPU groups fit every parameter but the TPU network's and the
 * MoE layer's; then the MoE groups fit only grouped_eta, ep_exposed_frac and moe_sync_s, the TPU
 * groups only the ICI parameters, the rest held. A TPU run goes through another compiler
 * (XLA fuses the elementwise ops, overlaps the collectives): letting its groups move the
 * shared matmul and kernel parameters would tune the GPUs to it. A MoE run adds kernels of
 * its own (grouped GEMMs, permutation, dispatch): letting its groups move the shared
 * parameters would tune every dense prediction (the Ascend study of chapter 13 included) to
 * what the MoE cost leaves out. So the MoE and TPU groups test how the shared parameters
 * transfer, and fit what is theirs alone. */
scale_status scale_calibrate_fit(const scale_calib_set *set, int exclude, scale_step_params *out,
                                 scale_calib_fit_info *info) {
  fit_rows f = {set, malloc(sizeof(int) * (size_t)set->n),
                malloc(sizeof(double) * (size_t)set->n), 0, {false}, set->prior_weight};
  if (!f.index || !f.weight) {
    free(f.index);
    free(f.weight);
    return SCALE_ERR_NOMEM;
  }
  double u[P];
  scale_step_params prior = scale_step_params_prior();
  for (int i = 0; i < P; i++) u[i] = to_u(i, prior.v[i]);
  int rows = 0, n_groups = 0, iterations = 0;
  double cost = 0;
  scale_status st = SCALE_OK;
  /* the GPU/NPU stage runs twice, each time followed by the host stage: first without the
   * rows a host floor may price (CP on a mesh), which would drag the device parameters toward
   * a cost that is not theirs, to fit the floor; then from the priors again with every row */
  static const row_kind kinds[] = {ROWS_DENSE, ROWS_DENSE, ROWS_LOWP, ROWS_MOE, ROWS_TPU};
  for (int stage = 0; stage < 5 && st == SCALE_OK; stage++) {
    row_kind kind = kinds[stage];
    bool own_only = kind != ROWS_DENSE; /* no host stage after the MoE or TPU fit */
    int groups = 0;
    stage_rows(set, exclude, kind, &f, &groups);
    if (stage == 0) hold_host_rows(&f);
    if (f.n == 0) continue;
    int it = 0;
    double c = 0;
    st = levenberg_marquardt(&f, u, &it, &c);
    iterations += it;
    if (st == SCALE_OK && !own_only) st = host_stage(set, exclude, u);
    if (stage == 0) { /* the floor set, the device fit starts afresh from the priors */
      for (int i = 0; i < P; i++)
        if (!framework_param(i)) u[i] = to_u(i, prior.v[i]);
      continue;
    }
    /* the host's floor moved after the second pass: its cost at the final parameters */
    double *r = malloc(sizeof(double) * (size_t)(f.n + P));
    if (r) {
      residuals(&f, u, r);
      c = 0; /* the rows' cost alone: rms_log reports the data, not the pull to the priors */
      for (int k = 0; k < f.n; k++) c += r[k] * r[k];
    }
    free(r);
    rows += f.n, cost += c, n_groups += groups;
  }
  if (st == SCALE_OK && rows == 0) st = SCALE_ERR_INVALID;
  if (st == SCALE_OK) {
    *out = params_of(u);
    if (info) {
      info->n_rows = rows;
      info->n_groups = n_groups;
      info->iterations = iterations;
      info->rms_log = sqrt(cost / n_groups);
    }
  }
  free(f.index);
  free(f.weight);
  return st;
}

/* ---- statistics ----------------------------------------------------------------------------- */

void scale_calib_kernel_stats(const scale_calib_set *set, const scale_step_params *params,
                              bool large, scale_calib_kernel_fit *out) {
  double abs_sum = 0, log_sum = 0;
  memset(out, 0, sizeof *out);
  for (int i = 0; i < set->n_kernels; i++) {
    const scale_measurement_kernel *g = &set->kernels[i];
    if ((2 * g->m * g->n * g->k * g->batch >= SCALE_CALIB_LARGE_GEMM_FLOPS) != large) continue;
    const scale_chip *chip = &set->kernel_chips[set->kernel_chip[i]];
    double ratio =
        scale_step_kernel_gemm_s(chip, params, g->dtype, g->m, g->n, g->k, g->batch, g->bytes) /
        g->seconds;
    if (!(ratio > 0 && isfinite(ratio))) continue;
    abs_sum += fabs(ratio - 1), log_sum += log(ratio), out->n++;
  }
  if (out->n) out->mape = abs_sum / out->n, out->geo_ratio = exp(log_sum / out->n);
}

/** Average ranks (1-based) of v[0..n) into rank[]. */
static void ranks(const double *v, int n, double *rank) {
  for (int i = 0; i < n; i++) {
    double less = 0, equal = 0;
    for (int j = 0; j < n; j++) {
      less += v[j] < v[i];
      equal += v[j] == v[i];
    }
    rank[i] = less + (equal + 1) / 2;
  }
}

double scale_calib_spearman(const double *x, const double *y, int n) {
  if (n < 2) return NAN;
  double *rx = malloc(sizeof(double) * (size_t)n * 2);
  if (!rx) return NAN;
  double *ry = rx + n;
  ranks(x, n, rx);
  ranks(y, n, ry);
  double mx = 0, my = 0;
  for (int i = 0; i < n; i++) mx += rx[i] / n, my += ry[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (int i = 0; i < n; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  free(rx);
  return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : (double)NAN;
}

void scale_calib_group_stats(const scale_calib_set *set, int group, const double *pred,
                             scale_calib_stats *out) {
  memset(out, 0, sizeof *out);
  out->spearman = NAN;
  double xs[SCALE_CALIB_ROWS_MAX], ys[SCALE_CALIB_ROWS_MAX];
  bool ranking = false;
  for (int i = 0; i < set->n; i++) {
    if (set->points[i].group != group) continue;
    double e = fabs(pred[i] / set->points[i].measured_s - 1);
    out->mape += e;
    out->max_err = fmax(out->max_err, e);
    xs[out->n] = pred[i];
    ys[out->n++] = set->points[i].measured_s;
    ranking = set->points[i].row.ranking;
  }
  if (out->n > 0) out->mape /= out->n;
  if (ranking) out->spearman = scale_calib_spearman(xs, ys, out->n);
}

/* ---- writing -------------------------------------------------------------------------------- */

scale_status scale_calib_write_params(FILE *fp, const scale_step_params *params,
                                      const scale_calib_fit_info *info,
                                      const scale_calib_set *set) {
  fprintf(fp, "[step_fit]\n"
              "; The calibrated step model's parameters (include/scale/step.h), in [step] below,\n"
              "; written by `scale calibrate` from measurements/: do not edit by hand\n"
              "; (tests/lib/test_calibrate.c checks that a fresh fit reproduces them). One fit\n"
              "; for every chip: each network (switched NVLink, switchless mesh, scale-out\n"
              "; fabric, TPU ICI) has parameters of its own, and those no row exercises stay\n"
              "; at their priors. Levenberg-Marquardt on w log(predicted / measured),\n"
              "; w = 1 / sqrt(rows of the group), each parameter inside its range, in three\n"
              "; stages: the dense GPU and NPU groups fit all but the ICI and MoE parameters,\n"
              "; then the MoE groups fit the MoE parameters alone (grouped_eta,\n"
              "; ep_exposed_frac, moe_sync_s), then the TPU groups (XLA runs) the ICI\n"
              "; parameters alone; %d iterations. The dense\n"
              "; GPU/NPU stage runs twice: without the rows with CP on a mesh, then afresh\n"
              "; from the priors with all; after each, grid fits of mesh_cp_host_s and\n"
              "; mesh_ssm_stage_s (the hybrid paper's framework; device parameters held) to\n"
              "; every group with a CP row or a Mamba-2 pipeline on a mesh,\n"
              "; measurements/hybrid/ included, each weighed equally. Each device\n"
              "; parameter is pulled toward its prior: prior_weight x (its distance from\n"
              "; the prior as a fraction of its range) is one more residual.\n"
              "; Groups fitted:\n;",
          info->iterations);
  int col = 1;
  for (int g = 0; g < set->n_groups; g++) {
    int len = (int)strlen(set->groups[g]) + 1;
    if (col + len > 96) {
      fprintf(fp, "\n;");
      col = 1;
    }
    fprintf(fp, " %s", set->groups[g]);
    col += len;
  }
  fprintf(fp, "\nby = scale calibrate\n"
              "method = levenberg-marquardt, group-weighted log error\n"
              "data = measurements/ (published training runs)\n"
              "rows = %d\ngroups = %d\nrms_log_error = %.4f\nprior_weight = %g\n\n[step]\n",
          info->n_rows, info->n_groups, info->rms_log, set->prior_weight);
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) {
    const scale_step_param_info *d = scale_step_param_describe((scale_step_param)i);
    fprintf(fp, "; %s\n; range [%g, %g] %s, prior %g\n%s = %.6g\n", d->meaning, d->lo, d->hi,
            d->unit, d->prior, d->key, params->v[i]);
  }
  return ferror(fp) ? SCALE_ERR_IO : SCALE_OK;
}

typedef struct {
  const scale_step_params *params;
  const scale_calib_fit_info *info;
  const scale_calib_set *set;
} step_section;

static scale_status emit_step(FILE *fp, void *ctx) {
  const step_section *x = ctx;
  return scale_calib_write_params(fp, x->params, x->info, x->set);
}

scale_status scale_calib_write_hardware(const char *src, const char *dst,
                                        const scale_step_params *params,
                                        const scale_calib_fit_info *info,
                                        const scale_calib_set *set, scale_diag *diag) {
  static const char *const drop[] = {"step_fit", "step"};
  step_section x = {params, info, set};
  return scale_file_rewrite_sections(src, dst, drop, 2, NULL, emit_step, &x, diag);
}

/* ==== the adapters from a measured row to a job ============================================= */

scale_step_job scale_calib_step_job(const scale_measurement *row, const scale_model *model,
                                    const scale_chip *chip) {
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = model;
  j.chip = chip;
  j.dp = row->dp;
  j.tp = row->tp;
  j.pp = row->pp;
  j.cp = row->cp;
  j.ep = row->ep;
  j.zero = row->zero;
  j.mbs = row->mbs > 0 ? row->mbs : 1;
  j.vp = row->vp > 0 ? row->vp : 1;
  j.recompute = row->recompute;
  j.sp = row->sp;
  j.attention = row->attention;
  j.tp_overlap = false;
  j.gbs = row->gbs;
  j.seq = row->seq;
  j.dtype = row->precision;
  return j;
}

/* ---- coverage ------------------------------------------------------------------------------- */

const char *scale_cover_feature_name(int f) {
  static const char *const fixed[SCALE_COVER_ZERO] = {
      "GPU", "TPU", "MoE (expert parallelism)", "MoE with few experts (E <= 16)",
      "MoE without expert parallelism", "expert tensor parallelism", "MoE capacity factor",
      "tensor parallelism", "sequence parallel", "context parallelism (ring)",
      "context parallelism (ulysses)", "context parallelism (allgather)"};
  static const char *const zero[4] = {"DDP (ZeRO-0)", "ZeRO-1", "ZeRO-2", "ZeRO-3"};
  static const char *const recompute[SCALE_RECOMPUTE_COUNT] = {
      "recompute not stated", "recompute none", "recompute selective", "recompute full"};
  static const char *const attention[SCALE_ATTENTION_COUNT] = {"unfused attention",
                                                               "flash attention"};
  if (f < 0 || f >= SCALE_COVER_COUNT) return NULL;
  if (f < SCALE_COVER_ZERO) return fixed[f];
  if (f < SCALE_COVER_SCHEDULE) return zero[f - SCALE_COVER_ZERO];
  if (f < SCALE_COVER_RECOMPUTE) return scale_pp_schedule_name((scale_pp_schedule)(f - SCALE_COVER_SCHEDULE));
  if (f < SCALE_COVER_ATTENTION) return recompute[f - SCALE_COVER_RECOMPUTE];
  if (f < SCALE_COVER_PRECISION) return attention[f - SCALE_COVER_ATTENTION];
  const scale_precision_recipe *r = scale_precision_at(f - SCALE_COVER_PRECISION);
  return r ? r->name : NULL;
}

/* Index of recipe 'name' in scale_precision_at()'s table (within the tracked slots), or -1. */
static int recipe_index(const char *name) {
  const scale_precision_recipe *r;
  for (int i = 0; name && i < SCALE_COVER_RECIPES_MAX && (r = scale_precision_at(i)); i++)
    if (strcmp(r->name, name) == 0) return i;
  return -1;
}

void scale_cover_features(const scale_step_job *job, const char *recipe,
                          bool on[SCALE_COVER_COUNT]) {
  if (!on) return;
  memset(on, 0, sizeof(bool) * SCALE_COVER_COUNT);
  if (!job || !job->model || !job->chip) return;
  on[job->chip->kind == SCALE_HW_TPU ? SCALE_COVER_TPU : SCALE_COVER_GPU] = true;
  bool moe = scale_model_is_moe(job->model);
  on[SCALE_COVER_MOE] = moe;
  on[SCALE_COVER_MOE_FEW] = moe && job->model->n_experts <= 16;
  on[SCALE_COVER_MOE_NO_EP] = moe && job->ep <= 1.0;
  on[SCALE_COVER_MOE_ETP] = moe && job->etp > 1.0;
  on[SCALE_COVER_MOE_PADDED] = moe && job->capacity_factor > 0.0;
  on[SCALE_COVER_TP] = job->tp > 1.0;
  on[SCALE_COVER_SP] = job->sp && job->tp > 1.0;
  on[job->ulysses        ? SCALE_COVER_CP_ULYSSES
     : job->cp_allgather ? SCALE_COVER_CP_ALLGATHER
                         : SCALE_COVER_CP_RING] = job->cp > 1.0;
  if (job->dp > 1.0 && job->zero >= 0 && job->zero <= 3) on[SCALE_COVER_ZERO + job->zero] = true;
  if (job->pp > 1.0 && job->schedule >= 0 && job->schedule < SCALE_PP_COUNT) {
    /* the step model's reading: 1F1B with virtual stages is interleaved (step.h) */
    bool interleaved = job->schedule == SCALE_PP_1F1B && job->vp > 1.0;
    on[SCALE_COVER_SCHEDULE + (interleaved ? SCALE_PP_INTERLEAVED : job->schedule)] = true;
  }
  if (job->recompute >= 0 && job->recompute < SCALE_RECOMPUTE_COUNT)
    on[SCALE_COVER_RECOMPUTE + job->recompute] = true;
  if (job->attention >= 0 && job->attention < SCALE_ATTENTION_COUNT)
    on[SCALE_COVER_ATTENTION + job->attention] = true;
  int r = recipe_index(recipe);
  if (r >= 0) on[SCALE_COVER_PRECISION + r] = true;
}

static void count_chip(scale_coverage *out, const char *stem) {
  for (int c = 0; c < out->n_chips; c++)
    if (strcmp(out->chips[c], stem) == 0) {
      out->chip_rows[c]++;
      return;
    }
  if (out->n_chips == SCALE_COVER_CHIPS_MAX) return;
  snprintf(out->chips[out->n_chips], SCALE_NAME_MAX, "%s", stem);
  out->chip_rows[out->n_chips++] = 1;
}

void scale_cover_point_features(const scale_calib_point *p, bool on[SCALE_COVER_COUNT]) {
  scale_step_job job = scale_calib_step_job(&p->row, &p->model, &p->chip);
  /* a row's precision is its matmul format; NVFP4 is the one 4-bit training recipe */
  const char *recipe =
      p->row.precision == SCALE_DTYPE_FP4 ? "nvfp4" : scale_dtype_name(p->row.precision);
  scale_cover_features(&job, recipe, on);
}

void scale_coverage_of(const scale_calib_set *set, scale_coverage *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!set) return;
  bool seen[SCALE_CALIB_GROUPS_MAX][SCALE_COVER_COUNT];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < set->n; i++) {
    const scale_calib_point *p = &set->points[i];
    bool on[SCALE_COVER_COUNT];
    scale_cover_point_features(p, on);
    bool in_group = p->group >= 0 && p->group < SCALE_CALIB_GROUPS_MAX;
    for (int f = 0; f < SCALE_COVER_COUNT; f++) {
      if (!on[f]) continue;
      out->rows[f]++;
      if (in_group && !seen[p->group][f]) out->groups[f]++;
      if (in_group) seen[p->group][f] = true;
    }
    count_chip(out, p->row.hardware);
    out->n_rows++;
  }
}

int scale_coverage_gaps(const scale_coverage *cov, const scale_step_job *job, const char *recipe,
                        int *gaps, int max, bool *chip_gap) {
  if (chip_gap) *chip_gap = false;
  if (!cov || !job || !job->chip) return 0;
  bool on[SCALE_COVER_COUNT];
  scale_cover_features(job, recipe, on);
  int n = 0;
  for (int f = 0; f < SCALE_COVER_COUNT; f++)
    if (on[f] && cov->rows[f] == 0 && n < max && gaps) gaps[n++] = f;
  if (chip_gap) { /* a system file (dgx-h100) runs its base chip's figures */
    const char *stem = job->chip->base[0] ? job->chip->base : job->chip->name;
    *chip_gap = true;
    for (int c = 0; c < cov->n_chips; c++)
      if (strcmp(cov->chips[c], stem) == 0) *chip_gap = false;
  }
  return n;
}

scale_status scale_calib_memory_eval(const scale_measurement *row, scale_recompute assumed,
                                     const scale_model *model, const scale_chip *chip,
                                     scale_train_result *out, scale_diag *diag) {
  if (!row || !model || !chip || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing argument");
  scale_recompute r = row->recompute == SCALE_RECOMPUTE_UNKNOWN ? assumed : row->recompute;
  if (r <= SCALE_RECOMPUTE_UNKNOWN || r >= SCALE_RECOMPUTE_COUNT)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s: recompute mode not known", row->id);
  scale_layout l = scale_layout_default();
  if (row->zero >= 1) {
    l.fsdp = row->dp;
    l.zero_stage = row->zero;
  } else {
    l.dp = row->dp;
  }
  l.tp = row->tp, l.pp = row->pp, l.cp = row->cp, l.ep = row->ep, l.sp = row->sp;
  l.remat = scale_memory_remat_of(r);
  if (chip->kind == SCALE_HW_TPU) {
    /* XLA SPMD (MaxText): every saved activation is sharded over every mesh axis, the batch
     * over the data axes and the model dimensions, residual stream included, over the tensor
     * axis: Megatron's SP in effect whatever the row says. MaxText's 'minimal' remat (the
     * selective of its rows) keeps the outputs of the weight matmuls: the book's policy. */
    l.sp = row->tp > 1.0;
    if (r == SCALE_RECOMPUTE_SELECTIVE) l.remat = SCALE_REMAT_BIG_MATMULS;
  }
  /* Megatron (and NeMo, MindSpeed): bf16 weights, fp32 gradient buffers, fp32 master weights
   * and Adam moments, 18 bytes a parameter; MaxText on TPU: fp32 weights and gradients. */
  scale_precision megatron = SCALE_PRECISION_MEGATRON;
  scale_precision maxtext = {SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2, false};
  l.precision = chip->kind == SCALE_HW_TPU ? maxtext : megatron;
  double mbs = row->mbs > 0.0 ? row->mbs : 1.0;
  l.n_microbatches = row->gbs / (row->dp * mbs);
  l.schedule = row->vp > 1.0 && row->pp > 1.0 ? SCALE_PP_INTERLEAVED : SCALE_PP_1F1B;
  l.n_virtual_stages = row->vp > 1.0 ? row->vp : 1.0;
  /* more pipeline chunks than layers ran only with the embedding and the loss counted as a
   * layer each (Megatron's account-for-embedding/loss-in-pipeline-split: LLaMA 3.1 405B's 126
   * layers over PP 16 x VP 8) */
  l.pp_embed_loss = row->pp * l.n_virtual_stages > (double)model->n_layers;
  scale_train_layout_map(chip, row->chips, &l);
  scale_train_problem p =
      scale_train_problem_make(model, chip, row->chips, row->gbs * row->seq, row->seq);
  scale_status st = scale_train_validate(&p, &l, diag);
  if (st) return st;
  scale_train_eval(&p, &l, out);
  return SCALE_OK;
}
