/* mesh.c — `scale-mesh`: the book's sharded programs executed across MPI ranks (chapter 10).
 *
 *   mpirun -n P scale-mesh [--mesh "{X:2, Y:2}"] [--run WHAT] [--matmul "A[I_X, J] . B[J, K_Y]"]
 *                          [--dims I,J,K] [--bytes V] [--reps N] [--trace FILE] [--tsv FILE]
 *
 * P ranks form the logical mesh (default: P along X, or {X:2, Y:P/2} for P >= 4 even); each
 * holds its shards of every array, generated from the global index so that no rank ever holds
 * an unsharded array it should not. What runs (--run, default all):
 *   collectives   AllGather, ReduceScatter, AllReduce and AllToAll of a V-byte array over each
 *                 mesh axis and over the whole mesh: checked bitwise (integer-valued data, so
 *                 every order of summation gives the same sum), bytes sent per rank checked
 *                 against chapter 3's ring formulas exactly, timed;
 *   matmul        the four cases of chapter 3 (or --matmul): the library plans the collectives
 *                 (scale_sharding_matmul_plan), the ranks execute them and the local matmul,
 *                 and each rank compares its block of C with an unsharded reference computed in
 *                 the same order (bitwise where the contraction runs whole on one rank; to
 *                 1e-12 of the sum of magnitudes where partial sums are reduced, case 3);
 *   cmatmul       collective matmul on the last mesh axis: A[I, J_Y] . B[J, K_Y], the
 *                 AllGather of A decomposed into ring steps overlapped with partial matmuls,
 *                 against AllGather-then-matmul; the overlap gain is measured;
 *   sweep         AllGather over the whole mesh at sizes from 8 bytes per rank to 1 MiB, for
 *                 the latency-bandwidth (alpha-beta) fit of chapter 10.
 * Rank 0 prints one line per result and writes --tsv (machine-readable rows) and --trace (a
 * Chrome trace-event JSON of every phase on every rank: ui.perfetto.dev opens it).
 *
 * Exit status: 0 when every check passed, 1 when one failed (each failure one line on stderr),
 * 2 for a usage error (one line from rank 0).
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

/* ==== options ===================================================================================== */

typedef struct {
  char mesh[128];
  char run[32];
  char matmul[160];
  double dims[3]; /* I, J, K */
  double bytes;   /* V of the collectives */
  bool dims_given, bytes_given;
  int reps;
  const char *trace;
  const char *tsv;
} options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: mpirun -n P scale-mesh [options]\n\n"
          "Executes the book's sharded matmuls and collectives across MPI ranks on a logical\n"
          "mesh, checks them against an unsharded reference and chapter 3's byte counts, and\n"
          "times every phase.\n\n"
          "  --mesh M        mesh, e.g. \"{X:2, Y:2}\" (product = P; default P or {X:2, Y:P/2})\n"
          "  --run WHAT      all (default), collectives, matmul, cmatmul, sweep\n"
          "  --matmul S      one sharded matmul, e.g. \"A[I_X, J] . B[J, K_Y]\" (default: the\n"
          "                  four cases of chapter 3)\n"
          "  --dims I,J,K    global sizes of A[I, J] and B[J, K] (default: the multiple of P\n"
          "                  nearest 256 for each)\n"
          "  --bytes V       bytes of the collectives' array (default: the multiple of 8 P^2\n"
          "                  at most 1 MiB)\n"
          "  --reps N        timed repetitions, best kept (default 3)\n"
          "  --trace FILE    write a Chrome trace-event JSON (open in ui.perfetto.dev)\n"
          "  --tsv FILE      write one row per result: kind, name, axes, n, bytes, sent,\n"
          "                  expected sent, check, time_s, extra\n");
}

/* Parses "I,J,K" into three whole numbers >= 1. */
static bool parse_dims(const char *text, double dims[3]) {
  char *end;
  const char *p = text;
  for (int i = 0; i < 3; i++) {
    double v = strtod(p, &end);
    if (end == p || !(v >= 1 && v <= 1 << 20) || v != floor(v)) return false;
    dims[i] = v;
    p = end;
    if (i < 2) {
      if (*p != ',') return false;
      p++;
    }
  }
  return *p == '\0';
}

/* Returns -1 to go on, else the exit status (0 after --help, 2 after a usage error). */
static int parse_options(int argc, char **argv, int rank, options *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->run, sizeof o->run, "all");
  o->dims[0] = o->dims[1] = o->dims[2] = 256;
  o->bytes = 1048576;
  o->reps = 3;
  enum { OPT_MESH = 256, OPT_RUN, OPT_MATMUL, OPT_DIMS, OPT_BYTES, OPT_REPS, OPT_TRACE, OPT_TSV };
  static const struct option longs[] = {{"mesh", required_argument, NULL, OPT_MESH},
                                        {"run", required_argument, NULL, OPT_RUN},
                                        {"matmul", required_argument, NULL, OPT_MATMUL},
                                        {"dims", required_argument, NULL, OPT_DIMS},
                                        {"bytes", required_argument, NULL, OPT_BYTES},
                                        {"reps", required_argument, NULL, OPT_REPS},
                                        {"trace", required_argument, NULL, OPT_TRACE},
                                        {"tsv", required_argument, NULL, OPT_TSV},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  opterr = 0;
  int c;
  char *end;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    const char *bad = NULL;
    switch (c) {
    case OPT_MESH:
      if (strlen(optarg) >= sizeof o->mesh) bad = "--mesh: too long";
      else snprintf(o->mesh, sizeof o->mesh, "%s", optarg);
      break;
    case OPT_RUN:
      if (strcmp(optarg, "all") && strcmp(optarg, "collectives") && strcmp(optarg, "matmul") &&
          strcmp(optarg, "cmatmul") && strcmp(optarg, "sweep"))
        bad = "--run: expected all, collectives, matmul, cmatmul or sweep";
      else snprintf(o->run, sizeof o->run, "%s", optarg);
      break;
    case OPT_MATMUL:
      if (strlen(optarg) >= sizeof o->matmul) bad = "--matmul: too long";
      else snprintf(o->matmul, sizeof o->matmul, "%s", optarg);
      break;
    case OPT_DIMS:
      if (!parse_dims(optarg, o->dims)) bad = "--dims: expected I,J,K, whole numbers in [1, 2^20]";
      o->dims_given = true;
      break;
    case OPT_BYTES:
      o->bytes = strtod(optarg, &end);
      if (end == optarg || *end || !(o->bytes >= 8 && o->bytes <= 1 << 30) ||
          fmod(o->bytes, 8.0) != 0.0)
        bad = "--bytes: expected a multiple of 8 in [8, 2^30]";
      o->bytes_given = true;
      break;
    case OPT_REPS: {
      long v = strtol(optarg, &end, 10);
      if (end == optarg || *end || v < 1 || v > 1000) bad = "--reps: expected 1..1000";
      else o->reps = (int)v;
      break;
    }
    case OPT_TRACE: o->trace = optarg; break;
    case OPT_TSV: o->tsv = optarg; break;
    case 'h':
      if (rank == 0) usage(stdout);
      return 0;
    default: bad = "unknown option or missing argument (try: scale-mesh --help)";
    }
    if (bad) {
      if (rank == 0) fprintf(stderr, "scale-mesh: %s\n", bad);
      return 2;
    }
  }
  if (optind < argc) {
    if (rank == 0) fprintf(stderr, "scale-mesh: unexpected argument (try: scale-mesh --help)\n");
    return 2;
  }
  return -1;
}

/* ==== results ===================================================================================== */

typedef struct {
  FILE *tsv;       /* rank 0 only */
  int n_failed;    /* checks failed (same on every rank) */
} report;

/* Rank 0 prints a result line and a TSV row. 'check' is "bitwise", "tol 1e-12" or "FAILED". */
static void result(const mesh_rank *m, report *rep, const char *kind, const char *name,
                   const char *axes, int n, double bytes, double sent, double expected,
                   const char *check, double time_s, const char *extra) {
  if (m->rank != 0) return;
  char t[32];
  printf("%-12s %-34s %-4s n=%-2d V=%-9.0f sent/rank=%-9.0f expected=%-9.0f %-10s %s %s\n", kind,
         name, axes, n, bytes, sent, expected, check,
         scale_format(t, sizeof t, time_s, "s", SCALE_FMT_TIME), extra ? extra : "");
  if (rep->tsv)
    fprintf(rep->tsv, "%s\t%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%s\t%.9g\t%s\n", kind, name, axes, n,
            bytes, sent, expected, check, time_s, extra ? extra : "");
}

/* Agrees across all ranks: every rank's 'ok', and the smallest and largest 'sent'. */
static bool agree(bool ok, double sent, double *sent_min, double *sent_max) {
  int flag = ok ? 1 : 0, all;
  MPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&sent, sent_min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&sent, sent_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all != 0;
}

static void fail(const mesh_rank *m, report *rep, const char *what) {
  rep->n_failed++;
  if (m->rank == 0) fprintf(stderr, "scale-mesh: CHECK FAILED: %s\n", what);
}

/* Axis names of 'mask' ("XY"), or "-" for none. */
static void axes_name(const scale_mesh *mesh, unsigned mask, char *out, size_t size) {
  size_t n = 0;
  for (int a = 0; a < mesh->n_axes && n + 1 < size; a++)
    if (mask >> a & 1u) out[n++] = mesh->name[a];
  if (n == 0 && size > 1) out[n++] = '-';
  out[n] = '\0';
}

/* Size of the group of axes 'mask', and this rank's index in it. */
static int group_size(const mesh_rank *m, unsigned mask) {
  return (int)scale_sharding_axes_size(&m->mesh, mask);
}

/* ==== the collectives ============================================================================= */

/* Integer-valued data: sums of a few hundred of them are exact in double, in any order. */
static double coll_value(int rank, size_t i) { return (double)((rank * 37 + (int)(i % 1009)) % 17); }

/* One collective of the group 'comm' (n ranks, this one r): its arrays and sizes. */
typedef struct {
  MPI_Comm comm;
  int n, r;
  double *in, *out;
  size_t total, block; /* doubles of the whole array; of one rank's block */
} coll_group;

/* Runs collective 'op' o->reps times; the slowest rank's best time into '*best' and this
 * rank's bytes sent in the first repetition into '*sent'. */
static void time_collective(mesh_rank *m, const options *o, coll_group *g, int op,
                            const char *event, double *best, double *sent) {
  const size_t block = g->block;
  *best = (double)INFINITY;
  *sent = 0;
  for (int rep_i = 0; rep_i < o->reps; rep_i++) {
    /* Inputs: AllGather a block; ReduceScatter and AllReduce a full unreduced array; AllToAll
     * the rank's 1/n of the array, as n blocks of total / n^2. */
    size_t in_count = op == SCALE_COLL_ALL_GATHER ? block : op == SCALE_COLL_ALL_TO_ALL ? block
                                                                                        : g->total;
    for (size_t i = 0; i < in_count; i++) g->in[i] = coll_value(g->r, i);
    MPI_Barrier(g->comm);
    double before = m->sent_bytes;
    int ev = mesh_event_begin(m, event, "collective");
    double t0 = MPI_Wtime();
    switch (op) {
    case SCALE_COLL_ALL_GATHER: mesh_all_gather(m, g->comm, g->in, g->out, block); break;
    case SCALE_COLL_REDUCE_SCATTER: mesh_reduce_scatter(m, g->comm, g->in, g->out, block); break;
    case SCALE_COLL_ALL_REDUCE: mesh_all_reduce(m, g->comm, g->in, block); break;
    default: mesh_all_to_all(m, g->comm, g->in, g->out, block / (size_t)g->n); break;
    }
    double dt = MPI_Wtime() - t0, dt_max;
    mesh_event_end(m, ev, before);
    MPI_Allreduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    if (dt_max < *best) *best = dt_max;
    if (rep_i == 0) *sent = m->sent_bytes - before;
  }
}

/* Checks the last repetition's result of 'op' against what every rank put in (bitwise). */
static bool check_collective(const coll_group *g, int op) {
  const size_t block = g->block, total = g->total;
  const int n = g->n, r = g->r;
  size_t out_count = op == SCALE_COLL_ALL_GATHER ? total : op == SCALE_COLL_ALL_REDUCE ? total
                                                                                      : block;
  const double *got = op == SCALE_COLL_ALL_REDUCE ? g->in : g->out;
  bool ok = true;
  for (size_t i = 0; i < out_count; i++) {
    double w = 0;
    if (op == SCALE_COLL_ALL_GATHER) {
      w = coll_value((int)(i / block), i % block);
    } else if (op == SCALE_COLL_REDUCE_SCATTER || op == SCALE_COLL_ALL_REDUCE) {
      size_t idx = op == SCALE_COLL_REDUCE_SCATTER ? (size_t)r * block + i : i;
      for (int q = 0; q < n; q++) w += coll_value(q, idx);
    } else { /* AllToAll: block q of the output is rank q's block r */
      size_t sub = block / (size_t)n, q = i / sub;
      w = coll_value((int)q, (size_t)r * sub + i % sub);
    }
    if (memcmp(&got[i], &w, sizeof w) != 0) ok = false;
  }
  return ok;
}

static void run_collectives_on(mesh_rank *m, const options *o, report *rep, unsigned mask) {
  coll_group g = {.comm = mesh_axes_comm(m, mask)};
  MPI_Comm_size(g.comm, &g.n);
  MPI_Comm_rank(g.comm, &g.r);
  const int n = g.n;
  char axes[16];
  axes_name(&m->mesh, mask, axes, sizeof axes);
  double v = o->bytes;
  g.total = (size_t)(v / sizeof(double));
  if (g.total % ((size_t)n * (size_t)n) != 0) {
    if (m->rank == 0)
      fprintf(stderr, "scale-mesh: --bytes %.0f is not a whole number of doubles per block for "
                      "a group of %d (need a multiple of %d bytes)\n",
              v, n, 8 * n * n);
    rep->n_failed++;
    MPI_Comm_free(&g.comm);
    return;
  }
  g.block = g.total / (size_t)n;
  g.in = malloc(g.total * sizeof *g.in);
  g.out = malloc(g.total * sizeof *g.out);
  if (!g.in || !g.out) MPI_Abort(MPI_COMM_WORLD, 1);

  for (int op = 0; op < SCALE_COLL_COUNT; op++) {
    const char *name = scale_collective_name((scale_collective)op);
    char event[MESH_NAME_MAX];
    snprintf(event, sizeof event, "%s %s", name, axes);
    double best, sent;
    time_collective(m, o, &g, op, event, &best, &sent);
    bool ok = check_collective(&g, op);
    /* Chapter 3's bytes per rank: a ring AllGather or ReduceScatter sends (n-1)/n V, an
     * AllReduce twice that; an AllToAll sends every block but its own, (n-1)/n^2 V. */
    double expected = op == SCALE_COLL_ALL_TO_ALL
                          ? v * (n - 1) / ((double)n * n)
                          : scale_collective_ring_link_bytes((scale_collective)op, n, v, false);
    double smin, smax;
    bool all_ok = agree(ok, sent, &smin, &smax);
    double best_all;
    MPI_Allreduce(&best, &best_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    bool bytes_ok = smin == expected && smax == expected;
    result(m, rep, "collective", name, axes, n, v, smax, expected,
           all_ok && bytes_ok ? "bitwise" : "FAILED", best_all, NULL);
    if (!all_ok || !bytes_ok) {
      char what[160];
      snprintf(what, sizeof what, "%s over %s: %s", name, axes,
               !all_ok ? "wrong result" : "bytes sent differ from chapter 3's formula");
      fail(m, rep, what);
    }
  }
  free(g.in), free(g.out);
  MPI_Comm_free(&g.comm);
}

/* ==== sharded matmuls ============================================================================= */

static double a_value(double i, double j) {
  return fmod(i * 131 + j * 71 + 7, 97) / 97.0 - 0.5;
}
static double b_value(double j, double k) {
  return fmod(j * 113 + k * 37 + 3, 89) / 89.0 - 0.5;
}

/* c[rows x cols] = a[rows x inner] . b[inner x cols], row-major, one accumulator per element,
 * the inner index in increasing order: the reference and the shards use this same function. */
static void matmul(const double *a, const double *b, double *c, size_t rows, size_t cols,
                   size_t inner) {
  for (size_t i = 0; i < rows; i++)
    for (size_t k = 0; k < cols; k++) {
      double s = 0.0;
      for (size_t j = 0; j < inner; j++) s += a[i * inner + j] * b[j * cols + k];
      c[i * cols + k] = s;
    }
}

/* c[rows x cols] += a . b (for the collective matmul's partial products). */
static void matmul_acc(const double *a, size_t lda, const double *b, double *c, size_t rows,
                       size_t cols, size_t inner) {
  for (size_t i = 0; i < rows; i++)
    for (size_t k = 0; k < cols; k++) {
      double s = 0.0;
      for (size_t j = 0; j < inner; j++) s += a[i * lda + j] * b[j * cols + k];
      c[i * cols + k] += s;
    }
}

/** A local block of a 2-D array: which global rows and columns this rank holds, and the mesh
 * axes still sharding each dimension. */
typedef struct {
  double row0, rows, col0, cols;
  unsigned axes[2];
  double *data;
} shard;

/* Index of this rank among the shards of a dimension sharded over 'mask' (mixed radix over the
 * mesh axes in mesh order, the first most significant). */
static double shard_index(const mesh_rank *m, unsigned mask) {
  double idx = 0;
  for (int a = 0; a < m->mesh.n_axes; a++)
    if (mask >> a & 1u) idx = idx * m->mesh.size[a] + m->coords[a];
  return idx;
}

/* Whether every dimension of 's' lists its axes in mesh order (what the executor supports). */
static bool axes_in_order(const scale_sharding *s) {
  for (int d = 0; d < s->n_dims; d++)
    for (int k = 1; k < s->n_dim_axes[d]; k++)
      if (s->dim_axes[d][k] <= s->dim_axes[d][k - 1]) return false;
  return true;
}

/* This rank's shard of a global rows x cols array sharded as 's', filled by 'value'. */
static bool make_shard(const mesh_rank *m, const scale_sharding *s, double rows, double cols,
                       double (*value)(double, double), shard *out) {
  unsigned mask[2] = {0, 0};
  for (int d = 0; d < 2; d++)
    for (int k = 0; k < s->n_dim_axes[d]; k++) mask[d] |= 1u << s->dim_axes[d][k];
  double n_rows = scale_sharding_axes_size(&m->mesh, mask[0]);
  double n_cols = scale_sharding_axes_size(&m->mesh, mask[1]);
  if (fmod(rows, n_rows) != 0 || fmod(cols, n_cols) != 0) return false;
  out->rows = rows / n_rows;
  out->cols = cols / n_cols;
  out->row0 = shard_index(m, mask[0]) * out->rows;
  out->col0 = shard_index(m, mask[1]) * out->cols;
  out->axes[0] = mask[0];
  out->axes[1] = mask[1];
  out->data = malloc((size_t)(out->rows * out->cols) * sizeof(double) + 8);
  if (!out->data) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < (size_t)out->rows; i++)
    for (size_t j = 0; j < (size_t)out->cols; j++)
      out->data[i * (size_t)out->cols + j] = value(out->row0 + (double)i, out->col0 + (double)j);
  return true;
}

/* AllGathers dimension 'dim' of 'sh' over the axes 'mask' (all of that dimension's axes). */
static void gather_dim(mesh_rank *m, shard *sh, int dim, unsigned mask) {
  MPI_Comm comm = mesh_axes_comm(m, mask);
  int n;
  MPI_Comm_size(comm, &n);
  size_t rows = (size_t)sh->rows, cols = (size_t)sh->cols, count = rows * cols;
  double *all = malloc((size_t)n * count * sizeof *all + 8);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  mesh_all_gather(m, comm, sh->data, all, count);
  if (dim == 0) {
    free(sh->data);
    sh->data = all;
    sh->row0 = 0;
    sh->rows *= n;
  } else { /* blocks are column stripes: interleave them into rows of n x cols */
    double *wide = malloc((size_t)n * count * sizeof *wide + 8);
    if (!wide) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int q = 0; q < n; q++)
      for (size_t i = 0; i < rows; i++)
        memcpy(wide + i * cols * (size_t)n + (size_t)q * cols, all + (size_t)q * count + i * cols,
               cols * sizeof *wide);
    free(all);
    free(sh->data);
    sh->data = wide;
    sh->col0 = 0;
    sh->cols *= n;
  }
  sh->axes[dim] = 0;
  MPI_Comm_free(&comm);
}

/* One sharded matmul: its operands' shardings and sizes, and the library's plan. */
typedef struct {
  scale_sharding sa, sb;
  double a_dims[2], b_dims[2]; /* A[I, J], B[J, K] */
  scale_sharded_matmul plan;
} matmul_job;

/* This rank's state of one execution: its shards, its block of C, the bytes of each step. */
typedef struct {
  shard a, b;
  double *c;
  size_t c_rows, c_cols;
  double step_sent[SCALE_SHARDED_STEPS_MAX];
  bool exact; /* no partial sums reduced: C must equal the reference bitwise */
} matmul_run;

/* Parses "A[I_X, J] . B[J, K_Y]" (the two shardings either side of the '.' between them) and
 * plans it into 'job'; false after counting a failure (rank 0 says why). */
static bool plan_matmul(mesh_rank *m, const options *o, report *rep, const char *label,
                        const char *spec, matmul_job *job) {
  const char *close = strchr(spec, ']');
  const char *dot = close ? strpbrk(close, ".*") : NULL;
  char a_text[96], b_text[96];
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  if (!dot || (size_t)(dot - spec) >= sizeof a_text || strlen(dot + 1) >= sizeof b_text) {
    if (m->rank == 0) fprintf(stderr, "scale-mesh: --matmul: expected \"A[..] . B[..]\"\n");
    rep->n_failed++;
    return false;
  }
  snprintf(a_text, sizeof a_text, "%.*s", (int)(dot - spec), spec);
  snprintf(b_text, sizeof b_text, "%s", dot + 1);
  scale_sharding *sa = &job->sa, *sb = &job->sb;
  if (scale_sharding_parse(a_text, &m->mesh, sa, &diag) != SCALE_OK ||
      scale_sharding_parse(b_text, &m->mesh, sb, &diag) != SCALE_OK) {
    if (m->rank == 0) fprintf(stderr, "scale-mesh: --matmul: %s\n", diag.message);
    rep->n_failed++;
    return false;
  }
  if (sa->n_dims != 2 || sb->n_dims != 2 || strcmp(sa->dim[1], sb->dim[0]) != 0 ||
      sa->unreduced_mask || sb->unreduced_mask || !axes_in_order(sa) || !axes_in_order(sb)) {
    if (m->rank == 0)
      fprintf(stderr, "scale-mesh: --matmul: the executor runs A[I.., J..] . B[J.., K..] with "
                      "axes listed in mesh order and nothing unreduced\n");
    rep->n_failed++;
    return false;
  }
  job->a_dims[0] = o->dims[0];
  job->a_dims[1] = job->b_dims[0] = o->dims[1];
  job->b_dims[1] = o->dims[2];
  /* The plan in fp32 counts 4-byte elements; the executor moves doubles: twice the bytes. */
  if (scale_sharding_matmul_plan(&m->mesh, sa, job->a_dims, sb, job->b_dims, SCALE_DTYPE_FP32,
                                 NULL, SCALE_WRAP_AUTO, &job->plan, &diag) != SCALE_OK) {
    if (m->rank == 0) fprintf(stderr, "scale-mesh: %s: %s\n", label, diag.message);
    rep->n_failed++;
    return false;
  }
  return true;
}

/* The collectives before the matmul: the plan's AllGathers of A or B. False when one gathers
 * a part of a dimension (this executor gathers whole dimensions only). */
static bool gather_operands(mesh_rank *m, const matmul_job *job, const char *label,
                            matmul_run *run) {
  for (int s = 0; s < job->plan.n_steps; s++) {
    const scale_sharded_step *st = &job->plan.step[s];
    if (st->op != SCALE_COLL_ALL_GATHER) continue;
    shard *x = st->operand == 0 ? &run->a : &run->b;
    int dim = x->axes[0] == st->axes_mask ? 0 : x->axes[1] == st->axes_mask ? 1 : -1;
    if (dim < 0) return false;
    char axes[16], ev_name[MESH_NAME_MAX];
    axes_name(&m->mesh, st->axes_mask, axes, sizeof axes);
    snprintf(ev_name, sizeof ev_name, "%s: all-gather %c over %s", label,
             st->operand == 0 ? 'A' : 'B', axes);
    double before = m->sent_bytes;
    int ev = mesh_event_begin(m, ev_name, "collective");
    gather_dim(m, x, dim, st->axes_mask);
    mesh_event_end(m, ev, before);
    run->step_sent[s] = m->sent_bytes - before;
  }
  return true;
}

/* Both operands sharded on their contracting dimension over different axes (case 2 with a
 * reduction): one was gathered whole; keeps the part of it the other one holds. False when
 * the contraction then does not cover the same J on both sides. */
static bool trim_contraction(const matmul_job *job, matmul_run *run) {
  shard *a = &run->a, *b = &run->b;
  if (a->cols > b->rows && a->cols == job->a_dims[1]) {
    size_t rows = (size_t)a->rows, from = (size_t)b->row0, w = (size_t)b->rows;
    for (size_t i = 0; i < rows; i++)
      memmove(a->data + i * w, a->data + i * (size_t)a->cols + from, w * sizeof *a->data);
    a->col0 = b->row0;
    a->cols = b->rows;
  } else if (b->rows > a->cols && b->rows == job->b_dims[0]) {
    memmove(b->data, b->data + (size_t)a->col0 * (size_t)b->cols,
            (size_t)(a->cols * b->cols) * sizeof *b->data);
    b->row0 = a->col0;
    b->rows = a->cols;
  }
  return a->col0 == b->row0 && a->cols == b->rows;
}

/* The local matmul of this rank's shards into run->c (allocated here). */
static void local_matmul(mesh_rank *m, const char *label, matmul_run *run) {
  run->c_rows = (size_t)run->a.rows;
  run->c_cols = (size_t)run->b.cols;
  run->c = malloc(run->c_rows * run->c_cols * sizeof *run->c + 8);
  if (!run->c) MPI_Abort(MPI_COMM_WORLD, 1);
  char ev_name[MESH_NAME_MAX];
  snprintf(ev_name, sizeof ev_name, "%s: local matmul", label);
  int ev = mesh_event_begin(m, ev_name, "compute");
  matmul(run->a.data, run->b.data, run->c, run->c_rows, run->c_cols, (size_t)run->a.cols);
  mesh_event_end(m, ev, m->sent_bytes);
}

/* The collective after: the plan's AllReduce of the partial sums of C. False when C's block
 * does not split over the group. */
static bool reduce_partials(mesh_rank *m, const matmul_job *job, const char *label,
                            matmul_run *run) {
  const size_t count = run->c_rows * run->c_cols;
  for (int s = 0; s < job->plan.n_steps; s++) {
    const scale_sharded_step *st = &job->plan.step[s];
    if (st->op != SCALE_COLL_ALL_REDUCE) continue;
    MPI_Comm comm = mesh_axes_comm(m, st->axes_mask);
    int n;
    MPI_Comm_size(comm, &n);
    if (count % (size_t)n) {
      MPI_Comm_free(&comm);
      return false;
    }
    char axes[16], ev_name[MESH_NAME_MAX];
    axes_name(&m->mesh, st->axes_mask, axes, sizeof axes);
    snprintf(ev_name, sizeof ev_name, "%s: all-reduce C over %s", label, axes);
    double before = m->sent_bytes;
    int ev = mesh_event_begin(m, ev_name, "collective");
    mesh_all_reduce(m, comm, run->c, count / (size_t)n);
    mesh_event_end(m, ev, before);
    run->step_sent[s] = m->sent_bytes - before;
    run->exact = false; /* partial sums added in ring order, not the reference's */
    MPI_Comm_free(&comm);
  }
  return true;
}

/* Checks this rank's block of C against the unsharded product, computed the same way. */
static bool check_block(mesh_rank *m, const options *o, const matmul_run *run) {
  int ev = mesh_event_begin(m, "check against the unsharded matmul", "check");
  const size_t inner = (size_t)o->dims[1], c_rows = run->c_rows, c_cols = run->c_cols;
  double *ar = calloc(c_rows * inner + 1, sizeof *ar), *br = calloc(inner * c_cols + 1, sizeof *br);
  double *cr = calloc(c_rows * c_cols + 1, sizeof *cr);
  if (!ar || !br || !cr) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < c_rows; i++)
    for (size_t j = 0; j < inner; j++) ar[i * inner + j] = a_value(run->a.row0 + (double)i, (double)j);
  for (size_t j = 0; j < inner; j++)
    for (size_t k = 0; k < c_cols; k++) br[j * c_cols + k] = b_value((double)j, run->b.col0 + (double)k);
  matmul(ar, br, cr, c_rows, c_cols, inner);
  double tol = 1e-12 * (double)inner; /* |a b| <= 1/4 per term; 1e-12 of the magnitudes' sum */
  bool ok = true;
  for (size_t i = 0; i < c_rows * c_cols; i++) {
    const double *c = run->c;
    if (run->exact ? memcmp(&c[i], &cr[i], sizeof cr[i]) != 0 : fabs(c[i] - cr[i]) > tol) ok = false;
  }
  free(ar), free(br), free(cr);
  mesh_event_end(m, ev, m->sent_bytes);
  return ok;
}

/* Checks each step's bytes against chapter 3's ring formula for the plan's V (in doubles) and
 * reports the result row (and a failure line when C or the bytes are wrong). */
static void report_matmul(mesh_rank *m, report *rep, const char *label, const char *spec,
                          const matmul_job *job, const matmul_run *run, bool ok, double best,
                          double sent_first) {
  const scale_sharded_matmul *plan = &job->plan;
  const double elem_scale = sizeof(double) / scale_dtype_bytes(SCALE_DTYPE_FP32);
  double expected = 0;
  char steps[160] = "";
  size_t len = 0;
  bool steps_ok = true;
  for (int s = 0; s < plan->n_steps; s++) {
    const scale_sharded_step *st = &plan->step[s];
    int n = group_size(m, st->axes_mask);
    double v = st->bytes * elem_scale;
    double e = scale_collective_ring_link_bytes(st->op, n, v, false);
    expected += e;
    double smin, smax;
    agree(true, run->step_sent[s], &smin, &smax);
    if (smin != e || smax != e) steps_ok = false;
    char axes[16];
    axes_name(&m->mesh, st->axes_mask, axes, sizeof axes);
    len += (size_t)snprintf(steps + len, sizeof steps - len, "%s%s %s over %s (V=%.0f)",
                            s ? ", then " : "", scale_collective_name(st->op),
                            st->operand == 0 ? "A" : st->operand == 1 ? "B" : "C", axes, v);
    if (len >= sizeof steps) len = sizeof steps - 1;
  }
  if (plan->n_steps == 0) snprintf(steps, sizeof steps, "no communication");
  double smin, smax, best_all;
  bool all_ok = agree(ok, sent_first, &smin, &smax);
  MPI_Allreduce(&best, &best_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  char name[64], extra[224];
  if (strcmp(label, "given") == 0) snprintf(name, sizeof name, "case %d (given)", (int)plan->kind);
  else snprintf(name, sizeof name, "case %d", (int)plan->kind);
  snprintf(extra, sizeof extra, "%s: %s", spec, steps);
  bool pass = all_ok && steps_ok && smax == expected;
  result(m, rep, "matmul", name, "", m->n_ranks, plan->n_steps ? plan->step[0].bytes * elem_scale : 0,
         smax, expected, pass ? (run->exact ? "bitwise" : "tol 1e-12") : "FAILED", best_all, extra);
  if (!pass) {
    char what[200];
    snprintf(what, sizeof what, "%s (%s): %s", label, spec,
             !all_ok ? "C differs from the unsharded matmul"
                     : "bytes sent differ from chapter 3's formula");
    fail(m, rep, what);
  }
}

static void run_matmul(mesh_rank *m, const options *o, report *rep, const char *label,
                       const char *spec) {
  matmul_job job;
  if (!plan_matmul(m, o, rep, label, spec, &job)) return;
  double best = (double)INFINITY, sent_first = 0;
  matmul_run run;
  memset(&run, 0, sizeof run);
  run.exact = true;
  bool supported = true;
  for (int rep_i = 0; rep_i < o->reps && supported; rep_i++) {
    free(run.a.data), free(run.b.data), free(run.c);
    run.a.data = run.b.data = run.c = NULL; /* a failed make_shard below must not free them twice */
    if (!make_shard(m, &job.sa, job.a_dims[0], job.a_dims[1], a_value, &run.a) ||
        !make_shard(m, &job.sb, job.b_dims[0], job.b_dims[1], b_value, &run.b)) {
      if (m->rank == 0)
        fprintf(stderr, "scale-mesh: %s: --dims %g,%g,%g do not divide into the shards\n", label,
                o->dims[0], o->dims[1], o->dims[2]);
      rep->n_failed++;
      free(run.a.data), free(run.b.data);
      return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), before_all = m->sent_bytes;
    supported = gather_operands(m, &job, label, &run) && trim_contraction(&job, &run);
    if (!supported) break;
    local_matmul(m, label, &run);
    supported = reduce_partials(m, &job, label, &run);
    double dt = MPI_Wtime() - t0;
    if (dt < best) best = dt;
    if (rep_i == 0) sent_first = m->sent_bytes - before_all;
  }
  int sup_all, sup = supported ? 1 : 0;
  MPI_Allreduce(&sup, &sup_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!sup_all) {
    if (m->rank == 0)
      fprintf(stderr, "scale-mesh: %s: this executor gathers whole dimensions only; %s is not "
                      "supported\n",
              label, spec);
    rep->n_failed++;
    free(run.a.data), free(run.b.data), free(run.c);
    return;
  }
  bool ok = check_block(m, o, &run);
  report_matmul(m, rep, label, spec, &job, &run, ok, best, sent_first);
  free(run.a.data), free(run.b.data), free(run.c);
}

/* ==== collective matmul =========================================================================== */

/* The buffers of the collective matmul on one rank: its shards, the gathered A, both results
 * and the ring's two chunk buffers. */
typedef struct {
  size_t I, J, K, jl, kl; /* global sizes; J / n and K / n */
  double *a, *b, *a_all, *a_wide, *c0, *c1, *bufs[2];
} cmatmul_data;

static void cmatmul_alloc(cmatmul_data *d, int r) {
  const size_t I = d->I, J = d->J, jl = d->jl, kl = d->kl;
  d->a = malloc(I * jl * sizeof *d->a + 8);
  d->b = malloc(J * kl * sizeof *d->b + 8);
  d->a_all = malloc(I * J * sizeof *d->a_all + 8);
  d->a_wide = malloc(I * J * sizeof *d->a_wide + 8);
  d->c0 = malloc(I * kl * sizeof *d->c0 + 8);
  d->c1 = malloc(I * kl * sizeof *d->c1 + 8);
  d->bufs[0] = malloc(I * jl * sizeof(double) + 8);
  d->bufs[1] = malloc(I * jl * sizeof(double) + 8);
  if (!d->a || !d->b || !d->a_all || !d->a_wide || !d->c0 || !d->c1 || !d->bufs[0] || !d->bufs[1])
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < I; i++)
    for (size_t j = 0; j < jl; j++) d->a[i * jl + j] = a_value((double)i, (double)(r * jl + j));
  for (size_t j = 0; j < J; j++)
    for (size_t k = 0; k < kl; k++) d->b[j * kl + k] = b_value((double)j, (double)(r * kl + k));
}

static void cmatmul_free(cmatmul_data *d) {
  free(d->a), free(d->b), free(d->a_all), free(d->a_wide), free(d->c0), free(d->c1);
  free(d->bufs[0]), free(d->bufs[1]);
}

/* Baseline: the AllGather, then one matmul into c0. Returns the slowest rank's time [s]. */
static double cmatmul_baseline(mesh_rank *m, MPI_Comm comm, int n, cmatmul_data *d) {
  const size_t I = d->I, J = d->J, jl = d->jl;
  MPI_Barrier(comm);
  double before = m->sent_bytes, t0 = MPI_Wtime();
  int ev = mesh_event_begin(m, "cmatmul baseline: all-gather A", "collective");
  mesh_all_gather(m, comm, d->a, d->a_all, I * jl);
  mesh_event_end(m, ev, before);
  for (int q = 0; q < n; q++) /* column stripes into rows */
    for (size_t i = 0; i < I; i++)
      memcpy(d->a_wide + i * J + (size_t)q * jl, d->a_all + (size_t)q * I * jl + i * jl,
             jl * sizeof *d->a_wide);
  ev = mesh_event_begin(m, "cmatmul baseline: matmul", "compute");
  matmul(d->a_wide, d->b, d->c0, I, d->kl, J);
  mesh_event_end(m, ev, m->sent_bytes);
  double dt = MPI_Wtime() - t0, dt_max;
  MPI_Allreduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  return dt_max;
}

/* Collective matmul into c1: step t multiplies chunk (r - t) mod n of A while the ring moves it
 * on. Returns the slowest rank's time [s]. */
static double cmatmul_ring(mesh_rank *m, MPI_Comm comm, int n, int r, cmatmul_data *d) {
  const size_t I = d->I, jl = d->jl, kl = d->kl;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  memset(d->c1, 0, I * kl * sizeof *d->c1);
  memcpy(d->bufs[0], d->a, I * jl * sizeof *d->a);
  int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int t = 0; t < n; t++) {
    double *cur = d->bufs[t % 2], *next = d->bufs[(t + 1) % 2];
    MPI_Request req[2];
    int n_req = 0;
    if (t < n - 1) {
      MPI_Irecv(next, (int)(I * jl), MPI_DOUBLE, left, 1, comm, &req[n_req++]);
      MPI_Isend(cur, (int)(I * jl), MPI_DOUBLE, right, 1, comm, &req[n_req++]);
      m->sent_bytes += (double)(I * jl) * sizeof(double);
    }
    int chunk = (r - t + n) % n;
    char name[MESH_NAME_MAX];
    snprintf(name, sizeof name, "cmatmul step %d: chunk %d", t, chunk);
    int ev = mesh_event_begin(m, name, "compute");
    matmul_acc(cur, jl, d->b + (size_t)chunk * jl * kl, d->c1, I, kl, jl);
    mesh_event_end(m, ev, m->sent_bytes);
    if (n_req) {
      ev = mesh_event_begin(m, "cmatmul: wait for the next chunk", "collective");
      MPI_Waitall(n_req, req, MPI_STATUSES_IGNORE);
      mesh_event_end(m, ev, m->sent_bytes);
    }
  }
  double dt = MPI_Wtime() - t0, dt_max;
  MPI_Allreduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  return dt_max;
}

/* The baseline is bitwise the reference (same order); the collective adds chunks in ring
 * order: compares both with the reference computed here, checks the bytes and reports. */
static void cmatmul_report(mesh_rank *m, report *rep, int n, const char *axes,
                           const cmatmul_data *d, const double best_s[2], const double sent[2]) {
  const size_t I = d->I, J = d->J, kl = d->kl;
  double *cr = malloc(I * kl * sizeof *cr + 8), *ar = malloc(I * J * sizeof *ar + 8);
  if (!cr || !ar) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < I; i++)
    for (size_t j = 0; j < J; j++) ar[i * J + j] = a_value((double)i, (double)j);
  matmul(ar, d->b, cr, I, kl, J);
  bool ok_base = memcmp(d->c0, cr, I * kl * sizeof *cr) == 0, ok_coll = true;
  for (size_t i = 0; i < I * kl; i++)
    if (fabs(d->c1[i] - cr[i]) > 1e-12 * (double)J) ok_coll = false;
  free(cr), free(ar);
  double v = (double)(I * J) * sizeof(double);
  double expected = scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, n, v, false);
  double smin, smax, cmin, cmax, tb, tc;
  bool all_base = agree(ok_base, sent[0], &smin, &smax);
  bool all_coll = agree(ok_coll, sent[1], &cmin, &cmax);
  MPI_Allreduce(&best_s[0], &tb, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&best_s[1], &tc, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  char extra[96];
  snprintf(extra, sizeof extra, "overlap gain %.3f", tb / tc);
  bool pb = all_base && smin == expected && smax == expected;
  bool pc = all_coll && cmin == expected && cmax == expected;
  result(m, rep, "cmatmul", "all-gather then matmul", axes, n, v, smax, expected,
         pb ? "bitwise" : "FAILED", tb, NULL);
  result(m, rep, "cmatmul", "collective matmul", axes, n, v, cmax, expected,
         pc ? "tol 1e-12" : "FAILED", tc, extra);
  if (!pb) fail(m, rep, "cmatmul baseline: wrong result or bytes");
  if (!pc) fail(m, rep, "collective matmul: wrong result or bytes");
}

/* A[I, J_Y] . B[J, K_Y] -> C[I, K_Y] on the last mesh axis Y: AllGather A then multiply, against
 * the same AllGather decomposed into n ring steps, each overlapped with the partial matmul of the
 * chunk in hand. */
static void run_cmatmul(mesh_rank *m, const options *o, report *rep) {
  int axis = m->mesh.n_axes - 1;
  unsigned mask = 1u << axis;
  MPI_Comm comm = mesh_axes_comm(m, mask);
  int n, r;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &r);
  cmatmul_data d = {.I = (size_t)o->dims[0], .J = (size_t)o->dims[1], .K = (size_t)o->dims[2]};
  if (d.J % (size_t)n || d.K % (size_t)n) {
    if (m->rank == 0)
      fprintf(stderr, "scale-mesh: cmatmul: J and K must divide by %d\n", n);
    rep->n_failed++;
    MPI_Comm_free(&comm);
    return;
  }
  d.jl = d.J / (size_t)n;
  d.kl = d.K / (size_t)n;
  cmatmul_alloc(&d, r);
  char axes[16];
  axes_name(&m->mesh, mask, axes, sizeof axes);
  double best_s[2] = {(double)INFINITY, (double)INFINITY}, sent[2] = {0, 0};
  for (int rep_i = 0; rep_i < o->reps; rep_i++) {
    double before = m->sent_bytes;
    best_s[0] = fmin(best_s[0], cmatmul_baseline(m, comm, n, &d));
    if (rep_i == 0) sent[0] = m->sent_bytes - before;
    before = m->sent_bytes;
    best_s[1] = fmin(best_s[1], cmatmul_ring(m, comm, n, r, &d));
    if (rep_i == 0) sent[1] = m->sent_bytes - before;
  }
  cmatmul_report(m, rep, n, axes, &d, best_s, sent);
  cmatmul_free(&d);
  MPI_Comm_free(&comm);
}

/* ==== the alpha-beta sweep ======================================================================== */

static void run_sweep(mesh_rank *m, const options *o, report *rep) {
  unsigned all = (1u << m->mesh.n_axes) - 1u;
  MPI_Comm comm = mesh_axes_comm(m, all);
  int n;
  MPI_Comm_size(comm, &n);
  size_t max_block = 1u << 20;
  double *in = malloc(max_block), *out = malloc(max_block * (size_t)n);
  if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < max_block / sizeof(double); i++) in[i] = (double)i;
  for (size_t block = 8; block <= max_block; block *= 4) {
    size_t count = block / sizeof(double);
    double best = (double)INFINITY, sent = 0;
    int reps = block <= 65536 ? 5 * o->reps : o->reps;
    for (int i = 0; i < reps; i++) {
      MPI_Barrier(comm);
      double before = m->sent_bytes, t0 = MPI_Wtime();
      mesh_all_gather(m, comm, in, out, count);
      double dt = MPI_Wtime() - t0, dt_max;
      MPI_Allreduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (dt_max < best) best = dt_max;
      sent = m->sent_bytes - before;
    }
    double v = (double)block * n;
    double expected = scale_collective_ring_link_bytes(SCALE_COLL_ALL_GATHER, n, v, false);
    double smin, smax;
    bool same = true; /* every rank gathers the same blocks: each equals its own input */
    for (int q = 0; q < n; q++)
      if (memcmp(out + (size_t)q * count, in, count * sizeof *in) != 0) same = false;
    bool ok = agree(same, sent, &smin, &smax);
    bool pass = ok && smin == expected && smax == expected;
    char axes[16];
    axes_name(&m->mesh, all, axes, sizeof axes);
    result(m, rep, "sweep", "all-gather", axes, n, v, smax, expected, pass ? "bytes" : "FAILED",
           best, NULL);
    if (!pass) fail(m, rep, "sweep: bytes sent differ from chapter 3's formula");
  }
  free(in), free(out);
  MPI_Comm_free(&comm);
}

/* ==== main ======================================================================================== */

/* The mesh (given, or P along X, or {X:2, Y:P/2} for an even P >= 4), the default sizes and
 * the Cartesian communicator; false after rank 0 reported a mesh that is not the ranks'. */
static bool setup_mesh(mesh_rank *m, options *o) {
  if (!o->mesh[0]) {
    if (m->n_ranks >= 4 && m->n_ranks % 2 == 0)
      snprintf(o->mesh, sizeof o->mesh, "{X:2, Y:%d}", m->n_ranks / 2);
    else
      snprintf(o->mesh, sizeof o->mesh, "{X:%d}", m->n_ranks);
  }
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  if (scale_sharding_mesh_parse(o->mesh, &m->mesh, &diag) != SCALE_OK ||
      scale_sharding_mesh_devices(&m->mesh) != m->n_ranks) {
    if (m->rank == 0)
      fprintf(stderr, "scale-mesh: --mesh '%s': %s\n", o->mesh,
              diag.message[0] ? diag.message : "its size is not the number of ranks");
    return false;
  }
  /* Default sizes that every sharding divides: any group of axes divides P, so a multiple of P
   * near 256 for the matrices, and of 8 P^2 near 1 MiB for the collectives. */
  if (!o->dims_given)
    o->dims[0] = o->dims[1] = o->dims[2] = m->n_ranks * fmax(1.0, round(256.0 / m->n_ranks));
  if (!o->bytes_given) {
    double quantum = 8.0 * m->n_ranks * m->n_ranks;
    o->bytes = quantum * fmax(1.0, floor(1048576.0 / quantum));
  }
  int dims[SCALE_MESH_AXES_MAX], periods[SCALE_MESH_AXES_MAX];
  for (int a = 0; a < m->mesh.n_axes; a++) dims[a] = (int)m->mesh.size[a], periods[a] = 1;
  MPI_Cart_create(MPI_COMM_WORLD, m->mesh.n_axes, dims, periods, 0, &m->cart);
  MPI_Cart_coords(m->cart, m->rank, m->mesh.n_axes, m->coords);
  return true;
}

/* Rank 0 opens --tsv with its header; false on every rank when it could not. */
static bool open_tsv(const mesh_rank *m, const options *o, report *rep) {
  if (m->rank == 0 && o->tsv) {
    rep->tsv = fopen(o->tsv, "w");
    if (!rep->tsv) fprintf(stderr, "scale-mesh: cannot write '%s'\n", o->tsv);
    else fprintf(rep->tsv, "kind\tname\taxes\tn\tbytes\tsent_bytes\texpected_sent_bytes\tcheck\t"
                           "time_s\textra\n");
  }
  int tsv_ok = m->rank != 0 || !o->tsv || rep->tsv, tsv_all;
  MPI_Allreduce(&tsv_ok, &tsv_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return tsv_all;
}

/* The four matmul cases of chapter 3 on the mesh's first axes (or --matmul). */
static void run_matmuls(mesh_rank *m, const options *o, report *rep) {
  if (o->matmul[0]) {
    run_matmul(m, o, rep, "given", o->matmul);
    return;
  }
  char x = m->mesh.name[0], y = m->mesh.n_axes > 1 ? m->mesh.name[1] : 0;
  char spec[4][96];
  if (y) snprintf(spec[0], sizeof spec[0], "A[I_%c, J] . B[J, K_%c]", x, y);
  else snprintf(spec[0], sizeof spec[0], "A[I_%c, J] . B[J, K]", x);
  snprintf(spec[1], sizeof spec[1], "A[I, J_%c] . B[J, K]", x);
  snprintf(spec[2], sizeof spec[2], "A[I, J_%c] . B[J_%c, K]", x, x);
  snprintf(spec[3], sizeof spec[3], "A[I_%c, J] . B[J, K_%c]", x, x);
  static const char *labels[4] = {"case1", "case2", "case3", "case4"};
  for (int i = 0; i < 4; i++) run_matmul(m, o, rep, labels[i], spec[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  static mesh_rank m;
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.n_ranks);
  options o;
  int rc = parse_options(argc, argv, m.rank, &o);
  if (rc < 0 && !setup_mesh(&m, &o)) rc = 2;
  if (rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  m.t0 = MPI_Wtime();
  report rep = {0};
  if (!open_tsv(&m, &o, &rep)) {
    MPI_Finalize();
    return 1;
  }
  if (m.rank == 0) printf("scale-mesh: %d ranks, mesh %s\n", m.n_ranks, o.mesh);

  bool all = strcmp(o.run, "all") == 0;
  if (all || strcmp(o.run, "collectives") == 0) {
    for (int a = 0; a < m.mesh.n_axes; a++) run_collectives_on(&m, &o, &rep, 1u << a);
    if (m.mesh.n_axes > 1) run_collectives_on(&m, &o, &rep, (1u << m.mesh.n_axes) - 1u);
  }
  if (all || strcmp(o.run, "matmul") == 0) run_matmuls(&m, &o, &rep);
  if (all || strcmp(o.run, "cmatmul") == 0) run_cmatmul(&m, &o, &rep);
  if (strcmp(o.run, "sweep") == 0) run_sweep(&m, &o, &rep);

  if (rep.tsv) fclose(rep.tsv);
  if (o.trace && mesh_trace_write(&m, o.trace) != 0) rep.n_failed++;
  if (m.rank == 0)
    printf("scale-mesh: %s\n", rep.n_failed ? "FAILED" : "every check passed");
  MPI_Comm_free(&m.cart);
  MPI_Finalize();
  return rep.n_failed ? 1 : 0;
}
