/* test_hardware_chips.c — the chips of issue 31 and the full-mesh scale-up they brought.
 *
 * Each new file loads and holds its cited figure (the datasheet's dense number, converted by
 * hand in the comment), the switchless full mesh (AMD xGMI, Ascend HCCS, an NVLink bridge pair)
 * loads only when it is consistent, and the collectives price a group on a mesh over the
 * direct links it has: a hand derivation of a full-mesh AllGather.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale.h"
#include "scale_check.h"

typedef struct {
  const char *file;
  double bf16, hbm_bytes_per_s, scaleup_one_way; /* [FLOP/s], [B/s], [B/s] egress per chip */
  const char *source;
} chip_case;

/* Hand conversions of the vendors' figures (sources in each file's header):
 *   tpu7x: 2,307 TFLOP/s bf16; 7.3 TB/s; ICI is not a scale-up domain here (0 = not checked)
 *   nvidia-b300: 36 PF sparse / 2 / 8 = 2.25e15; 8 TB/s; 1.8 TB/s both ways -> 9e11
 *   gb300-nvl72: 360 PF sparse / 2 / 72 = 2.5e15; the B300's 8 TB/s; 130 TB/s / 72 / 2 = 9.03e11,
 *                which NVIDIA rounds from 72 x 1.8 TB/s: 9e11
 *   amd-mi300x: 1,307.4 TFLOP/s; 5.3 TB/s; 7 links x 64 GB/s = 4.48e11
 *   amd-mi325x: 1,307.4 TFLOP/s; 6 TB/s; the same 7 links: 4.48e11
 *   amd-mi355x: 256 CUs x 4096 x 2.4 GHz = 2.5166e15; 8 TB/s; 7 x 76.8 GB/s = 5.376e11
 *   nvidia-h20: 148 TFLOP/s; 4.0 TB/s; 900 GB/s both ways -> 4.5e11
 *   nvidia-a100-40gb: 312 TFLOP/s; 1,555 GB/s; 600 GB/s both ways -> 3e11
 *   nvidia-h100-nvl: 1,671 sparse / 2 = 835.5 TFLOP/s; 3.9 TB/s; one bridge link 3e11 */
static const chip_case cases[] = {
    {"tpu7x", 2.307e15, 7.3e12, 0, "TPU7x docs table"},
    {"nvidia-b300", 2.25e15, 8e12, 9e11, "HGX B300 / 8"},
    {"gb300-nvl72", 2.5e15, 8e12, 9e11, "GB300 NVL72 / 72"},
    {"amd-mi300x", 1.3074e15, 5.3e12, 4.48e11, "MI300X data sheet"},
    {"amd-mi325x", 1.3074e15, 6e12, 4.48e11, "MI325X data sheet"},
    {"amd-mi355x", 2.5166e15, 8e12, 5.376e11, "MI355X data sheet"},
    {"nvidia-h20", 1.48e14, 4e12, 4.5e11, "H20 partner table"},
    {"nvidia-a100-40gb", 3.12e14, 1.555e12, 3e11, "A100 40GB SXM"},
    {"nvidia-h100-nvl", 8.355e14, 3.9e12, 3e11, "H100 NVL column"},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

START_TEST(new_chips_hold_their_figures) {
  for (int i = 0; i < N_CASES; i++) {
    scale_chip c = scale_check_chip(cases[i].file);
    scale_check_rel(scale_chip_flops_per_s(&c, SCALE_DTYPE_BF16), cases[i].bf16, 1e-4, "FLOP/s",
                    cases[i].source);
    scale_check_rel(c.hbm_bytes_per_s, cases[i].hbm_bytes_per_s, 1e-4, "B/s", cases[i].source);
    if (cases[i].scaleup_one_way > 0)
      scale_check_rel(c.nvlink_bytes_per_s, cases[i].scaleup_one_way, 1e-4, "B/s",
                      cases[i].source);
    ck_assert_msg(c.has_step, "%s has no [step]: run scale calibrate", cases[i].file);
  }
  /* fp8 is twice bf16 on every new part that has it (the vendors' own 2x; NVIDIA rounds the
   * H100 NVL's to 1,671 and 3,341 sparse, 0.03% off exactly twice) */
  const char *fp8[] = {"tpu7x", "nvidia-b300", "amd-mi300x", "amd-mi355x", "nvidia-h20",
                       "nvidia-h100-nvl"};
  for (int i = 0; i < (int)(sizeof fp8 / sizeof fp8[0]); i++) {
    scale_chip c = scale_check_chip(fp8[i]);
    scale_check_rel(scale_chip_flops_per_s(&c, SCALE_DTYPE_FP8),
                    2 * scale_chip_flops_per_s(&c, SCALE_DTYPE_BF16), 1e-3, "FLOP/s", fp8[i]);
  }
  /* the rack inherits the B300's memory: 288 GB */
  scale_check_rel(scale_check_chip("gb300-nvl72").hbm_bytes, 2.88e11, 0, "B", "B300 288 GB");
  /* TPU7x: 192 GiB = 192 x 2^30 */
  scale_check_rel(scale_check_chip("tpu7x").hbm_bytes, 206158430208.0, 0, "B", "192 GiB");
}
END_TEST

START_TEST(meshes_are_meshes) {
  scale_chip mi = scale_check_chip("amd-mi300x");
  ck_assert(scale_chip_scaleup_is_mesh(&mi));
  ck_assert_str_eq(mi.scaleup_fabric, "xgmi");
  ck_assert_str_eq(mi.scaleout_fabric, "roce");
  /* a group of 4 reaches its 3 peers over 3 links of 6.4e10 */
  scale_check_rel(scale_chip_scaleup_bytes_per_s(&mi, 4), 1.92e11, 1e-12, "B/s", "3 x 64 GB/s");
  ck_assert(isnan(scale_chip_scaleup_bytes_per_s(&mi, 9)));
  scale_chip hcs = scale_check_chip("ascend-910b");
  ck_assert(scale_chip_scaleup_is_mesh(&hcs));
  scale_check_rel(hcs.nvlink_bytes_per_s, 1.96e11, 1e-12, "B/s", "7 x 28 GB/s, as before");
  scale_chip nvl = scale_check_chip("nvidia-h100-nvl");
  ck_assert(scale_chip_scaleup_is_mesh(&nvl));
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  ck_assert(!scale_chip_scaleup_is_mesh(&h100));
  /* through switches a group of any size sees the GPU's whole egress */
  scale_check_rel(scale_chip_scaleup_bytes_per_s(&h100, 4), 4.5e11, 0, "B/s", "NVSwitch");
}
END_TEST

/* A full-mesh AllGather of B bytes over n GPUs: each sends its B/n shard down each of its n - 1
 * direct links at once, so it takes B / (n x link). MI300X, 1 GB: n = 8, 1e9 / (8 x 6.4e10) =
 * 1.953 ms; n = 4, 1e9 / (4 x 6.4e10) = 3.906 ms (half the links, a quarter of the peers). */
START_TEST(mesh_allgather_by_hand) {
  scale_chip mi = scale_check_chip("amd-mi300x");
  double sizes[2][1] = {{8}, {4}};
  double expect[2] = {1e9 / (8 * 6.4e10), 1e9 / (4 * 6.4e10)};
  for (int i = 0; i < 2; i++) {
    scale_group g;
    scale_diag diag;
    ck_assert_msg(scale_group_from_chip(&mi, sizes[i], 1, SCALE_WRAP_AUTO, &g, &diag) == SCALE_OK,
                  "%s", diag.message);
    scale_check_rel(scale_collective_time_s(&g, SCALE_COLL_ALL_GATHER, 1e9), expect[i], 1e-9, "s",
                    "B / (n x link)");
  }
}
END_TEST

static char dir[64];

static scale_status load_text(const char *text, scale_diag *diag) {
  char path[128];
  snprintf(path, sizeof path, "%s/x.ini", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  scale_chip chip;
  memset(diag, 0, sizeof *diag);
  return scale_chip_load_file(path, &chip, diag);
}

#define GPU "[chip]\nkind = gpu\ndisplay_name = G\nbf16_flops_per_s = 1e15\nhbm_bytes = 1e11\n" \
            "hbm_bytes_per_s = 5e12\n[nvlink]\n"

static void setup(void) { scale_check_tmpdir(dir, sizeof dir, "/tmp/scale-test-chips-XXXXXX"); }
static void teardown(void) { scale_check_rmdir(dir); }

START_TEST(mesh_rules_refuse_inconsistent_files) {
  setup();
  struct {
    const char *text, *words;
  } bad[] = {
      {GPU "domain_size = 8\nmesh_link_bytes_per_s = 6.4e10\nn_nvswitches = 2\n", "switchless"},
      {GPU "mesh_link_bytes_per_s = 6.4e10\n", "domain_size >= 2"},
      {GPU "domain_size = 8\nmesh_link_bytes_per_s = 6.4e10\nbytes_per_s = 4.5e11\n", "must equal"},
      {GPU "domain_size = 8\nbytes_per_s = 4.5e11\n", "n_nvswitches (switched) or"},
      {GPU "domain_size = 8\nn_nvswitches = 4\nfabric = nvswitch\n", "fabric must be"},
      {GPU "domain_size = 8\nn_nvswitches = 4\n[network]\nfabric = ethernet\n", "fabric must be"},
  };
  for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
    scale_diag diag;
    ck_assert_msg(load_text(bad[i].text, &diag) != SCALE_OK, "case %d loaded", i);
    ck_assert_msg(strstr(diag.message, bad[i].words), "case %d: '%s' lacks '%s'", i, diag.message,
                  bad[i].words);
    ck_assert_ptr_null(strchr(diag.message, '\n'));
  }
  scale_diag diag;
  ck_assert_msg(load_text(GPU "domain_size = 8\nmesh_link_bytes_per_s = 6.4e10\n"
                              "bytes_per_s = 4.48e11\nfabric = xgmi\n",
                          &diag) == SCALE_OK,
                "%s", diag.message);
  teardown();
}
END_TEST

static Suite *chips_suite(void) {
  Suite *s = suite_create("hardware_chips");
  const scale_check_case tests[] = {
      {"new_chips_hold_their_figures", new_chips_hold_their_figures},
      {"meshes_are_meshes", meshes_are_meshes},
      {"mesh_allgather_by_hand", mesh_allgather_by_hand},
      {"mesh_rules_refuse_inconsistent_files", mesh_rules_refuse_inconsistent_files}};
  scale_check_add_cases(s, tests, sizeof tests / sizeof tests[0]);
  return s;
}

int main(void) { return scale_check_run(chips_suite()); }
