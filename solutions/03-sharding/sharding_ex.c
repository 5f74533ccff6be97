/* sharding_ex.c — reference solutions of chapter 3, "Sharded Matrices and How to Multiply Them".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "sharding_ex.h"

#include <math.h>

static double max2(double a, double b) { return a > b ? a : b; }

double ex_sharding_bytes_per_device(double array_bytes, int64_t shard_factor) {
  if (!(array_bytes >= 0.0) || shard_factor < 1) return NAN;
  return array_bytes / (double)shard_factor;
}

double ex_sharding_total_bytes(double array_bytes, int64_t n_devices, int64_t shard_factor) {
  if (!(array_bytes >= 0.0) || shard_factor < 1 || n_devices < 1 || n_devices % shard_factor)
    return NAN;
  /* One full copy per group of shard_factor devices. */
  return array_bytes * (double)(n_devices / shard_factor);
}

double ex_sharding_replication_ratio(int64_t n_devices, int64_t shard_factor) {
  if (shard_factor < 1 || n_devices < 1 || n_devices % shard_factor) return NAN;
  return (double)(n_devices / shard_factor);
}

double ex_sharding_allgather_time_s(double gathered_bytes, int64_t sum_axis_sizes, int64_t n_axes,
                                    double bidi_bytes_per_s, double hop_latency_s) {
  if (!(gathered_bytes >= 0.0) || sum_axis_sizes < 1 || n_axes < 1 || !(bidi_bytes_per_s > 0.0) ||
      !(hop_latency_s >= 0.0))
    return NAN;
  double t_latency = hop_latency_s * (double)sum_axis_sizes / 2.0;
  double t_bandwidth = gathered_bytes / (bidi_bytes_per_s * (double)n_axes);
  return max2(t_latency, t_bandwidth);
}

double ex_sharding_allgather_no_wrap_time_s(double gathered_bytes, int64_t axis_size,
                                            double one_way_bytes_per_s, double hop_latency_s) {
  if (!(gathered_bytes >= 0.0) || axis_size < 1 || !(one_way_bytes_per_s > 0.0) ||
      !(hop_latency_s >= 0.0))
    return NAN;
  double shard_bytes = gathered_bytes / (double)axis_size;
  double t_hop = max2(hop_latency_s, shard_bytes / one_way_bytes_per_s);
  return (double)(axis_size - 1) * t_hop;
}

double ex_sharding_latency_bound_bytes(double one_way_bytes_per_s, double hop_latency_s) {
  if (!(one_way_bytes_per_s > 0.0) || !(hop_latency_s >= 0.0)) return NAN;
  return one_way_bytes_per_s * hop_latency_s;
}

double ex_sharding_allreduce_time_s(double array_bytes, double bidi_bytes_per_s) {
  if (!(array_bytes >= 0.0) || !(bidi_bytes_per_s > 0.0)) return NAN;
  return 2.0 * array_bytes / bidi_bytes_per_s;
}

double ex_sharding_alltoall_time_s(double array_bytes, double bidi_bytes_per_s) {
  if (!(array_bytes >= 0.0) || !(bidi_bytes_per_s > 0.0)) return NAN;
  return array_bytes / (4.0 * bidi_bytes_per_s);
}

double ex_sharding_strategy1_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                                    double bidi_bytes_per_s) {
  if (b < 1 || d < 1 || f < 1 || !(flops_per_s > 0.0) || !(bidi_bytes_per_s > 0.0)) return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  double t_math = 2.0 * bd * dd * fd / flops_per_s;
  double t_comms = 2.0 * dd * fd / bidi_bytes_per_s; /* AllGather of bf16 W[D, F] */
  return max2(t_math, t_comms);
}

double ex_sharding_strategy2_time_s(int64_t b, int64_t d, int64_t f, int64_t x, double flops_per_s,
                                    double bidi_bytes_per_s) {
  if (b < 1 || d < 1 || f < 1 || x < 1 || !(flops_per_s > 0.0) || !(bidi_bytes_per_s > 0.0))
    return NAN;
  double bd = (double)b, dd = (double)d, fd = (double)f;
  double t_math = 2.0 * bd * dd * fd / ((double)x * flops_per_s);
  double t_comms = 2.0 * (2.0 * bd * fd) / bidi_bytes_per_s; /* AllReduce of bf16 C[B, F] */
  return max2(t_math, t_comms);
}

double ex_sharding_strategy2_min_d(double flops_per_s, double bidi_bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(bidi_bytes_per_s > 0.0)) return NAN;
  /* 4BF / W < 2BDF / C  <=>  D > 2 C / W. */
  return 2.0 * flops_per_s / bidi_bytes_per_s;
}

double ex_sharding_gather_vs_scatter_ratio(int64_t n, int64_t m, int64_t k) {
  if (n < 1 || m < 1 || k < 1) return NAN;
  /* The AllGather moves A[N, M]; the ReduceScatter moves the partial sums of C[N, K]. */
  return ((double)n * (double)m) / ((double)n * (double)k);
}

double ex_sharding_allgather_link_elements(int64_t n, int64_t d) {
  if (n < 1 || d < 1) return NAN;
  double n2 = (double)n * (double)n;
  /* d - 1 steps, each moving one strip of n/d x n elements across every link. */
  return n2 * (double)(d - 1) / (double)d;
}

double ex_sharding_alltoall_link_elements(int64_t n, int64_t d) {
  if (n < 1 || d < 1) return NAN;
  double n2 = (double)n * (double)n;
  double dd = (double)d;
  /* Blocks of n^2 / d^2 travel 1, 2, ..., d - 1 hops: d (d - 1) / 2 block-hops per device. */
  return n2 / (dd * dd) * dd * (dd - 1.0) / 2.0;
}

double ex_sharding_alltoall_chunk_hops(int64_t d) {
  if (d < 1) return NAN;
  double hops = 0.0;
  for (int64_t k = 1; k < d; k++) hops += (double)(k < d - k ? k : d - k);
  return hops;
}

ex_sharding_choice ex_sharding_matmul_strategy(int64_t b, int64_t d, int64_t f, int64_t x,
                                               double flops_per_s, double bidi_bytes_per_s) {
  ex_sharding_choice none = {0};
  if (x < 2) return none;
  /* Time both with the book's roofline of each (Question 4) and keep the faster; a tie goes to
   * strategy 1, which moves no partial sums. */
  double t1 = ex_sharding_strategy1_time_s(b, d, f, flops_per_s, bidi_bytes_per_s);
  double t2 = ex_sharding_strategy2_time_s(b, d, f, x, flops_per_s, bidi_bytes_per_s);
  if (isnan(t1) || isnan(t2)) return none;
  ex_sharding_choice pick = {t2 < t1 ? 2 : 1};
  return pick;
}
