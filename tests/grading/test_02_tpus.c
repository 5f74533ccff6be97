/* test_02_tpus.c — grading of chapter 2's exercises (exercises/02-tpus/tpus_ex.h).
 *
 * One TCase per exercise id, each: the book's answers first (tolerance per case, the book's
 * rounding named), then the reference over a grid of inputs including domain edges.
 * Book: jax-ml/scaling-book, tpus.md ("How to Think About TPUs"), section "Worked Problems".
 */
#include "tpus_ex.h"

#include "grading.h"
#include "grading_ref_tpus.h"

static const double rates[] = {1.97e14, 8.2e11, 1.6e10, 4.5e10, 1.0, 0.0, -2.0, NAN};
static const double amounts[] = {0.0, 1.0, 2e11, 17179869184.0, -1.0, NAN};
static const int64_t counts[] = {1, 2, 4, 8, 16, 256, 8960, 0, -1};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(tpus_param_load_time_s) {
  /* Book ch. 2 Question 1: 200e9 bf16 parameters on 32 v4p chips, 12.5e9 bytes per chip at
   * 1.23e12 byte/s: "around 10ms". Exact 12.5e9 / 1.23e12 = 10.163 ms; tolerance 2% covers the
   * book's "around". */
  GRADE_BOOK(ex_tpus_param_load_time_s(200e9, 2.0, 32, 1.23e12), 10e-3, 2e-2, "s",
             "ch. 2 Question 1: around 10 ms (exact 10.16 ms)");
  GRADE_BOOK(ex_tpus_param_load_time_s(200e9, 2.0, 32, 1.23e12), 12.5e9 / 1.23e12, 1e-9, "s",
             "hand: ch. 2 Question 1, 12.5e9 bytes / 1.23e12 byte/s");
  static const double byte_sizes[] = {2.0, 1.0, 0.5, 0.0, -1.0};
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(byte_sizes); j++)
      for (size_t k = 0; k < N_OF(counts); k++)
        for (size_t r = 0; r < N_OF(rates); r++)
          GRADE_VS_REF(ex_tpus_param_load_time_s(amounts[i], byte_sizes[j], counts[k], rates[r]),
                       ref_tpus_param_load_time_s(amounts[i], byte_sizes[j], counts[k], rates[r]),
                       "s", "ex_tpus_param_load_time_s(%g, %g, %lld, %g)", amounts[i],
                       byte_sizes[j], (long long)counts[k], rates[r]);
}
END_TEST

START_TEST(tpus_pod_hosts) {
  /* Book ch. 2 Question 2: v5e 16*16 / 8 = 32 hosts; v5p 16*20*28 / 4 = 2240 hosts. Hand: a
   * partly filled host counts: 10 chips at 4 per host need 3 hosts. */
  GRADE_BOOK(ex_tpus_pod_hosts(16 * 16, 8), 32.0, 0.0, "hosts", "ch. 2 Question 2, v5e pod");
  GRADE_BOOK(ex_tpus_pod_hosts(16 * 20 * 28, 4), 2240.0, 0.0, "hosts", "ch. 2 Question 2, v5p");
  GRADE_BOOK(ex_tpus_pod_hosts(10, 4), 3.0, 0.0, "hosts", "hand: round up a partial host");
  for (size_t i = 0; i < N_OF(counts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_tpus_pod_hosts(counts[i], counts[j]),
                   ref_tpus_pod_hosts(counts[i], counts[j]), "hosts",
                   "ex_tpus_pod_hosts(%lld, %lld)", (long long)counts[i], (long long)counts[j]);
}
END_TEST

START_TEST(tpus_pod_cores) {
  /* Book ch. 2 Question 2: 256 TensorCores in a v5e pod, 8960 * 2 = 17,920 in a v5p pod. */
  GRADE_BOOK(ex_tpus_pod_cores(256, 1), 256.0, 0.0, "cores", "ch. 2 Question 2, v5e");
  GRADE_BOOK(ex_tpus_pod_cores(8960, 2), 17920.0, 0.0, "cores", "ch. 2 Question 2, v5p");
  for (size_t i = 0; i < N_OF(counts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      GRADE_VS_REF(ex_tpus_pod_cores(counts[i], counts[j]),
                   ref_tpus_pod_cores(counts[i], counts[j]), "cores",
                   "ex_tpus_pod_cores(%lld, %lld)", (long long)counts[i], (long long)counts[j]);
}
END_TEST

START_TEST(tpus_pod_flops_per_s) {
  /* Book ch. 2 Question 2: v5e "16*16*2e14 = 5.1e16" (exact with 2e14: 5.12e16; with the table's
   * 1.97e14: 5.0432e16); v5p "8960 * 4.59e14 = 4.1e18" (exact 4.1126e18). The older edition
   * (0819a7d) used 4.5e14 and printed 4e18. The book's rounded products are tested at 1%, the
   * exact products at 1e-12. */
  GRADE_BOOK(ex_tpus_pod_flops_per_s(256, 2e14), 5.1e16, 1e-2, "FLOP/s",
             "ch. 2 Question 2: 5.1e16");
  GRADE_BOOK(ex_tpus_pod_flops_per_s(8960, 4.59e14), 4.1e18, 1e-2, "FLOP/s",
             "ch. 2 Question 2: 4.1e18");
  GRADE_BOOK(ex_tpus_pod_flops_per_s(256, 1.97e14), 5.0432e16, 1e-12, "FLOP/s",
             "hand: 256 * 1.97e14 (ch. 2 table)");
  GRADE_BOOK(ex_tpus_pod_flops_per_s(8960, 4.59e14), 4.11264e18, 1e-12, "FLOP/s",
             "hand: 8960 * 4.59e14 (ch. 2 table)");
  for (size_t i = 0; i < N_OF(counts); i++)
    for (size_t j = 0; j < N_OF(rates); j++)
      GRADE_VS_REF(ex_tpus_pod_flops_per_s(counts[i], rates[j]),
                   ref_tpus_pod_flops_per_s(counts[i], rates[j]), "FLOP/s",
                   "ex_tpus_pod_flops_per_s(%lld, %g)", (long long)counts[i], rates[j]);
}
END_TEST

START_TEST(tpus_pod_hbm_bytes) {
  /* Book ch. 2 Question 2: "256 * 16 = 4TB" (exact 256 * 16e9 = 4.096e12, the book drops the
   * 2.4%); "8960 * 96 = 860TB" (exact 8.6016e14). */
  GRADE_BOOK(ex_tpus_pod_hbm_bytes(256, 16e9), 4.096e12, 1e-12, "byte",
             "ch. 2 Question 2, v5e: 256 * 16 GB (book rounds to 4 TB)");
  GRADE_BOOK(ex_tpus_pod_hbm_bytes(8960, 96e9), 860e12, 1e-3, "byte",
             "ch. 2 Question 2, v5p: 860 TB");
  for (size_t i = 0; i < N_OF(counts); i++)
    for (size_t j = 0; j < N_OF(amounts); j++)
      GRADE_VS_REF(ex_tpus_pod_hbm_bytes(counts[i], amounts[j]),
                   ref_tpus_pod_hbm_bytes(counts[i], amounts[j]), "byte",
                   "ex_tpus_pod_hbm_bytes(%lld, %g)", (long long)counts[i], amounts[j]);
}
END_TEST

START_TEST(tpus_pcie_critical_batch) {
  /* Book ch. 2 Question 3: B > 9.2e14 / 1.6e10 "≃ 57,500" (exact 57,500). The older edition
   * (0819a7d) assumed 1.5e10 byte/s of PCIe and printed 61,000. */
  GRADE_BOOK(ex_tpus_pcie_critical_batch(9.2e14, 1.6e10), 57500.0, 1e-9, "tokens",
             "ch. 2 Question 3: about 57,500");
  for (size_t i = 0; i < N_OF(rates); i++)
    for (size_t j = 0; j < N_OF(rates); j++)
      GRADE_VS_REF(ex_tpus_pcie_critical_batch(rates[i], rates[j]),
                   ref_tpus_pcie_critical_batch(rates[i], rates[j]), "tokens",
                   "ex_tpus_pcie_critical_batch(%g, %g)", rates[i], rates[j]);
}
END_TEST

START_TEST(tpus_critical_batch_exact) {
  /* Book ch. 2 Question 4: int8[B, 4096] * int8[4096, 16384] on a v5e. The book rounds the
   * bytes to 6.7e7 + 2e4 B and the FLOPs to 1.3e8 B and prints "B > 267" (the older edition,
   * 0819a7d, with 8.1e11: 271). Exact arithmetic (16384 * 4096 = 67108864 bytes of weights,
   * 20480 B bytes of activations, 134217728 B OPs) gives
   * B = 67108864 / 8.2e11 / (134217728 / 3.94e14 - 20480 / 8.2e11) = 259.251: we test the exact
   * value. From VMEM (22 * 8.2e11 = 1.80e13 byte/s) the book prints "B > 11"; exact 10.9567.
   * Hand: Question 3's PCIe case with D = 8192, F = 4D in bf16 is never compute-bound
   * (2DF / C < 2 (D + F) / W), so INFINITY. */
  GRADE_BOOK(ex_tpus_critical_batch_exact(4096, 16384, 3.94e14, 8.2e11, 1.0), 259.251334, 1e-6,
             "tokens", "ch. 2 Question 4 part 1, exact (book prints 267 from rounded sizes)");
  GRADE_BOOK(ex_tpus_critical_batch_exact(4096, 16384, 3.94e14, 22.0 * 8.2e11, 1.0), 10.956691,
             1e-6, "tokens", "ch. 2 Question 4 part 2, exact (book prints 11)");
  GRADE_BOOK(ex_tpus_critical_batch_exact(8192, 32768, 9.2e14, 1.6e10, 2.0), INFINITY, 0.0,
             "tokens", "hand: ch. 2 Question 3 sizes over PCIe never become compute-bound");
  static const int64_t ds[] = {1, 128, 4096, 16384, 0};
  static const double sizes[] = {1.0, 2.0, 0.0};
  for (size_t i = 0; i < N_OF(ds); i++)
    for (size_t j = 0; j < N_OF(ds); j++)
      for (size_t k = 0; k < N_OF(rates); k++)
        for (size_t s = 0; s < N_OF(sizes); s++)
          GRADE_VS_REF(ex_tpus_critical_batch_exact(ds[i], ds[j], 3.94e14, rates[k], sizes[s]),
                       ref_tpus_critical_batch_exact(ds[i], ds[j], 3.94e14, rates[k], sizes[s]),
                       "tokens", "ex_tpus_critical_batch_exact(%lld, %lld, 3.94e14, %g, %g)",
                       (long long)ds[i], (long long)ds[j], rates[k], sizes[s]);
}
END_TEST

START_TEST(tpus_axis_hops) {
  /* Book ch. 2 Question 5: TPU{0,0} to TPU{3,3} on a v5e 4x4 without wraparound: 3 hops per axis,
   * "six hops". Hand: with wraparound on a 16-chip axis, 0 -> 15 is 1 hop and 0 -> 8 is 8. */
  GRADE_BOOK(ex_tpus_axis_hops(0, 3, 4, 0) + ex_tpus_axis_hops(0, 3, 4, 0), 6.0, 0.0, "hops",
             "ch. 2 Question 5: six hops");
  GRADE_BOOK(ex_tpus_axis_hops(0, 15, 16, 1), 1.0, 0.0, "hops", "hand: wraparound on 16 chips");
  GRADE_BOOK(ex_tpus_axis_hops(0, 8, 16, 1), 8.0, 0.0, "hops", "hand: half way round");
  static const int64_t pos[] = {0, 1, 3, 4, 15, -1};
  static const int64_t ns[] = {1, 4, 5, 16, 0};
  for (size_t i = 0; i < N_OF(pos); i++)
    for (size_t j = 0; j < N_OF(pos); j++)
      for (size_t k = 0; k < N_OF(ns); k++)
        for (int wrap = 0; wrap <= 1; wrap++)
          GRADE_VS_REF(ex_tpus_axis_hops(pos[i], pos[j], ns[k], wrap),
                       ref_tpus_axis_hops(pos[i], pos[j], ns[k], wrap), "hops",
                       "ex_tpus_axis_hops(%lld, %lld, %lld, %d)", (long long)pos[i],
                       (long long)pos[j], (long long)ns[k], wrap);
}
END_TEST

START_TEST(tpus_transfer_time_s) {
  /* Book ch. 2 Question 5: bf16[8, 128, 8192] = 16777216 bytes over 2 ports of 4.5e10 byte/s
   * plus 6 hops of 1 us. The book rounds the bytes to 1.7e7 and prints "1.7e7 / 9e10 = 188us"
   * for the whole transfer, leaving out the 6 us of hops (the older edition, 0819a7d, added them:
   * "194us"); exact: 16777216 / 9e10 = 186.41 us, total with the hops 192.41 us (tested exact).
   * The first byte arrives after the 6 hops: "6us". */
  GRADE_BOOK(ex_tpus_transfer_time_s(16777216.0, 2, 4.5e10, 6, 1e-6), 16777216.0 / 9e10 + 6e-6,
             1e-9, "s", "ch. 2 Question 5, exact with the hops (book prints 188 us without them)");
  GRADE_BOOK(ex_tpus_transfer_time_s(0.0, 2, 4.5e10, 6, 1e-6), 6e-6, 1e-9, "s",
             "ch. 2 Question 5: first byte after 6 us");
  static const int64_t hops[] = {0, 1, 6, -1};
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t k = 0; k < N_OF(rates); k++)
        for (size_t h = 0; h < N_OF(hops); h++)
          GRADE_VS_REF(ex_tpus_transfer_time_s(amounts[i], counts[j], rates[k], hops[h], 1e-6),
                       ref_tpus_transfer_time_s(amounts[i], counts[j], rates[k], hops[h], 1e-6),
                       "s", "ex_tpus_transfer_time_s(%g, %lld, %g, %lld, 1e-6)", amounts[i],
                       (long long)counts[j], rates[k], (long long)hops[h]);
  GRADE_VS_REF(ex_tpus_transfer_time_s(1e6, 1, 4.5e10, 2, -1e-6),
               ref_tpus_transfer_time_s(1e6, 1, 4.5e10, 2, -1e-6), "s",
               "ex_tpus_transfer_time_s(1e6, 1, 4.5e10, 2, -1e-6)");
}
END_TEST

START_TEST(tpus_pcie_load_time_s) {
  /* Book ch. 2 Question 6 step 1: "16GB over 16 PCIe links" of 1.6e10 byte/s: "about 63ms"
   * (16e9 / 16 / 1.6e10 = 62.5 ms, tested at 2%). The older edition (0819a7d) used 1.5e10 and
   * printed 66 ms. The array int8[128 * 1024, 128 * 1024] is exactly 2^34 = 17179869184 bytes,
   * not 16e9: exact 67.11 ms. */
  GRADE_BOOK(ex_tpus_pcie_load_time_s(16e9, 16, 1.6e10), 63e-3, 2e-2, "s",
             "ch. 2 Question 6 step 1: about 63 ms with 16e9 bytes");
  GRADE_BOOK(ex_tpus_pcie_load_time_s(17179869184.0, 16, 1.6e10), 17179869184.0 / 16 / 1.6e10, 1e-9,
             "s", "hand: ch. 2 Question 6 step 1 with the exact 2^34 bytes");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t k = 0; k < N_OF(rates); k++)
        GRADE_VS_REF(ex_tpus_pcie_load_time_s(amounts[i], counts[j], rates[k]),
                     ref_tpus_pcie_load_time_s(amounts[i], counts[j], rates[k]), "s",
                     "ex_tpus_pcie_load_time_s(%g, %lld, %g)", amounts[i], (long long)counts[j],
                     rates[k]);
}
END_TEST

START_TEST(tpus_gather_to_one_time_s) {
  /* Book ch. 2 Question 6 step 2: TPU{0,0} receives 15 of 16 shards over 2 links of 4.5e10:
   * "15e9 / (4.5e10 * 2) = 167ms" (with 16e9 bytes). Exact for 2^34 bytes: 178.96 ms. */
  GRADE_BOOK(ex_tpus_gather_to_one_time_s(16e9, 16, 2, 4.5e10), 167e-3, 2e-3, "s",
             "ch. 2 Question 6 step 2: 167 ms with 16e9 bytes");
  GRADE_BOOK(ex_tpus_gather_to_one_time_s(17179869184.0, 16, 2, 4.5e10),
             17179869184.0 * 15.0 / 16.0 / 9e10, 1e-9, "s",
             "hand: ch. 2 Question 6 step 2 with the exact 2^34 bytes");
  for (size_t i = 0; i < N_OF(amounts); i++)
    for (size_t j = 0; j < N_OF(counts); j++)
      for (size_t k = 0; k < N_OF(rates); k++)
        GRADE_VS_REF(ex_tpus_gather_to_one_time_s(amounts[i], counts[j], 2, rates[k]),
                     ref_tpus_gather_to_one_time_s(amounts[i], counts[j], 2, rates[k]), "s",
                     "ex_tpus_gather_to_one_time_s(%g, %lld, 2, %g)", amounts[i],
                     (long long)counts[j], rates[k]);
  for (size_t j = 0; j < N_OF(counts); j++)
    GRADE_VS_REF(ex_tpus_gather_to_one_time_s(1e9, 16, counts[j], 4.5e10),
                 ref_tpus_gather_to_one_time_s(1e9, 16, counts[j], 4.5e10), "s",
                 "ex_tpus_gather_to_one_time_s(1e9, 16, %lld, 4.5e10)", (long long)counts[j]);
}
END_TEST

START_TEST(tpus_offload_matvec_time_s) {
  /* Book ch. 2 Question 6: the stages take (exact, 2^34-byte matrix) PCIe 67.11 ms, ICI
   * 178.96 ms, HBM (2^34 + 2 * 8 * 131072) / 8.2e11 = 20.95 ms, FLOPs 2 * 8 * 2^34 / 1.97e14 =
   * 1.40 ms; the pipeline is bound by the ICI gather: 178.96 ms. The book (with 16e9 bytes)
   * prints 63, 167, 20 and 1.4 ms and "at least 167ms, likely closer to 200ms" (the older
   * edition, 0819a7d: 66, 167, 19, 1.3 ms, "about 150-200ms"). */
  GRADE_BOOK(ex_tpus_offload_matvec_time_s(131072, 8, 16, 1.6e10, 2, 4.5e10, 8.2e11, 1.97e14),
             17179869184.0 * 15.0 / 16.0 / 9e10, 1e-9, "s",
             "ch. 2 Question 6, exact (book: at least 167 ms)");
  /* Hand: a faster network (1e13 byte/s links) leaves PCIe as the bottleneck: 67.11 ms. */
  GRADE_BOOK(ex_tpus_offload_matvec_time_s(131072, 8, 16, 1.6e10, 2, 1e13, 8.2e11, 1.97e14),
             17179869184.0 / 16.0 / 1.6e10, 1e-9, "s", "hand: PCIe-bound variant");
  /* Hand: a huge batch makes it compute-bound: b = 1e6 -> 2 * 1e6 * 2^34 / 1.97e14 = 174.4 s. */
  GRADE_BOOK(ex_tpus_offload_matvec_time_s(131072, 1000000, 16, 1.6e10, 2, 4.5e10, 8.2e11, 1.97e14),
             2.0 * 1e6 * 17179869184.0 / 1.97e14, 1e-9, "s", "hand: compute-bound variant");
  static const int64_t ns[] = {1, 128, 131072, 0};
  static const int64_t bs[] = {1, 8, 4096, -1};
  for (size_t i = 0; i < N_OF(ns); i++)
    for (size_t j = 0; j < N_OF(bs); j++)
      for (size_t k = 0; k < N_OF(counts); k++)
        for (size_t r = 0; r < N_OF(rates); r++)
          GRADE_VS_REF(
              ex_tpus_offload_matvec_time_s(ns[i], bs[j], counts[k], rates[r], 2, 4.5e10, 8.2e11,
                                            1.97e14),
              ref_tpus_offload_matvec_time_s(ns[i], bs[j], counts[k], rates[r], 2, 4.5e10, 8.2e11,
                                             1.97e14),
              "s",
              "ex_tpus_offload_matvec_time_s(%lld, %lld, %lld, %g, 2, 4.5e10, 8.2e11, 1.97e14)",
              (long long)ns[i], (long long)bs[j], (long long)counts[k], rates[r]);
  for (size_t r = 0; r < N_OF(rates); r++) {
    GRADE_VS_REF(ex_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 0, rates[r], 8.2e11, 1.97e14),
                 ref_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 0, rates[r], 8.2e11, 1.97e14),
                 "s", "ex_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 0, %g, 8.2e11, 1.97e14)",
                 rates[r]);
    GRADE_VS_REF(ex_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 2, 4.5e10, rates[r], rates[r]),
                 ref_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 2, 4.5e10, rates[r], rates[r]),
                 "s", "ex_tpus_offload_matvec_time_s(4096, 8, 16, 1.6e10, 2, 4.5e10, %g, %g)",
                 rates[r], rates[r]);
  }
}
END_TEST

START_TEST(tpus_mxu_flops_per_s) {
  /* Book ch. 2 "What Is a TPU?": about 5e13 bf16 FLOP/s per 128x128 MXU at 1.5 GHz (exact
   * 2 * 128^2 * 1.5e9 = 4.9152e13, 2% from "about 5e13"); 4 MXUs give the table's 1.97e14
   * (exact 1.96608e14, 0.2%). A 256x256 MXU (v6e) does 4x the FLOPs per cycle. */
  GRADE_BOOK(ex_tpus_mxu_flops_per_s(128, 1.5e9, 1), 5e13, 2e-2, "FLOP/s",
             "ch. 2: about 5e13 per MXU");
  GRADE_BOOK(ex_tpus_mxu_flops_per_s(128, 1.5e9, 4), 1.97e14, 3e-3, "FLOP/s",
             "ch. 2 table: v5e 1.97e14");
  GRADE_BOOK(ex_tpus_mxu_flops_per_s(256, 1.5e9, 1) / ex_tpus_mxu_flops_per_s(128, 1.5e9, 1), 4.0,
             1e-12, "", "ch. 2: a 256x256 MXU does 4x the FLOPs per cycle");
  static const int64_t dims[] = {1, 128, 256, 0, -128};
  static const double clocks[] = {1.5e9, 9.4e8, 0.0, -1.0, NAN};
  for (size_t i = 0; i < N_OF(dims); i++)
    for (size_t j = 0; j < N_OF(clocks); j++)
      for (size_t k = 0; k < N_OF(counts); k++)
        GRADE_VS_REF(ex_tpus_mxu_flops_per_s(dims[i], clocks[j], counts[k]),
                     ref_tpus_mxu_flops_per_s(dims[i], clocks[j], counts[k]), "FLOP/s",
                     "ex_tpus_mxu_flops_per_s(%lld, %g, %lld)", (long long)dims[i], clocks[j],
                     (long long)counts[k]);
}
END_TEST

START_TEST(tpus_mxu_padded_dim) {
  /* Book ch. 2 "Key Takeaways": dimensions are padded to 128 (256 on v6e). Hand: 100 -> 128,
   * 129 -> 256, 128 -> 128, 300 on a v6e -> 512. */
  GRADE_BOOK(ex_tpus_mxu_padded_dim(100, 128), 128.0, 0.0, "elements", "ch. 2: padded to 128");
  GRADE_BOOK(ex_tpus_mxu_padded_dim(129, 128), 256.0, 0.0, "elements", "hand: next multiple");
  GRADE_BOOK(ex_tpus_mxu_padded_dim(128, 128), 128.0, 0.0, "elements", "hand: already full");
  GRADE_BOOK(ex_tpus_mxu_padded_dim(300, 256), 512.0, 0.0, "elements", "hand: v6e 256x256 MXU");
  static const int64_t ns[] = {1, 127, 128, 129, 255, 256, 257, 8192, 0, -5};
  static const int64_t mxus[] = {1, 8, 128, 256, 0};
  for (size_t i = 0; i < N_OF(ns); i++)
    for (size_t j = 0; j < N_OF(mxus); j++)
      GRADE_VS_REF(ex_tpus_mxu_padded_dim(ns[i], mxus[j]), ref_tpus_mxu_padded_dim(ns[i], mxus[j]),
                   "elements", "ex_tpus_mxu_padded_dim(%lld, %lld)", (long long)ns[i],
                   (long long)mxus[j]);
}
END_TEST

START_TEST(tpus_vmem_critical_intensity_flops_per_byte) {
  /* Book ch. 2 "VMEM and arithmetic intensity": with VMEM about 22x HBM, an intensity "of only
   * 10-20" suffices. Hand: 1.97e14 / (22 * 8.2e11) = 10.9202. */
  GRADE_BOOK(ex_tpus_vmem_critical_intensity_flops_per_byte(1.97e14, 8.2e11, 22.0),
             1.97e14 / (22.0 * 8.2e11), 1e-9, "FLOP/byte",
             "hand: ch. 2 VMEM, 1.97e14 / (22 * 8.2e11) (book: 10-20)");
  static const double ratios[] = {1.0, 22.0, 0.5, 0.0, -22.0, NAN};
  for (size_t i = 0; i < N_OF(rates); i++)
    for (size_t j = 0; j < N_OF(rates); j++)
      for (size_t k = 0; k < N_OF(ratios); k++)
        GRADE_VS_REF(ex_tpus_vmem_critical_intensity_flops_per_byte(rates[i], rates[j], ratios[k]),
                     ref_tpus_vmem_critical_intensity_flops_per_byte(rates[i], rates[j], ratios[k]),
                     "FLOP/byte", "ex_tpus_vmem_critical_intensity_flops_per_byte(%g, %g, %g)",
                     rates[i], rates[j], ratios[k]);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("02-tpus");
  grade_add(suite, "tpus.param_load_time_s", tpus_param_load_time_s);
  grade_add(suite, "tpus.pod_hosts", tpus_pod_hosts);
  grade_add(suite, "tpus.pod_cores", tpus_pod_cores);
  grade_add(suite, "tpus.pod_flops_per_s", tpus_pod_flops_per_s);
  grade_add(suite, "tpus.pod_hbm_bytes", tpus_pod_hbm_bytes);
  grade_add(suite, "tpus.pcie_critical_batch", tpus_pcie_critical_batch);
  grade_add(suite, "tpus.critical_batch_exact", tpus_critical_batch_exact);
  grade_add(suite, "tpus.axis_hops", tpus_axis_hops);
  grade_add(suite, "tpus.transfer_time_s", tpus_transfer_time_s);
  grade_add(suite, "tpus.pcie_load_time_s", tpus_pcie_load_time_s);
  grade_add(suite, "tpus.gather_to_one_time_s", tpus_gather_to_one_time_s);
  grade_add(suite, "tpus.offload_matvec_time_s", tpus_offload_matvec_time_s);
  grade_add(suite, "tpus.mxu_flops_per_s", tpus_mxu_flops_per_s);
  grade_add(suite, "tpus.mxu_padded_dim", tpus_mxu_padded_dim);
  grade_add(suite, "tpus.vmem_critical_intensity_flops_per_byte",
            tpus_vmem_critical_intensity_flops_per_byte);
  return grade_run(suite);
}
