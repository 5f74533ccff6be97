/* inference_ex.h — exercises of chapter 7, "All About Transformer Inference": the contract.
 *
 * Write each function in inference_ex.c from the chapter's formulas; `scale grade inference` (or
 * `scale grade inference.critical_batch` for one exercise) tells you how you did. You have only
 * this header and the C standard library: no libscale.
 *
 * The chapter's hardware is mostly a TPU v5e: 1.97e14 bf16 FLOP/s (3.94e14 int8), 8.2e11 byte/s
 * of HBM bandwidth, 16e9 bytes of HBM per chip. Its example model
 * (Questions 1-5): L = 64, D = 4096, F = 16,384, N = 32, K = 8, H = 256, V = 32,128, shared
 * input and output embeddings.
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_INFERENCE_H
#define SCALE_EX_INFERENCE_H

#include <stdint.h>

/** Token batch above which a matmul [B, D] x [D, F] with B << D, F is compute-bound: 2BDF
 * FLOPs against D F weights of 'bytes_per_weight' bytes read from HBM.
 *
 * Question: TPU v5e with bf16 weights and FLOPs; int8 weights and bf16 FLOPs; int8 weights and
 * int8 OPs (3.94e14 OP/s).
 * Units:  flops_per_s [FLOP/s] (of the precision the matmul runs in), hbm_bytes_per_s [byte/s],
 *         bytes_per_weight [byte] -> [tokens].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 7 "Linear operations: what bottlenecks us?".
 */
double ex_inference_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                   double bytes_per_weight);

/** Theoretical time of one generate step of batch 'b': attention always loads the KV caches
 * from HBM, while the MLPs take the larger of their FLOP time and their weight-loading time.
 *
 * Question: a 30B dense model in int8 with bf16 FLOPs on a v5e 4x4 (16 chips: 3.152e15 FLOP/s,
 * 16 x 8.2e11 byte/s), 8192 context at 100 kB / token of KV; batch 4 and batch 256.
 * Units:  b [sequences], kv_bytes_per_seq [byte], n_params [params], param_bytes [byte],
 *         flops_per_s [FLOP/s], hbm_bytes_per_s [byte/s] (totals over the chips) -> [s].
 * Domain: b, kv_bytes_per_seq, n_params, param_bytes >= 0, rates > 0; NaN otherwise.
 * Book:   ch. 7 "Theoretical estimates for LLM latency and throughput": B KV / W +
 *         max(2 B P / C, P_bytes / W).
 */
double ex_inference_decode_step_time_s(double b, double kv_bytes_per_seq, double n_params,
                                       double param_bytes, double flops_per_s,
                                       double hbm_bytes_per_s);

/** Upper bound on generated tokens per second when a step is bound by HBM bandwidth: b tokens
 * per step of (b KV + parameter bytes) / W.
 *
 * Units:  b [sequences], kv_bytes_per_seq [byte], param_bytes [byte], hbm_bytes_per_s [byte/s]
 *         -> [tokens/s].
 * Domain: b, kv_bytes_per_seq, param_bytes >= 0 with b KV + param_bytes > 0, bandwidth > 0; NaN
 *         otherwise.
 * Book:   ch. 7 "Theoretical estimates for LLM latency and throughput".
 */
double ex_inference_max_tokens_per_s(double b, double kv_bytes_per_seq, double param_bytes,
                                     double hbm_bytes_per_s);

/** Bytes of KV cache per token: a key and a value of H elements per KV head and layer.
 *
 * Question: the chapter's model in int8; LLaMA 2 13B (L = 40, K = 40, H = 128) in bf16.
 * Units:  counts, bytes_per_element [byte] -> [byte].
 * Domain: l, k, h >= 1, bytes_per_element > 0; NaN otherwise.
 * Book:   ch. 7, Question 1; "What about memory?" (LLaMA 2 13B).
 */
double ex_inference_kv_bytes_per_token(int64_t l, int64_t k, int64_t h, double bytes_per_element);

/** Parameter count with a gated MLP, grouped-query attention and one embedding matrix shared
 * by input and output (norms ignored): L D (3F + 2H (N + K)) + D V.
 *
 * Units:  counts -> [params].
 * Domain: every count >= 1; NaN otherwise.
 * Book:   ch. 7, Question 1.
 */
double ex_inference_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                             int64_t v);

/** Time to stream every parameter byte once from HBM when they are sharded over n_chips chips
 * (the HBM-bound floor of a decode step).
 *
 * Question: the chapter's model in int8 on a TPU v5e 4x4.
 * Units:  param_bytes [byte], n_chips [chips], hbm_bytes_per_s [byte/s] (per chip) -> [s].
 * Domain: param_bytes >= 0, n_chips >= 1, bandwidth > 0; NaN otherwise.
 * Book:   ch. 7, Question 3.
 */
double ex_inference_param_load_time_s(double param_bytes, int64_t n_chips, double hbm_bytes_per_s);

/** Parameter count of the same architecture with 'e' copies of the MLP block per layer (routers
 * and norms ignored): L D (3F E + 2H (N + K)) + D V.
 *
 * Question: the chapter's model with E = 16 experts.
 * Units:  counts -> [params].
 * Domain: every count >= 1; NaN otherwise.
 * Book:   ch. 7, Question 5.
 */
double ex_inference_moe_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                                 int64_t v, int64_t e);

/** Prompt length above which self-attention in prefill (S = T) is compute-bound: its intensity
 * T G / (G + 1) in bf16 (G query heads per KV head; T / 2 for multi-head attention) reaches the
 * chip's critical intensity C / W.
 *
 * Question: a TPU v5e (1.97e14 FLOP/s, 8.2e11 byte/s), multi-head attention (G = 1), and an
 * 8-way grouped model (G = 8).
 * Units:  flops_per_s [FLOP/s], hbm_bytes_per_s [byte/s], g [count] -> [tokens].
 * Domain: rates > 0, g >= 1; NaN otherwise.
 * Book:   ch. 7 "What about attention?": compute-bound for sequences above roughly 480 tokens.
 */
double ex_inference_prefill_attention_min_tokens(double flops_per_s, double hbm_bytes_per_s,
                                                 int64_t g);

/** Token batch above which the MoE's expert matmuls are compute-bound: the dense critical
 * batch C bytes_per_weight / (2 W) times E / k, since each expert sees k / E of the tokens.
 *
 * Question: E = 16, k = 2 on a TPU v5e, with bf16 weights (the book's answer) and with int8
 * weights and bf16 FLOPs.
 * Units:  flops_per_s [FLOP/s], hbm_bytes_per_s [byte/s], bytes_per_weight [byte], e, k
 *         [counts] -> [tokens].
 * Domain: rates and bytes_per_weight > 0, 1 <= k <= e; NaN otherwise.
 * Book:   ch. 7, Question 5.
 */
double ex_inference_moe_critical_batch(double flops_per_s, double hbm_bytes_per_s,
                                       double bytes_per_weight, int64_t e, int64_t k);

/** Largest model-parallel degree Y at which a memory-bound decode step's ICI time (2BD / W_ici)
 * stays below its weight-loading time (2DF / (Y W_hbm)): Y < F / (B beta), beta = W_hbm / W_ici.
 *
 * Question: F = 16,384, B = 32 and beta about 8 (TPU v5e).
 * Units:  f [elements], b [tokens], beta [1] -> [chips].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 7 "Generation" (note on ICI bounds).
 */
double ex_inference_max_tp_memory_bound(double f, double b, double beta);

/** Number of chips N above which 2D weight-stationary sharding (comms sqrt(32 F / D) B D /
 * (sqrt(N) W)) beats 1D model sharding over three axes (comms 4BD / (3W)): N > 32 (F/D) (3/4)^2.
 *
 * Units:  d, f [elements] -> [chips].
 * Domain: d, f > 0; NaN otherwise.
 * Book:   ch. 7, Question 7.
 */
double ex_inference_ws2d_min_chips(double d, double f);

#endif
