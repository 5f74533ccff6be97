/* test_serve.c — the request-stream simulator of serve.h: the closed-form limits of issue 15
 * (a very low rate gives TTFT = the prefill and TPOT = the batch-1 decode step; saturation gives
 * the offline maximum), chunked prefill, what binds, determinism, conservation, bad parameters.
 * Expected values are hand derivations written beside them.
 */
#include <math.h>
#include <string.h>

#include "scale.h"
#include "scale/serve.h"
#include "scale_check.h"
#include "serve_fixture.h"

/* The fixture's linear cost a + b (decode tokens + prompt tokens), a = 0.01 s, b = 0.001 s, and
 * its engine (serve_fixture.h), under Poisson arrivals at 'rate': every expected time below is
 * a sum of such steps, so it can be derived by hand. */
static scale_serve_config linear_config(double rate, double n, double isl, double osl) {
  scale_serve_config c = serve_fixture_config(n, isl, osl);
  c.rate_per_s = rate;
  return c;
}

/* ---- the low-rate limit ------------------------------------------------------------------- */

START_TEST(test_low_rate_linear) {
  /* One request at a time (mean gap 1e6 s, each lasts under a second). The prefill of 100 tokens
   * is one step: TTFT = a + 100 b = 0.01 + 0.1 = 0.11 s. Each decode step holds one token:
   * TPOT = a + b = 0.011 s. */
  scale_serve_config c = linear_config(1e-6, 20, 100, 10);
  scale_serve_result r = serve_fixture_run(&c);
  /* (1e-6: TTFT is a difference of times near 1e7 s, so it keeps about 9 digits) */
  scale_check_rel(r.ttft_p50_s, 0.11, 1e-6, "s", "a + 100 b");
  scale_check_rel(r.ttft_p99_s, 0.11, 1e-6, "s", "a + 100 b");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-6, "s", "a + b");
  scale_check_rel(r.tpot_p99_s, 0.011, 1e-6, "s", "a + b");
  scale_check_rel(r.steady_batch, 1.0, 1e-12, "", "one request at a time");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_LOAD);
}
END_TEST

START_TEST(test_low_rate_roofline) {
  /* LLaMA 3.1 8B class (llama-3-8b) on one H100, bf16: batch 1 decode is bytes-bound, so the
   * decode step at context S is (param_bytes + S kv) / W (ch. 7), which is what
   * scale_infer_decode_eval gives at batch 1 on one chip (no ICI). Decode step j (j = 1..osl-1)
   * reads isl + j tokens, so a request's TPOT is the step at the mean context isl + osl/2
   * (the step is linear in S). The prefill of isl = 1000 tokens is compute-bound:
   * TTFT = 2 N isl / (C mfu). */
  serve_fixture_copy llama;
  serve_fixture_llama_8b_h100(&llama, 1050.5, 0.0);
  scale_serve_config c = linear_config(1e-6, 10, 1000, 101);
  serve_fixture_use_roofline(&c, &llama.rf);
  scale_serve_result r = serve_fixture_run(&c);
  double prefill = 2.0 * llama.rf.n_params * 1000 / (llama.rf.flops_per_s * llama.rf.mfu_frac);
  ck_assert(prefill >
            llama.rf.param_bytes / llama.rf.hbm_bytes_per_s); /* compute-bound, as assumed */
  scale_check_rel(r.ttft_p50_s, prefill, 1e-6, "s", "2 N P / (C mfu)");
  scale_infer_decode d = scale_infer_decode_eval(&llama.model, &llama.chip, &llama.ic);
  ck_assert_int_eq(d.bound, SCALE_BOUND_PARAMS);
  scale_check_rel(r.tpot_p50_s, d.step_s, 1e-6, "s", "inference.h batch-1 decode step");
  scale_check_rel(r.tpot_p99_s, d.step_s, 1e-6, "s", "inference.h batch-1 decode step");
  /* a per-step overhead adds to both */
  llama.rf.overhead_s = 1e-3;
  r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, prefill + 1e-3, 1e-6, "s", "prefill + overhead");
  scale_check_rel(r.tpot_p50_s, d.step_s + 1e-3, 1e-6, "s", "decode step + overhead");
}
END_TEST

START_TEST(test_chunked_prefill) {
  /* Budget 4 tokens a step, batch cap 4, one request at a time, isl 10, osl 3: the prompt takes
   * chunks 4, 4, 2 (three steps), TTFT = 3 a + 10 b = 0.04 s; then two decode steps of a + b:
   * TPOT = 0.011 s. */
  scale_serve_config c = linear_config(1e-6, 5, 10, 3);
  c.max_batch = 4;
  c.max_step_tokens = 4;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.04, 1e-6, "s", "3 a + 10 b");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-6, "s", "a + b");
  scale_check_rel(r.n_steps, 5 * 5, 1e-12, "", "3 prefill + 2 decode steps per request");
  /* the prompt waited for the budget in the first two steps of each request: 2 (a + 4 b) =
   * 0.028 s, five times; the rest (0.012 + 2 x 0.011 = 0.034 s) waited for nothing: load binds */
  scale_check_rel(r.bind_s[SCALE_SERVE_BIND_COMPUTE], 5 * 0.028, 1e-9, "s", "2 chunked steps");
  scale_check_rel(r.bind_s[SCALE_SERVE_BIND_LOAD], 5 * 0.034, 1e-9, "s", "the other 3");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_LOAD);
}
END_TEST

/* ---- the saturation limit ----------------------------------------------------------------- */

START_TEST(test_saturation_batch_cap) {
  /* All 1600 requests at t = 0, batch cap 16, unlimited budget and KV: 16 requests enter
   * together, prefill in one step (16 x 100 tokens) and decode 49 steps of 16 tokens, finish
   * together; 100 such cycles. Cycle = 50 a + b 16 (100 + 49) = 0.5 + 2.384 = 2.884 s for
   * 16 x 50 = 800 tokens: 277.39 tokens/s, the offline maximum B osl / (osl a + b B (isl + osl
   * - 1)). */
  scale_serve_config c = linear_config(INFINITY, 1600, 100, 50);
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.throughput_tokens_per_s, 800.0 / 2.884, 1e-9, "tokens/s", "closed form");
  scale_check_rel(r.makespan_s, 100 * 2.884, 1e-9, "s", "100 cycles");
  scale_check_rel(r.steady_batch, 16.0, 1e-12, "", "the cap");
  scale_check_rel(scale_serve_offline_batch(&c), 16.0, 0, "", "min(16, 1e6 / 10)");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_BATCH);
  /* p99 by nearest rank is request ceil(0.99 x 1600) = 1584, in the 99th cycle: 98 cycles
   * queued + its prefill step (a + 1600 b = 1.61 s) */
  scale_check_rel(r.ttft_p99_s, 98 * 2.884 + 1.61, 1e-9, "s", "queued 98 cycles");
}
END_TEST

START_TEST(test_saturation_kv) {
  /* 150 tokens a request in 16-token blocks: 10 blocks; 95 blocks hold 9 requests (the KV, not
   * the cap of 16, binds). Cycle of 9: 50 a + 9 x 149 b = 0.5 + 1.341 = 1.841 s for 450 tokens. */
  scale_serve_config c = linear_config(INFINITY, 900, 100, 50);
  c.kv_blocks = 95;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(scale_serve_offline_batch(&c), 9.0, 0, "", "floor(95 / 10)");
  scale_check_rel(r.throughput_tokens_per_s, 450.0 / 1.841, 1e-9, "tokens/s", "closed form");
  scale_check_rel(r.max_running, 9.0, 0, "", "KV-limited batch");
  scale_check_rel(r.kv_peak_frac, 90.0 / 95.0, 1e-12, "", "9 x 10 blocks");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_KV);
  ck_assert_str_eq(scale_serve_bind_name(r.bind), "kv");
  ck_assert(r.n_samples > 0 && r.n_samples <= SCALE_SERVE_N_SAMPLES);
  for (int i = 0; i < r.n_samples; i++)
    ck_assert(r.sample_kv_frac[i] <= 90.0 / 95.0 + 1e-12);
}
END_TEST

START_TEST(test_saturation_roofline) {
  /* The roofline cost on llama-3-8b / H100: a cycle of B requests is one prefill step of B isl
   * tokens plus osl - 1 decode steps at contexts isl + j, priced here by the cost function
   * itself, step by step (a path independent of the simulator's bookkeeping). */
  serve_fixture_copy llama;
  serve_fixture_llama_8b_h100(&llama, 2048, 2e-3);
  scale_serve_config c = linear_config(INFINITY, 0, 512, 128);
  serve_fixture_use_roofline(&c, &llama.rf);
  c.max_batch = 4096;
  c.max_step_tokens = 1e7;
  double b = scale_serve_offline_batch(&c); /* KV-limited: 640 tokens = 40 blocks each */
  ck_assert(b > 1 && b < 4096);
  c.n_requests = 20 * b;
  scale_serve_result r = serve_fixture_run(&c);
  scale_serve_step s = {0, 0, b * 512, b, 0};
  double cycle = scale_serve_roofline_cost_s(&s, &llama.rf);
  for (int j = 1; j < 128; j++) {
    scale_serve_step d = {b, b * (512 + j), 0, 0, 0};
    cycle += scale_serve_roofline_cost_s(&d, &llama.rf);
  }
  scale_check_rel(r.throughput_tokens_per_s, b * 128 / cycle, 1e-9, "tokens/s", "closed form");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_KV);
}
END_TEST

/* ---- determinism and conservation --------------------------------------------------------- */

static scale_serve_config stream_config(uint64_t seed) {
  scale_serve_config c = linear_config(200, 3000, 0, 0);
  c.isl.min_tokens = 10, c.isl.max_tokens = 300;
  c.osl.min_tokens = 1, c.osl.max_tokens = 60;
  c.max_batch = 32;
  c.max_step_tokens = 256;
  c.kv_blocks = 200;
  c.seed = seed;
  c.ttft_slo_s = 0.5;
  c.tpot_slo_s = 0.05;
  return c;
}

START_TEST(test_determinism) {
  scale_serve_config c = stream_config(42);
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_OK);
  scale_serve_result r1, r2;
  ck_assert(scale_serve_run(sim, &r1, &diag) == SCALE_OK);
  ck_assert(scale_serve_run(sim, &r2, &diag) == SCALE_OK); /* rerun: same */
  ck_assert(memcmp(&r1, &r2, sizeof r1) == 0);
  scale_serve_result r3 = serve_fixture_run(&c); /* a new simulator, same seed: same */
  ck_assert(memcmp(&r1, &r3, sizeof r1) == 0);
  scale_serve_free(sim);
  scale_serve_config other = stream_config(43);
  scale_serve_result r4 = serve_fixture_run(&other);
  ck_assert(r4.makespan_s != r1.makespan_s);
  scale_serve_free(NULL); /* a no-op */
}
END_TEST

START_TEST(test_conservation) {
  /* Every request finishes; with fixed lengths the tokens are requests x length. */
  scale_serve_config c = linear_config(50, 2000, 200, 40);
  c.max_batch = 8;
  c.max_step_tokens = 64;
  c.kv_blocks = 60; /* 240 tokens = 15 blocks: 4 at once */
  scale_serve_result r = serve_fixture_run(&c);
  ck_assert(r.n_requests == 2000);
  ck_assert(r.output_tokens == 2000.0 * 40);
  ck_assert(r.input_tokens == 2000.0 * 200);
  ck_assert(r.max_running <= 4 && r.kv_peak_frac <= 1.0);
  /* each step moves at most 64 tokens: at least 2000 x 239 / 64 steps */
  ck_assert(r.n_steps >= 2000.0 * 239 / 64);
  ck_assert(r.good_frac == 1.0); /* no SLO */
  scale_check_rel(r.goodput_tokens_per_s, r.throughput_tokens_per_s, 1e-12, "tokens/s",
                  "all good without an SLO");
  /* uniform lengths: the mean of osl in [1, 60] is 30.5; 3000 requests */
  scale_serve_config s = stream_config(7);
  scale_serve_result u = serve_fixture_run(&s);
  ck_assert(u.n_requests == 3000);
  scale_check_rel(u.output_tokens / 3000, 30.5, 0.05, "tokens", "mean of U{1..60}");
  scale_check_rel(u.input_tokens / 3000, 155, 0.05, "tokens", "mean of U{10..300}");
  ck_assert(u.ttft_p50_s <= u.ttft_p90_s && u.ttft_p90_s <= u.ttft_p99_s);
  ck_assert(u.tpot_p50_s <= u.tpot_p90_s && u.tpot_p90_s <= u.tpot_p99_s);
  ck_assert(u.good_frac >= 0 && u.good_frac <= 1);
  ck_assert(u.goodput_tokens_per_s <= u.throughput_tokens_per_s);
}
END_TEST

START_TEST(test_prefilled) {
  /* A decode pool (disaggregated serving): requests arrive with their prompt's KV and first
   * token, so TTFT is 0 and, one at a time, each of the 9 later tokens is a step of one decode
   * token: TPOT = a + b = 0.011 s. The KV blocks still count the prompt: 100 + 10 tokens in
   * 16-token blocks = 7 blocks. A decode pool needs outputs of 2 tokens or more. */
  scale_serve_config c = linear_config(1e-6, 20, 100, 10);
  c.prefilled = true;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p99_s, 0.0, 0, "s", "the first token came with the request");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-6, "s", "a + b");
  scale_check_rel(r.input_tokens, 20 * 100, 0, "tokens", "prompts counted, not prefilled");
  c.kv_blocks = 6; /* one request needs 7 */
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_ERR_RANGE);
  c = linear_config(1e-6, 20, 100, 1);
  c.prefilled = true;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_ERR_RANGE);
  ck_assert(sim == NULL);
}
END_TEST

/* The linear cost that also keeps the step with the most prefill attention work. */
typedef struct {
  serve_fixture_linear lin;
  scale_serve_step widest;
} recorder;

static double recording_cost(const scale_serve_step *step, void *ctx) {
  recorder *r = ctx;
  if (step->prefill_ctx_tokens > r->widest.prefill_ctx_tokens) r->widest = *step;
  return serve_fixture_linear_cost(step, &r->lin);
}

START_TEST(test_prefix_cache) {
  /* One request at a time, isl 1000, osl 10, three quarters of each prompt in the prefix cache:
   * floor(0.75 x 1000) = 750 tokens arrive with their KV, so the prefill is one step of the
   * other 250: TTFT = a + 250 b = 0.01 + 0.25 = 0.26 s (0.01 + 1 = 1.01 s without the cache).
   * Those 250 tokens still attend to the 750 before them: token 750 + j attends to 750 + j
   * tokens, so the step's attention work is 250 x 750 + 250 x 251 / 2 = 187,500 + 31,375 =
   * 218,875. Decode is unchanged: TPOT = a + b. */
  recorder rec = {{0.01, 0.001}, {0, 0, 0, 0, 0}};
  scale_serve_config c = linear_config(1e-6, 20, 1000, 10);
  c.cost = recording_cost;
  c.cost_ctx = &rec;
  c.prefix_hit_frac = 0.75;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.26, 1e-6, "s", "a + 250 b");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-6, "s", "a + b");
  scale_check_rel(rec.widest.n_prefill_tokens, 250, 0, "tokens", "the uncached quarter");
  scale_check_rel(rec.widest.prefill_ctx_tokens, 218875, 0, "tokens^2", "250 x 750 + 250 x 251 / 2");
  scale_check_rel(r.input_tokens, 20 * 1000, 0, "tokens", "every prompt token counted");
  scale_check_rel(r.cached_tokens, 20 * 750, 0, "tokens", "750 of each found in the cache");
  /* A whole prompt in the cache still computes its last token (its logits make the first
   * output): TTFT = a + b, attending to 999 + 1 = 1000 tokens. */
  c.prefix_hit_frac = 1.0;
  rec.widest = (scale_serve_step){0, 0, 0, 0, 0};
  r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.011, 1e-6, "s", "a + 1 b");
  scale_check_rel(rec.widest.prefill_ctx_tokens, 1000, 0, "tokens^2", "999 + 1");
  /* outside [0, 1], and on a decode pool (its prompts were prefilled elsewhere): refused */
  c.cost = serve_fixture_linear_cost;
  c.cost_ctx = &rec.lin;
  scale_serve_config b = c;
  b.prefix_hit_frac = 1.5, serve_fixture_expect_range(&b, "prefix");
  b.prefix_hit_frac = NAN, serve_fixture_expect_range(&b, "prefix");
  b.prefix_hit_frac = -0.1, serve_fixture_expect_range(&b, "prefix");
  b.prefix_hit_frac = 0.5, b.prefilled = true, serve_fixture_expect_range(&b, "prefix");
}
END_TEST

static double zero_draft_cost(const scale_serve_step *step, void *ctx) {
  (void)step;
  (void)ctx;
  return 0.0;
}

/* A draft model's step: 0.002 s + 0.0001 s a drafting request. */
static double draft_cost(const scale_serve_step *step, void *ctx) {
  (void)ctx;
  return 0.002 + 0.0001 * step->n_decode;
}

START_TEST(test_speculative) {
  /* One request at a time, isl 100, osl 9, two tokens drafted a step, every draft accepted.
   * TTFT = a + 100 b = 0.11 s (the prefill drafts nothing). Then, from 1 token made:
   *   drafts min(2, 9 - 1 - 1) = 2: verify a + 3 b = 0.013 s, drafting 2 x 0.0021 = 0.0042 s;
   *     keeps 1 + 2: 4 made
   *   drafts min(2, 9 - 4 - 1) = 2: 0.0172 s again, 7 made
   *   drafts min(2, 9 - 7 - 1) = 1: a + 2 b + 0.0021 = 0.0141 s, 9 made: done.
   * TPOT = (2 x 0.0172 + 0.0141) / 8 = 0.0060625 s (0.011 s without drafts); 5 drafted and
   * accepted, 0.0105 s of drafting, per request. */
  scale_serve_config c = linear_config(1e-6, 20, 100, 9);
  c.spec_tokens = 2;
  c.spec_accept_frac = 1.0;
  c.spec_draft_cost = draft_cost;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.11, 1e-6, "s", "a + 100 b");
  scale_check_rel(r.tpot_p50_s, 0.0060625, 1e-6, "s", "(2 x 0.0172 + 0.0141) / 8");
  scale_check_rel(r.drafted_tokens, 20 * 5, 0, "tokens", "2 + 2 + 1 a request");
  scale_check_rel(r.accepted_tokens, 20 * 5, 0, "tokens", "all accepted");
  scale_check_rel(r.draft_s, 20 * 0.0105, 1e-9, "s", "5 draft steps of 0.0021 s");
  scale_check_rel(r.output_tokens, 20 * 9, 0, "tokens", "no token past the output length");
  /* None accepted: a token a step, drafts 2 for 6 steps, then 1, then none:
   * (6 x 0.0172 + 0.0141 + 0.011) / 8 = 0.0160375 s, slower than no drafts at all. */
  c.spec_accept_frac = 0.0;
  r = serve_fixture_run(&c);
  scale_check_rel(r.tpot_p50_s, 0.0160375, 1e-6, "s", "(6 x 0.0172 + 0.0141 + 0.011) / 8");
  scale_check_rel(r.drafted_tokens, 20 * 13, 0, "tokens", "6 x 2 + 1 a request");
  ck_assert(r.accepted_tokens == 0.0);
  /* Long outputs at acceptance 0.8, four drafts: a step keeps on average
   * (1 - 0.8^5) / (1 - 0.8) = 3.3616 tokens (inference.h's expected tokens), so 2.3616 of every
   * 4 drafts, 0.5904 (the last steps of each request draft fewer: within 2%). */
  c = linear_config(1e-6, 20, 100, 2000);
  c.spec_tokens = 4;
  c.spec_accept_frac = 0.8;
  c.spec_draft_cost = draft_cost;
  r = serve_fixture_run(&c);
  scale_check_rel(r.accepted_tokens / r.drafted_tokens,
                  (scale_infer_spec_expected_tokens(0.8, 4) - 1.0) / 4.0, 0.02, "",
                  "accepted share of drafts");
  /* bad settings */
  scale_serve_config b = c;
  b.spec_tokens = 65, serve_fixture_expect_range(&b, "speculative");
  b.spec_tokens = 1.5, serve_fixture_expect_range(&b, "speculative");
  b = c, b.spec_accept_frac = 1.2, serve_fixture_expect_range(&b, "speculative");
  b = c, b.spec_accept_frac = NAN, serve_fixture_expect_range(&b, "speculative");
  b = c, b.spec_draft_cost = NULL;
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert_int_eq(scale_serve_new(&b, &sim, &diag), SCALE_ERR_INVALID);
  ck_assert(sim == NULL);
  /* a draft that costs nothing would be free decoding: an error of the run */
  b = c, b.spec_draft_cost = zero_draft_cost;
  ck_assert(scale_serve_new(&b, &sim, &diag) == SCALE_OK);
  ck_assert_int_eq(scale_serve_run(sim, &r, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "draft"));
  scale_serve_free(sim);
}
END_TEST

START_TEST(test_kv_on_demand) {
  /* Two requests at t = 0, isl 16, osl 33, 16-token blocks, 5 blocks in all. A whole life is
   * 49 tokens, 4 blocks, so reserving it admits one request at a time: each prefills in
   * a + 16 b = 0.026 s and decodes 32 steps of a + b = 0.011 s: makespan 2 x 0.378 = 0.756 s.
   * On demand each is admitted with its prompt and next token, 17 tokens = 2 blocks:
   *   step 1      both prefill, a + 32 b = 0.042 s (TTFT 0.042 s for both)
   *   steps 2-17  both decode, 2 blocks each while the context is <= 32 tokens: 16 x 0.012 s
   *   step 18     at 33 tokens each needs a third block: the first gets it (5 used), the
   *               second, the most recent, is preempted (3 used) and waits, its 16 + 17 = 33
   *               tokens to prefill again needing 3 blocks; the first decodes alone
   *   to its end  16 steps of 0.011 s: done at 0.042 + 0.192 + 0.176 = 0.410 s, 3 blocks freed
   *   then        the second prefills 33 tokens, a + 33 b = 0.043 s, making its 18th token, and
   *               decodes 15 steps: done at 0.410 + 0.043 + 0.165 = 0.618 s. */
  scale_serve_config c = linear_config(INFINITY, 2, 16, 33);
  c.kv_blocks = 5;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.makespan_s, 0.756, 1e-9, "s", "one at a time, reserved");
  ck_assert(r.preemptions == 0.0);
  c.kv_on_demand = true;
  r = serve_fixture_run(&c);
  scale_check_rel(r.makespan_s, 0.618, 1e-9, "s", "on demand, one preemption");
  scale_check_rel(r.preemptions, 1, 0, "", "the second request, once");
  scale_check_rel(r.recomputed_tokens, 33, 0, "tokens", "its prompt and 17 tokens again");
  scale_check_rel(r.ttft_p99_s, 0.042, 1e-9, "s", "both first tokens from step 1");
  scale_check_rel(r.tpot_p99_s, (0.618 - 0.042) / 32, 1e-9, "s", "the preempted one's TPOT");
  scale_check_rel(r.output_tokens, 66, 0, "tokens", "every token made once");
  ck_assert(r.kv_peak_frac <= 1.0);
  /* With blocks to spare nothing is preempted and the run is the reserved one's. */
  scale_serve_config roomy = linear_config(1e-6, 20, 100, 40);
  scale_serve_result a = serve_fixture_run(&roomy);
  roomy.kv_on_demand = true;
  scale_serve_result b = serve_fixture_run(&roomy);
  ck_assert(b.preemptions == 0.0);
  scale_check_rel(b.makespan_s, a.makespan_s, 1e-12, "s", "same run");
  scale_check_rel(b.tpot_p50_s, a.tpot_p50_s, 1e-12, "s", "same TPOT");
  /* Under pressure, with drafts and a prefix cache too: every request still finishes with
   * every token once, the cache never overfills, and requests were preempted. */
  scale_serve_config p = linear_config(INFINITY, 300, 10, 10);
  p.isl.max_tokens = 200;
  p.osl.max_tokens = 300;
  p.kv_blocks = 64; /* 500 tokens need 32 */
  p.kv_on_demand = true;
  p.spec_tokens = 2;
  p.spec_accept_frac = 0.6;
  p.spec_draft_cost = draft_cost;
  p.prefix_hit_frac = 0.3;
  r = serve_fixture_run(&p);
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert(scale_serve_new(&p, &sim, &diag) == SCALE_OK);
  ck_assert(scale_serve_run(sim, &a, &diag) == SCALE_OK);
  scale_serve_free(sim);
  ck_assert(r.n_requests == 300.0 && r.preemptions > 0.0 && r.kv_peak_frac <= 1.0);
  ck_assert(a.makespan_s == r.makespan_s); /* deterministic */
  ck_assert(isfinite(r.tpot_p99_s) && isfinite(r.ttft_p99_s));
}
END_TEST

START_TEST(test_warmup) {
  /* Four requests at t = 0, one running at a time (batch cap 1), isl 10, osl 2: each takes a
   * prefill of a + 10 b = 0.02 s and a decode of a + b = 0.011 s, so request k's TTFT is
   * 0.031 k + 0.02: 0.02, 0.051, 0.082, 0.113 s (p50 0.051, mean 0.0665). Leaving out a warm-up
   * of two: 0.082 and 0.113 (p50 0.082, mean 0.0975); the makespan, 4 x 0.031 = 0.124 s,
   * counts every request either way. */
  scale_serve_config c = linear_config(INFINITY, 4, 10, 2);
  c.max_batch = 1;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.051, 1e-9, "s", "all four");
  scale_check_rel(r.ttft_mean_s, 0.0665, 1e-9, "s", "all four");
  c.warmup_requests = 2;
  r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.082, 1e-9, "s", "the last two");
  scale_check_rel(r.ttft_mean_s, 0.0975, 1e-9, "s", "the last two");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-9, "s", "a + b");
  scale_check_rel(r.itl_p50_s, 0.011, 0.005, "s", "their decode steps (binned)");
  scale_check_rel(r.makespan_s, 0.124, 1e-9, "s", "every request");
  scale_serve_config b = c;
  b.warmup_requests = 4, serve_fixture_expect_range(&b, "warm-up");
  b.warmup_requests = 1.5, serve_fixture_expect_range(&b, "warm-up");
}
END_TEST

START_TEST(test_goodput) {
  /* Low rate, linear cost: TTFT 0.11 s and TPOT 0.011 s for every request (test_low_rate). */
  scale_serve_config c = linear_config(1e-6, 10, 100, 10);
  c.ttft_slo_s = 0.2;
  c.tpot_slo_s = 0.02;
  ck_assert(serve_fixture_run(&c).good_frac == 1.0);
  c.ttft_slo_s = 0.1; /* below 0.11 */
  scale_serve_result r = serve_fixture_run(&c);
  ck_assert(r.good_frac == 0.0 && r.goodput_tokens_per_s == 0.0);
  c.ttft_slo_s = 0.2;
  c.tpot_slo_s = 0.01; /* below 0.011 */
  ck_assert(serve_fixture_run(&c).good_frac == 0.0);
}
END_TEST

/* ---- bad parameters ----------------------------------------------------------------------- */

static double zero_cost(const scale_serve_step *step, void *ctx) {
  (void)step;
  (void)ctx;
  return 0.0;
}

START_TEST(test_bad_parameters) {
  scale_serve_config c = linear_config(1, 10, 100, 10), b;
  b = c, b.rate_per_s = 0, serve_fixture_expect_range(&b, "rate");
  b = c, b.rate_per_s = NAN, serve_fixture_expect_range(&b, "rate");
  b = c, b.rate_per_s = -1, serve_fixture_expect_range(&b, "rate");
  b = c, b.n_requests = 0, serve_fixture_expect_range(&b, "requests");
  b = c, b.n_requests = 2.5, serve_fixture_expect_range(&b, "requests");
  b = c, b.isl.min_tokens = -5, serve_fixture_expect_range(&b, "input");
  b = c, b.osl.max_tokens = -1, serve_fixture_expect_range(&b, "output");
  b = c, b.osl.min_tokens = 20, b.osl.max_tokens = 10, serve_fixture_expect_range(&b, "output");
  b = c, b.max_batch = 0, serve_fixture_expect_range(&b, "batch");
  b = c, b.max_step_tokens = 8, serve_fixture_expect_range(&b, "budget"); /* below the cap of 16 */
  b = c, b.block_tokens = 0, serve_fixture_expect_range(&b, "KV");
  b = c, b.kv_blocks = 6,
  serve_fixture_expect_range(&b, "blocks"); /* 110 tokens need 7 blocks of 16 */
  b = c, b.ttft_slo_s = 0, serve_fixture_expect_range(&b, "SLO");
  b = c, b.cost = NULL;
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert_int_eq(scale_serve_new(&b, &sim, &diag), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_serve_new(NULL, &sim, &diag), SCALE_ERR_INVALID);
  /* a cost function that returns 0 s would never advance the clock: an error, not a hang */
  b = c, b.cost = zero_cost;
  ck_assert(scale_serve_new(&b, &sim, &diag) == SCALE_OK);
  scale_serve_result r;
  ck_assert_int_eq(scale_serve_run(sim, &r, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "cost function"));
  scale_serve_free(sim);
  /* the roofline cost outside its domain */
  scale_serve_step empty = {0, 0, 0, 0, 0};
  scale_serve_roofline rf = {1, 1, 1, 1, 1, 1, 0, 1};
  scale_check_nan(scale_serve_roofline_cost_s(&empty, &rf));
  scale_check_nan(scale_serve_roofline_cost_s(&empty, NULL));
  b = c, b.isl.max_tokens = 200; /* uniform: no single offline batch */
  scale_check_nan(scale_serve_offline_batch(&b));
  ck_assert_str_eq(scale_serve_bind_name(SCALE_SERVE_BIND_COUNT), "?");
}
END_TEST

/* ---- the step trace ------------------------------------------------------------------------ */

/** The trace's event e: request, kind, tokens and output tokens made. */
static void check_event(const scale_serve_trace *tr, size_t e, uint32_t request,
                        scale_serve_trace_kind kind, uint32_t tokens, uint32_t made) {
  ck_assert_uint_lt(e, tr->n_events);
  const scale_serve_trace_event *ev = &tr->events[e];
  ck_assert_msg(ev->request == request && ev->kind == kind && ev->tokens == tokens &&
                    ev->made == made,
                "event %zu: request %u %s %u tokens made %u, want request %u %s %u made %u", e,
                ev->request, scale_serve_trace_kind_name(ev->kind), ev->tokens, ev->made, request,
                scale_serve_trace_kind_name(kind), tokens, made);
}

START_TEST(test_trace_chunked) {
  /* Two requests at t = 0, isl 6, osl 3, batch 2, a budget of 4 tokens a step (cost a + b x
   * tokens, a = 0.01 s, b = 0.001 s):
   *   step 0 at 0:     request 0 prefills 4, request 1 waits for the budget  a + 4 b = 0.014
   *   step 1 at 0.014: 0 prefills its last 2 (first token), 1 prefills 2     0.014
   *   step 2 at 0.028: 0 decodes (1 token), 1 prefills 3 of the budget's 3   0.014
   *   step 3 at 0.042: 0 decodes (its last), 1 prefills its last 1           a + 2 b = 0.012
   *   steps 4, 5 at 0.054, 0.065: 1 decodes                                 a + b = 0.011
   * TTFT 0.028 and 0.054 s; finishes 0.054 and 0.076 s. */
  static serve_fixture_trace ft;
  scale_serve_trace *tr = serve_fixture_trace_of(&ft, 16, 32, 4);
  scale_serve_config c = linear_config(INFINITY, 2, 6, 3);
  c.max_batch = 2;
  c.max_step_tokens = 4;
  scale_serve_result plain = serve_fixture_run(&c);
  c.trace = tr;
  scale_serve_result r = serve_fixture_run(&c);
  c.trace = NULL;
  ck_assert(memcmp(&plain, &r, sizeof r) == 0); /* recording changes nothing */
  ck_assert(!tr->truncated);
  ck_assert_uint_eq(tr->n_steps, 6);
  ck_assert_uint_eq(tr->n_events, 10);
  ck_assert_uint_eq(tr->n_requests, 2);
  const double start[6] = {0, 0.014, 0.028, 0.042, 0.054, 0.065};
  const double dur[6] = {0.014, 0.014, 0.014, 0.012, 0.011, 0.011};
  for (int k = 0; k < 6; k++) {
    scale_check_rel(ft.steps[k].start_s + 1.0, start[k] + 1.0, 1e-12, "s", "hand derivation");
    scale_check_rel(ft.steps[k].dur_s, dur[k], 1e-12, "s", "a + b tokens");
    ck_assert_uint_eq(ft.steps[k].n_events, k < 4 ? 2 : 1);
  }
  scale_check_rel(ft.steps[2].work.n_prefill_tokens, 3, 0, "tokens", "the budget left");
  check_event(tr, 0, 0, SCALE_SERVE_TRACE_PREFILL, 4, 0);
  check_event(tr, 1, 1, SCALE_SERVE_TRACE_IDLE, 0, 0);
  check_event(tr, 2, 0, SCALE_SERVE_TRACE_PREFILL, 2, 1);
  check_event(tr, 3, 1, SCALE_SERVE_TRACE_PREFILL, 2, 0);
  check_event(tr, 4, 0, SCALE_SERVE_TRACE_DECODE, 1, 1);
  check_event(tr, 5, 1, SCALE_SERVE_TRACE_PREFILL, 3, 0);
  check_event(tr, 7, 1, SCALE_SERVE_TRACE_PREFILL, 1, 1);
  check_event(tr, 9, 1, SCALE_SERVE_TRACE_DECODE, 1, 1);
  scale_check_rel(ft.requests[0].first_token_s, 0.028, 1e-12, "s", "TTFT of request 0");
  scale_check_rel(ft.requests[1].first_token_s, 0.054, 1e-12, "s", "TTFT of request 1");
  scale_check_rel(ft.requests[0].finish_s, 0.054, 1e-12, "s", "finish of request 0");
  scale_check_rel(ft.requests[1].finish_s, 0.076, 1e-12, "s", "finish of request 1");
  scale_check_rel(r.makespan_s, 0.076, 1e-12, "s", "the last finish");
  /* a trace of three steps holds the first three and says it stopped */
  tr->steps_cap = 3;
  tr->requests_cap = 1;
  c.trace = tr;
  serve_fixture_run(&c);
  ck_assert(tr->truncated);
  ck_assert_uint_eq(tr->n_steps, 3);
  ck_assert_uint_eq(tr->n_events, 6);
  ck_assert_uint_eq(tr->n_requests, 1);
  /* a capacity without its array is refused */
  tr->events = NULL;
  scale_serve *sim = NULL;
  ck_assert_int_eq(scale_serve_new(&c, &sim, NULL), SCALE_ERR_INVALID);
  ck_assert_ptr_null(sim);
  ck_assert_str_eq(scale_serve_trace_kind_name(SCALE_SERVE_TRACE_RECOMPUTE), "recompute");
  ck_assert_str_eq(scale_serve_trace_kind_name(SCALE_SERVE_TRACE_KINDS), "?");
}
END_TEST

START_TEST(test_trace_preemption) {
  /* kv_on_demand, 3 blocks of 4 tokens, two requests at t = 0 of isl 3, osl 3 (6 tokens: 2
   * blocks each in their life, 1 at admission):
   *   step 0 at 0:     both prefill 3 (first tokens), 2 blocks held      a + 6 b = 0.016
   *   step 1 at 0.016: both decode (contexts of 4 tokens: 1 block each)  a + 2 b = 0.012
   *   step 2 at 0.028: contexts of 5 need 2 blocks each, 4 > 3: request 0 takes the third,
   *                    request 1 (the most recent) is preempted; 0 decodes its last  0.011
   *   step 3 at 0.039: request 1 again, its 3 + 2 tokens prefilled again: the prompt's end
   *                    makes its last token                               a + 5 b = 0.015
   * Request 1: TTFT 0.016 s (its first token stands), finish 0.054 s. */
  static serve_fixture_trace ft;
  scale_serve_trace *tr = serve_fixture_trace_of(&ft, 8, 16, 2);
  scale_serve_config c = linear_config(INFINITY, 2, 3, 3);
  c.max_batch = 2;
  c.block_tokens = 4;
  c.kv_blocks = 3;
  c.kv_on_demand = true;
  c.trace = tr;
  scale_serve_result r = serve_fixture_run(&c);
  ck_assert(r.preemptions == 1 && r.recomputed_tokens == 5);
  ck_assert_uint_eq(tr->n_steps, 4);
  ck_assert_uint_eq(tr->n_events, 7);
  const double start[4] = {0, 0.016, 0.028, 0.039};
  for (int k = 0; k < 4; k++)
    scale_check_rel(ft.steps[k].start_s + 1.0, start[k] + 1.0, 1e-12, "s", "hand derivation");
  check_event(tr, 0, 0, SCALE_SERVE_TRACE_PREFILL, 3, 1);
  check_event(tr, 3, 1, SCALE_SERVE_TRACE_DECODE, 1, 1);
  check_event(tr, 4, 1, SCALE_SERVE_TRACE_PREEMPTED, 0, 0);
  check_event(tr, 5, 0, SCALE_SERVE_TRACE_DECODE, 1, 1);
  check_event(tr, 6, 1, SCALE_SERVE_TRACE_RECOMPUTE, 5, 1);
  ck_assert_uint_eq(ft.steps[2].first_event, 4);
  ck_assert_uint_eq(ft.steps[2].n_events, 2);
  scale_check_rel(ft.requests[1].first_token_s, 0.016, 1e-12, "s", "its first token stands");
  scale_check_rel(ft.requests[1].finish_s, 0.054, 1e-12, "s", "after the recompute");
  scale_check_rel(ft.requests[0].finish_s, 0.039, 1e-12, "s", "three steps");
  /* the preemption does not fit a trace of four events: the trace ends before its step */
  tr->events_cap = 4;
  serve_fixture_run(&c);
  ck_assert(tr->truncated);
  ck_assert_uint_eq(tr->n_steps, 2);
  ck_assert_uint_eq(tr->n_events, 4);
}
END_TEST

/* ---- decode windows ------------------------------------------------------------------------ */

/* The fixture's linear cost plus 1e-6 s a token of context read: a cost the window's context
 * sums change. */
static double context_cost(const scale_serve_step *step, void *ctx) {
  return serve_fixture_linear_cost(step, ctx) + 1e-6 * step->decode_kv_tokens;
}

START_TEST(test_decode_window) {
  /* A stretch of steps that only decode and end no request runs without a pass over the
   * requests (serve.c's decode window); a trace turns it off, and recording changes nothing
   * (test_trace_chunked), so a traced run is the step-by-step reference: every mode must give
   * the same result to the bit. Lengths vary (isl 50-400, osl 2-300) so that windows of every
   * length, and none, occur. */
  static serve_fixture_trace ft;
  scale_serve_trace *tr = serve_fixture_trace_of(&ft, 1, 1, 1); /* truncated at once */
  for (int mode = 0; mode < 6; mode++) {
    scale_serve_config c = linear_config(mode == 1 ? 40.0 : (double)INFINITY, 300, 50, 2);
    c.isl.max_tokens = 400;
    c.osl.max_tokens = 300;
    c.max_batch = 64;
    c.cost = context_cost;
    if (mode == 2) c.concurrency = 24;                      /* closed loop */
    if (mode == 3) c.kv_blocks = 400;                       /* admission bound by KV */
    if (mode == 4) c.warmup_requests = 30, c.prefilled = true;
    if (mode == 5) c.prefill_alone = true, c.rate_per_s = 25.0;
    scale_serve_result plain = serve_fixture_run(&c);
    c.trace = tr;
    scale_serve_result stepwise = serve_fixture_run(&c);
    ck_assert_msg(memcmp(&plain, &stepwise, sizeof plain) == 0, "mode %d differs", mode);
    ck_assert(plain.n_steps > 300 && plain.output_tokens > 300);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("serve");
  const scale_check_case cases[] = {
      {"low_rate_linear", test_low_rate_linear},
      {"low_rate_roofline", test_low_rate_roofline},
      {"chunked_prefill", test_chunked_prefill},
      {"saturation_batch_cap", test_saturation_batch_cap},
      {"saturation_kv", test_saturation_kv},
      {"saturation_roofline", test_saturation_roofline},
      {"determinism", test_determinism},
      {"conservation", test_conservation},
      {"goodput", test_goodput},
      {"prefilled", test_prefilled},
      {"prefix_cache", test_prefix_cache},
      {"speculative", test_speculative},
      {"kv_on_demand", test_kv_on_demand},
      {"warmup", test_warmup},
      {"bad_parameters", test_bad_parameters},
      {"trace_chunked", test_trace_chunked},
      {"trace_preemption", test_trace_preemption},
      {"decode_window", test_decode_window},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
