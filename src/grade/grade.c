/* grade.c — the rubric, the private build tree, running the grading suites, and Check's XML.
 * See grade.h for the flow.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, realpath, setenv, kill, setpgid, setrlimit */

#include "grade.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers -------------------------------------------------------------------------- */

static scale_status fail(scale_diag *diag, scale_status status, const char *file, int line,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static scale_status fail(scale_diag *diag, scale_status status, const char *file, int line,
                         const char *fmt, ...) {
  if (diag) {
    snprintf(diag->file, sizeof diag->file, "%s", file ? file : "");
    diag->line = line;
    va_list args;
    va_start(args, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, args);
    va_end(args);
  }
  return status;
}

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src); }

/* snprintf into a fixed buffer; paths longer than the buffer are truncated (and then not found),
 * which the callers accept rather than overflow. */
static void fmt_into(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fmt_into(char *dst, size_t size, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(dst, size, fmt, args);
  va_end(args);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads a whole file into a NUL-terminated buffer (caller frees); NULL on failure. */
static char *read_all(const char *path, size_t limit) {
  FILE *in = fopen(path, "rb");
  if (!in) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (len + 1 >= cap) {
      if (cap >= limit) break;
      char *grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, in);
    len += got;
    if (got == 0) break;
  }
  fclose(in);
  if (buf) buf[len] = '\0';
  return buf;
}

/* ---- rubric --------------------------------------------------------------------------------- */

scale_status scale_grade_rubric_load(const char *path, scale_grade_report *out,
                                     scale_diag *diag) {
  out->rows = NULL;
  out->n_rows = 0;
  FILE *in = fopen(path, "r");
  if (!in) return fail(diag, SCALE_ERR_IO, path, 0, "cannot read: %s", strerror(errno));
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
    char *end = NULL;
    double points = n == 4 ? strtod(fields[2], &end) : 0.0;
    if (n != 4 || cursor || !*fields[0] || !*fields[1] || end == fields[2] || *end ||
        !(points > 0.0)) {
      status = fail(diag, SCALE_ERR_PARSE, path, lineno,
                    "expected 'id<TAB>chapter<TAB>points<TAB>title' with points > 0");
      break;
    }
    for (size_t i = 0; i < out->n_rows; i++)
      if (strcmp(out->rows[i].id, fields[0]) == 0) {
        status = fail(diag, SCALE_ERR_DUPLICATE_KEY, path, lineno, "id '%s' appears twice",
                      fields[0]);
        break;
      }
    if (status) break;
    if (out->n_rows == cap) {
      size_t grown_cap = cap ? 2 * cap : 64;
      scale_grade_row *grown = realloc(out->rows, grown_cap * sizeof *grown);
      if (!grown) {
        status = fail(diag, SCALE_ERR_NOMEM, path, lineno, "out of memory");
        break;
      }
      out->rows = grown;
      cap = grown_cap;
    }
    scale_grade_row *row = &out->rows[out->n_rows++];
    memset(row, 0, sizeof *row);
    copy(row->id, sizeof row->id, fields[0]);
    copy(row->chapter, sizeof row->chapter, fields[1]);
    copy(row->title, sizeof row->title, fields[3]);
    row->points = points;
    row->verdict = SCALE_GRADE_BUILD;
    copy(row->output, sizeof row->output, "not graded");
  }
  fclose(in);
  if (status) scale_grade_report_free(out);
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
      return fail(diag, SCALE_ERR_NOT_FOUND, NULL, 0,
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

/* ---- processes ------------------------------------------------------------------------------ */

/* How a child process ended. */
typedef struct {
  bool started;   /* fork and exec worked */
  bool timed_out; /* killed by us after its wall-clock limit */
  int exit_code;  /* when it exited */
  int signal;     /* when a signal ended it (0 otherwise) */
} run_result;

/* Runs argv with stdout and stderr appended to 'log_path', extra environment 'env' (NAME=VALUE,
 * NULL-terminated, may be NULL), in its own process group, with CPU time and file size limits,
 * and kills the whole group after 'wall_s' seconds. */
static run_result run(char *const argv[], const char *log_path, char *const env[], double wall_s,
                      double cpu_s) {
  run_result result = {false, false, 0, 0};
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      close(devnull);
    }
    for (size_t i = 0; env && env[i]; i++) {
      char name[128];
      const char *eq = strchr(env[i], '=');
      if (!eq || (size_t)(eq - env[i]) >= sizeof name) continue;
      memcpy(name, env[i], (size_t)(eq - env[i]));
      name[eq - env[i]] = '\0';
      setenv(name, eq + 1, 1);
    }
    if (cpu_s > 0.0) {
      struct rlimit cpu = {(rlim_t)cpu_s, (rlim_t)cpu_s + 5};
      setrlimit(RLIMIT_CPU, &cpu);
      struct rlimit fsize = {(rlim_t)64 << 20, (rlim_t)64 << 20}; /* no runaway output */
      setrlimit(RLIMIT_FSIZE, &fsize);
      struct rlimit core = {0, 0};
      setrlimit(RLIMIT_CORE, &core);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "scale grade: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  result.started = true;
  struct timespec start, now, nap = {0, 20 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      result.started = false;
      return result;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    double elapsed =
        (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
    if (wall_s > 0.0 && elapsed > wall_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    nanosleep(&nap, NULL);
  }
  kill(-pid, SIGKILL); /* leftovers of the group (forked test cases) */
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* ---- Check's XML log ------------------------------------------------------------------------ */

/* Copies the text between <tag> and </tag> inside [from, to) into out, unescaping XML entities;
 * returns false if absent. */
static bool xml_text(const char *from, const char *to, const char *tag, char *out, size_t size) {
  char open_tag[64], close_tag[64];
  snprintf(open_tag, sizeof open_tag, "<%s>", tag);
  snprintf(close_tag, sizeof close_tag, "</%s>", tag);
  const char *start = strstr(from, open_tag);
  if (!start || start >= to) return false;
  start += strlen(open_tag);
  const char *end = strstr(start, close_tag);
  if (!end || end > to) return false;
  size_t n = 0;
  static const struct {
    const char *entity;
    char c;
  } entities[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
  for (const char *p = start; p < end && n + 1 < size;) {
    bool matched = false;
    if (*p == '&')
      for (size_t e = 0; e < sizeof entities / sizeof entities[0]; e++) {
        size_t len = strlen(entities[e].entity);
        if ((size_t)(end - p) >= len && strncmp(p, entities[e].entity, len) == 0) {
          out[n++] = entities[e].c;
          p += len;
          matched = true;
          break;
        }
      }
    if (!matched) out[n++] = *p++;
  }
  out[n] = '\0';
  return true;
}

/* Finds the row of 'id' among the rows of one chapter. */
static scale_grade_row *find_row(scale_grade_report *report, const char *id) {
  for (size_t i = 0; i < report->n_rows; i++)
    if (strcmp(report->rows[i].id, id) == 0) return &report->rows[i];
  return NULL;
}

/* Applies every <test> of Check's XML log to its row; marks which rows got a result. */
static void apply_xml(const char *xml, scale_grade_report *report, bool *seen) {
  const char *p = xml;
  while ((p = strstr(p, "<test result=\"")) != NULL) {
    const char *result = p + strlen("<test result=\"");
    const char *end = strstr(p, "</test>");
    if (!end) break;
    char id[128], message[1024];
    if (xml_text(p, end, "description", id, sizeof id)) {
      scale_grade_row *row = find_row(report, id);
      if (row) {
        seen[row - report->rows] = true;
        if (!xml_text(p, end, "message", message, sizeof message)) message[0] = '\0';
        if (strncmp(result, "success\"", 8) == 0) {
          row->verdict = SCALE_GRADE_OK;
          row->score = row->points;
          row->output[0] = '\0';
        } else {
          row->score = 0.0;
          if (strncmp(result, "failure\"", 8) == 0)
            row->verdict = SCALE_GRADE_FAIL;
          else if (strstr(message, "timeout"))
            row->verdict = SCALE_GRADE_TIMEOUT;
          else
            row->verdict = SCALE_GRADE_CRASH;
          copy(row->output, sizeof row->output, message);
        }
      }
    }
    p = end;
  }
}

/* The first line of a build log that reports an error, trimmed of the build directory noise. */
static void first_error(const char *log_path, char *out, size_t size) {
  char *text = read_all(log_path, (size_t)16 << 20);
  copy(out, size, "the chapter did not build (no compiler message found)");
  if (!text) return;
  const char *patterns[] = {"error:", "Error:", "undefined reference", "Error "};
  for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
    char *hit = strstr(text, patterns[k]);
    if (!hit) continue;
    char *line = hit;
    while (line > text && line[-1] != '\n') line--;
    size_t len = strcspn(line, "\n");
    snprintf(out, size, "%.*s", (int)len, line);
    break;
  }
  free(text);
}

/* ---- the run -------------------------------------------------------------------------------- */

/* Chapter folder "01-rooflines" -> number "01" and slug "rooflines" (false if malformed). */
static bool split_chapter(const char *chapter, char *num, size_t num_size, char *slug,
                          size_t slug_size) {
  const char *dash = strchr(chapter, '-');
  if (!dash || dash == chapter || !dash[1]) return false;
  fmt_into(num, num_size, "%.*s", (int)(dash - chapter), chapter);
  copy(slug, slug_size, dash + 1);
  for (char *c = slug; *c; c++)
    if (*c == '-') *c = '_';
  return true;
}

static void set_chapter(scale_grade_report *report, const char *chapter,
                        scale_grade_verdict verdict, const char *output) {
  for (size_t i = 0; i < report->n_rows; i++)
    if (strcmp(report->rows[i].chapter, chapter) == 0) {
      report->rows[i].verdict = verdict;
      report->rows[i].score = 0.0;
      copy(report->rows[i].output, sizeof report->rows[i].output, output);
    }
}

static void say(const scale_grade_options *options, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const scale_grade_options *options, const char *fmt, ...) {
  if (!options->log) return;
  va_list args;
  va_start(args, fmt);
  vfprintf(options->log, fmt, args);
  va_end(args);
  fputc('\n', options->log);
  fflush(options->log);
}

/* Grades one chapter of the rows; the build tree is configured. */
static void grade_chapter(const scale_grade_options *options, const char *build,
                          const char *exercises, scale_grade_report *report, const char *chapter,
                          double timeout_s) {
  char num[16], slug[64], path[4096], target[128], log_path[4096], xml_path[4096];
  char message[1024];
  if (!split_chapter(chapter, num, sizeof num, slug, sizeof slug)) {
    set_chapter(report, chapter, SCALE_GRADE_BUILD, "malformed chapter name in the rubric");
    return;
  }
  fmt_into(path, sizeof path, "%s/tests/grading/test_%s_%s.c", options->source_dir, num, slug);
  if (!is_file(path)) {
    fmt_into(message, sizeof message, "no grading suite %s", path);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    return;
  }
  fmt_into(path, sizeof path, "%s/%s/%s_ex.c", exercises, chapter, slug);
  if (!is_file(path)) {
    fmt_into(message, sizeof message, "missing %s", path);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    return;
  }

  /* Build this chapter only. */
  fmt_into(target, sizeof target, "grade_%s_%s", num, slug);
  fmt_into(log_path, sizeof log_path, "%s/build-%s.log", build, chapter);
  char jobs[16];
  fmt_into(jobs, sizeof jobs, "%d", options->jobs > 0 ? options->jobs : 2);
  const char *cmake = options->cmake ? options->cmake : "cmake";
  char *build_argv[] = {(char *)(uintptr_t)cmake, "--build", (char *)(uintptr_t)build,
                        "--target", target, "-j", jobs, NULL};
  say(options, "scale grade: building %s", chapter);
  run_result built = run(build_argv, log_path, NULL, 600.0, 0.0);
  if (!built.started || built.timed_out || built.signal || built.exit_code != 0) {
    first_error(log_path, message, sizeof message);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    return;
  }

  /* Run it: every exercise in its own process, Check's XML log. */
  size_t n_cases = 0;
  const char *only = NULL;
  for (size_t i = 0; i < report->n_rows; i++)
    if (strcmp(report->rows[i].chapter, chapter) == 0) {
      n_cases++;
      only = report->rows[i].id;
    }
  fmt_into(xml_path, sizeof xml_path, "%s/%s.xml", build, chapter);
  remove(xml_path);
  char env_xml[4200], env_timeout[64], env_case[200];
  fmt_into(env_xml, sizeof env_xml, "CK_XML_LOG_FILE_NAME=%s", xml_path);
  fmt_into(env_timeout, sizeof env_timeout, "SCALE_GRADE_TIMEOUT_S=%g", timeout_s);
  fmt_into(env_case, sizeof env_case, "CK_RUN_CASE=%s", n_cases == 1 ? only : "");
  char *env[] = {env_xml, env_timeout, "CK_FORK=yes", "CK_VERBOSITY=normal",
                 "CK_TIMEOUT_MULTIPLIER=1", n_cases == 1 ? env_case : NULL, NULL};
  fmt_into(path, sizeof path, "%s/%s", build, target);
  fmt_into(log_path, sizeof log_path, "%s/run-%s.log", build, chapter);
  char *run_argv[] = {path, NULL};
  say(options, "scale grade: running %s", chapter);
  /* The suite's cases run one after another, each within timeout_s (Check enforces it); the
   * wall and CPU limits only stop a runner gone wrong. */
  double limit_s = (double)n_cases * (timeout_s + 2.0) + 30.0;
  run_result ran = run(run_argv, log_path, env, limit_s, limit_s);

  char *xml = read_all(xml_path, (size_t)64 << 20);
  bool *seen = calloc(report->n_rows ? report->n_rows : 1, sizeof *seen);
  if (xml && seen) apply_xml(xml, report, seen);
  for (size_t i = 0; i < report->n_rows; i++) {
    scale_grade_row *row = &report->rows[i];
    if (strcmp(row->chapter, chapter) != 0 || (seen && seen[i])) continue;
    row->score = 0.0;
    if (ran.timed_out) {
      row->verdict = SCALE_GRADE_TIMEOUT;
      fmt_into(row->output, sizeof row->output, "the grading run passed its %.0f s limit",
               limit_s);
    } else {
      row->verdict = SCALE_GRADE_CRASH;
      if (ran.signal)
        fmt_into(row->output, sizeof row->output, "no result: the grading run died of signal %d",
                 ran.signal);
      else
        fmt_into(row->output, sizeof row->output,
                 "no result: no test case '%s' in the grading suite (exit status %d)", row->id,
                 ran.exit_code);
    }
  }
  free(seen);
  free(xml);
}

scale_status scale_grade_run(const scale_grade_options *options, scale_grade_report *report,
                             scale_diag *diag) {
  char grading[4096], exercises[4096], build[4096], log_path[4096];
  fmt_into(grading, sizeof grading, "%s/tests/grading", options->source_dir);
  fmt_into(log_path, sizeof log_path, "%s/CMakeLists.txt", grading);
  if (!is_file(log_path))
    return fail(diag, SCALE_ERR_NOT_FOUND, log_path, 0,
                "no grading sources (is %s the scale source tree? try --source)",
                options->source_dir);
  if (!is_dir(options->exercises_dir) || !realpath(options->exercises_dir, exercises))
    return fail(diag, SCALE_ERR_NOT_FOUND, options->exercises_dir, 0,
                "no such exercises folder");

  bool temporary = options->build_dir == NULL;
  if (temporary) {
    const char *tmp = getenv("TMPDIR");
    fmt_into(build, sizeof build, "%s/scale-grade-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(build))
      return fail(diag, SCALE_ERR_IO, build, 0, "cannot make a build directory: %s",
                  strerror(errno));
  } else {
    copy(build, sizeof build, options->build_dir);
    if (!is_dir(build) && mkdir(build, 0755) != 0)
      return fail(diag, SCALE_ERR_IO, build, 0, "cannot make the build directory: %s",
                  strerror(errno));
  }

  /* Configure the private tree for this student's folder. */
  char define[4200];
  fmt_into(define, sizeof define, "-DSCALE_EXERCISES_DIR=%s", exercises);
  char solutions[4200];
  fmt_into(solutions, sizeof solutions, "-DSCALE_SOLUTIONS_DIR=%s/solutions",
           options->source_dir);
  const char *cmake = options->cmake ? options->cmake : "cmake";
  char *configure_argv[] = {(char *)(uintptr_t)cmake, "-S", grading, "-B", build, define,
                            solutions, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", NULL};
  fmt_into(log_path, sizeof log_path, "%s/configure.log", build);
  say(options, "scale grade: configuring %s for %s", build, exercises);
  run_result configured = run(configure_argv, log_path, NULL, 300.0, 0.0);
  if (!configured.started || configured.timed_out || configured.signal ||
      configured.exit_code != 0) {
    return fail(diag, SCALE_ERR_IO, log_path, 0,
                "cmake could not configure the grading build (exit %d; see this log)",
                configured.exit_code);
  }

  double timeout_s = options->timeout_s > 0.0 ? options->timeout_s : 5.0;
  for (size_t i = 0; i < report->n_rows; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = strcmp(report->rows[j].chapter, report->rows[i].chapter) != 0;
    if (first) grade_chapter(options, build, exercises, report, report->rows[i].chapter, timeout_s);
  }

  if (temporary) nftw(build, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return SCALE_OK;
}
