/* collective.c — `scale collective`: the time of AllGather, ReduceScatter, AllReduce or
 * AllToAll on a group of chips (book ch. 3 "Sharded Matrices and How to Multiply Them").
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale collective --hw NAME --op OP --bytes V --group SHAPE [--wrap W]\n"
          "                        [--json]\n\n"
          "Time of one collective over a group of chips: the precise cost ((N-1)/N factors,\n"
          "floor(N/2) hops on a ring with wraparound, one-way links without it) and the book's\n"
          "form V / (W_bidi x axes), each max'ed with the hop latency.\n\n"
          "  --hw NAME       hardware file stem (scale hw list) or path\n"
          "  --op OP         all-gather, reduce-scatter, all-reduce, all-to-all\n"
          "  --bytes V       size of the full gathered (or reduced) array, bytes (SI suffixes ok)\n"
          "  --group SHAPE   axis sizes of the group: 16, 4x4, 4x4x4; on a GPU system one\n"
          "                  size, which may span nodes (the fat tree of its [network] levels,\n"
          "                  book ch. 12: the levels overlap, the slowest binds; printed per\n"
          "                  level, beside the calibrated step model's price)\n"
          "  --wrap W        auto (the chip's wraparound rule; default), yes, no\n"
          "  --json          machine output in SI base units\n");
}

/* A GPU group of n contiguous GPUs across the fat tree (gpu.h): the priced levels and the
 * calibrated step model's price of the same ring. */
typedef struct {
  const scale_chip *chip;
  scale_collective op;
  double bytes, n;                         /* the array [B] and the GPUs */
  int levels;                              /* fat-tree levels spanned */
  double t;                                /* the book's time (the slowest level binds) [s] */
  double level_s[SCALE_NET_LEVELS_MAX];    /* each level's time [s] */
  double members[SCALE_NET_LEVELS_MAX];    /* each level's members in the group */
  double calibrated;                       /* the step model's price [s], NaN: no parameters */
  scale_step_net net;                      /* the network the step model prices */
} fat_tree_cost;

/* Prices the group into 'f' (levels, op, bytes, n and t set): level i has d_i = min(D_i,
 * min(S_i, n) / S_(i-1)) members, each W_i one way (gpu.h). */
static void fat_tree_levels(fat_tree_cost *f) {
  const scale_chip *chip = f->chip;
  const double n = f->n, bytes = f->bytes;
  for (int i = 0; i < f->levels; i++) {
    double below = scale_gpu_level_member_gpus(chip, i + 1);
    double all = scale_gpu_level_gpus(chip, i + 1);
    double d = fmin(chip->net_levels[i].fanout, fmin(all, n) / below);
    f->members[i] = d;
    double w = chip->net_levels[i].member_bytes_per_s;
    if (f->op == SCALE_COLL_ALL_TO_ALL)
      f->level_s[i] = i == 0 && n <= chip->net_levels[0].fanout
                          ? bytes * (n - 1) / (w * n * n)
                          : (i == 1 ? f->t : 0); /* whole nodes: the scale-out egress binds */
    else
      f->level_s[i] =
          (d > 1 ? bytes * (d - 1) / d / w : 0) * (f->op == SCALE_COLL_ALL_REDUCE ? 2 : 1);
  }
  scale_step_params params;
  double w_ring = NAN;
  f->calibrated = NAN;
  f->net = SCALE_STEP_NET_OUT;
  if (cli_load_step_params(chip, &params) == CLI_EXIT_OK) {
    f->net = scale_step_group_net(chip, 1, n, &w_ring);
    f->calibrated = scale_step_collective_s(&params, f->net, w_ring, f->op, n, bytes);
  }
}

static void fat_tree_json(const fat_tree_cost *f) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "hw", f->chip->name);
  cli_json_string(&json, "op", scale_collective_name(f->op));
  cli_json_number(&json, "bytes", f->bytes);
  cli_json_number(&json, "n_chips", f->n);
  cli_json_array_begin(&json, "levels");
  for (int i = 0; i < f->levels; i++) {
    cli_json_object_begin(&json, NULL);
    cli_json_number(&json, "level", i + 1);
    cli_json_number(&json, "members", f->members[i]);
    cli_json_number(&json, "member_bytes_per_s", f->chip->net_levels[i].member_bytes_per_s);
    cli_json_number(&json, "time_s", f->level_s[i]);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_number(&json, "time_s", f->t);
  cli_json_number(&json, "book_time_s", f->t);
  cli_json_number(&json, "calibrated_time_s", f->calibrated);
  cli_json_string(&json, "calibrated_network", scale_step_net_name(f->net));
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void fat_tree_text(const fat_tree_cost *f) {
  const scale_chip *chip = f->chip;
  char vbuf[32];
  printf("%s of %s over %g GPUs of %s (%s): the fat tree, %d level%s (book ch. 12)\n",
         scale_collective_name(f->op), scale_format(vbuf, sizeof vbuf, f->bytes, "B", SCALE_FMT_SI),
         f->n, chip->display_name, chip->name, f->levels, f->levels == 1 ? "" : "s");
  for (int i = 0; i < f->levels; i++) {
    char label[96], text[128], bw[32], ts[32];
    snprintf(label, sizeof label, "level %d (%s)", i + 1,
             i == 0 ? "NVLink node" : i == 1 ? "leaf: scale-out" : "spine");
    snprintf(text, sizeof text, "%s over %g members at %s each",
             scale_format(ts, sizeof ts, f->level_s[i], "", SCALE_FMT_TIME), f->members[i],
             scale_format(bw, sizeof bw, chip->net_levels[i].member_bytes_per_s, "B/s",
                          SCALE_FMT_SI));
    cli_row_text(label, text);
  }
  cli_row("time (the slowest level binds)", f->t, "", SCALE_FMT_TIME);
  if (isfinite(f->calibrated)) {
    char label[96];
    snprintf(label, sizeof label, "step model (%s ring)", scale_step_net_name(f->net));
    cli_row(label, f->calibrated, "", SCALE_FMT_TIME);
  }
}

/* A GPU group of n contiguous GPUs across the fat tree (gpu.h): per-level times, the total,
 * and the calibrated step model's price of the same ring. */
static int fat_tree(const scale_chip *chip, scale_collective op, double bytes, double n,
                    bool as_json) {
  fat_tree_cost f = {.chip = chip, .op = op, .bytes = bytes, .n = n};
  f.levels = scale_gpu_levels_spanned(chip, n);
  if (f.levels < 1)
    return cli_usage("collective: a group of %g GPUs is larger than %s's fat tree (%g GPUs)", n,
                     chip->name, scale_gpu_level_gpus(chip, chip->n_net_levels));
  switch (op) {
  case SCALE_COLL_ALL_REDUCE: f.t = scale_gpu_all_reduce_s(chip, n, 1, bytes, 0); break;
  case SCALE_COLL_ALL_TO_ALL: f.t = scale_gpu_all_to_all_s(chip, n, bytes); break;
  default: f.t = scale_gpu_all_gather_s(chip, n, 1, bytes); break;
  }
  if (!isfinite(f.t))
    return cli_usage("collective: %s over %g GPUs of %s is not priced by the fat tree (an "
                     "all-to-all needs whole nodes)",
                     scale_collective_name(op), n, chip->name);
  fat_tree_levels(&f);
  if (as_json)
    fat_tree_json(&f);
  else
    fat_tree_text(&f);
  return CLI_EXIT_OK;
}

/* ---- the command line --------------------------------------------------------------------- */

enum { OPT_HW = 256, OPT_OP, OPT_BYTES, OPT_GROUP, OPT_WRAP, OPT_JSON };
static const struct option options[] = {{"hw", required_argument, NULL, OPT_HW},
                                        {"op", required_argument, NULL, OPT_OP},
                                        {"bytes", required_argument, NULL, OPT_BYTES},
                                        {"group", required_argument, NULL, OPT_GROUP},
                                        {"wrap", required_argument, NULL, OPT_WRAP},
                                        {"json", no_argument, NULL, OPT_JSON},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};

/* The options of `scale collective`. */
typedef struct {
  const char *hw, *group_text; /* --hw, --group (NULL until given) */
  double bytes;                /* --bytes (NaN until given) */
  bool have_op, json;
  bool help;                   /* --help: usage printed, exit 0 */
  scale_collective op;
  scale_wrap wrap;
} collective_opts;

/* Takes one getopt_long result 'c' into 'o': 0 or a usage error. */
static int take(int c, const char *arg, collective_opts *o, char **argv) {
  switch (c) {
  case OPT_HW: o->hw = arg; break;
  case OPT_OP:
    if (scale_collective_parse(arg, &o->op) != SCALE_OK)
      return cli_usage("--op: unknown collective '%s' (all-gather, reduce-scatter, "
                       "all-reduce, all-to-all)",
                       arg);
    o->have_op = true;
    break;
  case OPT_BYTES:
    if (!cli_parse_number("bytes", arg, SCALE_NUM_POSITIVE, &o->bytes)) return CLI_EXIT_USAGE;
    break;
  case OPT_GROUP: o->group_text = arg; break;
  case OPT_WRAP:
    if (strcmp(arg, "auto") == 0)
      o->wrap = SCALE_WRAP_AUTO;
    else if (strcmp(arg, "yes") == 0)
      o->wrap = SCALE_WRAP_YES;
    else if (strcmp(arg, "no") == 0)
      o->wrap = SCALE_WRAP_NO;
    else
      return cli_usage("--wrap: expected auto, yes or no, not '%s'", arg);
    break;
  case OPT_JSON: o->json = true; break;
  case 'h': o->help = true; break;
  default: return cli_bad_option("collective", argv);
  }
  return CLI_EXIT_OK;
}

/* Reads the command line into 'o' and checks that it is complete: 0 or a usage error. */
static int parse(int argc, char **argv, collective_opts *o) {
  memset(o, 0, sizeof *o);
  o->bytes = (double)NAN;
  o->op = SCALE_COLL_ALL_GATHER;
  o->wrap = SCALE_WRAP_AUTO;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    int rc = take(c, optarg, o, argv);
    if (rc || o->help) return rc;
  }
  if (optind < argc) return cli_usage("collective: unexpected argument '%s'", argv[optind]);
  if (!o->hw) return cli_usage("collective: missing --hw NAME (try: scale hw list)");
  if (!o->have_op)
    return cli_usage("collective: missing --op (all-gather, reduce-scatter, "
                     "all-reduce, all-to-all)");
  if (isnan(o->bytes)) return cli_usage("collective: missing --bytes V");
  if (!o->group_text) return cli_usage("collective: missing --group SHAPE (e.g. 4x4)");
  return CLI_EXIT_OK;
}

static void print_json(const collective_opts *o, const scale_chip *chip, const scale_group *group,
                       const scale_collective_cost *cost) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "hw", chip->name);
  cli_json_string(&json, "op", scale_collective_name(o->op));
  cli_json_number(&json, "bytes", o->bytes);
  cli_json_number(&json, "n_chips", scale_group_size(group));
  cli_json_array_begin(&json, "group");
  for (int i = 0; i < group->n_axes; i++) {
    const scale_group_axis *axis = &group->axis[i];
    cli_json_object_begin(&json, NULL);
    cli_json_number(&json, "size", axis->size);
    cli_json_string(&json, "topology", axis->topology == SCALE_TOPO_SWITCH ? "switch" : "ring");
    cli_json_bool(&json, "wraps", axis->wraps);
    cli_json_number(&json, "link_bytes_per_s", axis->link_bytes_per_s);
    cli_json_number(&json, "hop_latency_s", axis->hop_latency_s);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_number(&json, "time_s", cost->time_s);
  cli_json_number(&json, "book_time_s", cost->book_time_s);
  cli_json_number(&json, "bandwidth_time_s", cost->bandwidth_time_s);
  cli_json_number(&json, "latency_time_s", cost->latency_time_s);
  cli_json_number(&json, "hops", cost->hops);
  cli_json_string(&json, "bound", cost->latency_bound ? "latency" : "bandwidth");
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void print_text(const collective_opts *o, const scale_chip *chip, const scale_group *group,
                       const scale_collective_cost *cost) {
  char vbuf[32], shape[96] = "";
  for (int i = 0; i < group->n_axes; i++) {
    char part[32];
    snprintf(part, sizeof part, "%s%.0f%s", i ? " x " : "", group->axis[i].size,
             group->axis[i].topology == SCALE_TOPO_SWITCH ? " (switch)"
             : group->axis[i].wraps                       ? " (wraps)"
                                                          : " (no wrap)");
    strncat(shape, part, sizeof shape - strlen(shape) - 1);
  }
  printf("%s of %s over %.0f chips of %s (%s): %s\n", scale_collective_name(o->op),
         scale_format(vbuf, sizeof vbuf, o->bytes, "B", SCALE_FMT_SI), scale_group_size(group),
         chip->display_name, chip->name, shape);
  cli_row("time (precise)", cost->time_s, "", SCALE_FMT_TIME);
  cli_row("  bandwidth-bound time", cost->bandwidth_time_s, "", SCALE_FMT_TIME);
  cli_row("  latency-bound time", cost->latency_time_s, "", SCALE_FMT_TIME);
  cli_row("hops on the longest path", cost->hops, "", SCALE_FMT_PLAIN);
  cli_row("book form V / (W_bidi x axes)", cost->book_time_s, "", SCALE_FMT_TIME);
  cli_row_text("bound by", cost->latency_bound ? "latency" : "bandwidth");
}

int cli_cmd_collective(int argc, char **argv) {
  collective_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  double sizes[SCALE_GROUP_AXES_MAX];
  int n_axes = 0;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  if (scale_group_parse_shape(o.group_text, sizes, &n_axes, &diag) != SCALE_OK)
    return cli_usage("--group: %s", diag.message);
  scale_chip chip;
  if ((rc = cli_load_chip(o.hw, &chip))) return rc;
  if (chip.kind == SCALE_HW_GPU && n_axes == 1 && chip.nvlink_domain_size > 0 &&
      sizes[0] > chip.nvlink_domain_size && chip.n_net_levels >= 2)
    return fat_tree(&chip, o.op, o.bytes, sizes[0], o.json);
  scale_group group;
  if (scale_group_from_chip(&chip, sizes, n_axes, o.wrap, &group, &diag) != SCALE_OK)
    return cli_usage("collective: %s", diag.message);
  scale_collective_cost cost = scale_collective_eval(&group, o.op, o.bytes);
  if (!isfinite(cost.time_s) || !isfinite(cost.book_time_s))
    return cli_usage("collective: --bytes %g over --group %s gives a time that is not finite",
                     o.bytes, o.group_text);
  if (o.json)
    print_json(&o, &chip, &group, &cost);
  else
    print_text(&o, &chip, &group, &cost);
  return CLI_EXIT_OK;
}
