/* test_pipeline.c — the pipeline formulas (pipeline.h) against hand derivations; the bubble
 * and in-flight counts inside a step are tested with the training model (test_training.c).
 */
#include <math.h>

#include "scale/pipeline.h"
#include "scale_check.h"

#define EXACT 1e-12

START_TEST(test_stage_layers) {
  /* DeepSeek-V3: 61 layers over 16 stages, the fullest holds ceil(61/16) = 4 (ch. 6). */
  scale_check_rel(scale_pipeline_stage_layers(61, 16, 1), 4, EXACT, "layers", "ceil(61/16)");
  /* Interleaved: 2 chunks of ceil(61/32) = 2 layers each. */
  scale_check_rel(scale_pipeline_stage_layers(61, 16, 2), 4, EXACT, "layers", "2 ceil(61/32)");
  scale_check_rel(scale_pipeline_stage_layers(30, 4, 2), 8, EXACT, "layers", "2 ceil(30/8)");
  scale_check_rel(scale_pipeline_stage_layers(32, 1, 1), 32, EXACT, "layers", "no pipeline");
  scale_check_nan(scale_pipeline_stage_layers(0, 4, 1));
  scale_check_nan(scale_pipeline_stage_layers(32, 0.5, 1));
  scale_check_nan(scale_pipeline_stage_layers(32, 4, INFINITY));
}
END_TEST

START_TEST(test_layer_slots) {
  /* 24 layers over 2 stages, 4 microbatches: 12 layers x (4 + 2 - 1) ticks = 60. */
  scale_check_rel(scale_pipeline_layer_slots(24, 2, 4), 60, EXACT, "slots", "12 x 5");
  /* No pipeline: every layer once per microbatch. */
  scale_check_rel(scale_pipeline_layer_slots(24, 1, 8), 192, EXACT, "slots", "24 x 8");
  /* Uneven: ceil(25/4) = 7 layers, 8 + 3 ticks. */
  scale_check_rel(scale_pipeline_layer_slots(25, 4, 8), 77, EXACT, "slots", "7 x 11");
  scale_check_nan(scale_pipeline_layer_slots(24, 2, 0));
  scale_check_nan(scale_pipeline_layer_slots(24, 0, 4));
}
END_TEST

START_TEST(test_schedules) {
  /* In flight, ch. 5: GPipe keeps all 64, 1F1B p = 16, interleaved v = 2 16 (1 + 15/32). */
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_GPIPE, 16, 64, 1), 64, EXACT, "",
                  "m");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_ZERO_BUBBLE, 16, 64, 1), 16, EXACT,
                  "", "p");
  /* ZB-H2 keeps 2p - 1 (Qi et al. Table 1), DualPipe p + 1 (DeepSeek-V3 Table 2), fewer when
   * the step has fewer microbatches */
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_ZB_H2, 16, 64, 1), 31, EXACT, "",
                  "2p - 1");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_ZB_H2, 16, 20, 1), 20, EXACT, "",
                  "m");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_DUALPIPE, 16, 64, 1), 17, EXACT,
                  "", "p + 1");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_ZB_V, 16, 64, 1), 16, EXACT, "",
                  "p");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_INTERLEAVED, 16, 64, 2), 23.5,
                  EXACT, "", "16 (1 + 15/32)");
  /* Interleaved with m = p: the 2 (p-1) + (v-1) p warm-up exceeds the m v chunks, so every
   * forward runs first and all m are held, not 4 (1 + 3/8) = 5.5. */
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_INTERLEAVED, 4, 4, 2), 4, EXACT,
                  "", "m");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_GPIPE, 1, 64, 1), 1, EXACT, "",
                  "no pipeline");
  scale_check_nan(scale_pipeline_microbatches_in_flight(SCALE_PP_COUNT, 4, 8, 1));
  scale_check_nan(scale_pipeline_bubble_frac(SCALE_PP_1F1B, 4, 0.5, 1));
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_INTERLEAVED, 16, 16, 4), 15.0 / 64, EXACT, "",
                  "(p-1)/(v m), Llama 3's layout");
  scale_pp_schedule s = SCALE_PP_1F1B;
  ck_assert_int_eq(scale_pp_schedule_parse("GPipe", &s), SCALE_OK);
  ck_assert_int_eq(s, SCALE_PP_GPIPE);
  ck_assert_int_eq(scale_pp_schedule_parse("zb", &s), SCALE_OK);
  ck_assert_int_eq(s, SCALE_PP_ZB_H1);
  ck_assert_int_eq(scale_pp_schedule_parse("DualPipe", &s), SCALE_OK);
  ck_assert_int_eq(s, SCALE_PP_DUALPIPE);
  ck_assert_str_eq(scale_pp_schedule_name(SCALE_PP_ZB_V), "zb-v");
  ck_assert_int_eq(scale_pp_schedule_parse(NULL, &s), SCALE_ERR_INVALID);
  ck_assert_str_eq(scale_pp_schedule_name(SCALE_PP_INTERLEAVED), "interleaved");
  ck_assert_str_eq(scale_pp_schedule_name(SCALE_PP_COUNT), "?");
}
END_TEST

/* The split-backward bubbles (f, b, w: a stage's forward, input-gradient and weight-gradient
 * pass of one microbatch), each over the ideal m (f + b + w). */
START_TEST(test_split_bubbles) {
  /* ZB-H1 (Qi et al. 2023 Table 1) at p = 4, m = 8, f = b = w = 1: (p-1)(f+b-w) = 3, over
   * 8 x 3 = 24: 1/8, a third of 1F1B's 3/8. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 8, 1, 1, 1, 1), 1.0 / 8,
                  EXACT, "", "3 / 24");
  /* An attention-heavy backward, f = 1, b = 2, w = 1 (F + B + W = 4): ZB-H1 3 x 2 / 32 = 3/16;
   * ZB-H2 (p-1)(f+b-2w) = 3 x 1 / 32; ZB-V the same over half-stage chunks, 1.5 / 32. The
   * floor (p-1)(f+b) - (m-1)(b+w) = 9 - 21 < 0 binds none of them. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 8, 1, 1, 2, 1), 6.0 / 32,
                  EXACT, "", "3 x 2 / 32");
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H2, 4, 8, 1, 1, 2, 1), 3.0 / 32,
                  EXACT, "", "3 x 1 / 32");
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_V, 4, 8, 1, 1, 2, 1), 1.5 / 32,
                  EXACT, "", "3 x 1 / 2 / 32");
  /* ZB-H2 and ZB-V reach the papers' zero at f = b = w once the pipeline fills. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H2, 4, 8, 1, 1, 1, 1), 0.0, EXACT,
                  "", "0");
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_ZB_V, 4, 8, 1), 0.0, EXACT, "", "0");
  /* A pipeline that never fills: one microbatch through p stages runs all p forwards and p
   * input gradients one after another and then its W, p(f+b) + w against the ideal f+b+w:
   * bubble (p-1)(f+b) whatever the schedule. ZB-H1 at p = 4, m = 1, f = b = w = 1: 6/3 = 2,
   * above its published (p-1)(f+b-w) = 3/3 = 1; ZB-H2 too (its published 0). */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 1, 1, 1, 1, 1), 2.0, EXACT,
                  "", "(p-1)(f+b) / (f+b+w)");
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H2, 4, 1, 1, 1, 1, 1), 2.0, EXACT,
                  "", "(p-1)(f+b) / (f+b+w)");
  /* m = 2 < p = 4: the floor (p-1)(f+b) - (m-1)(b+w) = 6 - 2 = 4 over 2 x 3: 2/3. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 2, 1, 1, 1, 1), 4.0 / 6,
                  EXACT, "", "4 / 6");
  /* 1F1B at m < p keeps (p-1)/m: m = 2, p = 4: 3/2. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_1F1B, 4, 2, 1, 1, 2, 1), 1.5, EXACT, "",
                  "(p-1)/m");
  /* DualPipe (DeepSeek-V3 Table 2), p = 8, m = 16, f = b = w = 1: F&B = f+b+w = 3 and its
   * whole backward B = b+w = 2: (p/2-1)(F&B + B - 3W) = 3 x 2 = 6, over 16 x 3: 1/8. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_DUALPIPE, 8, 16, 1, 1, 1, 1), 6.0 / 48,
                  EXACT, "", "3 x 2 / 48");
  /* DualPipe, p = 2, m = 2 (one microbatch each way), f = b = w = 1, by hand: rank 0 runs F
   * of stage 0 (direction A) at [0,1] while rank 1 runs F of stage 0 of direction B; then each
   * runs the other's F as the last stage [1,2], its B [2,3], the first stage's B [3,4], and
   * the two W [4,6]: 6 = the ideal 2 x 3, no bubble, as (p/2-1) = 0 says. */
  scale_check_rel(scale_pipeline_bubble_split_frac(SCALE_PP_DUALPIPE, 2, 2, 1, 1, 1, 1), 0.0, EXACT,
                  "", "hand schedule");
  /* ZB-V at p = 2, m = 1, f = b = w = 1 (chunks of 1/2), by hand: rank 0 runs chunk 0's F
   * [0,.5], waits for rank 1's chunks 1, 2 [.5,1.5], runs chunk 3's F and B [1.5,2.5], its W
   * [2.5,3] while rank 1 runs the B of chunks 2, 1 [2.5,3.5], then chunk 0's B and W
   * [3.5,4.5]: 4.5 against the ideal 3, bubble 1.5 = 1/2. The floor, (p-1)(f+b) - 0 - m(f+b+w)/2
   * = 2 - 1.5 = 0.5, stays below it, as a lower bound does: 0.5/3. */
  double zbv = scale_pipeline_bubble_split_frac(SCALE_PP_ZB_V, 2, 1, 1, 1, 1, 1);
  scale_check_rel(zbv, 0.5 / 3, EXACT, "", "floor 0.5 / 3");
  ck_assert(zbv <= 1.5 / 3);
  /* chunks and copies */
  scale_check_rel(scale_pipeline_chunks(SCALE_PP_INTERLEAVED, 4), 4, EXACT, "", "v");
  scale_check_rel(scale_pipeline_chunks(SCALE_PP_ZB_V, 1), 2, EXACT, "", "V: 2");
  scale_check_rel(scale_pipeline_chunks(SCALE_PP_DUALPIPE, 4), 1, EXACT, "", "1");
  scale_check_rel(scale_pipeline_param_copies(SCALE_PP_DUALPIPE), 2, EXACT, "", "2x");
  scale_check_rel(scale_pipeline_param_copies(SCALE_PP_ZB_H2), 1, EXACT, "", "1x");
  ck_assert(scale_pipeline_splits_backward(SCALE_PP_ZB_H1));
  ck_assert(!scale_pipeline_splits_backward(SCALE_PP_INTERLEAVED));
  /* domains: an odd DualPipe has no mirror; a split must have some time */
  scale_check_nan(scale_pipeline_bubble_split_frac(SCALE_PP_DUALPIPE, 3, 4, 1, 1, 1, 1));
  scale_check_nan(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 8, 1, 0, 0, 0));
  scale_check_nan(scale_pipeline_bubble_split_frac(SCALE_PP_ZB_H1, 4, 8, 1, -1, 1, 1));
  scale_check_nan(scale_pipeline_chunks(SCALE_PP_COUNT, 1));
  scale_check_nan(scale_pipeline_param_copies(SCALE_PP_COUNT));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pipeline");
  TCase *tc = tcase_create("formulas");
  tcase_add_test(tc, test_stage_layers);
  tcase_add_test(tc, test_layer_slots);
  tcase_add_test(tc, test_schedules);
  tcase_add_test(tc, test_split_bubbles);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
