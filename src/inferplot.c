/* inferplot.c — the data figures of the serving chapters (inferplot.h). */
#include "scale/inferplot.h"

#include <math.h>
#include <stdio.h>

#include "scale/roofline.h"
#include "scale/transformer.h"

/* Clears *out and frames its plot (scale_plot_frame()) over its first n series. */
static void frame(scale_inferplot *out, const char *title, const char *desc, const char *x_label,
                  const char *y_label, scale_plot_axis x_axis, scale_plot_axis y_axis, size_t n) {
  snprintf(out->title, sizeof out->title, "%s", title);
  snprintf(out->desc, sizeof out->desc, "%s", desc);
  out->plot =
      scale_plot_frame(out->title, out->desc, x_label, y_label, x_axis, y_axis, out->series, n);
}

static scale_status null_arg(scale_diag *diag) {
  return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "a figure needs every argument");
}

/* n points from lo to hi evenly spaced on a log scale */
static void logspace(double *x, int n, double lo, double hi) {
  for (int i = 0; i < n; i++)
    x[i] = lo * pow(hi / lo, (double)i / (double)(n - 1));
}

/* ---- ch. 7 ----------------------------------------------------------------------------------- */

#define CURVE_POINTS 97

scale_status scale_inferplot_step_vs_batch(const scale_model *model, const scale_chip *chip,
                                           double n_chips, double context, scale_inferplot *out,
                                           scale_diag *diag) {
  if (!model || !chip || !out) return null_arg(diag);
  double *b = out->data[0];
  logspace(b, CURVE_POINTS, 1.0, 1024.0);
  double n_params = scale_transformer_n_params(model);
  double wbytes = n_params * scale_dtype_bytes(SCALE_DTYPE_BF16);
  double w = n_chips * chip->hbm_bytes_per_s;
  double f = n_chips * scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16);
  double kv = scale_transformer_kv_bytes(model, context, SCALE_DTYPE_BF16);
  static const double kv_div[3] = {1.0, 5.0, INFINITY}; /* full, 5x smaller, none */
  static const char *const names[3] = {"full KV cache", "5x smaller KV cache",
                                       "no KV cache (weights and FLOPs)"};
  for (int k = 0; k < 3; k++) {
    double kv_k = isinf(kv_div[k]) ? 0.0 : kv / kv_div[k];
    for (int i = 0; i < CURVE_POINTS; i++)
      out->data[1 + k][i] = scale_infer_step_time_s(b[i], kv_k, wbytes, n_params, f, w);
    out->series[k] = (scale_plot_series){
        .label = names[k], .x = b, .y = out->data[1 + k], .n = CURVE_POINTS, .dashed = k > 0};
  }
  double hbm = n_chips * chip->hbm_bytes;
  out->marker[0] = (scale_plot_marker){
      .vertical = true,
      .at = scale_roofline_critical_batch(chip, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16),
      .label = "critical batch"};
  out->marker[1] = (scale_plot_marker){
      .vertical = true, .at = scale_infer_max_batch(hbm - wbytes, kv), .label = "HBM full"};
  out->marker[2] = (scale_plot_marker){.vertical = true,
                                       .at = scale_infer_max_batch(hbm - wbytes, kv / 5.0),
                                       .label = "HBM full (5x)"};
  snprintf(out->title, sizeof out->title,
           "Decode step of %.80s on %.0f x %.80s, %.0f-token context", model->display_name, n_chips,
           chip->display_name, context);
  out->plot = (scale_plot){
      .title = out->title,
      .desc = "Step time against batch, log-log: flat while weight loading dominates, then "
              "growing with the KV caches; the weights-only curve turns up at the critical "
              "batch.",
      .x_label = "batch B [sequences]",
      .y_label = "step time [s]",
      .x_axis = SCALE_PLOT_LOG,
      .y_axis = SCALE_PLOT_LOG,
      .x_min = 1.0,
      .x_max = 1024.0,
      .y_min = 1e-4,
      .y_max = 10.0,
      .width_px = 720,
      .height_px = 440,
      .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
      .series = out->series,
      .n_series = 3,
      .markers = out->marker,
      .n_markers = 3};
  return SCALE_OK;
}

scale_status scale_inferplot_kv_vs_context(const scale_model *model, const scale_model *reference,
                                           const scale_chip *chip, double window, double local_frac,
                                           scale_inferplot *out, scale_diag *diag) {
  if (!model || !reference || !chip || !out) return null_arg(diag);
  double *s = out->data[0];
  logspace(s, CURVE_POINTS, 1024.0, 131072.0);
  scale_model gqa = *model;
  gqa.n_kv_heads = 8;
  for (int i = 0; i < CURVE_POINTS; i++) {
    out->data[1][i] = scale_transformer_kv_bytes(model, s[i], SCALE_DTYPE_BF16);
    out->data[2][i] = scale_transformer_kv_bytes(&gqa, s[i], SCALE_DTYPE_BF16);
    out->data[3][i] = scale_transformer_kv_bytes(&gqa, s[i], SCALE_DTYPE_INT8);
    out->data[4][i] = scale_infer_local_kv_bytes(&gqa, SCALE_DTYPE_INT8, s[i], local_frac, window);
    out->data[5][i] = scale_transformer_kv_bytes(reference, s[i], SCALE_DTYPE_BF16);
  }
  snprintf(out->label[0], sizeof out->label[0], "%s (MHA, bf16)", model->display_name);
  snprintf(out->label[4], sizeof out->label[4], "%s (GQA, bf16)", reference->display_name);
  snprintf(out->label[1], sizeof out->label[1], "+ GQA, 8 KV heads");
  snprintf(out->label[2], sizeof out->label[2], "+ int8");
  snprintf(out->label[3], sizeof out->label[3], "+ local layers");
  for (int k = 0; k < 5; k++)
    out->series[k] = (scale_plot_series){
        .label = out->label[k], .x = s, .y = out->data[1 + k], .n = CURVE_POINTS, .dashed = k == 4};
  snprintf(out->label[5], sizeof out->label[5], "HBM of one %s", chip->display_name);
  out->marker[0] =
      (scale_plot_marker){.vertical = false, .at = chip->hbm_bytes, .label = out->label[5]};
  out->plot = (scale_plot){
      .title = "KV cache of one sequence against context",
      .desc = "Bytes of one sequence's KV cache, log-log, for MHA in bf16 and after each "
              "reduction in turn; local layers bend the curve once the context passes the "
              "window.",
      .x_label = "context S [tokens]",
      .y_label = "KV cache [bytes]",
      .x_axis = SCALE_PLOT_LOG,
      .y_axis = SCALE_PLOT_LOG,
      .x_min = 1024.0,
      .x_max = 131072.0,
      .width_px = 720,
      .height_px = 440,
      .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
      .series = out->series,
      .n_series = 5,
      .markers = out->marker,
      .n_markers = 1};
  return SCALE_OK;
}

void scale_inferplot_spec_speedup(double draft_cost_ratio, scale_inferplot *out) {
  static const double accept[] = {0.6, 0.8, 0.9};
  double *g = out->data[0];
  for (int i = 0; i < 16; i++)
    g[i] = (double)(i + 1);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 16; i++)
      out->data[1 + k][i] = scale_infer_spec_speedup(accept[k], g[i], draft_cost_ratio, 1);
    snprintf(out->label[k], sizeof out->label[k], "acceptance %.1f", accept[k]);
    out->series[k] = (scale_plot_series){.label = out->label[k],
                                         .x = g,
                                         .y = out->data[1 + k],
                                         .n = 16,
                                         .dots = true,
                                         .dashed = k != 1};
  }
  out->marker[0] = (scale_plot_marker){.vertical = false, .at = 1.0, .label = "no speedup"};
  out->plot = (scale_plot){
      .title = "Speculative decoding: expected speedup",
      .desc = "Speedup over plain decoding against the number of drafted tokens, for three "
              "acceptance rates, with a draft step costing the draft's share of the target's "
              "weight bytes.",
      .x_label = "drafted tokens per round",
      .y_label = "speedup [x]",
      .x_min = 1.0,
      .x_max = 16.0,
      .y_min = 0.0,
      .y_max = 5.0,
      .legend = SCALE_PLOT_LEGEND_TOP_RIGHT,
      .series = out->series,
      .n_series = 3,
      .markers = out->marker,
      .n_markers = 1};
}

/* ---- ch. 8 ----------------------------------------------------------------------------------- */

scale_status scale_inferplot_frontier(const scale_infer_frontiers *f, const scale_model *model,
                                      const scale_chip *chip, double n_chips, scale_inferplot *out,
                                      scale_diag *diag) {
  if (!f || !model || !chip || !out) return null_arg(diag);
  for (int k = 0; k < f->n_contexts; k++) {
    snprintf(out->label[k], sizeof out->label[k], "context %.0f", f->context[k]);
    out->series[k] = (scale_plot_series){.label = out->label[k],
                                         .x = f->lat_s[k],
                                         .y = f->tput[k],
                                         .n = (size_t)f->n_batches,
                                         .dashed = k % 2 == 1};
  }
  char title[256];
  snprintf(title, sizeof title, "%.80s on %.0f x %.80s: latency against throughput",
           model->display_name, n_chips, chip->display_name);
  frame(out, title,
        "Throughput per chip against per-token latency as the batch grows from 1 to the "
        "largest that fits, one line per context length; int8 weights and KV caches, bf16 "
        "FLOPs.",
        "per-token latency (step time) [s]", "throughput [tokens/s per chip]", SCALE_PLOT_LINEAR,
        SCALE_PLOT_LOG, (size_t)f->n_contexts);
  out->plot.legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT;
  return SCALE_OK;
}

scale_status scale_inferplot_step_breakdown(const scale_model *model, const scale_chip *chip,
                                            const scale_infer_config *cfg, scale_inferplot *out,
                                            scale_diag *diag) {
  if (!model || !chip || !cfg || !out) return null_arg(diag);
  scale_infer_config c = *cfg;
  c.batch = 1.0; /* the largest batch does not depend on it (scale_infer_decode_sweep()) */
  double max_b = scale_infer_memory_eval(model, chip, &c).max_batch;
  int n = 0;
  for (int i = 1; i <= SCALE_INFERPLOT_POINTS && i <= (int)max_b; i++, n++) {
    c.batch = (double)i;
    scale_infer_decode d = scale_infer_decode_eval(model, chip, &c);
    double col[6] = {c.batch, d.step_s, d.t_params_s, d.t_kv_s, d.t_flops_s, d.t_ici_s};
    for (int k = 0; k < 6; k++)
      out->data[k][n] = col[k];
  }
  if (n == 0) return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "not even one sequence fits");
  static const char *const names[5] = {"step time", "weight loading", "KV loading", "matmul FLOPs",
                                       "ICI collectives"};
  for (int k = 0; k < 5; k++)
    out->series[k] = (scale_plot_series){.label = names[k],
                                         .x = out->data[0],
                                         .y = out->data[1 + k],
                                         .n = (size_t)n,
                                         .dashed = k > 0};
  out->marker[0] = (scale_plot_marker){
      .vertical = true,
      .at = scale_roofline_critical_batch(chip, cfg->weight_dtype, cfg->compute_dtype),
      .label = "critical batch"};
  double last_b = out->data[0][n - 1];
  out->point[0] = (scale_plot_point){.x = last_b, .y = out->data[1][n - 1], .label = "HBM full"};
  char title[256];
  snprintf(title, sizeof title, "Decode step of %.80s on %.0f x %.80s, %.0f-token context",
           model->display_name, cfg->n_chips, chip->display_name, cfg->context);
  frame(out, title,
        "Step time and its parts against batch up to the largest batch that fits, log-log: "
        "weight loading is flat, KV loading, FLOPs and collectives grow with the batch; the "
        "FLOPs overtake the weights at the critical batch.",
        "batch B [sequences]", "time [s]", SCALE_PLOT_LOG, SCALE_PLOT_LOG, 5);
  out->plot.x_min = 1.0, out->plot.x_max = 1.5 * last_b;
  out->plot.markers = out->marker, out->plot.n_markers = 1;
  out->plot.points = out->point, out->plot.n_points = 1;
  return SCALE_OK;
}

scale_status scale_inferplot_load(const scale_serveload *load, const scale_serveload_curve *curve,
                                  int n, scale_inferplot *out, scale_diag *diag) {
  if (!load || !curve || !out || n < 1 || 2 * n > SCALE_INFERPLOT_SERIES)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "a load figure draws 1 to %d systems",
                          SCALE_INFERPLOT_SERIES / 2);
  for (int i = 0; i < n; i++) {
    const scale_serveload *l = &load[i];
    const scale_serveload_curve *c = &curve[i];
    snprintf(out->label[2 * i], sizeof out->label[0], "%.40s on %g %.20s: TPOT p50",
             l->model->display_name, l->tp, l->chip->display_name);
    snprintf(out->label[2 * i + 1], sizeof out->label[0], "%.40s on %g %.20s: TTFT p90",
             l->model->display_name, l->tp, l->chip->display_name);
    out->series[2 * i] = (scale_plot_series){.label = out->label[2 * i],
                                             .x = c->tput_per_chip,
                                             .y = c->tpot_p50_s,
                                             .n = (size_t)c->n_points,
                                             .dots = true};
    out->series[2 * i + 1] = (scale_plot_series){.label = out->label[2 * i + 1],
                                                 .x = c->tput_per_chip,
                                                 .y = c->ttft_p90_s,
                                                 .n = (size_t)c->n_points,
                                                 .dashed = true,
                                                 .dots = true};
  }
  const scale_serveload_curve *c0 = &curve[0];
  char desc[512];
  snprintf(desc, sizeof desc,
           "Time per output token (median) and time to first token (p90) against output "
           "tokens/s per chip as the Poisson arrival rate rises from %.0f%% to %.0f%% of each "
           "system's offline maximum, from the request-stream simulator with the calibrated "
           "step cost.",
           100 * c0->rate_frac[0], 100 * c0->rate_frac[c0->n_points > 0 ? c0->n_points - 1 : 0]);
  frame(out, "Serving under load: latency against throughput", desc,
        "throughput [output tokens/s per chip]", "latency [s]", SCALE_PLOT_LOG, SCALE_PLOT_LOG,
        (size_t)(2 * n));
  return SCALE_OK;
}
