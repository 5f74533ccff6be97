/* cli.h — shared plumbing of the `scale` command: dispatch, errors, options, JSON.
 *
 * Each subcommand lives in src/cli/SUBCOMMAND.c and exposes `int cli_cmd_NAME(int argc,
 * char **argv)` (argv[0] is the subcommand name; parse with getopt_long after resetting
 * optind = 1... see cli_getopt_reset()). It returns 0 on success, 2 on a usage error, 1 on a
 * failure; it reports errors only through cli_usage()/cli_fail() so every error is one line
 * on stderr starting "scale: ".
 */
#ifndef SCALE_CLI_H
#define SCALE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "scale.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* ---- subcommands (one line each; main.c's table lists them) --------------------------------- */
int cli_cmd_hw(int argc, char **argv);
int cli_cmd_model(int argc, char **argv);
/** `scale model import CONFIG`: argv[0] is "import" (model_import.c). */
int cli_model_import(int argc, char **argv);
int cli_cmd_train(int argc, char **argv);
int cli_cmd_infer(int argc, char **argv);
int cli_cmd_roofline(int argc, char **argv);
int cli_cmd_collective(int argc, char **argv);
int cli_cmd_book(int argc, char **argv);
int cli_cmd_grade(int argc, char **argv);
int cli_cmd_plan(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
int cli_cmd_measure(int argc, char **argv);
int cli_cmd_chapter(int argc, char **argv);

/* ---- errors --------------------------------------------------------------------------------- */

/** Prints "scale: MESSAGE" on stderr, control characters escaped (one line, whatever the
 * arguments it echoes), and returns CLI_EXIT_USAGE (2). MESSAGE is cut at 1 kB. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Prints "scale: MESSAGE" on stderr like cli_usage() and returns CLI_EXIT_FAIL (1). */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Writes 'text' with control characters escaped (\n, \r, \t, \xNN), so it stays on one line. */
void cli_write_escaped(FILE *out, const char *text);

/** Prints a library diagnostic as "file:line: message" (or "scale: message") on stderr, on one
 * line (control characters escaped). */
void cli_print_diag(const scale_diag *diag);

/** Resets getopt for a fresh parse of a subcommand's argv and silences getopt's own messages
 * (callers report bad options with cli_usage). */
void cli_getopt_reset(void);

/** Reports an unknown option or missing argument found by getopt_long (its '?' or ':' result)
 * for subcommand 'cmd' and returns CLI_EXIT_USAGE. */
int cli_bad_option(const char *cmd, char **argv);

/** What `scale CMD list|show NAME [--json]` asked for. */
typedef struct {
  bool list;        /**< list (else show) */
  const char *name; /**< show's NAME */
  bool json;        /**< --json anywhere on the line */
} cli_list_show;

/** A subcommand's own options for cli_parse_list_show(): getopt_long entries (their 'val'
 * above 255) and a handler that takes each one's value, returning false after reporting a
 * usage error. NULL extras: only --json and --help. */
typedef struct {
  const struct option *options; /**< terminated by a zero entry */
  bool (*handle)(int val, const char *arg, void *ctx);
  void *ctx;
} cli_extra_options;

/** Parses the arguments of a list/show subcommand named 'cmd' ("hw", "model"); 'usage' prints
 * its --help. Options may come anywhere on the line. Returns -1 when the caller should go on
 * with *out, else the exit status to return (0 after --help, 2 after a usage error, reported). */
int cli_parse_list_show(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
                        const cli_extra_options *extra, cli_list_show *out);

/* ---- loading by name ------------------------------------------------------------------------ */

/** Loads hardware NAME; on failure prints "scale: unknown hardware 'X' (try: scale hw list)" or
 * the loader's file:line diagnostic and returns CLI_EXIT_USAGE (unknown) or CLI_EXIT_FAIL. */
int cli_load_chip(const char *name, scale_chip *out);

/** --usd-per-chip-hour X: the price of a chip-hour the user pays (a reservation, a spot price,
 * a provider's rate) in place of the hardware file's on-demand one, within the loader's range
 * [0.001, 1e6] USD/h: 0 or a usage error. */
int cli_parse_price(const char *arg, double *out);

/** The price costs are computed at: 'price' when --usd-per-chip-hour gave one (not NaN), or the
 * row of hardware/prices.tsv that --price 'name' (not NULL: PROVIDER:OFFER) names for the chip
 * (a system's base chip), written into chip->usd_per_hour; else the file's. *from (when not
 * NULL) names which, with a row's date and source (static storage). Returns 0, or a usage error
 * reported: both options given, a name the table does not hold for the chip, a bad table. */
int cli_apply_price(scale_chip *chip, double price, const char *name, const char **from);

/** Writes the timeline of predicted step 'r' to 'path' (steptrace.h): Chrome trace-event JSON,
 * or an SVG timeline chart when the path ends in ".svg"; 'title' names the job. 0 or a failure
 * reported. */
int cli_write_step_trace(const char *path, const scale_step_result *r, const char *title);

/** `scale hw prices [CHIP]`: the prices table, or one chip's rows. */
int cli_hw_prices(const char *chip);

/** Loads model NAME, like cli_load_chip (hint: scale model list). */
int cli_load_model(const char *name, scale_model *out);

/** Loads the calibrated step model's parameters of 'chip' (its file's [step] section, or the
 * shipped fit when it has none); on failure prints the loader's file:line diagnostic and
 * returns CLI_EXIT_FAIL. */
int cli_load_step_params(const scale_chip *chip, scale_step_params *out);

struct scale_precision_recipe_s;
/** Resolves --precision NAME for 'chip' into *out: 0, or a usage error (one line) for an
 * unknown recipe or for a chip without the recipe's matmul format, naming the hardware files
 * that have it. */
int cli_precision_resolve(const char *name, const scale_chip *chip,
                          const struct scale_precision_recipe_s **out);

/** One line naming the cost model behind a prediction: the calibrated step model and where its
 * parameters come from, or the roofline. Static storage (the next call overwrites it). */
const char *cli_cost_model_name(const scale_chip *chip, bool roofline);

/** The features of 'job' priced in precision recipe 'recipe' that no fitted row of the shipped
 * measurements/ runs (scale_coverage_gaps()), their names into names[0 .. max-1] (static
 * storage), then the job's chip ("chip NAME") when no fitted row ran on it, then its scale-up
 * and scale-out networks ("NAME's scale-up network (xgmi)") when their [nvlink] / [network]
 * fabric is one no fitted row crossed; returns how many (max >= 3, else 0). The rows are
 * loaded and counted once a process; when they cannot be (an install without measurements/),
 * 0: the prediction stands without the caveat. */
int cli_coverage_gaps(const scale_step_job *job, const char *recipe, const char **names, int max);

/** The one caveat line of a prediction with names[0 .. n-1] uncovered; nothing when n = 0. */
void cli_print_caveat(const char *const *names, int n);

/** Largest magnitude of a number on the command line (and 1 / it the smallest non-zero one):
 * any product of a few of them with a data file's figures stays finite. */
#define CLI_NUMBER_MAX 1e30

/** Parses option 'opt''s value 'text' with scale_parse_number(flags), within
 * +-[1/CLI_NUMBER_MAX, CLI_NUMBER_MAX] or 0; on failure prints "scale: --opt: ..." and returns
 * false (*out untouched). */
bool cli_parse_number(const char *opt, const char *text, unsigned flags, double *out);

/** Parses --prior-weight (calibrate.h: the fit's pull toward the priors), a number in
 * [0, SCALE_CALIB_PRIOR_WEIGHT_MAX]; on failure prints the error and returns false. */
bool cli_parse_prior_weight(const char *text, double *out);

/** Warns on stderr ("scale: warning: ...", one line) when --batch-tokens 'text' (parsed as
 * 'batch_tokens') is not a whole number of sequences of 'seq' tokens, and suggests the binary
 * prefix when the text used a decimal one and the binary one divides ("4M" -> "4Mi" = 4,194,304
 * tokens). Call once per command line; prints nothing when the batch divides. */
void cli_warn_batch_tokens(const char *text, double batch_tokens, double seq);

/** Parses a dtype for option 'opt'; prints an error and returns false on failure. */
bool cli_parse_dtype(const char *opt, const char *text, scale_dtype *out);

/* ---- human output --------------------------------------------------------------------------- */

/** Prints "  label ......... formatted value" for a finite value, or "  label  n/a" for NaN. */
void cli_row(const char *label, double value, const char *unit, scale_fmt style);

/** Prints "  label  text". */
void cli_row_text(const char *label, const char *text);

/* ---- JSON output ---------------------------------------------------------------------------- */

/** A streaming JSON writer (2-space indent). Numbers are written with 17 significant digits
 * (round-trip); NaN and infinities as null. Keys are snake_case with unit suffixes. */
typedef struct {
  FILE *out;
  int depth;
  bool first[32]; /**< per nesting level: no element written yet */
} cli_json;

void cli_json_init(cli_json *json, FILE *out);
void cli_json_object_begin(cli_json *json, const char *key); /**< key NULL inside arrays/top */
void cli_json_object_end(cli_json *json);
void cli_json_array_begin(cli_json *json, const char *key);
void cli_json_array_end(cli_json *json);
void cli_json_number(cli_json *json, const char *key, double value);
void cli_json_string(cli_json *json, const char *key, const char *value);
void cli_json_bool(cli_json *json, const char *key, bool value);
/** Ends the document with a newline. */
void cli_json_finish(cli_json *json);

/* serving.c: the serving rows (servecal.h) for `scale calibrate --serving` and `scale validate
 * --serving`. 'out' is a folder, "-" (print the section) or NULL (the hardware files in place);
 * 'group' NULL for all. Both return a CLI exit status. */
int cli_serve_calibrate(const char *dir, const char *out, bool as_json);
int cli_serve_validate(const char *dir, const char *group, bool as_json);
struct scale_serve_set; /* servecal.h */
/* The vLLM runs of DIR/serving-vllm predicted by the simulator (serving_vllm.c), text, and
 * issue 15's target over E1-E5 with the offline rows' leave-one-group-out predictions 'loo'. */
int cli_serve_validate_vllm(const char *measurements_dir, const struct scale_serve_set *set,
                            const double *loo);

/* plan_serve.c: `scale plan infer` on the request-stream simulator (serveplan.h), chosen when
 * the command line has a stream option (--isl, --osl, --ttft, --tpot, --disagg, --dtypes). */
bool cli_plan_serve_wanted(int argc, char **argv);
int cli_plan_serve(int argc, char **argv);

#endif
