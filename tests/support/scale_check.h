/* scale_check.h — helpers shared by the Check suites of tests/.
 *
 * Every numeric comparison goes through scale_check_rel(): a relative tolerance, and on failure
 * a message with got, expected, unit and the source of the expected value.
 */
#ifndef SCALE_CHECK_H
#define SCALE_CHECK_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "scale.h"

/** Whether |got - expected| <= rtol * |expected| (or both are zero, or both NaN). */
bool scale_check_close(double got, double expected, double rtol);

/** Asserts that 'got' is within relative tolerance 'rtol' of 'expected'; 'unit' and 'source'
 * (where the expected value comes from) are printed on failure. */
#define scale_check_rel(got, expected, rtol, unit, source)                                      \
  do {                                                                                        \
    double got_ = (got), exp_ = (expected);                                                   \
    ck_assert_msg(scale_check_close(got_, exp_, (rtol)),                                      \
                  "%s: got %.6g %s, expected %.6g %s (rtol %g; %s)", #got, got_, (unit),      \
                  exp_, (unit), (double)(rtol), (source));                                    \
  } while (0)

/** Asserts that 'got' is NaN (a function called outside its domain). */
#define scale_check_nan(got)                                                                  \
  do {                                                                                        \
    double got_ = (got);                                                                      \
    ck_assert_msg(got_ != got_, "%s: expected NaN, got %.6g", #got, got_);                    \
  } while (0)

/** One test case of a suite: its name (the TCase) and its test. */
typedef struct {
  const char *name;
  const TTest *test;
} scale_check_case;

/** Adds each of cases[0..n) to 'suite' as a TCase of its own (one behaviour each). */
void scale_check_add_cases(Suite *suite, const scale_check_case *cases, size_t n);

/** Adds each of cases[0..n) like scale_check_add_cases(), tagged "slow" and with Check's
 * timeout 'timeout_s': the slow tier (refits). A suite that has them is two CTest tests,
 * lib.MODULE without them (CK_EXCLUDE_TAGS=slow) and lib.MODULE.slow (CK_INCLUDE_TAGS=slow,
 * label slow); tests/CMakeLists.txt finds them by this function's name in the source. */
void scale_check_add_slow_cases(Suite *suite, const scale_check_case *cases, size_t n,
                                double timeout_s);

/** Loads hardware 'name' (a file stem or a path); a failure fails the test, naming the file and
 * the loader's diagnostic. */
scale_chip scale_check_chip(const char *name);

/** Loads model 'name' like scale_check_chip(). */
scale_model scale_check_model(const char *name);

/** Makes a fresh folder from mkdtemp() 'pattern' ("/tmp/scale-test-hw-XXXXXX") into
 * dir[size], or fails the test. */
void scale_check_tmpdir(char *dir, size_t size, const char *pattern);

/** Removes folder 'dir' and everything in it (a line on stderr when it cannot). */
void scale_check_rmdir(const char *dir);

/** Writes 'text' to DIR/NAME, or fails the test; returns the path (static storage: the next
 * call overwrites it). */
const char *scale_check_write(const char *dir, const char *name, const char *text);

/** Runs 'suite' with Check's default (fork) mode, printing as CK_VERBOSITY says (normal
 * without it; CTest sets verbose: a line per test as it ends); returns the exit status. */
int scale_check_run(Suite *suite);

#endif
