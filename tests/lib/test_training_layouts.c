/* test_training_layouts.c — training.h "layouts the chapters build": the FSDP x CP split of a
 * pod (ch. 6), against hand derivations.
 */
#include <math.h>

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

int main(void) {
  Suite *s = suite_create("training_layouts");
  const scale_check_case cases[] = {{"fsdp_cp_degree", fsdp_cp_degree}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
