/* train.c — `scale train`: step time, MFU, memory per chip and the cost of a
 * training layout (training.h; book ch. 5-6). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "emit.h"
#include "energy_opts.h"
#include "scale/precision.h"

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
               "  --pp Z              pipeline stages, --microbatches m (fewer than pp\n"
               "                      allowed), --schedule 1f1b|gpipe|interleaved|zb-h1|\n"
               "                      zb-h2|zb-v|dualpipe (zero-bubble: zb-h1),\n"
               "                      --virtual-stages v, --pp-embed-loss (the embedding\n"
               "                      and loss count as a layer each in the split)\n"
               "  --ep E              expert parallelism (MoE only; divides dp x fsdp x tp x cp:\n"
               "                      expert TP 1, so EP may span the TP ranks)\n"
               "  --etp T             expert tensor parallelism (divides tp; default 1)\n"
               "  --capacity-factor C MoE experts padded (C > 1) or tokens dropped (C < 1) to C\n"
               "                      x the balanced share (default: dropless, balanced)\n"
               "  --cp C              context parallelism, --cp-kind ring|ulysses|allgather\n"
               "  --remat P           none|block|matmuls|selective (default block)\n"
               "  --recompute R       none|selective|full, as practice names them (the same\n"
               "                      as --remat none|selective|block)\n"
               "  --recompute-layers N  block remat of N layers of each pipeline stage, the\n"
               "                      rest keeping everything (Megatron's block method)\n"
               "  --recompute-every K   block remat of every K-th layer (torchtitan's\n"
               "                      selective layer checkpointing)\n"
               "  --tp-overlap        comm-GEMM overlap of the TP collectives\n"
               "  --attn A            attention core: flash (default: one fused kernel) or\n"
               "                      unfused (scores in HBM, softmax and dropout kernels, the\n"
               "                      full s x s product; Megatron 2021, Megatron-DeepSpeed)\n"
               "mapping (default: the book's, below):\n"
               "  --tp-axes N, --fsdp-axes N, --dp-axes N, --cp-axes N\n"
               "                      TPU torus axes a dimension spans (its ICI bandwidth)\n"
               "  --pp-link dcn       push the pipeline outermost, onto DCN/InfiniBand\n"
               "run:\n"
               "  --tokens T          token budget: prints the training time and dollar "
               "cost\n"
               "  --usd-per-chip-hour X  the price of a chip-hour you pay (a reservation, spot,\n"
               "                      a provider's rate) instead of the hardware file's\n"
               "                      on-demand one\n"
               "  --price P:O         a row of hardware/prices.tsv by provider and offer\n"
               "                      (google-cloud:committed-3y; scale hw prices CHIP)\n");
  fprintf(out,
               "  --roofline          the book's ideal instead of the calibrated step model: "
               "peak\n"
               "                      FLOP/s and bandwidth, perfect overlap\n"
               "  --efficiency F      override the step model's matmul ceiling (its fitted "
               "best\n"
               "                      fraction of peak); communication keeps its measured "
               "price\n"
               "  --trace FILE        the predicted step's timeline: Chrome trace-event JSON\n"
               "                      (Perfetto), or a timeline chart if FILE ends in .svg\n"
               "  --json              machine output (SI base units)\n"
               "  --precision NAME    bf16 (default), fp16, fp8, fp8-rowwise, fp8-blockwise,\n"
               "                      mxfp8, nvfp4: the matmul format and its casts\n"
               "  --emit F            print the layout as framework F's options instead of the\n"
               "                      report: megatron, nemo, torchtitan or maxtext (README)\n\n"
               "Predictions come from the calibrated step model (scale validate shows its "
               "error\n"
               "against published runs), printed beside the roofline bound. A \"caveat:\" "
               "line names\nthe features of the layout no fitted group runs (scale validate "
               "lists what the fit\ncovers): those parts are priced by priors alone.\n"
               "Degrees are mapped as the book does: tp, cp, fsdp, pp, dp fill the ICI "
               "slice (up to\n"
               "a pod) or the NVLink domain first; what does not fit goes over "
               "DCN/InfiniBand.\n"
               "scale plan train prints, for every layout, the scale train line that "
               "reproduces it.\n\n"
               "A layout that does not fit in HBM prints the whole report (fits: no, short "
               "by ...),\n"
               "then one line on stderr, and exits 1 (as scale infer does).\n");
  fputs("\n" CLI_ENERGY_USAGE, out);
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
  OPT_ETP,
  OPT_CAPACITY,
  OPT_CP,
  OPT_CP_KIND,
  OPT_REMAT,
  OPT_RECOMPUTE,
  OPT_RECOMPUTE_LAYERS,
  OPT_RECOMPUTE_EVERY,
  OPT_TOKENS,
  OPT_EFFICIENCY,
  OPT_JSON,
  OPT_ROOFLINE,
  OPT_TP_OVERLAP,
  OPT_TP_AXES,
  OPT_FSDP_AXES,
  OPT_DP_AXES,
  OPT_CP_AXES,
  OPT_PP_LINK,
  OPT_PP_EMBED_LOSS,
  OPT_PRECISION,
  OPT_ATTN,
  OPT_PRICE,
  OPT_PRICE_NAME,
  OPT_TRACE,
  OPT_EMIT,
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
                                        {"etp", required_argument, NULL, OPT_ETP},
                                        {"capacity-factor", required_argument, NULL, OPT_CAPACITY},
                                        {"cp", required_argument, NULL, OPT_CP},
                                        {"cp-kind", required_argument, NULL, OPT_CP_KIND},
                                        {"remat", required_argument, NULL, OPT_REMAT},
                                        {"recompute", required_argument, NULL, OPT_RECOMPUTE},
                                        {"recompute-layers", required_argument, NULL,
                                         OPT_RECOMPUTE_LAYERS},
                                        {"recompute-every", required_argument, NULL,
                                         OPT_RECOMPUTE_EVERY},
                                        {"tokens", required_argument, NULL, OPT_TOKENS},
                                        {"efficiency", required_argument, NULL, OPT_EFFICIENCY},
                                        {"json", no_argument, NULL, OPT_JSON},
                                        {"roofline", no_argument, NULL, OPT_ROOFLINE},
                                        {"tp-overlap", no_argument, NULL, OPT_TP_OVERLAP},
                                        {"attn", required_argument, NULL, OPT_ATTN},
                                        {"usd-per-chip-hour", required_argument, NULL, OPT_PRICE},
                                        {"price", required_argument, NULL, OPT_PRICE_NAME},
                                        {"trace", required_argument, NULL, OPT_TRACE},
                                        {"tp-axes", required_argument, NULL, OPT_TP_AXES},
                                        {"fsdp-axes", required_argument, NULL, OPT_FSDP_AXES},
                                        {"dp-axes", required_argument, NULL, OPT_DP_AXES},
                                        {"cp-axes", required_argument, NULL, OPT_CP_AXES},
                                        {"pp-link", required_argument, NULL, OPT_PP_LINK},
                                        {"pp-embed-loss", no_argument, NULL, OPT_PP_EMBED_LOSS},
                                        {"precision", required_argument, NULL, OPT_PRECISION},
                                        {"emit", required_argument, NULL, OPT_EMIT},
                                        {"help", no_argument, NULL, OPT_HELP},
                                        CLI_ENERGY_OPTIONS,
                                        {NULL, 0, NULL, 0}};

static const unsigned DEGREE = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;

/* A link in the report's own words: a TPU's ici and dcn, a GPU's scale-up and scale-out (the
 * JSON keeps scale_train_link_name's stable names). */
static const char *link_words(scale_train_link link, const scale_layout *l) {
  if (link == SCALE_TRAIN_LINK_NVLINK) return "scale-up";
  if (link == SCALE_TRAIN_LINK_DCN && !scale_layout_on_torus(l)) return "scale-out";
  return scale_train_link_name(link);
}

/* "fsdp 2240 (ici x2)" style description of one dimension into buf. */
static void describe_dim(char *buf, size_t size, const scale_layout *l, scale_train_dim d,
                         double degree) {
  if (l->link[d] == SCALE_TRAIN_LINK_ICI)
    snprintf(buf, size, "%s %.0f (ici, %.0f %s)", scale_train_dim_name(d), degree, l->n_axes[d],
             l->n_axes[d] == 1.0 ? "axis" : "axes");
  else
    snprintf(buf, size, "%s %.0f (%s)", scale_train_dim_name(d), degree,
             link_words(l->link[d], l));
}

/* A row of two times: the prediction and the roofline bound. */
static void two_rows(const char *label, double predicted, double bound) {
  char a[64], b[64];
  printf("  %-34s %-14s %s\n", label, scale_format(a, sizeof a, predicted, "", SCALE_FMT_TIME),
         scale_format(b, sizeof b, bound, "", SCALE_FMT_TIME));
}

/* The text report's head: the problem and its layout. */
static void print_layout_text(const scale_train_problem *p, const scale_layout *l) {
  char num[64];
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
  if (l->unfused_attention) printf(", unfused attention");
  if (l->pp > 1.0) {
    printf(", %s with %.0f microbatches", scale_pp_schedule_name(l->schedule), l->n_microbatches);
    if (l->schedule == SCALE_PP_INTERLEAVED)
      printf(" and %.0f virtual stages", l->n_virtual_stages);
    if (l->pp_embed_loss) printf(", embedding and loss as stages");
  }
  if (l->cp > 1.0) printf(", %s attention", scale_cp_kind_name(l->cp_kind));
  printf(", remat %s", scale_train_remat_name(l->remat));
  if (l->remat_frac < 1.0) printf(" of %.3g%% of the layers", 100.0 * l->remat_frac);
  printf("\n\n");
}

/* The step model's operations and communication over the step. */
static void print_step_parts_text(const scale_step_result *st, const scale_layout *l) {
  char num[64], num2[64];
  printf("\noperations over the step (step model)\n");
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++)
    if (st->op_s[i] > 0.0)
      cli_row(scale_step_op_name((scale_step_op)i), st->op_s[i], "", SCALE_FMT_TIME);
  bool header = false;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    if (!(st->comm_s[k] > 0.0)) continue;
    if (!header) printf("\ncommunication over the step (step model): time, exposed, rule\n");
    header = true;
    char label[64], text[200];
    snprintf(label, sizeof label, "%s (%s)", scale_step_comm_name((scale_step_comm)k),
             scale_step_net_name(st->net[k]));
    snprintf(text, sizeof text, "%s, exposed %s: %s",
             scale_format(num, sizeof num, st->comm_s[k], "", SCALE_FMT_TIME),
             scale_format(num2, sizeof num2, st->exposed_s[k], "", SCALE_FMT_TIME),
             scale_step_comm_rule((scale_step_comm)k, l->tp_overlap));
    cli_row_text(label, text);
  }
}

/* The step by the step model, beside the roofline bound 'ideal'. */
static void print_step_text(const scale_layout *l, const scale_train_result *r,
                            const scale_train_result *ideal) {
  char num[64], num2[64];
  const scale_step_result *st = &r->step;
  printf("step (per chip)                      %-14s %s\n", "predicted", "roofline bound");
  two_rows("compute (every op)", r->compute_time_s, ideal->compute_time_s);
  two_rows("exposed communication", r->exposed_comms_time_s, ideal->exposed_comms_time_s);
  two_rows("pipeline bubble", r->bubble_time_s, ideal->bubble_time_s);
  two_rows("fixed per-step overhead", st->overhead_s, 0.0);
  /* a floor, not a term: a CP step on a host-blocking mesh lasts at least this (step.h) */
  if (st->host_s > 0) two_rows("host floor (step >= it, CP)", st->host_s, 0.0);
  /* a term after the floor: the mesh framework's latency per added Mamba-2 stage */
  if (st->stage_s > 0) two_rows("Mamba-2 stage latency (PP)", st->stage_s, 0.0);
  two_rows("step time", r->step_time_s, ideal->step_time_s);
  printf("  %-34s %-14s %s\n", "MFU", scale_format(num, sizeof num, r->mfu, "", SCALE_FMT_PERCENT),
         scale_format(num2, sizeof num2, ideal->mfu, "", SCALE_FMT_PERCENT));
  printf("  %-34s %-14s %s\n", "throughput [tokens/s]",
         scale_format(num, sizeof num, r->tokens_per_s, "", SCALE_FMT_SI),
         scale_format(num2, sizeof num2, ideal->tokens_per_s, "", SCALE_FMT_SI));
  cli_row("microbatches per pipeline", st->microbatches, "", SCALE_FMT_PLAIN);
  cli_row("pipeline bubble fraction", r->bubble_frac, "", SCALE_FMT_PERCENT);
  print_step_parts_text(st, l);
}

/* The step by the book's roofline, with its collectives. */
static void print_roofline_text(const scale_layout *l, const scale_train_result *r) {
  char num[64], num2[64];
  printf("step (per chip)\n");
  cli_row("tokens per chip", r->tokens_per_chip, "", SCALE_FMT_PLAIN);
  cli_row("FLOPs per chip (incl. remat)", r->flops_per_chip, "FLOP", SCALE_FMT_SCI);
  cli_row("compute", r->compute_time_s, "", SCALE_FMT_TIME);
  cli_row("comms on the busiest link", r->comms_time_s, "", SCALE_FMT_TIME);
  cli_row("exposed comms (overlapped)", r->exposed_comms_time_s, "", SCALE_FMT_TIME);
  cli_row("pipeline bubble fraction", r->bubble_frac, "", SCALE_FMT_PERCENT);
  cli_row("step time", r->step_time_s, "", SCALE_FMT_TIME);
  cli_row("step time without overlap", r->step_time_no_overlap_s, "", SCALE_FMT_TIME);
  cli_row("MFU", r->mfu, "", SCALE_FMT_PERCENT);
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
             link_words(c->link, l));
    snprintf(text, sizeof text, "%s in %s",
             scale_format(num, sizeof num, c->step_bytes, "B", SCALE_FMT_SI),
             scale_format(num2, sizeof num2, c->step_time_s, "", SCALE_FMT_TIME));
    cli_row_text(label, text);
  }
}

/* What binds, with the step's shares, so the word agrees with the numbers beside it. */
static void print_bound_text(const scale_train_result *r) {
  double step = r->step_model ? r->step.step_s : r->step_time_s;
  double ops = r->step_model ? r->step.compute_s + r->step.optimizer_s : r->compute_time_s;
  double bubble = r->step_model ? r->step.bubble_s : r->bubble_time_s;
  printf("\nbound: %s", scale_train_bound_name(r->bound));
  if (r->bound != SCALE_TRAIN_BOUND_MEMORY && step > 0.0 && isfinite(step))
    printf(" at %.3g%% MFU (ops %.0f%% of the step, exposed communication %.0f%%, bubble %.0f%%)",
           100.0 * r->mfu, 100.0 * ops / step, 100.0 * r->exposed_comms_time_s / step,
           100.0 * bubble / step);
  printf(": %s\n", r->reason);
}

/* Memory per chip, the run's time and cost, and what binds. */
static void print_memory_run_text(const scale_train_problem *p, const scale_train_result *r,
                                  const scale_train_result *ideal, const char *price_from) {
  char num[64];
  printf("\nmemory per chip\n");
  cli_row("weights", r->param_bytes, "B", SCALE_FMT_SI);
  cli_row("gradients", r->grad_bytes, "B", SCALE_FMT_SI);
  cli_row("optimizer state", r->optimizer_bytes, "B", SCALE_FMT_SI);
  cli_row("activations", r->activation_bytes, "B", SCALE_FMT_SI);
  if (r->gathered_weight_bytes > 0.0)
    cli_row("gathered weights (ZeRO-3)", r->gathered_weight_bytes, "B", SCALE_FMT_SI);
  if (r->cp_buffer_bytes > 0.0)
    cli_row("context-parallel buffers", r->cp_buffer_bytes, "B", SCALE_FMT_SI);
  if (r->overhead_bytes > 0.0)
    cli_row("framework overhead", r->overhead_bytes, "B", SCALE_FMT_SI);
  cli_row("total", r->memory_per_chip_bytes, "B", SCALE_FMT_SI);
  cli_row("HBM", r->hbm_bytes, "B", SCALE_FMT_SI);
  cli_row_text("fits", r->fits ? "yes" : "no");
  cli_row(r->fits ? "margin" : "short by", fabs(r->memory_margin_bytes), "B", SCALE_FMT_SI);

  if (p->train_tokens > 0.0) {
    printf("\nrun of %s tokens (%s)\n",
           scale_format(num, sizeof num, p->train_tokens, "", SCALE_FMT_SI),
           r->step_model ? "step model" : "roofline");
    cli_row("training time", r->train_time_s, "", SCALE_FMT_TIME);
    if (r->step_model)
      cli_row("training time at the roofline", ideal->train_time_s, "", SCALE_FMT_TIME);
    if (isfinite(r->cost_usd)) {
      cli_row("cost", r->cost_usd, "", SCALE_FMT_USD);
      printf("  (%s a chip-hour: %s)\n",
             scale_format(num, sizeof num, p->chip->usd_per_hour, "", SCALE_FMT_USD), price_from);
    } else
      cli_row_text("cost", "no price in the hardware file");
  }
  print_bound_text(r);
}

/* The precision line of a recipe other than bf16 (bf16 reports stay as they were). */
static void print_precision_text(const scale_precision_recipe *rec) {
  if (strcmp(rec->name, "bf16") == 0) return;
  printf("precision: %s (matmuls in %s; kept in bf16: %s)%s\n", rec->name,
         scale_dtype_name(rec->matmul_dtype), rec->bf16_ops,
         rec->assumed ? " [some recipe constants assumed, not measured]" : "");
}

/* The features of this step-model prediction no fitted group covers (none for the roofline,
 * which no fit is behind), into names[]; their count. */
static int caveats(const scale_train_problem *p, const scale_layout *l,
                   const scale_train_result *r, const scale_precision_recipe *rec,
                   const char **names, int max) {
  if (!r->step_model) return 0;
  scale_step_job job;
  scale_train_step_job(p, l, &job);
  return cli_coverage_gaps(&job, rec->name, names, max);
}

static void print_text(const scale_train_problem *p, const scale_layout *l,
                       const scale_train_result *r, const scale_train_result *ideal,
                       const scale_precision_recipe *rec, const char *price_from) {
  print_layout_text(p, l);
  print_precision_text(rec);
  printf("model: %s\n", cli_cost_model_name(p->chip, !r->step_model));
  const char *assumes[16];
  int n = scale_train_assumptions(p, l, r, assumes, 16);
  for (int i = 0; i < n; i++) printf("assumes: %s\n", assumes[i]);
  const char *gaps[SCALE_COVER_COUNT + 1];
  cli_print_caveat(gaps, caveats(p, l, r, rec, gaps, SCALE_COVER_COUNT + 1));
  printf("\n");
  if (r->step_model)
    print_step_text(l, r, ideal);
  else
    print_roofline_text(l, r);
  print_memory_run_text(p, r, ideal, price_from);
}

static void json_layout(cli_json *json, const scale_layout *l) {
  cli_json_object_begin(json, "layout");
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, l->ep, l->cp};
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    cli_json_object_begin(json, scale_train_dim_name((scale_train_dim)d));
    cli_json_number(json, "degree", degree[d]);
    cli_json_string(json, "link", scale_train_link_name(l->link[d]));
    cli_json_number(json, "n_axes", l->n_axes[d]);
    cli_json_object_end(json);
  }
  cli_json_number(json, "zero_stage", (double)l->zero_stage);
  cli_json_bool(json, "sp", l->sp);
  cli_json_number(json, "n_microbatches", l->n_microbatches);
  cli_json_string(json, "schedule", scale_pp_schedule_name(l->schedule));
  cli_json_bool(json, "pp_embed_loss", l->pp_embed_loss);
  cli_json_number(json, "n_virtual_stages", l->n_virtual_stages);
  cli_json_string(json, "cp_kind", scale_cp_kind_name(l->cp_kind));
  cli_json_string(json, "remat", scale_train_remat_name(l->remat));
  cli_json_number(json, "remat_frac", l->remat_frac);
  cli_json_bool(json, "tp_overlap", l->tp_overlap);
  cli_json_string(json, "attention", l->unfused_attention ? "unfused" : "flash");
  cli_json_object_end(json);
}

/* The step model's overhead, floors, operations and communication. */
static void json_step(cli_json *json, const scale_step_result *st, const scale_layout *l) {
  cli_json_number(json, "overhead_s", st->overhead_s);
  cli_json_number(json, "host_floor_s", st->host_s);
  cli_json_number(json, "stage_latency_s", st->stage_s);
  cli_json_object_begin(json, "ops_s");
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++)
    cli_json_number(json, scale_step_op_name((scale_step_op)i), st->op_s[i]);
  cli_json_object_end(json);
  cli_json_array_begin(json, "communication");
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    if (!(st->comm_s[k] > 0.0)) continue;
    cli_json_object_begin(json, NULL);
    cli_json_string(json, "name", scale_step_comm_name((scale_step_comm)k));
    cli_json_string(json, "network", scale_step_net_name(st->net[k]));
    cli_json_number(json, "time_s", st->comm_s[k]);
    cli_json_number(json, "exposed_s", st->exposed_s[k]);
    cli_json_string(json, "rule", scale_step_comm_rule((scale_step_comm)k, l->tp_overlap));
    cli_json_object_end(json);
  }
  cli_json_array_end(json);
}

/* The roofline's collectives (present with either cost model). */
static void json_collectives(cli_json *json, const scale_train_result *r) {
  cli_json_array_begin(json, "collectives");
  for (int i = 0; i < SCALE_TRAIN_COMM_COUNT; i++) {
    const scale_train_comm_cost *c = &r->comm[i];
    if (!(c->step_bytes > 0.0)) continue;
    cli_json_object_begin(json, NULL);
    cli_json_string(json, "name", scale_train_comm_name((scale_train_comm)i));
    cli_json_string(json, "dim", scale_train_dim_name(c->dim));
    cli_json_string(json, "link", scale_train_link_name(c->link));
    cli_json_number(json, "bandwidth_bytes_per_s", c->bandwidth_bytes_per_s);
    cli_json_number(json, "fwd_bytes_per_layer", c->fwd_bytes_per_layer);
    cli_json_number(json, "bwd_bytes_per_layer", c->bwd_bytes_per_layer);
    cli_json_number(json, "fwd_time_per_layer_s", c->fwd_time_per_layer_s);
    cli_json_number(json, "bwd_time_per_layer_s", c->bwd_time_per_layer_s);
    cli_json_number(json, "step_bytes", c->step_bytes);
    cli_json_number(json, "step_time_s", c->step_time_s);
    cli_json_object_end(json);
  }
  cli_json_array_end(json);
}

/* Memory per chip, the run, and what binds. */
static void json_memory_run(cli_json *json, const scale_train_problem *p,
                            const scale_train_result *r, const char *price_from) {
  cli_json_number(json, "param_bytes", r->param_bytes);
  cli_json_number(json, "grad_bytes", r->grad_bytes);
  cli_json_number(json, "optimizer_bytes", r->optimizer_bytes);
  cli_json_number(json, "activation_bytes", r->activation_bytes);
  cli_json_number(json, "gathered_weight_bytes", r->gathered_weight_bytes);
  cli_json_number(json, "cp_buffer_bytes", r->cp_buffer_bytes);
  cli_json_number(json, "overhead_bytes", r->overhead_bytes);
  cli_json_number(json, "memory_per_chip_bytes", r->memory_per_chip_bytes);
  cli_json_number(json, "hbm_bytes", r->hbm_bytes);
  cli_json_number(json, "memory_margin_bytes", r->memory_margin_bytes);
  cli_json_bool(json, "fits", r->fits);
  if (p->train_tokens > 0.0) {
    cli_json_number(json, "train_tokens", p->train_tokens);
    cli_json_number(json, "train_time_s", r->train_time_s);
    cli_json_number(json, "cost_usd", r->cost_usd);
    cli_json_number(json, "usd_per_chip_hour", p->chip->usd_per_hour);
    cli_json_string(json, "price_from", price_from);
  }
  cli_json_string(json, "bound", scale_train_bound_name(r->bound));
  if (r->bound == SCALE_TRAIN_BOUND_COMMS && !r->step_model)
    cli_json_string(json, "binding_collective", scale_train_comm_name(r->binding_comm));
  int worst = r->step_model ? scale_step_worst_exposed(&r->step) : -1;
  if (r->bound == SCALE_TRAIN_BOUND_COMMS && worst >= 0)
    cli_json_string(json, "binding_collective", scale_step_comm_name((scale_step_comm)worst));
  cli_json_string(json, "reason", r->reason);
}

/* The run's energy and failures (with --tokens; energy_opts.h). */
typedef struct {
  const cli_energy_opts *opts;
  scale_energy_run run;
  scale_energy_result result;
} train_energy;

static void print_json(const scale_train_problem *p, const scale_layout *l,
                       const scale_train_result *r, const scale_train_result *ideal,
                       const scale_precision_recipe *rec, const char *price_from,
                       const train_energy *en) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "model", p->model->name);
  cli_json_string(&json, "hardware", p->chip->name);
  cli_json_number(&json, "n_chips", p->n_chips);
  cli_json_number(&json, "batch_tokens", p->batch_tokens);
  cli_json_number(&json, "seq_len", p->seq_len);
  cli_json_string(&json, "precision", rec->name);
  cli_json_string(&json, "cost_model", r->step_model ? "step" : "roofline");
  const char *assumes[16];
  int n_assumes = scale_train_assumptions(p, l, r, assumes, 16);
  cli_json_array_begin(&json, "assumes");
  for (int i = 0; i < n_assumes; i++) cli_json_string(&json, NULL, assumes[i]);
  cli_json_array_end(&json);
  const char *gaps[SCALE_COVER_COUNT + 1];
  int n_gaps = caveats(p, l, r, rec, gaps, SCALE_COVER_COUNT + 1);
  cli_json_array_begin(&json, "uncovered_features");
  for (int i = 0; i < n_gaps; i++) cli_json_string(&json, NULL, gaps[i]);
  cli_json_array_end(&json);
  if (!r->step_model) cli_json_number(&json, "efficiency_frac", p->efficiency_frac);
  json_layout(&json, l);

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
  cli_json_number(&json, "roofline_step_time_s", ideal->step_time_s);
  cli_json_number(&json, "roofline_mfu", ideal->mfu);
  if (r->step_model) json_step(&json, &r->step, l);
  json_collectives(&json, r);
  json_memory_run(&json, p, r, price_from);
  if (en) cli_energy_print_json(&json, en->opts, &en->run, &en->result);
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

/* ---- the command line --------------------------------------------------------------------- */

/* The options of `scale train`. */
typedef struct {
  const char *model, *hw; /* --model, --hw (NULL until given) */
  const char *batch_text; /* --batch-tokens as written, for cli_warn_batch_tokens */
  double chips, batch, seq; /* NaN until given */
  double tokens;            /* --tokens: the run's length, 0: none */
  double price;             /* --usd-per-chip-hour, NaN: the hardware file's */
  const char *price_name;   /* --price PROVIDER:OFFER, NULL: none */
  const char *trace;        /* --trace FILE: the step's timeline, NULL: none */
  double efficiency;        /* --efficiency: the matmul ceiling, NaN: the step model's */
  double zero;              /* --zero: the ZeRO stage (3) */
  double axes[SCALE_TRAIN_DIM_COUNT]; /* --*-axes: torus axes per dimension, NaN: mapped */
  double dp, fsdp, tp, pp, micro, virt, ep, cp; /* degrees; fsdp and micro NaN: derived */
  double etp, capacity; /* expert TP (0: 1) and capacity factor (0: dropless) */
  bool roofline, tp_overlap, pp_dcn, sp, json;
  const char *precision; /* --precision: the recipe's name ("bf16") */
  bool help;           /* --help: usage printed, exit 0 */
  cli_emit_fw emit;    /* --emit: the framework whose options to print (NONE: the report) */
  scale_layout layout; /* --schedule, --cp-kind, --remat and --recompute; the rest after */
  double recompute_layers; /* --recompute-layers N (NaN: not given) */
  double recompute_every;  /* --recompute-every K (NaN: not given) */
  cli_energy_opts energy; /* --pue, --failures, ... (energy_opts.h) */
} train_opts;

enum { NOT_MINE = -1 }; /* a take_* function's answer for another group's option */

/* Takes an option of the problem or the output: 0, a usage error, or NOT_MINE. */
static int take_problem(int c, const char *arg, train_opts *o) {
  bool ok = true;
  switch (c) {
  case OPT_MODEL: o->model = arg; break;
  case OPT_HW: o->hw = arg; break;
  case OPT_CHIPS: ok = cli_parse_number("chips", arg, DEGREE, &o->chips); break;
  case OPT_BATCH:
    ok = cli_parse_number("batch-tokens", arg, SCALE_NUM_POSITIVE, &o->batch);
    o->batch_text = arg;
    break;
  case OPT_SEQ: ok = cli_parse_number("seq", arg, DEGREE, &o->seq); break;
  case OPT_TOKENS: ok = cli_parse_number("tokens", arg, SCALE_NUM_NONNEG, &o->tokens); break;
  case OPT_PRICE: ok = !cli_parse_price(arg, &o->price); break;
  case OPT_PRICE_NAME: o->price_name = arg; break;
  case OPT_TRACE: o->trace = arg; break;
  case OPT_EFFICIENCY:
    ok = cli_parse_number("efficiency", arg, SCALE_NUM_POSITIVE, &o->efficiency);
    if (ok && o->efficiency > 1.0) return cli_usage("--efficiency: %s must be in (0, 1]", arg);
    break;
  case OPT_JSON: o->json = true; break;
  case OPT_PRECISION: o->precision = arg; break;
  case OPT_ROOFLINE: o->roofline = true; break;
  case OPT_EMIT: return cli_emit_parse(arg, false, &o->emit);
  default: return NOT_MINE;
  }
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Takes a parallelism degree or a torus mapping: 0, a usage error, or NOT_MINE. */
static int take_degree(int c, const char *arg, train_opts *o) {
  bool ok = true;
  switch (c) {
  case OPT_DP: ok = cli_parse_number("dp", arg, DEGREE, &o->dp); break;
  case OPT_FSDP: ok = cli_parse_number("fsdp", arg, DEGREE, &o->fsdp); break;
  case OPT_TP: ok = cli_parse_number("tp", arg, DEGREE, &o->tp); break;
  case OPT_PP: ok = cli_parse_number("pp", arg, DEGREE, &o->pp); break;
  case OPT_MICRO: ok = cli_parse_number("microbatches", arg, DEGREE, &o->micro); break;
  case OPT_VIRTUAL: ok = cli_parse_number("virtual-stages", arg, DEGREE, &o->virt); break;
  case OPT_EP: ok = cli_parse_number("ep", arg, DEGREE, &o->ep); break;
  case OPT_ETP: ok = cli_parse_number("etp", arg, DEGREE, &o->etp); break;
  case OPT_CAPACITY:
    ok = cli_parse_number("capacity-factor", arg, SCALE_NUM_POSITIVE, &o->capacity);
    break;
  case OPT_CP: ok = cli_parse_number("cp", arg, DEGREE, &o->cp); break;
  case OPT_TP_AXES:
    ok = cli_parse_number("tp-axes", arg, DEGREE, &o->axes[SCALE_TRAIN_DIM_TP]);
    break;
  case OPT_FSDP_AXES:
    ok = cli_parse_number("fsdp-axes", arg, DEGREE, &o->axes[SCALE_TRAIN_DIM_FSDP]);
    break;
  case OPT_DP_AXES:
    ok = cli_parse_number("dp-axes", arg, DEGREE, &o->axes[SCALE_TRAIN_DIM_DP]);
    break;
  case OPT_CP_AXES:
    ok = cli_parse_number("cp-axes", arg, DEGREE, &o->axes[SCALE_TRAIN_DIM_CP]);
    break;
  case OPT_PP_LINK:
    if (strcmp(arg, "dcn") != 0)
      return cli_usage("--pp-link: '%s' is not dcn (the book's mapping is the default)", arg);
    o->pp_dcn = true;
    break;
  default: return NOT_MINE;
  }
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Takes a named choice of the layout (ZeRO, SP, schedule, CP kind, remat, overlap): 0, a usage
 * error, or NOT_MINE. */
static int take_choice(int c, const char *arg, train_opts *o) {
  scale_layout *l = &o->layout;
  scale_recompute rc;
  switch (c) {
  case OPT_ZERO:
    if (!cli_parse_number("zero", arg, DEGREE, &o->zero)) return CLI_EXIT_USAGE;
    if (o->zero > 3.0) return cli_usage("--zero: stage %s must be 1, 2 or 3", arg);
    break;
  case OPT_SP: o->sp = true; break;
  case OPT_TP_OVERLAP: o->tp_overlap = true; break;
  case OPT_ATTN:
    if (strcmp(arg, "flash") != 0 && strcmp(arg, "unfused") != 0)
      return cli_usage("--attn: expected flash or unfused, got '%s'", arg);
    l->unfused_attention = strcmp(arg, "unfused") == 0;
    break;
  case OPT_SCHEDULE:
    if (scale_pp_schedule_parse(arg, &l->schedule))
      return cli_usage("--schedule: unknown schedule '%s' (1f1b, gpipe, interleaved, zb-h1, "
                       "zb-h2, zb-v, dualpipe)",
                       arg);
    break;
  case OPT_PP_EMBED_LOSS: l->pp_embed_loss = true; break;
  case OPT_CP_KIND:
    if (scale_cp_kind_parse(arg, &l->cp_kind))
      return cli_usage("--cp-kind: unknown kind '%s' (ring, ulysses, allgather)", arg);
    break;
  case OPT_REMAT:
    if (scale_train_remat_parse(arg, &l->remat))
      return cli_usage("--remat: unknown policy '%s' (none, block, matmuls, selective)", arg);
    break;
  case OPT_RECOMPUTE:
    if (scale_memory_recompute_parse(arg, &rc))
      return cli_usage("--recompute: unknown mode '%s' (none, selective, full)", arg);
    l->remat = scale_memory_remat_of(rc);
    break;
  case OPT_RECOMPUTE_LAYERS:
    return cli_parse_number("recompute-layers", arg, DEGREE, &o->recompute_layers)
               ? CLI_EXIT_OK
               : CLI_EXIT_USAGE;
  case OPT_RECOMPUTE_EVERY:
    return cli_parse_number("recompute-every", arg, DEGREE, &o->recompute_every)
               ? CLI_EXIT_OK
               : CLI_EXIT_USAGE;
  default: return NOT_MINE;
  }
  return CLI_EXIT_OK;
}

/* Reads the command line into 'o' and checks that the problem is complete: 0 or a usage
 * error. */
static int parse(int argc, char **argv, train_opts *o) {
  memset(o, 0, sizeof *o);
  o->chips = o->batch = o->seq = o->efficiency = o->fsdp = o->micro = o->price = NAN;
  o->recompute_layers = o->recompute_every = NAN;
  o->zero = 3.0;
  o->precision = "bf16";
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    o->axes[d] = NAN;
  o->dp = o->tp = o->pp = o->virt = o->ep = o->cp = 1.0;
  o->layout = scale_layout_default();
  cli_energy_init(&o->energy);
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    if (c == OPT_HELP) {
      o->help = true;
      return CLI_EXIT_OK;
    }
    int rc = cli_energy_take(c, optarg, &o->energy);
    if (rc == 1) continue;
    if (rc) return rc;
    rc = take_problem(c, optarg, o);
    if (rc == NOT_MINE) rc = take_degree(c, optarg, o);
    if (rc == NOT_MINE) rc = take_choice(c, optarg, o);
    if (rc == NOT_MINE) return cli_bad_option("train", argv);
    if (rc) return rc;
  }
  if (optind < argc) return cli_usage("train: unexpected argument '%s'", argv[optind]);
  if (!o->model) return cli_usage("train: missing --model (try: scale model list)");
  if (!o->hw) return cli_usage("train: missing --hw (try: scale hw list)");
  if (isnan(o->chips)) return cli_usage("train: missing --chips");
  if (isnan(o->batch)) return cli_usage("train: missing --batch-tokens");
  if (isnan(o->seq)) return cli_usage("train: missing --seq");
  if (o->emit && o->json) return cli_usage("train: --emit prints a framework's options, not JSON");
  if (o->roofline && !isnan(o->efficiency))
    return cli_usage("train: --efficiency overrides the step model's matmul ceiling; "
                     "--roofline is the book's ideal at peak");
  return CLI_EXIT_OK;
}

/* The layout of the options on 'chip': degrees (FSDP taking the chips left), the book's
 * mapping, then the planner's other mappings (the pipeline outermost on DCN, torus axes per
 * dimension). 0 or a usage error. */
/* The share of each stage's layers block remat recomputes, from --recompute-layers N (N of
 * the stage's L) or --recompute-every K (floor(L / K) of them): 0 or a usage error. */
static int remat_share_of(const train_opts *o, const scale_model *model, scale_layout *l) {
  bool by_layers = !isnan(o->recompute_layers), by_every = !isnan(o->recompute_every);
  if (!by_layers && !by_every) return CLI_EXIT_OK;
  if (by_layers && by_every)
    return cli_usage("train: --recompute-layers and --recompute-every name the same choice");
  if (l->remat != SCALE_REMAT_BLOCK)
    return cli_usage("train: --recompute-%s needs --recompute full (--remat block)",
                     by_layers ? "layers" : "every");
  double stage = scale_train_stage_layers(model, o->pp);
  double n = by_layers ? o->recompute_layers : floor(stage / o->recompute_every);
  if (by_layers && n > stage)
    return cli_usage("train: --recompute-layers %g exceeds the %g layers of a stage", n, stage);
  if (!(n >= 1.0))
    return cli_usage("train: --recompute-every %g leaves none of a stage's %g layers", 
                     o->recompute_every, stage);
  l->remat_frac = n / stage;
  return CLI_EXIT_OK;
}

static int layout_of(const train_opts *o, const scale_chip *chip, scale_layout *layout) {
  double fsdp = o->fsdp;
  if (isnan(fsdp)) {
    double rest = o->chips / (o->dp * o->tp * o->pp * o->cp);
    if (rest < 1.0 || rest != floor(rest))
      return cli_usage("train: dp x tp x pp x cp = %g does not divide the %g chips",
                       o->dp * o->tp * o->pp * o->cp, o->chips);
    fsdp = rest;
  }
  *layout = o->layout;
  layout->dp = o->dp;
  layout->fsdp = fsdp;
  layout->zero_stage = (int)o->zero;
  layout->tp = o->tp;
  layout->sp = o->sp;
  layout->pp = o->pp;
  layout->n_microbatches = isnan(o->micro) ? o->pp : o->micro;
  layout->n_virtual_stages = o->virt;
  layout->ep = o->ep;
  layout->etp = o->etp;
  layout->capacity_factor = o->capacity;
  layout->cp = o->cp;
  layout->tp_overlap = o->tp_overlap;
  scale_train_layout_map(chip, o->chips, layout);
  if (o->pp_dcn) {
    if (!(o->pp > 1.0)) return cli_usage("train: --pp-link dcn needs --pp above 1");
    if (!(chip->dcn_bytes_per_s > 0.0))
      return cli_usage("train: --pp-link dcn: %s has no DCN bandwidth", chip->name);
    layout->link[SCALE_TRAIN_DIM_PP] = SCALE_TRAIN_LINK_DCN;
    layout->n_axes[SCALE_TRAIN_DIM_PP] = 1.0;
  }
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) {
    if (isnan(o->axes[d])) continue;
    const char *dim = scale_train_dim_name((scale_train_dim)d);
    if (layout->link[d] != SCALE_TRAIN_LINK_ICI)
      return cli_usage("train: --%s-axes: %s is mapped onto %s, not a TPU torus", dim, dim,
                       scale_train_link_name(layout->link[d]));
    if (isfinite(chip->ici_n_axes) && o->axes[d] > chip->ici_n_axes)
      return cli_usage("train: --%s-axes %g: the torus has %g axes", dim, o->axes[d],
                       chip->ici_n_axes);
    layout->n_axes[d] = o->axes[d];
  }
  return CLI_EXIT_OK;
}

/* Evaluates the layout by the step model (its parameters loaded into 'params', which
 * 'problem' then points to) or the roofline (--roofline) into 'result', and by the roofline
 * into 'ideal'; 0, or the exit status of a load, usage or evaluation error. */
/* --trace FILE: the step model's timeline of the step, titled with the job. */
static int write_trace(const char *path, const scale_model *m, const scale_chip *chip,
                       const scale_layout *l, const scale_train_result *r) {
  if (!r->step_model)
    return cli_usage("train: --trace draws the step model's timeline: drop --roofline");
  char lay[256], title[512];
  snprintf(title, sizeof title, "%s on %g x %s: %s", m->display_name, scale_layout_n_chips(l),
           chip->display_name, scale_plan_layout_str(l, lay, sizeof lay));
  return cli_write_step_trace(path, &r->step, title);
}

static int evaluate(const train_opts *o, const scale_chip *chip, const scale_layout *layout,
                    scale_step_params *params, scale_train_problem *problem,
                    scale_train_result *result, scale_train_result *ideal) {
  int rc;
  if (!o->roofline) {
    if ((rc = cli_load_step_params(chip, params))) return rc;
    if (!isnan(o->efficiency)) params->v[SCALE_STEP_MM_ETA_MAX] = o->efficiency;
    problem->step_params = params;
  }
  scale_diag diag;
  if (scale_train_validate(problem, layout, &diag)) return cli_usage("train: %s", diag.message);
  /* after every usage error: those stay one line */
  cli_warn_batch_tokens(o->batch_text, o->batch, o->seq);
  scale_train_eval(problem, layout, result);
  scale_train_problem bound = *problem;
  bound.step_params = NULL;
  scale_train_eval(&bound, layout, ideal);
  if (!isfinite(result->step_time_s) || !isfinite(result->memory_per_chip_bytes))
    return cli_fail("train: %s (chips %g, batch %g tokens, seq %g)", result->reason, o->chips,
                    o->batch, o->seq);
  return CLI_EXIT_OK;
}

/* --emit: the layout as a framework's options (emit.h), when it fits. */
static int emit(int argc, char **argv, const train_opts *o, const scale_train_problem *p,
                const scale_layout *l, const scale_train_result *r,
                const scale_precision_recipe *rec) {
  char need[32], have[32], line[2048];
  if (!r->fits)
    return cli_fail("train: the layout does not fit in HBM (%s of %s per chip): nothing emitted",
                    scale_format(need, sizeof need, r->memory_per_chip_bytes, "B", SCALE_FMT_SI),
                    scale_format(have, sizeof have, r->hbm_bytes, "B", SCALE_FMT_SI));
  cli_emit_train_job job = {p->model, p->chip, o->chips, o->batch, o->seq, l, rec->name,
                            cli_emit_command_line(argc, argv, "train", line, sizeof line)};
  return cli_emit_train(stdout, o->emit, &job);
}

int cli_cmd_train(int argc, char **argv) {
  train_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  scale_model model;
  scale_chip chip;
  if ((rc = cli_load_model(o.model, &model)) || (rc = cli_load_chip(o.hw, &chip))) return rc;
  const char *price_from;
  if ((rc = cli_apply_price(&chip, o.price, o.price_name, &price_from))) return rc;
  if ((rc = cli_energy_resolve(&o.energy, &chip, "train"))) return rc;
  scale_layout layout;
  if ((rc = layout_of(&o, &chip, &layout)) || (rc = remat_share_of(&o, &model, &layout)))
    return rc;
  scale_train_problem problem = scale_train_problem_make(&model, &chip, o.chips, o.batch, o.seq);
  problem.train_tokens = o.tokens;
  const scale_precision_recipe *rec;
  if ((rc = cli_precision_resolve(o.precision, &chip, &rec))) return rc;
  problem.compute_dtype = rec->matmul_dtype;
  scale_step_params params;
  scale_train_result result, ideal;
  if ((rc = evaluate(&o, &chip, &layout, &params, &problem, &result, &ideal))) return rc;
  if (o.trace && (rc = write_trace(o.trace, &model, &chip, &layout, &result))) return rc;
  if (o.emit) return emit(argc, argv, &o, &problem, &layout, &result, rec);
  train_energy en;
  memset(&en, 0, sizeof en);
  en.opts = &o.energy;
  if (o.tokens > 0.0) {
    en.run = cli_energy_run(&o.energy, o.chips, result.train_time_s, chip.usd_per_hour,
                            cli_energy_ckpt_bytes(&model, &layout.precision));
    scale_energy_eval(&en.run, &en.result);
  }
  if (o.json)
    print_json(&problem, &layout, &result, &ideal, rec, price_from, o.tokens > 0.0 ? &en : NULL);
  else {
    print_text(&problem, &layout, &result, &ideal, rec, price_from);
    if (o.tokens > 0.0) cli_energy_print_text(&o.energy, &en.run, &en.result);
  }
  /* Does not fit: the whole report, then one line and exit 1, as `scale infer` does. */
  char need[32], have[32];
  if (!result.fits)
    return cli_fail("train: the layout does not fit in HBM (%s of %s per chip)",
                    scale_format(need, sizeof need, result.memory_per_chip_bytes, "B",
                                 SCALE_FMT_SI),
                    scale_format(have, sizeof have, result.hbm_bytes, "B", SCALE_FMT_SI));
  return CLI_EXIT_OK;
}
