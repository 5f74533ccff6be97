/* grade.c — `scale grade [options] [ID-or-chapter ...]`: grade a folder of exercises, or with
 * --class a folder of students' folders.
 *
 * Builds the student's folder against tests/grading in a private build tree, runs every exercise
 * in its own process with a time limit, and prints one verdict line per exercise (OK, FAIL,
 * CRASH, TIMEOUT, BUILD), chapter subtotals and the total; --json writes a Gradescope-shaped
 * report, --junit a JUnit XML one. With --class DIR it grades every DIR/NAME/ in parallel
 * (--jobs students at a time, one shared harness), prints a summary line per student and writes
 * --csv (scores per student and exercise) and --json. Exit status: 0 whenever grading ran,
 * whatever the score; 2 for a usage error or when the harness itself could not run (no cmake, no
 * grading sources).
 */
#include <getopt.h>
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
      "  --build-dir DIR  build there and keep it (default: a temporary folder, removed)\n"
      "  --timeout S      time limit of each exercise in seconds (default 5)\n"
      "  --jobs N         parallel jobs: students of a class, harness compiles\n"
      "                   (default: the number of cores)\n"
      "  --memory BYTES   address-space limit of a student's grading run (default 1 GiB)\n"
      "  --no-sandbox     limits only, no namespaces: for your own code, never for a\n"
      "                   class (refused with --class)\n"
      "  --quiet          no progress lines on stderr\n"
      "  -h, --help       this help\n\n"
      "Verdicts: OK (full points), FAIL (a check failed: the call, got, expected; or the\n"
      "exercise exited before returning), CRASH (a signal), TIMEOUT, BUILD (the chapter did\n"
      "not compile: its first error).\n"
      "The checks and the answers stay in the grader: a student's functions run in a process\n"
      "of their own and only the values they return count. Student files are copied (links\n"
      "not followed) into a fresh tree; compiler, linker and exercises run in a sandbox (own\n"
      "user, mount, PID and network namespaces, an unprivileged uid, seccomp) that sees the\n"
      "system folders and its own files only, never the source tree, with CPU, memory,\n"
      "file-size, process-count and wall-clock limits.\n"
      "Exit status 0 whenever grading ran, 2 when it could not.\n");
}

int cli_cmd_grade(int argc, char **argv) {
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
    OPT_GRADEBOOK
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
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char *exercises = NULL, *json = NULL, *junit = NULL, *build_dir = NULL;
  const char *class_dir = NULL, *csv = NULL, *gradescope = NULL, *results = NULL;
  const char *gradebook = NULL;
  const char *source = getenv("SCALE_SOURCE_DIR");
  if (!source || !*source) source = SCALE_GRADE_SOURCE_DIR;
  double timeout_s = 5.0, jobs = 0.0, memory_bytes = 0.0;
  int quiet = 0, no_sandbox = 0;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_EXERCISES:
      exercises = optarg;
      break;
    case OPT_JSON:
      json = optarg;
      break;
    case OPT_JUNIT:
      junit = optarg;
      break;
    case OPT_SOURCE:
      source = optarg;
      break;
    case OPT_BUILD_DIR:
      build_dir = optarg;
      break;
    case OPT_TIMEOUT:
      if (!cli_parse_number("timeout", optarg, 0, &timeout_s)) return CLI_EXIT_USAGE;
      if (!(timeout_s > 0.0 && timeout_s <= 3600.0))
        return cli_usage("grade: --timeout must be between 0 and 3600 seconds");
      break;
    case OPT_JOBS:
      if (!cli_parse_number("jobs", optarg, 0, &jobs)) return CLI_EXIT_USAGE;
      if (!(jobs >= 1.0 && jobs <= 256.0) || jobs != (double)(int)jobs)
        return cli_usage("grade: --jobs must be a whole number from 1 to 256");
      break;
    case OPT_QUIET:
      quiet = 1;
      break;
    case OPT_CLASS:
      class_dir = optarg;
      break;
    case OPT_CSV:
      csv = optarg;
      break;
    case OPT_MEMORY:
      if (!cli_parse_number("memory", optarg, 0, &memory_bytes)) return CLI_EXIT_USAGE;
      if (!(memory_bytes >= 64e6 && memory_bytes <= 1e12))
        return cli_usage("grade: --memory must be between 6.4e7 and 1e12 bytes");
      break;
    case OPT_NO_SANDBOX:
      no_sandbox = 1;
      break;
    case OPT_GRADESCOPE:
      gradescope = optarg;
      break;
    case OPT_RESULTS:
      results = optarg;
      break;
    case OPT_GRADEBOOK:
      gradebook = optarg;
      break;
    case 'h':
      usage(stdout);
      return CLI_EXIT_OK;
    default:
      return cli_bad_option("grade", argv);
    }
  }

  if (gradescope) {
    if (class_dir || exercises || json || junit || csv || results || optind < argc)
      return cli_usage("grade: --gradescope DIR writes an autograder; it takes only --source");
    scale_diag diag;
    if (scale_grade_package_gradescope(source, gradescope, &diag)) {
      cli_print_diag(&diag);
      return CLI_EXIT_FAIL;
    }
    printf("%s: setup.sh, run_autograder and the source tree (no solutions/); zip the folder's "
           "contents and upload them as the autograder\n",
           gradescope);
    return CLI_EXIT_OK;
  }
  if (results && class_dir) return cli_usage("grade: --results is for one student");
  if (class_dir && (exercises || junit))
    return cli_usage("grade: --class grades every student folder; --exercises and --junit are "
                     "for one student");
  if (csv && !class_dir) return cli_usage("grade: --csv needs --class");
  if (gradebook && !class_dir) return cli_usage("grade: --gradebook needs --class");
  if (class_dir && no_sandbox)
    return cli_usage("grade: --class is graded only in the sandbox (one student's code could "
                     "change another's score without it); drop --no-sandbox");

  char rubric_path[4096], default_exercises[4096];
  snprintf(rubric_path, sizeof rubric_path, "%s/tests/rubric.tsv", source);
  snprintf(default_exercises, sizeof default_exercises, "%s/exercises", source);
  scale_diag diag;
  scale_grade_report report;
  scale_status st = scale_grade_rubric_load(rubric_path, &report, &diag);
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_USAGE;
  }
  st = scale_grade_select(&report, (const char *const *)(argv + optind), (size_t)(argc - optind),
                          &diag);
  if (st) {
    scale_grade_report_free(&report);
    return cli_usage("grade: %s (see tests/rubric.tsv)", diag.message);
  }

  const char *cmake = getenv("SCALE_CMAKE");
  scale_grade_options run = {
      .source_dir = source,
      .exercises_dir = exercises ? exercises : default_exercises,
      .build_dir = build_dir,
      .cmake = cmake && *cmake ? cmake : SCALE_GRADE_CMAKE,
      .timeout_s = timeout_s,
      .jobs = (int)jobs,
      .log = quiet ? NULL : stderr,
      .memory_bytes = memory_bytes,
      .no_namespaces = no_sandbox,
  };
  if (class_dir) {
    scale_grade_class cls;
    st = scale_grade_class_run(&run, class_dir, &report, &cls, &diag);
    scale_grade_report_free(&report);
    if (st) {
      cli_print_diag(&diag);
      return CLI_EXIT_USAGE;
    }
    scale_grade_class_print(&cls, stdout);
    int code = CLI_EXIT_OK;
    if (csv && scale_grade_class_write_csv(&cls, csv, &diag)) {
      cli_print_diag(&diag);
      code = CLI_EXIT_USAGE;
    }
    if (gradebook && scale_grade_class_write_gradebook(&cls, gradebook, &diag)) {
      cli_print_diag(&diag);
      code = CLI_EXIT_USAGE;
    }
    if (json && scale_grade_class_write_json(&cls, json, &diag)) {
      cli_print_diag(&diag);
      code = CLI_EXIT_USAGE;
    }
    scale_grade_class_free(&cls);
    return code;
  }
  st = scale_grade_run(&run, &report, &diag);
  if (st) {
    cli_print_diag(&diag);
    scale_grade_report_free(&report);
    return CLI_EXIT_USAGE;
  }
  scale_grade_print(&report, stdout);
  int code = CLI_EXIT_OK;
  if (json && scale_grade_write_json(&report, json, &diag)) {
    cli_print_diag(&diag);
    code = CLI_EXIT_USAGE;
  }
  if (junit && scale_grade_write_junit(&report, junit, &diag)) {
    cli_print_diag(&diag);
    code = CLI_EXIT_USAGE;
  }
  if (results && scale_grade_write_gradescope(&report, results, &diag)) {
    cli_print_diag(&diag);
    code = CLI_EXIT_USAGE;
  }
  scale_grade_report_free(&report);
  return code;
}
