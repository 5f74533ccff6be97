/* util.c — the grader's small helpers (util.h). */
#define _GNU_SOURCE /* strcasestr, O_NOFOLLOW */

#include "util.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
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
  char line[8192]; /* its paths and names may hold a student's bytes: escaped */
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  grade_put_escaped(options->log, line);
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

/* ---- numbers and stems -------------------------------------------------------------------- */

/* The length of the run of decimal digits at 'p'. */
static size_t digits(const char *p) {
  size_t n = 0;
  while (p[n] >= '0' && p[n] <= '9')
    n++;
  return n;
}

bool grade_strict_number(const char *text, double *out) {
  /* The shape first, by hand: strtod alone takes hex, inf, nan and leading spaces. */
  const char *p = text + (*text == '+' || *text == '-');
  size_t whole = digits(p);
  p += whole;
  size_t fraction = 0;
  if (*p == '.') fraction = digits(++p), p += fraction;
  if (whole + fraction == 0) return false;
  if (*p == 'e' || *p == 'E') {
    p += 1 + (p[1] == '+' || p[1] == '-');
    size_t exponent = digits(p);
    if (exponent == 0) return false;
    p += exponent;
  }
  if (*p) return false;
  double value = strtod(text, NULL);
  if (!isfinite(value)) return false;
  *out = value;
  return true;
}

bool grade_is_stem(const char *text) {
  size_t n = 0;
  for (; text[n]; n++) {
    char c = text[n];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return n > 0 && n < 128 && text[0] != '.';
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

/* ---- text from students --------------------------------------------------------------------- */

size_t grade_utf8_len(const char *text, unsigned *code) {
  const unsigned char *p = (const unsigned char *)text;
  if (p[0] < 0x80) {
    *code = p[0];
    return 1;
  }
  size_t len = 0; /* 0 for a continuation byte, 0xc0/0xc1 (overlong) and past 0xf4 */
  if (p[0] >= 0xc2 && p[0] <= 0xdf)
    len = 2;
  else if (p[0] >= 0xe0 && p[0] <= 0xef)
    len = 3;
  else if (p[0] >= 0xf0 && p[0] <= 0xf4)
    len = 4;
  if (len == 0) return 0;
  unsigned value = p[0] & (0x7fu >> len);
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0; /* cut short (also at the terminating NUL) */
    value = value << 6 | (p[i] & 0x3fu);
  }
  static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < least[len] || (value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return 0;
  *code = value;
  return len;
}

bool grade_is_control(unsigned code) { return code < 0x20 || (code >= 0x7f && code <= 0x9f); }

/* Appends the terminal form of 'text' to 'out' or, when 'out' is NULL, to 'dst' (at most
 * 'size' - 1 bytes, whole escapes only). */
static void escape_to(FILE *out, char *dst, size_t size, const char *text) {
  size_t n = 0;
  for (const char *p = text; *p;) {
    unsigned code = 0;
    size_t len = grade_utf8_len(p, &code);
    char piece[8];
    if (len == 0)
      snprintf(piece, sizeof piece, "\\x%02x", (unsigned char)*p);
    else if (code == '\n' || code == '\t')
      snprintf(piece, sizeof piece, "\\%c", code == '\n' ? 'n' : 't');
    else if (grade_is_control(code))
      snprintf(piece, sizeof piece, code < 0x80 ? "\\x%02x" : "\\u%04x", code);
    else
      snprintf(piece, sizeof piece, "%.*s", (int)len, p);
    p += len ? len : 1;
    size_t piece_len = strlen(piece);
    if (out) {
      fputs(piece, out);
      continue;
    }
    if (n + piece_len + 1 > size) break;
    memcpy(dst + n, piece, piece_len);
    n += piece_len;
  }
  if (!out && size) dst[n] = '\0';
}

void grade_put_escaped(FILE *out, const char *text) { escape_to(out, NULL, 0, text); }

void grade_escape(char *dst, size_t size, const char *text) { escape_to(NULL, dst, size, text); }

bool grade_is_clean(const char *text) {
  for (const char *p = text; *p;) {
    unsigned code = 0;
    size_t len = grade_utf8_len(p, &code);
    if (len == 0 || grade_is_control(code)) return false;
    p += len;
  }
  return true;
}

/* 'text' without comments and white space, into a new buffer (caller frees); NULL if out of
 * memory. Strings are not special: a stub has none, and an answer with one differs anyway. */
static char *squeeze(const char *text, size_t len) {
  char *out = malloc(len + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
      const char *end = strstr(text + i + 2, "*/");
      i = end && (size_t)(end - text) < len ? (size_t)(end - text) + 1 : len;
    } else if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
      while (i < len && text[i] != '\n')
        i++;
    } else if (!isspace((unsigned char)text[i])) {
      *o++ = text[i];
    }
  }
  *o = '\0';
  return out;
}

/* The body "{...}" of the definition of function 'name' in 'text' (its braces matched), or
 * NULL; '*len' gets its length. A declaration or a call ("name(...);") is not a definition. */
static const char *function_body(const char *text, const char *name, size_t *len) {
  size_t name_len = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    bool starts = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    const char *q = p + name_len;
    while (isspace((unsigned char)*q))
      q++;
    if (!starts || *q != '(') continue;
    int depth = 0;
    for (; *q; q++) {
      if (*q == '(') depth++;
      if (*q == ')' && --depth == 0) break;
    }
    if (!*q) return NULL;
    q++;
    while (isspace((unsigned char)*q))
      q++;
    if (*q != '{') continue;
    const char *open = q;
    depth = 0;
    for (; *q; q++) {
      if (*q == '{') depth++;
      if (*q == '}' && --depth == 0) {
        *len = (size_t)(q - open) + 1;
        return open;
      }
    }
    return NULL;
  }
  return NULL;
}

/* Whether the squeezed body 'b' is a stub's: "(void)x;" statements, then "return NAN;" or a
 * decision's "T none = {0, ...}; return none;" (exercises/NN-slug/SLUG_ex.c). */
static bool stub_body(const char *b) {
  if (*b++ != '{') return false;
  while (strncmp(b, "(void)", 6) == 0) {
    const char *q = b + 6;
    while (isalnum((unsigned char)*q) || *q == '_')
      q++;
    if (q == b + 6 || *q != ';') return false;
    b = q + 1;
  }
  if (strcmp(b, "returnNAN;}") == 0) return true;
  const char *q = strstr(b, "none={"); /* after the type's name, squeezed onto it */
  if (!q || q == b) return false;
  for (const char *t = b; t < q; t++)
    if (!(isalnum((unsigned char)*t) || *t == '_')) return false;
  q += 6;
  while (*q == '0' || *q == ',')
    q++;
  return strcmp(q, "};returnnone;}") == 0;
}

bool grade_is_stub(const char *text, const char *id) {
  char name[160];
  grade_fmt(name, sizeof name, "ex_%s", id);
  char *dot = strchr(name, '.');
  if (!dot) return false;
  *dot = '_';
  size_t len = 0;
  const char *body = function_body(text, name, &len);
  char *squeezed = body ? squeeze(body, len) : NULL;
  bool stub = squeezed && stub_body(squeezed);
  free(squeezed);
  return stub;
}
