/* gpuplot.c — the data figures of chapter 12 (gpuplot.h). */
#include "scale/gpuplot.h"

#include <math.h>
#include <stdio.h>

static scale_status invalid(scale_diag *diag, const char *why) {
  return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s", why);
}

/* ==== the systems' figures =================================================================== */

/* The words and ranges of one figure over systems: the curve's x_max (0: the whole tree). */
typedef struct {
  const char *title, *desc, *x_label, *y_label;
  scale_plot_axis y_axis;
  double y_max;
  scale_plot_legend legend;
  double x_max;
} systems_figure;

static const systems_figure figures[] = {
    [SCALE_GPU_CURVE_ALLGATHER_BW] =
        {"Effective AllGather bandwidth by GPUs spanned",
         "Bytes over AllGather time for a group of contiguous GPUs, one line per system: high "
         "inside a node, then stepping down to the leaf level's D W / (D - 1) as the group "
         "spans more nodes.",
         "GPUs in the group", "AllGather bandwidth [B/s]", SCALE_PLOT_LOG, 0,
         SCALE_PLOT_LEGEND_BOTTOM_LEFT, 0},
    [SCALE_GPU_CURVE_DP_BATCH] =
        {"Data parallelism: tokens per GPU to stay compute-bound",
         "Per-GPU batch above which pure data parallelism or FSDP over X GPUs hides its "
         "gradient ReduceScatter and AllGather, for H100, B200 and GB200 NVL72 fat trees "
         "(extended with full bisection beyond their reference size).",
         "data-parallel GPUs X", "critical batch [tokens/GPU]", SCALE_PLOT_LINEAR, 6000,
         SCALE_PLOT_LEGEND_TOP_RIGHT, 16384.0},
    [SCALE_GPU_CURVE_TP_DEGREE] =
        {"Tensor parallelism: largest compute-bound degree",
         "Largest TP degree Y whose activation collectives hide under the MLP FLOPs, against "
         "the MLP width F: F W_gpu / C inside a node, then the node plus F W_node / C once it "
         "pays to leave it.",
         "MLP width F", "TP degree Y", SCALE_PLOT_LOG, 0, SCALE_PLOT_LEGEND_TOP_LEFT, 1e6},
    [SCALE_GPU_CURVE_EP_DEGREE] = {
        "Expert parallelism across nodes: largest compute-bound degree (k = 8)",
        "Largest EP degree Z beyond one node whose two AllToAlls hide under the expert FLOPs, "
        "against the expert width F with 8 experts per token; curves reach the 4096 cap where "
        "F exceeds D_node C / W_node.",
        "expert width F", "EP degree Z", SCALE_PLOT_LOG, 0, SCALE_PLOT_LEGEND_TOP_LEFT, 1e5}};

scale_status scale_gpuplot_systems(const scale_chip *sys, int n, scale_gpu_curve_kind kind,
                                   scale_gpuplot *out, scale_diag *diag) {
  if (!sys || !out) return invalid(diag, "a figure needs every argument");
  if (n < 1 || n > SCALE_GPUPLOT_SERIES) return invalid(diag, "a figure draws 1 to 4 systems");
  if ((int)kind < 0 || (int)kind > SCALE_GPU_CURVE_EP_DEGREE)
    return invalid(diag, "unknown curve kind");
  const systems_figure *f = &figures[kind];
  snprintf(out->title, sizeof out->title, "%s", f->title);
  out->plot = (scale_plot){.title = out->title,
                           .desc = f->desc,
                           .x_label = f->x_label,
                           .y_label = f->y_label,
                           .x_axis = SCALE_PLOT_LOG,
                           .y_axis = f->y_axis,
                           .y_max = f->y_max,
                           .legend = f->legend,
                           .series = out->series,
                           .n_series = (size_t)n};
  bool widths = kind == SCALE_GPU_CURVE_TP_DEGREE || kind == SCALE_GPU_CURVE_EP_DEGREE;
  for (int i = 0; i < n; i++) {
    int m = scale_gpu_curve(&sys[i], kind, f->x_max, out->x[i], out->y[i],
                            widths ? SCALE_GPUPLOT_WIDTHS : SCALE_GPUPLOT_POINTS);
    snprintf(out->label[i], sizeof out->label[i], "%s", sys[i].display_name);
    out->series[i] = (scale_plot_series){
        .label = out->label[i], .x = out->x[i], .y = out->y[i], .n = (size_t)m, .dashed = i == 1};
    /* group sizes: from 1 to the largest group, not to the next decade */
    if (!widths && m > 0)
      out->plot.x_min = 1, out->plot.x_max = fmax(fmax(1.0, out->plot.x_max), out->x[i][m - 1]);
  }
  return SCALE_OK;
}

/* ==== AllGather time against array size ====================================================== */

scale_status scale_gpuplot_allgather_time(const scale_chip *chip, scale_gpuplot *out,
                                          scale_diag *diag) {
  if (!chip || !out) return invalid(diag, "a figure needs every argument");
  if (chip->n_net_levels < 1) return invalid(diag, "the AllGather figure needs a fat tree");
  static const double nodes[] = {1, 2, 32, 128};
  static const char *const labels[] = {"1 node", "2 nodes", "32 nodes", "128 nodes"};
  double node = chip->net_levels[0].fanout;
  for (int k = 0; k < 4; k++) {
    scale_chip tree;
    scale_gpu_tree_extend(chip, nodes[k] * node, &tree);
    for (int i = 0; i < SCALE_GPUPLOT_WIDTHS; i++) {
      /* 1e6 to 1e11 bytes, evenly spaced on a log scale */
      out->x[k][i] = 1e6 * pow(1e11 / 1e6, (double)i / (double)(SCALE_GPUPLOT_WIDTHS - 1));
      out->y[k][i] = scale_gpu_all_gather_s(&tree, nodes[k] * node, 1, out->x[k][i]);
    }
    snprintf(out->label[k], sizeof out->label[k], "%s", labels[k]);
    out->series[k] = (scale_plot_series){.label = out->label[k],
                                         .x = out->x[k],
                                         .y = out->y[k],
                                         .n = SCALE_GPUPLOT_WIDTHS,
                                         .dashed = k % 2 == 1};
  }
  snprintf(out->title, sizeof out->title, "AllGather time on %s", chip->display_name);
  out->plot = (scale_plot){.title = out->title,
                           .desc = "Bandwidth-bound AllGather time against array size in one "
                                   "node and across 2, 32 and 128 nodes; one node and two nodes "
                                   "coincide because the node level binds over two nodes.",
                           .x_label = "array size [bytes]",
                           .y_label = "time [s]",
                           .x_axis = SCALE_PLOT_LOG,
                           .y_axis = SCALE_PLOT_LOG,
                           .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                           .series = out->series,
                           .n_series = 4};
  return SCALE_OK;
}
