/* student.c — grading one student: a private copy of their files, compile and link in the
 * sandbox, then each exercise as a pair of processes with a verdict.
 *
 * The student's build tree BUILD (the grader's own, never the student's folder):
 *   BUILD/src/NN-slug/      copies of the student's regular files (links are not followed)
 *   BUILD/harness/NN-slug/  copies of the contract header and the driver object, read-only,
 *                           compared byte for byte with the harness before every link
 *   BUILD/out/NN-slug/      the only folder the compiler and linker may write (object, server)
 *   BUILD/logs/             build and run logs: the grader's, reached by the student's
 *                           processes only through the file descriptors they are given
 *   BUILD/root/             the mount point of the sandbox's root (sandbox.h)
 * An exercise: the student's server runs in the sandbox (its out folder read-only, a private
 * /tmp), the trusted checker runs outside with only the pipes in common (grading_channel.h); the
 * checker reports the verdict of the case on a third pipe, and the grader adds what became of
 * the server (exit, signal, timeout) when the checker says it got no reply.
 */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY, pipe2, strsignal, fdopendir */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "student.h"
#include "util.h"
#include "sandbox.h"

/* The checker's marks (tests/grading/grading_channel.h). */
#define NO_REPLY "no reply from the exercise"

enum { MAX_FILES = 64 };                      /* files copied from one chapter folder */
static const size_t max_file_bytes = 1 << 20; /* per file */
static const double mib = 1024.0 * 1024.0;

/* Paths of one chapter of one student. */
typedef struct {
  const char *chapter; /* "01-rooflines" */
  char num[16], slug[64];
  char tree[4200], src[4200], harness[4200], out[4200], root[4200], tmp[4200];
  char source[4400], contract[4400], driver[4400], object[4400], server[4400];
  char build_log[4400], run_log[4400];
  unsigned outside_uid;
} chapter_paths;

static void set_chapter(scale_grade_report *report, const char *chapter,
                        scale_grade_verdict verdict, const char *output) {
  for (size_t i = 0; i < report->n_rows; i++)
    if (strcmp(report->rows[i].chapter, chapter) == 0) {
      report->rows[i].verdict = verdict;
      report->rows[i].score = 0.0;
      grade_fmt(report->rows[i].output, sizeof report->rows[i].output, "%s", output);
    }
}

static void set_row(scale_grade_row *row, scale_grade_verdict verdict, const char *output) {
  row->verdict = verdict;
  row->score = verdict == SCALE_GRADE_OK ? row->points : 0.0;
  grade_fmt(row->output, sizeof row->output, "%s", output);
}

/* ---- the private copy ----------------------------------------------------------------------- */

/* Copies the regular files of the student's folder 'chapter' into p->src: the main file, then
 * at most MAX_FILES - 1 others. False (with the reason in 'why') when the folder or its main
 * file is missing or is a link. */
static bool copy_chapter(int exercises_fd, const chapter_paths *p, char *why, size_t why_size) {
  char main_file[128], contract_file[128];
  grade_fmt(main_file, sizeof main_file, "%s_ex.c", p->slug);
  grade_fmt(contract_file, sizeof contract_file, "%s_ex.h", p->slug);
  int dir_fd = openat(exercises_fd, p->chapter, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0) {
    struct stat st;
    bool link =
        fstatat(exercises_fd, p->chapter, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    grade_fmt(why, why_size, link ? "%s is a symbolic link: not followed" : "missing %s/%s",
              p->chapter, main_file);
    return false;
  }
  /* The main file first, by name: however many other files the folder holds, they cannot
   * push it past the limit. */
  char dst[4400];
  grade_fmt(dst, sizeof dst, "%s/%s", p->src, main_file);
  if (!grade_copy_file_at(dir_fd, main_file, dst, 0644, max_file_bytes)) {
    close(dir_fd);
    grade_fmt(why, why_size, "missing %s/%s (or not a regular file of at most 1 MiB)", p->chapter,
              main_file);
    return false;
  }
  DIR *dir = fdopendir(dir_fd);
  if (!dir) {
    close(dir_fd);
    grade_fmt(why, why_size, "cannot read %s", p->chapter);
    return false;
  }
  int n_files = 1;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL && n_files < MAX_FILES) {
    const char *name = entry->d_name;
    if (name[0] == '.' || strcmp(name, contract_file) == 0 || strcmp(name, main_file) == 0 ||
        strchr(name, '/'))
      continue;
    grade_fmt(dst, sizeof dst, "%s/%s", p->src, name);
    if (grade_copy_file_at(dirfd(dir), name, dst, 0644, max_file_bytes))
      n_files++; /* links, folders and huge files are not copied */
  }
  closedir(dir);
  return true;
}

/* Whether files 'a' and 'b' hold the same bytes. */
static bool same_file(const char *a, const char *b) {
  size_t size_a = 0, size_b = 0;
  char *text_a = grade_read_all(a, (size_t)64 << 20, &size_a);
  char *text_b = grade_read_all(b, (size_t)64 << 20, &size_b);
  bool same = text_a && text_b && size_a == size_b && memcmp(text_a, text_b, size_a) == 0;
  free(text_a);
  free(text_b);
  return same;
}

/* Copies harness file 'src' (the grader's own, a path) to 'dst', read-only. */
static bool copy_harness_file(const char *src, const char *dst) {
  return grade_copy_file_at(AT_FDCWD, src, dst, 0444, (size_t)64 << 20);
}

/* ---- the recipe ----------------------------------------------------------------------------- */

/* The recipe of one chapter (tests/grading/CMakeLists.txt), as pointers into 'text'. */
#define RECIPE_MAX 256
typedef struct {
  char *text;
  char *cc, *driver, *contract, *checker;
  char *cflags[RECIPE_MAX], *lflags[RECIPE_MAX], *libs[RECIPE_MAX];
  size_t n_cflags, n_lflags, n_libs;
} recipe;

static bool recipe_load(const char *path, recipe *r) {
  memset(r, 0, sizeof *r);
  r->text = grade_read_all(path, (size_t)1 << 20, NULL);
  if (!r->text) return false;
  for (char *line = r->text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *tab = strchr(line, '\t');
    if (tab && tab[1]) {
      *tab = '\0';
      char *arg = tab + 1;
      if (strcmp(line, "cc") == 0)
        r->cc = arg;
      else if (strcmp(line, "driver") == 0)
        r->driver = arg;
      else if (strcmp(line, "contract") == 0)
        r->contract = arg;
      else if (strcmp(line, "checker") == 0)
        r->checker = arg;
      else if (strcmp(line, "cflag") == 0 && r->n_cflags < RECIPE_MAX)
        r->cflags[r->n_cflags++] = arg;
      else if (strcmp(line, "lflag") == 0 && r->n_lflags < RECIPE_MAX)
        r->lflags[r->n_lflags++] = arg;
      else if (strcmp(line, "lib") == 0 && r->n_libs < RECIPE_MAX)
        r->libs[r->n_libs++] = arg;
    }
    line = next;
  }
  return r->cc && r->driver && r->contract && r->checker;
}

/* ---- build ---------------------------------------------------------------------------------- */

/* The length of the part of the student's build tree that 'path' starts with ("src/",
 * "harness/", "out/"; 0 if none): what a report shows is the chapter's own name for a file. */
static size_t tree_part(const char *path) {
  static const char *const parts[] = {"src/", "harness/", "out/"};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    if (strncmp(path, parts[k], strlen(parts[k])) == 0) return strlen(parts[k]);
  return 0;
}

/* The first line of a build log that reports an error (else its last line that is not blank),
 * with the student's build tree 'strip' removed from the paths it names (a report names the
 * chapter's files, never the grader's folders); "" for an empty log. */
static void first_error(const char *log_path, const char *strip, char *out, size_t size) {
  char *text = grade_read_all(log_path, (size_t)16 << 20, NULL);
  grade_fmt(out, size, "%s", "");
  if (!text) return;
  const char *patterns[] = {"error:", "Error:", "undefined reference", "Error "};
  char *hit = NULL;
  for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
    char *found = strstr(text, patterns[k]);
    if (found && (!hit || found < hit)) hit = found;
  }
  if (!hit) {
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
      end--;
    text[end] = '\0';
    hit = end > 0 ? text + end - 1 : NULL;
  }
  if (hit) {
    char *line = hit;
    while (line > text && line[-1] != '\n')
      line--;
    size_t len = strcspn(line, "\n");
    size_t strip_len = strlen(strip);
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < size;) {
      if (strip_len && strncmp(line + i, strip, strip_len) == 0 && line[i + strip_len] == '/') {
        i += strip_len + 1;
        i += tree_part(line + i); /* "01-rooflines/rooflines_ex.c", wherever it lies */
        continue;
      }
      out[n++] = line[i++];
    }
    out[n] = '\0';
  }
  free(text);
}

static char *const build_env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C",
                                  NULL};
/* Landlock: no /tmp; TMPDIR is the tree's own tmp/ (relative: see tree_path). */
static char *const confined_build_env[] = {"PATH=/usr/bin:/bin", "HOME=tmp", "TMPDIR=tmp",
                                           "LC_ALL=C", NULL};

/* 'path' as a program of 'g' names it. Under Landlock a root grader's student runs with its
 * own uid in the tree it was started in: the folders above the tree (a 0700 temporary folder)
 * are not its to cross, so the paths are relative to the tree ("src/01-rooflines/x.c"). */
static char *tree_path(const grader *g, const chapter_paths *p, char *path) {
  size_t len = strlen(p->tree);
  if (g->mode == SANDBOX_LANDLOCK && strncmp(path, p->tree, len) == 0 && path[len] == '/')
    return path + len + 1;
  return path;
}

/* The sandbox of a compile or link: its sources and harness copy read-only, its out folder
 * writable, output to the build log. */
static sandbox_spec build_spec(const grader *g, const chapter_paths *p, char **argv, int log_fd) {
  const scale_grade_options *o = g->options;
  double compile_s = o->compile_timeout_s > 0.0 ? o->compile_timeout_s : 60.0;
  double memory = o->memory_bytes > 2048.0 * mib ? o->memory_bytes : 2048.0 * mib;
  bool confined = g->mode == SANDBOX_LANDLOCK;
  sandbox_spec spec = {.argv = argv,
                       .envp = confined ? confined_build_env : build_env,
                       .cwd = confined ? p->tree : p->out,
                       .root_dir = p->root,
                       .writable = {p->out, confined ? p->tmp : NULL},
                       .readonly = {p->src, p->harness},
                       .fds = {-1, log_fd, log_fd, -1, -1, -1},
                       .cpu_s = compile_s,
                       .memory_bytes = memory,
                       .output_bytes = o->output_bytes > 0.0 ? o->output_bytes : 64.0 * mib,
                       .tmp_bytes = 256.0 * mib,
                       .n_procs = GRADE_STUDENT_PROCS,
                       .outside_uid = p->outside_uid,
                       .mode = g->mode};
  return spec;
}

/* Compiles the student's main file, then links it with the driver copy; false (the chapter's
 * rows set to BUILD) on failure. */
static bool build_chapter(const grader *g, chapter_paths *p, const recipe *r, const char *strip,
                          scale_grade_report *report) {
  char *argv[2 * RECIPE_MAX + 16], include[4300], message[1024], why[256];
  double compile_s = g->options->compile_timeout_s > 0.0 ? g->options->compile_timeout_s : 60.0;
  grade_fmt(include, sizeof include, "-I%s", tree_path(g, p, p->harness));
  int log_fd = open(p->build_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  for (int step = 0; step < 2; step++) {
    size_t n = 0;
    argv[n++] = r->cc;
    if (step == 0) {
      for (size_t i = 0; i < r->n_cflags; i++)
        argv[n++] = r->cflags[i];
      argv[n++] = include;
      argv[n++] = "-c";
      argv[n++] = tree_path(g, p, p->source);
      argv[n++] = "-o";
      argv[n++] = tree_path(g, p, p->object);
    } else {
      /* The driver copy must still be the harness's own bytes. */
      if (!same_file(r->driver, p->driver)) {
        set_chapter(report, p->chapter, SCALE_GRADE_BUILD,
                    "the harness copy changed before the link: refused");
        close(log_fd);
        return false;
      }
      for (size_t i = 0; i < r->n_lflags; i++)
        argv[n++] = r->lflags[i];
      argv[n++] = "-o";
      argv[n++] = tree_path(g, p, p->server);
      argv[n++] = tree_path(g, p, p->driver);
      argv[n++] = tree_path(g, p, p->object);
      for (size_t i = 0; i < r->n_libs; i++)
        argv[n++] = r->libs[i];
    }
    argv[n] = NULL;
    sandbox_spec spec = build_spec(g, p, argv, log_fd);
    sandbox_result built = sandbox_run(&spec, compile_s, why, sizeof why);
    if (built.started && !built.timed_out && !built.signal && built.exit_code == 0) continue;
    first_error(p->build_log, strip, message, sizeof message);
    const char *tool = step ? "linker" : "compiler";
    if (why[0])
      grade_fmt(message, sizeof message, "the sandbox could not start the %s: %s", tool, why);
    else if (built.timed_out)
      grade_fmt(message, sizeof message, "the %s passed its %g s limit", tool, compile_s);
    else if (!message[0] && built.signal)
      grade_fmt(message, sizeof message, "the %s died of signal %d (a resource limit?)", tool,
                built.signal);
    else if (!message[0])
      grade_fmt(message, sizeof message, "the chapter did not %s (exit status %d; no message)",
                step ? "link" : "compile", built.exit_code);
    set_chapter(report, p->chapter, SCALE_GRADE_BUILD, message);
    close(log_fd);
    return false;
  }
  close(log_fd);
  return true;
}

/* ---- one exercise --------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The checker's line for 'id' in 'text' ("ID<TAB>ok|fail|error<TAB>PARTS<TAB>message", see
 * grading_channel.h): its verdict word, parts and message, or false if absent. */
static bool report_line(char *text, const char *id, char **verdict, char **parts, char **message) {
  size_t id_len = strlen(id);
  for (char *line = text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *tab1 = NULL, *tab2 = NULL, *tab3 = NULL;
    if (strncmp(line, id, id_len) == 0 && line[id_len] == '\t') {
      tab1 = line + id_len;
      tab2 = strchr(tab1 + 1, '\t');
      tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
    }
    if (tab3) {
      *tab2 = *tab3 = '\0';
      *verdict = tab1 + 1;
      *parts = tab2 + 1;
      *message = tab3 + 1;
      return true;
    }
    line = next;
  }
  return false;
}

/* The points of a failed case from its parts (grading_channel.h): the value part when only
 * domain checks fail (rubric "V+D"); a decision's "credit=X" (0 <= X < 1, the ratio of the best
 * choice's cost to the student's) earns X of the value part, and the domain part with it when
 * X > 0 and the domain checks pass. Anything else, or a malformed credit, earns nothing. */
static double partial_score(const scale_grade_row *row, const char *parts) {
  double value_points = row->points - row->domain_points;
  if (strcmp(parts, "value=ok domain=fail") == 0) return value_points;
  const char *credit = strstr(parts, "credit=");
  if (!credit) return 0.0;
  char text[64];
  credit += strlen("credit=");
  grade_fmt(text, sizeof text, "%.*s", (int)strcspn(credit, " "), credit);
  double x = 0.0;
  if (!grade_strict_number(text, &x) || !(x >= 0.0 && x <= 1.0)) return 0.0;
  double score = x * value_points;
  if (x > 0.0 && strstr(parts, "domain=ok")) score += row->domain_points;
  return score;
}

/* The verdict of 'row' from the checker's report and the server's end. */
static void decide(scale_grade_row *row, char *report, const sandbox_result *server,
                   double timeout_s) {
  char *verdict = NULL, *parts = NULL, *message = NULL, detail[1024];
  if (!report || !report_line(report, row->id, &verdict, &parts, &message)) {
    if (server->timed_out)
      grade_fmt(detail, sizeof detail, "the exercise passed its %g s limit", timeout_s);
    else
      grade_fmt(detail, sizeof detail,
                "no result from the checker (the grader's fault: please "
                "report it)");
    set_row(row, server->timed_out ? SCALE_GRADE_TIMEOUT : SCALE_GRADE_CRASH, detail);
    return;
  }
  if (strcmp(verdict, "ok") == 0) {
    set_row(row, SCALE_GRADE_OK, "");
    return;
  }
  const char *during = strstr(message, " during ");
  char call[768];
  grade_fmt(call, sizeof call, "%s",
            during && strncmp(message, NO_REPLY, strlen(NO_REPLY)) == 0
                ? during + strlen(" during ")
                : "");
  if (!call[0]) {
    set_row(row, strcmp(verdict, "fail") == 0 ? SCALE_GRADE_FAIL : SCALE_GRADE_CRASH, message);
    if (strcmp(verdict, "fail") == 0) row->score = partial_score(row, parts);
    /* Points to 0.01, the same in every report (a credit is any fraction: 1.50825 -> 1.51). */
    row->score = round(100.0 * row->score) / 100.0;
    if (row->score > 0.0) row->verdict = SCALE_GRADE_PARTIAL; /* some points, not all */
  } else if (server->timed_out) {
    grade_fmt(detail, sizeof detail, "passed its %g s limit during %s", timeout_s, call);
    set_row(row, SCALE_GRADE_TIMEOUT, detail);
  } else if (server->signal) {
    grade_fmt(detail, sizeof detail, "killed by signal %d (%s) during %s", server->signal,
              strsignal(server->signal), call);
    set_row(row, SCALE_GRADE_CRASH, detail);
  } else {
    grade_fmt(detail, sizeof detail, "exercise exited before returning (exit status %d) during %s",
              server->exit_code, call);
    set_row(row, SCALE_GRADE_FAIL, detail);
  }
}

/* Reads what the checker wrote on 'fd' (small: one line per case) until end of file. */
static char *read_report(int fd) {
  size_t cap = 8192, len = 0;
  char *text = malloc(cap);
  while (text && len + 1 < cap) {
    ssize_t n = read(fd, text + len, cap - 1 - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
  }
  if (text) text[len] = '\0';
  return text;
}

/* Runs exercise 'row': the server in the sandbox, the checker outside, until both end or the
 * time limit; then the verdict. */
/* The exercise's three pipes (requests, replies, the checker's report) and its run log, which
 * holds the last exercise's output only, at most a MiB (RLIMIT_FSIZE): a class of chatty or
 * hostile students cannot fill the grader's disk. False (everything closed) on a failure. */
static bool open_channels(const chapter_paths *p, int req[2], int rep[2], int rpt[2],
                          int *log_fd) {
  *log_fd = open(p->run_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (!(pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC) || pipe2(rpt, O_CLOEXEC) || *log_fd < 0))
    return true;
  for (int i = 0; i < 2; i++) {
    if (req[i] >= 0) close(req[i]);
    if (rep[i] >= 0) close(rep[i]);
    if (rpt[i] >= 0) close(rpt[i]);
  }
  if (*log_fd >= 0) close(*log_fd);
  return false;
}

/* Waits for the server and its checker. The checker ends when the case does; the server when
 * its input closes. A server still running a second after its checker is done is killed (its
 * answers are all in); one past the time limit is killed, and marked timed out when its
 * checker is still running. */
static void wait_pair(const grader *g, sandbox_proc *server_proc, sandbox_result *server_end,
                      sandbox_proc *checker_proc, sandbox_result *checker_end) {
  double start = now_s(), checker_done_at = 0.0;
  bool server_done = false, checker_done = false;
  struct timespec nap = {0, 1000 * 1000};
  while (!server_done || !checker_done) {
    if (!server_done) server_done = sandbox_poll(server_proc, server_end);
    if (!checker_done && (checker_done = sandbox_poll(checker_proc, checker_end)))
      checker_done_at = now_s();
    double elapsed = now_s() - start;
    if (!server_done &&
        (elapsed > g->timeout_s || (checker_done && now_s() - checker_done_at > 1.0))) {
      sandbox_kill(server_proc, server_end);
      server_end->timed_out = !checker_done;
      server_done = true;
    }
    if (!checker_done && elapsed > g->timeout_s + 10.0) {
      sandbox_kill(checker_proc, checker_end);
      checker_done = true;
    }
    if (elapsed > 0.2) nap.tv_nsec = 10 * 1000 * 1000;
    nanosleep(&nap, NULL);
  }
}

static void run_exercise(const grader *g, chapter_paths *p, const recipe *r, scale_grade_row *row) {
  const scale_grade_options *o = g->options;
  int req[2] = {-1, -1}, rep[2] = {-1, -1}, rpt[2] = {-1, -1}, log_fd = -1;
  if (!open_channels(p, req, rep, rpt, &log_fd)) {
    set_row(row, SCALE_GRADE_CRASH, "the grader could not make pipes");
    return;
  }
  char *server_argv[] = {tree_path(g, p, p->server), NULL};
  char *server_env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C", NULL};
  sandbox_spec server = {.argv = server_argv,
                         .envp = server_env,
                         .cwd = g->mode == SANDBOX_NAMESPACES ? "/tmp"
                                : g->mode == SANDBOX_LANDLOCK ? p->tree
                                                              : p->out,
                         .root_dir = p->root,
                         .readonly = {p->out},
                         .fds = {req[0], rep[1], log_fd, -1, -1, -1},
                         .cpu_s = g->timeout_s + 1.0,
                         .memory_bytes = o->memory_bytes > 0.0 ? o->memory_bytes : 1024.0 * mib,
                         .output_bytes = mib,
                         .tmp_bytes = 16.0 * mib,
                         .n_procs = GRADE_STUDENT_PROCS,
                         .outside_uid = p->outside_uid,
                         .mode = g->mode};
  char env_case[200];
  grade_fmt(env_case, sizeof env_case, "CK_RUN_CASE=%s", row->id);
  char *checker_argv[] = {r->checker, NULL};
  /* The checker writes the messages: it leaves out the answers when asked (grading.h). */
  char *checker_env[] = {"SCALE_GRADE_CHANNEL=3,4", "SCALE_GRADE_REPORT_FD=5", env_case,
                         "CK_VERBOSITY=silent",
                         o->withhold_answers ? "SCALE_GRADE_WITHHOLD_ANSWERS=1" : NULL, NULL};
  sandbox_spec checker = {.argv = checker_argv,
                          .envp = checker_env,
                          .cwd = p->out,
                          .fds = {-1, log_fd, log_fd, rep[0], req[1], rpt[1]}};
  sandbox_proc server_proc = {-1, -1, SANDBOX_NONE, 0}, checker_proc = {-1, -1, SANDBOX_NONE, 0};
  sandbox_result server_end = {false, false, 0, 0}, checker_end = {false, false, 0, 0};
  char why[256];
  bool server_ok = sandbox_start(&server, &server_proc, why, sizeof why);
  bool checker_ok = server_ok && sandbox_start(&checker, &checker_proc, why, sizeof why);
  close(req[0]);
  close(req[1]);
  close(rep[0]);
  close(rep[1]);
  close(rpt[1]);
  close(log_fd);
  if (!checker_ok) {
    if (server_ok) sandbox_kill(&server_proc, &server_end);
    close(rpt[0]);
    char detail[512];
    grade_fmt(detail, sizeof detail, "the grader could not start the exercise: %s", why);
    set_row(row, SCALE_GRADE_CRASH, detail);
    return;
  }
  unsigned server_uid = server_proc.uid;
  wait_pair(g, &server_proc, &server_end, &checker_proc, &checker_end);
  sandbox_reap_orphans(NULL, 0, server_uid); /* what the server left, however it hid */
  char *report = read_report(rpt[0]);
  close(rpt[0]);
  decide(row, report, &server_end, g->timeout_s);
  free(report);
}

/* ---- a chapter, a student ------------------------------------------------------------------- */

static bool make_tree(const chapter_paths *p) {
  bool ok = (mkdir(p->src, 0755) == 0 || errno == EEXIST) &&
            (mkdir(p->harness, 0755) == 0 || errno == EEXIST) &&
            (mkdir(p->out, 0755) == 0 || errno == EEXIST);
  if (ok && getuid() == 0) ok = chown(p->out, p->outside_uid, p->outside_uid) == 0;
  return ok;
}

static void paths_of(const char *build, const char *chapter, unsigned outside_uid,
                     chapter_paths *p) {
  memset(p, 0, sizeof *p);
  p->chapter = chapter;
  p->outside_uid = outside_uid;
  grade_split_chapter(chapter, p->num, sizeof p->num, p->slug, sizeof p->slug);
  grade_copy(p->tree, sizeof p->tree, build);
  grade_fmt(p->tmp, sizeof p->tmp, "%s/tmp", build);
  grade_fmt(p->src, sizeof p->src, "%s/src/%s", build, chapter);
  grade_fmt(p->harness, sizeof p->harness, "%s/harness/%s", build, chapter);
  grade_fmt(p->out, sizeof p->out, "%s/out/%s", build, chapter);
  grade_fmt(p->root, sizeof p->root, "%s/root", build);
  grade_fmt(p->source, sizeof p->source, "%s/%s_ex.c", p->src, p->slug);
  grade_fmt(p->contract, sizeof p->contract, "%s/%s_ex.h", p->harness, p->slug);
  grade_fmt(p->driver, sizeof p->driver, "%s/driver.o", p->harness);
  grade_fmt(p->object, sizeof p->object, "%s/%s_ex.o", p->out, p->slug);
  grade_fmt(p->server, sizeof p->server, "%s/server", p->out);
  grade_fmt(p->build_log, sizeof p->build_log, "%s/logs/%s-build.log", build, chapter);
  grade_fmt(p->run_log, sizeof p->run_log, "%s/logs/%s-run.log", build, chapter);
}

/* Grades one chapter of a student; false when the grader could not make its build tree (the
 * grader's failure, not the student's). */
static bool grade_chapter(const grader *g, int exercises_fd, const char *build,
                          unsigned outside_uid, scale_grade_report *report, const char *chapter) {
  char path[4400], why[1024], strip[4200];
  chapter_paths p;
  char num[16], slug[64];
  if (!grade_split_chapter(chapter, num, sizeof num, slug, sizeof slug)) {
    set_chapter(report, chapter, SCALE_GRADE_BUILD, "malformed chapter name in the rubric");
    return true;
  }
  paths_of(build, chapter, outside_uid, &p);
  recipe r;
  grade_fmt(path, sizeof path, "%s/recipe-%s.tsv", g->harness, chapter);
  if (!recipe_load(path, &r)) {
    free(r.text);
    grade_fmt(why, sizeof why,
              "no grading suite for %s (tests/grading/test_%s_%s.c and its contract)", chapter, num,
              slug);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, why);
    return true;
  }
  bool made = make_tree(&p) && copy_harness_file(r.contract, p.contract) &&
              copy_harness_file(r.driver, p.driver);
  if (!made) {
    set_chapter(report, chapter, SCALE_GRADE_BUILD, "the grader could not make the build tree");
  } else if (!copy_chapter(exercises_fd, &p, why, sizeof why)) {
    set_chapter(report, chapter, SCALE_GRADE_BUILD, why);
  } else {
    grade_fmt(strip, sizeof strip, "%s", build);
    grade_say(g->options, "scale grade: compiling %s", chapter);
    if (build_chapter(g, &p, &r, strip, report)) {
      grade_say(g->options, "scale grade: running %s", chapter);
      char *text = grade_read_all(p.source, 1u << 20, NULL);
      for (size_t i = 0; i < report->n_rows; i++)
        if (strcmp(report->rows[i].chapter, chapter) == 0) {
          run_exercise(g, &p, &r, &report->rows[i]);
          if (report->rows[i].verdict != SCALE_GRADE_OK && text &&
              grade_is_stub(text, report->rows[i].id))
            set_row(&report->rows[i], SCALE_GRADE_NOT_ANSWERED,
                    "not answered yet: the body is still the stub's");
        }
      free(text);
    }
  }
  free(r.text);
  return made;
}

bool grade_student(const grader *g, int exercises_fd, const char *build, unsigned outside_uid,
                   scale_grade_report *report) {
  char path[4400];
  if (mkdir(build, 0755) != 0) return false; /* fresh: the caller removed an earlier run's */
  static const char *const parts[] = {"src", "harness", "out", "logs", "root", "tmp"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    grade_fmt(path, sizeof path, "%s/%s", build, parts[i]);
    if (mkdir(path, strcmp(parts[i], "logs") == 0 ? 0700 : 0755) != 0) return false;
  }
  char out[4400], tmp[4400];
  grade_fmt(out, sizeof out, "%s/out", build);
  grade_fmt(tmp, sizeof tmp, "%s/tmp", build);
  /* in a mount namespace of the student's worker: the tmpfs go with it however it ends */
  if (g->disk_cap && !(sandbox_private_mounts() && sandbox_mount_tmpfs(out, GRADE_STUDENT_DISK, 0) &&
                       sandbox_mount_tmpfs(tmp, GRADE_STUDENT_DISK, outside_uid))) {
    sandbox_unmount(out);
    return false;
  }
  if (getuid() == 0 && chown(tmp, outside_uid, outside_uid) != 0) return false;
  sandbox_adopt_orphans(); /* the orphans of a student's programs come back here, to be killed */
  bool made = true;
  for (size_t i = 0; i < report->n_rows; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = strcmp(report->rows[j].chapter, report->rows[i].chapter) != 0;
    if (!first) continue;
    if (exercises_fd < 0)
      set_chapter(report, report->rows[i].chapter, SCALE_GRADE_BUILD,
                  "the student's folder cannot be read");
    else
      made = grade_chapter(g, exercises_fd, build, outside_uid, report, report->rows[i].chapter) &&
             made;
  }
  if (g->disk_cap) { /* what the student wrote goes with its folders, not kept to the end */
    sandbox_unmount(out);
    sandbox_unmount(tmp);
  }
  return made;
}
