/* measurements.c — strict loader of measurements/NAME.tsv (contract in measurements.h). */
#include "scale/measurements.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/transformer.h"

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const metric_names[SCALE_METRIC_COUNT] = {
    "step_s", "tokens_per_s_per_chip", "megatron_tflops_per_chip", "maxtext_tflops_per_chip"};

const char *scale_metric_name(scale_metric metric) {
  return (unsigned)metric < SCALE_METRIC_COUNT ? metric_names[metric] : "?";
}

/* ---- one row -------------------------------------------------------------------------------- */

enum { N_COLUMNS = 23, LINE_MAX_BYTES = 2048 };

static const char *const columns[N_COLUMNS] = {
    "id",   "group", "ranking", "model",     "hardware", "chips",     "dp",     "tp",
    "pp",   "cp",    "ep",      "zero",      "mbs",      "vp",        "recompute", "sp",
    "attn", "gbs",  "seq",   "precision", "metric",  "measured", "source"};

/** Where the parser is, for diagnostics. */
typedef struct {
  const char *path;
  int line;
  scale_diag *diag;
} cursor;

/** Splits 'line' in place at tabs into fields[0..N_COLUMNS); returns the number found. */
static int split_tabs(char *line, char *fields[N_COLUMNS]) {
  int n = 0;
  char *p = line;
  for (;;) {
    if (n == N_COLUMNS) return n + 1; /* too many */
    fields[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab) return n;
    *tab = '\0';
    p = tab + 1;
  }
}

/** A number in [lo, hi]; integral when 'whole'; '-' gives 0 when 'dash_ok'. */
static scale_status parse_number(const cursor *c, const char *col, const char *text, double lo,
                                 double hi, bool whole, bool dash_ok, double *out) {
  if (dash_ok && strcmp(text, "-") == 0) {
    *out = 0;
    return SCALE_OK;
  }
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                          "column '%s': '%s' is not a number", col, text);
  if (whole && v != floor(v))
    return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                          "column '%s': '%s' is not a whole number", col, text);
  if (v < lo || v > hi)
    return scale_diag_set(c->diag, SCALE_ERR_RANGE, c->path, c->line,
                          "column '%s': %s is outside [%g, %g]", col, text, lo, hi);
  *out = v;
  return SCALE_OK;
}

/* The names of an enum's values by index (the files spell them as transformer.h names them). */
static const char *recompute_at(int i) { return scale_recompute_name((scale_recompute)i); }
static const char *attention_at(int i) { return scale_attention_name((scale_attention)i); }
static const char *metric_at(int i) { return scale_metric_name((scale_metric)i); }

/** One of names[0..n) into *out. */
static scale_status parse_word(const cursor *c, const char *col, const char *text,
                               const char *(*name_of)(int), int n, int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(text, name_of(i)) == 0) {
      *out = i;
      return SCALE_OK;
    }
  return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                        "column '%s': unknown value '%s'", col, text);
}

/** Copies text into a fixed buffer, refusing empty or overlong text. */
static scale_status copy_text(const cursor *c, const char *col, const char *text, char *dst,
                              size_t size) {
  size_t len = strlen(text);
  if (len == 0 || len >= size)
    return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                          "column '%s': empty or longer than %zu bytes", col, size - 1);
  memcpy(dst, text, len + 1);
  return SCALE_OK;
}

#define TRY(expr)                                                                             \
  do {                                                                                        \
    scale_status st_ = (expr);                                                                \
    if (st_) return st_;                                                                      \
  } while (0)

static scale_status parse_degrees(const cursor *c, char **f, scale_measurement *r) {
  double zero = 0;
  TRY(parse_number(c, "chips", f[5], 1, 1e7, true, false, &r->chips));
  TRY(parse_number(c, "dp", f[6], 1, 1e7, true, false, &r->dp));
  TRY(parse_number(c, "tp", f[7], 1, 1e4, true, false, &r->tp));
  TRY(parse_number(c, "pp", f[8], 1, 1e4, true, false, &r->pp));
  TRY(parse_number(c, "cp", f[9], 1, 1e4, true, false, &r->cp));
  TRY(parse_number(c, "ep", f[10], 1, 1e5, true, false, &r->ep));
  TRY(parse_number(c, "zero", f[11], 0, 3, true, false, &zero));
  TRY(parse_number(c, "mbs", f[12], 1, 1e6, true, true, &r->mbs));
  TRY(parse_number(c, "vp", f[13], 1, 1e3, true, true, &r->vp));
  r->zero = (int)zero;
  if (r->dp * r->tp * r->pp * r->cp != r->chips)
    return scale_diag_set(c->diag, SCALE_ERR_INVALID, c->path, c->line,
                          "dp x tp x pp x cp = %g, but chips = %g",
                          r->dp * r->tp * r->pp * r->cp, r->chips);
  if (fmod(r->dp * r->tp * r->cp, r->ep) != 0)
    return scale_diag_set(c->diag, SCALE_ERR_INVALID, c->path, c->line,
                          "ep = %g does not divide dp x tp x cp = %g", r->ep,
                          r->dp * r->tp * r->cp);
  return SCALE_OK;
}

static scale_status parse_row(const cursor *c, char **f, scale_measurement *r) {
  double flag = 0;
  int word = 0;
  memset(r, 0, sizeof *r);
  TRY(copy_text(c, "id", f[0], r->id, sizeof r->id));
  TRY(copy_text(c, "group", f[1], r->group, sizeof r->group));
  TRY(parse_number(c, "ranking", f[2], 0, 1, true, false, &flag));
  r->ranking = flag != 0;
  TRY(copy_text(c, "model", f[3], r->model, sizeof r->model));
  TRY(copy_text(c, "hardware", f[4], r->hardware, sizeof r->hardware));
  TRY(parse_degrees(c, f, r));
  TRY(parse_word(c, "recompute", f[14], recompute_at, SCALE_RECOMPUTE_COUNT, &word));
  r->recompute = (scale_recompute)word;
  TRY(parse_number(c, "sp", f[15], 0, 1, true, false, &flag));
  r->sp = flag != 0;
  TRY(parse_word(c, "attn", f[16], attention_at, SCALE_ATTENTION_COUNT, &word));
  r->attention = (scale_attention)word;
  TRY(parse_number(c, "gbs", f[17], 1, 1e9, true, false, &r->gbs));
  TRY(parse_number(c, "seq", f[18], 1, 1e8, true, false, &r->seq));
  scale_dtype dtype;
  if (scale_dtype_parse(f[19], &dtype))
    return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                          "column 'precision': unknown value '%s'", f[19]);
  r->precision = dtype;
  TRY(parse_word(c, "metric", f[20], metric_at, SCALE_METRIC_COUNT, &word));
  r->metric = (scale_metric)word;
  TRY(parse_number(c, "measured", f[21], 1e-300, 1e300, false, false, &r->measured));
  TRY(copy_text(c, "source", f[22], r->source, sizeof r->source));
  return SCALE_OK;
}

/** Cross-row rules: unique ids, one ranking flag per group. */
static scale_status check_against(const cursor *c, const scale_measurement *rows, int n,
                                  const scale_measurement *r) {
  for (int i = 0; i < n; i++) {
    if (strcmp(rows[i].id, r->id) == 0)
      return scale_diag_set(c->diag, SCALE_ERR_DUPLICATE_KEY, c->path, c->line,
                            "id '%s' already used (%s:%d)", r->id, rows[i].file, rows[i].line);
    if (strcmp(rows[i].group, r->group) == 0 && rows[i].ranking != r->ranking)
      return scale_diag_set(c->diag, SCALE_ERR_INVALID, c->path, c->line,
                            "group '%s' is flagged ranking=%d here and %d at %s:%d", r->group,
                            r->ranking, rows[i].ranking, rows[i].file, rows[i].line);
  }
  return SCALE_OK;
}

/* ---- files ---------------------------------------------------------------------------------- */

static scale_status check_header(const cursor *c, char *line) {
  char *f[N_COLUMNS];
  int nf = split_tabs(line, f);
  for (int i = 0; i < N_COLUMNS; i++)
    if (nf != N_COLUMNS || strcmp(f[i], columns[i]) != 0)
      return scale_diag_set(c->diag, SCALE_ERR_PARSE, c->path, c->line,
                            "header must be the %d columns of measurements/README.md "
                            "(column %d should be '%s')",
                            N_COLUMNS, i + 1, columns[i]);
  return SCALE_OK;
}

/** Strips a trailing newline (and a CR); returns false if the line had no newline and was full. */
static bool chomp(char *line, size_t size) {
  size_t len = strlen(line);
  bool had_newline = len > 0 && line[len - 1] == '\n';
  if (had_newline) line[--len] = '\0';
  if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
  return had_newline || len + 1 < size;
}

static scale_status load_stream(FILE *fp, const cursor *c0, scale_measurement *rows, int cap,
                                int *n) {
  cursor c = *c0;
  char line[LINE_MAX_BYTES];
  bool header = false;
  const char *base = strrchr(c.path, '/');
  base = base ? base + 1 : c.path;
  while (fgets(line, sizeof line, fp)) {
    c.line++;
    if (!chomp(line, sizeof line))
      return scale_diag_set(c.diag, SCALE_ERR_PARSE, c.path, c.line, "line too long");
    if (line[0] == '\0' || line[0] == '#') continue;
    if (!header) {
      TRY(check_header(&c, line));
      header = true;
      continue;
    }
    char *f[N_COLUMNS];
    int nf = split_tabs(line, f);
    if (nf != N_COLUMNS)
      return scale_diag_set(c.diag, SCALE_ERR_PARSE, c.path, c.line,
                            "%s%d tab-separated fields, expected %d", nf > N_COLUMNS ? "over " : "",
                            nf > N_COLUMNS ? N_COLUMNS : nf, N_COLUMNS);
    if (*n >= cap)
      return scale_diag_set(c.diag, SCALE_ERR_RANGE, c.path, c.line, "more than %d rows", cap);
    scale_measurement *r = &rows[*n];
    TRY(parse_row(&c, f, r));
    TRY(check_against(&c, rows, *n, r));
    snprintf(r->file, sizeof r->file, "%s", base);
    r->line = c.line;
    (*n)++;
  }
  if (!header) return scale_diag_set(c.diag, SCALE_ERR_PARSE, c.path, 0, "no header line");
  return SCALE_OK;
}

scale_status scale_measurements_load_file(const char *path, scale_measurement *rows, int cap,
                                          int *n, scale_diag *diag) {
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
  cursor c = {path, 0, diag};
  scale_status st = load_stream(fp, &c, rows, cap, n);
  fclose(fp);
  return st;
}

static int compare_names(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

enum { MAX_FILES = 64 };

/* The "*.tsv" names of folder 'dir' into names[], sorted; the serving runs (servecal.h) left
 * out when 'skip_serving'. The count, or -1 when the folder cannot be read. */
static int tsv_names(const char *dir, char names[MAX_FILES][SCALE_NAME_MAX], bool skip_serving) {
  int n_files = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 5 || len >= SCALE_NAME_MAX || strcmp(e->d_name + len - 4, ".tsv") != 0) continue;
    if (skip_serving && strncmp(e->d_name, "serving-", 8) == 0) continue;
    if (n_files == MAX_FILES) break;
    memcpy(names[n_files++], e->d_name, len + 1);
  }
  closedir(d);
  qsort(names, (size_t)n_files, sizeof names[0], compare_names);
  return n_files;
}

scale_status scale_measurements_load_dir(const char *dir, scale_measurement *rows, int cap,
                                         int *n, scale_diag *diag) {
  char names[MAX_FILES][SCALE_NAME_MAX];
  int n_files = tsv_names(dir, names, true);
  if (n_files < 0) return scale_diag_set(diag, SCALE_ERR_IO, dir, 0, "cannot read folder");
  *n = 0;
  for (int i = 0; i < n_files; i++) {
    char path[4096 + SCALE_NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    TRY(scale_measurements_load_file(path, rows, cap, n, diag));
  }
  return SCALE_OK;
}

const char *scale_measurements_dir(void) {
  static char path[4096 + 16];
  snprintf(path, sizeof path, "%s/measurements", scale_data_dir());
  return path;
}

/* ---- conversions ---------------------------------------------------------------------------- */

double scale_measurement_step_s(const scale_measurement *row, const scale_model *model) {
  double tokens = row->gbs * row->seq;
  switch (row->metric) {
  case SCALE_METRIC_STEP_S:
    return row->measured;
  case SCALE_METRIC_TOKENS_PER_S_PER_CHIP:
    return tokens / (row->chips * row->measured);
  case SCALE_METRIC_MEGATRON_TFLOPS_PER_CHIP: {
    /* Narayanan et al. 2021 eq. (3): F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) */
    double l = (double)model->n_layers, h = (double)model->d_model, V = (double)model->n_vocab;
    double s = row->seq;
    double flops = 96.0 * row->gbs * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    return flops / (row->chips * row->measured * 1e12);
  }
  case SCALE_METRIC_MAXTEXT_TFLOPS_PER_CHIP: {
    /* MaxText train.py (2023, PaLM appendix B with causal attention halved): per token
     * 6 N (every parameter of the pytree) + 12 L n_heads d_head s / 2 */
    double l = (double)model->n_layers, s = row->seq;
    double attn = 6.0 * l * (double)model->n_heads * (double)model->d_head * s;
    double flops = tokens * (6.0 * scale_transformer_n_params(model) + attn);
    return flops / (row->chips * row->measured * 1e12);
  }
  default:
    return NAN;
  }
}

/* ---- the memory observations file ---- */

#define MEM_COLUMNS 21
#define MAX_TSV_COLUMNS 21 /* the widest of the files below */
static const char *const mem_header =
    "id\tref\tgroup\tmodel\thardware\tchips\tdp\ttp\tpp\tcp\tep\tzero\tmbs\tvp\trecompute\tsp\tgbs"
    "\tseq\toutcome\tmeasured_bytes\tsource";

/* A number in [lo, hi] (whole when asked); '-' gives 'dash' when dash is not NaN. */
static bool num(const char *text, double lo, double hi, bool whole, double dash, double *out) {
  if (!isnan(dash) && strcmp(text, "-") == 0) return (*out = dash, true);
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi) return false;
  if (whole && v != floor(v)) return false;
  return (*out = v, true);
}

static bool text_copy(const char *text, char *dst, size_t size) {
  size_t len = strlen(text);
  if (len == 0 || len >= size) return false;
  memcpy(dst, text, len + 1);
  return true;
}

static int recompute_word(const char *w) {
  for (int i = 0; i < SCALE_RECOMPUTE_COUNT; i++)
    if (strcmp(w, scale_recompute_name((scale_recompute)i)) == 0) return i;
  return -1;
}

/* Fills *r from the MEM_COLUMNS fields; the name of the first bad column, or NULL. */
static const char *mem_parse(char **f, scale_measurement_memory *r) {
  scale_measurement *m = &r->run;
  double zero = 0, sp = 0, nan_dash = NAN;
  if (!text_copy(f[0], m->id, sizeof m->id)) return "id";
  if (strcmp(f[1], "-") == 0)
    r->ref[0] = '\0';
  else if (!text_copy(f[1], r->ref, sizeof r->ref))
    return "ref";
  if (!text_copy(f[2], m->group, sizeof m->group)) return "group";
  if (!text_copy(f[3], m->model, sizeof m->model)) return "model";
  if (!text_copy(f[4], m->hardware, sizeof m->hardware)) return "hardware";
  if (!num(f[5], 1, 1e7, true, nan_dash, &m->chips)) return "chips";
  if (!num(f[6], 1, 1e7, true, nan_dash, &m->dp)) return "dp";
  if (!num(f[7], 1, 1e4, true, nan_dash, &m->tp)) return "tp";
  if (!num(f[8], 1, 1e4, true, nan_dash, &m->pp)) return "pp";
  if (!num(f[9], 1, 1e4, true, nan_dash, &m->cp)) return "cp";
  if (!num(f[10], 1, 1e4, true, nan_dash, &m->ep)) return "ep";
  if (!num(f[11], 0, 3, true, nan_dash, &zero)) return "zero";
  m->zero = (int)zero;
  if (!num(f[12], 1, 1e6, true, 0.0, &m->mbs)) return "mbs";
  if (!num(f[13], 1, 1e3, true, 0.0, &m->vp)) return "vp";
  int rc = recompute_word(f[14]);
  if (rc < 0) return "recompute";
  m->recompute = (scale_recompute)rc;
  if (!num(f[15], 0, 1, true, nan_dash, &sp)) return "sp";
  m->sp = sp == 1.0;
  if (!num(f[16], 1, 1e9, true, nan_dash, &m->gbs)) return "gbs";
  if (!num(f[17], 1, 1e8, true, nan_dash, &m->seq)) return "seq";
  if (strcmp(f[18], "fits") != 0 && strcmp(f[18], "oom") != 0) return "outcome";
  r->oom = strcmp(f[18], "oom") == 0;
  if (strcmp(f[19], "-") == 0)
    r->measured_bytes = NAN;
  else if (!num(f[19], 1, 1e15, false, nan_dash, &r->measured_bytes))
    return "measured_bytes";
  if (!text_copy(f[20], m->source, sizeof m->source)) return "source";
  m->attention = SCALE_ATTENTION_FLASH;
  m->precision = SCALE_DTYPE_BF16;
  return NULL;
}

/* Splits a line into exactly 'want' tab-separated fields; the count found (want + 1: more). */
static int split_n(char *line, char **f, int want) {
  int n = 0;
  for (char *p = line;; n++) {
    if (n == want) return n + 1; /* too many */
    f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) return n + 1;
    *tab = '\0';
    p = tab + 1;
  }
}

/** One data line of a strict TSV, split into its fields: appends a row or returns an error. */
typedef scale_status (*tsv_row_fn)(void *ctx, char **f, const char *path, int lineno,
                                   scale_diag *diag);

/* Reads 'path': '#' comments and blank lines skipped, the first other line must be 'header',
 * every later one has the header's field count and goes to 'row'. */
static scale_status load_tsv(const char *path, const char *header, int width, tsv_row_fn row,
                             void *ctx, scale_diag *diag) {
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open");
  char line[2048];
  bool seen = false;
  scale_status st = SCALE_OK;
  for (int lineno = 1; !st && fgets(line, sizeof line, fp); lineno++) {
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "line too long");
      break;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (len == 0 || line[0] == '#') continue;
    if (!seen) {
      seen = true;
      if (strcmp(line, header) != 0)
        st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "header is not: %s", header);
      continue;
    }
    char *f[MAX_TSV_COLUMNS + 1];
    if (split_n(line, f, width) != width)
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "expected %d tab-separated fields",
                          width);
    else
      st = row(ctx, f, path, lineno, diag);
  }
  if (!st && !seen) st = scale_diag_set(diag, SCALE_ERR_PARSE, path, 0, "no header line");
  fclose(fp);
  return st;
}

/* The error of a row whose column 'col' does not parse. */
static scale_status bad_column(scale_diag *diag, const char *path, int lineno, const char *col) {
  return scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "column '%s': bad value", col);
}

typedef struct {
  scale_measurement_memory *rows;
  int cap, *n;
} memory_sink;

static scale_status memory_row(void *ctx, char **f, const char *path, int lineno,
                               scale_diag *diag) {
  memory_sink *s = ctx;
  if (*s->n >= s->cap)
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, lineno, "more than %d rows", s->cap);
  scale_measurement_memory *r = &s->rows[*s->n];
  memset(r, 0, sizeof *r);
  const char *bad = mem_parse(f, r);
  scale_measurement *m = &r->run;
  if (bad) return bad_column(diag, path, lineno, bad);
  if (m->dp * m->tp * m->pp * m->cp != m->chips)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno, "dp tp pp cp is not chips");
  snprintf(m->file, sizeof m->file, "memory.tsv");
  m->line = lineno;
  (*s->n)++;
  return SCALE_OK;
}

scale_status scale_measurements_memory_load(const char *path, scale_measurement_memory *rows,
                                            int cap, int *n, scale_diag *diag) {
  if (!path || !rows || !n || cap < 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing argument");
  memory_sink sink = {rows, cap, n};
  return load_tsv(path, mem_header, MEM_COLUMNS, memory_row, &sink, diag);
}

/* ---- kernels timed alone (measurements/kernels/) ------------------------------------------ */

#define KERNEL_COLUMNS 9
static const char *const kernel_header = "kind\tdtype\tm\tn\tk\tbatch\tbytes\tflops\tseconds";

/* The kinds measure_gpu.py writes that no fit reads yet (streams, attention, launch costs). */
static const char *const kernel_kinds_kept_aside[] = {
    "copy", "read", "attn_fwd", "attn_fwdbwd", "eager_kernel", "graph_kernel"};

typedef struct {
  scale_measurement_kernel *rows;
  int cap, *n;
  const char *file, *hardware;
} kernel_sink;

/* Fills *r from a gemm or bmm row's fields; the name of the first bad column, or NULL. */
static const char *kernel_parse(char **f, scale_measurement_kernel *r) {
  double flops = 0;
  if (scale_dtype_parse(f[1], &r->dtype) != SCALE_OK) return "dtype";
  if (!num(f[2], 1, 1e7, true, NAN, &r->m)) return "m";
  if (!num(f[3], 1, 1e7, true, NAN, &r->n)) return "n";
  if (!num(f[4], 1, 1e7, true, NAN, &r->k)) return "k";
  if (!num(f[5], 1, 1e5, true, NAN, &r->batch)) return "batch";
  if (!num(f[6], 1, 1e13, false, NAN, &r->bytes)) return "bytes";
  if (!num(f[7], 1, 1e18, false, NAN, &flops)) return "flops";
  if (fabs(flops - 2 * r->m * r->n * r->k * r->batch) > 1e-9 * flops) return "flops";
  if (!num(f[8], 1e-7, 10, false, NAN, &r->seconds)) return "seconds";
  return NULL;
}

static scale_status kernel_row(void *ctx, char **f, const char *path, int lineno,
                               scale_diag *diag) {
  kernel_sink *s = ctx;
  if (strcmp(f[0], "gemm") != 0 && strcmp(f[0], "bmm") != 0) {
    for (size_t i = 0; i < sizeof kernel_kinds_kept_aside / sizeof *kernel_kinds_kept_aside; i++)
      if (strcmp(f[0], kernel_kinds_kept_aside[i]) == 0) return SCALE_OK;
    return scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "column 'kind': bad value");
  }
  if (*s->n >= s->cap)
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, lineno, "more than %d rows", s->cap);
  scale_measurement_kernel *r = &s->rows[*s->n];
  memset(r, 0, sizeof *r);
  const char *bad = kernel_parse(f, r);
  if (bad) return bad_column(diag, path, lineno, bad);
  snprintf(r->file, sizeof r->file, "%s", s->file);
  snprintf(r->hardware, sizeof r->hardware, "%s", s->hardware);
  r->line = lineno;
  (*s->n)++;
  return SCALE_OK;
}

scale_status scale_measurements_kernels_load(const char *path, scale_measurement_kernel *rows,
                                             int cap, int *n, scale_diag *diag) {
  if (!path || !rows || !n || cap < 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing argument");
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char stem[SCALE_NAME_MAX];
  size_t len = strcspn(base, ".");
  if (len == 0 || len >= sizeof stem || base[len] != '.' || !strchr(base + len + 1, '.'))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                          "name is not CHIP.NAME.tsv (CHIP a hardware/ stem)");
  memcpy(stem, base, len);
  stem[len] = '\0';
  kernel_sink sink = {rows, cap, n, base, stem};
  return load_tsv(path, kernel_header, KERNEL_COLUMNS, kernel_row, &sink, diag);
}

scale_status scale_measurements_kernels_load_dir(const char *dir,
                                                 scale_measurement_kernel *rows, int cap,
                                                 int *n, scale_diag *diag) {
  char names[MAX_FILES][SCALE_NAME_MAX];
  int n_files = tsv_names(dir, names, false);
  if (n_files < 0) return scale_diag_set(diag, SCALE_ERR_IO, dir, 0, "cannot read folder");
  *n = 0;
  for (int i = 0; i < n_files; i++) {
    char path[4096 + SCALE_NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    TRY(scale_measurements_kernels_load(path, rows, cap, n, diag));
  }
  return SCALE_OK;
}
