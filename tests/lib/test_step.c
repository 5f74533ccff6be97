/* test_step.c — the step model (step.h): its cost primitives against hand derivations, its
 * overlap rules as properties that fail when a rule is dropped, and its parameter loader.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale/step.h"
#include "scale/transformer.h"
#include "scale_check.h"

static scale_chip chip(const char *name) {
  scale_chip c;
  scale_diag diag;
  ck_assert_msg(scale_chip_load(name, &c, &diag) == SCALE_OK, "%s", diag.message);
  return c;
}

static scale_model model(const char *name) {
  scale_model m;
  scale_diag diag;
  ck_assert_msg(scale_model_load(name, &m, &diag) == SCALE_OK, "%s", diag.message);
  return m;
}

/** Parameters with round values for the hand derivations. */
static scale_step_params round_params(void) {
  scale_step_params p = scale_step_params_prior();
  p.v[SCALE_STEP_MM_ETA_MAX] = 0.8;
  p.v[SCALE_STEP_MM_DIM_HALF] = 32;
  p.v[SCALE_STEP_UP_LATENCY_S] = 1e-5;
  p.v[SCALE_STEP_UP_BW_ETA] = 0.7;
  p.v[SCALE_STEP_UP_HALF_BYTES] = 1e6;
  return p;
}

START_TEST(matmul_eta_gpu_waves) {
  /* A100, 108 SMs: a 4096^3 matmul has 32 x 32 = 1024 output tiles of 128 x 128, issued in
   * ceil(1024/108) = 10 waves of 108: q = 4096^2 / (10 x 108 x 128^2) = 0.948148; the
   * dimension factor (4096/4128)^3 = 0.976920; eta = 0.8 q dims = 0.741015. */
  scale_chip a100 = chip("nvidia-a100-80gb");
  scale_step_params p = round_params();
  scale_check_rel(scale_step_matmul_eta(&a100, &p, 4096, 4096, 4096, 1), 0.741015, 1e-5, "1",
                  "hand derivation in the comment");
  /* a 64-way shard of the MLP (n = 28672 / 64 = 448) loses to quantization and size */
  double big = scale_step_matmul_eta(&a100, &p, 8192, 28672, 8192, 1);
  double shard = scale_step_matmul_eta(&a100, &p, 8192, 448, 8192, 1);
  ck_assert_msg(shard < 0.95 * big, "shard %g vs whole %g", shard, big);
  scale_check_nan(scale_step_matmul_eta(&a100, &p, 0, 1, 1, 1));
}
END_TEST

START_TEST(kernel_gemm_time) {
  /* A 4096^3 bf16 GEMM on an A100 at the round parameters: eta 0.741015 (matmul_eta_gpu_waves);
   * 2 x 4096^3 FLOPs / (312e12 x 0.741015) = 594.468 us, over its 3 x 4096^2 x 2 bytes at
   * 2.039e12 x 0.7 B/s (70.5 us); plus kernel_s 5 us: 599.468 us. */
  scale_chip a100 = chip("nvidia-a100-80gb"), h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  double bytes = 2.0 * 3 * 4096 * 4096;
  scale_check_rel(scale_step_kernel_gemm_s(&a100, &p, SCALE_DTYPE_BF16, 4096, 4096, 4096, 1, bytes),
                  5.994677e-4, 1e-5, "s", "hand derivation in the comment");
  /* the same shape bound by 1e10 bytes: 1e10 / (2.039e12 x 0.7) + 5 us = 7.011236 ms */
  scale_check_rel(scale_step_kernel_gemm_s(&a100, &p, SCALE_DTYPE_BF16, 4096, 4096, 4096, 1, 1e10),
                  7.011236e-3, 1e-5, "s", "hand derivation in the comment");
  /* fp8 on an H100 (132 SMs: 8 waves, q = 0.969697; dims 0.976920; eta 0.757856) at its fp8
   * peak 1.98e15 x lowp_eta 0.85: 1.3744e11 / (1.683e15 x 0.757856) + 5 us = 112.755 us */
  scale_check_rel(scale_step_kernel_gemm_s(&h100, &p, SCALE_DTYPE_FP8, 4096, 4096, 4096, 1, 5e7),
                  1.127554e-4, 1e-5, "s", "hand derivation in the comment");
  /* an A100 has no fp8 peak; a GEMM moving no bytes is no GEMM */
  scale_check_nan(scale_step_kernel_gemm_s(&a100, &p, SCALE_DTYPE_FP8, 4096, 4096, 4096, 1, bytes));
  scale_check_nan(scale_step_kernel_gemm_s(&a100, &p, SCALE_DTYPE_BF16, 4096, 4096, 4096, 1, 0));
}
END_TEST

START_TEST(matmul_eta_tpu_alignment) {
  /* TPU v5p: m = 100 fills 100/128 of the MXU; n = 128 and k = 256 are aligned.
   * eta = 0.8 x 0.78125 x (100/101)(128/129)(256/257) = 0.611626 with d_half = 1. */
  scale_chip v5p = chip("tpu-v5p");
  scale_step_params p = round_params();
  p.v[SCALE_STEP_MM_DIM_HALF] = 1;
  scale_check_rel(scale_step_matmul_eta(&v5p, &p, 100, 128, 256, 1), 0.611626, 1e-5, "1",
                  "hand derivation in the comment");
}
END_TEST

START_TEST(collective_latency_and_size) {
  /* AllReduce of 8e8 bytes on a ring of 8 at 3e11 B/s: 14 steps x 10 us = 140 us, plus link
   * bytes 2 x 7/8 x 8e8 = 1.4e9 at 3e11 x 0.7 x 1e8 / (1e8 + 1e6) B/s (messages of
   * 8e8 / 8 = 1e8 bytes): 6.7333 ms; total 6.87333 ms. */
  scale_step_params p = round_params();
  scale_check_rel(scale_step_collective_s(&p, SCALE_STEP_NET_UP, 3e11, SCALE_COLL_ALL_REDUCE, 8,
                                          8e8),
                  6.87333e-3, 1e-5, "s", "hand derivation in the comment");
  ck_assert_double_eq(
      scale_step_collective_s(&p, SCALE_STEP_NET_UP, 3e11, SCALE_COLL_ALL_REDUCE, 1, 8e8), 0);
  /* small messages reach a smaller fraction of the bandwidth: 1000x fewer bytes take far more
   * than 1/1000 of the time */
  double small = scale_step_collective_s(&p, SCALE_STEP_NET_UP, 3e11, SCALE_COLL_ALL_REDUCE, 8,
                                         8e5);
  ck_assert_msg(small > 10 * 6.87333e-6, "small message %g s", small);
}
END_TEST

START_TEST(torus_collective_three_axes_hand) {
  /* A 4 x 4 x 4 group (64 chips) on ICI, links of 1e11 B/s one way: 2 x 1e11 x 3 = 6e11 B/s
   * over its three axes both ways (book ch. 3: V / (W_bidi n_axes)). ici_latency 1 us, bw_eta
   * 0.8, half size 1e5 bytes. AllGather of V = 6.4e7 bytes: one bidirectional ring per axis,
   * 4 / 2 = 2 hops each, 3 x 2 = 6 latency steps (the book's T_hop sum(N_i) / 2 = 12 / 2),
   * 6 us; link bytes 63/64 x 6.4e7 = 6.3e7 at 6e11 x 0.8 x 1e6 / (1e6 + 1e5) = 4.363636e11
   * B/s (ring messages of 6.4e7 / 64 = 1e6 bytes): 144.375 us; total 150.375 us. AllReduce:
   * twice both, 300.75 us. As one ring of 64 on one axis the latency would be 64 / 2 = 32
   * steps: 26 us more for the gather. */
  scale_step_params p = round_params();
  p.v[SCALE_STEP_ICI_LATENCY_S] = 1e-6;
  p.v[SCALE_STEP_ICI_BW_ETA] = 0.8;
  p.v[SCALE_STEP_ICI_HALF_BYTES] = 1e5;
  const scale_step_net ici = SCALE_STEP_NET_ICI;
  scale_check_rel(scale_step_torus_collective_s(&p, ici, 6e11, SCALE_COLL_ALL_GATHER, 64, 3,
                                                6.4e7),
                  150.375e-6, 1e-9, "s", "hand derivation in the comment");
  scale_check_rel(scale_step_torus_collective_s(&p, ici, 6e11, SCALE_COLL_ALL_REDUCE, 64, 3,
                                                6.4e7),
                  300.75e-6, 1e-9, "s", "hand derivation in the comment");
  scale_check_rel(scale_step_torus_collective_s(&p, ici, 6e11, SCALE_COLL_ALL_GATHER, 64, 1,
                                                6.4e7),
                  176.375e-6, 1e-9, "s", "one axis: 32 steps, hand derivation");
  /* scale_step_collective_s is the one-axis case; elsewhere the axes do not count */
  ck_assert_double_eq(scale_step_collective_s(&p, ici, 6e11, SCALE_COLL_ALL_GATHER, 64, 6.4e7),
                      scale_step_torus_collective_s(&p, ici, 6e11, SCALE_COLL_ALL_GATHER, 64, 1,
                                                    6.4e7));
  ck_assert_double_eq(
      scale_step_torus_collective_s(&p, SCALE_STEP_NET_UP, 3e11, SCALE_COLL_ALL_GATHER, 8, 3,
                                    8e8),
      scale_step_collective_s(&p, SCALE_STEP_NET_UP, 3e11, SCALE_COLL_ALL_GATHER, 8, 8e8));
}
END_TEST

START_TEST(torus_axes_of_a_group) {
  /* v5p pod 16 x 20 x 28 (book ch. 2): 16 chips fit the longest axis; 560 = 28 x 20 fill two;
   * 1024 > 560 needs all three. A layout's share can raise the count (3 for 16 chips), never
   * past two chips an axis (4 chips: 2 x 2) or the torus's axes (v5e: a 16 x 16 2-D torus). */
  scale_chip v5p = chip("tpu-v5p"), v5e = chip("tpu-v5e"), a100 = chip("nvidia-a100-80gb");
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 16, 1), 1);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 28, 1), 1);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 29, 1), 2);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 560, 1), 2);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 1024, 1), 3);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 16, 3), 3);
  ck_assert_double_eq(scale_step_torus_axes(&v5p, 4, 3), 2);
  ck_assert_double_eq(scale_step_torus_axes(&v5e, 256, 1), 2);
  ck_assert_double_eq(scale_step_torus_axes(&v5e, 1024, 3), 2);
  ck_assert_double_eq(scale_step_torus_axes(&a100, 64, 3), 1);
  scale_check_nan(scale_step_torus_axes(&v5p, 0, 1));
}
END_TEST

START_TEST(rule_fsdp_on_three_axes_latency) {
  /* ZeRO-3 over 1024 v5p chips (chapter 6's book layout has fsdp 1024): each layer gathers
   * its weights twice and reduce-scatters its gradients once. As one ring per axis over
   * three axes each gather takes 3 x 1024^(1/3) / 2 = 15.119 latency steps, against
   * 1024 / 2 = 512 as one ring; the bandwidth terms are the same. So the FSDP time of the
   * step differs by microbatches x layers x 3 x (512 - 15.119) x ici_latency. */
  scale_model m = model("llama-3-70b");
  scale_chip v5p = chip("tpu-v5p");
  scale_step_params p = round_params();
  p.v[SCALE_STEP_ICI_LATENCY_S] = 1e-6;
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = &m, j.chip = &v5p;
  j.dp = 1024, j.tp = 1, j.pp = 1, j.cp = 1, j.ep = 1, j.zero = 3, j.fsdp = 1024;
  j.mbs = 1, j.vp = 1, j.gbs = 1024, j.seq = 4096;
  j.recompute = SCALE_RECOMPUTE_FULL, j.attention = SCALE_ATTENTION_FLASH;
  j.dtype = SCALE_DTYPE_BF16, j.mapped = true;
  for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++) {
    j.link[k].net = SCALE_STEP_NET_ICI;
    j.link[k].bytes_per_s = 2 * v5p.ici_link_bytes_per_s;
    j.link[k].n_axes = 1;
  }
  scale_step_result one, three;
  scale_step_eval(&j, &p, &one);
  j.link[SCALE_STEP_COMM_FSDP].n_axes = 3;
  scale_step_eval(&j, &p, &three);
  double steps3 = 3 * cbrt(1024.0) / 2;
  double expect = one.microbatches * one.layers_per_stage * 3 * (512 - steps3) * 1e-6;
  scale_check_rel(one.comm_s[SCALE_STEP_COMM_FSDP] - three.comm_s[SCALE_STEP_COMM_FSDP], expect,
                  1e-9, "s", "hand derivation in the comment");
}
END_TEST

/* A job over 8 chips, FSDP (ZeRO-3), 8 sequences of 8192 a chip, no recompute, flash. */
static scale_step_job fsdp8_job(const scale_model *m, const scale_chip *c) {
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = m, j.chip = c;
  j.dp = 8, j.tp = 1, j.pp = 1, j.cp = 1, j.ep = 1, j.zero = 3, j.fsdp = 8;
  j.mbs = 1, j.vp = 1, j.gbs = 64, j.seq = 8192;
  j.recompute = SCALE_RECOMPUTE_NONE, j.attention = SCALE_ATTENTION_FLASH;
  return j;
}

/* Quantized matmuls pay a cast of every linear layer's input: read in bf16 (2 bytes) and
 * written in the narrow format, 1 byte for fp8 and 0.5625 for nvfp4 (4 bits plus one e4m3 scale
 * per 16 values), the same elements either way, so the cast's bytes are in the ratio
 * (2 + 0.5625) / (2 + 1) = 0.854167. Each cast also pays the same per-kernel cost in both, which
 * pulls the ratio of their times from that toward 1 (but never to 1). bf16 pays none. */
START_TEST(cp_allgather_on_the_critical_path) {
  /* LLaMA 3 8B, one 32768-token sequence over cp 8 H100 of one NVLink domain: each rank holds
   * t = 4096 tokens and all-gathers the whole sequence's K and V, 8 KV heads of 128 in 16
   * bits: 8 x 4096 x 2 x 8 x 128 x 2 = 134,217,728 bytes gathered forward and dK, dV reduce-
   * scattered backward, both on the critical path; full recompute gathers again. Per step:
   * 32 layers x (gather + scatter), 32 x (2 gather + scatter) with full recompute. */
  scale_model m = model("llama-3-8b");
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  scale_step_job j = fsdp8_job(&m, &h100);
  j.dp = 1, j.fsdp = 0, j.zero = 0, j.cp = 8, j.gbs = 1, j.seq = 32768, j.cp_allgather = true;
  double w, bytes = 134217728.0;
  scale_step_net net = scale_step_group_net(&h100, 1, 8, &w);
  double gather = scale_step_collective_s(&p, net, w, SCALE_COLL_ALL_GATHER, 8, bytes);
  double scatter = scale_step_collective_s(&p, net, w, SCALE_COLL_REDUCE_SCATTER, 8, bytes);
  scale_step_result r;
  scale_step_eval(&j, &p, &r);
  scale_check_rel(r.exposed_s[SCALE_STEP_COMM_CP], 32 * (gather + scatter), 1e-9, "s",
                  "hand derivation in the comment");
  j.recompute = SCALE_RECOMPUTE_FULL;
  scale_step_eval(&j, &p, &r);
  scale_check_rel(r.exposed_s[SCALE_STEP_COMM_CP], 32 * (2 * gather + scatter), 1e-9, "s",
                  "hand derivation in the comment");
}
END_TEST

START_TEST(fp4_pays_its_cast) {
  scale_model m = model("llama-3-8b");
  scale_chip b200 = chip("nvidia-b200");
  scale_step_params p = round_params();
  scale_step_job j = fsdp8_job(&m, &b200);
  scale_step_result r[3];
  const scale_dtype dtypes[3] = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP8, SCALE_DTYPE_FP4};
  for (int i = 0; i < 3; i++) {
    j.dtype = dtypes[i];
    scale_step_eval(&j, &p, &r[i]);
  }
  ck_assert(r[0].op_s[SCALE_STEP_OP_FP8_CAST] == 0.0);
  ck_assert(r[2].op_s[SCALE_STEP_OP_FP8_CAST] > 0.0);
  double ratio = r[2].op_s[SCALE_STEP_OP_FP8_CAST] / r[1].op_s[SCALE_STEP_OP_FP8_CAST];
  ck_assert_msg(ratio >= 2.5625 / 3.0 && ratio < 0.95, "fp4/fp8 cast time ratio %g", ratio);
  /* the attention core stays in bf16 under both: the same scores time */
  scale_check_rel(r[2].op_s[SCALE_STEP_OP_SCORES], r[1].op_s[SCALE_STEP_OP_SCORES], 1e-12, "s",
                  "attention in bf16 for fp8 and fp4");
}
END_TEST

/* lowp_eta discounts the 8-bit GEMMs' rate: the B200's fp8 peak is twice its bf16 one, so at
 * lowp_eta 0.5 a math-bound linear layer (LLaMA 3 8B's QKV and MLP over 8192 tokens) takes
 * exactly its bf16 time, and at 1 half of that less the per-kernel costs; the attention core
 * stays in bf16 either way. */
START_TEST(lowp_eta_discounts_8bit_gemms) {
  scale_model m = model("llama-3-8b");
  scale_chip b200 = chip("nvidia-b200");
  scale_check_rel(scale_chip_flops_per_s(&b200, SCALE_DTYPE_FP8),
                  2 * scale_chip_flops_per_s(&b200, SCALE_DTYPE_BF16), 1e-12, "FLOP/s",
                  "fp8 peak = 2 x bf16");
  scale_step_params p = round_params();
  scale_step_job j = fsdp8_job(&m, &b200);
  scale_step_result bf16, half, full;
  j.dtype = SCALE_DTYPE_BF16;
  scale_step_eval(&j, &p, &bf16);
  j.dtype = SCALE_DTYPE_FP8;
  p.v[SCALE_STEP_LOWP_ETA] = 0.5;
  scale_step_eval(&j, &p, &half);
  p.v[SCALE_STEP_LOWP_ETA] = 1.0;
  scale_step_eval(&j, &p, &full);
  scale_check_rel(half.op_s[SCALE_STEP_OP_QKV], bf16.op_s[SCALE_STEP_OP_QKV], 1e-12, "s",
                  "QKV: fp8 at half its efficiency = bf16");
  ck_assert(full.op_s[SCALE_STEP_OP_QKV] < 0.6 * half.op_s[SCALE_STEP_OP_QKV]);
  scale_check_rel(full.op_s[SCALE_STEP_OP_SCORES], half.op_s[SCALE_STEP_OP_SCORES], 1e-12, "s",
                  "attention in bf16");
}
END_TEST

/* A LLaMA 2 7B job on 8 Ascend 910B (hybrid paper Table 10's setting). */
typedef struct {
  scale_model m;
  scale_chip c;
  scale_step_job j;
} fixture;

static fixture job_910b(double dp, double tp, double pp, double cp) {
  fixture f;
  f.m = model("llama-2-7b");
  f.c = chip("ascend-910b");
  memset(&f.j, 0, sizeof f.j);
  f.j.dp = dp, f.j.tp = tp, f.j.pp = pp, f.j.cp = cp, f.j.ep = 1;
  f.j.mbs = 1, f.j.vp = 1, f.j.gbs = 1024, f.j.seq = 4096;
  f.j.recompute = SCALE_RECOMPUTE_NONE;
  f.j.attention = SCALE_ATTENTION_FLASH;
  f.j.dtype = SCALE_DTYPE_BF16;
  return f;
}

static scale_step_result eval(fixture *f) {
  f->j.model = &f->m;
  f->j.chip = &f->c;
  scale_step_params p = scale_step_params_prior();
  scale_step_result r;
  scale_step_eval(&f->j, &p, &r);
  return r;
}

START_TEST(step_identity) {
  /* step = (compute + exposed TP, CP, FSDP, EP, PP) (1 + bubble) + exposed DP + optimizer +
   * per-step overhead: the composition step.h documents, for every layout of Table 10 */
  static const double layouts[][4] = {{4, 1, 2, 1}, {2, 4, 1, 1}, {1, 2, 2, 2}, {1, 1, 8, 1},
                                      {1, 1, 1, 8}, {2, 2, 1, 2}};
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    fixture f = job_910b(layouts[i][0], layouts[i][1], layouts[i][2], layouts[i][3]);
    scale_step_result r = eval(&f);
    double pipe = r.compute_s;
    for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
      if (k != SCALE_STEP_COMM_DP) pipe += r.exposed_s[k];
    double want = pipe * (1 + r.bubble_frac) + r.exposed_s[SCALE_STEP_COMM_DP] + r.optimizer_s +
                  r.overhead_s;
    scale_check_rel(r.step_s, want, 1e-12, "s", "step.h composition");
    for (int k = 0; k < SCALE_STEP_COMM_COUNT; k++)
      ck_assert_msg(r.exposed_s[k] <= r.comm_s[k] * (1 + 1e-12), "%s exposed > time",
                    scale_step_comm_name(k));
  }
}
END_TEST

/** Time of a weight-gradient GEMM (in x tokens by tokens x out) at the priors,
 * as step.h prices any matmul: max(FLOPs / (C eta), bytes / (W mem_eta)) + kernel_s. */
static double wgrad_s(const scale_chip *c, double in, double out, double tokens) {
  scale_step_params p = scale_step_params_prior();
  double eta = scale_step_matmul_eta(c, &p, in, out, tokens, 1);
  double t_math = 2 * in * out * tokens / (c->flops_per_s[SCALE_DTYPE_BF16] * eta);
  double t_mem = 2 * (in * tokens + tokens * out + in * out) /
                 (c->hbm_bytes_per_s * p.v[SCALE_STEP_MEM_ETA]);
  return fmax(t_math, t_mem) + p.v[SCALE_STEP_KERNEL_S];
}

START_TEST(rule_tp_critical_unless_overlapped) {
  /* LLaMA 2 7B, TP 4, no recompute: 4 all-reduces a layer. The 2 forward ones are on the
   * critical path; each backward one, the input gradient of a column-parallel linear, runs
   * beside that linear's weight-gradient GEMM (Megatron's async TP all-reduce) and shows only
   * what outlasts it: QKV's wgrad is 4096 x 3072 (8 + 2 x 8 heads of 128 a rank) over 4096
   * tokens, the gated MLP's up projection's 4096 x 5504 (2 x 11008 / 4). */
  fixture f = job_910b(2, 4, 1, 1);
  scale_step_result plain = eval(&f);
  ck_assert_double_gt(plain.comm_s[SCALE_STEP_COMM_TP], 0);
  double units = plain.microbatches * plain.layers_per_stage;
  double ar = plain.comm_s[SCALE_STEP_COMM_TP] / (4 * units);
  double want = 2 * ar + fmax(0, ar - wgrad_s(&f.c, 4096, 3072, 4096)) +
                fmax(0, ar - wgrad_s(&f.c, 4096, 5504, 4096));
  scale_check_rel(plain.exposed_s[SCALE_STEP_COMM_TP] / units, want, 1e-9, "s",
                  "the rule in the comment");
  ck_assert_double_lt(plain.exposed_s[SCALE_STEP_COMM_TP], plain.comm_s[SCALE_STEP_COMM_TP]);
  f.j.tp_overlap = true;
  scale_step_result hidden = eval(&f);
  ck_assert_double_lt(hidden.exposed_s[SCALE_STEP_COMM_TP], plain.exposed_s[SCALE_STEP_COMM_TP]);
  ck_assert_double_lt(hidden.step_s, plain.step_s);
  ck_assert_int_eq(plain.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_MESH);
}
END_TEST

START_TEST(rule_tp_across_nodes_is_scale_out) {
  /* TP 16 on 8-GPU H100 nodes leaves the NVLink domain */
  scale_model m = model("llama-3-70b");
  scale_chip c = chip("nvidia-h100-sxm");
  scale_step_job j = {.model = &m, .chip = &c, .dp = 1, .tp = 16, .pp = 1, .cp = 1, .ep = 1,
                      .mbs = 1, .vp = 1, .gbs = 16, .seq = 8192, .dtype = SCALE_DTYPE_BF16,
                      .attention = SCALE_ATTENTION_FLASH};
  scale_step_params p = scale_step_params_prior();
  scale_step_result wide, narrow;
  scale_step_eval(&j, &p, &wide);
  j.tp = 8, j.dp = 2;
  scale_step_eval(&j, &p, &narrow);
  ck_assert_int_eq(wide.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_OUT);
  ck_assert_int_eq(narrow.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_UP);
  ck_assert_double_gt(wide.exposed_s[SCALE_STEP_COMM_TP], narrow.exposed_s[SCALE_STEP_COMM_TP]);
}
END_TEST

START_TEST(full_mesh_uses_n_minus_1_links) {
  /* Ascend HCCS is a full mesh without switches: TP 2 talks over 1 of 7 links, TP 4 over 3,
   * so one TP-4 all-reduce (2 x 3/4 of the bytes over 3 links) beats TP 2's (2 x 1/2 over 1).
   * Behind NVSwitch (A100) every group gets the full egress and TP 2 moves fewer bytes. */
  fixture f2 = job_910b(4, 2, 1, 1), f4 = job_910b(2, 4, 1, 1);
  scale_step_result r2 = eval(&f2), r4 = eval(&f4);
  double per_ar2 = r2.comm_s[SCALE_STEP_COMM_TP] / (r2.microbatches * r2.layers_per_stage);
  double per_ar4 = r4.comm_s[SCALE_STEP_COMM_TP] / (r4.microbatches * r4.layers_per_stage);
  ck_assert_double_gt(per_ar2, per_ar4);
  ck_assert_int_eq(r2.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_MESH);
  scale_step_params p = scale_step_params_prior();
  double w = 3e11, bytes = 3.3e7;
  ck_assert_double_lt(
      scale_step_collective_s(&p, SCALE_STEP_NET_UP, w, SCALE_COLL_ALL_REDUCE, 2, bytes),
      scale_step_collective_s(&p, SCALE_STEP_NET_UP, w, SCALE_COLL_ALL_REDUCE, 4, bytes));
}
END_TEST

START_TEST(cp_ring_pass_over_one_mesh_link) {
  /* CP 2 on the 910B mesh: each pass sends this rank's K and V, t = 4096 / 2 tokens x 2 x 32
   * heads x 128 x 2 bytes = 33,554,432 bytes, over ONE direct link of 1.96e11 / 7 = 2.8e10 B/s.
   * Priors: 10 us + 33554432 / (2.8e10 x 0.7 x 33554432 / (33554432 + 1e6)) = 1.772981 ms;
   * forward 1 pass, backward 2: 3 per layer per microbatch; m = 1024 / 4 = 256, 32 layers:
   * 8192 x 3 x 1.772981e-3 = 43.5729 s per step. */
  fixture f = job_910b(4, 1, 1, 2);
  scale_step_result r = eval(&f);
  scale_check_rel(r.comm_s[SCALE_STEP_COMM_CP], 43.5729, 1e-5, "s",
                  "hand derivation in the comment");
  ck_assert_int_eq(r.net[SCALE_STEP_COMM_CP], SCALE_STEP_NET_MESH);
}
END_TEST

START_TEST(rule_cp_hidden_under_attention_only) {
  /* CP 8 on one host: the ring's exposed part is what attention's compute cannot cover */
  fixture f = job_910b(1, 1, 1, 8);
  scale_step_result r = eval(&f);
  double attn = r.op_s[SCALE_STEP_OP_SCORES] + r.op_s[SCALE_STEP_OP_VALUES];
  scale_check_rel(r.exposed_s[SCALE_STEP_COMM_CP],
                  fmax(0, r.comm_s[SCALE_STEP_COMM_CP] - attn), 1e-9, "s", "the CP rule");
}
END_TEST

START_TEST(rule_dp_last_bucket_exposed) {
  /* DP 8: at least one bucket's reduction is exposed, never more than all of them */
  fixture f = job_910b(8, 1, 1, 1);
  scale_step_result r = eval(&f);
  ck_assert_double_gt(r.exposed_s[SCALE_STEP_COMM_DP], 0);
  ck_assert_double_lt(r.exposed_s[SCALE_STEP_COMM_DP], r.comm_s[SCALE_STEP_COMM_DP]);
}
END_TEST

START_TEST(rule_pp_bubble_and_sends) {
  /* PP 8, m = 1024 microbatches: bubble (p - 1) / m = 7/1024; 2 sends per microbatch */
  fixture f = job_910b(1, 1, 8, 1);
  scale_step_result r = eval(&f);
  scale_check_rel(r.bubble_frac, 7.0 / 1024, 1e-12, "1", "1F1B bubble (p-1)/m");
  ck_assert_double_gt(r.exposed_s[SCALE_STEP_COMM_PP], 0);
  scale_check_rel(r.layers_per_stage, 4, 1e-12, "layers", "32 / 8");
}
END_TEST

START_TEST(rule_pp_send_scatter_gather) {
  /* PP 4 x TP 2 on the 910B mesh, m = 1024 / 1 = 1024 microbatches, one virtual stage: each
   * microbatch sends its activations forward and their gradients back, 2 sends. Megatron's
   * scatter/gather (Narayanan et al. 2021 sec. 4.1): each TP rank sends its half of the
   * t x d = 4096 x 4096 x 2 bytes over one direct link (1.96e11 / 7 B/s), and the receiving
   * stage all-gathers the 33,554,432 bytes over its TP pair (1 of the 7 links); with SP the
   * halves are the stage's sharded input and nothing is gathered. */
  fixture f = job_910b(1, 2, 4, 1);
  scale_step_result r = eval(&f);
  scale_step_params p = scale_step_params_prior();
  double link = f.c.nvlink_bytes_per_s / 7, bytes = 4096.0 * 4096 * 2;
  double send = scale_step_send_s(&p, SCALE_STEP_NET_MESH, link, bytes / 2);
  double gather =
      scale_step_collective_s(&p, SCALE_STEP_NET_MESH, link, SCALE_COLL_ALL_GATHER, 2, bytes);
  ck_assert_int_eq(r.net[SCALE_STEP_COMM_PP], SCALE_STEP_NET_MESH);
  scale_check_rel(r.comm_s[SCALE_STEP_COMM_PP], 1024 * 2 * (send + gather), 1e-12, "s",
                  "hand derivation in the comment");
  f.j.sp = true;
  r = eval(&f);
  scale_check_rel(r.comm_s[SCALE_STEP_COMM_PP], 1024 * 2 * send, 1e-12, "s", "SP: no gather");
}
END_TEST

START_TEST(attention_kinds_and_recompute) {
  fixture f = job_910b(8, 1, 1, 1);
  scale_step_result flash = eval(&f);
  ck_assert_double_eq(flash.op_s[SCALE_STEP_OP_SOFTMAX], 0);
  f.j.attention = SCALE_ATTENTION_UNFUSED;
  scale_step_result unfused = eval(&f);
  ck_assert_double_gt(unfused.op_s[SCALE_STEP_OP_SOFTMAX], 0);
  ck_assert_double_gt(unfused.step_s, flash.step_s);
  f.j.attention = SCALE_ATTENTION_FLASH;
  f.j.recompute = SCALE_RECOMPUTE_FULL;
  scale_step_result full = eval(&f);
  f.j.recompute = SCALE_RECOMPUTE_SELECTIVE;
  scale_step_result sel = eval(&f);
  ck_assert_double_gt(full.step_s, sel.step_s);
  ck_assert_double_gt(sel.step_s, flash.step_s);
  /* full recompute of the MLP: forward counted twice, i.e. more than selective's */
  ck_assert_double_gt(full.op_s[SCALE_STEP_OP_MLP_UP], sel.op_s[SCALE_STEP_OP_MLP_UP]);
}
END_TEST

START_TEST(domain_nan) {
  fixture f = job_910b(0, 1, 1, 1);
  scale_step_result r = eval(&f);
  scale_check_nan(r.step_s);
}
END_TEST

START_TEST(mfu_of_the_best_layout_is_plausible) {
  /* Table 10's best layout ran at 63.7% MFU; the model at its priors lands in 30-90% */
  fixture f = job_910b(4, 1, 2, 1);
  scale_step_result r = eval(&f);
  ck_assert_msg(r.mfu > 0.3 && r.mfu < 0.9, "mfu %g", r.mfu);
}
END_TEST

/* ---- parameter files ------------------------------------------------------------------------ */

static scale_status load_params_text(const char *text, int *line) {
  char path[] = "/tmp/scale-step-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *fp = fdopen(fd, "w");
  fputs(text, fp);
  fclose(fp);
  scale_step_params p;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_step_params_load_file(path, &p, &diag);
  *line = diag.line;
  unlink(path);
  return st;
}

START_TEST(params_file_strict) {
  /* the [step] section of a hardware file: other sections (the chip's, [step_fit]) skipped */
  char good[4096] = "[chip]\nkind = gpu\n[step_fit]\nby = test\n[step]\n";
  scale_step_params prior = scale_step_params_prior();
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) {
    char line[128];
    snprintf(line, sizeof line, "%s = %.17g\n", scale_step_param_describe(i)->key, prior.v[i]);
    strcat(good, line);
  }
  int line;
  ck_assert_int_eq(load_params_text(good, &line), SCALE_OK);
  char bad[4200];
  snprintf(bad, sizeof bad, "%sbogus = 1\n", good);
  ck_assert_int_eq(load_params_text(bad, &line), SCALE_ERR_UNKNOWN_KEY);
  ck_assert_int_eq(line, 5 + SCALE_STEP_N_PARAMS + 1);
  snprintf(bad, sizeof bad, "%smm_eta_max = 0.5\n", good);
  ck_assert_int_eq(load_params_text(bad, &line), SCALE_ERR_DUPLICATE_KEY);
  ck_assert_int_eq(load_params_text("[step]\nmm_eta_max = 1.5\n", &line), SCALE_ERR_RANGE);
  ck_assert_int_eq(line, 2);
  ck_assert_int_eq(load_params_text("[step]\nmm_eta_max = 0.7\n", &line),
                   SCALE_ERR_MISSING_KEY);
  /* a file without [step] has no parameters */
  ck_assert_int_eq(load_params_text("[chip]\nkind = gpu\n", &line), SCALE_ERR_MISSING_KEY);
}
END_TEST

START_TEST(param_ranges_hold_priors) {
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) {
    const scale_step_param_info *d = scale_step_param_describe(i);
    ck_assert_msg(d->lo <= d->prior && d->prior <= d->hi, "%s prior outside range", d->key);
    ck_assert_msg(strlen(d->meaning) > 20, "%s has no meaning", d->key);
  }
  ck_assert_ptr_null(scale_step_param_describe(SCALE_STEP_N_PARAMS));
}
END_TEST

/* The serving forward pass (issue 14 Deliver 8, scale infer): a decode step on one chip with
 * large weights is bound by reading them; a hand derivation of one linear op. */
START_TEST(forward_decode_hand) {
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_model m = model("llama-3-70b");
  scale_step_params p = scale_step_params_prior();
  scale_step_forward_job f = {&m, &h100, 1, 8, 1, 1024, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16,
                              SCALE_DTYPE_BF16};
  scale_step_forward_result r;
  scale_step_forward_eval(&f, &p, &r);
  /* MLP down: 8 tokens x 28672 by 28672 x 8192 in bf16: bytes 2 (8 x 28672 + 8 x 8192) +
   * 2 x 28672 x 8192 = 470,417,408; at W x mem_eta = 3.35e12 x 0.7 that is 200.6 us (the
   * math, at a full tile's efficiency, is far below); plus one kernel of 5 us; 80 layers. */
  double bytes = 2.0 * (8 * 28672 + 8 * 8192) + 2.0 * 28672 * 8192;
  double one = bytes / (h100.hbm_bytes_per_s * 0.7) + 5e-6;
  scale_check_rel(r.op_s[SCALE_STEP_OP_MLP_DOWN], 80 * one, 1e-12, "s", "hand derivation");
  ck_assert(r.tp_s == 0); /* one chip: no TP */
  double sum = 0;
  for (int i = 0; i < SCALE_STEP_OP_COUNT; i++) sum += r.op_s[i];
  scale_check_rel(r.step_s, sum, 1e-12, "s", "parts sum to the pass");
  /* int8 weights read half the bytes of the linear layers: a faster decode */
  f.weight_dtype = SCALE_DTYPE_INT8;
  scale_step_forward_result q;
  scale_step_forward_eval(&f, &p, &q);
  ck_assert(q.op_s[SCALE_STEP_OP_MLP_DOWN] < 0.6 * r.op_s[SCALE_STEP_OP_MLP_DOWN]);
  /* TP 8 on NVLink adds two all-reduces per layer on the critical path */
  f.tp = 8;
  scale_step_forward_eval(&f, &p, &q);
  ck_assert_int_eq(q.tp_net, SCALE_STEP_NET_UP);
  ck_assert(q.tp_s > 0);
  f.context = 0; /* below new_tokens: outside the domain */
  scale_step_forward_eval(&f, &p, &q);
  scale_check_nan(q.step_s);
}
END_TEST

/* ZeRO-3 gathers a layer's weights twice and reduce-scatters its gradients, per microbatch and
 * layer: an average layer holds (N - embeddings) / L parameters (LLaMA-2-7B: (6.738e9 -
 * 2 x 32000 x 4096) / 32 = 2.024e8), 16-bit, over tp. A regression: it once used the attention
 * plus one MLP divided by L (5x too few bytes). */
START_TEST(rule_zero3_gathers_whole_layers) {
  fixture f = job_910b(8, 1, 1, 1);
  f.j.zero = 3;
  scale_step_result r = eval(&f);
  scale_step_params p = scale_step_params_prior();
  double layer = (scale_transformer_n_params(&f.m) - scale_transformer_n_embedding_params(&f.m)) /
                 (double)f.m.n_layers * 2.0;
  ck_assert(layer > 3.9e8 && layer < 4.2e8);
  double w;
  scale_step_net net = scale_step_group_net(&f.c, 1, 8, &w);
  double one = 2 * scale_step_collective_s(&p, net, w, SCALE_COLL_ALL_GATHER, 8, layer) +
               scale_step_collective_s(&p, net, w, SCALE_COLL_REDUCE_SCATTER, 8, layer);
  double m = 1024.0 / 8.0; /* gbs / (dp mbs) */
  scale_check_rel(r.comm_s[SCALE_STEP_COMM_FSDP], m * f.m.n_layers * one, 1e-12, "s",
                  "2 all-gathers + 1 reduce-scatter of a whole layer, per microbatch and layer");
}
END_TEST

START_TEST(worst_exposed_picks_largest) {
  /* none exposed: -1; the largest wins; on a tie the first in enum order */
  scale_step_result r;
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(scale_step_worst_exposed(&r), -1);
  ck_assert_int_eq(scale_step_worst_exposed(NULL), -1);
  r.exposed_s[SCALE_STEP_COMM_CP] = 2e-3;
  r.exposed_s[SCALE_STEP_COMM_DP] = 2e-3;
  ck_assert_int_eq(scale_step_worst_exposed(&r), SCALE_STEP_COMM_CP);
  r.exposed_s[SCALE_STEP_COMM_PP] = 3e-3;
  ck_assert_int_eq(scale_step_worst_exposed(&r), SCALE_STEP_COMM_PP);
}
END_TEST


/* ---- MoE (issue 27): the expert grid, permutation, all-to-all rule, shared experts ----- */

/** A Qwen3-30B-A3B job on H100 (48 MoE layers, E = 128, k = 8, d = 2048): dp 8, ep 8, one
 * sequence of 4096 a replica, so one microbatch. */
static scale_step_job qwen3_job(const scale_model *m, const scale_chip *c) {
  scale_step_job j;
  memset(&j, 0, sizeof j);
  j.model = m, j.chip = c;
  j.dp = 8, j.tp = j.pp = j.cp = 1, j.ep = 8, j.mbs = 1, j.vp = 1, j.gbs = 8, j.seq = 4096;
  j.zero = 1, j.attention = SCALE_ATTENTION_FLASH, j.dtype = SCALE_DTYPE_BF16;
  return j;
}

START_TEST(moe_permutation_hand) {
  /* Each rank routes t = 4096 tokens to k = 8 experts: 32768 copies of d = 2048 16-bit values.
   * One pass moves 2 (t + copies) d 2 bytes = 2 x 36864 x 2048 x 2 = 301,989,888 bytes in 7
   * kernels (permute 4, un-permute 3) and one host sync (moe_sync_s); forward and backward, 48
 * layers, 1 microbatch. With a
   * capacity factor of 2 the copies double: 2 x (4096 + 65536) x 2048 x 2 = 570,425,344. */
  scale_model m = model("qwen3-30b-a3b");
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  scale_step_job j = qwen3_job(&m, &h100);
  scale_step_result r;
  double w = h100.hbm_bytes_per_s * p.v[SCALE_STEP_MEM_ETA], k = p.v[SCALE_STEP_KERNEL_S];
  scale_step_eval(&j, &p, &r);
  double sync = p.v[SCALE_STEP_MOE_SYNC_S];
  scale_check_rel(r.op_s[SCALE_STEP_OP_PERMUTE], 48 * 2 * (301989888.0 / w + 7 * k + sync), 1e-12,
                  "s", "hand derivation in the comment");
  j.capacity_factor = 2;
  scale_step_eval(&j, &p, &r);
  scale_check_rel(r.op_s[SCALE_STEP_OP_PERMUTE], 48 * 2 * (570425344.0 / w + 7 * k + sync), 1e-12,
                  "s",
                  "hand derivation in the comment");
  /* a dense model has no router and permutes nothing */
  scale_model dense = model("llama-3-8b");
  j.model = &dense, j.ep = 1, j.capacity_factor = 0;
  scale_step_eval(&j, &p, &r);
  ck_assert(r.op_s[SCALE_STEP_OP_PERMUTE] == 0 && r.op_s[SCALE_STEP_OP_ROUTER] == 0);
}
END_TEST

/** One GEMM of m x k by k x n at the step model's cost (step.h): max of math and memory. */
static double gemm_s(const scale_chip *c, const scale_step_params *p, double m, double n,
                     double k, double batch) {
  double peak = scale_chip_flops_per_s(c, SCALE_DTYPE_BF16);
  double math = 2 * m * n * k * batch / (peak * scale_step_matmul_eta(c, p, m, n, k, batch));
  double mem = 2 * batch * (m * k + k * n + m * n) / (c->hbm_bytes_per_s * p->v[SCALE_STEP_MEM_ETA]);
  return fmax(math, mem);
}

START_TEST(moe_grouped_gemm_by_expert_shape) {
  /* Qwen3-30B, ep 8: a rank holds 128 / 8 = 16 experts, each running 4096 x 8 x 8 / 128 = 2048
   * tokens through d_ff_expert = 768 (SwiGLU up: 2 x 768 wide): forward, input and weight
   * gradient GEMMs as one grouped GEMM each of 16, at grouped_eta of the shape's efficiency,
   * plus one kernel each; 48 layers, 1 microbatch. */
  scale_model m = model("qwen3-30b-a3b");
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  p.v[SCALE_STEP_GROUPED_ETA] = 0.5;
  scale_step_job j = qwen3_job(&m, &h100);
  scale_step_result r;
  scale_step_eval(&j, &p, &r);
  double k = p.v[SCALE_STEP_KERNEL_S], g = 0.5;
  double up = gemm_s(&h100, &p, 2048, 1536, 2048, 16) + gemm_s(&h100, &p, 2048, 2048, 1536, 16) +
              gemm_s(&h100, &p, 2048, 1536, 2048, 16);
  scale_check_rel(r.op_s[SCALE_STEP_OP_MLP_UP], 48 * (up / g + 3 * k), 1e-9, "s",
                  "hand derivation in the comment");
  /* ep 16 doubles each expert's tokens on half the experts: the same FLOPs in fewer, fuller
   * GEMMs, so no slower */
  j.dp = 16, j.gbs = 16, j.ep = 16;
  scale_step_result r16;
  scale_step_eval(&j, &p, &r16);
  ck_assert(r16.op_s[SCALE_STEP_OP_MLP_UP] <= r.op_s[SCALE_STEP_OP_MLP_UP]);
}
END_TEST

START_TEST(moe_shared_experts_are_dense_mlps) {
  /* DeepSeek-V3 at tp 1: 58 of its 61 layers route, each with one shared expert of width 2048
   * (SwiGLU: up 2 x 2048) run over all t tokens as a dense MLP; removing it takes 58/61 of
   * that MLP's up GEMMs (forward, input gradient, weight gradient, one kernel each) away;
   * with its MTP module trained (n_mtp_layers 1, job.mtp), one more average layer on the
   * last stage: 62 in all. */
  scale_model m = model("deepseek-v3"), bare = m;
  bare.n_shared_experts = 0;
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  scale_step_job j = qwen3_job(&m, &h100);
  j.ep = 8, j.pp = 1, j.mtp = true;
  scale_step_result with, without;
  scale_step_eval(&j, &p, &with);
  j.model = &bare;
  scale_step_eval(&j, &p, &without);
  double t = 4096, d = 7168, f = 2 * 2048, k = p.v[SCALE_STEP_KERNEL_S];
  double shared = gemm_s(&h100, &p, t, f, d, 1) + gemm_s(&h100, &p, t, d, f, 1) +
                  gemm_s(&h100, &p, d, f, t, 1) + 3 * k;
  scale_check_rel(with.op_s[SCALE_STEP_OP_MLP_UP] - without.op_s[SCALE_STEP_OP_MLP_UP],
                  62 * (58.0 / 61) * shared, 1e-9, "s", "hand derivation in the comment");
}
END_TEST

START_TEST(mla_projections_hand) {
  /* DeepSeek-V3's MLA at tp 1 in place of Q, K, V: the query down-projection 7168 -> 1536,
   * its up-projection 1536 -> 128 x (128 + 64) = 24576, the joint KV down-projection 7168 ->
   * 512 + 64 = 576 and the latent's up-projection 512 -> 128 x (128 + 128) = 32768; each a
   * forward, an input-gradient and a weight-gradient GEMM plus a kernel each, on t = 4096
   * tokens; 61 layers, 1 microbatch (the MTP module untrained: job.mtp false). */
  scale_model m = model("deepseek-v3");
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  scale_step_job j = qwen3_job(&m, &h100);
  scale_step_result r;
  scale_step_eval(&j, &p, &r);
  const double io[4][2] = {{7168, 1536}, {1536, 24576}, {7168, 576}, {512, 32768}};
  double t = 4096, k = p.v[SCALE_STEP_KERNEL_S], layer = 0;
  for (int i = 0; i < 4; i++)
    layer += gemm_s(&h100, &p, t, io[i][1], io[i][0], 1) +
             gemm_s(&h100, &p, t, io[i][0], io[i][1], 1) +
             gemm_s(&h100, &p, io[i][0], io[i][1], t, 1) + 3 * k;
  scale_check_rel(r.op_s[SCALE_STEP_OP_QKV], 61 * layer, 1e-9, "s",
                  "hand derivation in the comment");
}
END_TEST

START_TEST(moe_ep_spans_tp_and_its_rule) {
  /* EP 32 on DP 16 x TP 2 (expert TP 1, the MoE grid folded over the stage's 32 ranks) is a
   * valid layout; EP 32 on DP 16 x TP 1 is not (32 does not divide 16), nor an expert TP that
   * does not divide tp. The all-to-alls' exposed share is ep_exposed_frac of their time. */
  scale_model m = model("qwen3-235b-a22b");
  scale_chip h100 = chip("nvidia-h100-sxm");
  scale_step_params p = round_params();
  p.v[SCALE_STEP_EP_EXPOSED_FRAC] = 0.25;
  scale_step_job j = qwen3_job(&m, &h100);
  j.dp = 16, j.tp = 2, j.sp = true, j.ep = 32, j.pp = 8, j.gbs = 128;
  scale_step_result r;
  scale_step_eval(&j, &p, &r);
  ck_assert(isfinite(r.step_s) && r.comm_s[SCALE_STEP_COMM_EP] > 0);
  scale_check_rel(r.exposed_s[SCALE_STEP_COMM_EP], 0.25 * r.comm_s[SCALE_STEP_COMM_EP], 1e-12, "s",
                  "the rule: ep_exposed_frac x the all-to-alls' time");
  /* 32 ranks, 1 apart, span four 8-GPU nodes: the scale-out fabric. Each rank routes
   * t / tp = 2048 tokens to k = 8 experts: 16384 copies x d 4096 x 2 bytes = 134,217,728
   * bytes, 1/32 to each peer (4,194,304): 7/32 to its node's peers over NVLink, 24/32 over
   * its own NIC, at once; one latency each. 4 all-to-alls a layer, 94 / 8 = 11.75 layers a
   * stage, 128 / 16 = 8 microbatches. */
  ck_assert_int_eq(r.net[SCALE_STEP_COMM_EP], SCALE_STEP_NET_OUT);
  double bytes = 134217728.0, peer = bytes / 32;
  double up = h100.nvlink_bytes_per_s * p.v[SCALE_STEP_UP_BW_ETA] * peer /
              (peer + p.v[SCALE_STEP_UP_HALF_BYTES]);
  double out = h100.dcn_bytes_per_s * p.v[SCALE_STEP_OUT_BW_ETA] * peer /
               (peer + p.v[SCALE_STEP_OUT_HALF_BYTES]);
  double a2a = fmax(p.v[SCALE_STEP_UP_LATENCY_S] + bytes * 7 / 32 / up,
                    p.v[SCALE_STEP_OUT_LATENCY_S] + bytes * 24 / 32 / out);
  scale_check_rel(r.comm_s[SCALE_STEP_COMM_EP], 8 * 11.75 * 4 * a2a, 1e-12, "s",
                  "hand derivation in the comment");
  j.tp = 1, j.pp = 16;
  scale_step_eval(&j, &p, &r);
  scale_check_nan(r.step_s);
  j.tp = 2, j.pp = 8, j.etp = 3;
  scale_step_eval(&j, &p, &r);
  scale_check_nan(r.step_s);
}
END_TEST

static Suite *step_suite(void) {
  Suite *s = suite_create("step");
  const scale_check_case cases[] = {
      {"matmul_eta_gpu_waves", matmul_eta_gpu_waves},
      {"kernel_gemm_time", kernel_gemm_time},
      {"cp_allgather_on_the_critical_path", cp_allgather_on_the_critical_path},
      {"worst_exposed_picks_largest", worst_exposed_picks_largest},
      {"matmul_eta_tpu_alignment", matmul_eta_tpu_alignment},
      {"collective_latency_and_size", collective_latency_and_size},
      {"torus_collective_three_axes_hand", torus_collective_three_axes_hand},
      {"torus_axes_of_a_group", torus_axes_of_a_group},
      {"rule_fsdp_on_three_axes_latency", rule_fsdp_on_three_axes_latency},
      {"step_identity", step_identity},
      {"rule_tp_critical_unless_overlapped", rule_tp_critical_unless_overlapped},
      {"rule_tp_across_nodes_is_scale_out", rule_tp_across_nodes_is_scale_out},
      {"full_mesh_uses_n_minus_1_links", full_mesh_uses_n_minus_1_links},
      {"cp_ring_pass_over_one_mesh_link", cp_ring_pass_over_one_mesh_link},
      {"rule_cp_hidden_under_attention_only", rule_cp_hidden_under_attention_only},
      {"rule_dp_last_bucket_exposed", rule_dp_last_bucket_exposed},
      {"rule_pp_bubble_and_sends", rule_pp_bubble_and_sends},
      {"rule_pp_send_scatter_gather", rule_pp_send_scatter_gather},
      {"attention_kinds_and_recompute", attention_kinds_and_recompute},
      {"domain_nan", domain_nan},
      {"mfu_of_the_best_layout_is_plausible", mfu_of_the_best_layout_is_plausible},
      {"params_file_strict", params_file_strict},
      {"param_ranges_hold_priors", param_ranges_hold_priors},
      {"forward_decode_hand", forward_decode_hand},
      {"rule_zero3_gathers_whole_layers", rule_zero3_gathers_whole_layers},
      {"fp4_pays_its_cast", fp4_pays_its_cast},
      {"lowp_eta_discounts_8bit_gemms", lowp_eta_discounts_8bit_gemms},
      {"moe_permutation_hand", moe_permutation_hand},
      {"moe_grouped_gemm_by_expert_shape", moe_grouped_gemm_by_expert_shape},
      {"moe_shared_experts_are_dense_mlps", moe_shared_experts_are_dense_mlps},
      {"moe_ep_spans_tp_and_its_rule", moe_ep_spans_tp_and_its_rule},
      {"mla_projections_hand", mla_projections_hand},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(step_suite()); }
