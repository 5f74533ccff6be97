/* validate.c — `scale validate`: the step model against every published row of measurements/,
 * in-sample (the shipped parameters) and leave-one-group-out (the figures we quote).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scale/calibrate.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale validate [--serving] [--group G] [--json] [--params PATH]\n"
          "                      [--measurements DIR] [--prior-weight W]\n\n"
          "Predicts every row of measurements/ with the step model and compares: per row the\n"
          "measured and predicted step time and the error; per group the mean absolute\n"
          "percentage error (MAPE), the largest error, and Spearman's rank correlation for\n"
          "ranking groups. Leave-one-group-out (LOGO) columns predict each group with\n"
          "parameters fitted without it: the honest accuracy, and the one to quote. Last,\n"
          "the layout features the fitted rows cover (rows and groups of each; 0: a\n"
          "prediction with it runs on priors, and scale train says so in a caveat line).\n\n"
          "  --group G           only group G's rows and figures\n"
          "  --json              machine output in SI base units\n"
          "  --params PATH       a file with a [step] section (default: the shipped fit, in\n"
          "                      hardware/nvidia-h100-sxm.ini as in every chip file)\n"
          "  --measurements DIR  folder of TSV files (default: the shipped measurements/)\n"
          "  --prior-weight W    the LOGO refits' pull toward the priors (calibrate.h), 0-10;\n"
          "                      default %g, as the shipped fit; 0: the rows alone\n"
          "  --serving           the serving rows (measurements/serving-*.tsv) instead: offline\n"
          "                      output tokens/s predicted by the simulator with the\n"
          "                      calibrated step cost, MAPE and leave-one-group-out MAPE\n",
          SCALE_CALIB_PRIOR_WEIGHT);
}

/** Predictions of every row: in-sample and leave-one-group-out. */
typedef struct {
  scale_calib_set *set;
  double *pred; /**< with the shipped parameters */
  double *logo; /**< with parameters fitted without the row's group (NaN if not computed) */
  const scale_step_params *params; /**< the shipped parameters */
} predictions;

static int predict_all(predictions *pr, const scale_step_params *params, int only) {
  int n = pr->set->n;
  pr->pred = malloc(sizeof(double) * (size_t)n);
  pr->logo = malloc(sizeof(double) * (size_t)n);
  if (!pr->pred || !pr->logo) return cli_fail("out of memory");
  for (int i = 0; i < n; i++) {
    pr->pred[i] = scale_calib_predict_s(&pr->set->points[i], params);
    pr->logo[i] = NAN;
  }
  for (int g = 0; g < pr->set->n_groups; g++) {
    if (only >= 0 && g != only) continue;
    scale_step_params held_out;
    if (scale_calibrate_fit(pr->set, g, &held_out, NULL) != SCALE_OK) continue;
    for (int i = 0; i < n; i++)
      if (pr->set->points[i].group == g)
        pr->logo[i] = scale_calib_predict_s(&pr->set->points[i], &held_out);
  }
  return CLI_EXIT_OK;
}

/** The mean over groups of each group's LOGO MAPE (every group counts the same, as in the fit):
 * the figure --prior-weight is chosen by. */
static double logo_group_mean(const predictions *pr) {
  double sum = 0;
  for (int g = 0; g < pr->set->n_groups; g++) {
    scale_calib_stats out;
    scale_calib_group_stats(pr->set, g, pr->logo, &out);
    sum += out.mape;
  }
  return pr->set->n_groups > 0 ? sum / pr->set->n_groups : (double)NAN;
}

/** MAPE and max error over the rows selected by 'keep' (NULL: all), for one prediction. */
static void pooled(const predictions *pr, const double *pred, const char *const *ids,
                   double *mape, double *max_err, int *count) {
  *mape = *max_err = 0;
  *count = 0;
  for (int i = 0; i < pr->set->n; i++) {
    if (ids) {
      bool hit = false;
      for (int k = 0; ids[k]; k++) hit = hit || strcmp(ids[k], pr->set->points[i].row.id) == 0;
      if (!hit) continue;
    }
    double e = fabs(pred[i] / pr->set->points[i].measured_s - 1);
    *mape += e;
    *max_err = isfinite(e) && isfinite(*max_err) ? fmax(*max_err, e) : (double)NAN;
    (*count)++;
  }
  if (*count) *mape /= *count;
}

/* The Megatron A100 rows issue 14's 5% target names (A1-A10, A15-A16). */
static const char *const megatron_ids[] = {"A1",   "A2",   "A3",   "A4",   "A5",   "A6",
                                           "A7",   "A8",   "A9",   "A10",  "A15a", "A15b",
                                           "A15c", "A16a", "A16b", "A16c", NULL};

static void layout_text(const scale_measurement *r, char *buf, size_t size) {
  snprintf(buf, size, "dp%g tp%g pp%g cp%g mbs%s%g", r->dp, r->tp, r->pp, r->cp,
           r->mbs > 0 ? "" : "?", r->mbs > 0 ? r->mbs : 1);
}

/* A percentage cell: "-" where there is no value (a LOGO refit without another group), and
 * three significant digits past 1e5 % so that an extreme ratio keeps the column's width. */
static const char *pct_cell(char *buf, size_t size, double fraction, bool sign) {
  double pct = 100 * fraction;
  if (!isfinite(pct))
    snprintf(buf, size, "-");
  else if (fabs(pct) >= 1e5)
    snprintf(buf, size, sign ? "%+.2e%%" : "%.2e%%", pct);
  else
    snprintf(buf, size, sign ? "%+.1f%%" : "%.1f%%", pct);
  return buf;
}

/* A step-time cell: "-" where there is no prediction. */
static const char *seconds_cell(char *buf, size_t size, double s) {
  if (isfinite(s))
    snprintf(buf, size, "%.4gs", s);
  else
    snprintf(buf, size, "-");
  return buf;
}

/* A group's line: rows, then in-sample and LOGO MAPE, max error and (with 'ranks') Spearman. */
static void print_group_line(const char *name, int n, const scale_calib_stats *in,
                             const scale_calib_stats *out, bool ranks) {
  char cells[4][24], rho_in[16] = "-", rho_out[16] = "-"; /* Spearman only for ranking groups */
  if (isfinite(in->spearman)) snprintf(rho_in, sizeof rho_in, "%.3f", in->spearman);
  if (isfinite(out->spearman)) snprintf(rho_out, sizeof rho_out, "%.3f", out->spearman);
  /* fmax skips NaN: beside no MAPE a max error is no figure either */
  double in_max = isfinite(in->mape) ? in->max_err : (double)NAN;
  double out_max = isfinite(out->mape) ? out->max_err : (double)NAN;
  printf("%-22s %5d %8s %8s %9s | %9s %9s", name, n, pct_cell(cells[0], 24, in->mape, false),
         pct_cell(cells[1], 24, in_max, false), ranks ? rho_in : "",
         pct_cell(cells[2], 24, out->mape, false), pct_cell(cells[3], 24, out_max, false));
  if (ranks) printf(" %9s", rho_out);
  printf("\n");
}

/* A pooled line: in-sample and LOGO MAPE and max error over a set of rows. */
static void print_pooled_line(const char *name, int n, double mape, double max_err,
                              double logo_mape, double logo_max) {
  scale_calib_stats in = {.n = n, .mape = mape, .max_err = max_err, .spearman = NAN};
  scale_calib_stats out = {.n = n, .mape = logo_mape, .max_err = logo_max, .spearman = NAN};
  print_group_line(name, n, &in, &out, false);
}

/* The leave-one-group-out MAPE of the rows with feature f (issue 27's LOGO per feature); NaN
 * when no row has it. */
static double feature_logo_mape(const predictions *pr, int f) {
  double sum = 0.0, n = 0.0;
  for (int i = 0; i < pr->set->n; i++) {
    const scale_calib_point *p = &pr->set->points[i];
    bool on[SCALE_COVER_COUNT];
    scale_cover_point_features(p, on);
    if (!on[f]) continue;
    sum += fabs(pr->logo[i] / p->measured_s - 1);
    n += 1.0;
  }
  return n > 0.0 ? sum / n : (double)NAN;
}

/* What the fitted rows cover: every feature with its rows, groups (0: no fitted row runs it, so
 * a prediction with it runs on priors) and their LOGO MAPE, then the rows per chip. */
static void print_coverage_text(const predictions *pr) {
  scale_coverage cov;
  scale_coverage_of(pr->set, &cov);
  printf("\nfeatures the fit covers (rows and groups of the %d fitted rows, and their LOGO MAPE; "
         "0: priced by priors and formulas alone)\n",
         cov.n_rows);
  for (int f = 0; f < SCALE_COVER_COUNT; f++) {
    const char *name = scale_cover_feature_name(f);
    char cell[24];
    if (name)
      printf("  %-31s %5d rows %3d groups %9s\n", name, cov.rows[f], cov.groups[f],
             cov.rows[f] ? pct_cell(cell, sizeof cell, feature_logo_mape(pr, f), false) : "-");
  }
  printf("  chips:");
  for (int c = 0; c < cov.n_chips; c++)
    printf("%s %s %d", c ? "," : "", cov.chips[c], cov.chip_rows[c]);
  printf("\n");
}

static void json_coverage(cli_json *j, const predictions *pr) {
  scale_coverage cov;
  scale_coverage_of(pr->set, &cov);
  cli_json_array_begin(j, "coverage");
  for (int f = 0; f < SCALE_COVER_COUNT; f++) {
    const char *name = scale_cover_feature_name(f);
    if (!name) continue;
    cli_json_object_begin(j, NULL);
    cli_json_string(j, "feature", name);
    cli_json_number(j, "rows", cov.rows[f]);
    cli_json_number(j, "groups", cov.groups[f]);
    if (cov.rows[f]) cli_json_number(j, "logo_mape", feature_logo_mape(pr, f));
    cli_json_object_end(j);
  }
  cli_json_array_end(j);
  cli_json_array_begin(j, "coverage_chips");
  for (int c = 0; c < cov.n_chips; c++) {
    cli_json_object_begin(j, NULL);
    cli_json_string(j, "chip", cov.chips[c]);
    cli_json_number(j, "rows", cov.chip_rows[c]);
    cli_json_object_end(j);
  }
  cli_json_array_end(j);
}

/** The GEMMs timed alone as JSON: "kernels": {"large": {n, mape, geo_ratio}, "small": ...}. */
static void json_kernels(cli_json *j, const predictions *pr) {
  cli_json_object_begin(j, "kernels");
  for (int large = 1; large >= 0; large--) {
    scale_calib_kernel_fit fit;
    scale_calib_kernel_stats(pr->set, pr->params, large, &fit);
    cli_json_object_begin(j, large ? "large" : "small");
    cli_json_number(j, "n", fit.n);
    if (fit.n) cli_json_number(j, "mape", fit.mape);
    if (fit.n) cli_json_number(j, "geo_ratio", fit.geo_ratio);
    cli_json_object_end(j);
  }
  cli_json_object_end(j);
}

/** How the step model prices the GEMMs timed alone (measurements/kernels/, outside the fit). */
static void print_kernels_text(const predictions *pr) {
  const scale_calib_set *set = pr->set;
  if (set->n_kernels == 0) return;
  printf("\nGEMMs timed alone (measurements/kernels/, not fitted): %d on", set->n_kernels);
  for (int c = 0; c < set->n_kernel_chips; c++) printf(" %s", set->kernel_chips[c].name);
  printf("\n  the step model's GEMM time (its kernel_s included) against them:\n");
  for (int large = 1; large >= 0; large--) {
    scale_calib_kernel_fit fit;
    scale_calib_kernel_stats(set, pr->params, large, &fit);
    char cell[24];
    printf("  %-30s %4d GEMMs  MAPE %7s  predicted/measured x%.2f (geometric mean)\n",
           large ? ">= 1e10 FLOP" : "< 1e10 FLOP (launch-bound)", fit.n,
           pct_cell(cell, sizeof cell, fit.mape, false), fit.geo_ratio);
  }
}

static void print_text(const predictions *pr, int only, const char *params_path) {
  const scale_calib_set *set = pr->set;
  printf("step model (%s) against measurements/: %d rows in %d groups\n"
         "LOGO = leave-one-group-out: each group predicted with parameters fitted without it "
         "(the figures to quote)\n\n",
         params_path, set->n, set->n_groups);
  printf("%-6s %-22s %-18s %-26s %10s %10s %7s %10s %7s\n", "id", "group", "model", "layout",
         "measured", "predicted", "error", "LOGO pred", "LOGO");
  for (int i = 0; i < set->n; i++) {
    const scale_calib_point *p = &set->points[i];
    if (only >= 0 && p->group != only) continue;
    char layout[128];
    layout_text(&p->row, layout, sizeof layout);
    char cells[5][24];
    printf("%-6s %-22s %-18s %-26s %10s %10s %7s %10s %7s\n", p->row.id, p->row.group, p->row.model,
           layout, seconds_cell(cells[0], 24, p->measured_s),
           seconds_cell(cells[1], 24, pr->pred[i]),
           pct_cell(cells[2], 24, pr->pred[i] / p->measured_s - 1, true),
           seconds_cell(cells[3], 24, pr->logo[i]),
           pct_cell(cells[4], 24, pr->logo[i] / p->measured_s - 1, true));
  }
  printf("\n%-22s %5s %8s %8s %9s | %9s %9s %9s\n", "group", "rows", "MAPE", "max err",
         "Spearman", "LOGO MAPE", "LOGO max", "LOGO rho");
  for (int g = 0; g < set->n_groups; g++) {
    if (only >= 0 && g != only) continue;
    scale_calib_stats in, out;
    scale_calib_group_stats(set, g, pr->pred, &in);
    scale_calib_group_stats(set, g, pr->logo, &out);
    print_group_line(set->groups[g], in.n, &in, &out, true);
  }
  if (only >= 0) return;
  double m1, x1, m2, x2;
  int n1, n2;
  pooled(pr, pr->pred, NULL, &m1, &x1, &n1);
  pooled(pr, pr->logo, NULL, &m2, &x2, &n2);
  print_pooled_line("all training rows", n1, m1, x1, m2, x2);
  pooled(pr, pr->pred, megatron_ids, &m1, &x1, &n1);
  pooled(pr, pr->logo, megatron_ids, &m2, &x2, &n2);
  print_pooled_line("Megatron A1-A10,A15-16", n1, m1, x1, m2, x2);
  char mean[24];
  printf("%-22s %5d %8s %8s %9s | %9s  (LOGO refits pulled toward the priors by %g)\n",
         "mean over groups", set->n_groups, "", "", "",
         pct_cell(mean, sizeof mean, logo_group_mean(pr), false), set->prior_weight);
  printf("\nissue 14 targets (LOGO): all rows <= 10%%, Megatron A100 rows <= 5%%, hybrid "
         "Table 10 Spearman >= 0.8\n");
  print_coverage_text(pr);
  print_kernels_text(pr);
}

static void json_stats(cli_json *j, const char *prefix, const scale_calib_stats *s) {
  char key[64];
  snprintf(key, sizeof key, "%smape", prefix);
  cli_json_number(j, key, s->mape);
  snprintf(key, sizeof key, "%smax_error", prefix);
  cli_json_number(j, key, s->max_err);
  snprintf(key, sizeof key, "%sspearman", prefix);
  cli_json_number(j, key, s->spearman);
}

static void print_json(const predictions *pr, int only) {
  const scale_calib_set *set = pr->set;
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_array_begin(&j, "groups");
  for (int g = 0; g < set->n_groups; g++) {
    if (only >= 0 && g != only) continue;
    scale_calib_stats in, out;
    scale_calib_group_stats(set, g, pr->pred, &in);
    scale_calib_group_stats(set, g, pr->logo, &out);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "group", set->groups[g]);
    cli_json_number(&j, "rows", in.n);
    json_stats(&j, "", &in);
    json_stats(&j, "logo_", &out);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  if (only < 0) {
    double m, x;
    int n;
    pooled(pr, pr->logo, NULL, &m, &x, &n);
    cli_json_number(&j, "logo_mape_all", m);
    cli_json_number(&j, "logo_mape_group_mean", logo_group_mean(pr));
    cli_json_number(&j, "prior_weight", set->prior_weight);
    pooled(pr, pr->logo, megatron_ids, &m, &x, &n);
    cli_json_number(&j, "logo_mape_megatron_a100", m);
    json_coverage(&j, pr);
    json_kernels(&j, pr);
  }
  cli_json_array_begin(&j, "rows");
  for (int i = 0; i < set->n; i++) {
    const scale_calib_point *p = &set->points[i];
    if (only >= 0 && p->group != only) continue;
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "id", p->row.id);
    cli_json_string(&j, "group", p->row.group);
    cli_json_string(&j, "source", p->row.source);
    cli_json_number(&j, "measured_step_s", p->measured_s);
    cli_json_number(&j, "predicted_step_s", pr->pred[i]);
    cli_json_number(&j, "error", pr->pred[i] / p->measured_s - 1);
    cli_json_number(&j, "logo_predicted_step_s", pr->logo[i]);
    cli_json_number(&j, "logo_error", pr->logo[i] / p->measured_s - 1);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

int cli_cmd_validate(int argc, char **argv) {
  enum { OPT_GROUP = 256, OPT_JSON, OPT_PARAMS, OPT_DIR, OPT_SERVING, OPT_PRIOR };
  static const struct option options[] = {{"group", required_argument, NULL, OPT_GROUP},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"params", required_argument, NULL, OPT_PARAMS},
                                          {"measurements", required_argument, NULL, OPT_DIR},
                                          {"serving", no_argument, NULL, OPT_SERVING},
                                          {"prior-weight", required_argument, NULL, OPT_PRIOR},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  const char *group = NULL, *params_path = scale_step_params_path();
  const char *dir = scale_measurements_dir();
  bool as_json = false, serving = false;
  double prior_weight = SCALE_CALIB_PRIOR_WEIGHT;
  const char *prior_text = NULL;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_GROUP: group = optarg; break;
    case OPT_JSON: as_json = true; break;
    case OPT_PARAMS: params_path = optarg; break;
    case OPT_DIR: dir = optarg; break;
    case OPT_SERVING: serving = true; break;
    case OPT_PRIOR: prior_text = optarg; break;
    case 'h': usage(stdout); return CLI_EXIT_OK;
    default: return cli_bad_option("validate", argv);
    }
  }
  if (optind < argc) return cli_usage("validate: unexpected argument '%s'", argv[optind]);
  if (prior_text && !cli_parse_prior_weight(prior_text, &prior_weight)) return CLI_EXIT_USAGE;
  if (serving && prior_text)
    return cli_usage("validate: --prior-weight is the training fit's, not --serving's");
  if (serving) return cli_serve_validate(dir, group, as_json);

  scale_diag diag;
  scale_step_params params;
  if (scale_step_params_load_file(params_path, &params, &diag) != SCALE_OK) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  predictions pr = {NULL, NULL, NULL, &params};
  if (scale_calib_set_load(dir, &pr.set, &diag) != SCALE_OK) {
    cli_print_diag(&diag);
    return CLI_EXIT_FAIL;
  }
  pr.set->prior_weight = prior_weight;
  int only = group ? scale_calib_group_index(pr.set, group) : -1;
  int rc = CLI_EXIT_OK;
  if (group && only < 0)
    rc = cli_usage("--group: no group '%s' in %s", group, dir);
  else
    rc = predict_all(&pr, &params, only);
  if (rc == CLI_EXIT_OK) {
    if (as_json)
      print_json(&pr, only);
    else
      print_text(&pr, only, params_path);
  }
  free(pr.pred);
  free(pr.logo);
  scale_calib_set_free(pr.set);
  return rc;
}
