/* training_ex.h — exercises of chapter 5, "How to Parallelize a Transformer for Training":
 * the contract.
 *
 * Write each function in training_ex.c from the chapter's formulas; `scale grade training` (or
 * `scale grade training.dp_critical_batch` for one exercise) tells you how you did. You have only
 * this header and the C standard library: no libscale.
 *
 * The chapter models a layer as In[B, D] *_D W_in[D, F] *_F W_out[F, D] with B the batch in
 * tokens, C the per-chip FLOP/s and W_ici = 2 x one-way link bandwidth (bidirectional) per mesh
 * axis; X is the FSDP/data axis size, Y the tensor-parallel one, N = X Y chips.
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_TRAINING_H
#define SCALE_EX_TRAINING_H

#include <stdint.h>

/** Per-chip batch (tokens) above which pure data parallelism or FSDP is compute-bound: the
 * weight AllReduce of the backward pass takes 8DF / W_ici per layer against 8BDF / (X C) of
 * FLOPs, and spreading the data axis over n_axes mesh axes multiplies W_ici by n_axes.
 *
 * Question: TPU v5p, 4.59e14 FLOP/s and 9e10 byte/s links; over 1 axis and over all 3 axes?
 * Units:  flops_per_s [FLOP/s], link_bytes_per_s [byte/s] (one way) -> [tokens].
 * Domain: rates > 0, n_axes >= 1; NaN otherwise.
 * Book:   ch. 5 "Data Parallelism": B / X > C / W_ici; "Fully-Sharded Data Parallelism".
 */
double ex_training_dp_critical_batch(double flops_per_s, double link_bytes_per_s, int64_t n_axes);

/** Largest parameter count a chip can hold under pure data parallelism with Adam: bf16
 * parameters (2 bytes) plus fp32 first and second moments (8 bytes) per parameter.
 *
 * Question: a TPU v5p has 96e9 bytes of HBM.
 * Units:  hbm_bytes [byte] -> [params].
 * Domain: hbm_bytes >= 0; NaN otherwise.
 * Book:   ch. 5 "Data Parallelism": HBM per device / 10.
 */
double ex_training_max_pure_dp_params(double hbm_bytes);

/** Bytes of bf16 parameters plus two fp32 Adam moments for 'n_params' parameters.
 *
 * Question: LLaMA-2 13B.
 * Units:  n_params [params] -> [byte].
 * Domain: n_params >= 0; NaN otherwise.
 * Book:   ch. 5, Question 2: (2 + 4 + 4) x 13e9 ~ 130GB.
 */
double ex_training_param_optimizer_bytes(double n_params);

/** Bytes of bf16 activations saved when checkpointing after the three big MLP matmuls of each
 * layer: two [B, F] arrays and one [B, D] array per layer.
 *
 * Question: LLaMA-2 13B (L = 40, D = 5120, F = 13,824) at a batch of 16M tokens; of 3M tokens.
 * Units:  n_tokens [tokens], counts -> [byte].
 * Domain: n_tokens >= 0, l, d, f >= 1; NaN otherwise.
 * Book:   ch. 5, Question 2: 2 L B (D + 2F); Question 3 part 2.
 */
double ex_training_checkpoint_bytes(double n_tokens, int64_t l, int64_t d, int64_t f);

/** Wall time to perform 'total_flops' on 'n_chips' chips of peak 'flops_per_s' running at a
 * model FLOPs utilization 'mfu_frac'.
 *
 * Question: LLaMA-3 70B's 6.3e24 FLOPs on 16e6 / 850 v5p chips at 50% MFU; one step of LLaMA-2
 * 13B on a 3M-token batch (6 x 3e6 x 13e9 FLOPs) on 4096 chips of 4.6e14 at 40%.
 * Units:  total_flops [FLOP], n_chips [chips], flops_per_s [FLOP/s], mfu_frac [1] -> [s].
 * Domain: total_flops >= 0, n_chips > 0, flops_per_s > 0, 0 < mfu_frac <= 1; NaN otherwise.
 * Book:   ch. 5 "Fully-Sharded Data Parallelism" (17 days), Question 3 part 3 (300ms).
 */
double ex_training_time_s(double total_flops, double n_chips, double flops_per_s, double mfu_frac);

/** Largest tensor-parallel degree Y that stays compute-bound: per layer 4BDF / (Y C) of FLOPs
 * against 4BD / W_ici of activation AllGather and ReduceScatter; n_axes mesh axes multiply W_ici.
 *
 * Question: LLaMA 3 70B (F = 28,672) on TPU v5p.
 * Units:  f [elements], flops_per_s [FLOP/s], link_bytes_per_s [byte/s] (one way) -> [chips].
 * Domain: f > 0, rates > 0, n_axes >= 1; NaN otherwise.
 * Book:   ch. 5 "Tensor Parallelism": Y < n_axes x F / 2550.
 */
double ex_training_tp_max_degree(double f, double flops_per_s, double link_bytes_per_s,
                                 int64_t n_axes);

/** FSDP degree X minimizing the forward comms of mixed FSDP + tensor parallelism on N = X Y
 * chips, with M_X and M_Y mesh axes given to each: minimize F X / (N M_X) + B / (X M_Y).
 *
 * Question: N = 64 (4x4x4), B = 48,000, F = 32,768, M_X = 2, M_Y = 1; LLaMA-2 13B's
 * Question 3 with B = 3e6, F = 13,824 on 4096 chips.
 * Units:  b [tokens], f [elements], n_chips, m_x, m_y [counts] -> [chips].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 5 "Mixed FSDP and Tensor Parallelism": X_opt = sqrt(B / F x M_X / M_Y x N).
 */
double ex_training_fsdp_tp_x_opt(double b, double f, double n_chips, double m_x, double m_y);

/** Smallest per-chip batch at which mixed FSDP + tensor parallelism at its optimal X is still
 * compute-bound: alpha^2 / (M_X M_Y F) with alpha = C / W_ici.
 *
 * Question: TPU v5p with F = 32,768 and M_X M_Y = 2; LLaMA-2 13B (F = 13,824).
 * Units:  f [elements], flops_per_s [FLOP/s], link_bytes_per_s [byte/s] (one way), m_x, m_y
 *         [counts] -> [tokens].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 5 "Mixed FSDP and Tensor Parallelism", and Question 3 part 3.
 */
double ex_training_fsdp_tp_critical_batch(double f, double flops_per_s, double link_bytes_per_s,
                                          double m_x, double m_y);

/** Per-pod batch (tokens) above which data parallelism across pods over the data-center
 * network is compute-bound: the pod's FLOP/s over its total DCN bandwidth.
 *
 * Question: a TPU v5p chip at 4.46e14 FLOP/s with 6.25e9 byte/s of DCN egress (the ratio is the
 * same for a whole pod: its FLOP/s over its total DCN bandwidth).
 * Units:  pod_flops_per_s [FLOP/s], pod_dcn_bytes_per_s [byte/s] -> [tokens].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 5 "Scaling Between Pods".
 */
double ex_training_dcn_critical_batch(double pod_flops_per_s, double pod_dcn_bytes_per_s);

/** Parameter count of a gated-MLP Transformer with grouped-query attention, norms ignored:
 * 3LDF in the MLP, L D H (2N + 2K) in attention (Q and O per query head, K and V per KV head)
 * and 2VD in separate input and output embeddings.
 *
 * Question: LLaMA-2 13B: L = 40, D = 5120, F = 13,824, N = K = 40, H = 128, V = 32,000.
 * Units:  counts -> [params].
 * Domain: every count >= 1; NaN otherwise.
 * Book:   ch. 5, Question 1.
 */
double ex_training_n_params(int64_t l, int64_t d, int64_t f, int64_t n, int64_t k, int64_t h,
                            int64_t v);

/* ---- a decision exercise: a training layout ------------------------------------------------ */

#ifndef SCALE_EX_TRAINING_LAYOUT_DEFINED /* the grader reads this header twice */
#define SCALE_EX_TRAINING_LAYOUT_DEFINED
/** A training layout: pure data-parallel, FSDP (ZeRO-3) and tensor-parallel degrees; all 0 is
 * the "none" layout. */
typedef struct {
  int64_t dp, fsdp, tp;
} ex_train_layout;
#endif

/** A layout for a model on a v5p slice (a decision).
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
 * Question: LLaMA 3 8B on 256 v5p chips at 1M tokens; LLaMA 3 70B on 2048 chips at 4M and
 * at 1M tokens (4096-token sequences, critical batch 2550 tokens per chip); LLaMA 3 405B on
 * 64 chips, where nothing fits.
 * Units:  n_params [params], batch_tokens, seq_len, critical_batch_tokens [tokens], hbm_bytes
 *         [byte], counts -> a layout.
 * Domain: n_params, batch_tokens, seq_len, hbm_bytes, critical_batch_tokens > 0; n_heads,
 *         n_kv_heads >= 1; n_chips >= 1 a power of two; the none layout otherwise.
 * Book:   ch. 5 "Takeaways" (FSDP while the batch per chip is above critical, TP when it is not;
 *         TP only as much as needed).
 */
ex_train_layout ex_training_layout(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                   double batch_tokens, double seq_len, double hbm_bytes,
                                   double critical_batch_tokens, int64_t n_chips);

#endif
