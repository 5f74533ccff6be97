/* measurements.h — published training runs (measurements/NAME.tsv): the step model's truth.
 *
 * One row per run: model and hardware stems, the layout, the batch, and one measured quantity
 * with its source. Rows of one table form a group; a group flagged "ranking" is judged by rank
 * correlation as well as by error. measurements/README.md documents every column.
 *
 * File format (strict): UTF-8 text, '#' comment lines and blank lines anywhere, then exactly one
 * header line (the column names below, tab-separated, in this order) before the first row:
 *
 *   id group ranking model hardware chips dp tp pp cp ep zero mbs vp recompute sp attn gbs
 *   seq precision metric measured source
 *
 * Degrees are integers >= 1 with dp tp pp cp = chips and ep dividing dp; zero is 0-3; mbs and vp
 * are integers >= 1 or '-' (not stated); recompute is none|selective|full|- ; sp is 0|1 ;
 * attn is unfused|flash ;
 * ranking 0|1 and equal on every row of a group; measured > 0. Ids are unique.
 */
#ifndef SCALE_MEASUREMENTS_H
#define SCALE_MEASUREMENTS_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/status.h"
#include "scale/transformer.h"
#include "scale/units.h"

#define SCALE_MEAS_SOURCE_MAX 256

/** What a row's 'measured' value is. */
typedef enum {
  SCALE_METRIC_STEP_S = 0,                /**< seconds per optimizer step */
  SCALE_METRIC_TOKENS_PER_S_PER_CHIP,     /**< training tokens per second per chip */
  SCALE_METRIC_MEGATRON_TFLOPS_PER_CHIP,  /**< Megatron 2021's TFLOP/s per GPU, recompute
                                               included: 96 B s l h^2 (1 + s/6h + V/16lh) */
  SCALE_METRIC_MAXTEXT_TFLOPS_PER_CHIP,   /**< MaxText's (2023) TFLOP/s per chip, model FLOPs:
                                               6 N + 6 L n_heads d_head s per token */
  SCALE_METRIC_COUNT
} scale_metric;

/** One published run. Unknown counts (mbs, vp given as '-') are 0. */
typedef struct {
  char id[16];                   /**< row id, unique over the shipped files ("A3", "V017") */
  char group[SCALE_NAME_MAX];    /**< the table the row belongs to */
  bool ranking;                  /**< the group is judged by rank order as well */
  char model[SCALE_NAME_MAX];    /**< models/ stem */
  char hardware[SCALE_NAME_MAX]; /**< hardware/ stem */
  double chips;                  /**< chips in the run [count] */
  double dp, tp, pp, cp, ep;     /**< parallel degrees [count] */
  int zero;                      /**< ZeRO stage of the data-parallel group, 0-3 */
  double mbs;                    /**< micro-batch size [sequences]; 0 when not stated */
  double vp;                     /**< virtual pipeline stages per rank; 0 when not stated */
  scale_recompute recompute;     /**< activation recomputation */
  bool sp;                       /**< Megatron sequence parallelism with TP */
  scale_attention attention;     /**< fused or unfused attention core */
  double gbs;                    /**< global batch [sequences] */
  double seq;                    /**< sequence length [tokens] */
  scale_dtype precision;         /**< matmul precision */
  scale_metric metric;           /**< what 'measured' is */
  double measured;               /**< the published value, in the metric's unit */
  char source[SCALE_MEAS_SOURCE_MAX]; /**< paper and table, or repository file and commit */
  char file[64];                 /**< file name it came from ("vtrain.tsv") */
  int line;                      /**< 1-based line in that file */
} scale_measurement;

/** Name of a metric as the files spell it ("step_s", ...); "?" if invalid. Static storage. */
const char *scale_metric_name(scale_metric metric);

/** Appends the rows of the TSV file at 'path' to rows[*n..cap), strictly (see the header).
 *
 * Errors: SCALE_ERR_IO; SCALE_ERR_PARSE (bad header, wrong field count, malformed number or
 *         word); SCALE_ERR_RANGE (a degree < 1, measured <= 0, more rows than cap);
 *         SCALE_ERR_INVALID (degrees whose product is not chips, ep not dividing dp, a group
 *         flagged both ways); SCALE_ERR_DUPLICATE_KEY (an id seen before in rows[0..*n)).
 *         'diag' names the file and line. Rows appended before an error stay in rows[].
 */
scale_status scale_measurements_load_file(const char *path, scale_measurement *rows, int cap,
                                          int *n, scale_diag *diag);

/** Loads every "*.tsv" of folder 'dir' (sorted by name; not "serving-*.tsv", the serving runs
 * of servecal.h) into rows[0..cap); *n is the count.
 * Errors: as scale_measurements_load_file(), SCALE_ERR_IO when the folder cannot be read.
 */
scale_status scale_measurements_load_dir(const char *dir, scale_measurement *rows, int cap,
                                         int *n, scale_diag *diag);

/** Folder of the shipped measurements: scale_data_dir()/measurements. Static storage. */
const char *scale_measurements_dir(void);

/** The row's measured step time [s]: 'measured' itself, or converted from its metric with the
 * row's batch (gbs seq tokens), chips and, for the Megatron metric, the model's l, h and V;
 * for the MaxText metric, the model's parameters, layers and attention width.
 *
 * Units:  -> [s].  Domain: a loaded row and its model; NaN for an invalid metric.
 * Source: Narayanan et al. 2021, section 5.1 (the FLOP count of the Megatron metric);
 *         google/maxtext MaxText/train.py calculate_training_tflops at 76bd53b0 (MaxText's).
 */
double scale_measurement_step_s(const scale_measurement *row, const scale_model *model);

/* ---- memory observations (measurements/memory/) ------------------------------------------- */

/** A published memory observation (measurements/memory/memory.tsv): a run's layout, whether it
 * fit, and its measured peak when published. */
typedef struct {
  scale_measurement run; /**< id, group, model, hardware and layout (metric unused) */
  char ref[16];          /**< the training row (a measurements/ TSV) it restates, or "" */
  bool oom;              /**< the source reports the run out of memory */
  double measured_bytes; /**< measured memory per chip; NaN when not published [bytes] */
} scale_measurement_memory;

/** Appends the rows of the memory TSV at 'path' to rows[*n..cap), strictly. Columns, tab-
 * separated after '#' comment lines, one header line naming them in this order:
 *   id ref group model hardware chips dp tp pp cp ep zero mbs vp recompute sp gbs seq
 *   outcome measured_bytes source
 * ref is a training row id or '-'; mbs and vp a whole number or '-'; recompute none |
 * selective | full | - ; outcome fits | oom; measured_bytes a number > 0 or '-'.
 *
 * Errors: SCALE_ERR_IO; SCALE_ERR_PARSE (header, field count, a malformed number or word);
 *         SCALE_ERR_RANGE (out of range, more rows than cap); SCALE_ERR_INVALID (degrees whose
 *         product is not chips). 'diag' names the file and line.
 */
scale_status scale_measurements_memory_load(const char *path, scale_measurement_memory *rows, int cap, int *n,
                                    scale_diag *diag);

/* ---- kernels timed alone (measurements/kernels/) ------------------------------------------- */

/** A GEMM timed alone on one chip (measurements/kernels/CHIP.NAME.tsv, measure_gpu.py):
 * 'batch' products C[m,n] = A[m,k] B[k,n] in one launch. */
typedef struct {
  char file[64];                 /**< file name it came from */
  int line;                      /**< 1-based line in that file */
  char hardware[SCALE_NAME_MAX]; /**< the chip: the file name up to its first '.' */
  scale_dtype dtype;             /**< operand format (bf16, fp8, ...) */
  double m, n, k, batch;         /**< the product's shape */
  double bytes;                  /**< the fewest bytes it moves: inputs once, output once */
  double seconds;                /**< its median time, alone, L2 flushed [s] */
} scale_measurement_kernel;

/** Appends the GEMM rows (kind gemm or bmm) of the kernel TSV at 'path' to rows[*n..cap),
 * strictly; the stream, attention and launch rows measure_gpu.py also writes are skipped.
 * Columns, tab-separated after '#' comment lines, one header line naming them:
 *   kind dtype m n k batch bytes flops seconds
 * flops must be 2 m n k batch (the file's own check of its shape).
 *
 * Errors: SCALE_ERR_IO; SCALE_ERR_PARSE (header, field count, an unknown kind, a malformed or
 *         out-of-range number); SCALE_ERR_RANGE (more rows than cap); SCALE_ERR_INVALID (a
 *         file name that is not CHIP.NAME.tsv). 'diag' names the file and line.
 */
scale_status scale_measurements_kernels_load(const char *path, scale_measurement_kernel *rows,
                                             int cap, int *n, scale_diag *diag);

/** Loads the GEMM rows of every "*.tsv" of folder 'dir' (sorted by name) into rows[0..cap);
 * *n is the count.
 * Errors: as scale_measurements_kernels_load(), SCALE_ERR_IO when the folder cannot be read.
 */
scale_status scale_measurements_kernels_load_dir(const char *dir,
                                                 scale_measurement_kernel *rows, int cap,
                                                 int *n, scale_diag *diag);

#endif
