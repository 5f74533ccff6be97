/* roofline.c — the module's export for the roofline explorer (chapter 1, widget-roofline.js).
 *
 * scale_web_roofline(): hw, dtype, b, d, f -> the matmul X[b,d] . W[d,f] on the chip's HBM
 * roofline, computed exactly as `scale roofline --hw HW --matmul B,D,F --act-dtype T
 * --weight-dtype T --compute-dtype T --json` computes it (src/cli/roofline.c), plus the
 * roofline plot with the matmul's point (plot.h).
 */
#include <math.h>
#include <stdio.h>

#include "api.h"

WEB_EXPORT("scale_web_roofline") int scale_web_roofline(void);

/* The roofline min(C, W I) over [lo, hi] with the point (I, attainable) and C / W marked. */
static void roofline_plot(const scale_chip *chip, double c, double w, double intensity) {
  double crit = c / w;
  double lo = fmin(1.0, intensity / 4.0), hi = fmax(1e5, intensity * 4.0);
  double x[3] = {lo, crit, hi}, y[3] = {w * lo, c, c};
  double attain = fmin(c, w * intensity);
  char title[160], point[64], mark[64], t[32];
  snprintf(title, sizeof title, "Roofline of %s (HBM)", chip->display_name);
  snprintf(point, sizeof point, "this matmul: %s",
           scale_format(t, sizeof t, attain, "FLOP/s", SCALE_FMT_SI));
  snprintf(mark, sizeof mark, "C / W = %s", scale_format(t, sizeof t, crit, "", SCALE_FMT_PLAIN));
  scale_plot_series roof = {.label = "attainable FLOP/s", .x = x, .y = y, .n = 3};
  scale_plot_marker m = {.vertical = true, .at = crit, .label = mark};
  scale_plot_point p = {.x = intensity, .y = attain, .label = point};
  scale_plot plot = {.title = title,
                     .desc = "Attainable FLOP/s against arithmetic intensity, log-log, with "
                             "the chosen matmul marked",
                     .x_label = "arithmetic intensity [FLOP/byte]",
                     .y_label = "attainable [FLOP/s]",
                     .x_axis = SCALE_PLOT_LOG,
                     .y_axis = SCALE_PLOT_LOG,
                     .width_px = 640,
                     .height_px = 360,
                     .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                     .series = &roof,
                     .n_series = 1,
                     .markers = &m,
                     .n_markers = 1,
                     .points = &p,
                     .n_points = 1};
  web_json_svg("svg", &plot);
}

/** hw (default tpu-v5e), dtype (bf16) for activations, weights and the matmul units, and the
 * shape b, d, f (whole numbers in [1, 1e7]). Answer: the fields of `scale roofline --json`,
 * each number with its _text display, the bound, and "svg". */
int scale_web_roofline(void) {
  if (!web_request_parse()) return 2;
  static scale_chip chip;
  scale_dtype dtype;
  if (!web_chip("hw", "tpu-v5e", &chip) || !web_dtype("dtype", SCALE_DTYPE_BF16, &dtype)) return 2;
  double b = web_num("b", 4096, 1, 1e7), d = web_num("d", 8192, 1, 1e7),
         f = web_num("f", 8192, 1, 1e7);
  if (web_failed()) return 2;
  if (b != floor(b) || d != floor(d) || f != floor(f))
    return web_error("b, d and f must be whole numbers");
  double c = scale_chip_flops_per_s(&chip, dtype);
  if (!(c > 0.0)) return web_error("%s has no %s matmul rate", chip.name, scale_dtype_name(dtype));
  double w = scale_roofline_channel_bytes_per_s(&chip, SCALE_CHANNEL_HBM);
  if (!(w > 0.0)) return web_error("%s has no HBM bandwidth", chip.name);
  scale_matmul mm = {
      .b = b, .d = d, .f = f, .act_dtype = dtype, .weight_dtype = dtype, .compute_dtype = dtype};
  double flops = scale_roofline_matmul_flops(b, d, f);
  double bytes = scale_roofline_matmul_bytes(&mm);
  scale_roofline_estimate e = scale_roofline_eval(flops, bytes, c, w);
  double crit_batch = scale_roofline_matmul_critical_batch(&mm, c, w);
  if (!isfinite(e.t_lower_s) || !isfinite(e.intensity_flops_per_byte))
    return web_error("this shape gives a time that is not finite");

  web_json_begin();
  web_json_str("hw", chip.name);
  web_json_str("hw_display", chip.display_name);
  web_json_str("dtype", scale_dtype_name(dtype));
  web_json_fmt("flops_per_s", c, "FLOP/s", SCALE_FMT_SI);
  web_json_fmt("bytes_per_s", w, "B/s", SCALE_FMT_SI);
  web_json_fmt("flops", e.flops, "FLOP", SCALE_FMT_SCI);
  web_json_fmt("bytes", e.bytes, "B", SCALE_FMT_SI);
  web_json_fmt("intensity_flops_per_byte", e.intensity_flops_per_byte, "FLOP/byte",
               SCALE_FMT_PLAIN);
  web_json_fmt("critical_intensity_flops_per_byte", e.critical_intensity_flops_per_byte,
               "FLOP/byte", SCALE_FMT_PLAIN);
  web_json_fmt("t_math_s", e.t_math_s, "", SCALE_FMT_TIME);
  web_json_fmt("t_comms_s", e.t_comms_s, "", SCALE_FMT_TIME);
  web_json_fmt("t_lower_s", e.t_lower_s, "", SCALE_FMT_TIME);
  web_json_fmt("t_upper_s", e.t_upper_s, "", SCALE_FMT_TIME);
  web_json_str("bound", e.compute_bound ? "compute" : "memory");
  web_json_fmt("critical_batch", crit_batch, "", SCALE_FMT_PLAIN);
  roofline_plot(&chip, c, w, e.intensity_flops_per_byte);
  return web_json_end();
}
