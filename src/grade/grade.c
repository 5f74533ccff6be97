/* grade.c — the rubric, the private build tree, running the grading suites, and Check's XML.
 * See grade.h for the flow.
 */
#define _GNU_SOURCE /* POSIX.1-2008 and XSI (mkdtemp, nftw, realpath, setrlimit), and Linux's
                     * unshare(2) and mount(2) for the sandbox */

#include "grade.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
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
#ifdef __linux__
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#endif

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

/* ---- processes and the sandbox -------------------------------------------------------------- */

/* The limits and the confinement of one child process. A trusted process (cmake on our own
 * sources) has writable == NULL and only a wall-clock limit; a student's compiler, linker and
 * grading run have all of them. */
typedef struct {
  const char *cwd;      /* working directory, or NULL to inherit ours */
  const char *writable; /* the one tree it may write (its build tree), or NULL: trusted */
  const char *home;     /* HOME, TMPDIR and TEMP (Check's temporary files), inside 'writable' */
  double wall_s;        /* killed with its whole process group after this long (0: no limit) */
  double cpu_s;         /* RLIMIT_CPU of each of its processes (0: none) */
  double memory_bytes;  /* RLIMIT_AS (0: none) */
  double output_bytes;  /* RLIMIT_FSIZE: the largest file it may write, logs included (0: none) */
  bool isolate;         /* namespaces (user, mount, PID, network, IPC): probed to work */
} limits;

/* How a child process ended. */
typedef struct {
  bool started;   /* fork and exec worked */
  bool timed_out; /* killed by us after its wall-clock limit */
  int exit_code;  /* when it exited */
  int signal;     /* when a signal ended it (0 otherwise) */
} run_result;

static void set_limit(int resource, double value, double hard_extra) {
  if (!(value > 0.0)) return;
  struct rlimit limit;
  limit.rlim_cur = (rlim_t)value;
  limit.rlim_max = (rlim_t)(value + hard_extra);
  setrlimit(resource, &limit);
}

#ifdef __linux__
static bool write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) return false;
  size_t len = strlen(text);
  bool ok = write(fd, text, len) == (ssize_t)len;
  return close(fd) == 0 && ok;
}

/* Decodes the octal escapes (\040 for a space) of a mountinfo field in place. */
static void unescape_octal(char *text) {
  char *out = text;
  for (const char *p = text; *p;) {
    if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
        p[3] <= '7') {
      *out++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
      p += 4;
    } else {
      *out++ = *p++;
    }
  }
  *out = '\0';
}

/* Whether 'path' is 'dir' or inside it. */
static bool inside(const char *path, const char *dir) {
  size_t len = strlen(dir);
  return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* Confines the calling process (a child about to exec a student's code): new user, mount, PID,
 * network and IPC namespaces; 'writable' bind-mounted on itself; every other mount remounted
 * read-only. Returns false when the kernel does not allow it (the caller then exits: this only
 * runs after probe_sandbox() said it works). The PID namespace takes effect for the next fork:
 * the caller forks once more so that the student's processes die with its first one. */
static bool enter_sandbox(const char *writable) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC) != 0)
    return false;
  char map[64];
  snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
  if (!write_text("/proc/self/uid_map", map)) return false;
  write_text("/proc/self/setgroups", "deny"); /* absent before Linux 3.19 */
  snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
  if (!write_text("/proc/self/gid_map", map)) return false;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return false;
  if (mount(writable, writable, NULL, MS_BIND | MS_REC, NULL) != 0) return false;
  FILE *mounts = fopen("/proc/self/mountinfo", "r");
  if (!mounts) return false;
  bool root_done = false;
  char line[8192];
  while (fgets(line, sizeof line, mounts)) {
    /* Fields: id parent major:minor root MOUNT_POINT options ... */
    char *field = line, *point = NULL;
    for (int i = 0; i < 5 && field; i++) {
      point = field;
      char *space = strchr(field, ' ');
      if (space) *space = '\0';
      field = space ? space + 1 : NULL;
    }
    if (!field || !point) continue;
    unescape_octal(point);
    if (inside(point, writable)) continue;
    struct statvfs vfs;
    if (statvfs(point, &vfs) != 0) continue;
    if (vfs.f_flag & ST_RDONLY) {
      if (strcmp(point, "/") == 0) root_done = true;
      continue;
    }
    /* The flags a user namespace may not drop must be restated on a remount. */
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    if (vfs.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (vfs.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (vfs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (vfs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (vfs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (vfs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    if (mount(NULL, point, NULL, flags, NULL) == 0 && strcmp(point, "/") == 0) root_done = true;
  }
  fclose(mounts);
  return root_done;
}
#endif

#ifdef __linux__
/* Kills every child of ours and reaps it, until none is left: the processes a student's code
 * left behind (escaped from its process group with setsid) and that were handed to us as the
 * child subreaper. */
static void kill_leftovers(void) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
  for (int round = 0; round < 1000; round++) {
    FILE *children = fopen(path, "r");
    if (!children) return;
    long child;
    int n = 0;
    while (fscanf(children, "%ld", &child) == 1) {
      kill((pid_t)child, SIGKILL);
      n++;
    }
    fclose(children);
    if (n == 0) return;
    for (int i = 0; i < n; i++)
      if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) return;
  }
}
#endif

/* Waits for process 'inner', kills what it left behind when 'reap' (we are its subreaper), and
 * relays how it ended as our own ending (exit status or the same signal). */
static void relay(pid_t inner, bool reap) __attribute__((noreturn));

static void relay(pid_t inner, bool reap) {
  int status = 0;
  while (waitpid(inner, &status, 0) < 0)
    if (errno != EINTR) _exit(125);
#ifdef __linux__
  if (reap) kill_leftovers();
#else
  (void)reap;
#endif
  if (WIFSIGNALED(status)) {
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);
}

/* Runs argv with stdout and stderr appended to 'log_path' and the extra environment 'env'
 * (NAME=VALUE, NULL-terminated, may be NULL), in its own process group, under 'lim'; kills
 * the whole group after lim->wall_s. */
static run_result run(char *const argv[], const char *log_path, char *const env[],
                      const limits *lim) {
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
    if (lim->home) {
      setenv("HOME", lim->home, 1);
      setenv("TMPDIR", lim->home, 1);
      setenv("TEMP", lim->home, 1);
    }
#ifdef __linux__
    if (lim->writable) {
      /* Confined: the next process is the first of a new PID namespace, and all the student's
       * processes die with it. Otherwise we become the subreaper of what it leaves behind. */
      if (lim->isolate && !enter_sandbox(lim->writable)) {
        fprintf(stderr, "scale grade: the sandbox could not be set up: %s\n", strerror(errno));
        _exit(125);
      }
      if (!lim->isolate) prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
      fflush(NULL);
      pid_t inner = fork();
      if (inner < 0) _exit(125);
      if (inner > 0) relay(inner, !lim->isolate);
    }
#endif
    /* After the sandbox's mounts: a directory entered before them would be the read-only one. */
    if (lim->cwd && chdir(lim->cwd) != 0) {
      fprintf(stderr, "scale grade: cannot enter %s: %s\n", lim->cwd, strerror(errno));
      _exit(127);
    }
    if (lim->writable) {
      set_limit(RLIMIT_CPU, ceil(lim->cpu_s), 1.0);
      set_limit(RLIMIT_AS, lim->memory_bytes, 0.0);
      set_limit(RLIMIT_FSIZE, lim->output_bytes, 0.0);
      struct rlimit core = {0, 0};
      setrlimit(RLIMIT_CORE, &core);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "scale grade: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  result.started = true;
  struct timespec start, now, nap = {0, 10 * 1000 * 1000};
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
    if (lim->wall_s > 0.0 && elapsed > lim->wall_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    /* Short naps first: most student processes end within a few hundred milliseconds. */
    if (elapsed > 1.0) nap.tv_nsec = 50 * 1000 * 1000;
    nanosleep(&nap, NULL);
  }
  kill(-pid, SIGKILL); /* leftovers of the group (forked test cases) */
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (result.exit_code == 127 && !result.timed_out) result.started = false;
  return result;
}

/* Whether the namespaces of enter_sandbox() work here: a child confined to 'dir' can write in
 * it and cannot write next to it. */
static bool probe_sandbox(const char *dir) {
#ifdef __linux__
  char inner[4096], outside[4200], within[4200];
  fmt_into(inner, sizeof inner, "%s/inner", dir);
  fmt_into(outside, sizeof outside, "%s/outside", dir);
  fmt_into(within, sizeof within, "%s/inside", inner);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return false;
  if (mkdir(inner, 0755) != 0 && errno != EEXIST) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    if (!enter_sandbox(inner)) _exit(1);
    int in = open(within, O_WRONLY | O_CREAT, 0644);
    int out = open(outside, O_WRONLY | O_CREAT, 0644);
    _exit(in >= 0 && out < 0 && errno == EROFS ? 0 : 1);
  }
  int status = 0;
  struct timespec nap = {0, 10 * 1000 * 1000};
  for (int waited = 0; waited < 500; waited++) { /* at most 5 s */
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !is_file(outside);
      remove(within);
      remove(outside);
      rmdir(inner);
      rmdir(dir);
      return ok;
    }
    if (done < 0 && errno != EINTR) return false;
    nanosleep(&nap, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return false;
#else
  (void)dir;
  return false;
#endif
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

/* The first line of a build log that reports an error (else its last line that is not blank),
 * with the student's folder 'strip' removed from the paths it names; "" for an empty log. */
static void first_error(const char *log_path, const char *strip, char *out, size_t size) {
  char *text = read_all(log_path, (size_t)16 << 20);
  copy(out, size, "");
  if (!text) return;
  const char *patterns[] = {"error:", "Error:", "undefined reference", "Error "};
  char *hit = NULL;
  for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
    char *found = strstr(text, patterns[k]);
    if (found && (!hit || found < hit)) hit = found;
  }
  if (!hit) {
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) end--;
    text[end] = '\0';
    hit = end > 0 ? text + end - 1 : NULL;
  }
  if (hit) {
    char *line = hit;
    while (line > text && line[-1] != '\n') line--;
    size_t len = strcspn(line, "\n");
    size_t strip_len = strip ? strlen(strip) : 0;
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < size;) {
      if (strip_len && strncmp(line + i, strip, strip_len) == 0 && line[i + strip_len] == '/') {
        i += strip_len + 1;
        continue;
      }
      out[n++] = line[i++];
    }
    out[n] = '\0';
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

/* A prepared grading harness: the configured and built tests/grading tree, and how students'
 * processes are confined. Shared by every student of a class. */
typedef struct {
  const scale_grade_options *options;
  char harness[4096]; /* the harness build tree: recipe-NN-slug.tsv, suite and reference objects */
  bool isolate;       /* probe_sandbox() said the namespaces work */
  double timeout_s;   /* per exercise */
} grader;

/* The recipe of one chapter (see tests/grading/CMakeLists.txt): the compiler, the flags and the
 * harness objects, as pointers into 'text'. */
#define RECIPE_MAX 256
typedef struct {
  char *text;
  char *cc;
  char *cflags[RECIPE_MAX], *lflags[RECIPE_MAX], *objs[RECIPE_MAX], *libs[RECIPE_MAX];
  size_t n_cflags, n_lflags, n_objs, n_libs;
} recipe;

static bool recipe_load(const char *path, recipe *r) {
  memset(r, 0, sizeof *r);
  r->text = read_all(path, (size_t)1 << 20);
  if (!r->text) return false;
  for (char *line = r->text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *tab = strchr(line, '\t');
    if (tab && tab[1]) {
      *tab = '\0';
      char *arg = tab + 1;
      if (strcmp(line, "cc") == 0) r->cc = arg;
      else if (strcmp(line, "cflag") == 0 && r->n_cflags < RECIPE_MAX) r->cflags[r->n_cflags++] = arg;
      else if (strcmp(line, "lflag") == 0 && r->n_lflags < RECIPE_MAX) r->lflags[r->n_lflags++] = arg;
      else if (strcmp(line, "obj") == 0 && r->n_objs < RECIPE_MAX) r->objs[r->n_objs++] = arg;
      else if (strcmp(line, "lib") == 0 && r->n_libs < RECIPE_MAX) r->libs[r->n_libs++] = arg;
    }
    line = next;
  }
  return r->cc != NULL && r->n_objs > 0;
}

/* Grades one chapter of a student: compiles their file, links it with the chapter's harness
 * objects and runs the suite, all inside the student's build tree 'build'. */
static void grade_chapter(const grader *g, const char *build, const char *exercises,
                          scale_grade_report *report, const char *chapter) {
  const scale_grade_options *options = g->options;
  char num[16], slug[64], path[4096], dir[4200], source[4200], object[4400], exe[4400];
  char log_path[4400], xml_path[4400], home[4200], message[1024];
  if (!split_chapter(chapter, num, sizeof num, slug, sizeof slug)) {
    set_chapter(report, chapter, SCALE_GRADE_BUILD, "malformed chapter name in the rubric");
    return;
  }
  recipe r;
  fmt_into(path, sizeof path, "%s/recipe-%s.tsv", g->harness, chapter);
  if (!recipe_load(path, &r)) {
    free(r.text);
    fmt_into(message, sizeof message,
             "no grading suite for %s (tests/grading/test_%s_%s.c and its contract)", chapter,
             num, slug);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    return;
  }
  fmt_into(source, sizeof source, "%s/%s/%s_ex.c", exercises, chapter, slug);
  if (!is_file(source)) {
    free(r.text);
    fmt_into(message, sizeof message, "missing %s/%s_ex.c", chapter, slug);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    return;
  }
  fmt_into(dir, sizeof dir, "%s/%s", build, chapter);
  fmt_into(home, sizeof home, "%s/tmp", build);
  mkdir(dir, 0755);
  fmt_into(object, sizeof object, "%s/%s_ex.o", dir, slug);
  fmt_into(exe, sizeof exe, "%s/grade_%s_%s", dir, num, slug);
  fmt_into(log_path, sizeof log_path, "%s/build.log", dir);
  remove(object);
  remove(exe);
  remove(log_path);
  /* The compiler and the linker: as confined as the student's code (the source may include
   * anything, and a pathological file can make cc1 run long or grow large). */
  const double gib = (double)(1 << 30), mib = (double)(1 << 20);
  double compile_s = options->compile_timeout_s > 0.0 ? options->compile_timeout_s : 60.0;
  limits compile = {
      .cwd = dir,
      .writable = build,
      .home = home,
      .wall_s = compile_s,
      .cpu_s = compile_s,
      .memory_bytes = options->memory_bytes > 2.0 * gib ? options->memory_bytes : 2.0 * gib,
      .output_bytes = options->output_bytes > 0.0 ? options->output_bytes : 64.0 * mib,
      .isolate = g->isolate,
  };

  /* Compile the student's file, then link it: both time- and memory-limited. */
  char *argv[4 * RECIPE_MAX + 16];
  size_t n = 0;
  argv[n++] = r.cc;
  for (size_t i = 0; i < r.n_cflags; i++) argv[n++] = r.cflags[i];
  argv[n++] = "-c";
  argv[n++] = source;
  argv[n++] = "-o";
  argv[n++] = object;
  argv[n] = NULL;
  say(options, "scale grade: compiling %s", chapter);
  for (int step = 0; step < 2; step++) {
    if (step == 1) {
      n = 0;
      argv[n++] = r.cc;
      for (size_t i = 0; i < r.n_lflags; i++) argv[n++] = r.lflags[i];
      argv[n++] = "-o";
      argv[n++] = exe;
      for (size_t i = 0; i < r.n_objs; i++) argv[n++] = r.objs[i];
      argv[n++] = object;
      for (size_t i = 0; i < r.n_libs; i++) argv[n++] = r.libs[i];
      argv[n] = NULL;
    }
    run_result built = run(argv, log_path, NULL, &compile);
    if (built.started && !built.timed_out && !built.signal && built.exit_code == 0) continue;
    first_error(log_path, exercises, message, sizeof message);
    if (built.timed_out)
      fmt_into(message, sizeof message, "the %s passed its %g s limit",
               step ? "linker" : "compiler", compile.wall_s);
    else if (!message[0] && built.signal)
      fmt_into(message, sizeof message, "the %s died of signal %d (a resource limit?)",
               step ? "linker" : "compiler", built.signal);
    else if (!message[0])
      fmt_into(message, sizeof message, "the chapter did not %s (exit status %d; no message)",
               step ? "link" : "compile", built.exit_code);
    set_chapter(report, chapter, SCALE_GRADE_BUILD, message);
    free(r.text);
    return;
  }
  free(r.text);

  /* Run it: every exercise in its own process, Check's XML log. */
  size_t n_cases = 0;
  const char *only = NULL;
  for (size_t i = 0; i < report->n_rows; i++)
    if (strcmp(report->rows[i].chapter, chapter) == 0) {
      n_cases++;
      only = report->rows[i].id;
    }
  fmt_into(xml_path, sizeof xml_path, "%s/check.xml", dir);
  remove(xml_path);
  char env_xml[4500], env_timeout[64], env_case[200];
  fmt_into(env_xml, sizeof env_xml, "CK_XML_LOG_FILE_NAME=%s", xml_path);
  fmt_into(env_timeout, sizeof env_timeout, "SCALE_GRADE_TIMEOUT_S=%g", g->timeout_s);
  fmt_into(env_case, sizeof env_case, "CK_RUN_CASE=%s", n_cases == 1 ? only : "");
  char *env[] = {env_xml, env_timeout, "CK_FORK=yes", "CK_VERBOSITY=normal",
                 "CK_TIMEOUT_MULTIPLIER=1", n_cases == 1 ? env_case : NULL, NULL};
  fmt_into(log_path, sizeof log_path, "%s/run.log", dir);
  remove(log_path);
  char *run_argv[] = {exe, NULL};
  say(options, "scale grade: running %s", chapter);
  /* The suite's cases run one after another, each within timeout_s (Check enforces it); the
   * wall-clock limit only stops a runner gone wrong. CPU time is limited per process: one
   * exercise's process cannot use more than its timeout. */
  limits running = compile;
  running.wall_s = (double)n_cases * (g->timeout_s + 1.0) + 10.0;
  running.cpu_s = running.wall_s;
  running.memory_bytes = options->memory_bytes > 0.0 ? options->memory_bytes : gib;
  run_result ran = run(run_argv, log_path, env, &running);

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
               running.wall_s);
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

/* Grades every chapter of 'report' for the student folder 'exercises' (absolute) in the
 * student's build tree 'build' (made here). */
static void grade_student(const grader *g, const char *exercises, const char *build,
                          scale_grade_report *report) {
  char home[4200];
  fmt_into(home, sizeof home, "%s/tmp", build);
  mkdir(build, 0755);
  mkdir(home, 0755);
  for (size_t i = 0; i < report->n_rows; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = strcmp(report->rows[j].chapter, report->rows[i].chapter) != 0;
    if (first) grade_chapter(g, build, exercises, report, report->rows[i].chapter);
  }
}

static int online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 && n <= 1024 ? (int)n : 1;
}

/* Makes the build tree (a temporary one when options->build_dir is NULL) into 'build'. */
static scale_status make_build_dir(const scale_grade_options *options, const char *prefix,
                                   char *build, size_t size, scale_diag *diag) {
  if (!options->build_dir) {
    const char *tmp = getenv("TMPDIR");
    fmt_into(build, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (!mkdtemp(build))
      return fail(diag, SCALE_ERR_IO, build, 0, "cannot make a build directory: %s",
                  strerror(errno));
  } else {
    copy(build, size, options->build_dir);
    if (!is_dir(build) && mkdir(build, 0755) != 0)
      return fail(diag, SCALE_ERR_IO, build, 0, "cannot make the build directory: %s",
                  strerror(errno));
  }
  char resolved[4096];
  if (realpath(build, resolved)) copy(build, size, resolved);
  return SCALE_OK;
}

/* Configures BUILD/harness for the grading sources (no student's code) and builds its suites
 * and references once; probes the sandbox. */
static scale_status prepare(const scale_grade_options *options, const char *build,
                            const scale_grade_report *report, grader *g, scale_diag *diag) {
  char grading[4096], log_path[4400];
  g->options = options;
  g->timeout_s = options->timeout_s > 0.0 ? options->timeout_s : 5.0;
  fmt_into(grading, sizeof grading, "%s/tests/grading", options->source_dir);
  fmt_into(g->harness, sizeof g->harness, "%s/harness", build);
  if (!is_dir(g->harness) && mkdir(g->harness, 0755) != 0)
    return fail(diag, SCALE_ERR_IO, g->harness, 0, "cannot make the harness directory: %s",
                strerror(errno));
  char solutions[4200];
  fmt_into(solutions, sizeof solutions, "-DSCALE_SOLUTIONS_DIR=%s/solutions",
           options->source_dir);
  const char *cmake = options->cmake ? options->cmake : "cmake";
  char *configure_argv[] = {(char *)(uintptr_t)cmake, "-S", grading, "-B", g->harness,
                            solutions, "-DSCALE_GRADING_HARNESS_ONLY=ON",
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", NULL};
  fmt_into(log_path, sizeof log_path, "%s/configure.log", g->harness);
  remove(log_path);
  limits trusted = {.wall_s = 300.0}; /* our own sources: only a wall-clock limit */
  say(options, "scale grade: configuring the grading harness in %s", g->harness);
  run_result configured = run(configure_argv, log_path, NULL, &trusted);
  if (!configured.started || configured.timed_out || configured.signal ||
      configured.exit_code != 0)
    return fail(diag, SCALE_ERR_IO, log_path, 0,
                "cmake could not configure the grading build (exit %d; see this log)",
                configured.exit_code);
  /* Build the harness of the chapters graded (harness_NN_SLUG, where a recipe says the chapter
   * has a suite), not of every chapter. */
  char jobs[16];
  fmt_into(jobs, sizeof jobs, "%d", options->jobs > 0 ? options->jobs : online_cores());
  size_t max_args = 8 + report->n_rows;
  char **build_argv = calloc(max_args, sizeof *build_argv);
  char (*targets)[96] = calloc(report->n_rows ? report->n_rows : 1, sizeof *targets);
  if (!build_argv || !targets) {
    free(build_argv);
    free(targets);
    return fail(diag, SCALE_ERR_NOMEM, NULL, 0, "out of memory");
  }
  size_t n_args = 0, n_targets = 0;
  build_argv[n_args++] = (char *)(uintptr_t)cmake;
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
    if (!first || !split_chapter(report->rows[i].chapter, num, sizeof num, slug, sizeof slug))
      continue;
    fmt_into(recipe_path, sizeof recipe_path, "%s/recipe-%s.tsv", g->harness,
             report->rows[i].chapter);
    if (!is_file(recipe_path)) continue;
    fmt_into(targets[n_targets], sizeof targets[n_targets], "harness_%s_%s", num, slug);
    build_argv[n_args++] = targets[n_targets++];
  }
  build_argv[n_args] = NULL;
  fmt_into(log_path, sizeof log_path, "%s/build.log", g->harness);
  remove(log_path);
  say(options, "scale grade: building the grading harness");
  trusted.wall_s = 900.0;
  run_result built = run(build_argv, log_path, NULL, &trusted);
  free(build_argv);
  free(targets);
  if (!built.started || built.timed_out || built.signal || built.exit_code != 0)
    return fail(diag, SCALE_ERR_IO, log_path, 0,
                "the grading harness did not build (exit %d; see this log)", built.exit_code);
  char probe[4200];
  fmt_into(probe, sizeof probe, "%s/sandbox-probe", build);
  g->isolate = !options->no_namespaces && probe_sandbox(probe);
  say(options, "scale grade: students' code runs %s", g->isolate
      ? "in its own user, mount, PID and network namespaces (only its build tree writable)"
      : "under resource limits only (namespaces not available or disabled)");
  return SCALE_OK;
}

scale_status scale_grade_run(const scale_grade_options *options, scale_grade_report *report,
                             scale_diag *diag) {
  char grading[4096], exercises[4096], build[4096], student[4200];
  fmt_into(grading, sizeof grading, "%s/tests/grading/CMakeLists.txt", options->source_dir);
  if (!is_file(grading))
    return fail(diag, SCALE_ERR_NOT_FOUND, grading, 0,
                "no grading sources (is %s the scale source tree? try --source)",
                options->source_dir);
  if (!is_dir(options->exercises_dir) || !realpath(options->exercises_dir, exercises))
    return fail(diag, SCALE_ERR_NOT_FOUND, options->exercises_dir, 0,
                "no such exercises folder");
  scale_status status = make_build_dir(options, "scale-grade", build, sizeof build, diag);
  if (status) return status;
  grader g;
  status = prepare(options, build, report, &g, diag);
  if (!status) {
    fmt_into(student, sizeof student, "%s/student", build);
    say(options, "scale grade: grading %s", exercises);
    grade_student(&g, exercises, student, report);
  }
  if (!options->build_dir) nftw(build, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return status;
}

/* ---- a class -------------------------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Grades student i in a worker process; the rows go to 'results' (outside the student's tree). */
static void class_worker(const grader *g, const char *class_dir, const char *name,
                         const char *build, const scale_grade_report *rubric,
                         const char *results) {
  scale_grade_report report = {malloc(rubric->n_rows * sizeof *rubric->rows), rubric->n_rows};
  char exercises[4096], folder[4400];
  fmt_into(folder, sizeof folder, "%s/%s", class_dir, name);
  if (!report.rows || !realpath(folder, exercises)) _exit(3);
  memcpy(report.rows, rubric->rows, rubric->n_rows * sizeof *rubric->rows);
  grade_student(g, exercises, build, &report);
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
    copy(s->report.rows[i].output, sizeof s->report.rows[i].output, "not graded");
  }
  if (WIFSIGNALED(status))
    fmt_into(s->error, sizeof s->error, "the grader of this student died of signal %d",
             WTERMSIG(status));
  else
    fmt_into(s->error, sizeof s->error, "the grader of this student failed (status %d)",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

scale_status scale_grade_class_run(const scale_grade_options *options, const char *class_dir,
                                   const scale_grade_report *rubric, scale_grade_class *out,
                                   scale_diag *diag) {
  out->students = NULL;
  out->n_students = 0;
  char grading[4096];
  fmt_into(grading, sizeof grading, "%s/tests/grading/CMakeLists.txt", options->source_dir);
  if (!is_file(grading))
    return fail(diag, SCALE_ERR_NOT_FOUND, grading, 0,
                "no grading sources (is %s the scale source tree? try --source)",
                options->source_dir);
  DIR *dir = opendir(class_dir);
  if (!dir) return fail(diag, SCALE_ERR_NOT_FOUND, class_dir, 0, "no such class folder");

  /* The students: every folder of class_dir not starting with '.', sorted by name. */
  char **names = NULL;
  size_t n_names = 0, cap = 0;
  scale_status status = SCALE_OK;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    char path[4400];
    fmt_into(path, sizeof path, "%s/%s", class_dir, entry->d_name);
    if (entry->d_name[0] == '.' || !is_dir(path)) continue;
    if (n_names == cap) {
      size_t grown_cap = cap ? 2 * cap : 32;
      char **grown = realloc(names, grown_cap * sizeof *grown);
      if (!grown) {
        status = fail(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
        break;
      }
      names = grown;
      cap = grown_cap;
    }
    names[n_names] = malloc(strlen(entry->d_name) + 1);
    if (!names[n_names]) {
      status = fail(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
      break;
    }
    strcpy(names[n_names++], entry->d_name);
  }
  closedir(dir);
  if (!status && n_names == 0)
    status = fail(diag, SCALE_ERR_NOT_FOUND, class_dir, 0, "no student folders in the class");
  if (!status) {
    qsort(names, n_names, sizeof *names, compare_names);
    out->students = calloc(n_names, sizeof *out->students);
    if (!out->students) status = fail(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
  }
  for (size_t i = 0; !status && i < n_names; i++) {
    scale_grade_student *s = &out->students[out->n_students++];
    copy(s->name, sizeof s->name, names[i]);
    s->report.rows = malloc((rubric->n_rows ? rubric->n_rows : 1) * sizeof *rubric->rows);
    if (!s->report.rows) {
      status = fail(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
      break;
    }
    memcpy(s->report.rows, rubric->rows, rubric->n_rows * sizeof *rubric->rows);
    s->report.n_rows = rubric->n_rows;
  }
  for (size_t i = 0; i < n_names; i++) free(names[i]);
  free(names);
  if (status) {
    scale_grade_class_free(out);
    return status;
  }

  char build[4096], path[4400];
  status = make_build_dir(options, "scale-class", build, sizeof build, diag);
  grader g;
  if (!status) status = prepare(options, build, rubric, &g, diag);
  fmt_into(path, sizeof path, "%s/students", build);
  mkdir(path, 0755);
  fmt_into(path, sizeof path, "%s/results", build);
  mkdir(path, 0755);
  int jobs = options->jobs > 0 ? options->jobs : online_cores();
  pid_t *workers = calloc(out->n_students, sizeof *workers);
  if (!status && !workers) status = fail(diag, SCALE_ERR_NOMEM, class_dir, 0, "out of memory");
  size_t next = 0, running = 0, done_count = 0;
  while (!status && (next < out->n_students || running > 0)) {
    while (running < (size_t)jobs && next < out->n_students) {
      scale_grade_student *s = &out->students[next];
      char student_build[4400], results[4400];
      /* Folder names of the build tree: a number, then the name made path-safe. */
      char safe[128];
      fmt_into(safe, sizeof safe, "%s", s->name);
      for (char *c = safe; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
          *c = '_';
      fmt_into(student_build, sizeof student_build, "%s/students/%03zu-%s", build, next, safe);
      fmt_into(results, sizeof results, "%s/results/%03zu.rows", build, next);
      remove(results);
      say(options, "scale grade: grading %s", s->name);
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        grader quiet = g;
        scale_grade_options worker_options = *options;
        worker_options.log = NULL;
        quiet.options = &worker_options;
        class_worker(&quiet, class_dir, s->name, student_build, rubric, results);
      }
      if (pid < 0) {
        copy(s->error, sizeof s->error, "the grader could not start (fork failed)");
      } else {
        workers[next] = pid;
        running++;
      }
      next++;
    }
    if (running == 0) continue;
    int wstatus = 0;
    pid_t done = waitpid(-1, &wstatus, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < out->n_students; i++) {
      if (workers[i] != done) continue;
      workers[i] = 0;
      running--;
      done_count++;
      char results[4400];
      fmt_into(results, sizeof results, "%s/results/%03zu.rows", build, i);
      scale_grade_student *s = &out->students[i];
      class_collect(s, results, wstatus);
      double score, max;
      scale_grade_totals(&s->report, NULL, &score, &max);
      say(options, "scale grade: [%zu/%zu] %s: %g/%g%s%s", done_count, out->n_students,
          s->name, score, max, s->graded ? "" : ", ", s->graded ? "" : s->error);
    }
  }
  free(workers);
  if (!options->build_dir) nftw(build, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (status) scale_grade_class_free(out);
  return status;
}

void scale_grade_class_free(scale_grade_class *cls) {
  if (!cls) return;
  for (size_t i = 0; i < cls->n_students; i++) scale_grade_report_free(&cls->students[i].report);
  free(cls->students);
  cls->students = NULL;
  cls->n_students = 0;
}
