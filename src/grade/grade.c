/* grade.c — the rubric, the private build tree, running the grading suites, and Check's XML.
 * See grade.h for the flow.
 */
#define _GNU_SOURCE /* POSIX.1-2008 and XSI (mkdtemp, nftw, realpath, setrlimit), and Linux's      \
                     * unshare(2) and mount(2) for the sandbox */

#include "grade.h"
#include "student.h"
#include "util.h"
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
#ifdef __linux__
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#endif

/* ---- small helpers -------------------------------------------------------------------------- */

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- rubric --------------------------------------------------------------------------------- */

/* Points "V" or "V+D" (decimal, V >= 0, D > 0, V + D > 0) into 'value' and 'domain'. */
static bool rubric_points(char *text, double *value, double *domain) {
  char *plus = strchr(text, '+');
  *domain = 0.0;
  if (plus) *plus = '\0'; /* "+D": a sign of V would come first, where it is refused below */
  bool ok = grade_strict_number(text, value) && *value >= 0.0 && text[0] != '+';
  if (ok && plus) ok = grade_strict_number(plus + 1, domain) && *domain > 0.0 && plus[1] != '+';
  return ok && *value + *domain > 0.0;
}

/* Orders the rows by chapter folder ("01-rooflines" < "02-tpus" < ... < "13-hybrid-..."),
 * stably: every report, CSV and gradebook then follows the book, whatever order the rubric's
 * rows were added in. Insertion sort: a rubric is a few hundred rows. */
static void sort_by_chapter(scale_grade_report *report) {
  for (size_t i = 1; i < report->n_rows; i++) {
    scale_grade_row row = report->rows[i];
    size_t j = i;
    for (; j > 0 && strcmp(report->rows[j - 1].chapter, row.chapter) > 0; j--)
      report->rows[j] = report->rows[j - 1];
    report->rows[j] = row;
  }
}

scale_status scale_grade_rubric_load(const char *path, scale_grade_report *out, scale_diag *diag) {
  out->rows = NULL;
  out->n_rows = 0;
  FILE *in = fopen(path, "r");
  if (!in) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot read: %s", strerror(errno));
  size_t cap = 0;
  char line[1024];
  int lineno = 0;
  scale_status status = SCALE_OK;
  while (fgets(line, sizeof line, in)) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[strspn(line, " \t")] == '\0') continue;
    char *fields[4] = {0};
    int n = 0;
    char *cursor = line;
    while (n < 4 && cursor) {
      fields[n++] = cursor;
      char *tab = strchr(cursor, '\t');
      if (tab) *tab = '\0';
      cursor = tab ? tab + 1 : NULL;
    }
    double points = 0.0, domain = 0.0;
    if (n != 4 || cursor || !grade_is_stem(fields[0]) || !grade_is_stem(fields[1]) ||
        !rubric_points(fields[2], &points, &domain)) {
      status = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno,
                              "expected 'id<TAB>chapter<TAB>points<TAB>title' (id and chapter "
                              "plain names, points V or V+D > 0 in decimal)");
      break;
    }
    for (size_t i = 0; i < out->n_rows; i++)
      if (strcmp(out->rows[i].id, fields[0]) == 0) {
        status = scale_diag_set(diag, SCALE_ERR_DUPLICATE_KEY, path, lineno,
                                "id '%s' appears twice", fields[0]);
        break;
      }
    if (status) break;
    if (out->n_rows == cap) {
      size_t grown_cap = cap ? 2 * cap : 64;
      scale_grade_row *grown = realloc(out->rows, grown_cap * sizeof *grown);
      if (!grown) {
        status = scale_diag_set(diag, SCALE_ERR_NOMEM, path, lineno, "out of memory");
        break;
      }
      out->rows = grown;
      cap = grown_cap;
    }
    scale_grade_row *row = &out->rows[out->n_rows++];
    memset(row, 0, sizeof *row);
    grade_copy(row->id, sizeof row->id, fields[0]);
    grade_copy(row->chapter, sizeof row->chapter, fields[1]);
    grade_copy(row->title, sizeof row->title, fields[3]);
    row->points = points + domain;
    row->domain_points = domain;
    row->verdict = SCALE_GRADE_BUILD;
    grade_copy(row->output, sizeof row->output, "not graded");
  }
  fclose(in);
  if (status)
    scale_grade_report_free(out);
  else
    sort_by_chapter(out);
  return status;
}

/* Whether 'selector' names 'row': its id, its chapter folder, the folder's slug or number. */
static bool selects(const char *selector, const scale_grade_row *row) {
  if (strcmp(selector, row->id) == 0 || strcmp(selector, row->chapter) == 0) return true;
  const char *dash = strchr(row->chapter, '-');
  if (!dash) return false;
  if (strcmp(selector, dash + 1) == 0) return true;
  size_t num_len = (size_t)(dash - row->chapter);
  return strlen(selector) == num_len && strncmp(selector, row->chapter, num_len) == 0;
}

scale_status scale_grade_select(scale_grade_report *report, const char *const *selectors,
                                size_t n_selectors, scale_diag *diag) {
  if (n_selectors == 0) return SCALE_OK;
  for (size_t s = 0; s < n_selectors; s++) {
    bool any = false;
    for (size_t i = 0; i < report->n_rows && !any; i++)
      any = selects(selectors[s], &report->rows[i]);
    if (!any)
      return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, NULL, 0,
                            "no exercise or chapter '%s' in the rubric", selectors[s]);
  }
  size_t kept = 0;
  for (size_t i = 0; i < report->n_rows; i++) {
    bool keep = false;
    for (size_t s = 0; s < n_selectors && !keep; s++)
      keep = selects(selectors[s], &report->rows[i]);
    if (keep) report->rows[kept++] = report->rows[i];
  }
  report->n_rows = kept;
  return SCALE_OK;
}

void scale_grade_report_free(scale_grade_report *report) {
  if (!report) return;
  free(report->rows);
  report->rows = NULL;
  report->n_rows = 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Removes what an earlier run left at 'path' in a reused --build-dir (a student's tree, a
 * class's results): its copies are made with O_EXCL and would all fail. Refused, with the
 * reason, when anything there cannot be removed. */
static scale_status clean_previous(const char *path, scale_diag *diag) {
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
      remove(path);
  }
  int why = errno;
  if (lstat(path, &st) != 0 && errno == ENOENT) return SCALE_OK;
  return scale_diag_set(diag, SCALE_ERR_IO, path, 0,
                        "cannot remove an earlier grading here (%s): remove it, or choose "
                        "another --build-dir",
                        strerror(why));
}

/* The path of program 'name' as execvp would find it on PATH ('name' itself if it has a '/'). */
static bool find_program(const char *name, char *out, size_t size) {
  if (strchr(name, '/')) {
    grade_copy(out, size, name);
    return access(out, X_OK) == 0;
  }
  const char *path_env = getenv("PATH");
  char dirs[8192];
  grade_copy(dirs, sizeof dirs, path_env ? path_env : "/usr/bin:/bin");
  for (char *save = NULL, *dir = strtok_r(dirs, ":", &save); dir;
       dir = strtok_r(NULL, ":", &save)) {
    grade_fmt(out, size, "%s/%s", dir, name);
    if (access(out, X_OK) == 0) return true;
  }
  return false;
}

/* Runs one of our own programs (cmake; argv[0] a path) with its output in 'log_path' and only
 * a wall-clock limit: trusted code on our own sources. */
static sandbox_result run_trusted(char *const argv[], const char *log_path, double wall_s) {
  sandbox_result result = {false, false, 0, 0};
  int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return result;
  sandbox_spec spec = {.argv = argv, .envp = environ, .fds = {-1, log_fd, log_fd, -1, -1, -1}};
  char why[256];
  result = sandbox_run(&spec, wall_s, why, sizeof why);
  close(log_fd);
  return result;
}

static int online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 && n <= 1024 ? (int)n : 1;
}

/* The mark of a build tree of ours: a reused --build-dir is cleaned only where it is found. */
#define BUILD_MARK ".scale-grade-build"

/* Takes the existing folder 'build' as the build tree: one marked as ours, or an empty one
 * (then marked); anything else is refused, since an earlier run's parts of it are removed. */
static scale_status claim_build_dir(const char *build, scale_diag *diag) {
  char mark[4200];
  grade_fmt(mark, sizeof mark, "%s/%s", build, BUILD_MARK);
  if (is_file(mark)) return SCALE_OK;
  DIR *dir = opendir(build);
  size_t n_entries = 0;
  for (struct dirent *entry; dir && (entry = readdir(dir)) != NULL;)
    n_entries += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
  if (dir) closedir(dir);
  if (!dir || n_entries > 0)
    return scale_diag_set(diag, SCALE_ERR_IO, build, 0,
                          "not a build tree of scale grade (no %s): choose a new or empty folder",
                          BUILD_MARK);
  int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 || close(fd) != 0)
    return scale_diag_set(diag, SCALE_ERR_IO, mark, 0, "cannot write: %s", strerror(errno));
  return SCALE_OK;
}

/* Makes the build tree (a temporary one when options->build_dir is NULL) into 'build'. */
static scale_status make_build_dir(const scale_grade_options *options, const char *prefix,
                                   char *build, size_t size, scale_diag *diag) {
  if (!options->build_dir) {
    const char *tmp = getenv("TMPDIR");
    grade_fmt(build, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (!mkdtemp(build))
      return scale_diag_set(diag, SCALE_ERR_IO, build, 0, "cannot make a build directory: %s",
                            strerror(errno));
  } else {
    grade_copy(build, size, options->build_dir);
    if (!is_dir(build) && mkdir(build, 0755) != 0)
      return scale_diag_set(diag, SCALE_ERR_IO, build, 0, "cannot make the build directory: %s",
                            strerror(errno));
    scale_status status = claim_build_dir(build, diag);
    if (status) return status;
  }
  char resolved[4096];
  if (realpath(build, resolved)) grade_copy(build, size, resolved);
  return SCALE_OK;
}

/* A harness step that failed: the message carries the log's tail (the log itself may be in a
 * temporary tree that is removed on return). */
static scale_status harness_failed(scale_diag *diag, const char *log_path, const char *what,
                                   const sandbox_result *r) {
  char tail[600];
  grade_log_tail(log_path, 3, tail, sizeof tail);
  return scale_diag_set(diag, SCALE_ERR_IO, NULL, 0, "%s (%s %d): %s", what,
                        r->signal ? "signal" : "exit status", r->signal ? r->signal : r->exit_code,
                        tail[0] ? tail : "no output");
}

/* The most students of one class: each gets a uid of its own from a block of this size. */
#define MAX_STUDENTS 100000u

/* The uid a student's processes run as outside their namespace: root gives each student of a
 * run a uid of its own (so RLIMIT_NPROC, file ownership and the kill by uid are per student):
 * a block of MAX_STUDENTS uids per grader process, far above any system's or user's uids, and
 * one of it per student index (the probe takes the block's last). Anyone else has only their
 * own uid to give. */
static unsigned student_uid(size_t index) {
  if (getuid() != 0) return (unsigned)getuid();
  unsigned block = (unsigned)(getpid() % 20000); /* 2e9 + 20000 * 1e5 < 2^32 - 1 */
  return 2000000000u + block * MAX_STUDENTS + (unsigned)(index % MAX_STUDENTS);
}

static bool env_set(const char *name) {
  const char *value = getenv(name);
  return value && *value && strcmp(value, "0") != 0;
}

/* The strongest sandbox that works here (sandbox_probe in BUILD/sandbox-probe), or NONE with
 * --no-sandbox; 'g->isolation' says it in words. False when none works and --no-sandbox was
 * not given: the caller refuses. SCALE_GRADE_NO_USERNS and SCALE_GRADE_NO_LANDLOCK skip a
 * mode (to test the others where the kernel has both). */
static bool choose_mode(const scale_grade_options *options, const char *build, grader *g) {
  char probe[4200];
  grade_fmt(probe, sizeof probe, "%s/sandbox-probe", build);
  unsigned uid = student_uid(MAX_STUDENTS - 1);
  bool root = getuid() == 0;
  g->mode = SANDBOX_NONE;
  if (options->no_namespaces) {
    grade_copy(g->isolation, sizeof g->isolation,
               "none (--no-sandbox): rlimits and a process group only");
    return true;
  }
  if (!env_set("SCALE_GRADE_NO_USERNS") && sandbox_probe(probe, uid, SANDBOX_NAMESPACES)) {
    g->mode = SANDBOX_NAMESPACES;
    grade_fmt(g->isolation, sizeof g->isolation,
              "namespaces (user mount pid net ipc uts); own root; seccomp; rlimits; %s",
              root ? "own uid per student" : "the grader's uid mapped");
    return true;
  }
  int abi = sandbox_landlock_abi();
  if (!env_set("SCALE_GRADE_NO_LANDLOCK") && sandbox_probe(probe, uid, SANDBOX_LANDLOCK)) {
    g->mode = SANDBOX_LANDLOCK;
    grade_fmt(g->isolation, sizeof g->isolation,
              "landlock %d (files%s%s); seccomp without sockets; rlimits; %s; no namespaces", abi,
              abi >= 4 ? " tcp" : "", abi >= 6 ? " signals" : "",
              root ? "own uid per student killed by uid"
                   : "the grader's uid shared: one student at a time");
    return true;
  }
  return false;
}

/* Whether each student's writable folders can be size-capped tmpfs here (root, mount allowed):
 * tried in a child, in a mount namespace of its own, on BUILD/disk-probe. */
static bool can_cap_disk(const char *build) {
  char probe[4200];
  grade_fmt(probe, sizeof probe, "%s/disk-probe", build);
  if (getuid() != 0 || (mkdir(probe, 0700) != 0 && errno != EEXIST)) return false;
  pid_t pid = fork();
  if (pid == 0)
    _exit(sandbox_private_mounts() && sandbox_mount_tmpfs(probe, GRADE_STUDENT_DISK, 0) ? 0 : 1);
  int status = 1;
  bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0;
  rmdir(probe);
  return ok;
}

/* The sandbox (choose_mode), and a disk cap per student where one can be had, unless the
 * student's outputs are to be kept ('keep': one student with --build-dir, to look at them). */
static bool choose_sandbox(const scale_grade_options *options, const char *build, bool keep,
                           grader *g) {
  if (!choose_mode(options, build, g)) return false;
  g->disk_cap = !keep && can_cap_disk(build);
  if (g->disk_cap) {
    size_t n = strlen(g->isolation);
    grade_fmt(g->isolation + n, sizeof g->isolation - n, "; %.0f MiB tmpfs per student folder",
              GRADE_STUDENT_DISK / (1024 * 1024));
  }
  return true;
}

/* Whether 'path' lies in one of the system folders that every sandbox lets students read
 * (sandbox.h): a source tree there (/usr/local/src/scale) shows them the stored answers. */
static bool in_system_folder(const char *path) {
  char resolved[4096];
  if (!realpath(path, resolved)) return false;
  for (const char *const *dir = sandbox_system_dirs(); *dir; dir++) {
    size_t len = strlen(*dir);
    if (strncmp(resolved, *dir, len) == 0 && (resolved[len] == '/' || !resolved[len])) return true;
  }
  return false;
}

/* Says which sandbox is in use; a degraded one even under --quiet (options->warn). */
static void say_sandbox(const scale_grade_options *options, const grader *g) {
  if (g->mode == SANDBOX_NAMESPACES) {
    grade_say(options, "scale grade: students' code runs in a sandbox: %s", g->isolation);
    return;
  }
  const char *why = g->mode == SANDBOX_LANDLOCK
                        ? "no user namespaces here: files, network and signals confined, but no "
                          "private /proc, /tmp or total memory bound"
                        : "hostile code could read or change your files and escape";
  FILE *out = options->warn ? options->warn : options->log;
  if (!out) return;
  fprintf(out, "scale grade: warning: students' code runs with isolation '%s' (%s)\n", g->isolation,
          why);
  fflush(out);
}

/* Configures BUILD/harness for the grading sources (no student's code) and builds the
 * checkers and drivers of the chapters graded, once; probes the sandbox. */
static scale_status prepare(const scale_grade_options *options, const char *build,
                            const scale_grade_report *report, bool keep, grader *g,
                            scale_diag *diag) {
  char grading[4096], log_path[4400], cmake[4096];
  g->options = options;
  g->timeout_s = options->timeout_s > 0.0 ? options->timeout_s : 5.0;
  grade_fmt(grading, sizeof grading, "%s/tests/grading", options->source_dir);
  grade_fmt(g->harness, sizeof g->harness, "%s/harness", build);
  if (!is_dir(g->harness) && mkdir(g->harness, 0755) != 0)
    return scale_diag_set(diag, SCALE_ERR_IO, g->harness, 0,
                          "cannot make the harness directory: %s", strerror(errno));
  if (!find_program(options->cmake ? options->cmake : "cmake", cmake, sizeof cmake))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, NULL, 0, "cmake not found (set SCALE_CMAKE)");
  if (!choose_sandbox(options, build, keep, g))
    return scale_diag_set(diag, SCALE_ERR_IO, NULL, 0,
                          "no sandbox works here (no user namespaces, no Landlock%s): students' "
                          "code is graded only in one; for your own code, --no-sandbox",
                          getuid() == 0 ? "" : " with signal scoping");
  if (g->mode != SANDBOX_NONE && in_system_folder(options->source_dir))
    return scale_diag_set(diag, SCALE_ERR_IO, options->source_dir, 0,
                          "the source tree lies in a system folder, which students' code may "
                          "read (its stored answers with it): move it elsewhere");
  say_sandbox(options, g);
  char solutions[4200];
  grade_fmt(solutions, sizeof solutions, "-DSCALE_SOLUTIONS_DIR=%s/solutions", options->source_dir);
  char *configure_argv[] = {cmake,
                            "-S",
                            grading,
                            "-B",
                            g->harness,
                            solutions,
                            "-DSCALE_GRADING_HARNESS_ONLY=ON",
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                            NULL};
  grade_fmt(log_path, sizeof log_path, "%s/configure.log", g->harness);
  grade_say(options, "scale grade: configuring the grading harness in %s", g->harness);
  sandbox_result configured = run_trusted(configure_argv, log_path, 300.0);
  if (!configured.started || configured.timed_out || configured.signal || configured.exit_code != 0)
    return harness_failed(diag, log_path, "cmake could not configure the grading harness",
                          &configured);
  /* Build the harness of the chapters graded (harness_NN_SLUG, where a recipe says the chapter
   * has a suite), not of every chapter. */
  char jobs[16];
  grade_fmt(jobs, sizeof jobs, "%d", options->jobs > 0 ? options->jobs : online_cores());
  size_t max_args = 8 + report->n_rows;
  char **build_argv = calloc(max_args, sizeof *build_argv);
  char(*targets)[96] = calloc(report->n_rows ? report->n_rows : 1, sizeof *targets);
  if (!build_argv || !targets) {
    free(build_argv);
    free(targets);
    return scale_diag_set(diag, SCALE_ERR_NOMEM, NULL, 0, "out of memory");
  }
  size_t n_args = 0, n_targets = 0;
  build_argv[n_args++] = cmake;
  build_argv[n_args++] = "--build";
  build_argv[n_args++] = g->harness;
  build_argv[n_args++] = "-j";
  build_argv[n_args++] = jobs;
  build_argv[n_args++] = "--target";
  build_argv[n_args++] = "grading_harness_none"; /* a no-op when no chapter has a suite */
  for (size_t i = 0; i < report->n_rows; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = strcmp(report->rows[j].chapter, report->rows[i].chapter) != 0;
    char num[16], slug[64], recipe_path[4400];
    if (!first || !grade_split_chapter(report->rows[i].chapter, num, sizeof num, slug, sizeof slug))
      continue;
    grade_fmt(recipe_path, sizeof recipe_path, "%s/recipe-%s.tsv", g->harness,
             report->rows[i].chapter);
    if (!is_file(recipe_path)) continue;
    grade_fmt(targets[n_targets], sizeof targets[n_targets], "harness_%s_%s", num, slug);
    build_argv[n_args++] = targets[n_targets++];
  }
  build_argv[n_args] = NULL;
  grade_fmt(log_path, sizeof log_path, "%s/build.log", g->harness);
  grade_say(options, "scale grade: building the grading harness");
  sandbox_result built = run_trusted(build_argv, log_path, 900.0);
  free(build_argv);
  free(targets);
  if (!built.started || built.timed_out || built.signal || built.exit_code != 0)
    return harness_failed(diag, log_path, "the grading harness did not build", &built);
  return SCALE_OK;
}

/* How many students may run at once ('*jobs', at most what was asked) so that they cannot
 * take a process the grader needs. A uid of each student's own (root) or a user namespace
 * each bound their own processes, but an unprivileged grader's students all count against its
 * uid's RLIMIT_NPROC too: theirs times the jobs, plus what runs now and room for the grader,
 * must stay below it. Without namespaces (Landlock) they share that uid's count itself, so
 * one student at a time. An error saying why when not even one fits. */
static scale_status fit_jobs(const grader *g, int *jobs, scale_diag *diag) {
  if (getuid() == 0) return SCALE_OK;
  if (g->mode == SANDBOX_LANDLOCK) *jobs = 1;
  struct rlimit limit;
  if (getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SCALE_OK;
  unsigned used = sandbox_user_tasks((unsigned)getuid()), room = 32; /* the grader's own */
  unsigned per_job = 2 * GRADE_STUDENT_PROCS; /* its steps, and the one being reaped */
  if (limit.rlim_cur <= (rlim_t)(used + room + per_job))
    return scale_diag_set(diag, SCALE_ERR_IO, NULL, 0,
                          "your process limit (ulimit -u %llu) leaves no room for a student's "
                          "%u processes beside the %u you run: raise it, or grade as root",
                          (unsigned long long)limit.rlim_cur, GRADE_STUDENT_PROCS, used);
  unsigned fit = (unsigned)((limit.rlim_cur - used - room) / per_job);
  if ((unsigned)*jobs > fit) *jobs = (int)fit;
  return SCALE_OK;
}

scale_status scale_grade_run(const scale_grade_options *options, scale_grade_report *report,
                             scale_diag *diag) {
  char grading[4096], exercises[4096], build[4096], student[4200];
  grade_fmt(grading, sizeof grading, "%s/tests/grading/CMakeLists.txt", options->source_dir);
  if (!is_file(grading))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, grading, 0,
                          "no grading sources (is %s the scale source tree? try --source)",
                          options->source_dir);
  if (!is_dir(options->exercises_dir) || !realpath(options->exercises_dir, exercises))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, options->exercises_dir, 0,
                          "no such exercises folder");
  scale_status status = make_build_dir(options, "scale-grade", build, sizeof build, diag);
  if (status) return status;
  grader g;
  grade_fmt(student, sizeof student, "%s/student", build);
  status = clean_previous(student, diag);
  if (!status) status = prepare(options, build, report, options->build_dir != NULL, &g, diag);
  if (!status) {
    int one = 1;
    status = fit_jobs(&g, &one, diag);
  }
  if (!status) {
    grade_say(options, "scale grade: grading %s", exercises);
    grade_copy(report->isolation, sizeof report->isolation, g.isolation);
    int exercises_fd = open(exercises, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!grade_student(&g, exercises_fd, student, student_uid(0), report))
      status = scale_diag_set(diag, SCALE_ERR_IO, student, 0,
                              "the grader could not make the student's build tree");
    if (exercises_fd >= 0) close(exercises_fd);
  }
  if (!options->build_dir) nftw(build, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return status;
}

/* ---- a class -------------------------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Grades student 'index' in a worker process; the rows go to 'results' (outside the student's
 * tree). The student's folder is opened without following a link. */
static void class_worker(const grader *g, const char *class_dir, const char *name, size_t index,
                         const char *build, const scale_grade_report *rubric, const char *results) {
  scale_grade_report report = {.rows = malloc(rubric->n_rows * sizeof *rubric->rows),
                               .n_rows = rubric->n_rows};
  int class_fd = open(class_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int folder_fd =
      class_fd < 0 ? -1 : openat(class_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (!report.rows || folder_fd < 0) _exit(3);
  memcpy(report.rows, rubric->rows, rubric->n_rows * sizeof *rubric->rows);
  if (!grade_student(g, folder_fd, build, student_uid(index), &report)) _exit(6);
  FILE *out = fopen(results, "wb");
  if (!out) _exit(4);
  size_t wrote = fwrite(report.rows, sizeof *report.rows, report.n_rows, out);
  if (fclose(out) != 0 || wrote != report.n_rows) _exit(5);
  _exit(0);
}

/* Reads a worker's rows back into student 's'. */
static void class_collect(scale_grade_student *s, const char *results, int status) {
  FILE *in = fopen(results, "rb");
  size_t got = 0;
  if (in) {
    got = fread(s->report.rows, sizeof *s->report.rows, s->report.n_rows, in);
    fclose(in);
  }
  if (in && got == s->report.n_rows && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    s->graded = true;
    return;
  }
  for (size_t i = 0; i < s->report.n_rows; i++) {
    s->report.rows[i].verdict = SCALE_GRADE_BUILD;
    s->report.rows[i].score = 0.0;
    grade_copy(s->report.rows[i].output, sizeof s->report.rows[i].output, "not graded");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 6)
    grade_copy(s->error, sizeof s->error, "the grader could not make this student's build tree");
  else if (WIFSIGNALED(status))
    grade_fmt(s->error, sizeof s->error, "the grader of this student died of signal %d",
             WTERMSIG(status));
  else
    grade_fmt(s->error, sizeof s->error, "the grader of this student failed (status %d)",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The students of 'class_dir': every folder not starting with '.', sorted by name, into
 * '*names' (caller frees each and the array, also after a failure). */
static scale_status list_students(const char *class_dir, char ***names, size_t *n_names,
                                  scale_diag *diag) {
  DIR *dir = opendir(class_dir);
  if (!dir) return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, class_dir, 0, "no such class folder");
  size_t cap = 0;
  scale_status status = SCALE_OK;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    char path[4400];
    grade_fmt(path, sizeof path, "%s/%s", class_dir, entry->d_name);
    if (entry->d_name[0] == '.' || !is_dir(path)) continue;
    if (*n_names == cap) {
      size_t grown_cap = cap ? 2 * cap : 32;
      char **grown = realloc(*names, grown_cap * sizeof *grown);
      if (!grown) {
        status = scale_diag_set(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
        break;
      }
      *names = grown;
      cap = grown_cap;
    }
    char *name = malloc(strlen(entry->d_name) + 1);
    if (!name) {
      status = scale_diag_set(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
      break;
    }
    strcpy(name, entry->d_name);
    (*names)[(*n_names)++] = name;
  }
  closedir(dir);
  if (!status && *n_names == 0)
    status =
        scale_diag_set(diag, SCALE_ERR_NOT_FOUND, class_dir, 0, "no student folders in the class");
  if (!status) qsort(*names, *n_names, sizeof **names, compare_names);
  return status;
}

/* One student record per name, each with a copy of the rubric's rows. */
static scale_status class_fill(scale_grade_class *out, char *const *names, size_t n_names,
                               const scale_grade_report *rubric, const char *class_dir,
                               scale_diag *diag) {
  out->students = calloc(n_names, sizeof *out->students);
  if (!out->students) return scale_diag_set(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
  for (size_t i = 0; i < n_names; i++) {
    scale_grade_student *s = &out->students[out->n_students++];
    grade_copy(s->name, sizeof s->name, names[i]);
    /* A name a terminal would obey, that forges a line of the summary or is not text is
     * refused; every report names it escaped ("new\nline"), never raw. */
    if (!grade_is_clean(names[i])) {
      grade_escape(s->name, sizeof s->name, names[i]);
      grade_copy(s->error, sizeof s->error,
                 "the folder name holds control characters or bytes that are not UTF-8: "
                 "rename the folder");
    }
    s->report.rows = malloc((rubric->n_rows ? rubric->n_rows : 1) * sizeof *rubric->rows);
    if (!s->report.rows)
      return scale_diag_set(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
    memcpy(s->report.rows, rubric->rows, rubric->n_rows * sizeof *rubric->rows);
    s->report.n_rows = rubric->n_rows;
  }
  return SCALE_OK;
}

/* Starts the worker of student 'index' (its build tree BUILD/students/NNN-NAME, its rows to
 * BUILD/results/NNN.rows); its pid, or -1 when fork failed (the student's error says so). */
static pid_t class_start(const grader *g, const char *class_dir, const char *build,
                         const scale_grade_report *rubric, scale_grade_class *out, size_t index) {
  scale_grade_student *s = &out->students[index];
  char student_build[4400], results[4400];
  /* Folder names of the build tree: a number, then the name made path-safe. */
  char safe[128];
  grade_fmt(safe, sizeof safe, "%s", s->name);
  for (char *c = safe; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '-' || *c == '_' || *c == '.'))
      *c = '_';
  grade_fmt(student_build, sizeof student_build, "%s/students/%03zu-%s", build, index, safe);
  grade_fmt(results, sizeof results, "%s/results/%03zu.rows", build, index);
  remove(results);
  grade_say(g->options, "scale grade: grading %s", s->name);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    grader quiet = *g;
    scale_grade_options worker_options = *g->options;
    worker_options.log = NULL;
    quiet.options = &worker_options;
    class_worker(&quiet, class_dir, s->name, index, student_build, rubric, results);
  }
  if (pid < 0) grade_copy(s->error, sizeof s->error, "the grader could not start (fork failed)");
  return pid;
}

/* Collects the student whose worker 'pid' ended with 'wstatus'; false if it was none of them. */
static bool class_reap(const grader *g, const char *build, scale_grade_class *out,
                       pid_t *workers, pid_t pid, int wstatus, size_t *done_count) {
  for (size_t i = 0; i < out->n_students; i++) {
    if (workers[i] != pid) continue;
    workers[i] = 0;
    ++*done_count;
    char results[4400];
    grade_fmt(results, sizeof results, "%s/results/%03zu.rows", build, i);
    scale_grade_student *s = &out->students[i];
    class_collect(s, results, wstatus);
    double score, max;
    scale_grade_totals(&s->report, NULL, &score, &max);
    grade_say(g->options, "scale grade: [%zu/%zu] %s: %g/%g%s%s", *done_count, out->n_students,
              s->name, score, max, s->graded ? "" : ", ", s->graded ? "" : s->error);
    return true;
  }
  return false;
}

/* Grades every student of 'out', --jobs worker processes at a time. */
static scale_status class_grade_all(const grader *g, const char *class_dir, const char *build,
                                    const scale_grade_report *rubric, scale_grade_class *out,
                                    scale_diag *diag) {
  const scale_grade_options *options = g->options;
  int jobs = options->jobs > 0 ? options->jobs : online_cores(), asked = jobs;
  scale_status fits = fit_jobs(g, &jobs, diag);
  if (fits) return fits;
  if (jobs < asked)
    grade_say(options, "scale grade: %d student%s at a time (your uid's process limit%s)", jobs,
              jobs == 1 ? "" : "s", g->mode == SANDBOX_LANDLOCK ? " is theirs too" : "");
  pid_t *workers = calloc(out->n_students, sizeof *workers);
  if (!workers) return scale_diag_set(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
  size_t next = 0, running = 0, done_count = 0;
  while (next < out->n_students || running > 0) {
    for (; running < (size_t)jobs && next < out->n_students; next++) {
      if (out->students[next].error[0]) continue; /* refused by class_fill */
      pid_t pid = class_start(g, class_dir, build, rubric, out, next);
      if (pid < 0) continue;
      workers[next] = pid;
      running++;
    }
    if (running == 0) continue;
    int wstatus = 0;
    pid_t done = waitpid(-1, &wstatus, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (class_reap(g, build, out, workers, done, wstatus, &done_count)) running--;
  }
  free(workers);
  return SCALE_OK;
}

scale_status scale_grade_class_run(const scale_grade_options *options, const char *class_dir,
                                   const scale_grade_report *rubric, scale_grade_class *out,
                                   scale_diag *diag) {
  out->students = NULL;
  out->n_students = 0;
  char grading[4096];
  grade_fmt(grading, sizeof grading, "%s/tests/grading/CMakeLists.txt", options->source_dir);
  if (!is_file(grading))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, grading, 0,
                          "no grading sources (is %s the scale source tree? try --source)",
                          options->source_dir);
  char **names = NULL;
  size_t n_names = 0;
  scale_status status = list_students(class_dir, &names, &n_names, diag);
  if (!status && n_names >= MAX_STUDENTS) /* each needs a uid of its own (student_uid) */
    status = scale_diag_set(diag, SCALE_ERR_IO, class_dir, 0,
                            "%zu students: at most %u at once; grade the class in parts", n_names,
                            MAX_STUDENTS - 1);
  if (!status) status = class_fill(out, names, n_names, rubric, class_dir, diag);
  for (size_t i = 0; i < n_names; i++)
    free(names[i]);
  free(names);
  if (status) {
    scale_grade_class_free(out);
    return status;
  }

  char build[4096], path[4400];
  status = make_build_dir(options, "scale-class", build, sizeof build, diag);
  static const char *const earlier[] = {"students", "results"};
  for (size_t i = 0; i < 2 && !status; i++) {
    grade_fmt(path, sizeof path, "%s/%s", build, earlier[i]);
    status = clean_previous(path, diag);
  }
  grader g;
  if (!status) status = prepare(options, build, rubric, false, &g, diag);
  if (!status && g.mode == SANDBOX_NONE)
    status = scale_diag_set(diag, SCALE_ERR_IO, NULL, 0,
                            "a class is graded only in the sandbox (--no-sandbox): one student's "
                            "code could change another's score");
  if (!status) {
    grade_copy(out->isolation, sizeof out->isolation, g.isolation);
    for (size_t i = 0; i < out->n_students; i++)
      grade_copy(out->students[i].report.isolation, sizeof out->students[i].report.isolation,
                 g.isolation);
  }
  grade_fmt(path, sizeof path, "%s/students", build);
  mkdir(path, 0755);
  grade_fmt(path, sizeof path, "%s/results", build);
  mkdir(path, 0755);
  if (!status) status = class_grade_all(&g, class_dir, build, rubric, out, diag);
  if (!options->build_dir) nftw(build, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (status) scale_grade_class_free(out);
  return status;
}

void scale_grade_class_free(scale_grade_class *cls) {
  if (!cls) return;
  for (size_t i = 0; i < cls->n_students; i++)
    scale_grade_report_free(&cls->students[i].report);
  free(cls->students);
  cls->students = NULL;
  cls->n_students = 0;
}
