/* test_collectives.c — collectives.h: unit tests against hand derivations, and evidence tests
 * reproducing ch. 2 Q5-Q6 (point to point, gathering a slice) and ch. 3 pop quiz 2, Q2, Q3,
 * Q10 and the summary table ("How to Scale Your Model": tpus.md, sharding.md). Where the book's
 * printed figure differs from exact arithmetic, the test checks the exact value and names the
 * book's figure in a comment.
 */
#include <math.h>
#include <string.h>

#include "scale/collectives.h"
#include "scale_check.h"

#define EXACT 1e-12
#define HAND 1e-4
#define BOOK3 5e-3
#define BOOK2 5e-2

/* A group on 'chip' of the given shape (scale_group_from_shape), or a failed test. */
static scale_group group_of(const scale_chip *chip, const char *shape, scale_wrap wrap) {
  scale_diag diag = {0};
  scale_group g;
  scale_status st = scale_group_from_shape(chip, shape, wrap, &g, &diag);
  ck_assert_msg(st == SCALE_OK, "%s", diag.message);
  return g;
}

/* A hand-made group: n_axes axes of 'size' with one-way bandwidth 1 B/s and no latency. */
static scale_group unit_group(int n_axes, double size, bool wraps, scale_topology topo) {
  scale_group g;
  memset(&g, 0, sizeof g);
  g.n_axes = n_axes;
  for (int i = 0; i < n_axes; i++) {
    g.axis[i].size = size;
    g.axis[i].wraps = wraps;
    g.axis[i].topology = topo;
    g.axis[i].link_bytes_per_s = 1.0;
    g.axis[i].hop_latency_s = 0.0;
  }
  return g;
}

/* ==== unit tests ============================================================================ */

START_TEST(names) {
  for (int i = 0; i < SCALE_COLL_COUNT; i++) {
    scale_collective op = SCALE_COLL_COUNT;
    ck_assert_int_eq(scale_collective_parse(scale_collective_name((scale_collective)i), &op),
                     SCALE_OK);
    ck_assert_int_eq(op, i);
  }
  scale_collective op = SCALE_COLL_ALL_GATHER;
  ck_assert_int_eq(scale_collective_parse("AllReduce", &op), SCALE_OK);
  ck_assert_int_eq(op, SCALE_COLL_ALL_REDUCE);
  ck_assert_int_eq(scale_collective_parse("all_to_all", &op), SCALE_OK);
  ck_assert_int_eq(op, SCALE_COLL_ALL_TO_ALL);
  ck_assert_int_ne(scale_collective_parse("gather", &op), SCALE_OK);
  ck_assert_int_ne(scale_collective_parse("", &op), SCALE_OK);
  ck_assert_str_eq(scale_collective_name((scale_collective)-1), "?");
}
END_TEST

START_TEST(parse_shape) {
  double s[SCALE_GROUP_AXES_MAX];
  int n = 0;
  ck_assert_int_eq(scale_group_parse_shape("4x4", s, &n, NULL), SCALE_OK);
  ck_assert_int_eq(n, 2);
  scale_check_rel(s[0] * s[1], 16.0, EXACT, "chips", "4x4");
  ck_assert_int_eq(scale_group_parse_shape("16", s, &n, NULL), SCALE_OK);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(scale_group_parse_shape("2,3,4", s, &n, NULL), SCALE_OK);
  ck_assert_int_eq(n, 3);
  scale_check_rel(s[2], 4.0, EXACT, "chips", "third axis");
  scale_diag diag;
  ck_assert_int_eq(scale_group_parse_shape("", s, &n, &diag), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_group_parse_shape("4x", s, &n, &diag), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_group_parse_shape("4x4x4x4", s, &n, &diag), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_group_parse_shape("0x4", s, &n, &diag), SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_group_parse_shape("-4", s, &n, &diag), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_group_parse_shape("4.5", s, &n, &diag), SCALE_ERR_PARSE);
}
END_TEST

START_TEST(ring_all_gather_unit) {
  /* Hand derivations, W = 1 B/s one way, no latency.
   * Wrapped ring of 16, V = 16: (15/16) * 16 / (2 * 1) = 7.5 s, floor(16/2) = 8 hops. */
  scale_group g = unit_group(1, 16, true, SCALE_TOPO_RING);
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 16.0);
  scale_check_rel(c.time_s, 7.5, EXACT, "s", "(N-1)/N V / 2W");
  scale_check_rel(c.hops, 8.0, EXACT, "hops", "floor(N/2)");
  scale_check_rel(c.book_time_s, 8.0, EXACT, "s", "book V / W_bidi");
  /* Odd ring of 5: floor(5/2) = 2 hops. */
  g = unit_group(1, 5, true, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 5.0).hops, 2.0, EXACT, "hops",
                  "floor(5/2)");
  /* Line of 4 (no wraparound), V = 4: 3/4 * 4 / 1 = 3 s, 3 hops; AllReduce twice: 6 s, 6. */
  g = unit_group(1, 4, false, SCALE_TOPO_RING);
  c = scale_collective_eval(&g, SCALE_COLL_REDUCE_SCATTER, 4.0);
  scale_check_rel(c.time_s, 3.0, EXACT, "s", "(N-1)/N V / W");
  scale_check_rel(c.hops, 3.0, EXACT, "hops", "N - 1");
  c = scale_collective_eval(&g, SCALE_COLL_ALL_REDUCE, 4.0);
  scale_check_rel(c.time_s, 6.0, EXACT, "s", "2 x ReduceScatter");
  scale_check_rel(c.hops, 6.0, EXACT, "hops", "2 (N - 1)");
  /* Two wrapped axes 4x4, V = 32: 15/16 * 32 / (2 + 2) = 7.5 s; book 32 / (2 * 2) = 8 s. */
  g = unit_group(2, 4, true, SCALE_TOPO_RING);
  c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 32.0);
  scale_check_rel(c.time_s, 7.5, EXACT, "s", "receive bound over 4 links");
  scale_check_rel(c.book_time_s, 8.0, EXACT, "s", "V / (W_bidi n_axes)");
  scale_check_rel(c.hops, 4.0, EXACT, "hops", "2 + 2");
}
END_TEST

START_TEST(all_to_all_unit) {
  /* Wrapped even ring of 4, V = 8: busiest link carries n^2/8 chunks of V/n^2 = V/8 = 1 B. */
  scale_group g = unit_group(1, 4, true, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 8.0), 1.0, EXACT, "s",
                  "V/8 on an even bidirectional ring");
  /* Odd wrapped ring of 5, V = 25: offsets 1, 2 each way: (1 + 2) chunks of 1 B = 3 s. */
  g = unit_group(1, 5, true, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 25.0), 3.0, EXACT, "s",
                  "(n^2-1)/8 chunks");
  /* Line of 4, V = 16 (chunks of 1 B): the middle link carries 2 x 2 = 4 chunks: 4 s. */
  g = unit_group(1, 4, false, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 16.0), 4.0, EXACT, "s",
                  "floor(n^2/4) chunks");
  /* 4x4 wrapped, V = 32: each axis's rings hold 32 * 4 / 16 = 8 B, V_i / 8 = 1 s per axis. */
  g = unit_group(2, 4, true, SCALE_TOPO_RING);
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_TO_ALL, 32.0);
  scale_check_rel(c.time_s, 2.0, EXACT, "s", "axis by axis");
  scale_check_rel(c.book_time_s, 2.0, EXACT, "s", "book: AllGather / 4 = 8 / 4");
}
END_TEST

START_TEST(switch_unit) {
  /* A switch of 8 with egress 1 B/s, V = 8: AllGather receives 7/8 of V through one port: 7 s;
   * AllToAll sends 7 chunks of V/64: 0.875 s; one hop. */
  scale_group g = unit_group(1, 8, false, SCALE_TOPO_SWITCH);
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 8.0);
  scale_check_rel(c.time_s, 7.0, EXACT, "s", "(N-1)/N V / W");
  scale_check_rel(c.hops, 1.0, EXACT, "hops", "one hop through the switch");
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 8.0), 0.875, EXACT, "s",
                  "(N-1) V / N^2 / W");
  /* From a GPU record: an H100 NVLink domain of 8. */
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  g = group_of(&h100, "8", SCALE_WRAP_AUTO);
  ck_assert_int_eq(g.axis[0].topology, SCALE_TOPO_SWITCH);
  scale_check_rel(g.axis[0].link_bytes_per_s, h100.nvlink_bytes_per_s, EXACT, "B/s", "NVLink");
  double sixteen = 16;
  ck_assert_int_eq(scale_group_from_chip(&h100, &sixteen, 1, SCALE_WRAP_AUTO, &g, NULL),
                   SCALE_ERR_RANGE);
}
END_TEST

START_TEST(latency_regime) {
  /* Wrapped ring of 8 at 1 B/s with 1 s per hop: V = 8 B takes 7/8 * 8 / 2 = 3.5 s of
   * bandwidth but 4 hops = 4 s: latency-bound. Book form: max(1 * 8/2, 8/2) = 4 s. */
  scale_group g = unit_group(1, 8, true, SCALE_TOPO_RING);
  g.axis[0].hop_latency_s = 1.0;
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 8.0);
  ck_assert(c.latency_bound);
  scale_check_rel(c.time_s, 4.0, EXACT, "s", "4 hops x 1 s");
  scale_check_rel(c.bandwidth_time_s, 3.5, EXACT, "s", "7/8 x 8 / 2");
  scale_check_rel(c.book_time_s, 4.0, EXACT, "s", "book max(T_hop N/2, V/W_bidi)");
  c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 80.0);
  ck_assert(!c.latency_bound);
  scale_check_rel(c.time_s, 35.0, EXACT, "s", "bandwidth-bound");
}
END_TEST

START_TEST(domain) {
  scale_group g = unit_group(1, 4, true, SCALE_TOPO_RING);
  scale_check_nan(scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, -1.0));
  scale_check_nan(scale_collective_time_s(&g, (scale_collective)9, 1.0));
  scale_check_nan(scale_collective_time_s(NULL, SCALE_COLL_ALL_GATHER, 1.0));
  g.axis[0].size = 2.5;
  scale_check_nan(scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, 1.0));
  g = unit_group(1, 4, true, SCALE_TOPO_RING);
  g.axis[0].link_bytes_per_s = 0.0;
  scale_check_nan(scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, 1.0));
  g = unit_group(0, 4, true, SCALE_TOPO_RING);
  scale_check_nan(scale_group_size(&g));
  /* One device: nothing to move. */
  g = unit_group(1, 1, false, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_REDUCE, 1e9), 0.0, EXACT, "s",
                  "a group of one");
}
END_TEST

START_TEST(group_from_chip_wraps) {
  /* ch. 2: v5e/v6e axes wrap only at the full 16 ("a TPU v5e 8x16 will have a wraparound on
   * the longer axis"); v4/v5p wrap on multiples of a 4x4x4 cube; "a 2x2x4 won't have any
   * wraparounds". */
  scale_chip v5e = scale_check_chip("tpu-v5e"), v4p = scale_check_chip("tpu-v4p");
  scale_chip v5p = scale_check_chip("tpu-v5p");
  scale_group g = group_of(&v5e, "8x16", SCALE_WRAP_AUTO);
  ck_assert(!g.axis[0].wraps);
  ck_assert(g.axis[1].wraps);
  g = group_of(&v5e, "4x4", SCALE_WRAP_AUTO);
  ck_assert(!g.axis[0].wraps && !g.axis[1].wraps);
  g = group_of(&v4p, "4x4x4", SCALE_WRAP_AUTO);
  ck_assert(g.axis[0].wraps && g.axis[1].wraps && g.axis[2].wraps);
  g = group_of(&v5p, "4x4x8", SCALE_WRAP_AUTO);
  ck_assert(g.axis[0].wraps && g.axis[1].wraps && g.axis[2].wraps);
  g = group_of(&v4p, "2x2x4", SCALE_WRAP_AUTO);
  ck_assert_msg(!g.axis[2].wraps, "ch. 2: a 2x2x4 has no wraparound (not a full cube)");
  g = group_of(&v4p, "2x2x4", SCALE_WRAP_YES);
  ck_assert(g.axis[0].wraps);
  g = group_of(&v5e, "16x16", SCALE_WRAP_NO);
  ck_assert(!g.axis[0].wraps);
  scale_check_rel(g.axis[0].link_bytes_per_s, 4.5e10, EXACT, "B/s", "ch. 2 v5e one-way link");
  /* Too large or ill-shaped groups. */
  double s[3] = {32, 8, 1};
  scale_diag diag;
  ck_assert_int_eq(scale_group_from_chip(&v5e, s, 2, SCALE_WRAP_AUTO, &g, &diag),
                   SCALE_ERR_RANGE);
  double t[3] = {4, 4, 4};
  ck_assert_int_eq(scale_group_from_chip(&v5e, t, 3, SCALE_WRAP_AUTO, &g, &diag),
                   SCALE_ERR_INVALID);
  double u[3] = {28, 28, 1};
  ck_assert_int_eq(scale_group_from_chip(&v5p, u, 2, SCALE_WRAP_AUTO, &g, &diag),
                   SCALE_ERR_RANGE);
  double v[3] = {16, 20, 28};
  ck_assert_int_eq(scale_group_from_chip(&v5p, v, 3, SCALE_WRAP_AUTO, &g, &diag), SCALE_OK);
  double w[3] = {3.5, 1, 1};
  ck_assert_int_eq(scale_group_from_chip(&v5p, w, 1, SCALE_WRAP_AUTO, &g, &diag),
                   SCALE_ERR_INVALID);
}
END_TEST

START_TEST(group_from_shape) {
  /* The shape's sizes as scale_group_from_chip() builds them: a v5e "4x4" is two axes of 4
   * one-way 4.5e10 B/s links (ch. 2), neither wrapping below the full 16. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_group g = group_of(&v5e, "4x4", SCALE_WRAP_AUTO);
  ck_assert_int_eq(g.n_axes, 2);
  scale_check_rel(g.axis[1].size, 4.0, EXACT, "", "the shape's second size");
  scale_check_rel(g.axis[0].link_bytes_per_s, 4.5e10, EXACT, "B/s", "ch. 2 v5e one-way link");
  ck_assert(!g.axis[0].wraps && !g.axis[1].wraps);
  scale_check_rel(scale_group_size(&g), 16.0, EXACT, "", "4 x 4 chips");
  /* a parse error and a group larger than the pod each name the shape and the chip */
  scale_diag d = {0};
  ck_assert_int_eq(scale_group_from_shape(&v5e, "4x", SCALE_WRAP_AUTO, &g, &d), SCALE_ERR_PARSE);
  ck_assert_ptr_nonnull(strstr(d.message, "group 4x on tpu-v5e: "));
  ck_assert_int_eq(scale_group_from_shape(&v5e, "32x8", SCALE_WRAP_AUTO, &g, &d),
                   SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(d.message, "32x8"));
  ck_assert_int_eq(scale_group_from_shape(NULL, "4", SCALE_WRAP_AUTO, &g, &d), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(group_ring) {
  /* ch. 9's ReduceScatter: 2 x 8 x 1024 x 8192 bytes over a line of 2 at 6e10 B/s one way moves
   * (N-1)/N V = V / 2 over one link: 8.39e-4 s, plus one 1 us hop below the bandwidth time */
  scale_group g = scale_group_ring(2, false, 6e10, 1e-6);
  ck_assert_int_eq(g.n_axes, 1);
  ck_assert(!g.axis[0].wraps);
  double v = 2.0 * 8 * 1024 * 8192;
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_REDUCE_SCATTER, v), v / 2.0 / 6e10,
                  EXACT, "s", "hand: (N-1)/N V / W");
  scale_check_rel(scale_group_size(&g), 2.0, EXACT, "", "a line of 2");
}
END_TEST

/* ==== evidence: chapter 2 =================================================================== */

START_TEST(ch2_q5_point_to_point) {
  /* ch. 2 Q5: bf16[8, 128, 8192] from TPU{0,0} to TPU{3,3} on a v5e 4x4 (no wraparound):
   * 6 hops; at 1 us per hop the first byte arrives after 6 us; 2 * 8 * 128 * 8192 = 16777216
   * bytes over two 4.5e10 links = 186.4 us, total 192.4 us. The book rounds the size to
   * 1.7e7 and prints 188 + 6 = 194 us. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_group g = group_of(&v5e, "4x4", SCALE_WRAP_AUTO);
  double from[2] = {0, 0}, to[2] = {3, 3};
  scale_check_rel(scale_collective_p2p_hops(&g, from, to), 6.0, EXACT, "hops", "ch. 2 Q5: six");
  scale_check_rel(scale_collective_p2p_first_byte_s(&g, from, to), 6e-6, EXACT, "s",
                  "ch. 2 Q5: 6 us");
  double t = scale_collective_p2p_time_s(&g, from, to, 16777216.0);
  scale_check_rel(t, 6e-6 + 16777216.0 / 9e10, EXACT, "s", "6 us + V / (2 x 4.5e10)");
  scale_check_rel(t, 194e-6, BOOK2, "s", "ch. 2 Q5 prints 194 us");
  /* With wraparound (a full 16x16 pod), (0,0) -> (15,15) is 2 hops. */
  g = group_of(&v5e, "16x16", SCALE_WRAP_AUTO);
  double far[2] = {15, 15};
  scale_check_rel(scale_collective_p2p_hops(&g, from, far), 2.0, EXACT, "hops", "wraparound");
  /* The antipode of a wrapped ring can use both directions. */
  double mid[2] = {8, 0};
  scale_check_rel(scale_collective_p2p_time_s(&g, from, mid, 9e10), 8e-6 + 1.0, EXACT, "s",
                  "8 hops + 9e10 B over 2 links");
  double bad[2] = {16, 0};
  scale_check_nan(scale_collective_p2p_hops(&g, from, bad));
}
END_TEST

START_TEST(ch2_q6_gather_to_slice) {
  /* ch. 2 Q6: 16e9 bytes gathered on a v5e 4x4 (no wraparound): "15e9 / (4.5e10 * 2) =
   * 167ms" (web edition; the February 2025 revision prints 150 ms with 5e10). Our precise
   * AllGather is the same receive bound: 15/16 * 16e9 / (2 * 4.5e10) = 166.7 ms. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_group g = group_of(&v5e, "4x4", SCALE_WRAP_AUTO);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, 16e9), 167e-3, BOOK3, "s",
                  "ch. 2 Q6: 167 ms");
}
END_TEST

/* ==== evidence: chapter 3 =================================================================== */

START_TEST(ch3_takeaway_independent_of_n) {
  /* ch. 3 takeaway: bandwidth-bound AllGather time does not depend on the axis size (book
   * form V / W_bidi); the precise form differs by (N-1)/N. */
  scale_group g4 = unit_group(1, 4, true, SCALE_TOPO_RING);
  scale_group g16 = unit_group(1, 16, true, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_book_time_s(&g4, SCALE_COLL_ALL_GATHER, 1e6),
                  scale_collective_book_time_s(&g16, SCALE_COLL_ALL_GATHER, 1e6), EXACT, "s",
                  "V / W_bidi for any N");
  scale_check_rel(scale_collective_time_s(&g4, SCALE_COLL_ALL_GATHER, 1e6) /
                      scale_collective_time_s(&g16, SCALE_COLL_ALL_GATHER, 1e6),
                  (3.0 / 4.0) / (15.0 / 16.0), EXACT, "", "(N-1)/N factors");
  /* Summary table: AllReduce = 2 x AllGather, AllToAll = AllGather / 4 (book forms). */
  double ag = scale_collective_book_time_s(&g16, SCALE_COLL_ALL_GATHER, 1e6);
  scale_check_rel(scale_collective_book_time_s(&g16, SCALE_COLL_ALL_REDUCE, 1e6), 2 * ag, EXACT,
                  "s", "ch. 3 table: 2 x AllGather");
  scale_check_rel(scale_collective_book_time_s(&g16, SCALE_COLL_ALL_TO_ALL, 1e6), ag / 4, EXACT,
                  "s", "ch. 3 table: AllGather / 4");
  /* Precisely, on an even ring AllToAll / AllGather = (V/8) / ((N-1) V / 2N) = N / (4 (N-1)). */
  scale_check_rel(scale_collective_time_s(&g16, SCALE_COLL_ALL_TO_ALL, 1e6) /
                      scale_collective_time_s(&g16, SCALE_COLL_ALL_GATHER, 1e6),
                  16.0 / 60.0, EXACT, "", "N / (4 (N-1))");
}
END_TEST

START_TEST(ch3_latency_threshold) {
  /* ch. 3 latency note: with 4.5e10 one-way and 1 us per hop, a hop under 4.5e10 * 1e-6 =
   * 45 kB is latency-bound. On a v5e 16 ring each of 8 hops carries V / 16 each way: V = 16 x
   * 40 kB is latency-bound, V = 16 x 50 kB is not. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_group g = group_of(&v5e, "16", SCALE_WRAP_AUTO);
  ck_assert(g.axis[0].wraps);
  ck_assert(scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 16 * 40e3).latency_bound);
  ck_assert(!scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 16 * 50e3).latency_bound);
}
END_TEST

START_TEST(ch3_pop_quiz_2) {
  /* ch. 3 pop quiz 2: AllGather_Y([E_Y, F]) on a v5e {X: 8, Y: 4}, bf16.
   * (a) E = 2048, F = 8192: V = 33554432 B. Book form V / 9e10 = 373 us (printed 377 us from
   * 34e6); no wraparound on 4, so "3 * 8.4e6 / 4.5e10 = 560us": precise 3/4 V / 4.5e10
   * = 559.2 us. (b) E = F = 256: V = 131072 B, 32 kB shards: latency-bound, 3 hops = 3 us. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_group g = group_of(&v5e, "4", SCALE_WRAP_AUTO);
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 33554432.0);
  scale_check_rel(c.time_s, 560e-6, BOOK3, "s", "pop quiz 2 (a): 560 us");
  scale_check_rel(c.book_time_s, 377e-6, 1.5e-2, "s", "pop quiz 2 (a): 377 us (exact 372.8)");
  ck_assert(!c.latency_bound);
  c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 131072.0);
  ck_assert(c.latency_bound);
  scale_check_rel(c.time_s, 3e-6, EXACT, "s", "pop quiz 2 (b): 3 hops x 1 us");
}
END_TEST

START_TEST(ch3_q2_allgather_latency) {
  /* ch. 3 Q2 on a TPU v4p 4x4x4 (wraparound everywhere), B = 1024, D = 4096, bf16.
   * (1) AllGather_X([B_X, D_Y]): V = 2BD/4 = 2097152 B; book 2097152 / 9e10 = 23.3 us
   *     ("23 us"); precise 3/4 of it = 17.5 us.
   * (2) AllGather_XY: V = 2BD = 8388608 B over two axes: book 8388608 / 1.8e11 = 46.6 us
   *     ("46us"); precise 15/16 = 43.7 us; latency 2 + 2 = 4 hops ("4us").
   * (3) AllReduce_Z([B_X, D_Y]{U_Z}): the book prints "4 * 1024 * 4096 / 9e10 = 190us", which
   *     is the AllReduce of the *unsharded* array (2 x 8388608 / 9e10 = 186.4 us). The array
   *     is sharded 16 ways, V = 524288 B: book form 2 V / 9e10 = 11.65 us. */
  scale_chip v4p = scale_check_chip("tpu-v4p");
  scale_group x = group_of(&v4p, "4", SCALE_WRAP_YES);
  scale_collective_cost c = scale_collective_eval(&x, SCALE_COLL_ALL_GATHER, 2097152.0);
  scale_check_rel(c.book_time_s, 23e-6, 1.5e-2, "s", "ch. 3 Q2 (1): 23 us");
  scale_check_rel(c.time_s, 0.75 * 2097152.0 / 9e10, EXACT, "s", "3/4 of the book form");
  scale_group xy = group_of(&v4p, "4x4", SCALE_WRAP_YES);
  c = scale_collective_eval(&xy, SCALE_COLL_ALL_GATHER, 8388608.0);
  scale_check_rel(c.book_time_s, 46e-6, 1.5e-2, "s", "ch. 3 Q2 (2): 46 us");
  scale_check_rel(c.time_s, 15.0 / 16.0 * 8388608.0 / 1.8e11, EXACT, "s", "15/16 x book");
  scale_check_rel(c.latency_time_s, 4e-6, EXACT, "s", "ch. 3 Q2 (2): latency bound 4 us");
  scale_group z = group_of(&v4p, "4", SCALE_WRAP_YES);
  scale_check_rel(scale_collective_book_time_s(&z, SCALE_COLL_ALL_REDUCE, 524288.0), 11.65e-6,
                  HAND, "s", "ch. 3 Q2 (3) corrected: 11.65 us");
  scale_check_rel(scale_collective_book_time_s(&z, SCALE_COLL_ALL_REDUCE, 8388608.0), 190e-6,
                  BOOK2, "s", "ch. 3 Q2 (3) as printed: the unsharded array, 190 us");
}
END_TEST

START_TEST(ch3_q3_latency_bound) {
  /* ch. 3 Q3: AllGather_X([B_X]) with B = 128 bf16 (256 bytes) on a v4p 4x4x4: wraparound,
   * 2 hops, "roughly 2us". */
  scale_chip v4p = scale_check_chip("tpu-v4p");
  scale_group g = group_of(&v4p, "4x4x4", SCALE_WRAP_AUTO);
  g.n_axes = 1; /* the X axis of the cube */
  scale_collective_cost c = scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 256.0);
  ck_assert(c.latency_bound);
  scale_check_rel(c.hops, 2.0, EXACT, "hops", "ch. 3 Q3: 2 hops");
  scale_check_rel(c.time_s, 2e-6, EXACT, "s", "ch. 3 Q3: 2 us");
}
END_TEST

START_TEST(ch3_q10_all_to_all) {
  /* ch. 3 Q10 on an N x N matrix over D devices, counting scalars (1 byte each here),
   * N = 64 (4096 scalars), D = 8:
   * (1) one-way AllGather: N^2 (1 - 1/D) = 3584 per link;
   * (2) one-way AllToAll: N^2/2 (1 - 1/D) = 1792: (3) half;
   * (4) bidirectional AllGather: half of (1), 1792;
   * (5) bidirectional AllToAll: N^2/8 = 512 for even D (a factor 4 below (2) as D grows);
   * (6) bidirectional ratio AllGather / AllToAll = 4 (1 - 1/D) = 3.5 -> 4. */
  double v = 4096.0, d = 8.0;
  double ag1 = scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, d, v, false);
  double a2a1 = scale_collective_ring_link_bytes(SCALE_COLL_ALL_TO_ALL, d, v, false);
  double ag2 = scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, d, v, true);
  double a2a2 = scale_collective_ring_link_bytes(SCALE_COLL_ALL_TO_ALL, d, v, true);
  scale_check_rel(ag1, 3584.0, EXACT, "scalars", "ch. 3 Q10 (1) N^2 (1 - 1/D)");
  scale_check_rel(a2a1, 1792.0, EXACT, "scalars", "ch. 3 Q10 (2) N^2/2 (1 - 1/D)");
  scale_check_rel(ag1 / a2a1, 2.0, EXACT, "", "ch. 3 Q10 (3) factor 2");
  scale_check_rel(ag2, 1792.0, EXACT, "scalars", "ch. 3 Q10 (4) halves");
  scale_check_rel(a2a2, 512.0, EXACT, "scalars", "ch. 3 Q10 (5) N^2/8");
  scale_check_rel(ag2 / a2a2, 3.5, EXACT, "", "ch. 3 Q10 (6) 4 (1 - 1/D)");
  /* Large D: the ratio tends to the book's 4. */
  scale_check_rel(scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, 1024, v, true) /
                      scale_collective_ring_link_bytes(SCALE_COLL_ALL_TO_ALL, 1024, v, true),
                  4.0, 1e-3, "", "ch. 3 Q10 (6): 4");
  scale_check_nan(scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, 0, v, true));
  /* The ring helper and the group cost agree on a wrapped ring. */
  scale_group g = unit_group(1, 8, true, SCALE_TOPO_RING);
  scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, v), a2a2, EXACT, "s",
                  "eval = link bytes / W");
}
END_TEST

START_TEST(knee_bytes) {
  /* Wrapped ring of 8 at 1 B/s with 1 s per hop (as latency_regime): 4 hops = 4 s against
   * 7/8 V / 2 s of bandwidth meet at V = 64/7 B. */
  scale_group g = unit_group(1, 8, true, SCALE_TOPO_RING);
  g.axis[0].hop_latency_s = 1.0;
  double knee = scale_collective_knee_bytes(&g, SCALE_COLL_ALL_GATHER);
  scale_check_rel(knee, 64.0 / 7.0, 1e-9, "B", "4 s = 7/8 V / 2 at 1 B/s");
  ck_assert(scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 0.99 * knee).latency_bound);
  ck_assert(!scale_collective_eval(&g, SCALE_COLL_ALL_GATHER, 1.01 * knee).latency_bound);
  /* An AllReduce moves twice the bytes over twice the hops: the same knee. */
  scale_check_rel(scale_collective_knee_bytes(&g, SCALE_COLL_ALL_REDUCE), knee, 1e-9, "B",
                  "2 x latency against 2 x bandwidth");
  scale_check_nan(scale_collective_knee_bytes(NULL, SCALE_COLL_ALL_GATHER));
  scale_check_nan(scale_collective_knee_bytes(&g, (scale_collective)9));
}
END_TEST

static Suite *collectives_suite(void) {
  Suite *s = suite_create("collectives");
  const scale_check_case cases[] = {
      {"names", names},
      {"parse_shape", parse_shape},
      {"ring_all_gather_unit", ring_all_gather_unit},
      {"all_to_all_unit", all_to_all_unit},
      {"switch_unit", switch_unit},
      {"latency_regime", latency_regime},
      {"domain", domain},
      {"group_from_chip_wraps", group_from_chip_wraps},
      {"group_from_shape", group_from_shape},
      {"group_ring", group_ring},
      {"ch2_q5_point_to_point", ch2_q5_point_to_point},
      {"ch2_q6_gather_to_slice", ch2_q6_gather_to_slice},
      {"ch3_takeaway_independent_of_n", ch3_takeaway_independent_of_n},
      {"ch3_latency_threshold", ch3_latency_threshold},
      {"ch3_pop_quiz_2", ch3_pop_quiz_2},
      {"ch3_q2_allgather_latency", ch3_q2_allgather_latency},
      {"ch3_q3_latency_bound", ch3_q3_latency_bound},
      {"ch3_q10_all_to_all", ch3_q10_all_to_all},
      {"knee_bytes", knee_bytes},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(collectives_suite()); }
