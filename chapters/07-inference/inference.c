/* inference.c — chapter 7, "All About Transformer Inference", as a program.
 *
 * Walks through what bounds prefill and generation (the critical batch of a matmul, the
 * intensity of attention), the book's step-time model, the memory of a served model (weights
 * and KV caches), the LLaMA 2 13B throughput tables on 8 TPU v5e (with and without a 5x
 * smaller KV cache), the KV-cache reductions (GQA, local layers, cross-layer sharing,
 * quantization, ragged reads), sharding for generation, prefix caching, the worked problems
 * and the appendices (latency-bound collectives, speculative decoding). Every number the
 * chapter text cites is emitted here with --values; --figures DIR draws
 *   step-vs-batch.svg   decode step time against batch, critical batch and HBM limit marked
 *   kv-vs-context.svg   KV bytes of one sequence against context, one line per reduction
 *   spec-speedup.svg    speculative decoding's speedup against lookahead
 *
 * Options change the chip, the table's model, chip count and context (defaults: the book's
 * TPU v5e, LLaMA 2 13B, 8 chips, 8192 tokens).
 */
#include "chapter.h"
#include "scale/inferplot.h"

/** Emits a library table under 'stem', a row a value. */
/* ---- sections ------------------------------------------------------------------------------- */

/** Critical batches of a matmul on the chip for the three dtype mixes of the chapter, and the
 * H100's bf16 one (the book's takeaway quotes it). */
static void section_linear(chapter *ch, const scale_chip *c, const scale_chip *h100) {
  chapter_heading(ch, "Linear operations: the critical batch");
  CHAPTER_VALUES(ch, "chip",
      CHAPTER_V("flops_per_s", "bf16 peak", scale_chip_flops_per_s(c, SCALE_DTYPE_BF16), "FLOP/s"),
      {"int8_flops_per_s", "int8 peak", scale_chip_flops_per_s(c, SCALE_DTYPE_INT8), "OP/s",
       SCALE_FMT_SCI},
      CHAPTER_V("hbm_bytes_per_s", "HBM bandwidth", c->hbm_bytes_per_s, "B/s"));
  static const char *const labels[3] = {"bf16 weights, bf16 FLOPs", "int8 weights, bf16 FLOPs",
                                         "int8 weights, int8 OPs"};
  chapter_critical_batches(ch, c, labels);
  chapter_value(ch, "bcrit.h100", "H100 SXM, bf16",
                scale_roofline_critical_batch(h100, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16), "tokens",
                SCALE_FMT_PLAIN);
}

/** Intensity of dot-product attention in prefill and generation, MHA and GQA. */
static void section_attention(chapter *ch, const scale_chip *c, const scale_model *mha,
                              const scale_model *gqa, double context) {
  chapter_heading(ch, "Attention: prefill vs generation");
  double bc = scale_roofline_critical_batch(c, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16);
  /* MHA prefill intensity is T/2: compute-bound once T/2 exceeds the critical intensity. */
  CHAPTER_VALUES(ch, "attn",
      CHAPTER_V("prefill_min_tokens", "prefill attention compute-bound above", 2.0 * bc, "tokens"),
      CHAPTER_V("context", "context", context, "tokens"),
      {"mha_prefill", "MHA prefill intensity",
       scale_transformer_attention_intensity_flops_per_byte(mha, context, context,
                                                            SCALE_DTYPE_BF16),
       "FLOP/byte", SCALE_FMT_PLAIN},
      {"mha_decode", "MHA generation intensity",
       scale_transformer_attention_intensity_flops_per_byte(mha, 1.0, context, SCALE_DTYPE_BF16),
       "FLOP/byte", SCALE_FMT_PLAIN},
      CHAPTER_V("gqa_group", "GQA group N/K (LLaMA 3 70B)",
          (double)gqa->n_heads / (double)gqa->n_kv_heads, ""),
      {"gqa_decode", "GQA generation intensity",
       scale_transformer_attention_intensity_flops_per_byte(gqa, 1.0, context, SCALE_DTYPE_BF16),
       "FLOP/byte", SCALE_FMT_PLAIN});
}

/** The pop quiz: a 30e9-parameter dense model, int8 weights, bf16 FLOPs, 16 chips. */
static void section_pop_quiz(chapter *ch, const scale_chip *c) {
  chapter_heading(ch, "Pop quiz: 30B model on 16 chips");
  const double n_params = 30e9, kv_tok = 100e3, ctx = 8192, n = 16;
  double kv_seq = kv_tok * ctx;
  double w = n * c->hbm_bytes_per_s, f = n * scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
  CHAPTER_VALUES(ch, "quiz",
      {"params", "parameters (int8: as many bytes)", n_params, "", SCALE_FMT_SCI},
      CHAPTER_V("kv_per_token", "KV per token", kv_tok, "B"),
      CHAPTER_V("context", "context", ctx, "tokens"),
      CHAPTER_V("chips", "chips", n, ""),
      CHAPTER_V("kv_per_seq", "KV per sequence", kv_seq, "B"));
  double t4 = scale_infer_step_time_s(4, kv_seq, n_params, n_params, f, w);
  double t256 = scale_infer_step_time_s(256, kv_seq, n_params, n_params, f, w);
  CHAPTER_VALUES(ch, "quiz",
      CHAPTER_V("t4_s", "step, batch 4", t4, "s"),
      CHAPTER_V("t256_s", "step, batch 256", t256, "s"),
      CHAPTER_V("t256_kv_s", "of which KV loading", 256 * kv_seq / w, "s"),
      CHAPTER_V("t256_flops_s", "of which matmul FLOPs", 2 * 256 * n_params / f, "s"),
      CHAPTER_V("t256_params_s", "weight loading (hidden by FLOPs)", n_params / w, "s"));
}

/** Memory of the table's model: parameters by kind, KV per sequence, one activation. */
static void section_memory(chapter *ch, const scale_model *m, double context) {
  chapter_heading(ch, "What uses memory: the table's model");
  chapter_model_dims(ch, "m", m, false);
  double L = (double)m->n_layers, n_params = scale_transformer_n_params(m);
  double wbytes = n_params * scale_dtype_bytes(SCALE_DTYPE_BF16);
  double kv_seq = scale_transformer_kv_bytes(m, context, SCALE_DTYPE_BF16);
  CHAPTER_VALUES(ch, "m",
      {"mlp_params", "MLP parameters, all layers", L * scale_transformer_n_mlp_params(m), "",
       SCALE_FMT_SCI},
      {"attn_params", "attention parameters, all layers",
       L * scale_transformer_n_attention_params(m), "", SCALE_FMT_SCI},
      {"norm_params", "norm parameters",
       L * scale_transformer_n_norm_params(m) + (double)m->d_model, "", SCALE_FMT_SCI},
      {"embed_params", "embedding parameters", scale_transformer_n_embedding_params(m), "",
       SCALE_FMT_SCI},
      {"params", "total parameters", n_params, "", SCALE_FMT_SCI},
      CHAPTER_V("weight_bytes", "bf16 weights", wbytes, "B"),
      CHAPTER_V("kv_per_token", "bf16 KV per token",
          scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_BF16), "B"),
      CHAPTER_V("context", "context", context, "tokens"),
      CHAPTER_V("kv_per_seq", "bf16 KV of one sequence", kv_seq, "B"),
      CHAPTER_V("kv_dominates_batch", "sequences whose KV equals the weights",
          scale_infer_kv_dominates_batch(wbytes, kv_seq), ""),
      CHAPTER_V("activation_bytes", "one bf16 activation of a full-context prefill",
          context * (double)m->d_model * scale_dtype_bytes(SCALE_DTYPE_BF16), "B"));
}

static const double table_batches[] = {1, 8, 16, 32, 64, 240};
#define N_TABLE (sizeof table_batches / sizeof table_batches[0])

/** The throughput tables on n chips: full KV ("t") and a 5x smaller one ("t5"). */
static void section_tables(chapter *ch, const scale_chip *c, const scale_model *m, double n,
                           double context) {
  chapter_heading(ch, "Throughput and latency tables");
  double w = n * c->hbm_bytes_per_s, f = n * scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
  double hbm = n * c->hbm_bytes;
  CHAPTER_VALUES(ch, "t",
      CHAPTER_V("chips", "chips", n, ""),
      CHAPTER_V("hbm_bytes", "total HBM", hbm, "B"),
      CHAPTER_V("hbm_bytes_per_s", "total HBM bandwidth", w, "B/s"),
      {"flops_per_s", "total bf16 FLOP/s", f, "FLOP/s", SCALE_FMT_SI});
  const char *stem[2] = {"t", "t5"};
  for (int k = 0; k < 2; k++) {
    if (k)
      chapter_value(ch, "t5.kv_per_seq", "KV per sequence, 5x smaller",
                    scale_transformer_kv_bytes(m, context, SCALE_DTYPE_BF16) / 5.0, "B",
                    SCALE_FMT_SI);
    scale_infer_table t;
    scale_infer_book_table(m, c, n, context, k ? 5.0 : 1.0, table_batches, N_TABLE, &t);
    chapter_quantities(ch, stem[k], t.row, t.n, false);
  }
}

/** The KV-cache reductions applied one after another to the table's model. */
static void section_tricks(chapter *ch, const scale_model *m, const scale_model *l3,
                           double long_context, double window, double local_frac) {
  chapter_heading(ch, "Shrinking the KV cache");
  scale_infer_table t;
  scale_infer_kv_reduction_table(m, 8, long_context, window, local_frac, &t);
  chapter_quantities(ch, "kv", t.row, t.n, false);
  /* Ragged reads: a batch of sequences whose lengths are spread evenly up to the allocated
   * maximum reads half the bytes a padded kernel reads. */
  chapter_value(ch, "kv.ragged_frac", "ragged read / padded read, uniform lengths", 0.5, "",
                SCALE_FMT_PLAIN);
  /* The LLaMA 3 70B reference point. */
  chapter_value(ch, "kv.l3_per_token", "LLaMA 3 70B, bf16",
                scale_transformer_kv_bytes_per_token(l3, SCALE_DTYPE_BF16), "B", SCALE_FMT_SI);
  /* Five requests' caches, padded to 128 tokens and paged in blocks of 16 (diagram.h). */
  static const double lengths[5] = {37, 100, 12, 64, 90};
  static char svg[1 << 16];
  scale_diag d = {0};
  chapter_diagram(ch, "paged-kv.svg",
                  scale_diagram_paged_kv(lengths, 5, 16, 128,
                                         scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_BF16),
                                         svg, sizeof svg, NULL, &d),
                  svg, &d);
}

/** Sharding for prefill and generation; KV sharding; latency-bound collectives. */
static void section_sharding(chapter *ch, const scale_chip *c, const scale_model *m,
                             const scale_model *l3) {
  chapter_heading(ch, "Distributing inference");
  /* The weight-stationary layouts as sharded arrays (diagram.h). */
  chapter_diagram_sharded(ch, "ws-1d.svg", "{Y:8}", "W[D, F_Y]");
  chapter_diagram_sharded(ch, "ws-2d.svg", "{X:2, Y:4}", "W[D_X, F_Y]");
  double alpha = scale_chip_ici_intensity(c, SCALE_DTYPE_BF16);
  double beta = scale_infer_beta(c);
  CHAPTER_VALUES(ch, "dist",
      CHAPTER_V("alpha", "C / W_ici", alpha, "FLOP/byte"),
      CHAPTER_V("prefill_max_tp", "prefill: useful TP on one axis, table model",
          scale_infer_max_tp_compute_bound((double)m->d_ff, 1.0, alpha), ""),
      CHAPTER_V("beta", "beta = W_hbm / W_ici", beta, ""),
      CHAPTER_V("book_max_tp", "F 16384, B 32, beta 8",
          scale_infer_max_tp_memory_bound(16384, 32, 8), ""),
      CHAPTER_V("max_tp", "same with the chip's beta",
          scale_infer_max_tp_memory_bound(16384, 32, beta), ""));
  /* KV sharding: LLaMA 3 70B (K = 8) on 16 chips, batch 32, int8 weights and KV. */
  scale_infer_config cfg = scale_infer_config_default(16, 32, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_table t;
  scale_infer_kv_sharding_table(l3, c, &cfg, &t);
  chapter_quantities(ch, "kvs", t.row, t.n, false);
  /* Appendix C: latency-bound collectives. */
  double link = c->ici_link_bytes_per_s, hop = c->ici_hop_latency_s;
  CHAPTER_VALUES(ch, "lat",
      CHAPTER_V("link_bytes_per_s", "one-way ICI link", link, "B/s"),
      CHAPTER_V("hop_s", "hop latency", hop, "s"),
      CHAPTER_V("bytes_8way", "8-way buffer below which latency binds", 8 * link * hop, "B"),
      CHAPTER_V("bytes_per_tp", "bytes per way of TP (W x T_hop)", link * hop, "B"),
      CHAPTER_V("act_bytes", "int8 activations, B 16, D 8192", 16.0 * 8192.0, "B"),
      CHAPTER_V("min_tp", "TP above which they are latency-bound",
          scale_infer_latency_bound_tp(16, 8192, 1, link, hop), ""));
}

/** Prefix caching: the prefill time a cached prefix saves. */
static void section_engine(chapter *ch, const scale_chip *c, const scale_model *l3) {
  chapter_heading(ch, "Prefix caching");
  double n_params = scale_transformer_n_params(l3);
  double f = 16 * scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
  const double prompt = 8192, cached = 6144;
  CHAPTER_VALUES(ch, "prefix",
      CHAPTER_V("prompt", "prompt", prompt, "tokens"),
      CHAPTER_V("cached", "tokens found in the cache", cached, "tokens"),
      CHAPTER_V("full_s", "prefill of the whole prompt",
          scale_infer_prefill_time_s(n_params, prompt, f, 0.4), "s"),
      CHAPTER_V("rest_s", "prefill of the new tokens only",
          scale_infer_prefill_time_s(n_params, prompt - cached, f, 0.4), "s"),
      CHAPTER_V("kv_bytes", "int8 KV cache to keep for the prefix",
          scale_transformer_kv_bytes(l3, cached, SCALE_DTYPE_INT8), "B"));
}

/** The chapter's invented model (LLaMA 2 13B-like): L 64, D 4096, F 16384, N 32, K 8, H 256,
 * V 32128, shared input and output embeddings. */
static scale_model invented_model(void) {
  return (scale_model){.name = "ch7-model", .display_name = "chapter 7 model",
                       .arch = SCALE_ARCH_TRANSFORMER, .n_layers = 64, .d_model = 4096,
                       .d_ff = 16384, .gated_mlp = true, .n_heads = 32, .n_kv_heads = 8,
                       .d_head = 256, .n_vocab = 32128, .tied_embeddings = true};
}

static void section_problems(chapter *ch, const scale_chip *c) {
  chapter_heading(ch, "Worked problems (the invented model)");
  scale_model m = invented_model();
  double n_params = scale_transformer_n_params(&m);
  double hbm16 = 16 * c->hbm_bytes, w16 = 16 * c->hbm_bytes_per_s;
  /* Q1 */
  CHAPTER_VALUES(ch, "q1",
      {"params", "parameters", n_params, "", SCALE_FMT_SCI},
      CHAPTER_V("kv_int8", "KV per token, int8",
          scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT8), "B"),
      CHAPTER_V("kv_bf16", "KV per token, bf16",
          scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_BF16), "B"));
  /* Q2: int8 everything on a 4x4. */
  double free_bytes = hbm16 - n_params;
  double kv = scale_transformer_kv_bytes_per_token(&m, SCALE_DTYPE_INT8);
  scale_model mq = m;
  mq.n_kv_heads = 1;
  double kv1 = scale_transformer_kv_bytes_per_token(&mq, SCALE_DTYPE_INT8);
  /* The book's own question uses 128k-token sequences, "128k" read as 128e3 tokens as it does. */
  CHAPTER_VALUES(ch, "q2",
      CHAPTER_V("hbm_bytes", "HBM of a 4x4", hbm16, "B"),
      CHAPTER_V("free_bytes", "left after int8 weights", free_bytes, "B"),
      CHAPTER_V("tokens", "KV tokens that fit", scale_infer_max_batch(free_bytes, kv), "tokens"),
      CHAPTER_V("batch_8k", "8k sequences that fit", scale_infer_max_batch(free_bytes, kv * 8192),
          ""),
      CHAPTER_V("tokens_k1", "KV tokens with one KV head", scale_infer_max_batch(free_bytes, kv1),
          "tokens"),
      CHAPTER_V("batch_8k_k1", "8k sequences with one KV head",
          scale_infer_max_batch(free_bytes, kv1 * 8192), ""),
      CHAPTER_V("batch_128k", "128k sequences that fit",
          scale_infer_max_batch(free_bytes, kv * 128e3), ""),
      CHAPTER_V("batch_128k_k1", "128k sequences with one KV head",
          scale_infer_max_batch(free_bytes, kv1 * 128e3), ""));
  /* Q3 */
  chapter_value(ch, "q3.step_s", "loading the int8 weights over 16 chips",
                scale_infer_min_step_time_s(0, 0, n_params, w16), "s", SCALE_FMT_TIME);
  /* Q5: the MoE variant, E 16, k 2. */
  scale_model moe = m;
  moe.n_experts = 16;
  moe.n_experts_active = 2;
  moe.d_ff_expert = 16384;
  moe.d_ff = 0;
  CHAPTER_VALUES(ch, "q5",
      {"params", "MoE parameters", scale_transformer_n_params(&moe), "", SCALE_FMT_SCI},
      {"active_params", "active per token", scale_transformer_n_active_params(&moe), "",
       SCALE_FMT_SCI},
      CHAPTER_V("critical_batch", "critical batch, int8 weights bf16 FLOPs",
          scale_infer_moe_critical_batch(&moe, c, SCALE_DTYPE_INT8, SCALE_DTYPE_BF16), "tokens"),
      CHAPTER_V("critical_batch_bf16", "critical batch, bf16 weights and FLOPs",
          scale_infer_moe_critical_batch(&moe, c, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16), "tokens"),
      CHAPTER_V("kv_int8", "KV per token (unchanged)",
          scale_transformer_kv_bytes_per_token(&moe, SCALE_DTYPE_INT8), "B"),
      {"flops_per_token", "forward FLOPs per token, matmuls",
       2.0 * scale_transformer_n_active_params(&moe), "FLOP", SCALE_FMT_SCI});
  /* Q6 (the book gives no answer): int8 MoE weights on an 8x16, smallest slice. */
  double moe_bytes = scale_transformer_n_params(&moe);
  CHAPTER_VALUES(ch, "q6",
      CHAPTER_V("load_s", "int8 MoE weights over 128 chips",
          scale_infer_min_step_time_s(0, 0, moe_bytes, 128 * c->hbm_bytes_per_s), "s"),
      CHAPTER_V("free_per_chip", "HBM left per chip", c->hbm_bytes - moe_bytes / 128.0, "B"),
      CHAPTER_V("min_slice", "smallest power-of-two slice",
          scale_infer_min_slice_chips(moe_bytes, c->hbm_bytes), "chips"));
  /* Q7 */
  CHAPTER_VALUES(ch, "q7",
      CHAPTER_V("min_chips", "2-D beats 1-D above (F = 4D, three axes)",
          scale_infer_ws2d_min_chips(8192, 4 * 8192, 3), "chips"),
      CHAPTER_V("min_chips_l3", "same for F = 3.5 D (LLaMA 3 70B)",
          scale_infer_ws2d_min_chips(8192, 28672, 3), "chips"));
}

static void section_appendix(chapter *ch, const scale_chip *c, const scale_model *draft,
                             const scale_model *target) {
  chapter_heading(ch, "Appendices A and D");
  /* A: one layer of two bf16 matmuls D 8192 x F 32768, sharded 4 ways. */
  double layer_params = 2.0 * 8192 * 32768;
  CHAPTER_VALUES(ch, "appa",
      {"params", "parameters of the layer", layer_params, "", SCALE_FMT_SCI},
      CHAPTER_V("t_s", "weight loading over 4 chips",
          scale_infer_min_step_time_s(0, 0, 2 * layer_params, 4 * c->hbm_bytes_per_s), "s"),
      CHAPTER_V("t_600m_s", "same for 600e6 parameters",
          scale_infer_min_step_time_s(0, 0, 2 * 600e6, 4 * c->hbm_bytes_per_s), "s"));
  /* D: speculative decoding. */
  const double a = 0.8, g = 4;
  double cost = scale_transformer_n_params(draft) / scale_transformer_n_params(target);
  double best = 0.0, best_g = scale_infer_spec_best_lookahead(a, cost, 1.0, 16, &best);
  CHAPTER_VALUES(ch, "spec",
      CHAPTER_V("accept", "acceptance rate", a, ""),
      CHAPTER_V("lookahead", "drafted tokens", g, ""),
      CHAPTER_V("tokens", "tokens per verification", scale_infer_spec_expected_tokens(a, g),
          "tokens"),
      CHAPTER_V("draft_cost", "draft step / target step (weight bytes)", cost, ""),
      CHAPTER_V("speedup", "expected speedup", scale_infer_spec_speedup(a, g, cost, 1.0), "x"),
      CHAPTER_V("best_lookahead", "best lookahead", best_g, ""),
      CHAPTER_V("best_speedup", "its speedup", best, "x"));
}

/* ---- figures -------------------------------------------------------------------------------- */

static void figures(chapter *ch, const scale_chip *c, const scale_model *m, const scale_model *l3,
                    const scale_model *l3_8b, double n, double context, double window,
                    double local_frac) {
  static scale_inferplot fig;
  scale_diag d = {0};
  if (chapter_status_ok(ch, scale_inferplot_step_vs_batch(m, c, n, context, &fig, &d), &d))
    chapter_figure(ch, "step-vs-batch.svg", &fig.plot);
  scale_status st = scale_inferplot_kv_vs_context(m, l3, c, window, local_frac, &fig, &d);
  if (chapter_status_ok(ch, st, &d))
    chapter_figure(ch, "kv-vs-context.svg", &fig.plot);
  scale_inferplot_spec_speedup(scale_transformer_n_params(l3_8b) / scale_transformer_n_params(l3),
                               &fig);
  chapter_figure(ch, "spec-speedup.svg", &fig.plot);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"chip", "hardware of the chapter's examples", "tpu-v5e"},
      {"model", "model of the memory and throughput tables", "llama-2-13b"},
      {"chips", "chips serving the tables' model", "8"},
      {"context", "context of the tables [tokens]", "8192"},
      {"long-context", "context of the KV-reduction example [tokens]", "32768"},
      {"window", "window of the local attention layers [tokens]", "4096"},
      {"local-frac", "fraction of layers that are local", "0.5"},
      {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "07-inference",
                         "All about transformer inference: prefill, generation, KV caches.",
                         opts);
  if (rc >= 0) return rc;

  scale_chip chip, h100;
  scale_model model, l3, l3_8b;
  if (!chapter_load_chip(&ch, opts[0].value, &chip) ||
      !chapter_load_chip(&ch, "nvidia-h100-sxm", &h100) ||
      !chapter_load_model(&ch, opts[1].value, &model) ||
      !chapter_load_model(&ch, "llama-3-70b", &l3) ||
      !chapter_load_model(&ch, "llama-3-8b", &l3_8b))
    return chapter_end(&ch);
  double n = chapter_option_number(&ch, &opts[2], SCALE_NUM_POSITIVE),
         context = chapter_option_number(&ch, &opts[3], SCALE_NUM_POSITIVE),
         long_context = chapter_option_number(&ch, &opts[4], SCALE_NUM_POSITIVE),
         window = chapter_option_number(&ch, &opts[5], SCALE_NUM_POSITIVE),
         local_frac = chapter_option_number(&ch, &opts[6], SCALE_NUM_POSITIVE);
  if (ch.n_errors) return chapter_end(&ch);
  if (model.arch != SCALE_ARCH_TRANSFORMER || model.kv_lora_rank > 0 || model.n_kv_heads < 8) {
    chapter_error(&ch, "--model: want a transformer with at least 8 KV heads (got %s)",
                  model.name);
    return chapter_end(&ch);
  }
  if (local_frac > 1.0) {
    chapter_error(&ch, "--local-frac: want a fraction in (0, 1] (got %g)", local_frac);
    return chapter_end(&ch);
  }

  chapter_say(&ch, "Chapter 7: All About Transformer Inference. Chip: %s; table model: %s.",
              chip.display_name, model.display_name);
  section_linear(&ch, &chip, &h100);
  section_attention(&ch, &chip, &model, &l3, context);
  section_pop_quiz(&ch, &chip);
  section_memory(&ch, &model, context);
  section_tables(&ch, &chip, &model, n, context);
  section_tricks(&ch, &model, &l3, long_context, window, local_frac);
  section_sharding(&ch, &chip, &model, &l3);
  section_engine(&ch, &chip, &l3);
  section_problems(&ch, &chip);
  section_appendix(&ch, &chip, &l3_8b, &l3);

  figures(&ch, &chip, &model, &l3, &l3_8b, n, context, window, local_frac);
  return chapter_end(&ch);
}
