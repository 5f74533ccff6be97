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
    switch (*p) {
    case '&':
      emit(s, "&amp;");
      break;
    case '<':
      emit(s, "&lt;");
      break;
    case '>':
      emit(s, "&gt;");
      break;
    case '"':
      emit(s, "&quot;");
      break;
    case '\'':
      emit(s, "&#39;");
      break;
    default:
      emit(s, "%c", *p);
      break;
    }
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

/* ---- drawing -------------------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
#define PALETTE_N (sizeof palette / sizeof palette[0])

static void draw_series(sink *s, const axis *ax, const axis *ay, const scale_plot_series *ser,
                        const char *color) {
  char b1[32], b2[32];
  bool open = false;
  for (size_t j = 0; j <= ser->n; j++) {
    bool ok = j < ser->n && isfinite(ser->x[j]) && isfinite(ser->y[j]);
    if (ok && !open) {
      emit(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", color,
           ser->dashed ? " stroke-dasharray=\"6 4\"" : "");
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
  if (!ser->dots) return;
  for (size_t j = 0; j < ser->n; j++)
    if (isfinite(ser->x[j]) && isfinite(ser->y[j]))
      emit(s, "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\" fill=\"%s\"/>\n",
           fmt_num(b1, to_px(ax, ser->x[j])), fmt_num(b2, to_px(ay, ser->y[j])), color);
}

static void draw_legend(sink *s, const scale_plot *plot, double x0, double y0, double x1,
                        double y1) {
  size_t n = 0, longest = 0;
  for (size_t i = 0; i < plot->n_series; i++) {
    const char *label = plot->series[i].label;
    if (!label || !label[0]) continue;
    n++;
    if (strlen(label) > longest) longest = strlen(label);
  }
  if (n == 0 || plot->legend == SCALE_PLOT_LEGEND_NONE) return;
  double w = 44.0 + 7.0 * (double)longest, h = 8.0 + 18.0 * (double)n;
  bool right =
      plot->legend == SCALE_PLOT_LEGEND_TOP_RIGHT || plot->legend == SCALE_PLOT_LEGEND_BOTTOM_RIGHT;
  bool bottom = plot->legend == SCALE_PLOT_LEGEND_BOTTOM_LEFT ||
                plot->legend == SCALE_PLOT_LEGEND_BOTTOM_RIGHT;
  double lx = right ? x1 - 8.0 - w : x0 + 8.0, ly = bottom ? y1 - 8.0 - h : y0 + 8.0;
  char b1[32], b2[32], b3[32], b4[32];
  emit(s,
       "<g class=\"legend\">\n<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
       "fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#999999\"/>\n",
       fmt_num(b1, lx), fmt_num(b2, ly), fmt_num(b3, w), fmt_num(b4, h));
  double row = ly + 4.0 + 9.0;
  for (size_t i = 0; i < plot->n_series; i++) {
    const scale_plot_series *ser = &plot->series[i];
    if (!ser->label || !ser->label[0]) continue;
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
         fmt_num(b1, lx + 6.0), fmt_num(b2, row), fmt_num(b3, lx + 30.0), fmt_num(b4, row),
         palette[i % PALETTE_N], ser->dashed ? " stroke-dasharray=\"6 4\"" : "");
    emit(s, "<text x=\"%s\" y=\"%s\">", fmt_num(b1, lx + 36.0), fmt_num(b2, row + 4.0));
    emit_text(s, ser->label);
    emit(s, "</text>\n");
    row += 18.0;
  }
  emit(s, "</g>\n");
}

static void render(sink *s, const scale_plot *plot) {
  double W = plot->width_px > 0.0 && isfinite(plot->width_px) ? plot->width_px : 640.0;
  double H = plot->height_px > 0.0 && isfinite(plot->height_px) ? plot->height_px : 400.0;
  double x0 = 72.0, x1 = W - 20.0, y0 = plot->title && plot->title[0] ? 36.0 : 16.0, y1 = H - 50.0;

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
  axis ax, ay;
  setup_axis(&ax, plot->x_axis, xlo, xhi, plot->x_min, plot->x_max);
  setup_axis(&ay, plot->y_axis, ylo, yhi, plot->y_min, plot->y_max);
  ax.p0 = x0, ax.p1 = x1;
  ay.p0 = y1, ay.p1 = y0;

  char b1[32], b2[32], b3[32], b4[32], tick[40];
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
       fmt_num(b1, x0), fmt_num(b2, y0), fmt_num(b3, x1 - x0), fmt_num(b4, y1 - y0));

  /* Grid and ticks. */
  emit(s, "<g class=\"grid\" stroke=\"#e6e6e6\">\n");
  for (int i = 0; i < ax.n_major; i++) {
    double p = to_px(&ax, ax.major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, p), fmt_num(b2, y0),
         fmt_num(b3, p), fmt_num(b4, y1));
  }
  for (int i = 0; i < ay.n_major; i++) {
    double p = to_px(&ay, ay.major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, x0), fmt_num(b2, p),
         fmt_num(b3, x1), fmt_num(b4, p));
  }
  emit(s, "</g>\n<g class=\"ticks\" stroke=\"#333333\">\n");
  for (int i = 0; i < ax.n_minor; i++) {
    double p = to_px(&ax, ax.minor[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, p), fmt_num(b2, y1),
         fmt_num(b3, p), fmt_num(b4, y1 + 3.0));
  }
  for (int i = 0; i < ay.n_minor; i++) {
    double p = to_px(&ay, ay.minor[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, x0 - 3.0),
         fmt_num(b2, p), fmt_num(b3, x0), fmt_num(b4, p));
  }
  for (int i = 0; i < ax.n_major; i++) {
    double p = to_px(&ax, ax.major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, p), fmt_num(b2, y1),
         fmt_num(b3, p), fmt_num(b4, y1 + 5.0));
  }
  for (int i = 0; i < ay.n_major; i++) {
    double p = to_px(&ay, ay.major[i]);
    emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", fmt_num(b1, x0 - 5.0),
         fmt_num(b2, p), fmt_num(b3, x0), fmt_num(b4, p));
  }
  emit(s, "</g>\n<g class=\"tick-labels\" fill=\"#333333\">\n");
  for (int i = 0; i < ax.n_major; i++)
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
         fmt_num(b1, to_px(&ax, ax.major[i])), fmt_num(b2, y1 + 18.0),
         scale_plot_tick_label(tick, sizeof tick, ax.major[i]));
  for (int i = 0; i < ay.n_major; i++)
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", fmt_num(b1, x0 - 8.0),
         fmt_num(b2, to_px(&ay, ay.major[i]) + 4.0),
         scale_plot_tick_label(tick, sizeof tick, ay.major[i]));
  emit(s, "</g>\n");

  /* Reference lines, then the data, clipped to the plot area. */
  emit(s, "<g clip-path=\"url(#plot-area)\">\n");
  for (size_t i = 0; i < plot->n_markers; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const axis *a = m->vertical ? &ax : &ay;
    if (!in_range(a, m->at)) continue;
    double p = to_px(a, m->at);
    if (m->vertical)
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"", fmt_num(b1, p), fmt_num(b2, y0),
           fmt_num(b3, p), fmt_num(b4, y1));
    else
      emit(s, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"", fmt_num(b1, x0), fmt_num(b2, p),
           fmt_num(b3, x1), fmt_num(b4, p));
    emit(s, " stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"3 3\"/>\n");
  }
  for (size_t i = 0; i < plot->n_series; i++)
    draw_series(s, &ax, &ay, &plot->series[i], palette[i % PALETTE_N]);
  emit(s, "</g>\n");

  /* Labels of reference lines and annotated points (outside the clip so text is whole). */
  for (size_t i = 0; i < plot->n_markers; i++) {
    const scale_plot_marker *m = &plot->markers[i];
    const axis *a = m->vertical ? &ax : &ay;
    if (!m->label || !m->label[0] || !in_range(a, m->at)) continue;
    double p = to_px(a, m->at);
    if (m->vertical)
      emit(s, "<text x=\"%s\" y=\"%s\" fill=\"#555555\">", fmt_num(b1, p + 4.0),
           fmt_num(b2, y0 + 14.0));
    else
      emit(s, "<text x=\"%s\" y=\"%s\" fill=\"#555555\" text-anchor=\"end\">",
           fmt_num(b1, x1 - 4.0), fmt_num(b2, p - 4.0));
    emit_text(s, m->label);
    emit(s, "</text>\n");
  }
  for (size_t i = 0; i < plot->n_points; i++) {
    const scale_plot_point *pt = &plot->points[i];
    if (!in_range(&ax, pt->x) || !in_range(&ay, pt->y)) continue;
    double px = to_px(&ax, pt->x), py = to_px(&ay, pt->y);
    emit(s, "<circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"#000000\"/>\n", fmt_num(b1, px),
         fmt_num(b2, py));
    if (pt->label && pt->label[0]) {
      emit(s, "<text x=\"%s\" y=\"%s\">", fmt_num(b1, px + 6.0), fmt_num(b2, py - 6.0));
      emit_text(s, pt->label);
      emit(s, "</text>\n");
    }
  }

  draw_legend(s, plot, x0, y0, x1, y1);

  /* Frame, title and axis captions. */
  emit(s, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#333333\"/>\n",
       fmt_num(b1, x0), fmt_num(b2, y0), fmt_num(b3, x1 - x0), fmt_num(b4, y1 - y0));
  if (plot->title && plot->title[0]) {
    emit(s,
         "<text x=\"%s\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" "
         "font-weight=\"bold\">",
         fmt_num(b1, (x0 + x1) / 2.0));
    emit_text(s, plot->title);
    emit(s, "</text>\n");
  }
  if (plot->x_label && plot->x_label[0]) {
    emit(s, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">", fmt_num(b1, (x0 + x1) / 2.0),
         fmt_num(b2, H - 12.0));
    emit_text(s, plot->x_label);
    emit(s, "</text>\n");
  }
  if (plot->y_label && plot->y_label[0]) {
    emit(s, "<text transform=\"translate(16 %s) rotate(-90)\" text-anchor=\"middle\">",
         fmt_num(b1, (y0 + y1) / 2.0));
    emit_text(s, plot->y_label);
    emit(s, "</text>\n");
  }
  emit(s, "</svg>\n");
}

/* ---- public --------------------------------------------------------------------------------- */

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
