/* diagram.h — concept diagrams drawn from the library's own values: a sharded array on its
 * mesh, the steps of a ring collective, a torus, a pipeline schedule's Gantt chart.
 *
 * plot.h draws data; this module draws the pictures the book explains them with. Every
 * quantity a diagram shows is computed by the module that prices it (sharding.h places the
 * blocks, collectives.h counts the hops, schedule.h plays the passes), so a diagram cannot
 * disagree with the numbers beside it; tests/lib/test_diagram.c counts the drawn elements
 * against those functions. Each diagram is one standalone SVG document written into a caller
 * buffer (snprintf-style: buf NULL and size 0 measures), deterministic to the byte, with a
 * <title>, an alternative text (<desc>) that states its numbers, and text placed as plot.h
 * places it: no two texts overlap and none leaves the canvas (estimated at 0.6 em a
 * character, 0.8 em above the baseline and 0.25 em below), checked as it is drawn, so a
 * diagram that would break the rule is an error, never a smudge.
 *
 * Errors (every function): SCALE_ERR_INVALID for NULL or out-of-domain inputs; SCALE_ERR_RANGE
 * when the document does not fit in 'size' (*len then holds the size needed) or when its text
 * cannot be placed without overlap (too many devices for the canvas). 'diag' (may be NULL)
 * says which.
 *
 * Book: ch. 2 (the torus), ch. 3 (sharded arrays, collectives), ch. 5 (pipeline schedules),
 * ch. 8 (a continuous-batching timeline).
 */
#ifndef SCALE_DIAGRAM_H
#define SCALE_DIAGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "scale/collectives.h"
#include "scale/model.h"
#include "scale/schedule.h"
#include "scale/serve.h"
#include "scale/sharding.h"
#include "scale/training.h"
#include "scale/status.h"

/** A two-dimensional array sharded over a mesh of one or two axes (at most 16 devices, at
 * most 16 blocks along a dimension): on the left the whole array cut into its blocks, each
 * in the colour of the device that holds it (a swatch per device where several hold copies); on the
 * right the mesh, each device showing which block it holds. Book: ch. 3, A[I_X, J_Y] on a 2 x 2
 * mesh. */
scale_status scale_diagram_sharded_array(const scale_mesh *mesh, const scale_sharding *s, char *buf,
                                         size_t size, size_t *len, scale_diag *diag);

/** A . B on a mesh (both 2-D, sharing their contracting dimension; mesh as for
 * scale_diagram_sharded_array()): the two operands' blocks, the case of ch. 3 and the
 * collectives scale_sharding_matmul_plan() says it needs. Book: ch. 3's four cases. */
scale_status scale_diagram_sharded_matmul(const scale_mesh *mesh, const scale_sharding *a,
                                          const scale_sharding *b, char *buf, size_t size,
                                          size_t *len, scale_diag *diag);

/** The steps of AllGather, ReduceScatter or AllReduce (ReduceScatter then AllGather) of an
 * array of 'bytes' on a one-way ring of n devices (2..8): one row per state, each device's n
 * chunks coloured by what it holds, one arrow per chunk sent. Each link carries
 * scale_collective_ring_link_bytes(op, n, bytes, false). AllToAll is SCALE_ERR_INVALID. */
scale_status scale_diagram_ring_steps(scale_collective op, int n, double bytes, char *buf,
                                      size_t size, size_t *len, scale_diag *diag);

/** A two-axis group of ring axes (at most 8 x 8) as chips and links, the wraparound links
 * drawn as dashed stubs, with the farthest chip's hop count from scale_collective_p2p_hops().
 * 'name' (the chip's, may be NULL) heads the title. Book: ch. 2, a v5e 4x4 has no
 * wraparound: (0,0) to (3,3) is 6 hops. */
scale_status scale_diagram_torus(const char *name, const scale_group *group, char *buf, size_t size,
                                 size_t *len, scale_diag *diag);

/* ---- timelines: rows against time ----------------------------------------------------------- */

/** A kind of span: its legend entry and its look. */
typedef struct {
  const char *name; /**< legend text */
  const char *fill; /**< an SVG colour ("#4e79a7"); NULL: the hatched pattern of idle time */
  const char *cls;  /**< the class of its rects ("pass", "idle"), by which tests find them */
  const char *label_fill; /**< the colour of the labels on its bars; NULL: black */
} scale_diagram_style;

/** One bar: a row's span of time in a style, with a short label drawn inside when it fits. */
typedef struct {
  int row;        /**< 0 .. n_rows - 1, top first */
  int style;      /**< 0 .. n_styles - 1 */
  double start_s; /**< from the chart's origin [s] */
  double dur_s;   /**< > 0 [s] */
  char label[12]; /**< "" for none */
} scale_diagram_span;

/** A timeline chart: rows (pipeline stages, requests) against time from 0 to end_s. */
typedef struct {
  const char *title;                   /**< heads the chart */
  const char *desc;                    /**< its alternative text, stating its numbers */
  const char *foot;                    /**< a last line; NULL: none */
  const char *const *rows;             /**< [n_rows] row labels, top first */
  int n_rows;                          /**< 1 .. 32 */
  const scale_diagram_style *styles;   /**< [n_styles]; those used get a legend entry */
  int n_styles;                        /**< 1 .. 16 */
  const scale_diagram_span *spans;     /**< [n_spans], drawn in order */
  size_t n_spans;                      /**< at most 8192 */
  const double *marks_s;               /**< [n_marks] times drawn as thin lines across the
                                            rows (a serving run's step boundaries); NULL: none */
  size_t n_marks;                      /**< at most 4096 */
  double end_s;                        /**< the time axis's end, > 0 [s] */
  bool axis;                           /**< a time axis with ticks under the rows */
} scale_diagram_chart;

/** Draws a timeline chart, 640 px wide: the row labels on the left, each span a bar of its
 * style (its rect carrying data-start-s and data-dur-s, exact), the marks, the time axis, a
 * legend of the styles used and the foot. The renderer of scale_diagram_gantt() and
 * scale_diagram_serving(), and of any other timeline (a training step's streams).
 * Errors: SCALE_ERR_INVALID for a span outside its row, style or time range or a count out of
 *         its domain; SCALE_ERR_RANGE as for every diagram. */
scale_status scale_diagram_timeline(const scale_diagram_chart *chart, char *buf, size_t size,
                                    size_t *len, scale_diag *diag);

/** The Gantt chart of a played schedule (schedule.h), drawn by scale_diagram_timeline(): a row
 * per stage, forward and backward passes as bars numbered by microbatch, the idle time as
 * hatched gaps whose area is timeline->bubble_frac of the busy area, a legend. 'title' names
 * the schedule (may be NULL). */
scale_status scale_diagram_gantt(const char *title, int p, const scale_pp_pass *passes,
                                 const scale_timeline *timeline, char *buf, size_t size,
                                 size_t *len, scale_diag *diag);

/** The continuous-batching timeline of a traced serving run (serve.h), drawn by
 * scale_diagram_timeline(): one row per request (the trace's first, at most 24), time from the
 * first arrival to the last of their finishes, the step boundaries as thin lines; each
 * request queued (hatched) until admitted, then in each step idle, prefilling a chunk
 * (labelled with its tokens where it fits), decoding, or preempted and waiting to recompute.
 * A request's spans add up to its life: arrival to first token is its TTFT, arrival to finish
 * its latency. 'title' may be NULL. A truncated trace, or one whose requests did not all
 * finish within it, is SCALE_ERR_INVALID. Book: ch. 8 "Serving under load". */
scale_status scale_diagram_serving(const char *title, const scale_serve_trace *trace, char *buf,
                                   size_t size, size_t *len, scale_diag *diag);

/** One layer of a transformer, top to bottom: the norms, the attention projections with their
 * weight shapes, attention over 'context' tokens, the MLP or the experts, the residuals; each
 * box with its forward FLOPs per token from transformer.h (attention averaged over a causal
 * context). Book: ch. 4 "Transformer Math", the layer's shapes. */
scale_status scale_diagram_transformer_block(const scale_model *model, double context, char *buf,
                                             size_t size, size_t *len, scale_diag *diag);

/** A GPU system's fat tree (hardware.h's net_levels): one band per level, outermost at the
 * top, each with its switches, its fanout and the one-way egress of a member into it, down to
 * the GPUs of one node joined by NVSwitch. Book: ch. 12 "Beyond the node: the fat tree"; the
 * 1024-GPU DGX H100 SuperPod: 8 GPUs x 32 nodes x 4 units. */
scale_status scale_diagram_fat_tree(const scale_chip *chip, char *buf, size_t size, size_t *len,
                                    scale_diag *diag);

/** Memory per chip under plain data parallelism and ZeRO stages 1-3 for 'n_params' parameters
 * over 'n_shards' chips: one bar a stage, stacked weights, gradients and optimizer state from
 * scale_train_zero_bytes_per_chip(), heights to one scale. Book: ch. 5 "ZeRO-{1,2,3}";
 * Rajbhandari et al. Figure 1 (7.5B parameters over 64 chips: 120, 31.4, 16.6, 1.88 GB). */
scale_status scale_diagram_zero_stages(const scale_precision *prec, double n_params,
                                       double n_shards, char *buf, size_t size, size_t *len,
                                       scale_diag *diag);

/** The KV caches of n requests (1..8) of tokens[i] tokens each: padded to a context limit
 * (limit_tokens <= 4096), then paged in blocks of block_tokens as scale_serve_kv_blocks()
 * reserves them, the empty slots hatched, with both footprints at kv_bytes_per_token. Book:
 * ch. 7 "Ragged reads and paging" (PagedAttention, Kwon et al. 2023). */
scale_status scale_diagram_paged_kv(const double *tokens, int n, double block_tokens,
                                    double limit_tokens, double kv_bytes_per_token, char *buf,
                                    size_t size, size_t *len, scale_diag *diag);

#endif
