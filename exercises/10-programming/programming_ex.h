/* programming_ex.h — exercises of chapter 10, "Programming TPUs in JAX": the contract.
 *
 * Write each function in programming_ex.c from the chapter's formulas; `scale grade
 * programming` (or `scale grade programming.crossover_bytes` for one exercise) tells you how you
 * did. You have only this header and the C standard library: no libscale.
 *
 * Conventions (the same for every chapter):
 *   - every quantity is a double in SI base units and its name ends with its unit: bytes,
 *     bytes_per_s a bandwidth [byte/s], _s seconds;
 *   - counts (ranks, messages) are int64_t; a choice among a few kinds is an int;
 *   - outside its Domain a function returns NaN (from <math.h>); it never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_PROGRAMMING_H
#define SCALE_EX_PROGRAMMING_H

#include <stdint.h>

/** Bytes one rank sends during a collective over n ranks, as the mesh executor runs it: a ring
 * AllGather or ReduceScatter (op 0 or 1) sends (n - 1)/n of the array, a ring AllReduce (op 2)
 * twice that, an AllToAll by pairwise exchanges (op 3) every block but its own, (n - 1)/n^2 of
 * it. 'bytes' is V: the gathered array (AllGather), the unreduced array on each rank
 * (ReduceScatter, AllReduce), the whole array across the group (AllToAll).
 *
 * Question: an AllReduce of 1 MiB over 4 ranks; how many bytes does each rank send?
 * Units:  op [0..3], n [count], bytes [bytes] -> [bytes].
 * Domain: op in 0..3, n >= 1, bytes >= 0; NaN otherwise.
 * Book:   ch. 3 "A Deeper Dive into TPU Communication Primitives"; ch. 10 (counted by scale-mesh).
 */
double ex_programming_ring_bytes_sent(int op, int64_t n, double bytes);

/** Bytes one rank sends for a sharded matmul A . B over a mesh axis of n ranks, by chapter 3's
 * case: 1 (nothing sharded on the contraction) nothing; 2 (one operand's contraction sharded)
 * and 4 (both share an axis on free dimensions) a ring AllGather of that operand, whose gathered
 * size on one rank is 'gathered_bytes'; 3 (both contractions sharded on the axis) a ring
 * AllReduce of the partial sums of C, 'c_bytes' on each rank.
 *
 * Question: case 2 with A[I, J_X] of 256 x 256 doubles on X = 2; how many bytes per rank?
 * Units:  case_number [1..4], n [count], gathered_bytes [bytes], c_bytes [bytes] -> [bytes].
 * Domain: case_number in 1..4, n >= 1, both sizes >= 0; NaN otherwise.
 * Book:   ch. 3 cases 1-4; ch. 10 (the executor's bytes).
 */
double ex_programming_case_bytes_sent(int case_number, int64_t n, double gathered_bytes,
                                      double c_bytes);

/** Time of 'n_messages' messages carrying 'bytes' in all, in the latency-bandwidth (alpha-beta)
 * model: n_messages x alpha + bytes / bandwidth.
 *
 * Question: a ring AllGather over 4 ranks is 3 messages; with alpha = 6 us and 2.2e9 byte/s,
 * how long does it take to send 1.5 MiB?
 * Units:  alpha_s [s], bytes_per_s [byte/s], n_messages [count], bytes [bytes] -> [s].
 * Domain: alpha_s >= 0, bytes_per_s > 0, n_messages >= 0, bytes >= 0; NaN otherwise.
 * Book:   ch. 3 "A note on ICI latency" (latency-bound collectives); ch. 10 (the fit).
 */
double ex_programming_alpha_beta_time_s(double alpha_s, double bytes_per_s, int64_t n_messages,
                                        double bytes);

/** The message size at which latency and bandwidth cost the same: alpha x bandwidth. Smaller
 * messages are latency-bound, larger ones bandwidth-bound.
 *
 * Question: alpha = 1 us and 4.5e10 byte/s (one TPU v5e ICI link); where is the crossover?
 * Units:  alpha_s [s], bytes_per_s [byte/s] -> [bytes].
 * Domain: alpha_s >= 0, bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 3 "A note on ICI latency"; ch. 10.
 */
double ex_programming_crossover_bytes(double alpha_s, double bytes_per_s);

/** Time of a collective matmul over n ranks: the matmul of t_matmul_s split into n chunks, the
 * AllGather of t_gather_s into n - 1 ring steps, each step overlapped with one chunk's matmul:
 * t_matmul_s / n + (n - 1) max(t_matmul_s / n, t_gather_s / (n - 1)). With n = 1 there is
 * nothing to gather: t_matmul_s.
 *
 * Question: a 300 us matmul and a 200 us AllGather on 4 ranks: how long overlapped, against
 * 500 us one after the other?
 * Units:  [s], [s], n [count] -> [s].
 * Domain: both times >= 0, n >= 1; NaN otherwise.
 * Book:   ch. 10 "collective matmul" (311 us unoverlapped, 244 us overlapped).
 */
double ex_programming_collective_matmul_time_s(double t_matmul_s, double t_gather_s, int64_t n);

#endif
