/* roofline.h — time of a computation bounded by compute and by bandwidth (chapters 1 and 2).
 *
 * The roofline model: an operation doing F FLOPs and moving M bytes over a channel of bandwidth
 * W on a chip of peak rate C takes at least max(F/C, M/W) (perfect overlap) and at most
 * F/C + M/W (no overlap). Its arithmetic intensity F/M against the chip's critical intensity C/W
 * says which resource binds. Matmuls X[B,D] . W[D,F] -> Z[B,F] get their own helpers because
 * almost everything a model does is one.
 *
 * Book: ch. 1 "All About Rooflines", ch. 2 "How to Think About TPUs".
 * All functions are pure: no printing, NaN outside their domain.
 */
#ifndef SCALE_ROOFLINE_H
#define SCALE_ROOFLINE_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/units.h"

/* ---- the basic roofline --------------------------------------------------------------------- */

/** Time to execute 'flops' at the chip's peak rate for 'dtype' (the book's T_math).
 *
 * Units:  flops [FLOP] -> [s].
 * Domain: flops >= 0; NaN if the chip has no rate for 'dtype' or chip is NULL.
 * Book:   ch. 1, T_math = FLOPs / accelerator FLOP/s; 1e12 FLOPs on an H100 take 1.01 ms.
 */
double scale_roofline_t_math_s(const scale_chip *chip, scale_dtype dtype, double flops);

/** Time to do 'flops' at a rate of 'flops_per_s' (T_math with an explicit rate).
 *
 * Units:  flops [FLOP], flops_per_s [FLOP/s] -> [s].
 * Domain: flops >= 0, flops_per_s > 0; NaN otherwise.
 */
double scale_roofline_t_flops_s(double flops, double flops_per_s);

/** Time to move 'bytes' over a channel of 'bytes_per_s' (the book's T_comms).
 *
 * Units:  bytes [bytes], bytes_per_s [bytes/s] -> [s].
 * Domain: bytes >= 0, bytes_per_s > 0; NaN otherwise.
 * Book:   ch. 1, T_comms = communication bytes / network or memory bandwidth.
 */
double scale_roofline_t_comms_s(double bytes, double bytes_per_s);

/** Lower bound of a step with perfect overlap: max(t_math_s, t_comms_s).
 *
 * Units:  [s] -> [s].  Domain: both >= 0; NaN otherwise.
 * Book:   ch. 1, T_lower = max(T_math, T_comms).
 */
double scale_roofline_t_lower_s(double t_math_s, double t_comms_s);

/** Upper bound of a step with no overlap: t_math_s + t_comms_s.
 *
 * Units:  [s] -> [s].  Domain: both >= 0; NaN otherwise.
 * Book:   ch. 1, T_upper = T_math + T_comms (at most twice T_lower).
 */
double scale_roofline_t_upper_s(double t_math_s, double t_comms_s);

/** Arithmetic intensity flops / bytes.
 *
 * Units:  flops [FLOP], bytes [bytes] -> [FLOP/byte].
 * Domain: flops >= 0, bytes > 0; NaN otherwise (inf is never returned).
 * Book:   ch. 1, "Arithmetic Intensity = Computation FLOPs / Communication bytes".
 */
double scale_roofline_intensity_flops_per_byte(double flops, double bytes);

/* ---- channels: which bandwidth a transfer uses ---------------------------------------------- */

/** The data paths of a chip, fastest first on a TPU (ch. 2 "Key Takeaways"). */
typedef enum {
  SCALE_CHANNEL_HBM = 0,  /**< HBM <-> TensorCore, per chip */
  SCALE_CHANNEL_ICI,      /**< one ICI link, one direction */
  SCALE_CHANNEL_ICI_BIDI, /**< one ICI link, both directions (2 x one-way; the book's W_ici) */
  SCALE_CHANNEL_PCIE,     /**< host <-> chip over PCIe, one direction, per chip */
  SCALE_CHANNEL_DCN,      /**< data-centre network egress per chip */
  SCALE_CHANNEL_NVLINK,   /**< GPU NVLink egress, one direction */
  SCALE_CHANNEL_COUNT
} scale_channel;

/** Short lowercase name of 'channel' ("hbm", "ici", "ici-bidi", "pcie", "dcn", "nvlink");
 * "?" for an invalid value. Static storage. */
const char *scale_channel_name(scale_channel channel);

/** Parses a channel name as written by scale_channel_name() (case-insensitive).
 *
 * Errors: SCALE_ERR_INVALID for anything else; *out untouched.
 */
scale_status scale_channel_parse(const char *text, scale_channel *out);

/** Bandwidth of 'channel' on 'chip' [bytes/s]; NaN where the chip has no such channel.
 *
 * Book: ch. 2 tables (edition c7a26c6); v5e HBM 8.2e11, ICI 4.5e10 one-way / 9e10 bidi, PCIe
 *       1.6e10 (the older edition printed 8.1e11 and 1.5e10).
 */
double scale_roofline_channel_bytes_per_s(const scale_chip *chip, scale_channel channel);

/** Whether the chip's per-chip bandwidths follow the book's order HBM > ICI (one link, one way)
 * > PCIe > DCN; false when any of them is unknown. Book: ch. 2 "Key Takeaways". */
bool scale_roofline_bandwidth_ordered(const scale_chip *chip);

/* ---- a complete estimate -------------------------------------------------------------------- */

/** A roofline estimate of one operation on one resource. */
typedef struct {
  double flops;                             /**< work [FLOP] */
  double bytes;                             /**< traffic over the channel [bytes] */
  double intensity_flops_per_byte;          /**< flops / bytes [FLOP/byte] */
  double critical_intensity_flops_per_byte; /**< C / W of the hardware [FLOP/byte] */
  double t_math_s;                          /**< flops / C [s] */
  double t_comms_s;                         /**< bytes / W [s] */
  double t_lower_s;                         /**< max of the two [s] */
  double t_upper_s;                         /**< sum of the two [s] */
  bool compute_bound;                       /**< t_math_s >= t_comms_s */
} scale_roofline_estimate;

/** Roofline estimate of 'flops' and 'bytes' at rate 'flops_per_s' over 'bytes_per_s'.
 *
 * Units:  [FLOP], [bytes], [FLOP/s], [bytes/s].
 * Domain: flops >= 0, bytes >= 0, both rates > 0; otherwise every field is NaN and
 *         compute_bound false. With bytes == 0 the intensity is NaN (undefined) but the times
 *         are valid.
 * Book:   ch. 1 "Where Does the Time Go?".
 */
scale_roofline_estimate scale_roofline_eval(double flops, double bytes, double flops_per_s,
                                            double bytes_per_s);

/* ---- matrix multiplication ------------------------------------------------------------------ */

/** A matmul X[B,D] . W[D,F] -> Z[B,F] (or W[B,D,F], one weight matrix per example). */
typedef struct {
  double b;                  /**< B, batch (tokens), count >= 1 */
  double d;                  /**< D, contracting dimension, count >= 1 */
  double f;                  /**< F, output dimension, count >= 1 */
  scale_dtype act_dtype;     /**< dtype of X and of the written Z */
  scale_dtype weight_dtype;  /**< dtype of W as stored in memory */
  scale_dtype compute_dtype; /**< dtype of the MXU / tensor-core arithmetic (selects C) */
  bool per_example_weights;  /**< W is [B,D,F]: a separate matrix per batch element */
} scale_matmul;

/** A bf16 X[b,d] . bf16 W[d,f] matmul computed in bf16 (the book's default). */
scale_matmul scale_matmul_bf16(double b, double d, double f);

/** FLOPs of the matmul counted as 2BDF (one multiply and one add per term).
 *
 * Units:  -> [FLOP].  Domain: b, d, f >= 0; NaN otherwise.
 * Book:   ch. 1 "Matrix multiplication", 2BDF FLOPs.
 */
double scale_roofline_matmul_flops(double b, double d, double f);

/** Exact FLOPs of the matmul, B*F*(2D - 1): BDF multiplies and BF(D-1) additions.
 *
 * Units:  -> [FLOP].  Domain: b, f >= 0, d >= 1; NaN otherwise.
 * Book:   ch. 1 footnote, "technically BF x (2D - 1)".
 */
double scale_roofline_matmul_flops_exact(double b, double d, double f);

/** Bytes read and written by 'mm' through memory: X (B*D activations) and W (D*F weights, or
 * B*D*F if per example) read, Z (B*F activations) written.
 *
 * Units:  -> [bytes].  Domain: valid dims and dtypes; NaN otherwise.
 * Book:   ch. 1, 2BD + 2DF + 2BF in bf16; Q1 (int8) BD + DF + BF; Q4 BD + BDF + BF.
 */
double scale_roofline_matmul_bytes(const scale_matmul *mm);

/** Arithmetic intensity of 'mm' with respect to memory, 2BDF / scale_roofline_matmul_bytes().
 *
 * Units:  -> [FLOP/byte].  Domain: as scale_roofline_matmul_bytes.
 * Book:   ch. 1, BDF / (BD + DF + BF) in bf16 (tends to B for B << D, F); Q4 about 2.
 */
double scale_roofline_matmul_intensity_flops_per_byte(const scale_matmul *mm);

/** Roofline estimate of 'mm' on 'chip' streaming from HBM at the rate of mm->compute_dtype.
 *
 * Domain: as scale_roofline_eval; all NaN when the chip lacks the compute dtype.
 * Book:   ch. 1 Q1; ch. 2 Q4.
 */
scale_roofline_estimate scale_roofline_matmul_eval(const scale_chip *chip, const scale_matmul *mm);

/** Critical batch of the weight-dominated limit B << D, F: the smallest B for which a matmul
 * reading weights of 'weight_dtype' is compute-bound at the 'compute_dtype' rate over HBM:
 * B_crit = (C / W_hbm) * bytes_per_weight / 2. Equivalent to the book's
 * (C_bf16 / W) * (bits per param / bits per activation) rule when int8 compute doubles C.
 *
 * Units:  -> [count].  Domain: NaN if the chip lacks the rate or HBM bandwidth.
 * Book:   ch. 1 (edition c7a26c6): bf16 240 (v5e); Q1 int8 x int8 480 / 2 = 240; Q2 int8
 *         weights, bf16 compute 120; Q5 H100 295 (the older edition: 486 / 243 and 298).
 */
double scale_roofline_critical_batch(const scale_chip *chip, scale_dtype weight_dtype,
                                     scale_dtype compute_dtype);

/** Exact critical batch of 'mm' (mm->b is ignored) at 'flops_per_s' over 'bytes_per_s':
 * the B solving 2BDF / C = (a B D + w D F + a B F) / W, where a and w are the activation and
 * weight element sizes. Keeps every term the B << D, F limit drops.
 *
 * Units:  [FLOP/s], [bytes/s] -> [count].
 * Domain: positive rates and dims; NaN otherwise; +inf when no batch is compute-bound
 *         (per-example weights, or activations alone outrun the intensity).
 * Book:   ch. 2 Q4 (int8 16384x4096 on v5e: the book prints B > 267; exact is 259.25 with
 *         8.2e11) and its VMEM variant; ch. 2 Q3 (PCIe, v6e).
 */
double scale_roofline_matmul_critical_batch(const scale_matmul *mm, double flops_per_s,
                                            double bytes_per_s);

/** HBM traffic of a tiled matmul: the output is computed in tiles of tile_b x tile_f, each
 * reading its X rows (tile_b x D) and W columns (D x tile_f) once from HBM, so X is read
 * F/tile_f times and W B/tile_b times; Z is written once. Returns 2BDF divided by that traffic.
 * Tiles larger than the matrix are clamped to it (tile_b = B and tile_f = F gives the untiled
 * intensity).
 *
 * Units:  tile sizes [count] -> [FLOP/byte].
 * Domain: tile_b, tile_f >= 1 and a valid 'mm' without per-example weights; NaN otherwise.
 * Book:   ch. 1 (the VMEM/HBM discussion of ch. 2): a tile's intensity tends to
 *         2 / (a / tile_f + w / tile_b) for large B and F (hand derivation in the tests).
 */
double scale_roofline_tiled_matmul_intensity_flops_per_byte(const scale_matmul *mm, double tile_b,
                                                            double tile_f);

/** The two-chip network roofline: X[B,D] . W[D,F] with D split over two chips, each computing
 * half and sending its B x F partial sum (of 'act_dtype') over a link of 'link_bytes_per_s'.
 * Returns the D above which the matmul is compute-bound: D_crit = a * C / W.
 *
 * Units:  [FLOP/s], [bytes/s] -> [count].  Domain: positive rates; NaN otherwise.
 * Book:   ch. 1 "Network communication rooflines", D > 8755 with 1.97e14 / 4.5e10.
 */
double scale_roofline_two_chip_critical_d(double flops_per_s, double link_bytes_per_s,
                                          scale_dtype act_dtype);

/* ---- chapter 2: TPU-level helpers ----------------------------------------------------------- */

/** VMEM -> MXU bandwidth as a multiple of HBM bandwidth (about 22x on TPU v5e).
 * Book: ch. 2 "VMEM and arithmetic intensity" and Q4. */
#define SCALE_ROOFLINE_VMEM_OVER_HBM 22.0

/** Minimum time to stream 'n_params' parameters of 'dtype', sharded evenly over 'n_chips',
 * once from HBM: the latency floor of one sampling step.
 *
 * Units:  n_params [count], n_chips [count] -> [s].
 * Domain: n_params >= 0, n_chips >= 1, chip with HBM bandwidth; NaN otherwise.
 * Book:   ch. 2 Q1, 200e9 bf16 parameters on 32 TPU v4p: about 10 ms.
 */
double scale_roofline_param_load_s(const scale_chip *chip, double n_params, scale_dtype dtype,
                                   double n_chips);

/** Totals of a slice (or pod) of identical chips. */
typedef struct {
  double n_chips;         /**< chips in the slice [count] */
  double n_hosts;         /**< CPU hosts: chips / chips per host, rounded up [count] */
  double n_cores;         /**< TensorCores (or SMs): chips x cores per chip [count] */
  double flops_per_s;     /**< peak rate of all chips in the given dtype [FLOP/s] */
  double hbm_bytes;       /**< HBM of all chips [bytes] */
  double hbm_bytes_per_s; /**< aggregate HBM bandwidth [bytes/s] */
} scale_slice_totals;

/** Totals of a slice of shape shape[0] x shape[1] x shape[2] chips; shape NULL means the full
 * pod (chip->pod_shape). Fields the chip does not know are NaN.
 *
 * Domain: shape entries >= 1; all NaN otherwise.
 * Book:   ch. 2 Q2: v5e pod 32 hosts, 256 cores, 5.1e16 FLOP/s, 4 TB; v5p pod 2240 hosts,
 *         17,920 cores, about 4e18 FLOP/s, 860 TB.
 */
scale_slice_totals scale_roofline_slice_totals(const scale_chip *chip, const double *shape,
                                               scale_dtype dtype);

#endif
