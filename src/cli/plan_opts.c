/* plan_opts.c — the options the planner's targets share (plan_opts.h). */
#include "plan_opts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

bool cli_plan_common_take(int c, const char *arg, cli_plan_common *o) {
  switch (c) {
  case CLI_PLAN_OPT_MODEL:
    o->model = arg;
    return true;
  case CLI_PLAN_OPT_HW:
    o->hw = arg;
    return true;
  case CLI_PLAN_OPT_JSON:
    o->json = true;
    return true;
  case CLI_PLAN_OPT_HELP:
    o->help = true;
    return true;
  case CLI_PLAN_OPT_PRICE:
    o->priced = true;
    o->bad_price = cli_parse_price(arg, &o->price) != CLI_EXIT_OK;
    return true;
  case CLI_PLAN_OPT_PRICE_NAME:
    o->price_name = arg;
    return true;
  default:
    return false;
  }
}

int cli_plan_common_check(const cli_plan_common *o, const char *cmd, int argc, char **argv) {
  if (o->bad_price) return CLI_EXIT_USAGE; /* its one line already printed */
  if (optind < argc) return cli_usage("%s: unexpected argument '%s'", cmd, argv[optind]);
  if (!o->model) return cli_usage("%s: missing --model (try: scale model list)", cmd);
  if (!o->hw) return cli_usage("%s: missing --hw (try: scale hw list)", cmd);
  return 0;
}

int cli_plan_common_load(const cli_plan_common *o, scale_model *model, scale_chip *chip) {
  int rc = cli_load_model(o->model, model);
  if (!rc) rc = cli_load_chip(o->hw, chip);
  if (!rc) rc = cli_apply_price(chip, o->priced ? o->price : (double)NAN, o->price_name, NULL);
  return rc;
}

bool cli_plan_parse_dtype_list(const char *opt, const char *text, bool allow[SCALE_DTYPE_COUNT]) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  for (int i = 0; i < SCALE_DTYPE_COUNT; i++)
    allow[i] = false;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    scale_dtype d;
    if (!cli_parse_dtype(opt, tok, &d)) return false;
    allow[d] = true;
  }
  return true;
}
