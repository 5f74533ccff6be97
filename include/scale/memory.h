/* memory.h — training memory per chip as practice measures it.
 *
 * What a training framework really holds on one chip, beyond the weights, gradients and
 * optimizer state of training.h:
 *
 *   activations  the tensors one layer saves for its backward pass, by recompute mode (none,
 *                selective, full) and by tensor, sequence and context parallelism, following
 *                the activation-recomputation analysis of Korthikanti et al. 2022 generalised
 *                to GQA, gated MLPs and MoE; the transient working set the backward pass of
 *                one layer rebuilds; the embedding and logits buffers at the two pipeline ends;
 *   overhead     what is not a tensor of the model: the runtime context and library
 *                workspaces, communicator buffers, and the allocator's fragmentation, as data
 *                of the hardware file's [memory] section (calibrated against published runs,
 *                measurements/memory/).
 *
 * Pure functions on doubles in SI units; NaN outside the domain; nothing allocated.
 * Paper: Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
 * arXiv 2205.05198 (section 4, Table 2).
 */
#ifndef SCALE_MEMORY_H
#define SCALE_MEMORY_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/transformer.h"

/* ---- activations ---------------------------------------------------------------------------- */

/** How one layer's activations are split and kept. */
typedef struct {
  double tp;                 /**< tensor-parallel degree [count] */
  double cp;                 /**< context-parallel degree: tokens per chip = b s / cp [count] */
  bool sp;                   /**< sequence parallelism: the TP-replicated tensors split by tp */
  scale_recompute recompute; /**< NONE, SELECTIVE or FULL (UNKNOWN is outside the domain) */
  bool flash;                /**< fused attention: no s x s score tensor is ever stored */
  double act_bytes;          /**< bytes of one activation element (2 for bf16) [bytes] */
} scale_memory_act;

/** Bytes one average layer of 'model' saves for the backward pass of one microbatch of 'b'
 * sequences of 's' tokens, on one chip.
 *
 * Transformer, per token on the chip (b s / cp tokens), with a = act_bytes, d = d_model,
 * q = n_heads d_head, k = n_kv_heads d_head, F the MLP width (the routed experts' k F_e plus
 * the shared experts' F_e on a MoE layer), t = tp:
 *   replicated unless sp:  the two norm inputs, the QKV and MLP inputs 4 a d, and the two
 *                          1-byte dropout masks 2 d;
 *   split by t:            Q, K, V a (q + 2k), the output projection's input a q, the MLP
 *                          activation's input and output 2 a F (gated: the two input halves
 *                          and the output, 3 a F);
 *   attention core, / t:   unfused: softmax output, dropout mask and dropout output
 *                          (2a + 1) n_heads s; flash: the fp32 log-sum-exp 4 n_heads.
 * none keeps all of it; selective recomputes the attention core (drops its term); full keeps
 * only the layer input a d (/ t with sp: the checkpoint is the sequence shard). For GPT's
 * shapes (q = k = d, F = 4d, a = 2, unfused) this is Korthikanti et al.'s s b d (10 + 24/t +
 * 5 n_heads s / (d t)), s b d (34 + 5 n_heads s / d) / t with sp.
 * Mamba-2: scale_transformer_layer_activation_bytes() for none and selective (no attention core),
 * the layer input for full.
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: b, s > 0, degrees >= 1, act_bytes > 0, a known recompute mode; NaN otherwise.
 * Source: Korthikanti et al. 2022 section 4.2 and Table 2; FlashAttention saves its
 *         softmax statistics (one fp32 per row and head) instead of the scores.
 */
double scale_memory_layer_activation_bytes(const scale_model *model, double b, double s,
                                           const scale_memory_act *act);

/** Bytes the backward pass of one layer rebuilds for one microbatch on top of what it saved:
 * full recompute reruns the layer's forward (its whole recompute-none activations, less the
 * input already kept); selective reruns the attention core (its term of
 * scale_memory_layer_activation_bytes()); none, 0.
 *
 * Units and domain as scale_memory_layer_activation_bytes().
 */
double scale_memory_layer_working_bytes(const scale_model *model, double b, double s,
                                        const scale_memory_act *act);

/** Bytes the first pipeline stage saves per microbatch outside its layers: the 1-byte
 * dropout mask of the embedding output, d per token (/ t with sp).
 *
 * Units and domain as scale_memory_layer_activation_bytes().
 * Source: Korthikanti et al. 2022 section 4.3.
 */
double scale_memory_embedding_bytes(const scale_model *model, double b, double s,
                                    const scale_memory_act *act);

/** Bytes the last pipeline stage holds for one microbatch after its layers: the final norm's
 * input and the output projection's input, 2 a d per token (/ t with sp), and the logits in
 * fp32 for the cross-entropy, 4 V / t per token.
 *
 * Units and domain as scale_memory_layer_activation_bytes().
 * Source: Korthikanti et al. 2022 section 4.3 (4 s b V / t for the fp32 logits).
 */
double scale_memory_logits_bytes(const scale_model *model, double b, double s,
                                 const scale_memory_act *act);

/* ---- overhead ------------------------------------------------------------------------------- */

/** What a chip's framework and allocator add, from the hardware file's [memory] section. */
typedef struct {
  double context_bytes;      /**< runtime context, library workspaces, framework reserve */
  double comm_buffer_bytes;  /**< buffers of one communicator the chip belongs to [bytes] */
  double fragmentation_frac; /**< allocator slack over the tensors' bytes [1] */
} scale_memory_overhead;

/** The [memory] figures of 'chip'; every figure 0 when the file has no [memory] section (the
 * book's accounting: tensors only). All zero for NULL. */
scale_memory_overhead scale_memory_overhead_of(const scale_chip *chip);

/** Bytes on top of 'tensor_bytes' (every model tensor on the chip): context + n_groups
 * communicators' buffers + fragmentation_frac x tensor_bytes.
 *
 * Units:  tensor_bytes [bytes], n_groups [count] -> [bytes].
 * Domain: finite non-negative inputs; NaN otherwise.
 */
double scale_memory_overhead_bytes(const scale_memory_overhead *overhead, double tensor_bytes,
                                   double n_groups);

/** Fits the two calibrated [memory] figures, measured = context + (1 + frag) x predicted,
 * to rows (predicted tensor bytes, measured bytes) in groups: weighted least squares with
 * weight 1 / rows of the row's group, so every group counts the same whatever its size; the
 * rows of group 'exclude' are left out (-1: none), for leave-one-group-out. Both figures
 * are kept >= 0: a negative one is pinned at 0 and the other refitted alone.
 *
 * Units:  predicted, measured [bytes] -> *context_bytes [bytes], *fragmentation_frac [1].
 * Domain: n >= 2 rows outside 'exclude' with two distinct predictions, groups in [0, n);
 *         false (outputs NaN) otherwise.
 */
bool scale_memory_fit(const double *predicted, const double *measured, const int *group, int n,
                      int exclude, double *context_bytes, double *fragmentation_frac);

/** Parses a recompute mode as practice names it: "none", "selective" or "full".
 * Errors: SCALE_ERR_INVALID (*out untouched). */
scale_status scale_memory_recompute_parse(const char *text, scale_recompute *out);

/** The remat policy of training.h that prices recompute mode 'r': none -> none, selective ->
 * selective (Megatron's; the book's matmuls keeps less), full -> block; UNKNOWN and invalid
 * modes -> block. */
scale_remat scale_memory_remat_of(scale_recompute r);

#endif
