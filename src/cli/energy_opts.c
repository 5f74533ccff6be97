/* energy_opts.c — the energy and failure options and their report blocks (energy_opts.h). */
#include "energy_opts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ==== options =============================================================================== */

void cli_energy_init(cli_energy_opts *o) {
  memset(o, 0, sizeof *o);
  o->pue = o->grid = o->chip_w = o->node_w = o->rate = o->ckpt_bw = o->restart_s = NAN;
}

/* --failures: a rate per chip-hour (a number) or a record's name; 1 or CLI_EXIT_USAGE. */
static int take_failures(const char *arg, cli_energy_opts *o) {
  o->failures = arg;
  double v;
  if (!scale_parse_number(arg, SCALE_NUM_POSITIVE, &v, NULL)) {
    o->rate = v;
    snprintf(o->rate_from, sizeof o->rate_from, "--failures");
  }
  return 1;
}

int cli_energy_take(int c, const char *arg, cli_energy_opts *o) {
  bool ok = true;
  switch (c) {
  case CLI_ENERGY_OPT_PUE:
    ok = cli_parse_number("pue", arg, SCALE_NUM_POSITIVE, &o->pue);
    if (ok && o->pue < 1.0) return cli_usage("--pue: %s is below 1 (facility over IT power)", arg);
    break;
  case CLI_ENERGY_OPT_GRID:
    ok = cli_parse_number("grid-kgco2-per-kwh", arg, SCALE_NUM_NONNEG, &o->grid);
    break;
  case CLI_ENERGY_OPT_CHIP_W:
    ok = cli_parse_number("chip-w", arg, SCALE_NUM_POSITIVE, &o->chip_w);
    o->given_chip_w = true;
    break;
  case CLI_ENERGY_OPT_NODE_W:
    ok = cli_parse_number("node-overhead-w", arg, SCALE_NUM_NONNEG, &o->node_w);
    o->given_node_w = true;
    break;
  case CLI_ENERGY_OPT_FAILURES: return take_failures(arg, o);
  case CLI_ENERGY_OPT_CKPT_BW:
    ok = cli_parse_number("ckpt-write-bytes-per-s", arg, SCALE_NUM_POSITIVE, &o->ckpt_bw);
    o->given_ckpt_bw = true;
    break;
  case CLI_ENERGY_OPT_RESTART:
    ok = cli_parse_number("restart-s", arg, SCALE_NUM_NONNEG, &o->restart_s);
    break;
  default: return 0;
  }
  return ok ? 1 : CLI_EXIT_USAGE;
}

/* The --failures record: its rate and (unless given) its storage bandwidth; 0 or an error. */
static int resolve_record(cli_energy_opts *o, const char *cmd) {
  scale_energy_source src;
  scale_diag diag;
  if (scale_energy_source_load(NULL, o->failures, &src, &diag)) {
    char msg[600];
    return cli_usage("%s: --failures %s: not a rate per chip-hour nor a record (%s)", cmd,
                     o->failures, scale_diag_format(&diag, msg, sizeof msg));
  }
  o->rate = scale_energy_rate_per_chip_hour(src.n_interruptions, src.n_chips, src.window_s);
  snprintf(o->rate_from, sizeof o->rate_from, "%s: %.0f interruptions in %.0f days on %.0f chips",
           src.name, src.n_interruptions, src.window_s / SCALE_SECONDS_PER_DAY, src.n_chips);
  if (!o->given_ckpt_bw && isfinite(src.ckpt_write_bytes_per_s)) {
    o->ckpt_bw = src.ckpt_write_bytes_per_s;
    o->ckpt_bw_from = "the record's storage";
  }
  return 0;
}

int cli_energy_resolve(cli_energy_opts *o, const scale_chip *chip, const char *cmd) {
  if (o->given_chip_w) o->chip_w_from = "--chip-w";
  else if (isfinite(chip->training_draw_w)) {
    o->chip_w = chip->training_draw_w;
    o->chip_w_from = "measured training draw, hardware file";
  } else if (isfinite(chip->tdp_w)) {
    o->chip_w = chip->tdp_w;
    o->chip_w_from = "TDP, hardware file";
  }
  if (o->given_node_w) o->node_w_from = "--node-overhead-w";
  else if (isfinite(chip->node_overhead_w)) {
    o->node_w = chip->node_overhead_w;
    o->node_w_from = "hardware file";
  } else {
    o->node_w = 0.0;
    o->node_w_from = "not counted: none in the hardware file, --node-overhead-w";
  }
  if (o->given_ckpt_bw) o->ckpt_bw_from = "--ckpt-write-bytes-per-s";
  if (!o->failures) return 0;
  int rc = isnan(o->rate) ? resolve_record(o, cmd) : 0;
  if (rc) return rc;
  if (isnan(o->restart_s))
    return cli_usage("%s: --failures needs --restart-s (no published restart time to default to)",
                     cmd);
  if (isnan(o->ckpt_bw))
    return cli_usage("%s: --failures %s needs --ckpt-write-bytes-per-s (the storage's write "
                     "bandwidth)", cmd, o->failures);
  return 0;
}

bool cli_energy_any(const cli_energy_opts *o) {
  return !isnan(o->pue) || !isnan(o->grid) || o->given_chip_w || o->given_node_w ||
         o->failures || o->given_ckpt_bw || !isnan(o->restart_s);
}

size_t cli_energy_flags(const cli_energy_opts *o, char *buf, size_t n, size_t size) {
#define PUT(...)                                                                                   \
  do {                                                                                             \
    int k_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                              \
    if (k_ > 0) n += (size_t)k_;                                                                   \
  } while (0)
  if (o->given_chip_w) PUT(" --chip-w %.17g", o->chip_w);
  if (o->given_node_w) PUT(" --node-overhead-w %.17g", o->node_w);
  if (!isnan(o->pue)) PUT(" --pue %.17g", o->pue);
  if (!isnan(o->grid)) PUT(" --grid-kgco2-per-kwh %.17g", o->grid);
  if (o->failures) PUT(" --failures %s", o->failures);
  if (o->given_ckpt_bw) PUT(" --ckpt-write-bytes-per-s %.17g", o->ckpt_bw);
  if (!isnan(o->restart_s)) PUT(" --restart-s %.17g", o->restart_s);
#undef PUT
  return n;
}

/* ==== the run =============================================================================== */

double cli_energy_ckpt_bytes(const scale_model *model, const scale_precision *prec) {
  double parts[3];
  scale_train_zero_bytes_per_chip(prec, scale_transformer_n_params(model), 0, 1.0, parts);
  return parts[0] + parts[2];
}

scale_energy_run cli_energy_run(const cli_energy_opts *o, double n_chips, double useful_s,
                                double usd_per_chip_hour, double ckpt_bytes) {
  scale_energy_run run = scale_energy_run_default();
  run.n_chips = n_chips;
  run.useful_s = useful_s;
  run.usd_per_chip_hour = usd_per_chip_hour;
  run.chip_w = o->chip_w;
  run.node_overhead_w = o->node_w;
  run.pue = o->pue;
  run.grid_kg_per_kwh = o->grid;
  run.rate_per_chip_hour = o->rate;
  run.ckpt_bytes = ckpt_bytes;
  run.ckpt_write_bytes_per_s = o->ckpt_bw;
  run.restart_s = o->restart_s;
  return run;
}

/* ==== the report ============================================================================ */

static void print_energy_text(const cli_energy_opts *o, const scale_energy_run *run,
                              const scale_energy_result *r) {
  char num[64];
  bool failures = isfinite(r->goodput_frac);
  printf("\nenergy (over the %s time)\n", failures ? "effective" : "useful");
  if (isnan(o->chip_w)) {
    cli_row_text("chip power", "unknown: no [power] in the hardware file (--chip-w)");
    return;
  }
  printf("  %-34s %s (%s)\n", "chip power", scale_format(num, sizeof num, o->chip_w, "W",
                                                        SCALE_FMT_SI), o->chip_w_from);
  printf("  %-34s %s (%s)\n", "node overhead per chip",
         scale_format(num, sizeof num, run->node_overhead_w, "W", SCALE_FMT_SI), o->node_w_from);
  cli_row("IT energy", r->it_kwh * 1e3, "Wh", SCALE_FMT_SI);
  if (isnan(o->pue)) cli_row_text("facility energy", "unknown: give --pue");
  else {
    cli_row("PUE", o->pue, "", SCALE_FMT_PLAIN);
    cli_row("facility energy", r->facility_kwh * 1e3, "Wh", SCALE_FMT_SI);
  }
  if (isnan(o->grid) || isnan(r->co2e_t))
    cli_row_text("emissions (location-based)",
                 isnan(o->grid) ? "unknown: give --grid-kgco2-per-kwh" : "unknown: give --pue");
  else
    cli_row("emissions (location-based)", r->co2e_t, "tCO2e", SCALE_FMT_PLAIN);
}

static void print_failures_text(const cli_energy_opts *o, const scale_energy_run *run,
                                const scale_energy_result *r) {
  char num[64];
  printf("\nfailures / goodput\n");
  if (!o->failures) {
    cli_row_text("interruptions", "not modelled: give --failures llama3-405b or a rate");
    return;
  }
  printf("  %-34s %s per chip-hour (%s)\n", "interruption rate",
         scale_format(num, sizeof num, run->rate_per_chip_hour, "", SCALE_FMT_SCI), o->rate_from);
  cli_row("mean time between interruptions", r->mtbi_s, "", SCALE_FMT_TIME);
  cli_row("interruptions expected", r->n_interruptions, "", SCALE_FMT_PLAIN);
  cli_row("checkpoint size", run->ckpt_bytes, "B", SCALE_FMT_SI);
  printf("  %-34s %s (%s)\n", "storage write bandwidth",
         scale_format(num, sizeof num, run->ckpt_write_bytes_per_s, "B/s", SCALE_FMT_SI),
         o->ckpt_bw_from ? o->ckpt_bw_from : "--ckpt-write-bytes-per-s");
  cli_row("checkpoint time", r->ckpt_s, "", SCALE_FMT_TIME);
  cli_row("checkpoint interval (Daly)", r->interval_s, "", SCALE_FMT_TIME);
  cli_row("restart time", run->restart_s, "", SCALE_FMT_TIME);
  cli_row("goodput", r->goodput_frac, "", SCALE_FMT_PERCENT);
  if (isnan(r->elapsed_s)) {
    cli_row_text("effective training time", "never: an interruption costs more than M");
    return;
  }
  cli_row("effective training time", r->elapsed_s, "", SCALE_FMT_TIME);
  if (isfinite(r->cost_usd)) cli_row("effective cost", r->cost_usd, "", SCALE_FMT_USD);
}

void cli_energy_print_text(const cli_energy_opts *o, const scale_energy_run *run,
                           const scale_energy_result *r) {
  print_failures_text(o, run, r);
  print_energy_text(o, run, r);
}

void cli_energy_print_json(cli_json *json, const cli_energy_opts *o, const scale_energy_run *run,
                           const scale_energy_result *r) {
  cli_json_object_begin(json, "energy");
  cli_json_number(json, "chip_w", o->chip_w);
  cli_json_string(json, "chip_w_from", o->chip_w_from ? o->chip_w_from : "unknown");
  cli_json_number(json, "node_overhead_w", run->node_overhead_w);
  cli_json_number(json, "pue", o->pue);
  cli_json_number(json, "grid_kg_co2e_per_kwh", o->grid);
  cli_json_number(json, "it_kwh", r->it_kwh);
  cli_json_number(json, "facility_kwh", r->facility_kwh);
  cli_json_number(json, "co2e_t", r->co2e_t);
  cli_json_object_end(json);
  cli_json_object_begin(json, "failures");
  cli_json_number(json, "rate_per_chip_hour", run->rate_per_chip_hour);
  cli_json_string(json, "rate_from", o->failures ? o->rate_from : "none");
  cli_json_number(json, "mtbi_s", r->mtbi_s);
  cli_json_number(json, "n_interruptions", r->n_interruptions);
  cli_json_number(json, "ckpt_bytes", run->ckpt_bytes);
  cli_json_number(json, "ckpt_write_bytes_per_s", run->ckpt_write_bytes_per_s);
  cli_json_number(json, "ckpt_s", r->ckpt_s);
  cli_json_number(json, "ckpt_interval_s", r->interval_s);
  cli_json_number(json, "restart_s", run->restart_s);
  cli_json_number(json, "goodput_frac", r->goodput_frac);
  cli_json_number(json, "effective_time_s", r->elapsed_s);
  cli_json_number(json, "effective_cost_usd", r->cost_usd);
  cli_json_object_end(json);
}
