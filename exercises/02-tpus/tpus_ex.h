/* tpus_ex.h — exercises of chapter 2, "How to Think About TPUs": the contract.
 *
 * Write each function in tpus_ex.c from the chapter's formulas and its tables of chip numbers;
 * `scale grade tpus` grades them. Conventions as in chapter 1 (rooflines_ex.h): SI base units,
 * names end with their unit, counts are int64_t, NaN outside the Domain, never abort or print.
 */
#ifndef SCALE_EX_TPUS_H
#define SCALE_EX_TPUS_H

#include <stdint.h>

/** Time to stream every parameter of a model once from HBM when the parameters are split evenly
 * over 'n_chips' chips that read in parallel: a lower bound on the latency of one sampling step.
 *
 * Question: 200e9 parameters in bf16 on 32 TPU v4p chips with 1.23e12 byte/s of HBM bandwidth.
 * Units:  n_params [count], bytes_per_param [byte], n_chips [count], hbm [byte/s] -> [s].
 * Domain: n_params >= 0, bytes_per_param > 0, n_chips >= 1, hbm_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 2, Question 1 [bounding LLM latency].
 */
double ex_tpus_param_load_time_s(double n_params, double bytes_per_param, int64_t n_chips,
                                 double hbm_bytes_per_s);

/** Number of CPU hosts of a slice of 'n_chips' chips when each host drives 'chips_per_host'
 * (a partly filled host still counts as one).
 *
 * Question: a full TPU v5e pod (16x16, 8 chips per host) and a TPU v5p pod (16x20x28, 4 per host).
 * Units:  counts -> [hosts].
 * Domain: n_chips >= 1, chips_per_host >= 1; NaN otherwise.
 * Book:   ch. 2, Question 2 [TPU details].
 */
double ex_tpus_pod_hosts(int64_t n_chips, int64_t chips_per_host);

/** Number of TensorCores of a slice of 'n_chips' chips with 'cores_per_chip' each.
 *
 * Units:  counts -> [cores].
 * Domain: n_chips >= 1, cores_per_chip >= 1; NaN otherwise.
 * Book:   ch. 2, Question 2 (v5e: one core per chip; v5p: two, a "megacore").
 */
double ex_tpus_pod_cores(int64_t n_chips, int64_t cores_per_chip);

/** Peak rate of a slice of 'n_chips' chips.
 *
 * Units:  n_chips [count], flops_per_s_per_chip [FLOP/s] -> [FLOP/s].
 * Domain: n_chips >= 1, flops_per_s_per_chip > 0; NaN otherwise.
 * Book:   ch. 2, Question 2.
 */
double ex_tpus_pod_flops_per_s(int64_t n_chips, double flops_per_s_per_chip);

/** Total HBM of a slice of 'n_chips' chips.
 *
 * Units:  n_chips [count], hbm_bytes_per_chip [byte] -> [byte].
 * Domain: n_chips >= 1, hbm_bytes_per_chip > 0; NaN otherwise.
 * Book:   ch. 2, Question 2.
 */
double ex_tpus_pod_hbm_bytes(int64_t n_chips, double hbm_bytes_per_chip);

/** Smallest batch B for which a bf16 matmul x[B, D] * A[D, F] whose operands live in host DRAM
 * stays compute-bound over PCIe, in the limit B << D and F = 4D.
 *
 * Question: one TPU v6e (9.2e14 FLOP/s) with 1.6e10 byte/s of PCIe bandwidth.
 * Units:  flops_per_s [FLOP/s], pcie_bytes_per_s [byte/s] -> [tokens].
 * Domain: both > 0; NaN otherwise.
 * Book:   ch. 2, Question 3 [PCIe operational intensity].
 */
double ex_tpus_pcie_critical_batch(double flops_per_s, double pcie_bytes_per_s);

/** Exact batch size B at which a matmul x[B, D] * W[D, F] -> y[B, F], all arrays in elements of
 * 'bytes_per_element' bytes (read x and W, write y), turns compute-bound: the B where
 * 2BDF / ops_per_s equals bytes moved / bytes_per_s, without assuming B << D, F.
 *
 * Question: int8[B, 4096] * int8[4096, 16384] on a TPU v5e (3.94e14 int8 OP/s), reading from HBM
 * (8.2e11 byte/s), then from VMEM (22 times the HBM bandwidth).
 * Units:  d, f [elements], ops_per_s [OP/s], bytes_per_s [byte/s], bytes_per_element [byte]
 *         -> [tokens].
 * Domain: d, f >= 1, rates > 0, bytes_per_element > 0; NaN otherwise. INFINITY when no batch
 *         size makes it compute-bound (the weights alone already cost more than the FLOPs).
 * Book:   ch. 2, Question 4 [general matmul latency].
 */
double ex_tpus_critical_batch_exact(int64_t d, int64_t f, double ops_per_s, double bytes_per_s,
                                    double bytes_per_element);

/** Number of ICI hops between positions 'from' and 'to' along one axis of 'n' chips, taking the
 * shorter way round when the axis has a wraparound link ('wraparound' non-zero).
 *
 * Question: from TPU{0,0} to TPU{3,3} in a TPU v5e 4x4 slice (no wraparound below 16 chips).
 * Units:  positions and n [chips] -> [hops].
 * Domain: n >= 1, 0 <= from, to < n; NaN otherwise.
 * Book:   ch. 2 "TPU Networking", Question 5 [ICI bandwidth].
 */
double ex_tpus_axis_hops(int64_t from, int64_t to, int64_t n, int wraparound);

/** Time to send 'bytes' from one chip to another split evenly over 'n_ports' links of
 * 'link_bytes_per_s' each, along a path of 'hops' hops with 'hop_latency_s' each: the latency
 * of the first byte plus the bandwidth time.
 *
 * Question: bf16[8, 128, 8192] from TPU{0,0} to TPU{3,3} of a v5e 4x4 (2 ports of 4.5e10 byte/s,
 * 1 us per hop). With bytes = 0 it is the arrival time of the first byte.
 * Units:  bytes [byte], n_ports [count], link [byte/s], hops [count], latency [s] -> [s].
 * Domain: bytes >= 0, n_ports >= 1, link_bytes_per_s > 0, hops >= 0, hop_latency_s >= 0;
 *         NaN otherwise.
 * Book:   ch. 2, Question 5.
 */
double ex_tpus_transfer_time_s(double bytes, int64_t n_ports, double link_bytes_per_s,
                               int64_t hops, double hop_latency_s);

/** Time to copy an array held in host DRAM, sharded evenly over the hosts of a slice, into the
 * HBM of its 'n_chips' chips, each chip loading its own shard over its own PCIe link.
 *
 * Units:  array_bytes [byte], n_chips [count], pcie_bytes_per_s [byte/s, per chip] -> [s].
 * Domain: array_bytes >= 0, n_chips >= 1, pcie_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 2, Question 6 [pulling it all together], step 1 (PCIe load).
 */
double ex_tpus_pcie_load_time_s(double array_bytes, int64_t n_chips, double pcie_bytes_per_s);

/** Lower bound on the time to collect onto one chip an array sharded evenly over 'n_chips' chips,
 * when that chip receives over 'n_links' links of 'link_bytes_per_s' each (it already holds its
 * own shard).
 *
 * Units:  array_bytes [byte], counts, link_bytes_per_s [byte/s, one way] -> [s].
 * Domain: array_bytes >= 0, n_chips >= 1, n_links >= 1, link_bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 2, Question 6, step 2 (ICI copy).
 */
double ex_tpus_gather_to_one_time_s(double array_bytes, int64_t n_chips, int64_t n_links,
                                    double link_bytes_per_s);

/** Pipelined estimate of Question 6: a matrix int8[n, n] sharded over 'n_chips' chips' host
 * DRAM is loaded over PCIe (each chip its shard), gathered onto one chip over 'n_ici_links'
 * ICI links, streamed from that chip's HBM, and multiplied by a bf16[b, n] activation. The four
 * stages overlap, so the time is that of the slowest stage.
 *
 * Question: n = 128 * 1024, b = 8, a v5e 4x4 (16 chips, 1.6e10 byte/s PCIe per chip, 2 ICI links
 * of 4.5e10 byte/s into TPU{0,0}, 8.2e11 byte/s HBM, 1.97e14 bf16 FLOP/s).
 * Units:  n, b [elements], counts, bandwidths [byte/s], flops_per_s [FLOP/s] -> [s].
 * Domain: n, b, n_chips, n_ici_links >= 1; bandwidths and flops_per_s > 0; NaN otherwise.
 * Book:   ch. 2, Question 6 (the matrix stage counts n*n bytes; the activation, 2*b*n bytes,
 *         is added to the HBM stage).
 */
double ex_tpus_offload_matvec_time_s(int64_t n, int64_t b, int64_t n_chips,
                                     double pcie_bytes_per_s, int64_t n_ici_links,
                                     double ici_link_bytes_per_s, double hbm_bytes_per_s,
                                     double flops_per_s);

/** Peak rate of the MXUs of one TensorCore: a mxu_dim x mxu_dim systolic array does one
 * multiply-add per cell per cycle.
 *
 * Question: a TPU v5e core has 4 MXUs of 128x128 at 1.5 GHz; what is its bf16 peak? And a v6e
 * MXU (256x256)?
 * Units:  mxu_dim [cells], clock_hz [1/s], n_mxu [count] -> [FLOP/s].
 * Domain: mxu_dim >= 1, clock_hz > 0, n_mxu >= 1; NaN otherwise.
 * Book:   ch. 2 "What Is a TPU?" (about 5e13 FLOP/s per MXU on v5e) and Appendix B.
 */
double ex_tpus_mxu_flops_per_s(int64_t mxu_dim, double clock_hz, int64_t n_mxu);

/** Size a matrix dimension of 'n' occupies in the MXU: n rounded up to a multiple of mxu_dim.
 *
 * Units:  n, mxu_dim [elements] -> [elements].
 * Domain: n >= 1, mxu_dim >= 1; NaN otherwise.
 * Book:   ch. 2 "Key Takeaways": weights are padded to at least 128 (256 on v6e) per dimension.
 */
double ex_tpus_mxu_padded_dim(int64_t n, int64_t mxu_dim);

/** Critical arithmetic intensity of a matmul whose operands are read from VMEM, whose bandwidth
 * to the MXU is 'vmem_to_hbm_ratio' times the HBM bandwidth.
 *
 * Question: a v5e (1.97e14 FLOP/s, 8.2e11 byte/s HBM) with VMEM about 22 times faster.
 * Units:  flops_per_s [FLOP/s], hbm_bytes_per_s [byte/s], ratio [1] -> [FLOP/byte].
 * Domain: all > 0; NaN otherwise.
 * Book:   ch. 2 "VMEM and arithmetic intensity" (an intensity of 10-20 suffices).
 */
double ex_tpus_vmem_critical_intensity_flops_per_byte(double flops_per_s, double hbm_bytes_per_s,
                                                      double vmem_to_hbm_ratio);

#endif
