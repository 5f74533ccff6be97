/* units.c — dtype sizes, display formatting, command-line number parsing (units.h). */
#include "scale/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ==== dtypes ================================================================================ */

static const struct {
  const char *name;
  double bytes;
} dtypes[SCALE_DTYPE_COUNT] = {
    [SCALE_DTYPE_FP32] = {"fp32", 4.0}, [SCALE_DTYPE_BF16] = {"bf16", 2.0},
    [SCALE_DTYPE_FP16] = {"fp16", 2.0}, [SCALE_DTYPE_FP8] = {"fp8", 1.0},
    [SCALE_DTYPE_INT8] = {"int8", 1.0}, [SCALE_DTYPE_INT4] = {"int4", 0.5},
    [SCALE_DTYPE_FP4] = {"fp4", (16.0 * 0.5 + 1.0) / 16.0}, /* NVFP4 block scale counted */
};

double scale_dtype_bytes(scale_dtype dtype) {
  return (int)dtype >= 0 && dtype < SCALE_DTYPE_COUNT ? dtypes[dtype].bytes : (double)NAN;
}

const char *scale_dtype_name(scale_dtype dtype) {
  return (int)dtype >= 0 && dtype < SCALE_DTYPE_COUNT ? dtypes[dtype].name : "?";
}

scale_status scale_dtype_parse(const char *text, scale_dtype *out) {
  static const struct {
    const char *alias;
    scale_dtype dtype;
  } aliases[] = {
      {"fp32", SCALE_DTYPE_FP32}, {"f32", SCALE_DTYPE_FP32},      {"float32", SCALE_DTYPE_FP32},
      {"bf16", SCALE_DTYPE_BF16}, {"bfloat16", SCALE_DTYPE_BF16}, {"fp16", SCALE_DTYPE_FP16},
      {"f16", SCALE_DTYPE_FP16},  {"float16", SCALE_DTYPE_FP16},  {"fp8", SCALE_DTYPE_FP8},
      {"e4m3", SCALE_DTYPE_FP8},  {"e5m2", SCALE_DTYPE_FP8},      {"int8", SCALE_DTYPE_INT8},
      {"i8", SCALE_DTYPE_INT8},   {"int4", SCALE_DTYPE_INT4},     {"i4", SCALE_DTYPE_INT4},
      {"fp4", SCALE_DTYPE_FP4},   {"nvfp4", SCALE_DTYPE_FP4},
  };
  if (!text) return SCALE_ERR_INVALID;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcasecmp(text, aliases[i].alias) == 0) {
      *out = aliases[i].dtype;
      return SCALE_OK;
    }
  return SCALE_ERR_INVALID;
}

/* ==== display =============================================================================== */

/* Rounds |v| > 0 to three significant digits and splits it as m x 10^e with 1 <= m < 10. */
static double split3(double v, int *exponent) {
  if (!(v > 0) || !isfinite(v)) { /* callers pass |v| > 0, finite; stay defined regardless */
    *exponent = 0;
    return v;
  }
  int e = (int)floor(log10(v));
  /* 10^e underflows to 0 below 1e-308 (subnormal v): scale v up first. */
  double m = e < -300 ? v * 1e300 / pow(10.0, e + 300) : v / pow(10.0, e);
  m = round(m * 100.0) / 100.0;
  if (m >= 10.0) {
    m /= 10.0;
    e += 1;
  }
  *exponent = e;
  return m;
}

static char *with_unit(char *buf, size_t size, const char *number, const char *prefix,
                       const char *unit) {
  unit = unit ? unit : "";
  if (!*prefix && strcmp(unit, "%") == 0) /* one percentage style: "40%", never "40 %" */
    snprintf(buf, size, "%s%%", number);
  else if (*prefix || *unit)
    snprintf(buf, size, "%s %s%s", number, prefix, unit);
  else
    snprintf(buf, size, "%s", number);
  return buf;
}

/* Three significant digits without exponent for 1e-3 <= |v| < 1e4 ("44.1", "240", "0.5"). */
static void three_digits(char *num, size_t size, double v) {
  if (v == 0) {
    snprintf(num, size, "0");
    return;
  }
  int e;
  split3(fabs(v), &e);
  int decimals = e >= 2 ? 0 : 2 - e;
  snprintf(num, size, "%.*f", decimals, v);
  /* drop trailing zeros after a decimal point: "3.20" -> "3.2", "5.00" -> "5" */
  if (strchr(num, '.')) {
    char *end = num + strlen(num) - 1;
    while (*end == '0')
      *end-- = '\0';
    if (*end == '.') *end = '\0';
  }
}

static char *format_sci(char *buf, size_t size, double v, const char *unit) {
  char num[48];
  double a = fabs(v);
  if (v == 0 || (a >= 0.01 && a < 1000.0)) {
    three_digits(num, sizeof num, v);
  } else {
    int e;
    double m = split3(a, &e);
    char mant[24];
    three_digits(mant, sizeof mant, m);
    snprintf(num, sizeof num, "%s%se%d", v < 0 ? "-" : "", mant, e);
  }
  return with_unit(buf, size, num, "", unit);
}

static char *format_prefixed(char *buf, size_t size, double v, const char *unit, double base,
                             const char *const *prefixes, int lo, int hi) {
  char num[48];
  double a = fabs(v);
  if (v == 0) return with_unit(buf, size, "0", "", unit);
  int k = (int)floor(log(a) / log(base) + 1e-12);
  if (k < lo) k = lo;
  if (k > hi) k = hi;
  double scaled = a / pow(base, k);
  int e;
  split3(scaled, &e);
  if (e >= 3 && base == 1000.0 && k < hi) { /* 999.7 k rounds to 1000 k: use 1 M */
    k++;
    scaled /= base;
  } else if (base == 1024.0 && scaled >= 1023.5 && k < hi) {
    k++;
    scaled /= base;
  }
  if (scaled >= 1e4 || scaled < 1e-3) return format_sci(buf, size, v, unit);
  three_digits(num, sizeof num, v < 0 ? -scaled : scaled);
  return with_unit(buf, size, num, prefixes[k - lo], unit);
}

static char *format_time(char *buf, size_t size, double s) {
  static const struct {
    double limit, scale;
    const char *unit;
  } spans[] = {
      {120.0, 1.0, "s"},
      {2.0 * 3600.0, 60.0, "min"},
      {2.0 * SCALE_SECONDS_PER_DAY, 3600.0, "h"},
      {SCALE_SECONDS_PER_YEAR, SCALE_SECONDS_PER_DAY, "days"},
  };
  double a = fabs(s);
  char num[48];
  for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
    if (a < spans[i].limit) {
      if (i == 0) return scale_format(buf, size, s, "s", SCALE_FMT_SI);
      three_digits(num, sizeof num, s / spans[i].scale);
      return with_unit(buf, size, num, "", spans[i].unit);
    }
  return format_sci(buf, size, s / SCALE_SECONDS_PER_YEAR, "years");
}

/* Dollars with three significant digits, trailing zeros kept ("$2.40 k"), k/M/B/T groups of
 * three digits; below a tenth of a cent, or beyond $999 T, the exponent form ("$1.5e-5"). */
static char *format_usd(char *buf, size_t size, double v, const char *unit) {
  static const char *const groups[] = {"", " k", " M", " B", " T"};
  const char *sign = v < 0 ? "-" : "";
  char num[48];
  unit = unit ? unit : "";
  if (strncmp(unit, "USD", 3) == 0) unit += 3; /* the unit names dollars: "USD/h" -> "$4.20/h" */
  int e = 0;
  double m = v == 0 ? 0.0 : split3(fabs(v), &e);
  if (v == 0) {
    snprintf(num, sizeof num, "0");
  } else if (e < -3 || e >= 15) {
    char mant[24];
    three_digits(mant, sizeof mant, m);
    snprintf(num, sizeof num, "%se%d", mant, e);
  } else {
    int g = e < 0 ? 0 : e / 3, shift = e - 3 * g;
    snprintf(num, sizeof num, "%.*f%s", 2 - shift, m * pow(10.0, shift), groups[g]);
  }
  snprintf(buf, size, "%s$%s%s%s", sign, num, *unit && *unit != '/' ? " " : "", unit);
  return buf;
}

/* A fraction as a percentage with three significant digits ("20.5%", "0.128%", "100%"). */
static char *format_percent(char *buf, size_t size, double frac) {
  double pct = frac * 100.0;
  if (!isfinite(pct)) return format_sci(buf, size, frac, "(fraction)"); /* |frac| near DBL_MAX */
  if (fabs(pct) >= 1e4 || (pct != 0 && fabs(pct) < 1e-3)) return format_sci(buf, size, pct, "%");
  char num[48];
  three_digits(num, sizeof num, pct);
  snprintf(buf, size, "%s%%", num);
  return buf;
}

char *scale_format(char *buf, size_t size, double value, const char *unit, scale_fmt style) {
  static const char *const si[] = {"f", "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
  static const char *const iec[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (size == 0) return buf;
  if (isnan(value)) return with_unit(buf, size, "n/a", "", "");
  if (isinf(value)) return with_unit(buf, size, value < 0 ? "-inf" : "inf", "", "");
  switch (style) {
  case SCALE_FMT_SI:
    return format_prefixed(buf, size, value, unit, 1000.0, si, -5, 6);
  case SCALE_FMT_IEC:
    return format_prefixed(buf, size, value, unit, 1024.0, iec, 0, 6);
  case SCALE_FMT_SCI:
    return format_sci(buf, size, value, unit);
  case SCALE_FMT_TIME:
    return format_time(buf, size, value);
  case SCALE_FMT_USD:
    return format_usd(buf, size, value, unit);
  case SCALE_FMT_PERCENT:
    return format_percent(buf, size, value);
  case SCALE_FMT_PLAIN: {
    double a = fabs(value);
    if (a >= 1e7 || (a > 0 && a < 1e-3)) return format_sci(buf, size, value, unit);
    char num[48];
    if (a >= 100.0)
      snprintf(num, sizeof num, "%.0f", value);
    else
      three_digits(num, sizeof num, value);
    return with_unit(buf, size, num, "", unit);
  }
  }
  snprintf(buf, size, "?");
  return buf;
}

/* ==== quoting =============================================================================== */

const char *scale_xml_entity(char c) {
  switch (c) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '"':
    return "&quot;";
  case '\'':
    return "&#39;";
  default:
    return NULL;
  }
}

char *scale_escape(char *buf, size_t size, const char *text, size_t max_chars) {
  if (size == 0) return buf;
  if (text == NULL) text = "";
  size_t n = 0, i = 0;
  for (; text[i] && i < max_chars; i++) {
    unsigned char c = (unsigned char)text[i];
    char esc[8];
    if (c == '\n' || c == '\t' || c == '\r')
      snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
    else if (c < 0x20 || c == 0x7f)
      snprintf(esc, sizeof esc, "\\x%02x", c);
    else
      esc[0] = (char)c, esc[1] = '\0';
    size_t k = strlen(esc);
    if (n + k >= size) break;
    memcpy(buf + n, esc, k);
    n += k;
  }
  if (text[i] && size > 4) { /* cut short: end with "..." when the buffer has room for it */
    while (n + 3 >= size)
      n--;
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n] = '\0';
  return buf;
}

/* ==== parsing =============================================================================== */

/* Multiplier of an SI/IEC suffix at 's' (which must then end), or 0 if none fits. */
static double suffix_multiplier(const char *s) {
  static const char letters[] = "kMGTPE";
  if (!*s) return 1.0;
  char c = *s == 'K' ? 'k' : *s;
  const char *hit = strchr(letters, c);
  if (!hit || !c) return 0.0;
  int power = (int)(hit - letters) + 1;
  if (s[1] == '\0') return pow(1000.0, power);
  if (s[1] == 'i' && s[2] == '\0') return pow(1024.0, power);
  return 0.0;
}

scale_status scale_parse_number(const char *text, unsigned flags, double *out, scale_diag *diag) {
  if (!text || !*text)
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "expected a number, got nothing");
  char shown[80 * 4 + 4]; /* the text, escaped: one line whatever it holds */
  scale_escape(shown, sizeof shown, text, 80);
  const char *p = text;
  if (*p == '+' || *p == '-') p++;
  if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "'%s' is not a number", shown);
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "'%s': hex is not accepted", shown);
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  double mult = suffix_multiplier(end);
  char rest[20 * 4 + 4];
  if (mult == 0.0)
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                          "'%s': unexpected '%s' (suffixes: k M G T P E, Ki Mi Gi Ti Pi)",
                          shown, scale_escape(rest, sizeof rest, end, 20));
  value *= mult;
  if (errno == ERANGE || !isfinite(value))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "'%s' is out of range", shown);
  if ((flags & SCALE_NUM_POSITIVE) && !(value > 0))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "'%s' must be positive", shown);
  if ((flags & SCALE_NUM_NONNEG) && value < 0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "'%s' must not be negative", shown);
  if ((flags & SCALE_NUM_INTEGER) && value != floor(value))
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "'%s' must be a whole number", shown);
  *out = value == 0 ? 0.0 : value; /* no "-0" */
  return SCALE_OK;
}
