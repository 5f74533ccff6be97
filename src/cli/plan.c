/* plan.c — `scale plan train` and `scale plan infer`: search every parallel layout of a training
 * run, or every serving layout of a model, and rank them. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "emit.h"
#include "energy_opts.h"
#include "plan_opts.h"
#include "scale/plan.h"
#include "scale/precision.h"

enum { RECIPES_MAX = 16 }; /* --precision LIST: more than the recipe table holds */

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale plan train --model M --hw H --chips N|MIN:MAX --batch-tokens B --seq S\n"
          "                        [--objective time|cost|mfu|goodput|energy] [--top K]\n"
          "                        [--tokens T] [--failures R|NAME --restart-s S] [--pue X]\n"
          "                        [--budget-usd X] [--budget-days D] [--efficiency F]\n"
          "                        [--roofline] [--no DIMS] [--schedule LIST] [--threads N]\n"
          "                        [--precision LIST] [--usd-per-chip-hour X] [--json]\n"
          "                        [--emit megatron|nemo|torchtitan|maxtext]\n\n"
          "Searches every layout (DP, FSDP/ZeRO-1/2/3, TP with or without SP, PP with its\n"
          "schedule and microbatches, EP, CP ring/Ulysses/all-gather, remat policy (and\n"
          "block remat of the fewest layers that fits where keeping all does not), two\n"
          "mappings onto the hardware), prunes what breaks a divisibility rule or does not\n"
          "fit in HBM, and ranks the rest. --chips MIN:MAX tries MIN, 2 MIN, 4 MIN, ... up\n"
          "to MAX; with --tokens and a budget, runs over budget are dropped. --no takes a\n"
          "comma list of dims to forbid (dp,fsdp,tp,pp,ep,cp); --schedule a comma list of\n"
          "the pipeline schedules to consider (1f1b,gpipe,interleaved,zb-h1,zb-h2,zb-v,\n"
          "dualpipe; default all);\n"
          "--precision a comma list of the precision recipes to search (as scale train's\n"
          "--precision names them; default bf16), each one the chip has a peak for.\n"
          "Layouts that do not fit in HBM are pruned, not reported;\n"
          "the search fails (exit 1) only when no layout fits.\n"
          "Layouts are priced by the calibrated step model (the function scale train uses;\n"
          "--roofline: the book's ideal; --efficiency overrides the step model's matmul\n"
          "ceiling) and each comes with the scale train line that reproduces its numbers.\n"
          "Costs are at the hardware file's on-demand price of a chip-hour, or at\n"
          "--usd-per-chip-hour X, the price you pay (every plan target takes it).\n"
          "--emit F prints the best layout as framework F's options instead (README).\n"
          "--objective goodput ranks by the effective step time (step time / goodput: needs\n"
          "--failures and --restart-s), energy by joules per token (needs a chip power); at\n"
          "one chip count both rank as time does, across --chips MIN:MAX they weigh the\n"
          "larger job's interruptions and power.\n");
  fputs("\n" CLI_ENERGY_USAGE, out);
}

enum {
  OPT_CHIPS = CLI_PLAN_OPT_OWN,
  OPT_BATCH,
  OPT_SEQ,
  OPT_OBJECTIVE,
  OPT_TOP,
  OPT_TOKENS,
  OPT_BUDGET_USD,
  OPT_BUDGET_DAYS,
  OPT_EFFICIENCY,
  OPT_NO,
  OPT_SCHEDULE,
  OPT_THREADS,
  OPT_ROOFLINE,
  OPT_PRECISION,
  OPT_EMIT
};

static const struct option options[] = {CLI_PLAN_COMMON_OPTIONS,
                                        {"chips", required_argument, NULL, OPT_CHIPS},
                                        {"batch-tokens", required_argument, NULL, OPT_BATCH},
                                        {"seq", required_argument, NULL, OPT_SEQ},
                                        {"objective", required_argument, NULL, OPT_OBJECTIVE},
                                        {"top", required_argument, NULL, OPT_TOP},
                                        {"tokens", required_argument, NULL, OPT_TOKENS},
                                        {"budget-usd", required_argument, NULL, OPT_BUDGET_USD},
                                        {"budget-days", required_argument, NULL, OPT_BUDGET_DAYS},
                                        {"efficiency", required_argument, NULL, OPT_EFFICIENCY},
                                        {"no", required_argument, NULL, OPT_NO},
                                        {"schedule", required_argument, NULL, OPT_SCHEDULE},
                                        {"threads", required_argument, NULL, OPT_THREADS},
                                        {"roofline", no_argument, NULL, OPT_ROOFLINE},
                                        {"precision", required_argument, NULL, OPT_PRECISION},
                                        {"emit", required_argument, NULL, OPT_EMIT},
                                        CLI_ENERGY_OPTIONS,
                                        {NULL, 0, NULL, 0}};

typedef struct {
  cli_plan_common common; /* --model, --hw, --json, --help */
  const char *chips, *batch_text;
  const char *precision; /* --precision LIST, as given ("bf16" when absent) */
  double batch, seq, tokens, budget_usd, budget_s, efficiency;
  scale_plan_opts opts;
  bool roofline;
  cli_emit_fw emit; /* --emit: the best layout as a framework's options */
  cli_energy_opts energy; /* --failures, --pue, ... (energy_opts.h) */
} args;

/* "N" or "MIN:MAX" into lo, hi. */
static bool parse_chips(const char *text, double *lo, double *hi) {
  const char *colon = strchr(text, ':');
  unsigned flags = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;
  if (!colon) {
    if (!cli_parse_number("chips", text, flags, lo)) return false;
    *hi = *lo;
    return true;
  }
  char first[64];
  snprintf(first, sizeof first, "%.*s", (int)(colon - text), text);
  if (!cli_parse_number("chips", first, flags, lo) ||
      !cli_parse_number("chips", colon + 1, flags, hi))
    return false;
  if (*hi < *lo) {
    cli_usage("--chips %s: MAX is below MIN", text);
    return false;
  }
  return true;
}

/* Chip counts the planner searches: at most SCALE_PLAN_CHIPS_MAX, refused before any search. */
static bool chips_in_range(double lo, double hi) {
  if (lo <= SCALE_PLAN_CHIPS_MAX && hi <= SCALE_PLAN_CHIPS_MAX) return true;
  cli_usage("--chips: at most %g chips (got %g)", SCALE_PLAN_CHIPS_MAX, hi);
  return false;
}

/* --top K of both targets: a whole number up to SCALE_PLAN_TOP_MAX. */
static bool parse_top(const char *text, int *top_k) {
  double v;
  if (!cli_parse_number("top", text, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &v)) return false;
  if (v > SCALE_PLAN_TOP_MAX) {
    cli_usage("--top: at most %d", SCALE_PLAN_TOP_MAX);
    return false;
  }
  *top_k = (int)v;
  return true;
}

static bool parse_no(const char *text, scale_plan_opts *o) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int found = -1;
    for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
      if (strcmp(tok, scale_train_dim_name((scale_train_dim)d)) == 0) found = d;
    if (found < 0) {
      cli_usage("--no: unknown dimension '%s' (dp, fsdp, tp, pp, ep, cp)", tok);
      return false;
    }
    o->allow[found] = false;
  }
  return true;
}

/* --schedule LIST: only the named pipeline schedules are searched. */
static bool parse_schedules(const char *text, scale_plan_opts *o) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  for (int i = 0; i < SCALE_PP_COUNT; i++) o->allow_schedule[i] = false;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    scale_pp_schedule s;
    if (scale_pp_schedule_parse(tok, &s)) {
      cli_usage("--schedule: unknown schedule '%s' (1f1b, gpipe, interleaved, zb-h1, zb-h2, "
                "zb-v, dualpipe)",
                tok);
      return false;
    }
    o->allow_schedule[s] = true;
  }
  for (int i = 0; i < SCALE_PP_COUNT; i++)
    if (o->allow_schedule[i]) return true;
  cli_usage("--schedule: no schedule in '%s'", text);
  return false;
}

/* Takes one of plan train's own options: 0 or a usage error. */
static int take(int c, const char *arg, args *a, char **argv) {
  double v;
  switch (c) {
  case OPT_CHIPS:
    a->chips = arg;
    break;
  case OPT_BATCH:
    if (!cli_parse_number("batch-tokens", arg, SCALE_NUM_POSITIVE, &a->batch)) return 2;
    a->batch_text = arg;
    break;
  case OPT_SEQ:
    if (!cli_parse_number("seq", arg, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &a->seq))
      return 2;
    break;
  case OPT_OBJECTIVE:
    if (scale_plan_objective_parse(arg, &a->opts.objective))
      return cli_usage("--objective: '%s' is not time, cost, mfu, goodput or energy", arg);
    break;
  case OPT_TOP:
    if (!parse_top(arg, &a->opts.top_k)) return 2;
    break;
  case OPT_TOKENS:
    if (!cli_parse_number("tokens", arg, SCALE_NUM_POSITIVE, &a->tokens)) return 2;
    break;
  case OPT_BUDGET_USD:
    if (!cli_parse_number("budget-usd", arg, SCALE_NUM_POSITIVE, &a->budget_usd)) return 2;
    break;
  case OPT_BUDGET_DAYS:
    if (!cli_parse_number("budget-days", arg, SCALE_NUM_POSITIVE, &v)) return 2;
    a->budget_s = v * SCALE_SECONDS_PER_DAY;
    break;
  case OPT_EFFICIENCY:
    if (!cli_parse_number("efficiency", arg, SCALE_NUM_POSITIVE, &a->efficiency)) return 2;
    if (a->efficiency > 1) return cli_usage("--efficiency: %s is above 1", arg);
    break;
  case OPT_NO:
    if (!parse_no(arg, &a->opts)) return 2;
    break;
  case OPT_SCHEDULE:
    if (!parse_schedules(arg, &a->opts)) return 2;
    break;
  case OPT_THREADS:
    if (!cli_parse_number("threads", arg, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &v))
      return 2;
    a->opts.n_threads = v > 8 ? 8 : (int)v;
    break;
  case OPT_ROOFLINE:
    a->roofline = true;
    break;
  case OPT_PRECISION:
    a->precision = arg;
    break;
  case OPT_EMIT:
    return cli_emit_parse(arg, false, &a->emit);
  default:
    return cli_bad_option("plan train", argv);
  }
  return 0;
}

static int parse(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->opts = scale_plan_opts_default();
  a->efficiency = NAN;
  a->precision = "bf16";
  cli_energy_init(&a->energy);
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    if (cli_plan_common_take(c, optarg, &a->common)) {
      if (!a->common.help) continue;
      usage(stdout);
      return -1;
    }
    int rc = cli_energy_take(c, optarg, &a->energy);
    if (rc == 1) continue;
    if (rc) return rc;
    rc = take(c, optarg, a, argv);
    if (rc) return rc;
  }
  if ((c = cli_plan_common_check(&a->common, "plan train", argc, argv))) return c;
  if (!a->chips) return cli_usage("plan train: missing --chips");
  if (!a->batch) return cli_usage("plan train: missing --batch-tokens");
  if (!a->seq) return cli_usage("plan train: missing --seq");
  if (a->batch < a->seq)
    return cli_usage("plan train: --batch-tokens %g is shorter than one --seq %g", a->batch,
                     a->seq);
  if (a->emit && a->common.json)
    return cli_usage("plan train: --emit prints a framework's options, not JSON");
  if (a->roofline && !isnan(a->efficiency))
    return cli_usage("plan train: --efficiency overrides the step model's matmul ceiling; "
                     "--roofline is the book's ideal at peak");
  if ((a->budget_usd || a->budget_s) && !a->tokens)
    return cli_usage("plan train: a budget needs --tokens (the run's token count)");
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The scale train line that evaluates entry 'e' through the same function, with every flag
 * of its layout and mapping (numbers at 17 digits: exact). */
static char *train_command(const args *a, const scale_model *m, const scale_chip *c, double chips,
                           const scale_precision_recipe *rec, const scale_plan_entry *e,
                           char *buf, size_t size) {
  const scale_layout *l = &e->layout;
  size_t n = 0;
#define PUT(...)                                                                                   \
  do {                                                                                             \
    int k_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                              \
    if (k_ > 0) n += (size_t)k_;                                                                   \
  } while (0)
  /* the names as given: a path stays a path; the model for the layers of a stage */
  PUT("scale train --model %s --hw %s --chips %.17g --batch-tokens %.17g --seq %.17g",
      a->common.model, a->common.hw, chips, a->batch, a->seq);
  PUT(" --dp %.17g --fsdp %.17g", l->dp, l->fsdp);
  if (l->fsdp > 1) PUT(" --zero %d", l->zero_stage);
  PUT(" --tp %.17g%s --pp %.17g --microbatches %.17g", l->tp, l->sp ? " --sp" : "", l->pp,
      l->n_microbatches);
  if (l->pp > 1) {
    PUT(" --schedule %s", scale_pp_schedule_name(l->schedule));
    if (l->schedule == SCALE_PP_INTERLEAVED) PUT(" --virtual-stages %.17g", l->n_virtual_stages);
  }
  if (l->ep > 1) PUT(" --ep %.17g", l->ep);
  if (l->etp > 1) PUT(" --etp %.17g", l->etp);
  if (l->cp > 1) PUT(" --cp %.17g --cp-kind %s", l->cp, scale_cp_kind_name(l->cp_kind));
  PUT(" --remat %s", scale_train_remat_name(l->remat));
  if (l->remat_frac < 1.0)
    PUT(" --recompute-layers %.17g", scale_train_remat_layers(m, l));
  if (l->tp_overlap) PUT(" --tp-overlap");
  if (l->pp > 1 && l->pp_embed_loss) PUT(" --pp-embed-loss");
  /* the mapping where it differs from the book's default */
  scale_layout book = *l;
  scale_train_layout_map(c, chips, &book);
  if (l->pp > 1 && l->link[SCALE_TRAIN_DIM_PP] != book.link[SCALE_TRAIN_DIM_PP])
    PUT(" --pp-link dcn");
  const scale_train_dim axes_dims[] = {SCALE_TRAIN_DIM_TP, SCALE_TRAIN_DIM_FSDP,
                                       SCALE_TRAIN_DIM_DP, SCALE_TRAIN_DIM_CP};
  for (size_t i = 0; i < sizeof axes_dims / sizeof axes_dims[0]; i++) {
    scale_train_dim d = axes_dims[i];
    if (l->link[d] == SCALE_TRAIN_LINK_ICI && l->n_axes[d] != book.n_axes[d])
      PUT(" --%s-axes %.17g", scale_train_dim_name(d), l->n_axes[d]);
  }
  if (strcmp(rec->name, "bf16") != 0) PUT(" --precision %s", rec->name);
  if (a->tokens > 0) PUT(" --tokens %.17g", a->tokens);
  if (a->roofline) PUT(" --roofline");
  if (!isnan(a->efficiency)) PUT(" --efficiency %.17g", a->efficiency);
  if (a->common.priced) PUT(" --usd-per-chip-hour %.17g", a->common.price);
  if (a->common.price_name) PUT(" --price %s", a->common.price_name);
  n = cli_energy_flags(&a->energy, buf, n, size);
#undef PUT
  return buf;
}

static void json_entry(cli_json *j, const char *key, const scale_plan_entry *e,
                       const char *command) {
  const scale_layout *l = &e->layout;
  const scale_train_result *r = &e->result;
  char text[200];
  cli_json_object_begin(j, key);
  cli_json_string(j, "layout", scale_plan_layout_str(l, text, sizeof text));
  cli_json_number(j, "dp", l->dp);
  cli_json_number(j, "fsdp", l->fsdp);
  cli_json_number(j, "zero_stage", l->fsdp > 1 ? l->zero_stage : 0);
  cli_json_number(j, "tp", l->tp);
  cli_json_bool(j, "sp", l->sp);
  cli_json_number(j, "pp", l->pp);
  cli_json_string(j, "schedule", scale_pp_schedule_name(l->schedule));
  cli_json_number(j, "microbatches", l->n_microbatches);
  cli_json_number(j, "virtual_stages", l->n_virtual_stages);
  cli_json_bool(j, "pp_embed_loss", l->pp > 1 && l->pp_embed_loss);
  cli_json_number(j, "ep", l->ep);
  cli_json_number(j, "etp", l->etp >= 1 ? l->etp : 1);
  cli_json_number(j, "cp", l->cp);
  cli_json_string(j, "cp_kind", scale_cp_kind_name(l->cp_kind));
  cli_json_string(j, "remat", scale_train_remat_name(l->remat));
  cli_json_number(j, "remat_frac", l->remat_frac);
  cli_json_object_begin(j, "links");
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    cli_json_string(j, scale_train_dim_name((scale_train_dim)d), scale_train_link_name(l->link[d]));
  cli_json_object_end(j);
  cli_json_string(j, "command", command);
  cli_json_number(j, "score", e->score);
  cli_json_number(j, "step_time_s", r->step_time_s);
  cli_json_number(j, "compute_time_s", r->compute_time_s);
  cli_json_number(j, "exposed_comms_time_s", r->exposed_comms_time_s);
  cli_json_number(j, "bubble_frac", r->bubble_frac);
  cli_json_number(j, "mfu", r->mfu);
  cli_json_number(j, "tokens_per_s", r->tokens_per_s);
  cli_json_number(j, "memory_per_chip_bytes", r->memory_per_chip_bytes);
  cli_json_bool(j, "fits", r->fits);
  cli_json_string(j, "bound", scale_train_bound_name(r->bound));
  cli_json_number(j, "train_time_s", r->train_time_s);
  cli_json_number(j, "cost_usd", r->cost_usd);
  cli_json_object_end(j);
}

static void print_entry(int rank, const scale_plan_entry *e, double chips, const char *command,
                        const scale_train_problem *p) {
  char layout[200], step[32], mem[32], time[32], cost[32], bound[32], mfu[16];
  const scale_train_result *r = &e->result;
  scale_plan_layout_str(&e->layout, layout, sizeof layout);
  printf("%2d. %s\n", rank, layout);
  printf("    %.0f chips, step %s, MFU %s, %s/chip, %s-bound", chips,
         scale_format(step, sizeof step, r->step_time_s, NULL, SCALE_FMT_TIME),
         scale_format(mfu, sizeof mfu, r->mfu, NULL, SCALE_FMT_PERCENT),
         scale_format(mem, sizeof mem, r->memory_per_chip_bytes, "B", SCALE_FMT_SI),
         scale_train_bound_name(r->bound));
  if (isfinite(r->train_time_s))
    printf(", run %s", scale_format(time, sizeof time, r->train_time_s, NULL, SCALE_FMT_TIME));
  if (isfinite(r->cost_usd))
    printf(", %s", scale_format(cost, sizeof cost, r->cost_usd, "", SCALE_FMT_USD));
  if (r->step_model) { /* the book's ideal of the same layout, beside the prediction */
    scale_train_problem ideal = *p;
    ideal.step_params = NULL;
    scale_train_result b;
    scale_train_eval(&ideal, &e->layout, &b);
    printf("\n    roofline bound: step %s, MFU %s",
           scale_format(bound, sizeof bound, b.step_time_s, NULL, SCALE_FMT_TIME),
           scale_format(mfu, sizeof mfu, b.mfu, NULL, SCALE_FMT_PERCENT));
  }
  printf("\n    %s\n", command);
}

/* The search over a range of chip counts and precision recipes: the best one's report and
 * the totals. */
typedef struct {
  scale_plan_report *best, *scratch; /* the best count's ranking; the last count's */
  double best_chips;
  const scale_precision_recipe *best_recipe;
  const scale_precision_recipe *recipes[RECIPES_MAX]; /* --precision, resolved on the chip */
  int n_recipes;
  double candidates, evaluated, elapsed_s; /* over every count */
} train_search;

/* --precision LIST into s->recipes, each one the chip has matmuls for: 0 or a usage error. */
static int parse_recipes(const char *text, const scale_chip *chip, train_search *s) {
  char buf[256];
  if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
    return cli_usage("--precision: list too long");
  s->n_recipes = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (s->n_recipes == RECIPES_MAX)
      return cli_usage("--precision: more than %d recipes", RECIPES_MAX);
    int rc = cli_precision_resolve(tok, chip, &s->recipes[s->n_recipes]);
    if (rc) return rc;
    for (int i = 0; i < s->n_recipes; i++)
      if (s->recipes[i] == s->recipes[s->n_recipes])
        return cli_usage("--precision: '%s' named twice", tok);
    s->n_recipes++;
  }
  if (s->n_recipes == 0) return cli_usage("--precision: no recipe in '%s'", text);
  return 0;
}

/* The problem of 'chips' chips with its matmuls in recipe 'rec' (one copy for the search, the
 * caveats and the printed entries). */
static scale_train_problem problem_of(const args *a, const scale_model *m, const scale_chip *chip,
                                      double chips, const scale_precision_recipe *rec) {
  scale_train_problem p = scale_train_problem_make(m, chip, chips, a->batch, a->seq);
  p.train_tokens = a->tokens;
  p.compute_dtype = rec->matmul_dtype;
  return p;
}

/* Searches one chip count in one precision recipe; keeps the result if it is the best within
 * budget so far. */
static int search_one(const args *a, const scale_model *m, const scale_chip *chip,
                      const scale_step_params *params, double chips,
                      const scale_precision_recipe *rec, train_search *s) {
  scale_plan_report *best = s->best, *scratch = s->scratch;
  scale_train_problem p = problem_of(a, m, chip, chips, rec);
  p.step_params = params;
  scale_diag diag;
  double t0 = now_s();
  if (scale_plan_train(&p, &a->opts, scratch, &diag)) return cli_usage("%s", diag.message);
  s->elapsed_s += now_s() - t0;
  s->candidates += scratch->n_candidates;
  s->evaluated += scratch->n_evaluated;
  /* drop over-budget layouts, keep the order */
  int kept = 0;
  for (int i = 0; i < scratch->n_ranked; i++) {
    const scale_train_result *r = &scratch->ranked[i].result;
    if (a->budget_usd && !(r->cost_usd <= a->budget_usd)) continue;
    if (a->budget_s && !(r->train_time_s <= a->budget_s)) continue;
    scratch->ranked[kept++] = scratch->ranked[i];
  }
  scratch->n_ranked = kept;
  if (kept && (best->n_ranked == 0 || scratch->ranked[0].score < best->ranked[0].score)) {
    *best = *scratch;
    s->best_chips = chips;
    s->best_recipe = rec;
  }
  return 0;
}

/* A chip-count range can search for seconds: after each count, a line on stderr (never stdout,
 * so --json stays clean) when stderr is a terminal or the search has run over a second. */
static void progress(int n_counts, int done, double chips, double elapsed_s) {
  if (n_counts < 2 || !(isatty(STDERR_FILENO) || elapsed_s > 1.0)) return;
  char t[32];
  fprintf(stderr, "scale: plan: %.0f chips searched (%d of %d chip counts, %s)\n", chips, done,
          n_counts, scale_format(t, sizeof t, elapsed_s, NULL, SCALE_FMT_TIME));
}

/* Searches every chip count lo, 2 lo, ... hi into 's' (its reports allocated): 0, or a usage
 * error or failure reported, among them that no layout fits (within the budget). */
static int search_all(const args *a, const scale_model *model, const scale_chip *chip,
                      const scale_step_params *params, double lo, double hi, train_search *s) {
  int rc = 0, n_counts = 0, done = 0;
  for (double chips = lo; chips <= hi; chips *= 2)
    n_counts++;
  for (double chips = lo; chips <= hi && !rc; chips *= 2) {
    for (int i = 0; i < s->n_recipes && !rc; i++)
      rc = search_one(a, model, chip, params, chips, s->recipes[i], s);
    progress(n_counts, ++done, chips, s->elapsed_s);
  }
  if (!rc && s->best->n_ranked == 0)
    rc = cli_fail("no layout of %s on %s fits%s (pruned: %.0f by memory, %.0f by batch size)",
                  model->name, chip->name, a->budget_usd || a->budget_s ? " within the budget" : "",
                  s->scratch->n_pruned[SCALE_PLAN_PRUNE_MEMORY],
                  s->scratch->n_pruned[SCALE_PLAN_PRUNE_BATCH]);
  return rc;
}

/* The features of the best layout's prediction that no fitted group covers (the chosen layout
 * only, once per command: nothing of it runs in the search); none for the roofline. */
static int best_caveats(const args *a, const scale_model *model, const scale_chip *chip,
                        const train_search *s, const char **names, int max) {
  if (a->roofline) return 0;
  scale_train_problem p = problem_of(a, model, chip, s->best_chips, s->best_recipe);
  scale_step_job job;
  scale_train_step_job(&p, &s->best->ranked[0].layout, &job);
  return cli_coverage_gaps(&job, s->best_recipe->name, names, max);
}

/* The best layout's run with the energy options (energy_opts.h): false without --tokens. */
static bool best_energy(const args *a, const scale_model *model, const scale_chip *chip,
                        const train_search *s, scale_energy_run *run, scale_energy_result *r) {
  if (!(a->tokens > 0) || s->best->n_ranked == 0) return false;
  *run = cli_energy_run(&a->energy, s->best_chips, s->best->ranked[0].result.train_time_s,
                        chip->usd_per_hour, a->opts.ckpt_bytes);
  (void)model;
  scale_energy_eval(run, r);
  return true;
}

static void train_print_json(const args *a, const scale_model *model, const scale_chip *chip,
                             const train_search *s, const char *why,
                             char cmd[][1024]) {
  const scale_plan_report *best = s->best;
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_string(&j, "model", model->name);
  cli_json_string(&j, "hw", chip->name);
  cli_json_number(&j, "chips", s->best_chips);
  cli_json_string(&j, "objective", scale_plan_objective_name(a->opts.objective));
  cli_json_string(&j, "cost_model", a->roofline ? "roofline" : "step");
  cli_json_string(&j, "precision", s->best_recipe->name);
  json_entry(&j, "best", &best->ranked[0], cmd[0]);
  const char *gaps[SCALE_COVER_COUNT + 1];
  int n_gaps = best_caveats(a, model, chip, s, gaps, SCALE_COVER_COUNT + 1);
  cli_json_array_begin(&j, "uncovered_features");
  for (int i = 0; i < n_gaps; i++) cli_json_string(&j, NULL, gaps[i]);
  cli_json_array_end(&j);
  cli_json_array_begin(&j, "ranked");
  for (int i = 0; i < best->n_ranked; i++)
    json_entry(&j, NULL, &best->ranked[i], cmd[i]);
  cli_json_array_end(&j);
  cli_json_string(&j, "why", why);
  scale_energy_run run;
  scale_energy_result er;
  if (best_energy(a, model, chip, s, &run, &er)) { /* the best's energy and failures blocks */
    cli_json_object_begin(&j, "best_run");
    cli_energy_print_json(&j, &a->energy, &run, &er);
    cli_json_object_end(&j);
  }
  cli_json_number(&j, "layouts_enumerated", s->candidates);
  cli_json_number(&j, "layouts_evaluated", s->evaluated);
  cli_json_number(&j, "layouts_pruned", best->n_pruned_total);
  cli_json_object_begin(&j, "pruned_by_rule");
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    cli_json_number(&j, scale_plan_prune_name((scale_plan_prune)i), best->n_pruned[i]);
  cli_json_object_end(&j);
  /* layouts_per_s counts the layouts enumerated (what the page's planner compares with);
   * evaluated_per_s those priced, the figure plan_bench holds to its target. */
  cli_json_number(&j, "layouts_per_s", s->elapsed_s > 0 ? s->candidates / s->elapsed_s : 0);
  cli_json_number(&j, "evaluated_per_s", s->elapsed_s > 0 ? s->evaluated / s->elapsed_s : 0);
  cli_json_number(&j, "search_time_s", s->elapsed_s);
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

static void train_print_text(const args *a, const scale_model *model, const scale_chip *chip,
                             const train_search *s, const char *why, char cmd[][1024]) {
  const scale_plan_report *best = s->best;
  char n1[32], n2[32], n3[32];
  double rate = s->elapsed_s > 0 ? s->evaluated / s->elapsed_s : 0;
  printf("%s on %s, %s objective: best of %s layouts (%s evaluated, the rest pruned by "
         "rule; %s evaluated/s, %d threads)\n",
         model->display_name, chip->display_name, scale_plan_objective_name(a->opts.objective),
         scale_format(n1, sizeof n1, s->candidates, "", SCALE_FMT_SCI),
         scale_format(n2, sizeof n2, s->evaluated, "", SCALE_FMT_SCI),
         scale_format(n3, sizeof n3, rate, "", SCALE_FMT_SCI), best->n_threads_used);
  printf("model: %s\n", cli_cost_model_name(chip, a->roofline));
  if (s->n_recipes > 1 || strcmp(s->best_recipe->name, "bf16") != 0)
    printf("precision: %s (the best of the %d recipes searched)\n", s->best_recipe->name,
           s->n_recipes);
  scale_train_problem shown = problem_of(a, model, chip, s->best_chips, s->best_recipe);
  for (int i = 0; i < best->n_ranked; i++)
    print_entry(i + 1, &best->ranked[i], s->best_chips, cmd[i], &shown);
  const char *gaps[SCALE_COVER_COUNT + 1];
  cli_print_caveat(gaps, best_caveats(a, model, chip, s, gaps, SCALE_COVER_COUNT + 1));
  if (why[0]) printf("why: %s\n", why);
  scale_energy_run run;
  scale_energy_result er;
  if (a->energy.failures && best_energy(a, model, chip, s, &run, &er)) {
    char g[32], t[32];
    printf("goodput of the best: %s (%s): effective run %s\n",
           scale_format(g, sizeof g, er.goodput_frac, "", SCALE_FMT_PERCENT), a->energy.rate_from,
           scale_format(t, sizeof t, er.elapsed_s, "", SCALE_FMT_TIME));
  }
  printf("pruned:");
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    printf(" %s %s%s", scale_plan_prune_name((scale_plan_prune)i),
           scale_format(n1, sizeof n1, best->n_pruned[i], "", SCALE_FMT_SCI),
           i + 1 < SCALE_PLAN_PRUNE_COUNT ? "," : "\n");
}

/* The energy and failure options into the search's objective inputs (energy_opts.h): 0, or a
 * usage error when --objective goodput or energy lacks what it weighs. */
static int energy_inputs(args *a, const scale_model *model, const scale_chip *chip) {
  int rc = cli_energy_resolve(&a->energy, chip, "plan train");
  if (rc) return rc;
  scale_plan_opts *o = &a->opts;
  if (o->objective == SCALE_PLAN_GOODPUT && !a->energy.failures)
    return cli_usage("plan train: --objective goodput needs --failures R|NAME and --restart-s");
  if (o->objective == SCALE_PLAN_ENERGY && isnan(a->energy.chip_w))
    return cli_usage("plan train: --objective energy needs a chip's power: %s has no [power] "
                     "(--chip-w)", chip->name);
  o->fail_rate_per_chip_hour = a->energy.failures ? a->energy.rate : (double)NAN;
  scale_layout book = scale_layout_default(); /* the precision scale train reports in */
  o->ckpt_bytes = cli_energy_ckpt_bytes(model, &book.precision);
  o->ckpt_write_bytes_per_s = a->energy.ckpt_bw;
  o->restart_s = a->energy.restart_s;
  o->power_w = a->energy.chip_w + a->energy.node_w;
  o->pue = a->energy.pue;
  return 0;
}

static int plan_train(int argc, char **argv) {
  args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  double lo, hi;
  if (!parse_chips(a.chips, &lo, &hi) || !chips_in_range(lo, hi)) return CLI_EXIT_USAGE;
  scale_model model;
  scale_chip chip;
  if ((rc = cli_plan_common_load(&a.common, &model, &chip))) return rc;
  if ((rc = energy_inputs(&a, &model, &chip))) return rc;
  scale_step_params params;
  if (!a.roofline) {
    if ((rc = cli_load_step_params(&chip, &params))) return rc;
    if (!isnan(a.efficiency)) params.v[SCALE_STEP_MM_ETA_MAX] = a.efficiency;
  }
  train_search s = {0};
  if ((rc = parse_recipes(a.precision, &chip, &s))) return rc;
  s.best = calloc(1, sizeof *s.best);
  s.scratch = malloc(sizeof *s.scratch);
  if (!s.best || !s.scratch) {
    free(s.best);
    free(s.scratch);
    return cli_fail("out of memory");
  }
  cli_warn_batch_tokens(a.batch_text, a.batch, a.seq); /* usage errors are behind: one line */
  rc = search_all(&a, &model, &chip, a.roofline ? NULL : &params, lo, hi, &s);
  if (!rc) {
    char why[1024], cmd[SCALE_PLAN_TOP_MAX][1024];
    scale_plan_explain(s.best, why, sizeof why);
    for (int i = 0; i < s.best->n_ranked; i++)
      train_command(&a, &model, &chip, s.best_chips, s.best_recipe, &s.best->ranked[i], cmd[i],
                    sizeof cmd[i]);
    if (a.emit) {
      cli_emit_train_job job = {&model, &chip, s.best_chips, a.batch, a.seq,
                                &s.best->ranked[0].layout, s.best_recipe->name, cmd[0]};
      rc = cli_emit_train(stdout, a.emit, &job);
    } else if (a.common.json)
      train_print_json(&a, &model, &chip, &s, why, cmd);
    else
      train_print_text(&a, &model, &chip, &s, why, cmd);
  }
  free(s.best);
  free(s.scratch);
  return rc;
}

/* ==== scale plan infer ===================================================================== */

static void infer_usage(FILE *out) {
  fprintf(out,
          "usage: scale plan infer --model M --hw H --prompt P --output G [--latency S]\n"
          "                        [--max-chips N] [--objective throughput|cost]\n"
          "                        [--weight-dtypes LIST] [--kv-dtypes LIST] [--top K]\n"
          "                        [--usd-per-chip-hour X] [--json] [--emit vllm|sglang|trtllm]\n\n"
          "Searches slices of 1, 2, 4, ... chips (up to the pod or NVLink domain), model-parallel\n"
          "degrees, 1-D or 2-D weight-stationary MLPs, weight and KV-cache dtypes (default\n"
          "bf16,int8) and batch sizes, keeps what fits in HBM and decodes a token within\n"
          "--latency seconds, and ranks by tokens/s per chip or dollars per million tokens.\n"
          "Prints the best layouts and the latency/throughput frontier of the best slice;\n"
          "--emit F the best layout as engine F's options instead (README).\n\n"
          "With --isl/--osl and optional --ttft/--tpot SLOs (and --disagg), the search runs on\n"
          "the request-stream simulator instead (scale plan infer --isl 1 --help says more).\n");
}

static void infer_json_entry(cli_json *j, const char *key, const scale_plan_infer_entry *e) {
  const scale_infer_config *c = &e->config;
  cli_json_object_begin(j, key);
  cli_json_number(j, "chips", c->n_chips);
  cli_json_number(j, "tp", c->tp);
  cli_json_bool(j, "weight_stationary_2d", c->ffn_layout == SCALE_FFN_WS_2D);
  cli_json_string(j, "weight_dtype", scale_dtype_name(c->weight_dtype));
  cli_json_string(j, "kv_dtype", scale_dtype_name(c->kv_dtype));
  cli_json_number(j, "batch", c->batch);
  cli_json_number(j, "context_tokens", c->context);
  cli_json_number(j, "step_time_s", e->decode.step_s);
  cli_json_number(j, "tokens_per_s_per_chip", e->decode.tokens_per_s_per_chip);
  cli_json_number(j, "cost_usd_per_million_tokens", e->decode.cost_usd_per_million_tokens);
  cli_json_number(j, "ttft_s", e->prefill.ttft_s);
  cli_json_number(j, "memory_per_chip_bytes", e->memory.total_bytes_per_chip);
  cli_json_string(j, "bound", scale_infer_bound_name(e->decode.bound));
  cli_json_object_end(j);
}

static void infer_print_entry(int rank, const scale_plan_infer_entry *e) {
  const scale_infer_config *c = &e->config;
  char step[32], rate[32], ttft[32], mem[32], cost[32];
  printf("%2d. %.0f chips, tp %.0f%s, weights %s, KV %s, batch %.0f\n", rank, c->n_chips, c->tp,
         c->ffn_layout == SCALE_FFN_WS_2D ? " (2-D)" : "", scale_dtype_name(c->weight_dtype),
         scale_dtype_name(c->kv_dtype), c->batch);
  printf("    step %s, %s tokens/s/chip, TTFT %s, %s/chip, %s-bound",
         scale_format(step, sizeof step, e->decode.step_s, NULL, SCALE_FMT_TIME),
         scale_format(rate, sizeof rate, e->decode.tokens_per_s_per_chip, "", SCALE_FMT_PLAIN),
         scale_format(ttft, sizeof ttft, e->prefill.ttft_s, NULL, SCALE_FMT_TIME),
         scale_format(mem, sizeof mem, e->memory.total_bytes_per_chip, "B", SCALE_FMT_SI),
         scale_infer_bound_name(e->decode.bound));
  if (isfinite(e->decode.cost_usd_per_million_tokens))
    printf(", %s per M tokens",
           scale_format(cost, sizeof cost, e->decode.cost_usd_per_million_tokens, "",
                        SCALE_FMT_USD));
  printf("\n");
}

/* The options of the fixed-batch `scale plan infer`. */
typedef struct {
  cli_plan_common common;
  double prompt, output;  /* --prompt (-1 until given), --output (0 until given) */
  scale_plan_infer_opts o; /* the search's options */
  cli_emit_fw emit;        /* --emit: the best layout as an engine's options */
} infer_args;

enum { O_PROMPT = CLI_PLAN_OPT_OWN, O_OUTPUT, O_LATENCY, O_MAXCHIPS, O_OBJ, O_WD, O_KD, O_TOP,
       O_EMIT };
static const struct option infer_options[] = {CLI_PLAN_COMMON_OPTIONS,
                                              {"prompt", required_argument, NULL, O_PROMPT},
                                              {"output", required_argument, NULL, O_OUTPUT},
                                              {"latency", required_argument, NULL, O_LATENCY},
                                              {"max-chips", required_argument, NULL, O_MAXCHIPS},
                                              {"objective", required_argument, NULL, O_OBJ},
                                              {"weight-dtypes", required_argument, NULL, O_WD},
                                              {"kv-dtypes", required_argument, NULL, O_KD},
                                              {"top", required_argument, NULL, O_TOP},
                                              {"emit", required_argument, NULL, O_EMIT},
                                              {NULL, 0, NULL, 0}};

/* Takes one of plan infer's own options: 0 or a usage error. */
static int infer_take(int c, const char *arg, infer_args *ia, char **argv) {
  scale_plan_infer_opts *o = &ia->o;
  const unsigned whole = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;
  bool ok = true;
  switch (c) {
  case O_PROMPT:
    ok = cli_parse_number("prompt", arg, SCALE_NUM_NONNEG | SCALE_NUM_INTEGER, &ia->prompt);
    break;
  case O_OUTPUT: ok = cli_parse_number("output", arg, whole, &ia->output); break;
  case O_LATENCY: ok = cli_parse_number("latency", arg, SCALE_NUM_POSITIVE, &o->max_step_s); break;
  case O_MAXCHIPS: ok = cli_parse_number("max-chips", arg, whole, &o->max_chips); break;
  case O_OBJ:
    if (scale_plan_infer_objective_parse(arg, &o->objective))
      return cli_usage("--objective: '%s' is not throughput or cost", arg);
    break;
  case O_WD: ok = cli_plan_parse_dtype_list("weight-dtypes", arg, o->allow_weight); break;
  case O_KD: ok = cli_plan_parse_dtype_list("kv-dtypes", arg, o->allow_kv); break;
  case O_TOP: ok = parse_top(arg, &o->top_k); break;
  case O_EMIT: return cli_emit_parse(arg, true, &ia->emit);
  default: return cli_bad_option("plan infer", argv);
  }
  return ok ? 0 : 2;
}

/* Reads the command line into 'ia': 0, a usage error, or -1 after printing --help. */
static int infer_parse(int argc, char **argv, infer_args *ia) {
  memset(ia, 0, sizeof *ia);
  ia->prompt = -1;
  ia->o = scale_plan_infer_opts_default(0, 1);
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+h", infer_options, NULL)) != -1) {
    if (cli_plan_common_take(c, optarg, &ia->common)) {
      if (!ia->common.help) continue;
      infer_usage(stdout);
      return -1;
    }
    int rc = infer_take(c, optarg, ia, argv);
    if (rc) return rc;
  }
  int rc = cli_plan_common_check(&ia->common, "plan infer", argc, argv);
  if (rc) return rc;
  if (ia->emit && ia->common.json)
    return cli_usage("plan infer: --emit prints an engine's options, not JSON");
  if (ia->prompt < 0) return cli_usage("plan infer: missing --prompt (tokens per request)");
  if (ia->output <= 0) return cli_usage("plan infer: missing --output (generated tokens)");
  ia->o.prompt = ia->prompt;
  ia->o.decode_len = ia->output;
  return 0;
}

/* The latency/throughput frontier of the best slice: every batch from one per copy up. */
typedef struct {
  scale_infer_config best; /* the best layout */
  scale_infer_point points[24];
  int n_points;
} infer_frontier;

static void frontier_of(const scale_model *model, const scale_chip *chip,
                        const scale_plan_infer_report *r, infer_frontier *f) {
  f->best = r->ranked[0].config;
  double batches[24];
  f->n_points = 0;
  for (double b = f->best.n_chips / f->best.tp; f->n_points < 24 && b <= 1 << 22; b *= 2)
    batches[f->n_points++] = b;
  scale_infer_frontier(model, chip, &f->best, batches, f->n_points, f->points);
}

static void infer_print_json(const scale_model *model, const scale_chip *chip,
                             const infer_args *ia, const scale_plan_infer_report *r,
                             const infer_frontier *f) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_string(&j, "model", model->name);
  cli_json_string(&j, "hw", chip->name);
  cli_json_string(&j, "objective", scale_plan_infer_objective_name(ia->o.objective));
  infer_json_entry(&j, "best", &r->ranked[0]);
  cli_json_array_begin(&j, "ranked");
  for (int i = 0; i < r->n_ranked; i++)
    infer_json_entry(&j, NULL, &r->ranked[i]);
  cli_json_array_end(&j);
  cli_json_array_begin(&j, "frontier");
  for (int i = 0; i < f->n_points; i++) {
    const scale_infer_point *p = &f->points[i];
    cli_json_object_begin(&j, NULL);
    cli_json_number(&j, "batch", p->batch);
    cli_json_number(&j, "step_time_s", p->step_s);
    cli_json_number(&j, "tokens_per_s_per_chip", p->tokens_per_s_per_chip);
    cli_json_number(&j, "cost_usd_per_million_tokens", p->cost_usd_per_million_tokens);
    cli_json_bool(&j, "fits", p->fits);
    cli_json_object_end(&j);
  }
  cli_json_array_end(&j);
  cli_json_number(&j, "layouts_evaluated", r->n_candidates);
  cli_json_number(&j, "too_big", r->n_too_big);
  cli_json_number(&j, "too_slow", r->n_too_slow);
  cli_json_number(&j, "invalid", r->n_invalid);
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

static void infer_print_text(const scale_model *model, const scale_chip *chip,
                             const infer_args *ia, const scale_plan_infer_report *r,
                             const infer_frontier *f) {
  printf("Serving %s on %s (prompt %.0f, output %.0f tokens), %s objective: %.0f layouts, "
         "%.0f too big, %.0f too slow\n",
         model->display_name, chip->display_name, ia->prompt, ia->output,
         scale_plan_infer_objective_name(ia->o.objective), r->n_candidates, r->n_too_big,
         r->n_too_slow);
  for (int i = 0; i < r->n_ranked; i++)
    infer_print_entry(i + 1, &r->ranked[i]);
  printf("frontier of the best slice (%.0f chips, tp %.0f):\n", f->best.n_chips, f->best.tp);
  printf("  %8s %12s %16s %14s\n", "batch", "step", "tokens/s/chip", "$ / M tokens");
  for (int i = 0; i < f->n_points && f->points[i].fits; i++) {
    const scale_infer_point *p = &f->points[i];
    char step[32], rate[32], cost[32];
    printf("  %8.0f %12s %16s %14s\n", p->batch,
           scale_format(step, sizeof step, p->step_s, NULL, SCALE_FMT_TIME),
           scale_format(rate, sizeof rate, p->tokens_per_s_per_chip, "", SCALE_FMT_PLAIN),
           scale_format(cost, sizeof cost, p->cost_usd_per_million_tokens, "", SCALE_FMT_USD));
  }
}

/* --emit of the best fixed-batch layout: each copy's share of the batch as the engine's cap. */
static int infer_emit(int argc, char **argv, const scale_model *m, const scale_chip *chip,
                      const infer_args *ia, const scale_infer_config *c) {
  char line[2048];
  cli_emit_command_line(argc, argv, "plan infer", line, sizeof line);
  double per_copy = c->batch * c->tp / c->n_chips;
  cli_emit_serve_job job = {m, chip, c->n_chips, c->tp, c->ep, c->weight_dtype, c->kv_dtype,
                            per_copy, fmax(ia->prompt, per_copy), ia->prompt + ia->output, 0,
                            0.9, true, c->ffn_layout == SCALE_FFN_WS_2D, line};
  return cli_emit_serve(stdout, ia->emit, &job);
}

static int plan_infer(int argc, char **argv) {
  if (cli_plan_serve_wanted(argc, argv)) return cli_plan_serve(argc, argv);
  infer_args ia;
  int rc = infer_parse(argc, argv, &ia);
  if (rc) return rc < 0 ? 0 : rc;
  scale_model model;
  scale_chip chip;
  if ((rc = cli_plan_common_load(&ia.common, &model, &chip))) return rc;
  scale_diag diag;
  /* The KV context the search prices, checked as `scale infer` checks --context. */
  if (scale_infer_check_context(&model, "context (prompt + output/2)", ia.prompt + ia.output / 2,
                                1.0, &diag))
    return cli_usage("plan infer: %s", diag.message);
  scale_plan_infer_report *r = malloc(sizeof *r);
  if (!r) return cli_fail("out of memory");
  if (scale_plan_infer(&model, &chip, &ia.o, r, &diag)) {
    free(r);
    return cli_usage("%s", diag.message);
  }
  if (r->n_ranked == 0) {
    rc = cli_fail("no serving layout of %s on %s fits and meets the target (%.0f too big, "
                  "%.0f too slow, %.0f invalid)",
                  model.name, chip.name, r->n_too_big, r->n_too_slow, r->n_invalid);
    free(r);
    return rc;
  }
  if (ia.emit) {
    rc = infer_emit(argc, argv, &model, &chip, &ia, &r->ranked[0].config);
    free(r);
    return rc;
  }
  infer_frontier f;
  frontier_of(&model, &chip, r, &f);
  if (ia.common.json)
    infer_print_json(&model, &chip, &ia, r, &f);
  else
    infer_print_text(&model, &chip, &ia, r, &f);
  free(r);
  return 0;
}

int cli_cmd_plan(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    if (argc < 2) return cli_usage("plan: missing target (train or infer)");
    usage(stdout);
    printf("\n");
    infer_usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "train") == 0) return plan_train(argc - 1, argv + 1);
  if (strcmp(argv[1], "infer") == 0) return plan_infer(argc - 1, argv + 1);
  return cli_usage("plan: unknown target '%s' (train or infer)", argv[1]);
}
