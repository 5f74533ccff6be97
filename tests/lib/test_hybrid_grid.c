/* test_hybrid_grid.c — the design guide against the planners (hybrid_grid.h): the tally's
 * classification on cases written by hand, and a two-case grid run on the paper's Table 10
 * model and machine. One real grid problem (LLaMA 2 7B on 8 Ascend 910B, the paper's Table 10
 * setup) is checked in test_hybrid_study.c beside scale_plan_hybrid.
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
  /* every disagreement with scale plan is memory, speed or its microbatch counts (chapter 13) */
  ck_assert_int_eq(t.plan_memory + t.plan_speed + t.plan_search, t.n - t.agree_plan);
  ck_assert_int_eq(t.plan_tp8, 2);
  ck_assert_int_eq(t.step_tp_small, 3); /* TP 1, 2, 1 but not 4 */
  ck_assert_int_eq(t.tp_bound_plan, 2); /* TP 1 and 2 within the bound of 4 */
  scale_check_rel(t.plan_ratio_hi, 1.3, 1e-12, "", "the speed case");
  scale_check_rel(t.plan_ratio_lo, 0.8, 1e-12, "", "the search case");
  scale_check_rel(t.step_ratio_hi, 1.5, 1e-12, "", "the one disagreement with the step model");
}
END_TEST

START_TEST(test_grid_run) {
  /* LLaMA 2 7B on 8 Ascend 910B at 4K and 32K tokens, 1024 x 4096 tokens a step: two cases,
   * in the order of the sequences. At 4K the guide picks the paper's measured best, (4, 2, 1, 1)
   * (Table 15); each case is what scale_hybrid_grid_eval() gives on its own problem. */
  scale_chip chip;
  scale_model model;
  scale_step_params p;
  scale_diag d = {0};
  ck_assert_msg(scale_chip_load("ascend-910b", &chip, &d) == SCALE_OK, "%s", d.message);
  ck_assert_msg(scale_model_load("llama-2-7b", &model, &d) == SCALE_OK, "%s", d.message);
  ck_assert(scale_step_params_of_chip(&chip, &p) == SCALE_OK);
  const scale_model *models[1] = {&model};
  const scale_chip *chips[1] = {&chip};
  const scale_step_params *params[1] = {&p};
  const double seqs[2] = {4096, 32768};
  scale_hybrid_grid_axes ax = {models, 1, chips, params, 1, seqs, 2, 1024.0 * 4096.0};
  static scale_hybrid_grid_case cases[2], one;
  static scale_plan_report rep;
  scale_hybrid_grid_tally t;
  ck_assert_msg(scale_hybrid_grid_run(&ax, cases, &t, &d) == SCALE_OK, "%s", d.message);
  ck_assert_int_eq(t.n, 2);
  const scale_hybrid_layout *g = &cases[0].guide.layout;
  ck_assert_msg(g->dp == 4 && g->pp == 2 && g->tp == 1 && g->cp == 1, "(%g, %g, %g, %g)", g->dp,
                g->pp, g->tp, g->cp);
  for (int j = 0; j < 2; j++) {
    scale_hybrid_problem pr =
        scale_hybrid_paper_problem(&model, &chip, 1024.0 * 4096.0 / seqs[j], seqs[j]);
    ck_assert(scale_hybrid_grid_eval(&pr, &p, &rep, &one, &d) == SCALE_OK);
    ck_assert(one.same_step == cases[j].same_step && one.same_plan == cases[j].same_plan);
    scale_check_rel(cases[j].step_ratio, one.step_ratio, 1e-12, "", "the case on its own");
    ck_assert(one.plan.dp == cases[j].plan.dp && one.plan.pp == cases[j].plan.pp);
  }
  /* an empty axis */
  ax.n_seqs = 0;
  ck_assert_int_eq(scale_hybrid_grid_run(&ax, cases, &t, &d), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(test_grid_tables) {
  /* a case whose step model's best is (2, 1, 2, 2): CP mixed with TP; scale plan's pick TP 8 */
  scale_hybrid_grid_case c = hand_case(false, false, true, 0.8, 8, 2);
  c.guide.layout = (scale_hybrid_layout){4, 2, 1, 1, 1, false};
  c.step.layout = (scale_hybrid_layout){2, 1, 2, 2, 1, true};
  c.plan.dp = 1, c.plan.pp = 1, c.plan.cp = 1;
  ck_assert(scale_hybrid_grid_step_mixes_cp(&c));
  static scale_hybrid_table t;
  scale_hybrid_grid_case_table(&c, &t);
  /* three layouts of four degrees, two ratios, one flag */
  ck_assert_int_eq(t.n, 15);
  ck_assert_str_eq(t.row[0].key, "guide.dp");
  ck_assert(t.row[0].value == 4 && t.row[4].value == 2); /* guide.dp, step.dp */
  ck_assert_str_eq(t.row[7].key, "step.cp");
  ck_assert(t.row[7].value == 2);
  ck_assert_str_eq(t.row[10].key, "plan.tp");
  ck_assert(t.row[10].value == 8);
  ck_assert_str_eq(t.row[13].key, "plan_ratio");
  scale_check_rel(t.row[13].value, 0.8, 1e-12, "", "the hand case's ratio");
  ck_assert_str_eq(t.text[14], "yes");
  /* without the step model's best its degrees are left out; TP alone does not mix CP */
  c.step_ok = false;
  ck_assert(!scale_hybrid_grid_step_mixes_cp(&c));
  scale_hybrid_grid_case_table(&c, &t);
  ck_assert_int_eq(t.n, 11);
  ck_assert_str_eq(t.row[4].key, "plan.dp");
  c.step_ok = true, c.step.layout.cp = 1;
  ck_assert(!scale_hybrid_grid_step_mixes_cp(&c));
  /* the tally of test_grid_tally's four cases, under its keys */
  scale_hybrid_grid_tally k = scale_hybrid_grid_tally_init();
  k.n = 4, k.agree_step = 3, k.tp_bound_plan = 2, k.plan_ratio_lo = 0.8, k.step_ratio_hi = 1.5;
  scale_hybrid_grid_tally_table(&k, &t);
  ck_assert_int_eq(t.n, 12);
  ck_assert_str_eq(t.row[1].key, "agree_step");
  ck_assert(t.row[1].value == 3);
  ck_assert_str_eq(t.row[5].key, "plan_within_tp_bound");
  ck_assert(t.row[5].value == 2);
  ck_assert_str_eq(t.row[9].key, "plan_ratio_lo");
  ck_assert(t.row[9].value == 0.8 && t.row[11].value == 1.5);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hybrid_grid");
  const scale_check_case cases[] = {{"grid_tally", test_grid_tally},
                                    {"grid_tables", test_grid_tables},
                                    {"grid_run", test_grid_run}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
