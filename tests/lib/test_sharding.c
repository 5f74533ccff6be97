/* test_sharding.c — sharding.h: parsing the book's notation, bytes per device, the four cases
 * of a sharded matmul, and the evidence of ch. 3 "Sharded Matrices and How to Multiply Them"
 * (sharding.md): the pop quiz on bytes per device, Q1, Q4 and Q9.
 */
#include <math.h>
#include <string.h>

#include "scale/sharding.h"
#include "scale_check.h"

#define EXACT 1e-12
#define HAND 1e-4
#define BOOK3 5e-3

static scale_mesh mesh_of(const char *text) {
  scale_mesh m;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_sharding_mesh_parse(text, &m, &diag);
  ck_assert_msg(st == SCALE_OK, "mesh %s: %s", text, diag.message);
  return m;
}

static scale_sharding sharding_of(const char *text, const scale_mesh *m) {
  scale_sharding s;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_sharding_parse(text, m, &s, &diag);
  ck_assert_msg(st == SCALE_OK, "sharding %s: %s", text, diag.message);
  return s;
}

/* ==== parsing =============================================================================== */

START_TEST(mesh_parse) {
  scale_mesh m = mesh_of("{X:8, Y:2}");
  ck_assert_int_eq(m.n_axes, 2);
  ck_assert_int_eq(m.name[0], 'X');
  scale_check_rel(m.size[0], 8.0, EXACT, "devices", "X:8");
  scale_check_rel(scale_sharding_mesh_devices(&m), 16.0, EXACT, "devices", "8 x 2");
  m = mesh_of("{'X': 2, 'Y': 8, 'Z': 2}");
  scale_check_rel(scale_sharding_mesh_devices(&m), 32.0, EXACT, "devices", "ch. 3 pop quiz");
  m = mesh_of("X:4,Y:8,Z:2");
  ck_assert_int_eq(m.n_axes, 3);
  scale_diag d;
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:8, X:2}", &m, &d), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:0}", &m, &d), SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X 8}", &m, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_mesh_parse("{XY:2}", &m, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:8", &m, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_mesh_parse("", &m, &d), SCALE_ERR_PARSE);
  /* Issue 13: at most 2^53 devices (whole counts a double holds exactly), one-line diag. */
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:9007199254740992}", &m, &d), SCALE_OK);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:4294967296, Y:4294967296}", &m, &d),
                   SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:99999999999999999999999999999}", &m, &d),
                   SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_sharding_mesh_parse("{X:2}\n{Y:2}", &m, &d), SCALE_ERR_PARSE);
  ck_assert_ptr_null(strchr(d.message, '\n'));
  ck_assert_str_eq(d.message, "mesh '{X:2}\\n{Y:2}': unexpected '\\n{Y:2}'");
}
END_TEST

START_TEST(sharding_parse) {
  scale_mesh m = mesh_of("{X:8, Y:2, Z:2}");
  scale_sharding s = sharding_of("A[I_XY, J]", &m);
  ck_assert_str_eq(s.array, "A");
  ck_assert_int_eq(s.n_dims, 2);
  ck_assert_str_eq(s.dim[0], "I");
  ck_assert_int_eq(s.n_dim_axes[0], 2);
  ck_assert_int_eq(s.dim_axes[0][0], 0); /* X first: order matters */
  ck_assert_int_eq(s.dim_axes[0][1], 1);
  ck_assert_int_eq(s.n_dim_axes[1], 0);
  ck_assert_uint_eq(scale_sharding_axes_mask(&s), 3u);
  s = sharding_of("[B, D_Z]", &m);
  ck_assert_str_eq(s.array, "");
  s = sharding_of("C[I, K]{U_X}", &m);
  ck_assert_uint_eq(s.unreduced_mask, 1u);
  s = sharding_of("C[I_Z, K] {U_X, U_Y}", &m);
  ck_assert_uint_eq(s.unreduced_mask, 3u);
  /* Invalid shardings (ch. 3: "A[I_X, J_X] is a nonsensical, forbidden sharding"). */
  scale_diag d;
  memset(&d, 0, sizeof d);
  ck_assert_int_eq(scale_sharding_parse("A[I_X, J_X]", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_msg(strstr(d.message, "'X' used twice") != NULL, "diag: %s", d.message);
  ck_assert_int_eq(scale_sharding_parse("A[I_XX]", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_sharding_parse("A[I_W, J]", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_msg(strstr(d.message, "unknown mesh axis 'W'") != NULL, "diag: %s", d.message);
  ck_assert_int_eq(scale_sharding_parse("A[I_X]{U_X}", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_sharding_parse("A[I, I]", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_sharding_parse("A(I)", &m, &s, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_parse("A[I_, J]", &m, &s, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_parse("A[I J]", &m, &s, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_parse("A[I, J] junk", &m, &s, &d), SCALE_ERR_PARSE);
}
END_TEST

/* ==== bytes per device ====================================================================== */

START_TEST(bytes_unit) {
  /* Hand: bf16[64, 32] as A[I_X, J_Y] on {X:4, Y:2}: local 16 x 16 = 256 elements = 512 B;
   * 8 devices hold 4096 B = one copy (no replication). */
  scale_mesh m = mesh_of("{X:4, Y:2}");
  scale_sharding s = sharding_of("A[I_X, J_Y]", &m);
  double dims[2] = {64, 32};
  scale_check_rel(scale_sharding_local_dim(&s, &m, dims, 0), 16.0, EXACT, "elements", "64/4");
  scale_check_rel(scale_sharding_bytes_per_device(&s, &m, dims, SCALE_DTYPE_BF16), 512.0, EXACT,
                  "B", "16 x 16 x 2");
  scale_check_rel(scale_sharding_total_bytes(&s, &m, dims, SCALE_DTYPE_BF16), 4096.0, EXACT, "B",
                  "one copy");
  scale_check_rel(scale_sharding_replication(&s, &m), 1.0, EXACT, "copies", "fully sharded");
  scale_check_nan(scale_sharding_local_dim(&s, &m, dims, 2));
  double neg[2] = {-1, 32};
  scale_check_nan(scale_sharding_bytes_per_device(&s, &m, neg, SCALE_DTYPE_BF16));
  scale_check_nan(scale_sharding_bytes_per_device(&s, &m, dims, (scale_dtype)77));
}
END_TEST

START_TEST(ch3_notation_examples) {
  /* ch. 3: A[I_X, J_Y] on a 2x2 mesh: each device holds 1/4 of the array. */
  scale_mesh m = mesh_of("{X:2, Y:2}");
  scale_sharding s = sharding_of("A[I_X, J_Y]", &m);
  scale_check_rel(scale_sharding_n_shards(&s, &m), 4.0, EXACT, "shards", "ch. 3 figure: 1/4");
  /* ch. 3 "What Have We Learned?": A[I_XY, J] on {X:4, Y:8} is sharded 32 ways. */
  m = mesh_of("{X:4, Y:8}");
  s = sharding_of("A[I_XY, J]", &m);
  scale_check_rel(scale_sharding_n_shards(&s, &m), 32.0, EXACT, "shards", "ch. 3: 32 ways");
}
END_TEST

START_TEST(block_index) {
  /* A[I_XY, J] on {X:2, Y:4}: I is cut in 8, device (x, y) holds block 4x + y (X major, as
   * JAX's P(('x', 'y'))); J is whole, block 0 everywhere. */
  scale_mesh m = mesh_of("{X:2, Y:4}");
  scale_sharding s = sharding_of("A[I_XY, J]", &m);
  double at[2] = {1, 2};
  scale_check_rel(scale_sharding_block_index(&s, &m, at, 0), 6, EXACT, "", "4 x 1 + 2");
  scale_check_rel(scale_sharding_block_index(&s, &m, at, 1), 0, EXACT, "", "J whole");
  /* A[I_YX, J]: Y major, block 2 y + x = 5. */
  s = sharding_of("A[I_YX, J]", &m);
  scale_check_rel(scale_sharding_block_index(&s, &m, at, 0), 5, EXACT, "", "2 x 2 + 1");
  s = sharding_of("A[I_X, J_Y]", &m);
  scale_check_rel(scale_sharding_block_index(&s, &m, at, 1), 2, EXACT, "", "y");
  double off[2] = {2, 0}, frac[2] = {0.5, 0};
  scale_check_nan(scale_sharding_block_index(&s, &m, off, 0));
  scale_check_nan(scale_sharding_block_index(&s, &m, frac, 0));
  scale_check_nan(scale_sharding_block_index(&s, &m, at, 2));
}
END_TEST

START_TEST(ch3_pop_quiz_bytes) {
  /* ch. 3 pop quiz: int8[128, 2048], A[I_XY, J], mesh {X:2, Y:8, Z:2}: per device
   * int8[8, 2048] = 16,384 bytes; total 128 * 2048 * 2 = 512 KiB (two Z planes). */
  scale_mesh m = mesh_of("{'X': 2, 'Y': 8, 'Z': 2}");
  scale_sharding s = sharding_of("A[I_XY, J]", &m);
  double dims[2] = {128, 2048};
  scale_check_rel(scale_sharding_local_dim(&s, &m, dims, 0), 8.0, EXACT, "rows", "128 / 16");
  scale_check_rel(scale_sharding_bytes_per_device(&s, &m, dims, SCALE_DTYPE_INT8), 16384.0, EXACT,
                  "B", "ch. 3 pop quiz: 16,384 bytes");
  scale_check_rel(scale_sharding_total_bytes(&s, &m, dims, SCALE_DTYPE_INT8), 512.0 * 1024.0, EXACT,
                  "B", "ch. 3 pop quiz: 512 KiB");
}
END_TEST

START_TEST(parse_array) {
  /* The mesh and the sharding in one call: A[I_XY, J] on {X:2, Y:8, Z:2} splits I over
   * X and Y, 2 x 8 = 16 shards, replicated over Z (2 copies). */
  scale_mesh m;
  scale_sharding s;
  scale_diag d = {0};
  ck_assert_int_eq(scale_sharding_parse_array("{X:2, Y:8, Z:2}", "A[I_XY, J]", &m, &s, &d),
                   SCALE_OK);
  ck_assert_int_eq(m.n_axes, 3);
  scale_check_rel(scale_sharding_n_shards(&s, &m), 16.0, EXACT, "", "2 x 8 shards");
  scale_check_rel(scale_sharding_replication(&s, &m), 2.0, EXACT, "", "Z:2 copies");
  /* each step's error comes through: a bad mesh, then an axis the mesh lacks */
  ck_assert_int_eq(scale_sharding_parse_array("{X 2}", "A[I_X]", &m, &s, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_parse_array("{X:2}", "A[I_Y]", &m, &s, &d), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(d.message, "Y"));
}
END_TEST

START_TEST(parse_matmul) {
  /* Case 1 of ch. 3, A[I_X, J] . B[J, K_Y] on {X:4, Y:4}: A split 4 ways over X, B over Y,
   * each replicated over the other axis (4 copies). */
  scale_mesh m;
  scale_sharding a, b;
  scale_diag d = {0};
  ck_assert_int_eq(
      scale_sharding_parse_matmul("{X:4, Y:4}", "A[I_X, J]", "B[J, K_Y]", &m, &a, &b, &d),
      SCALE_OK);
  scale_check_rel(scale_sharding_n_shards(&a, &m), 4.0, EXACT, "", "A over X:4");
  scale_check_rel(scale_sharding_replication(&b, &m), 4.0, EXACT, "", "B copied over X:4");
  ck_assert_str_eq(b.dim[1], "K");
  /* an error in either operand comes through */
  ck_assert_int_eq(scale_sharding_parse_matmul("{X:4}", "A[I_Z, J]", "B[J, K]", &m, &a, &b, &d),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_sharding_parse_matmul("{X:4}", "A[I_X, J]", "B[J, K", &m, &a, &b, &d),
                   SCALE_ERR_PARSE);
}
END_TEST

START_TEST(ch3_q1_replication) {
  /* ch. 3 Q1: A[I_X, J, K] on {X:4, Y:8, Z:2}: total over one copy = Y * Z = 16. */
  scale_mesh m = mesh_of("{'X': 4, 'Y': 8, 'Z': 2}");
  scale_sharding s = sharding_of("A[I_X, J, K]", &m);
  scale_check_rel(scale_sharding_replication(&s, &m), 16.0, EXACT, "copies", "ch. 3 Q1: 16");
  double dims[3] = {256, 64, 32};
  double one_copy = 256.0 * 64.0 * 32.0 * 2.0;
  scale_check_rel(scale_sharding_total_bytes(&s, &m, dims, SCALE_DTYPE_BF16) / one_copy, 16.0,
                  EXACT, "", "ch. 3 Q1 ratio");
}
END_TEST

/* ==== sharded matmuls ======================================================================= */

/* Plans "a" . "b" with I = 512, J = 1024, K = 256 (bf16), without a chip. */
static scale_sharded_matmul plan(const scale_mesh *m, const char *a_text, const char *b_text) {
  scale_sharding a = sharding_of(a_text, m), b = sharding_of(b_text, m);
  double ad[2] = {512, 1024}, bd[2] = {1024, 256};
  scale_sharded_matmul out;
  scale_diag d;
  memset(&d, 0, sizeof d);
  scale_status st = scale_sharding_matmul_plan(m, &a, ad, &b, bd, SCALE_DTYPE_BF16, NULL,
                                               SCALE_WRAP_AUTO, &out, &d);
  ck_assert_msg(st == SCALE_OK, "%s . %s: %s", a_text, b_text, d.message);
  return out;
}

START_TEST(matmul_cases) {
  scale_mesh m = mesh_of("{X:4, Y:2}");
  /* Case 1: A[I_X, J] . B[J, K_Y] -> C[I_X, K_Y], no communication; FLOPs per device
   * 2 * (512/4) * 1024 * (256/2) = 33554432. */
  scale_sharded_matmul p = plan(&m, "A[I_X, J]", "B[J, K_Y]");
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_1);
  ck_assert_int_eq(p.n_steps, 0);
  scale_check_rel(p.flops_per_device, 33554432.0, EXACT, "FLOP", "2 x 128 x 1024 x 128");
  scale_check_nan(p.comms_time_s); /* no chip given */
  /* Case 2: A[I, J_X] . B[J, K]: AllGather A over X; V = 512 x 1024 x 2 = 1048576 B. */
  p = plan(&m, "A[I, J_X]", "B[J, K]");
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_2);
  ck_assert_int_eq(p.n_steps, 1);
  ck_assert_int_eq(p.step[0].op, SCALE_COLL_ALL_GATHER);
  ck_assert_int_eq(p.step[0].operand, 0);
  ck_assert_uint_eq(p.step[0].axes_mask, 1u);
  scale_check_rel(p.step[0].bytes, 1048576.0, EXACT, "B", "all of A");
  scale_check_rel(p.flops_per_device, 2.0 * 512 * 1024 * 256, EXACT, "FLOP", "full matmul");
  /* Case 3: A[I, J_X] . B[J_X, K]: local partial sums, AllReduce C (512 x 256 x 2 B) over X. */
  p = plan(&m, "A[I, J_X]", "B[J_X, K]");
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_3);
  ck_assert_int_eq(p.step[0].op, SCALE_COLL_ALL_REDUCE);
  ck_assert_int_eq(p.step[0].operand, 2);
  scale_check_rel(p.step[0].bytes, 262144.0, EXACT, "B", "C = 512 x 256 x 2");
  scale_check_rel(p.flops_per_device, 2.0 * 512 * 256 * 256, EXACT, "FLOP", "J / 4 locally");
  /* Case 4: A[I_X, J] . B[J, K_X]: gather the smaller operand: B (1024 x 256 x 2 = 524288 B)
   * is smaller than A (1048576 B). */
  p = plan(&m, "A[I_X, J]", "B[J, K_X]");
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_4);
  ck_assert_int_eq(p.step[0].op, SCALE_COLL_ALL_GATHER);
  ck_assert_int_eq(p.step[0].operand, 1);
  scale_check_rel(p.step[0].bytes, 524288.0, EXACT, "B", "all of B");
  scale_check_rel(p.flops_per_device, 2.0 * 128 * 1024 * 256, EXACT, "FLOP", "C[I_X, K]");
  /* Contracting dims on different axes: gather the smaller (B over Y), then AllReduce over X. */
  p = plan(&m, "A[I, J_X]", "B[J_Y, K]");
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_2);
  ck_assert_int_eq(p.n_steps, 2);
  ck_assert_int_eq(p.step[0].operand, 1);
  ck_assert_uint_eq(p.step[0].axes_mask, 2u);
  ck_assert_int_eq(p.step[1].op, SCALE_COLL_ALL_REDUCE);
  ck_assert_uint_eq(p.step[1].axes_mask, 1u);
}
END_TEST

START_TEST(matmul_errors) {
  scale_mesh m = mesh_of("{X:4, Y:2}");
  scale_sharding a = sharding_of("A[I, J]", &m), b = sharding_of("B[K, L]", &m);
  double ad[2] = {8, 8}, bd[2] = {8, 8};
  scale_sharded_matmul out;
  scale_diag d;
  ck_assert_int_eq(scale_sharding_matmul_plan(&m, &a, ad, &b, bd, SCALE_DTYPE_BF16, NULL,
                                              SCALE_WRAP_AUTO, &out, &d),
                   SCALE_ERR_INVALID);
  b = sharding_of("B[I, J]", &m); /* two shared names */
  ck_assert_int_eq(scale_sharding_matmul_plan(&m, &a, ad, &b, bd, SCALE_DTYPE_BF16, NULL,
                                              SCALE_WRAP_AUTO, &out, &d),
                   SCALE_ERR_INVALID);
  b = sharding_of("B[J, K]", &m);
  double bad[2] = {16, 8}; /* J differs */
  ck_assert_int_eq(scale_sharding_matmul_plan(&m, &a, ad, &b, bad, SCALE_DTYPE_BF16, NULL,
                                              SCALE_WRAP_AUTO, &out, &d),
                   SCALE_ERR_INVALID);
  /* A mesh axis larger than the chip's pod cannot be mapped. */
  scale_mesh big = mesh_of("{X:64}");
  a = sharding_of("A[I, J_X]", &big);
  b = sharding_of("B[J_X, K]", &big);
  double ad2[2] = {64, 64}, bd2[2] = {64, 64};
  scale_chip v5e = scale_check_chip("tpu-v5e");
  ck_assert_int_eq(scale_sharding_matmul_plan(&big, &a, ad2, &b, bd2, SCALE_DTYPE_BF16, &v5e,
                                              SCALE_WRAP_AUTO, &out, &d),
                   SCALE_ERR_RANGE);
}
END_TEST

START_TEST(matmul_costs_on_chip) {
  /* Case 3 on a v5e with mesh {X:4, Y:4}: AllReduce of C (bf16 4096 x 8192 = 67108864 B) over
   * X (4, no wraparound): 2 x 3/4 x V / 4.5e10 = 2.2369e-3 s; book form 2 V / 9e10. */
  scale_mesh m = mesh_of("{X:4, Y:4}");
  scale_sharding a = sharding_of("A[I, J_X]", &m), b = sharding_of("B[J_X, K]", &m);
  double ad[2] = {4096, 1024}, bd[2] = {1024, 8192};
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_sharded_matmul p;
  scale_diag d;
  memset(&d, 0, sizeof d);
  ck_assert_int_eq(scale_sharding_matmul_plan(&m, &a, ad, &b, bd, SCALE_DTYPE_BF16, &v5e,
                                              SCALE_WRAP_AUTO, &p, &d),
                   SCALE_OK);
  scale_check_rel(p.comms_time_s, 2.0 * 0.75 * 67108864.0 / 4.5e10, EXACT, "s",
                  "hand: 2 (N-1)/N V / W");
  scale_check_rel(p.book_comms_time_s, 2.0 * 67108864.0 / 9e10, EXACT, "s", "2 V / W_bidi");
  scale_check_rel(p.comms_time_s, 2.2369e-3, HAND, "s", "hand derivation");
}
END_TEST

START_TEST(matmul_plan_text) {
  /* The same case 3 named in text: the same hand-derived 2 (N-1)/N V / W over X:4; a
   * malformed operand is the parser's error, a pair without a shared dimension the plan's. */
  double ad[2] = {4096, 1024}, bd[2] = {1024, 8192};
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_sharded_matmul p;
  scale_diag d = {0};
  ck_assert_int_eq(scale_sharding_matmul_plan_text("{X:4, Y:4}", "A[I, J_X]", "B[J_X, K]", ad, bd,
                                                   SCALE_DTYPE_BF16, &v5e, SCALE_WRAP_AUTO, &p,
                                                   &d),
                   SCALE_OK);
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_3);
  scale_check_rel(p.comms_time_s, 2.0 * 0.75 * 67108864.0 / 4.5e10, EXACT, "s",
                  "hand: 2 (N-1)/N V / W");
  ck_assert_int_eq(scale_sharding_matmul_plan_text("{X:4}", "A[I, J_X", "B[J, K]", ad, bd,
                                                   SCALE_DTYPE_BF16, &v5e, SCALE_WRAP_AUTO, &p,
                                                   &d),
                   SCALE_ERR_PARSE);
  ck_assert_int_eq(scale_sharding_matmul_plan_text("{X:4}", "A[I, J]", "B[L, K]", ad, bd,
                                                   SCALE_DTYPE_BF16, &v5e, SCALE_WRAP_AUTO, &p,
                                                   &d),
                   SCALE_ERR_INVALID);
}
END_TEST

START_TEST(ch3_q4_strategies) {
  /* ch. 3 Q4 on TPU v5p (C = 4.59e14, W_bidi = 1.8e11): strategy (2) (local matmul +
   * AllReduce) beats (1) (AllGather + full matmul) when D > 2 C / W_bidi = 5100. */
  scale_chip v5p = scale_check_chip("tpu-v5p");
  double c = scale_chip_flops_per_s(&v5p, SCALE_DTYPE_BF16);
  scale_check_rel(
      scale_sharding_reduce_beats_gather_d(c, 2 * v5p.ici_link_bytes_per_s, SCALE_DTYPE_BF16),
      5100.0, BOOK3, "count", "ch. 3 Q4: D > 5100");
  double x = 4;
  scale_group g;
  ck_assert_int_eq(scale_group_from_chip(&v5p, &x, 1, SCALE_WRAP_YES, &g, NULL), SCALE_OK);
  /* B = 1024, D = 8192 > 5100, F = 32768, book forms:
   * (1) math 2BDF/C = 5.4976e11 / 4.59e14 = 1.19773e-3 s; AllGather 2DF / 1.8e11 =
   *     536870912 / 1.8e11 = 2.98262e-3 s -> 2.98262e-3 s.
   * (2) math / 4 = 2.99433e-4 s; AllReduce 2 x 2BF / 1.8e11 = 7.45654e-4 s -> 7.45654e-4 s. */
  scale_sharding_strategy s =
      scale_sharding_compare_strategies(&g, c, 1024, 8192, 32768, SCALE_DTYPE_BF16, true);
  scale_check_rel(s.gather_t_math_s, 1.19773e-3, HAND, "s", "2BDF / C");
  scale_check_rel(s.gather_t_s, 2.98262e-3, HAND, "s", "max(2BDF/C, 2DF/W)");
  scale_check_rel(s.reduce_t_math_s, 2.99433e-4, HAND, "s", "2BDF / (X C)");
  scale_check_rel(s.reduce_t_s, 7.45654e-4, HAND, "s", "max(2BDF/XC, 4BF/W)");
  ck_assert(s.reduce_faster);
  /* D = 4096 < 5100 with B = 8192: (1) 4.79e-3 s (compute) beats (2) 5.965e-3 s (comms). */
  s = scale_sharding_compare_strategies(&g, c, 8192, 4096, 32768, SCALE_DTYPE_BF16, true);
  ck_assert(!s.reduce_faster);
  scale_check_rel(s.reduce_t_s, 4.0 * 8192 * 32768 / 1.8e11, EXACT, "s", "4BF / W_bidi");
  /* The precise times differ only by (N-1)/N on the communication. */
  s = scale_sharding_compare_strategies(&g, c, 1024, 8192, 32768, SCALE_DTYPE_BF16, false);
  scale_check_rel(s.gather_t_comms_s, 0.75 * 536870912.0 / 1.8e11, EXACT, "s", "3/4 x book");
  s = scale_sharding_compare_strategies(&g, 0.0, 1024, 8192, 32768, SCALE_DTYPE_BF16, true);
  scale_check_nan(s.gather_t_s);
}
END_TEST

START_TEST(ch3_q9_gather_vs_reduce_scatter) {
  /* ch. 3 Q9 (3): for A[N, M] sharded A[I, J_X] times B[M, K], gathering A first moves ~N M
   * while matmul-then-ReduceScatter moves ~N K: the ratio is M / K. N = 1024, M = 4096,
   * K = 1024 on a wrapped ring of 8: AllGather(2NM) / ReduceScatter(2NK) = 4. */
  scale_mesh m = mesh_of("{X:8}");
  scale_sharding a = sharding_of("A[N, M_X]", &m), b = sharding_of("B[M, K]", &m);
  double ad[2] = {1024, 4096}, bd[2] = {4096, 1024};
  scale_sharded_matmul p;
  ck_assert_int_eq(scale_sharding_matmul_plan(&m, &a, ad, &b, bd, SCALE_DTYPE_BF16, NULL,
                                              SCALE_WRAP_AUTO, &p, NULL),
                   SCALE_OK);
  ck_assert_int_eq(p.kind, SCALE_SHARDED_CASE_2); /* the book's default: AllGather A */
  scale_check_rel(p.step[0].bytes, 2.0 * 1024 * 4096, EXACT, "B", "V = N M bf16");
  scale_group g;
  memset(&g, 0, sizeof g);
  g.n_axes = 1;
  g.axis[0].size = 8;
  g.axis[0].wraps = true;
  g.axis[0].link_bytes_per_s = 4.5e10;
  double ag = scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, p.step[0].bytes);
  double rs = scale_collective_time_s(&g, SCALE_COLL_REDUCE_SCATTER, 2.0 * 1024 * 1024);
  scale_check_rel(ag / rs, 4096.0 / 1024.0, EXACT, "", "ch. 3 Q9 (3): M / K");
}
END_TEST

static Suite *sharding_suite(void) {
  Suite *s = suite_create("sharding");
  const scale_check_case cases[] = {
      {"mesh_parse", mesh_parse},
      {"sharding_parse", sharding_parse},
      {"bytes_unit", bytes_unit},
      {"ch3_notation_examples", ch3_notation_examples},
      {"block_index", block_index},
      {"ch3_pop_quiz_bytes", ch3_pop_quiz_bytes},
      {"parse_array", parse_array},
      {"parse_matmul", parse_matmul},
      {"ch3_q1_replication", ch3_q1_replication},
      {"matmul_cases", matmul_cases},
      {"matmul_errors", matmul_errors},
      {"matmul_costs_on_chip", matmul_costs_on_chip},
      {"matmul_plan_text", matmul_plan_text},
      {"ch3_q4_strategies", ch3_q4_strategies},
      {"ch3_q9_gather_vs_reduce_scatter", ch3_q9_gather_vs_reduce_scatter},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(sharding_suite()); }
