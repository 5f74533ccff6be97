/* sharding.c — meshes, shardings in the book's notation, sharded-matmul plans (sharding.h). */
#include "scale/sharding.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

/* ==== parsing helpers ======================================================================= */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

static bool is_count(double x) { return x >= 1.0 && isfinite(x) && x == floor(x); }

/* Room for input text quoted in a diagnostic: 60 characters, each escaped to at most 4. */
#define SHOWN_MAX (60 * 4 + 4)

/* Index of axis 'name' in 'mesh', or -1. */
static int mesh_find(const scale_mesh *mesh, char name) {
  for (int i = 0; i < mesh->n_axes; i++)
    if (mesh->name[i] == name) return i;
  return -1;
}

/* ==== meshes ================================================================================ */

scale_status scale_sharding_mesh_parse(const char *text, scale_mesh *out, scale_diag *diag) {
  if (text == NULL || out == NULL)
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "no mesh given");
  char shown[SHOWN_MAX];
  scale_escape(shown, sizeof shown, text, 60);
  scale_mesh m;
  memset(&m, 0, sizeof m);
  double devices = 1.0;
  const char *p = skip_ws(text);
  bool brace = *p == '{';
  if (brace) p++;
  for (;;) {
    p = skip_ws(p);
    char quote = 0;
    if (*p == '\'' || *p == '"') quote = *p++;
    if (!isalpha((unsigned char)*p))
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                            "mesh '%s': expected an axis letter like {X:8, Y:2}", shown);
    char name = *p++;
    if (quote) {
      if (*p != quote)
        return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "mesh '%s': axis names are one letter",
                              shown);
      p++;
    }
    p = skip_ws(p);
    if (*p != ':')
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "mesh '%s': expected ':' after axis '%c'",
                            shown, name);
    p = skip_ws(p + 1);
    if (!isdigit((unsigned char)*p))
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                            "mesh '%s': expected a size for axis '%c'", shown, name);
    double v = 0.0;
    while (isdigit((unsigned char)*p))
      v = v * 10.0 + (*p++ - '0');
    if (!is_count(v))
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "mesh '%s': axis '%c' must have at least 1 device", shown, name);
    devices *= v;
    if (!(devices <= SCALE_MESH_DEVICES_MAX))
      return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0,
                            "mesh '%s': more than 2^53 devices (axis '%c')", shown, name);
    if (mesh_find(&m, name) >= 0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "mesh '%s': axis '%c' given twice",
                            shown, name);
    if (m.n_axes == SCALE_MESH_AXES_MAX)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "mesh '%s': more than %d axes", shown,
                            SCALE_MESH_AXES_MAX);
    m.name[m.n_axes] = name;
    m.size[m.n_axes] = v;
    m.n_axes++;
    p = skip_ws(p);
    if (*p == ',') {
      p++;
      continue;
    }
    break;
  }
  if (brace) {
    if (*p != '}')
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "mesh '%s': expected '}'", shown);
    p++;
  }
  p = skip_ws(p);
  if (*p != '\0') {
    char rest[SHOWN_MAX];
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "mesh '%s': unexpected '%s'", shown,
                          scale_escape(rest, sizeof rest, p, 20));
  }
  *out = m;
  return SCALE_OK;
}

static bool mesh_ok(const scale_mesh *mesh) {
  if (mesh == NULL || mesh->n_axes < 1 || mesh->n_axes > SCALE_MESH_AXES_MAX) return false;
  double devices = 1.0;
  for (int i = 0; i < mesh->n_axes; i++) {
    if (!is_count(mesh->size[i])) return false;
    devices *= mesh->size[i];
  }
  return devices <= SCALE_MESH_DEVICES_MAX;
}

double scale_sharding_mesh_devices(const scale_mesh *mesh) {
  if (!mesh_ok(mesh)) return (double)NAN;
  double n = 1.0;
  for (int i = 0; i < mesh->n_axes; i++)
    n *= mesh->size[i];
  return n;
}

/* ==== shardings ============================================================================= */

/* Parses axis letters at *pp into 'axes' (appending), checking each against the mesh and
 * 'used'; 'shown' is the whole text, escaped, for diagnostics. */
static scale_status parse_axes(const char **pp, const char *shown, const scale_mesh *mesh,
                               unsigned *used, int *axes, int *n, scale_diag *diag) {
  const char *p = *pp;
  if (!isalpha((unsigned char)*p))
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                          "sharding '%s': expected mesh axes after '_'", shown);
  while (isalpha((unsigned char)*p)) {
    int k = mesh_find(mesh, *p);
    if (k < 0)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "sharding '%s': unknown mesh axis '%c'",
                            shown, *p);
    if (*used & (1u << k))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "sharding '%s': mesh axis '%c' used twice", shown, *p);
    *used |= 1u << k;
    if (axes != NULL) axes[(*n)++] = k;
    p++;
  }
  *pp = p;
  return SCALE_OK;
}

scale_status scale_sharding_parse(const char *text, const scale_mesh *mesh, scale_sharding *out,
                                  scale_diag *diag) {
  if (text == NULL || out == NULL || !mesh_ok(mesh))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "no sharding or mesh given");
  char shown[SHOWN_MAX];
  scale_escape(shown, sizeof shown, text, 60);
  scale_sharding s;
  memset(&s, 0, sizeof s);
  const char *p = skip_ws(text);
  size_t n = 0;
  while (isalnum((unsigned char)*p) || *p == '\'') {
    if (n + 1 >= sizeof s.array)
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "sharding '%s': name too long", shown);
    s.array[n++] = *p++;
  }
  p = skip_ws(p);
  if (*p != '[')
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                          "sharding '%s': expected '[' as in A[I_X, J]", shown);
  p++;
  unsigned used = 0;
  for (;;) {
    p = skip_ws(p);
    if (!isalnum((unsigned char)*p))
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                            "sharding '%s': expected a dimension name", shown);
    if (s.n_dims == SCALE_SHARD_DIMS_MAX)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "sharding '%s': more than %d dimensions", shown, SCALE_SHARD_DIMS_MAX);
    int d = s.n_dims;
    size_t k = 0;
    while (isalnum((unsigned char)*p)) {
      if (k + 1 >= SCALE_SHARD_NAME_MAX)
        return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0,
                              "sharding '%s': dimension name too long", shown);
      s.dim[d][k++] = *p++;
    }
    for (int e = 0; e < d; e++)
      if (strcmp(s.dim[e], s.dim[d]) == 0)
        return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                              "sharding '%s': dimension '%s' given twice", shown, s.dim[d]);
    if (*p == '_') {
      p++;
      scale_status st = parse_axes(&p, shown, mesh, &used, s.dim_axes[d], &s.n_dim_axes[d], diag);
      if (st) return st;
    }
    s.n_dims++;
    p = skip_ws(p);
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == ']') {
      p++;
      break;
    }
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "sharding '%s': expected ',' or ']'",
                          shown);
  }
  p = skip_ws(p);
  if (*p == '{') {
    p++;
    unsigned reduced = 0;
    for (;;) {
      p = skip_ws(p);
      if (*p != 'U' || p[1] != '_')
        return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "sharding '%s': expected U_X inside {}",
                              shown);
      p += 2;
      unsigned before = reduced;
      scale_status st = parse_axes(&p, shown, mesh, &reduced, NULL, NULL, diag);
      if (st) return st;
      if ((reduced & ~before) & used) {
        for (int k = 0; k < mesh->n_axes; k++)
          if ((reduced & ~before & used) & (1u << k))
            return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                                  "sharding '%s': axis '%c' both shards and is unreduced", shown,
                                  mesh->name[k]);
      }
      p = skip_ws(p);
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == '}') {
        p++;
        break;
      }
      return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "sharding '%s': expected '}'", shown);
    }
    s.unreduced_mask = reduced;
  }
  p = skip_ws(p);
  if (*p != '\0') {
    char rest[SHOWN_MAX];
    return scale_diag_set(diag, SCALE_ERR_PARSE, "", 0, "sharding '%s': unexpected '%s'", shown,
                          scale_escape(rest, sizeof rest, p, 20));
  }
  *out = s;
  return SCALE_OK;
}

scale_status scale_sharding_parse_array(const char *mesh_text, const char *text, scale_mesh *mesh,
                                        scale_sharding *out, scale_diag *diag) {
  scale_status st = scale_sharding_mesh_parse(mesh_text, mesh, diag);
  return st == SCALE_OK ? scale_sharding_parse(text, mesh, out, diag) : st;
}

scale_status scale_sharding_parse_matmul(const char *mesh_text, const char *a_text,
                                         const char *b_text, scale_mesh *mesh, scale_sharding *a,
                                         scale_sharding *b, scale_diag *diag) {
  scale_status st = scale_sharding_parse_array(mesh_text, a_text, mesh, a, diag);
  return st == SCALE_OK ? scale_sharding_parse(b_text, mesh, b, diag) : st;
}

static unsigned dim_mask(const scale_sharding *s, int d) {
  unsigned m = 0;
  for (int k = 0; k < s->n_dim_axes[d]; k++)
    m |= 1u << s->dim_axes[d][k];
  return m;
}

unsigned scale_sharding_axes_mask(const scale_sharding *s) {
  if (s == NULL) return 0;
  unsigned m = 0;
  for (int d = 0; d < s->n_dims; d++)
    m |= dim_mask(s, d);
  return m;
}

double scale_sharding_axes_size(const scale_mesh *mesh, unsigned mask) {
  if (!mesh_ok(mesh)) return (double)NAN;
  double n = 1.0;
  for (int i = 0; i < mesh->n_axes; i++)
    if (mask & (1u << i)) n *= mesh->size[i];
  return n;
}

static bool sharding_ok(const scale_sharding *s, const scale_mesh *mesh) {
  if (s == NULL || !mesh_ok(mesh) || s->n_dims < 1 || s->n_dims > SCALE_SHARD_DIMS_MAX)
    return false;
  for (int d = 0; d < s->n_dims; d++)
    for (int k = 0; k < s->n_dim_axes[d]; k++)
      if (s->dim_axes[d][k] < 0 || s->dim_axes[d][k] >= mesh->n_axes) return false;
  return true;
}

double scale_sharding_n_shards(const scale_sharding *s, const scale_mesh *mesh) {
  if (!sharding_ok(s, mesh)) return (double)NAN;
  return scale_sharding_axes_size(mesh, scale_sharding_axes_mask(s));
}

double scale_sharding_replication(const scale_sharding *s, const scale_mesh *mesh) {
  if (!sharding_ok(s, mesh)) return (double)NAN;
  return scale_sharding_mesh_devices(mesh) / scale_sharding_n_shards(s, mesh);
}

double scale_sharding_local_dim(const scale_sharding *s, const scale_mesh *mesh, const double *dims,
                                int dim) {
  if (!sharding_ok(s, mesh) || dims == NULL || dim < 0 || dim >= s->n_dims) return (double)NAN;
  if (!(dims[dim] >= 0.0) || !isfinite(dims[dim])) return (double)NAN;
  return dims[dim] / scale_sharding_axes_size(mesh, dim_mask(s, dim));
}

double scale_sharding_block_index(const scale_sharding *s, const scale_mesh *mesh,
                                  const double *coord, int dim) {
  if (!sharding_ok(s, mesh) || coord == NULL || dim < 0 || dim >= s->n_dims) return (double)NAN;
  for (int a = 0; a < mesh->n_axes; a++)
    if (!(coord[a] >= 0) || coord[a] >= mesh->size[a] || coord[a] != floor(coord[a]))
      return (double)NAN;
  double index = 0.0; /* mixed radix, the first listed axis most significant */
  for (int k = 0; k < s->n_dim_axes[dim]; k++) {
    int a = s->dim_axes[dim][k];
    index = index * mesh->size[a] + coord[a];
  }
  return index;
}

double scale_sharding_bytes_per_device(const scale_sharding *s, const scale_mesh *mesh,
                                       const double *dims, scale_dtype dtype) {
  if (!sharding_ok(s, mesh) || dims == NULL) return (double)NAN;
  double bytes = scale_dtype_bytes(dtype);
  for (int d = 0; d < s->n_dims; d++)
    bytes *= scale_sharding_local_dim(s, mesh, dims, d);
  return bytes;
}

double scale_sharding_total_bytes(const scale_sharding *s, const scale_mesh *mesh,
                                  const double *dims, scale_dtype dtype) {
  return scale_sharding_bytes_per_device(s, mesh, dims, dtype) * scale_sharding_mesh_devices(mesh);
}

/* ==== sharded matmuls ======================================================================= */

/* Product of the local sizes of the dims of 's', skipping dim 'skip' (-1: none). */
static double local_product(const scale_sharding *s, const scale_mesh *mesh, const double *dims,
                            int skip) {
  double n = 1.0;
  for (int d = 0; d < s->n_dims; d++)
    if (d != skip) n *= scale_sharding_local_dim(s, mesh, dims, d);
  return n;
}

static scale_status add_step(scale_sharded_matmul *out, scale_collective op, unsigned mask,
                             int operand, double bytes, const scale_mesh *mesh,
                             const scale_chip *chip, scale_wrap wrap, scale_diag *diag) {
  scale_sharded_step *st = &out->step[out->n_steps++];
  st->op = op;
  st->axes_mask = mask;
  st->operand = operand;
  st->bytes = bytes;
  st->cost.time_s = st->cost.bandwidth_time_s = st->cost.latency_time_s = st->cost.hops =
      st->cost.book_time_s = (double)NAN;
  st->cost.latency_bound = false;
  if (chip == NULL) return SCALE_OK;
  double sizes[SCALE_GROUP_AXES_MAX];
  int n = 0;
  for (int i = 0; i < mesh->n_axes; i++) {
    if (!(mask & (1u << i))) continue;
    if (n == SCALE_GROUP_AXES_MAX)
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                            "a collective over more than %d mesh axes", SCALE_GROUP_AXES_MAX);
    sizes[n++] = mesh->size[i];
  }
  scale_group group;
  scale_status status = scale_group_from_chip(chip, sizes, n, wrap, &group, diag);
  if (status) return status;
  st->cost = scale_collective_eval(&group, op, bytes);
  return SCALE_OK;
}

scale_status scale_sharding_matmul_plan(const scale_mesh *mesh, const scale_sharding *a,
                                        const double *a_dims, const scale_sharding *b,
                                        const double *b_dims, scale_dtype dtype,
                                        const scale_chip *chip, scale_wrap wrap,
                                        scale_sharded_matmul *out, scale_diag *diag) {
  if (!sharding_ok(a, mesh) || !sharding_ok(b, mesh) || a_dims == NULL || b_dims == NULL ||
      out == NULL || !(scale_dtype_bytes(dtype) > 0.0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "invalid matmul operands");
  for (int d = 0; d < a->n_dims; d++)
    if (!(a_dims[d] >= 1.0) || !isfinite(a_dims[d]))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "A: dimension %s must be >= 1",
                            a->dim[d]);
  for (int d = 0; d < b->n_dims; d++)
    if (!(b_dims[d] >= 1.0) || !isfinite(b_dims[d]))
      return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "B: dimension %s must be >= 1",
                            b->dim[d]);
  int ia = -1, ib = -1, shared = 0;
  for (int i = 0; i < a->n_dims; i++)
    for (int j = 0; j < b->n_dims; j++)
      if (strcmp(a->dim[i], b->dim[j]) == 0) {
        ia = i;
        ib = j;
        shared++;
      }
  if (shared != 1)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "A and B must share exactly one (contracting) dimension, not %d", shared);
  if (a_dims[ia] != b_dims[ib])
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "contracting dimension %s differs: %g vs %g", a->dim[ia], a_dims[ia],
                          b_dims[ib]);

  memset(out, 0, sizeof *out);
  double e = scale_dtype_bytes(dtype);
  unsigned ca = dim_mask(a, ia), cb = dim_mask(b, ib);
  unsigned fa = scale_sharding_axes_mask(a) & ~ca, fb = scale_sharding_axes_mask(b) & ~cb;
  double a_local = local_product(a, mesh, a_dims, -1) * e;
  double b_local = local_product(b, mesh, b_dims, -1) * e;
  /* C's local partial sum: the free dims of both operands at their local sizes. */
  double c_local = local_product(a, mesh, a_dims, ia) * local_product(b, mesh, b_dims, ib) * e;
  double contract = a_dims[ia]; /* the contraction's local extent after the collectives */
  scale_status st = SCALE_OK;

  if (ca != 0 && ca == cb) {
    out->kind = SCALE_SHARDED_CASE_3;
    contract /= scale_sharding_axes_size(mesh, ca);
    st = add_step(out, SCALE_COLL_ALL_REDUCE, ca, 2, c_local, mesh, chip, wrap, diag);
  } else if (ca != 0 || cb != 0) {
    out->kind = SCALE_SHARDED_CASE_2;
    /* Gather the operand whose contracting dim is sharded; if both are (on different axes),
     * gather the smaller after gathering and reduce over the other's axes. */
    double ga = a_local * scale_sharding_axes_size(mesh, ca);
    double gb = b_local * scale_sharding_axes_size(mesh, cb);
    bool gather_a = cb == 0 || (ca != 0 && ga <= gb);
    if (gather_a)
      st = add_step(out, SCALE_COLL_ALL_GATHER, ca, 0, ga, mesh, chip, wrap, diag);
    else
      st = add_step(out, SCALE_COLL_ALL_GATHER, cb, 1, gb, mesh, chip, wrap, diag);
    unsigned rest = gather_a ? cb : ca;
    if (!st && rest != 0) {
      contract /= scale_sharding_axes_size(mesh, rest);
      st = add_step(out, SCALE_COLL_ALL_REDUCE, rest, 2, c_local, mesh, chip, wrap, diag);
    }
  } else if (fa & fb) {
    out->kind = SCALE_SHARDED_CASE_4;
    unsigned both = fa & fb;
    double ga = a_local * scale_sharding_axes_size(mesh, both);
    double gb = b_local * scale_sharding_axes_size(mesh, both);
    if (ga <= gb) {
      st = add_step(out, SCALE_COLL_ALL_GATHER, both, 0, ga, mesh, chip, wrap, diag);
      c_local *= scale_sharding_axes_size(mesh, both); /* A's free dims now whole there */
    } else {
      st = add_step(out, SCALE_COLL_ALL_GATHER, both, 1, gb, mesh, chip, wrap, diag);
      c_local *= scale_sharding_axes_size(mesh, both);
    }
  } else {
    out->kind = SCALE_SHARDED_CASE_1;
  }
  if (st) return st;
  /* FLOPs: 2 x (C's local elements) x (local contraction). For case 4 c_local was widened to
   * the gathered operand's free dims. */
  out->flops_per_device = 2.0 * (c_local / e) * contract;
  out->comms_time_s = chip != NULL ? 0.0 : (double)NAN;
  out->book_comms_time_s = chip != NULL ? 0.0 : (double)NAN;
  for (int i = 0; i < out->n_steps; i++) {
    out->comms_time_s += out->step[i].cost.time_s;
    out->book_comms_time_s += out->step[i].cost.book_time_s;
  }
  return SCALE_OK;
}

scale_status scale_sharding_matmul_plan_text(const char *mesh_text, const char *a_text,
                                             const char *b_text, const double *a_dims,
                                             const double *b_dims, scale_dtype dtype,
                                             const scale_chip *chip, scale_wrap wrap,
                                             scale_sharded_matmul *out, scale_diag *diag) {
  scale_mesh mesh;
  scale_sharding a, b;
  scale_status st = scale_sharding_parse_matmul(mesh_text, a_text, b_text, &mesh, &a, &b, diag);
  if (st != SCALE_OK) return st;
  return scale_sharding_matmul_plan(&mesh, &a, a_dims, &b, b_dims, dtype, chip, wrap, out, diag);
}

/* ==== strategies of Q4 ====================================================================== */

scale_sharding_strategy scale_sharding_compare_strategies(const scale_group *group,
                                                          double flops_per_s, double b, double d,
                                                          double f, scale_dtype dtype, bool book) {
  scale_sharding_strategy s;
  s.gather_t_math_s = s.gather_t_comms_s = s.gather_t_s = (double)NAN;
  s.reduce_t_math_s = s.reduce_t_comms_s = s.reduce_t_s = (double)NAN;
  s.reduce_faster = false;
  double x = scale_group_size(group), e = scale_dtype_bytes(dtype);
  if (isnan(x) || !(e > 0.0) || !(b >= 1.0) || !(d >= 1.0) || !(f >= 1.0) || !(flops_per_s > 0.0) ||
      !isfinite(b * d * f * flops_per_s))
    return s;
  scale_collective_cost gather = scale_collective_eval(group, SCALE_COLL_ALL_GATHER, d * f * e);
  scale_collective_cost reduce = scale_collective_eval(group, SCALE_COLL_ALL_REDUCE, b * f * e);
  s.gather_t_math_s = 2.0 * b * d * f / flops_per_s;
  s.gather_t_comms_s = book ? gather.book_time_s : gather.time_s;
  s.gather_t_s = fmax(s.gather_t_math_s, s.gather_t_comms_s);
  s.reduce_t_math_s = s.gather_t_math_s / x;
  s.reduce_t_comms_s = book ? reduce.book_time_s : reduce.time_s;
  s.reduce_t_s = fmax(s.reduce_t_math_s, s.reduce_t_comms_s);
  s.reduce_faster = s.reduce_t_s < s.gather_t_s;
  return s;
}

double scale_sharding_reduce_beats_gather_d(double flops_per_s, double bidi_bytes_per_s,
                                            scale_dtype act_dtype) {
  double e = scale_dtype_bytes(act_dtype);
  if (!(flops_per_s > 0.0) || !(bidi_bytes_per_s > 0.0) || !(e > 0.0) || !isfinite(flops_per_s) ||
      !isfinite(bidi_bytes_per_s))
    return (double)NAN;
  /* 2 e B F / W_bidi (AllReduce of C) < 2BDF / C (strategy 1's math)  <=>  D > e C / W_bidi. */
  return e * flops_per_s / bidi_bytes_per_s;
}
