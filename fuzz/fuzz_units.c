/* fuzz_units.c — fuzz target: the SI-suffix number parser, dtype names and the display
 * formatter of units.h.
 *
 * Input: byte 0 selects the flags of scale_parse_number() (its low 3 bits), the rest is the
 * text (cut at a NUL byte, as a C string would be). The first 8 bytes after byte 0 are also
 * read as a double for scale_format().
 * Invariants: a parsed number is finite, obeys the flags and is never -0; an error is
 * SCALE_ERR_PARSE or SCALE_ERR_RANGE with a one-line diagnostic; scale_format() always
 * NUL-terminates within the buffer, never prints inf or n/a for a finite value, and its SCI,
 * PLAIN, SI and IEC output parses back to the value within three significant digits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static void check_parse(const char *text, unsigned flags) {
  double value = 12345.0;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_parse_number(text, flags, &value, &diag);
  if (st == SCALE_OK) {
    if (!isfinite(value)) fuzz_fail("parse '%s': non-finite %g", text, value);
    if ((flags & SCALE_NUM_POSITIVE) && !(value > 0))
      fuzz_fail("parse '%s' POSITIVE gave %g", text, value);
    if ((flags & SCALE_NUM_NONNEG) && value < 0)
      fuzz_fail("parse '%s' NONNEG gave %g", text, value);
    if ((flags & SCALE_NUM_INTEGER) && value != floor(value))
      fuzz_fail("parse '%s' INTEGER gave %g", text, value);
    if (value == 0 && signbit(value)) fuzz_fail("parse '%s' gave -0", text);
  } else {
    if (st != SCALE_ERR_PARSE && st != SCALE_ERR_RANGE)
      fuzz_fail("parse '%s': status %d", text, (int)st);
    fuzz_check_diag(&diag, "scale_parse_number");
    if (fuzz_has_control(diag.message, strlen(diag.message), NULL)) /* units.c escapes all */
      fuzz_fail("parse '%s': control character in \"%s\"", text, diag.message);
  }
}

static void check_dtype(const char *text) {
  scale_dtype dtype = SCALE_DTYPE_COUNT;
  if (scale_dtype_parse(text, &dtype) == SCALE_OK) {
    if ((int)dtype < 0 || dtype >= SCALE_DTYPE_COUNT) fuzz_fail("dtype '%s' -> %d", text, dtype);
    if (!(scale_dtype_bytes(dtype) > 0) || strcmp(scale_dtype_name(dtype), "?") == 0)
      fuzz_fail("dtype '%s' has no size or name", text);
  } else if (dtype != SCALE_DTYPE_COUNT) {
    fuzz_fail("dtype '%s': failed parse wrote *out", text);
  }
}

/* Parses a formatted number back: the number and its prefix, without the space between. */
static int parse_back(const char *shown, double *out) {
  char compact[96];
  size_t n = 0;
  for (const char *p = shown; *p && n + 1 < sizeof compact; p++)
    if (*p != ' ') compact[n++] = *p;
  compact[n] = '\0';
  return scale_parse_number(compact, 0, out, NULL) == SCALE_OK;
}

static void check_format(double value, const char *unit) {
  static const scale_fmt styles[] = {SCALE_FMT_SI, SCALE_FMT_SCI, SCALE_FMT_PLAIN, SCALE_FMT_TIME,
                                     SCALE_FMT_IEC, SCALE_FMT_USD, SCALE_FMT_PERCENT};
  static const size_t sizes[] = {1, 2, 5, 12, 96};
  for (size_t s = 0; s < sizeof styles / sizeof styles[0]; s++) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      char *buf = malloc(sizes[k]); /* exact size: ASan sees any write past it */
      if (!buf) fuzz_fail("out of memory");
      memset(buf, 'x', sizes[k]);
      char *got = scale_format(buf, sizes[k], value, unit, styles[s]);
      if (got != buf) fuzz_fail("scale_format did not return buf");
      if (!memchr(buf, 0, sizes[k]))
        fuzz_fail("scale_format(%.17g, style %d, size %zu) not NUL-terminated", value,
                  (int)styles[s], sizes[k]);
      free(buf);
    }
    if (!isfinite(value)) continue;
    /* Unit-less, wide enough: the answer must be a number that parses back. */
    char shown[96];
    scale_format(shown, sizeof shown, value, "", styles[s]);
    if (strstr(shown, "inf") || strstr(shown, "n/a") || strstr(shown, "nan"))
      fuzz_fail("scale_format(%.17g, style %d) printed '%s'", value, (int)styles[s], shown);
    double a = fabs(value), back = 0;
    if (styles[s] == SCALE_FMT_TIME || styles[s] == SCALE_FMT_USD ||
        styles[s] == SCALE_FMT_PERCENT || (a != 0 && (a < 1e-290 || a > 1e290)))
      continue;
    if (!parse_back(shown, &back)) {
      /* Prefixes the parser does not take (m, u, n, p, f; Ei) are display-only. */
      if (styles[s] == SCALE_FMT_SCI || styles[s] == SCALE_FMT_PLAIN)
        fuzz_fail("scale_format(%.17g, style %d) printed '%s', which does not parse", value,
                  (int)styles[s], shown);
      continue;
    }
    if (!(fabs(back - value) <= 0.0051 * a))
      fuzz_fail("scale_format(%.17g, style %d) printed '%s' (parses as %.17g)", value,
                (int)styles[s], shown, back);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  if (size < 1) return 0;
  unsigned flags = data[0] & 7u;
  char *text = fuzz_cstr(data + 1, size - 1);
  check_parse(text, flags);
  check_dtype(text);
  double parsed;
  if (scale_parse_number(text, 0, &parsed, NULL) == SCALE_OK) check_format(parsed, text);
  if (size >= 9) {
    double raw;
    memcpy(&raw, data + 1, sizeof raw);
    check_format(raw, size > 9 ? text + (strlen(text) > 8 ? 8 : strlen(text)) : "");
  }
  free(text);
  return 0;
}
