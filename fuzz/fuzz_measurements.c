/* fuzz_measurements.c — fuzz target: the strict TSV loaders of measurements/ (include/scale/
 * measurements.h): published training runs, memory observations and kernels timed alone.
 *
 * Input: a selector byte (its value mod 3: training rows, memory rows, kernel rows), then the
 * bytes of a file, written to TMP/nvidia-h200.fuzz.tsv (the kernel loader takes the chip from
 * the file name).
 * Invariants: a failure is a status of status.h with a one-line diagnostic and a line >= 0; a
 * load appends at most the capacity; every loaded row has finite values inside the loader's
 * documented ranges (positive degrees whose product is the chips; a kernel's flops 2 m n k
 * batch, its time in (0, 10] s).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"
#include "scale/measurements.h"

enum { CAP = 64 };
static char input_path[1024];
static scale_measurement runs[CAP];
static scale_measurement_memory memory[CAP];
static scale_measurement_kernel kernels[CAP];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  fuzz_tmpdir(dir, sizeof dir);
  snprintf(input_path, sizeof input_path, "%s/nvidia-h200.fuzz.tsv", dir);
  return 0;
}

static void check_run(const scale_measurement *r) {
  if (!(r->chips >= 1 && r->dp >= 1 && r->tp >= 1 && r->pp >= 1 && r->cp >= 1))
    fuzz_fail("run %s: degrees %g %g %g %g of %g chips", r->id, r->dp, r->tp, r->pp, r->cp,
              r->chips);
  if (r->dp * r->tp * r->pp * r->cp != r->chips) fuzz_fail("run %s: degrees not chips", r->id);
}

static void check_kernel(const scale_measurement_kernel *k) {
  double flops = 2 * k->m * k->n * k->k * k->batch;
  if (!(isfinite(flops) && flops > 0 && k->bytes > 0 && k->seconds > 0 && k->seconds <= 10))
    fuzz_fail("kernel line %d: flops %g bytes %g seconds %g", k->line, flops, k->bytes,
              k->seconds);
  if (strcmp(k->hardware, "nvidia-h200") != 0) fuzz_fail("kernel chip '%s'", k->hardware);
}

static scale_status load(int which, int *n, scale_diag *diag) {
  if (which == 0) return scale_measurements_load_file(input_path, runs, CAP, n, diag);
  if (which == 1) return scale_measurements_memory_load(input_path, memory, CAP, n, diag);
  return scale_measurements_kernels_load(input_path, kernels, CAP, n, diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  if (size < 1) return 0;
  int which = data[0] % 3;
  fuzz_write_file(input_path, data + 1, size - 1);
  int n = 0;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = load(which, &n, &diag);
  if (n < 0 || n > CAP) fuzz_fail("load %d: %d rows", which, n);
  if (st != SCALE_OK) {
    if ((int)st < 0 || st >= SCALE_STATUS_COUNT) fuzz_fail("load: status %d", (int)st);
    fuzz_check_diag(&diag, "measurements loader");
    if (diag.line < 0) fuzz_fail("load: line %d", diag.line);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    if (which == 0) check_run(&runs[i]);
    if (which == 1) check_run(&memory[i].run);
    if (which == 2) check_kernel(&kernels[i]);
  }
  return 0;
}
