/* inferplot.h — the data figures of the serving chapters, drawn with plot.h from inference.h
 * and serveload.h values: the decode step against batch, KV bytes against context, the
 * speedup of speculative decoding (ch. 7), the latency/throughput frontier, the decode step's
 * parts, latency under load (ch. 8).
 *
 * Each builder fills a scale_inferplot: the plot (plot.h) and the storage it points into
 * (series, markers, labels, the curves' points), so the figure stays valid as long as the
 * struct does and is written with scale_plot_svg() or scale_plot_write(). A scale_inferplot
 * is about 100 kB: give it static storage. The figures' words (titles, descriptions, axis
 * captions) are the book's; their numbers come from the functions named with each builder.
 *
 * Book: ch. 7 "All About Transformer Inference", ch. 8 "Serving LLaMA 3 70B on TPUs".
 */
#ifndef SCALE_INFERPLOT_H
#define SCALE_INFERPLOT_H

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/plot.h"
#include "scale/serveload.h"
#include "scale/status.h"

/** Most series and points of a scale_inferplot's curves. */
#define SCALE_INFERPLOT_SERIES 8
#define SCALE_INFERPLOT_POINTS 1024

/** A figure and the storage its plot points into. */
typedef struct {
  scale_plot plot;                                  /**< the figure */
  scale_plot_series series[SCALE_INFERPLOT_SERIES]; /**< its curves */
  scale_plot_marker marker[3];                      /**< its reference lines */
  scale_plot_point point[1];                        /**< its labelled points */
  char title[256];                                  /**< its title */
  char desc[512];                                   /**< its description */
  char label[SCALE_INFERPLOT_SERIES + 3][96];       /**< series, then marker labels */
  double data[SCALE_INFERPLOT_SERIES + 1][SCALE_INFERPLOT_POINTS]; /**< x, then the curves */
} scale_inferplot;

/** Ch. 7's step-vs-batch figure: the book's decode step (scale_infer_step_time_s()) of 'model'
 * in bf16 on 'n_chips' chips at 'context' tokens, against batch 1 to 1024 on 97 log-spaced
 * points, with the full KV cache, one 5x smaller and none, the critical batch and where HBM
 * fills (scale_infer_max_batch() of what the weights leave) marked.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument ('diag' says).
 */
scale_status scale_inferplot_step_vs_batch(const scale_model *model, const scale_chip *chip,
                                           double n_chips, double context, scale_inferplot *out,
                                           scale_diag *diag);

/** Ch. 7's KV-vs-context figure: the KV bytes of one sequence of 'model' against context 1024
 * to 131072 tokens (97 log-spaced points) in bf16 (MHA), then with 8 KV heads (GQA), in int8,
 * with a fraction 'local_frac' of local layers over 'window' tokens
 * (scale_infer_local_kv_bytes()), beside 'reference' in bf16, the chip's HBM marked.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument ('diag' says).
 */
scale_status scale_inferplot_kv_vs_context(const scale_model *model, const scale_model *reference,
                                           const scale_chip *chip, double window, double local_frac,
                                           scale_inferplot *out, scale_diag *diag);

/** Ch. 7's speculative-decoding figure: scale_infer_spec_speedup() against 1 to 16 drafted
 * tokens for acceptance rates 0.6, 0.8 and 0.9, a draft step costing 'draft_cost_ratio' of a
 * target step and a verification one; "no speedup" marked at 1. */
void scale_inferplot_spec_speedup(double draft_cost_ratio, scale_inferplot *out);

/** Ch. 8's frontier figure: throughput per chip against per-token latency of each frontier of
 * 'f' (scale_infer_frontiers_eval() of 'model' on 'n_chips' of 'chip'), one line per context.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument ('diag' says).
 */
scale_status scale_inferplot_frontier(const scale_infer_frontiers *f, const scale_model *model,
                                      const scale_chip *chip, double n_chips, scale_inferplot *out,
                                      scale_diag *diag);

/** Ch. 8's step-breakdown figure: scale_infer_decode_eval() of 'cfg' at batches 1, 2, ... up
 * to the largest that fits (at most SCALE_INFERPLOT_POINTS; scale_infer_decode_sweep()), the
 * step and its parts (weights, KV, FLOPs, collectives) on log-log axes, the critical batch of
 * the weight and compute dtypes marked and the full-HBM point labelled.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument, SCALE_ERR_RANGE when not one sequence fits
 *         ('diag' says).
 */
scale_status scale_inferplot_step_breakdown(const scale_model *model, const scale_chip *chip,
                                            const scale_infer_config *cfg, scale_inferplot *out,
                                            scale_diag *diag);

/** Ch. 8's serving-load figure: median TPOT (solid) and p90 TTFT (dashed) against output
 * tokens/s per chip of curve[i] (scale_serveload_curve_run() of load[i]), i < n <= 4; the
 * description names the first curve's range of rates.
 *
 * Errors: SCALE_ERR_INVALID for a NULL argument or n out of range ('diag' says).
 */
scale_status scale_inferplot_load(const scale_serveload *load, const scale_serveload_curve *curve,
                                  int n, scale_inferplot *out, scale_diag *diag);

#endif
