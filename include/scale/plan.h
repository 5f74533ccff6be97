/* plan.h — exhaustive search of parallel layouts for a training run, ranked.
 *
 * The search enumerates every combination of degrees whose product is the chip count
 * (tp x cp x pp x fsdp x dp), on a MoE every expert grid of each (etp dividing tp, ep dividing
 * the stage's dp x fsdp x tp x cp ranks over etp: EP may span the TP and CP ranks, ep that
 * does not divide the experts pruned), every ZeRO stage, sequence
 * parallelism on or off, every pipeline schedule with microbatch counts m in {p, 2p, 4p, 8p}
 * (interleaved with v = 2), gradient accumulation {1, 2, 4, 8} without a pipeline, every remat
 * policy, both context-parallel algorithms, and two mappings of the degrees onto the
 * hardware (the book's, innermost dimension first into the fast domain, and the same with
 * the pipeline pushed outermost onto DCN). Each candidate is checked by the divisibility rules
 * below (counted per rule), then by scale_train_validate(), evaluated by scale_train_eval_cached()
 * (scale_train_eval() with what does not depend on the layout computed once per search),
 * and dropped if it does not fit in HBM. The best 'top_k' by the objective are kept, ties
 * broken by the layout's degrees so the ranking is stable.
 *
 * The problem's step_params choose the cost model (training.h): the calibrated step model, or
 * the book's roofline when NULL; every ranked layout evaluates the same through
 * scale_train_eval() (`scale train` with the flags `scale plan` prints).
 *
 * Speed: the hot loop allocates nothing; large searches are split over threads (each with its
 * own top-K and cache, merged at the end). tests/bench/plan_bench.c measures layouts per
 * second.
 *
 * Book: ch. 5 and 6 (choosing FSDP x TP), ch. 12 (GPU layouts), Amer et al. (arXiv
 * 2602.09109) section 6 on automatic parallelism.
 */
#ifndef SCALE_PLAN_H
#define SCALE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "scale/hybrid.h"
#include "scale/inference.h"
#include "scale/status.h"
#include "scale/training.h"

#define SCALE_PLAN_TOP_MAX 32

/** Most chips any search tries (1e9): a bound on every loop over chip counts, whatever the
 * hardware file or the options say. */
#define SCALE_PLAN_CHIPS_MAX 1e9

/** What "best" means. */
typedef enum {
  SCALE_PLAN_TIME = 0, /**< shortest step time */
  SCALE_PLAN_COST,     /**< fewest dollars per token (chips x price x step time / batch) */
  SCALE_PLAN_MFU,      /**< highest model FLOPs utilization */
  SCALE_PLAN_GOODPUT,  /**< shortest effective step time: step time / goodput (energy.h), the
                            interruptions of a job of that many chips counted */
  SCALE_PLAN_ENERGY,   /**< fewest joules per token: chips x power x PUE x effective step time
                            / batch */
  SCALE_PLAN_OBJECTIVE_COUNT
} scale_plan_objective;

/** Name of an objective ("time", "cost", "mfu", "goodput", "energy"); "?" if invalid. */
const char *scale_plan_objective_name(scale_plan_objective objective);

/** Parses an objective name. Errors: SCALE_ERR_INVALID; *out untouched. */
scale_status scale_plan_objective_parse(const char *text, scale_plan_objective *out);

/** Why candidates were dropped (scale_plan_report.n_pruned[]). */
typedef enum {
  SCALE_PLAN_PRUNE_TP = 0,  /**< tp does not divide the heads or the MLP width */
  SCALE_PLAN_PRUNE_CP,      /**< cp does not divide the sequence (or the heads, Ulysses) */
  SCALE_PLAN_PRUNE_PP,      /**< more stages (x virtual stages) than layers; uneven stages
                                 are allowed and pay for their fullest stage */
  SCALE_PLAN_PRUNE_BATCH,   /**< fewer sequences (or microbatches) than data shards need */
  SCALE_PLAN_PRUNE_EP,      /**< expert degree does not divide the experts */
  SCALE_PLAN_PRUNE_INVALID, /**< any other rule of scale_train_validate() */
  SCALE_PLAN_PRUNE_MEMORY,  /**< valid but does not fit in HBM */
  SCALE_PLAN_PRUNE_COUNT
} scale_plan_prune;

/** Name of a pruning rule ("tp-divisibility", ...); "?" if invalid. */
const char *scale_plan_prune_name(scale_plan_prune rule);

/** What to search. scale_plan_opts_default() allows everything. */
typedef struct {
  scale_plan_objective objective;
  int top_k;                           /**< layouts to keep, 1..SCALE_PLAN_TOP_MAX */
  bool allow[SCALE_TRAIN_DIM_COUNT];   /**< dimensions the search may use (others stay 1) */
  bool allow_remat[SCALE_REMAT_COUNT]; /**< indexed by scale_remat */
  bool partial_remat; /**< also block remat of the fewest of a stage's layers that fits, where
                           remat none does not fit and block remat of all does */
  bool allow_schedule[SCALE_PP_COUNT];
  bool allow_zero[4]; /**< ZeRO stages 1..3 (index 0 unused) */
  int n_threads;      /**< 0: as many as the machine has cores (capped at 8) */
  /* what SCALE_PLAN_GOODPUT and SCALE_PLAN_ENERGY weigh (energy.h); NaN: not given. Goodput
   * needs the four failure inputs, energy the power (and takes PUE 1 without one). At one chip
   * count both rank as time does (the goodput is the job's, the checkpoint the model's); across
   * chip counts they weigh the larger job's interruptions and power. */
  double fail_rate_per_chip_hour; /**< interruptions per chip-hour */
  double ckpt_bytes;              /**< bytes one checkpoint writes [bytes] */
  double ckpt_write_bytes_per_s;  /**< storage write bandwidth [bytes/s] */
  double restart_s;               /**< restart time [s] */
  double power_w;                 /**< a chip's power with its node overhead [W] */
  double pue;                     /**< facility PUE [1] */
  double goodput_frac; /**< set by scale_plan_train() from the above and the chip count */
} scale_plan_opts;

/** Options that allow every dimension, policy and schedule; objective time, top 5, threads 0. */
scale_plan_opts scale_plan_opts_default(void);

/** One ranked layout. */
typedef struct {
  scale_layout layout;
  scale_train_result result;
  double score; /**< the objective's value (lower is better; -MFU for SCALE_PLAN_MFU) */
} scale_plan_entry;

/** What a search found. Caller storage (about 50 kB; allocate it, don't put it on a small
 * stack). */
typedef struct {
  int n_ranked;                                /**< entries in ranked[] */
  scale_plan_entry ranked[SCALE_PLAN_TOP_MAX]; /**< best first */
  double n_candidates;                         /**< layouts enumerated [count] */
  double n_evaluated;                          /**< layouts scale_train_eval() ran on */
  double n_pruned[SCALE_PLAN_PRUNE_COUNT];     /**< per rule [count] */
  double n_pruned_total;                       /**< sum of n_pruned[] */
  int n_threads_used;
} scale_plan_report;

/** Searches every layout of 'problem' allowed by 'opts' (NULL: defaults) into *out.
 *
 * Errors: SCALE_ERR_INVALID for a NULL or malformed problem (no model, chip, positive chip
 *         count, batch or sequence) or options out of range; SCALE_ERR_NOMEM if threads
 *         cannot start (the search then runs on one thread, not an error). A search in which
 *         nothing fits is not an error: n_ranked is 0 and n_pruned[] says why.
 */
scale_status scale_plan_train(const scale_train_problem *problem, const scale_plan_opts *opts,
                              scale_plan_report *out, scale_diag *diag);

/** Writes one or two sentences on why ranked[0] beats ranked[1] (what binds the runner-up,
 * by how much) into buf. Returns buf; "" when fewer than two layouts were ranked. */
char *scale_plan_explain(const scale_plan_report *report, char *buf, size_t size);

/** Writes a layout compactly ("fsdp 64 (zero-3) x tp 8 (sp) x pp 16 [1f1b m=32] remat block")
 * into buf; degrees of 1 are left out. Returns buf. */
char *scale_plan_layout_str(const scale_layout *layout, char *buf, size_t size);

/* ==== serving ============================================================================== */

/** What the serving search optimizes. */
typedef enum {
  SCALE_PLAN_INFER_THROUGHPUT = 0, /**< most generated tokens per second per chip */
  SCALE_PLAN_INFER_COST,           /**< fewest dollars per million generated tokens */
  SCALE_PLAN_INFER_OBJECTIVE_COUNT
} scale_plan_infer_objective;

/** Name of a serving objective ("throughput", "cost"); "?" if invalid. */
const char *scale_plan_infer_objective_name(scale_plan_infer_objective objective);

/** Parses a serving objective name. Errors: SCALE_ERR_INVALID; *out untouched. */
scale_status scale_plan_infer_objective_parse(const char *text, scale_plan_infer_objective *out);

/** The traffic and the constraints of a serving search. */
typedef struct {
  double prompt;     /**< P: prefill tokens per request [tokens] */
  double decode_len; /**< G: generated tokens per request [tokens] */
  double max_step_s; /**< per-token latency target (decode step) [s]; 0: none */
  double max_chips;  /**< largest slice to try [count]; 0: the pod (TPU) or the NVLink
                          domain (GPU) */
  scale_plan_infer_objective objective;
  bool allow_weight[SCALE_DTYPE_COUNT]; /**< weight dtypes to try (quantization is a choice) */
  bool allow_kv[SCALE_DTYPE_COUNT];     /**< KV-cache dtypes to try */
  int top_k;                            /**< 1..SCALE_PLAN_TOP_MAX */
} scale_plan_infer_opts;

/** Options for a P-token prompt and G generated tokens: no latency target, the whole pod or
 * NVLink domain, throughput, bf16 or int8 weights and KV caches, top 5. */
scale_plan_infer_opts scale_plan_infer_opts_default(double prompt, double decode_len);

/** Restricts a serving search to weights and KV caches both in 'dtype' (the book's unquantized
 * serving: bf16 alone). Domain: a valid dtype; otherwise the options are left as they are. */
void scale_plan_infer_opts_only_dtype(scale_plan_infer_opts *opts, scale_dtype dtype);

/** One ranked serving layout. */
typedef struct {
  scale_infer_config config;   /**< slice, tp, dtypes, 2-D sharding, batch, context */
  scale_infer_decode decode;   /**< its decode step */
  scale_infer_memory memory;   /**< its memory per chip */
  scale_infer_prefill prefill; /**< one prompt's prefill on the slice */
  double score;                /**< lower is better: -tokens/s/chip or USD per million tokens */
} scale_plan_infer_entry;

/** What a serving search found. Caller storage. */
typedef struct {
  int n_ranked;
  scale_plan_infer_entry ranked[SCALE_PLAN_TOP_MAX];
  double n_candidates; /**< configurations enumerated */
  double n_invalid;    /**< rejected by scale_infer_validate() */
  double n_too_big;    /**< do not fit in HBM */
  double n_too_slow;   /**< miss the latency target */
} scale_plan_infer_report;

/** Searches serving layouts of 'model' on 'chip': slices of 1, 2, 4, ... chips up to the
 * limit, each one model copy (tp = chips; replicas serve more traffic at the same throughput
 * per chip and cost, so they are not ranked apart), 1-D or 2-D weight-
 * stationary MLPs, the allowed weight and KV dtypes (compute in bf16), and batches of 1, 2,
 * 4, ... sequences per model copy until HBM runs out; the KV context is P + G/2 (a request's
 * average). Keeps the layouts that fit and meet the latency target, ranked by the objective.
 *
 * Slices stop at SCALE_PLAN_CHIPS_MAX chips, whatever the pod size.
 *
 * Errors: SCALE_ERR_INVALID for NULL arguments, P < 0, G < 1, a negative or non-finite target
 *         or chip limit, top_k out of range. Nothing meeting the target is not an error
 *         (n_ranked 0; counters say why).
 * Book:   ch. 8 "Serving LLaMA 3-70B" (smallest slices, latency vs throughput, cost).
 */
scale_status scale_plan_infer(const scale_model *model, const scale_chip *chip,
                              const scale_plan_infer_opts *opts, scale_plan_infer_report *out,
                              scale_diag *diag);

/** Fewest chips of any ranked layout of 'report' [count]; NaN when it ranks none.
 * Book: ch. 8, "the cheapest serving slice is the smallest one" (checked against this). */
double scale_plan_infer_fewest_chips(const scale_plan_infer_report *report);

/* ==== the hybrid paper's search space (chapter 13) ========================================== */

/** What scale_plan_hybrid() found. */
typedef struct {
  scale_hybrid_layout layout; /**< the fastest (dp, pp, tp, cp), zero and sp as its memory
                                   counts them; every degree NaN when nothing is kept */
  double step_s;              /**< its step [s]; NaN when nothing is kept */
  int n_candidates;           /**< layouts of the space [count] */
  int n_kept;                 /**< those the shape allows and the HBM holds [count] */
} scale_plan_hybrid_result;

/** Searches the hybrid paper's space for 'problem': every (dp, pp, tp, cp) of powers of two
 * whose product is n_chips (tp outermost, then cp, pp), keeping those where tp divides the
 * query and KV heads (Mamba-2: the SSM heads and groups), pp is at most the layers, dp
 * divides the batch of gbs sequences and the memory by scale_hybrid_memory_per_device() (the
 * problem's precision, micro-batch and ZeRO stage, SP with TP, the 1F1B microbatches in
 * flight) fits the chip's HBM. Each is priced as the paper's framework ran it: micro-batches of
 * problem->mbs sequences, no recomputation, flash attention, no SP, bf16, the job's ZeRO
 * stage 0, by `scale train`'s step (scale_step_eval() with 'params': the
 * calibrated step model, the host's floor under CP and a Mamba-2 pipeline's stage latency).
 * The first fastest in that order wins.
 *
 * Errors: SCALE_ERR_INVALID for NULL arguments or a problem without a positive chip count,
 *         batch or sequence. Nothing kept is not an error (out->step_s NaN).
 * Paper:  Amer et al. (arXiv 2602.09109) section 6.1: every (DP, PP, TP, CP) with product 8.
 */
scale_status scale_plan_hybrid(const scale_hybrid_problem *problem, const scale_step_params *params,
                               scale_plan_hybrid_result *out);

/** The step of 'layout' for 'problem' as scale_plan_hybrid() prices each candidate [s]; NaN
 * outside the step evaluations' domain. */
double scale_plan_hybrid_step_s(const scale_hybrid_problem *problem,
                                const scale_hybrid_layout *layout,
                                const scale_step_params *params);

/** The memory per device scale_plan_hybrid() holds against HBM for 'layout': the total of
 * scale_hybrid_problem_memory() [bytes]. */
double scale_plan_hybrid_memory_bytes(const scale_hybrid_problem *problem,
                                      const scale_hybrid_layout *layout);

#endif
