/* serveload.c — one model copy under a request stream (serveload.h). */
#include "scale/serveload.h"

#include <math.h>
#include <stdio.h>

#include "internal.h"
#include "scale/inference.h"
#include "scale/roofline.h"
#include "scale/transformer.h"

scale_status scale_serveload_setup(const scale_model *model, const scale_chip *chip, double tp,
                                   scale_dtype dtype, scale_dtype compute, double isl,
                                   double osl, scale_serveload *out, scale_diag *diag) {
  *out = (scale_serveload){.model = model, .chip = chip, .tp = tp, .dtype = dtype,
                           .compute = compute, .isl = isl, .osl = osl};
  scale_infer_config ic = scale_infer_config_default(tp, 1, isl + osl);
  ic.weight_dtype = ic.kv_dtype = dtype;
  ic.compute_dtype = compute;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(chip, p);
  scale_status st = scale_serve_cost_of(model, chip, &ic, p, &out->cost, diag);
  if (st != SCALE_OK) return st;
  scale_serve_config c = scale_serve_config_default();
  c.isl.min_tokens = c.isl.max_tokens = isl;
  c.osl.min_tokens = c.osl.max_tokens = osl;
  c.max_batch = 256;
  c.max_step_tokens = 8192;
  c.block_tokens = 16;
  /* 90% of the HBM the weights leave, as serving engines reserve */
  c.kv_blocks = floor(0.9 * out->cost.kv_capacity_bytes / (16 * out->cost.kv_bytes_per_token));
  c.cost = scale_serve_cost_s;
  out->engine = c;
  return SCALE_OK;
}

/* [listing:serve-load] */
scale_status scale_serveload_run(scale_serveload *load, double rate_per_s, double n_requests,
                                 scale_serve_result *out, scale_diag *diag) {
  scale_serve_config c = load->engine;
  c.rate_per_s = rate_per_s;
  c.n_requests = n_requests;
  c.cost_ctx = &load->cost;
  scale_serve *sim = NULL;
  scale_status st = scale_serve_new(&c, &sim, diag);
  if (st != SCALE_OK) return st;
  st = scale_serve_run(sim, out, diag);
  scale_serve_free(sim);
  return st;
}
/* [/listing:serve-load] */

double scale_serveload_prefill_s(const scale_serveload *load) {
  double isl = load->isl;
  scale_serve_step pre = {0, 0, isl, 1, isl * (isl + 1) / 2};
  scale_serve_cost cost = load->cost; /* the cost function's context is not const */
  return scale_serve_cost_s(&pre, &cost);
}

double scale_serveload_decode1_s(const scale_serveload *load) {
  scale_serve_step dec = {1, load->isl + load->osl / 2, 0, 0, 0};
  scale_serve_cost cost = load->cost;
  return scale_serve_cost_s(&dec, &cost);
}

scale_serve_parts scale_serveload_steady_parts(const scale_serveload *load, double batch) {
  double ctx = load->isl + load->osl / 2, arrivals = batch / load->osl;
  scale_serve_step s = {batch, batch * ctx, arrivals * load->isl, arrivals,
                        arrivals * load->isl * load->isl / 2};
  return scale_serve_cost_parts(&load->cost, &s);
}

double scale_serveload_book_step_s(const scale_serveload *load, double batch) {
  double b = fmax(1.0, round(batch));
  double kv = scale_transformer_kv_bytes(load->model, load->isl + load->osl / 2, load->dtype);
  double n = scale_transformer_n_params(load->model);
  return scale_infer_step_time_s(b, kv, n * scale_dtype_bytes(load->dtype), n,
                                 load->tp * scale_chip_flops_per_s(load->chip, load->compute),
                                 load->tp * load->chip->hbm_bytes_per_s);
}

/* ---- a copy's curve under load -------------------------------------------------------------- */

scale_status scale_serveload_curve_run(scale_serveload *load, const double *rate_frac, int n,
                                       double n_requests, scale_serveload_curve *out,
                                       scale_diag *diag) {
  if (n < 0 || n > SCALE_SERVELOAD_POINTS_MAX || (n > 0 && !rate_frac))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a curve has 0 to %d load points, not %d", SCALE_SERVELOAD_POINTS_MAX, n);
  scale_status st = scale_serveload_run(load, INFINITY, n_requests, &out->offline, diag);
  double rate = out->offline.request_rate_per_s;
  if (st == SCALE_OK) st = scale_serveload_run(load, 1e-3 * rate, 50, &out->vanishing, diag);
  for (int i = 0; i < n && st == SCALE_OK; i++) {
    st = scale_serveload_run(load, rate_frac[i] * rate, n_requests, &out->point[i], diag);
    out->rate_frac[i] = rate_frac[i];
    out->tput_per_chip[i] = out->point[i].throughput_tokens_per_s / load->tp;
    out->tpot_p50_s[i] = out->point[i].tpot_p50_s;
    out->ttft_p90_s[i] = out->point[i].ttft_p90_s;
  }
  if (st != SCALE_OK) return st;
  double batch = out->offline.steady_batch;
  out->n_points = n;
  out->prefill_s = scale_serveload_prefill_s(load);
  out->decode1_s = scale_serveload_decode1_s(load);
  out->book_step_s = scale_serveload_book_step_s(load, batch);
  out->book_tokens_per_s_per_chip = fmax(1.0, round(batch)) / out->book_step_s / load->tp;
  out->book_ratio =
      out->book_tokens_per_s_per_chip / (out->offline.throughput_tokens_per_s / load->tp);
  out->steady = scale_serveload_steady_parts(load, batch);
  return SCALE_OK;
}

scale_status scale_serveload_trace(scale_serveload *load, double rate_per_s, double n_requests,
                                   scale_serve_lengths isl, scale_serve_lengths osl,
                                   double step_tokens, scale_serveload_traced *out,
                                   scale_diag *diag) {
  if (!load || !out || !(n_requests >= 1 && n_requests <= SCALE_SERVELOAD_TRACE_REQUESTS))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "serveload: a traced run needs a copy and 1 to %d requests",
                          SCALE_SERVELOAD_TRACE_REQUESTS);
  out->trace = (scale_serve_trace){out->steps,    SCALE_SERVELOAD_TRACE_STEPS,
                                   out->events,   SCALE_SERVELOAD_TRACE_EVENTS,
                                   out->requests, SCALE_SERVELOAD_TRACE_REQUESTS, 0, 0, 0, false};
  scale_serve_config c = load->engine;
  c.rate_per_s = rate_per_s;
  c.n_requests = n_requests;
  c.isl = isl;
  c.osl = osl;
  c.max_step_tokens = step_tokens;
  c.cost_ctx = &load->cost;
  c.trace = &out->trace;
  scale_serve *sim = NULL;
  scale_status st = scale_serve_new(&c, &sim, diag);
  if (st == SCALE_OK) st = scale_serve_run(sim, &out->result, diag);
  scale_serve_free(sim);
  if (st == SCALE_OK && out->trace.truncated)
    st = scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                        "serveload: the traced run has more than %d steps or %d events",
                        SCALE_SERVELOAD_TRACE_STEPS, SCALE_SERVELOAD_TRACE_EVENTS);
  return st;
}

void scale_serveload_curve_table(const scale_serveload *load, const scale_serveload_curve *c,
                                 scale_infer_table *out) {
  const scale_serve_result *off = &c->offline;
  out->n = 0;
  scale_infer_table_add(out, "fitted", "step cost fitted on serving rows (1) or priors (0)",
                        load->chip->has_serve, "", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "max_tput", "offline maximum, tokens/s per chip",
                        off->throughput_tokens_per_s / load->tp, "tokens/s", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "max_rate", "offline maximum, requests/s", off->request_rate_per_s, "",
                        SCALE_FMT_SCI);
  scale_infer_table_add(out, "max_batch", "steady batch at saturation", off->steady_batch, "",
                        SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "max_tpot_s", "TPOT p50 at saturation", off->tpot_p50_s, "s",
                        SCALE_FMT_TIME);
  scale_infer_table_add(out, "prefill_s", "one prompt's prefill step", c->prefill_s, "s",
                        SCALE_FMT_TIME);
  scale_infer_table_add(out, "low_ttft_s", "TTFT p50 at a vanishing rate", c->vanishing.ttft_p50_s,
                        "s", SCALE_FMT_TIME);
  scale_infer_table_add(out, "decode1_s", "batch-1 decode step", c->decode1_s, "s", SCALE_FMT_TIME);
  scale_infer_table_add(out, "low_tpot_s", "TPOT p50 at a vanishing rate", c->vanishing.tpot_p50_s,
                        "s", SCALE_FMT_TIME);
  for (int i = 0; i < c->n_points; i++) {
    char key[32];
    double pct = 100 * c->rate_frac[i];
    snprintf(key, sizeof key, "r%.0f.tput", pct);
    scale_infer_table_add(out, key, "tokens/s per chip", c->tput_per_chip[i], "tokens/s",
                          SCALE_FMT_PLAIN);
    snprintf(key, sizeof key, "r%.0f.ttft_p90_s", pct);
    scale_infer_table_add(out, key, "TTFT p90", c->ttft_p90_s[i], "s", SCALE_FMT_TIME);
    snprintf(key, sizeof key, "r%.0f.tpot_p50_s", pct);
    scale_infer_table_add(out, key, "TPOT p50", c->tpot_p50_s[i], "s", SCALE_FMT_TIME);
  }
  scale_infer_table_add(out, "book_step_s", "the book's step at that batch", c->book_step_s, "s",
                        SCALE_FMT_TIME);
  scale_infer_table_add(out, "book_tput", "the book's tokens/s per chip there",
                        c->book_tokens_per_s_per_chip, "tokens/s", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "book_ratio", "book / simulator", c->book_ratio, "", SCALE_FMT_SCI);
  const scale_serve_parts *p = &c->steady;
  double t = scale_serve_parts_total(p);
  scale_infer_table_add(out, "share_linear", "weights or GEMMs", 100 * p->linear_s / t, "%",
                        SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "share_kv", "KV reads", 100 * p->kv_s / t, "%", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "share_tp", "TP AllReduces", 100 * p->tp_s / t, "%", SCALE_FMT_PLAIN);
  scale_infer_table_add(out, "share_overhead", "per-step overhead", 100 * p->overhead_s / t, "%",
                        SCALE_FMT_PLAIN);
}
