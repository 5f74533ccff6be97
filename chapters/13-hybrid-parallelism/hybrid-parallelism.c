/* hybrid-parallelism.c — chapter 13, the hybrid-parallelism study of Amer et al. (arXiv
 * 2602.09109), as a program.
 *
 * Walks through
 *   volumes      the per-device data of each collective (the paper's Table 2) and one attention
 *                layer's forward communication under DP, TP, CP, TPSP and Ulysses (Table 3),
 *                against section 5's shorthand
 *   memory       weights, gradients, optimizer state and activations per device for each
 *                strategy and ZeRO stage
 *   overlap      the dependency classes of section 2.6 on one layer, and the ring-CP block
 *   Mamba-2      what each parallelism splits in an SSM layer, CP's state exchange against
 *                attention's K/V ring, the SSD scan's share of the FLOPs
 *   the guide    section 7's rules as inequalities, the guide's pick for the paper's models and
 *                for a grid of models, sequence lengths and chips, set against the calibrated
 *                step model's best layout and against `scale plan`
 *   the study    Tables 10, 11, 13, 14 predicted beside measured: step time, throughput,
 *                memory, MFU, Spearman, best and worst, the rows off by more than 25%
 * Every number chapters/13-hybrid-parallelism/hybrid-parallelism.md cites is emitted here with
 * --values; --figures DIR draws one predicted-against-measured figure per model
 * (study-llama-2-7b.svg, study-llama-3.2-1b.svg, study-mamba-2-7b.svg, study-mamba-2-1b.svg).
 *
 * Every row is predicted as `scale train` prices it: the calibrated step model (step.h, the
 * Ascend 910B file's [step] section) for a transformer, scale_step_mamba2_result() with
 * the same parameters for Mamba-2; both bound a CP layout below by the host's time per
 * layer-microbatch (scale_step_cp_host_s, the stored mesh_cp_host_s that `scale calibrate`
 * fits to the four tables). This chapter refits that one parameter from the device times
 * alone, table by table left out, to show how far it moves.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chapter.h"
#include "scale/calibrate.h"
#include "scale/hybrid.h"
#include "scale/measurements.h"
#include "scale/step.h"

#define N_CHIPS 8.0
#define SEQ 4096.0
#define GBS 1024.0
#define TOKENS (GBS * SEQ)
#define OFF_FRAC 0.25 /* a prediction this far from the measurement is named in the text */
#define ROWS_MAX 32

/** Megatron/MindSpeed mixed precision: bf16 weights, fp32 main gradients, fp32 master weights
 * and Adam moments; ZeRO-1 (the distributed optimizer) over the replicas. Our reading of the
 * paper's setup: with it the guide reproduces the four best layouts of Table 15. */
static const scale_precision MEGATRON = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2,
                                         true};
#define ZERO_STAGE 1

/* ==== helpers =============================================================================== */

static void layout_values(chapter *ch, const char *stem, double dp, double pp, double tp,
                          double cp) {
  chapter_valuef(ch, "DP", dp, "", SCALE_FMT_PLAIN, "%s.dp", stem);
  chapter_valuef(ch, "PP", pp, "", SCALE_FMT_PLAIN, "%s.pp", stem);
  chapter_valuef(ch, "TP", tp, "", SCALE_FMT_PLAIN, "%s.tp", stem);
  chapter_valuef(ch, "CP", cp, "", SCALE_FMT_PLAIN, "%s.cp", stem);
}

static bool same_layout(const scale_hybrid_layout *a, double dp, double pp, double tp, double cp) {
  return a->dp == dp && a->pp == pp && a->tp == tp && a->cp == cp;
}

/** A step-model job for (dp, pp, tp, cp) with micro-batch 1, as the paper ran. */
static scale_step_job job_of(const scale_model *m, const scale_chip *c, double dp, double pp,
                             double tp, double cp, double gbs, double seq) {
  return (scale_step_job){.model = m,
                          .chip = c,
                          .dp = dp,
                          .tp = tp,
                          .pp = pp,
                          .cp = cp,
                          .ep = 1,
                          .zero = 0,
                          .mbs = 1,
                          .vp = 1,
                          .recompute = SCALE_RECOMPUTE_NONE,
                          .sp = false,
                          .attention = SCALE_ATTENTION_FLASH,
                          .tp_overlap = false,
                          .gbs = gbs,
                          .seq = seq,
                          .dtype = SCALE_DTYPE_BF16};
}

/** Device step time: the step model for a transformer, the Mamba-2 composition otherwise
 * (neither the host's floor nor the Mamba-2 stage latency). */
static double predict_s(const scale_step_job *j, const scale_step_params *p) {
  return scale_hybrid_predict_step_s(j, p, 0.0, 0.0);
}

/** A yes/no value (1 or 0, shown as a word) under the key 'fmt', ... */
static void flag_value(chapter *ch, const char *label, bool yes, const char *fmt, ...) {
  char key[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(key, sizeof key, fmt, ap);
  va_end(ap);
  chapter_text_value(ch, key, label, yes ? 1.0 : 0.0, yes ? "yes" : "no");
}

/** The step as `scale train` prices it: the device's time, the host's floor under CP and a
 * Mamba-2 pipeline's stage latency (the stored parameters). */
static double full_s(const scale_step_job *j, const scale_step_params *p) {
  scale_step_result r;
  if (j->model->arch == SCALE_ARCH_MAMBA2)
    scale_step_mamba2_result(j, p, &r);
  else
    scale_step_eval(j, p, &r);
  return r.step_s;
}

/** Memory per device of (dp, pp, tp, cp) by hybrid.h with the paper's setup. */
static double memory_bytes(const scale_model *m, double dp, double pp, double tp, double cp,
                           double gbs, double seq) {
  scale_hybrid_layout l = {dp, pp, tp, cp, ZERO_STAGE, tp > 1.0};
  double micro = gbs / dp;
  scale_hybrid_memory mem;
  scale_hybrid_memory_per_device(m, &l, &MEGATRON, 1, seq,
                                 scale_pipeline_microbatches_in_flight(SCALE_PP_1F1B, pp, micro, 1),
                                 &mem);
  return mem.total_bytes;
}

/* ==== the setup ============================================================================= */

static void section_setup(chapter *ch, const scale_chip *npu) {
  chapter_heading(ch, "The case study's machine and workload (section 6.1)");
  chapter_value(ch, "hw.flops", "910B cube peak (bf16)",
                scale_chip_flops_per_s(npu, SCALE_DTYPE_BF16), "FLOP/s", SCALE_FMT_SI);
  chapter_value(ch, "hw.hbm", "HBM per NPU (as the paper states it)", npu->hbm_bytes, "B",
                SCALE_FMT_SI);
  chapter_value(ch, "hw.hbm_bw", "HBM bandwidth", npu->hbm_bytes_per_s, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "hw.egress", "HCCS egress per NPU (one way)", npu->nvlink_bytes_per_s, "B/s",
                SCALE_FMT_SI);
  double peer = npu->nvlink_bytes_per_s / (npu->nvlink_domain_size - 1.0);
  chapter_value(ch, "hw.peer", "one direct HCCS link (one way)", peer, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "hw.chips", "NPUs", N_CHIPS, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "case.gbs", "global batch", GBS, "sequences", SCALE_FMT_PLAIN);
  chapter_value(ch, "case.seq", "sequence length", SEQ, "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "case.tokens", "tokens per step", TOKENS, "tokens", SCALE_FMT_PLAIN);
}

/* ==== Table 2 and Table 3 ==================================================================== */

static void section_volumes(chapter *ch, const scale_model *l7, const scale_model *l1) {
  chapter_heading(ch, "Collective volumes per device (Table 2), in multiples of the array T");
  static const double ns[] = {2, 8, 64};
  for (int op = 0; op < SCALE_HYBRID_COLL_COUNT; op++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      char key[64];
      snprintf(key, sizeof key, "t2.n%.0f.%s", ns[i],
               scale_hybrid_coll_name((scale_hybrid_coll)op));
      for (char *p = key; *p; p++)
        if (*p == '-') *p = '_';
      char label[64];
      snprintf(label, sizeof label, "%s over N = %.0f [x T]",
               scale_hybrid_coll_name((scale_hybrid_coll)op), ns[i]);
      chapter_value(ch, key, label,
                    scale_hybrid_collective_bytes((scale_hybrid_coll)op, ns[i], 1.0), "",
                    SCALE_FMT_PLAIN);
    }

  chapter_heading(ch, "One attention layer's forward communication per device (Table 3)");
  chapter_say(ch, "b = 1, s = %.0f, bf16, bytes sent plus received", SEQ);
  const struct {
    const char *key;
    const scale_model *m;
  } models[] = {{"l7", l7}, {"l1", l1}};
  static const double degrees[] = {2, 4, 8};
  for (size_t i = 0; i < 2; i++)
    for (int st = 0; st < SCALE_HYBRID_STRATEGY_COUNT; st++)
      for (size_t k = 0; k < 3; k++) {
        double v = scale_hybrid_attention_fwd_bytes(models[i].m, (scale_hybrid_strategy)st,
                                                    degrees[k], 1, SEQ, SCALE_DTYPE_BF16);
        char label[SCALE_NAME_MAX + 32];
        snprintf(label, sizeof label, "%s, %s %.0f", models[i].m->display_name,
                 scale_hybrid_strategy_name((scale_hybrid_strategy)st), degrees[k]);
        chapter_valuef(ch, label, v, "B", SCALE_FMT_SI, "t3.%s.%s.%.0f", models[i].key,
                       scale_hybrid_strategy_name((scale_hybrid_strategy)st), degrees[k]);
      }
  double tp8 = scale_hybrid_attention_fwd_bytes(l1, SCALE_HYBRID_TP, 8, 1, SEQ, SCALE_DTYPE_BF16);
  double cp8 = scale_hybrid_attention_fwd_bytes(l1, SCALE_HYBRID_CP, 8, 1, SEQ, SCALE_DTYPE_BF16);
  chapter_value(ch, "t3.l1.cp_over_tp", "Llama 3.2 1B: CP over TP (k d_h / d)", cp8 / tp8, "",
                SCALE_FMT_PLAIN);
  chapter_value(
      ch, "t3.l7.tpup_over_tp8", "LLaMA 2 7B at 8: Ulysses over TP",
      scale_hybrid_attention_fwd_bytes(l7, SCALE_HYBRID_TPUP, 8, 1, SEQ, SCALE_DTYPE_BF16) /
          scale_hybrid_attention_fwd_bytes(l7, SCALE_HYBRID_TP, 8, 1, SEQ, SCALE_DTYPE_BF16),
      "", SCALE_FMT_PLAIN);
  chapter_value(ch, "s5.l1.tp", "section 5.2 TP, 2 s a d_h",
                scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_TP, SEQ), "elements", SCALE_FMT_SCI);
  chapter_value(ch, "s5.l1.cp", "section 5.2 CP, 2 s k d_h",
                scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_CP, SEQ), "elements", SCALE_FMT_SCI);
  chapter_value(ch, "s5.factor8", "Table 3 TP 8 over section 5.2 TP",
                tp8 / 2.0 / scale_hybrid_s5_comm_elements(l1, SCALE_HYBRID_TP, SEQ), "",
                SCALE_FMT_PLAIN);
}

/* ==== memory ================================================================================ */

static void memory_row(chapter *ch, const char *key, const scale_model *m, double dp, double pp,
                       double tp, double cp, int zero, bool sp, const scale_precision *prec,
                       double hbm) {
  scale_hybrid_layout l = {dp, pp, tp, cp, zero, sp};
  scale_hybrid_memory mem;
  scale_hybrid_memory_per_device(m, &l, prec, 1, SEQ,
                                 scale_pipeline_microbatches_in_flight(SCALE_PP_1F1B, pp, GBS / dp, 1),
                                 &mem);
  chapter_say(ch, "%s:", key);
  chapter_valuef(ch, "weights", mem.weight_bytes, "B", SCALE_FMT_SI, "mem.%s.w", key);
  chapter_valuef(ch, "gradients", mem.grad_bytes, "B", SCALE_FMT_SI, "mem.%s.g", key);
  chapter_valuef(ch, "optimizer", mem.optimizer_bytes, "B", SCALE_FMT_SI, "mem.%s.o", key);
  chapter_valuef(ch, "activations", mem.activation_bytes, "B", SCALE_FMT_SI, "mem.%s.a", key);
  chapter_valuef(ch, "total", mem.total_bytes, "B", SCALE_FMT_SI, "mem.%s.total", key);
  flag_value(ch, "fits", mem.total_bytes <= hbm, "mem.%s.fits", key);
}

static void section_memory(chapter *ch, const scale_model *l7, const scale_chip *npu) {
  chapter_heading(ch, "Memory per device, LLaMA 2 7B on 8 NPUs, 4K tokens, micro-batch 1");
  chapter_value(ch, "mem.l7.params", "parameters", scale_transformer_n_params(l7), "",
                SCALE_FMT_SCI);
  const scale_precision *p = &MEGATRON;
  for (int z = 0; z <= 3; z++) {
    char key[16];
    snprintf(key, sizeof key, "dp8z%d", z);
    memory_row(ch, key, l7, 8, 1, 1, 1, z, false, p, npu->hbm_bytes);
  }
  memory_row(ch, "pp8", l7, 1, 8, 1, 1, ZERO_STAGE, false, p, npu->hbm_bytes);
  memory_row(ch, "tp8", l7, 1, 1, 8, 1, ZERO_STAGE, false, p, npu->hbm_bytes);
  memory_row(ch, "tp8sp", l7, 1, 1, 8, 1, ZERO_STAGE, true, p, npu->hbm_bytes);
  memory_row(ch, "cp8", l7, 1, 1, 1, 8, ZERO_STAGE, false, p, npu->hbm_bytes);
  memory_row(ch, "dp4pp2", l7, 4, 2, 1, 1, ZERO_STAGE, false, p, npu->hbm_bytes);
  {
    double tot[9];
    const double deg[9][5] = {{8, 1, 1, 1, 0}, {8, 1, 1, 1, 1}, {8, 1, 1, 1, 2},
                              {8, 1, 1, 1, 3}, {1, 8, 1, 1, 1}, {1, 1, 8, 1, 1},
                              {1, 1, 8, 1, 1}, {1, 1, 1, 8, 1}, {4, 2, 1, 1, 1}};
    for (int i = 0; i < 9; i++) {
      scale_hybrid_layout l = {deg[i][0], deg[i][1], deg[i][2], deg[i][3], (int)deg[i][4], i == 6};
      scale_hybrid_memory mem;
      scale_hybrid_memory_per_device(
          l7, &l, p, 1, SEQ, scale_pipeline_microbatches_in_flight(SCALE_PP_1F1B, l.pp, GBS / l.dp, 1),
          &mem);
      tot[i] = mem.total_bytes;
    }
    double hbm = npu->hbm_bytes;
    chapter_claim(ch, true, tot[1] > hbm && tot[2] <= hbm,
                  "a replica does not fit with ZeRO-1, does with ZeRO-2");
    chapter_claim(ch, true, tot[4] <= hbm && tot[5] <= hbm && tot[7] <= hbm,
                  "every single model split fits");
    chapter_claim(ch, true, tot[6] < tot[5] && tot[5] < tot[4] && tot[4] < tot[7],
                  "TP+SP < TP < PP < CP in memory");
  }
  /* the ZeRO paper's own example: 7.5B parameters over 64 devices, 2 + 2 + 12 bytes */
  const scale_precision mixed = SCALE_PRECISION_MIXED_ADAM;
  for (int z = 0; z <= 3; z++)
    chapter_valuef(ch, "ZeRO paper example",
                   scale_train_zero_bytes_per_chip(&mixed, 7.5e9, z, 64, NULL), "B", SCALE_FMT_SI,
                   "zero.paper.s%d", z);
}

/* ==== overlap =============================================================================== */

static void section_overlap(chapter *ch, const scale_model *l7, const scale_model *l1,
                            const scale_chip *npu, const scale_chip *h100) {
  chapter_heading(ch, "Overlap: one LLaMA 2 7B layer, TP 2 on the 910B, forward");
  double peak = scale_chip_flops_per_s(npu, SCALE_DTYPE_BF16);
  double flops = scale_transformer_gqa_block_flops_per_device(l7, 1, SEQ, 2, 1, 1) +
                 scale_transformer_mlp_block_flops_per_device(l7, 1, SEQ, 2, 1, 1);
  double comp = flops / peak;
  /* two AllReduces per layer (attention, MLP); each device sends half of Table 3's count over
   * the one direct link to its TP peer */
  double sent = scale_hybrid_attention_fwd_bytes(l7, SCALE_HYBRID_TP, 2, 1, SEQ, SCALE_DTYPE_BF16);
  double peer = npu->nvlink_bytes_per_s / (npu->nvlink_domain_size - 1.0);
  double comm = sent / peer;
  chapter_value(ch, "ov.comp", "compute at peak", comp, "s", SCALE_FMT_TIME);
  chapter_value(ch, "ov.comm", "two AllReduces over one link", comm, "s", SCALE_FMT_TIME);
  chapter_value(ch, "ov.none", "no overlap",
                scale_hybrid_overlap_s(SCALE_HYBRID_DEP_NONE, comp, comm, 1), "s", SCALE_FMT_TIME);
  chapter_value(ch, "ov.weak", "weak dependency (ideal)",
                scale_hybrid_overlap_s(SCALE_HYBRID_DEP_WEAK, comp, comm, 1), "s", SCALE_FMT_TIME);
  static const double chunks[] = {2, 4, 16};
  for (size_t i = 0; i < 3; i++) {
    double t = scale_hybrid_overlap_s(SCALE_HYBRID_DEP_STRONG, comp, comm, chunks[i]);
    chapter_valuef(ch, "strong, chunked", t, "s", SCALE_FMT_TIME, "ov.strong%.0f", chunks[i]);
    chapter_valuef(ch, "exposed", t - comp, "s", SCALE_FMT_TIME, "ov.exposed%.0f", chunks[i]);
  }
  chapter_value(ch, "ov.exposed_none", "exposed, no overlap", comm, "s", SCALE_FMT_TIME);

  chapter_heading(ch, "Ring CP: the smallest block whose K/V pass hides");
  double f_npu = peak, f_h100 = scale_chip_flops_per_s(h100, SCALE_DTYPE_BF16);
  chapter_value(ch, "cp.l7.npu", "LLaMA 2 7B on the 910B (one link)",
                scale_hybrid_ring_cp_min_block_tokens(l7, f_npu, peer, SCALE_DTYPE_BF16, false),
                "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "cp.l1.npu", "Llama 3.2 1B on the 910B",
                scale_hybrid_ring_cp_min_block_tokens(l1, f_npu, peer, SCALE_DTYPE_BF16, false),
                "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "cp.l7.h100", "LLaMA 2 7B on H100 NVLink",
                scale_hybrid_ring_cp_min_block_tokens(l7, f_h100, h100->nvlink_bytes_per_s,
                                                      SCALE_DTYPE_BF16, false),
                "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "cp.l7.npu_causal", "LLaMA 2 7B on the 910B, causal, unbalanced",
                scale_hybrid_ring_cp_min_block_tokens(l7, f_npu, peer, SCALE_DTYPE_BF16, true),
                "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "cp.block2", "block at 4K over CP 2", SEQ / 2, "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "cp.block8", "block at 4K over CP 8", SEQ / 8, "tokens", SCALE_FMT_PLAIN);
  chapter_claim(ch, true,
                SEQ / 2 <
                    scale_hybrid_ring_cp_min_block_tokens(l1, f_npu, peer, SCALE_DTYPE_BF16, false),
                "at 4K no CP degree hides the ring on the 910B, even for GQA");
}

/* ==== Mamba-2 =============================================================================== */

static void section_mamba(chapter *ch, const scale_model *m7, const scale_model *m1,
                          const scale_model *l7) {
  chapter_heading(ch, "What each parallelism splits in a Mamba-2 layer (Mamba-7B, b = 8)");
  const struct {
    const char *key;
    double tp, cp, dp;
  } cases[] = {{"none", 1, 1, 1}, {"tp8", 8, 1, 1}, {"cp8", 1, 8, 1}, {"dp8", 1, 1, 8}};
  for (size_t i = 0; i < 4; i++) {
    scale_hybrid_ssm_split s;
    scale_hybrid_mamba2_split(m7, cases[i].tp, cases[i].cp, cases[i].dp, 8, SEQ, &s);
    const char *k = cases[i].key;
    chapter_say(ch, "%s:", k);
    chapter_valuef(ch, "heads", s.heads, "", SCALE_FMT_PLAIN, "ssm.%s.heads", k);
    chapter_valuef(ch, "groups", s.groups, "", SCALE_FMT_PLAIN, "ssm.%s.groups", k);
    chapter_valuef(ch, "in-projection columns", s.d_in_proj, "", SCALE_FMT_PLAIN, "ssm.%s.inproj",
                   k);
    chapter_valuef(ch, "projection weights", s.weight_params, "", SCALE_FMT_SI, "ssm.%s.weights",
                   k);
    chapter_valuef(ch, "tokens per sequence", s.tokens, "", SCALE_FMT_PLAIN, "ssm.%s.tokens", k);
    chapter_valuef(ch, "sequences", s.sequences, "", SCALE_FMT_PLAIN, "ssm.%s.seqs", k);
    chapter_valuef(ch, "SSD chunks", s.chunks, "", SCALE_FMT_PLAIN, "ssm.%s.chunks", k);
    chapter_valuef(ch, "state elements", s.state_elements, "", SCALE_FMT_SI, "ssm.%s.state", k);
    chapter_valuef(ch, "conv halo elements", s.halo_elements, "", SCALE_FMT_SI, "ssm.%s.halo", k);
    chapter_valuef(ch, "forward AllReduces", s.tp_all_reduces, "", SCALE_FMT_PLAIN, "ssm.%s.ar", k);
  }
  chapter_value(ch, "ssm.m7.d_in_proj", "Mamba-7B in-projection width",
                scale_transformer_mamba2_d_in_proj(m7), "", SCALE_FMT_PLAIN);
  chapter_value(ch, "ssm.m7.groups", "Mamba-7B groups", (double)m7->ssm_n_groups, "",
                SCALE_FMT_PLAIN);

  chapter_heading(ch, "CP traffic per layer and device: Mamba's states against attention's K/V");
  static const double seqs[] = {4096, 32768, 131072};
  for (size_t i = 0; i < 3; i++) {
    double s = seqs[i];
    double mb = scale_hybrid_mamba2_fwd_bytes(m7, SCALE_HYBRID_CP, 8, 1, s, SCALE_DTYPE_BF16);
    double at = scale_hybrid_attention_fwd_bytes(l7, SCALE_HYBRID_CP, 8, 1, s, SCALE_DTYPE_BF16);
    double mtp = scale_hybrid_mamba2_fwd_bytes(m7, SCALE_HYBRID_TP, 8, 1, s, SCALE_DTYPE_BF16);
    chapter_valuef(ch, "Mamba-7B CP 8", mb, "B", SCALE_FMT_SI, "mcp.s%.0fk", s / 1024);
    chapter_valuef(ch, "LLaMA 2 7B CP 8", at, "B", SCALE_FMT_SI, "acp.s%.0fk", s / 1024);
    chapter_valuef(ch, "attention over Mamba", at / mb, "", SCALE_FMT_PLAIN, "cpratio.s%.0fk",
                   s / 1024);
    chapter_valuef(ch, "Mamba-7B TP 8", mtp, "B", SCALE_FMT_SI, "mtp.s%.0fk", s / 1024);
  }

  chapter_heading(ch, "The SSD scan's share of the cube work (forward, 4K)");
  const struct {
    const char *key;
    const scale_model *m;
  } ms[] = {{"m7", m7}, {"m1", m1}};
  for (size_t i = 0; i < 2; i++) {
    double ssd = scale_transformer_ssd_flops(ms[i].m, 1, SEQ, false, SCALE_PASS_FORWARD);
    double proj = scale_transformer_mamba2_projection_flops(ms[i].m, SEQ, SCALE_PASS_FORWARD);
    chapter_valuef(ch, "SSD over projections", ssd / proj, "", SCALE_FMT_PLAIN, "ssd.%s.share",
                   ms[i].key);
    chapter_valuef(ch, "naive recurrence over scan",
                   scale_transformer_ssd_flops(ms[i].m, 1, SEQ, true, SCALE_PASS_FORWARD) / ssd, "",
                   SCALE_FMT_PLAIN, "ssd.%s.naive", ms[i].key);
    chapter_valuef(ch, "activations per layer",
                   scale_transformer_layer_activation_bytes(ms[i].m, 1, SEQ, 1, 1, false), "B",
                   SCALE_FMT_SI, "act.%s", ms[i].key);
  }
  chapter_value(ch, "act.l7", "LLaMA 2 7B activations per layer",
                scale_transformer_layer_activation_bytes(l7, 1, SEQ, 1, 1, false), "B", SCALE_FMT_SI);
}

/* ==== the design guide and the planners ===================================================== */

/** The paper's search space on 'chips' devices: every (dp, pp, tp, cp) of powers of two. */
typedef struct {
  double dp, pp, tp, cp;
} layout4;

static int enumerate_layouts(double chips, layout4 *out) {
  int n = 0;
  for (double tp = 1; tp <= chips; tp *= 2)
    for (double cp = 1; tp * cp <= chips; cp *= 2)
      for (double pp = 1; tp * cp * pp <= chips; pp *= 2)
        out[n++] = (layout4){chips / (tp * cp * pp), pp, tp, cp};
  return n;
}

/** Whether the shape allows the layout (TP dividing heads, PP not deeper than the layers). */
static bool layout_ok(const scale_model *m, const layout4 *l, double gbs) {
  if (l->pp > (double)m->n_layers || fmod(gbs, l->dp) != 0) return false;
  if (m->arch == SCALE_ARCH_MAMBA2)
    return fmod((double)m->ssm_n_heads, l->tp) == 0 && fmod((double)m->ssm_n_groups, l->tp) == 0;
  return fmod((double)m->n_heads, l->tp) == 0 && fmod((double)m->n_kv_heads, l->tp) == 0;
}

/** The fastest layout by the calibrated step model among those that fit by hybrid.h. */
static bool step_best(const scale_model *m, const scale_chip *c, double gbs, double seq,
                      const scale_step_params *prm, layout4 *best, double *best_s) {
  layout4 all[64];
  int n = enumerate_layouts(N_CHIPS, all);
  *best_s = INFINITY;
  for (int i = 0; i < n; i++) {
    if (!layout_ok(m, &all[i], gbs)) continue;
    if (!(memory_bytes(m, all[i].dp, all[i].pp, all[i].tp, all[i].cp, gbs, seq) <= c->hbm_bytes))
      continue;
    scale_step_job j = job_of(m, c, all[i].dp, all[i].pp, all[i].tp, all[i].cp, gbs, seq);
    double t = full_s(&j, prm);
    if (t < *best_s) *best_s = t, *best = all[i];
  }
  return isfinite(*best_s);
}

/** The guide's degrees with the policies of scale plan's pick (ZeRO, remat, microbatches, at
 * least one per stage; SP with TP), priced by scale plan's own evaluation: *ratio its step over
 * the pick's, *fits whether scale plan's memory model holds it. */
static void guide_under_plan(const scale_train_problem *p, const scale_layout *pick,
                             const scale_train_result *pick_r, const scale_hybrid_layout *g,
                             double *ratio, bool *fits) {
  scale_layout l = *pick;
  l.dp = g->dp, l.fsdp = 1, l.pp = g->pp, l.tp = g->tp, l.cp = g->cp, l.sp = g->tp > 1.0;
  l.n_microbatches = fmax(pick->n_microbatches, g->pp);
  scale_train_layout_map(p->chip, N_CHIPS, &l);
  *ratio = NAN, *fits = false;
  if (!isfinite(g->dp) || scale_train_validate(p, &l, NULL) != SCALE_OK) return;
  scale_train_result r;
  scale_train_eval(p, &l, &r);
  *ratio = r.step_time_s / pick_r->step_time_s;
  *fits = r.fits;
}

static void section_guide(chapter *ch, const scale_model *models[4], const char *const keys[4],
                          const scale_chip *npu, const scale_chip *h100, const scale_model *l3_8b,
                          const scale_step_params *prm, const scale_step_params *prm_h100) {
  chapter_heading(ch, "The design guide on the paper's four models (8 x 910B, 4K)");
  static const double paper_best[4][4] = {{4, 2, 1, 1}, {8, 1, 1, 1}, {4, 1, 2, 1}, {8, 1, 1, 1}};
  int agree = 0;
  double tp_bound_min = INFINITY;
  for (int i = 0; i < 4; i++) {
    scale_hybrid_problem p = {models[i], npu, N_CHIPS, GBS, SEQ, 1, ZERO_STAGE, MEGATRON};
    scale_hybrid_guide g;
    scale_hybrid_guide_eval(&p, &g);
    char stem[32];
    snprintf(stem, sizeof stem, "guide.%s", keys[i]);
    layout_values(ch, stem, g.layout.dp, g.layout.pp, g.layout.tp, g.layout.cp);
    chapter_valuef(ch, "memory of the pick", g.memory.total_bytes, "B", SCALE_FMT_SI, "%s.mem",
                   stem);
    for (int r = 0; r < SCALE_HYBRID_RULE_COUNT; r++) {
      const char *name = scale_hybrid_rule_name((scale_hybrid_rule)r);
      /* the memory rules compare bytes; the others degrees, a split kind or tokens */
      bool bytes = r == SCALE_HYBRID_RULE_FITS_DP || r == SCALE_HYBRID_RULE_SMALLEST_SPLIT;
      char key[96], label[96];
      snprintf(label, sizeof label, "%s: left side", name);
      chapter_valuef(ch, label, g.rule[r].lhs, bytes ? "B" : "", SCALE_FMT_SI, "%s.%s.lhs", stem,
                     name);
      snprintf(label, sizeof label, "%s: right side", name);
      chapter_valuef(ch, label, g.rule[r].rhs, bytes ? "B" : "", SCALE_FMT_SI, "%s.%s.rhs", stem,
                     name);
      /* the relation the two sides are in, so a rule that fails reads as failing (the split
       * kind is a comparison of kinds, shown as "vs") */
      if (r == SCALE_HYBRID_RULE_SPLIT_KIND) continue;
      snprintf(key, sizeof key, "%s.%s.rel", stem, name);
      snprintf(label, sizeof label, "%s: holds (1 yes)", name);
      chapter_text_value(ch, key, label, g.rule[r].holds ? 1.0 : 0.0,
                         g.rule[r].holds ? "≤" : ">");
    }
    tp_bound_min = fmin(tp_bound_min, g.rule[SCALE_HYBRID_RULE_TP_BOUND].rhs);
    agree += same_layout(&g.layout, paper_best[i][0], paper_best[i][1], paper_best[i][2],
                         paper_best[i][3]);
  }
  chapter_value(ch, "guide.agree_paper", "guide picks = the paper's best", agree, "",
                SCALE_FMT_PLAIN);
  chapter_claim(ch, true, agree == 4, "the guide picks the paper's four best layouts");
  chapter_claim(ch, true, tp_bound_min >= 4, "the tp-bound allows TP 4 on every model");

  chapter_heading(ch, "The guide against the step model and `scale plan` on a grid");
  const scale_model *grid_models[5] = {models[0], models[1], models[2], models[3], l3_8b};
  const char *grid_keys[5] = {keys[0], keys[1], keys[2], keys[3], "l8"};
  const scale_chip *chips[2] = {npu, h100};
  const scale_step_params *chip_prm[2] = {prm, prm_h100};
  const char *chip_keys[2] = {"npu", "h100"};
  static const double seqs[2] = {4096, 32768};
  int n = 0, agree_step = 0, agree_plan = 0, plan_tp8 = 0, step_keeps_tp_small = 0;
  int tp_bound_plan = 0, disagree_4k_other = 0, disagree_32k_not_mixed_cp = 0;
  int plan_memory = 0, plan_speed = 0, plan_search = 0, search_outside = 0;
  double plan_ratio_lo = INFINITY, plan_ratio_hi = 0, step_ratio_hi = 0;
  scale_plan_report *rep = malloc(sizeof *rep);
  if (!rep) {
    chapter_error(ch, "out of memory");
    return;
  }
  for (int h = 0; h < 2; h++)
    for (int i = 0; i < 5; i++)
      for (int k = 0; k < 2; k++) {
        const scale_model *m = grid_models[i];
        double s = seqs[k], gbs = TOKENS / s;
        char stem[48];
        snprintf(stem, sizeof stem, "grid.%s.%s.s%.0fk", chip_keys[h], grid_keys[i], s / 1024);
        scale_hybrid_problem p = {m, chips[h], N_CHIPS, gbs, s, 1, ZERO_STAGE, MEGATRON};
        scale_hybrid_guide g;
        scale_hybrid_guide_eval(&p, &g);
        char sub[64];
        snprintf(sub, sizeof sub, "%s.guide", stem);
        layout_values(ch, sub, g.layout.dp, g.layout.pp, g.layout.tp, g.layout.cp);

        layout4 best = {0, 0, 0, 0};
        double best_s;
        bool ok = step_best(m, chips[h], gbs, s, chip_prm[h], &best, &best_s);
        snprintf(sub, sizeof sub, "%s.step", stem);
        if (ok) layout_values(ch, sub, best.dp, best.pp, best.tp, best.cp);

        scale_train_problem tp = scale_train_problem_make(m, chips[h], N_CHIPS, gbs * s, s);
        tp.mfu_counts_attention = true;
        tp.step_params = chip_prm[h]; /* scale plan's default: the calibrated step model */
        scale_plan_opts o = scale_plan_opts_default();
        o.allow[SCALE_TRAIN_DIM_FSDP] = false;
        o.allow[SCALE_TRAIN_DIM_EP] = false;
        for (int r = 0; r < SCALE_PP_COUNT; r++)
          o.allow_schedule[r] = r == SCALE_PP_1F1B;
        o.top_k = 1;
        o.n_threads = 1;
        if (!chapter_plan_train(ch, &tp, &o, rep, 1)) continue;
        const scale_layout *pl = &rep->ranked[0].layout;
        snprintf(sub, sizeof sub, "%s.plan", stem);
        layout_values(ch, sub, pl->dp, pl->pp, pl->tp, pl->cp);
        /* why they differ: the guide's degrees priced as scale plan prices its own pick (its
         * policies kept), and as the step model's search prices them */
        double plan_ratio = NAN, step_ratio = NAN;
        bool plan_fits = false;
        guide_under_plan(&tp, pl, &rep->ranked[0].result, &g.layout, &plan_ratio, &plan_fits);
        if (ok) {
          scale_step_job gj =
              job_of(m, chips[h], g.layout.dp, g.layout.pp, g.layout.tp, g.layout.cp, gbs, s);
          step_ratio = full_s(&gj, chip_prm[h]) / best_s;
        }
        chapter_valuef(ch, "guide / step model's best", step_ratio, "", SCALE_FMT_PLAIN,
                       "%s.step_ratio", stem);
        chapter_valuef(ch, "guide / scale plan's pick, as scale plan prices them", plan_ratio, "",
                       SCALE_FMT_PLAIN, "%s.plan_ratio", stem);
        flag_value(ch, "the guide's degrees fit scale plan's memory model", plan_fits,
                   "%s.plan_fits", stem);
        bool same_plan = same_layout(&g.layout, pl->dp, pl->pp, pl->tp, pl->cp);
        if (!same_plan && !plan_fits) plan_memory++;
        if (!same_plan && plan_fits && plan_ratio > 1.0) {
          plan_speed++;
          plan_ratio_hi = fmax(plan_ratio_hi, plan_ratio);
        }
        if (!same_plan && plan_fits && !(plan_ratio > 1.0)) {
          plan_search++;
          plan_ratio_lo = fmin(plan_ratio_lo, plan_ratio);
          /* scale plan tries m in {1, 2, 4, 8} without a pipeline, {p, 2p, 4p, 8p} with one */
          double m_used = fmax(pl->n_microbatches, g.layout.pp), q = m_used / g.layout.pp;
          search_outside += !(q == 1 || q == 2 || q == 4 || q == 8);
        }
        if (ok && !same_layout(&g.layout, best.dp, best.pp, best.tp, best.cp))
          step_ratio_hi = fmax(step_ratio_hi, step_ratio);

        n++;
        bool same = ok && same_layout(&g.layout, best.dp, best.pp, best.tp, best.cp);
        /* the text: at 4K they differ only on Mamba-7B on the 910B; at 32K only where the step
         * model mixes CP with PP or TP */
        if (!same && s == 4096 && !(h == 0 && m == models[2])) disagree_4k_other++;
        if (!same && s == 32768 && !(ok && best.cp > 1 && (best.pp > 1 || best.tp > 1)))
          disagree_32k_not_mixed_cp++;
        agree_step += same;
        agree_plan += same_layout(&g.layout, pl->dp, pl->pp, pl->tp, pl->cp);
        plan_tp8 += pl->tp == N_CHIPS;
        step_keeps_tp_small += ok && best.tp <= 2;
        tp_bound_plan += pl->tp <= g.rule[SCALE_HYBRID_RULE_TP_BOUND].rhs;
      }
  free(rep);
  chapter_value(ch, "grid.n", "grid cases", n, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.agree_step", "guide = step model's best", agree_step, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.agree_plan", "guide = scale plan's best", agree_plan, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_tp8", "scale plan picks TP 8", plan_tp8, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.step_tp_small", "step model's best has TP <= 2", step_keeps_tp_small, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_within_tp_bound", "scale plan's TP within the TP bound",
                tp_bound_plan, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_memory",
                "differ: the guide's degrees do not fit scale plan's memory", plan_memory, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_speed", "differ: scale plan's pick is faster", plan_speed, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_search",
                "differ: the guide's degrees, at the pick's microbatch "
                "count, are faster but outside scale plan's counts",
                plan_search, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_ratio_lo", "guide / plan where the guide's is faster, the least",
                plan_ratio_lo, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.plan_ratio_hi", "guide / plan where the pick is faster, the most",
                plan_ratio_hi, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "grid.step_ratio_hi", "guide / step model's best, the most", step_ratio_hi, "",
                SCALE_FMT_PLAIN);
  chapter_claim(
      ch, true, search_outside == plan_search,
      "where the guide's degrees are faster, scale plan never tried their microbatch count");
  chapter_claim(ch, true, plan_memory + plan_speed + plan_search == n - agree_plan,
                "every disagreement with scale plan is memory, speed or its microbatch counts");
  chapter_claim(ch, true, disagree_4k_other == 0,
                "at 4K the step model and the guide differ only on Mamba-7B on the 910B");
  chapter_claim(ch, true, disagree_32k_not_mixed_cp == 0,
                "at 32K they differ only where the step model mixes CP with PP or TP");
  chapter_claim(ch, true, step_keeps_tp_small == n, "the step model's best keeps TP <= 2");
  chapter_claim(ch, true, agree_plan < agree_step,
                "the step model agrees with the guide more often than scale plan does");
}

static void section_planner(chapter *ch, const scale_model *l7, const scale_chip *npu,
                            const scale_step_params *prm) {
  chapter_heading(ch, "What scale plan searches (LLaMA 2 7B on 8 x 910B)");
  scale_train_problem tp = scale_train_problem_make(l7, npu, N_CHIPS, TOKENS, SEQ);
  tp.step_params = prm;
  scale_plan_report *rep = malloc(sizeof *rep);
  if (!rep) return;
  scale_plan_opts o = scale_plan_opts_default();
  o.n_threads = 1;
  if (chapter_plan_train(ch, &tp, &o, rep, 1)) {
    chapter_plan_counts(ch, "plan", rep);
    chapter_claim(ch, true, rep->n_pruned_total == rep->n_pruned[SCALE_PLAN_PRUNE_MEMORY],
                  "only memory pruned LLaMA 2 7B's layouts on the 910B");
  }
  layout4 all[64];
  chapter_value(ch, "plan.paper_space", "the paper's space: (dp, pp, tp, cp) on 8",
                enumerate_layouts(N_CHIPS, all), "", SCALE_FMT_PLAIN);
  free(rep);
}

/* ==== the case study ======================================================================== */

typedef struct {
  const char *key;        /**< value stem: "t10" */
  const char *file;       /**< under measurements/ */
  const char *model;      /**< models/ stem */
  const char *title;      /**< figure title */
  const char *figure;     /**< figure file */
  const char *expect_off; /**< the rows the text names as off by > 25%, space-separated ids */
  double spearman_floor;  /**< the figure reached when written: the text's claim */
  bool best_predicted;    /**< the text says the measured best is predicted best */
  bool worst_predicted;   /**< the text says the measured worst is predicted worst */
} study_table;

static const study_table tables[] = {
    {"t10", "hybrid-910b.tsv", "llama-2-7b", "LLaMA 2 7B (Table 10)", "study-llama-2-7b.svg",
     "", 0.95, true, true},
    {"t11", "hybrid/hybrid-910b-table11.tsv", "llama-3.2-1b", "Llama 3.2 1B (Table 11)",
     "study-llama-3.2-1b.svg", "T11-02 T11-12", 0.94, true, true},
    {"t13", "hybrid/hybrid-910b-table13.tsv", "mamba-2-7b-amer", "Mamba-7B (Table 13)",
     "study-mamba-2-7b.svg", "T13-04 T13-12", 0.92, false, true},
    {"t14", "hybrid/hybrid-910b-table14.tsv", "mamba-2-1b-amer", "Mamba-1B (Table 14)",
     "study-mamba-2-1b.svg",
     "T14-01 T14-02 T14-05 T14-11 T14-12", 0.91, true, false},
};
#define N_TABLES (sizeof tables / sizeof tables[0])

/** The paper's printed throughput, memory (and whether it is usable) and MFU of row 'id'. */
typedef struct {
  double tps, mem, mem_known, mfu;
} paper_cols;

static bool read_paper_cols(chapter *ch, const char *id, paper_cols *out) {
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s/hybrid/paper-columns.txt", scale_measurements_dir());
  FILE *f = fopen(path, "r");
  if (!f) {
    chapter_error(ch, "cannot read %s", path);
    return false;
  }
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    char rid[32];
    paper_cols c;
    if (line[0] != '#' &&
        sscanf(line, "%31s %lf %lf %lf %lf", rid, &c.tps, &c.mem, &c.mem_known, &c.mfu) == 5 &&
        strcmp(rid, id) == 0)
      *out = c, found = true;
  }
  fclose(f);
  if (!found) chapter_error(ch, "%s: no row %s in paper-columns.txt", path, id);
  return found;
}

static void study_figure(chapter *ch, const study_table *t, const double *meas, const double *pred,
                         int n) {
  /* one dot per layout, the identity and the +-25% band */
  scale_plot_point pts[ROWS_MAX];
  double lo = meas[0], hi = meas[0];
  for (int i = 0; i < n; i++) {
    pts[i] = (scale_plot_point){meas[i], pred[i], NULL};
    lo = fmin(lo, fmin(meas[i], pred[i])), hi = fmax(hi, fmax(meas[i], pred[i]));
  }
  lo *= 0.7, hi *= 1.3;
  double dx[2] = {lo, hi}, dy[2] = {lo, hi}, up[2] = {1.25 * lo, 1.25 * hi},
         dn[2] = {0.75 * lo, 0.75 * hi};
  scale_plot_series s[3] = {{.label = "predicted = measured", .x = dx, .y = dy, .n = 2},
                            {.label = "+25%", .x = dx, .y = up, .n = 2, .dashed = true},
                            {.label = "-25%", .x = dx, .y = dn, .n = 2, .dashed = true}};
  scale_plot p = {.title = t->title,
                  .desc = "Predicted against measured step time of every layout (dots)",
                  .x_label = "measured step time [s]",
                  .y_label = "predicted step time [s]",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .x_min = lo,
                  .x_max = hi,
                  .y_min = lo,
                  .y_max = hi,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = 3,
                  .points = pts,
                  .n_points = (size_t)n};
  chapter_figure(ch, t->figure, &p);
}

/** One table of the study, loaded, with each row's device time and CP layer-microbatches. */
typedef struct {
  scale_measurement rows[ROWS_MAX];
  int n;
  scale_model m;
  scale_step_job job[ROWS_MAX];
  double device[ROWS_MAX]; /**< the step model's (or the Mamba composition's) time [s] */
  double units[ROWS_MAX];  /**< CP layer-microbatches of the slowest stage */
  double fixed[ROWS_MAX];  /**< the floor's part that is not the host's: TP collectives [s] */
  double stages[ROWS_MAX]; /**< Mamba-2 stages the stage latency charges (0: a transformer) */
  double pred[ROWS_MAX];   /**< the step as `scale train` prices it (stored parameters) [s] */
} study_data;

/** A row's step-model result with mesh_cp_host_s = h (NaN: the stored value). */
static void eval_row(const scale_step_job *j, const scale_step_params *prm, double h,
                     scale_step_result *r) {
  scale_step_params p = *prm;
  if (!isnan(h)) p.v[SCALE_STEP_MESH_CP_HOST_S] = h;
  if (j->model->arch == SCALE_ARCH_MAMBA2)
    scale_step_mamba2_result(j, &p, r);
  else
    scale_step_eval(j, &p, r);
}

static study_data study[N_TABLES];
static scale_chip study_chip;

static bool load_study(chapter *ch, const scale_step_params *prm) {
  if (!chapter_load_chip(ch, "ascend-910b", &study_chip)) return false;
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    study_data *sd = &study[ti];
    scale_diag d;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", scale_measurements_dir(), tables[ti].file);
    if (scale_measurements_load_file(path, sd->rows, ROWS_MAX, &sd->n, &d) != SCALE_OK) {
      chapter_error(ch, "%s:%d: %s", d.file, d.line, d.message);
      return false;
    }
    if (!chapter_load_model(ch, tables[ti].model, &sd->m)) return false;
    for (int i = 0; i < sd->n; i++) {
      sd->job[i] = scale_calib_step_job(&sd->rows[i], &sd->m, &study_chip);
      sd->device[i] = predict_s(&sd->job[i], prm);
      scale_step_result r1, r2, r;
      eval_row(&sd->job[i], prm, 1.0, &r1); /* the floor is linear in the host's time */
      eval_row(&sd->job[i], prm, 2.0, &r2);
      eval_row(&sd->job[i], prm, NAN, &r);
      sd->units[i] = r2.host_s - r1.host_s;
      sd->fixed[i] = r1.host_s - sd->units[i];
      sd->stages[i] = sd->m.arch == SCALE_ARCH_MAMBA2 ? scale_step_ssm_stages(&sd->job[i]) : 0;
      sd->pred[i] = r.step_s;
    }
  }
  return true;
}

/** Row i of a table as the framework's fit sees it. */
static scale_calib_framework_row fit_row(const study_data *sd, int i, int group) {
  return (scale_calib_framework_row){sd->device[i], sd->units[i], sd->fixed[i], sd->stages[i],
                                sd->rows[i].measured, group};
}

/** The framework's two parameters (host time per CP layer-microbatch, latency per added
 * Mamba-2 stage) fitted to the four tables into *h and *k; skip: a table left out (-1: none). */
static void fit_framework(int skip, double *h, double *k) {
  static scale_calib_framework_row rows[N_TABLES * ROWS_MAX];
  int n = 0;
  for (size_t ti = 0; ti < N_TABLES; ti++)
    for (int i = 0; i < study[ti].n; i++)
      rows[n++] = fit_row(&study[ti], i, (int)ti);
  if (scale_calib_fit_framework(rows, n, skip, h, k) != SCALE_OK) *h = *k = NAN;
}

/** Spearman of table ti's predictions with host time h and stage latency k against its
 * measurements. */
static double table_spearman(size_t ti, double h, double k) {
  double pred[ROWS_MAX], meas[ROWS_MAX];
  const study_data *sd = &study[ti];
  for (int i = 0; i < sd->n; i++) {
    scale_calib_framework_row r = fit_row(sd, i, 0);
    pred[i] = scale_calib_framework_row_s(&r, h, k);
    meas[i] = sd->rows[i].measured;
  }
  return scale_calib_spearman(pred, meas, sd->n);
}

/** Whether TP's collectives lengthen the host's floor: the mean measured time per CP
 * layer-microbatch of each table's rows without PP whose device time alone is below the
 * stored host time (the rows the host binds), pure CP (tp 1) against TP x CP. A LLaMA
 * layer's TP all-reduces follow its CP block with few launches behind them, so they add; a
 * Mamba-2 layer's one a pass is followed by the many launches of its chunked scan. */
static void section_cp_host_tp(chapter *ch, double stored) {
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    const study_data *sd = &study[ti];
    double cp_sum = 0, tp_sum = 0;
    int n_cp = 0, n_tp = 0;
    for (int i = 0; i < sd->n; i++) {
      const scale_measurement *r = &sd->rows[i];
      if (!(r->cp > 1 && r->pp == 1 && sd->device[i] / sd->units[i] < stored)) continue;
      double per = r->measured / sd->units[i];
      if (r->tp == 1) cp_sum += per, n_cp++;
      else tp_sum += per, n_tp++;
    }
    if (n_cp == 0 || n_tp == 0) continue;
    double cp_mean = cp_sum / n_cp, tp_mean = tp_sum / n_tp;
    chapter_valuef(ch, "pure CP, measured per layer-microbatch (mean)", cp_mean, "s",
                   SCALE_FMT_TIME, "host.tp_cp.%s", tables[ti].key);
    chapter_valuef(ch, "TP x CP, measured per layer-microbatch (mean)", tp_mean, "s",
                   SCALE_FMT_TIME, "host.tp_tpcp.%s", tables[ti].key);
    bool mamba = sd->m.arch == SCALE_ARCH_MAMBA2;
    chapter_claim(ch, true, mamba ? tp_mean <= cp_mean : tp_mean > 1.05 * cp_mean,
                  mamba ? "Mamba: TP adds nothing to the host's time per layer-microbatch"
                        : "LLaMA: TP x CP takes longer per layer-microbatch than pure CP");
  }
}

/** The CP host bound: its fit, left out table by table, and the measured time per CP
 * layer-microbatch of every pure-CP row (DP x CP only) it rests on. */
static void section_cp_host(chapter *ch, const scale_step_params *prm) {
  chapter_heading(ch, "CP on a host-synchronous framework: the host's time per layer-microbatch");
  double h, k, stored = prm->v[SCALE_STEP_MESH_CP_HOST_S];
  double stored_k = prm->v[SCALE_STEP_MESH_SSM_STAGE_S];
  fit_framework(-1, &h, &k);
  chapter_value(ch, "host.fit", "fitted here to the four tables", h, "s", SCALE_FMT_TIME);
  chapter_value(ch, "host.stored", "mesh_cp_host_s in hardware/ascend-910b.ini", stored, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "stage.fit", "Mamba-2 stage latency fitted with it", k, "s", SCALE_FMT_TIME);
  chapter_value(ch, "stage.stored", "mesh_ssm_stage_s in hardware/ascend-910b.ini", stored_k, "s",
                SCALE_FMT_TIME);
  chapter_claim(ch, true, fabs(h / stored - 1) < 0.01 && fabs(k / stored_k - 1) < 0.01,
                "the stored parameters are this fit (scale calibrate runs the same one)");
  double lo = INFINITY, hi = 0, m_lo = INFINITY, m_hi = 0;
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    double ht, kt;
    fit_framework((int)ti, &ht, &kt);
    lo = fmin(lo, ht), hi = fmax(hi, ht);
    chapter_valuef(ch, "host time fitted without this table", ht, "s", SCALE_FMT_TIME,
                   "host.logo.%s", tables[ti].key);
    chapter_valuef(ch, "stage latency fitted without this table", kt, "s", SCALE_FMT_TIME,
                   "stage.logo.%s", tables[ti].key);
    chapter_valuef(ch, "Spearman with that fit", table_spearman(ti, ht, kt), "", SCALE_FMT_PLAIN,
                   "%s.logo_spearman", tables[ti].key);
    const study_data *sd = &study[ti];
    for (int i = 0; i < sd->n; i++) {
      const scale_measurement *r = &sd->rows[i];
      if (!(r->cp > 1 && r->tp == 1 && r->pp == 1)) continue;
      double per = r->measured / sd->units[i], dev = sd->device[i] / sd->units[i];
      if (dev < stored) m_lo = fmin(m_lo, per), m_hi = fmax(m_hi, per); /* where the host binds */
      chapter_valuef(ch, "measured per CP layer-microbatch", per, "s", SCALE_FMT_TIME,
                     "host.meas.%s.cp%.0f", tables[ti].key, r->cp);
      chapter_valuef(ch, "the device's own time per layer-microbatch", dev, "s", SCALE_FMT_TIME,
                     "host.device.%s.cp%.0f", tables[ti].key, r->cp);
    }
  }
  chapter_value(ch, "host.logo_lo", "least of the held-out fits", lo, "s", SCALE_FMT_TIME);
  chapter_value(ch, "host.logo_hi", "most of the held-out fits", hi, "s", SCALE_FMT_TIME);
  chapter_value(ch, "host.meas_lo", "pure-CP rows the host binds: least", m_lo, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "host.meas_hi", "pure-CP rows the host binds: most", m_hi, "s", SCALE_FMT_TIME);
  chapter_claim(ch, true, h >= 1e-3 && h <= 3e-2, "the fit lies in the plausible 1-30 ms");
  chapter_claim(ch, true, hi / lo < 1.1, "the held-out fits agree within 10%");
  section_cp_host_tp(ch, stored);
}

static void section_study(chapter *ch) {
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    const study_table *t = &tables[ti];
    chapter_heading(ch, t->title);
    const study_data *sd = &study[ti];
    const scale_measurement *rows = sd->rows;
    int n = sd->n;
    double meas[ROWS_MAX], pred[ROWS_MAX], mem_m[ROWS_MAX], mem_p[ROWS_MAX];
    int n_mem = 0, best_m = 0, worst_m = 0, best_p = 0, worst_p = 0, n_off = 0;
    char off[512] = "";
    double abs_err = 0;
    for (int i = 0; i < n; i++) {
      const scale_measurement *r = &rows[i];
      paper_cols pc;
      if (!read_paper_cols(ch, r->id, &pc)) continue;
      meas[i] = r->measured;
      pred[i] = sd->pred[i];
      double mem = memory_bytes(&sd->m, r->dp, r->pp, r->tp, r->cp, r->gbs, r->seq);
      char stem[48];
      snprintf(stem, sizeof stem, "%s.r%02d", t->key, i + 1);
      layout_values(ch, stem, r->dp, r->pp, r->tp, r->cp);
      chapter_valuef(ch, "measured step", meas[i], "s", SCALE_FMT_PLAIN, "%s.meas_s", stem);
      chapter_valuef(ch, "predicted step", pred[i], "s", SCALE_FMT_PLAIN, "%s.pred_s", stem);
      chapter_valuef(ch, "device time alone", sd->device[i], "s", SCALE_FMT_PLAIN, "%s.device_s",
                     stem);
      chapter_valuef(ch, "predicted / measured", pred[i] / meas[i], "", SCALE_FMT_PLAIN, "%s.ratio",
                     stem);
      chapter_valuef(ch, "measured throughput", pc.tps, "tok/s", SCALE_FMT_SI, "%s.meas_tps", stem);
      chapter_valuef(ch, "predicted throughput", r->gbs * r->seq / pred[i], "tok/s", SCALE_FMT_SI,
                     "%s.pred_tps", stem);
      if (pc.mem_known > 0)
        chapter_valuef(ch, "measured memory", pc.mem, "B", SCALE_FMT_SI, "%s.meas_mem", stem);
      else
        chapter_valuef(ch, "measured memory (copy error: the MFU)", pc.mem, "B", SCALE_FMT_SI,
                       "%s.meas_mem", stem);
      chapter_valuef(ch, "predicted memory", mem, "B", SCALE_FMT_SI, "%s.pred_mem", stem);
      chapter_valuef(ch, "measured MFU", 100.0 * pc.mfu, "%", SCALE_FMT_PLAIN, "%s.meas_mfu", stem);
      /* the same FLOPs over the predicted time: the paper's MFU definition kept */
      chapter_valuef(ch, "predicted MFU", 100.0 * pc.mfu * meas[i] / pred[i], "%", SCALE_FMT_PLAIN,
                     "%s.pred_mfu", stem);
      if (pc.mem_known > 0) mem_m[n_mem] = pc.mem, mem_p[n_mem] = mem, n_mem++;
      double err = fabs(pred[i] / meas[i] - 1.0);
      abs_err += err;
      flag_value(ch, "off by more than 25%", err > OFF_FRAC, "%s.off", stem);
      if (err > OFF_FRAC) {
        n_off++;
        if (off[0]) strncat(off, " ", sizeof off - strlen(off) - 1);
        strncat(off, r->id, sizeof off - strlen(off) - 1);
      }
      if (meas[i] < meas[best_m]) best_m = i;
      if (meas[i] > meas[worst_m]) worst_m = i;
      if (pred[i] < pred[best_p]) best_p = i;
      if (pred[i] > pred[worst_p]) worst_p = i;
    }
    double rho = scale_calib_spearman(pred, meas, n);
    chapter_valuef(ch, "rows", n, "", SCALE_FMT_PLAIN, "%s.n", t->key);
    chapter_valuef(ch, "Spearman (step time)", rho, "", SCALE_FMT_PLAIN, "%s.spearman", t->key);
    chapter_valuef(ch, "Spearman (device time alone)", scale_calib_spearman(sd->device, meas, n),
                   "", SCALE_FMT_PLAIN, "%s.spearman_device", t->key);
    chapter_valuef(ch, "Spearman (memory)", scale_calib_spearman(mem_p, mem_m, n_mem), "",
                   SCALE_FMT_PLAIN, "%s.mem_spearman", t->key);
    chapter_valuef(ch, "mean |error|", 100.0 * abs_err / n, "%", SCALE_FMT_PLAIN, "%s.mape",
                   t->key);
    chapter_valuef(ch, "rows off by > 25%", n_off, "", SCALE_FMT_PLAIN, "%s.n_off", t->key);
    const struct {
      const char *what;
      int i;
    } ends[] = {{"best_meas", best_m},
                {"worst_meas", worst_m},
                {"best_pred", best_p},
                {"worst_pred", worst_p}};
    for (size_t e = 0; e < 4; e++) {
      char stem[48];
      snprintf(stem, sizeof stem, "%s.%s", t->key, ends[e].what);
      const scale_measurement *r = &rows[ends[e].i];
      layout_values(ch, stem, r->dp, r->pp, r->tp, r->cp);
      paper_cols pc;
      if (e < 2 && read_paper_cols(ch, r->id, &pc))
        chapter_valuef(ch, "measured MFU", 100.0 * pc.mfu, "%", SCALE_FMT_PLAIN, "%s.mfu", stem);
    }
    chapter_say(ch, "rows off by more than 25%%: %s", off[0] ? off : "none");
    const scale_measurement *bm = &rows[best_m], *bp = &rows[best_p], *wm = &rows[worst_m],
                            *wp = &rows[worst_p];
    bool best_ok = bm->dp == bp->dp && bm->pp == bp->pp && bm->tp == bp->tp && bm->cp == bp->cp;
    bool worst_ok = wm->dp == wp->dp && wm->pp == wp->pp && wm->tp == wp->tp && wm->cp == wp->cp;
    char what[700];
    snprintf(what, sizeof what, "%s: the best layout is%s predicted (the text says%s)", t->key,
             best_ok ? "" : " not", t->best_predicted ? " it is" : " it is not");
    chapter_claim(ch, true, best_ok == t->best_predicted, what);
    snprintf(what, sizeof what, "%s: the worst layout is%s predicted (the text says%s)", t->key,
             worst_ok ? "" : " not", t->worst_predicted ? " it is" : " it is not");
    chapter_claim(ch, true, worst_ok == t->worst_predicted, what);
    snprintf(what, sizeof what, "%s: the rows off by more than 25%% are [%s] (the text names [%s])",
             t->key, off, t->expect_off);
    chapter_claim(ch, true, strcmp(off, t->expect_off) == 0, what);
    snprintf(what, sizeof what, "%s: Spearman %.3f is at least the %.2f the text states", t->key,
             rho, t->spearman_floor);
    chapter_claim(ch, true, rho >= t->spearman_floor, what);
    study_figure(ch, t, meas, pred, n);
  }
}

/** A range the text cites, as the values '<table>.<what>_lo' and '_hi'. */
static void range_values(chapter *ch, const char *table, const char *what, const char *label,
                         double lo, double hi, const char *unit, scale_fmt style) {
  char l[160];
  snprintf(l, sizeof l, "%s: least", label);
  chapter_valuef(ch, l, lo, unit, style, "%s.%s_lo", table, what);
  snprintf(l, sizeof l, "%s: most", label);
  chapter_valuef(ch, l, hi, unit, style, "%s.%s_hi", table, what);
}

/** What one more pipeline stage adds to a measured step: over every pair of rows of a table
 * with the same TP and CP and different PP (DP takes the rest of the 8 devices),
 * (step(pp2) - step(pp1)) / (pp2 - pp1); its least and most per table. Measured alone, no
 * model: with dp = 8 / (tp pp cp) each device always runs 1024 x 4096 / 8 tokens of layers, so
 * a pipeline that cost only its sends and its 1F1B bubble ((pp - 1) / m of a step with
 * m = 1024 / dp microbatches) would add well under 1% of a step per stage. */
static void section_stage_cost(chapter *ch) {
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    const study_data *sd = &study[ti];
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < sd->n; i++)
      for (int k = 0; k < sd->n; k++) {
        const scale_measurement *a = &sd->rows[i], *b = &sd->rows[k];
        if (a->tp != b->tp || a->cp != b->cp || !(b->pp > a->pp)) continue;
        double per_stage = (b->measured - a->measured) / (b->pp - a->pp);
        lo = fmin(lo, per_stage), hi = fmax(hi, per_stage);
      }
    if (!(hi > 0)) continue;
    range_values(ch, tables[ti].key, "stage", "one more stage adds (measured)", lo, hi, "s",
                 SCALE_FMT_TIME);
    if (sd->m.arch == SCALE_ARCH_MAMBA2)
      chapter_claim(ch, true, lo > 0 && hi < 1.3 * lo,
                    "a Mamba table's stage cost is nearly one figure whatever TP, CP and DP");
  }
}

/** The index of layout (dp, pp, tp, cp) in a table, -1 if the table does not print it. */
static int find_row(const study_data *sd, double dp, double pp, double tp, double cp) {
  for (int i = 0; i < sd->n; i++) {
    const scale_measurement *r = &sd->rows[i];
    if (r->dp == dp && r->pp == pp && r->tp == tp && r->cp == cp) return i;
  }
  return -1;
}

/** Mamba-7B at TP 1 x CP 2 without PP, (4, 1, 1, 2), does not fit; its step extrapolated from
 * the two pipelines the table prints at TP 1 x CP 2, (2, 2, 1, 2) and (1, 4, 1, 2), one stage
 * costing what their difference gives a stage. */
static void section_mamba_tp1cp2(chapter *ch) {
  const study_data *sd = NULL;
  for (size_t ti = 0; ti < N_TABLES; ti++)
    if (strcmp(tables[ti].key, "t13") == 0) sd = &study[ti];
  int a = sd ? find_row(sd, 2, 2, 1, 2) : -1, b = sd ? find_row(sd, 1, 4, 1, 2) : -1;
  if (a < 0 || b < 0) return;
  double per_stage = (sd->rows[b].measured - sd->rows[a].measured) / 2.0;
  chapter_value(ch, "t13.tp1cp2_base", "Mamba-7B (4, 1, 1, 2) extrapolated from its pipelines",
                sd->rows[a].measured - per_stage, "s", SCALE_FMT_PLAIN);
}

/** Predicted over measured of each Mamba table's rows with neither CP nor PP (the
 * composition's own price: no floor, no stage latency): least and most. */
static void section_plain_rows(chapter *ch) {
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    const study_data *sd = &study[ti];
    double lo = INFINITY, hi = 0;
    if (sd->m.arch != SCALE_ARCH_MAMBA2) continue; /* the text cites the Mamba tables' */
    for (int i = 0; i < sd->n; i++)
      if (sd->rows[i].cp == 1 && sd->rows[i].pp == 1) {
        double ratio = sd->pred[i] / sd->rows[i].measured;
        lo = fmin(lo, ratio), hi = fmax(hi, ratio);
      }
    if (!(hi > 0)) continue;
    range_values(ch, tables[ti].key, "plain", "rows without CP or PP, pred / meas", lo, hi, "",
                 SCALE_FMT_PLAIN);
  }
}

/** Ranges the text cites: predicted over measured for groups of rows (pipelines of each
 * family, CP rows without PP) and the device model alone for the host-bound rows. */
static void section_study_groups(chapter *ch, const scale_step_params *prm) {
  chapter_heading(ch, "Predicted over measured, by group of rows");
  double stage_k = prm->v[SCALE_STEP_MESH_SSM_STAGE_S];
  double llama_pp_lo = INFINITY, llama_pp_hi = 0, cp_lo = INFINITY, cp_hi = 0;
  double mamba_pp_lo = INFINITY, mamba_pp_hi = 0, mamba_bare_hi = 0;
  double dev_cp_lo = INFINITY, dev_cp_hi = 0;
  for (size_t ti = 0; ti < N_TABLES; ti++) {
    const study_data *sd = &study[ti];
    bool mamba = sd->m.arch == SCALE_ARCH_MAMBA2;
    for (int i = 0; i < sd->n; i++) {
      const scale_measurement *r = &sd->rows[i];
      double pred = sd->pred[i];
      double ratio = pred / r->measured, dev = sd->device[i] / r->measured;
      if (r->pp > 1 && !mamba) llama_pp_lo = fmin(llama_pp_lo, ratio);
      if (r->pp > 1 && !mamba) llama_pp_hi = fmax(llama_pp_hi, ratio);
      if (r->pp > 1 && mamba) {
        mamba_pp_lo = fmin(mamba_pp_lo, ratio), mamba_pp_hi = fmax(mamba_pp_hi, ratio);
        /* the same step without the stage latency */
        double bare = (pred - sd->stages[i] * stage_k) / r->measured;
        mamba_bare_hi = fmax(mamba_bare_hi, bare);
      }
      if (r->cp > 1 && r->pp == 1 && ti != 0) { /* out of sample: Tables 11, 13, 14 */
        cp_lo = fmin(cp_lo, ratio), cp_hi = fmax(cp_hi, ratio);
        dev_cp_lo = fmin(dev_cp_lo, dev), dev_cp_hi = fmax(dev_cp_hi, dev);
      }
    }
  }
  chapter_value(ch, "groups.llama_pp_lo", "LLaMA pipelines: least pred / meas", llama_pp_lo, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.llama_pp_hi", "LLaMA pipelines: most pred / meas", llama_pp_hi, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.mamba_pp_bare_hi",
                "Mamba pipelines without the stage latency: most pred / meas", mamba_bare_hi, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.mamba_pp_lo", "Mamba pipelines: least pred / meas", mamba_pp_lo, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.mamba_pp_hi", "Mamba pipelines: most pred / meas", mamba_pp_hi, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.cp_lo", "CP rows without PP, Tables 11-14: least pred / meas", cp_lo,
                "", SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.cp_hi", "CP rows without PP, Tables 11-14: most pred / meas", cp_hi, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.dev_cp_lo", "the same rows, device time alone: least", dev_cp_lo, "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "groups.dev_cp_hi", "the same rows, device time alone: most", dev_cp_hi, "",
                SCALE_FMT_PLAIN);
  chapter_claim(ch, true, llama_pp_lo < 1.0 && llama_pp_hi > 1.0,
                "the LLaMA pipelines are priced on both sides of the measurement");
  chapter_claim(ch, true, mamba_bare_hi < 1.0,
                "without the stage latency every Mamba pipeline is predicted too fast");
  chapter_claim(ch, true, mamba_pp_lo < 1.0 && mamba_pp_hi > 1.0,
                "with it the Mamba pipelines are priced on both sides of the measurement");
  section_stage_cost(ch);
  section_mamba_tp1cp2(ch);
  section_plain_rows(ch);
}

int main(int argc, char **argv) {
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "13-hybrid-parallelism",
                         "The hybrid-parallelism study of Amer et al.: DP, TP, PP and CP for "
                         "Transformers and Mamba-2, reproduced.",
                         NULL);
  if (rc >= 0) return rc;
  scale_chip npu, h100;
  scale_model l7, l1, m7, m1, l8;
  if (!chapter_load_chip(&ch, "ascend-910b", &npu) ||
      !chapter_load_chip(&ch, "nvidia-h100-sxm", &h100) ||
      !chapter_load_model(&ch, "llama-2-7b", &l7) ||
      !chapter_load_model(&ch, "llama-3.2-1b", &l1) ||
      !chapter_load_model(&ch, "mamba-2-7b-amer", &m7) ||
      !chapter_load_model(&ch, "mamba-2-1b-amer", &m1) ||
      !chapter_load_model(&ch, "llama-3-8b", &l8))
    return chapter_end(&ch);
  /* The Ascend 910B's own fitted parameters (its [step] section). */
  scale_step_params prm;
  if (scale_step_params_of_chip(&npu, &prm) != SCALE_OK) {
    chapter_error(&ch, "hardware/ascend-910b.ini has no [step] section (run scale calibrate)");
    return chapter_end(&ch);
  }
  scale_step_params prm_h100;
  if (scale_step_params_of_chip(&h100, &prm_h100) != SCALE_OK) {
    chapter_error(&ch, "hardware/nvidia-h100-sxm.ini has no [step] section (run scale calibrate)");
    return chapter_end(&ch);
  }
  const scale_model *models[4] = {&l7, &l1, &m7, &m1};
  const char *const keys[4] = {"l7", "l1", "m7", "m1"};

  section_setup(&ch, &npu);
  section_volumes(&ch, &l7, &l1);
  section_memory(&ch, &l7, &npu);
  section_overlap(&ch, &l7, &l1, &npu, &h100);
  section_mamba(&ch, &m7, &m1, &l7);
  section_guide(&ch, models, keys, &npu, &h100, &l8, &prm, &prm_h100);
  section_planner(&ch, &l7, &npu, &prm);
  if (load_study(&ch, &prm)) {
    section_cp_host(&ch, &prm);
    section_study(&ch);
    section_study_groups(&ch, &prm);
  }
  return chapter_end(&ch);
}
