/* serving.c — the serving rows of measurements/serving-*.tsv: `scale calibrate --serving` fits
 * the serving step cost (include/scale/servecal.h) and writes it into the hardware files of the
 * chips the rows ran on; `scale validate --serving` predicts every row with the shipped fit and
 * leave-one-group-out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scale/servecal.h"

static scale_serve_set *load_set(const char *dir) {
  scale_serve_set *set = NULL;
  scale_diag diag;
  if (scale_serve_set_load(dir, &set, &diag) != SCALE_OK) cli_print_diag(&diag);
  return set;
}

/* ---- calibrate ------------------------------------------------------------------------------ */

static void print_fit(const double *p, const scale_serve_set *set, double rms, double loo) {
  printf("serving step cost fitted on %d rows in %d groups: group-weighted RMS log error %.4f, "
         "leave-one-group-out MAPE %.1f%%\n\n",
         scale_serve_set_rows(set), scale_serve_set_groups(set), rms, 100 * loo);
  printf("  %-16s %12s   %-22s %s\n", "parameter", "value", "range", "meaning");
  for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++) {
    const scale_serve_param_info *d = scale_serve_param_describe(k);
    char range[64];
    snprintf(range, sizeof range, "[%g, %g] %s", d->lo, d->hi, d->unit);
    printf("  %-16s %12.4g   %-22s %s\n", d->key, p[k], range, d->meaning);
  }
}

/* Whether chip file 'name' takes the serving fit: a chip a row ran on, or any NVIDIA GPU chip
 * (TensorRT-LLM serves on all of them; rows exist for some). Systems inherit from their base. */
static bool takes_fit(const scale_serve_set *set, const char *name, const scale_chip *chip) {
  for (int i = 0; i < scale_serve_set_rows(set); i++)
    if (!strcmp(scale_serve_set_row(set, i)->hardware, name)) return true;
  return !chip->base[0] && chip->kind == SCALE_HW_GPU && !strncmp(name, "nvidia-", 7);
}

/* Writes the fit into every chip file that takes it. */
static scale_status write_chips(const scale_serve_set *set, const char *out, const double *p,
                                double rms, double loo, int *written, scale_diag *diag) {
  char hw_dir[4096];
  snprintf(hw_dir, sizeof hw_dir, "%s/hardware", scale_data_dir());
  static char names[256][SCALE_NAME_MAX];
  int n = scale_data_list("hardware", names, 256);
  scale_status st = SCALE_OK;
  for (int i = 0; i < n && i < 256 && !st; i++) {
    scale_chip chip;
    if ((st = scale_chip_load(names[i], &chip, diag))) break;
    if (!takes_fit(set, names[i], &chip)) continue;
    char src[4200], dst[4200];
    snprintf(src, sizeof src, "%.4000s/%.63s.ini", hw_dir, names[i]);
    snprintf(dst, sizeof dst, "%.4000s/%.63s.ini", out ? out : hw_dir, names[i]);
    st = scale_serve_write_hardware(src, dst, p, set, rms, loo, diag);
    (*written)++;
  }
  return st;
}

int cli_serve_calibrate(const char *dir, const char *out, bool as_json) {
  scale_serve_set *set = load_set(dir);
  if (!set) return CLI_EXIT_FAIL;
  double p[SCALE_SERVE_N_PARAMS];
  double rms = scale_serve_fit(set, -1, p);
  double *loo = malloc((size_t)scale_serve_set_rows(set) * sizeof *loo);
  if (!loo) {
    scale_serve_set_free(set);
    return cli_fail("calibrate: out of memory");
  }
  scale_serve_loo(set, loo);
  double loo_mape = scale_serve_mape(set, -1, loo);
  free(loo);
  scale_diag diag;
  int written = 0;
  scale_status st = SCALE_OK;
  if (out && strcmp(out, "-") == 0) {
    print_fit(p, set, rms, loo_mape);
  } else {
    st = write_chips(set, out, p, rms, loo_mape, &written, &diag);
  }
  if (!st && as_json) {
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_number(&j, "rows", scale_serve_set_rows(set));
    cli_json_number(&j, "groups", scale_serve_set_groups(set));
    cli_json_number(&j, "rms_log_error", rms);
    cli_json_number(&j, "loo_mape", loo_mape);
    cli_json_object_begin(&j, "params");
    for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++)
      cli_json_number(&j, scale_serve_param_describe(k)->key, p[k]);
    cli_json_object_end(&j);
    cli_json_object_end(&j);
    cli_json_finish(&j);
  } else if (!st && written) {
    print_fit(p, set, rms, loo_mape);
    printf("\nwrote [serve] into %d chip files in %s\n", written,
           out ? out : "hardware/ (in place)");
  }
  scale_serve_set_free(set);
  if (st) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

/* ---- validate ------------------------------------------------------------------------------- */

/* Each row predicted with its chip's shipped [serve] (the priors where a file has none). */
static int shipped(const scale_serve_set *set, double *pred, bool *fitted) {
  *fitted = true;
  for (int i = 0; i < scale_serve_set_rows(set); i++) {
    scale_chip chip;
    scale_diag diag;
    if (scale_chip_load(scale_serve_set_row(set, i)->hardware, &chip, &diag)) {
      cli_print_diag(&diag);
      return CLI_EXIT_FAIL;
    }
    double p[SCALE_SERVE_N_PARAMS];
    *fitted &= scale_serve_params_of(&chip, p);
    pred[i] = scale_serve_set_predict(set, i, p, NULL);
  }
  return CLI_EXIT_OK;
}

static void print_text(const scale_serve_set *set, int only, const double *pred, const double *loo,
                       bool fitted) {
  printf("serving step cost (%s) against measurements/serving-*.tsv: %d rows in %d groups, "
         "offline output tokens/s\nLOO = leave-one-group-out: each group predicted with "
         "parameters fitted without it (the figures to quote)\n\n",
         fitted ? "the shipped [serve] fit" : "priors: a chip file has no [serve]",
         scale_serve_set_rows(set), scale_serve_set_groups(set));
  printf("%-5s %-32s %11s %10s %10s %7s %10s %7s %7s\n", "id", "group", "isl/osl", "measured",
         "predicted", "error", "LOO pred", "LOO", "batch");
  for (int i = 0; i < scale_serve_set_rows(set); i++) {
    if (only >= 0 && scale_serve_set_row_group(set, i) != only) continue;
    const scale_serve_row *r = scale_serve_set_row(set, i);
    char lens[32];
    snprintf(lens, sizeof lens, "%g/%g", r->isl, r->osl);
    printf("%-5s %-32s %11s %10.0f %10.0f %+6.1f%% %10.0f %+6.1f%% %7.0f\n", r->id, r->group, lens,
           r->measured, pred[i], 100 * (pred[i] / r->measured - 1), loo[i],
           100 * (loo[i] / r->measured - 1), scale_serve_set_row_batch(set, i));
  }
  printf("\n%-32s %5s %8s %9s\n", "group", "rows", "MAPE", "LOO MAPE");
  for (int g = 0; g < scale_serve_set_groups(set); g++) {
    if (only >= 0 && g != only) continue;
    int n = 0;
    for (int i = 0; i < scale_serve_set_rows(set); i++)
      n += scale_serve_set_row_group(set, i) == g;
    printf("%-32s %5d %7.1f%% %8.1f%%\n", scale_serve_set_group_name(set, g), n,
           100 * scale_serve_mape(set, g, pred), 100 * scale_serve_mape(set, g, loo));
  }
  if (only >= 0) return;
  printf("%-32s %5d %7.1f%% %8.1f%%\n", "all serving rows", scale_serve_set_rows(set),
         100 * scale_serve_mape(set, -1, pred), 100 * scale_serve_mape(set, -1, loo));
  printf("\nissue 15 target (LOO): throughput MAPE <= 15%% over the TensorRT-LLM rows\n");
}

static void print_json(const scale_serve_set *set, int only, const double *pred,
                       const double *loo) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_array_begin(&j, "rows");
  for (int i = 0; i < scale_serve_set_rows(set); i++) {
    if (only >= 0 && scale_serve_set_row_group(set, i) != only) continue;
    const scale_serve_row *r = scale_serve_set_row(set, i);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "id", r->id);
    cli_json_string(&j, "group", r->group);
    cli_json_number(&j, "isl_tokens", r->isl);
    cli_json_number(&j, "osl_tokens", r->osl);
    cli_json_number(&j, "measured_tokens_per_s", r->measured);
    cli_json_number(&j, "predicted_tokens_per_s", pred[i]);
    cli_json_number(&j, "loo_tokens_per_s", loo[i]);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  cli_json_array_begin(&j, "groups");
  for (int g = 0; g < scale_serve_set_groups(set); g++) {
    if (only >= 0 && g != only) continue;
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "group", scale_serve_set_group_name(set, g));
    cli_json_number(&j, "mape", scale_serve_mape(set, g, pred));
    cli_json_number(&j, "loo_mape", scale_serve_mape(set, g, loo));
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  if (only < 0) {
    cli_json_number(&j, "mape", scale_serve_mape(set, -1, pred));
    cli_json_number(&j, "loo_mape", scale_serve_mape(set, -1, loo));
  }
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

int cli_serve_validate(const char *dir, const char *group, bool as_json) {
  scale_serve_set *set = load_set(dir);
  if (!set) return CLI_EXIT_FAIL;
  int only = -1;
  for (int g = 0; group && g < scale_serve_set_groups(set); g++)
    if (!strcmp(scale_serve_set_group_name(set, g), group)) only = g;
  int rc = CLI_EXIT_OK;
  size_t n = (size_t)scale_serve_set_rows(set);
  double *pred = malloc(n * sizeof *pred), *loo = malloc(n * sizeof *loo);
  bool fitted = false;
  if (group && only < 0)
    rc = cli_usage("--group: no serving group '%s' in %s", group, dir);
  else if (!pred || !loo)
    rc = cli_fail("validate: out of memory");
  else
    rc = shipped(set, pred, &fitted);
  if (rc == CLI_EXIT_OK) {
    if (only >= 0) { /* the one fit that predicts the group */
      for (size_t i = 0; i < n; i++)
        loo[i] = NAN;
      scale_serve_loo_group(set, only, loo);
    } else {
      scale_serve_loo(set, loo);
    }
    if (as_json)
      print_json(set, only, pred, loo);
    else
      print_text(set, only, pred, loo, fitted);
  }
  if (rc == CLI_EXIT_OK && !as_json && !group) rc = cli_serve_validate_vllm(dir, set, loo);
  free(pred);
  free(loo);
  scale_serve_set_free(set);
  return rc;
}
