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
 * each table, is asserted too. The grid of hybrid_grid.h is checked on Table 10's problem
 * beside scale_plan_hybrid (its tally in test_hybrid_grid.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale/calibrate.h"
#include "scale/hardware.h"
#include "scale/hybrid.h"
#include "scale/hybrid_grid.h"
#include "scale/hybrid_study.h"
#include "scale/measurements.h"
#include "scale/model.h"
#include "scale/plan.h"
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
 * composition's shortfall on Mamba-7B's rows without CP or PP; chapter 13 says so. Since the
 * 8- and 4-bit rows fit a stage of their own (issue 27; the 16-bit device fit lost NeMo's H100
 * rows, kernel_s 12 -> 23 us, which Mamba's small kernels feel most): 0.957, 0.930, 0.950,
 * 0.897, left out 0.957, 0.928, 0.884, 0.703. */
static const table_case TABLES[N_TABLES] = {
    {"hybrid-910b.tsv", 0.95, 0.95},
    {"hybrid/hybrid-910b-table11.tsv", 0.92, 0.92},
    {"hybrid/hybrid-910b-table13.tsv", 0.92, 0.88},
    {"hybrid/hybrid-910b-table14.tsv", 0.89, 0.70},
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
      st.row[k] = scale_hybrid_study_fit_row(&st.job[k], &prm, rows[i].measured, t);
      scale_step_result r;
      scale_step_eval(&st.job[k], &prm, &r);
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
     * the other: 20.1 s from Mamba-1B's alone, 52.0 s from Mamba-7B's (whose CP-free rows
     * the composition prices fast, which the latency then also absorbs); both inside the
     * parameter's plausible 0-60 s */
    scale_check_rel(ht, h, 0.10, "s", TABLES[t].file);
    ck_assert_msg(kt >= 10.0 && kt <= 60.0, "%s left out: stage latency %g s", TABLES[t].file,
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

/* ==== hybrid_study.h and the paper's search space ================================================
 */

START_TEST(test_fit_row_by_hand) {
  /* LLaMA 2 7B (32 layers) at (1, 1, 1, 8), 1024 sequences: 1024 microbatches x 32 layers =
   * 32768 CP layer-microbatches; no TP, so nothing but the host on the floor (fixed 0); a
   * transformer has no Mamba-2 stages. Mamba-7B at (1, 4, 1, 2) on the mesh: 3 added stages. */
  scale_diag d;
  scale_chip chip;
  scale_model llama, mamba;
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("llama-2-7b", &llama, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("mamba-2-7b-amer", &mamba, &d) == SCALE_OK, "%s", d.message);
  scale_step_params p;
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  scale_step_job j = job4(&llama, 1, 1, 1, 8);
  j.chip = &chip, j.dtype = SCALE_DTYPE_BF16, j.attention = SCALE_ATTENTION_FLASH;
  scale_calib_framework_row r = scale_hybrid_study_fit_row(&j, &p, 500.0, 3);
  scale_check_rel(r.units, 32768.0, 1e-9, "", "1024 x 32");
  ck_assert_msg(fabs(r.fixed_s) < 1e-9, "fixed %g s without TP", r.fixed_s);
  ck_assert(r.stages == 0.0 && r.measured == 500.0 && r.group == 3);
  scale_check_rel(r.device_s, scale_hybrid_predict_step_s(&j, &p, 0.0, 0.0), 1e-12, "s", "dev");
  /* the row's step at the stored parameters is what scale train prices */
  scale_step_result full;
  scale_step_eval(&j, &p, &full);
  scale_check_rel(scale_calib_framework_row_s(&r, p.v[SCALE_STEP_MESH_CP_HOST_S], 0.0), full.step_s,
                  1e-9, "s", "the fit's step = scale train's");
  j = job4(&mamba, 1, 4, 1, 2);
  j.chip = &chip, j.dtype = SCALE_DTYPE_BF16;
  r = scale_hybrid_study_fit_row(&j, &p, 500.0, 0);
  ck_assert(r.stages == 3.0);
}
END_TEST

/** Writes 'text' to a fresh temporary file; returns its path (static storage). */
static const char *temp_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/scale-paper-XXXXXX");
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  FILE *fp = fdopen(fd, "w");
  fputs(text, fp);
  fclose(fp);
  return path;
}

static scale_status paper_of(const char *text, int cap, int *n, scale_diag *d) {
  static scale_hybrid_paper_row rows[8];
  const char *path = temp_file(text);
  scale_status status = scale_hybrid_study_paper_load(path, rows, cap, n, d);
  unlink(path);
  return status;
}

#define HEADER "# a comment\nid\ttokens_per_s\tmemory_bytes\tmemory_known\tmfu_frac\n"

START_TEST(test_paper_columns) {
  scale_hybrid_paper_row rows[128];
  int n;
  scale_diag d;
  char path[4096];
  snprintf(path, sizeof path, "%s/hybrid/paper-columns.txt", scale_measurements_dir());
  ck_assert_msg(scale_hybrid_study_paper_load(path, rows, 128, &n, &d) == SCALE_OK, "%s:%d: %s",
                d.file, d.line, d.message);
  ck_assert_int_eq(n, 18 + 18 + 13 + 19); /* one line per row of the four tables */
  /* Table 10 row 2 prints 41.2 K tokens/s, 45.9 GB, 63.7%; row 1's memory is its MFU copied */
  int k = scale_hybrid_study_paper_find(rows, n, "H02");
  ck_assert(k >= 0 && rows[k].tokens_per_s == 41200 && rows[k].memory_bytes == 4.59e10 &&
            rows[k].memory_known && rows[k].mfu_frac == 0.637);
  ck_assert(!rows[scale_hybrid_study_paper_find(rows, n, "H01")].memory_known);
  ck_assert(scale_hybrid_study_paper_find(rows, n, "H99") == -1);
  /* a small file, then each fault with its line */
  ck_assert(paper_of(HEADER "\nA1\t100\t2e9\t1\t0.5\nA2\t50\t0\t0\t1\n", 8, &n, &d) == SCALE_OK);
  ck_assert_int_eq(n, 2);
  ck_assert(paper_of("A1\t100\t2e9\t1\t0.5\n", 8, &n, &d) == SCALE_ERR_PARSE && d.line == 1);
  ck_assert(paper_of(HEADER, 8, &n, &d) == SCALE_OK && n == 0);
  ck_assert(paper_of("# only\n", 8, &n, &d) == SCALE_ERR_PARSE);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t1\n", 8, &n, &d) == SCALE_ERR_PARSE && d.line == 3);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t1\t0.5\t7\n", 8, &n, &d) == SCALE_ERR_PARSE);
  ck_assert(paper_of(HEADER "A1\t1e2x\t2e9\t1\t0.5\n", 8, &n, &d) == SCALE_ERR_PARSE);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t2\t0.5\n", 8, &n, &d) == SCALE_ERR_RANGE);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t1\t1.5\n", 8, &n, &d) == SCALE_ERR_RANGE);
  ck_assert(paper_of(HEADER "A1\t0\t2e9\t1\t0.5\n", 8, &n, &d) == SCALE_ERR_RANGE);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t1\t0.5\nA1\t100\t2e9\t1\t0.5\n", 8, &n, &d) ==
                SCALE_ERR_DUPLICATE_KEY &&
            d.line == 4);
  ck_assert(paper_of(HEADER "A1\t100\t2e9\t1\t0.5\nA2\t100\t2e9\t1\t0.5\n", 1, &n, &d) ==
            SCALE_ERR_RANGE);
  ck_assert(scale_hybrid_study_paper_load("/nonexistent/paper.txt", rows, 8, &n, &d) ==
            SCALE_ERR_IO);
}
END_TEST

START_TEST(test_study_table_load) {
  /* Table 13: 13 rows of Mamba-7B; each row's fit and price as the functions give them */
  scale_diag d;
  scale_chip chip;
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  scale_step_params p;
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  static scale_hybrid_study_table t;
  char path[4096];
  snprintf(path, sizeof path, "%s/hybrid/hybrid-910b-table13.tsv", scale_measurements_dir());
  ck_assert_msg(scale_hybrid_study_load(path, &chip, &p, 2, &t, &d) == SCALE_OK, "%s:%d: %s",
                d.file, d.line, d.message);
  ck_assert_int_eq(t.n, 13);
  ck_assert_str_eq(t.model.name, "mamba-2-7b-amer");
  for (int i = 0; i < t.n; i++) {
    scale_step_job j = scale_calib_step_job(&t.rows[i], &t.model, &chip);
    ck_assert(t.fit[i].group == 2 && t.fit[i].measured == t.rows[i].measured);
    ck_assert(t.fit[i].stages == t.rows[i].pp - 1); /* every pipeline on the mesh */
    scale_check_rel(t.fit[i].device_s, scale_hybrid_predict_step_s(&j, &p, 0.0, 0.0), 1e-12, "s",
                    t.rows[i].id);
    ck_assert(isfinite(t.pred_s[i]) && t.pred_s[i] >= t.fit[i].device_s);
  }
  ck_assert(scale_hybrid_study_load("/nonexistent.tsv", &chip, &p, 0, &t, &d) != SCALE_OK);
}
END_TEST

START_TEST(test_table_stats) {
  /* four rows by hand: measured 10, 20, 30, 40 s; predicted 12 (+20%), 15 (-25%), 39 (+30%),
   * 44 (+10%). Off by more than 25%: only the third (the second is exactly 25%). Mean |error|
   * (0.2 + 0.25 + 0.3 + 0.1) / 4 = 0.2125. Ranks of pred 1, 2, 3, 4 = those of measured: 1. */
  static scale_hybrid_study_table t;
  memset(&t, 0, sizeof t);
  const double meas[] = {10, 20, 30, 40}, pred[] = {12, 15, 39, 44}, dev[] = {4, 3, 2, 1};
  t.n = 4;
  for (int i = 0; i < 4; i++) {
    snprintf(t.rows[i].id, sizeof t.rows[i].id, "R%d", i + 1);
    t.rows[i].measured = meas[i], t.pred_s[i] = pred[i], t.fit[i].device_s = dev[i];
  }
  scale_hybrid_study_stats u;
  scale_hybrid_study_table_stats(&t, 0.25, &u);
  scale_check_rel(u.spearman, 1.0, 1e-12, "", "same order");
  scale_check_rel(u.spearman_device, -1.0, 1e-12, "", "reversed order");
  scale_check_rel(u.mape_frac, 0.2125, 1e-12, "", "mean |error|");
  ck_assert_int_eq(u.n_off, 1);
  ck_assert_str_eq(u.off, "R3");
  ck_assert(u.best_meas == 0 && u.worst_meas == 3 && u.best_pred == 0 && u.worst_pred == 3);
  /* the measured best and worst are the predicted ones; give the rows layouts (DP 8, 4, 2, 1)
   * and predict the third worst: a different layout, unless it shares the fourth's */
  for (int i = 0; i < 4; i++)
    t.rows[i].dp = 8 >> i, t.rows[i].pp = t.rows[i].tp = t.rows[i].cp = 1;
  scale_hybrid_study_table_stats(&t, 0.25, &u);
  ck_assert(u.best_predicted && u.worst_predicted);
  t.pred_s[2] = 50;
  scale_hybrid_study_table_stats(&t, 0.25, &u);
  ck_assert(u.worst_pred == 2 && !u.worst_predicted);
  t.rows[2].dp = t.rows[3].dp = 2, t.rows[2].pp = t.rows[3].pp = 4; /* one layout twice */
  scale_hybrid_study_table_stats(&t, 0.25, &u);
  ck_assert(u.worst_predicted);
  t.pred_s[2] = 39;
  /* a tighter threshold names more, in file order; a tie keeps the first */
  t.pred_s[1] = 12;
  scale_hybrid_study_table_stats(&t, 0.15, &u);
  ck_assert_str_eq(u.off, "R1 R2 R3");
  ck_assert(u.best_pred == 0);
}
END_TEST

/** A row (dp, pp, tp, cp) measured 'meas' and predicted 'pred' into table t. */
static void hand_row(scale_hybrid_study_table *t, double dp, double pp, double tp, double cp,
                     double meas, double pred, double units, double device) {
  scale_measurement *r = &t->rows[t->n];
  r->dp = dp, r->pp = pp, r->tp = tp, r->cp = cp, r->measured = meas;
  t->pred_s[t->n] = pred;
  t->fit[t->n] = (scale_calib_framework_row){device, units, 0, pp - 1, meas, 0};
  t->n++;
}

START_TEST(test_pp1_extrapolated) {
  /* three rows by hand at TP 1 x CP 2: (2, 2, 1, 2) 30 s, (1, 4, 1, 2) 50 s: a stage costs
   * (50 - 30) / 2 = 10 s, so one stage would take 30 - 10 = 20 s; at TP 2 there is no pair */
  static scale_hybrid_study_table t;
  memset(&t, 0, sizeof t);
  hand_row(&t, 2, 2, 1, 2, 30, 30, 1, 1);
  hand_row(&t, 1, 4, 1, 2, 50, 50, 1, 1);
  hand_row(&t, 2, 1, 2, 2, 40, 40, 1, 1);
  scale_check_rel(scale_hybrid_study_pp1_extrapolated_s(&t, 1, 2, 2, 4), 20.0, 1e-12, "s",
                  "hand: 30 - (50 - 30) / 2");
  /* the figure's span over measured and predicted steps, once a prediction leaves the
   * measurements' range: 25 s predicted for the 30 s row, 55 s for the 50 s one */
  t.pred_s[0] = 25, t.pred_s[1] = 55;
  double lo, hi;
  scale_hybrid_study_step_span(&t, &lo, &hi);
  scale_check_rel(lo, 25.0, 1e-12, "s", "hand: the first row's prediction");
  scale_check_rel(hi, 55.0, 1e-12, "s", "hand: the second row's prediction");
  scale_check_nan(scale_hybrid_study_pp1_extrapolated_s(&t, 1, 2, 4, 2)); /* pp_b <= pp_a */
  scale_check_nan(scale_hybrid_study_pp1_extrapolated_s(&t, 2, 2, 1, 2)); /* no pp 2 row */
}
END_TEST

START_TEST(test_table_ranges_and_groups) {
  /* five rows by hand (dp, pp, tp, cp: measured, predicted):
   *   R1 (8,1,1,1): 10, 12   R2 (4,2,1,1): 14, 13   R3 (2,4,1,1): 20, 22
   *   R4 (4,1,1,2): 30, 27 (100 units, device 0.5 s)   R5 (2,1,2,2): 40, 44 (100, 0.2 s)
   * stage pairs (same tp, cp): R1-R2 4 s, R1-R3 10/3 s, R2-R3 3 s: least 3, most 4; rows with
   * neither CP nor PP: R1 only, 1.2; host 10 ms binds R4 (5 ms a unit) and R5 (2 ms): pure CP
   * 30/100 = 0.3 s a unit, TP x CP 40/100 = 0.4 s. */
  static scale_hybrid_study_table t[2];
  memset(t, 0, sizeof t);
  hand_row(&t[0], 8, 1, 1, 1, 10, 12, 0, 5);
  hand_row(&t[0], 4, 2, 1, 1, 14, 13, 0, 7);
  hand_row(&t[0], 2, 4, 1, 1, 20, 22, 0, 10);
  hand_row(&t[0], 4, 1, 1, 2, 30, 27, 100, 0.5);
  hand_row(&t[0], 2, 1, 2, 2, 40, 44, 100, 0.2);
  scale_hybrid_study_ranges g;
  scale_hybrid_study_table_ranges(&t[0], 0.01, &g);
  scale_check_rel(g.stage_lo_s, 3.0, 1e-12, "s", "R2-R3");
  scale_check_rel(g.stage_hi_s, 4.0, 1e-12, "s", "R1-R2");
  scale_check_rel(g.plain_lo, 1.2, 1e-12, "", "R1");
  scale_check_rel(g.plain_hi, 1.2, 1e-12, "", "R1");
  ck_assert(g.n_host_cp == 1 && g.n_host_tpcp == 1);
  scale_check_rel(g.host_cp_mean_s, 0.3, 1e-12, "s", "R4");
  scale_check_rel(g.host_tpcp_mean_s, 0.4, 1e-12, "s", "R5");
  /* a host of 3 ms binds only R5: no pure-CP mean */
  scale_hybrid_study_table_ranges(&t[0], 0.003, &g);
  ck_assert(g.n_host_cp == 0 && g.n_host_tpcp == 1);
  scale_check_nan(g.host_cp_mean_s);
  /* the host-bound pure-CP range: at 10 ms R4 alone (R5 is TP x CP), 0.3 s; at 3 ms none */
  double lo, hi;
  scale_hybrid_study_host_bound_range(t, 1, 0.01, &lo, &hi);
  scale_check_rel(lo, 0.3, 1e-12, "s", "hand: R4, 30 / 100");
  scale_check_rel(hi, 0.3, 1e-12, "s", "hand: R4, 30 / 100");
  scale_hybrid_study_host_bound_range(t, 1, 0.003, &lo, &hi);
  ck_assert(isinf(lo) && hi == 0);
  /* groups over the table and its Mamba-2 copy (stage latency 1 s, stages pp - 1): pipelines
   * R2 13/14 and R3 22/20 in both families; Mamba's bare (13 - 1)/14, (22 - 3)/20 = 0.95 most;
   * CP rows of the second table only: 27/30, 44/40, devices 0.5/30 and 0.2/40 */
  t[1] = t[0];
  t[1].model.arch = SCALE_ARCH_MAMBA2;
  scale_hybrid_study_groups u;
  scale_hybrid_study_groups_eval(t, 2, 1.0, &u);
  scale_check_rel(u.llama_pp_lo, 13.0 / 14.0, 1e-12, "", "R2");
  scale_check_rel(u.llama_pp_hi, 1.1, 1e-12, "", "R3");
  scale_check_rel(u.mamba_pp_lo, 13.0 / 14.0, 1e-12, "", "R2");
  scale_check_rel(u.mamba_pp_bare_hi, 0.95, 1e-12, "", "R3 less 3 stages");
  scale_check_rel(u.cp_lo, 0.9, 1e-12, "", "R4");
  scale_check_rel(u.cp_hi, 1.1, 1e-12, "", "R5");
  scale_check_rel(u.dev_cp_lo, 0.005, 1e-12, "", "R5 device");
  scale_check_rel(u.dev_cp_hi, 0.5 / 30.0, 1e-12, "", "R4 device");
}
END_TEST

START_TEST(test_study_fit_over_tables) {
  /* two tables whose measured steps are the framework's formula at h = 10 ms, k = 2 s: the fit
   * over the tables recovers both to the grids' resolution (0.3% for h, 0.01 s for k), left
   * out table by table too; with the first left out no CP row remains (NaN host time) */
  static scale_hybrid_study_table t[2];
  memset(t, 0, sizeof t);
  const double h = 0.01, k = 2.0;
  for (int i = 0; i < 6; i++) {
    scale_hybrid_study_table *x = &t[i % 2];
    double units = i % 2 == 0 ? 100.0 * (i + 1) : 0, stages = i % 2 == 1 ? i : 0;
    scale_calib_framework_row r = {0.5 + 0.1 * i, units, 0, stages, 0, i % 2};
    r.measured = scale_calib_framework_row_s(&r, h, k);
    x->fit[x->n] = r, x->rows[x->n].measured = r.measured, x->pred_s[x->n] = r.measured;
    x->n++;
  }
  double hf, kf;
  scale_hybrid_study_fit(t, 2, -1, &hf, &kf);
  scale_check_rel(hf, h, 4e-3, "s", "host time");
  ck_assert(fabs(kf - k) <= 0.01);
  scale_hybrid_study_fit(t, 2, 0, &hf, &kf);
  scale_check_nan(hf);
  ck_assert(fabs(kf - k) <= 0.01);
  /* at the generating parameters each table's prediction ranks as its measurement */
  scale_check_rel(scale_hybrid_study_spearman_at(&t[0], h, k), 1.0, 1e-12, "", "table 1");
  scale_check_rel(scale_hybrid_study_spearman_at(&t[1], h, k), 1.0, 1e-12, "", "table 2");
}
END_TEST

/** The grid's case for Table 10's problem (hybrid_grid.h): the guide and the step model both
 * pick Table 10's measured best, DP 4 x PP 2 (section 6.2.3); its step record is the search's
 * 'best'; its plan fields follow from scale plan's first ranked layout. */
static void check_grid_case(const scale_hybrid_problem *pr, const scale_step_params *p,
                            const scale_plan_hybrid_result *best) {
  scale_diag d = {0};
  scale_plan_report *rep = malloc(sizeof *rep);
  ck_assert(rep != NULL);
  scale_hybrid_grid_case c;
  ck_assert_msg(scale_hybrid_grid_eval(pr, p, rep, &c, &d) == SCALE_OK, "%s", d.message);
  const scale_hybrid_layout *g = &c.guide.layout;
  ck_assert(g->dp == 4 && g->pp == 2 && g->tp == 1 && g->cp == 1);
  ck_assert(c.step_ok && c.same_step && c.step.step_s == best->step_s);
  scale_check_rel(c.step_ratio, 1.0, 1e-12, "", "guide = best: ratio 1");
  ck_assert(memcmp(&c.plan, &rep->ranked[0].layout, sizeof c.plan) == 0);
  bool same = c.plan.dp == g->dp && c.plan.pp == g->pp && c.plan.tp == g->tp && c.plan.cp == g->cp;
  ck_assert(c.same_plan == same);
  if (c.same_plan) scale_check_rel(c.plan_ratio, 1.0, 1e-9, "", "guide = pick: ratio 1");
  ck_assert(c.plan_search == (!c.same_plan && c.plan_fits && !(c.plan_ratio > 1.0)));
  free(rep);
}

START_TEST(test_plan_hybrid) {
  scale_diag d;
  scale_chip chip;
  scale_model llama;
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("llama-2-7b", &llama, &d) == SCALE_OK, "%s", d.message);
  scale_step_params p;
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  const scale_precision megatron = SCALE_PRECISION_MEGATRON;
  scale_hybrid_problem pr = {&llama, &chip, 8, 1024, 4096, 1, 1, megatron};
  scale_plan_hybrid_result r;
  ck_assert(scale_plan_hybrid(&pr, &p, &r) == SCALE_OK);
  /* (tp, cp, pp) powers of two with a product of at most 8: exponents summing to <= 3, C(6, 3) */
  ck_assert_int_eq(r.n_candidates, 20);
  /* the paper's measured best of Table 10 (section 6.2.3): DP 4 x PP 2 */
  ck_assert(r.layout.dp == 4 && r.layout.pp == 2 && r.layout.tp == 1 && r.layout.cp == 1);
  scale_check_rel(r.step_s, scale_plan_hybrid_step_s(&pr, &r.layout, &p), 1e-12, "s", "pick");
  check_grid_case(&pr, &p, &r);
  /* with room for everything every layout is kept and the pick is the least of them */
  chip.hbm_bytes = 1e15;
  ck_assert(scale_plan_hybrid(&pr, &p, &r) == SCALE_OK && r.n_kept == 20);
  for (double tp = 1; tp <= 8; tp *= 2)
    for (double pp = 1; tp * pp <= 8; pp *= 2) {
      scale_hybrid_layout l = {8 / (tp * pp), pp, tp, 1, 1, tp > 1};
      ck_assert(r.step_s <= scale_plan_hybrid_step_s(&pr, &l, &p));
    }
  /* 6 heads: TP 4 and 8 are out, 16 of the 20 left (10 with tp 1, 6 with tp 2) */
  llama.n_heads = 6, llama.n_kv_heads = 6;
  ck_assert(scale_plan_hybrid(&pr, &p, &r) == SCALE_OK && r.n_kept == 16);
  /* no room: nothing kept, no pick */
  chip.hbm_bytes = 1;
  ck_assert(scale_plan_hybrid(&pr, &p, &r) == SCALE_OK && r.n_kept == 0);
  scale_check_nan(r.step_s);
  scale_check_nan(r.layout.dp);
  pr.gbs = 0;
  ck_assert(scale_plan_hybrid(&pr, &p, &r) == SCALE_ERR_INVALID);
  ck_assert(scale_plan_hybrid(NULL, &p, &r) == SCALE_ERR_INVALID);
}
END_TEST

START_TEST(test_study_load_all_and_logo) {
  /* The whole study: 18 + 18 + 13 + 19 rows (test_study_joint_fit's count), Table 13 printing
   * (2, 2, 1, 2) but not (4, 1, 1, 2), which does not fit */
  static scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES];
  static scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX];
  scale_chip chip;
  scale_step_params p;
  scale_diag d = {0};
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  int n_paper = 0;
  ck_assert_msg(scale_hybrid_study_load_all(&chip, &p, t, paper, &n_paper, &d) == SCALE_OK,
                "%s:%d: %s", d.file, d.line, d.message);
  ck_assert_int_eq(t[0].n + t[1].n + t[2].n + t[3].n, 18 + 18 + 13 + 19);
  ck_assert_int_eq(n_paper, 18 + 18 + 13 + 19);
  ck_assert_str_eq(t[2].model.name, "mamba-2-7b-amer");
  int k = scale_hybrid_study_find(&t[2], 2, 2, 1, 2);
  ck_assert(k >= 0 && t[2].rows[k].pp == 2 && t[2].rows[k].cp == 2);
  ck_assert_int_eq(scale_hybrid_study_find(&t[2], 4, 1, 1, 2), -1);
  scale_measurement r = {.dp = 4, .pp = 1, .tp = 1, .cp = 2};
  ck_assert(scale_hybrid_study_pure_cp(&r));
  r.tp = 2;
  ck_assert(!scale_hybrid_study_pure_cp(&r));
  /* left out table by table: the left-out Spearman floors of TABLES (0.95, 0.92, 0.88, 0.70),
   * host fits within 10% of one another in the plausible 1-30 ms, and the host-bound pure-CP
   * rows measuring the paper's 10-12 ms per layer-microbatch */
  scale_hybrid_study_logo g;
  scale_hybrid_study_logo_eval(t, &g);
  for (int i = 0; i < SCALE_HYBRID_STUDY_TABLES; i++) {
    ck_assert_msg(g.spearman[i] >= TABLES[i].logo, "table %d: %g", i, g.spearman[i]);
    ck_assert(g.host_s[i] >= g.host_lo_s && g.host_s[i] <= g.host_hi_s);
  }
  ck_assert(g.host_lo_s >= 1e-3 && g.host_hi_s <= 3e-2 && g.host_hi_s / g.host_lo_s < 1.1);
  double lo, hi;
  scale_hybrid_study_host_bound_range(t, SCALE_HYBRID_STUDY_TABLES, p.v[SCALE_STEP_MESH_CP_HOST_S],
                                      &lo, &hi);
  ck_assert_msg(lo >= 10e-3 && hi <= 12e-3, "%g..%g", lo, hi);
  /* Table 10's (4, 2, 1, 1), LLaMA 2 7B, ZeRO-1 by hand: 3,369,207,808 parameters a device at
   * 2 + 4 + 12 / 4 = 9 B = 30,322,870,272 B of states; 16 layers of 570,425,344 B of
   * activations, two microbatches in flight under 1F1B: 18,253,611,008 B (more than one
   * microbatch with the head's 591,396,864 B of logits); 48,576,481,280 B in all */
  int i = scale_hybrid_study_find(&t[0], 4, 2, 1, 1);
  ck_assert(i >= 0);
  scale_check_rel(scale_hybrid_study_row_memory_bytes(&t[0], i), 48576481280.0, 1e-12, "B",
                  "hand: states + 2 x 16 layers");
  /* the memory ranks: every table's predicted memory ranks its rows as the paper's column */
  for (int j = 0; j < SCALE_HYBRID_STUDY_TABLES; j++) {
    double rho = scale_hybrid_study_memory_spearman(&t[j], paper, n_paper);
    ck_assert_msg(rho > 0.85 && rho <= 1.0, "table %d: memory Spearman %g", j, rho);
  }
  ck_assert(isnan(scale_hybrid_study_memory_spearman(&t[0], paper, 0)));
}
END_TEST

/** Index of row 'key' of t, failing the test when it is absent. */
static int row_of(const scale_hybrid_table *t, const char *key) {
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->row[i].key, key)) return i;
  ck_abort_msg("no row %s", key);
  return -1;
}

START_TEST(test_study_tables) {
  /* two rows by hand of LLaMA 2 7B, 1024 x 4096 tokens a step: R1 (4, 2, 1, 1) measured 20 s,
   * predicted 24 (+20%), device 18; R2 (8, 1, 1, 1) measured 10, predicted 13 (+30%: off by
   * more than 25%). The paper prints R1 at 200,000 tokens/s, 50 GB, MFU 40%. */
  static scale_hybrid_study_table t;
  memset(&t, 0, sizeof t);
  scale_diag d;
  ck_assert_msg(scale_model_load("llama-2-7b", &t.model, &d) == SCALE_OK, "%s", d.message);
  hand_row(&t, 4, 2, 1, 1, 20, 24, 1, 18);
  hand_row(&t, 8, 1, 1, 1, 10, 13, 1, 9);
  for (int i = 0; i < 2; i++) {
    snprintf(t.rows[i].id, sizeof t.rows[i].id, "R%d", i + 1);
    t.rows[i].gbs = 1024, t.rows[i].seq = 4096;
  }
  const scale_hybrid_paper_row paper[] = {{"R1", 2e5, 5e10, true, 0.4}};
  static scale_hybrid_table tab;
  ck_assert_ptr_eq(scale_hybrid_study_row_table(&t, 0, paper, 1, 0.25, &tab), &tab);
  ck_assert_int_eq(tab.n, 15); /* four degrees, ten columns, the flag */
  ck_assert(tab.row[row_of(&tab, "pp")].value == 2 &&
            tab.row[row_of(&tab, "device_s")].value == 18);
  scale_check_rel(tab.row[row_of(&tab, "ratio")].value, 1.2, 1e-12, "", "24 / 20");
  /* 1024 x 4096 / 24 s = 174,762.67 tokens/s; MFU 40% x 20 / 24 = 33.33% */
  scale_check_rel(tab.row[row_of(&tab, "pred_tps")].value, 4194304.0 / 24.0, 1e-12, "tok/s",
                  "gbs seq / pred");
  scale_check_rel(tab.row[row_of(&tab, "pred_mfu")].value, 40.0 * 20.0 / 24.0, 1e-12, "%",
                  "the paper's FLOPs over the predicted time");
  ck_assert(tab.row[row_of(&tab, "meas_mfu")].value == 40.0);
  /* (4, 2, 1, 1) by hand in test_study_load_all_and_logo: 48,576,481,280 B */
  scale_check_rel(tab.row[row_of(&tab, "pred_mem")].value, 48576481280.0, 1e-12, "B",
                  "hand: states + 2 x 16 layers");
  ck_assert_str_eq(tab.row[row_of(&tab, "meas_mem")].label, "measured memory");
  ck_assert_str_eq(tab.text[row_of(&tab, "off")], "no");
  ck_assert_str_eq(tab.row[row_of(&tab, "off")].label, "off by more than 25%");
  const scale_hybrid_paper_row paper2[] = {{"R2", 4e5, 4e10, false, 0.5}};
  scale_hybrid_study_row_table(&t, 1, paper2, 1, 0.25, &tab);
  ck_assert_str_eq(tab.text[row_of(&tab, "off")], "yes");
  ck_assert_str_eq(tab.row[row_of(&tab, "meas_mem")].label,
                   "measured memory (copy error: the MFU)");
  /* a row the paper's columns do not hold */
  ck_assert_ptr_null(scale_hybrid_study_row_table(&t, 1, paper, 1, 0.25, &tab));
  ck_assert_int_eq(tab.n, 0);
  /* the summary: 2 rows, ranks alike (Spearman 1), mean |error| (20% + 30%) / 2 = 25%, one
   * off; the measured best is R2 (no paper row: no MFU), the worst R1 (MFU 40%) */
  scale_hybrid_study_stats u;
  scale_hybrid_study_table_stats(&t, 0.25, &u);
  scale_hybrid_study_summary_table(&t, &u, 0.25, paper, 1, &tab);
  ck_assert_int_eq(tab.n, 6 + 4 * 4 + 1);
  scale_check_rel(tab.row[row_of(&tab, "spearman")].value, 1.0, 1e-12, "", "same order");
  scale_check_rel(tab.row[row_of(&tab, "mape")].value, 25.0, 1e-12, "%", "(20 + 30) / 2");
  ck_assert(tab.row[row_of(&tab, "n_off")].value == 1 && tab.row[row_of(&tab, "n")].value == 2);
  ck_assert(tab.row[row_of(&tab, "best_meas.dp")].value == 8);
  ck_assert(tab.row[row_of(&tab, "worst_meas.pp")].value == 2);
  ck_assert(tab.row[row_of(&tab, "worst_meas.mfu")].value == 40.0);
  for (int i = 0; i < tab.n; i++)
    ck_assert_str_ne(tab.row[i].key, "best_meas.mfu");
  /* the groups in their order */
  scale_hybrid_study_groups g = {0.8, 1.2, 0.7, 1.3, 0.9, 0.6, 1.1, 0.5, 0.95};
  scale_hybrid_study_groups_table(&g, &tab);
  ck_assert_int_eq(tab.n, 9);
  ck_assert_str_eq(tab.row[2].key, "mamba_pp_bare_hi");
  ck_assert(tab.row[2].value == 0.9 && tab.row[3].value == 0.7 && tab.row[8].value == 0.95);
}
END_TEST

START_TEST(test_study_host_and_ranges_tables) {
  /* by hand, host time 10 ms. Table 10 (LLaMA): pure CP (4, 1, 1, 2) measured 2 s over 100
   * layer-microbatches, device 0.5 s: 20 ms and 5 ms each, below the host's 10: host-bound;
   * TP x CP (2, 1, 2, 2) 3 s over 100 (device 4 ms): 30 ms; (8, 1, 1, 1) 10 s and (4, 2, 1, 1)
   * 12 s: one more stage adds 2 s. Table 13 (Mamba): (2, 2, 1, 2) 30 s and (1, 4, 1, 2) 50 s: a
   * stage 10 s, so without a pipeline 30 - 10 = 20 s; (8, 1, 1, 1) measured 10, predicted 11:
   * 1.1. Tables 11 and 14 empty. */
  static scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES];
  memset(t, 0, sizeof t);
  t[0].model.arch = SCALE_ARCH_TRANSFORMER, t[2].model.arch = SCALE_ARCH_MAMBA2;
  hand_row(&t[0], 4, 1, 1, 2, 2, 2, 100, 0.5);
  hand_row(&t[0], 2, 1, 2, 2, 3, 3, 100, 0.4);
  hand_row(&t[0], 8, 1, 1, 1, 10, 12, 1, 10);
  hand_row(&t[0], 4, 2, 1, 1, 12, 12, 1, 12);
  hand_row(&t[2], 2, 2, 1, 2, 30, 30, 1, 30);
  hand_row(&t[2], 1, 4, 1, 2, 50, 50, 1, 50);
  hand_row(&t[2], 8, 1, 1, 1, 10, 11, 1, 10);
  ck_assert_str_eq(scale_hybrid_study_key(2), "t13");
  ck_assert_str_eq(scale_hybrid_study_key(4), "?");
  static scale_hybrid_table tab;
  scale_chip c;
  memset(&c, 0, sizeof c);
  strcpy(c.name, "ascend-910b");
  scale_step_params p;
  memset(&p, 0, sizeof p);
  p.v[SCALE_STEP_MESH_CP_HOST_S] = 10e-3, p.v[SCALE_STEP_MESH_SSM_STAGE_S] = 0.1;
  scale_hybrid_study_host_table(t, &c, &p, &tab);
  ck_assert_int_eq(tab.n, 8);
  ck_assert_str_eq(tab.row[0].label, "mesh_cp_host_s in hardware/ascend-910b.ini");
  ck_assert(tab.row[0].value == 10e-3 && tab.row[row_of(&tab, "stage.stored")].value == 0.1);
  scale_check_rel(tab.row[row_of(&tab, "host.meas.t10.cp2")].value, 0.02, 1e-12, "s", "2 / 100");
  scale_check_rel(tab.row[row_of(&tab, "host.device.t10.cp2")].value, 0.005, 1e-12, "s",
                  "0.5 s / 100");
  scale_check_rel(tab.row[row_of(&tab, "host.meas_lo")].value, 0.02, 1e-12, "s", "the one row");
  scale_check_rel(tab.row[row_of(&tab, "host.meas_hi")].value, 0.02, 1e-12, "s", "the one row");
  scale_check_rel(tab.row[row_of(&tab, "host.tp_cp.t10")].value, 0.02, 1e-12, "s", "CP mean");
  scale_check_rel(tab.row[row_of(&tab, "host.tp_tpcp.t10")].value, 0.03, 1e-12, "s", "3 / 100");
  scale_hybrid_study_ranges_table(t, 10e-3, &tab);
  ck_assert_int_eq(tab.n, 7);
  ck_assert_str_eq(tab.row[0].key, "t10.stage_lo");
  ck_assert_str_eq(tab.row[0].label, "one more stage adds (measured): least");
  scale_check_rel(tab.row[row_of(&tab, "t10.stage_hi")].value, 2.0, 1e-12, "s", "12 - 10");
  scale_check_rel(tab.row[row_of(&tab, "t13.stage_lo")].value, 10.0, 1e-12, "s", "(50 - 30) / 2");
  scale_check_rel(tab.row[row_of(&tab, "t13.tp1cp2_base")].value, 20.0, 1e-12, "s", "30 - 10");
  scale_check_rel(tab.row[row_of(&tab, "t13.plain_hi")].value, 1.1, 1e-12, "", "11 / 10");
  for (int i = 0; i < tab.n; i++)
    ck_assert_str_ne(tab.row[i].key, "t10.plain_lo"); /* a LLaMA table's are not cited */
}
END_TEST

int main(void) {
  Suite *s = suite_create("hybrid_study");
  const scale_check_case cases[] = {
      {"cp_layer_microbatches", test_cp_layer_microbatches},
      {"cp_host_bound", test_cp_host_bound},
      {"fit_recovers", test_fit_recovers},
      {"fit_recovers_stage_latency", test_fit_recovers_stage_latency},
      {"ssm_stages", test_ssm_stages},
      {"step_cp_host", test_step_cp_host},
      {"study_joint_fit", test_study_joint_fit},
      {"study_leave_one_group_out", test_study_leave_one_group_out},
      {"fit_row_by_hand", test_fit_row_by_hand},
      {"paper_columns", test_paper_columns},
      {"study_table_load", test_study_table_load},
      {"table_stats", test_table_stats},
      {"table_ranges_and_groups", test_table_ranges_and_groups},
      {"pp1_extrapolated", test_pp1_extrapolated},
      {"study_tables", test_study_tables},
      {"study_host_and_ranges_tables", test_study_host_and_ranges_tables},
      {"study_fit_over_tables", test_study_fit_over_tables},
      {"plan_hybrid", test_plan_hybrid},
      {"study_load_all_and_logo", test_study_load_all_and_logo}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
