/* hw.c — `scale hw list` and `scale hw show NAME`: the chips and systems of hardware/. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* One stored number of scale_chip: JSON key (the file's key with its unit), label, unit. */
typedef struct {
  const char *json_key;
  const char *label;
  size_t offset;
  const char *unit;
  scale_fmt style;
} chip_field;

#define C(key, label, member, unit, style)                                                         \
  { key, label, offsetof(scale_chip, member), unit, style }
static const chip_field fields[] = {
    C("fp32_flops_per_s", "fp32 matmul", flops_per_s[SCALE_DTYPE_FP32], "FLOP/s", SCALE_FMT_SI),
    C("bf16_flops_per_s", "bf16 matmul", flops_per_s[SCALE_DTYPE_BF16], "FLOP/s", SCALE_FMT_SI),
    C("fp16_flops_per_s", "fp16 matmul", flops_per_s[SCALE_DTYPE_FP16], "FLOP/s", SCALE_FMT_SI),
    C("fp8_flops_per_s", "fp8 matmul", flops_per_s[SCALE_DTYPE_FP8], "FLOP/s", SCALE_FMT_SI),
    C("int8_flops_per_s", "int8 matmul", flops_per_s[SCALE_DTYPE_INT8], "OP/s", SCALE_FMT_SI),
    C("int4_flops_per_s", "int4 matmul", flops_per_s[SCALE_DTYPE_INT4], "OP/s", SCALE_FMT_SI),
    C("fp4_flops_per_s", "fp4 matmul", flops_per_s[SCALE_DTYPE_FP4], "FLOP/s", SCALE_FMT_SI),
    C("vector_flops_per_s", "vector (non-matmul) fp32", vector_flops_per_s, "FLOP/s", SCALE_FMT_SI),
    C("clock_hz", "clock", clock_hz, "Hz", SCALE_FMT_SI),
    C("n_cores", "cores (TensorCores / SMs)", n_cores, "", SCALE_FMT_PLAIN),
    C("n_matmul_units", "matmul units per core", n_matmul_units, "", SCALE_FMT_PLAIN),
    C("hbm_bytes", "HBM capacity", hbm_bytes, "B", SCALE_FMT_SI),
    C("hbm_bytes_per_s", "HBM bandwidth", hbm_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("vmem_bytes", "VMEM per TensorCore", vmem_bytes, "B", SCALE_FMT_IEC),
    C("smem_bytes_per_core", "SMEM+L1 per SM", smem_bytes_per_core, "B", SCALE_FMT_IEC),
    C("l2_bytes", "L2 cache", l2_bytes, "B", SCALE_FMT_IEC),
    C("register_bytes_per_core", "registers per SM", register_bytes_per_core, "B", SCALE_FMT_IEC),
    C("ici_link_bytes_per_s", "ICI link (one-way)", ici_link_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("ici_n_axes", "ICI torus axes", ici_n_axes, "", SCALE_FMT_PLAIN),
    C("ici_hop_latency_s", "ICI hop latency", ici_hop_latency_s, "s", SCALE_FMT_TIME),
    C("pod_x", "pod X", pod_shape[0], "", SCALE_FMT_PLAIN),
    C("pod_y", "pod Y", pod_shape[1], "", SCALE_FMT_PLAIN),
    C("pod_z", "pod Z", pod_shape[2], "", SCALE_FMT_PLAIN),
    C("host_x", "host X", host_shape[0], "", SCALE_FMT_PLAIN),
    C("host_y", "host Y", host_shape[1], "", SCALE_FMT_PLAIN),
    C("host_z", "host Z", host_shape[2], "", SCALE_FMT_PLAIN),
    C("wrap_axis_multiple", "wraparound on axes that are multiples of", wrap_axis_multiple, "",
      SCALE_FMT_PLAIN),
    C("nvlink_bytes_per_s", "NVLink egress (one-way)", nvlink_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("nvlink_domain_size", "NVLink domain", nvlink_domain_size, "GPUs", SCALE_FMT_PLAIN),
    C("nvswitch_bytes_per_s", "NVSwitch capacity", nvswitch_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("n_nvswitches", "NVSwitches", n_nvswitches, "", SCALE_FMT_PLAIN),
    C("pcie_bytes_per_s", "PCIe (one-way)", pcie_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("dcn_bytes_per_s", "DCN / scale-out (one-way)", dcn_bytes_per_s, "B/s", SCALE_FMT_SI),
    C("usd_per_hour", "price per chip-hour", usd_per_hour, "USD/h", SCALE_FMT_USD),
    C("n_chips", "chips in this system", n_chips, "", SCALE_FMT_PLAIN),
};
#undef C

static double field_value(const scale_chip *chip, const chip_field *f) {
  double v;
  memcpy(&v, (const char *)chip + f->offset, sizeof v);
  return v;
}

static const char *kind_name(const scale_chip *chip) {
  return chip->kind == SCALE_HW_TPU ? "tpu" : "gpu";
}

/* ---- derived ratios: computed, never stored ------------------------------------------------ */

typedef double (*ratio_fn)(const scale_chip *, scale_dtype);

static const struct {
  const char *json_key;
  const char *label;
  ratio_fn fn;
} ratios[] = {
    {"hbm_intensity_flops_per_byte", "C / W_hbm", scale_chip_hbm_intensity},
    {"ici_intensity_flops_per_byte", "C / W_ici (bidirectional)", scale_chip_ici_intensity},
    {"dcn_intensity_flops_per_byte", "C / W_dcn", scale_chip_dcn_intensity},
    {"nvlink_intensity_flops_per_byte", "C / W_nvlink", scale_chip_nvlink_intensity},
};

static void show_json(const scale_chip *chip) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "name", chip->name);
  cli_json_string(&json, "display_name", chip->display_name);
  cli_json_string(&json, "kind", kind_name(chip));
  cli_json_string(&json, "base", chip->base);
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    double v = field_value(chip, &fields[i]);
    if (!isnan(v)) cli_json_number(&json, fields[i].json_key, v);
  }
  cli_json_array_begin(&json, "net_levels");
  for (int i = 0; i < chip->n_net_levels; i++) {
    cli_json_object_begin(&json, NULL);
    cli_json_number(&json, "fanout", chip->net_levels[i].fanout);
    cli_json_number(&json, "member_bytes_per_s", chip->net_levels[i].member_bytes_per_s);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_object_begin(&json, "derived");
  cli_json_number(&json, "pod_chips", scale_chip_pod_chips(chip));
  for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
    cli_json_object_begin(&json, ratios[r].json_key);
    for (int d = 0; d < SCALE_DTYPE_COUNT; d++) {
      double v = ratios[r].fn(chip, (scale_dtype)d);
      if (isfinite(v)) cli_json_number(&json, scale_dtype_name((scale_dtype)d), v);
    }
    cli_json_object_end(&json);
  }
  cli_json_object_end(&json);
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void show_text(const scale_chip *chip) {
  printf("%s (%s, %s%s%s)\n", chip->display_name, chip->name, kind_name(chip),
         chip->base[0] ? ", system of " : "", chip->base);
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    double v = field_value(chip, &fields[i]);
    if (!isnan(v)) cli_row(fields[i].label, v, fields[i].unit, fields[i].style);
  }
  for (int i = 0; i < chip->n_net_levels; i++) {
    char label[64], text[64], bw[32];
    snprintf(label, sizeof label, "network level %d", i + 1);
    scale_format(bw, sizeof bw, chip->net_levels[i].member_bytes_per_s, "B/s", SCALE_FMT_SI);
    snprintf(text, sizeof text, "%.0f members x %s", chip->net_levels[i].fanout, bw);
    cli_row_text(label, text);
  }
  printf("derived (critical intensities, FLOP/byte):\n");
  for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++)
    for (int d = 0; d < SCALE_DTYPE_COUNT; d++) {
      double v = ratios[r].fn(chip, (scale_dtype)d);
      if (!isfinite(v)) continue;
      char label[64];
      snprintf(label, sizeof label, "%s, %s", ratios[r].label, scale_dtype_name((scale_dtype)d));
      cli_row(label, v, "", SCALE_FMT_PLAIN);
    }
  if (isfinite(scale_chip_pod_chips(chip)))
    cli_row("chips per pod", scale_chip_pod_chips(chip), "", SCALE_FMT_PLAIN);
}

#define MAX_FILES 256

/* Prints the text table of 'chips': columns as wide as their longest name (nothing cut). */
static void print_table(const scale_chip *chips, int n) {
  int name_w = 4, chip_w = 4;
  for (int i = 0; i < n; i++) {
    int len = (int)strlen(chips[i].name), dlen = (int)strlen(chips[i].display_name);
    if (len > name_w) name_w = len;
    if (dlen > chip_w) chip_w = dlen;
  }
  printf("%-*s %-*s %-4s %13s %10s %12s %9s\n", name_w, "NAME", chip_w, "CHIP", "KIND",
         "bf16 FLOP/s", "HBM", "HBM B/s", "C/W_hbm");
  for (int i = 0; i < n; i++) {
    const scale_chip *chip = &chips[i];
    char flops[32], hbm[32], bw[32], ratio[32];
    printf("%-*s %-*s %-4s %13s %10s %12s %9s\n", name_w, chip->name, chip_w,
           chip->display_name, kind_name(chip),
           scale_format(flops, sizeof flops, scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16),
                        "FLOP/s", SCALE_FMT_SI),
           scale_format(hbm, sizeof hbm, chip->hbm_bytes, "B", SCALE_FMT_SI),
           scale_format(bw, sizeof bw, chip->hbm_bytes_per_s, "B/s", SCALE_FMT_SI),
           scale_format(ratio, sizeof ratio, scale_chip_hbm_intensity(chip, SCALE_DTYPE_BF16), "",
                        SCALE_FMT_PLAIN));
  }
}

static void print_json(const scale_chip *chips, int n) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_array_begin(&json, NULL);
  for (int i = 0; i < n; i++) {
    const scale_chip *chip = &chips[i];
    cli_json_object_begin(&json, NULL);
    cli_json_string(&json, "name", chip->name);
    cli_json_string(&json, "display_name", chip->display_name);
    cli_json_string(&json, "kind", kind_name(chip));
    cli_json_number(&json, "bf16_flops_per_s", scale_chip_flops_per_s(chip, SCALE_DTYPE_BF16));
    cli_json_number(&json, "hbm_bytes", chip->hbm_bytes);
    cli_json_number(&json, "hbm_bytes_per_s", chip->hbm_bytes_per_s);
    cli_json_number(&json, "hbm_intensity_flops_per_byte",
                    scale_chip_hbm_intensity(chip, SCALE_DTYPE_BF16));
    cli_json_number(&json, "n_chips", chip->n_chips);
    cli_json_object_end(&json);
  }
  cli_json_array_end(&json);
  cli_json_finish(&json);
}

static int list(bool as_json) {
  static char names[MAX_FILES][SCALE_NAME_MAX];
  static scale_chip chips[MAX_FILES];
  int n = scale_data_list("hardware", names, MAX_FILES);
  if (n < 0) return cli_fail("cannot read %s/hardware", scale_data_dir());
  if (n > MAX_FILES) n = MAX_FILES;
  int status = CLI_EXIT_OK, loaded = 0;
  for (int i = 0; i < n; i++) {
    scale_diag diag;
    if (scale_chip_load(names[i], &chips[loaded], &diag)) {
      cli_print_diag(&diag);
      status = CLI_EXIT_FAIL;
      continue;
    }
    loaded++;
  }
  if (as_json) print_json(chips, loaded);
  else print_table(chips, loaded);
  return status;
}

static void usage(FILE *out) {
  fprintf(out, "usage: scale hw list [--json]\n"
               "       scale hw show NAME [--json]\n"
               "       scale hw prices [CHIP]\n\n"
               "NAME is a file stem of hardware/ (tpu-v5p, nvidia-h100-sxm) or a path to an .ini.\n"
               "show prints every stored value and the derived critical intensities C/W.\n"
               "prices lists hardware/prices.tsv (provider, offer, date): the names --price\n"
               "takes on train, infer and plan.\n");
}

int cli_cmd_hw(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "prices") == 0) {
    if (argc > 3) return cli_usage("hw prices: unexpected argument '%s'", argv[3]);
    return cli_hw_prices(argc == 3 ? argv[2] : NULL);
  }
  cli_list_show args;
  int rc = cli_parse_list_show("hw", argc, argv, usage, NULL, &args);
  if (rc >= 0) return rc;
  if (args.list) return list(args.json);
  scale_chip chip;
  if ((rc = cli_load_chip(args.name, &chip))) return rc;
  if (args.json)
    show_json(&chip);
  else
    show_text(&chip);
  return CLI_EXIT_OK;
}
