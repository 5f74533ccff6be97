/* profiling_ex.h — exercises of chapter 9, "How to Profile TPU Programs": the contract.
 *
 * Write each function in profiling_ex.c from the chapter's formulas; `scale grade profiling`
 * (or `scale grade profiling.expected_matmul_time_s` for one exercise) tells you how you did.
 * You have only this header and the C standard library: no libscale.
 *
 * Conventions (the same for every chapter):
 *   - every quantity is a double in SI base units and its name ends with its unit: FLOPs counts
 *     work [FLOP], flops_per_s a rate [FLOP/s], bytes_per_s a bandwidth [byte/s], _s seconds;
 *   - tensor dimensions are int64_t, but take products in double: 2*b*d*f overflows;
 *   - outside its Domain a function returns NaN (from <math.h>); it never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_PROFILING_H
#define SCALE_EX_PROFILING_H

#include <stdint.h>

/** Time a profile should show for the matmul X[B, D] . W[D, F] -> Z[B, F] done at a combined
 * peak of 'flops_per_s' (compute-bound: the FLOPs over the peak).
 *
 * Question: the book's FFW up-projection is bf16[32, 1024, 8192] . bf16[8192, 32768] (so
 * B = 32 x 1024) on 8 TPU v2 cores of 23e12 FLOP/s each; what should the profile show?
 * Units:  b, d, f [count], flops_per_s [FLOP/s] -> [s].
 * Domain: b, d, f >= 1, flops_per_s > 0; NaN otherwise.
 * Book:   ch. 9 "Looking at a real(ish) example profile": 95.6 ms expected, 96 ms measured.
 */
double ex_profiling_expected_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s);

/** Time of a ReduceScatter in the book's one-hop estimate: the array of 'array_bytes' is sharded
 * over its batch by 'n_batch_shards', and each shard (array_bytes / n_batch_shards) crosses a
 * link of bidirectional bandwidth 'bidi_bytes_per_s'.
 *
 * Question: bf16[32, 1024, 8192] with the batch sharded 4 ways on a TPU v2 4x2, 1.2e11 byte/s
 * bidirectional: how long should the ReduceScatter take?
 * Units:  array_bytes [bytes], n_batch_shards [count], bidi_bytes_per_s [byte/s] -> [s].
 * Domain: array_bytes >= 0, n_batch_shards >= 1, bidi_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 9: each shard is 2 x 8 x 1024 x 8192 bytes, "roughly 1.1ms"; 1.13 ms measured.
 */
double ex_profiling_reduce_scatter_time_s(double array_bytes, int64_t n_batch_shards,
                                          double bidi_bytes_per_s);

/** How many times larger a rows x cols array is in memory once each dimension is padded up to
 * a whole number of tiles of tile_rows x tile_cols (padded elements / elements).
 *
 * Question: f32[3,5]{1,0:T(2,2)}: how much memory does the tiling cost?
 * Units:  counts -> [ratio].
 * Domain: every argument >= 1; NaN otherwise.
 * Book:   ch. 9 "How to read an XLA op": padded to [4, 6], "about 1.6x".
 */
double ex_profiling_tiled_padding_factor(int64_t rows, int64_t cols, int64_t tile_rows,
                                         int64_t tile_cols);

/** The true (global) size of a dimension that a profile shows sharded: the local size times the
 * size of the replica group {first, first + stride, ..., last} its collective runs over.
 *
 * Question: the per-shard matmul shows W as [4096, 8192], and the final AllReduce has
 * replica_groups={{0,16,32,48,64,80,96,112},...}; what is W's true first dimension?
 * Units:  local_dim [count], device ids -> [count].
 * Domain: local_dim >= 1, first >= 0, stride >= 1, last >= first with (last - first) a
 *         multiple of stride; NaN otherwise.
 * Book:   ch. 9 Question 1: 8-way model parallelism, W is bf16[32768, 8192].
 */
double ex_profiling_true_dim(int64_t local_dim, int64_t first, int64_t stride, int64_t last);

/** Arithmetic intensity of the GEMM C[m, n] = A[m, k] . B[k, n] in memory: 2mnk FLOPs over the
 * bytes of reading A and B once and writing C once, each element 'elem_bytes' wide.
 *
 * Question: what intensity does a square fp32 GEMM of 1024 reach, and a GEMV (m = 1)?
 * Units:  m, n, k [count], elem_bytes [bytes] -> [FLOP/byte].
 * Domain: m, n, k >= 1, elem_bytes > 0; NaN otherwise.
 * Book:   ch. 1 Question 1 (BD + DF + BF elements moved); ch. 9 (this chapter's sweep).
 */
double ex_profiling_gemm_intensity_flops_per_byte(int64_t m, int64_t n, int64_t k,
                                                  double elem_bytes);

/** Theoretical peak of a CPU: cores x clock x FMA units per core x vector lanes x 2 FLOPs per
 * fused multiply-add, with vector_bits / (8 elem_bytes) lanes.
 *
 * Question: two cores at 2.6 GHz, 512-bit vectors, two FMA units, fp32?
 * Units:  n_cores [count], clock_hz [1/s], vector_bits [bit], n_fma_units [count],
 *         elem_bytes [bytes] -> [FLOP/s].
 * Domain: every argument > 0 and at least one lane (vector_bits >= 8 elem_bytes); NaN otherwise.
 * Book:   ch. 2 computes an MXU's rate the same way; ch. 9 (the measured roofline).
 */
double ex_profiling_cpu_peak_flops_per_s(double n_cores, double clock_hz, double vector_bits,
                                         double n_fma_units, double elem_bytes);

/** Expected time of an operation on a measured roofline with perfect overlap:
 * max(flops / peak, bytes / bandwidth).
 *
 * Question: with a measured peak of 1e11 FLOP/s and 2e10 byte/s, how long should 1e9 FLOPs
 * moving 4e8 bytes take?
 * Units:  flops [FLOP], bytes [bytes], peak [FLOP/s], bandwidth [byte/s] -> [s].
 * Domain: flops >= 0, bytes >= 0, peak > 0, bandwidth > 0; NaN otherwise.
 * Book:   ch. 9 "how long do we expect this to take?"; ch. 1 T_lower.
 */
double ex_profiling_roofline_time_s(double flops, double bytes, double peak_flops_per_s,
                                    double bytes_per_s);

/** Fraction of a peak a measurement reached: (work / time) / peak.
 *
 * Question: the book's 95.6 ms matmul took 96 ms: what fraction of the peak FLOP/s is that?
 * Units:  work [FLOP or bytes], time_s [s], peak [FLOP/s or byte/s] -> [fraction].
 * Domain: work >= 0, time_s > 0, peak > 0; NaN otherwise.
 * Book:   ch. 9: "fantastic FLOPs utilization".
 */
double ex_profiling_achieved_frac(double work, double time_s, double peak_per_s);

/** Bandwidth a STREAM kernel reached: its bytes over its time, counted STREAM's way (each array
 * read or written once, no write-allocate): kernel 0 copy and 1 scale move 2 arrays of n
 * elements, 2 add and 3 triad move 3.
 *
 * Question: a triad over 1e7 doubles took 4 ms; what bandwidth is that?
 * Units:  kernel [0..3], n [count], elem_bytes [bytes], time_s [s] -> [byte/s].
 * Domain: kernel in 0..3, n >= 1, elem_bytes > 0, time_s > 0; NaN otherwise.
 * Book:   ch. 9 (this chapter's STREAM sweep); McCalpin's STREAM benchmark.
 */
double ex_profiling_stream_bandwidth_bytes_per_s(int kernel, int64_t n, double elem_bytes,
                                                 double time_s);

#endif
