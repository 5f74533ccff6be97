/* trace.c — `scale train --trace FILE`: the predicted step's timeline (steptrace.h) as Chrome
 * trace-event JSON, or as the book's timeline chart when FILE ends in .svg. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int write_svg(const char *path, const scale_step_trace *trace, const char *title) {
  size_t size = 1 << 20, len = 0;
  char *buf = malloc(size);
  if (!buf) return cli_fail("train: --trace: out of memory");
  scale_diag diag;
  scale_status st = scale_step_trace_svg(trace, title, buf, size, &len, &diag);
  FILE *fp = st ? NULL : fopen(path, "w");
  bool ok = fp && fwrite(buf, 1, len, fp) == len;
  if (fp && fclose(fp) != 0) ok = false;
  free(buf);
  if (st) return cli_fail("train: --trace: %s", diag.message);
  return ok ? CLI_EXIT_OK : cli_fail("train: --trace: cannot write '%s'", path);
}

int cli_write_step_trace(const char *path, const scale_step_result *r, const char *title) {
  static scale_step_trace trace;
  scale_diag diag;
  if (scale_step_trace_build(r, &trace, &diag)) return cli_fail("train: --trace: %s", diag.message);
  size_t n = strlen(path);
  if (n > 4 && strcmp(path + n - 4, ".svg") == 0) return write_svg(path, &trace, title);
  FILE *fp = fopen(path, "w");
  if (!fp) return cli_fail("train: --trace: cannot write '%s'", path);
  scale_status st = scale_step_trace_json(&trace, title, fp, &diag);
  if (fclose(fp) != 0 || st) return cli_fail("train: --trace: cannot write '%s'", path);
  return CLI_EXIT_OK;
}
