/* test_hybrid_study.c — the case study of Amer et al. (arXiv 2602.09109) section 6 predicted
 * from the shipped measurements: Tables 10 (measurements/hybrid-910b.tsv), 11, 13 and 14
 * (measurements/hybrid/), each a ranking group.
 *
 * Each layout's device time comes from the calibrated step model (the Ascend 910B's [step]
 * section; transformers) or scale_hybrid_mamba2_step_eval() (Mamba-2); the one parameter of
 * the CP host bound (scale_hybrid_cp_host_bound_s) is fitted here to the four groups, and
 * left out group by group. The Spearman figures asserted are those reached when this suite
 * was written, so they can only improve: the target is 0.8 on each table, met by
 * Tables 10, 11 and 14; Table 13 reaches 0.779 (its pipeline rows, below).
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
  scale_check_rel(scale_hybrid_cp_layer_microbatches(&j), 16384.0, 1e-12, "", "CP 8");
  /* (1,4,1,2): 1024 x ceil(16/4) = 4096, times the bubble 1 + 3/1024: 4096 + 12 = 4108 */
  j = job4(&m, 1, 4, 1, 2);
  scale_check_rel(scale_hybrid_cp_layer_microbatches(&j), 4108.0, 1e-12, "", "PP 4 CP 2");
  /* (4,1,1,2): 1024 / 4 = 256 x 16 = 4096 */
  j = job4(&m, 4, 1, 1, 2);
  scale_check_rel(scale_hybrid_cp_layer_microbatches(&j), 4096.0, 1e-12, "", "DP 4 CP 2");
  /* no CP: nothing host-bound */
  j = job4(&m, 8, 1, 1, 1);
  ck_assert(scale_hybrid_cp_layer_microbatches(&j) == 0.0);
  j.dp = 0.5;
  scale_check_nan(scale_hybrid_cp_layer_microbatches(&j));
  scale_check_nan(scale_hybrid_cp_layer_microbatches(NULL));
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

START_TEST(test_fit_recovers) {
  /* Two groups built from a host time of 7 ms: group 0's rows are host-bound (device 1 s,
   * units 1000 and 2000 -> 7 s and 14 s), group 1's are device-bound (device 30 s, units 100
   * -> 0.7 s < 30 s, measured 30 s). The fit lands within one grid step (a ratio of
   * (500)^(1/2000) = 1.0031) of 7 ms; leaving group 0 out leaves no information (every h
   * below 0.3 s fits group 1 exactly), so the first grid point, 1e-4 s, wins. */
  const double dev[] = {1.0, 1.0, 30.0}, units[] = {1000.0, 2000.0, 100.0},
               meas[] = {7.0, 14.0, 30.0};
  const int group[] = {0, 0, 1};
  scale_check_rel(scale_hybrid_fit_cp_host_layer_s(dev, units, meas, group, 3, -1), 7e-3, 0.0032,
                  "s", "fit");
  scale_check_rel(scale_hybrid_fit_cp_host_layer_s(dev, units, meas, group, 3, 0), 1e-4, 1e-12, "s",
                  "leave group 0 out");
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, meas, group, 0, -1));
  const int bad[] = {0, 16, 1};
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, meas, bad, 3, -1));
  const int one[] = {0, 0, 0};
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, meas, one, 3, 0));
}
END_TEST

/* ==== the four tables ========================================================================= */

typedef struct {
  const char *file; /* under measurements/ */
  double spearman;  /* reached with the joint fit when written (issue 16's target: 0.8) */
  double logo;      /* reached with the fit that leaves this table out */
} table_case;

/* Before the CP host bound (device time alone): 0.941, 0.785, 0.637, 0.854. */
static const table_case TABLES[N_TABLES] = {
    {"hybrid-910b.tsv", 0.95, 0.95},
    {"hybrid/hybrid-910b-table11.tsv", 0.92, 0.92},
    {"hybrid/hybrid-910b-table13.tsv", 0.77, 0.77},
    {"hybrid/hybrid-910b-table14.tsv", 0.84, 0.84},
};

typedef struct {
  int n;
  double device[N_TABLES * CAP], units[N_TABLES * CAP], meas[N_TABLES * CAP];
  int group[N_TABLES * CAP];
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
      st.job[k] = scale_step_job_from_measurement(&rows[i], &st.model[t], &npu);
      st.device[k] = scale_hybrid_predict_step_s(&st.job[k], &prm, 0.0);
      st.units[k] = scale_hybrid_cp_layer_microbatches(&st.job[k]);
      st.meas[k] = rows[i].measured;
      st.group[k] = t;
      ck_assert_msg(isfinite(st.device[k]) && st.device[k] > 0, "%s: device time", rows[i].id);
    }
  }
}

/** Spearman of table t's rows with host time h. */
static double table_spearman(int t, double h) {
  double pred[CAP], meas[CAP];
  int n = 0;
  for (int k = 0; k < st.n; k++)
    if (st.group[k] == t) {
      pred[n] = scale_hybrid_cp_host_bound_s(&st.job[k], st.device[k], h);
      meas[n++] = st.meas[k];
    }
  return scale_calib_spearman(pred, meas, n);
}

START_TEST(test_study_joint_fit) {
  load_study();
  ck_assert_int_eq(st.n, 18 + 18 + 13 + 19);
  double h = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.meas, st.group, st.n, -1);
  /* 12.0 ms when written: inside the plausible 1-30 ms of a host issuing a layer's few hundred
   * eager operators at tens of microseconds each */
  ck_assert_msg(h >= 1e-3 && h <= 3e-2, "host time per CP layer-microbatch %g s", h);
  for (int t = 0; t < N_TABLES; t++) {
    double rho = table_spearman(t, h);
    printf("%s: Spearman %.3f (host %.2f ms)\n", TABLES[t].file, rho, 1e3 * h);
    ck_assert_msg(rho >= TABLES[t].spearman, "%s: Spearman %.3f below the %.2f reached",
                  TABLES[t].file, rho, TABLES[t].spearman);
  }
  /* the bound binds only where there is CP: a table's CP-free rows keep their device time */
  for (int k = 0; k < st.n; k++)
    if (st.job[k].cp == 1.0)
      ck_assert(scale_hybrid_cp_host_bound_s(&st.job[k], st.device[k], h) == st.device[k]);
}
END_TEST

START_TEST(test_study_leave_one_group_out) {
  load_study();
  double h = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.meas, st.group, st.n, -1);
  for (int t = 0; t < N_TABLES; t++) {
    double ht = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.meas, st.group, st.n, t);
    /* the held-out fits stay within 10% of the joint one (11.5-12.4 ms when written) */
    scale_check_rel(ht, h, 0.10, "s", TABLES[t].file);
    double rho = table_spearman(t, ht), err = 0;
    int n = 0;
    for (int k = 0; k < st.n; k++)
      if (st.group[k] == t) {
        double r = log(scale_hybrid_cp_host_bound_s(&st.job[k], st.device[k], ht) / st.meas[k]);
        err += r * r, n++;
      }
    printf("%s left out: host %.2f ms, Spearman %.3f, rms log error %.3f\n", TABLES[t].file,
           1e3 * ht, rho, sqrt(err / n));
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
                                    {"study_joint_fit", test_study_joint_fit},
                                    {"study_leave_one_group_out", test_study_leave_one_group_out}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
