/* plot.h — deterministic SVG line plots: rooflines, frontiers, scaling curves.
 *
 * A plot is described by plain caller-owned structs (series of (x, y) points, reference lines,
 * annotated points) and written as one standalone SVG document, either into a caller buffer
 * (snprintf-style) or to a FILE*. Nothing is allocated and nothing global is read: the same
 * description gives the same bytes on every run, so golden files compare byte for byte
 * (coordinates are printed with two decimals, tick labels with at most six significant digits).
 *
 * Axes are linear or logarithmic (base 10). A non-finite y (or x) breaks a series into separate
 * line pieces, so a curve can skip an infeasible region. On a log axis every finite data value,
 * marker and explicit range bound must be > 0: anything else is an error, never a silent clip.
 *
 * Layout: every text (tick labels, title, captions, labels of reference lines and points, the
 * legend) is placed so that no two overlap and none leaves the canvas, estimating a text's
 * extent from its font size and character count (0.6 em a character, 0.8 em above the baseline
 * and 0.25 em below); a title too wide for the canvas is set smaller. A point label that finds
 * no free place beside its dot moves further out, joined to the dot by a leader line. Series are
 * told apart by colour, by glyph (circle, square, triangle, diamond, ...; at every point with
 * 'dots', else a few along the line at a phase of their own) and, for dashed series, by dash
 * pattern; a series that another one covers along its whole length is drawn wider beneath it.
 * A guide (a series of straight two-point pieces without dots, whose colour and dash no other
 * line shares: a diagonal, a +-25% band) draws no glyphs, in the plot or the legend, so it is
 * not read as data; a scatter (lone points) shows its glyph alone in the legend.
 *
 * Book: every chapter draws with it, e.g. ch. 1 "All About Rooflines" (the roofline plot:
 * attainable FLOP/s against arithmetic intensity on log-log axes).
 */
#ifndef SCALE_PLOT_H
#define SCALE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scale/status.h"

/** Scale of an axis. */
typedef enum {
  SCALE_PLOT_LINEAR = 0, /**< evenly spaced "nice" ticks (1, 2, 5 x 10^k steps) */
  SCALE_PLOT_LOG         /**< base-10 logarithmic; ticks at decades */
} scale_plot_axis;

/** The corner of the plot area the legend prefers. Where the legend would cover data (a line,
 * a glyph, a point) or a label, it takes another free corner, else it goes outside the plot
 * area on the right, which narrows to make room. */
typedef enum {
  SCALE_PLOT_LEGEND_TOP_LEFT = 0,
  SCALE_PLOT_LEGEND_TOP_RIGHT,
  SCALE_PLOT_LEGEND_BOTTOM_LEFT,
  SCALE_PLOT_LEGEND_BOTTOM_RIGHT,
  SCALE_PLOT_LEGEND_NONE /**< no legend even when series have labels */
} scale_plot_legend;

/** One curve: n points (x[i], y[i]) joined in order. */
typedef struct {
  const char *label; /**< legend text; NULL or "" keeps the series out of the legend */
  const double *x;   /**< n abscissae (caller-owned) */
  const double *y;   /**< n ordinates (caller-owned) */
  size_t n;          /**< number of points; 0 draws nothing */
  bool dashed;       /**< dashed stroke instead of solid (each dashed series its own pattern) */
  bool dots;         /**< also draw a small dot at every point */
} scale_plot_series;

/** A reference line across the whole plot area (a critical intensity, a memory limit). */
typedef struct {
  bool vertical;     /**< true: the line x = at; false: the line y = at */
  double at;         /**< position in data units */
  const char *label; /**< text written next to the line; may be NULL */
} scale_plot_marker;

/** A point drawn as a dot with a text label beside it (a chip on a roofline). */
typedef struct {
  double x, y;       /**< position in data units */
  const char *label; /**< may be NULL */
} scale_plot_point;

/** A whole plot. Zero-initialise, then fill what you need: every field has a usable default. */
typedef struct {
  const char *title;   /**< drawn above the plot and used as the SVG <title>; may be NULL */
  const char *desc;    /**< alternative text for screen readers (SVG <desc>); may be NULL */
  const char *x_label; /**< axis captions, units included ("arithmetic intensity [FLOP/byte]") */
  const char *y_label;
  scale_plot_axis x_axis, y_axis;
  double width_px, height_px; /**< canvas size; <= 0 (or non-finite) means 640 x 400 */
  /** Axis ranges in data units, used when x_min < x_max (resp. y); otherwise chosen from the
   * data, markers and points, widened to whole ticks (whole decades on log axes). */
  double x_min, x_max, y_min, y_max;
  scale_plot_legend legend;
  const scale_plot_series *series;
  size_t n_series;
  const scale_plot_marker *markers;
  size_t n_markers;
  const scale_plot_point *points;
  size_t n_points;
} scale_plot;

/** The frame the book's data figures share: a 720 x 460 px canvas, the legend top left,
 * 'title', 'desc', the axis captions and scales given, drawing series[0..n_series); markers,
 * points and ranges unset (set them on the result). Book: every chapter's data figures. */
scale_plot scale_plot_frame(const char *title, const char *desc, const char *x_label,
                            const char *y_label, scale_plot_axis x_axis, scale_plot_axis y_axis,
                            const scale_plot_series *series, size_t n_series);

/** The lines of a predicted-against-measured figure, filled by scale_plot_parity(): caller
 * storage the plot's series point into, so it must outlive the plot. */
typedef struct {
  double x[2], y[2], up[2], down[2]; /**< the identity and the band's two lines, lo to hi */
  char up_label[16], down_label[16]; /**< "+25%", "-25%" */
  scale_plot_series series[3];       /**< the identity, the upper and the lower line */
} scale_plot_parity_lines;

/** A predicted-against-measured plot on log axes, both ranging over [lo, hi]: the identity
 * ("predicted = measured") and, dashed, the lines (1 + band_frac) x and (1 - band_frac) x
 * ("+25%" and "-25%" for band_frac 0.25), held in *lines; the legend top left, the default
 * canvas, 'title', 'desc' and the captions given. Set the points (one dot per case) on the
 * result. Example: chapter 13's study-*.svg, measured step time against predicted.
 *
 * Domain: 0 < lo < hi, 0 <= band_frac < 1 (scale_plot_svg rejects a log range that is not).
 */
scale_plot scale_plot_parity(const char *title, const char *desc, const char *x_label,
                             const char *y_label, double lo, double hi, double band_frac,
                             scale_plot_parity_lines *lines);

/** Writes the SVG document of 'plot' into buf[0..size) and stores its full length (excluding
 * the NUL) in *len (when len is non-NULL), like snprintf: with buf NULL and size 0 it only
 * measures.
 *
 * Errors: SCALE_ERR_INVALID for a NULL plot or a series with n > 0 and NULL x or y;
 *         SCALE_ERR_RANGE for a value <= 0 on a log axis (data, marker, point or explicit
 *         range bound), or when the document does not fit in 'size' (the buffer then holds a
 *         NUL-terminated prefix and *len the size needed). 'diag' (may be NULL) says which.
 */
scale_status scale_plot_svg(const scale_plot *plot, char *buf, size_t size, size_t *len,
                            scale_diag *diag);

/** Writes the SVG document of 'plot' to 'out'; nothing is written when the plot is invalid.
 *
 * Errors: as scale_plot_svg() (never the buffer case); SCALE_ERR_IO when writing fails.
 */
scale_status scale_plot_write(const scale_plot *plot, FILE *out, scale_diag *diag);

/** Formats 'value' as an axis tick label into buf: at most six significant digits, plain for
 * 1e-3 <= |value| < 1e5 ("0.25", "4096"), else a compact exponent ("2e14", "2.5e-5", never "e+14");
 * zero prints "0". Returns buf (NUL-terminated when size > 0).
 */
char *scale_plot_tick_label(char *buf, size_t size, double value);

#endif
