/* mesh_coll.c — the collectives of chapter 3 on point-to-point MPI messages, counted, and the
 * trace file (contract in mesh.h).
 *
 * Ring algorithms, as the book draws them on a TPU torus axis: each of n ranks talks only to
 * its right neighbour (sends) and its left one (receives), n - 1 steps of one block each. A
 * rank therefore sends (n - 1)/n of the array for an AllGather or a ReduceScatter and twice that
 * for an AllReduce: chapter 3's bytes, which the executor checks exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

MPI_Comm mesh_axes_comm(const mesh_rank *m, unsigned mask) {
  int remain[SCALE_MESH_AXES_MAX] = {0};
  for (int a = 0; a < m->mesh.n_axes; a++) remain[a] = (mask >> a) & 1u;
  MPI_Comm comm;
  MPI_Cart_sub(m->cart, remain, &comm);
  return comm;
}

int mesh_event_begin(mesh_rank *m, const char *name, const char *cat) {
  if (m->n_events >= MESH_EVENTS_MAX) return -1;
  mesh_event *e = &m->events[m->n_events];
  snprintf(e->name, sizeof e->name, "%s", name);
  snprintf(e->cat, sizeof e->cat, "%s", cat);
  e->start_s = MPI_Wtime() - m->t0;
  e->dur_s = 0.0;
  e->bytes = 0.0;
  return m->n_events++;
}

void mesh_event_end(mesh_rank *m, int i, double sent_before) {
  if (i < 0 || i >= m->n_events) return;
  mesh_event *e = &m->events[i];
  e->dur_s = MPI_Wtime() - m->t0 - e->start_s;
  e->bytes = m->sent_bytes - sent_before;
}

/* Sends 'count' doubles to 'to' and receives as many from 'from', counting the bytes sent. */
static void exchange(mesh_rank *m, MPI_Comm comm, const double *send, int to, double *recv,
                     int from, size_t count) {
  MPI_Sendrecv(send, (int)count, MPI_DOUBLE, to, 0, recv, (int)count, MPI_DOUBLE, from, 0, comm,
               MPI_STATUS_IGNORE);
  m->sent_bytes += (double)count * sizeof(double);
}

/* [listing:ring-allgather] */
void mesh_all_gather(mesh_rank *m, MPI_Comm comm, const double *in, double *out, size_t count) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  memcpy(out + (size_t)r * count, in, count * sizeof *in);
  int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int t = 0; t < n - 1; t++) {
    int send_block = (r - t + n) % n, recv_block = (r - t - 1 + n) % n;
    exchange(m, comm, out + (size_t)send_block * count, right, out + (size_t)recv_block * count,
             left, count);
  }
}
/* [/listing:ring-allgather] */

/* [listing:ring-reduce-scatter] */
void mesh_reduce_scatter(mesh_rank *m, MPI_Comm comm, double *in, double *out, size_t count) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  double *tmp = malloc((count ? count : 1) * sizeof *tmp);
  if (!tmp) MPI_Abort(MPI_COMM_WORLD, 1);
  int right = (r + 1) % n, left = (r - 1 + n) % n;
  /* Step t: pass on the partial sum of block r - t - 1, receive that of block r - t - 2 and add
   * this rank's own part to it. After n - 1 steps block r has every rank's part. */
  for (int t = 0; t < n - 1; t++) {
    int send_block = (r - t - 1 + 2 * n) % n, recv_block = (r - t - 2 + 2 * n) % n;
    exchange(m, comm, in + (size_t)send_block * count, right, tmp, left, count);
    double *acc = in + (size_t)recv_block * count;
    for (size_t i = 0; i < count; i++) acc[i] = tmp[i] + acc[i];
  }
  memcpy(out, in + (size_t)r * count, count * sizeof *out);
  free(tmp);
}
/* [/listing:ring-reduce-scatter] */

void mesh_all_reduce(mesh_rank *m, MPI_Comm comm, double *buf, size_t count) {
  double *mine = malloc((count ? count : 1) * sizeof *mine);
  if (!mine) MPI_Abort(MPI_COMM_WORLD, 1);
  mesh_reduce_scatter(m, comm, buf, mine, count);
  mesh_all_gather(m, comm, mine, buf, count);
  free(mine);
}

void mesh_all_to_all(mesh_rank *m, MPI_Comm comm, const double *in, double *out, size_t count) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  memcpy(out + (size_t)r * count, in + (size_t)r * count, count * sizeof *in);
  for (int s = 1; s < n; s++) {
    int to = (r + s) % n, from = (r - s + n) % n;
    exchange(m, comm, in + (size_t)to * count, to, out + (size_t)from * count, from, count);
  }
}

/* ---- the trace ------------------------------------------------------------------------------ */

int mesh_trace_write(mesh_rank *m, const char *path) {
  int *counts = NULL, *displs = NULL;
  mesh_event *all = NULL;
  int my_bytes = m->n_events * (int)sizeof(mesh_event);
  if (m->rank == 0) {
    counts = calloc((size_t)m->n_ranks, sizeof *counts);
    displs = calloc((size_t)m->n_ranks, sizeof *displs);
    if (!counts || !displs) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Gather(&my_bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  size_t total = 0;
  if (m->rank == 0) {
    for (int i = 0; i < m->n_ranks; i++) {
      displs[i] = (int)total;
      total += (size_t)counts[i];
    }
    all = malloc(total ? total : 1);
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Gatherv(m->events, my_bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (m->rank == 0) {
    FILE *f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "scale-mesh: cannot write the trace '%s'\n", path);
      rc = 1;
    } else {
      fprintf(f, "{\"displayTimeUnit\": \"ms\",\n \"otherData\": {\"tool\": \"scale-mesh\", "
                 "\"ranks\": %d},\n \"traceEvents\": [\n",
              m->n_ranks);
      fprintf(f, "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, "
                 "\"args\": {\"name\": \"scale-mesh, %d ranks\"}}",
              m->n_ranks);
      for (int r = 0; r < m->n_ranks; r++) {
        int coords[SCALE_MESH_AXES_MAX] = {0};
        MPI_Cart_coords(m->cart, r, m->mesh.n_axes, coords);
        char where[128] = "";
        size_t len = 0;
        for (int a = 0; a < m->mesh.n_axes && len < sizeof where - 16; a++)
          len += (size_t)snprintf(where + len, sizeof where - len, "%s%c=%d", a ? " " : "",
                                  m->mesh.name[a], coords[a]);
        fprintf(f, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": %d, "
                   "\"args\": {\"name\": \"rank %d (%s)\"}}",
                r, r, where);
      }
      for (int r = 0; r < m->n_ranks; r++) {
        const mesh_event *ev = (const mesh_event *)((const char *)all + displs[r]);
        int n = counts[r] / (int)sizeof(mesh_event);
        for (int i = 0; i < n; i++)
          fprintf(f, ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 0, "
                     "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"bytes_sent\": %.0f}}",
                  ev[i].name, ev[i].cat, r, ev[i].start_s * 1e6, ev[i].dur_s * 1e6, ev[i].bytes);
      }
      fprintf(f, "\n ]\n}\n");
      if (fclose(f) != 0) {
        fprintf(stderr, "scale-mesh: cannot write the trace '%s'\n", path);
        rc = 1;
      }
    }
  }
  free(counts);
  free(displs);
  free(all);
  return rc;
}
