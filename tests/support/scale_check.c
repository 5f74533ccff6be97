/* scale_check.c — see scale_check.h. */
#include "scale_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool scale_check_close(double got, double expected, double rtol) {
  if (isnan(expected)) return isnan(got);
  if (isnan(got)) return false;
  if (expected == 0.0) return fabs(got) <= rtol;
  return fabs(got - expected) <= rtol * fabs(expected);
}

void scale_check_add_cases(Suite *suite, const scale_check_case *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    TCase *tc = tcase_create(cases[i].name);
    tcase_add_test(tc, cases[i].test);
    suite_add_tcase(suite, tc);
  }
}

void scale_check_add_slow_cases(Suite *suite, const scale_check_case *cases, size_t n,
                                double timeout_s) {
  for (size_t i = 0; i < n; i++) {
    TCase *tc = tcase_create(cases[i].name);
    tcase_set_tags(tc, "slow");
    tcase_set_timeout(tc, timeout_s);
    tcase_add_test(tc, cases[i].test);
    suite_add_tcase(suite, tc);
  }
}

scale_chip scale_check_chip(const char *name) {
  scale_chip chip;
  scale_diag diag;
  memset(&chip, 0, sizeof chip);
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_chip_load(name, &chip, &diag);
  char text[600];
  ck_assert_msg(st == SCALE_OK, "loading %s: %s", name,
                scale_diag_format(&diag, text, sizeof text));
  return chip;
}

scale_model scale_check_model(const char *name) {
  scale_model model;
  scale_diag diag;
  memset(&model, 0, sizeof model);
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_model_load(name, &model, &diag);
  char text[600];
  ck_assert_msg(st == SCALE_OK, "loading %s: %s", name,
                scale_diag_format(&diag, text, sizeof text));
  return model;
}

void scale_check_tmpdir(char *dir, size_t size, const char *pattern) {
  snprintf(dir, size, "%s", pattern);
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

void scale_check_rmdir(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", dir);
}

const char *scale_check_write(const char *dir, const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

int scale_check_run(Suite *suite) {
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_ENV);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
