/* hardware.h — chips and systems (TPU v3..TPU7x, V100..B300, AMD Instinct, NVL72 racks).
 *
 * Records are loaded from hardware/NAME.ini (DESIGN.md "Data files"); nothing here types a
 * hardware number. Derived ratios (critical intensities) are computed, never stored.
 * Book: ch. 1 "All About Rooflines", ch. 2 "How to Think About TPUs", ch. 12 "How to Think
 * About GPUs".
 *
 * File format (strict; see hardware/README.md for every key):
 *
 *   ; sources: ...                    comments name where each number comes from
 *   [chip]                            the accelerator itself
 *   kind = tpu | gpu                  (string)
 *   display_name = TPU v5p            (string)
 *   bf16_flops_per_s = 4.59e14        dense peak matmul rate per dtype (never "with sparsity")
 *   hbm_bytes = 1.0201e11 ...
 *   [ici]  (TPU) one-way link bandwidth, axes, pod and host shapes, wraparound rule, hop latency
 *   [nvlink] (GPU) egress per GPU and NVLink domain size; switched (n_nvswitches) or a full
 *            mesh of direct links (mesh_link_bytes_per_s: xGMI, HCCS, a bridge pair); fabric
 *   [network] PCIe, DCN / InfiniBand per chip and the levels of a GPU fat tree; fabric
 *   [price]  usd_per_hour per chip
 *   [power]  tdp_w, training_draw_w, node_overhead_w per chip (energy.h)
 *   [system] n_chips, base = STEM (a system file inherits every key of hardware/STEM.ini)
 */
#ifndef SCALE_HARDWARE_H
#define SCALE_HARDWARE_H

#include <stdbool.h>
#include <stddef.h>

#include "scale/params.h"
#include "scale/status.h"
#include "scale/units.h"

#define SCALE_NAME_MAX 64

#define SCALE_NET_LEVELS_MAX 4

/** What a hardware file describes. */
typedef enum { SCALE_HW_TPU = 0, SCALE_HW_GPU } scale_hw_kind;

/** One level of a switched network above the chip (GPU chapter: node, leaf, spine, core).
 * A collective that spans this level sees 'fanout' members (GPUs in a node, nodes under a
 * leaf, ...) each with 'member_bytes_per_s' of one-way egress into the level.
 */
typedef struct {
  double fanout;             /**< members joined by this level (count) */
  double member_bytes_per_s; /**< one-way egress of one member into this level [bytes/s] */
} scale_net_level;

/** A chip, or a system built of identical chips. Unknown values are NaN (never 0). */
typedef struct {
  char name[SCALE_NAME_MAX];         /**< file stem: "tpu-v5p" */
  char display_name[SCALE_NAME_MAX]; /**< "TPU v5p" */
  char base[SCALE_NAME_MAX];         /**< stem of the chip a system extends, "" for a chip */
  scale_hw_kind kind;                /**< TPU or GPU */

  /* [chip] compute: dense peak matmul rate per dtype; NaN where the chip has no such mode. */
  double flops_per_s[SCALE_DTYPE_COUNT]; /**< [FLOP/s], indexed by scale_dtype */
  double vector_flops_per_s;             /**< non-matmul (VPU / CUDA core) fp32 rate [FLOP/s] */
  double clock_hz;                       /**< boost clock [1/s] */
  double n_cores;        /**< TPU TensorCores per chip, GPU streaming multiprocessors */
  double n_matmul_units; /**< MXUs per TensorCore (TPU) or tensor cores per SM (GPU) */

  /* [chip] memory */
  double hbm_bytes;               /**< HBM capacity per chip [bytes] */
  double hbm_bytes_per_s;         /**< HBM bandwidth per chip [bytes/s] */
  double vmem_bytes;              /**< TPU VMEM per TensorCore [bytes] */
  double smem_bytes_per_core;     /**< GPU shared memory + L1 per SM [bytes] */
  double l2_bytes;                /**< GPU L2 cache [bytes] */
  double register_bytes_per_core; /**< GPU register file per SM [bytes] */

  /* [ici] TPU inter-chip interconnect */
  double ici_link_bytes_per_s; /**< one-way bandwidth of one ICI link [bytes/s] */
  double ici_n_axes;           /**< torus dimensions a chip connects along (2 or 3) */
  double ici_hop_latency_s;    /**< per-hop latency of an ICI transfer [s] */
  double pod_shape[3];         /**< chips along X, Y, Z of a full pod (Z = 1 for 2-D) */
  double host_shape[3];        /**< chips along X, Y, Z attached to one host */
  double wrap_axis_multiple;   /**< an axis has wraparound iff its size is a multiple of this
                                    (v4/v5p: 4, a full cube; v5e/v6e: 16, the full pod axis) */

  /* [nvlink] GPU scale-up domain */
  double nvlink_bytes_per_s;   /**< one-way NVLink egress of one GPU [bytes/s] */
  double nvlink_domain_size;   /**< GPUs joined by NVLink/NVSwitch (8 for a DGX, 72 for NVL72) */
  double nvswitch_bytes_per_s; /**< one-way capacity of one NVSwitch [bytes/s] */
  double n_nvswitches;         /**< NVSwitches in one domain */
  double mesh_link_bytes_per_s; /**< a switchless domain (a full mesh: every GPU has one direct
                                     link to each of the domain_size - 1 others, AMD xGMI, Ascend
                                     HCCS, an NVLink bridge pair): one-way bandwidth of one link
                                     [bytes/s]; NaN for a switched domain. The loader sets
                                     nvlink_bytes_per_s to link x (domain_size - 1) */
  char scaleup_fabric[SCALE_NAME_MAX];  /**< [nvlink] fabric: "nvlink", "nvlink-bridge", "hccs",
                                             "xgmi"; "" when not given */
  char scaleout_fabric[SCALE_NAME_MAX]; /**< [network] fabric: "infiniband", "roce"; "" when not
                                             given */

  /* [network] chip to host and scale-out */
  double pcie_bytes_per_s; /**< one-way PCIe bandwidth per chip [bytes/s] */
  double dcn_bytes_per_s;  /**< one-way data-centre network (DCN / InfiniBand) egress
                                per chip [bytes/s] */
  int n_net_levels;        /**< levels used in net_levels[] */
  scale_net_level net_levels[SCALE_NET_LEVELS_MAX]; /**< GPU fat tree, innermost first */

  /* [price] */
  double usd_per_hour; /**< on-demand price of one chip for one hour [USD/h] */

  /* [power] (energy.h); NaN when the file does not give one */
  double tdp_w;           /**< the chip's published thermal design power [W] */
  double training_draw_w; /**< a published measured draw while training [W] */
  double node_overhead_w; /**< node power beyond the chips (CPUs, NICs, fans), per chip [W] */

  /* [system] */
  double n_chips; /**< chips in the system; 1 for a plain chip */

  /* [memory] what the framework and allocator add to the model's tensors (memory.h); NaN
   * when the file has no [memory] section */
  double memory_context_bytes;      /**< runtime context, workspaces, framework reserve [bytes] */
  double memory_comm_buffer_bytes;  /**< buffers of one communicator [bytes] */
  double memory_fragmentation_frac; /**< allocator slack over the tensors' bytes [1] */

  /* [step] the calibrated step model's parameters (params.h, by scale_step_param); [step_fit]
   * the provenance of their fit. Written by `scale calibrate`; all or none. */
  double step[SCALE_STEP_N_PARAMS];  /**< NaN when the file has no [step] section */
  bool has_step;                       /**< every [step] key is given */
  char step_fit_by[SCALE_NAME_MAX];    /**< what wrote them ("scale calibrate") */
  char step_fit_method[SCALE_NAME_MAX]; /**< the fit ("levenberg-marquardt, ...") */
  char step_fit_data[SCALE_NAME_MAX];  /**< the data ("measurements/ at ...") */
  double step_fit_rows;                /**< rows fitted [count] */
  double step_fit_groups;              /**< groups fitted [count] */
  double step_fit_rms_log_error;       /**< group-weighted RMS of log(predicted / measured) */
  double step_fit_prior_weight;        /**< the fit's pull toward the priors (calibrate.h) */

  /* [serve] the calibrated serving step cost's parameters (params.h, by scale_serve_param),
   * written by `scale calibrate --serving` with their provenance in comments; all or none. */
  double serve[SCALE_SERVE_N_PARAMS]; /**< NaN when the file has no [serve] section */
  bool has_serve;                        /**< every [serve] key is given */
} scale_chip;

/* ---- loading -------------------------------------------------------------------------------- */

/** Reads the sections a hardware file may hold from 'path' into *out (caller storage), as
 * strictly as scale_chip_load_file() reads them (unknown, duplicate, malformed or out-of-range
 * keys are errors with the line) but without its whole-file rules: no required key, no base,
 * no all-or-none section. What the file does not give is NaN. For a reader of one section
 * (scale_step_params_load_file() reads [step] with it).
 * Errors: SCALE_ERR_IO, SCALE_ERR_PARSE, SCALE_ERR_UNKNOWN_KEY, SCALE_ERR_DUPLICATE_KEY,
 *         SCALE_ERR_RANGE, SCALE_ERR_NOMEM.
 */
scale_status scale_chip_read_sections(const char *path, scale_chip *out, scale_diag *diag);

/** Loads a hardware file at 'path' into *out (caller storage), strictly: an unknown section or
 * key, a duplicate key, a missing required key (display_name, kind, hbm_bytes,
 * hbm_bytes_per_s, and a 16-bit rate: bf16_flops_per_s or fp16_flops_per_s), a malformed or
 * non-finite number, a quantity outside its plausible range or a count that is not a whole
 * number in its range (hardware/README.md "Ranges": FLOP/s in [1e9, 1e19], bandwidths in
 * [1e6, 1e16], pod axes in [1, 65536], fat-tree fanouts >= 2, ...) is an error reported with
 * the file and line, naming the key and its range. A UTF-8 byte-order mark and CRLF line ends
 * are accepted. A `base = STEM` key loads hardware/STEM.ini from the same folder first.
 *
 * Errors: SCALE_ERR_IO, SCALE_ERR_PARSE, SCALE_ERR_UNKNOWN_KEY, SCALE_ERR_DUPLICATE_KEY,
 *         SCALE_ERR_MISSING_KEY, SCALE_ERR_RANGE; 'diag' (may be NULL) says where and why.
 */
scale_status scale_chip_load_file(const char *path, scale_chip *out, scale_diag *diag);

/** Folder holding hardware/ and models/: $SCALE_DATA_DIR if set, else the compiled-in source
 * tree. Static storage; never NULL.
 */
const char *scale_data_dir(void);

/** Resolves NAME (a file stem such as "tpu-v5p", or a path containing '/' or ending ".ini")
 * inside 'subdir' ("hardware" or "models") of scale_data_dir() into 'path'.
 *
 * Errors: SCALE_ERR_NOT_FOUND when no such file; SCALE_ERR_INVALID for an empty name.
 */
scale_status scale_data_resolve(const char *subdir, const char *name, char *path, size_t size,
                                scale_diag *diag);

/** Loads hardware NAME (stem or path; see scale_data_resolve). Errors: as both callees. */
scale_status scale_chip_load(const char *name, scale_chip *out, scale_diag *diag);

/** Lists the stems of every file in scale_data_dir()/'subdir' ending ".ini", sorted, into
 * names[0..cap). Returns the number found (may exceed cap: only cap are written), or -1 when
 * the folder cannot be read.
 */
int scale_data_list(const char *subdir, char names[][SCALE_NAME_MAX], int cap);

/* ---- derived ratios ------------------------------------------------------------------------- */

/** Peak matmul rate of 'chip' in 'dtype' [FLOP/s]; NaN where the chip has no such mode. */
double scale_chip_flops_per_s(const scale_chip *chip, scale_dtype dtype);

/** HBM critical intensity C/W_hbm for 'dtype' compute [FLOP/byte].
 * Book: ch. 1, v5e bf16 1.97e14 / 8.2e11 = 240; ch. 12, H100 9.9e14 / 3.35e12 = 295.
 */
double scale_chip_hbm_intensity(const scale_chip *chip, scale_dtype dtype);

/** ICI critical intensity C / W_ici with the bidirectional link bandwidth 2 x one-way
 * [FLOP/byte]. Book: ch. 5, v5p 4.59e14 / 1.8e11 = 2550. NaN for chips without ICI.
 */
double scale_chip_ici_intensity(const scale_chip *chip, scale_dtype dtype);

/** Bytes one ICI link moves in one hop's latency, W_link t_hop (one-way) [bytes]: a hop that
 * carries fewer is latency-bound. NaN for chips without ICI bandwidth or hop latency.
 * Book: ch. 3 "A note on ICI latency", v5e 4.5e10 B/s x 1 us = 45 kB.
 */
double scale_chip_ici_latency_bytes(const scale_chip *chip);

/** DCN critical intensity C / W_dcn per chip [FLOP/byte]. Book: ch. 5, v5p 71,360 (it uses
 * C = 4.46e14 there while its table prints 4.59e14). NaN without a DCN figure.
 */
double scale_chip_dcn_intensity(const scale_chip *chip, scale_dtype dtype);

/** NVLink critical intensity C / W_nvlink (one-way egress) [FLOP/byte]; NaN for TPUs. */
double scale_chip_nvlink_intensity(const scale_chip *chip, scale_dtype dtype);

/** Whether an axis of 'size' chips has wraparound links under the chip's rule. */
bool scale_chip_axis_wraps(const scale_chip *chip, double size);

/** Whether the chip's scale-up domain is a full mesh of direct links (mesh_link_bytes_per_s
 * given) rather than switched. */
bool scale_chip_scaleup_is_mesh(const scale_chip *chip);

/** One-way egress [bytes/s] a member of a group of 'n' GPUs inside one scale-up domain reaches
 * its peers with: the GPU's NVLink egress through switches, or n - 1 of its direct links on a
 * full mesh (a group smaller than the domain leaves the other links idle). NaN for a TPU, a
 * chip without a domain figure, or n outside [2, domain_size]. */
double scale_chip_scaleup_bytes_per_s(const scale_chip *chip, double n);

/** Chips in a full pod (product of pod_shape), or NaN if unknown. */
double scale_chip_pod_chips(const scale_chip *chip);

#endif
