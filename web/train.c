/* train.c — the module's export for one training layout (training.h), for the layout
 * explorers of chapters 6 and 12.
 *
 * scale_web_train(): the inputs of `scale train` (model, hw, chips, batch, seq; dp, fsdp,
 * zero, tp, sp, pp, microbatches, schedule, virtual, ep, cp, cp_kind, remat; cost = step or
 * roofline) -> the step, its compute and communication, memory and MFU, with the keys of
 * `scale train ... --json`: the same layout, mapping, step parameters and scale_train_eval().
 */
#include <math.h>
#include <string.h>

#include "api.h"

WEB_EXPORT("scale_web_train") int scale_web_train(void);

/* The degrees and options of the request on top of scale_layout_default(), as the command
 * reads its flags; fsdp takes the chips the others leave. false after web_error(). */
static bool layout_of(double chips, scale_layout *l) {
  *l = scale_layout_default();
  l->dp = web_num("dp", 1, 1, chips), l->tp = web_num("tp", 1, 1, chips);
  l->pp = web_num("pp", 1, 1, chips), l->cp = web_num("cp", 1, 1, chips);
  l->ep = web_num("ep", 1, 1, chips);
  double rest = chips / (l->dp * l->tp * l->pp * l->cp);
  l->fsdp = web_num("fsdp", rest, 1, chips);
  l->zero_stage = (int)web_num("zero", 3, 1, 3);
  l->sp = web_num("sp", 0, 0, 1) == 1;
  l->n_microbatches = web_num("microbatches", l->pp, 1, 1e9);
  l->n_virtual_stages = web_num("virtual", 1, 1, 1024);
  if (web_failed()) return false;
  const char *sched = web_arg("schedule"), *cpk = web_arg("cp_kind"), *remat = web_arg("remat");
  if (sched && scale_pp_schedule_parse(sched, &l->schedule) != SCALE_OK)
    return web_error("schedule: unknown '%s'", sched), false;
  if (cpk && scale_cp_kind_parse(cpk, &l->cp_kind) != SCALE_OK)
    return web_error("cp_kind: '%s' is not ring, ulysses or allgather", cpk), false;
  if (remat && scale_train_remat_parse(remat, &l->remat) != SCALE_OK)
    return web_error("remat: '%s' is not none, block, matmuls or selective", remat), false;
  return true;
}

/** See the file comment; defaults llama-3-70b on 256 tpu-v5p, 1048576 tokens of 4096. */
int scale_web_train(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  static scale_model model;
  if (!web_model("model", "llama-3-70b", &model) || !web_chip("hw", "tpu-v5p", &chip)) return 2;
  double chips = web_num("chips", 256, 1, 1 << 20), batch = web_num("batch", 1048576, 1, 1e12),
         seq = web_num("seq", 4096, 1, 1 << 24);
  scale_layout l;
  if (web_failed() || !layout_of(chips, &l)) return 2;
  scale_train_layout_map(&chip, chips, &l);
  scale_train_problem p = scale_train_problem_make(&model, &chip, chips, batch, seq);
  const char *cost = web_arg("cost");
  static scale_step_params params;
  if (!(cost && strcmp(cost, "roofline") == 0)) {
    if (scale_step_params_of_chip(&chip, &params) != SCALE_OK) {
      scale_diag d = {0};
      if (scale_step_params_load_file(scale_step_params_path(), &params, &d) != SCALE_OK)
        return web_error("%s:%d: %s", d.file, d.line, d.message);
    }
    p.step_params = &params;
  }
  scale_diag diag = {0};
  if (scale_train_validate(&p, &l, &diag) != SCALE_OK) return web_error("%s", diag.message);
  scale_train_result r;
  scale_train_eval(&p, &l, &r);
  if (!isfinite(r.step_time_s) || !isfinite(r.memory_per_chip_bytes))
    return web_error("%s", r.reason);
  web_json_begin();
  web_json_fmt("tokens_per_chip", r.tokens_per_chip, "tokens", SCALE_FMT_PLAIN);
  web_json_fmt("compute_time_s", r.compute_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("comms_time_s", r.comms_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("exposed_comms_time_s", r.exposed_comms_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("bubble_frac", r.bubble_frac, "", SCALE_FMT_PERCENT);
  web_json_fmt("step_time_s", r.step_time_s, "", SCALE_FMT_TIME);
  web_json_fmt("mfu", r.mfu, "", SCALE_FMT_PERCENT);
  web_json_fmt("tokens_per_s", r.tokens_per_s, "tokens/s", SCALE_FMT_SI);
  web_json_fmt("memory_per_chip_bytes", r.memory_per_chip_bytes, "B", SCALE_FMT_SI);
  web_json_fmt("hbm_bytes", r.hbm_bytes, "B", SCALE_FMT_SI);
  web_json_str("bound", scale_train_bound_name(r.bound));
  web_json_str("reason", r.reason);
  return web_json_end();
}
