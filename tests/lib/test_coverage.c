/* test_coverage.c — which layout features fitted rows cover (calibrate.h, scale_coverage_of)
 * and which features of a job no row has (scale_coverage_gaps), on a fixture whose features
 * are known by construction (tests/data/coverage/fixture.tsv), counted by hand below.
 */
#include <string.h>

#include "scale/calibrate.h"
#include "scale/precision.h"
#include "scale_check.h"

#ifndef SCALE_TEST_DATA_DIR
#define SCALE_TEST_DATA_DIR "tests/data"
#endif

static scale_calib_set *load_fixture(void) {
  scale_calib_set *set = NULL;
  scale_diag diag;
  ck_assert_msg(scale_calib_set_load(SCALE_TEST_DATA_DIR "/coverage", &set, &diag) == SCALE_OK,
                "%s:%d: %s", diag.file, diag.line, diag.message);
  return set;
}

/* Feature id of a precision recipe by name. */
static int recipe(const char *name) {
  for (int i = 0; i < SCALE_COVER_RECIPES_MAX && scale_precision_at(i); i++)
    if (strcmp(scale_precision_at(i)->name, name) == 0) return SCALE_COVER_PRECISION + i;
  ck_abort_msg("no recipe %s", name);
  return -1;
}

static void expect(const scale_coverage *c, int f, int rows, int groups) {
  ck_assert_msg(c->rows[f] == rows && c->groups[f] == groups, "%s: %d rows %d groups, want %d %d",
                scale_cover_feature_name(f), c->rows[f], c->groups[f], rows, groups);
}

START_TEST(fixture_coverage_by_hand) {
  /* F1 (g1): A100, dp 8 DDP, fp16, full recompute, unfused. F2 (g1): A100, dp 2 ZeRO-1, tp 2
   * with SP, pp 4 with vp 2 (interleaved), selective, flash, bf16. F3 (g2): TPU v5p, Mixtral
   * (MoE), dp 8 ZeRO-3, ring CP 2, recompute not stated, flash, bf16. */
  scale_calib_set *set = load_fixture();
  scale_coverage c;
  scale_coverage_of(set, &c);
  ck_assert_int_eq(c.n_rows, 3);
  expect(&c, SCALE_COVER_GPU, 2, 1);
  expect(&c, SCALE_COVER_TPU, 1, 1);
  expect(&c, SCALE_COVER_MOE, 1, 1);
  expect(&c, SCALE_COVER_TP, 1, 1);
  expect(&c, SCALE_COVER_SP, 1, 1);
  expect(&c, SCALE_COVER_CP_RING, 1, 1);
  expect(&c, SCALE_COVER_CP_ULYSSES, 0, 0);
  expect(&c, SCALE_COVER_CP_ALLGATHER, 0, 0);
  expect(&c, SCALE_COVER_ZERO + 0, 1, 1);
  expect(&c, SCALE_COVER_ZERO + 1, 1, 1);
  expect(&c, SCALE_COVER_ZERO + 2, 0, 0);
  expect(&c, SCALE_COVER_ZERO + 3, 1, 1);
  expect(&c, SCALE_COVER_SCHEDULE + SCALE_PP_1F1B, 0, 0); /* vp 2 reads as interleaved */
  expect(&c, SCALE_COVER_SCHEDULE + SCALE_PP_INTERLEAVED, 1, 1);
  for (int s = SCALE_PP_ZB_H1; s < SCALE_PP_COUNT; s++) expect(&c, SCALE_COVER_SCHEDULE + s, 0, 0);
  expect(&c, SCALE_COVER_RECOMPUTE + SCALE_RECOMPUTE_UNKNOWN, 1, 1);
  expect(&c, SCALE_COVER_RECOMPUTE + SCALE_RECOMPUTE_NONE, 0, 0);
  expect(&c, SCALE_COVER_RECOMPUTE + SCALE_RECOMPUTE_SELECTIVE, 1, 1);
  expect(&c, SCALE_COVER_RECOMPUTE + SCALE_RECOMPUTE_FULL, 1, 1);
  expect(&c, SCALE_COVER_ATTENTION + SCALE_ATTENTION_UNFUSED, 1, 1);
  expect(&c, SCALE_COVER_ATTENTION + SCALE_ATTENTION_FLASH, 2, 2); /* F2 in g1, F3 in g2 */
  expect(&c, recipe("bf16"), 2, 2);
  expect(&c, recipe("fp16"), 1, 1);
  expect(&c, recipe("fp8"), 0, 0);
  expect(&c, recipe("nvfp4"), 0, 0);
  ck_assert_int_eq(c.n_chips, 2);
  ck_assert_str_eq(c.chips[0], "nvidia-a100-80gb");
  ck_assert_int_eq(c.chip_rows[0], 2);
  ck_assert_str_eq(c.chips[1], "tpu-v5p");
  ck_assert_int_eq(c.chip_rows[1], 1);
  scale_calib_set_free(set);
}
END_TEST

START_TEST(gaps_of_a_job) {
  scale_calib_set *set = load_fixture();
  scale_coverage c;
  scale_coverage_of(set, &c);
  const scale_calib_point *f1 = &set->points[0];
  scale_step_job job = scale_calib_step_job(&f1->row, &f1->model, &f1->chip);
  int gaps[SCALE_COVER_COUNT];
  bool chip_gap = true;
  /* F1 itself: every feature is its own row's */
  ck_assert_int_eq(scale_coverage_gaps(&c, &job, "fp16", gaps, SCALE_COVER_COUNT, &chip_gap), 0);
  ck_assert(!chip_gap);
  /* F1 pipelined over 4 stages by ZB-V in fp8-blockwise: those two, in id order */
  job.pp = 4;
  job.schedule = SCALE_PP_ZB_V;
  ck_assert_int_eq(
      scale_coverage_gaps(&c, &job, "fp8-blockwise", gaps, SCALE_COVER_COUNT, &chip_gap), 2);
  ck_assert_int_eq(gaps[0], SCALE_COVER_SCHEDULE + SCALE_PP_ZB_V);
  ck_assert_int_eq(gaps[1], recipe("fp8-blockwise"));
  ck_assert_str_eq(scale_cover_feature_name(gaps[0]), "zb-v");
  /* max caps the list; another chip (H100: no fixture row) is a chip gap */
  scale_chip h100;
  ck_assert(scale_chip_load("nvidia-h100-sxm", &h100, NULL) == SCALE_OK);
  job.chip = &h100;
  ck_assert_int_eq(scale_coverage_gaps(&c, &job, "fp8-blockwise", gaps, 1, &chip_gap), 1);
  ck_assert(chip_gap);
  ck_assert_ptr_null(scale_cover_feature_name(SCALE_COVER_COUNT));
  ck_assert_str_eq(scale_cover_feature_name(SCALE_COVER_MOE), "MoE (expert parallelism)");
  scale_calib_set_free(set);
}
END_TEST

int main(void) {
  Suite *s = suite_create("coverage");
  TCase *tc = tcase_create("coverage");
  tcase_add_test(tc, fixture_coverage_by_hand);
  tcase_add_test(tc, gaps_of_a_job);
  suite_add_tcase(s, tc);
  return scale_check_run(s);
}
