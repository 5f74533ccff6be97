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
          "  --group SHAPE   axis sizes of the group: 16, 4x4, 4x4x4\n"
          "  --wrap W        auto (the chip's wraparound rule; default), yes, no\n"
          "  --json          machine output in SI base units\n");
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
