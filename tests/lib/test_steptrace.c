/* test_steptrace.c — the timeline of a predicted step (steptrace.h): a hand-laid step, then
 * real jobs whose streams must add up to the step model's own totals and end at its step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/json.h"
#include "scale/steptrace.h"
#include "scale/training.h"
#include "scale_check.h"

#define EXACT 1e-12

static scale_step_trace trace;

/* The event of 'row' and 'kind' covering microbatch 'micro' (-1: none), op 'op' (-1: any). */
static const scale_step_trace_event *find(int row, scale_step_trace_kind kind, int op, int micro) {
  for (size_t i = 0; i < trace.n_events; i++) {
    const scale_step_trace_event *e = &trace.events[i];
    if (e->row == row && e->kind == kind && (op < 0 || e->op == op) && e->micro_first == micro)
      return e;
  }
  ck_abort_msg("no event row %d kind %d op %d micro %d", row, kind, op, micro);
  return NULL;
}

static void span_is(const scale_step_trace_event *e, double start, double dur, const char *what) {
  scale_check_rel(e->start_s, start, EXACT, "s", what);
  scale_check_rel(e->dur_s, dur, EXACT, "s", what);
}

/* Two microbatches of qkv 1 s and mlp-up 2 s each (op totals 2 and 4 over the step), TP 1.5 s a
 * microbatch of which 0.5 exposed (totals 3 and 1), DP 2 s with 0.5 exposed, bubble 1 s,
 * optimizer 0.25 s, overhead 0.1 s. By the step model's composition, step = 2 (3 + 0.5) + 1 +
 * 0.5 + 0.25 + 0.1 = 8.85 s, laid by hand:
 *   mb 0: qkv [0, 1], mlp-up [1, 3], TP hidden [0, 1], TP exposed [3, 3.5]
 *   mb 1: qkv [3.5, 4.5], mlp-up [4.5, 6.5], TP hidden [3.5, 4.5], TP exposed [6.5, 7]
 *   DP hidden 1.5 s ending with the last microbatch [5.5, 7]; bubble [7, 8]; DP exposed
 *   [8, 8.5]; optimizer [8.5, 8.75]; overhead [8.75, 8.85]. */
static scale_step_result hand_step(void) {
  scale_step_result r;
  memset(&r, 0, sizeof r);
  r.microbatches = 2;
  r.op_s[SCALE_STEP_OP_QKV] = 2;
  r.op_s[SCALE_STEP_OP_MLP_UP] = 4;
  r.compute_s = 6;
  r.comm_s[SCALE_STEP_COMM_TP] = 3;
  r.exposed_s[SCALE_STEP_COMM_TP] = 1;
  r.comm_s[SCALE_STEP_COMM_DP] = 2;
  r.exposed_s[SCALE_STEP_COMM_DP] = 0.5;
  r.bubble_s = 1;
  r.op_s[SCALE_STEP_OP_OPTIMIZER] = r.optimizer_s = 0.25;
  r.overhead_s = 0.1;
  r.step_s = 8.85;
  return r;
}

START_TEST(hand_laid_step) {
  scale_step_result r = hand_step();
  ck_assert_int_eq(scale_step_trace_build(&r, &trace, NULL), SCALE_OK);
  const int tp = 1 + SCALE_STEP_COMM_TP, dp = 1 + SCALE_STEP_COMM_DP;
  span_is(find(0, SCALE_TRACE_OP, SCALE_STEP_OP_QKV, 0), 0, 1, "qkv, mb 0");
  span_is(find(0, SCALE_TRACE_OP, SCALE_STEP_OP_MLP_UP, 0), 1, 2, "mlp-up, mb 0");
  span_is(find(tp, SCALE_TRACE_HIDDEN, -1, 0), 0, 1, "TP hidden, mb 0");
  span_is(find(tp, SCALE_TRACE_EXPOSED, -1, 0), 3, 0.5, "TP exposed, mb 0");
  span_is(find(0, SCALE_TRACE_OP, SCALE_STEP_OP_QKV, 1), 3.5, 1, "qkv, mb 1");
  span_is(find(tp, SCALE_TRACE_EXPOSED, -1, 1), 6.5, 0.5, "TP exposed, mb 1");
  span_is(find(dp, SCALE_TRACE_HIDDEN, -1, -1), 5.5, 1.5, "DP under the last backward");
  span_is(find(0, SCALE_TRACE_BUBBLE, -1, -1), 7, 1, "bubble");
  span_is(find(dp, SCALE_TRACE_EXPOSED, -1, -1), 8, 0.5, "DP tail");
  span_is(find(0, SCALE_TRACE_OP, SCALE_STEP_OP_OPTIMIZER, -1), 8.5, 0.25, "optimizer");
  span_is(find(0, SCALE_TRACE_OVERHEAD, -1, -1), 8.75, 0.1, "overhead");
  ck_assert(trace.row_used[0] && trace.row_used[tp] && trace.row_used[dp]);
  ck_assert(!trace.row_used[1 + SCALE_STEP_COMM_PP]);
  ck_assert_str_eq(trace.row_names[tp], "tp (scale-up)");
  /* a floor above the device's time (the NICs' or the host's): idle to the step's end */
  r.step_s = 9.35;
  ck_assert_int_eq(scale_step_trace_build(&r, &trace, NULL), SCALE_OK);
  span_is(find(0, SCALE_TRACE_FLOOR, -1, -1), 8.85, 0.5, "the floor");
  scale_check_rel(trace.end_s, 9.35, EXACT, "s", "ends at the step");
  r.compute_s = NAN;
  ck_assert_int_eq(scale_step_trace_build(&r, &trace, NULL), SCALE_ERR_INVALID);
}
END_TEST

/* Sums of each stream's events against the result, the end at the step, and the critical path
 * serial: the compute row's and every exposed event are disjoint in time. */
static void check_against(const scale_step_result *r, const char *what) {
  ck_assert_msg(scale_step_trace_build(r, &trace, NULL) == SCALE_OK, "%s", what);
  double hidden[SCALE_STEP_TRACE_ROWS] = {0}, exposed[SCALE_STEP_TRACE_ROWS] = {0}, ops = 0,
         end = 0;
  static double lo[SCALE_STEP_TRACE_MAX], hi[SCALE_STEP_TRACE_MAX];
  size_t n_path = 0;
  for (size_t i = 0; i < trace.n_events; i++) {
    const scale_step_trace_event *e = &trace.events[i];
    end = fmax(end, e->start_s + e->dur_s);
    if (e->kind == SCALE_TRACE_HIDDEN) hidden[e->row] += e->dur_s;
    if (e->kind == SCALE_TRACE_EXPOSED) exposed[e->row] += e->dur_s;
    if (e->kind == SCALE_TRACE_OP || e->kind == SCALE_TRACE_COMPUTE) ops += e->dur_s;
    if (e->kind != SCALE_TRACE_HIDDEN) lo[n_path] = e->start_s, hi[n_path++] = e->start_s + e->dur_s;
  }
  scale_check_rel(end, r->step_s, 1e-12, "s", what);
  scale_check_rel(ops, r->compute_s + r->optimizer_s, 1e-12, "s", what);
  for (int c = 0; c < SCALE_STEP_COMM_COUNT; c++) {
    double want_h = fmax(0, r->comm_s[c] - r->exposed_s[c]);
    ck_assert_msg(fabs(hidden[1 + c] - want_h) <= 1e-12 * r->step_s, "%s: %s hidden %g vs %g",
                  what, scale_step_comm_name(c), hidden[1 + c], want_h);
    ck_assert_msg(fabs(exposed[1 + c] - r->exposed_s[c]) <= 1e-12 * r->step_s,
                  "%s: %s exposed", what, scale_step_comm_name(c));
  }
  for (size_t i = 0; i < n_path; i++)
    for (size_t k = i + 1; k < n_path; k++)
      ck_assert_msg(hi[i] <= lo[k] + 1e-12 * r->step_s || hi[k] <= lo[i] + 1e-12 * r->step_s,
                    "%s: critical-path events %zu and %zu overlap", what, i, k);
}

static scale_step_result eval(const char *model, const char *hw, double chips, double batch,
                              double seq, scale_layout l) {
  static scale_model m;
  static scale_chip c;
  static scale_step_params params;
  m = scale_check_model(model);
  c = scale_check_chip(hw);
  ck_assert_int_eq(scale_step_params_of_chip(&c, &params), SCALE_OK);
  scale_train_problem p = scale_train_problem_make(&m, &c, chips, batch, seq);
  p.step_params = &params;
  scale_train_layout_map(&c, chips, &l);
  scale_diag diag;
  ck_assert_msg(scale_train_validate(&p, &l, &diag) == SCALE_OK, "%s: %s", model, diag.message);
  static scale_train_result r;
  scale_train_eval(&p, &l, &r);
  ck_assert(r.step_model);
  return r.step;
}

static scale_layout layout(double dp, double fsdp, double tp, double pp, double m, double cp) {
  scale_layout l = scale_layout_default();
  l.dp = dp, l.fsdp = fsdp, l.tp = tp, l.pp = pp, l.n_microbatches = m, l.cp = cp;
  return l;
}

START_TEST(real_steps_add_up) {
  /* LLaMA 3 405B at Meta's layout: TP 8 SP, PP 16 interleaved v 4, 16 microbatches, FSDP 128
   * ZeRO-1 (every stream: TP hidden and exposed, PP sends, the DP buckets and their tail) */
  scale_layout l = layout(1, 128, 8, 16, 16, 1);
  l.sp = true, l.schedule = SCALE_PP_INTERLEAVED, l.n_virtual_stages = 4, l.zero_stage = 1;
  l.remat = SCALE_REMAT_BIG_MATMULS;
  scale_step_result r = eval("llama-3-405b", "nvidia-h100-sxm", 16384, 16777216, 8192, l);
  check_against(&r, "405B, Meta's layout");
  ck_assert(trace.row_used[1 + SCALE_STEP_COMM_PP] && trace.row_used[1 + SCALE_STEP_COMM_TP]);
  /* 64 microbatches: the first SCALE_STEP_TRACE_DETAIL one by one, the rest as one block */
  l.n_microbatches = 64;
  r = eval("llama-3-405b", "nvidia-h100-sxm", 16384, 4 * 16777216, 8192, l);
  check_against(&r, "405B, 64 microbatches");
  ck_assert_int_eq(find(0, SCALE_TRACE_COMPUTE, -1, SCALE_STEP_TRACE_DETAIL)->micro_last, 63);
  /* LLaMA 3 70B on a v5p pod slice, FSDP x TP x CP ring (ZeRO-3 gathers, CP passes, on ICI) */
  r = eval("llama-3-70b", "tpu-v5p", 8192, 4194304, 4096, layout(1, 1024, 4, 1, 1, 2));
  check_against(&r, "70B on v5p");
  ck_assert_str_eq(trace.row_names[1 + SCALE_STEP_COMM_FSDP], "fsdp (ici)");
  /* Mixtral 8x7B on 64 H100, EP 8 over DP 8 x TP 8: the all-to-alls */
  l = layout(8, 1, 8, 1, 4, 1);
  l.ep = 8, l.sp = true;
  r = eval("mixtral-8x7b", "nvidia-h100-sxm", 64, 524288, 4096, l);
  check_against(&r, "Mixtral EP");
  ck_assert(trace.row_used[1 + SCALE_STEP_COMM_EP]);
  /* Mamba-7B (Amer et al.) on 8 H100 with TP 2, 4 microbatches: compute step.h does not name */
  r = eval("mamba-2-7b-amer", "nvidia-h100-sxm", 8, 262144, 4096, layout(4, 1, 2, 1, 4, 1));
  check_against(&r, "Mamba-2");
  ck_assert_int_eq(find(0, SCALE_TRACE_COMPUTE, -1, 0)->row, 0);
}
END_TEST

/* The JSON parses, holds a thread per used row and an X event per span, in microseconds. */
START_TEST(renders) {
  scale_step_result r = hand_step();
  ck_assert_int_eq(scale_step_trace_build(&r, &trace, NULL), SCALE_OK);
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  ck_assert_int_eq(scale_step_trace_json(&trace, "a \"quoted\" job", fp, NULL), SCALE_OK);
  fclose(fp);
  scale_json *json;
  scale_diag diag;
  ck_assert_msg(scale_json_parse(text, len, &json, &diag) == SCALE_OK, "%s", diag.message);
  const scale_json_value *events = scale_json_member(scale_json_root(json), "traceEvents");
  ck_assert_ptr_nonnull(events);
  /* 1 process name + 3 rows + the 13 spans of the hand-laid step (two microbatches of qkv,
   * mlp-up, TP hidden, TP exposed: 8; DP hidden and exposed, bubble, optimizer, overhead: 5) */
  ck_assert_uint_eq(trace.n_events, 13);
  size_t n_values = 0;
  for (const scale_json_value *v = events->child; v; v = v->next) n_values++;
  ck_assert_uint_eq(n_values, 1 + 3 + 13);
  ck_assert_ptr_nonnull(strstr(text, "\"ts\": 8750000, \"dur\": 100000"));
  scale_json_free(json);
  free(text);
  static char svg[1 << 18];
  size_t n = 0;
  ck_assert_int_eq(scale_step_trace_svg(&trace, "hand", svg, sizeof svg, &n, &diag), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "tp (scale-up)"));
  ck_assert_ptr_nonnull(strstr(svg, "exposed communication"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("steptrace");
  TCase *tc = tcase_create("trace");
  tcase_add_test(tc, hand_laid_step);
  tcase_add_test(tc, real_steps_add_up);
  tcase_add_test(tc, renders);
  suite_add_tcase(s, tc);
  return scale_check_run(s);
}
