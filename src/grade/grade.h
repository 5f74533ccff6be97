/* grade.h — the grader behind `scale grade`: build a student's exercises against the grading
 * suites, run them, and turn Check's results and the rubric into a score report; or do it for
 * every student of a class, in parallel.
 *
 * Flow (DESIGN.md "Exercises and grading"): read tests/rubric.tsv (the only place points live);
 * configure and build, once, a harness tree of tests/grading without any student's code (cmake
 * -S SOURCE/tests/grading -B BUILD/harness -DSCALE_GRADING_HARNESS_ONLY=ON: the suites and the
 * reference solutions as objects, and per chapter a recipe saying how to compile and link a
 * student's file against them). Then, per student, in the student's own build tree: compile
 * each chapter's file and link it with the chapter's harness objects, so a chapter that does not
 * compile costs only its rows (verdict BUILD with the compiler's first error line); run each
 * executable with Check's XML log (CK_XML_LOG_FILE_NAME), every exercise in its own process with
 * its own timeout; map each test case to a verdict: OK, PARTIAL (some points), FAIL (Check's
 * message: call, got, expected, unit, source, a hint for a factor of 2 or 1000), NOT ANSWERED
 * (the function's body still the stub's), CRASH (the signal), TIMEOUT, BUILD. A class shares the
 * harness: each student costs only the compiles and links of their own files.
 *
 * Untrusted code is the normal case. Every process that touches a student's code (compiler,
 * linker, grading run) runs under the strongest sandbox the machine allows (sandbox.h), probed
 * once per run:
 *   namespaces  own user, mount, PID, network, IPC and UTS namespaces and root; seccomp;
 *               rlimits (a root grader: a uid of the student's own)
 *   landlock    no user namespaces (a Docker-style container, a kernel that refuses them):
 *               Landlock (files, TCP, signals), seccomp without sockets, rlimits; a root
 *               grader gives each student a uid of their own (and kills by it); an
 *               unprivileged one shares its uid: one student at a time, NPROC what runs plus
 *               the student's share
 *   none        only with --no-sandbox: rlimits and a process group
 * Where neither sandbox works, grading refuses to start (one line) unless --no-sandbox; a class
 * never runs without one. The mode in effect is printed even under --quiet when it is not
 * "namespaces", and written into every report (the "isolation" of the JSON reports and of
 * results.json, a JUnit property, the last CSV column). A student process never outlives its
 * step: the namespace ends with it, or the grader (their subreaper) kills every orphan.
 * SCALE_GRADE_NO_USERNS=1 (and SCALE_GRADE_NO_LANDLOCK=1) skip a mode, to test the others.
 *
 * A student's bytes (compiler messages, folder names) reach no report raw: the JSON and the
 * JUnit XML are valid UTF-8 whatever the bytes (each one that is not UTF-8 becomes U+FFFD),
 * control characters are escaped on the terminal ("\x1b", "\n"), a CSV cell that a
 * spreadsheet would run as a formula is quoted as text, and a student folder whose name holds
 * control characters or bytes that are not UTF-8 is refused (not graded, named escaped).
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
  SCALE_GRADE_OK = 0,       /**< every check passed: full points */
  SCALE_GRADE_FAIL,         /**< a check failed: the output says which call, got and expected */
  SCALE_GRADE_CRASH,        /**< the exercise's process died (signal) or exited early */
  SCALE_GRADE_TIMEOUT,      /**< the exercise ran past its time limit */
  SCALE_GRADE_BUILD,        /**< its chapter did not compile or link, or its file is missing */
  SCALE_GRADE_PARTIAL,      /**< a check failed but some points were earned (domain part, credit) */
  SCALE_GRADE_NOT_ANSWERED, /**< the exercise's body is still the stub's (returns NaN/none) */
  SCALE_GRADE_N_VERDICTS    /**< not a verdict: the number of them */
} scale_grade_verdict;

/** Static name of a verdict ("OK", "PARTIAL", "FAIL", "NOT ANSWERED", "CRASH", "TIMEOUT",
 * "BUILD"). */
const char *scale_grade_verdict_str(scale_grade_verdict verdict);

/** One row of the rubric and, after grading, its result. */
typedef struct {
  char id[128];         /**< exercise id, "rooflines.critical_batch_int8" */
  char chapter[64];     /**< chapter folder, "01-rooflines" */
  double points;        /**< points the exercise is worth (value and domain parts together) */
  double domain_points; /**< of which for its domain checks (rubric "V+D"; 0 if none): what a
                             right formula without the contract's NaN checks forgoes */
  char title[192];      /**< one-line title */
  scale_grade_verdict verdict; /**< result (SCALE_GRADE_BUILD until graded) */
  double score;      /**< points earned: all, the value part (only domain checks failed), or 0 */
  char output[1024]; /**< detail: failure message, signal, first compiler error; "" for OK */
} scale_grade_row;

/** A rubric, or a graded report: rows in rubric order. */
typedef struct {
  scale_grade_row *rows; /**< owned; free with scale_grade_report_free() */
  size_t n_rows;
  char isolation[256]; /**< after grading: the isolation the student's code ran under, in
                            words (no commas), e.g. "namespaces (user mount pid net ipc uts);
                            own root; seccomp; rlimits; own uid per student"; "" before */
} scale_grade_report;

/** Reads 'path' (tab-separated id, chapter, points, title; '#' comments and blank lines
 * skipped) into 'out', its rows in chapter order (rubric order within a chapter). Points are "V" or
 * "V+D": D of them for the exercise's domain checks.
 *
 * Errors: SCALE_ERR_IO (cannot read), SCALE_ERR_PARSE (a malformed row, with its line),
 *         SCALE_ERR_DUPLICATE_KEY (an id twice), SCALE_ERR_NOMEM.
 * Owns:   out->rows is allocated; release with scale_grade_report_free().
 */
scale_status scale_grade_rubric_load(const char *path, scale_grade_report *out, scale_diag *diag);

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
  int jobs;                  /**< parallel jobs (harness compiles; students of a class);
                                  <= 0 means the number of online cores */
  FILE *log;                 /**< progress lines ("compiling 01-rooflines"), or NULL */
  double memory_bytes;       /**< RLIMIT_AS of a grading run's processes; <= 0 means 1 GiB
                                  (compiles get at least 2 GiB) */
  double output_bytes;       /**< RLIMIT_FSIZE of a student's processes; <= 0 means 64 MiB */
  double compile_timeout_s;  /**< wall-clock and CPU limit of one compile or link; <= 0: 60 s */
  int no_namespaces;         /**< nonzero (--no-sandbox): no sandbox at all (limits only) */
  FILE *warn;                /**< where a warning that isolation is degraded goes even when
                                  'log' is NULL (--quiet): stderr; NULL: to 'log' only */
  int withhold_answers;      /**< nonzero: no message names an expected value or the best
                                  choice of a decision (a class, Gradescope) */
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

/** One student of a class: the folder name and the graded report. */
typedef struct {
  char name[256];            /**< the student's folder under the class folder */
  scale_grade_report report; /**< rows in rubric order; owned */
  int graded;                /**< 0 when the grader itself failed for this student */
  char error[512];           /**< why, when graded is 0 */
} scale_grade_student;

/** A graded class. */
typedef struct {
  scale_grade_student *students; /**< sorted by name; owned: free with scale_grade_class_free() */
  size_t n_students;
  char isolation[256]; /**< as scale_grade_report's: the same for every student */
} scale_grade_class;

/** Grades every student folder of 'class_dir' (each subfolder not starting with '.', holding
 * NN-slug/slug_ex.c files) on the rows of 'rubric' (loaded and selected by the caller), with
 * options->jobs students at a time, each in its own worker process and build tree, all sharing
 * one harness. options->exercises_dir is not used. A folder whose name holds control
 * characters or bytes that are not UTF-8 is not graded: its name is kept escaped
 * ("new\nline") and its error says why.
 *
 * Errors: SCALE_ERR_NOT_FOUND (no class folder, no student in it, no grading sources),
 *         SCALE_ERR_IO (the harness cannot be configured or built), SCALE_ERR_NOMEM. One
 *         student's compile error, crash or timeout is a verdict of that student only.
 * Owns:   out->students is allocated; release with scale_grade_class_free().
 */
scale_status scale_grade_class_run(const scale_grade_options *options, const char *class_dir,
                                   const scale_grade_report *rubric, scale_grade_class *out,
                                   scale_diag *diag);

/** Releases a class; a zeroed or already freed one is fine. */
void scale_grade_class_free(scale_grade_class *cls);

/** Prints the isolation line, one summary line per student (total and verdict counts), the
 * first few exercises that did not pass with their detail, and the class mean. */
void scale_grade_class_print(const scale_grade_class *cls, FILE *out);

/** Writes the class as CSV: a header "student", the exercise ids in rubric order, the chapter
 * folders, "total", "isolation"; then one row per student with the points earned (cells
 * empty for a student the grader failed on) and the isolation of the run. No timings: the
 * same work gives the same file. A cell starting with =, +, -, @, a tab or a carriage return
 * is quoted with a leading apostrophe (text, not a formula).
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_class_write_csv(const scale_grade_class *cls, const char *path,
                                         scale_diag *diag);

/** Writes the class as a gradebook for an LMS import (Canvas, Moodle, Blackboard): a header
 * "student,total" and the chapter folders, a "Points Possible" row, then per student the total
 * and the chapter subtotals (cells empty for a student the grader failed on).
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_class_write_gradebook(const scale_grade_class *cls, const char *path,
                                               scale_diag *diag);

/** Writes the class as JSON: {"students": [{"student" (the name), "graded", "error", then the
 * fields of scale_grade_write_json()}]}.
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_class_write_json(const scale_grade_class *cls, const char *path,
                                          scale_diag *diag);

/** Points earned and points possible over the rows of 'report' whose chapter is 'chapter'
 * (NULL: every row). */
void scale_grade_totals(const scale_grade_report *report, const char *chapter, double *score,
                        double *max_score);

/** Prints the isolation line, one verdict line per exercise (a chapter's compile error once, on
 * its first row), a subtotal per chapter and the total line (last). Points are shown to 0.01. */
void scale_grade_print(const scale_grade_report *report, FILE *out);

/** The total line of scale_grade_print() ("total 1.51/239 (...)"), without its newline. */
void scale_grade_total_line(const scale_grade_report *report, char *out, size_t size);

/** 'points' rounded to 0.01 without trailing zeros ("1.51", "3", "0.5") into 'out'. */
void scale_grade_points_str(double points, char *out, size_t size);

/** Writes the report as Gradescope-shaped JSON: {"score", "max_score", "tests": [{"name" (the
 * id), "score", "max_score", "status" (the verdict), "output", "chapter", "title"}],
 * "chapters": [...]}.
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_write_json(const scale_grade_report *report, const char *path,
                                    scale_diag *diag);

/** Writes the report as Gradescope's results.json: {"score", "visibility": "visible",
 * "stdout_visibility": "hidden", "tests": [{"name" (the id), "number" (the chapter), "score",
 * "max_score", "status" ("passed" for OK, else "failed"), "output" (the verdict and its detail),
 * "visibility": "visible"}]}; no leaderboard.
 *
 * Errors: SCALE_ERR_IO when 'path' cannot be written.
 */
scale_status scale_grade_write_gradescope(const scale_grade_report *report, const char *path,
                                          scale_diag *diag);

/** Writes a Gradescope autograder into the new folder 'out_dir': a copy of the source tree
 * 'source_dir' (without .git, build trees, hidden files and solutions/: the stored answers
 * grade, and students' code runs in the same container), 'setup.sh' (installs the Debian
 * packages of .ci/packages that the build needs and builds `scale`) and 'run_autograder'
 * (gathers the submission's *_ex.c files into their chapter folders, grades them, writes
 * /autograder/results/results.json). Zip the folder's contents and upload them.
 *
 * Errors: SCALE_ERR_IO (out_dir exists or cannot be written, a file cannot be copied),
 *         SCALE_ERR_NOT_FOUND (source_dir is not a scale source tree).
 */
scale_status scale_grade_package_gradescope(const char *source_dir, const char *out_dir,
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
