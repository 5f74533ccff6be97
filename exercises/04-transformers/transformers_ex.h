/* transformers_ex.h — exercises of chapter 4, "All the Transformer Math You Need to Know":
 * the contract.
 *
 * Write each function in transformers_ex.c from the chapter's formulas; `scale grade transformers`
 * (or `scale grade transformers.n_params` for one exercise) tells you how you did. You have only
 * this header and the C standard library: no libscale.
 *
 * Letters as in the book: B batch, T query length, S key/value length, D model width, F MLP
 * width, N query heads, K key/value heads, H head width, G = N / K, L layers, V vocabulary.
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_TRANSFORMERS_H
#define SCALE_EX_TRANSFORMERS_H

#include <stdint.h>

/** Parameter count of a dense multi-head-attention Transformer with a gated MLP: per layer three
 * D x F MLP matrices, four D x (N H) attention projections and a D-sized norm, plus separate
 * input and output embeddings of V x D.
 *
 * Question: D = 4096, F = 4D, V = 32,000, L = 64, N H = D. How many parameters?
 * Units:  counts -> [params].
 * Domain: l, d, f, n, h, v >= 1; NaN otherwise.
 * Book:   ch. 4, Question 1: L (3DF + 4DNH + D) + 2DV.
 */
double ex_transformers_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t h, int64_t v);

/** Fraction of a layer's matmul parameters that sit in attention: 4DNH / (4DNH + 3DF).
 *
 * Question: with F = 4D and N H = D, what fraction of the parameters are attention?
 * Units:  counts -> [1].
 * Domain: d, f, n, h >= 1; NaN otherwise.
 * Book:   ch. 4, Question 1 part 2.
 */
double ex_transformers_attention_param_frac(int64_t d, int64_t f, int64_t n, int64_t h);

/** Bytes of the key-value cache of one sequence of 's' tokens: keys and values for every layer,
 * KV head and head dimension.
 *
 * Question: how large is the KV cache per token of Question 1's model in int8? Of an 8k sequence
 * with L = 64 and K H = 8192?
 * Units:  counts, bytes_per_element [byte] -> [byte].
 * Domain: s, l, k, h >= 1, bytes_per_element > 0; NaN otherwise.
 * Book:   ch. 4 "Key-Value (KV) caching": [2, S, L, K, H] elements; Question 1 part 3.
 */
double ex_transformers_kv_cache_bytes(int64_t s, int64_t l, int64_t k, int64_t h,
                                      double bytes_per_element);

/** FLOPs each device performs for A[B_X, D_Y] *_D W[D_Y, F] on a mesh with axes X and Y (and
 * any others over which the work is replicated).
 *
 * Question: mesh {X: 4, Y: 8, Z: 4}; how many FLOPs does each TPU perform?
 * Units:  counts -> [FLOP].
 * Domain: b, d, f, x, y >= 1; NaN otherwise.
 * Book:   ch. 4, Question 2: 2BDF / (XY).
 */
double ex_transformers_sharded_matmul_flops_per_device(int64_t b, int64_t d, int64_t f, int64_t x,
                                                       int64_t y);

/** FLOPs performed over the whole mesh by A[B_X, D_Y] *_D W[D_Y, F] when the computation is
 * not sharded over a third mesh axis of size 'z' (every Z-slice repeats it).
 *
 * Question: mesh {X: 4, Y: 8, Z: 4}; how many FLOPs are performed in total?
 * Units:  counts -> [FLOP].
 * Domain: b, d, f, z >= 1; NaN otherwise.
 * Book:   ch. 4, Question 2: 2BDF x Z.
 */
double ex_transformers_sharded_matmul_total_flops(int64_t b, int64_t d, int64_t f, int64_t z);

/** FLOPs of A[I, J, K, L] * B[I, J, M, N, O] -> C[K, L, M, N, O] (I and J contracted).
 *
 * Units:  dims [elements] -> [FLOP].
 * Domain: every dimension >= 1; NaN otherwise.
 * Book:   ch. 4, Question 3: 2 x the product of all distinct axes.
 */
double ex_transformers_contraction_flops(int64_t i, int64_t j, int64_t k, int64_t l, int64_t m,
                                         int64_t n, int64_t o);

/** Arithmetic intensity of dot-product attention in bf16 (the Q/K/V/O projections excluded):
 * about 4BTSNH FLOPs over the bytes of Q and the output (2BTNH each) and of K and V (2BSKH each).
 *
 * Question: express it with T (queries), S (keys) and G = N / K; what is it in prefill (S = T)
 * and in generation (T = 1)?
 * Units:  lengths [tokens], g [1] -> [FLOP/byte].
 * Domain: t, s, g >= 1; NaN otherwise.
 * Book:   ch. 4, Question 4: 4BTSKGH / (4BHK (TG + S)) = TSG / (TG + S).
 */
double ex_transformers_attention_intensity_flops_per_byte(int64_t t, int64_t s, int64_t g);

/** Sequence length T at which the dot-product attention FLOPs of a multi-head-attention layer
 * (12 B T^2 N H in training) equal those of its Q, K, V, O projections (24 B T D N H).
 *
 * Units:  d [elements] -> [tokens].
 * Domain: d >= 1; NaN otherwise.
 * Book:   ch. 4, Question 5: T = 2D.
 */
double ex_transformers_attention_equals_qkvo_tokens(int64_t d);

/** Ratio of dot-product attention FLOPs to matmul FLOPs of a layer with F = 4D and N H = D
 * (multi-head attention): 12 B T^2 N H / (18 B T D F + 24 B T D N H).
 *
 * Question: at what context length does attention dominate for D = 8192?
 * Units:  t [tokens], d [elements] -> [1].
 * Domain: t, d >= 1; NaN otherwise.
 * Book:   ch. 4 "Fractional cost of attention with context length": T / (8D).
 */
double ex_transformers_attention_flops_ratio(int64_t t, int64_t d);

/** Training FLOPs of a dense Transformer (attention neglected): 2 per parameter and token in
 * the forward pass and 4 in the backward pass.
 *
 * Question: DeepSeek v3 activates 37e9 parameters and trained on 14.8e12 tokens.
 * Units:  n_params [params], n_tokens [tokens] -> [FLOP].
 * Domain: both >= 0; NaN otherwise.
 * Book:   ch. 4 "General rule of thumb for Transformer FLOPs", and Question 7.
 */
double ex_transformers_train_flops(double n_params, double n_tokens);

/** FLOPs utilization of a run: the model's FLOPs over what the chips could have done in the
 * chip-time spent (number of chips x duration, in chip-seconds).
 *
 * Question: DeepSeek v3 took 2.79e6 H800-hours; an H800 does 1.513e15 dense fp8 FLOP/s.
 * Units:  model_flops [FLOP], chip_time_s [s], flops_per_s [FLOP/s] -> [1].
 * Domain: model_flops >= 0, chip_time_s > 0, flops_per_s > 0; NaN otherwise.
 * Book:   ch. 4, Question 7.
 */
double ex_transformers_mfu_frac(double model_flops, double chip_time_s, double flops_per_s);

/** Bytes of activations saved for the backward pass: 'n_saved_per_layer' arrays of
 * [tokens, D] per layer in elements of 'bytes_per_element'.
 *
 * Question: B T = 4M tokens, L = 64, D = 8192, bf16: about 20 saved arrays per layer without
 * rematerialization, 1 with block remat.
 * Units:  n_tokens [tokens], d, l [counts], n_saved_per_layer [1], bytes [byte] -> [byte].
 * Domain: n_tokens >= 0, d, l >= 1, n_saved_per_layer >= 0, bytes_per_element > 0; NaN
 *         otherwise.
 * Book:   ch. 4 "Gradient checkpointing": 2 x 20 x B T D L.
 */
double ex_transformers_activation_bytes(double n_tokens, int64_t d, int64_t l,
                                        double n_saved_per_layer, double bytes_per_element);

/** Token batch above which an MoE layer's expert matmuls are compute-bound, given the dense
 * model's critical batch: each expert sees only k / E of the tokens.
 *
 * Question: DeepSeek v3 routes each token to 8 of 256 experts; int8 weights with bf16 FLOPs on
 * a TPU v5e have a dense critical batch of 120.
 * Units:  dense_critical_batch [tokens], counts -> [tokens].
 * Domain: dense_critical_batch > 0, 1 <= n_active <= n_experts; NaN otherwise.
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts" (B > 120 E / k).
 */
double ex_transformers_moe_critical_batch(double dense_critical_batch, int64_t n_experts,
                                          int64_t n_active);

#endif
