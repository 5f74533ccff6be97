/* gpus_ex.h — exercises of chapter 12, "How to Think About GPUs": the contract.
 *
 * Write each function in gpus_ex.c from the chapter's formulas; `scale grade gpus` (or `scale
 * grade gpus.cuda_cores` for one exercise) tells you how you did. You have only this header and
 * the C standard library: no libscale.
 *
 * The chapter's GPUs: an H100 has 132 SMs of 4 subpartitions with 32 fp32 CUDA cores each,
 * 9.9e14 bf16 FLOP/s, 3.35e12 byte/s of HBM and 450e9 byte/s of NVLink egress in an 8-GPU node
 * whose 8 x 400Gbps NICs give 400e9 byte/s of node egress; a B200 has 148 SMs, 2.25e15 bf16
 * FLOP/s, 8e12 byte/s of HBM and 900e9 byte/s of NVLink.
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_GPUS_H
#define SCALE_EX_GPUS_H

#include <stdint.h>

/** Number of fp32 CUDA cores (ALUs): 4 subpartitions per SM with 32 fp32 cores each.
 *
 * Units:  n_sms [count] -> [cores].
 * Domain: n_sms >= 1; NaN otherwise.
 * Book:   ch. 12, Quiz 1 Question 1.
 */
double ex_gpus_cuda_cores(int64_t n_sms);

/** fp32 vector FLOP/s of the CUDA cores at one operation per core per cycle (no FMA).
 *
 * Question: an H100 at 1.59 GHz and at its 1.98 GHz boost.
 * Units:  n_sms [count], clock_hz [1/s] -> [FLOP/s].
 * Domain: n_sms >= 1, clock_hz > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 1 Question 2.
 */
double ex_gpus_vector_flops_per_s(int64_t n_sms, double clock_hz);

/** Clock frequency implied by a vector FLOP/s figure that counts an FMA as 2 FLOPs per CUDA
 * core per cycle.
 *
 * Question: a B200 is quoted at 80e12 fp32 vector FLOP/s.
 * Units:  vector_fma_flops_per_s [FLOP/s], n_sms [count] -> [1/s].
 * Domain: vector_fma_flops_per_s > 0, n_sms >= 1; NaN otherwise.
 * Book:   ch. 12, Quiz 1 Question 6.
 */
double ex_gpus_clock_hz(double vector_fma_flops_per_s, int64_t n_sms);

/** Roofline time of fp16[B, D] x fp16[D, F]: the larger of 2BDF / C and the 2-byte traffic
 * (2BD + 2DF + 2BF) / W.
 *
 * Question: on a B200 with B = 64 and B = 512 (D = 4096, F = 8192).
 * Units:  dims [elements], flops_per_s [FLOP/s], hbm_bytes_per_s [byte/s] -> [s].
 * Domain: b, d, f >= 1, rates > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 1 Question 4.
 */
double ex_gpus_matmul_time_s(int64_t b, int64_t d, int64_t f, double flops_per_s,
                             double hbm_bytes_per_s);

/** Memory-bound time of adding two fp32[n] vectors: read 2 x 4n bytes, write 4n bytes.
 *
 * Question: on an H100 for n = 65,536 and n = 1024^3.
 * Units:  n [elements], hbm_bytes_per_s [byte/s] -> [s].
 * Domain: n >= 0, hbm_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 1 Question 7: T = 12N / W.
 */
double ex_gpus_vector_add_time_s(double n, double hbm_bytes_per_s);

/** Peak bandwidth through a node's NVSwitches: the smaller of what the GPUs can egress and what
 * the switches can carry.
 *
 * Question: 8 H100s of 450e9 byte/s with 4 NVSwitches of 64 ports of 25e9 byte/s.
 * Units:  counts, bandwidths [byte/s] -> [byte/s].
 * Domain: counts >= 1, bandwidths > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 2 Question 1.
 */
double ex_gpus_node_bandwidth_bytes_per_s(int64_t n_gpus, double gpu_egress_bytes_per_s,
                                          int64_t n_switches, int64_t ports_per_switch,
                                          double port_bytes_per_s);

/** Bandwidth-bound time of an AllGather (or ReduceScatter) of an array of 'bytes' over 'n'
 * GPUs, each egressing at egress_bytes_per_s: (n - 1) turns of bytes / n.
 *
 * Question: bf16[4096, 65536] on an 8xH100 node; bf16[1024, 16384].
 * Units:  bytes [byte], n [GPUs], egress_bytes_per_s [byte/s] -> [s].
 * Domain: bytes >= 0, n >= 1, egress > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 2 Question 3 and Pop Quiz 1: B (N - 1) / (N W).
 */
double ex_gpus_allgather_time_s(double bytes, int64_t n, double egress_bytes_per_s);

/** Time of a dense AllToAll of an array of 'bytes' over 'n' fully connected GPUs: each sends
 * bytes / n^2 to each of the n - 1 others.
 *
 * Units:  bytes [byte], n [GPUs], egress_bytes_per_s [byte/s] -> [s].
 * Domain: bytes >= 0, n >= 1, egress > 0; NaN otherwise.
 * Book:   ch. 12 "Intra-node collectives": B (N - 1) / (W N^2).
 */
double ex_gpus_alltoall_time_s(double bytes, int64_t n, double egress_bytes_per_s);

/** Bandwidth-bound AllReduce time over 'n' GPUs: a ReduceScatter plus an AllGather without
 * in-network reduction (sharp = 0), or bytes / W with SHARP (sharp = 1).
 *
 * Units:  bytes [byte], n [GPUs], egress_bytes_per_s [byte/s], sharp [0 or 1] -> [s].
 * Domain: bytes >= 0, n >= 1, egress > 0, sharp 0 or 1; NaN otherwise.
 * Book:   ch. 12 "Intra-node collectives" (In network reductions).
 */
double ex_gpus_allreduce_time_s(double bytes, int64_t n, double egress_bytes_per_s, int64_t sharp);

/** AllGather time over n_nodes nodes of gpus_per_node GPUs: the slower of the ring inside a
 * node and the ring between nodes, each B (D - 1) / (D W) for its degree D.
 *
 * Question: exactly 2 H100 nodes (450e9 per GPU in the node, 400e9 per node beyond).
 * Units:  bytes [byte], counts, bandwidths [byte/s] -> [s].
 * Domain: bytes >= 0, counts >= 1, bandwidths > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 4 Question 5, and "Cross-node collectives".
 */
double ex_gpus_two_level_allgather_time_s(double bytes, int64_t gpus_per_node,
                                          double gpu_egress_bytes_per_s, int64_t n_nodes,
                                          double node_egress_bytes_per_s);

/** Per-GPU token batch above which data parallelism or FSDP is compute-bound on GPUs: C / W
 * times E / k for a mixture of experts (E = k = 1 for a dense model).
 *
 * Question: H100 within a node (450e9) and across nodes (400e9); B200 across nodes; an MoE with
 * E = 128, k = 4 across H100 nodes.
 * Units:  flops_per_s [FLOP/s], collective_bytes_per_s [byte/s], counts -> [tokens].
 * Domain: rates > 0, 1 <= n_active <= n_experts; NaN otherwise.
 * Book:   ch. 12 "Data Parallelism"; Quiz 5 Question 1.
 */
double ex_gpus_dp_critical_batch(double flops_per_s, double collective_bytes_per_s,
                                 int64_t n_experts, int64_t n_active);

/** Largest tensor-parallel degree Y that keeps the MLP compute-bound: Y < F W / C.
 *
 * Question: F = 28,000 (LLaMA-3-like) on H100 across nodes; B200 within a node (900e9).
 * Units:  f [elements], flops_per_s [FLOP/s], collective_bytes_per_s [byte/s] -> [GPUs].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 12 "Tensor Parallelism"; Quiz 5 Question 1.
 */
double ex_gpus_tp_max_degree(double f, double flops_per_s, double collective_bytes_per_s);

/** Smallest whole number of GPUs that hold bf16 weights (2 bytes) and fp32 Adam state (8 bytes)
 * for every parameter, nothing else.
 *
 * Question: LLaMA-3 70B on 80e9-byte H100s.
 * Units:  n_params [params], hbm_bytes_per_gpu [byte] -> [GPUs].
 * Domain: n_params >= 0, hbm_bytes_per_gpu > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 5 Question 2 part 1.
 */
double ex_gpus_min_gpus_for_weights_and_adam(double n_params, double hbm_bytes_per_gpu);

/** Warps that can be resident on one SM at once: as many as its register file holds (each
 * thread of a warp of 'warp_threads' keeps 'registers_per_thread' 4-byte registers), but never
 * more than the scheduler's limit.
 *
 * Question: an H100 SM with 256 KiB of registers, 32-thread warps, a limit of 64 resident
 * warps; threads of 256 registers, and of 64.
 * Units:  register_file_bytes [byte], counts -> [warps] (a whole number).
 * Domain: register_file_bytes > 0, counts >= 1; NaN otherwise.
 * Book:   ch. 12 "What Is a GPU?" (resident warps: "you can only fit 8 ... if each thread uses
 *         256 registers").
 */
double ex_gpus_resident_warps(double register_file_bytes, int64_t registers_per_thread,
                              int64_t warp_threads, int64_t max_warps);

/** Bandwidth per node that one level of a fat tree offers: the smaller of what its cables carry
 * and what its switch ports take, shared by the nodes below it.
 *
 * Question: the DGX H100 SuperPod, NDR InfiniBand at 400 Gbps = 50e9 byte/s per cable and per
 * switch port. Leaf: 32 nodes of an SU with 8 cables each into 8 leaf switches, of whose 64
 * ports 32 face the nodes. Spine: 4 SUs of 8 x 16 x 2 = 256 uplink cables each into 16 spine
 * switches of 64 ports. Is every level sized for full bisection (400e9 per node)?
 * Units:  n_nodes, n_cables, n_switch_ports [counts], bandwidths [byte/s] -> [byte/s].
 * Domain: every count >= 1, bandwidths > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 3 Question 1 [Fat tree topology].
 */
double ex_gpus_fat_tree_level_bytes_per_node(int64_t n_nodes, int64_t n_cables,
                                             double cable_bytes_per_s, int64_t n_switch_ports,
                                             double port_bytes_per_s);

/** Spine switches a two-level fat tree needs for full bisection bandwidth: the SUs' uplink
 * bandwidth over one spine switch's bandwidth, both rounded up (a partial SU is a whole SU).
 * A leaf switch reaches at most as many spine switches as it has uplink ports; when more are
 * needed, two levels cannot do it and the tree needs a third (core) level: return INFINITY.
 *
 * Question: DGX H100 SUs of 256 GPUs with 12.8e12 byte/s of uplinks each, spine switches of
 * 3.2e12 byte/s, leaf switches with 32 uplink ports; pods of 1024, 2048 and 4096 GPUs.
 * Units:  n_gpus, gpus_per_su, leaf_uplink_ports [counts], bandwidths [byte/s] -> [switches].
 * Domain: every count >= 1, bandwidths > 0; NaN otherwise.
 * Book:   ch. 12, Quiz 3 Question 2 [Scaling to a larger DGX pod].
 */
double ex_gpus_spine_switches(int64_t n_gpus, int64_t gpus_per_su, double su_uplink_bytes_per_s,
                              double switch_bytes_per_s, int64_t leaf_uplink_ports);

/** Time of AllGather_X of an array of 'bytes' (the whole gathered array) whose other dimension
 * is sharded over an inner axis of y GPUs, on a two-level tree: nodes of gpus_per_node GPUs
 * (each egressing gpu_egress_bytes_per_s into the node) under leaf switches joining n_nodes
 * nodes (each egressing node_egress_bytes_per_s). The group spans x * y GPUs. Each level i
 * sees d_i members of the group, each carrying min(1, S_(i-1) / y) of the array, where S_0 = 1
 * and S_1 = gpus_per_node:
 *   d_1 = min(gpus_per_node, min(gpus_per_node, x y) / y),
 *   d_2 = min(n_nodes, min(gpus_per_node n_nodes, x y) / max(y, gpus_per_node)),
 *   T = bytes x max over the levels with d_i > 1 of (d_i - 1) / d_i x min(1, S_(i-1)/y) / W_i,
 * and 0 when no level has d_i > 1.
 *
 * Question: AllGather_X(bf16[D_X, F_Y]) with D = 8192, F = 32,768 over one H100 SU (x y = 256,
 * 8 GPUs of 450e9 per node, 32 nodes of 400e9), for y = 1, 8 and 16.
 * Units:  bytes [byte], counts, bandwidths [byte/s] -> [s].
 * Domain: bytes >= 0, x, y, gpus_per_node, n_nodes >= 1, x y <= gpus_per_node n_nodes,
 *         bandwidths > 0; NaN otherwise.
 * Book:   ch. 12, Pop Quiz 3 [Sharding along 2 axes] and "Reductions when array is sharded over
 *         a separate axis".
 */
double ex_gpus_sharded_allgather_time_s(double bytes, int64_t x, int64_t y, int64_t gpus_per_node,
                                        double gpu_egress_bytes_per_s, int64_t n_nodes,
                                        double node_egress_bytes_per_s);

/** Total activation-transfer time of a pipeline: each hop moves a bf16 [B / N_MB, D] microbatch
 * (2BD / N_MB bytes) and there are N_MB + N_stages - 2 hops on the critical path.
 *
 * Units:  b [tokens], d [elements], bytes_per_s [byte/s], counts -> [s].
 * Domain: b >= 0, d > 0, bytes_per_s > 0, n_microbatches >= 1, n_stages >= 1; NaN otherwise.
 * Book:   ch. 12 "Pipeline Parallelism".
 */
double ex_gpus_pipeline_comms_time_s(double b, double d, double bytes_per_s,
                                     int64_t n_microbatches, int64_t n_stages);

/* ---- a decision exercise: a training layout ------------------------------------------------ */

#ifndef SCALE_EX_GPUS_LAYOUT_DEFINED /* the grader reads this header twice */
#define SCALE_EX_GPUS_LAYOUT_DEFINED
/** A training layout: pure data-parallel, FSDP (ZeRO-3) and tensor-parallel degrees; all 0 is
 * the "none" layout. */
typedef struct {
  int64_t dp, fsdp, tp;
} ex_gpu_layout;
#endif

/** The layout of a model on H100 nodes (a decision): TP inside the 8-GPU NVLink node.
 *
 * Return degrees, powers of two with dp x fsdp x tp = n_chips and tp <= 64, for a model of
 * n_params parameters (n_heads query heads, n_kv_heads KV heads) trained at batch_tokens per
 * step of seq_len-token sequences, with bf16 weights and fp32 Adam (16 bytes per parameter
 * under ZeRO-3) on chips of hbm_bytes. The grader prices every layout with the library's
 * roofline (scale_train_eval: compute against each link's collectives, memory per chip) and
 * gives you best / yours of the step time (full credit from 98%); nothing for a layout that
 * does not fit, that TP cannot split (tp must divide the heads) or that has more data shards
 * (dp x fsdp) than sequences. Return the none layout when nothing fits or an argument is
 * outside the Domain.
 * Question: LLaMA 3 70B on 64 H100 at 1M tokens and on 128 H100 at 256K tokens
 * (4096-token sequences; take critical_batch_tokens = 2550); LLaMA 3 405B on 8 H100, where
 * nothing fits.
 * Units:  n_params [params], batch_tokens, seq_len, critical_batch_tokens [tokens], hbm_bytes
 *         [byte], counts -> a layout.
 * Domain: n_params, batch_tokens, seq_len, hbm_bytes, critical_batch_tokens > 0; n_heads,
 *         n_kv_heads >= 1; n_chips >= 1 a power of two; the none layout otherwise.
 * Book:   ch. 12 "Takeaways" (TP within the node; beyond it the scale-out network binds).
 */
ex_gpu_layout ex_gpus_layout_h100(double n_params, int64_t n_heads, int64_t n_kv_heads,
                                  double batch_tokens, double seq_len, double hbm_bytes,
                                  double critical_batch_tokens, int64_t n_chips);

#endif
