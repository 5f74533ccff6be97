/* test_hybrid_study.c — the case study of Amer et al. (arXiv 2602.09109) section 6 predicted
 * from the shipped measurements: Tables 10 (measurements/hybrid-910b.tsv), 11, 13 and 14
 * (measurements/hybrid/), each a ranking group.
 *
 * Each layout is priced as `scale train` prices it: the calibrated step model (the Ascend
 * 910B's [step] section; transformers) or scale_hybrid_mamba2_step_result() (Mamba-2), both
 * with the host's floor under CP layouts (scale_step_cp_host_s, the stored mesh_cp_host_s).
 * That one parameter is refitted here from the device times to the four groups, checked
 * against the stored value, and left out group by group. The Spearman figures asserted are
 * those reached when this suite was written, so they can only improve: the target is
 * 0.8 on each table, met by Tables 10, 11 and 14; Table 13 reaches 0.747 (below).
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
  scale_check_rel(scale_hybrid_fit_cp_host_layer_s(dev, units, NULL, meas, group, 3, -1), 7e-3,
                  0.0032, "s", "fit");
  scale_check_rel(scale_hybrid_fit_cp_host_layer_s(dev, units, NULL, meas, group, 3, 0), 1e-4,
                  1e-12, "s", "leave group 0 out");
  /* a floor with a fixed part (TP collectives) of 1 s and 2 s: measured 8 s and 16 s are
   * 1000 and 2000 units at 7 ms plus it, so the fit is again 7 ms */
  const double fixed[] = {1.0, 2.0, 0.0}, meas_fixed[] = {8.0, 16.0, 30.0};
  scale_check_rel(scale_hybrid_fit_cp_host_layer_s(dev, units, fixed, meas_fixed, group, 3, -1),
                  7e-3, 0.0032, "s", "fit with a fixed part");
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, NULL, meas, group, 0, -1));
  const int bad[] = {0, 16, 1};
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, NULL, meas, bad, 3, -1));
  const int one[] = {0, 0, 0};
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, NULL, meas, one, 3, 0));
  const double negative[] = {0.0, -1.0, 0.0};
  scale_check_nan(scale_hybrid_fit_cp_host_layer_s(dev, units, negative, meas, group, 3, -1));
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
  scale_check_rel(scale_step_cp_layer_microbatches(&j), scale_hybrid_cp_layer_microbatches(&j),
                  1e-12, "", "as hybrid.h counts them");
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
 * 0.930, 0.747 (Mamba-7B's TP x CP rows now priced too slow; issue 16's 0.8 missed), 0.873. */
static const table_case TABLES[N_TABLES] = {
    {"hybrid-910b.tsv", 0.95, 0.95},
    {"hybrid/hybrid-910b-table11.tsv", 0.92, 0.92},
    {"hybrid/hybrid-910b-table13.tsv", 0.74, 0.74},
    {"hybrid/hybrid-910b-table14.tsv", 0.86, 0.86},
};

typedef struct {
  int n;
  double device[N_TABLES * CAP], units[N_TABLES * CAP], meas[N_TABLES * CAP];
  double fixed[N_TABLES * CAP], pred[N_TABLES * CAP];
  int group[N_TABLES * CAP];
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
  if (j->model->arch == SCALE_ARCH_MAMBA2)
    scale_hybrid_mamba2_step_result(j, &q, r);
  else
    scale_step_eval(j, &q, r);
}

/** Table t's step with host time h (the floor as step.h applies it). */
static double with_host(int k, double h) {
  return fmax(st.device[k], st.units[k] * h + st.fixed[k]);
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
      st.job[k] = scale_step_job_from_measurement(&rows[i], &st.model[t], &npu);
      st.device[k] = scale_hybrid_predict_step_s(&st.job[k], &prm, 0.0);
      /* the step as scale train prices it, and its floor's two parts (linear in the host) */
      scale_step_result r, r1, r2;
      eval_row(&st.job[k], &prm, NAN, &r);
      eval_row(&st.job[k], &prm, 1.0, &r1);
      eval_row(&st.job[k], &prm, 2.0, &r2);
      st.pred[k] = r.step_s;
      st.units[k] = r2.host_s - r1.host_s;
      st.fixed[k] = r1.host_s - st.units[k];
      if (st.job[k].cp > 1)
        scale_check_rel(st.units[k], scale_hybrid_cp_layer_microbatches(&st.job[k]), 1e-9, "",
                        rows[i].id);
      st.meas[k] = rows[i].measured;
      st.group[k] = t;
      ck_assert_msg(isfinite(st.device[k]) && st.device[k] > 0, "%s: device time", rows[i].id);
    }
  }
}

/** Spearman of table t's rows with host time h (NaN: as scale train prices them). */
static double table_spearman(int t, double h) {
  double pred[CAP], meas[CAP];
  int n = 0;
  for (int k = 0; k < st.n; k++)
    if (st.group[k] == t) {
      pred[n] = isnan(h) ? st.pred[k] : with_host(k, h);
      meas[n++] = st.meas[k];
    }
  return scale_calib_spearman(pred, meas, n);
}

START_TEST(test_study_joint_fit) {
  load_study();
  ck_assert_int_eq(st.n, 18 + 18 + 13 + 19);
  double h = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.fixed, st.meas, st.group,
                                              st.n, -1);
  /* 11.4 ms when written: inside the plausible 1-30 ms of a host issuing a layer's few hundred
   * eager operators at tens of microseconds each; and what scale calibrate stored (the same
   * fit of the same four groups, to the %.6g it writes) */
  ck_assert_msg(h >= 1e-3 && h <= 3e-2, "host time per CP layer-microbatch %g s", h);
  scale_check_rel(prm.v[SCALE_STEP_MESH_CP_HOST_S], h, 1e-4, "s", "stored mesh_cp_host_s");
  for (int t = 0; t < N_TABLES; t++) {
    double rho = table_spearman(t, NAN);
    printf("%s: Spearman %.3f (host %.2f ms)\n", TABLES[t].file, rho, 1e3 * h);
    ck_assert_msg(rho >= TABLES[t].spearman, "%s: Spearman %.3f below the %.2f reached",
                  TABLES[t].file, rho, TABLES[t].spearman);
  }
  /* the bound binds only where there is CP: a table's CP-free rows keep their device time */
  for (int k = 0; k < st.n; k++)
    if (st.job[k].cp == 1.0) ck_assert(st.pred[k] == st.device[k]);
}
END_TEST

START_TEST(test_study_leave_one_group_out) {
  load_study();
  double h = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.fixed, st.meas, st.group,
                                              st.n, -1);
  for (int t = 0; t < N_TABLES; t++) {
    double ht = scale_hybrid_fit_cp_host_layer_s(st.device, st.units, st.fixed, st.meas, st.group,
                                                 st.n, t);
    /* the held-out fits stay within 10% of the joint one (10.7-11.6 ms when written) */
    scale_check_rel(ht, h, 0.10, "s", TABLES[t].file);
    double rho = table_spearman(t, ht), err = 0;
    int n = 0;
    for (int k = 0; k < st.n; k++)
      if (st.group[k] == t) {
        double r = log(with_host(k, ht) / st.meas[k]);
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
                                    {"step_cp_host", test_step_cp_host},
                                    {"study_joint_fit", test_study_joint_fit},
                                    {"study_leave_one_group_out", test_study_leave_one_group_out}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
