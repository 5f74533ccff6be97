/* plan_serve.c — `scale plan infer --isl N --osl N [--ttft S] [--tpot S] [--disagg]`: the serving
 * planner on the request-stream simulator (include/scale/serveplan.h). The fixed-batch planner of
 * plan.c answers when none of these options is given.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "emit.h"
#include "plan_opts.h"
#include "scale/serveplan.h"

bool cli_plan_serve_wanted(int argc, char **argv) {
  static const char *const opts[] = {"--isl",  "--osl",    "--ttft", "--tpot",
                                     "--disagg", "--dtypes", "--rate"};
  for (int i = 1; i < argc; i++)
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
      if (strncmp(argv[i], opts[k], strlen(opts[k])) == 0) return true;
  return false;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale plan infer --model M --hw H --isl N --osl N [--ttft S] [--tpot S]\n"
          "                        [--max-chips N] [--dtypes LIST] [--disagg] [--requests R]\n"
          "                        [--seed K] [--top K] [--usd-per-chip-hour X] [--json]\n\n"
          "Serving on the request-stream simulator with the calibrated step cost: tries slices\n"
          "of 1, 2, 4, ... chips (one tensor-parallel copy each), weights and KV cache in each\n"
          "dtype of LIST (default bf16,fp8,int8,int4) and batch caps 16, 64, 256, 1024, and ranks "
          "them\n"
          "by the cost per million output tokens at the SLO: the largest Poisson rate a copy\n"
          "sustains with p90 TTFT <= --ttft and p90 TPOT <= --tpot (a bisection on the rate, each\n"
          "probe a seeded simulation of --requests requests). Without an SLO, the offline\n"
          "maximum. --disagg also tries disaggregated prefill and decode pools (0.25-4 prefill\n"
          "copies per decode copy) and compares the best of each. When no layout meets the SLO,\n"
          "it says so and names the closest layout (exit 0: an answer, not an error).\n"
          "--rate R sizes a fleet: each layout replicated into the fewest units that serve R\n"
          "requests/s within the SLO, ranked by the fleet's price per hour; when no layout\n"
          "meets the SLO it names the closest and what it misses, and exits 1. Each candidate\n"
          "comes with the `scale infer` line that simulates it (--top N bounds the JSON too).\n"
          "--emit vllm|sglang|trtllm prints the best layout as that engine's options instead.\n");
}

static void entry_layout(const scale_serve_plan_entry *e, char *buf, size_t size) {
  if (e->replicas > 0.0) { /* a fleet: its replicas of the unit */
    int n = snprintf(buf, size, "%g x ", e->replicas);
    if (n < 0 || (size_t)n >= size) return;
    buf += n;
    size -= (size_t)n;
  }
  if (e->disagg)
    snprintf(buf, size, "%g x TP%g %s, batch %g, disagg %g:1", e->chips, e->tp,
             scale_dtype_name(e->dtype), e->max_batch, e->prefill_copies);
  else
    snprintf(buf, size, "%g x TP%g %s, batch %g", e->chips, e->tp, scale_dtype_name(e->dtype),
             e->max_batch);
}

/* Appends " --NAME N" or " --NAME MIN:MAX" of 'len' to buf. */
static void put_len(char *buf, size_t size, const char *name, const scale_serve_lengths *len) {
  size_t n = strlen(buf);
  if (len->max_tokens > len->min_tokens)
    snprintf(buf + n, size - n, " --%s %g:%g", name, len->min_tokens, len->max_tokens);
  else
    snprintf(buf + n, size - n, " --%s %g", name, len->min_tokens);
}

/* The `scale infer` line that simulates entry 'e' as the planner did: its copies, dtypes,
 * engine, lengths, requests, seed and rate (offline without an SLO), and the planner's
 * per-phase MLP layouts (--ffn auto). Disaggregated: prefill and decode copies as whole
 * numbers in the entry's ratio. */
static void infer_line(char *buf, size_t size, const scale_model *m, const scale_chip *chip,
                       const scale_serve_plan_opts *o, const scale_serve_plan_entry *e,
                       const cli_plan_common *c) {
  (void)m; /* the model and hardware as given (c): a path stays a path */
  (void)chip;
  double pre = 1.0, dec = 1.0;
  if (e->disagg && e->prefill_copies >= 1.0) pre = e->prefill_copies;
  if (e->disagg && e->prefill_copies < 1.0) dec = 1.0 / e->prefill_copies;
  double reps = e->replicas > 0.0 ? e->replicas : 1.0;
  pre *= reps;
  dec *= reps;
  double chips = e->disagg ? e->tp * (pre + dec) : e->tp * reps;
  snprintf(buf, size,
           "scale infer --model %s --hw %s --chips %g --tp %g --weights %s --kv %s --compute %s "
           "--ffn auto --max-batch %g --step-tokens %g --block %g --kv-frac %g",
           c->model, c->hw, chips, e->tp, scale_dtype_name(e->dtype),
           scale_dtype_name(e->dtype), scale_dtype_name(e->compute_dtype), e->max_batch,
           e->step_tokens, e->block_tokens, e->kv_frac);
  put_len(buf, size, "isl", &o->isl);
  put_len(buf, size, "osl", &o->osl);
  size_t n = strlen(buf);
  if (e->disagg) snprintf(buf + n, size - n, " --disagg %g:%g", pre, dec);
  n = strlen(buf);
  double units = chips / e->chips; /* the line's serving units */
  if (o->fleet_rate_per_s > 0.0)
    snprintf(buf + n, size - n, " --rate %.6g --requests %g --seed %llu", o->fleet_rate_per_s,
             o->n_requests, (unsigned long long)o->seed);
  else if (isfinite(e->rate_per_s))
    snprintf(buf + n, size - n, " --rate %.6g --requests %g --seed %llu",
             e->rate_per_s * units, o->n_requests, (unsigned long long)o->seed);
  else
    snprintf(buf + n, size - n, " --offline --requests %g --seed %llu", o->n_requests,
             (unsigned long long)o->seed);
  n = strlen(buf);
  if (c->priced) n += (size_t)snprintf(buf + n, size - n, " --usd-per-chip-hour %.17g", c->price);
  if (c->price_name && n < size) snprintf(buf + n, size - n, " --price %s", c->price_name);
}

static void print_entry(int rank, const scale_serve_plan_entry *e) {
  char lay[96], rate[32], tok[32], ttft[32], tpot[32], usd[32];
  entry_layout(e, lay, sizeof lay);
  if (isfinite(e->rate_per_s))
    snprintf(rate, sizeof rate, "%.3g", e->rate_per_s);
  else
    snprintf(rate, sizeof rate, "offline");
  printf("%3d  %-36s %8s %11s %9s %9s %-8s %s\n", rank, lay, rate,
         scale_format(tok, sizeof tok, e->tokens_per_s, "", SCALE_FMT_SI),
         scale_format(ttft, sizeof ttft, e->ttft_p90_s, "", SCALE_FMT_TIME),
         scale_format(tpot, sizeof tpot, e->tpot_p90_s, "", SCALE_FMT_TIME),
         scale_serve_bind_name(e->bind),
         scale_format(usd, sizeof usd, e->usd_per_million_tokens, "", SCALE_FMT_USD));
}

static void json_entry(cli_json *j, const char *key, const scale_model *m, const scale_chip *chip,
                       const scale_serve_plan_opts *o, const scale_serve_plan_entry *e,
                       const cli_plan_common *c) {
  char line[768];
  infer_line(line, sizeof line, m, chip, o, e, c);
  cli_json_object_begin(j, key);
  cli_json_number(j, "chips", e->chips);
  cli_json_number(j, "tp", e->tp);
  cli_json_string(j, "dtype", scale_dtype_name(e->dtype));
  cli_json_string(j, "compute_dtype", scale_dtype_name(e->compute_dtype));
  cli_json_number(j, "max_batch", e->max_batch);
  cli_json_bool(j, "disaggregated", e->disagg);
  cli_json_number(j, "prefill_copies_per_decode_copy", e->disagg ? e->prefill_copies : 0.0);
  cli_json_bool(j, "meets_slo", e->feasible);
  cli_json_number(j, "slo_excess", e->excess);
  cli_json_number(j, "rate_per_s", isfinite(e->rate_per_s) ? e->rate_per_s : -1.0);
  cli_json_number(j, "tokens_per_s", e->tokens_per_s);
  cli_json_number(j, "ttft_p90_s", e->ttft_p90_s);
  cli_json_number(j, "tpot_p90_s", e->tpot_p90_s);
  cli_json_number(j, "steady_batch", e->steady_batch);
  cli_json_string(j, "bound", scale_serve_bind_name(e->bind));
  cli_json_number(j, "cost_usd_per_million_tokens", e->usd_per_million_tokens);
  cli_json_string(j, "prefill_ffn_layout", scale_ffn_layout_name(e->prefill_layout));
  cli_json_string(j, "decode_ffn_layout", scale_ffn_layout_name(e->decode_layout));
  if (o->fleet_rate_per_s > 0.0) {
    cli_json_number(j, "replicas", e->replicas);
    cli_json_number(j, "fleet_chips", e->fleet_chips);
    cli_json_number(j, "fleet_usd_per_hour", e->fleet_usd_per_hour);
  }
  cli_json_string(j, "infer_command", line);
  cli_json_object_end(j);
}

static void print_json(const scale_model *m, const scale_chip *chip, const scale_serve_plan_opts *o,
                       const scale_serve_plan_report *r, int top, const cli_plan_common *c) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_object_begin(&j, NULL);
  cli_json_string(&j, "model", m->name);
  cli_json_string(&j, "hardware", chip->name);
  cli_json_string(&j, "cost_model", r->fitted ? "calibrated" : "calibrated-priors");
  cli_json_number(&j, "candidates", r->n_candidates);
  cli_json_number(&j, "too_big", r->n_too_big);
  cli_json_bool(&j, "slo_met", r->met);
  if (r->met) {
    cli_json_array_begin(&j, "ranked");
    for (int i = 0; i < r->n_ranked && i < top; i++)
      json_entry(&j, NULL, m, chip, o, &r->ranked[i], c);
    cli_json_array_end(&j);
    if (r->has_aggregated) json_entry(&j, "best_aggregated", m, chip, o, &r->best_aggregated, c);
    if (r->has_disaggregated)
      json_entry(&j, "best_disaggregated", m, chip, o, &r->best_disaggregated, c);
  } else if (isfinite(r->closest.excess)) {
    json_entry(&j, "closest", m, chip, o, &r->closest, c);
  }
  cli_json_object_end(&j);
  cli_json_finish(&j);
}

static void print_slo(const char *what, double slo) {
  char t[32];
  if (isfinite(slo))
    printf(", p90 %s <= %s", what, scale_format(t, sizeof t, slo, "", SCALE_FMT_TIME));
}

static void print_text(const scale_model *m, const scale_chip *chip, const scale_serve_plan_opts *o,
                       const scale_serve_plan_report *r, int top, const cli_plan_common *c) {
  printf("%s on %s: requests of %g", m->display_name, chip->display_name, o->isl.min_tokens);
  if (o->isl.max_tokens > o->isl.min_tokens) printf(":%g", o->isl.max_tokens);
  printf(" + %g", o->osl.min_tokens);
  if (o->osl.max_tokens > o->osl.min_tokens) printf(":%g", o->osl.max_tokens);
  printf(" tokens");
  print_slo("TTFT", o->ttft_slo_s);
  print_slo("TPOT", o->tpot_slo_s);
  printf("\nstep cost: calibrated (%s); %d layouts tried, %d do not fit\n",
         r->fitted ? "the chip's [serve] fit" : "priors: this chip has no [serve] fit",
         r->n_candidates, r->n_too_big);
  if (!r->met) {
    if (!isfinite(r->closest.excess)) {
      printf("no layout fits in HBM on up to %g chips\n", o->max_chips);
      return;
    }
    char lay[96], a[32], b[32];
    entry_layout(&r->closest, lay, sizeof lay);
    printf("the SLO cannot be met by any layout, even at a vanishing rate; closest: %s, p90 "
           "TTFT %s, p90 TPOT %s (%.2fx the SLO)\n",
           lay, scale_format(a, sizeof a, r->closest.ttft_p90_s, "", SCALE_FMT_TIME),
           scale_format(b, sizeof b, r->closest.tpot_p90_s, "", SCALE_FMT_TIME), r->closest.excess);
    return;
  }
  printf("\nrank layout (chips x TP dtype, batch cap)   req/s/unit  tokens/s  TTFT p90  TPOT p90 "
         "bound    cost per M tokens\n");
  for (int i = 0; i < r->n_ranked && i < top; i++)
    print_entry(i + 1, &r->ranked[i]);
  const scale_serve_plan_entry *best = &r->ranked[0];
  if (o->fleet_rate_per_s > 0.0) {
    char usd[32];
    printf("\nfleet for %g requests/s: %g x (%g chips) = %g chips, %s/h\n", o->fleet_rate_per_s,
           best->replicas, best->chips, best->fleet_chips,
           scale_format(usd, sizeof usd, best->fleet_usd_per_hour, "", SCALE_FMT_USD));
  }
  char line[768];
  infer_line(line, sizeof line, m, chip, o, best, c);
  printf("\nMLP layout of the best: prefill %s, decode %s\nreproduce it: %s\n",
         scale_ffn_layout_name(best->prefill_layout), scale_ffn_layout_name(best->decode_layout),
         line);
  if (o->disagg && r->has_aggregated && r->has_disaggregated) {
    const scale_serve_plan_entry *a = &r->best_aggregated, *d = &r->best_disaggregated;
    printf("\naggregated vs disaggregated (best of each): %.3g vs %.3g output tokens/s per chip; "
           "disaggregated costs %.2fx\n",
           a->tokens_per_s / a->chips, d->tokens_per_s / d->chips,
           d->usd_per_million_tokens / a->usd_per_million_tokens);
  } else if (o->disagg) {
    printf("\n%s\n", r->has_disaggregated ? "no aggregated layout meets the SLO"
                                          : "no disaggregated layout meets the SLO");
  }
}

/* Parses "N" or "MIN:MAX" token lengths. */
static bool parse_len(const char *opt, const char *text, scale_serve_lengths *out) {
  const unsigned count = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text);
  char *colon = strchr(buf, ':');
  if (colon) *colon = '\0';
  if (!cli_parse_number(opt, buf, count, &out->min_tokens)) return false;
  out->max_tokens = out->min_tokens;
  if (colon && !cli_parse_number(opt, colon + 1, count, &out->max_tokens)) return false;
  if (out->max_tokens < out->min_tokens) {
    cli_usage("--%s: MIN:MAX needs MIN <= MAX, got '%s'", opt, text);
    return false;
  }
  return true;
}

enum {
  O_ISL = CLI_PLAN_OPT_OWN,
  O_OSL,
  O_TTFT,
  O_TPOT,
  O_MAXCHIPS,
  O_DTYPES,
  O_DISAGG,
  O_REQUESTS,
  O_SEED,
  O_TOP,
  O_RATE,
  O_EMIT
};
static const struct option options[] = {CLI_PLAN_COMMON_OPTIONS,
                                        {"isl", required_argument, NULL, O_ISL},
                                        {"osl", required_argument, NULL, O_OSL},
                                        {"ttft", required_argument, NULL, O_TTFT},
                                        {"tpot", required_argument, NULL, O_TPOT},
                                        {"max-chips", required_argument, NULL, O_MAXCHIPS},
                                        {"dtypes", required_argument, NULL, O_DTYPES},
                                        {"disagg", no_argument, NULL, O_DISAGG},
                                        {"requests", required_argument, NULL, O_REQUESTS},
                                        {"seed", required_argument, NULL, O_SEED},
                                        {"top", required_argument, NULL, O_TOP},
                                        {"rate", required_argument, NULL, O_RATE},
                                        {"emit", required_argument, NULL, O_EMIT},
                                        {NULL, 0, NULL, 0}};

/* The options of the request-stream planner. */
typedef struct {
  cli_plan_common common;
  scale_serve_plan_opts o; /* the search's options */
  double top, seed;        /* --top (10), --seed (1) */
  cli_emit_fw emit;        /* --emit: the best layout as an engine's options */
} serve_args;

/* Takes one of the stream planner's own options: 0 or a usage error. */
static int take(int c, const char *arg, serve_args *a, char **argv) {
  scale_serve_plan_opts *o = &a->o;
  const unsigned count = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;
  bool ok = true;
  switch (c) {
  case O_ISL: ok = parse_len("isl", arg, &o->isl); break;
  case O_OSL: ok = parse_len("osl", arg, &o->osl); break;
  case O_TTFT: ok = cli_parse_number("ttft", arg, SCALE_NUM_POSITIVE, &o->ttft_slo_s); break;
  case O_TPOT: ok = cli_parse_number("tpot", arg, SCALE_NUM_POSITIVE, &o->tpot_slo_s); break;
  case O_MAXCHIPS:
    if (!cli_parse_number("max-chips", arg, count, &o->max_chips)) return CLI_EXIT_USAGE;
    if (o->max_chips > 4096) return cli_usage("--max-chips: at most 4096, got %s", arg);
    break;
  case O_DTYPES: ok = cli_plan_parse_dtype_list("dtypes", arg, o->allow_dtype); break;
  case O_DISAGG: o->disagg = true; break;
  case O_REQUESTS:
    if (!cli_parse_number("requests", arg, count, &o->n_requests)) return CLI_EXIT_USAGE;
    if (o->n_requests < 10 || o->n_requests > 1e5)
      return cli_usage("--requests: between 10 and 1e5, got %s", arg);
    break;
  case O_SEED:
    ok = cli_parse_number("seed", arg, SCALE_NUM_NONNEG | SCALE_NUM_INTEGER, &a->seed);
    break;
  case O_TOP: ok = cli_parse_number("top", arg, count, &a->top); break;
  case O_RATE: ok = cli_parse_number("rate", arg, SCALE_NUM_POSITIVE, &o->fleet_rate_per_s); break;
  case O_EMIT: return cli_emit_parse(arg, true, &a->emit);
  default: return cli_bad_option("plan infer", argv);
  }
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Reads the command line into 'a': 0, a usage error, or -1 after printing --help. */
static int parse(int argc, char **argv, serve_args *a) {
  memset(a, 0, sizeof *a);
  a->o = scale_serve_plan_opts_default();
  a->top = 10;
  a->seed = 1;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    if (cli_plan_common_take(c, optarg, &a->common)) {
      if (!a->common.help) continue;
      usage(stdout);
      return -1;
    }
    int rc = take(c, optarg, a, argv);
    if (rc) return rc;
  }
  int rc = cli_plan_common_check(&a->common, "plan infer", argc, argv);
  if (rc) return rc;
  if (a->emit && a->common.json)
    return cli_usage("plan infer: --emit prints an engine's options, not JSON");
  a->o.seed = (uint64_t)a->seed;
  return CLI_EXIT_OK;
}

/* --emit: the best aggregated layout (all its replicas) as an engine's options. */
static int emit_best(const scale_model *m, const scale_chip *chip, const serve_args *a,
                     const scale_serve_plan_report *r) {
  if (!r->met) return cli_fail("plan infer: no layout meets the SLO: nothing emitted");
  const scale_serve_plan_entry *e = &r->ranked[0];
  if (e->disagg) {
    if (!r->has_aggregated)
      return cli_fail("plan infer: the best layouts are disaggregated: --emit writes one "
                      "aggregated engine");
    e = &r->best_aggregated;
  }
  char line[768];
  infer_line(line, sizeof line, m, chip, &a->o, e, &a->common);
  double reps = e->replicas > 0.0 ? e->replicas : 1.0;
  cli_emit_serve_job job = {m, chip, e->chips * reps, e->tp, 1.0, e->dtype, e->dtype,
                            e->max_batch, fmax(e->step_tokens, e->max_batch),
                            a->o.isl.max_tokens + a->o.osl.max_tokens, e->block_tokens,
                            e->kv_frac, true, false, line};
  return cli_emit_serve(stdout, a->emit, &job);
}

int cli_plan_serve(int argc, char **argv) {
  serve_args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  scale_model model;
  scale_chip chip;
  if ((rc = cli_plan_common_load(&a.common, &model, &chip))) return rc;
  scale_serve_plan_report r;
  scale_diag diag;
  if (scale_serve_plan(&model, &chip, &a.o, &r, &diag)) {
    const char *why = diag.message; /* the library's "plan: " prefix, once is enough */
    return cli_usage("plan infer: %s", strncmp(why, "plan: ", 6) ? why : why + 6);
  }
  if (a.emit) return emit_best(&model, &chip, &a, &r);
  if (a.common.json)
    print_json(&model, &chip, &a.o, &r, (int)a.top, &a.common);
  else
    print_text(&model, &chip, &a.o, &r, (int)a.top, &a.common);
  if (a.o.fleet_rate_per_s > 0.0 && !r.met) /* a fleet was asked for and none serves it */
    return cli_fail("plan infer: no fleet serves %g requests/s within the SLO: even one request "
                    "at a time, the closest layout has p90 TTFT %.3g s, p90 TPOT %.3g s (%.2fx "
                    "the SLO)",
                    a.o.fleet_rate_per_s, r.closest.ttft_p90_s, r.closest.tpot_p90_s,
                    r.closest.excess);
  return CLI_EXIT_OK;
}
