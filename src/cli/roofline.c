/* roofline.c — `scale roofline`: T_math, T_comms, bounds and intensities of an operation or a
 * matmul on one chip (book ch. 1 "All About Rooflines", ch. 2).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale roofline --hw NAME (--flops X --bytes Y | --matmul B,D,F) [options]\n\n"
          "Roofline estimate on one chip: T_math = FLOPs / C, T_comms = bytes / W, the lower\n"
          "bound max(T_math, T_comms), the upper bound T_math + T_comms, and the arithmetic\n"
          "intensity against the chip's critical intensity C / W.\n\n"
          "  --hw NAME             hardware file stem (scale hw list) or path\n"
          "  --flops X --bytes Y   an operation of X FLOPs moving Y bytes\n"
          "  --matmul B,D,F        X[B,D] . W[D,F] -> Z[B,F]: 2BDF FLOPs, bytes of X, W, Z\n"
          "  --act-dtype T         dtype of X and Z (default bf16)\n"
          "  --weight-dtype T      dtype of W in memory (default bf16)\n"
          "  --compute-dtype T     dtype of the matmul units, selects C (default bf16)\n"
          "  --channel C           hbm (default), ici, ici-bidi, pcie, dcn, nvlink\n"
          "  --json                machine output in SI base units\n\n"
          "dtypes: fp32, bf16, fp16, fp8, int8, int4. Numbers accept SI suffixes (4k, 2.8T).\n");
}

/* Parses "B,D,F" into dims[3]: positive whole numbers (SI suffixes allowed). */
static bool parse_matmul(const char *text, double dims[3]) {
  char buf[128];
  if (strlen(text) >= sizeof buf) {
    cli_usage("--matmul: expected B,D,F (three sizes separated by commas)");
    return false;
  }
  strcpy(buf, text);
  int n = 0;
  char *p = buf;
  for (;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = '\0';
    if (n == 3) {
      cli_usage("--matmul: expected B,D,F (three sizes separated by commas), got '%s'", text);
      return false;
    }
    if (!cli_parse_number("matmul", p, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &dims[n]))
      return false;
    n++;
    if (!comma) break;
    p = comma + 1;
  }
  if (n != 3) {
    cli_usage("--matmul: expected B,D,F (three sizes separated by commas), got '%s'", text);
    return false;
  }
  return true;
}

int cli_cmd_roofline(int argc, char **argv) {
  enum {
    OPT_HW = 256,
    OPT_FLOPS,
    OPT_BYTES,
    OPT_MATMUL,
    OPT_ACT,
    OPT_WEIGHT,
    OPT_COMPUTE,
    OPT_CHANNEL,
    OPT_JSON
  };
  static const struct option options[] = {{"hw", required_argument, NULL, OPT_HW},
                                          {"flops", required_argument, NULL, OPT_FLOPS},
                                          {"bytes", required_argument, NULL, OPT_BYTES},
                                          {"matmul", required_argument, NULL, OPT_MATMUL},
                                          {"act-dtype", required_argument, NULL, OPT_ACT},
                                          {"weight-dtype", required_argument, NULL, OPT_WEIGHT},
                                          {"compute-dtype", required_argument, NULL, OPT_COMPUTE},
                                          {"channel", required_argument, NULL, OPT_CHANNEL},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  const char *hw = NULL;
  double flops = (double)NAN, bytes = (double)NAN;
  double dims[3] = {(double)NAN, (double)NAN, (double)NAN};
  bool have_flops = false, have_bytes = false, have_matmul = false, as_json = false;
  bool have_act = false, have_weight = false;
  scale_dtype act = SCALE_DTYPE_BF16, weight = SCALE_DTYPE_BF16, compute = SCALE_DTYPE_BF16;
  scale_channel channel = SCALE_CHANNEL_HBM;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (c) {
    case OPT_HW:
      hw = optarg;
      break;
    case OPT_FLOPS:
      if (!cli_parse_number("flops", optarg, SCALE_NUM_POSITIVE, &flops)) return CLI_EXIT_USAGE;
      have_flops = true;
      break;
    case OPT_BYTES:
      if (!cli_parse_number("bytes", optarg, SCALE_NUM_POSITIVE, &bytes)) return CLI_EXIT_USAGE;
      have_bytes = true;
      break;
    case OPT_MATMUL:
      if (!parse_matmul(optarg, dims)) return CLI_EXIT_USAGE;
      have_matmul = true;
      break;
    case OPT_ACT:
      if (!cli_parse_dtype("act-dtype", optarg, &act)) return CLI_EXIT_USAGE;
      have_act = true;
      break;
    case OPT_WEIGHT:
      if (!cli_parse_dtype("weight-dtype", optarg, &weight)) return CLI_EXIT_USAGE;
      have_weight = true;
      break;
    case OPT_COMPUTE:
      if (!cli_parse_dtype("compute-dtype", optarg, &compute)) return CLI_EXIT_USAGE;
      break;
    case OPT_CHANNEL:
      if (scale_channel_parse(optarg, &channel) != SCALE_OK)
        return cli_usage("--channel: unknown channel '%s' (hbm, ici, ici-bidi, pcie, dcn, "
                         "nvlink)",
                         optarg);
      break;
    case OPT_JSON:
      as_json = true;
      break;
    case 'h':
      usage(stdout);
      return CLI_EXIT_OK;
    default:
      return cli_bad_option("roofline", argv);
    }
  }
  if (optind < argc) return cli_usage("roofline: unexpected argument '%s'", argv[optind]);
  if (!hw) return cli_usage("roofline: missing --hw NAME (try: scale hw list)");
  if (have_matmul && (have_flops || have_bytes))
    return cli_usage("roofline: give either --flops/--bytes or --matmul, not both");
  if (!have_matmul && !(have_flops && have_bytes))
    return cli_usage("roofline: give --flops X --bytes Y, or --matmul B,D,F");
  if (!have_matmul && (have_act || have_weight))
    return cli_usage("roofline: --act-dtype and --weight-dtype need --matmul");

  scale_chip chip;
  int rc = cli_load_chip(hw, &chip);
  if (rc) return rc;
  double c_rate = scale_chip_flops_per_s(&chip, compute);
  if (!(c_rate > 0.0))
    return cli_usage("roofline: %s has no %s matmul rate", chip.name, scale_dtype_name(compute));
  double w_rate = scale_roofline_channel_bytes_per_s(&chip, channel);
  if (!(w_rate > 0.0))
    return cli_usage("roofline: %s has no %s bandwidth", chip.name, scale_channel_name(channel));

  scale_matmul mm = {.b = dims[0],
                     .d = dims[1],
                     .f = dims[2],
                     .act_dtype = act,
                     .weight_dtype = weight,
                     .compute_dtype = compute,
                     .per_example_weights = false};
  double crit_batch = (double)NAN;
  if (have_matmul) {
    flops = scale_roofline_matmul_flops(mm.b, mm.d, mm.f);
    bytes = scale_roofline_matmul_bytes(&mm);
    crit_batch = scale_roofline_matmul_critical_batch(&mm, c_rate, w_rate);
  }
  scale_roofline_estimate e = scale_roofline_eval(flops, bytes, c_rate, w_rate);
  if (!isfinite(e.t_lower_s) || !isfinite(e.t_upper_s) || !isfinite(e.intensity_flops_per_byte))
    return cli_usage("roofline: %s (%.3g FLOPs, %.3g bytes) give a time that is not finite",
                     have_matmul ? "--matmul B,D,F" : "--flops and --bytes", flops, bytes);
  const char *bound = e.compute_bound                ? "compute"
                      : channel == SCALE_CHANNEL_HBM ? "memory"
                                                     : "communication";

  if (as_json) {
    cli_json json;
    cli_json_init(&json, stdout);
    cli_json_object_begin(&json, NULL);
    cli_json_string(&json, "hw", chip.name);
    cli_json_string(&json, "channel", scale_channel_name(channel));
    cli_json_string(&json, "compute_dtype", scale_dtype_name(compute));
    cli_json_number(&json, "flops_per_s", c_rate);
    cli_json_number(&json, "bytes_per_s", w_rate);
    cli_json_number(&json, "flops", e.flops);
    cli_json_number(&json, "bytes", e.bytes);
    cli_json_number(&json, "intensity_flops_per_byte", e.intensity_flops_per_byte);
    cli_json_number(&json, "critical_intensity_flops_per_byte",
                    e.critical_intensity_flops_per_byte);
    cli_json_number(&json, "t_math_s", e.t_math_s);
    cli_json_number(&json, "t_comms_s", e.t_comms_s);
    cli_json_number(&json, "t_lower_s", e.t_lower_s);
    cli_json_number(&json, "t_upper_s", e.t_upper_s);
    cli_json_string(&json, "bound", bound);
    if (have_matmul) {
      cli_json_string(&json, "act_dtype", scale_dtype_name(act));
      cli_json_string(&json, "weight_dtype", scale_dtype_name(weight));
      /* null when no batch is compute-bound (JSON has no infinity). */
      cli_json_number(&json, "critical_batch", crit_batch);
    }
    cli_json_object_end(&json);
    cli_json_finish(&json);
    return CLI_EXIT_OK;
  }

  if (have_matmul)
    printf("matmul %s[%.0f,%.0f] . %s[%.0f,%.0f] -> %s[%.0f,%.0f] on %s (%s), %s compute, %s\n",
           scale_dtype_name(act), mm.b, mm.d, scale_dtype_name(weight), mm.d, mm.f,
           scale_dtype_name(act), mm.b, mm.f, chip.display_name, chip.name,
           scale_dtype_name(compute), scale_channel_name(channel));
  else
    printf("roofline on %s (%s), %s compute, %s\n", chip.display_name, chip.name,
           scale_dtype_name(compute), scale_channel_name(channel));
  cli_row("FLOPs", e.flops, "FLOP", SCALE_FMT_SCI);
  cli_row("bytes", e.bytes, "B", SCALE_FMT_SI);
  cli_row("peak rate C", c_rate, "FLOP/s", SCALE_FMT_SI);
  cli_row("bandwidth W", w_rate, "B/s", SCALE_FMT_SI);
  cli_row("arithmetic intensity", e.intensity_flops_per_byte, "FLOP/byte", SCALE_FMT_PLAIN);
  cli_row("critical intensity C / W", e.critical_intensity_flops_per_byte, "FLOP/byte",
          SCALE_FMT_PLAIN);
  cli_row("T_math", e.t_math_s, "", SCALE_FMT_TIME);
  cli_row("T_comms", e.t_comms_s, "", SCALE_FMT_TIME);
  cli_row("lower bound max(T_math, T_comms)", e.t_lower_s, "", SCALE_FMT_TIME);
  cli_row("upper bound T_math + T_comms", e.t_upper_s, "", SCALE_FMT_TIME);
  cli_row_text("bound by", bound);
  if (have_matmul) {
    if (isfinite(crit_batch))
      cli_row("compute-bound for B >", crit_batch, "", SCALE_FMT_PLAIN);
    else
      cli_row_text("compute-bound for B >", "never (activation traffic alone binds)");
  }
  return CLI_EXIT_OK;
}
