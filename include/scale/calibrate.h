/* calibrate.h — fitting the step model's parameters to measurements/, and judging the fit.
 *
 * The fit is deterministic least squares: Levenberg-Marquardt on the residuals
 * w_i log(predicted_i / measured_i), each row weighted w_i = 1 / sqrt(rows in its group) so
 * that every group (one table, one paper) counts the same however many rows it has. Each
 * parameter stays inside its plausible range (scale_step_param_describe): it is fitted through
 * a logistic map of that range (of its logarithm for log-scale parameters). The GPU and NPU
 * groups fit every parameter but the TPU network's (ICI); the TPU groups then fit the ICI
 * parameters alone, so a TPU run, compiled by XLA, never moves what the GPUs share. Each moving
 * parameter is also pulled toward its prior (its documented typical value): a residual of
 * prior_weight times its distance from the prior as a fraction of its range, as if the prior
 * were a Gaussian belief of width range / prior_weight per unit of a group's log error. The
 * weight is chosen by leave-one-group-out error (`scale validate --prior-weight`). Fits are over
 * groups, never single rows; leave-one-group-out (LOGO) refits without each group in turn and
 * predicts that group with the result: the honest accuracy figure `scale validate` quotes.
 */
#ifndef SCALE_CALIBRATE_H
#define SCALE_CALIBRATE_H

#include <stdio.h>

#include "scale/measurements.h"
#include "scale/status.h"
#include "scale/step.h"
#include "scale/training.h"

#define SCALE_CALIB_GROUPS_MAX 64
#define SCALE_CALIB_ROWS_MAX 1024
#define SCALE_CALIB_KERNEL_CHIPS_MAX 8
/** The pull of each parameter toward its prior (this header's first comment), chosen by the
 * mean over groups of each group's out-of-sample MAPE: the 11 training groups left out in turn
 * (`scale validate --prior-weight W`, its 'mean over groups' line) and the hybrid paper's
 * Tables 11, 13 and 14, which the device fit never sees (chapter 13's t11/t13/t14.mape). For
 * W = 0, 0.1, 0.2 and 0.3 the 11 give 8.2, 7.3, 7.0 and 6.9% (the H100 FP8 group, the one run
 * on its chip: 18.5, 8.3, 6.0 and 4.8%), the three 13.3, 14.7, 17.1 and 18.5%, all 14 9.3,
 * 8.9, 9.2 and 9.4%: the least at 0.1. */
#define SCALE_CALIB_PRIOR_WEIGHT 0.1
/* The largest prior weight accepted, SCALE_CALIB_PRIOR_WEIGHT_MAX, is in params.h (a hardware
 * file's [step_fit] prior_weight is checked against it when loaded). */

/** One row with what predicting it needs. */
typedef struct {
  scale_measurement row; /**< the published run */
  scale_model model;     /**< its model */
  scale_chip chip;       /**< its chip */
  double measured_s;     /**< its measured step time [s] (scale_measurement_step_s) */
  int group;             /**< index into scale_calib_set.groups */
} scale_calib_point;

/** The measurements, resolved. */
typedef struct {
  scale_calib_point *points;                        /**< n points (owned by the set) */
  int n;                                            /**< rows */
  char groups[SCALE_CALIB_GROUPS_MAX][SCALE_NAME_MAX]; /**< group names, in order of first row */
  int n_groups;                                     /**< groups */
  /** Rows of the ranking groups in dir/hybrid/ (the rest of the hybrid paper's case study):
   * outside the fit and the statistics except for the framework's two parameters,
   * mesh_cp_host_s (shared with Table 10) and mesh_ssm_stage_s (their Mamba-2 pipelines),
   * fitted by scale_calibrate_fit(). Their group field indexes host_groups. */
  scale_calib_point *host_points;
  int n_host;
  char host_groups[SCALE_CALIB_GROUPS_MAX][SCALE_NAME_MAX];
  int n_host_groups;
  /** GEMMs timed alone (dir/kernels/CHIP.NAME.tsv; none when the folder is absent), outside
   * the fit: scale_calib_kernel_stats() says how the step model prices them.
   * kernel_chip[i] indexes kernel_chips. */
  scale_measurement_kernel *kernels;
  int *kernel_chip;
  int n_kernels;
  scale_chip kernel_chips[SCALE_CALIB_KERNEL_CHIPS_MAX];
  int n_kernel_chips;
  /** The pull of each parameter toward its prior in a fit, in [0, SCALE_CALIB_PRIOR_WEIGHT_MAX]
   * (SCALE_CALIB_PRIOR_WEIGHT when loaded; 0: least squares on the rows alone). */
  double prior_weight;
} scale_calib_set;

/** Loads every measurements/ file of 'dir' with its models and chips, and the GEMMs of
 * dir/kernels/ with theirs.
 * Owns: *out is allocated; release it with scale_calib_set_free().
 * Errors: as scale_measurements_load_dir(), scale_measurements_kernels_load(),
 *         scale_model_load(), scale_chip_load(); SCALE_ERR_RANGE (more kernel rows than
 *         SCALE_CALIB_ROWS_MAX or chips than SCALE_CALIB_KERNEL_CHIPS_MAX); SCALE_ERR_NOMEM.
 */
scale_status scale_calib_set_load(const char *dir, scale_calib_set **out, scale_diag *diag);

/** Releases a set; NULL is a no-op. */
void scale_calib_set_free(scale_calib_set *set);

/** Index of group 'name' in 'set', or -1. */
int scale_calib_group_index(const scale_calib_set *set, const char *name);

/** Predicted step time of one point with 'params' [s]. A row that does not state its micro-batch
 * size is predicted at the fastest of 1, 2, 4 and 8 sequences dividing its per-replica batch
 * (published benchmarks are tuned; memory is not checked yet). */
double scale_calib_predict_s(const scale_calib_point *point, const scale_step_params *params);

/** What a fit did. */
typedef struct {
  int n_rows;        /**< rows fitted */
  int n_groups;      /**< groups fitted */
  int iterations;    /**< Levenberg-Marquardt iterations taken */
  double rms_log;    /**< group-weighted RMS of log(predicted / measured) at the optimum
                          (the rows alone, without the pull toward the priors) */
} scale_calib_fit_info;

/** Fits the parameters to every group of 'set' except group 'exclude' (-1: all groups),
 * starting from the priors. Deterministic: the same set gives the same bits.
 * Errors: SCALE_ERR_INVALID when no row is left; SCALE_ERR_NOMEM.
 */
scale_status scale_calibrate_fit(const scale_calib_set *set, int exclude, scale_step_params *out,
                                 scale_calib_fit_info *info);

/** Spearman's rank correlation of x and y (average ranks for ties); NaN for n < 2 or a
 * constant input. */
double scale_calib_spearman(const double *x, const double *y, int n);

/** Error figures of one group for predictions pred[0..set->n) (only its rows are read). */
typedef struct {
  int n;            /**< rows in the group */
  double mape;      /**< mean |pred / measured - 1| */
  double max_err;   /**< max |pred / measured - 1| */
  double spearman;  /**< rank correlation of pred and measured; NaN unless a ranking group */
} scale_calib_stats;

void scale_calib_group_stats(const scale_calib_set *set, int group, const double *pred,
                             scale_calib_stats *out);

/** GEMMs of at least this much work count as large in scale_calib_kernel_stats() [FLOP]: a
 * 4096 x 4096 weight over about 300 tokens, where the H200's GEMMs leave the launch-bound
 * regime (measurements/kernels/). */
#define SCALE_CALIB_LARGE_GEMM_FLOPS 1e10

/** How 'params' price the GEMMs timed alone of a set (scale_step_kernel_gemm_s()). */
typedef struct {
  int n;            /**< GEMMs of the class */
  double mape;      /**< mean |predicted / measured - 1| */
  double geo_ratio; /**< geometric mean of predicted / measured (1: no bias) */
} scale_calib_kernel_fit;

/** The GEMMs of set->kernels of one class priced with 'params': large (work >=
 * SCALE_CALIB_LARGE_GEMM_FLOPS) when 'large', else small. n = 0 when there are none. */
void scale_calib_kernel_stats(const scale_calib_set *set, const scale_step_params *params,
                              bool large, scale_calib_kernel_fit *out);

/** Writes the fit as the two sections of a hardware file (what scale_step_params_load_file()
 * and the hardware loader read): [step_fit], the fit's provenance (by, method, data, rows,
 * groups, RMS log error; the groups and iterations in comments), then [step] with each
 * parameter's meaning and range above its value (%.6g).
 * Errors: SCALE_ERR_IO when writing fails.
 */
scale_status scale_calib_write_params(FILE *fp, const scale_step_params *params,
                                      const scale_calib_fit_info *info,
                                      const scale_calib_set *set);

/** Writes hardware file 'src' to 'dst' (which may be the same path) with its [step] and
 * [step_fit] sections replaced by the fit's, at the end of the file; every other line is kept
 * byte for byte. Deterministic: a file rewritten with the same fit is unchanged.
 * Errors: SCALE_ERR_IO (src unreadable, dst unwritable), SCALE_ERR_NOMEM.
 */
scale_status scale_calib_write_hardware(const char *src, const char *dst,
                                        const scale_step_params *params,
                                        const scale_calib_fit_info *info,
                                        const scale_calib_set *set, scale_diag *diag);

/* ---- the adapters from a measured row to a job -------------------------------------------- */

/** The job of a published row: its layout; an unstated mbs or vp reads as 1. */
scale_step_job scale_calib_step_job(const scale_measurement *row, const scale_model *model,
                                    const scale_chip *chip);

/** Evaluates the memory of the published run 'row' (its layout as measurements.h states it)
 * on 'model' and 'chip' into *out with scale_train_eval() (the roofline; memory does not
 * depend on the times): ZeRO stage z >= 1 shards over the row's dp (fsdp = dp), else pure
 * DP; tp, pp, cp, ep and sp as stated; interleaved 1F1B with v = vp when vp > 1, else 1F1B;
 * a micro-batch of mbs sequences (1 when not stated: the least memory, so a run is never
 * called out of memory for a guess), gbs / (dp mbs) microbatches; bf16 weights and
 * activations with fp32 Adam; the remat policy scale_memory_remat_of() the recompute mode,
 * 'unknown' (the row's '-') replaced by the caller's 'assumed' (which must be known).
 *
 * Errors: SCALE_ERR_INVALID when the layout is inconsistent (scale_train_validate()'s
 *         message in diag) or the recompute mode is unknown. 'diag' may be NULL.
 */
scale_status scale_calib_memory_eval(const scale_measurement *row, scale_recompute assumed,
                                     const scale_model *model, const scale_chip *chip,
                                     scale_train_result *out, scale_diag *diag);

/* ---- coverage: the layout features the fitted rows exercise -------------------------------- */

/* A prediction leans on the fit only where a fitted row ran the same feature; elsewhere the
 * step model's formulas and priors price it unchecked. These name the features a layout can
 * have, so that `scale validate` can say what the fit covers and `scale train` / `scale plan
 * train` which parts of one prediction it does not. */

#define SCALE_COVER_RECIPES_MAX 16 /**< precision recipes (precision.h) tracked */
#define SCALE_COVER_CHIPS_MAX 32   /**< distinct chips tracked */

/** Features of a job. Blocks: ZeRO stage (+ 0..3, with data parallelism), pipeline schedule
 * (+ scale_pp_schedule, with pp > 1; 1F1B with vp > 1 reads as interleaved), recompute (+
 * scale_recompute), attention (+ scale_attention), precision (+ the recipe's index in
 * scale_precision_at()). */
enum {
  SCALE_COVER_GPU = 0,
  SCALE_COVER_TPU,
  SCALE_COVER_MOE,        /**< routed experts (any ep) */
  SCALE_COVER_MOE_FEW,    /**< routed experts, few and wide: E <= 16 (Mixtral's 8 of top 2) */
  SCALE_COVER_MOE_NO_EP,  /**< routed experts with ep = 1: every rank holds every expert */
  SCALE_COVER_MOE_ETP,    /**< expert tensor parallelism, etp > 1 */
  SCALE_COVER_MOE_PADDED, /**< a capacity factor (experts padded or tokens dropped) */
  SCALE_COVER_TP,         /**< tp > 1 */
  SCALE_COVER_SP,         /**< sequence parallelism with tp > 1 */
  SCALE_COVER_CP_RING,    /**< cp > 1, ring attention */
  SCALE_COVER_CP_ULYSSES, /**< cp > 1, Ulysses all-to-alls */
  SCALE_COVER_CP_ALLGATHER, /**< cp > 1, an all-gather of K and V */
  SCALE_COVER_ZERO,
  SCALE_COVER_SCHEDULE = SCALE_COVER_ZERO + 4,
  SCALE_COVER_RECOMPUTE = SCALE_COVER_SCHEDULE + SCALE_PP_COUNT,
  SCALE_COVER_ATTENTION = SCALE_COVER_RECOMPUTE + SCALE_RECOMPUTE_COUNT,
  SCALE_COVER_PRECISION = SCALE_COVER_ATTENTION + SCALE_ATTENTION_COUNT,
  SCALE_COVER_COUNT = SCALE_COVER_PRECISION + SCALE_COVER_RECIPES_MAX
};

/** A feature's name as printed ("MoE (expert parallelism)", "zb-v", "ZeRO-3", "fp8-blockwise");
 * NULL for an id outside [0, SCALE_COVER_COUNT) or an unused recipe slot. Static storage. */
const char *scale_cover_feature_name(int feature);

/** Marks on[f] for every feature f of a measured row: its job's (scale_calib_step_job()) in
 * the recipe its precision names (NVFP4 for fp4, the one 4-bit training recipe). */
void scale_cover_point_features(const scale_calib_point *point, bool on[SCALE_COVER_COUNT]);

/** Marks on[f] for every feature f of 'job' priced in precision recipe 'recipe' (a name of
 * scale_precision_at(); another name marks no precision). Domain: non-NULL arguments, a job
 * with its model and chip; nothing is marked otherwise. */
void scale_cover_features(const scale_step_job *job, const char *recipe,
                          bool on[SCALE_COVER_COUNT]);

/** What a set of rows covers: rows and groups per feature, and rows per chip. */
typedef struct {
  int n_rows;                      /**< rows counted */
  int rows[SCALE_COVER_COUNT];     /**< rows with each feature */
  int groups[SCALE_COVER_COUNT];   /**< groups with at least one such row */
  int n_chips;                     /**< distinct chips (hardware stems) */
  char chips[SCALE_COVER_CHIPS_MAX][SCALE_NAME_MAX]; /**< stems, in order of first row */
  int chip_rows[SCALE_COVER_CHIPS_MAX];              /**< rows on each */
} scale_coverage;

/** The coverage of the fitted rows of 'set' (set->points: every group scale_calibrate_fit()
 * fits; a row's precision is the recipe its dtype names). Domain: non-NULL; zeros otherwise. */
void scale_coverage_of(const scale_calib_set *set, scale_coverage *out);

/** The features of 'job' in 'recipe' that no row of 'cov' has, as ids into gaps[0 .. max-1]
 * in id order; returns how many. *chip_gap (may be NULL) is set when no row ran on the job's
 * chip (a system file's base chip). Domain: non-NULL cov and job; 0 otherwise. */
int scale_coverage_gaps(const scale_coverage *cov, const scale_step_job *job, const char *recipe,
                        int *gaps, int max, bool *chip_gap);

/* ---- the paper's framework: host time per CP layer-microbatch, latency per Mamba-2 stage --- */

/** One measured row for the framework's two parameters: its step is
 * max(device_s, units h + fixed_s) + stages k, h the host time per CP layer-microbatch
 * (mesh_cp_host_s), k the latency per added Mamba-2 stage (mesh_ssm_stage_s). */
typedef struct {
  double device_s; /**< the device's time, neither floor nor stage latency [s] */
  double units;    /**< CP layer-microbatches of the slowest stage (0 without CP on the mesh) */
  double fixed_s;  /**< the floor's part that is not the host's: TP collectives [s] */
  double stages;   /**< scale_step_ssm_stages() of the row's job */
  double measured; /**< the measured step [s] */
  int group;       /**< the row's group, 0..15 */
} scale_calib_framework_row;

/** The framework's row of job 'job' under device parameters 'device': its floor as units x h +
 * fixed_s (host_s of the step model at mesh_cp_host_s = 1 and 2 s: linear in h; 0 where it is
 * not finite), its Mamba-2 stages, and the caller's device time 'device_s' (neither floor nor
 * stage latency), measured step and group. The one builder of framework rows: `scale calibrate`
 * and the hybrid study (hybrid_study.h) both use it.
 * Domain: job and device non-NULL. */
scale_calib_framework_row scale_calib_framework_row_of(const scale_step_job *job,
                                                       const scale_step_params *device,
                                                       double device_s, double measured_s,
                                                       int group);

/** A row's step with host time 'host_layer_s' and stage latency 'stage_s' (formula above).
 * Units: [s] -> [s].  Domain: r non-NULL, both >= 0; NaN otherwise. */
double scale_calib_framework_row_s(const scale_calib_framework_row *r, double host_layer_s,
                              double stage_s);

/** Fits the framework's two parameters to 'n' measured rows by the least group-weighted
 * squared log error, sum over groups g != skip_group of (1 / n_g) sum over its rows of
 * log(step / measured)^2 (each group weighs the same whatever its rows, as scale calibrate
 * weighs groups): the host time on a grid of 2001 points log-spaced over [1e-4, 5e-2] s over
 * the groups with a CP row (units > 0), the stage latency on a grid of 6001 points even over
 * [0, 60] s over the groups with a staged row, the two fits alternated until the latency
 * repeats (at most 16 rounds; the first grid point wins a tie). skip_group = -1 uses every
 * group, another value leaves that group out (leave-one-group-out). `scale calibrate` fits
 * mesh_cp_host_s and mesh_ssm_stage_s with it.
 *
 * Units:  -> *host_layer_s, *stage_s [s] (NaN: no group to fit it).
 * Domain: n >= 1 rows with device_s, measured > 0, units, fixed_s, stages >= 0, groups in
 *         0..15; SCALE_ERR_INVALID otherwise or when no group is left to fit either.
 */
scale_status scale_calib_fit_framework(const scale_calib_framework_row *rows, int n, int skip_group,
                                        double *host_layer_s, double *stage_s);

#endif
