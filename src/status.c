/* status.c — status names and diagnostics (status.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scale/status.h"

const char *scale_status_str(scale_status status) {
  switch (status) {
  case SCALE_OK:
    return "ok";
  case SCALE_ERR_IO:
    return "cannot read file";
  case SCALE_ERR_PARSE:
    return "malformed input";
  case SCALE_ERR_UNKNOWN_KEY:
    return "unknown key";
  case SCALE_ERR_DUPLICATE_KEY:
    return "duplicate key";
  case SCALE_ERR_MISSING_KEY:
    return "missing required key";
  case SCALE_ERR_RANGE:
    return "value out of range";
  case SCALE_ERR_INVALID:
    return "invalid argument";
  case SCALE_ERR_NOT_FOUND:
    return "not found";
  case SCALE_ERR_NOMEM:
    return "out of memory";
  case SCALE_STATUS_COUNT:
    break;
  }
  return "unknown status";
}

char *scale_diag_format(const scale_diag *diag, char *buf, unsigned long size) {
  if (size == 0) return buf;
  if (diag->file[0] && diag->line > 0)
    snprintf(buf, size, "%s:%d: %s", diag->file, diag->line, diag->message);
  else if (diag->file[0])
    snprintf(buf, size, "%s: %s", diag->file, diag->message);
  else
    snprintf(buf, size, "%s", diag->message);
  return buf;
}

scale_status scale_diag_set(scale_diag *diag, scale_status status, const char *file, int line,
                            const char *fmt, ...) {
  if (!diag) return status;
  snprintf(diag->file, sizeof diag->file, "%s", file ? file : "");
  diag->line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
  return status;
}
