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
 *
 * The sections' numbers are inference.h's ch. 8 tables (scale_infer_kv_table, _batch_table, ...,
 * the worked problems' tables), emitted as they come; the program adds the text's claims.
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

/** Emits a library table (inference.h's ch. 8 tables) under 'stem'. */
static void emit(chapter *ch, const char *stem, const scale_infer_table *t) {
  chapter_quantities(ch, stem, t->row, t->n, false);
}

/** Storage of the figure being drawn. */
static scale_inferplot fig;

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
    scale_infer_table t;
    char stem[SCALE_NAME_MAX + 8];
    snprintf(stem, sizeof stem, "hw.%s", chips[i]->name);
    scale_infer_price_table(chips[i], &t);
    emit(ch, stem, &t);
  }
}

static void section_memory(chapter *ch, const serving *s) {
  scale_infer_table t;
  chapter_heading(ch, "KV cache size");
  scale_infer_kv_table(s->m, s->chip, &t);
  emit(ch, "kv", &t);
  chapter_heading(ch, "A batch in int8 on the smallest slice");
  scale_infer_batch_table(s->m, s->chip, s->batch, s->context, &t);
  emit(ch, "b", &t);
  chapter_heading(ch, "Critical batches");
  static const char *const labels[3] = {"bf16 x bf16", "int8 weights, bf16 FLOPs", "int8 x int8"};
  chapter_critical_batches(ch, s->chip, labels);
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
    emit(ch, stem, &t);
    scale_infer_slice_table(&sl2, false, &t);
    snprintf(stem, sizeof stem, "slice2.%s", scale_dtype_name(d));
    emit(ch, stem, &t);
  }
  /* With the book's round 70e9 parameters every dtype holds the same number of sequences:
   * weights and caches scale together. */
  double kv16 = scale_transformer_kv_bytes(s->m, s->context, SCALE_DTYPE_BF16);
  chapter_value(ch, "slice.max_batch_70e9", "sequences with 70e9 parameters (any dtype)",
                scale_infer_max_batch(16 * s->chip->hbm_bytes - 2 * 70e9, kv16), "",
                SCALE_FMT_PLAIN);
  /* Full HBM: the step reads one chip's whole memory. */
  scale_infer_table t;
  scale_infer_full_hbm_table(s->m, s->chip, s->context, s->decode, &t);
  emit(ch, "hbm", &t);
}

static void section_sharding_prefill(chapter *ch, const serving *s) {
  scale_infer_table t;
  chapter_heading(ch, "Model parallelism on a 4x8 in bf16");
  scale_infer_sharding_table(s->m, s->chip, &t);
  emit(ch, "shard", &t);
  chapter_heading(ch, "Prefill, eviction, disaggregation");
  scale_infer_prefill_table(s->m, s->chip, s->context, &t);
  emit(ch, "pre", &t);
  /* Eviction with a 4096-token median decode. */
  const double g_long = 4096;
  CHAPTER_VALUES(ch, "evict",
      CHAPTER_V("decode", "median decode", g_long, "tokens"),
      CHAPTER_V("seqs_per_step", "sequences finishing per step", s->batch / g_long, ""),
      CHAPTER_V("tokens_per_step", "KV tokens evicted per step",
          scale_infer_kv_evicted_per_step(s->batch, s->context, g_long), "tokens"));
  /* Disaggregation: prefills feed generate servers in bf16 on the smallest bf16 slice. */
  scale_infer_disaggregation_table(s->m, s->chip, s->batch, s->context, s->decode, &t);
  emit(ch, "dis", &t);
}

static const double contexts[N_CONTEXTS] = {2048, 4096, 8192, 16384, 32768, 65536};

/** The shortest context's frontier in detail: its two ends, and batch 120 against the book's
 * formula. */
static void frontier_detail(chapter *ch, const serving *s, double n,
                            const scale_infer_frontiers *f, scale_infer_config cfg) {
  scale_infer_table t;
  scale_infer_frontier_ends_table(f, 0, &t);
  emit(ch, "front", &t);
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
    emit(ch, stem, &t);
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
  scale_infer_table t;
  scale_infer_gpu_table(s->m, gpu, s->chip, s->batch, s->context, &t);
  emit(ch, "gpu", &t);
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
  scale_infer_table t;
  scale_infer_layout_table(&e->config, &e->decode, &e->prefill, &t);
  emit(ch, stem, &t);
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
    emit(ch, key[i], &t);
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
  scale_infer_table t;
  scale_infer_one_chip_table(big, c, &t); /* Q1: LLaMA 3 405B on one chip */
  emit(ch, "wp1", &t);
  scale_infer_batch_memory_table(small, c, &t); /* Q2: LLaMA 3 8B, batch 240, int8 */
  emit(ch, "wp2", &t);
  scale_infer_latency_limit_table(big, c, 15e-3, &t); /* Q3: 405B within 15 ms a step */
  emit(ch, "wp3", &t);
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
  section_memory(&ch, &s);
  section_slices(&ch, &s);
  section_sharding_prefill(&ch, &s);
  frontier(&ch, &s, 16);
  section_gpu(&ch, &s, &gpu);
  section_planner(&ch, &s);
  section_load(&ch, &model, &chip, &l8, &h100);
  section_problems(&ch, &chip, &l405, &l8);

  figure_breakdown(&ch, &s, 16);
  return chapter_end(&ch);
}
