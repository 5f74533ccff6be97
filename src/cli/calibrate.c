/* calibrate.c — `scale calibrate`: fit the step model's parameters to measurements/ and write
 * them into the [step] and [step_fit] sections of the hardware files (every chip file; systems
 * inherit them from their base). See include/scale/calibrate.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "scale/calibrate.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale calibrate [--serving] [--out DIR|-] [--measurements DIR] [--json]\n"
          "                       [--prior-weight W]\n\n"
          "Fits the step model's efficiency parameters (include/scale/step.h) to every row of\n"
          "measurements/ by deterministic least squares (Levenberg-Marquardt on log errors, each\n"
          "group weighted equally, each parameter inside its plausible range) and writes them,\n"
          "with the fit's provenance, into the [step] and [step_fit] sections of every chip\n"
          "file in hardware/ (a system file inherits its base's); the rest of each file is\n"
          "kept byte for byte.\n\n"
          "  --out DIR           write the updated hardware files into DIR instead (default: in\n"
          "                      place); '-' prints the two sections\n"
          "  --measurements DIR  folder of TSV files (default: the shipped measurements/)\n"
          "  --json              print the fitted parameters as JSON (SI base units)\n"
          "  --prior-weight W    pull of each parameter toward its prior (calibrate.h), 0-10;\n"
          "                      default %g, 0: the rows alone\n"
          "  --serving           fit the serving step cost (servecal.h) to\n"
          "                      measurements/serving-*.tsv instead, and write its [serve]\n"
          "                      section into the files of the chips those rows ran on\n",
          SCALE_CALIB_PRIOR_WEIGHT);
}

/** Prints the fitted values with their ranges. */
static void print_params(const scale_step_params *p, const scale_calib_fit_info *info,
                         double prior_weight) {
  printf("step model fitted on %d rows in %d groups (%d iterations), group-weighted RMS "
         "log error %.4f, pull toward the priors %g\n\n",
         info->n_rows, info->n_groups, info->iterations, info->rms_log, prior_weight);
  printf("  %-16s %12s   %-22s %s\n", "parameter", "value", "range", "meaning");
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) {
    const scale_step_param_info *d = scale_step_param_describe((scale_step_param)i);
    char range[64];
    snprintf(range, sizeof range, "[%g, %g] %s", d->lo, d->hi, d->unit);
    printf("  %-16s %12.4g   %-22s %s\n", d->key, p->v[i], range, d->meaning);
  }
}

static void print_json(const scale_step_params *p, const scale_calib_fit_info *info,
                       double prior_weight) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_number(&j, "rows", info->n_rows);
  cli_json_number(&j, "groups", info->n_groups);
  cli_json_number(&j, "rms_log_error", info->rms_log);
  cli_json_number(&j, "prior_weight", prior_weight);
  cli_json_object_begin(&j, "params");
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++)
    cli_json_number(&j, scale_step_param_describe((scale_step_param)i)->key, p->v[i]);
  cli_json_object_end(&j);
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

int cli_cmd_calibrate(int argc, char **argv) {
  enum { OPT_OUT = 256, OPT_DIR, OPT_JSON, OPT_SERVING, OPT_PRIOR };
  static const struct option options[] = {{"out", required_argument, NULL, OPT_OUT},
                                          {"measurements", required_argument, NULL, OPT_DIR},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"serving", no_argument, NULL, OPT_SERVING},
                                          {"prior-weight", required_argument, NULL, OPT_PRIOR},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  const char *out_path = NULL, *dir = scale_measurements_dir();
  bool as_json = false, serving = false;
  double prior_weight = SCALE_CALIB_PRIOR_WEIGHT;
  const char *prior_text = NULL;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_OUT: out_path = optarg; break;
    case OPT_DIR: dir = optarg; break;
    case OPT_JSON: as_json = true; break;
    case OPT_SERVING: serving = true; break;
    case OPT_PRIOR: prior_text = optarg; break;
    case 'h': usage(stdout); return CLI_EXIT_OK;
    default: return cli_bad_option("calibrate", argv);
    }
  }
  if (optind < argc) return cli_usage("calibrate: unexpected argument '%s'", argv[optind]);
  if (prior_text && !cli_parse_prior_weight(prior_text, &prior_weight)) return CLI_EXIT_USAGE;
  if (serving && prior_text)
    return cli_usage("calibrate: --prior-weight is the training fit's, not --serving's");
  if (serving) return cli_serve_calibrate(dir, out_path, as_json);

  scale_calib_set *set = NULL;
  scale_diag diag;
  if (scale_calib_set_load(dir, &set, &diag) != SCALE_OK) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  set->prior_weight = prior_weight;
  scale_step_params params;
  scale_calib_fit_info info;
  scale_status st = scale_calibrate_fit(set, -1, &params, &info);
  if (st) {
    scale_calib_set_free(set);
    return cli_fail("calibrate: fit failed: %s", scale_status_str(st));
  }
  bool to_stdout = out_path && strcmp(out_path, "-") == 0;
  if (to_stdout) {
    st = scale_calib_write_params(stdout, &params, &info, set);
    scale_calib_set_free(set);
    return st ? cli_fail("calibrate: write failed") : CLI_EXIT_OK;
  }
  /* every chip file of hardware/ (systems inherit [step] from their base) */
  static char names[256][SCALE_NAME_MAX];
  int n = scale_data_list("hardware", names, 256);
  int written = 0;
  char hw_dir[4096];
  snprintf(hw_dir, sizeof hw_dir, "%s/hardware", scale_data_dir());
  for (int i = 0; i < n && i < 256 && !st; i++) {
    scale_chip chip;
    if (scale_chip_load(names[i], &chip, &diag) != SCALE_OK) {
      scale_calib_set_free(set);
      cli_print_diag(&diag);
      return CLI_EXIT_FAIL;
    }
    if (chip.base[0]) continue;
    char src[4200], dst[4200];
    snprintf(src, sizeof src, "%.4000s/%.63s.ini", hw_dir, names[i]);
    snprintf(dst, sizeof dst, "%.4000s/%.63s.ini", out_path ? out_path : hw_dir, names[i]);
    st = scale_calib_write_hardware(src, dst, &params, &info, set, &diag);
    written++;
  }
  scale_calib_set_free(set);
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  if (as_json)
    print_json(&params, &info, prior_weight);
  else {
    print_params(&params, &info, prior_weight);
    printf("\nwrote [step] and [step_fit] into %d chip files in %s\n", written,
           out_path ? out_path : hw_dir);
  }
  return CLI_EXIT_OK;
}
