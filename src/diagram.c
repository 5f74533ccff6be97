/* diagram.c — concept diagrams drawn from the library's values (diagram.h). */
#include "scale/diagram.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/gpu.h"
#include "scale/serve.h"
#include "scale/training.h"
#include "scale/transformer.h"
#include "scale/units.h"

/* ==== the canvas: SVG text into a caller buffer, every text box checked =================== */

#define TEXTS_MAX 1024

typedef struct {
  double x0, y0, x1, y1;
} box;

typedef struct {
  char *buf;
  size_t size, len;
  double w, h;
  box texts[TEXTS_MAX];
  char first[TEXTS_MAX][24]; /* the start of each text, to name it in a diagnostic */
  size_t n_texts;
  scale_status st;
  scale_diag *diag;
} canvas;

/* One colour a device (or a chunk): a palette of 16 that stay apart in print and on screen. */
static const char *const PALETTE[16] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#17becf"};

static void put(canvas *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(canvas *cv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = cv->len < cv->size ? cv->size - cv->len : 0;
  int n = vsnprintf(room ? cv->buf + cv->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0) cv->len += (size_t)n;
}

static void put_escaped(canvas *cv, const char *s) {
  for (; *s; s++) {
    const char *entity = scale_xml_entity(*s);
    if (entity)
      put(cv, "%s", entity);
    else
      put(cv, "%c", *s);
  }
}

static void fail(canvas *cv, const char *what, const char *a, const char *b) {
  if (!cv->st)
    cv->st = scale_diag_set(cv->diag, SCALE_ERR_RANGE, "", 0, "diagram text '%s' %s%s", a, what, b);
}

/** Characters as a reader counts them: UTF-8 continuation bytes do not add width. */
static size_t glyphs(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/** Text at (x, y) of font size fs anchored "start", "middle" or "end", in 'fill' (NULL: the
 * default black). A box that leaves the canvas or meets an earlier text is an error (the
 * estimate of plot.h). */
static void text_in(canvas *cv, double x, double y, double fs, const char *anchor, const char *s,
                    const char *fill) {
  double w = (double)glyphs(s) * 0.6 * fs;
  double left = anchor[0] == 'm' ? x - w / 2 : anchor[0] == 'e' ? x - w : x;
  box b = {left, y - 0.8 * fs, left + w, y + 0.25 * fs};
  if (b.x0 < 0 || b.y0 < 0 || b.x1 > cv->w || b.y1 > cv->h) fail(cv, "leaves the canvas", s, "");
  for (size_t i = 0; i < cv->n_texts && !cv->st; i++) {
    const box *o = &cv->texts[i];
    if (b.x0 < o->x1 && o->x0 < b.x1 && b.y0 < o->y1 && o->y0 < b.y1)
      fail(cv, "overlaps ", s, cv->first[i]);
  }
  if (cv->n_texts == TEXTS_MAX) fail(cv, "is one text too many", s, "");
  if (cv->st) return;
  cv->texts[cv->n_texts] = b;
  snprintf(cv->first[cv->n_texts++], 24, "%.23s", s); /* its start, to name it */
  put(cv, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"%s\"", x, y, fs, anchor);
  if (fill) put(cv, " fill=\"%s\"", fill);
  put(cv, ">");
  put_escaped(cv, s);
  put(cv, "</text>\n");
}

static void text(canvas *cv, double x, double y, double fs, const char *anchor, const char *s) {
  text_in(cv, x, y, fs, anchor, s, NULL);
}

static void rect(canvas *cv, const char *cls, double x, double y, double w, double h,
                 const char *fill, const char *stroke) {
  put(cv, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"",
      cls, x, y, w, h, fill);
  if (stroke) put(cv, " stroke=\"%s\"", stroke);
  put(cv, "/>\n");
}

static void line(canvas *cv, const char *cls, double x0, double y0, double x1, double y1,
                 bool dashed) {
  put(cv,
      "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#555555\" "
      "stroke-width=\"1.5\"%s/>\n",
      cls, x0, y0, x1, y1, dashed ? " stroke-dasharray=\"4 3\"" : "");
}

static void begin(canvas *cv, char *buf, size_t size, scale_diag *diag, double w, double h,
                  const char *title, const char *desc) {
  memset(cv, 0, sizeof *cv);
  cv->buf = buf;
  cv->size = buf ? size : 0;
  cv->w = w;
  cv->h = h;
  cv->diag = diag;
  put(cv,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g "
      "%g\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
      w, h, w, h);
  put_escaped(cv, title);
  put(cv, "</title>\n<desc>");
  put_escaped(cv, desc);
  put(cv, "</desc>\n");
  put(cv, "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" "
          "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#555555\"/>"
          "</marker><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#bbbbbb\" stroke-width=\"2\"/>"
          "</pattern></defs>\n");
  rect(cv, "background", 0, 0, w, h, "#ffffff", NULL);
  /* A title too wide for the canvas is set smaller, as plot.h does. */
  double fs = fmin(14, (w - 24) / (0.6 * (double)(glyphs(title) + 1)));
  text(cv, 12, 20, fs, "start", title);
}

static scale_status finish(canvas *cv, size_t *len) {
  put(cv, "</svg>\n");
  if (len) *len = cv->len;
  if (cv->st) return cv->st;
  if (cv->buf && cv->len >= cv->size)
    return scale_diag_set(cv->diag, SCALE_ERR_RANGE, "", 0,
                          "diagram needs %zu bytes, the buffer holds %zu", cv->len + 1, cv->size);
  return SCALE_OK;
}

/* ==== a sharded array on its mesh ========================================================== */

#define DEVICES_MAX 16

typedef struct {
  int n_devices, rows, cols; /* the mesh drawn as rows x cols (axis 0 down, axis 1 across) */
  int blocks[2];             /* blocks along each dimension of the array */
  int block[DEVICES_MAX][2]; /* the block each device holds */
} placement;

/** Where each device's block lies, from scale_sharding_block_index(). */
static bool place(const scale_mesh *mesh, const scale_sharding *s, placement *pl) {
  double n = scale_sharding_mesh_devices(mesh);
  if (!(n >= 1 && n <= DEVICES_MAX) || mesh->n_axes > 2 || s->n_dims != 2) return false;
  pl->n_devices = (int)n;
  pl->rows = mesh->n_axes == 2 ? (int)mesh->size[0] : 1;
  pl->cols = pl->n_devices / pl->rows;
  for (int d = 0; d < 2; d++)
    pl->blocks[d] = 1;
  for (int dev = 0; dev < pl->n_devices; dev++) {
    double coord[2] = {mesh->n_axes == 2 ? dev / pl->cols : dev, dev % pl->cols};
    for (int d = 0; d < 2; d++) {
      double b = scale_sharding_block_index(s, mesh, coord, d);
      if (!(b >= 0)) return false;
      pl->block[dev][d] = (int)b;
      if ((int)b + 1 > pl->blocks[d]) pl->blocks[d] = (int)b + 1;
    }
  }
  return true;
}

/** "A[I_XY, J]" from the parsed sharding. */
static void sharding_text(const scale_sharding *s, const scale_mesh *mesh, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "%s[", s->array[0] ? s->array : "A");
  for (int d = 0; d < s->n_dims && k < n; d++) {
    k += (size_t)snprintf(out + k, n - k, "%s%s%s", d ? ", " : "", s->dim[d],
                          s->n_dim_axes[d] ? "_" : "");
    for (int a = 0; a < s->n_dim_axes[d] && k < n; a++)
      k += (size_t)snprintf(out + k, n - k, "%c", mesh->name[s->dim_axes[d][a]]);
  }
  if (k < n) snprintf(out + k, n - k, "]");
}

static void mesh_text(const scale_mesh *mesh, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "{");
  for (int a = 0; a < mesh->n_axes && k < n; a++)
    k += (size_t)snprintf(out + k, n - k, "%s%c:%g", a ? ", " : "", mesh->name[a], mesh->size[a]);
  if (k < n) snprintf(out + k, n - k, "}");
}

/** The whole array, each block in its holder's colour or with a swatch per copy. */
static void draw_blocks(canvas *cv, const scale_sharding *s, const placement *pl, double x0,
                        double y0, double side, const char *label) {
  double bw = side / pl->blocks[1], bh = side / pl->blocks[0];
  text(cv, x0, y0 - 10, 12, "start", label);
  for (int i = 0; i < pl->blocks[0]; i++)
    for (int j = 0; j < pl->blocks[1]; j++) {
      int holders[DEVICES_MAX], r = 0;
      for (int dev = 0; dev < pl->n_devices; dev++)
        if (pl->block[dev][0] == i && pl->block[dev][1] == j) holders[r++] = dev;
      double x = x0 + j * bw, y = y0 + i * bh;
      /* One holder fills its block; copies on several devices show as a row of swatches, so
       * a replicated block is not read as cut further. */
      rect(cv, "block", x, y, bw, bh, r == 1 ? PALETTE[holders[0]] : "#f4f4f4", "#333333");
      double sw = fmin(12, (bw - 4) / (r + 1)), sx = x + (bw - r * sw) / 2;
      for (int k = 0; r > 1 && k < r; k++)
        rect(cv, "copy", sx + k * sw, y + bh - sw - 3, sw, sw, PALETTE[holders[k]], NULL);
      char name[48] = "whole";
      int k = 0; /* name a dimension's block only where the dimension is cut */
      if (pl->blocks[0] > 1) k = snprintf(name, sizeof name, "%s%d", s->dim[0], i);
      if (pl->blocks[1] > 1)
        snprintf(name + k, sizeof name - (size_t)k, "%s%s%d", k ? " " : "", s->dim[1], j);
      if (glyphs(name) * 0.6 * 11 < bw - 4 && bh > 16)
        text(cv, x + bw / 2, y + bh / 2 + 4, 11, "middle", name);
    }
}

/** The mesh, each device with a small map of the array and its own block filled in. */
static void draw_mesh(canvas *cv, const scale_mesh *mesh, const placement *pl, double x0, double y0,
                      double width, double height) {
  double pitch = fmin(width / pl->cols, height / pl->rows), cell = pitch - 10;
  text(cv, x0, y0 - 10, 12, "start", "each device holds");
  for (int dev = 0; dev < pl->n_devices; dev++) {
    int r = mesh->n_axes == 2 ? dev / pl->cols : 0, c = dev % pl->cols;
    double x = x0 + c * pitch, y = y0 + r * pitch;
    rect(cv, "device", x, y, cell, cell, "#ffffff", PALETTE[dev]);
    char label[32];
    if (mesh->n_axes == 2)
      snprintf(label, sizeof label, "%c%d %c%d", mesh->name[0], r, mesh->name[1], c);
    else
      snprintf(label, sizeof label, "%c%d", mesh->name[0], c);
    text(cv, x + cell / 2, y + 12, 10, "middle", label);
    double mx = x + 6, my = y + 18, mw = cell - 12, mh = cell - 24;
    double bw = mw / pl->blocks[1], bh = mh / pl->blocks[0];
    for (int i = 0; i < pl->blocks[0]; i++)
      for (int j = 0; j < pl->blocks[1]; j++) {
        bool own = pl->block[dev][0] == i && pl->block[dev][1] == j;
        rect(cv, own ? "held" : "map", mx + j * bw, my + i * bh, bw, bh,
             own ? PALETTE[dev] : "#f0f0f0", "#999999");
      }
  }
}

scale_status scale_diagram_sharded_array(const scale_mesh *mesh, const scale_sharding *s, char *buf,
                                         size_t size, size_t *len, scale_diag *diag) {
  placement pl;
  if (!mesh || !s || (!buf && size) || !place(mesh, s, &pl))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a sharded-array diagram needs a 2-D array on a mesh of one or two "
                          "axes and at most %d devices",
                          DEVICES_MAX);
  char name[96], mtext[96], title[256], desc[1024], foot[256];
  sharding_text(s, mesh, name, sizeof name);
  mesh_text(mesh, mtext, sizeof mtext);
  double shards = scale_sharding_n_shards(s, mesh), copies = scale_sharding_replication(s, mesh);
  snprintf(title, sizeof title, "%s on the mesh %s", name, mtext);
  const char *array = s->array[0] ? s->array : "A";
  if (shards == 1)
    snprintf(foot, sizeof foot, "one block, a copy on each of the %g devices: each holds all of %s",
             copies, array);
  else
    snprintf(foot, sizeof foot, "%g blocks, each on %g device%s: every device holds 1/%g of %s",
             shards, copies, copies == 1 ? "" : "s", shards, array);
  snprintf(desc, sizeof desc,
           "%s. Left: the array cut into %d x %d blocks, each in the colour of "
           "the device holding it, or with a swatch per device where several hold copies. Right: "
           "the %d devices of the mesh. %s.",
           title, pl.blocks[0], pl.blocks[1], pl.n_devices, foot);
  canvas cv;
  double h = 400;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  draw_blocks(&cv, s, &pl, 20, 64, 280, "the whole array");
  draw_mesh(&cv, mesh, &pl, 340, 64, 290, 280);
  text(&cv, 20, h - 20, 12, "start", foot);
  return finish(&cv, len);
}

/* ==== the steps of a ring collective ======================================================= */

#define RING_MAX 6

typedef struct {
  int n;
  double have[RING_MAX][RING_MAX]; /* contributions (ReduceScatter) or 0/1 copies held */
} ring_state;

/** Step t (1-based) of a phase: device d sends chunk (d - t + lag) mod n to d + 1. For a
 * ReduceScatter (lag 0) the receiver adds its partial sum; for an AllGather (lag 1) it keeps
 * the copy. After n - 1 steps of ReduceScatter device d holds chunk d whole, which is the
 * chunk it sends first in the AllGather that follows. */
static int sent_chunk(int n, int d, int t, bool gather) {
  return (((d - t + (gather ? 1 : 0)) % n) + n) % n;
}

static void ring_step(ring_state *rs, int t, bool gather) {
  double next[RING_MAX][RING_MAX];
  memcpy(next, rs->have, sizeof next);
  for (int d = 0; d < rs->n; d++) {
    int c = sent_chunk(rs->n, d, t, gather), to = (d + 1) % rs->n;
    next[to][c] = gather ? rs->have[d][c] : rs->have[to][c] + rs->have[d][c];
  }
  memcpy(rs->have, next, sizeof next);
}

typedef struct {
  double x0, pitch, box, slot, gap;
} ring_geom;

static void draw_ring_state(canvas *cv, const ring_state *rs, const ring_geom *g, double y,
                            bool reduce, const char *label) {
  text(cv, 12, y + g->slot / 2 + 4, 11, "start", label);
  for (int d = 0; d < rs->n; d++) {
    double x = g->x0 + d * g->pitch;
    rect(cv, "ringdev", x, y - 3, g->box, g->slot + 6, "#ffffff", "#333333");
    for (int c = 0; c < rs->n; c++) {
      double v = rs->have[d][c], op = reduce ? v / rs->n : (v > 0 ? 1 : 0);
      put(cv,
          "<rect class=\"chunk\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
          "fill=\"%s\" fill-opacity=\"%.3f\" stroke=\"#999999\"/>\n",
          x + 3 + c * g->slot, y, g->slot - 1, g->slot, PALETTE[c], op);
    }
  }
}

static void draw_sends(canvas *cv, int n, const ring_geom *g, double y, int t, bool gather) {
  for (int d = 0; d < n; d++) {
    int c = sent_chunk(n, d, t, gather);
    double xc = g->x0 + d * g->pitch + 3 + (c + 0.5) * g->slot;
    double xt = g->x0 + ((d + 1) % n) * g->pitch + 3 + (c + 0.5) * g->slot;
    double yb = y + g->slot + 3;
    if (d + 1 < n)
      put(cv,
          "<path class=\"send\" d=\"M%.2f,%.2f C%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"none\" "
          "stroke=\"%s\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
          xc, yb, xc, yb + 14, xt, yb + 8, xt, yb + 20, PALETTE[c]);
    else /* the wraparound link: back under the row to device 0 */
      put(cv,
          "<path class=\"send\" d=\"M%.2f,%.2f L%.2f,%.2f L%.2f,%.2f L%.2f,%.2f\" "
          "fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" "
          "marker-end=\"url(#arrow)\"/>\n",
          xc, yb, xc, yb + 10, xt, yb + 10, xt, yb + 20, PALETTE[c]);
  }
}

scale_status scale_diagram_ring_steps(scale_collective op, int n, double bytes, char *buf,
                                      size_t size, size_t *len, scale_diag *diag) {
  bool reduce_first = op == SCALE_COLL_ALL_REDUCE || op == SCALE_COLL_REDUCE_SCATTER;
  bool then_gather = op == SCALE_COLL_ALL_REDUCE || op == SCALE_COLL_ALL_GATHER;
  if ((!buf && size) || n < 2 || n > RING_MAX || !(bytes > 0) || !isfinite(bytes) ||
      !(reduce_first || then_gather))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a ring diagram needs AllGather, ReduceScatter or AllReduce on 2 to %d "
                          "devices and a positive size",
                          RING_MAX);
  ring_state rs = {n, {{0}}};
  for (int d = 0; d < n; d++)
    for (int c = 0; c < n; c++)
      rs.have[d][c] = reduce_first || c == d;
  int steps = (reduce_first ? n - 1 : 0) + (then_gather ? n - 1 : 0);
  ring_geom g = {70, 0, 0, fmin(14, 300.0 / (n * n)), 34};
  g.box = n * g.slot + 6;
  g.pitch = g.box + g.gap;
  double row = g.slot + 30, h = 70 + (steps + 1) * row + 30, w = g.x0 + n * g.pitch;
  char chunk[32], carried[32], title[160], foot[256], desc[1024];
  double link = scale_collective_ring_link_bytes(op, n, bytes, false);
  scale_format(chunk, sizeof chunk, bytes / n, "B", SCALE_FMT_IEC);
  scale_format(carried, sizeof carried, link, "B", SCALE_FMT_IEC);
  snprintf(title, sizeof title, "%s on a ring of %d", scale_collective_name(op), n);
  snprintf(foot, sizeof foot, "%d steps, a %s chunk per link each: %s per link", steps, chunk,
           carried);
  snprintf(desc, sizeof desc,
           "%s, one row per state: each device holds %d chunks (colour = "
           "chunk; pale = a partial sum of fewer devices); arrows are the chunks sent, device d "
           "to d+1, the dashed one over the wraparound link. %s.",
           title, n, foot);
  canvas cv;
  begin(&cv, buf, size, diag, fmax(w, 420), h, title, desc);
  for (int d = 0; d < n; d++) {
    char name[32];
    snprintf(name, sizeof name, "dev %d", d);
    text(&cv, g.x0 + d * g.pitch + g.box / 2, 50, 11, "middle", name);
  }
  double y = 64;
  draw_ring_state(&cv, &rs, &g, y, reduce_first, "start");
  for (int t = 1; t <= steps; t++) {
    bool gather = !reduce_first || t > n - 1;
    int phase_t = gather && reduce_first ? t - (n - 1) : t;
    draw_sends(&cv, n, &g, y, phase_t, gather);
    ring_step(&rs, phase_t, gather);
    char label[32];
    snprintf(label, sizeof label, "%s %d",
             op == SCALE_COLL_ALL_REDUCE ? (gather ? "AG" : "RS") : "step", phase_t);
    y += row;
    draw_ring_state(&cv, &rs, &g, y, reduce_first && !gather, label);
  }
  text(&cv, 12, h - 14, 12, "start", foot);
  return finish(&cv, len);
}

/* ==== a torus ============================================================================== */

#define TORUS_MAX 8

/** The most hops from chip (0, 0) to any other (the group's radius from a corner). */
static double farthest_hops(const scale_group *g) {
  double most = 0, from[2] = {0, 0};
  for (int i = 0; i < (int)g->axis[0].size; i++)
    for (int j = 0; j < (int)g->axis[1].size; j++) {
      double to[2] = {i, j}, h = scale_collective_p2p_hops(g, from, to);
      if (h > most) most = h;
    }
  return most;
}

static void draw_torus_links(canvas *cv, const scale_group *g, double x0, double y0, double pitch,
                             double chip) {
  int rows = (int)g->axis[0].size, cols = (int)g->axis[1].size;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      double x = x0 + j * pitch, y = y0 + i * pitch, m = chip / 2;
      if (j + 1 < cols) line(cv, "link", x + chip, y + m, x + pitch, y + m, false);
      if (i + 1 < rows) line(cv, "link", x + m, y + chip, x + m, y + pitch, false);
    }
  /* A wraparound link as two dashed stubs, out of one end of its row (column) and into the
   * other: a planar drawing of a torus cannot draw the closing links without crossings. */
  double span_x = (cols - 1) * pitch + chip, span_y = (rows - 1) * pitch + chip, stub = 18;
  for (int i = 0; g->axis[1].wraps && cols > 2 && i < rows; i++) {
    double y = y0 + i * pitch + chip / 2;
    put(cv,
        "<path class=\"wrap\" d=\"M%.2f,%.2f h%.2f M%.2f,%.2f h%.2f\" fill=\"none\" "
        "stroke=\"#c0504d\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
        x0 + span_x, y, stub, x0 - stub, y, stub);
  }
  for (int j = 0; g->axis[0].wraps && rows > 2 && j < cols; j++) {
    double x = x0 + j * pitch + chip / 2;
    put(cv,
        "<path class=\"wrap\" d=\"M%.2f,%.2f v%.2f M%.2f,%.2f v%.2f\" fill=\"none\" "
        "stroke=\"#c0504d\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
        x, y0 + span_y, stub, x, y0 - stub, stub);
  }
}

scale_status scale_diagram_torus(const char *name, const scale_group *group, char *buf, size_t size,
                                 size_t *len, scale_diag *diag) {
  bool ok = group && (buf || !size) && group->n_axes == 2 && isfinite(scale_group_size(group));
  for (int a = 0; ok && a < 2; a++)
    ok = group->axis[a].topology == SCALE_TOPO_RING && group->axis[a].size >= 2 &&
         group->axis[a].size <= TORUS_MAX;
  if (!ok)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a torus diagram needs two ring axes of 2 to %d chips", TORUS_MAX);
  int rows = (int)group->axis[0].size, cols = (int)group->axis[1].size;
  bool wraps = group->axis[0].wraps || group->axis[1].wraps;
  double pitch = 56, chip = 30, x0 = 60, y0 = 70;
  double w = fmax(x0 * 2 + (cols - 1) * pitch + chip, 460), h = y0 + rows * pitch + 76;
  char title[120], bw[32], foot[256], desc[1024];
  snprintf(title, sizeof title, "%s %d x %d: a %s", name && name[0] ? name : "Chips", rows, cols,
           wraps ? "torus (wraparound links)" : "mesh (no wraparound)");
  scale_format(bw, sizeof bw, group->axis[1].link_bytes_per_s, "B/s", SCALE_FMT_SI);
  snprintf(foot, sizeof foot, "farthest chip from 0,0: %g hops; each link %s one way",
           farthest_hops(group), bw);
  snprintf(desc, sizeof desc, "%s: chips are squares, links lines%s. %s.", title,
           wraps ? ", the dashed stubs the wraparound links: each row's (column's) last chip "
                   "links to its first, closing it into a ring"
                 : " (no wraparound)",
           foot);
  canvas cv;
  begin(&cv, buf, size, diag, w, h, title, desc);
  draw_torus_links(&cv, group, x0, y0, pitch, chip);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      double x = x0 + j * pitch, y = y0 + i * pitch;
      rect(&cv, "chip", x, y, chip, chip, "#dce6f2", "#4e79a7");
      char label[32];
      snprintf(label, sizeof label, "%d,%d", i, j);
      text(&cv, x + chip / 2, y + chip / 2 + 3, 9, "middle", label);
    }
  if (wraps)
    text(&cv, 12, h - 36, 11, "start",
         "dashed: the wraparound links (a row's last chip to its first)");
  text(&cv, 12, h - 16, 12, "start", foot);
  return finish(&cv, len);
}

/* ==== a timeline: rows against time (the Gantt chart, the serving trace) =================== */

#define CHART_ROWS_MAX 32
#define CHART_STYLES_MAX 16
#define CHART_SPANS_MAX 8192
#define CHART_MARKS_MAX 4096

typedef struct {
  double x0, y0, width, row, bar, per_s;
} chart_geom;

static bool chart_ok(const scale_diagram_chart *c) {
  bool ok = c->title && c->desc && c->rows && c->styles && (c->spans || !c->n_spans) &&
            (c->marks_s || !c->n_marks) && c->n_rows >= 1 && c->n_rows <= CHART_ROWS_MAX &&
            c->n_styles >= 1 && c->n_styles <= CHART_STYLES_MAX && c->n_spans <= CHART_SPANS_MAX &&
            c->n_marks <= CHART_MARKS_MAX && c->end_s > 0 && isfinite(c->end_s);
  for (int r = 0; ok && r < c->n_rows; r++)
    ok = c->rows[r] != NULL;
  for (int k = 0; ok && k < c->n_styles; k++)
    ok = c->styles[k].name && c->styles[k].cls;
  double slack = 1e-9 * c->end_s;
  for (size_t i = 0; ok && i < c->n_spans; i++) {
    const scale_diagram_span *sp = &c->spans[i];
    ok = sp->row >= 0 && sp->row < c->n_rows && sp->style >= 0 && sp->style < c->n_styles &&
         sp->start_s >= -slack && sp->dur_s > 0 && sp->start_s + sp->dur_s <= c->end_s + slack;
  }
  for (size_t i = 0; ok && i < c->n_marks; i++)
    ok = c->marks_s[i] >= 0 && c->marks_s[i] <= c->end_s;
  return ok;
}

/** A round tick step near a fifth of 'span': 1, 2 or 5 times a power of ten. */
static double tick_step(double span) {
  double raw = span / 5, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void chart_axis(canvas *cv, const chart_geom *g, double y, double end_s) {
  line(cv, "axis", g->x0, y, g->x0 + g->width, y, false);
  double step = tick_step(end_s);
  for (int k = 0; k * step <= end_s * (1 + 1e-9); k++) {
    double x = g->x0 + k * step * g->per_s;
    char label[32];
    scale_format(label, sizeof label, k * step, "s", SCALE_FMT_TIME);
    line(cv, "tick", x, y, x, y + 4, false);
    /* the first label starts at its tick, one that would leave the canvas ends there */
    bool last = x + (double)glyphs(label) * 0.6 * 10 / 2 > cv->w - 2;
    text(cv, x, y + 15, 10, k == 0 ? "start" : last ? "end" : "middle", k == 0 ? "0" : label);
  }
}

/** The legend: a swatch and the name of each style a span uses, in lines that wrap; returns
 * the y below it. */
static double chart_legend(canvas *cv, const scale_diagram_chart *c, double y, bool draw) {
  bool used[CHART_STYLES_MAX] = {false};
  for (size_t i = 0; i < c->n_spans; i++)
    used[c->spans[i].style] = true;
  double x = 12;
  for (int k = 0; k < c->n_styles; k++) {
    if (!used[k]) continue;
    double w = 18 + (double)glyphs(c->styles[k].name) * 0.6 * 11 + 16;
    if (x + w > cv->w - 8 && x > 12) x = 12, y += 18;
    if (draw) {
      rect(cv, "key", x, y - 10, 12, 12, c->styles[k].fill ? c->styles[k].fill : "url(#hatch)",
           "#777777");
      text(cv, x + 18, y, 11, "start", c->styles[k].name);
    }
    x += w;
  }
  return y + 18;
}

static void chart_span(canvas *cv, const chart_geom *g, const scale_diagram_chart *c,
                       const scale_diagram_span *sp) {
  const scale_diagram_style *st = &c->styles[sp->style];
  double x = g->x0 + sp->start_s * g->per_s, y = g->y0 + sp->row * g->row;
  double w = sp->dur_s * g->per_s;
  put(cv,
      "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"%s "
      "data-row=\"%d\" data-start-s=\"%.17g\" data-dur-s=\"%.17g\"/>\n",
      st->cls, x, y, w, g->bar, st->fill ? st->fill : "url(#hatch)",
      st->fill ? " stroke=\"#ffffff\"" : "", sp->row, sp->start_s, sp->dur_s);
  if (sp->label[0] && (double)glyphs(sp->label) * 0.6 * 10 < w - 2)
    text_in(cv, x + w / 2, y + g->bar / 2 + 3.5, 10, "middle", sp->label, st->label_fill);
}

scale_status scale_diagram_timeline(const scale_diagram_chart *c, char *buf, size_t size,
                                    size_t *len, scale_diag *diag) {
  if (!c || (!buf && size) || !chart_ok(c))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a timeline needs 1 to %d rows, 1 to %d styles, at most %d spans each "
                          "within its row, style and 0 .. end_s > 0, and at most %d marks",
                          CHART_ROWS_MAX, CHART_STYLES_MAX, CHART_SPANS_MAX, CHART_MARKS_MAX);
  size_t widest = 4;
  for (int r = 0; r < c->n_rows; r++)
    widest = glyphs(c->rows[r]) > widest ? glyphs(c->rows[r]) : widest;
  chart_geom g = {20 + (double)widest * 0.6 * 11, 50, 0, 24, 18, 0};
  g.width = 620 - g.x0;
  g.per_s = g.width / c->end_s;
  double below = g.y0 + c->n_rows * g.row + (c->axis ? 30 : 6);
  canvas cv;
  cv.w = 640; /* the legend's wrapping needs the width before begin() */
  double legend_end = chart_legend(&cv, c, below + 12, false);
  double h = legend_end + (c->foot ? 20 : 0) + 4;
  begin(&cv, buf, size, diag, 640, h, c->title, c->desc);
  for (int r = 0; r < c->n_rows; r++)
    text(&cv, 12, g.y0 + r * g.row + g.bar / 2 + 4, 11, "start", c->rows[r]);
  for (size_t i = 0; i < c->n_spans; i++)
    chart_span(&cv, &g, c, &c->spans[i]);
  for (size_t i = 0; i < c->n_marks; i++) {
    double x = g.x0 + c->marks_s[i] * g.per_s;
    put(&cv,
        "<line class=\"mark\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#555555\" "
        "stroke-width=\"0.5\" stroke-opacity=\"0.6\"/>\n",
        x, g.y0 - 4, x, g.y0 + c->n_rows * g.row - (g.row - g.bar) + 4);
  }
  if (c->axis) chart_axis(&cv, &g, g.y0 + c->n_rows * g.row, c->end_s);
  chart_legend(&cv, c, below + 12, true);
  if (c->foot) text(&cv, 12, h - 10, 12, "start", c->foot);
  return finish(&cv, len);
}

/* ==== a pipeline schedule's Gantt chart ==================================================== */

/* Styles: forward then backward passes of chunks 0-3 (paler: a later chunk), then idle. */
static const scale_diagram_style GANTT_STYLE[9] = {
    {"forward", "#4e79a7", "pass", "#ffffff"},
    {"forward, chunk 2", "#a0cbe8", "pass", NULL},
    {"forward, chunk 3", "#2b5b84", "pass", "#ffffff"},
    {"forward, chunk 4", "#7fa6c9", "pass", NULL},
    {"backward", "#f28e2b", "pass", NULL},
    {"backward, chunk 2", "#ffbe7d", "pass", NULL},
    {"backward, chunk 3", "#b5651d", "pass", "#ffffff"},
    {"backward, chunk 4", "#f6aa5c", "pass", NULL},
    {"idle", NULL, "idle", NULL}};

/** The spans of the hatched idle gaps of one stage (before its first pass, between passes,
 * after its last), appended to sp[*n]. */
static void gantt_idle(int stage, const scale_pp_pass *passes, size_t n, double makespan,
                       scale_diagram_span *sp, size_t *k) {
  double t = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && passes[i].stage != stage) continue;
    double start = i < n ? passes[i].start_s : makespan;
    if (start > t + 1e-12 * makespan)
      sp[(*k)++] = (scale_diagram_span){stage, 8, t, start - t, ""};
    if (i < n) t = passes[i].start_s + passes[i].dur_s;
  }
}

scale_status scale_diagram_gantt(const char *title, int p, const scale_pp_pass *passes,
                                 const scale_timeline *tl, char *buf, size_t size, size_t *len,
                                 scale_diag *diag) {
  if (!passes || !tl || (!buf && size) || p < 1 || p > 32 || !(tl->makespan_s > 0) ||
      tl->n_passes == 0 || tl->n_passes > 2048)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a Gantt chart needs a played timeline of 1 to 32 stages and at most "
                          "2048 passes");
  for (size_t i = 0; i < tl->n_passes; i++)
    if (passes[i].stage < 0 || passes[i].stage >= p)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "pass %zu lies on no stage", i);
  /* every pass, and at most one gap before each pass and one after each stage's last */
  scale_diagram_span *spans = malloc((2 * tl->n_passes + (size_t)p) * sizeof *spans);
  if (!spans) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "a Gantt chart: out of memory");
  char rows[32][24];
  const char *row_names[32];
  size_t k = 0;
  for (int s = 0; s < p; s++) {
    snprintf(rows[s], sizeof rows[s], "stage %d", s);
    row_names[s] = rows[s];
    gantt_idle(s, passes, tl->n_passes, tl->makespan_s, spans, &k);
  }
  for (size_t i = 0; i < tl->n_passes; i++) {
    const scale_pp_pass *x = &passes[i];
    spans[k] = (scale_diagram_span){x->stage, (x->kind == SCALE_PP_FORWARD ? 0 : 4) + x->chunk % 4,
                                    x->start_s, x->dur_s, ""};
    snprintf(spans[k++].label, sizeof spans[0].label, "%d", x->micro + 1);
  }
  char name[120], foot[256], desc[1024], pct[32];
  snprintf(name, sizeof name, "%s", title && title[0] ? title : "A pipeline schedule");
  scale_format(pct, sizeof pct, tl->bubble_frac, "", SCALE_FMT_PERCENT);
  snprintf(foot, sizeof foot, "idle (hatched) = %s of the busy time; in flight on stage 0: %g", pct,
           tl->peak_in_flight);
  snprintf(desc, sizeof desc,
           "%s: one row per stage, time to the right; blue bars are forward "
           "passes, orange backward, numbered by microbatch (paler: a later chunk). %s.",
           name, foot);
  scale_diagram_chart c = {name, desc, foot, row_names, p, GANTT_STYLE, 9, spans, k, NULL, 0,
                           tl->makespan_s, false};
  scale_status st = scale_diagram_timeline(&c, buf, size, len, diag);
  free(spans);
  return st;
}

/* ==== a continuous-batching timeline from the serving simulator's trace ==================== */

#define SERVING_ROWS_MAX 24

enum { SV_QUEUED, SV_IDLE, SV_PREFILL, SV_RECOMPUTE, SV_DECODE, SV_EVICTED, SV_STYLES };
static const scale_diagram_style SERVING_STYLE[SV_STYLES] = {
    {"queued", NULL, "queued", NULL},
    {"admitted, idle", "#d9d9d9", "idle", NULL},
    {"prefill chunk", "#4e79a7", "prefill", "#ffffff"},
    {"recompute", "#b07aa1", "recompute", "#ffffff"},
    {"decode step", "#f28e2b", "decode", NULL},
    {"preempted, waiting", "#f4b6b0", "evicted", NULL}};

/** The style of what an event did (not a preemption). */
static int serving_style(scale_serve_trace_kind kind) {
  return kind == SCALE_SERVE_TRACE_PREFILL     ? SV_PREFILL
         : kind == SCALE_SERVE_TRACE_RECOMPUTE ? SV_RECOMPUTE
         : kind == SCALE_SERVE_TRACE_DECODE    ? SV_DECODE
                                               : SV_IDLE;
}

/** The spans of the first 'rows' requests, step by step: a wait (queued, or after a
 * preemption) closes at the request's next step, each step is one span. Returns the count. */
static size_t serving_spans(const scale_serve_trace *tr, int rows, scale_diagram_span *sp) {
  double wait_from[SERVING_ROWS_MAX];
  bool evicted[SERVING_ROWS_MAX] = {false};
  for (int r = 0; r < rows; r++)
    wait_from[r] = tr->requests[r].arrival_s;
  size_t k = 0;
  for (size_t s = 0; s < tr->n_steps; s++) {
    const scale_serve_trace_step *st = &tr->steps[s];
    for (uint32_t e = st->first_event; e < st->first_event + st->n_events; e++) {
      const scale_serve_trace_event *ev = &tr->events[e];
      int r = (int)ev->request;
      if (r >= rows) continue;
      if (ev->kind == SCALE_SERVE_TRACE_PREEMPTED) {
        wait_from[r] = st->start_s;
        evicted[r] = true;
        continue;
      }
      if (!isnan(wait_from[r]) && st->start_s > wait_from[r])
        sp[k++] = (scale_diagram_span){r, evicted[r] ? SV_EVICTED : SV_QUEUED, wait_from[r],
                                       st->start_s - wait_from[r], ""};
      wait_from[r] = NAN;
      sp[k] = (scale_diagram_span){r, serving_style(ev->kind), st->start_s, st->dur_s, ""};
      if (ev->kind == SCALE_SERVE_TRACE_PREFILL || ev->kind == SCALE_SERVE_TRACE_RECOMPUTE)
        snprintf(sp[k].label, sizeof sp[k].label, "%u", ev->tokens);
      k++;
    }
  }
  return k;
}

/** The alternative text: what the chart shows, then each request's numbers. */
static void serving_desc(const scale_serve_trace *tr, int rows, const char *title, char *out,
                         size_t n) {
  size_t k = (size_t)snprintf(out, n,
                              "%s. One row per request, time to the right from the first "
                              "arrival, thin lines the step boundaries: hatched while queued, "
                              "blue the prefill chunks (their tokens), orange the decode steps, "
                              "grey admitted but idle, purple recomputed after a preemption.",
                              title);
  for (int r = 0; r < rows && k < n; r++) {
    const scale_serve_trace_request *q = &tr->requests[r];
    char a[32], f[32], d[32];
    scale_format(a, sizeof a, q->arrival_s, "s", SCALE_FMT_TIME);
    scale_format(f, sizeof f, q->first_token_s - q->arrival_s, "s", SCALE_FMT_TIME);
    scale_format(d, sizeof d, q->finish_s - q->arrival_s, "s", SCALE_FMT_TIME);
    k += (size_t)snprintf(out + k, n - k,
                          " Request %d (%u + %u tokens): arrives at %s, TTFT %s, done after %s.",
                          r + 1, q->isl, q->osl, a, f, d);
  }
}

scale_status scale_diagram_serving(const char *title, const scale_serve_trace *tr, char *buf,
                                   size_t size, size_t *len, scale_diag *diag) {
  bool ok = tr && (buf || !size) && !tr->truncated && tr->n_requests >= 1 && tr->n_steps >= 1 &&
            tr->n_steps <= CHART_MARKS_MAX - 1;
  int rows = ok ? (int)(tr->n_requests < SERVING_ROWS_MAX ? tr->n_requests : SERVING_ROWS_MAX) : 0;
  double end = 0, last = ok ? tr->steps[tr->n_steps - 1].start_s + tr->steps[tr->n_steps - 1].dur_s
                            : 0;
  for (int r = 0; ok && r < rows; r++) {
    end = fmax(end, tr->requests[r].finish_s);
    ok = tr->requests[r].finish_s <= last * (1 + 1e-12);
  }
  if (!ok)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a serving timeline needs a whole trace (not truncated) of 1 to %d "
                          "steps whose requests all finish in it",
                          CHART_MARKS_MAX - 1);
  scale_diagram_span *spans = malloc((tr->n_events + (size_t)rows) * sizeof *spans);
  double *marks = malloc((tr->n_steps + 1) * sizeof *marks);
  if (!spans || !marks) {
    free(spans), free(marks);
    return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "a serving timeline: out of memory");
  }
  size_t n_spans = serving_spans(tr, rows, spans), n_marks = 0;
  for (size_t s = 0; s < tr->n_steps && tr->steps[s].start_s < end; s++)
    marks[n_marks++] = tr->steps[s].start_s;
  if (n_marks) marks[n_marks++] = end; /* the last drawn step's end */
  char rowname[SERVING_ROWS_MAX][24], name[160], foot[160], desc[4096], span_s[32];
  const char *row_names[SERVING_ROWS_MAX];
  for (int r = 0; r < rows; r++) {
    snprintf(rowname[r], sizeof rowname[r], "request %d", r + 1);
    row_names[r] = rowname[r];
  }
  if (title && title[0])
    snprintf(name, sizeof name, "%s", title);
  else
    snprintf(name, sizeof name, "Continuous batching: %d requests, step by step", rows);
  scale_format(span_s, sizeof span_s, end, "s", SCALE_FMT_TIME);
  snprintf(foot, sizeof foot, "%zu steps in %s (thin lines: the step boundaries)", n_marks - 1,
           span_s);
  serving_desc(tr, rows, name, desc, sizeof desc);
  scale_diagram_chart c = {name,  desc,    foot,  row_names, rows, SERVING_STYLE, SV_STYLES,
                           spans, n_spans, marks, n_marks,   end,  true};
  scale_status st = scale_diagram_timeline(&c, buf, size, len, diag);
  free(spans), free(marks);
  return st;
}

/* ==== a transformer block with its shapes ================================================== */

typedef struct {
  const char *name;
  char detail[160];
  double flops; /* forward FLOPs per token; < 0 for a box that does no matmul work worth a line */
} block_box;

/** The boxes of one layer, top to bottom, with the library's forward FLOPs per token. */
static int transformer_boxes(const scale_model *m, double t, block_box *b) {
  double D = (double)m->d_model, NH = (double)(m->n_heads * m->d_head);
  double KH = (double)(m->n_kv_heads * m->d_head);
  double qkvo = scale_transformer_qkvo_flops(m, 1, SCALE_PASS_FORWARD);
  double attn = scale_transformer_attention_flops(m, 1, t, t, true, SCALE_PASS_FORWARD) / t;
  double out = m->kv_lora_rank ? 0 : scale_transformer_matmul_flops(1, NH, D);
  int n = 0;
  b[n++] = (block_box){"input", "", -1};
  snprintf(b[0].detail, sizeof b[0].detail, "x [B, T, D] = [B, T, %.0f]", D);
  b[n++] = (block_box){"RMSNorm", "", -1};
  b[n] =
      (block_box){m->kv_lora_rank ? "Q, K, V, O (latent)" : "Q, K, V projections", "", qkvo - out};
  if (m->kv_lora_rank)
    snprintf(b[n].detail, sizeof b[n].detail, "MLA: KV latent of %lld, queries of rank %lld",
             (long long)m->kv_lora_rank, (long long)m->q_lora_rank);
  else
    snprintf(b[n].detail, sizeof b[n].detail, "W_Q [%.0f, %.0f], W_K and W_V [%.0f, %.0f]", D, NH,
             D, KH);
  n++;
  b[n] = (block_box){"attention", "", attn};
  snprintf(b[n++].detail, sizeof b[0].detail, "softmax(Q K^T) V: %lld heads, %lld KV, T = %.0f",
           (long long)m->n_heads, (long long)m->n_kv_heads, t);
  if (!m->kv_lora_rank) {
    b[n] = (block_box){"output projection", "", out};
    snprintf(b[n++].detail, sizeof b[0].detail, "W_O [%.0f, %.0f]", NH, D);
  }
  b[n++] = (block_box){"+ residual, RMSNorm", "", -1};
  if (m->n_experts) {
    b[n] = (block_box){"mixture of experts", "",
                       scale_transformer_moe_flops(m, 1, SCALE_PASS_FORWARD)};
    snprintf(b[n++].detail, sizeof b[0].detail,
             "%lld of %lld experts (+%lld shared), each [%.0f, %lld]",
             (long long)m->n_experts_active, (long long)m->n_experts,
             (long long)m->n_shared_experts, D, (long long)m->d_ff_expert);
  } else {
    b[n] = (block_box){m->gated_mlp ? "gated MLP" : "MLP", "",
                       scale_transformer_mlp_flops(m, 1, SCALE_PASS_FORWARD)};
    snprintf(b[n++].detail, sizeof b[0].detail, "%s [%.0f, %lld], W_out [%lld, %.0f]",
             m->gated_mlp ? "W_in1, W_in2" : "W_in", D, (long long)m->d_ff, (long long)m->d_ff, D);
  }
  b[n++] = (block_box){"+ residual", "", -1};
  return n;
}

scale_status scale_diagram_transformer_block(const scale_model *model, double context, char *buf,
                                             size_t size, size_t *len, scale_diag *diag) {
  if (!model || (!buf && size) || model->arch != SCALE_ARCH_TRANSFORMER || !(context >= 1) ||
      !isfinite(context))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a transformer-block diagram needs a transformer and a context >= 1");
  block_box b[10];
  int n = transformer_boxes(model, context, b);
  double total = 0, pitch = 50, top = 62, h = top + n * pitch + 40;
  for (int i = 0; i < n; i++)
    total += b[i].flops > 0 ? b[i].flops : 0;
  char title[200], foot[200], desc[1024], num[32];
  snprintf(title, sizeof title, "One layer of %s", model->display_name);
  scale_format(num, sizeof num, total, "FLOP", SCALE_FMT_SCI);
  snprintf(foot, sizeof foot, "forward, per token: %s a layer", num);
  snprintf(desc, sizeof desc,
           "%s, top to bottom: each box an operation with its weight shapes, "
           "and on the right the forward FLOPs per token it costs at a context of %.0f. %s.",
           title, context, foot);
  canvas cv;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  text(&cv, 628, 44, 11, "end", "forward FLOP/token");
  for (int i = 0; i < n; i++) {
    double y = top + i * pitch;
    put(&cv,
        "<rect class=\"op\" x=\"20\" y=\"%.2f\" width=\"470\" height=\"38\" "
        "fill=\"%s\" stroke=\"#4e79a7\" data-flops=\"%.17g\"/>\n",
        y, b[i].flops > 0 ? "#dce6f2" : "#f4f4f4", b[i].flops > 0 ? b[i].flops : 0);
    text(&cv, 30, y + 16, 12, "start", b[i].name);
    if (b[i].detail[0]) text(&cv, 30, y + 32, 10, "start", b[i].detail);
    if (b[i].flops > 0) {
      scale_format(num, sizeof num, b[i].flops, "", SCALE_FMT_SCI);
      text(&cv, 628, y + 24, 12, "end", num);
    }
    if (i + 1 < n)
      put(&cv,
          "<line x1=\"255\" y1=\"%.2f\" x2=\"255\" y2=\"%.2f\" stroke=\"#555555\" "
          "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
          y + 38, y + pitch);
  }
  text(&cv, 20, h - 14, 12, "start", foot);
  return finish(&cv, len);
}

/* ==== a GPU fat tree ======================================================================= */

/* What the members of level i are called, and its switches (innermost first; ch. 12). */
static const char *const MEMBER[SCALE_NET_LEVELS_MAX + 1] = {"GPU", "node", "unit", "group", "pod"};
static const char *const SWITCH[SCALE_NET_LEVELS_MAX] = {"NVSwitch", "leaf switches",
                                                         "spine switches", "core switches"};

/** One level as a band: its switches as a bar, up to four of its members below, the first
 * of which the next band opens. */
static void draw_level(canvas *cv, const scale_chip *chip, int level, double y) {
  const scale_net_level *lv = &chip->net_levels[level];
  char bw[32], bar[160];
  scale_format(bw, sizeof bw, lv->member_bytes_per_s, "B/s", SCALE_FMT_SI);
  snprintf(bar, sizeof bar, "%s: %.0f %ss, %s each one way", SWITCH[level], lv->fanout,
           MEMBER[level], bw);
  rect(cv, "switch", 20, y, 600, 22, "#dce6f2", "#4e79a7");
  text(cv, 320, y + 15, 11, "middle", bar);
  int shown = lv->fanout < 4 ? (int)lv->fanout : 4;
  for (int k = 0; k < shown; k++) {
    double x = 40 + k * 135;
    line(cv, "uplink", x + 50, y + 22, x + 50, y + 40, false);
    rect(cv, "member", x, y + 40, 100, 22, k == 0 ? "#fdf0e1" : "#ffffff", "#f28e2b");
    char name[32];
    snprintf(name, sizeof name, "%s %d", MEMBER[level], k + 1);
    text(cv, x + 50, y + 55, 11, "middle", name);
  }
  if (lv->fanout > shown) {
    char more[48];
    snprintf(more, sizeof more, "... %.0f in all", lv->fanout);
    text(cv, 580, y + 55, 11, "middle", more);
  }
  if (level > 0) line(cv, "opens", 90, y + 62, 90, y + 84, true);
}

scale_status scale_diagram_fat_tree(const scale_chip *chip, char *buf, size_t size, size_t *len,
                                    scale_diag *diag) {
  bool ok = chip && (buf || !size) && chip->kind == SCALE_HW_GPU && chip->n_net_levels >= 1 &&
            chip->n_net_levels <= SCALE_NET_LEVELS_MAX;
  for (int i = 0; ok && i < chip->n_net_levels; i++)
    ok = chip->net_levels[i].fanout >= 2 && isfinite(chip->net_levels[i].member_bytes_per_s);
  double total = ok ? scale_gpu_level_gpus(chip, chip->n_net_levels) : (double)NAN;
  if (!ok)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a fat-tree diagram needs a GPU with its network levels");
  int n = chip->n_net_levels;
  double band = 84, h = 50 + n * band + 40;
  char title[200], foot[256], desc[1024];
  snprintf(title, sizeof title, "The fat tree of %s", chip->display_name);
  int k = snprintf(foot, sizeof foot, "%.0f GPUs:", total);
  for (int i = 0; i < n && k > 0 && (size_t)k < sizeof foot; i++)
    k += snprintf(foot + k, sizeof foot - (size_t)k, "%s %.0f %ss", i ? " x" : "",
                  chip->net_levels[i].fanout, MEMBER[i]);
  snprintf(desc, sizeof desc,
           "%s: each band is one level of the fat tree, its switches above "
           "and up to four of its members below; the first member opens into the band below, "
           "down to the GPUs of one node joined by NVLink. %s.",
           title, foot);
  canvas cv;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  for (int i = n - 1; i >= 0; i--)
    draw_level(&cv, chip, i, 40 + (n - 1 - i) * band);
  text(&cv, 20, h - 14, 12, "start", foot);
  return finish(&cv, len);
}

/* ==== the four cases of a sharded matmul =================================================== */

static const char *const CASE_TEXT[5] = {
    "", "case 1: no contracting dimension is sharded, multiply locally",
    "case 2: one operand's contracting dimension is sharded",
    "case 3: both contracting dimensions are sharded alike: partial sums",
    "case 4: both operands shard a free dimension on one axis"};

/** The collectives of a plan, one line each ("AllGather A over X first"). */
static void step_line(const scale_mesh *mesh, const scale_sharded_step *st, char *out, size_t n) {
  static const char *const operand[3] = {"A", "B", "the partial C"};
  char axes[SCALE_MESH_AXES_MAX + 1] = {0};
  for (int a = 0, k = 0; a < mesh->n_axes; a++)
    if (st->axes_mask & (1u << a)) axes[k++] = mesh->name[a];
  snprintf(out, n, "%s %s over %s%s", scale_collective_name(st->op),
           operand[st->operand < 3 ? st->operand : 2], axes,
           st->operand == 2 ? " after the multiply" : " first");
}

scale_status scale_diagram_sharded_matmul(const scale_mesh *mesh, const scale_sharding *a,
                                          const scale_sharding *b, char *buf, size_t size,
                                          size_t *len, scale_diag *diag) {
  placement pa, pb;
  double ones[2] = {1024, 1024};
  scale_sharded_matmul plan;
  if (!mesh || !a || !b || (!buf && size) || !place(mesh, a, &pa) || !place(mesh, b, &pb) ||
      scale_sharding_matmul_plan(mesh, a, ones, b, ones, SCALE_DTYPE_BF16, NULL, SCALE_WRAP_AUTO,
                                 &plan, NULL) != SCALE_OK)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a sharded-matmul diagram needs two 2-D operands sharing one dimension "
                          "on a mesh of one or two axes and at most %d devices",
                          DEVICES_MAX);
  char na[96], nb[96], mtext[96], title[320], desc[1400], lines[SCALE_SHARDED_STEPS_MAX][160];
  sharding_text(a, mesh, na, sizeof na);
  sharding_text(b, mesh, nb, sizeof nb);
  mesh_text(mesh, mtext, sizeof mtext);
  snprintf(title, sizeof title, "%s . %s on %s", na, nb, mtext);
  int k = snprintf(desc, sizeof desc,
                   "%s: the two operands, each block in the colour of the "
                   "device holding it, or with a swatch per copy. %s.",
                   title, CASE_TEXT[plan.kind]);
  for (int i = 0; i < plan.n_steps; i++) {
    step_line(mesh, &plan.step[i], lines[i], sizeof lines[i]);
    if (k > 0 && (size_t)k < sizeof desc)
      k += snprintf(desc + k, sizeof desc - (size_t)k, " Step %d: %s.", i + 1, lines[i]);
  }
  canvas cv;
  double h = 330;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  draw_blocks(&cv, a, &pa, 40, 64, 170, na);
  text(&cv, 290, 154, 20, "middle", "x");
  draw_blocks(&cv, b, &pb, 370, 64, 170, nb);
  text(&cv, 20, 262, 12, "start", CASE_TEXT[plan.kind]);
  for (int i = 0; i < plan.n_steps; i++) {
    char line_text[400];
    snprintf(line_text, sizeof line_text, "%d. %s", i + 1, lines[i]);
    text(&cv, 36, 282 + 18 * i, 12, "start", line_text);
  }
  if (plan.n_steps == 0) text(&cv, 36, 282, 12, "start", "no communication");
  return finish(&cv, len);
}

/* ==== ZeRO's stages as memory bars ========================================================= */

static const char *const ZERO_PART[3] = {"weights", "gradients", "optimizer state"};
static const char *const ZERO_COLOUR[3] = {"#4e79a7", "#f28e2b", "#59a14f"};

static const char *zero_name(int stage, char *buf, size_t n) {
  snprintf(buf, n, stage ? "ZeRO-%d" : "plain DP", stage);
  return buf;
}

scale_status scale_diagram_zero_stages(const scale_precision *prec, double n_params,
                                       double n_shards, char *buf, size_t size, size_t *len,
                                       scale_diag *diag) {
  double part[4][3], total[4];
  bool ok = prec && (buf || !size) && n_params > 0 && isfinite(n_params) && n_shards >= 1 &&
            isfinite(n_shards);
  for (int st = 0; ok && st < 4; st++)
    ok = isfinite(total[st] =
                      scale_train_zero_bytes_per_chip(prec, n_params, st, n_shards, part[st])) &&
         total[st] > 0;
  if (!ok)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a ZeRO diagram needs a precision, parameters > 0 and shards >= 1");
  char title[160], desc[1024], num[4][32], params[32], name[24];
  scale_format(params, sizeof params, n_params, "", SCALE_FMT_SCI);
  snprintf(title, sizeof title, "Memory per chip: %s parameters over %g chips", params, n_shards);
  int k = snprintf(desc, sizeof desc,
                   "%s. One bar per ZeRO stage, stacked weights, gradients "
                   "and optimizer state:",
                   title);
  for (int st = 0; st < 4; st++) {
    scale_format(num[st], sizeof num[st], total[st], "B", SCALE_FMT_SI);
    if (k > 0 && (size_t)k < sizeof desc)
      k += snprintf(desc + k, sizeof desc - (size_t)k, " %s %s%s", zero_name(st, name, sizeof name),
                    num[st], st < 3 ? ";" : ".");
  }
  canvas cv;
  double h = 400, base = 330, top = 60, W = 110;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  for (int st = 0; st < 4; st++) {
    double x = 60 + st * 145, y = base;
    for (int p = 0; p < 3; p++) {
      double ph = part[st][p] / total[0] * (base - top);
      y -= ph;
      put(&cv,
          "<rect class=\"zero\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
          "fill=\"%s\" data-bytes=\"%.17g\"/>\n",
          x, y, W, ph, ZERO_COLOUR[p], part[st][p]);
    }
    text(&cv, x + W / 2, y - 6, 12, "middle", num[st]);
    text(&cv, x + W / 2, base + 18, 12, "middle", zero_name(st, name, sizeof name));
  }
  for (int p = 0; p < 3; p++) {
    rect(&cv, "key", 60 + p * 170, h - 30, 12, 12, ZERO_COLOUR[p], NULL);
    text(&cv, 78 + p * 170, h - 20, 12, "start", ZERO_PART[p]);
  }
  return finish(&cv, len);
}

/* ==== a paged KV cache against a padded one ================================================ */

#define PAGED_REQUESTS_MAX 8

/** One request's row: its tokens as slots of 'per_token' px, in blocks (paged) or padded to
 * the context limit; the empty part hatched. */
static void kv_row(canvas *cv, double y, double tokens, double limit, double block, double px,
                   bool paged) {
  double x0 = 130, reserved = paged ? scale_serve_kv_blocks(tokens, block) * block : limit;
  rect(cv, "used", x0, y, tokens * px, 16, paged ? "#4e79a7" : "#9c755f", NULL);
  rect(cv, "empty", x0 + tokens * px, y, (reserved - tokens) * px, 16, "url(#hatch)", NULL);
  for (double b = 0; paged && b < reserved; b += block)
    rect(cv, "page", x0 + b * px, y, block * px, 16, "none", "#333333");
  if (!paged) rect(cv, "slab", x0, y, limit * px, 16, "none", "#333333");
}

scale_status scale_diagram_paged_kv(const double *tokens, int n, double block_tokens,
                                    double limit_tokens, double kv_bytes_per_token, char *buf,
                                    size_t size, size_t *len, scale_diag *diag) {
  bool ok = tokens && (buf || !size) && n >= 1 && n <= PAGED_REQUESTS_MAX && block_tokens >= 1 &&
            block_tokens == floor(block_tokens) && limit_tokens >= block_tokens &&
            limit_tokens <= 4096 && kv_bytes_per_token > 0 && isfinite(kv_bytes_per_token);
  double used = 0, blocks = 0;
  for (int i = 0; ok && i < n; i++) {
    ok = tokens[i] >= 1 && tokens[i] <= limit_tokens && tokens[i] == floor(tokens[i]);
    used += tokens[i];
    blocks += scale_serve_kv_blocks(tokens[i], block_tokens);
  }
  if (!ok)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "a paged-KV diagram needs 1 to %d requests of whole tokens within a "
                          "context limit of at most 4096, whole blocks and bytes per token > 0",
                          PAGED_REQUESTS_MAX);
  double px = 480 / limit_tokens, row = 22, top = 66, half = n * row + 30;
  double h = top + 2 * half + 40;
  char title[160], foot[300], desc[1024], padded_b[32], paged_b[32], pct[32];
  scale_format(padded_b, sizeof padded_b, n * limit_tokens * kv_bytes_per_token, "B", SCALE_FMT_SI);
  scale_format(paged_b, sizeof paged_b, blocks * block_tokens * kv_bytes_per_token, "B",
               SCALE_FMT_SI);
  scale_format(pct, sizeof pct, blocks * block_tokens / (n * limit_tokens), "", SCALE_FMT_PERCENT);
  snprintf(title, sizeof title, "%d requests' KV caches: padded, then paged in blocks of %g", n,
           block_tokens);
  snprintf(foot, sizeof foot, "padded: %s; paged: %g blocks, %s (%s of padded)", padded_b, blocks,
           paged_b, pct);
  snprintf(desc, sizeof desc,
           "%s. Each row is one request, its tokens filled and the slots "
           "reserved but empty hatched; the first panel reserves the context limit of %g for "
           "every request, the second only whole blocks; %g tokens in all. %s.",
           title, limit_tokens, used, foot);
  canvas cv;
  begin(&cv, buf, size, diag, 640, h, title, desc);
  for (int panel = 0; panel < 2; panel++) {
    double y0 = top + panel * half;
    char head[80];
    snprintf(head, sizeof head, panel ? "paged in blocks of %g tokens" : "padded to %g tokens",
             panel ? block_tokens : limit_tokens);
    text(&cv, 20, y0 - 8, 12, "start", head);
    for (int i = 0; i < n; i++) {
      char label[32];
      snprintf(label, sizeof label, "%g tokens", tokens[i]);
      text(&cv, 20, y0 + i * row + 13, 11, "start", label);
      kv_row(&cv, y0 + i * row, tokens[i], limit_tokens, block_tokens, px, panel == 1);
    }
  }
  text(&cv, 20, h - 14, 12, "start", foot);
  return finish(&cv, len);
}
