/* test_training.c — unit tests of scale/training.h against hand derivations.
 *
 * Each strategy's per-layer bytes are checked against the book's ch. 5
 * algorithms worked by hand on a small model written out below (so every number
 * can be recomputed on paper); memory per ZeRO stage against the ZeRO paper
 * (Rajbhandari et al., arXiv 1910.02054, Figure 1: 2 + 2 + 12 bytes per
 * parameter); the bubble against the schedules' formulas; validation against
 * each inconsistency the command must reject in one line.
 */
#include <math.h>
#include <string.h>

#include "scale/training.h"
#include "scale_check.h"

#define EXACT 1e-12

/* A toy dense model: L = 4, D = 1024, F = 4096 (plain 2-matrix MLP), N = K = 8,
 * H = 128, V = 1000, untied. Per layer: attention 2D(N+K)H = 2*1024*16*128 =
 * 4,194,304; MLP 2DF = 8,388,608; two norms 2D = 2048; total 12,584,960
 * parameters. */
#define TOY_LAYER_PARAMS 12584960.0
static scale_model toy(void) {
  scale_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.name, "toy");
  strcpy(m.display_name, "Toy");
  m.arch = SCALE_ARCH_TRANSFORMER;
  m.n_layers = 4;
  m.d_model = 1024;
  m.n_vocab = 1000;
  m.n_ctx_max = 4096;
  m.n_heads = 8;
  m.n_kv_heads = 8;
  m.d_head = 128;
  m.d_ff = 4096;
  m.gated_mlp = false;
  return m;
}

/* A TPU-like chip: 1e14 FLOP/s bf16, one-way ICI link 1e10 B/s on 3 axes, a
 * 4x4x4 pod, DCN 1e9 B/s per chip, 16 GB HBM, $2/h. */
static scale_chip tpu(void) {
  scale_chip c;
  memset(&c, 0, sizeof c);
  strcpy(c.name, "tpu-toy");
  strcpy(c.display_name, "TPU toy");
  c.kind = SCALE_HW_TPU;
  for (int i = 0; i < SCALE_DTYPE_COUNT; i++)
    c.flops_per_s[i] = NAN;
  c.flops_per_s[SCALE_DTYPE_BF16] = 1e14;
  c.hbm_bytes = 16e9;
  c.hbm_bytes_per_s = 1e12;
  c.ici_link_bytes_per_s = 1e10;
  c.ici_n_axes = 3;
  c.pod_shape[0] = c.pod_shape[1] = c.pod_shape[2] = 4;
  c.wrap_axis_multiple = 4;
  c.nvlink_bytes_per_s = NAN;
  c.nvlink_domain_size = NAN;
  c.dcn_bytes_per_s = 1e9;
  c.usd_per_hour = 2.0;
  c.n_chips = 1;
  return c;
}

/* Evaluates after validating (a failed validation fails the test with its
 * message). */
static scale_train_result eval_ok(const scale_train_problem *p, const scale_layout *l) {
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_train_validate(p, l, &diag);
  ck_assert_msg(st == SCALE_OK, "validate: %s", diag.message);
  scale_train_result r;
  scale_train_eval(p, l, &r);
  return r;
}

/* ---- per-layer bytes of each strategy -------------------------------------------------------- */

START_TEST(test_dp_bytes) {
  /* Pure DP over 8 chips on 1 axis: backward AllReduce of the layer's bf16
   * gradients, 2V with V = 2 x 12,584,960 bytes (book: "0 + 8DF" for the MLP's
   * 2DF parameters); no forward traffic. Bandwidth W_ici = 2 x 1e10 on one
   * axis. */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.dp = 8;
  scale_train_layout_map(&c, 8, &l);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_DP], SCALE_TRAIN_LINK_ICI);
  scale_check_rel(l.n_axes[SCALE_TRAIN_DIM_DP], 3.0, EXACT, "axes",
                  "one ICI dimension spans all 3");
  l.n_axes[SCALE_TRAIN_DIM_DP] = 1;
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  const scale_train_comm_cost *ar = &r.comm[SCALE_TRAIN_COMM_DP_ALL_REDUCE];
  scale_check_rel(ar->fwd_bytes_per_layer, 0.0, EXACT, "B", "DP forward has no comms");
  scale_check_rel(ar->bwd_bytes_per_layer, 4.0 * TOY_LAYER_PARAMS, EXACT, "B", "2 x 2P bytes");
  scale_check_rel(ar->bwd_time_per_layer_s, 4.0 * TOY_LAYER_PARAMS / 2e10, EXACT, "s",
                  "2V / W_ici");
  /* The whole step: every layer and the embeddings (2VD + D = 2,049,024), once.
   */
  double stage = 4 * TOY_LAYER_PARAMS + 2049024.0;
  scale_check_rel(ar->step_bytes, 4.0 * stage, EXACT, "B", "2 x 2 bytes x all params");
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].step_bytes, 0.0, EXACT, "B", "no FSDP");
}
END_TEST

START_TEST(test_fsdp_bytes) {
  /* ZeRO-3 over 8 chips, 2 microbatches: per microbatch the layer's bf16
   * weights are gathered forward and backward (2P bytes each) and its gradients
   * reduce-scattered (2P); book "4DF + 8DF" per MLP layer. Over the step, x2
   * microbatches. */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  l.n_microbatches = 2;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 16 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  const scale_train_comm_cost *ag = &r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER];
  const scale_train_comm_cost *rs = &r.comm[SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER];
  scale_check_rel(ag->fwd_bytes_per_layer, 2 * 2.0 * TOY_LAYER_PARAMS, EXACT, "B", "2 ubatch x 2P");
  scale_check_rel(ag->bwd_bytes_per_layer, 2 * 2.0 * TOY_LAYER_PARAMS, EXACT, "B", "re-gather");
  scale_check_rel(rs->fwd_bytes_per_layer, 0.0, EXACT, "B", "no forward ReduceScatter");
  scale_check_rel(rs->bwd_bytes_per_layer, 2 * 2.0 * TOY_LAYER_PARAMS, EXACT, "B", "2 x 2P");
  /* One ICI dimension alone spans the 3 axes: W = 2 x 1e10 x 3. */
  scale_check_rel(ag->bandwidth_bytes_per_s, 6e10, EXACT, "B/s", "W_ici x M_X = 3");
  /* ZeRO-2: gradients scattered and weights re-gathered once per step only. */
  l.zero_stage = 2;
  r = eval_ok(&p, &l);
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].bwd_bytes_per_layer,
                  2.0 * TOY_LAYER_PARAMS, EXACT, "B", "ZeRO-2: one AllGather per step");
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].fwd_bytes_per_layer, 0.0, EXACT, "B",
                  "ZeRO-2 holds full weights");
}
END_TEST

START_TEST(test_tp_bytes) {
  /* TP 4 on 8 chips (fsdp 2), no remat: each of the two blocks AllGathers its
   * [tokens, D] bf16 input and ReduceScatters its output, forward and backward;
   * tokens = B / fsdp = 2 x 4096. Forward AllGather bytes = 2 blocks x 8192 x
   * 1024 x 2. Book: "4BD + 4BD". */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 2;
  l.tp = 4;
  l.remat = SCALE_REMAT_NONE;
  scale_train_layout_map(&c, 8, &l);
  scale_check_rel(l.n_axes[SCALE_TRAIN_DIM_FSDP], 1.0, EXACT, "axes", "tp is larger: fsdp 1 axis");
  scale_check_rel(l.n_axes[SCALE_TRAIN_DIM_TP], 2.0, EXACT, "axes", "tp the rest: 2 axes");
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 4 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  double v = 2.0 * 8192.0 * 1024.0 * 2.0;
  const scale_train_comm_cost *ag = &r.comm[SCALE_TRAIN_COMM_TP_ALL_GATHER];
  scale_check_rel(ag->fwd_bytes_per_layer, v, EXACT, "B", "2 blocks x 2 B D");
  scale_check_rel(ag->bwd_bytes_per_layer, v, EXACT, "B", "transpose in backward");
  scale_check_rel(ag->fwd_time_per_layer_s, v / (2e10 * 2.0), EXACT, "s", "V / (W M_Y)");
  scale_check_rel(ag->step_bytes, 2.0 * v * 4, EXACT, "B", "fwd + bwd x 4 layers");
  /* Block remat runs the forward collectives again in the backward pass. */
  l.remat = SCALE_REMAT_BLOCK;
  r = eval_ok(&p, &l);
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_TP_REDUCE_SCATTER].bwd_bytes_per_layer, 2.0 * v, EXACT,
                  "B", "recomputed forward");
  /* FSDP under TP gathers only the TP shard: P / 4 x 2 bytes per pass. */
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].fwd_bytes_per_layer,
                  TOY_LAYER_PARAMS / 4.0 * 2.0, EXACT, "B", "book AllGather_X(W[D_X, F_Y])");
}
END_TEST

START_TEST(test_pp_and_dcn_bytes) {
  /* 2 slices of 64 over DCN (dp 2), pp 2 x fsdp 32 inside: the pipeline sends
   * the chip's [tokens, D] activations forward and gradients back: tokens = B /
   * (dp fsdp) = 4096, so 2 x 4096 x 1024 x 2 bytes per step, over one one-way
   * link (1e10). */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.dp = 2;
  l.fsdp = 32;
  l.pp = 2;
  l.n_microbatches = 2;
  scale_train_layout_map(&c, 128, &l);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_DP], SCALE_TRAIN_LINK_DCN);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_FSDP], SCALE_TRAIN_LINK_ICI);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_PP], SCALE_TRAIN_LINK_ICI);
  scale_train_problem p = scale_train_problem_make(&m, &c, 128, 64 * 2 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  const scale_train_comm_cost *send = &r.comm[SCALE_TRAIN_COMM_PP_SEND];
  scale_check_rel(send->step_bytes, 2.0 * 2.0 * 4096 * 1024 * 2.0, EXACT, "B", "fwd + bwd sends");
  scale_check_rel(send->step_time_s, send->step_bytes / 1e10, EXACT, "s", "one link one way");
  /* DP over DCN AllReduces the chip's FSDP shard of the gradient: 2 x 2 bytes x
   * P / 32 per layer (book ch. 5: 2 x 2 x 2 DF / (M W_dcn)). */
  const scale_train_comm_cost *ar = &r.comm[SCALE_TRAIN_COMM_DP_ALL_REDUCE];
  scale_check_rel(ar->bwd_bytes_per_layer, 4.0 * TOY_LAYER_PARAMS / 32.0, EXACT, "B", "2 x shard");
  scale_check_rel(ar->bandwidth_bytes_per_s, 1e9, EXACT, "B/s", "per-chip DCN egress");
  /* 1F1B with p = m = 2: bubble (p-1)/m = 1/2. */
  scale_check_rel(r.bubble_frac, 0.5, EXACT, "", "(p-1)/m");
}
END_TEST

START_TEST(test_uneven_stages) {
  /* The toy's 4 layers over pp 3: stages of 2, 1, 1 layers. The fullest stage (2 layers)
   * sets the pace, so compute time is ceil(4/3) x 3 / 4 = 1.5 x the even split's; the
   * FLOPs done per chip are unchanged. pp 2 and pp 4 split evenly (factor 1). */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_train_problem p = scale_train_problem_make(&m, &c, 6, 12 * 4096, 4096);
  scale_layout l = scale_layout_default();
  l.fsdp = 2;
  l.pp = 3;
  l.n_microbatches = 3;
  scale_train_layout_map(&c, 6, &l);
  scale_train_result r = eval_ok(&p, &l);
  double even = r.flops_per_chip / 1e14;
  scale_check_rel(r.compute_time_s, 1.5 * even, 1e-12, "s", "ceil(4/3) x 3 / 4 = 1.5");
  p = scale_train_problem_make(&m, &c, 4, 12 * 4096, 4096);
  l.fsdp = 2;
  l.pp = 2;
  l.n_microbatches = 2;
  scale_train_layout_map(&c, 4, &l);
  r = eval_ok(&p, &l);
  scale_check_rel(r.compute_time_s, r.flops_per_chip / 1e14, 1e-12, "s", "even stages");
}
END_TEST

START_TEST(test_step_time_model) {
  /* Compute time = training + remat FLOPs / (chips x C x efficiency); exposed
   * comms = the busiest link beyond compute; no-overlap bound adds all; MFU = 6
   * N B / (chips C step). */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  l.remat = SCALE_REMAT_NONE;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  p.efficiency_frac = 0.5;
  p.train_tokens = 1e9;
  scale_train_result r = eval_ok(&p, &l);
  double flops = scale_transformer_flops(&m, 8, 4096, true, SCALE_PASS_TRAIN);
  scale_check_rel(r.compute_time_s, flops / (8 * 1e14 * 0.5), EXACT, "s", "T_math at 50%");
  double busiest = r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].step_time_s +
                   r.comm[SCALE_TRAIN_COMM_FSDP_REDUCE_SCATTER].step_time_s;
  scale_check_rel(r.comms_time_s, busiest, EXACT, "s", "fsdp axes carry AG + RS");
  scale_check_rel(r.exposed_comms_time_s, fmax(0.0, busiest - r.compute_time_s), EXACT, "s",
                  "max(0, comms - compute)");
  scale_check_rel(r.step_time_s, fmax(busiest, r.compute_time_s), EXACT, "s",
                  "book T = max(T_math, T_comms)");
  scale_check_rel(r.step_time_no_overlap_s, busiest + r.compute_time_s, EXACT, "s",
                  "T_upper = T_math + T_comms");
  double n_active = scale_transformer_n_active_params(&m);
  scale_check_rel(r.mfu, 6.0 * n_active * 8 * 4096 / (8 * 1e14 * r.step_time_s), EXACT, "",
                  "6 N B / (chips C T)");
  scale_check_rel(r.tokens_per_s, 8 * 4096 / r.step_time_s, EXACT, "tokens/s", "B / T");
  scale_check_rel(r.train_time_s, 1e9 / r.tokens_per_s, EXACT, "s", "budget / rate");
  scale_check_rel(r.cost_usd, r.train_time_s / 3600 * 8 * 2.0, EXACT, "USD", "chip-hours x $2");
  ck_assert_int_eq(r.bound, r.comms_time_s > r.compute_time_s ? SCALE_TRAIN_BOUND_COMMS
                                                              : SCALE_TRAIN_BOUND_COMPUTE);
  ck_assert_ptr_nonnull(r.reason);
}
END_TEST

/* ---- memory ---------------------------------------------------------------------------------- */

START_TEST(test_zero_paper_memory) {
  /* ZeRO paper Figure 1: Psi = 7.5B, N_d = 64, K = 12 (fp32 master + momentum +
   * variance): baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB
   * (printed to 3 digits; exactly (2 + 2 + 12/64) 7.5e9 = 31.41e9, (2 +
   * 14/64) 7.5e9 = 16.64e9, 16/64 7.5e9 = 1.875e9). */
  scale_precision mixed = SCALE_PRECISION_MIXED_ADAM;
  double parts[3];
  scale_check_rel(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 0, 64, parts), 120e9, EXACT, "B",
                  "ZeRO Fig. 1 baseline 16 Psi");
  scale_check_rel(parts[2], 12 * 7.5e9, EXACT, "B", "K = 12");
  scale_check_rel(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 1, 64, parts), 31.4e9, 5e-3, "B",
                  "ZeRO Fig. 1 P_os 31.4GB");
  scale_check_rel(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 2, 64, parts), 16.6e9, 5e-3, "B",
                  "ZeRO Fig. 1 P_os+g 16.6GB");
  scale_check_rel(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 3, 64, parts), 1.875e9, EXACT, "B",
                  "ZeRO Fig. 1 P_os+g+p 1.9GB");
  scale_check_rel(parts[0], 2 * 7.5e9 / 64, EXACT, "B", "weights sharded at stage 3");
  scale_check_nan(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 4, 64, parts));
  scale_check_nan(scale_train_zero_bytes_per_chip(&mixed, 7.5e9, 3, 0.5, parts));
}
END_TEST

START_TEST(test_eval_memory) {
  /* fsdp 8, ZeRO-3, bf16 + Adam: every state / 8; activations with block remat
   * (full recompute, memory.h), per token of the 4096-token microbatch: each of the 4
   * layers keeps its input, 2 x 1024; the embedding mask 1024; the logits end 2 x 2 x
   * 1024 + 4 x 1000 (fp32) = 8096; one layer rebuilt: everything recompute none keeps,
   * (4 x 2 + 2) 1024 + 2 (4 x 1024) + 2 x 2 x 4096 + 4 x 8 (flash) = 34848, less its
   * input 2048. Total 8192 + 1024 + 8096 + 32800 = 50112 bytes a token. */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  double n = scale_transformer_n_params(&m);
  scale_check_rel(r.param_bytes, 2.0 * n / 8, EXACT, "B", "bf16 / 8");
  scale_check_rel(r.grad_bytes, 2.0 * n / 8, EXACT, "B", "bf16 / 8");
  scale_check_rel(r.optimizer_bytes, 8.0 * n / 8, EXACT, "B", "2 fp32 moments / 8");
  double mb = 4096.0;
  scale_check_rel(r.activation_bytes, 50112.0 * mb, EXACT, "B",
                  "hand: inputs, embedding, logits, one layer rebuilt");
  scale_check_rel(r.gathered_weight_bytes, 2.0 * TOY_LAYER_PARAMS * 2, EXACT, "B",
                  "two gathered layers");
  scale_check_rel(r.memory_margin_bytes, 16e9 - r.memory_per_chip_bytes, EXACT, "B", "HBM - used");
  ck_assert(r.fits);
  /* Pure DP holds everything: 12 bytes per parameter plus activations. */
  l = scale_layout_default();
  l.dp = 8;
  scale_train_layout_map(&c, 8, &l);
  r = eval_ok(&p, &l);
  scale_check_rel(r.param_bytes + r.grad_bytes + r.optimizer_bytes, 12.0 * n, EXACT, "B",
                  "2 + 2 + 8");
}
END_TEST

START_TEST(test_memory_floor) {
  /* fsdp 8 ZeRO-3, bf16 + Adam: 12 n / 8 bytes of states; with a 2 GB context and 10%
   * fragmentation the floor is 1.1 x 12 n / 8 + 2e9, and every variant of the degrees (remat,
   * microbatches, pipeline schedule) holds at least that. */
  scale_model m = toy();
  scale_chip c = tpu();
  c.memory_context_bytes = 2e9;
  c.memory_fragmentation_frac = 0.1;
  c.memory_comm_buffer_bytes = 1e8;
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 64 * 4096, 4096);
  scale_train_cache cache;
  scale_train_cache_init(&cache, &p);
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  scale_train_layout_map(&c, 8, &l);
  double n = scale_transformer_n_params(&m);
  scale_check_rel(scale_train_memory_floor_bytes(&p, &l, &cache), 1.1 * 12.0 * n / 8 + 2e9, 1e-12,
                  "B", "1.1 x 12 n / 8 + context");
  for (int rm = 0; rm < SCALE_REMAT_COUNT; rm++)
    for (double micro = 1; micro <= 8; micro *= 2) {
      l.remat = (scale_remat)rm;
      l.n_microbatches = micro;
      scale_train_result r = eval_ok(&p, &l);
      ck_assert_msg(r.memory_per_chip_bytes >= scale_train_memory_floor_bytes(&p, &l, &cache),
                    "remat %d, m %g: under the floor", rm, micro);
    }
  /* pp 2 over the 4 layers (1F1B, DualPipe's two copies): the floor keeps one copy of half */
  l = scale_layout_default();
  l.pp = 2, l.fsdp = 4, l.zero_stage = 1, l.n_microbatches = 4;
  scale_train_layout_map(&c, 8, &l);
  for (int s = 0; s < SCALE_PP_COUNT; s++) {
    l.schedule = (scale_pp_schedule)s;
    l.n_virtual_stages = s == SCALE_PP_INTERLEAVED ? 2 : 1;
    if (scale_train_validate(&p, &l, NULL) != SCALE_OK) continue;
    scale_train_result r = eval_ok(&p, &l);
    ck_assert_msg(r.memory_per_chip_bytes >= scale_train_memory_floor_bytes(&p, &l, &cache),
                  "schedule %d: under the floor", s);
  }
  l.pp = 0;
  ck_assert(isnan(scale_train_memory_floor_bytes(&p, &l, &cache)));
}
END_TEST

/* ---- pipeline -------------------------------------------------------------------------------- */

START_TEST(test_bubble) {
  /* GPipe/1F1B (p-1)/m; interleaved (p-1)/(v m) (Narayanan et al. 2021); zero
   * bubble H1 at F = B = W: (p-1)(F+B-W) / (m (F+B+W)) = 3 F / (8 x 3 F) = 1/8 (Qi et al.
   * 2023 Table 1). */
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_1F1B, 4, 8, 1), 3.0 / 8, EXACT, "",
                  "(p-1)/m");
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_GPIPE, 4, 8, 1), 3.0 / 8, EXACT, "",
                  "(p-1)/m");
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_INTERLEAVED, 4, 8, 2), 3.0 / 16, EXACT, "",
                  "(p-1)/(v m)");
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_ZERO_BUBBLE, 4, 8, 1), 1.0 / 8, EXACT, "",
                  "(p-1)/(3m)");
  scale_check_rel(scale_pipeline_bubble_frac(SCALE_PP_1F1B, 1, 8, 1), 0.0, EXACT, "",
                  "no pipeline");
  scale_check_nan(scale_pipeline_bubble_frac(SCALE_PP_1F1B, 0.5, 8, 1));
  scale_check_nan(scale_pipeline_bubble_frac(SCALE_PP_COUNT, 4, 8, 1));
  /* In flight: 1F1B holds p, GPipe all m; interleaved p (1 + (p-1)/(p v)). */
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_1F1B, 4, 8, 1), 4, EXACT, "",
                  "p");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_GPIPE, 4, 8, 1), 8, EXACT, "",
                  "m");
  scale_check_rel(scale_pipeline_microbatches_in_flight(SCALE_PP_INTERLEAVED, 4, 8, 2),
                  4 * (1 + 3.0 / 8), EXACT, "", "p (1 + (p-1)/(p v))");
  /* In eval: the bubble multiplies the busy time. */
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.pp = 4;
  l.n_microbatches = 8;
  l.fsdp = 2;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 16 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  scale_check_rel(r.step_time_s, (r.compute_time_s + r.exposed_comms_time_s) * (1 + 3.0 / 8), EXACT,
                  "s", "(1 + bubble) x busy");
}
END_TEST

/* ---- validation ------------------------------------------------------------------------------ */

static void expect_invalid(const scale_train_problem *p, const scale_layout *l,
                           const char *needle) {
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  ck_assert_int_eq(scale_train_validate(p, l, &diag), SCALE_ERR_INVALID);
  ck_assert_msg(strstr(diag.message, needle) != NULL, "message '%s' lacks '%s'", diag.message,
                needle);
  ck_assert_msg(strchr(diag.message, '\n') == NULL, "one line");
}

START_TEST(test_validate) {
  scale_model m = toy();
  scale_chip c = tpu();
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 64 * 4096, 4096);
  scale_layout l = scale_layout_default();
  l.fsdp = 4; /* 4 != 8 chips */
  expect_invalid(&p, &l, "not the 8 chips");
  l.fsdp = 1;
  l.tp = 8;
  l.n_axes[SCALE_TRAIN_DIM_TP] = 1;
  ck_assert_int_eq(scale_train_validate(&p, &l, NULL), SCALE_OK);
  m.n_heads = 4; /* tp 8 > 4 heads */
  m.n_kv_heads = 4;
  expect_invalid(&p, &l, "query heads");
  m = toy();
  l.tp = 1;
  l.pp = 8; /* deeper than 4 layers */
  l.n_microbatches = 8;
  expect_invalid(&p, &l, "deeper than");
  l.pp = 1;
  l.fsdp = 8;
  l.ep = 2; /* dense */
  expect_invalid(&p, &l, "dense model");
  l.ep = 1;
  l.fsdp = 1;
  l.cp = 8;
  p.seq_len = 4100; /* 8 does not divide 4100 */
  p.batch_tokens = 64 * 4100;
  expect_invalid(&p, &l, "does not divide the sequence");
  p = scale_train_problem_make(&m, &c, 8, 4 * 4096, 4096);
  l = scale_layout_default();
  l.fsdp = 8; /* 8 > 4 sequences */
  expect_invalid(&p, &l, "sequences of the batch");
  l.fsdp = 4;
  l.pp = 2;
  l.n_microbatches = 1; /* m < pp: a pipeline that never fills, valid (Megatron runs it) */
  p.batch_tokens = 8 * 4096; /* 2 sequences per data-parallel shard */
  ck_assert_int_eq(scale_train_validate(&p, &l, NULL), SCALE_OK);
  l.schedule = SCALE_PP_DUALPIPE; /* two directions: m must be even */
  expect_invalid(&p, &l, "dualpipe needs an even pp and microbatches");
  l.n_microbatches = 2;
  ck_assert_int_eq(scale_train_validate(&p, &l, NULL), SCALE_OK);
  /* 4 layers: interleaved v = 3 over pp 2 needs 6 chunks, which the embedding and the loss
   * as stages provide (4 + 2), Megatron's account-for-embedding/loss options */
  l.schedule = SCALE_PP_INTERLEAVED;
  l.n_virtual_stages = 3;
  expect_invalid(&p, &l, "--pp-embed-loss");
  l.pp_embed_loss = true;
  ck_assert_int_eq(scale_train_validate(&p, &l, NULL), SCALE_OK);
  l.pp_embed_loss = false;
  l.schedule = SCALE_PP_ZB_V; /* 2 chunks a stage: 2 x 4 > 4 layers */
  l.pp = 4;
  l.fsdp = 2;
  expect_invalid(&p, &l, "pp x chunks = 8 exceed");
  l = scale_layout_default();
  l.dp = 8;
  p = scale_train_problem_make(&m, &c, 8, 64 * 4096, 4096);
  l.link[SCALE_TRAIN_DIM_DP] = SCALE_TRAIN_LINK_NVLINK; /* TPU has no NVLink */
  expect_invalid(&p, &l, "NVLink");
  ck_assert_int_eq(scale_train_validate(NULL, &l, NULL), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(test_nan_and_names) {
  scale_train_result r;
  scale_train_eval(NULL, NULL, &r);
  scale_check_nan(r.step_time_s);
  scale_check_nan(r.memory_per_chip_bytes);
  ck_assert_str_eq(r.reason, "invalid input");
  scale_check_nan(scale_train_dp_critical_batch(0, 1, 1));
  scale_check_nan(scale_train_fsdp_tp_x_opt(-1, 1, 1, 1, 1));
  scale_check_nan(scale_train_time_s(1, 0, 1, 1));
  scale_check_nan(scale_train_min_chips_for_memory(1, 0));
  scale_check_nan(scale_train_moe_critical_batch(850, 2, 8));
  scale_pp_schedule s;
  ck_assert_int_eq(scale_pp_schedule_parse("Interleaved", &s), SCALE_OK);
  ck_assert_int_eq(s, SCALE_PP_INTERLEAVED);
  ck_assert_int_eq(scale_pp_schedule_parse("zero-bubble", &s), SCALE_OK);
  ck_assert_int_eq(s, SCALE_PP_ZERO_BUBBLE);
  ck_assert_int_eq(scale_pp_schedule_parse("pipedream", &s), SCALE_ERR_INVALID);
  scale_cp_kind k;
  ck_assert_int_eq(scale_cp_kind_parse("ulysses", &k), SCALE_OK);
  ck_assert_int_eq(k, SCALE_CP_ULYSSES);
  scale_remat rm;
  ck_assert_int_eq(scale_train_remat_parse("matmuls", &rm), SCALE_OK);
  ck_assert_int_eq(rm, SCALE_REMAT_BIG_MATMULS);
  ck_assert_str_eq(scale_train_comm_name(SCALE_TRAIN_COMM_EP_ALL_TO_ALL), "ep-all-to-all");
  ck_assert_str_eq(scale_train_bound_name(SCALE_TRAIN_BOUND_COUNT), "?");
  ck_assert_str_eq(scale_train_link_name(SCALE_TRAIN_LINK_DCN), "dcn");
}
END_TEST

/* Issue 13 section 2: a result that is not finite names the input behind it; it never says
 * "compute-bound: every link's collectives hide under the matmuls" or blames the HBM. */
START_TEST(test_nonfinite_names_the_input) {
  scale_model m = toy();
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  c.flops_per_s[SCALE_DTYPE_BF16] = 1e-320; /* a hand-made record: the loader refuses this */
  scale_train_result r = eval_ok(&p, &l);
  ck_assert(!isfinite(r.step_time_s));
  ck_assert_msg(strstr(r.reason, "peak FLOP/s") != NULL, "reason: %s", r.reason);
  c = tpu();
  p.batch_tokens = 1e308; /* 6 N B overflows */
  scale_train_eval(&p, &l, &r);
  ck_assert_msg(strstr(r.reason, "batch tokens") != NULL, "reason: %s", r.reason);
  ck_assert_ptr_null(strstr(r.reason, "HBM"));
  p.batch_tokens = 8 * 4096;
  c.ici_link_bytes_per_s = 1e-320;
  scale_train_eval(&p, &l, &r);
  ck_assert_msg(strstr(r.reason, "link bandwidth") != NULL, "reason: %s", r.reason);
}
END_TEST

/* Issue 14 "one evaluation path": scale_train_eval() prices with the step model when the
 * problem carries its parameters; the planner's cached path gives bit-identical results in any
 * order of layouts; each communication runs on the network its link gives. */
/* eval_ok() after mapping the layout onto the problem's chips. */
static scale_train_result eval_step(const scale_train_problem *p, scale_layout *l) {
  scale_train_layout_map(p->chip, p->n_chips, l);
  return eval_ok(p, l);
}

START_TEST(test_step_model_path) {
  scale_model m;
  scale_chip c;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-3-8b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("dgx-h100", &c, &diag), SCALE_OK);
  scale_step_params prm = scale_step_params_prior();
  scale_train_problem p = scale_train_problem_make(&m, &c, 64, 1048576, 8192);
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.tp = 8, l.fsdp = 8, l.sp = true;
  scale_train_result r = eval_step(&p, &l);
  ck_assert(r.step_model);
  ck_assert(r.step_time_s == r.step.step_s);
  ck_assert_int_eq(r.step.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_UP);   /* NVLink */
  ck_assert_int_eq(r.step.net[SCALE_STEP_COMM_FSDP], SCALE_STEP_NET_OUT); /* across nodes */
  ck_assert(r.step_time_s > 0 && isfinite(r.mfu) && r.mfu < 1);
  /* efficiency_frac is the roofline's; the step model takes its ceiling from the params */
  p.efficiency_frac = 0.3;
  scale_train_result same = eval_step(&p, &l);
  ck_assert(same.step_time_s == r.step_time_s);
  p.efficiency_frac = 1;
  prm.v[SCALE_STEP_MM_ETA_MAX] *= 0.5;
  scale_train_result slow = eval_step(&p, &l);
  ck_assert(slow.step.comm_s[SCALE_STEP_COMM_TP] == r.step.comm_s[SCALE_STEP_COMM_TP]);
  ck_assert(slow.step.op_s[SCALE_STEP_OP_MLP_UP] > 1.8 * r.step.op_s[SCALE_STEP_OP_MLP_UP]);
  prm = scale_step_params_prior();
  /* the roofline: no step breakdown */
  p.step_params = NULL;
  scale_train_result ideal = eval_step(&p, &l);
  ck_assert(!ideal.step_model && ideal.step_time_s < r.step_time_s);
  p.step_params = &prm;

  /* cached = uncached, bit for bit, over layouts visited twice in different orders */
  static scale_train_cache cache;
  scale_train_cache_init(&cache, &p);
  const double tps[] = {1, 2, 4, 8, 8, 4, 2, 1};
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < 8; i++)
      for (int rm = 0; rm < SCALE_REMAT_COUNT; rm++) {
        scale_layout k = scale_layout_default();
        k.tp = tps[pass ? 7 - i : i];
        k.fsdp = 64 / k.tp;
        k.remat = (scale_remat)rm;
        k.sp = i % 2 == 0 && k.tp > 1;
        k.n_microbatches = 1 + (i % 3);
        scale_train_result a = eval_step(&p, &k), b;
        scale_train_eval_cached(&p, &k, &cache, &b);
        ck_assert_msg(memcmp(&a.step, &b.step, sizeof a.step) == 0, "tp %g remat %d", k.tp, rm);
        ck_assert(a.step_time_s == b.step_time_s && a.mfu == b.mfu);
        ck_assert(a.memory_per_chip_bytes == b.memory_per_chip_bytes);
      }
  /* a cache bound to another problem is refused, not misused */
  scale_train_problem q = p;
  scale_train_result bad;
  scale_train_eval_cached(&q, &l, &cache, &bad);
  ck_assert(isnan(bad.step_time_s));
}
END_TEST

/* The pipeline's split and copies in the step and memory models (issue 27). */
START_TEST(test_step_model_pipeline_split) {
  scale_model m;
  scale_chip c;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-3-8b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("dgx-h100", &c, &diag), SCALE_OK);
  scale_step_params prm = scale_step_params_prior();
  scale_train_problem p = scale_train_problem_make(&m, &c, 64, 1048576, 8192);
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.tp = 8, l.sp = true, l.pp = 4, l.fsdp = 2, l.zero_stage = 1, l.n_microbatches = 8;
  scale_train_result base = eval_step(&p, &l);
  /* 32 layers over 4 stages: 8 each, the priced stage also running the ends */
  scale_check_rel(base.step.layers_per_stage, 8, EXACT, "", "32 / 4");
  /* with the embedding and the loss as a layer each, 34 units over 4 stages: a middle stage
   * runs 8.5 layers, the last 7.5 and the unembedding and loss; the slower sets the pace. A
   * layer's time over the step is its ops and exposed TP/CP/FSDP/EP over the 8 layers. */
  l.pp_embed_loss = true;
  scale_train_result el = eval_step(&p, &l);
  double layer = 0;
  for (int i = SCALE_STEP_OP_QKV; i <= SCALE_STEP_OP_FP8_CAST; i++) layer += base.step.op_s[i];
  for (int k = SCALE_STEP_COMM_TP; k <= SCALE_STEP_COMM_EP; k++) layer += base.step.exposed_s[k];
  layer /= 8;
  double last = base.step.op_s[SCALE_STEP_OP_UNEMBEDDING] + base.step.op_s[SCALE_STEP_OP_LOSS];
  scale_check_rel(el.step.layers_per_stage, last <= layer ? 8.5 : 7.5, EXACT, "",
                  "34 / 4, or one fewer on the last stage");
  ck_assert(el.step_time_s < base.step_time_s);
  l.pp_embed_loss = false;
  /* DualPipe: each rank keeps its stage and its mirror's, twice the weights, gradients and
   * optimizer state of the same stage under 1F1B */
  l.schedule = SCALE_PP_DUALPIPE;
  scale_train_result dual = eval_step(&p, &l);
  scale_check_rel(dual.param_bytes + dual.grad_bytes + dual.optimizer_bytes,
                  2 * (base.param_bytes + base.grad_bytes + base.optimizer_bytes), 1e-9, "B",
                  "2x parameters");
  /* zero bubble H1 at m = 8 over 4 stages is less than 1F1B's (p-1)/m = 3/8 and more than 0 */
  l.schedule = SCALE_PP_ZB_H1;
  scale_train_result zb = eval_step(&p, &l);
  ck_assert(zb.bubble_frac > 0 && zb.bubble_frac < base.bubble_frac);
  scale_check_rel(base.bubble_frac, 3.0 / 8, EXACT, "", "(p-1)/m");
}
END_TEST

START_TEST(test_step_model_tpu_axes) {
  /* TP over two torus axes doubles its ring bandwidth: the TP communication takes less time
   * than over one (same bytes, same latency count) */
  scale_model m;
  scale_chip c;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("llama-3-70b", &m, &diag), SCALE_OK);
  ck_assert_int_eq(scale_chip_load("tpu-v5p", &c, &diag), SCALE_OK);
  scale_step_params prm = scale_step_params_prior();
  scale_train_problem p = scale_train_problem_make(&m, &c, 8960, 4194304, 4096);
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.fsdp = 280, l.tp = 32, l.sp = true;
  scale_train_result one = eval_step(&p, &l); /* the book's split: fsdp 2 axes, tp 1 */
  ck_assert(l.n_axes[SCALE_TRAIN_DIM_TP] == 1);
  l.n_axes[SCALE_TRAIN_DIM_TP] = 2, l.n_axes[SCALE_TRAIN_DIM_FSDP] = 1;
  scale_train_result two;
  scale_train_eval(&p, &l, &two);
  ck_assert_int_eq(two.step.net[SCALE_STEP_COMM_TP], SCALE_STEP_NET_ICI);
  ck_assert(two.step.comm_s[SCALE_STEP_COMM_TP] < one.step.comm_s[SCALE_STEP_COMM_TP]);
  ck_assert(two.step.comm_s[SCALE_STEP_COMM_FSDP] > one.step.comm_s[SCALE_STEP_COMM_FSDP]);
}
END_TEST

START_TEST(test_gpu_map) {
  /* DGX H100 (8 GPUs per NVLink domain): tp 8 stays on NVLink, fsdp 4 goes over
   * InfiniBand. */
  scale_chip c;
  scale_diag diag;
  ck_assert_int_eq(scale_chip_load("dgx-h100", &c, &diag), SCALE_OK);
  scale_layout l = scale_layout_default();
  l.tp = 8;
  l.fsdp = 4;
  scale_train_layout_map(&c, 32, &l);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_TP], SCALE_TRAIN_LINK_NVLINK);
  ck_assert_int_eq(l.link[SCALE_TRAIN_DIM_FSDP], SCALE_TRAIN_LINK_DCN);
  scale_model m;
  ck_assert_int_eq(scale_model_load("llama-3-8b", &m, &diag), SCALE_OK);
  scale_train_problem p = scale_train_problem_make(&m, &c, 32, 1 << 20, 8192);
  scale_train_result r = eval_ok(&p, &l);
  /* The DGX file carries the book's fat tree, so collectives use its exact AllGather
   * bandwidth (gpu.h). TP 8 in the node: 4.5e11 x 8/7 = 514 GB/s (ch. 12). FSDP 4 over
   * nodes with TP 8 inside: each GPU's shard crosses the node's 4e11 NICs shared by 8 GPUs
   * (5e10 each), in a ring of 4 nodes: 5e10 x 4/3 = 66.7 GB/s. */
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_TP_ALL_GATHER].bandwidth_bytes_per_s, 4.5e11 * 8 / 7,
                  1e-12, "B/s", "ch.12: 514 GB/s in a node");
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].bandwidth_bytes_per_s, 5e10 * 4 / 3,
                  1e-12, "B/s", "400 Gb/s NIC per GPU, ring of 4 nodes");
  /* Pure FSDP over 32 GPUs (no inner model parallelism): the node level reduces first, so
   * the whole node's 4e11 egress serves the ring of 4 nodes: min(4.5e11 x 8/7, 4e11 x 4/3)
   * = 514 GB/s, ten times the per-NIC figure the flat model would use. */
  l = scale_layout_default();
  l.fsdp = 32;
  scale_train_layout_map(&c, 32, &l);
  r = eval_ok(&p, &l);
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_FSDP_ALL_GATHER].bandwidth_bytes_per_s,
                  fmin(4.5e11 * 8 / 7, 4e11 * 4 / 3), 1e-12, "B/s", "ch.12 hierarchical AG");
}
END_TEST

START_TEST(test_moe_ep_cp) {
  /* Mixtral 8x7B with ep 8 inside fsdp 8: the AllToAll carries k = 2 copies of
   * each token forward (dispatch + combine) on every MoE layer; on an ICI ring
   * the book's AllToAll volume is n V / 4 (ch. 3) with V = tokens x k x D x 2
   * bytes. */
  scale_model m;
  scale_diag diag;
  ck_assert_int_eq(scale_model_load("mixtral-8x7b", &m, &diag), SCALE_OK);
  scale_chip c = tpu();
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  l.ep = 8;
  l.remat = SCALE_REMAT_NONE;
  scale_train_layout_map(&c, 8, &l);
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  scale_train_result r = eval_ok(&p, &l);
  double v = 4096.0 * 2 * 4096 * 2; /* tokens x k x D x bytes */
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_EP_ALL_TO_ALL].fwd_bytes_per_layer, 2.0 * 8 * v / 4,
                  EXACT, "B", "dispatch + combine, n V / 4");
  /* Ring CP 4 on a dense model: forward gathers K and V of the whole sequence
   * for the chip's sequences: tokens x cp x 2 K H x 2 bytes. */
  scale_model t = toy();
  l = scale_layout_default();
  l.fsdp = 2;
  l.cp = 4;
  l.remat = SCALE_REMAT_NONE;
  scale_train_layout_map(&c, 8, &l);
  p = scale_train_problem_make(&t, &c, 8, 2 * 4096, 4096);
  r = eval_ok(&p, &l);
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_CP_ATTENTION].fwd_bytes_per_layer,
                  1024.0 * 4 * 2 * 8 * 128 * 2, EXACT, "B", "full-sequence KV");
  scale_check_rel(r.comm[SCALE_TRAIN_COMM_CP_ATTENTION].bwd_bytes_per_layer,
                  2.0 * 1024.0 * 4 * 2 * 8 * 128 * 2, EXACT, "B", "KV and dKV");
}
END_TEST

/* ---- the TP divisibility rule ------------------------------------------------------------ */

static scale_model loaded(const char *name) {
  scale_model m;
  scale_diag diag;
  ck_assert_msg(scale_model_load(name, &m, &diag) == SCALE_OK, "%s", diag.message);
  return m;
}

START_TEST(test_unfused_attention) {
  /* LLaMA 3 8B on 8 H100, FSDP 8, one 4096-token sequence a chip, nothing recomputed. An unfused
   * attention core saves its softmax output and dropout output (2 bytes each) and its dropout
   * mask (1 byte) for every score, (2 x 2 + 1) n_heads s bytes a token, where flash saves the
   * fp32 log-sum-exp, 4 n_heads (memory.h; Korthikanti et al.'s 5 a s^2 b / t). Over 32 layers:
   * 32 x 4096 x 32 x (5 x 4096 - 4) = 85,882,568,704 bytes more. The step prices the scores
   * in HBM and the softmax kernels, so it takes longer; the step model's job says so. */
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip c = scale_check_chip("nvidia-h100-sxm");
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  scale_step_params prm;
  ck_assert(scale_step_params_of_chip(&c, &prm) == SCALE_OK); /* the calibrated step model */
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  l.remat = SCALE_REMAT_NONE;
  scale_train_layout_map(&c, 8, &l);
  scale_train_result flash = eval_ok(&p, &l);
  l.unfused_attention = true;
  scale_train_result unfused = eval_ok(&p, &l);
  scale_check_rel(unfused.activation_bytes - flash.activation_bytes, 85882568704.0, 1e-12, "B",
                  "32 x 4096 x 32 x (5 x 4096 - 4)");
  ck_assert(unfused.step_time_s > flash.step_time_s);
  scale_step_job job;
  scale_train_step_job(&p, &l, &job);
  ck_assert_int_eq(job.attention, SCALE_ATTENTION_UNFUSED);
}
END_TEST

START_TEST(test_partial_remat) {
  /* LLaMA 3 8B on 8 H100, FSDP 8, one 4096-token sequence a chip: block remat of half the
   * layers against none and all of them. The recompute FLOPs are half of full's. The step's
   * ops are linear in the share (each op of a recomputed layer runs its forward once more), so
   * its compute time is the mean of none's and full's. The saved activations are the layers'
   * mean, f L_full + (1 - f) L_none per layer, with full's working set W (the layer rebuilt
   * in the backward) still paid: half's = (none's + full's) / 2 + W / 2 (memory.h). */
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip c = scale_check_chip("nvidia-h100-sxm");
  scale_train_problem p = scale_train_problem_make(&m, &c, 8, 8 * 4096, 4096);
  scale_step_params prm;
  ck_assert(scale_step_params_of_chip(&c, &prm) == SCALE_OK);
  p.step_params = &prm;
  scale_layout l = scale_layout_default();
  l.fsdp = 8;
  scale_train_layout_map(&c, 8, &l);
  scale_train_result full = eval_ok(&p, &l);
  l.remat_frac = 0.5;
  scale_train_result half = eval_ok(&p, &l);
  l.remat = SCALE_REMAT_NONE, l.remat_frac = 1.0;
  scale_train_result none = eval_ok(&p, &l);
  scale_check_rel(half.remat_flops_per_chip, full.remat_flops_per_chip / 2, 1e-12, "FLOP",
                  "half the layers recomputed");
  scale_check_rel(half.compute_time_s, (none.compute_time_s + full.compute_time_s) / 2, 1e-12,
                  "s", "ops linear in the share");
  scale_memory_act act = {1, 1, false, SCALE_RECOMPUTE_FULL, true, 2};
  double w = scale_memory_layer_working_bytes(&m, 1, 4096, &act);
  scale_check_rel(half.activation_bytes,
                  (none.activation_bytes + full.activation_bytes) / 2 + w / 2, 1e-12, "B",
                  "the layers' mean plus half of full's working set");
  /* whole layers: 32 a stage at pp 1, floor(32 / 3) = 10 at pp 3; half of 32 is 16 */
  scale_check_rel(scale_train_stage_layers(&m, 1), 32, 0, "", "LLaMA 3 8B's 32 layers");
  scale_check_rel(scale_train_stage_layers(&m, 3), 10, 0, "", "floor(32 / 3)");
  scale_check_nan(scale_train_stage_layers(&m, 0));
  l.remat = SCALE_REMAT_BLOCK, l.remat_frac = 0.5;
  scale_check_rel(scale_train_remat_layers(&m, &l), 16, 0, "", "half of 32");
  l.remat = SCALE_REMAT_NONE, l.remat_frac = 1.0;
  /* a share needs block remat, and lies in (0, 1] */
  scale_diag diag;
  l.remat_frac = 0.5;
  ck_assert_int_eq(scale_train_validate(&p, &l, &diag), SCALE_ERR_INVALID);
  l.remat = SCALE_REMAT_BLOCK, l.remat_frac = 0;
  ck_assert_int_eq(scale_train_validate(&p, &l, &diag), SCALE_ERR_INVALID);
}
END_TEST

START_TEST(test_tp_check) {
  scale_diag diag;
  /* LLaMA 3 70B: 64 query heads, 8 KV heads, F = 28672 */
  scale_model l70 = loaded("llama-3-70b");
  ck_assert_int_eq(scale_transformer_tp_check(&l70, 1, NULL), SCALE_OK);
  ck_assert_int_eq(scale_transformer_tp_check(&l70, 8, NULL), SCALE_OK);
  /* 16 > 8 KV heads: each replicated over 2 ranks (Megatron) */
  ck_assert_int_eq(scale_transformer_tp_check(&l70, 16, NULL), SCALE_OK);
  ck_assert_int_eq(scale_transformer_tp_check(&l70, 3, &diag), SCALE_ERR_INVALID);
  ck_assert_str_eq(diag.message, "tp 3 does not divide the 64 query heads");
  ck_assert_int_eq(scale_transformer_tp_check(&l70, 1.5, NULL), SCALE_ERR_INVALID);
  /* KV heads that neither divide nor are divided by tp */
  scale_model k6 = l70;
  k6.n_kv_heads = 6;
  ck_assert_int_eq(scale_transformer_tp_check(&k6, 4, &diag), SCALE_ERR_INVALID);
  ck_assert_str_eq(diag.message, "tp 4 and the 6 KV heads do not divide one another");
  /* the MLP width: 28672 = 2^12 x 7, so 64 heads split 64 ways but F not 8192 ways */
  scale_model wide = l70;
  wide.d_ff = 28676; /* 4 x 7169 */
  ck_assert_int_eq(scale_transformer_tp_check(&wide, 8, &diag), SCALE_ERR_INVALID);
  ck_assert_str_eq(diag.message, "tp 8 does not divide the MLP width F = 28676");
  /* Mamba-2 2.7B: 80 SSM heads but one B, C group, so no TP at all */
  scale_model m27 = loaded("mamba-2-2.7b");
  ck_assert_int_eq(scale_transformer_tp_check(&m27, 2, &diag), SCALE_ERR_INVALID);
  ck_assert_str_eq(diag.message, "tp 2 does not divide the 1 SSM groups");
  /* Mamba-1B (Amer et al.): 64 heads, 8 groups: tp 8 splits both, 16 only the heads */
  scale_model m1 = loaded("mamba-2-1b-amer");
  ck_assert_int_eq(scale_transformer_tp_check(&m1, 8, NULL), SCALE_OK);
  ck_assert_int_eq(scale_transformer_tp_check(&m1, 16, NULL), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_transformer_tp_check(NULL, 2, NULL), SCALE_ERR_INVALID);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("training");
  TCase *tc = tcase_create("bytes");
  tcase_add_test(tc, test_dp_bytes);
  tcase_add_test(tc, test_fsdp_bytes);
  tcase_add_test(tc, test_tp_bytes);
  tcase_add_test(tc, test_pp_and_dcn_bytes);
  tcase_add_test(tc, test_moe_ep_cp);
  suite_add_tcase(s, tc);
  tc = tcase_create("step");
  tcase_add_test(tc, test_step_time_model);
  tcase_add_test(tc, test_uneven_stages);
  tcase_add_test(tc, test_bubble);
  tcase_add_test(tc, test_unfused_attention);
  tcase_add_test(tc, test_partial_remat);
  tcase_add_test(tc, test_tp_check);
  tcase_add_test(tc, test_gpu_map);
  tcase_add_test(tc, test_step_model_path);
  tcase_add_test(tc, test_step_model_pipeline_split);
  tcase_add_test(tc, test_step_model_tpu_axes);
  suite_add_tcase(s, tc);
  tc = tcase_create("memory");
  tcase_add_test(tc, test_zero_paper_memory);
  tcase_add_test(tc, test_eval_memory);
  tcase_add_test(tc, test_memory_floor);
  suite_add_tcase(s, tc);
  tc = tcase_create("validate");
  tcase_add_test(tc, test_validate);
  tcase_add_test(tc, test_nan_and_names);
  tcase_add_test(tc, test_nonfinite_names_the_input);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
