/* chapter.c — the shared frame of chapter programs (chapter.h). */
#include "chapter.h"

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
  char buf[96];
  scale_format(buf, sizeof buf, value, unit, style);
  if (ch->values) {
    fprintf(ch->values_out, "%s\t%.17g\t%s\t%s\n", key, value,
            style == SCALE_FMT_TIME ? "s" : (unit ? unit : ""), buf);
    ch->n_values++;
  }
  if (ch->walk) row(label && label[0] ? label : key, buf);
}

bool chapter_figure(chapter *ch, const char *file, const scale_plot *plot) {
  if (!ch->figures_dir) return true;
  size_t n = strlen(file);
  if (strchr(file, '/') || n < 5 || strcmp(file + n - 4, ".svg") != 0) {
    chapter_error(ch, "figure name '%s' must be a bare NAME.svg", file);
    return false;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", ch->figures_dir, file);
  FILE *f = fopen(path, "w");
  if (!f) {
    chapter_error(ch, "cannot write figure '%s'", path);
    return false;
  }
  scale_diag diag = {0};
  scale_status st = scale_plot_write(plot, f, &diag);
  if (fclose(f) != 0 && !st) st = SCALE_ERR_IO;
  if (st) {
    chapter_error(ch, "figure '%s': %s", file,
                  diag.message[0] ? diag.message : scale_status_str(st));
    remove(path);
    return false;
  }
  ch->n_figures++;
  return true;
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

int chapter_end(chapter *ch) {
  if (ch->values_out && ch->values_out != stdout) {
    if (fclose(ch->values_out) != 0) chapter_error(ch, "writing the values file failed");
    ch->values_out = NULL;
  } else if (fflush(stdout) != 0) {
    chapter_error(ch, "writing the output failed");
  }
  return ch->n_errors ? 1 : 0;
}
