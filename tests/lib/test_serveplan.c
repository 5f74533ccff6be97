/* test_serveplan.c — the serving planner on the simulator (serveplan.h): the cost per million
 * tokens by hand, every ranked layout inside its SLO and cheapest first, an SLO no layout can meet
 * answered with the closest layout, disaggregation, and bad options.
 */
#include <math.h>
#include <string.h>

#include "scale.h"
#include "scale/serveplan.h"
#include "scale_check.h"

static void load(const char *model, const char *hw, scale_model *m, scale_chip *c) {
  scale_diag diag;
  ck_assert_msg(scale_model_load(model, m, &diag) == SCALE_OK, "%s", diag.message);
  ck_assert_msg(scale_chip_load(hw, c, &diag) == SCALE_OK, "%s", diag.message);
}

static scale_serve_plan_opts small_opts(void) {
  scale_serve_plan_opts o = scale_serve_plan_opts_default();
  o.isl.min_tokens = o.isl.max_tokens = 512;
  o.osl.min_tokens = o.osl.max_tokens = 64;
  o.max_chips = 2;
  o.n_requests = 200;
  return o;
}

START_TEST(test_offline_cost) {
  /* No SLO: each layout runs at its offline maximum, and its cost is the slice's price over its
   * tokens: $10.8/h (hardware file) x chips / 3600 s / tokens/s x 1e6. */
  scale_model m;
  scale_chip chip;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &chip);
  scale_serve_plan_opts o = small_opts();
  scale_serve_plan_report r;
  scale_diag diag;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert(r.met && r.n_ranked > 0 && r.fitted);
  for (int i = 0; i < r.n_ranked; i++) {
    const scale_serve_plan_entry *e = &r.ranked[i];
    scale_check_rel(e->usd_per_million_tokens, 10.8 * e->chips / 3600.0 / e->tokens_per_s * 1e6,
                    1e-12, "USD", "price x chips / tokens per hour");
    ck_assert(isinf(e->rate_per_s)); /* offline */
    if (i > 0) ck_assert(e->usd_per_million_tokens >= r.ranked[i - 1].usd_per_million_tokens);
  }
  /* every candidate counted: tp 1 and 2 x 4 dtypes x 4 batch caps */
  ck_assert_int_eq(r.n_candidates, 32);
}
END_TEST

START_TEST(test_slo_respected) {
  /* With an SLO every ranked layout meets it at its rate (p90 TTFT and TPOT within it). */
  scale_model m;
  scale_chip chip;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &chip);
  scale_serve_plan_opts o = small_opts();
  o.ttft_slo_s = 0.5;
  o.tpot_slo_s = 0.03;
  o.allow_dtype[SCALE_DTYPE_INT4] = o.allow_dtype[SCALE_DTYPE_INT8] = false;
  scale_serve_plan_report r;
  scale_diag diag;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert(r.met && r.n_ranked > 0);
  for (int i = 0; i < r.n_ranked; i++) {
    const scale_serve_plan_entry *e = &r.ranked[i];
    ck_assert(e->feasible && e->excess <= 1.0);
    ck_assert_msg(e->ttft_p90_s <= 0.5 && e->tpot_p90_s <= 0.03, "%g %g", e->ttft_p90_s,
                  e->tpot_p90_s);
    ck_assert(e->rate_per_s > 0.0 && isfinite(e->rate_per_s));
  }
}
END_TEST

START_TEST(test_slo_unmeetable) {
  /* A 1 us TTFT: no prefill of 512 tokens is that fast (2 x 8e9 x 512 FLOPs alone take 4 ms at
   * the H100's 2e15 fp8 peak), so no layout meets it at any rate. The answer says so and names
   * the closest layout, whose excess is its p90 TTFT over the SLO. */
  scale_model m;
  scale_chip chip;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &chip);
  scale_serve_plan_opts o = small_opts();
  o.ttft_slo_s = 1e-6;
  scale_serve_plan_report r;
  scale_diag diag;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert(!r.met);
  ck_assert_int_eq(r.n_ranked, 0);
  ck_assert(r.closest.ttft_p90_s > 2.0 * 8e9 * 512 / 2e15);
  scale_check_rel(r.closest.excess, r.closest.ttft_p90_s / 1e-6, 1e-12, "1", "p90 TTFT / SLO");
}
END_TEST

START_TEST(test_disaggregated) {
  /* --disagg adds layouts of a decode copy with 0.25-4 prefill copies each: a unit's chips are
   * tp (1 + ratio), and the report keeps the best of each kind. */
  scale_model m;
  scale_chip chip;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &chip);
  scale_serve_plan_opts o = small_opts();
  o.max_chips = 1;
  o.allow_dtype[SCALE_DTYPE_INT4] = o.allow_dtype[SCALE_DTYPE_INT8] = false;
  o.allow_dtype[SCALE_DTYPE_BF16] = false;
  o.ttft_slo_s = 1.0;
  o.tpot_slo_s = 0.05;
  o.disagg = true;
  scale_serve_plan_report r;
  scale_diag diag;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert(r.has_aggregated && r.has_disaggregated);
  const scale_serve_plan_entry *d = &r.best_disaggregated;
  ck_assert(d->disagg && !r.best_aggregated.disagg);
  scale_check_rel(d->chips, d->tp * (1.0 + d->prefill_copies), 1e-12, "chips", "tp (1 + ratio)");
  ck_assert(d->ttft_p90_s <= 1.0 && d->tpot_p90_s <= 0.05);
}
END_TEST

START_TEST(test_bad_options) {
  scale_model m;
  scale_chip chip;
  load("llama-3-70b", "tpu-v5e", &m, &chip);
  scale_serve_plan_report r;
  scale_diag diag;
  scale_serve_plan_opts o = small_opts();
  o.isl.min_tokens = o.isl.max_tokens = 9000; /* above LLaMA 3's 8192 */
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_ERR_RANGE);
  o = small_opts();
  o.tpot_slo_s = 0.0;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_ERR_RANGE);
  o = small_opts();
  memset(o.allow_dtype, 0, sizeof o.allow_dtype);
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_ERR_RANGE);
  ck_assert(scale_serve_plan(NULL, &chip, &o, &r, &diag) == SCALE_ERR_INVALID);
  /* a search of hours is refused: 13 slice sizes x 4 dtypes x 4 caps x 10 runs x 1e5 requests
   * x (1 + 2000) request-steps = 4.2e12 */
  o = small_opts();
  o.max_chips = 4096;
  o.n_requests = 1e5;
  o.osl.min_tokens = o.osl.max_tokens = 2000;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_ERR_RANGE);
  ck_assert(strstr(diag.message, "request-steps") != NULL);
  /* nothing fits: bf16 70B (141 GB) on one v5e (16 GB) is not an error */
  o = small_opts();
  o.max_chips = 1;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert_int_eq(r.n_too_big, r.n_candidates);
  ck_assert(!r.met && isinf(r.closest.excess));
}
END_TEST

START_TEST(test_fleet) {
  /* A fleet for 200 requests/s: each ranked layout replicated ceil(200 / its sustainable rate)
   * times (the fewest whose rates add up to 200), its price the replicas' chips at $10.8/h, and
   * the layouts ranked by that price; a zero rate sizes nothing. */
  scale_model m;
  scale_chip chip;
  load("llama-3-8b", "nvidia-h100-sxm", &m, &chip);
  scale_serve_plan_opts o = small_opts();
  o.ttft_slo_s = 0.5;
  o.tpot_slo_s = 0.03;
  o.allow_dtype[SCALE_DTYPE_INT4] = o.allow_dtype[SCALE_DTYPE_INT8] = false;
  o.fleet_rate_per_s = 200;
  scale_serve_plan_report r;
  scale_diag diag;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_OK);
  ck_assert(r.met && r.n_ranked > 0);
  for (int i = 0; i < r.n_ranked; i++) {
    const scale_serve_plan_entry *e = &r.ranked[i];
    ck_assert(e->unit_rate_per_s == e->rate_per_s);
    ck_assert_msg(e->replicas * e->rate_per_s >= 200 && (e->replicas - 1) * e->rate_per_s < 200,
                  "%g units of %g/s", e->replicas, e->rate_per_s);
    scale_check_rel(e->fleet_usd_per_hour, 10.8 * e->replicas * e->chips, 1e-12, "USD/h",
                    "replicas x chips x price");
    if (i > 0) ck_assert(e->fleet_usd_per_hour >= r.ranked[i - 1].fleet_usd_per_hour);
    /* a GPU copy prices its MLPs 1-D in both phases (the only layout an NVLink switch runs
     * besides gathering, which loses at these token counts) */
    ck_assert(e->prefill_layout == SCALE_FFN_WS_1D && e->decode_layout == SCALE_FFN_WS_1D);
  }
  o.fleet_rate_per_s = -1;
  ck_assert(scale_serve_plan(&m, &chip, &o, &r, &diag) == SCALE_ERR_RANGE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("serveplan");
  const scale_check_case cases[] = {
      {"bad_options", test_bad_options},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  const scale_check_case slow[] = {
      {"offline_cost", test_offline_cost},
      {"slo_respected", test_slo_respected},
      {"slo_unmeetable", test_slo_unmeetable},
      {"disaggregated", test_disaggregated},
      {"fleet", test_fleet},
  };
  for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
    TCase *tc = tcase_create(slow[i].name);
    tcase_add_test(tc, slow[i].test);
    tcase_set_timeout(tc, 110);
    suite_add_tcase(s, tc);
  }
  return scale_check_run(s);
}
