/* fuzz_common.c — helpers shared by the fuzz targets (fuzz.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/* The sanitizers' runtime when it is linked in (libFuzzer builds, the asan preset); weak, so a
 * plain build links without it and the calls below are skipped. */
extern void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* ==== failures ============================================================================== */

void fuzz_fail(const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  fflush(stdout);
  fprintf(stderr, "fuzz: invariant violated: %s\n", message);
  fflush(stderr);
  /* Under libFuzzer's -close_fd_mask=3 stderr is /dev/null: say it where reports go. */
  if (__sanitizer_report_error_summary) {
    char summary[1100];
    snprintf(summary, sizeof summary, "fuzz: invariant violated: %s", message);
    __sanitizer_report_error_summary(summary);
  }
  abort();
}

void fuzz_keep_reports(void) {
  int fd = dup(2);
  if (fd >= 0 && __sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)fd);
}

char *fuzz_cstr(const uint8_t *data, size_t size) {
  const void *nul = size ? memchr(data, 0, size) : NULL;
  size_t n = nul ? (size_t)((const uint8_t *)nul - data) : size;
  char *s = malloc(n + 1);
  if (!s) fuzz_fail("out of memory");
  if (n) memcpy(s, data, n);
  s[n] = '\0';
  return s;
}

int fuzz_has_control(const char *text, size_t len, const char *allowed) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if ((c < 0x20 || c == 0x7f) && !(c && allowed && strchr(allowed, c))) return 1;
  }
  return 0;
}

void fuzz_check_diag(const scale_diag *diag, const char *what) {
  const char *end = memchr(diag->message, 0, sizeof diag->message);
  if (!end) fuzz_fail("%s: diag message not NUL-terminated", what);
  /* status.h: "one line, no trailing newline". Other control bytes a message may quote are
   * escaped where it is printed (cli_print_diag), so only a line break is a finding here. */
  if (memchr(diag->message, '\n', (size_t)(end - diag->message)))
    fuzz_fail("%s: diag message is not one line: \"%s\"", what, diag->message);
  if (!memchr(diag->file, 0, sizeof diag->file))
    fuzz_fail("%s: diag file not NUL-terminated", what);
}

/* ==== files ================================================================================= */

#define MAX_TMPDIRS 4
static char tmpdirs[MAX_TMPDIRS][512];
static int n_tmpdirs;
static pid_t tmpdir_owner;

static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char child[1024];
        if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) < (int)sizeof child)
          remove_tree(child);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

static void remove_tmpdirs(void) {
  if (getpid() != tmpdir_owner) return;
  for (int i = 0; i < n_tmpdirs; i++)
    remove_tree(tmpdirs[i]);
}

void fuzz_tmpdir(char *dir, size_t size) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  if (n_tmpdirs == MAX_TMPDIRS) fuzz_fail("too many temporary folders");
  char *t = tmpdirs[n_tmpdirs];
  if (snprintf(t, sizeof tmpdirs[0], "%s/scale-fuzz.XXXXXX", base) >= (int)sizeof tmpdirs[0] ||
      !mkdtemp(t))
    fuzz_fail("cannot create a temporary folder under %s: %s", base, strerror(errno));
  if (n_tmpdirs++ == 0) {
    tmpdir_owner = getpid();
    atexit(remove_tmpdirs);
  }
  if (snprintf(dir, size, "%s", t) >= (int)size) fuzz_fail("temporary folder name too long");
}

void fuzz_mkdirs(const char *path) {
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) fuzz_fail("path too long");
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        fuzz_fail("cannot create %s: %s", buf, strerror(errno));
      *p = c;
      if (!c) break;
    }
  }
}

void fuzz_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) fuzz_fail("cannot write %s: %s", path, strerror(errno));
  bool ok = fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0) ok = false;
  if (!ok) fuzz_fail("cannot write %s", path);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

void fuzz_copy_tree(const char *from, const char *to, const char *suffix, int recursive) {
  DIR *d = opendir(from);
  if (!d) fuzz_fail("cannot read folder %s: %s", from, strerror(errno));
  fuzz_mkdirs(to);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char src[1024], dst[1024];
    if (snprintf(src, sizeof src, "%s/%s", from, e->d_name) >= (int)sizeof src ||
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name) >= (int)sizeof dst)
      fuzz_fail("path too long under %s", from);
    struct stat st;
    if (stat(src, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (recursive) fuzz_copy_tree(src, dst, suffix, recursive);
      continue;
    }
    if (!S_ISREG(st.st_mode) || !ends_with(e->d_name, suffix)) continue;
    FILE *f = fopen(src, "rb");
    if (!f) fuzz_fail("cannot read %s: %s", src, strerror(errno));
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) fuzz_fail("out of memory");
    size_t n = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    fuzz_write_file(dst, buf, n);
    free(buf);
  }
  closedir(d);
}

void fuzz_std_fds(void) {
  static bool done;
  if (done) return;
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null < 0) fuzz_fail("cannot open /dev/null");
    if (null != fd) {
      dup2(null, fd);
      close(null);
    }
  }
  done = true;
}
