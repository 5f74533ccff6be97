/* test_training_layouts.c — training.h "layouts the chapters build": the FSDP x CP split of a
 * pod (ch. 6), the per-layer collective totals and the scaling layout of ch. 5, against hand
 * derivations.
 */
#include <math.h>
#include <string.h>

#include "scale/training.h"
#include "scale_check.h"

#define EXACT 1e-12

START_TEST(fsdp_cp_degree) {
  /* ch. 6: 8960 = 2^8 x 35 v5p chips, 1024 sequences of 4096 tokens. CP = 8960 / f must divide
   * 4096, a power of two, so f holds the factor 35: 35 x 16 = 560 (35 x 32 = 1120 > 1024). */
  double f = scale_train_fsdp_cp_degree(8960, 1024, 4096);
  scale_check_rel(f, 560, EXACT, "", "8960 = 560 x 16, 16 | 4096");
  /* Enough sequences and a divisible sequence: pure FSDP. */
  scale_check_rel(scale_train_fsdp_cp_degree(256, 1024, 4096), 256, EXACT, "", "f = n");
  /* Fewer sequences than chips: 16 x CP 4. */
  scale_check_rel(scale_train_fsdp_cp_degree(64, 16, 4096), 16, EXACT, "", "64 = 16 x 4");
  /* No split above 1: 64 chips, 16 sequences of 6 tokens (CP 4, 8, 16, 32 do not divide 6). */
  scale_check_rel(scale_train_fsdp_cp_degree(64, 16, 6), 1, EXACT, "", "none: 1");
  scale_check_nan(scale_train_fsdp_cp_degree(0, 16, 4096));
  scale_check_nan(scale_train_fsdp_cp_degree(64, 1.5, 4096));
  scale_check_nan(scale_train_fsdp_cp_degree(64, 16, NAN));
}
END_TEST

START_TEST(layer_comm_totals) {
  /* Two collectives in use (step bytes > 0) and one with per-layer figures but no step bytes,
   * which the totals skip: 2 + 3 + 10 + 20 bytes, 0.5 + 0.25 + 1 + 2 s. */
  static scale_train_result r;
  memset(&r, 0, sizeof r);
  r.comm[0] = (scale_train_comm_cost){.step_bytes = 1, .fwd_bytes_per_layer = 2,
                                      .bwd_bytes_per_layer = 3, .fwd_time_per_layer_s = 0.5,
                                      .bwd_time_per_layer_s = 0.25};
  r.comm[1] = (scale_train_comm_cost){.step_bytes = 7, .fwd_bytes_per_layer = 10,
                                      .bwd_bytes_per_layer = 20, .fwd_time_per_layer_s = 1,
                                      .bwd_time_per_layer_s = 2};
  r.comm[2] = (scale_train_comm_cost){.step_bytes = 0, .fwd_bytes_per_layer = 1e9,
                                      .fwd_time_per_layer_s = 1e9};
  double bytes, time_s;
  scale_train_layer_comm_totals(&r, &bytes, &time_s);
  scale_check_rel(bytes, 35, EXACT, "B", "2 + 3 + 10 + 20");
  scale_check_rel(time_s, 3.75, EXACT, "s", "0.5 + 0.25 + 1 + 2");
}
END_TEST

START_TEST(scaling_layout) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5p = scale_check_chip("tpu-v5p");
  /* 16384 chips in slices of 8192, 1024 sequences of 4096: DP 2 over DCN; inside a slice
   * TP 4, FSDP min(8192 / 4, 1024 / 2) = 512, CP 8192 / (4 x 512) = 4. */
  scale_train_problem p = scale_train_problem_make(&m, &v5p, 16384, 4194304, 4096);
  scale_layout l;
  ck_assert(scale_train_scaling_layout(&p, 4, 8192, &l));
  scale_check_rel(l.dp, 2, EXACT, "", "16384 / 8192");
  scale_check_rel(l.tp, 4, EXACT, "", "TP 4");
  scale_check_rel(l.fsdp, 512, EXACT, "", "one sequence per data shard");
  scale_check_rel(l.cp, 4, EXACT, "", "the rest");
  ck_assert(l.link[SCALE_TRAIN_DIM_DP] == SCALE_TRAIN_LINK_DCN);
  /* 64 chips, one slice: FSDP 8 x TP 8, no CP */
  p = scale_train_problem_make(&m, &v5p, 64, 4194304, 4096);
  ck_assert(scale_train_scaling_layout(&p, 8, 8192, &l));
  ck_assert(l.dp == 1 && l.fsdp == 8 && l.tp == 8 && l.cp == 1);
  /* TP wider than the chips refuses */
  ck_assert(!scale_train_scaling_layout(&p, 128, 8192, &l));
}
END_TEST

START_TEST(scaling_sweep) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5p = scale_check_chip("tpu-v5p");
  /* the sweep is the scaling layout evaluated at each count; TP 128 on 64 chips has none */
  const double chips[] = {64, 16384};
  double step[2], floor_s[2] = {-1, -1};
  scale_train_scaling_sweep(&m, &v5p, 4194304, 4096, 8, 8192, chips, 2, step, floor_s);
  for (int i = 0; i < 2; i++) {
    scale_train_problem p = scale_train_problem_make(&m, &v5p, chips[i], 4194304, 4096);
    scale_layout l;
    scale_train_result r;
    ck_assert(scale_train_scaling_layout(&p, 8, 8192, &l));
    scale_train_eval(&p, &l, &r);
    scale_check_rel(floor_s[i], r.compute_time_s, EXACT, "s", "the layout's compute time");
    if (r.fits)
      scale_check_rel(step[i], r.step_time_s, EXACT, "s", "the layout's step");
    else
      ck_assert(isnan(step[i]));
  }
  ck_assert(floor_s[1] < floor_s[0]); /* more chips, less compute per chip */
  scale_train_scaling_sweep(&m, &v5p, 4194304, 4096, 128, 8192, chips, 1, step, floor_s);
  ck_assert(isnan(step[0]));
  ck_assert(floor_s[0] > 0); /* no layout: the floor keeps what it held */
}
END_TEST

int main(void) {
  Suite *s = suite_create("training_layouts");
  const scale_check_case cases[] = {{"fsdp_cp_degree", fsdp_cp_degree},
                                    {"layer_comm_totals", layer_comm_totals},
                                    {"scaling_layout", scaling_layout},
                                    {"scaling_sweep", scaling_sweep}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
