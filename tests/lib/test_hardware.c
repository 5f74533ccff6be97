/* test_hardware.c — the strict hardware loader: good files, every malformed case with its
 * status and line, systems inheriting a base, and the derived ratios on hand-made records. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scale.h"
#include "scale/step.h"
#include "scale_check.h"

static char dir[64];

/* Writes 'text' to dir/NAME and returns the path (static buffer). */
static const char *fixture(const char *name, const char *text) {
  return scale_check_write(dir, name, text);
}

static void setup(void) { scale_check_tmpdir(dir, sizeof dir, "/tmp/scale-test-hw-XXXXXX"); }

static void teardown(void) { scale_check_rmdir(dir); }

#define GOOD_CHIP                                                                                  \
  "; a made-up chip: numbers chosen for easy hand arithmetic\n"                                    \
  "[chip]\n"                                                                                       \
  "kind = tpu\n"                                                                                   \
  "display_name = Test TPU\n"                                                                      \
  "bf16_flops_per_s = 2e14   ; inline comment\n"                                                   \
  "int8_flops_per_s = 4e14\n"                                                                      \
  "hbm_bytes = 1.6e10\n"                                                                           \
  "hbm_bytes_per_s = 1e12\n"                                                                       \
  "[ici]\n"                                                                                        \
  "link_bytes_per_s = 5e10\n"                                                                      \
  "pod_x = 16\npod_y = 16\n"                                                                       \
  "wrap_axis_multiple = 16\n"                                                                      \
  "[network]\n"                                                                                    \
  "dcn_bytes_per_s = 2.5e10\n"

/* Loads 'text' expecting failure 'status' at 'line' with 'words' in the message. */
static void expect_error(const char *text, scale_status status, int line, const char *words) {
  scale_chip chip;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_chip_load_file(fixture("bad.ini", text), &chip, &diag);
  ck_assert_msg(st == status, "got status '%s' (%s), expected '%s'", scale_status_str(st),
                diag.message, scale_status_str(status));
  ck_assert_int_eq(diag.line, line);
  ck_assert_msg(strstr(diag.message, words) != NULL, "message '%s' lacks '%s'", diag.message,
                words);
  ck_assert_msg(strstr(diag.file, "bad.ini") != NULL, "diag names the file");
  ck_assert_ptr_null(strchr(diag.message, '\n'));
}

START_TEST(loads_good_file) {
  scale_chip chip;
  scale_diag diag;
  scale_status st = scale_chip_load_file(fixture("test-tpu.ini", GOOD_CHIP), &chip, &diag);
  ck_assert_msg(st == SCALE_OK, "%s:%d: %s", diag.file, diag.line, diag.message);
  ck_assert_str_eq(chip.name, "test-tpu");
  ck_assert_str_eq(chip.display_name, "Test TPU");
  ck_assert_int_eq(chip.kind, SCALE_HW_TPU);
  scale_check_rel(chip.flops_per_s[SCALE_DTYPE_BF16], 2e14, 0, "FLOP/s", "fixture");
  scale_check_nan(chip.flops_per_s[SCALE_DTYPE_FP8]); /* absent = unknown, never 0 */
  scale_check_nan(chip.nvlink_bytes_per_s);
  scale_check_rel(chip.n_chips, 1, 0, "", "a chip is one chip");
  ck_assert_int_eq(chip.n_net_levels, 0);
  /* Derived ratios, by hand: 2e14 / 1e12 = 200; 4e14 / 1e12 = 400; 2e14 / (2 x 5e10) = 2000;
   * 2e14 / 2.5e10 = 8000; pod 16 x 16 = 256 chips. */
  scale_check_rel(scale_chip_hbm_intensity(&chip, SCALE_DTYPE_BF16), 200, 1e-12, "FLOP/B", "hand");
  scale_check_rel(scale_chip_hbm_intensity(&chip, SCALE_DTYPE_INT8), 400, 1e-12, "OP/B", "hand");
  scale_check_rel(scale_chip_ici_intensity(&chip, SCALE_DTYPE_BF16), 2000, 1e-12, "FLOP/B",
                  "hand: bidirectional W = 2 x one-way");
  scale_check_rel(scale_chip_dcn_intensity(&chip, SCALE_DTYPE_BF16), 8000, 1e-12, "FLOP/B", "hand");
  scale_check_nan(scale_chip_hbm_intensity(&chip, SCALE_DTYPE_FP8));
  scale_check_nan(scale_chip_nvlink_intensity(&chip, SCALE_DTYPE_BF16));
  scale_check_rel(scale_chip_pod_chips(&chip), 256, 0, "chips", "hand");
  ck_assert(scale_chip_axis_wraps(&chip, 16));
  ck_assert(!scale_chip_axis_wraps(&chip, 8));
  ck_assert(!scale_chip_axis_wraps(&chip, 4));
}
END_TEST

START_TEST(ici_latency_bytes) {
  /* ch. 3 "A note on ICI latency": a v5e link moves 4.5e10 B/s x 1e-6 s = 45 kB in one hop's
   * latency; a made-up 5e10 B/s link at 2 us moves 1e5 B; without a latency there is none. */
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_check_rel(scale_chip_ici_latency_bytes(&v5e), 4.5e4, 1e-12, "B", "ch. 3: 45 kB");
  scale_chip c;
  memset(&c, 0, sizeof c);
  c.ici_link_bytes_per_s = 5e10;
  c.ici_hop_latency_s = 2e-6;
  scale_check_rel(scale_chip_ici_latency_bytes(&c), 1e5, 1e-12, "B", "hand: 5e10 x 2e-6");
  c.ici_hop_latency_s = NAN;
  scale_check_nan(scale_chip_ici_latency_bytes(&c));
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_check_nan(scale_chip_ici_latency_bytes(&h100));
}
END_TEST

START_TEST(system_inherits_base) {
  fixture("base-gpu.ini", "[chip]\nkind = gpu\ndisplay_name = Base GPU\n"
                          "bf16_flops_per_s = 1e15\nhbm_bytes = 8e10\nhbm_bytes_per_s = 3e12\n"
                          "[nvlink]\nbytes_per_s = 4.5e11\ndomain_size = 8\nn_nvswitches = 4\n");
  const char *path = fixture("node.ini", "; an 8-GPU node of base-gpu\n[system]\nbase = base-gpu\n"
                                         "n_chips = 8\n[chip]\ndisplay_name = Test node\n"
                                         "[network]\nlevel1_fanout = 8\n"
                                         "level1_member_bytes_per_s = 4.5e11\n"
                                         "level2_fanout = 32\nlevel2_member_bytes_per_s = 4e11\n");
  scale_chip chip;
  scale_diag diag;
  scale_status st = scale_chip_load_file(path, &chip, &diag);
  ck_assert_msg(st == SCALE_OK, "%s:%d: %s", diag.file, diag.line, diag.message);
  ck_assert_str_eq(chip.name, "node");
  ck_assert_str_eq(chip.base, "base-gpu");
  ck_assert_str_eq(chip.display_name, "Test node"); /* the system overrides */
  ck_assert_int_eq(chip.kind, SCALE_HW_GPU);        /* inherited */
  scale_check_rel(chip.n_chips, 8, 0, "", "fixture");
  scale_check_rel(chip.hbm_bytes_per_s, 3e12, 0, "B/s", "inherited");
  ck_assert_int_eq(chip.n_net_levels, 2);
  scale_check_rel(chip.net_levels[1].fanout, 32, 0, "", "fixture");
  /* 1e15 / 4.5e11 = 2222.2 */
  scale_check_rel(scale_chip_nvlink_intensity(&chip, SCALE_DTYPE_BF16), 1e15 / 4.5e11, 1e-12,
                  "FLOP/B", "hand");
}
END_TEST

START_TEST(bad_base) {
  expect_error("[system]\nbase = no-such-chip\n", SCALE_ERR_NOT_FOUND, 2, "no-such-chip");
  expect_error("[system]\nbase = ../etc/x\n", SCALE_ERR_INVALID, 2, "file stem");
  fixture("loop.ini", "[system]\nbase = loop\n");
  scale_chip chip;
  scale_diag diag;
  char path[256];
  snprintf(path, sizeof path, "%s/loop.ini", dir);
  ck_assert_int_eq(scale_chip_load_file(path, &chip, &diag), SCALE_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(diag.message, "cycle"));
}
END_TEST

START_TEST(malformed_files) {
  expect_error(GOOD_CHIP "hbm_typo_bytes = 3\n", SCALE_ERR_UNKNOWN_KEY, 16, "hbm_typo_bytes");
  expect_error(GOOD_CHIP "[gpu]\nx = 1\n", SCALE_ERR_UNKNOWN_KEY, 17, "unknown section [gpu]");
  expect_error("bf16_flops_per_s = 1\n" GOOD_CHIP, SCALE_ERR_UNKNOWN_KEY, 1, "outside any");
  expect_error(GOOD_CHIP "[chip]\nhbm_bytes = 1.6e10\n", SCALE_ERR_DUPLICATE_KEY, 17,
               "first set on line 7");
  expect_error("[chip]\nkind = tpu\ndisplay_name = X\nbf16_flops_per_s = 1e14\nhbm_bytes = 1e9\n",
               SCALE_ERR_MISSING_KEY, 0, "hbm_bytes_per_s");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 1.2 USD\n", SCALE_ERR_PARSE, 17, "plain number");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 820G\n", SCALE_ERR_PARSE, 17, "plain number");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 0x10\n", SCALE_ERR_PARSE, 17, "plain number");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = inf\n", SCALE_ERR_PARSE, 17, "plain number");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 1e400\n", SCALE_ERR_RANGE, 17, "out of range");
  expect_error(GOOD_CHIP "[network]\npcie_bytes_per_s = -1.6e10\n", SCALE_ERR_RANGE, 17,
               "pcie_bytes_per_s must be in [1e6, 1e16], got -1.6e10");
  expect_error(GOOD_CHIP "[nvlink]\nbytes_per_s = -4.5e11\n", SCALE_ERR_RANGE, 17, "in [1e6");
  expect_error(GOOD_CHIP "[nvlink]\nbytes_per_s = 0\n", SCALE_ERR_RANGE, 17, "in [1e6");
  expect_error(GOOD_CHIP "just words\n", SCALE_ERR_PARSE, 16, "key = value");
  expect_error("", SCALE_ERR_PARSE, 0, "empty");
  expect_error("; only a comment\n\n", SCALE_ERR_PARSE, 0, "empty");
  expect_error("[chip]\nkind = fpga\ndisplay_name = X\nbf16_flops_per_s = 1e14\nhbm_bytes = 1e10\n"
               "hbm_bytes_per_s = 1e12\n",
               SCALE_ERR_PARSE, 2, "tpu or gpu");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 2\n[price]\nusd_per_hour = 3\n",
               SCALE_ERR_DUPLICATE_KEY, 19, "first set on line 17");
  /* Control characters in a key or value are escaped in the message (fuzz finding: a carriage
   * return was copied raw; one line whatever the file holds). */
  expect_error(GOOD_CHIP "hbm\rtypo = 3\n", SCALE_ERR_UNKNOWN_KEY, 16, "unknown key 'hbm\\rtypo'");
  expect_error(GOOD_CHIP "[price]\nusd_per_hour = 1\t2\n", SCALE_ERR_PARSE, 17, "'1\\t2' is not");
}
END_TEST

START_TEST(sixteen_bit_rate_required) {
  /* V100 has fp16 but no bf16: either 16-bit rate satisfies the loader; neither does not. */
  scale_chip chip;
  scale_diag diag;
  const char *path = fixture("fp16-only.ini", "[chip]\nkind = gpu\ndisplay_name = X\n"
                                              "fp16_flops_per_s = 1.25e14\nhbm_bytes = 3.2e10\n"
                                              "hbm_bytes_per_s = 9e11\n");
  ck_assert_int_eq(scale_chip_load_file(path, &chip, &diag), SCALE_OK);
  scale_check_nan(scale_chip_hbm_intensity(&chip, SCALE_DTYPE_BF16));
  scale_check_rel(scale_chip_hbm_intensity(&chip, SCALE_DTYPE_FP16), 1.25e14 / 9e11, 1e-12,
                  "FLOP/B", "hand");
  expect_error("[chip]\nkind = gpu\ndisplay_name = X\nfp8_flops_per_s = 1e14\nhbm_bytes = 1e10\n"
               "hbm_bytes_per_s = 1e12\n",
               SCALE_ERR_MISSING_KEY, 0, "bf16_flops_per_s or fp16_flops_per_s");
}
END_TEST

/* The smallest valid GPU (6 lines): a range case appends "[section]\nkey = value" (lines 7, 8). */
#define MIN_GPU                                                                                    \
  "[chip]\nkind = gpu\ndisplay_name = X\nbf16_flops_per_s = 1e14\nhbm_bytes = 1e10\n"              \
  "hbm_bytes_per_s = 1e12\n"

START_TEST(level_gaps_and_pairs) {
  expect_error(MIN_GPU "[network]\nlevel2_fanout = 4\nlevel2_member_bytes_per_s = 1e9\n",
               SCALE_ERR_MISSING_KEY, 0, "without gaps");
  expect_error(MIN_GPU "[network]\nlevel1_fanout = 4\n", SCALE_ERR_MISSING_KEY, 0,
               "level1_member_bytes_per_s");
}
END_TEST

/* Issue 13 section 2: values that parse but break the model downstream (an endless planner
 * loop, inf in every row, a division by zero) are refused at load time with the line, the key
 * and its range. */
START_TEST(implausible_values) {
  static const struct {
    const char *section, *key, *value, *words;
  } cases[] = {
      {"ici", "pod_y", "1e308", "pod_y must be a whole number in [1, 65536], got 1e308"},
      {"ici", "pod_x", "0.5", "pod_x must be a whole number in [1, 65536], got 0.5"},
      {"ici", "pod_z", "0", "pod_z must be a whole number in [1, 65536]"},
      {"ici", "host_x", "2.5", "host_x must be a whole number"},
      {"ici", "wrap_axis_multiple", "0.5", "wrap_axis_multiple must be a whole number"},
      {"ici", "n_axes", "0.5", "n_axes must be a whole number in [1, 3], got 0.5"},
      {"ici", "n_axes", "4", "n_axes must be a whole number in [1, 3]"},
      {"ici", "hop_latency_s", "1e-300", "hop_latency_s must be in [1e-10, 0.1]"},
      {"ici", "link_bytes_per_s", "1e-300", "link_bytes_per_s must be in [1e6, 1e16]"},
      {"system", "n_chips", "0.5", "n_chips must be a whole number in [1, 1e9], got 0.5"},
      {"nvlink", "domain_size", "0.5", "domain_size must be a whole number in [1, 1e6]"},
      {"nvlink", "n_nvswitches", "1.5", "n_nvswitches must be a whole number"},
      {"network", "level1_fanout", "1", "level1_fanout must be a whole number in [2, 1e6], got 1"},
      {"network", "level2_fanout", "2.5", "level2_fanout must be a whole number"},
      {"network", "dcn_bytes_per_s", "1e17", "dcn_bytes_per_s must be in [1e6, 1e16]"},
      {"price", "usd_per_hour", "1e-300", "usd_per_hour must be in [0.001, 1e6], got 1e-300"},
      {"chip", "fp8_flops_per_s", "1e3", "fp8_flops_per_s must be in [1e9, 1e19], got 1e3"},
      {"chip", "fp32_flops_per_s", "1e20", "fp32_flops_per_s must be in [1e9, 1e19]"},
      {"chip", "n_cores", "0.5", "n_cores must be a whole number in [1, 1e6]"},
      {"chip", "clock_hz", "1", "clock_hz must be in [1e6, 1e11]"},
      {"chip", "l2_bytes", "1e-300", "l2_bytes must be in [1000, 1e12]"},
      /* issue 14: the step model's parameters, each inside its plausible range (step.h) */
      {"step", "mm_eta_max", "1.5", "mm_eta_max must be in [0.4, 0.98], got 1.5"},
      {"step", "kernel_s", "1", "kernel_s must be in [1e-7, 5e-5]"},
      {"step_fit", "rows", "0.5", "rows must be a whole number in [1, 1e6]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, MIN_GPU "[%s]\n%s = %s\n", cases[i].section, cases[i].key,
             cases[i].value);
    expect_error(text, SCALE_ERR_RANGE, 8, cases[i].words);
  }
  /* The two required quantities, on their own line (6). */
  expect_error("[chip]\nkind = gpu\ndisplay_name = X\nbf16_flops_per_s = 1e14\nhbm_bytes = 1e10\n"
               "hbm_bytes_per_s = 1e-300\n",
               SCALE_ERR_RANGE, 6, "hbm_bytes_per_s must be in [1e6, 1e16], got 1e-300");
  expect_error("[chip]\nkind = gpu\ndisplay_name = X\nbf16_flops_per_s = 1e14\n"
               "hbm_bytes_per_s = 1e12\nhbm_bytes = 1e16\n",
               SCALE_ERR_RANGE, 6, "hbm_bytes must be in [1e6, 1e15]");
}
END_TEST

/* Issue 14 "calibration is data": a chip file's [step] section (written by scale calibrate)
 * loads into scale_chip.step with its provenance; all of it or none; systems inherit it; the
 * shipped chip files carry one. */
START_TEST(step_section) {
  char text[4096] = MIN_GPU "[step_fit]\nby = scale calibrate\nrows = 150\ngroups = 8\n[step]\n";
  scale_step_params prior = scale_step_params_prior();
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) {
    char line[128];
    snprintf(line, sizeof line, "%s = %.17g\n", scale_step_param_describe(i)->key, prior.v[i]);
    strcat(text, line);
  }
  scale_chip c;
  scale_diag diag;
  ck_assert_msg(scale_chip_load_file(fixture("step.ini", text), &c, &diag) == SCALE_OK, "%s",
                diag.message);
  ck_assert(c.has_step);
  ck_assert_str_eq(c.step_fit_by, "scale calibrate");
  scale_check_rel(c.step_fit_rows, 150, 0, "rows", "[step_fit] rows");
  scale_step_params got;
  ck_assert_int_eq(scale_step_params_of_chip(&c, &got), SCALE_OK);
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) ck_assert(got.v[i] == prior.v[i]);
  /* none: loads, has_step false, of_chip refuses */
  ck_assert_int_eq(scale_chip_load_file(fixture("none.ini", MIN_GPU), &c, &diag), SCALE_OK);
  ck_assert(!c.has_step && isnan(c.step[0]));
  ck_assert_int_eq(scale_step_params_of_chip(&c, &got), SCALE_ERR_MISSING_KEY);
  /* some: refused, naming the first missing key */
  expect_error(MIN_GPU "[step]\nmm_eta_max = 0.8\n", SCALE_ERR_MISSING_KEY, 0, "mm_dim_half");
  expect_error(MIN_GPU "[step]\nbogus = 1\n", SCALE_ERR_UNKNOWN_KEY, 8, "bogus");
  /* shipped: every chip file carries the fit; a system inherits its base's */
  const char *names[] = {"nvidia-h100-sxm", "tpu-v5p", "ascend-910b", "dgx-h100"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ck_assert_msg(scale_chip_load(names[i], &c, &diag) == SCALE_OK, "%s", diag.message);
    ck_assert_msg(c.has_step, "%s has no [step]", names[i]);
    ck_assert_str_eq(c.step_fit_by, "scale calibrate");
  }
}
END_TEST

/* The ranges are generous: a plausible Huawei Ascend 910B (fp16 3.13e14 FLOP/s, HBM 1.6e12 B/s,
 * 64 GiB; vendor figures) and the extremes of every range load. */
START_TEST(plausible_values_load) {
  scale_chip chip;
  scale_diag diag;
  const char *path = fixture("ascend.ini", "[chip]\nkind = gpu\ndisplay_name = Ascend 910B\n"
                                           "fp16_flops_per_s = 3.13e14\nint8_flops_per_s = 6.4e14\n"
                                           "hbm_bytes = 68719476736\nhbm_bytes_per_s = 1.6e12\n"
                                           "n_cores = 24\n[nvlink]\nmesh_link_bytes_per_s = 8e9\n"
                                           "domain_size = 8\n[price]\nusd_per_hour = 0.001\n"
                                           "[system]\nn_chips = 1e9\n");
  ck_assert_msg(scale_chip_load_file(path, &chip, &diag) == SCALE_OK, "%s:%d: %s", diag.file,
                diag.line, diag.message);
  scale_check_rel(chip.flops_per_s[SCALE_DTYPE_FP16], 3.13e14, 0, "FLOP/s", "fixture");
  path = fixture("edges.ini", MIN_GPU "[ici]\npod_x = 65536\npod_y = 1\nn_axes = 3\n"
                                      "hop_latency_s = 1e-10\n[network]\nlevel1_fanout = 2\n"
                                      "level1_member_bytes_per_s = 1e16\n");
  ck_assert_msg(scale_chip_load_file(path, &chip, &diag) == SCALE_OK, "%s:%d: %s", diag.file,
                diag.line, diag.message);
}
END_TEST

/* A file saved by a Windows editor (UTF-8 byte-order mark, CRLF line ends) loads exactly like
 * the plain file: accepted on purpose, since hardware files are hand-edited everywhere. */
START_TEST(bom_and_crlf_load_identically) {
  static const char bom[] = "\xEF\xBB\xBF";
  char crlf[2048];
  size_t n = 0;
  n += (size_t)snprintf(crlf, sizeof crlf, "%s", bom);
  for (const char *p = GOOD_CHIP; *p && n + 2 < sizeof crlf; p++) {
    if (*p == '\n') crlf[n++] = '\r';
    crlf[n++] = *p;
  }
  crlf[n] = '\0';
  ck_assert_ptr_nonnull(strstr(crlf, "hbm_bytes = 1.6e10\r\n"));
  scale_chip plain, windows;
  memset(&plain, 0, sizeof plain);
  memset(&windows, 0, sizeof windows);
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load_file(fixture("test-tpu.ini", GOOD_CHIP), &plain, &diag),
                   SCALE_OK);
  scale_status st = scale_chip_load_file(fixture("test-tpu.ini", crlf), &windows, &diag);
  ck_assert_msg(st == SCALE_OK, "%s:%d: %s", diag.file, diag.line, diag.message);
  ck_assert_str_eq(windows.display_name, "Test TPU"); /* no '\r' kept at the end of a string */
  ck_assert_int_eq(windows.kind, SCALE_HW_TPU);       /* the BOM is not part of the first line */
  ck_assert_msg(memcmp(&plain, &windows, sizeof plain) == 0, "records differ");
  /* A fault in a CRLF file still names its line. */
  snprintf(crlf + n, sizeof crlf - n, "[ici]\r\npod_z = 0.5\r\n");
  expect_error(crlf, SCALE_ERR_RANGE, 17, "pod_z must be a whole number");
}
END_TEST

START_TEST(binary_and_long_lines) {
  char text[1024];
  snprintf(text, sizeof text, "%s[price]\nusd_per_hour = 1%c2\n", GOOD_CHIP, 1);
  expect_error(text, SCALE_ERR_PARSE, 17, "binary");
  /* A NUL byte: written by hand since fputs stops at it. */
  const char *path = fixture("bad.ini", "");
  FILE *f = fopen(path, "wb");
  fwrite("[chip]\n\0\x01\x02garbage", 1, 17, f);
  fclose(f);
  scale_chip chip;
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load_file(path, &chip, &diag), SCALE_ERR_PARSE);
  ck_assert_int_eq(diag.line, 2);
  char longline[600];
  memset(longline, 'x', sizeof longline);
  memcpy(longline, "; ", 2);
  longline[sizeof longline - 1] = '\0';
  snprintf(text, sizeof text, "[chip]\n%s\n", longline);
  expect_error(text, SCALE_ERR_PARSE, 2, "longer than");
}
END_TEST

START_TEST(missing_file_and_names) {
  scale_chip chip;
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load_file("/nonexistent/x.ini", &chip, &diag), SCALE_ERR_IO);
  ck_assert_int_eq(scale_chip_load("no-such-chip-xyz", &chip, &diag), SCALE_ERR_NOT_FOUND);
  ck_assert_int_eq(scale_chip_load("", &chip, &diag), SCALE_ERR_INVALID);
  char path[256];
  ck_assert_int_eq(scale_data_resolve("hardware", "x/y.ini", path, sizeof path, &diag),
                   SCALE_ERR_NOT_FOUND);
}
END_TEST

START_TEST(data_dir_and_list) {
  /* SCALE_DATA_DIR points at a fixture tree: resolution and listing follow it. */
  char sub[128];
  snprintf(sub, sizeof sub, "%s/hardware", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  fixture("hardware/zeta.ini", GOOD_CHIP);
  fixture("hardware/alpha.ini", GOOD_CHIP);
  fixture("hardware/notes.txt", "not a hardware file");
  ck_assert_int_eq(setenv("SCALE_DATA_DIR", dir, 1), 0);
  ck_assert_str_eq(scale_data_dir(), dir);
  char names[4][SCALE_NAME_MAX];
  ck_assert_int_eq(scale_data_list("hardware", names, 4), 2);
  ck_assert_str_eq(names[0], "alpha"); /* sorted */
  ck_assert_str_eq(names[1], "zeta");
  ck_assert_int_eq(scale_data_list("hardware", names, 1), 2); /* count beyond cap */
  ck_assert_int_eq(scale_data_list("no-such-folder", names, 4), -1);
  scale_chip chip;
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load("zeta", &chip, &diag), SCALE_OK);
  ck_assert_str_eq(chip.name, "zeta");
}
END_TEST

static Suite *hardware_suite(void) {
  Suite *s = suite_create("hardware");
  TCase *tc = tcase_create("loader");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, loads_good_file);
  tcase_add_test(tc, system_inherits_base);
  tcase_add_test(tc, bad_base);
  tcase_add_test(tc, malformed_files);
  tcase_add_test(tc, level_gaps_and_pairs);
  tcase_add_test(tc, implausible_values);
  tcase_add_test(tc, step_section);
  tcase_add_test(tc, plausible_values_load);
  tcase_add_test(tc, bom_and_crlf_load_identically);
  tcase_add_test(tc, sixteen_bit_rate_required);
  tcase_add_test(tc, binary_and_long_lines);
  tcase_add_test(tc, missing_file_and_names);
  tcase_add_test(tc, data_dir_and_list);
  suite_add_tcase(s, tc);
  TCase *derived = tcase_create("ici_latency_bytes"); /* the data folder's chips, no fixture */
  tcase_add_test(derived, ici_latency_bytes);
  suite_add_tcase(s, derived);
  return s;
}

int main(void) { return scale_check_run(hardware_suite()); }
