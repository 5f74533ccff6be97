/* transformer.h — all the transformer math: parameters, FLOPs, memory, KV cache and state.
 *
 * Book: ch. 4 "All the Transformer Math You Need to Know"; the parameter and FLOP counts of
 * ch. 6 and the KV cache sizes of ch. 7-8 follow from it. Mamba-2 and the per-device block
 * formulas follow Amer et al., "Distributed Hybrid Parallelism for Large Language Models"
 * (arXiv 2602.09109), section 5.
 *
 * Letters are the book's: B batch (sequences), T query length, S key/value length, D model
 * width, F MLP width, N query heads, K KV heads, G = N/K, H head dim, V vocabulary, L layers,
 * E routed experts, k active experts. Mamba-2: d_inner = expand x D, n state size, h heads,
 * p head dim (h p = d_inner), l chunk length.
 *
 * What a layer holds (pre-norm decoder; biases, QK-norm and sinks only where the model says):
 *   transformer layer = attention (GQA/MQA/MHA, or MLA when model->kv_lora_rank > 0)
 *                     + a dense MLP (layers 0 .. n_dense_layers-1 of a MoE, every layer of a
 *                       dense model) or a MoE block (the other layers) + 2 norm vectors;
 *   mamba2 layer      = the Mamba-2 mixer + 1 norm vector (+ an MLP and a second norm when
 *                       d_ff > 0);
 *   model             = L layers + input embedding VD + unembedding VD (none when tied)
 *                       + a final norm D.
 *
 * FLOPs count matrix-multiply work only (2 per multiply-add); norms, softmax, activations and
 * the MoE/elementwise gating are O(BTD) vector work and are not counted, as in the book. So
 * are the QK-norm, the biases and the attention sinks of the models that have them (their
 * parameters are counted: see n_attention_params, n_params). Local attention (window_tokens):
 * a local layer's dot products cover the pairs inside its window (sliding: min(p + 1, W) keys
 * for the query at p; chunked: p mod W + 1), so the attention functions below return the
 * average layer's work, global and local layers weighted by their counts. The MTP module is
 * counted apart (scale_transformer_mtp_train_flops).
 * Embedding lookups cost no FLOPs; the unembedding is a matmul. A pass multiplies a layer's
 * forward work: forward 1x (2 FLOPs per parameter per token), backward 2x (4), training 3x (6).
 *
 * Every function is pure and total: NaN for a NULL model, a negative or non-finite size, an
 * invalid enum, or a case documented under Domain. A model without the part asked for (the
 * attention of a Mamba-2 model, the experts of a dense model) gives 0, so totals can add parts.
 */
#ifndef SCALE_TRANSFORMER_H
#define SCALE_TRANSFORMER_H

#include <stdbool.h>

#include "scale/model.h"
#include "scale/status.h"
#include "scale/units.h"

/* ---- counting dots ------------------------------------------------------------------------ */

/** Which part of training a FLOP count covers. */
typedef enum {
  SCALE_PASS_FORWARD = 0, /**< the forward pass (inference): 2NPM for a matmul */
  SCALE_PASS_BACKWARD,    /**< the backward pass: dL/dW and dL/dX, 4NPM */
  SCALE_PASS_TRAIN,       /**< forward + backward, 6NPM */
  SCALE_PASS_COUNT
} scale_pass;

/** FLOPs per parameter per token of a weight matmul in 'pass': 2, 4 or 6.
 *
 * Units:  -> [FLOP / (parameter token)].
 * Domain: a valid scale_pass; NaN otherwise.
 * Book:   ch. 4 "Forward and reverse FLOPs": 2NPM forward, 4NPM backward, 6NPM in all.
 */
double scale_transformer_pass_flops_per_param(scale_pass pass);

/** FLOPs of the contraction 'spec' (einsum notation, "IJKL,IJMNO->KLMNO"): two times the
 * product of every distinct dimension, batch and contracting dimensions counted once; without
 * a contracting dimension (an elementwise product) the factor 2 is dropped.
 *
 * 'spec' has two operands of ASCII letters separated by ',' then "->" and the output letters,
 * no spaces. A letter in both operands is a batch dimension if it is in the output, else a
 * contracting one; a letter in one operand must appear in the output. sizes[i] is the size of
 * the i-th distinct letter in order of first appearance in 'spec' ("bth,bsh->bts": b, t, h, s).
 *
 * Units:  sizes [elements] -> [FLOP].
 * Domain: a well-formed spec (a letter at most once per operand, output letters from the
 *         operands, nothing summed out of one operand alone) and sizes >= 0; NaN otherwise.
 * Book:   ch. 4 "Counting Dots", the general contraction rule; Q3.
 */
double scale_transformer_einsum_flops(const char *spec, const double *sizes);

/** FLOPs of a matmul A[N,P] . B[P,M]: 2NPM.
 *
 * Units:  n, p, m [elements] -> [FLOP].
 * Domain: n, p, m >= 0.
 * Book:   ch. 4 "Counting Dots".
 */
double scale_transformer_matmul_flops(double n, double p, double m);

/** FLOPs of the weight matmuls of a network with 'n_params' parameters over 'n_tokens'
 * tokens in 'pass': the rule of thumb 6 x params x tokens for training (2x forward).
 *
 * Units:  n_params [count], n_tokens [tokens] -> [FLOP].
 * Domain: n_params, n_tokens >= 0, a valid pass.
 * Book:   ch. 4 "General rule of thumb for Transformer FLOPs".
 */
double scale_transformer_dense_flops(double n_params, double n_tokens, scale_pass pass);

/* ---- parameters ----------------------------------------------------------------------------- */

/** Parameters of one layer's attention: 2D(N+K)H for GQA/MQA/MHA (Q and O are D x NH, K and V
 * are D x KH); for MLA its down/up projections, output projection and the norms of its
 * latents; 0 for a Mamba-2 model.
 *
 * Units:  -> [count].
 * Book:   ch. 4 "Attention" table (2D(N+K)H); MLA from DeepSeek-V2/V3 (arXiv 2405.04434
 *         section 2.1): W_DQ [D, q_lora], W_UQ [q_lora, N(H_nope+H_rope)], W_DKV
 *         [D, kv_lora + H_rope], W_UKV [kv_lora, N(H_nope+H_v)], W_O [N H_v, D].
 */
double scale_transformer_n_attention_params(const scale_model *model);

/** Parameters of one dense MLP layer of width d_ff: 3DF when gated (W_in1, W_in2, W_out),
 * 2DF when not; 0 when d_ff is 0.
 *
 * Units:  -> [count].
 * Book:   ch. 4 "MLPs" table and "Note [gating einsum]".
 */
double scale_transformer_n_mlp_params(const scale_model *model);

/** Parameters of one expert (or one shared expert) of width d_ff_expert: 3DF or 2DF.
 *
 * Units:  -> [count]. 0 for a dense model.
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts".
 */
double scale_transformer_n_expert_params(const scale_model *model);

/** Parameters of one MoE block: (E + shared) experts plus the router D x E.
 *
 * Units:  -> [count]. 0 for a dense model.
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts": parameters grow with E.
 */
double scale_transformer_n_moe_params(const scale_model *model);

/** Parameters of one MoE block that one token uses: (k + shared) experts plus the router.
 *
 * Units:  -> [count]. 0 for a dense model.
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts": activated parameters grow with k.
 */
double scale_transformer_n_moe_active_params(const scale_model *model);

/** Number of layers whose MLP is a MoE block (L - n_dense_layers for a MoE model, else 0). */
double scale_transformer_n_moe_layers(const scale_model *model);

/** Number of layers with a dense MLP of width d_ff (n_dense_layers for a MoE model, L for a
 * dense transformer, L for a Mamba-2 model with d_ff > 0, else 0). */
double scale_transformer_n_mlp_layers(const scale_model *model);

/** Width of the Mamba-2 in-projection: 2 d_inner + 2 groups n + h (x and z branches, B and C,
 * one dt per head).
 *
 * Units:  -> [elements]. 0 for a transformer.
 * Book:   Amer et al. section 5.3, d_inproj.
 */
double scale_transformer_mamba2_d_in_proj(const scale_model *model);

/** Parameters of one Mamba-2 mixer: in-projection D x d_in_proj, causal conv over
 * d_inner + 2 groups n channels (d_conv taps and a bias each), dt bias, A and D per head,
 * the gated norm d_inner, out-projection d_inner x D (the mamba_ssm Mamba2 module).
 *
 * Units:  -> [count]. 0 for a transformer.
 * Book:   Amer et al. section 5.3; Dao & Gu, "Transformers are SSMs" (arXiv 2405.21060).
 */
double scale_transformer_n_mamba2_params(const scale_model *model);

/** Norm parameters of one layer: 2D for a transformer layer (before attention and before the
 * MLP), D for a Mamba-2 layer (2D when it has an MLP).
 *
 * Units:  -> [count].
 * Book:   ch. 4 "Other Operations": a layernorm has D parameters (the book's tables count one
 *         per layer; we count the two of a pre-norm block).
 */
double scale_transformer_n_norm_params(const scale_model *model);

/** Input embedding and unembedding parameters: VD, twice unless tied.
 *
 * Units:  -> [count].
 * Book:   ch. 4 Q1 "2DV"; ch. 6 "Vocab params 2 x V x D".
 */
double scale_transformer_n_embedding_params(const scale_model *model);

/** Total parameters: embeddings, every layer, and the final norm.
 *
 * Units:  -> [count].
 * Book:   ch. 4 Q1 L(3DF + 4DNH + D) + 2DV for MHA; ch. 6 LLaMA 3 70B 70.4e9.
 */
double scale_transformer_n_params(const scale_model *model);

/** Parameters one token uses: the total less the (E - k) idle routed experts of every MoE
 * layer (embeddings counted, as publishers count them).
 *
 * Units:  -> [count].
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts"; Q7 "37B activated parameters".
 */
double scale_transformer_n_active_params(const scale_model *model);

/** Parameters of the multi-token-prediction module, apart from the main model's (DeepSeek-V3
 * reports 671B + 14B): per depth one transformer block with the MLP of the main model's last
 * layer (the MoE block in a MoE), its 2 norms, the projection M of [h; emb] (2D x D), the two
 * input norms and the head's norm (3D), and the checkpoint's own copies of the embedding and
 * output head (2VD, shared with the main model in training, stored again in the release).
 *
 * Units:  -> [count]. 0 without MTP (n_mtp_layers 0) and for Mamba-2.
 * Source: DeepSeek-V3 report (arXiv 2412.19437) section 2.2; the HF checkpoint's layer 61.
 */
double scale_transformer_n_mtp_params(const scale_model *model);

/* ---- FLOPs ---------------------------------------------------------------------------------- */

/** FLOPs of one layer's attention projections (Q, K, V, O; MLA's down/up projections) over
 * 'n_tokens' tokens in 'pass': 12BTD(N+K)H for training.
 *
 * Units:  n_tokens [tokens] -> [FLOP].
 * Book:   ch. 4 "Attention" table, 12BTD(N+K)H train FLOPs.
 */
double scale_transformer_qkvo_flops(const scale_model *model, double n_tokens, scale_pass pass);

/** FLOPs of one layer's dot-product attention (Q.K^T and the product with V) for 'b'
 * sequences of 't' queries against 's' keys: 12 b t s N H for training, 4 b t s N H forward
 * (MLA: 2 b t s N (H_qk + H_v) forward). With 'causal' the queries are the last t of the s
 * positions and only the t s - t(t-1)/2 unmasked pairs are counted: what a kernel that skips
 * masked blocks does (about half for t = s; a plain einsum computes all t s pairs).
 *
 * A model with local layers (window_tokens) gets the average layer: global layers' pairs and
 * scale_transformer_local_pairs() weighted by their counts, so L times it is the model's work.
 *
 * Units:  b [sequences], t, s [tokens] -> [FLOP]. 0 for a Mamba-2 model.
 * Domain: b, t, s >= 0; t <= s when causal.
 * Book:   ch. 4 "Attention", 12BT^2NH; "Note [causal masking]".
 */
double scale_transformer_attention_flops(const scale_model *model, double b, double t, double s,
                                         bool causal, scale_pass pass);

/** Training FLOPs of the multi-token-prediction module over b sequences of t tokens, as
 * DeepSeek-V3 trains it: per depth the projection M (2 x 2D^2 per token forward), one
 * transformer block (projections, causal attention, the active MLP) and the shared output
 * head, in the training pass (3x the forward). Not in scale_transformer_flops() nor in the
 * model FLOPs that MFU divides by (6 N_active D, the main model: DeepSeek's convention); the
 * step model prices its time on the last pipeline stage.
 *
 * Units:  b [sequences], t [tokens] -> [FLOP]. 0 without MTP.
 */
double scale_transformer_mtp_train_flops(const scale_model *model, double b, double t);

/** Unmasked (query, key) pairs of one local layer (window_tokens W) for t queries against s
 * keys: with 'causal' the queries are the last t of s positions, the query at p seeing
 * min(p + 1, W) keys (sliding) or p mod W + 1 (chunked); without, t min(s, W). A model without
 * a window: the global layer's t s - t(t-1)/2 (causal) or t s.
 *
 * Units:  t, s [tokens] -> [pairs]. Sliding W = 4, t = s = 6: 1+2+3+4+4+4 = 18.
 * Domain: t, s >= 0; t <= s when causal.
 */
double scale_transformer_local_pairs(const scale_model *model, double t, double s, bool causal);

/** FLOPs of one dense MLP layer over 'n_tokens' tokens: 18BTDF for a gated MLP in training.
 *
 * Units:  n_tokens [tokens] -> [FLOP].
 * Book:   ch. 4 "MLPs" table.
 */
double scale_transformer_mlp_flops(const scale_model *model, double n_tokens, scale_pass pass);

/** FLOPs of one MoE block over 'n_tokens' tokens: k routed and the shared experts per token,
 * plus the router matmul.
 *
 * Units:  n_tokens [tokens] -> [FLOP]. 0 for a dense model.
 * Book:   ch. 4 "Sparsity and Mixture-of-Experts".
 */
double scale_transformer_moe_flops(const scale_model *model, double n_tokens, scale_pass pass);

/** FLOPs of the unembedding matmul over 'n_tokens' tokens: 6BTDV for training.
 *
 * Units:  n_tokens [tokens] -> [FLOP].
 * Book:   ch. 4 "Other Operations" (6BTDV; the summary table's 12BTDV counts the embedding
 *         as a matmul too, which a lookup is not).
 */
double scale_transformer_unembedding_flops(const scale_model *model, double n_tokens,
                                           scale_pass pass);

/** FLOPs of one Mamba-2 mixer's in- and out-projections over 'n_tokens' tokens:
 * 2 tokens (D d_in_proj + d_inner D) forward.
 *
 * Units:  n_tokens [tokens] -> [FLOP]. 0 for a transformer.
 * Book:   Amer et al. section 5.3, 2bsd d_inproj + 2bs d_inner d.
 */
double scale_transformer_mamba2_projection_flops(const scale_model *model, double n_tokens,
                                                 scale_pass pass);

/** FLOPs of one Mamba-2 layer's chunked SSD scan for 'b' sequences of 's' tokens, in chunks
 * of l: per chunk and head C.B^T (l^2 n), its product with X (l^2 p), the chunk states B.X
 * (l p n), the inter-chunk recurrence and the state-to-output product C.states (p n l), two
 * FLOPs per multiply-add. The recurrence costs p n per chunk with the parallel scan, and
 * p n (s/l + 1) per chunk when evaluated naively ('naive_recurrence', quadratic in s/l).
 * s/l is taken as a real number, as in the paper.
 *
 * Units:  b [sequences], s [tokens] -> [FLOP]. 0 for a transformer.
 * Domain: b, s >= 0; NaN if the model's chunk size is 0.
 * Book:   Amer et al. section 5.3, SSD steps 1-5.
 */
double scale_transformer_ssd_flops(const scale_model *model, double b, double s,
                                   bool naive_recurrence, scale_pass pass);

/** FLOPs of the whole model on 'b' sequences of 't' tokens (self-attention, s = t): every
 * layer's projections, attention or SSD scan, MLP or active experts, and the unembedding.
 *
 * Units:  b [sequences], t [tokens] -> [FLOP].
 * Book:   ch. 4 "General rule of thumb": about 6 x params x tokens + attention for training.
 */
double scale_transformer_flops(const scale_model *model, double b, double t, bool causal,
                               scale_pass pass);

/** scale_transformer_flops() for one sequence of 't' tokens divided by t: the average FLOPs
 * per token at context t (about 6 x active params + attention, for training).
 *
 * Units:  t [tokens] -> [FLOP/token].
 * Domain: t > 0.
 * Book:   ch. 6 "6 x 70e9 = 4.2e11 FLOPs / token".
 */
double scale_transformer_flops_per_token(const scale_model *model, double t, bool causal,
                                         scale_pass pass);

/** Ratio of dot-product attention FLOPs to the layers' matmul FLOPs (projections, MLP or
 * active experts) at self-attention length 't': T/(8D) when F = 4D, D = NH, N = K, gated MLP,
 * non-causal.
 *
 * Units:  t [tokens] -> [1]. 0 for a Mamba-2 model.
 * Domain: t >= 0.
 * Book:   ch. 4 "Fractional cost of attention with context length".
 */
double scale_transformer_attention_flops_ratio(const scale_model *model, double t, bool causal);

/** Share of the layers' FLOPs spent in dot-product attention at length 't':
 * ratio / (1 + ratio), with the ratio of scale_transformer_attention_flops_ratio().
 *
 * Units:  t [tokens] -> [1], in [0, 1).
 * Book:   ch. 4 "Fractional cost of attention with context length".
 */
double scale_transformer_attention_flops_frac(const scale_model *model, double t, bool causal);

/** Self-attention length at which (non-causal) dot-product attention FLOPs equal the Q/K/V/O
 * projection FLOPs: T = D(N+K)/N for GQA, 2D for MHA.
 *
 * Units:  -> [tokens]. NaN for a model without attention.
 * Book:   ch. 4 Q5, 24BTDNH = 12BT^2NH gives T = 2D.
 */
double scale_transformer_n_tokens_attention_equals_qkvo(const scale_model *model);

/** Self-attention length at which (non-causal) dot-product attention FLOPs equal all other
 * matmul FLOPs of the layers: 8D for F = 4D, D = NH, N = K and a gated MLP.
 *
 * Units:  -> [tokens]. NaN for a model without attention.
 * Book:   ch. 4 "dot-product attention FLOPs only become dominant during training once T>8D".
 */
double scale_transformer_n_tokens_attention_dominates(const scale_model *model);

/* ---- mixture of experts --------------------------------------------------------------------- */

/** The sparsity E/k of a MoE model: how much more weight a token batch must amortize.
 *
 * Units:  -> [1]. NaN for a dense model.
 * Book:   ch. 4 Q8.
 */
double scale_transformer_moe_sparsity(const scale_model *model);

/** Batch (tokens) above which a MoE layer's expert matmuls are compute-bound, given the
 * batch 'dense_critical_batch' at which a dense layer with the same dtypes is: that batch
 * times E/k (each token reads k of E experts' weights).
 *
 * Units:  dense_critical_batch [tokens] -> [tokens]. NaN for a dense model.
 * Domain: dense_critical_batch >= 0.
 * Book:   ch. 4 Q8: B > 120 E/k for int8 weights and bf16 FLOPs on TPU v5e; DeepSeek 3840.
 */
double scale_transformer_moe_critical_batch(const scale_model *model, double dense_critical_batch);

/* ---- memory: weights, gradients, optimizer -------------------------------------------------- */

/** How training stores each parameter. */
typedef struct {
  scale_dtype weight_dtype; /**< the weights the forward pass reads (bf16) */
  scale_dtype grad_dtype;   /**< the gradients */
  scale_dtype state_dtype;  /**< optimizer moments and the master copy (fp32) */
  int n_moments;            /**< optimizer moments per parameter: Adam 2, momentum 1, SGD 0 */
  bool master_weights;      /**< a separate copy of the weights in state_dtype */
} scale_precision;

/** The book's mix: bf16 weights and gradients, Adam with fp32 moments, no master copy
 * (2 + 8 = 10 bytes per parameter for weights and optimizer, 12 with gradients). */
#define SCALE_PRECISION_BF16_ADAM                                                                  \
  { SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, 2, false }

/** Mixed precision of the ZeRO paper: fp16 weights and gradients, fp32 master weights and
 * Adam moments (2 + 2 + 12 = 16 bytes per parameter). */
#define SCALE_PRECISION_MIXED_ADAM                                                                 \
  { SCALE_DTYPE_FP16, SCALE_DTYPE_FP16, SCALE_DTYPE_FP32, 2, true }

/** Mixed precision of Megatron-LM (and NeMo, MindSpeed): bf16 weights, fp32 main gradients,
 * fp32 master weights and Adam moments (2 + 4 + 12 = 18 bytes per parameter). */
#define SCALE_PRECISION_MEGATRON                                                                   \
  { SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2, true }

/** Bytes of 'n_params' weights in prec->weight_dtype.
 *
 * Units:  n_params [count] -> [bytes].
 * Domain: prec not NULL with valid dtypes, n_params >= 0.
 * Book:   ch. 5 "2 + 8 = 10 bytes per parameter" (the 2).
 */
double scale_transformer_weight_bytes(const scale_precision *prec, double n_params);

/** Bytes of the gradients of 'n_params' parameters in prec->grad_dtype.
 *
 * Units:  n_params [count] -> [bytes].
 * Domain: as scale_transformer_weight_bytes().
 */
double scale_transformer_grad_bytes(const scale_precision *prec, double n_params);

/** Bytes of the optimizer state of 'n_params' parameters: n_moments copies, plus the master
 * weights when held, in prec->state_dtype.
 *
 * Units:  n_params [count] -> [bytes].
 * Domain: as scale_transformer_weight_bytes(), n_moments >= 0.
 * Book:   ch. 5 footnote: Adam's two fp32 moments are 8 bytes per parameter.
 */
double scale_transformer_optimizer_bytes(const scale_precision *prec, double n_params);

/** Weights + gradients + optimizer state of 'n_params' parameters.
 *
 * Units:  n_params [count] -> [bytes].
 * Domain: as scale_transformer_optimizer_bytes().
 */
double scale_transformer_train_state_bytes(const scale_precision *prec, double n_params);

/* ---- how a run keeps and computes its activations (measurements.h rows state both) ---------- */

/** Activation recomputation as a run (or a measured row) states it. */
typedef enum {
  SCALE_RECOMPUTE_UNKNOWN = 0, /**< '-': not stated */
  SCALE_RECOMPUTE_NONE,        /**< every activation kept */
  SCALE_RECOMPUTE_SELECTIVE,   /**< attention scores recomputed (Korthikanti et al. 2022) */
  SCALE_RECOMPUTE_FULL,        /**< each layer's forward pass run twice */
  SCALE_RECOMPUTE_COUNT
} scale_recompute;

/** How attention's core (scores, softmax, values) runs. */
typedef enum {
  SCALE_ATTENTION_UNFUSED = 0, /**< scores written to HBM, softmax and dropout as kernels of
                                    their own, the full s x s product computed under the mask */
  SCALE_ATTENTION_FLASH,       /**< one fused kernel (FlashAttention): causal blocks skipped,
                                    no s x s tensor in HBM */
  SCALE_ATTENTION_COUNT
} scale_attention;

/** Name of a recompute mode as the files spell it ("none", "selective", "full", "-"). */
const char *scale_recompute_name(scale_recompute recompute);

/** Name of an attention kind as the files spell it ("unfused", "flash"); "?" if invalid. */
const char *scale_attention_name(scale_attention attention);

/* ---- memory: activations and rematerialization ---------------------------------------------- */

/** What the forward pass keeps for the backward pass. */
typedef enum {
  SCALE_REMAT_NONE = 0,    /**< keep every intermediate: about 20 per layer */
  SCALE_REMAT_BLOCK,       /**< keep only each layer's input; recompute the layer */
  SCALE_REMAT_BIG_MATMULS, /**< keep the big matmul outputs (about 7); recompute the rest */
  SCALE_REMAT_SELECTIVE,   /**< Megatron's selective: keep all but the attention core (softmax,
                                dropout, QK^T and AV), which the backward pass recomputes */
  SCALE_REMAT_COUNT
} scale_remat;

/** Tensors of shape [tokens, D] saved per layer under 'remat': 20, 1 or 7 (the book's counts);
 * 17 for selective (Korthikanti et al.'s 34 s b h bytes of a GPT layer, in 2-byte tensors).
 *
 * Units:  -> [count]. NaN for an invalid remat.
 * Book:   ch. 4 "Gradient checkpointing". Paper: Korthikanti et al. 2022, Table 2.
 */
double scale_transformer_n_saved_per_layer(scale_remat remat);

/** Bytes of 'n_per_layer' checkpoints of shape [tokens, D] in every layer for 'n_tokens'
 * tokens in 'dtype': n_per_layer x tokens x D x L x bytes.
 *
 * Units:  n_tokens [tokens], n_per_layer [count] -> [bytes].
 * Domain: n_tokens, n_per_layer >= 0, a valid dtype.
 * Book:   ch. 6 "2 x 8192 x 4e6 x 4 x 80" for 4 checkpoints per layer.
 */
double scale_transformer_checkpoint_bytes(const scale_model *model, double n_tokens,
                                          double n_per_layer, scale_dtype dtype);

/** Activation bytes saved for the backward pass of 'n_tokens' tokens under 'remat':
 * scale_transformer_checkpoint_bytes() with scale_transformer_n_saved_per_layer(remat).
 *
 * Units:  n_tokens [tokens] -> [bytes].
 * Book:   ch. 4 "Gradient checkpointing": 2 x 20 x BT x D x L = 84TB for BT = 4M, L = 64,
 *         D = 8192 in bf16; 4.2TB with block remat.
 */
double scale_transformer_activation_bytes(const scale_model *model, double n_tokens,
                                          scale_remat remat, scale_dtype dtype);

/** Extra FLOPs that rematerialization adds to one training step of 'b' sequences of 't'
 * tokens: none; for block remat a second forward pass of every layer (6ND becomes about 8ND);
 * for big-matmuls-only the forward of the non-weight matmuls (attention's QK^T and AV, or the
 * SSD scan), 4BT^2NH per layer; for selective the attention core alone, 4BT^2NH per
 * attention layer (an SSD layer keeps everything under selective: nothing is recomputed).
 *
 * Units:  b [sequences], t [tokens] -> [FLOP].
 * Book:   ch. 4 "Gradient checkpointing" and Q6.
 */
double scale_transformer_remat_extra_flops(const scale_model *model, double b, double t,
                                           bool causal, scale_remat remat);

/* ---- inference: KV cache and recurrent state ------------------------------------------------ */

/** KV cache bytes per token in 'dtype': 2 L K H for GQA/MQA/MHA; L (kv_lora + H_rope) for MLA,
 * which caches the compressed latent and the shared rotary key instead of full heads; 0 for a
 * Mamba-2 model.
 *
 * Units:  -> [bytes/token].
 * Domain: a valid dtype.
 * Book:   ch. 4 "Key-Value (KV) caching"; Q1 512kB per token; ch. 8 LLaMA 3 70B int8
 *         2 x 8 x 128 x 80 = 163,840 bytes; MLA: DeepSeek-V2 section 2.1.
 */
double scale_transformer_kv_bytes_per_token(const scale_model *model, scale_dtype dtype);

/** KV cache bytes of one sequence of 'n_tokens' tokens: every global layer holds n_tokens
 * tokens, a local layer (window_tokens W) min(n_tokens, W) (a chunked one at most its chunk W:
 * an upper bound, the chunk being partly filled).
 *
 * Gemma 3 27B, bf16, 32768 tokens: 52 local layers x 1024 + 10 global x 32768 tokens, each
 * 2 x 16 x 128 x 2 bytes: 52 x 8 MiB + 10 x 256 MiB = 2.97 GiB, against 15.5 GiB global-only.
 *
 * Units:  n_tokens [tokens] -> [bytes].
 * Domain: n_tokens >= 0, a valid dtype.
 * Book:   ch. 4: 2 S L K H = 8 GiB in int8 for S = 8192, L = 64, KH = 8192; ch. 7: LLaMA 2 13B
 *         at 8192 tokens in bf16, 6.7 GB.
 */
double scale_transformer_kv_bytes(const scale_model *model, double n_tokens, scale_dtype dtype);

/** Recurrent state bytes of one sequence of a Mamba-2 model, whatever its length: per layer
 * the SSM state h p n (= d_inner n) plus the conv state (d_inner + 2 groups n)(d_conv - 1).
 *
 * Units:  -> [bytes]. 0 for a transformer.
 * Domain: a valid dtype.
 * Book:   Amer et al. section 5.3 (state passed between CP ranks is independent of s).
 */
double scale_transformer_state_bytes_per_sequence(const scale_model *model, scale_dtype dtype);

/** Arithmetic intensity of self-attention (without projections) for t queries against s
 * keys, reading Q, K, V and writing the output in 'dtype': 4BTSNH FLOPs over
 * (2BTNH + 2BSKH) elements, TSG/(TG+S) in bf16.
 *
 * Units:  t, s [tokens] -> [FLOP/byte].
 * Domain: t, s > 0, a valid dtype; NaN for MLA and Mamba-2 models.
 * Book:   ch. 4 Q4: prefill (s = t) TG/(G+1), generation (t = 1) SG/(G+S) -> G.
 */
double scale_transformer_attention_intensity_flops_per_byte(const scale_model *model, double t,
                                                            double s, scale_dtype dtype);

/* ---- per-device blocks under TP, CP and DP (Amer et al. section 5) -------------------------- */

/* A layout tp x cp x dp of devices (each >= 1): tensor parallelism splits heads and F, context
 * parallelism splits the sequence, data parallelism splits the batch. Forward (prefill) only,
 * as in the paper; norms ignored. */

/** Forward FLOPs per device of one GQA block for 'b' sequences of 's' tokens: projections
 * 4bs D(N+K)H, QK^T and SV 4bs^2 NH, softmax 5bs^2 N, divided by tp cp dp.
 *
 * Units:  b [sequences], s [tokens] -> [FLOP].
 * Domain: b, s >= 0; tp, cp, dp >= 1; NaN for MLA and Mamba-2 models.
 * Book:   Amer et al. section 5.1: the FLOPs depend only on the device count.
 */
double scale_transformer_gqa_block_flops_per_device(const scale_model *model, double b, double s,
                                                    double tp, double cp, double dp);

/** Weight bytes per device of one GQA block: 2D(N+K)H / tp in 'dtype'.
 *
 * Units:  -> [bytes].
 * Domain: tp >= 1, a valid dtype; NaN for MLA and Mamba-2 models.
 * Book:   Amer et al. section 5.1, 2d^2(1 + k/a) w_byte.
 */
double scale_transformer_gqa_block_weight_bytes_per_device(const scale_model *model, double tp,
                                                           scale_dtype dtype);

/** Activation bytes per device of one GQA block (flash attention: no score matrix): the
 * replicated output (b/dp)(s/cp) D plus Q, K, V and the attention output split by tp,
 * (b/dp)(s/cp)(2NH + 2KH)/tp, in 'dtype'.
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: as scale_transformer_gqa_block_flops_per_device(), a valid dtype.
 * Book:   Amer et al. section 5.1: (3bsd + 2bsd k/a) a_byte; TP (bsd + 2bsd/TP + 2bsd k/(a TP)).
 */
double scale_transformer_gqa_block_activation_bytes_per_device(const scale_model *model, double b,
                                                               double s, double tp, double cp,
                                                               double dp, scale_dtype dtype);

/** Forward FLOPs per device of one gated (SwiGLU) MLP block: bs(6DF + 5F) / (tp cp dp).
 *
 * Units:  b [sequences], s [tokens] -> [FLOP].
 * Domain: b, s >= 0; tp, cp, dp >= 1; NaN for a model without a gated dense MLP.
 * Book:   Amer et al. section 5.2.
 */
double scale_transformer_mlp_block_flops_per_device(const scale_model *model, double b, double s,
                                                    double tp, double cp, double dp);

/** Weight bytes per device of one gated MLP block: 3DF / tp in 'dtype'.
 *
 * Units:  -> [bytes].
 * Domain: tp >= 1, a valid dtype; NaN for a model without a gated dense MLP.
 * Book:   Amer et al. section 5.2.
 */
double scale_transformer_mlp_block_weight_bytes_per_device(const scale_model *model, double tp,
                                                           scale_dtype dtype);

/** Activation bytes per device of one gated MLP block: (b/dp)(s/cp)(2D + 4F/tp) in 'dtype'
 * (input and output replicated; up, gate, activation and down input split by tp).
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: as scale_transformer_mlp_block_flops_per_device(), a valid dtype.
 * Book:   Amer et al. section 5.2, (2bsd + 4bsI) a_byte.
 */
double scale_transformer_mlp_block_activation_bytes_per_device(const scale_model *model, double b,
                                                               double s, double tp, double cp,
                                                               double dp, scale_dtype dtype);

/** Weight bytes per device of one Mamba-2 mixer's projections: (D d_in_proj + d_inner D) / tp.
 *
 * Units:  -> [bytes].
 * Domain: tp >= 1, a valid dtype; NaN for a transformer.
 * Book:   Amer et al. section 5.3: projection weight memory TP < CP = DP.
 */
double scale_transformer_mamba2_weight_bytes_per_device(const scale_model *model, double tp,
                                                        scale_dtype dtype);

/* ---- activations of one layer as the hybrid paper counts them -------------------------------- */

/** Activation bytes one layer saves for 'b' sequences of 's' tokens on one device, without
 * recomputation, with fused (flash) attention, in 16-bit:
 *   transformer: Korthikanti et al.'s s b d (10 + 24/t) without SP, 34 s b d / t with SP
 *                (their 5 a s / d score term vanishes with flash attention), s -> s / cp;
 *   Mamba-2 [our derivation from the paper's section 5.3]: per token the layer input and the
 *                norm input 2d (/t with SP), the in-projection output d_in_proj, the conv
 *                output d_inner + 2 g n, the scan and gated-norm outputs 2 d_inner, all but
 *                the first term / t, in 16-bit; plus the chunk states (s / l)(h / t) P n per
 *                sequence in fp32 (mamba_ssm's chunk_state kernel); s -> s / cp. A Mamba model with
 * an MLP adds the transformer's MLP share, s b (2d + 4F / t) x 2 bytes (section 5.2).
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: degrees >= 1, b, s >= 0; NaN otherwise.
 * Source: Korthikanti et al., arXiv 2205.05198, Table 2; Amer et al. sections 5.1-5.3.
 */
double scale_transformer_layer_activation_bytes(const scale_model *model, double b, double s, double tp,
                                           double cp, bool sp);

/* ---- tensor parallelism -------------------------------------------------------------------- */

/** Checks that tensor parallelism of degree 'tp' can split 'model' (the one TP divisibility
 * rule: the step model's Mamba-2 layers, scale_train_validate(), the planner's search and the
 * hybrid study's design guide all use it). A transformer: tp divides the query heads, the MLP width F and the expert width,
 * and tp divides the KV heads or is a multiple of them (Megatron replicates a KV head over
 * tp / n_kv_heads ranks). Mamba-2: tp divides the SSM heads and the B, C groups (the grouped
 * norm and the in-projection split by group, mamba_ssm's TP), and the MLP width when the
 * model has one. tp = 1 always passes.
 *
 * Errors: SCALE_ERR_INVALID with a one-line message in diag->message (file "" and line 0),
 *         naming the first count tp fails ("tp 3 does not divide the 32 query heads"); also
 *         for a tp that is not a whole number >= 1. 'diag' may be NULL.
 */
scale_status scale_transformer_tp_check(const scale_model *model, double tp, scale_diag *diag);

#endif
