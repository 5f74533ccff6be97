/* applied_training_ex.h — exercises of chapter 6, "Training LLaMA 3 on TPUs": the contract.
 *
 * Write each function in applied_training_ex.c from the chapter's formulas; `scale grade
 * applied_training` (or `scale grade applied_training.ffw_params` for one exercise) tells you how
 * you did. You have only this header and the C standard library: no libscale.
 *
 * The chapter's model is LLaMA 3 70B: L = 80, D = 8192, F = 28,672, N = 64, K = 8, H = 128,
 * V = 128,256, trained on 15e12 tokens with a batch of about 4M tokens on TPU v5p (4.59e14 bf16
 * FLOP/s, 96e9 bytes of HBM per chip).
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_APPLIED_TRAINING_H
#define SCALE_EX_APPLIED_TRAINING_H

#include <stdint.h>

/** Parameters of the gated MLP blocks: three D x F matrices per layer.
 *
 * Units:  counts -> [params].
 * Domain: l, d, f >= 1; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs", FFW params.
 */
double ex_applied_training_ffw_params(int64_t l, int64_t d, int64_t f);

/** Parameters of the attention projections: Q and O have D x N x H each, K and V D x K x H
 * each, in every layer.
 *
 * Units:  counts -> [params].
 * Domain: l, d, n, k, h >= 1; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs", attention params.
 */
double ex_applied_training_attention_params(int64_t l, int64_t d, int64_t n, int64_t k, int64_t h);

/** Parameters of separate input and output embeddings, V x D each.
 *
 * Units:  counts -> [params].
 * Domain: v, d >= 1; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs", vocab params.
 */
double ex_applied_training_vocab_params(int64_t v, int64_t d);

/** Training FLOPs per token of a dense model (forward and backward pass).
 *
 * Units:  n_params [params] -> [FLOP].
 * Domain: n_params >= 0; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs": 6 x param count.
 */
double ex_applied_training_flops_per_token(double n_params);

/** Wall time of a dense model's training run: 6 N tokens FLOPs over n_chips chips at a model
 * FLOPs utilization mfu_frac, assuming the run is compute-bound.
 *
 * Question: LLaMA 3 70B on 15e12 tokens on a full v5p pod (8960 chips) at 40% MFU; on one chip
 * at 100%.
 * Units:  n_params, n_tokens [counts], n_chips [chips], flops_per_s [FLOP/s], mfu_frac [1] -> [s].
 * Domain: n_params, n_tokens >= 0, n_chips > 0, flops_per_s > 0, 0 < mfu_frac <= 1; NaN
 *         otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs".
 */
double ex_applied_training_run_time_s(double n_params, double n_tokens, double n_chips,
                                      double flops_per_s, double mfu_frac);

/** Bytes of HBM a training run needs in all: bf16 parameters (2 bytes each), fp32 Adam state
 * (8 bytes each) and bf16 gradient checkpoints of [batch, D] saved n_checkpoints_per_layer times
 * in each layer.
 *
 * Question: LLaMA 3 70B with a 4M-token batch and 4 checkpoints per layer.
 * Units:  n_params [params], batch_tokens [tokens], d, l [counts], checkpoints [1] -> [byte].
 * Domain: n_params, batch_tokens, n_checkpoints_per_layer >= 0, d, l >= 1; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs" (the minimum number of TPUs).
 */
double ex_applied_training_memory_bytes(double n_params, double batch_tokens, int64_t d, int64_t l,
                                        double n_checkpoints_per_layer);

/** Smallest whole number of chips whose HBM holds 'total_bytes'.
 *
 * Question: LLaMA 3 70B's ~21.6e12 bytes of training state on v5p chips of 96e9 bytes.
 * Units:  total_bytes [byte], hbm_bytes_per_chip [byte] -> [chips].
 * Domain: total_bytes >= 0, hbm_bytes_per_chip > 0; NaN otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs".
 */
double ex_applied_training_min_chips(double total_bytes, double hbm_bytes_per_chip);

/** Most chips pure data parallelism (without sequence sharding) can use: one whole sequence of
 * the batch per chip at least, i.e. the number of sequences in the batch.
 *
 * Question: LLaMA 3 70B's 4M-token batch of 4K-token sequences.
 * Units:  batch_tokens [tokens], seq_len [tokens] -> [chips].
 * Domain: batch_tokens >= 0, seq_len > 0; NaN otherwise.
 * Book:   ch. 6 "How to Shard LLaMA 3-70B for Training" (pure FSDP question).
 */
double ex_applied_training_max_pure_dp_chips(double batch_tokens, double seq_len);

/** Tensor-parallel degree Y = N / X_opt of mixed FSDP + tensor parallelism, where
 * X_opt = sqrt(B / F x M_X / M_Y x N) minimizes the forward comms (chapter 5).
 *
 * Question: LLaMA 3 70B (F = 28,672), a 4.19e6-token batch on a full v5p pod of 8960 chips with
 * M_X = 2, M_Y = 1.
 * Units:  n_chips [chips], batch_tokens [tokens], f [elements], m_x, m_y [counts] -> [chips].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 6 "How to Shard LLaMA 3-70B for Training".
 */
double ex_applied_training_tp_degree(double n_chips, double batch_tokens, double f, double m_x,
                                     double m_y);

/* ---- a decision exercise: a training layout ------------------------------------------------ */

#ifndef SCALE_EX_APPLIED_TRAINING_LAYOUT_DEFINED /* the grader reads this header twice */
#define SCALE_EX_APPLIED_TRAINING_LAYOUT_DEFINED
/** A training layout: pure data-parallel, FSDP (ZeRO-3) and tensor-parallel degrees; all 0 is
 * the "none" layout. */
typedef struct {
  int64_t dp, fsdp, tp;
} ex_applied_layout;
#endif

/** The layout of LLaMA 3 70B on 8192 TPU v5p chips at a given batch (a decision).
 *
 * Return degrees, powers of two with dp x fsdp x tp = n_chips and tp <= 64, for a model of
 * n_params parameters (n_heads query heads, n_kv_heads KV heads) trained at batch_tokens per
 * step of seq_len-token sequences, with bf16 weights and fp32 Adam (16 bytes per parameter
 * under ZeRO-3) on chips of hbm_bytes. The grader prices every layout with the library's
 * roofline (scale_train_eval: compute against each link's collectives, memory per chip) and
 * gives you best / yours of the step time (full credit from 98%); nothing for a layout that
 * does not fit, that TP cannot split (tp must divide the heads) or that has more data shards
 * (dp x fsdp) than sequences. Return the none layout when nothing fits or an argument is
 * outside the Domain.
 * Question: LLaMA 3 70B (70.55e9 parameters, 64 heads, 8 KV heads) on 8192 v5p chips at
 * 2M, 4M, 8M and 16M tokens of 4096-token sequences (critical batch 2550 tokens per chip); at
 * 256K tokens (64 sequences) no layout runs.
 * Units:  n_params [params], batch_tokens, seq_len, critical_batch_tokens [tokens], hbm_bytes
 *         [byte], counts -> a layout.
 * Domain: n_params, batch_tokens, seq_len, hbm_bytes, critical_batch_tokens > 0; n_heads,
 *         n_kv_heads >= 1; n_chips >= 1 a power of two; the none layout otherwise.
 * Book:   ch. 6 "Counting Parameters and FLOPs" to "How to Shard LLaMA 3-70B for Training" (the
 *         smaller the batch, the more TP).
 */
ex_applied_layout ex_applied_training_llama3_70b_layout(double n_params, int64_t n_heads,
                                                        int64_t n_kv_heads, double batch_tokens,
                                                        double seq_len, double hbm_bytes,
                                                        double critical_batch_tokens,
                                                        int64_t n_chips);

#endif
