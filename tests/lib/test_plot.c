/* test_plot.c — SVG plots (plot.h): tick labels, axis geometry, errors on log axes, the buffer
 * contract, and golden files compared byte for byte (the .svg files of tests/data/plot/).
 *
 * To regenerate the golden files after an intended change of the drawing code, run this test
 * with SCALE_UPDATE_GOLDEN=1 and review the diff of tests/data/plot/ before committing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/plot.h"
#include "scale_check.h"

#ifndef SCALE_TEST_DATA_DIR
#define SCALE_TEST_DATA_DIR "tests/data"
#endif

static char svg[1 << 17];
static char other[1 << 17];

/* ---- fixtures ------------------------------------------------------------------------------- */

/* The ch. 1 roofline of a TPU v5e ("All About Rooflines"): peak bf16 1.97e14 FLOP/s, HBM
 * 8.2e11 bytes/s, so the ridge sits at 1.97e14 / 8.2e11 = 240.2 FLOP/byte. Numbers typed here
 * are fixture inputs of a drawing test, not values under test. */
enum { ROOF_N = 13 };
static double roof_x[ROOF_N], roof_y[ROOF_N];

static scale_plot roofline_plot(scale_plot_series *series, scale_plot_marker *marker,
                                scale_plot_point *point) {
  for (int i = 0; i < ROOF_N; i++) {
    roof_x[i] = pow(10.0, i / 3.0);
    roof_y[i] = fmin(1.97e14, roof_x[i] * 8.2e11);
  }
  *series = (scale_plot_series){.label = "TPU v5e (bf16)", .x = roof_x, .y = roof_y,
                                .n = ROOF_N};
  *marker = (scale_plot_marker){.vertical = true, .at = 1.97e14 / 8.2e11,
                                .label = "critical intensity"};
  *point = (scale_plot_point){.x = 100.0, .y = 8.2e13, .label = "a <small> matmul & co"};
  return (scale_plot){.title = "Roofline of a TPU v5e",
                      .desc = "Attainable FLOP/s against arithmetic intensity, log-log.",
                      .x_label = "arithmetic intensity [FLOP/byte]",
                      .y_label = "attainable [FLOP/s]",
                      .x_axis = SCALE_PLOT_LOG,
                      .y_axis = SCALE_PLOT_LOG,
                      .series = series,
                      .n_series = 1,
                      .markers = marker,
                      .n_markers = 1,
                      .points = point,
                      .n_points = 1};
}

static const double lin_x[] = {0, 1, 2, 3, 4, 5, 6};
static const double lin_a[] = {0.1, 0.3, NAN, 0.5, 0.6, 0.8, 0.97}; /* NaN: a gap */
static const double lin_b[] = {0.9, 0.7, 0.55, 0.4, 0.3, 0.2, 0.1};

static scale_plot linear_plot(scale_plot_series series[2], scale_plot_marker *marker) {
  series[0] = (scale_plot_series){.label = "rising", .x = lin_x, .y = lin_a, .n = 7,
                                  .dots = true};
  series[1] = (scale_plot_series){.label = "falling", .x = lin_x, .y = lin_b, .n = 7,
                                  .dashed = true};
  *marker = (scale_plot_marker){.vertical = false, .at = 0.5, .label = "half"};
  return (scale_plot){.x_label = "step",
                      .y_label = "fraction",
                      .width_px = 480,
                      .height_px = 300,
                      .legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
                      .series = series,
                      .n_series = 2,
                      .markers = marker,
                      .n_markers = 1};
}

/** Compares 'text' with the golden file NAME (or rewrites it under SCALE_UPDATE_GOLDEN). */
static void check_golden(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/plot/%s", SCALE_TEST_DATA_DIR, name);
  const char *update = getenv("SCALE_UPDATE_GOLDEN");
  if (update && update[0] == '1') {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
  }
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "missing golden file %s (run with SCALE_UPDATE_GOLDEN=1)", path);
  size_t n = fread(other, 1, sizeof other - 1, f);
  fclose(f);
  other[n] = '\0';
  size_t i = 0;
  while (text[i] && text[i] == other[i]) i++;
  ck_assert_msg(text[i] == other[i], "%s differs from the output at byte %zu", path, i);
}

/* ---- tick labels ---------------------------------------------------------------------------- */

START_TEST(tick_labels) {
  char b[40];
  /* Plain between 1e-3 and 1e5, compact exponents outside (plot.h contract). */
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 0.0), "0");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 0.25), "0.25");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 4096.0), "4096");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 3 * 0.2), "0.6"); /* 0.6000000000000001 */
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 1e5), "1e5");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 2e14), "2e14");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, 2.5e-5), "2.5e-5");
  ck_assert_str_eq(scale_plot_tick_label(b, sizeof b, -1.97e14), "-1.97e14");
}
END_TEST

/* ---- geometry ------------------------------------------------------------------------------- */

START_TEST(log_axis_geometry) {
  /* Default canvas 640 x 400 with a title: plot area x 72..620, y 36..350 (plot.c margins).
   * Data 3..4000 on a log x axis widens to whole decades 1..10000 (plain labels below 1e5), so x = 100 sits half-way:
   * 72 + 0.5 * 548 = 346. y data 20..30 widens to 10..100; y = 10^1.5 sits half-way too:
   * 350 - 0.5 * 314 = 193 (hand derivation). */
  static const double x[] = {3, 4000}, y[] = {20, 30};
  scale_plot_series s = {.x = x, .y = y, .n = 2};
  scale_plot_point p = {.x = 100.0, .y = pow(10.0, 1.5)};
  scale_plot plot = {.title = "t", .x_axis = SCALE_PLOT_LOG, .y_axis = SCALE_PLOT_LOG,
                     .series = &s, .n_series = 1, .points = &p, .n_points = 1};
  size_t len = 0;
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, &len, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "<circle cx=\"346\" cy=\"193\""));
  ck_assert_ptr_nonnull(strstr(svg, ">10000</text>"));
  ck_assert_ptr_nonnull(strstr(svg, ">1</text>"));
  ck_assert_ptr_null(strstr(svg, ">100000</text>"));
}
END_TEST

START_TEST(linear_axis_range) {
  /* y data 0.1..0.97: span 0.87 / 5 = 0.174 -> nice step 0.2, range widened to 0..1; the
   * x data 0..6: 6 / 5 = 1.2 -> step 1 -> ticks 0..6 (plot.c nice_step). */
  scale_plot_series series[2];
  scale_plot_marker marker;
  scale_plot plot = linear_plot(series, &marker);
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, ">0.6</text>"));
  ck_assert_ptr_nonnull(strstr(svg, ">1</text>"));
  ck_assert_ptr_null(strstr(svg, ">1.2</text>"));
  ck_assert_ptr_nonnull(strstr(svg, ">6</text>"));
  ck_assert_ptr_null(strstr(svg, ">7</text>"));
  /* The NaN in 'rising' splits it into two polylines; 'falling' is one: three in all. */
  int n = 0;
  for (const char *p = svg; (p = strstr(p, "<polyline")); p++) n++;
  ck_assert_int_eq(n, 3);
}
END_TEST

START_TEST(escapes_text) {
  scale_plot_series s;
  scale_plot_marker m;
  scale_plot_point p;
  scale_plot plot = roofline_plot(&s, &m, &p);
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "a &lt;small&gt; matmul &amp; co"));
  ck_assert_ptr_null(strstr(svg, "<small>"));
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

START_TEST(log_axis_rejects_nonpositive) {
  static const double x[] = {1, 10, 100}, y[] = {5, 0, 7};
  scale_plot_series s = {.label = "bad", .x = x, .y = y, .n = 3};
  scale_plot plot = {.y_axis = SCALE_PLOT_LOG, .series = &s, .n_series = 1};
  scale_diag diag = {0};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, &diag), SCALE_ERR_RANGE);
  ck_assert_ptr_nonnull(strstr(diag.message, "not positive"));
  ck_assert_ptr_nonnull(strstr(diag.message, "bad"));
  ck_assert_str_eq(svg, "");
  /* Nothing reaches a stream for an invalid plot. */
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(scale_plot_write(&plot, f, NULL), SCALE_ERR_RANGE);
  ck_assert_int_eq(ftell(f), 0);
  fclose(f);
  /* The same data on a linear axis is fine. */
  plot.y_axis = SCALE_PLOT_LINEAR;
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  /* A marker at 0 on a log axis and an explicit range bound <= 0 are errors as well. */
  static const double ok_y[] = {5, 6, 7};
  s.y = ok_y;
  plot.y_axis = SCALE_PLOT_LOG;
  scale_plot_marker m = {.vertical = false, .at = 0.0};
  plot.markers = &m, plot.n_markers = 1;
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_ERR_RANGE);
  plot.n_markers = 0;
  plot.y_min = -1.0, plot.y_max = 10.0;
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_ERR_RANGE);
}
END_TEST

START_TEST(invalid_arguments) {
  scale_plot_series s = {.label = "x", .x = NULL, .y = NULL, .n = 2};
  scale_plot plot = {.series = &s, .n_series = 1};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_plot_svg(NULL, svg, sizeof svg, NULL, NULL), SCALE_ERR_INVALID);
  plot.n_series = 0;
  plot.series = NULL;
  /* An empty plot is valid: axes with default ranges. */
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "</svg>\n"));
}
END_TEST

/* ---- buffer and stream contract ------------------------------------------------------------- */

START_TEST(buffer_contract) {
  scale_plot_series s;
  scale_plot_marker m;
  scale_plot_point p;
  scale_plot plot = roofline_plot(&s, &m, &p);
  size_t need = 0, len = 0;
  ck_assert_int_eq(scale_plot_svg(&plot, NULL, 0, &need, NULL), SCALE_ERR_RANGE);
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, &len, NULL), SCALE_OK);
  ck_assert_uint_eq(len, need);
  ck_assert_uint_eq(strlen(svg), len);
  /* A short buffer holds a NUL-terminated prefix and reports the full length. */
  char small[100];
  size_t len2 = 0;
  ck_assert_int_eq(scale_plot_svg(&plot, small, sizeof small, &len2, NULL), SCALE_ERR_RANGE);
  ck_assert_uint_eq(len2, len);
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
  ck_assert_int_eq(strncmp(small, svg, sizeof small - 1), 0);
  /* The stream writer produces the same bytes. */
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(scale_plot_write(&plot, f, NULL), SCALE_OK);
  rewind(f);
  size_t n = fread(other, 1, sizeof other - 1, f);
  fclose(f);
  other[n] = '\0';
  ck_assert_str_eq(other, svg);
}
END_TEST

/* ---- golden files --------------------------------------------------------------------------- */

START_TEST(golden_roofline) {
  scale_plot_series s;
  scale_plot_marker m;
  scale_plot_point p;
  scale_plot plot = roofline_plot(&s, &m, &p);
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  check_golden("roofline.svg", svg);
  /* The ridge (critical intensity 240.2 FLOP/byte, ch. 1) is drawn and labelled. */
  ck_assert_ptr_nonnull(strstr(svg, ">critical intensity</text>"));
}
END_TEST

START_TEST(golden_linear) {
  scale_plot_series series[2];
  scale_plot_marker marker;
  scale_plot plot = linear_plot(series, &marker);
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  check_golden("linear.svg", svg);
}
END_TEST

START_TEST(book_frame) {
  /* The book's figure frame: 720 x 460, the captions given, the legend top left; it draws. */
  static const double x[] = {1, 10}, y[] = {2, 20};
  scale_plot_series sr = {.label = "a line", .x = x, .y = y, .n = 2};
  scale_plot p = scale_plot_frame("T", "D", "x [s]", "y [B]", SCALE_PLOT_LOG, SCALE_PLOT_LINEAR,
                                  &sr, 1);
  ck_assert(p.width_px == 720 && p.height_px == 460 && p.legend == SCALE_PLOT_LEGEND_TOP_LEFT);
  ck_assert(p.x_axis == SCALE_PLOT_LOG && p.y_axis == SCALE_PLOT_LINEAR && p.n_markers == 0);
  ck_assert_int_eq(scale_plot_svg(&p, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "width=\"720\" height=\"460\""));
  ck_assert_ptr_nonnull(strstr(svg, "<desc>D</desc>"));
  ck_assert_ptr_nonnull(strstr(svg, ">y [B]</text>"));
}
END_TEST

START_TEST(parity_frame) {
  /* Predicted against measured over [1, 100] s with a 25% band: the identity from (1, 1) to
   * (100, 100), the band's lines 1.25 x and 0.75 x (1.25 to 125, 0.75 to 75), both axes
   * logarithmic over the range; it draws with the dots set on it. */
  scale_plot_parity_lines l;
  scale_plot p = scale_plot_parity("T", "D", "measured [s]", "predicted [s]", 1, 100, 0.25, &l);
  ck_assert(p.x_axis == SCALE_PLOT_LOG && p.y_axis == SCALE_PLOT_LOG && p.n_series == 3);
  ck_assert(p.x_min == 1 && p.x_max == 100 && p.y_min == 1 && p.y_max == 100);
  ck_assert(p.legend == SCALE_PLOT_LEGEND_TOP_LEFT && p.series == l.series);
  ck_assert_str_eq(l.series[0].label, "predicted = measured");
  ck_assert(l.series[0].y[1] == 100 && !l.series[0].dashed);
  ck_assert_str_eq(l.series[1].label, "+25%");
  ck_assert_str_eq(l.series[2].label, "-25%");
  scale_check_rel(l.series[1].y[0], 1.25, 1e-15, "s", "(1 + 0.25) x 1");
  scale_check_rel(l.series[1].y[1], 125.0, 1e-15, "s", "(1 + 0.25) x 100");
  scale_check_rel(l.series[2].y[1], 75.0, 1e-15, "s", "(1 - 0.25) x 100");
  ck_assert(l.series[1].dashed && l.series[2].dashed && l.series[2].x[0] == 1);
  const scale_plot_point pts[] = {{2, 3, NULL}, {40, 30, NULL}};
  p.points = pts, p.n_points = 2;
  ck_assert_int_eq(scale_plot_svg(&p, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "predicted = measured"));
  ck_assert_ptr_nonnull(strstr(svg, "+25%"));
}
END_TEST

static Suite *plot_suite(void) {
  Suite *s = suite_create("plot");
  const scale_check_case cases[] = {{"tick_labels", tick_labels},
                                    {"log_axis_geometry", log_axis_geometry},
                                    {"linear_axis_range", linear_axis_range},
                                    {"escapes_text", escapes_text},
                                    {"log_axis_rejects_nonpositive", log_axis_rejects_nonpositive},
                                    {"invalid_arguments", invalid_arguments},
                                    {"buffer_contract", buffer_contract},
                                    {"golden_roofline", golden_roofline},
                                    {"golden_linear", golden_linear},
                                    {"book_frame", book_frame},
                                    {"parity_frame", parity_frame}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(plot_suite()); }
