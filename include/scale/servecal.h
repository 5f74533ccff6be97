/* servecal.h — serving step costs as they are measured: the calibrated price of one engine step
 * (serve.h's cost function), the published serving runs of measurements/serving-*.tsv, and the
 * fit of the cost's few parameters to them, by groups, with leave-one-group-out (issue 15).
 *
 * The calibrated step. One model copy on tp chips runs a step that decodes n_decode tokens and
 * prefills n_prefill_tokens prompt tokens (serve.h's scale_serve_step). Its time is
 *
 *   overhead_s + overhead_seq_s n_decode                  the engine (fitted, named apart):
 *     + overhead_coll_s n_collectives (tp - 1)              a step, a request, a collective's
 *                                                           flags with each peer chip
 *   + (t_w^K + t_g^K)^(1/K), K = linear_k,                the linear layers: a smooth max of
 *       t_w = weights(tokens) / (W weight_bw_frac),       streaming the weights and
 *       t_g = 2 N tokens / (C eta(tokens))                running the GEMMs
 *   + kv_bytes sum_i (l_i + kv_ctx_half)                  paged attention reads the KV caches
 *       x (1 + kv_cta_half / (n_decode h)) / (W kv_bw_frac)
 *   + 4 L H d_head prefill_ctx_tokens / (C attn_frac)     causal attention of the prompt chunks
 *   + collectives(tokens)                                 model parallelism, priced physically
 *
 * where W and C are the copy's HBM bandwidth and peak FLOP/s in its compute dtype, tokens =
 * n_decode + n_prefill_tokens, and eta(M) = matmul_frac M / (M + mm_dim_half) is the GEMM
 * efficiency by shape of the training step model (step.h's mm_dim_half, from the chip's
 * calibrated [step] or its prior).
 * The collectives are inference.h's scale_infer_comms_eval() of the copy's layout at the step's
 * tokens, bf16 activations on the wire: each its hop latency plus its bytes over the links of the
 * real group (an NVLink switch of tp GPUs; tp's factors over a TPU's torus axes, each with its ICI
 * link bandwidth, wraparound and hop latency), the links at the achieved share of their peak the
 * training fit measured for them ([step] up_bw_eta on NVLink, ici_bw_eta on ICI) and an NVLink
 * hop at the training fit's up_latency_s (a GPU file names no hop latency). Nothing of the
 * serving fit enters them: an engine's own time (scheduling, sampling, launches) is the
 * overhead terms, not a slower AllReduce. The MLP layout is the copy's (1-D or 2-D
 * weight-stationary, weight-gathered) or, under AUTO, the cheapest at each step's tokens.
 * The linear layers. A max(t_w, t_g) says a GEMM at the ridge reaches both roofs at once; real
 * ones reach neither there (the weight tiles stream while too few of them are in flight to keep
 * the tensor cores fed), and the smooth max charges 2^(1/K) at t_w = t_g while keeping either
 * roof far from the ridge. K = 1 would be no overlap at all (a sum), K -> infinity the max.
 * Decode attention. l_i is decoding sequence i's context and h = n_kv_heads / tp (at least 1)
 * the KV heads a chip holds: a step's kernel has n_decode h (sequence, head) work items.
 * kv_ctx_half is a sequence's fixed cost in tokens of context (its partly filled last KV block,
 * its setup and the reduction of its partial softmaxes): a short context reads at l / (l +
 * kv_ctx_half) of the roof. kv_cta_half is the work-item count at which the kernel reaches half
 * of its bandwidth: a step of few sequences leaves SMs idle (split-K only partly helps).
 * Weight and KV dtypes: weights and KV caches are read in their stored formats (bf16, fp8,
 * int8, int4, fp4); the GEMMs run at the compute dtype's peak C (weight-only int8 / int4
 * dequantize into bf16 or fp8 activations, so only the read shrinks).
 * A MoE model (E routed experts, k per token) reads its shared weights and only the experts a
 * step's tokens touch (scale_serve_experts_touched()), and its routed experts' GEMMs run at the
 * efficiency of their own row count, tokens k / E per expert, times moe_gemm_frac (the routing,
 * token permutation and combine around them) times n / (n + expert_dim_half) of their width
 * n = d_ff_expert / tp on a chip: a narrow expert (Qwen3-30B-A3B's 768) fills few output tiles
 * per weight it streams, a wide one (Mixtral's 14336) runs nearly as a dense GEMM.
 * Storage formats include NVFP4 (units.h: 4.5 bits a weight with its block scales).
 * The parameters below (SCALE_SERVE_PARAM_LIST) are fitted to the serving rows; their ranges
 * are physical.
 *
 * Fitting is cheap because an offline run (all requests at t = 0) admits and schedules
 * requests by tokens and KV blocks only: its steps do not depend on their durations. Each row is
 * simulated once into a trace of steps (consecutive steps with the same token counts merged,
 * exact because the KV and attention terms are additive); a prediction is then a sum over the
 * trace.
 */
#ifndef SCALE_SERVECAL_H
#define SCALE_SERVECAL_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/serve.h"
#include "scale/status.h"

/* ==== the parameters (their table, SCALE_SERVE_PARAM_LIST, is in params.h) ================= */

/** Fills p[0..SCALE_SERVE_N_PARAMS) with the chip's fitted [serve] values, or the priors when
 * its file has none (matmul_frac then the [step] fit's mm_eta_max where the chip has one);
 * returns whether they were fitted. */
bool scale_serve_params_of(const scale_chip *chip, double p[SCALE_SERVE_N_PARAMS]);

/* ==== the calibrated cost of a step ========================================================== */

/** The calibrated cost of a step on one model copy: the model, chip and layout resolved. */
typedef struct {
  double p[SCALE_SERVE_N_PARAMS];      /**< the parameters (by scale_serve_param) */
  double n_params;                     /**< active parameters, 2 FLOPs each per token [count] */
  double weight_bytes;                 /**< weights of the copy [bytes] */
  double kv_bytes_per_token;           /**< KV cache of one token, all layers [bytes] */
  double attn_flops_per_pair;          /**< 4 L H d_head: FLOPs of one query-key pair [FLOP] */
  double flops_per_s;                  /**< peak of the copy in its compute dtype [FLOP/s] */
  double hbm_bytes_per_s;              /**< HBM bandwidth of the copy [bytes/s] */
  double mm_dim_half;                  /**< tokens at which the GEMM efficiency halves [tokens] */
  int matmul_param;                    /**< the parameter of the GEMMs' fraction of peak:
                                            SCALE_SERVE_FP4_MATMUL_FRAC for fp4 GEMMs, else MATMUL_FRAC */
  double tp;                           /**< chips of the copy [count] */
  scale_ffn_layout ffn_layout;         /**< the MLP layout (AUTO: the cheapest at each step) */
  double comm_fixed_s[SCALE_FFN_AUTO]; /**< a step's model-parallel collectives by MLP layout
                                       (scale_infer_comms_eval()): what does not grow with the
                                       tokens, the hops' latency and a weight-gathered MLP's
                                       weights [s]; NaN where the layout is not priced */
  double comm_token_s[SCALE_FFN_AUTO]; /**< and what each token of the step adds [s] */
  double comm_count[SCALE_FFN_AUTO];   /**< and how many collectives a step runs [count] */
  double sync_peers;                   /**< peers each collective's flags wait for: tp - 1 on a GPU
                                            (custom AllReduce kernels), 0 on a TPU [count] */
  double kv_cta_scale;                 /**< 1 where decode attention's work items bound its speed (a
                                            GPU's SMs), 0 on a TPU */
  double kv_read_factor;               /**< KV bytes a chip reads over its share of the copy's: tp /
                                            K when KV heads are replicated beyond K ways, else 1 */
  double kv_capacity_bytes;    /**< HBM of the copy left for KV caches after weights [bytes] */
  double n_experts;            /**< E routed experts per MoE layer (0: dense model) */
  double experts_active;       /**< k routed experts per token */
  double expert_bytes;         /**< one routed expert over every MoE layer [bytes] */
  double routed_active_params; /**< k routed experts over every MoE layer [count] */
  double expert_dim;           /**< one expert's width on a chip: d_ff_expert / tp [count] */
  double kv_heads_per_chip;    /**< KV heads a chip's decode attention runs: n_kv_heads / tp,
                                    at least 1 (replicated below one a chip) [count] */
} scale_serve_cost;

/** Routed experts a step of 'tokens' tokens reads, per MoE layer: each token picks k of E, so
 * an expert is missed by all with probability (1 - k/E)^tokens and E (1 - (1 - k/E)^tokens)
 * are touched (uniform routing). 0 for a dense cost. [count] */
double scale_serve_experts_touched(const scale_serve_cost *cost, double tokens);

/** The MLP layout 'cost' prices a step of 'tokens' tokens with: its own, or under AUTO the
 * cheapest there (a prefill's thousands of tokens and a decode's batch may differ). */
scale_ffn_layout scale_serve_layout_at(const scale_serve_cost *cost, double tokens);

/** The parts of a step's time [s]; their sum is the step time. */
typedef struct {
  double overhead_s; /**< the engine: overhead_s a step, overhead_seq_s a decoding request,
                          overhead_coll_s a collective and peer (its flags with each other
                          chip) */
  double linear_s;   /**< max(weight streaming, GEMMs) */
  double kv_s;       /**< KV reads of the decodes */
  double attn_s;     /**< prompt attention */
  double tp_s;       /**< model-parallel collectives, priced physically (no fitted term) */
  bool gemm_bound;   /**< the GEMMs, not the weight reads, set linear_s */
} scale_serve_parts;

/** Fills 'out' for one copy of cfg->tp chips of 'chip' serving 'model' in cfg's dtypes, with
 * parameters p (scale_serve_params_of() for the chip's own).
 * Errors: SCALE_ERR_INVALID (NULL argument), SCALE_ERR_RANGE (a parameter outside its range,
 *         the weights leave no HBM, no KV cache, or no interconnect for tp > 1); 'diag' says.
 */
scale_status scale_serve_cost_of(const scale_model *model, const scale_chip *chip,
                                 const scale_infer_config *cfg,
                                 const double p[SCALE_SERVE_N_PARAMS], scale_serve_cost *out,
                                 scale_diag *diag);

/** The parts of 'step' under 'cost'; all NaN when either is NULL or the step is empty. */
scale_serve_parts scale_serve_cost_parts(const scale_serve_cost *cost,
                                         const scale_serve_step *step);

/** A fixed batch priced as the simulator prices its steps (what `scale infer --batch` shows):
 * the decode step of 'batch' sequences each reading 'context' KV tokens, and the prefill of one
 * 'prompt'-token prompt in one step (causal attention's P (P + 1) / 2 query-key pairs). All NaN
 * when 'cost' is NULL or the step is empty. */
scale_serve_parts scale_serve_decode_parts(const scale_serve_cost *cost, double batch,
                                           double context);
scale_serve_parts scale_serve_prefill_parts(const scale_serve_cost *cost, double prompt);

/** The sum of 'parts': the step time [s]. */
double scale_serve_parts_total(const scale_serve_parts *parts);

/** The calibrated step time [s] (scale_serve_cost_fn; 'ctx' is a const scale_serve_cost *).
 * Domain: NaN when ctx is NULL or the step is empty. */
double scale_serve_cost_s(const scale_serve_step *step, void *ctx);

/* ==== published serving runs ================================================================= */

#define SCALE_SERVE_ROWS_MAX 256
#define SCALE_SERVE_GROUPS_MAX 32

/** What a serving row's 'measured' value is. */
typedef enum {
  SCALE_SERVE_METRIC_OUTPUT_TOKENS_PER_S = 0, /**< offline maximum output tokens/s, all chips */
  SCALE_SERVE_METRIC_COUNT
} scale_serve_metric;

/** One published offline serving run (measurements/serving-*.tsv; measurements/README.md). */
typedef struct {
  char id[16];                   /**< row id, unique ("E1a") */
  char group[SCALE_NAME_MAX];    /**< the table column it belongs to: fits and LOO use groups */
  char model[SCALE_NAME_MAX];    /**< models/ stem */
  char hardware[SCALE_NAME_MAX]; /**< hardware/ stem (one chip) */
  double chips, tp;              /**< chips, and chips per model copy [count] */
  scale_dtype weight_dtype, kv_dtype, compute_dtype; /**< number formats */
  double isl, osl;                                   /**< fixed input and output lengths [tokens] */
  double requests;                                   /**< requests in the run [count] */
  double max_batch;          /**< the engine's running-request cap [count] */
  double step_tokens;        /**< the engine's token budget per step [tokens] */
  double block_tokens;       /**< tokens per KV block [tokens] */
  double kv_mem_frac;        /**< share of the HBM left after weights given to KV [1] */
  scale_serve_metric metric; /**< what 'measured' is */
  double measured;           /**< the published value */
  char source[256];          /**< where it was published */
  char file[64];             /**< file it came from */
  int line;                  /**< line in that file */
} scale_serve_row;

/** Appends the rows of every "serving-*.tsv" of folder 'dir' (sorted by name) to rows[0..cap).
 * Header (tab-separated, exactly): id group model hardware chips tp weights kv compute isl osl
 * requests max_batch step_tokens block kv_mem_frac metric measured source.
 * Errors: SCALE_ERR_IO, SCALE_ERR_PARSE, SCALE_ERR_RANGE, SCALE_ERR_DUPLICATE_KEY, with the file
 *         and line in 'diag'.
 */
scale_status scale_serve_rows_load_dir(const char *dir, scale_serve_row *rows, int cap, int *n,
                                       scale_diag *diag);

/* ==== traces, predictions and the fit ======================================================= */

/** A row resolved: its model, chip, config and the trace of its offline run. Opaque. */
typedef struct scale_serve_set scale_serve_set;

/** Loads the serving rows of 'dir' with their models and chips, and simulates each once.
 * Owns: *out is the caller's; release it with scale_serve_set_free().
 * Errors: as the loaders; SCALE_ERR_RANGE (a row the engine cannot run); SCALE_ERR_NOMEM.
 */
scale_status scale_serve_set_load(const char *dir, scale_serve_set **out, scale_diag *diag);

/** Releases a set; NULL is a no-op. */
void scale_serve_set_free(scale_serve_set *set);

/** Rows and groups of a set, and row i's record and group index. */
int scale_serve_set_rows(const scale_serve_set *set);
int scale_serve_set_groups(const scale_serve_set *set);
const scale_serve_row *scale_serve_set_row(const scale_serve_set *set, int i);
int scale_serve_set_row_group(const scale_serve_set *set, int i);
const char *scale_serve_set_group_name(const scale_serve_set *set, int g);

/** Row i's steady batch in its offline run (running requests, time-averaged over a unit-cost
 * run) [count]. */
double scale_serve_set_row_batch(const scale_serve_set *set, int i);

/** Row i's predicted value in its metric's unit with parameters p, and optionally the step-time
 * parts summed over its run [s]. */
double scale_serve_set_predict(const scale_serve_set *set, int i,
                               const double p[SCALE_SERVE_N_PARAMS], scale_serve_parts *parts);

/** The fit's pull of each parameter toward its prior (calibrate.h's, for the serving cost):
 * (weight x its distance from the prior as a fraction of its range)^2 joins the groups' mean
 * square log errors. Without it the fit wanders along a flat valley (linear_k against
 * weight_bw_frac) to range edges: overhead_s at 0.1 ms, attn_frac at 0.8. Chosen by the
 * leave-one-group-out MAPE over the 174 rows of 0 (9.5%), 0.1 (9.5%) and 0.3 (9.3%), before
 * issue 28 priced the collectives physically (9.8% at 0.3 since). */
#define SCALE_SERVE_PRIOR_WEIGHT 0.3

/** Fits p to every group but 'exclude' (-1: none): coordinate descent by golden sections on
 * each parameter's (log-)range, minimising the group-weighted mean of log(pred / measured)^2
 * (each group counts the same) plus the pull toward the priors (SCALE_SERVE_PRIOR_WEIGHT).
 * Deterministic. Returns the group-weighted RMS log error of the rows, NaN when no row is
 * left (or out of memory). Each trial value recomputes only the part of the step time the
 * searched parameter enters, in the rows it enters, and prices each step size a group's rows
 * share once (about a second for the shipped rows). */
double scale_serve_fit(const scale_serve_set *set, int exclude, double p[SCALE_SERVE_N_PARAMS]);

/** Fills pred[0..rows) with every row's prediction at p as the fit computes it: from each row's
 * parts cached at the priors, one parameter at a time updating only the parts it enters (what
 * scale_serve_set_predict() gives, to the last bit; tests hold the two together). */
void scale_serve_set_predict_all(const scale_serve_set *set, const double p[SCALE_SERVE_N_PARAMS],
                                 double *pred);

/** Fills pred[i] of the rows of group 'g' alone with their leave-one-group-out prediction: one
 * fit, without group g (scale_serve_fit()); the other rows' entries are left as they are. */
void scale_serve_loo_group(const scale_serve_set *set, int g, double *pred);

/** Fills pred[0..rows) with each row's leave-one-group-out prediction (its group excluded from
 * the fit that predicts it): scale_serve_loo_group() for every group, the groups shared among
 * the machine's cores (each writes its own rows, so the result does not depend on them). */
void scale_serve_loo(const scale_serve_set *set, double *pred);

/** Mean |pred / measured - 1| over the rows of group 'g' (-1: all rows) [1]; NaN when none. */
double scale_serve_mape(const scale_serve_set *set, int g, const double *pred);

/** Writes hardware file 'src' to 'dst' (may be the same path) with its [serve] section replaced
 * by p (just before [step_fit] when the file has one, else at its end), each value under its
 * meaning and range, the fit's provenance
 * (the rows, groups, RMS log error and leave-one-group-out MAPE) in comments; every other line
 * is kept byte for byte. Deterministic.
 * Errors: SCALE_ERR_IO (src unreadable, dst unwritable), SCALE_ERR_NOMEM.
 */
scale_status scale_serve_write_hardware(const char *src, const char *dst,
                                        const double p[SCALE_SERVE_N_PARAMS],
                                        const scale_serve_set *set, double rms_log, double loo_mape,
                                        scale_diag *diag);

#endif
