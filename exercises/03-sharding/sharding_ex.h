/* sharding_ex.h — exercises of chapter 3, "Sharded Matrices and How to Multiply Them": the
 * contract.
 *
 * Write each function in sharding_ex.c from the chapter's formulas; `scale grade sharding`
 * grades them. Conventions as in chapter 1 (rooflines_ex.h): SI base units, names end with their
 * unit, counts are int64_t, NaN outside the Domain, never abort or print.
 *
 * Vocabulary: a mesh has named axes (X, Y, Z) of given sizes; an array sharded A[I_XY, J] is
 * split over the product of the sizes of the axes named in its subscripts (its "shard factor")
 * and replicated over the other axes. Bandwidths are per link: "one-way" is what one link carries
 * in one direction, "bidirectional" (bidi) twice that, usable when the axis is a full ring.
 */
#ifndef SCALE_EX_SHARDING_H
#define SCALE_EX_SHARDING_H

#include <stdint.h>

/** Bytes each device holds of an array of 'array_bytes' split 'shard_factor' ways.
 *
 * Question: int8[128, 2048] sharded A[I_XY, J] on Mesh({X: 2, Y: 8, Z: 2}).
 * Units:  array_bytes [byte], shard_factor [count] -> [byte].
 * Domain: array_bytes >= 0, shard_factor >= 1; NaN otherwise.
 * Book:   ch. 3 "A unified notation for sharding", Pop Quiz.
 */
double ex_sharding_bytes_per_device(double array_bytes, int64_t shard_factor);

/** Bytes an array of 'array_bytes' occupies summed over all 'n_devices' devices of the mesh when
 * it is split 'shard_factor' ways and replicated over the remaining devices.
 *
 * Units:  array_bytes [byte], counts -> [byte].
 * Domain: array_bytes >= 0, shard_factor >= 1, n_devices a positive multiple of shard_factor;
 *         NaN otherwise.
 * Book:   ch. 3, Pop Quiz (the total over all devices).
 */
double ex_sharding_total_bytes(double array_bytes, int64_t n_devices, int64_t shard_factor);

/** Ratio of the bytes an array occupies over all devices to the size of one copy.
 *
 * Question: A[I_X, J, K, ...] on Mesh({X: 4, Y: 8, Z: 2}).
 * Units:  counts -> [1].
 * Domain: shard_factor >= 1, n_devices a positive multiple of shard_factor; NaN otherwise.
 * Book:   ch. 3, Question 1 [replicated sharding].
 */
double ex_sharding_replication_ratio(int64_t n_devices, int64_t shard_factor);

/** Time of an AllGather over 'n_axes' mesh axes that all have wraparound (full rings): the larger
 * of the bandwidth time (the gathered array over the bidirectional bandwidth of every axis) and
 * the latency time (hop_latency_s per hop along the longest path, half the sum of the sizes of
 * the gathered axes).
 *
 * Question: AllGather_X([B_X, D_Y]) and AllGather_XY([B_X, D_Y]) on a TPU v4p 4x4x4
 * (B = 1024, D = 4096, bf16, 9e10 byte/s bidi per axis, 1 us per hop); AllGather_X([B_X]) with
 * B = 128 (latency-bound).
 * Units:  gathered_bytes [byte] (the array after the gather, on one device), sum_axis_sizes and
 *         n_axes [count], bidi_bytes_per_s [byte/s per axis], hop_latency_s [s] -> [s].
 * Domain: gathered_bytes >= 0, sum_axis_sizes >= 1, n_axes >= 1, bidi_bytes_per_s > 0,
 *         hop_latency_s >= 0; NaN otherwise.
 * Book:   ch. 3 "Case 2", T = max(T_min * sum |X_i| / 2, V / (W_ici * n_axes)); Questions 2, 3.
 */
double ex_sharding_allgather_time_s(double gathered_bytes, int64_t sum_axis_sizes, int64_t n_axes,
                                    double bidi_bytes_per_s, double hop_latency_s);

/** Time of an AllGather along one axis of 'axis_size' devices without wraparound: shards travel
 * one way along the line, so there are axis_size - 1 hops, each moving one shard over the
 * one-way bandwidth and taking at least hop_latency_s.
 *
 * Question: AllGather_Y([E_Y, F]) on a TPU v5e with mesh {X: 8, Y: 4}, E = 2048, F = 8192,
 * bf16 (4.5e10 byte/s one way, 1 us per hop); then E = F = 256.
 * Units:  gathered_bytes [byte], axis_size [count], one_way_bytes_per_s [byte/s], latency [s]
 *         -> [s].
 * Domain: gathered_bytes >= 0, axis_size >= 1, one_way_bytes_per_s > 0, hop_latency_s >= 0;
 *         NaN otherwise.
 * Book:   ch. 3, Pop Quiz 2 [AllGather time].
 */
double ex_sharding_allgather_no_wrap_time_s(double gathered_bytes, int64_t axis_size,
                                            double one_way_bytes_per_s, double hop_latency_s);

/** Size of a message below which one ICI hop is latency-bound: what the link carries one way
 * during one hop latency.
 *
 * Question: a TPU v5e link (4.5e10 byte/s one way) with 1 us per hop.
 * Units:  one_way_bytes_per_s [byte/s], hop_latency_s [s] -> [byte].
 * Domain: one_way_bytes_per_s > 0, hop_latency_s >= 0; NaN otherwise.
 * Book:   ch. 3 "A note on ICI latency".
 */
double ex_sharding_latency_bound_bytes(double one_way_bytes_per_s, double hop_latency_s);

/** Bandwidth-bound time of an AllReduce of an array of 'array_bytes' (per device) along one full
 * ring: a ReduceScatter then an AllGather.
 *
 * Question: AllReduce_Z([B_X, D_Y]{U_Z}) on a TPU v4p 4x4x4, B = 1024, D = 4096, bf16.
 * Units:  array_bytes [byte], bidi_bytes_per_s [byte/s] -> [s].
 * Domain: array_bytes >= 0, bidi_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 3 "Case 3", T = 2 V / W_ici; Question 2 part 3.
 */
double ex_sharding_allreduce_time_s(double array_bytes, double bidi_bytes_per_s);

/** Bandwidth-bound time of an AllToAll of an array of 'array_bytes' along one full
 * (bidirectional) ring.
 *
 * Units:  array_bytes [byte], bidi_bytes_per_s [byte/s] -> [s].
 * Domain: array_bytes >= 0, bidi_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 3 "Our final communication primitive: the AllToAll" (a quarter of an AllGather).
 */
double ex_sharding_alltoall_time_s(double array_bytes, double bidi_bytes_per_s);

/** Time of A[B, D] *_D W[D_X, F] -> C[B, F] by strategy 1: AllGather W over X (bf16, one full
 * ring), then a full local matmul; compute and communication overlap (the larger wins).
 *
 * Units:  b, d, f [elements], flops_per_s [FLOP/s], bidi_bytes_per_s [byte/s] -> [s].
 * Domain: b, d, f >= 1, rates > 0; NaN otherwise.
 * Book:   ch. 3, Question 4 [matmul strategies], T = max(2BDF / C, 2DF / W_ici).
 */
double ex_sharding_strategy1_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                                    double bidi_bytes_per_s);

/** Time of the same matmul by strategy 2: multiply local shards A[B, D_X] * W[D_X, F] (the
 * activations are sharded the same way) into a bf16 partial sum C[B, F]{U_X}, then AllReduce it
 * over X; compute and communication overlap.
 *
 * Units:  b, d, f [elements], x [devices], flops_per_s [FLOP/s], bidi_bytes_per_s [byte/s] -> [s].
 * Domain: b, d, f, x >= 1, rates > 0; NaN otherwise.
 * Book:   ch. 3, Question 4, T = max(2BDF / (X C), 4BF / W_ici).
 */
double ex_sharding_strategy2_time_s(int64_t b, int64_t d, int64_t f, int64_t x,
                                    double flops_per_s, double bidi_bytes_per_s);

/** Contraction size D above which strategy 2's AllReduce takes less time than strategy 1's
 * matmul (4BF / W < 2BDF / C), so strategy 2 wins.
 *
 * Question: a TPU v5p (4.59e14 FLOP/s, 1.8e11 byte/s bidi).
 * Units:  flops_per_s [FLOP/s], bidi_bytes_per_s [byte/s] -> [elements].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 3, Question 4.
 */
double ex_sharding_strategy2_min_d(double flops_per_s, double bidi_bytes_per_s);

/** Ratio of the communication of "AllGather A, then multiply" to that of "multiply locally, then
 * ReduceScatter the result" for A[N, M_X] * B[M, K] -> C[N, K] (both bandwidth-bound).
 *
 * Units:  n, m, k [elements] -> [1].
 * Domain: n, m, k >= 1; NaN otherwise.
 * Book:   ch. 3, Question 9 part 3.
 */
double ex_sharding_gather_vs_scatter_ratio(int64_t n, int64_t m, int64_t k);

/** Elements that cross one link during an AllGather (or ReduceScatter) of an n x n matrix
 * sharded A[I_X, J] over a one-directional ring of 'd' devices.
 *
 * Units:  n [elements], d [devices] -> [elements].
 * Domain: n >= 1, d >= 1; NaN otherwise.
 * Book:   ch. 3, Question 10 part 1.
 */
double ex_sharding_allgather_link_elements(int64_t n, int64_t d);

/** Elements that cross one link during an AllToAll A[I_X, J] -> A[I, J_X] of an n x n matrix over
 * a one-directional ring of 'd' devices.
 *
 * Units:  n [elements], d [devices] -> [elements].
 * Domain: n >= 1, d >= 1; NaN otherwise.
 * Book:   ch. 3, Question 10 part 2.
 */
double ex_sharding_alltoall_link_elements(int64_t n, int64_t d);

/** Chunk-hops one device generates in an AllToAll on a bidirectional ring of 'd' devices: it
 * sends one chunk to every other device, each the shorter way round, and a chunk travelling k
 * hops counts k.
 *
 * Units:  d [devices] -> [chunk-hops].
 * Domain: d >= 1; NaN otherwise.
 * Book:   ch. 3, the AllToAll footnote (d^2 / 4 for even d) and Question 10 part 5.
 */
double ex_sharding_alltoall_chunk_hops(int64_t d);

/* ---- a decision exercise ---------------------------------------------------------------------- */

#ifndef SCALE_EX_SHARDING_CHOICE_DEFINED /* the grader reads this header twice */
#define SCALE_EX_SHARDING_CHOICE_DEFINED
/** A strategy for A[B, D] *_D W[D_X, F] -> C[B, F]: 1 AllGather W, then multiply; 2 multiply
 * the local shards (A sharded the same way), then AllReduce C; 0 none. */
typedef struct {
  int64_t strategy;
} ex_sharding_choice;
#endif

/** Which strategy of Question 4 is faster (a decision) for A[B, D] *_D W[D_X, F] on an axis X of
 * x TPU v5p chips in bf16, given the chip's bf16 FLOP/s and bidirectional ICI bandwidth. The
 * grader times both with the library's precise collectives on a v5p ring of x chips
 * (scale_sharding_compare_strategies) and gives you best / yours of the time, over several
 * shapes; return strategy 0 outside the Domain.
 *
 * Question: B = 1024, D = 8192, F = 32768, X = 4 (D > 5100: strategy 2), and B = 8192,
 * D = 2048 (strategy 1).
 * Units:  b, d, f [elements], x [chips], flops_per_s [FLOP/s], bidi_bytes_per_s [byte/s]
 *         -> a strategy.
 * Domain: b, d, f >= 1, x >= 2, rates > 0; strategy 0 otherwise.
 * Book:   ch. 3, Question 4 (strategy 2 wins when D > 2 C / W_ici, 5100 on v5p).
 */
ex_sharding_choice ex_sharding_matmul_strategy(int64_t b, int64_t d, int64_t f, int64_t x,
                                               double flops_per_s, double bidi_bytes_per_s);

#endif
