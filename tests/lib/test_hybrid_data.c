/* test_hybrid_data.c — evidence for measurements/hybrid/: Amer et al. (arXiv 2602.09109)
 * Tables 11, 13 and 14 as ranking groups, and paper-columns.txt (throughput, memory, MFU of
 * Tables 10-14).
 *
 * Row counts against the paper (18, 13 of 18 printed, 19), every row's step time x printed
 * throughput = 4,194,304 tokens (1024 x 4096) within the printed rounding (3 significant
 * digits of throughput: at most 0.55% at 9.1K tok/s, so 1%), and the best and worst layouts of
 * each table as the paper's Table 15 names them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/hybrid_study.h"
#include "scale/measurements.h"
#include "scale/model.h"
#include "scale_check.h"

#define CAP 64

/* Tokens in one of the paper's steps: global batch 1024 x sequence 4096 = 4,194,304. */
#define STEP_TOKENS (1024.0 * 4096.0)

static int load(const char *file, scale_measurement *rows) {
  char path[4096];
  snprintf(path, sizeof path, "%s/hybrid/%s", scale_measurements_dir(), file);
  int n = 0;
  scale_diag d;
  ck_assert_msg(scale_measurements_load_file(path, rows, CAP, &n, &d) == SCALE_OK, "%s:%d: %s",
                d.file, d.line, d.message);
  return n;
}

/** tokens_per_s of row 'id' from paper-columns.txt (the library's strict reader); NaN if
 * absent. */
static double throughput(const char *id) {
  static scale_hybrid_paper_row rows[128];
  char path[4096];
  snprintf(path, sizeof path, "%s/hybrid/paper-columns.txt", scale_measurements_dir());
  int n = 0;
  scale_diag d;
  ck_assert_msg(scale_hybrid_study_paper_load(path, rows, 128, &n, &d) == SCALE_OK, "%s:%d: %s",
                d.file, d.line, d.message);
  int k = scale_hybrid_study_paper_find(rows, n, id);
  return k >= 0 ? rows[k].tokens_per_s : (double)NAN;
}

static void check_table(const char *file, int n_expected, const char *best, const char *worst) {
  static scale_measurement rows[CAP];
  int n = load(file, rows);
  ck_assert_int_eq(n, n_expected);
  int ib = 0, iw = 0;
  for (int i = 0; i < n; i++) {
    ck_assert(rows[i].ranking);
    ck_assert_str_eq(rows[i].group, rows[0].group);
    scale_model m;
    scale_diag d;
    ck_assert_msg(scale_model_load(rows[i].model, &m, &d) == SCALE_OK, "%s", d.message);
    double tps = throughput(rows[i].id);
    scale_check_rel(rows[i].measured * tps, STEP_TOKENS, 0.01, "tokens", rows[i].id);
    if (rows[i].measured < rows[ib].measured) ib = i;
    if (rows[i].measured > rows[iw].measured) iw = i;
  }
  char got[64];
  snprintf(got, sizeof got, "%g,%g,%g,%g", rows[ib].dp, rows[ib].pp, rows[ib].tp, rows[ib].cp);
  ck_assert_str_eq(got, best);
  snprintf(got, sizeof got, "%g,%g,%g,%g", rows[iw].dp, rows[iw].pp, rows[iw].tp, rows[iw].cp);
  ck_assert_str_eq(got, worst);
}

/* Table 15: best and worst (DP,PP,TP,CP) per model */
START_TEST(test_table11) { check_table("hybrid-910b-table11.tsv", 18, "8,1,1,1", "1,1,4,2"); }
END_TEST

START_TEST(test_table13) { check_table("hybrid-910b-table13.tsv", 13, "4,1,2,1", "1,1,1,8"); }
END_TEST

START_TEST(test_table14) { check_table("hybrid-910b-table14.tsv", 19, "8,1,1,1", "1,1,1,8"); }
END_TEST

START_TEST(test_table10_columns) {
  /* Table 10's throughput lives in paper-columns.txt beside the other engineer's step times:
   * H02 (4,2,1,1) 101.8 s x 41.2K = 4,194,160 */
  scale_check_rel(101.8 * throughput("H02"), STEP_TOKENS, 0.01, "tokens", "Table 10 best row");
  for (int i = 1; i <= 18; i++) {
    char id[16];
    snprintf(id, sizeof id, "H%02d", i);
    ck_assert_msg(isfinite(throughput(id)), "%s missing", id);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("hybrid_data");
  const scale_check_case cases[] = {{"table11", test_table11},
                                    {"table13", test_table13},
                                    {"table14", test_table14},
                                    {"table10_columns", test_table10_columns}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
