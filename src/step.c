/* step.c — the calibrated step model (contract and overview in step.h).
 *
 * Reading order: parameters; costs of one op and one collective; the ops of a layer; the
 * communication of a layer and a step with their overlap rules; the step.
 */
#include "scale/step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/pipeline.h"
#include "scale/transformer.h"

/* ---- parameters ----------------------------------------------------------------------------- */

static const scale_step_param_info *const param_info = scale_params_step_info;

scale_step_params scale_step_params_prior(void) {
  scale_step_params p;
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) p.v[i] = param_info[i].prior;
  return p;
}

const char *scale_step_params_path(void) {
  static char path[4096 + 32];
  snprintf(path, sizeof path, "%s/hardware/nvidia-h100-sxm.ini", scale_data_dir());
  return path;
}

scale_status scale_step_params_of_chip(const scale_chip *chip, scale_step_params *out) {
  if (!chip || !chip->has_step) return SCALE_ERR_MISSING_KEY;
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) out->v[i] = chip->step[i];
  return SCALE_OK;
}

scale_status scale_step_params_load_file(const char *path, scale_step_params *out,
                                         scale_diag *diag) {
  scale_chip *chip = malloc(sizeof *chip);
  if (!chip) return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  /* the hardware schema's one strict reader: [step] keys in range, the rest as a chip file */
  scale_status st = scale_chip_read_sections(path, chip, diag);
  for (int i = 0; !st && i < SCALE_STEP_N_PARAMS; i++)
    if (isnan(chip->step[i]))
      st = scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0, "missing [step] %s",
                          param_info[i].key);
  if (!st) memcpy(out->v, chip->step, sizeof out->v);
  free(chip);
  return st;
}

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const op_names[SCALE_STEP_OP_COUNT] = {
    "qkv",      "scores",     "softmax", "values",   "out-proj",    "mlp-up",
    "mlp-down", "norms",      "activation", "rotary", "residual",   "router",
    "permute",  "fp8-cast",
    "embedding", "unembedding", "loss",  "optimizer"};
static const char *const comm_names[SCALE_STEP_COMM_COUNT] = {"tp", "cp", "fsdp",
                                                              "ep", "pp", "dp"};
static const char *const net_names[SCALE_STEP_NET_COUNT] = {"scale-up", "mesh", "scale-out",
                                                             "ici"};

const char *scale_step_op_name(scale_step_op op) {
  return (unsigned)op < SCALE_STEP_OP_COUNT ? op_names[op] : "?";
}
const char *scale_step_comm_name(scale_step_comm comm) {
  return (unsigned)comm < SCALE_STEP_COMM_COUNT ? comm_names[comm] : "?";
}
const char *scale_step_net_name(scale_step_net net) {
  return (unsigned)net < SCALE_STEP_NET_COUNT ? net_names[net] : "?";
}

const char *scale_step_comm_rule(scale_step_comm comm, bool tp_overlap) {
  switch (comm) {
  case SCALE_STEP_COMM_TP:
    return tp_overlap ? "tp-overlap: hidden under the layer's matmuls as far as they last"
                      : "forward all-reduces on the critical path on a GPU, the backward's "
                        "under the column linears' weight-gradient GEMMs (Megatron's async "
                        "all-reduce); --tp-overlap hides them all under the GEMMs, as XLA "
                        "always does on a TPU";
  case SCALE_STEP_COMM_CP:
    return "ring hidden under attention only as far as its compute lasts (Ulysses' all-to-alls "
           "and all-gather CP's gathers on the critical path)";
  case SCALE_STEP_COMM_FSDP: return "gathers prefetched under the previous layer's compute";
  case SCALE_STEP_COMM_EP:
    return "dispatch/combine all-to-alls, ep_exposed_frac of them on the critical path (under "
           "DualPipe hidden under the paired chunk's compute)";
  case SCALE_STEP_COMM_PP:
    return "sends per microbatch per virtual stage (1/tp a rank, gathered over TP without "
           "SP), plus the bubble";
  case SCALE_STEP_COMM_DP:
    return "buckets under the last microbatch's backward, except the last bucket";
  default: return "?";
  }
}

int scale_step_worst_exposed(const scale_step_result *r) {
  int worst = -1;
  if (r == NULL) return worst;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
    if (r->exposed_s[k] > (worst < 0 ? 0.0 : r->exposed_s[worst])) worst = k;
  return worst;
}

/* ---- costs ---------------------------------------------------------------------------------- */

enum { TILE = 128 };

/** Useful fraction of the work tiles a matmul issues (see scale_step_matmul_eta). */
static double tile_frac(const scale_chip *chip, double m, double n, double k, double batch) {
  if (chip->kind == SCALE_HW_TPU)
    return m / (TILE * ceil(m / TILE)) * n / (TILE * ceil(n / TILE)) * k / (TILE * ceil(k / TILE));
  double sms = chip->n_cores;
  if (!(sms >= 1)) return 1.0;
  double tiles = batch * ceil(m / TILE) * ceil(n / TILE);
  double waves = ceil(tiles / sms);
  return batch * m * n / (waves * sms * TILE * TILE);
}

double scale_step_matmul_eta(const scale_chip *chip, const scale_step_params *params, double m,
                             double n, double k, double batch) {
  if (!(m > 0 && n > 0 && k > 0 && batch > 0)) return NAN;
  double half = params->v[SCALE_STEP_MM_DIM_HALF];
  double dims = m / (m + half) * n / (n + half) * k / (k + half);
  return params->v[SCALE_STEP_MM_ETA_MAX] * tile_frac(chip, m, n, k, batch) * dims;
}

static const int net_param_base[SCALE_STEP_NET_COUNT] = {
    SCALE_STEP_UP_LATENCY_S, SCALE_STEP_MESH_LATENCY_S, SCALE_STEP_OUT_LATENCY_S,
    SCALE_STEP_ICI_LATENCY_S};

/** Achieved bandwidth for messages of 'size' bytes [bytes/s]. */
static double achieved_bytes_per_s(const scale_step_params *p, scale_step_net net, double w,
                                   double size) {
  int b = net_param_base[net];
  return w * p->v[b + 1] * size / (size + p->v[b + 2]);
}

/** Latency steps of one collective over n members: n - 1 on a one-way ring; on ICI one
 * bidirectional ring per torus axis, n_i / 2 hops each (ch. 3's T_hop sum(N_i) / 2). */
static double ring_steps(scale_step_net net, scale_collective op, double n, double n_axes) {
  double steps = n - 1;
  if (net == SCALE_STEP_NET_ICI) {
    double k = fmin(n_axes >= 1 ? n_axes : 1, fmax(1, floor(log2(n)))); /* >= 2 chips an axis */
    steps = k * pow(n, 1 / k) / 2;
  }
  return op == SCALE_COLL_ALL_REDUCE ? 2 * steps : steps;
}

double scale_step_torus_collective_s(const scale_step_params *params, scale_step_net net,
                                     double bytes_per_s, scale_collective op, double n,
                                     double n_axes, double bytes) {
  if (n <= 1 || bytes <= 0) return 0.0;
  double link = scale_collective_ring_link_bytes(op, n, bytes, false);
  double w = achieved_bytes_per_s(params, net, bytes_per_s, bytes / n);
  return ring_steps(net, op, n, n_axes) * params->v[net_param_base[net]] + link / w;
}

double scale_step_collective_s(const scale_step_params *params, scale_step_net net,
                               double bytes_per_s, scale_collective op, double n, double bytes) {
  return scale_step_torus_collective_s(params, net, bytes_per_s, op, n, 1, bytes);
}

double scale_step_torus_axes(const scale_chip *chip, double n, double share) {
  if (!chip || !(n >= 1)) return NAN;
  if (chip->kind != SCALE_HW_TPU || n <= 2) return 1;
  double torus = chip->ici_n_axes >= 1 ? chip->ici_n_axes : 1;
  double axes[3];
  for (int i = 0; i < 3; i++) axes[i] = chip->pod_shape[i] >= 1 ? chip->pod_shape[i] : 1;
  for (int i = 0; i < 2; i++) /* longest first */
    for (int j = i + 1; j < 3; j++)
      if (axes[j] > axes[i]) {
        double t = axes[i];
        axes[i] = axes[j], axes[j] = t;
      }
  double k = 1, held = axes[0];
  /* a pod shape that is unknown (all 1) says nothing: the layout's share alone */
  while (axes[0] > 1 && held < n && k < torus && k < 3) held *= axes[(int)k++];
  k = fmax(k, share >= 1 ? share : 1);
  return fmax(1, fmin(fmin(k, torus), floor(log2(n))));
}

double scale_step_send_s(const scale_step_params *params, scale_step_net net, double bytes_per_s,
                         double bytes) {
  if (bytes <= 0) return 0.0;
  return params->v[net_param_base[net]] +
         bytes / achieved_bytes_per_s(params, net, bytes_per_s, bytes);
}

/* ---- the evaluation context ----------------------------------------------------------------- */

/** Everything the op and comm prices need, derived once per evaluation. */
typedef struct {
  const scale_step_job *job;
  const scale_step_params *p;
  double c_linear, c_attn; /**< peak FLOP/s of the linear layers and of attention */
  double w_hbm;            /**< HBM bandwidth [bytes/s] */
  double t;                /**< tokens per chip per microbatch: mbs seq / cp */
  double t_sp;             /**< tokens of the norms and residuals: t / tp with SP */
  double n_h, k_h;         /**< query and KV heads per TP rank */
  double d, h, f_in, f_out; /**< D, H, MLP input width (x2 gated) and output width per rank */
  double act_bytes;        /**< bytes of one activation element (16-bit) */
  double n_params, n_active_params, layer_weight_params; /**< the model's counts */
  /* MoE (all 0 for a dense model): the expert grid of moe_grid() */
  double moe_frac;         /**< share of the layers whose MLP is routed experts */
  double etp;              /**< expert tensor parallelism */
  double t_moe;            /**< tokens a rank routes: t etp / tp */
  double e_local;          /**< experts a rank holds: E / ep */
  double t_expert;         /**< tokens one local expert runs: t_moe k ep / E x capacity */
  double f_expert;         /**< one expert's width a rank: d_ff_expert / etp */
  double routed;           /**< token copies a rank sends and receives: t_moe k x capacity */
  double expert_params;    /**< the routed experts' parameters (all layers) */
  scale_step_cache *cache; /**< the search's cache (its bucketed collectives), or NULL */
} ctx;

/* Whether matmuls in 'dtype' quantize their inputs (fp8, fp4): frameworks then keep the
 * attention core in bf16 and pay a cast of every linear layer's input. */
static bool quantized(scale_dtype dtype) {
  return dtype == SCALE_DTYPE_FP8 || dtype == SCALE_DTYPE_FP4;
}

/** A GEMM's time at 'peak' [FLOP/s] with 'bytes' through HBM: the slower of its math at the
 * shape's efficiency and its traffic, plus the fixed cost of a kernel. */
static double gemm_s(const scale_chip *chip, const scale_step_params *p, double peak, double m,
                     double n, double k, double batch, double bytes) {
  double t_math = 2 * m * n * k * batch / (peak * scale_step_matmul_eta(chip, p, m, n, k, batch));
  double t_mem = bytes / (chip->hbm_bytes_per_s * p->v[SCALE_STEP_MEM_ETA]);
  return fmax(t_math, t_mem) + p->v[SCALE_STEP_KERNEL_S];
}

double scale_step_kernel_gemm_s(const scale_chip *chip, const scale_step_params *params,
                                scale_dtype dtype, double m, double n, double k, double batch,
                                double bytes) {
  if (!chip || !params || !(bytes > 0)) return NAN;
  double peak = scale_chip_flops_per_s(chip, dtype);
  if (quantized(dtype)) peak *= params->v[SCALE_STEP_LOWP_ETA];
  if (!(peak > 0 && chip->hbm_bytes_per_s > 0)) return NAN;
  return gemm_s(chip, params, peak, m, n, k, batch, bytes);
}

/** Time of one matmul op of 'batch' m x k by k x n products. */
static double matmul_s(const ctx *c, double c_peak, double m, double n, double k, double batch) {
  double bytes = c->act_bytes * batch * (m * k + k * n + m * n);
  return gemm_s(c->job->chip, c->p, c_peak, m, n, k, batch, bytes);
}

/** Forward + backward of a weight matmul (tokens x in by in x out): forward, dgrad, wgrad;
 * the forward's time into *fwd and the weight gradient's into *wgrad. */
static double linear_fwd_bwd_s(const ctx *c, double tokens, double in, double out, double *fwd,
                               double *wgrad) {
  *fwd = matmul_s(c, c->c_linear, tokens, out, in, 1);
  *wgrad = matmul_s(c, c->c_linear, in, out, tokens, 1);
  return *fwd + matmul_s(c, c->c_linear, tokens, in, out, 1) + *wgrad;
}

/** Time of a memory-bound op moving 'bytes' through HBM, in 'kernels' kernels. */
static double memory_s(const ctx *c, double bytes, double kernels) {
  return bytes / (c->w_hbm * c->p->v[SCALE_STEP_MEM_ETA]) + kernels * c->p->v[SCALE_STEP_KERNEL_S];
}

/* ---- the ops of one layer, one microbatch --------------------------------------------------- */

/** Forward and forward+backward time of each layer op (per microbatch, one layer). */
typedef struct {
  double fwd[SCALE_STEP_OP_COUNT];
  double all[SCALE_STEP_OP_COUNT];
  double wgrad[4]; /**< weight-gradient GEMMs: the column-parallel QKV and MLP up (the TP
                        backward overlap), then the output projection and MLP down */
} layer_ops;

static void attention_ops(const ctx *c, layer_ops *o) {
  const scale_step_job *j = c->job;
  double sq = j->seq / j->cp, skv = j->seq, heads = j->mbs * c->n_h;
  bool flash = j->attention == SCALE_ATTENTION_FLASH;
  /* flash skips the masked half of a causal product; unfused computes it all under the mask */
  double causal = flash ? 0.5 : 1.0;
  double scores = matmul_s(c, c->c_attn, sq, skv * causal, c->h, heads);
  const scale_model *m = j->model;
  double hv = m->kv_lora_rank > 0 ? (double)m->d_head_v : c->h; /* MLA's value heads */
  double values = matmul_s(c, c->c_attn, sq, hv, skv * causal, heads);
  double local = (double)scale_model_n_local_layers(m), l = (double)m->n_layers;
  if (flash && local > 0) {
    /* a local kernel's keys per query: its window's pairs over the sequence (with CP, the
     * ring's blocks beyond the window skipped alike); unfused computes every pair, masked */
    double keys = scale_transformer_local_pairs(m, j->seq, j->seq, true) / j->seq;
    scores = ((l - local) * scores + local * matmul_s(c, c->c_attn, sq, keys, c->h, heads)) / l;
    values = ((l - local) * values + local * matmul_s(c, c->c_attn, sq, hv, keys, heads)) / l;
  }
  o->fwd[SCALE_STEP_OP_SCORES] = scores;
  o->fwd[SCALE_STEP_OP_VALUES] = values;
  /* backward: two products each; flash also recomputes the scores */
  o->all[SCALE_STEP_OP_SCORES] = scores * (flash ? 4 : 3);
  o->all[SCALE_STEP_OP_VALUES] = values * 3;
  /* unfused: softmax and dropout read and write the s x s probabilities (9 bytes/element:
   * softmax 2+2, dropout 2+2 and a 1-byte mask); backward moves twice as much */
  double elems = heads * sq * skv;
  double sm = flash ? 0 : memory_s(c, 9 * elems, 2);
  o->fwd[SCALE_STEP_OP_SOFTMAX] = sm;
  o->all[SCALE_STEP_OP_SOFTMAX] = 3 * sm;
}

/** Forward + backward of a grouped expert GEMM: 'batch' experts, each 'tokens' x in by in x
 * out, at the plain GEMM's efficiency of that shape (tiles and waves over the whole group)
 * times grouped_eta; forward into *fwd, weight gradient into *wgrad. */
static double grouped_fwd_bwd_s(const ctx *c, double batch, double tokens, double in, double out,
                                double *fwd, double *wgrad) {
  if (!(tokens > 0)) return *fwd = *wgrad = 0;
  double g = c->p->v[SCALE_STEP_GROUPED_ETA], k = c->p->v[SCALE_STEP_KERNEL_S];
  /* the grouped kernel is one launch; its math at g of the shape's efficiency */
  double f = (matmul_s(c, c->c_linear, tokens, out, in, batch) - k) / g + k;
  double dg = (matmul_s(c, c->c_linear, tokens, in, out, batch) - k) / g + k;
  double wg = (matmul_s(c, c->c_linear, in, out, tokens, batch) - k) / g + k;
  *fwd = f, *wgrad = wg;
  return f + dg + wg;
}

/** MLA's projections (DeepSeek-V2/V3) in place of Q, K, V: the query down- and up-projection
 * (full-rank queries without q_lora_rank), the joint KV down-projection to the latent and the
 * rotary key, and the latent's up-projection to per-head keys and values. */
static double mla_qkv_s(const ctx *c, double *fwd, double *wgrad) {
  const scale_model *m = c->job->model;
  double t = c->t, qk = (double)(m->d_head_nope + m->d_head_rope), f = 0, w = 0, all = 0;
  double q_rank = (double)m->q_lora_rank, kv_rank = (double)m->kv_lora_rank;
  *fwd = *wgrad = 0;
  if (q_rank > 0) {
    all += linear_fwd_bwd_s(c, t, c->d, q_rank, &f, &w), *fwd += f, *wgrad += w;
    all += linear_fwd_bwd_s(c, t, q_rank, c->n_h * qk, &f, &w), *fwd += f, *wgrad += w;
  } else {
    all += linear_fwd_bwd_s(c, t, c->d, c->n_h * qk, &f, &w), *fwd += f, *wgrad += w;
  }
  all += linear_fwd_bwd_s(c, t, c->d, kv_rank + (double)m->d_head_rope, &f, &w), *fwd += f;
  *wgrad += w;
  double kv_up = c->n_h * (double)(m->d_head_nope + m->d_head_v);
  all += linear_fwd_bwd_s(c, t, kv_rank, kv_up, &f, &w), *fwd += f, *wgrad += w;
  return all;
}

static bool is_mla(const scale_model *m) { return m->kv_lora_rank > 0; }

/** The MLP of one layer, averaged over the layers: a MoE layer's routed experts as grouped
 * GEMMs of t_expert tokens x d_ff_expert / etp on the rank's E / ep experts plus its shared
 * experts as one dense MLP over the TP group; the dense layers' (n_dense_layers) MLP. */
static void mlp_ops(const ctx *c, layer_ops *o) {
  const scale_model *m = c->job->model;
  double t = c->t, fwd = 0, wg = 0, up = 0, down = 0, up_f = 0, down_f = 0, up_w = 0, down_w = 0;
  double gate = m->gated_mlp ? 2 : 1, dense = 1 - c->moe_frac;
  if (dense > 0) {
    double f = (double)m->d_ff / c->job->tp;
    up += dense * linear_fwd_bwd_s(c, t, c->d, gate * f, &fwd, &wg), up_f += dense * fwd;
    up_w += dense * wg;
    down += dense * linear_fwd_bwd_s(c, t, f, c->d, &fwd, &wg), down_f += dense * fwd;
    down_w += dense * wg;
  }
  if (c->moe_frac > 0) {
    double a = c->moe_frac, fe = c->f_expert;
    up += a * grouped_fwd_bwd_s(c, c->e_local, c->t_expert, c->d, gate * fe, &fwd, &wg);
    up_f += a * fwd, up_w += a * wg;
    down += a * grouped_fwd_bwd_s(c, c->e_local, c->t_expert, fe, c->d, &fwd, &wg);
    down_f += a * fwd, down_w += a * wg;
    if (m->n_shared_experts > 0) {
      double fs = (double)(m->n_shared_experts * m->d_ff_expert) / c->job->tp;
      up += a * linear_fwd_bwd_s(c, t, c->d, gate * fs, &fwd, &wg), up_f += a * fwd;
      up_w += a * wg;
      down += a * linear_fwd_bwd_s(c, t, fs, c->d, &fwd, &wg), down_f += a * fwd;
      down_w += a * wg;
    }
  }
  o->all[SCALE_STEP_OP_MLP_UP] = up, o->fwd[SCALE_STEP_OP_MLP_UP] = up_f, o->wgrad[1] = up_w;
  o->all[SCALE_STEP_OP_MLP_DOWN] = down, o->fwd[SCALE_STEP_OP_MLP_DOWN] = down_f;
  o->wgrad[3] = down_w;
}

static void linear_ops(const ctx *c, layer_ops *o) {
  const scale_model *m = c->job->model;
  double t = c->t, fwd = 0;
  double qkv_out = (c->n_h + 2 * c->k_h) * c->h;
  o->all[SCALE_STEP_OP_QKV] = is_mla(m) ? mla_qkv_s(c, &fwd, &o->wgrad[0])
                                        : linear_fwd_bwd_s(c, t, c->d, qkv_out, &fwd, &o->wgrad[0]);
  o->fwd[SCALE_STEP_OP_QKV] = fwd;
  double v_width = c->n_h * (is_mla(m) ? (double)m->d_head_v : c->h);
  o->all[SCALE_STEP_OP_OUT_PROJ] = linear_fwd_bwd_s(c, t, v_width, c->d, &fwd, &o->wgrad[2]);
  o->fwd[SCALE_STEP_OP_OUT_PROJ] = fwd;
  if (scale_model_is_moe(m)) {
    mlp_ops(c, o);
    return;
  }
  o->all[SCALE_STEP_OP_MLP_UP] = linear_fwd_bwd_s(c, t, c->d, c->f_in, &fwd, &o->wgrad[1]);
  o->fwd[SCALE_STEP_OP_MLP_UP] = fwd;
  o->all[SCALE_STEP_OP_MLP_DOWN] = linear_fwd_bwd_s(c, t, c->f_out, c->d, &fwd, &o->wgrad[3]);
  o->fwd[SCALE_STEP_OP_MLP_DOWN] = fwd;
}

/** Memory-bound ops: forward bytes, backward moves twice as much in twice the kernels. */
static void set_memory_op(const ctx *c, layer_ops *o, scale_step_op op, double bytes,
                          double kernels) {
  /* XLA on a TPU fuses elementwise ops into the neighbouring matmuls, where the VPU runs
   * them beside the MXU on tiles already in VMEM: no HBM round trip, no kernel of their own */
  if (c->job->chip->kind == SCALE_HW_TPU) bytes = kernels = 0;
  o->fwd[op] = memory_s(c, bytes, kernels);
  o->all[op] = 3 * o->fwd[op];
}


/* The rate the linear layers' GEMMs are priced against: the chip's peak in the job's format,
 * an 8- or 4-bit one discounted by lowp_eta (its GEMMs reach a smaller share of a peak twice
 * or four times bf16's: the same memory traffic and epilogues, scales applied per tile). */
static double linear_peak(const scale_step_job *j, const scale_step_params *p) {
  double peak = scale_chip_flops_per_s(j->chip, j->dtype);
  return quantized(j->dtype) ? peak * p->v[SCALE_STEP_LOWP_ETA] : peak;
}

/* Kernels of Megatron-Core's MoE layer outside the expert GEMMs, forward (our count of
 * moe/router.py and token_dispatcher.py): router 6 (logits GEMM, softmax or sigmoid, top-k,
 * probability scatter, the load-balancing loss's two reductions), permutation 4 (routing map,
 * row ids, sort, gather) and un-permutation 3 (scatter, probability scale, sum over k). */
enum { ROUTER_KERNELS = 6, PERMUTE_KERNELS = 4, UNPERMUTE_KERNELS = 3 };

/** The MoE layer's router and its token permutation and un-permutation, scaled by the share of
 * MoE layers. Router: the t_moe x d x E logits GEMM at the 16-bit peak, then fp32 scores read
 * and written by softmax/top-k and the load-balancing loss (4 passes of t_moe E x 4 bytes);
 * backward the GEMM's two products and the passes again (x2 bytes). Permutation: the rank's
 * t_moe tokens read, their 'routed' copies written (d each, 16-bit); un-permutation the copies
 * read and the weighted sum written; each pass (forward, backward) moves the same again, and
 * waits moe_sync_s for the host to read the tokens per expert. */
static void moe_memory_ops(const ctx *c, layer_ops *o) {
  const scale_model *m = c->job->model;
  double a = c->act_bytes, d = c->d, e = (double)m->n_experts, share = c->moe_frac;
  double k = c->p->v[SCALE_STEP_KERNEL_S];
  double logits = matmul_s(c, c->c_attn, c->t_moe, e, d, 1) - k;
  double scores = c->t_moe * e * 4 * 4;
  double fwd = logits + memory_s(c, scores, ROUTER_KERNELS);
  double bwd = 2 * logits + memory_s(c, 2 * scores, ROUTER_KERNELS);
  o->fwd[SCALE_STEP_OP_ROUTER] = share * fwd;
  o->all[SCALE_STEP_OP_ROUTER] = share * (fwd + bwd);
  double moved = 2 * (c->t_moe + c->routed) * d * a; /* permute + un-permute, one pass */
  /* the grouped GEMMs' per-expert token counts are read by the host (TE's GroupedLinear takes
   * m_splits as host integers; the all-to-all's split sizes likewise): the stream drains
   * once per layer and pass while the host copies them and issues the rest */
  double perm = memory_s(c, moved, PERMUTE_KERNELS + UNPERMUTE_KERNELS) +
                c->p->v[SCALE_STEP_MOE_SYNC_S];
  o->fwd[SCALE_STEP_OP_PERMUTE] = share * perm;
  o->all[SCALE_STEP_OP_PERMUTE] = share * 2 * perm;
}

static void memory_ops(const ctx *c, layer_ops *o) {
  double a = c->act_bytes, t = c->t, d = c->d;
  set_memory_op(c, o, SCALE_STEP_OP_NORMS, 2 * c->t_sp * d * 2 * a, 2);
  bool gated = c->job->model->gated_mlp;
  set_memory_op(c, o, SCALE_STEP_OP_ACTIVATION, t * c->f_out * (gated ? 3 : 2) * a, 1);
  /* rotary on Q and K for the gated-MLP (LLaMA-style) families; learned absolute positions of
   * the plain GPTs are one add at the embedding */
  set_memory_op(c, o, SCALE_STEP_OP_ROTARY, gated ? t * (c->n_h + c->k_h) * c->h * 2 * a : 0,
                gated ? 1 : 0);
  set_memory_op(c, o, SCALE_STEP_OP_RESIDUAL, 2 * c->t_sp * d * 3 * a, 2);
  if (c->moe_frac > 0) moe_memory_ops(c, o);
  /* fp8 (fp4): each linear layer's input is read in 16 bits and written in 8 (4 bits and one
   * e4m3 scale per 16 values: scale_dtype_bytes()), and amax-reduced */
  double cast = quantized(c->job->dtype) ? t * (2 * d + c->n_h * c->h + c->f_out) *
                                               (a + scale_dtype_bytes(c->job->dtype))
                                         : 0;
  set_memory_op(c, o, SCALE_STEP_OP_FP8_CAST, cast, cast > 0 ? 4 : 0);
}

/** The share of the layers full recompute reruns (0 without full recompute). */
static double full_recompute_share(const scale_step_job *j) {
  if (j->recompute != SCALE_RECOMPUTE_FULL) return 0.0;
  return j->recompute_frac > 0.0 && j->recompute_frac < 1.0 ? j->recompute_frac : 1.0;
}

/** A layer's op times without recomputation: what the cache keeps, whatever the remat. */
static void layer_op_times(const ctx *c, layer_ops *o) {
  memset(o, 0, sizeof *o);
  linear_ops(c, o);
  attention_ops(c, o);
  memory_ops(c, o);
}

/** Recomputation runs forwards again inside the backward pass: every op in the share of the
 * layers full recompute reruns (an average layer pays that share of a forward), the attention
 * core in every layer under selective. */
static void add_recompute(const ctx *c, layer_ops *o) {
  double full = full_recompute_share(c->job);
  bool selective = c->job->recompute == SCALE_RECOMPUTE_SELECTIVE;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) {
    bool attn_core = i == SCALE_STEP_OP_SCORES || i == SCALE_STEP_OP_SOFTMAX ||
                     i == SCALE_STEP_OP_VALUES;
    if (full > 0.0)
      o->all[i] += full * o->fwd[i];
    else if (selective && attn_core)
      o->all[i] += o->fwd[i];
  }
}

/* ---- networks ------------------------------------------------------------------------------- */

/** Network and ring bandwidth per member of a group of n chips 'stride' apart (Megatron rank
 * order: tp innermost, then cp, dp, pp). Inside one scale-up domain: the chip's NVLink egress
 * through the switches, or its share of the direct links of a full mesh.
 * Across domains, NCCL runs one ring per NIC (channels), so the g members a domain holds share
 * their g NICs and a ring sees min(NVLink, g x NIC) (g = 8 for a full DGX: 8 x 25 GB/s on A100,
 * the "busbw" of multi-node all-reduce). */
scale_step_net scale_step_group_net(const scale_chip *chip, double stride, double n, double *w) {
  if (chip->kind == SCALE_HW_TPU) {
    *w = 2 * chip->ici_link_bytes_per_s; /* a bidirectional ring on one axis */
    return SCALE_STEP_NET_ICI;
  }
  double domain = chip->nvlink_domain_size;
  if (domain >= 1 && stride * n <= domain) {
    *w = chip->nvlink_bytes_per_s;
    /* without switches (no n_nvswitches: Ascend HCCS) the domain is a full mesh of direct
     * links, and a group of n reaches its peers over only n - 1 of the domain - 1 links */
    if (chip->n_nvswitches >= 1 || domain <= 1) return SCALE_STEP_NET_UP;
    *w *= (n - 1) / (domain - 1);
    return SCALE_STEP_NET_MESH;
  }
  double per_domain = domain >= 1 ? fmax(1.0, fmin(n, floor(domain / stride))) : 1.0;
  *w = per_domain * chip->dcn_bytes_per_s;
  if (chip->nvlink_bytes_per_s > 0) *w = fmin(*w, chip->nvlink_bytes_per_s);
  return SCALE_STEP_NET_OUT;
}

/** Network and bandwidth of communication 'comm' over a group of n, 'stride' apart: the
 * caller's mapping when the job has one, else Megatron's rank order. */
static scale_step_net comm_net(const scale_step_job *j, scale_step_comm comm, double stride,
                               double n, double *w) {
  if (j->mapped) {
    *w = j->link[comm].bytes_per_s;
    return j->link[comm].net;
  }
  return scale_step_group_net(j->chip, stride, n, w);
}

/** Bandwidth of one point-to-point send on 'net': a mesh sends over one direct link. */
static double send_bytes_per_s(const scale_chip *chip, scale_step_net net, double w) {
  if (net != SCALE_STEP_NET_MESH) return w;
  return chip->nvlink_bytes_per_s / (chip->nvlink_domain_size - 1);
}

/** Torus axes the group of communication 'comm' spans (the caller's mapping; else one). */
static double comm_axes(const scale_step_job *j, scale_step_comm comm) {
  return j->mapped && j->link[comm].n_axes >= 1 ? j->link[comm].n_axes : 1;
}

/** One collective of communication 'comm' over its group, one ring per torus axis it spans. */
static double group_coll_s(const ctx *c, scale_step_comm comm, scale_step_net net, double w,
                           scale_collective op, double n, double bytes) {
  return scale_step_torus_collective_s(c->p, net, w, op, n, comm_axes(c->job, comm), bytes);
}

/* ---- communication and overlap of one layer ------------------------------------------------- */

/** Communication of one layer per microbatch: time and exposed time per comm. */
typedef struct {
  double time[SCALE_STEP_COMM_COUNT];
  double exposed[SCALE_STEP_COMM_COUNT];
} layer_comms;

static double sum_ops(const double *t, int from, int to) {
  double s = 0;
  for (int i = from; i <= to; i++) s += t[i];
  return s;
}

/** Exposed part of the backward's two TP all-reduces ('ar' each): each is the input gradient
 * of a column-parallel linear (QKV, MLP up), which Megatron launches asynchronously and
 * overlaps with that linear's weight-gradient GEMM (async_tensor_model_parallel_allreduce,
 * on by default in Megatron-LM since 2021 and in the frameworks built on it: Megatron-
 * DeepSpeed, NeMo, MindSpeed; with SP the reduce-scatter that replaces it likewise), so only
 * what outlasts that GEMM stays on the critical path. */
static double tp_backward_exposed_s(const layer_ops *o, double ar) {
  return fmax(0, ar - o->wgrad[0]) + fmax(0, ar - o->wgrad[1]);
}

/** One dispatch (or combine) of 'bytes' a rank over the ep group on a GPU with switches: each
 * rank sends 1/ep of its copies to every peer at once (NCCL's all-to-all, DeepEP), not round
 * a ring: the g peers in its scale-up domain over NVLink, the ep - g others over its own NIC
 * (every GPU of a node sends its share through its own NIC: no aggregation over the domain's
 * NICs as a ring gets), the two at once; one latency each. Elsewhere (a switchless mesh, a
 * TPU torus) the ring all-to-all of group_coll_s(). Sets the EP network in r. */
static double ep_all_to_all_s(const ctx *c, scale_step_result *r, double w, double bytes) {
  const scale_step_job *j = c->job;
  const scale_chip *chip = j->chip;
  double domain = chip->nvlink_domain_size, ep = j->ep;
  if (chip->kind == SCALE_HW_TPU || !(chip->n_nvswitches >= 1) || !(domain >= 1))
    return group_coll_s(c, SCALE_STEP_COMM_EP, r->net[SCALE_STEP_COMM_EP], w,
                        SCALE_COLL_ALL_TO_ALL, ep, bytes);
  double g = fmax(1, fmin(ep, floor(domain / c->etp)));
  double in = bytes * (g - 1) / ep, out = bytes * (ep - g) / ep, peer = bytes / ep;
  const scale_step_params *p = c->p;
  double t_in = in > 0 ? p->v[SCALE_STEP_UP_LATENCY_S] +
                             in / achieved_bytes_per_s(p, SCALE_STEP_NET_UP,
                                                       chip->nvlink_bytes_per_s, peer)
                       : 0;
  double t_out = out > 0 ? p->v[SCALE_STEP_OUT_LATENCY_S] +
                               out / achieved_bytes_per_s(p, SCALE_STEP_NET_OUT,
                                                          chip->dcn_bytes_per_s, peer)
                         : 0;
  r->net[SCALE_STEP_COMM_EP] = out > 0 ? SCALE_STEP_NET_OUT : SCALE_STEP_NET_UP;
  return fmax(t_in, t_out);
}

static void layer_comm_times(const ctx *c, const layer_ops *o, scale_step_result *r,
                             layer_comms *lc) {
  const scale_step_job *j = c->job;
  memset(lc, 0, sizeof *lc);
  double w;
  double matmul_all = sum_ops(o->all, SCALE_STEP_OP_QKV, SCALE_STEP_OP_MLP_DOWN);
  double layer_all = sum_ops(o->all, SCALE_STEP_OP_QKV, SCALE_STEP_OP_FP8_CAST);

  /* TP: 2 all-reduces forward, 2 backward, 2 more in the layers full recompute reruns */
  r->net[SCALE_STEP_COMM_TP] = comm_net(j, SCALE_STEP_COMM_TP, 1, j->tp, &w);
  double n_ar = 4 + 2 * full_recompute_share(j);
  double ar = group_coll_s(c, SCALE_STEP_COMM_TP, r->net[SCALE_STEP_COMM_TP], w,
                           SCALE_COLL_ALL_REDUCE, j->tp, c->t * c->d * c->act_bytes);
  lc->time[SCALE_STEP_COMM_TP] = n_ar * ar;
  /* XLA on a TPU always overlaps them: its async collectives run beside the layer's matmuls
   * (what the MaxText rows of measurements/maxtext-tpu.tsv need: appendix 14) */
  bool overlap = j->tp_overlap || j->chip->kind == SCALE_HW_TPU;
  /* a schedule that defers the weight-gradient GEMMs (zero bubble, DualPipe) leaves the
   * backward's all-reduces nothing to hide under */
  bool split = j->pp > 1 && scale_pipeline_splits_backward(j->schedule);
  lc->exposed[SCALE_STEP_COMM_TP] =
      overlap ? fmax(0, lc->time[SCALE_STEP_COMM_TP] - matmul_all)
              : (n_ar - 2) * ar + (split ? 2 * ar : tp_backward_exposed_s(o, ar));

  /* CP ring: cp - 1 passes of this rank's K and V forward, of K, V and their gradients
   * backward (on a mesh, at once over cp - 1 links); hidden under the attention core as far
   * as it lasts. Ulysses: all-to-alls of
   * Q, K, V and the output forward and backward, on the critical path. */
  r->net[SCALE_STEP_COMM_CP] = comm_net(j, SCALE_STEP_COMM_CP, j->tp, j->cp, &w);
  if (j->cp > 1 && j->ulysses) {
    double qkvo = c->t * (2 * c->n_h + 2 * c->k_h) * c->h * c->act_bytes * j->cp;
    double a2a = 2 * group_coll_s(c, SCALE_STEP_COMM_CP, r->net[SCALE_STEP_COMM_CP], w,
                                  SCALE_COLL_ALL_TO_ALL, j->cp, qkvo);
    lc->time[SCALE_STEP_COMM_CP] = lc->exposed[SCALE_STEP_COMM_CP] = a2a;
  } else if (j->cp > 1 && j->cp_allgather) {
    /* all-gather CP: the attention waits for the whole sequence's K and V (no overlap is
     * priced: nothing measured one), and the backward reduce-scatters dK and dV; the layers
     * full recompute reruns gather again */
    double kv_all = c->t * 2 * c->k_h * c->h * c->act_bytes * j->cp;
    scale_step_net net = r->net[SCALE_STEP_COMM_CP];
    double gather = group_coll_s(c, SCALE_STEP_COMM_CP, net, w, SCALE_COLL_ALL_GATHER, j->cp,
                                 kv_all);
    double scatter = group_coll_s(c, SCALE_STEP_COMM_CP, net, w, SCALE_COLL_REDUCE_SCATTER,
                                  j->cp, kv_all);
    double t = (1 + full_recompute_share(j)) * gather + scatter;
    lc->time[SCALE_STEP_COMM_CP] = lc->exposed[SCALE_STEP_COMM_CP] = t;
  } else {
    double kv = c->t * 2 * c->k_h * c->h * c->act_bytes;
    scale_step_net net = r->net[SCALE_STEP_COMM_CP];
    double pass = scale_step_send_s(c->p, net, send_bytes_per_s(j->chip, net, w), kv);
    double ring = j->cp > 1 ? (j->cp - 1) * pass * 3 : 0;
    /* on a full mesh the cp - 1 blocks reach each rank over as many direct links at once:
     * the passes do not queue behind one another, and the ring costs one all-gather */
    if (j->cp > 1 && net == SCALE_STEP_NET_MESH)
      ring = 3 * scale_step_collective_s(c->p, net, w, SCALE_COLL_ALL_GATHER, j->cp, j->cp * kv);
    double attn = o->all[SCALE_STEP_OP_SCORES] + o->all[SCALE_STEP_OP_VALUES];
    lc->time[SCALE_STEP_COMM_CP] = ring;
    lc->exposed[SCALE_STEP_COMM_CP] = fmax(0, ring - attn);
  }

  /* ZeRO-3: gather the layer's weights forward and backward, reduce-scatter its gradients;
   * prefetched under the previous layer's compute */
  double layer_bytes = c->layer_weight_params / j->tp * c->act_bytes;
  double n_fsdp = j->fsdp >= 1 ? j->fsdp : j->dp;
  r->net[SCALE_STEP_COMM_FSDP] = comm_net(j, SCALE_STEP_COMM_FSDP, j->tp * j->cp, n_fsdp, &w);
  double fsdp = j->zero == 3
                    ? 2 * group_coll_s(c, SCALE_STEP_COMM_FSDP, r->net[SCALE_STEP_COMM_FSDP], w,
                                       SCALE_COLL_ALL_GATHER, n_fsdp, layer_bytes) +
                          group_coll_s(c, SCALE_STEP_COMM_FSDP, r->net[SCALE_STEP_COMM_FSDP], w,
                                       SCALE_COLL_REDUCE_SCATTER, n_fsdp, layer_bytes)
                    : 0;
  lc->time[SCALE_STEP_COMM_FSDP] = fsdp;
  lc->exposed[SCALE_STEP_COMM_FSDP] = fmax(0, fsdp - layer_all);

  /* EP: dispatch and combine of the rank's routed copies, forward and backward (and the
   * forward's again under full recompute), over the ep ranks etp apart (the expert grid is
   * ETP innermost); in the MoE layers only. ep_exposed_frac of it stays on the critical
   * path: 1 for a synchronous dispatcher, less where the framework overlaps dispatch with
   * another microbatch's compute (Megatron-Core's EP a2a overlap, DeepEP); fitted to the
   * Megatron-Bridge groups */
  r->net[SCALE_STEP_COMM_EP] = comm_net(j, SCALE_STEP_COMM_EP, c->etp, j->ep, &w);
  double n_a2a = 4 + 2 * full_recompute_share(j);
  double a2a = j->ep > 1 && c->moe_frac > 0
                   ? c->moe_frac * n_a2a * ep_all_to_all_s(c, r, w, c->routed * c->d * c->act_bytes)
                   : 0;
  lc->time[SCALE_STEP_COMM_EP] = a2a;
  /* DualPipe pairs one microbatch's forward chunk with another's backward chunk, each one's
   * all-to-alls under the other's compute (DeepSeek-V3 section 3.2.1): hidden as far as the
   * layer's compute lasts */
  bool dual = j->pp > 1 && j->schedule == SCALE_PP_DUALPIPE;
  lc->exposed[SCALE_STEP_COMM_EP] =
      dual ? fmax(0, a2a - layer_all) : a2a * c->p->v[SCALE_STEP_EP_EXPOSED_FRAC];
}

/* ---- the step ------------------------------------------------------------------------------- */

static double mlp_width(const scale_model *m) {
  if (!scale_model_is_moe(m)) return (double)m->d_ff;
  return (double)(m->n_experts_active + m->n_shared_experts) * (double)m->d_ff_expert;
}

/** The model's counts, computed once per cache binding (or per evaluation without a cache). */
static void model_counts(const scale_model *m, double *n_params, double *n_active,
                         double *layer_weight) {
  *n_params = scale_transformer_n_params(m);
  *n_active = scale_transformer_n_active_params(m);
  /* an average layer: every parameter but the embeddings, over the layers (MoE experts
   * included; n_mlp_params() is one dense layer's MLP already, not the model's) */
  *layer_weight = (*n_params - scale_transformer_n_embedding_params(m)) / (double)m->n_layers;
}

/** The expert grid of a MoE job (Megatron-Core's parallel folding): etp divides tp, ep
 * divides the stage's tp cp dp ranks over etp; each rank routes t etp / tp tokens to k of the
 * E experts, which the balanced load (or the capacity factor) spreads evenly over the ep
 * ranks' E / ep experts. False outside that domain. */
static bool moe_grid(const scale_step_job *j, ctx *c) {
  const scale_model *m = j->model;
  double e = (double)m->n_experts, k = (double)m->n_experts_active;
  double etp = j->etp >= 1 ? j->etp : 1, cf = j->capacity_factor > 0 ? j->capacity_factor : 1;
  if (!scale_fmod_zero(j->tp, etp) || !scale_fmod_zero(e, j->ep) ||
      !scale_fmod_zero(j->tp * j->cp * j->dp, etp * j->ep) || !(j->capacity_factor >= 0))
    return false;
  c->moe_frac = (double)(m->n_layers - m->n_dense_layers) / (double)m->n_layers;
  c->etp = etp;
  c->t_moe = c->t * etp / j->tp;
  c->e_local = e / j->ep;
  c->routed = c->t_moe * k * cf;
  c->t_expert = c->routed * j->ep / e;
  c->f_expert = (double)m->d_ff_expert / etp;
  double gate = m->gated_mlp ? 3 : 2;
  c->expert_params = (double)(m->n_layers - m->n_dense_layers) * e * gate * c->d *
                     (double)m->d_ff_expert;
  return true;
}

static bool make_ctx(const scale_step_job *j, const scale_step_params *p, ctx *c) {
  const scale_model *m = j->model;
  if (!m || !j->chip || m->arch != SCALE_ARCH_TRANSFORMER || !(j->dp >= 1 && j->tp >= 1 &&
      j->pp >= 1 && j->cp >= 1 && j->ep >= 1 && j->mbs >= 1 && j->vp >= 1 && j->gbs >= 1 &&
      j->seq >= 1))
    return false;
  memset(c, 0, sizeof *c);
  c->job = j;
  c->p = p;
  c->c_linear = linear_peak(j, p);
  c->c_attn = scale_chip_flops_per_s(j->chip, quantized(j->dtype) ? SCALE_DTYPE_BF16 : j->dtype);
  if (!(c->c_attn > 0)) c->c_attn = scale_chip_flops_per_s(j->chip, SCALE_DTYPE_FP16);
  c->w_hbm = j->chip->hbm_bytes_per_s;
  c->t = j->mbs * j->seq / j->cp;
  c->t_sp = j->sp ? c->t / j->tp : c->t;
  c->n_h = (double)m->n_heads / j->tp;
  c->k_h = fmax(1.0, (double)m->n_kv_heads / j->tp);
  c->d = (double)m->d_model;
  c->h = (double)m->d_head;
  double f = mlp_width(m) / j->tp;
  c->f_in = m->gated_mlp ? 2 * f : f;
  c->f_out = f;
  c->act_bytes = 2;
  if (scale_model_is_moe(m)) return moe_grid(j, c) && c->c_linear > 0 && c->w_hbm > 0;
  return c->c_linear > 0 && c->w_hbm > 0;
}

/** Embedding, unembedding and loss of one microbatch (the pipeline's end stages). */
static void head_ops(const ctx *c, double *op) {
  const scale_model *m = c->job->model;
  double v = (double)m->n_vocab / c->job->tp, fwd = 0;
  op[SCALE_STEP_OP_EMBEDDING] = memory_s(c, c->t * c->d * (c->act_bytes + 4), 2);
  double wgrad = 0;
  op[SCALE_STEP_OP_UNEMBEDDING] = linear_fwd_bwd_s(c, c->t, c->d, v, &fwd, &wgrad);
  op[SCALE_STEP_OP_LOSS] = memory_s(c, c->t * v * 4 * 4, 3);
}

/** Parameters held by one chip (its TP shard of its pipeline stage). */
static double chip_params(const ctx *c) {
  /* DualPipe's ranks hold two stages, each trained (pipeline.h) */
  double copies = c->job->pp > 1 ? scale_pipeline_param_copies(c->job->schedule) : 1;
  return copies * (c->n_params - c->expert_params) / (c->job->tp * c->job->pp);
}

/** Routed-expert parameters held by one chip: E / ep experts of each MoE layer of its stage,
 * 1 / etp of each (0 for a dense model). */
static double chip_expert_params(const ctx *c) {
  if (!(c->expert_params > 0)) return 0;
  double copies = c->job->pp > 1 ? scale_pipeline_param_copies(c->job->schedule) : 1;
  return copies * c->expert_params / (c->job->ep * c->etp * c->job->pp);
}

/** Gradient traffic of one bucketed collective: all buckets of 'bytes' over n [s], and the
 * last bucket's share into *tail. */
static double bucketed_s(const ctx *c, scale_step_comm comm, scale_step_net net, double w,
                         scale_collective op, double n, double bytes, double *tail) {
  if (n <= 1 || bytes <= 0) {
    *tail = 0;
    return 0;
  }
  /* the same gradients recur over a search's policies (ZeRO stage, remat, microbatches):
   * a pure function of these inputs, so the cache's entry is bit-identical */
  scale_step_cache *k = c->cache;
  const double key[SCALE_STEP_BUCKET_KEY] = {(double)comm, (double)net, w, (double)op, n, bytes,
                                             comm_axes(c->job, comm)};
  if (k)
    for (int i = 0; i < k->n_buckets; i++)
      if (memcmp(k->bucket_key[i], key, sizeof key) == 0) {
        *tail = k->bucket_tail_s[i];
        return k->bucket_s[i];
      }
  double n_buckets = ceil(bytes / GRAD_BUCKET_BYTES);
  double last = bytes - (n_buckets - 1) * GRAD_BUCKET_BYTES;
  double full = group_coll_s(c, comm, net, w, op, n, GRAD_BUCKET_BYTES);
  *tail = group_coll_s(c, comm, net, w, op, n, last);
  double total = (n_buckets - 1) * full + *tail;
  if (k) {
    int i = k->n_buckets < SCALE_STEP_BUCKET_SLOTS ? k->n_buckets++ : k->next_bucket;
    k->next_bucket = (i + 1) % SCALE_STEP_BUCKET_SLOTS;
    memcpy(k->bucket_key[i], key, sizeof key);
    k->bucket_s[i] = total;
    k->bucket_tail_s[i] = *tail;
  }
  return total;
}

/** The ZeRO group of a job: the fsdp degree, or all of dp x cp (Megatron) when unset. */
static double shard_group(const scale_step_job *j) {
  if (j->zero < 1) return 1;
  return j->fsdp >= 1 ? j->fsdp : j->dp * j->cp;
}

/** DP gradient traffic after the last microbatch: bucketed under its backward, except the
 * last bucket. ZeRO-1/2 reduce-scatter over their group and gather the updated weights after
 * the optimizer (exposed); the replicas of a hybrid-sharded group (dp x cp over the ZeRO
 * group) all-reduce their shard of the gradients, bucketed too. */
/** The expert data-parallel group of a MoE job: the stage's tp cp dp ranks over the etp x ep
 * expert grid (1 for a dense model). */
static double expert_dp(const ctx *c) {
  const scale_step_job *j = c->job;
  return c->expert_params > 0 ? j->dp * j->cp * j->tp / (j->ep * c->etp) : 1;
}

/** The routed experts' gradients: all-reduced (ZeRO-0) or reduce-scattered and their weights
 * gathered again (ZeRO-1/2/3, the distributed optimizer's expert group) over the expert
 * data-parallel group, etp ep ranks apart; bucketed as the dense gradients are. Adds to
 * *total, *tail, *gather. */
static void expert_dp_comm(const ctx *c, double *total, double *tail, double *gather) {
  const scale_step_job *j = c->job;
  double n = expert_dp(c), w, t = 0;
  if (n <= 1) return;
  scale_step_net net = j->mapped ? (w = j->link[SCALE_STEP_COMM_DP].bytes_per_s,
                                    j->link[SCALE_STEP_COMM_DP].net)
                                 : scale_step_group_net(j->chip, c->etp * j->ep, n, &w);
  double grads = chip_expert_params(c) * c->act_bytes;
  scale_collective op = j->zero >= 1 ? SCALE_COLL_REDUCE_SCATTER : SCALE_COLL_ALL_REDUCE;
  *total += bucketed_s(c, SCALE_STEP_COMM_DP, net, w, op, n, grads, &t);
  *tail += t;
  if (j->zero >= 1)
    *gather += group_coll_s(c, SCALE_STEP_COMM_DP, net, w, SCALE_COLL_ALL_GATHER, n, grads);
}

static void dp_comm(const ctx *c, double bwd_window, scale_step_result *r) {
  const scale_step_job *j = c->job;
  double n = j->dp * j->cp, w, w_shard = 0;
  r->net[SCALE_STEP_COMM_DP] = comm_net(j, SCALE_STEP_COMM_DP, j->tp, n, &w);
  double total = 0, tail = 0, gather = 0, t;
  expert_dp_comm(c, &total, &tail, &gather);
  if (n <= 1) {
    r->comm_s[SCALE_STEP_COMM_DP] = total + gather;
    r->exposed_s[SCALE_STEP_COMM_DP] = (total > 0 ? fmax(tail, total - bwd_window) : 0) + gather;
    return;
  }
  double s = shard_group(j), rep = n / s;
  /* the ZeRO group's network: its own link when mapped; Megatron's group is all of dp */
  scale_step_net shard_net = j->mapped ? j->link[SCALE_STEP_COMM_FSDP].net
                                       : r->net[SCALE_STEP_COMM_DP];
  w_shard = j->mapped ? j->link[SCALE_STEP_COMM_FSDP].bytes_per_s : w;
  double grads = chip_params(c) * c->act_bytes;
  if (j->zero == 1 || j->zero == 2) {
    scale_step_comm sc = j->mapped ? SCALE_STEP_COMM_FSDP : SCALE_STEP_COMM_DP;
    total += bucketed_s(c, sc, shard_net, w_shard, SCALE_COLL_REDUCE_SCATTER, s, grads, &t);
    tail = fmax(tail, t);
    gather += group_coll_s(c, sc, shard_net, w_shard, SCALE_COLL_ALL_GATHER, s, grads);
  }
  if (j->zero == 0 || rep > 1) {
    double shard = j->zero >= 1 ? grads / s : grads;
    total += bucketed_s(c, SCALE_STEP_COMM_DP, r->net[SCALE_STEP_COMM_DP], w,
                        SCALE_COLL_ALL_REDUCE, j->zero == 0 ? n : rep, shard, &t);
    tail += t;
  }
  r->comm_s[SCALE_STEP_COMM_DP] = total + gather;
  r->exposed_s[SCALE_STEP_COMM_DP] = (total > 0 ? fmax(tail, total - bwd_window) : 0) + gather;
}

/** One pipeline send of a microbatch's activations (or their gradients) between stages, as
 * Megatron runs it (scatter/gather, Narayanan et al. 2021 sec. 4.1, on by default): each of
 * the tp ranks sends its 1/tp of the t x d tensor over its own link, and without SP the
 * receiving stage all-gathers it over its TP group (with SP the stage starts from the
 * sharded residual stream and needs no gather). Sets the PP network in r. */
static double pp_send_s(const ctx *c, scale_step_result *r) {
  const scale_step_job *j = c->job;
  double w, w_tp, bytes = c->t * c->d * c->act_bytes;
  scale_step_net net = comm_net(j, SCALE_STEP_COMM_PP, j->tp * j->cp * j->dp, j->pp, &w);
  r->net[SCALE_STEP_COMM_PP] = net;
  double t = scale_step_send_s(c->p, net, send_bytes_per_s(j->chip, net, w), bytes / j->tp);
  if (j->sp || j->tp <= 1) return t;
  scale_step_net tp_net = comm_net(j, SCALE_STEP_COMM_TP, 1, j->tp, &w_tp);
  return t + group_coll_s(c, SCALE_STEP_COMM_TP, tp_net, w_tp, SCALE_COLL_ALL_GATHER, j->tp, bytes);
}

static double model_flops(const ctx *c) {
  const scale_step_job *j = c->job;
  const scale_model *m = j->model;
  double tokens = j->gbs * j->seq;
  double attn = 6.0 * 2.0 * (double)m->n_layers * (double)m->n_heads * (double)m->d_head *
                j->seq * 0.5 * tokens; /* causal QK^T and PV, 3 passes */
  double local = (double)scale_model_n_local_layers(m);
  if (local > 0) { /* local layers: the pairs of their window (sliding or chunked) */
    double keys = scale_transformer_local_pairs(m, j->seq, j->seq, true) / j->seq;
    attn = 6.0 * 2.0 * (double)m->n_heads * (double)m->d_head * tokens *
           (((double)m->n_layers - local) * j->seq * 0.5 + local * keys);
  }
  return 6.0 * c->n_active_params * tokens + attn;
}

static void set_nan(scale_step_result *out) {
  double *f = (double *)out;
  for (size_t i = 0; i < sizeof *out / sizeof(double); i++) f[i] = NAN;
}

void scale_step_cache_init(scale_step_cache *cache) {
  cache->bound = false;
  cache->n_used = cache->next = cache->last = 0;
  cache->n_buckets = cache->next_bucket = 0;
}

/** Binds 'cache' to the job's model, chip, parameters, sequence, dtype and attention,
 * forgetting its entries if any of them changed. */
static void cache_bind(scale_step_cache *k, const scale_step_job *j, const scale_step_params *p) {
  if (k->bound && k->model == j->model && k->chip == j->chip && k->params == p &&
      k->seq == j->seq && k->dtype == (int)j->dtype && k->attention == (int)j->attention &&
      k->mtp == j->mtp)
    return;
  k->model = j->model;
  k->chip = j->chip;
  k->params = p;
  k->seq = j->seq;
  k->dtype = (int)j->dtype;
  k->attention = (int)j->attention;
  k->mtp = j->mtp;
  k->bound = true;
  k->n_used = k->next = k->last = 0;
  k->n_buckets = k->next_bucket = 0;
  model_counts(j->model, &k->n_params, &k->n_active_params, &k->layer_weight_params);
}

/** The MTP module (DeepSeek-V3) on the last stage, per depth: the projection M of [h; emb]
 * (2D -> D), one more layer's ops (the average layer's, its TP collectives not priced) and
 * another unembedding and loss. */
static void mtp_ops(const ctx *c, const layer_ops *lo, double *head) {
  double depth = c->job->mtp ? (double)c->job->model->n_mtp_layers : 0, fwd = 0, wgrad = 0;
  if (!(depth > 0)) return;
  double unembed = head[SCALE_STEP_OP_UNEMBEDDING], loss = head[SCALE_STEP_OP_LOSS];
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) head[i] += depth * lo->all[i];
  head[SCALE_STEP_OP_UNEMBEDDING] +=
      depth * (unembed + linear_fwd_bwd_s(c, c->t, 2 * c->d, c->d / c->job->tp, &fwd, &wgrad));
  head[SCALE_STEP_OP_LOSS] += depth * loss;
}

/** The recomputation and the MTP heads (which rerun a layer's ops) on top of the cached op
 * times of a shape. */
static void finish_ops(const ctx *c, layer_ops *lo, double *head) {
  add_recompute(c, lo);
  mtp_ops(c, lo, head);
}

/** A layer's and the stage ends' op times: from the cache when it holds this shape (every
 * remat policy shares one entry: recomputation is added after). */
static void ops_of(const ctx *c, scale_step_cache *k, layer_ops *lo, double *head) {
  const scale_step_job *j = c->job;
  const double key[SCALE_STEP_CACHE_KEY] = {
      j->tp, j->cp, j->mbs, j->sp ? 1.0 : 0.0, j->ep, j->etp, j->capacity_factor};
  if (k) {
    /* a search varies the shape slowly: the entry of the last lookup first */
    for (int n = 0; n < k->n_used; n++) {
      int i = n == 0 ? k->last : n - (n <= k->last);
      if (memcmp(k->key[i], key, sizeof key) == 0) {
        k->last = i;
        memcpy(lo->fwd, k->fwd[i], sizeof lo->fwd);
        memcpy(lo->all, k->all[i], sizeof lo->all);
        memcpy(lo->wgrad, k->wgrad[i], sizeof lo->wgrad);
        memcpy(head, k->head[i], sizeof k->head[i]);
        finish_ops(c, lo, head);
        return;
      }
    }
  }
  layer_op_times(c, lo);
  head_ops(c, head);
  if (!k) {
    finish_ops(c, lo, head);
    return;
  }
  int i = k->n_used < SCALE_STEP_CACHE_SLOTS ? k->n_used++ : k->next;
  k->next = (i + 1) % SCALE_STEP_CACHE_SLOTS;
  k->last = i;
  memcpy(k->key[i], key, sizeof key);
  memcpy(k->fwd[i], lo->fwd, sizeof lo->fwd);
  memcpy(k->all[i], lo->all, sizeof lo->all);
  memcpy(k->wgrad[i], lo->wgrad, sizeof lo->wgrad);
  memcpy(k->head[i], head, sizeof k->head[i]);
  finish_ops(c, lo, head);
}

void scale_step_eval(const scale_step_job *job, const scale_step_params *params,
                     scale_step_result *out) {
  scale_step_eval_cached(job, params, NULL, out);
}

/** The time the chip's scale-out NICs are busy: every communication that crosses the fabric
 * shares them (a ring over nodes runs one channel per NIC, so a TP or CP group across nodes
 * fills them all while it runs), and no overlap rule hides one of them under another. A
 * floor of the step, as the roofline sums the traffic of a shared link. */
static double scale_out_busy_s(const scale_step_result *r) {
  double busy = 0;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
    if (r->net[k] == SCALE_STEP_NET_OUT) busy += r->comm_s[k];
  return busy;
}

/** The job's schedule: plain 1F1B with virtual stages is the interleaved one. */
static scale_pp_schedule schedule_of(const scale_step_job *j) {
  return j->schedule == SCALE_PP_1F1B && j->vp > 1 ? SCALE_PP_INTERLEAVED : j->schedule;
}

/** The slowest stage: its layers (the return) and which of the ends' ops it runs (head_on,
 * 0 or 1 each). By default every stage holds L/pp layers and the priced one also runs the
 * embedding, unembedding and loss (exact without a pipeline). With the embedding and the
 * loss counted as a layer each (Megatron's account-for-embedding/loss-in-pipeline-split),
 * the L + 2 units split evenly: a middle stage runs U = (L+2)/pp layers, the last U - 1 and
 * the unembedding and loss, the first U - 1 and the embedding (never the slowest of the
 * two ends, the embedding being a lookup); the slower of the middle and the last sets the
 * pace. */
static double stage_of(const scale_step_job *j, const layer_ops *lo, const layer_comms *lc,
                       const double *head, double *head_on) {
  double layers = (double)j->model->n_layers / j->pp;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) head_on[i] = 1;
  if (!j->embed_loss_stages || j->pp <= 1) return layers;
  double layer = 0;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) layer += lo->all[i];
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) layer += lc->exposed[k];
  double units = ((double)j->model->n_layers + 2) / j->pp;
  double last = head[SCALE_STEP_OP_UNEMBEDDING] + head[SCALE_STEP_OP_LOSS];
  head_on[SCALE_STEP_OP_EMBEDDING] = 0;
  if (units * layer >= (units - 1) * layer + last) {
    head_on[SCALE_STEP_OP_UNEMBEDDING] = head_on[SCALE_STEP_OP_LOSS] = 0;
    return units;
  }
  return units - 1;
}

/* A transformer's step: its layer's ops, their costs, the overlap rules, the step. */
static void transformer_eval(const scale_step_job *job, const scale_step_params *params,
                             scale_step_cache *cache, scale_step_result *out) {
  ctx c;
  memset(out, 0, sizeof *out);
  if (!make_ctx(job, params, &c)) {
    set_nan(out);
    return;
  }
  if (cache) {
    cache_bind(cache, job, params);
    c.cache = cache;
    c.n_params = cache->n_params;
    c.n_active_params = cache->n_active_params;
    c.layer_weight_params = cache->layer_weight_params;
  } else {
    model_counts(job->model, &c.n_params, &c.n_active_params, &c.layer_weight_params);
  }
  layer_ops lo;
  layer_comms lc;
  double head[SCALE_STEP_OP_COUNT] = {0};
  ops_of(&c, cache, &lo, head);
  layer_comm_times(&c, &lo, out, &lc);

  double m = job->gbs / (job->dp * job->mbs);
  double head_on[SCALE_STEP_OP_COUNT];
  double layers = stage_of(job, &lo, &lc, head, head_on);
  out->microbatches = m;
  out->layers_per_stage = layers;

  /* one microbatch on the slowest stage: its layers, its ends, its sends */
  double mb = 0, fwd = 0, wgrad = 0, comm = 0;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) {
    double per_mb = layers * lo.all[i] + head_on[i] * head[i];
    out->op_s[i] = m * per_mb;
    mb += per_mb;
    fwd += layers * lo.fwd[i] + head_on[i] * head[i] / 3;
  }
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    out->comm_s[k] = m * layers * lc.time[k];
    out->exposed_s[k] = m * layers * lc.exposed[k];
    comm += layers * lc.exposed[k];
  }
  double send = job->pp > 1 ? 2 * job->vp * pp_send_s(&c, out) : 0;
  out->comm_s[SCALE_STEP_COMM_PP] = out->exposed_s[SCALE_STEP_COMM_PP] = m * send;
  comm += send;
  mb += comm;
  for (int i = 0; i < 4; i++) wgrad += layers * lo.wgrad[i];
  /* the unembedding's weight gradient: one of its three GEMMs of equal FLOPs */
  wgrad += head_on[SCALE_STEP_OP_UNEMBEDDING] * head[SCALE_STEP_OP_UNEMBEDDING] / 3;
  /* the F, B, W split of the stage (pipeline.h): the exposed communication half to the
   * forward and half to the input gradient, none to W (its GEMMs send nothing) */
  fwd += comm / 2;
  out->bubble_frac = 0;
  if (job->pp > 1) {
    scale_pp_schedule sched = schedule_of(job);
    out->bubble_frac =
        scale_pipeline_splits_backward(sched)
            ? scale_pipeline_bubble_split_frac(sched, job->pp, m, job->vp, fwd, mb - fwd - wgrad,
                                               wgrad)
            : scale_pipeline_bubble_frac(sched, job->pp, m, job->vp);
  }
  out->bubble_s = out->bubble_frac * m * mb;

  /* the last microbatch's backward is the window the DP buckets hide under */
  double bwd_window = (mb - layers * sum_ops(lo.fwd, 0, SCALE_STEP_OP_COUNT - 1)) ;
  dp_comm(&c, bwd_window, out);

  double opt_params = chip_params(&c) / shard_group(job) +
                      chip_expert_params(&c) / (job->zero >= 1 ? expert_dp(&c) : 1);
  out->op_s[SCALE_STEP_OP_OPTIMIZER] = memory_s(&c, opt_params * ADAM_BYTES_PER_PARAM, 4);
  out->optimizer_s = out->op_s[SCALE_STEP_OP_OPTIMIZER];
  out->overhead_s = params->v[SCALE_STEP_STEP_S];
  out->compute_s = sum_ops(out->op_s, 0, SCALE_STEP_OP_LOSS);
  out->step_s = m * mb + out->bubble_s + out->exposed_s[SCALE_STEP_COMM_DP] + out->optimizer_s +
                out->overhead_s;
  out->step_s = fmax(out->step_s, scale_out_busy_s(out));
  out->host_s = scale_step_cp_host_s(job, out->net[SCALE_STEP_COMM_CP], lc.time[SCALE_STEP_COMM_TP],
                                     params);
  out->step_s = fmax(out->step_s, out->host_s);
  out->model_flops = model_flops(&c);
  double chips = job->dp * job->tp * job->pp * job->cp;
  out->mfu = out->model_flops / (out->step_s * chips * c.c_linear);
}

/* ---- serving: one forward pass ---------------------------------------------------------- */

/** A matmul whose k x n operand has its own element size (weights, or the KV cache). A
 * skinny one (m below a tile: decode) runs as a bandwidth-bound GEMV-like kernel: its compute
 * is priced at the efficiency of a full tile of rows, and its bytes set the pace. */
static double matmul_ws_s(const ctx *c, double c_peak, double m, double n, double k, double batch,
                          double operand_bytes) {
  double flops = 2 * m * n * k * batch;
  double bytes = batch * (c->act_bytes * (m * k + m * n) + operand_bytes * k * n);
  double eta = scale_step_matmul_eta(c->job->chip, c->p, fmax(m, TILE), n, k, batch);
  double t_math = flops / (c_peak * eta);
  double t_mem = bytes / (c->w_hbm * c->p->v[SCALE_STEP_MEM_ETA]);
  return fmax(t_math, t_mem) + c->p->v[SCALE_STEP_KERNEL_S];
}

void scale_step_forward_eval(const scale_step_forward_job *f, const scale_step_params *params,
                             scale_step_forward_result *out) {
  memset(out, 0, sizeof *out);
  scale_step_job j;
  memset(&j, 0, sizeof j);
  ctx c;
  bool ok = f && params && f->model && f->chip && f->batch >= 1 && f->new_tokens >= 1 &&
            f->context >= f->new_tokens && f->tp >= 1;
  if (ok) {
    j.model = f->model, j.chip = f->chip, j.dp = j.pp = j.cp = j.ep = j.vp = 1;
    j.tp = f->tp, j.mbs = f->batch, j.gbs = f->batch, j.seq = f->new_tokens;
    j.dtype = f->dtype, j.attention = SCALE_ATTENTION_FLASH;
    ok = make_ctx(&j, params, &c) && f->model->n_layers >= 1;
  }
  double wb = ok ? scale_dtype_bytes(f->weight_dtype) : (double)NAN;
  double kb = ok ? scale_dtype_bytes(f->kv_dtype) : (double)NAN;
  if (!ok || !(wb > 0) || !(kb > 0)) {
    for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) out->op_s[i] = NAN;
    out->tp_s = out->step_s = NAN;
    return;
  }
  const scale_model *m = f->model;
  double t = c.t, layers = (double)m->n_layers, op[SCALE_STEP_OP_COUNT] = {0};
  /* linear layers: weights read once per pass; routed experts of a MoE read the weights of
   * as many experts as the tokens reach */
  double mlp_wb = wb;
  if (scale_model_is_moe(m) && m->n_experts_active > 0) {
    double k_act = (double)m->n_experts_active;
    mlp_wb = wb * fmax(1.0, fmin((double)m->n_experts, t * k_act) / k_act);
  }
  double qkv_out = (c.n_h + 2 * c.k_h) * c.h;
  op[SCALE_STEP_OP_QKV] = matmul_ws_s(&c, c.c_linear, t, qkv_out, c.d, 1, wb);
  op[SCALE_STEP_OP_OUT_PROJ] = matmul_ws_s(&c, c.c_linear, t, c.d, c.n_h * c.h, 1, wb);
  op[SCALE_STEP_OP_MLP_UP] = matmul_ws_s(&c, c.c_linear, t, c.f_in, c.d, 1, mlp_wb);
  op[SCALE_STEP_OP_MLP_DOWN] = matmul_ws_s(&c, c.c_linear, t, c.d, c.f_out, 1, mlp_wb);
  /* attention grouped by KV head: the g query heads of a group share its K and V */
  double g = c.n_h / c.k_h, skv = f->context - (f->new_tokens - 1) / 2;
  op[SCALE_STEP_OP_SCORES] =
      matmul_ws_s(&c, c.c_attn, f->new_tokens * g, skv, c.h, f->batch * c.k_h, kb);
  op[SCALE_STEP_OP_VALUES] =
      matmul_ws_s(&c, c.c_attn, f->new_tokens * g, c.h, skv, f->batch * c.k_h, kb);
  double local = (double)scale_model_n_local_layers(m);
  if (local > 0) { /* local layers read and multiply only their window's keys */
    double lk = scale_transformer_local_pairs(m, f->new_tokens, f->context, true) / f->new_tokens;
    double ls = matmul_ws_s(&c, c.c_attn, f->new_tokens * g, lk, c.h, f->batch * c.k_h, kb);
    double lv = matmul_ws_s(&c, c.c_attn, f->new_tokens * g, c.h, lk, f->batch * c.k_h, kb);
    op[SCALE_STEP_OP_SCORES] = ((layers - local) * op[SCALE_STEP_OP_SCORES] + local * ls) / layers;
    op[SCALE_STEP_OP_VALUES] = ((layers - local) * op[SCALE_STEP_OP_VALUES] + local * lv) / layers;
  }
  layer_ops lo;
  memset(&lo, 0, sizeof lo);
  memory_ops(&c, &lo);
  for (int i = SCALE_STEP_OP_NORMS; i <= SCALE_STEP_OP_RESIDUAL; i++) op[i] = lo.fwd[i];
  /* the KV cache the pass writes */
  op[SCALE_STEP_OP_ROTARY] += memory_s(&c, t * 2 * c.k_h * c.h * kb, 1);
  for (int i = 0; i <= SCALE_STEP_OP_FP8_CAST; i++) out->op_s[i] = layers * op[i];
  out->op_s[SCALE_STEP_OP_EMBEDDING] = memory_s(&c, t * c.d * c.act_bytes, 1);
  out->op_s[SCALE_STEP_OP_UNEMBEDDING] =
      matmul_ws_s(&c, c.c_linear, f->batch, (double)m->n_vocab / f->tp, c.d, 1, wb);
  double w;
  out->tp_net = scale_step_group_net(f->chip, 1, f->tp, &w);
  out->tp_s = layers * 2 *
              scale_step_collective_s(params, out->tp_net, w, SCALE_COLL_ALL_REDUCE, f->tp,
                                      t * c.d * c.act_bytes);
  out->step_s = out->tp_s;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) out->step_s += out->op_s[i];
}

double scale_step_cp_layer_microbatches(const scale_step_job *job) {
  if (!job || !job->model || !(job->model->n_layers >= 1) || !(job->dp >= 1) ||
      !(job->pp >= 1) || !(job->cp >= 1) || !(job->mbs >= 1) || !(job->gbs > 0))
    return NAN;
  double m = job->gbs / (job->dp * job->mbs);
  return scale_pipeline_layer_slots((double)job->model->n_layers, job->pp, m);
}

/* [listing:cp_host_step] */
double scale_step_cp_host_s(const scale_step_job *job, scale_step_net cp_net, double tp_layer_s,
                            const scale_step_params *params) {
  double n = scale_step_cp_layer_microbatches(job);
  if (!params || !isfinite(n) || !(tp_layer_s >= 0)) return NAN;
  double host = params->v[SCALE_STEP_MESH_CP_HOST_S];
  if (job->cp <= 1 || cp_net != SCALE_STEP_NET_MESH || !(host > 0)) return 0;
  /* the host waits at each CP exchange, so the layer's TP collectives start on an empty
   * queue: their time joins the host's instead of running under its next launches */
  return n * (host + tp_layer_s);
}
/* [/listing:cp_host_step] */

/* The one place the step model dispatches on the architecture. */
void scale_step_eval_cached(const scale_step_job *job, const scale_step_params *params,
                            scale_step_cache *cache, scale_step_result *out) {
  if (job && job->model && job->model->arch == SCALE_ARCH_MAMBA2)
    scale_step_mamba2_result(job, params, out);
  else
    transformer_eval(job, params, cache, out);
}

double scale_step_time_s(const scale_step_job *job, const scale_step_params *params) {
  scale_step_result r;
  scale_step_eval(job, params, &r);
  return r.step_s;
}

/* ---- Mamba-2 layers ------------------------------------------------------------------------ */

/* The helpers of the Mamba-2 layers. */
static double n64(int64_t v) { return (double)v; }

/** A degree: finite and >= 1. */
static bool degree_ok(double x) { return isfinite(x) && x >= 1.0; }

static bool mamba_model(const scale_model *m) {
  return m && m->arch == SCALE_ARCH_MAMBA2 && m->ssm_n_heads > 0 && m->ssm_d_head > 0 &&
         m->ssm_d_state > 0 && m->ssm_chunk_size > 0;
}

/** Forward + backward time of a (T x n x k) matmul: 3 x 2 T n k FLOPs at its efficiency. */
static double mamba_mm_s(const scale_step_job *j, const scale_step_params *p, double t, double n,
                   double k, double peak) {
  double eta = scale_step_matmul_eta(j->chip, p, t, n, k, 1.0);
  return 3.0 * 2.0 * t * n * k / (peak * eta) + 3.0 * p->v[SCALE_STEP_KERNEL_S];
}

/** Gradient traffic of a bucketed collective 'op' of 'bytes' over n ranks [s]: full buckets of
 * GRAD_BUCKET_BYTES and the remainder, whose time goes into *tail. */
static double mamba_buckets_s(const scale_step_params *p, scale_step_net net, double w,
                        scale_collective op, double n, double bytes, double *tail) {
  *tail = 0.0;
  if (n <= 1.0 || bytes <= 0.0) return 0.0;
  double n_buckets = ceil(bytes / GRAD_BUCKET_BYTES);
  double last = bytes - (n_buckets - 1.0) * GRAD_BUCKET_BYTES;
  *tail = scale_step_collective_s(p, net, w, op, n, last);
  return (n_buckets - 1.0) * scale_step_collective_s(p, net, w, op, n, GRAD_BUCKET_BYTES) + *tail;
}

/** Every field NaN: the answer outside the domain. */
static scale_step_mamba2 mamba_nan(void) {
  double x = NAN;
  return (scale_step_mamba2){.microbatches = x,
                                    .gemm_s = x,
                                    .ssd_s = x,
                                    .vector_s = x,
                                    .tp_s = x,
                                    .cp_s = x,
                                    .pp_s = x,
                                    .bubble_s = x,
                                    .dp_s = x,
                                    .dp_exposed_s = x,
                                    .fsdp_s = x,
                                    .fsdp_exposed_s = x,
                                    .optimizer_s = x,
                                    .unembed_s = x,
                                    .loss_s = x,
                                    .recompute_s = x,
                                    .step_s = x,
                                    .mfu = x};
}

/* [listing:mamba_step] */
/** One Mamba-2 layer's costs for one microbatch, forward and backward [s]. */
typedef struct {
  double gemm, ssd, vector_fwd, vector; /**< projections, SSD matmuls, memory-bound work */
  double tp, cp;                        /**< TP AllReduces, CP states and halo */
  double fsdp, fsdp_exposed;            /**< ZeRO-3 gathers and scatters, the part left bare */
  double redo;                          /**< full recomputation's second forward */
} mamba_layer;

/* The layer's costs on T = mbs s / cp tokens of a tp share (scale_step_mamba2_eval()). */
static void mamba_layer_costs(const scale_step_job *job, const scale_step_params *params,
                              double peak, double w_hbm, mamba_layer *o) {
  const scale_model *m = job->model;
  double tp = job->tp, cp = job->cp, dp = job->dp;
  double kernel = params->v[SCALE_STEP_KERNEL_S];
  double d = n64(m->d_model), inner = n64(scale_model_ssm_d_inner(m));
  double gn = n64(m->ssm_n_groups) * n64(m->ssm_d_state), l = n64(m->ssm_chunk_size);
  double h = n64(m->ssm_n_heads), p = n64(m->ssm_d_head), n = n64(m->ssm_d_state);
  double in_proj = scale_transformer_mamba2_d_in_proj(m);
  double tokens = job->mbs * job->seq / cp; /* T: tokens of one microbatch on one device */
  double act = 2.0;                         /* 16-bit activations */

  /* one layer, one microbatch, forward + backward */
  double gemm = mamba_mm_s(job, params, tokens, in_proj / tp, d, peak) +
                mamba_mm_s(job, params, tokens, d, inner / tp, peak);
  double ssd_flops =
      scale_transformer_ssd_flops(m, job->mbs, job->seq / cp, false, SCALE_PASS_TRAIN) / tp;
  double ssd_batch = job->mbs * (job->seq / cp) / l * h / tp;
  double ssd = ssd_flops / (peak * scale_step_matmul_eta(job->chip, params, l, l, fmax(n, p),
                                                         fmax(ssd_batch, 1.0)));
  double fwd_bytes = tokens * act * (5.0 * d + (3.0 * (inner + 2.0 * gn) + 5.0 * inner) / tp) +
                     tokens / l * 4.0 * 4.0 * (h / tp) * p * n;
  double vector_fwd = fwd_bytes / w_hbm + 11.0 * kernel;
  double vector = 3.0 * fwd_bytes / w_hbm + 33.0 * kernel;

  double w, tp_s = 0.0, cp_s = 0.0;
  if (tp > 1.0) {
    scale_step_net net = comm_net(job, SCALE_STEP_COMM_TP, 1.0, tp, &w);
    tp_s =
        2.0 * scale_step_collective_s(params, net, w, SCALE_COLL_ALL_REDUCE, tp, tokens * d * act);
  }
  if (cp > 1.0) { /* the chunk-final states AllGathered, the conv halo sent to the next rank */
    scale_step_net net = comm_net(job, SCALE_STEP_COMM_CP, tp, cp, &w);
    double state = job->mbs * (h / tp) * p * n * act;
    double halo = job->mbs * (n64(m->ssm_d_conv) - 1.0) * (inner + 2.0 * gn) / tp * act;
    cp_s = 2.0 * (scale_step_collective_s(params, net, w, SCALE_COLL_ALL_GATHER, cp, cp * state) +
                  scale_step_send_s(params, net, send_bytes_per_s(job->chip, net, w), halo));
  }
  /* ZeRO-3: each layer's weights gathered forward and backward and its gradients
   * reduce-scattered, per microbatch, prefetched under the layer's compute (as a transformer's) */
  double fsdp_s = 0.0, fsdp_exposed = 0.0;
  double shard3 = job->fsdp >= 1.0 ? job->fsdp : dp * cp;
  if (job->zero == 3 && shard3 > 1.0) {
    double layer_bytes = (scale_transformer_n_params(m) - scale_transformer_n_embedding_params(m)) /
                         n64(m->n_layers) / tp * act;
    scale_step_net net = comm_net(job, SCALE_STEP_COMM_FSDP, tp * cp, shard3, &w);
    fsdp_s =
        2.0 * scale_step_collective_s(params, net, w, SCALE_COLL_ALL_GATHER, shard3, layer_bytes) +
        scale_step_collective_s(params, net, w, SCALE_COLL_REDUCE_SCATTER, shard3, layer_bytes);
    fsdp_exposed = fmax(0.0, fsdp_s - (gemm + ssd + vector + tp_s + cp_s));
  }
  /* full recomputation runs the forward again, its collectives included, in its share of
   * the layers */
  double redo = full_recompute_share(job) *
                (gemm / 3.0 + ssd / 3.0 + vector_fwd + tp_s / 2.0 + cp_s / 2.0);

  *o = (mamba_layer){gemm, ssd, vector_fwd, vector, tp_s, cp_s, fsdp_s, fsdp_exposed, redo};
}

/* DP gradient traffic of a Mamba-2 step whose microbatch takes 'mb' [s]: its total, with
 * the exposed part in *exposed and the ZeRO shard group in *shard. */
static double mamba_dp_s(const scale_step_job *job, const scale_step_params *params, double mb,
                         double params_chip, double *shard, double *exposed) {
  /* DP gradient buckets under the last microbatch's backward (2/3 of it), the last bare;
   * ZeRO-1/2 reduce-scatter over their group and gather the updated weights (exposed), the
   * replicas of a hybrid-sharded group all-reduce their shard (as dp_comm) */
  double tp = job->tp, n_dp = job->dp * job->cp, act = 2.0, w;
  double total = 0.0, sh = job->zero >= 1 ? (job->fsdp >= 1.0 ? job->fsdp : n_dp) : 1.0;
  *shard = sh;
  *exposed = 0.0;
  if (!(n_dp > 1.0)) return 0.0;
  scale_step_net net = comm_net(job, SCALE_STEP_COMM_DP, tp, n_dp, &w), snet = net;
  double ws = w, grads = params_chip * act, tail = 0.0, t, gather = 0.0;
  if (job->mapped) snet = job->link[SCALE_STEP_COMM_FSDP].net;
  if (job->mapped) ws = job->link[SCALE_STEP_COMM_FSDP].bytes_per_s;
  if (job->zero == 1 || job->zero == 2) {
    total += mamba_buckets_s(params, snet, ws, SCALE_COLL_REDUCE_SCATTER, sh, grads, &t);
    tail = t;
    gather = scale_step_collective_s(params, snet, ws, SCALE_COLL_ALL_GATHER, sh, grads);
  }
  if (job->zero == 0 || n_dp / sh > 1.0) {
    total += mamba_buckets_s(params, net, w, SCALE_COLL_ALL_REDUCE,
                             job->zero == 0 ? n_dp : n_dp / sh,
                             job->zero >= 1 ? grads / sh : grads, &t);
    tail += t;
  }
  *exposed = (total > 0.0 ? fmax(tail, total - 2.0 / 3.0 * mb) : 0.0) + gather;
  return total + gather;
}

void scale_step_mamba2_eval(const scale_step_job *job, const scale_step_params *params,
                            scale_step_mamba2 *out) {
  if (!out) return;
  *out = mamba_nan();
  if (!job || !params || !job->chip || !mamba_model(job->model)) return;
  const scale_model *m = job->model;
  double tp = job->tp, cp = job->cp, dp = job->dp, pp = job->pp;
  if (!degree_ok(tp) || !degree_ok(cp) || !degree_ok(dp) || !degree_ok(pp) ||
      !degree_ok(job->mbs) || !(job->seq > 0.0) ||
      scale_transformer_tp_check(m, tp, NULL) != SCALE_OK || !(job->gbs >= dp * job->mbs) ||
      pp > n64(m->n_layers))
    return;
  double peak = linear_peak(job, params);
  double w_hbm = job->chip->hbm_bytes_per_s * params->v[SCALE_STEP_MEM_ETA];
  double kernel = params->v[SCALE_STEP_KERNEL_S];
  if (!(peak > 0.0) || !(w_hbm > 0.0)) return;

  mamba_layer c;
  mamba_layer_costs(job, params, peak, w_hbm, &c);
  double gemm = c.gemm, ssd = c.ssd, vector = c.vector, tp_s = c.tp, cp_s = c.cp;
  double fsdp_s = c.fsdp, fsdp_exposed = c.fsdp_exposed, redo = c.redo;
  double d = n64(m->d_model), tokens = job->mbs * job->seq / cp, act = 2.0, w;
  /* the last stage's unembedding and loss (the slowest stage) */
  double v = n64(m->n_vocab);
  double head_gemm = mamba_mm_s(job, params, tokens, v / tp, d, peak);
  double head_vec = 3.0 * tokens * v / tp * 4.0 / w_hbm + 3.0 * kernel;

  double layers = scale_pipeline_stage_layers(n64(m->n_layers), pp, 1.0);
  double micro = job->gbs / (dp * job->mbs);
  double pp_send = 0.0;
  if (pp > 1.0) {
    scale_step_net net = comm_net(job, SCALE_STEP_COMM_PP, tp * cp * dp, pp, &w);
    pp_send =
        2.0 * scale_step_send_s(params, net, send_bytes_per_s(job->chip, net, w), tokens * d * act);
  }
  double mb = layers * (gemm + ssd + vector + tp_s + cp_s + fsdp_exposed + redo) + head_gemm +
              head_vec + pp_send;
  double bubble =
      pp > 1.0 ? scale_pipeline_bubble_frac(SCALE_PP_1F1B, pp, micro, 1.0) * micro * mb : 0.0;

  double params_chip = scale_transformer_n_params(m) / (tp * pp), shard, dp_exposed;
  double dp_total = mamba_dp_s(job, params, mb, params_chip, &shard, &dp_exposed);
  double opt_params = params_chip / shard;
  double optimizer = opt_params * ADAM_BYTES_PER_PARAM / w_hbm + 4.0 * kernel;

  out->microbatches = micro;
  out->gemm_s = micro * (layers * gemm + head_gemm);
  out->ssd_s = micro * layers * ssd;
  out->vector_s = micro * (layers * vector + head_vec);
  out->tp_s = micro * layers * tp_s;
  out->cp_s = micro * layers * cp_s;
  out->pp_s = micro * pp_send;
  out->bubble_s = bubble;
  out->dp_s = dp_total;
  out->fsdp_s = micro * layers * fsdp_s;
  out->fsdp_exposed_s = micro * layers * fsdp_exposed;
  out->dp_exposed_s = dp_exposed;
  out->optimizer_s = optimizer;
  out->unembed_s = micro * head_gemm;
  out->loss_s = micro * head_vec;
  out->recompute_s = micro * layers * redo;
  out->step_s = micro * mb + bubble + dp_exposed + optimizer + params->v[SCALE_STEP_STEP_S];
  double chips = dp * tp * pp * cp;
  out->mfu = scale_transformer_flops(m, job->gbs, job->seq, true, SCALE_PASS_TRAIN) /
             (out->step_s * chips * peak);
}
/* [/listing:mamba_step] */

void scale_step_mamba2_result(const scale_step_job *job, const scale_step_params *params,
                              scale_step_result *out) {
  if (!out) return;
  scale_step_mamba2 r;
  scale_step_mamba2_eval(job, params, &r);
  memset(out, 0, sizeof *out);
  if (!isfinite(r.step_s)) {
    double *fields[] = {&out->microbatches, &out->layers_per_stage, &out->compute_s,
                        &out->bubble_frac,  &out->bubble_s,         &out->optimizer_s,
                        &out->overhead_s,   &out->step_s,           &out->model_flops,
                        &out->mfu,          &out->host_s,           &out->stage_s};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
      *fields[i] = NAN;
    for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
      out->comm_s[k] = out->exposed_s[k] = NAN;
    for (int k = 0; k < SCALE_STEP_OP_COUNT; k++)
      out->op_s[k] = NAN;
    return;
  }
  const scale_model *m = job->model;
  out->microbatches = r.microbatches;
  out->layers_per_stage = scale_pipeline_stage_layers(n64(m->n_layers), job->pp, 1.0);
  out->op_s[SCALE_STEP_OP_UNEMBEDDING] = r.unembed_s;
  out->op_s[SCALE_STEP_OP_LOSS] = r.loss_s;
  out->op_s[SCALE_STEP_OP_OPTIMIZER] = r.optimizer_s;
  out->compute_s = r.gemm_s + r.ssd_s + r.vector_s + r.recompute_s;
  /* TP, CP and PP sit on the critical path; DP hides but for its tail */
  const double comm[SCALE_STEP_COMM_COUNT] = {[SCALE_STEP_COMM_TP] = r.tp_s,
                                              [SCALE_STEP_COMM_CP] = r.cp_s,
                                              [SCALE_STEP_COMM_FSDP] = r.fsdp_s,
                                              [SCALE_STEP_COMM_PP] = r.pp_s,
                                              [SCALE_STEP_COMM_DP] = r.dp_s};
  /* each group's stride and size in the rank order the evaluation uses */
  double tp = job->tp, cp = job->cp, dp = job->dp, pp = job->pp, w;
  const double group[SCALE_STEP_COMM_COUNT][2] = {
      [SCALE_STEP_COMM_TP] = {1.0, tp},
      [SCALE_STEP_COMM_CP] = {tp, cp},
      [SCALE_STEP_COMM_FSDP] = {tp * cp, job->fsdp >= 1.0 ? job->fsdp : dp * cp},
      [SCALE_STEP_COMM_EP] = {1.0, 1.0},
      [SCALE_STEP_COMM_PP] = {tp * cp * dp, pp},
      [SCALE_STEP_COMM_DP] = {tp, dp * cp}};
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    out->comm_s[k] = comm[k];
    out->exposed_s[k] = k == SCALE_STEP_COMM_DP     ? r.dp_exposed_s
                        : k == SCALE_STEP_COMM_FSDP ? r.fsdp_exposed_s
                                                    : comm[k];
    out->net[k] = comm_net(job, (scale_step_comm)k, group[k][0], group[k][1], &w);
  }
  out->bubble_frac =
      job->pp > 1.0 ? scale_pipeline_bubble_frac(SCALE_PP_1F1B, job->pp, r.microbatches, 1.0) : 0.0;
  out->bubble_s = r.bubble_s;
  out->optimizer_s = r.optimizer_s;
  out->overhead_s = params->v[SCALE_STEP_STEP_S];
  /* the host's floor under a CP layout, as step.c applies it to a transformer's step, but
   * without TP's collectives on the host's path: a Mamba-2 layer's one TP all-reduce a pass
   * (after the out-projection) is followed, before the next CP block (the conv halo and the
   * state exchange), by the in-projection, the conv and the dozens of small operators of the
   * chunked scan, whose launches take the host longer than the device takes to run them, so
   * the all-reduce finishes under the host's launches. The tables agree: a Mamba TP x CP row
   * takes no longer per layer-microbatch than the pure-CP rows of its table, where a LLaMA
   * one takes 1-2 ms longer (chapter 13's host.tp_* values). */
  out->host_s = scale_step_cp_host_s(job, out->net[SCALE_STEP_COMM_CP], 0.0, params);
  /* each pipeline stage past the first adds the framework's fixed latency, whichever of
   * the device and the host sets the rest of the step */
  out->stage_s = scale_step_ssm_stages(job) * params->v[SCALE_STEP_MESH_SSM_STAGE_S];
  out->step_s = fmax(r.step_s, out->host_s) + out->stage_s;
  out->model_flops = scale_transformer_flops(m, job->gbs, job->seq, true, SCALE_PASS_TRAIN);
  out->mfu = r.mfu * r.step_s / out->step_s;
}

/* [listing:mamba_stage] */
double scale_step_ssm_stages(const scale_step_job *job) {
  if (!job || !job->chip || !mamba_model(job->model) || !degree_ok(job->dp) ||
      !degree_ok(job->pp) || !degree_ok(job->tp) || !degree_ok(job->cp))
    return NAN;
  double w;
  scale_step_net net =
      comm_net(job, SCALE_STEP_COMM_PP, job->tp * job->cp * job->dp, job->pp, &w);
  return job->pp > 1.0 && net == SCALE_STEP_NET_MESH ? job->pp - 1.0 : 0.0;
}
/* [/listing:mamba_stage] */
