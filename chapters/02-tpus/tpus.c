/* tpus.c — chapter 2, "How to Think About TPUs", as a program.
 *
 * Prints the specs and derived totals of every TPU in hardware/ (pods, hosts, cores, FLOP/s,
 * HBM, the bandwidth ladder HBM > ICI > PCIe > DCN), the MXU arithmetic, VMEM's critical
 * intensity, and the chapter's six worked problems. Every number the chapter text cites is
 * emitted with --values; --figures DIR draws
 *   q4-hbm-vs-vmem.svg   time of an int8 matmul vs batch, weights streamed from HBM or VMEM
 *   bandwidth-ladder.svg  time to move 1 GB over each channel of every TPU
 * and the diagrams slice-v5e-4x4.svg and slice-v5p-4x4.svg (a slice without and with wraparound).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chapter.h"

#define N_CURVE 121

/** The MXU is a square systolic array of this many cells per side (ch. 2: 128 x 128 on every
 * generation before Trillium; v6e's is 256 x 256). */
#define MXU_DIM 128.0
#define MXU_DIM_V6E 256.0

/* [listing:mxu] */
/** Peak rate of one systolic array: each of its dim x dim cells does one multiply-add
 * (2 FLOPs) per clock cycle. */
static double mxu_flops_per_s(double dim, double clock_hz) { return 2.0 * dim * dim * clock_hz; }

/** A dimension of n elements occupies whole MXU tiles: n rounded up to a multiple of dim. */
static double mxu_padded(double n, double dim) { return ceil(n / dim) * dim; }
/* [/listing:mxu] */

/* ---- sections ------------------------------------------------------------------------------ */

static void section_specs(chapter *ch, const chapter_chips *tpus) {
  chapter_heading(ch, "Specs and pod totals of every TPU");
  for (int i = 0; i < tpus->n; i++) {
    const scale_chip *c = &tpus->chip[i];
    scale_slice_totals pod = scale_roofline_slice_totals(c, NULL, SCALE_DTYPE_BF16);
    chapter_say(ch, "%s:", c->display_name);
    struct {
      const char *what, *label, *unit;
      double v;
      scale_fmt fmt;
    } rows[] = {
        {"bf16_flops_per_s", "bf16 peak", "FLOP/s", scale_chip_flops_per_s(c, SCALE_DTYPE_BF16),
         SCALE_FMT_SCI},
        {"int8_flops_per_s", "int8 peak", "OP/s", scale_chip_flops_per_s(c, SCALE_DTYPE_INT8),
         SCALE_FMT_SCI},
        {"hbm_bytes", "HBM capacity", "B", c->hbm_bytes, SCALE_FMT_SI},
        {"hbm_bytes_per_s", "HBM bandwidth", "B/s", c->hbm_bytes_per_s, SCALE_FMT_SCI},
        {"ici_bytes_per_s", "ICI link, one way", "B/s",
         scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI), SCALE_FMT_SCI},
        {"ici_bidi_bytes_per_s", "ICI link, both ways", "B/s",
         scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI_BIDI), SCALE_FMT_SCI},
        {"pcie_bytes_per_s", "PCIe per chip", "B/s", c->pcie_bytes_per_s, SCALE_FMT_SCI},
        {"dcn_bytes_per_s", "DCN per chip", "B/s", c->dcn_bytes_per_s, SCALE_FMT_SCI},
        {"ici_axes", "torus dimensions", "", c->ici_n_axes, SCALE_FMT_PLAIN},
        {"cores", "TensorCores per chip", "", c->n_cores, SCALE_FMT_PLAIN},
        {"host_chips", "chips per host", "", c->host_shape[0] * c->host_shape[1] * c->host_shape[2],
         SCALE_FMT_PLAIN},
        {"pod_chips", "chips per pod", "", pod.n_chips, SCALE_FMT_PLAIN},
        {"pod_hosts", "hosts per pod", "", pod.n_hosts, SCALE_FMT_PLAIN},
        {"pod_cores", "TensorCores per pod", "", pod.n_cores, SCALE_FMT_PLAIN},
        {"pod_flops_per_s", "pod bf16 peak", "FLOP/s", pod.flops_per_s, SCALE_FMT_SCI},
        {"pod_hbm_bytes", "pod HBM", "B", pod.hbm_bytes, SCALE_FMT_SI},
        {"hbm_over_ici", "HBM / one ICI link", "",
         c->hbm_bytes_per_s / scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI),
         SCALE_FMT_PLAIN},
        {"ici_over_pcie", "one ICI link / PCIe", "",
         scale_roofline_channel_bytes_per_s(c, SCALE_CHANNEL_ICI) / c->pcie_bytes_per_s,
         SCALE_FMT_PLAIN},
        {"pcie_over_dcn", "PCIe / DCN", "", c->pcie_bytes_per_s / c->dcn_bytes_per_s,
         SCALE_FMT_PLAIN},
        {"ordered", "HBM > ICI > PCIe > DCN (1 = yes)", "",
         scale_roofline_bandwidth_ordered(c) ? 1.0 : 0.0, SCALE_FMT_PLAIN},
        {"hbm_intensity", "critical intensity, HBM", "FLOP/byte",
         scale_chip_hbm_intensity(c, SCALE_DTYPE_BF16), SCALE_FMT_PLAIN},
        {"vmem_intensity", "critical intensity, VMEM", "FLOP/byte",
         scale_chip_hbm_intensity(c, SCALE_DTYPE_BF16) / SCALE_ROOFLINE_VMEM_OVER_HBM,
         SCALE_FMT_PLAIN},
        {"ici_intensity", "critical intensity, ICI (bidi)", "FLOP/byte",
         scale_chip_ici_intensity(c, SCALE_DTYPE_BF16), SCALE_FMT_PLAIN},
    };
    /* A quantity the chip's data file lacks prints n/a and is not emitted. */
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      chapter_stem_value_opt(ch, c->name, rows[r].what, rows[r].label, rows[r].v, rows[r].unit,
                             rows[r].fmt);
    }
  }
}

static void section_mxu(chapter *ch, const chapter_chips *tpus) {
  chapter_heading(ch, "The MXU: a systolic array");
  chapter_value(ch, "mxu.dim", "MXU side (v5e and earlier)", MXU_DIM, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mxu.dim_v6e", "MXU side (v6e)", MXU_DIM_V6E, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mxu.cells", "multiply-add cells", MXU_DIM * MXU_DIM, "", SCALE_FMT_PLAIN);
  for (int i = 0; i < tpus->n; i++) {
    const scale_chip *c = &tpus->chip[i];
    if (!isfinite(c->clock_hz) || !isfinite(c->n_matmul_units)) continue;
    double dim = strcmp(c->name, "tpu-v6e") == 0 ? MXU_DIM_V6E : MXU_DIM;
    double one = mxu_flops_per_s(dim, c->clock_hz);
    chapter_stem_value(ch, c->name, "clock_hz", "clock", c->clock_hz, "Hz", SCALE_FMT_SI);
    chapter_stem_value(ch, c->name, "mxus", "MXUs per core", c->n_matmul_units, "",
                       SCALE_FMT_PLAIN);
    chapter_stem_value(ch, c->name, "mxu_flops_per_s", "one MXU", one, "FLOP/s", SCALE_FMT_SCI);
    chapter_stem_value(ch, c->name, "mxu_chip_flops_per_s", "all MXUs of the chip",
                       one * c->n_matmul_units * c->n_cores, "FLOP/s", SCALE_FMT_SCI);
  }
  chapter_value(ch, "mxu.pad_n", "a dimension of", 200.0, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mxu.pad_to", "occupies", mxu_padded(200.0, MXU_DIM), "", SCALE_FMT_PLAIN);
  chapter_value(ch, "mxu.pad_util", "useful fraction", 200.0 / mxu_padded(200.0, MXU_DIM), "",
                SCALE_FMT_PERCENT);
  chapter_value(ch, "mxu.pad_to_v6e", "occupies on v6e", mxu_padded(200.0, MXU_DIM_V6E), "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "vmem.ratio", "VMEM / HBM bandwidth", SCALE_ROOFLINE_VMEM_OVER_HBM, "",
                SCALE_FMT_PLAIN);
  /* The VPU of a v5p core (Appendix A pop quiz): an (8, 128) grid of lanes, 4 ALUs each. */
  for (int i = 0; i < tpus->n; i++) {
    const scale_chip *c = &tpus->chip[i];
    if (strcmp(c->name, "tpu-v5p") != 0) continue;
    double vpu = c->vector_flops_per_s / c->n_cores;
    double mxu = scale_chip_flops_per_s(c, SCALE_DTYPE_BF16) / c->n_cores;
    chapter_value(ch, "vpu.v5p_core_flops_per_s", "VPU of one v5p core", vpu, "FLOP/s",
                  SCALE_FMT_SCI);
    chapter_value(ch, "vpu.v5p_mxu_ratio", "MXUs over VPU, one v5p core", mxu / vpu, "",
                  SCALE_FMT_PLAIN);
  }
}

/* ---- problems ------------------------------------------------------------------------------ */

static void q1(chapter *ch, const scale_chip *v4p) {
  chapter_heading(ch, "Q1: latency floor of sampling 200e9 bf16 parameters on 32 TPU v4p");
  double n_params = 200e9, n_chips = 32.0;
  chapter_value(ch, "q1.params", "parameters", n_params, "", SCALE_FMT_SCI);
  chapter_value(ch, "q1.chips", "chips", n_chips, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "q1.bytes_per_chip", "bytes per chip",
                n_params * scale_dtype_bytes(SCALE_DTYPE_BF16) / n_chips, "B", SCALE_FMT_SI);
  chapter_value(ch, "q1.time_s", "time to stream them once",
                scale_roofline_param_load_s(v4p, n_params, SCALE_DTYPE_BF16, n_chips), "s",
                SCALE_FMT_TIME);
}

static void q3(chapter *ch, const scale_chip *v6e, double pcie_book) {
  chapter_heading(ch, "Q3: a matmul fed from host DRAM over PCIe (one TPU v6e)");
  double c = scale_chip_flops_per_s(v6e, SCALE_DTYPE_BF16);
  chapter_value(ch, "q3.pcie_book", "PCIe the question assumes", pcie_book, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "q3.critical_batch", "B > C / W_pcie (B << D, F = 4D)", c / pcie_book, "tokens",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "q3.critical_batch_datafile", "same with the data file's PCIe",
                c / v6e->pcie_bytes_per_s, "tokens", SCALE_FMT_PLAIN);
}

/* [listing:q4] */
/** Q4: int8[B, 4096] . int8[4096, 16384] on one chip, its weights streamed either from HBM or
 * from VMEM (about 22x faster): the exact batch where the memory time stops dominating. */
static double q4_critical_batch(const scale_chip *chip, double bytes_per_s) {
  scale_matmul mm = scale_matmul_bf16(1.0, 4096.0, 16384.0);
  mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_INT8;
  return scale_roofline_matmul_critical_batch(&mm, scale_chip_flops_per_s(chip, SCALE_DTYPE_INT8),
                                              bytes_per_s);
}
/* [/listing:q4] */

static void q4(chapter *ch, const scale_chip *v5e) {
  chapter_heading(ch, "Q4: int8[B, 4096] x int8[4096, 16384] on a TPU v5e");
  scale_matmul mm = scale_matmul_bf16(1.0, 4096.0, 16384.0);
  mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_INT8;
  chapter_value(ch, "q4.flops_per_token", "OPs per unit of B, 2DF",
                scale_roofline_matmul_flops(1.0, mm.d, mm.f), "OP", SCALE_FMT_SCI);
  chapter_value(ch, "q4.weight_bytes", "weight bytes DF", mm.d * mm.f, "B", SCALE_FMT_SI);
  chapter_value(ch, "q4.bytes_per_token", "activation bytes per unit of B, D + F", mm.d + mm.f, "B",
                SCALE_FMT_PLAIN);
  double hbm = v5e->hbm_bytes_per_s;
  chapter_value(ch, "q4.hbm_critical_batch", "from HBM: B >", q4_critical_batch(v5e, hbm), "tokens",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "q4.approx_critical_batch", "the B << D, F rule C/W",
                scale_chip_hbm_intensity(v5e, SCALE_DTYPE_INT8) / 2.0, "tokens", SCALE_FMT_PLAIN);
  chapter_value(ch, "q4.vmem_bytes_per_s", "VMEM bandwidth (22 x HBM)",
                hbm * SCALE_ROOFLINE_VMEM_OVER_HBM, "B/s", SCALE_FMT_SI);
  chapter_value(ch, "q4.vmem_critical_batch", "from VMEM: B >",
                q4_critical_batch(v5e, hbm * SCALE_ROOFLINE_VMEM_OVER_HBM), "tokens",
                SCALE_FMT_PLAIN);
}

static void q5(chapter *ch, const scale_chip *v5e) {
  chapter_heading(ch, "Q5: bf16[8, 128, 8192] from TPU{0,0} to TPU{3,3} of a v5e 4x4");
  double sizes[2] = {4.0, 4.0}, from[2] = {0.0, 0.0}, to[2] = {3.0, 3.0};
  scale_group g;
  scale_diag diag = {0};
  if (scale_group_from_chip(v5e, sizes, 2, SCALE_WRAP_AUTO, &g, &diag) != SCALE_OK) {
    chapter_error(ch, "v5e 4x4 group: %s", diag.message);
    return;
  }
  double bytes = 8.0 * 128.0 * 8192.0 * scale_dtype_bytes(SCALE_DTYPE_BF16);
  double first = scale_collective_p2p_first_byte_s(&g, from, to);
  double total = scale_collective_p2p_time_s(&g, from, to, bytes);
  chapter_value(ch, "q5.bytes", "array", bytes, "B", SCALE_FMT_SI);
  chapter_value(ch, "q5.wraps", "4-chip axis wraps (1 = yes)",
                scale_chip_axis_wraps(v5e, 4.0) ? 1.0 : 0.0, "", SCALE_FMT_PLAIN);
  chapter_value(ch, "q5.hops", "hops", scale_collective_p2p_hops(&g, from, to), "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "q5.hop_latency_s", "latency per hop", v5e->ici_hop_latency_s, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "q5.first_byte_s", "first byte arrives after", first, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q5.bandwidth_s", "bandwidth part (two links out)", total - first, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "q5.time_s", "whole transfer", total, "s", SCALE_FMT_TIME);
}

/* [listing:q6] */
/** Q6: int8[n, n] held in the host DRAM of a v5e 4x4, gathered onto TPU{0,0} and multiplied
 * by bf16[b, n]. Four stages that can overlap: PCIe load (each chip its shard, in parallel),
 * ICI gather (TPU{0,0} receives the other shards over its two links; no wraparound at 4),
 * streaming the matrix from HBM, and the FLOPs. */
typedef struct {
  double pcie_s, ici_s, hbm_s, flops_s, pipelined_s, serial_s;
} q6_stages;

static q6_stages q6_estimate(const scale_chip *chip, double n, double b, double n_chips,
                             double n_links) {
  double matrix = n * n * scale_dtype_bytes(SCALE_DTYPE_INT8);
  double act = b * n * scale_dtype_bytes(SCALE_DTYPE_BF16);
  q6_stages s;
  s.pcie_s = scale_roofline_t_comms_s(matrix / n_chips, chip->pcie_bytes_per_s);
  s.ici_s = scale_roofline_t_comms_s(matrix * (n_chips - 1.0) / n_chips,
                                     n_links * chip->ici_link_bytes_per_s);
  s.hbm_s = scale_roofline_t_comms_s(matrix + act, chip->hbm_bytes_per_s);
  s.flops_s = scale_roofline_t_math_s(chip, SCALE_DTYPE_BF16, scale_roofline_matmul_flops(b, n, n));
  s.pipelined_s = fmax(fmax(s.pcie_s, s.ici_s), fmax(s.hbm_s, s.flops_s));
  s.serial_s = s.pcie_s + s.ici_s + s.hbm_s + s.flops_s;
  return s;
}
/* [/listing:q6] */

static void q6(chapter *ch, const scale_chip *v5e) {
  chapter_heading(ch, "Q6: gather int8[128Ki, 128Ki] from host DRAM onto one v5e and multiply");
  double n = 128.0 * 1024.0, b = 8.0;
  q6_stages s = q6_estimate(v5e, n, b, 16.0, 2.0);
  chapter_value(ch, "q6.matrix_bytes", "matrix", n * n, "B", SCALE_FMT_SI);
  chapter_value(ch, "q6.hosts", "hosts of a 4x4",
                16.0 / (v5e->host_shape[0] * v5e->host_shape[1] * v5e->host_shape[2]), "",
                SCALE_FMT_PLAIN);
  chapter_value(ch, "q6.pcie_s", "PCIe load, every chip its 1/16", s.pcie_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q6.ici_s", "ICI into TPU{0,0} over 2 links", s.ici_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q6.hbm_s", "HBM -> MXU", s.hbm_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q6.flops_s", "FLOPs", s.flops_s, "s", SCALE_FMT_TIME);
  chapter_value(ch, "q6.pipelined_s", "overlapped: the slowest stage", s.pipelined_s, "s",
                SCALE_FMT_TIME);
  chapter_value(ch, "q6.serial_s", "one after another: the sum", s.serial_s, "s", SCALE_FMT_TIME);
}

/* ---- figures ------------------------------------------------------------------------------- */

static void figure_q4(chapter *ch, const scale_chip *v5e) {
  static double b[N_CURVE], tm[N_CURVE], th[N_CURVE], tv[N_CURVE];
  for (int i = 0; i < N_CURVE; i++) {
    b[i] = pow(1e4, (double)i / (N_CURVE - 1));
    scale_matmul mm = scale_matmul_bf16(b[i], 4096.0, 16384.0);
    mm.act_dtype = mm.weight_dtype = mm.compute_dtype = SCALE_DTYPE_INT8;
    double flops = scale_roofline_matmul_flops(mm.b, mm.d, mm.f);
    double bytes = scale_roofline_matmul_bytes(&mm);
    tm[i] = scale_roofline_t_math_s(v5e, SCALE_DTYPE_INT8, flops);
    th[i] = scale_roofline_t_comms_s(bytes, v5e->hbm_bytes_per_s);
    tv[i] = scale_roofline_t_comms_s(bytes, v5e->hbm_bytes_per_s * SCALE_ROOFLINE_VMEM_OVER_HBM);
  }
  scale_plot_series s[3] = {
      {.label = "T_math (int8 OPs)", .x = b, .y = tm, .n = N_CURVE},
      {.label = "T_comms from HBM", .x = b, .y = th, .n = N_CURVE, .dashed = true},
      {.label = "T_comms from VMEM", .x = b, .y = tv, .n = N_CURVE, .dashed = true, .dots = false}};
  scale_plot_marker m[2] = {
      {.vertical = true, .at = q4_critical_batch(v5e, v5e->hbm_bytes_per_s), .label = "HBM"},
      {.vertical = true,
       .at = q4_critical_batch(v5e, v5e->hbm_bytes_per_s * SCALE_ROOFLINE_VMEM_OVER_HBM),
       .label = "VMEM"}};
  scale_plot p = {.title = "Question 4: int8[B, 4096] x int8[4096, 16384] on a TPU v5e",
                  .desc = "Compute time and memory time against batch; the memory line from "
                          "VMEM is 22 times lower, so it crosses the compute line much earlier.",
                  .x_label = "batch B [tokens]",
                  .y_label = "time [s]",
                  .x_axis = SCALE_PLOT_LOG,
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = 3,
                  .markers = m,
                  .n_markers = 2};
  chapter_figure(ch, "q4-hbm-vs-vmem.svg", &p);
}

static void figure_ladder(chapter *ch, const chapter_chips *tpus) {
  /* x: the channel (1 HBM, 2 ICI link, 3 PCIe, 4 DCN); y: seconds to move 1e9 bytes. */
  static double x[4] = {1.0, 2.0, 3.0, 4.0}, y[CHAPTER_LIST_MAX][4];
  scale_plot_series s[CHAPTER_LIST_MAX];
  static const scale_channel chans[4] = {SCALE_CHANNEL_HBM, SCALE_CHANNEL_ICI, SCALE_CHANNEL_PCIE,
                                         SCALE_CHANNEL_DCN};
  for (int i = 0; i < tpus->n; i++) {
    for (int k = 0; k < 4; k++)
      y[i][k] = scale_roofline_t_comms_s(
          1e9, scale_roofline_channel_bytes_per_s(&tpus->chip[i], chans[k]));
    s[i] = (scale_plot_series){
        .label = tpus->chip[i].display_name, .x = x, .y = y[i], .n = 4, .dots = true};
  }
  scale_plot p = {.title = "Moving 1 GB: HBM (1), one ICI link (2), PCIe (3), DCN (4)",
                  .desc = "Seconds to move a gigabyte over each channel of every TPU; each step "
                          "down the ladder is several times slower.",
                  .x_label = "channel: 1 HBM, 2 ICI link (one way), 3 PCIe, 4 DCN",
                  .y_label = "time for 1e9 bytes [s]",
                  .x_min = 0.5,
                  .x_max = 4.5,
                  .y_axis = SCALE_PLOT_LOG,
                  .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                  .series = s,
                  .n_series = (size_t)tpus->n};
  chapter_figure(ch, "bandwidth-ladder.svg", &p);
}

/** A 4x4 slice of 'chip' as its chips and links: wraparound as the chip's rule gives it. */
static void diagram_torus(chapter *ch, const scale_chip *chip, const char *file) {
  static char svg[1 << 16];
  double sizes[2] = {4.0, 4.0};
  scale_group g;
  scale_diag d = {0};
  scale_status st = scale_group_from_chip(chip, sizes, 2, SCALE_WRAP_AUTO, &g, &d);
  if (!st) st = scale_diagram_torus(chip->display_name, &g, svg, sizeof svg, NULL, &d);
  chapter_diagram(ch, file, st, svg, &d);
}

int main(int argc, char **argv) {
  chapter_option opts[] = {{"q3-pcie", "PCIe bandwidth Question 3 assumes [B/s]", "1.6e10"}, {0}};
  chapter ch;
  int rc = chapter_begin(&ch, argc, argv, "02-tpus", "How to think about TPUs.", opts);
  if (rc >= 0) return rc;
  static chapter_chips tpus;
  scale_chip v4p, v5e, v5p, v6e;
  if (!chapter_load_chips(&ch, CHAPTER_CHIPS_TPU, &tpus) ||
      !chapter_load_chip(&ch, "tpu-v4p", &v4p) || !chapter_load_chip(&ch, "tpu-v5e", &v5e) ||
      !chapter_load_chip(&ch, "tpu-v5p", &v5p) || !chapter_load_chip(&ch, "tpu-v6e", &v6e))
    return chapter_end(&ch);
  double pcie_book = chapter_option_number(&ch, &opts[0], SCALE_NUM_POSITIVE);
  if (ch.n_errors) return chapter_end(&ch);

  chapter_say(&ch, "Chapter 2: How to Think About TPUs.");
  section_specs(&ch, &tpus);
  section_mxu(&ch, &tpus);
  q1(&ch, &v4p);
  q3(&ch, &v6e, pcie_book);
  q4(&ch, &v5e);
  q5(&ch, &v5e);
  q6(&ch, &v5e);
  figure_q4(&ch, &v5e);
  figure_ladder(&ch, &tpus);
  diagram_torus(&ch, &v5e, "slice-v5e-4x4.svg");
  diagram_torus(&ch, &v5p, "slice-v5p-4x4.svg");
  return chapter_end(&ch);
}
