/* test_serve_closed.c — serve.h's closed loop (N clients, each sending its next request when its
 * previous one finishes), empirical length tables, and the inter-token latency (ITL)
 * percentiles. Limits of the closed loop: one client gives the batch-1 decode step as TPOT
 * and ITL; more clients than the engine admits give the offline maximum. Expected values are
 * hand derivations written beside them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale.h"
#include "scale/serve.h"
#include "scale_check.h"
#include "serve_fixture.h"

/* 'n' requests from 'clients' closed-loop clients at the fixture's linear cost a + b (decode
 * tokens + prompt tokens), a = 0.01 s, b = 0.001 s, batch cap 16, unlimited budget and KV
 * (serve_fixture.h): every expected time below is a sum of such steps. */
static scale_serve_config closed_config(double clients, double n, double isl, double osl) {
  scale_serve_config c = serve_fixture_config(n, isl, osl);
  c.rate_per_s = INFINITY; /* unused in a closed loop */
  c.concurrency = clients;
  return c;
}

/* ---- one client ----------------------------------------------------------------------------- */

START_TEST(test_one_client_linear) {
  /* One client: each request runs alone, the next sent the moment it finishes. Prefill of 100
   * tokens in one step, TTFT = a + 100 b = 0.11 s; nine decode steps of one token,
   * TPOT = ITL = a + b = 0.011 s. A request takes 0.11 + 9 x 0.011 = 0.209 s, so 20 take
   * 4.18 s for 200 tokens: 47.847 tokens/s. */
  scale_serve_config c = closed_config(1, 20, 100, 10);
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p50_s, 0.11, 1e-12, "s", "a + 100 b");
  scale_check_rel(r.ttft_p90_s, 0.11, 1e-12, "s", "a + 100 b");
  scale_check_rel(r.tpot_p50_s, 0.011, 1e-12, "s", "a + b");
  scale_check_rel(r.tpot_p90_s, 0.011, 1e-12, "s", "a + b");
  scale_check_rel(r.itl_p50_s, 0.011, 2e-3, "s", "a + b, histogram bin");
  scale_check_rel(r.itl_p90_s, 0.011, 2e-3, "s", "a + b, histogram bin");
  scale_check_rel(r.makespan_s, 20 * 0.209, 1e-12, "s", "20 requests back to back");
  scale_check_rel(r.throughput_tokens_per_s, 200 / 4.18, 1e-12, "tokens/s", "200 / 4.18 s");
  scale_check_rel(r.max_running, 1, 0, "", "one client");
}
END_TEST

START_TEST(test_one_client_roofline) {
  /* LLaMA 3 8B (llama-3-8b) on one H100 in bf16, one client: batch-1 decode is bytes-bound,
   * so the decode step at context S is (param_bytes + S kv) / W (ch. 7), which is
   * scale_infer_decode_eval at batch 1. Decode step j (j = 1..osl-1) reads isl + j tokens, so
   * TPOT is the step at the mean context isl + osl / 2 = 1050.5 (the step is linear in S);
   * the ITL median is the step of the middle token, j = 50, context 1050: the same step within
   * 1e-6 (one token of KV against 16 GB of weights) and the histogram's 0.16%. */
  serve_fixture_copy llama;
  serve_fixture_llama_8b_h100(&llama, 1050.5, 0.0);
  scale_serve_config c = closed_config(1, 10, 1000, 101);
  serve_fixture_use_roofline(&c, &llama.rf);
  scale_serve_result r = serve_fixture_run(&c);
  scale_infer_decode d = scale_infer_decode_eval(&llama.model, &llama.chip, &llama.ic);
  ck_assert_int_eq(d.bound, SCALE_BOUND_PARAMS);
  scale_check_rel(r.tpot_p50_s, d.step_s, 1e-9, "s", "inference.h batch-1 decode step");
  scale_check_rel(r.tpot_p90_s, d.step_s, 1e-9, "s", "inference.h batch-1 decode step");
  scale_check_rel(r.itl_p50_s, d.step_s, 2e-3, "s", "batch-1 step, histogram bin");
  double prefill = 2.0 * llama.rf.n_params * 1000 / (llama.rf.flops_per_s * llama.rf.mfu_frac);
  scale_check_rel(r.ttft_p50_s, prefill, 1e-9, "s", "2 N P / (C mfu): nothing queues");
}
END_TEST

/* ---- many clients --------------------------------------------------------------------------- */

START_TEST(test_clients_below_cap) {
  /* 8 clients, batch cap 16, isl 100, osl 50: the 8 requests enter together, prefill in one step
   * of 800 tokens (TTFT = a + 800 b = 0.81 s), decode 49 steps of 8 tokens (TPOT = ITL =
   * a + 8 b = 0.018 s) and finish together; their clients send the next 8 at once. Cycle
   * 0.81 + 49 x 0.018 = 1.692 s for 400 tokens: 236.41 tokens/s over 200 requests. */
  scale_serve_config c = closed_config(8, 200, 100, 50);
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.ttft_p90_s, 0.81, 1e-9, "s", "a + 800 b");
  scale_check_rel(r.tpot_p50_s, 0.018, 1e-9, "s", "a + 8 b");
  scale_check_rel(r.itl_p50_s, 0.018, 2e-3, "s", "a + 8 b, histogram bin");
  scale_check_rel(r.throughput_tokens_per_s, 400 / 1.692, 1e-9, "tokens/s", "8 x 50 / cycle");
  scale_check_rel(r.max_running, 8, 0, "", "the clients");
}
END_TEST

START_TEST(test_many_clients_offline) {
  /* 64 clients and a batch cap of 16: 48 requests always wait, so the engine runs exactly the
   * offline schedule of 16-request cycles (test_serve.c's saturation_batch_cap): cycle
   * 50 a + 16 b (100 + 49) = 2.884 s for 800 tokens, the offline maximum 277.39 tokens/s.
   * With as many clients as the cap (16) the next cycle's requests are sent when the last
   * one ends, and are admitted at the same instant: the same schedule again. */
  double offline = 800 / 2.884;
  scale_serve_config c = closed_config(64, 1600, 100, 50);
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.throughput_tokens_per_s, offline, 1e-9, "tokens/s", "offline maximum");
  ck_assert_int_eq(r.bind, SCALE_SERVE_BIND_BATCH);
  c.concurrency = 16;
  r = serve_fixture_run(&c);
  scale_check_rel(r.throughput_tokens_per_s, offline, 1e-9, "tokens/s", "offline maximum");
  /* and the open-loop offline run (all 1600 at t = 0) agrees */
  c.concurrency = 0;
  scale_serve_result o = serve_fixture_run(&c);
  scale_check_rel(o.throughput_tokens_per_s, offline, 1e-9, "tokens/s", "offline maximum");
}
END_TEST

START_TEST(test_many_clients_roofline) {
  /* LLaMA 3 8B on one H100 at the roofline cost with a 2 ms overhead, batch cap 256, prompts
   * 512, outputs 256, 4000 requests: 1000 clients keep at least 744 requests waiting, so each
   * step admits what the offline run (every request at t = 0) admits, and the throughput is
   * the offline maximum (here exactly; "within a few %" would already be the limit). */
  serve_fixture_copy llama;
  serve_fixture_llama_8b_h100(&llama, 768, 2e-3);
  scale_serve_config c = closed_config(1000, 4000, 512, 256);
  serve_fixture_use_roofline(&c, &llama.rf);
  c.max_batch = 256;
  c.max_step_tokens = 8192;
  scale_serve_result closed = serve_fixture_run(&c);
  c.concurrency = 0;
  scale_serve_result offline = serve_fixture_run(&c);
  scale_check_rel(closed.throughput_tokens_per_s, offline.throughput_tokens_per_s, 1e-12,
                  "tokens/s", "offline maximum");
  /* 8 clients sit far below it: a small batch is bytes-bound */
  c.concurrency = 8;
  scale_serve_result few = serve_fixture_run(&c);
  ck_assert(few.throughput_tokens_per_s < 0.2 * offline.throughput_tokens_per_s);
  ck_assert(few.itl_p50_s < offline.itl_p50_s);
}
END_TEST

/* ---- prompts alone (no chunked prefill) ------------------------------------------------------ */

START_TEST(test_prefill_alone) {
  /* Two requests at t = 0, isl 100, osl 3, budget 100 tokens a step. Prompts first: step 1
   * prefills A (a + 100 b = 0.11 s, A's first token at 0.11); step 2 prefills B alone while A
   * stalls (0.11 s, B's first token at 0.22); steps 3 and 4 decode both (a + 2 b = 0.012 s
   * each): tokens at 0.232 and 0.244. ITLs: A 0.232 - 0.11 = 0.122 then 0.012; B 0.012 twice.
   * Nearest rank over the 4: p50 (rank 2) 0.012 s, p90 (rank 4) 0.122 s. TPOT A (0.244 - 0.11)
   * / 2 = 0.067 s, B 0.012 s. */
  scale_serve_config c = closed_config(0, 2, 100, 3);
  c.max_step_tokens = 100;
  c.prefill_alone = true;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.makespan_s, 0.244, 1e-12, "s", "0.11 + 0.11 + 2 x 0.012");
  scale_check_rel(r.n_steps, 4, 0, "", "two prompt steps, two decode steps");
  scale_check_rel(r.ttft_p50_s, 0.11, 1e-12, "s", "A's prompt step");
  scale_check_rel(r.ttft_p90_s, 0.22, 1e-12, "s", "B after A's");
  scale_check_rel(r.itl_p50_s, 0.012, 2e-3, "s", "a + 2 b");
  scale_check_rel(r.itl_p90_s, 0.122, 2e-3, "s", "A's stall through B's prompt");
  scale_check_rel(r.tpot_p90_s, 0.067, 1e-12, "s", "A");
  /* mixed (chunked) steps instead: A decodes beside B's 99-token chunk (0.11 s), then beside
   * B's last token (a + 2 b); B decodes twice alone (a + b): 0.11 + 0.11 + 0.012 + 2 x 0.011 */
  c.prefill_alone = false;
  r = serve_fixture_run(&c);
  scale_check_rel(r.makespan_s, 0.254, 1e-12, "s", "chunked prefill");
  scale_check_rel(r.n_steps, 5, 0, "", "chunked prefill");
}
END_TEST

/* ---- length tables -------------------------------------------------------------------------- */

START_TEST(test_length_table) {
  /* Pairs (100, 10) and (50, 5) taken in order and again, one client: requests of
   * (a + 100 b) + 9 (a + b) = 0.209 s and (a + 50 b) + 4 (a + b) = 0.104 s alternate; four
   * take 0.626 s for 30 tokens. TTFTs {0.11, 0.06, 0.11, 0.06}: nearest-rank p50 (rank 2) is
   * 0.06 s, p90 (rank 4) 0.11 s. */
  static const uint32_t isl[] = {100, 50}, osl[] = {10, 5};
  scale_serve_config c = closed_config(1, 4, 1, 1);
  c.table_isl = isl;
  c.table_osl = osl;
  c.n_table = 2;
  scale_serve_result r = serve_fixture_run(&c);
  scale_check_rel(r.makespan_s, 0.626, 1e-12, "s", "2 x (0.209 + 0.104)");
  scale_check_rel(r.output_tokens, 30, 0, "tokens", "2 x (10 + 5)");
  scale_check_rel(r.input_tokens, 300, 0, "tokens", "2 x (100 + 50)");
  scale_check_rel(r.ttft_p50_s, 0.06, 1e-12, "s", "rank 2 of 4");
  scale_check_rel(r.ttft_p90_s, 0.11, 1e-12, "s", "rank 4 of 4");
  /* no single offline batch with a table */
  scale_check_nan(scale_serve_offline_batch(&c));
}
END_TEST

static char *write_bytes(const char *data, size_t size) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/scale_lengths_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *fp = fdopen(fd, "w");
  fwrite(data, 1, size, fp);
  fclose(fp);
  return path;
}

static char *write_temp(const char *text) { return write_bytes(text, strlen(text)); }

static void expect_load_n(const char *data, size_t size, scale_status want, const char *word) {
  char *path = write_bytes(data, size);
  uint32_t *isl = (uint32_t *)&isl, *osl = (uint32_t *)&osl;
  size_t n = 7;
  scale_diag diag;
  ck_assert_int_eq(scale_serve_lengths_load(path, &isl, &osl, &n, &diag), want);
  ck_assert_ptr_null(isl);
  ck_assert_ptr_null(osl);
  ck_assert_uint_eq(n, 0);
  ck_assert_msg(strstr(diag.message, word), "'%s' not in '%s'", word, diag.message);
  ck_assert_int_gt(diag.line, 0);
  unlink(path);
}

static void expect_load(const char *text, scale_status want, const char *word) {
  expect_load_n(text, strlen(text), want, word);
}

START_TEST(test_lengths_load) {
  char *path = write_temp("# a comment\nisl\tosl\n13\t120\n\n25\t770\n");
  uint32_t *isl = NULL, *osl = NULL;
  size_t n = 0;
  scale_diag diag;
  ck_assert_msg(scale_serve_lengths_load(path, &isl, &osl, &n, &diag) == SCALE_OK, "%s",
                diag.message);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(isl[0], 13);
  ck_assert_uint_eq(osl[0], 120);
  ck_assert_uint_eq(isl[1], 25);
  ck_assert_uint_eq(osl[1], 770);
  free(isl);
  free(osl);
  unlink(path);
  expect_load("isl\tosl\n13\t0\n", SCALE_ERR_PARSE, "integers");
  expect_load("isl\tosl\n13\t-4\n", SCALE_ERR_PARSE, "integers");
  expect_load("isl\tosl\n13 4\n", SCALE_ERR_PARSE, "integers");
  expect_load("isl\tosl\n13\t4.5\n", SCALE_ERR_PARSE, "integers");
  expect_load("isl\tosl\n13\t4\tx\n", SCALE_ERR_PARSE, "integers");
  expect_load("osl\tisl\n13\t4\n", SCALE_ERR_PARSE, "header");
  expect_load("isl\tosl\n", SCALE_ERR_PARSE, "no pairs");
  static const char nul[] = "isl\tosl\n13\t4\n14\t5\0\t6\n"; /* not read as 14, 5 */
  expect_load_n(nul, sizeof nul - 1, SCALE_ERR_PARSE, "NUL");
  char big[400] = "isl\tosl\n1\t";
  memset(big + strlen(big), '9', 300);
  expect_load(big, SCALE_ERR_PARSE, "too long");
  isl = osl = NULL;
  ck_assert_int_eq(scale_serve_lengths_load("/nonexistent/x.tsv", &isl, &osl, &n, &diag),
                   SCALE_ERR_IO);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------------ */

START_TEST(test_bad_closed_loop) {
  static const uint32_t isl[] = {100, 50}, osl[] = {10, 0}, big[] = {100, 2000};
  scale_serve_config c = closed_config(4, 10, 100, 10), b;
  b = c, b.concurrency = -1, serve_fixture_expect_range(&b, "concurrency");
  b = c, b.concurrency = 2.5, serve_fixture_expect_range(&b, "concurrency");
  b = c, b.concurrency = NAN, serve_fixture_expect_range(&b, "concurrency");
  b = c, b.concurrency = 1e8, serve_fixture_expect_range(&b, "concurrency");
  b = c, b.concurrency = INFINITY, serve_fixture_expect_range(&b, "concurrency");
  b = c, b.prefilled = true, serve_fixture_expect_range(&b, "closed-loop");
  b = c, b.table_isl = isl, b.table_osl = osl, b.n_table = 2,
  serve_fixture_expect_range(&b, "table");
  b = c, b.table_isl = isl, b.table_osl = NULL, b.n_table = 2,
  serve_fixture_expect_range(&b, "table");
  b = c, b.table_isl = isl, b.table_osl = big, b.n_table = 0,
  serve_fixture_expect_range(&b, "table");
  b = c, b.table_isl = isl, b.table_osl = big, b.n_table = 2, b.kv_blocks = 100;
  serve_fixture_expect_range(&b, "blocks"); /* 2050 tokens need 129 blocks of 16 */
}
END_TEST

int main(void) {
  Suite *s = suite_create("serve_closed");
  const scale_check_case cases[] = {
      {"one_client_linear", test_one_client_linear},
      {"one_client_roofline", test_one_client_roofline},
      {"clients_below_cap", test_clients_below_cap},
      {"many_clients_offline", test_many_clients_offline},
      {"many_clients_roofline", test_many_clients_roofline},
      {"prefill_alone", test_prefill_alone},
      {"length_table", test_length_table},
      {"lengths_load", test_lengths_load},
      {"bad_closed_loop", test_bad_closed_loop},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
