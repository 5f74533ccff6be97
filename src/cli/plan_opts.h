/* plan_opts.h — what the planner's command lines share: `scale plan train` and the fixed-batch
 * `scale plan infer` (plan.c) and the request-stream `scale plan infer` (plan_serve.c) all take
 * --model, --hw, --json and --help, refuse a stray argument or a missing model or hardware with
 * the same words, and the two serving planners take comma lists of dtypes.
 *
 * A target's getopt_long table starts with CLI_PLAN_COMMON_OPTIONS and numbers its own options
 * from CLI_PLAN_OPT_OWN; its loop hands each result to cli_plan_common_take() first.
 */
#ifndef SCALE_CLI_PLAN_OPTS_H
#define SCALE_CLI_PLAN_OPTS_H

#include <getopt.h>
#include <stdbool.h>

#include "scale.h"

/* getopt_long values of the shared options (above 255: no short option has them). */
enum { CLI_PLAN_OPT_MODEL = 256, CLI_PLAN_OPT_HW, CLI_PLAN_OPT_JSON, CLI_PLAN_OPT_HELP,
       CLI_PLAN_OPT_PRICE, CLI_PLAN_OPT_PRICE_NAME, CLI_PLAN_OPT_OWN };

/* The shared entries of a target's getopt_long table. */
#define CLI_PLAN_COMMON_OPTIONS                                                                    \
  {"model", required_argument, NULL, CLI_PLAN_OPT_MODEL},                                          \
      {"hw", required_argument, NULL, CLI_PLAN_OPT_HW},                                            \
      {"json", no_argument, NULL, CLI_PLAN_OPT_JSON},                                              \
      {"help", no_argument, NULL, CLI_PLAN_OPT_HELP},                                              \
      {"usd-per-chip-hour", required_argument, NULL, CLI_PLAN_OPT_PRICE},                          \
      {"price", required_argument, NULL, CLI_PLAN_OPT_PRICE_NAME}

/** The shared options' values. */
typedef struct {
  const char *model; /**< --model NAME (NULL until given) */
  const char *hw;    /**< --hw NAME (NULL until given) */
  bool json;         /**< --json: machine output */
  bool help;         /**< --help: the caller prints its usage and returns 0 at once */
  bool priced;       /**< --usd-per-chip-hour given: costs at 'price', not the file's */
  double price;      /**< its price of a chip-hour [USD/h] */
  bool bad_price;    /**< --usd-per-chip-hour did not parse (reported): check() refuses */
  const char *price_name; /**< --price PROVIDER:OFFER (NULL: none), a row of hardware/prices.tsv */
} cli_plan_common;

/** Takes getopt_long's result 'c' (with its optarg 'arg') into 'o' when it is a shared option;
 * returns whether it was one. */
bool cli_plan_common_take(int c, const char *arg, cli_plan_common *o);

/** After the getopt_long loop of target 'cmd' ("plan train"): refuses an argument left at
 * optind, then a missing --model, then a missing --hw. Returns 0, or CLI_EXIT_USAGE reported. */
int cli_plan_common_check(const cli_plan_common *o, const char *cmd, int argc, char **argv);

/** Loads o->model then o->hw (cli_load_model, cli_load_chip), the chip at the user's price when
 * --usd-per-chip-hour or --price gave one (cli_apply_price): 0, or their exit status. */
int cli_plan_common_load(const cli_plan_common *o, scale_model *model, scale_chip *chip);

/** Parses option 'opt''s comma list of dtypes ("bf16,int8"; at most 127 characters are read)
 * into allow[]: true for each dtype named, false for the others. False after reporting a name
 * that is no dtype (allow[] then holds what came before it). */
bool cli_plan_parse_dtype_list(const char *opt, const char *text, bool allow[SCALE_DTYPE_COUNT]);

#endif
