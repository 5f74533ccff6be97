/* fuzz_ini_hardware.c — fuzz target: the strict INI loader of hardware files
 * (scale_chip_load_file, src/inifile.c + src/hardware.c), and what is computed from a loaded
 * record (critical intensities, pod size, collectives on the chip's groups, GPU fat tree).
 *
 * Input: the bytes of a hardware file. The loader takes a path, so the input is written to
 * TMP/fuzz-input.ini, beside copies of the shipped hardware files (so that `base = STEM`
 * resolves, to a real chip or to the input itself).
 * Invariants: a failure is a status of status.h with a one-line diagnostic; a loaded record
 * holds finite positive rates and capacities, whole counts >= 1 where the file gave them, and
 * every derived quantity is NaN (unknown) or finite and >= 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"

#ifndef FUZZ_SOURCE_DIR
#error "FUZZ_SOURCE_DIR must name the source tree (fuzz/CMakeLists.txt defines it)"
#endif

static char input_path[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  fuzz_tmpdir(dir, sizeof dir);
  fuzz_copy_tree(FUZZ_SOURCE_DIR "/hardware", dir, ".ini", 0);
  snprintf(input_path, sizeof input_path, "%s/fuzz-input.ini", dir);
  return 0;
}

/* Unknown (NaN) or finite and > 0. */
static void positive_or_unknown(const char *what, double v) {
  if (!isnan(v) && !(isfinite(v) && v > 0)) fuzz_fail("chip: %s = %g", what, v);
}

/* Unknown (NaN) or a whole number >= 1. */
static void count_or_unknown(const char *what, double v) {
  if (!isnan(v) && !(isfinite(v) && v >= 1 && v == floor(v))) fuzz_fail("chip: %s = %g", what, v);
}

/* A derived quantity: NaN or finite >= 0. */
static void derived(const char *what, double v) {
  if (!isnan(v) && !(isfinite(v) && v >= 0)) fuzz_fail("chip: derived %s = %g", what, v);
}

static void check_chip(const scale_chip *c) {
  if (!memchr(c->name, 0, sizeof c->name) || !memchr(c->display_name, 0, sizeof c->display_name) ||
      !memchr(c->base, 0, sizeof c->base))
    fuzz_fail("chip: unterminated name");
  if (c->kind != SCALE_HW_TPU && c->kind != SCALE_HW_GPU) fuzz_fail("chip: kind %d", c->kind);
  int any_rate = 0;
  for (int t = 0; t < SCALE_DTYPE_COUNT; t++) {
    positive_or_unknown("flops_per_s", c->flops_per_s[t]);
    any_rate |= c->flops_per_s[t] > 0;
  }
  if (!any_rate) fuzz_fail("chip: no FLOP/s at all");
  positive_or_unknown("vector_flops_per_s", c->vector_flops_per_s);
  positive_or_unknown("clock_hz", c->clock_hz);
  count_or_unknown("n_cores", c->n_cores);
  count_or_unknown("n_matmul_units", c->n_matmul_units);
  positive_or_unknown("hbm_bytes", c->hbm_bytes);
  positive_or_unknown("hbm_bytes_per_s", c->hbm_bytes_per_s);
  positive_or_unknown("ici_link_bytes_per_s", c->ici_link_bytes_per_s);
  count_or_unknown("ici_n_axes", c->ici_n_axes);
  for (int i = 0; i < 3; i++) {
    count_or_unknown("pod_shape", c->pod_shape[i]);
    count_or_unknown("host_shape", c->host_shape[i]);
  }
  positive_or_unknown("nvlink_bytes_per_s", c->nvlink_bytes_per_s);
  count_or_unknown("nvlink_domain_size", c->nvlink_domain_size);
  positive_or_unknown("pcie_bytes_per_s", c->pcie_bytes_per_s);
  positive_or_unknown("dcn_bytes_per_s", c->dcn_bytes_per_s);
  positive_or_unknown("usd_per_hour", c->usd_per_hour);
  count_or_unknown("n_chips", c->n_chips);
  if (c->n_net_levels < 0 || c->n_net_levels > SCALE_NET_LEVELS_MAX)
    fuzz_fail("chip: %d network levels", c->n_net_levels);
  for (int i = 0; i < c->n_net_levels; i++) {
    count_or_unknown("net level fanout", c->net_levels[i].fanout);
    positive_or_unknown("net level member_bytes_per_s", c->net_levels[i].member_bytes_per_s);
  }

  for (int t = 0; t < SCALE_DTYPE_COUNT; t++) {
    derived("hbm_intensity", scale_chip_hbm_intensity(c, (scale_dtype)t));
    derived("ici_intensity", scale_chip_ici_intensity(c, (scale_dtype)t));
    derived("dcn_intensity", scale_chip_dcn_intensity(c, (scale_dtype)t));
    derived("nvlink_intensity", scale_chip_nvlink_intensity(c, (scale_dtype)t));
  }
  double pod = scale_chip_pod_chips(c);
  count_or_unknown("pod chips", pod);
  /* Collectives over a few groups the chip can hold (ch. 3, 12). */
  static const double sizes[][3] = {{2, 1, 1}, {4, 4, 1}, {8, 1, 1}, {4, 4, 4}, {72, 1, 1}};
  for (size_t g = 0; g < sizeof sizes / sizeof sizes[0]; g++)
    for (int n_axes = 1; n_axes <= 3; n_axes++) {
      scale_group group;
      scale_diag diag;
      memset(&diag, 0, sizeof diag);
      if (scale_group_from_chip(c, sizes[g], n_axes, SCALE_WRAP_AUTO, &group, &diag)) {
        fuzz_check_diag(&diag, "scale_group_from_chip");
        continue;
      }
      for (int op = 0; op < SCALE_COLL_COUNT; op++) {
        scale_collective_cost cost = scale_collective_eval(&group, (scale_collective)op, 1e9);
        derived("collective time_s", cost.time_s);
        derived("collective book_time_s", cost.book_time_s);
      }
    }
  if (c->kind == SCALE_HW_GPU) {
    derived("node bytes/s", scale_gpu_node_bytes_per_s(c));
    for (int level = 0; level < c->n_net_levels; level++) {
      derived("level gpus", scale_gpu_level_gpus(c, level));
      derived("level allgather bytes/s", scale_gpu_level_allgather_bytes_per_s(c, level));
    }
    for (double n = 2; n <= 1e6; n *= 8)
      derived("allgather bytes/s", scale_gpu_allgather_bytes_per_s(c, n));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  fuzz_write_file(input_path, data, size);
  scale_chip chip;
  memset(&chip, 0, sizeof chip);
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_chip_load_file(input_path, &chip, &diag);
  if (st != SCALE_OK) {
    if ((int)st < 0 || st >= SCALE_STATUS_COUNT) fuzz_fail("load: status %d", (int)st);
    fuzz_check_diag(&diag, "scale_chip_load_file");
    if (diag.line < 0) fuzz_fail("load: line %d", diag.line);
    return 0;
  }
  check_chip(&chip);
  return 0;
}
