/* energy_opts.h — the energy and failure options `scale train` and `scale plan train` share
 * (energy.h): a target's getopt_long table adds CLI_ENERGY_OPTIONS, its loop hands each result
 * to cli_energy_take() before its own options, and after loading the chip it calls
 * cli_energy_resolve(). A number the options and the data do not give stays NaN and is printed
 * as unknown with the option that would give it: nothing is defaulted silently.
 */
#ifndef SCALE_CLI_ENERGY_OPTS_H
#define SCALE_CLI_ENERGY_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "scale.h"
#include "scale/energy.h"

/* getopt_long values (above every target's own). */
enum {
  CLI_ENERGY_OPT_PUE = 900,
  CLI_ENERGY_OPT_GRID,
  CLI_ENERGY_OPT_CHIP_W,
  CLI_ENERGY_OPT_NODE_W,
  CLI_ENERGY_OPT_FAILURES,
  CLI_ENERGY_OPT_CKPT_BW,
  CLI_ENERGY_OPT_RESTART
};

#define CLI_ENERGY_OPTIONS                                                                         \
  {"pue", required_argument, NULL, CLI_ENERGY_OPT_PUE},                                            \
      {"grid-kgco2-per-kwh", required_argument, NULL, CLI_ENERGY_OPT_GRID},                        \
      {"chip-w", required_argument, NULL, CLI_ENERGY_OPT_CHIP_W},                                  \
      {"node-overhead-w", required_argument, NULL, CLI_ENERGY_OPT_NODE_W},                         \
      {"failures", required_argument, NULL, CLI_ENERGY_OPT_FAILURES},                              \
      {"ckpt-write-bytes-per-s", required_argument, NULL, CLI_ENERGY_OPT_CKPT_BW},                 \
      {"restart-s", required_argument, NULL, CLI_ENERGY_OPT_RESTART}

/* The options' help lines (after a target's "run:" block). */
#define CLI_ENERGY_USAGE                                                                           \
  "energy and failures (with --tokens):\n"                                                         \
  "  --chip-w W          power of a chip (default: the hardware file's measured training\n"     \
  "                      draw, else its TDP)\n"                                                    \
  "  --node-overhead-w W node power beyond the chips, per chip (CPUs, NICs, fans; default\n"    \
  "                      the hardware file's, else 0: not counted, as Meta's model card)\n"     \
  "  --pue X             facility power usage effectiveness (>= 1): facility kWh\n"             \
  "  --grid-kgco2-per-kwh X  grid carbon intensity: location-based tCO2e\n"                      \
  "  --failures R|NAME   interruptions per chip-hour, or a published run's record in\n"         \
  "                      measurements/reliability.ini (llama3-405b)\n"                            \
  "  --ckpt-write-bytes-per-s B  storage write bandwidth of a checkpoint (default: the\n"       \
  "                      record's storage)\n"                                                      \
  "  --restart-s S       time from an interruption to training again (required with\n"         \
  "                      --failures: no published restart time to default to)\n"

/** The options as given, and what cli_energy_resolve() adds from the chip and the record. */
typedef struct {
  double pue, grid, chip_w, node_w; /**< NaN until given (chip_w, node_w: then resolved) */
  double rate, ckpt_bw, restart_s;  /**< NaN until given or resolved */
  const char *failures;             /**< --failures as written (NULL: none) */
  const char *chip_w_from;          /**< where chip_w came from ("--chip-w", "TDP", ...) */
  const char *node_w_from;          /**< where node_w came from */
  const char *ckpt_bw_from;         /**< where ckpt_bw came from */
  char rate_from[160];              /**< where the rate came from */
  bool given_chip_w, given_node_w, given_ckpt_bw; /**< given on the command line */
} cli_energy_opts;

/** Every field NaN / NULL. */
void cli_energy_init(cli_energy_opts *o);

/** Takes getopt_long's result into 'o': 1 if it was one of these options, 0 if not, or
 * CLI_EXIT_USAGE (reported) for a bad value. */
int cli_energy_take(int c, const char *arg, cli_energy_opts *o);

/** Fills what the options leave from 'chip' ([power]) and the --failures record; refuses
 * (CLI_EXIT_USAGE, one line; 'cmd' names the command) --failures without --restart-s, or
 * without a write bandwidth. 0 otherwise. */
int cli_energy_resolve(cli_energy_opts *o, const scale_chip *chip, const char *cmd);

/** Whether any option of this block was given (the plan's reproduce line carries them). */
bool cli_energy_any(const cli_energy_opts *o);

/** Bytes one checkpoint writes: every parameter's weights and optimizer state as 'prec' stores
 * them (scale_train_zero_bytes_per_chip, unsharded), each shard written once. */
double cli_energy_ckpt_bytes(const scale_model *model, const scale_precision *prec);

/** The run of 'n_chips' training 'useful_s' at 'usd_per_chip_hour' with the options. */
scale_energy_run cli_energy_run(const cli_energy_opts *o, double n_chips, double useful_s,
                                double usd_per_chip_hour, double ckpt_bytes);

/** The "energy" and "failures / goodput" blocks of the text report. */
void cli_energy_print_text(const cli_energy_opts *o, const scale_energy_run *run,
                           const scale_energy_result *r);

/** The same as an "energy" object of the JSON report. */
void cli_energy_print_json(cli_json *json, const cli_energy_opts *o, const scale_energy_run *run,
                           const scale_energy_result *r);

/** Appends the options that were given, as flags, to buf (of 'size', holding 'n' bytes);
 * returns the new length. */
size_t cli_energy_flags(const cli_energy_opts *o, char *buf, size_t n, size_t size);

#endif
