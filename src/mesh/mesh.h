/* mesh.h — internals of `scale-mesh`, the MPI mesh executor (chapter 10). Not installed.
 *
 * The executor runs the book's sharded programs for real: P MPI ranks form a logical device
 * mesh (MPI_Cart_create, one sub-communicator per set of axes), each rank holds its shards of
 * the arrays, and the collectives of chapter 3 move them. The collectives are written here on
 * point-to-point messages (a ring for AllGather, ReduceScatter and AllReduce; pairwise
 * exchanges for AllToAll) rather than taken from MPI, so that every byte a rank sends is
 * counted and can be checked against chapter 3's formulas exactly, and every phase lands in
 * the trace.
 */
#ifndef SCALE_MESH_H
#define SCALE_MESH_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "scale.h"

/* ---- trace events (Chrome trace-event format, one lane per rank) ---------------------------- */

enum { MESH_EVENTS_MAX = 4096, MESH_NAME_MAX = 48 };

/** One complete event ("ph": "X"): a phase of one rank. */
typedef struct {
  char name[MESH_NAME_MAX]; /**< "all-gather X", "matmul", ... */
  char cat[16];             /**< "collective", "compute", "check" */
  double start_s;           /**< MPI_Wtime() at the start, relative to the run's start */
  double dur_s;             /**< duration [s] */
  double bytes;             /**< bytes this rank sent during the event (0 for compute) */
} mesh_event;

/** The state of one rank. */
typedef struct {
  int rank, n_ranks;
  MPI_Comm cart;            /**< the mesh as a Cartesian communicator */
  scale_mesh mesh;          /**< axis names and sizes (library notation) */
  int coords[SCALE_MESH_AXES_MAX];
  double t0;                /**< MPI_Wtime() at the start of the run */
  double sent_bytes;        /**< bytes sent since the last mesh_sent_reset() */
  int n_events;
  mesh_event events[MESH_EVENTS_MAX];
} mesh_rank;

/** The communicator of the mesh axes in 'mask' (bit i = mesh axis i), in the mesh's axis
 * order; the caller frees it with MPI_Comm_free. A rank's index in it is the mixed-radix index
 * of its coordinates along those axes (first axis most significant). */
MPI_Comm mesh_axes_comm(const mesh_rank *m, unsigned mask);

/** Opens an event; returns its index (or -1 when the table is full) for mesh_event_end(). */
int mesh_event_begin(mesh_rank *m, const char *name, const char *cat);

/** Closes event 'i' with the bytes sent since it began. */
void mesh_event_end(mesh_rank *m, int i, double sent_before);

/* ---- collectives on a communicator (counted) ------------------------------------------------- */

/** Ring AllGather: 'in' holds this rank's block of 'count' doubles; 'out' (n x count) receives
 * every block in rank order. n - 1 steps, each sending one block to the right neighbour. */
void mesh_all_gather(mesh_rank *m, MPI_Comm comm, const double *in, double *out, size_t count);

/** Ring ReduceScatter: 'in' holds n blocks of 'count' doubles (this rank's partial sums); 'out'
 * receives block r (r = this rank) summed over the group, added in ring order. 'in' is
 * clobbered (it is the accumulation buffer). */
void mesh_reduce_scatter(mesh_rank *m, MPI_Comm comm, double *in, double *out, size_t count);

/** Ring AllReduce: a ReduceScatter then an AllGather on 'buf' (n x count doubles), in place. */
void mesh_all_reduce(mesh_rank *m, MPI_Comm comm, double *buf, size_t count);

/** AllToAll by pairwise exchanges: 'in' holds n blocks of 'count' doubles, block j for rank j;
 * 'out' receives block r of every rank, in rank order. */
void mesh_all_to_all(mesh_rank *m, MPI_Comm comm, const double *in, double *out, size_t count);

/* ---- the trace file ----------------------------------------------------------------------- */

/** Gathers every rank's events on rank 0 and writes them there as a Chrome trace-event JSON
 * (open it in ui.perfetto.dev or chrome://tracing): one process per run, one thread per rank.
 * Returns 0, or 1 on rank 0 when the file cannot be written (after saying so). Collective. */
int mesh_trace_write(mesh_rank *m, const char *path);

#endif
