/* test_precision.c — the precision recipes: peak selection and cast bytes. */
#include <math.h>

#include "scale.h"
#include "scale_check.h"

/* Each recipe's matmul dtype selects the chip file's peak of that format. */
START_TEST(recipe_selects_peak) {
  ck_assert_int_eq(scale_precision_find("bf16")->matmul_dtype, SCALE_DTYPE_BF16);
  ck_assert_int_eq(scale_precision_find("fp8-blockwise")->matmul_dtype, SCALE_DTYPE_FP8);
  ck_assert_int_eq(scale_precision_find("mxfp8")->matmul_dtype, SCALE_DTYPE_FP8);
  ck_assert_int_eq(scale_precision_find("nvfp4")->matmul_dtype, SCALE_DTYPE_FP4);
  ck_assert_ptr_null(scale_precision_find("fp7"));
}
END_TEST

/* The table lists the seven formats, bf16 first, each found again by its name. */
START_TEST(table_lists_every_recipe) {
  static const char *const want[] = {"bf16",          "fp16",  "fp8", "fp8-rowwise",
                                     "fp8-blockwise", "mxfp8", "nvfp4"};
  int n = 0;
  for (; scale_precision_at(n); n++) {
    ck_assert_str_eq(scale_precision_at(n)->name, want[n]);
    ck_assert_ptr_eq(scale_precision_find(want[n]), scale_precision_at(n));
  }
  ck_assert_int_eq(n, 7);
  ck_assert_ptr_null(scale_precision_at(-1));
}
END_TEST

/* A chip has a recipe when its file gives a peak for the format: the H100 has fp8, not fp4. */
START_TEST(chip_has_format) {
  scale_chip chip = {0};
  for (int d = 0; d < SCALE_DTYPE_COUNT; d++) chip.flops_per_s[d] = (double)NAN;
  chip.flops_per_s[SCALE_DTYPE_BF16] = 9.89e14;
  chip.flops_per_s[SCALE_DTYPE_FP8] = 1.98e15;
  ck_assert(scale_precision_chip_has(scale_precision_find("fp8"), &chip));
  ck_assert(!scale_precision_chip_has(scale_precision_find("nvfp4"), &chip));
}
END_TEST

/* Cast bytes: read bf16 (2) + write the format, plus scale bytes over the block. */
START_TEST(cast_bytes) {
  scale_check_rel(scale_precision_quant_bytes_per_elem(scale_precision_find("bf16")), 0.0, 0,
                  "B", "no cast");
  scale_check_rel(scale_precision_quant_bytes_per_elem(scale_precision_find("fp8")), 3.0, 1e-12,
                  "B", "2 read + 1 write, one scale per tensor");
  scale_check_rel(scale_precision_quant_bytes_per_elem(scale_precision_find("mxfp8")), 3.03125,
                  1e-12, "B", "3 + 1 e8m0 byte / 32 (OCP MX v1.0)");
  scale_check_rel(scale_precision_quant_bytes_per_elem(scale_precision_find("nvfp4")), 2.5625,
                  1e-12, "B", "2 + 0.5 + 1 e4m3 byte / 16");
}
END_TEST

static Suite *precision_suite(void) {
  Suite *s = suite_create("precision");
  TCase *t = tcase_create("recipes");
  tcase_add_test(t, recipe_selects_peak);
  tcase_add_test(t, table_lists_every_recipe);
  tcase_add_test(t, chip_has_format);
  tcase_add_test(t, cast_bytes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return scale_check_run(precision_suite()); }
