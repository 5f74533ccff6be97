/* inference.h — serving a model: prefill, decode step time, KV capacity, batch thresholds, the
 * latency/throughput frontier, smallest slice, cost per token, disaggregation ratio.
 *
 * Book: ch. 7 "All About Transformer Inference" (inference.md) and ch. 8 "Serving LLaMA 3-70B
 * on TPUs" (applied-inference.md). Letters are the book's: B batch (sequences decoded
 * together), S context (KV tokens per sequence), P prompt (prefill) length, G generated length,
 * Y model-parallel degree, W_hbm and W_ici bandwidths, C peak FLOP/s, beta = W_hbm / W_ici,
 * alpha = C / W_ici.
 *
 * Two layers:
 *   - "book formulas" on plain numbers (totals over the chips, already multiplied out), so a
 *     test can feed the book's own rounded inputs and get its printed answers;
 *   - evaluations of a model on a chip under a scale_infer_config (prefill, decode step,
 *     memory). They are pure and allocation-free, fill fixed-size structs, and give NaN fields
 *     for input outside their domain; scale_infer_validate() says what is wrong in one line.
 *
 * The decode model (ch. 7 "Theoretical estimates for LLM latency and throughput"):
 *   T_step = T_kv + max(T_flops, T_params, T_ici)
 * T_kv = B x KV bytes per sequence / W_hbm of the chips holding the caches (attention is always
 * bandwidth-bound); T_params = weight bytes read / (Y W_hbm); T_flops = 2 B x active params /
 * (Y C); T_ici = the model-parallel collectives of one step, overlapped with the matmuls as the
 * book's ICI roofline assumes (ch. 7 "Note on ICI bounds for generation"). The book's own
 * formula is this one without T_ici; with a single chip, or ICI well below the other terms,
 * both agree.
 */
#ifndef SCALE_INFERENCE_H
#define SCALE_INFERENCE_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/status.h"
#include "scale/units.h"

/* ==== book formulas on plain numbers ======================================================== */

/** Decode step time of the book's general formula:
 * B kv / W + max(2 B n_params / C, param_bytes / W), with W and C the totals of all chips.
 *
 * Units:  batch [sequences], kv_bytes_per_seq [bytes], param_bytes [bytes], n_params [count],
 *         flops_per_s [FLOP/s], hbm_bytes_per_s [bytes/s] -> [s].
 * Domain: sizes >= 0, rates > 0; NaN otherwise.
 * Book:   ch. 7 "Theoretical Step Time (General)"; pop quiz 2.5 ms and 21 ms; ch. 8 17 ms.
 */
double scale_infer_step_time_s(double batch, double kv_bytes_per_seq, double param_bytes,
                               double n_params, double flops_per_s, double hbm_bytes_per_s);

/** Memory-bound lower bound of a decode step: (B kv + param_bytes) / W.
 *
 * Units:  as scale_infer_step_time_s() -> [s].
 * Domain: sizes >= 0, rate > 0; NaN otherwise.
 * Book:   ch. 7 "Theoretical Min Step Time"; the LLaMA 2 13B tables.
 */
double scale_infer_min_step_time_s(double batch, double kv_bytes_per_seq, double param_bytes,
                                   double hbm_bytes_per_s);

/** Prefill time of 'n_tokens' tokens, compute-bound at 'mfu_frac' of 'flops_per_s':
 * 2 n_params n_tokens / (mfu C) (the book's 2ND forward rule, attention ignored).
 *
 * Units:  n_params [count], n_tokens [tokens], flops_per_s [FLOP/s] -> [s].
 * Domain: sizes >= 0, rate > 0, 0 < mfu <= 1; NaN otherwise.
 * Book:   ch. 8 "What about prefill?": 2 x 70e9 x 8192 / (16 x 1.97e14 x 0.4) = 0.91 s.
 */
double scale_infer_prefill_time_s(double n_params, double n_tokens, double flops_per_s,
                                  double mfu_frac);

/** Chips needed to hold 'bytes' in HBM of 'hbm_bytes_per_chip' each, as a real number
 * (bytes / HBM; the book's "8.75" column).
 *
 * Units:  [bytes], [bytes] -> [count].  Domain: bytes >= 0, hbm > 0; NaN otherwise.
 * Book:   ch. 8 smallest-topology table.
 */
double scale_infer_chips_needed(double bytes, double hbm_bytes_per_chip);

/** Smallest power-of-two slice holding 'bytes': 2^ceil(log2(bytes / HBM)), at least 1.
 *
 * Units:  -> [count].  Domain: as scale_infer_chips_needed().
 * Book:   ch. 8 table (bf16 16, int8 8, int4 4 chips) and its min_topology() code.
 */
double scale_infer_min_slice_chips(double bytes, double hbm_bytes_per_chip);

/** Largest whole number of sequences of 'kv_bytes_per_seq' that fit in 'free_bytes':
 * floor(free / kv); 0 when nothing is free.
 *
 * Units:  [bytes], [bytes] -> [sequences].  Domain: kv > 0, finite free; NaN otherwise.
 * Book:   ch. 8 table, "num KV caches @ 8k".
 */
double scale_infer_max_batch(double free_bytes, double kv_bytes_per_seq);

/** Queries per second per chip: B / (T_step G n_chips), a query being one sequence of G
 * decoded tokens.
 *
 * Units:  batch [sequences], step_s [s], decode_len [tokens], n_chips [count] -> [1/s].
 * Domain: batch >= 0, the others > 0; NaN otherwise.
 * Book:   ch. 8 "what throughput per chip": 43 / (0.019 x 512 x N) = 4.42 / N.
 */
double scale_infer_qps_per_chip(double batch, double step_s, double decode_len, double n_chips);

/** KV tokens evicted per decode step when sequences of P prompt and G generated tokens finish
 * at random: B (P + G) / G.
 *
 * Units:  batch [sequences], prompt_len, decode_len [tokens] -> [tokens/step].
 * Domain: batch, prompt >= 0, decode_len > 0; NaN otherwise.
 * Book:   ch. 8: 32 x (8192 + 4096) / 4096 = 96.
 */
double scale_infer_kv_evicted_per_step(double batch, double prompt_len, double decode_len);

/** Prefill servers per generate server that keep both saturated in disaggregated serving:
 * prefill_s B / (step_s G) (prefills arrive at P / prefill_s, are consumed at
 * B G_servers / (step_s G)).
 *
 * Units:  prefill_s [s], batch [sequences], step_s [s], decode_len [tokens] -> [1].
 * Domain: prefill_s, batch >= 0, step_s, decode_len > 0; NaN otherwise.
 * Book:   ch. 8: 0.91 x 32 / (0.019 x 512) = 3.
 */
double scale_infer_disaggregation_ratio(double prefill_s, double batch, double step_s,
                                        double decode_len);

/** Cost of a million generated tokens: n_chips x price / tokens_per_s, scaled.
 *
 * Units:  usd_per_hour [USD/h per chip], n_chips [count], tokens_per_s [tokens/s] -> [USD].
 * Domain: price >= 0, n_chips > 0, tokens_per_s > 0; NaN otherwise.
 * Book:   ch. 8 "what hardware should we serve on?": cost is chip-hours per token.
 */
double scale_infer_cost_usd_per_million_tokens(double usd_per_hour, double n_chips,
                                               double tokens_per_s);

/* ---- thresholds ------------------------------------------------------------------------------ */

/** beta = W_hbm / W_ici, the chip's HBM bandwidth over its bidirectional ICI link bandwidth
 * (2 x one-way), or over its NVLink egress for a GPU.
 *
 * Units:  -> [1].  Domain: NaN when a bandwidth is unknown.
 * Book:   ch. 7 "Note on ICI bounds for generation": "around 8 for TPU v5e" (exact v5e:
 *         8.2e11 / 9e10 = 9.1).
 */
double scale_infer_beta(const scale_chip *chip);

/** Largest useful model parallelism when decode is memory-bound: the Y at which the ICI time
 * 2BD/W_ici of a matmul equals its weight-loading time 2DF/(Y W_hbm): Y = F / (B beta).
 *
 * Units:  d_ff [elements], batch [tokens], beta [1] -> [count].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 7: 16384 / (32 x 8) = 64; ch. 8: 28,672 / (8 x 64) = 56.
 */
double scale_infer_max_tp_memory_bound(double d_ff, double batch, double beta);

/** Largest useful model parallelism when the matmuls are compute-bound: Y = M_Y F / alpha,
 * with M_Y the torus axes the model-parallel group spans and alpha = C / W_ici.
 *
 * Units:  d_ff [elements], n_axes [count], alpha [FLOP/byte] -> [count].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 7 prefill rule (F / 2200 in edition c7a26c6; the older one used 2550); ch. 8:
 *         2 x 28672 / 2200 = 26.
 */
double scale_infer_max_tp_compute_bound(double d_ff, double n_axes, double alpha);

/** ICI time of one MLP under 1-D weight-stationary (Megatron) sharding over 'n_axes' axes:
 * an AllGather and a ReduceScatter of the [B, D] activations, 2 a B D / (n_axes W).
 *
 * Units:  batch [tokens], d_model [elements], act_bytes [bytes/element],
 *         link_bytes_per_s [bytes/s] (bidirectional, the book's W_ici) -> [s].
 * Domain: sizes >= 0, n_axes >= 1, rate > 0; NaN otherwise.
 * Book:   ch. 7 Q7, "4BD / (3 W_ici)" for bf16 over three axes.
 */
double scale_infer_ws1d_comms_s(double batch, double d_model, double act_bytes, double n_axes,
                                double link_bytes_per_s);

/** ICI time of one MLP under 2-D weight-stationary sharding (weights [D_X, F_YZ]):
 * a B D / (X W) + 2 a B F / (YZ W) (AllGather and ReduceScatter of the D shards over YZ,
 * AllReduce of the F shards over X).
 *
 * Units:  as scale_infer_ws1d_comms_s(), d_ff [elements], x, yz [count] -> [s].
 * Domain: sizes >= 0, x, yz >= 1, rate > 0; NaN otherwise.
 * Book:   ch. 7 Q7, T_2D = 2BD/(X W) + 4BF/(YZ W) in bf16.
 */
double scale_infer_ws2d_comms_s(double batch, double d_model, double d_ff, double act_bytes,
                                double x, double yz, double link_bytes_per_s);

/** Chip count above which 2-D weight-stationary sharding (at its best split X = sqrt(DN/2F))
 * needs less ICI time than 1-D sharding over 'n_axes_1d' axes: N > 2 n^2 F / D.
 *
 * Units:  d_model, d_ff [elements], n_axes_1d [count] -> [count].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 7 Q7: 128 (3/4)^2 for F = 4D, three axes. Exact arithmetic gives 72; the book
 *         prints 81. General form N > 32 (F/D)(3/4)^2 = 18 F / D.
 */
double scale_infer_ws2d_min_chips(double d_model, double d_ff, double n_axes_1d);

/** Model-parallel degree above which an activation collective of B D elements is latency-bound
 * (each shard moves in less than one hop latency): Y > a B D / (W T_hop).
 *
 * Units:  batch [tokens], d_model [elements], act_bytes [bytes/element],
 *         link_bytes_per_s [bytes/s] (one-way), hop_latency_s [s] -> [count].
 * Domain: sizes >= 0, rates and latency > 0; NaN otherwise.
 * Book:   ch. 7 Appendix C: "Y > BD / 45,000" in int8 on v5e; 8-way below 360 kB.
 */
double scale_infer_latency_bound_tp(double batch, double d_model, double act_bytes,
                                    double link_bytes_per_s, double hop_latency_s);

/** Batch above which KV loading takes longer than parameter loading: param_bytes / kv.
 *
 * Units:  [bytes], [bytes] -> [sequences].  Domain: param >= 0, kv > 0; NaN otherwise.
 * Book:   ch. 7 "What about attention?": diminishing returns once B x KV ~ params.
 */
double scale_infer_kv_dominates_batch(double param_bytes, double kv_bytes_per_seq);

/** Context above which a sequence's KV loading (S kv_tok / W) takes longer than its share of
 * the matmul FLOPs (2 n_params / C): S = 2 n_params W / (C kv_tok).
 *
 * Units:  n_params [count], kv_bytes_per_token [bytes], [FLOP/s], [bytes/s] -> [tokens].
 * Domain: n_params >= 0, the others > 0; NaN otherwise.
 * Book:   ch. 8 breakdown figure: KV loading exceeds FLOPs "at all sequence lengths greater
 *         than 2048" (LLaMA 3 70B int8 on v5e: 3,557 tokens, so from the 4k point on).
 */
double scale_infer_kv_dominates_flops_context(double n_params, double kv_bytes_per_token,
                                              double flops_per_s, double hbm_bytes_per_s);

/** Critical batch of a MoE layer on 'chip': scale_roofline_critical_batch() x E / k.
 *
 * Units:  -> [tokens].  Domain: NaN for a dense model or a chip lacking the rates.
 * Book:   ch. 7 Q5 and ch. 4 Q8: B > 120 E / k for int8 weights and bf16 FLOPs on v5e.
 */
double scale_infer_moe_critical_batch(const scale_model *model, const scale_chip *chip,
                                      scale_dtype weight_dtype, scale_dtype compute_dtype);

/* ---- speculative decoding -------------------------------------------------------------------- */

/** Expected tokens produced per verification step with per-token acceptance probability
 * 'accept' and 'lookahead' drafted tokens: (1 - a^(g+1)) / (1 - a) (g + 1 when a = 1).
 *
 * Units:  -> [tokens].  Domain: 0 <= accept <= 1, lookahead >= 0; NaN otherwise.
 * Book:   ch. 7 Appendix D; formula from Leviathan et al. (arXiv 2211.17192) eq. 1.
 */
double scale_infer_spec_expected_tokens(double accept, double lookahead);

/** Expected speedup of speculative decoding over plain decoding: expected tokens divided by
 * the cost of one round, lookahead draft steps at 'draft_cost_ratio' of a target step plus one
 * verification step costing 'verify_cost_ratio' target steps (1 when memory-bound).
 *
 * Units:  -> [1].  Domain: as above, ratios >= 0, verify > 0; NaN otherwise.
 * Book:   ch. 7 Appendix D; Leviathan et al. Theorem 3.8 ((1 - a^(g+1)) / ((1 - a)(g c + 1))).
 */
double scale_infer_spec_speedup(double accept, double lookahead, double draft_cost_ratio,
                                double verify_cost_ratio);

/* ==== a model on a chip ====================================================================== */

/** How the KV cache is spread over the model-parallel group. */
typedef enum {
  SCALE_KV_SHARD_FULL = 0, /**< heads first (up to K ways), then batch: fully distributed, two
                                AllToAlls per attention layer beyond K ways (ch. 7 "Sharding the
                                KV cache") */
  SCALE_KV_SHARD_HEADS     /**< heads only: beyond K ways the cache is replicated */
} scale_kv_sharding;

/** What limits a decode step. */
typedef enum {
  SCALE_BOUND_PARAMS = 0, /**< loading weights from HBM */
  SCALE_BOUND_FLOPS,      /**< the matmuls' FLOPs */
  SCALE_BOUND_ICI,        /**< model-parallel collectives */
  SCALE_BOUND_KV,         /**< loading KV caches (the attention term exceeds the matmul term) */
  SCALE_BOUND_COUNT
} scale_infer_bound;

/** Short lowercase name of 'bound' ("params", "flops", "ici", "kv"); "?" when invalid. */
const char *scale_infer_bound_name(scale_infer_bound bound);

/** How the feed-forward (MLP) weights are laid out over a model-parallel group of N chips, as
 * ch. 7 ("Distributed inference", Q7, Appendix B) describes the layouts Pope et al. introduced.
 * T is the tokens of a step, D the model width, F the MLP width. */
typedef enum {
  SCALE_FFN_WS_1D = 0, /**< 1-D weight-stationary, W_in[D, F_N]: per MLP an AllGather of the
                            [T, D] input and a ReduceScatter of the [T, D] output over all N
                            chips (Megatron's AllReduce); the weights never move */
  SCALE_FFN_WS_2D,     /**< 2-D weight-stationary, W_in[D_X, F_YZ] over torus axes X and YZ:
                            AllGather_YZ of [T, D_X], AllReduce_X of [T, F_YZ] (per input matrix
                            of the MLP), ReduceScatter_YZ of [T, D_X] (ch. 7 Q7's ESTI) */
  SCALE_FFN_WG,        /**< weight-gathered: the weights, stored 1/N a chip, are AllGathered
                            whole for every MLP and the tokens stay split over the batch (no
                            activation collective); each chip then reads the whole MLP's weights
                            from HBM. Pays when T D exceeds the weights (long prefills) */
  SCALE_FFN_AUTO,      /**< the cheapest of the three for each step's token count: prefill steps
                            and decode steps get each their own */
  SCALE_FFN_COUNT
} scale_ffn_layout;

/** Short name of 'layout' ("1d", "2d", "gathered", "auto"); "?" when invalid. */
const char *scale_ffn_layout_name(scale_ffn_layout layout);

/** A serving layout and load. Fields are counts unless they carry a unit. */
typedef struct {
  double n_chips;                /**< chips serving the batch, integer >= 1 */
  double tp;                     /**< model-parallel degree Y (weights split Y ways); n_chips / tp
                                      data-parallel copies share the batch; must divide n_chips */
  scale_ffn_layout ffn_layout;   /**< how the MLP weights are split (ch. 7 Q7, Appendix B) */
  double ep;                     /**< expert-parallel degree inside the tp group (1: experts split
                                      like a dense MLP); MoE layers then add two AllToAlls */
  scale_kv_sharding kv_sharding; /**< how KV caches are split */
  scale_dtype weight_dtype;      /**< stored weights */
  scale_dtype kv_dtype;          /**< stored KV cache */
  scale_dtype compute_dtype;     /**< matmul arithmetic (selects C) and activations */
  double mfu_frac;               /**< prefill FLOPs utilization, (0, 1] (book: 0.4) */
  double batch;                  /**< B, sequences decoded together, integer >= 1 */
  double context;                /**< S, KV tokens per sequence during decode, >= 1 */
  double prompt;                 /**< P, prefill tokens per request, >= 0 */
  double decode_len;             /**< G, generated tokens per request (median), >= 1 */
} scale_infer_config;

/** A config with the book's defaults: tp = n_chips, bf16 weights, KV and compute, 1-D
 * weight-stationary MLPs, KV fully sharded, ep 1, mfu 0.4, prompt = context, decode_len 512. */
scale_infer_config scale_infer_config_default(double n_chips, double batch, double context);

/** A generate server's config: scale_infer_config_default() with weights and KV caches in
 * 'dtype' (bf16 FLOPs) and no prompt, since a generate server's prompts are prefilled elsewhere.
 *
 * Domain: as scale_infer_config_default(); the config is checked by scale_infer_validate().
 * Book:   ch. 8 "Serving LLaMA 3 70B": the int8 generate slices of its examples.
 */
scale_infer_config scale_infer_config_generate(double n_chips, double batch, double context,
                                              scale_dtype dtype);

/** Longest context any evaluation accepts when the model names no n_ctx_max [tokens]. */
#define SCALE_INFER_CONTEXT_MAX 1e9

/** Checks a context length 'tokens' (what = "context" or "prompt", for the message; min 1 or
 * 0) against 'model': a finite number in [min, n_ctx_max], or [min, SCALE_INFER_CONTEXT_MAX]
 * when the model names no maximum. `scale infer` and `scale model show --context` share it.
 *
 * Errors: SCALE_ERR_RANGE with "context 1e+308 exceeds llama-3-8b's maximum of 8192 tokens".
 */
scale_status scale_infer_check_context(const scale_model *model, const char *what, double tokens,
                                       double min, scale_diag *diag);

/** Checks that 'cfg' makes sense for 'model' on 'chip': integer counts (n_chips, tp, batch,
 * ep >= 1), tp dividing n_chips, the batch a multiple of n_chips / tp, context >= 1 and
 * context and prompt within scale_infer_check_context(), decode_len >= 1, mfu in (0, 1],
 * valid dtypes with a chip rate for compute_dtype, a model-parallel group the hardware can
 * build (TPU: within the pod; GPU: within the NVLink domain), ep dividing tp and E, and an
 * ffn_layout the group can hold: 2-D weight-stationary (and AUTO, which may choose it) needs a
 * TPU group spanning two torus axes or more (an NVLink domain is one switch: nothing to split
 * D and F over).
 * A batch that does not fit in HBM is NOT an error (see scale_infer_memory_eval()).
 *
 * Errors: SCALE_ERR_INVALID or SCALE_ERR_RANGE with a one-line message in 'diag' (may be NULL).
 */
scale_status scale_infer_validate(const scale_model *model, const scale_chip *chip,
                                  const scale_infer_config *cfg, scale_diag *diag);

/** Memory of a serving layout, per chip unless stated. */
typedef struct {
  double n_params;                  /**< total parameters [count] */
  double weight_bytes;              /**< all weights in weight_dtype [bytes] */
  double weight_bytes_per_chip;     /**< weight_bytes / tp [bytes] */
  double kv_bytes_per_token;        /**< KV cache of one token, all layers [bytes] (0 Mamba-2) */
  double kv_bytes_per_sequence;     /**< one sequence at context S (Mamba-2: its state) [bytes] */
  double kv_bytes;                  /**< B sequences [bytes] */
  double kv_bytes_per_chip;         /**< the share of one chip under kv_sharding [bytes] */
  double activation_bytes_per_chip; /**< peak working activations: one layer of a P-token
                                         prefill or of the B-token decode step [bytes] */
  double total_bytes_per_chip;      /**< weights + KV + activations [bytes] */
  double hbm_bytes_per_chip;        /**< capacity [bytes] */
  bool fits;                        /**< total <= capacity */
  double max_batch;                 /**< largest B (a multiple of n_chips / tp) that fits, 0 if
                                         none [sequences] */
} scale_infer_memory;

/** Memory of 'cfg' for 'model' on 'chip'. Weights are split tp ways (replicated over the
 * n_chips / tp copies); KV caches are split over all n_chips (FULL) or over the data-parallel
 * copies times min(tp, K) (HEADS). Working activations of a layer: tokens x (D + Q, K, V and
 * attention output heads / tp + MLP hidden widths / tp) in compute_dtype, for the larger of the
 * P-token prefill and the B/copies-token decode step.
 *
 * Units:  bytes.  Domain: a config that scale_infer_validate() accepts; every field NaN (fits
 *         false) otherwise.
 * Book:   ch. 7 "What about memory?" (LLaMA 2 13B 6.7 GB per 8k sequence; activations 80 MB);
 *         ch. 8 KV 163,840 bytes per token in int8, batch 32 x 8192 uses 112 GB.
 */
scale_infer_memory scale_infer_memory_eval(const scale_model *model, const scale_chip *chip,
                                           const scale_infer_config *cfg);

/** A prefill of one prompt. */
typedef struct {
  double flops;  /**< forward FLOPs of P tokens, causal attention included [FLOP] */
  double time_s; /**< flops / (n_chips C mfu): all chips on one prompt [s] */
  double ttft_s; /**< time to first token: the prefill (its last logits give token 1) [s] */
  double attention_flops_frac; /**< share of the FLOPs in dot-product attention [1] */
  double kv_bytes; /**< KV cache the prefill writes (what disaggregation ships) [bytes] */
} scale_infer_prefill;

/** Prefill of cfg->prompt tokens of 'model' on 'chip' at cfg->mfu_frac.
 *
 * Domain: as scale_infer_memory_eval(); NaN fields otherwise.
 * Book:   ch. 7 "Prefill ... is almost identical to training"; ch. 8 0.91 s (2ND rule).
 */
scale_infer_prefill scale_infer_prefill_eval(const scale_model *model, const scale_chip *chip,
                                             const scale_infer_config *cfg);

/** One decode step of B sequences at context S. */
typedef struct {
  double t_kv_s;          /**< KV loading [s] */
  double t_params_s;      /**< weight loading [s] */
  double t_flops_s;       /**< matmul FLOPs [s] */
  double t_ici_s;         /**< model-parallel collectives of the step [s] */
  double t_ici_latency_s; /**< of which fixed per-hop latency (the floor it cannot beat) [s] */
  bool ici_latency_bound; /**< the collectives are latency- rather than bandwidth-bound */
  double step_s;          /**< t_kv + max(t_flops, t_params, t_ici) [s] */
  double tokens_per_s;    /**< B / step [tokens/s] */
  double tokens_per_s_per_chip; /**< tokens_per_s / n_chips [tokens/s] */
  double latency_per_token_s;   /**< per-token latency seen by one sequence: step_s [s] */
  double qps_per_chip;          /**< requests of G tokens finished per second per chip [1/s] */
  double cost_usd_per_million_tokens; /**< at the chip's price; NaN when unknown [USD] */
  double critical_batch;              /**< tokens per model copy above which the matmuls are
                                           compute-bound (MoE: x E/k) [tokens] */
  scale_infer_bound bound;            /**< the largest term */
} scale_infer_decode;

/** Decode step of 'cfg' for 'model' on 'chip'. Per data-parallel copy of tp chips with
 * b = B tp / n_chips sequences: T_kv = b KV_seq / (W x chips holding a copy's KV), T_params =
 * weights read / (tp W) (a MoE reads only the experts its b k routings touch, expected
 * E (1 - (1 - k/E)^b) per layer), T_flops = 2 b (active params - input embedding) / (tp C),
 * T_ici = per layer an AllReduce of the [b, D] activations after attention and after the MLP
 * (the MLP's replaced by ch. 7 Q7's 2-D cost when weight_stationary_2d), two AllToAlls of the
 * [b, N H] queries and outputs when KV is batch-sharded (FULL, tp > K), two AllToAlls of the
 * routed [b k, D] tokens per MoE layer when ep > 1; each collective's precise cost from
 * collectives.h (max of hop latency and bandwidth time) on the chip's torus (TPU) or NVLink
 * switch (GPU, hop latency taken as 0: the hardware files give none).
 *
 * Domain: as scale_infer_memory_eval(); NaN fields otherwise. A batch that does not fit is
 *         still evaluated (check scale_infer_memory_eval().fits).
 * Book:   ch. 7 "Theoretical estimates", "Note on ICI bounds", Appendix C; ch. 8 17 ms.
 */
scale_infer_decode scale_infer_decode_eval(const scale_model *model, const scale_chip *chip,
                                           const scale_infer_config *cfg);

/* ---- the model-parallel collectives of a step, per layout --------------------------------- */

/** How fast the links of a model-parallel group run, for scale_infer_comms_eval(). */
typedef struct {
  double bw_frac;       /**< share of each link's peak the collectives reach, (0, 1] */
  double hop_latency_s; /**< fixed cost of one hop [s], >= 0; NaN: the chip's (its ICI hop
                             latency; 0 on a GPU, whose file gives none) */
  double act_bytes;     /**< bytes of an activation element on the wire; NaN: compute_dtype's */
} scale_infer_link;

/** The collectives of one step of one model copy (cfg->tp chips) over 'tokens' tokens. Each
 * collective is priced by collectives.h on the copy's group (TPU: tp's factors over the torus
 * axes, each axis with its ICI link bandwidth, wraparound and hop latency; GPU: one NVLink
 * switch axis) as its hop latency plus its bytes over the bandwidth (a step pays both: the
 * hops cannot overlap the bytes of the same collective). Per layer:
 *   attention (or Mamba-2 mixer): an AllReduce of [T, D] (AllGather in, ReduceScatter out);
 *   dense MLP: by 'layout' (scale_ffn_layout; AUTO takes the cheapest at this T);
 *   MoE MLP: an AllReduce of [T, D] (experts split like a 1-D MLP), plus, with ep > 1, two
 *     AllToAlls of the routed [T k, D] tokens;
 *   KV sharded over the batch (kv_sharding FULL with tp > K, multi-query attention as ch. 7
 *     "Sharding the KV cache" lays it out): two AllToAlls of the [T, N H] queries and outputs.
 *
 * Domain: a config scale_infer_validate() accepts, tokens >= 0, link NULL (the peaks) or with
 *         bw_frac in (0, 1]; every field NaN otherwise. One chip: every time 0.
 */
typedef struct {
  scale_ffn_layout layout; /**< the MLP layout priced (AUTO resolved) */
  int n_axes;              /**< axes of the group */
  double axis_size[3];     /**< their sizes [count] */
  double x;                /**< 2-D: chips along the D split X (product of the X axes); 1 else */
  double attn_s;           /**< attention or mixer collectives, all layers [s] */
  double ffn_s;            /**< dense MLP collectives under 'layout', all layers [s] */
  double moe_s;            /**< MoE layers' collectives [s] */
  double kv_s;             /**< batch-sharded KV's AllToAlls [s] */
  double gather_read_s;    /**< weight-gathered: reading the gathered MLP weights at the HBM
                                peak, (N - 1) / N of them [s] */
  double latency_s;        /**< hops x hop latency of every collective [s] */
  double bandwidth_s;      /**< bytes over bandwidth of every collective [s] */
  double bytes_per_chip;   /**< bytes one chip receives over the step [bytes] */
  double count;            /**< collectives of the step [count] */
  double time_s;           /**< latency_s + bandwidth_s + gather_read_s [s] */
} scale_infer_comms;

scale_infer_comms scale_infer_comms_eval(const scale_model *model, const scale_chip *chip,
                                         const scale_infer_config *cfg, double tokens,
                                         scale_ffn_layout layout, const scale_infer_link *link);

/** One point of the latency/throughput frontier. */
typedef struct {
  double batch;                       /**< B [sequences] */
  double context;                     /**< S [tokens] */
  double step_s;                      /**< per-token latency [s] */
  double tokens_per_s_per_chip;       /**< throughput [tokens/s] */
  double cost_usd_per_million_tokens; /**< [USD] */
  bool fits;                          /**< the batch fits in HBM */
} scale_infer_point;

/** Fills out[0..n) with the decode frontier of 'cfg' at batches[i] (cfg->batch ignored) and
 * cfg->context. Returns how many of the points fit in HBM, or -1 for invalid arguments.
 * Pure and allocation-free: out is caller storage.
 *
 * Book:   ch. 8 "Visualizing the Latency Throughput Tradeoff".
 */
int scale_infer_frontier(const scale_model *model, const scale_chip *chip,
                         const scale_infer_config *cfg, const double *batches, int n,
                         scale_infer_point *out);

/** A row of ch. 8's smallest-slice table. */
typedef struct {
  double weight_bytes;       /**< [bytes] */
  double kv_bytes_per_token; /**< [bytes] */
  double chips_needed;       /**< weight_bytes / HBM per chip, real [count] */
  double slice_chips;        /**< smallest power-of-two slice [count] */
  double free_bytes;         /**< HBM of the slice left for KV caches [bytes] */
  double max_batch;          /**< whole sequences of 'context' tokens that fit [sequences] */
} scale_infer_slice;

/** Smallest power-of-two slice of 'chip' holding 'model' with weights and KV in 'dtype', and
 * how many sequences of 'context' tokens then fit (activations ignored, as the book does).
 *
 * Domain: context >= 0, a valid dtype; NaN fields otherwise.
 * Book:   ch. 8 "What is the smallest TPU v5e topology ...": 16 / 8 / 4 chips.
 */
scale_infer_slice scale_infer_smallest_slice(const scale_model *model, const scale_chip *chip,
                                             scale_dtype dtype, double context);

/** The row of ch. 8's smallest-slice table for a slice of 'n_chips' chips instead of the
 * smallest: the weights as before, the rest of the slice's HBM for KV caches (activations
 * ignored). NaN for n_chips asks for the smallest slice.
 *
 * Units:  context [tokens], n_chips [count]; the fields as scale_infer_slice's.
 * Domain: as scale_infer_smallest_slice(), n_chips > 0 or NaN; NaN fields otherwise.
 * Book:   ch. 8 "What is the smallest TPU v5e topology ...": twice the slice holds more
 *         than twice the sequences, since the weights take the same bytes.
 */
scale_infer_slice scale_infer_slice_of(const scale_model *model, const scale_chip *chip,
                                       scale_dtype dtype, double context, double n_chips);

/* ---- the best slice within a latency limit (ch. 8) ----------------------------------------- */

/** The decode layout of highest throughput per chip whose step stays within 'max_step_s':
 * slices of base->n_chips x 2^k chips up to the chip's pod (tp = n_chips), each at batches
 * 1, 2, ..., max_batch until one does not fit or is too slow; the other fields of 'base' as
 * given. Slices the model does not validate on are skipped. Fills *best_cfg and *best (left
 * untouched when none qualifies) and returns whether one does.
 *
 * Domain: max_step_s > 0, max_batch >= 1, base->n_chips >= 1; false otherwise.
 * Book:   ch. 8 worked problem 3 (LLaMA 3 405B, int8 weights and KV, 8192 tokens, 15 ms).
 */
bool scale_infer_best_within_latency(const scale_model *model, const scale_chip *chip,
                                     const scale_infer_config *base, double max_step_s,
                                     double max_batch, scale_infer_config *best_cfg,
                                     scale_infer_decode *best);

/* ---- KV caches with local layers; the best lookahead (ch. 7) -------------------------------- */

/** KV bytes of one sequence of 'context' tokens when a fraction 'local_frac' of the layers
 * attends only to the last 'window' tokens (and so caches at most that many), the rest being
 * global: per-token KV x ((1 - f) S + f min(S, window)).
 *
 * Units:  [tokens], [1], [tokens] -> [bytes].
 * Domain: context >= 0, 0 <= local_frac <= 1, window >= 0, a dtype with a size; NaN otherwise.
 * Book:   ch. 7 "local attention layers" (Gemma-style 1:1 local:global at a 4096 window).
 */
double scale_infer_local_kv_bytes(const scale_model *model, scale_dtype dtype, double context,
                                  double local_frac, double window);

/** The lookahead g in 1..max_lookahead of the highest scale_infer_spec_speedup() (the first
 * of equals), its speedup into *speedup when non-NULL.
 *
 * Units:  -> [tokens].  Domain: as scale_infer_spec_speedup(), max_lookahead >= 1; NaN
 *         otherwise.
 * Book:   ch. 7 Appendix D (the speedup peaks, then falls as drafts are wasted).
 */
double scale_infer_spec_best_lookahead(double accept, double draft_cost_ratio,
                                       double verify_cost_ratio, int max_lookahead,
                                       double *speedup);

/* ---- curves the chapters draw (ch. 8) ------------------------------------------------------- */

/** Splits frontier points pts[0..n) into a drawable curve: lat_s[i] = pts[i].step_s and
 * tput[i] = pts[i].tokens_per_s_per_chip where the point fits, NaN where it does not (which
 * breaks the plotted line). Returns the batch of the last point that fits (0 when none).
 *
 * Units:  -> lat_s [s], tput [tokens/s per chip], the batch [sequences].
 * Book:   ch. 8 "Visualizing the Latency Throughput Tradeoff".
 */
double scale_infer_frontier_curve(const scale_infer_point *pts, int n, double *lat_s, double *tput);

/** Fills out[0..k) with scale_infer_decode_eval() of 'cfg' at batches 1, 2, ..., k, where k is
 * the smaller of max_n and the largest batch that fits in HBM (scale_infer_memory_eval()).
 * Returns k (0 when not one sequence fits). cfg->batch is ignored.
 *
 * Book:   ch. 8, the decode step and its parts against batch (figure "step-breakdown").
 */
int scale_infer_decode_sweep(const scale_model *model, const scale_chip *chip,
                             const scale_infer_config *cfg, int max_n, scale_infer_decode *out);

/** The decode step of 'cfg' at the largest batch that fits (cfg->batch ignored); the memory
 * (evaluated at cfg as given; its max_batch does not depend on the batch) into *mem when
 * non-NULL. NaN fields when not one sequence fits.
 *
 * Units:  as scale_infer_decode_eval().  Domain: as scale_infer_memory_eval().
 * Book:   ch. 8 "Serving LLaMA 3 70B": the cost of a slice at full HBM.
 */
scale_infer_decode scale_infer_decode_at_max_batch(const scale_model *model,
                                                   const scale_chip *chip,
                                                   const scale_infer_config *cfg,
                                                   scale_infer_memory *mem);

/** Splits a sweep d[0..n) of scale_infer_decode_sweep() (batches 1..n) into drawable columns:
 * batch[i] = i + 1, step_s[i] and its parts params_s, kv_s, flops_s, ici_s (t_params_s,
 * t_kv_s, t_flops_s, t_ici_s). Every output holds n doubles (caller storage).
 *
 * Units:  -> batch [sequences], times [s].
 * Book:   ch. 8, the decode step and its parts against batch (figure "step-breakdown").
 */
void scale_infer_decode_curve(const scale_infer_decode *d, int n, double *batch, double *step_s,
                              double *params_s, double *kv_s, double *flops_s, double *ici_s);

/* ---- ch. 8's serving example: the book's step on a slice, the slice table, frontiers ------- */

/** The book's decode step (scale_infer_step_time_s()) of 'model' on 'n_chips' chips of 'chip':
 * 'batch' sequences of 'context' tokens, weights and KV caches in 'dtype', bf16 FLOPs, W and C
 * the totals over the chips: B KV_seq / W + max(2 B n_params / C, weight bytes / W).
 *
 * Units:  n_chips [count], batch [sequences], context [tokens] -> [s].
 * Domain: n_chips > 0, batch and context >= 0, a dtype with a size; NaN otherwise.
 * Book:   ch. 8 "Serving LLaMA 3 70B": batch 32 at 8192 tokens, int8, on 8 v5e: 17 ms.
 */
double scale_infer_book_step_s(const scale_model *model, const scale_chip *chip, double n_chips,
                               double batch, scale_dtype dtype, double context);


/** Most rows a scale_infer_table holds. */
#define SCALE_INFER_TABLE_MAX 64

/** A table of named quantities, in the order they are meant to be read. */
typedef struct {
  int n;                                         /**< rows in 'row' */
  scale_quantity row[SCALE_INFER_TABLE_MAX]; /**< the rows */
} scale_infer_table;

/** Appends the row (key, label, value, unit, style) to *t; a key longer than scale_quantity's
 * is cut, a row beyond SCALE_INFER_TABLE_MAX dropped. Use: a library function filling a table. */
void scale_infer_table_add(scale_infer_table *t, const char *key, const char *label, double value,
                           const char *unit, scale_fmt style);

/** A row of ch. 8's smallest-slice table served at its largest batch. */
typedef struct {
  scale_infer_slice slice; /**< the slice and what fits on it */
  double step_s;           /**< scale_infer_book_step_s() at slice.max_batch [s] */
  double qps_per_chip;     /**< scale_infer_qps_per_chip() of requests of decode_len [1/s] */
} scale_infer_served_slice;

/** scale_infer_slice_of() (n_chips NaN: the smallest slice) served at its largest batch with
 * the book's step, and the queries per second per chip of requests of 'decode_len' tokens.
 *
 * Units:  context, decode_len [tokens], n_chips [count]; the fields as their own.
 * Domain: as scale_infer_slice_of(), decode_len > 0; NaN fields otherwise.
 * Book:   ch. 8 smallest-topology table (bf16 16, int8 8, int4 4 chips, 43 sequences each).
 */
scale_infer_served_slice scale_infer_slice_served(const scale_model *model,
                                                  const scale_chip *chip, scale_dtype dtype,
                                                  double context, double n_chips,
                                                  double decode_len);

/** The quantities of a served slice in ch. 8's order: with 'full' weight_bytes, kv_per_token,
 * chips_needed, chips, free_bytes, max_batch, step_s, qps_per_chip; without, the last of them
 * only (chips, max_batch, step_s, qps_per_chip: what changes with the slice). */
void scale_infer_slice_table(const scale_infer_served_slice *s, bool full,
                             scale_infer_table *out);

/** Most contexts and batches scale_infer_frontiers_eval() takes. */
#define SCALE_INFER_FRONTIER_CONTEXTS 8
#define SCALE_INFER_FRONTIER_BATCHES 1024

/** The decode frontier of one configuration at several contexts, batches 1, 2, ..., n_batches.
 * About 540 kB: give it static storage. */
typedef struct {
  int n_contexts, n_batches;
  double context[SCALE_INFER_FRONTIER_CONTEXTS];   /**< S of each frontier [tokens] */
  double max_batch[SCALE_INFER_FRONTIER_CONTEXTS]; /**< the largest batch that fits (0: none) */
  scale_infer_point point[SCALE_INFER_FRONTIER_CONTEXTS][SCALE_INFER_FRONTIER_BATCHES];
  /** scale_infer_frontier_curve() of each: the drawable latency [s] and throughput per chip
   * [tokens/s], NaN where the batch does not fit */
  double lat_s[SCALE_INFER_FRONTIER_CONTEXTS][SCALE_INFER_FRONTIER_BATCHES];
  double tput[SCALE_INFER_FRONTIER_CONTEXTS][SCALE_INFER_FRONTIER_BATCHES];
  double worst_step_s; /**< the slowest step at a largest batch, over the contexts [s] */
} scale_infer_frontiers;

/** scale_infer_frontier() of 'cfg' at contexts[0..n_contexts) and batches 1..n_batches into
 * *out. Returns false for invalid arguments (counts out of range, a configuration the model
 * does not validate on).
 *
 * Book:   ch. 8 "Visualizing the Latency Throughput Tradeoff" (one line per context).
 */
bool scale_infer_frontiers_eval(const scale_model *model, const scale_chip *chip,
                                const scale_infer_config *cfg, const double *contexts,
                                int n_contexts, int n_batches, scale_infer_frontiers *out);

/** The quantities of frontier k at its largest batch: max_batch, and where one fits
 * max_step_s, max_tput (tokens/s per chip) and max_cost (USD per million tokens). */
void scale_infer_frontier_table(const scale_infer_frontiers *f, int k, scale_infer_table *out);

/** The two ends of frontier k (which must fit a batch): batch 1's step, throughput per chip
 * and cost ("min_step_s", "min_tput", "min_cost"), the cost at batch 1 over the cost at the
 * largest batch ("cost_ratio") and the largest batch's step over batch 1's ("latency_ratio").
 *
 * Book:   ch. 8 "Visualizing the Latency Throughput Tradeoff": batching buys throughput and
 *         cost at the price of latency.
 */
void scale_infer_frontier_ends_table(const scale_infer_frontiers *f, int k,
                                     scale_infer_table *out);

/* ---- ch. 7's tables ------------------------------------------------------------------------- */

/** Ch. 7's throughput table: the book's decode step (scale_infer_step_time_s()) of 'model' with
 * bf16 weights, KV caches and FLOPs on 'n_chips' chips of 'chip' at 'context' tokens, the KV
 * cache of a sequence divided by 'kv_divisor' (1: as it is; the book's "5x smaller": 5), at
 * batches[0..n): for each batch B the rows "bB.kv_bytes", "bB.total_bytes" (KV and weights),
 * "bB.step_s" and "bB.tokens_per_s", then "max_batch" (scale_infer_max_batch() of the HBM the
 * weights leave). At most (SCALE_INFER_TABLE_MAX - 1) / 4 batches are tabled.
 *
 * Units:  n_chips [count], context [tokens], kv_divisor [1], batches [sequences].
 * Book:   ch. 7 "What about memory?" tables: LLaMA 2 13B on 8 v5e, 8192 tokens (batch 240:
 *         1.61 TB of KV, 249 ms; 15 sequences fit, 75 with the 5x smaller cache).
 */
void scale_infer_book_table(const scale_model *model, const scale_chip *chip, double n_chips,
                            double context, double kv_divisor, const double *batches, int n,
                            scale_infer_table *out);

/** Ch. 7's KV-cache reductions of 'model' applied in turn: bytes per token in bf16 (MHA: the
 * model as it is), with 'kv_heads' KV heads (GQA), with one (MQA), GQA in int8 and int4
 * ("mha_per_token", "gqa_per_token", "mqa_per_token", "gqa_int8_per_token",
 * "gqa_int4_per_token"); the example "long_context", "window" and "local_pct" (100
 * local_frac); one sequence of 'context' tokens in MHA bf16, GQA int8 and GQA int8 with a
 * fraction 'local_frac' of local layers over 'window' tokens (scale_infer_local_kv_bytes();
 * "mha_seq", "gqa_int8_seq", "local_seq") and how much smaller the last is than the first
 * ("combined_factor").
 *
 * Units:  kv_heads [count], context, window [tokens], local_frac [1]; rows in bytes.
 * Book:   ch. 7 "Tricks for improving generation throughput and latency".
 */
void scale_infer_kv_reduction_table(const scale_model *model, double kv_heads, double context,
                                    double window, double local_frac, scale_infer_table *out);

/** Ch. 7's two ways of sharding the KV cache compared on 'cfg' (its kv_sharding ignored): the
 * KV bytes per chip, KV loading, collectives and step (scale_infer_memory_eval() and
 * scale_infer_decode_eval()) with the cache split over heads then batch (SCALE_KV_SHARD_FULL;
 * rows "full_kv_per_chip", "full_t_kv_s", "full_t_ici_s", "full_step_s") and over heads only
 * (SCALE_KV_SHARD_HEADS; "heads_..."), each pair side by side.
 *
 * Book:   ch. 7 "Sharding the KV cache" (LLaMA 3 70B, K = 8, on 16 chips: the heads-only
 *         cache is replicated twice, so its KV loading takes twice as long).
 */
void scale_infer_kv_sharding_table(const scale_model *model, const scale_chip *chip,
                                   const scale_infer_config *cfg, scale_infer_table *out);

/* ---- ch. 8's tables ------------------------------------------------------------------------- */

/** Ch. 8's price of compute on 'chip': "flops_per_s" (bf16), "usd_per_hour" (a chip-hour),
 * "flops_per_usd" (bf16 FLOPs an hour buys, per dollar).
 *
 * Units:  [FLOP/s], [USD/h], [FLOP/USD].
 * Book:   ch. 8 "Which hardware?": FLOPs per dollar of H100, v5p and v5e.
 */
void scale_infer_price_table(const scale_chip *chip, scale_infer_table *out);

/** Ch. 8's KV-cache size of 'model' on 'chip' in int8: "per_token", one sequence of the book's
 * "long_context" (32,768 tokens) "seq", a "batch" of 240 of them and their "batch_bytes", and
 * "chips" (scale_infer_chips_needed() of those caches and the int8 weights).
 *
 * Units:  [bytes], [tokens], [count].
 * Book:   ch. 8 "Serving LLaMA 3 70B": 2 x 8 x 128 x 80 = 163,840 bytes per token ("160kB"),
 *         5.3 GB per 32k sequence, 1.3 TB for 240 of them, 86 v5e (exact 84.9).
 */
void scale_infer_kv_table(const scale_model *model, const scale_chip *chip,
                          scale_infer_table *out);

/** Ch. 8's worked batch: 'batch' sequences of 'context' tokens with int8 weights and KV caches
 * on the smallest power-of-two slice of 'chip' that holds them, 22 rows: batch, context,
 * kv_bytes, weight_bytes, total_bytes, chips_needed, slice, mem_per_chip (activations
 * included, scale_infer_memory_eval()), hbm_per_chip, step_s, tokens_per_s and
 * tokens_per_s_per_chip (scale_infer_book_step_s()), the library's eval_step_s, eval_t_ici_s,
 * eval_t_params_s and cost_per_m (scale_infer_decode_eval(), collectives modelled), alpha (C /
 * W_ici), max_tp and max_tp_2550 (scale_infer_max_tp_compute_bound() over two axes with the
 * chip's alpha and with the book's 2550), chips2, step2_s and tokens_per_s_per_chip2 (twice the
 * slice).
 *
 * Units:  batch [sequences], context [tokens]; rows in bytes, s, tokens/s, USD, counts.
 * Book:   ch. 8 "Serving LLaMA 3 70B": batch 32 at 8192 tokens on a v5e 4x2, 17 ms and 235
 *         tokens/s per chip; 8.5 ms on a 4x4; ICI-bound above 2 x 28,672 / 2200 = 26.
 */
void scale_infer_batch_table(const scale_model *model, const scale_chip *chip, double batch,
                             double context, scale_infer_table *out);

/** Ch. 8's decode at full HBM on 'chip': "step_s" (reading one chip's whole HBM),
 * "decode_len" ('decode_len', a request's median decode), "request_s" (its decode at that
 * pace), "int4_params_s" (reading the int4 weights of 'model' alone on their smallest slice
 * at 'context' tokens).
 *
 * Units:  context, decode_len [tokens] -> [s].
 * Book:   ch. 8 "Serving LLaMA 3 70B": a v5e reads its 16e9 bytes in 19 ms (exact 19.5); int4
 *         weights alone about 10 ms.
 */
void scale_infer_full_hbm_table(const scale_model *model, const scale_chip *chip, double context,
                                double decode_len, scale_infer_table *out);

/** Ch. 8's model parallelism of 'model' on a 4x8 slice (32 chips) of 'chip' in bf16 at batch
 * 64: batch, chips, max_tp_book (F / 8B), beta, max_tp (F / (B beta), scale_infer_beta()),
 * w_ici (both directions), t_ici_s (2BD / W_ici over two axes, scale_infer_ws1d_comms_s()),
 * t_hbm_s (2DF / (Y W_hbm)), t_math_s (2BDF / (Y C)).
 *
 * Units:  [count], [bytes/s], [s].
 * Book:   ch. 8, the 4x8 in bf16: Y = F / (8 B) = 28,672 / 512 = 56 (exact beta 9.11: 49.2),
 *         T_ici 11 us, T_hbm 18 us, T_math 4 us (exact 4.77).
 */
void scale_infer_sharding_table(const scale_model *model, const scale_chip *chip,
                                scale_infer_table *out);

/** Ch. 8's prefill of one sequence of 'context' tokens of 'model' on 16 chips of 'chip' at 40%
 * MFU: chips, mfu_pct, s (scale_infer_prefill_time_s(), 2 x params FLOPs per token), eval_s,
 * attn_pct and kv_bytes (scale_infer_prefill_eval(): with attention FLOPs, bf16 KV written).
 *
 * Units:  context [tokens]; rows in counts, %, s, bytes.
 * Book:   ch. 8 prefill: 2 x 70e9 x 8192 FLOPs on 16 v5e at 40% MFU, 0.91 s.
 */
void scale_infer_prefill_table(const scale_model *model, const scale_chip *chip, double context,
                               scale_infer_table *out);

/** Ch. 8's disaggregated serving: prefills of 'context' tokens as scale_infer_prefill_table()
 * prices them feed generate servers in bf16 on the smallest bf16 slice (its book step at its
 * largest batch), requests of 'decode_len' tokens: "ratio" (prefill servers per generate
 * server at that full batch, scale_infer_disaggregation_ratio()), "ratio_b" (at 'batch').
 *
 * Units:  batch [sequences], context, decode_len [tokens] -> [count].
 * Book:   ch. 8 disaggregation: P / 0.91 = 32 G / (0.019 x 512), so P = 3 G.
 */
void scale_infer_disaggregation_table(const scale_model *model, const scale_chip *chip,
                                      double batch, double context, double decode_len,
                                      scale_infer_table *out);

/** Ch. 8's serving of 'model' on GPUs 'gpu' in fp8 (weights, KV caches and arithmetic) on one
 * NVLink domain (8 GPUs without one), beside 16 chips of 'tpu' in int8, 17 rows: chips,
 * hbm_bytes, hbm_bytes_per_s, bcrit_fp8 and bcrit_int8w (scale_roofline_critical_batch() of fp8
 * x fp8 and fp8 weights with bf16 FLOPs), slice_fp8 and slice_bf16 (smallest slices), step_s,
 * tput and cost at 'batch' sequences of 'context' tokens, max_batch, full_step_s, full_tput and
 * full_cost at the largest batch that fits, and the TPU's tpu_max_batch, tpu_step_s and tpu_cost
 * at its largest batch (scale_infer_decode_at_max_batch()).
 *
 * Units:  batch [sequences], context [tokens]; rows in counts, bytes, s, tokens/s, USD.
 * Book:   ch. 8's serving carried over to ch. 12's GPUs (H100: 3.35e12 B/s of HBM).
 */
void scale_infer_gpu_table(const scale_model *model, const scale_chip *gpu, const scale_chip *tpu,
                           double batch, double context, scale_infer_table *out);

/** The best layout of a serving search (the first ranked of scale_plan_infer(), plan.h), from
 * its configuration 'cfg', decode 'd' and prefill 'p': chips, weight_bits, kv_bits, batch,
 * step_s, tput (tokens/s per chip), cost (USD per million tokens), ttft_s.
 *
 * Units:  [count], [bits], [s], [tokens/s], [USD].
 * Book:   ch. 8 "What the planner says".
 */
void scale_infer_layout_table(const scale_infer_config *cfg, const scale_infer_decode *d,
                              const scale_infer_prefill *p, scale_infer_table *out);

/** Ch. 8's worked problem 1: one token of 'model' on one chip of 'chip': "params",
 * "flops_per_token" (2 x params, the matmuls), "t_flops_s" (those at the bf16 peak),
 * "t_bytes_s" (reading the bf16 weights).
 *
 * Units:  [count], [FLOP], [s].
 * Book:   ch. 8 Worked Problems Q1 (LLaMA 3 405B: 2 x 4.06e11 = 8.1e11 FLOPs per token).
 */
void scale_infer_one_chip_table(const scale_model *model, const scale_chip *chip,
                                scale_infer_table *out);

/** Ch. 8's worked problem 2: a batch of 240 sequences of 8192 tokens of 'model' with int8
 * weights and KV caches, one chip's view (scale_infer_memory_eval()): "weight_bytes",
 * "kv_bytes", "act_bytes" (one layer's working activations), "slice" (the smallest
 * power-of-two slice of 'chip' holding all three).
 *
 * Units:  [bytes], [chips].
 * Book:   ch. 8 Worked Problems Q2 (LLaMA 3 8B).
 */
void scale_infer_batch_memory_table(const scale_model *model, const scale_chip *chip,
                                    scale_infer_table *out);

/** Ch. 8's worked problem 3: 'model' with int8 weights and KV caches, bf16 FLOPs, 8192 tokens,
 * a step within 'limit_s': "limit_s", "min_chips" (fewest chips whose weight reads fit the
 * limit), the best slice of scale_infer_best_within_latency() (up to batch 4096; zeros when
 * none meets it) "best_chips", "best_batch", "best_step_s", "best_tput", and a full pod's
 * "pod_chips" and "pod_step_s" (its int8 weight reads).
 *
 * Units:  limit_s [s]; rows in s, chips, sequences, tokens/s.
 * Book:   ch. 8 Worked Problems Q3 (LLaMA 3 405B within 15 ms).
 */
void scale_infer_latency_limit_table(const scale_model *model, const scale_chip *chip,
                                     double limit_s, scale_infer_table *out);

#endif
