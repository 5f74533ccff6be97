/* model_derived.c — derived quantities of `scale model show` (see model_derived.h): parameter
 * counts, FLOPs per token, KV bytes per token and training memory, all computed by
 * transformer.h. JSON keys follow issue 4: params, active_params, train_flops_per_token, ... */
#include "model_derived.h"

#include <math.h>

typedef struct {
  double context;
  double params, active_params, embedding_params;
  double train_flops_per_token, infer_flops_per_token, attention_flops_frac;
  double kv_bytes_per_token, state_bytes_per_sequence;
  double train_bytes_per_param; /* bf16 weights and gradients, Adam in fp32 (ch. 4-5) */
} derived;

static derived compute(const scale_model *m, const cli_model_query *q) {
  derived d;
  d.context = q->context > 0 ? q->context : m->n_ctx_max > 0 ? (double)m->n_ctx_max : 4096.0;
  d.params = scale_transformer_n_params(m);
  d.active_params = scale_transformer_n_active_params(m);
  d.embedding_params = scale_transformer_n_embedding_params(m);
  d.train_flops_per_token = scale_transformer_flops_per_token(m, d.context, true, SCALE_PASS_TRAIN);
  d.infer_flops_per_token =
      scale_transformer_flops_per_token(m, d.context, true, SCALE_PASS_FORWARD);
  d.attention_flops_frac = m->arch == SCALE_ARCH_TRANSFORMER
                               ? scale_transformer_attention_flops_frac(m, d.context, true)
                               : 0.0;
  d.kv_bytes_per_token = scale_transformer_kv_bytes_per_token(m, q->kv_dtype);
  d.state_bytes_per_sequence = scale_transformer_state_bytes_per_sequence(m, q->kv_dtype);
  scale_precision prec = SCALE_PRECISION_BF16_ADAM;
  d.train_bytes_per_param = scale_transformer_train_state_bytes(&prec, 1.0);
  return d;
}

void cli_model_derived_json(cli_json *json, const scale_model *model, const cli_model_query *q) {
  derived d = compute(model, q);
  cli_json_object_begin(json, "derived");
  cli_json_number(json, "params", d.params);
  cli_json_number(json, "active_params", d.active_params);
  cli_json_number(json, "embedding_params", d.embedding_params);
  cli_json_number(json, "context_tokens", d.context);
  cli_json_number(json, "train_flops_per_token", d.train_flops_per_token);
  cli_json_number(json, "infer_flops_per_token", d.infer_flops_per_token);
  cli_json_number(json, "attention_flops_frac", d.attention_flops_frac);
  cli_json_string(json, "kv_dtype", scale_dtype_name(q->kv_dtype));
  cli_json_number(json, "kv_bytes_per_token", d.kv_bytes_per_token);
  cli_json_number(json, "state_bytes_per_sequence", d.state_bytes_per_sequence);
  cli_json_number(json, "train_bytes_per_param", d.train_bytes_per_param);
  cli_json_number(json, "train_state_bytes", d.train_bytes_per_param * d.params);
  cli_json_number(json, "ssm_d_inner", (double)scale_model_ssm_d_inner(model));
  cli_json_object_end(json);
}

void cli_model_derived_text(const scale_model *model, const cli_model_query *q) {
  derived d = compute(model, q);
  char label[64];
  const char *kv = scale_dtype_name(q->kv_dtype);
  printf("derived (computed by libscale):\n");
  cli_row("parameters (counted)", d.params, "", SCALE_FMT_SI);
  if (scale_model_is_moe(model))
    cli_row("active parameters per token", d.active_params, "", SCALE_FMT_SI);
  cli_row("embedding parameters", d.embedding_params, "", SCALE_FMT_SI);
  snprintf(label, sizeof label, "training FLOPs/token @ %.0f ctx", d.context);
  cli_row(label, d.train_flops_per_token, "FLOP", SCALE_FMT_SCI);
  snprintf(label, sizeof label, "inference FLOPs/token @ %.0f ctx", d.context);
  cli_row(label, d.infer_flops_per_token, "FLOP", SCALE_FMT_SCI);
  cli_row("training memory per parameter", d.train_bytes_per_param, "B", SCALE_FMT_PLAIN);
  cli_row("  for all parameters", d.train_bytes_per_param * d.params, "B", SCALE_FMT_SI);
  if (model->arch == SCALE_ARCH_TRANSFORMER) {
    cli_row("attention share of FLOPs", d.attention_flops_frac, "", SCALE_FMT_PERCENT);
    snprintf(label, sizeof label, "KV cache per token, %s", kv);
    cli_row(label, d.kv_bytes_per_token, "B", SCALE_FMT_SI);
  } else {
    cli_row("SSM inner width", (double)scale_model_ssm_d_inner(model), "", SCALE_FMT_PLAIN);
    snprintf(label, sizeof label, "recurrent state per sequence, %s", kv);
    cli_row(label, d.state_bytes_per_sequence, "B", SCALE_FMT_SI);
  }
}
