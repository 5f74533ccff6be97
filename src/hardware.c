/* hardware.c — loading hardware/NAME.ini and the ratios derived from it (hardware.h). */
#include "scale/hardware.h"

#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#ifndef SCALE_SOURCE_DIR
#define SCALE_SOURCE_DIR "."
#endif

/* ==== schema ================================================================================ */

/* Plausible ranges (hardware/README.md "Ranges"): wide enough for a laptop CPU and for chips
 * a decade out, narrow enough that a slip of the exponent or a fraction of a chip is refused at
 * load time instead of turning into inf, NaN or an endless search downstream. */
#define RATE 1e9, 1e19   /* FLOP/s of one chip */
#define BW 1e6, 1e16     /* bytes/s of a memory, link or network port */
#define MEMORY 1e6, 1e15 /* HBM (or DRAM) bytes of one chip */
#define SRAM 1e3, 1e12   /* on-chip memories: VMEM, shared memory, L2, registers */
#define AXIS 1, 65536    /* chips along one torus axis */
#define MANY 1, 1e6      /* cores, units, switches, GPUs in a domain */

#define F(section, key, kind, member, required, ...)                                               \
  { section, key, kind, offsetof(scale_chip, member), required, __VA_ARGS__ }
#define LEVEL(n)                                                                                   \
  F("network", "level" #n "_fanout", INI_WHOLE, net_levels[n - 1].fanout, false, 2, 1e6),          \
      F("network", "level" #n "_member_bytes_per_s", INI_DOUBLE,                                   \
        net_levels[n - 1].member_bytes_per_s, false, BW)

static const ini_field chip_fields[] = {
    F("chip", "kind", INI_CUSTOM, kind, true, 0, 0), /* tpu | gpu, converted by apply_kind() */
    F("system", "base", INI_STRING, base, false, 0, 0),
    F("chip", "display_name", INI_STRING, display_name, true, 0, 0),
    F("chip", "fp32_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_FP32], false, RATE),
    F("chip", "bf16_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_BF16], false, RATE),
    F("chip", "fp16_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_FP16], false, RATE),
    F("chip", "fp8_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_FP8], false, RATE),
    F("chip", "int8_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_INT8], false, RATE),
    F("chip", "int4_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_INT4], false, RATE),
    F("chip", "fp4_flops_per_s", INI_DOUBLE, flops_per_s[SCALE_DTYPE_FP4], false, RATE),
    F("chip", "vector_flops_per_s", INI_DOUBLE, vector_flops_per_s, false, RATE),
    F("chip", "clock_hz", INI_DOUBLE, clock_hz, false, 1e6, 1e11),
    F("chip", "n_cores", INI_WHOLE, n_cores, false, MANY),
    F("chip", "n_matmul_units", INI_WHOLE, n_matmul_units, false, MANY),
    F("chip", "hbm_bytes", INI_DOUBLE, hbm_bytes, true, MEMORY),
    F("chip", "hbm_bytes_per_s", INI_DOUBLE, hbm_bytes_per_s, true, BW),
    F("chip", "vmem_bytes", INI_DOUBLE, vmem_bytes, false, SRAM),
    F("chip", "smem_bytes_per_core", INI_DOUBLE, smem_bytes_per_core, false, SRAM),
    F("chip", "l2_bytes", INI_DOUBLE, l2_bytes, false, SRAM),
    F("chip", "register_bytes_per_core", INI_DOUBLE, register_bytes_per_core, false, SRAM),
    F("ici", "link_bytes_per_s", INI_DOUBLE, ici_link_bytes_per_s, false, BW),
    F("ici", "n_axes", INI_WHOLE, ici_n_axes, false, 1, 3),
    F("ici", "hop_latency_s", INI_DOUBLE, ici_hop_latency_s, false, 1e-10, 1e-1),
    F("ici", "pod_x", INI_WHOLE, pod_shape[0], false, AXIS),
    F("ici", "pod_y", INI_WHOLE, pod_shape[1], false, AXIS),
    F("ici", "pod_z", INI_WHOLE, pod_shape[2], false, AXIS),
    F("ici", "host_x", INI_WHOLE, host_shape[0], false, AXIS),
    F("ici", "host_y", INI_WHOLE, host_shape[1], false, AXIS),
    F("ici", "host_z", INI_WHOLE, host_shape[2], false, AXIS),
    F("ici", "wrap_axis_multiple", INI_WHOLE, wrap_axis_multiple, false, AXIS),
    F("nvlink", "bytes_per_s", INI_DOUBLE, nvlink_bytes_per_s, false, BW),
    F("nvlink", "domain_size", INI_WHOLE, nvlink_domain_size, false, MANY),
    F("nvlink", "nvswitch_bytes_per_s", INI_DOUBLE, nvswitch_bytes_per_s, false, BW),
    F("nvlink", "n_nvswitches", INI_WHOLE, n_nvswitches, false, MANY),
    F("nvlink", "mesh_link_bytes_per_s", INI_DOUBLE, mesh_link_bytes_per_s, false, BW),
    F("nvlink", "fabric", INI_STRING, scaleup_fabric, false, 0, 0),
    F("network", "fabric", INI_STRING, scaleout_fabric, false, 0, 0),
    F("network", "pcie_bytes_per_s", INI_DOUBLE, pcie_bytes_per_s, false, BW),
    F("network", "dcn_bytes_per_s", INI_DOUBLE, dcn_bytes_per_s, false, BW),
    LEVEL(1),
    LEVEL(2),
    LEVEL(3),
    LEVEL(4),
    F("price", "usd_per_hour", INI_DOUBLE, usd_per_hour, false, 1e-3, 1e6),
    F("power", "tdp_w", INI_DOUBLE, tdp_w, false, 1, 1e5),
    F("power", "training_draw_w", INI_DOUBLE, training_draw_w, false, 1, 1e5),
    F("power", "node_overhead_w", INI_DOUBLE, node_overhead_w, false, 0, 1e5),
    F("system", "n_chips", INI_WHOLE, n_chips, false, 1, 1e9),
    F("memory", "context_bytes", INI_DOUBLE, memory_context_bytes, false, 0, 1e11),
    F("memory", "comm_buffer_bytes", INI_DOUBLE, memory_comm_buffer_bytes, false, 0, 1e10),
    F("memory", "fragmentation_frac", INI_DOUBLE, memory_fragmentation_frac, false, 0, 1),
/* the step model's parameters, each in its plausible range (params.h), and their provenance */
#define STEP_FIELD(e, key, unit, lo, hi, ...)                                                      \
  F("step", key, INI_DOUBLE, step[SCALE_STEP_##e], false, lo, hi),
    SCALE_STEP_PARAM_LIST(STEP_FIELD)
#undef STEP_FIELD
    F("step_fit", "by", INI_STRING, step_fit_by, false, 0, 0),
    F("step_fit", "method", INI_STRING, step_fit_method, false, 0, 0),
    F("step_fit", "data", INI_STRING, step_fit_data, false, 0, 0),
    F("step_fit", "rows", INI_WHOLE, step_fit_rows, false, 1, 1e6),
    F("step_fit", "groups", INI_WHOLE, step_fit_groups, false, 1, 1e4),
    F("step_fit", "rms_log_error", INI_DOUBLE, step_fit_rms_log_error, false, 0, 10),
    F("step_fit", "prior_weight", INI_DOUBLE, step_fit_prior_weight, false, 0,
      SCALE_CALIB_PRIOR_WEIGHT_MAX),
/* the serving step cost's parameters, each in its plausible range (params.h) */
#define SERVE_FIELD(e, key, unit, lo, hi, ...)                                                     \
  F("serve", key, INI_DOUBLE, serve[SCALE_SERVE_##e], false, lo, hi),
    SCALE_SERVE_PARAM_LIST(SERVE_FIELD)
#undef SERVE_FIELD
};
#undef LEVEL
#undef F
#undef RATE
#undef BW
#undef MEMORY
#undef SRAM
#undef AXIS
#undef MANY

static const int n_chip_fields = (int)(sizeof chip_fields / sizeof chip_fields[0]);

/* The file's entry for [section] key of the chip schema, or -1. */
static int find(const ini_file *file, const char *section, const char *key) {
  return ini_find_key(file, chip_fields, n_chip_fields, section, key);
}

/* Every double of a fresh record is NaN ("unknown"), never 0. */
static void chip_clear(scale_chip *chip) {
  memset(chip, 0, sizeof *chip);
  for (int i = 0; i < n_chip_fields; i++)
    if (chip_fields[i].kind == INI_DOUBLE || chip_fields[i].kind == INI_WHOLE) {
      double nan_value = (double)NAN;
      memcpy((char *)chip + chip_fields[i].offset, &nan_value, sizeof nan_value);
    }
  chip->n_chips = 1;
}

/* Stem of a path: "dir/tpu-v5p.ini" -> "tpu-v5p". */
static void path_stem(const char *path, char *stem, size_t size) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  snprintf(stem, size, "%s", base);
  char *dot = strrchr(stem, '.');
  if (dot && strcmp(dot, ".ini") == 0) *dot = '\0';
}

static scale_status load_depth(const char *path, scale_chip *out, scale_diag *diag, int depth);

/* Loads the base a system names, from the folder of 'path'. */
static scale_status load_base(const char *path, const ini_entry *entry, scale_chip *out,
                              scale_diag *diag, int depth) {
  if (depth >= 4)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, entry->line,
                          "'base' chain deeper than 4 files (a cycle?)");
  if (strchr(entry->value, '/') || strchr(entry->value, '.'))
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, entry->line,
                          "'base' must be a file stem in the same folder, got '%s'", entry->value);
  char base_path[512];
  const char *slash = strrchr(path, '/');
  int dir_len = slash ? (int)(slash - path) : 1;
  snprintf(base_path, sizeof base_path, "%.*s/%s.ini", dir_len, slash ? path : ".", entry->value);
  struct stat sb;
  if (stat(base_path, &sb) != 0)
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, path, entry->line,
                          "'base' names '%s', but %s does not exist", entry->value, base_path);
  return load_depth(base_path, out, diag, depth + 1);
}

static scale_status apply_kind(const ini_file *file, scale_chip *out, scale_diag *diag) {
  int i = find(file, "chip", "kind");
  if (i < 0) return SCALE_OK; /* inherited from a base */
  const ini_entry *entry = &file->entries[i];
  if (strcmp(entry->value, "tpu") == 0)
    out->kind = SCALE_HW_TPU;
  else if (strcmp(entry->value, "gpu") == 0)
    out->kind = SCALE_HW_GPU;
  else
    return scale_diag_set(diag, SCALE_ERR_PARSE, file->path, entry->line,
                          "'kind' must be tpu or gpu, got '%.60s'", entry->value);
  return SCALE_OK;
}

static scale_status load_depth(const char *path, scale_chip *out, scale_diag *diag, int depth) {
  ini_file *file = malloc(sizeof *file);
  if (!file) return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  scale_status st = ini_read(path, chip_fields, n_chip_fields, file, diag);
  int base = st ? -1 : find(file, "system", "base");
  if (!st && base >= 0) {
    st = load_base(path, &file->entries[base], out, diag, depth);
  } else if (!st) {
    chip_clear(out);
    st = ini_check_required(file, chip_fields, n_chip_fields, diag);
    if (!st && find(file, "chip", "bf16_flops_per_s") < 0 &&
        find(file, "chip", "fp16_flops_per_s") < 0)
      st = scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                          "missing required key: bf16_flops_per_s or fp16_flops_per_s in [chip]");
  }
  if (!st) st = ini_apply(file, chip_fields, out, diag);
  if (!st) st = apply_kind(file, out, diag);
  if (!st) {
    path_stem(path, out->name, sizeof out->name);
    if (base < 0) out->base[0] = '\0';
  }
  free(file);
  return st;
}

scale_status scale_chip_read_sections(const char *path, scale_chip *out, scale_diag *diag) {
  ini_file *file = malloc(sizeof *file);
  if (!file) return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  chip_clear(out);
  scale_status st = ini_read(path, chip_fields, n_chip_fields, file, diag);
  if (!st) st = ini_apply(file, chip_fields, out, diag);
  free(file);
  return st;
}

/* One of the names a fabric key may hold (NULL-terminated list), or false. */
static bool fabric_known(const char *name, const char *const *known) {
  for (int i = 0; known[i]; i++)
    if (strcmp(name, known[i]) == 0) return true;
  return false;
}

/* The scale-up domain's whole-file rules: a domain of two or more GPUs says whether it is
 * switched (n_nvswitches) or a full mesh of direct links (mesh_link_bytes_per_s), not both; a
 * mesh's egress is its links' sum; the fabric names are from the closed lists. */
static scale_status check_scaleup(const char *path, scale_chip *chip, scale_diag *diag) {
  static const char *const up[] = {"nvlink", "nvlink-bridge", "hccs", "xgmi", NULL};
  static const char *const out[] = {"infiniband", "roce", NULL};
  if (chip->scaleup_fabric[0] && !fabric_known(chip->scaleup_fabric, up))
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, 0,
                          "[nvlink] fabric must be nvlink, nvlink-bridge, hccs or xgmi, got '%s'",
                          chip->scaleup_fabric);
  if (chip->scaleout_fabric[0] && !fabric_known(chip->scaleout_fabric, out))
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, 0,
                          "[network] fabric must be infiniband or roce, got '%s'",
                          chip->scaleout_fabric);
  double domain = chip->nvlink_domain_size, link = chip->mesh_link_bytes_per_s;
  bool switched = !isnan(chip->n_nvswitches) || !isnan(chip->nvswitch_bytes_per_s);
  if (!isnan(link)) {
    if (switched)
      return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0,
                            "mesh_link_bytes_per_s describes a switchless full mesh; it cannot "
                            "be given with n_nvswitches or nvswitch_bytes_per_s");
    if (!(domain >= 2))
      return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                            "mesh_link_bytes_per_s needs domain_size >= 2 in [nvlink]");
    double egress = link * (domain - 1);
    if (!isnan(chip->nvlink_bytes_per_s) &&
        fabs(chip->nvlink_bytes_per_s - egress) > 1e-6 * egress)
      return scale_diag_set(diag, SCALE_ERR_RANGE, path, 0,
                            "[nvlink] bytes_per_s %g must equal mesh_link_bytes_per_s x "
                            "(domain_size - 1) = %g on a full mesh (or be left out)",
                            chip->nvlink_bytes_per_s, egress);
    chip->nvlink_bytes_per_s = egress;
  } else if (chip->kind == SCALE_HW_GPU && domain >= 2 && !switched) {
    return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                          "a scale-up domain of %g GPUs needs n_nvswitches (switched) or "
                          "mesh_link_bytes_per_s (a full mesh of direct links)",
                          domain);
  }
  return SCALE_OK;
}

scale_status scale_chip_load_file(const char *path, scale_chip *out, scale_diag *diag) {
  if (!path || !*path) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "empty path");
  scale_chip chip;
  scale_status st = load_depth(path, &chip, diag, 0);
  if (st) return st;
  int n = 0;
  for (; n < SCALE_NET_LEVELS_MAX && !isnan(chip.net_levels[n].fanout); n++) {
    if (isnan(chip.net_levels[n].member_bytes_per_s))
      return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                            "level%d_fanout needs level%d_member_bytes_per_s", n + 1, n + 1);
  }
  for (int i = n; i < SCALE_NET_LEVELS_MAX; i++)
    if (!isnan(chip.net_levels[i].fanout) || !isnan(chip.net_levels[i].member_bytes_per_s))
      return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                            "network levels must be numbered from 1 without gaps (level%d)", i + 1);
  chip.n_net_levels = n;
  st = check_scaleup(path, &chip, diag);
  if (st) return st;
  /* [step]: all or none */
  int n_step = 0;
  for (int i = 0; i < SCALE_STEP_N_PARAMS; i++) n_step += !isnan(chip.step[i]);
  if (n_step > 0 && n_step < SCALE_STEP_N_PARAMS) {
    for (int i = 0; i < SCALE_STEP_N_PARAMS; i++)
      if (isnan(chip.step[i]))
        return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                              "[step] gives %d of the %d step-model parameters: missing %s "
                              "(scale calibrate writes them all)",
                              n_step, SCALE_STEP_N_PARAMS, scale_step_param_describe(i)->key);
  }
  chip.has_step = n_step == SCALE_STEP_N_PARAMS;
  /* [serve]: all or none */
  int n_serve = 0;
  for (int i = 0; i < SCALE_SERVE_N_PARAMS; i++) n_serve += !isnan(chip.serve[i]);
  if (n_serve > 0 && n_serve < SCALE_SERVE_N_PARAMS)
    return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0,
                          "[serve] gives %d of the %d serving parameters (scale calibrate "
                          "--serving writes them all)",
                          n_serve, SCALE_SERVE_N_PARAMS);
  chip.has_serve = n_serve == SCALE_SERVE_N_PARAMS;
  *out = chip;
  return SCALE_OK;
}

/* ==== finding files ========================================================================= */

const char *scale_data_dir(void) {
  const char *env = getenv("SCALE_DATA_DIR");
  return env && *env ? env : SCALE_SOURCE_DIR;
}

scale_status scale_data_resolve(const char *subdir, const char *name, char *path, size_t size,
                                scale_diag *diag) {
  if (!name || !*name) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "empty name");
  size_t len = strlen(name);
  bool is_path = strchr(name, '/') || (len > 4 && strcmp(name + len - 4, ".ini") == 0);
  int n = is_path ? snprintf(path, size, "%s", name)
                  : snprintf(path, size, "%s/%s/%s.ini", scale_data_dir(), subdir, name);
  if (n < 0 || (size_t)n >= size)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "name too long");
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, "", 0, "no %s file '%s'", subdir, name);
  return SCALE_OK;
}

scale_status scale_chip_load(const char *name, scale_chip *out, scale_diag *diag) {
  char path[1024];
  scale_status st = scale_data_resolve("hardware", name, path, sizeof path, diag);
  return st ? st : scale_chip_load_file(path, out, diag);
}

static int compare_names(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

int scale_data_list(const char *subdir, char names[][SCALE_NAME_MAX], int cap) {
  char dir_path[1024];
  snprintf(dir_path, sizeof dir_path, "%s/%s", scale_data_dir(), subdir);
  DIR *dir = opendir(dir_path);
  if (!dir) return -1;
  int n = 0;
  struct dirent *ent;
  while ((ent = readdir(dir)) != NULL) {
    size_t len = strlen(ent->d_name);
    if (len <= 4 || len - 4 >= SCALE_NAME_MAX || strcmp(ent->d_name + len - 4, ".ini") != 0)
      continue;
    if (n < cap) snprintf(names[n], SCALE_NAME_MAX, "%.*s", (int)(len - 4), ent->d_name);
    n++;
  }
  closedir(dir);
  qsort(names, (size_t)(n < cap ? n : cap), SCALE_NAME_MAX, compare_names);
  return n;
}

/* ==== derived ratios ======================================================================== */

double scale_chip_flops_per_s(const scale_chip *chip, scale_dtype dtype) {
  if ((int)dtype < 0 || dtype >= SCALE_DTYPE_COUNT) return (double)NAN;
  return chip->flops_per_s[dtype];
}

double scale_chip_hbm_intensity(const scale_chip *chip, scale_dtype dtype) {
  return scale_chip_flops_per_s(chip, dtype) / chip->hbm_bytes_per_s;
}

double scale_chip_ici_intensity(const scale_chip *chip, scale_dtype dtype) {
  return scale_chip_flops_per_s(chip, dtype) / (2.0 * chip->ici_link_bytes_per_s);
}

double scale_chip_ici_latency_bytes(const scale_chip *chip) {
  /* a chip without ICI figures has no latency-bound threshold (the loader leaves them NaN or 0) */
  if (!(chip->ici_link_bytes_per_s > 0.0) || !(chip->ici_hop_latency_s > 0.0)) return NAN;
  return chip->ici_link_bytes_per_s * chip->ici_hop_latency_s;
}

double scale_chip_dcn_intensity(const scale_chip *chip, scale_dtype dtype) {
  return scale_chip_flops_per_s(chip, dtype) / chip->dcn_bytes_per_s;
}

double scale_chip_nvlink_intensity(const scale_chip *chip, scale_dtype dtype) {
  return scale_chip_flops_per_s(chip, dtype) / chip->nvlink_bytes_per_s;
}

bool scale_chip_axis_wraps(const scale_chip *chip, double size) {
  double m = chip->wrap_axis_multiple;
  if (isnan(m) || !(size >= m) || size != floor(size)) return false;
  return fmod(size, m) == 0.0;
}

bool scale_chip_scaleup_is_mesh(const scale_chip *chip) {
  return chip->mesh_link_bytes_per_s > 0;
}

double scale_chip_scaleup_bytes_per_s(const scale_chip *chip, double n) {
  double domain = chip->nvlink_domain_size;
  if (chip->kind != SCALE_HW_GPU || !(domain >= 2) || !(n >= 2) || n > domain) return (double)NAN;
  if (scale_chip_scaleup_is_mesh(chip)) return chip->mesh_link_bytes_per_s * (n - 1);
  return chip->nvlink_bytes_per_s;
}

double scale_chip_pod_chips(const scale_chip *chip) {
  double z = isnan(chip->pod_shape[2]) ? 1.0 : chip->pod_shape[2];
  return chip->pod_shape[0] * chip->pod_shape[1] * z;
}
