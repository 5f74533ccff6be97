/* applied_training.c — chapter 6, "Training LLaMA 3 on TPUs", as a program.
 *
 * Works the chapter's example end to end on the library: LLaMA 3 70B's parameters and FLOPs,
 * the memory of a 4M-token batch, the fewest chips that hold it, the time and dollars of the
 * run, why pure FSDP is comms-bound on a full v5p pod and which FSDP x TP split is not; then
 * what the planner picks for the same problem, and the book's two worked problems (70B on four
 * pods, 405B on eight). Every number chapters/06-applied-training/applied-training.md cites is
 * emitted here with --values; --figures DIR draws
 *   memory-per-chip.svg   memory per chip by component against chips (FSDP x TP 4, 4M batch)
 *
 * Options: --chip (default tpu-v5p), --mfu (0.4: the efficiency the book assumes for run
 * times and costs), --tokens (15e12: the training budget).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"
#include "scale/plan.h"

#define BATCH_4M 4194304.0 /* 4 x 1024 x 1024 tokens: 1024 sequences of 4096 */
#define SEQ_4K 4096.0
#define N_MEM 8 /* chips 2^6 .. 2^13 of the memory figure */

/** Settings shared by the sections. */
typedef struct {
  const scale_chip *chip;
  double c, link, pod; /* bf16 peak; one ICI link one way; chips in a pod */
  double mfu, tokens;  /* the book's assumed MFU for run times; the training budget */
  double restart_s, pue, grid; /* the energy section's restart time, PUE, grid intensity */
  bool check;    /* the book's chip: the text's claims apply (chapter_claim) */
} setting;

/* ---- the model ------------------------------------------------------------------------------ */

static void section_model(chapter *ch, const setting *s, const scale_model *m) {
  chapter_heading(ch, "LLaMA 3 70B: parameters and FLOPs");
  chapter_model_dims(ch, "arch", m, true);
  double l = (double)m->n_layers, n = scale_transformer_n_params(m);
  double mlp = l * scale_transformer_n_mlp_params(m);
  CHAPTER_VALUES(ch, "params",
      {"mlp", "MLP 3DF L", mlp, "", SCALE_FMT_SCI},
      {"vocab", "embeddings 2VD", scale_transformer_n_embedding_params(m), "", SCALE_FMT_SCI},
      {"attn", "attention 2DH(N+K) L", l * scale_transformer_n_attention_params(m), "",
       SCALE_FMT_SCI},
      {"total", "total (with norms)", n, "", SCALE_FMT_SCI},
      {"mlp_pct", "MLP share", 100.0 * mlp / n, "%", SCALE_FMT_PLAIN});
  double per_token_book = 6.0 * 70e9, per_token = 6.0 * n;
  double total_book = per_token_book * s->tokens, total = per_token * s->tokens;
  double pod_s = scale_train_time_s(total_book, s->pod, s->c, s->mfu);
  CHAPTER_VALUES(ch, "flops",
      {"per_token_book", "6 x 70e9", per_token_book, "FLOP", SCALE_FMT_SCI},
      {"per_token", "6 x parameters", per_token, "FLOP", SCALE_FMT_SCI},
      {"token_time", "one token on one chip at peak",
       scale_train_time_s(per_token_book, 1.0, s->c, 1.0), "s", SCALE_FMT_TIME},
      {"tokens", "training tokens", s->tokens, "", SCALE_FMT_SCI},
      {"total_book", "total, book", total_book, "FLOP", SCALE_FMT_SCI},
      {"total", "total, exact parameters", total, "FLOP", SCALE_FMT_SCI},
      {"one_chip_years", "on one chip at peak",
       scale_train_time_s(total_book, 1.0, s->c, 1.0) / SCALE_SECONDS_PER_YEAR, "years",
       SCALE_FMT_PLAIN},
      {"mfu", "assumed efficiency", 100.0 * s->mfu, "%", SCALE_FMT_PLAIN},
      {"pod_s", "a full pod at that MFU", pod_s, "s", SCALE_FMT_SCI},
      {"pod_days", "  in days", pod_s / SCALE_SECONDS_PER_DAY, "days", SCALE_FMT_PLAIN},
      {"price", "price per chip-hour", s->chip->usd_per_hour, "USD", SCALE_FMT_USD},
      {"pod_cost", "  its cost", s->pod * pod_s / SCALE_SECONDS_PER_HOUR * s->chip->usd_per_hour,
       "USD", SCALE_FMT_USD});
}

/* ---- memory --------------------------------------------------------------------------------- */

static void section_memory(chapter *ch, const setting *s, const scale_model *m) {
  chapter_heading(ch, "Memory for a 4M-token batch");
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  /* The book's accounting: 70e9 parameters, bf16 weights, fp32 Adam, 4 checkpoints of
   * [tokens, D] per layer, 4e6 tokens. */
  double params = scale_transformer_weight_bytes(&prec, 70e9);
  double opt = scale_transformer_optimizer_bytes(&prec, 70e9);
  double ckpt = scale_transformer_checkpoint_bytes(m, 4e6, 4.0, SCALE_DTYPE_BF16);
  double total = params + opt + ckpt;
  double chips = scale_train_min_chips_for_memory(total, s->chip->hbm_bytes);
  double twelve = params + opt + scale_transformer_checkpoint_bytes(m, 4e6, 12.0,
                                                                    SCALE_DTYPE_BF16);
  CHAPTER_VALUES(ch, "mem",
      {"params", "weights, bf16", params, "B", SCALE_FMT_SI},
      {"opt", "Adam moments, fp32", opt, "B", SCALE_FMT_SI},
      {"ckpt", "4 checkpoints per layer", ckpt, "B", SCALE_FMT_SI},
      {"total", "total", total, "B", SCALE_FMT_SI},
      {"quotient", "total / HBM", total / s->chip->hbm_bytes, "", SCALE_FMT_PLAIN},
      {"min_chips", "fewest chips that hold it", chips, "", SCALE_FMT_PLAIN},
      {"min_chips_days", "  training days there",
       scale_train_time_s(6.0 * 70e9 * s->tokens, chips, s->c, s->mfu) / SCALE_SECONDS_PER_DAY,
       "days", SCALE_FMT_PLAIN},
      {"per_chip_pod", "per chip on a pod", total / s->pod, "B", SCALE_FMT_SI},
      {"per_chip_12", "  with 12 checkpoints per layer", twelve / s->pod, "B", SCALE_FMT_SI});
}

/* ---- sharding on one pod -------------------------------------------------------------------- */

static void section_shard(chapter *ch, const setting *s, const scale_model *m,
                          scale_train_result *book_out, scale_layout *book_layout) {
  chapter_heading(ch, "Sharding LLaMA 3 70B on a pod");
  double f = (double)m->d_ff, n_seq = BATCH_4M / SEQ_4K;
  CHAPTER_VALUES(ch, "shard",
      {"batch", "batch", BATCH_4M, "tokens", SCALE_FMT_PLAIN},
      {"seqs", "sequences", n_seq, "", SCALE_FMT_PLAIN},
      {"per_chip", "tokens per chip on a pod", BATCH_4M / s->pod, "tokens", SCALE_FMT_PLAIN},
      {"crit3", "FSDP needs (three axes)",
       scale_train_dp_critical_batch(s->c, s->link, s->chip->ici_n_axes), "tokens",
       SCALE_FMT_PLAIN});
  scale_train_problem p = scale_train_problem_make(m, s->chip, s->pod, BATCH_4M, SEQ_4K);
  scale_layout pure = scale_layout_default();
  pure.fsdp = scale_train_fsdp_cp_degree(s->pod, n_seq, SEQ_4K); /* over batch and sequence */
  pure.cp = s->pod / pure.fsdp;
  scale_train_result r;
  if (!chapter_train_eval(ch, &p, &pure, &r)) return;
  double x = scale_train_fsdp_tp_x_opt(BATCH_4M, f, s->pod, 2.0, 1.0);
  CHAPTER_VALUES(ch, "shard",
      {"fsdp_deg", "FSDP degree", pure.fsdp, "", SCALE_FMT_PLAIN},
      {"cp_deg", "CP degree", pure.cp, "", SCALE_FMT_PLAIN},
      {"fsdp_ratio", "FSDP x CP: busiest link / compute", r.comms_time_s / r.compute_time_s, "",
       SCALE_FMT_PLAIN},
      {"fsdp_step", "  step", r.step_time_s, "s", SCALE_FMT_TIME},
      {"fsdp_mfu", "  MFU", 100.0 * r.mfu, "%", SCALE_FMT_PLAIN},
      {"mixed_crit", "FSDP x TP floor per chip",
       scale_train_fsdp_tp_critical_batch(f, s->c, s->link, 2.0, 1.0), "tokens", SCALE_FMT_PLAIN},
      {"x_opt", "X_opt", x, "", SCALE_FMT_PLAIN},
      {"y_opt", "Y = N / X_opt", s->pod / x, "", SCALE_FMT_PLAIN},
      {"tp_max", "largest compute-bound TP, one axis",
       scale_train_tp_max_degree(f, s->c, s->link, 1.0), "", SCALE_FMT_PLAIN});
  bool fsdp = r.bound == SCALE_TRAIN_BOUND_COMMS &&
              r.comm[r.binding_comm].dim == SCALE_TRAIN_DIM_FSDP;
  chapter_claim(ch, s->check, fsdp, "pure FSDP on a pod is bound by its FSDP collectives");

  /* The book's takeaway: 1024-way data, 2-way sequence, 4-way tensor parallelism. */
  scale_layout book = scale_layout_default();
  book.fsdp = 1024, book.cp = 2, book.tp = 4;
  double n_book = book.fsdp * book.cp * book.tp;
  scale_train_problem pb = scale_train_problem_make(m, s->chip, n_book, BATCH_4M, SEQ_4K);
  if (!chapter_train_eval(ch, &pb, &book, book_out)) return;
  *book_layout = book;
  CHAPTER_VALUES(ch, "book",
      {"chips", "chips", n_book, "", SCALE_FMT_PLAIN},
      {"ratio", "busiest link / compute", book_out->comms_time_s / book_out->compute_time_s, "",
       SCALE_FMT_PLAIN},
      {"step", "step", book_out->step_time_s, "s", SCALE_FMT_TIME},
      {"mfu", "MFU (roofline)", 100.0 * book_out->mfu, "%", SCALE_FMT_PLAIN},
      {"mem", "memory per chip", book_out->memory_per_chip_bytes, "B", SCALE_FMT_SI});
  chapter_claim(ch, s->check, book_out->bound == SCALE_TRAIN_BOUND_COMPUTE && book_out->fits,
                "the book's layout is compute-bound and fits");
  chapter_run_values(ch, "book", "run at the assumed MFU", &pb, &book, s->mfu, s->tokens);
  /* the same layout priced by the calibrated step model (appendix 14), beside the roofline */
  pb.train_tokens = s->tokens;
  chapter_calibrated_gap(ch, "book", &pb, &book);
}

/* ---- the planner ---------------------------------------------------------------------------- */

/* Columns of a ranked layout (chapter_plan_row): degrees and results, then ('full') policies. */
#define PLAN_COLUMNS "dp fsdp tp cp pp step mfu mem"
#define PLAN_COLUMNS_FULL PLAN_COLUMNS " zero sp m saved bubble"

/** Runs the planner on one thread; 'book_space' keeps it to the book's DP, FSDP, TP and CP. */
static bool run_plan(chapter *ch, const scale_train_problem *p, bool book_space,
                     scale_plan_report *rep) {
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (book_space) o.allow[SCALE_TRAIN_DIM_PP] = o.allow[SCALE_TRAIN_DIM_EP] = false;
  return chapter_plan_train(ch, p, &o, rep, 5);
}

/** The planner on a full pod; false when it failed. */
static bool section_planner(chapter *ch, const setting *s, const scale_model *m) {
  chapter_heading(ch, "What the planner says: a full pod");
  static scale_plan_report rep;
  scale_train_problem p = scale_train_problem_make(m, s->chip, s->pod, BATCH_4M, SEQ_4K);
  if (!run_plan(ch, &p, false, &rep)) return false;
  chapter_plan_counts(ch, "plan", &rep);
  for (int i = 0; i < 5; i++) chapter_plan_row(ch, "plan", &rep, i, PLAN_COLUMNS_FULL);
  char why[1024];
  chapter_say(ch, "why: %s", scale_plan_explain(&rep, why, sizeof why));
  const scale_train_result *best = &rep.ranked[0].result;
  double tp_max = scale_train_tp_max_degree((double)m->d_ff, s->c, s->link, 1.0);
  double gated = 1.5 * tp_max;
  /* The limit grows with the torus axes TP spans (M_Y): the planner tries every split. */
  double tp_axes = rep.ranked[0].layout.n_axes[SCALE_TRAIN_DIM_TP];
  CHAPTER_VALUES(ch, "plan",
      {"compute", "best: compute time", best->compute_time_s, "s", SCALE_FMT_TIME},
      {"tp_limit_gated", "TP limit counting the gate (3 matrices)", gated, "", SCALE_FMT_PLAIN},
      {"r1_tp_axes", "best: torus axes its TP spans", tp_axes, "", SCALE_FMT_PLAIN},
      {"tp_limit_axes", "gated TP limit over those axes", gated * tp_axes, "", SCALE_FMT_PLAIN});
  chapter_run_values(ch, "plan", "best: run at the assumed MFU", &p, &rep.ranked[0].layout,
                     s->mfu, s->tokens);
  const scale_layout *bl = &rep.ranked[0].layout;
  bool chk = s->check, fsdp_tp = bl->fsdp > 1 && bl->tp > 1 && bl->pp == 1 && bl->dp == 1;
  chapter_claim(ch, chk, best->bound == SCALE_TRAIN_BOUND_COMPUTE, "the best is compute-bound");
  chapter_claim(ch, chk, fsdp_tp, "the best is FSDP x TP");
  chapter_claim(ch, chk, bl->remat == SCALE_REMAT_NONE, "the best keeps every activation");
  chapter_claim(ch, chk, bl->tp > tp_max, "the best's TP exceeds the book's MLP-only limit");
  chapter_claim(ch, chk, rep.ranked[4].result.step_time_s / best->step_time_s - 1.0 < 5e-4,
                "the top five tie");
  return true;
}

/** The planner in the book's space on the book's chips, against the book's layout. */
static void section_planner_book(chapter *ch, const setting *s, const scale_model *m,
                                 const scale_train_result *book, const scale_layout *book_layout) {
  static scale_plan_report rep8k;

  chapter_heading(ch, "The planner in the book's space, on the book's 8192 chips");
  double n_book = scale_layout_n_chips(book_layout);
  scale_train_problem p8 = scale_train_problem_make(m, s->chip, n_book, BATCH_4M, SEQ_4K);
  if (!run_plan(ch, &p8, true, &rep8k)) return;
  chapter_stem_value(ch, "plan8k", "evaluated", "layouts evaluated", rep8k.n_evaluated, "",
                     SCALE_FMT_SCI);
  chapter_plan_row(ch, "plan8k", &rep8k, 0, PLAN_COLUMNS_FULL);
  const scale_train_result *best = &rep8k.ranked[0].result;
  chapter_stem_value(ch, "plan8k", "book_over_best", "book's step / planner's",
                     book->step_time_s / best->step_time_s, "", SCALE_FMT_PLAIN);
  scale_layout same = *book_layout;
  same.remat = SCALE_REMAT_NONE;
  scale_train_result r;
  if (!chapter_train_eval(ch, &p8, &same, &r)) return;
  CHAPTER_VALUES(ch, "plan8k",
      {"book_no_remat_step", "book's layout without remat", r.step_time_s, "s", SCALE_FMT_TIME},
      {"book_no_remat_mem", "  memory per chip", r.memory_per_chip_bytes, "B", SCALE_FMT_SI},
      {"book_no_remat_ratio", "  busiest link / compute", r.comms_time_s / r.compute_time_s, "",
       SCALE_FMT_PLAIN});
  chapter_say(ch, "  bound: %s (%s)", scale_train_bound_name(r.bound), r.reason);
  bool turns = r.fits && r.bound == SCALE_TRAIN_BOUND_COMMS && r.step_time_s > best->step_time_s;
  chapter_claim(ch, s->check, turns, "the book's layout without remat fits but turns comms-bound");
}

/* ---- more pods ------------------------------------------------------------------------------ */

static void best_of(chapter *ch, const setting *s, const char *stem,
                    const scale_train_problem *p) {
  static scale_plan_report rep;
  if (!run_plan(ch, p, true, &rep)) return;
  chapter_plan_row(ch, stem, &rep, 0, PLAN_COLUMNS);
  const scale_train_result *r = &rep.ranked[0].result;
  const scale_layout *l = &rep.ranked[0].layout;
  chapter_stem_value(ch, stem, "ratio", "busiest link / compute",
                     r->comms_time_s / r->compute_time_s, "", SCALE_FMT_PLAIN);
  chapter_run_values(ch, stem, "run at the assumed MFU", p, l, s->mfu, s->tokens);
  chapter_claim(ch, s->check, l->dp > 1.0 && l->link[SCALE_TRAIN_DIM_DP] == SCALE_TRAIN_LINK_DCN,
                "across pods the planner uses pure DP over DCN");
  chapter_claim(ch, s->check, r->bound == SCALE_TRAIN_BOUND_COMPUTE, "it is compute-bound");
}

static void section_pods(chapter *ch, const setting *s, const scale_model *l70,
                         const scale_model *l405) {
  chapter_heading(ch, "Question 1: LLaMA 3 70B on four pods, same batch");
  double n4 = 4.0 * s->pod;
  CHAPTER_VALUES(ch, "q1",
      {"chips", "chips", n4, "", SCALE_FMT_PLAIN},
      {"per_chip", "tokens per chip", BATCH_4M / n4, "tokens", SCALE_FMT_PLAIN},
      {"per_pod", "tokens per pod", BATCH_4M / 4.0, "tokens", SCALE_FMT_SCI},
      {"dcn_crit", "DCN needs per pod",
       scale_train_dcn_critical_batch(s->c, s->chip->dcn_bytes_per_s), "tokens", SCALE_FMT_PLAIN});
  scale_train_problem p4 = scale_train_problem_make(l70, s->chip, n4, BATCH_4M, SEQ_4K);
  best_of(ch, s, "q1", &p4);
  chapter_estimate_value(ch, "q1", scale_transformer_n_params(l70), s->tokens, n4, s->c, s->mfu);

  chapter_heading(ch, "Question 2: LLaMA 3.1 405B on eight pods");
  const double batch = 16.0 * 1024.0 * 1024.0, seq = 8192.0;
  double n8 = 8.0 * s->pod, n = scale_transformer_n_params(l405), f = (double)l405->d_ff;
  CHAPTER_VALUES(ch, "q2",
      {"l", "L", (double)l405->n_layers, "", SCALE_FMT_PLAIN},
      {"d", "D", (double)l405->d_model, "", SCALE_FMT_PLAIN},
      {"f", "F", f, "", SCALE_FMT_PLAIN},
      {"n", "N", (double)l405->n_heads, "", SCALE_FMT_PLAIN},
      {"k", "K", (double)l405->n_kv_heads, "", SCALE_FMT_PLAIN},
      {"params", "parameters", n, "", SCALE_FMT_SCI},
      {"flops_per_token", "6 N per token", 6.0 * n, "FLOP", SCALE_FMT_SCI},
      {"batch", "batch", batch, "tokens", SCALE_FMT_SCI},
      {"seq", "sequence", seq, "tokens", SCALE_FMT_PLAIN},
      {"flops_per_step", "FLOPs per step", 6.0 * n * batch, "FLOP", SCALE_FMT_SCI},
      {"flops_total", "FLOPs for the budget", 6.0 * n * s->tokens, "FLOP", SCALE_FMT_SCI},
      {"chips", "chips", n8, "", SCALE_FMT_PLAIN},
      {"per_pod", "tokens per pod", batch / 8.0, "tokens", SCALE_FMT_SCI},
      {"per_chip", "tokens per chip", batch / n8, "tokens", SCALE_FMT_PLAIN},
      {"mixed_crit", "FSDP x TP floor per chip",
       scale_train_fsdp_tp_critical_batch(f, s->c, s->link, 2.0, 1.0), "tokens", SCALE_FMT_PLAIN},
      {"tp_max", "largest compute-bound TP, one axis",
       scale_train_tp_max_degree(f, s->c, s->link, 1.0), "", SCALE_FMT_PLAIN},
      {"x_opt", "X_opt within a pod", scale_train_fsdp_tp_x_opt(batch / 8.0, f, s->pod, 2.0, 1.0),
       "", SCALE_FMT_PLAIN});
  scale_train_problem p8 = scale_train_problem_make(l405, s->chip, n8, batch, seq);
  best_of(ch, s, "q2", &p8);
  chapter_estimate_value(ch, "q2", n, s->tokens, n8, s->c, s->mfu);
}

/** LLaMA 3.1 405B on the 16,384 H100 Meta trained it on: energy, failures, goodput. */
static void section_energy(chapter *ch, const setting *s, const scale_model *l405) {
  chapter_heading(ch, "What the 405B run also costs: energy and failures (16,384 H100)");
  chapter_energy_inputs in = {s->tokens, s->mfu, s->restart_s, s->pue, s->grid};
  chapter_energy_values(ch, "energy", l405, "nvidia-h100-sxm", "llama3-405b", in);
}

/* ---- figure --------------------------------------------------------------------------------- */

static void figure_memory(chapter *ch, const setting *s, const scale_model *m) {
  chapter_heading(ch, "Memory per chip by component (FSDP x TP 4, block remat)");
  static double xs[N_MEM], ys[5][N_MEM];
  static const char *labels[5] = {"weights", "gradients", "optimizer state", "activations",
                                  "total"};
  for (int i = 0; i < N_MEM; i++) {
    xs[i] = pow(2.0, 6.0 + i);
    scale_train_problem p = scale_train_problem_make(m, s->chip, xs[i], BATCH_4M, SEQ_4K);
    scale_layout l = scale_layout_default();
    l.tp = 4;
    l.fsdp = fmin(xs[i] / 4.0, BATCH_4M / SEQ_4K);
    l.cp = xs[i] / (4.0 * l.fsdp);
    scale_train_result r = {0};
    bool ok = chapter_train_eval(ch, &p, &l, &r);
    const double part[5] = {r.param_bytes, r.grad_bytes, r.optimizer_bytes,
                            r.activation_bytes + r.gathered_weight_bytes + r.cp_buffer_bytes,
                            r.memory_per_chip_bytes};
    for (int k = 0; k < 5; k++) ys[k][i] = ok ? part[k] : (double)NAN;
  }
  /* The text: activations dominate at few chips, and the smallest slice does not fit. */
  chapter_claim(ch, s->check, ys[3][0] > ys[2][0] && ys[4][0] > s->chip->hbm_bytes,
                "at 64 chips activations dominate and the total exceeds HBM");
  double fit = NAN;
  for (int i = 0; i < N_MEM && isnan(fit); i++)
    if (ys[4][i] <= s->chip->hbm_bytes) fit = xs[i];
  chapter_stem_value(ch, "fig", "first_fit", "fewest chips (power of 2) that fit", fit, "",
                     SCALE_FMT_PLAIN);
  scale_plot_series ser[5];
  for (int k = 0; k < 5; k++)
    ser[k] = (scale_plot_series){.label = labels[k], .x = xs, .y = ys[k], .n = N_MEM,
                                 .dots = true, .dashed = k == 4};
  scale_plot_marker hbm = {.vertical = false, .at = s->chip->hbm_bytes, .label = "HBM per chip"};
  scale_plot p = {.title = "LLaMA 3 70B, 4M-token batch: memory per chip (FSDP x TP 4, v5p)",
                  .desc = "Weights, gradients and optimizer state shrink with every doubling "
                          "of chips (weights and gradients coincide, both bf16); activations "
                          "shrink with the tokens per chip; the total "
                          "falls below the HBM line once there are enough chips.",
                  .x_label = "chips", .y_label = "bytes per chip",
                  /* the slices' own span, half a doubling either side: whole decades
                   * (10 to 1e4) left the left half of the plot empty */
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .x_min = xs[0] / sqrt(2.0), .x_max = xs[N_MEM - 1] * sqrt(2.0),
                  .width_px = 720, .height_px = 460,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_LEFT, .series = ser, .n_series = 5,
                  .markers = &hbm, .n_markers = 1};
  chapter_figure(ch, "memory-per-chip.svg", &p);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {{"chip", "hardware", "tpu-v5p"},
                           {"mfu", "efficiency assumed for run times and costs", "0.4"},
                           {"tokens", "training tokens", "15e12"},
                           {"restart-s", "restart after an interruption (assumed)", "600"},
                           {"pue", "facility PUE (1: the chips alone)", "1"},
                           {"grid", "grid kg CO2e/kWh (EIA: US 2022 average)", "0.39"},
                           {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "06-applied-training", "Training LLaMA 3 on TPUs.",
                         opts);
  if (rc >= 0) return rc;
  scale_chip chip;
  static scale_model l70, l405;
  if (!chapter_load_chip(&ch, opts[0].value, &chip) ||
      !chapter_load_model(&ch, "llama-3-70b", &l70) ||
      !chapter_load_model(&ch, "llama-3-405b", &l405))
    return chapter_end(&ch);
  setting s = {.chip = &chip,
               .c = scale_chip_flops_per_s(&chip, SCALE_DTYPE_BF16),
               .link = chip.ici_link_bytes_per_s,
               .pod = scale_chip_pod_chips(&chip),
               .mfu = chapter_option_number(&ch, &opts[1], SCALE_NUM_POSITIVE),
               .tokens = chapter_option_number(&ch, &opts[2], SCALE_NUM_POSITIVE),
               .restart_s = chapter_option_number(&ch, &opts[3], SCALE_NUM_POSITIVE),
               .pue = chapter_option_number(&ch, &opts[4], SCALE_NUM_POSITIVE),
               .grid = chapter_option_number(&ch, &opts[5], SCALE_NUM_POSITIVE),
               .check = strcmp(opts[0].value, "tpu-v5p") == 0};
  if (ch.n_errors || !(s.mfu <= 1.0)) {
    if (!ch.n_errors) chapter_error(&ch, "--mfu must be in (0, 1]");
    return chapter_end(&ch);
  }
  section_model(&ch, &s, &l70);
  section_memory(&ch, &s, &l70);
  scale_train_result book;
  scale_layout book_layout = scale_layout_default();
  section_shard(&ch, &s, &l70, &book, &book_layout);
  if (!ch.n_errors && section_planner(&ch, &s, &l70))
    section_planner_book(&ch, &s, &l70, &book, &book_layout);
  section_pods(&ch, &s, &l70, &l405);
  section_energy(&ch, &s, &l405);
  figure_memory(&ch, &s, &l70);
  return chapter_end(&ch);
}
