/* api.c — request parsing, data loading and JSON answers for the module's exports (api.h),
 * and the exports every widget uses: the buffers and the list of chips and models.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "web_data.h"

#define IN_SIZE 4096
#define OUT_SIZE (1u << 20) /* an SVG plot is tens of kB */
#define MAX_ARGS 32

static char in_buf[IN_SIZE];
static char out_buf[OUT_SIZE];
static size_t out_len;
static bool out_overflow, failed;
static bool first_field[8]; /* per nesting level: nothing written in it yet */
static int depth;

static char args_copy[IN_SIZE];
static const char *arg_key[MAX_ARGS], *arg_val[MAX_ARGS];
static int n_args;

/* ==== exports: the buffers ==================================================================== */

WEB_EXPORT("scale_web_in") char *scale_web_in(void);
WEB_EXPORT("scale_web_in_size") int scale_web_in_size(void);
WEB_EXPORT("scale_web_out") const char *scale_web_out(void);
WEB_EXPORT("scale_web_out_len") int scale_web_out_len(void);
WEB_EXPORT("scale_web_list") int scale_web_list(void);

/** Where JS writes the request (IN_SIZE bytes, NUL-terminated by JS). */
char *scale_web_in(void) { return in_buf; }
int scale_web_in_size(void) { return IN_SIZE; }
/** The last answer and its length in bytes (UTF-8 JSON). */
const char *scale_web_out(void) { return out_buf; }
int scale_web_out_len(void) { return (int)out_len; }

/* ==== the answer ============================================================================= */

static void put(const char *s, size_t n) {
  if (failed) return; /* the answer is the error already written */
  if (out_overflow || out_len + n + 1 > OUT_SIZE) {
    out_overflow = true;
    return;
  }
  memcpy(out_buf + out_len, s, n);
  out_len += n;
  out_buf[out_len] = '\0';
}

static void puts_(const char *s) { put(s, strlen(s)); }

static void put_escaped(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      put(esc, 2);
    } else if (c < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      puts_(esc);
    } else {
      put(s + i, 1);
    }
  }
}

/* A member's key (or, with k NULL, an array element's separator only). */
static void key(const char *k) {
  if (!first_field[depth]) puts_(",");
  first_field[depth] = false;
  if (!k) return;
  puts_("\"");
  put_escaped(k, strlen(k));
  puts_("\":");
}

void web_json_begin(void) {
  out_len = 0, out_overflow = false, depth = 0, first_field[0] = true;
  out_buf[0] = '\0';
  puts_("{");
}

void web_json_open(const char *k, char bracket) {
  key(k);
  put(&bracket, 1);
  if (depth + 1 < (int)(sizeof first_field / sizeof first_field[0])) first_field[++depth] = true;
}

void web_json_close(char bracket) {
  put(&bracket, 1);
  if (depth > 0) depth--;
}

int web_json_end(void) {
  if (failed) return 2;
  puts_("}");
  if (out_overflow) return web_error("the answer is too long for the module's buffer");
  return 0;
}

void web_json_num(const char *k, double value) {
  char buf[40];
  key(k);
  if (isfinite(value))
    snprintf(buf, sizeof buf, "%.17g", value == 0 ? 0.0 : value);
  else
    snprintf(buf, sizeof buf, "null");
  puts_(buf);
}

void web_json_fmt(const char *k, double value, const char *unit, scale_fmt style) {
  char name[96], text[64];
  web_json_num(k, value);
  snprintf(name, sizeof name, "%s_text", k);
  if (isfinite(value))
    web_json_str(name, scale_format(text, sizeof text, value, unit, style));
  else
    web_json_str(name, "n/a");
}

void web_json_str(const char *k, const char *text) {
  key(k);
  puts_("\"");
  put_escaped(text, strlen(text));
  puts_("\"");
}

void web_json_raw(const char *k, const char *json, size_t len) {
  key(k);
  put(json, len);
}

void web_json_svg(const char *k, const scale_plot *plot) {
  /* Measure, then write straight into the answer: the SVG goes out escaped in place. */
  static char svg[OUT_SIZE / 2];
  size_t len = 0;
  scale_diag diag = {0};
  if (scale_plot_svg(plot, svg, sizeof svg, &len, &diag) != SCALE_OK) {
    web_error("plot: %s", diag.message);
    return;
  }
  key(k);
  puts_("\"");
  put_escaped(svg, len);
  puts_("\"");
}

int web_error(const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  failed = false;
  web_json_begin();
  web_json_str("error", msg);
  puts_("}");
  failed = true;
  return 2;
}

bool web_failed(void) { return failed; }

/* ==== the request ============================================================================ */

static bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_' || c == '+';
}

bool web_request_parse(void) {
  failed = false;
  n_args = 0;
  in_buf[IN_SIZE - 1] = '\0';
  memcpy(args_copy, in_buf, IN_SIZE);
  for (char *p = args_copy; *p;) {
    char *amp = strchr(p, '&');
    if (amp) *amp = '\0';
    char *eq = strchr(p, '=');
    if (*p) {
      if (!eq || eq == p) {
        web_error("malformed argument '%.40s' (want KEY=VALUE)", p);
        return false;
      }
      *eq = '\0';
      for (const char *c = p; *c; c++)
        if (!plain(*c) || c == eq) {
          web_error("malformed argument name '%.40s'", p);
          return false;
        }
      for (const char *c = eq + 1; *c; c++)
        if (!plain(*c)) {
          web_error("argument %.40s: unexpected character in '%.40s'", p, eq + 1);
          return false;
        }
      if (n_args == MAX_ARGS) {
        web_error("more than %d arguments", MAX_ARGS);
        return false;
      }
      arg_key[n_args] = p, arg_val[n_args] = eq + 1, n_args++;
    }
    if (!amp) break;
    p = amp + 1;
  }
  return true;
}

const char *web_arg(const char *k) {
  for (int i = n_args - 1; i >= 0; i--) /* the last one wins, as in a URL */
    if (strcmp(arg_key[i], k) == 0) return arg_val[i];
  return NULL;
}

double web_num(const char *k, double dflt, double lo, double hi) {
  const char *text = web_arg(k);
  if (!text) return dflt;
  double v;
  scale_diag diag = {0};
  if (scale_parse_number(text, 0, &v, &diag) != SCALE_OK) {
    web_error("%s: %s", k, diag.message);
    return (double)NAN;
  }
  if (!(v >= lo && v <= hi)) {
    web_error("%s: %s is outside [%g, %g]", k, text, lo, hi);
    return (double)NAN;
  }
  return v;
}

/* Loads DIR/NAME.ini through 'load' (the same loader `scale` uses on the same bytes). */
static bool load_named(const char *dir, const char *k, const char *dflt, void *out,
                       scale_status (*load)(const char *, void *, scale_diag *)) {
  const char *name = web_arg(k);
  if (!name) name = dflt;
  char path[160];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  scale_diag diag = {0};
  if (load(path, out, &diag) == SCALE_OK) return true;
  if (diag.line == 0 && strstr(diag.message, "cannot open"))
    web_error("%s: unknown %s '%s'", k, dir, name);
  else
    web_error("%s:%d: %s", path, diag.line, diag.message);
  return false;
}

static scale_status load_chip(const char *path, void *out, scale_diag *diag) {
  return scale_chip_load_file(path, out, diag);
}

static scale_status load_model(const char *path, void *out, scale_diag *diag) {
  return scale_model_load_file(path, out, diag);
}

bool web_chip(const char *k, const char *dflt, scale_chip *chip) {
  return load_named("hardware", k, dflt, chip, load_chip);
}

bool web_model(const char *k, const char *dflt, scale_model *model) {
  return load_named("models", k, dflt, model, load_model);
}

bool web_dtype(const char *k, scale_dtype dflt, scale_dtype *out) {
  const char *text = web_arg(k);
  *out = dflt;
  if (!text) return true;
  if (scale_dtype_parse(text, out) == SCALE_OK) return true;
  web_error("%s: unknown dtype '%s' (fp32, bf16, fp16, fp8, int8, int4)", k, text);
  return false;
}

/* ==== export: the chips and models =========================================================== */

/* Appends one array of {"name", "display"} for the embedded files under 'dir'. */
static void list_dir(const char *dir, bool chips) {
  static char json[16384];
  size_t n = 0;
  char stem[80];
  json[n++] = '[';
  for (int i = 0; web_data_stem(dir, i, stem, sizeof stem); i++) {
    char path[160], display[SCALE_NAME_MAX] = "";
    snprintf(path, sizeof path, "%s/%s.ini", dir, stem);
    if (chips) {
      static scale_chip chip;
      if (scale_chip_load_file(path, &chip, NULL) != SCALE_OK) continue;
      snprintf(display, sizeof display, "%s", chip.display_name);
    } else {
      static scale_model model;
      if (scale_model_load_file(path, &model, NULL) != SCALE_OK) continue;
      snprintf(display, sizeof display, "%s%s", model.display_name,
               scale_model_is_moe(&model) ? " (MoE)" : "");
    }
    int k = snprintf(json + n, sizeof json - n, "%s{\"name\":\"%s\",\"display\":\"%s\"}",
                     n > 1 ? "," : "", stem, display);
    if (k < 0 || (size_t)k >= sizeof json - n) break;
    n += (size_t)k;
  }
  if (n + 2 <= sizeof json) json[n++] = ']';
  web_json_raw(dir, json, n);
}

/** {"hardware": [{"name", "display"}...], "models": [...]}: what the selects offer. */
int scale_web_list(void) {
  web_json_begin();
  list_dir("hardware", true);
  list_dir("models", false);
  return web_json_end();
}
