/* hybrid_study.h — the case study of Amer et al. (arXiv 2602.09109) section 6 as data: each
 * measured table (Tables 10, 11, 13, 14 in measurements/) loaded and priced as `scale train`
 * prices it, what the framework's fit (scale_calib_fit_framework, hybrid.h) sees of each row,
 * and the columns the paper prints that a measurements row has no place for (throughput,
 * memory, MFU: measurements/hybrid/paper-columns.txt).
 *
 * Chapter 13 and test_hybrid_study read the tables through these functions, so the chapter's
 * figures and the suite's assertions are one computation.
 */
#ifndef SCALE_HYBRID_STUDY_H
#define SCALE_HYBRID_STUDY_H

#include <stdbool.h>

#include "scale/calibrate.h"
#include "scale/hybrid.h"
#include "scale/measurements.h"
#include "scale/status.h"
#include "scale/step.h"

/** Rows one table of the study holds at most. */
#define SCALE_HYBRID_STUDY_ROWS_MAX 32

/** What the framework's fit sees of a measured row of 'job' (hybrid.h's
 * scale_calib_framework_row): device_s = scale_hybrid_predict_step_s(job, params, 0, 0), neither
 * floor nor stage latency; the host's floor (step_result.host_s) is linear in mesh_cp_host_s
 * = h, units h + fixed_s, so its floors at h = 1 s and h = 2 s give units and fixed_s;
 * stages = scale_step_ssm_stages(job) for Mamba-2 and 0 for a transformer; measured and
 * group as given.
 *
 * Units:  measured_s [s] -> the record's [s] fields.
 * Domain: a job the step evaluations price; NaN fields otherwise.
 * Paper:  Tables 10-14: 10-12 ms per CP layer-microbatch (chapter 13 "CP on a host-synchronous
 *         framework").
 */
scale_calib_framework_row scale_hybrid_study_fit_row(const scale_step_job *job,
                                                const scale_step_params *params, double measured_s,
                                                int group);

/** One table of the study, loaded and priced. Caller storage (about 30 kB). */
typedef struct {
  scale_measurement rows[SCALE_HYBRID_STUDY_ROWS_MAX];   /**< the measured rows, file order */
  int n;                                                 /**< rows */
  scale_model model;                                     /**< the model every row names */
  scale_calib_framework_row fit[SCALE_HYBRID_STUDY_ROWS_MAX]; /**< scale_hybrid_study_fit_row() */
  double pred_s[SCALE_HYBRID_STUDY_ROWS_MAX]; /**< the step as `scale train` prices it [s] */
} scale_hybrid_study_table;

/** Loads the measurements file 'path' into *out, with the model its rows name, and prices
 * every row on 'chip' with 'params': fit[i] = scale_hybrid_study_fit_row() of the row's job
 * (scale_calib_step_job) with its measured step and 'group', pred_s[i] its step by
 * scale_step_eval().
 *
 * Errors: as scale_measurements_load_file() and scale_model_load(); SCALE_ERR_INVALID (with
 *         the file) when the file has no row or its rows name different models.
 */
scale_status scale_hybrid_study_load(const char *path, const scale_chip *chip,
                                     const scale_step_params *params, int group,
                                     scale_hybrid_study_table *out, scale_diag *diag);

/** How a table's predictions (pred_s) meet its measurements. */
typedef struct {
  double spearman;        /**< rank correlation of pred_s with the measured steps */
  double spearman_device; /**< the same of the device time alone (fit[].device_s) */
  double mape_frac;       /**< mean |pred / measured - 1| [1] */
  int n_off;              /**< rows with |pred / measured - 1| > off_frac */
  char off[512];          /**< their ids in file order, separated by spaces ("" if none) */
  int best_meas, worst_meas, best_pred, worst_pred; /**< rows of the least and most measured
                                                         and predicted step (the first on a tie) */
  bool best_predicted;  /**< the measured best's layout is the predicted best's */
  bool worst_predicted; /**< the measured worst's layout is the predicted worst's */
} scale_hybrid_study_stats;

/** Fills *out for the n >= 1 rows of 't' (scale_calib_spearman for the correlations; NaN
 * where it gives NaN); rows whose relative error exceeds 'off_frac' are named in out->off as
 * long as it has room. */
void scale_hybrid_study_table_stats(const scale_hybrid_study_table *t, double off_frac,
                                    scale_hybrid_study_stats *out);

/** The columns the paper prints for one row of Tables 10, 11, 13 or 14 beyond its step time. */
typedef struct {
  char id[16];         /**< the measurements row's id ("H01", "T13-04") */
  double tokens_per_s; /**< throughput [tokens/s] */
  double memory_bytes; /**< average memory per NPU [bytes] */
  bool memory_known;   /**< false where the paper's memory column is a copy error */
  double mfu_frac;     /**< MFU [1] */
} scale_hybrid_paper_row;

/** Reads a paper-columns file: '#' comments and blank lines, the header line
 * "id TAB tokens_per_s TAB memory_bytes TAB memory_known TAB mfu_frac", then one line per row
 * of five tab-separated fields: an id, throughput > 0, memory >= 0, memory_known 0 or 1, MFU
 * in (0, 1]. Fills rows[0..*n).
 *
 * Errors: SCALE_ERR_IO (the file cannot be read), SCALE_ERR_PARSE (a missing header, a line
 *         of another shape, a malformed number), SCALE_ERR_RANGE (a value out of its range, more
 *         than 'cap' rows), SCALE_ERR_DUPLICATE_KEY (an id twice); each with file:line.
 */
scale_status scale_hybrid_study_paper_load(const char *path, scale_hybrid_paper_row *rows, int cap,
                                           int *n, scale_diag *diag);

/** Index of row 'id' in rows[0..n), or -1. */
int scale_hybrid_study_paper_find(const scale_hybrid_paper_row *rows, int n, const char *id);

/** The study's measured tables: Tables 10, 11, 13 and 14 of the paper. */
#define SCALE_HYBRID_STUDY_TABLES 4

/** Rows of the paper's extra columns the study holds at most (every row of every table). */
#define SCALE_HYBRID_STUDY_PAPER_MAX (SCALE_HYBRID_STUDY_TABLES * SCALE_HYBRID_STUDY_ROWS_MAX)

/** The whole study on 'chip' with 'params': t[i] = scale_hybrid_study_load() of the study's
 * table i (group i) under scale_measurements_dir(), in the order LLaMA 2 7B (Table 10,
 * hybrid-910b.tsv), Llama 3.2 1B (hybrid/hybrid-910b-table11.tsv), Mamba-7B (Table 13),
 * Mamba-1B (Table 14), and the paper's extra columns (hybrid/paper-columns.txt) into
 * paper[0..*n_paper).
 *
 * Errors: those of scale_hybrid_study_load() and scale_hybrid_study_paper_load().
 * Paper:  section 6, Tables 10, 11, 13 and 14.
 */
scale_status scale_hybrid_study_load_all(const scale_chip *chip, const scale_step_params *params,
                                         scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                         scale_hybrid_paper_row paper[SCALE_HYBRID_STUDY_PAPER_MAX],
                                         int *n_paper, scale_diag *diag);

/** Index of the row of layout (dp, pp, tp, cp) in table 't', or -1 when the table has none. */
int scale_hybrid_study_find(const scale_hybrid_study_table *t, double dp, double pp, double tp,
                            double cp);

/** Memory per device the paper's setup predicts for row i of table 't':
 * scale_hybrid_problem_memory() of scale_hybrid_paper_problem() with the row's batch and
 * sequence, its (dp, pp, tp, cp), ZeRO-1 and SP wherever TP is [bytes].
 * Paper:  Tables 10-14, "average memory per NPU". */
double scale_hybrid_study_row_memory_bytes(const scale_hybrid_study_table *t, int i);

/** The least (*lo_s) and most (*hi_s) of the measured and predicted steps (rows[].measured,
 * pred_s[]) of the n >= 1 rows of 't': the span a predicted-against-measured figure draws [s]. */
void scale_hybrid_study_step_span(const scale_hybrid_study_table *t, double *lo_s, double *hi_s);

/** Spearman of the predicted memory of t's rows (scale_hybrid_study_row_memory_bytes) against
 * the memory the paper prints for them (paper[0..n_paper), the rows whose memory_known); NaN
 * with fewer than two such rows. */
double scale_hybrid_study_memory_spearman(const scale_hybrid_study_table *t,
                                          const scale_hybrid_paper_row *paper, int n_paper);

/* ==== the study's analyses over its tables ================================================= */

/** The framework's two parameters (host time per CP layer-microbatch *host_s, Mamba-2 stage
 * latency *stage_s) fitted by scale_calib_fit_framework() to the rows of t[0..n) (their
 * fit[] records), table 'skip' left out (-1: none); both NaN when the fit fails or n > 16.
 * Paper:  Tables 10-14 (chapter 14 "The hybrid study's framework costs"). */
void scale_hybrid_study_fit(const scale_hybrid_study_table *t, int n, int skip, double *host_s,
                            double *stage_s);

/** The framework's fit left out table by table, and the measured rows it rests on. */
typedef struct {
  double host_s[SCALE_HYBRID_STUDY_TABLES];  /**< host time fitted without table i [s] */
  double stage_s[SCALE_HYBRID_STUDY_TABLES]; /**< stage latency fitted with it [s] */
  double spearman[SCALE_HYBRID_STUDY_TABLES]; /**< table i's Spearman at that fit */
  double host_lo_s, host_hi_s; /**< least and most of host_s[] [s] */
} scale_hybrid_study_logo;

/** Fills *out over the SCALE_HYBRID_STUDY_TABLES tables of 't' (scale_hybrid_study_fit with
 * each left out, scale_hybrid_study_spearman_at).
 * Paper:  Tables 10-14 (chapter 14 "The hybrid study's framework costs"). */
void scale_hybrid_study_logo_eval(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                  scale_hybrid_study_logo *out);

/** The measured step per CP layer-microbatch (measured / fit.units) of the pure-CP rows (DP x CP
 * only) of t[0..n) whose device time per layer-microbatch (fit.device_s / fit.units) is below
 * the host time 'host_s': the rows the host binds, least into *lo_s and most into *hi_s
 * (INFINITY and 0: no such row) [s].
 * Paper:  Tables 10-14: 10-12 ms per CP layer-microbatch (chapter 13). */
void scale_hybrid_study_host_bound_range(const scale_hybrid_study_table *t, int n, double host_s,
                                         double *lo_s, double *hi_s);

/** The step of table t's layout at (tp, cp) without a pipeline, extrapolated from its two
 * rows at that TP and CP with pp_a < pp_b stages, linear in the stage count:
 * step(pp_a) - (pp_a - 1) (step(pp_b) - step(pp_a)) / (pp_b - pp_a), from the measured steps
 * [s]. For a layout the table cannot print (it does not fit); NaN when either row is missing.
 * Paper:  Table 13, Mamba-7B at TP 1 x CP 2 (chapter 13). */
double scale_hybrid_study_pp1_extrapolated_s(const scale_hybrid_study_table *t, double tp,
                                             double cp, double pp_a, double pp_b);

/** Whether row 'r' is pure CP: DP x CP only, cp > 1 (the rows the host's floor is read from). */
bool scale_hybrid_study_pure_cp(const scale_measurement *r);

/** Spearman of table t's steps priced with host time 'host_s' and stage latency 'stage_s'
 * (scale_calib_framework_row_s) against its measured steps. */
double scale_hybrid_study_spearman_at(const scale_hybrid_study_table *t, double host_s,
                                      double stage_s);

/** What one table's measured rows say beyond its predictions. */
typedef struct {
  /** One more pipeline stage: (step(pp2) - step(pp1)) / (pp2 - pp1) over every pair of rows
   * with the same TP and CP and pp2 > pp1, least and most (lo INFINITY, hi 0: no pair) [s]. */
  double stage_lo_s, stage_hi_s;
  /** pred_s / measured of the rows with neither CP nor PP, least and most (INFINITY, 0: none). */
  double plain_lo, plain_hi;
  /** Mean measured step per CP layer-microbatch (measured / fit.units) of the rows without PP
   * whose device time per layer-microbatch is below 'host_s' (the rows the host binds), pure
   * CP (tp 1) and TP x CP (tp > 1); n_* the rows of each (a mean is NaN without rows) [s]. */
  double host_cp_mean_s, host_tpcp_mean_s;
  int n_host_cp, n_host_tpcp;
} scale_hybrid_study_ranges;

/** Fills *out for table t with the stored host time 'host_s' (mesh_cp_host_s). */
void scale_hybrid_study_table_ranges(const scale_hybrid_study_table *t, double host_s,
                                     scale_hybrid_study_ranges *out);

/** pred_s / measured by group of rows over the study's tables (lo INFINITY, hi 0: none). */
typedef struct {
  double llama_pp_lo, llama_pp_hi; /**< transformer pipelines (pp > 1) */
  double mamba_pp_lo, mamba_pp_hi; /**< Mamba-2 pipelines */
  double mamba_pp_bare_hi;         /**< Mamba-2 pipelines, the stage latency taken out */
  double cp_lo, cp_hi;             /**< CP rows without PP of the tables other than the first */
  double dev_cp_lo, dev_cp_hi;     /**< the same rows, device time alone over measured */
} scale_hybrid_study_groups;

/** Fills *out over t[0..n) with the stage latency 'stage_s' (mesh_ssm_stage_s); the first
 * table is the one the step model was fitted on, so its CP rows are not out of sample. */
void scale_hybrid_study_groups_eval(const scale_hybrid_study_table *t, int n, double stage_s,
                                    scale_hybrid_study_groups *out);

/* ==== the study as tables (chapter 13) ===================================================== */

/** Fills *out with row i of table 't' beside the paper's columns for it (paper[0..n_paper),
 * found by the row's id): the degrees
 * "dp" ... "cp", "meas_s", "pred_s", "device_s" (fit[i].device_s) [s], "ratio" (pred /
 * measured), "meas_tps" and "pred_tps" (gbs seq / pred) [tokens/s], "meas_mem" and "pred_mem"
 * (scale_hybrid_study_row_memory_bytes) [bytes], "meas_mfu" and "pred_mfu" (the measured MFU
 * over the predicted time: the paper's MFU definition kept) [%], and the flag "off" (|pred /
 * measured - 1| > off_frac). Returns out; NULL, with out empty, when the paper has no
 * columns for the row.
 * Paper:  Tables 10, 11, 13 and 14 (the columns step, throughput, memory, MFU). */
scale_hybrid_table *scale_hybrid_study_row_table(const scale_hybrid_study_table *t, int i,
                                                 const scale_hybrid_paper_row *paper, int n_paper,
                                                 double off_frac, scale_hybrid_table *out);

/** Fills *out with how table 't' fares, 'u' its stats (scale_hybrid_study_table_stats): "n",
 * "spearman", "spearman_device", "mem_spearman" (scale_hybrid_study_memory_spearman against
 * paper[0..n_paper)), "mape" [%], "n_off"; then the degrees of its ends, "best_meas.dp" ...,
 * "worst_meas.*", "best_pred.*", "worst_pred.*", the measured ends with their measured MFU
 * ("best_meas.mfu", "worst_meas.mfu" [%]) where the paper prints the row. 'off_frac' is the
 * tolerance 'u' was counted with ("n_off"'s label). */
scale_hybrid_table *scale_hybrid_study_summary_table(const scale_hybrid_study_table *t,
                                                     const scale_hybrid_study_stats *u,
                                                     double off_frac,
                                                     const scale_hybrid_paper_row *paper,
                                                     int n_paper, scale_hybrid_table *out);

/** Fills *out with the groups 'u' (scale_hybrid_study_groups_eval), pred / measured:
 * "llama_pp_lo", "llama_pp_hi", "mamba_pp_bare_hi", "mamba_pp_lo", "mamba_pp_hi", "cp_lo",
 * "cp_hi", "dev_cp_lo", "dev_cp_hi". */
scale_hybrid_table *scale_hybrid_study_groups_table(const scale_hybrid_study_groups *u,
                                                    scale_hybrid_table *out);

/** The value stem of the study's table i, the paper's table number: "t10", "t11", "t13", "t14"
 * (scale_hybrid_study_load_all's order); "?" outside 0..SCALE_HYBRID_STUDY_TABLES-1. */
const char *scale_hybrid_study_key(int i);

/** Fills *out with what the host's floor rests on over the study's tables 't', priced with
 * 'params' of 'chip': the stored host time "host.stored" (mesh_cp_host_s) and stage latency
 * "stage.stored" (mesh_ssm_stage_s) [s]; for each pure-CP row (scale_hybrid_study_pure_cp) of
 * table KEY at CP degree C, "host.meas.KEY.cpC" (measured / fit.units) and
 * "host.device.KEY.cpC" (fit.device_s / fit.units) [s]; "host.meas_lo" and "host.meas_hi"
 * (scale_hybrid_study_host_bound_range at the stored host time) [s]; then, for each table with
 * host-bound rows of both kinds (scale_hybrid_study_ranges), "host.tp_cp.KEY" and
 * "host.tp_tpcp.KEY", the means of pure CP and of TP x CP [s].
 * Paper:  Tables 10-14: 10-12 ms per CP layer-microbatch (chapter 13). */
scale_hybrid_table *
scale_hybrid_study_host_table(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                              const scale_chip *chip, const scale_step_params *params,
                              scale_hybrid_table *out);

/** Fills *out with the ranges of the study's tables 't' (scale_hybrid_study_table_ranges with
 * 'host_s'): for each table KEY with a pair of pipelines "KEY.stage_lo" and "KEY.stage_hi" (one
 * more stage, measured [s]: measured alone, no model; with dp = 8 / (tp pp cp) each device
 * runs the same 1024 x 4096 / 8 tokens of layers in every row, so a pipeline that cost only its
 * sends and its 1F1B bubble, (pp - 1) / m of a step with m = 1024 / dp microbatches, would add
 * well under 1% of a step per stage); Table 13's "t13.tp1cp2_base", Mamba-7B at (4, 1, 1, 2)
 * without a pipeline (scale_hybrid_study_pp1_extrapolated_s from its pipelines of 2 and 4 stages)
 * [s], where both rows exist; then for each Mamba-2 table with rows without CP or PP
 * "KEY.plain_lo" and "KEY.plain_hi" (pred / measured: the composition's own price, with neither
 * the host's floor nor the stage latency).
 * Paper:  Tables 10-14 (chapter 13 "Predicted over measured, by group of rows"). */
scale_hybrid_table *
scale_hybrid_study_ranges_table(const scale_hybrid_study_table t[SCALE_HYBRID_STUDY_TABLES],
                                double host_s, scale_hybrid_table *out);

#endif
