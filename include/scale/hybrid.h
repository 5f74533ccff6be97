/* hybrid.h — the hybrid-parallelism study of Amer et al. (arXiv 2602.09109), as functions.
 *
 * What transformer.h, training.h and collectives.h do not already give:
 *
 *   volumes   the per-device data of each collective (the paper's Table 2) and the forward
 *             communication of one attention layer under DP, TP, CP, TPSP and TPUP (Ulysses)
 *             (Table 3), counted as the paper counts them: bytes sent plus bytes received;
 *   memory    bytes per device of weights, gradients, optimizer state and saved activations
 *             for a (dp, pp, tp, cp) layout with a ZeRO stage, sequence parallelism and a
 *             number of microbatches in flight;
 *   Mamba-2   what each parallelism splits in an SSM layer, the forward communication of a
 *             Mamba-2 layer under DP/TP/TPSP/CP: under CP only the chunk-final SSD states
 *             (all-gathered) and the convolution's halo move, independent of the sequence;
 *   overlap   step time of compute and communication under the paper's dependency classes
 *             (section 2.6: none, weak, strong with chunked decomposition), and the ring-CP
 *             block size above which the K/V pass hides under attention compute;
 *   rules     the design guide of section 7 (feasibility first, pure DP when it fits, the
 *             smallest model split otherwise, PP first for transformers and TP first for
 *             Mamba, TP bounded by the link, CP only when its ring hides, TP inside the fast
 *             domain), each an inequality with both sides returned, and the layout it picks;
 *   tables    the named quantities chapter 13 shows of each (scale_hybrid_table: Tables 2 and
 *             3, memory, overlap, Mamba-2's splits and traffic, the guide's rules), filled
 *             here and emitted by the chapter as they come.
 *
 * Pure functions on doubles in SI units; NaN outside the domain; nothing allocated.
 * Paper: Amer et al., "Distributed Hybrid Parallelism for Large Language Models: Comparative
 * Study and System Design Guide", arXiv 2602.09109 (digest: ../shared/reference/hybrid-paper.md).
 */
#ifndef SCALE_HYBRID_H
#define SCALE_HYBRID_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/step.h"
#include "scale/transformer.h"
#include "scale/units.h"

/* ---- collectives (Table 2) ------------------------------------------------------------------ */

/** The collectives of the paper's Table 2. */
typedef enum {
  SCALE_HYBRID_REDUCE = 0,     /**< reduce to one root */
  SCALE_HYBRID_GATHER,         /**< gather to one root */
  SCALE_HYBRID_ALL_GATHER,     /**< ring AllGather */
  SCALE_HYBRID_REDUCE_SCATTER, /**< ring ReduceScatter */
  SCALE_HYBRID_ALL_TO_ALL,     /**< AllToAll */
  SCALE_HYBRID_ALL_REDUCE,     /**< ring AllReduce = ReduceScatter + AllGather */
  SCALE_HYBRID_COLL_COUNT
} scale_hybrid_coll;

/** Name of a collective ("reduce", "all-gather", ...); "?" if invalid. Static storage. */
const char *scale_hybrid_coll_name(scale_hybrid_coll op);

/** Data one device moves in collective 'op' over 'n' devices, as Table 2 gives it: (n-1) T for
 * Reduce and Gather (the root takes in n-1 arrays of T), (n-1)/n T for the ring AllGather,
 * ReduceScatter and AllToAll, 2(n-1)/n T for the ring AllReduce; T is the array the
 * operation is about (the full array for the ring collectives).
 *
 * Units:  t_bytes [bytes] -> [bytes].
 * Domain: n >= 1, t_bytes >= 0, a valid op; NaN otherwise. 0 when n = 1.
 * Paper:  section 2.1, Table 2.
 */
double scale_hybrid_collective_bytes(scale_hybrid_coll op, double n, double t_bytes);

/* ---- per-layer forward communication (Table 3) ---------------------------------------------- */

/** The single-strategy parallelisms of Table 3. */
typedef enum {
  SCALE_HYBRID_DP = 0, /**< data parallelism: nothing in the forward pass */
  SCALE_HYBRID_TP,     /**< Megatron tensor parallelism: one AllReduce of [b, s, d] per block */
  SCALE_HYBRID_CP,     /**< context parallelism: K and V passed round a ring */
  SCALE_HYBRID_TPSP,   /**< TP with sequence parallelism: AllGather + ReduceScatter */
  SCALE_HYBRID_TPUP,   /**< Ulysses: four AllToAlls (Q, K, V, O) per attention layer */
  SCALE_HYBRID_STRATEGY_COUNT
} scale_hybrid_strategy;

/** Name of a strategy ("dp", "tp", "cp", "tpsp", "tpup"); "?" if invalid. Static storage. */
const char *scale_hybrid_strategy_name(scale_hybrid_strategy st);

/** Forward communication of one attention layer per device under 'st' of degree 'degree',
 * bytes sent plus received (the paper's count), in 'dtype':
 *   DP 0;  TP and TPSP 4(t-1)/t b s d;  CP 4(c-1)/c b s K H;  TPUP 4(u-1)/u^2 b s H (N + K),
 * with d = N H the attention width (N query heads, K KV heads, H head width).
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: a transformer with attention heads, degree >= 1, b, s >= 0, a valid dtype; NaN
 *         otherwise (TPUP also NaN when degree exceeds K: Ulysses splits heads).
 * Paper:  section 2.6, Table 3.
 */
double scale_hybrid_attention_fwd_bytes(const scale_model *model, scale_hybrid_strategy st,
                                        double degree, double b, double s, scale_dtype dtype);

/** The paper's section 5 shorthand for the GQA + MLP communication of TP and CP: elements
 * 2 s N H for TP, 2 s K H for CP (pass-KV), 0 for DP; no batch, no (n-1)/n factor. NaN for
 * TPSP and TPUP (section 5 does not give them). Compare scale_hybrid_attention_fwd_bytes().
 *
 * Units:  s [tokens] -> [elements].
 * Paper:  section 5.2 "GQA and MLP Communication".
 */
double scale_hybrid_s5_comm_elements(const scale_model *model, scale_hybrid_strategy st, double s);

/* ---- Mamba-2 --------------------------------------------------------------------------------- */

/** What one device holds of one Mamba-2 layer under tp x cp x dp (mamba_ssm's TP: heads and
 * groups split, in-projection column-parallel, out-projection row-parallel, one AllReduce). */
typedef struct {
  double heads;          /**< SSM heads per device, h / tp */
  double groups;         /**< B/C groups per device, g / tp */
  double d_inner;        /**< inner channels per device, d_inner / tp */
  double d_in_proj;      /**< in-projection columns per device, d_in_proj / tp */
  double weight_params;  /**< in- and out-projection parameters per device */
  double tokens;         /**< tokens of the sequence per device, s / cp */
  double sequences;      /**< sequences per device, b / dp */
  double chunks;         /**< SSD chunks per device sequence, (s / cp) / l */
  double state_elements; /**< one chunk-final SSD state of the device's sequences:
                              (b / dp) (h / tp) P n */
  double halo_elements;  /**< convolution halo from the previous CP rank:
                              (b / dp)(d_conv - 1)(d_inner + 2 g n) / tp */
  double tp_all_reduces; /**< AllReduces per layer in the forward pass (1 with tp > 1) */
  bool valid;            /**< tp divides heads and groups, cp divides s */
} scale_hybrid_ssm_split;

/** Fills *out with the share of one Mamba-2 layer a device holds under tp x cp x dp for 'b'
 * sequences of 's' tokens; out->valid is false (numbers still computed) when tp does not
 * divide the heads and groups or cp does not divide s.
 *
 * Domain: a Mamba-2 model, degrees >= 1, b, s > 0; otherwise every number is NaN.
 * Source: Dao, "Mamba-2 Part IV - Systems" (TP with grouped norm: one AllReduce per layer;
 *         CP passes chunk states); mamba_ssm PR #664 (conv halo). The paper (section 5.3) does
 *         not treat plain TP.
 */
void scale_hybrid_mamba2_split(const scale_model *model, double tp, double cp, double dp, double b,
                               double s, scale_hybrid_ssm_split *out);

/** Forward communication of one Mamba-2 layer per device, bytes sent plus received (Table 3's
 * count) in 'dtype': DP 0; TP and TPSP 4(t-1)/t b s d (the out-projection's AllReduce, or
 * AllGather + ReduceScatter); CP an AllGather of the chunk-final states, 2(c-1) b h P n, plus
 * the convolution halo from and to the neighbours, 2 b (d_conv - 1)(d_inner + 2 g n): neither
 * depends on s. TPUP is NaN (the paper defines it for attention only).
 *
 * Units:  b [sequences], s [tokens] -> [bytes].
 * Domain: a Mamba-2 model, degree >= 1, b, s >= 0, a valid dtype; NaN otherwise.
 * Paper:  section 5.3, Table 8 (CP O(d d_state CP) by AllGather of states; TPSP grows with s).
 */
double scale_hybrid_mamba2_fwd_bytes(const scale_model *model, scale_hybrid_strategy st,
                                     double degree, double b, double s, scale_dtype dtype);

/* ---- context parallelism on a host-synchronous framework ----------------------------------- */

/** Step time of 'job' whose device time is 'device_s' when every context-parallel layer waits
 * for its host: max(device_s, n host_layer_s), n = scale_step_cp_layer_microbatches(job), 0 when cp = 1.
 * The paper's CP exchanges are host-blocking point-to-point calls; after each the device has
 * an empty queue and runs no faster than the host issues the layer's forward and backward
 * operators, so a CP layer-microbatch costs at least 'host_layer_s' (a few hundred eager
 * operators at tens of microseconds each: 1-30 ms) however few tokens it holds. Measured in
 * all four tables of the paper's section 6: 10-12 ms per layer and microbatch at CP 2, 4 and
 * 8, for widths 2048 and 4096, attention and SSM alike. Without CP the host runs ahead
 * (TP's collectives are enqueued on the stream), and device_s is returned.
 *
 * Units:  device_s, host_layer_s [s] -> [s].
 * Domain: device_s > 0, host_layer_s >= 0, a job as above; NaN otherwise.
 */
double scale_hybrid_cp_host_bound_s(const scale_step_job *job, double device_s,
                                    double host_layer_s);

/** A layout's predicted step time on the paper's framework: the step model's
 * (scale_step_time_s) for a transformer, scale_step_mamba2_eval()'s for Mamba-2, both
 * with the stored floor and stage latency off, then scale_hybrid_cp_host_bound_s() with
 * 'host_layer_s', plus scale_step_ssm_stages() x 'stage_s'.
 *
 * Units:  host_layer_s, stage_s [s] -> [s].
 * Domain: as the two evaluations, stage_s >= 0; NaN outside it.
 */
double scale_hybrid_predict_step_s(const scale_step_job *job, const scale_step_params *params,
                                   double host_layer_s, double stage_s);

/* ---- memory per device ---------------------------------------------------------------------- */

/** A 4D layout of the paper (dp x pp x tp x cp devices) with the memory options. */
typedef struct {
  double dp, pp, tp, cp; /**< degrees (>= 1) */
  int zero;              /**< ZeRO stage over the dp x cp replicas: 0 (plain), 1, 2, 3 */
  bool sp;               /**< sequence parallelism: the TP block inputs split too */
} scale_hybrid_layout;

/** Whether layout 'l' has the degrees (dp, pp, tp, cp), whatever its ZeRO stage and SP. */
bool scale_hybrid_layout_is(const scale_hybrid_layout *l, double dp, double pp, double tp,
                            double cp);

/** Memory of one device, by part. */
typedef struct {
  double params;           /**< parameters per device: N / (tp pp) [count] */
  double weight_bytes;     /**< weights held [bytes] */
  double grad_bytes;       /**< gradients held [bytes] */
  double optimizer_bytes;  /**< optimizer state held [bytes] */
  double activation_bytes; /**< activations the layers save for the backward pass [bytes] */
  double logits_bytes;     /**< the last stage's head for one microbatch: its inputs and the
                                fp32 logits (scale_memory_logits_bytes) [bytes] */
  double total_bytes;      /**< model state + the larger of the first stage's activations and
                                the last stage's (one microbatch) with its logits [bytes] */
} scale_hybrid_memory;

/** Memory per device of 'layout' training 'model' with precision 'prec', micro-batches of
 * 'mbs' sequences of 's' tokens, 'in_flight' microbatches held at the peak (1F1B: min(m, pp)
 * on the first stage; use scale_pipeline_microbatches_in_flight()): parameters N / (tp pp)
 * (the whole model, embeddings included, split evenly), weights, gradients and optimizer
 * state by scale_train_zero_bytes_per_chip() over dp x cp shards, activations
 * A = L / pp x scale_transformer_layer_activation_bytes(mbs, s, tp, cp, sp) per microbatch, and the
 * head's logits H = scale_memory_logits_bytes(mbs, s, tp, cp, sp) on the last stage. The
 * total is the peak device's: states + max(in_flight A, A + H), the first stage holding
 * in_flight microbatches, the last (1F1B) one with its logits; without a pipeline A + H.
 *
 * Domain: degrees, mbs, in_flight >= 1, s > 0, zero 0-3; otherwise every field is NaN.
 * Source: ZeRO (Rajbhandari et al., arXiv 1910.02054) Figure 1; the paper section 2.5.
 */
void scale_hybrid_memory_per_device(const scale_model *model, const scale_hybrid_layout *layout,
                                    const scale_precision *prec, double mbs, double s,
                                    double in_flight, scale_hybrid_memory *out);

/* ---- overlap (section 2.6, section 3) ------------------------------------------------------- */

/** How a communication depends on the computation beside it. */
typedef enum {
  SCALE_HYBRID_DEP_NONE = 0, /**< not overlapped: compute then communicate */
  SCALE_HYBRID_DEP_WEAK,     /**< independent work hides it (DP gradients, PP sends) */
  SCALE_HYBRID_DEP_STRONG,   /**< the next compute needs it (TP, MoE AllToAll): hidden only by
                                  splitting both into chunks, the last chunk's tail exposed */
  SCALE_HYBRID_DEP_COUNT
} scale_hybrid_dependency;

/** Time of 't_comp' of compute beside 't_comm' of communication:
 *   NONE    t_comp + t_comm;
 *   WEAK    max(t_comp, t_comm);
 *   STRONG  (c - 1)/c max(t_comp, t_comm) + (t_comp + t_comm)/c with c = n_chunks (a two-stage
 *           pipeline of c equal chunks: c = 1 is NONE, c -> infinity tends to WEAK).
 * The exposed communication is the result minus t_comp.
 *
 * Units:  [s] -> [s].
 * Domain: times >= 0, n_chunks >= 1 (read only for STRONG), a valid dependency; NaN otherwise.
 * Paper:  section 2.6 (weak and strong data dependency, data decomposition and its "tail").
 */
double scale_hybrid_overlap_s(scale_hybrid_dependency dep, double t_comp, double t_comm,
                              double n_chunks);

/** Smallest per-device block of ring context parallelism whose K/V transfer hides under its
 * attention compute: each ring step computes 4 b c^2 N H FLOPs (Q K^T and P V) at
 * 'flops_per_s' while sending 2 b c K H elements of 'dtype' at 'link_bytes_per_s', so
 * c >= (F / W) K beta / (2 N); twice that under a causal mask without load balancing.
 *
 * Units:  flops_per_s [FLOP/s], link_bytes_per_s [bytes/s] -> [tokens].
 * Domain: a transformer with attention heads, positive rates, a valid dtype; NaN otherwise.
 * Source: Liu et al., Ring Attention (arXiv 2310.01889); the digest's section 2.7 derivation.
 */
double scale_hybrid_ring_cp_min_block_tokens(const scale_model *model, double flops_per_s,
                                             double link_bytes_per_s, scale_dtype dtype,
                                             bool causal_unbalanced);

/** One direct link of a switchless full mesh of the chip's scale-up domain (Ascend HCCS): the
 * chip's egress over the domain's other members, nvlink_bytes_per_s / (domain size - 1)
 * [bytes/s]; NaN without such a domain of two or more.
 *
 * Units:  -> [bytes/s] one way.
 * Paper:  section 6.1 (8 Ascend 910B joined by HCCS, each pair by one link).
 */
double scale_hybrid_peer_bytes_per_s(const scale_chip *chip);

/** One transformer layer's forward under TP 'tp' on 'chip', b = 1 and 's' tokens in bf16:
 * *comp_s its attention and MLP blocks' FLOPs per device
 * (scale_transformer_gqa_block_flops_per_device + scale_transformer_mlp_block_flops_per_device)
 * at the chip's bf16 peak; *comm_s its two AllReduces (attention, MLP), Table 3's bytes per
 * device (scale_hybrid_attention_fwd_bytes), over the one direct link to a TP peer
 * (scale_hybrid_peer_bytes_per_s). The two sides of section 2.6's overlap.
 *
 * Units:  s [tokens] -> comp_s, comm_s [s].
 * Domain: a transformer, tp >= 1 dividing its heads, s > 0, a chip with a bf16 rate and a
 *         peer link; NaN otherwise.
 * Paper:  section 2.6 (TP's strong dependency), Table 3.
 */
void scale_hybrid_tp_layer_fwd_s(const scale_model *model, const scale_chip *chip, double tp,
                                 double s, double *comp_s, double *comm_s);

/* ---- the design guide (section 7) ------------------------------------------------------------ */

/** The rules of the paper's design guide that a number can decide. */
typedef enum {
  SCALE_HYBRID_RULE_FITS_DP = 0,    /**< pure DP when a full replica fits: mem(N,1,1,1) <= HBM */
  SCALE_HYBRID_RULE_SMALLEST_SPLIT, /**< otherwise the smallest split that fits, DP largest:
                                         mem(N/k, split k) <= HBM at the least such k */
  SCALE_HYBRID_RULE_SPLIT_KIND,     /**< which split: PP for a transformer (CP when activations
                                         dominate), TP for Mamba-2: 1 = PP, 2 = TP, 3 = CP */
  SCALE_HYBRID_RULE_TP_BOUND,       /**< TP only while its AllReduce hides under the GEMMs:
                                         tp <= F W / C (the book's Y < M_Y F / alpha) */
  SCALE_HYBRID_RULE_TP_DOMAIN,      /**< TP inside the fast domain: tp <= domain size */
  SCALE_HYBRID_RULE_CP_RING,        /**< CP only when its ring hides: s / cp >= c_min
                                         (scale_hybrid_ring_cp_min_block_tokens); Mamba: CP only
                                         when nothing else fits (its vector work does not shrink) */
  SCALE_HYBRID_RULE_COUNT
} scale_hybrid_rule;

/** Name of a rule ("fits-dp", "smallest-split", ...); "?" if invalid. Static storage. */
const char *scale_hybrid_rule_name(scale_hybrid_rule rule);

/** One rule evaluated: the inequality lhs <= rhs, and whether it holds. */
typedef struct {
  double lhs; /**< left side (bytes, degree or tokens) */
  double rhs; /**< right side */
  bool holds; /**< lhs <= rhs */
} scale_hybrid_rule_eval;

/** A training problem as the paper poses it: one model, n_chips of one chip, global batch of
 * gbs sequences of s tokens in micro-batches of mbs, ZeRO stage 'zero' over the replicas. */
typedef struct {
  const scale_model *model; /**< caller storage */
  const scale_chip *chip;   /**< caller storage */
  double n_chips;           /**< devices, a power of two [count] */
  double gbs;               /**< global batch [sequences] */
  double s;                 /**< sequence length [tokens] */
  double mbs;               /**< micro-batch [sequences] */
  int zero;                 /**< ZeRO stage of the data-parallel replicas (0-3) */
  scale_precision prec;     /**< weights, gradients, optimizer dtypes */
} scale_hybrid_problem;

/** The problem as the paper's case study poses it (section 6.1): 'model' on 8 of 'chip', a
 * global batch of 'gbs' sequences of 's' tokens in micro-batches of one, ZeRO-1 (Megatron's
 * distributed optimizer) over the replicas and Megatron's mixed precision
 * (SCALE_PRECISION_MEGATRON). Our reading of the paper's setup: with it the design guide picks
 * the four best layouts of Table 15.
 *
 * Units:  gbs [sequences], s [tokens].
 * Paper:  section 6.1 (8 Ascend 910B, global batch 1024 of 4096 tokens, MindSpeed).
 */
scale_hybrid_problem scale_hybrid_paper_problem(const scale_model *model, const scale_chip *chip,
                                                double gbs, double s);

/** Memory per device of 'layout' for 'problem' (what the guide and scale_plan_hybrid() hold
 * against HBM): scale_hybrid_memory_per_device() with the problem's precision, micro-batch and
 * sequence, holding the 1F1B microbatches in flight (scale_pipeline_microbatches_in_flight) of
 * m = max(1, gbs / (dp mbs)) per replica.
 *
 * Domain: as scale_hybrid_memory_per_device(); every field NaN outside it.
 * Paper:  section 2.5 (memory per strategy), Figure 1 of ZeRO.
 */
void scale_hybrid_problem_memory(const scale_hybrid_problem *problem,
                                 const scale_hybrid_layout *layout, scale_hybrid_memory *out);

/** What the guide says: the layout it picks and each rule's inequality at that layout's
 * decision point. */
typedef struct {
  scale_hybrid_layout layout;                           /**< the pick (dp, pp, tp, cp) */
  scale_hybrid_memory memory;                           /**< its memory per device */
  scale_hybrid_rule_eval rule[SCALE_HYBRID_RULE_COUNT]; /**< each rule's sides */
  bool feasible;                                        /**< some power-of-two split fits */
} scale_hybrid_guide;

/** Applies the design guide to 'problem': pure DP if a replica fits (memory by
 * scale_hybrid_memory_per_device, 1F1B, microbatches per replica gbs / (dp mbs)); otherwise
 * the smallest power-of-two split k that fits, with dp = n / k, trying the kinds in the
 * family's order: Mamba-2 TP, PP, CP (section 6.3.3); a transformer PP, TP, CP (section 6.2.3),
 * or CP, TP, PP when its activations outweigh its model state at pure DP (section 4.2: CP for
 * long sequences); then the first kind paired with another. SP is on wherever TP is. Rules:
 * FITS_DP at dp = n; SMALLEST_SPLIT at the pick; SPLIT_KIND lhs the kind picked (1 PP, 2 TP,
 * 3 CP, 0 none) against rhs the kind the family prefers; TP_BOUND, TP_DOMAIN and CP_RING at the
 * pick (CP_RING for Mamba: its CP degree against 1, unless CP is the only split that fits).
 *
 * Domain: non-NULL model and chip, n_chips >= 1, gbs, s, mbs > 0; out->feasible false and the
 *         layout NaN otherwise or when nothing fits.
 * Paper:  section 4.2 (feasibility first, then MFU), section 6.4 and section 7 (design guide).
 */
void scale_hybrid_guide_eval(const scale_hybrid_problem *problem, scale_hybrid_guide *out);

/* ---- tables of named quantities (chapter 13's tables) --------------------------------------- */

/** Rows a scale_hybrid_table holds at most. */
#define SCALE_HYBRID_TABLE_MAX 48

/** Longest label a table row keeps, its NUL included (a longer one is cut). */
#define SCALE_HYBRID_LABEL_MAX 128

/** Named quantities (units.h's scale_quantity) a function of the study fills, in the order
 * they are read. A row may be a text value instead of a number (a yes/no flag, the relation of
 * a rule's two sides): text[i] is then its display and row[i].value the number that goes with
 * it (1 or 0). Labels built from numbers ("LLaMA 2 7B, tp 8") live in label[]: row[i].label
 * points there, so a table is filled and read in place, never copied. About 10 kB. The
 * functions named scale_hybrid_*_table() (here, in hybrid_grid.h and hybrid_study.h) empty
 * the table they are given, fill it and return it. */
typedef struct {
  int n;                                                      /**< rows in 'row' */
  scale_quantity row[SCALE_HYBRID_TABLE_MAX];                 /**< the rows */
  const char *text[SCALE_HYBRID_TABLE_MAX];                   /**< a text row's display (static
                                                                   storage), NULL for a number */
  char label[SCALE_HYBRID_TABLE_MAX][SCALE_HYBRID_LABEL_MAX]; /**< the labels' storage */
} scale_hybrid_table;

/** The value of t's row 'key'; NaN when t has no such row. */
double scale_hybrid_table_value(const scale_hybrid_table *t, const char *key);

/** Appends the row (key, label, value, unit, style) to *t, the label copied into t's storage;
 * a key longer than scale_quantity's or a label than SCALE_HYBRID_LABEL_MAX is cut, a row
 * beyond SCALE_HYBRID_TABLE_MAX dropped. */
void scale_hybrid_table_add(scale_hybrid_table *t, const char *key, const char *label, double value,
                            const char *unit, scale_fmt style);

/** Appends a text row: 'text' (static storage) displayed, 'value' the number beside it. */
void scale_hybrid_table_add_text(scale_hybrid_table *t, const char *key, const char *label,
                                 double value, const char *text);

/** Appends the flag 'yes' as a text row: value 1 shown "yes", or 0 shown "no". */
void scale_hybrid_table_add_flag(scale_hybrid_table *t, const char *key, const char *label,
                                 bool yes);

/** Appends the degrees of a layout as the rows "PREFIX.dp", ".pp", ".tp", ".cp" (labelled DP,
 * PP, TP, CP; plain counts), or "dp" ... when 'prefix' is NULL. */
void scale_hybrid_table_add_layout(scale_hybrid_table *t, const char *prefix, double dp, double pp,
                                   double tp, double cp);

/** Fills *out with Table 2 in multiples of T: for each collective (scale_hybrid_coll order)
 * and each of ns[0..n), the row "nN.NAME" (NAME with '_' for '-': "n8.all_reduce", labelled
 * "all-reduce over N = 8 [x T]") of scale_hybrid_collective_bytes(op, N, 1).
 *
 * Units:  [1] (multiples of the array T).
 * Paper:  Table 2 (N = 8: AllReduce 1.75 T, Reduce 7 T).
 */
scale_hybrid_table *scale_hybrid_collective_table(const double *ns, int n, scale_hybrid_table *out);

/** Fills *out with Table 3 for 'model' at b = 1 and 's' tokens in 'dtype': for each strategy
 * (scale_hybrid_strategy order) and each of degrees[0..n), the row "NAME.D" ("tp.8", labelled
 * "LLaMA 2 7B, tp 8") of scale_hybrid_attention_fwd_bytes().
 *
 * Units:  s [tokens] -> [bytes].
 * Paper:  Table 3 (LLaMA 2 7B, s = 4096, bf16: TP 8 117,440,512 B).
 */
scale_hybrid_table *scale_hybrid_attention_table(const scale_model *model, const double *degrees,
                                                 int n, double s, scale_dtype dtype,
                                                 scale_hybrid_table *out);

/** Fills *out with a memory breakdown: "w", "g", "o", "a", "total" (bytes) and the flag "fits"
 * (total <= hbm_bytes).
 *
 * Units:  [bytes]. */
scale_hybrid_table *scale_hybrid_memory_table(const scale_hybrid_memory *mem, double hbm_bytes,
                                              scale_hybrid_table *out);

/** Fills *out with a Mamba-2 split: "heads", "groups", "inproj", "weights", "tokens", "seqs",
 * "chunks", "state", "halo", "ar" (the fields of scale_hybrid_ssm_split, counts). */
scale_hybrid_table *scale_hybrid_ssm_split_table(const scale_hybrid_ssm_split *s,
                                                 scale_hybrid_table *out);

/** Fills *out with the overlap of 't_comp' of compute and 't_comm' of communication
 * (scale_hybrid_overlap_s): "none", "weak", then for each of chunks[0..n) "strongC" (strong,
 * C chunks) and "exposedC" (it minus t_comp), and "exposed_none" (t_comm).
 *
 * Units:  [s] -> [s].
 * Paper:  section 2.6 (t_comp 3, t_comm 1, 2 chunks: strong 3.5, exposed 0.5).
 */
scale_hybrid_table *scale_hybrid_overlap_table(double t_comp, double t_comm, const double *chunks,
                                               int n, scale_hybrid_table *out);

/** Fills *out with one transformer layer's forward under TP 'tp' on 'chip' at b = 1 and 's'
 * tokens (scale_hybrid_tp_layer_fwd_s): "comp" (its blocks at the bf16 peak), "comm" (its two
 * AllReduces over one link) [s], then its overlap as scale_hybrid_overlap_table() gives it.
 *
 * Units:  s [tokens] -> [s].
 * Paper:  section 2.6, Table 3 (LLaMA 2 7B at TP 2 on the 910B: 67,108,864 B over a 2.8e10 B/s
 *         link, 2.40 ms of communication).
 */
scale_hybrid_table *scale_hybrid_tp_overlap_table(const scale_model *model, const scale_chip *chip,
                                                  double tp, double s, const double *chunks, int n,
                                                  scale_hybrid_table *out);

/** Fills *out with the model state per device under each ZeRO stage 0-3 ("s0" ... "s3",
 * scale_train_zero_bytes_per_chip of 'n_params' over 'n_devices' in 'prec') [bytes].
 *
 * Source: ZeRO (Rajbhandari et al., arXiv 1910.02054) Figure 1: 7.5B parameters over 64
 *         devices, 2 + 2 + 12 bytes: 120 GB, 31.4 GB, 16.6 GB, 1.88 GB.
 */
scale_hybrid_table *scale_hybrid_zero_table(const scale_precision *prec, double n_params,
                                            double n_devices, scale_hybrid_table *out);

/** Fills *out with what the guide says: the pick's degrees ("dp" ... "cp"), its memory "mem",
 * and for each rule (scale_hybrid_rule order) "NAME.lhs", "NAME.rhs" (bytes for the memory
 * rules, else plain) and, but for SPLIT_KIND (a comparison of kinds), the text row
 * "NAME.rel": "≤" (1) when the rule holds, ">" (0) when it fails.
 *
 * Paper:  section 7 (the design guide). */
scale_hybrid_table *scale_hybrid_guide_table(const scale_hybrid_guide *g, scale_hybrid_table *out);

/** Fills *out with CP's traffic per layer and device, a Mamba-2 layer's against an attention
 * layer's (b = 1, degree 'cp', 'dtype'), at each sequence length seqs[0..n) of K x 1024
 * tokens: "mcp.sKk" (scale_hybrid_mamba2_fwd_bytes under CP), "acp.sKk"
 * (scale_hybrid_attention_fwd_bytes under CP), "cpratio.sKk" (attention over Mamba) and
 * "mtp.sKk" (the Mamba layer under TP of the same degree); the labels call the models
 * 'mamba_name' and 'attn_name' ("Mamba-7B CP 8").
 *
 * Units:  seqs [tokens] -> [bytes], the ratio [1].
 * Paper:  section 5.3, Table 8 (Mamba's CP moves O(d d_state CP), whatever s).
 */
scale_hybrid_table *scale_hybrid_cp_traffic_table(const scale_model *mamba, const char *mamba_name,
                                                  const scale_model *attn, const char *attn_name,
                                                  double cp, const double *seqs, int n,
                                                  scale_dtype dtype, scale_hybrid_table *out);

/** Fills *out with a Mamba-2 model's SSD scan against its projections at one sequence of 's'
 * tokens, forward: "ssd.KEY.share" (scale_transformer_ssd_flops over
 * scale_transformer_mamba2_projection_flops), "ssd.KEY.naive" (the naive recurrence's FLOPs
 * over the scan's), and "act.KEY", the activations one layer saves
 * (scale_transformer_layer_activation_bytes, no split) [bytes]; KEY is 'key'.
 *
 * Paper:  section 5.3 (the chunked scan's share of the cube work).
 */
scale_hybrid_table *scale_hybrid_ssd_table(const scale_model *model, const char *key, double s,
                                           scale_hybrid_table *out);

/** Fills *out with the case study's machine and workload (section 6.1): the chip's bf16 peak
 * "hw.flops" [FLOP/s], "hw.hbm" [bytes], "hw.hbm_bw" and "hw.egress" (its scale-up egress)
 * [bytes/s], "hw.peer" (scale_hybrid_peer_bytes_per_s) [bytes/s], "hw.chips" (n_chips), and
 * "case.gbs" [sequences], "case.seq" and "case.tokens" (gbs s) [tokens]. The labels name the
 * paper's machine (Ascend 910B NPUs joined by HCCS).
 *
 * Paper:  section 6.1 (8 Ascend 910B, a global batch of 1024 sequences of 4096 tokens).
 */
scale_hybrid_table *scale_hybrid_case_table(const scale_chip *chip, double n_chips, double gbs,
                                            double s, scale_hybrid_table *out);

#endif
