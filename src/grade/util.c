/* util.c — the grader's small helpers (util.h). */
#define _GNU_SOURCE /* strcasestr, O_NOFOLLOW */

#include "util.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- fixed buffers and messages ------------------------------------------------------------- */

/* A copy that may truncate, said so to the compiler too (strncpy would warn). */
void grade_copy(char *dst, size_t size, const char *src) {
  if (size == 0) return;
  size_t len = strnlen(src, size - 1);
  memcpy(dst, src, len);
  dst[len] = '\0';
}

void grade_fmt(char *dst, size_t size, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(dst, size, fmt, args);
  va_end(args);
}

void grade_say(const scale_grade_options *options, const char *fmt, ...) {
  if (!options->log) return;
  va_list args;
  va_start(args, fmt);
  vfprintf(options->log, fmt, args);
  va_end(args);
  fputc('\n', options->log);
  fflush(options->log);
}

bool grade_split_chapter(const char *chapter, char *num, size_t num_size, char *slug,
                         size_t slug_size) {
  const char *dash = strchr(chapter, '-');
  if (!dash || dash == chapter || !dash[1]) return false;
  grade_fmt(num, num_size, "%.*s", (int)(dash - chapter), chapter);
  grade_copy(slug, slug_size, dash + 1);
  for (char *c = slug; *c; c++)
    if (*c == '-') *c = '_';
  return true;
}

/* ---- files ---------------------------------------------------------------------------------- */

/* Reads a whole file (at most 'limit' bytes) into a NUL-terminated buffer (caller frees);
 * NULL on failure. '*size' (if not NULL) gets its length. */
char *grade_read_all(const char *path, size_t limit, size_t *size) {
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
  if (size) *size = len;
  return buf;
}

bool grade_copy_file_at(int dir_fd, const char *name, const char *dst, mode_t mode, size_t limit) {
  int in = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (in < 0) return false;
  struct stat st;
  bool ok = fstat(in, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= limit;
  int out = ok ? open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) : -1;
  char buf[65536];
  size_t total = 0;
  ssize_t n = 0;
  while (out >= 0 && ok && (n = read(in, buf, sizeof buf)) > 0) {
    total += (size_t)n;
    ok = total <= limit && write(out, buf, (size_t)n) == n;
  }
  ok = ok && out >= 0 && n == 0;
  close(in);
  if (out >= 0 && close(out) != 0) ok = false;
  return ok;
}

void grade_log_tail(const char *path, int n_lines, char *out, size_t size) {
  size_t len = 0;
  char *text = grade_read_all(path, (size_t)16 << 20, &len);
  grade_copy(out, size, "");
  if (!text) return;
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  /* The first line that reports an error and the next (cmake puts its message there) say
   * most; else the last lines. Blank lines are skipped. */
  char *start = strcasestr(text, "error");
  if (start) {
    while (start > text && start[-1] != '\n')
      start--;
    n_lines = 2;
  } else {
    start = text + len;
    for (int seen = 0; start > text; start--)
      if (start[-1] == '\n' && ++seen == n_lines) break;
  }
  size_t n = 0;
  int lines = 1;
  for (const char *c = start; *c && n + 4 < size; c++) {
    if (*c == '\n' && (c[1] == '\n' || c[1] == ' ') && c[1] != '\0') {
      while (c[1] == '\n' || c[1] == ' ')
        c++; /* blank lines and indentation */
    }
    if (*c == '\n' && ++lines > n_lines) break;
    if (*c == '\n') {
      n += (size_t)snprintf(out + n, size - n, " | ");
    } else {
      out[n++] = (unsigned char)*c < 0x20 ? ' ' : *c;
      out[n] = '\0';
    }
  }
  free(text);
}
