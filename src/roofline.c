/* roofline.c — T_math, T_comms, bounds, intensities and matmul rooflines (roofline.h). */
#include "scale/roofline.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* ==== helpers =============================================================================== */

static bool dtype_ok(scale_dtype dtype) { return (int)dtype >= 0 && dtype < SCALE_DTYPE_COUNT; }

/* A finite number >= 0 (rejects NaN). */
static bool nonneg(double x) { return x >= 0.0 && isfinite(x); }

/* A finite number > 0 (rejects NaN). */
static bool positive(double x) { return x > 0.0 && isfinite(x); }

/* ==== the basic roofline ==================================================================== */

double scale_roofline_t_flops_s(double flops, double flops_per_s) {
  if (!nonneg(flops) || !positive(flops_per_s)) return (double)NAN;
  return flops / flops_per_s;
}

double scale_roofline_t_math_s(const scale_chip *chip, scale_dtype dtype, double flops) {
  if (chip == NULL || !dtype_ok(dtype)) return (double)NAN;
  return scale_roofline_t_flops_s(flops, scale_chip_flops_per_s(chip, dtype));
}

double scale_roofline_t_comms_s(double bytes, double bytes_per_s) {
  if (!nonneg(bytes) || !positive(bytes_per_s)) return (double)NAN;
  return bytes / bytes_per_s;
}

double scale_roofline_t_lower_s(double t_math_s, double t_comms_s) {
  if (!(t_math_s >= 0.0) || !(t_comms_s >= 0.0)) return (double)NAN;
  return t_math_s > t_comms_s ? t_math_s : t_comms_s;
}

double scale_roofline_t_upper_s(double t_math_s, double t_comms_s) {
  if (!(t_math_s >= 0.0) || !(t_comms_s >= 0.0)) return (double)NAN;
  return t_math_s + t_comms_s;
}

double scale_roofline_intensity_flops_per_byte(double flops, double bytes) {
  if (!nonneg(flops) || !positive(bytes)) return (double)NAN;
  return flops / bytes;
}

/* ==== channels ============================================================================== */

static const char *const channel_names[SCALE_CHANNEL_COUNT] = {
    [SCALE_CHANNEL_HBM] = "hbm",           [SCALE_CHANNEL_ICI] = "ici",
    [SCALE_CHANNEL_ICI_BIDI] = "ici-bidi", [SCALE_CHANNEL_PCIE] = "pcie",
    [SCALE_CHANNEL_DCN] = "dcn",           [SCALE_CHANNEL_NVLINK] = "nvlink",
};

const char *scale_channel_name(scale_channel channel) {
  if ((int)channel < 0 || channel >= SCALE_CHANNEL_COUNT) return "?";
  return channel_names[channel];
}

static bool equal_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

scale_status scale_channel_parse(const char *text, scale_channel *out) {
  if (text == NULL) return SCALE_ERR_INVALID;
  for (int i = 0; i < SCALE_CHANNEL_COUNT; i++) {
    if (equal_nocase(text, channel_names[i])) {
      *out = (scale_channel)i;
      return SCALE_OK;
    }
  }
  return SCALE_ERR_INVALID;
}

double scale_roofline_channel_bytes_per_s(const scale_chip *chip, scale_channel channel) {
  if (chip == NULL) return (double)NAN;
  switch (channel) {
  case SCALE_CHANNEL_HBM:
    return chip->hbm_bytes_per_s;
  case SCALE_CHANNEL_ICI:
    return chip->ici_link_bytes_per_s;
  case SCALE_CHANNEL_ICI_BIDI:
    return 2.0 * chip->ici_link_bytes_per_s;
  case SCALE_CHANNEL_PCIE:
    return chip->pcie_bytes_per_s;
  case SCALE_CHANNEL_DCN:
    return chip->dcn_bytes_per_s;
  case SCALE_CHANNEL_NVLINK:
    return chip->nvlink_bytes_per_s;
  case SCALE_CHANNEL_COUNT:
    break;
  }
  return (double)NAN;
}

bool scale_roofline_bandwidth_ordered(const scale_chip *chip) {
  if (chip == NULL) return false;
  double hbm = chip->hbm_bytes_per_s, ici = chip->ici_link_bytes_per_s;
  double pcie = chip->pcie_bytes_per_s, dcn = chip->dcn_bytes_per_s;
  /* Comparisons with NaN are false, so an unknown bandwidth answers false. */
  return hbm > ici && ici > pcie && pcie > dcn;
}

/* ==== a complete estimate =================================================================== */

static scale_roofline_estimate estimate_nan(void) {
  scale_roofline_estimate e;
  e.flops = e.bytes = e.intensity_flops_per_byte = e.critical_intensity_flops_per_byte =
      (double)NAN;
  e.t_math_s = e.t_comms_s = e.t_lower_s = e.t_upper_s = (double)NAN;
  e.compute_bound = false;
  return e;
}

scale_roofline_estimate scale_roofline_eval(double flops, double bytes, double flops_per_s,
                                            double bytes_per_s) {
  if (!nonneg(flops) || !nonneg(bytes) || !positive(flops_per_s) || !positive(bytes_per_s))
    return estimate_nan();
  scale_roofline_estimate e;
  e.flops = flops;
  e.bytes = bytes;
  e.intensity_flops_per_byte = scale_roofline_intensity_flops_per_byte(flops, bytes);
  e.critical_intensity_flops_per_byte = flops_per_s / bytes_per_s;
  e.t_math_s = flops / flops_per_s;
  e.t_comms_s = bytes / bytes_per_s;
  e.t_lower_s = scale_roofline_t_lower_s(e.t_math_s, e.t_comms_s);
  e.t_upper_s = scale_roofline_t_upper_s(e.t_math_s, e.t_comms_s);
  e.compute_bound = e.t_math_s >= e.t_comms_s;
  return e;
}

/* ==== matrix multiplication ================================================================= */

scale_matmul scale_matmul_bf16(double b, double d, double f) {
  scale_matmul mm = {.b = b,
                     .d = d,
                     .f = f,
                     .act_dtype = SCALE_DTYPE_BF16,
                     .weight_dtype = SCALE_DTYPE_BF16,
                     .compute_dtype = SCALE_DTYPE_BF16,
                     .per_example_weights = false};
  return mm;
}

double scale_roofline_matmul_flops(double b, double d, double f) {
  if (!nonneg(b) || !nonneg(d) || !nonneg(f)) return (double)NAN;
  return 2.0 * b * d * f;
}

double scale_roofline_matmul_flops_exact(double b, double d, double f) {
  if (!nonneg(b) || !(d >= 1.0 && isfinite(d)) || !nonneg(f)) return (double)NAN;
  return b * f * (2.0 * d - 1.0);
}

static bool matmul_ok(const scale_matmul *mm) {
  return mm != NULL && nonneg(mm->b) && nonneg(mm->d) && nonneg(mm->f) && dtype_ok(mm->act_dtype) &&
         dtype_ok(mm->weight_dtype) && dtype_ok(mm->compute_dtype);
}

double scale_roofline_matmul_bytes(const scale_matmul *mm) {
  if (!matmul_ok(mm)) return (double)NAN;
  double a = scale_dtype_bytes(mm->act_dtype), w = scale_dtype_bytes(mm->weight_dtype);
  double weights = mm->d * mm->f * (mm->per_example_weights ? mm->b : 1.0);
  return a * mm->b * mm->d + w * weights + a * mm->b * mm->f;
}

double scale_roofline_matmul_intensity_flops_per_byte(const scale_matmul *mm) {
  if (!matmul_ok(mm)) return (double)NAN;
  return scale_roofline_intensity_flops_per_byte(scale_roofline_matmul_flops(mm->b, mm->d, mm->f),
                                                 scale_roofline_matmul_bytes(mm));
}

scale_roofline_estimate scale_roofline_matmul_eval(const scale_chip *chip, const scale_matmul *mm) {
  if (chip == NULL || !matmul_ok(mm)) return estimate_nan();
  return scale_roofline_eval(
      scale_roofline_matmul_flops(mm->b, mm->d, mm->f), scale_roofline_matmul_bytes(mm),
      scale_chip_flops_per_s(chip, mm->compute_dtype), chip->hbm_bytes_per_s);
}

double scale_roofline_critical_batch(const scale_chip *chip, scale_dtype weight_dtype,
                                     scale_dtype compute_dtype) {
  if (chip == NULL || !dtype_ok(weight_dtype) || !dtype_ok(compute_dtype)) return (double)NAN;
  double c = scale_chip_flops_per_s(chip, compute_dtype), w = chip->hbm_bytes_per_s;
  if (!positive(c) || !positive(w)) return (double)NAN;
  /* 2BDF / C = w_bytes D F / W  <=>  B = (C / W) w_bytes / 2 (the B << D, F limit). */
  return c / w * scale_dtype_bytes(weight_dtype) / 2.0;
}

double scale_roofline_matmul_critical_batch(const scale_matmul *mm, double flops_per_s,
                                            double bytes_per_s) {
  if (mm == NULL || !dtype_ok(mm->act_dtype) || !dtype_ok(mm->weight_dtype) || !positive(mm->d) ||
      !positive(mm->f) || !positive(flops_per_s) || !positive(bytes_per_s))
    return (double)NAN;
  if (mm->per_example_weights) return (double)INFINITY; /* intensity stays below 2/w */
  double a = scale_dtype_bytes(mm->act_dtype), w = scale_dtype_bytes(mm->weight_dtype);
  double d = mm->d, f = mm->f;
  /* 2BDF/C = (aBD + wDF + aBF)/W  <=>  B (2DF/C - a(D+F)/W) = wDF/W. */
  double denom = 2.0 * d * f / flops_per_s - a * (d + f) / bytes_per_s;
  if (!(denom > 0.0)) return (double)INFINITY;
  return w * d * f / bytes_per_s / denom;
}

double scale_roofline_tiled_matmul_intensity_flops_per_byte(const scale_matmul *mm, double tile_b,
                                                            double tile_f) {
  if (!matmul_ok(mm) || mm->per_example_weights || !(tile_b >= 1.0) || !(tile_f >= 1.0) ||
      !isfinite(tile_b) || !isfinite(tile_f) || !positive(mm->b) || !positive(mm->d) ||
      !positive(mm->f))
    return (double)NAN;
  double tb = tile_b < mm->b ? tile_b : mm->b, tf = tile_f < mm->f ? tile_f : mm->f;
  double a = scale_dtype_bytes(mm->act_dtype), w = scale_dtype_bytes(mm->weight_dtype);
  double b = mm->b, d = mm->d, f = mm->f;
  /* X rows are re-read once per column of tiles (F / tf), W columns once per row of tiles
   * (B / tb); Z is written once. */
  double bytes = a * b * d * (f / tf) + w * d * f * (b / tb) + a * b * f;
  return 2.0 * b * d * f / bytes;
}

double scale_roofline_two_chip_critical_d(double flops_per_s, double link_bytes_per_s,
                                          scale_dtype act_dtype) {
  if (!positive(flops_per_s) || !positive(link_bytes_per_s) || !dtype_ok(act_dtype))
    return (double)NAN;
  /* T_math = 2BDF / (2C) = BDF / C, T_comms = a B F / W: compute-bound when D > a C / W. */
  return scale_dtype_bytes(act_dtype) * flops_per_s / link_bytes_per_s;
}

/* ==== chapter 2 ============================================================================= */

double scale_roofline_param_load_s(const scale_chip *chip, double n_params, scale_dtype dtype,
                                   double n_chips) {
  if (chip == NULL || !dtype_ok(dtype) || !nonneg(n_params) || !(n_chips >= 1.0) ||
      !isfinite(n_chips))
    return (double)NAN;
  return scale_roofline_t_comms_s(n_params * scale_dtype_bytes(dtype) / n_chips,
                                  chip->hbm_bytes_per_s);
}

scale_slice_totals scale_roofline_slice_totals(const scale_chip *chip, const double *shape,
                                               scale_dtype dtype) {
  scale_slice_totals t = {(double)NAN, (double)NAN, (double)NAN,
                          (double)NAN, (double)NAN, (double)NAN};
  if (chip == NULL) return t;
  const double *s = shape != NULL ? shape : chip->pod_shape;
  double n = 1.0;
  for (int i = 0; i < 3; i++) {
    double v = s[i];
    if (shape == NULL && i == 2 && isnan(v)) v = 1.0; /* 2-D pods may leave Z unknown */
    if (!(v >= 1.0) || !isfinite(v)) return t;
    n *= v;
  }
  t.n_chips = n;
  double host = 1.0;
  for (int i = 0; i < 3; i++)
    host *= isnan(chip->host_shape[i]) && i == 2 ? 1.0 : chip->host_shape[i];
  t.n_hosts = ceil(n / host); /* NaN stays NaN when the host shape is unknown */
  t.n_cores = n * chip->n_cores;
  t.flops_per_s = dtype_ok(dtype) ? n * scale_chip_flops_per_s(chip, dtype) : (double)NAN;
  t.hbm_bytes = n * chip->hbm_bytes;
  t.hbm_bytes_per_s = n * chip->hbm_bytes_per_s;
  return t;
}
