/* file.c — the library's one file reader and section writer (file.h). */
#include "scale/file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

scale_status scale_file_read(const char *path, char **text, size_t *len, scale_diag *diag) {
  *text = NULL;
  if (len) *len = 0;
  FILE *in = fopen(path, "rb");
  if (!in) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open");
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  for (size_t got = 1; buf && got > 0;) {
    if (n + 1 == cap) { /* room for one more byte and the NUL, always */
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown, cap *= 2;
      if (!buf) break;
    }
    got = fread(buf + n, 1, cap - n - 1, in);
    n += got;
  }
  bool failed = ferror(in) != 0;
  fclose(in);
  if (!buf) return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  if (failed) {
    free(buf);
    return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "read failed");
  }
  buf[n] = '\0';
  *text = buf;
  if (len) *len = n;
  return SCALE_OK;
}

/* The section a line of 'len' bytes opens ("step" for "[step]") into name; false if none. */
static bool section_of(const char *line, size_t len, char *name, size_t size) {
  size_t i = 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
  if (i >= len || line[i] != '[') return false;
  size_t j = ++i;
  while (j < len && line[j] != ']') j++;
  if (j >= len) return false;
  snprintf(name, size, "%.*s", (int)(j - i), line + i);
  return true;
}

static bool named(const char *name, const char *const *list, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0) return true;
  return false;
}

/* Removes the dropped sections from text[0..len) in place; returns the kept length and sets
 * *at to where the emitted text goes (see scale_file_rewrite_sections()), *at = kept length
 * for the end. */
static size_t strip_sections(char *text, size_t len, const char *const *drop, int n_drop,
                             const char *before, size_t *at) {
  size_t kept = 0, dropped_at = (size_t)-1, before_at = (size_t)-1;
  bool skip = false, followed = false;
  for (size_t pos = 0; pos < len;) {
    size_t end = pos;
    while (end < len && text[end] != '\n') end++;
    if (end < len) end++; /* the newline */
    char name[64];
    if (section_of(text + pos, end - pos, name, sizeof name)) {
      skip = named(name, drop, n_drop);
      if (skip && dropped_at == (size_t)-1) dropped_at = kept;
      followed |= !skip && dropped_at != (size_t)-1;
      if (!skip && before && before_at == (size_t)-1 && strcmp(name, before) == 0)
        before_at = kept;
    }
    if (!skip) {
      memmove(text + kept, text + pos, end - pos);
      kept += end - pos;
    }
    pos = end;
  }
  while (kept > 0 && strchr("\n\r \t", text[kept - 1])) kept--;
  *at = followed ? dropped_at : before_at < kept ? before_at : kept;
  return kept;
}

scale_status scale_file_rewrite_sections(const char *src, const char *dst,
                                         const char *const *drop, int n_drop,
                                         const char *before, scale_file_emit emit, void *ctx,
                                         scale_diag *diag) {
  char *text;
  size_t len, at;
  scale_status st = scale_file_read(src, &text, &len, diag);
  if (st) return st;
  size_t kept = strip_sections(text, len, drop, n_drop, before, &at);
  FILE *fp = fopen(dst, "wb");
  if (!fp) {
    free(text);
    return scale_diag_set(diag, SCALE_ERR_IO, dst, 0, "cannot write");
  }
  fwrite(text, 1, at, fp);
  if (at == kept && kept > 0) fputs("\n\n", fp); /* at the end: a blank line before it */
  st = emit(fp, ctx);
  if (at < kept) {
    fputc('\n', fp);
    fwrite(text + at, 1, kept - at, fp);
    fputc('\n', fp);
  }
  free(text);
  if (fclose(fp) != 0 && !st) st = SCALE_ERR_IO;
  return st ? scale_diag_set(diag, st, dst, 0, "write failed") : SCALE_OK;
}
