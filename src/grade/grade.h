/* grade.h — the grader behind `scale grade`: build a student's exercises against the grading
 * suites, run them, and turn Check's results and the rubric into a score report.
 *
 * Flow (DESIGN.md "Exercises and grading"): read tests/rubric.tsv (the only place points live);
 * configure a private build tree of tests/grading for the student's folder (cmake -S
 * SOURCE/tests/grading -B TMP -DSCALE_EXERCISES_DIR=DIR); build each chapter's executable on
 * its own, so a chapter that does not compile costs only its rows (verdict BUILD with the
 * compiler's first error line); run each executable under resource limits with Check's XML log
 * (CK_XML_LOG_FILE_NAME), every exercise in its own process with its own timeout; map each test
 * case to a verdict: OK, FAIL (Check's message: call, got, expected, unit, source), CRASH (the
 * signal), TIMEOUT, BUILD.
 *
 * The grader is a program-side module (like the CLI): it may print progress to a caller-given
 * stream and it spawns processes; it is not part of libscale.
 */
#ifndef SCALE_GRADE_H
#define SCALE_GRADE_H

#include <stddef.h>
#include <stdio.h>

#include "scale/status.h"

/** The verdict of one exercise. */
typedef enum {
  SCALE_GRADE_OK = 0, /**< every check passed: full points */
  SCALE_GRADE_FAIL,   /**< a check failed: the output says which call, got and expected */
  SCALE_GRADE_CRASH,  /**< the exercise's process died (signal) or exited early */
  SCALE_GRADE_TIMEOUT, /**< the exercise ran past its time limit */
  SCALE_GRADE_BUILD   /**< its chapter did not compile or link, or its file is missing */
} scale_grade_verdict;

/** Static name of a verdict ("OK", "FAIL", "CRASH", "TIMEOUT", "BUILD"). */
const char *scale_grade_verdict_str(scale_grade_verdict verdict);

/** One row of the rubric and, after grading, its result. */
typedef struct {
  char id[128];       /**< exercise id, "rooflines.critical_batch_int8" */
  char chapter[64];   /**< chapter folder, "01-rooflines" */
  double points;      /**< points the exercise is worth */
  char title[192];    /**< one-line title */
  scale_grade_verdict verdict; /**< result (SCALE_GRADE_BUILD until graded) */
  double score;       /**< points earned: all or nothing */
  char output[1024];  /**< detail: failure message, signal, first compiler error; "" for OK */
} scale_grade_row;

/** A rubric, or a graded report: rows in rubric order. */
typedef struct {
  scale_grade_row *rows; /**< owned; free with scale_grade_report_free() */
  size_t n_rows;
} scale_grade_report;

/** Reads 'path' (tab-separated id, chapter, points, title; '#' comments and blank lines
 * skipped) into 'out'.
 *
 * Errors: SCALE_ERR_IO (cannot read), SCALE_ERR_PARSE (a malformed row, with its line),
 *         SCALE_ERR_DUPLICATE_KEY (an id twice), SCALE_ERR_NOMEM.
 * Owns:   out->rows is allocated; release with scale_grade_report_free().
 */
scale_status scale_grade_rubric_load(const char *path, scale_grade_report *out,
                                     scale_diag *diag);

/** Keeps only the rows named by 'selectors': an exercise id, a chapter folder ("01-rooflines"),
 * its slug ("rooflines") or its number ("01"). No selectors keeps every row.
 *
 * Errors: SCALE_ERR_NOT_FOUND when a selector matches no row (named in diag->message).
 */
scale_status scale_grade_select(scale_grade_report *report, const char *const *selectors,
                                size_t n_selectors, scale_diag *diag);

/** What to grade and how. */
typedef struct {
  const char *source_dir;    /**< project root: tests/rubric.tsv, tests/grading/, exercises/ */
  const char *exercises_dir; /**< the student's folder of NN-slug/slug_ex.c files */
  const char *build_dir;     /**< NULL: a fresh temporary directory, removed afterwards */
  const char *cmake;         /**< the cmake program (NULL: "cmake" on PATH) */
  double timeout_s;          /**< per exercise; <= 0 means 5 s */
  int jobs;                  /**< parallel compile jobs; <= 0 means 2 */
  FILE *log;                 /**< progress lines ("building 01-rooflines"), or NULL */
} scale_grade_options;

/** Grades the rows of 'report' (loaded and selected by the caller) in place.
 *
 * Errors: SCALE_ERR_NOT_FOUND (exercises_dir or the grading sources missing), SCALE_ERR_IO
 *         (the build tree cannot be made, cmake cannot configure or run); the rows are then
 *         left ungraded. A student's compile error, crash or timeout is not an error: it is a
 *         verdict.
 */
scale_status scale_grade_run(const scale_grade_options *options, scale_grade_report *report,
                             scale_diag *diag);

/** Points earned and points possible over the rows of 'report' whose chapter is 'chapter'
 * (NULL: every row). */
void scale_grade_totals(const scale_grade_report *report, const char *chapter, double *score,
                        double *max_score);

/** Prints one verdict line per exercise, a subtotal per chapter and the total. */
void scale_grade_print(const scale_grade_report *report, FILE *out);

/** Writes the report as Gradescope-shaped JSON: {"score", "max_score", "tests": [{"name" (the
 * id), "score", "max_score", "status" (the verdict), "output", "chapter", "title"}],
 * "chapters": [...]}.
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_write_json(const scale_grade_report *report, const char *path,
                                    scale_diag *diag);

/** Writes the report as JUnit XML: one testsuite per chapter, one testcase per exercise; FAIL is
 * a <failure>, CRASH, TIMEOUT and BUILD are <error>s whose type is the verdict.
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_write_junit(const scale_grade_report *report, const char *path,
                                     scale_diag *diag);

/** Releases report->rows; a zeroed or already freed report is fine. */
void scale_grade_report_free(scale_grade_report *report);

#endif
