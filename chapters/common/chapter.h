/* chapter.h — the small shared frame of every chapter program chapters/NN-slug/slug.c.
 *
 * A chapter program has three modes, chosen on its command line (DESIGN.md "Chapters"):
 *
 *   slug                 prints the chapter's walk-through: headings, rows, tables
 *   slug --values        prints one line per named value: key TAB value TAB unit TAB display
 *                        (value in SI base units with %.17g, display from scale_format())
 *   slug --figures DIR   writes the chapter's SVG figures into DIR
 *
 * --values and --figures combine (the book build runs both at once); --values-file FILE sends
 * the value lines to FILE instead of stdout. Chapter-specific options (--chip NAME, ...) are
 * declared as a table of chapter_option and read back after chapter_begin().
 *
 * Typical use:
 *
 *   int main(int argc, char **argv) {
 *     chapter_option opts[] = {{"chip", "hardware to use", "tpu-v5e"}, {0}};
 *     chapter ch;
 *     int rc = chapter_begin(&ch, argc, argv, "01-rooflines", "Rooflines.", opts);
 *     if (rc >= 0) return rc;
 *     chapter_heading(&ch, "Critical intensity");
 *     chapter_value(&ch, "v5e.critical_intensity", "C / W_hbm", x, "FLOP/byte", SCALE_FMT_PLAIN);
 *     return chapter_end(&ch);
 *   }
 *
 * Errors (a non-finite value, a bad key, a figure that cannot be written) go to stderr as one
 * line each and make chapter_end() return 1, so the book build and the chapter tests fail.
 */
#ifndef SCALE_CHAPTER_H
#define SCALE_CHAPTER_H

#include <stdbool.h>
#include <stdio.h>

#include "scale.h"

/** A chapter-specific string option: --NAME VALUE or --NAME=VALUE. Terminate tables with {0}. */
typedef struct {
  const char *name;  /**< option name without dashes: "chip" */
  const char *help;  /**< one line for --help */
  const char *value; /**< default on input; the value given on the command line on output */
} chapter_option;

/** State of one run of a chapter program. */
typedef struct {
  const char *name;        /**< "01-rooflines" */
  bool values;             /**< --values or --values-file: print value lines */
  FILE *values_out;        /**< where value lines go (stdout or the --values-file) */
  const char *figures_dir; /**< --figures DIR, or NULL */
  bool walk;               /**< neither: print the walk-through */
  int n_values;            /**< value lines written */
  int n_figures;           /**< figures written */
  int n_errors;            /**< errors reported so far */
} chapter;

/** Parses argv into *ch. Returns -1 when the program should go on, else the exit status to
 * return at once: 0 after --help, 2 after a usage error (reported on stderr). 'options' may be
 * NULL; its .value fields are updated in place.
 */
int chapter_begin(chapter *ch, int argc, char **argv, const char *name, const char *summary,
                  chapter_option *options);

/** Prints a section heading (walk-through only). */
void chapter_heading(chapter *ch, const char *title);

/** Prints a line of text (walk-through only). */
void chapter_say(chapter *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Emits a named value: with --values the line "key\tvalue\tunit\tdisplay", in the
 * walk-through a row "label .... display". 'key' is [A-Za-z0-9_.-]+; a bad key or a
 * non-finite value is an error (DESIGN.md: no NaN is ever printed as an answer).
 */
void chapter_value(chapter *ch, const char *key, const char *label, double value,
                   const char *unit, scale_fmt style);

/** Prints a row "label .... display" (walk-through only; NaN prints "n/a"). */
void chapter_row(chapter *ch, const char *label, double value, const char *unit,
                 scale_fmt style);

/** Prints one table row of n cells, each left-aligned in 16 columns (walk-through only). */
void chapter_table_row(chapter *ch, int n, const char *const cells[]);

/** With --figures DIR, writes 'plot' to DIR/file (file is a bare name ending ".svg");
 * otherwise does nothing. Returns true unless an error was reported.
 */
bool chapter_figure(chapter *ch, const char *file, const scale_plot *plot);

/** Loads hardware NAME, reporting a failure as an error. Returns true on success. */
bool chapter_load_chip(chapter *ch, const char *name, scale_chip *out);

/** Loads model NAME, reporting a failure as an error. Returns true on success. */
bool chapter_load_model(chapter *ch, const char *name, scale_model *out);

/** Reports an error "NAME: message" on stderr and counts it. */
void chapter_error(chapter *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Closes the values file; returns the exit status: 0, or 1 when any error was reported. */
int chapter_end(chapter *ch);

#endif
