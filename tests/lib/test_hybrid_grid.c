/* test_hybrid_grid.c — the design guide against the planners (hybrid_grid.h): one real grid
 * problem (LLaMA 2 7B on 8 Ascend 910B, 4K, the paper's Table 10 setup) and the tally's
 * classification on cases written by hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale/hardware.h"
#include "scale/hybrid_grid.h"
#include "scale/model.h"
#include "scale_check.h"

START_TEST(test_grid_eval_table10) {
  scale_diag d = {0};
  scale_chip chip;
  scale_model llama;
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("llama-2-7b", &llama, &d) == SCALE_OK, "%s", d.message);
  scale_step_params p;
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  const scale_precision megatron = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2, true};
  scale_hybrid_problem pr = {&llama, &chip, 8, 1024, 4096, 1, 1, megatron};
  scale_plan_report *rep = malloc(sizeof *rep);
  ck_assert(rep != NULL);
  scale_hybrid_grid_case c;
  ck_assert_msg(scale_hybrid_grid_eval(&pr, &p, rep, &c, &d) == SCALE_OK, "%s", d.message);
  /* section 6.2.3: the guide and the step model both pick Table 10's measured best, DP 4 x PP 2 */
  const scale_hybrid_layout *g = &c.guide.layout;
  ck_assert(g->dp == 4 && g->pp == 2 && g->tp == 1 && g->cp == 1);
  ck_assert(c.step_ok && c.same_step);
  scale_check_rel(c.step_ratio, 1.0, 1e-12, "", "guide = best: ratio 1");
  /* the pick is the planner's first ranked layout, and the flags follow from the degrees */
  ck_assert(memcmp(&c.plan, &rep->ranked[0].layout, sizeof c.plan) == 0);
  bool same = c.plan.dp == g->dp && c.plan.pp == g->pp && c.plan.tp == g->tp && c.plan.cp == g->cp;
  ck_assert(c.same_plan == same);
  if (c.same_plan) scale_check_rel(c.plan_ratio, 1.0, 1e-9, "", "guide = pick: ratio 1");
  ck_assert(c.plan_search == (!c.same_plan && c.plan_fits && !(c.plan_ratio > 1.0)));
  free(rep);
}
END_TEST

/** A hand-made case: the guide's TP bound 'bound', scale plan's TP, the flags and ratios. */
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
  const scale_check_case cases[] = {{"grid_eval_table10", test_grid_eval_table10},
                                    {"grid_tally", test_grid_tally}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
