/* chapter.c — the shared frame of chapter programs (chapter.h). */
#include "chapter.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out, const char *prog, const char *name, const char *summary,
                  const chapter_option *options) {
  fprintf(out,
          "usage: %s [--values] [--values-file FILE] [--figures DIR] [options]\n\n"
          "Chapter %s: %s\n\n"
          "  (no flag)           print the chapter's walk-through\n"
          "  --values            print key<TAB>value<TAB>unit<TAB>display, one value a line\n"
          "  --values-file FILE  write those lines to FILE instead\n"
          "  --figures DIR       write the chapter's SVG figures into DIR\n"
          "  --help              this text\n",
          prog, name, summary ? summary : "");
  for (const chapter_option *o = options; o && o->name; o++)
    fprintf(out, "  --%-17s %s (default: %s)\n", o->name, o->help ? o->help : "",
            o->value ? o->value : "none");
}

/** Matches argv[*i] against option 'name' (--name V or --name=V); stores V in *value. */
static int match(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0) return 0;
  if (a[2 + n] == '=') {
    *value = a + 3 + n;
    return 1;
  }
  if (a[2 + n] != '\0') return 0;
  if (*i + 1 >= argc) return -1;
  *value = argv[++*i];
  return 1;
}

int chapter_begin(chapter *ch, int argc, char **argv, const char *name, const char *summary,
                  chapter_option *options) {
  memset(ch, 0, sizeof *ch);
  ch->name = name;
  ch->values_out = stdout;
  const char *prog = argc > 0 ? argv[0] : name;
  const char *values_file = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout, prog, name, summary, options);
      return 0;
    }
    if (strcmp(a, "--values") == 0) {
      ch->values = true;
      continue;
    }
    int m = match(argc, argv, &i, "values-file", &v);
    if (m == 0) m = match(argc, argv, &i, "figures", &v) * 2;
    if (m == 1) {
      ch->values = true;
      values_file = v;
      continue;
    }
    if (m == 2) {
      ch->figures_dir = v;
      continue;
    }
    bool known = false;
    if (m == 0)
      for (chapter_option *o = options; o && o->name && !known; o++) {
        m = match(argc, argv, &i, o->name, &v);
        if (m == 1) o->value = v, known = true;
        if (m < 0) break;
      }
    if (known) continue;
    if (m < 0)
      fprintf(stderr, "%s: option '%s' needs a value\n", name, a);
    else
      fprintf(stderr, "%s: unknown option '%s' (try --help)\n", name, a);
    return 2;
  }
  if (values_file) {
    ch->values_out = fopen(values_file, "w");
    if (!ch->values_out) {
      fprintf(stderr, "%s: cannot write '%s'\n", name, values_file);
      return 1;
    }
  }
  ch->walk = !ch->values && !ch->figures_dir;
  return -1;
}

void chapter_error(chapter *ch, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", ch->name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  ch->n_errors++;
}

void chapter_heading(chapter *ch, const char *title) {
  if (!ch->walk) return;
  printf("\n%s\n", title);
  for (size_t i = 0; title[i]; i++) putchar('-');
  putchar('\n');
}

void chapter_say(chapter *ch, const char *fmt, ...) {
  if (!ch->walk) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  putchar('\n');
  va_end(ap);
}

static void row(const char *label, const char *display) {
  int n = printf("  %s ", label);
  for (; n < 44; n++) putchar('.');
  printf(" %s\n", display);
}

void chapter_row(chapter *ch, const char *label, double value, const char *unit,
                 scale_fmt style) {
  if (!ch->walk) return;
  char buf[96];
  row(label, isfinite(value) ? scale_format(buf, sizeof buf, value, unit, style) : "n/a");
}

void chapter_table_row(chapter *ch, int n, const char *const cells[]) {
  if (!ch->walk) return;
  printf(" ");
  for (int i = 0; i < n; i++) printf(" %-16s", cells[i] ? cells[i] : "");
  putchar('\n');
}

static bool key_ok(const char *key) {
  if (!key || !key[0]) return false;
  for (const char *p = key; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_' || *p == '.' || *p == '-'))
      return false;
  return true;
}

/* A count's unit for one of it: "1 GPU", not "1 GPUs" (a word of letters ending in s). */
static const char *singular(double value, const char *unit, char *buf, size_t size) {
  size_t n = unit ? strlen(unit) : 0;
  if (value != 1 || n < 3 || n >= size || unit[n - 1] != 's') return unit;
  for (size_t i = 0; i < n; i++)
    if (!isalpha((unsigned char)unit[i])) return unit;
  memcpy(buf, unit, n - 1);
  buf[n - 1] = '\0';
  return buf;
}

void chapter_value(chapter *ch, const char *key, const char *label, double value,
                   const char *unit, scale_fmt style) {
  if (!key_ok(key)) {
    chapter_error(ch, "bad value key '%s' (use letters, digits, '_', '.', '-')", key ? key : "");
    return;
  }
  if (!isfinite(value)) {
    chapter_error(ch, "value '%s' is not finite (%g)", key, value);
    return;
  }
  char buf[96], one[32];
  scale_format(buf, sizeof buf, value, singular(value, unit, one, sizeof one), style);
  if (ch->values) {
    fprintf(ch->values_out, "%s\t%.17g\t%s\t%s\n", key, value,
            style == SCALE_FMT_TIME ? "s" : (unit ? unit : ""), buf);
    ch->n_values++;
  }
  if (ch->walk) row(label && label[0] ? label : key, buf);
}

/* Opens DIR/file for a figure, or reports why not (NULL). */
static FILE *open_figure(chapter *ch, const char *file, char *path, size_t size) {
  size_t n = strlen(file);
  if (strchr(file, '/') || n < 5 || strcmp(file + n - 4, ".svg") != 0) {
    chapter_error(ch, "figure name '%s' must be a bare NAME.svg", file);
    return NULL;
  }
  snprintf(path, size, "%s/%s", ch->figures_dir, file);
  FILE *f = fopen(path, "w");
  if (!f) chapter_error(ch, "cannot write figure '%s'", path);
  return f;
}

/* Closes a figure's file; on any failure reports it and removes the file. */
static bool close_figure(chapter *ch, FILE *f, const char *file, const char *path,
                         scale_status st, const scale_diag *diag) {
  if (fclose(f) != 0 && !st) st = SCALE_ERR_IO;
  if (st) {
    chapter_error(ch, "figure '%s': %s", file,
                  diag && diag->message[0] ? diag->message : scale_status_str(st));
    remove(path);
    return false;
  }
  ch->n_figures++;
  return true;
}

bool chapter_figure(chapter *ch, const char *file, const scale_plot *plot) {
  if (!ch->figures_dir) return true;
  char path[1024];
  FILE *f = open_figure(ch, file, path, sizeof path);
  if (!f) return false;
  scale_diag diag = {0};
  scale_status st = scale_plot_write(plot, f, &diag);
  return close_figure(ch, f, file, path, st, &diag);
}

bool chapter_diagram(chapter *ch, const char *file, scale_status status, const char *svg,
                     const scale_diag *diag) {
  if (!ch->figures_dir) return true;
  char path[1024];
  FILE *f = open_figure(ch, file, path, sizeof path);
  if (!f) return false;
  if (!status && fputs(svg, f) == EOF) status = SCALE_ERR_IO;
  return close_figure(ch, f, file, path, status, diag);
}

bool chapter_diagram_sharded(chapter *ch, const char *file, const char *mesh,
                             const char *sharding) {
  static char svg[1 << 17];
  scale_mesh m;
  scale_sharding a;
  scale_diag d = {0};
  scale_status st = scale_sharding_mesh_parse(mesh, &m, &d);
  if (!st) st = scale_sharding_parse(sharding, &m, &a, &d);
  if (!st) st = scale_diagram_sharded_array(&m, &a, svg, sizeof svg, NULL, &d);
  return chapter_diagram(ch, file, st, svg, &d);
}

static bool report(chapter *ch, scale_status st, const scale_diag *diag, const char *what,
                   const char *name) {
  if (!st) return true;
  char buf[600];
  chapter_error(ch, "cannot load %s '%s': %s", what, name,
                diag->message[0] ? scale_diag_format(diag, buf, sizeof buf)
                                 : scale_status_str(st));
  return false;
}

bool chapter_load_chip(chapter *ch, const char *name, scale_chip *out) {
  scale_diag diag = {0};
  return report(ch, scale_chip_load(name, out, &diag), &diag, "hardware", name);
}

bool chapter_load_model(chapter *ch, const char *name, scale_model *out) {
  scale_diag diag = {0};
  return report(ch, scale_model_load(name, out, &diag), &diag, "model", name);
}

void chapter_run_values(chapter *ch, const char *stem, const char *label,
                        const scale_train_problem *p, const scale_layout *l, double mfu,
                        double tokens) {
  scale_train_problem q = *p;
  q.efficiency_frac = mfu;
  q.train_tokens = tokens;
  scale_train_result r;
  scale_train_eval(&q, l, &r);
  chapter_stem_value(ch, stem, "days", label, r.train_time_s / SCALE_SECONDS_PER_DAY, "days",
                     SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cost", "  its cost", r.cost_usd, "USD", SCALE_FMT_USD);
}

void chapter_estimate_value(chapter *ch, const char *stem, double n_params, double tokens,
                            double n_chips, double c, double mfu) {
  double t = scale_train_time_s(6.0 * n_params * tokens, n_chips, c, mfu);
  chapter_stem_value(ch, stem, "estimate_days", "6ND / (chips C MFU)", t / SCALE_SECONDS_PER_DAY,
                     "days", SCALE_FMT_PLAIN);
}

bool chapter_energy_values(chapter *ch, const char *stem, const scale_model *model,
                           const char *hw, const char *record, chapter_energy_inputs in) {
  scale_chip chip;
  scale_energy_source src;
  scale_diag diag = {0};
  if (!chapter_load_chip(ch, hw, &chip) ||
      !report(ch, scale_energy_source_load(NULL, record, &src, &diag), &diag, "record", record))
    return false;
  double n = scale_transformer_n_params(model), chips = src.n_chips;
  double useful = scale_train_time_s(6.0 * n * in.tokens, chips,
                                     scale_chip_flops_per_s(&chip, SCALE_DTYPE_BF16), in.mfu);
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  scale_energy_run run = scale_energy_run_of(&chip, chips, useful, &src);
  run.ckpt_bytes = scale_transformer_weight_bytes(&prec, n) +
                   scale_transformer_optimizer_bytes(&prec, n);
  run.restart_s = in.restart_s;
  run.pue = in.pue;
  run.grid_kg_per_kwh = in.grid_kg_per_kwh;
  scale_energy_result r;
  scale_energy_eval(&run, &r);
  const double day = SCALE_SECONDS_PER_DAY;
  CHAPTER_VALUES(ch, stem,
      {"chips", "chips", chips, "", SCALE_FMT_PLAIN},
      {"rate", "interruptions per chip-hour", run.rate_per_chip_hour, "", SCALE_FMT_SCI},
      {"mtbi", "the job's mean time between them", r.mtbi_s, "s", SCALE_FMT_TIME},
      {"ckpt_bytes", "checkpoint (weights + Adam)", run.ckpt_bytes, "B", SCALE_FMT_SI},
      {"write", "storage write bandwidth", run.ckpt_write_bytes_per_s, "B/s", SCALE_FMT_SI},
      {"ckpt_s", "checkpoint time", r.ckpt_s, "s", SCALE_FMT_TIME},
      {"young_s", "Young's interval", scale_energy_young_interval_s(r.ckpt_s, r.mtbi_s), "s",
       SCALE_FMT_TIME},
      {"interval_s", "Daly's interval", r.interval_s, "s", SCALE_FMT_TIME},
      {"restart_s", "restart time", run.restart_s, "s", SCALE_FMT_TIME},
      {"goodput", "goodput", 100.0 * r.goodput_frac, "%", SCALE_FMT_PLAIN},
      {"useful_days", "useful time", useful / day, "days", SCALE_FMT_PLAIN},
      {"effective_days", "effective time", r.elapsed_s / day, "days", SCALE_FMT_PLAIN},
      {"interruptions", "interruptions expected", r.n_interruptions, "", SCALE_FMT_PLAIN},
      {"gpu_hours", "chip-hours", chips * r.elapsed_s / SCALE_SECONDS_PER_HOUR, "", SCALE_FMT_SCI},
      {"chip_w", "chip power (TDP)", run.chip_w, "W", SCALE_FMT_PLAIN},
      {"it_wh", "IT energy", r.it_kwh * 1e3, "Wh", SCALE_FMT_SI},
      {"pue", "PUE", in.pue, "", SCALE_FMT_PLAIN},
      {"facility_wh", "facility energy", r.facility_kwh * 1e3, "Wh", SCALE_FMT_SI},
      {"grid", "grid intensity", in.grid_kg_per_kwh, "kg/kWh", SCALE_FMT_PLAIN},
      {"co2e_t", "location-based emissions", r.co2e_t, "tCO2e", SCALE_FMT_PLAIN});
  return true;
}

/* ---- helpers shared by several chapters ----------------------------------------------------- */

double chapter_option_number(chapter *ch, const chapter_option *o, unsigned flags) {
  double v = NAN;
  scale_diag diag = {0};
  if (scale_parse_number(o->value, flags, &v, &diag) != SCALE_OK) {
    chapter_error(ch, "--%s: %s", o->name, diag.message);
    return NAN;
  }
  return v;
}

void chapter_valuef(chapter *ch, const char *label, double value, const char *unit,
                    scale_fmt style, const char *key_fmt, ...) {
  char key[160];
  va_list ap;
  va_start(ap, key_fmt);
  int n = vsnprintf(key, sizeof key, key_fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof key) {
    chapter_error(ch, "value key '%s...' is too long", key);
    return;
  }
  chapter_value(ch, key, label, value, unit, style);
}

void chapter_stem_value(chapter *ch, const char *stem, const char *what, const char *label,
                        double value, const char *unit, scale_fmt style) {
  chapter_valuef(ch, label, value, unit, style, "%s.%s", stem, what);
}

void chapter_stem_value_opt(chapter *ch, const char *stem, const char *what, const char *label,
                            double value, const char *unit, scale_fmt style) {
  if (isfinite(value))
    chapter_stem_value(ch, stem, what, label, value, unit, style);
  else
    chapter_row(ch, label, value, unit, style);
}

void chapter_values(chapter *ch, const char *stem, const chapter_val *rows, int n) {
  for (int i = 0; i < n; i++) {
    const chapter_val *r = &rows[i];
    if (!r->key)
      chapter_row(ch, r->label, r->value, r->unit, r->style);
    else if (stem)
      chapter_stem_value(ch, stem, r->key, r->label, r->value, r->unit, r->style);
    else
      chapter_value(ch, r->key, r->label, r->value, r->unit, r->style);
  }
}

void chapter_values_opt(chapter *ch, const char *stem, const chapter_val *rows, int n) {
  for (int i = 0; i < n; i++)
    if (!rows[i].key)
      chapter_row(ch, rows[i].label, rows[i].value, rows[i].unit, rows[i].style);
    else
      chapter_stem_value_opt(ch, stem, rows[i].key, rows[i].label, rows[i].value, rows[i].unit,
                             rows[i].style);
}

void chapter_quantities(chapter *ch, const char *stem, const scale_quantity *rows, int n,
                        bool opt) {
  for (int i = 0; i < n; i++)
    if (!stem && !opt)
      chapter_value(ch, rows[i].key, rows[i].label, rows[i].value, rows[i].unit, rows[i].style);
    else
      (opt ? chapter_stem_value_opt : chapter_stem_value)(
          ch, stem, rows[i].key, rows[i].label, rows[i].value, rows[i].unit, rows[i].style);
}

void chapter_model_dims(chapter *ch, const char *stem, const scale_model *m, bool lower) {
  const struct {
    const char *upper, *lower;
    double v;
  } dims[] = {{"L", "l", (double)m->n_layers},  {"D", "d", (double)m->d_model},
              {"F", "f", (double)m->d_ff},      {"N", "n", (double)m->n_heads},
              {"K", "k", (double)m->n_kv_heads}, {"H", "h", (double)m->d_head},
              {"V", "v", (double)m->n_vocab}};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    chapter_stem_value(ch, stem, lower ? dims[i].lower : dims[i].upper, dims[i].upper,
                       dims[i].v, "", SCALE_FMT_PLAIN);
}

bool chapter_status_ok(chapter *ch, scale_status st, const scale_diag *diag) {
  if (st == SCALE_OK) return true;
  char text[600];
  chapter_error(ch, "%s", diag->message[0] ? scale_diag_format(diag, text, sizeof text)
                                           : scale_status_str(st));
  return false;
}

void chapter_claim(chapter *ch, bool check, bool holds, const char *what) {
  if (check && !holds) chapter_error(ch, "the text's claim no longer holds: %s", what);
}

scale_dtype chapter_dtype16(const scale_chip *c) {
  return isfinite(scale_chip_flops_per_s(c, SCALE_DTYPE_BF16)) ? SCALE_DTYPE_BF16
                                                               : SCALE_DTYPE_FP16;
}

void chapter_logspace(double *out, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) out[i] = lo * pow(hi / lo, (double)i / (double)(n - 1));
}

/* ---- every chip or model of the data folder ------------------------------------------------ */

/** Lists the stems of data folder 'subdir' into names[0..CHAPTER_LIST_MAX); returns how many,
 * or -1 after reporting an error. */
static int list_data(chapter *ch, const char *subdir,
                     char names[CHAPTER_LIST_MAX][SCALE_NAME_MAX]) {
  int n = scale_data_list(subdir, names, CHAPTER_LIST_MAX);
  if (n < 0) {
    chapter_error(ch, "cannot list %s/%s", scale_data_dir(), subdir);
    return -1;
  }
  if (n > CHAPTER_LIST_MAX) {
    chapter_error(ch, "%s/%s has %d files; a chapter reads at most %d", scale_data_dir(),
                  subdir, n, CHAPTER_LIST_MAX);
    return -1;
  }
  return n;
}

/* The hardware files the chapters' tables cite, one row each (chapter_load_chips()). The
 * chips of issue 31 (TPU7x, B300, GB300, the AMD Instinct parts, H20, A100 40GB, H100 NVL) are
 * not yet in any chapter's text: the book's spec tables of this edition print none of them. */
static const char *const CHAPTER_CITED_CHIPS[] = {
    "ascend-910b", "dgx-h100", "gb200-nvl72", "nvidia-a100-80gb", "nvidia-b200", "nvidia-gh200",
    "nvidia-h100-sxm", "nvidia-h200", "nvidia-l40s", "nvidia-v100", "tpu-v3", "tpu-v4p",
    "tpu-v5e", "tpu-v5p", "tpu-v6e"};

static bool chip_cited(const char *stem) {
  for (size_t i = 0; i < sizeof CHAPTER_CITED_CHIPS / sizeof CHAPTER_CITED_CHIPS[0]; i++)
    if (strcmp(stem, CHAPTER_CITED_CHIPS[i]) == 0) return true;
  return false;
}

static bool chip_kept(const scale_chip *c, unsigned filter) {
  if (c->base[0] && !(filter & CHAPTER_CHIPS_SYSTEMS)) return false;
  if (!(filter & CHAPTER_CHIPS_UNCITED) && !chip_cited(c->name)) return false;
  return c->kind == SCALE_HW_TPU ? (filter & CHAPTER_CHIPS_TPU) != 0
                                 : (filter & CHAPTER_CHIPS_GPU) != 0;
}

bool chapter_load_chips(chapter *ch, unsigned filter, chapter_chips *out) {
  char names[CHAPTER_LIST_MAX][SCALE_NAME_MAX];
  int n = list_data(ch, "hardware", names);
  out->n = 0;
  if (n < 0) return false;
  for (int i = 0; i < n; i++) {
    scale_chip c;
    if (!chapter_load_chip(ch, names[i], &c)) return false;
    if (chip_kept(&c, filter)) out->chip[out->n++] = c;
  }
  return true;
}

bool chapter_load_models(chapter *ch, chapter_models *out) {
  char names[CHAPTER_LIST_MAX][SCALE_NAME_MAX];
  int n = list_data(ch, "models", names);
  out->n = 0;
  if (n < 0) return false;
  for (int i = 0; i < n; i++)
    if (!chapter_load_model(ch, names[i], &out->model[out->n++])) return false;
  return true;
}

/* ---- training layouts and the planner ------------------------------------------------------ */

bool chapter_train_eval(chapter *ch, const scale_train_problem *p, scale_layout *l,
                        scale_train_result *r) {
  scale_train_layout_map(p->chip, p->n_chips, l);
  scale_diag diag = {0};
  if (scale_train_validate(p, l, &diag) != SCALE_OK) {
    chapter_error(ch, "layout: %s", diag.message);
    return false;
  }
  scale_train_eval(p, l, r);
  return true;
}

void chapter_text_value(chapter *ch, const char *key, const char *label, double value,
                        const char *text) {
  if (!key_ok(key) || !isfinite(value) || strpbrk(text, "\t\n")) {
    chapter_error(ch, "bad text value '%s'", key ? key : "");
    return;
  }
  if (ch->values) {
    fprintf(ch->values_out, "%s\t%.17g\t1\t%s\n", key, value, text);
    ch->n_values++;
  }
  if (ch->walk) row(label && label[0] ? label : key, text);
}

/** Names the largest part of a calibrated step beyond its roofline step into buf. */
static double gap_binds(const scale_train_result *c, double slow, char *buf, size_t size) {
  int worst = scale_step_worst_exposed(&c->step);
  double comm = worst >= 0 ? c->step.exposed_s[worst] : 0, step = c->step_time_s;
  if (comm >= slow && comm >= c->step.bubble_s) {
    snprintf(buf, size, "exposed %s communication on %s, %.0f%% of the step",
             scale_step_comm_name((scale_step_comm)worst), scale_step_net_name(c->step.net[worst]),
             100.0 * comm / step);
    return comm / step;
  }
  if (c->step.bubble_s > slow) {
    snprintf(buf, size, "the pipeline bubble, %.0f%% of the step", 100.0 * c->step.bubble_s / step);
    return c->step.bubble_s / step;
  }
  snprintf(buf, size, "operations below peak rate, %.0f%% of the step", 100.0 * slow / step);
  return slow / step;
}

bool chapter_calibrated_gap(chapter *ch, const char *stem, const scale_train_problem *p,
                            const scale_layout *l) {
  scale_train_problem roof = *p, cal = *p;
  scale_step_params params;
  if (scale_step_params_of_chip(p->chip, &params) != SCALE_OK) {
    chapter_error(ch, "%s: the chip has no [step] section (run scale calibrate)", stem);
    return false;
  }
  roof.step_params = NULL;
  roof.efficiency_frac = 1.0; /* the book's roofline: every matmul at peak */
  cal.step_params = &params;
  scale_layout lr = *l, lc = *l;
  scale_train_result r, c;
  if (!chapter_train_eval(ch, &roof, &lr, &r) || !chapter_train_eval(ch, &cal, &lc, &c))
    return false;
  double step = c.step_time_s, exposed = c.step.bubble_s;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) exposed += c.step.exposed_s[k];
  double fixed = c.step.overhead_s, slow = step - r.step_time_s - exposed - fixed;
  chapter_stem_value(ch, stem, "roof_step", "step at the roofline", r.step_time_s, "s",
                     SCALE_FMT_TIME);
  chapter_stem_value(ch, stem, "cal_step", "step, calibrated step model", step, "s",
                     SCALE_FMT_TIME);
  chapter_stem_value(ch, stem, "cal_mfu", "  its MFU", 100.0 * c.mfu, "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_ratio", "  calibrated / roofline step",
                     step / r.step_time_s, "", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_eta_max", "  fitted matmul ceiling",
                     100.0 * params.v[SCALE_STEP_MM_ETA_MAX], "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_peak", "  share: work at peak (the roofline step)",
                     100.0 * r.step_time_s / step, "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_slow", "  share: ops slower than peak", 100.0 * slow / step,
                     "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_comm", "  share: exposed communication and bubble",
                     100.0 * exposed / step, "%", SCALE_FMT_PLAIN);
  chapter_stem_value(ch, stem, "cal_fixed", "  share: fixed per-step cost", 100.0 * fixed / step,
                     "%", SCALE_FMT_PLAIN);
  char key[SCALE_NAME_MAX + 16], text[160];
  double share = gap_binds(&c, slow, text, sizeof text);
  snprintf(key, sizeof key, "%s.cal_binds", stem);
  chapter_text_value(ch, key, "  the largest part of the gap", share, text);
  if (p->train_tokens > 0)
    chapter_stem_value(ch, stem, "cal_days", "  the run, calibrated", c.train_time_s / 86400.0,
                       "days", SCALE_FMT_PLAIN);
  return true;
}

bool chapter_plan_train(chapter *ch, const scale_train_problem *p, const scale_plan_opts *o,
                        scale_plan_report *rep, int min_ranked) {
  scale_diag diag = {0};
  scale_status st = scale_plan_train(p, o, rep, &diag);
  if (st != SCALE_OK) {
    chapter_error(ch, "planner: %s", diag.message[0] ? diag.message : scale_status_str(st));
    return false;
  }
  if (rep->n_ranked < min_ranked) {
    chapter_error(ch, "planner: fewer than %d layouts", min_ranked);
    return false;
  }
  return true;
}

void chapter_plan_counts(chapter *ch, const char *stem, const scale_plan_report *rep) {
  chapter_stem_value(ch, stem, "candidates", "layouts enumerated", rep->n_candidates, "",
                     SCALE_FMT_SCI);
  chapter_stem_value(ch, stem, "evaluated", "layouts evaluated", rep->n_evaluated, "",
                     SCALE_FMT_SCI);
  static const char *const tag[SCALE_PLAN_PRUNE_COUNT] = {"tp", "cp",      "pp",    "batch",
                                                          "ep", "invalid", "memory"};
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    chapter_valuef(ch, scale_plan_prune_name((scale_plan_prune)i), rep->n_pruned[i], "",
                   SCALE_FMT_SCI, "%s.pruned.%s", stem, tag[i]);
}

void chapter_plan_row(chapter *ch, const char *stem, const scale_plan_report *rep, int i,
                      const char *columns) {
  const scale_plan_entry *e = &rep->ranked[i];
  const scale_layout *l = &e->layout;
  const scale_train_result *r = &e->result;
  const struct {
    const char *name;
    double v;
    const char *unit;
    scale_fmt style;
  } cols[] = {
      {"dp", l->dp, "", SCALE_FMT_PLAIN},
      {"fsdp", l->fsdp, "", SCALE_FMT_PLAIN},
      {"zero", l->fsdp > 1.0 ? (double)l->zero_stage : 0.0, "", SCALE_FMT_PLAIN},
      {"tp", l->tp, "", SCALE_FMT_PLAIN},
      {"sp", l->sp ? 1.0 : 0.0, "", SCALE_FMT_PLAIN},
      {"pp", l->pp, "", SCALE_FMT_PLAIN},
      {"m", l->n_microbatches, "", SCALE_FMT_PLAIN},
      {"cp", l->cp, "", SCALE_FMT_PLAIN},
      {"saved", scale_transformer_n_saved_per_layer(l->remat), "", SCALE_FMT_PLAIN},
      {"bubble", 100.0 * r->bubble_frac, "%", SCALE_FMT_PLAIN},
      {"step", r->step_time_s, "s", SCALE_FMT_TIME},
      {"mfu", 100.0 * r->mfu, "%", SCALE_FMT_PLAIN},
      {"mem", r->memory_per_chip_bytes, "B", SCALE_FMT_SI},
  };
  char buf[200];
  chapter_say(ch, "%d. %s", i + 1, scale_plan_layout_str(l, buf, sizeof buf));
  for (const char *p = columns + strspn(columns, " "); *p; p += strspn(p, " ")) {
    size_t n = strcspn(p, " ");
    if (n == 6 && strncmp(p, "cpkind", n) == 0) { /* text: ring, ulysses, allgather or - */
      char key[96];
      snprintf(key, sizeof key, "%s.r%d.cpkind", stem, i + 1);
      chapter_text_value(ch, key, "cp kind", l->cp,
                         l->cp > 1.0 ? scale_cp_kind_name(l->cp_kind) : "-");
      p += n;
      continue;
    }
    size_t c = 0;
    while (c < sizeof cols / sizeof cols[0] &&
           !(strlen(cols[c].name) == n && strncmp(cols[c].name, p, n) == 0))
      c++;
    if (c == sizeof cols / sizeof cols[0])
      chapter_error(ch, "no plan column '%.*s'", (int)n, p);
    else
      chapter_valuef(ch, cols[c].name, cols[c].v, cols[c].unit, cols[c].style, "%s.r%d.%s",
                     stem, i + 1, cols[c].name);
    p += n;
  }
}

int chapter_end(chapter *ch) {
  if (ch->values_out && ch->values_out != stdout) {
    if (fclose(ch->values_out) != 0) chapter_error(ch, "writing the values file failed");
    ch->values_out = NULL;
  } else if (fflush(stdout) != 0) {
    chapter_error(ch, "writing the output failed");
  }
  return ch->n_errors ? 1 : 0;
}

/* ---- tables of values (chapters 12, 13) ----------------------------------------------------- */

scale_fmt chapter_unit_fmt(const char *unit) {
  if (!strcmp(unit, "s")) return SCALE_FMT_TIME;
  if (!strcmp(unit, "B") || !strcmp(unit, "B/s") || !strcmp(unit, "Hz")) return SCALE_FMT_SI;
  if (!strcmp(unit, "FLOP/s") || !strcmp(unit, "elements/s")) return SCALE_FMT_SCI;
  if (!strcmp(unit, "USD") || !strcmp(unit, "USD/h")) return SCALE_FMT_USD;
  return SCALE_FMT_PLAIN;
}

void chapter_critical_batches(chapter *ch, const scale_chip *c, const char *const labels[3]) {
  const scale_dtype w[3] = {SCALE_DTYPE_BF16, SCALE_DTYPE_INT8, SCALE_DTYPE_INT8};
  const scale_dtype f[3] = {SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, SCALE_DTYPE_INT8};
  const char *key[3] = {"bf16", "int8w", "int8"};
  for (int i = 0; i < 3; i++)
    chapter_stem_value(ch, "bcrit", key[i], labels[i], scale_roofline_critical_batch(c, w[i], f[i]),
                       "tokens", SCALE_FMT_PLAIN);
}
