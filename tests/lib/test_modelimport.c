/* test_modelimport.c — Hugging Face configs (tests/data/hf, each from its published
 * config.json) import to the shipped model files field for field, write back as strict model
 * files, and bad configs are refused naming the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/file.h"
#include "scale/modelimport.h"
#include "scale/transformer.h"
#include "scale_check.h"

/** Imports tests/data/hf/STEM.json. */
static scale_status import(const char *stem, scale_model *m, scale_import_notes *notes,
                           scale_diag *d) {
  char path[512];
  snprintf(path, sizeof path, "%s/hf/%s.json", SCALE_TEST_DATA_DIR, stem);
  char *text = NULL;
  size_t len = 0;
  ck_assert_int_eq(scale_file_read(path, &text, &len, NULL), SCALE_OK);
  scale_json *j = NULL;
  ck_assert_int_eq(scale_json_parse(text, len, &j, d), SCALE_OK);
  scale_status st = scale_model_import_hf(scale_json_root(j), stem, m, notes, d);
  scale_json_free(j);
  free(text);
  return st;
}

/** Every architecture field of a and b agrees (names, context and reported totals aside). */
static void same_architecture(const scale_model *a, const scale_model *b) {
  const int64_t fa[] = {
      a->arch,        a->n_layers,         a->d_model,          a->n_vocab,     a->tied_embeddings,
      a->n_heads,     a->n_kv_heads,       a->d_head,           a->d_ff,        a->gated_mlp,
      a->n_experts,   a->n_experts_active, a->n_shared_experts, a->d_ff_expert, a->n_dense_layers,
      a->q_lora_rank, a->kv_lora_rank,     a->d_head_rope,      a->d_head_nope, a->d_head_v,
      a->ssm_d_state, a->ssm_n_heads,      a->ssm_d_head,       a->ssm_expand,  a->ssm_n_groups,
      a->ssm_d_conv,  a->ssm_chunk_size,   a->n_mtp_layers,     a->position,    a->window_tokens,
      a->window_chunked, a->window_period, a->n_local_per_period, a->nope_global, a->sinks,
      a->qk_norm,     a->qkv_bias,         a->o_bias,           a->mlp_bias};
  const int64_t fb[] = {
      b->arch,        b->n_layers,         b->d_model,          b->n_vocab,     b->tied_embeddings,
      b->n_heads,     b->n_kv_heads,       b->d_head,           b->d_ff,        b->gated_mlp,
      b->n_experts,   b->n_experts_active, b->n_shared_experts, b->d_ff_expert, b->n_dense_layers,
      b->q_lora_rank, b->kv_lora_rank,     b->d_head_rope,      b->d_head_nope, b->d_head_v,
      b->ssm_d_state, b->ssm_n_heads,      b->ssm_d_head,       b->ssm_expand,  b->ssm_n_groups,
      b->ssm_d_conv,  b->ssm_chunk_size,   b->n_mtp_layers,     b->position,    b->window_tokens,
      b->window_chunked, b->window_period, b->n_local_per_period, b->nope_global, b->sinks,
      b->qk_norm,     b->qkv_bias,         b->o_bias,           b->mlp_bias};
  for (size_t i = 0; i < sizeof fa / sizeof fa[0]; i++)
    ck_assert_msg(fa[i] == fb[i], "%s field %zu: %lld, shipped %lld", b->name, i, (long long)fa[i],
                  (long long)fb[i]);
  scale_check_rel(scale_transformer_n_params(a), scale_transformer_n_params(b), 0, "",
                  "the shipped file's parameters");
}

START_TEST(published_configs_match_shipped_models) {
  /* LLaMA 3 70B 70.55B, Mixtral 46.7B, DeepSeek-V3 671B (its MTP layer apart), Mamba-2 2.7B,
   * Qwen3-4B (QK-norm); Qwen3-8B, 14B and 32B (QK-norm, H != D / N for 32B) and GPT-OSS-20B
   * (windows from layer_types, sinks, biases), whose every field test_model_data types again
   * from the published config. */
  const char *stems[] = {"llama-3-70b", "mixtral-8x7b", "deepseek-v3", "mamba-2-2.7b",
                         "qwen3-4b",    "qwen3-8b",     "qwen3-14b",   "qwen3-32b",
                         "gpt-oss-20b"};
  for (int i = 0; i < (int)(sizeof stems / sizeof stems[0]); i++) {
    scale_model got, shipped = scale_check_model(stems[i]);
    scale_import_notes notes;
    scale_diag d = {0};
    ck_assert_msg(import(stems[i], &got, &notes, &d) == SCALE_OK, "%s: %s", stems[i], d.message);
    same_architecture(&got, &shipped);
    if (i == 2) { /* DeepSeek's MTP layer is a field now; its router is a note */
      ck_assert_int_eq(got.n_mtp_layers, 1);
      ck_assert_int_eq(notes.n, 1);
      ck_assert_ptr_nonnull(strstr(notes.text[0], "sigmoid"));
    } else {
      ck_assert_int_eq(notes.n, 0);
    }
  }
}
END_TEST

START_TEST(written_file_reads_back) {
  const char *stems[] = {"mixtral-8x7b", "deepseek-v3", "mamba-2-2.7b"};
  char dir[256];
  scale_check_tmpdir(dir, sizeof dir, "/tmp/scale-test-import-XXXXXX");
  for (int i = 0; i < 3; i++) {
    scale_model m, back;
    scale_import_notes notes;
    ck_assert_int_eq(import(stems[i], &m, &notes, NULL), SCALE_OK);
    char path[400];
    snprintf(path, sizeof path, "%s/%s.ini", dir, stems[i]);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(scale_model_write(&m, "imported by test_modelimport", &notes, f), SCALE_OK);
    fclose(f);
    scale_diag d = {0};
    ck_assert_msg(scale_model_load_file(path, &back, &d) == SCALE_OK, "%s: %s", path, d.message);
    same_architecture(&back, &m);
    remove(path);
  }
  scale_check_rmdir(dir);
}
END_TEST

/** Imports 'text' as a config; returns the status and fills d. */
static scale_status import_text(const char *text, scale_diag *d) {
  scale_json *j = NULL;
  ck_assert_int_eq(scale_json_parse(text, strlen(text), &j, NULL), SCALE_OK);
  scale_model m;
  scale_status st = scale_model_import_hf(scale_json_root(j), "x", &m, NULL, d);
  scale_json_free(j);
  return st;
}

/** Imports 'text' into *m (which the caller reads). */
static scale_status import_model(const char *text, scale_model *m, scale_diag *d) {
  scale_json *j = NULL;
  ck_assert_int_eq(scale_json_parse(text, strlen(text), &j, NULL), SCALE_OK);
  scale_status st = scale_model_import_hf(scale_json_root(j), "x", m, NULL, d);
  scale_json_free(j);
  return st;
}

START_TEST(feature_fields_map) {
  /* Each family's modeling code in transformers, read as the import reads it (synthetic
   * configs of the fields concerned, not published ones). */
  const char *base = "\"hidden_size\": 64, \"num_hidden_layers\": 12, \"vocab_size\": 100, "
                     "\"intermediate_size\": 128, \"num_attention_heads\": 8, "
                     "\"num_key_value_heads\": 2, \"head_dim\": 8";
  char text[900];
  scale_model m;
  scale_diag d = {0};
  /* Gemma 3: sliding_window_pattern 6 is 5 local then 1 global; QK-norm */
  snprintf(text, sizeof text,
           "{%s, \"model_type\": \"gemma3_text\", \"sliding_window\": 1024, "
           "\"sliding_window_pattern\": 6}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_OK);
  ck_assert_int_eq(m.window_tokens, 1024);
  ck_assert_int_eq(m.window_period, 6);
  ck_assert_int_eq(m.n_local_per_period, 5);
  ck_assert(m.qk_norm && !m.qkv_bias);
  /* Qwen2: biases on q, k, v (hard-wired in its attention), no window unless asked */
  snprintf(text, sizeof text,
           "{%s, \"model_type\": \"qwen2\", \"sliding_window\": 4096, "
           "\"use_sliding_window\": false}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_OK);
  ck_assert(m.qkv_bias && !m.o_bias && m.window_tokens == 0);
  snprintf(text, sizeof text,
           "{%s, \"model_type\": \"qwen2\", \"sliding_window\": 4096, "
           "\"use_sliding_window\": true, \"max_window_layers\": 4}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "'max_window_layers'"));
  /* layer_types that do not repeat are refused naming the field */
  snprintf(text, sizeof text,
           "{%s, \"model_type\": \"gemma2\", \"sliding_window\": 4096, \"layer_types\": "
           "[\"sliding_attention\", \"full_attention\", \"full_attention\", "
           "\"sliding_attention\", \"full_attention\", \"full_attention\", "
           "\"sliding_attention\", \"full_attention\", \"full_attention\", "
           "\"sliding_attention\", \"sliding_attention\", \"full_attention\"]}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "'layer_types' is not a repeating pattern"));
  /* Llama 4: text_config; chunked attention on 3 of 4 layers, NoPE global on the 4th;
   * experts on every 2nd layer (interleave_moe_layer_step 2), one shared expert, the dense
   * layers intermediate_size_mlp wide */
  snprintf(text, sizeof text,
           "{\"model_type\": \"llama4\", \"text_config\": {%s, \"model_type\": "
           "\"llama4_text\", \"attention_chunk_size\": 8192, \"num_local_experts\": 16, "
           "\"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 2, "
           "\"intermediate_size_mlp\": 256}}", base);
  ck_assert_msg(import_model(text, &m, &d) == SCALE_OK, "%s", d.message);
  ck_assert_int_eq(m.window_tokens, 8192);
  ck_assert(m.window_chunked && m.nope_global);
  ck_assert_int_eq(m.window_period, 4);
  ck_assert_int_eq(m.n_local_per_period, 3);
  ck_assert_int_eq(m.n_experts, 16);
  ck_assert_int_eq(m.n_shared_experts, 1);
  ck_assert_int_eq(m.d_ff_expert, 128);
  ck_assert_int_eq(m.n_dense_layers, 6);
  ck_assert_int_eq(m.d_ff, 256);
  /* GPT-OSS: sinks, every bias, alternating windows by default */
  snprintf(text, sizeof text,
           "{%s, \"model_type\": \"gpt_oss\", \"sliding_window\": 128, "
           "\"num_local_experts\": 4, \"num_experts_per_tok\": 2}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_OK);
  ck_assert(m.sinks && m.qkv_bias && m.o_bias && m.mlp_bias);
  ck_assert_int_eq(m.window_period, 2);
  /* Nemotron-H: refused naming the field */
  snprintf(text, sizeof text, "{%s, \"model_type\": \"nemotron_h\", "
           "\"hybrid_override_pattern\": \"M-M*\"}", base);
  ck_assert_int_eq(import_model(text, &m, &d), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "'hybrid_override_pattern'"));
}
END_TEST

START_TEST(bad_configs_name_the_field) {
  const char *dense = "\"hidden_size\": 4096, \"num_hidden_layers\": 32, \"vocab_size\": 32000, "
                      "\"intermediate_size\": 11008, \"num_attention_heads\": 32";
  char text[600];
  struct {
    const char *extra, *type, *field;
    scale_status st;
  } cases[] = {
      {"", "bert", "'model_type' names a family", SCALE_ERR_INVALID},
      {", \"num_key_value_heads\": 5", "llama", "'num_key_value_heads' must divide",
       SCALE_ERR_INVALID},
      {", \"head_dim\": 12.5", "llama", "'head_dim' must be a whole number", SCALE_ERR_INVALID},
      {", \"tie_word_embeddings\": 1", "llama", "'tie_word_embeddings' must be true",
       SCALE_ERR_INVALID},
      {"", "mixtral", "'num_local_experts' is missing", SCALE_ERR_MISSING_KEY},
      {", \"num_experts\": 60, \"num_experts_per_tok\": 4, \"moe_intermediate_size\": "
       "1408, \"shared_expert_intermediate_size\": 5000",
       "qwen2_moe", "'shared_expert_intermediate_size' must be a multiple", SCALE_ERR_INVALID}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(text, sizeof text, "{%s%s, \"model_type\": \"%s\"}", dense, cases[i].extra,
             cases[i].type);
    scale_diag d = {0};
    ck_assert_int_eq(import_text(text, &d), cases[i].st);
    ck_assert_msg(strstr(d.message, cases[i].field) != NULL, "'%s' lacks '%s'", d.message,
                  cases[i].field);
  }
  scale_diag d = {0};
  ck_assert_int_eq(import_text("{\"hidden_size\": 1}", &d), SCALE_ERR_MISSING_KEY);
  ck_assert_ptr_nonnull(strstr(d.message, "'model_type' is missing"));
  ck_assert_int_eq(import_text("[1]", &d), SCALE_ERR_INVALID);
  /* Qwen2-MoE's shared expert of 4 x the routed width is 4 shared experts. */
  snprintf(text, sizeof text,
           "{%s, \"num_experts\": 60, \"num_experts_per_tok\": 4, "
           "\"moe_intermediate_size\": 1408, \"shared_expert_intermediate_size\": 5632, "
           "\"model_type\": \"qwen2_moe\"}",
           dense);
  scale_json *j = NULL;
  ck_assert_int_eq(scale_json_parse(text, strlen(text), &j, NULL), SCALE_OK);
  scale_model m;
  ck_assert_int_eq(scale_model_import_hf(scale_json_root(j), "q", &m, NULL, NULL), SCALE_OK);
  ck_assert_int_eq(m.n_shared_experts, 4);
  scale_json_free(j);
}
END_TEST

START_TEST(index_counts_parameters) {
  /* 141,107,412,992 bytes of bfloat16 in LLaMA 3 70B's index: 70,553,706,496 parameters. */
  const char *index = "{\"metadata\": {\"total_size\": 141107412992}}";
  const char *config = "{\"torch_dtype\": \"bfloat16\"}", *f32 = "{\"torch_dtype\": \"float32\"}";
  const char *quant = "{\"torch_dtype\": \"bfloat16\", \"quantization_config\": {}}";
  scale_json *i = NULL, *c = NULL, *c32 = NULL, *q = NULL;
  ck_assert_int_eq(scale_json_parse(index, strlen(index), &i, NULL), SCALE_OK);
  ck_assert_int_eq(scale_json_parse(config, strlen(config), &c, NULL), SCALE_OK);
  ck_assert_int_eq(scale_json_parse(f32, strlen(f32), &c32, NULL), SCALE_OK);
  ck_assert_int_eq(scale_json_parse(quant, strlen(quant), &q, NULL), SCALE_OK);
  double n = 0;
  ck_assert_int_eq(scale_model_index_params(scale_json_root(i), scale_json_root(c), &n, NULL),
                   SCALE_OK);
  scale_check_rel(n, 70553706496.0, 0, "", "total_size / 2");
  ck_assert_int_eq(scale_model_index_params(scale_json_root(i), scale_json_root(c32), &n, NULL),
                   SCALE_OK);
  scale_check_rel(n, 35276853248.0, 0, "", "total_size / 4");
  scale_diag d = {0};
  ck_assert_int_eq(scale_model_index_params(scale_json_root(i), scale_json_root(q), &n, &d),
                   SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "quantization_config"));
  ck_assert_int_eq(scale_model_index_params(scale_json_root(c), scale_json_root(c), &n, &d),
                   SCALE_ERR_MISSING_KEY);
  scale_json_free(i), scale_json_free(c), scale_json_free(c32), scale_json_free(q);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("modelimport");
  const scale_check_case cases[] = {
      {"published_configs_match_shipped_models", published_configs_match_shipped_models},
      {"written_file_reads_back", written_file_reads_back},
      {"bad_configs_name_the_field", bad_configs_name_the_field},
      {"feature_fields_map", feature_fields_map},
      {"index_counts_parameters", index_counts_parameters}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(suite()); }
