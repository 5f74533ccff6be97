/* gpuplot.h — the data figures of chapter 12, drawn with plot.h from gpu.h values: the
 * effective AllGather bandwidth of a group against the GPUs it spans, the AllGather time
 * against array size, and the DP, TP and EP thresholds of the LLM rooflines.
 *
 * Each builder fills a scale_gpuplot: the plot (plot.h) and the storage it points into (series,
 * labels, the curves' points), so the figure stays valid as long as the struct does and is
 * written with scale_plot_svg() or scale_plot_write(). A scale_gpuplot is about 160 kB: give
 * it static storage. The figures' words (titles, descriptions, axis captions) are the book's;
 * their numbers come from the gpu.h functions named with each builder.
 *
 * Book: ch. 12 "How to Think About GPUs": "Networking", "How Do Collectives Work on GPUs?",
 * "Rooflines for LLM Scaling on GPUs".
 */
#ifndef SCALE_GPUPLOT_H
#define SCALE_GPUPLOT_H

#include "scale/gpu.h"
#include "scale/hardware.h"
#include "scale/plot.h"
#include "scale/status.h"

/** Most series and points a scale_gpuplot holds. */
#define SCALE_GPUPLOT_SERIES 4
#define SCALE_GPUPLOT_POINTS 2400

/** Points of a curve against a width (TP and EP figures) or an array size (AllGather time). */
#define SCALE_GPUPLOT_WIDTHS 97

/** A figure and the storage its plot points into. */
typedef struct {
  scale_plot plot;                                      /**< the figure */
  scale_plot_series series[SCALE_GPUPLOT_SERIES];       /**< its curves */
  char title[160];                                      /**< its title */
  char label[SCALE_GPUPLOT_SERIES][SCALE_NAME_MAX];     /**< its series' legend texts */
  double x[SCALE_GPUPLOT_SERIES][SCALE_GPUPLOT_POINTS]; /**< each curve's abscissae */
  double y[SCALE_GPUPLOT_SERIES][SCALE_GPUPLOT_POINTS]; /**< each curve's ordinates */
} scale_gpuplot;

/** One of ch. 12's figures over systems sys[0..n): one line a system, scale_gpu_curve() of
 * 'kind' (the second dashed), labelled with the system's display name:
 *   SCALE_GPU_CURVE_ALLGATHER_BW  the effective AllGather bandwidth of a group against the
 *                                 GPUs it spans, over each whole tree (log-log);
 *   SCALE_GPU_CURVE_DP_BATCH      DP's critical batch against data-parallel GPUs up to 16384,
 *                                 the trees extended beyond their size (0 to 6000 tokens);
 *   SCALE_GPU_CURVE_TP_DEGREE     the largest TP degree against MLP widths 1e3 to 1e6;
 *   SCALE_GPU_CURVE_EP_DEGREE     the largest EP degree (k = 8) against expert widths 1e3 to
 *                                 1e5.
 * Against group sizes the x axis runs from 1 to the largest group, not the next decade.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument, n outside 1..SCALE_GPUPLOT_SERIES or an
 *         unknown kind ('diag' says).
 * Book:   ch. 12 figures fat-tree-bandwidth, dp-thresholds, tp-thresholds, ep-thresholds.
 */
scale_status scale_gpuplot_systems(const scale_chip *sys, int n, scale_gpu_curve_kind kind,
                                   scale_gpuplot *out, scale_diag *diag);

/** Ch. 12's AllGather-time figure: scale_gpu_all_gather_s() of arrays of 1e6 to 1e11 bytes
 * (SCALE_GPUPLOT_WIDTHS log-spaced sizes) over one node of 'chip' and over 2, 32 and 128
 * nodes, the tree extended where it holds fewer (scale_gpu_tree_extend()), log-log.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument or a chip without a tree ('diag' says).
 * Book:   ch. 12 "How Do Collectives Work on GPUs?": one node and two coincide, the node
 *         level binding over two nodes (Quiz 4 Q5).
 */
scale_status scale_gpuplot_allgather_time(const scale_chip *chip, scale_gpuplot *out,
                                          scale_diag *diag);

#endif
