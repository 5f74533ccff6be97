/* sharding.c — chapter 3, "Sharded Matrices and How to Multiply Them", as a program.
 *
 * Parses the book's sharding notation, counts bytes per device, plans the four cases of a
 * sharded matmul with the collective each needs, prices AllGather, ReduceScatter, AllReduce and
 * AllToAll (precise and in the book's asymptotic form) on every TPU, and works the chapter's
 * problems. Every number the chapter text cites is emitted with --values; --figures DIR draws
 *   allgather-knee.svg     AllGather time vs bytes: latency-bound floor, then bandwidth-bound
 *   collectives.svg        the four collectives vs bytes on one ring
 * and the concept diagrams array-*.svg (sharded arrays on their mesh), case1..4.svg (the four
 * cases of a sharded matmul) and ring-*.svg (AllGather, ReduceScatter, AllReduce on a ring).
 *
 * Options: --chip (default tpu-v5e) and --axis (ring size, default 16) of the collective
 * examples and figures; --mesh and --a/--b shardings of the planned matmul.
 */
#include <stdio.h>

#include "chapter.h"

#define N_CURVE 141
#define V CHAPTER_V

/** A group on 'chip' of the shape "4x4" (one to three axes). */
static bool group_on(chapter *ch, const scale_chip *chip, const char *shape, scale_wrap wrap,
                     scale_group *g) {
  scale_diag diag = {0};
  return chapter_status_ok(ch, scale_group_from_shape(chip, shape, wrap, g, &diag), &diag);
}

/** One ring of 'axis' chips on 'chip'. */
static bool ring_on(chapter *ch, const scale_chip *chip, double axis, scale_group *g) {
  char shape[32];
  snprintf(shape, sizeof shape, "%.0f", axis);
  return group_on(ch, chip, shape, SCALE_WRAP_AUTO, g);
}

/* ---- notation ------------------------------------------------------------------------------ */

static void section_notation(chapter *ch) {
  chapter_heading(ch, "Pop quiz: int8[128, 2048] as A[I_XY, J] on {X:2, Y:8, Z:2}");
  scale_mesh mesh, m1;
  scale_sharding a, a1;
  scale_diag d = {0};
  scale_status st = scale_sharding_parse_array("{X:2, Y:8, Z:2}", "A[I_XY, J]", &mesh, &a, &d);
  if (!chapter_status_ok(ch, st, &d)) return;
  double dims[2] = {128.0, 2048.0};
  CHAPTER_VALUES(ch, "quiz",
      V("devices", "devices", scale_sharding_mesh_devices(&mesh), ""),
      {"array_bytes", "one copy", dims[0] * dims[1], "B", SCALE_FMT_PLAIN},
      V("shards", "shards", scale_sharding_n_shards(&a, &mesh), ""),
      V("local_i", "local size of I", scale_sharding_local_dim(&a, &mesh, dims, 0), ""),
      {"bytes_per_device", "bytes per device",
       scale_sharding_bytes_per_device(&a, &mesh, dims, SCALE_DTYPE_INT8), "B", SCALE_FMT_PLAIN},
      {"total_bytes", "bytes over all devices",
       scale_sharding_total_bytes(&a, &mesh, dims, SCALE_DTYPE_INT8), "B", SCALE_FMT_IEC},
      V("replication", "copies of each element", scale_sharding_replication(&a, &mesh), ""));

  chapter_heading(ch, "Q1: A[I_X, J, K] on {X:4, Y:8, Z:2}");
  st = scale_sharding_parse_array("{X:4, Y:8, Z:2}", "A[I_X, J, K]", &m1, &a1, &d);
  if (!chapter_status_ok(ch, st, &d)) return;
  chapter_value(ch, "q1.replication", "total bytes / one copy",
                scale_sharding_replication(&a1, &m1), "", SCALE_FMT_PLAIN);
}

/* ---- the four cases ------------------------------------------------------------------------ */

/** The four cases of a sharded matmul A[I, J] . B[J, K] (ch. 3): A's and B's shardings. */
static const char *const CASES[4][2] = {{"A[I_X, J]", "B[J, K_Y]"},
                                        {"A[I, J_X]", "B[J, K]"},
                                        {"A[I, J_X]", "B[J_X, K]"},
                                        {"A[I_X, J]", "B[J, K_X]"}};

static void plan_case(chapter *ch, const char *tag, const char *mesh_text, const char *a_text,
                      const char *b_text, const double *a_dims, const double *b_dims,
                      const scale_chip *chip) {
  scale_sharded_matmul plan;
  scale_diag diag = {0};
  scale_status st = scale_sharding_matmul_plan_text(mesh_text, a_text, b_text, a_dims, b_dims,
                                                    SCALE_DTYPE_BF16, chip, SCALE_WRAP_AUTO,
                                                    &plan, &diag);
  if (!chapter_status_ok(ch, st, &diag)) return;
  chapter_say(ch, "%s . %s:", a_text, b_text);
  chapter_stem_value(ch, tag, "case", "case", (double)plan.kind, "", SCALE_FMT_PLAIN);
  chapter_row(ch, "collectives", (double)plan.n_steps, "", SCALE_FMT_PLAIN);
  for (int i = 0; i < plan.n_steps; i++) {
    chapter_say(ch, "  step %d: %s of %s", i + 1, scale_collective_name(plan.step[i].op),
                plan.step[i].operand == 2 ? "C" : plan.step[i].operand == 0 ? "A" : "B");
    chapter_valuef(ch, "  bytes V", plan.step[i].bytes, "B", SCALE_FMT_SI, "%s.step%d_bytes", tag,
                   i + 1);
  }
  CHAPTER_VALUES(ch, tag,
      {"flops_per_device", "FLOPs per device", plan.flops_per_device, "FLOP", SCALE_FMT_SCI},
      V("t_math_s", "T_math",
        scale_roofline_t_math_s(chip, SCALE_DTYPE_BF16, plan.flops_per_device), "s"),
      V("comms_s", "T_comms (precise)", plan.comms_time_s, "s"),
      V("book_comms_s", "T_comms (book form)", plan.book_comms_time_s, "s"));
}

static void section_cases(chapter *ch, const scale_chip *v5e, const char *mesh_text,
                          const char *a_user, const char *b_user) {
  chapter_heading(ch, "The four cases on a TPU v5e 4x4, {X:4, Y:4}, I = 4096, J = 8192, "
                      "K = 16384, bf16");
  double a_dims[2] = {4096.0, 8192.0}, b_dims[2] = {8192.0, 16384.0};
  CHAPTER_VALUES(ch, "cases", V("i", "I", a_dims[0], ""),
                 V("j", "J", a_dims[1], ""),
                 V("k", "K", b_dims[1], ""));
  for (int i = 0; i < 4; i++) {
    char tag[16];
    snprintf(tag, sizeof tag, "case%d", i + 1);
    plan_case(ch, tag, "{X:4, Y:4}", CASES[i][0], CASES[i][1], a_dims, b_dims, v5e);
  }
  /* The reader's own pair (--mesh, --a, --b), printed in the walk-through only. */
  if (ch->walk) {
    chapter_heading(ch, "Your matmul (--mesh, --a, --b)");
    plan_case(ch, "user", mesh_text, a_user, b_user, a_dims, b_dims, v5e);
  }
}

/* ---- collectives --------------------------------------------------------------------------- */

static void section_collectives(chapter *ch, const scale_chip *chip, double axis) {
  chapter_heading(ch, "The four collectives on one ring of the example chip");
  scale_group g;
  if (!ring_on(ch, chip, axis, &g)) return;
  double v = 1e9;
  CHAPTER_VALUES(ch, "coll",
      V("axis", "ring size", axis, ""),
      V("wraps", "ring wraps (1 = yes)", g.axis[0].wraps, ""),
      V("bytes", "array V", v, "B"));
  static const char *tags[SCALE_COLL_COUNT] = {"coll.ag", "coll.rs", "coll.ar", "coll.a2a"};
  for (int op = 0; op < SCALE_COLL_COUNT; op++) {
    scale_collective_cost c = scale_collective_eval(&g, (scale_collective)op, v);
    CHAPTER_VALUES(ch, tags[op],
        V("time_s", scale_collective_name((scale_collective)op), c.time_s, "s"),
        V("book_time_s", "  book form", c.book_time_s, "s"),
        V("hops", "  hops", c.hops, ""));
  }
  chapter_value(ch, "coll.ag.knee_bytes", "AllGather latency-bound below",
                scale_collective_knee_bytes(&g, SCALE_COLL_ALL_GATHER), "B", SCALE_FMT_SI);
}

static void section_every_tpu(chapter *ch, const chapter_chips *tpus) {
  chapter_heading(ch, "Every TPU: hop latency threshold and a 1 GB AllGather on a full axis");
  for (int i = 0; i < tpus->n; i++) {
    const scale_chip *c = &tpus->chip[i];
    chapter_say(ch, "%s:", c->display_name);
    double axis = c->pod_shape[0];
    scale_group g;
    if (!ring_on(ch, c, axis, &g)) return;
    double peak = scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
    double bidi = scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI_BIDI);
    CHAPTER_VALUES(ch, c->name,
        V("latency_bytes", "one hop latency-bound below", scale_chip_ici_latency_bytes(c), "B"),
        V("full_axis", "full pod axis", axis, ""),
        V("ag_1gb_s", "AllGather of 1 GB", scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, 1e9),
          "s"),
        V("ar_1gb_s", "AllReduce of 1 GB", scale_collective_time_s(&g, SCALE_COLL_ALL_REDUCE, 1e9),
          "s"),
        V("a2a_1gb_s", "AllToAll of 1 GB", scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 1e9),
          "s"),
        V("reduce_beats_gather_d", "Q4: multiply-then-AllReduce wins above D",
          scale_sharding_reduce_beats_gather_d(peak, bidi, SCALE_DTYPE_BF16), ""));
  }
}

/* ---- problems ------------------------------------------------------------------------------ */

static void quiz2(chapter *ch, const scale_chip *v5e) {
  chapter_heading(ch, "Pop quiz 2: AllGather_Y([E_Y, F]) on a v5e, {X:8, Y:4}, bf16");
  scale_group g, gw;
  if (!group_on(ch, v5e, "4", SCALE_WRAP_AUTO, &g) || !group_on(ch, v5e, "4", SCALE_WRAP_YES, &gw))
    return;
  double v = 2048.0 * 8192.0 * 2.0;
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, v);
  double small = 256.0 * 256.0 * 2.0;
  scale_collective_cost s = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, small);
  CHAPTER_VALUES(ch, "quiz2",
      V("bytes", "gathered array", v, "B"),
      V("shard_bytes", "one shard", v / 4.0, "B"),
      V("book_time_s", "V / W_bidi (as if it wrapped)", c.book_time_s, "s"),
      V("wrap_time_s", "precise, if it wrapped",
        scale_collective_time_s(&gw, SCALE_COLL_ALL_GATHER, v), "s"),
      V("time_s", "precise, no wraparound (the real 4-axis)", c.time_s, "s"),
      V("small_bytes", "E = F = 256: gathered array", small, "B"),
      V("small_bandwidth_s", "  bandwidth time", s.bandwidth_time_s, "s"),
      V("small_time_s", "  latency-bound time", s.time_s, "s"),
      V("small_hops", "  hops", s.hops, ""));
}

static void q2q3(chapter *ch, const scale_chip *v4p) {
  chapter_heading(ch, "Q2, Q3: collectives on a TPU v4p 4x4x4, B = 1024, D = 4096, bf16");
  scale_group gx, gxy;
  if (!group_on(ch, v4p, "4", SCALE_WRAP_AUTO, &gx) || !group_on(ch, v4p, "4x4", SCALE_WRAP_AUTO,
                                                                 &gxy))
    return;
  double full = 1024.0 * 4096.0 * 2.0;
  /* AllGather_X([B_X, D_Y]): the result [B, D_Y] is a quarter of the array. */
  scale_collective_cost a = scale_collective_eval(&gx, SCALE_COLL_ALL_GATHER, full / 4.0);
  scale_collective_cost b = scale_collective_eval(&gxy, SCALE_COLL_ALL_GATHER, full);
  scale_collective_cost r = scale_collective_eval(&gx, SCALE_COLL_ALL_REDUCE, full / 16.0);
  scale_collective_cost q3 = scale_collective_eval(&gx, SCALE_COLL_ALL_GATHER, 128.0 * 2.0);
  CHAPTER_VALUES(ch, NULL,
      V("q2.x_book_s", "AllGather_X, book form", a.book_time_s, "s"),
      V("q2.x_s", "AllGather_X, precise", a.time_s, "s"),
      V("q2.xy_book_s", "AllGather_XY, book form", b.book_time_s, "s"),
      V("q2.xy_s", "AllGather_XY, precise", b.time_s, "s"),
      V("q2.xy_latency_s", "AllGather_XY latency floor", b.latency_time_s, "s"),
      V("q2.z_book_s", "AllReduce_Z of [B_X, D_Y], book form", r.book_time_s, "s"),
      V("q2.z_s", "AllReduce_Z, precise", r.time_s, "s"),
      V("q2.z_full_book_s", "AllReduce of the whole [B, D] (the book's 4BD/W)",
        scale_collective_book_time_s(&gx, SCALE_COLL_ALL_REDUCE, full), "s"),
      {"q3.bytes", "Q3: gathered [B] with B = 128", 256.0, "B", SCALE_FMT_PLAIN},
      V("q3.hops", "hops", q3.hops, ""),
      V("q3.time_s", "time (latency-bound)", q3.time_s, "s"));
  chapter_row(ch, "latency-bound (1 = yes)", q3.latency_bound ? 1.0 : 0.0, "", SCALE_FMT_PLAIN);
}

static void q4(chapter *ch, const scale_chip *v5p) {
  chapter_heading(ch, "Q4: AllGather W then multiply, or multiply then AllReduce? (v5p)");
  scale_group g;
  if (!group_on(ch, v5p, "4", SCALE_WRAP_AUTO, &g)) return;
  double c = scale_chip_flops_per_s(v5p, SCALE_DTYPE_BF16);
  double w = scale_roofline_channel_bytes_per_s(v5p, SCALE_CHANNEL_ICI_BIDI);
  CHAPTER_VALUES(ch, "q4", V("ici_intensity", "C / W_bidi", c / w, "FLOP/byte"),
                 V("min_d", "strategy 2 wins above D",
                   scale_sharding_reduce_beats_gather_d(c, w, SCALE_DTYPE_BF16), ""));
  static const double ds[2] = {2048.0, 8192.0};
  for (int i = 0; i < 2; i++) {
    scale_sharding_strategy s =
        scale_sharding_compare_strategies(&g, c, 512.0, ds[i], 4.0 * ds[i], SCALE_DTYPE_BF16, true);
    chapter_valuef(ch, "strategy 1 (gather W)", s.gather_t_s, "s", SCALE_FMT_TIME,
                   "q4.d%.0f.gather_s", ds[i]);
    chapter_valuef(ch, "strategy 2 (AllReduce C)", s.reduce_t_s, "s", SCALE_FMT_TIME,
                   "q4.d%.0f.reduce_s", ds[i]);
  }
}

/* [listing:q10] */
/** Q10 on one ring of d devices holding an n x n matrix: scalars over the busiest link.
 * One-way ring: an AllGather passes every strip of n^2/d scalars d - 1 times; an AllToAll
 * sends each device's d - 1 blocks of n^2/d^2 scalars 1, 2, ..., d - 1 hops, which loads
 * one link with n^2 (d - 1) / (2d). The bidirectional cases halve and quarter these. */
static double q10_link_scalars(scale_collective op, double n, double d, bool bidi) {
  return scale_collective_ring_link_bytes(op, d, n * n, bidi);
}
/* [/listing:q10] */

static void q9q10(chapter *ch) {
  chapter_heading(ch, "Q9, Q10: gather vs scatter, and why an AllToAll is a quarter");
  /* Q9: A[N, M_X] . B[M, K]: gathering A moves N M, reduce-scattering C moves N K. */
  double n = 4096.0, m = 8192.0, k = 2048.0;
  double nn = 1024.0, d = 8.0;
  double ag1 = q10_link_scalars(SCALE_COLL_ALL_GATHER, nn, d, false);
  double a2a1 = q10_link_scalars(SCALE_COLL_ALL_TO_ALL, nn, d, false);
  double ag2 = q10_link_scalars(SCALE_COLL_ALL_GATHER, nn, d, true);
  double a2a2 = q10_link_scalars(SCALE_COLL_ALL_TO_ALL, nn, d, true);
  CHAPTER_VALUES(ch, NULL,
      V("q9.m", "M", m, ""),
      V("q9.k", "K", k, ""),
      V("q9.ratio", "gather A / reduce-scatter C = M/K", (n * m) / (n * k), ""),
      V("q10.n", "n", nn, ""),
      V("q10.d", "ring of d", d, ""),
      {"q10.ag_oneway", "AllGather, one-way ring", ag1, "", SCALE_FMT_SCI},
      {"q10.a2a_oneway", "AllToAll, one-way ring", a2a1, "", SCALE_FMT_SCI},
      V("q10.ratio_oneway", "ratio, one-way", ag1 / a2a1, ""),
      {"q10.ag_bidi", "AllGather, bidirectional", ag2, "", SCALE_FMT_SCI},
      {"q10.a2a_bidi", "AllToAll, bidirectional", a2a2, "", SCALE_FMT_SCI},
      V("q10.ratio_bidi", "ratio, bidirectional", ag2 / a2a2, ""));
}

/* ---- figures ------------------------------------------------------------------------------- */

/** Writes 'file': time against bytes on log-log axes, the series s[0..n), one marker or none. */
static void time_figure(chapter *ch, const char *file, const char *title, const char *desc,
                        const char *x_label, const scale_plot_series *s, size_t n,
                        const scale_plot_marker *m) {
  scale_plot p = {.title = title, .desc = desc, .x_label = x_label, .y_label = "time [s]",
                  .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s, .n_series = n, .markers = m, .n_markers = m ? 1 : 0};
  chapter_figure(ch, file, &p);
}

static void figure_knee(chapter *ch, const scale_chip *chip, double axis) {
  static double x[N_CURVE], y[3][N_CURVE];
  scale_group g[2];
  if (!ring_on(ch, chip, axis, &g[0]) || !group_on(ch, chip, "4", SCALE_WRAP_NO, &g[1])) return;
  chapter_logspace(x, N_CURVE, 1e2, 1e10);
  for (int i = 0; i < N_CURVE; i++) {
    y[0][i] = scale_collective_time_s(&g[0], SCALE_COLL_ALL_GATHER, x[i]);
    y[1][i] = scale_collective_time_s(&g[1], SCALE_COLL_ALL_GATHER, x[i]);
    y[2][i] = scale_collective_book_time_s(&g[0], SCALE_COLL_ALL_GATHER, x[i]);
  }
  char l0[96], l2[96], title[160];
  snprintf(l0, sizeof l0, "ring of %.0f%s", axis, g[0].axis[0].wraps ? " (wraps)" : "");
  snprintf(l2, sizeof l2, "book form, ring of %.0f", axis);
  snprintf(title, sizeof title, "AllGather time vs array size on %s", chip->display_name);
  scale_plot_series s[3] = {{.label = l0, .x = x, .y = y[0], .n = N_CURVE},
                            {.label = "line of 4 (no wraparound)", .x = x, .y = y[1],
                             .n = N_CURVE, .dashed = true},
                            {.label = l2, .x = x, .y = y[2], .n = N_CURVE, .dashed = true}};
  scale_plot_marker m = {.vertical = true, .label = "knee",
                         .at = scale_collective_knee_bytes(&g[0], SCALE_COLL_ALL_GATHER)};
  time_figure(ch, "allgather-knee.svg", title,
              "Below the knee the time is flat: hops times the per-hop latency. Above it the "
              "time grows linearly with the bytes and does not depend on the ring size.",
              "gathered array V [bytes]", s, 3, &m);
}

static void figure_collectives(chapter *ch, const scale_chip *chip, double axis) {
  static double x[N_CURVE], y[SCALE_COLL_COUNT][N_CURVE];
  scale_group g;
  if (!ring_on(ch, chip, axis, &g)) return;
  scale_plot_series s[SCALE_COLL_COUNT];
  chapter_logspace(x, N_CURVE, 1e2, 1e10);
  for (int op = 0; op < SCALE_COLL_COUNT; op++) {
    for (int i = 0; i < N_CURVE; i++)
      y[op][i] = scale_collective_time_s(&g, (scale_collective)op, x[i]);
    s[op] = (scale_plot_series){.label = scale_collective_name((scale_collective)op), .x = x,
                                .y = y[op], .n = N_CURVE,
                                .dashed = op == SCALE_COLL_REDUCE_SCATTER};
  }
  char title[160];
  snprintf(title, sizeof title, "The four collectives on a ring of %.0f %s", axis,
           chip->display_name);
  time_figure(ch, "collectives.svg", title,
              "Time of AllGather, ReduceScatter, AllReduce and AllToAll against the array size: "
              "AllReduce costs twice an AllGather, AllToAll a quarter.",
              "array V [bytes]", s, SCALE_COLL_COUNT, NULL);
}

/* ---- concept diagrams (diagram.h) --------------------------------------------------------- */

static void diagrams(chapter *ch) {
  static char svg[1 << 17];
  static const char *const arrays[][3] = {{"{X:2, Y:2}", "A[I_X, J_Y]", "array-ix-jy.svg"},
                                          {"{X:2, Y:2}", "A[I_X, J]", "array-ix-j.svg"},
                                          {"{X:2, Y:4}", "A[I_XY, J]", "array-ixy-j.svg"},
                                          {"{X:2, Y:4}", "A[I_X, J_Y]", "array-2x4.svg"}};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    chapter_diagram_sharded(ch, arrays[i][2], arrays[i][0], arrays[i][1]);
  for (int i = 0; i < 4; i++) { /* the four cases on a 2 x 2 mesh */
    scale_mesh mesh;
    scale_sharding a, b;
    scale_diag d = {0};
    char file[24];
    snprintf(file, sizeof file, "case%d.svg", i + 1);
    scale_status st = scale_sharding_parse_matmul("{X:2, Y:2}", CASES[i][0], CASES[i][1], &mesh,
                                                  &a, &b, &d);
    if (!st) st = scale_diagram_sharded_matmul(&mesh, &a, &b, svg, sizeof svg, NULL, &d);
    chapter_diagram(ch, file, st, svg, &d);
  }
  /* AllGather, ReduceScatter and AllReduce (the first three collectives) step by step */
  static const char *const rings[] = {"ring-allgather.svg", "ring-reducescatter.svg",
                                      "ring-allreduce.svg"};
  for (int op = 0; op < 3; op++) {
    scale_diag d = {0};
    scale_status st = scale_diagram_ring_steps((scale_collective)op, 4, 4 * SCALE_MEBI, svg,
                                               sizeof svg, NULL, &d);
    chapter_diagram(ch, rings[op], st, svg, &d);
  }
}

int main(int argc, char **argv) {
  chapter_option opts[] = {
      {"chip", "hardware of the collective examples and figures", "tpu-v5e"},
      {"axis", "ring size of the collective examples", "16"},
      {"mesh", "mesh of your own matmul (walk-through)", "{X:4, Y:4}"},
      {"a", "sharding of its left operand [I, J]", "A[I_X, J_Y]"},
      {"b", "sharding of its right operand [J, K]", "B[J_Y, K]"},
      {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "03-sharding",
                         "Sharded matrices and how to multiply them.", opts);
  if (rc >= 0) return rc;
  static chapter_chips tpus;
  scale_chip chip, v4p, v5e, v5p;
  if (!chapter_load_chips(&ch, CHAPTER_CHIPS_TPU, &tpus) ||
      !chapter_load_chip(&ch, opts[0].value, &chip) ||
      !chapter_load_chip(&ch, "tpu-v4p", &v4p) || !chapter_load_chip(&ch, "tpu-v5e", &v5e) ||
      !chapter_load_chip(&ch, "tpu-v5p", &v5p))
    return chapter_end(&ch);
  double axis = chapter_option_number(&ch, &opts[1], SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER);
  if (ch.n_errors) return chapter_end(&ch);

  chapter_say(&ch, "Chapter 3: Sharded Matrices and How to Multiply Them. Example chip: %s.",
              chip.display_name);
  section_notation(&ch);
  section_cases(&ch, &v5e, opts[2].value, opts[3].value, opts[4].value);
  section_collectives(&ch, &chip, axis);
  section_every_tpu(&ch, &tpus);
  quiz2(&ch, &v5e);
  q2q3(&ch, &v4p);
  q4(&ch, &v5p);
  q9q10(&ch);
  figure_knee(&ch, &chip, axis);
  figure_collectives(&ch, &chip, axis);
  diagrams(&ch);
  return chapter_end(&ch);
}
