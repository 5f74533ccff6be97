/* test_gpu.c — GPU clusters and ch. 12's collectives and rooflines (gpu.h), against hand
 * derivations and the book's answered quizzes (jax-ml/scaling-book gpus.md). */
#include <math.h>
#include <string.h>

#include "scale/gpu.h"
#include "scale/hardware.h"
#include "scale_check.h"

/* The book's reference DGX H100 SuperPod, typed here independently of hardware/: 8 GPUs x
 * 450e9, 32 nodes x 400e9, 4 units x 12.8e12. */
static scale_chip book_h100(void) {
  scale_chip c;
  memset(&c, 0, sizeof c);
  for (int d = 0; d < SCALE_DTYPE_COUNT; d++)
    c.flops_per_s[d] = (double)NAN; /* unknown */
  c.flops_per_s[SCALE_DTYPE_BF16] = 990e12;
  c.n_net_levels = 3;
  c.net_levels[0] = (scale_net_level){8, 450e9};
  c.net_levels[1] = (scale_net_level){32, 400e9};
  c.net_levels[2] = (scale_net_level){4, 12.8e12};
  c.nvlink_bytes_per_s = 450e9;
  c.nvlink_domain_size = 8;
  c.nvswitch_bytes_per_s = 1.6e12;
  c.n_nvswitches = 4;
  return c;
}

START_TEST(tensor_core_arithmetic) {
  scale_chip h100 = book_h100();
  h100.n_cores = 132;
  h100.n_matmul_units = 4;
  h100.clock_hz = 1.76e9;
  /* ch. 12: 990e12 / 132 / 4 / 1.76e9 = 1065, which the book calls "~1024" (8x8x8 x 2). */
  scale_check_rel(scale_gpu_flops_per_tensor_core_cycle(&h100, SCALE_DTYPE_BF16), 1065.34, 1e-4,
                  "FLOP/cycle", "ch.12 'What Is a GPU?' (book rounds to ~1024)");
  scale_chip b200 = h100;
  b200.flops_per_s[SCALE_DTYPE_BF16] = 2250e12;
  b200.n_cores = 148;
  b200.clock_hz = 1.86e9;
  /* ch. 12 footnote: 2250e12 / (148 x 4 x 1.86e9) "is about 2048": 2043.3. */
  scale_check_rel(scale_gpu_flops_per_tensor_core_cycle(&b200, SCALE_DTYPE_BF16), 2043.3, 1e-4,
                  "FLOP/cycle", "ch.12 footnote, B200");
  scale_check_nan(scale_gpu_flops_per_tensor_core_cycle(&b200, SCALE_DTYPE_FP8));
  h100.vector_flops_per_s = 66e12;
  scale_check_rel(scale_gpu_matmul_to_vector_ratio(&h100, SCALE_DTYPE_BF16), 15.0, 1e-12, "",
                  "ch.12: 990 vs 66 TFLOP/s");
}
END_TEST

START_TEST(node_bandwidth) {
  scale_chip h100 = book_h100();
  /* Quiz 2 Q1: min(8 x 450e9 = 3.6e12, 4 x 1.6e12 = 6.4e12) = 3.6 TB/s. */
  scale_check_rel(scale_gpu_node_bytes_per_s(&h100), 3.6e12, 1e-12, "B/s", "ch.12 Quiz 2 Q1");
  scale_check_rel(scale_gpu_node_bisection_bytes_per_s(&h100), 3.6e12, 1e-12, "B/s",
                  "ch.12 Quiz 2 Q2");
  h100.n_nvswitches = 1; /* a switch-bound node: 1.6e12 */
  scale_check_rel(scale_gpu_node_bytes_per_s(&h100), 1.6e12, 1e-12, "B/s", "hand");
}
END_TEST

START_TEST(fat_tree_levels) {
  scale_chip h100 = book_h100();
  scale_check_rel(scale_gpu_level_member_gpus(&h100, 1), 1, 0, "GPUs", "a GPU");
  scale_check_rel(scale_gpu_level_member_gpus(&h100, 2), 8, 0, "GPUs", "a node");
  scale_check_rel(scale_gpu_level_gpus(&h100, 2), 256, 0, "GPUs", "ch.12: an SU is 256 GPUs");
  scale_check_rel(scale_gpu_level_gpus(&h100, 3), 1024, 0, "GPUs", "ch.12: SuperPod 1024");
  scale_check_nan(scale_gpu_level_gpus(&h100, 4));
  /* ch. 12 "Cross-node collectives": 450e9 x 8/7 = 514 GB/s; 400e9 x 32/31 = 413 GB/s;
   * 12.8e12 x 4/3 = 17.1 TB/s; the SuperPod's effective bandwidth is the minimum, 413 GB/s. */
  scale_check_rel(scale_gpu_level_allgather_bytes_per_s(&h100, 1), 514.2857e9, 1e-6, "B/s",
                  "ch.12 node 514GB/s");
  scale_check_rel(scale_gpu_level_allgather_bytes_per_s(&h100, 2), 412.9032e9, 1e-6, "B/s",
                  "ch.12 leaf 413GB/s");
  scale_check_rel(scale_gpu_level_allgather_bytes_per_s(&h100, 3), 17.0667e12, 1e-5, "B/s",
                  "ch.12 spine 17.1TB/s");
  scale_check_rel(scale_gpu_allgather_bytes_per_s(&h100, 1024), 412.9032e9, 1e-6, "B/s",
                  "ch.12 min(514, 413, 17100) = 413GB/s");
  ck_assert_int_eq(scale_gpu_levels_spanned(&h100, 8), 1);
  ck_assert_int_eq(scale_gpu_levels_spanned(&h100, 9), 2);
  ck_assert_int_eq(scale_gpu_levels_spanned(&h100, 1024), 3);
  ck_assert_int_eq(scale_gpu_levels_spanned(&h100, 1025), -1);
  ck_assert_int_eq(scale_gpu_levels_spanned(&h100, 1), 0);
}
END_TEST

START_TEST(intra_node_collectives) {
  scale_chip h100 = book_h100();
  /* Quiz 2 Q3: bf16[4096, 65536] = 536,870,912 bytes; 536.9e6 x 7 / 3.6e12 = 1.044 ms. */
  double bytes = 4096.0 * 65536.0 * 2.0;
  scale_check_rel(scale_gpu_all_gather_s(&h100, 8, 1, bytes), bytes * 7.0 / 3.6e12, 1e-12, "s",
                  "hand");
  scale_check_rel(scale_gpu_all_gather_s(&h100, 8, 1, bytes), 1.04e-3, 5e-3, "s",
                  "ch.12 Quiz 2 Q3 prints 1.04ms");
  /* Pop Quiz 1: bf16[1024, 16384] = 33.5 MB; precise 33.5e6 x 7 / (8 x 450e9) = 65.2 us. */
  double pq1 = 2.0 * 1024.0 * 16384.0;
  scale_check_rel(scale_gpu_all_gather_s(&h100, 8, 1, pq1), 65.2e-6, 2e-3, "s",
                  "ch.12 Pop Quiz 1 prints 65us (precise), 75us (approx)");
  /* 4 of 8 GPUs: 3/4 of B over 450e9. */
  scale_check_rel(scale_gpu_all_gather_s(&h100, 4, 1, 1e9), 1e9 * 0.75 / 450e9, 1e-12, "s", "hand");
  scale_check_rel(scale_gpu_all_gather_s(&h100, 1, 1, 1e9), 0.0, 0, "s", "nothing to gather");
  /* AllReduce: 2x without SHARP; bytes / W with it (ch.12 "In network reductions"). */
  scale_check_rel(scale_gpu_all_reduce_s(&h100, 8, 1, 1e9, 0), 2e9 * 7.0 / 3.6e12, 1e-12, "s",
                  "2 x AllGather");
  scale_check_rel(scale_gpu_all_reduce_s(&h100, 8, 1, 1e9, 1), 1e9 / 450e9, 1e-12, "s",
                  "ch.12 T_SHARP = bytes / W_egress");
  /* AllToAll in a node: B (N-1) / (W N^2); Pop Quiz 2's ragged half: about half of it. */
  scale_check_rel(scale_gpu_all_to_all_s(&h100, 8, 1e9), 1e9 * 7.0 / (450e9 * 64.0), 1e-12, "s",
                  "ch.12 AllToAll takeaway");
  scale_check_rel(scale_gpu_ragged_all_to_all_frac(4, 8), 1.0 - pow(7.0 / 8.0, 4), 1e-12, "",
                  "ch.12 Appendix B exact");
  scale_check_rel(scale_gpu_ragged_all_to_all_frac(4, 8), 0.4138, 1e-3, "",
                  "1 - (7/8)^4 = 0.414; the book's approximation min(k/N,1) = 0.5 (Pop Quiz 2)");
  scale_check_rel(scale_gpu_ragged_all_to_all_frac(1, 1), 1.0, 0, "", "one shard: all of it");
}
END_TEST

START_TEST(cross_node_collectives) {
  scale_chip h100 = book_h100();
  /* Quiz 4 Q5: over exactly 2 nodes, node level B x 7/(8 x 450e9) = B/514e9 binds, the leaf
   * B x 1/(2 x 400e9) = B/800e9 does not. */
  scale_check_rel(scale_gpu_all_gather_s(&h100, 16, 1, 1e9), 1e9 / 514.2857e9, 1e-6, "s",
                  "ch.12 Quiz 4 Q5");
  /* A full SU: the leaf binds, 31/32 / 400e9 per byte. */
  scale_check_rel(scale_gpu_all_gather_s(&h100, 256, 1, 1e9), 1e9 * 31.0 / (32.0 * 400e9), 1e-12,
                  "s", "ch.12 Pop Quiz 3, Y <= 8");
  /* Pop Quiz 3, AllGather_X(bf16[D_X, F_Y]) over one SU with Y inner. D = 8192, F = 32768.
   * Y = 4: still the leaf, 2DF x 31/(32 x 400e9). */
  double bytes = 2.0 * 8192.0 * 32768.0;
  scale_check_rel(scale_gpu_all_gather_s(&h100, 64, 4, bytes), bytes * 31.0 / (32.0 * 400e9), 1e-12,
                  "s", "ch.12 Pop Quiz 3, Y <= 8");
  /* Y = 16 (X = 16 nodes' worth): each node carries 8/16 of the array over 16 members:
   * 2DF x (15/16) x (1/2) / 400e9; the book's answer 2DF / (Y x 50e9) drops the 15/16. */
  scale_check_rel(scale_gpu_all_gather_s(&h100, 16, 16, bytes), bytes * 15.0 / 16.0 / 800e9, 1e-12,
                  "s", "ch.12 Pop Quiz 3, Y > 8: book 2DF/(Y 50GB/s) without (d-1)/d");
  /* AllToAll over 2 nodes: B (M-1)/(M^2 W_node) = B / (4 x 400e9); the book's approximation
   * B / (M W_node) = B / (2 x 400e9) drops (M-1)/M. */
  scale_check_rel(scale_gpu_all_to_all_s(&h100, 16, 1e9), 1e9 / (4.0 * 400e9), 1e-12, "s",
                  "ch.12 cross-node AllToAll");
  scale_check_nan(scale_gpu_all_to_all_s(&h100, 12, 1e9));      /* not whole nodes */
  scale_check_nan(scale_gpu_all_gather_s(&h100, 2048, 1, 1e9)); /* beyond the tree */
  scale_check_nan(scale_gpu_all_gather_s(&h100, 2.5, 1, 1e9));
  scale_check_nan(scale_gpu_all_gather_s(&h100, 8, 1, -1));
}
END_TEST

START_TEST(llm_rooflines) {
  scale_chip h100 = book_h100();
  /* DP inside a node: C / W_eff = 990e12 x 7 / (8 x 450e9) = 1925; the book's 2200 is the
   * asymptote C / W = 990e12 / 450e9. */
  scale_check_rel(scale_gpu_dp_critical_batch(&h100, SCALE_DTYPE_BF16, 8, 1), 1925.0, 1e-12,
                  "tokens/GPU", "exact; ch.12 prints 2200 (asymptotic)");
  /* Across a SuperPod: 990e12 / 412.9e9 = 2397.7; the book's 2475 = 990e12 / 400e9. */
  scale_check_rel(scale_gpu_dp_critical_batch(&h100, SCALE_DTYPE_BF16, 1024, 1), 2397.66, 1e-5,
                  "tokens/GPU", "exact; ch.12 prints 2475 (asymptotic)");
  /* Two nodes: the node level binds (Quiz 4 Q5), so 1925 again; ch. 12 prints 1237 by halving
   * the leaf's 2475 and ignoring the node level. */
  scale_check_rel(scale_gpu_dp_critical_batch(&h100, SCALE_DTYPE_BF16, 16, 1), 1925.0, 1e-6,
                  "tokens/GPU", "exact; ch.12 prints 1237");
  /* MoE, E/k = 32 across nodes: 32 x 2397.7 = 76,725; the book prints 32 x 2475 = 79,200. */
  scale_check_rel(scale_gpu_dp_critical_batch(&h100, SCALE_DTYPE_BF16, 1024, 32), 76725.0, 1e-4,
                  "tokens/GPU", "exact; ch.12 prints 79,200");
  scale_check_nan(scale_gpu_dp_critical_batch(&h100, SCALE_DTYPE_BF16, 1, 1));
  /* TP for F = 28000: 28000 x 450e9 / 990e12 = 12.7 >= 8, so TP may span 2 nodes:
   * 8 + 28000 x 400e9 / 990e12 = 19.3 ("up to 19-way model parallelism"). */
  scale_check_rel(scale_gpu_tp_max_degree(&h100, SCALE_DTYPE_BF16, 28000), 8.0 + 28000.0 / 2475.0,
                  1e-12, "", "ch.12 'Tensor Parallelism': up to 19-way");
  scale_check_rel(scale_gpu_tp_max_degree(&h100, SCALE_DTYPE_BF16, 4096), 4096.0 / 2200.0, 1e-12,
                  "", "F / 2200 inside a node");
  /* EP, hand: B = 1e6, D = 7168, F = 2048, k = 8, Z = 64: math 4BkDF/(ZC), comms
   * 4BD(Z-8)/(W Z) x min(8k/Z, 1) = 4BD x 56/64 / 400e9; ratio = k F W / (C (Z - 8)). */
  double ratio = 8.0 * 2048.0 * 400e9 / (990e12 * 56.0);
  scale_check_rel(scale_gpu_ep_compute_comms_ratio(&h100, SCALE_DTYPE_BF16, 1e6, 7168, 2048, 8, 64),
                  ratio, 1e-12, "", "ch.12 'Expert Parallelism', hand");
  scale_check_nan(scale_gpu_ep_compute_comms_ratio(&h100, SCALE_DTYPE_BF16, 1e6, 7168, 2048, 8, 8));
  /* PP: 2BD / (W n_mb) x (n_mb + stages - 2): B = 1e6, D = 8192, W = 400e9, 16 mb, 4 stages. */
  scale_check_rel(scale_gpu_pp_comms_s(1e6, 8192, 16, 4, 400e9), 2e6 * 8192 / (400e9 * 16) * 18,
                  1e-12, "s", "ch.12 'Pipeline Parallelism'");
}
END_TEST

START_TEST(shipped_gpus) {
  /* The data files reproduce the book's tree (hardware/nvidia-h100-sxm.ini) and B200's
   * Quiz 5 Q1: across nodes C / W_node = 2250e12 / 400e9 = 5625 asymptotically; exact over
   * 1024 GPUs 2250e12 x 31 / (32 x 400e9) = 5449. */
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_check_rel(scale_gpu_allgather_bytes_per_s(&h100, 1024), 412.9032e9, 1e-6, "B/s", "data");
  scale_chip b200 = scale_check_chip("nvidia-b200");
  scale_check_rel(scale_gpu_dp_critical_batch(&b200, SCALE_DTYPE_BF16, 256, 1),
                  2250e12 * 31.0 / (32.0 * 400e9), 1e-9, "tokens/GPU",
                  "exact; ch.12 Quiz 5 Q1 prints 5625");
  /* GB200 NVL72: a 72-GPU NVLink level; AllGather over the rack at 900e9 x 72/71. */
  scale_chip nvl72 = scale_check_chip("gb200-nvl72");
  scale_check_rel(scale_gpu_allgather_bytes_per_s(&nvl72, 72), 900e9 * 72.0 / 71.0, 1e-9, "B/s",
                  "ch.12 Appendix A");
  scale_chip v5e = scale_check_chip("tpu-v5e"); /* a TPU has no switched tree */
  scale_check_nan(scale_gpu_all_gather_s(&v5e, 8, 1, 1e9));
}
END_TEST

/* Issue 13 section 2: a level of one member (level1_fanout = 1) divided by zero, f W / (f - 1);
 * the loader now refuses it, and a hand-made record gets NaN, never inf or a zero time. */
START_TEST(degenerate_tree_is_nan) {
  scale_chip c = book_h100();
  c.net_levels[0].fanout = 1;
  scale_check_nan(scale_gpu_level_allgather_bytes_per_s(&c, 1));
  scale_check_nan(scale_gpu_level_allgather_bytes_per_s(&c, 2));
  scale_check_nan(scale_gpu_allgather_bytes_per_s(&c, 16));
  scale_check_nan(scale_gpu_all_gather_s(&c, 16, 1, 1e9));
  scale_check_nan(scale_gpu_all_to_all_s(&c, 16, 1e9));
  c = book_h100();
  c.net_levels[1].member_bytes_per_s = 0;
  scale_check_nan(scale_gpu_all_reduce_s(&c, 64, 1, 1e9, 0));
}
END_TEST

START_TEST(tree_extension) {
  scale_chip h100 = book_h100(), big;
  /* Quiz 3 Q2: 16384 GPUs are 16 pods of 1024; a core level joins them, each pod egressing
   * its 4 SUs x 12.8e12 = 51.2e12 B/s. */
  scale_gpu_tree_extend(&h100, 16384, &big);
  ck_assert_int_eq(big.n_net_levels, 4);
  scale_check_rel(big.net_levels[3].fanout, 16.0, 1e-12, "", "ch.12 Quiz 3 Q2: 16 pods");
  scale_check_rel(big.net_levels[3].member_bytes_per_s, 51.2e12, 1e-12, "B/s", "4 x 12.8e12");
  /* 1500 GPUs round up to 2 pods; a group inside the tree keeps it as it is */
  scale_gpu_tree_extend(&h100, 1500, &big);
  scale_check_rel(big.net_levels[3].fanout, 2.0, 1e-12, "", "ceil(1500 / 1024)");
  scale_gpu_tree_extend(&h100, 1024, &big);
  ck_assert_int_eq(big.n_net_levels, 3);
  /* the full bisection: gathering over the 4096 GPUs binds at the leaf as in one pod,
   * 990e12 x 31/32 / 400e9 = 2397.66 (the 4 pods cost 3/4 / 51.2e12, less) */
  scale_check_rel(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 4096, 1, 1),
                  990e12 * 31.0 / 32.0 / 400e9, 1e-12, "tokens", "hand: extended tree");
}
END_TEST

START_TEST(dp_over_an_inner_axis) {
  scale_chip h100 = book_h100();
  /* y = 1 inside the tree is scale_gpu_dp_critical_batch */
  scale_check_rel(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 8, 1, 1), 1925.0,
                  1e-12, "tokens", "990e12 x 7/8 / 450e9");
  /* Quiz 5 Q2: 64 groups of TP 8 x PP 8. Level 2 holds 4 of the group's GPUs per SU, each
   * node carrying 8/64 of the array: 990e12 x 3/4 x 1/8 / 400e9 = 232.03 (the book's
   * C / (8 W_node) = 309 drops the 3/4). */
  scale_check_rel(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 64, 64, 1),
                  990e12 * 0.75 / 8.0 / 400e9, 1e-12, "tokens", "ch.12 Quiz 5 Q2, exact");
  /* MoE: E / k times the dense figure */
  scale_check_rel(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 64, 64, 32),
                  32 * 990e12 * 0.75 / 8.0 / 400e9, 1e-12, "tokens", "E/k = 32");
  ck_assert(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 1, 8, 1) == 0.0);
  scale_check_nan(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 8, 1, 0.5));
  scale_check_nan(scale_gpu_dp_critical_batch_inner(&h100, SCALE_DTYPE_BF16, 2.5, 1, 1));
}
END_TEST

START_TEST(ep_max_degree) {
  /* A node of 8 GPUs at C = 1e15, node egress W = 1e11. While z < D k = 64 the limit is
   * z = D + k F W / C: F = 1e4, k = 8 gives 8 + 8 = 16. */
  scale_chip c = book_h100();
  c.flops_per_s[SCALE_DTYPE_BF16] = 1e15;
  c.net_levels[1].member_bytes_per_s = 1e11;
  scale_check_rel(scale_gpu_ep_max_degree(&c, SCALE_DTYPE_BF16, 1e4, 8, 4096), 16.0, 1e-12, "",
                  "hand: D + k F W / C");
  /* F = 7.5e4 crosses z = 64, where the ratio is F W z / (C D (z - D)): 1 at
   * z = C D^2 / (C D - F W) = 64e15 / 0.5e15 = 128 */
  scale_check_rel(scale_gpu_ep_max_degree(&c, SCALE_DTYPE_BF16, 7.5e4, 8, 4096), 128.0, 1e-12,
                  "", "hand: C D^2 / (C D - F W)");
  /* F W > C D: compute-bound at every degree, so the cap */
  ck_assert(scale_gpu_ep_max_degree(&c, SCALE_DTYPE_BF16, 1e6, 8, 4096) == 4096.0);
  /* the book's H100 and DeepSeek-V3's experts (F = 2048, k = 8): 8 + 8 x 2048 x 400e9 / 990e12 */
  scale_chip h100 = book_h100();
  scale_check_rel(scale_gpu_ep_max_degree(&h100, SCALE_DTYPE_BF16, 2048, 8, 4096),
                  8.0 + 8.0 * 2048 * 400e9 / 990e12, 1e-12, "", "ch.12 Expert Parallelism");
  scale_check_nan(scale_gpu_ep_max_degree(&h100, SCALE_DTYPE_BF16, 2048, 8, 8));
  scale_check_nan(scale_gpu_ep_max_degree(&h100, SCALE_DTYPE_BF16, 0, 8, 4096));
  h100.n_net_levels = 1;
  scale_check_nan(scale_gpu_ep_max_degree(&h100, SCALE_DTYPE_BF16, 2048, 8, 4096));
}
END_TEST

START_TEST(cuda_cores_and_clocks) {
  scale_chip h100 = book_h100();
  h100.n_cores = 132;
  h100.n_matmul_units = 4;
  /* Quiz 1 Q1: 132 SMs x 4 subpartitions x 32 lanes = 16,896 CUDA cores; B200 148 SMs: 18,944 */
  scale_check_rel(scale_gpu_fp32_cores(&h100), 16896.0, 1e-12, "", "ch.12 Quiz 1 Q1, H100");
  scale_chip b200 = h100;
  b200.n_cores = 148;
  scale_check_rel(scale_gpu_fp32_cores(&b200), 18944.0, 1e-12, "", "ch.12 Quiz 1 Q1, B200");
  /* Quiz 1 Q2: 16,896 x 1.59e9 = 2.6865e13 FLOP/s, one op per core per cycle */
  scale_check_rel(scale_gpu_vector_flops_per_s_at(&h100, 1.59e9, 1), 2.6865e13, 1e-4, "FLOP/s",
                  "ch.12 Quiz 1 Q2, base clock");
  /* Quiz 1 Q6: 80e12 / (18,944 x 2) = 2.1115e9 Hz with FMAs */
  b200.vector_flops_per_s = 80e12;
  scale_check_rel(scale_gpu_vector_clock_hz(&b200, 2), 2.1115e9, 1e-4, "Hz", "ch.12 Quiz 1 Q6");
  /* the tensor core at the book's 1.76 GHz, not the 1.98 GHz boost: 990e12 / (528 x 1.76e9) */
  scale_check_rel(scale_gpu_flops_per_tensor_core_cycle_at(&h100, SCALE_DTYPE_BF16, 1.76e9),
                  1065.34, 1e-4, "FLOP/cycle", "ch.12 'What Is a GPU?' (~1024)");
  scale_check_nan(scale_gpu_flops_per_tensor_core_cycle_at(&h100, SCALE_DTYPE_BF16, 0));
  scale_check_nan(scale_gpu_vector_clock_hz(&h100, 2)); /* the record has no vector rate */
  scale_check_nan(scale_gpu_vector_flops_per_s_at(&h100, 1.59e9, 0));
  h100.n_cores = 0;
  scale_check_nan(scale_gpu_fp32_cores(&h100));
  /* the 8-bit column: fp8 on an H100, int8 on an A100 (no fp8 rate) */
  scale_chip h = scale_check_chip("nvidia-h100-sxm"), a = scale_check_chip("nvidia-a100-80gb");
  ck_assert(scale_gpu_dtype8(&h) == SCALE_DTYPE_FP8 && scale_gpu_dtype8(&a) == SCALE_DTYPE_INT8);
}
END_TEST

START_TEST(dp_book_asymptote_and_group_sizes) {
  scale_chip h100 = book_h100();
  /* ch. 12 "Data Parallelism": beyond a node C / W_node = 990e12 / 400e9 = 2475; MoE E/k = 32:
   * 79,200; Quiz 5 Q2, TP 8 x PP 8 = 64 GPUs over 8 nodes: 2475 / 8 = 309.4 */
  scale_check_rel(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 1, 1), 2475.0, 1e-12,
                  "tokens/GPU", "ch.12 'Data Parallelism'");
  scale_check_rel(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 1, 32), 79200.0,
                  1e-12, "tokens/GPU", "ch.12 MoE, E/k = 32");
  scale_check_rel(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 64, 1), 309.375,
                  1e-12, "tokens/GPU", "ch.12 Quiz 5 Q2");
  /* a replica inside a node spans one node: the same 2475 */
  scale_check_rel(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 4, 1), 2475.0, 1e-12,
                  "tokens/GPU", "mp < D_1");
  scale_check_nan(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 0, 1));
  scale_check_nan(scale_gpu_dp_critical_batch_book(&h100, SCALE_DTYPE_BF16, 8, 0.5));
  /* group sizes to 1024 on 8-GPU nodes: 2..8 (7), then 2..64 nodes (63), then 128 nodes */
  double x[256];
  ck_assert_int_eq(scale_gpu_group_sizes(&h100, 1024, x, 256), 7 + 63 + 1);
  ck_assert(x[0] == 2 && x[6] == 8 && x[7] == 16 && x[69] == 512 && x[70] == 1024);
  ck_assert_int_eq(scale_gpu_group_sizes(&h100, 1024, x, 5), 5); /* the cap */
  ck_assert_int_eq(scale_gpu_group_sizes(&h100, 4, x, 256), 3);  /* 2, 3, 4 */
  ck_assert_int_eq(scale_gpu_group_sizes(&h100, 1, x, 256), 0);
}
END_TEST

START_TEST(su_all_gather_book_form) {
  scale_chip h100 = book_h100();
  /* Pop Quiz 3: bf16[8192, 32768] = 536,870,912 bytes over one SU of 32 nodes. Y <= 8: the
   * leaf binds, 536.9e6 x 31/32 / 400e9 = 1.300 ms; Y = 16: 536.9e6 x 8 / (16 x 400e9) =
   * 0.671 ms; Y = 64: 0.168 ms */
  double b = 2.0 * 8192 * 32768;
  scale_check_rel(scale_gpu_all_gather_su_book_s(&h100, 1, b), 1.30024e-3, 1e-5, "s",
                  "ch.12 Pop Quiz 3, Y = 1");
  scale_check_rel(scale_gpu_all_gather_su_book_s(&h100, 8, b), 1.30024e-3, 1e-5, "s", "Y = 8");
  scale_check_rel(scale_gpu_all_gather_su_book_s(&h100, 16, b), 6.71089e-4, 1e-5, "s", "Y = 16");
  scale_check_rel(scale_gpu_all_gather_su_book_s(&h100, 64, b), 1.67772e-4, 1e-5, "s", "Y = 64");
  /* beyond a node the exact time keeps the ring's (d - 1) / d, d = 256 / 16 = 16 nodes each
   * holding a shard of the group: 15/16 of the book's form */
  scale_check_rel(scale_gpu_all_gather_s(&h100, 256.0 / 16, 16, b),
                  scale_gpu_all_gather_su_book_s(&h100, 16, b) * 15.0 / 16.0, 1e-12, "s",
                  "exact, Y = 16");
  scale_check_nan(scale_gpu_all_gather_su_book_s(&h100, 0, b));
  scale_check_rel(scale_gpu_node_switch_bytes_per_s(&h100), 6.4e12, 1e-12, "B/s",
                  "ch.12 Quiz 2 Q1: 4 x 1.6e12");
}
END_TEST

/* The row of 'key' in a summary table, failing the test when it is missing. */
static double row(const scale_quantity *q, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(q[i].key, key) == 0) return q[i].value;
  ck_abort_msg("no row %s", key);
  return NAN;
}

START_TEST(chip_and_node_summaries) {
  scale_chip h = book_h100();
  h.n_cores = 132;
  h.n_matmul_units = 4;
  h.clock_hz = 1.76e9;
  h.vector_flops_per_s = 66e12;
  h.hbm_bytes_per_s = 3.35e12;
  h.smem_bytes_per_core = 256.0 * 1024.0;
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  int n = scale_gpu_chip_summary(&h, q);
  ck_assert_int_eq(n, 18);
  ck_assert_str_eq(q[0].key, "sms");
  ck_assert_str_eq(q[n - 1].key, "nvlink");
  scale_check_rel(row(q, n, "flops16"), 990e12, 1e-12, "FLOP/s", "the book's H100 bf16 peak");
  scale_check_nan(row(q, n, "flops8")); /* neither fp8 nor int8 given */
  /* 990e12 / 3.35e12 = 295.5 FLOP/byte; 990 / 66 = 15; 132 x 256 KiB = 34.6e6 B */
  scale_check_rel(row(q, n, "int16"), 295.52, 1e-4, "FLOP/byte", "ch.12 'What Is a GPU?'");
  scale_check_rel(row(q, n, "matmul_over_vector"), 15.0, 1e-12, "", "ch.12: 990 vs 66 TFLOP/s");
  scale_check_rel(row(q, n, "smem_total"), 132.0 * 262144.0, 1e-12, "B", "hand: 132 x 256 KiB");
  ck_assert_int_eq(q[10].style, SCALE_FMT_IEC); /* SMEM per SM reads in KiB */
  h.flops_per_s[SCALE_DTYPE_BF16] = (double)NAN;
  h.flops_per_s[SCALE_DTYPE_FP16] = 125e12; /* a V100: fp16 only */
  n = scale_gpu_chip_summary(&h, q);
  scale_check_rel(row(q, n, "flops16"), 125e12, 1e-12, "FLOP/s", "the fp16 rate of a V100");
  ck_assert_int_eq(scale_gpu_dtype16(&h), SCALE_DTYPE_FP16);

  h = book_h100();
  n = scale_gpu_node_summary(&h, q);
  ck_assert_int_eq(n, 5);
  /* Quiz 2 Q1: 8 x 450e9 = 3.6e12 binds under 4 x 1.6e12 = 6.4e12; node egress 400e9 */
  scale_check_rel(row(q, n, "node_gpus"), 8.0, 1e-12, "", "the book's DGX H100");
  scale_check_rel(row(q, n, "node_egress"), 400e9, 1e-12, "B/s", "the book's DGX H100");
  scale_check_rel(row(q, n, "switch_bw"), 6.4e12, 1e-12, "B/s", "ch.12 Quiz 2 Q1");
  scale_check_rel(row(q, n, "node_bw"), 3.6e12, 1e-12, "B/s", "ch.12 Quiz 2 Q1");
  h.n_net_levels = 1;
  n = scale_gpu_node_summary(&h, q);
  scale_check_nan(row(q, n, "node_egress")); /* no scale-out level */
}
END_TEST

START_TEST(tree_and_collective_summaries) {
  scale_chip h = book_h100();
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  int n = scale_gpu_level_summary(&h, 2, q);
  ck_assert_int_eq(n, 6);
  /* the leaf: 32 nodes of 8 GPUs, 400e9 each = 50e9 per GPU, 12.8e12 in all, and
   * 32 x 400e9 / 31 = 412.9e9 of AllGather bandwidth */
  scale_check_rel(row(q, n, "gpus"), 256.0, 1e-12, "", "hand: 8 x 32");
  scale_check_rel(row(q, n, "per_gpu"), 50e9, 1e-12, "B/s", "hand: 400e9 / 8");
  scale_check_rel(row(q, n, "total"), 12.8e12, 1e-12, "B/s", "hand: 32 x 400e9");
  scale_check_rel(row(q, n, "ag_bw"), 412.9e9, 1e-4, "B/s", "ch.12: 413 GB/s in an SU");
  n = scale_gpu_level_summary(&h, 4, q);
  scale_check_nan(row(q, n, "fanout"));
  scale_check_nan(row(q, n, "ag_bw"));

  n = scale_gpu_collective_summary(&h, q);
  ck_assert_int_eq(n, 5);
  /* in a node: 8 x 450e9 / 7 = 514e9 AllGather, half that AllReduce, 450e9 with SHARP;
   * over the pod SHARP binds at the leaf's 400e9 */
  scale_check_rel(row(q, n, "ag_node_bw"), 514.29e9, 1e-4, "B/s", "ch.12: 514 GB/s");
  scale_check_rel(row(q, n, "ar_node_bw"), 257.14e9, 1e-4, "B/s", "hand: half of 514e9");
  scale_check_rel(row(q, n, "ar_sharp_node_bw"), 450e9, 1e-12, "B/s", "ch.12 T_SHARP");
  scale_check_rel(row(q, n, "sharp_gain"), 1.75, 1e-12, "", "hand: 2 x 7/8");
  scale_check_rel(row(q, n, "ar_sharp_pod_bw"), 400e9, 1e-12, "B/s", "hand: the leaf binds");
}
END_TEST

START_TEST(dp_summary_against_the_book) {
  scale_chip h = book_h100();
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  int n = scale_gpu_dp_summary(&h, 32.0, q);
  ck_assert_int_eq(n, 8);
  /* in a node 990e12 x 7 / (8 x 450e9) = 1925 (the book's asymptote 2200); over two nodes the
   * node level still binds (1925; the book's 2475 / 2 = 1237.5); over the 1024-GPU pod the
   * leaf: 990e12 x 31 / (32 x 400e9) = 2397.7 (book 2475), x 32 for E/k = 32 (book 79,200) */
  scale_check_rel(row(q, n, "node"), 1925.0, 1e-9, "tokens", "hand");
  scale_check_rel(row(q, n, "node_asym"), 2200.0, 1e-12, "tokens", "ch.12 'Data Parallelism'");
  scale_check_rel(row(q, n, "two_nodes"), 1925.0, 1e-9, "tokens", "ch.12 Quiz 4 Q5");
  scale_check_rel(row(q, n, "two_nodes_book"), 1237.5, 1e-12, "tokens", "ch.12: 1237");
  scale_check_rel(row(q, n, "tree"), 2397.65625, 1e-9, "tokens", "hand");
  scale_check_rel(row(q, n, "beyond_asym"), 2475.0, 1e-12, "tokens", "ch.12: 2475");
  scale_check_rel(row(q, n, "moe_tree"), 32.0 * 2397.65625, 1e-9, "tokens", "hand");
  scale_check_rel(row(q, n, "moe_asym"), 79200.0, 1e-12, "tokens", "ch.12: 79,200");
  n = scale_gpu_dp_summary(&h, 0.5, q); /* E/k below 1 */
  scale_check_nan(row(q, n, "moe_tree"));
}
END_TEST

START_TEST(curves_for_figures) {
  scale_chip h = book_h100();
  double x[64], y[64];
  /* groups of the 1024-GPU tree: 2..8 in a node, then whole nodes, cut at the 64 points asked */
  int n = scale_gpu_curve(&h, SCALE_GPU_CURVE_ALLGATHER_BW, 0, x, y, 64);
  ck_assert_int_eq(n, 64);
  scale_check_rel(x[6], 8.0, 1e-12, "", "a whole node");
  scale_check_rel(y[6], 514.29e9, 1e-4, "B/s", "ch.12: 8 x 450e9 / 7");
  scale_check_rel(y[0], 900e9, 1e-12, "B/s", "hand: 2 x 450e9 / 1");
  n = scale_gpu_curve(&h, SCALE_GPU_CURVE_DP_BATCH, 16, x, y, 64);
  ck_assert_int_eq(n, 8); /* 2..8, 16 */
  scale_check_rel(y[n - 1], 1925.0, 1e-9, "tokens", "ch.12 Quiz 4 Q5: the node binds");
  /* widths from 1e3 to 1e6 on a log scale: 1e3, 1e4.5, 1e6; F = 1e6 leaves the node,
   * 8 + 1e6 x 400e9 / 990e12 = 8.404 */
  n = scale_gpu_curve(&h, SCALE_GPU_CURVE_TP_DEGREE, 1e6, x, y, 3);
  ck_assert_int_eq(n, 3);
  scale_check_rel(x[1], pow(10.0, 4.5), 1e-12, "", "hand: the log midpoint");
  scale_check_rel(y[2], 8.0 + 1e6 * 400e9 / 990e12, 1e-12, "", "ch.12 'Tensor Parallelism'");
  scale_check_rel(y[0], 1e3 * 450e9 / 990e12, 1e-12, "", "hand: F W_gpu / C in a node");
  n = scale_gpu_curve(&h, SCALE_GPU_CURVE_EP_DEGREE, 1e5, x, y, 2);
  scale_check_rel(y[1], SCALE_GPU_CURVE_EP_CAP, 1e-12, "", "F = 1e5 > D C / W_node = 19,800");
  ck_assert_int_eq(scale_gpu_curve(&h, SCALE_GPU_CURVE_TP_DEGREE, 500, x, y, 3), 0);
}
END_TEST

/* ---- ch. 12's worked examples -----------------------------------------------------------------
 */

/* The value of row 'key' in the first of tables t[0..n) under 'stem' that has one. */
static double cell(const scale_gpu_table *t, int n, const char *stem, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(t[i].stem, stem) == 0)
      for (int j = 0; j < t[i].n; j++)
        if (strcmp(t[i].row[j].key, key) == 0) return t[i].row[j].value;
  ck_abort_msg("no row %s.%s", stem, key);
  return NAN;
}

static scale_gpu_table tab[SCALE_GPU_TABLES_MAX];

START_TEST(quiz1_tables_answer_the_book) {
  scale_chip h = scale_check_chip("nvidia-h100-sxm"), b = scale_check_chip("nvidia-b200");
  scale_chip v5p = scale_check_chip("tpu-v5p"), v5e = scale_check_chip("tpu-v5e");
  int n = scale_gpu_quiz1_tables(&h, &b, &v5p, &v5e, tab);
  ck_assert_int_eq(n, 4);
  ck_assert_str_eq(tab[1].stem, "q1.b64");
  ck_assert_str_eq(tab[2].stem, "q1.b512");
  /* Q1: 132 x 4 x 32 and 148 x 4 x 32 CUDA cores (the book's 16,896 and 18,944) */
  scale_check_rel(cell(tab, n, "q1", "h100_cuda_cores"), 16896.0, 1e-12, "", "Quiz 1 Q1");
  scale_check_rel(cell(tab, n, "q1", "b200_cuda_cores"), 18944.0, 1e-12, "", "Quiz 1 Q1");
  /* tensor-core FLOPs a cycle: 990e12 / (132 x 4 x 1.76e9) = 1065 ("~1024") and
   * 2.25e15 / (148 x 4 x 1.86e9) = 2043 ("~2048") */
  scale_check_rel(cell(tab, n, "q1", "h100_tc_flops_per_cycle"), 990e12 / (528 * 1.76e9), 1e-12,
                  "FLOP", "ch.12 'What Is a GPU?': ~1024");
  scale_check_rel(cell(tab, n, "q1", "b200_tc_flops_per_cycle"), 2.25e15 / (592 * 1.86e9), 1e-12,
                  "FLOP", "ch.12 'What Is a GPU?': ~2048");
  /* a v5p chip's two cores of 8 x 128 x 4 VPU ALUs */
  scale_check_rel(cell(tab, n, "q1", "v5p_alus"), 8192.0, 1e-12, "", "Quiz 1 Q1: 2 x 4096");
  /* Q2: 16,896 x 1.59e9 = 26.9e12 at base, x 1.98e9 = 33.5e12 at boost, 990 / 33.5 = 29.6 */
  scale_check_rel(cell(tab, n, "q1", "h100_vector_base"), 26.9e12, 2e-3, "FLOP/s", "Quiz 1 Q2");
  scale_check_rel(cell(tab, n, "q1", "h100_vector_boost"), 33.5e12, 2e-3, "FLOP/s", "Quiz 1 Q2");
  scale_check_rel(cell(tab, n, "q1", "h100_tc_over_vector"), 990e12 / (16896 * 1.98e9), 1e-12, "",
                  "hand: 29.6");
  /* Q4 on the B200 (2.25e15 FLOP/s, 8e12 B/s): B = 64 moves 2(64 x 4096 + 4096 x 8192 +
   * 64 x 8192) = 68,681,728 bytes, memory-bound (8.59 us > 1.91 us); B = 512 is compute-bound,
   * 2 x 512 x 4096 x 8192 / 2.25e15 = 15.3 us */
  scale_check_rel(cell(tab, n, "q1.b64", "bytes"), 68681728.0, 1e-12, "B", "hand: 2BD+2DF+2BF");
  scale_check_rel(cell(tab, n, "q1.b64", "t"), 68681728.0 / 8e12, 1e-12, "s", "Quiz 1 Q4");
  scale_check_rel(cell(tab, n, "q1.b512", "t"), 2.0 * 512 * 4096 * 8192 / 2.25e15, 1e-12, "s",
                  "Quiz 1 Q4");
  /* Q5: (256 KiB SMEM + 256 KiB registers) x 132 = 69.2 MB against 128 MiB of VMEM; Q6:
   * 80e12 / (18,944 x 2) = 2.11 GHz; Q7: 12 bytes a FLOP, memory-bound: 12 N / 3.35e12 */
  scale_check_rel(cell(tab, n, "q1", "h100_smem_plus_regs"), 524288.0 * 132, 1e-12, "B", "Q5");
  scale_check_rel(cell(tab, n, "q1", "v5e_vmem"), 134217728.0, 1e-12, "B", "Quiz 1 Q5");
  scale_check_rel(cell(tab, n, "q1", "b200_clock"), 2.11e9, 1e-3, "Hz", "Quiz 1 Q6: 2.11 GHz");
  scale_check_rel(cell(tab, n, "q1", "add_intensity"), 1.0 / 12.0, 1e-12, "FLOP/byte", "Q7");
  scale_check_rel(cell(tab, n, "q1", "add_t_64k"), 12.0 * 65536 / 3.35e12, 1e-12, "s", "Q7");
  scale_check_rel(cell(tab, n, "q1", "add_t_1g"), 12.0 * 1073741824.0 / 3.35e12, 1e-12, "s", "Q7");
}
END_TEST

START_TEST(node_and_tree_tables) {
  scale_chip h = book_h100(), gb = book_h100();
  gb.n_net_levels = 2; /* a GB200 NVL72 rack: 72 GPUs x 900e9, 8 racks x 3.6e12 */
  gb.net_levels[0] = (scale_net_level){72, 900e9};
  gb.net_levels[1] = (scale_net_level){8, 3.6e12};
  int n = scale_gpu_quiz2_tables(&h, tab);
  ck_assert_int_eq(n, 2);
  /* Quiz 2 Q1: 4 x 1.6e12 = 6.4e12 of switches, 8 x 450e9 = 3.6e12 of GPU links bind; Q3:
   * bf16[4096, 65536] = 536,870,912 bytes over 8 GPUs, B (7/8) / 450e9 = 1.04 ms */
  scale_check_rel(cell(tab, n, "node", "h100_switch_bw"), 6.4e12, 1e-12, "B/s", "Quiz 2 Q1");
  scale_check_rel(cell(tab, n, "node", "h100_bw"), 3.6e12, 1e-12, "B/s", "Quiz 2 Q1");
  scale_check_rel(cell(tab, n, "q2", "ag_s"), 1.04e-3, 5e-3, "s", "Quiz 2 Q3: 1.04 ms");
  scale_check_rel(cell(tab, n, "q2", "ag_asymptote_s"), 536870912.0 / 450e9, 1e-12, "s", "hand");
  n = scale_gpu_quiz3_tables(&h, &gb, tab);
  ck_assert_int_eq(n, 2);
  /* Q1: 12.8e12 / 32 = 400e9 of spine per node, 400e9 / 8 = 50e9 per GPU; the rack egresses
   * 9x an H100 node with 9x its GPUs; Q2: 2048 / 256 = 8 SUs, 4 pods, 4 x 12.8e12 into a core */
  scale_check_rel(cell(tab, n, "gb200", "egress_over_h100"), 9.0, 1e-12, "", "hand: 3.6e12/4e11");
  scale_check_rel(cell(tab, n, "gb200", "gpus_over_h100"), 9.0, 1e-12, "", "hand: 72 / 8");
  scale_check_rel(cell(tab, n, "q3", "spine_per_node"), 400e9, 1e-12, "B/s", "Quiz 3 Q1");
  scale_check_rel(cell(tab, n, "q3", "scaleout_per_gpu"), 50e9, 1e-12, "B/s", "Quiz 3 Q1");
  scale_check_rel(cell(tab, n, "q3", "sus_2048"), 8.0, 1e-12, "", "Quiz 3 Q2");
  scale_check_rel(cell(tab, n, "q3", "pods_4096"), 4.0, 1e-12, "", "Quiz 3 Q2");
  scale_check_rel(cell(tab, n, "q3", "core_member_bw"), 51.2e12, 1e-12, "B/s", "Quiz 3 Q2");
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  int m = scale_gpu_tree_summary(&h, q);
  ck_assert_int_eq(m, 2);
  scale_check_rel(row(q, m, "tree_gpus"), 1024.0, 1e-12, "", "hand: 8 x 32 x 4");
  scale_check_rel(row(q, m, "tree_ag_bw"), 32 * 400e9 / 31, 1e-12, "B/s", "ch.12: 413 GB/s");
}
END_TEST

START_TEST(collective_tables_answer_the_pop_quizzes) {
  scale_chip h = book_h100();
  int n = scale_gpu_collective_tables(&h, tab);
  ck_assert_int_eq(n, 14);
  ck_assert_str_eq(tab[5].stem, "pq3.y1");
  ck_assert_str_eq(tab[11].stem, "pq3.y64");
  /* Pop Quiz 1: 2 x 1024 x 16384 bytes x (7/8) / 450e9 = 65 us */
  scale_check_rel(cell(tab, n, "pq1", "t"), 65.2e-6, 1e-3, "s", "Pop Quiz 1: 65 us");
  /* AllToAll bandwidth: 64 x 450e9 / 7 in a node, 4 x 400e9 over two nodes */
  scale_check_rel(cell(tab, n, "coll", "a2a_node_bw"), 64 * 450e9 / 7, 1e-12, "B/s", "hand");
  scale_check_rel(cell(tab, n, "coll", "a2a_2node_bw"), 1.6e12, 1e-12, "B/s", "hand");
  scale_check_rel(cell(tab, n, "coll", "a2a_slowdown_approx"), 4.5, 1e-12, "",
                  "ch.12 'AllToAlls': B/(2 x 400e9) against B/(8 x 450e9)");
  /* Pop Quiz 2: 1 - (7/8)^4 = 0.414 of the dense AllToAll; DeepSeek 1 - (63/64)^8 = 0.118 */
  scale_check_rel(cell(tab, n, "pq2", "exact_frac"), 1 - pow(7.0 / 8, 4), 1e-12, "", "Pop Quiz 2");
  scale_check_rel(cell(tab, n, "pq2", "t_dense"), 1e9 * 7 / (450e9 * 64), 1e-12, "s", "hand");
  scale_check_rel(cell(tab, n, "coll", "ragged_ds"), 1 - pow(63.0 / 64, 8), 1e-12, "", "App. B");
  /* Pop Quiz 3: bf16[8192, 32768] over an SU binds at the leaf to Y = 8, then 2DF / (Y 50e9) */
  double b = 2.0 * 8192 * 32768;
  scale_check_rel(cell(tab, n, "pq3.y1", "t"), b * 31 / 32 / 400e9, 1e-12, "s", "Pop Quiz 3");
  scale_check_rel(cell(tab, n, "pq3.y16", "t_book"), b / (16 * 50e9), 1e-12, "s", "Pop Quiz 3");
  /* Quiz 4: SHARP over 4 GPUs of a node, Y = 2: each carries half the array to the switch,
   * b / 2 / 450e9; over the spine with Y = 256: b / 12.8e12; two nodes: the leaf's 2-member
   * ring gives 2 x 400e9, the node's 514e9 binds (Q5) */
  scale_check_rel(cell(tab, n, "q4", "q3_t_y2"), b / 2 / 450e9, 1e-12, "s", "hand");
  scale_check_rel(cell(tab, n, "q4", "q4_bw"), 12.8e12, 1e-12, "B/s", "Quiz 4 Q4");
  scale_check_rel(cell(tab, n, "q4", "q5_leaf_bw"), 800e9, 1e-12, "B/s", "hand");
  scale_check_rel(cell(tab, n, "q4", "q5_bw"), 8 * 450e9 / 7, 1e-12, "B/s", "Quiz 4 Q5");
  scale_check_rel(cell(tab, n, "coll", "sample_bytes"), b, 1e-12, "B", "Pop Quiz 3's array");
}
END_TEST

START_TEST(roofline_tables_and_examples) {
  scale_chip h = book_h100();
  int n = scale_gpu_roofline_tables(&h, "h100", tab);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(tab[0].stem, "tp.h100");
  /* F / 2200 in a node, F / 2475 beyond; LLaMA 3's F = 28672: 28672 / 2200 = 13 > 8, so the
   * node plus 28672 / 2475 = 19.6; EP needs F > 8 x 2475 = 19,800 for any degree; DeepSeek's
   * F = 2048, k = 8: 8 + 8 x 2048 / 2475 = 14.6 (the book's "~14.6") */
  scale_check_rel(cell(tab, n, "tp.h100", "div_node"), 2200.0, 1e-12, "", "ch.12 TP");
  scale_check_rel(cell(tab, n, "tp.h100", "llama"), 8 + 28672 / 2475.0, 1e-12, "", "hand");
  scale_check_rel(cell(tab, n, "ep.h100", "f_large"), 19800.0, 1e-12, "", "ch.12 EP");
  scale_check_rel(cell(tab, n, "ep.h100", "z_max_ds"), 8 + 8 * 2048 / 2475.0, 1e-9, "",
                  "ch.12 EP: ~14.6");
  n = scale_gpu_roofline_example_tables(&h, tab);
  ck_assert_int_eq(n, 3);
  /* F = 28000: 8 + 28000 / 2475 = 19.3 ("up to 19-way"); EP at Z = 64: k F W / (C (Z - 8)) =
   * 8 x 2048 / (2475 x 56) = 0.118; PP: 2 x 62500 x 8192 / (400e9 x 16) x 22 sends = 3.52 ms
   * against 6 x 70e9 x 4e6 / (4096 x 990e12) = 0.414 s */
  scale_check_rel(cell(tab, n, "tp", "h100_f28000"), 8 + 28000 / 2475.0, 1e-12, "", "ch.12 TP");
  scale_check_rel(cell(tab, n, "ep", "h100_ratio_ds64"), 8 * 2048 / (2475.0 * 56), 1e-12, "",
                  "hand");
  scale_check_rel(cell(tab, n, "pp", "t"), 2 * 62500.0 * 8192 / (400e9 * 16) * 22, 1e-12, "s",
                  "ch.12 PP");
  scale_check_rel(cell(tab, n, "pp", "t_math"), 6 * 70e9 * 4e6 / (4096 * 990e12), 1e-12, "s",
                  "hand");
}
END_TEST

START_TEST(layout_tables_and_replicas) {
  scale_chip h = book_h100();
  scale_model l70 = scale_check_model("llama-3-70b"), ds = scale_check_model("deepseek-v3");
  int n = scale_gpu_layout_tables(&h, &l70, &ds, 32.0, tab);
  ck_assert_int_eq(n, 2);
  /* LLaMA 3: 8 x 16 x 128 = 16384 GPUs, 16 x 128 x 8192 tokens, 1024 a GPU; DP over 128
   * replicas of 128 GPUs binds at the leaf, 2 replicas' nodes per SU each carrying 1/16:
   * 990e12 x 1/2 x 1/16 / 400e9 = 77.3 (the book's 2475 / 16 = 155 drops both factors) */
  scale_check_rel(cell(tab, n, "llama3", "gpus"), 16384.0, 1e-12, "", "Llama 3 Table 4");
  scale_check_rel(cell(tab, n, "llama3", "per_gpu"), 1024.0, 1e-12, "tokens", "hand");
  scale_check_rel(cell(tab, n, "llama3", "dp_threshold"), 990e12 / 2 / 16 / 400e9, 1e-12, "tokens",
                  "hand");
  scale_check_rel(cell(tab, n, "llama3", "dp_threshold_book"), 2475.0 / 16, 1e-12, "tokens",
                  "ch.12 LLaMA 3: 155");
  scale_check_rel(cell(tab, n, "llama3", "d_ff_70b"), 28672.0, 1e-12, "", "LLaMA 3 70B");
  /* DeepSeek-V3: 64 x 16 x 2 = 2048 GPUs, 30720 tokens a GPU; 2-way DP over two pods of 1024
   * under a core level of 2 x 51.2e12: 990e12 x 32 x 1/2 / 51.2e12 = 309 */
  scale_check_rel(cell(tab, n, "ds", "gpus"), 2048.0, 1e-12, "", "DeepSeek-V3 report");
  scale_check_rel(cell(tab, n, "ds", "per_gpu"), 4096.0 * 15360 / 2048, 1e-12, "tokens", "hand");
  scale_check_rel(cell(tab, n, "ds", "dp_threshold"), 990e12 * 32 / 2 / 51.2e12, 1e-12, "tokens",
                  "hand");
  scale_check_rel(cell(tab, n, "ds", "e"), 256.0, 1e-12, "", "DeepSeek-V3: 256 routed experts");
  scale_quantity q[SCALE_GPU_SUMMARY_MAX];
  /* Quiz 5 Q3, Megatron's 70B: 768 GPUs, 16-way model parallel, 384 x 4096 tokens = 2048 a GPU;
   * 48 replicas of 2 nodes, 16 per SU: 990e12 x 15/16 x 1/2 / 400e9 = 1160 (book 2475/2) */
  int m = scale_gpu_dp_replicas_summary(&h, 768, 384, 16, 4096, q);
  ck_assert_int_eq(m, 6);
  scale_check_rel(row(q, m, "per_gpu"), 2048.0, 1e-12, "tokens", "hand");
  scale_check_rel(row(q, m, "threshold"), 990e12 * 15 / 16 / 2 / 400e9, 1e-12, "tokens", "hand");
  scale_check_rel(row(q, m, "threshold_book"), 1237.5, 1e-12, "tokens", "Quiz 5 Q3");
  m = scale_gpu_dp_replicas_summary(&h, 770, 384, 16, 4096, q); /* not whole replicas */
  scale_check_nan(row(q, m, "threshold"));
}
END_TEST

static Suite *gpu_suite(void) {
  Suite *s = suite_create("gpu");
  const scale_check_case cases[] = {
      {"tensor_core_arithmetic", tensor_core_arithmetic},
      {"node_bandwidth", node_bandwidth},
      {"fat_tree_levels", fat_tree_levels},
      {"intra_node_collectives", intra_node_collectives},
      {"cross_node_collectives", cross_node_collectives},
      {"llm_rooflines", llm_rooflines},
      {"shipped_gpus", shipped_gpus},
      {"degenerate_tree_is_nan", degenerate_tree_is_nan},
      {"tree_extension", tree_extension},
      {"dp_over_an_inner_axis", dp_over_an_inner_axis},
      {"ep_max_degree", ep_max_degree},
      {"cuda_cores_and_clocks", cuda_cores_and_clocks},
      {"dp_book_asymptote_and_group_sizes", dp_book_asymptote_and_group_sizes},
      {"su_all_gather_book_form", su_all_gather_book_form},
      {"chip_and_node_summaries", chip_and_node_summaries},
      {"tree_and_collective_summaries", tree_and_collective_summaries},
      {"dp_summary_against_the_book", dp_summary_against_the_book},
      {"curves_for_figures", curves_for_figures},
      {"quiz1_tables_answer_the_book", quiz1_tables_answer_the_book},
      {"node_and_tree_tables", node_and_tree_tables},
      {"collective_tables_answer_the_pop_quizzes", collective_tables_answer_the_pop_quizzes},
      {"roofline_tables_and_examples", roofline_tables_and_examples},
      {"layout_tables_and_replicas", layout_tables_and_replicas}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(gpu_suite()); }
