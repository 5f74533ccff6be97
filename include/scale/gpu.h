/* gpu.h — GPU clusters: tensor-core arithmetic, NVLink nodes, fat trees, collectives over
 * switched networks, and the LLM rooflines of chapter 12.
 *
 * A cluster is the chip's net_levels[] (hardware.h), innermost first: level 1 joins D_1 GPUs
 * (an NVLink node), level 2 joins D_2 nodes (a scalable unit under leaf switches), level 3
 * joins D_3 units (spine), ... Level i's members each egress W_i bytes/s one way into it, and
 * hold S_(i-1) GPUs (S_0 = 1, S_i = S_(i-1) D_i).
 *
 * Collectives follow the book's model of a switched tree: a ring at every level, the levels
 * overlapped, so the time is the maximum over the levels a group spans. For a group of X GPUs
 * that strides over an inner sharded axis of Y GPUs (AllGather_X(A[I_Y] ...), ch. 12
 * "Reductions when array is sharded over a separate axis"), level i sees d_i members of the
 * group, each carrying min(1, S_(i-1) / Y) of the array:
 *
 *   T = bytes x max_i (d_i - 1) / d_i x min(1, S_(i-1)/Y) / W_i,
 *   d_i = min(D_i, min(S_i, X Y) / max(Y, S_(i-1)))   (levels with d_i <= 1 cost nothing).
 *
 * With Y = 1 this is the book's precise form bytes x max_i (D_i - 1) / (D_i W_i), whose
 * inverse min_i D_i W_i / (D_i - 1) is the effective AllGather bandwidth (H100: 514 GB/s in a
 * node, 413 GB/s in a scalable unit).
 *
 * Below the formulas are summary tables of a chip (what `scale hw` could print of a GPU) and
 * the chapter's worked examples as tables (its quizzes' answers, section by section); the
 * figures drawn from these functions are gpuplot.h's.
 *
 * Book: ch. 12 "How to Think About GPUs" (gpus.md): "Networking", "How Do Collectives Work on
 * GPUs?", "Rooflines for LLM Scaling on GPUs", Quizzes 1-5.
 */
#ifndef SCALE_GPU_H
#define SCALE_GPU_H

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/units.h"

/* ---- the chip ------------------------------------------------------------------------------- */

/** Subpartitions of a Hopper or Blackwell SM, each with one tensor core and its own warp
 * scheduler. Book: ch. 12 "What Is a GPU?". */
#define SCALE_GPU_SUBPARTITIONS_PER_SM 4.0

/** fp32 CUDA cores (SIMD lanes) of one SM subpartition. Book: ch. 12 "What Is a GPU?". */
#define SCALE_GPU_FP32_LANES_PER_SUBPARTITION 32.0

/** fp32 CUDA cores of the chip in the Hopper/Blackwell SM layout: SMs x 4 subpartitions x 32.
 *
 * Units:  -> [count].
 * Domain: a chip with n_cores (its SMs) > 0; NaN otherwise.
 * Book:   ch. 12 "What Is a GPU?" and Quiz 1 Q1: H100 132 x 128 = 16,896; B200 148 x 128 =
 *         18,944.
 */
double scale_gpu_fp32_cores(const scale_chip *chip);

/** The chip's vector (CUDA core) rate at 'clock_hz' when every fp32 core does
 * 'flops_per_cycle' FLOPs a cycle (1 for a plain op, 2 for a fused multiply-add).
 *
 * Units:  clock_hz [Hz], flops_per_cycle [FLOP] -> [FLOP/s].
 * Domain: clock_hz, flops_per_cycle > 0 and a chip with SMs; NaN otherwise.
 * Book:   ch. 12 Quiz 1 Q2: 16,896 x 1.59e9 = 26.9e12 at the H100's base clock (33.5e12 at
 *         its 1.98 GHz boost), one op per core per cycle.
 */
double scale_gpu_vector_flops_per_s_at(const scale_chip *chip, double clock_hz,
                                       double flops_per_cycle);

/** The clock the chip's vector rate implies when every fp32 core does 'flops_per_cycle' FLOPs
 * a cycle: vector FLOP/s / (fp32 cores x flops_per_cycle).
 *
 * Units:  flops_per_cycle [FLOP] -> [Hz].
 * Domain: flops_per_cycle > 0, a chip with SMs and a vector rate; NaN otherwise.
 * Book:   ch. 12 Quiz 1 Q6: B200 80e12 / (18,944 x 2) = 2.11 GHz with FMAs.
 */
double scale_gpu_vector_clock_hz(const scale_chip *chip, double flops_per_cycle);

/** The chip's 8-bit matmul dtype: fp8 where it has an fp8 rate, else int8 (an A100) — the
 * book's "fp8/int8" column. Book: ch. 12 "What Is a GPU?" table. */
scale_dtype scale_gpu_dtype8(const scale_chip *chip);

/** Matmul FLOPs one tensor core does per cycle at 'clock_hz': C / (SMs x tensor cores per SM
 * x clock). The book's arithmetic takes clocks that are not the chips' boost clocks.
 *
 * Units:  clock_hz [Hz] -> [FLOP/cycle].
 * Domain: a chip with n_cores, n_matmul_units and a rate for 'dtype', clock_hz > 0; NaN
 *         otherwise.
 * Book:   ch. 12 "What Is a GPU?": H100 990e12 / (132 x 4 x 1.76e9) = 1065 ("~1024").
 */
double scale_gpu_flops_per_tensor_core_cycle_at(const scale_chip *chip, scale_dtype dtype,
                                                double clock_hz);

/** Matmul FLOPs one tensor core does per cycle: C / (SMs x tensor cores per SM x clock).
 *
 * Units:  -> [FLOP/cycle].
 * Domain: a chip with n_cores, n_matmul_units and clock_hz; NaN otherwise.
 * Book:   ch. 12 "What Is a GPU?": H100 990e12 / (132 x 4 x 1.76e9) ~ 1024; B200 ~ 2048.
 */
double scale_gpu_flops_per_tensor_core_cycle(const scale_chip *chip, scale_dtype dtype);

/** Ratio of matmul to vector (CUDA core) FLOP/s [1]. Book: ch. 12, H100 990 vs 66 TFLOP/s. */
double scale_gpu_matmul_to_vector_ratio(const scale_chip *chip, scale_dtype dtype);

/* ---- the node ------------------------------------------------------------------------------- */

/** Peak one-way bandwidth through a node's switches: min(GPUs x GPU egress, switches x switch
 * capacity) — the GPU links bind on an H100 node (3.6e12 < 6.4e12).
 *
 * Units:  -> [bytes/s].
 * Domain: a chip with nvlink_bytes_per_s and nvlink_domain_size (switch figures optional).
 * Book:   ch. 12 Quiz 2 Q1 (3.6 TB/s of 6.4 TB/s).
 */
double scale_gpu_node_bytes_per_s(const scale_chip *chip);

/** Capacity of a node's NVSwitches: switches x one switch's bandwidth (4 x 1.6e12 = 6.4e12 on
 * an H100 node); NaN when the chip names no switches (a GB200 NVL72 rack's file).
 *
 * Units:  -> [bytes/s].
 * Book:   ch. 12 Quiz 2 Q1 (4 NVSwitches x 64 ports x 25 GB/s).
 */
double scale_gpu_node_switch_bytes_per_s(const scale_chip *chip);

/** Bisection bandwidth of an NVLink node counting both directions: each half's N/2 GPUs egress
 * W into the switches towards the other half, so N x W (8 x 450 GB/s = 3.6 TB/s).
 *
 * Units:  -> [bytes/s].
 * Book:   ch. 12 Quiz 2 Q2.
 */
double scale_gpu_node_bisection_bytes_per_s(const scale_chip *chip);

/* ---- the fat tree --------------------------------------------------------------------------- */

/** GPUs under one member of level 'level' (S_(level-1)); level 1's members are single GPUs.
 * NaN for a level the chip does not have (1-based; 0 gives 1).
 */
double scale_gpu_level_member_gpus(const scale_chip *chip, int level);

/** GPUs joined by level 'level' (S_level); NaN beyond the chip's levels. */
double scale_gpu_level_gpus(const scale_chip *chip, int level);

/** Effective AllGather bandwidth of level 'level': D W / (D - 1).
 *
 * Units:  -> [bytes/s].
 * Domain: NaN when any level of the tree has a fanout below 2 or no bandwidth (this function
 *         and every collective on the tree).
 * Book:   ch. 12 "Cross-node collectives": H100 node 514 GB/s, leaf 413 GB/s, spine 17.1 TB/s.
 */
double scale_gpu_level_allgather_bytes_per_s(const scale_chip *chip, int level);

/** Effective AllGather bandwidth of a group of n_gpus contiguous GPUs: bytes / AllGather time.
 *
 * Units:  n_gpus [count] -> [bytes/s].
 * Domain: 2 <= n_gpus <= GPUs of the whole tree; NaN otherwise.
 * Book:   ch. 12: min(514, 413, 17100) GB/s = 413 GB/s for a full SuperPod.
 */
double scale_gpu_allgather_bytes_per_s(const scale_chip *chip, double n_gpus);

/** Levels a group of 'n_gpus' contiguous GPUs spans (1 inside a node). 0 when n_gpus <= 1,
 * -1 when larger than the tree. */
int scale_gpu_levels_spanned(const scale_chip *chip, double n_gpus);

/* ---- collectives ---------------------------------------------------------------------------- */

/** AllGather or ReduceScatter time of an array of 'bytes' (the full gathered array of the
 * X-group) over x GPUs striding an inner sharded axis of y GPUs (y = 1: no inner sharding),
 * by the formula at the top of this header.
 *
 * Units:  bytes [bytes] -> [s].
 * Domain: x >= 1, y >= 1 (integers), x y within the tree; NaN otherwise. 0 when x = 1.
 * Book:   ch. 12 Quiz 1 Q3 (536e6 x 7 / 3.6e12 = 1.04 ms), Pop Quiz 1 (65 us), Pop Quiz 3,
 *         Quiz 4 Q5 (2 nodes: B / 514e9, bound by the node level).
 */
double scale_gpu_all_gather_s(const scale_chip *chip, double x, double y, double bytes);

/** AllReduce time: twice scale_gpu_all_gather_s() without in-network reduction; with SHARP
 * (sharp != 0) the switches reduce, so each level costs bytes x min(1, S_(i-1)/Y) / W_i without
 * the (d-1)/d factor and without the factor 2.
 *
 * Units:  bytes [bytes] -> [s].
 * Book:   ch. 12 "In network reductions": T_SHARP = bytes / W_egress; Quiz 4 Q2.
 */
double scale_gpu_all_reduce_s(const scale_chip *chip, double x, double y, double bytes, int sharp);

/** AllToAll time of an array of 'bytes' over n GPUs: inside a node B (N-1) / (W N^2); across
 * M = n / D_1 whole nodes B (M-1) / (M^2 W_node), the scale-out egress binding.
 *
 * Units:  bytes [bytes] -> [s].
 * Domain: n >= 1 integer; n within one node or a whole number of nodes; NaN otherwise.
 * Book:   ch. 12 "AllToAlls" (B/(8 x 450e9) in a node vs B/(2 x 400e9) over 2 nodes).
 */
double scale_gpu_all_to_all_s(const scale_chip *chip, double n, double bytes);

/** Expected fraction of the dense AllToAll a ragged top-k AllToAll over z shards sends, each
 * token picking k of z destinations at random: 1 - ((z-1)/z)^k (the expected share of distinct
 * destinations); the book's approximation is min(k/z, 1).
 *
 * Units:  -> [1].
 * Domain: z >= 1, k >= 0.
 * Book:   ch. 12 "AllToAlls" footnote and Appendix B "More on AllToAll costs".
 */
double scale_gpu_ragged_all_to_all_frac(double k, double z);

/** The book's closed form of an AllGather over one scalable unit (level 2) of an array
 * sharded over an inner axis of y GPUs: bound by the leaf, bytes (D_2 - 1) / (D_2 W_2), while
 * the inner axis stays inside a node (y <= D_1); beyond, each node carries D_1 / y of the
 * array, so bytes D_1 / (y W_2). scale_gpu_all_gather_s() is the exact time of the same
 * collective (x = S_2 / y).
 *
 * Units:  y [count], bytes [bytes] -> [s].
 * Domain: a chip with two levels, y >= 1, bytes >= 0; NaN otherwise.
 * Book:   ch. 12 Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]) over an SU, 2DF / (Y x 50 GB/s) once
 *         Y > 8.
 */
double scale_gpu_all_gather_su_book_s(const scale_chip *chip, double y, double bytes);

/* ---- LLM rooflines on GPUs ------------------------------------------------------------------ */

/** Per-GPU batch (tokens) above which data parallelism or FSDP over x contiguous GPUs is
 * compute-bound: C x (E/k) x the AllGather time per byte of the group, i.e. C (E/k) / W_eff with
 * W_eff = scale_gpu_allgather_bytes_per_s() (T_math = 8BDF/(XC) against T_comms = 8DF/W_eff).
 * This is exact where the book quotes asymptotes: C / W_collective = 2200 in an H100 node and
 * 2475 across nodes drop the (D-1)/D factors, and its "1237 for two nodes" also ignores the
 * node level, which binds there (its own Quiz 4 Q5): exact gives 990e12 / 514e9 = 1925.
 *
 * Units:  x [count] -> [tokens/GPU].
 * Domain: 2 <= x within the tree; moe_factor >= 1 (E/k, 1 for dense).
 * Book:   ch. 12 "Data Parallelism"; MoE x E/k (79,200 for E/k = 32); Quiz 5 Q1 (B200 5625).
 */
double scale_gpu_dp_critical_batch(const scale_chip *chip, scale_dtype dtype, double x,
                                   double moe_factor);

/** The book's asymptote of the data-parallel critical batch beyond a node: C (E/k) / W_node,
 * divided by the nodes one model replica of 'mp_gpus' GPUs spans (mp_gpus / D_1, at least 1),
 * since a replica spanning n nodes sends over n nodes' egress. It drops the ring's (D-1)/D and
 * the inner levels, which scale_gpu_dp_critical_batch_inner() keeps.
 *
 * Units:  mp_gpus [count] -> [tokens/GPU].
 * Domain: a chip with two levels, mp_gpus >= 1, moe_factor >= 1 (E / k, 1 for dense); NaN
 *         otherwise.
 * Book:   ch. 12 "Data Parallelism": 990e12 / 400e9 = 2475 beyond a node; Quiz 5 Q2: C / (8
 *         W_node) = 309 with TP 8 x PP 8; LLaMA 3's TP 8 x PP 16: 2475 / 16 = 155.
 */
double scale_gpu_dp_critical_batch_book(const scale_chip *chip, scale_dtype dtype,
                                        double mp_gpus, double moe_factor);

/** Largest tensor-parallel degree that stays compute-bound for MLP width f: F W_1 / C while
 * that is below the node size D_1 (W_1 = GPU egress); otherwise TP may leave the node, where
 * the book's rule F > (C / W_2)(Y - D_1) gives D_1 + F W_2 / C (W_2 = node egress).
 *
 * Units:  f [count] -> [count].
 * Book:   ch. 12 "Tensor Parallelism": F / 2200 in a node; 16-way over 2 nodes, "up to 19-way"
 *         for F = 28000.
 */
double scale_gpu_tp_max_degree(const scale_chip *chip, scale_dtype dtype, double f);

/** Expert-parallel comms and math times per MLP block and their ratio T_math / T_comms for EP
 * degree z across nodes (z > D_1): T_math = 4 B k D F / (z C),
 * T_comms = 4 B D (z - D_1) / (W_node z) x min(D_1 k / z, 1). Returns T_math / T_comms (> 1:
 * compute-bound).
 *
 * Units:  -> [1].
 * Domain: z > D_1; b, d, f, k > 0.
 * Book:   ch. 12 "Expert Parallelism".
 */
double scale_gpu_ep_compute_comms_ratio(const scale_chip *chip, scale_dtype dtype, double b,
                                        double d, double f, double k, double z);

/** Total pipeline communication time: 2 B D / (W n_mb) x (n_mb + n_stages - 2), W the link
 * between stages (node egress across nodes).
 *
 * Units:  b [tokens], d [count], w [bytes/s] -> [s]. (bf16 activations: 2 bytes each.)
 * Book:   ch. 12 "Pipeline Parallelism".
 */
double scale_gpu_pp_comms_s(double b, double d, double n_microbatches, double n_stages,
                            double bytes_per_s);

/* ---- trees beyond the data file, inner axes, the EP limit (chapter 12's search) ------------ */

/** Fills *out with 'chip' and, when n_gpus exceed its whole tree, one more level that joins
 * ceil(n_gpus / top) copies of the top unit, each egressing what its own members egress
 * together (full bisection carried upward, as core switches are sized to do); otherwise, or
 * when the chip already has SCALE_NET_LEVELS_MAX levels, *out is a plain copy.
 *
 * Units:  n_gpus [count].
 * Domain: a chip with at least one level; out non-NULL.
 * Book:   ch. 12 Quiz 3 Q2: a 16384-GPU H100 cluster is 16 pods under a core level, each pod
 *         egressing 4 x 12.8e12 = 51.2e12 B/s.
 */
void scale_gpu_tree_extend(const scale_chip *chip, double n_gpus, scale_chip *out);

/** Per-GPU batch (tokens) above which data parallelism over x groups of y model-parallel GPUs
 * is compute-bound, on the chip's tree extended to x y GPUs (scale_gpu_tree_extend): per
 * layer T_math = 8 B D F k / (x y C) against T_comms = 8 D F E t_AG, t_AG the AllGather
 * seconds per byte of the full array over x with inner axis y; so B / (x y) > C (E / k) t_AG.
 * With y = 1 inside the tree this is scale_gpu_dp_critical_batch().
 *
 * Units:  x, y [count] -> [tokens/GPU].
 * Domain: x, y >= 1 integers, moe_factor >= 1 (E / k, 1 for dense); NaN otherwise; 0 at x = 1.
 * Book:   ch. 12 Quiz 5 Q2: 64-way DP over TP 8 x PP 8 on 4096 H100s binds at the leaf, 4 nodes
 *         of the group per SU each carrying 1/8 of the array: 990e12 x 3/4 x 1/8 / 400e9 = 232
 *         (the book's C / (8 W_node) = 309 drops the ring's 3/4).
 */
double scale_gpu_dp_critical_batch_inner(const scale_chip *chip, scale_dtype dtype, double x,
                                         double y, double moe_factor);

/** Largest expert-parallel degree z beyond the node (z > D_1) whose MLP stays compute-bound,
 * scale_gpu_ep_compute_comms_ratio() >= 1 (the ratio falls as z grows), found by bisection;
 * z_cap when even z_cap is compute-bound (the book's large-F regime, F > D_1 C / W_node).
 * In closed form the limit is D_1 + k F W_node / C while that is below D_1 k, else
 * C D_1^2 / (C D_1 - F W_node).
 *
 * Units:  f [count], k [count], z_cap [count] -> [count].
 * Domain: a chip with two levels, f, k > 0, z_cap > D_1; NaN otherwise.
 * Book:   ch. 12 "Expert Parallelism": DeepSeek-V3's F = 2048, k = 8 on H100s stays
 *         compute-bound only to z ~ 14.6, under two nodes.
 */
double scale_gpu_ep_max_degree(const scale_chip *chip, scale_dtype dtype, double f, double k,
                               double z_cap);

/** Fills out[0..) with the GPU counts a group on the chip's tree can take, for figures against
 * group size: 2, 3, ..., D_1 inside a node, then whole nodes, each count of nodes up to 64 and
 * doubling beyond, while the group holds at most 'max_gpus' GPUs; at most 'cap' counts.
 * Returns how many it wrote.
 *
 * Units:  max_gpus [count] -> [count].
 * Domain: a chip with at least one level; 0 when max_gpus < 2 or cap < 1.
 * Book:   ch. 12's figures of AllGather bandwidth and DP critical batch against GPUs spanned.
 */
int scale_gpu_group_sizes(const scale_chip *chip, double max_gpus, double *out, int cap);

/* ---- summary tables (chapter 12's tables; what `scale hw` could print of a GPU) ----------- */

/** The chip's 16-bit matmul dtype: bf16, or fp16 where it has no bf16 rate (a V100) — the
 * book's "bf16/fp16" column. Book: ch. 12 "What Is a GPU?" table. */
scale_dtype scale_gpu_dtype16(const scale_chip *chip);

/* A summary table's rows are units.h's scale_quantity: NaN where the chip lacks the quantity
 * (a V100's fp8 rate). */

/** Rows a summary table holds at most. */
#define SCALE_GPU_SUMMARY_MAX 24

/** The chip's compute, memory and critical intensities, 18 rows in this order: sms,
 * tc_per_sm, clock, flops16, flops8 (fp8, else int8), vector, matmul_over_vector,
 * flops_per_tc_cycle, hbm, hbm_bw, smem (per SM), l2, smem_total, regs_total (over all SMs),
 * int16, int8bit (HBM critical intensities), vector_intensity, nvlink. Returns the rows
 * written.
 *
 * Units:  each row's own (FLOP/s, B, B/s, Hz, FLOP/byte, counts).
 * Domain: any chip; a quantity it lacks is NaN.
 * Book:   ch. 12 "What Is a GPU?" tables: H100 132 SMs, 990e12 bf16, 3.35e12 B/s, 295
 *         FLOP/byte.
 */
int scale_gpu_chip_summary(const scale_chip *chip, scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/** The chip's NVLink node, 5 rows: node_gpus (D_1), gpu_egress (W_1), node_egress (W_2),
 * switch_bw (scale_gpu_node_switch_bytes_per_s, NaN without NVSwitches), node_bw
 * (scale_gpu_node_bytes_per_s). Returns the rows written.
 *
 * Units:  [count], [bytes/s].
 * Domain: any chip; a row of a level it lacks is NaN.
 * Book:   ch. 12 "Networking": H100 8 GPUs, 450e9, 400e9; Quiz 2 Q1 3.6e12 of 6.4e12.
 */
int scale_gpu_node_summary(const scale_chip *chip, scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/** Level 'level' (1-based) of the chip's fat tree, 6 rows: fanout (D), gpus (S_level),
 * member_bw (W), per_gpu (W / S_(level-1)), total (D W), ag_bw (D W / (D - 1)). Returns the
 * rows written.
 *
 * Units:  [count], [bytes/s].
 * Domain: 1 <= level <= n_net_levels; NaN rows otherwise.
 * Book:   ch. 12 "Networking" (H100 leaf: 32 nodes x 400e9 = 12.8e12, 50e9 per
 *         GPU, 413e9 AllGather bandwidth).
 */
int scale_gpu_level_summary(const scale_chip *chip, int level,
                            scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/** Data parallelism's critical batch on the chip's tree (16-bit, scale_gpu_dtype16), exact
 * beside the book's asymptotes, 8 rows: node (DP over one node), node_asym (C / W_1),
 * two_nodes, two_nodes_book (C / W_2 / 2), tree (the whole tree), beyond_asym (C / W_2), and
 * with E/k = moe_factor moe_tree and moe_asym. Returns the rows written.
 *
 * Units:  [tokens/GPU].
 * Domain: a chip with a valid tree of two levels or more, moe_factor >= 1; NaN rows
 *         otherwise.
 * Book:   ch. 12 "Data Parallelism": H100 2200 in a node, 2475 beyond, 79,200 for E/k = 32.
 */
int scale_gpu_dp_summary(const scale_chip *chip, double moe_factor,
                         scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/** The effective bandwidths (bytes / time) of the chip's collectives, 5 rows: ag_node_bw
 * (AllGather in a node), ar_node_bw (AllReduce in a node, no SHARP), ar_sharp_node_bw (with
 * SHARP), sharp_gain (their ratio), ar_sharp_pod_bw (SHARP AllReduce over the whole tree).
 * Returns the rows written.
 *
 * Units:  [bytes/s], [1].
 * Domain: a chip with a valid tree; NaN rows otherwise.
 * Book:   ch. 12 "In network reductions": H100 node 514e9 AllGather, 257e9 AllReduce, 450e9
 *         with SHARP, a 1.75x gain.
 */
int scale_gpu_collective_summary(const scale_chip *chip,
                                 scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/** GPUs in the chip's whole tree and the effective AllGather bandwidth of all of them, 2 rows:
 * tree_gpus, tree_ag_bw. Returns the rows written.
 *
 * Units:  [count], [bytes/s].
 * Domain: a chip with a valid tree; NaN rows otherwise.
 * Book:   ch. 12 "Networking": the 1024-GPU H100 SuperPod's AllGather runs at the leaf's
 *         413e9 B/s.
 */
int scale_gpu_tree_summary(const scale_chip *chip, scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/* ---- ch. 12's worked examples as tables ----------------------------------------------------- */

/* The book's questions on the book's hardware, answered in the order the chapter reads them:
 * each function fills tables out[0..) of caller storage, each a stem and its rows (the values
 * the chapter cites as "stem.key"), and returns how many tables it wrote. The questions' inputs
 * (array shapes, clocks, degrees) are the book's and are rows of the tables too. */

/** Rows a scale_gpu_table holds at most, and the tables a worked example fills at most. */
#define SCALE_GPU_TABLE_MAX 24
#define SCALE_GPU_TABLES_MAX 16

/** A table of named quantities under one stem ("q1", "pq3.y8"). */
typedef struct {
  char stem[32];                           /**< the stem of its keys */
  int n;                                   /**< rows in 'row' */
  scale_quantity row[SCALE_GPU_TABLE_MAX]; /**< the rows */
} scale_gpu_table;

/** Quiz 1, GPU hardware, 4 tables: "q1" (Q1-Q3: subpartitions and fp32 CUDA cores of the H100
 * and B200, their tensor-core FLOPs per cycle at the book's clocks of 1.76 and 1.86 GHz, the
 * TPU's VPU ALUs (8 sublanes x 128 lanes x 4 ALUs a core), the H100's vector rate at its 1.59
 * GHz base and its boost clock, tensor cores over CUDA cores; Q4's D = 4096, F = 8192), "q1.b64"
 * and "q1.b512" (Q4: an fp16 matmul of batch B on the B200, its bytes, T_math, T_comms and
 * bound), "q1" again (Q5: the H100's SMEM and registers against the TPU v5e's VMEM; Q6: the
 * B200's clock from its vector rate with FMAs; Q7: adding two fp32[N] vectors, N FLOPs and 12 N
 * bytes, on the H100 for N = 65536 and 2^30). Returns 4.
 *
 * Units:  each row's own.
 * Domain: the book's H100 and B200 files and TPU v5p and v5e; NaN rows for a chip that lacks a
 *         quantity.
 * Book:   ch. 12 Quiz 1: 16,896 and 18,944 CUDA cores; ~1024 and ~2048 FLOPs per tensor core
 *         per cycle; 33.5e12 FLOP/s vector boost; 2.11 GHz; add intensity 1/12.
 */
int scale_gpu_quiz1_tables(const scale_chip *h100, const scale_chip *b200, const scale_chip *v5p,
                           const scale_chip *v5e, scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** Quiz 2, the node, 2 tables: "node" (the H100 node's switch capacity, GPU links, their
 * minimum, bisection, NVSwitches and one switch's bandwidth) and "q2" (Q3: AllGather of
 * bf16[4096, 65536] over the 8 GPUs of a node, precise and as bytes / GPU egress). Returns 2.
 *
 * Units:  [bytes/s], [count], [bytes], [s].
 * Book:   ch. 12 Quiz 2: 6.4e12 switch capacity, 3.6e12 through the GPUs; Q3 1.04 ms.
 */
int scale_gpu_quiz2_tables(const scale_chip *h100, scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** Quiz 3, beyond the node, 2 tables: "gb200" (a GB200 NVL72 rack's egress and GPUs against an
 * H100 node's) and "q3" (Q1: spine egress per node, scale-out egress per GPU; Q2: scalable
 * units in 2048 GPUs, pods in 4096, and the egress of one pod into a core level of a
 * 16384-GPU cluster, scale_gpu_tree_extend()). Returns 2.
 *
 * Units:  [1], [count], [bytes/s].
 * Book:   ch. 12 Quiz 3: 50e9 B/s per GPU at every level; 8 SUs; 4 pods; 51.2e12 B/s.
 */
int scale_gpu_quiz3_tables(const scale_chip *h100, const scale_chip *gb200,
                           scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** The collectives of the H100 SuperPod, 14 tables: "pq1" (Pop Quiz 1: AllGather of
 * bf16[1024, 16384] over a node), "coll" (AllToAll in a node and over two), "pq2" (Pop Quiz 2:
 * a ragged AllToAll, each token to 4 of 8 GPUs), "coll" (DeepSeek's 8 of 64), "pq3" (Pop Quiz
 * 3: bf16[8192, 32768]) and "pq3.yY" for Y = 1, 2, ..., 64 (AllGather over one SU, exact and
 * the book's closed form), "q4" (Quiz 4: an SU's AllGather bandwidth, SHARP AllReduces of the
 * Pop Quiz 3 array in a node and over the spine, two nodes' levels), "coll" (the sample
 * array). Returns 14.
 *
 * Units:  [bytes], [s], [bytes/s], [1].
 * Book:   ch. 12 Pop Quizzes 1-3 (65 us), "AllToAlls", Quiz 4 Q1-Q5.
 */
int scale_gpu_collective_tables(const scale_chip *h100, scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** The LLM rooflines of one system, 2 tables: "tp.KEY" (the divisors of F for TP in a node and
 * beyond, and LLaMA 3 70B's F = 28672: the largest TP degree and F W_gpu / C) and "ep.KEY" (the
 * width F above which any EP degree is compute-bound, D_node C / W_node, and DeepSeek-V3's F =
 * 2048, k = 8: the largest EP degree, in GPUs and nodes), 16-bit (scale_gpu_dtype16). Returns 2.
 *
 * Units:  [count].
 * Domain: a chip with two levels; key a short name ("h100").
 * Book:   ch. 12 "Tensor Parallelism" (F / 2200 in an H100 node), "Expert Parallelism".
 */
int scale_gpu_roofline_tables(const scale_chip *chip, const char *key,
                              scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** The book's TP, EP and PP examples on the H100, 3 tables: "tp" (F = 28000: the largest
 * degree, F W_node / C and F W_gpu / C), "ep" (T_math / T_comms with F = 2048, k = 8 at Z = 64)
 * and "pp" (LLaMA 3 70B's 4M tokens over 64 pipelines of 8 stages and 16 microbatches: the
 * sends of a step over node egress against the step's FLOPs at peak on 4096 GPUs). Returns 3.
 *
 * Units:  [count], [1], [tokens], [s].
 * Book:   ch. 12 "Tensor Parallelism" (up to 19-way), "Expert Parallelism", "Pipeline
 *         Parallelism".
 */
int scale_gpu_roofline_example_tables(const scale_chip *h100,
                                      scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** The book's two published layouts on the chip's tree (16-bit), 2 tables: "llama3" (LLaMA 3
 * 405B: TP 8, PP 16, DP 128 (ZeRO-1), 16 sequences of 8192 tokens per DP rank: the degrees,
 * GPUs, batch, tokens per GPU, the DP threshold over DP groups of TP x PP GPUs exact
 * (scale_gpu_dp_critical_batch_inner()) and the book's (scale_gpu_dp_critical_batch_book()),
 * pure DP's and the batch it would need, and 'llama' 70B's MLP width) and "ds" (DeepSeek-V3:
 * EP 64, PP 16, DP 2, 4096 sequences of 15360 tokens: the degrees, GPUs, batch, tokens per GPU,
 * the E, k and expert width of 'ds', E / k = moe_factor, the MoE DP threshold over EP x PP
 * groups, a 2-way ring's D / (D - 1) and pure DP's threshold). Returns 2. Rows are filled in
 * out[0] and out[1] (caller storage), as with every worked example.
 *
 * Units:  [count], [tokens].
 * Domain: a chip with two levels, moe_factor >= 1 (scale_transformer_moe_sparsity()); NaN rows
 *         otherwise.
 * Book:   ch. 12 "LLaMA 3" (1024 tokens a GPU against 2475 / 16 = 155) and "DeepSeek-V3".
 */
int scale_gpu_layout_tables(const scale_chip *chip, const scale_model *llama, const scale_model *ds,
                            double moe_factor, scale_gpu_table out[SCALE_GPU_TABLES_MAX]);

/** Data parallelism over replicas of mp GPUs on the chip's tree (16-bit), 6 rows: gpus, mp,
 * seqs, per_gpu (seqs x seq_len / gpus), threshold (DP over gpus / mp groups of mp GPUs,
 * exact) and threshold_book (scale_gpu_dp_critical_batch_book()). Returns the rows written.
 *
 * Units:  n_gpus, mp, seqs [count], seq_len [tokens]; rows [count], [tokens].
 * Domain: n_gpus a multiple of mp; NaN rows otherwise.
 * Book:   ch. 12 Quiz 5 Q3: Megatron-LM's 70B on 768 GPUs, 16-way model parallel.
 */
int scale_gpu_dp_replicas_summary(const scale_chip *chip, double n_gpus, double seqs, double mp,
                                  double seq_len, scale_quantity out[SCALE_GPU_SUMMARY_MAX]);

/* ---- curves for figures --------------------------------------------------------------------- */

/** Experts per token and the degree cap of SCALE_GPU_CURVE_EP_DEGREE (ch. 12's figure: k = 8,
 * as DeepSeek-V3 routes). */
#define SCALE_GPU_CURVE_EP_K 8.0
#define SCALE_GPU_CURVE_EP_CAP 4096.0

/** What scale_gpu_curve() plots: two against GPUs in a group, two against a width. */
typedef enum {
  SCALE_GPU_CURVE_ALLGATHER_BW, /**< scale_gpu_allgather_bytes_per_s() [bytes/s] of x GPUs */
  SCALE_GPU_CURVE_DP_BATCH,     /**< scale_gpu_dp_critical_batch_inner() [tokens/GPU] over x
                                     GPUs, y = 1, dense, the tree extended beyond its size */
  SCALE_GPU_CURVE_TP_DEGREE,    /**< scale_gpu_tp_max_degree() for MLP width x */
  SCALE_GPU_CURVE_EP_DEGREE     /**< scale_gpu_ep_max_degree() for expert width x, k and cap
                                     SCALE_GPU_CURVE_EP_K and SCALE_GPU_CURVE_EP_CAP */
} scale_gpu_curve_kind;

/** Fills x[0..n) and y[0..n) with a curve of the chip at its 16-bit rate (scale_gpu_dtype16):
 * for ALLGATHER_BW and DP_BATCH x runs over the group sizes of scale_gpu_group_sizes() up to
 * x_max GPUs (x_max = 0: the whole tree), at most 'cap' of them; for TP_DEGREE and EP_DEGREE
 * over 'cap' widths evenly spaced on a log scale from 1e3 to x_max. Returns n.
 *
 * Units:  x_max [count] -> x [count], y as the kind says.
 * Domain: a chip with a tree; cap >= 2 and x_max > 1e3 for the width kinds; 0 otherwise.
 * Book:   ch. 12's figures of AllGather bandwidth, DP critical batch and the largest TP and EP
 *         degrees.
 */
int scale_gpu_curve(const scale_chip *chip, scale_gpu_curve_kind kind, double x_max, double *x,
                    double *y, int cap);

#endif
