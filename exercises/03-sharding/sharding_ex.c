/* sharding_ex.c — exercises of chapter 3, "Sharded Matrices and How to Multiply Them":
 * your answers.
 *
 * Replace each body with your own code; every stub returns NaN ("not answered yet").
 * The contract (units, domain, the question) is in sharding_ex.h. Check your work with
 * `scale grade sharding`.
 */
#include "sharding_ex.h"

#include <math.h>

double ex_sharding_bytes_per_device(double array_bytes, int64_t shard_factor) {
  (void)array_bytes; (void)shard_factor;
  return NAN;
}

double ex_sharding_total_bytes(double array_bytes, int64_t n_devices, int64_t shard_factor) {
  (void)array_bytes; (void)n_devices; (void)shard_factor;
  return NAN;
}

double ex_sharding_replication_ratio(int64_t n_devices, int64_t shard_factor) {
  (void)n_devices; (void)shard_factor;
  return NAN;
}

double ex_sharding_allgather_time_s(double gathered_bytes, int64_t sum_axis_sizes, int64_t n_axes,
                                    double bidi_bytes_per_s, double hop_latency_s) {
  (void)gathered_bytes;
  (void)sum_axis_sizes;
  (void)n_axes;
  (void)bidi_bytes_per_s;
  (void)hop_latency_s;
  return NAN;
}

double ex_sharding_allgather_no_wrap_time_s(double gathered_bytes, int64_t axis_size,
                                            double one_way_bytes_per_s, double hop_latency_s) {
  (void)gathered_bytes; (void)axis_size; (void)one_way_bytes_per_s; (void)hop_latency_s;
  return NAN;
}

double ex_sharding_latency_bound_bytes(double one_way_bytes_per_s, double hop_latency_s) {
  (void)one_way_bytes_per_s; (void)hop_latency_s;
  return NAN;
}

double ex_sharding_allreduce_time_s(double array_bytes, double bidi_bytes_per_s) {
  (void)array_bytes; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_sharding_alltoall_time_s(double array_bytes, double bidi_bytes_per_s) {
  (void)array_bytes; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_sharding_strategy1_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                                    double bidi_bytes_per_s) {
  (void)b; (void)d; (void)f; (void)flops_per_s; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_sharding_strategy2_time_s(int64_t b, int64_t d, int64_t f, int64_t x, double flops_per_s,
                                    double bidi_bytes_per_s) {
  (void)b; (void)d; (void)f; (void)x; (void)flops_per_s; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_sharding_strategy2_min_d(double flops_per_s, double bidi_bytes_per_s) {
  (void)flops_per_s; (void)bidi_bytes_per_s;
  return NAN;
}

double ex_sharding_gather_vs_scatter_ratio(int64_t n, int64_t m, int64_t k) {
  (void)n; (void)m; (void)k;
  return NAN;
}

double ex_sharding_allgather_link_elements(int64_t n, int64_t d) {
  (void)n; (void)d;
  return NAN;
}

double ex_sharding_alltoall_link_elements(int64_t n, int64_t d) {
  (void)n; (void)d;
  return NAN;
}

double ex_sharding_alltoall_chunk_hops(int64_t d) {
  (void)d;
  return NAN;
}

ex_sharding_choice ex_sharding_matmul_strategy(int64_t b, int64_t d, int64_t f, int64_t x,
                                               double flops_per_s, double bidi_bytes_per_s) {
  (void)b; (void)d; (void)f; (void)x; (void)flops_per_s; (void)bidi_bytes_per_s;
  ex_sharding_choice none = {0}; /* strategy 0: not a strategy, it scores nothing */
  return none;
}
