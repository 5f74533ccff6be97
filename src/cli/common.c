#define _GNU_SOURCE /* strcasestr */
/* common.c — errors, option helpers and the JSON writer of the `scale` command (cli.h). */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "scale/calibrate.h"

/* ==== errors ================================================================================ */

void cli_write_escaped(FILE *out, const char *text) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\r')
      fputs("\\r", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(out, "\\x%02x", *p);
    else
      fputc(*p, out);
  }
}

/* One line on stderr whatever the arguments it echoes hold: control characters are escaped,
 * so a newline in an argument cannot split the line or forge a second one. */
static void vreport(const char *fmt, va_list ap) {
  char line[1024];
  vsnprintf(line, sizeof line, fmt, ap);
  fputs("scale: ", stderr);
  cli_write_escaped(stderr, line);
  fputc('\n', stderr);
}

int cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(fmt, ap);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

int cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(fmt, ap);
  va_end(ap);
  return CLI_EXIT_FAIL;
}

void cli_print_diag(const scale_diag *diag) {
  char line[768];
  scale_diag_format(diag, line, sizeof line);
  if (!diag->file[0]) fputs("scale: ", stderr);
  cli_write_escaped(stderr, line); /* the path and the echoed value may hold control bytes */
  fputc('\n', stderr);
}

void cli_getopt_reset(void) {
  optind = 0; /* glibc: 0 forces a full re-initialisation */
  opterr = 0;
}

int cli_bad_option(const char *cmd, char **argv) {
  const char *arg = optind > 0 ? argv[optind - 1] : "?";
  return cli_usage("%s: unknown option or missing argument '%s' (try: scale %s --help)", cmd, arg,
                   cmd);
}

int cli_parse_list_show(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
                        const cli_extra_options *extra, cli_list_show *out) {
  enum { OPT_JSON = 'j', OPT_HELP = 'h', MAX_OPTIONS = 16 };
  struct option options[MAX_OPTIONS + 3] = {{"json", no_argument, NULL, OPT_JSON},
                                            {"help", no_argument, NULL, OPT_HELP}};
  int n = 2;
  for (const struct option *o = extra ? extra->options : NULL; o && o->name && n < MAX_OPTIONS;)
    options[n++] = *o++;
  options[n] = (struct option){NULL, 0, NULL, 0};
  out->list = false, out->name = NULL, out->json = false;
  cli_getopt_reset();
  int c;
  /* getopt_long permutes argv, so options may follow the action and NAME. */
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (c == OPT_JSON) {
      out->json = true;
    } else if (c == OPT_HELP) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (c > 255 && extra) {
      if (!extra->handle(c, optarg, extra->ctx)) return CLI_EXIT_USAGE;
    } else {
      return cli_bad_option(cmd, argv);
    }
  }
  if (optind >= argc) return cli_usage("%s: missing action (list or show NAME)", cmd);
  const char *action = argv[optind++];
  if (optind < argc) out->name = argv[optind++];
  if (optind < argc) return cli_usage("%s: unexpected argument '%s'", cmd, argv[optind]);
  if (strcmp(action, "list") == 0) {
    if (out->name) return cli_usage("%s list: unexpected argument '%s'", cmd, out->name);
    out->list = true;
    return -1;
  }
  if (strcmp(action, "show") == 0) {
    if (!out->name) return cli_usage("%s show: missing NAME (try: scale %s list)", cmd, cmd);
    return -1;
  }
  return cli_usage("%s: unknown action '%s' (list or show NAME)", cmd, action);
}

/* ==== loading =============================================================================== */

/** Up to three stems of data folder 'subdir' that contain 'name' (case-insensitive), joined by
 * ", ": a "did you mean" for an unknown name ("h100": dgx-h100, nvidia-h100-sxm); "" if none. */
static const char *nearest_stems(const char *subdir, const char *name, char *out, size_t size) {
  static char names[128][SCALE_NAME_MAX];
  int n = name && name[0] && !strchr(name, '/') ? scale_data_list(subdir, names, 128) : 0;
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0, found = 0; i < n && i < 128 && found < 3; i++) {
    size_t k = strnlen(names[i], SCALE_NAME_MAX);
    if (!strcasestr(names[i], name) || len + k + 3 >= size) continue;
    if (found++) memcpy(out + len, ", ", 2), len += 2;
    memcpy(out + len, names[i], k);
    out[len += k] = '\0';
  }
  return out;
}

int cli_parse_price(const char *arg, double *out) {
  if (!cli_parse_number("usd-per-chip-hour", arg, SCALE_NUM_POSITIVE, out)) return CLI_EXIT_USAGE;
  if (*out < 0.001 || *out > 1e6)
    return cli_usage("--usd-per-chip-hour: must be in [0.001, 1e6] USD a chip-hour, got '%s'",
                     arg);
  return CLI_EXIT_OK;
}

#define MAX_PRICES 512

int cli_apply_price(scale_chip *chip, double price, const char *name, const char **from) {
  static scale_price rows[MAX_PRICES];
  static char said[256];
  if (from) *from = isnan(price) ? "the hardware file's on-demand price" : "--usd-per-chip-hour";
  if (!name) {
    if (!isnan(price)) chip->usd_per_hour = price;
    return CLI_EXIT_OK;
  }
  if (!isnan(price)) return cli_usage("--price and --usd-per-chip-hour: give one of them");
  scale_diag diag;
  int n = scale_prices_read(NULL, rows, MAX_PRICES, &diag);
  if (n < 0) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  const char *stem = chip->base[0] ? chip->base : chip->name;
  char why[256];
  const scale_price *row = scale_price_find(rows, n, stem, name, why, sizeof why);
  if (!row) return cli_usage("--price %s: %s", name, why);
  chip->usd_per_hour = row->usd_per_chip_hour;
  snprintf(said, sizeof said, "--price %s: %s %s, %s; %s", name, row->provider,
           scale_offer_name(row->offer), row->date, row->source);
  if (from) *from = said;
  return CLI_EXIT_OK;
}

int cli_hw_prices(const char *chip) {
  static scale_price rows[MAX_PRICES];
  scale_diag diag;
  int n = scale_prices_read(NULL, rows, MAX_PRICES, &diag);
  if (n < 0) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  int shown = 0;
  printf("%-18s %-14s %-13s %10s  %-8s %s\n", "CHIP", "PROVIDER", "OFFER", "USD/CHIP-H", "DATE",
         "--price");
  for (int i = 0; i < n; i++) {
    if (chip && strcmp(rows[i].chip, chip) != 0) continue;
    printf("%-18s %-14s %-13s %10.4g  %-8s %s:%s\n", rows[i].chip, rows[i].provider,
           scale_offer_name(rows[i].offer), rows[i].usd_per_chip_hour, rows[i].date,
           rows[i].provider, scale_offer_name(rows[i].offer));
    shown++;
  }
  if (chip && !shown) return cli_fail("no price for '%s' in hardware/prices.tsv", chip);
  return CLI_EXIT_OK;
}

/* The hardware file the last cli_load_chip() read by path, and its chip's name: the cost model's
 * line names that file, not hardware/<stem>.ini (which may not exist). */
static char chip_path[1024], chip_path_name[SCALE_NAME_MAX];

int cli_load_chip(const char *name, scale_chip *out) {
  scale_diag diag;
  scale_status st = scale_chip_load(name, out, &diag);
  char near[4 * SCALE_NAME_MAX];
  if ((st == SCALE_ERR_NOT_FOUND || st == SCALE_ERR_INVALID) &&
      nearest_stems("hardware", name, near, sizeof near)[0])
    return cli_usage("unknown hardware '%s'; did you mean %s? (scale hw list)", name, near);
  if (st == SCALE_ERR_NOT_FOUND || st == SCALE_ERR_INVALID)
    return cli_usage("unknown hardware '%s' (try: scale hw list)", name ? name : "");
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  size_t len = strlen(name);
  bool path = strchr(name, '/') || (len > 4 && strcmp(name + len - 4, ".ini") == 0);
  snprintf(chip_path, sizeof chip_path, "%s", path ? name : "");
  snprintf(chip_path_name, sizeof chip_path_name, "%s", path ? out->name : "");
  return CLI_EXIT_OK;
}

int cli_load_model(const char *name, scale_model *out) {
  scale_diag diag;
  scale_status st = scale_model_load(name, out, &diag);
  char near[4 * SCALE_NAME_MAX];
  bool unknown = st == SCALE_ERR_NOT_FOUND || (st == SCALE_ERR_INVALID && !diag.file[0]);
  if (unknown && nearest_stems("models", name, near, sizeof near)[0])
    return cli_usage("unknown model '%s'; did you mean %s? (scale model list)", name, near);
  if (unknown)
    return cli_usage("unknown model '%s' (try: scale model list)", name ? name : "");
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

int cli_load_step_params(const scale_chip *chip, scale_step_params *out) {
  if (scale_step_params_of_chip(chip, out) == SCALE_OK) return CLI_EXIT_OK;
  /* a file without [step] (a measured or hand-made chip): the shipped fit, said by name */
  scale_diag diag;
  if (scale_step_params_load_file(scale_step_params_path(), out, &diag) != SCALE_OK) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

const char *cli_cost_model_name(const scale_chip *chip, bool roofline) {
  static char text[1400];
  if (roofline)
    return "roofline (the book's ideal: peak FLOP/s and bandwidth, perfect overlap)";
  char file[1100];
  if (chip && !chip->base[0] && chip_path[0] && strcmp(chip->name, chip_path_name) == 0)
    snprintf(file, sizeof file, "%s", chip_path); /* read by path: that file */
  else if (chip)
    snprintf(file, sizeof file, "hardware/%s.ini", chip->base[0] ? chip->base : chip->name);
  if (chip && chip->has_step)
    snprintf(text, sizeof text,
             "calibrated step model ([step] of %s, fitted on %.0f rows; scale validate shows "
             "its error)",
             file, chip->step_fit_rows);
  else
    snprintf(text, sizeof text,
             "calibrated step model (the shipped fit: %s has no [step] section)",
             chip ? chip->name : "the hardware");
  return text;
}

/* The scale-up and scale-out fabrics ([nvlink] fabric, [network] fabric) some fitted row ran
 * across: its chips span two or more GPUs of a domain, or more than one domain. */
typedef struct {
  int n_up, n_out;
  char up[SCALE_COVER_CHIPS_MAX][SCALE_NAME_MAX];
  char out[SCALE_COVER_CHIPS_MAX][SCALE_NAME_MAX];
} fabric_cover;

static bool fabric_listed(char list[][SCALE_NAME_MAX], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

static void fabric_add(char list[][SCALE_NAME_MAX], int *n, const char *name) {
  if (!name[0] || *n >= SCALE_COVER_CHIPS_MAX || fabric_listed(list, *n, name)) return;
  snprintf(list[(*n)++], SCALE_NAME_MAX, "%s", name);
}

/* Whether a run of 'chips' on 'chip' crosses its scale-up domain (two or more of its GPUs) and
 * its scale-out network (more chips than one domain holds). */
static void fabrics_crossed(const scale_chip *chip, double chips, bool *up, bool *out) {
  double domain = chip->nvlink_domain_size >= 1 ? chip->nvlink_domain_size : 1;
  *up = chip->kind == SCALE_HW_GPU && domain >= 2 && chips >= 2;
  *out = chip->kind == SCALE_HW_GPU && chips > domain;
}

static fabric_cover shipped_fabrics;

/* The shipped fit's coverage, counted on first use: one load of measurements/ a command, never
 * per layout (the planner's hot path does not see it). NULL when it cannot be loaded. */
static const scale_coverage *shipped_coverage(void) {
  static scale_coverage cov;
  static int state; /* 0 not tried, 1 loaded, -1 failed */
  if (state == 0) {
    scale_calib_set *set = NULL;
    scale_diag diag;
    state = scale_calib_set_load(scale_measurements_dir(), &set, &diag) == SCALE_OK ? 1 : -1;
    if (state == 1) {
      scale_coverage_of(set, &cov);
      for (int i = 0; i < set->n; i++) {
        const scale_calib_point *p = &set->points[i];
        bool up, out;
        fabrics_crossed(&p->chip, p->row.chips, &up, &out);
        if (up) fabric_add(shipped_fabrics.up, &shipped_fabrics.n_up, p->chip.scaleup_fabric);
        if (out) fabric_add(shipped_fabrics.out, &shipped_fabrics.n_out, p->chip.scaleout_fabric);
      }
    }
    scale_calib_set_free(set);
  }
  return state == 1 ? &cov : NULL;
}

/* The job's networks no fitted row crossed, as "<chip>'s scale-up network (xgmi)" into
 * names[n..max); the new count. A network whose fabric the file does not name is not judged. */
static int fabric_gaps(const scale_step_job *job, const char **names, int n, int max) {
  static char text[2][SCALE_NAME_MAX * 2 + 32];
  const scale_chip *chip = job->chip;
  const char *stem = chip->base[0] ? chip->base : chip->name;
  bool up, out;
  fabrics_crossed(chip, job->dp * job->tp * job->pp * job->cp, &up, &out);
  if (up && n < max && chip->scaleup_fabric[0] &&
      !fabric_listed(shipped_fabrics.up, shipped_fabrics.n_up, chip->scaleup_fabric)) {
    snprintf(text[0], sizeof text[0], "%s's scale-up network (%s)", stem, chip->scaleup_fabric);
    names[n++] = text[0];
  }
  if (out && n < max && chip->scaleout_fabric[0] &&
      !fabric_listed(shipped_fabrics.out, shipped_fabrics.n_out, chip->scaleout_fabric)) {
    snprintf(text[1], sizeof text[1], "%s's scale-out network (%s)", stem, chip->scaleout_fabric);
    names[n++] = text[1];
  }
  return n;
}

int cli_coverage_gaps(const scale_step_job *job, const char *recipe, const char **names,
                      int max) {
  static char chip_text[SCALE_NAME_MAX + 8];
  const scale_coverage *cov = shipped_coverage();
  if (!cov || !job || !job->chip || max < 3) return 0;
  int ids[SCALE_COVER_COUNT];
  bool chip_gap;
  int n = scale_coverage_gaps(cov, job, recipe, ids, max - 3, &chip_gap);
  for (int i = 0; i < n; i++) names[i] = scale_cover_feature_name(ids[i]);
  if (chip_gap) {
    snprintf(chip_text, sizeof chip_text, "chip %s",
             job->chip->base[0] ? job->chip->base : job->chip->name);
    names[n++] = chip_text;
  }
  return fabric_gaps(job, names, n, max);
}

void cli_print_caveat(const char *const *names, int n) {
  if (n <= 0) return;
  printf("caveat: no fitted group covers ");
  for (int i = 0; i < n; i++) printf("%s%s", i ? ", " : "", names[i]);
  printf(": these parts run on priors and unvalidated formulas\n");
}

bool cli_parse_number(const char *opt, const char *text, unsigned flags, double *out) {
  scale_diag diag;
  double value;
  if (scale_parse_number(text, flags, &value, &diag) != SCALE_OK) {
    cli_usage("--%s: %s", opt, diag.message);
    return false;
  }
  /* Products of a few such numbers (B x D x F, tokens x parameters) stay finite. */
  if (fabs(value) > CLI_NUMBER_MAX || (value != 0 && fabs(value) < 1.0 / CLI_NUMBER_MAX)) {
    cli_usage("--%s: %s is out of range (numbers on the command line lie within 1e-30..1e30)", opt,
              text);
    return false;
  }
  *out = value;
  return true;
}

bool cli_parse_prior_weight(const char *text, double *out) {
  double w;
  if (!cli_parse_number("prior-weight", text, SCALE_NUM_NONNEG, &w)) return false;
  if (w > SCALE_CALIB_PRIOR_WEIGHT_MAX) {
    cli_usage("--prior-weight: %s is above %g (each parameter pinned at its prior)", text,
              SCALE_CALIB_PRIOR_WEIGHT_MAX);
    return false;
  }
  *out = w;
  return true;
}

void cli_warn_batch_tokens(const char *text, double batch_tokens, double seq) {
  if (!text || !(seq > 0) || !isfinite(batch_tokens)) return;
  double sequences = batch_tokens / seq;
  if (sequences == floor(sequences)) return;
  char line[512];
  int n = snprintf(line, sizeof line,
                   "warning: --batch-tokens %.80s is %.0f tokens, %.2f sequences of %.0f", text,
                   batch_tokens, sequences, seq);
  /* "4M" means 4e6; a batch of 2^22 tokens is "4Mi": offer it when it divides */
  size_t len = strlen(text);
  if (len >= 2 && len < 64 && strchr("kKMGTP", text[len - 1])) {
    char binary[72];
    double value;
    snprintf(binary, sizeof binary, "%.*s%ci", (int)len - 1, text,
             text[len - 1] == 'k' ? 'K' : text[len - 1]);
    if (scale_parse_number(binary, 0, &value, NULL) == SCALE_OK &&
        value / seq == floor(value / seq) && n > 0 && (size_t)n < sizeof line)
      snprintf(line + n, sizeof line - (size_t)n,
               "; did you mean %s (%.0f tokens, %.0f sequences)?", binary, value, value / seq);
  }
  fputs("scale: ", stderr);
  cli_write_escaped(stderr, line);
  fputc('\n', stderr);
}

bool cli_parse_dtype(const char *opt, const char *text, scale_dtype *out) {
  if (scale_dtype_parse(text, out) == SCALE_OK) return true;
  cli_usage("--%s: unknown dtype '%s' (fp32, bf16, fp16, fp8, int8, int4, fp4)", opt, text);
  return false;
}

/* ==== human output ========================================================================== */

void cli_row(const char *label, double value, const char *unit, scale_fmt style) {
  char text[64];
  cli_row_text(label, isnan(value) ? "n/a" : scale_format(text, sizeof text, value, unit, style));
}

void cli_row_text(const char *label, const char *text) { printf("  %-34s %s\n", label, text); }

/* ==== JSON ================================================================================== */

static void indent(const cli_json *json) {
  for (int i = 0; i < json->depth; i++)
    fputs("  ", json->out);
}

/* Starts an element: comma, newline, indent, and "key": when given. */
static void element(cli_json *json, const char *key) {
  if (json->depth > 0) {
    fputs(json->first[json->depth] ? "\n" : ",\n", json->out);
    json->first[json->depth] = false;
    indent(json);
  }
  if (key) {
    fputc('"', json->out);
    for (const char *p = key; *p; p++)
      fputc(*p, json->out);
    fputs("\": ", json->out);
  }
}

static void write_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

void cli_json_init(cli_json *json, FILE *out) {
  memset(json, 0, sizeof *json);
  json->out = out;
}

static void open_container(cli_json *json, const char *key, char brace) {
  element(json, key);
  fputc(brace, json->out);
  if (json->depth < 31) json->depth++;
  json->first[json->depth] = true;
}

static void close_container(cli_json *json, char brace) {
  bool empty = json->first[json->depth];
  if (json->depth > 0) json->depth--;
  if (!empty) {
    fputc('\n', json->out);
    indent(json);
  }
  fputc(brace, json->out);
}

void cli_json_object_begin(cli_json *json, const char *key) { open_container(json, key, '{'); }
void cli_json_object_end(cli_json *json) { close_container(json, '}'); }
void cli_json_array_begin(cli_json *json, const char *key) { open_container(json, key, '['); }
void cli_json_array_end(cli_json *json) { close_container(json, ']'); }

void cli_json_number(cli_json *json, const char *key, double value) {
  element(json, key);
  if (isfinite(value))
    fprintf(json->out, "%.17g", value == 0 ? 0.0 : value);
  else
    fputs("null", json->out);
}

void cli_json_string(cli_json *json, const char *key, const char *value) {
  element(json, key);
  write_string(json->out, value ? value : "");
}

void cli_json_bool(cli_json *json, const char *key, bool value) {
  element(json, key);
  fputs(value ? "true" : "false", json->out);
}

void cli_json_finish(cli_json *json) { fputc('\n', json->out); }
