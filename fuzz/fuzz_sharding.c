/* fuzz_sharding.c — fuzz target: the mesh and sharding notation of sharding.h, and what is
 * computed from a parsed sharding (shards, replication, bytes, sharded-matmul plans).
 *
 * Input: lines "MESH\nA\nB\nSIZES": a mesh ("{X:8, Y:2}"), two shardings ("A[I_X, J]",
 * "B[J, K_Y]{U_Z}"); the bytes of SIZES give each dimension name its size, 2^(byte % 48),
 * looked up by the name's first character (so A and B agree on a shared dimension); its first
 * byte also picks the dtype, the chip (none, TPU v5p, H100) and the wraparound rule.
 * Invariants: parsed records are well-formed (axes in range, used once, unreduced axes apart
 * from sharding ones); every count is finite and whole, shards divide the devices; bytes and
 * FLOPs are finite and non-negative; a plan has a case 1-4 with 0-2 steps over axes of the
 * mesh; diagnostics are one line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"

/* fuzz_check_diag(), and no control character at all: sharding.c escapes what it quotes. */
static void check_diag(const scale_diag *diag, const char *what) {
  fuzz_check_diag(diag, what);
  if (fuzz_has_control(diag->message, strlen(diag->message), NULL))
    fuzz_fail("%s: control character in \"%s\"", what, diag->message);
}

#ifndef FUZZ_SOURCE_DIR
#error "FUZZ_SOURCE_DIR must name the source tree (fuzz/CMakeLists.txt defines it)"
#endif

static scale_chip chips[2];
static int n_chips;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  static const char *const names[] = {"tpu-v5p", "nvidia-h100-sxm"};
  for (int i = 0; i < 2; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hardware/%s.ini", FUZZ_SOURCE_DIR, names[i]);
    if (scale_chip_load_file(path, &chips[n_chips], NULL) == SCALE_OK) n_chips++;
  }
  return 0;
}

static int is_whole(double x) { return isfinite(x) && x >= 1 && x == floor(x); }

static void check_mesh(const scale_mesh *m) {
  if (m->n_axes < 1 || m->n_axes > SCALE_MESH_AXES_MAX) fuzz_fail("mesh: %d axes", m->n_axes);
  for (int i = 0; i < m->n_axes; i++) {
    if (!is_whole(m->size[i])) fuzz_fail("mesh: axis %d size %g", i, m->size[i]);
    for (int j = 0; j < i; j++)
      if (m->name[i] == m->name[j]) fuzz_fail("mesh: axis '%c' twice", m->name[i]);
  }
  if (!is_whole(scale_sharding_mesh_devices(m)))
    fuzz_fail("mesh: %g devices", scale_sharding_mesh_devices(m));
}

static void check_sharding(const scale_sharding *s, const scale_mesh *m, const double *dims) {
  if (s->n_dims < 1 || s->n_dims > SCALE_SHARD_DIMS_MAX) fuzz_fail("sharding: %d dims", s->n_dims);
  if (!memchr(s->array, 0, sizeof s->array)) fuzz_fail("sharding: array name unterminated");
  unsigned used = 0;
  for (int d = 0; d < s->n_dims; d++) {
    if (!memchr(s->dim[d], 0, sizeof s->dim[d]) || !s->dim[d][0])
      fuzz_fail("sharding: dim %d name empty or unterminated", d);
    if (s->n_dim_axes[d] < 0 || s->n_dim_axes[d] > m->n_axes)
      fuzz_fail("sharding: dim %d has %d axes", d, s->n_dim_axes[d]);
    for (int k = 0; k < s->n_dim_axes[d]; k++) {
      int a = s->dim_axes[d][k];
      if (a < 0 || a >= m->n_axes) fuzz_fail("sharding: axis index %d", a);
      if (used & (1u << a)) fuzz_fail("sharding: axis %d used twice", a);
      used |= 1u << a;
    }
  }
  if (s->unreduced_mask >> m->n_axes) fuzz_fail("sharding: unreduced mask %#x", s->unreduced_mask);
  if (s->unreduced_mask & used) fuzz_fail("sharding: an axis shards and is unreduced");
  if (scale_sharding_axes_mask(s) != used) fuzz_fail("sharding: axes mask disagrees");
  double devices = scale_sharding_mesh_devices(m), shards = scale_sharding_n_shards(s, m);
  double repl = scale_sharding_replication(s, m);
  if (!is_whole(shards) || !is_whole(repl) || shards * repl != devices)
    fuzz_fail("sharding: %g shards x %g copies != %g devices", shards, repl, devices);
  for (int t = 0; t < SCALE_DTYPE_COUNT; t++) {
    double b = scale_sharding_bytes_per_device(s, m, dims, (scale_dtype)t);
    double total = scale_sharding_total_bytes(s, m, dims, (scale_dtype)t);
    if (!(b >= 0) || !isfinite(b) || !(total >= 0) || !isfinite(total))
      fuzz_fail("sharding: %g bytes per device, %g in total", b, total);
  }
  if (!isnan(scale_sharding_local_dim(s, m, dims, s->n_dims)) ||
      !isnan(scale_sharding_local_dim(s, m, dims, -1)))
    fuzz_fail("sharding: local_dim out of range is not NaN");
}

static void check_plan(const scale_sharded_matmul *p, const scale_mesh *m, int with_chip) {
  if (p->kind < SCALE_SHARDED_CASE_1 || p->kind > SCALE_SHARDED_CASE_4)
    fuzz_fail("plan: case %d", (int)p->kind);
  if (p->n_steps < 0 || p->n_steps > SCALE_SHARDED_STEPS_MAX)
    fuzz_fail("plan: %d steps", p->n_steps);
  if ((p->kind == SCALE_SHARDED_CASE_1) != (p->n_steps == 0))
    fuzz_fail("plan: case %d with %d steps", (int)p->kind, p->n_steps);
  for (int i = 0; i < p->n_steps; i++) {
    const scale_sharded_step *st = &p->step[i];
    if (st->op != SCALE_COLL_ALL_GATHER && st->op != SCALE_COLL_ALL_REDUCE)
      fuzz_fail("plan: step %d op %d", i, (int)st->op);
    if (!st->axes_mask || st->axes_mask >> m->n_axes)
      fuzz_fail("plan: step %d axes %#x", i, st->axes_mask);
    if (st->operand < 0 || st->operand > 2) fuzz_fail("plan: step %d operand %d", i, st->operand);
    if (!(st->bytes >= 0) || !isfinite(st->bytes)) fuzz_fail("plan: step %d bytes %g", i, st->bytes);
    if (with_chip && !(st->cost.time_s >= 0)) fuzz_fail("plan: step %d time %g", i, st->cost.time_s);
  }
  if (!(p->flops_per_device >= 0) || !isfinite(p->flops_per_device))
    fuzz_fail("plan: %g FLOPs per device", p->flops_per_device);
  if (with_chip && (!(p->comms_time_s >= 0) || !(p->book_comms_time_s >= 0)))
    fuzz_fail("plan: comms %g s, book %g s", p->comms_time_s, p->book_comms_time_s);
}

/* Splits text at '\n' into at most n parts (the last keeps the rest). */
static int split_lines(char *text, char **part, int n) {
  int k = 0;
  part[k++] = text;
  for (char *p = text; *p && k < n; p++)
    if (*p == '\n') {
      *p = '\0';
      part[k++] = p + 1;
    }
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  char *text = fuzz_cstr(data, size);
  char *part[4] = {NULL, NULL, NULL, NULL};
  int n = split_lines(text, part, 4);
  scale_mesh mesh;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_sharding_mesh_parse(part[0], &mesh, &diag);
  if (st) {
    check_diag(&diag, "scale_sharding_mesh_parse");
    free(text);
    return 0;
  }
  check_mesh(&mesh);
  const unsigned char *sizes = n > 3 ? (const unsigned char *)part[3] : (const unsigned char *)"";
  size_t n_sizes = strlen((const char *)sizes);
  unsigned char pick = n_sizes ? sizes[0] : 0;
  scale_sharding s[2];
  double dims[2][SCALE_SHARD_DIMS_MAX];
  int ok = 0;
  for (int i = 0; i < 2 && i + 1 < n; i++) {
    memset(&diag, 0, sizeof diag);
    if (scale_sharding_parse(part[i + 1], &mesh, &s[i], &diag)) {
      check_diag(&diag, "scale_sharding_parse");
      break;
    }
    for (int d = 0; d < s[i].n_dims; d++) {
      unsigned char c = (unsigned char)s[i].dim[d][0];
      dims[i][d] = n_sizes ? ldexp(1.0, sizes[c % n_sizes] % 48) : 4.0;
    }
    check_sharding(&s[i], &mesh, dims[i]);
    ok++;
  }
  if (ok == 2) {
    scale_sharded_matmul plan;
    scale_dtype dtype = (scale_dtype)(pick % SCALE_DTYPE_COUNT);
    int c = (pick / SCALE_DTYPE_COUNT) % 3;
    const scale_chip *chip = c > 0 && c <= n_chips ? &chips[c - 1] : NULL;
    scale_wrap wrap = (scale_wrap)((pick / (SCALE_DTYPE_COUNT * 3)) % 3);
    memset(&diag, 0, sizeof diag);
    st = scale_sharding_matmul_plan(&mesh, &s[0], dims[0], &s[1], dims[1], dtype, chip, wrap,
                                    &plan, &diag);
    if (st == SCALE_OK)
      check_plan(&plan, &mesh, chip != NULL);
    else
      check_diag(&diag, "scale_sharding_matmul_plan");
  }
  free(text);
  return 0;
}
