/* model.h — model architecture records, loaded from models/NAME.ini.
 *
 * Letters follow the book (ch. 4 "All the Transformer Math You Need to Know"): L layers,
 * D model width, F MLP hidden width, N query heads, K KV heads, H head dim, V vocabulary,
 * E experts, k active experts. Mamba-2 fields follow Dao & Gu (2024) and Amer et al.
 * (arXiv 2602.09109) section 5.3.
 *
 * File format (strict; every key a plain count, booleans 0/1; see models/README.md):
 *   [model]   display_name, arch = transformer | mamba2, n_layers, d_model, n_vocab,
 *             tied_embeddings, n_ctx_max, n_params_reported (the publisher's own total)
 *             n_mtp_layers (multi-token-prediction depths, counted apart)
 *   [attention] n_heads, n_kv_heads, d_head, position = rope | learned | alibi | none,
 *             window_tokens, window_chunked, window_period, n_local_per_period, nope_global,
 *             sinks, qk_norm, qkv_bias, o_bias
 *   [mlp]     d_ff, gated_mlp, mlp_bias
 *   [moe]     n_experts, n_experts_active, n_shared_experts, d_ff_expert, n_dense_layers
 *   [mla]     q_lora_rank, kv_lora_rank, d_head_rope, d_head_nope, d_head_v
 *   [mamba2]  d_state, n_heads, d_head, expand, n_groups, d_conv, chunk_size
 */
#ifndef SCALE_MODEL_H
#define SCALE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "scale/hardware.h"
#include "scale/status.h"

/** The family of a model's sequence-mixing layer. */
typedef enum { SCALE_ARCH_TRANSFORMER = 0, SCALE_ARCH_MAMBA2 } scale_arch;

/** How a transformer encodes positions (absent: rope, today's meaning). */
typedef enum {
  SCALE_POS_ROPE = 0, /**< rotary (no parameters) */
  SCALE_POS_LEARNED,  /**< a learned table of n_ctx_max x D (GPT-2, GPT-3) */
  SCALE_POS_ALIBI,    /**< linear biases on the scores (no parameters) */
  SCALE_POS_NONE      /**< no positional encoding (NoPE) */
} scale_position;

/** A model architecture. Absent counts are 0; flags are false. */
typedef struct {
  char name[SCALE_NAME_MAX];         /**< file stem: "llama-3-70b" */
  char display_name[SCALE_NAME_MAX]; /**< "LLaMA 3 70B" */
  scale_arch arch;

  /* [model] */
  int64_t n_layers;         /**< L */
  int64_t d_model;          /**< D */
  int64_t n_vocab;          /**< V */
  bool tied_embeddings;     /**< unembedding shares the embedding matrix */
  int64_t n_ctx_max;        /**< longest trained context [tokens] */
  double n_params_reported; /**< total parameters as published (count; 0 if unknown) */
  int64_t n_mtp_layers;     /**< multi-token-prediction depths (DeepSeek-V3: 1); 0 when absent */

  /* [attention] */
  int64_t n_heads;    /**< N, query heads */
  int64_t n_kv_heads; /**< K, KV heads (N = MHA, 1 = MQA, between = GQA) */
  int64_t d_head;     /**< H */
  scale_position position; /**< positional scheme */
  /* local attention: layers that see at most window_tokens keys. With window_period P > 0,
   * the first n_local_per_period layers of every P are local and the rest global (Gemma 3:
   * P 6, 5 local); P = 0 makes every layer local (Mistral 7B v0.1). window_tokens == 0: none. */
  int64_t window_tokens;      /**< W, the sliding window (or the chunk) [tokens] */
  bool window_chunked;        /**< chunked (Llama 4: keys of the query's own chunk) vs sliding */
  int64_t window_period;      /**< P, layers per local/global period (0: every layer local) */
  int64_t n_local_per_period; /**< local layers that open each period */
  bool nope_global;           /**< the global layers use no positional encoding (Llama 4) */
  bool sinks;                 /**< a learned sink logit per head (GPT-OSS) */
  bool qk_norm;               /**< RMSNorm of width H on each query and key head (Qwen3) */
  bool qkv_bias;              /**< biases on the Q, K, V projections (Qwen2, GPT-OSS) */
  bool o_bias;                /**< a bias on the attention output projection (GPT-OSS, GPT-2) */

  /* [mlp] */
  int64_t d_ff;   /**< F of a dense MLP layer */
  bool gated_mlp; /**< 3 matrices (SwiGLU/GeGLU: W_in1, W_in2, W_out) vs 2 */
  bool mlp_bias;  /**< biases on the MLP's (and each expert's) matrices, and the router's */

  /* [moe] (n_experts == 0 for a dense model) */
  int64_t n_experts;        /**< E, routed experts per MoE layer */
  int64_t n_experts_active; /**< k, routed experts per token */
  int64_t n_shared_experts; /**< always-active experts per MoE layer */
  int64_t d_ff_expert;      /**< F of one expert (and of one shared expert) */
  int64_t n_dense_layers;   /**< leading layers with a dense MLP of width d_ff */

  /* [mla] multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank == 0 when absent */
  int64_t q_lora_rank;  /**< rank of the query down-projection (0: full-rank queries) */
  int64_t kv_lora_rank; /**< width of the compressed KV latent that is cached */
  int64_t d_head_rope;  /**< rotary part of each head, cached once per token */
  int64_t d_head_nope;  /**< non-rotary part of query/key heads */
  int64_t d_head_v;     /**< value head dim */

  /* [mamba2] (arch == SCALE_ARCH_MAMBA2) */
  int64_t ssm_d_state;    /**< N of the SSM: state size per head channel */
  int64_t ssm_n_heads;    /**< SSM heads */
  int64_t ssm_d_head;     /**< P: channels per SSM head */
  int64_t ssm_expand;     /**< d_inner = expand x D */
  int64_t ssm_n_groups;   /**< groups sharing B and C */
  int64_t ssm_d_conv;     /**< causal conv width */
  int64_t ssm_chunk_size; /**< SSD chunk length Q */
} scale_model;

/** Loads a model file at 'path' into *out, strictly (unknown section or key, duplicate,
 * missing required key, a count that is not a whole number inside its plausible range, listed
 * in models/README.md: errors with file and line, naming the key and the range). Required:
 * display_name, arch, n_layers, d_model, n_vocab; for transformers also [attention] and [mlp]
 * (or [moe]); for mamba2 the whole [mamba2] section, chunk_size included. Cross-checks:
 * n_kv_heads divides n_heads, n_experts_active <= n_experts, n_dense_layers <= n_layers,
 * d_ff >= 1 where a layer has a dense MLP, n_experts_active and d_ff_expert >= 1 in a MoE.
 *
 * Errors: as scale_chip_load_file(); SCALE_ERR_INVALID for a failed cross-check.
 */
scale_status scale_model_load_file(const char *path, scale_model *out, scale_diag *diag);

/** Loads model NAME (stem in scale_data_dir()/models, or a path). */
scale_status scale_model_load(const char *name, scale_model *out, scale_diag *diag);

/** Whether the model has MoE layers. */
bool scale_model_is_moe(const scale_model *model);

/** Layers whose attention is local (window_tokens > 0): the first n_local_per_period of each
 * window_period layers, every layer when the period is 0; 0 without a window.
 *
 * Units:  count. Gemma 3 27B (62 layers, P 6, 5 local): 10 x 5 + min(2, 5) = 52 local, 10 global.
 */
int64_t scale_model_n_local_layers(const scale_model *model);

/** d_inner of a Mamba-2 model (expand x D); 0 for transformers.
 *
 * Domain: the product is taken in double, so it never overflows; -1 when it exceeds 2^53 (a
 * hand-made record: the loader keeps expand <= 64 and D <= 1e7).
 */
int64_t scale_model_ssm_d_inner(const scale_model *model);

#endif
