/* rooflines_ex.h — exercises of chapter 1, "All About Rooflines": the contract.
 *
 * Write each function in rooflines_ex.c from the chapter's formulas; `scale grade rooflines`
 * (or `scale grade rooflines.critical_batch_int8` for one exercise) tells you how you did.
 * You have only this header and the C standard library: no libscale.
 *
 * Conventions (the same for every chapter):
 *   - every quantity is a double in SI base units and its name ends with its unit: FLOPs counts
 *     work [FLOP], flops_per_s a rate [FLOP/s], bytes_per_s a bandwidth [byte/s], _s seconds;
 *   - tensor dimensions (b, d, f) are int64_t, but take products in double: 2*b*d*f overflows;
 *   - outside its Domain a function returns NaN (from <math.h>); it never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_ROOFLINES_H
#define SCALE_EX_ROOFLINES_H

#include <stdint.h>

/** Time to perform 'flops' of work at a peak rate of 'flops_per_s' (the book's T_math).
 *
 * Question: an H100 does about 9.89e14 bf16 FLOP/s; how long do 1e12 FLOPs take?
 * Units:  flops [FLOP], flops_per_s [FLOP/s] -> [s].
 * Domain: flops >= 0, flops_per_s > 0; NaN otherwise.
 * Book:   ch. 1 "Where Does the Time Go?", T_math = computation FLOPs / accelerator FLOP/s.
 */
double ex_rooflines_t_math_s(double flops, double flops_per_s);

/** Time to move 'bytes' over a link or memory of bandwidth 'bytes_per_s' (the book's T_comms).
 *
 * Units:  bytes [byte], bytes_per_s [byte/s] -> [s].
 * Domain: bytes >= 0, bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 1, T_comms = communication bytes / network or memory bandwidth.
 */
double ex_rooflines_t_comms_s(double bytes, double bytes_per_s);

/** Lower bound on the run time when compute and communication overlap perfectly.
 *
 * Units:  [s], [s] -> [s].
 * Domain: both times >= 0; NaN otherwise.
 * Book:   ch. 1, T_lower = max(T_math, T_comms).
 */
double ex_rooflines_t_lower_s(double t_math_s, double t_comms_s);

/** Upper bound on the run time when compute and communication do not overlap at all.
 *
 * Units:  [s], [s] -> [s].
 * Domain: both times >= 0; NaN otherwise.
 * Book:   ch. 1, T_upper = T_math + T_comms.
 */
double ex_rooflines_t_upper_s(double t_math_s, double t_comms_s);

/** Critical arithmetic intensity of a chip: the FLOPs per byte at which T_math = T_comms.
 *
 * Question: a TPU v5e does 1.97e14 bf16 FLOP/s and reads 8.2e11 byte/s from HBM; above what
 * intensity is an algorithm compute-bound?
 * Units:  flops_per_s [FLOP/s], bytes_per_s [byte/s] -> [FLOP/byte].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 1, Intensity(accelerator) = accelerator FLOP/s / bandwidth.
 */
double ex_rooflines_critical_intensity_flops_per_byte(double flops_per_s, double bytes_per_s);

/** Arithmetic intensity of a bf16 dot product of two length-n vectors (read both, write one
 * bf16 result; n multiplications and n - 1 additions).
 *
 * Units:  n [elements] -> [FLOP/byte].
 * Domain: n >= 1; NaN otherwise.
 * Book:   ch. 1, "Example (dot product)".
 */
double ex_rooflines_dot_product_intensity_flops_per_byte(int64_t n);

/** FLOPs of the matmul X[b, d] * Y[d, f] -> Z[b, f], counting a multiply-add as 2 FLOPs.
 *
 * Units:  dims [elements] -> [FLOP].
 * Domain: b, d, f >= 1; NaN otherwise.
 * Book:   ch. 1 "Matrix multiplication", and Question 1 part 2.
 */
double ex_rooflines_matmul_flops(int64_t b, int64_t d, int64_t f);

/** Arithmetic intensity of X[b, d] * Y[d, f] -> Z[b, f] with every array stored in elements of
 * 'bytes_per_element' bytes (read X and Y, write Z).
 *
 * Units:  dims [elements], bytes_per_element [byte] -> [FLOP/byte].
 * Domain: b, d, f >= 1, bytes_per_element > 0; NaN otherwise.
 * Book:   ch. 1, Intensity(matmul) = 2BDF / (2BD + 2DF + 2BF) in bf16, which tends to B.
 */
double ex_rooflines_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f,
                                                    double bytes_per_element);

/** Smallest contraction size D at which a bf16 matmul X[B, D] * Y[D, F], split over 2 chips
 * along D (each chip multiplies its halves, then sends its bf16 partial sum [B, F] to the other),
 * is compute-bound with respect to the chip-to-chip link.
 *
 * Question: 1.97e14 FLOP/s per chip and 4.5e10 byte/s each way between the chips.
 * Units:  flops_per_s [FLOP/s], link_bytes_per_s [byte/s] -> [elements].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 1 "Network communication rooflines".
 */
double ex_rooflines_two_chip_critical_d(double flops_per_s, double link_bytes_per_s);

/** Bytes an int8 matmul A[b, d] * B[d, f] -> C[b, f] moves to and from memory (both inputs
 * read, the int8 output written).
 *
 * Units:  dims [elements] -> [byte].
 * Domain: b, d, f >= 1; NaN otherwise.
 * Book:   ch. 1, Question 1 [int8 matmul] part 1.
 */
double ex_rooflines_int8_matmul_bytes(int64_t b, int64_t d, int64_t f);

/** Arithmetic intensity of the int8 matmul of ex_rooflines_int8_matmul_bytes() (exact, without
 * assuming b much smaller than d and f).
 *
 * Units:  dims [elements] -> [FLOP/byte] (integer OPs count as FLOPs).
 * Domain: b, d, f >= 1; NaN otherwise.
 * Book:   ch. 1, Question 1 part 3.
 */
double ex_rooflines_int8_matmul_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f);

/** Batch size above which an int8 matmul (int8 weights, activations and OPs) is compute-bound,
 * in the limit b << d, f.
 *
 * Question: 3.94e14 int8 OP/s and 8.2e11 byte/s of HBM bandwidth.
 * Units:  int8_ops_per_s [OP/s], bytes_per_s [byte/s] -> [tokens].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 1, Question 1 part 3.
 */
double ex_rooflines_critical_batch_int8(double int8_ops_per_s, double bytes_per_s);

/** Roofline lower bound on the time of the int8 matmul A[b, d] * B[d, f] -> C[b, f]: the larger of
 * its compute time and its memory time.
 *
 * Units:  dims [elements], int8_ops_per_s [OP/s], bytes_per_s [byte/s] -> [s].
 * Domain: b, d, f >= 1, rates > 0; NaN otherwise.
 * Book:   ch. 1, Question 1 part 4.
 */
double ex_rooflines_int8_matmul_time_s(int64_t b, int64_t d, int64_t f, double int8_ops_per_s,
                                       double bytes_per_s);

/** Batch size above which bf16[B, D] * int8[D, F] -> bf16[B, F] (int8 weights, bf16 activations,
 * bf16 FLOPs) is compute-bound, in the limit B << D, F.
 *
 * Question: 1.97e14 bf16 FLOP/s and 8.2e11 byte/s.
 * Units:  bf16_flops_per_s [FLOP/s], bytes_per_s [byte/s] -> [tokens].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 1, Question 2 [int8 + bf16 matmul].
 */
double ex_rooflines_critical_batch_int8_weights(double bf16_flops_per_s, double bytes_per_s);

/** Throughput the roofline allows an algorithm of the given intensity: bandwidth times intensity,
 * capped at the chip's peak (the y value of a roofline plot).
 *
 * Units:  intensity [FLOP/byte], peak [FLOP/s], bandwidth [byte/s] -> [FLOP/s].
 * Domain: intensity >= 0, peak > 0, bandwidth > 0; NaN otherwise.
 * Book:   ch. 1 "Visualizing rooflines", and Question 3 (the roofline plot).
 */
double ex_rooflines_attainable_flops_per_s(double intensity_flops_per_byte,
                                           double peak_flops_per_s, double bytes_per_s);

/** Arithmetic intensity of int8[B, D] *_D int8[B, D, F] -> int8[B, F]: a different weight matrix
 * for every batch element (exact, all arrays int8).
 *
 * Units:  dims [elements] -> [FLOP/byte].
 * Domain: b, d, f >= 1; NaN otherwise.
 * Book:   ch. 1, Question 4.
 */
double ex_rooflines_per_example_weights_intensity_flops_per_byte(int64_t b, int64_t d, int64_t f);

/** Critical batch size of a GPU from its spec sheet, whose tensor-core rate is quoted with 2:4
 * structured sparsity (twice the dense rate).
 *
 * Question: an H100 SXM sheet lists 1.979e15 bf16 FLOP/s (sparse) and 3.35e12 byte/s.
 * Units:  sparse_flops_per_s [FLOP/s], bytes_per_s [byte/s] -> [tokens].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 1, Problem 5 [Memory Rooflines for GPUs].
 */
double ex_rooflines_critical_batch_from_sparse_spec(double sparse_flops_per_s,
                                                    double bytes_per_s);

#endif
