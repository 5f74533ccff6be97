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
 *
 * A section that emits several values writes them as one table, a row a value:
 *
 *     CHAPTER_VALUES(&ch, "v5e", {"critical_intensity", "C / W_hbm", x, "FLOP/byte",
 *                                 SCALE_FMT_PLAIN},
 *                    {"hbm_bytes", "HBM", hbm, "B", SCALE_FMT_SI});
 *
 * Below the frame are the pieces several chapters share: option numbers, values keyed
 * "stem.what" or by a printf format, value tables, every chip or model of the data folder, and the training
 * layouts and planner tables of chapters 5 and 6. A chapter keeps its own helpers only when
 * no other chapter needs them.
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

/** With --figures DIR, writes a concept diagram (diagram.h) to DIR/file: 'status' is what the
 * diagram function returned for 'svg' (its message in 'diag'); a failure is reported as an
 * error. Without --figures it does nothing. Returns true unless an error was reported.
 * Example: chapter_diagram(ch, "ring.svg", scale_diagram_ring_steps(..., svg, n, NULL, &d),
 *                          svg, &d). */
bool chapter_diagram(chapter *ch, const char *file, scale_status status, const char *svg,
                     const scale_diag *diag);

/** chapter_diagram() of the sharded-array diagram of 'sharding' ("W[D_X, F]") on 'mesh'
 * ("{X:4}"), parsed with sharding.h; a parse error is reported like a diagram's. */
bool chapter_diagram_sharded(chapter *ch, const char *file, const char *mesh,
                             const char *sharding);

/** Loads hardware NAME, reporting a failure as an error. Returns true on success. */
bool chapter_load_chip(chapter *ch, const char *name, scale_chip *out);

/** Loads model NAME, reporting a failure as an error. Returns true on success. */
bool chapter_load_model(chapter *ch, const char *name, scale_model *out);

/** Emits the run of layout 'l' of 'p' at efficiency 'mfu' (the roofline at that fraction of
 * peak) over 'tokens': "stem.days" (labelled 'label') and "stem.cost". */
void chapter_run_values(chapter *ch, const char *stem, const char *label,
                        const scale_train_problem *p, const scale_layout *l, double mfu,
                        double tokens);

/** Emits "stem.estimate_days": 6 N D over 'n_chips' chips of bf16 peak 'c' at 'mfu'. */
void chapter_estimate_value(chapter *ch, const char *stem, double n_params, double tokens,
                            double n_chips, double c, double mfu);

/** What chapter_energy_values() prices: the run's tokens and MFU (its useful time is 6 N D /
 * (chips x bf16 peak x MFU)), the restart time, the facility's PUE, the grid's intensity. */
typedef struct {
  double tokens, mfu, restart_s, pue, grid_kg_per_kwh;
} chapter_energy_inputs;

/** Trains 'model' on the chips of the interruption record 'record' (measurements/
 * reliability.ini) of hardware 'hw' and emits, under "stem.*", what the run also costs
 * (energy.h): the rate and the job's MTBI, the checkpoint (bf16 weights and fp32 Adam state)
 * and its write time, Daly's interval, the goodput, the useful and effective days, the
 * interruptions, GPU-hours, chip power, IT and facility energy and the location-based
 * emissions. Returns false after reporting an error. */
bool chapter_energy_values(chapter *ch, const char *stem, const scale_model *model,
                           const char *hw, const char *record, chapter_energy_inputs in);

/* ---- helpers shared by several chapters ----------------------------------------------------- */

/** Returns the number option 'o' holds, parsed by scale_parse_number() under 'flags'
 * (SCALE_NUM_POSITIVE, optionally | SCALE_NUM_INTEGER); NaN after reporting
 * "--NAME: why" as an error.
 */
double chapter_option_number(chapter *ch, const chapter_option *o, unsigned flags);

/** Emits a value as chapter_value() does, its key printf-formatted from 'key_fmt' and the
 * arguments after it ("%s.b%.0f.step_s"). A key of 160 characters or more is an error.
 */
void chapter_valuef(chapter *ch, const char *label, double value, const char *unit,
                    scale_fmt style, const char *key_fmt, ...)
    __attribute__((format(printf, 6, 7)));

/** Emits a value as chapter_value() does under the key "stem.what" ("tpu-v5e.hbm_bytes"). */
void chapter_stem_value(chapter *ch, const char *stem, const char *what, const char *label,
                        double value, const char *unit, scale_fmt style);

/** Emits a value under "stem.what" as chapter_stem_value() does when it is finite; otherwise
 * prints its row ("n/a") in the walk-through and emits nothing. For quantities a chip or
 * model may lack (a V100 has no fp8 rate, a Mamba-2 layer no attention), which a page
 * therefore never cites.
 */
void chapter_stem_value_opt(chapter *ch, const char *stem, const char *what, const char *label,
                            double value, const char *unit, scale_fmt style);

/** One row of a table of values: see chapter_values(). */
typedef struct {
  const char *key;   /**< the key after "stem." (the whole key when the stem is NULL); NULL: a
                          walk-through row that emits nothing (chapter_row()) */
  const char *label; /**< the walk-through label */
  double value;      /**< the value, in SI base units */
  const char *unit;  /**< its unit, as for chapter_value() */
  scale_fmt style;   /**< how it displays */
} chapter_val;

/** How many rows a table (an array, not a pointer) holds. */
#define CHAPTER_ROWS(table) ((int)(sizeof(table) / sizeof((table)[0])))

/** Emits rows[0..n) in order, each as chapter_stem_value() does under "stem.KEY", or as
 * chapter_value() does under KEY when 'stem' is NULL: a section's values written as one table
 * instead of one call each.
 */
void chapter_values(chapter *ch, const char *stem, const chapter_val *rows, int n);

/** Emits rows[0..n) as chapter_values() does, each through chapter_stem_value_opt(): a row
 * whose value is not finite prints "n/a" and emits nothing. 'stem' is required.
 */
void chapter_values_opt(chapter *ch, const char *stem, const chapter_val *rows, int n);

/** Emits a library table's rows[0..n) (units.h's scale_quantity: gpu.h's summaries,
 * inference.h's tables) as chapter_values() does (a NULL 'stem': each under its own key), or,
 * with 'opt', as chapter_values_opt(). */
void chapter_quantities(chapter *ch, const char *stem, const scale_quantity *rows, int n,
                        bool opt);

/** chapter_values() over the rows written in place:
 *   CHAPTER_VALUES(ch, "mem", {"total", "total", total, "B", SCALE_FMT_SI},
 *                  {"per_chip", "per chip", total / n, "B", SCALE_FMT_SI});
 */
#define CHAPTER_VALUES(ch, stem, ...)                                                            \
  do {                                                                                           \
    const chapter_val chapter_rows_[] = {__VA_ARGS__};                                           \
    chapter_values((ch), (stem), chapter_rows_, CHAPTER_ROWS(chapter_rows_));                    \
  } while (0)

/** Emits the shape of model 'm' as plain counts "stem.L", "stem.D", "stem.F", "stem.N",
 * "stem.K", "stem.H", "stem.V" (layers, model width, MLP width, query heads, KV heads, head
 * width, vocabulary); with 'lower' the letters of the keys are lower case ("arch.l").
 */
void chapter_model_dims(chapter *ch, const char *stem, const scale_model *m, bool lower);

/** Returns st == SCALE_OK; otherwise reports 'diag' ("file:line: message", or the status's
 * name when the diagnostic is empty) as an error and returns false. */
bool chapter_status_ok(chapter *ch, scale_status st, const scale_diag *diag);

/** Reports "the text's claim no longer holds: WHAT" as an error when 'check' is set and
 * 'holds' is not: a chapter states what the library computes, and fails rather than lie.
 * 'check' is false when options have moved the chapter off the problems its text describes.
 */
void chapter_claim(chapter *ch, bool check, bool holds, const char *what);

/** Returns the chip's 16-bit matmul dtype: bf16, or fp16 where it has no bf16 rate (V100). */
scale_dtype chapter_dtype16(const scale_chip *c);

/** Emits the chip's critical batches (scale_roofline_critical_batch) for the three dtype mixes
 * of chapters 7 and 8: "bcrit.bf16" (bf16 weights and FLOPs), "bcrit.int8w" (int8 weights,
 * bf16 FLOPs), "bcrit.int8" (int8 weights and OPs), with the walk-through labels labels[0..3).
 */
void chapter_critical_batches(chapter *ch, const scale_chip *c, const char *const labels[3]);

/** Fills out[0..n) with n >= 2 points from lo to hi evenly spaced on a log scale. */
void chapter_logspace(double *out, int n, double lo, double hi);

/* ---- every chip or model of the data folder ------------------------------------------------ */

/** How many chips or models a list holds at most. */
#define CHAPTER_LIST_MAX 64

/** Which files of hardware/ chapter_load_chips() keeps; combine with |. */
enum {
  CHAPTER_CHIPS_TPU = 1u << 0,    /**< TPU chips */
  CHAPTER_CHIPS_GPU = 1u << 1,    /**< GPU chips */
  CHAPTER_CHIPS_SYSTEMS = 1u << 2, /**< also systems built of such chips (a DGX: a file with a
                                       base chip); without it only plain chips */
  CHAPTER_CHIPS_UNCITED = 1u << 3  /**< also the files no chapter's text cites yet (see
                                       chapter_load_chips()); without it only the cited ones */
};

/** Chips loaded from hardware/, in file-name order. */
typedef struct {
  int n;                                /**< chips in 'chip' */
  scale_chip chip[CHAPTER_LIST_MAX];    /**< the chips */
} chapter_chips;

/** Models loaded from models/, in file-name order. */
typedef struct {
  int n;                                /**< models in 'model' */
  scale_model model[CHAPTER_LIST_MAX];  /**< the models */
} chapter_models;

/** Loads every file of hardware/ that 'filter' (CHAPTER_CHIPS_*) keeps into *out: by default
 * only the chips the chapters' tables were written for (the book's TPUs and GPUs and the few
 * others its pages cite: CHAPTER_CITED_CHIPS in chapter.c), because a chapter that iterates
 * every chip emits a value for each, and a value the page does not cite fails the book's strict
 * render. A chip added to hardware/ joins a chapter's tables when that chapter's text is given
 * its row and the stem is added to the list. Returns true
 * on success; false after reporting an error (a folder that cannot be listed, a file that does
 * not load, more than CHAPTER_LIST_MAX files).
 */
bool chapter_load_chips(chapter *ch, unsigned filter, chapter_chips *out);

/** Loads every file of models/ into *out. Returns and reports as chapter_load_chips(). */
bool chapter_load_models(chapter *ch, chapter_models *out);

/* ---- training layouts and the planner (chapters 5 and 6) ----------------------------------- */

/** Maps 'l' onto the chip's links the book's way (scale_train_layout_map), validates it and
 * evaluates it into *r. Returns true on success; false after reporting "layout: why".
 */
bool chapter_train_eval(chapter *ch, const scale_train_problem *p, scale_layout *l,
                        scale_train_result *r);

/** Emits a value whose display is 'text' (a row id, a reason; no tab or newline): with --values
 * the line "key\tvalue\t1\ttext", 'value' a finite number that goes with it (an error, a
 * share); in the walk-through a row "label  text". */
void chapter_text_value(chapter *ch, const char *key, const char *label, double value,
                        const char *text);

/** Sets the calibrated step model beside the book's roofline for one layout: evaluates 'l' on
 * 'p' (its step_params and efficiency ignored) at the roofline and with the chip's fitted [step]
 * parameters, and emits "stem.roof_step", "stem.cal_step", "stem.cal_mfu" (%), "stem.cal_ratio"
 * (calibrated / roofline step), "stem.cal_eta_max" (the fitted matmul ceiling, %), the
 * calibrated step's parts as % of it: "stem.cal_peak" (the roofline's step), "stem.cal_slow"
 * (ops slower than peak: matmul efficiency by shape, memory-bound ops, kernel overheads),
 * "stem.cal_comm" (exposed communication and pipeline bubble), "stem.cal_fixed" (fixed
 * per-step cost); "stem.cal_binds", a text naming the largest part beyond the roofline step
 * (the slow ops, or the exposed communication and its network, or the bubble) and its share;
 * and with a token budget "stem.cal_days". Returns false after an error.
 */
bool chapter_calibrated_gap(chapter *ch, const char *stem, const scale_train_problem *p,
                            const scale_layout *l);

/** Runs the training planner on 'p' with options 'o' into *rep. Returns true when it ranked
 * at least 'min_ranked' layouts; false after reporting "planner: why".
 */
bool chapter_plan_train(chapter *ch, const scale_train_problem *p, const scale_plan_opts *o,
                        scale_plan_report *rep, int min_ranked);

/** Emits the planner's search counts: "stem.candidates", "stem.evaluated" and one
 * "stem.pruned.REASON" per reason (tp, cp, pp, batch, ep, invalid, memory).
 */
void chapter_plan_counts(chapter *ch, const char *stem, const scale_plan_report *rep);

/** Says ranked layout i (< rep->n_ranked) as "3. fsdp 64 x tp 4 ..." and emits its columns "stem.rI.COLUMN" (I
 * from 1) in the order 'columns' lists them, separated by spaces. Columns: dp fsdp zero tp sp
 * pp m cp (degrees; zero is 0 without FSDP, sp 1 or 0, m the microbatches), saved (tensors
 * saved per layer), bubble (%), step (s), mfu (%), mem (bytes per chip). An unknown column is
 * an error.
 */
void chapter_plan_row(chapter *ch, const char *stem, const scale_plan_report *rep, int i,
                      const char *columns);

/** Reports an error "NAME: message" on stderr and counts it. */
void chapter_error(chapter *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Closes the values file; returns the exit status: 0, or 1 when any error was reported. */
int chapter_end(chapter *ch);

/** The usual style of 'unit': time for "s", SI prefixes for "B", "B/s" and "Hz", an exponent
 * for "FLOP/s" and "elements/s", dollars for "USD" and "USD/h", plain digits otherwise. */
scale_fmt chapter_unit_fmt(const char *unit);

/** chapter_values() of a whole array. */
#define CHAPTER_EMIT(ch, stem, rows) chapter_values(ch, stem, rows, CHAPTER_ROWS(rows))

/** Rows: V styled by its unit, VS styled, VROW a walk-through row that emits nothing. */
#define CHAPTER_V(key, label, v, unit) {key, label, v, unit, chapter_unit_fmt(unit)}
#define CHAPTER_VS(key, label, v, unit, style) {key, label, v, unit, style}
#define CHAPTER_VROW(label, v, unit) {NULL, label, v, unit, chapter_unit_fmt(unit)}

#endif
