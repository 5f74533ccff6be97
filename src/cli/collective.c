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

/* A GPU group of n contiguous GPUs across the fat tree (gpu.h): per-level times, the total,
 * and the calibrated step model's price of the same ring. */
static int fat_tree(const scale_chip *chip, scale_collective op, double bytes, double n,
                    bool as_json) {
  int levels = scale_gpu_levels_spanned(chip, n);
  if (levels < 1)
    return cli_usage("collective: a group of %g GPUs is larger than %s's fat tree (%g GPUs)", n,
                     chip->name, scale_gpu_level_gpus(chip, chip->n_net_levels));
  double t;
  switch (op) {
  case SCALE_COLL_ALL_REDUCE: t = scale_gpu_all_reduce_s(chip, n, 1, bytes, 0); break;
  case SCALE_COLL_ALL_TO_ALL: t = scale_gpu_all_to_all_s(chip, n, bytes); break;
  default: t = scale_gpu_all_gather_s(chip, n, 1, bytes); break;
  }
  if (!isfinite(t))
    return cli_usage("collective: %s over %g GPUs of %s is not priced by the fat tree (an "
                     "all-to-all needs whole nodes)",
                     scale_collective_name(op), n, chip->name);
  /* level i: d_i = min(D_i, min(S_i, n) / S_(i-1)) members, each W_i one way (gpu.h) */
  double level_s[SCALE_NET_LEVELS_MAX] = {0}, members[SCALE_NET_LEVELS_MAX] = {0};
  for (int i = 0; i < levels; i++) {
    double below = scale_gpu_level_member_gpus(chip, i + 1);
    double all = scale_gpu_level_gpus(chip, i + 1);
    double d = fmin(chip->net_levels[i].fanout, fmin(all, n) / below);
    members[i] = d;
    double w = chip->net_levels[i].member_bytes_per_s;
    if (op == SCALE_COLL_ALL_TO_ALL)
      level_s[i] = i == 0 && n <= chip->net_levels[0].fanout
                       ? bytes * (n - 1) / (w * n * n)
                       : (i == 1 ? t : 0); /* whole nodes: the scale-out egress binds */
    else
      level_s[i] = (d > 1 ? bytes * (d - 1) / d / w : 0) * (op == SCALE_COLL_ALL_REDUCE ? 2 : 1);
  }
  scale_step_params params;
  double calibrated = NAN, w_ring = NAN;
  scale_step_net net = SCALE_STEP_NET_OUT;
  if (cli_load_step_params(chip, &params) == CLI_EXIT_OK) {
    net = scale_step_group_net(chip, 1, n, &w_ring);
    calibrated = scale_step_collective_s(&params, net, w_ring, op, n, bytes);
  }
  if (as_json) {
    cli_json json;
    cli_json_init(&json, stdout);
    cli_json_object_begin(&json, NULL);
    cli_json_string(&json, "hw", chip->name);
    cli_json_string(&json, "op", scale_collective_name(op));
    cli_json_number(&json, "bytes", bytes);
    cli_json_number(&json, "n_chips", n);
    cli_json_array_begin(&json, "levels");
    for (int i = 0; i < levels; i++) {
      cli_json_object_begin(&json, NULL);
      cli_json_number(&json, "level", i + 1);
      cli_json_number(&json, "members", members[i]);
      cli_json_number(&json, "member_bytes_per_s", chip->net_levels[i].member_bytes_per_s);
      cli_json_number(&json, "time_s", level_s[i]);
      cli_json_object_end(&json);
    }
    cli_json_array_end(&json);
    cli_json_number(&json, "time_s", t);
    cli_json_number(&json, "book_time_s", t);
    cli_json_number(&json, "calibrated_time_s", calibrated);
    cli_json_string(&json, "calibrated_network", scale_step_net_name(net));
    cli_json_object_end(&json);
    cli_json_finish(&json);
    return CLI_EXIT_OK;
  }
  char vbuf[32];
  printf("%s of %s over %g GPUs of %s (%s): the fat tree, %d level%s (book ch. 12)\n",
         scale_collective_name(op), scale_format(vbuf, sizeof vbuf, bytes, "B", SCALE_FMT_SI), n,
         chip->display_name, chip->name, levels, levels == 1 ? "" : "s");
  for (int i = 0; i < levels; i++) {
    char label[96], text[128], bw[32], ts[32];
    snprintf(label, sizeof label, "level %d (%s)", i + 1,
             i == 0 ? "NVLink node" : i == 1 ? "leaf: scale-out" : "spine");
    snprintf(text, sizeof text, "%s over %g members at %s each",
             scale_format(ts, sizeof ts, level_s[i], "", SCALE_FMT_TIME), members[i],
             scale_format(bw, sizeof bw, chip->net_levels[i].member_bytes_per_s, "B/s",
                          SCALE_FMT_SI));
    cli_row_text(label, text);
  }
  cli_row("time (the slowest level binds)", t, "", SCALE_FMT_TIME);
  if (isfinite(calibrated)) {
    char label[96];
    snprintf(label, sizeof label, "step model (%s ring)", scale_step_net_name(net));
    cli_row(label, calibrated, "", SCALE_FMT_TIME);
  }
  return CLI_EXIT_OK;
}

int cli_cmd_collective(int argc, char **argv) {
  enum { OPT_HW = 256, OPT_OP, OPT_BYTES, OPT_GROUP, OPT_WRAP, OPT_JSON };
  static const struct option options[] = {{"hw", required_argument, NULL, OPT_HW},
                                          {"op", required_argument, NULL, OPT_OP},
                                          {"bytes", required_argument, NULL, OPT_BYTES},
                                          {"group", required_argument, NULL, OPT_GROUP},
                                          {"wrap", required_argument, NULL, OPT_WRAP},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  const char *hw = NULL, *group_text = NULL;
  double bytes = (double)NAN;
  bool have_op = false, as_json = false;
  scale_collective op = SCALE_COLL_ALL_GATHER;
  scale_wrap wrap = SCALE_WRAP_AUTO;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_HW:
      hw = optarg;
      break;
    case OPT_OP:
      if (scale_collective_parse(optarg, &op) != SCALE_OK)
        return cli_usage("--op: unknown collective '%s' (all-gather, reduce-scatter, "
                         "all-reduce, all-to-all)",
                         optarg);
      have_op = true;
      break;
    case OPT_BYTES:
      if (!cli_parse_number("bytes", optarg, SCALE_NUM_POSITIVE, &bytes)) return CLI_EXIT_USAGE;
      break;
    case OPT_GROUP:
      group_text = optarg;
      break;
    case OPT_WRAP:
      if (strcmp(optarg, "auto") == 0)
        wrap = SCALE_WRAP_AUTO;
      else if (strcmp(optarg, "yes") == 0)
        wrap = SCALE_WRAP_YES;
      else if (strcmp(optarg, "no") == 0)
        wrap = SCALE_WRAP_NO;
      else
        return cli_usage("--wrap: expected auto, yes or no, not '%s'", optarg);
      break;
    case OPT_JSON:
      as_json = true;
      break;
    case 'h':
      usage(stdout);
      return CLI_EXIT_OK;
    default:
      return cli_bad_option("collective", argv);
    }
  }
  if (optind < argc) return cli_usage("collective: unexpected argument '%s'", argv[optind]);
  if (!hw) return cli_usage("collective: missing --hw NAME (try: scale hw list)");
  if (!have_op)
    return cli_usage("collective: missing --op (all-gather, reduce-scatter, "
                     "all-reduce, all-to-all)");
  if (isnan(bytes)) return cli_usage("collective: missing --bytes V");
  if (!group_text) return cli_usage("collective: missing --group SHAPE (e.g. 4x4)");

  double sizes[SCALE_GROUP_AXES_MAX];
  int n_axes = 0;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  if (scale_group_parse_shape(group_text, sizes, &n_axes, &diag) != SCALE_OK)
    return cli_usage("--group: %s", diag.message);
  scale_chip chip;
  int rc = cli_load_chip(hw, &chip);
  if (rc) return rc;
  if (chip.kind == SCALE_HW_GPU && n_axes == 1 && chip.nvlink_domain_size > 0 &&
      sizes[0] > chip.nvlink_domain_size && chip.n_net_levels >= 2)
    return fat_tree(&chip, op, bytes, sizes[0], as_json);
  scale_group group;
  if (scale_group_from_chip(&chip, sizes, n_axes, wrap, &group, &diag) != SCALE_OK)
    return cli_usage("collective: %s", diag.message);
  scale_collective_cost cost = scale_collective_eval(&group, op, bytes);
  if (!isfinite(cost.time_s) || !isfinite(cost.book_time_s))
    return cli_usage("collective: --bytes %g over --group %s gives a time that is not finite",
                     bytes, group_text);
  const char *bound = cost.latency_bound ? "latency" : "bandwidth";

  if (as_json) {
    cli_json json;
    cli_json_init(&json, stdout);
    cli_json_object_begin(&json, NULL);
    cli_json_string(&json, "hw", chip.name);
    cli_json_string(&json, "op", scale_collective_name(op));
    cli_json_number(&json, "bytes", bytes);
    cli_json_number(&json, "n_chips", scale_group_size(&group));
    cli_json_array_begin(&json, "group");
    for (int i = 0; i < group.n_axes; i++) {
      cli_json_object_begin(&json, NULL);
      cli_json_number(&json, "size", group.axis[i].size);
      cli_json_string(&json, "topology",
                      group.axis[i].topology == SCALE_TOPO_SWITCH ? "switch" : "ring");
      cli_json_bool(&json, "wraps", group.axis[i].wraps);
      cli_json_number(&json, "link_bytes_per_s", group.axis[i].link_bytes_per_s);
      cli_json_number(&json, "hop_latency_s", group.axis[i].hop_latency_s);
      cli_json_object_end(&json);
    }
    cli_json_array_end(&json);
    cli_json_number(&json, "time_s", cost.time_s);
    cli_json_number(&json, "book_time_s", cost.book_time_s);
    cli_json_number(&json, "bandwidth_time_s", cost.bandwidth_time_s);
    cli_json_number(&json, "latency_time_s", cost.latency_time_s);
    cli_json_number(&json, "hops", cost.hops);
    cli_json_string(&json, "bound", bound);
    cli_json_object_end(&json);
    cli_json_finish(&json);
    return CLI_EXIT_OK;
  }

  char vbuf[32], shape[96] = "";
  for (int i = 0; i < group.n_axes; i++) {
    char part[32];
    snprintf(part, sizeof part, "%s%.0f%s", i ? " x " : "", group.axis[i].size,
             group.axis[i].topology == SCALE_TOPO_SWITCH ? " (switch)"
             : group.axis[i].wraps                       ? " (wraps)"
                                                         : " (no wrap)");
    strncat(shape, part, sizeof shape - strlen(shape) - 1);
  }
  printf("%s of %s over %.0f chips of %s (%s): %s\n", scale_collective_name(op),
         scale_format(vbuf, sizeof vbuf, bytes, "B", SCALE_FMT_SI), scale_group_size(&group),
         chip.display_name, chip.name, shape);
  cli_row("time (precise)", cost.time_s, "", SCALE_FMT_TIME);
  cli_row("  bandwidth-bound time", cost.bandwidth_time_s, "", SCALE_FMT_TIME);
  cli_row("  latency-bound time", cost.latency_time_s, "", SCALE_FMT_TIME);
  cli_row("hops on the longest path", cost.hops, "", SCALE_FMT_PLAIN);
  cli_row("book form V / (W_bidi x axes)", cost.book_time_s, "", SCALE_FMT_TIME);
  cli_row_text("bound by", bound);
  return CLI_EXIT_OK;
}
