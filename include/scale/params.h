/* params.h — the calibrated models' parameter tables: the schema of a hardware file's [step],
 * [step_fit] and [serve] sections.
 *
 * Each table is an X-macro list, X(ENUM, key, unit, lo, hi, prior, log_scale, meaning), expanded
 * into an enum, a description per parameter (scale_*_param_describe()) and the hardware loader's
 * fields (src/hardware.c). The tables sit below the hardware records that store the values and
 * the models that use them (step.h, servecal.h, calibrate.h), so the loader needs none of those
 * models (src/LAYERS).
 */
#ifndef SCALE_PARAMS_H
#define SCALE_PARAMS_H

#include <stdbool.h>

/* ==== the step model's parameters (step.h) ================================================== */

/** The step model's parameters, one list for the enum below, the descriptions
 * (scale_step_param_describe()) and the hardware files' [step] schema (src/hardware.c);
 * the model itself is in step.h:
 * X(ENUM, key, unit, lo, hi, prior, log_scale, meaning). */
#define SCALE_STEP_PARAM_LIST(X)                                                                   \
  X(MM_ETA_MAX, "mm_eta_max", "1", 0.4, 0.98, 0.8, false,                                         \
    "best fraction of peak a large aligned matmul reaches (cuBLAS/CANN GEMMs: 0.6-0.9)")           \
  X(MM_DIM_HALF, "mm_dim_half", "1", 1, 1024, 32, true,                                           \
    "dimension at which one matmul dimension halves eta: pipeline fill and K-loop prologue")       \
  X(MEM_ETA, "mem_eta", "1", 0.3, 0.95, 0.7, false,                                               \
    "fraction of HBM bandwidth a streaming kernel reaches (STREAM-like: 0.6-0.9)")                 \
  X(KERNEL_S, "kernel_s", "s", 1e-7, 5e-5, 5e-6, true,                                            \
    "fixed cost of one kernel: launch, prologue, tail (CUDA launch 2-10 us)")                      \
  X(UP_LATENCY_S, "up_latency_s", "s", 1e-6, 1e-4, 1e-5, true,                                    \
    "NVLink/NVSwitch latency per ring step (NCCL's tuning model: 0.5-3.4 us by protocol)")         \
  X(UP_BW_ETA, "up_bw_eta", "1", 0.2, 0.95, 0.7, false,                                           \
    "NVLink achieved fraction of per-GPU egress for large messages (NCCL busbw ~0.7-0.85)")        \
  X(UP_HALF_BYTES, "up_half_bytes", "bytes", 1e4, 1e8, 1e6, true,                                 \
    "NVLink message size at which achieved bandwidth is half its asymptote")                       \
  X(MESH_LATENCY_S, "mesh_latency_s", "s", 1e-6, 1e-4, 1e-5, true,                                \
    "switchless mesh (Ascend HCCS) latency per ring step (HCCL: ~10-50 us)")                       \
  X(MESH_BW_ETA, "mesh_bw_eta", "1", 0.1, 0.95, 0.7, false,                                       \
    "mesh achieved fraction of the direct links' bandwidth for large messages")                    \
  X(MESH_HALF_BYTES, "mesh_half_bytes", "bytes", 1e4, 1e8, 1e6, true,                             \
    "mesh message size at which achieved bandwidth is half its asymptote")                         \
  X(OUT_LATENCY_S, "out_latency_s", "s", 2e-6, 2e-4, 2e-5, true,                                  \
    "scale-out latency per ring step (InfiniBand/RoCE through the fat tree: ~10-50 us)")           \
  X(OUT_BW_ETA, "out_bw_eta", "1", 0.2, 0.95, 0.7, false,                                         \
    "scale-out achieved fraction of the per-chip NIC bandwidth for large messages")                \
  X(OUT_HALF_BYTES, "out_half_bytes", "bytes", 1e4, 1e8, 4e6, true,                               \
    "scale-out message size at which achieved bandwidth is half its asymptote")                    \
  X(ICI_LATENCY_S, "ici_latency_s", "s", 1e-6, 1e-4, 5e-6, true,                                  \
    "TPU ICI latency per ring step (book ch. 3: ~1 us per hop, more per collective step)")         \
  X(ICI_BW_ETA, "ici_bw_eta", "1", 0.3, 0.95, 0.8, false,                                         \
    "TPU ICI achieved fraction of link bandwidth (the TPU rows hide their ICI traffic: prior)") \
  X(ICI_HALF_BYTES, "ici_half_bytes", "bytes", 1e4, 1e8, 1e5, true,                               \
    "TPU ICI message size at which achieved bandwidth is half its asymptote")                      \
  X(STEP_S, "step_s", "s", 0, 1, 0.05, false,                                                     \
    "fixed cost of one optimizer step: data loading, loss/grad-norm reductions, logging")       \
  X(MESH_CP_HOST_S, "mesh_cp_host_s", "s", 0, 0.05, 0, false,                                     \
    "host time per CP layer-microbatch when CP exchanges on the mesh block the host (0: async)") \
  X(MESH_SSM_STAGE_S, "mesh_ssm_stage_s", "s", 0, 60, 0, false,                                  \
    "step time each pipeline stage past the first adds to a Mamba-2 step on the mesh (0: none)") \
  X(GROUPED_ETA, "grouped_eta", "1", 0.3, 1.0, 0.85, false,                                      \
    "share of a plain GEMM's efficiency a grouped expert GEMM keeps (ragged per-expert tiles)")  \
  X(EP_EXPOSED_FRAC, "ep_exposed_frac", "1", 0.0, 1.0, 1.0, false,                              \
    "share of the MoE dispatch/combine all-to-alls on the critical path (1: no overlap)")       \
  X(MOE_SYNC_S, "moe_sync_s", "s", 1e-6, 2e-3, 1e-4, true,                                      \
    "device idle per MoE layer and pass while the host reads the tokens per expert (10us-1ms)") \
  X(LOWP_ETA, "lowp_eta", "1", 0.5, 1.0, 0.85, false,                                           \
    "share of a 16-bit GEMM's efficiency an 8- or 4-bit GEMM keeps of its own peak (0.7-0.95)")

/** The step model's efficiency parameters (index of scale_step_params.v): SCALE_STEP_<ENUM> in
 * the order of SCALE_STEP_PARAM_LIST (mm_eta_max, mm_dim_half, mem_eta, kernel_s; then latency,
 * bandwidth fraction and half-bandwidth size of the switched scale-up domain, the switchless
 * mesh, the scale-out fabric and TPU ICI; step_s). */
typedef enum {
#define SCALE_STEP_PARAM_ENUM(e, ...) SCALE_STEP_##e,
  SCALE_STEP_PARAM_LIST(SCALE_STEP_PARAM_ENUM)
#undef SCALE_STEP_PARAM_ENUM
  SCALE_STEP_N_PARAMS
} scale_step_param;

/** What a parameter means and where it may lie. */
typedef struct {
  const char *key;     /**< name in hardware/step/fitted.ini ("mm_eta_max") */
  const char *unit;    /**< "1", "s", "bytes" */
  double lo, hi;       /**< plausible range; the fit stays inside it */
  double prior;        /**< value before any fit (and for parameters no row exercises) */
  bool log_scale;      /**< the range spans decades: fitted in log space */
  const char *meaning; /**< one line: the physical quantity and why the range */
} scale_step_param_info;

/** Description of parameter 'p'; NULL for an invalid index. Static storage. */
const scale_step_param_info *scale_step_param_describe(scale_step_param p);

/** The same descriptions as one table, by scale_step_param (for loops over every parameter). */
extern const scale_step_param_info scale_params_step_info[SCALE_STEP_N_PARAMS];

/* ==== the serving step cost's parameters (servecal.h) ====================================== */

/** X(ENUM, key, unit, lo, hi, prior, log_scale, meaning): the serving step's fitted parameters,
 * each with its plausible range (the [serve] keys of a hardware file); the model is in
 * servecal.h. */
#define SCALE_SERVE_PARAM_LIST(X)                                                                  \
  X(WEIGHT_BW_FRAC, "weight_bw_frac", "1", 0.5, 0.95, 0.8, false,                                  \
    "fraction of HBM bandwidth the linear layers reach streaming the weights (0.5-0.9)")           \
  X(KV_BW_FRAC, "kv_bw_frac", "1", 0.2, 0.95, 0.6, false,                                          \
    "fraction of HBM bandwidth paged attention reaches reading KV blocks (0.4-0.9)")               \
  X(MATMUL_FRAC, "matmul_frac", "1", 0.2, 0.95, 0.6, false,                                        \
    "fraction of peak the step's GEMMs reach at large token counts (fp8/bf16 cuBLAS: 0.5-0.8)")    \
  X(ATTN_FRAC, "attn_frac", "1", 0.05, 0.8, 0.4, false,                                            \
    "fraction of peak causal prefill attention reaches (FlashAttention-style: 0.3-0.6)")           \
  X(OVERHEAD_S, "overhead_s", "s", 1e-4, 3e-2, 2e-3, true,                                         \
    "engine time of one step whatever it holds: scheduling, launches, host sync (0.5-10 ms)")      \
  X(OVERHEAD_SEQ_S, "overhead_seq_s", "s", 0.0, 5e-5, 5e-6, false,                                 \
    "engine time per running request each step: sampling, detokenizing, bookkeeping (0-50 us)")    \
  X(OVERHEAD_COLL_S, "overhead_coll_s", "s", 0.0, 1e-5, 2e-6, false,                               \
    "engine time per collective and peer chip: the flags set and awaited on each (0.5-5 us)")      \
  X(FP4_MATMUL_FRAC, "fp4_matmul_frac", "1", 0.1, 0.95, 0.4, false,                                \
    "fraction of fp4 peak the GEMMs reach (activations quantized, block scales: 0.3-0.7)")         \
  X(MOE_GEMM_FRAC, "moe_gemm_frac", "1", 0.05, 1.0, 0.5, false,                                    \
    "share of the GEMM efficiency routed experts keep: grouped GEMMs, token permute (0.1-0.9)")    \
  X(LINEAR_K, "linear_k", "1", 1.0, 16.0, 4.0, true,                                               \
    "smooth-max exponent of weight streaming and GEMM time: 2^(1/k) at the ridge (2-8)")           \
  X(KV_CTX_HALF, "kv_ctx_half", "tokens", 8.0, 64.0, 16.0, true,                                   \
    "a decoding sequence's fixed KV cost in tokens: half a 16-32 token block + setup (8-64)")      \
  X(KV_CTA_HALF, "kv_cta_half", "1", 1.0, 1024.0, 32.0, true,                                      \
    "(sequence, KV head) work items at which decode attention reaches half speed (16-132 SMs)")    \
  X(EXPERT_DIM_HALF, "expert_dim_half", "1", 16.0, 16384.0, 1024.0, true,                          \
    "expert width a chip (d_ff_expert / tp) at which grouped GEMMs run at half speed (256-4096)")

#define SCALE_SERVE_PARAM_ENUM(e, ...) SCALE_SERVE_##e,
typedef enum {
  SCALE_SERVE_PARAM_LIST(SCALE_SERVE_PARAM_ENUM) SCALE_SERVE_N_PARAMS
} scale_serve_param;
#undef SCALE_SERVE_PARAM_ENUM

/** What a parameter is. */
typedef struct {
  const char *key;     /**< the hardware file's [serve] key */
  const char *unit;    /**< "1", "s" or "tokens" */
  double lo, hi;       /**< plausible range */
  double prior;        /**< value before any fit */
  bool log_scale;      /**< fitted on a log scale */
  const char *meaning; /**< one line */
} scale_serve_param_info;

/** The description of parameter 'p'; NULL outside [0, SCALE_SERVE_N_PARAMS). Static storage. */
const scale_serve_param_info *scale_serve_param_describe(int p);

/** The same descriptions as one table, by scale_serve_param. */
extern const scale_serve_param_info scale_params_serve_info[SCALE_SERVE_N_PARAMS];

/* ==== the fit's provenance ([step_fit]) ===================================================== */

/** The largest prior weight a fit accepts and a hardware file's [step_fit] prior_weight may
 * give (10: each parameter all but pinned at its prior; calibrate.h). */
#define SCALE_CALIB_PRIOR_WEIGHT_MAX 10.0

#endif
