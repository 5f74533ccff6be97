/* test_diagram.c — the concept diagrams (diagram.h) draw what the library computes: the drawn
 * elements are counted against the functions that price them and against hand counts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale/diagram.h"
#include "scale/pipeline.h"
#include "scale/transformer.h"
#include "scale_check.h"
#include "serve_fixture.h"

static char svg[1 << 17], again[1 << 17];

/** Occurrences of 'needle' in svg. */
static int count(const char *needle) {
  int n = 0;
  for (const char *p = strstr(svg, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/** Sum of the width="..." of every <rect class="cls" ...>. */
static double widths(const char *cls) {
  char key[48];
  snprintf(key, sizeof key, "<rect class=\"%s\"", cls);
  double sum = 0;
  for (const char *p = strstr(svg, key); p; p = strstr(p + 1, key))
    sum += strtod(strstr(p, "width=\"") + 7, NULL);
  return sum;
}

static scale_mesh mesh_of(const char *text) {
  scale_mesh m;
  ck_assert_int_eq(scale_sharding_mesh_parse(text, &m, NULL), SCALE_OK);
  return m;
}

static void array_svg(const char *mesh_text, const char *sharding_text) {
  scale_mesh m = mesh_of(mesh_text);
  scale_sharding s;
  ck_assert_int_eq(scale_sharding_parse(sharding_text, &m, &s, NULL), SCALE_OK);
  scale_diag d = {0};
  size_t len = 0;
  scale_status st = scale_diagram_sharded_array(&m, &s, svg, sizeof svg, &len, &d);
  ck_assert_msg(st == SCALE_OK, "%s on %s: %s", sharding_text, mesh_text, d.message);
  ck_assert_uint_eq(len, strlen(svg));
}

START_TEST(sharded_array_blocks) {
  /* ch. 3: A[I_X, J_Y] on a 2 x 2 mesh: 4 blocks, one device each, a quarter per device. */
  array_svg("{X:2, Y:2}", "A[I_X, J_Y]");
  ck_assert_int_eq(count("class=\"block\""), 4);
  ck_assert_int_eq(count("class=\"copy\""), 0);
  ck_assert_int_eq(count("class=\"held\""), 4);
  ck_assert_ptr_nonnull(strstr(svg, "every device holds 1/4 of A"));
  /* A[I_X, J]: 2 blocks, each with a swatch for the 2 devices along Y that hold it. */
  array_svg("{X:2, Y:2}", "A[I_X, J]");
  ck_assert_int_eq(count("class=\"block\""), 2);
  ck_assert_int_eq(count("class=\"copy\""), 4);
  ck_assert_ptr_nonnull(strstr(svg, "2 blocks, each on 2 devices"));
  /* A[I_XY, J] on {X:2, Y:4}: I cut in 8, every device's map has 8 cells, one its own. */
  array_svg("{X:2, Y:4}", "A[I_XY, J]");
  ck_assert_int_eq(count("class=\"block\""), 8);
  ck_assert_int_eq(count("class=\"map\"") + count("class=\"held\""), 8 * 8);
  /* Fully replicated: one block, a swatch per device. */
  array_svg("{X:4}", "A[I, J]");
  ck_assert_int_eq(count("class=\"block\""), 1);
  ck_assert_int_eq(count("class=\"copy\""), 4);
  ck_assert_ptr_nonnull(
      strstr(svg, "one block, a copy on each of the 4 devices: each holds all of A"));
}
END_TEST

START_TEST(sharded_array_refuses) {
  scale_mesh m = mesh_of("{X:2, Y:2}"), big = mesh_of("{X:8, Y:4}"),
             three = mesh_of("{X:2, Y:2, Z:2}");
  scale_sharding s3, s2, s2big, s2three;
  ck_assert_int_eq(scale_sharding_parse("A[I_X, J, K]", &m, &s3, NULL), SCALE_OK);
  ck_assert_int_eq(scale_sharding_parse("A[I_X, J]", &m, &s2, NULL), SCALE_OK);
  ck_assert_int_eq(scale_sharding_parse("A[I_X, J]", &big, &s2big, NULL), SCALE_OK);
  ck_assert_int_eq(scale_sharding_parse("A[I_X, J]", &three, &s2three, NULL), SCALE_OK);
  scale_diag d = {0};
  ck_assert_int_eq(scale_diagram_sharded_array(&m, &s3, svg, sizeof svg, NULL, &d),
                   SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "2-D array"));
  ck_assert_int_eq(scale_diagram_sharded_array(&big, &s2big, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_diagram_sharded_array(&three, &s2three, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
  /* Too small a buffer: RANGE, and the size needed. */
  size_t need = 0;
  ck_assert_int_eq(scale_diagram_sharded_array(&m, &s2, NULL, 0, &need, NULL), SCALE_OK);
  ck_assert_int_eq(scale_diagram_sharded_array(&m, &s2, svg, 100, NULL, NULL), SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_diagram_sharded_array(&m, &s2, svg, need + 1, NULL, NULL), SCALE_OK);
}
END_TEST

START_TEST(sharded_matmul_cases) {
  /* ch. 3's four cases on a 2x2 mesh, each with the collective the planner names. */
  static const char *const ops[4][2] = {{"A[I_X, J]", "B[J, K_Y]"},
                                        {"A[I, J_X]", "B[J, K]"},
                                        {"A[I, J_X]", "B[J_X, K]"},
                                        {"A[I_X, J]", "B[J, K_X]"}};
  static const char *const want[4] = {"no communication", "1. all-gather A over X first",
                                      "1. all-reduce the partial C over X after the multiply",
                                      "1. all-gather A over X first"};
  scale_mesh m = mesh_of("{X:2, Y:2}");
  for (int i = 0; i < 4; i++) {
    scale_sharding a, b;
    ck_assert_int_eq(scale_sharding_parse(ops[i][0], &m, &a, NULL), SCALE_OK);
    ck_assert_int_eq(scale_sharding_parse(ops[i][1], &m, &b, NULL), SCALE_OK);
    scale_diag d = {0};
    ck_assert_msg(scale_diagram_sharded_matmul(&m, &a, &b, svg, sizeof svg, NULL, &d) == SCALE_OK,
                  "%s", d.message);
    char head[24];
    snprintf(head, sizeof head, "case %d:", i + 1);
    ck_assert_ptr_nonnull(strstr(svg, head));
    ck_assert_msg(strstr(svg, want[i]) != NULL, "case %d: no '%s'", i + 1, want[i]);
  }
}
END_TEST

START_TEST(ring_steps_move_the_charged_bytes) {
  /* One-way ring of 4, V = 4 MiB: AllGather sends n chunks per step for n - 1 steps; each
   * link carries n - 1 chunks of V/n = 3 MiB = (n-1)/n V, the library's link bytes. */
  const double V = 4 * 1048576.0;
  const scale_collective ops[] = {SCALE_COLL_ALL_GATHER, SCALE_COLL_REDUCE_SCATTER,
                                  SCALE_COLL_ALL_REDUCE};
  const int steps[] = {3, 3, 6};
  for (int i = 0; i < 3; i++) {
    scale_diag d = {0};
    ck_assert_msg(scale_diagram_ring_steps(ops[i], 4, V, svg, sizeof svg, NULL, &d) == SCALE_OK,
                  "%s", d.message);
    int sends = count("class=\"send\"");
    ck_assert_int_eq(sends, steps[i] * 4);
    scale_check_rel(sends / 4.0 * V / 4, scale_collective_ring_link_bytes(ops[i], 4, V, false),
                    1e-12, "B", "chunks per link x V/n");
    ck_assert_int_eq(count("class=\"ringdev\""), 4 * (steps[i] + 1));
  }
  /* ReduceScatter ends with each device holding one chunk summed over all 4 (opacity 1), and
   * no chunk is whole before the last step. */
  ck_assert_int_eq(
      scale_diagram_ring_steps(SCALE_COLL_REDUCE_SCATTER, 4, V, svg, sizeof svg, NULL, NULL),
      SCALE_OK);
  ck_assert_int_eq(count("fill-opacity=\"1.000\""), 4);
  ck_assert_ptr_nonnull(strstr(svg, "3 MiB per link"));
  ck_assert_int_eq(
      scale_diagram_ring_steps(SCALE_COLL_ALL_TO_ALL, 4, V, svg, sizeof svg, NULL, NULL),
      SCALE_ERR_INVALID);
  ck_assert_int_eq(
      scale_diagram_ring_steps(SCALE_COLL_ALL_GATHER, 9, V, svg, sizeof svg, NULL, NULL),
      SCALE_ERR_INVALID);
  ck_assert_int_eq(
      scale_diagram_ring_steps(SCALE_COLL_ALL_GATHER, 4, NAN, svg, sizeof svg, NULL, NULL),
      SCALE_ERR_INVALID);
}
END_TEST

static scale_group torus(double rows, double cols, bool wraps) {
  scale_group g = {
      2,
      {{rows, SCALE_TOPO_RING, wraps, 4.5e10, 1e-6}, {cols, SCALE_TOPO_RING, wraps, 4.5e10, 1e-6}}};
  return g;
}

START_TEST(torus_hops_and_links) {
  /* 4 x 4 with wraparound: the farthest chip is 2 + 2 hops away; 8 wraparound arcs (a row
   * and a column each), 2 x 4 x 3 inner links. Without wraparound (a v5e 4x4, ch. 2 Q5): 6. */
  scale_group g = torus(4, 4, true);
  scale_diag d = {0};
  ck_assert_msg(scale_diagram_torus("TPU", &g, svg, sizeof svg, NULL, &d) == SCALE_OK, "%s",
                d.message);
  ck_assert_int_eq(count("class=\"wrap\""), 8);
  ck_assert_int_eq(count("class=\"link\""), 24);
  ck_assert_int_eq(count("class=\"chip\""), 16);
  ck_assert_ptr_nonnull(strstr(svg, "farthest chip from 0,0: 4 hops"));
  g = torus(4, 4, false);
  ck_assert_int_eq(scale_diagram_torus("TPU", &g, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_int_eq(count("class=\"wrap\""), 0);
  ck_assert_ptr_nonnull(strstr(svg, "farthest chip from 0,0: 6 hops"));
  g = torus(16, 16, true);
  ck_assert_int_eq(scale_diagram_torus("TPU", &g, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(gantt_idle_area_is_the_bubble) {
  /* The hatched area over the bars' area is the priced bubble: 1F1B p = 4, m = 8 -> 3/8;
   * interleaved v = 2 -> 3/16 (coordinates carry two decimals: 1e-3). */
  static scale_pp_pass passes[512];
  const scale_pp_schedule sched[] = {SCALE_PP_1F1B, SCALE_PP_GPIPE, SCALE_PP_INTERLEAVED};
  const int vs[] = {1, 1, 2};
  for (int i = 0; i < 3; i++) {
    scale_timeline t;
    ck_assert_int_eq(scale_schedule_play(sched[i], 4, 8, vs[i], 1, 2, passes, 512, &t), SCALE_OK);
    scale_diag d = {0};
    ck_assert_msg(scale_diagram_gantt(scale_pp_schedule_name(sched[i]), 4, passes, &t, svg,
                                      sizeof svg, NULL, &d) == SCALE_OK,
                  "%s", d.message);
    ck_assert_int_eq(count("class=\"pass\""), 2 * 4 * 8 * vs[i]);
    ck_assert_ptr_nonnull(strstr(svg, ">backward</text>")); /* the legend */
    ck_assert_ptr_nonnull(strstr(svg, ">idle</text>"));
    scale_check_rel(widths("idle") / widths("pass"),
                    scale_pipeline_bubble_frac(sched[i], 4, 8, vs[i]), 1e-3, "",
                    "pipeline.h bubble");
  }
  scale_timeline empty = {0};
  ck_assert_int_eq(scale_diagram_gantt("x", 4, passes, &empty, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
}
END_TEST

/** Sum of the data-flops="..." of the drawn boxes. */
static double drawn_flops(void) {
  double sum = 0;
  for (const char *p = strstr(svg, "data-flops=\""); p; p = strstr(p + 1, "data-flops=\""))
    sum += strtod(p + 12, NULL);
  return sum;
}

START_TEST(transformer_block_flops) {
  /* The boxes' FLOPs add up to one layer of the model's own count: (FLOPs per token at T
   * minus the unembedding) / L, a different path through transformer.h. */
  const char *names[] = {"llama-3-70b", "deepseek-v3", "gpt-3-175b"};
  for (int i = 0; i < 3; i++) {
    scale_model m = scale_check_model(names[i]);
    scale_diag d = {0};
    ck_assert_msg(scale_diagram_transformer_block(&m, 8192, svg, sizeof svg, NULL, &d) == SCALE_OK,
                  "%s: %s", names[i], d.message);
    double per_layer = (scale_transformer_flops_per_token(&m, 8192, true, SCALE_PASS_FORWARD) -
                        scale_transformer_unembedding_flops(&m, 1, SCALE_PASS_FORWARD)) /
                       (double)m.n_layers;
    if (m.n_experts) continue; /* DeepSeek's first dense layers differ from the drawn MoE layer */
    scale_check_rel(drawn_flops(), per_layer, 1e-12, "FLOP", "one layer of flops_per_token");
  }
  /* LLaMA 3 70B by hand: W_Q [8192, 8192] and W_K, W_V [8192, 1024]: 2 (8192 + 2 x 1024) 8192
   * FLOPs a token; the gated MLP 3 x 2 x 8192 x 28672. */
  scale_model m = scale_check_model("llama-3-70b");
  ck_assert_int_eq(scale_diagram_transformer_block(&m, 8192, svg, sizeof svg, NULL, NULL),
                   SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "W_Q [8192, 8192], W_K and W_V [8192, 1024]"));
  ck_assert_ptr_nonnull(strstr(svg, "data-flops=\"167772160\""));
  ck_assert_ptr_nonnull(strstr(svg, "data-flops=\"1409286144\""));
  m.arch = SCALE_ARCH_MAMBA2;
  ck_assert_int_eq(scale_diagram_transformer_block(&m, 8192, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
}
END_TEST

START_TEST(fat_tree_levels) {
  /* The H100 file's SuperPod: 8 GPUs a node (450 GB/s NVLink), 32 nodes a leaf (400 GB/s),
   * 4 units a spine: 1024 GPUs. */
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_diag d = {0};
  ck_assert_msg(scale_diagram_fat_tree(&h100, svg, sizeof svg, NULL, &d) == SCALE_OK, "%s",
                d.message);
  ck_assert_int_eq(count("class=\"switch\""), h100.n_net_levels);
  ck_assert_ptr_nonnull(strstr(svg, "NVSwitch: 8 GPUs, 450 GB/s each one way"));
  ck_assert_ptr_nonnull(strstr(svg, "leaf switches: 32 nodes, 400 GB/s each one way"));
  ck_assert_ptr_nonnull(strstr(svg, "1024 GPUs: 8 GPUs x 32 nodes x 4 units"));
  scale_chip v5e = scale_check_chip("tpu-v5e");
  ck_assert_int_eq(scale_diagram_fat_tree(&v5e, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(zero_stages_bars) {
  /* Rajbhandari et al. (ZeRO) Figure 1: 7.5B parameters, 64 GPUs, mixed-precision Adam (2 + 2 +
   * 12 bytes a parameter): 120 GB, 31.4 GB (2 + 2 + 12/64), 16.6 GB (2 + 14/64), 1.88 GB. */
  scale_precision prec = SCALE_PRECISION_MIXED_ADAM;
  scale_diag d = {0};
  ck_assert_msg(scale_diagram_zero_stages(&prec, 7.5e9, 64, svg, sizeof svg, NULL, &d) == SCALE_OK,
                "%s", d.message);
  ck_assert_int_eq(count("class=\"zero\""), 12);
  const double want[4] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  const char *p = svg;
  for (int st = 0; st < 4; st++) {
    double sum = 0;
    for (int part = 0; part < 3; part++) {
      p = strstr(p, "data-bytes=\"") + 12;
      sum += strtod(p, NULL);
    }
    scale_check_rel(sum, want[st], 1e-12, "B", "ZeRO Figure 1");
  }
  ck_assert_ptr_nonnull(strstr(svg, "ZeRO-3 1.88 GB."));
  ck_assert_int_eq(scale_diagram_zero_stages(&prec, 7.5e9, 0.5, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
}
END_TEST

START_TEST(paged_kv_blocks) {
  /* 37, 100 and 12 tokens in blocks of 16 reserve 3 + 7 + 1 = 11 blocks (176 slots) where
   * padding to 128 reserves 384: 45.8%; at 1 kB a token, 176 kB against 384 kB. */
  const double tokens[3] = {37, 100, 12};
  scale_diag d = {0};
  ck_assert_msg(scale_diagram_paged_kv(tokens, 3, 16, 128, 1000, svg, sizeof svg, NULL, &d) ==
                    SCALE_OK,
                "%s", d.message);
  int pages = 0;
  for (int i = 0; i < 3; i++)
    pages += (int)scale_serve_kv_blocks(tokens[i], 16);
  ck_assert_int_eq(pages, 11);
  ck_assert_int_eq(count("class=\"page\""), pages);
  ck_assert_int_eq(count("class=\"slab\""), 3);
  ck_assert_ptr_nonnull(strstr(svg, "padded: 384 kB; paged: 11 blocks, 176 kB (45.8% of padded)"));
  const double bad[1] = {200};
  ck_assert_int_eq(scale_diagram_paged_kv(bad, 1, 16, 128, 1000, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
  scale_check_nan(scale_serve_kv_blocks(10, 0.5));
  scale_check_rel(scale_serve_kv_blocks(32, 16), 2, 0, "", "a full last block");
}
END_TEST

START_TEST(diagrams_are_deterministic) {
  array_svg("{X:2, Y:4}", "W[D_X, F_Y]");
  memcpy(again, svg, sizeof svg);
  array_svg("{X:2, Y:4}", "W[D_X, F_Y]");
  ck_assert_str_eq(svg, again);
  ck_assert_ptr_nonnull(strstr(svg, "<desc>W[D_X, F_Y] on the mesh {X:2, Y:4}"));
}
END_TEST

/** The data-row, data-start-s and data-dur-s of the n-th span rect of svg (false past the last). */
static bool span_at(const char **p, int *row, double *start, double *dur) {
  const char *q = strstr(*p, "data-row=\"");
  if (!q) return false;
  *row = atoi(q + 10);
  *start = strtod(strstr(q, "data-start-s=\"") + 14, NULL);
  *dur = strtod(strstr(q, "data-dur-s=\"") + 12, NULL);
  *p = q + 1;
  return true;
}

/** The smallest font-size of svg's texts [px]. */
static double smallest_font(void) {
  double least = INFINITY;
  for (const char *p = strstr(svg, "<text "); p; p = strstr(p + 1, "<text "))
    least = fmin(least, strtod(strstr(p, "font-size=\"") + 11, NULL));
  return least;
}

START_TEST(serving_spans_are_the_latencies) {
  /* A stream with chunked prefill (16 tokens a step) and KV on demand tight enough to preempt:
   * each request's spans tile its life, so in every row they add up to finish - arrival, and
   * those before its first token to its TTFT, both as the simulator reports them. */
  static serve_fixture_trace ft;
  scale_serve_trace *tr = serve_fixture_trace_of(&ft, 4096, 16384, 8);
  scale_serve_config c = serve_fixture_config(8, 0, 0);
  c.rate_per_s = 40;
  c.isl.min_tokens = 5, c.isl.max_tokens = 40;
  c.osl.min_tokens = 3, c.osl.max_tokens = 12;
  c.max_batch = 4;
  c.max_step_tokens = 16;
  c.block_tokens = 4;
  c.kv_blocks = 16;
  c.kv_on_demand = true;
  c.trace = tr;
  scale_serve_result r = serve_fixture_run(&c);
  ck_assert(r.preemptions >= 1); /* the case this test is for */
  scale_diag d = {0};
  size_t len = 0;
  ck_assert_msg(scale_diagram_serving(NULL, tr, svg, sizeof svg, &len, &d) == SCALE_OK, "%s",
                d.message);
  ck_assert_uint_eq(len, strlen(svg));
  double life[8] = {0}, before_first[8] = {0};
  int row, n_prefill = 0, n_decode = 0;
  double start, dur;
  for (const char *p = svg; span_at(&p, &row, &start, &dur);) {
    ck_assert(row >= 0 && row < 8);
    life[row] += dur;
    if (start < ft.requests[row].first_token_s - 1e-12) before_first[row] += dur;
  }
  for (size_t e = 0; e < tr->n_events; e++) {
    n_prefill += ft.events[e].kind == SCALE_SERVE_TRACE_PREFILL;
    n_decode += ft.events[e].kind == SCALE_SERVE_TRACE_DECODE;
  }
  double ttft_most = 0;
  for (int i = 0; i < 8; i++) {
    scale_check_rel(life[i], ft.requests[i].finish_s - ft.requests[i].arrival_s, 1e-9, "s", "its latency");
    scale_check_rel(before_first[i], ft.requests[i].first_token_s - ft.requests[i].arrival_s, 1e-9, "s",
                    "its TTFT");
    ttft_most = fmax(ttft_most, ft.requests[i].first_token_s - ft.requests[i].arrival_s);
  }
  scale_check_rel(ttft_most, r.ttft_p99_s, 1e-9, "s", "the simulator's TTFT p99 (8 requests)");
  ck_assert_int_eq(count("<rect class=\"prefill\""), n_prefill);
  ck_assert_int_eq(count("<rect class=\"decode\""), n_decode);
  ck_assert_int_ge(count("<rect class=\"evicted\""), 1);
  ck_assert_int_ge(count("<rect class=\"recompute\""), 1);
  ck_assert_int_eq(count("class=\"mark\""), (int)tr->n_steps + 1); /* every step's start, the end */
  ck_assert_ptr_nonnull(strstr(svg, ">prefill chunk</text>"));     /* the legend */
  ck_assert_ptr_nonnull(strstr(svg, ">preempted, waiting</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "<desc>Continuous batching: 8 requests"));
  ck_assert_ptr_nonnull(strstr(svg, " Request 8 ("));
  ck_assert(smallest_font() >= 10); /* legible at its drawn size on a phone */
  /* the same trace draws the same bytes; a truncated one is refused */
  memcpy(again, svg, sizeof svg);
  ck_assert_int_eq(scale_diagram_serving(NULL, tr, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_str_eq(svg, again);
  tr->steps_cap = 5;
  serve_fixture_run(&c);
  ck_assert_int_eq(scale_diagram_serving(NULL, tr, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_diagram_serving(NULL, NULL, svg, sizeof svg, NULL, NULL),
                   SCALE_ERR_INVALID);
}
END_TEST

START_TEST(timeline_refuses) {
  /* A span past the axis's end, or on no row, is refused; a good one draws with its legend. */
  const char *rows[1] = {"only"};
  const scale_diagram_style st[1] = {{"work", "#4e79a7", "work", NULL}};
  scale_diagram_span sp = {0, 0, 0.5, 0.25, "x"};
  scale_diagram_chart c = {"t", "d", NULL, rows, 1, st, 1, &sp, 1, NULL, 0, 1.0, true};
  ck_assert_int_eq(scale_diagram_timeline(&c, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, ">work</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "data-start-s=\"0.5\" data-dur-s=\"0.25\""));
  sp.dur_s = 0.75;
  ck_assert_int_eq(scale_diagram_timeline(&c, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
  sp.dur_s = 0.25, sp.row = 1;
  ck_assert_int_eq(scale_diagram_timeline(&c, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
  /* the last tick's label, wide, ends at its tick to stay on the canvas: 0 .. 8e5 s in ticks of
   * 2e5 s (tick_step: 1.6e5 rounds to 2 x 10^5), the last "9.26 days" (54 px) at x = 620 */
  c.end_s = 8e5, sp.row = 0, sp.start_s = 1e5, sp.dur_s = 2e5;
  scale_diag d = {0};
  ck_assert_msg(scale_diagram_timeline(&c, svg, sizeof svg, NULL, &d) == SCALE_OK, "%s",
                d.message);
  ck_assert_ptr_nonnull(strstr(svg, "text-anchor=\"end\">9.26 days</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "text-anchor=\"middle\">2.31 days</text>"));
  c.end_s = 1.0, sp.start_s = 0.5, sp.dur_s = 0.25;
  /* a buffer too small reports the size it needs */
  sp.row = 0;
  size_t need = 0;
  ck_assert_int_eq(scale_diagram_timeline(&c, NULL, 0, &need, NULL), SCALE_OK);
  ck_assert_int_eq(scale_diagram_timeline(&c, svg, need, NULL, NULL), SCALE_ERR_RANGE);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("diagram");
  const scale_check_case cases[] = {
      {"sharded_array_blocks", sharded_array_blocks},
      {"sharded_array_refuses", sharded_array_refuses},
      {"sharded_matmul_cases", sharded_matmul_cases},
      {"ring_steps_move_the_charged_bytes", ring_steps_move_the_charged_bytes},
      {"torus_hops_and_links", torus_hops_and_links},
      {"gantt_idle_area_is_the_bubble", gantt_idle_area_is_the_bubble},
      {"transformer_block_flops", transformer_block_flops},
      {"fat_tree_levels", fat_tree_levels},
      {"zero_stages_bars", zero_stages_bars},
      {"paged_kv_blocks", paged_kv_blocks},
      {"diagrams_are_deterministic", diagrams_are_deterministic},
      {"serving_spans_are_the_latencies", serving_spans_are_the_latencies},
      {"timeline_refuses", timeline_refuses},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(suite()); }
