/* test_servecal.c — the calibrated serving step cost (servecal.h): its terms against a hand
 * derivation, the trace-based prediction against a direct simulation, the shipped serving rows,
 * the fit (reproduces the shipped [serve], stays in range) and issue 15's accuracy target
 * (leave-one-group-out MAPE <= 15% over the TensorRT-LLM rows E1-E4 and the fp4 Blackwell rows
 * F1-F4, and the figure the fit reaches), the smooth max of the linear layers, decode attention
 * by context and batch and routed experts by width in their limits, every weight and KV dtype,
 * fp4 storage, MoE expert reads, and bad files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale.h"
#include "scale/servecal.h"
#include "scale_check.h"

/* ---- the cost of one step, by hand -------------------------------------------------------- */

/* A made-up copy with round numbers (the hand derivations below use them). */
static scale_serve_cost round_cost(void) {
  scale_serve_cost c;
  memset(&c, 0, sizeof c);
  c.p[SCALE_SERVE_WEIGHT_BW_FRAC] = 0.5;
  c.p[SCALE_SERVE_KV_BW_FRAC] = 0.5;
  c.p[SCALE_SERVE_MATMUL_FRAC] = 0.5;
  c.p[SCALE_SERVE_ATTN_FRAC] = 0.25;
  c.p[SCALE_SERVE_OVERHEAD_S] = 1e-3;
  c.p[SCALE_SERVE_OVERHEAD_SEQ_S] = 1e-6;
  c.p[SCALE_SERVE_OVERHEAD_COLL_S] = 1e-5;
  c.p[SCALE_SERVE_LINEAR_K] = 2.0;
  c.p[SCALE_SERVE_KV_CTX_HALF] = 50.0;
  c.p[SCALE_SERVE_KV_CTA_HALF] = 20.0;
  c.p[SCALE_SERVE_MOE_GEMM_FRAC] = 1.0;
  c.p[SCALE_SERVE_EXPERT_DIM_HALF] = 100.0;
  c.n_params = 1e9;
  c.weight_bytes = 1e9;
  c.kv_bytes_per_token = 1e5;
  c.kv_heads_per_chip = 4;
  c.kv_read_factor = 1;
  c.kv_cta_scale = 1;
  c.sync_peers = 1;
  for (int l = 0; l < SCALE_FFN_AUTO; l++)
    c.comm_fixed_s[l] = c.comm_token_s[l] = c.comm_count[l] = NAN;
  c.attn_flops_per_pair = 1e6;
  c.flops_per_s = 1e15;
  c.hbm_bytes_per_s = 1e12;
  c.mm_dim_half = 100;
  return c;
}

START_TEST(test_cost_parts) {
  /* The round copy, every term derived by hand:
   *   tokens = 100 decodes + 400 prompt tokens = 500
   *   weights 1e9 B / (1e12 B/s x 0.5)                        = 2.0 ms
   *   GEMMs 2 x 1e9 x 500 / (1e15 x 0.5 x 500 / (500 + 100))  = 1e12 / 4.1667e14 = 2.4 ms
   *   linear = (2.0^2 + 2.4^2)^(1/2) = sqrt(9.76)             = 3.12410 ms, GEMM-bound
   *   KV: 100 sequences of 1e3 tokens on 4 KV heads a chip:
   *       (1e5 + 50 x 100) x (1 + 20 / (100 x 4)) = 105,000 x 1.05 = 110,250 tokens
   *       x 1e5 B / (1e12 x 0.5)                              = 22.05 ms
   *   attention 1e5 pairs x 1e6 FLOP / (1e15 x 0.25)          = 0.4 ms
   *   collectives: 1-D, 200 us fixed + 500 tokens x 2 us      = 1.2 ms
   *     (weight-gathered, 1.5 ms fixed and nothing a token, loses at 500 tokens)
   *   overhead 1 ms a step + 100 decoding requests x 1 us
   *            + 10 collectives x 1 peer x 10 us                = 1.2 ms
   *   total                                   = 27.97410 ms */
  scale_serve_cost c = round_cost();
  c.tp = 2;
  c.ffn_layout = SCALE_FFN_AUTO;
  c.comm_fixed_s[SCALE_FFN_WS_1D] = 2e-4;
  c.comm_token_s[SCALE_FFN_WS_1D] = 2e-6;
  c.comm_count[SCALE_FFN_WS_1D] = 10;
  c.comm_fixed_s[SCALE_FFN_WG] = 1.5e-3;
  c.comm_token_s[SCALE_FFN_WG] = 0.0;
  c.comm_count[SCALE_FFN_WG] = 4;
  scale_serve_step s = {100, 1e5, 400, 2, 1e5};
  scale_serve_parts p = scale_serve_cost_parts(&c, &s);
  scale_check_rel(p.linear_s, sqrt(9.76) * 1e-3, 1e-12, "s", "smooth max of 2.0 and 2.4 ms");
  ck_assert(p.gemm_bound);
  scale_check_rel(p.kv_s, 0.02205, 1e-12, "s", "110,250 KV tokens x 1e5 B at 5e11 B/s");
  scale_check_rel(p.attn_s, 4e-4, 1e-12, "s", "1e11 FLOP at 2.5e14");
  scale_check_rel(p.tp_s, 1.2e-3, 1e-12, "s", "200 us + 500 x 2 us");
  ck_assert(scale_serve_layout_at(&c, 500) == SCALE_FFN_WS_1D);
  scale_check_rel(p.overhead_s, 1.2e-3, 1e-12, "s", "the overhead");
  scale_check_rel(scale_serve_cost_s(&s, &c), 0.02797410, 1e-6, "s", "the sum above");
  /* a prefill of 1e4 tokens: 1-D 20.2 ms of collectives, gathered 1.5 ms: AUTO gathers */
  scale_serve_step pre = {0, 0, 1e4, 1, 1e4};
  scale_check_rel(scale_serve_cost_parts(&c, &pre).tp_s, 1.5e-3, 1e-12, "s", "gathered");
  ck_assert(scale_serve_layout_at(&c, 1e4) == SCALE_FFN_WG);
  /* a decode-only step of 10 tokens is weight-bound: 2 ms of weights beat 2e10 / (1e15 x 0.5 x
   * 10 / 110) = 0.44 ms of GEMMs; (2^2 + 0.44^2)^(1/2) = 2.04783 ms */
  scale_serve_step d = {10, 0, 0, 0, 0};
  p = scale_serve_cost_parts(&c, &d);
  ck_assert(!p.gemm_bound);
  scale_check_rel(p.linear_s, sqrt(4.0 + 0.44 * 0.44) * 1e-3, 1e-12, "s", "2 ms and 0.44 ms");
  scale_serve_step empty = {0, 0, 0, 0, 0};
  scale_check_nan(scale_serve_cost_s(&empty, &c));
  scale_check_nan(scale_serve_cost_s(&s, NULL));
}
END_TEST

START_TEST(test_linear_limits) {
  /* The linear layers' smooth max (t_w^k + t_g^k)^(1/k), round copy (t_w = 2 ms of weights):
   * far below the ridge (1 token: 2e9 / (5e14 / 101) = 0.404 ms of GEMMs) it is the weight read
   * to (1 + 0.202^16)^(1/16) - 1 = 5e-13 at k = 16; far above (1e5 tokens: 2e14 / (5e14 x 1e5 /
   * 100100) = 400.4 ms) the GEMMs to (1 + (2/400.4)^2)^(1/2) - 1 = 1.2e-5 at k = 2; at the ridge
   * (t_w = t_g) it is 2^(1/k) times either: sqrt(2) = 1.414 at k = 2, a sum at k = 1. */
  scale_serve_cost c = round_cost();
  c.p[SCALE_SERVE_LINEAR_K] = 16.0;
  scale_serve_step one = {1, 0, 0, 0, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &one).linear_s, 2e-3, 1e-12, "s", "weights");
  c.p[SCALE_SERVE_LINEAR_K] = 2.0;
  scale_serve_step big = {0, 0, 1e5, 1, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &big).linear_s, 2e14 * 100100 / 5e19, 2e-5, "s",
                  "GEMMs");
  /* the ridge: 2e9 m / (5e14 m / (m + 100)) = 2 ms at m + 100 = 500, m = 400 tokens */
  scale_serve_step ridge = {0, 0, 400, 1, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &ridge).linear_s, sqrt(2.0) * 2e-3, 1e-12, "s",
                  "sqrt(2) x 2 ms");
  c.p[SCALE_SERVE_LINEAR_K] = 1.0;
  scale_check_rel(scale_serve_cost_parts(&c, &ridge).linear_s, 4e-3, 1e-12, "s", "2 + 2 ms");
}
END_TEST

START_TEST(test_kv_limits) {
  /* Decode attention, round copy (1e5 B a token at 5e11 B/s: 0.2 us a token; kv_ctx_half 50,
   * kv_cta_half 20, 4 KV heads a chip):
   *   long contexts, many sequences (1e4 x 1e6 tokens): the roof, 1e10 x 0.2 us = 2000 s, to
   *     (1 + 50 / 1e6)(1 + 20 / 4e4) - 1 = 5.5e-4;
   *   a context of kv_ctx_half costs twice its tokens: 1e4 x 50 tokens -> 2 x 5e5 x 1.0005 tokens;
   *   one sequence runs 4 work items: 1 + 20 / 4 = 6 times slower than the roof. */
  scale_serve_cost c = round_cost();
  scale_serve_step lots = {1e4, 1e10, 0, 0, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &lots).kv_s, 2000.0, 6e-4, "s", "the roof");
  scale_check_rel(scale_serve_cost_parts(&c, &lots).kv_s, 2000.0 * 1.00005 * 1.0005, 1e-12, "s",
                  "the roof and both penalties");
  scale_serve_step short_ctx = {1e4, 5e5, 0, 0, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &short_ctx).kv_s, 2.0 * 5e5 * 1.0005 * 2e-7, 1e-12,
                  "s", "twice the tokens");
  scale_serve_step alone = {1, 1e6, 0, 0, 0};
  scale_check_rel(scale_serve_cost_parts(&c, &alone).kv_s, 6.0 * (1e6 + 50) * 2e-7, 1e-12, "s",
                  "6 x the roof");
  /* a step with no decodes reads no KV */
  scale_serve_step prefill = {0, 0, 100, 1, 5050};
  ck_assert(scale_serve_cost_parts(&c, &prefill).kv_s == 0.0);
}
END_TEST

START_TEST(test_expert_shape) {
  /* Routed experts' GEMMs keep moe_gemm_frac x n / (n + expert_dim_half) of the dense
   * efficiency at their rows: at n = expert_dim_half half of it, so a step far above the ridge
   * (1e5 tokens, all GEMM) of an all-routed copy costs twice what an infinitely wide expert's
   * would. Round copy made MoE: E = 4, k = 1, 1e9 parameters all routed (one expert 1e9 bytes),
   * 2.5e4 rows an expert: 2e14 / (5e14 x 25000 / 25100) = 401.6 ms wide, 803.2 ms at n = 100. */
  scale_serve_cost c = round_cost();
  c.n_experts = 4;
  c.experts_active = 1;
  c.expert_bytes = 1e9;
  c.weight_bytes = 4e9;
  c.routed_active_params = 1e9;
  c.p[SCALE_SERVE_LINEAR_K] = 16.0;
  scale_serve_step big = {0, 0, 1e5, 1, 0};
  c.expert_dim = 1e12;
  double wide = scale_serve_cost_parts(&c, &big).linear_s;
  scale_check_rel(wide, 2e14 * 25100 / (5e14 * 25000), 1e-6, "s", "wide experts");
  c.expert_dim = 100;
  scale_check_rel(scale_serve_cost_parts(&c, &big).linear_s, 2.0 * wide, 1e-6, "s",
                  "twice at n = expert_dim_half");
}
END_TEST

START_TEST(test_dtypes) {
  /* Every storage and compute format prices: LLaMA 3 8B on one H100 (its [serve], or priors).
   * Weights bf16, fp8, int8, int4 are N x 2, 1, 1, 0.5 bytes; the KV of a token is
   * 32 x 8 x 128 x 2 (K, V) x 2, 1, 1, 0.5 bytes; the GEMMs run at the compute dtype's peak
   * (weight-only int4 / int8 dequantize into the activations' bf16 or fp8). A batch-1 decode
   * streams the weights, so it gets faster as they shrink; a 4096-token prefill step runs the
   * GEMMs, whose time depends on the compute dtype, not on the stored one. */
  const scale_dtype st[] = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP8, SCALE_DTYPE_INT8, SCALE_DTYPE_INT4};
  const double bytes[] = {2.0, 1.0, 1.0, 0.5};
  const scale_dtype compute[] = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP8};
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load("llama-3-8b", &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-h100-sxm", &chip, &diag) == SCALE_OK);
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  double n = scale_transformer_n_params(&m);
  for (int cd = 0; cd < 2; cd++) {
    double prefill_s = NAN, last_decode_s = INFINITY;
    for (int w = 0; w < 4; w++)
      for (int k = 0; k < 4; k++) {
        scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
        ic.weight_dtype = st[w];
        ic.kv_dtype = st[k];
        ic.compute_dtype = compute[cd];
        scale_serve_cost c;
        ck_assert_msg(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_OK, "%s",
                      diag.message);
        scale_check_rel(c.weight_bytes, n * bytes[w], 1e-12, "bytes", "N x bytes a weight");
        scale_check_rel(c.kv_bytes_per_token, 65536 * bytes[k], 1e-12, "bytes", "KV a token");
        scale_check_rel(c.flops_per_s, scale_chip_flops_per_s(&chip, compute[cd]), 1e-12, "FLOP/s",
                        "the compute dtype's peak");
        scale_serve_step dec = {1, 2048, 0, 0, 0}, pre = {0, 0, 4096, 1, 4096 * 4097 / 2.0};
        double d_s = scale_serve_cost_s(&dec, &c), p_s = scale_serve_cost_s(&pre, &c);
        ck_assert(isfinite(d_s) && d_s > 0.0 && isfinite(p_s) && p_s > 0.0);
        scale_serve_parts pp = scale_serve_cost_parts(&c, &pre);
        ck_assert(pp.gemm_bound);
        if (k == 0) {
          ck_assert_msg(d_s <= last_decode_s, "decode slower with smaller weights");
          last_decode_s = d_s;
          if (w == 0) prefill_s = pp.linear_s;
          /* the weight read still counts in the smooth max: within 2% of the bf16 GEMM step */
          scale_check_rel(pp.linear_s, prefill_s, 0.02, "s", "GEMMs at the compute dtype");
        }
      }
  }
}
END_TEST

START_TEST(test_cost_of_ranges) {
  /* the layout resolved from the data files: LLaMA 3 8B in fp8 on one H100 holds 8.03e9 bytes
   * of weights (one byte a parameter) and 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 byte =
   * 65,536 bytes of KV a token; 4 x 32 x 32 x 128 = 524,288 FLOPs a query-key pair */
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load("llama-3-8b", &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-h100-sxm", &chip, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
  ic.weight_dtype = ic.kv_dtype = ic.compute_dtype = SCALE_DTYPE_FP8;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  scale_serve_cost c;
  ck_assert_msg(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_OK, "%s", diag.message);
  scale_check_rel(c.kv_bytes_per_token, 65536, 1e-12, "bytes", "32 x 8 x 128 x 2 x 1");
  scale_check_rel(c.attn_flops_per_pair, 524288, 1e-12, "FLOP", "4 x 32 x 32 x 128");
  scale_check_rel(c.weight_bytes, (double)m.n_params_reported, 0.01, "bytes", "8.03e9 x 1 byte");
  ck_assert(c.comm_fixed_s[SCALE_FFN_WS_1D] == 0.0 && c.comm_token_s[SCALE_FFN_WS_1D] == 0.0);
  /* one chip: no collective; a 2-D MLP layout is refused on an NVLink switch, in one line */
  ic.n_chips = ic.tp = 8;
  ic.ffn_layout = SCALE_FFN_WS_2D;
  ck_assert(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_ERR_RANGE);
  ck_assert(strstr(diag.message, "2-D") != NULL && strchr(diag.message, '\n') == NULL);
  ic.n_chips = ic.tp = 1;
  ic.ffn_layout = SCALE_FFN_WS_1D;
  /* a parameter outside its range is refused */
  p[SCALE_SERVE_MATMUL_FRAC] = 1.5;
  ck_assert(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_ERR_RANGE);
  ck_assert(strstr(diag.message, "matmul_frac") != NULL);
}
END_TEST

/* ---- one cost for the fixed batch and the simulator (issue 28) ---------------------------- */

START_TEST(test_fixed_batch_is_simulator_step) {
  /* Issue 28's setup: LLaMA 3 70B fp8, TP 8 on 8 H100, 64 in flight at 2560 tokens of context.
   * `scale infer --batch 64 --context 2560` prices its decode step with
   * scale_serve_decode_parts(); the simulator prices every step with scale_serve_cost_s(). A run
   * of 64 requests that arrive prefilled (2559 prompt tokens and their first token) with two
   * output tokens each decodes them in one step reading 2559 + 1 = 2560 tokens a request: its
   * TPOT is that step, which must be the fixed batch's within 1% (the same function: to
   * rounding). Its prefill of one 2048-token prompt is the simulator's prefill step of it. */
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load("llama-3-70b", &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-h100-sxm", &chip, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(8, 64, 2560);
  ic.weight_dtype = ic.kv_dtype = ic.compute_dtype = SCALE_DTYPE_FP8;
  double p[SCALE_SERVE_N_PARAMS];
  ck_assert(scale_serve_params_of(&chip, p));
  scale_serve_cost c;
  ck_assert_msg(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_OK, "%s", diag.message);
  scale_serve_parts fixed = scale_serve_decode_parts(&c, 64, 2560);
  double fixed_s = scale_serve_parts_total(&fixed);
  scale_serve_config sc = scale_serve_config_default();
  sc.rate_per_s = INFINITY;
  sc.n_requests = 64;
  sc.isl.min_tokens = sc.isl.max_tokens = 2559;
  sc.osl.min_tokens = sc.osl.max_tokens = 2;
  sc.max_batch = 64;
  sc.prefilled = true;
  sc.cost = scale_serve_cost_s;
  sc.cost_ctx = &c;
  scale_serve *sim = NULL;
  scale_serve_result r;
  ck_assert_msg(scale_serve_new(&sc, &sim, &diag) == SCALE_OK, "%s", diag.message);
  ck_assert(scale_serve_run(sim, &r, &diag) == SCALE_OK);
  scale_serve_free(sim);
  ck_assert(r.n_steps == 1.0);
  scale_check_rel(r.tpot_p50_s, fixed_s, 0.01, "s", "simulator's decode step = fixed batch's");
  /* the collectives are physical: 160 AllReduces of 64 x 8192 x 2 B = 1 MiB on the NVLink
   * switch, each 2 hops at the training fit's NVLink latency plus 2 x 7/8 MiB over the
   * egress at its achieved share (collectives.h's switch AllReduce) */
  double eta = chip.step[SCALE_STEP_UP_BW_ETA], lat = chip.step[SCALE_STEP_UP_LATENCY_S];
  double ar = 2 * lat + 2 * 7.0 / 8.0 * 1048576 / (4.5e11 * eta);
  scale_check_rel(fixed.tp_s, 160 * ar, 1e-9, "s", "160 physical AllReduces");
  ck_assert_msg(ar < 40e-6, "a 1 MiB AllReduce over NVLink takes %g s", ar);
  /* the engine's time is apart, by its three named terms */
  double engine = p[SCALE_SERVE_OVERHEAD_S] + 64 * p[SCALE_SERVE_OVERHEAD_SEQ_S] +
                  160 * 7 * p[SCALE_SERVE_OVERHEAD_COLL_S];
  scale_check_rel(fixed.overhead_s, engine, 1e-12, "s", "step + requests + collective flags");
  /* KV heads replicated beyond K (--kv-sharding heads): on 16 v5e chips each of LLaMA 3 70B's
   * 8 KV heads lives on 2 chips, which both read it: twice the bytes a chip reads; split over
   * the batch beyond K (the default, multi-query attention as ch. 7 shards it) each chip reads
   * its own share, and pays two AllToAlls a layer instead */
  scale_chip v5e;
  ck_assert(scale_chip_load("tpu-v5e", &v5e, &diag) == SCALE_OK);
  scale_infer_config tc = scale_infer_config_default(16, 16, 2048);
  tc.weight_dtype = tc.kv_dtype = SCALE_DTYPE_INT8;
  scale_serve_params_of(&v5e, p);
  scale_serve_cost full, heads;
  ck_assert(scale_serve_cost_of(&m, &v5e, &tc, p, &full, &diag) == SCALE_OK);
  tc.kv_sharding = SCALE_KV_SHARD_HEADS;
  ck_assert(scale_serve_cost_of(&m, &v5e, &tc, p, &heads, &diag) == SCALE_OK);
  ck_assert(full.kv_read_factor == 1.0 && heads.kv_read_factor == 2.0);
  scale_serve_parts pf = scale_serve_decode_parts(&full, 16, 2048);
  scale_serve_parts ph = scale_serve_decode_parts(&heads, 16, 2048);
  scale_check_rel(ph.kv_s, 2 * pf.kv_s, 1e-12, "s", "replicated heads read twice");
  ck_assert(ph.tp_s < pf.tp_s); /* no AllToAll */
  /* a prefill step of one 2048-token prompt, as the simulator runs it (budget 8192) */
  scale_serve_parts pre = scale_serve_prefill_parts(&c, 2048);
  scale_serve_step one = {0, 0, 2048, 1, 2048.0 * 2049.0 / 2.0};
  scale_check_rel(scale_serve_parts_total(&pre), scale_serve_cost_s(&one, &c), 1e-12, "s",
                  "prefill");
}
END_TEST

/* ---- fp4 and MoE --------------------------------------------------------------------------- */

START_TEST(test_fp4_storage) {
  /* NVFP4: sixteen 4-bit values share one 8-bit (e4m3) scale, so a weight costs
   * (16 x 4 + 8) / 16 = 4.5 bits = 0.5625 bytes. The B200's fp4 peak: the HGX B200 datasheet's
   * 72 PFLOP/s dense over 8 GPUs = 9e15, twice its fp8 4.5e15; the H100 has no fp4 rate. */
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_FP4), 0.5625, 1e-15, "bytes", "4.5 bits");
  scale_dtype d = SCALE_DTYPE_BF16;
  ck_assert(scale_dtype_parse("NVFP4", &d) == SCALE_OK && d == SCALE_DTYPE_FP4);
  ck_assert_str_eq(scale_dtype_name(SCALE_DTYPE_FP4), "fp4");
  scale_chip b200, h100;
  scale_diag diag;
  ck_assert(scale_chip_load("nvidia-b200", &b200, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-h100-sxm", &h100, &diag) == SCALE_OK);
  scale_check_rel(scale_chip_flops_per_s(&b200, SCALE_DTYPE_FP4), 72e15 / 8, 1e-12, "FLOP/s",
                  "HGX B200 fp4 dense / 8");
  ck_assert(!(scale_chip_flops_per_s(&h100, SCALE_DTYPE_FP4) > 0.0));
  /* LLaMA 3 70B in fp4 on one B200: 0.5625 bytes a parameter, fp4 GEMMs priced with
   * fp4_matmul_frac, a dense model (no routed experts) */
  scale_model m;
  ck_assert(scale_model_load("llama-3-70b", &m, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
  ic.weight_dtype = ic.compute_dtype = SCALE_DTYPE_FP4;
  ic.kv_dtype = SCALE_DTYPE_FP8;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&b200, p);
  scale_serve_cost c;
  ck_assert_msg(scale_serve_cost_of(&m, &b200, &ic, p, &c, &diag) == SCALE_OK, "%s", diag.message);
  scale_check_rel(c.weight_bytes, scale_transformer_n_params(&m) * 0.5625, 1e-12, "bytes",
                  "N x 0.5625");
  scale_check_rel(c.flops_per_s, 9e15, 1e-12, "FLOP/s", "one B200 in fp4");
  ck_assert_int_eq(c.matmul_param, SCALE_SERVE_FP4_MATMUL_FRAC);
  ck_assert(c.n_experts == 0.0 && scale_serve_experts_touched(&c, 1000) == 0.0);
}
END_TEST

START_TEST(test_moe_experts_touched) {
  /* Each token routes to k of E experts; one expert is missed by one token with probability
   * 1 - k/E, by T independent tokens with (1 - k/E)^T, so E (1 - (1 - k/E)^T) are read.
   * Qwen3 30B-A3B, E = 128, k = 8: T = 1 reads 128 x (1/16) = 8 (exactly k); T = 2 reads
   * 128 (1 - (15/16)^2) = 128 x 31/256 = 15.5; T = 1000 reads all 128 (to 1e-12). */
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load("qwen3-30b-a3b", &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-b200", &chip, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(1, 1, 2048);
  ic.weight_dtype = ic.compute_dtype = SCALE_DTYPE_FP4;
  ic.kv_dtype = SCALE_DTYPE_FP8;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  scale_serve_cost c;
  ck_assert_msg(scale_serve_cost_of(&m, &chip, &ic, p, &c, &diag) == SCALE_OK, "%s", diag.message);
  scale_check_rel(scale_serve_experts_touched(&c, 1), 8, 1e-12, "experts", "k");
  scale_check_rel(scale_serve_experts_touched(&c, 2), 15.5, 1e-12, "experts", "128 x 31/256");
  scale_check_rel(scale_serve_experts_touched(&c, 1000), 128, 1e-12, "experts", "all of them");
  /* one routed expert over the 48 MoE layers: 3 x 2048 x 768 x 48 = 226,492,416 parameters,
   * x 0.5625 bytes = 127,401,984 bytes; the k = 8 a token uses: 1,811,939,328 parameters */
  scale_check_rel(c.expert_bytes, 127401984.0, 1e-12, "bytes", "3 D F L x 0.5625");
  scale_check_rel(c.routed_active_params, 1811939328.0, 1e-12, "params", "8 x 3 D F L");
}
END_TEST

START_TEST(test_moe_cost_parts) {
  /* A made-up MoE copy, every term by hand: E = 4 experts, k = 2; weights 1e9 bytes of which
   * 6e8 shared and 4 experts of 1e8 (one byte a parameter); active parameters 6e8 + 2 x 1e8;
   * W 1e12 B/s x 0.5, C 1e15 x matmul_frac 0.5, mm_dim_half 100, moe_gemm_frac 0.25, experts
   * 300 wide with expert_dim_half 100 (their shape keeps 300 / 400 = 0.75), linear_k 2.
   * One decode token: it touches 4 (1 - (1 - 2/4)^1) = 2 experts, so 6e8 + 2e8 = 8e8 bytes are
   *   read: 8e8 / 5e11 = 1.6 ms. GEMMs: shared 1.2e9 FLOP / (1e15 x 0.5 / 101) = 0.2424 ms;
   *   routed: 0.5 rows an expert, 4e8 / (1e15 x 0.5 x 0.5 / 100.5 x 0.25 x 0.75) = 0.8576 ms;
   *   1.1 ms in all, weight-bound; (1.6^2 + 1.1^2)^(1/2) = 1.9417 ms.
   * 1000 tokens: all 4 experts, 1e9 / 5e11 = 2 ms of weights; GEMMs: shared 1.2e12 / (5e14 x
   *   1000 / 1100) = 2.64 ms, routed 500 rows an expert, 4e11 / (1e15 x 0.5 x 500 / 600 x 0.25
   *   x 0.75) = 5.12 ms; 7.76 ms, GEMM-bound; (2^2 + 7.76^2)^(1/2) = 8.0136 ms. */
  scale_serve_cost c;
  memset(&c, 0, sizeof c);
  c.p[SCALE_SERVE_WEIGHT_BW_FRAC] = 0.5;
  c.p[SCALE_SERVE_MATMUL_FRAC] = 0.5;
  c.p[SCALE_SERVE_MOE_GEMM_FRAC] = 0.25;
  c.p[SCALE_SERVE_EXPERT_DIM_HALF] = 100;
  c.p[SCALE_SERVE_LINEAR_K] = 2;
  c.expert_dim = 300;
  c.matmul_param = SCALE_SERVE_MATMUL_FRAC;
  c.n_params = 8e8;
  c.weight_bytes = 1e9;
  c.n_experts = 4;
  c.experts_active = 2;
  c.expert_bytes = 1e8;
  c.routed_active_params = 2e8;
  c.flops_per_s = 1e15;
  c.hbm_bytes_per_s = 1e12;
  c.mm_dim_half = 100;
  c.kv_bytes_per_token = 1;
  scale_serve_step one = {1, 0, 0, 0, 0};
  scale_serve_parts q = scale_serve_cost_parts(&c, &one);
  ck_assert(!q.gemm_bound);
  double gemm_1 = 1.2e9 * 101 / 5e14 + 4e8 * 100.5 / (1e15 * 0.5 * 0.5 * 0.25 * 0.75);
  scale_check_rel(gemm_1, 1.1e-3, 1e-3, "s", "0.2424 + 0.8576 ms");
  scale_check_rel(q.linear_s, sqrt(1.6e-3 * 1.6e-3 + gemm_1 * gemm_1), 1e-12, "s",
                  "8e8 bytes at 5e11 B/s and 1.1 ms of GEMMs");
  scale_serve_step many = {1000, 0, 0, 0, 0};
  q = scale_serve_cost_parts(&c, &many);
  ck_assert(q.gemm_bound);
  scale_check_rel(q.linear_s, sqrt(4e-6 + 7.76e-3 * 7.76e-3), 1e-12, "s",
                  "2 ms of weights and 2.64 + 5.12 ms of GEMMs");
}
END_TEST

/* ---- the shipped rows and the fit --------------------------------------------------------- */

static scale_serve_set *shipped_set(void) {
  scale_serve_set *set = NULL;
  scale_diag diag;
  char dir[4200];
  snprintf(dir, sizeof dir, "%.4000s/measurements", scale_data_dir());
  ck_assert_msg(scale_serve_set_load(dir, &set, &diag) == SCALE_OK, "%s:%d: %s", diag.file,
                diag.line, diag.message);
  return set;
}

static int find_row(const scale_serve_set *set, const char *id) {
  for (int i = 0; i < scale_serve_set_rows(set); i++)
    if (!strcmp(scale_serve_set_row(set, i)->id, id)) return i;
  ck_abort_msg("no row %s", id);
  return -1;
}

/* The set of shipped rows takes seconds to simulate (minutes under sanitizers): the checks on
 * it share one load per test case. */
static void check_rows_shipped(const scale_serve_set *set) {
  /* measurements/serving-trtllm.tsv: six FP8 Hopper columns of the TensorRT-LLM tables, ten
   * ISL/OSL each; serving-trtllm-fp4.tsv six FP4 Blackwell columns of the same page;
   * serving-trtllm-v017.tsv six FP8 Hopper columns (LLaMA 3.1 70B TP4, Mixtral 8x7B TP2 and TP4)
   * of the v0.17 page, nine ISL/OSL each. The digest's E1 128/128 row is 28,312 tokens/s, E4
   * 2048/128 is 453; the page's Qwen3-30B-A3B B200 128/128 is 39,827; the v0.17 table's
   * Mixtral 8x7B TP2 H200 128/128 is 27,825.34 */
  ck_assert_int_eq(scale_serve_set_rows(set), 174);
  ck_assert_int_eq(scale_serve_set_groups(set), 18);
  const scale_serve_row *t = scale_serve_set_row(set, find_row(set, "T3a"));
  scale_check_rel(t->measured, 27825.34, 0, "tokens/s", "v0.17 Mixtral TP2 H200");
  ck_assert(t->tp == 2 && strcmp(t->model, "mixtral-8x7b") == 0);
  const scale_serve_row *f = scale_serve_set_row(set, find_row(set, "F5a"));
  scale_check_rel(f->measured, 39827, 0, "tokens/s", "perf-overview.md Qwen3-30B-A3B B200");
  ck_assert(f->weight_dtype == SCALE_DTYPE_FP4 && f->compute_dtype == SCALE_DTYPE_FP4);
  const scale_serve_row *r = scale_serve_set_row(set, find_row(set, "E1a"));
  scale_check_rel(r->measured, 28312, 0, "tokens/s", "reference/measurements.md E1 128/128");
  ck_assert(r->isl == 128 && r->osl == 128 && r->requests == 30000);
  r = scale_serve_set_row(set, find_row(set, "E4g"));
  scale_check_rel(r->measured, 453, 0, "tokens/s", "reference/measurements.md E4 2048/128");
  ck_assert(r->tp == 8 && r->chips == 8);
}

static void check_row_simulated(const scale_serve_set *set, const char *id);

static void check_trace_equals_simulation(const scale_serve_set *set) {
  /* A prediction sums the cost over the row's recorded trace; simulating the row directly with
   * the calibrated cost must give the same throughput (the offline run's steps do not depend on
   * their durations). Row E2e: LLaMA 3.3 70B, 2 x H100 TP2, 1000/1000, 3000 requests. */
  check_row_simulated(set, "E2e");
  /* and a MoE row in fp4: Qwen3-30B-A3B on one B200, 1000/1000 */
  check_row_simulated(set, "F5e");
}

static void check_row_simulated(const scale_serve_set *set, const char *id) {
  int i = find_row(set, id);
  const scale_serve_row *r = scale_serve_set_row(set, i);
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load(r->model, &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load(r->hardware, &chip, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(r->tp, 1, r->isl + r->osl);
  ic.weight_dtype = r->weight_dtype;
  ic.kv_dtype = r->kv_dtype;
  ic.compute_dtype = r->compute_dtype;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  scale_serve_cost cost;
  ck_assert(scale_serve_cost_of(&m, &chip, &ic, p, &cost, &diag) == SCALE_OK);
  scale_serve_config c = scale_serve_config_default();
  c.rate_per_s = INFINITY;
  c.n_requests = r->requests;
  c.isl.min_tokens = c.isl.max_tokens = r->isl;
  c.osl.min_tokens = c.osl.max_tokens = r->osl;
  c.max_batch = r->max_batch;
  c.max_step_tokens = r->step_tokens;
  c.block_tokens = r->block_tokens;
  c.kv_blocks =
      floor(cost.kv_capacity_bytes * r->kv_mem_frac / (r->block_tokens * cost.kv_bytes_per_token));
  c.cost = scale_serve_cost_s;
  c.cost_ctx = &cost;
  scale_serve *sim = NULL;
  scale_serve_result res;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_OK);
  ck_assert(scale_serve_run(sim, &res, &diag) == SCALE_OK);
  scale_serve_free(sim);
  scale_check_rel(scale_serve_set_predict(set, i, p, NULL), res.throughput_tokens_per_s, 1e-9,
                  "tokens/s", "the direct simulation of the row");
}

START_TEST(test_saturation_calibrated) {
  /* Issue 15's saturation limit with the calibrated cost: Poisson arrivals at ten times what the
   * engine can serve queue up, and the throughput is the offline maximum of the same requests
   * (the arrivals' spread only delays the first steps: within 3% over 2000 requests). LLaMA 3 8B,
   * fp8, one H100, 1000/200 tokens, batch cap 256. */
  scale_model m;
  scale_chip chip;
  scale_diag diag;
  ck_assert(scale_model_load("llama-3-8b", &m, &diag) == SCALE_OK);
  ck_assert(scale_chip_load("nvidia-h100-sxm", &chip, &diag) == SCALE_OK);
  scale_infer_config ic = scale_infer_config_default(1, 1, 1200);
  ic.weight_dtype = ic.kv_dtype = ic.compute_dtype = SCALE_DTYPE_FP8;
  double p[SCALE_SERVE_N_PARAMS];
  scale_serve_params_of(&chip, p);
  scale_serve_cost cost;
  ck_assert(scale_serve_cost_of(&m, &chip, &ic, p, &cost, &diag) == SCALE_OK);
  scale_serve_config c = scale_serve_config_default();
  c.n_requests = 2000;
  c.isl.min_tokens = c.isl.max_tokens = 1000;
  c.osl.min_tokens = c.osl.max_tokens = 200;
  c.kv_blocks = floor(0.9 * cost.kv_capacity_bytes / (16 * cost.kv_bytes_per_token));
  c.cost = scale_serve_cost_s;
  c.cost_ctx = &cost;
  scale_serve_result off, sat;
  scale_serve *sim = NULL;
  c.rate_per_s = INFINITY;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_OK);
  ck_assert(scale_serve_run(sim, &off, &diag) == SCALE_OK);
  scale_serve_free(sim);
  c.rate_per_s = 10.0 * off.request_rate_per_s;
  ck_assert(scale_serve_new(&c, &sim, &diag) == SCALE_OK);
  ck_assert(scale_serve_run(sim, &sat, &diag) == SCALE_OK);
  scale_serve_free(sim);
  scale_check_rel(sat.throughput_tokens_per_s, off.throughput_tokens_per_s, 0.03, "tokens/s",
                  "the offline maximum");
  ck_assert(sat.bind != SCALE_SERVE_BIND_LOAD);
}
END_TEST

static void check_fit_reproduces_shipped(const scale_serve_set *set) {
  /* The [serve] of hardware/nvidia-h100-sxm.ini is `scale calibrate --serving`'s output; a fresh
   * fit of the shipped rows gives it again (the fit is deterministic; the file keeps 6 digits).
   * Every value lies inside its plausible range. */
  double p[SCALE_SERVE_N_PARAMS], shipped[SCALE_SERVE_N_PARAMS];
  double rms = scale_serve_fit(set, -1, p);
  ck_assert(rms > 0.0 && rms < 0.15);
  const char *chips[] = {"nvidia-h100-sxm", "nvidia-h200"};
  for (int c = 0; c < 2; c++) {
    scale_chip chip;
    scale_diag diag;
    ck_assert(scale_chip_load(chips[c], &chip, &diag) == SCALE_OK);
    ck_assert_msg(scale_serve_params_of(&chip, shipped), "%s has no [serve]", chips[c]);
    for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++) {
      const scale_serve_param_info *d = scale_serve_param_describe(k);
      scale_check_rel(shipped[k], p[k], 1e-5, d->unit, d->key);
      ck_assert(p[k] >= d->lo && p[k] <= d->hi);
    }
  }
}

static void check_fit_cache(const scale_serve_set *set) {
  /* The fit prices trial values from each row's parts cached at the current parameters, one
   * parameter at a time, and the step sizes a group's rows share once: at random parameters
   * (and at the priors) that path gives every row's scale_serve_set_predict() to the last bit,
   * so the fitted values are those of the direct sums. */
  int n = scale_serve_set_rows(set);
  double *fast = malloc((size_t)n * sizeof *fast), p[SCALE_SERVE_N_PARAMS];
  ck_assert(fast != NULL);
  unsigned long long seed = 26;
  for (int trial = 0; trial < 5; trial++) {
    for (int k = 0; k < SCALE_SERVE_N_PARAMS; k++) {
      const scale_serve_param_info *d = scale_serve_param_describe(k);
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      double u = (double)(seed >> 11) / 9007199254740992.0; /* [0, 1) */
      p[k] = trial == 0 ? d->prior
             : d->log_scale ? d->lo * pow(d->hi / d->lo, u)
                            : d->lo + u * (d->hi - d->lo);
    }
    scale_serve_set_predict_all(set, p, fast);
    for (int i = 0; i < n; i++) {
      double direct = scale_serve_set_predict(set, i, p, NULL);
      ck_assert_msg(isfinite(direct) && fast[i] == direct, "row %s at point %d: %.17g != %.17g",
                    scale_serve_set_row(set, i)->id, trial, fast[i], direct);
    }
  }
  free(fast);
}

static void check_loo_threads(const scale_serve_set *set, const double *loo) {
  /* scale_serve_loo() shares the groups among threads; each group's rows are those of the fit
   * without it (scale_serve_fit), predicted directly, whatever thread ran it, and
   * scale_serve_loo_group() writes that group's rows alone. Two groups: the first and a MoE
   * one (Mixtral). */
  int n = scale_serve_set_rows(set), groups[2] = {0, -1};
  for (int g = 0; g < scale_serve_set_groups(set); g++)
    if (groups[1] < 0 && strstr(scale_serve_set_group_name(set, g), "mixtral")) groups[1] = g;
  ck_assert(groups[1] > 0);
  double *one = malloc((size_t)n * sizeof *one), p[SCALE_SERVE_N_PARAMS];
  ck_assert(one != NULL);
  for (int j = 0; j < 2; j++) {
    int g = groups[j];
    for (int i = 0; i < n; i++)
      one[i] = -1.0;
    scale_serve_loo_group(set, g, one);
    ck_assert(scale_serve_fit(set, g, p) > 0.0);
    for (int i = 0; i < n; i++) {
      bool in = scale_serve_set_row_group(set, i) == g;
      ck_assert(in ? one[i] == loo[i] : one[i] == -1.0);
      if (in) ck_assert(loo[i] == scale_serve_set_predict(set, i, p, NULL));
    }
  }
  free(one);
}

static void check_loo_target(const scale_serve_set *set) {
  /* Issue 15: leave-one-group-out MAPE <= 15% over the TensorRT-LLM rows E1-E4 (each group
   * predicted by a fit that never saw it), and over every shipped row, where the fit reaches
   * 9.8% (issue 28: collectives priced physically, the engine's terms apart; 9.3% when a
   * fitted AllReduce bandwidth and ring latency absorbed the engine's time; the [serve] of
   * hardware/nvidia-*.ini; the bound leaves room for refits of the step model's mm_dim_half and
   * NVLink terms, which the serving cost shares); each Mixtral 8x7B group, whose wide experts
   * the expert-width efficiency prices, within 21%: three within 13%, TP4 on H200 at 18.5%
   * (17.2% with the fitted AllReduce; its large-batch steps come out too slow either way),
   * 20.3% since the step model's 8-bit rows fit a stage of their own (issue 27: the 16-bit
   * stage lost its Hopper rows, mm_dim_half 127 -> 86, NVLink's bandwidth share 0.70 -> 0.64;
   * every row 10.3%). */
  int n = scale_serve_set_rows(set);
  double *loo = malloc((size_t)n * sizeof *loo);
  ck_assert(loo != NULL);
  scale_serve_loo(set, loo);
  double sum = 0.0, rows = 0.0, sum_f = 0.0, rows_f = 0.0;
  for (int i = 0; i < n; i++) {
    const scale_serve_row *r = scale_serve_set_row(set, i);
    ck_assert(isfinite(loo[i]) && loo[i] > 0.0);
    if (r->id[0] == 'E' && r->id[1] >= '1' && r->id[1] <= '4') {
      sum += fabs(loo[i] / r->measured - 1.0);
      rows += 1.0;
    }
    if (r->id[0] == 'F' && r->id[1] >= '1' && r->id[1] <= '4') { /* dense fp4 on Blackwell */
      sum_f += fabs(loo[i] / r->measured - 1.0);
      rows_f += 1.0;
    }
  }
  ck_assert(rows == 40.0 && rows_f == 40.0);
  ck_assert_msg(sum / rows <= 0.15, "LOO MAPE over E1-E4 is %.1f%%", 100 * sum / rows);
  ck_assert_msg(sum_f / rows_f <= 0.15, "LOO MAPE over F1-F4 is %.1f%%", 100 * sum_f / rows_f);
  ck_assert_msg(scale_serve_mape(set, -1, loo) <= 0.11, "LOO MAPE over all rows is %.1f%%",
                100 * scale_serve_mape(set, -1, loo));
  int mixtral = 0;
  for (int g = 0; g < scale_serve_set_groups(set); g++)
    if (strstr(scale_serve_set_group_name(set, g), "mixtral")) {
      mixtral++;
      ck_assert_msg(scale_serve_mape(set, g, loo) <= 0.21, "LOO MAPE of %s is %.1f%%",
                    scale_serve_set_group_name(set, g), 100 * scale_serve_mape(set, g, loo));
    }
  ck_assert_int_eq(mixtral, 4);
  check_loo_threads(set, loo);
  free(loo);
}

START_TEST(test_rows_and_traces) {
  scale_serve_set *set = shipped_set();
  check_rows_shipped(set);
  check_trace_equals_simulation(set);
  check_fit_cache(set);
  scale_serve_set_free(set);
}
END_TEST

START_TEST(test_fit_and_loo) {
  scale_serve_set *set = shipped_set();
  check_fit_reproduces_shipped(set);
  check_loo_target(set);
  scale_serve_set_free(set);
}
END_TEST

/* ---- bad files ------------------------------------------------------------------------------ */

static const char *header =
    "id\tgroup\tmodel\thardware\tchips\ttp\tweights\tkv\tcompute\tisl\tosl\t"
    "requests\tmax_batch\tstep_tokens\tblock\tkv_mem_frac\tmetric\t"
    "measured\tsource\n";

/* Loads a folder holding one serving file with 'body' after 'head'; returns the status. */
static scale_status load_text(const char *head, const char *body, scale_diag *diag) {
  char dir[] = "/tmp/test_servecal_XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/serving-x.tsv", dir);
  FILE *fp = fopen(path, "w");
  ck_assert(fp != NULL);
  fputs(head, fp);
  fputs(body, fp);
  fclose(fp);
  scale_serve_row rows[4];
  int n = 0;
  scale_status st = scale_serve_rows_load_dir(dir, rows, 4, &n, diag);
  remove(path);
  rmdir(dir);
  return st;
}

START_TEST(test_bad_files) {
  scale_diag diag;
  const char *good = "X1\tg\tllama-3-8b\tnvidia-h100-sxm\t1\t1\tfp8\tfp8\tfp8\t128\t128\t100\t"
                     "64\t8192\t32\t0.9\toutput_tokens_per_s\t1000\tsrc\n";
  ck_assert(load_text(header, good, &diag) == SCALE_OK);
  ck_assert(load_text("id\tgroup\n", good, &diag) == SCALE_ERR_PARSE);
  char twice[1024];
  snprintf(twice, sizeof twice, "%s%s", good, good);
  ck_assert(load_text(header, twice, &diag) == SCALE_ERR_DUPLICATE_KEY);
  ck_assert_int_eq(diag.line, 3);
  const char *bad_metric = "X1\tg\tllama-3-8b\tnvidia-h100-sxm\t1\t1\tfp8\tfp8\tfp8\t128\t128\t"
                           "100\t64\t8192\t32\t0.9\tstep_s\t1000\tsrc\n";
  ck_assert(load_text(header, bad_metric, &diag) == SCALE_ERR_PARSE);
  const char *negative = "X1\tg\tllama-3-8b\tnvidia-h100-sxm\t1\t1\tfp8\tfp8\tfp8\t-5\t128\t"
                         "100\t64\t8192\t32\t0.9\toutput_tokens_per_s\t1000\tsrc\n";
  ck_assert(load_text(header, negative, &diag) == SCALE_ERR_RANGE);
  ck_assert(strstr(diag.message, "isl") != NULL);
  const char *tp3 = "X1\tg\tllama-3-8b\tnvidia-h100-sxm\t8\t3\tfp8\tfp8\tfp8\t128\t128\t"
                    "100\t64\t8192\t32\t0.9\toutput_tokens_per_s\t1000\tsrc\n";
  ck_assert(load_text(header, tp3, &diag) == SCALE_ERR_INVALID);
}
END_TEST

int main(void) {
  Suite *s = suite_create("servecal");
  const scale_check_case cases[] = {
      {"cost_parts", test_cost_parts},
      {"cost_of_ranges", test_cost_of_ranges},
      {"bad_files", test_bad_files},
      {"saturation_calibrated", test_saturation_calibrated},
      {"fp4_storage", test_fp4_storage},
      {"moe_experts_touched", test_moe_experts_touched},
      {"moe_cost_parts", test_moe_cost_parts},
      {"linear_limits", test_linear_limits},
      {"kv_limits", test_kv_limits},
      {"expert_shape", test_expert_shape},
      {"dtypes", test_dtypes},
      {"fixed_batch_is_simulator_step", test_fixed_batch_is_simulator_step},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  /* simulating the shipped rows takes seconds (a minute under sanitizers): its own timeout */
  TCase *rows = tcase_create("rows_and_traces");
  tcase_add_test(rows, test_rows_and_traces);
  tcase_set_timeout(rows, 300);
  suite_add_tcase(s, rows);
  /* the fit and its 18 leave-one-group-out refits take minutes (up to 9 on two loaded cores):
   * the slow tier, lib.servecal.slow */
  const scale_check_case slow[] = {{"fit_and_loo", test_fit_and_loo}};
  scale_check_add_slow_cases(s, slow, sizeof slow / sizeof slow[0], 840);
  return scale_check_run(s);
}
