/* infer.c — `scale infer`: memory, prefill, decode step, throughput, latency and cost of
 * serving a model (book chapters 7 and 8; include/scale/inference.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "emit.h"
#include "scale/plot.h"
#include "scale/serve.h"
#include "scale/servecal.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale infer --model M --hw H --chips N --batch B --context S [options]\n\n"
          "Serving cost of model M on N chips of hardware H: memory per chip, prefill time,\n"
          "decode step time (KV loading + max(FLOPs, weight loading, ICI)), throughput,\n"
          "latency and cost per million tokens (book ch. 7-8).\n\n"
          "options:\n"
          "  --model M          model name (scale model list) or path\n"
          "  --hw H             hardware name (scale hw list) or path\n"
          "  --chips N          chips serving the batch\n"
          "  --batch B          sequences decoded together\n"
          "  --context S        KV tokens per sequence during decode\n"
          "  --prompt P         prefill tokens per request (default: S)\n"
          "  --decode-len G     generated tokens per request, for QPS (default 512)\n"
          "  --tp Y             model-parallel degree (default: N; N/Y copies share the batch)\n"
          "  --2d               2-D weight-stationary MLP sharding (a TPU torus only)\n"
          "  --ffn L            MLP layout: 1d (default), 2d, gathered (weights AllGathered\n"
          "                     each layer, activations kept split over the batch), auto (the\n"
          "                     cheapest at each step: prefill and decode each their own)\n"
          "  --ep E             expert-parallel degree (MoE models)\n"
          "  --kv-sharding full|heads   split KV caches over heads then batch (default), or\n"
          "                     heads only\n"
          "  --weights DTYPE    stored weights: bf16 (default), int8, int4, fp8\n"
          "  --kv DTYPE         KV cache: bf16 (default), int8, int4, fp8\n"
          "  --compute DTYPE    matmul arithmetic: bf16 (default), int8, fp8\n"
          "  --mfu F            prefill FLOPs utilization of the book's formula (default 0.4)\n"
          "  --usd-per-chip-hour X  the price of a chip-hour you pay, instead of the hardware\n"
          "                     file's on-demand one (the cost per million tokens)\n"
          "  --price P:O        a row of hardware/prices.tsv by provider and offer\n"
          "                     (aws:reserved; scale hw prices CHIP)\n"
          "  --roofline         the book's formulas only (no calibrated prediction)\n"
          "  --json             machine output, SI base units\n"
          "  --emit F           print the serving layout as engine F's options instead of the\n"
          "                     report: vllm, sglang or trtllm (README)\n"
          "  --help             this text\n\n"
          "The prefill of one prompt and the decode step are predicted by the calibrated\n"
          "serving step cost (the one the request simulator below prices its steps with) on\n"
          "one model copy of --tp chips, printed beside the book's formulas; throughput,\n"
          "latency and cost follow the prediction.\n"
          "A batch that does not fit in HBM prints the report with a verdict and the largest\n"
          "batch that fits, and exits 1.\n\n");
  fprintf(out,
          "serving a stream (continuous batching; --batch and --context do not apply):\n"
          "  scale infer --model M --hw H --chips N --offline [--isl L] [--osl L] [options]\n"
          "  scale infer --model M --hw H --chips N --rate QPS [--requests R] [options]\n"
          "  scale infer --model M --hw H --chips N --concurrency C [--requests R] [options]\n"
          "  --offline          all requests at t = 0: the maximum output tokens/s\n"
          "  --rate QPS         Poisson arrivals, requests per second over all N/Y copies\n"
          "  --concurrency C    closed loop: C clients over all N/Y copies, each sending its\n"
          "                     next request when its previous one finishes (a benchmark's\n"
          "                     max concurrency); C a multiple of the copies, at most 1e6\n"
          "  --requests R       requests simulated (default 1000; offline: 20 x the steady batch;\n"
          "                     with --lengths: the table's pairs)\n"
          "  --isl L, --osl L   prompt and output lengths: N fixed, or MIN:MAX uniform\n"
          "                     (defaults 1024 and 128)\n"
          "  --lengths FILE     an empirical length table instead (lines 'isl<TAB>osl' under\n"
          "                     that header, e.g. measurements/serving-lengths/*.tsv), taken\n"
          "                     in order and again from the top\n"
          "  --ttft S, --tpot S SLOs of the goodput [s] (default: none)\n"
          "  --seed K           seed of the arrivals and lengths (default 1)\n"
          "  --request-overhead S  each request's handling outside the engine's steps\n"
          "                     (tokenizing, scheduling, the HTTP path), in its TTFT; a closed-\n"
          "                     loop client's next request waits for it too (default 0: not\n"
          "                     priced, said in the report)\n"
          "  --warmup W         leave the first W requests out of the latencies (TTFT, TPOT,\n"
          "                     ITL), as benchmarks leave out their warm-up; throughput and\n"
          "                     goodput count every request (default 0)\n"
          "  --max-batch B      running requests per copy at most (default 2048)\n"
          "  --step-tokens T    token budget of a step, chunked prefill (default 8192)\n"
          "  --block T          tokens per paged KV block (default 32)\n");
  fprintf(out,
          "  --kv-frac F        share of the HBM left after weights given to KV (default 0.9)\n"
          "  --kv-alloc A       reserve (default: each request reserves its prompt and output\n"
          "                     at admission, TensorRT-LLM's guaranteed-no-evict) or\n"
          "                     on-demand (blocks as tokens need them, vLLM and SGLang:\n"
          "                     the most recent request is preempted and recomputed when\n"
          "                     none is free)\n"
          "  --overhead S       fixed time of every step [s] (default: the calibrated one;\n"
          "                     0 with --roofline)\n"
          "  --engine-overhead S  host time an engine adds to every step [s], on top of the\n"
          "                     cost (default 0; vLLM 0.5: the vllm_overhead_s that `scale\n"
          "                     validate --serving` fits to Lambda's runs)\n"
          "  --prefill-alone    a step with prompt work decodes nothing (no chunked prefill:\n"
          "                     vLLM's scheduler before 0.6 at short contexts)\n"
          "  --prefix-hit F     prefix caching: share F in [0, 1] of each prompt found in the\n"
          "                     cache, not prefilled (its last token always is); the cached\n"
          "                     blocks count in each request's own KV (a shared system\n"
          "                     prompt, held once by engines, is not modelled)\n"
          "  --spec-draft M     speculative decoding with draft model M (scale model list),\n"
          "                     on the same chips, priced as the target is, its weights and\n"
          "                     KV taken from the KV cache's HBM; needs --spec-accept;\n"
          "                     'mtp': the model's own MTP module drafts (DeepSeek-V3)\n"
          "  --spec-tokens K    tokens drafted a step, 1-64 (default 4)\n"
          "  --spec-accept A    chance in [0, 1] each drafted token is accepted once those\n"
          "                     before it were (a property of the workload: no default)\n"
          "  --svg FILE         write the KV occupancy over time as an SVG figure\n"
          "  --disagg P:D       disaggregated (with --rate): P copies only prefill, D copies\n"
          "                     decode requests that arrive with their KV (P + D = N/Y);\n"
          "                     TTFT adds shipping the prompt's KV over NVLink (ICI on TPUs)\n"
          "A request reserves ceil((isl + osl) / block) KV blocks while it runs; a step decodes\n"
          "one token of each running request and spends the rest of its budget on prompts.\n"
          "Step times are the calibrated serving cost (servecal.h: weights or GEMMs, KV reads,\n"
          "prompt attention, collectives priced physically on the real NVLink or torus\n"
          "group, the engine's time per step, request and collective; fitted by `scale\n"
          "calibrate --serving`, priors on a chip without serving rows), the same function\n"
          "that prices a fixed batch; --roofline uses the book's\n"
          "roofline (weights + KV reads, FLOPs at the prefill MFU) plus --overhead instead.\n");
}

/* The serving cost's prediction of a fixed batch (servecal.h: the function the request
 * simulator prices every step with), and what follows from it. */
typedef struct {
  bool on;                          /* the serving cost priced it */
  bool fitted;                      /* with the chip's fitted [serve] (else the priors) */
  char why[320];                    /* when off: why the serving cost does not apply */
  scale_serve_parts prefill, decode; /* the prompt's step, the batch's decode step */
  double prefill_s, decode_s;       /* their totals [s] */
  scale_ffn_layout prefill_layout, decode_layout; /* the MLP layout of each */
  double prefill_bound_s;           /* the roofline: the prompt's FLOPs at peak on tp */
  double tokens_per_s, tokens_per_s_per_chip, cost_usd_per_million_tokens;
} prediction;

/* Prices cfg's fixed batch on one model copy; false after a one-line usage error (a layout the
 * serving cost refuses, as the simulator would). */
static bool predict(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                    const scale_infer_prefill *pre, bool roofline, prediction *out) {
  memset(out, 0, sizeof *out);
  if (roofline) return true;
  double p[SCALE_SERVE_N_PARAMS];
  out->fitted = scale_serve_params_of(chip, p);
  scale_serve_cost cost;
  scale_diag diag;
  if (scale_serve_cost_of(m, chip, c, p, &cost, &diag)) {
    if (c->ffn_layout == SCALE_FFN_WS_2D) {
      cli_usage("infer: %s", diag.message);
      return false;
    }
    snprintf(out->why, sizeof out->why, "%s", diag.message);
    return true;
  }
  double b = c->batch * c->tp / c->n_chips; /* this copy's share of the batch */
  out->prefill = scale_serve_prefill_parts(&cost, fmax(1.0, c->prompt));
  out->decode = scale_serve_decode_parts(&cost, b, c->context);
  out->prefill_s = scale_serve_parts_total(&out->prefill);
  out->decode_s = scale_serve_parts_total(&out->decode);
  out->prefill_layout = scale_serve_layout_at(&cost, fmax(1.0, c->prompt));
  out->decode_layout = scale_serve_layout_at(&cost, b);
  out->on = isfinite(out->prefill_s) && isfinite(out->decode_s);
  out->prefill_bound_s = pre->flops / (c->tp * scale_chip_flops_per_s(chip, c->compute_dtype));
  out->tokens_per_s = c->batch / out->decode_s;
  out->tokens_per_s_per_chip = out->tokens_per_s / c->n_chips;
  out->cost_usd_per_million_tokens =
      scale_infer_cost_usd_per_million_tokens(chip->usd_per_hour, c->n_chips,
                                              out->tokens_per_s);
  return true;
}

static void print_json(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                       const scale_infer_memory *mem, const scale_infer_prefill *pre,
                       const scale_infer_decode *dec, const prediction *pr) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "model", m->name);
  cli_json_string(&json, "hardware", chip->name);
  cli_json_number(&json, "n_chips", c->n_chips);
  cli_json_number(&json, "tp", c->tp);
  cli_json_number(&json, "batch", c->batch);
  cli_json_number(&json, "context_tokens", c->context);
  cli_json_number(&json, "prompt_tokens", c->prompt);
  cli_json_string(&json, "weight_dtype", scale_dtype_name(c->weight_dtype));
  cli_json_string(&json, "kv_dtype", scale_dtype_name(c->kv_dtype));
  cli_json_string(&json, "compute_dtype", scale_dtype_name(c->compute_dtype));
  cli_json_number(&json, "n_params", mem->n_params);
  cli_json_number(&json, "weight_bytes", mem->weight_bytes);
  cli_json_number(&json, "weight_bytes_per_chip", mem->weight_bytes_per_chip);
  cli_json_number(&json, "kv_bytes_per_token", mem->kv_bytes_per_token);
  cli_json_number(&json, "kv_bytes_per_sequence", mem->kv_bytes_per_sequence);
  cli_json_number(&json, "kv_bytes", mem->kv_bytes);
  cli_json_number(&json, "kv_bytes_per_chip", mem->kv_bytes_per_chip);
  cli_json_number(&json, "activation_bytes_per_chip", mem->activation_bytes_per_chip);
  cli_json_number(&json, "memory_per_chip_bytes", mem->total_bytes_per_chip);
  cli_json_number(&json, "hbm_bytes_per_chip", mem->hbm_bytes_per_chip);
  cli_json_bool(&json, "fits", mem->fits);
  cli_json_number(&json, "max_batch", mem->max_batch);
  cli_json_number(&json, "prefill_flops", pre->flops);
  cli_json_number(&json, "prefill_time_s", pre->time_s);
  cli_json_number(&json, "ttft_s", pre->ttft_s);
  cli_json_number(&json, "decode_kv_time_s", dec->t_kv_s);
  cli_json_number(&json, "decode_params_time_s", dec->t_params_s);
  cli_json_number(&json, "decode_flops_time_s", dec->t_flops_s);
  cli_json_number(&json, "decode_ici_time_s", dec->t_ici_s);
  cli_json_bool(&json, "ici_latency_bound", dec->ici_latency_bound);
  cli_json_number(&json, "decode_step_time_s", dec->step_s);
  cli_json_string(&json, "bound", scale_infer_bound_name(dec->bound));
  cli_json_number(&json, "tokens_per_s", dec->tokens_per_s);
  cli_json_number(&json, "tokens_per_s_per_chip", dec->tokens_per_s_per_chip);
  cli_json_number(&json, "latency_per_token_s", dec->latency_per_token_s);
  cli_json_number(&json, "qps_per_chip", dec->qps_per_chip);
  cli_json_number(&json, "critical_batch", dec->critical_batch);
  cli_json_number(&json, "cost_usd_per_million_tokens", dec->cost_usd_per_million_tokens);
  cli_json_string(&json, "cost_model", pr->on ? "calibrated" : "roofline");
  if (pr->on) {
    cli_json_object_begin(&json, "predicted");
    cli_json_bool(&json, "fitted", pr->fitted);
    cli_json_number(&json, "prefill_time_s", pr->prefill_s);
    cli_json_number(&json, "prefill_bound_s", pr->prefill_bound_s);
    cli_json_string(&json, "prefill_ffn_layout", scale_ffn_layout_name(pr->prefill_layout));
    cli_json_number(&json, "decode_step_time_s", pr->decode_s);
    cli_json_string(&json, "decode_ffn_layout", scale_ffn_layout_name(pr->decode_layout));
    cli_json_number(&json, "decode_linear_s", pr->decode.linear_s);
    cli_json_number(&json, "decode_kv_s", pr->decode.kv_s);
    cli_json_number(&json, "decode_collectives_s", pr->decode.tp_s);
    cli_json_number(&json, "decode_engine_overhead_s", pr->decode.overhead_s);
    cli_json_number(&json, "tokens_per_s", pr->tokens_per_s);
    cli_json_number(&json, "tokens_per_s_per_chip", pr->tokens_per_s_per_chip);
    cli_json_number(&json, "latency_per_token_s", pr->decode_s);
    cli_json_number(&json, "cost_usd_per_million_tokens", pr->cost_usd_per_million_tokens);
    cli_json_object_end(&json);
  }
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void two(const char *label, double predicted, double bound) {
  char a[64], b[64];
  printf("  %-34s %-14s %s\n", label, scale_format(a, sizeof a, predicted, "", SCALE_FMT_TIME),
         scale_format(b, sizeof b, bound, "", SCALE_FMT_TIME));
}

static void print_text(const scale_model *m, const scale_chip *chip, const scale_infer_config *c,
                       const scale_infer_memory *mem, const scale_infer_prefill *pre,
                       const scale_infer_decode *dec, const prediction *pr) {
  printf("%s on %g x %s, model parallelism %g, batch %g, context %g tokens\n", m->display_name,
         c->n_chips, chip->display_name, c->tp, c->batch, c->context);
  printf("weights %s, KV cache %s, compute %s\n", scale_dtype_name(c->weight_dtype),
         scale_dtype_name(c->kv_dtype), scale_dtype_name(c->compute_dtype));
  printf("memory (per chip unless noted):\n");
  cli_row("parameters", mem->n_params, "", SCALE_FMT_SCI);
  cli_row("weights (all chips)", mem->weight_bytes, "B", SCALE_FMT_SI);
  cli_row("weights", mem->weight_bytes_per_chip, "B", SCALE_FMT_SI);
  cli_row("KV cache per token", mem->kv_bytes_per_token, "B", SCALE_FMT_SI);
  cli_row("KV cache per sequence", mem->kv_bytes_per_sequence, "B", SCALE_FMT_SI);
  cli_row("KV cache of the batch (all chips)", mem->kv_bytes, "B", SCALE_FMT_SI);
  cli_row("KV cache", mem->kv_bytes_per_chip, "B", SCALE_FMT_SI);
  cli_row("working activations", mem->activation_bytes_per_chip, "B", SCALE_FMT_SI);
  cli_row("total", mem->total_bytes_per_chip, "B", SCALE_FMT_SI);
  cli_row("HBM capacity", mem->hbm_bytes_per_chip, "B", SCALE_FMT_SI);
  if (isfinite(mem->max_batch))
    cli_row("largest batch that fits", mem->max_batch, "", SCALE_FMT_PLAIN);
  cli_row_text("fits", mem->fits ? "yes" : "NO");
  if (pr->on) {
    printf("model: the calibrated serving step cost (%s), as the request\n"
           "  simulator prices its steps; one copy of %g chips\n",
           pr->fitted ? "fitted [serve]; scale validate --serving shows its error"
                      : "priors: this chip has no [serve] fit",
           c->tp);
    printf("predicted                            %-14s %s\n", "serving cost", "roofline bound");
    two("prefill of one prompt", pr->prefill_s, pr->prefill_bound_s);
    two("decode step", pr->decode_s, dec->step_s);
    two("  of which collectives", pr->decode.tp_s, dec->t_ici_s);
    cli_row("tokens/s per chip (predicted)", pr->tokens_per_s_per_chip, "tokens/s", SCALE_FMT_SI);
    cli_row("cost per M tokens (predicted)", pr->cost_usd_per_million_tokens, "",
            SCALE_FMT_USD);
    printf("decode step by part (serving cost):\n");
    cli_row("weights or GEMMs", pr->decode.linear_s, "", SCALE_FMT_TIME);
    cli_row("KV reads", pr->decode.kv_s, "", SCALE_FMT_TIME);
    cli_row("collectives (physical)", pr->decode.tp_s, "", SCALE_FMT_TIME);
    cli_row("engine overhead (fitted)", pr->decode.overhead_s, "", SCALE_FMT_TIME);
    if (c->tp > 1.0) {
      cli_row_text("MLP layout, prefill", scale_ffn_layout_name(pr->prefill_layout));
      cli_row_text("MLP layout, decode", scale_ffn_layout_name(pr->decode_layout));
    }
    printf("the book's formulas (roofline):\n");
  } else {
    printf("model: %s%s%s%s\n", cli_cost_model_name(chip, true), pr->why[0] ? " (" : "",
           pr->why, pr->why[0] ? ")" : "");
  }
  char mfu[16];
  printf("prefill of %g tokens at %s MFU:\n", c->prompt,
         scale_format(mfu, sizeof mfu, c->mfu_frac, NULL, SCALE_FMT_PERCENT));
  cli_row("FLOPs", pre->flops, "FLOP", SCALE_FMT_SI);
  cli_row("time to first token", pre->ttft_s, "s", SCALE_FMT_TIME);
  printf("decode step:\n");
  cli_row("KV loading", dec->t_kv_s, "s", SCALE_FMT_TIME);
  cli_row("weight loading", dec->t_params_s, "s", SCALE_FMT_TIME);
  cli_row("matmul FLOPs", dec->t_flops_s, "s", SCALE_FMT_TIME);
  cli_row("ICI collectives", dec->t_ici_s, "s", SCALE_FMT_TIME);
  if (dec->t_ici_s > 0.0)
    cli_row_text("ICI regime", dec->ici_latency_bound ? "latency-bound" : "bandwidth-bound");
  cli_row("step time", dec->step_s, "s", SCALE_FMT_TIME);
  cli_row_text("bound by", scale_infer_bound_name(dec->bound));
  cli_row("critical batch (per copy)", dec->critical_batch, "", SCALE_FMT_PLAIN);
  printf("throughput, latency, cost:\n");
  cli_row("tokens/s", dec->tokens_per_s, "tokens/s", SCALE_FMT_SI);
  cli_row("tokens/s per chip", dec->tokens_per_s_per_chip, "tokens/s", SCALE_FMT_SI);
  cli_row("latency per token", dec->latency_per_token_s, "s", SCALE_FMT_TIME);
  char label[64];
  snprintf(label, sizeof label, "queries/s per chip (%g tokens)", c->decode_len);
  cli_row(label, dec->qps_per_chip, "", SCALE_FMT_SCI);
  cli_row("cost per million tokens", dec->cost_usd_per_million_tokens, "", SCALE_FMT_USD);
  if (!mem->fits)
    printf("verdict: batch %g does not fit in %g chips' HBM; the largest batch that fits is %g\n",
           c->batch, c->n_chips, mem->max_batch);
}

/* ---- a stream of requests: continuous batching (serve.h) ------------------------------------ */

/* The stream options of `scale infer --offline | --rate`. */
typedef struct {
  bool any;                     /* a stream option was given */
  bool offline;                 /* --offline */
  double rate;                  /* --rate [1/s], NaN when absent */
  double requests;              /* --requests, NaN: the default */
  scale_serve_lengths isl, osl; /* --isl, --osl */
  double ttft, tpot;            /* SLOs [s], INFINITY: none */
  double seed;                  /* --seed */
  double max_batch, step_tokens, block; /* engine */
  double overhead;              /* --overhead [s], NaN: the cost model's own */
  const char *svg;              /* --svg FILE, NULL: none */
  double disagg_p, disagg_d;    /* --disagg P:D prefill and decode copies; 0: aggregated */
  double kv_frac;               /* --kv-frac: share of the HBM after weights for KV */
  double concurrency;           /* --concurrency: closed-loop clients, NaN: open loop */
  double engine_overhead;       /* --engine-overhead [s] added to every step, 0: none */
  bool prefill_alone;           /* --prefill-alone: prompt steps decode nothing */
  double prefix_hit;            /* --prefix-hit: share of each prompt in the prefix cache */
  bool kv_on_demand;            /* --kv-alloc on-demand */
  double warmup;                /* --warmup: requests left out of the latencies */
  double request_overhead;      /* --request-overhead: handling a request outside the steps */
  const char *spec_draft;       /* --spec-draft MODEL, NULL: no speculative decoding */
  double spec_tokens;           /* --spec-tokens (default 4) */
  double spec_accept;           /* --spec-accept, NaN until given */
  const char *lengths;          /* --lengths FILE, NULL: --isl and --osl */
} serve_opts;

static void serve_opts_default(serve_opts *o) {
  memset(o, 0, sizeof *o);
  o->rate = NAN;
  o->requests = NAN;
  o->isl.min_tokens = o->isl.max_tokens = 1024;
  o->osl.min_tokens = o->osl.max_tokens = 128;
  o->ttft = o->tpot = INFINITY;
  o->seed = 1;
  o->max_batch = 2048; /* the engine of the calibration rows: trtllm-bench's defaults */
  o->step_tokens = 8192;
  o->block = 32;
  o->kv_frac = 0.9;
  o->overhead = NAN;
  o->concurrency = NAN;
  o->spec_tokens = 4;
  o->spec_accept = NAN;
}

/* The step cost of a stream: the calibrated one (summing its parts for the report) or the
 * book's roofline. */
typedef struct {
  bool roofline;
  scale_serve_roofline rf;
  scale_serve_cost cal;
  scale_serve_parts sum; /* calibrated parts summed over the run [s] */
  double steps;
  double engine_s;       /* --engine-overhead: added to every step [s] */
} stream_cost;

static double stream_cost_s(const scale_serve_step *step, void *ctx) {
  stream_cost *sc = ctx;
  if (sc->roofline) return scale_serve_roofline_cost_s(step, &sc->rf) + sc->engine_s;
  scale_serve_parts p = scale_serve_cost_parts(&sc->cal, step);
  p.overhead_s += sc->engine_s;
  sc->sum.overhead_s += p.overhead_s;
  sc->sum.linear_s += p.linear_s;
  sc->sum.kv_s += p.kv_s;
  sc->sum.attn_s += p.attn_s;
  sc->sum.tp_s += p.tp_s;
  sc->steps += 1.0;
  return p.overhead_s + p.linear_s + p.kv_s + p.attn_s + p.tp_s;
}

/* Builds the cost of one copy; false after a one-line usage error. */
static bool stream_cost_of(const scale_model *m, const scale_chip *chip,
                           const scale_infer_config *cfg, const serve_opts *o, bool roofline,
                           stream_cost *sc, bool *fitted) {
  scale_diag diag;
  memset(sc, 0, sizeof *sc);
  sc->roofline = roofline;
  sc->engine_s = o->engine_overhead;
  if (roofline && cfg->ffn_layout != SCALE_FFN_WS_1D) { /* its step has no collective at all */
    cli_usage("infer: --roofline prices a stream's steps without collectives, so no MLP layout "
              "(--2d, --ffn) changes them; drop --roofline to price the layout");
    return false;
  }
  double overhead = isnan(o->overhead) ? 0.0 : o->overhead;
  if (scale_serve_roofline_of(m, chip, cfg, overhead, &sc->rf, &diag)) {
    cli_usage("infer: %s", diag.message);
    return false;
  }
  double p[SCALE_SERVE_N_PARAMS];
  *fitted = scale_serve_params_of(chip, p);
  if (!isnan(o->overhead)) p[SCALE_SERVE_OVERHEAD_S] = o->overhead;
  if (!roofline && scale_serve_cost_of(m, chip, cfg, p, &sc->cal, &diag)) {
    cli_usage("infer: %s", diag.message);
    return false;
  }
  return true;
}

/* The KV occupancy samples of a run as an SVG line plot in 'path'; false after an error. */
static bool write_kv_svg(const char *path, const scale_serve_result *r, const char *title) {
  scale_plot_series s = {"reserved KV blocks", r->sample_t_s, r->sample_kv_frac,
                         (size_t)r->n_samples, false, true};
  scale_plot plot;
  memset(&plot, 0, sizeof plot);
  plot.title = title;
  plot.desc = "KV cache occupancy of one model copy over the simulated run";
  plot.x_label = "time [s]";
  plot.y_label = "KV blocks reserved [fraction of the cache]";
  plot.y_min = 0.0;
  plot.y_max = 1.0;
  plot.legend = SCALE_PLOT_LEGEND_NONE;
  plot.series = &s;
  plot.n_series = 1;
  FILE *fp = fopen(path, "w");
  if (!fp) {
    cli_fail("infer: cannot write %s", path);
    return false;
  }
  scale_diag diag;
  scale_status st = scale_plot_write(&plot, fp, &diag);
  if (fclose(fp) != 0 || st) {
    cli_fail("infer: writing %s failed", path);
    return false;
  }
  return true;
}

/* Parses "N" (fixed) or "MIN:MAX" (uniform) token lengths; false after a one-line error. */
static bool parse_lengths(const char *opt, const char *text, scale_serve_lengths *out) {
  const unsigned count = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER;
  char buf[64];
  const char *colon = strchr(text, ':');
  if (!colon) {
    if (!cli_parse_number(opt, text, count, &out->min_tokens)) return false;
    out->max_tokens = out->min_tokens;
    return true;
  }
  size_t k = (size_t)(colon - text);
  if (k >= sizeof buf) {
    cli_usage("--%s: expected N or MIN:MAX, got '%s'", opt, text);
    return false;
  }
  memcpy(buf, text, k);
  buf[k] = '\0';
  if (!cli_parse_number(opt, buf, count, &out->min_tokens) ||
      !cli_parse_number(opt, colon + 1, count, &out->max_tokens))
    return false;
  if (out->max_tokens < out->min_tokens) {
    cli_usage("--%s: MIN:MAX needs MIN <= MAX, got '%s'", opt, text);
    return false;
  }
  return true;
}

static void three(const char *label, double p50, double p90, double p99) {
  char a[32], b[32], c[32];
  printf("  %-34s %s / %s / %s\n", label, scale_format(a, sizeof a, p50, "", SCALE_FMT_TIME),
         scale_format(b, sizeof b, p90, "", SCALE_FMT_TIME),
         scale_format(c, sizeof c, p99, "", SCALE_FMT_TIME));
}

/* The calibrated step time of the run, by part, as shares of the busy time. */
static void print_breakdown(const stream_cost *sc, bool fitted) {
  const scale_serve_parts *p = &sc->sum;
  double busy = p->overhead_s + p->linear_s + p->kv_s + p->attn_s + p->tp_s;
  char t[32];
  printf("model: the calibrated serving step cost (%s); mean step %s, of which\n",
         fitted ? "fitted [serve] of the hardware file" : "priors: this chip has no [serve] fit",
         scale_format(t, sizeof t, busy / sc->steps, "", SCALE_FMT_TIME));
  printf("  weights or GEMMs %.0f%%, KV reads %.0f%%, prompt attention %.0f%%, collectives "
         "%.0f%%, engine overhead %.0f%%\n",
         100 * p->linear_s / busy, 100 * p->kv_s / busy, 100 * p->attn_s / busy,
         100 * p->tp_s / busy, 100 * p->overhead_s / busy);
}

/* Runs config 'c' (its cost set) into 'r': 0, or a usage error (the configuration) or a
 * failure (the run), reported in one line. */
static int run_pool(const scale_serve_config *c, scale_serve_result *r) {
  scale_serve *sim = NULL;
  scale_diag diag;
  if (scale_serve_new(c, &sim, &diag)) return cli_usage("infer: %s", diag.message);
  scale_status st = scale_serve_run(sim, r, &diag);
  scale_serve_free(sim);
  return st ? cli_fail("infer: %s", diag.message) : CLI_EXIT_OK;
}

/* Disaggregated serving: the prefill pool runs each request's prompt (output 1: its first
 * token), the decode pool the rest with the prompt's KV present. The pools are simulated apart,
 * each with its share of the Poisson stream; a request's TTFT is its prefill pool's plus the
 * KV transfer, its TPOT the decode pool's. */
static int disagg_cmd(const scale_model *m, const scale_chip *chip, const scale_infer_config *cfg,
                      const serve_opts *o, const scale_serve_config *base, bool as_json) {
  scale_serve_config pc = *base, dc = *base;
  pc.rate_per_s = o->rate / o->disagg_p;
  pc.osl.min_tokens = pc.osl.max_tokens = 1;
  pc.spec_tokens = 0.0; /* the prefill pool makes one token: nothing to draft */
  pc.tpot_slo_s = INFINITY;
  dc.rate_per_s = o->rate / o->disagg_d;
  dc.prefilled = true;
  dc.prefix_hit_frac = 0.0; /* the prefill pool found the prefix */
  dc.ttft_slo_s = INFINITY;
  scale_serve_result pr, dr;
  if (run_pool(&pc, &pr) || run_pool(&dc, &dr)) return CLI_EXIT_FAIL;
  double kvb = scale_transformer_kv_bytes(m, 1, cfg->kv_dtype);
  double link = chip->kind == SCALE_HW_GPU ? chip->nvlink_bytes_per_s : chip->ici_link_bytes_per_s;
  double transfer = link > 0.0 ? o->isl.max_tokens * kvb / (cfg->tp * link) : 0.0;
  double tokens_per_s = dr.throughput_tokens_per_s * o->disagg_d;
  double cost = scale_infer_cost_usd_per_million_tokens(chip->usd_per_hour, cfg->n_chips,
                                                         tokens_per_s);
  if (as_json) {
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "model", m->name);
    cli_json_string(&j, "hardware", chip->name);
    cli_json_string(&j, "mode", "disaggregated");
    cli_json_number(&j, "prefill_copies", o->disagg_p);
    cli_json_number(&j, "decode_copies", o->disagg_d);
    cli_json_number(&j, "rate_per_s", o->rate);
    cli_json_number(&j, "kv_transfer_s", transfer);
    cli_json_number(&j, "tokens_per_s", tokens_per_s);
    cli_json_number(&j, "ttft_p50_s", pr.ttft_p50_s + transfer);
    cli_json_number(&j, "ttft_p90_s", pr.ttft_p90_s + transfer);
    cli_json_number(&j, "ttft_p99_s", pr.ttft_p99_s + transfer);
    cli_json_number(&j, "tpot_p50_s", dr.tpot_p50_s);
    cli_json_number(&j, "tpot_p90_s", dr.tpot_p90_s);
    cli_json_number(&j, "tpot_p99_s", dr.tpot_p99_s);
    cli_json_number(&j, "prefill_steady_batch", pr.steady_batch);
    cli_json_number(&j, "decode_steady_batch", dr.steady_batch);
    cli_json_string(&j, "prefill_bound", scale_serve_bind_name(pr.bind));
    cli_json_string(&j, "decode_bound", scale_serve_bind_name(dr.bind));
    cli_json_number(&j, "cost_usd_per_million_tokens", cost);
    cli_json_object_end(&j);
    cli_json_finish(&j);
    return CLI_EXIT_OK;
  }
  printf("%s on %g x %s, disaggregated: %g prefill and %g decode copies of %g chips\n",
         m->display_name, cfg->n_chips, chip->display_name, o->disagg_p, o->disagg_d, cfg->tp);
  printf("stream: Poisson %g requests/s, %g requests per pool, seed %g; prompt KV shipped in %.3g "
         "s\n",
         o->rate, base->n_requests, o->seed, transfer);
  printf("results:\n");
  cli_row("output tokens/s", tokens_per_s, "tokens/s", SCALE_FMT_SI);
  cli_row("output tokens/s per chip", tokens_per_s / cfg->n_chips, "tokens/s", SCALE_FMT_SI);
  three("TTFT p50 / p90 / p99", pr.ttft_p50_s + transfer, pr.ttft_p90_s + transfer,
        pr.ttft_p99_s + transfer);
  three("TPOT p50 / p90 / p99", dr.tpot_p50_s, dr.tpot_p90_s, dr.tpot_p99_s);
  cli_row("prefill pool: steady batch", pr.steady_batch, "", SCALE_FMT_SCI);
  cli_row_text("prefill pool: bound by", scale_serve_bind_name(pr.bind));
  cli_row("decode pool: steady batch", dr.steady_batch, "", SCALE_FMT_SCI);
  cli_row_text("decode pool: bound by", scale_serve_bind_name(dr.bind));
  cli_row("cost per million tokens", cost, "", SCALE_FMT_USD);
  return CLI_EXIT_OK;
}

/* An empirical length table (--lengths), read by serve.h's loader. */
typedef struct {
  uint32_t *isl, *osl;
  size_t n;
} length_table;

/* --spec-draft mtp: the target's own multi-token-prediction module (DeepSeek-V3's) as the draft:
 * a model of its n_mtp_layers blocks (each as the target's routed-expert layer, full attention)
 * and the target's embedding and head, which it shares. Its weights in HBM are the module's
 * own (scale_transformer_n_mtp_params), not the shared embedding and head again. */
static int mtp_draft(const scale_model *target, const scale_infer_config *cfg, scale_model *draft,
                     double *weight_bytes) {
  if (target->n_mtp_layers < 1)
    return cli_usage("infer: --spec-draft mtp: %s has no MTP module (n_mtp_layers 0)",
                     target->name);
  *draft = *target;
  draft->n_layers = target->n_mtp_layers;
  draft->n_dense_layers = 0;
  draft->n_mtp_layers = 0;
  draft->window_tokens = 0;
  snprintf(draft->name, sizeof draft->name, "%.50s-mtp", target->name);
  *weight_bytes = scale_transformer_n_mtp_params(target) * scale_dtype_bytes(cfg->weight_dtype);
  return CLI_EXIT_OK;
}

/* Speculative decoding (--spec-draft): the draft's step cost 'dsc', priced as the target's on
 * the same chips, and its weights and KV taken from the target's KV blocks; 0 or an error. */
static int draft_setup(const scale_model *m, const serve_opts *o, const scale_chip *chip,
                       const scale_infer_config *cfg, bool roofline, const stream_cost *sc,
                       stream_cost *dsc, scale_serve_config *c) {
  if (!o->spec_draft) {
    if (!isnan(o->spec_accept) || o->spec_tokens != 4)
      return cli_usage("infer: --spec-tokens and --spec-accept need --spec-draft MODEL");
    return CLI_EXIT_OK;
  }
  if (isnan(o->spec_accept))
    return cli_usage("infer: --spec-draft needs --spec-accept A, the workload's acceptance "
                     "chance per drafted token");
  scale_model draft;
  bool fitted, mtp = strcmp(o->spec_draft, "mtp") == 0;
  double weights = NAN;
  int rc = mtp ? mtp_draft(m, cfg, &draft, &weights) : cli_load_model(o->spec_draft, &draft);
  if (rc) return rc;
  if (!stream_cost_of(&draft, chip, cfg, o, roofline, dsc, &fitted)) return CLI_EXIT_USAGE;
  double capacity = sc->rf.kv_capacity_bytes - (mtp ? weights : dsc->rf.param_bytes);
  double per_token = sc->rf.kv_bytes_per_token + dsc->rf.kv_bytes_per_token;
  c->kv_blocks = fmin(floor(o->kv_frac * capacity / (o->block * per_token)), 4e9);
  if (!(c->kv_blocks >= 1.0))
    return cli_usage("infer: the draft %s leaves no HBM for KV caches beside %s", draft.name,
                     "the target's weights");
  c->spec_tokens = o->spec_tokens;
  c->spec_accept_frac = o->spec_accept;
  c->spec_draft_cost = stream_cost_s;
  c->spec_draft_ctx = dsc;
  return CLI_EXIT_OK;
}

static int serve_run(const scale_model *m, const scale_chip *chip, scale_infer_config *cfg,
                     const serve_opts *o, const length_table *table, bool as_json, bool roofline);

/* A stream with its lengths: --isl/--osl, or the table of --lengths (its extremes stand in for
 * --isl and --osl in the context checks and the bound on steps). */
static int serve_cmd(const scale_model *m, const scale_chip *chip, scale_infer_config *cfg,
                     const serve_opts *o, bool as_json, bool roofline) {
  if (!o->lengths) return serve_run(m, chip, cfg, o, NULL, as_json, roofline);
  length_table t;
  scale_diag diag;
  char buf[512];
  if (scale_serve_lengths_load(o->lengths, &t.isl, &t.osl, &t.n, &diag))
    return cli_usage("infer: --lengths: %s", scale_diag_format(&diag, buf, sizeof buf));
  serve_opts lo = *o;
  lo.isl.min_tokens = lo.isl.max_tokens = t.isl[0];
  lo.osl.min_tokens = lo.osl.max_tokens = t.osl[0];
  for (size_t i = 1; i < t.n; i++) {
    lo.isl.min_tokens = fmin(lo.isl.min_tokens, t.isl[i]);
    lo.isl.max_tokens = fmax(lo.isl.max_tokens, t.isl[i]);
    lo.osl.min_tokens = fmin(lo.osl.min_tokens, t.osl[i]);
    lo.osl.max_tokens = fmax(lo.osl.max_tokens, t.osl[i]);
  }
  int rc = serve_run(m, chip, cfg, &lo, &t, as_json, roofline);
  free(t.isl);
  free(t.osl);
  return rc;
}

/* Checks that the longest request fits the model's context (the prompt alone, then with its
 * output) and sets 'cfg' to one sequence per copy for the validation; 0 or a usage error. */
static int stream_check(const scale_model *m, const scale_chip *chip, scale_infer_config *cfg,
                        const serve_opts *o) {
  scale_diag diag;
  if (scale_infer_check_context(m, "isl", o->isl.max_tokens, 1, &diag) ||
      scale_infer_check_context(m, "isl + osl", o->isl.max_tokens + o->osl.max_tokens, 1, &diag))
    return cli_usage("infer: %s", diag.message);
  cfg->context = o->isl.max_tokens + o->osl.max_tokens;
  cfg->prompt = o->isl.max_tokens;
  cfg->batch = fmax(1.0, floor(cfg->n_chips / cfg->tp)); /* one sequence per copy: validation */
  if (scale_infer_validate(m, chip, cfg, &diag)) return cli_usage("infer: %s", diag.message);
  return CLI_EXIT_OK;
}

/* The simulation of one copy: its share of the stream, its lengths, its engine and the cost
 * 'sc' (which sums the calibrated parts as it runs); 0 or a usage error. */
static int stream_config(const serve_opts *o, const scale_infer_config *cfg,
                         const length_table *table, stream_cost *sc, scale_serve_config *c) {
  const bool closed = !isnan(o->concurrency);
  const double copies = cfg->n_chips / cfg->tp;
  *c = scale_serve_config_default();
  c->rate_per_s = o->offline || closed ? (double)INFINITY : o->rate / copies;
  if (closed) {
    if (fmod(o->concurrency, copies) != 0.0)
      return cli_usage("--concurrency: the %g clients must split evenly over the %g copies of "
                       "%g chips, got %g",
                       o->concurrency, copies, cfg->tp, o->concurrency);
    c->concurrency = o->concurrency / copies;
  }
  if (table) {
    c->table_isl = table->isl;
    c->table_osl = table->osl;
    c->n_table = (double)table->n;
  }
  c->isl = o->isl;
  c->osl = o->osl;
  c->seed = (uint64_t)o->seed;
  c->max_batch = o->max_batch;
  c->max_step_tokens = fmax(o->step_tokens, o->max_batch);
  c->block_tokens = o->block;
  c->kv_blocks = fmin(
      floor(o->kv_frac * sc->rf.kv_capacity_bytes / (o->block * sc->rf.kv_bytes_per_token)), 4e9);
  c->ttft_slo_s = o->ttft;
  c->tpot_slo_s = o->tpot;
  c->prefill_alone = o->prefill_alone;
  c->prefix_hit_frac = o->prefix_hit;
  c->kv_on_demand = o->kv_on_demand;
  c->warmup_requests = o->warmup;
  c->request_overhead_s = o->request_overhead;
  c->cost = stream_cost_s;
  c->cost_ctx = sc;
  return CLI_EXIT_OK;
}

/* Sets c->n_requests (--requests, the table's pairs, or a default: 20 offline batches or 1000
 * stream requests) and 'offline_batch' (NaN: none); 0 or a usage error. */
static int stream_requests(const serve_opts *o, const length_table *table, scale_serve_config *c,
                           double *offline_batch) {
  double b = scale_serve_offline_batch(c);
  double requests = !isnan(o->requests) ? o->requests
                    : table             ? (double)table->n
                    : o->offline        ? fmax(100.0, 20.0 * (isnan(b) ? o->max_batch : b))
                                        : 1000.0;
  if (requests > 1e6) return cli_usage("--requests: at most 1e6, got %g", requests);
  /* a bound on the simulator's work, so a command line cannot ask for hours: each request's
   * prompt chunks and decode steps are a request-step each (what a step costs the simulator is
   * one update per request in it; the engine's steps are fewer, shared by the batch). About
   * 4e7 request-steps a second on one core: 1e9 is half a minute. */
  double work = requests * (ceil(o->isl.max_tokens / c->max_step_tokens) + o->osl.max_tokens);
  if (work > 1e9)
    return cli_usage("infer: %g requests of up to %g + %g tokens are %.3g request-steps to "
                     "simulate (at most 1e9): fewer --requests or a larger --step-tokens",
                     requests, o->isl.max_tokens, o->osl.max_tokens, work);
  c->n_requests = requests;
  *offline_batch = b;
  return CLI_EXIT_OK;
}

/* --disagg P:D must split the copies and leave the decode pool a token to decode. */
static int disagg_check(const serve_opts *o, const scale_infer_config *cfg) {
  const double copies = cfg->n_chips / cfg->tp;
  if (o->disagg_p + o->disagg_d != copies)
    return cli_usage("--disagg: P + D must be the %g copies of %g chips (--chips / --tp), got "
                     "%g + %g",
                     copies, cfg->tp, o->disagg_p, o->disagg_d);
  if (o->osl.min_tokens < 2)
    return cli_usage("--disagg: the decode pool needs outputs of >= 2 tokens");
  return CLI_EXIT_OK;
}

/* A simulated copy's run and what follows from it for the N/Y copies: what the printers read. */
typedef struct {
  const scale_model *m;
  const scale_chip *chip;
  const scale_infer_config *cfg;
  const serve_opts *o;
  const length_table *table;    /* --lengths, NULL: --isl and --osl */
  const scale_serve_config *c;  /* one copy's simulation */
  const scale_serve_result *r;  /* its result */
  const stream_cost *sc;        /* its cost, with the calibrated parts summed */
  bool roofline, fitted, closed;
  double copies;                /* N/Y copies, each taking 1/copies of the stream */
  double offline_batch;         /* scale_serve_offline_batch, NaN: none */
  double overhead_s;            /* the cost model's step overhead [s] */
  const char *cost_model;       /* "roofline", "calibrated" or "calibrated-priors" */
  double tokens_per_s, goodput_tokens_per_s, cost_usd_per_million_tokens;
} stream_report;

/* The options of the run, echoed in the JSON. */
static void stream_json_setup(cli_json *json, const stream_report *s) {
  const serve_opts *o = s->o;
  cli_json_string(json, "model", s->m->name);
  cli_json_string(json, "hardware", s->chip->name);
  cli_json_number(json, "n_chips", s->cfg->n_chips);
  cli_json_number(json, "tp", s->cfg->tp);
  cli_json_number(json, "copies", s->copies);
  cli_json_string(json, "mode", o->offline ? "offline" : s->closed ? "closed" : "stream");
  cli_json_number(json, "rate_per_s", o->offline || s->closed ? -1.0 : o->rate);
  cli_json_number(json, "concurrency", s->closed ? o->concurrency : -1.0);
  cli_json_string(json, "lengths", o->lengths ? o->lengths : "");
  cli_json_number(json, "requests", s->r->n_requests);
  cli_json_number(json, "seed", o->seed);
  cli_json_number(json, "isl_min_tokens", o->isl.min_tokens);
  cli_json_number(json, "isl_max_tokens", o->isl.max_tokens);
  cli_json_number(json, "osl_min_tokens", o->osl.min_tokens);
  cli_json_number(json, "osl_max_tokens", o->osl.max_tokens);
  cli_json_number(json, "max_batch", s->c->max_batch);
  cli_json_number(json, "step_tokens", s->c->max_step_tokens);
  cli_json_number(json, "block_tokens", s->c->block_tokens);
  cli_json_number(json, "kv_blocks", s->c->kv_blocks);
  cli_json_number(json, "step_overhead_s", s->overhead_s);
  cli_json_number(json, "engine_overhead_s", o->engine_overhead);
  cli_json_bool(json, "prefill_alone", o->prefill_alone);
  cli_json_number(json, "prefix_hit_frac", o->prefix_hit);
  cli_json_string(json, "kv_alloc", o->kv_on_demand ? "on-demand" : "reserve");
  cli_json_number(json, "warmup_requests", o->warmup);
  cli_json_number(json, "request_overhead_s", o->request_overhead);
  cli_json_number(json, "preemptions", s->r->preemptions);
  cli_json_number(json, "recomputed_tokens", s->r->recomputed_tokens);
  if (o->spec_draft) {
    cli_json_object_begin(json, "speculative");
    cli_json_string(json, "draft_model", o->spec_draft);
    cli_json_number(json, "tokens", o->spec_tokens);
    cli_json_number(json, "accept_frac", o->spec_accept);
    cli_json_number(json, "drafted_tokens", s->r->drafted_tokens);
    cli_json_number(json, "accepted_tokens", s->r->accepted_tokens);
    cli_json_number(json, "draft_s", s->r->draft_s);
    cli_json_object_end(json);
  }
  cli_json_string(json, "cost_model", s->cost_model);
  if (!s->roofline) {
    cli_json_object_begin(json, "step_time_breakdown_s");
    cli_json_number(json, "overhead_s", s->sc->sum.overhead_s);
    cli_json_number(json, "linear_s", s->sc->sum.linear_s);
    cli_json_number(json, "kv_read_s", s->sc->sum.kv_s);
    cli_json_number(json, "attention_s", s->sc->sum.attn_s);
    cli_json_number(json, "tp_allreduce_s", s->sc->sum.tp_s);
    cli_json_object_end(json);
  }
}

static void print_stream_json(const stream_report *s) {
  const scale_serve_result *r = s->r;
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  stream_json_setup(&json, s);
  cli_json_number(&json, "output_tokens", r->output_tokens);
  cli_json_number(&json, "steps", r->n_steps);
  cli_json_number(&json, "makespan_s", r->makespan_s);
  cli_json_number(&json, "tokens_per_s", s->tokens_per_s);
  cli_json_number(&json, "tokens_per_s_per_chip", s->tokens_per_s / s->cfg->n_chips);
  cli_json_number(&json, "requests_per_s", r->request_rate_per_s * s->copies);
  cli_json_number(&json, "ttft_p50_s", r->ttft_p50_s);
  cli_json_number(&json, "ttft_p90_s", r->ttft_p90_s);
  cli_json_number(&json, "ttft_p99_s", r->ttft_p99_s);
  cli_json_number(&json, "tpot_p50_s", r->tpot_p50_s);
  cli_json_number(&json, "tpot_p90_s", r->tpot_p90_s);
  cli_json_number(&json, "tpot_p99_s", r->tpot_p99_s);
  cli_json_number(&json, "itl_p50_s", r->itl_p50_s);
  cli_json_number(&json, "itl_p90_s", r->itl_p90_s);
  cli_json_number(&json, "good_frac", r->good_frac);
  cli_json_number(&json, "goodput_tokens_per_s", s->goodput_tokens_per_s);
  cli_json_number(&json, "steady_batch", r->steady_batch);
  cli_json_number(&json, "offline_batch", isnan(s->offline_batch) ? -1.0 : s->offline_batch);
  cli_json_number(&json, "kv_peak_frac", r->kv_peak_frac);
  cli_json_string(&json, "bound", scale_serve_bind_name(r->bind));
  cli_json_number(&json, "cost_usd_per_million_tokens", s->cost_usd_per_million_tokens);
  cli_json_array_begin(&json, "kv_occupancy");
  for (int i = 0; i < r->n_samples; i++) {
    cli_json_object_begin(&json, NULL);
    cli_json_number(&json, "t_s", r->sample_t_s[i]);
    cli_json_number(&json, "kv_frac", r->sample_kv_frac[i]);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

/* The text report's head: the system, the stream, its lengths, the engine and the cost model. */
static void print_stream_setup(const stream_report *s) {
  const serve_opts *o = s->o;
  const scale_infer_config *cfg = s->cfg;
  printf("%s on %g x %s, model parallelism %g (%g cop%s), weights %s, KV cache %s\n",
         s->m->display_name, cfg->n_chips, s->chip->display_name, cfg->tp, s->copies,
         s->copies == 1.0 ? "y" : "ies", scale_dtype_name(cfg->weight_dtype),
         scale_dtype_name(cfg->kv_dtype));
  if (o->offline)
    printf("offline: %g requests at t = 0 (a saturated queue)\n", s->r->n_requests);
  else if (s->closed)
    printf("closed loop: %g clients (%g per copy), each sending its next request when its "
           "previous one finishes; %g requests simulated on one copy\n",
           o->concurrency, s->c->concurrency, s->r->n_requests);
  else
    printf("stream: Poisson %g requests/s, %g requests, seed %g\n", o->rate, s->r->n_requests,
           o->seed);
  if (s->table) {
    printf("lengths: the %zu pairs of %s in order (input %g to %g, output %g to %g tokens)\n",
           s->table->n, o->lengths, o->isl.min_tokens, o->isl.max_tokens, o->osl.min_tokens,
           o->osl.max_tokens);
  } else {
    printf("lengths: input %g", o->isl.min_tokens);
    if (o->isl.max_tokens > o->isl.min_tokens) printf(":%g uniform", o->isl.max_tokens);
    printf(", output %g", o->osl.min_tokens);
    if (o->osl.max_tokens > o->osl.min_tokens) printf(":%g uniform", o->osl.max_tokens);
    printf(" tokens\n");
  }
  printf("engine per copy: batch cap %g, %g tokens a step, %g KV blocks of %g tokens\n",
         s->c->max_batch, s->c->max_step_tokens, s->c->kv_blocks, s->c->block_tokens);
  if (o->engine_overhead > 0.0)
    printf("engine host time: %g s added to every step (--engine-overhead)\n", o->engine_overhead);
  if (o->prefill_alone) printf("prompts alone: a step with prompt work decodes nothing\n");
  if (o->warmup > 0.0)
    printf("latencies over requests %g on (the first %g are the warm-up)\n", o->warmup + 1.0,
           o->warmup);
  char handling[32];
  if (o->request_overhead > 0.0)
    printf("requests: %s of handling each outside the steps, in their TTFT (--request-overhead)\n",
           scale_format(handling, sizeof handling, o->request_overhead, "", SCALE_FMT_TIME));
  else
    printf("requests: handling outside the steps (tokenizing, scheduling, the HTTP path) not "
           "priced (--request-overhead S)\n");
  if (o->kv_on_demand)
    printf("KV blocks on demand: %g preemptions, %.4g tokens prefilled again\n",
           s->r->preemptions, s->r->recomputed_tokens);
  if (o->spec_draft)
    printf("speculative decoding: %s drafts %g a step, each accepted at %g: %.3g of %.4g drafts "
           "kept, drafting %.1f%% of the busy time\n",
           o->spec_draft, o->spec_tokens, o->spec_accept,
           s->r->drafted_tokens > 0.0 ? s->r->accepted_tokens / s->r->drafted_tokens : 0.0,
           s->r->drafted_tokens, 100.0 * s->r->draft_s / s->r->busy_s);
  if (o->prefix_hit > 0.0)
    printf("prefix cache: %.3g of each prompt found (%.4g of %.4g prompt tokens not prefilled;"
           " their blocks held per request)\n",
           o->prefix_hit, s->r->cached_tokens, s->r->input_tokens);
  if (s->roofline)
    printf("model: the book's roofline per step + %g s overhead\n", s->overhead_s);
  else
    print_breakdown(s->sc, s->fitted);
  if (!s->roofline && !s->table && s->r->steady_batch >= 1.0) {
    /* the same function's price of a decode-only step of the steady batch at the mean context:
     * what `scale infer --batch --context` gives (its steps here also carry prompt chunks) */
    double b = round(s->r->steady_batch);
    double ctx = round((o->isl.min_tokens + o->isl.max_tokens) / 2.0 +
                       ((o->osl.min_tokens + o->osl.max_tokens) / 2.0 + 1.0) / 2.0);
    scale_serve_parts d = scale_serve_decode_parts(&s->sc->cal, b, ctx);
    char t[32];
    printf("a decode-only step of the steady batch: %s (scale infer --batch %g --context %g "
           "per copy)\n",
           scale_format(t, sizeof t, scale_serve_parts_total(&d), "", SCALE_FMT_TIME), b, ctx);
  }
  if (!s->roofline && s->cfg->tp > 1.0) /* each phase's MLP layout, as the cost chose it */
    printf("MLP layout: %s for a full step of prompt tokens, %s for a decode step of the "
           "steady batch\n",
           scale_ffn_layout_name(scale_serve_layout_at(&s->sc->cal, s->c->max_step_tokens)),
           scale_ffn_layout_name(
               scale_serve_layout_at(&s->sc->cal, fmax(1.0, round(s->r->steady_batch)))));
}

static void print_stream_text(const stream_report *s) {
  const scale_serve_result *r = s->r;
  print_stream_setup(s);
  printf("results:\n");
  cli_row("output tokens/s", s->tokens_per_s, "tokens/s", SCALE_FMT_SI);
  cli_row("output tokens/s per chip", s->tokens_per_s / s->cfg->n_chips, "tokens/s", SCALE_FMT_SI);
  cli_row("requests/s", r->request_rate_per_s * s->copies, "", SCALE_FMT_SCI);
  three("TTFT p50 / p90 / p99", r->ttft_p50_s, r->ttft_p90_s, r->ttft_p99_s);
  if (isfinite(r->tpot_p50_s))
    three("TPOT p50 / p90 / p99", r->tpot_p50_s, r->tpot_p90_s, r->tpot_p99_s);
  if (isfinite(r->itl_p50_s)) {
    char a[32], b[32];
    printf("  %-34s %s / %s\n", "ITL p50 / p90 (every token)",
           scale_format(a, sizeof a, r->itl_p50_s, "", SCALE_FMT_TIME),
           scale_format(b, sizeof b, r->itl_p90_s, "", SCALE_FMT_TIME));
  }
  if (isfinite(s->o->ttft) || isfinite(s->o->tpot)) {
    cli_row("requests meeting the SLO", r->good_frac, "", SCALE_FMT_PERCENT);
    cli_row("goodput tokens/s", s->goodput_tokens_per_s, "tokens/s", SCALE_FMT_SI);
  }
  cli_row("steady batch (per copy)", r->steady_batch, "", SCALE_FMT_SCI);
  cli_row("peak KV occupancy", r->kv_peak_frac, "", SCALE_FMT_PERCENT);
  cli_row_text("bound by", scale_serve_bind_name(r->bind));
  cli_row("cost per million tokens", s->cost_usd_per_million_tokens, "", SCALE_FMT_USD);
}

static int serve_run(const scale_model *m, const scale_chip *chip, scale_infer_config *cfg,
                     const serve_opts *o, const length_table *table, bool as_json, bool roofline) {
  int rc = stream_check(m, chip, cfg, o);
  if (rc) return rc;
  stream_cost sc;
  bool fitted = false;
  if (!stream_cost_of(m, chip, cfg, o, roofline, &sc, &fitted)) return CLI_EXIT_USAGE;
  scale_serve_config c;
  stream_cost draft;
  double b = NAN;
  if ((rc = stream_config(o, cfg, table, &sc, &c)) ||
      (rc = draft_setup(m, o, chip, cfg, roofline, &sc, &draft, &c)) ||
      (rc = stream_requests(o, table, &c, &b)))
    return rc;
  if (o->disagg_p > 0)
    return (rc = disagg_check(o, cfg)) ? rc : disagg_cmd(m, chip, cfg, o, &c, as_json);
  scale_serve_result r;
  if ((rc = run_pool(&c, &r))) return rc;
  if (o->svg && !write_kv_svg(o->svg, &r, "KV cache occupancy over the run")) return CLI_EXIT_FAIL;
  stream_report s = {.m = m, .chip = chip, .cfg = cfg, .o = o, .table = table, .c = &c, .r = &r,
                     .sc = &sc, .roofline = roofline, .fitted = fitted,
                     .closed = !isnan(o->concurrency), .copies = cfg->n_chips / cfg->tp,
                     .offline_batch = b};
  s.overhead_s = roofline ? sc.rf.overhead_s : sc.cal.p[SCALE_SERVE_OVERHEAD_S];
  s.cost_model = roofline ? "roofline" : fitted ? "calibrated" : "calibrated-priors";
  s.tokens_per_s = r.throughput_tokens_per_s * s.copies;
  s.goodput_tokens_per_s = r.goodput_tokens_per_s * s.copies;
  s.cost_usd_per_million_tokens =
      scale_infer_cost_usd_per_million_tokens(chip->usd_per_hour, cfg->n_chips, s.tokens_per_s);
  if (as_json)
    print_stream_json(&s);
  else
    print_stream_text(&s);
  return CLI_EXIT_OK;
}

/* ---- the command line --------------------------------------------------------------------- */

enum {
  O_MODEL = 256,
  O_HW,
  O_CHIPS,
  O_BATCH,
  O_CONTEXT,
  O_PROMPT,
  O_DECODE,
  O_TP,
  O_2D,
  O_FFN,
  O_EP,
  O_KVSHARD,
  O_WEIGHTS,
  O_KV,
  O_COMPUTE,
  O_MFU,
  O_JSON,
  O_ROOFLINE,
  O_ISL,
  O_OSL,
  O_OFFLINE,
  O_RATE,
  O_REQUESTS,
  O_TTFT,
  O_TPOT,
  O_SEED,
  O_MAXBATCH,
  O_STEPTOK,
  O_BLOCK,
  O_OVERHEAD,
  O_SVG,
  O_DISAGG,
  O_KVFRAC,
  O_CONCURRENCY,
  O_LENGTHS,
  O_ENGINE_OVERHEAD,
  O_PREFILL_ALONE,
  O_PREFIX_HIT,
  O_SPEC_DRAFT,
  O_SPEC_TOKENS,
  O_SPEC_ACCEPT,
  O_KV_ALLOC,
  O_WARMUP,
  O_REQ_OVERHEAD,
  O_PRICE,
  O_PRICE_NAME,
  O_EMIT
};

static const struct option infer_options[] = {
    {"model", required_argument, NULL, O_MODEL},
    {"hw", required_argument, NULL, O_HW},
    {"chips", required_argument, NULL, O_CHIPS},
    {"batch", required_argument, NULL, O_BATCH},
    {"context", required_argument, NULL, O_CONTEXT},
    {"prompt", required_argument, NULL, O_PROMPT},
    {"decode-len", required_argument, NULL, O_DECODE},
    {"tp", required_argument, NULL, O_TP},
    {"2d", no_argument, NULL, O_2D},
    {"ffn", required_argument, NULL, O_FFN},
    {"ep", required_argument, NULL, O_EP},
    {"kv-sharding", required_argument, NULL, O_KVSHARD},
    {"weights", required_argument, NULL, O_WEIGHTS},
    {"kv", required_argument, NULL, O_KV},
    {"compute", required_argument, NULL, O_COMPUTE},
    {"mfu", required_argument, NULL, O_MFU},
    {"json", no_argument, NULL, O_JSON},
    {"roofline", no_argument, NULL, O_ROOFLINE},
    {"isl", required_argument, NULL, O_ISL},
    {"osl", required_argument, NULL, O_OSL},
    {"offline", no_argument, NULL, O_OFFLINE},
    {"rate", required_argument, NULL, O_RATE},
    {"requests", required_argument, NULL, O_REQUESTS},
    {"ttft", required_argument, NULL, O_TTFT},
    {"tpot", required_argument, NULL, O_TPOT},
    {"seed", required_argument, NULL, O_SEED},
    {"max-batch", required_argument, NULL, O_MAXBATCH},
    {"step-tokens", required_argument, NULL, O_STEPTOK},
    {"block", required_argument, NULL, O_BLOCK},
    {"overhead", required_argument, NULL, O_OVERHEAD},
    {"svg", required_argument, NULL, O_SVG},
    {"disagg", required_argument, NULL, O_DISAGG},
    {"kv-frac", required_argument, NULL, O_KVFRAC},
    {"concurrency", required_argument, NULL, O_CONCURRENCY},
    {"lengths", required_argument, NULL, O_LENGTHS},
    {"engine-overhead", required_argument, NULL, O_ENGINE_OVERHEAD},
    {"prefill-alone", no_argument, NULL, O_PREFILL_ALONE},
    {"prefix-hit", required_argument, NULL, O_PREFIX_HIT},
    {"spec-draft", required_argument, NULL, O_SPEC_DRAFT},
    {"spec-tokens", required_argument, NULL, O_SPEC_TOKENS},
    {"spec-accept", required_argument, NULL, O_SPEC_ACCEPT},
    {"kv-alloc", required_argument, NULL, O_KV_ALLOC},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"request-overhead", required_argument, NULL, O_REQ_OVERHEAD},
    {"usd-per-chip-hour", required_argument, NULL, O_PRICE},
    {"price", required_argument, NULL, O_PRICE_NAME},
    {"emit", required_argument, NULL, O_EMIT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The options of `scale infer`: the system and the fixed batch here, the stream's in 'so'. */
typedef struct {
  const char *model, *hw;     /* --model, --hw (NULL until given) */
  double chips, batch, context, prompt, decode, tp; /* NaN until given (decode: 512) */
  double ep, mfu;             /* --ep, --mfu */
  double price;               /* --usd-per-chip-hour, NaN: the hardware file's */
  const char *price_name;     /* --price PROVIDER:OFFER, NULL: none */
  scale_ffn_layout ffn;       /* --ffn (--2d: 2d) */
  bool json, roofline;        /* --json, --roofline */
  bool help;                  /* --help: usage printed, exit 0 */
  scale_kv_sharding kv_shard; /* --kv-sharding */
  scale_dtype wd, kd, cd;     /* --weights, --kv, --compute */
  cli_emit_fw emit;           /* --emit: the engine whose options to print (NONE: the report) */
  int argc;                   /* the command line, for --emit's reproduce comment */
  char **argv;
  serve_opts so;              /* the stream's options */
} infer_opts;

enum { NOT_MINE = -1 }; /* a take_* function's answer for another group's option */

static const unsigned count_flags = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER; /* a count */

/* Takes a system or fixed-batch option: 0, a usage error, or NOT_MINE. */
static int take_fixed(int opt, const char *arg, infer_opts *o) {
  bool ok = true;
  switch (opt) {
  case O_MODEL: o->model = arg; break;
  case O_HW: o->hw = arg; break;
  case O_CHIPS: ok = cli_parse_number("chips", arg, count_flags, &o->chips); break;
  case O_BATCH: ok = cli_parse_number("batch", arg, count_flags, &o->batch); break;
  case O_CONTEXT: ok = cli_parse_number("context", arg, count_flags, &o->context); break;
  case O_PROMPT:
    ok = cli_parse_number("prompt", arg, SCALE_NUM_NONNEG | SCALE_NUM_INTEGER, &o->prompt);
    break;
  case O_DECODE: ok = cli_parse_number("decode-len", arg, count_flags, &o->decode); break;
  case O_TP: ok = cli_parse_number("tp", arg, count_flags, &o->tp); break;
  case O_2D: o->ffn = SCALE_FFN_WS_2D; break;
  case O_FFN: {
    int l = 0;
    while (l < SCALE_FFN_COUNT && strcmp(arg, scale_ffn_layout_name((scale_ffn_layout)l)) != 0)
      l++;
    if (l == SCALE_FFN_COUNT)
      return cli_usage("--ffn: expected 1d, 2d, gathered or auto, got '%s'", arg);
    o->ffn = (scale_ffn_layout)l;
    break;
  }
  case O_EP: ok = cli_parse_number("ep", arg, count_flags, &o->ep); break;
  case O_KVSHARD:
    if (strcmp(arg, "full") == 0)
      o->kv_shard = SCALE_KV_SHARD_FULL;
    else if (strcmp(arg, "heads") == 0)
      o->kv_shard = SCALE_KV_SHARD_HEADS;
    else
      return cli_usage("--kv-sharding: expected full or heads, got '%s'", arg);
    break;
  case O_WEIGHTS: ok = cli_parse_dtype("weights", arg, &o->wd); break;
  case O_KV: ok = cli_parse_dtype("kv", arg, &o->kd); break;
  case O_COMPUTE: ok = cli_parse_dtype("compute", arg, &o->cd); break;
  case O_PRICE: return cli_parse_price(arg, &o->price);
  case O_PRICE_NAME: o->price_name = arg; return CLI_EXIT_OK;
  case O_MFU:
    if (!cli_parse_number("mfu", arg, SCALE_NUM_POSITIVE, &o->mfu)) return CLI_EXIT_USAGE;
    if (o->mfu > 1.0) return cli_usage("--mfu: must be in (0, 1], got '%s'", arg);
    break;
  case O_ROOFLINE: o->roofline = true; break;
  case O_JSON: o->json = true; break;
  case O_EMIT: return cli_emit_parse(arg, true, &o->emit);
  default: return NOT_MINE;
  }
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Takes an option of the stream's traffic: 0, a usage error, or NOT_MINE. */
static int take_traffic(int opt, const char *arg, serve_opts *so) {
  bool ok = true;
  switch (opt) {
  case O_ISL: ok = parse_lengths("isl", arg, &so->isl); break;
  case O_OSL: ok = parse_lengths("osl", arg, &so->osl); break;
  case O_OFFLINE: so->offline = true; break;
  case O_RATE: ok = cli_parse_number("rate", arg, SCALE_NUM_POSITIVE, &so->rate); break;
  case O_REQUESTS: ok = cli_parse_number("requests", arg, count_flags, &so->requests); break;
  case O_TTFT: ok = cli_parse_number("ttft", arg, SCALE_NUM_POSITIVE, &so->ttft); break;
  case O_TPOT: ok = cli_parse_number("tpot", arg, SCALE_NUM_POSITIVE, &so->tpot); break;
  case O_SEED:
    ok = cli_parse_number("seed", arg, SCALE_NUM_NONNEG | SCALE_NUM_INTEGER, &so->seed);
    break;
  case O_CONCURRENCY:
    if (!cli_parse_number("concurrency", arg, count_flags, &so->concurrency)) return CLI_EXIT_USAGE;
    if (so->concurrency > 1e6)
      return cli_usage("--concurrency: at most 1e6 clients, got '%s'", arg);
    break;
  case O_LENGTHS: so->lengths = arg; break;
  default: return NOT_MINE;
  }
  so->any = true;
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* A share in [0, 1] ((0, 1] without 'zero_ok') of option 'name': 0 or a usage error. */
static int parse_share(const char *name, const char *arg, bool zero_ok, double *out) {
  if (!cli_parse_number(name, arg, zero_ok ? SCALE_NUM_NONNEG : SCALE_NUM_POSITIVE, out))
    return CLI_EXIT_USAGE;
  if (*out > 1.0)
    return cli_usage("--%s: must be in %s, 1], got '%s'", name, zero_ok ? "[0" : "(0", arg);
  return CLI_EXIT_OK;
}

/* Takes an option of the serving engine or its output: 0, a usage error, or NOT_MINE. */
static int take_engine(int opt, const char *arg, serve_opts *so) {
  bool ok = true;
  switch (opt) {
  case O_MAXBATCH: ok = cli_parse_number("max-batch", arg, count_flags, &so->max_batch); break;
  case O_STEPTOK: ok = cli_parse_number("step-tokens", arg, count_flags, &so->step_tokens); break;
  case O_BLOCK: ok = cli_parse_number("block", arg, count_flags, &so->block); break;
  case O_OVERHEAD:
    ok = cli_parse_number("overhead", arg, SCALE_NUM_NONNEG, &so->overhead);
    break;
  case O_SVG: so->svg = arg; break;
  case O_KVFRAC: ok = !parse_share("kv-frac", arg, false, &so->kv_frac); break;
  case O_PREFILL_ALONE: so->prefill_alone = true; break;
  case O_PREFIX_HIT: ok = !parse_share("prefix-hit", arg, true, &so->prefix_hit); break;
  case O_SPEC_DRAFT: so->spec_draft = arg; break;
  case O_REQ_OVERHEAD:
    ok = cli_parse_number("request-overhead", arg, SCALE_NUM_NONNEG, &so->request_overhead);
    if (ok && so->request_overhead > 10.0)
      return cli_usage("--request-overhead: at most 10 s, got '%s'", arg);
    break;
  case O_WARMUP:
    ok = cli_parse_number("warmup", arg, SCALE_NUM_NONNEG | SCALE_NUM_INTEGER, &so->warmup);
    break;
  case O_KV_ALLOC:
    if (strcmp(arg, "on-demand") != 0 && strcmp(arg, "reserve") != 0)
      return cli_usage("--kv-alloc: expected reserve or on-demand, got '%s'", arg);
    so->kv_on_demand = strcmp(arg, "on-demand") == 0;
    break;
  case O_SPEC_TOKENS:
    if (!cli_parse_number("spec-tokens", arg, count_flags, &so->spec_tokens))
      return CLI_EXIT_USAGE;
    if (so->spec_tokens > 64) return cli_usage("--spec-tokens: at most 64, got '%s'", arg);
    break;
  case O_SPEC_ACCEPT: ok = !parse_share("spec-accept", arg, true, &so->spec_accept); break;
  case O_ENGINE_OVERHEAD:
    if (!cli_parse_number("engine-overhead", arg, SCALE_NUM_NONNEG, &so->engine_overhead))
      return CLI_EXIT_USAGE;
    if (so->engine_overhead > 1.0)
      return cli_usage("--engine-overhead: at most 1 s a step, got '%s'", arg);
    break;
  case O_DISAGG: {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", arg);
    char *colon = strchr(buf, ':');
    if (!colon) return cli_usage("--disagg: expected P:D (copies), got '%s'", arg);
    *colon = '\0';
    ok = cli_parse_number("disagg", buf, count_flags, &so->disagg_p) &&
         cli_parse_number("disagg", colon + 1, count_flags, &so->disagg_d);
    break;
  }
  default: return NOT_MINE;
  }
  so->any = true;
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Reads the command line into 'o' and checks what every mode needs: 0 or a usage error. */
static int parse(int argc, char **argv, infer_opts *o) {
  memset(o, 0, sizeof *o);
  o->chips = o->batch = o->context = o->prompt = o->tp = NAN;
  o->decode = 512.0;
  o->ep = 1.0;
  o->mfu = 0.4;
  o->price = NAN;
  o->kv_shard = SCALE_KV_SHARD_FULL;
  o->wd = o->kd = o->cd = SCALE_DTYPE_BF16;
  serve_opts_default(&o->so);
  cli_getopt_reset();
  int opt;
  while ((opt = getopt_long(argc, argv, "+h", infer_options, NULL)) != -1) {
    if (opt == 'h') {
      o->help = true;
      return CLI_EXIT_OK;
    }
    int rc = take_fixed(opt, optarg, o);
    if (rc == NOT_MINE) rc = take_traffic(opt, optarg, &o->so);
    if (rc == NOT_MINE) rc = take_engine(opt, optarg, &o->so);
    if (rc == NOT_MINE) return cli_bad_option("infer", argv);
    if (rc) return rc;
  }
  if (optind < argc) return cli_usage("infer: unexpected argument '%s'", argv[optind]);
  if (!o->model) return cli_usage("infer: missing --model (try: scale infer --help)");
  if (!o->hw) return cli_usage("infer: missing --hw (try: scale infer --help)");
  if (isnan(o->chips)) return cli_usage("infer: missing --chips (try: scale infer --help)");
  o->so.any |= o->so.offline || !isnan(o->so.rate) || !isnan(o->so.concurrency);
  o->argc = argc;
  o->argv = argv;
  if (o->emit && o->json) return cli_usage("infer: --emit prints an engine's options, not JSON");
  if (o->so.disagg_p > 0 && isnan(o->so.rate))
    return cli_usage("infer: --disagg needs --rate (two pools fed by one Poisson stream)");
  return CLI_EXIT_OK;
}

/* The serving configuration of the options for 'batch' sequences of 'context' tokens. */
static scale_infer_config config_of(const infer_opts *o, double batch, double context) {
  scale_infer_config cfg = scale_infer_config_default(o->chips, batch, context);
  cfg.tp = isnan(o->tp) ? o->chips : o->tp;
  cfg.ffn_layout = o->ffn;
  cfg.ep = o->ep;
  cfg.kv_sharding = o->kv_shard;
  cfg.weight_dtype = o->wd;
  cfg.kv_dtype = o->kd;
  cfg.compute_dtype = o->cd;
  cfg.mfu_frac = o->mfu;
  return cfg;
}

/* A request stream (--offline, --rate or --concurrency) simulated on the engine. */
/* The text report's last line when the price is the user's, so that its costs say whose. */
static void print_price(const infer_opts *o, const scale_chip *chip, const char *from, int rc) {
  char usd[32];
  if (rc == CLI_EXIT_OK && !o->json && (!isnan(o->price) || o->price_name))
    printf("costs at %s a chip-hour (%s)\n",
           scale_format(usd, sizeof usd, chip->usd_per_hour, "", SCALE_FMT_USD), from);
}

/* --emit of a stream: the engine's options for its copies, batch cap and token budget. */
static int emit_stream(const infer_opts *o, const scale_model *m, const scale_chip *chip,
                       scale_infer_config *cfg) {
  const serve_opts *so = &o->so;
  if (so->disagg_p > 0 || so->spec_draft)
    return cli_usage("infer: --emit writes one aggregated engine: not --disagg or --spec-draft");
  int rc = stream_check(m, chip, cfg, so);
  if (rc) return rc;
  char line[2048];
  cli_emit_serve_job job = {m, chip, cfg->n_chips, cfg->tp, cfg->ep, cfg->weight_dtype,
                            cfg->kv_dtype, so->max_batch, fmax(so->step_tokens, so->max_batch),
                            so->isl.max_tokens + so->osl.max_tokens, so->block, so->kv_frac,
                            !so->prefill_alone, cfg->ffn_layout == SCALE_FFN_WS_2D,
                            cli_emit_command_line(o->argc, o->argv, "infer", line, sizeof line)};
  return cli_emit_serve(stdout, o->emit, &job);
}

static int stream_infer(const infer_opts *o) {
  const serve_opts *so = &o->so;
  int modes = (int)so->offline + (int)!isnan(so->rate) + (int)!isnan(so->concurrency);
  if (modes > 1) return cli_usage("infer: --offline, --rate and --concurrency exclude each other");
  if (modes == 0)
    return cli_usage("infer: the stream options need --offline, --rate QPS or --concurrency C");
  if (!isnan(o->batch) || !isnan(o->context) || !isnan(o->prompt))
    return cli_usage("infer: --batch, --context and --prompt describe a fixed batch; a stream "
                     "(--offline, --rate) takes --isl, --osl and --max-batch");
  scale_model m;
  scale_chip chip;
  int rc;
  if ((rc = cli_load_model(o->model, &m)) || (rc = cli_load_chip(o->hw, &chip))) return rc;
  const char *price_from;
  if ((rc = cli_apply_price(&chip, o->price, o->price_name, &price_from))) return rc;
  scale_infer_config cfg = config_of(o, 1, 1);
  if (o->emit) return emit_stream(o, &m, &chip, &cfg);
  rc = serve_cmd(&m, &chip, &cfg, so, o->json, o->roofline);
  print_price(o, &chip, price_from, rc);
  return rc;
}

/* --emit of a fixed batch: each copy's share of it as the engine's batch cap, one prompt (or the
 * batch's decode tokens) as its token budget; when it fits. */
static int emit_fixed(const infer_opts *o, const scale_model *m, const scale_chip *chip,
                      const scale_infer_config *c, const scale_infer_memory *mem) {
  if (!mem->fits)
    return cli_fail("infer: batch %g does not fit in HBM (largest: %g): nothing emitted",
                    c->batch, mem->max_batch);
  char line[2048];
  double per_copy = c->batch * c->tp / c->n_chips;
  cli_emit_serve_job job = {m, chip, c->n_chips, c->tp, c->ep, c->weight_dtype, c->kv_dtype,
                            per_copy, fmax(c->prompt, per_copy), c->context, 0, 0.9, true,
                            c->ffn_layout == SCALE_FFN_WS_2D,
                            cli_emit_command_line(o->argc, o->argv, "infer", line, sizeof line)};
  return cli_emit_serve(stdout, o->emit, &job);
}

/* A fixed batch: memory, prefill and decode by the book's formulas, priced by the serving cost. */
static int fixed_infer(const infer_opts *o) {
  if (isnan(o->batch)) return cli_usage("infer: missing --batch (try: scale infer --help)");
  if (isnan(o->context)) return cli_usage("infer: missing --context (try: scale infer --help)");
  scale_model model;
  scale_chip chip;
  int rc;
  if ((rc = cli_load_model(o->model, &model)) || (rc = cli_load_chip(o->hw, &chip))) return rc;
  const char *price_from;
  if ((rc = cli_apply_price(&chip, o->price, o->price_name, &price_from))) return rc;
  scale_infer_config cfg = config_of(o, o->batch, o->context);
  cfg.prompt = isnan(o->prompt) ? o->context : o->prompt;
  cfg.decode_len = o->decode;
  scale_diag diag;
  if (scale_infer_validate(&model, &chip, &cfg, &diag)) return cli_usage("infer: %s", diag.message);

  scale_infer_memory mem = scale_infer_memory_eval(&model, &chip, &cfg);
  scale_infer_prefill pre = scale_infer_prefill_eval(&model, &chip, &cfg);
  scale_infer_decode dec = scale_infer_decode_eval(&model, &chip, &cfg);
  const char *what = !isfinite(mem.total_bytes_per_chip) ? "memory per chip"
                     : !isfinite(pre.time_s)             ? "prefill time"
                     : !isfinite(dec.step_s)             ? "decode step time"
                                                         : NULL;
  if (what) /* unreachable with in-range data and options; names the suspects if not */
    return cli_fail("infer: the %s is not finite for --chips %g --batch %g --context %g on %s",
                    what, o->chips, o->batch, o->context, chip.name);

  prediction pr;
  if (!predict(&model, &chip, &cfg, &pre, o->roofline, &pr)) return CLI_EXIT_USAGE;
  if (o->emit) return emit_fixed(o, &model, &chip, &cfg, &mem);
  if (o->json) {
    print_json(&model, &chip, &cfg, &mem, &pre, &dec, &pr);
  } else {
    if (!mem.fits) /* the verdict first, before any throughput figure */
      printf("does not fit: batch %g needs %.3g of %.3g bytes of HBM per chip (largest batch "
             "that fits: %g); the figures below are for a batch that cannot run\n",
             cfg.batch, mem.total_bytes_per_chip, mem.hbm_bytes_per_chip, mem.max_batch);
    print_text(&model, &chip, &cfg, &mem, &pre, &dec, &pr);
  }
  print_price(o, &chip, price_from, CLI_EXIT_OK);
  if (!mem.fits)
    return cli_fail("infer: batch %g does not fit in HBM (%.3g of %.3g bytes per chip); the "
                    "largest batch that fits is %g",
                    cfg.batch, mem.total_bytes_per_chip, mem.hbm_bytes_per_chip, mem.max_batch);
  return CLI_EXIT_OK;
}

int cli_cmd_infer(int argc, char **argv) {
  infer_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  return o.so.any ? stream_infer(&o) : fixed_infer(&o);
}
