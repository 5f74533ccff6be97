/* test_inference.c — behaviour of inference.h on models and chips: validation, memory, prefill,
 * decode step terms and collectives, sharding options, MoE, Mamba-2, frontier, thresholds.
 * The book's own numbers are in test_inference_book.c; expected values here are hand
 * derivations (written in comments) or independent paths through other modules.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "scale.h"
#include "scale/servecal.h"
#include "scale_check.h"

/* ---- validation ----------------------------------------------------------------------------- */

START_TEST(test_validate) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e"), h100 = scale_check_chip("nvidia-h100-sxm");
  scale_diag diag;
  scale_infer_config cfg = scale_infer_config_default(16, 32, 8192);
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &cfg, &diag), SCALE_OK);

  scale_infer_config bad = cfg;
  bad.batch = 0;
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "batch"));
  bad = cfg;
  bad.context = 16384; /* LLaMA 3 70B (April 2024) was trained to 8192 tokens */
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "maximum of 8192"));
  bad = cfg;
  bad.tp = 3;
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_INVALID);
  bad = cfg;
  bad.tp = 8; /* 2 copies: a batch of 31 cannot be split */
  bad.batch = 31;
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_INVALID);
  bad = cfg;
  bad.mfu_frac = 1.5;
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_RANGE);
  bad = cfg;
  bad.ep = 2; /* a dense model has no experts */
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_INVALID);
  bad = cfg;
  bad.compute_dtype = SCALE_DTYPE_FP8; /* v5e has no fp8 rate */
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_INVALID);
  /* H100: model parallelism within the 8-GPU NVLink domain only. */
  ck_assert_int_eq(scale_infer_validate(&m, &h100, &cfg, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "NVLink"));
  scale_infer_config gpu = scale_infer_config_default(8, 32, 8192);
  ck_assert_int_eq(scale_infer_validate(&m, &h100, &gpu, &diag), SCALE_OK);
  /* v5e pod is 16x16: 512-way does not fit. */
  bad = scale_infer_config_default(512, 512, 8192);
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &bad, &diag), SCALE_ERR_RANGE);
  /* Evaluations outside the domain give NaN, never garbage. */
  bad = cfg;
  bad.batch = 0;
  scale_check_nan(scale_infer_decode_eval(&m, &v5e, &bad).step_s);
  scale_check_nan(scale_infer_memory_eval(&m, &v5e, &bad).total_bytes_per_chip);
  scale_check_nan(scale_infer_prefill_eval(&m, &v5e, NULL).time_s);
}
END_TEST

/* Issue 13 section 2: one context check for `infer` and `model show`; a model without
 * n_ctx_max still has a ceiling, so 1e308 tokens never reaches the formulas as inf. */
START_TEST(test_context_range) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_diag diag;
  ck_assert_int_eq(scale_infer_check_context(&m, "context", 8192, 1, &diag), SCALE_OK);
  ck_assert_int_eq(scale_infer_check_context(&m, "context", 1e308, 1, &diag), SCALE_ERR_RANGE);
  ck_assert_str_eq(diag.message, "context 1e+308 exceeds llama-3-8b's maximum of 8192 tokens");
  ck_assert_int_eq(scale_infer_check_context(&m, "context", 0, 1, &diag), SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_infer_check_context(&m, "prompt", 0, 0, &diag), SCALE_OK);
  m.n_ctx_max = 0; /* unknown */
  ck_assert_int_eq(scale_infer_check_context(&m, "context", 1e9, 1, &diag), SCALE_OK);
  ck_assert_int_eq(scale_infer_check_context(&m, "context", 1e308, 1, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "names no maximum"));
  scale_infer_config cfg = scale_infer_config_default(4, 4, 1e308);
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &cfg, &diag), SCALE_ERR_RANGE);
}
END_TEST

/* Issue 13 section 2: a 16-digit prime model-parallel degree was factored by trial division up
 * to its square root (1e8 divisions, seconds) before being refused; now at once. */
START_TEST(test_huge_prime_tp_refused_fast) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_diag diag;
  scale_infer_config cfg = scale_infer_config_default(9007199254740881.0, 9007199254740881.0, 64);
  clock_t t0 = clock();
  ck_assert_int_eq(scale_infer_validate(&m, &v5e, &cfg, &diag), SCALE_ERR_RANGE);
  double cpu_s = (double)(clock() - t0) / CLOCKS_PER_SEC;
  ck_assert_msg(cpu_s < 0.5, "refusing a prime tp took %g s of CPU", cpu_s);
}
END_TEST

/* ---- memory --------------------------------------------------------------------------------- */

START_TEST(test_memory) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(16, 32, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_memory mem = scale_infer_memory_eval(&m, &v5e, &cfg);
  double p = scale_transformer_n_params(&m);
  scale_check_rel(mem.weight_bytes, p, 1e-12, "bytes", "int8: one byte per parameter");
  scale_check_rel(mem.weight_bytes_per_chip, p / 16, 1e-12, "bytes", "split 16 ways");
  scale_check_rel(mem.kv_bytes_per_token, 163840.0, 1e-12, "bytes", "2 L K H int8");
  scale_check_rel(mem.kv_bytes_per_sequence, 163840.0 * 8192, 1e-12, "bytes", "x S");
  scale_check_rel(mem.kv_bytes_per_chip, 32 * 163840.0 * 8192 / 16, 1e-12, "bytes",
                  "fully sharded over 16 chips");
  /* Activations of an 8192-token prefill layer split 16 ways, bf16:
   * 8192 x (8192 + (2 x 64 + 2 x 8) x 128 / 16 + 2 x 28672 / 16) x 2. */
  scale_check_rel(mem.activation_bytes_per_chip,
                  8192.0 * (8192 + 144.0 * 128 / 16 + 2 * 28672.0 / 16) * 2, 1e-12, "bytes",
                  "hand: working activations");
  ck_assert(mem.fits);
  /* max_batch is the largest that fits: it fits, one more does not. */
  scale_infer_config at = cfg;
  at.batch = mem.max_batch;
  ck_assert(scale_infer_memory_eval(&m, &v5e, &at).fits);
  at.batch += 1;
  ck_assert(!scale_infer_memory_eval(&m, &v5e, &at).fits);
  /* Heads-only sharding: 16 > K = 8, each chip holds 1/8 of every cache, twice FULL. */
  scale_infer_config heads = cfg;
  heads.kv_sharding = SCALE_KV_SHARD_HEADS;
  scale_check_rel(scale_infer_memory_eval(&m, &v5e, &heads).kv_bytes_per_chip,
                  2 * mem.kv_bytes_per_chip, 1e-12, "bytes", "hand: K = 8 of 16 ways");
  /* Data parallelism: tp 8 on 16 chips doubles the weights per chip, KV unchanged. */
  scale_infer_config dp = cfg;
  dp.tp = 8;
  scale_infer_memory mdp = scale_infer_memory_eval(&m, &v5e, &dp);
  scale_check_rel(mdp.weight_bytes_per_chip, 2 * mem.weight_bytes_per_chip, 1e-12, "bytes",
                  "weights replicated over 2 copies");
  scale_check_rel(mdp.kv_bytes_per_chip, mem.kv_bytes_per_chip, 1e-12, "bytes",
                  "each copy holds half the batch on half the chips");
  ck_assert(fmod(mdp.max_batch, 2.0) == 0.0);
}
END_TEST

/* ---- prefill -------------------------------------------------------------------------------- */

START_TEST(test_prefill) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(16, 1, 8192);
  scale_infer_prefill pre = scale_infer_prefill_eval(&m, &v5e, &cfg);
  double flops = scale_transformer_flops(&m, 1, 8192, true, SCALE_PASS_FORWARD);
  scale_check_rel(pre.flops, flops, 1e-12, "FLOP", "transformer.h forward, causal");
  scale_check_rel(pre.time_s, flops / (16 * 1.97e14 * 0.4), 1e-12, "s", "flops / (N C mfu)");
  scale_check_rel(pre.ttft_s, pre.time_s, 1e-12, "s", "first token from the prefill logits");
  /* Above the 2ND rule by the attention and the exact parameter count: 0.91 s -> ~0.97 s. */
  ck_assert(pre.time_s > 0.91 && pre.time_s < 1.0);
  ck_assert(pre.attention_flops_frac > 0.05 && pre.attention_flops_frac < 0.1);
  scale_check_rel(pre.kv_bytes, 327680.0 * 8192, 1e-12, "bytes", "bf16 KV of the prompt");
}
END_TEST

/* ---- decode --------------------------------------------------------------------------------- */

/* On one chip (no collectives) the evaluation is the book's formula with the model's sizes. */
START_TEST(test_decode_single_chip) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_infer_config cfg = scale_infer_config_default(1, 16, 4096);
  scale_infer_decode d = scale_infer_decode_eval(&m, &h100, &cfg);
  double p = scale_transformer_n_params(&m);
  double kv = scale_transformer_kv_bytes(&m, 4096, SCALE_DTYPE_BF16);
  double w = 3.35e12, c = 9.9e14;
  ck_assert(d.t_ici_s == 0.0);
  scale_check_rel(d.t_kv_s, 16 * kv / w, 1e-12, "s", "B KV / W");
  scale_check_rel(d.t_params_s, 2 * p / w, 1e-12, "s", "bf16 params / W");
  /* FLOPs: 2 B (P - V D): the input embedding is a lookup. */
  scale_check_rel(d.t_flops_s, 2 * 16 * (p - 128256.0 * 4096) / c, 1e-12, "s", "2 B P / C");
  scale_check_rel(d.step_s, d.t_kv_s + fmax(d.t_flops_s, d.t_params_s), 1e-12, "s",
                  "T_kv + max(T_flops, T_params)");
  scale_check_rel(d.tokens_per_s, 16 / d.step_s, 1e-12, "tokens/s", "B / T");
  scale_check_rel(d.tokens_per_s_per_chip, d.tokens_per_s, 1e-12, "tokens/s", "one chip");
  scale_check_rel(d.cost_usd_per_million_tokens, 10.8 / 3600 / d.tokens_per_s * 1e6, 1e-12, "USD",
                  "hand: $10.8/h per GPU");
  scale_check_rel(d.qps_per_chip, 16 / (d.step_s * 512), 1e-12, "1/s", "B / (T G)");
  scale_check_rel(d.critical_batch, 9.9e14 / 3.35e12, 1e-12, "tokens", "C / W bf16");
}
END_TEST

/* The step's regimes: weights at small batch, FLOPs at large batch and short context, KV at long
 * context; the step time never decreases with the batch. */
START_TEST(test_decode_regimes) {
  /* One v5e, LLaMA 3 8B with int8 weights and KV (8 GB, 131,072 bytes per token). */
  scale_model m8 = scale_check_model("llama-3-8b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config one = scale_infer_config_default(1, 1, 128);
  one.weight_dtype = one.kv_dtype = SCALE_DTYPE_INT8;
  ck_assert_int_eq(scale_infer_decode_eval(&m8, &v5e, &one).bound, SCALE_BOUND_PARAMS);
  one.batch = 512; /* 2 x 512 x 7.5e9 / 1.97e14 = 39 ms > 9.8 ms of weights, 10.5 ms of KV */
  ck_assert_int_eq(scale_infer_decode_eval(&m8, &v5e, &one).bound, SCALE_BOUND_FLOPS);
  one.batch = 64;
  one.context = 8192; /* 64 x 8192 x 131072 / 8.2e11 = 84 ms of KV */
  ck_assert_int_eq(scale_infer_decode_eval(&m8, &v5e, &one).bound, SCALE_BOUND_KV);
  /* LLaMA 3 70B on a 4x4 at batch 512: the AllReduces of [512, 8192] bf16 on a torus without
   * wraparound (9e10 bytes/s into a device) outrun the 22.7 ms of FLOPs. */
  scale_model m = scale_check_model("llama-3-70b");
  scale_infer_config cfg = scale_infer_config_default(16, 512, 128);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_decode big = scale_infer_decode_eval(&m, &v5e, &cfg);
  ck_assert_int_eq(big.bound, SCALE_BOUND_ICI);
  ck_assert(!big.ici_latency_bound);
  cfg.context = 8192;
  double prev = 0.0;
  for (double b = 1; b <= 256; b *= 2) {
    cfg.batch = b;
    double t = scale_infer_decode_eval(&m, &v5e, &cfg).step_s;
    ck_assert_msg(t >= prev, "step time fell at batch %g", b);
    prev = t;
  }
  ck_assert_str_eq(scale_infer_bound_name(SCALE_BOUND_KV), "kv");
  ck_assert_str_eq(scale_infer_bound_name((scale_infer_bound)99), "?");
}
END_TEST

/* Collectives: LLaMA 3 70B on a v5e 4x4, batch 32, bf16. One AllReduce of [32, 8192] bf16 after
 * attention and one after the MLP in each of 80 layers, plus two AllToAlls of the [32, 64 x 128]
 * queries per layer because 16 > K = 8 with fully sharded KV. Independent path: the group that
 * collectives.h builds from the chip for a 4x4. */
START_TEST(test_decode_ici) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(16, 32, 2048);
  scale_infer_decode d = scale_infer_decode_eval(&m, &v5e, &cfg);
  scale_group g;
  double sizes[2] = {4, 4};
  ck_assert_int_eq(scale_group_from_chip(&v5e, sizes, 2, SCALE_WRAP_AUTO, &g, NULL), SCALE_OK);
  double ar = scale_collective_time_s(&g, SCALE_COLL_ALL_REDUCE, 32 * 8192 * 2.0);
  double a2a = scale_collective_time_s(&g, SCALE_COLL_ALL_TO_ALL, 32 * 64 * 128 * 2.0);
  scale_check_rel(d.t_ici_s, 160 * ar + 160 * a2a, 1e-12, "s", "hand: 160 AR + 160 A2A");
  /* Heads-only KV drops the AllToAlls but doubles KV loading. */
  scale_infer_config heads = cfg;
  heads.kv_sharding = SCALE_KV_SHARD_HEADS;
  scale_infer_decode dh = scale_infer_decode_eval(&m, &v5e, &heads);
  scale_check_rel(dh.t_ici_s, 160 * ar, 1e-12, "s", "AllReduces only");
  scale_check_rel(dh.t_kv_s, 2 * d.t_kv_s, 1e-12, "s", "KV over 8 chips instead of 16");
  /* Batch 1: tiny messages, latency-bound (4x4 without wraparound: 6 hops of 1 us per AR). */
  cfg.batch = 1;
  scale_infer_decode d1 = scale_infer_decode_eval(&m, &v5e, &cfg);
  ck_assert(d1.ici_latency_bound);
  ck_assert(d1.t_ici_latency_s > 0.0 && d1.t_ici_latency_s <= d1.t_ici_s);
  /* 2-D weight-stationary: the MLP collectives follow ch. 7 Q7's formula. On 16 chips it loses
   * to 1-D (16 < 18 F / D = 63). */
  scale_infer_config ws = scale_infer_config_default(16, 32, 2048);
  ws.ffn_layout = SCALE_FFN_WS_2D;
  scale_infer_decode d2 = scale_infer_decode_eval(&m, &v5e, &ws);
  double x = sqrt(8192.0 * 16 / (2 * 28672.0));
  double t2 = scale_infer_ws2d_comms_s(32, 8192, 28672, 2, x, 16 / x, 9e10);
  scale_check_rel(d2.t_ici_s, 80 * ar + 160 * a2a + 80 * t2, 1e-12, "s",
                  "hand: attention AR + A2A + 2-D MLP");
}
END_TEST

/* H100: collectives over the NVLink switch with the 4.5e11 egress. */
START_TEST(test_decode_gpu) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_infer_config cfg = scale_infer_config_default(8, 64, 4096);
  cfg.kv_sharding = SCALE_KV_SHARD_HEADS; /* 8 ways = K: no AllToAll either way */
  scale_infer_decode d = scale_infer_decode_eval(&m, &h100, &cfg);
  scale_group g;
  double sizes[1] = {8};
  ck_assert_int_eq(scale_group_from_chip(&h100, sizes, 1, SCALE_WRAP_AUTO, &g, NULL), SCALE_OK);
  double ar = scale_collective_eval(&g, SCALE_COLL_ALL_REDUCE, 64 * 8192 * 2.0).bandwidth_time_s;
  scale_check_rel(d.t_ici_s, 160 * ar, 1e-12, "s", "160 AllReduces over NVLink");
  ck_assert(isfinite(d.step_s) && d.step_s > 0.0);
}
END_TEST

/* MoE: at batch 1 Mixtral reads the 2 experts it routes to (E (1 - (1 - k/E)^1) = 2 of 8). */
START_TEST(test_decode_moe) {
  scale_model m = scale_check_model("mixtral-8x7b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(8, 1, 1024);
  scale_infer_decode d = scale_infer_decode_eval(&m, &v5e, &cfg);
  double idle = scale_transformer_n_moe_layers(&m) * 6 * scale_transformer_n_expert_params(&m);
  double read = (scale_transformer_n_params(&m) - idle) * 2;
  scale_check_rel(d.t_params_s, read / (8 * 8.2e11), 1e-12, "s", "hand: 2 of 8 experts");
  /* Large batch: every expert is read. */
  cfg.batch = 4096;
  d = scale_infer_decode_eval(&m, &v5e, &cfg);
  scale_check_rel(d.t_params_s, scale_transformer_n_params(&m) * 2 / (8 * 8.2e11), 1e-9, "s",
                  "all experts touched");
  scale_check_rel(d.critical_batch, 240.24 * 8 / 2, 1e-3, "tokens", "B_crit E / k");
  /* Expert parallelism over the whole TP group trades the experts' AllReduce of T d bytes for
   * two AllToAlls of T k d: each chip receives 2 (7/8) T d against 2 x 2 T d (7/8) / 8 = 0.44
   * T d at top-2 of 8 over 8 chips, so the step's collectives take less time. */
  scale_infer_config ep = cfg;
  ep.ep = 8;
  ck_assert(scale_infer_decode_eval(&m, &v5e, &ep).t_ici_s < d.t_ici_s);
}
END_TEST

/* The MoE layer's collectives under expert parallelism, against the collectives library on the
 * same NVLink switch: an AllReduce over the tp / ep chips that split each expert (none when
 * every chip holds whole experts), two AllToAlls over the group; the expert width a chip in the
 * serving cost d_ff_expert ep / tp. */
START_TEST(test_moe_expert_parallel) {
  scale_model m = scale_check_model("mixtral-8x7b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  /* the model file's shape: D 4096, top-2, 32 MoE layers, d_ff_expert 14336; bf16 activations */
  const double tokens = 256, d = (double)m.d_model, a = 2, k = (double)m.n_experts_active;
  const double moe_layers = scale_transformer_n_moe_layers(&m);
  scale_group g = {1, {{8, SCALE_TOPO_SWITCH, false, h100.nvlink_bytes_per_s,
                        h100.ici_hop_latency_s >= 0 ? h100.ici_hop_latency_s : 0}}};
  scale_collective_cost a2a = scale_collective_eval(&g, SCALE_COLL_ALL_TO_ALL, tokens * k * d * a);
  double a2a_s = 2 * moe_layers * (a2a.latency_time_s + a2a.bandwidth_time_s);
  double ar_s[3];
  for (int i = 0; i < 3; i++) { /* over 8, 4 and 2 chips */
    g.axis[0].size = 8 >> i;
    scale_collective_cost ar = scale_collective_eval(&g, SCALE_COLL_ALL_REDUCE, tokens * d * a);
    ar_s[i] = moe_layers * (ar.latency_time_s + ar.bandwidth_time_s);
  }
  scale_infer_config cfg = scale_infer_config_default(8, 256, 1024);
  const double eps[] = {1, 2, 4, 8};
  const double want[] = {ar_s[0], ar_s[1] + a2a_s, ar_s[2] + a2a_s, a2a_s};
  for (int i = 0; i < 4; i++) {
    cfg.ep = eps[i];
    scale_infer_comms c =
        scale_infer_comms_eval(&m, &h100, &cfg, tokens, SCALE_FFN_WS_1D, NULL);
    scale_check_rel(c.moe_s, want[i], 1e-12, "s", "AllReduce over tp / ep, AllToAlls over tp");
    double p[SCALE_SERVE_N_PARAMS];
    scale_serve_params_of(&h100, p);
    scale_serve_cost cost;
    ck_assert(scale_serve_cost_of(&m, &h100, &cfg, p, &cost, NULL) == SCALE_OK);
    scale_check_rel(cost.expert_dim, (double)m.d_ff_expert * eps[i] / 8, 1e-12, "",
                    "d_ff_expert ep / tp");
  }
}
END_TEST

/* Mamba-2: no KV cache, a constant state per sequence. */
START_TEST(test_decode_mamba) {
  scale_model m = scale_check_model("mamba-2-2.7b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(1, 8, 2048);
  scale_infer_memory mem = scale_infer_memory_eval(&m, &v5e, &cfg);
  ck_assert(mem.kv_bytes_per_token == 0.0);
  scale_check_rel(mem.kv_bytes_per_sequence,
                  scale_transformer_state_bytes_per_sequence(&m, SCALE_DTYPE_BF16), 1e-12, "bytes",
                  "state instead of KV");
  scale_infer_decode d = scale_infer_decode_eval(&m, &v5e, &cfg);
  scale_check_rel(d.t_kv_s, 8 * mem.kv_bytes_per_sequence / 8.2e11, 1e-12, "s", "B state / W");
  cfg.context = 1024; /* the state does not grow with the context */
  scale_check_rel(scale_infer_decode_eval(&m, &v5e, &cfg).t_kv_s, d.t_kv_s, 1e-12, "s",
                  "independent of S");
}
END_TEST

/* ---- frontier, slice, thresholds ------------------------------------------------------------ */

START_TEST(test_frontier) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(16, 1, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  double batches[8] = {1, 4, 16, 32, 64, 128, 256, 512};
  scale_infer_point pts[8];
  int n_fit = scale_infer_frontier(&m, &v5e, &cfg, batches, 8, pts);
  int expect = 0;
  for (int i = 0; i < 8; i++) {
    scale_infer_config c = cfg;
    c.batch = batches[i];
    if (scale_infer_memory_eval(&m, &v5e, &c).fits) expect++;
    ck_assert(pts[i].batch == batches[i]);
    scale_check_rel(pts[i].step_s, scale_infer_decode_eval(&m, &v5e, &c).step_s, 1e-12, "s",
                    "frontier point = decode eval");
    if (i > 0) /* throughput never falls with the batch (it saturates once ICI/KV-bound) */
      ck_assert(pts[i].tokens_per_s_per_chip >= pts[i - 1].tokens_per_s_per_chip * (1 - 1e-12));
  }
  ck_assert_int_eq(n_fit, expect);
  /* 256 GB less 70.6 GB of int8 weights holds about 137 caches of 1.34 GB: up to 128. */
  ck_assert_int_eq(n_fit, 6);
  ck_assert_int_eq(scale_infer_frontier(&m, &v5e, &cfg, NULL, 8, pts), -1);
}
END_TEST

START_TEST(test_thresholds) {
  /* Plain formulas, hand derivations. */
  scale_check_rel(scale_infer_kv_dominates_batch(70e9, 163840.0 * 8192), 52.15, 1e-3, "sequences",
                  "hand: 70e9 / 1.342e9");
  scale_check_rel(scale_infer_min_slice_chips(16e9, 16e9), 1.0, 1e-12, "chips", "exactly one");
  scale_check_rel(scale_infer_min_slice_chips(16.1e9, 16e9), 2.0, 1e-12, "chips", "next power");
  ck_assert(scale_infer_max_batch(-1.0, 1e9) == 0.0);
  scale_check_rel(scale_infer_spec_expected_tokens(0, 5), 1.0, 1e-12, "tokens", "nothing kept");
  scale_check_rel(scale_infer_spec_expected_tokens(1, 5), 6.0, 1e-12, "tokens", "all + bonus");
  /* Domain. */
  scale_check_nan(scale_infer_step_time_s(-1, 1, 1, 1, 1, 1));
  scale_check_nan(scale_infer_prefill_time_s(1, 1, 1, 0));
  scale_check_nan(scale_infer_qps_per_chip(1, 0, 1, 1));
  scale_check_nan(scale_infer_spec_expected_tokens(1.5, 1));
  scale_check_nan(scale_infer_ws2d_min_chips(0, 1, 1));
  scale_check_nan(scale_infer_cost_usd_per_million_tokens(NAN, 1, 1));
  scale_model dense = scale_check_model("llama-3-8b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_check_nan(scale_infer_moe_critical_batch(&dense, &v5e, SCALE_DTYPE_BF16, SCALE_DTYPE_BF16));
  scale_infer_slice s = scale_infer_smallest_slice(&dense, &v5e, SCALE_DTYPE_BF16, 8192);
  ck_assert(s.slice_chips == 2.0); /* 16.06e9 bf16 bytes: 1.004 chips -> 2 */
}
END_TEST

START_TEST(test_best_within_latency) {
  /* ch. 8 worked problem 3: LLaMA 3 405B, int8 weights and KV, bf16 FLOPs, 8192 tokens, one
   * step <= 15 ms on v5e slices from the fewest chips whose weight reads fit the limit. */
  scale_model m = scale_check_model("llama-3-405b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  double limit = 15e-3;
  double n0 = scale_infer_min_slice_chips(scale_transformer_n_params(&m),
                                          limit * v5e.hbm_bytes_per_s);
  scale_infer_config base = scale_infer_config_default(n0, 1, 8192), cfg;
  base.weight_dtype = base.kv_dtype = SCALE_DTYPE_INT8;
  base.prompt = 0;
  scale_infer_decode d;
  ck_assert(scale_infer_best_within_latency(&m, &v5e, &base, limit, 4096, &cfg, &d));
  ck_assert(d.step_s <= limit && scale_infer_memory_eval(&m, &v5e, &cfg).fits);
  scale_check_rel(d.tokens_per_s_per_chip,
                  scale_infer_decode_eval(&m, &v5e, &cfg).tokens_per_s_per_chip, 1e-12,
                  "tokens/s", "the returned config evaluates to the returned decode");
  /* no point of the search beats it: one batch step up or the same batch on twice the chips
   * is either too slow, does not fit, or is no faster per chip */
  scale_infer_config up = cfg;
  up.batch += 1;
  scale_infer_decode du = scale_infer_decode_eval(&m, &v5e, &up);
  ck_assert(!(du.step_s <= limit) || !scale_infer_memory_eval(&m, &v5e, &up).fits ||
            du.tokens_per_s_per_chip <= d.tokens_per_s_per_chip);
  ck_assert(cfg.n_chips >= n0 && cfg.tp == cfg.n_chips);
  /* a limit below one weight read of the whole pod: nothing qualifies */
  ck_assert(!scale_infer_best_within_latency(&m, &v5e, &base, 1e-6, 4096, &cfg, &d));
  ck_assert(!scale_infer_best_within_latency(&m, &v5e, &base, 0, 4096, &cfg, &d));
}
END_TEST

START_TEST(test_local_kv_and_lookahead) {
  /* LLaMA 3 8B: 2 (K and V) x 32 layers x 8 KV heads x 128 x 2 bytes = 131072 B per token in
   * bf16. Half the layers local with a 4096 window at 32768 tokens:
   * 131072 x (0.5 x 32768 + 0.5 x 4096) = 131072 x 18432 B. */
  scale_model m = scale_check_model("llama-3-8b");
  scale_check_rel(scale_infer_local_kv_bytes(&m, SCALE_DTYPE_BF16, 32768, 0.5, 4096),
                  131072.0 * 18432.0, 1e-12, "B", "hand: (1-f) S + f min(S, w)");
  /* no local layers: the plain cache; a context inside the window: the plain cache too */
  scale_check_rel(scale_infer_local_kv_bytes(&m, SCALE_DTYPE_BF16, 32768, 0, 4096),
                  scale_transformer_kv_bytes(&m, 32768, SCALE_DTYPE_BF16), 1e-12, "B", "f = 0");
  scale_check_rel(scale_infer_local_kv_bytes(&m, SCALE_DTYPE_BF16, 2048, 1, 4096),
                  scale_transformer_kv_bytes(&m, 2048, SCALE_DTYPE_BF16), 1e-12, "B", "S < w");
  scale_check_nan(scale_infer_local_kv_bytes(&m, SCALE_DTYPE_BF16, 2048, 1.5, 4096));
  /* The best lookahead beats every other in 1..16 (acceptance 0.8, draft at 10% of a step). */
  double best;
  double g = scale_infer_spec_best_lookahead(0.8, 0.1, 1.0, 16, &best);
  ck_assert(g >= 1 && g <= 16 && g == floor(g));
  scale_check_rel(best, scale_infer_spec_speedup(0.8, g, 0.1, 1.0), 1e-12, "", "its speedup");
  for (int k = 1; k <= 16; k++) ck_assert(scale_infer_spec_speedup(0.8, k, 0.1, 1.0) <= best);
  /* a free draft and certain acceptance: more drafted tokens always help, so the largest */
  scale_check_rel(scale_infer_spec_best_lookahead(1.0, 0.0, 1.0, 16, NULL), 16, 1e-12, "", "g max");
  scale_check_nan(scale_infer_spec_best_lookahead(0.8, 0.1, 1.0, 0, &best));
  scale_check_nan(best);
}
END_TEST

START_TEST(test_frontier_curve_and_sweep) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_infer_config cfg = scale_infer_config_default(16, 1, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  double batches[8] = {1, 4, 16, 32, 64, 128, 256, 512};
  scale_infer_point pts[8];
  ck_assert_int_eq(scale_infer_frontier(&m, &v5e, &cfg, batches, 8, pts), 6);
  double lat[8], tput[8];
  /* the six that fit (test_frontier) draw; 256 and 512 break the line */
  scale_check_rel(scale_infer_frontier_curve(pts, 8, lat, tput), 128, 1e-12, "",
                  "the last batch that fits");
  scale_check_rel(lat[5], pts[5].step_s, 1e-12, "s", "a point that fits");
  scale_check_rel(tput[0], pts[0].tokens_per_s_per_chip, 1e-12, "tokens/s", "batch 1");
  ck_assert(isnan(lat[6]) && isnan(tput[7]));
  ck_assert(scale_infer_frontier_curve(pts + 6, 2, lat, tput) == 0);
  /* the sweep stops at the largest batch that fits: about 137 caches (test_frontier) */
  static scale_infer_decode d[512];
  cfg.batch = 99; /* ignored */
  int k = scale_infer_decode_sweep(&m, &v5e, &cfg, 512, d);
  scale_infer_config c = cfg;
  c.batch = 1;
  ck_assert_int_eq(k, (int)scale_infer_memory_eval(&m, &v5e, &c).max_batch);
  ck_assert(k > 128 && k < 256);
  c.batch = 64;
  scale_check_rel(d[63].step_s, scale_infer_decode_eval(&m, &v5e, &c).step_s, 1e-12, "s",
                  "point 64 = the decode at batch 64");
  ck_assert_int_eq(scale_infer_decode_sweep(&m, &v5e, &cfg, 10, d), 10);
}
END_TEST

START_TEST(test_generate_slices) {
  /* A generate server: int8 weights and caches, no prompt, bf16 FLOPs, tp over every chip. */
  scale_infer_config g = scale_infer_config_generate(8, 32, 8192, SCALE_DTYPE_INT8);
  ck_assert(g.weight_dtype == SCALE_DTYPE_INT8 && g.kv_dtype == SCALE_DTYPE_INT8);
  ck_assert(g.compute_dtype == SCALE_DTYPE_BF16 && g.prompt == 0 && g.tp == 8);
  ck_assert(g.batch == 32 && g.context == 8192);
  /* LLaMA 3 70B in int8 on v5e: the smallest slice is 8 chips (the book's 16 / 8 / 4); on
   * twice that the weights (N bytes) leave 16 x 16e9 - N bytes, and an 8192-token int8 cache
   * is 163840 x 8192 bytes (80 layers x 8 KV heads x 128 x 2 for K and V), so
   * floor((256e9 - N) / 1.342e9) sequences: 138 with N = 7.06e10. */
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  double n = scale_transformer_n_params(&m);
  scale_infer_slice s1 = scale_infer_smallest_slice(&m, &v5e, SCALE_DTYPE_INT8, 8192);
  scale_infer_slice s2 = scale_infer_slice_of(&m, &v5e, SCALE_DTYPE_INT8, 8192, 16);
  ck_assert(s1.slice_chips == 8 && s2.slice_chips == 16);
  scale_check_rel(s2.weight_bytes, n, 1e-12, "B", "int8: one byte a parameter");
  scale_check_rel(s2.free_bytes, 16 * 16e9 - n, 1e-12, "B", "hand: the slice less the weights");
  scale_check_rel(s2.max_batch, floor((16 * 16e9 - n) / (163840.0 * 8192)), 1e-12, "sequences",
                  "hand: whole caches in the free bytes");
  ck_assert(s2.max_batch > 2 * s1.max_batch); /* the weights do not double */
  scale_infer_slice s0 = scale_infer_slice_of(&m, &v5e, SCALE_DTYPE_INT8, 8192, NAN);
  ck_assert(s0.slice_chips == s1.slice_chips && s0.max_batch == s1.max_batch);
  scale_check_nan(scale_infer_slice_of(&m, &v5e, SCALE_DTYPE_INT8, 8192, 0).max_batch);
  /* At the largest batch: the decode there, and one more sequence does not fit. */
  scale_infer_config c = scale_infer_config_generate(16, 1, 8192, SCALE_DTYPE_INT8);
  scale_infer_memory mem;
  scale_infer_decode d = scale_infer_decode_at_max_batch(&m, &v5e, &c, &mem);
  c.batch = mem.max_batch;
  ck_assert(mem.max_batch >= 1 && scale_infer_memory_eval(&m, &v5e, &c).fits);
  scale_check_rel(d.step_s, scale_infer_decode_eval(&m, &v5e, &c).step_s, 1e-12, "s",
                  "the decode at max_batch");
  c.batch += 1;
  ck_assert(!scale_infer_memory_eval(&m, &v5e, &c).fits);
  /* Nothing fits on one chip (70.6 GB of weights on 16 GB): NaN. */
  scale_infer_config one = scale_infer_config_generate(1, 1, 8192, SCALE_DTYPE_INT8);
  scale_check_nan(scale_infer_decode_at_max_batch(&m, &v5e, &one, NULL).step_s);
  /* The sweep's columns. */
  static scale_infer_decode sw[4];
  ck_assert_int_eq(scale_infer_decode_sweep(&m, &v5e, &c, 4, sw), 4);
  double b[4], t[4], tp[4], tk[4], tf[4], ti[4];
  scale_infer_decode_curve(sw, 4, b, t, tp, tk, tf, ti);
  ck_assert(b[0] == 1 && b[3] == 4);
  ck_assert(t[2] == sw[2].step_s && tp[3] == sw[3].t_params_s && tk[1] == sw[1].t_kv_s);
  ck_assert(tf[0] == sw[0].t_flops_s && ti[3] == sw[3].t_ici_s);
}
END_TEST

/* ---- the layouts' collectives, per torus axis, by hand (issue 28) -------------------------- */

/* LLaMA 3 70B (D 8192, F 28672 gated, 80 layers, 64 heads of 128, 8 KV heads) on a v5e 4x4 (16
 * chips; v5e wraps only an axis of the full 16, so two lines of 4: 3 hops each way, one
 * 4.5e10 B/s link into an end chip per axis, 1 us a hop), T = 32 tokens of bf16 activations.
 * Each collective is its hops' latency plus its bytes over the links (collectives.h). */
START_TEST(test_comms_v5e_layouts) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  ck_assert(v5e.ici_link_bytes_per_s == 4.5e10 && v5e.ici_hop_latency_s == 1e-6);
  scale_infer_config cfg = scale_infer_config_default(16, 32, 2048);
  /* 1-D weight-stationary: per layer an AllReduce of [32, 8192] x 2 B = 524,288 B after the
   * attention and after the MLP, over both axes: 2 x (3 + 3) = 12 hops = 12 us, and
   * 2 x 15/16 x 524,288 B into a chip over 2 x 4.5e10 B/s = 10.92267 us: 22.92267 us each.
   * KV heads 8 < 16 chips: the cache is split over the batch beyond the heads, two AllToAlls a
   * layer of the [32, 64 x 128] queries and outputs (524,288 B): axis by axis, each line of 4
   * holds V x 4/16 = 131,072 B whose busiest link carries floor(16/4)/16 of it, 0.72818 us an
   * axis over 4.5e10 B/s, 1.45636 us for both, plus 6 hops = 6 us: 7.45636 us each. */
  scale_infer_comms c = scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WS_1D, NULL);
  ck_assert(c.n_axes == 2 && c.axis_size[0] == 4 && c.axis_size[1] == 4);
  double ar = 12e-6 + 2.0 * 15.0 / 16.0 * 524288.0 / 9e10;
  double a2a = 6e-6 + 2.0 * 0.25 * 131072.0 / 4.5e10;
  scale_check_rel(c.attn_s, 80 * ar, 1e-12, "s", "80 attention AllReduces");
  scale_check_rel(c.ffn_s, 80 * ar, 1e-12, "s", "80 MLP AllReduces");
  scale_check_rel(c.kv_s, 160 * a2a, 1e-12, "s", "160 AllToAlls of batch-sharded KV");
  scale_check_rel(c.latency_s, 160 * 12e-6 + 160 * 6e-6, 1e-12, "s", "hops x 1 us");
  scale_check_rel(c.time_s, 160 * ar + 160 * a2a, 1e-12, "s", "the step's collectives");
  /* bytes a chip receives: an AllReduce 2 x 15/16 of its array, an AllToAll 15/16 of its
   * 1/16 share */
  scale_check_rel(c.bytes_per_chip, 160 * 983040.0 + 160 * 30720.0, 1e-12, "B", "received");
  ck_assert(c.count == 320);
  /* 2-D weight-stationary, W_in[D_X, F_YZ] with X one axis of 4 and YZ the other (either way
   * round: the same): per layer an AllGather over YZ of [32, 8192/4] (131,072 B: 3 us + 3/4 x
   * 131,072 / 4.5e10 = 5.18453 us), an AllReduce over X of [32, 28672/4] (458,752 B) for each
   * of the gate and up matrices (6 us + 2 x 3/4 x 458,752 / 4.5e10 = 21.29173 us) and a
   * ReduceScatter over YZ like the AllGather: 52.95253 us a layer. At 16 chips it loses to 1-D
   * (22.92 us), as ch. 7 Q7 says it must below N = 18 F / D chips. */
  scale_infer_comms c2 = scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WS_2D, NULL);
  double ag = 3e-6 + 0.75 * 131072.0 / 4.5e10, ar_x = 6e-6 + 1.5 * 458752.0 / 4.5e10;
  scale_check_rel(c2.ffn_s, 80 * (2 * ag + 2 * ar_x), 1e-12, "s", "2-D MLP collectives");
  ck_assert(c2.x == 4 && c2.layout == SCALE_FFN_WS_2D);
  scale_check_rel(c2.attn_s, c.attn_s, 1e-12, "s", "attention as in 1-D");
  /* weight-gathered: each MLP's 3 x 8192 x 28672 x 2 B = 1,409,286,144 B AllGathered over the
   * 16 chips (6 us + 15/16 of it over 9e10 B/s = 14.68006 ms), then read whole from HBM, 15/16
   * of it beyond the chip's own share; no activation collective in the MLP */
  scale_infer_comms cg = scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WG, NULL);
  double w = 3.0 * 8192 * 28672 * 2;
  scale_check_rel(cg.ffn_s, 80 * (6e-6 + 15.0 / 16.0 * w / 9e10), 1e-12, "s", "gathers");
  scale_check_rel(cg.gather_read_s, 80 * 15.0 / 16.0 * w / v5e.hbm_bytes_per_s, 1e-12, "s",
                  "gathered weights read from HBM");
  /* AUTO: the cheapest at each token count, 1-D for a decode of 32 tokens; weight-gathering
   * wins once the MLP's AllReduces outweigh its weights: 2 x 15/16 x T x 16,384 B / 9e10 >
   * 15/16 x w (1 / 9e10 + 1 / 8.2e11), T > 47,700 tokens (a batch of long prefills) */
  ck_assert(scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_AUTO, NULL).layout ==
            SCALE_FFN_WS_1D);
  ck_assert(scale_infer_comms_eval(&m, &v5e, &cfg, 40000, SCALE_FFN_AUTO, NULL).layout ==
            SCALE_FFN_WS_1D);
  ck_assert(scale_infer_comms_eval(&m, &v5e, &cfg, 65536, SCALE_FFN_AUTO, NULL).layout ==
            SCALE_FFN_WG);
  /* the links at half their peak and 2 us a hop: every bandwidth term doubles, every latency */
  scale_infer_link slow = {0.5, 2e-6, NAN};
  scale_infer_comms cs = scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WS_1D, &slow);
  scale_check_rel(cs.time_s, 2 * c.time_s, 1e-12, "s", "half the bandwidth, twice the hop");
  /* the book's decode step takes the same layouts: AUTO is 1-D at 32 tokens, and gathering the
   * weights adds their AllGather and reads to the collectives (ch. 7's max(lat, bw) each) */
  scale_infer_config b1 = scale_infer_config_default(16, 32, 2048), ba = b1, bg = b1;
  ba.ffn_layout = SCALE_FFN_AUTO;
  bg.ffn_layout = SCALE_FFN_WG;
  scale_infer_decode d1 = scale_infer_decode_eval(&m, &v5e, &b1);
  scale_check_rel(scale_infer_decode_eval(&m, &v5e, &ba).t_ici_s, d1.t_ici_s, 1e-12, "s",
                  "AUTO = 1-D");
  ck_assert(scale_infer_decode_eval(&m, &v5e, &bg).t_ici_s > d1.t_ici_s + 80 * 0.01468);
  /* one chip: nothing moves; a 2-D layout on one axis (tp 4 on v5e is 2x2: two axes; tp 2
   * is one) cannot split D and F: NaN */
  cfg = scale_infer_config_default(2, 2, 2048);
  ck_assert(isnan(scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WS_2D, NULL).time_s));
  cfg = scale_infer_config_default(1, 1, 2048);
  ck_assert(scale_infer_comms_eval(&m, &v5e, &cfg, 32, SCALE_FFN_WS_1D, NULL).time_s == 0.0);
}
END_TEST

/* v4p 4x4x4 (64 chips; v4p wraps an axis of a multiple of 4: three rings of 4, 2 hops each
 * way, two links into every chip per axis), LLaMA 3 70B at T = 256 tokens. */
START_TEST(test_comms_v4p_torus) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v4 = scale_check_chip("tpu-v4p");
  scale_infer_config cfg = scale_infer_config_default(64, 256, 2048);
  /* 1-D: an AllReduce of 256 x 8192 x 2 = 4,194,304 B: 2 x 6 hops = 12 us and 2 x 63/64 of it
   * over 3 axes x 2 links x 4.5e10 B/s = 30.58311 us: 42.58311 us */
  scale_infer_comms c = scale_infer_comms_eval(&m, &v4, &cfg, 256, SCALE_FFN_WS_1D, NULL);
  ck_assert(c.n_axes == 3);
  double ar = 12e-6 + 2.0 * 63.0 / 64.0 * 4194304.0 / 2.7e11;
  scale_check_rel(c.ffn_s, 80 * ar, 1e-12, "s", "1-D over three wrapped axes");
  /* 2-D: X one axis of 4, YZ the other two (16 chips): an AllGather over YZ of [256, 2048]
   * (1,048,576 B: 4 hops = 4 us + 15/16 of it over 2 axes x 2 links x 4.5e10 = 5.46133 us), a
   * ReduceScatter alike, and over X (one ring of 4: 2 x 2 hops = 4 us) an AllReduce of [256,
   * 28672/16] (917,504 B: 2 x 3/4 of it over 2 links x 4.5e10 = 15.29173 us) for gate and up:
   * 57.50613 us a layer. X of two axes (16) and YZ of one costs 100.8 us: not chosen. */
  scale_infer_comms c2 = scale_infer_comms_eval(&m, &v4, &cfg, 256, SCALE_FFN_WS_2D, NULL);
  double ag = 4e-6 + 15.0 / 16.0 * 1048576.0 / 1.8e11;
  double ar_x = 4e-6 + 1.5 * 917504.0 / 9e10;
  ck_assert(c2.x == 4);
  scale_check_rel(c2.ffn_s, 80 * (2 * ag + 2 * ar_x), 1e-12, "s", "2-D, X = 4");
}
END_TEST

/* ---- the book's step on a slice, tables (ch. 7 and 8) --------------------------------------- */

/* The row of table t named key (the test fails without one). */
static const scale_quantity *row_of(const scale_infer_table *t, const char *key) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->row[i].key, key) == 0) return &t->row[i];
  ck_abort_msg("no row %s", key);
  return NULL;
}

START_TEST(test_book_step_and_table_rows) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  double n = scale_transformer_n_params(&m);
  /* ch. 8: batch 32 at 8192 tokens, int8, 8 chips. KV 163840 B a token (2 L K H = 2 x 80 x 8 x
   * 128), so 32 x 163840 x 8192 = 42.9e9 B of caches; weights n bytes; 2 x 32 x n FLOPs over
   * 8 x 1.97e14 FLOP/s (2.9 ms) hide behind the weight reads: (42.9e9 + n) / (8 x 8.2e11). */
  double want = (32.0 * 163840.0 * 8192.0 + n) / (8 * 8.2e11);
  scale_check_rel(scale_infer_book_step_s(&m, &v5e, 8, 32, SCALE_DTYPE_INT8, 8192), want, 1e-12,
                  "s", "hand derivation");
  scale_check_rel(scale_infer_book_step_s(&m, &v5e, 8, 32, SCALE_DTYPE_INT8, 8192), 17e-3, 0.03,
                  "s", "ch. 8: 17 ms");
  ck_assert(isnan(scale_infer_book_step_s(&m, &v5e, 0, 32, SCALE_DTYPE_INT8, 8192)));
  ck_assert(isnan(scale_infer_book_step_s(&m, &v5e, 8, -1, SCALE_DTYPE_INT8, 8192)));
  /* a table keeps its rows in order, cuts long keys and drops rows beyond its room */
  static scale_infer_table t;
  t.n = 0;
  scale_infer_table_add(&t, "a_key_of_62_characters_is_cut_to_the_room_its_row_has_for_one_",
                        "x", 1, "s", SCALE_FMT_TIME);
  ck_assert_int_eq((int)strlen(t.row[0].key), (int)sizeof t.row[0].key - 1); /* 47 */
  for (int i = 1; i < SCALE_INFER_TABLE_MAX + 5; i++)
    scale_infer_table_add(&t, "k", "x", i, "", SCALE_FMT_PLAIN);
  ck_assert_int_eq(t.n, SCALE_INFER_TABLE_MAX);
  ck_assert(t.row[SCALE_INFER_TABLE_MAX - 1].value == SCALE_INFER_TABLE_MAX - 1);
}
END_TEST

START_TEST(test_slice_served) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  /* int8: n bytes of weights need 4.4 chips, so a slice of 8; 8 x 16e9 - n bytes hold
   * floor(57.4e9 / 1.34e9) = 42 sequences of 8192 tokens (the book, with 70e9: 43) */
  scale_infer_served_slice s = scale_infer_slice_served(&m, &v5e, SCALE_DTYPE_INT8, 8192, NAN, 512);
  double n = scale_transformer_n_params(&m), seq = 163840.0 * 8192.0;
  ck_assert(s.slice.slice_chips == 8);
  ck_assert(s.slice.max_batch == floor((8 * 1.6e10 - n) / seq));
  ck_assert(s.slice.max_batch == 42);
  double step = (42 * seq + n) / (8 * 8.2e11);
  scale_check_rel(s.step_s, step, 1e-12, "s", "the book's step at 42 sequences");
  scale_check_rel(s.qps_per_chip, 42 / (step * 512 * 8), 1e-12, "1/s", "B / (T G n)");
  /* twice the slice: 16 x 16e9 - n bytes hold 138 sequences */
  scale_infer_served_slice s2 = scale_infer_slice_served(&m, &v5e, SCALE_DTYPE_INT8, 8192, 16, 512);
  ck_assert(s2.slice.slice_chips == 16 && s2.slice.max_batch == 138);
  static scale_infer_table t;
  scale_infer_slice_table(&s, true, &t);
  static const char *const full[8] = {"weight_bytes", "chips_needed", "kv_per_token",
                                      "chips",        "free_bytes",   "max_batch",
                                      "step_s",       "qps_per_chip"};
  ck_assert_int_eq(t.n, 8);
  for (int i = 0; i < 8; i++)
    (void)row_of(&t, full[i]);
  ck_assert_str_eq(t.row[0].key, "weight_bytes");
  ck_assert_str_eq(t.row[7].key, "qps_per_chip");
  scale_check_rel(row_of(&t, "free_bytes")->value, 8 * 1.6e10 - n, 1e-12, "B", "HBM left");
  scale_check_rel(row_of(&t, "chips_needed")->value, n / 1.6e10, 1e-12, "", "n / HBM");
  scale_infer_slice_table(&s2, false, &t);
  ck_assert_int_eq(t.n, 4);
  ck_assert_str_eq(t.row[0].key, "chips");
  ck_assert(row_of(&t, "max_batch")->value == 138);
  /* outside the domain: NaN fields */
  scale_infer_served_slice bad = scale_infer_slice_served(&m, &v5e, SCALE_DTYPE_INT8, -1, NAN, 512);
  ck_assert(isnan(bad.step_s) && isnan(bad.qps_per_chip));
}
END_TEST

START_TEST(test_frontiers) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  static scale_infer_frontiers f;
  scale_infer_config cfg = scale_infer_config_generate(16, 1, 2048, SCALE_DTYPE_INT8);
  const double ctx[2] = {2048, 8192};
  ck_assert(scale_infer_frontiers_eval(&m, &v5e, &cfg, ctx, 2, 1024, &f));
  /* each frontier's largest batch is the memory model's, at its context */
  for (int k = 0; k < 2; k++) {
    scale_infer_config c = cfg;
    c.context = ctx[k];
    double max_b = scale_infer_memory_eval(&m, &v5e, &c).max_batch;
    ck_assert_msg(f.max_batch[k] == max_b, "context %g: %g vs %g", ctx[k], f.max_batch[k], max_b);
    int j = (int)max_b - 1;
    ck_assert(f.point[k][j].fits && !f.point[k][j + 1].fits);
    ck_assert(isnan(f.lat_s[k][j + 1]) && f.lat_s[k][j] == f.point[k][j].step_s);
    c.batch = max_b;
    scale_check_rel(f.point[k][j].step_s, scale_infer_decode_eval(&m, &v5e, &c).step_s, 1e-12, "s",
                    "the step at the largest batch");
  }
  /* 8192 tokens: 16 x 16e9 - n bytes less activations hold 138 caches of 1.34e9 B (ch. 8) */
  ck_assert(f.max_batch[1] == 138);
  double worst =
      fmax(f.point[0][(int)f.max_batch[0] - 1].step_s, f.point[1][(int)f.max_batch[1] - 1].step_s);
  ck_assert(f.worst_step_s == worst);
  static scale_infer_table t;
  scale_infer_frontier_table(&f, 1, &t);
  ck_assert_int_eq(t.n, 4);
  ck_assert_str_eq(t.row[0].key, "max_batch");
  ck_assert(t.row[0].value == 138);
  ck_assert(row_of(&t, "max_cost")->value == f.point[1][137].cost_usd_per_million_tokens);
  /* its ends: batch 1 against batch 138, costs and latencies as their ratios */
  scale_infer_frontier_ends_table(&f, 1, &t);
  ck_assert_int_eq(t.n, 5);
  ck_assert(row_of(&t, "min_step_s")->value == f.point[1][0].step_s);
  scale_check_rel(row_of(&t, "cost_ratio")->value,
                  f.point[1][0].cost_usd_per_million_tokens /
                      f.point[1][137].cost_usd_per_million_tokens,
                  1e-12, "x", "batch 1 over batch 138");
  scale_check_rel(row_of(&t, "latency_ratio")->value,
                  f.point[1][137].step_s / f.point[1][0].step_s, 1e-12, "x", "batch 138 over 1");
  ck_assert(row_of(&t, "cost_ratio")->value > 1 && row_of(&t, "latency_ratio")->value > 1);
  /* refused: no context, too many batches */
  ck_assert(!scale_infer_frontiers_eval(&m, &v5e, &cfg, ctx, 0, 1024, &f));
  ck_assert(
      !scale_infer_frontiers_eval(&m, &v5e, &cfg, ctx, 2, SCALE_INFER_FRONTIER_BATCHES + 1, &f));
}
END_TEST

START_TEST(test_ch7_tables) {
  scale_model m = scale_check_model("llama-2-13b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  double n = scale_transformer_n_params(&m);
  /* MHA, L 40, K 40, H 128: 2 x 40 x 40 x 128 x 2 B = 819200 B a token, 6.71e9 per 8192 */
  double seq = 819200.0 * 8192.0;
  const double b[2] = {1, 240};
  static scale_infer_table t;
  scale_infer_book_table(&m, &v5e, 8, 8192, 1, b, 2, &t);
  ck_assert_int_eq(t.n, 9);
  scale_check_rel(row_of(&t, "b240.kv_bytes")->value, 240 * seq, 1e-12, "B", "1.61 TB (ch. 7)");
  scale_check_rel(row_of(&t, "b1.step_s")->value, (seq + 2 * n) / (8 * 8.2e11), 1e-12, "s",
                  "KV and weights over 8 x W");
  /* 8 x 16e9 - 2n bytes hold 15 caches, 75 of a 5x smaller one (ch. 7's tables) */
  ck_assert(row_of(&t, "max_batch")->value == 15);
  scale_infer_book_table(&m, &v5e, 8, 8192, 5, b, 2, &t);
  ck_assert(row_of(&t, "max_batch")->value == 75);
  scale_check_rel(row_of(&t, "b240.tokens_per_s")->value, 240 / row_of(&t, "b240.step_s")->value,
                  1e-12, "tokens/s", "B / step");
  /* the reductions: GQA 8 heads 163840 B, MQA 20480 B, int8 81920, int4 40960; 32768 tokens
   * with half the layers local over 4096: 81920 x (16384 + 2048) B = 1.51e9 */
  scale_infer_kv_reduction_table(&m, 8, 32768, 4096, 0.5, &t);
  ck_assert(row_of(&t, "mha_per_token")->value == 819200);
  ck_assert(row_of(&t, "gqa_per_token")->value == 163840);
  ck_assert(row_of(&t, "mqa_per_token")->value == 20480);
  ck_assert(row_of(&t, "gqa_int8_per_token")->value == 81920);
  ck_assert(row_of(&t, "gqa_int4_per_token")->value == 40960);
  scale_check_rel(row_of(&t, "local_seq")->value, 81920.0 * 18432.0, 1e-12, "B", "hand");
  scale_check_rel(row_of(&t, "combined_factor")->value, 819200.0 * 32768 / (81920.0 * 18432), 1e-12,
                  "x", "ch. 7: about 18x");
  /* KV sharding, LLaMA 3 70B (K 8) on 16 chips: the heads-only cache is replicated twice */
  scale_model l3 = scale_check_model("llama-3-70b");
  scale_infer_config cfg = scale_infer_config_default(16, 32, 8192);
  cfg.weight_dtype = cfg.kv_dtype = SCALE_DTYPE_INT8;
  scale_infer_kv_sharding_table(&l3, &v5e, &cfg, &t);
  ck_assert_int_eq(t.n, 8);
  ck_assert_str_eq(t.row[0].key, "full_kv_per_chip");
  ck_assert_str_eq(t.row[1].key, "heads_kv_per_chip");
  scale_check_rel(t.row[0].value, 32 * 163840.0 * 8192 / 16, 1e-12, "B", "split 16 ways");
  scale_check_rel(t.row[1].value, 2 * t.row[0].value, 1e-12, "B", "split 8 ways");
  scale_check_rel(row_of(&t, "heads_t_kv_s")->value, 2 * row_of(&t, "full_t_kv_s")->value, 1e-9,
                  "s", "twice the bytes a chip reads");
}
END_TEST

int main(void) {
  Suite *s = suite_create("inference");
  const scale_check_case cases[] = {
      {"validate", test_validate},
      {"memory", test_memory},
      {"prefill", test_prefill},
      {"decode_single_chip", test_decode_single_chip},
      {"decode_regimes", test_decode_regimes},
      {"decode_ici", test_decode_ici},
      {"decode_gpu", test_decode_gpu},
      {"decode_moe", test_decode_moe},
      {"moe_expert_parallel", test_moe_expert_parallel},
      {"decode_mamba", test_decode_mamba},
      {"frontier", test_frontier},
      {"frontier_curve_and_sweep", test_frontier_curve_and_sweep},
      {"generate_slices", test_generate_slices},
      {"thresholds", test_thresholds},
      {"context_range", test_context_range},
      {"huge_prime_tp_refused_fast", test_huge_prime_tp_refused_fast},
      {"best_within_latency", test_best_within_latency},
      {"local_kv_and_lookahead", test_local_kv_and_lookahead},
      {"comms_v5e_layouts", test_comms_v5e_layouts},
      {"comms_v4p_torus", test_comms_v4p_torus},
      {"book_step_and_table_rows", test_book_step_and_table_rows},
      {"slice_served", test_slice_served},
      {"frontiers", test_frontiers},
      {"ch7_tables", test_ch7_tables},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
