/* test_energy.c — energy.h: energy and emissions arithmetic, the interruption rate of the
 * Llama 3 run, Young's and Daly's checkpoint intervals against Daly's published examples, the
 * goodput of Daly's complete model against a hand derivation, and the strict reader of
 * measurements/reliability.ini. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/energy.h"
#include "scale_check.h"

#define EXACT 1e-12
#define HAND 1e-5  /* a hand derivation written with 6 significant digits */
#define FIG2 6e-3  /* Daly's figures print the interval to two or three digits */

START_TEST(energy_arithmetic) {
  /* 1024 x 700 W = 716,800 W; x 3600 s = 2.58048e9 J; x PUE 1.1 = 2.838528e9 J = 788.48 kWh */
  double j = scale_energy_run_j(1024, 700, 0, 3600, 1.1);
  scale_check_rel(j, 2.838528e9, EXACT, "J", "1024 x 700 x 3600 x 1.1");
  scale_check_rel(scale_energy_kwh(j), 788.48, EXACT, "kWh", "/ 3.6e6");
  /* a node overhead of 100 W a chip: 1024 x 800 x 3600 = 2.94912e9 J at PUE 1 */
  scale_check_rel(scale_energy_run_j(1024, 700, 100, 3600, 1.0), 2.94912e9, EXACT, "J", "+node");
  /* EIA FAQ 74: 1.65e9 t / 4.23e12 kWh = 0.390 kg/kWh; 1e6 kWh x 0.39 / 1000 = 390 t */
  scale_check_rel(scale_energy_co2e_t(1e6, 0.39), 390.0, EXACT, "t", "1e6 kWh x 0.39 kg/kWh");
  scale_check_nan(scale_energy_run_j(0, 700, 0, 3600, 1.1));
  scale_check_nan(scale_energy_run_j(8, 0, 0, 3600, 1.1));
  scale_check_nan(scale_energy_run_j(8, 700, -1, 3600, 1.1));
  scale_check_nan(scale_energy_run_j(8, 700, 0, 3600, 0.9)); /* a PUE below 1 is no facility */
  scale_check_nan(scale_energy_run_j(8, 700, 0, NAN, 1.1));
  scale_check_nan(scale_energy_kwh(-1));
  scale_check_nan(scale_energy_co2e_t(1, -0.1));
}
END_TEST

START_TEST(llama3_rate) {
  /* Llama 3 section 3.3.4: 419 unexpected interruptions, 54 days (1296 h), 16,384 GPUs:
   * 419 / (16384 x 1296) = 419 / 21,233,664 = 1.97328e-5 per chip-hour; the job's MTBI
   * 3600 / (1.97328e-5 x 16384) = 11135.1 s = 3.09 h. */
  double rate = scale_energy_rate_per_chip_hour(419, 16384, 54 * 86400.0);
  scale_check_rel(rate, 1.97328e-5, HAND, "1/(chip h)", "419 / (16384 x 1296 h)");
  scale_check_rel(scale_energy_mtbi_s(rate, 16384), 11135.1, HAND, "s", "3600 / (rate x 16384)");
  /* the same rate on 1024 chips: 16x the MTBI */
  scale_check_rel(scale_energy_mtbi_s(rate, 1024), 16 * 11135.1, HAND, "s", "16 x");
  scale_check_nan(scale_energy_rate_per_chip_hour(1, 16, 0));
  scale_check_nan(scale_energy_mtbi_s(0, 16));
  /* 5.68e12 bytes at Tectonic's sustained 2 TB/s: 2.84 s */
  scale_check_rel(scale_energy_ckpt_s(5.68e12, 2e12), 2.84, EXACT, "s", "bytes / bandwidth");
  scale_check_nan(scale_energy_ckpt_s(1, 0));
}
END_TEST

START_TEST(young_daly) {
  /* Young: sqrt(2 x 300 s x 86400 s) = sqrt(5.184e7) = 7200 s (Daly 2006: 120 min at
   * delta = 5 min, M = 24 h) */
  scale_check_rel(scale_energy_young_interval_s(300, 86400), 7200, EXACT, "s", "sqrt(2 d M)");
  /* Daly 2006 Figs. 3, 4, 5 (R = 10 min, delta = 5 min): "The new model predicts
   * tau_opt = 117 min" at M = 24 h, 57 min at 6 h, 9.1 min at 15 min. */
  scale_check_rel(scale_energy_daly_interval_s(300, 86400) / 60, 117, FIG2, "min", "Daly Fig. 3");
  scale_check_rel(scale_energy_daly_interval_s(300, 21600) / 60, 57, FIG2, "min", "Daly Fig. 4");
  scale_check_rel(scale_energy_daly_interval_s(300, 900) / 60, 9.1, FIG2, "min", "Daly Fig. 5");
  /* a dump as long as two MTBIs: checkpoint every M */
  scale_check_rel(scale_energy_daly_interval_s(2000, 900), 900, EXACT, "s", "delta >= 2M");
  scale_check_nan(scale_energy_young_interval_s(0, 10));
  scale_check_nan(scale_energy_daly_interval_s(10, NAN));
}
END_TEST

START_TEST(goodput) {
  /* Daly's complete model, tau = 7200, delta = 300, R = 600, M = 86400 s:
   * M e^(R/M) = 86400 x e^0.00694444 = 86400 x 1.0069686 = 87002.09;
   * e^((tau + delta)/M) - 1 = e^0.0868056 - 1 = 0.0906846; x 87002.09 = 7889.75;
   * / 7200 = 1.095799 wall seconds per useful second: goodput 0.912577. */
  double g = scale_energy_goodput_frac(7200, 300, 600, 86400);
  scale_check_rel(g, 0.912577, 2e-5, "1", "hand derivation");
  /* first order, 1 / (1 + d/tau + (tau/2 + R)/M) = 1 / (1 + 0.041667 + 0.048611) = 0.917197:
   * the complete model loses a little more (the second-order terms) */
  ck_assert(g < 0.917197 && g > 0.917197 * 0.99);
  /* no failures: only the dumps cost, tau / (tau + delta) = 7200 / 7500 = 0.96 */
  scale_check_rel(scale_energy_goodput_frac(7200, 300, 600, 1e15), 0.96, 1e-6, "1", "M -> inf");
  /* Daly's interval is (near) the best one: goodput falls either side of it */
  double tau = scale_energy_daly_interval_s(300, 86400);
  double best = scale_energy_goodput_frac(tau, 300, 600, 86400);
  ck_assert(best > scale_energy_goodput_frac(tau / 2, 300, 600, 86400));
  ck_assert(best > scale_energy_goodput_frac(tau * 2, 300, 600, 86400));
  scale_check_nan(scale_energy_goodput_frac(0, 300, 600, 86400));
  scale_check_nan(scale_energy_goodput_frac(7200, 300, -1, 86400));
}
END_TEST

START_TEST(run_eval) {
  /* 1024 chips, 10 days useful; rate 1e-5 per chip-hour: M = 3600 / 0.01024 = 351562.5 s.
   * Checkpoint 1e12 bytes at 1e10 B/s = 100 s; R = 600 s. */
  scale_energy_run run = scale_energy_run_default();
  run.n_chips = 1024;
  run.useful_s = 864000;
  run.usd_per_chip_hour = 2.0;
  run.chip_w = 700;
  run.rate_per_chip_hour = 1e-5;
  run.ckpt_bytes = 1e12;
  run.ckpt_write_bytes_per_s = 1e10;
  run.restart_s = 600;
  scale_energy_result r;
  scale_energy_eval(&run, &r);
  scale_check_rel(r.mtbi_s, 351562.5, EXACT, "s", "3600 / (1e-5 x 1024)");
  scale_check_rel(r.ckpt_s, 100, EXACT, "s", "1e12 / 1e10");
  double g = scale_energy_goodput_frac(scale_energy_daly_interval_s(100, 351562.5), 100, 600,
                                       351562.5);
  scale_check_rel(r.goodput_frac, g, EXACT, "1", "the pieces");
  scale_check_rel(r.elapsed_s, 864000 / g, EXACT, "s", "useful / goodput");
  scale_check_rel(r.n_interruptions, 864000 / g / 351562.5, EXACT, "1", "elapsed / M");
  /* energy over the elapsed time: 1024 x 700 W x elapsed / 3.6e6 */
  scale_check_rel(r.it_kwh, 1024 * 700 * r.elapsed_s / 3.6e6, EXACT, "kWh", "IT energy");
  scale_check_rel(r.cost_usd, 1024 * r.elapsed_s / 3600 * 2.0, EXACT, "USD", "chip-hours x $2");
  /* not given: no PUE, no grid intensity -> unknown, not defaulted */
  ck_assert(isnan(r.facility_kwh) && isnan(r.co2e_t));
  run.pue = 1.2;
  run.grid_kg_per_kwh = 0.39;
  scale_energy_eval(&run, &r);
  scale_check_rel(r.co2e_t, r.it_kwh * 1.2 * 0.39 / 1000, EXACT, "t", "kWh x PUE x grid");
  /* a restart of 1e9 s against an MTBI of 3.5e5 s: e^(R/M) overflows, goodput 0, and the
   * run never ends: elapsed time, interruptions and energy NaN, never inf */
  run.restart_s = 1e9;
  scale_energy_eval(&run, &r);
  ck_assert(r.goodput_frac == 0.0);
  ck_assert(isnan(r.elapsed_s) && isnan(r.n_interruptions) && isnan(r.it_kwh));
  run.restart_s = 600;
  /* no failure model: energy and cost of the useful time, goodput unknown */
  run.rate_per_chip_hour = NAN;
  scale_energy_eval(&run, &r);
  ck_assert(isnan(r.goodput_frac) && isnan(r.elapsed_s));
  scale_check_rel(r.it_kwh, 1024.0 * 700 * 864000 / 3.6e6, EXACT, "kWh", "useful time only");
}
END_TEST

START_TEST(source_file) {
  scale_energy_source src;
  scale_diag diag;
  ck_assert_int_eq(scale_energy_source_load(NULL, "llama3-405b", &src, &diag), SCALE_OK);
  /* measurements/reliability.ini holds the paper's numbers, not a rate */
  scale_check_rel(src.n_interruptions, 419, EXACT, "1", "Llama 3 section 3.3.4");
  scale_check_rel(src.n_chips, 16384, EXACT, "1", "Llama 3 Table 4");
  scale_check_rel(src.window_s, 54 * 86400.0, EXACT, "s", "54 days");
  scale_check_rel(src.ckpt_write_bytes_per_s, 2e12, EXACT, "B/s", "Tectonic, section 3.3.1");
  ck_assert_int_eq(scale_energy_source_load(NULL, "nope", &src, &diag), SCALE_ERR_NOT_FOUND);

  char dir[256], path[512];
  scale_check_tmpdir(dir, sizeof dir, "energy-XXXXXX");
  snprintf(path, sizeof path, "%s/r.ini", dir);
  const char *bad[][2] = {
      {"[a]\nn_interruptions = 1\nn_chips = 2\nwindow_s = 3\nfoo = 1\n", "unknown key"},
      {"[a]\nn_interruptions = 1\nn_interruptions = 2\n", "duplicate key"},
      {"[a]\nn_interruptions = 1\nn_chips = 2\n", "lacks window_s"},
      {"[a]\nn_interruptions = 1\nn_chips = 0.5\nwindow_s = 3\n", "must be in"},
      {"n_chips = 2\n[a]\n", "outside"},
      {"[a]\nn_chips = 2x\n", "not a number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    FILE *f = fopen(path, "w");
    fputs(bad[i][0], f);
    fclose(f);
    ck_assert_int_ne(scale_energy_source_load(path, "a", &src, &diag), SCALE_OK);
    ck_assert_msg(strstr(diag.message, bad[i][1]), "%s: %s", bad[i][1], diag.message);
  }
  remove(path);
  scale_check_rmdir(dir);
}
END_TEST

START_TEST(run_of_chip) {
  scale_chip h100;
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load("nvidia-h100-sxm", &h100, &diag), SCALE_OK);
  scale_energy_source src;
  ck_assert_int_eq(scale_energy_source_load(NULL, "llama3-405b", &src, &diag), SCALE_OK);
  scale_energy_run run = scale_energy_run_of(&h100, 16384, 86400, &src);
  /* the H100 file's [power]: TDP 700 W (Llama 3 section 3.3.1), no training draw, no node
   * overhead; the record's rate and storage */
  scale_check_rel(run.chip_w, 700, EXACT, "W", "H100 TDP");
  scale_check_rel(run.node_overhead_w, 0, EXACT, "W", "not counted");
  scale_check_rel(run.rate_per_chip_hour, 1.97328e-5, HAND, "1/(chip h)", "419 / 54 d / 16384");
  scale_check_rel(run.ckpt_write_bytes_per_s, 2e12, EXACT, "B/s", "Tectonic");
  ck_assert(isnan(run.pue) && isnan(run.restart_s) && isnan(run.ckpt_bytes));
  /* a chip without [power]: unknown, not defaulted */
  scale_chip v5e;
  ck_assert_int_eq(scale_chip_load("tpu-v5e", &v5e, &diag), SCALE_OK);
  ck_assert(isnan(scale_energy_run_of(&v5e, 8, 1, NULL).chip_w));
  ck_assert(isnan(scale_energy_run_of(&v5e, 8, 1, NULL).rate_per_chip_hour));
}
END_TEST

static Suite *energy_suite(void) {
  Suite *s = suite_create("energy");
  const scale_check_case cases[] = {
      {"energy_arithmetic", energy_arithmetic}, {"llama3_rate", llama3_rate},
      {"young_daly", young_daly},               {"goodput", goodput},
      {"run_eval", run_eval},                   {"source_file", source_file},
      {"run_of_chip", run_of_chip},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(energy_suite()); }
