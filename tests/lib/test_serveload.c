/* test_serveload.c — serveload.h: a model copy under a request stream. The engine follows the
 * header's rule, the closed forms are the cost of the steps they name, and the simulator meets
 * them where it must (a vanishing rate: TTFT = one prefill step, TPOT = one batch-1 decode). */
#include <math.h>
#include <string.h>

#include "scale/serveload.h"
#include "scale/transformer.h"
#include "scale_check.h"

START_TEST(setup_engine) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  static scale_serveload l;
  scale_diag diag = {0};
  ck_assert_msg(scale_serveload_setup(&m, &v5e, 8, SCALE_DTYPE_INT8, SCALE_DTYPE_INT8, 2048,
                                      512, &l, &diag) == SCALE_OK, "%s", diag.message);
  ck_assert(l.engine.max_batch == 256 && l.engine.max_step_tokens == 8192);
  ck_assert(l.engine.isl.min_tokens == 2048 && l.engine.osl.max_tokens == 512);
  /* 16-token blocks filling 90% of the HBM the weights leave */
  double blocks = floor(0.9 * l.cost.kv_capacity_bytes / (16 * l.cost.kv_bytes_per_token));
  scale_check_rel(l.engine.kv_blocks, blocks, 1e-12, "blocks", "header: 90% of the KV room");
  ck_assert(blocks > 256);
  /* the closed forms are the cost of the steps they name */
  scale_serve_step pre = {0, 0, 2048, 1, 2048.0 * 2049.0 / 2};
  scale_check_rel(scale_serveload_prefill_s(&l), scale_serve_cost_s(&pre, &l.cost), 1e-12, "s",
                  "one 2048-token prompt in one step");
  scale_serve_step dec = {1, 2048 + 256, 0, 0, 0};
  scale_check_rel(scale_serveload_decode1_s(&l), scale_serve_cost_s(&dec, &l.cost), 1e-12, "s",
                  "one decode at mid-generation context");
  scale_serve_parts p = scale_serveload_steady_parts(&l, 64);
  ck_assert(p.linear_s > 0 && p.kv_s > 0 && p.attn_s > 0 && p.tp_s > 0);
  /* the book's formula rounds the batch and never goes below one sequence */
  scale_check_rel(scale_serveload_book_step_s(&l, 0.3), scale_serveload_book_step_s(&l, 1), 1e-12,
                  "s", "batch max(1, round(b))");
  ck_assert(scale_serveload_book_step_s(&l, 200) > scale_serveload_book_step_s(&l, 1));
}
END_TEST

START_TEST(vanishing_rate) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  static scale_serveload l;
  scale_diag diag = {0};
  ck_assert(scale_serveload_setup(&m, &h100, 1, SCALE_DTYPE_FP8, SCALE_DTYPE_FP8, 2048, 512, &l,
                                  &diag) == SCALE_OK);
  scale_serve_result off, low;
  ck_assert(scale_serveload_run(&l, INFINITY, 200, &off, &diag) == SCALE_OK);
  ck_assert(off.request_rate_per_s > 0 && off.steady_batch > 1);
  ck_assert(scale_serveload_run(&l, 1e-3 * off.request_rate_per_s, 50, &low, &diag) == SCALE_OK);
  /* requests arrive one at a time: the first token waits for one prefill step, every later one
   * for one batch-1 decode step (ch. 8 "Serving under load") */
  scale_check_rel(low.ttft_p50_s, scale_serveload_prefill_s(&l), 0.01, "s", "TTFT = prefill");
  scale_check_rel(low.tpot_p50_s, scale_serveload_decode1_s(&l), 0.02, "s", "TPOT = decode");
  ck_assert(off.tpot_p50_s > low.tpot_p50_s); /* a full batch decodes slower per token */
}
END_TEST

START_TEST(curve) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  static scale_serveload l;
  static scale_serveload_curve c;
  scale_diag diag = {0};
  ck_assert(scale_serveload_setup(&m, &h100, 1, SCALE_DTYPE_FP8, SCALE_DTYPE_FP8, 2048, 512, &l,
                                  &diag) == SCALE_OK);
  const double fracs[] = {0.25, 0.9};
  ck_assert_msg(scale_serveload_curve_run(&l, fracs, 2, 200, &c, &diag) == SCALE_OK, "%s",
                diag.message);
  ck_assert_int_eq(c.n_points, 2);
  /* the sweep is the runs the header names, in its order: the same as running them by hand */
  scale_serve_result off, low, r;
  ck_assert(scale_serveload_run(&l, INFINITY, 200, &off, &diag) == SCALE_OK);
  ck_assert(scale_serveload_run(&l, 1e-3 * off.request_rate_per_s, 50, &low, &diag) == SCALE_OK);
  ck_assert(scale_serveload_run(&l, 0.25 * off.request_rate_per_s, 200, &r, &diag) == SCALE_OK);
  scale_check_rel(c.offline.throughput_tokens_per_s, off.throughput_tokens_per_s, 1e-12,
                  "tokens/s", "the offline run");
  scale_check_rel(c.vanishing.tpot_p50_s, low.tpot_p50_s, 1e-12, "s", "the vanishing rate");
  scale_check_rel(c.point[0].ttft_p90_s, r.ttft_p90_s, 1e-12, "s", "25% of the offline rate");
  /* the figure's columns are the point's numbers, per chip (tp 1 here) */
  scale_check_rel(c.ttft_p90_s[0], r.ttft_p90_s, 1e-12, "s", "the figure's TTFT p90");
  scale_check_rel(c.tpot_p50_s[0], r.tpot_p50_s, 1e-12, "s", "the figure's TPOT p50");
  scale_check_rel(c.tput_per_chip[0], r.throughput_tokens_per_s, 1e-12, "tokens/s", "tp 1");
  /* a higher rate serves more tokens per second (ch. 8 "Serving under load") */
  ck_assert(c.point[1].throughput_tokens_per_s > c.point[0].throughput_tokens_per_s);
  /* the closed forms beside it */
  scale_check_rel(c.prefill_s, scale_serveload_prefill_s(&l), 1e-12, "s", "TTFT limit");
  scale_check_rel(c.decode1_s, scale_serveload_decode1_s(&l), 1e-12, "s", "TPOT limit");
  double b = fmax(1.0, round(off.steady_batch));
  scale_check_rel(c.book_step_s, scale_serveload_book_step_s(&l, off.steady_batch), 1e-12, "s",
                  "the book's step at the steady batch");
  scale_check_rel(c.book_tokens_per_s_per_chip, b / c.book_step_s, 1e-12, "tokens/s",
                  "batch / step / tp with tp 1");
  scale_check_rel(c.book_ratio, b / c.book_step_s / off.throughput_tokens_per_s, 1e-12, "",
                  "the book's tokens/s over the offline run's");
  scale_check_rel(c.steady.kv_s, scale_serveload_steady_parts(&l, off.steady_batch).kv_s, 1e-12,
                  "s", "the steady parts at the steady batch");
  /* its table: the header's rows in its order, each the curve's number it names */
  static scale_infer_table t;
  scale_serveload_curve_table(&l, &c, &t);
  ck_assert_int_eq(t.n, 9 + 3 * 2 + 7);
  static const char *const keys[] = {
      "fitted",         "max_tput",       "max_rate",   "max_batch",      "max_tpot_s",
      "prefill_s",      "low_ttft_s",     "decode1_s",  "low_tpot_s",     "r25.tput",
      "r25.ttft_p90_s", "r25.tpot_p50_s", "r90.tput",   "r90.ttft_p90_s", "r90.tpot_p50_s",
      "book_step_s",    "book_tput",      "book_ratio", "share_linear",   "share_kv",
      "share_tp",       "share_overhead"};
  for (int i = 0; i < t.n; i++)
    ck_assert_str_eq(t.row[i].key, keys[i]);
  ck_assert(t.row[0].value == (h100.has_serve ? 1.0 : 0.0));
  scale_check_rel(t.row[1].value, off.throughput_tokens_per_s, 1e-12, "tokens/s", "tp 1");
  scale_check_rel(t.row[9].value, r.throughput_tokens_per_s, 1e-12, "tokens/s", "25%: tput");
  scale_check_rel(t.row[10].value, r.ttft_p90_s, 1e-12, "s", "25%: TTFT p90");
  scale_check_rel(t.row[15].value, c.book_step_s, 1e-12, "s", "the book's step");
  /* the four shares are parts of the steady step: together at most all of it */
  double shares = t.row[18].value + t.row[19].value + t.row[20].value + t.row[21].value;
  ck_assert(shares <= 100.0 + 1e-9);
  scale_check_rel(t.row[19].value, 100 * c.steady.kv_s / scale_serve_parts_total(&c.steady), 1e-12,
                  "%", "KV share of the steady step");
  ck_assert_int_eq(
      scale_serveload_curve_run(&l, fracs, SCALE_SERVELOAD_POINTS_MAX + 1, 200, &c, &diag),
      SCALE_ERR_INVALID);
}
END_TEST

START_TEST(refuses) {
  scale_model m = scale_check_model("llama-3-405b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  static scale_serveload l;
  scale_diag diag = {0};
  /* 810 GB of bf16 weights on one 16 GB chip leave no HBM for a KV cache */
  ck_assert_int_ne(scale_serveload_setup(&m, &v5e, 1, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16, 2048,
                                         512, &l, &diag), SCALE_OK);
  ck_assert(diag.message[0] != '\0');
}
END_TEST

START_TEST(traced_run) {
  /* Eight requests on LLaMA 3.1 8B, one H100, fp8, a 1024-token step budget: every step of the
   * trace lasts what the calibrated cost gives for what it holds, the steps follow each other
   * while requests run, and no step puts more than the budget through the model. */
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  static scale_serveload l;
  static scale_serveload_traced t;
  scale_diag diag = {0};
  ck_assert(scale_serveload_setup(&m, &h100, 1, SCALE_DTYPE_FP8, SCALE_DTYPE_FP8, 2048, 32, &l,
                                  &diag) == SCALE_OK);
  scale_serve_lengths isl = {256, 3072}, osl = {8, 32};
  ck_assert_msg(scale_serveload_trace(&l, 20, 8, isl, osl, 1024, &t, &diag) == SCALE_OK, "%s",
                diag.message);
  ck_assert(!t.trace.truncated && t.trace.n_requests == 8);
  scale_check_rel((double)t.trace.n_steps, t.result.n_steps, 0, "", "every step recorded");
  for (size_t k = 0; k < t.trace.n_steps; k++) {
    const scale_serve_trace_step *s = &t.steps[k];
    scale_serve_step w = s->work;
    scale_check_rel(s->dur_s, scale_serve_cost_s(&w, &l.cost), 1e-12, "s", "servecal.h's cost");
    ck_assert(w.n_decode + w.n_prefill_tokens <= 1024);
    if (k > 0 && t.steps[k - 1].n_events > 0 && s->start_s > 0)
      ck_assert(s->start_s >= t.steps[k - 1].start_s + t.steps[k - 1].dur_s * (1 - 1e-12));
  }
  ck_assert_int_eq(scale_serveload_trace(&l, 20, 25, isl, osl, 1024, &t, NULL), SCALE_ERR_INVALID);
}
END_TEST

int main(void) {
  Suite *s = suite_create("serveload");
  const scale_check_case cases[] = {{"setup_engine", setup_engine},
                                    {"vanishing_rate", vanishing_rate},
                                    {"curve", curve},
                                    {"refuses", refuses},
                                    {"traced_run", traced_run}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
