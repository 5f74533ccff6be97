/* test_model.c — the strict model loader: a good file, malformed files with status and line,
 * and the architecture cross-checks. (The shipped models are checked in test_model_data.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"
#include "scale_check.h"

static char dir[64];

static const char *fixture(const char *text) {
  return scale_check_write(dir, "tiny-gqa.ini", text);
}

static void setup(void) { scale_check_tmpdir(dir, sizeof dir, "/tmp/scale-test-model-XXXXXX"); }

static void teardown(void) { scale_check_rmdir(dir); }

#define HEAD                                                                                       \
  "; a tiny GQA transformer for hand arithmetic\n"                                                 \
  "[model]\n"                                                                                      \
  "display_name = Tiny GQA\n"                                                                      \
  "arch = transformer\n"                                                                           \
  "n_layers = 2\n"                                                                                 \
  "d_model = 64\n"                                                                                 \
  "n_vocab = 1000\n"
#define ATTN "[attention]\nn_heads = 8\nn_kv_heads = 2\nd_head = 8\n"
#define MLP "[mlp]\nd_ff = 256\ngated_mlp = 1\n"

static void expect_error(const char *text, scale_status status, int line, const char *words) {
  scale_model m;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_model_load_file(fixture(text), &m, &diag);
  ck_assert_msg(st == status, "got '%s' (%s), expected '%s'", scale_status_str(st), diag.message,
                scale_status_str(status));
  ck_assert_int_eq(diag.line, line);
  ck_assert_msg(strstr(diag.message, words) != NULL, "message '%s' lacks '%s'", diag.message,
                words);
}

START_TEST(loads_good_file) {
  scale_model m;
  scale_diag diag;
  scale_status st =
      scale_model_load_file(fixture(HEAD "tied_embeddings = 1\n" ATTN MLP), &m, &diag);
  ck_assert_msg(st == SCALE_OK, "%s:%d: %s", diag.file, diag.line, diag.message);
  ck_assert_str_eq(m.name, "tiny-gqa");
  ck_assert_int_eq(m.arch, SCALE_ARCH_TRANSFORMER);
  ck_assert_int_eq(m.n_layers, 2);
  ck_assert_int_eq(m.n_kv_heads, 2);
  ck_assert(m.tied_embeddings);
  ck_assert(m.gated_mlp);
  ck_assert(!scale_model_is_moe(&m));
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), 0);
}
END_TEST

START_TEST(loads_mamba) {
  scale_model m;
  scale_diag diag;
  const char *text = "[model]\ndisplay_name = Tiny SSM\narch = mamba2\nn_layers = 2\n"
                     "d_model = 64\nn_vocab = 100\n[mamba2]\nd_state = 16\nn_heads = 8\n"
                     "d_head = 16\nexpand = 2\nn_groups = 1\nd_conv = 4\nchunk_size = 64\n";
  ck_assert_msg(scale_model_load_file(fixture(text), &m, &diag) == SCALE_OK, "%s:%d: %s", diag.file,
                diag.line, diag.message);
  ck_assert_int_eq(m.arch, SCALE_ARCH_MAMBA2);
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), 128); /* expand 2 x D 64 */
}
END_TEST

START_TEST(malformed) {
  /* HEAD is 7 lines; ATTN 4; MLP 3. */
  expect_error(HEAD ATTN MLP "n_experts = 8\n", SCALE_ERR_UNKNOWN_KEY, 15, "n_experts");
  expect_error(HEAD "n_layers = 3\n" ATTN MLP, SCALE_ERR_DUPLICATE_KEY, 8, "first set on line 5");
  expect_error(HEAD ATTN "[mlp]\nd_ff = 25.5\ngated_mlp = 1\n", SCALE_ERR_RANGE, 13, "whole");
  expect_error(HEAD ATTN "[mlp]\nd_ff = -256\ngated_mlp = 1\n", SCALE_ERR_RANGE, 13, "whole");
  expect_error(HEAD ATTN "[mlp]\nd_ff = 256\ngated_mlp = 2\n", SCALE_ERR_RANGE, 14, "0 or 1");
  expect_error(HEAD ATTN "[mlp]\nd_ff = 2.5e3x\ngated_mlp = 1\n", SCALE_ERR_PARSE, 13, "plain");
  expect_error(HEAD ATTN MLP "[moe]\nn_experts = 1e400\n", SCALE_ERR_RANGE, 16, "out of range");
  expect_error("[model]\narch = rnn\ndisplay_name = X\nn_layers = 1\nd_model = 1\nn_vocab = 1\n",
               SCALE_ERR_PARSE, 2, "transformer or mamba2");
  expect_error("", SCALE_ERR_PARSE, 0, "empty");
  expect_error("[model]\ndisplay_name = X\narch = transformer\nn_layers = 1\nn_vocab = 1\n",
               SCALE_ERR_MISSING_KEY, 0, "d_model");
  expect_error(HEAD MLP, SCALE_ERR_MISSING_KEY, 0, "n_heads");
  expect_error(HEAD ATTN, SCALE_ERR_MISSING_KEY, 0, "d_ff");
  expect_error(HEAD "[mamba2]\nd_state = 1\n", SCALE_ERR_MISSING_KEY, 0, "n_heads");
}
END_TEST

START_TEST(cross_checks) {
  expect_error(HEAD "[attention]\nn_heads = 8\nn_kv_heads = 3\nd_head = 8\n" MLP, SCALE_ERR_INVALID,
               0, "must divide");
  expect_error(HEAD ATTN MLP "[moe]\nn_experts = 4\nn_experts_active = 5\nd_ff_expert = 8\n",
               SCALE_ERR_INVALID, 0, "exceeds n_experts");
  expect_error(HEAD ATTN MLP "[moe]\nn_experts = 4\nn_experts_active = 2\nd_ff_expert = 8\n"
                             "n_dense_layers = 3\n",
               SCALE_ERR_INVALID, 0, "n_dense_layers");
  expect_error(HEAD ATTN MLP "[moe]\nn_experts = 4\n", SCALE_ERR_MISSING_KEY, 0,
               "n_experts_active");
  expect_error("[model]\ndisplay_name = X\narch = transformer\nn_layers = 0\nd_model = 1\n"
               "n_vocab = 1\n" ATTN MLP,
               SCALE_ERR_RANGE, 4, "n_layers must be a whole number in [1, 100000], got 0");
  /* A dense layer of width 0, a MoE that routes to no expert: refused, not priced at zero. */
  expect_error(HEAD ATTN "[mlp]\nd_ff = 0\ngated_mlp = 1\n", SCALE_ERR_INVALID, 0, "d_ff must be");
  expect_error(HEAD ATTN MLP "[moe]\nn_experts = 4\nn_experts_active = 0\nd_ff_expert = 8\n",
               SCALE_ERR_INVALID, 0, "n_experts_active >= 1");
}
END_TEST

#define MAMBA_HEAD                                                                                 \
  "[model]\ndisplay_name = Tiny SSM\narch = mamba2\nn_layers = 2\nd_model = 64\nn_vocab = 100\n"   \
  "[mamba2]\nd_state = 16\nn_heads = 8\nd_head = 16\nn_groups = 1\nd_conv = 4\n"

/* Issue 13 section 2: counts that parse but break the model. Each count has a physical range,
 * refused with the line and the key; the Mamba-2 chunk length is required and >= 1. */
START_TEST(implausible_counts) {
  /* MAMBA_HEAD is 12 lines. d_model = expand = 2^32 overflowed expand x D (UBSan abort). */
  expect_error("[model]\ndisplay_name = X\narch = mamba2\nn_layers = 2\nd_model = 4294967296\n"
               "n_vocab = 100\n[mamba2]\nexpand = 4294967296\n",
               SCALE_ERR_RANGE, 5, "d_model must be a whole number in [1, 1e7], got 4294967296");
  expect_error(MAMBA_HEAD "expand = 4294967296\nchunk_size = 64\n", SCALE_ERR_RANGE, 13,
               "expand must be a whole number in [1, 64]");
  expect_error(MAMBA_HEAD "expand = 2\n", SCALE_ERR_MISSING_KEY, 0, "chunk_size");
  expect_error(MAMBA_HEAD "expand = 2\nchunk_size = 0\n", SCALE_ERR_RANGE, 14,
               "chunk_size must be a whole number in [1, 1e6], got 0");
  expect_error(HEAD "n_ctx_max = 1e10\n" ATTN MLP, SCALE_ERR_RANGE, 8, "n_ctx_max must be");
  expect_error(HEAD "n_params_reported = 0.5\n" ATTN MLP, SCALE_ERR_RANGE, 8,
               "n_params_reported must be a whole number");
  expect_error(HEAD "[attention]\nn_heads = 1e6\nn_kv_heads = 2\nd_head = 8\n" MLP, SCALE_ERR_RANGE,
               9, "n_heads must be a whole number in [1, 100000]");
  expect_error(HEAD ATTN "[mlp]\nd_ff = 1e9\ngated_mlp = 1\n", SCALE_ERR_RANGE, 13,
               "d_ff must be a whole number in [0, 1e8]");
}
END_TEST

/* expand x D in a width that cannot overflow: a hand-made record far outside the loader's
 * ranges gets -1 (documented), never a wrapped product. */
START_TEST(ssm_d_inner_never_overflows) {
  scale_model m;
  memset(&m, 0, sizeof m);
  m.arch = SCALE_ARCH_MAMBA2;
  m.d_model = 4294967296;
  m.ssm_expand = 4294967296; /* 2^64: wraps to 0 in 64-bit arithmetic */
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), -1);
  m.ssm_expand = 2;
  ck_assert_int_eq(scale_model_ssm_d_inner(&m), 8589934592);
}
END_TEST

START_TEST(names) {
  scale_model m;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("no-such-model-xyz", &m, &diag), SCALE_ERR_NOT_FOUND);
  ck_assert_int_eq(scale_model_load("", &m, &diag), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_model_load_file("/nonexistent.ini", &m, &diag), SCALE_ERR_IO);
}
END_TEST

static Suite *model_suite(void) {
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("loader");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, loads_good_file);
  tcase_add_test(tc, loads_mamba);
  tcase_add_test(tc, malformed);
  tcase_add_test(tc, cross_checks);
  tcase_add_test(tc, implausible_counts);
  tcase_add_test(tc, ssm_d_inner_never_overflows);
  tcase_add_test(tc, names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(model_suite()); }
