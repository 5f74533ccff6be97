/* model_derived.c — derived quantities of `scale model show` (see model_derived.h).
 * Filled from transformer.h once that module lands; until then only what model.h offers. */
#include "model_derived.h"

void cli_model_derived_json(cli_json *json, const scale_model *model) {
  cli_json_object_begin(json, "derived");
  cli_json_number(json, "ssm_d_inner", (double)scale_model_ssm_d_inner(model));
  cli_json_object_end(json);
}

void cli_model_derived_text(const scale_model *model) {
  if (model->arch == SCALE_ARCH_MAMBA2)
    cli_row("SSM inner width", (double)scale_model_ssm_d_inner(model), "", SCALE_FMT_PLAIN);
}
