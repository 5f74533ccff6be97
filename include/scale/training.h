/* training.h — a parallel layout for training, and what it costs: per-layer compute and
 * communication, step time, memory per chip, MFU, time and dollars of a run (chapters 5-6).
 *
 * A *layout* splits the chips of a run into the product of five degrees,
 *
 *     n_chips = dp x fsdp x tp x pp x cp          (ep x etp divides dp x fsdp x tp x cp)
 *
 *   dp    pure data parallelism: weights replicated, gradients AllReduced once per step;
 *   fsdp  ZeRO data parallelism of stage 1, 2 or 3 (stage 3 = the book's FSDP);
 *   tp    tensor (Megatron) parallelism, optionally with sequence parallelism (sp);
 *   pp    pipeline stages, with m microbatches and a schedule (GPipe, 1F1B, interleaved 1F1B
 *         with v virtual stages, zero-bubble);
 *   cp    context parallelism: the sequence split over cp chips (ring attention or Ulysses);
 *   ep    expert parallelism: the routed experts of a MoE split over ep of a stage's chips,
 *         etp apart (etp of the tp ranks slice each expert; Megatron-Core's parallel
 *         folding), so ep adds no chips of its own. A chip holds 1 / (ep x etp) of the
 *         experts, and 1 / tp of the dense weights.
 * Each degree is mapped onto a *link*: an ICI torus over M of the chip's axes, the NVLink
 * domain, or the data-centre network (DCN / InfiniBand) between slices or nodes;
 * scale_train_layout_map() does it the way the book does (ch. 5 "Scaling Across Pods").
 *
 * The model of a step (book ch. 5, made explicit):
 *   - compute: the model's training FLOPs (transformer.h, causal attention included) plus the
 *     rematerialization FLOPs, split evenly over every chip, at 'efficiency' x peak;
 *   - communication: each parallel dimension's collectives in the book's bandwidth form
 *     (ch. 3): AllGather/ReduceScatter of V bytes take V / W, AllReduce 2V / W, with W the
 *     bidirectional ICI bandwidth times the axes spanned (W_ici M), the NVLink egress, or the
 *     per-chip DCN egress (where V is the chip's own shard, as in the book's DCN analysis);
 *     on a GPU cluster whose hardware file describes its fat tree, TP, CP, FSDP and DP use
 *     the tree's exact AllGather bandwidth for their group instead (gpu.h, ch. 12), so model
 *     parallelism spanning nodes speeds up the data-parallel collectives as the book says;
 *     the (N-1)/N factors are dropped, as the book drops them;
 *   - overlap: collectives overlap with compute and with each other, except that dimensions
 *     sharing the NVLink egress or the DCN NICs serialize; exposed communication is what the
 *     busiest link adds beyond compute; the no-overlap bound adds every collective to compute;
 *   - the pipeline bubble multiplies the overlapped time by (1 + bubble_frac);
 *   - uneven stages: the stage with ceil(L / (pp v)) layers sets the pace, so compute time
 *     and the weights held per chip are those of the fullest stage.
 * Attention FLOPs are counted; the book's own derivations ignore them ("a stack of MLP
 * blocks"), so the threshold functions at the end use the book's MLP formulas exactly.
 *
 * Design for speed: scale_train_eval() is pure, allocation-free and fills a fixed-size
 * result; scale_train_validate() is separate and gives the one-line reason a layout is
 * inconsistent. Book: ch. 5 "How to Parallelize a Transformer for Training" (training.md),
 * ch. 6 "Training LLaMA 3 on TPUs" (applied-training.md); pipeline schedules, CP and SP from
 * Amer et al., "Distributed Hybrid Parallelism for Large Language Models" (arXiv 2602.09109)
 * and the papers it builds on (GPipe, PipeDream-1F1B, Megatron interleaving, zero-bubble
 * pipelines, ring attention, DeepSpeed-Ulysses, Korthikanti et al. sequence parallelism);
 * ZeRO memory from Rajbhandari et al. (arXiv 1910.02054).
 */
#ifndef SCALE_TRAINING_H
#define SCALE_TRAINING_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/pipeline.h"
#include "scale/status.h"
#include "scale/step.h"
#include "scale/transformer.h"
#include "scale/units.h"

/* ---- the layout ----------------------------------------------------------------------------- */

/** The parallel dimensions of a layout (index of scale_layout.link[] and .n_axes[]). */
typedef enum {
  SCALE_TRAIN_DIM_DP = 0, /**< pure data parallelism */
  SCALE_TRAIN_DIM_FSDP,   /**< ZeRO-1/2/3 data parallelism */
  SCALE_TRAIN_DIM_TP,     /**< tensor parallelism */
  SCALE_TRAIN_DIM_PP,     /**< pipeline parallelism */
  SCALE_TRAIN_DIM_EP,     /**< expert parallelism */
  SCALE_TRAIN_DIM_CP,     /**< context parallelism */
  SCALE_TRAIN_DIM_COUNT
} scale_train_dim;

/** Short lowercase name of a dimension ("dp", "fsdp", ...); "?" if invalid. Static storage. */
const char *scale_train_dim_name(scale_train_dim dim);

/** The network a parallel dimension's collectives run over. */
typedef enum {
  SCALE_TRAIN_LINK_ICI = 0, /**< TPU torus: bidirectional link bandwidth x the axes spanned */
  SCALE_TRAIN_LINK_NVLINK,  /**< GPU NVLink/NVSwitch domain: one-way egress per GPU */
  SCALE_TRAIN_LINK_DCN,     /**< between TPU slices or GPU nodes: per-chip DCN/InfiniBand egress */
  SCALE_TRAIN_LINK_COUNT
} scale_train_link;

/** Short lowercase name of a link ("ici", "nvlink", "dcn"); "?" if invalid. Static storage. */
const char *scale_train_link_name(scale_train_link link);

/* Pipeline schedules (scale_pp_schedule) and their formulas are in pipeline.h. */

/** Context-parallel attention algorithms. */
typedef enum {
  SCALE_CP_RING = 0, /**< ring attention: KV blocks passed round the cp ring */
  SCALE_CP_ULYSSES,  /**< DeepSpeed-Ulysses: AllToAll from sequence- to head-sharding */
  SCALE_CP_ALLGATHER, /**< all-gather of K and V before the attention (Llama 3 section 3.3.2):
                           the whole sequence's K and V on every rank, dK and dV
                           reduce-scattered back */
  SCALE_CP_COUNT
} scale_cp_kind;

/** Name of a CP kind ("ring", "ulysses", "allgather"); "?" if invalid. */
const char *scale_cp_kind_name(scale_cp_kind kind);

/** Parses "ring", "ulysses" or "allgather" (case-insensitive). Errors: SCALE_ERR_INVALID. */
scale_status scale_cp_kind_parse(const char *text, scale_cp_kind *out);

/** Parses a remat policy: "none", "block" (also "full"), "matmuls" (also "big-matmuls"),
 * "selective" (Megatron's: only the attention core is recomputed). Errors: SCALE_ERR_INVALID. */
scale_status scale_train_remat_parse(const char *text, scale_remat *out);

/** Name of a remat policy as the CLI spells it ("none", "block", "matmuls", "selective"). */
const char *scale_train_remat_name(scale_remat remat);

/** A parallel layout and how each degree is mapped onto the hardware. Degrees are counts
 * (integers >= 1) held as doubles, as everywhere in libscale. */
typedef struct {
  double dp;                  /**< pure data-parallel degree */
  double fsdp;                /**< ZeRO data-parallel degree */
  int zero_stage;             /**< 1, 2 or 3 for the fsdp group (ignored when fsdp == 1);
                                  the memory of stages 1-2 shards over fsdp x cp */
  double tp;                  /**< tensor-parallel degree */
  bool sp;                    /**< sequence parallelism inside the TP group (activations /tp) */
  double pp;                  /**< pipeline stages */
  double n_microbatches;      /**< m: microbatches per step (gradient accumulation if pp = 1) */
  scale_pp_schedule schedule; /**< pipeline schedule (ignored when pp == 1) */
  double n_virtual_stages;    /**< v: model chunks per stage for SCALE_PP_INTERLEAVED */
  bool pp_embed_loss;         /**< the embedding and the loss count as a layer each in the
                                   pipeline split (Megatron's account-for-embedding/loss-in-
                                   pipeline-split): L + 2 units over pp x v chunks */
  double ep;                  /**< expert-parallel degree (divides dp x fsdp x tp x cp) */
  double etp;                 /**< expert tensor parallelism, dividing tp (0 reads as 1) */
  double capacity_factor;     /**< MoE capacity factor (0: dropless, balanced; step.h) */
  double cp;                  /**< context-parallel degree */
  scale_cp_kind cp_kind;      /**< ring, Ulysses or all-gather */
  scale_remat remat;          /**< what the forward pass keeps for the backward pass */
  double remat_frac;          /**< with block remat, the share of each stage's layers it
                                   recomputes, the rest keeping everything (Megatron's
                                   --recompute-num-layers over the stage's layers); (0, 1] */
  scale_precision precision;  /**< dtypes of weights, gradients and optimizer state */
  scale_dtype act_dtype;      /**< dtype of activations and of the TP/PP/EP/CP traffic */
  bool tp_overlap;            /**< comm-GEMM overlap of the TP collectives (step model only) */
  bool unfused_attention;     /**< the attention core as separate kernels (scores in HBM, softmax
                                  and dropout, the full s x s product under the mask, its
                                  softmax output and dropout mask saved for the backward pass:
                                  Megatron 2021, Megatron-DeepSpeed); false: fused (flash) */
  scale_train_link link[SCALE_TRAIN_DIM_COUNT]; /**< link of each dimension */
  double n_axes[SCALE_TRAIN_DIM_COUNT];         /**< ICI axes spanned by each dimension (M_X, M_Y);
                                               1 for NVLink and DCN */
} scale_layout;

/** A layout with every degree 1, ZeRO-3, 1F1B, v = 1, one microbatch, ring CP, block remat,
 * bf16 weights/gradients/activations with Adam in fp32 (SCALE_PRECISION_BF16_ADAM), every
 * dimension on ICI over one axis (call scale_train_layout_map() after setting degrees). */
scale_layout scale_layout_default(void);

/** Layers of one of 'pp' pipeline stages: floor(n_layers / pp), the whole layers a share of
 * block remat (scale_layout.remat_frac) counts in.
 * Units: -> [count].  Domain: pp >= 1; NaN otherwise. */
double scale_train_stage_layers(const scale_model *model, double pp);

/** Layers of each stage block remat recomputes under 'layout': remat_frac of the stage's,
 * rounded to whole layers (Megatron's --recompute-num-layers).
 * Units: -> [count].  Domain: a valid layout; NaN otherwise. */
double scale_train_remat_layers(const scale_model *model, const scale_layout *layout);

/** Product dp x fsdp x tp x pp x cp: the chips the layout uses [count]; NaN for NULL. */
double scale_layout_n_chips(const scale_layout *layout);

/** Whether the layout maps any dimension onto a TPU torus (its scale-out is then the DCN; a
 * GPU layout's is the scale-out fabric). */
bool scale_layout_on_torus(const scale_layout *layout);

/** Maps each degree of 'layout' onto the links of 'chip' for a run of 'n_chips', the way the
 * book does: dimensions from innermost to outermost (tp, cp, fsdp, pp, dp; ep next to tp and
 * cp) fill the fast domain first (a TPU slice of up to a pod, scale_chip_pod_chips(); a GPU
 * NVLink domain); a dimension that no longer fits goes over DCN. On a TPU the ICI dimensions
 * of degree > 1 (pp and ep excepted) share the chip's axes: one alone spans all of them
 * (M = 3 on v5p), otherwise the largest takes what the others (one axis each) leave, as the
 * book's M_X = 2, M_Y = 1. Degrees of 1 are put on the fast link with one axis.
 *
 * Domain: chip and layout not NULL; nothing is done otherwise.
 * Book:   ch. 5 "Scaling Across Pods" (FSDP/TP inside the ICI domain, pure DP over DCN) and
 *         "Note on multiple mesh axes"; ch. 12 (TP inside the NVLink node).
 */
void scale_train_layout_map(const scale_chip *chip, double n_chips, scale_layout *layout);

/* ---- the problem ---------------------------------------------------------------------------- */

/** A training run: model, hardware, and the batch. */
typedef struct {
  const scale_model *model;  /**< architecture (caller storage, must outlive the problem) */
  const scale_chip *chip;    /**< one chip (a system file's chip is fine) */
  double n_chips;            /**< chips in the run [count] */
  double batch_tokens;       /**< global batch per step, B [tokens] */
  double seq_len;            /**< sequence length, T [tokens] */
  double efficiency_frac;    /**< achievable fraction of peak matmul FLOP/s (1 = roofline) */
  scale_dtype compute_dtype; /**< dtype of the matmuls (selects the peak rate) */
  bool mfu_counts_attention; /**< MFU numerator adds attention FLOPs to 6 N tokens */
  double train_tokens;       /**< token budget of the whole run (0: no run totals) */
  const scale_step_params *step_params; /**< NULL: the book's roofline (peak x efficiency_frac,
                                   perfect overlap); else the calibrated step model (step.h)
                                   with these parameters, efficiency_frac ignored (an override
                                   of the matmul ceiling goes into the parameters) */
} scale_train_problem;

/** A problem with the given model, chip, chips, batch and sequence length; efficiency 1,
 * bf16 compute, MFU = 6 N tokens, no token budget. */
scale_train_problem scale_train_problem_make(const scale_model *model, const scale_chip *chip,
                                             double n_chips, double batch_tokens, double seq_len);

/** Checks that 'layout' is consistent with 'problem': degrees are integers >= 1 whose product
 * dp fsdp tp pp cp is n_chips; tp divides the query heads and the MLP width (and the KV heads
 * or tp is a multiple of them); pp <= layers (and v pp <= layers when interleaved); m >= 1
 * and m >= pp for a pipeline; ep only on a MoE model, dividing its experts and dp x fsdp;
 * cp divides the sequence (Ulysses: also the query heads per TP shard); dp x fsdp is at most
 * the number of sequences in the batch (split sequences with cp) and m at most the sequences
 * per data shard; ZeRO stage 1-3; known links, and a link the chip has (ICI on a TPU, NVLink
 * on a GPU, a DCN figure).
 *
 * Errors: SCALE_ERR_INVALID with a one-line message in diag->message (file "" and line 0),
 *         naming the first inconsistency ("tp 64 does not divide the 40 query heads").
 *         'diag' may be NULL.
 */
scale_status scale_train_validate(const scale_train_problem *problem, const scale_layout *layout,
                                  scale_diag *diag);

/** Whether scale_train_validate() accepts the problem's own fields (chips, batch, sequence,
 * efficiency, the chip's rate, token budget), whatever the layout. */
bool scale_train_problem_ok(const scale_train_problem *problem);

/** scale_train_validate(problem, layout, NULL) == SCALE_OK for a search that has checked the
 * problem once (scale_train_problem_ok()) and the layout's tp against the model
 * (scale_transformer_tp_check()): the layout's remaining rules only, the planner's hot path.
 * Domain: problem, its model and chip, and layout not NULL. */
bool scale_train_candidate_ok(const scale_train_problem *problem, const scale_layout *layout);

/* ---- the result ----------------------------------------------------------------------------- */

/** The collectives of a step, one entry each in scale_train_result.comm[]. */
typedef enum {
  SCALE_TRAIN_COMM_FSDP_ALL_GATHER = 0, /**< ZeRO-3 weight gathers (fwd and bwd); ZeRO-1/2 the
                                            AllGather of updated weights once per step */
  SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER, /**< gradient ReduceScatter over the fsdp group */
  SCALE_TRAIN_COMM_DP_ALL_REDUCE,       /**< gradient AllReduce over the dp group (of the fsdp
                                            shard when both are used) */
  SCALE_TRAIN_COMM_TP_ALL_GATHER,       /**< activation AllGathers before each block (fwd, bwd) */
  SCALE_TRAIN_COMM_TP_REDUCE_SCATTER,   /**< activation ReduceScatters after each block */
  SCALE_TRAIN_COMM_PP_SEND,             /**< activations and their gradients between stages */
  SCALE_TRAIN_COMM_EP_ALL_TO_ALL,       /**< MoE token dispatch and combine */
  SCALE_TRAIN_COMM_CP_ATTENTION,  /**< ring: KV blocks (and dKV); Ulysses: Q/K/V/O AllToAlls */
  SCALE_TRAIN_COMM_CP_ALL_REDUCE, /**< gradient AllReduce over the cp group */
  SCALE_TRAIN_COMM_COUNT
} scale_train_comm;

/** Name of a collective entry ("fsdp-all-gather", ...); "?" if invalid. Static storage. */
const char *scale_train_comm_name(scale_train_comm comm);

/** One collective of the step, on one chip. 'bytes' are the book's volume: the array size V
 * for an AllGather or ReduceScatter, 2V for an AllReduce, nV/4 for an AllToAll on an ICI ring
 * ((n-1)/n of the chip's share V through a switch or NIC), what one chip sends for a pipeline
 * transfer; so time = bytes / bandwidth. Per-layer figures are for an average layer over the
 * whole step (all microbatches). */
typedef struct {
  scale_train_dim dim;          /**< the dimension it belongs to */
  scale_train_link link;        /**< the link it uses */
  double bandwidth_bytes_per_s; /**< W M (ICI), NVLink egress, DCN egress, or one link one
                                    way for a pipeline send [bytes/s] */
  double fwd_bytes_per_layer;   /**< forward pass, one average layer [bytes] */
  double bwd_bytes_per_layer;   /**< backward pass (and step end), one layer [bytes] */
  double fwd_time_per_layer_s;  /**< fwd_bytes_per_layer / bandwidth [s] */
  double bwd_time_per_layer_s;  /**< bwd_bytes_per_layer / bandwidth [s] */
  double step_bytes;            /**< the whole step on this chip, every layer of its stage and
                                    the embeddings [bytes] */
  double step_time_s;           /**< step_bytes / bandwidth [s] */
} scale_train_comm_cost;

/** What limits the step. */
typedef enum {
  SCALE_TRAIN_BOUND_COMPUTE = 0, /**< matmul time dominates */
  SCALE_TRAIN_BOUND_COMMS,       /**< a link's collectives outlast the compute */
  SCALE_TRAIN_BOUND_MEMORY,      /**< the layout does not fit in HBM (times still computed) */
  SCALE_TRAIN_BOUND_COUNT
} scale_train_bound;

/** Name of a bound ("compute", "comms", "memory"); "?" if invalid. */
const char *scale_train_bound_name(scale_train_bound bound);

/** Everything scale_train_eval() computes. Fixed size; every field set on every call (NaN
 * when the inputs are outside the domain). */
typedef struct {
  /* per chip, per step */
  double tokens_per_chip;      /**< B / (dp fsdp cp): tokens on one chip's data shard */
  double microbatch_tokens;    /**< tokens per chip per microbatch [tokens] */
  double flops_per_chip;       /**< training + remat FLOPs on one chip [FLOP] */
  double fwd_flops_per_layer;  /**< forward FLOPs of one average layer on one chip over the
                                   step [FLOP] */
  double bwd_flops_per_layer;  /**< backward FLOPs of the same (2x forward) [FLOP] */
  double remat_flops_per_chip; /**< recomputation FLOPs on one chip [FLOP] */
  double compute_time_s;       /**< flops_per_chip / (efficiency x peak) [s] */

  scale_train_comm_cost comm[SCALE_TRAIN_COMM_COUNT]; /**< each collective (zero when unused) */
  double link_time_s[SCALE_TRAIN_LINK_COUNT + SCALE_TRAIN_DIM_COUNT]; /**< busy time of each
                                       resource: [0, DIM_COUNT) the ICI axes of each dimension, then
                                       DIM_COUNT + link for NVLink and DCN (shared) [s] */
  double comms_time_s;                                                /**< busiest resource [s] */
  double total_comms_time_s;     /**< every collective added up [s] */
  double exposed_comms_time_s;   /**< max(0, comms_time_s - compute_time_s) [s] */
  double bubble_frac;            /**< pipeline bubble over the ideal time: (p-1)/m ... */
  double bubble_time_s;          /**< time lost to the bubble [s] */
  double step_time_s;            /**< (compute + exposed) x (1 + bubble_frac) [s] */
  double step_time_no_overlap_s; /**< (compute + every collective) x (1 + bubble) [s] */

  /* memory per chip */
  double param_bytes;           /**< weights held [bytes] */
  double grad_bytes;            /**< gradients held [bytes] */
  double optimizer_bytes;       /**< optimizer moments and master weights [bytes] */
  double activation_bytes;      /**< saved activations at the fullest stage's peak: the
                                    in-flight microbatches, embedding or logits buffers, and
                                    one layer's recompute working set (memory.h) [bytes] */
  double gathered_weight_bytes; /**< ZeRO-3 buffers: two layers' gathered weights [bytes] */
  double cp_buffer_bytes;       /**< CP: ring KV blocks in flight / Ulysses head shards */
  double overhead_bytes;        /**< context, communicator buffers and fragmentation, from the
                                    chip's [memory] section (memory.h); 0 without one [bytes] */
  double memory_per_chip_bytes; /**< sum of the above [bytes] */
  double hbm_bytes;             /**< the chip's HBM [bytes] */
  double memory_margin_bytes;   /**< hbm - memory (negative when it does not fit) [bytes] */
  bool fits;                    /**< memory_per_chip_bytes <= hbm_bytes */

  /* the run */
  double model_flops_per_step; /**< 6 N_active B (+ attention if counted) [FLOP] */
  double mfu;                  /**< model FLOPs / (chips x peak x step time) [1] */
  double tokens_per_s;         /**< B / step time [tokens/s] */
  double train_time_s;         /**< train_tokens / tokens_per_s (NaN without a budget) */
  double cost_usd;             /**< chips x hours x price (NaN without budget or price) */

  scale_train_bound bound;       /**< what binds */
  scale_train_comm binding_comm; /**< the slowest collective on the busiest link */
  bool step_model;         /**< the times come from the step model (problem->step_params) */
  scale_step_result step;  /**< the step model's breakdown (ops, communications, overlap);
                                zeroed under the roofline */
  const char *reason; /**< one short static sentence saying why; when a figure is not finite,
                           which one and the input behind it ("not finite: the compute time
                           (the chip's peak FLOP/s is out of range)") */
} scale_train_result;

/** Evaluates 'layout' on 'problem' into *out: per-layer FLOPs and collectives, step time,
 * memory per chip, MFU, throughput, and with a token budget the run's time and cost.
 * Pure and allocation-free; does not validate (call scale_train_validate() first: on an
 * inconsistent layout the numbers are meaningless but never a crash).
 *
 * The one evaluation path of `scale train` and `scale plan` (DESIGN.md "Two models of cost,
 * one evaluation path"): with problem->step_params NULL the times are the book's roofline
 * below; otherwise the calibrated step model prices the layout (scale_step_eval() on the job
 * of the layout, each communication on the network its link and torus axes give; out->step
 * holds the breakdown, comm[] the book volumes are not computed). Memory is the same in both.
 *
 * Units:  see the fields of scale_train_result.
 * Domain: non-NULL arguments, positive sizes and degrees, a chip with a rate for
 *         problem->compute_dtype; otherwise every number is NaN and out->reason is
 *         "invalid input".
 * Book:   ch. 5 per-strategy tables (DP 8DF bwd, FSDP 4DF fwd + 8DF bwd, TP 4BD + 4BD per MLP
 *         block), T = max(T_math, T_comms); ch. 6 MFU and training time; memory ch. 4-6.
 */
void scale_train_eval(const scale_train_problem *problem, const scale_layout *layout,
                      scale_train_result *out);

/** The idealizations a step-model prediction of 'layout' relies on (its pipeline schedule's
 * bubble formula, the stage split, the overlap rules it leans on), one line each, into
 * lines[0 .. max-1] (static storage); returns how many. `scale train` prints them as
 * "assumes: ..." lines beside the prediction. NULL arguments: 0. */
int scale_train_assumptions(const scale_train_problem *problem, const scale_layout *layout,
                            const scale_train_result *result, const char **lines, int max);

/** The step model's job for 'layout' of 'problem' into *job: what scale_train_eval() prices
 * with step parameters (Megatron's data-parallel group dp x fsdp, ZeRO over fsdp, the
 * layout's attention core, the problem's compute dtype). Domain: non-NULL arguments; nothing otherwise. */
void scale_train_step_job(const scale_train_problem *problem, const scale_layout *layout,
                          scale_step_job *job);

#define SCALE_TRAIN_LINK_KEY (6 + 2 * SCALE_TRAIN_DIM_COUNT)

/** What a search computes once for every layout of one problem: the model's counts and FLOPs,
 * and the step model's op times by shape (scale_step_cache). Caller storage (about 18 kB);
 * scale_train_cache_init() binds it to a problem, whose contents must not change while the
 * cache is in use. Fields are internal. */
typedef struct {
  const scale_train_problem *problem; /**< the problem it is bound to */
  double train_flops, fwd_flops, unembed_fwd; /**< the model's FLOPs per step */
  double remat_flops[SCALE_REMAT_COUNT];       /**< per remat policy; NaN until needed */
  double n_params, n_expert, n_embed, n_moe_layers, model_flops;
  scale_step_cache step;
  bool links_valid;                       /**< links[] hold the step job's links for link_key */
  double link_key[SCALE_TRAIN_LINK_KEY];  /**< degrees tp cp fsdp dp pp ep, links, axes */
  scale_step_link links[SCALE_STEP_COMM_COUNT];
} scale_train_cache;

/** Binds 'cache' to 'problem' (computing what does not depend on the layout). */
void scale_train_cache_init(scale_train_cache *cache, const scale_train_problem *problem);

/** scale_train_eval() with a cache bound to 'problem' by scale_train_cache_init(): the same
 * function (scale_train_eval() is this with a fresh cache), so the results are identical;
 * the planner's hot path. */
void scale_train_eval_cached(const scale_train_problem *problem, const scale_layout *layout,
                             scale_train_cache *cache, scale_train_result *out);

/** A floor under scale_train_eval_cached()'s memory_per_chip_bytes for every layout with the
 * degrees (dp, fsdp, tp, pp, cp, ep, etp), ZeRO stage and precision of 'layout', whatever its
 * schedule, microbatches, remat, SP, CP kind, mapping or pipeline split: the weights,
 * gradients and optimizer state of an average stage (one copy), the chip's fixed context and
 * the fragmentation of those states; no activations, buffers or gathered weights. The
 * planner prunes a degree tuple whose floor is over HBM without evaluating its variants.
 *
 * Units:  [bytes].
 * Domain: cache bound to problem (scale_train_cache_init()); NaN if the layout's degrees
 *         are not >= 1.
 */
double scale_train_memory_floor_bytes(const scale_train_problem *problem,
                                      const scale_layout *layout, const scale_train_cache *cache);

/* ---- pieces of the step, exposed for the chapters ------------------------------------------ */

/** Bytes per chip of weights, gradients and optimizer state for 'n_params' parameters under
 * ZeRO 'stage' (0 = plain data parallelism) over 'n_shards' chips: stage 1 shards the
 * optimizer state, 2 also the gradients, 3 also the weights. out (may be NULL) gets
 * out[0] weights, out[1] gradients, out[2] optimizer; returns their sum.
 *
 * Units:  n_params [count] -> [bytes].
 * Domain: stage 0..3, n_shards >= 1, n_params >= 0; NaN (and out[] NaN) otherwise.
 * Book:   ch. 5 "ZeRO-{1,2,3}"; Rajbhandari et al. (ZeRO) Figure 1: 2 + 2 + 12 bytes per
 *         parameter, (2 + 2 + 12/N), (2 + 14/N), 16/N.
 */
double scale_train_zero_bytes_per_chip(const scale_precision *prec, double n_params, int stage,
                                       double n_shards, double out[3]);

/* ---- the book's thresholds (ch. 5) ---------------------------------------------------------- */

/** Per-chip batch below which data parallelism or FSDP over 'n_axes' ICI axes is comms-bound:
 * C / (W_ici M_X), with W_ici the bidirectional link bandwidth (2 x one-way).
 *
 * Units:  flops_per_s [FLOP/s], link_bytes_per_s (one-way, one link) [bytes/s] -> [tokens].
 * Domain: positive rates, n_axes >= 1; NaN otherwise.
 * Book:   ch. 5: v5p 4.59e14 / 1.8e11 = 2550 per chip on one axis, 850 over three.
 */
double scale_train_dp_critical_batch(double flops_per_s, double link_bytes_per_s, double n_axes);

/** Largest tensor-parallel degree that stays compute-bound: Y = M_Y F W_ici / C.
 *
 * Units:  d_ff [count], rates -> [count].
 * Domain: positive arguments; NaN otherwise.
 * Book:   ch. 5 "Tensor Parallelism": Y < M_Y F / 2550 (LLaMA 3 70B: about 11 M_Y; Gemma 7B
 *         with F about 50k: 19; 8-way needs F = 20,400).
 */
double scale_train_tp_max_degree(double d_ff, double flops_per_s, double link_bytes_per_s,
                                 double n_axes_tp);

/** The FSDP degree that minimizes the comms of mixed FSDP x TP on N chips:
 * X_opt = sqrt((B / F)(M_X / M_Y) N).
 *
 * Units:  batch_tokens [tokens], d_ff, n_chips [count] -> [count].
 * Domain: positive arguments; NaN otherwise.
 * Book:   ch. 5 "Combining FSDP and Tensor Parallelism" (N = 64, B = 48,000, F = 32,768:
 *         13.7; the book prints 13.9); ch. 6 LLaMA 3 70B on 8960 chips, 1618; ch. 5 Q3 1333.
 */
double scale_train_fsdp_tp_x_opt(double batch_tokens, double d_ff, double n_chips,
                                 double n_axes_fsdp, double n_axes_tp);

/** Per-chip batch below which even the best FSDP x TP split is comms-bound:
 * B / N > (C / W_ici)^2 / (M_X M_Y F).
 *
 * Units:  d_ff [count], rates -> [tokens].
 * Domain: positive arguments; NaN otherwise.
 * Book:   ch. 5: F = 32,768, M_X M_Y = 2: 99; LLaMA 2 13B (F = 13,824): 235; ch. 6 LLaMA 3
 *         70B (F = 28,672): 113.
 */
double scale_train_fsdp_tp_critical_batch(double d_ff, double flops_per_s, double link_bytes_per_s,
                                          double n_axes_fsdp, double n_axes_tp);

/** The book's forward times of one MLP layer In[B_X, D_Y] . W_in[D_X, F_Y] . W_out[F_Y, D_X]
 * on X x Y chips (FSDP X, TP Y; the gating matmul ignored): the matmuls' 4BDF / (X Y C); FSDP
 * gathers the 4DF / Y bytes of its two weight shards over its M_X axes, 4DF / (Y W_ici M_X); TP
 * gathers and scatters 4BD / X bytes of activations over its M_Y axes, 4BD / (X W_ici M_Y). The
 * two run on different axes at once, so comms_s is the slower of them (0 on a degree of 1).
 *
 * Units:  b [tokens], d, f [count], x, y [chips], m_x, m_y [axes], flops_per_s [FLOP/s],
 *         link_bytes_per_s (one-way, one link; W_ici is twice it) [bytes/s] -> [s].
 * Domain: positive arguments, x, y >= 1; every field NaN otherwise.
 * Book:   ch. 5 "Combining FSDP and Tensor Parallelism" (figure 1's model).
 */
typedef struct {
  double math_s;  /**< the two matmuls at peak */
  double fsdp_s;  /**< FSDP's weight gathers (0 when x = 1) */
  double tp_s;    /**< TP's activation collectives (0 when y = 1) */
  double comms_s; /**< max(fsdp_s, tp_s) */
} scale_train_mlp_times;

scale_train_mlp_times scale_train_book_mlp_times(double b, double d, double f, double x, double y,
                                                 double m_x, double m_y, double flops_per_s,
                                                 double link_bytes_per_s);

/** Batch per ICI slice (pod) below which pure data parallelism across slices over DCN is
 * comms-bound: C / W_dcn (the per-slice batch, whatever the slice's size).
 *
 * Units:  flops_per_s [FLOP/s], dcn_bytes_per_s (per chip) [bytes/s] -> [tokens].
 * Domain: positive rates; NaN otherwise.
 * Book:   ch. 5 "Scaling Across Pods": 4.46e14 / 6.25e9 = 71,360 (with the table's
 *         4.59e14: 73,440).
 */
double scale_train_dcn_critical_batch(double flops_per_s, double dcn_bytes_per_s);

/** A data-parallel threshold for a MoE: 'dense_critical_batch' x E / k (each expert's
 * weights see only k/E of the batch).
 *
 * Units:  [tokens] -> [tokens].
 * Domain: dense_critical_batch >= 0, n_experts >= n_active >= 1; NaN otherwise.
 * Book:   ch. 4 Q8 and ch. 5 (the DP threshold grows by E/k).
 */
double scale_train_moe_critical_batch(double dense_critical_batch, double n_experts,
                                      double n_active);

/** Largest model that pure data parallelism can hold: HBM / (weight + optimizer bytes per
 * parameter) (gradients and activations not counted, as in the book).
 *
 * Units:  hbm_bytes [bytes] -> [count].
 * Domain: hbm_bytes >= 0, a valid precision; NaN otherwise.
 * Book:   ch. 5 "2 + 8 = 10 bytes per parameter": v5p 96e9 / 10 = 9.6e9 ("roughly 9B").
 */
double scale_train_max_pure_dp_params(double hbm_bytes, const scale_precision *prec);

/** Most chips a data-parallel (or FSDP) layout can use before it turns comms-bound:
 * batch_tokens / critical batch per chip.
 *
 * Units:  [tokens] / [tokens] -> [count].
 * Domain: batch_tokens >= 0, critical_batch > 0; NaN otherwise.
 * Book:   ch. 5: DeepSeek-V2's 40M batch / 850 = 47,000 chips; LLaMA 3 70B 16M / 850 = 18,823.
 */
double scale_train_max_dp_chips(double batch_tokens, double critical_batch);

/** Wall time of a run of 'total_flops' on 'n_chips' of 'flops_per_s' at 'mfu':
 * FLOPs / (chips x C x MFU).
 *
 * Units:  [FLOP], [count], [FLOP/s], [1] -> [s].
 * Domain: total_flops >= 0, n_chips, flops_per_s, mfu > 0; NaN otherwise.
 * Book:   ch. 5 17 days; ch. 6 435 years (one chip), 44 days (a pod at 40%); ch. 5 Q3 300 ms.
 */
double scale_train_time_s(double total_flops, double n_chips, double flops_per_s, double mfu);

/** Fewest chips whose HBM holds 'total_bytes': ceil(total / hbm).
 *
 * Units:  [bytes] -> [count].
 * Domain: total_bytes >= 0, hbm_bytes > 0; NaN otherwise.
 * Book:   ch. 6: 21.6 TB / 96 GB = 225 (exactly 2.1672e13 / 9.6e10 = 225.7, so 226 chips).
 */
double scale_train_min_chips_for_memory(double total_bytes, double hbm_bytes);

/* ---- layouts the chapters build ------------------------------------------------------------- */

/** The largest FSDP degree that, with context parallelism over the rest, shards 'n_chips' over
 * the batch and the sequence: the largest f <= min(n_chips, n_seqs) dividing n_chips whose CP
 * degree n_chips / f divides 'seq_tokens'; 1 when none above 1 does.
 *
 * Units:  [count], [count], [tokens] -> [count].
 * Domain: n_chips, n_seqs, seq_tokens positive integers; NaN otherwise.
 * Book:   ch. 6 "pure FSDP on a pod": 8960 v5p chips (2^8 x 35) with 1024 sequences of 4096
 *         tokens: the CP degree must be a power of two, so FSDP 35 x 16 = 560 x CP 16.
 */
double scale_train_fsdp_cp_degree(double n_chips, double n_seqs, double seq_tokens);

/** Per-layer collective totals of a result: the bytes of every collective the layout uses
 * (forward and backward, one average layer) into *bytes and their time into *time_s.
 *
 * Units:  -> [bytes], [s].  A collective the layout does not use (no step bytes) adds nothing.
 * Book:   ch. 5 "each strategy on one slice" (bytes moved per layer and their time).
 */
void scale_train_layer_comm_totals(const scale_train_result *r, double *bytes, double *time_s);

/** The ch. 5 scaling layout of FSDP x TP 'tp' on problem->n_chips: pure DP over DCN between
 * slices of 'slice_chips' (when there are more chips than one slice), FSDP inside up to one
 * sequence per data shard, context parallelism for the rest; mapped onto the chip's links
 * (scale_train_layout_map). Returns whether the layout is valid for the problem (false when
 * TP exceeds a slice or validation fails; *layout is filled either way).
 *
 * Book:   ch. 5 "step time against chips" (figure 2).
 */
bool scale_train_scaling_layout(const scale_train_problem *problem, double tp,
                                double slice_chips, scale_layout *layout);

/* ---- the scaling study of ch. 5 -------------------------------------------------------------- */

/** Sweeps the ch. 5 scaling layout of FSDP x TP 'tp' over n_chips[0..n): for each count,
 * step_s[i] is the step time of scale_train_scaling_layout() on 'model' and 'chip' with
 * 'batch' tokens of 'seq' where that layout is valid and fits (NaN otherwise), and
 * compute_s[i] its compute-only time where the layout is valid (left as it is otherwise, so
 * one array can gather the floor of several sweeps).
 *
 * Units:  batch, seq [tokens], slice_chips [chips] -> step_s, compute_s [s].
 * Book:   ch. 5 "step time against chips" (figure 2).
 */
void scale_train_scaling_sweep(const scale_model *model, const scale_chip *chip, double batch,
                               double seq, double tp, double slice_chips, const double *n_chips,
                               int n, double *step_s, double *compute_s);

/* ---- the book's MLP model against the batch (ch. 5 figure 1) -------------------------------- */

/** One split of figure 1 of ch. 5 on an n_chips slice of n_axes ICI axes: TP y over one axis
 * (M_Y = 1) and FSDP x = n_chips / y over the others (M_X = n_axes - 1 when y > 1, n_axes
 * when y = 1). Fills math_s[i] and comms_s[i] (either may be NULL) with
 * scale_train_book_mlp_times() at batch b[i], i < n, and returns the batch above which the
 * split is compute-bound, x scale_train_dp_critical_batch(C, link, M_X) (FSDP's crossover); NaN
 * when TP alone stays comms-bound whatever the batch, y >= scale_train_tp_max_degree(f, C,
 * link, M_Y).
 *
 * Units:  d, f [count], n_chips, y [chips], n_axes [axes], flops_per_s [FLOP/s],
 *         link_bytes_per_s (one way, one link) [bytes/s], b [tokens] -> [tokens]; math_s,
 *         comms_s [s].
 * Domain: positive arguments, 1 <= y <= n_chips, n_axes > 1 when y > 1; NaN otherwise.
 * Book:   ch. 5 figure 1 (D 8192, F 32768, 4096 v5p): pure FSDP over 3 axes is compute-bound
 *         above 4096 x 2550 / 3 = 3.48e6 tokens; TP 16 never is (F / 2550 = 12.9 < 16).
 */
double scale_train_book_mlp_split(double d, double f, double n_chips, double y, double n_axes,
                                  double flops_per_s, double link_bytes_per_s, const double *b,
                                  int n, double *math_s, double *comms_s);

/* ---- ch. 5's tables ------------------------------------------------------------------------- */

/* A table's rows are units.h's scale_quantity, in the order the chapter reads them; the
 * functions below return how many they wrote. */

/** Most rows a ch. 5 table holds. */
#define SCALE_TRAIN_TABLE_MAX 32

/** The chip as ch. 5 reads it, 8 rows: flops (C, bf16), link (one ICI link, one way), w_ici
 * (twice it), alpha (C / W_ici, scale_train_dp_critical_batch() on one axis), dcn (egress per
 * chip), hbm, axes (ICI axes), pod (chips in a pod).
 *
 * Units:  [FLOP/s], [bytes/s], [1], [bytes], [count].
 * Domain: any chip; a quantity it lacks is NaN.
 * Book:   ch. 5: v5p C = 4.59e14, W_ici = 2 x 9e10 = 1.8e11, alpha = 2550.
 */
int scale_train_chip_table(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** Data parallelism's thresholds and the book's examples on 'chip', 9 rows: crit1 and crit3
 * (scale_train_dp_critical_batch() over one axis and over all the chip's axes), pod_batch
 * (crit3 x chips in a pod), deepseek_chips (DeepSeek-V2's 40M-token batch over crit3),
 * l70_chips (16M over crit3), l70_flops (6 x 70e9 x 15e12), l70_days (those FLOPs on l70_chips
 * at 50% MFU), bytes_per_param (bf16 weights + Adam state), max_params
 * (scale_train_max_pure_dp_params()).
 *
 * Units:  [tokens], [count], [FLOP], [days], [bytes].
 * Domain: any chip; NaN rows where its rates are missing.
 * Book:   ch. 5 "Data Parallelism": v5p 2550 and 850 per chip, 47,000 chips, 18,823 chips,
 *         about 17 days, 10 bytes per parameter, roughly 9B.
 */
int scale_train_dp_thresholds(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** Tensor parallelism's limits on one axis of 'chip' (scale_train_tp_max_degree()), 5 rows:
 * l70_f (F of 'llama'), l70_max (its largest compute-bound degree), gemma_f2 (2F of 'gemma':
 * the book's "F about 50k" counts its gate and up projections together), gemma_max, f_for_8
 * (the F that 8-way TP needs, 8 alpha).
 *
 * Units:  [count].
 * Domain: any chip and dense models; NaN rows where a rate is missing.
 * Book:   ch. 5 "Tensor Parallelism": LLaMA 3 70B about 11, Gemma 7B 19, F = 20,400.
 */
int scale_train_tp_thresholds(const scale_chip *chip, const scale_model *llama,
                              const scale_model *gemma, scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** Mixed FSDP x TP on 'chip' (FSDP over 2 axes, TP over 1), 7 rows: x_opt and y_opt
 * (scale_train_fsdp_tp_x_opt() of the book's N = 64, B = 48,000, F = 32,768, and N / X), crit
 * and crit30k (scale_train_fsdp_tp_critical_batch() at F = 32,768 and 30,000), fsdp_chips_2m
 * and mixed_chips_2m (most chips a 2M-token batch keeps compute-bound with pure FSDP over all
 * axes and with FSDP x TP at F = 30,000), two_pods (2M over two pods' chips, per chip).
 *
 * Units:  [count], [tokens].
 * Domain: any chip; NaN rows where a rate is missing.
 * Book:   ch. 5 "Combining FSDP and Tensor Parallelism": X_opt 13.7 (printed 13.9), B / N
 *         above 99; a 2M-token batch keeps 2353 chips busy with pure FSDP, 18,454 with the
 *         mix (hand: 2e6 / 850, 2e6 / (2550^2 / 60,000)).
 */
int scale_train_mixed_thresholds(const scale_chip *chip,
                                 scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** Data parallelism across pods over the chip's DCN (scale_train_dcn_critical_batch()), 2
 * rows: crit_book (with the book's C = 4.46e14), crit (with the chip's bf16 C).
 *
 * Units:  [tokens] per pod.
 * Domain: any chip; NaN rows where a rate is missing.
 * Book:   ch. 5 "Scaling Across Pods": 71,360 (73,440 with the table's C).
 */
int scale_train_dcn_thresholds(const scale_chip *chip, scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** Data parallelism of the MoE 'moe' on 'chip', 3 rows: e and k (its experts and the experts a
 * token uses), crit3 (scale_train_moe_critical_batch() of the three-axis crit3 of
 * scale_train_dp_thresholds()).
 *
 * Units:  [count], [tokens].
 * Domain: any chip and model; crit3 NaN for a dense model (k = 0).
 * Book:   ch. 5 and ch. 4 Q8: the DP threshold grows by E / k (DeepSeek-V3: 850 x 32).
 */
int scale_train_moe_thresholds(const scale_chip *chip, const scale_model *moe,
                               scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** The book's pipeline numbers for p = 16 stages, 26 rows: the bubble (%) of every schedule
 * but GPipe (1F1B's bubble) at m = 16, 32 and 64 microbatches, keyed TAG.mM with TAG 1f1b,
 * inter (v = 2), zb, zb2, zbv, dual (scale_pipeline_bubble_frac()); the microbatches in flight
 * at m = 64 of GPipe, 1F1B, interleaved (v = 2), ZB-H2 and DualPipe (inflight.TAG); DualPipe's
 * parameter copies (copies.dual); ZB-H2's bubble at m = 32 with F:B:W = 1:2:1 (zb2.split) and
 * ZB-H1's at m = 4 < p (zb.m4).
 *
 * Units:  [%], [count].
 * Book:   ch. 5 pipelining: a bubble of (p - 1) / m, 93.75% at p = m = 16; GPipe holds all m
 *         microbatches, 1F1B at most p.
 */
int scale_train_pipeline_table(scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

/** One strategy of ch. 5's table "each strategy on one slice". */
typedef struct {
  const char *key;     /**< short name of the row ("fsdp", "tp8sp") */
  const char *label;   /**< what it is ("FSDP x TP 8 with SP") */
  bool moe;            /**< priced on the table's MoE model instead of its dense one */
  scale_layout layout; /**< its degrees, as many microbatches as stages; not yet mapped
                            onto links (scale_train_layout_map()) */
} scale_train_strategy;

/** How many strategies scale_train_book_strategies() writes. */
#define SCALE_TRAIN_STRATEGIES 11

/** Ch. 5's strategies on 'n_chips' chips, in its order: pure DP, ZeRO-1, FSDP (ZeRO-3), FSDP x
 * TP 8, the same with SP, FSDP x TP 32 with SP, FSDP x PP 8 with 1F1B and with ZB-H2, FSDP x
 * CP 4 ring and Ulysses, and the MoE's FSDP x EP 8 (EP inside FSDP); every FSDP at ZeRO-3.
 * DP or FSDP takes n_chips over the other degrees (a layout that does not fill the chips then
 * fails validation). Returns SCALE_TRAIN_STRATEGIES.
 *
 * Book:   ch. 5's strategies, each on one slice (the chapter's table).
 */
int scale_train_book_strategies(double n_chips, scale_train_strategy out[SCALE_TRAIN_STRATEGIES]);

/** A strategy's row of ch. 5's table from its result 'r' on 'problem', 8 rows: flops (forward
 * and backward of one layer, one chip), t_math (their time at the chip's bf16 peak), bytes and
 * t_comms (scale_train_layer_comm_totals()), ratio (the busiest link's time over compute, whole
 * step), bubble (%), step (step time), mem (memory per chip).
 *
 * Units:  [FLOP], [s], [bytes], [1], [%].
 * Book:   ch. 5 per-strategy tables.
 */
int scale_train_result_table(const scale_train_problem *problem, const scale_train_result *r,
                             scale_quantity out[SCALE_TRAIN_TABLE_MAX]);

#endif
