/* emit.c — `--emit FRAMEWORK` (emit.h): a layout as a framework's launch options.
 *
 * One pass computes, from the job, a value for each of scale's quantities (the keys below),
 * choosing each framework's own spelling of an enumeration (a recompute policy, a schedule, a
 * precision recipe) from small tables; a framework's option table then names the keys it has
 * and the order they print in, and its style says how a line looks. What a framework lacks is
 * either a '#' note beside its nearest setting, or a refusal (one line, exit 2).
 *
 * ---- sections: the frameworks; the keys and values; training; serving; printing --------------
 */
#include "emit.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ==== the frameworks ========================================================================= */

typedef enum { STYLE_FLAGS, STYLE_DOTLIST, STYLE_TOML, STYLE_YAML } emit_style;

/* The chips a framework runs on. */
typedef enum { ON_ANY, ON_GPU, ON_NVIDIA } emit_chips;

/* Every quantity an emitter can print, as scale computes it. */
typedef enum {
  /* parallelism */
  K_TP, K_SP, K_PP, K_VP, K_LAYERS_PER_STAGE, K_FIRST_STAGE, K_LAST_STAGE, K_FIRST_LESS,
  K_LAST_LESS, K_PP_LAYERS, K_PP_LAYOUT, K_SCHEDULE, K_MICRO_PP, K_CP, K_CP_KIND, K_EP,
  K_ETP, K_DP_REPLICATE, K_DP_SHARD, K_RESHARD, K_DISTOPT, K_DISTOPT_OPT, K_DISTOPT_N, K_FSDP_ON,
  K_FSDP_ON2, K_FSDP_ON3, K_FSDP_STRATEGY, K_SHARD_OPT_DATA, K_TP_OVERLAP, K_EMBED_SPLIT,
  K_LOSS_SPLIT, K_ATTN, K_CAPACITY,
  /* MaxText's mesh: ICI axes, then DCN axes */
  K_ICI_DATA, K_ICI_FSDP, K_ICI_TENSOR, K_ICI_TENSOR_SEQ, K_ICI_PIPE, K_ICI_EXPERT, K_ICI_CONTEXT,
  K_DCN_DATA, K_DCN_FSDP, K_DCN_TENSOR, K_DCN_TENSOR_SEQ, K_DCN_PIPE, K_DCN_EXPERT, K_DCN_CONTEXT,
  K_CP_STRATEGY, K_PP_REPEATS,
  /* batch */
  K_MBS, K_GBS, K_LOCAL_BATCH, K_PER_DEVICE_BATCH, K_GRAD_ACCUM, K_SEQ, K_MAX_POS,
  /* recompute */
  K_RECOMP_GRAN, K_RECOMP_METHOD, K_RECOMP_LAYERS, K_RECOMP_MODULES, K_AC_MODE, K_AC_OPTION,
  K_REMAT_POLICY,
  /* precision */
  K_BF16, K_FP16, K_FP8_FORMAT, K_FP8_RECIPE, K_FP4_FORMAT, K_FP4_RECIPE, K_MIXED_PRECISION,
  K_PARAM_DTYPE, K_CONVERTERS, K_FLOAT8_RECIPE, K_MX_RECIPE, K_QUANTIZATION, K_DTYPE,
  /* the model's shape */
  K_LAYERS, K_HIDDEN, K_FFN, K_HEADS, K_GQA, K_KV_GROUPS, K_KV_CHANNELS, K_SWIGLU, K_UNTIE, K_TIED,
  K_VOCAB, K_DECODER_BLOCK, K_EXPERTS, K_TOPK, K_MOE_FFN, K_SHARED_FFN, K_N_SHARED, K_MOE_FREQ,
  K_DENSE_LAYERS, K_MLA, K_ATTENTION_TYPE, K_Q_LORA, K_KV_LORA, K_QK_HEAD, K_QK_POS, K_V_HEAD,
  K_POSITION, K_NO_BIAS, K_BIAS_LINEAR, K_QKV_BIAS, K_QK_NORM,
  /* serving */
  S_TP, S_PP, S_DP, S_EP, S_EP_ON, S_MAX_SEQS, S_MAX_TOKENS, S_MAX_LEN, S_MEM_UTIL, S_KV_FRAC,
  S_KV_DTYPE, S_QUANT, S_BLOCK, S_CHUNKED, S_DTYPE,
  K_COUNT
} emit_key;

/* One row of a framework's table: the key and the framework's name for it. */
typedef struct {
  emit_key key;
  const char *name;
} emit_opt;

/* The tables. tests/cli/test_emit.sh reads every name of every *_OPTS table below and checks it
 * against frameworks/FRAMEWORK.txt: keep one row a line, the name the second field. */
static const emit_opt MEGATRON_OPTS[] = {
    {K_TP, "--tensor-model-parallel-size"},
    {K_SP, "--sequence-parallel"},
    {K_TP_OVERLAP, "--tp-comm-overlap"},
    {K_PP, "--pipeline-model-parallel-size"},
    {K_VP, "--num-virtual-stages-per-pipeline-rank"},
    {K_FIRST_STAGE, "--decoder-first-pipeline-num-layers"},
    {K_LAST_STAGE, "--decoder-last-pipeline-num-layers"},
    {K_PP_LAYOUT, "--pipeline-model-parallel-layout"},
    {K_EMBED_SPLIT, "--account-for-embedding-in-pipeline-split"},
    {K_LOSS_SPLIT, "--account-for-loss-in-pipeline-split"},
    {K_CP, "--context-parallel-size"},
    {K_CP_KIND, "--cp-comm-type"},
    {K_EP, "--expert-model-parallel-size"},
    {K_ETP, "--expert-tensor-parallel-size"},
    {K_CAPACITY, "--moe-expert-capacity-factor"},
    {K_DISTOPT, "--use-distributed-optimizer"},
    {K_DISTOPT_N, "--num-distributed-optimizer-instances"},
    {K_FSDP_ON, "--use-megatron-fsdp"},
    {K_FSDP_STRATEGY, "--data-parallel-sharding-strategy"},
    {K_MBS, "--micro-batch-size"},
    {K_GBS, "--global-batch-size"},
    {K_SEQ, "--seq-length"},
    {K_MAX_POS, "--max-position-embeddings"},
    {K_RECOMP_GRAN, "--recompute-granularity"},
    {K_RECOMP_METHOD, "--recompute-method"},
    {K_RECOMP_LAYERS, "--recompute-num-layers"},
    {K_RECOMP_MODULES, "--recompute-modules"},
    {K_ATTN, "--attention-backend"},
    {K_BF16, "--bf16"},
    {K_FP16, "--fp16"},
    {K_FP8_FORMAT, "--fp8-format"},
    {K_FP8_RECIPE, "--fp8-recipe"},
    {K_FP4_FORMAT, "--fp4-format"},
    {K_FP4_RECIPE, "--fp4-recipe"},
    {K_LAYERS, "--num-layers"},
    {K_HIDDEN, "--hidden-size"},
    {K_FFN, "--ffn-hidden-size"},
    {K_HEADS, "--num-attention-heads"},
    {K_GQA, "--group-query-attention"},
    {K_KV_GROUPS, "--num-query-groups"},
    {K_KV_CHANNELS, "--kv-channels"},
    {K_SWIGLU, "--swiglu"},
    {K_UNTIE, "--untie-embeddings-and-output-weights"},
    {K_MLA, "--multi-latent-attention"},
    {K_Q_LORA, "--q-lora-rank"},
    {K_KV_LORA, "--kv-lora-rank"},
    {K_QK_HEAD, "--qk-head-dim"},
    {K_QK_POS, "--qk-pos-emb-head-dim"},
    {K_V_HEAD, "--v-head-dim"},
    {K_EXPERTS, "--num-experts"},
    {K_TOPK, "--moe-router-topk"},
    {K_MOE_FFN, "--moe-ffn-hidden-size"},
    {K_SHARED_FFN, "--moe-shared-expert-intermediate-size"},
    {K_MOE_FREQ, "--moe-layer-freq"},
    {K_POSITION, "--position-embedding-type"},
    {K_NO_BIAS, "--disable-bias-linear"},
    {K_QKV_BIAS, "--add-qkv-bias"},
    {K_QK_NORM, "--qk-layernorm"},
};

static const emit_opt NEMO_OPTS[] = {
    {K_TP, "model.tensor_model_parallel_size"},
    {K_SP, "model.sequence_parallel"},
    {K_TP_OVERLAP, "model.tp_comm_overlap"},
    {K_PP, "model.pipeline_model_parallel_size"},
    {K_VP, "model.virtual_pipeline_model_parallel_size"},
    {K_FIRST_STAGE, "model.num_layers_in_first_pipeline_stage"},
    {K_LAST_STAGE, "model.num_layers_in_last_pipeline_stage"},
    {K_PP_LAYOUT, "model.pipeline_model_parallel_layout"},
    {K_EMBED_SPLIT, "model.account_for_embedding_in_pipeline_split"},
    {K_LOSS_SPLIT, "model.account_for_loss_in_pipeline_split"},
    {K_CP, "model.context_parallel_size"},
    {K_CP_KIND, "model.cp_comm_type"},
    {K_EP, "model.expert_model_parallel_size"},
    {K_ETP, "model.expert_tensor_parallel_size"},
    {K_CAPACITY, "model.moe_expert_capacity_factor"},
    {K_DISTOPT, "ddp.use_distributed_optimizer"},
    {K_DISTOPT_OPT, "optimizer.use_distributed_optimizer"},
    {K_DISTOPT_N, "ddp.num_distributed_optimizer_instances"},
    {K_FSDP_ON, "dist.use_megatron_fsdp"},
    {K_FSDP_ON2, "ddp.use_megatron_fsdp"},
    {K_FSDP_STRATEGY, "ddp.data_parallel_sharding_strategy"},
    {K_MBS, "train.micro_batch_size"},
    {K_GBS, "train.global_batch_size"},
    {K_SEQ, "model.seq_length"},
    {K_RECOMP_GRAN, "model.recompute_granularity"},
    {K_RECOMP_METHOD, "model.recompute_method"},
    {K_RECOMP_LAYERS, "model.recompute_num_layers"},
    {K_RECOMP_MODULES, "model.recompute_modules"},
    {K_ATTN, "model.attention_backend"},
    {K_MIXED_PRECISION, "mixed_precision"},
    {K_LAYERS, "model.num_layers"},
    {K_HIDDEN, "model.hidden_size"},
    {K_FFN, "model.ffn_hidden_size"},
    {K_HEADS, "model.num_attention_heads"},
    {K_KV_GROUPS, "model.num_query_groups"},
    {K_KV_CHANNELS, "model.kv_channels"},
    {K_SWIGLU, "model.gated_linear_unit"},
    {K_TIED, "model.share_embeddings_and_output_weights"},
    {K_MLA, "model.multi_latent_attention"},
    {K_Q_LORA, "model.q_lora_rank"},
    {K_KV_LORA, "model.kv_lora_rank"},
    {K_QK_HEAD, "model.qk_head_dim"},
    {K_QK_POS, "model.qk_pos_emb_head_dim"},
    {K_V_HEAD, "model.v_head_dim"},
    {K_EXPERTS, "model.num_moe_experts"},
    {K_TOPK, "model.moe_router_topk"},
    {K_MOE_FFN, "model.moe_ffn_hidden_size"},
    {K_SHARED_FFN, "model.moe_shared_expert_intermediate_size"},
    {K_MOE_FREQ, "model.moe_layer_freq"},
    {K_POSITION, "model.position_embedding_type"},
    {K_BIAS_LINEAR, "model.add_bias_linear"},
    {K_QKV_BIAS, "model.add_qkv_bias"},
    {K_QK_NORM, "model.qk_layernorm"},
};

static const emit_opt TORCHTITAN_OPTS[] = {
    {K_CONVERTERS, "model.converters"},
    {K_FLOAT8_RECIPE, "quantize.linear.float8.recipe_name"},
    {K_MX_RECIPE, "quantize.linear.mx.recipe_name"},
    {K_LOCAL_BATCH, "training.local_batch_size"},
    {K_GBS, "training.global_batch_size"},
    {K_SEQ, "training.seq_len"},
    {K_PARAM_DTYPE, "training.mixed_precision_param"},
    {K_DP_REPLICATE, "parallelism.data_parallel_replicate_degree"},
    {K_DP_SHARD, "parallelism.data_parallel_shard_degree"},
    {K_RESHARD, "parallelism.fsdp_reshard_after_forward"},
    {K_TP, "parallelism.tensor_parallel_degree"},
    {K_TP_OVERLAP, "parallelism.enable_async_tensor_parallel"},
    {K_PP, "parallelism.pipeline_parallel_degree"},
    {K_SCHEDULE, "parallelism.pipeline_parallel_schedule"},
    {K_LAYERS_PER_STAGE, "parallelism.pipeline_parallel_layers_per_stage"},
    {K_FIRST_LESS, "parallelism.pipeline_parallel_first_stage_less_layers"},
    {K_LAST_LESS, "parallelism.pipeline_parallel_last_stage_less_layers"},
    {K_MICRO_PP, "parallelism.pipeline_parallel_microbatch_size"},
    {K_CP, "parallelism.context_parallel_degree"},
    {K_EP, "parallelism.expert_parallel_degree"},
    {K_ETP, "parallelism.expert_tensor_parallel_degree"},
    {K_AC_MODE, "activation_checkpoint.mode"},
    {K_AC_OPTION, "activation_checkpoint.selective_ac_option"},
};

static const emit_opt MAXTEXT_OPTS[] = {
    {K_ICI_DATA, "ici_data_parallelism"},
    {K_ICI_FSDP, "ici_fsdp_parallelism"},
    {K_ICI_TENSOR, "ici_tensor_parallelism"},
    {K_ICI_TENSOR_SEQ, "ici_tensor_sequence_parallelism"},
    {K_ICI_PIPE, "ici_pipeline_parallelism"},
    {K_ICI_EXPERT, "ici_expert_parallelism"},
    {K_ICI_CONTEXT, "ici_context_parallelism"},
    {K_DCN_DATA, "dcn_data_parallelism"},
    {K_DCN_FSDP, "dcn_fsdp_parallelism"},
    {K_DCN_TENSOR, "dcn_tensor_parallelism"},
    {K_DCN_TENSOR_SEQ, "dcn_tensor_sequence_parallelism"},
    {K_DCN_PIPE, "dcn_pipeline_parallelism"},
    {K_DCN_EXPERT, "dcn_expert_parallelism"},
    {K_DCN_CONTEXT, "dcn_context_parallelism"},
    {K_CP_STRATEGY, "context_parallel_strategy"},
    {K_SHARD_OPT_DATA, "shard_optimizer_over_data"},
    {K_TP_OVERLAP, "te_comm_gemm_overlap"},
    {K_MICRO_PP, "num_pipeline_microbatches"},
    {K_LAYERS_PER_STAGE, "num_layers_per_pipeline_stage"},
    {K_PP_REPEATS, "num_pipeline_repeats"},
    {K_PP_LAYERS, "pipeline_parallel_layers"},
    {K_PER_DEVICE_BATCH, "per_device_batch_size"},
    {K_GRAD_ACCUM, "gradient_accumulation_steps"},
    {K_SEQ, "max_target_length"},
    {K_REMAT_POLICY, "remat_policy"},
    {K_DTYPE, "dtype"},
    {K_QUANTIZATION, "quantization"},
    {K_CAPACITY, "capacity_factor"},
    {K_DECODER_BLOCK, "decoder_block"},
    {K_LAYERS, "base_num_decoder_layers"},
    {K_HIDDEN, "base_emb_dim"},
    {K_FFN, "base_mlp_dim"},
    {K_HEADS, "base_num_query_heads"},
    {K_KV_GROUPS, "base_num_kv_heads"},
    {K_KV_CHANNELS, "head_dim"},
    {K_VOCAB, "vocab_size"},
    {K_TIED, "logits_via_embedding"},
    {K_ATTENTION_TYPE, "attention_type"},
    {K_Q_LORA, "q_lora_rank"},
    {K_KV_LORA, "kv_lora_rank"},
    {K_QK_HEAD, "qk_nope_head_dim"},
    {K_QK_POS, "qk_rope_head_dim"},
    {K_V_HEAD, "v_head_dim"},
    {K_EXPERTS, "num_experts"},
    {K_TOPK, "num_experts_per_tok"},
    {K_MOE_FFN, "base_moe_mlp_dim"},
    {K_N_SHARED, "shared_experts"},
    {K_DENSE_LAYERS, "first_num_dense_layers"},
};

static const emit_opt VLLM_OPTS[] = {
    {S_TP, "--tensor-parallel-size"},
    {S_PP, "--pipeline-parallel-size"},
    {S_DP, "--data-parallel-size"},
    {S_EP_ON, "--enable-expert-parallel"},
    {S_DTYPE, "--dtype"},
    {S_QUANT, "--quantization"},
    {S_KV_DTYPE, "--kv-cache-dtype"},
    {S_BLOCK, "--block-size"},
    {S_MEM_UTIL, "--gpu-memory-utilization"},
    {S_MAX_LEN, "--max-model-len"},
    {S_MAX_SEQS, "--max-num-seqs"},
    {S_MAX_TOKENS, "--max-num-batched-tokens"},
    {S_CHUNKED, "--enable-chunked-prefill"},
};

static const emit_opt SGLANG_OPTS[] = {
    {S_TP, "--tp-size"},
    {S_PP, "--pp-size"},
    {S_DP, "--dp-size"},
    {S_EP, "--ep-size"},
    {S_DTYPE, "--dtype"},
    {S_QUANT, "--quantization"},
    {S_KV_DTYPE, "--kv-cache-dtype"},
    {S_BLOCK, "--page-size"},
    {S_MEM_UTIL, "--mem-fraction-static"},
    {S_MAX_LEN, "--context-length"},
    {S_MAX_SEQS, "--max-running-requests"},
    {S_MAX_TOKENS, "--chunked-prefill-size"},
};

static const emit_opt TRTLLM_OPTS[] = {
    {S_TP, "tensor_parallel_size"},
    {S_PP, "pipeline_parallel_size"},
    {S_EP, "moe_expert_parallel_size"},
    {S_DTYPE, "dtype"},
    {S_MAX_SEQS, "max_batch_size"},
    {S_MAX_TOKENS, "max_num_tokens"},
    {S_MAX_LEN, "max_seq_len"},
    {S_CHUNKED, "enable_chunked_prefill"},
    {S_KV_FRAC, "kv_cache_config.free_gpu_memory_fraction"},
    {S_KV_DTYPE, "kv_cache_config.dtype"},
    {S_BLOCK, "kv_cache_config.tokens_per_block"},
};

#define ROWS(t) t, (int)(sizeof t / sizeof t[0])

/* A framework: its name, the version its names follow, how it is used, its table. */
typedef struct {
  const char *id;      /* --emit's value */
  const char *title;   /* "Megatron-LM" */
  const char *version; /* release tag (and how it was read) */
  const char *commit;  /* the commit the option list was read at */
  const char *source;  /* the file(s) the names come from */
  const char *usage;   /* how the output is used */
  bool serving;
  emit_chips runs_on;
  emit_style style;
  const emit_opt *opts;
  int n_opts;
} framework;

/* The versions and commits are those of the lists in frameworks/ (test_emit.sh compares). */
static const framework FRAMEWORKS[CLI_EMIT_COUNT] = {
    [CLI_EMIT_MEGATRON] = {"megatron", "Megatron-LM", "core_v0.15.0",
                           "0d7e02bd26d3eb347ad8d1bef625002babfa6df7",
                           "megatron/training/arguments.py",
                           "torchrun ... pretrain_gpt.py $(grep -v '^#' FILE) plus the data, "
                           "tokenizer and checkpoint options",
                           false, ON_GPU, STYLE_FLAGS, ROWS(MEGATRON_OPTS)},
    [CLI_EMIT_NEMO] = {"nemo", "Megatron-Bridge (NeMo 2 recipes)", "v0.6.0",
                       "51885cf132b2814188b6855c25a8588254274c2a",
                       "src/megatron/bridge/training/config.py (ConfigContainer) and the "
                       "Megatron Core config dataclasses it pins",
                       "a recipe's ConfigContainer overrides: run_recipe.py ... "
                       "$(grep -v '^#' FILE)",
                       false, ON_GPU, STYLE_DOTLIST, ROWS(NEMO_OPTS)},
    [CLI_EMIT_TORCHTITAN] = {"torchtitan", "torchtitan", "v0.2.2",
                             "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce",
                             "torchtitan/config/job_config.py",
                             "a job file: torchrun ... -m torchtitan.train --job.config_file "
                             "FILE (merge with your model, data and optimizer sections)",
                             false, ON_GPU, STYLE_TOML, ROWS(TORCHTITAN_OPTS)},
    [CLI_EMIT_MAXTEXT] = {"maxtext", "MaxText", "maxtext-v0.2.4",
                          "538fe7a3f3376d94cf3f04e77741aa6d7e8efa45",
                          "src/maxtext/configs/base.yml",
                          "overrides of base.yml: python3 -m maxtext.train "
                          "src/maxtext/configs/base.yml $(grep -v '^#' FILE) run_name=...",
                          false, ON_ANY, STYLE_DOTLIST, ROWS(MAXTEXT_OPTS)},
    [CLI_EMIT_VLLM] = {"vllm", "vLLM", "main at the v0.15.0 release (no tag in the snapshot)",
                       "d334dd26c4972312d9dc4f04dc7c93cdcacbd5a4", "vllm/engine/arg_utils.py",
                       "vllm serve MODEL $(grep -v '^#' FILE)", true, ON_ANY, STYLE_FLAGS,
                       ROWS(VLLM_OPTS)},
    [CLI_EMIT_SGLANG] = {"sglang", "SGLang", "v0.5.2 (its version-bump commit)",
                         "b0d25e72c401f37b55d689ddbf05b8c583afe854",
                         "python/sglang/srt/server_args.py",
                         "python3 -m sglang.launch_server --model-path MODEL "
                         "$(grep -v '^#' FILE)",
                         true, ON_GPU, STYLE_FLAGS, ROWS(SGLANG_OPTS)},
    [CLI_EMIT_TRTLLM] = {"trtllm", "TensorRT-LLM", "1.3.0rc3 (tensorrt_llm/version.py)",
                         "5978a46524cb63f2759035cda5eb3c847beae91d",
                         "tensorrt_llm/llmapi/llm_args.py (the LLM API)",
                         "trtllm-serve MODEL --extra_llm_api_options FILE", true, ON_NVIDIA,
                         STYLE_YAML,
                         ROWS(TRTLLM_OPTS)},
};

int cli_emit_parse(const char *arg, bool serving, cli_emit_fw *out) {
  for (int i = 1; i < CLI_EMIT_COUNT; i++) {
    if (strcmp(arg, FRAMEWORKS[i].id) != 0) continue;
    if (FRAMEWORKS[i].serving != serving)
      return cli_usage("--emit: %s is a %s framework; %s takes %s", arg,
                       serving ? "training" : "serving", serving ? "infer" : "train",
                       serving ? "vllm, sglang or trtllm" : "megatron, nemo, torchtitan or maxtext");
    *out = (cli_emit_fw)i;
    return CLI_EXIT_OK;
  }
  return cli_usage("--emit: unknown framework '%s' (%s)", arg,
                   serving ? "vllm, sglang, trtllm" : "megatron, nemo, torchtitan, maxtext");
}

/* ==== the keys' values ======================================================================= */

typedef enum { V_UNSET = 0, V_NUM, V_STR, V_RAW, V_TRUE, V_FALSE } val_kind;

/* A value: a number, a string (quoted in TOML and YAML), a raw token (a list), or a boolean
 * (a flag in STYLE_FLAGS). */
typedef struct {
  val_kind kind;
  double num;
  char str[1024];
} emit_val;

enum { NOTES_MAX = 12 };

/* What a job comes to in one framework's terms. */
typedef struct {
  cli_emit_fw fw;
  emit_val v[K_COUNT];
  char notes[NOTES_MAX][240];
  int n_notes;
} emit_doc;

static void set_num(emit_doc *d, emit_key k, double x) {
  d->v[k].kind = V_NUM;
  d->v[k].num = x;
}

static void set_str(emit_doc *d, emit_key k, const char *s) {
  d->v[k].kind = V_STR;
  snprintf(d->v[k].str, sizeof d->v[k].str, "%s", s);
}

static void set_raw(emit_doc *d, emit_key k, const char *s) {
  d->v[k].kind = V_RAW;
  snprintf(d->v[k].str, sizeof d->v[k].str, "%s", s);
}

static void set_bool(emit_doc *d, emit_key k, bool b) { d->v[k].kind = b ? V_TRUE : V_FALSE; }

/* A '#' line of the output: what differs from what scale priced, or what scale leaves open. */
__attribute__((format(printf, 2, 3))) static void note(emit_doc *d, const char *fmt, ...) {
  if (d->n_notes == NOTES_MAX) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->notes[d->n_notes++], sizeof d->notes[0], fmt, ap);
  va_end(ap);
}

static bool is(const emit_doc *d, cli_emit_fw fw) { return d->fw == fw; }
static bool megatron_like(const emit_doc *d) {
  return is(d, CLI_EMIT_MEGATRON) || is(d, CLI_EMIT_NEMO);
}

/* Refuses the emission: one line naming the framework and what it lacks. */
__attribute__((format(printf, 2, 3))) static int refuse(const emit_doc *d, const char *fmt, ...) {
  char text[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const framework *f = &FRAMEWORKS[d->fw];
  return cli_usage("--emit %s: %s %s %s", f->id, f->title, f->version, text);
}

/* ==== training =============================================================================== */

/* Megatron's --pipeline-model-parallel-layout for an uneven split: pp x v chunks ("E" the
 * embedding, "t" a layer, "L" the loss, "|" between chunks), as even as possible with the extra
 * layers in the middle chunks (scale's fullest stage holds ceil(units / chunks)). */
static void megatron_layout(emit_doc *d, const scale_layout *l, double n_layers, double v) {
  const int n = (int)(l->pp * v), counted = l->pp_embed_loss ? 2 : 0;
  const int units = (int)n_layers + counted, base = units / n, extra = units - base * n;
  char *buf = d->v[K_PP_LAYOUT].str;
  size_t size = sizeof d->v[K_PP_LAYOUT].str, k = 0;
  for (int i = 0; i < n && k + 1 < size; i++) {
    /* the extra units go to chunks 1 .. n-2, then n-1, then 0: at most one each (extra < n) */
    int rank = i == 0 ? n - 1 : i == n - 1 ? n - 2 : i - 1;
    int layers = base + (rank < extra) - (l->pp_embed_loss && i == 0) -
                 (l->pp_embed_loss && i == n - 1);
    if (i == 0) buf[k++] = 'E';
    for (int t = 0; t < layers && k + 3 < size; t++) buf[k++] = 't';
    if (i == n - 1) buf[k++] = 'L';
    if (i < n - 1) buf[k++] = '|';
  }
  buf[k] = '\0';
  d->v[K_PP_LAYOUT].kind = V_STR;
  note(d, "%g layers%s over %d pipeline chunks do not split evenly: a layout string with the "
          "extra layers in the middle chunks", n_layers,
       l->pp_embed_loss ? " with the embedding and the loss" : "", n);
}

/* Megatron's stage split of L layers (the embedding and the loss as one more each with
 * --pp-embed-loss) over pp x v chunks: even; with v = 1 the middle stages holding ceil(L / pp)
 * as scale's fullest stage does and the first and last the rest; else a layout string. */
static void megatron_split(emit_doc *d, const scale_layout *l, double n_layers, double v) {
  double units = n_layers + (l->pp_embed_loss ? 2 : 0);
  if (v > 1) set_num(d, K_VP, v);
  if (l->pp_embed_loss) {
    set_bool(d, K_EMBED_SPLIT, true);
    set_bool(d, K_LOSS_SPLIT, true);
  }
  if (fmod(units, l->pp * v) == 0) return;
  double c = ceil(n_layers / l->pp), rest = n_layers - c * (l->pp - 2);
  double first = floor(rest / 2), last = rest - first;
  if (v == 1 && !l->pp_embed_loss && first >= 1 && last <= c) {
    set_num(d, K_FIRST_STAGE, first);
    set_num(d, K_LAST_STAGE, last);
    return;
  }
  d->v[K_VP].kind = d->v[K_EMBED_SPLIT].kind = d->v[K_LOSS_SPLIT].kind = V_UNSET; /* the layout's */
  megatron_layout(d, l, n_layers, v);
}

/* torchtitan's split of L layers into pp x 'stages' stages: layers per stage, the first and
 * last stage one less each where it evens the split (always with --pp-embed-loss, as the
 * embedding and the loss take their place). */
static int titan_split(emit_doc *d, const scale_layout *l, double n_layers, double stages) {
  const double n = l->pp * stages;
  for (int k = 0; k < 4; k++) {
    double first = l->pp_embed_loss ? 1 : k & 1, last = l->pp_embed_loss ? 1 : k >> 1;
    double units = n_layers + first + last, per = ceil(units / n);
    if (ceil(units / per) != n) continue;
    set_num(d, K_FIRST_LESS, first);
    set_num(d, K_LAST_LESS, last);
    set_num(d, K_LAYERS_PER_STAGE, per);
    if (!l->pp_embed_loss && first + last > 0)
      note(d, "%g layers in %g stages of %g: the first and last stages hold %g and %g fewer",
           n_layers, n, per, first, last);
    return 0;
  }
  return refuse(d, "cannot split %g layers into %g stages", n_layers, n);
}

/* MaxText's stages: layers per stage a repeat, the repeats (interleaving); the layers that do
 * not split evenly stay out of the pipeline (pipeline_parallel_layers). */
static void maxtext_split(emit_doc *d, const scale_layout *l, double n_layers, double repeats) {
  double chunks = l->pp * repeats, piped = floor(n_layers / chunks) * chunks;
  if (l->pp_embed_loss)
    note(d, "--pp-embed-loss: MaxText's stages hold decoder layers only (the embedding and the "
            "loss outside the pipeline)");
  set_num(d, K_LAYERS_PER_STAGE, piped / chunks);
  set_num(d, K_PP_REPEATS, repeats);
  if (piped < n_layers) {
    set_num(d, K_PP_LAYERS, piped);
    note(d, "%g layers over %g pipeline chunks: MaxText pipelines %g of them; the other %g run "
            "with the stage axis as data parallelism", n_layers, chunks, piped, n_layers - piped);
  }
}

/* The pipeline schedule: each framework's name, or its nearest with a note; the stage split. */
static int set_schedule(emit_doc *d, const scale_layout *l, double n_layers) {
  if (!(l->pp > 1)) return 0;
  scale_pp_schedule s = l->schedule;
  const char *name = scale_pp_schedule_name(s);
  const framework *f = &FRAMEWORKS[d->fw];
  if (is(d, CLI_EMIT_TORCHTITAN)) {
    static const char *const TITAN[SCALE_PP_COUNT] = {
        "1F1B", "GPipe", "Interleaved1F1B", "InterleavedZeroBubble", "InterleavedZeroBubble",
        "ZBVZeroBubble", "DualPipeV"};
    set_str(d, K_SCHEDULE, TITAN[s]);
    if (s == SCALE_PP_ZB_H2 || s == SCALE_PP_DUALPIPE)
      note(d, "schedule %s: nearest torchtitan's %s (%s)", name, TITAN[s],
           s == SCALE_PP_ZB_H2 ? "ZB-H1's warm-up, a larger bubble than ZB-H2"
                               : "DualPipe's V-shaped variant, one copy of the weights");
    double stages = s == SCALE_PP_INTERLEAVED ? l->n_virtual_stages
                    : s == SCALE_PP_ZB_V || s == SCALE_PP_DUALPIPE ? 2 : 1;
    return titan_split(d, l, n_layers, stages);
  }
  if (s >= SCALE_PP_ZB_H1)
    note(d, "schedule %s: %s %s has no zero-bubble schedule; nearest %s, whose bubble (p-1)/m "
            "is larger than the one scale priced (price it with --schedule %s)",
         name, f->title, f->version, is(d, CLI_EMIT_MAXTEXT) ? "its pipeline" : "1F1B",
         is(d, CLI_EMIT_MAXTEXT) ? "gpipe" : "1f1b");
  if (is(d, CLI_EMIT_MAXTEXT)) {
    if (s == SCALE_PP_1F1B)
      note(d, "schedule 1f1b: MaxText's pipeline runs every microbatch's forward before the "
              "backwards (GPipe-like): the same bubble, more activations in flight");
    maxtext_split(d, l, n_layers, s == SCALE_PP_INTERLEAVED ? l->n_virtual_stages : 1);
    return 0;
  }
  if (s == SCALE_PP_GPIPE)
    note(d, "schedule gpipe: Megatron runs 1F1B, the same bubble with fewer microbatches in "
            "flight");
  megatron_split(d, l, n_layers, s == SCALE_PP_INTERLEAVED ? l->n_virtual_stages : 1);
  return 0;
}

/* Data parallelism and ZeRO: Megatron's distributed optimizer or Megatron-FSDP, torchtitan's
 * replicate and shard degrees; MaxText's are mesh axes (set_mesh()). */
static void set_zero(emit_doc *d, const scale_layout *l) {
  const bool sharded = l->fsdp > 1;
  if (is(d, CLI_EMIT_TORCHTITAN)) {
    set_num(d, K_DP_REPLICATE, l->dp);
    set_num(d, K_DP_SHARD, l->fsdp);
    if (sharded && l->zero_stage < 3) {
      set_str(d, K_RESHARD, "never");
      note(d, "ZeRO-%d: torchtitan's FSDP shards the weights too; resharding never after the "
              "forward keeps them gathered until the backward (nearest to ZeRO-%d)",
           l->zero_stage, l->zero_stage);
    }
    return;
  }
  if (!megatron_like(d) || !sharded) return;
  if (l->zero_stage == 3) {
    set_bool(d, K_FSDP_ON, true);
    if (is(d, CLI_EMIT_NEMO)) set_bool(d, K_FSDP_ON2, true);
    set_str(d, K_FSDP_STRATEGY, "optim_grads_params");
    if (l->dp > 1)
      note(d, "dp %.0f x fsdp %.0f: Megatron-FSDP shards over all %.0f data-parallel ranks "
              "(scale priced the weights sharded over fsdp %.0f only)",
           l->dp, l->fsdp, l->dp * l->fsdp, l->fsdp);
    return;
  }
  set_bool(d, K_DISTOPT, true);
  if (is(d, CLI_EMIT_NEMO)) set_bool(d, K_DISTOPT_OPT, true);
  if (l->dp > 1) set_num(d, K_DISTOPT_N, l->dp);
  if (l->zero_stage == 2)
    note(d, "ZeRO-2: the distributed optimizer shards the optimizer state and reduce-scatters "
            "the gradients but keeps a full gradient buffer (ZeRO-1's gradient memory)");
}

/* Tensor, sequence, pipeline, context and expert parallelism (not MaxText's mesh). */
static int set_parallel(emit_doc *d, const cli_emit_train_job *j) {
  const scale_layout *l = j->layout;
  const bool moe = scale_model_is_moe(j->model);
  if (is(d, CLI_EMIT_MAXTEXT)) return 0;
  set_num(d, K_TP, l->tp);
  if (l->tp > 1 && l->sp && megatron_like(d)) set_bool(d, K_SP, true);
  if (l->tp > 1 && !l->sp && is(d, CLI_EMIT_TORCHTITAN))
    note(d, "tp without sp: torchtitan's tensor-parallel plan shards the norms over the "
            "sequence (sequence parallelism) always");
  if (l->tp_overlap) set_bool(d, K_TP_OVERLAP, true);
  set_num(d, K_PP, l->pp);

  int rc = set_schedule(d, l, (double)j->model->n_layers);
  if (rc) return rc;
  set_num(d, K_CP, l->cp);
  if (l->cp > 1 && megatron_like(d))
    set_str(d, K_CP_KIND, l->cp_kind == SCALE_CP_ULYSSES     ? "a2a"
                          : l->cp_kind == SCALE_CP_ALLGATHER ? "allgather"
                                                             : "p2p");
  if (l->cp > 1 && l->cp_kind == SCALE_CP_ULYSSES && is(d, CLI_EMIT_TORCHTITAN))
    return refuse(d, "has ring context parallelism only (no Ulysses all-to-all)");
  if (l->cp > 1 && l->cp_kind == SCALE_CP_ALLGATHER && is(d, CLI_EMIT_TORCHTITAN))
    return refuse(d, "has ring context parallelism only (no all-gather of K and V)");
  if (moe) {
    set_num(d, K_EP, l->ep);
    set_num(d, K_ETP, l->etp >= 1 ? l->etp : 1);
    if (l->capacity_factor > 0 && megatron_like(d)) set_num(d, K_CAPACITY, l->capacity_factor);
    if (l->capacity_factor > 0 && is(d, CLI_EMIT_TORCHTITAN))
      note(d, "capacity factor %g: torchtitan's MoE is dropless (no capacity option)",
           l->capacity_factor);
  }
  set_zero(d, l);
  if (l->unfused_attention && megatron_like(d)) set_str(d, K_ATTN, "unfused");
  if (l->unfused_attention && !megatron_like(d))
    note(d, "unfused attention: torchtitan picks its attention kernel (SDPA/flex) itself");
  return 0;
}

/* MaxText's mesh axes, innermost first (the order a slice's devices are filled in). */
enum { AX_TENSOR, AX_CONTEXT, AX_EXPERT, AX_FSDP, AX_PIPE, AX_DATA, AX_N };
static const char *const AXIS[AX_N] = {"tensor", "context", "expert", "fsdp", "pipeline", "data"};

/* Devices of one MaxText slice: a GPU's NVLink domain, or the chips scale kept off DCN. */
static double slice_devices(const cli_emit_train_job *j) {
  const scale_layout *l = j->layout;
  const double degree[SCALE_TRAIN_DIM_COUNT] = {l->dp, l->fsdp, l->tp, l->pp, 1, l->cp};
  double slices = 1;
  for (int dim = 0; dim < SCALE_TRAIN_DIM_COUNT; dim++)
    if (l->link[dim] == SCALE_TRAIN_LINK_DCN) slices *= degree[dim];
  double domain = j->chip->nvlink_domain_size;
  if (isfinite(domain) && domain >= 1) return fmin(domain, j->n_chips);
  return j->n_chips / slices;
}

/* The expert axis (a mesh axis of its own, out of fsdp) and ZeRO-1/2 (the optimizer sharded
 * over the data axis) on the degrees of each axis: 0 or a refusal. */
static int fold_axes(emit_doc *d, const scale_layout *l, double *total) {
  if (l->ep > 1) {
    if (fmod(total[AX_FSDP], l->ep) != 0)
      return refuse(d, "takes its expert axis out of fsdp: ep %g does not divide fsdp %g", l->ep,
                    total[AX_FSDP]);
    total[AX_FSDP] /= l->ep;
    note(d, "ep %g: MaxText's expert axis is a mesh axis of its own, apart from tensor, taken "
            "out of fsdp %g; it shards the dense layers' batch as fsdp does", l->ep, l->fsdp);
  }
  if (l->fsdp > 1 && l->zero_stage < 3) {
    total[AX_DATA] *= total[AX_FSDP];
    total[AX_FSDP] = 1;
    set_bool(d, K_SHARD_OPT_DATA, true);
    if (l->zero_stage == 2)
      note(d, "ZeRO-2: MaxText shards the optimizer state over the data axis (ZeRO-1); the "
              "gradients are all-reduced, not reduce-scattered");
  }
  return 0;
}

/* Fills a slice of 'devices' with the axes, innermost first, into ici[] and dcn[] (MaxText
 * needs each slice's devices on its ICI axes); a note for each axis split otherwise than scale
 * mapped it. 0, or a refusal when the axes cannot fill the slice. */
static int fill_slice(emit_doc *d, const scale_layout *l, double devices, const double *total,
                      double *ici, double *dcn) {
  const scale_train_dim DIM[AX_N] = {SCALE_TRAIN_DIM_TP, SCALE_TRAIN_DIM_CP, SCALE_TRAIN_DIM_EP,
                                     SCALE_TRAIN_DIM_FSDP, SCALE_TRAIN_DIM_PP, SCALE_TRAIN_DIM_DP};
  double left = devices;
  for (int a = 0; a < AX_N; a++) {
    double g = 1;
    for (double f = 2; f <= left && f <= total[a]; f++)
      if (fmod(left, f) == 0 && fmod(total[a], f) == 0) g = f;
    ici[a] = g;
    dcn[a] = total[a] / g;
    left /= g;
    scale_train_dim dim = a == AX_DATA && l->fsdp > 1 ? SCALE_TRAIN_DIM_FSDP : DIM[a];
    bool scale_dcn = l->link[dim] == SCALE_TRAIN_LINK_DCN;
    if (total[a] > 1 && ((scale_dcn && g > 1) || (!scale_dcn && dcn[a] > 1)))
      note(d, "%s %g: ici %g x dcn %g in MaxText's slices of %g devices (scale priced it over "
              "%s)", AXIS[a], total[a], g, dcn[a], devices, scale_train_link_name(l->link[dim]));
  }
  if (left != 1)
    return refuse(d, "cannot fill its slices of %g devices with this mesh", devices);
  return 0;
}

/* MaxText's mesh: each axis's ICI and DCN degrees, its pipeline and context options. */
static int set_mesh(emit_doc *d, const cli_emit_train_job *j) {
  const scale_layout *l = j->layout;
  if (!is(d, CLI_EMIT_MAXTEXT)) return 0;
  if (l->etp > 1) return refuse(d, "has no expert tensor parallelism (etp %g)", l->etp);
  double total[AX_N] = {l->tp, l->cp, l->ep, l->fsdp, l->pp, l->dp}, ici[AX_N], dcn[AX_N];
  int rc = fold_axes(d, l, total);
  if (!rc) rc = fill_slice(d, l, slice_devices(j), total, ici, dcn);
  if (!rc) rc = set_schedule(d, l, (double)j->model->n_layers);
  if (rc) return rc;
  const emit_key ICI[AX_N] = {l->sp ? K_ICI_TENSOR_SEQ : K_ICI_TENSOR, K_ICI_CONTEXT,
                              K_ICI_EXPERT, K_ICI_FSDP, K_ICI_PIPE, K_ICI_DATA};
  const emit_key DCN[AX_N] = {l->sp ? K_DCN_TENSOR_SEQ : K_DCN_TENSOR, K_DCN_CONTEXT,
                              K_DCN_EXPERT, K_DCN_FSDP, K_DCN_PIPE, K_DCN_DATA};
  for (int a = 0; a < AX_N; a++) {
    set_num(d, ICI[a], ici[a]);
    set_num(d, DCN[a], dcn[a]);
  }
  if (l->cp > 1)
    set_str(d, K_CP_STRATEGY, l->cp_kind == SCALE_CP_ULYSSES     ? "ulysses"
                              : l->cp_kind == SCALE_CP_ALLGATHER ? "all_gather"
                                                                 : "ring");
  if (l->tp_overlap && l->sp) set_str(d, K_TP_OVERLAP, "full");
  if (l->tp_overlap && !l->sp)
    note(d, "--tp-overlap: MaxText's comm-GEMM overlap (te_comm_gemm_overlap) needs tensor-"
            "sequence parallelism; left to XLA's scheduler");
  if (l->capacity_factor > 0) set_num(d, K_CAPACITY, l->capacity_factor);
  if (l->unfused_attention)
    note(d, "unfused attention: MaxText picks its attention kernel (attention=autoselected)");
  return 0;
}

/* Micro and global batch, sequence length: 0, or a refusal when the batch does not split into
 * whole sequences per microbatch. */
static int set_batch(emit_doc *d, const cli_emit_train_job *j) {
  const scale_layout *l = j->layout;
  const double seqs = j->batch_tokens / j->seq_len, replicas = l->dp * l->fsdp;
  const double m = l->n_microbatches >= 1 ? l->n_microbatches : 1;
  const double mbs = seqs / (replicas * m);
  if (seqs != floor(seqs))
    return refuse(d, "needs whole sequences: %g tokens are %g sequences of %g", j->batch_tokens,
                  seqs, j->seq_len);
  if (mbs != floor(mbs) && !is(d, CLI_EMIT_MAXTEXT))
    return refuse(d, "needs whole microbatches: %g sequences over %g data-parallel ranks x %g "
                     "microbatches",
                  seqs, replicas, m);
  set_num(d, K_SEQ, j->seq_len);
  set_num(d, K_GBS, seqs);
  if (megatron_like(d)) {
    set_num(d, K_MBS, mbs);
    double pos = fmax(j->seq_len, (double)j->model->n_ctx_max);
    if (is(d, CLI_EMIT_MEGATRON)) set_num(d, K_MAX_POS, pos);
  } else if (is(d, CLI_EMIT_TORCHTITAN)) {
    /* local_batch_size: per data-parallel rank; more microbatches than stages' worth is
     * gradient accumulation (global / (local x replicas)) */
    set_num(d, K_LOCAL_BATCH, l->pp > 1 ? seqs / replicas : mbs);
    if (l->pp > 1) set_num(d, K_MICRO_PP, mbs);
  } else { /* MaxText: the batch over every device, accumulation or pipeline microbatches */
    const double accum = l->pp > 1 ? 1 : m;
    set_num(d, K_PER_DEVICE_BATCH, seqs / (j->n_chips * accum));
    if (accum > 1) set_num(d, K_GRAD_ACCUM, accum);
    if (l->pp > 1) set_num(d, K_MICRO_PP, m);
  }
  return 0;
}

/* Block remat of a share of the layers: Megatron's block method over the stage's layers,
 * torchtitan's every K-th layer, MaxText's nearest (all of them). */
static void set_partial_recompute(emit_doc *d, const scale_layout *l, const scale_model *m) {
  double stage = scale_train_stage_layers(m, l->pp), n = scale_train_remat_layers(m, l);
  if (is(d, CLI_EMIT_TORCHTITAN)) {
    double every = round(1.0 / l->remat_frac);
    char option[32];
    snprintf(option, sizeof option, "%.0f", every); /* a string in torchtitan's config */
    set_str(d, K_AC_MODE, "selective");
    set_str(d, K_AC_OPTION, option);
    if (floor(stage / every) != n)
      note(d, "remat of %g of %g layers: torchtitan checkpoints one layer in every %g, %g of them",
           n, stage, every, floor(stage / every));
    return;
  }
  if (is(d, CLI_EMIT_MAXTEXT)) {
    set_str(d, K_REMAT_POLICY, "full");
    note(d, "remat of %g of %g layers: MaxText has no per-layer share; nearest, full", n, stage);
    return;
  }
  set_str(d, K_RECOMP_GRAN, "full");
  set_str(d, K_RECOMP_METHOD, "block");
  set_num(d, K_RECOMP_LAYERS, n);
}

/* The recompute policy in each framework's words. */
static void set_recompute(emit_doc *d, const scale_layout *l, const scale_model *m) {
  scale_remat r = l->remat;
  if (r == SCALE_REMAT_BLOCK && l->remat_frac < 1.0) {
    set_partial_recompute(d, l, m);
    return;
  }
  const char *name = scale_train_remat_name(r);
  if (is(d, CLI_EMIT_TORCHTITAN)) {
    static const char *const MODE[SCALE_REMAT_COUNT] = {"none", "full", "selective", "selective"};
    set_str(d, K_AC_MODE, MODE[r]);
    if (r == SCALE_REMAT_BIG_MATMULS || r == SCALE_REMAT_SELECTIVE) {
      set_str(d, K_AC_OPTION, "op");
      note(d, "remat %s: nearest torchtitan's per-op selective checkpointing (it saves the "
              "matmul and attention outputs of its policy, every other matmul)",
           name);
    }
    return;
  }
  if (is(d, CLI_EMIT_MAXTEXT)) {
    static const char *const POLICY[SCALE_REMAT_COUNT] = {"minimal_with_context", "full",
                                                          "minimal", "minimal_with_context"};
    set_str(d, K_REMAT_POLICY, POLICY[r]);
    if (r == SCALE_REMAT_NONE || r == SCALE_REMAT_SELECTIVE)
      note(d, "remat %s: nearest MaxText's minimal_with_context (it keeps the matmul outputs "
              "and the attention context, and recomputes the norms and activations)",
           name);
    return;
  }
  if (r == SCALE_REMAT_NONE) return;
  const bool nemo = is(d, CLI_EMIT_NEMO);
  if (r == SCALE_REMAT_BLOCK) {
    set_str(d, K_RECOMP_GRAN, "full");
    set_str(d, K_RECOMP_METHOD, "uniform");
    set_num(d, K_RECOMP_LAYERS, 1);
    return;
  }
  set_str(d, K_RECOMP_GRAN, "selective");
  if (r == SCALE_REMAT_SELECTIVE) {
    set_raw(d, K_RECOMP_MODULES, nemo ? "[core_attn]" : "core_attn");
    return;
  }
  set_raw(d, K_RECOMP_MODULES, nemo ? "[core_attn,layernorm,moe_act]" : "core_attn layernorm moe_act");
  note(d, "remat matmuls: Megatron has no keep-every-matmul policy; nearest, selective "
          "recompute of the attention core, the norms and the MoE activation (the dense MLP's "
          "activation is kept)");
}

/* The precision recipe: each framework's switch, or a refusal. */
static int set_precision(emit_doc *d, const char *recipe) {
  enum { R_BF16, R_FP16, R_FP8, R_FP8_ROW, R_FP8_BLOCK, R_MXFP8, R_NVFP4, R_N };
  static const char *const NAMES[R_N] = {"bf16",          "fp16",  "fp8",  "fp8-rowwise",
                                         "fp8-blockwise", "mxfp8", "nvfp4"};
  int r = 0;
  while (r < R_N && strcmp(NAMES[r], recipe) != 0) r++;
  if (r == R_N) return refuse(d, "has no precision recipe '%s'", recipe);
  if (is(d, CLI_EMIT_MEGATRON)) {
    static const char *const FP8[R_N] = {NULL, NULL, "delayed", "blockwise", "blockwise", "mxfp8"};
    set_bool(d, r == R_FP16 ? K_FP16 : K_BF16, true);
    if (FP8[r]) {
      set_str(d, K_FP8_FORMAT, r == R_FP8 ? "hybrid" : "e4m3");
      set_str(d, K_FP8_RECIPE, FP8[r]);
    }
    if (r == R_NVFP4) {
      set_str(d, K_FP4_FORMAT, "e2m1");
      set_str(d, K_FP4_RECIPE, "nvfp4");
    }
  } else if (is(d, CLI_EMIT_NEMO)) {
    static const char *const MP[R_N] = {
        "bf16_mixed", "fp16_mixed", "bf16_with_fp8_delayed_scaling_mixed",
        "bf16_with_fp8_subchannel_scaling_mixed", "bf16_with_fp8_subchannel_scaling_mixed",
        "bf16_with_mxfp8_mixed", "bf16_with_nvfp4_mixed"};
    set_str(d, K_MIXED_PRECISION, MP[r]);
  } else if (is(d, CLI_EMIT_TORCHTITAN)) {
    if (r == R_FP16 || r == R_NVFP4) return refuse(d, "has no %s training recipe", recipe);
    set_str(d, K_PARAM_DTYPE, "bfloat16");
    if (r == R_MXFP8) {
      set_raw(d, K_CONVERTERS, "[\"quantize.linear.mx\"]");
      set_str(d, K_MX_RECIPE, "mxfp8_cublas");
    } else if (r != R_BF16) {
      set_raw(d, K_CONVERTERS, "[\"quantize.linear.float8\"]");
      set_str(d, K_FLOAT8_RECIPE, r == R_FP8 ? "tensorwise" : "rowwise");
    }
    if (r == R_FP8)
      note(d, "fp8: torchao scales per tensor from the current amax (no delayed scaling)");
  } else {
    if (r == R_FP16 || r == R_MXFP8 || r == R_NVFP4)
      return refuse(d, "has no %s training recipe (quantization: fp8, nanoo_fp8, int8)", recipe);
    set_str(d, K_DTYPE, "bfloat16");
    if (r != R_BF16) set_str(d, K_QUANTIZATION, "fp8");
    if (r == R_FP8_ROW || r == R_FP8_BLOCK)
      note(d, "%s: MaxText's fp8 scales per tensor (nearest)", recipe);
  }
  if ((r == R_FP8_ROW && megatron_like(d)) || (r == R_FP8_BLOCK && is(d, CLI_EMIT_TORCHTITAN)))
    note(d, "%s: nearest the framework's %s scaling", recipe,
         megatron_like(d) ? "blockwise (1x128 and 128x128 tiles)" : "rowwise");
  return 0;
}

/* "[0,0,0,1,1,...]" or "([0]*3+[1]*58)": the MoE layer pattern of leading dense layers. */
static void set_moe_freq(emit_doc *d, const scale_model *m) {
  if (m->n_dense_layers <= 0) return;
  char buf[512];
  if (is(d, CLI_EMIT_MEGATRON)) {
    snprintf(buf, sizeof buf, "([0]*%lld+[1]*%lld)", (long long)m->n_dense_layers,
             (long long)(m->n_layers - m->n_dense_layers));
  } else {
    size_t n = 0;
    buf[n++] = '[';
    for (int64_t i = 0; i < m->n_layers && n + 3 < sizeof buf; i++) {
      buf[n++] = i < m->n_dense_layers ? '0' : '1';
      buf[n++] = i + 1 < m->n_layers ? ',' : ']';
    }
    buf[n] = '\0';
  }
  set_raw(d, K_MOE_FREQ, buf);
}

/* Positions, biases, QK-norm (Megatron and NeMo name them), and what they lack as notes:
 * ALiBi, attention sinks, sliding windows, a mix of output and MLP biases, the MTP module. */
static void set_model_features(emit_doc *d, const scale_model *m) {
  static const char *const positions[] = {[SCALE_POS_ROPE] = "rope",
                                          [SCALE_POS_LEARNED] = "learned_absolute",
                                          [SCALE_POS_NONE] = "none"};
  if (m->position == SCALE_POS_ALIBI)
    note(d, "ALiBi positions: the framework has no such position embedding here");
  else
    set_str(d, K_POSITION, positions[m->position]);
  bool biases = m->o_bias || m->mlp_bias;
  if (m->o_bias != m->mlp_bias)
    note(d, "biases on the %s only: the framework sets the linear layers' biases together",
         m->o_bias ? "attention output" : "MLP");
  if (!biases) set_bool(d, K_NO_BIAS, true);
  set_bool(d, K_BIAS_LINEAR, biases);
  if (m->qkv_bias) set_bool(d, K_QKV_BIAS, true);
  if (m->qk_norm) set_bool(d, K_QK_NORM, true);
  if (m->sinks) note(d, "attention sinks (a learned logit a head): not in these options");
  if (m->window_tokens > 0)
    note(d, "local attention of %lld tokens on %lld of %lld layers: set the framework's window "
            "options as the checkpoint has them (scale prices the window)",
         (long long)m->window_tokens, (long long)scale_model_n_local_layers(m),
         (long long)m->n_layers);
  if (m->n_mtp_layers > 0)
    note(d, "the model has %lld MTP layer(s); scale priced the step without training them",
         (long long)m->n_mtp_layers);
}

/* The model's shape where the framework takes it as options. */
static void set_model(emit_doc *d, const scale_model *m) {
  const bool moe = scale_model_is_moe(m), mla = m->kv_lora_rank > 0;
  if (is(d, CLI_EMIT_TORCHTITAN)) {
    note(d, "model: torchtitan takes the shape from a named flavor of its train spec, not "
            "options: pick the one with %lld layers, dim %lld, %lld heads (%lld KV), FFN %lld%s",
         (long long)m->n_layers, (long long)m->d_model, (long long)m->n_heads,
         (long long)m->n_kv_heads, (long long)(m->d_ff > 0 ? m->d_ff : m->d_ff_expert),
         moe ? ", and its experts" : "");
    return;
  }
  set_num(d, K_LAYERS, (double)m->n_layers);
  set_num(d, K_HIDDEN, (double)m->d_model);
  if (m->d_ff > 0) set_num(d, K_FFN, (double)m->d_ff);
  set_num(d, K_HEADS, (double)m->n_heads);
  if (!mla) {
    if (m->n_kv_heads < m->n_heads || !is(d, CLI_EMIT_MEGATRON))
      set_num(d, K_KV_GROUPS, (double)m->n_kv_heads);
    if (m->n_kv_heads < m->n_heads) set_bool(d, K_GQA, true);
    set_num(d, K_KV_CHANNELS, (double)m->d_head);
  }
  if (m->gated_mlp) set_bool(d, K_SWIGLU, true);
  if (!m->tied_embeddings) set_bool(d, K_UNTIE, true);
  set_bool(d, K_TIED, m->tied_embeddings);
  set_num(d, K_VOCAB, (double)m->n_vocab);
  if (mla) {
    set_bool(d, K_MLA, true);
    set_str(d, K_ATTENTION_TYPE, "mla");
    if (m->q_lora_rank > 0) set_num(d, K_Q_LORA, (double)m->q_lora_rank);
    set_num(d, K_KV_LORA, (double)m->kv_lora_rank);
    set_num(d, K_QK_HEAD, (double)m->d_head_nope);
    set_num(d, K_QK_POS, (double)m->d_head_rope);
    set_num(d, K_V_HEAD, (double)m->d_head_v);
  }
  if (moe) {
    set_num(d, K_EXPERTS, (double)m->n_experts);
    set_num(d, K_TOPK, (double)m->n_experts_active);
    set_num(d, K_MOE_FFN, (double)m->d_ff_expert);
    if (m->n_shared_experts > 0) {
      set_num(d, K_SHARED_FFN, (double)(m->n_shared_experts * m->d_ff_expert));
      set_num(d, K_N_SHARED, (double)m->n_shared_experts);
    }
    if (m->n_dense_layers > 0) set_num(d, K_DENSE_LAYERS, (double)m->n_dense_layers);
    set_moe_freq(d, m);
  }
  if (is(d, CLI_EMIT_MAXTEXT)) {
    set_str(d, K_DECODER_BLOCK, mla ? "deepseek" : moe ? "mixtral" : "llama2");
    note(d, "decoder_block %s: chosen by the architecture (%s); the norms, activations and "
            "positions are the block's", d->v[K_DECODER_BLOCK].str,
         mla ? "MLA" : moe ? "MoE" : "dense");
  } else {
    set_model_features(d, m);
    note(d, "not in scale's model file: the tokenizer (vocabulary %lld) and the normalization: "
            "set them as the checkpoint has them",
         (long long)m->n_vocab);
  }
}

/* ==== serving ================================================================================ */

/* The share of the HBM an engine may fill (weights, activations, KV) when the KV gets 'kv_frac'
 * of what the weights leave: vLLM's gpu-memory-utilization, SGLang's mem-fraction-static. */
static double memory_fraction(const cli_emit_serve_job *j) {
  scale_infer_config c = scale_infer_config_default(j->tp, 1, 1);
  c.tp = j->tp;
  c.ep = j->ep;
  c.weight_dtype = j->weight_dtype;
  c.kv_dtype = j->kv_dtype;
  scale_infer_memory mem = scale_infer_memory_eval(j->model, j->chip, &c);
  double hbm = mem.hbm_bytes_per_chip, w = mem.weight_bytes_per_chip;
  double frac = (w + j->kv_frac * (hbm - w)) / hbm;
  return round(frac * 1000.0) / 1000.0;
}

/* Weights and KV cache dtypes in each engine's terms. */
static void set_dtypes(emit_doc *d, const cli_emit_serve_job *j) {
  const char *wd = scale_dtype_name(j->weight_dtype), *kd = scale_dtype_name(j->kv_dtype);
  set_str(d, S_DTYPE, "bfloat16");
  if (j->weight_dtype == SCALE_DTYPE_FP8 && !is(d, CLI_EMIT_TRTLLM))
    set_str(d, S_QUANT, "fp8");
  else if (j->weight_dtype != SCALE_DTYPE_BF16)
    note(d, "weights %s: serve a checkpoint quantized to %s (the engine reads its method from "
            "the checkpoint)", wd, wd);
  if (j->kv_dtype == SCALE_DTYPE_BF16) return;
  set_str(d, S_KV_DTYPE, is(d, CLI_EMIT_SGLANG) ? "fp8_e4m3" : "fp8");
  if (j->kv_dtype != SCALE_DTYPE_FP8)
    note(d, "KV cache %s: emitted as fp8, the nearest KV dtype of this option (%g x the KV "
            "bytes scale priced)", kd,
         scale_dtype_bytes(SCALE_DTYPE_FP8) / scale_dtype_bytes(j->kv_dtype));
}

static int serve_doc(emit_doc *d, const cli_emit_serve_job *j) {
  const double copies = floor(j->n_chips / j->tp);
  set_num(d, S_TP, j->tp);
  set_num(d, S_PP, 1);
  if (copies > 1 && !is(d, CLI_EMIT_TRTLLM)) set_num(d, S_DP, copies);
  if (copies > 1 && is(d, CLI_EMIT_TRTLLM))
    note(d, "%g copies of %g chips: one trtllm-serve per copy behind a router", copies, j->tp);
  if (j->ep > 1 && is(d, CLI_EMIT_VLLM)) {
    set_bool(d, S_EP_ON, true);
    if (j->ep != j->tp * copies)
      note(d, "ep %g: vLLM's expert parallelism spans tp x dp = %g ranks", j->ep,
           j->tp * copies);
  } else if (j->ep > 1) {
    set_num(d, S_EP, j->ep);
  }
  set_dtypes(d, j);
  if (j->ffn_2d)
    note(d, "2-D weight-stationary MLP: scale's TPU layout; %s splits the MLP 1-D over the %g "
            "tensor-parallel chips", FRAMEWORKS[d->fw].title, j->tp);
  if (j->block_tokens > 0) set_num(d, S_BLOCK, j->block_tokens);
  set_num(d, S_MAX_LEN, j->max_model_len);
  set_num(d, S_MAX_SEQS, j->max_seqs);
  if (is(d, CLI_EMIT_SGLANG) && !j->chunked_prefill)
    set_num(d, S_MAX_TOKENS, -1); /* SGLang: -1 disables chunked prefill */
  else
    set_num(d, S_MAX_TOKENS, j->max_step_tokens);
  if (is(d, CLI_EMIT_TRTLLM))
    set_num(d, S_KV_FRAC, j->kv_frac);
  else
    set_num(d, S_MEM_UTIL, memory_fraction(j));
  set_bool(d, S_CHUNKED, j->chunked_prefill);
  if (d->v[S_CHUNKED].kind == V_FALSE && is(d, CLI_EMIT_VLLM)) d->v[S_CHUNKED].kind = V_UNSET;
  if (!j->chunked_prefill && is(d, CLI_EMIT_VLLM))
    note(d, "no chunked prefill: vLLM's V1 engine always chunks prompts");
  return 0;
}

/* ==== printing =============================================================================== */

static void print_value(FILE *out, emit_style style, const emit_val *v) {
  switch (v->kind) {
  case V_NUM: { /* the shortest of 15 or 17 digits that reads back as the same number */
    char text[32];
    snprintf(text, sizeof text, "%.15g", v->num);
    if (strtod(text, NULL) != v->num) snprintf(text, sizeof text, "%.17g", v->num);
    fprintf(out, "%s", text);
    break;
  }
  case V_STR:
    if (style == STYLE_TOML || style == STYLE_YAML)
      fprintf(out, "\"%s\"", v->str);
    else
      fprintf(out, "%s", v->str);
    break;
  case V_RAW: fprintf(out, "%s", v->str); break;
  case V_TRUE: fprintf(out, "true"); break;
  case V_FALSE: fprintf(out, "false"); break;
  case V_UNSET: break;
  }
}

/* One option line; TOML and YAML open the section (the name's part before its last dot) when it
 * changes, into 'section'. */
static void print_option(FILE *out, emit_style style, const char *name, const emit_val *v,
                         char *section, size_t size) {
  if (style == STYLE_FLAGS) {
    if (v->kind == V_FALSE) return; /* a flag not given */
    fprintf(out, "%s", name);
    if (v->kind != V_TRUE) {
      fputc(' ', out);
      print_value(out, style, v);
    }
    fputc('\n', out);
    return;
  }
  if (style == STYLE_DOTLIST) {
    fprintf(out, "%s=", name);
    print_value(out, style, v);
    fputc('\n', out);
    return;
  }
  const char *dot = strrchr(name, '.');
  size_t n = dot ? (size_t)(dot - name) : 0;
  if (n != strlen(section) || strncmp(section, name, n) != 0) {
    snprintf(section, size, "%.*s", (int)n, name);
    if (style == STYLE_TOML)
      fprintf(out, "\n[%s]\n", section);
    else if (n > 0)
      fprintf(out, "%s:\n", section);
  }
  fprintf(out, "%s%s%s", style == STYLE_YAML && n > 0 ? "  " : "", dot ? dot + 1 : name,
          style == STYLE_TOML ? " = " : ": ");
  print_value(out, style, v);
  fputc('\n', out);
}

static void print_doc(FILE *out, const emit_doc *d, const char *what, const char *reproduce) {
  const framework *f = &FRAMEWORKS[d->fw];
  fprintf(out, "# %s options for %s, written by scale --emit %s\n", f->title, what, f->id);
  fprintf(out, "# follows: %s %s, commit %s, %s (the names: frameworks/%s.txt)\n", f->title,
          f->version, f->commit, f->source, f->id);
  fprintf(out, "# priced by: %s\n", reproduce);
  fprintf(out, "# use: %s\n", f->usage);
  for (int i = 0; i < d->n_notes; i++)
    fprintf(out, "# note: %s\n", d->notes[i]);
  char section[128] = "";
  for (int i = 0; i < f->n_opts; i++) {
    const emit_val *v = &d->v[f->opts[i].key];
    if (v->kind != V_UNSET) print_option(out, f->style, f->opts[i].name, v, section, sizeof section);
  }
}

/* Whether the framework runs on 'chip' (a TPU is a chip with a torus; an NVIDIA GPU's scale-up
 * fabric is NVLink or none): 0 or a refusal. */
static int check_chip(const emit_doc *d, const scale_chip *chip) {
  const framework *f = &FRAMEWORKS[d->fw];
  bool tpu = isfinite(chip->ici_n_axes) && chip->ici_n_axes >= 1;
  bool nvidia = !tpu && (!chip->scaleup_fabric[0] || strncmp(chip->scaleup_fabric, "nvlink", 6) == 0);
  if ((f->runs_on == ON_GPU && tpu) || (f->runs_on == ON_NVIDIA && !nvidia))
    return refuse(d, "does not run on %s (it runs on %s)", chip->display_name,
                  f->runs_on == ON_GPU ? "GPUs" : "NVIDIA GPUs");
  return 0;
}

int cli_emit_train(FILE *out, cli_emit_fw fw, const cli_emit_train_job *j) {
  static emit_doc d; /* 60 kB: not on the stack */
  memset(&d, 0, sizeof d);
  d.fw = fw;
  if (j->model->arch != SCALE_ARCH_TRANSFORMER)
    return refuse(&d, "is emitted for transformers only (%s is Mamba-2)", j->model->name);
  int rc = check_chip(&d, j->chip);
  if (!rc) rc = set_parallel(&d, j);
  if (!rc) rc = set_mesh(&d, j);
  if (!rc) rc = set_batch(&d, j);
  if (!rc) rc = set_precision(&d, j->recipe);
  if (rc) return rc;
  set_recompute(&d, j->layout, j->model);
  set_model(&d, j->model);
  char what[256];
  snprintf(what, sizeof what, "%s on %g x %s", j->model->display_name, j->n_chips,
           j->chip->display_name);
  print_doc(out, &d, what, j->reproduce);
  return 0;
}

int cli_emit_serve(FILE *out, cli_emit_fw fw, const cli_emit_serve_job *j) {
  static emit_doc d;
  memset(&d, 0, sizeof d);
  d.fw = fw;
  int rc = check_chip(&d, j->chip);
  if (!rc) rc = serve_doc(&d, j);
  if (rc) return rc;
  char what[256];
  snprintf(what, sizeof what, "serving %s on %g x %s", j->model->display_name, j->n_chips,
           j->chip->display_name);
  print_doc(out, &d, what, j->reproduce);
  return 0;
}

char *cli_emit_command_line(int argc, char **argv, const char *cmd, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "scale %s", cmd);
  for (int i = 1; i < argc && n < size; i++) {
    if (strcmp(argv[i], "--emit") == 0) {
      i++;
      continue;
    }
    if (strncmp(argv[i], "--emit=", 7) == 0) continue;
    /* a word the shell would split or expand is single-quoted, so the line runs as printed */
    bool plain = argv[i][0] && strspn(argv[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                               "0123456789_./:=,+-") == strlen(argv[i]);
    n += (size_t)snprintf(buf + n, size - n, plain || strchr(argv[i], '\'') ? " %s" : " '%s'",
                          argv[i]);
  }
  return buf;
}
