/* test_hardware_capacity.c — the GPU files' memory capacity is the device total.
 *
 * hbm_bytes of every NVIDIA file is what the driver reports as the device's total memory
 * (nvidia-smi's "Memory-Usage" total, in MiB), not the decimal marketing figure: the totals
 * below are read from public nvidia-smi logs (sources in each file's comment and in
 * hardware/README.md), so each file must hold exactly MiB x 1048576 bytes: that exact check
 * is what catches a unit slip. The printed figure is only a sanity bound (every device total
 * is 1.00-1.074 times it, so 8% either way flags a different part, not a rounding).
 * The NVIDIA files with no public driver log of their total (nvidia-h20, nvidia-b300 and the
 * GB300 system on it) hold the decimal datasheet figure and say so; they are not listed here.
 * The serving cost's KV room (serve.h: tp x (HBM - weights per chip)) takes the total as is.
 */
#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/serve.h"
#include "scale_check.h"

#define MIB 1048576.0

typedef struct {
  const char *file;
  double mib;       /* nvidia-smi total [MiB] */
  double marketing; /* the datasheet's / book's decimal figure [bytes] */
} capacity_case;

static const capacity_case cases[] = {
    {"nvidia-v100", 32510, 32e9},      /* Tesla V100-SXM2-32GB, ECC on */
    {"nvidia-a100-80gb", 81920, 80e9}, /* A100-SXM4-80GB: exactly 80 GiB */
    {"nvidia-h100-sxm", 81559, 80e9},  /* H100 80GB HBM3 */
    {"nvidia-h200", 143771, 141e9},    /* H200 (SXM and NVL alike) */
    {"nvidia-gh200", 97871, 96e9},     /* GH200 480GB: the 96GB HBM3 GPU */
    {"nvidia-b200", 183359, 192e9},    /* B200 */
    {"gb200-nvl72", 189471, 192e9},    /* GB200's GPU: the one key not inherited from B200 */
    {"nvidia-l40s", 46068, 48e9},      /* L40S, GDDR6 */
    {"nvidia-a100-40gb", 40960, 40e9}, /* A100 40GB: exactly 40 GiB (modal-client PR #2797) */
    {"nvidia-h100-nvl", 95330.5, 94e9}, /* H100 NVL: 99961274368 bytes (fastfetch #1658) */
    {"dgx-h100", 81559, 80e9},         /* a system: inherits the H100's */
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

START_TEST(device_totals) {
  for (int i = 0; i < N_CASES; i++) {
    scale_chip c = scale_check_chip(cases[i].file);
    scale_check_rel(c.hbm_bytes, cases[i].mib * MIB, 0.0, "B", cases[i].file);
    double r = c.hbm_bytes / cases[i].marketing;
    ck_assert_msg(r > 0.92 && r < 1.08, "%s: device total %.4g vs printed %.4g", cases[i].file,
                  c.hbm_bytes, cases[i].marketing);
  }
  /* Hand: 81559 x 1048576 = 85,520,809,984 bytes, the figure CUDA reports on H100 too. */
  scale_check_rel(scale_check_chip("nvidia-h100-sxm").hbm_bytes, 85520809984.0, 0.0, "B",
                  "H100: 81559 MiB");
}
END_TEST

START_TEST(kv_room_is_the_total_minus_weights) {
  /* LLaMA 3 70B (70,553,706,496 parameters, the file's count) in FP8 on one H100: one byte
   * per weight, so the KV room is 85,520,809,984 - 70,553,706,496 = 14,967,103,488 bytes;
   * with the decimal 8.0e10 it was 9,446,293,504, 37% less. */
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
  ic.weight_dtype = ic.kv_dtype = ic.compute_dtype = SCALE_DTYPE_FP8;
  scale_serve_roofline rf;
  scale_diag diag;
  ck_assert_msg(scale_serve_roofline_of(&m, &h100, &ic, 0.0, &rf, &diag) == SCALE_OK, "%s",
                diag.message);
  scale_check_rel(rf.param_bytes, 70553706496.0, 1e-12, "B", "70B x 1 byte");
  scale_check_rel(rf.kv_capacity_bytes, 14967103488.0, 1e-12, "B", "81559 MiB - 70.55e9");
  /* TP 2 on A100 80GB in FP16: 2 x (85,899,345,920 - 70,553,706,496) = 30,691,278,848. */
  scale_chip a100 = scale_check_chip("nvidia-a100-80gb");
  ic = scale_infer_config_default(2, 1, 2048);
  ic.weight_dtype = ic.kv_dtype = ic.compute_dtype = SCALE_DTYPE_FP16;
  ck_assert_msg(scale_serve_roofline_of(&m, &a100, &ic, 0.0, &rf, &diag) == SCALE_OK, "%s",
                diag.message);
  scale_check_rel(rf.kv_capacity_bytes, 30691278848.0, 1e-12, "B", "2 x (80 GiB - 70.55e9)");
}
END_TEST

static Suite *capacity_suite(void) {
  Suite *s = suite_create("hardware_capacity");
  const scale_check_case tests[] = {
      {"device_totals", device_totals},
      {"kv_room_is_the_total_minus_weights", kv_room_is_the_total_minus_weights}};
  scale_check_add_cases(s, tests, sizeof tests / sizeof tests[0]);
  return s;
}

int main(void) { return scale_check_run(capacity_suite()); }
