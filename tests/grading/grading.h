/* grading.h — the harness shared by the grading suites tests/grading/test_NN_slug.c.
 *
 * One Check TCase per exercise, named by the exercise id ("rooflines.critical_batch_int8").
 * Failure messages name the call with its inputs, what it returned, what was expected, the unit
 * and where the expected value comes from: `scale grade` shows them as the FAIL detail.
 *
 * Every case first checks the book's printed answers (or a hand derivation in a comment), then
 * the answers over a grid of inputs including domain edges, with GRADE_VS_REF: answers stored
 * with the tests (tests/grading/expected/, see grading_expected.c), recorded from the reference
 * solution of solutions/, linked under the names ref_* (see the generated grading_ref_SLUG.h)
 * when the build has it. A score never depends on whether solutions/ is present.
 *
 * The suite is the trusted "checker": it never links a student's code. Its ex_* calls go to the
 * student's own process over the grading channel (grading_channel.h), so that a student's exit,
 * crash or forged output can only cost that student's exercise. Under CTest each case runs in
 * its own forked process with its own server and timeout; under `scale grade` (which sets
 * SCALE_GRADE_REPORT_FD) one case runs per checker and its result goes to that fd.
 */
#ifndef SCALE_GRADING_H
#define SCALE_GRADING_H

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "grading_channel.h"

/** Relative tolerance of comparisons with the reference solution (same formula, other code). */
#define GRADE_REF_RTOL 1e-9

/** Per-exercise timeout when SCALE_GRADE_TIMEOUT_S is unset [s]. */
#define GRADE_DEFAULT_TIMEOUT_S 5.0

/* Whether 'got' matches 'expected': NaN matches NaN, an infinity matches the same infinity,
 * zero matches |got| <= rtol, anything else within rtol * |expected|. */
static inline int grade_close(double got, double expected, double rtol) {
  if (isnan(expected)) return isnan(got);
  if (isnan(got)) return 0;
  if (isinf(expected)) return got == expected;
  if (expected == 0.0) return fabs(got) <= rtol;
  return fabs(got - expected) <= rtol * fabs(expected);
}

/* Asserts grade_close(); 'call' is the call with its inputs, printf-style. */
static inline void grade_vcheck(double got, double expected, double rtol, const char *unit,
                                const char *source, const char *call_fmt, va_list args)
    __attribute__((format(printf, 6, 0)));

/* A case's checks are of two parts: its domain checks (the expected value is NaN: the input is
 * outside the contract's domain) and its value checks (all others). A failed check is recorded
 * and the case goes on, so that both parts are known; the case fails at its end (teardown) with
 * the first failure's message, and `scale grade` gives the value part's points when only domain
 * checks failed (rubric points "V+D"). Implemented in grading_expected.c. */
void grading_case_begin(void);
void grading_case_failed(int domain, const char *message);
void grading_case_end(void);
/* A decision case (grading_decision.h) earns 'credit' in [0, 1] of its value part; below 1 the
 * case fails with 'message' and `scale grade` gives that fraction of the value points (the
 * report's parts carry "credit=X"). */
void grading_case_credit(double credit, const char *message);

/* Whether messages leave out the expected values and best choices (`scale grade
 * --withhold-answers`, the default of a class and of Gradescope). */
static inline int grading_withhold_answers(void) {
  const char *v = getenv("SCALE_GRADE_WITHHOLD_ANSWERS");
  return v && v[0] == '1';
}

/* A hint for a wrong value that is a common slip away from the answer, "" if none: off by a
 * power of 1000 (a unit prefix) or by exactly 2 (forward only, one direction, a missing 2 in
 * 2ND), within the check's own rtol (at least 1e-3: a book value is rounded; at most 2e-2, so
 * that a loose check does not call any near miss a slip). It says what kind of slip, never
 * which way: it gives nothing away that the reader's own check would not. */
static inline const char *grade_hint(double got, double expected, double rtol) {
  if (!(isfinite(got) && isfinite(expected)) || got == 0.0 || expected == 0.0) return "";
  double ratio = fabs(got / expected), tol = fmin(fmax(rtol, 1e-3), 2e-2);
  if (fabs(ratio / 2.0 - 1.0) <= tol || fabs(ratio * 2.0 - 1.0) <= tol)
    return "; hint: a factor of 2: forward only? one direction? 2 FLOPs per multiply-add?";
  for (double p = 1e3; p <= 1e12; p *= 1e3)
    if (fabs(ratio / p - 1.0) <= tol || fabs(ratio * p - 1.0) <= tol)
      return "; hint: off by a power of 1000: a unit? check kilo/mega/giga";
  return "";
}

static inline void grade_vcheck(double got, double expected, double rtol, const char *unit,
                                const char *source, const char *call_fmt, va_list args) {
  if (grade_close(got, expected, rtol)) return;
  char call[512], message[1024];
  vsnprintf(call, sizeof call, call_fmt, args);
  const char *space = unit[0] ? " " : "";
  if (grading_withhold_answers())
    snprintf(message, sizeof message, "%s = %.9g%s%s, not the expected value (rtol %g)%s", call,
             got, space, unit, rtol, grade_hint(got, expected, rtol));
  else
    snprintf(message, sizeof message, "%s = %.9g%s%s, expected %.9g%s%s (rtol %g; %s)%s", call, got,
             space, unit, expected, space, unit, rtol, source, grade_hint(got, expected, rtol));
  grading_case_failed(isnan(expected), message);
}

static inline void grade_check(double got, double expected, double rtol, const char *unit,
                               const char *source, const char *call_fmt, ...)
    __attribute__((format(printf, 6, 7)));

static inline void grade_check(double got, double expected, double rtol, const char *unit,
                               const char *source, const char *call_fmt, ...) {
  va_list args;
  va_start(args, call_fmt);
  grade_vcheck(got, expected, rtol, unit, source, call_fmt, args);
  va_end(args);
}

/** Checks a student's call against the book or a hand derivation. */
#define GRADE_BOOK(got, expected, rtol, unit, source)                                              \
  grade_check((got), (expected), (rtol), (unit), (source), "%s", #got)

/* Stored answers (grading_expected.c). */
/** Whether this run records the reference's answers (SCALE_GRADE_RECORD=FILE). */
int grading_recording(void);
/** The expected value of the current case's next grid comparison: 'reference' when recording
 * (appended to the file), else the stored answer (a missing one fails the case). */
double grading_expected(double reference, const char **source);

static inline void grade_vs_stored(double got, double reference, const char *unit,
                                   const char *call_fmt, ...) __attribute__((format(printf, 4, 5)));

static inline void grade_vs_stored(double got, double reference, const char *unit,
                                   const char *call_fmt, ...) {
  const char *source = "";
  double expected = grading_expected(reference, &source);
  if (grading_recording()) return; /* the student's side does not matter while recording */
  va_list args;
  va_start(args, call_fmt);
  grade_vcheck(got, expected, GRADE_REF_RTOL, unit, source, call_fmt, args);
  va_end(args);
}

#ifdef GRADING_HAVE_REFERENCE
#define GRADE_REF_VALUE(ref) (grading_recording() ? (double)(ref) : 0.0)
#else
#define GRADE_REF_VALUE(ref) 0.0
#endif

/** Checks a student's call against the answer stored with the tests for the same inputs
 * (described by the printf-style arguments that follow); 'ref', the reference's call, is made
 * only when recording the stored answers. */
#define GRADE_VS_REF(got, ref, unit, ...)                                                          \
  grade_vs_stored((got), GRADE_REF_VALUE(ref), (unit), __VA_ARGS__)

/* The timeout of each exercise: SCALE_GRADE_TIMEOUT_S if set to a positive number. */
static inline double grade_timeout_s(void) {
  const char *text = getenv("SCALE_GRADE_TIMEOUT_S");
  if (text) {
    char *end = NULL;
    double value = strtod(text, &end);
    if (end != text && value > 0.0) return value;
  }
  return GRADE_DEFAULT_TIMEOUT_S;
}

/** Adds exercise 'id' to 'suite' as its own TCase holding 'test'. */
static inline void grade_add(Suite *suite, const char *id, const TTest *test) {
  TCase *tc = tcase_create(id);
  tcase_set_timeout(tc, grade_timeout_s());
  tcase_add_checked_fixture(tc, grading_case_begin, grading_case_end);
  tcase_add_test(tc, test);
  suite_add_tcase(suite, tc);
}

/** Runs 'suite'; returns the exit status of main(). Under `scale grade` (SCALE_GRADE_REPORT_FD
 * set): in this process (the server is the isolated one), results written to that fd. */
static inline int grade_run(Suite *suite) {
  SRunner *runner = srunner_create(suite);
  const char *report = getenv("SCALE_GRADE_REPORT_FD");
  int report_fd = report ? atoi(report) : -1;
  srunner_set_fork_status(runner, report_fd > 2 ? CK_NOFORK : CK_FORK);
  srunner_run_all(runner, report_fd > 2 ? CK_SILENT : CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  if (report_fd > 2) grading_report(runner, report_fd);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
