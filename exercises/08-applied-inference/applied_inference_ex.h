/* applied_inference_ex.h — exercises of chapter 8, "Serving LLaMA 3-70B on TPUs": the contract.
 *
 * Write each function in applied_inference_ex.c from the chapter's formulas; `scale grade
 * applied_inference` (or `scale grade applied_inference.serving_memory_bytes` for one exercise)
 * tells you how you did. You have only this header and the C standard library: no libscale.
 *
 * The chapter serves LLaMA 3 70B (70e9 parameters, 2 x 8 x 128 x 80 = 163,840 bytes of int8 KV
 * per token; the book often rounds this to 160e3) on TPU v5e: 1.97e14 bf16 FLOP/s, 8.2e11
 * byte/s of HBM bandwidth and 16e9 bytes of HBM per chip; slices have a power-of-two
 * number of chips (1, 2, 4, 8 = 4x2, 16 = 4x4, 32 = 4x8, ...).
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_APPLIED_INFERENCE_H
#define SCALE_EX_APPLIED_INFERENCE_H

#include <stdint.h>

/** Bytes of HBM to serve 'batch' sequences of 'seq_len' tokens: the parameters plus every KV
 * cache.
 *
 * Question: LLaMA 3 70B at batch 32 and 8192 tokens with everything in int8.
 * Units:  n_params [params], bytes_per_param [byte], batch [sequences], seq_len [tokens],
 *         kv_bytes_per_token [byte] -> [byte].
 * Domain: bytes_per_param > 0, the others >= 0; NaN otherwise.
 * Book:   ch. 8 "What's the LLaMA Serving Story?".
 */
double ex_applied_inference_serving_memory_bytes(double n_params, double bytes_per_param,
                                                 double batch, double seq_len,
                                                 double kv_bytes_per_token);

/** Chips of the smallest power-of-two slice whose HBM holds 'total_bytes' (at least 1).
 *
 * Question: 112e9 bytes on v5e; LLaMA 3 70B's parameters alone in bf16, int8 and int4.
 * Units:  total_bytes [byte], hbm_bytes_per_chip [byte] -> [chips].
 * Domain: total_bytes >= 0, hbm_bytes_per_chip > 0, total_bytes / hbm_bytes_per_chip <= 2^40;
 *         NaN otherwise.
 * Book:   ch. 8 "What's the LLaMA Serving Story?" and the smallest-topology table.
 */
double ex_applied_inference_min_slice_chips(double total_bytes, double hbm_bytes_per_chip);

/** Decode step time when HBM bandwidth binds: parameters and all KV caches read once, spread
 * over n_chips chips.
 *
 * Question: LLaMA 3 70B in int8 at batch 32, 8192 tokens (160e3 bytes of KV per token) on a 4x2
 * and on a 4x4 (8.2e11 byte/s per chip).
 * Units:  param_bytes [byte], batch [sequences], kv_bytes_per_seq [byte], n_chips [chips],
 *         hbm_bytes_per_s [byte/s] (per chip) -> [s].
 * Domain: param_bytes, batch, kv_bytes_per_seq >= 0, n_chips >= 1, bandwidth > 0; NaN otherwise.
 * Book:   ch. 8 "What's the LLaMA Serving Story?".
 */
double ex_applied_inference_memory_bound_step_s(double param_bytes, double batch,
                                                double kv_bytes_per_seq, int64_t n_chips,
                                                double hbm_bytes_per_s);

/** Generated tokens per second per chip: one token per sequence each step.
 *
 * Question: batch 32 at 17 ms per step on a 4x2.
 * Units:  batch [sequences], step_s [s], n_chips [chips] -> [tokens/s].
 * Domain: batch >= 0, step_s > 0, n_chips >= 1; NaN otherwise.
 * Book:   ch. 8 "What's the LLaMA Serving Story?".
 */
double ex_applied_inference_tokens_per_s_per_chip(double batch, double step_s, int64_t n_chips);

/** Largest whole number of sequences whose KV caches fit in the HBM the parameters leave free
 * on n_chips chips (0 if none fit; NaN if the parameters alone do not fit).
 *
 * Question: LLaMA 3 70B in bf16 on a 4x4 with 8192-token sequences (327,680 bytes of bf16 KV
 * per token).
 * Units:  n_chips [chips], hbm_bytes_per_chip [byte], param_bytes [byte], kv_bytes_per_seq
 *         [byte] -> [sequences].
 * Domain: n_chips >= 1, hbm_bytes_per_chip > 0, 0 <= param_bytes <= n_chips x HBM,
 *         kv_bytes_per_seq > 0; NaN otherwise.
 * Book:   ch. 8, the smallest-topology table.
 */
double ex_applied_inference_max_batch(int64_t n_chips, double hbm_bytes_per_chip,
                                      double param_bytes, double kv_bytes_per_seq);

/** Finished queries per second per chip when every sequence decodes 'decode_tokens' tokens at
 * one token per step.
 *
 * Question: the largest batches of the smallest-topology table at 19 ms per step and a median
 * decode of 512 tokens.
 * Units:  batch [sequences], step_s [s], decode_tokens [tokens], n_chips [chips] -> [1/s].
 * Domain: batch >= 0, step_s > 0, decode_tokens > 0, n_chips >= 1; NaN otherwise.
 * Book:   ch. 8 "Thinking about throughput".
 */
double ex_applied_inference_qps_per_chip(double batch, double step_s, double decode_tokens,
                                         int64_t n_chips);

/** Largest model-parallel degree at which the MLP stays compute-bound with respect to ICI:
 * n_axes x F / alpha, with alpha = C / W_ici.
 *
 * Question: LLaMA 3 70B (F = 28,672) on a 2D v5e slice with the book's alpha = 2200.
 * Units:  f [elements], n_axes [count], alpha [FLOP/byte] -> [chips].
 * Domain: f > 0, n_axes >= 1, alpha > 0; NaN otherwise.
 * Book:   ch. 8 (sharding LLaMA 3-70B for generation).
 */
double ex_applied_inference_max_tp_ici(double f, int64_t n_axes, double alpha);

/** Time of a compute-bound prefill: 2 FLOPs per parameter and token (attention ignored) on
 * n_chips chips at utilization mfu_frac.
 *
 * Question: 8192 tokens of LLaMA 3 70B on 16 TPU v5e at 40% utilization.
 * Units:  n_params [params], n_tokens [tokens], n_chips [chips], flops_per_s [FLOP/s],
 *         mfu_frac [1] -> [s].
 * Domain: n_params, n_tokens >= 0, n_chips >= 1, flops_per_s > 0, 0 < mfu_frac <= 1; NaN
 *         otherwise.
 * Book:   ch. 8 "What about prefill?".
 */
double ex_applied_inference_prefill_time_s(double n_params, double n_tokens, int64_t n_chips,
                                           double flops_per_s, double mfu_frac);

/** Average KV-cache tokens freed per decode step: batch / decode_len sequences finish each
 * step, each holding prefill_len + decode_len tokens.
 *
 * Question: median prefill 8192, median decode 4096, batch 32.
 * Units:  batch [sequences], prefill_len, decode_len [tokens] -> [tokens].
 * Domain: batch, prefill_len >= 0, decode_len > 0; NaN otherwise.
 * Book:   ch. 8 "What about prefill?".
 */
double ex_applied_inference_kv_evicted_per_step(double batch, double prefill_len,
                                                double decode_len);

/** Prefill servers needed per generate server so both stay saturated: a generate server
 * finishes batch / (step_s x decode_len) sequences per second, a prefill server 1 / prefill_s.
 *
 * Question: prefill 0.91 s, generate batch 32 at 19 ms per step, median decode 512.
 * Units:  prefill_s [s], batch [sequences], step_s [s], decode_len [tokens] -> [1].
 * Domain: prefill_s, step_s, decode_len > 0, batch >= 0; NaN otherwise.
 * Book:   ch. 8 "What about prefill?" (disaggregated serving).
 */
double ex_applied_inference_disaggregation_ratio(double prefill_s, double batch, double step_s,
                                                 double decode_len);

/* ---- a decision exercise: the smallest slice ----------------------------------------------- */

#ifndef SCALE_EX_APPLIED_INFERENCE_SLICE_DEFINED /* the grader reads this header twice */
#define SCALE_EX_APPLIED_INFERENCE_SLICE_DEFINED
/** A slice: its number of chips (a power of two); 0 is "none". */
typedef struct {
  int64_t n_chips;
} ex_serving_slice;
#endif

/** The smallest slice that serves a model under a per-token latency target (a decision): its
 * weights (n_params x bytes_per_param) must fit in the slice's HBM and one decode step, which
 * reads them all at least once, must take at most max_step_s. The grader asks the library's
 * serving search (scale_plan_infer: bf16 weights and KV caches, 2048-token prompts, 512
 * generated tokens, every TP and batch up to the slice) whether a slice of your size serves
 * within the target, and gives you best / yours of the chips (full credit from 98%); nothing
 * for a slice that cannot. Return 0 chips when no slice up to max_chips can, or outside the
 * Domain.
 *
 * Question: on TPU v5e (16e9 bytes and 8.2e11 byte/s per chip), LLaMA 3 8B at 20 ms and at
 * 4 ms per token, LLaMA 3 70B at 50 ms and at 8 ms, LLaMA 3 405B at 50 ms; LLaMA 3 405B at
 * 2 ms does not fit in a pod (256 chips).
 * Units:  n_params [params], bytes_per_param [byte], hbm_bytes_per_chip [byte],
 *         hbm_bytes_per_s [byte/s] (per chip), max_step_s [s], max_chips [chips] -> a slice.
 * Domain: every argument > 0, max_chips >= 1; n_chips 0 otherwise.
 * Book:   ch. 8 "What's the LLaMA Serving Story?" (the smallest topology, the step time
 *         bounded by HBM bandwidth), ch. 7 (decode is memory-bound at small batch).
 */
ex_serving_slice ex_applied_inference_smallest_slice(double n_params, double bytes_per_param,
                                                     double hbm_bytes_per_chip,
                                                     double hbm_bytes_per_s, double max_step_s,
                                                     int64_t max_chips);

#endif
