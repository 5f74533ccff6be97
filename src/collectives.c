/* collectives.c — collectives and point-to-point transfers on groups of chips (collectives.h).
 */
#include "scale/collectives.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

/* ==== names ================================================================================= */

static const char *const op_names[SCALE_COLL_COUNT] = {
    [SCALE_COLL_ALL_GATHER] = "all-gather",
    [SCALE_COLL_REDUCE_SCATTER] = "reduce-scatter",
    [SCALE_COLL_ALL_REDUCE] = "all-reduce",
    [SCALE_COLL_ALL_TO_ALL] = "all-to-all",
};

const char *scale_collective_name(scale_collective op) {
  if ((int)op < 0 || op >= SCALE_COLL_COUNT) return "?";
  return op_names[op];
}

/* Lowercase copy of 'text' without '-', '_' and spaces; false if it does not fit. */
static bool squash(const char *text, char *out, size_t size) {
  size_t n = 0;
  for (; *text; text++) {
    if (*text == '-' || *text == '_' || *text == ' ') continue;
    if (n + 1 >= size) return false;
    out[n++] = (char)tolower((unsigned char)*text);
  }
  out[n] = '\0';
  return true;
}

scale_status scale_collective_parse(const char *text, scale_collective *out) {
  char want[32], have[32];
  if (text == NULL || !squash(text, want, sizeof want)) return SCALE_ERR_INVALID;
  for (int i = 0; i < SCALE_COLL_COUNT; i++) {
    squash(op_names[i], have, sizeof have);
    if (strcmp(want, have) == 0) {
      *out = (scale_collective)i;
      return SCALE_OK;
    }
  }
  return SCALE_ERR_INVALID;
}

/* ==== groups ================================================================================ */

static bool is_count(double x) { return x >= 1.0 && isfinite(x) && x == floor(x); }

static bool axis_ok(const scale_group_axis *ax) {
  if (!is_count(ax->size)) return false;
  if (ax->topology != SCALE_TOPO_RING && ax->topology != SCALE_TOPO_SWITCH) return false;
  if (!(ax->hop_latency_s >= 0.0) || !isfinite(ax->hop_latency_s)) return false;
  if (ax->size > 1.0 && !(ax->link_bytes_per_s > 0.0 && isfinite(ax->link_bytes_per_s)))
    return false;
  return true;
}

static bool group_ok(const scale_group *g) {
  if (g == NULL || g->n_axes < 1 || g->n_axes > SCALE_GROUP_AXES_MAX) return false;
  for (int i = 0; i < g->n_axes; i++)
    if (!axis_ok(&g->axis[i])) return false;
  return true;
}

double scale_group_size(const scale_group *group) {
  if (!group_ok(group)) return (double)NAN;
  double n = 1.0;
  for (int i = 0; i < group->n_axes; i++)
    n *= group->axis[i].size;
  return n;
}

static void sort_desc(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

scale_status scale_group_from_chip(const scale_chip *chip, const double *sizes, int n_axes,
                                   scale_wrap wrap, scale_group *out, scale_diag *diag) {
  if (chip == NULL || sizes == NULL || out == NULL)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "no chip or group given");
  if (n_axes < 1 || n_axes > SCALE_GROUP_AXES_MAX)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "a group has 1 to %d axes, not %d",
                          SCALE_GROUP_AXES_MAX, n_axes);
  for (int i = 0; i < n_axes; i++)
    if (!is_count(sizes[i]))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "group axis %d: size %g is not a whole number >= 1", i, sizes[i]);
  if (wrap != SCALE_WRAP_AUTO && wrap != SCALE_WRAP_YES && wrap != SCALE_WRAP_NO)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "invalid wraparound choice");

  scale_group g;
  memset(&g, 0, sizeof g);
  g.n_axes = n_axes;

  if (chip->kind == SCALE_HW_GPU) {
    /* One NVLink domain: a switch. Fat-tree levels beyond it belong to ch. 12's extension. */
    if (n_axes != 1)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "%s: a GPU group is one NVLink domain (one axis), not %d axes",
                            chip->name, n_axes);
    if (!(chip->nvlink_bytes_per_s > 0.0))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s has no NVLink bandwidth",
                            chip->name);
    if (chip->nvlink_domain_size > 0.0 && sizes[0] > chip->nvlink_domain_size)
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "group of %g GPUs is larger than the NVLink domain of %g", sizes[0],
                            chip->nvlink_domain_size);
    g.axis[0].size = sizes[0];
    g.axis[0].topology = SCALE_TOPO_SWITCH;
    g.axis[0].wraps = false;
    g.axis[0].link_bytes_per_s = chip->nvlink_bytes_per_s;
    /* a full mesh (AMD xGMI, Ascend HCCS): the group's n - 1 direct links at once, which a
     * switch of that egress prices the same (each member sends its 1/n share down each link) */
    if (scale_chip_scaleup_is_mesh(chip) && sizes[0] >= 2)
      g.axis[0].link_bytes_per_s = scale_chip_scaleup_bytes_per_s(chip, sizes[0]);
    /* hardware.h has no NVLink latency figure; 0 means "never latency-bound" here. */
    g.axis[0].hop_latency_s = 0.0;
    *out = g;
    return SCALE_OK;
  }

  if (!(chip->ici_link_bytes_per_s > 0.0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s has no ICI link bandwidth",
                          chip->name);
  if (!(chip->ici_hop_latency_s >= 0.0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s has no ICI hop latency", chip->name);
  if (chip->ici_n_axes >= 1.0 && n_axes > chip->ici_n_axes)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "%s has a %g-D torus: a group of %d axes does not fit", chip->name,
                          chip->ici_n_axes, n_axes);
  /* The group must fit in the pod: sorted sizes against the sorted pod shape. */
  double pod[3], want[3] = {1.0, 1.0, 1.0};
  bool pod_known = true;
  for (int i = 0; i < 3; i++) {
    pod[i] = chip->pod_shape[i];
    if (i == 2 && isnan(pod[i])) pod[i] = 1.0;
    if (!(pod[i] >= 1.0)) pod_known = false;
  }
  for (int i = 0; i < n_axes; i++)
    want[i] = sizes[i];
  if (pod_known) {
    sort_desc(pod, 3);
    sort_desc(want, 3);
    for (int i = 0; i < 3; i++)
      if (want[i] > pod[i])
        return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                              "group is larger than a %s pod (%g chips)", chip->name,
                              scale_chip_pod_chips(chip));
  }
  /* ch. 2: on a 3-D torus wraparounds come from the optical switches of full cubes, so a
   * group naming all three axes wraps only if every axis is a multiple of the cube
   * ("a 2x2x4 won't have any wraparounds"). */
  bool cubes = true;
  if (chip->ici_n_axes == 3.0 && n_axes == 3)
    for (int i = 0; i < n_axes; i++)
      if (!scale_chip_axis_wraps(chip, sizes[i])) cubes = false;
  for (int i = 0; i < n_axes; i++) {
    scale_group_axis *ax = &g.axis[i];
    ax->size = sizes[i];
    ax->topology = SCALE_TOPO_RING;
    ax->wraps = wrap == SCALE_WRAP_YES  ? true
                : wrap == SCALE_WRAP_NO ? false
                                        : cubes && scale_chip_axis_wraps(chip, sizes[i]);
    ax->link_bytes_per_s = chip->ici_link_bytes_per_s;
    ax->hop_latency_s = chip->ici_hop_latency_s;
  }
  *out = g;
  return SCALE_OK;
}

scale_status scale_group_parse_shape(const char *text, double sizes[SCALE_GROUP_AXES_MAX],
                                     int *n_axes, scale_diag *diag) {
  if (text == NULL || *text == '\0')
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "empty group shape");
  int n = 0;
  const char *p = text;
  for (;;) {
    if (!isdigit((unsigned char)*p))
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                            "group shape '%s': expected sizes like 4x4", text);
    double v = 0.0;
    while (isdigit((unsigned char)*p)) {
      v = v * 10.0 + (*p - '0');
      p++;
    }
    if (n == SCALE_GROUP_AXES_MAX)
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "group shape '%s': at most %d axes", text,
                            SCALE_GROUP_AXES_MAX);
    if (!(v >= 1.0) || !isfinite(v))
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "group shape '%s': every size must be at least 1", text);
    sizes[n++] = v;
    if (*p == '\0') break;
    if (*p != 'x' && *p != 'X' && *p != ',')
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                            "group shape '%s': expected sizes like 4x4", text);
    p++;
  }
  for (int i = n; i < SCALE_GROUP_AXES_MAX; i++)
    sizes[i] = 1.0;
  *n_axes = n;
  return SCALE_OK;
}

scale_status scale_group_from_shape(const scale_chip *chip, const char *shape, scale_wrap wrap,
                                    scale_group *out, scale_diag *diag) {
  double sizes[SCALE_GROUP_AXES_MAX];
  int n = 0;
  scale_diag d = {0};
  scale_status st = scale_group_parse_shape(shape, sizes, &n, &d);
  if (st == SCALE_OK) st = scale_group_from_chip(chip, sizes, n, wrap, out, &d);
  if (st == SCALE_OK) return SCALE_OK;
  return scale_diag_set(diag, st, "", 0, "group %s on %s: %s", shape ? shape : "(none)",
                        chip ? chip->name : "(no chip)", d.message);
}

scale_group scale_group_ring(double n, bool wraps, double link_bytes_per_s, double hop_latency_s) {
  scale_group g;
  memset(&g, 0, sizeof g);
  g.n_axes = 1;
  g.axis[0] = (scale_group_axis){.size = n, .topology = SCALE_TOPO_RING, .wraps = wraps,
                                 .link_bytes_per_s = link_bytes_per_s,
                                 .hop_latency_s = hop_latency_s};
  return g;
}

/* ==== collectives =========================================================================== */

/* Hops on the longest path of one axis. */
static double axis_hops(const scale_group_axis *ax) {
  double n = ax->size;
  if (n <= 1.0) return 0.0;
  if (ax->topology == SCALE_TOPO_SWITCH) return 1.0;
  return ax->wraps ? floor(n / 2.0) : n - 1.0;
}

/* Bandwidth into one device from axis 'ax' during an AllGather (worst-placed device). */
static double axis_in_bytes_per_s(const scale_group_axis *ax) {
  if (ax->size <= 1.0) return 0.0;
  if (ax->topology == SCALE_TOPO_RING && ax->wraps) return 2.0 * ax->link_bytes_per_s;
  return ax->link_bytes_per_s;
}

/* Fraction of an AllToAll array V_i (the data of one axis ring) crossing its busiest link. */
static double axis_all_to_all_frac(const scale_group_axis *ax) {
  double n = ax->size;
  if (n <= 1.0) return 0.0;
  if (ax->topology == SCALE_TOPO_SWITCH) return (n - 1.0) / (n * n);
  if (ax->wraps) {
    double even = fmod(n, 2.0) == 0.0;
    return (even ? n * n / 8.0 : (n * n - 1.0) / 8.0) / (n * n);
  }
  return floor(n * n / 4.0) / (n * n);
}

double scale_collective_ring_link_bytes(scale_collective op, double n, double bytes,
                                        bool bidirectional) {
  if (!is_count(n) || !(bytes >= 0.0) || !isfinite(bytes)) return (double)NAN;
  if ((int)op < 0 || op >= SCALE_COLL_COUNT) return (double)NAN;
  switch (op) {
  case SCALE_COLL_ALL_GATHER:
  case SCALE_COLL_REDUCE_SCATTER:
    return (n - 1.0) / n * bytes / (bidirectional ? 2.0 : 1.0);
  case SCALE_COLL_ALL_REDUCE:
    return 2.0 * (n - 1.0) / n * bytes / (bidirectional ? 2.0 : 1.0);
  case SCALE_COLL_ALL_TO_ALL:
    if (!bidirectional) return (n - 1.0) / (2.0 * n) * bytes;
    if (fmod(n, 2.0) == 0.0) return bytes / 8.0;
    return (n * n - 1.0) / 8.0 / (n * n) * bytes;
  case SCALE_COLL_COUNT:
    break;
  }
  return (double)NAN;
}

static scale_collective_cost cost_nan(void) {
  scale_collective_cost c;
  c.time_s = c.bandwidth_time_s = c.latency_time_s = c.hops = c.book_time_s = (double)NAN;
  c.latency_bound = false;
  return c;
}

scale_collective_cost scale_collective_eval(const scale_group *group, scale_collective op,
                                            double bytes) {
  if (!group_ok(group) || (int)op < 0 || op >= SCALE_COLL_COUNT || !(bytes >= 0.0) ||
      !isfinite(bytes))
    return cost_nan();
  double n_total = scale_group_size(group);
  double hops = 0.0, latency = 0.0, in_bw = 0.0, a2a = 0.0;
  double book_bw = 0.0, book_latency = 0.0;
  bool has_switch = false;
  for (int i = 0; i < group->n_axes; i++) {
    const scale_group_axis *ax = &group->axis[i];
    if (ax->size <= 1.0) continue;
    double h = axis_hops(ax);
    hops += h;
    latency += h * ax->hop_latency_s;
    in_bw += axis_in_bytes_per_s(ax);
    /* AllToAll axis by axis: this axis's rings hold V n_i / N each. */
    a2a += axis_all_to_all_frac(ax) * (bytes * ax->size / n_total) / ax->link_bytes_per_s;
    if (ax->topology == SCALE_TOPO_SWITCH) has_switch = true;
    book_bw += 2.0 * ax->link_bytes_per_s; /* W_bidi per axis */
    book_latency += ax->hop_latency_s * ax->size / 2.0;
  }
  scale_collective_cost c;
  if (n_total <= 1.0) {
    c.time_s = c.bandwidth_time_s = c.latency_time_s = c.hops = c.book_time_s = 0.0;
    c.latency_bound = false;
    return c;
  }
  double gather = (n_total - 1.0) / n_total * bytes / in_bw;
  double book = bytes / book_bw;
  switch (op) {
  case SCALE_COLL_ALL_GATHER:
  case SCALE_COLL_REDUCE_SCATTER:
    c.bandwidth_time_s = gather;
    break;
  case SCALE_COLL_ALL_REDUCE:
    c.bandwidth_time_s = 2.0 * gather;
    hops *= 2.0;
    latency *= 2.0;
    book *= 2.0;
    book_latency *= 2.0;
    break;
  case SCALE_COLL_ALL_TO_ALL:
    c.bandwidth_time_s = a2a;
    book /= 4.0;
    break;
  case SCALE_COLL_COUNT:
    return cost_nan();
  }
  c.hops = hops;
  c.latency_time_s = latency;
  c.time_s = latency > c.bandwidth_time_s ? latency : c.bandwidth_time_s;
  c.latency_bound = latency > c.bandwidth_time_s;
  /* The book's ring formulas say nothing of switches (ch. 12): there the book form is the
   * precise one. */
  c.book_time_s = has_switch ? c.time_s : (book_latency > book ? book_latency : book);
  return c;
}

double scale_collective_time_s(const scale_group *group, scale_collective op, double bytes) {
  return scale_collective_eval(group, op, bytes).time_s;
}

double scale_collective_book_time_s(const scale_group *group, scale_collective op, double bytes) {
  return scale_collective_eval(group, op, bytes).book_time_s;
}

/* ==== point to point ======================================================================== */

static bool coords_ok(const scale_group *g, const double *from, const double *to) {
  if (!group_ok(g) || from == NULL || to == NULL) return false;
  for (int i = 0; i < g->n_axes; i++) {
    double n = g->axis[i].size;
    if (!(from[i] >= 0.0 && from[i] < n && from[i] == floor(from[i]))) return false;
    if (!(to[i] >= 0.0 && to[i] < n && to[i] == floor(to[i]))) return false;
  }
  return true;
}

static double axis_distance(const scale_group_axis *ax, double from, double to) {
  double d = fabs(to - from);
  if (d == 0.0) return 0.0;
  if (ax->topology == SCALE_TOPO_SWITCH) return 1.0;
  if (ax->wraps && ax->size - d < d) return ax->size - d;
  return d;
}

double scale_collective_p2p_hops(const scale_group *group, const double *from, const double *to) {
  if (!coords_ok(group, from, to)) return (double)NAN;
  double hops = 0.0;
  for (int i = 0; i < group->n_axes; i++)
    hops += axis_distance(&group->axis[i], from[i], to[i]);
  return hops;
}

double scale_collective_p2p_first_byte_s(const scale_group *group, const double *from,
                                         const double *to) {
  if (!coords_ok(group, from, to)) return (double)NAN;
  double t = 0.0;
  for (int i = 0; i < group->n_axes; i++)
    t += axis_distance(&group->axis[i], from[i], to[i]) * group->axis[i].hop_latency_s;
  return t;
}

double scale_collective_p2p_time_s(const scale_group *group, const double *from, const double *to,
                                   double bytes) {
  if (!coords_ok(group, from, to) || !(bytes >= 0.0) || !isfinite(bytes)) return (double)NAN;
  double bw = 0.0;
  for (int i = 0; i < group->n_axes; i++) {
    const scale_group_axis *ax = &group->axis[i];
    double d = fabs(to[i] - from[i]);
    if (d == 0.0) continue;
    /* Both ways round a wrapped ring are shortest only at the antipode. */
    bool both = ax->topology == SCALE_TOPO_RING && ax->wraps && 2.0 * d == ax->size;
    bw += (both ? 2.0 : 1.0) * ax->link_bytes_per_s;
  }
  if (bw == 0.0) return 0.0;
  return scale_collective_p2p_first_byte_s(group, from, to) + bytes / bw;
}

/* ---- the latency knee (ch. 3) ---------------------------------------------------------------- */

/* [listing:latency-knee] */
/* Bisection on the cost itself, so the knee holds for the precise form with or without
 * wraparound: below it the hops' latency outlasts the bytes' bandwidth time. */
double scale_collective_knee_bytes(const scale_group *group, scale_collective op) {
  if (isnan(scale_collective_time_s(group, op, 1.0))) return (double)NAN;
  double lo = 1.0, hi = 1e12;
  for (int i = 0; i < 200; i++) {
    double mid = sqrt(lo * hi);
    if (scale_collective_eval(group, op, mid).latency_bound)
      lo = mid;
    else
      hi = mid;
  }
  return sqrt(lo * hi);
}
/* [/listing:latency-knee] */
