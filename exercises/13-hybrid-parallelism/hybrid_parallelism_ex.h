/* hybrid_parallelism_ex.h — exercises of chapter 13, "Hybrid Parallelism: DP, TP, PP and CP for
 * Transformers and Mamba-2": the contract.
 *
 * Write each function in hybrid_parallelism_ex.c from the chapter's formulas; `scale grade
 * hybrid_parallelism` (or `scale grade hybrid_parallelism.collective_bytes` for one exercise)
 * tells you how you did. You have only this header and the C standard library: no libscale.
 *
 * The chapter follows Amer et al., "Distributed Hybrid Parallelism for Large Language Models"
 * (arXiv 2602.09109). Letters: b sequences of s tokens, d the model (attention) width, a query
 * heads and k KV heads of width d_h, t / c / u the TP / CP / Ulysses degrees, beta bytes per
 * element. Communication volumes count bytes sent plus bytes received per device, as the
 * paper's Table 3 does.
 *
 * Conventions (as in every chapter): every quantity is a double in SI base units and its name
 * ends with its unit; counts (tensor dimensions, chips, layers) are int64_t, but take products
 * in double; outside its Domain a function returns NaN (from <math.h>), never aborts or prints.
 * The include guard is SCALE_EX_<SLUG>_H by convention (the grader relies on it).
 */
#ifndef SCALE_EX_HYBRID_PARALLELISM_H
#define SCALE_EX_HYBRID_PARALLELISM_H

#include <stdint.h>

/** Data one device moves in a collective over n devices (the paper's Table 2): op 0 Reduce and
 * op 1 Gather to a root take in (n - 1) T; op 2 ring AllGather, op 3 ring ReduceScatter and op 4
 * AllToAll move (n - 1)/n T; op 5 ring AllReduce moves 2 (n - 1)/n T.
 *
 * Question: an AllReduce of 1 GB over 8 devices; an AllGather over 64.
 * Units:  t_bytes [byte] -> [byte].
 * Domain: op 0..5, n >= 1, t_bytes >= 0; NaN otherwise.
 * Paper:  section 2.1, Table 2.
 */
double ex_hybrid_parallelism_collective_bytes(int64_t op, int64_t n, double t_bytes);

/** Forward communication of one attention layer per device under tensor parallelism of degree
 * t: one ring AllReduce of the [b, s, d] output, sent and received, 4 (t - 1)/t b s d beta.
 *
 * Question: LLaMA 2 7B (d = 4096), one sequence of 4096 tokens in bf16, t = 8.
 * Units:  b [sequences], s [tokens], d [elements], bytes_per_element [byte] -> [byte].
 * Domain: b, s >= 0, d >= 1, t >= 1, bytes_per_element > 0; NaN otherwise.
 * Paper:  Table 3, TP.
 */
double ex_hybrid_parallelism_tp_fwd_bytes(double b, double s, int64_t d, int64_t t,
                                          double bytes_per_element);

/** Forward communication of one attention layer per device under ring context parallelism of
 * degree c: each rank's K and V blocks pass round the ring, 4 (c - 1)/c b s k d_h beta.
 *
 * Question: Llama 3.2 1B (k = 8 KV heads of 64), one 4096-token sequence in bf16, c = 8.
 * Units:  b [sequences], s [tokens], counts, bytes_per_element [byte] -> [byte].
 * Domain: b, s >= 0, k, d_head, c >= 1, bytes_per_element > 0; NaN otherwise.
 * Paper:  Table 3, CP.
 */
double ex_hybrid_parallelism_cp_fwd_bytes(double b, double s, int64_t k, int64_t d_head, int64_t c,
                                          double bytes_per_element);

/** Forward communication of one attention layer per device under Ulysses (TPUP) of degree u:
 * four AllToAlls, Q and O of (s/u)(a d_h/u)(u - 1) elements each way, K and V of
 * (s/u)(k d_h/u)(u - 1): 4 (u - 1)/u^2 b s d_h (a + k) beta in all. Ulysses splits heads, so u
 * may not exceed k.
 *
 * Question: LLaMA 2 7B (a = k = 32, d_h = 128), one 4096-token sequence in bf16, u = 8.
 * Units:  b [sequences], s [tokens], counts, bytes_per_element [byte] -> [byte].
 * Domain: b, s >= 0, a, k, d_head >= 1, 1 <= u <= k, bytes_per_element > 0; NaN otherwise.
 * Paper:  section 2.6 (Comm_q, Comm_k, Comm_v, Comm_o), Table 3, TPUP.
 */
double ex_hybrid_parallelism_ulysses_fwd_bytes(double b, double s, int64_t a, int64_t k,
                                               int64_t d_head, int64_t u,
                                               double bytes_per_element);

/** Bytes of model state per device under ZeRO stage 'stage' over n_shards data-parallel
 * devices, with the ZeRO paper's mixed precision: 2 bytes of fp16 weights, 2 of gradients and
 * 12 of fp32 master weights and Adam moments per parameter; stage 1 shards the 12, stage 2 also
 * the gradients, stage 3 also the weights.
 *
 * Question: the ZeRO paper's 7.5B parameters over 64 devices, stages 0 to 3.
 * Units:  n_params [params] -> [byte].
 * Domain: n_params >= 0, stage 0..3, n_shards >= 1; NaN otherwise.
 * Source: Rajbhandari et al., arXiv 1910.02054, Figure 1 (chapter 13 "Memory per device").
 */
double ex_hybrid_parallelism_zero_state_bytes(double n_params, int64_t stage, int64_t n_shards);

/** Time of t_comp of compute beside t_comm of communication that the next compute needs (a
 * strong dependency), both split into n_chunks equal chunks and pipelined: chunk i
 * communicates while chunk i + 1 computes, so (n - 1)/n max(t_comp, t_comm) + (t_comp +
 * t_comm)/n.
 *
 * Question: 3 s of compute, 2 s of communication, in 1, 2 and 4 chunks.
 * Units:  [s] -> [s].
 * Domain: t_comp, t_comm >= 0, n_chunks >= 1; NaN otherwise.
 * Paper:  section 2.6, data decomposition and its "tail" (chapter 13 "Overlap").
 */
double ex_hybrid_parallelism_strong_overlap_s(double t_comp, double t_comm, int64_t n_chunks);

/** Smallest block of tokens per device for which ring context parallelism hides its K/V
 * transfer: each ring step computes 4 b c^2 a d_h FLOPs at flops_per_s while 2 b c k d_h
 * elements move at link_bytes_per_s, so c >= (F / W) k beta / (2 a).
 *
 * Question: H100 (9.89e14 FLOP/s, 4.5e11 byte/s NVLink) with multi-head attention in bf16;
 * the same with 4 query heads per KV head.
 * Units:  flops_per_s [FLOP/s], link_bytes_per_s [byte/s], counts, bytes_per_element [byte]
 *         -> [tokens].
 * Domain: rates > 0, a, k >= 1, bytes_per_element > 0; NaN otherwise.
 * Source: Liu et al., Ring Attention (chapter 13 "Overlap").
 */
double ex_hybrid_parallelism_ring_cp_min_block(double flops_per_s, double link_bytes_per_s,
                                               int64_t a, int64_t k, double bytes_per_element);

/** Width of a Mamba-2 in-projection: the x and z branches (2 d_inner, d_inner = expand d),
 * B and C for each group (2 n_groups d_state), and one dt per head.
 *
 * Question: the paper's Mamba-7B (d 4096, expand 2, 8 groups, state 128, 128 heads).
 * Units:  counts -> [elements].
 * Domain: every count >= 1; NaN otherwise.
 * Paper:  section 5.3, d_inproj = 2 d_inner + 2 ngroups n + h.
 */
double ex_hybrid_parallelism_mamba_in_proj(int64_t d_model, int64_t expand, int64_t n_groups,
                                           int64_t d_state, int64_t n_heads);

/** Forward communication of one Mamba-2 layer per device under context parallelism of degree
 * c, sent plus received: an AllGather of every rank's chunk-final state (b h P n elements each,
 * so 2 (c - 1) b h P n) and the causal convolution's halo from and to the neighbours,
 * 2 b (d_conv - 1)(d_inner + 2 g n); 0 when c = 1. Neither depends on the sequence length.
 *
 * Question: the paper's Mamba-7B (h 128, P 64, n 128, g 8, d_inner 8192, d_conv 4), one
 * sequence in bf16, c = 8.
 * Units:  b [sequences], counts, bytes_per_element [byte] -> [byte].
 * Domain: b >= 0, every count >= 1, bytes_per_element > 0; NaN otherwise.
 * Paper:  section 5.3, Table 8 (CP moves O(d d_state CP)).
 */
double ex_hybrid_parallelism_mamba_cp_fwd_bytes(double b, int64_t n_heads, int64_t d_head,
                                                int64_t d_state, int64_t n_groups,
                                                int64_t d_inner, int64_t d_conv, int64_t c,
                                                double bytes_per_element);

/** The paper's MFU: model FLOPs per token (6 N + 12 L d s, attention counted in full) times
 * the tokens of a step, over the step time times the devices times their peak.
 *
 * Question: LLaMA 2 7B (N 6.74e9, L 32, d 4096) at s 4096, 4,194,304 tokens in 101.8 s on
 * 8 NPUs of 3.7888e14 FLOP/s (the paper's best layout, 63.7%).
 * Units:  n_params [params], counts, s and tokens [tokens], step_s [s], flops_per_s [FLOP/s]
 *         -> [1].
 * Domain: n_params, tokens >= 0, n_layers, d_model, s >= 1, step_s, n_chips, flops_per_s > 0;
 *         NaN otherwise.
 * Paper:  section 6.1 (MFU), Table 10.
 */
double ex_hybrid_parallelism_mfu(double n_params, int64_t n_layers, int64_t d_model, double s,
                                 double tokens, double step_s, double n_chips, double flops_per_s);

/** The design guide's pick (a decision): the smallest pipeline degree k, a power of two up to
 * n_chips, at which a transformer fits with DP = n_chips / k and the optimizer state sharded
 * over DP (ZeRO-1), as the paper's section 6.4 advises; 1 when pure DP fits, NaN when no k
 * fits. Memory per device at degree k: (n_params / k)(weight_grad_bytes_per_param +
 * optimizer_bytes_per_param / (n_chips / k)) + activation_bytes (1F1B: the first stage keeps a
 * whole model's depth of activations of one microbatch, whatever k).
 *
 * Question: LLaMA 2 7B (6,738,415,616 parameters; 2 + 4 bytes of weights and gradients, 12 of
 * optimizer state; 18.25e9 bytes of activations) on 8 NPUs of 60e9 bytes: the paper's PP 2.
 * Units:  n_params [params], bytes per param [byte], activation_bytes, hbm_bytes [byte],
 *         n_chips [count] -> [count].
 * Domain: every argument >= 0, n_chips >= 1 (a power of two); NaN otherwise.
 * Paper:  section 4.2 (feasibility first), section 6.4 (LLaMA -> PP = 2, DP = 4).
 */
double ex_hybrid_parallelism_guide_pp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_chips);

/** The largest context-parallel degree, a power of two up to n_chips, whose block of s / c
 * tokens per device still hides the ring's K/V transfer (s / c >= min_block_tokens); 1 when even
 * CP 2 would not hide it (a decision: the design guide's "CP only when its ring hides").
 *
 * Question: LLaMA 2 7B at 4K on the 910B (min block 13,531 tokens) and at 32K on H100 NVLink
 * (2,198 tokens), 8 devices.
 * Units:  s, min_block_tokens [tokens], n_chips [count] -> [count].
 * Domain: s >= 1, min_block_tokens >= 0, n_chips >= 1; NaN otherwise.
 * Paper:  section 4.2 (CP for long sequences), section 4.1 ("good overlap of the ring").
 */
double ex_hybrid_parallelism_max_hiding_cp(double s, double min_block_tokens, int64_t n_chips);

/** The design guide's pick for Mamba-2 (a decision): the smallest tensor-parallel degree t, a
 * power of two up to n_chips dividing n_groups, at which the model fits with DP = n_chips / t
 * and the optimizer sharded over DP; 1 when pure DP fits, NaN when none fits. Memory per
 * device: (n_params / t)(weight_grad_bytes_per_param + optimizer_bytes_per_param /
 * (n_chips / t)) + activation_bytes / t (TP with sequence parallelism splits every
 * activation of a Mamba-2 layer).
 *
 * Question: the paper's Mamba-7B (4.517e9 parameters, 6 + 12 bytes, 28.2e9 bytes of
 * activations at 4K, 8 groups) on 8 NPUs of 60e9 bytes: the paper's TP 2.
 * Units:  n_params [params], bytes per param [byte], activation_bytes, hbm_bytes [byte],
 *         counts -> [count].
 * Domain: every argument >= 0, n_groups >= 1, n_chips >= 1; NaN otherwise.
 * Paper:  section 6.3.1 (TP 2 the minimal split for Mamba-7B), section 6.3.3 (TP first).
 */
double ex_hybrid_parallelism_guide_tp_degree(double n_params, double weight_grad_bytes_per_param,
                                             double optimizer_bytes_per_param,
                                             double activation_bytes, double hbm_bytes,
                                             int64_t n_groups, int64_t n_chips);

/** Which model split the design guide tries first (a decision): 2 (TP) for a Mamba-2 model
 * (is_mamba = 1); for a transformer 3 (CP) when its activations at pure DP outweigh its model
 * state (long sequences), else 1 (PP).
 *
 * Question: LLaMA 2 7B at 4K (18.25e9 bytes of activations, 50.5e9 of state) and at 32K
 * (146e9 of activations); Mamba-7B.
 * Units:  bytes [byte] -> [code: 1 PP, 2 TP, 3 CP].
 * Domain: is_mamba 0 or 1, bytes >= 0; NaN otherwise.
 * Paper:  sections 6.2.3 (PP before TP), 6.3.3 (TP first for Mamba), 4.2 (CP for long
 *         sequences).
 */
double ex_hybrid_parallelism_first_split(int is_mamba, double activation_bytes,
                                         double model_state_bytes);

/* ---- decision exercises: a layout ------------------------------------------------------------ */

/* The layouts below are graded by the library's predicted step time (hybrid.h and step.h, the
 * calibrated step model of the 910B, micro-batch 1, 1F1B, ZeRO-1, SP with TP; memory by
 * scale_hybrid_memory_per_device's model state and layer activations, without the output
 * layer's logits, against the NPU's HBM) of the paper's workload: 8 Ascend 910B,
 * 4,194,304 tokens per step. Your layout earns best / yours of the best feasible layout's step
 * time (full credit from 98%), nothing if it does not fit or is not one of the allowed ones.
 *
 * Allowed: dp, pp, tp, cp powers of two whose product is n_chips, tp dividing n_tp_units (the
 * KV heads of a transformer, the B/C groups of Mamba-2). When no layout fits, or an argument is
 * outside the Domain, return every field 0 (the "none" layout).
 *
 * Memory per device you may use to decide (the chapter's simple model, 1F1B keeping one
 * microbatch of the whole depth on the first stage, ZeRO-1 over the dp x cp replicas, TP with
 * SP and CP each splitting the activations):
 *   M = n_params / (tp pp) (weight_grad_bytes_per_param + optimizer_bytes_per_param / (dp cp))
 *       + activation_bytes / (tp cp).
 * What a split costs is the chapter's lesson ("The design guide as inequalities" and the grid
 * against the step model): DP costs least, then PP (the bubble), CP (the ring, hidden on long
 * blocks), and TP most (its AllReduces are on the critical path); split only as much as memory
 * needs. The include guard of the type lets the grader read this header twice. */
#ifndef SCALE_EX_HYBRID_LAYOUT_DEFINED
#define SCALE_EX_HYBRID_LAYOUT_DEFINED
/** A 4D layout: degrees of data, pipeline, tensor and context parallelism. */
typedef struct {
  int64_t dp, pp, tp, cp;
} ex_hybrid_layout;
#endif

/** The layout of a transformer at 4K tokens (a decision).
 *
 * Question: LLaMA 2 7B (6,738,415,616 parameters, 18.25e9 bytes of activations, 32 KV heads),
 * LLaMA 3 8B, Llama 3.2 1B and LLaMA 2 13B at 4K, on 8 NPUs of 60e9 bytes, 6 + 12 bytes per
 * parameter; and LLaMA 2 70B, which does not fit.
 * Units:  n_params [params], bytes per param [byte], activation_bytes (one microbatch, whole
 *         depth) and hbm_bytes [byte], counts -> a layout.
 * Domain: bytes > 0, n_tp_units >= 1, n_chips >= 1 a power of two; the none layout otherwise.
 * Paper:  section 6.2 (LLaMA: PP 2 x DP 4), section 7.
 */
ex_hybrid_layout ex_hybrid_parallelism_layout_transformer(double n_params,
                                                          double weight_grad_bytes_per_param,
                                                          double optimizer_bytes_per_param,
                                                          double activation_bytes,
                                                          double hbm_bytes, int64_t n_tp_units,
                                                          int64_t n_chips);

/** The layout of a transformer at 32K tokens (a decision): activations grow eightfold, so
 * splits that cut them (CP, TP) come into play.
 *
 * Question: LLaMA 2 7B (146e9 bytes of activations at 32K), LLaMA 3 8B, Llama 3.2 1B and
 * LLaMA 2 13B at 32K on 8 NPUs; LLaMA 2 70B does not fit.
 * Units, Domain: as layout_transformer.
 * Paper:  section 4.2 (CP for long sequences), rule 15.
 */
ex_hybrid_layout ex_hybrid_parallelism_layout_long_context(double n_params,
                                                           double weight_grad_bytes_per_param,
                                                           double optimizer_bytes_per_param,
                                                           double activation_bytes,
                                                           double hbm_bytes, int64_t n_tp_units,
                                                           int64_t n_chips);

/** The layout of a Mamba-2 model at 4K tokens (a decision); n_tp_units is its number of B/C
 * groups.
 *
 * Question: the paper's Mamba-7B (4.517e9 parameters, 28.2e9 bytes of activations, 8 groups)
 * and Mamba-1B at 4K on 8 NPUs.
 * Units, Domain: as layout_transformer.
 * Paper:  section 6.3 (the paper measured TP 2 best; the library's step model prices TP's
 *         AllReduce on the critical path and disagrees: the chapter's grid). On the paper's
 *         framework each added stage of a Mamba-2 pipeline also costs a fixed latency (the
 *         chapter's case study), while a Mamba-2 layer's CP exchanges only its chunk states.
 */
ex_hybrid_layout ex_hybrid_parallelism_layout_mamba(double n_params,
                                                    double weight_grad_bytes_per_param,
                                                    double optimizer_bytes_per_param,
                                                    double activation_bytes, double hbm_bytes,
                                                    int64_t n_tp_units, int64_t n_chips);

/** The layout of Mamba-7B at 32K tokens on 8 NPUs (a decision), and of Mamba-1B; Mamba-7B at
 * 128K does not fit.
 *
 * Question: Mamba-7B at 32K (225.8e9 bytes of activations, 8 groups).
 * Units, Domain: as layout_transformer.
 * Paper:  sections 6.3.3 and 7 (CP for Mamba only when nothing else fits).
 */
ex_hybrid_layout ex_hybrid_parallelism_layout_mamba_long(double n_params,
                                                         double weight_grad_bytes_per_param,
                                                         double optimizer_bytes_per_param,
                                                         double activation_bytes,
                                                         double hbm_bytes, int64_t n_tp_units,
                                                         int64_t n_chips);

#endif
