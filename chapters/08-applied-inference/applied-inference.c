/* applied-inference.c — chapter 8, "Serving LLaMA 3 70B on TPUs", as a program.
 *
 * Serves one model (default LLaMA 3 70B) on one chip (default TPU v5e): cost per FLOP of the
 * candidate hardware, KV cache sizes, the memory and step time of a batch, the critical batches,
 * the smallest slice per dtype with its batch, latency and queries per second, model
 * parallelism limits, prefill, KV eviction, the prefill:generate ratio of disaggregated serving,
 * the latency/throughput frontier with cost per million tokens, the same model on H100 GPUs, and
 * the chapter's worked problems. Every number the chapter text cites is emitted with --values;
 * --figures DIR draws
 *   frontier.svg         throughput per chip against per-token latency, one line per context
 *   step-breakdown.svg   decode step time and its parts against batch, critical batch marked
 *   serving-load.svg     TPOT and TTFT against throughput under a Poisson stream (simulator)
 *   batching-timeline.svg  six requests on one H100, step by step (the simulator's trace)
 *
 * Options change the model, chip, GPU, batch, context and decode length of the worked serving
 * example (defaults: the book's LLaMA 3 70B, TPU v5e, H100 SXM, batch 32, 8192 tokens, 512).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"
#include "scale/inferplot.h"
#include "scale/servecal.h"
#include "scale/serveload.h"

#define MAX_BATCH 1024
#define N_CONTEXTS 6

/** The serving example shared by the sections. */
typedef struct {
  const scale_model *m;
  const scale_chip *chip;
  double n_params;  /**< total parameters */
  double batch;     /**< sequences of the worked example */
  double context;   /**< KV tokens per sequence */
  double decode;    /**< median generated tokens per request */
} serving;

/** The book's step of the example's model on n chips of its chip at its context. */
static double book_step(const serving *s, double n, double batch, scale_dtype dtype) {
  return scale_infer_book_step_s(s->m, s->chip, n, batch, dtype, s->context);
}

/** Storage of the figure being drawn. */
static scale_inferplot fig;

/** Emits a library table under 'stem', a row a value. */
/* ---- sections ------------------------------------------------------------------------------- */

static void section_model(chapter *ch, const serving *s) {
  chapter_heading(ch, "The model");
  const scale_model *m = s->m;
  chapter_model_dims(ch, "m", m, false);
  CHAPTER_VALUES(ch, "m",
      {"params", "parameters", s->n_params, "", SCALE_FMT_SCI},
      CHAPTER_V("n_ctx_max", "trained context", (double)m->n_ctx_max, "tokens"));
}

static void section_hardware(chapter *ch, const scale_chip *const chips[], int n) {
  chapter_heading(ch, "Which hardware: FLOPs per dollar");
  for (int i = 0; i < n; i++) {
    const scale_chip *c = chips[i];
    double f = scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
    char stem[SCALE_NAME_MAX + 8];
    snprintf(stem, sizeof stem, "hw.%s", c->name);
    CHAPTER_VALUES(ch, stem,
      CHAPTER_V("flops_per_s", "bf16 FLOP/s", f, "FLOP/s"),
      CHAPTER_V("usd_per_hour", "price per chip-hour", c->usd_per_hour, "USD/h"),
      {"flops_per_usd", "FLOPs per dollar", f * 3600.0 / c->usd_per_hour, "FLOP/$", SCALE_FMT_SCI});
  }
}

static void section_kv(chapter *ch, const serving *s) {
  chapter_heading(ch, "KV cache size");
  const double long_ctx = 32768, big_batch = 240;
  double tok = scale_transformer_kv_bytes_per_token(s->m, SCALE_DTYPE_INT8);
  double seq = scale_transformer_kv_bytes(s->m, long_ctx, SCALE_DTYPE_INT8);
  CHAPTER_VALUES(ch, "kv",
      {"per_token", "int8 KV per token", tok, "B", SCALE_FMT_PLAIN},
      CHAPTER_V("long_context", "long context", long_ctx, "tokens"),
      CHAPTER_V("seq", "one long sequence", seq, "B"),
      CHAPTER_V("batch", "batch", big_batch, ""),
      CHAPTER_V("batch_bytes", "KV of the batch", big_batch * seq, "B"));
  double weights = s->n_params * scale_dtype_bytes(SCALE_DTYPE_INT8);
  chapter_value(ch, "kv.chips", "chips to hold weights and caches",
                scale_infer_chips_needed(weights + big_batch * seq, s->chip->hbm_bytes), "",
                SCALE_FMT_PLAIN);
}

static void section_batch(chapter *ch, const serving *s) {
  chapter_heading(ch, "A batch in int8 on the smallest slice");
  double kv_seq = scale_transformer_kv_bytes(s->m, s->context, SCALE_DTYPE_INT8);
  double weights = s->n_params * scale_dtype_bytes(SCALE_DTYPE_INT8);
  double total = s->batch * kv_seq + weights;
  double slice = scale_infer_min_slice_chips(total, s->chip->hbm_bytes);
  /* The library's view of that slice: activations included, collectives modelled. */
  scale_infer_config cfg =
      scale_infer_config_generate(slice, s->batch, s->context, SCALE_DTYPE_INT8);
  scale_infer_memory mem = scale_infer_memory_eval(s->m, s->chip, &cfg);
  scale_infer_decode dec = scale_infer_decode_eval(s->m, s->chip, &cfg);
  double step = book_step(s, slice, s->batch, SCALE_DTYPE_INT8);
  double step2 = book_step(s, 2 * slice, s->batch, SCALE_DTYPE_INT8);
  double alpha = scale_chip_ici_intensity(s->chip, SCALE_DTYPE_BF16);
  CHAPTER_VALUES(ch, "b",
      CHAPTER_V("batch", "batch", s->batch, ""),
      CHAPTER_V("context", "context", s->context, "tokens"),
      CHAPTER_V("kv_bytes", "KV caches", s->batch * kv_seq, "B"),
      CHAPTER_V("weight_bytes", "int8 weights", weights, "B"),
      CHAPTER_V("total_bytes", "total", total, "B"),
      CHAPTER_V("chips_needed", "chips' worth of HBM",
          scale_infer_chips_needed(total, s->chip->hbm_bytes), ""),
      CHAPTER_V("slice", "smallest power-of-two slice", slice, "chips"),
      CHAPTER_V("mem_per_chip", "memory per chip, activations included", mem.total_bytes_per_chip,
          "B"),
      CHAPTER_V("hbm_per_chip", "HBM per chip", s->chip->hbm_bytes, "B"),
      CHAPTER_V("step_s", "step (book formula)", step, "s"),
      CHAPTER_V("tokens_per_s", "tokens/s", s->batch / step, "tokens/s"),
      CHAPTER_V("tokens_per_s_per_chip", "tokens/s per chip", s->batch / step / slice, "tokens/s"),
      CHAPTER_V("eval_step_s", "step (library, with collectives)", dec.step_s, "s"),
      CHAPTER_V("eval_t_ici_s", "collectives (hidden)", dec.t_ici_s, "s"),
      CHAPTER_V("eval_t_params_s", "weight reads", dec.t_params_s, "s"),
      CHAPTER_V("cost_per_m", "cost per million tokens", dec.cost_usd_per_million_tokens, "USD"),
      CHAPTER_V("alpha", "C / W_ici", alpha, "FLOP/byte"),
      CHAPTER_V("max_tp", "ICI-bound above (two axes)",
          scale_infer_max_tp_compute_bound((double)s->m->d_ff, 2, alpha), ""),
      CHAPTER_V("max_tp_2550", "same with alpha = 2550",
          scale_infer_max_tp_compute_bound((double)s->m->d_ff, 2, 2550), ""),
      CHAPTER_V("chips2", "twice the slice", 2 * slice, "chips"),
      CHAPTER_V("step2_s", "step on twice the chips", step2, "s"),
      CHAPTER_V("tokens_per_s_per_chip2", "tokens/s per chip there", s->batch / step2 / (2 * slice),
          "tokens/s"));
}

static void section_critical(chapter *ch, const scale_chip *c) {
  chapter_heading(ch, "Critical batches");
  static const char *const labels[3] = {"bf16 x bf16", "int8 weights, bf16 FLOPs", "int8 x int8"};
  chapter_critical_batches(ch, c, labels);
}

static const scale_dtype slice_dtypes[] = {SCALE_DTYPE_BF16, SCALE_DTYPE_INT8, SCALE_DTYPE_INT4};
#define N_DTYPES 3

/** The smallest-slice table, the step at full HBM, QPS per chip, and twice the slice. */
static void section_slices(chapter *ch, const serving *s) {
  chapter_heading(ch, "Smallest slice per dtype");
  for (int i = 0; i < N_DTYPES; i++) {
    scale_dtype d = slice_dtypes[i];
    chapter_say(ch, "%s:", scale_dtype_name(d));
    scale_infer_served_slice sl = scale_infer_slice_served(s->m, s->chip, d, s->context, NAN,
                                                           s->decode);
    /* Twice the chips: the weights take half the share, the rest goes to caches. */
    scale_infer_served_slice sl2 = scale_infer_slice_served(s->m, s->chip, d, s->context,
                                                            2 * sl.slice.slice_chips, s->decode);
    scale_infer_table t;
    char stem[32];
    scale_infer_slice_table(&sl, true, &t);
    snprintf(stem, sizeof stem, "slice.%s", scale_dtype_name(d));
    chapter_quantities(ch, stem, t.row, t.n, false);
    scale_infer_slice_table(&sl2, false, &t);
    snprintf(stem, sizeof stem, "slice2.%s", scale_dtype_name(d));
    chapter_quantities(ch, stem, t.row, t.n, false);
  }
  /* With the book's round 70e9 parameters every dtype holds the same number of sequences:
   * weights and caches scale together. */
  double kv16 = scale_transformer_kv_bytes(s->m, s->context, SCALE_DTYPE_BF16);
  chapter_value(ch, "slice.max_batch_70e9", "sequences with 70e9 parameters (any dtype)",
                scale_infer_max_batch(16 * s->chip->hbm_bytes - 2 * 70e9, kv16), "",
                SCALE_FMT_PLAIN);
  /* Full HBM: the step reads one chip's whole memory. */
  double full = scale_infer_min_step_time_s(0, 0, s->chip->hbm_bytes, s->chip->hbm_bytes_per_s);
  scale_infer_slice s4 = scale_infer_smallest_slice(s->m, s->chip, SCALE_DTYPE_INT4, s->context);
  CHAPTER_VALUES(ch, "hbm",
      CHAPTER_V("step_s", "reading one full HBM", full, "s"),
      CHAPTER_V("decode_len", "median decode length", s->decode, "tokens"),
      CHAPTER_V("request_s", "one request's decode at that pace", full * s->decode, "s"),
      CHAPTER_V("int4_params_s", "int4 weights alone on their slice",
          scale_infer_min_step_time_s(0, 0, s4.weight_bytes,
                                      s4.slice_chips * s->chip->hbm_bytes_per_s), "s"));
}

static void section_sharding(chapter *ch, const serving *s) {
  chapter_heading(ch, "Model parallelism on a 4x8 in bf16");
  const double batch = 64, n = 32;
  double d = (double)s->m->d_model, f = (double)s->m->d_ff;
  double beta = scale_infer_beta(s->chip);
  double w_ici = 2.0 * s->chip->ici_link_bytes_per_s; /* bidirectional, the book's W_ici */
  CHAPTER_VALUES(ch, "shard",
      CHAPTER_V("batch", "batch", batch, ""),
      CHAPTER_V("chips", "chips", n, ""),
      CHAPTER_V("max_tp_book", "F / (8 B)", scale_infer_max_tp_memory_bound(f, batch, 8), ""),
      CHAPTER_V("beta", "beta", beta, ""),
      CHAPTER_V("max_tp", "F / (B beta)", scale_infer_max_tp_memory_bound(f, batch, beta), ""),
      CHAPTER_V("w_ici", "W_ici (both directions)", w_ici, "B/s"),
      CHAPTER_V("t_ici_s", "T_ici = 2BD / W_ici",
          scale_infer_ws1d_comms_s(batch, d, scale_dtype_bytes(SCALE_DTYPE_BF16), 2, w_ici), "s"),
      CHAPTER_V("t_hbm_s", "T_hbm = 2DF / (Y W_hbm)",
          scale_infer_min_step_time_s(0, 0, 2 * d * f, n * s->chip->hbm_bytes_per_s), "s"),
      CHAPTER_V("t_math_s", "T_math = 2BDF / (Y C)",
          2 * batch * d * f / (n * scale_chip_flops_per_s(s->chip, SCALE_DTYPE_BF16)), "s"));
}

static void section_prefill(chapter *ch, const serving *s) {
  chapter_heading(ch, "Prefill, eviction, disaggregation");
  const double n = 16, mfu = 0.4;
  double f = n * scale_chip_flops_per_s(s->chip, SCALE_DTYPE_BF16);
  double t = scale_infer_prefill_time_s(s->n_params, s->context, f, mfu);
  scale_infer_config cfg = scale_infer_config_default(n, 1, s->context);
  cfg.mfu_frac = mfu;
  scale_infer_prefill p = scale_infer_prefill_eval(s->m, s->chip, &cfg);
  CHAPTER_VALUES(ch, "pre",
      CHAPTER_V("chips", "chips", n, ""),
      CHAPTER_V("mfu_pct", "MFU", 100 * mfu, "%"),
      CHAPTER_V("s", "prefill, 2 x params FLOPs per token", t, "s"),
      CHAPTER_V("eval_s", "prefill with attention FLOPs", p.time_s, "s"),
      CHAPTER_V("attn_pct", "attention share of the FLOPs", 100 * p.attention_flops_frac, "%"),
      CHAPTER_V("kv_bytes", "bf16 KV the prefill writes", p.kv_bytes, "B"));
  /* Eviction with a 4096-token median decode. */
  const double g_long = 4096;
  CHAPTER_VALUES(ch, "evict",
      CHAPTER_V("decode", "median decode", g_long, "tokens"),
      CHAPTER_V("seqs_per_step", "sequences finishing per step", s->batch / g_long, ""),
      CHAPTER_V("tokens_per_step", "KV tokens evicted per step",
          scale_infer_kv_evicted_per_step(s->batch, s->context, g_long), "tokens"));
  /* Disaggregation: prefills of 'context' tokens feed generate servers in bf16 on the smallest
   * bf16 slice at its full batch. */
  scale_infer_slice sl = scale_infer_smallest_slice(s->m, s->chip, SCALE_DTYPE_BF16, s->context);
  double step = book_step(s, sl.slice_chips, sl.max_batch, SCALE_DTYPE_BF16);
  CHAPTER_VALUES(ch, "dis",
      CHAPTER_V("ratio", "prefill servers per generate server, full batch",
          scale_infer_disaggregation_ratio(t, sl.max_batch, step, s->decode), ""),
      CHAPTER_V("ratio_b", "same with the example batch",
          scale_infer_disaggregation_ratio(t, s->batch, step, s->decode), ""));
}

static const double contexts[N_CONTEXTS] = {2048, 4096, 8192, 16384, 32768, 65536};

/** The shortest context's frontier in detail: its two ends, and batch 120 against the book's
 * formula. */
static void frontier_detail(chapter *ch, const serving *s, double n,
                            const scale_infer_frontiers *f, scale_infer_config cfg) {
  scale_infer_table t;
  scale_infer_frontier_ends_table(f, 0, &t);
  chapter_quantities(ch, "front", t.row, t.n, false);
  cfg.context = contexts[0];
  cfg.batch = 120;
  scale_infer_decode d120 = scale_infer_decode_eval(s->m, s->chip, &cfg);
  double book = scale_infer_book_step_s(s->m, s->chip, n, 120, SCALE_DTYPE_INT8, contexts[0]);
  CHAPTER_VALUES(ch, "front",
      CHAPTER_V("tput_b120", "throughput per chip at batch 120",
          f->point[0][119].tokens_per_s_per_chip, "tokens/s"),
      CHAPTER_V("tput_b120_book", "same with the book's formula (no ICI)", 120 / book / n,
          "tokens/s"),
      CHAPTER_V("b120_t_ici_s", "collectives at batch 120", d120.t_ici_s, "s"),
      CHAPTER_V("b120_t_params_s", "weight reads at batch 120", d120.t_params_s, "s"));
}

/** Frontier of 'n' chips, int8 weights and KV, bf16 FLOPs, for each context. */
static void frontier(chapter *ch, const serving *s, double n) {
  static scale_infer_frontiers f;
  scale_infer_config cfg = scale_infer_config_generate(n, 1, 2048, SCALE_DTYPE_INT8);
  chapter_heading(ch, "Latency/throughput frontier");
  chapter_value(ch, "front.chips", "chips", n, "", SCALE_FMT_PLAIN);
  if (!scale_infer_frontiers_eval(s->m, s->chip, &cfg, contexts, N_CONTEXTS, MAX_BATCH, &f)) {
    chapter_error(ch, "frontier: invalid configuration");
    return;
  }
  for (int k = 0; k < N_CONTEXTS; k++) {
    scale_infer_table t;
    char stem[32];
    scale_infer_frontier_table(&f, k, &t);
    snprintf(stem, sizeof stem, "front.s%.0f", contexts[k]);
    chapter_quantities(ch, stem, t.row, t.n, false);
    if (k == 0) frontier_detail(ch, s, n, &f, cfg);
  }
  double kv_tok = scale_transformer_kv_bytes_per_token(s->m, SCALE_DTYPE_INT8);
  CHAPTER_VALUES(ch, "front",
      CHAPTER_V("max_step_s", "slowest step on the frontier", f.worst_step_s, "s"),
      {"kv_flops_context", "KV reads exceed FLOPs above",
       scale_infer_kv_dominates_flops_context(s->n_params, kv_tok,
                                              scale_chip_flops_per_s(s->chip, SCALE_DTYPE_BF16),
                                              s->chip->hbm_bytes_per_s),
       "tokens", SCALE_FMT_PLAIN});
  scale_diag d = {0};
  if (chapter_status_ok(ch, scale_inferplot_frontier(&f, s->m, s->chip, n, &fig, &d), &d))
    chapter_figure(ch, "frontier.svg", &fig.plot);
}

static void figure_breakdown(chapter *ch, const serving *s, double n) {
  scale_infer_config cfg = scale_infer_config_generate(n, 1, s->context, SCALE_DTYPE_INT8);
  scale_diag d = {0};
  if (chapter_status_ok(ch, scale_inferplot_step_breakdown(s->m, s->chip, &cfg, &fig, &d), &d))
    chapter_figure(ch, "step-breakdown.svg", &fig.plot);
}

/** The model on GPUs: fp8 weights, KV and arithmetic on one NVLink node. */
static void section_gpu(chapter *ch, const serving *s, const scale_chip *gpu) {
  chapter_heading(ch, "The same model on GPUs");
  const scale_dtype d = SCALE_DTYPE_FP8;
  double n = gpu->nvlink_domain_size > 0 ? gpu->nvlink_domain_size : 8;
  CHAPTER_VALUES(ch, "gpu",
      CHAPTER_V("chips", "GPUs in one NVLink domain", n, ""),
      CHAPTER_V("hbm_bytes", "HBM per GPU", gpu->hbm_bytes, "B"),
      CHAPTER_V("hbm_bytes_per_s", "HBM bandwidth per GPU", gpu->hbm_bytes_per_s, "B/s"),
      CHAPTER_V("bcrit_fp8", "critical batch, fp8 x fp8", scale_roofline_critical_batch(gpu, d, d),
          "tokens"),
      CHAPTER_V("bcrit_int8w", "critical batch, 8-bit weights, bf16 FLOPs",
          scale_roofline_critical_batch(gpu, d, SCALE_DTYPE_BF16), "tokens"));
  scale_infer_slice sl = scale_infer_smallest_slice(s->m, gpu, d, s->context);
  scale_infer_slice sl16 = scale_infer_smallest_slice(s->m, gpu, SCALE_DTYPE_BF16, s->context);
  scale_infer_config cfg = scale_infer_config_generate(n, s->batch, s->context, d);
  cfg.compute_dtype = d;
  scale_infer_decode dec = scale_infer_decode_eval(s->m, gpu, &cfg);
  scale_infer_memory mem;
  scale_infer_decode full = scale_infer_decode_at_max_batch(s->m, gpu, &cfg, &mem);
  /* The TPU counterpart: 16 chips, int8, largest batch. */
  scale_infer_config tcfg = scale_infer_config_generate(16, 1, s->context, SCALE_DTYPE_INT8);
  scale_infer_memory tmem;
  scale_infer_decode tdec = scale_infer_decode_at_max_batch(s->m, s->chip, &tcfg, &tmem);
  CHAPTER_VALUES(ch, "gpu",
      CHAPTER_V("slice_fp8", "smallest slice, fp8", sl.slice_chips, "GPUs"),
      CHAPTER_V("slice_bf16", "smallest slice, bf16", sl16.slice_chips, "GPUs"),
      CHAPTER_V("step_s", "step at the example batch", dec.step_s, "s"),
      CHAPTER_V("tput", "tokens/s per GPU", dec.tokens_per_s_per_chip, "tokens/s"),
      CHAPTER_V("cost", "cost per million tokens", dec.cost_usd_per_million_tokens, "USD"),
      CHAPTER_V("max_batch", "largest batch that fits", mem.max_batch, ""),
      CHAPTER_V("full_step_s", "step at the largest batch", full.step_s, "s"),
      CHAPTER_V("full_tput", "tokens/s per GPU there", full.tokens_per_s_per_chip, "tokens/s"),
      CHAPTER_V("full_cost", "cost per million tokens there", full.cost_usd_per_million_tokens,
          "USD"),
      CHAPTER_V("tpu_max_batch", "TPU 4x4 int8: largest batch", tmem.max_batch, ""),
      CHAPTER_V("tpu_step_s", "its step", tdec.step_s, "s"),
      CHAPTER_V("tpu_cost", "its cost per million tokens", tdec.cost_usd_per_million_tokens,
          "USD"));
}

/* [listing:plan-serving] */
/** Runs the serving planner on the example's model and chip for a P-token prompt and G
 * generated tokens within 'latency' per token, restricted to the given weight and KV dtypes
 * (NULL: bf16 and int8). */
static bool plan_serving(chapter *ch, const serving *s, double prompt, double latency,
                         const scale_dtype *only, scale_plan_infer_report *rep) {
  scale_plan_infer_opts o = scale_plan_infer_opts_default(prompt, s->decode);
  o.max_step_s = latency;
  o.objective = SCALE_PLAN_INFER_COST;
  if (only) scale_plan_infer_opts_only_dtype(&o, *only);
  scale_diag diag;
  if (scale_plan_infer(s->m, s->chip, &o, rep, &diag) != SCALE_OK || rep->n_ranked == 0) {
    chapter_error(ch, "plan infer: %s", rep->n_ranked ? diag.message : "nothing fits");
    return false;
  }
  return true;
}
/* [/listing:plan-serving] */

/** Emits the best serving layout of a search under stem: slice, dtypes, batch, step, cost. */
static void emit_plan_best(chapter *ch, const char *stem, const scale_plan_infer_report *rep) {
  const scale_plan_infer_entry *e = &rep->ranked[0];
  CHAPTER_VALUES(ch, stem,
      CHAPTER_V("chips", "best: chips in the slice", e->config.n_chips, ""),
      CHAPTER_V("weight_bits", "  weight bits", 8 * scale_dtype_bytes(e->config.weight_dtype), ""),
      CHAPTER_V("kv_bits", "  KV-cache bits", 8 * scale_dtype_bytes(e->config.kv_dtype), ""),
      CHAPTER_V("batch", "  batch", e->config.batch, ""),
      CHAPTER_V("step_s", "  step", e->decode.step_s, "s"),
      CHAPTER_V("tput", "  tokens/s per chip", e->decode.tokens_per_s_per_chip, ""),
      CHAPTER_V("cost", "  cost per million tokens", e->decode.cost_usd_per_million_tokens, "USD"),
      CHAPTER_V("ttft_s", "  time to first token", e->prefill.ttft_s, "s"));
}

static void section_planner(chapter *ch, const serving *s) {
  chapter_heading(ch, "What the planner says");
  static scale_plan_infer_report rep;
  const double prompt = 2048, latency = 0.05;
  CHAPTER_VALUES(ch, "plan",
      CHAPTER_V("prompt", "prompt tokens", prompt, ""),
      CHAPTER_V("latency_s", "latency target per token", latency, "s"),
      CHAPTER_V("decode", "generated tokens per request", s->decode, ""));
  if (!plan_serving(ch, s, prompt, latency, NULL, &rep)) return;
  CHAPTER_VALUES(ch, "plan",
      CHAPTER_V("candidates", "layouts tried", rep.n_candidates, ""),
      CHAPTER_V("too_big", "  did not fit", rep.n_too_big, ""),
      CHAPTER_V("too_slow", "  missed the target", rep.n_too_slow, ""));
  emit_plan_best(ch, "plan", &rep);
  /* The text's claims, checked on the default problem (options may move it elsewhere). */
  bool book_problem = strcmp(s->m->name, "llama-3-70b") == 0 &&
                      strcmp(s->chip->name, "tpu-v5e") == 0;
  chapter_claim(ch, book_problem,
                rep.ranked[0].config.n_chips == scale_plan_infer_fewest_chips(&rep),
                "the cheapest serving slice is the smallest one ranked");
  chapter_claim(ch, book_problem,
                rep.ranked[0].config.weight_dtype == SCALE_DTYPE_INT8 &&
                    rep.ranked[0].config.kv_dtype == SCALE_DTYPE_INT8,
                "the cheapest serving layout quantizes weights and caches to 8 bits");
  /* The same search with bf16 only: the book's unquantized serving. */
  const scale_dtype bf16 = SCALE_DTYPE_BF16;
  if (!plan_serving(ch, s, prompt, latency, &bf16, &rep)) return;
  emit_plan_best(ch, "plan_bf16", &rep);
}

/* ---- serving under load (the request-stream simulator, issue 15) ---------------------------- */

#define LOAD_POINTS 7
/* arrival rates as fractions of the offline maximum */
static const double load_fracs[LOAD_POINTS] = {0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};

/** Six requests on the H100 copy at 30/s, prompts of 300-2000 tokens cut into chunks by a
 * 512-token step budget and mixed with the decodes (6-20 tokens) of those already running:
 * the simulator's trace, step by step (serve.h, diagram.h). */
static void figure_timeline(chapter *ch, scale_serveload *l) {
  static scale_serveload_traced t;
  static char svg[1 << 18];
  scale_diag d = {0};
  scale_status st = scale_serveload_trace(l, 30, 6, (scale_serve_lengths){300, 2000},
                                          (scale_serve_lengths){6, 20}, 512, &t, &d);
  if (!chapter_status_ok(ch, st, &d)) return;
  CHAPTER_VALUES(ch, "tl",
      CHAPTER_V("steps", "steps", t.result.n_steps, ""),
      CHAPTER_V("ttft_max_s", "longest TTFT", t.result.ttft_p99_s, "s"),
      CHAPTER_V("tpot_p50_s", "TPOT p50", t.result.tpot_p50_s, "s"));
  st = scale_diagram_serving(NULL, &t.trace, svg, sizeof svg, NULL, &d);
  chapter_diagram(ch, "batching-timeline.svg", st, svg, &d);
}

/** LLaMA 3 70B on 8 v5e (int8) and LLaMA 3.1 8B on one H100 (fp8) under a Poisson stream. */
static void section_load(chapter *ch, const scale_model *m70, const scale_chip *v5e,
                         const scale_model *m8, const scale_chip *h100) {
  chapter_heading(ch, "Serving under load");
  static const char *const key[2] = {"load.v5e", "load.h100"};
  static scale_serveload load[2];
  static scale_serveload_curve curve[2];
  static scale_infer_table t;
  scale_diag d = {0};
  if (!chapter_status_ok(ch, scale_serveload_setup(m70, v5e, 8, SCALE_DTYPE_INT8, SCALE_DTYPE_INT8,
                                                   2048, 512, &load[0], &d), &d) ||
      !chapter_status_ok(ch, scale_serveload_setup(m8, h100, 1, SCALE_DTYPE_FP8, SCALE_DTYPE_FP8,
                                                   2048, 512, &load[1], &d), &d))
    return;
  for (int i = 0; i < 2; i++) {
    const scale_serveload *l = &load[i];
    const scale_serveload_curve *c = &curve[i];
    scale_status st = scale_serveload_curve_run(&load[i], load_fracs, LOAD_POINTS, 1000, &curve[i],
                                                &d);
    if (!chapter_status_ok(ch, st, &d)) return;
    chapter_say(ch, "%s, %g x %s, %s, requests of %g + %g tokens:", l->model->display_name, l->tp,
                l->chip->display_name, scale_dtype_name(l->dtype), l->isl, l->osl);
    scale_serveload_curve_table(l, c, &t);
    chapter_quantities(ch, key[i], t.row, t.n, false);
    bool limits = fabs(c->vanishing.ttft_p50_s / c->prefill_s - 1) < 0.01 &&
                  fabs(c->vanishing.tpot_p50_s / c->decode1_s - 1) < 0.02;
    chapter_claim(ch, true, limits,
                  "at a vanishing rate TTFT is the prefill step and TPOT the batch-1 decode step");
  }
  if (chapter_status_ok(ch, scale_inferplot_load(load, curve, 2, &fig, &d), &d))
    chapter_figure(ch, "serving-load.svg", &fig.plot);
  figure_timeline(ch, &load[1]);
}

static void section_problems(chapter *ch, const scale_chip *c, const scale_model *big,
                             const scale_model *small) {
  chapter_heading(ch, "Worked problems");
  double p405 = scale_transformer_n_params(big);
  double fl = scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
  /* Q1 */
  CHAPTER_VALUES(ch, "wp1",
      {"params", "LLaMA 3 405B parameters", p405, "", SCALE_FMT_SCI},
      {"flops_per_token", "forward FLOPs per token (matmuls)", 2 * p405, "FLOP", SCALE_FMT_SCI},
      CHAPTER_V("t_flops_s", "FLOPs-bound, one chip", 2 * p405 / fl, "s"),
      CHAPTER_V("t_bytes_s", "bf16 weight reads, one chip",
          scale_infer_min_step_time_s(0, 0, 2 * p405, c->hbm_bytes_per_s), "s"));
  /* Q2: LLaMA 3 8B, batch 240, int8 weights and KV, 8192 tokens, one chip's view. */
  scale_infer_config cfg = scale_infer_config_default(1, 240, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_memory mem = scale_infer_memory_eval(small, c, &cfg);
  double used = mem.weight_bytes + mem.kv_bytes + mem.activation_bytes_per_chip;
  CHAPTER_VALUES(ch, "wp2",
      CHAPTER_V("weight_bytes", "int8 weights", mem.weight_bytes, "B"),
      CHAPTER_V("kv_bytes", "int8 KV caches", mem.kv_bytes, "B"),
      CHAPTER_V("act_bytes", "working activations of one layer", mem.activation_bytes_per_chip,
          "B"),
      CHAPTER_V("slice", "smallest slice", scale_infer_min_slice_chips(used, c->hbm_bytes),
          "chips"));
  /* Q3: LLaMA 3 405B, int8 weights and KV, bf16 FLOPs, 8192 tokens, step <= 15 ms. */
  const double limit = 15e-3;
  double min_chips = scale_infer_min_slice_chips(p405, limit * c->hbm_bytes_per_s);
  scale_infer_config q = scale_infer_config_generate(min_chips, 1, 8192, SCALE_DTYPE_INT8);
  scale_infer_config best = {0};
  scale_infer_decode d = {0}; /* zeros when no slice meets the limit */
  scale_infer_best_within_latency(big, c, &q, limit, 4096, &best, &d);
  double pod = scale_chip_pod_chips(c);
  CHAPTER_VALUES(ch, "wp3",
      CHAPTER_V("limit_s", "latency limit", limit, "s"),
      CHAPTER_V("min_chips", "fewest chips whose weight reads fit the limit", min_chips, "chips"),
      CHAPTER_V("best_chips", "best slice", best.n_chips, "chips"),
      CHAPTER_V("best_batch", "its batch", best.batch, ""),
      CHAPTER_V("best_step_s", "its step", d.step_s, "s"),
      CHAPTER_V("best_tput", "its throughput per chip", d.tokens_per_s_per_chip, "tokens/s"),
      CHAPTER_V("pod_chips", "a full pod", pod, "chips"),
      CHAPTER_V("pod_step_s", "int8 weight reads over a full pod",
          scale_infer_min_step_time_s(0, 0, p405, pod * c->hbm_bytes_per_s), "s"));
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"model", "model to serve", "llama-3-70b"},
      {"chip", "TPU (or other chip) to serve on", "tpu-v5e"},
      {"gpu", "GPU to compare with", "nvidia-h100-sxm"},
      {"batch", "sequences of the worked example", "32"},
      {"context", "KV tokens per sequence", "8192"},
      {"decode-len", "median generated tokens per request", "512"},
      {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "08-applied-inference",
                         "Serving LLaMA 3 70B: slices, latency, throughput and cost.", opts);
  if (rc >= 0) return rc;
  scale_model model, l405, l8;
  scale_chip chip, gpu, h100, v5p, v5e;
  if (!chapter_load_model(&ch, opts[0].value, &model) ||
      !chapter_load_chip(&ch, opts[1].value, &chip) ||
      !chapter_load_chip(&ch, opts[2].value, &gpu) ||
      !chapter_load_chip(&ch, "nvidia-h100-sxm", &h100) ||
      !chapter_load_chip(&ch, "tpu-v5p", &v5p) || !chapter_load_chip(&ch, "tpu-v5e", &v5e) ||
      !chapter_load_model(&ch, "llama-3-405b", &l405) ||
      !chapter_load_model(&ch, "llama-3-8b", &l8))
    return chapter_end(&ch);
  const unsigned whole = SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER; /* counts of things */
  serving s = {.m = &model, .chip = &chip, .n_params = scale_transformer_n_params(&model),
               .batch = chapter_option_number(&ch, &opts[3], whole),
               .context = chapter_option_number(&ch, &opts[4], whole),
               .decode = chapter_option_number(&ch, &opts[5], whole)};
  if (ch.n_errors) return chapter_end(&ch);
  if (model.arch != SCALE_ARCH_TRANSFORMER || scale_model_is_moe(&model)) {
    chapter_error(&ch, "--model: want a dense transformer (got %s)", model.name);
    return chapter_end(&ch);
  }

  chapter_say(&ch, "Chapter 8: Serving %s on %s.", model.display_name, chip.display_name);
  section_model(&ch, &s);
  const scale_chip *cands[] = {&h100, &v5p, &v5e};
  section_hardware(&ch, cands, 3);
  section_kv(&ch, &s);
  section_batch(&ch, &s);
  section_critical(&ch, &chip);
  section_slices(&ch, &s);
  section_sharding(&ch, &s);
  section_prefill(&ch, &s);
  frontier(&ch, &s, 16);
  section_gpu(&ch, &s, &gpu);
  section_planner(&ch, &s);
  section_load(&ch, &model, &chip, &l8, &h100);
  section_problems(&ch, &chip, &l405, &l8);

  figure_breakdown(&ch, &s, 16);
  return chapter_end(&ch);
}
