/* grade.c — `scale grade [options] [ID-or-chapter ...]`: grade a folder of exercises, or with
 * --class a folder of students' folders.
 *
 * Builds the student's folder against tests/grading in a private build tree, runs every exercise
 * in its own process with a time limit, and prints one verdict line per exercise (OK, PARTIAL,
 * FAIL, NOT ANSWERED, CRASH, TIMEOUT, BUILD), chapter subtotals and the total; --json writes a Gradescope-shaped
 * report, --junit a JUnit XML one. With --class DIR it grades every DIR/NAME/ in parallel
 * (--jobs students at a time, one shared harness), prints a summary line per student and writes
 * --csv (scores per student and exercise) and --json. Exit status: 0 whenever grading ran,
 * whatever the score; 2 for a usage error or when the harness itself could not run (no cmake, no
 * grading sources).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grade.h"

static void usage(FILE *out) {
  fprintf(
      out,
      "usage: scale grade [options] [ID-or-chapter ...]\n"
      "       scale grade --class DIR [--jobs N] [--csv FILE] [--json FILE] [ID-or-chapter ...]\n"
      "       scale grade --gradescope DIR\n\n"
      "Grade a folder of exercises (exercises/ stubs, a student's copy, or solutions/), or\n"
      "with --class every student folder DIR/NAME/ of a class, N students at a time.\n"
      "Select exercises by id (rooflines.critical_batch_int8), chapter (01-rooflines),\n"
      "slug (rooflines) or number (01); default: every exercise of tests/rubric.tsv.\n\n"
      "options:\n"
      "  --exercises DIR  the folder to grade (default: SOURCE/exercises)\n"
      "  --class DIR      grade every folder DIR/NAME/ (a student's NN-slug/ folders)\n"
      "  --csv FILE       with --class: scores per student and exercise, chapter\n"
      "                   subtotals and the total, one row per student\n"
      "  --gradebook FILE with --class: an LMS gradebook import (student, total, chapter\n"
      "                   subtotals, a Points Possible row)\n"
      "  --json FILE      write a Gradescope-shaped JSON report (with --class: one per\n"
      "                   student under \"students\")\n"
      "  --junit FILE     write a JUnit XML report\n"
      "  --results FILE   write Gradescope's results.json\n"
      "  --gradescope DIR write a Gradescope autograder into the new folder DIR (setup.sh,\n"
      "                   run_autograder, the source tree without solutions/)\n"
      "  --source DIR     the scale source tree (default: $SCALE_SOURCE_DIR, else the one\n"
      "                   this program was built from)\n"
      "  --build-dir DIR  build there and keep it: a new or empty folder, or one of an\n"
      "                   earlier run (its students graded afresh; default: a temporary\n"
      "                   folder, removed)\n"
      "  --timeout S      time limit of each exercise in seconds (default 5)\n"
      "  --jobs N         parallel jobs: students of a class, harness compiles\n"
      "                   (default: the number of cores)\n"
      "  --memory BYTES   address-space limit of a student's grading run (default 1 GiB)\n"
      "  --no-sandbox     limits only, no namespaces: for your own code, never for a\n"
      "                   class (refused with --class)\n"
      "  --withhold-answers  no expected value or best layout in any message (the\n"
      "                   default with --class and in the Gradescope autograder)\n"
      "  --show-answers   messages give the expected values and best layouts (the\n"
      "                   default for one student's folder)\n"
      "  --score-line FILE  write the total line (the score) to FILE too\n"
      "  --quiet          no progress lines on stderr\n"
      "  -h, --help       this help\n\n"
      "Verdicts: OK (full points), PARTIAL (some points: the value right but not the\n"
      "domain checks, or a decision's share), FAIL (a check failed: the call, got,\n"
      "expected, a hint for a unit or factor-of-2 slip; or the exercise exited before\n"
      "returning), NOT ANSWERED (the stub's body unchanged), CRASH (a signal), TIMEOUT,\n"
      "BUILD (the chapter did not compile: its first error, once). Points to 0.01.\n"
      "The checks and the answers stay in the grader: a student's functions run in a process\n"
      "of their own and only the values they return count. Student files are copied (links\n"
      "not followed) into a fresh tree; compiler, linker and exercises run in the strongest\n"
      "sandbox this machine allows: own user, mount, PID and network namespaces (an\n"
      "unprivileged uid, seccomp); else, without user namespaces (Docker, Gradescope),\n"
      "Landlock (only the system folders and its own files; no network, no signal out),\n"
      "seccomp and, as root, a uid of each student's own. Either way CPU, memory, file-size,\n"
      "process-count and wall-clock limits. Where neither works grading refuses (--no-sandbox\n"
      "for your own code). The isolation used is printed (a warning when it is not\n"
      "namespaces, even with --quiet) and written into every report.\n"
      "Exit status 0 whenever grading ran, 2 when it could not.\n");
}

enum {
  OPT_EXERCISES = 256,
  OPT_JSON,
  OPT_JUNIT,
  OPT_SOURCE,
  OPT_BUILD_DIR,
  OPT_TIMEOUT,
  OPT_JOBS,
  OPT_QUIET,
  OPT_CLASS,
  OPT_CSV,
  OPT_MEMORY,
  OPT_NO_SANDBOX,
  OPT_GRADESCOPE,
  OPT_RESULTS,
  OPT_GRADEBOOK,
  OPT_WITHHOLD,
  OPT_SHOW,
  OPT_SCORE_LINE
};

static const struct option options[] = {
    {"exercises", required_argument, NULL, OPT_EXERCISES},
    {"json", required_argument, NULL, OPT_JSON},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"source", required_argument, NULL, OPT_SOURCE},
    {"build-dir", required_argument, NULL, OPT_BUILD_DIR},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"class", required_argument, NULL, OPT_CLASS},
    {"csv", required_argument, NULL, OPT_CSV},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"no-sandbox", no_argument, NULL, OPT_NO_SANDBOX},
    {"gradescope", required_argument, NULL, OPT_GRADESCOPE},
    {"results", required_argument, NULL, OPT_RESULTS},
    {"gradebook", required_argument, NULL, OPT_GRADEBOOK},
    {"withhold-answers", no_argument, NULL, OPT_WITHHOLD},
    {"show-answers", no_argument, NULL, OPT_SHOW},
    {"score-line", required_argument, NULL, OPT_SCORE_LINE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options of `scale grade`. */
typedef struct {
  const char *exercises, *build_dir, *class_dir, *source; /* folders (NULL: the default) */
  const char *json, *junit, *csv, *gradebook, *results;   /* reports to write (NULL: none) */
  const char *gradescope; /* --gradescope DIR: write an autograder instead of grading */
  const char *score_line; /* --score-line FILE: the total line written there too */
  double timeout_s, jobs, memory_bytes;
  int quiet, no_sandbox;
  int answers; /* -1 --withhold-answers, +1 --show-answers, 0 the mode's default */
  bool help; /* --help: usage printed, exit 0 */
} grade_opts;

/* Takes one getopt_long result 'c' into 'o': 0 or a usage error. */
static int take(int c, const char *arg, grade_opts *o, char **argv) {
  switch (c) {
  case OPT_EXERCISES: o->exercises = arg; break;
  case OPT_JSON: o->json = arg; break;
  case OPT_JUNIT: o->junit = arg; break;
  case OPT_SOURCE: o->source = arg; break;
  case OPT_BUILD_DIR: o->build_dir = arg; break;
  case OPT_TIMEOUT:
    if (!cli_parse_number("timeout", arg, 0, &o->timeout_s)) return CLI_EXIT_USAGE;
    if (!(o->timeout_s > 0.0 && o->timeout_s <= 3600.0))
      return cli_usage("grade: --timeout must be between 0 and 3600 seconds");
    break;
  case OPT_JOBS:
    if (!cli_parse_number("jobs", arg, 0, &o->jobs)) return CLI_EXIT_USAGE;
    if (!(o->jobs >= 1.0 && o->jobs <= 256.0) || o->jobs != (double)(int)o->jobs)
      return cli_usage("grade: --jobs must be a whole number from 1 to 256");
    break;
  case OPT_QUIET: o->quiet = 1; break;
  case OPT_CLASS: o->class_dir = arg; break;
  case OPT_CSV: o->csv = arg; break;
  case OPT_MEMORY:
    if (!cli_parse_number("memory", arg, 0, &o->memory_bytes)) return CLI_EXIT_USAGE;
    if (!(o->memory_bytes >= 64e6 && o->memory_bytes <= 1e12))
      return cli_usage("grade: --memory must be between 6.4e7 and 1e12 bytes");
    break;
  case OPT_NO_SANDBOX: o->no_sandbox = 1; break;
  case OPT_GRADESCOPE: o->gradescope = arg; break;
  case OPT_RESULTS: o->results = arg; break;
  case OPT_GRADEBOOK: o->gradebook = arg; break;
  case OPT_WITHHOLD: o->answers = -1; break;
  case OPT_SHOW: o->answers = +1; break;
  case OPT_SCORE_LINE: o->score_line = arg; break;
  case 'h': o->help = true; break;
  default: return cli_bad_option("grade", argv);
  }
  return CLI_EXIT_OK;
}

/* Reads the command line into 'o' (the selectors stay at argv + optind): 0 or a usage error. */
static int parse(int argc, char **argv, grade_opts *o) {
  memset(o, 0, sizeof *o);
  o->source = getenv("SCALE_SOURCE_DIR");
  if (!o->source || !*o->source) o->source = SCALE_GRADE_SOURCE_DIR;
  o->timeout_s = 5.0;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    int rc = take(c, optarg, o, argv);
    if (rc || o->help) return rc;
  }
  return CLI_EXIT_OK;
}

/* --gradescope DIR: the autograder written, or a failure reported. */
static int package_gradescope(const grade_opts *o, int argc) {
  if (o->class_dir || o->exercises || o->json || o->junit || o->csv || o->results || optind < argc)
    return cli_usage("grade: --gradescope DIR writes an autograder; it takes only --source");
  scale_diag diag;
  if (scale_grade_package_gradescope(o->source, o->gradescope, &diag)) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  printf("%s: setup.sh, run_autograder and the source tree (no solutions/); zip the folder's "
         "contents and upload them as the autograder\n",
         o->gradescope);
  return CLI_EXIT_OK;
}

/* The options that only one student or only a class takes: 0 or a usage error. */
static int check_mode(const grade_opts *o) {
  if (o->results && o->class_dir) return cli_usage("grade: --results is for one student");
  if (o->class_dir && (o->exercises || o->junit))
    return cli_usage("grade: --class grades every student folder; --exercises and --junit are "
                     "for one student");
  if (o->csv && !o->class_dir) return cli_usage("grade: --csv needs --class");
  if (o->gradebook && !o->class_dir) return cli_usage("grade: --gradebook needs --class");
  if (o->score_line && o->class_dir) return cli_usage("grade: --score-line is for one student");
  if (o->class_dir && o->no_sandbox)
    return cli_usage("grade: --class is graded only in the sandbox (one student's code could "
                     "change another's score without it); drop --no-sandbox");
  return CLI_EXIT_OK;
}

/* Loads the rubric of the source tree and keeps the rows that 'selectors' name (all when
 * none): 0, or a usage error reported (the report then holds nothing to free). */
static int load_rubric(const char *source, char **selectors, size_t n_selectors,
                       scale_grade_report *report) {
  char rubric_path[4096];
  snprintf(rubric_path, sizeof rubric_path, "%s/tests/rubric.tsv", source);
  scale_diag diag;
  if (scale_grade_rubric_load(rubric_path, report, &diag)) {
    cli_print_diag(&diag);
    return CLI_EXIT_USAGE;
  }
  if (scale_grade_select(report, (const char *const *)selectors, n_selectors, &diag)) {
    scale_grade_report_free(report);
    return cli_usage("grade: %s (see tests/rubric.tsv)", diag.message);
  }
  return CLI_EXIT_OK;
}

/* Reports a failed write (its diagnostic) and turns 'code' into a usage error. */
static void note_write(scale_status st, const scale_diag *diag, int *code) {
  if (!st) return;
  cli_print_diag(diag);
  *code = CLI_EXIT_USAGE;
}

/* --class: every student graded, the summary printed and the class's reports written. Frees
 * 'report'. */
static int grade_class(const grade_opts *o, const scale_grade_options *run,
                       scale_grade_report *report) {
  scale_grade_class cls;
  scale_diag diag;
  scale_status st = scale_grade_class_run(run, o->class_dir, report, &cls, &diag);
  scale_grade_report_free(report);
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_USAGE;
  }
  scale_grade_class_print(&cls, stdout);
  int code = CLI_EXIT_OK;
  if (o->csv) note_write(scale_grade_class_write_csv(&cls, o->csv, &diag), &diag, &code);
  if (o->gradebook)
    note_write(scale_grade_class_write_gradebook(&cls, o->gradebook, &diag), &diag, &code);
  if (o->json) note_write(scale_grade_class_write_json(&cls, o->json, &diag), &diag, &code);
  scale_grade_class_free(&cls);
  return code;
}

/* --score-line FILE: the total line, for a script or the grade workflow's last line. */
static scale_status write_score_line(const scale_grade_report *report, const char *path,
                                     scale_diag *diag) {
  char line[512];
  scale_grade_total_line(report, line, sizeof line);
  FILE *out = fopen(path, "w");
  if (!out || fprintf(out, "score: %s\n", line) < 0 || fclose(out) != 0) {
    if (out) fclose(out);
    return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot write the score line");
  }
  return SCALE_OK;
}

/* One student's folder graded, the verdicts printed and the reports written. Frees 'report'. */
static int grade_one(const grade_opts *o, const scale_grade_options *run,
                     scale_grade_report *report) {
  scale_diag diag;
  if (scale_grade_run(run, report, &diag)) {
    cli_print_diag(&diag);
    scale_grade_report_free(report);
    return CLI_EXIT_USAGE;
  }
  scale_grade_print(report, stdout);
  int code = CLI_EXIT_OK;
  if (o->score_line) note_write(write_score_line(report, o->score_line, &diag), &diag, &code);
  if (o->json) note_write(scale_grade_write_json(report, o->json, &diag), &diag, &code);
  if (o->junit) note_write(scale_grade_write_junit(report, o->junit, &diag), &diag, &code);
  if (o->results)
    note_write(scale_grade_write_gradescope(report, o->results, &diag), &diag, &code);
  scale_grade_report_free(report);
  return code;
}

int cli_cmd_grade(int argc, char **argv) {
  grade_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (o.gradescope) return package_gradescope(&o, argc);
  if ((rc = check_mode(&o))) return rc;
  scale_grade_report report;
  if ((rc = load_rubric(o.source, argv + optind, (size_t)(argc - optind), &report))) return rc;

  char default_exercises[4096];
  snprintf(default_exercises, sizeof default_exercises, "%s/exercises", o.source);
  const char *cmake = getenv("SCALE_CMAKE");
  scale_grade_options run = {
      .source_dir = o.source,
      .exercises_dir = o.exercises ? o.exercises : default_exercises,
      .build_dir = o.build_dir,
      .cmake = cmake && *cmake ? cmake : SCALE_GRADE_CMAKE,
      .timeout_s = o.timeout_s,
      .jobs = (int)o.jobs,
      .log = o.quiet ? NULL : stderr,
      .memory_bytes = o.memory_bytes,
      .no_namespaces = o.no_sandbox,
      .warn = stderr, /* a degraded sandbox is said even under --quiet */
      /* A class shares answers between students: withheld unless asked for. */
      .withhold_answers = o.answers < 0 || (o.answers == 0 && o.class_dir),
  };
  return o.class_dir ? grade_class(&o, &run, &report) : grade_one(&o, &run, &report);
}
