/* infer.c — the module's export for one inference step (inference.h), for the inference
 * widgets of chapters 7-8.
 *
 * scale_web_infer(): model, hw, chips, batch, context (+ prompt, tp, ep, weights, kv,
 * compute, mfu) -> memory per chip, prefill and the decode step by the book's formulas, the
 * same scale_infer_*_eval() calls and keys as `scale infer ... --json` (src/cli/infer.c).
 * The command's calibrated prediction beside them (its "predicted_*" keys) is not exported
 * yet: a widget that wants it needs the step model's prefill/decode split out of the command.
 */
#include <math.h>

#include "api.h"

WEB_EXPORT("scale_web_infer") int scale_web_infer(void);

/** model (llama-3-70b), hw (tpu-v5e), chips (16), batch (64), context (4096); optional prompt
 * (= context), tp (= chips), ep (1), weights, kv, compute (bf16), mfu (0.4). */
int scale_web_infer(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  static scale_model model;
  if (!web_model("model", "llama-3-70b", &model) || !web_chip("hw", "tpu-v5e", &chip)) return 2;
  double chips = web_num("chips", 16, 1, 1 << 20), batch = web_num("batch", 64, 1, 1e9),
         context = web_num("context", 4096, 1, SCALE_INFER_CONTEXT_MAX);
  double prompt = web_num("prompt", context, 1, SCALE_INFER_CONTEXT_MAX),
         tp = web_num("tp", chips, 1, chips), ep = web_num("ep", 1, 1, 1 << 20),
         mfu = web_num("mfu", 0.4, 1e-6, 1);
  scale_infer_config cfg = scale_infer_config_default(chips, batch, context);
  if (web_failed() || !web_dtype("weights", cfg.weight_dtype, &cfg.weight_dtype) ||
      !web_dtype("kv", cfg.kv_dtype, &cfg.kv_dtype) ||
      !web_dtype("compute", cfg.compute_dtype, &cfg.compute_dtype))
    return 2;
  cfg.tp = tp, cfg.prompt = prompt, cfg.ep = ep, cfg.mfu_frac = mfu;
  scale_diag diag = {0};
  if (scale_infer_validate(&model, &chip, &cfg, &diag) != SCALE_OK)
    return web_error("%s", diag.message);
  scale_infer_memory mem = scale_infer_memory_eval(&model, &chip, &cfg);
  scale_infer_prefill pre = scale_infer_prefill_eval(&model, &chip, &cfg);
  scale_infer_decode dec = scale_infer_decode_eval(&model, &chip, &cfg);
  if (!isfinite(mem.total_bytes_per_chip) || !isfinite(pre.time_s) || !isfinite(dec.step_s))
    return web_error("the step is not finite for these inputs");

  web_json_begin();
  web_json_fmt("weight_bytes_per_chip", mem.weight_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("kv_bytes_per_sequence", mem.kv_bytes_per_sequence, "B", SCALE_FMT_SI);
  web_json_fmt("kv_bytes_per_chip", mem.kv_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("memory_per_chip_bytes", mem.total_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("hbm_bytes_per_chip", mem.hbm_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_str("fits", mem.fits ? "yes" : "no");
  web_json_fmt("max_batch", mem.max_batch, "", SCALE_FMT_PLAIN);
  web_json_fmt("prefill_time_s", pre.time_s, "", SCALE_FMT_TIME);
  web_json_fmt("ttft_s", pre.ttft_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_kv_time_s", dec.t_kv_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_params_time_s", dec.t_params_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_flops_time_s", dec.t_flops_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_ici_time_s", dec.t_ici_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_step_time_s", dec.step_s, "", SCALE_FMT_TIME);
  web_json_str("bound", scale_infer_bound_name(dec.bound));
  web_json_fmt("tokens_per_s", dec.tokens_per_s, "tokens/s", SCALE_FMT_SI);
  web_json_fmt("latency_per_token_s", dec.latency_per_token_s, "", SCALE_FMT_TIME);
  return web_json_end();
}
