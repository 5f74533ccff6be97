/* train.c — `scale train`: step time, MFU, memory per chip and the cost of a
 * training layout (training.h; book ch. 5-6). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
  fprintf(out, "usage: scale train --model M --hw H --chips N --batch-tokens B --seq S "
               "[options]\n\n"
               "Evaluates a parallel layout for one training step: compute, exposed "
               "communication,\n"
               "pipeline bubble, memory per chip, MFU, tokens/s, and with --tokens the "
               "run's time\n"
               "and cost; says which resource binds and why (book ch. 5-6).\n\n"
               "layout (degrees default to 1; fsdp defaults to the chips the others "
               "leave):\n"
               "  --dp X              pure data parallelism (gradients AllReduced)\n"
               "  --fsdp X            ZeRO data parallelism, stage --zero 1|2|3 "
               "(default 3)\n"
               "  --tp Y [--sp]       tensor parallelism, with sequence parallelism\n"
               "  --pp Z              pipeline stages, --microbatches m, --schedule\n"
               "                      1f1b|gpipe|interleaved|zero-bubble, "
               "--virtual-stages v\n"
               "  --ep E              expert parallelism (MoE only; divides dp x fsdp)\n"
               "  --cp C              context parallelism, --cp-kind ring|ulysses\n"
               "  --remat P           none|block|matmuls (default block)\n"
               "run:\n"
               "  --tokens T          token budget: prints the training time and dollar "
               "cost\n"
               "  --efficiency F      achievable fraction of peak FLOP/s (default 1, "
               "the roofline)\n"
               "  --json              machine output (SI base units)\n\n"
               "Degrees are mapped as the book does: tp, cp, fsdp, pp, dp fill the ICI "
               "slice (up to\n"
               "a pod) or the NVLink domain first; what does not fit goes over "
               "DCN/InfiniBand.\n\n"
               "A layout that does not fit in HBM prints the whole report (fits: no, short "
               "by ...),\n"
               "then one line on stderr, and exits 1 (as scale infer does).\n");
}

enum {
  OPT_MODEL = 256,
  OPT_HW,
  OPT_CHIPS,
  OPT_BATCH,
  OPT_SEQ,
  OPT_DP,
  OPT_FSDP,
  OPT_ZERO,
  OPT_TP,
  OPT_SP,
  OPT_PP,
  OPT_MICRO,
  OPT_SCHEDULE,
  OPT_VIRTUAL,
  OPT_EP,
  OPT_CP,
  OPT_CP_KIND,
  OPT_REMAT,
  OPT_TOKENS,
  OPT_EFFICIENCY,
  OPT_JSON,
  OPT_HELP
};

static const struct option options[] = {{"model", required_argument, NULL, OPT_MODEL},
                                        {"hw", required_argument, NULL, OPT_HW},
                                        {"chips", required_argument, NULL, OPT_CHIPS},
                                        {"batch-tokens", required_argument, NULL, OPT_BATCH},
                                        {"seq", required_argument, NULL, OPT_SEQ},
                                        {"dp", required_argument, NULL, OPT_DP},
                                        {"fsdp", required_argument, NULL, OPT_FSDP},
                                        {"zero", required_argument, NULL, OPT_ZERO},
                                        {"tp", required_argument, NULL, OPT_TP},
                                        {"sp", no_argument, NULL, OPT_SP},
                                        {"pp", required_argument, NULL, OPT_PP},
                                        {"microbatches", required_argument, NULL, OPT_MICRO},
                                        {"schedule", required_argument, NULL, OPT_SCHEDULE},
                                        {"virtual-stages", required_argument, NULL, OPT_VIRTUAL},
                                        {"ep", required_argument, NULL, OPT_EP},
                                        {"cp", required_argument, NULL, OPT_CP},
                                        {"cp-kind", required_argument, NULL, OPT_CP_KIND},
                                        {"remat", required_argument, NULL, OPT_REMAT},
                                        {"tokens", required_argument, NULL, OPT_TOKENS},
                                        {"efficiency", required_argument, NULL, OPT_EFFICIENCY},
                                        {"json", no_argument, NULL, OPT_JSON},
                                        {"help", no_argument, NULL, OPT_HELP},
                                        {NULL, 0, NULL, 0}};

static const unsigned DEGREE = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;

/* "fsdp 2240 (ici x2)" style description of one dimension into buf. */
static void describe_dim(char *buf, size_t size, const scale_layout *l, scale_train_dim d,
                         double degree) {
  if (l->link[d] == SCALE_TRAIN_LINK_ICI)
    snprintf(buf, size, "%s %.0f (ici, %.0f %s)", scale_train_dim_name(d), degree, l->n_axes[d],
             l->n_axes[d] == 1.0 ? "axis" : "axes");
  else
    snprintf(buf, size, "%s %.0f (%s)", scale_train_dim_name(d), degree,
             scale_train_link_name(l->link[d]));
}

static void print_text(const scale_train_problem *p, const scale_layout *l,
                       const scale_train_result *r) {
  char num[64], num2[64];
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  printf("%s on %.0f x %s: batch %s tokens, sequences of %.0f\n", p->model->display_name,
         p->n_chips, p->chip->display_name,
         scale_format(num, sizeof num, p->batch_tokens, "", SCALE_FMT_SI), p->seq_len);
  printf("layout:");
  bool any = false;
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    if (degree[d] <= 1.0) continue;
    char text[96];
    describe_dim(text, sizeof text, l, (scale_train_dim)d, degree[d]);
    printf("%s %s", any ? " x" : "", text);
    any = true;
  }
  if (!any) printf(" one chip");
  if (l->fsdp > 1.0) printf(", ZeRO-%d", l->zero_stage);
  if (l->tp > 1.0 && l->sp) printf(", sequence parallel");
  if (l->pp > 1.0) {
    printf(", %s with %.0f microbatches", scale_pp_schedule_name(l->schedule), l->n_microbatches);
    if (l->schedule == SCALE_PP_INTERLEAVED)
      printf(" and %.0f virtual stages", l->n_virtual_stages);
  }
  if (l->cp > 1.0) printf(", %s attention", scale_cp_kind_name(l->cp_kind));
  printf(", remat %s\n\n", scale_train_remat_name(l->remat));

  printf("step (per chip)\n");
  cli_row("tokens per chip", r->tokens_per_chip, "", SCALE_FMT_PLAIN);
  cli_row("FLOPs per chip (incl. remat)", r->flops_per_chip, "FLOP", SCALE_FMT_SCI);
  cli_row("compute", r->compute_time_s, "", SCALE_FMT_TIME);
  cli_row("comms on the busiest link", r->comms_time_s, "", SCALE_FMT_TIME);
  cli_row("exposed comms (overlapped)", r->exposed_comms_time_s, "", SCALE_FMT_TIME);
  cli_row("pipeline bubble fraction", r->bubble_frac, "", SCALE_FMT_PLAIN);
  cli_row("step time", r->step_time_s, "", SCALE_FMT_TIME);
  cli_row("step time without overlap", r->step_time_no_overlap_s, "", SCALE_FMT_TIME);
  cli_row("MFU", r->mfu, "", SCALE_FMT_PLAIN);
  cli_row("throughput", r->tokens_per_s, "tokens/s", SCALE_FMT_SI);

  bool header = false;
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    const scale_train_comm_cost *c = &r->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    if (!header) {
      printf("\ncollectives per step (per chip)\n");
      header = true;
    }
    char label[64], text[128];
    snprintf(label, sizeof label, "%s (%s)", scale_train_comm_name((scale_train_comm)i),
             scale_train_link_name(c->link));
    snprintf(text, sizeof text, "%s in %s",
             scale_format(num, sizeof num, c->step_bytes, "B", SCALE_FMT_SI),
             scale_format(num2, sizeof num2, c->step_time_s, "", SCALE_FMT_TIME));
    cli_row_text(label, text);
  }

  printf("\nmemory per chip\n");
  cli_row("weights", r->param_bytes, "B", SCALE_FMT_SI);
  cli_row("gradients", r->grad_bytes, "B", SCALE_FMT_SI);
  cli_row("optimizer state", r->optimizer_bytes, "B", SCALE_FMT_SI);
  cli_row("activations", r->activation_bytes, "B", SCALE_FMT_SI);
  if (r->gathered_weight_bytes > 0.0)
    cli_row("gathered weights (ZeRO-3)", r->gathered_weight_bytes, "B", SCALE_FMT_SI);
  if (r->cp_buffer_bytes > 0.0)
    cli_row("context-parallel buffers", r->cp_buffer_bytes, "B", SCALE_FMT_SI);
  cli_row("total", r->memory_per_chip_bytes, "B", SCALE_FMT_SI);
  cli_row("HBM", r->hbm_bytes, "B", SCALE_FMT_SI);
  cli_row_text("fits", r->fits ? "yes" : "no");
  cli_row(r->fits ? "margin" : "short by", fabs(r->memory_margin_bytes), "B", SCALE_FMT_SI);

  if (p->train_tokens > 0.0) {
    printf("\nrun of %s tokens\n",
           scale_format(num, sizeof num, p->train_tokens, "", SCALE_FMT_SI));
    cli_row("training time", r->train_time_s, "", SCALE_FMT_TIME);
    if (isfinite(r->cost_usd))
      cli_row("cost", r->cost_usd, "USD", SCALE_FMT_SI);
    else
      cli_row_text("cost", "no price in the hardware file");
  }
  printf("\nbound: %s: %s\n", scale_train_bound_name(r->bound), r->reason);
}

static void print_json(const scale_train_problem *p, const scale_layout *l,
                       const scale_train_result *r) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "model", p->model->name);
  cli_json_string(&json, "hardware", p->chip->name);
  cli_json_number(&json, "n_chips", p->n_chips);
  cli_json_number(&json, "batch_tokens", p->batch_tokens);
  cli_json_number(&json, "seq_len", p->seq_len);
  cli_json_number(&json, "efficiency_frac", p->efficiency_frac);
  cli_json_object_begin(&json, "layout");
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    cli_json_object_begin(&json, scale_train_dim_name((scale_train_dim)d));
    cli_json_number(&json, "degree", degree[d]);
    cli_json_string(&json, "link", scale_train_link_name(l->link[d]));
    cli_json_number(&json, "n_axes", l->n_axes[d]);
    cli_json_object_end(&json);
  }
  cli_json_number(&json, "zero_stage", (double)l->zero_stage);
  cli_json_bool(&json, "sp", l->sp);
  cli_json_number(&json, "n_microbatches", l->n_microbatches);
  cli_json_string(&json, "schedule", scale_pp_schedule_name(l->schedule));
  cli_json_number(&json, "n_virtual_stages", l->n_virtual_stages);
  cli_json_string(&json, "cp_kind", scale_cp_kind_name(l->cp_kind));
  cli_json_string(&json, "remat", scale_train_remat_name(l->remat));
  cli_json_object_end(&json);

  cli_json_number(&json, "tokens_per_chip", r->tokens_per_chip);
  cli_json_number(&json, "flops_per_chip", r->flops_per_chip);
  cli_json_number(&json, "remat_flops_per_chip", r->remat_flops_per_chip);
  cli_json_number(&json, "fwd_flops_per_layer", r->fwd_flops_per_layer);
  cli_json_number(&json, "bwd_flops_per_layer", r->bwd_flops_per_layer);
  cli_json_number(&json, "compute_time_s", r->compute_time_s);
  cli_json_number(&json, "comms_time_s", r->comms_time_s);
  cli_json_number(&json, "total_comms_time_s", r->total_comms_time_s);
  cli_json_number(&json, "exposed_comms_time_s", r->exposed_comms_time_s);
  cli_json_number(&json, "bubble_frac", r->bubble_frac);
  cli_json_number(&json, "bubble_time_s", r->bubble_time_s);
  cli_json_number(&json, "step_time_s", r->step_time_s);
  cli_json_number(&json, "step_time_no_overlap_s", r->step_time_no_overlap_s);
  cli_json_number(&json, "mfu", r->mfu);
  cli_json_number(&json, "tokens_per_s", r->tokens_per_s);
  cli_json_array_begin(&json, "collectives");
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    const scale_train_comm_cost *c = &r->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    cli_json_object_begin(&json, NULL);
    cli_json_string(&json, "name", scale_train_comm_name((scale_train_comm)i));
    cli_json_string(&json, "dim", scale_train_dim_name(c->dim));
    cli_json_string(&json, "link", scale_train_link_name(c->link));
    cli_json_number(&json, "bandwidth_bytes_per_s", c->bandwidth_bytes_per_s);
    cli_json_number(&json, "fwd_bytes_per_layer", c->fwd_bytes_per_layer);
    cli_json_number(&json, "bwd_bytes_per_layer", c->bwd_bytes_per_layer);
    cli_json_number(&json, "fwd_time_per_layer_s", c->fwd_time_per_layer_s);
    cli_json_number(&json, "bwd_time_per_layer_s", c->bwd_time_per_layer_s);
    cli_json_number(&json, "step_bytes", c->step_bytes);
    cli_json_number(&json, "step_time_s", c->step_time_s);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_number(&json, "param_bytes", r->param_bytes);
  cli_json_number(&json, "grad_bytes", r->grad_bytes);
  cli_json_number(&json, "optimizer_bytes", r->optimizer_bytes);
  cli_json_number(&json, "activation_bytes", r->activation_bytes);
  cli_json_number(&json, "gathered_weight_bytes", r->gathered_weight_bytes);
  cli_json_number(&json, "cp_buffer_bytes", r->cp_buffer_bytes);
  cli_json_number(&json, "memory_per_chip_bytes", r->memory_per_chip_bytes);
  cli_json_number(&json, "hbm_bytes", r->hbm_bytes);
  cli_json_number(&json, "memory_margin_bytes", r->memory_margin_bytes);
  cli_json_bool(&json, "fits", r->fits);
  if (p->train_tokens > 0.0) {
    cli_json_number(&json, "train_tokens", p->train_tokens);
    cli_json_number(&json, "train_time_s", r->train_time_s);
    cli_json_number(&json, "cost_usd", r->cost_usd);
  }
  cli_json_string(&json, "bound", scale_train_bound_name(r->bound));
  if (r->bound == SCALE_TRAIN_BOUND_COMMS)
    cli_json_string(&json, "binding_collective", scale_train_comm_name(r->binding_comm));
  cli_json_string(&json, "reason", r->reason);
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

int cli_cmd_train(int argc, char **argv) {
  const char *model_name = NULL, *hw_name = NULL;
  double chips = NAN, batch = NAN, seq = NAN, tokens = 0.0, efficiency = 1.0, zero = 3.0;
  double dp = 1.0, fsdp = NAN, tp = 1.0, pp = 1.0, micro = NAN, virt = 1.0, ep = 1.0, cp = 1.0;
  bool sp = false, as_json = false;
  scale_layout layout = scale_layout_default();
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    bool ok = true;
    switch (c) {
    case OPT_MODEL:
      model_name = optarg;
      break;
    case OPT_HW:
      hw_name = optarg;
      break;
    case OPT_CHIPS:
      ok = cli_parse_number("chips", optarg, DEGREE, &chips);
      break;
    case OPT_BATCH:
      ok = cli_parse_number("batch-tokens", optarg, SCALE_NUM_POSITIVE, &batch);
      break;
    case OPT_SEQ:
      ok = cli_parse_number("seq", optarg, DEGREE, &seq);
      break;
    case OPT_DP:
      ok = cli_parse_number("dp", optarg, DEGREE, &dp);
      break;
    case OPT_FSDP:
      ok = cli_parse_number("fsdp", optarg, DEGREE, &fsdp);
      break;
    case OPT_ZERO:
      ok = cli_parse_number("zero", optarg, DEGREE, &zero);
      if (ok && zero > 3.0) return cli_usage("--zero: stage %s must be 1, 2 or 3", optarg);
      break;
    case OPT_TP:
      ok = cli_parse_number("tp", optarg, DEGREE, &tp);
      break;
    case OPT_SP:
      sp = true;
      break;
    case OPT_PP:
      ok = cli_parse_number("pp", optarg, DEGREE, &pp);
      break;
    case OPT_MICRO:
      ok = cli_parse_number("microbatches", optarg, DEGREE, &micro);
      break;
    case OPT_SCHEDULE:
      if (scale_pp_schedule_parse(optarg, &layout.schedule))
        return cli_usage("--schedule: unknown schedule '%s' (1f1b, gpipe, interleaved, "
                         "zero-bubble)",
                         optarg);
      break;
    case OPT_VIRTUAL:
      ok = cli_parse_number("virtual-stages", optarg, DEGREE, &virt);
      break;
    case OPT_EP:
      ok = cli_parse_number("ep", optarg, DEGREE, &ep);
      break;
    case OPT_CP:
      ok = cli_parse_number("cp", optarg, DEGREE, &cp);
      break;
    case OPT_CP_KIND:
      if (scale_cp_kind_parse(optarg, &layout.cp_kind))
        return cli_usage("--cp-kind: unknown kind '%s' (ring, ulysses)", optarg);
      break;
    case OPT_REMAT:
      if (scale_train_remat_parse(optarg, &layout.remat))
        return cli_usage("--remat: unknown policy '%s' (none, block, matmuls)", optarg);
      break;
    case OPT_TOKENS:
      ok = cli_parse_number("tokens", optarg, SCALE_NUM_NONNEG, &tokens);
      break;
    case OPT_EFFICIENCY:
      ok = cli_parse_number("efficiency", optarg, SCALE_NUM_POSITIVE, &efficiency);
      if (ok && efficiency > 1.0) return cli_usage("--efficiency: %s must be in (0, 1]", optarg);
      break;
    case OPT_JSON:
      as_json = true;
      break;
    case OPT_HELP:
      usage(stdout);
      return CLI_EXIT_OK;
    default:
      return cli_bad_option("train", argv);
    }
    if (!ok) return CLI_EXIT_USAGE;
  }
  if (optind < argc) return cli_usage("train: unexpected argument '%s'", argv[optind]);
  if (!model_name) return cli_usage("train: missing --model (try: scale model list)");
  if (!hw_name) return cli_usage("train: missing --hw (try: scale hw list)");
  if (isnan(chips)) return cli_usage("train: missing --chips");
  if (isnan(batch)) return cli_usage("train: missing --batch-tokens");
  if (isnan(seq)) return cli_usage("train: missing --seq");

  scale_model model;
  scale_chip chip;
  int rc;
  if ((rc = cli_load_model(model_name, &model)) || (rc = cli_load_chip(hw_name, &chip))) return rc;

  if (isnan(fsdp)) {
    double rest = chips / (dp * tp * pp * cp);
    if (rest < 1.0 || rest != floor(rest))
      return cli_usage("train: dp x tp x pp x cp = %g does not divide the %g chips",
                       dp * tp * pp * cp, chips);
    fsdp = rest;
  }
  layout.dp = dp;
  layout.fsdp = fsdp;
  layout.zero_stage = (int)zero;
  layout.tp = tp;
  layout.sp = sp;
  layout.pp = pp;
  layout.n_microbatches = isnan(micro) ? pp : micro;
  layout.n_virtual_stages = virt;
  layout.ep = ep;
  layout.cp = cp;
  scale_train_layout_map(&chip, chips, &layout);

  scale_train_problem problem = scale_train_problem_make(&model, &chip, chips, batch, seq);
  problem.efficiency_frac = efficiency;
  problem.train_tokens = tokens;
  scale_diag diag;
  if (scale_train_validate(&problem, &layout, &diag)) return cli_usage("train: %s", diag.message);

  scale_train_result result;
  scale_train_eval(&problem, &layout, &result);
  if (!isfinite(result.step_time_s) || !isfinite(result.memory_per_chip_bytes))
    return cli_fail("train: %s (chips %g, batch %g tokens, seq %g)", result.reason, chips, batch,
                    seq);
  if (as_json)
    print_json(&problem, &layout, &result);
  else
    print_text(&problem, &layout, &result);
  /* Does not fit: the whole report, then one line and exit 1, as `scale infer` does. */
  if (!result.fits)
    return cli_fail("train: the layout does not fit in HBM (%.3g of %.3g bytes per chip)",
                    result.memory_per_chip_bytes, result.hbm_bytes);
  return CLI_EXIT_OK;
}
