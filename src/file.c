/* file.c — the library's one file reader (file.h). */
#include "scale/file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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
