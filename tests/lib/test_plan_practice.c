/* test_plan_practice.c — the planner against published layouts (issue 10 "agreement with
 * practice"). For each reference configuration: the published layout is expressible, valid
 * and fits; the planner's best is at least as fast (the published layout is in its search
 * space); and the gap between the two is printed, so the chapters can quote it.
 *
 *   LLaMA 3 405B on 16,384 H100: TP 8, PP 16, ZeRO-1 DP 128, 16M-token batches of 8192
 *     (Llama 3 paper, section 3.3; book ch. 12 "What does LLaMA-3 do?").
 *   DeepSeek-V3 on 2048 H800: EP 64, PP 16, ZeRO-1 DP over the 128 data-parallel GPUs,
 *     4096 x 15360 tokens (DeepSeek-V3 report; book ch. 12). H800 is modelled as an H100:
 *     the repository has no H800 file (its NVLink is narrower), noted in the output.
 *   LLaMA 3 70B on a v5p pod: the book's takeaway layout, 1024-way data x 2-way sequence x
 *     4-way tensor parallelism on 8192 chips, 4M-token batches (ch. 6).
 *   LLaMA 3 70B serving on v5e: the smallest slices of ch. 8 (16 / 8 / 4 chips for bf16 /
 *     int8 / int4 weights).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/plan.h"
#include "scale/step.h"
#include "scale/training.h"
#include "scale_check.h"

static void load(const char *model_name, const char *chip_name, scale_model *m, scale_chip *c) {
  scale_diag diag;
  ck_assert_msg(scale_model_load(model_name, m, &diag) == SCALE_OK, "%s", diag.message);
  ck_assert_msg(scale_chip_load(chip_name, c, &diag) == SCALE_OK, "%s", diag.message);
}

/* Evaluates the published layout, runs the planner, checks best <= published, prints both. */
static void compare(const char *label, const scale_train_problem *p, scale_layout *published) {
  scale_diag diag;
  scale_train_layout_map(p->chip, p->n_chips, published);
  ck_assert_msg(scale_train_validate(p, published, &diag) == SCALE_OK, "%s: %s", label,
                diag.message);
  scale_train_result pub;
  scale_train_eval(p, published, &pub);
  ck_assert_msg(pub.fits, "%s: the published layout does not fit (%.3g GB per chip)", label,
                pub.memory_per_chip_bytes / 1e9);
  scale_plan_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(scale_plan_train(p, NULL, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  double best = r->ranked[0].result.step_time_s;
  ck_assert_msg(best <= pub.step_time_s * (1 + 1e-9),
                "%s: planner's best %.6g s is slower than the published %.6g s", label, best,
                pub.step_time_s);
  char a[200], b[200];
  printf("%s\n  published: %s: step %.4g s, MFU %.3g, %s-bound\n  planner:   %s: step %.4g s, "
         "MFU %.3g (%.3g%% faster)\n",
         label, scale_plan_layout_str(published, a, sizeof a), pub.step_time_s, pub.mfu,
         scale_train_bound_name(pub.bound), scale_plan_layout_str(&r->ranked[0].layout, b, sizeof b),
         best, r->ranked[0].result.mfu, (pub.step_time_s / best - 1) * 100);
  free(r);
}

START_TEST(llama3_405b_on_h100) {
  scale_model m;
  scale_chip c;
  load("llama-3-405b", "nvidia-h100-sxm", &m, &c);
  scale_train_problem p = scale_train_problem_make(&m, &c, 16384, 16777216, 8192);
  p.efficiency_frac = 0.4; /* the paper reports 38-43% BF16 MFU */
  scale_layout l = scale_layout_default();
  l.tp = 8, l.sp = true, l.pp = 16, l.fsdp = 128, l.zero_stage = 1;
  l.n_microbatches = 16; /* 2048 sequences / 128 data shards = 16, one per stage */
  l.schedule = SCALE_PP_INTERLEAVED; /* the paper interleaves virtual stages */
  l.n_virtual_stages = 4;
  compare("LLaMA 3 405B on 16,384 H100 (TP 8, PP 16, ZeRO-1 DP 128)", &p, &l);
}
END_TEST

START_TEST(deepseek_v3_on_h800) {
  scale_model m;
  scale_chip c;
  load("deepseek-v3", "nvidia-h100-sxm", &m, &c);
  scale_train_problem p = scale_train_problem_make(&m, &c, 2048, 4096.0 * 15360.0, 4096);
  p.efficiency_frac = 0.4;
  scale_layout l = scale_layout_default();
  l.ep = 64, l.pp = 16, l.fsdp = 128, l.zero_stage = 1;
  l.n_microbatches = 120; /* 15360 sequences / 128 shards: one sequence per microbatch */
  l.schedule = SCALE_PP_DUALPIPE; /* the report's own schedule, with its two parameter copies */
  l.remat = SCALE_REMAT_BIG_MATMULS; /* the report recomputes norms, SwiGLU and MLA
                                        up-projections: more than selective, less than block */
  /* The report keeps Adam's moments in BF16 (section 3.3.4); modelled as bf16 weights,
   * gradients and moments without a separate master copy. */
  scale_precision bf16_moments = {SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, 2, false};
  l.precision = bf16_moments;
  compare("DeepSeek-V3 on 2048 H800 as H100 (EP 64, PP 16, ZeRO-1 DP)", &p, &l);
}
END_TEST

START_TEST(llama3_70b_on_v5p) {
  scale_model m;
  scale_chip c;
  load("llama-3-70b", "tpu-v5p", &m, &c);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8192, 4194304, 4096);
  scale_layout l = scale_layout_default();
  l.fsdp = 1024, l.cp = 2, l.tp = 4;
  compare("LLaMA 3 70B on 8192 TPU v5p (ch. 6: FSDP 1024 x CP 2 x TP 4)", &p, &l);
}
END_TEST

START_TEST(llama3_70b_serving_slices) {
  /* ch. 8: bf16 weights need a 16-chip v5e slice, int8 8, int4 4; the planner restricted to
   * one weight dtype never serves on a smaller slice and does serve on that one. */
  scale_model m;
  scale_chip c;
  load("llama-3-70b", "tpu-v5e", &m, &c);
  const scale_dtype dtypes[] = {SCALE_DTYPE_BF16, SCALE_DTYPE_INT8, SCALE_DTYPE_INT4};
  const double book_slice[] = {16, 8, 4};
  scale_plan_infer_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  for (int i = 0; i < 3; i++) {
    scale_plan_infer_opts o = scale_plan_infer_opts_default(2048, 512);
    for (int d = 0; d < SCALE_DTYPE_COUNT; d++) o.allow_weight[d] = o.allow_kv[d] = false;
    o.allow_weight[dtypes[i]] = o.allow_kv[dtypes[i] == SCALE_DTYPE_BF16 ? SCALE_DTYPE_BF16
                                                                            : SCALE_DTYPE_INT8] =
        true;
    o.top_k = SCALE_PLAN_TOP_MAX;
    o.objective = SCALE_PLAN_INFER_COST;
    scale_diag diag;
    ck_assert_int_eq(scale_plan_infer(&m, &c, &o, r, &diag), SCALE_OK);
    ck_assert_int_ge(r->n_ranked, 1);
    double smallest = INFINITY;
    for (int k = 0; k < r->n_ranked; k++)
      smallest = fmin(smallest, r->ranked[k].config.n_chips);
    scale_check_rel(smallest, book_slice[i], 0, "chips", "ch. 8 smallest slice per dtype");
  }
  free(r);
}
END_TEST

/* ---- the calibrated step model against practice (issue 14 targets) ------------------------- */

static scale_step_params shipped(void) {
  scale_step_params prm;
  scale_diag diag;
  ck_assert_msg(scale_step_params_load_file(scale_step_params_path(), &prm, &diag) == SCALE_OK,
                "%s:%d: %s", diag.file, diag.line, diag.message);
  return prm;
}

/* README's headline, LLaMA 3 70B on a full v5p pod with 4M-token batches (2^22 tokens): the
 * planner's best with the step model predicts an MFU of 40-75% (published runs of this class
 * reach 40-70%; ch. 6 assumes 40%), not the roofline's 97.7%; and no ranked layout is predicted
 * faster than its roofline bound. */
START_TEST(step_headline_mfu) {
  scale_model m;
  scale_chip c;
  load("llama-3-70b", "tpu-v5p", &m, &c);
  scale_step_params prm = shipped();
  scale_train_problem p = scale_train_problem_make(&m, &c, 8960, 4194304, 4096);
  p.step_params = &prm;
  scale_plan_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  scale_diag diag;
  ck_assert_int_eq(scale_plan_train(&p, NULL, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  double mfu = r->ranked[0].result.mfu;
  char b[200];
  printf("headline (step model): %s: MFU %.3g, step %.4g s\n",
         scale_plan_layout_str(&r->ranked[0].layout, b, sizeof b), mfu,
         r->ranked[0].result.step_time_s);
  ck_assert_msg(mfu >= 0.40 && mfu <= 0.75, "headline MFU %g outside 40-75%%", mfu);
  for (int i = 0; i < r->n_ranked; i++) {
    scale_train_problem ideal = p;
    ideal.step_params = NULL;
    scale_train_result bound;
    scale_train_eval(&ideal, &r->ranked[i].layout, &bound);
    ck_assert_msg(bound.step_time_s <= r->ranked[i].result.step_time_s,
                  "rank %d: roofline %g s > step %g s", i + 1, bound.step_time_s,
                  r->ranked[i].result.step_time_s);
  }
  free(r);
}
END_TEST

/* LLaMA 3 405B on 16,384 H100 (Llama 3 paper section 3.3.2: TP 8, PP 16, DP 128 with ZeRO-1
 * style sharded optimizer state, 8192-token sequences, 16M-token batches, interleaved
 * pipeline; reported 38-43% BF16 MFU): predicted within 10% of that range, 34.2-47.3%. The
 * paper does not name its recomputation. The layout fits in 80 GB here only under the book's
 * matmuls policy (the big matmul outputs kept, 56 GB): Megatron's selective keeps everything
 * but the attention core, which flash attention never stores, so it needs what none needs,
 * about 108 GB in this memory model. The planner's
 * best keeps TP inside the 8-GPU NVLink node. */
START_TEST(step_llama3_405b) {
  scale_model m;
  scale_chip c;
  load("llama-3-405b", "nvidia-h100-sxm", &m, &c);
  scale_step_params prm = shipped();
  scale_train_problem p = scale_train_problem_make(&m, &c, 16384, 16777216, 8192);
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.tp = 8, l.sp = true, l.pp = 16, l.fsdp = 128, l.zero_stage = 1;
  l.n_microbatches = 16, l.schedule = SCALE_PP_INTERLEAVED, l.n_virtual_stages = 4;
  l.remat = SCALE_REMAT_BIG_MATMULS;
  scale_train_layout_map(&c, 16384, &l);
  scale_diag diag;
  ck_assert_msg(scale_train_validate(&p, &l, &diag) == SCALE_OK, "%s", diag.message);
  scale_train_result pub;
  scale_train_eval(&p, &l, &pub);
  printf("405B published (step model): MFU %.3g, step %.4g s, fits %d\n", pub.mfu,
         pub.step_time_s, pub.fits);
  ck_assert(pub.fits);
  ck_assert_msg(pub.mfu >= 0.38 * 0.9 && pub.mfu <= 0.43 * 1.1, "405B MFU %g", pub.mfu);
  scale_plan_report *r = malloc(sizeof *r);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(scale_plan_train(&p, NULL, r, &diag), SCALE_OK);
  ck_assert_int_ge(r->n_ranked, 1);
  for (int i = 0; i < r->n_ranked; i++) {
    const scale_plan_entry *e = &r->ranked[i];
    ck_assert_msg(e->layout.tp <= c.nvlink_domain_size, "rank %d: TP %g crosses nodes", i + 1,
                  e->layout.tp);
    ck_assert(e->result.step_time_s <= pub.step_time_s * (1 + 1e-9));
    /* the book's ideal of the same layout bounds the prediction from below */
    scale_train_problem ideal = p;
    ideal.step_params = NULL;
    scale_train_result bound;
    scale_train_eval(&ideal, &e->layout, &bound);
    ck_assert_msg(bound.step_time_s <= e->result.step_time_s,
                  "rank %d: roofline %g s > step %g s", i + 1, bound.step_time_s,
                  e->result.step_time_s);
  }
  char b[200];
  printf("405B planner (step model): %s: MFU %.3g\n",
         scale_plan_layout_str(&r->ranked[0].layout, b, sizeof b), r->ranked[0].result.mfu);
  /* issue 27: the planner's best at most 1.25x the MFU the same model gives Meta's layout (a
   * free zero-bubble pipeline had it at 56.6%) */
  ck_assert_msg(r->ranked[0].result.mfu <= 1.25 * pub.mfu, "planner MFU %g vs published %g",
                r->ranked[0].result.mfu, pub.mfu);
  free(r);
  /* The paper's 126 layers with one fewer on the first and the last stage: 128 units over 16
   * stages, which 8 virtual stages fill only with the embedding and the loss counted as
   * stages (Megatron's account-for-embedding/loss-in-pipeline-split). */
  l.n_virtual_stages = 8;
  ck_assert_int_eq(scale_train_validate(&p, &l, NULL), SCALE_ERR_INVALID);
  l.pp_embed_loss = true;
  ck_assert_msg(scale_train_validate(&p, &l, &diag) == SCALE_OK, "%s", diag.message);
  scale_train_result v8;
  scale_train_eval(&p, &l, &v8);
  printf("405B, v = 8 with embedding and loss stages (step model): MFU %.3g, bubble %.3g s\n",
         v8.mfu, v8.bubble_time_s);
  ck_assert(v8.fits);
  ck_assert_msg(v8.mfu >= 0.38 * 0.9 && v8.mfu <= 0.43 * 1.1, "405B v = 8 MFU %g", v8.mfu);
  /* twice the chunks, half the bubble: (p-1)/(v m) of the same busy time */
  ck_assert_msg(v8.bubble_time_s < 0.6 * pub.bubble_time_s, "bubble %g vs %g", v8.bubble_time_s,
                pub.bubble_time_s);
}
END_TEST

/* The roofline column bounds the prediction from below for every schedule, however few the
 * microbatches (issue 27: a zero-bubble bound at 0 bubble where the schedule cannot reach
 * it): LLaMA 3 8B on 64 H100, TP 8, every schedule at pp 2, 4, 8 and m from 1 to 2 pp. */
START_TEST(roofline_bounds_schedules) {
  scale_model m;
  scale_chip c;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &c);
  scale_step_params prm = shipped();
  scale_train_problem p = scale_train_problem_make(&m, &c, 64, 1048576, 8192);
  p.step_params = &prm;
  scale_train_problem ideal = p;
  ideal.step_params = NULL;
  int n = 0;
  for (int s = 0; s < SCALE_PP_COUNT; s++)
    for (double pp = 2; pp <= 8; pp *= 2)
      for (double mb = 1; mb <= 2 * pp; mb *= 2) {
        scale_layout l = scale_layout_default();
        l.tp = 8, l.sp = true, l.pp = pp, l.fsdp = 64 / (8 * pp), l.zero_stage = 1;
        l.schedule = (scale_pp_schedule)s, l.n_microbatches = mb, l.n_virtual_stages = 2;
        scale_train_layout_map(&c, 64, &l);
        if (scale_train_validate(&p, &l, NULL) != SCALE_OK) continue;
        scale_train_result r, bound;
        scale_train_eval(&p, &l, &r);
        scale_train_eval(&ideal, &l, &bound);
        ck_assert_msg(bound.step_time_s <= r.step_time_s && bound.bubble_time_s <= r.bubble_time_s,
                      "%s pp %g m %g: roofline %g s (bubble %g) > step %g s (bubble %g)",
                      scale_pp_schedule_name(l.schedule), pp, mb, bound.step_time_s,
                      bound.bubble_time_s, r.step_time_s, r.bubble_time_s);
        /* a pipeline that never fills is not free under any schedule */
        if (mb < pp) ck_assert(bound.bubble_time_s > 0);
        n++;
      }
  ck_assert_int_ge(n, 60);
}
END_TEST

static Suite *practice_suite(void) {
  Suite *s = suite_create("plan_practice");
  TCase *tc = tcase_create("published");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, llama3_405b_on_h100);
  tcase_add_test(tc, deepseek_v3_on_h800);
  tcase_add_test(tc, llama3_70b_on_v5p);
  tcase_add_test(tc, llama3_70b_serving_slices);
  tcase_add_test(tc, step_headline_mfu);
  tcase_add_test(tc, step_llama3_405b);
  tcase_add_test(tc, roofline_bounds_schedules);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(practice_suite()); }
