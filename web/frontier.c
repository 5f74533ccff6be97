/* frontier.c — the module's export for the inference frontier and latency breakdown of
 * chapters 7 and 8 (widget-frontier.js).
 *
 * scale_web_frontier(): a model, a chip, the chips of one model copy, the batch, the context
 * and the weight and KV dtypes -> the fields of `scale infer --model M --hw H --chips N
 * --batch B --context S --weights W --kv K --json` (src/cli/infer.c: the same config defaults,
 * scale_infer_validate(), the memory, prefill and decode evaluations, and its prediction by the
 * serving step cost the simulator uses, scale_serve_decode_parts() and
 * scale_serve_prefill_parts(); the prediction's fields under "predicted_KEY"), plus two plots
 * over the batch at this context: the decode step with its
 * KV, weight, FLOP and collective terms stacked on the KV reads, and the latency/throughput
 * frontier (tokens/s per chip against latency per token, HBM permitting).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "scale/servecal.h"

WEB_EXPORT("scale_web_frontier") int scale_web_frontier(void);

#define SWEEP_MAX 24 /* batches 1, 2, 4, ... 2^23 at most; the sweep stops past HBM */

/* The serving step cost of one copy of 'c', as `scale infer` prices a fixed batch (the
 * chip's [serve] fit, else the priors); false where it does not apply (no KV cache to page, a
 * layout it refuses): no prediction then, as the command falls back to the roofline. */
static bool serve_cost(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                       scale_serve_cost *out) {
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(chip, p);
  return scale_serve_cost_of(m, chip, c, p, out, NULL) == SCALE_OK;
}

/* The decode step of 'c' (one copy's share of the batch) under 'cost'; NaN without one. */
static double predict_decode(const scale_infer_config *c, const scale_serve_cost *cost) {
  if (!cost) return (double)NAN;
  scale_serve_parts d = scale_serve_decode_parts(cost, c->batch * c->tp / c->n_chips, c->context);
  return scale_serve_parts_total(&d);
}

/* "predicted_*": the fields of the command's "predicted" object. */
static void predicted_fields(const scale_chip *chip, const scale_infer_config *c,
                             const scale_infer_prefill *pre, const scale_serve_cost *cost) {
  if (!cost) return;
  scale_serve_parts pp = scale_serve_prefill_parts(cost, fmax(1.0, c->prompt));
  scale_serve_parts dp = scale_serve_decode_parts(cost, c->batch * c->tp / c->n_chips, c->context);
  double prefill_s = scale_serve_parts_total(&pp), decode_s = scale_serve_parts_total(&dp);
  if (!isfinite(prefill_s) || !isfinite(decode_s)) return;
  double tokens_per_s = c->batch / decode_s;
  web_json_fmt("predicted_prefill_time_s", prefill_s, "", SCALE_FMT_TIME);
  web_json_fmt("predicted_prefill_bound_s",
               pre->flops / (c->tp * scale_chip_flops_per_s(chip, c->compute_dtype)), "",
               SCALE_FMT_TIME);
  web_json_fmt("predicted_decode_step_time_s", decode_s, "", SCALE_FMT_TIME);
  web_json_fmt("predicted_decode_tp_time_s", dp.tp_s, "", SCALE_FMT_TIME);
  web_json_fmt("predicted_decode_engine_overhead_s", dp.overhead_s, "", SCALE_FMT_TIME);
  web_json_fmt("predicted_tokens_per_s", tokens_per_s, "tokens/s", SCALE_FMT_SI);
  web_json_fmt("predicted_tokens_per_s_per_chip", tokens_per_s / c->n_chips, "tokens/s",
               SCALE_FMT_SI);
  web_json_fmt("predicted_latency_per_token_s", decode_s, "", SCALE_FMT_TIME);
  web_json_fmt("predicted_cost_usd_per_million_tokens",
               scale_infer_cost_usd_per_million_tokens(chip->usd_per_hour, c->n_chips,
                                                       tokens_per_s),
               "", SCALE_FMT_USD);
}

/* The command's fields: memory, prefill, the decode step's terms, throughput and cost. */
static void infer_fields(const scale_infer_memory *mem, const scale_infer_prefill *pre,
                         const scale_infer_decode *dec) {
  web_json_fmt("weight_bytes_per_chip", mem->weight_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("kv_bytes_per_sequence", mem->kv_bytes_per_sequence, "B", SCALE_FMT_SI);
  web_json_fmt("kv_bytes_per_chip", mem->kv_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("memory_per_chip_bytes", mem->total_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_fmt("hbm_bytes_per_chip", mem->hbm_bytes_per_chip, "B", SCALE_FMT_SI);
  web_json_raw("fits", mem->fits ? "true" : "false", mem->fits ? 4 : 5);
  web_json_fmt("max_batch", mem->max_batch, "", SCALE_FMT_PLAIN);
  web_json_fmt("ttft_s", pre->ttft_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_kv_time_s", dec->t_kv_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_params_time_s", dec->t_params_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_flops_time_s", dec->t_flops_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_ici_time_s", dec->t_ici_s, "", SCALE_FMT_TIME);
  web_json_fmt("decode_step_time_s", dec->step_s, "", SCALE_FMT_TIME);
  web_json_str("bound", scale_infer_bound_name(dec->bound));
  web_json_fmt("latency_per_token_s", dec->latency_per_token_s, "", SCALE_FMT_TIME);
  web_json_fmt("tokens_per_s", dec->tokens_per_s, "tokens/s", SCALE_FMT_SI);
  web_json_fmt("tokens_per_s_per_chip", dec->tokens_per_s_per_chip, "tokens/s", SCALE_FMT_SI);
  web_json_fmt("critical_batch", dec->critical_batch, "", SCALE_FMT_PLAIN);
  web_json_fmt("cost_usd_per_million_tokens", dec->cost_usd_per_million_tokens, "",
               SCALE_FMT_USD);
}

/* The sweep over batches 1, 2, 4, ... (multiples of the copies) up to the first that does not
 * fit, or the current batch if larger: each term of the roofline step, and the serving step
 * cost. */
typedef struct {
  int n;
  double batch[SWEEP_MAX], kv[SWEEP_MAX], weights[SWEEP_MAX], flops[SWEEP_MAX],
      ici[SWEEP_MAX], step[SWEEP_MAX], predicted[SWEEP_MAX], latency[SWEEP_MAX],
      tput[SWEEP_MAX], tput_pred[SWEEP_MAX];
} sweep;

static void sweep_fill(const scale_model *m, const scale_chip *chip, const scale_infer_config *cfg,
                       const scale_serve_cost *cost, sweep *s) {
  double copies = cfg->n_chips / cfg->tp;
  s->n = 0;
  for (int i = 0; i < SWEEP_MAX; i++) {
    scale_infer_config c = *cfg;
    c.batch = copies * exp2(i);
    scale_infer_memory mem = scale_infer_memory_eval(m, chip, &c);
    if (!mem.fits && c.batch > cfg->batch) break;
    scale_infer_decode d = scale_infer_decode_eval(m, chip, &c);
    double p = predict_decode(&c, cost);
    int k = s->n++;
    s->batch[k] = c.batch;
    s->kv[k] = d.t_kv_s;
    s->weights[k] = d.t_kv_s + d.t_params_s;
    s->flops[k] = d.t_kv_s + d.t_flops_s;
    s->ici[k] = d.t_ici_s > 0.0 ? d.t_kv_s + d.t_ici_s : (double)NAN;
    s->step[k] = d.step_s;
    s->predicted[k] = p;
    s->latency[k] = mem.fits ? d.step_s : (double)NAN;
    s->tput[k] = mem.fits ? d.tokens_per_s_per_chip : (double)NAN;
    s->tput_pred[k] = mem.fits ? c.batch / p / c.n_chips : (double)NAN;
  }
}

static void breakdown_plot(const char *title, const sweep *s, double batch, double max_batch) {
  scale_plot_series series[6] = {
      {.label = "KV reads", .x = s->batch, .y = s->kv, .n = (size_t)s->n},
      {.label = "KV + weight reads", .x = s->batch, .y = s->weights, .n = (size_t)s->n},
      {.label = "KV + matmul FLOPs", .x = s->batch, .y = s->flops, .n = (size_t)s->n},
      {.label = "KV + collectives", .x = s->batch, .y = s->ici, .n = (size_t)s->n},
      {.label = "step (roofline)", .x = s->batch, .y = s->step, .n = (size_t)s->n},
      {.label = "step (calibrated)", .x = s->batch, .y = s->predicted, .n = (size_t)s->n,
       .dashed = true}};
  char here[64], full[64], t[32];
  snprintf(here, sizeof here, "batch %s", scale_format(t, sizeof t, batch, "", SCALE_FMT_PLAIN));
  snprintf(full, sizeof full, "HBM full at %s",
           scale_format(t, sizeof t, max_batch, "", SCALE_FMT_PLAIN));
  scale_plot_marker marks[2] = {{.vertical = true, .at = batch, .label = here},
                                {.vertical = true, .at = max_batch, .label = full}};
  scale_plot plot = {.title = title,
                     .desc = "Decode step time against batch, log-log: the KV reads, with the "
                             "weight reads, the matmul FLOPs and the collectives each stacked "
                             "on them; the step is the KV reads plus the largest of the three",
                     .x_label = "batch [sequences]",
                     .y_label = "time per decode step [s]",
                     .x_axis = SCALE_PLOT_LOG,
                     .y_axis = SCALE_PLOT_LOG,
                     .width_px = 640,
                     .height_px = 360,
                     .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                     .series = series,
                     .n_series = 6,
                     .markers = marks,
                     .n_markers = max_batch >= 1.0 ? 2 : 1};
  web_json_svg("svg", &plot);
}

/* The frontier at this context and at a quarter and four times it (within the model's
 * context), by the roofline, and at this context by the serving step cost. */
static void frontier_plot(const char *title, const scale_model *m, const scale_chip *chip,
                          const scale_infer_config *cfg, const scale_serve_cost *cost,
                          const sweep *s, double latency, double tput) {
  static double lat_pred[SWEEP_MAX]; /* the calibrated step where the batch fits */
  for (int i = 0; i < s->n; i++)
    lat_pred[i] = isfinite(s->tput_pred[i]) ? s->predicted[i] : (double)NAN;
  static sweep other[2];
  static char labels[3][48];
  const double factor[2] = {0.25, 4.0};
  scale_plot_series series[4];
  memset(series, 0, sizeof series);
  size_t n = 0;
  snprintf(labels[0], sizeof labels[0], "context %g", cfg->context);
  series[n++] = (scale_plot_series){.label = labels[0], .x = s->latency, .y = s->tput,
                                    .n = (size_t)s->n};
  for (int k = 0; k < 2; k++) {
    scale_infer_config c = *cfg;
    c.context = c.prompt = floor(cfg->context * factor[k]);
    if (c.context < 1.0 || scale_infer_validate(m, chip, &c, NULL) != SCALE_OK) continue;
    c.batch = c.n_chips / c.tp; /* the sweep's first batch: always below the current one */
    sweep_fill(m, chip, &c, cost, &other[k]);
    snprintf(labels[k + 1], sizeof labels[k + 1], "context %g", c.context);
    series[n++] = (scale_plot_series){.label = labels[k + 1], .x = other[k].latency,
                                      .y = other[k].tput, .n = (size_t)other[k].n,
                                      .dashed = true};
  }
  series[n++] = (scale_plot_series){.label = "calibrated, this context", .x = lat_pred,
                                    .y = s->tput_pred, .n = (size_t)s->n, .dots = true};
  scale_plot_point here = {.x = latency, .y = tput, .label = "this batch"};
  scale_plot plot = {.title = title,
                     .desc = "Tokens per second per chip against the latency per token as the "
                             "batch doubles, while it fits in HBM, log-log: the roofline at "
                             "three contexts and the calibrated serving cost at this one",
                     .x_label = "latency per token [s]",
                     .y_label = "tokens/s per chip",
                     .x_axis = SCALE_PLOT_LOG,
                     .y_axis = SCALE_PLOT_LOG,
                     .width_px = 640,
                     .height_px = 360,
                     .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                     .series = series,
                     .n_series = n,
                     .points = &here,
                     .n_points = isfinite(latency) && isfinite(tput) ? 1 : 0};
  web_json_svg("svg_frontier", &plot);
}

/* The config of the state as `scale infer` builds it from the same flags; false after
 * web_error(). */
static bool config_read(const scale_model *m, const scale_chip *chip, scale_infer_config *cfg) {
  double chips = web_num("chips", 8, 1, 1 << 20), batch = web_num("batch", 64, 1, 1 << 24),
         context = web_num("context", 4096, 1, 1 << 24);
  scale_dtype wd = SCALE_DTYPE_BF16, kd = SCALE_DTYPE_BF16;
  if (web_failed() || !web_dtype("weights", SCALE_DTYPE_BF16, &wd) ||
      !web_dtype("kv", SCALE_DTYPE_BF16, &kd))
    return false;
  if (chips != floor(chips) || batch != floor(batch) || context != floor(context))
    return web_error("chips, batch and context must be whole numbers"), false;
  *cfg = scale_infer_config_default(chips, batch, context);
  cfg->tp = chips;
  cfg->prompt = context;
  cfg->weight_dtype = wd;
  cfg->kv_dtype = kd;
  scale_diag diag = {0};
  if (scale_infer_validate(m, chip, cfg, &diag) != SCALE_OK)
    return web_error("%s", diag.message), false;
  return true;
}

/** model (llama-3-70b), hw (tpu-v5e), chips (8: one copy, tp = chips), batch (64), context
 * (4096 tokens; the prompt too), weights and kv (bf16). Answer: the fields of `scale infer
 * --json` (decode_*_time_s, latency_per_token_s, tokens_per_s_per_chip,
 * cost_usd_per_million_tokens, memory, ...), predicted_* (its "predicted" object), "svg" (the
 * step's terms against batch) and "svg_frontier" (throughput against latency). */
int scale_web_frontier(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  static scale_model model;
  static scale_serve_cost serving;
  static scale_infer_config cfg;
  if (!web_model("model", "llama-3-70b", &model) || !web_chip("hw", "tpu-v5e", &chip) ||
      !config_read(&model, &chip, &cfg))
    return 2;
  const scale_serve_cost *cost = serve_cost(&model, &chip, &cfg, &serving) ? &serving : NULL;
  scale_infer_memory mem = scale_infer_memory_eval(&model, &chip, &cfg);
  scale_infer_prefill pre = scale_infer_prefill_eval(&model, &chip, &cfg);
  scale_infer_decode dec = scale_infer_decode_eval(&model, &chip, &cfg);
  if (!isfinite(mem.total_bytes_per_chip) || !isfinite(pre.time_s) || !isfinite(dec.step_s))
    return web_error("the memory, prefill or decode step is not finite for this setting");
  static sweep s;
  sweep_fill(&model, &chip, &cfg, cost, &s);

  web_json_begin();
  web_json_str("model_display", model.display_name);
  web_json_str("hw_display", chip.display_name);
  infer_fields(&mem, &pre, &dec);
  predicted_fields(&chip, &cfg, &pre, cost);
  char title[200];
  snprintf(title, sizeof title, "%s on %g %s, context %g: the decode step by term",
           model.display_name, cfg.n_chips, chip.display_name, cfg.context);
  breakdown_plot(title, &s, cfg.batch, mem.max_batch);
  snprintf(title, sizeof title, "%s on %g %s, context %g: throughput against latency",
           model.display_name, cfg.n_chips, chip.display_name, cfg.context);
  frontier_plot(title, &model, &chip, &cfg, cost, &s,
                mem.fits ? dec.latency_per_token_s : (double)NAN,
                mem.fits ? dec.tokens_per_s_per_chip : (double)NAN);
  return web_json_end();
}
