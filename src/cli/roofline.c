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

/* The options of `scale roofline`. */
typedef struct {
  const char *hw;                /* --hw (NULL until given) */
  double flops, bytes;           /* --flops, --bytes (NaN until given) */
  double dims[3];                /* --matmul B,D,F (NaN until given) */
  bool have_flops, have_bytes, have_matmul, have_act, have_weight, json;
  bool help;                     /* --help: usage printed, exit 0 */
  scale_dtype act, weight, compute;
  scale_channel channel;
} roofline_opts;

/* Takes one getopt_long result 'c' into 'o': 0 or a usage error. */
static int take(int c, const char *arg, roofline_opts *o, char **argv) {
  bool ok = true;
  switch (c) {
  case OPT_HW: o->hw = arg; break;
  case OPT_FLOPS:
    ok = o->have_flops = cli_parse_number("flops", arg, SCALE_NUM_POSITIVE, &o->flops);
    break;
  case OPT_BYTES:
    ok = o->have_bytes = cli_parse_number("bytes", arg, SCALE_NUM_POSITIVE, &o->bytes);
    break;
  case OPT_MATMUL: ok = o->have_matmul = parse_matmul(arg, o->dims); break;
  case OPT_ACT: ok = o->have_act = cli_parse_dtype("act-dtype", arg, &o->act); break;
  case OPT_WEIGHT: ok = o->have_weight = cli_parse_dtype("weight-dtype", arg, &o->weight); break;
  case OPT_COMPUTE: ok = cli_parse_dtype("compute-dtype", arg, &o->compute); break;
  case OPT_CHANNEL:
    if (scale_channel_parse(arg, &o->channel) != SCALE_OK)
      return cli_usage("--channel: unknown channel '%s' (hbm, ici, ici-bidi, pcie, dcn, "
                       "nvlink)",
                       arg);
    break;
  case OPT_JSON: o->json = true; break;
  case 'h': o->help = true; break;
  default: return cli_bad_option("roofline", argv);
  }
  return ok ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Reads the command line into 'o' and checks that it names one operation: 0 or a usage
 * error. */
static int parse(int argc, char **argv, roofline_opts *o) {
  memset(o, 0, sizeof *o);
  o->flops = o->bytes = (double)NAN;
  o->dims[0] = o->dims[1] = o->dims[2] = (double)NAN;
  o->act = o->weight = o->compute = SCALE_DTYPE_BF16;
  o->channel = SCALE_CHANNEL_HBM;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    int rc = take(c, optarg, o, argv);
    if (rc || o->help) return rc;
  }
  if (optind < argc) return cli_usage("roofline: unexpected argument '%s'", argv[optind]);
  if (!o->hw) return cli_usage("roofline: missing --hw NAME (try: scale hw list)");
  if (o->have_matmul && (o->have_flops || o->have_bytes))
    return cli_usage("roofline: give either --flops/--bytes or --matmul, not both");
  if (!o->have_matmul && !(o->have_flops && o->have_bytes))
    return cli_usage("roofline: give --flops X --bytes Y, or --matmul B,D,F");
  if (!o->have_matmul && (o->have_act || o->have_weight))
    return cli_usage("roofline: --act-dtype and --weight-dtype need --matmul");
  return CLI_EXIT_OK;
}

/* The estimate and what the printers show beside it. */
typedef struct {
  const roofline_opts *o;
  const scale_chip *chip;
  scale_matmul mm;            /* the matmul (--matmul) */
  double c_rate, w_rate;      /* the chip's peak rate [FLOP/s] and channel bandwidth [B/s] */
  double crit_batch;          /* the matmul's critical batch, NaN: none or no matmul */
  scale_roofline_estimate e;
  const char *bound;          /* "compute", "memory" or "communication" */
} roofline_report;

/* Evaluates the operation of 'o' on 'chip' into 'r': 0 or a usage error. */
static int evaluate(const roofline_opts *o, const scale_chip *chip, roofline_report *r) {
  memset(r, 0, sizeof *r);
  r->o = o;
  r->chip = chip;
  r->c_rate = scale_chip_flops_per_s(chip, o->compute);
  if (!(r->c_rate > 0.0))
    return cli_usage("roofline: %s has no %s matmul rate", chip->name,
                     scale_dtype_name(o->compute));
  r->w_rate = scale_roofline_channel_bytes_per_s(chip, o->channel);
  if (!(r->w_rate > 0.0))
    return cli_usage("roofline: %s has no %s bandwidth", chip->name,
                     scale_channel_name(o->channel));
  r->mm = (scale_matmul){.b = o->dims[0],
                         .d = o->dims[1],
                         .f = o->dims[2],
                         .act_dtype = o->act,
                         .weight_dtype = o->weight,
                         .compute_dtype = o->compute,
                         .per_example_weights = false};
  double flops = o->flops, bytes = o->bytes;
  r->crit_batch = (double)NAN;
  if (o->have_matmul) {
    flops = scale_roofline_matmul_flops(r->mm.b, r->mm.d, r->mm.f);
    bytes = scale_roofline_matmul_bytes(&r->mm);
    r->crit_batch = scale_roofline_matmul_critical_batch(&r->mm, r->c_rate, r->w_rate);
  }
  r->e = scale_roofline_eval(flops, bytes, r->c_rate, r->w_rate);
  const scale_roofline_estimate *e = &r->e;
  if (!isfinite(e->t_lower_s) || !isfinite(e->t_upper_s) || !isfinite(e->intensity_flops_per_byte))
    return cli_usage("roofline: %s (%.3g FLOPs, %.3g bytes) give a time that is not finite",
                     o->have_matmul ? "--matmul B,D,F" : "--flops and --bytes", flops, bytes);
  r->bound = e->compute_bound                   ? "compute"
             : o->channel == SCALE_CHANNEL_HBM ? "memory"
                                               : "communication";
  return CLI_EXIT_OK;
}

static void print_json(const roofline_report *r) {
  const roofline_opts *o = r->o;
  const scale_roofline_estimate *e = &r->e;
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "hw", r->chip->name);
  cli_json_string(&json, "channel", scale_channel_name(o->channel));
  cli_json_string(&json, "compute_dtype", scale_dtype_name(o->compute));
  cli_json_number(&json, "flops_per_s", r->c_rate);
  cli_json_number(&json, "bytes_per_s", r->w_rate);
  cli_json_number(&json, "flops", e->flops);
  cli_json_number(&json, "bytes", e->bytes);
  cli_json_number(&json, "intensity_flops_per_byte", e->intensity_flops_per_byte);
  cli_json_number(&json, "critical_intensity_flops_per_byte",
                  e->critical_intensity_flops_per_byte);
  cli_json_number(&json, "t_math_s", e->t_math_s);
  cli_json_number(&json, "t_comms_s", e->t_comms_s);
  cli_json_number(&json, "t_lower_s", e->t_lower_s);
  cli_json_number(&json, "t_upper_s", e->t_upper_s);
  cli_json_string(&json, "bound", r->bound);
  if (o->have_matmul) {
    cli_json_string(&json, "act_dtype", scale_dtype_name(o->act));
    cli_json_string(&json, "weight_dtype", scale_dtype_name(o->weight));
    /* null when no batch is compute-bound (JSON has no infinity). */
    cli_json_number(&json, "critical_batch", r->crit_batch);
  }
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void print_text(const roofline_report *r) {
  const roofline_opts *o = r->o;
  const scale_roofline_estimate *e = &r->e;
  const scale_matmul *mm = &r->mm;
  const char *act = scale_dtype_name(o->act), *compute = scale_dtype_name(o->compute);
  if (o->have_matmul)
    printf("matmul %s[%.0f,%.0f] . %s[%.0f,%.0f] -> %s[%.0f,%.0f] on %s (%s), %s compute, %s\n",
           act, mm->b, mm->d, scale_dtype_name(o->weight), mm->d, mm->f, act, mm->b, mm->f,
           r->chip->display_name, r->chip->name, compute, scale_channel_name(o->channel));
  else
    printf("roofline on %s (%s), %s compute, %s\n", r->chip->display_name, r->chip->name,
           compute, scale_channel_name(o->channel));
  cli_row("FLOPs", e->flops, "FLOP", SCALE_FMT_SCI);
  cli_row("bytes", e->bytes, "B", SCALE_FMT_SI);
  cli_row("peak rate C", r->c_rate, "FLOP/s", SCALE_FMT_SI);
  cli_row("bandwidth W", r->w_rate, "B/s", SCALE_FMT_SI);
  cli_row("arithmetic intensity", e->intensity_flops_per_byte, "FLOP/byte", SCALE_FMT_PLAIN);
  cli_row("critical intensity C / W", e->critical_intensity_flops_per_byte, "FLOP/byte",
          SCALE_FMT_PLAIN);
  cli_row("T_math", e->t_math_s, "", SCALE_FMT_TIME);
  cli_row("T_comms", e->t_comms_s, "", SCALE_FMT_TIME);
  cli_row("lower bound max(T_math, T_comms)", e->t_lower_s, "", SCALE_FMT_TIME);
  cli_row("upper bound T_math + T_comms", e->t_upper_s, "", SCALE_FMT_TIME);
  cli_row_text("bound by", r->bound);
  if (o->have_matmul) {
    if (isfinite(r->crit_batch))
      cli_row("compute-bound for B >", r->crit_batch, "", SCALE_FMT_PLAIN);
    else
      cli_row_text("compute-bound for B >", "never (activation traffic alone binds)");
  }
}

int cli_cmd_roofline(int argc, char **argv) {
  roofline_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  scale_chip chip;
  if ((rc = cli_load_chip(o.hw, &chip))) return rc;
  roofline_report r;
  if ((rc = evaluate(&o, &chip, &r))) return rc;
  if (o.json)
    print_json(&r);
  else
    print_text(&r);
  return CLI_EXIT_OK;
}
