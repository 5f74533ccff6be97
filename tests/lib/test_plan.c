/* test_plan.c — the layout search: enumeration, pruning, ranking, agreement with brute force. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/plan.h"
#include "scale/training.h"
#include "scale_check.h"

static scale_model model;
static scale_chip chip;
static scale_plan_report *report;

static void setup(void) {
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-2-7b", &model, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("tpu-v5e", &chip, &diag), SCALE_OK);
  report = malloc(sizeof *report);
  ck_assert_ptr_nonnull(report);
}

static void teardown(void) { free(report); }

/* 8 v5e chips, 16 sequences of 2048 tokens: small enough to enumerate by hand below. */
static scale_train_problem small_problem(void) {
  return scale_train_problem_make(&model, &chip, 8, 16 * 2048, 2048);
}

static bool same_layout(const scale_layout *a, const scale_layout *b) {
  return a->dp == b->dp && a->fsdp == b->fsdp && a->tp == b->tp && a->pp == b->pp &&
         a->ep == b->ep && a->etp == b->etp && a->cp == b->cp && a->zero_stage == b->zero_stage &&
         a->sp == b->sp && a->schedule == b->schedule && a->n_microbatches == b->n_microbatches &&
         a->remat == b->remat && a->cp_kind == b->cp_kind &&
         a->link[SCALE_TRAIN_DIM_PP] == b->link[SCALE_TRAIN_DIM_PP];
}

START_TEST(ranked_layouts_are_valid_sorted_distinct) {
  scale_train_problem p = small_problem();
  scale_plan_opts o = scale_plan_opts_default();
  o.top_k = SCALE_PLAN_TOP_MAX;
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  ck_assert_int_eq(report->n_ranked, SCALE_PLAN_TOP_MAX);
  for (int i = 0; i < report->n_ranked; i++) {
    const scale_plan_entry *e = &report->ranked[i];
    scale_check_rel(scale_layout_n_chips(&e->layout), 8, 0, "chips", "degrees multiply to N");
    ck_assert_int_eq(scale_train_validate(&p, &e->layout, NULL), SCALE_OK);
    ck_assert_msg(e->result.fits, "rank %d does not fit", i);
    scale_check_rel(e->score, e->result.step_time_s, 0, "s", "time objective");
    if (i > 0) ck_assert(report->ranked[i - 1].score <= e->score * (1 + 1e-9));
    for (int j = 0; j < i; j++)
      ck_assert_msg(!same_layout(&report->ranked[j].layout, &e->layout), "duplicate %d %d", j, i);
  }
  /* Bookkeeping: every candidate is pruned by one rule or fits. */
  ck_assert(report->n_candidates >= report->n_evaluated);
  double pruned = 0;
  for (int i = 0; i < SCALE_PLAN_PRUNE_COUNT; i++)
    pruned += report->n_pruned[i];
  scale_check_rel(report->n_pruned_total, pruned, 0, "", "sum of rules");
  ck_assert(report->n_pruned_total < report->n_candidates);
  /* 16 sequences cannot feed pp 8 with m = 4 pp = 32 microbatches: the batch rule prunes. */
  ck_assert(report->n_pruned[SCALE_PLAN_PRUNE_BATCH] > 0);
}
END_TEST

/* Every layout of the small problem, enumerated independently of plan.c: all degree
 * tuples over {1, 2, 4, 8}, every policy, both mappings. Returns the best step time. */
static double brute_force(const scale_train_problem *p, double *n_fit) {
  static const double pow2[] = {1, 2, 4, 8};
  static const double factors[] = {1, 2, 4, 8};
  double best = INFINITY;
  *n_fit = 0;
  scale_train_result r;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      for (int c = 0; c < 4; c++)
        for (int d = 0; d < 4; d++)
          for (int e = 0; e < 4; e++) {
            double dp = pow2[a], fsdp = pow2[b], tp = pow2[c], pp = pow2[d], cp = pow2[e];
            if (dp * fsdp * tp * pp * cp != p->n_chips) continue;
            for (int z = 1; z <= 3; z++)
              for (int sp = 0; sp < 2; sp++)
                for (int rm = 0; rm < SCALE_REMAT_COUNT; rm++)
                  for (int ck = 0; ck < SCALE_CP_COUNT; ck++)
                    for (int s = 0; s < SCALE_PP_COUNT; s++)
                      for (int f = 0; f < 4; f++)
                        for (int map = 0; map < 2; map++) {
                          scale_layout l = scale_layout_default();
                          l.dp = dp, l.fsdp = fsdp, l.tp = tp, l.pp = pp, l.cp = cp;
                          l.zero_stage = z, l.sp = sp, l.remat = (scale_remat)rm;
                          l.cp_kind = (scale_cp_kind)ck, l.schedule = (scale_pp_schedule)s;
                          l.n_virtual_stages = s == SCALE_PP_INTERLEAVED ? 2 : 1;
                          l.n_microbatches = factors[f] * pp;
                          scale_train_layout_map(p->chip, p->n_chips, &l);
                          if (map) l.link[SCALE_TRAIN_DIM_PP] = SCALE_TRAIN_LINK_DCN;
                          if (scale_train_validate(p, &l, NULL) != SCALE_OK) continue;
                          scale_train_eval(p, &l, &r);
                          if (!r.fits) continue;
                          (*n_fit)++;
                          if (r.step_time_s < best) best = r.step_time_s;
                        }
          }
  return best;
}

START_TEST(agrees_with_brute_force) {
  scale_train_problem p = small_problem();
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, NULL, report, &diag), SCALE_OK);
  double n_fit = 0;
  double best = brute_force(&p, &n_fit);
  ck_assert(n_fit > 0);
  ck_assert_int_ge(report->n_ranked, 1);
  scale_check_rel(report->ranked[0].score, best, 1e-12, "s",
                  "planner best = minimum over an independent brute-force loop");
}
END_TEST

START_TEST(threads_do_not_change_the_ranking) {
  scale_train_problem p = scale_train_problem_make(&model, &chip, 64, 256 * 2048, 2048);
  scale_plan_opts o = scale_plan_opts_default();
  o.top_k = 10;
  o.n_threads = 1;
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  scale_plan_report *two = malloc(sizeof *two);
  ck_assert_ptr_nonnull(two);
  o.n_threads = 2;
  ck_assert_int_eq(scale_plan_train(&p, &o, two, &diag), SCALE_OK);
  ck_assert_int_eq(two->n_threads_used, 2);
  ck_assert_int_eq(report->n_ranked, two->n_ranked);
  scale_check_rel(two->n_candidates, report->n_candidates, 0, "", "same space");
  for (int i = 0; i < report->n_ranked; i++)
    ck_assert_msg(same_layout(&report->ranked[i].layout, &two->ranked[i].layout),
                  "rank %d differs between 1 and 2 threads", i);
  free(two);
}
END_TEST

START_TEST(partial_remat_fewest_layers_that_fit) {
  /* LLaMA 3 8B on 8 H100 (FSDP 8), 8 sequences of 16384 tokens: keeping every activation does
   * not fit, block remat of all 32 layers does. The search (FSDP alone, remat none or block)
   * must then rank block remat of the fewest layers that fits first: n of 32 fits, n - 1 does
   * not, and it beats block remat of all of them (it recomputes fewer forwards). */
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_train_problem p = scale_train_problem_make(&m, &h100, 8, 8 * 16384, 16384);
  scale_step_params prm;
  ck_assert(scale_step_params_of_chip(&h100, &prm) == SCALE_OK);
  p.step_params = &prm;
  scale_plan_opts o = scale_plan_opts_default();
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++) o.allow[d] = d == SCALE_TRAIN_DIM_FSDP;
  o.allow_remat[SCALE_REMAT_BIG_MATMULS] = o.allow_remat[SCALE_REMAT_SELECTIVE] = false;
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  scale_layout best = report->ranked[0].layout;
  ck_assert_int_eq(best.remat, SCALE_REMAT_BLOCK);
  double n = best.remat_frac * 32;
  ck_assert_msg(n >= 1 && n < 32 && n == floor(n), "share %g of 32 layers", best.remat_frac);
  scale_train_result r;
  scale_train_eval(&p, &best, &r);
  ck_assert(r.fits);
  double step = r.step_time_s;
  scale_layout fewer = best, all = best, none = best;
  fewer.remat_frac = (n - 1) / 32, all.remat_frac = 1, none.remat = SCALE_REMAT_NONE;
  none.remat_frac = 1;
  if (n > 1) {
    scale_train_eval(&p, &fewer, &r);
    ck_assert_msg(!r.fits, "%g layers also fit", n - 1);
  }
  scale_train_eval(&p, &none, &r);
  ck_assert(!r.fits);
  scale_train_eval(&p, &all, &r);
  ck_assert(r.fits && step < r.step_time_s);
}
END_TEST

START_TEST(memory_pruning) {
  /* A chip with 1 GB of HBM cannot hold a 7B model on 8 chips in any layout. */
  scale_chip tiny = chip;
  tiny.hbm_bytes = 1e9;
  scale_train_problem p = scale_train_problem_make(&model, &tiny, 8, 16 * 2048, 2048);
  scale_diag diag;
  /* the space without the refinements tried only where their base layout fit (partial
   * remat after block remat, all-gather CP after the ring) */
  scale_plan_opts o = scale_plan_opts_default();
  o.partial_remat = false;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  ck_assert_int_eq(report->n_ranked, 0);
  ck_assert(report->n_pruned[SCALE_PLAN_PRUNE_MEMORY] > 0);
  /* 16 x 6.7e9 / 8 bytes of states at best is over 1 GB: the memory floor prunes every tuple
   * before it is evaluated, and the layouts counted are those of the roomy chip's search */
  ck_assert_int_eq(report->n_evaluated, 0);
  double counted = report->n_candidates;
  p.chip = &chip;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  scale_check_rel(report->n_candidates, counted, 0, "", "same space, whichever rule prunes");
}
END_TEST

START_TEST(objectives_and_restrictions) {
  scale_train_problem p = small_problem();
  scale_plan_opts o = scale_plan_opts_default();
  o.objective = SCALE_PLAN_MFU;
  o.top_k = 4;
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  for (int i = 1; i < report->n_ranked; i++)
    ck_assert(report->ranked[i - 1].result.mfu >= report->ranked[i].result.mfu * (1 - 1e-9));
  /* Forbid everything but FSDP: the only degrees left are fsdp 8 (dp must be 1). */
  o = scale_plan_opts_default();
  for (int d = 0; d < SCALE_TRAIN_DIM_COUNT; d++)
    o.allow[d] = d == SCALE_TRAIN_DIM_FSDP;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  ck_assert_int_ge(report->n_ranked, 1);
  for (int i = 0; i < report->n_ranked; i++)
    scale_check_rel(report->ranked[i].layout.fsdp, 8, 0, "", "fsdp only");
  char text[256];
  ck_assert(strstr(scale_plan_layout_str(&report->ranked[0].layout, text, sizeof text), "fsdp 8") !=
            NULL);
  ck_assert_int_eq(scale_plan_objective_parse("cost", &o.objective), SCALE_OK);
  ck_assert_int_eq(o.objective, SCALE_PLAN_COST);
  ck_assert_int_eq(scale_plan_objective_parse("speed", &o.objective), SCALE_ERR_INVALID);
}
END_TEST

/* Issue 27: EP across TP. Qwen3-30B-A3B on one node of 8 H100 (85.5 GB of HBM each), a batch
 * of one 4096-token sequence, no pipeline and no CP: dp x fsdp <= 1 sequence, so dp = fsdp = 1
 * and tp = 8, and an EP confined to dp x fsdp (the search before issue 27) could only be 1.
 * Its routed experts: 48 layers x 128 experts x 3 x d_model 2048 x d_ff_expert 768 =
 * 2.899e10 parameters, each with a bf16 weight and gradient and Adam's two fp32 moments
 * (12 bytes; nothing is sharded without fsdp): 3.479e11 / (ep x etp) bytes a chip, 87.0 GB at
 * ep x etp = 4, more than the HBM before any activation. Only the expert grids of
 * ep x etp = 8 can fit (etp 1, 2, 4, 8 with ep 8, 4, 2, 1): every ranked layout has one, and
 * without EP the only one left is etp 8 (the experts sliced like the dense MLP). */
START_TEST(ep_spans_the_tp_ranks) {
  scale_model m;
  scale_chip h100;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("qwen3-30b-a3b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("nvidia-h100-sxm", &h100, &diag), SCALE_OK);
  scale_step_params params;
  ck_assert_int_eq(scale_step_params_load_file(scale_step_params_path(), &params, &diag), SCALE_OK);
  scale_train_problem p = scale_train_problem_make(&m, &h100, 8, 4096, 4096);
  p.step_params = &params;
  double n_expert = scale_transformer_n_expert_params(&m) * (double)m.n_experts *
                    (double)(m.n_layers - m.n_dense_layers);
  scale_check_rel(n_expert, 2.899e10, 1e-3, "params", "routed experts (derivation above)");
  ck_assert(12.0 * n_expert / 4 > h100.hbm_bytes);
  scale_plan_opts o = scale_plan_opts_default();
  o.allow[SCALE_TRAIN_DIM_PP] = o.allow[SCALE_TRAIN_DIM_CP] = false;
  o.top_k = SCALE_PLAN_TOP_MAX;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  ck_assert_int_ge(report->n_ranked, 1);
  ck_assert(report->n_pruned[SCALE_PLAN_PRUNE_MEMORY] > 0); /* the smaller grids */
  bool spans = false;
  for (int i = 0; i < report->n_ranked; i++) {
    const scale_layout *l = &report->ranked[i].layout;
    double etp = l->etp >= 1 ? l->etp : 1;
    scale_check_rel(l->tp, 8, 0, "", "tp fills the node");
    scale_check_rel(l->ep * etp, 8, 0, "", "only the full expert grid fits");
    ck_assert_int_eq(scale_train_validate(&p, l, NULL), SCALE_OK);
    spans = spans || l->ep > l->dp * l->fsdp;
  }
  ck_assert_msg(spans, "no ranked layout has EP beyond dp x fsdp");
  /* Megatron-Bridge's MoE recipes keep etp 1: the best here does too, EP over the TP ranks */
  ck_assert(report->ranked[0].layout.ep == 8 && report->ranked[0].layout.dp == 1);
  /* without EP only etp 8 fits */
  o.allow[SCALE_TRAIN_DIM_EP] = false;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_OK);
  ck_assert_int_ge(report->n_ranked, 1);
  for (int i = 0; i < report->n_ranked; i++) {
    scale_check_rel(report->ranked[i].layout.ep, 1, 0, "", "no EP");
    scale_check_rel(report->ranked[i].layout.etp, 8, 0, "", "the experts sliced over tp");
  }
}
END_TEST

START_TEST(bad_problems) {
  scale_train_problem p = small_problem();
  scale_diag diag;
  p.n_chips = 0;
  ck_assert_int_eq(scale_plan_train(&p, NULL, report, &diag), SCALE_ERR_INVALID);
  p = small_problem();
  p.batch_tokens = 100; /* shorter than one 2048-token sequence */
  ck_assert_int_eq(scale_plan_train(&p, NULL, report, &diag), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(diag.message, "sequence"));
  p = small_problem();
  scale_plan_opts o = scale_plan_opts_default();
  o.top_k = SCALE_PLAN_TOP_MAX + 1;
  ck_assert_int_eq(scale_plan_train(&p, &o, report, &diag), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_plan_train(NULL, NULL, report, &diag), SCALE_ERR_INVALID);
}
END_TEST

/* ---- serving search ------------------------------------------------------------------------ */

START_TEST(infer_ranked_layouts_fit_and_meet_the_target) {
  scale_model m;
  scale_chip v5e;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-3-70b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("tpu-v5e", &v5e, &diag), SCALE_OK);
  scale_plan_infer_opts o = scale_plan_infer_opts_default(2048, 512);
  o.max_step_s = 0.05;
  o.top_k = 8;
  scale_plan_infer_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &o, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  /* ch. 8: LLaMA 3 70B needs at least 8 v5e chips in int8 (16 in bf16): no ranked layout may
   * use fewer chips than the smallest slice of its weight dtype. */
  scale_infer_slice int8 = scale_infer_smallest_slice(&m, &v5e, SCALE_DTYPE_INT8, 0);
  for (int i = 0; i < r->n_ranked; i++) {
    const scale_plan_infer_entry *e = &r->ranked[i];
    ck_assert(e->memory.fits);
    ck_assert(e->decode.step_s <= 0.05);
    ck_assert(e->config.n_chips >= int8.slice_chips);
    if (i > 0) ck_assert(r->ranked[i - 1].score <= e->score + 1e-9 * fabs(e->score));
  }
  /* The best of one slice equals a direct scan of its batches (independent of plan.c). */
  scale_infer_config cfg = r->ranked[0].config;
  double best = 0;
  for (double b = 1; b <= 1 << 16; b *= 2) {
    cfg.batch = b;
    if (!scale_infer_memory_eval(&m, &v5e, &cfg).fits) break;
    scale_infer_decode d = scale_infer_decode_eval(&m, &v5e, &cfg);
    if (d.step_s <= 0.05 && d.tokens_per_s_per_chip > best) best = d.tokens_per_s_per_chip;
  }
  scale_check_rel(-r->ranked[0].score, best, 1e-12, "tokens/s/chip", "direct scan of batches");
  /* The fewest chips of the ranking: no layout uses fewer, and one uses that many. */
  double fewest = scale_plan_infer_fewest_chips(r);
  bool found = false;
  for (int i = 0; i < r->n_ranked; i++) {
    ck_assert(r->ranked[i].config.n_chips >= fewest);
    found = found || r->ranked[i].config.n_chips == fewest;
  }
  ck_assert(found && fewest >= int8.slice_chips);
  /* bf16 alone: every ranked layout stores weights and caches in bf16, on 16 chips or more
   * (ch. 8's smallest bf16 slice) */
  scale_plan_infer_opts b = o;
  scale_plan_infer_opts_only_dtype(&b, SCALE_DTYPE_BF16);
  ck_assert(b.allow_weight[SCALE_DTYPE_BF16] && !b.allow_weight[SCALE_DTYPE_INT8]);
  ck_assert(b.allow_kv[SCALE_DTYPE_BF16] && !b.allow_kv[SCALE_DTYPE_INT8]);
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &b, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  for (int i = 0; i < r->n_ranked; i++)
    ck_assert(r->ranked[i].config.weight_dtype == SCALE_DTYPE_BF16 &&
              r->ranked[i].config.kv_dtype == SCALE_DTYPE_BF16 &&
              r->ranked[i].config.n_chips >= 16);
  /* An impossible target ranks nothing and says why. */
  o.max_step_s = 1e-6;
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &o, r, &diag), SCALE_OK);
  ck_assert_int_eq(r->n_ranked, 0);
  ck_assert(r->n_too_slow > 0);
  scale_check_nan(scale_plan_infer_fewest_chips(r));
  o.top_k = 0;
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &o, r, &diag), SCALE_ERR_INVALID);
  free(r);
}
END_TEST

/* Issue 13 section 2: a pod of 1e308 (or inf) chips, or an infinite --max-chips, made the slice
 * loop `chips *= 2` run forever. The search stops at SCALE_PLAN_CHIPS_MAX chips (Check's
 * per-test timeout turns a regression into a failure, not a hung run). */
START_TEST(infer_search_is_bounded) {
  scale_model m;
  scale_chip v5e;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-3-8b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("tpu-v5e", &v5e, &diag), SCALE_OK);
  scale_plan_infer_opts o = scale_plan_infer_opts_default(1024, 128);
  o.allow_weight[SCALE_DTYPE_INT8] = o.allow_kv[SCALE_DTYPE_INT8] = false;
  scale_plan_infer_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  v5e.pod_shape[1] = 1e308;
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &o, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  for (int i = 0; i < r->n_ranked; i++)
    ck_assert(r->ranked[i].config.n_chips <= SCALE_PLAN_CHIPS_MAX);
  v5e.pod_shape[1] = 16;
  o.max_chips = (double)INFINITY;
  ck_assert_int_eq(scale_plan_infer(&m, &v5e, &o, r, &diag), SCALE_ERR_INVALID);
  free(r);
}
END_TEST

static Suite *plan_suite(void) {
  Suite *s = suite_create("plan");
  TCase *tc = tcase_create("search");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, ranked_layouts_are_valid_sorted_distinct);
  tcase_add_test(tc, agrees_with_brute_force);
  tcase_add_test(tc, threads_do_not_change_the_ranking);
  tcase_add_test(tc, memory_pruning);
  tcase_add_test(tc, partial_remat_fewest_layers_that_fit);
  tcase_add_test(tc, objectives_and_restrictions);
  tcase_add_test(tc, bad_problems);
  tcase_add_test(tc, ep_spans_the_tp_ranks);
  tcase_add_test(tc, infer_ranked_layouts_fit_and_meet_the_target);
  tcase_add_test(tc, infer_search_is_bounded);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(plan_suite()); }
