/* test_hybrid_study.c — the case study of Amer et al. (arXiv 2602.09109) section 6 predicted
 * from the shipped measurements: Tables 10 (measurements/hybrid-910b.tsv), 11, 13 and 14
 * (measurements/hybrid/), each a ranking group.
 *
 * Each layout is priced as `scale train` prices it: the calibrated step model (the Ascend
 * 910B's [step] section; transformers) or scale_step_mamba2_result() (Mamba-2), both
 * with the host's floor under CP layouts (scale_step_cp_host_s, the stored mesh_cp_host_s),
 * and, for a Mamba-2 pipeline, the latency each added stage costs (mesh_ssm_stage_s). Those
 * two parameters are refitted here from the device times to the four groups, checked against
 * the stored values, and left out group by group. The Spearman figures asserted are those
 * reached when this suite was written, so they can only improve; the target, 0.8 on
 * each table, is asserted too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/calibrate.h"
#include "scale/hardware.h"
#include "scale/hybrid.h"
#include "scale/measurements.h"
#include "scale/model.h"
#include "scale/step.h"
#include "scale_check.h"

#define CAP 32
#define N_TABLES 4

/* ==== the CP host bound, by hand ===============================================================
 */

static scale_model model_layers(int64_t layers) {
  scale_model m;
  memset(&m, 0, sizeof m);
  m.n_layers = layers;
  return m;
}

static scale_step_job job4(const scale_model *m, double dp, double pp, double tp, double cp) {
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = m;
  j.dp = dp, j.pp = pp, j.tp = tp, j.cp = cp, j.ep = 1, j.mbs = 1, j.vp = 1;
  j.gbs = 1024, j.seq = 4096;
  return j;
}

START_TEST(test_cp_layer_microbatches) {
  scale_model m = model_layers(16);
  /* (1,1,1,8): m = 1024 / 1 = 1024 microbatches x 16 layers x (1 + 0) = 16384 */
  scale_step_job j = job4(&m, 1, 1, 1, 8);
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 16384.0, 1e-12, "", "CP 8");
  /* (1,4,1,2): 1024 x ceil(16/4) = 4096, times the bubble 1 + 3/1024: 4096 + 12 = 4108 */
  j = job4(&m, 1, 4, 1, 2);
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 4108.0, 1e-12, "", "PP 4 CP 2");
  /* (4,1,1,2): 1024 / 4 = 256 x 16 = 4096 */
  j = job4(&m, 4, 1, 1, 2);
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 4096.0, 1e-12, "", "DP 4 CP 2");
  /* no CP: the same count (scale_hybrid_cp_host_bound_s and scale_step_cp_host_s bind none) */
  j = job4(&m, 8, 1, 1, 1);
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 2048.0, 1e-12, "", "DP 8: 128 x 16");
  j.dp = 0.5;
  scale_check_nan(scale_step_cp_layer_microbatches(&j));
  scale_check_nan(scale_step_cp_layer_microbatches(NULL));
}
END_TEST

START_TEST(test_cp_host_bound) {
  scale_model m = model_layers(16);
  scale_step_job j = job4(&m, 1, 1, 1, 8);
  /* 16384 layer-microbatches at 10 ms: 163.84 s, above a device time of 100 s */
  scale_check_rel(scale_hybrid_cp_host_bound_s(&j, 100.0, 0.01), 163.84, 1e-12, "s", "bound");
  /* a device time above the bound is kept */
  scale_check_rel(scale_hybrid_cp_host_bound_s(&j, 200.0, 0.01), 200.0, 1e-12, "s", "device");
  /* without CP the host never binds */
  j = job4(&m, 8, 1, 1, 1);
  scale_check_rel(scale_hybrid_cp_host_bound_s(&j, 20.0, 1.0), 20.0, 1e-12, "s", "no CP");
  scale_check_nan(scale_hybrid_cp_host_bound_s(&j, -1.0, 0.01));
  scale_check_nan(scale_hybrid_cp_host_bound_s(&j, 20.0, NAN));
}
END_TEST

/** A fit row: device time, CP layer-microbatches, fixed part, stages, measured, group. */
static scale_calib_framework_row frow(double dev, double units, double fixed, double stages,
                                 double meas, int group) {
  return (scale_calib_framework_row){dev, units, fixed, stages, meas, group};
}

START_TEST(test_fit_recovers) {
  /* Two groups built from a host time of 7 ms: group 0's rows are host-bound (device 1 s,
   * units 1000 and 2000 -> 7 s and 14 s), group 1's are device-bound (device 30 s, units 100
   * -> 0.7 s < 30 s, measured 30 s). The fit lands within one grid step (a ratio of
   * (500)^(1/2000) = 1.0031) of 7 ms; no row has stages, so the stage latency has no group
   * (NaN). Leaving group 0 out leaves no information (every h below 0.3 s fits group 1
   * exactly), so the first grid point, 1e-4 s, wins. */
  scale_calib_framework_row rows[] = {frow(1, 1000, 0, 0, 7, 0), frow(1, 2000, 0, 0, 14, 0),
                                 frow(30, 100, 0, 0, 30, 1)};
  double h, k;
  ck_assert(scale_calib_fit_framework(rows, 3, -1, &h, &k) == SCALE_OK);
  scale_check_rel(h, 7e-3, 0.0032, "s", "fit");
  scale_check_nan(k);
  ck_assert(scale_calib_fit_framework(rows, 3, 0, &h, &k) == SCALE_OK);
  scale_check_rel(h, 1e-4, 1e-12, "s", "leave group 0 out");
  /* a floor with a fixed part (TP collectives) of 1 s and 2 s: measured 8 s and 16 s are
   * 1000 and 2000 units at 7 ms plus it, so the fit is again 7 ms */
  rows[0] = frow(1, 1000, 1, 0, 8, 0), rows[1] = frow(1, 2000, 2, 0, 16, 0);
  ck_assert(scale_calib_fit_framework(rows, 3, -1, &h, &k) == SCALE_OK);
  scale_check_rel(h, 7e-3, 0.0032, "s", "fit with a fixed part");
  /* the row's step as the fit prices it: max(1, 1000 x 0.007 + 1) + 0 x k = 8 s */
  scale_check_rel(scale_calib_framework_row_s(&rows[0], 7e-3, 5.0), 8.0, 1e-12, "s", "row");
  scale_check_nan(scale_calib_framework_row_s(&rows[0], -1.0, 0.0));
  ck_assert(scale_calib_fit_framework(rows, 0, -1, &h, &k) == SCALE_ERR_INVALID);
  scale_check_nan(h);
  rows[1].group = 16; /* groups are 0..15 */
  ck_assert(scale_calib_fit_framework(rows, 3, -1, &h, &k) == SCALE_ERR_INVALID);
  rows[1].group = 0, rows[2].group = 0; /* one group, left out: nothing to fit */
  ck_assert(scale_calib_fit_framework(rows, 3, 0, &h, &k) == SCALE_ERR_INVALID);
  rows[0].fixed_s = -1.0;
  ck_assert(scale_calib_fit_framework(rows, 3, -1, &h, &k) == SCALE_ERR_INVALID);
  ck_assert(scale_calib_fit_framework(NULL, 3, -1, &h, &k) == SCALE_ERR_INVALID);
}
END_TEST

START_TEST(test_fit_recovers_stage_latency) {
  /* Rows built from h = 7 ms and k = 20 s per added stage. Group 0: host-bound CP rows, one
   * of them also a two-stage pipeline (1000 x 7 ms + 1 x 20 s = 27 s); group 1: device-bound
   * pipelines of 2 and 4 stages (10 + 20 = 30 s, 10 + 3 x 20 = 70 s) and one without PP
   * (50 s). The first round fits h with k = 0 (pulled up by the 27 s row), then k with that h;
   * the rounds end at both values within one grid step (0.31% for h; k's grid is 0.01 s, and
   * h's step moves it by at most 1000 x 0.0031 x 7 ms = 0.022 s). */
  const scale_calib_framework_row rows[] = {frow(1, 1000, 0, 0, 7, 0),  frow(1, 2000, 0, 0, 14, 0),
                                       frow(1, 1000, 0, 1, 27, 0), frow(10, 0, 0, 1, 30, 1),
                                       frow(10, 0, 0, 3, 70, 1),   frow(50, 0, 0, 0, 50, 1)};
  double h, k;
  ck_assert(scale_calib_fit_framework(rows, 6, -1, &h, &k) == SCALE_OK);
  scale_check_rel(h, 7e-3, 0.0032, "s", "host");
  ck_assert_msg(fabs(k - 20.0) <= 0.025, "stage latency %g s, built from 20 s", k);
  /* group 1 alone (group 0 left out): no CP row, so no host time; k = 20 s exactly on grid */
  ck_assert(scale_calib_fit_framework(rows, 6, 0, &h, &k) == SCALE_OK);
  scale_check_nan(h);
  ck_assert_msg(fabs(k - 20.0) <= 1e-9, "stage latency %g s alone", k);
}
END_TEST

START_TEST(test_ssm_stages) {
  /* pp - 1 for a Mamba-2 pipeline on the 910B's HCCS mesh; none without PP, none across an
   * H100's NVSwitch (the paper's framework is the mesh's), NaN for a transformer */
  scale_chip npu, h100;
  scale_model mamba, llama;
  scale_diag d;
  ck_assert_msg(scale_chip_load("ascend-910b", &npu, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_chip_load("nvidia-h100-sxm", &h100, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("mamba-2-7b-amer", &mamba, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("llama-2-7b", &llama, &d) == SCALE_OK, "%s", d.message);
  scale_step_job j = job4(&mamba, 1, 4, 1, 2);
  j.chip = &npu;
  ck_assert(scale_step_ssm_stages(&j) == 3.0);
  j = job4(&mamba, 4, 1, 2, 1);
  j.chip = &npu;
  ck_assert(scale_step_ssm_stages(&j) == 0.0);
  j = job4(&mamba, 2, 4, 1, 1);
  j.chip = &h100;
  ck_assert(scale_step_ssm_stages(&j) == 0.0);
  j = job4(&llama, 2, 4, 1, 1);
  j.chip = &npu;
  scale_check_nan(scale_step_ssm_stages(&j));
  scale_check_nan(scale_step_ssm_stages(NULL));
  /* the step as scale train prices it: the stored latency once per added stage, after the
   * device's time and the host's floor */
  scale_step_params p;
  ck_assert(scale_step_params_of_chip(&npu, &p) == SCALE_OK);
  j = job4(&mamba, 1, 4, 2, 1);
  j.chip = &npu, j.dtype = SCALE_DTYPE_BF16;
  scale_step_result r;
  scale_step_mamba2_result(&j, &p, &r);
  scale_check_rel(r.stage_s, 3.0 * p.v[SCALE_STEP_MESH_SSM_STAGE_S], 1e-12, "s", "stage_s");
  scale_check_rel(r.step_s, fmax(scale_hybrid_predict_step_s(&j, &p, 0.0, 0.0), r.host_s) +
                                r.stage_s, 1e-12, "s", "step");
}
END_TEST

START_TEST(test_step_cp_host) {
  /* step.h's floor: 16 layers, CP 8, 1024 microbatches: 16384 layer-microbatches, each at the
   * host's 10 ms plus a TP time of 2 ms: 196.608 s. PP 2: 8 layers x (1024 + 1) = 8200. */
  scale_model m = model_layers(16);
  scale_chip chip;
  scale_diag d;
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  scale_step_job j = job4(&m, 1, 1, 1, 8);
  j.chip = &chip;
  scale_step_params p = scale_step_params_prior();
  p.v[SCALE_STEP_MESH_CP_HOST_S] = 0.01;
  scale_check_rel(scale_step_cp_host_s(&j, SCALE_STEP_NET_MESH, 0.002, &p), 196.608, 1e-12, "s",
                  "floor");
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 16384, 1e-12, "", "units");
  ck_assert(scale_step_cp_host_s(&j, SCALE_STEP_NET_UP, 0.002, &p) == 0.0); /* NVSwitch */
  j = job4(&m, 1, 2, 1, 4);
  scale_check_rel(scale_step_cp_layer_microbatches(&j), 8200, 1e-12, "", "units at PP 2");
  p.v[SCALE_STEP_MESH_CP_HOST_S] = 0.0; /* the prior: asynchronous launch, no floor */
  ck_assert(scale_step_cp_host_s(&j, SCALE_STEP_NET_MESH, 0.002, &p) == 0.0);
  j = job4(&m, 8, 1, 1, 1);
  p.v[SCALE_STEP_MESH_CP_HOST_S] = 0.01;
  ck_assert(scale_step_cp_host_s(&j, SCALE_STEP_NET_MESH, 0.002, &p) == 0.0); /* no CP */
  scale_check_nan(scale_step_cp_host_s(&j, SCALE_STEP_NET_MESH, -1.0, &p));
  scale_check_nan(scale_step_cp_host_s(NULL, SCALE_STEP_NET_MESH, 0.0, &p));
}
END_TEST

/* ==== the four tables ========================================================================= */

typedef struct {
  const char *file; /* under measurements/ */
  double spearman;  /* reached with the joint fit when written (issue 16's target: 0.8) */
  double logo;      /* reached with the fit that leaves this table out */
} table_case;

/* Before the CP host bound (device time alone): 0.941, 0.785, 0.637, 0.854. With the bound
 * as chapter 13 applied it (host time alone): 0.95, 0.92, 0.779, 0.84. With the stored
 * mesh_cp_host_s, TP's collectives on the host's path and the mesh's CP all-gather: 0.957,
 * 0.930, 0.747, 0.873; with TP's collectives off the Mamba host path: 0.957, 0.928, 0.779,
 * 0.872 (issue 16's 0.8 missed on Table 13, its pipelines too fast). With the Mamba-2 stage
 * latency (mesh_ssm_stage_s, fitted with the host time): 0.957, 0.950, 0.923, 0.920, and
 * left out table by table 0.957, 0.950, 0.862, 0.853. Since the device fit's pull toward the
 * priors (calibrate.h, weight 0.1; it moved kernel_s 16 -> 12 us, which Mamba's many small
 * kernels feel most): 0.957, 0.950, 0.928, 0.913, left out 0.957, 0.950, 0.923, 0.761 (the
 * figures below, rounded down). Mamba-1B left out falls below the 0.8: its pipelines
 * are then priced by Mamba-7B's stage latency alone (47 s), which also absorbs the
 * composition's shortfall on Mamba-7B's rows without CP or PP; chapter 13 says so. */
static const table_case TABLES[N_TABLES] = {
    {"hybrid-910b.tsv", 0.95, 0.95},
    {"hybrid/hybrid-910b-table11.tsv", 0.94, 0.94},
    {"hybrid/hybrid-910b-table13.tsv", 0.92, 0.92},
    {"hybrid/hybrid-910b-table14.tsv", 0.91, 0.76},
};

typedef struct {
  int n;
  scale_calib_framework_row row[N_TABLES * CAP]; /* device time, floor's parts, stages, measured */
  double pred[N_TABLES * CAP];              /* the step as scale train prices it */
  scale_step_job job[N_TABLES * CAP];
  scale_model model[N_TABLES];
} study;

static scale_chip npu;
static scale_step_params prm;
static study st;

/** A row's step result (the Mamba-2 composition or the step model) with mesh_cp_host_s = h
 * (NaN: the stored value). */
static void eval_row(const scale_step_job *j, const scale_step_params *p, double h,
                     scale_step_result *r) {
  scale_step_params q = *p;
  if (!isnan(h)) q.v[SCALE_STEP_MESH_CP_HOST_S] = h;
  scale_step_eval(j, &q, r); /* either architecture */
}

/** The fit's view of row k of table t: the floor is linear in the host's time, so two
 * evaluations give its units and fixed part. */
static scale_calib_framework_row study_row(const scale_step_job *j, double measured, int t) {
  scale_step_result r1, r2;
  eval_row(j, &prm, 1.0, &r1);
  eval_row(j, &prm, 2.0, &r2);
  scale_calib_framework_row f = {.device_s = scale_hybrid_predict_step_s(j, &prm, 0.0, 0.0),
                            .units = r2.host_s - r1.host_s,
                            .stages = j->model->arch == SCALE_ARCH_MAMBA2
                                          ? scale_step_ssm_stages(j)
                                          : 0.0,
                            .measured = measured,
                            .group = t};
  f.fixed_s = r1.host_s - f.units;
  return f;
}

static void load_study(void) {
  scale_diag d;
  ck_assert_msg(scale_chip_load("ascend-910b", &npu, &d) == SCALE_OK, "%s", d.message);
  ck_assert(scale_step_params_of_chip(&npu, &prm) == SCALE_OK);
  st.n = 0;
  for (int t = 0; t < N_TABLES; t++) {
    static scale_measurement rows[CAP];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", scale_measurements_dir(), TABLES[t].file);
    int n = 0;
    ck_assert_msg(scale_measurements_load_file(path, rows, CAP, &n, &d) == SCALE_OK, "%s:%d: %s",
                  d.file, d.line, d.message);
    ck_assert_msg(scale_model_load(rows[0].model, &st.model[t], &d) == SCALE_OK, "%s", d.message);
    for (int i = 0; i < n; i++) {
      int k = st.n++;
      st.job[k] = scale_calib_step_job(&rows[i], &st.model[t], &npu);
      st.row[k] = study_row(&st.job[k], rows[i].measured, t);
      scale_step_result r;
      eval_row(&st.job[k], &prm, NAN, &r);
      st.pred[k] = r.step_s;
      if (st.job[k].cp > 1)
        scale_check_rel(st.row[k].units, scale_step_cp_layer_microbatches(&st.job[k]), 1e-9, "",
                        rows[i].id);
      ck_assert_msg(isfinite(st.row[k].device_s) && st.row[k].device_s > 0, "%s: device time",
                    rows[i].id);
    }
  }
}

/** Spearman of table t's rows with host time h and stage latency k (h NaN: as scale train
 * prices them). */
static double table_spearman(int t, double h, double k) {
  double pred[CAP], meas[CAP];
  int n = 0;
  for (int i = 0; i < st.n; i++)
    if (st.row[i].group == t) {
      pred[n] = isnan(h) ? st.pred[i] : scale_calib_framework_row_s(&st.row[i], h, k);
      meas[n++] = st.row[i].measured;
    }
  return scale_calib_spearman(pred, meas, n);
}

START_TEST(test_study_joint_fit) {
  load_study();
  ck_assert_int_eq(st.n, 18 + 18 + 13 + 19);
  double h, k;
  ck_assert(scale_calib_fit_framework(st.row, st.n, -1, &h, &k) == SCALE_OK);
  /* 10.9 ms and 22.8 s when written. The host time: inside the plausible 1-30 ms of a host
   * issuing a layer's few hundred eager operators at tens of microseconds each. The stage
   * latency: what the tables show between layouts that differ only in PP (chapter 13's
   * t13.stage_* and t14.stage_*: 16-23 s). Both what scale calibrate stored (the same fit of
   * the same four groups, to the %.6g it writes). */
  ck_assert_msg(h >= 1e-3 && h <= 3e-2, "host time per CP layer-microbatch %g s", h);
  ck_assert_msg(k >= 10.0 && k <= 30.0, "stage latency %g s", k);
  scale_check_rel(prm.v[SCALE_STEP_MESH_CP_HOST_S], h, 1e-4, "s", "stored mesh_cp_host_s");
  scale_check_rel(prm.v[SCALE_STEP_MESH_SSM_STAGE_S], k, 1e-4, "s", "stored mesh_ssm_stage_s");
  for (int t = 0; t < N_TABLES; t++) {
    double rho = table_spearman(t, NAN, NAN);
    printf("%s: Spearman %.3f (host %.2f ms, stage %.2f s)\n", TABLES[t].file, rho, 1e3 * h, k);
    ck_assert_msg(rho >= TABLES[t].spearman, "%s: Spearman %.3f below the %.2f reached",
                  TABLES[t].file, rho, TABLES[t].spearman);
    /* the target, met on every table */
    ck_assert_msg(rho >= 0.8, "%s: Spearman %.3f below 0.8", TABLES[t].file, rho);
  }
  /* the bound binds only where there is CP, the latency only where a Mamba-2 pipeline is:
   * the other rows keep their device time */
  for (int i = 0; i < st.n; i++)
    if (st.job[i].cp == 1.0 && st.row[i].stages == 0.0) ck_assert(st.pred[i] == st.row[i].device_s);
}
END_TEST

START_TEST(test_study_leave_one_group_out) {
  load_study();
  double h, k;
  ck_assert(scale_calib_fit_framework(st.row, st.n, -1, &h, &k) == SCALE_OK);
  for (int t = 0; t < N_TABLES; t++) {
    double ht, kt;
    ck_assert(scale_calib_fit_framework(st.row, st.n, t, &ht, &kt) == SCALE_OK);
    /* the held-out host fits stay within 10% of the joint one (10.8-11.0 ms when written);
     * the stage latency is fitted by the two Mamba tables, so leaving one out leaves it to
     * the other: 19.5 s from Mamba-1B's alone, 47.3 s from Mamba-7B's (whose CP-free rows
     * the composition prices 13-18% fast, which the latency then also absorbs) */
    scale_check_rel(ht, h, 0.10, "s", TABLES[t].file);
    ck_assert_msg(kt >= 10.0 && kt <= 50.0, "%s left out: stage latency %g s", TABLES[t].file,
                  kt);
    double rho = table_spearman(t, ht, kt), err = 0;
    int n = 0;
    for (int i = 0; i < st.n; i++)
      if (st.row[i].group == t) {
        double r = log(scale_calib_framework_row_s(&st.row[i], ht, kt) / st.row[i].measured);
        err += r * r, n++;
      }
    printf("%s left out: host %.2f ms, stage %.2f s, Spearman %.3f, rms log error %.3f\n",
           TABLES[t].file, 1e3 * ht, kt, rho, sqrt(err / n));
    ck_assert_msg(rho >= TABLES[t].logo, "%s left out: Spearman %.3f below the %.2f reached",
                  TABLES[t].file, rho, TABLES[t].logo);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("hybrid_study");
  const scale_check_case cases[] = {{"cp_layer_microbatches", test_cp_layer_microbatches},
                                    {"cp_host_bound", test_cp_host_bound},
                                    {"fit_recovers", test_fit_recovers},
                                    {"fit_recovers_stage_latency",
                                     test_fit_recovers_stage_latency},
                                    {"ssm_stages", test_ssm_stages},
                                    {"step_cp_host", test_step_cp_host},
                                    {"study_joint_fit", test_study_joint_fit},
                                    {"study_leave_one_group_out", test_study_leave_one_group_out}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
