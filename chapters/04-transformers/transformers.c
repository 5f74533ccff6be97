/* transformers.c — chapter 4, "All the Transformer Math You Need to Know", as a program.
 *
 * Counts parameters, FLOPs and bytes of every model in models/ (dense, GQA, MoE, MLA,
 * Mamba-2), breaks one layer of the example model down, and works the chapter's problems.
 * Every number the chapter text cites is emitted with --values; --figures DIR draws
 *   attention-share.svg   share of a layer's FLOPs spent in dot-product attention vs context
 *   kv-per-token.svg      KV cache bytes per token against total parameters, one dot a model
 *
 * Options: --model (default llama-3-70b) for the layer breakdown and --context (default 8192).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"

#define N_CURVE 121

/** A plain multi-head transformer built by hand: the book's running examples are not real
 * models. Gated MLP, N = K, H = 128, untied embeddings. */
static scale_model hand_model(int64_t l, int64_t d, int64_t f, int64_t v) {
  return (scale_model){.name = "hand", .display_name = "hand-made MHA model",
                       .arch = SCALE_ARCH_TRANSFORMER, .n_layers = l, .d_model = d, .n_vocab = v,
                       .d_head = 128, .n_heads = d / 128, .n_kv_heads = d / 128, .d_ff = f,
                       .gated_mlp = true};
}

/* [listing:per-token] */
/** Training FLOPs per token at context t: 6 x active parameters for the weight matmuls,
 * plus dot-product attention, which grows with t (causal: only the unmasked half). */
static double train_flops_per_token(const scale_model *m, double t) {
  return scale_transformer_flops_per_token(m, t, true, SCALE_PASS_TRAIN);
}

/** The "6 N D" rule alone: what the count would be without attention. */
static double six_n(const scale_model *m) {
  return scale_transformer_dense_flops(scale_transformer_n_active_params(m), 1.0,
                                       SCALE_PASS_TRAIN);
}
/* [/listing:per-token] */

/* ---- the per-model table ------------------------------------------------------------------- */

static void section_models(chapter *ch, const chapter_models *models) {
  chapter_heading(ch, "Every model in models/");
  static const double contexts[3] = {4096.0, 32768.0, 131072.0};
  static const char *ctx_tag[3] = {"attn_4k", "attn_32k", "attn_128k"};
  for (int i = 0; i < models->n; i++) {
    const scale_model *m = &models->model[i];
    chapter_say(ch, "%s:", m->display_name);
    chapter_stem_value(ch, m->name, "params", "parameters", scale_transformer_n_params(m), "",
                       SCALE_FMT_SCI);
    if (m->n_params_reported > 0)
      chapter_stem_value(ch, m->name, "reported", "as published", m->n_params_reported, "",
                         SCALE_FMT_SCI);
    chapter_stem_value(ch, m->name, "active", "active per token",
                       scale_transformer_n_active_params(m), "", SCALE_FMT_SCI);
    chapter_stem_value(ch, m->name, "six_n", "6 x active", six_n(m), "FLOP/token", SCALE_FMT_SCI);
    chapter_stem_value(ch, m->name, "train_flops_per_token_4k",
                       "training FLOPs per token at 4k (causal)", train_flops_per_token(m, 4096.0),
                       "FLOP/token", SCALE_FMT_SCI);
    chapter_stem_value(ch, m->name, "kv_bytes_per_token", "KV cache per token, bf16",
                       scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_BF16), "B",
                       SCALE_FMT_SI);
    chapter_stem_value(ch, m->name, "state_bytes", "recurrent state per sequence, bf16",
                       scale_transformer_state_bytes_per_sequence(m, SCALE_DTYPE_BF16), "B",
                       SCALE_FMT_SI);
    for (int c = 0; c < 3; c++) {
      chapter_stem_value(ch, m->name, ctx_tag[c], ctx_tag[c],
                         100.0 * scale_transformer_attention_flops_frac(m, contexts[c], true), "%",
                         SCALE_FMT_PLAIN);
    }
    double dominates = scale_transformer_n_tokens_attention_dominates(m);
    if (isfinite(dominates)) {
      chapter_stem_value(ch, m->name, "attn_dominates", "attention = the rest at T (non-causal)",
                         dominates, "tokens", SCALE_FMT_PLAIN);
    }
  }
  scale_precision bf16 = SCALE_PRECISION_BF16_ADAM, mixed = SCALE_PRECISION_MIXED_ADAM;
  chapter_value(ch, "mem.bf16_adam_bytes_per_param", "bf16 weights+grads, fp32 Adam",
                scale_transformer_train_state_bytes(&bf16, 1.0), "B", SCALE_FMT_PLAIN);
  chapter_value(ch, "mem.bf16_adam_no_grad_bytes_per_param", "  without gradients",
                scale_transformer_weight_bytes(&bf16, 1.0) +
                    scale_transformer_optimizer_bytes(&bf16, 1.0),
                "B", SCALE_FMT_PLAIN);
  chapter_value(ch, "mem.mixed_adam_bytes_per_param", "fp16 + fp32 master + Adam",
                scale_transformer_train_state_bytes(&mixed, 1.0), "B", SCALE_FMT_PLAIN);
}

/* ---- one layer of the example model -------------------------------------------------------- */

/* The breakdown emits its values with chapter_stem_value_opt(): for a Mamba-2 model (--model) the
 * attention shares and crossovers are undefined, so they print n/a and are not emitted. */
static void section_layer(chapter *ch, const scale_model *m, double t) {
  chapter_heading(ch, "Where one layer's parameters and FLOPs go");
  chapter_say(ch, "%s, context %.0f", m->display_name, t);
  double attn = scale_transformer_n_attention_params(m);
  double mlp = scale_transformer_n_mlp_params(m) + scale_transformer_n_moe_params(m);
  double norm = scale_transformer_n_norm_params(m);
  double mixer = scale_transformer_n_mamba2_params(m); /* 0 for a transformer */
  double layer = attn + mlp + mixer + norm, embed = scale_transformer_n_embedding_params(m);
  const chapter_val params[] = {
      {"context", "context T", t, "tokens", SCALE_FMT_PLAIN},
      {"d", "D", (double)m->d_model, "", SCALE_FMT_PLAIN},
      {"f", "F", (double)m->d_ff, "", SCALE_FMT_PLAIN},
      {"l", "L", (double)m->n_layers, "", SCALE_FMT_PLAIN},
      {"n", "N (query heads)", (double)m->n_heads, "", SCALE_FMT_PLAIN},
      {"k", "K (KV heads)", (double)m->n_kv_heads, "", SCALE_FMT_PLAIN},
      {"h", "H", (double)m->d_head, "", SCALE_FMT_PLAIN},
      {"v", "V", (double)m->n_vocab, "", SCALE_FMT_PLAIN},
      {"attn_params", "attention 2D(N+K)H", attn, "", SCALE_FMT_SCI},
      {"mlp_params", "MLP 3DF", mlp, "", SCALE_FMT_SCI},
      {"norm_params", "norms", norm, "", SCALE_FMT_PLAIN},
      {"attn_params_pct", "attention share of the layer", 100.0 * attn / layer, "%",
       SCALE_FMT_PLAIN},
      {"mlp_params_pct", "MLP share of the layer", 100.0 * mlp / layer, "%", SCALE_FMT_PLAIN},
      {"embed_params", "embeddings (whole model)", embed, "", SCALE_FMT_SCI},
      {"embed_pct", "embedding share of the model", 100.0 * embed / scale_transformer_n_params(m),
       "%", SCALE_FMT_PLAIN}};
  chapter_values_opt(ch, "layer", params, CHAPTER_ROWS(params));
  /* Training FLOPs of one layer for one sequence of t tokens. */
  double qkvo = scale_transformer_qkvo_flops(m, t, SCALE_PASS_TRAIN);
  double mlpf = scale_transformer_mlp_flops(m, t, SCALE_PASS_TRAIN) +
                scale_transformer_moe_flops(m, t, SCALE_PASS_TRAIN);
  double dot = scale_transformer_attention_flops(m, 1.0, t, t, true, SCALE_PASS_TRAIN);
  double dot_full = scale_transformer_attention_flops(m, 1.0, t, t, false, SCALE_PASS_TRAIN);
  double mixer_flops = scale_transformer_mamba2_projection_flops(m, t, SCALE_PASS_TRAIN) +
                       scale_transformer_ssd_flops(m, 1.0, t, false, SCALE_PASS_TRAIN);
  double total = qkvo + mlpf + dot + mixer_flops;
  const chapter_val mamba[] = { /* a Mamba-2 layer: its mixer replaces attention */
      {"mixer_params", "Mamba-2 mixer", mixer, "", SCALE_FMT_SCI},
      {"mixer_flops", "Mamba-2 mixer (projections + SSD scan)", mixer_flops, "FLOP",
       SCALE_FMT_SCI},
      {"mixer_pct", "mixer share", 100.0 * mixer_flops / total, "%", SCALE_FMT_PLAIN}};
  if (mixer > 0.0) chapter_values_opt(ch, "layer", mamba, CHAPTER_ROWS(mamba));
  const scale_dtype bf16 = SCALE_DTYPE_BF16;
  const chapter_val flops[] = {
      {"qkvo_flops", "Q, K, V, O projections", qkvo, "FLOP", SCALE_FMT_SCI},
      {"mlp_flops", "MLP", mlpf, "FLOP", SCALE_FMT_SCI},
      {"dot_flops", "QK^T and AV (causal)", dot, "FLOP", SCALE_FMT_SCI},
      {"dot_full_flops", "QK^T and AV (no mask skipping)", dot_full, "FLOP", SCALE_FMT_SCI},
      {"qkvo_pct", "projections share", 100.0 * qkvo / total, "%", SCALE_FMT_PLAIN},
      {"mlp_pct", "MLP share", 100.0 * mlpf / total, "%", SCALE_FMT_PLAIN},
      {"dot_pct", "attention share", 100.0 * dot / total, "%", SCALE_FMT_PLAIN},
      {"unembed_flops", "unembedding (whole model)",
       scale_transformer_unembedding_flops(m, t, SCALE_PASS_TRAIN), "FLOP", SCALE_FMT_SCI},
      {"t_equals_qkvo", "attention = projections at T",
       scale_transformer_n_tokens_attention_equals_qkvo(m), "tokens", SCALE_FMT_PLAIN},
      {"t_dominates", "attention = everything else at T",
       scale_transformer_n_tokens_attention_dominates(m), "tokens", SCALE_FMT_PLAIN},
      {"model_train_flops_per_token", "whole model, training, per token",
       train_flops_per_token(m, t), "FLOP/token", SCALE_FMT_SCI},
      {"kv_bytes", "KV cache of one sequence, bf16", scale_transformer_kv_bytes(m, t, bf16), "B",
       SCALE_FMT_SI},
      {"prefill_intensity", "self-attention intensity, prefill",
       scale_transformer_attention_intensity_flops_per_byte(m, t, t, bf16), "FLOP/byte",
       SCALE_FMT_PLAIN},
      {"decode_intensity", "self-attention intensity, one new token",
       scale_transformer_attention_intensity_flops_per_byte(m, 1.0, t, bf16), "FLOP/byte",
       SCALE_FMT_PLAIN}};
  chapter_values_opt(ch, "layer", flops, CHAPTER_ROWS(flops));
}

/* ---- counting dots and the problems -------------------------------------------------------- */

static void section_dots(chapter *ch) {
  chapter_heading(ch, "Counting dots");
  /* Q3: A[I,J,K,L] . B[I,J,M,N,O] -> C[K,L,M,N,O] with every size 8: I, J contract. */
  double eight[7] = {8, 8, 8, 8, 8, 8, 8};
  chapter_value(ch, "dots.q3_size", "every dimension", 8.0, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "dots.q3_flops", "IJKL,IJMNO->KLMNO",
                scale_transformer_einsum_flops("IJKL,IJMNO->KLMNO", eight), "FLOP",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "dots.batched_flops", "batched: IJKL,IJMNO->IJKLMNO (no factor 2)",
                scale_transformer_einsum_flops("IJKL,IJMNO->IJKLMNO", eight), "FLOP",
                SCALE_FMT_PLAIN);
  for (int p = 0; p < SCALE_PASS_COUNT; p++) {
    static const char *tag[3] = {"forward", "backward", "train"};
    chapter_valuef(ch, tag[p], scale_transformer_pass_flops_per_param((scale_pass)p),
                   "FLOP/(param token)", SCALE_FMT_PLAIN, "dots.%s_per_param", tag[p]);
  }
}

/** Q1-Q5 and gradient checkpointing. */
static void section_problems(chapter *ch) {
  chapter_heading(ch, "Q1: D = 4096, F = 4D, V = 32000, L = 64, MHA, int8 KV");
  scale_model q1 = hand_model(64, 4096, 4 * 4096, 32000);
  double params = scale_transformer_n_params(&q1);
  double attn = scale_transformer_n_attention_params(&q1);
  double mlp = scale_transformer_n_mlp_params(&q1);
  CHAPTER_VALUES(ch, NULL,
      {"q1.params", "parameters", params, "", SCALE_FMT_SCI},
      {"q1.attn_pct", "attention share", 100.0 * attn * (double)q1.n_layers / params, "%",
       SCALE_FMT_PLAIN},
      {"q1.attn_layer_pct", "attention share of the layers", 100.0 * attn / (attn + mlp), "%",
       SCALE_FMT_PLAIN},
      {"q1.kv_bytes_per_token", "KV cache per token, int8",
       scale_transformer_kv_bytes_per_token(&q1, SCALE_DTYPE_INT8), "B", SCALE_FMT_IEC});

  chapter_heading(ch, "Q4, Q5: attention intensity and the T = 2D crossover (MHA)");
  CHAPTER_VALUES(ch, NULL,
      {"q4.prefill_intensity", "prefill, T = S = 8192",
       scale_transformer_attention_intensity_flops_per_byte(&q1, 8192.0, 8192.0, SCALE_DTYPE_BF16),
       "FLOP/byte", SCALE_FMT_PLAIN},
      {"q4.decode_intensity", "generation, T = 1, S = 8192",
       scale_transformer_attention_intensity_flops_per_byte(&q1, 1.0, 8192.0, SCALE_DTYPE_BF16),
       "FLOP/byte", SCALE_FMT_PLAIN},
      {"q5.t", "attention = projections at T",
       scale_transformer_n_tokens_attention_equals_qkvo(&q1), "tokens", SCALE_FMT_PLAIN},
      {"q5.t_dominates", "attention = all other matmuls at T (8D)",
       scale_transformer_n_tokens_attention_dominates(&q1), "tokens", SCALE_FMT_PLAIN});

  chapter_heading(ch, "Gradient checkpointing: 4M tokens, L = 64, D = 8192, bf16");
  scale_model big = hand_model(64, 8192, 4 * 8192, 32000);
  double tokens = 4e6;
  static const char *remat_tag[SCALE_REMAT_COUNT] = {"none", "block", "big", "selective"};
  for (int r = 0; r < SCALE_REMAT_COUNT; r++) {
    chapter_valuef(ch, "tensors saved per layer",
                   scale_transformer_n_saved_per_layer((scale_remat)r), "", SCALE_FMT_PLAIN,
                   "remat.%s.saved", remat_tag[r]);
    chapter_valuef(ch, "activation bytes",
                   scale_transformer_activation_bytes(&big, tokens, (scale_remat)r,
                                                      SCALE_DTYPE_BF16), "B", SCALE_FMT_SI,
                   "remat.%s.bytes", remat_tag[r]);
  }
  /* Block remat: forward FLOPs done twice. One step of 1024 sequences of 4096 tokens. */
  double base = scale_transformer_flops(&big, 1024.0, 4096.0, true, SCALE_PASS_TRAIN);
  double block = scale_transformer_remat_extra_flops(&big, 1024.0, 4096.0, true,
                                                     SCALE_REMAT_BLOCK);
  double bigmm = scale_transformer_remat_extra_flops(&big, 1024.0, 4096.0, true,
                                                     SCALE_REMAT_BIG_MATMULS);
  chapter_value(ch, "remat.block.flops_factor", "block remat: FLOPs x", (base + block) / base,
                "", SCALE_FMT_PLAIN);
  chapter_value(ch, "remat.block.per_param", "  i.e. FLOPs per param per token",
                6.0 * (base + block) / base, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "remat.big.flops_factor", "big matmuls only: FLOPs x", (base + bigmm) / base,
                "", SCALE_FMT_PLAIN);

}

/** The KV cache example and the mixture-of-experts problems. */
static void section_kv_moe(chapter *ch, const scale_model *deepseek, const scale_model *mixtral,
                           const scale_chip *v5e) {
  chapter_heading(ch, "KV caches");
  scale_model kv = hand_model(64, 8192, 4 * 8192, 32000);
  chapter_value(ch, "kv.example_bytes", "8192 tokens, L = 64, KH = 8192, int8",
                scale_transformer_kv_bytes(&kv, 8192.0, SCALE_DTYPE_INT8), "B", SCALE_FMT_IEC);

  chapter_heading(ch, "Mixture of experts");
  double dense_crit = scale_roofline_critical_batch(v5e, SCALE_DTYPE_INT8, SCALE_DTYPE_BF16);
  chapter_value(ch, "moe.dense_critical_batch", "dense layer, int8 weights, bf16 (v5e)",
                dense_crit, "tokens", SCALE_FMT_PLAIN);
  const scale_model *moes[2] = {deepseek, mixtral};
  for (int i = 0; i < 2; i++) {
    const scale_model *m = moes[i];
    chapter_stem_value(ch, m->name, "experts", "experts E", (double)m->n_experts, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, m->name, "experts_active", "active k", (double)m->n_experts_active, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, m->name, "sparsity", "E / k", scale_transformer_moe_sparsity(m), "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, m->name, "moe_critical_batch", "expert matmuls compute-bound above",
                       scale_transformer_moe_critical_batch(m, dense_crit), "tokens",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, m->name, "active_pct", "active / total",
                       100.0 * scale_transformer_n_active_params(m) / scale_transformer_n_params(m),
                       "%", SCALE_FMT_PLAIN);
  }
}

/* ---- figures ------------------------------------------------------------------------------- */

static void figure_attention_share(chapter *ch, const chapter_models *models) {
  static const char *pick[] = {"llama-3-8b", "gemma-2-27b", "llama-3-70b", "llama-3-405b",
                               "deepseek-v3"};
  enum { N_PICK = sizeof pick / sizeof pick[0] };
  static double x[N_CURVE], y[N_PICK][N_CURVE];
  scale_plot_series s[N_PICK];
  size_t n = 0;
  for (int i = 0; i < N_CURVE; i++) x[i] = pow(2.0, 10.0 + 10.0 * (double)i / (N_CURVE - 1));
  for (int p = 0; p < N_PICK; p++)
    for (int i = 0; i < models->n; i++) {
      const scale_model *m = &models->model[i];
      if (strcmp(m->name, pick[p]) != 0) continue;
      for (int j = 0; j < N_CURVE; j++)
        y[n][j] = scale_transformer_attention_flops_frac(m, x[j], true);
      s[n] = (scale_plot_series){.label = m->display_name, .x = x, .y = y[n], .n = N_CURVE,
                                 .dashed = n % 2 == 1};
      n++;
    }
  scale_plot_marker half = {.vertical = false, .at = 0.5, .label = "half"};
  scale_plot p = {.title = "Share of a layer's training FLOPs in dot-product attention (causal)",
                  .desc = "Attention's share of FLOPs rises with context; wide models reach "
                          "half much later than narrow ones.",
                  .x_label = "context T [tokens]", .y_label = "attention share of layer FLOPs",
                  /* the curves' own span: whole decades would add an empty one to 1e7 */
                  .x_axis = SCALE_PLOT_LOG, .x_min = 1000.0, .x_max = x[N_CURVE - 1],
                  .y_min = 0.0, .y_max = 1.0, .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s, .n_series = n, .markers = &half, .n_markers = 1};
  chapter_figure(ch, "attention-share.svg", &p);
}

/* The benchmark families of models/ (file-name prefixes): a dozen sizes each of one recipe,
 * drawn as two legend series rather than forty labels that leave no room to read. */
static const char *const kv_families[] = {"megatron-gpt-", "maxtext-"};
static const char *const kv_family_labels[] = {"Megatron GPT sizes (Narayanan et al.)",
                                               "MaxText sizes (2023 benchmarks)"};
#define KV_FAMILIES 2

static int kv_family(const scale_model *m) {
  for (int f = 0; f < KV_FAMILIES; f++)
    if (strncmp(m->name, kv_families[f], strlen(kv_families[f])) == 0) return f;
  return -1;
}

/** KV cache per token against parameters: each released model a labelled dot, each benchmark
 * family a scatter series (its points separated by NaN, so no line joins them). */
static void figure_kv(chapter *ch, const chapter_models *models) {
  static scale_plot_point pts[CHAPTER_LIST_MAX];
  static double fx[KV_FAMILIES][2 * CHAPTER_LIST_MAX], fy[KV_FAMILIES][2 * CHAPTER_LIST_MAX];
  size_t n = 0, fn[KV_FAMILIES] = {0};
  for (int i = 0; i < models->n; i++) {
    const scale_model *m = &models->model[i];
    double kv = scale_transformer_kv_bytes_per_token(m, SCALE_DTYPE_BF16);
    if (!(kv > 0.0)) continue; /* Mamba-2 keeps a fixed state instead */
    double params = scale_transformer_n_params(m);
    int f = kv_family(m);
    if (f < 0) {
      pts[n++] = (scale_plot_point){.x = params, .y = kv, .label = m->display_name};
      continue;
    }
    size_t at = fn[f];
    fx[f][at] = params, fy[f][at] = kv;
    fx[f][at + 1] = fy[f][at + 1] = NAN;
    fn[f] = at + 2;
  }
  scale_plot_series fam[KV_FAMILIES];
  for (int f = 0; f < KV_FAMILIES; f++)
    fam[f] = (scale_plot_series){.label = kv_family_labels[f], .x = fx[f], .y = fy[f],
                                 .n = fn[f], .dots = true};
  scale_plot p = {.title = "KV cache per token (bf16) against model size",
                  .desc = "One dot per model: grouped-query and latent attention keep the KV "
                          "cache per token far below what parameter count alone suggests; "
                          "the Megatron and MaxText benchmark sizes as two marker series.",
                  .x_label = "parameters", .y_label = "KV bytes per token",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .width_px = 720, .height_px = 480,
                  .series = fam, .n_series = KV_FAMILIES,
                  .points = pts, .n_points = n, .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT};
  chapter_figure(ch, "kv-per-token.svg", &p);
}

/** One layer of 'm' drawn with its shapes and FLOPs at context t (diagram.h). */
static void diagram_block(chapter *ch, const scale_model *m, double t, const char *file) {
  static char svg[1 << 16];
  scale_diag d = {0};
  chapter_diagram(ch, file, scale_diagram_transformer_block(m, t, svg, sizeof svg, NULL, &d), svg,
                  &d);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {{"model", "model of the layer breakdown", "llama-3-70b"},
                           {"context", "context length of the layer breakdown [tokens]", "8192"},
                           {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "04-transformers",
                         "All the transformer math you need to know.", opts);
  if (rc >= 0) return rc;
  static chapter_models models;
  scale_model example, deepseek, mixtral;
  scale_chip v5e;
  if (!chapter_load_models(&ch, &models) || !chapter_load_model(&ch, opts[0].value, &example) ||
      !chapter_load_model(&ch, "deepseek-v3", &deepseek) ||
      !chapter_load_model(&ch, "mixtral-8x7b", &mixtral) ||
      !chapter_load_chip(&ch, "tpu-v5e", &v5e))
    return chapter_end(&ch);
  double t = chapter_option_number(&ch, &opts[1], SCALE_NUM_POSITIVE);
  if (ch.n_errors) return chapter_end(&ch);

  chapter_say(&ch, "Chapter 4: All the Transformer Math You Need to Know.");
  section_dots(&ch);
  section_models(&ch, &models);
  section_layer(&ch, &example, t);
  section_problems(&ch);
  section_kv_moe(&ch, &deepseek, &mixtral, &v5e);
  figure_attention_share(&ch, &models);
  figure_kv(&ch, &models);
  diagram_block(&ch, &example, t, "layer.svg");
  diagram_block(&ch, &deepseek, t, "layer-moe.svg");
  return chapter_end(&ch);
}
