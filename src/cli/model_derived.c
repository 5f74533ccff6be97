/* model_derived.c — derived quantities of `scale model show` (see model_derived.h): parameter
 * counts, FLOPs per token and KV bytes per token, all computed by transformer.h. */
#include "model_derived.h"

#include <math.h>

/* Context at which per-token FLOPs are quoted: the model's trained context, else 4096. */
static double quote_context(const scale_model *m) {
  return m->n_ctx_max > 0 ? (double)m->n_ctx_max : 4096.0;
}

typedef struct {
  double n_params, n_active_params;
  double n_embedding_params;
  double train_flops_per_token, infer_flops_per_token, context;
  double kv_bytes_per_token_bf16, kv_bytes_per_token_int8, state_bytes_per_sequence_bf16;
  double attention_flops_frac;
} derived;

static derived compute(const scale_model *m) {
  derived d;
  d.context = quote_context(m);
  d.n_params = scale_transformer_n_params(m);
  d.n_active_params = scale_transformer_n_active_params(m);
  d.n_embedding_params = scale_transformer_n_embedding_params(m);
  d.train_flops_per_token = scale_transformer_flops_per_token(m, d.context, true, SCALE_PASS_TRAIN);
  d.infer_flops_per_token =
      scale_transformer_flops_per_token(m, d.context, true, SCALE_PASS_FORWARD);
  d.kv_bytes_per_token_bf16 = scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_BF16);
  d.kv_bytes_per_token_int8 = scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_INT8);
  d.state_bytes_per_sequence_bf16 = scale_transformer_state_bytes_per_sequence(m, SCALE_DTYPE_BF16);
  d.attention_flops_frac = m->arch == SCALE_ARCH_TRANSFORMER
                               ? scale_transformer_attention_flops_frac(m, d.context, true)
                               : 0.0;
  return d;
}

void cli_model_derived_json(cli_json *json, const scale_model *model) {
  derived d = compute(model);
  cli_json_object_begin(json, "derived");
  cli_json_number(json, "n_params", d.n_params);
  cli_json_number(json, "n_active_params", d.n_active_params);
  cli_json_number(json, "n_embedding_params", d.n_embedding_params);
  cli_json_number(json, "context_tokens", d.context);
  cli_json_number(json, "train_flops_per_token", d.train_flops_per_token);
  cli_json_number(json, "inference_flops_per_token", d.infer_flops_per_token);
  cli_json_number(json, "attention_flops_frac", d.attention_flops_frac);
  cli_json_number(json, "kv_bytes_per_token_bf16", d.kv_bytes_per_token_bf16);
  cli_json_number(json, "kv_bytes_per_token_int8", d.kv_bytes_per_token_int8);
  cli_json_number(json, "state_bytes_per_sequence_bf16", d.state_bytes_per_sequence_bf16);
  cli_json_number(json, "ssm_d_inner", (double)scale_model_ssm_d_inner(model));
  cli_json_object_end(json);
}

void cli_model_derived_text(const scale_model *model) {
  derived d = compute(model);
  char label[64];
  printf("derived (computed by libscale):\n");
  cli_row("parameters (counted)", d.n_params, "", SCALE_FMT_SI);
  if (scale_model_is_moe(model)) cli_row("active parameters per token", d.n_active_params, "",
                                         SCALE_FMT_SI);
  cli_row("embedding parameters", d.n_embedding_params, "", SCALE_FMT_SI);
  snprintf(label, sizeof label, "training FLOPs/token @ %.0f ctx", d.context);
  cli_row(label, d.train_flops_per_token, "FLOP", SCALE_FMT_SCI);
  snprintf(label, sizeof label, "inference FLOPs/token @ %.0f ctx", d.context);
  cli_row(label, d.infer_flops_per_token, "FLOP", SCALE_FMT_SCI);
  if (model->arch == SCALE_ARCH_TRANSFORMER) {
    cli_row("attention share of FLOPs", d.attention_flops_frac, "", SCALE_FMT_PLAIN);
    cli_row("KV cache per token, bf16", d.kv_bytes_per_token_bf16, "B", SCALE_FMT_SI);
    cli_row("KV cache per token, int8", d.kv_bytes_per_token_int8, "B", SCALE_FMT_SI);
  } else {
    cli_row("SSM inner width", (double)scale_model_ssm_d_inner(model), "", SCALE_FMT_PLAIN);
    cli_row("recurrent state per sequence, bf16", d.state_bytes_per_sequence_bf16, "B",
            SCALE_FMT_SI);
  }
}
