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
  ck_assert_int_eq(s, SCALE_PP_ZERO_BUBBLE);
  ck_assert_int_eq(scale_pp_schedule_parse(NULL, &s), SCALE_ERR_INVALID);
  ck_assert_str_eq(scale_pp_schedule_name(SCALE_PP_INTERLEAVED), "interleaved");
  ck_assert_str_eq(scale_pp_schedule_name(SCALE_PP_COUNT), "?");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pipeline");
  TCase *tc = tcase_create("formulas");
  tcase_add_test(tc, test_stage_layers);
  tcase_add_test(tc, test_layer_slots);
  tcase_add_test(tc, test_schedules);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
