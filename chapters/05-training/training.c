/* training.c — chapter 5, "How to Parallelize a Transformer for Training", as a program.
 *
 * Computes, for the book's training chip (TPU v5p), what each parallel strategy costs per
 * layer and per step, the thresholds at which each turns communication-bound, pipeline
 * bubbles, ZeRO memory, and what the planner picks for the chapter's Question 3. Every number
 * chapters/05-training/training.md cites is emitted here with --values; --figures DIR draws
 *   mlp-roofline.svg     the book's MLP model: comms time per layer of FSDP x TP splits of a
 *                        4096-chip slice against the batch, with the matmul time
 *   step-vs-chips.svg    step time of LLaMA 3 70B (library model) against chips, per layout
 *
 * Options: --chip (default tpu-v5p), and for the strategy table and the scaling figure
 * --model (llama-3-70b), --chips (1024), --batch (4194304 tokens), --seq (4096).
 *
 * The chip's numbers, the strategies of the table and their rows, the book's thresholds and
 * pipeline bubbles are training.h's ch. 5 tables, and so are the per-layer MLP formulas of the
 * figure (scale_train_book_mlp_times: the book's forward pass, gating matmul ignored), kept
 * apart from the library's own step model, which counts attention, gating and remat.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"
#include "scale/plan.h"

#define N_CURVE 121
#define N_SCALE 10 /* chip counts 2^6 .. 2^15 of the scaling figure */

/* ---- the chip, the strategies, the thresholds (the tables of training.h) ------------------- */

static double bf16(const scale_chip *chip) {
  return scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
}

static void section_strategies(chapter *ch, bool chk, const scale_chip *chip,
                               const scale_model *dense, const scale_model *moe, double n,
                               double batch, double seq) {
  chapter_heading(ch, "Each strategy on one slice");
  CHAPTER_VALUES(ch, "strat",
      CHAPTER_V("chips", "chips", n, ""),
      CHAPTER_V("batch", "batch", batch, "tokens"),
      CHAPTER_V("seq", "sequence length", seq, "tokens"),
      CHAPTER_V("n_seq", "sequences per batch", floor(batch / seq), ""),
      CHAPTER_V("per_chip", "tokens per chip", batch / n, "tokens"));
  scale_train_problem p = scale_train_problem_make(dense, chip, n, batch, seq);
  scale_train_problem pm = scale_train_problem_make(moe, chip, n, batch, seq);
  scale_train_strategy rows[SCALE_TRAIN_STRATEGIES];
  scale_train_result r[SCALE_TRAIN_STRATEGIES];
  scale_quantity q[SCALE_TRAIN_TABLE_MAX];
  int n_rows = scale_train_book_strategies(n, rows);
  for (int i = 0; i < n_rows; i++) {
    const scale_train_problem *pi = rows[i].moe ? &pm : &p;
    if (!chapter_train_eval(ch, pi, &rows[i].layout, &r[i])) continue;
    chapter_say(ch, "%s:", rows[i].label);
    chapter_quantities(ch, rows[i].key, q, scale_train_result_table(pi, &r[i], q), false);
    chapter_say(ch, "  bound: %s (%s)", scale_train_bound_name(r[i].bound), r[i].reason);
  }
  if (ch->n_errors) return;
  /* What the text says about the table. */
  chapter_claim(ch, chk, !r[0].fits && !r[1].fits,
                "pure DP and ZeRO-1 of the dense model do not fit");
  chapter_claim(ch, chk, r[2].fits && r[2].bound == SCALE_TRAIN_BOUND_COMPUTE,
                "FSDP is compute-bound");
  chapter_claim(ch, chk, r[1].memory_per_chip_bytes > r[2].memory_per_chip_bytes,
                "ZeRO-1 holds more");
  chapter_claim(ch, chk, r[3].bound == SCALE_TRAIN_BOUND_COMPUTE, "FSDP x TP 8 is compute-bound");
  chapter_claim(ch, chk, r[4].memory_per_chip_bytes < r[3].memory_per_chip_bytes,
                "SP saves memory");
  chapter_claim(ch, chk,
                r[5].fits && r[5].bound == SCALE_TRAIN_BOUND_COMMS &&
                    (r[5].binding_comm == SCALE_TRAIN_COMM_TP_ALL_GATHER ||
                     r[5].binding_comm == SCALE_TRAIN_COMM_TP_REDUCE_SCATTER),
                "TP 32 is bound by its activation collectives");
  chapter_claim(ch, chk, r[6].step_time_s > 1.5 * r[7].step_time_s,
                "1F1B's bubble costs most of a step");
  chapter_claim(ch, chk, r[10].fits, "the MoE row fits");
  chapter_value(ch, "strat.moe_params", "MoE model parameters", scale_transformer_n_params(moe),
                "", SCALE_FMT_SCI);
}

/** The book's thresholds of each strategy, and its pipeline bubbles (training.h's tables). */
static void section_thresholds(chapter *ch, const scale_chip *chip, const scale_model *l70,
                               const scale_model *gemma, const scale_model *ds3) {
  chapter_heading(ch, "Thresholds");
  scale_quantity q[SCALE_TRAIN_TABLE_MAX];
  chapter_quantities(ch, "dp", q, scale_train_dp_thresholds(chip, q), false);
  chapter_quantities(ch, "tp", q, scale_train_tp_thresholds(chip, l70, gemma, q), false);
  chapter_quantities(ch, "mix", q, scale_train_mixed_thresholds(chip, q), false); /* FSDP x TP */
  chapter_quantities(ch, "dcn", q, scale_train_dcn_thresholds(chip, q), false);   /* across pods */
  chapter_quantities(ch, "moe", q, scale_train_moe_thresholds(chip, ds3, q), false);
  chapter_heading(ch, "Pipeline bubbles, p = 16");
  chapter_quantities(ch, "pp", q, scale_train_pipeline_table(q), false);
}

static void section_zero(chapter *ch, const scale_model *m) {
  chapter_heading(ch, "ZeRO stages: bytes per chip, 64 shards, the ZeRO paper's precision");
  scale_precision mixed = SCALE_PRECISION_MIXED_ADAM;
  double n = scale_transformer_n_params(m);
  chapter_value(ch, "zero.params", "parameters", n, "", SCALE_FMT_SCI);
  for (int stage = 0; stage <= 3; stage++) {
    double parts[3];
    double total = scale_train_zero_bytes_per_chip(&mixed, n, stage, 64.0, parts);
    chapter_valuef(ch, "bytes per parameter per chip", total / n, "B", SCALE_FMT_PLAIN,
                   "zero.s%d.per_param", stage);
    chapter_valuef(ch, "per chip", total, "B", SCALE_FMT_SI, "zero.s%d.total", stage);
  }
  static char svg[1 << 16];
  scale_diag d = {0};
  chapter_diagram(ch, "zero-stages.svg",
                  scale_diagram_zero_stages(&mixed, n, 64.0, svg, sizeof svg, NULL, &d), svg, &d);
}

/** Where each strategy keeps a layer's weights W_in[D, F], as sharded arrays (diagram.h). */
static void diagram_weights(chapter *ch) {
  static const char *const runs[][3] = {{"{X:4}", "W[D, F]", "weights-dp.svg"},
                                        {"{X:4}", "W[D_X, F]", "weights-fsdp.svg"},
                                        {"{Y:4}", "W[D, F_Y]", "weights-tp.svg"},
                                        {"{X:2, Y:2}", "W[D_X, F_Y]", "weights-fsdp-tp.svg"}};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
    chapter_diagram_sharded(ch, runs[i][2], runs[i][0], runs[i][1]);
  static char svg[1 << 17];
  /* Ring attention rotates each chip's K and V block once round the CP ring: the steps of an
   * AllGather, a 1 MiB block each. */
  scale_diag d = {0};
  chapter_diagram(ch, "cp-ring.svg",
                  scale_diagram_ring_steps(SCALE_COLL_ALL_GATHER, 4, 4 * SCALE_MEBI, svg,
                                           sizeof svg, NULL, &d),
                  svg, &d);
}

/** Gantt charts of three schedules played pass by pass (schedule.h, diagram.h): p = 4 stages,
 * m = 8 microbatches, a backward twice a forward. */
static void diagram_schedules(chapter *ch) {
  static scale_pp_pass passes[512];
  static char svg[1 << 17];
  static const struct {
    scale_pp_schedule s;
    int v;
    const char *title, *file;
  } runs[] = {{SCALE_PP_GPIPE, 1, "GPipe: every forward, then every backward", "gantt-gpipe.svg"},
              {SCALE_PP_1F1B, 1, "1F1B: one forward, one backward", "gantt-1f1b.svg"},
              {SCALE_PP_INTERLEAVED, 2, "Interleaved 1F1B, two chunks a stage",
               "gantt-interleaved.svg"}};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    scale_timeline t;
    scale_diag d = {0};
    scale_status st = scale_schedule_play(runs[i].s, 4, 8, runs[i].v, 1, 2, passes, 512, &t);
    if (!st) st = scale_diagram_gantt(runs[i].title, 4, passes, &t, svg, sizeof svg, NULL, &d);
    chapter_diagram(ch, runs[i].file, st, svg, &d);
  }
}

/* ---- the book's MLP model (figure 1) -------------------------------------------------------- */

static void figure_mlp(chapter *ch, bool chk, const scale_chip *chip) {
  chapter_heading(ch, "The MLP roofline of a 16x16x16 slice (the book's model)");
  const double d = 8192.0, f = 4.0 * 8192.0, n = 4096.0;
  double axes = chip->ici_n_axes, c = bf16(chip), link = chip->ici_link_bytes_per_s;
  CHAPTER_VALUES(ch, "fig",
      CHAPTER_V("d", "D", d, ""),
      CHAPTER_V("f", "F", f, ""),
      CHAPTER_V("n", "chips", n, ""));
  static const double ys[] = {1, 2, 4, 8, 16};
  enum { N_SPLITS = sizeof ys / sizeof ys[0] };
  static double bx[N_CURVE], tm[N_CURVE], tc[N_SPLITS][N_CURVE];
  static char labels[N_SPLITS][64];
  scale_plot_series s[N_SPLITS + 1];
  for (int i = 0; i < N_CURVE; i++) bx[i] = pow(10.0, 5.0 + 3.0 * (double)i / (N_CURVE - 1));
  for (int k = 0; k < N_SPLITS; k++) {
    double y = ys[k], x = n / y;
    double cross =
        scale_train_book_mlp_split(d, f, n, y, axes, c, link, bx, N_CURVE, tm, tc[k]);
    if (y > 1.0)
      snprintf(labels[k], sizeof labels[k], "FSDP %g x TP %g", x, y);
    else
      snprintf(labels[k], sizeof labels[k], "pure FSDP %g (3 axes)", x);
    s[k] = (scale_plot_series){.label = labels[k], .x = bx, .y = tc[k], .n = N_CURVE};
    char key[64];
    snprintf(key, sizeof key, "fig.cross.y%g", y);
    if (isfinite(cross))
      chapter_value(ch, key, labels[k], cross, "tokens", SCALE_FMT_SCI);
    else
      chapter_claim(ch, chk, y >= 16.0, "only TP 16 is never compute-bound");
  }
  s[N_SPLITS] = (scale_plot_series){.label = "matmuls (T_math)", .x = bx, .y = tm, .n = N_CURVE,
                                     .dashed = true};
  double fsdp_limit = n * scale_train_dp_critical_batch(c, link, axes);
  double mixed_limit =
      n * scale_train_fsdp_tp_critical_batch(f, c, link, axes - 1.0, 1.0);
  CHAPTER_VALUES(ch, "fig",
      {"fsdp_limit", "pure FSDP compute-bound above", fsdp_limit, "tokens", SCALE_FMT_SCI},
      {"mixed_limit", "no split compute-bound below", mixed_limit, "tokens", SCALE_FMT_SCI});
  scale_plot_marker mk[2] = {
      {.vertical = true, .at = mixed_limit, .label = "all splits comms-bound"},
      {.vertical = true, .at = fsdp_limit, .label = "FSDP alone compute-bound"}};
  scale_plot p = {.title = "Per-layer forward time of a D = 8192, F = 32768 MLP on 4096 TPU v5p",
                  .desc = "Communication time of each FSDP x TP split falls with the batch for "
                          "FSDP and grows for TP; the dashed matmul time rises linearly. Left of "
                          "the first marker every split is comms-bound.",
                  .x_label = "global batch B [tokens]", .y_label = "time per layer [s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 460,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT, .series = s,
                  .n_series = N_SPLITS + 1, .markers = mk, .n_markers = 2};
  chapter_figure(ch, "mlp-roofline.svg", &p);
}

/* ---- step time against chips (figure 2) ----------------------------------------------------- */

static void figure_scaling(chapter *ch, bool chk, const scale_chip *chip, const scale_model *m,
                           double batch, double seq) {
  chapter_heading(ch, "Step time against chips");
  static const double tps[] = {1, 4, 8, 16};
  enum { N_TP = sizeof tps / sizeof tps[0] };
  static double xs[N_SCALE], ys[N_TP][N_SCALE], floor_s[N_SCALE];
  static char labels[N_TP][48];
  double slice = pow(2.0, floor(log2(scale_chip_pod_chips(chip))));
  scale_plot_series s[N_TP + 1];
  for (int i = 0; i < N_SCALE; i++) {
    xs[i] = pow(2.0, 6.0 + i);
    floor_s[i] = NAN;
  }
  for (int k = 0; k < N_TP; k++) {
    scale_train_scaling_sweep(m, chip, batch, seq, tps[k], slice, xs, N_SCALE, ys[k], floor_s);
    if (tps[k] > 1.0)
      snprintf(labels[k], sizeof labels[k], "FSDP x TP %g", tps[k]);
    else
      snprintf(labels[k], sizeof labels[k], "FSDP (+ CP past 1 seq/chip)");
    s[k] = (scale_plot_series){.label = labels[k], .x = xs, .y = ys[k], .n = N_SCALE,
                               .dots = true};
  }
  s[N_TP] = (scale_plot_series){.label = "compute only", .x = xs, .y = floor_s, .n = N_SCALE,
                                 .dashed = true};
  chapter_value(ch, "scale.slice", "chips per slice (DP over DCN beyond)", slice, "",
                SCALE_FMT_PLAIN);
  /* The shape the text describes: at 8192 chips pure FSDP has left the compute floor and
   * TP 4 or 8 have not. */
  int at = (int)(log2(slice) - 6.0);
  chapter_claim(ch, chk,
                at >= 0 && at < N_SCALE && ys[0][at] > 1.05 * floor_s[at] &&
                    ys[1][at] < 1.01 * floor_s[at],
                "pure FSDP is comms-bound and FSDP x TP 4 compute-bound at one slice");
  if (at >= 0 && at < N_SCALE) {
    CHAPTER_VALUES(ch, "scale",
      CHAPTER_V("fsdp_step", "FSDP step at one slice", ys[0][at], "s"),
      CHAPTER_V("tp4_step", "FSDP x TP 4 step at one slice", ys[1][at], "s"));
  }
  scale_plot p = {.title = "LLaMA 3 70B, 4M-token batch: step time against chips (TPU v5p)",
                  .desc = "Step time of four layouts halves with each doubling of chips while "
                          "compute-bound, then flattens once communication binds; missing "
                          "points do not fit in HBM.",
                  .x_label = "chips", .y_label = "step time [s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 460,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_LEFT, .series = s, .n_series = N_TP + 1};
  chapter_figure(ch, "step-vs-chips.svg", &p);
}

/* ---- Question 3 and the planner ------------------------------------------------------------- */

static void section_q3(chapter *ch, bool chk, const scale_chip *chip, const scale_model *m) {
  chapter_heading(ch, "Question 3: LLaMA 2 13B, 3M tokens of 32k sequences on 4096 chips");
  const double n = 4096.0, batch = 3e6, seq = 32768.0, f = (double)m->d_ff;
  double c = bf16(chip), link = chip->ici_link_bytes_per_s;
  CHAPTER_VALUES(ch, "q3",
      CHAPTER_V("seqs", "sequences", floor(batch / seq), ""),
      CHAPTER_V("hbm_total", "HBM of the slice", n * chip->hbm_bytes, "B"),
      CHAPTER_V("per_chip", "tokens per chip", batch / n, "tokens"),
      {"fsdp_min", "FSDP needs at least",
       n * scale_train_dp_critical_batch(c, link, 1.0) / chip->ici_n_axes, "tokens", SCALE_FMT_SCI},
      CHAPTER_V("mixed_crit", "FSDP x TP floor per chip",
          scale_train_fsdp_tp_critical_batch(f, c, link, 2.0, 1.0), "tokens"),
      CHAPTER_V("x_opt", "X_opt", scale_train_fsdp_tp_x_opt(batch, f, n, 2.0, 1.0), ""),
      CHAPTER_V("step_book", "6 B N / (chips C 0.4), N = 13e9",
          scale_train_time_s(6.0 * batch * 13e9, n, 4.6e14, 0.4), "s"));

  /* The book's suggestion: TP subrings of 4, FSDP over batch and sequence. */
  scale_train_problem p = scale_train_problem_make(m, chip, n, batch, seq);
  scale_layout book = scale_layout_default();
  book.fsdp = 64, book.cp = 16, book.tp = 4;
  scale_train_result rb;
  if (!chapter_train_eval(ch, &p, &book, &rb)) return;
  CHAPTER_VALUES(ch, "q3",
      CHAPTER_V("book.step", "FSDP 64 x CP 16 x TP 4: step", rb.step_time_s, "s"),
      CHAPTER_V("book.ratio", "  busiest link / compute", rb.comms_time_s / rb.compute_time_s, ""),
      CHAPTER_V("book.mfu", "  MFU", 100.0 * rb.mfu, "%"));
  /* the same layout priced by the calibrated step model (appendix 14), beside the roofline */
  chapter_calibrated_gap(ch, "q3.book", &p, &book);
  scale_layout pure = scale_layout_default();
  pure.fsdp = 64, pure.cp = 64;
  scale_train_result rp;
  if (!chapter_train_eval(ch, &p, &pure, &rp)) return;
  chapter_value(ch, "q3.pure.ratio", "FSDP 64 x CP 64: busiest link / compute",
                rp.comms_time_s / rp.compute_time_s, "", SCALE_FMT_PLAIN);
  chapter_claim(ch, chk, rp.bound == SCALE_TRAIN_BOUND_COMMS,
                "FSDP over batch and sequence is comms-bound");

  chapter_heading(ch, "What the planner says");
  static scale_plan_report rep;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (!chapter_plan_train(ch, &p, &o, &rep, 5)) return;
  chapter_plan_counts(ch, "plan", &rep);
  for (int i = 0; i < 5; i++)
    chapter_plan_row(ch, "plan", &rep, i, "dp fsdp zero tp sp pp m cp cpkind saved bubble step mfu mem");
  char why[1024];
  chapter_say(ch, "why: %s", scale_plan_explain(&rep, why, sizeof why));
  const scale_train_result *best = &rep.ranked[0].result;
  CHAPTER_VALUES(ch, "plan",
      CHAPTER_V("compute", "best: compute time", best->compute_time_s, "s"),
      CHAPTER_V("vs_book", "book's layout / best", rb.step_time_s / best->step_time_s, ""));
  chapter_claim(ch, chk, best->bound == SCALE_TRAIN_BOUND_COMPUTE, "the best is compute-bound");
  chapter_claim(ch, chk, rep.ranked[0].layout.remat == SCALE_REMAT_NONE,
                "the best keeps every activation");
  const scale_layout *bl = &rep.ranked[0].layout;
  chapter_claim(ch, chk, bl->fsdp > 1.0 && bl->tp > 1.0 && bl->cp > 1.0,
                "the best is FSDP x TP x CP");
  for (int i = 0; i < 5; i++)
    chapter_claim(ch, chk, rep.ranked[i].result.bound == SCALE_TRAIN_BOUND_COMPUTE,
                  "the top five are compute-bound");
  double spread = rep.ranked[4].result.step_time_s / best->step_time_s - 1.0;
  chapter_claim(ch, chk, spread < 5e-4, "the top five tie");
  chapter_claim(ch, chk, book.remat == SCALE_REMAT_BLOCK, "the book-style layout uses block remat");
}

int main(int argc, char **argv) {
  chapter_option opts[] = {{"chip", "hardware", "tpu-v5p"},
                           {"model", "model of the strategy table and scaling figure",
                            "llama-3-70b"},
                           {"chips", "chips of the strategy table", "1024"},
                           {"batch", "global batch [tokens]", "4194304"},
                           {"seq", "sequence length [tokens]", "4096"},
                           {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "05-training",
                         "How to parallelize a transformer for training.", opts);
  if (rc >= 0) return rc;
  scale_chip chip;
  static scale_model model, moe, l70, l13, gemma, ds3;
  double n = chapter_option_number(&ch, &opts[2], SCALE_NUM_POSITIVE),
         batch = chapter_option_number(&ch, &opts[3], SCALE_NUM_POSITIVE),
         seq = chapter_option_number(&ch, &opts[4], SCALE_NUM_POSITIVE);
  if (!chapter_load_chip(&ch, opts[0].value, &chip) ||
      !chapter_load_model(&ch, opts[1].value, &model) ||
      !chapter_load_model(&ch, "mixtral-8x7b", &moe) ||
      !chapter_load_model(&ch, "llama-3-70b", &l70) ||
      !chapter_load_model(&ch, "llama-2-13b", &l13) ||
      !chapter_load_model(&ch, "gemma-7b", &gemma) ||
      !chapter_load_model(&ch, "deepseek-v3", &ds3) || ch.n_errors)
    return chapter_end(&ch);

  /* The text's claims are checked for the problems it describes (the default options). */
  bool chip_default = strcmp(opts[0].value, "tpu-v5p") == 0;
  bool chk = chip_default && strcmp(opts[1].value, "llama-3-70b") == 0 && n == 1024.0 &&
             batch == 4194304.0 && seq == 4096.0;
  chapter_heading(&ch, "The chip");
  scale_quantity q[SCALE_TRAIN_TABLE_MAX];
  chapter_quantities(&ch, "hw", q, scale_train_chip_table(&chip, q), false);
  section_strategies(&ch, chk, &chip, &model, &moe, n, batch, seq);
  section_thresholds(&ch, &chip, &l70, &gemma, &ds3);
  diagram_schedules(&ch);
  diagram_weights(&ch);
  section_zero(&ch, &l70);
  figure_mlp(&ch, chip_default, &chip);
  figure_scaling(&ch, chk, &chip, &model, batch, seq);
  section_q3(&ch, chip_default, &chip, &l13);
  return chapter_end(&ch);
}
