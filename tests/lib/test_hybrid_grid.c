/* test_hybrid_grid.c — the design guide against the planners (hybrid_grid.h): the tally's
 * classification on cases written by hand. One real grid problem (LLaMA 2 7B on 8 Ascend 910B,
 * the paper's Table 10 setup) is checked in test_hybrid_study.c beside scale_plan_hybrid.
 */
#include <math.h>
#include <string.h>

#include "scale/hybrid_grid.h"
#include "scale_check.h"

/** A hand-made case under a TP bound of 4: the flags, scale plan's ratio, both TP degrees. */
static scale_hybrid_grid_case hand_case(bool same_step, bool same_plan, bool fits, double ratio,
                                        double plan_tp, double step_tp) {
  scale_hybrid_grid_case c;
  memset(&c, 0, sizeof c);
  c.guide.rule[SCALE_HYBRID_RULE_TP_BOUND].rhs = 4;
  c.step_ok = true, c.step.layout.tp = step_tp, c.step_ratio = same_step ? 1.0 : 1.5;
  c.same_step = same_step, c.same_plan = same_plan, c.plan_fits = fits;
  c.plan.tp = plan_tp, c.plan_ratio = ratio;
  c.plan_search = !same_plan && fits && !(ratio > 1.0);
  c.search_outside = c.plan_search;
  return c;
}

START_TEST(test_grid_tally) {
  /* four cases: agree with both; differ from plan by memory; by speed (1.3); by search (0.8),
   * the last also differing from the step model (ratio 1.5) */
  scale_hybrid_grid_tally t = scale_hybrid_grid_tally_init();
  ck_assert(isinf(t.plan_ratio_lo) && t.n == 0);
  const scale_hybrid_grid_case cs[] = {
      hand_case(true, true, true, 1.0, 1, 1), hand_case(true, false, false, NAN, 8, 2),
      hand_case(true, false, true, 1.3, 8, 1), hand_case(false, false, true, 0.8, 2, 4)};
  for (int i = 0; i < 4; i++)
    scale_hybrid_grid_add(&t, &cs[i], 8);
  ck_assert_int_eq(t.n, 4);
  ck_assert_int_eq(t.agree_step, 3);
  ck_assert_int_eq(t.agree_plan, 1);
  ck_assert_int_eq(t.plan_memory, 1);
  ck_assert_int_eq(t.plan_speed, 1);
  ck_assert_int_eq(t.plan_search, 1);
  ck_assert_int_eq(t.search_outside, 1);
  ck_assert_int_eq(t.plan_tp8, 2);
  ck_assert_int_eq(t.step_tp_small, 3); /* TP 1, 2, 1 but not 4 */
  ck_assert_int_eq(t.tp_bound_plan, 2); /* TP 1 and 2 within the bound of 4 */
  scale_check_rel(t.plan_ratio_hi, 1.3, 1e-12, "", "the speed case");
  scale_check_rel(t.plan_ratio_lo, 0.8, 1e-12, "", "the search case");
  scale_check_rel(t.step_ratio_hi, 1.5, 1e-12, "", "the one disagreement with the step model");
}
END_TEST

int main(void) {
  Suite *s = suite_create("hybrid_grid");
  const scale_check_case cases[] = {{"grid_tally", test_grid_tally}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
