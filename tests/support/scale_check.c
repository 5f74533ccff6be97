/* scale_check.c — see scale_check.h. */
#include "scale_check.h"

#include <math.h>
#include <stdlib.h>

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

int scale_check_run(Suite *suite) {
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
