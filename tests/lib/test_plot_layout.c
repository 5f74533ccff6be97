/* test_plot_layout.c — the layout rules of plot.h: a legend never covers data (it moves to a free
 * corner, else outside the plot area), labels of annotated points and reference lines never
 * overlap each other nor leave the canvas, and series are told apart by dash pattern and glyph
 * as well as colour, a line hidden under another one included.
 *
 * Text extents are estimated as plot.c does (0.6 em per character at 12 px, 0.8 em above the
 * baseline, 0.25 em below); tests/cli/test_figure_layout.sh applies the same check to every
 * figure of the book.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/plot.h"
#include "scale_check.h"

static char svg[1 << 18];

typedef struct {
  double x0, y0, x1, y1;
  char text[128];
} text_box;

/** Reads the attribute NAME="..." of the element starting at p (up to its '>') as a double. */
static double attr(const char *p, const char *name, double fallback) {
  const char *end = strchr(p, '>');
  char key[40];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *a = strstr(p, key);
  if (!a || (end && a > end)) return fallback;
  return strtod(a + strlen(key), NULL);
}

static bool has_attr(const char *p, const char *text) {
  const char *end = strchr(p, '>');
  const char *a = strstr(p, text);
  return a && (!end || a < end);
}

/** The boxes of the plain (unrotated) <text> elements of 'doc'; returns their count. */
static size_t text_boxes(const char *doc, text_box *out, size_t max) {
  size_t n = 0;
  for (const char *p = doc; (p = strstr(p, "<text ")) && n < max; p++) {
    if (has_attr(p, "transform=")) continue;
    const char *open = strchr(p, '>'), *close = strstr(p, "</text>");
    ck_assert(open && close && open < close);
    size_t len = (size_t)(close - open - 1);
    double chars = 0;
    for (const char *c = open + 1; c < close; c++) {
      if (*c == '&') c = strchr(c, ';'); /* an entity is one character */
      if (((unsigned char)*c & 0xC0) != 0x80) chars++;
    }
    double fs = attr(p, "font-size", 12.0);
    double w = chars * fs * (has_attr(p, "font-weight=\"bold\"") ? 0.65 : 0.6);
    double x = attr(p, "x", 0), y = attr(p, "y", 0);
    double left = has_attr(p, "text-anchor=\"middle\"") ? x - w / 2
                  : has_attr(p, "text-anchor=\"end\"")  ? x - w
                                                        : x;
    out[n] = (text_box){left, y - 0.8 * fs, left + w, y + 0.25 * fs, ""};
    snprintf(out[n].text, sizeof out[n].text, "%.*s", (int)(len < 120 ? len : 120), open + 1);
    n++;
  }
  return n;
}

/** Fails when two text boxes overlap or one leaves the W x H canvas. */
static void check_text_layout(const char *doc, double W, double H) {
  static text_box b[512];
  size_t n = text_boxes(doc, b, 512);
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(b[i].x0 >= -0.01 && b[i].y0 >= -0.01 && b[i].x1 <= W + 0.01 &&
                      b[i].y1 <= H + 0.01,
                  "'%s' leaves the canvas", b[i].text);
    for (size_t j = i + 1; j < n; j++)
      ck_assert_msg(!(b[i].x0 < b[j].x1 - 0.01 && b[j].x0 < b[i].x1 - 0.01 &&
                      b[i].y0 < b[j].y1 - 0.01 && b[j].y0 < b[i].y1 - 0.01),
                    "'%s' overlaps '%s'", b[i].text, b[j].text);
  }
}

/** The legend rectangle of 'doc'. */
static void legend_rect(const char *doc, double r[4]) {
  const char *g = strstr(doc, "<g class=\"legend\">");
  ck_assert_ptr_nonnull(g);
  const char *rect = strstr(g, "<rect ");
  ck_assert_ptr_nonnull(rect);
  r[0] = attr(rect, "x", 0), r[1] = attr(rect, "y", 0);
  r[2] = r[0] + attr(rect, "width", 0), r[3] = r[1] + attr(rect, "height", 0);
}

/** The plot area (the clip rectangle) of 'doc'. */
static void plot_area(const char *doc, double r[4]) {
  const char *c = strstr(doc, "<clipPath id=\"plot-area\"><rect ");
  ck_assert_ptr_nonnull(c);
  c = strstr(c, "<rect ");
  r[0] = attr(c, "x", 0), r[1] = attr(c, "y", 0);
  r[2] = r[0] + attr(c, "width", 0), r[3] = r[1] + attr(c, "height", 0);
}

/* A rising line and a falling one on a linear 0..10 square: they cross in the middle and touch
 * all four corners, so no corner of the plot area is free for a legend. */
static const double cx[] = {0, 10}, up[] = {0, 10}, down[] = {10, 0};

START_TEST(legend_moves_outside_when_every_corner_has_data) {
  scale_plot_series s[2] = {{.label = "rising series", .x = cx, .y = up, .n = 2},
                            {.label = "falling series", .x = cx, .y = down, .n = 2}};
  scale_plot plot = {.title = "Crossing lines", .x_label = "x", .y_label = "y",
                     .legend = SCALE_PLOT_LEGEND_TOP_LEFT, .series = s, .n_series = 2};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  double legend[4], area[4];
  legend_rect(svg, legend);
  plot_area(svg, area);
  ck_assert_msg(legend[0] >= area[2], "legend x %g inside the plot area ending at %g", legend[0],
                area[2]);
  ck_assert(legend[2] <= 640.0);
  check_text_layout(svg, 640, 400);
}
END_TEST

START_TEST(legend_takes_a_free_corner) {
  /* Only the rising line: the top-left corner is free, so a legend asked for at the top right
   * (where the line ends) goes there, inside the plot area. */
  scale_plot_series s = {.label = "rising series", .x = cx, .y = up, .n = 2};
  scale_plot plot = {.legend = SCALE_PLOT_LEGEND_TOP_RIGHT, .series = &s, .n_series = 1};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  double legend[4], area[4];
  legend_rect(svg, legend);
  plot_area(svg, area);
  ck_assert(legend[0] > area[0] && legend[0] < (area[0] + area[2]) / 2);
  ck_assert(legend[1] < (area[1] + area[3]) / 2);
  ck_assert_double_eq_tol(area[2], 620.0, 1e-9); /* the plot area keeps its full width */
}
END_TEST

START_TEST(legend_keeps_its_corner_when_free) {
  scale_plot_series s = {.label = "rising series", .x = cx, .y = up, .n = 2};
  scale_plot plot = {.legend = SCALE_PLOT_LEGEND_BOTTOM_RIGHT, .series = &s, .n_series = 1};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  double legend[4], area[4];
  legend_rect(svg, legend);
  plot_area(svg, area);
  ck_assert_double_eq_tol(legend[2], area[2] - 8.0, 1e-9);
  ck_assert_double_eq_tol(legend[3], area[3] - 8.0, 1e-9);
}
END_TEST

START_TEST(crowded_point_labels_do_not_collide) {
  /* Twelve points in a tight cluster (and two on the very same spot), labels longer than the
   * gaps between them, one near the right edge of the canvas: every label finds a free place
   * inside the canvas (further out with a leader line if need be). */
  scale_plot_point pts[14];
  static char names[14][32];
  for (int i = 0; i < 12; i++) {
    snprintf(names[i], sizeof names[i], "Model number %d", i);
    pts[i] = (scale_plot_point){.x = 5.0 + 0.05 * i, .y = 5.0 + 0.04 * (i % 3), .label = names[i]};
  }
  pts[12] = (scale_plot_point){.x = 5.0, .y = 5.0, .label = "Twin at the same spot"};
  pts[13] = (scale_plot_point){.x = 10.0, .y = 2.0, .label = "A label at the right edge"};
  scale_plot plot = {.title = "Crowded", .x_min = 0, .x_max = 10, .y_min = 0, .y_max = 10,
                     .points = pts, .n_points = 14};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  check_text_layout(svg, 640, 400);
  ck_assert_ptr_nonnull(strstr(svg, ">Twin at the same spot</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "stroke=\"#999999\"/>")); /* some leader line */
}
END_TEST

START_TEST(marker_labels_do_not_collide) {
  /* Two vertical reference lines 3 px apart and a long title: their labels stack, and the one
   * next to the right edge turns to the left of its line. */
  static const double x[] = {1, 100}, y[] = {1, 100};
  scale_plot_series s = {.x = x, .y = y, .n = 2};
  scale_plot_marker m[3] = {{.vertical = true, .at = 50.0, .label = "first threshold"},
                            {.vertical = true, .at = 50.5, .label = "second threshold"},
                            {.vertical = true, .at = 99.0, .label = "at the edge"}};
  scale_plot plot = {.title = "A very long title that goes on and on about reference lines",
                     .series = &s, .n_series = 1, .markers = m, .n_markers = 3};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  check_text_layout(svg, 640, 400);
}
END_TEST

START_TEST(series_differ_by_dash_and_glyph) {
  /* Four dashed series get four different dash patterns; the glyphs of series 0, 1, 2 are a
   * circle, a square and a triangle (in the plot and in the legend). */
  static const double x[] = {1, 2, 3}, y0[] = {1, 2, 3}, y1[] = {2, 3, 4}, y2[] = {3, 4, 5},
                      y3[] = {4, 5, 6};
  scale_plot_series s[4] = {{.label = "a", .x = x, .y = y0, .n = 3, .dashed = true},
                            {.label = "b", .x = x, .y = y1, .n = 3, .dashed = true},
                            {.label = "c", .x = x, .y = y2, .n = 3, .dashed = true},
                            {.label = "d", .x = x, .y = y3, .n = 3, .dashed = true}};
  scale_plot plot = {.series = s, .n_series = 4};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  const char *patterns[] = {"stroke-dasharray=\"6 4\"", "stroke-dasharray=\"2 3\"",
                            "stroke-dasharray=\"9 3 2 3\"", "stroke-dasharray=\"12 4 4 4\""};
  for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(strstr(svg, patterns[i]));
  ck_assert_ptr_nonnull(strstr(svg, "<circle "));
  ck_assert_ptr_nonnull(strstr(svg, "<rect x="));
  ck_assert_ptr_nonnull(strstr(svg, "<polygon "));
}
END_TEST

START_TEST(hidden_series_is_widened) {
  /* Two series with the same points: the first, drawn underneath, is widened (2 + 3 px) so it
   * shows around the second; the second keeps 2 px. */
  static const double x[] = {1, 2, 3}, y[] = {1, 2, 3};
  scale_plot_series s[2] = {{.label = "weights", .x = x, .y = y, .n = 3},
                            {.label = "gradients", .x = x, .y = y, .n = 3}};
  scale_plot plot = {.series = s, .n_series = 2};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  const char *first = strstr(svg, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"5\"");
  const char *second = strstr(svg, "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"");
  ck_assert_ptr_nonnull(first);
  ck_assert_ptr_nonnull(second);
  ck_assert(first < second);
}
END_TEST

/** Number of elements of 'doc' filled with 'color' (glyphs: circles, squares, polygons). */
static int filled_with(const char *doc, const char *color) {
  char key[40];
  snprintf(key, sizeof key, "fill=\"%s\"", color);
  int n = 0;
  for (const char *p = doc; (p = strstr(p, key)); p++)
    n++;
  return n;
}

START_TEST(guide_lines_have_no_glyphs) {
  /* A scatter (series 0, dots: 3 blue circles) with a diagonal (series 1, red, 2 points) and a
   * +-25% band (series 2, green, dashed: two 2-point pieces split by a NaN): the straight guides
   * draw no glyph, in the plot or in the legend, since a red square on the diagonal would read
   * as one more data point. A 3-point line (series 3, orange) keeps its diamonds. */
  static const double x[] = {1, 2, 3}, y[] = {1.1, 2.2, 2.7}, d[] = {0.5, 4},
                      bx[] = {0.5, 4, NAN, 0.5, 4}, by[] = {0.625, 5, NAN, 0.375, 3},
                      cy[] = {3, 1, 3};
  scale_plot_series s[4] = {{.label = "runs", .x = x, .y = y, .n = 3, .dots = true},
                            {.label = "predicted = measured", .x = d, .y = d, .n = 2},
                            {.label = "+-25%", .x = bx, .y = by, .n = 5, .dashed = true},
                            {.label = "a curve", .x = x, .y = cy, .n = 3}};
  scale_plot plot = {.series = s, .n_series = 4};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_int_eq(filled_with(svg, "#1f77b4"), 3 + 1); /* three circles and the legend's */
  ck_assert_int_eq(filled_with(svg, "#d62728"), 0);
  ck_assert_int_eq(filled_with(svg, "#2ca02c"), 0);
  ck_assert_int_gt(filled_with(svg, "#ff7f0e"), 1);
  ck_assert_ptr_nonnull(strstr(svg, "stroke=\"#d62728\" stroke-width=\"2\" points="));
  ck_assert_ptr_nonnull(strstr(svg, "stroke=\"#2ca02c\" stroke-width=\"2\" stroke-dasharray="));
}
END_TEST

START_TEST(guide_sharing_a_style_keeps_its_glyphs) {
  /* Nine solid series: the ninth, a straight 2-point line, shares blue and a solid stroke with
   * the first (a 3-point line), so only its glyph (a square, 8 mod 7 = 1) tells them apart. */
  static const double x[] = {1, 2, 3}, d[] = {1, 3},
                      y[8][3] = {{1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {4, 5, 6},
                                 {5, 6, 7}, {6, 7, 8}, {7, 8, 9}, {8, 9, 10}};
  scale_plot_series s[9];
  for (int i = 0; i < 8; i++)
    s[i] = (scale_plot_series){.label = "line", .x = x, .y = y[i], .n = 3};
  s[8] = (scale_plot_series){.label = "straight", .x = d, .y = d, .n = 2};
  scale_plot plot = {.series = s, .n_series = 9};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  ck_assert_ptr_nonnull(strstr(svg, "<rect x=")); /* series 1's and 8's squares */
  const char *sq = svg;
  int blue_squares = 0;
  while ((sq = strstr(sq, "<rect x="))) {
    const char *end = strchr(sq, '>');
    const char *fill = strstr(sq, "fill=\"#1f77b4\"");
    blue_squares += fill && fill < end;
    sq = end;
  }
  ck_assert_int_gt(blue_squares, 1); /* in the plot and in the legend */
}
END_TEST

START_TEST(scatter_legend_shows_its_glyph_alone) {
  /* Lone points (a NaN between every two) draw no line, so their legend entry has no line
   * sample, only the glyph; a series that draws a line keeps its sample. */
  static const double x[] = {1, NAN, 2, NAN, 3}, y[] = {1, NAN, 2, NAN, 3}, lx[] = {1, 3},
                      ly[] = {3, 1};
  scale_plot_series s[2] = {{.label = "runs", .x = x, .y = y, .n = 5, .dots = true},
                            {.label = "a line", .x = lx, .y = ly, .n = 2}};
  scale_plot plot = {.series = s, .n_series = 2};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  const char *start = strstr(svg, "<g class=\"legend\">"), *end = start ? strstr(start, "</g>") : 0;
  ck_assert(start && end);
  char legend[4096];
  snprintf(legend, sizeof legend, "%.*s", (int)(end - start), start);
  ck_assert_ptr_null(strstr(legend, "stroke=\"#1f77b4\"")); /* no line sample */
  ck_assert_ptr_nonnull(strstr(legend, "stroke=\"#d62728\""));
  ck_assert_int_eq(filled_with(legend, "#1f77b4"), 1); /* the circle */
}
END_TEST

START_TEST(point_labels_avoid_scattered_glyphs) {
  /* A labelled point with a row of scattered markers (a dots series) just right of and above
   * it, where its label would go first: the label is placed elsewhere, over no marker. */
  static const double x[] = {5.2, NAN, 5.6, NAN, 6.0, NAN, 6.4, NAN, 6.8},
                      y[] = {5.3, NAN, 5.3, NAN, 5.3, NAN, 5.3, NAN, 5.3};
  scale_plot_series s = {.label = "family", .x = x, .y = y, .n = 9, .dots = true};
  scale_plot_point pt = {.x = 5.0, .y = 5.0, .label = "A released model"};
  scale_plot plot = {.x_min = 0, .x_max = 10, .y_min = 0, .y_max = 10, .series = &s,
                     .n_series = 1, .points = &pt, .n_points = 1,
                     .legend = SCALE_PLOT_LEGEND_NONE};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  static text_box b[64];
  size_t n = text_boxes(svg, b, 64), label = n;
  for (size_t i = 0; i < n; i++)
    if (strcmp(b[i].text, "A released model") == 0) label = i;
  ck_assert(label < n);
  int glyphs = 0;
  for (const char *p = svg; (p = strstr(p, "<circle ")); p++, glyphs++) {
    double gx = attr(p, "cx", -1), gy = attr(p, "cy", -1);
    ck_assert_msg(!(gx + 3 > b[label].x0 && gx - 3 < b[label].x1 && gy + 3 > b[label].y0 &&
                    gy - 3 < b[label].y1),
                  "the label covers the marker at (%g, %g)", gx, gy);
  }
  ck_assert_int_eq(glyphs, 5 + 1); /* the markers and the point's own dot */
}
END_TEST

START_TEST(long_title_fits_the_canvas) {
  scale_plot plot = {.title = "Share of a layer's training FLOPs in dot-product attention, causal, "
                              "for every model of the chapter"};
  ck_assert_int_eq(scale_plot_svg(&plot, svg, sizeof svg, NULL, NULL), SCALE_OK);
  check_text_layout(svg, 640, 400);
}
END_TEST

int main(void) {
  Suite *s = suite_create("plot_layout");
  const scale_check_case cases[] = {
      {"legend_moves_outside_when_every_corner_has_data",
       legend_moves_outside_when_every_corner_has_data},
      {"legend_takes_a_free_corner", legend_takes_a_free_corner},
      {"legend_keeps_its_corner_when_free", legend_keeps_its_corner_when_free},
      {"crowded_point_labels_do_not_collide", crowded_point_labels_do_not_collide},
      {"marker_labels_do_not_collide", marker_labels_do_not_collide},
      {"series_differ_by_dash_and_glyph", series_differ_by_dash_and_glyph},
      {"hidden_series_is_widened", hidden_series_is_widened},
      {"guide_lines_have_no_glyphs", guide_lines_have_no_glyphs},
      {"guide_sharing_a_style_keeps_its_glyphs", guide_sharing_a_style_keeps_its_glyphs},
      {"scatter_legend_shows_its_glyph_alone", scatter_legend_shows_its_glyph_alone},
      {"point_labels_avoid_scattered_glyphs", point_labels_avoid_scattered_glyphs},
      {"long_title_fits_the_canvas", long_title_fits_the_canvas},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}
