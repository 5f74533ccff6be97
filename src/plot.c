/* plot.c — deterministic SVG line plots (plot.h).
 *
 * Three passes: validate the description (log axes need positive values), choose the axis
 * ranges and ticks, then write the document through a tiny sink that targets either a caller
 * buffer (snprintf-style, measuring what does not fit) or a FILE*. Every number in the output
 * goes through fmt_num() (two decimals, trailing zeros dropped) or scale_plot_tick_label(),
 * so the bytes depend only on the description.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/plot.h"
#include "scale/units.h"

/* ---- output sink ---------------------------------------------------------------------------- */

typedef struct {
  FILE *file;  /**< non-NULL: write here */
  char *buf;   /**< else: write here (may be NULL when size == 0) */
  size_t size; /**< capacity of buf */
  size_t len;  /**< bytes produced so far (may exceed size) */
  bool failed; /**< a FILE write failed */
} sink;

static void emit(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(sink *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (s->file) {
    if (vfprintf(s->file, fmt, ap) < 0) s->failed = true;
  } else {
    size_t room = s->len < s->size ? s->size - s->len : 0;
    int n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    if (n > 0) s->len += (size_t)n;
  }
  va_end(ap);
}

/** Writes 'text' with the five XML special characters escaped. */
static void emit_text(sink *s, const char *text) {
  for (const char *p = text ? text : ""; *p; p++) {
    const char *entity = scale_xml_entity(*p);
    if (entity)
      emit(s, "%s", entity);
    else
      emit(s, "%c", *p);
  }
}

/** Formats a pixel coordinate: two decimals, trailing zeros and a bare "-0" removed. */
static const char *fmt_num(char buf[32], double v) {
  snprintf(buf, 32, "%.2f", v);
  char *dot = strchr(buf, '.');
  if (dot) {
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0')
      *end-- = '\0';
    if (end == dot) *end = '\0';
  }
  if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
  return buf;
}

char *scale_plot_tick_label(char *buf, size_t size, double value) {
  if (size == 0) return buf;
  double a = fabs(value);
  if (value == 0.0 || !isfinite(value)) {
    snprintf(buf, size, "%s", value == 0.0 ? "0" : (isnan(value) ? "nan" : "inf"));
    return buf;
  }
  if (a >= 1e-3 && a < 1e5) {
    snprintf(buf, size, "%.6g", value);
    return buf;
  }
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%.5e", value); /* "-2.50000e+14" */
  char *e = strchr(tmp, 'e');
  if (!e) {
    snprintf(buf, size, "%s", tmp);
    return buf;
  }
  *e = '\0';
  char *exp = e + 1;
  char *end = e - 1; /* strip mantissa zeros: "2.50000" -> "2.5", "1.00000" -> "1" */
  while (*end == '0')
    *end-- = '\0';
  if (*end == '.') *end = '\0';
  bool neg = *exp == '-';
  if (*exp == '+' || *exp == '-') exp++;
  while (exp[0] == '0' && exp[1])
    exp++;
  snprintf(buf, size, "%se%s%s", tmp, neg ? "-" : "", exp);
  return buf;
}

/* ---- validation ----------------------------------------------------------------------------- */

static const char *series_name(const scale_plot_series *s) {
  return s->label && s->label[0] ? s->label : "(unlabelled)";
}

static scale_status check_log(double v, const char *axis, const char *what, size_t index,
                              const char *name, scale_diag *diag) {
  if (isfinite(v) && v <= 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, NULL, 0,
                          "%s %zu (%s): %s = %g is not positive on a log axis", what, index, name,
                          axis, v);
  return SCALE_OK;
}

static scale_status validate(const scale_plot *plot, scale_diag *diag) {
  if (!plot) return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "no plot given");
  if (plot->n_series && !plot->series)
    return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "n_series > 0 but series is NULL");
  if (plot->n_markers && !plot->markers)
    return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "n_markers > 0 but markers is NULL");
  if (plot->n_points && !plot->points)
    return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "n_points > 0 but points is NULL");
  bool xlog = plot->x_axis == SCALE_PLOT_LOG, ylog = plot->y_axis == SCALE_PLOT_LOG;
  scale_status st = SCALE_OK;
  for (size_t i = 0; i < plot->n_series; i++) {
    const scale_plot_series *s = &plot->series[i];
    if (s->n && (!s->x || !s->y))
      return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "series %zu (%s): NULL x or y", i,
                            series_name(s));
    for (size_t j = 0; j < s->n; j++) {
      if (xlog && (st = check_log(s->x[j], "x", "series", i, series_name(s), diag))) return st;
      if (ylog && (st = check_log(s->y[j], "y", "series", i, series_name(s), diag))) return st;
    }
  }
  for (size_t i = 0; i < plot->n_markers; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const char *name = m->label ? m->label : "(unlabelled)";
    if ((m->vertical ? xlog : ylog) &&
        (st = check_log(m->at, m->vertical ? "x" : "y", "marker", i, name, diag)))
      return st;
  }
  for (size_t i = 0; i < plot->n_points; i++) {
    const scale_plot_point *p = &plot->points[i];
    const char *name = p->label ? p->label : "(unlabelled)";
    if (xlog && (st = check_log(p->x, "x", "point", i, name, diag))) return st;
    if (ylog && (st = check_log(p->y, "y", "point", i, name, diag))) return st;
  }
  if (xlog && plot->x_min < plot->x_max && plot->x_min <= 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, NULL, 0,
                          "x_min = %g is not positive on a log axis", plot->x_min);
  if (ylog && plot->y_min < plot->y_max && plot->y_min <= 0.0)
    return scale_diag_set(diag, SCALE_ERR_RANGE, NULL, 0,
                          "y_min = %g is not positive on a log axis", plot->y_min);
  return SCALE_OK;
}

/* ---- axes ----------------------------------------------------------------------------------- */

#define MAX_TICKS 64

typedef struct {
  bool log;
  double lo, hi;   /**< range in data units */
  double tlo, thi; /**< range after the transform (log10 or identity) */
  double p0, p1;   /**< pixels of lo and hi */
  int n_major;
  double major[MAX_TICKS]; /**< labelled ticks with grid lines */
  int n_minor;
  double minor[MAX_TICKS * 2]; /**< unlabelled tick marks (log axes) */
} axis;

static double transform(const axis *a, double v) { return a->log ? log10(v) : v; }

static double to_px(const axis *a, double v) {
  return a->p0 + (transform(a, v) - a->tlo) / (a->thi - a->tlo) * (a->p1 - a->p0);
}

static bool in_range(const axis *a, double v) {
  double t = transform(a, v), eps = 1e-9 * (a->thi - a->tlo);
  return isfinite(t) && t >= a->tlo - eps && t <= a->thi + eps;
}

/** Widens [*lo, *hi] with v (finite only). */
static void extend(double *lo, double *hi, double v) {
  if (!isfinite(v)) return;
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
}

static double nice_step(double span) {
  double raw = span / 5.0;
  double mag = pow(10.0, floor(log10(raw)));
  double norm = raw / mag;
  return (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * mag;
}

static void setup_linear(axis *a, double lo, double hi, bool fixed) {
  if (!(lo <= hi)) lo = 0.0, hi = 1.0; /* no data */
  if (lo == hi) {
    double pad = lo != 0.0 ? fabs(lo) * 0.1 : 1.0;
    lo -= pad, hi += pad;
  }
  double step = nice_step(hi - lo);
  if (!fixed) {
    lo = floor(lo / step + 1e-9) * step;
    hi = ceil(hi / step - 1e-9) * step;
  }
  a->lo = lo, a->hi = hi, a->tlo = lo, a->thi = hi;
  a->n_major = 0;
  for (double k = ceil(lo / step - 1e-9); k <= floor(hi / step + 1e-9) && a->n_major < MAX_TICKS;
       k++) {
    double v = k * step;
    a->major[a->n_major++] = fabs(v) < step * 1e-9 ? 0.0 : v;
  }
  a->n_minor = 0;
}

static void setup_log(axis *a, double lo, double hi, bool fixed) {
  if (!(lo <= hi)) lo = 1.0, hi = 10.0; /* no data */
  double dlo = floor(log10(lo) + 1e-9), dhi = ceil(log10(hi) - 1e-9);
  if (dhi <= dlo) dhi = dlo + 1.0;
  if (!fixed) lo = pow(10.0, dlo), hi = pow(10.0, dhi);
  a->lo = lo, a->hi = hi, a->tlo = log10(lo), a->thi = log10(hi);
  double first = ceil(a->tlo - 1e-9), last = floor(a->thi + 1e-9);
  double n_dec = last - first + 1.0;
  double stride = n_dec > 24 ? 4.0 : n_dec > 12 ? 2.0 : 1.0;
  a->n_major = 0;
  a->n_minor = 0;
  bool label_minor = n_dec < 2.0;
  for (double d = floor(a->tlo); d <= ceil(a->thi); d++) {
    double decade = pow(10.0, d);
    if (d >= first && d <= last && fmod(d - first, stride) == 0.0 && a->n_major < MAX_TICKS)
      a->major[a->n_major++] = decade;
    if (n_dec > 12) continue;
    for (int m = 2; m <= 9; m++) {
      double v = m * decade;
      if (!in_range(a, v)) continue;
      if (label_minor && (m == 2 || m == 5) && a->n_major < MAX_TICKS)
        a->major[a->n_major++] = v;
      else if (a->n_minor < MAX_TICKS * 2)
        a->minor[a->n_minor++] = v;
    }
  }
}

static void setup_axis(axis *a, scale_plot_axis kind, double data_lo, double data_hi,
                       double want_lo, double want_hi) {
  bool fixed = want_lo < want_hi;
  a->log = kind == SCALE_PLOT_LOG;
  double lo = fixed ? want_lo : data_lo, hi = fixed ? want_hi : data_hi;
  if (a->log)
    setup_log(a, lo, hi, fixed);
  else
    setup_linear(a, lo, hi, fixed);
}

/* ---- text extents and layout ---------------------------------------------------------------- */

/* Text is drawn in the document's sans-serif at 12 px (14 px bold for the title). Its extent is
 * estimated conservatively from the character count: 0.6 em per character (0.65 em bold), 0.8 em
 * above the baseline and 0.25 em below it. Every label is placed so that these boxes, padded by
 * LABEL_PAD, neither overlap each other nor leave the canvas (tests/cli/test_figure_layout.sh
 * checks the same boxes on every figure of the book). */
#define FONT_PX 12.0
#define CHAR_EM 0.6
#define BOLD_CHAR_EM 0.65
#define ASCENT_EM 0.8
#define DESCENT_EM 0.25
#define LABEL_PAD 1.0
#define MAX_BOXES 512

typedef struct {
  double x0, y0, x1, y1;
} box;

typedef enum { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END } anchor;

/** Characters of a UTF-8 string (continuation bytes not counted). */
static double text_chars(const char *text) {
  double n = 0.0;
  for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++)
    if ((*p & 0xC0) != 0x80) n++;
  return n;
}

static double text_width(const char *text, double font_px, bool bold) {
  return text_chars(text) * font_px * (bold ? BOLD_CHAR_EM : CHAR_EM);
}

/** Box of 'text' drawn with its baseline at y and anchor 'a' at x. */
static box text_box(double x, double y, anchor a, const char *text, double font_px, bool bold) {
  double w = text_width(text, font_px, bold);
  double left = a == ANCHOR_START ? x : a == ANCHOR_MIDDLE ? x - w / 2.0 : x - w;
  return (box){left, y - ASCENT_EM * font_px, left + w, y + DESCENT_EM * font_px};
}

static bool boxes_overlap(box a, box b, double pad) {
  return a.x0 < b.x1 + pad && b.x0 < a.x1 + pad && a.y0 < b.y1 + pad && b.y0 < a.y1 + pad;
}

static bool box_inside(box a, box outer) {
  return a.x0 >= outer.x0 && a.x1 <= outer.x1 && a.y0 >= outer.y0 && a.y1 <= outer.y1;
}

/** Whether the segment (ax, ay)-(bx, by) meets box r (Liang-Barsky clipping). */
static bool segment_hits_box(double ax, double ay, double bx, double by, box r) {
  double t0 = 0.0, t1 = 1.0, dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax - r.x0, r.x1 - ax, ay - r.y0, r.y1 - ay};
  for (int i = 0; i < 4; i++) {
    if (p[i] == 0.0) {
      if (q[i] < 0.0) return false;
    } else {
      double t = q[i] / p[i];
      if (p[i] < 0.0) {
        if (t > t1) return false;
        if (t > t0) t0 = t;
      } else {
        if (t < t0) return false;
        if (t < t1) t1 = t;
      }
    }
  }
  return true;
}

/** The boxes already taken by text (and point dots), which later labels must avoid. */
typedef struct {
  box b[MAX_BOXES];
  size_t n;
} box_set;

static void box_add(box_set *set, box b) {
  if (set->n < MAX_BOXES) set->b[set->n++] = b;
}

static bool box_free(const box_set *set, box b) {
  for (size_t i = 0; i < set->n; i++)
    if (boxes_overlap(set->b[i], b, LABEL_PAD)) return false;
  return true;
}

/* ---- drawing -------------------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
#define PALETTE_N (sizeof palette / sizeof palette[0])

/* Dash patterns of dashed series, in turn (a solid series stays solid: chapters name their
 * series "solid" and "dashed"), and the glyph shapes that tell every series apart even where
 * two lines coincide. */
static const char *const dashes[] = {"6 4", "2 3", "9 3 2 3", "12 4 4 4"};
#define DASHES_N (sizeof dashes / sizeof dashes[0])
typedef enum {
  GLYPH_CIRCLE,
  GLYPH_SQUARE,
  GLYPH_TRIANGLE,
  GLYPH_DIAMOND,
  GLYPH_TRIANGLE_DOWN,
  GLYPH_PLUS,
  GLYPH_CROSS,
  GLYPH_N
} glyph;
#define GLYPHS_PER_SERIES 5 /* glyphs along a series without dots, spread by path length */

/** Dash pattern of series i (NULL for a solid one): the k-th dashed series gets dashes[k]. */
static const char *series_dash(const scale_plot *plot, size_t i) {
  if (!plot->series[i].dashed) return NULL;
  size_t k = 0;
  for (size_t j = 0; j < i; j++)
    if (plot->series[j].dashed) k++;
  return dashes[k % DASHES_N];
}

static void draw_glyph(sink *s, glyph g, double x, double y, const char *color, double size) {
  char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
  const double r = 3.5 * size;
  switch (g) {
  case GLYPH_CIRCLE:
    emit(s, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\"/>\n", fmt_num(b1, x),
         fmt_num(b2, y), fmt_num(b3, 3.0 * size), color);
    break;
  case GLYPH_SQUARE:
    emit(s, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n",
         fmt_num(b1, x - 3.0 * size), fmt_num(b2, y - 3.0 * size), fmt_num(b3, 6.0 * size),
         fmt_num(b4, 6.0 * size), color);
    break;
  case GLYPH_TRIANGLE:
  case GLYPH_TRIANGLE_DOWN: {
    double d = g == GLYPH_TRIANGLE ? 1.0 : -1.0;
    emit(s, "<polygon points=\"%s,%s %s,%s %s,%s\" fill=\"%s\"/>\n", fmt_num(b1, x),
         fmt_num(b2, y - d * r), fmt_num(b3, x - r), fmt_num(b4, y + d * r * 0.75),
         fmt_num(b5, x + r), fmt_num(b6, y + d * r * 0.75), color);
    break;
  }
  case GLYPH_DIAMOND:
    emit(s, "<polygon points=\"%s,%s %s,%s %s,%s ", fmt_num(b1, x), fmt_num(b2, y - r),
         fmt_num(b3, x + r), fmt_num(b4, y), fmt_num(b5, x), fmt_num(b6, y + r));
    emit(s, "%s,%s\" fill=\"%s\"/>\n", fmt_num(b1, x - r), fmt_num(b2, y), color);
    break;
  case GLYPH_PLUS:
    emit(s, "<path d=\"M%s %sH%sM%s %sV%s\" stroke=\"%s\" stroke-width=\"2\"/>\n",
         fmt_num(b1, x - r), fmt_num(b2, y), fmt_num(b3, x + r), fmt_num(b4, x),
         fmt_num(b5, y - r), fmt_num(b6, y + r), color);
    break;
  default:
    emit(s, "<path d=\"M%s %sL%s %s", fmt_num(b1, x - r), fmt_num(b2, y - r), fmt_num(b3, x + r),
         fmt_num(b4, y + r));
    emit(s, "M%s %sL%s %s\" stroke=\"%s\" stroke-width=\"2\"/>\n", fmt_num(b1, x - r),
         fmt_num(b2, y + r), fmt_num(b3, x + r), fmt_num(b4, y - r), color);
    break;
  }
}

static bool point_ok(const scale_plot_series *ser, size_t j) {
  return isfinite(ser->x[j]) && isfinite(ser->y[j]);
}

/** Length in pixels of the drawn pieces of a series (gaps not counted). */
static double series_length_px(const axis *ax, const axis *ay, const scale_plot_series *ser) {
  double len = 0.0;
  for (size_t j = 1; j < ser->n; j++)
    if (point_ok(ser, j - 1) && point_ok(ser, j))
      len += hypot(to_px(ax, ser->x[j]) - to_px(ax, ser->x[j - 1]),
                   to_px(ay, ser->y[j]) - to_px(ay, ser->y[j - 1]));
  return len;
}

/** Glyphs of series 'index' of 'n_series': at every point with dots, else GLYPHS_PER_SERIES of
 * them spread along the path, each series at its own phase so that coinciding lines still show
 * every series' glyphs. */
static void draw_series_glyphs(sink *s, const axis *ax, const axis *ay,
                               const scale_plot_series *ser, size_t index, size_t n_series,
                               const char *color, double size) {
  glyph g = (glyph)(index % GLYPH_N);
  if (ser->dots) {
    for (size_t j = 0; j < ser->n; j++)
      if (point_ok(ser, j))
        draw_glyph(s, g, to_px(ax, ser->x[j]), to_px(ay, ser->y[j]), color, size);
    return;
  }
  double total = series_length_px(ax, ay, ser);
  if (!(total > 0.0)) {
    for (size_t j = 0; j < ser->n; j++) /* a lone point */
      if (point_ok(ser, j))
        draw_glyph(s, g, to_px(ax, ser->x[j]), to_px(ay, ser->y[j]), color, size);
    return;
  }
  double phase = ((double)index + 0.5) / (double)(n_series ? n_series : 1);
  int k = 0;
  double target = total * (k + phase) / GLYPHS_PER_SERIES, walked = 0.0;
  for (size_t j = 1; j < ser->n && k < GLYPHS_PER_SERIES; j++) {
    if (!point_ok(ser, j - 1) || !point_ok(ser, j)) continue;
    double xa = to_px(ax, ser->x[j - 1]), ya = to_px(ay, ser->y[j - 1]);
    double xb = to_px(ax, ser->x[j]), yb = to_px(ay, ser->y[j]);
    double seg = hypot(xb - xa, yb - ya);
    while (k < GLYPHS_PER_SERIES && walked + seg >= target) {
      double t = seg > 0.0 ? (target - walked) / seg : 0.0;
      draw_glyph(s, g, xa + t * (xb - xa), ya + t * (yb - ya), color, size);
      k++;
      target = total * (k + phase) / GLYPHS_PER_SERIES;
    }
    walked += seg;
  }
}

/** Whether a series draws a line: two consecutive finite points somewhere. */
static bool series_draws_line(const scale_plot_series *ser) {
  for (size_t j = 1; j < ser->n; j++)
    if (point_ok(ser, j - 1) && point_ok(ser, j)) return true;
  return false;
}

/** Whether every drawn piece of a series is one straight segment (two finite points between
 * breaks): a diagonal or a band's edge rather than a curve. */
static bool series_straight_pieces(const scale_plot_series *ser) {
  size_t run = 0, runs = 0;
  for (size_t j = 0; j <= ser->n; j++) {
    if (j < ser->n && point_ok(ser, j)) {
      run++;
      continue;
    }
    if (run != 0 && run != 2) return false;
    runs += run == 2;
    run = 0;
  }
  return runs > 0;
}

/** Whether series i is a guide, drawn without glyphs in the plot and the legend: straight
 * pieces without dots, whose colour and dash pattern no other line shares. Its line alone tells
 * it apart, and glyphs along a diagonal among scattered markers would read as data points. */
static bool series_is_guide(const scale_plot *plot, size_t i) {
  const scale_plot_series *ser = &plot->series[i];
  if (ser->dots || !series_straight_pieces(ser)) return false;
  const char *dash = series_dash(plot, i);
  for (size_t j = 0; j < plot->n_series; j++) {
    const char *other = series_dash(plot, j);
    if (j != i && j % PALETTE_N == i % PALETTE_N && series_draws_line(&plot->series[j]) &&
        (dash == other || (dash && other && strcmp(dash, other) == 0)))
      return false;
  }
  return true;
}

/** Later series drawn on top of series i along its whole length (every point within 1.5 px):
 * each one widens series i's stroke, so that a line hidden under another still shows as a
 * wider band of its own colour around it. */
static int series_covered_by(const axis *ax, const axis *ay, const scale_plot *plot, size_t i) {
  const scale_plot_series *a = &plot->series[i];
  int covered = 0;
  for (size_t k = i + 1; k < plot->n_series; k++) {
    const scale_plot_series *b = &plot->series[k];
    if (b->n != a->n || a->n == 0) continue;
    bool same = true;
    for (size_t j = 0; j < a->n && same; j++) {
      if (point_ok(a, j) != point_ok(b, j)) same = false;
      else if (point_ok(a, j))
        same = fabs(to_px(ax, a->x[j]) - to_px(ax, b->x[j])) <= 1.5 &&
               fabs(to_px(ay, a->y[j]) - to_px(ay, b->y[j])) <= 1.5;
    }
    if (same) covered++;
  }
  return covered;
}

static double series_stroke_width(int covered) { return 2.0 + 3.0 * covered; }

static void draw_series(sink *s, const axis *ax, const axis *ay, const scale_plot_series *ser,
                        const char *color, const char *dash, double width) {
  char b1[32], b2[32];
  bool open = false;
  for (size_t j = 0; j <= ser->n; j++) {
    bool ok = j < ser->n && point_ok(ser, j);
    if (ok && !open) {
      emit(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", color,
           fmt_num(b1, width));
      if (dash) emit(s, " stroke-dasharray=\"%s\"", dash);
      emit(s, " points=\"");
      open = true;
    } else if (ok) {
      emit(s, " ");
    }
    if (ok) emit(s, "%s,%s", fmt_num(b1, to_px(ax, ser->x[j])), fmt_num(b2, to_px(ay, ser->y[j])));
    if (!ok && open) {
      emit(s, "\"/>\n");
      open = false;
    }
  }
}

/* ---- layout --------------------------------------------------------------------------------- */

/** A placed label: its text position and anchor, and (for a displaced point label) the point
 * it belongs to, joined by a leader line. */
typedef struct {
  double x, y;
  anchor a;
  bool leader;
  double px, py;
} placed;

typedef struct {
  double W, H;
  double x0, x1, y0, y1; /**< plot area */
  axis ax, ay;
  bool has_legend;
  box legend; /**< legend rectangle */
  placed marker_label[MAX_BOXES / 4];
  placed point_label[MAX_BOXES / 4];
  box_set taken;
} layout;

static size_t legend_rows(const scale_plot *plot, size_t *longest_chars) {
  size_t n = 0;
  double longest = 0.0;
  for (size_t i = 0; i < plot->n_series; i++) {
    const char *label = plot->series[i].label;
    if (!label || !label[0]) continue;
    n++;
    if (text_chars(label) > longest) longest = text_chars(label);
  }
  if (longest_chars) *longest_chars = (size_t)longest;
  return plot->legend == SCALE_PLOT_LEGEND_NONE ? 0 : n;
}

/* Legend geometry: rows of 18 px; a 30 px line sample, the text from 36 px. */
#define LEGEND_ROW 18.0
#define LEGEND_TEXT_DX 36.0

static double legend_width(size_t longest) {
  return LEGEND_TEXT_DX + 8.0 + (double)longest * FONT_PX * CHAR_EM;
}

/** Whether box r covers any data: a series line or glyph, or an annotated point. */
static bool box_covers_data(const layout *L, const scale_plot *plot, box r) {
  box grown = {r.x0 - 4.0, r.y0 - 4.0, r.x1 + 4.0, r.y1 + 4.0};
  for (size_t i = 0; i < plot->n_series; i++) {
    const scale_plot_series *ser = &plot->series[i];
    for (size_t j = 0; j < ser->n; j++) {
      if (!point_ok(ser, j)) continue;
      double x = to_px(&L->ax, ser->x[j]), y = to_px(&L->ay, ser->y[j]);
      bool single = j + 1 >= ser->n || !point_ok(ser, j + 1);
      if (single) {
        if (segment_hits_box(x, y, x, y, grown)) return true;
        continue;
      }
      double xb = to_px(&L->ax, ser->x[j + 1]), yb = to_px(&L->ay, ser->y[j + 1]);
      if (segment_hits_box(x, y, xb, yb, grown)) return true;
    }
  }
  for (size_t i = 0; i < plot->n_points; i++) {
    double x = to_px(&L->ax, plot->points[i].x), y = to_px(&L->ay, plot->points[i].y);
    if (segment_hits_box(x, y, x, y, grown)) return true;
  }
  return false;
}

static void place_axes(layout *L) {
  L->ax.p0 = L->x0, L->ax.p1 = L->x1;
  L->ay.p0 = L->y1, L->ay.p1 = L->y0;
}

/** The title's font size and centre: 14 px bold centred over the plot area, smaller and
 * shifted when that would leave the canvas. */
static void title_geometry(const layout *L, const char *title, double *font_px, double *cx) {
  double fs = 14.0, w = text_width(title, fs, true);
  if (w > L->W - 8.0) {
    fs = fs * (L->W - 8.0) / w;
    w = text_width(title, fs, true);
  }
  double c = (L->x0 + L->x1) / 2.0;
  if (c - w / 2.0 < 4.0) c = 4.0 + w / 2.0;
  if (c + w / 2.0 > L->W - 4.0) c = L->W - 4.0 - w / 2.0;
  *font_px = fs, *cx = c;
}

/** Boxes of the tick labels, the title and the axis captions (fixed positions). */
static void add_fixed_boxes(layout *L, const scale_plot *plot) {
  char tick[40];
  L->taken.n = 0;
  for (int i = 0; i < L->ax.n_major; i++)
    box_add(&L->taken, text_box(to_px(&L->ax, L->ax.major[i]), L->y1 + 18.0, ANCHOR_MIDDLE,
                                scale_plot_tick_label(tick, sizeof tick, L->ax.major[i]), FONT_PX,
                                false));
  for (int i = 0; i < L->ay.n_major; i++)
    box_add(&L->taken, text_box(L->x0 - 8.0, to_px(&L->ay, L->ay.major[i]) + 4.0, ANCHOR_END,
                                scale_plot_tick_label(tick, sizeof tick, L->ay.major[i]), FONT_PX,
                                false));
  if (plot->title && plot->title[0]) {
    double fs, cx;
    title_geometry(L, plot->title, &fs, &cx);
    box_add(&L->taken, text_box(cx, 22.0, ANCHOR_MIDDLE, plot->title, fs, true));
  }
  if (plot->x_label && plot->x_label[0])
    box_add(&L->taken, text_box((L->x0 + L->x1) / 2.0, L->H - 12.0, ANCHOR_MIDDLE,
                                plot->x_label, FONT_PX, false));
  if (plot->y_label && plot->y_label[0]) {
    double w = text_width(plot->y_label, FONT_PX, false), mid = (L->y0 + L->y1) / 2.0;
    box_add(&L->taken, (box){16.0 - ASCENT_EM * FONT_PX, mid - w / 2.0,
                             16.0 + DESCENT_EM * FONT_PX, mid + w / 2.0});
  }
}

/** Places the labels of the reference lines: a vertical line's label near the top, right of
 * the line (left of it, or lower down, when that collides); a horizontal line's label above the
 * line at the right end (below it, or further left, when that collides). */
static void place_marker_labels(layout *L, const scale_plot *plot) {
  box canvas = {0.0, 0.0, L->W, L->H};
  for (size_t i = 0; i < plot->n_markers && i < MAX_BOXES / 4; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const axis *a = m->vertical ? &L->ax : &L->ay;
    L->marker_label[i] = (placed){0};
    if (!m->label || !m->label[0] || !in_range(a, m->at)) continue;
    double p = to_px(a, m->at);
    placed best = {0};
    bool found = false;
    for (int row = 0; row < 16 && !found; row++) {
      for (int side = 0; side < 2 && !found; side++) {
        placed c;
        if (m->vertical)
          c = (placed){side ? p - 4.0 : p + 4.0, L->y0 + 14.0 + 16.0 * row,
                       side ? ANCHOR_END : ANCHOR_START, false, 0, 0};
        else
          c = (placed){L->x1 - 4.0 - 60.0 * row, side ? p + 14.0 : p - 4.0, ANCHOR_END, false, 0,
                       0};
        box b = text_box(c.x, c.y, c.a, m->label, FONT_PX, false);
        box area = {L->x0, L->y0, L->x1, L->y1};
        if (box_inside(b, area) && box_inside(b, canvas) && box_free(&L->taken, b)) {
          best = c;
          found = true;
        }
      }
    }
    if (!found) /* no free place: keep the default, the layout test will say so */
      best = m->vertical ? (placed){p + 4.0, L->y0 + 14.0, ANCHOR_START, false, 0, 0}
                         : (placed){L->x1 - 4.0, p - 4.0, ANCHOR_END, false, 0, 0};
    L->marker_label[i] = best;
    box_add(&L->taken, text_box(best.x, best.y, best.a, m->label, FONT_PX, false));
  }
}

/** Places the legend: in the requested corner of the plot area when it covers no data and no
 * label there, else in another free corner, else outside the plot area on the right (the plot
 * area narrows to make room). Returns false when there is no legend. */
static bool place_legend(layout *L, const scale_plot *plot) {
  size_t longest = 0, rows = legend_rows(plot, &longest);
  if (rows == 0) return false;
  double w = legend_width(longest), h = 8.0 + LEGEND_ROW * (double)rows;
  static const scale_plot_legend order[4][4] = {
      {SCALE_PLOT_LEGEND_TOP_LEFT, SCALE_PLOT_LEGEND_TOP_RIGHT, SCALE_PLOT_LEGEND_BOTTOM_LEFT,
       SCALE_PLOT_LEGEND_BOTTOM_RIGHT},
      {SCALE_PLOT_LEGEND_TOP_RIGHT, SCALE_PLOT_LEGEND_TOP_LEFT, SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
       SCALE_PLOT_LEGEND_BOTTOM_LEFT},
      {SCALE_PLOT_LEGEND_BOTTOM_LEFT, SCALE_PLOT_LEGEND_BOTTOM_RIGHT, SCALE_PLOT_LEGEND_TOP_LEFT,
       SCALE_PLOT_LEGEND_TOP_RIGHT},
      {SCALE_PLOT_LEGEND_BOTTOM_RIGHT, SCALE_PLOT_LEGEND_BOTTOM_LEFT, SCALE_PLOT_LEGEND_TOP_RIGHT,
       SCALE_PLOT_LEGEND_TOP_LEFT}};
  int want = plot->legend >= SCALE_PLOT_LEGEND_TOP_LEFT &&
                     plot->legend <= SCALE_PLOT_LEGEND_BOTTOM_RIGHT
                 ? (int)plot->legend
                 : 0;
  for (int k = 0; k < 4; k++) {
    scale_plot_legend c = order[want][k];
    bool right = c == SCALE_PLOT_LEGEND_TOP_RIGHT || c == SCALE_PLOT_LEGEND_BOTTOM_RIGHT;
    bool bottom = c == SCALE_PLOT_LEGEND_BOTTOM_LEFT || c == SCALE_PLOT_LEGEND_BOTTOM_RIGHT;
    double lx = right ? L->x1 - 8.0 - w : L->x0 + 8.0;
    double ly = bottom ? L->y1 - 8.0 - h : L->y0 + 8.0;
    box r = {lx, ly, lx + w, ly + h};
    if (r.y0 < L->y0 || r.y1 > L->y1 || r.x0 < L->x0 || r.x1 > L->x1) continue;
    if (!box_covers_data(L, plot, r) && box_free(&L->taken, r)) {
      L->legend = r;
      return true;
    }
  }
  /* Outside, on the right: narrow the plot area, then lay out the axes and labels again. */
  L->x1 = L->W - 12.0 - w - 10.0;
  if (L->x1 < L->x0 + 120.0) L->x1 = L->x0 + 120.0;
  place_axes(L);
  add_fixed_boxes(L, plot);
  place_marker_labels(L, plot);
  L->legend = (box){L->x1 + 10.0, L->y0, L->x1 + 10.0 + w, L->y0 + h};
  return true;
}

/** Places the labels of annotated points: right and above the dot if free, else the other
 * corners, else further away in rings (with a leader line back to the dot), always inside the
 * canvas and clear of every other label, dot and the legend. */
static void place_point_labels(layout *L, const scale_plot *plot) {
  box canvas = {0.0, 0.0, L->W, L->H};
  for (size_t i = 0; i < plot->n_points; i++) { /* the dots themselves */
    const scale_plot_point *pt = &plot->points[i];
    if (!in_range(&L->ax, pt->x) || !in_range(&L->ay, pt->y)) continue;
    double x = to_px(&L->ax, pt->x), y = to_px(&L->ay, pt->y);
    box_add(&L->taken, (box){x - 3.5, y - 3.5, x + 3.5, y + 3.5});
  }
  /* and the glyphs of scattered data, leaving half the boxes for the labels themselves */
  for (size_t k = 0; k < plot->n_series; k++) {
    const scale_plot_series *ser = &plot->series[k];
    for (size_t j = 0; ser->dots && j < ser->n && L->taken.n < MAX_BOXES / 2; j++) {
      if (!point_ok(ser, j) || !in_range(&L->ax, ser->x[j]) || !in_range(&L->ay, ser->y[j]))
        continue;
      double x = to_px(&L->ax, ser->x[j]), y = to_px(&L->ay, ser->y[j]);
      box_add(&L->taken, (box){x - 3.5, y - 3.5, x + 3.5, y + 3.5});
    }
  }
  for (size_t i = 0; i < plot->n_points && i < MAX_BOXES / 4; i++) {
    const scale_plot_point *pt = &plot->points[i];
    L->point_label[i] = (placed){0};
    if (!pt->label || !pt->label[0]) continue;
    if (!in_range(&L->ax, pt->x) || !in_range(&L->ay, pt->y)) continue;
    double px = to_px(&L->ax, pt->x), py = to_px(&L->ay, pt->y);
    placed best = {px + 6.0, py - 6.0, ANCHOR_START, false, px, py};
    bool found = false;
    for (int ring = 0; ring < 12 && !found; ring++) {
      double dy = 14.0 * ring;
      const placed cand[6] = {
          {px + 6.0, py - 6.0 - dy, ANCHOR_START, ring > 0, px, py},
          {px + 6.0, py + 14.0 + dy, ANCHOR_START, ring > 0, px, py},
          {px - 6.0, py - 6.0 - dy, ANCHOR_END, ring > 0, px, py},
          {px - 6.0, py + 14.0 + dy, ANCHOR_END, ring > 0, px, py},
          {px + 12.0 + 2.0 * dy, py + 4.0, ANCHOR_START, ring > 0, px, py},
          {px - 12.0 - 2.0 * dy, py + 4.0, ANCHOR_END, ring > 0, px, py}};
      for (int c = 0; c < 6 && !found; c++) {
        box b = text_box(cand[c].x, cand[c].y, cand[c].a, pt->label, FONT_PX, false);
        if (!box_inside(b, canvas) || !box_free(&L->taken, b)) continue;
        if (L->has_legend && boxes_overlap(b, L->legend, LABEL_PAD)) continue;
        best = cand[c];
        found = true;
      }
    }
    L->point_label[i] = best;
    box_add(&L->taken, text_box(best.x, best.y, best.a, pt->label, FONT_PX, false));
  }
}

static const char *anchor_attr(anchor a) {
  return a == ANCHOR_START ? "" : a == ANCHOR_MIDDLE ? " text-anchor=\"middle\""
                                                     : " text-anchor=\"end\"";
}

static void draw_legend(sink *s, const scale_plot *plot, const layout *L) {
  char b1[32], b2[32], b3[32], b4[32];
  double lx = L->legend.x0, ly = L->legend.y0;
  emit(s,
       "<g class=\"legend\">\n<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
       "fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#999999\"/>\n",
       fmt_num(b1, lx), fmt_num(b2, ly), fmt_num(b3, L->legend.x1 - lx),
       fmt_num(b4, L->legend.y1 - ly));
  double row = ly + 4.0 + 9.0;
  for (size_t i = 0; i < plot->n_series; i++) {
    const scale_plot_series *ser = &plot->series[i];
    if (!ser->label || !ser->label[0]) continue;
    const char *dash = series_dash(plot, i);
    int covered = series_covered_by(&L->ax, &L->ay, plot, i);
    if (series_draws_line(ser)) { /* a scatter of lone points shows its glyph alone */
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\"",
           fmt_num(b1, lx + 6.0), fmt_num(b2, row), fmt_num(b3, lx + 30.0), fmt_num(b4, row),
           palette[i % PALETTE_N]);
      emit(s, " stroke-width=\"%s\"", fmt_num(b1, fmin(series_stroke_width(covered), 8.0)));
      if (dash) emit(s, " stroke-dasharray=\"%s\"", dash);
      emit(s, "/>\n");
    }
    if (!series_is_guide(plot, i))
      draw_glyph(s, (glyph)(i % GLYPH_N), lx + 18.0, row, palette[i % PALETTE_N],
                 fmin(1.0 + 0.6 * covered, 1.6));
    emit(s, "<text x=\"%s\" y=\"%s\">", fmt_num(b1, lx + LEGEND_TEXT_DX), fmt_num(b2, row + 4.0));
    emit_text(s, ser->label);
    emit(s, "</text>\n");
    row += LEGEND_ROW;
  }
  emit(s, "</g>\n");
}

/* The layout of 'plot': canvas, plot area, axes over the data's extents, and every label
 * placed. */
static void lay_out(layout *L, const scale_plot *plot) {
  L->W = plot->width_px > 0.0 && isfinite(plot->width_px) ? plot->width_px : 640.0;
  L->H = plot->height_px > 0.0 && isfinite(plot->height_px) ? plot->height_px : 400.0;
  L->x0 = 72.0, L->x1 = L->W - 20.0, L->y0 = plot->title && plot->title[0] ? 36.0 : 16.0;
  L->y1 = L->H - 50.0;

  /* Data extents. */
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (size_t i = 0; i < plot->n_series; i++)
    for (size_t j = 0; j < plot->series[i].n; j++) {
      extend(&xlo, &xhi, plot->series[i].x[j]);
      extend(&ylo, &yhi, plot->series[i].y[j]);
    }
  for (size_t i = 0; i < plot->n_markers; i++) {
    if (plot->markers[i].vertical)
      extend(&xlo, &xhi, plot->markers[i].at);
    else
      extend(&ylo, &yhi, plot->markers[i].at);
  }
  for (size_t i = 0; i < plot->n_points; i++) {
    extend(&xlo, &xhi, plot->points[i].x);
    extend(&ylo, &yhi, plot->points[i].y);
  }
  setup_axis(&L->ax, plot->x_axis, xlo, xhi, plot->x_min, plot->x_max);
  setup_axis(&L->ay, plot->y_axis, ylo, yhi, plot->y_min, plot->y_max);
  place_axes(L);
  add_fixed_boxes(L, plot);
  place_marker_labels(L, plot);
  L->has_legend = place_legend(L, plot);
  place_point_labels(L, plot);
}

/* The SVG element, title, description, background and the plot area's clip path. */
static void draw_head(sink *s, const scale_plot *plot, const layout *L) {
  char b1[32], b2[32], b3[32], b4[32];
  double W = L->W, H = L->H;
  emit(s,
       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
       "viewBox=\"0 0 %s %s\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n",
       fmt_num(b1, W), fmt_num(b2, H), fmt_num(b3, W), fmt_num(b4, H));
  emit(s, "<title>");
  emit_text(s, plot->title && plot->title[0] ? plot->title : "plot");
  emit(s, "</title>\n");
  if (plot->desc && plot->desc[0]) {
    emit(s, "<desc>");
    emit_text(s, plot->desc);
    emit(s, "</desc>\n");
  }
  emit(s, "<rect width=\"%s\" height=\"%s\" fill=\"#ffffff\"/>\n", fmt_num(b1, W), fmt_num(b2, H));
  emit(s,
       "<defs><clipPath id=\"plot-area\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>"
       "</clipPath></defs>\n",
       fmt_num(b1, L->x0), fmt_num(b2, L->y0), fmt_num(b3, L->x1 - L->x0),
       fmt_num(b4, L->y1 - L->y0));
}

/* Ticks of length 'len' px below the x axis at 'n' values 'at'. */
static void draw_x_ticks(sink *s, const layout *L, const double *at, int n, double len) {
  char b1[32], b2[32], b3[32], b4[32];
  for (int i = 0; i < n; i++) {
    double p = to_px(&L->ax, at[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, p), fmt_num(b2, L->y1),
         fmt_num(b3, p), fmt_num(b4, L->y1 + len));
  }
}

/* Ticks of length 'len' px left of the y axis at 'n' values 'at'. */
static void draw_y_ticks(sink *s, const layout *L, const double *at, int n, double len) {
  char b1[32], b2[32], b3[32], b4[32];
  for (int i = 0; i < n; i++) {
    double p = to_px(&L->ay, at[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, L->x0 - len),
         fmt_num(b2, p), fmt_num(b3, L->x0), fmt_num(b4, p));
  }
}

/* The grid at the major ticks, the minor and major ticks, and the tick labels. */
static void draw_grid_and_ticks(sink *s, const layout *L) {
  const axis *ax = &L->ax, *ay = &L->ay;
  double x0 = L->x0, x1 = L->x1, y0 = L->y0, y1 = L->y1;
  char b1[32], b2[32], b3[32], b4[32], tick[40];
  emit(s, "<g class=\"grid\" stroke=\"#e6e6e6\">\n");
  for (int i = 0; i < ax->n_major; i++) {
    double p = to_px(ax, ax->major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, p), fmt_num(b2, y0),
         fmt_num(b3, p), fmt_num(b4, y1));
  }
  for (int i = 0; i < ay->n_major; i++) {
    double p = to_px(ay, ay->major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, x0), fmt_num(b2, p),
         fmt_num(b3, x1), fmt_num(b4, p));
  }
  emit(s, "</g>\n<g class=\"ticks\" stroke=\"#333333\">\n");
  draw_x_ticks(s, L, ax->minor, ax->n_minor, 3.0);
  draw_y_ticks(s, L, ay->minor, ay->n_minor, 3.0);
  draw_x_ticks(s, L, ax->major, ax->n_major, 5.0);
  draw_y_ticks(s, L, ay->major, ay->n_major, 5.0);
  emit(s, "</g>\n<g class=\"tick-labels\" fill=\"#333333\">\n");
  for (int i = 0; i < ax->n_major; i++)
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
         fmt_num(b1, to_px(ax, ax->major[i])), fmt_num(b2, y1 + 18.0),
         scale_plot_tick_label(tick, sizeof tick, ax->major[i]));
  for (int i = 0; i < ay->n_major; i++)
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", fmt_num(b1, x0 - 8.0),
         fmt_num(b2, to_px(ay, ay->major[i]) + 4.0),
         scale_plot_tick_label(tick, sizeof tick, ay->major[i]));
  emit(s, "</g>\n");
}

/* Reference lines, then the data (lines, then glyphs on top), clipped to the plot area. */
static void draw_data(sink *s, const scale_plot *plot, const layout *L) {
  const axis *ax = &L->ax, *ay = &L->ay;
  char b1[32], b2[32], b3[32], b4[32];
  emit(s, "<g clip-path=\"url(#plot-area)\">\n");
  for (size_t i = 0; i < plot->n_markers; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const axis *a = m->vertical ? ax : ay;
    if (!in_range(a, m->at)) continue;
    double p = to_px(a, m->at);
    if (m->vertical)
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"", fmt_num(b1, p), fmt_num(b2, L->y0),
           fmt_num(b3, p), fmt_num(b4, L->y1));
    else
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"", fmt_num(b1, L->x0), fmt_num(b2, p),
           fmt_num(b3, L->x1), fmt_num(b4, p));
    emit(s, " stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"3 3\"/>\n");
  }
  for (size_t i = 0; i < plot->n_series; i++)
    draw_series(s, ax, ay, &plot->series[i], palette[i % PALETTE_N], series_dash(plot, i),
                series_stroke_width(series_covered_by(ax, ay, plot, i)));
  for (size_t i = 0; i < plot->n_series; i++)
    if (!series_is_guide(plot, i))
      draw_series_glyphs(s, ax, ay, &plot->series[i], i, plot->n_series, palette[i % PALETTE_N],
                         1.0 + 0.6 * series_covered_by(ax, ay, plot, i));
  emit(s, "</g>\n");
}

/* Labels of reference lines and annotated points (outside the clip so text is whole), placed
 * by the layout so that none overlaps another or leaves the canvas. */
static void draw_labels(sink *s, const scale_plot *plot, const layout *L) {
  const axis *ax = &L->ax, *ay = &L->ay;
  char b1[32], b2[32], b3[32], b4[32];
  for (size_t i = 0; i < plot->n_markers && i < MAX_BOXES / 4; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const axis *a = m->vertical ? ax : ay;
    if (!m->label || !m->label[0] || !in_range(a, m->at)) continue;
    const placed *p = &L->marker_label[i];
    emit(s, "<text x=\"%s\" y=\"%s\" fill=\"#555555\"%s>", fmt_num(b1, p->x), fmt_num(b2, p->y),
         anchor_attr(p->a));
    emit_text(s, m->label);
    emit(s, "</text>\n");
  }
  for (size_t i = 0; i < plot->n_points; i++) {
    const scale_plot_point *pt = &plot->points[i];
    if (!in_range(ax, pt->x) || !in_range(ay, pt->y)) continue;
    double px = to_px(ax, pt->x), py = to_px(ay, pt->y);
    emit(s, "<circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"#000000\"/>\n", fmt_num(b1, px),
         fmt_num(b2, py));
  }
  for (size_t i = 0; i < plot->n_points && i < MAX_BOXES / 4; i++) {
    const scale_plot_point *pt = &plot->points[i];
    if (!pt->label || !pt->label[0] || !in_range(ax, pt->x) || !in_range(ay, pt->y)) continue;
    const placed *p = &L->point_label[i];
    if (p->leader) {
      box b = text_box(p->x, p->y, p->a, pt->label, FONT_PX, false);
      double lx = fmin(fmax(p->px, b.x0), b.x1), ly = fmin(fmax(p->py, b.y0), b.y1);
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#999999\"/>\n",
           fmt_num(b1, p->px), fmt_num(b2, p->py), fmt_num(b3, lx), fmt_num(b4, ly));
    }
    emit(s, "<text x=\"%s\" y=\"%s\"%s>", fmt_num(b1, p->x), fmt_num(b2, p->y), anchor_attr(p->a));
    emit_text(s, pt->label);
    emit(s, "</text>\n");
  }
}

/* Frame, title and axis captions. */
static void draw_frame(sink *s, const scale_plot *plot, const layout *L) {
  double x0 = L->x0, x1 = L->x1, y0 = L->y0, y1 = L->y1;
  char b1[32], b2[32], b3[32], b4[32];
  emit(s, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#333333\"/>\n",
       fmt_num(b1, x0), fmt_num(b2, y0), fmt_num(b3, x1 - x0), fmt_num(b4, y1 - y0));
  if (plot->title && plot->title[0]) {
    double fs, cx;
    title_geometry(L, plot->title, &fs, &cx);
    emit(s,
         "<text x=\"%s\" y=\"22\" text-anchor=\"middle\" font-size=\"%s\" "
         "font-weight=\"bold\">",
         fmt_num(b1, cx), fmt_num(b2, fs));
    emit_text(s, plot->title);
    emit(s, "</text>\n");
  }
  if (plot->x_label && plot->x_label[0]) {
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">", fmt_num(b1, (x0 + x1) / 2.0),
         fmt_num(b2, L->H - 12.0));
    emit_text(s, plot->x_label);
    emit(s, "</text>\n");
  }
  if (plot->y_label && plot->y_label[0]) {
    emit(s, "<text transform=\"translate(16 %s) rotate(-90)\" text-anchor=\"middle\">",
         fmt_num(b1, (y0 + y1) / 2.0));
    emit_text(s, plot->y_label);
    emit(s, "</text>\n");
  }
}

static void render(sink *s, const scale_plot *plot) {
  layout *L = &(layout){0};
  lay_out(L, plot);
  draw_head(s, plot, L);
  draw_grid_and_ticks(s, L);
  draw_data(s, plot, L);
  draw_labels(s, plot, L);
  if (L->has_legend) draw_legend(s, plot, L);
  draw_frame(s, plot, L);
  emit(s, "</svg>\n");
}

/* ---- public --------------------------------------------------------------------------------- */

scale_plot scale_plot_frame(const char *title, const char *desc, const char *x_label,
                            const char *y_label, scale_plot_axis x_axis, scale_plot_axis y_axis,
                            const scale_plot_series *series, size_t n_series) {
  return (scale_plot){.title = title, .desc = desc, .x_label = x_label, .y_label = y_label,
                      .x_axis = x_axis, .y_axis = y_axis, .width_px = 720, .height_px = 460,
                      .legend = SCALE_PLOT_LEGEND_TOP_LEFT, .series = series,
                      .n_series = n_series};
}

scale_plot scale_plot_parity(const char *title, const char *desc, const char *x_label,
                             const char *y_label, double lo, double hi, double band_frac,
                             scale_plot_parity_lines *lines) {
  scale_plot_parity_lines *l = lines;
  l->x[0] = l->y[0] = lo, l->x[1] = l->y[1] = hi;
  l->up[0] = (1.0 + band_frac) * lo, l->up[1] = (1.0 + band_frac) * hi;
  l->down[0] = (1.0 - band_frac) * lo, l->down[1] = (1.0 - band_frac) * hi;
  snprintf(l->up_label, sizeof l->up_label, "+%.0f%%", 100.0 * band_frac);
  snprintf(l->down_label, sizeof l->down_label, "-%.0f%%", 100.0 * band_frac);
  l->series[0] = (scale_plot_series){.label = "predicted = measured", .x = l->x, .y = l->y, .n = 2};
  l->series[1] =
      (scale_plot_series){.label = l->up_label, .x = l->x, .y = l->up, .n = 2, .dashed = true};
  l->series[2] =
      (scale_plot_series){.label = l->down_label, .x = l->x, .y = l->down, .n = 2, .dashed = true};
  return (scale_plot){.title = title,
                      .desc = desc,
                      .x_label = x_label,
                      .y_label = y_label,
                      .x_axis = SCALE_PLOT_LOG,
                      .y_axis = SCALE_PLOT_LOG,
                      .x_min = lo,
                      .x_max = hi,
                      .y_min = lo,
                      .y_max = hi,
                      .legend = SCALE_PLOT_LEGEND_TOP_LEFT,
                      .series = l->series,
                      .n_series = 3};
}

scale_status scale_plot_svg(const scale_plot *plot, char *buf, size_t size, size_t *len,
                            scale_diag *diag) {
  if (size && buf) buf[0] = '\0';
  scale_status st = validate(plot, diag);
  if (st) return st;
  sink s = {.buf = buf, .size = buf ? size : 0};
  render(&s, plot);
  if (len) *len = s.len;
  if (s.len >= s.size)
    return scale_diag_set(diag, SCALE_ERR_RANGE, NULL, 0, "SVG needs %zu bytes, buffer holds %zu",
                          s.len + 1, size);
  return SCALE_OK;
}

scale_status scale_plot_write(const scale_plot *plot, FILE *out, scale_diag *diag) {
  scale_status st = validate(plot, diag);
  if (st) return st;
  if (!out) return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "no output stream");
  sink s = {.file = out};
  render(&s, plot);
  if (s.failed || ferror(out))
    return scale_diag_set(diag, SCALE_ERR_IO, NULL, 0, "writing the SVG failed");
  return SCALE_OK;
}
