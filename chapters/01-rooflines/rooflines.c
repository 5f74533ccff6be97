/* rooflines.c — chapter 1, "All About Rooflines", as a program.
 *
 * Walks through T_math, T_comms, their bounds, arithmetic intensity against the critical
 * intensity of every chip in hardware/, the matmul roofline and its critical batch for each
 * dtype mix, the two-chip network roofline, and the chapter's problems. Every number the
 * chapter text cites is emitted here with --values; --figures DIR draws
 *   roofline-all.svg     attainable FLOP/s vs intensity for every chip (log-log)
 *   matmul-vs-batch.svg  T_math and T_comms of a matmul vs batch, crossover marked
 *   q3-int8-weights.svg  attainable FLOP/s vs batch, int8 weights and bf16 compute (Q3)
 *
 * Options change the example chip and the matmul shape (defaults: the book's TPU v5e and
 * D = F = 4096).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chapter.h"

#define N_CURVE 121

/* The chapter's tables and rooflines cover every plain chip of hardware/, TPU and GPU
 * (systems such as a DGX are skipped: same chip, more of it). */
#define EVERY_CHIP (CHAPTER_CHIPS_TPU | CHAPTER_CHIPS_GPU)

/** One-way bandwidth of the link a two-chip split uses: an ICI link (TPU) or NVLink (GPU). */
static double chip_link_bytes_per_s(const scale_chip *c) {
  return c->kind == SCALE_HW_TPU ? scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI)
                                 : scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_NVLINK);
}

/* [listing:attainable] */
/** The roofline itself: what a kernel of intensity I can reach on a chip of peak rate C
 * fed at W bytes/s. Below the ridge I* = C / W it is bandwidth-bound (W x I), above it
 * compute-bound (C). */
static double attainable_flops_per_s(double intensity_flops_per_byte, double flops_per_s,
                                     double bytes_per_s) {
  return fmin(flops_per_s, intensity_flops_per_byte * bytes_per_s);
}
/* [/listing:attainable] */

/* [listing:dot-product] */
/** A bf16 dot product of two length-n vectors: n multiplies and n - 1 adds, against reading
 * both vectors (2n bytes each) and writing one 2-byte result. */
static double dot_product_intensity(double n) {
  double bytes = scale_dtype_bytes(SCALE_DTYPE_BF16);
  double flops = n + (n - 1.0);
  double traffic = 2.0 * n * bytes + bytes;
  return scale_roofline_intensity_flops_per_byte(flops, traffic);
}
/* [/listing:dot-product] */

/* ---- sections ------------------------------------------------------------------------------ */

static void section_basics(chapter *ch, const chapter_chips *chips) {
  chapter_heading(ch, "T_math: 1e12 FLOPs on each chip at its 16-bit peak");
  chapter_value(ch, "example.flops", "work", 1e12, "FLOP", SCALE_FMT_SCI);
  for (int i = 0; i < chips->n; i++) {
    const scale_chip *c = &chips->chip[i];
    chapter_stem_value(ch, c->name, "t_math_1e12_s", c->display_name,
                       scale_roofline_t_math_s(c, chapter_dtype16(c), 1e12), "s", SCALE_FMT_TIME);
  }
}

static void section_critical(chapter *ch, const chapter_chips *chips) {
  chapter_heading(ch, "Critical intensity and critical batch of every chip");
  for (int i = 0; i < chips->n; i++) {
    const scale_chip *c = &chips->chip[i];
    scale_dtype d16 = chapter_dtype16(c);
    chapter_say(ch, "%s (%s compute):", c->display_name, scale_dtype_name(d16));
    chapter_stem_value(ch, c->name, "flops_per_s", "16-bit peak", scale_chip_flops_per_s(c, d16),
                       "FLOP/s", SCALE_FMT_SCI);
    chapter_stem_value(ch, c->name, "hbm_bytes_per_s", "HBM bandwidth", c->hbm_bytes_per_s, "B/s",
                       SCALE_FMT_SI);
    chapter_stem_value(ch, c->name, "hbm_intensity", "critical intensity C/W",
                       scale_chip_hbm_intensity(c, d16), "FLOP/byte", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, c->name, "critical_batch", "critical batch, 16-bit",
                       scale_roofline_critical_batch(c, d16, d16), "tokens", SCALE_FMT_PLAIN);
    chapter_stem_value(ch, c->name, "critical_batch_int8w", "critical batch, int8 weights",
                       scale_roofline_critical_batch(c, SCALE_DTYPE_INT8, d16), "tokens",
                       SCALE_FMT_PLAIN);
    double link = chip_link_bytes_per_s(c);
    if (isfinite(link)) {
      chapter_stem_value(ch, c->name, "link_bytes_per_s", "one-way chip-to-chip link", link, "B/s",
                         SCALE_FMT_SI);
      double peak = scale_chip_flops_per_s(c, d16);
      chapter_stem_value(ch, c->name, "two_chip_d", "two-chip critical D",
                         scale_roofline_two_chip_critical_d(peak, link, d16), "", SCALE_FMT_PLAIN);
    }
  }
}

static void section_dot(chapter *ch) {
  chapter_heading(ch, "A dot product is hopelessly bandwidth-bound");
  static const double ns[] = {1.0, 16.0, 1024.0, 1048576.0};
  char key[64];
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    snprintf(key, sizeof key, "dot.n%.0f", ns[i]);
    chapter_value(ch, key, key, dot_product_intensity(ns[i]), "FLOP/byte", SCALE_FMT_PLAIN);
  }
}

/* [listing:exact-crossover] */
/** The bf16 matmul X[B,D] . W[D,F] on 'chip', and the exact batch where its memory time
 * equals its compute time: the root of 2BDF / C = (2BD + 2DF + 2BF) / W. */
static double exact_critical_batch(const scale_chip *chip, double d, double f) {
  scale_matmul mm = scale_matmul_bf16(1.0, d, f);
  scale_dtype d16 = chapter_dtype16(chip);
  mm.act_dtype = mm.weight_dtype = mm.compute_dtype = d16;
  return scale_roofline_matmul_critical_batch(&mm, scale_chip_flops_per_s(chip, d16),
                                              chip->hbm_bytes_per_s);
}
/* [/listing:exact-crossover] */

static void section_matmul(chapter *ch, const scale_chip *c, double b, double d, double f) {
  chapter_heading(ch, "A matmul on the example chip");
  scale_dtype d16 = chapter_dtype16(c);
  scale_matmul mm = scale_matmul_bf16(b, d, f);
  mm.act_dtype = mm.weight_dtype = mm.compute_dtype = d16;
  scale_roofline_estimate e = scale_roofline_matmul_eval(c, &mm);
  chapter_value(ch, "mm.b", "B", b, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.d", "D", d, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.f", "F", f, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.flops", "FLOPs 2BDF", e.flops, "FLOP", SCALE_FMT_SCI);
  chapter_value(ch, "mm.flops_exact", "exact FLOPs BF(2D-1)",
                scale_roofline_matmul_flops_exact(b, d, f), "FLOP", SCALE_FMT_SCI);
  chapter_value(ch, "mm.bytes", "bytes 2BD + 2DF + 2BF", e.bytes, "B", SCALE_FMT_SI);
  chapter_value(ch, "mm.intensity", "intensity", e.intensity_flops_per_byte, "FLOP/byte",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.critical_intensity", "chip's critical intensity",
                e.critical_intensity_flops_per_byte, "FLOP/byte", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.t_math_s", "T_math", e.t_math_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "mm.t_comms_s", "T_comms", e.t_comms_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "mm.t_lower_s", "T_lower = max", e.t_lower_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "mm.t_upper_s", "T_upper = sum", e.t_upper_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "mm.critical_batch_approx", "critical batch C/W (B << D, F)",
                scale_roofline_critical_batch(c, d16, d16), "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.critical_batch_exact", "exact critical batch",
                exact_critical_batch(c, d, f), "tokens", SCALE_FMT_PLAIN);
  /* Tiles: the intensity of one 512 x 512 output tile streamed from HBM. */
  chapter_value(ch, "mm.tile", "tile side", 512.0, "", SCALE_FMT_PLAIN);
  scale_matmul big = mm;
  big.b = 16384.0;
  chapter_value(ch, "mm.tile_b", "batch of the tiled example", big.b, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.untiled_intensity", "intensity, whole matrices in one go",
                scale_roofline_matmul_intensity_flops_per_byte(&big), "FLOP/byte",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "mm.tiled_intensity", "intensity, 512 x 512 output tiles",
                scale_roofline_tiled_matmul_intensity_flops_per_byte(&big, 512.0, 512.0),
                "FLOP/byte", SCALE_FMT_PLAIN);
}

static void section_network(chapter *ch, const scale_chip *c) {
  chapter_heading(ch, "Network roofline: D split over two chips");
  scale_dtype d16 = chapter_dtype16(c);
  double link = chip_link_bytes_per_s(c);
  chapter_value(ch, "net.link_bytes_per_s", "one-way link", link, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "net.half_d", "D/2 must exceed C/W_link",
                scale_chip_flops_per_s(c, d16) / link, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "net.critical_d", "critical D",
                scale_roofline_two_chip_critical_d(scale_chip_flops_per_s(c, d16), link, d16), "",
                SCALE_FMT_PLAIN);
}

static void section_problems(chapter *ch, const scale_chip *v5e, const scale_chip *h100) {
  chapter_heading(ch, "Problems (TPU v5e and H100 SXM)");
  double c8 = scale_chip_flops_per_s(v5e, SCALE_DTYPE_INT8);
  double w = v5e->hbm_bytes_per_s;
  /* Q1: int8 x int8 with int8 OPs. */
  chapter_value(ch, "q1.int8_flops_per_s", "v5e int8 OP/s", c8, "OP/s", SCALE_FMT_SCI);
  chapter_value(ch, "q1.int8_intensity", "int8 critical intensity",
                scale_chip_hbm_intensity(v5e, SCALE_DTYPE_INT8), "OP/byte", SCALE_FMT_PLAIN);
  chapter_value(ch, "q1.critical_batch",
                "int8 critical batch", scale_roofline_critical_batch(v5e, SCALE_DTYPE_INT8,
                                                                     SCALE_DTYPE_INT8),
                "tokens", SCALE_FMT_PLAIN);
  scale_matmul q1 = scale_matmul_bf16(256.0, 8192.0, 8192.0);
  q1.act_dtype = q1.weight_dtype = q1.compute_dtype = SCALE_DTYPE_INT8;
  scale_roofline_estimate e1 = scale_roofline_matmul_eval(v5e, &q1);
  chapter_value(ch, "q1.b", "example B", q1.b, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "q1.d", "example D = F", q1.d, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "q1.bytes", "bytes BD + DF + BF", e1.bytes, "B", SCALE_FMT_SI);
  chapter_value(ch, "q1.intensity", "intensity", e1.intensity_flops_per_byte, "OP/byte",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "q1.t_math_s", "T_math", e1.t_math_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q1.t_comms_s", "T_comms", e1.t_comms_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q1.t_lower_s", "lower bound", e1.t_lower_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q1.t_upper_s", "upper bound", e1.t_upper_s, "s", SCALE_FMT_TIME);
  /* Q2: int8 weights, bf16 activations and compute. */
  chapter_value(ch, "q2.critical_batch", "int8 weights, bf16 compute",
                scale_roofline_critical_batch(v5e, SCALE_DTYPE_INT8, SCALE_DTYPE_BF16), "tokens",
                SCALE_FMT_PLAIN);
  /* Q3: the exact crossover of the two shapes in the figure. */
  static const double q3_dims[] = {4096.0, 1024.0};
  for (int i = 0; i < 2; i++) {
    scale_matmul mm = scale_matmul_bf16(1.0, q3_dims[i], q3_dims[i]);
    mm.weight_dtype = SCALE_DTYPE_INT8;
    char key[64];
    snprintf(key, sizeof key, "q3.d%.0f.critical_batch", q3_dims[i]);
    chapter_value(ch, key, key,
                  scale_roofline_matmul_critical_batch(
                      &mm, scale_chip_flops_per_s(v5e, SCALE_DTYPE_BF16), w),
                  "tokens", SCALE_FMT_PLAIN);
  }
  /* Q4: a weight matrix per example. */
  scale_matmul q4 = scale_matmul_bf16(256.0, 8192.0, 8192.0);
  q4.act_dtype = q4.weight_dtype = q4.compute_dtype = SCALE_DTYPE_INT8;
  q4.per_example_weights = true;
  chapter_value(ch, "q4.intensity", "per-example weights intensity",
                scale_roofline_matmul_intensity_flops_per_byte(&q4), "OP/byte", SCALE_FMT_PLAIN);
  /* Q5: the H100 spec sheet quotes 2:4-sparse tensor-core rates, twice the dense ones. */
  double dense = scale_chip_flops_per_s(h100, SCALE_DTYPE_BF16);
  chapter_value(ch, "q5.sparse_flops_per_s", "H100 bf16 'with sparsity'", 2.0 * dense, "FLOP/s",
                SCALE_FMT_SCI);
  chapter_value(ch, "q5.dense_flops_per_s", "H100 bf16 dense", dense, "FLOP/s", SCALE_FMT_SCI);
  chapter_value(ch, "q5.hbm_bytes_per_s", "H100 HBM", h100->hbm_bytes_per_s, "B/s",
                SCALE_FMT_SI);
  chapter_value(ch, "q5.critical_batch", "H100 critical batch",
                scale_roofline_critical_batch(h100, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16), "tokens",
                SCALE_FMT_PLAIN);
}

/* ---- figures ------------------------------------------------------------------------------- */

static void figure_roofline_all(chapter *ch, const chapter_chips *chips) {
  static double x[N_CURVE], y[CHAPTER_LIST_MAX][N_CURVE];
  scale_plot_series series[CHAPTER_LIST_MAX];
  scale_plot_point ridge[CHAPTER_LIST_MAX];
  chapter_logspace(x, N_CURVE, 1.0, 1e4);
  for (int i = 0; i < chips->n; i++) {
    const scale_chip *c = &chips->chip[i];
    double peak = scale_chip_flops_per_s(c, chapter_dtype16(c));
    for (int j = 0; j < N_CURVE; j++)
      y[i][j] = attainable_flops_per_s(x[j], peak, c->hbm_bytes_per_s);
    series[i] = (scale_plot_series){.label = c->display_name, .x = x, .y = y[i], .n = N_CURVE,
                                    .dashed = c->kind == SCALE_HW_GPU};
    ridge[i] = (scale_plot_point){.x = scale_chip_hbm_intensity(c, chapter_dtype16(c)), .y = peak};
  }
  scale_plot p = {.title = "Rooflines of every chip (16-bit matmuls from HBM)",
                  .desc = "Attainable FLOP/s against arithmetic intensity, log-log, one line per "
                          "chip; TPUs solid, GPUs dashed; a dot marks each ridge point.",
                  .x_label = "arithmetic intensity [FLOP/byte]",
                  .y_label = "attainable [FLOP/s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 480,
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                  .series = series, .n_series = (size_t)chips->n,
                  .points = ridge, .n_points = (size_t)chips->n};
  chapter_figure(ch, "roofline-all.svg", &p);
}

static void figure_matmul_vs_batch(chapter *ch, const scale_chip *c, double d, double f) {
  static double b[N_CURVE], tm[N_CURVE], tc[N_CURVE];
  chapter_logspace(b, N_CURVE, 1.0, 1e4);
  scale_dtype d16 = chapter_dtype16(c);
  for (int i = 0; i < N_CURVE; i++) {
    scale_matmul mm = scale_matmul_bf16(b[i], d, f);
    mm.act_dtype = mm.weight_dtype = mm.compute_dtype = d16;
    scale_roofline_estimate e = scale_roofline_matmul_eval(c, &mm);
    tm[i] = e.t_math_s;
    tc[i] = e.t_comms_s;
  }
  scale_plot_series s[2] = {
      {.label = "T_math (compute)", .x = b, .y = tm, .n = N_CURVE},
      {.label = "T_comms (HBM)", .x = b, .y = tc, .n = N_CURVE, .dashed = true}};
  double bc = exact_critical_batch(c, d, f);
  scale_plot_marker m = {.vertical = true, .at = bc, .label = "crossover"};
  char title[160];
  snprintf(title, sizeof title, "Matmul [B, %.0f] x [%.0f, %.0f] on %s", d, d, f,
           c->display_name);
  scale_plot p = {.title = title,
                  .desc = "Compute time grows linearly with batch while memory time is almost "
                          "flat until the activations matter; they cross at the critical batch.",
                  .x_label = "batch B [tokens]", .y_label = "time [s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s, .n_series = 2, .markers = &m, .n_markers = 1};
  chapter_figure(ch, "matmul-vs-batch.svg", &p);
}

static void figure_q3(chapter *ch, const scale_chip *v5e) {
  static double b[512], y[2][512];
  static const double dims[] = {4096.0, 1024.0};
  double peak = scale_chip_flops_per_s(v5e, SCALE_DTYPE_BF16);
  for (int i = 0; i < 512; i++) b[i] = (double)(i + 1);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 512; i++) {
      scale_matmul mm = scale_matmul_bf16(b[i], dims[k], dims[k]);
      mm.weight_dtype = SCALE_DTYPE_INT8;
      scale_roofline_estimate e = scale_roofline_matmul_eval(v5e, &mm);
      y[k][i] = e.flops / e.t_lower_s;
    }
  scale_plot_series s[2] = {{.label = "D = F = 4096", .x = b, .y = y[0], .n = 512},
                            {.label = "D = F = 1024", .x = b, .y = y[1], .n = 512,
                             .dashed = true}};
  scale_plot_marker m = {.vertical = false, .at = peak, .label = "bf16 peak"};
  scale_plot p = {.title = "Question 3: int8 weights, bf16 compute, TPU v5e",
                  .desc = "Attainable bf16 FLOP/s against batch for two matrix sizes; the smaller "
                          "matrices reach the peak at a larger batch.",
                  .x_label = "batch B [tokens]", .y_label = "attainable [FLOP/s]",
                  .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                  .y_min = 0.0, .y_max = 2.5e14,
                  .series = s, .n_series = 2, .markers = &m, .n_markers = 1};
  chapter_figure(ch, "q3-int8-weights.svg", &p);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"chip", "hardware of the worked matmul and network examples", "tpu-v5e"},
      {"b", "batch B of the worked matmul [tokens]", "256"},
      {"d", "contracting dimension D of the worked matmul", "4096"},
      {"f", "output dimension F of the worked matmul", "4096"},
      {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "01-rooflines",
                         "All about rooflines: compute, bandwidth and intensity.", opts);
  if (rc >= 0) return rc;

  static chapter_chips chips;
  scale_chip example, v5e, h100;
  if (!chapter_load_chips(&ch, EVERY_CHIP, &chips) ||
      !chapter_load_chip(&ch, opts[0].value, &example) ||
      !chapter_load_chip(&ch, "tpu-v5e", &v5e) ||
      !chapter_load_chip(&ch, "nvidia-h100-sxm", &h100))
    return chapter_end(&ch);
  double b = chapter_option_number(&ch, &opts[1], SCALE_NUM_POSITIVE),
         d = chapter_option_number(&ch, &opts[2], SCALE_NUM_POSITIVE),
         f = chapter_option_number(&ch, &opts[3], SCALE_NUM_POSITIVE);
  if (ch.n_errors) return chapter_end(&ch);

  chapter_say(&ch, "Chapter 1: All About Rooflines. Example chip: %s.", example.display_name);
  section_basics(&ch, &chips);
  section_critical(&ch, &chips);
  section_dot(&ch);
  section_matmul(&ch, &example, b, d, f);
  section_network(&ch, &example);
  section_problems(&ch, &v5e, &h100);

  figure_roofline_all(&ch, &chips);
  figure_matmul_vs_batch(&ch, &example, d, f);
  figure_q3(&ch, &v5e);
  return chapter_end(&ch);
}
