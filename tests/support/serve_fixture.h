/* serve_fixture.h — the request-stream simulator's fixture, shared by test_serve.c (open loop)
 * and test_serve_closed.c (closed loop): a linear step cost whose every time can be derived by
 * hand, an engine that only the limits a test sets can bind, and the roofline cost of one model
 * copy. Header-only (static inline): each suite is one translation unit.
 */
#ifndef SERVE_FIXTURE_H
#define SERVE_FIXTURE_H

#include <math.h>
#include <string.h>

#include "scale.h"
#include "scale/serve.h"
#include "scale_check.h"

/** The linear step cost's coefficients: a step takes a + b (decode tokens + prompt tokens). */
typedef struct {
  double a_s; /**< fixed time of a step [s] */
  double b_s; /**< time of one token, decoded or prefilled [s] */
} serve_fixture_linear;

/** The linear step cost (scale_serve_cost_fn; 'ctx' is a serve_fixture_linear *). */
static inline double serve_fixture_linear_cost(const scale_serve_step *step, void *ctx) {
  const serve_fixture_linear *l = ctx;
  return l->a_s + l->b_s * (step->n_decode + step->n_prefill_tokens);
}

/** 'n' requests of 'isl' prompt and 'osl' output tokens at the linear cost a = 0.01 s,
 * b = 0.001 s (the values every hand derivation in the suites uses), batch cap 16, 16-token KV
 * blocks, budget and KV blocks unlimited (1e6). The arrivals (rate or clients) are the caller's. */
static inline scale_serve_config serve_fixture_config(double n, double isl, double osl) {
  static serve_fixture_linear lin = {0.01, 0.001};
  scale_serve_config c = scale_serve_config_default();
  c.n_requests = n;
  c.isl.min_tokens = c.isl.max_tokens = isl;
  c.osl.min_tokens = c.osl.max_tokens = osl;
  c.max_batch = 16;
  c.max_step_tokens = 1e6;
  c.block_tokens = 16;
  c.kv_blocks = 1e6;
  c.cost = serve_fixture_linear_cost;
  c.cost_ctx = &lin;
  return c;
}

/** A step trace (serve.h) with its storage, for the suites' traced runs. */
typedef struct {
  scale_serve_trace trace;
  scale_serve_trace_step steps[4096];
  scale_serve_trace_event events[16384];
  scale_serve_trace_request requests[8];
} serve_fixture_trace;

/** Points t->trace at t's storage with these capacities (each at most its array's). */
static inline scale_serve_trace *serve_fixture_trace_of(serve_fixture_trace *t, size_t steps,
                                                        size_t events, size_t requests) {
  t->trace = (scale_serve_trace){t->steps, steps, t->events, events, t->requests, requests,
                                 0,        0,     0,         false};
  return &t->trace;
}

/** Simulates 'c' with a fresh simulator; a failure to build or run it fails the test. */
static inline scale_serve_result serve_fixture_run(const scale_serve_config *c) {
  scale_serve *sim = NULL;
  scale_diag diag;
  ck_assert_msg(scale_serve_new(c, &sim, &diag) == SCALE_OK, "%s", diag.message);
  scale_serve_result r;
  ck_assert_msg(scale_serve_run(sim, &r, &diag) == SCALE_OK, "%s", diag.message);
  scale_serve_free(sim);
  return r;
}

/** Asserts that scale_serve_new() refuses 'c' as out of range, leaves no simulator, and that its
 * diagnostic names 'word'. */
static inline void serve_fixture_expect_range(const scale_serve_config *c, const char *word) {
  scale_serve *sim = (scale_serve *)&sim; /* must be reset to NULL */
  scale_diag diag;
  ck_assert_int_eq(scale_serve_new(c, &sim, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_null(sim);
  ck_assert_msg(strstr(diag.message, word), "'%s' not in '%s'", word, diag.message);
}

/** One model copy under the roofline cost (serve.h): the model, the chip, the inference
 * configuration and the cost built from them. */
typedef struct {
  scale_model model;
  scale_chip chip;
  scale_infer_config ic;   /**< one chip, batch 1, decode context as given */
  scale_serve_roofline rf; /**< the step cost */
} serve_fixture_copy;

/** Fills 'out' with LLaMA 3 8B (llama-3-8b) on one H100 (nvidia-h100-sxm) in bf16, decode
 * context 'context_tokens', 'overhead_s' a step; a failure to load or build fails the test. */
static inline void serve_fixture_llama_8b_h100(serve_fixture_copy *out, double context_tokens,
                                               double overhead_s) {
  out->model = scale_check_model("llama-3-8b");
  out->chip = scale_check_chip("nvidia-h100-sxm");
  out->ic = scale_infer_config_default(1, 1, context_tokens);
  scale_diag diag;
  ck_assert_msg(scale_serve_roofline_of(&out->model, &out->chip, &out->ic, overhead_s, &out->rf,
                                        &diag) == SCALE_OK,
                "%s", diag.message);
}

/** Prices c's steps with 'rf' (kept by pointer: it must outlive the runs) and gives c the KV
 * blocks that rf's KV capacity holds. */
static inline void serve_fixture_use_roofline(scale_serve_config *c, scale_serve_roofline *rf) {
  c->cost = scale_serve_roofline_cost_s;
  c->cost_ctx = rf;
  c->kv_blocks = floor(rf->kv_capacity_bytes / (c->block_tokens * rf->kv_bytes_per_token));
}

#endif
