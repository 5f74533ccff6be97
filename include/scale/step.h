/* step.h — the calibrated step model: one training step built from named operations.
 *
 * The book's roofline (training.h) prices a step at peak FLOP/s with perfect overlap. This
 * module prices what real frameworks run (DESIGN.md "Two models of cost, one evaluation path"):
 *
 *   ops      per microbatch and layer, the forward and backward operations by name (QKV and
 *            output projections, MLA's low-rank ones, attention scores and values, MLP
 *            matmuls, norms, activation, softmax, rotary, residual adds, fp8 casts; for a MoE
 *            layer the routed experts as grouped GEMMs by expert width and tokens per expert,
 *            shared experts as a dense MLP, the router, token permutation), the embedding,
 *            unembedding and loss of the stage's ends, and the optimizer step;
 *   costs    each op at max(F / (C eta_mm(shape)), bytes / (W_hbm eta_mem)) + a per-kernel
 *            overhead, with eta_mm falling for tile/wave quantization (GPU: 128 x 128 output
 *            tiles over the SMs; TPU: 128-alignment of the MXU) and for small dimensions;
 *            on a TPU the memory-bound elementwise ops cost nothing of their own (XLA fuses
 *            them into the neighbouring matmuls, where the VPU runs beside the MXU);
 *            each collective at (ring steps x latency) + bytes / (W eta_bw(size)) on the
 *            network it crosses (switched NVLink, switchless HCCS mesh, scale-out fabric,
 *            TPU ICI), each with parameters of its own;
 *   overlap  named rules (scale_step_rule): TP's forward all-reduces on the critical path,
 *            its backward ones under the column-parallel linears' weight-gradient GEMMs
 *            (Megatron's async all-reduce), all hidden under the layer's matmuls with
 *            tp_overlap or on a TPU (XLA's async collectives always overlap it); ZeRO-3
 *            gathers prefetched under the previous layer; DP/ZeRO-1/2 gradient buckets under
 *            the last microbatch's backward except the last bucket; PP sends per microbatch per
 *            virtual stage, each TP rank sending its 1/tp (Megatron's scatter/gather), plus
 *            the bubble; EP dispatch/combine as direct sends (NVLink within the domain, each
 *            rank's NIC beyond), ep_exposed_frac of them on the critical path; the CP ring
 *            hidden only as far as the attention compute lasts;
 *   step     m microbatches x the slowest stage's microbatch time x (1 + bubble) + exposed
 *            gradient traffic + optimizer + a fixed per-step overhead.
 *
 * Every efficiency is a parameter with a physical meaning and a plausible range
 * (scale_step_param_info); the values are data: the [step] section of each hardware file, with
 * the fit's provenance in [step_fit], written by `scale calibrate` from measurements/.
 * Evaluation allocates nothing.
 */
#ifndef SCALE_STEP_H
#define SCALE_STEP_H

#include <stdbool.h>

#include "scale/collectives.h"
#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/pipeline.h"
#include "scale/status.h"
#include "scale/transformer.h"
#include "scale/units.h"

/* ---- parameters (their table, SCALE_STEP_PARAM_LIST, is in params.h) ------------------- */

/** A full set of parameter values, indexed by scale_step_param. */
typedef struct {
  double v[SCALE_STEP_N_PARAMS];
} scale_step_params;

/** Every parameter at its prior. */
scale_step_params scale_step_params_prior(void);

/** The parameters a hardware file carries in its [step] section (scale_chip.step, loaded
 * strictly by scale_chip_load()) into *out.
 * Errors: SCALE_ERR_MISSING_KEY when the chip's file has no [step] section (*out untouched).
 */
scale_status scale_step_params_of_chip(const scale_chip *chip, scale_step_params *out);

/** Reads the [step] section of an INI file (a hardware file, or the sections `scale
 * calibrate --out -` prints): every key of scale_step_param_describe() inside its range.
 * The file is read by the hardware files' one strict reader (scale_chip_read_sections()):
 * unknown, duplicate, malformed or out-of-range keys in any section are errors with the
 * line, a [step] key missing is an error (line 0); [step_fit] and the chip's sections are
 * read and ignored.
 * Errors: SCALE_ERR_IO, SCALE_ERR_PARSE, SCALE_ERR_UNKNOWN_KEY, SCALE_ERR_DUPLICATE_KEY,
 *         SCALE_ERR_MISSING_KEY, SCALE_ERR_RANGE.
 */
scale_status scale_step_params_load_file(const char *path, scale_step_params *out,
                                         scale_diag *diag);

/** Path of a file holding the shipped fit: scale_data_dir()/hardware/nvidia-h100-sxm.ini
 * (`scale calibrate` writes the one fit into every chip file). Static storage. Prefer
 * scale_step_params_of_chip() for the chip at hand. */
const char *scale_step_params_path(void);

/* ---- communications and networks ---------------------------------------------------- */

/** The communication of a step, one per parallel dimension. */
typedef enum {
  SCALE_STEP_COMM_TP = 0, /**< TP all-reduces (or all-gather + reduce-scatter with SP) */
  SCALE_STEP_COMM_CP,     /**< CP ring passes of K and V */
  SCALE_STEP_COMM_FSDP,   /**< ZeRO-3 weight gathers and gradient reduce-scatters */
  SCALE_STEP_COMM_EP,     /**< MoE dispatch and combine all-to-alls */
  SCALE_STEP_COMM_PP,     /**< pipeline activation and gradient sends */
  SCALE_STEP_COMM_DP,     /**< gradient all-reduce (ZeRO-1/2: reduce-scatter + all-gather) */
  SCALE_STEP_COMM_COUNT
} scale_step_comm;

/** Name of a communication ("tp", "cp", ...); "?" if invalid. */
const char *scale_step_comm_name(scale_step_comm comm);

/** The overlap rule applied to each communication, by name (printed beside it). */
const char *scale_step_comm_rule(scale_step_comm comm, bool tp_overlap);

/** The networks a collective can cross. */
typedef enum {
  SCALE_STEP_NET_UP = 0, /**< switched GPU scale-up domain: NVLink through NVSwitch */
  SCALE_STEP_NET_MESH,   /**< switchless scale-up domain: direct links (Ascend HCCS) */
  SCALE_STEP_NET_OUT,    /**< scale-out fabric: InfiniBand/RoCE NIC per chip */
  SCALE_STEP_NET_ICI,    /**< TPU inter-chip interconnect */
  SCALE_STEP_NET_COUNT
} scale_step_net;

/** Name of a network ("scale-up", "mesh", "scale-out", "ici"). */
const char *scale_step_net_name(scale_step_net net);

/** Where one communication runs when the caller maps the layout itself (scale_train_eval()
 * does, from the layout's links and torus axes). */
typedef struct {
  scale_step_net net;  /**< network whose parameters price it */
  double bytes_per_s;  /**< ring bandwidth per member; for PP the one link a send uses [bytes/s] */
  double n_axes;       /**< ICI: torus axes the group's rings run along (its latency is their
                            sum: scale_step_torus_axes()); 0 or 1 elsewhere: one ring */
} scale_step_link;

/* ---- the job -------------------------------------------------------------------------------- */

/** A training job: the model, the chip, the layout and the batch. Degrees are counts >= 1. */
typedef struct {
  const scale_model *model;  /**< architecture (caller storage) */
  const scale_chip *chip;    /**< one chip of the run (caller storage) */
  double dp, tp, pp, cp, ep; /**< parallel degrees; chips = dp tp pp cp; ep (MoE) divides
                                  dp tp cp / etp: the expert grid is folded over the stage's
                                  tp x cp x dp ranks (Megatron-Core's parallel folding) */
  double etp;                /**< expert tensor parallelism (MoE), dividing tp; 0 reads as 1:
                                  experts whole, each rank's t / tp tokens routed (what
                                  Megatron-Bridge's MoE recipes set). etp = tp: experts
                                  sliced like the dense MLP over the TP group's t tokens */
  bool mtp;                  /**< train the model's MTP module (n_mtp_layers > 0, DeepSeek-V3's
                                  recipe): its layers, projection and head on the last stage.
                                  Off by default: a measured row that does not state it is
                                  priced without it */
  double capacity_factor;    /**< MoE: 0 dropless (balanced load); c > 0 pads (c > 1) or
                                  truncates (c < 1) every expert's tokens to c x the balanced
                                  share: GEMMs, permutation and all-to-alls scale with c */
  int zero;                  /**< ZeRO stage of the data-parallel group, 0-3 */
  double mbs;                /**< micro-batch size [sequences] */
  double vp;                 /**< virtual pipeline stages per rank (1: plain 1F1B) */
  scale_recompute recompute; /**< activation recomputation (UNKNOWN prices as NONE) */
  double recompute_frac;     /**< with FULL, the share of the layers recomputed, the others
                                  keeping everything (Megatron's --recompute-num-layers); 0
                                  (a job that never set it) or >= 1: all of them */
  bool sp;                   /**< sequence parallelism: norms and residuals on t / tp tokens */
  scale_attention attention; /**< fused or unfused attention core */
  bool tp_overlap;           /**< comm-GEMM overlap of the TP collectives */
  double gbs;                /**< global batch [sequences] */
  double seq;                /**< sequence length [tokens] */
  scale_dtype dtype;         /**< matmul dtype of the linear layers (fp8: attention in bf16) */
  double fsdp;      /**< ZeRO group inside dp (hybrid sharding: the rest of dp replicates);
                         0: ZeRO over all of dp x cp, Megatron's distributed optimizer */
  scale_pp_schedule schedule; /**< pipeline schedule (1F1B with vp > 1 reads as interleaved);
                                  its bubble from the stage's F, B, W split (pipeline.h) */
  bool embed_loss_stages;     /**< the embedding and the loss each count as a layer in the
                                   pipeline split, as Megatron's account-for-embedding/loss
                                   options do: L + 2 units over pp stages */
  bool ulysses;     /**< CP by DeepSpeed-Ulysses all-to-alls instead of the ring */
  bool cp_allgather; /**< CP by an all-gather of K and V (Llama 3) instead of the ring */
  bool mapped;      /**< link[] given by the caller; otherwise each group's network follows
                         from Megatron's rank order (tp innermost, then cp, dp, pp) */
  scale_step_link link[SCALE_STEP_COMM_COUNT]; /**< where each communication runs (mapped) */
} scale_step_job;

/* ---- operations, collectives, rules --------------------------------------------------------- */

/** The named operations of a step. */
typedef enum {
  SCALE_STEP_OP_QKV = 0,     /**< Q, K, V projections */
  SCALE_STEP_OP_SCORES,      /**< Q K^T (causal blocks skipped by flash attention) */
  SCALE_STEP_OP_SOFTMAX,     /**< softmax and dropout of unfused attention */
  SCALE_STEP_OP_VALUES,      /**< P V */
  SCALE_STEP_OP_OUT_PROJ,    /**< attention output projection */
  SCALE_STEP_OP_MLP_UP,      /**< MLP input matmul(s) (both branches when gated) */
  SCALE_STEP_OP_MLP_DOWN,    /**< MLP output matmul */
  SCALE_STEP_OP_NORMS,       /**< the two pre-norms */
  SCALE_STEP_OP_ACTIVATION,  /**< GELU, or SwiGLU's gate product */
  SCALE_STEP_OP_ROTARY,      /**< rotary embedding of Q and K (gated-MLP families) */
  SCALE_STEP_OP_RESIDUAL,    /**< the two residual adds (with bias-dropout when fused) */
  SCALE_STEP_OP_ROUTER,      /**< MoE router: logits GEMM, softmax/top-k, load-balancing loss */
  SCALE_STEP_OP_PERMUTE,     /**< MoE token permutation to the experts and un-permutation */
  SCALE_STEP_OP_FP8_CAST,    /**< quantizing the linear layers' inputs (fp8 only) */
  SCALE_STEP_OP_EMBEDDING,   /**< token embedding gather and its gradient */
  SCALE_STEP_OP_UNEMBEDDING, /**< output projection to the vocabulary */
  SCALE_STEP_OP_LOSS,        /**< softmax cross-entropy over the vocabulary */
  SCALE_STEP_OP_OPTIMIZER,   /**< Adam update of the chip's (shard of the) parameters */
  SCALE_STEP_OP_COUNT
} scale_step_op;

/** Name of an op ("qkv", "scores", ...); "?" if invalid. Static storage. */
const char *scale_step_op_name(scale_step_op op);

/** Efficiency of a (batch x) m x k by k x n matmul on 'chip': eta_max x q x prod over m, n, k
 * of d / (d + d_half), with q the useful fraction of the work tiles issued: on a GPU
 * batch m n / (waves x SMs x 128 x 128), waves = ceil(batch ceil(m/128) ceil(n/128) / SMs);
 * on a TPU the 128-alignment of m, n and k; 1 where the chip has no core count.
 *
 * Units:  -> [1].  Domain: m, n, k, batch > 0; NaN otherwise.
 */
double scale_step_matmul_eta(const scale_chip *chip, const scale_step_params *params, double m,
                             double n, double k, double batch);

/** The step model's time of one GEMM launched alone (measurements/kernels/): 'batch' m x k by
 * k x n products in 'dtype', 'bytes' through HBM: max(2 m n k batch / (peak x eta), bytes /
 * (HBM x mem_eta)) + kernel_s, peak the chip's in 'dtype' (x lowp_eta for fp8 and fp4) and
 * eta scale_step_matmul_eta(): what each GEMM of a step costs.
 *
 * Units:  bytes [bytes] -> [s].  Domain: a chip with the format's peak and HBM bandwidth,
 *         m, n, k, batch, bytes > 0; NaN otherwise.
 */
double scale_step_kernel_gemm_s(const scale_chip *chip, const scale_step_params *params,
                                scale_dtype dtype, double m, double n, double k, double batch,
                                double bytes);

/** Network, and ring bandwidth per member into *bytes_per_s, of a group of 'n' chips placed
 * 'stride' apart (ranks of the inner dimensions between members): inside one scale-up domain
 * its NVLink egress (or, without switches, its share of a full mesh's direct links); across
 * domains the NICs of the members a domain holds, capped by NVLink; on a TPU one ICI axis in
 * both directions. */
scale_step_net scale_step_group_net(const scale_chip *chip, double stride, double n,
                                    double *bytes_per_s);

/** Time of collective 'op' on a one-way ring of 'n' members holding an array of 'bytes', on
 * a network with 'bytes_per_s' per member: steps x latency + link bytes / (W eta_bw(size)),
 * with steps n - 1 (all-gather, reduce-scatter, all-to-all) or 2(n - 1) (all-reduce), link
 * bytes from scale_collective_ring_link_bytes(), and eta_bw(size) = bw_eta size / (size +
 * half_bytes) for the size of one ring message, bytes / n. On ICI the ring is one torus axis
 * run both ways: scale_step_torus_collective_s() with one axis.
 *
 * Units:  bytes [bytes], bytes_per_s [bytes/s] -> [s].  0 when n <= 1.
 */
double scale_step_collective_s(const scale_step_params *params, scale_step_net net,
                               double bytes_per_s, scale_collective op, double n, double bytes);

/** scale_step_collective_s() for a group that spans 'n_axes' torus axes (ICI): it runs as one
 * bidirectional ring per axis at once, each of n_i = n^(1/n_axes) members (the group as a
 * cube), so its latency is the sum over the axes of the n_i / 2 hops a bidirectional ring
 * takes (the book's T_hop sum(N_i) / 2), twice for an all-reduce; its bandwidth term is the
 * same link bytes over 'bytes_per_s', which the caller gives as the sum over the axes (2 W
 * per axis). Other networks: n_axes is ignored (one ring, n - 1 steps).
 *
 * Units:  bytes [bytes], bytes_per_s [bytes/s] -> [s].  0 when n <= 1; n_axes < 1 reads as 1.
 * Book:   ch. 3, multi-axis AllGather and the latency note: T_hop x sum(N_i) / 2.
 */
double scale_step_torus_collective_s(const scale_step_params *params, scale_step_net net,
                                     double bytes_per_s, scale_collective op, double n,
                                     double n_axes, double bytes);

/** Torus axes a group of 'n' chips spans on 'chip' (a TPU): the fewest of the pod's longest
 * axes whose product holds n, at least 'share' (the axes a layout gives the group's
 * bandwidth, training.h n_axes), at most the torus's axes and at most log2(n) (two chips an
 * axis at least). 1 for a GPU, for n <= 2, or when the pod shape is unknown and share < 1.
 *
 * Units:  -> [count].  Domain: n >= 1; NaN otherwise.
 * Book:   ch. 2: a v5p pod is 16 x 20 x 28, so 1024 chips need all three axes.
 */
double scale_step_torus_axes(const scale_chip *chip, double n, double share);

/** Time of one point-to-point send of 'bytes': latency + bytes / (W eta_bw(bytes)) [s]. */
double scale_step_send_s(const scale_step_params *params, scale_step_net net, double bytes_per_s,
                         double bytes);

/* ---- the step ------------------------------------------------------------------------------- */

/** The step, and where its time goes (per optimizer step, on the slowest pipeline stage). */
typedef struct {
  double microbatches;                         /**< m = gbs / (dp mbs) per pipeline */
  double layers_per_stage;                     /**< L / pp */
  double op_s[SCALE_STEP_OP_COUNT];            /**< busy time of each op over the step [s] */
  double comm_s[SCALE_STEP_COMM_COUNT];        /**< time each communication takes [s] */
  double exposed_s[SCALE_STEP_COMM_COUNT];     /**< the part its rule leaves exposed [s] */
  scale_step_net net[SCALE_STEP_COMM_COUNT];   /**< network each communication crosses */
  double compute_s;      /**< sum of op_s except the optimizer [s] */
  double bubble_frac;    /**< pipeline bubble over the bubble-free time */
  double bubble_s;       /**< time lost to the bubble [s] */
  double optimizer_s;    /**< op_s[OPTIMIZER] */
  double overhead_s;     /**< the fixed per-step cost [s] */
  double host_s;         /**< the host's floor under the step (scale_step_cp_host_s) [s] */
  double stage_s;        /**< Mamba-2 stage latency on the mesh (scale_step_ssm_stages) [s] */
  double step_s;         /**< the device's time, or host_s if longer, plus stage_s [s] */
  double model_flops;    /**< 6 N tokens + attention (causal) of the whole step [FLOP] */
  double mfu;            /**< model_flops / (step_s x chips x peak of the job's dtype) */
} scale_step_result;

/** Evaluates 'job' with 'params' into *out (caller storage; nothing allocated): the ops above
 * for a transformer, scale_step_mamba2_result() for a Mamba-2 model (the one place the step
 * model dispatches on the architecture; every caller prices either through this).
 *
 * Domain: a transformer model, degrees >= 1 with tp dividing the heads, pp dividing the
 *         layers, gbs a multiple of dp mbs (a Mamba-2 model: scale_step_mamba2_eval()'s);
 *         otherwise every field of *out is NaN.
 */
void scale_step_eval(const scale_step_job *job, const scale_step_params *params,
                     scale_step_result *out);

/** Layer-microbatches the slowest pipeline stage runs in one step: ceil(L / pp) (m + pp - 1),
 * m = gbs / (dp mbs) microbatches, the 1F1B fill and drain included.
 * Units: -> [count].  Domain: n_layers, dp, pp, cp, mbs >= 1, gbs > 0; NaN otherwise. */
double scale_step_cp_layer_microbatches(const scale_step_job *job);

/** The host's floor under a context-parallel step whose CP group crosses 'cp_net':
 * n (mesh_cp_host_s + tp_layer_s), n = scale_step_cp_layer_microbatches(), when cp > 1, the
 * group is on the switchless mesh and mesh_cp_host_s > 0; 0 otherwise. Why: the hybrid
 * paper's framework on the Ascend 910B (HCCL point-to-point over HCCS) blocks the host at
 * each CP exchange, so the device queue drains and each layer-microbatch takes at least the
 * host's time to issue its forward and backward operators (10-12 ms in every pure-CP row of
 * the paper's Tables 10-14, whatever the CP degree or width); and the layer's TP collectives
 * ('tp_layer_s', one layer-microbatch's) then start on an empty queue, so their time adds
 * to the host's rather than hiding under its next launches. A parameter of the mesh's
 * software stack like the mesh's latency: 0 (asynchronous launch, no floor) where no row
 * fits it.
 *
 * Units:  tp_layer_s [s] -> [s].  Domain: as above, tp_layer_s >= 0; NaN otherwise.
 */
double scale_step_cp_host_s(const scale_step_job *job, scale_step_net cp_net, double tp_layer_s,
                            const scale_step_params *params);

/** The communication with the largest exposed time in 'r' (the first on a tie), or -1 when
 * none is exposed (or 'r' is NULL). */
int scale_step_worst_exposed(const scale_step_result *r);

/* ---- Mamba-2 layers: the same step for an SSM (scale_step_eval() dispatches here) ---------- */

/** A Mamba-2 training step priced with the step model's parameters (the transformer's
 * ops above do not apply to an SSM layer; this composes the same pieces for one). Times per optimizer
 * step on the slowest pipeline stage [s]. */
typedef struct {
  double microbatches;   /**< m = gbs / (dp mbs) */
  double gemm_s;         /**< in- and out-projections, unembedding (forward + backward) */
  double ssd_s;          /**< the SSD scan's small batched matmuls (chunk size l) */
  double vector_s;       /**< memory-bound ops: norms, residuals, conv, gating, chunk states,
                              loss, plus the fixed cost of every kernel */
  double tp_s;           /**< TP AllReduces (on the critical path) */
  double cp_s;           /**< CP state AllGathers and conv halos (on the critical path) */
  double pp_s;           /**< pipeline sends */
  double bubble_s;       /**< pipeline bubble, (p - 1)/m of the microbatch time */
  double fsdp_s;         /**< ZeRO-3: each layer's weight gathers and gradient scatters */
  double fsdp_exposed_s; /**< the part of fsdp_s the layer's compute does not hide */
  double dp_s;           /**< the gradient traffic (buckets, and the ZeRO gather) in all */
  double dp_exposed_s;   /**< the part of the gradient traffic the last backward leaves bare */
  double optimizer_s;    /**< Adam over the chip's (shard of the) parameters */
  double unembed_s;      /**< the last stage's unembedding (part of gemm_s) */
  double loss_s;         /**< the last stage's softmax cross-entropy (part of vector_s) */
  double recompute_s;    /**< full recomputation: each layer's forward, collectives included,
                              run again (in none of the fields above) */
  double step_s;         /**< the step */
  double mfu;            /**< training FLOPs of the step (transformer.h, causal) over
                              step_s x chips x peak */
} scale_step_mamba2;

/** Prices one training step of a Mamba-2 'job' (its model must be Mamba-2) with the step
 * model's 'params': per microbatch and layer, on T = mbs s / cp tokens and a tp share,
 *   GEMMs      in-projection T x d_in_proj/tp x d and out-projection T x d x d_inner/tp, forward
 *              and twice that backward, at scale_step_matmul_eta();
 *   SSD        scale_transformer_ssd_flops() / tp x 3, as batched l x l x max(n, P) matmuls;
 *   vector     forward bytes per token 5d (norm, residual) + 3(d_inner + 2gn) (conv; the scan
 *              reads x, B, C) + 5 d_inner (scan output, gated norm) in 16-bit, inner terms / tp,
 *              plus 4 fp32 passes over the chunk states (h/tp) P n / l; backward twice that;
 *              at HBM x mem_eta, plus 11 forward and 22 backward kernels x kernel_s;
 *   TP         one AllReduce of [T, d] forward and one backward;
 *   CP         an AllGather of the chunk-final states and a halo send, forward and backward;
 * with full recomputation (job->recompute FULL) each layer's forward again, its TP and CP
 * exchanges included (selective recomputation recomputes no SSM op: priced as none);
 * the last stage adds the unembedding and loss; 1F1B bubble (p - 1)/m; PP sends of [T, d]
 * forward and backward; DP gradient buckets (80 MB) under the last backward but the last
 * (ZeRO-1/2: reduce-scatter over the ZeRO group, fsdp or all of dp x cp, and the weights
 * gathered after the optimizer, exposed; a hybrid-sharded group's replicas all-reduce their
 * shard); ZeRO-3: per layer and microbatch two weight AllGathers and a gradient
 * ReduceScatter over the group, exposed beyond the layer's compute; Adam at 30 bytes per
 * parameter of the ZeRO shard; the per-step overhead. Networks as the
 * job maps them (job->mapped, as scale_train_eval() does) or as step.h chooses them (rank
 * order tp, cp, dp, pp; a switchless domain is a full mesh).
 *
 * Domain: a Mamba-2 model, degrees >= 1 with tp dividing heads and groups, gbs >= dp mbs (a
 *         fractional microbatch count is priced as it stands, as step.h does); otherwise
 *         every field is NaN.
 * Source: our composition; the operations from mamba_ssm's Mamba2 module and SSD kernels
 *         (chunk_cumsum, chunk_state, state_passing, bmm_chunk, chunk_scan), Dao & Gu
 *         arXiv 2405.21060; the paper section 6.3 (vector work dominates).
 */
void scale_step_mamba2_eval(const scale_step_job *job, const scale_step_params *params,
                                   scale_step_mamba2 *out);

/** The Mamba-2 step as a scale_step_result, what scale_step_eval() returns for a Mamba-2 job (and
 * with it scale_train_eval(), `scale train` and `scale plan`): compute_s the layers' GEMMs, SSD matmuls, memory-bound
 * ops and recomputation with the head; op_s only the ops step.h names (unembedding, loss,
 * optimizer); comm_s and exposed_s TP, CP (states and halo), PP (exposed in full) and DP
 * (its tail and ZeRO gather exposed); host_s the host's floor under a CP layout on the mesh,
 * scale_step_cp_host_s() with no TP term (a Mamba-2 layer's TP all-reduce finishes under the
 * host's launches of the chunked scan that follows it); stage_s the pipeline's stage latency
 * (scale_step_ssm_stages() x mesh_ssm_stage_s); step_s the larger of the device's time and
 * the floor, plus stage_s. Every number NaN outside the evaluation's domain.
 */
void scale_step_mamba2_result(const scale_step_job *job, const scale_step_params *params,
                                     scale_step_result *out);

/** Pipeline stages past the first that the mesh's SSM stage latency (the
 * parameter mesh_ssm_stage_s) charges to 'job': pp - 1 for a Mamba-2 model whose pipeline group is on a
 * switchless mesh, 0 otherwise. Why: in Tables 13 and 14 of the hybrid paper every added
 * stage lengthens a Mamba-2 step by nearly the same time (16-20 s for Mamba-1B, 20-23 s for
 * Mamba-7B, 4M tokens a step) whatever DP, TP and CP, which no bubble (hundreds of
 * microbatches a replica), send or compute cost does; the same framework's LLaMA pipelines
 * show none beyond what the step model prices. A fixed latency per stage and step, as if part
 * of each stage's work ran one stage after another; its mechanism is not known (chapter 13).
 *
 * Units:  -> [count].
 * Domain: a Mamba-2 model, degrees >= 1, a chip; NaN otherwise.
 */
double scale_step_ssm_stages(const scale_step_job *job);

/* ---- serving: one forward pass ------------------------------------------------------------- */

/** A forward pass of a serving step on one model copy: 'batch' sequences each adding
 * 'new_tokens' tokens (the prompt at prefill, 1 at decode) that attend to 'context' tokens,
 * on a Megatron TP group of 'tp' chips (1-D: 2-D weight-stationary and expert parallelism
 * are priced by the roofline only). */
typedef struct {
  const scale_model *model;  /**< a transformer (caller storage) */
  const scale_chip *chip;    /**< (caller storage) */
  double tp;                 /**< TP degree, dividing the heads */
  double batch;              /**< sequences in the pass on this copy */
  double new_tokens;         /**< tokens added per sequence */
  double context;            /**< tokens attended to per sequence, >= new_tokens */
  scale_dtype weight_dtype;  /**< stored weights (bytes read by the linear layers) */
  scale_dtype kv_dtype;      /**< stored KV cache (bytes read by attention) */
  scale_dtype dtype;         /**< matmul arithmetic (selects the peak) */
} scale_step_forward_job;

/** The pass and where its time goes. */
typedef struct {
  double op_s[SCALE_STEP_OP_COUNT]; /**< each op over all layers and the head [s] */
  double tp_s;                      /**< TP all-reduces, on the critical path [s] */
  scale_step_net tp_net;            /**< the network they cross */
  double step_s;                    /**< the pass [s] */
} scale_step_forward_result;

/** Prices a serving forward pass op by op as the training step does (matmuls at their shape's
 * efficiency or their bytes, weights in weight_dtype, the KV cache read in kv_dtype by a
 * flash-decoding attention grouped by KV head, memory-bound ops, per-kernel overhead, two TP
 * all-reduces per layer; logits of the last token of each sequence only). Routed experts of
 * a MoE read the weights of min(E, tokens k) experts. Allocation-free.
 *
 * Domain: a transformer, tp >= 1 dividing the heads, batch, new_tokens >= 1, context >=
 *         new_tokens; otherwise every field is NaN.
 */
void scale_step_forward_eval(const scale_step_forward_job *job, const scale_step_params *params,
                             scale_step_forward_result *out);

/* ---- reuse within a search ------------------------------------------------------------------ */

#define SCALE_STEP_CACHE_SLOTS 32
#define SCALE_STEP_CACHE_KEY 7 /**< tp, cp, mbs, sp, ep, etp, capacity (not the remat) */
#define SCALE_STEP_BUCKET_SLOTS 8 /**< bucketed gradient collectives remembered */
#define SCALE_STEP_BUCKET_KEY 7   /**< comm, network, bandwidth, collective, group, bytes, axes */

/** The op times of a layer and of the stage ends by shape (tp, cp, mbs, sp, recompute; ep,
 * etp and capacity factor, which set a MoE layer's expert grid), the last bucketed gradient
 * collectives by their inputs, and the model's counts, kept between evaluations of jobs that
 * share a model, chip, parameter set, sequence length, dtype and attention kind (one search).
 * Caller storage (about 18 kB); scale_step_cache_init() before the first use. A cached evaluation is bit-identical to an
 * uncached one; the cache forgets everything when a job differs in what it is bound to (the
 * parameters by address: re-initialize it after changing their values). Fields are
 * internal. */
typedef struct {
  const scale_model *model;            /**< what the entries are bound to */
  const scale_chip *chip;
  const scale_step_params *params;
  double seq;
  int dtype, attention;
  bool mtp;
  bool bound;
  double n_params, n_active_params;    /**< the model's counts */
  double layer_weight_params;          /**< params of an average layer (embeddings apart) */
  int n_used, next;                    /**< entries filled; the one to replace next */
  int last;                            /**< the entry the last lookup found or filled */
  double key[SCALE_STEP_CACHE_SLOTS][SCALE_STEP_CACHE_KEY];
  double fwd[SCALE_STEP_CACHE_SLOTS][SCALE_STEP_OP_COUNT];
  double all[SCALE_STEP_CACHE_SLOTS][SCALE_STEP_OP_COUNT];
  double head[SCALE_STEP_CACHE_SLOTS][SCALE_STEP_OP_COUNT];
  double wgrad[SCALE_STEP_CACHE_SLOTS][4]; /**< the layer's weight-gradient GEMMs: QKV, MLP up,
                                                output projection, MLP down */
  int n_buckets, next_bucket; /**< bucketed gradient collectives held; the one to replace */
  double bucket_key[SCALE_STEP_BUCKET_SLOTS][SCALE_STEP_BUCKET_KEY];
  double bucket_s[SCALE_STEP_BUCKET_SLOTS];      /**< their time [s] */
  double bucket_tail_s[SCALE_STEP_BUCKET_SLOTS]; /**< their last bucket's [s] */
} scale_step_cache;

/** Empties 'cache'. */
void scale_step_cache_init(scale_step_cache *cache);

/** scale_step_eval() reusing (and filling) 'cache'; NULL: no cache. Same results. */
void scale_step_eval_cached(const scale_step_job *job, const scale_step_params *params,
                            scale_step_cache *cache, scale_step_result *out);

/** scale_step_eval()'s step_s alone [s]. */
double scale_step_time_s(const scale_step_job *job, const scale_step_params *params);

#endif
