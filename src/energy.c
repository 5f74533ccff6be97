/* energy.c — a training run's energy, emissions, failures and goodput (energy.h). */
#include "scale/energy.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scale/hardware.h"

#define J_PER_KWH 3.6e6
#define S_PER_HOUR 3600.0

/* ==== energy and emissions ================================================================== */

double scale_energy_run_j(double n_chips, double chip_w, double node_overhead_w, double run_s,
                          double pue) {
  /* !(x >= a) also refuses NaN */
  if (!(n_chips >= 1.0) || !(chip_w > 0.0) || !(node_overhead_w >= 0.0) || !(run_s >= 0.0) ||
      !(pue >= 1.0) || !isfinite(n_chips * chip_w * run_s * pue))
    return (double)NAN;
  return n_chips * (chip_w + node_overhead_w) * run_s * pue;
}

double scale_energy_kwh(double j) { return j >= 0.0 ? j / J_PER_KWH : (double)NAN; }

double scale_energy_co2e_t(double kwh, double kg_co2e_per_kwh) {
  if (!(kwh >= 0.0) || !(kg_co2e_per_kwh >= 0.0)) return (double)NAN;
  return kwh * kg_co2e_per_kwh / 1000.0;
}

/* ==== failures and checkpoints ============================================================== */

double scale_energy_rate_per_chip_hour(double n_interruptions, double n_chips, double window_s) {
  if (!(n_interruptions >= 0.0) || !(n_chips >= 1.0) || !(window_s > 0.0)) return (double)NAN;
  return n_interruptions / (n_chips * window_s / S_PER_HOUR);
}

double scale_energy_mtbi_s(double rate_per_chip_hour, double n_chips) {
  if (!(rate_per_chip_hour > 0.0) || !(n_chips >= 1.0)) return (double)NAN;
  return S_PER_HOUR / (rate_per_chip_hour * n_chips);
}

double scale_energy_ckpt_s(double bytes, double write_bytes_per_s) {
  if (!(bytes >= 0.0) || !(write_bytes_per_s > 0.0)) return (double)NAN;
  return bytes / write_bytes_per_s;
}

double scale_energy_young_interval_s(double ckpt_s, double mtbi_s) {
  if (!(ckpt_s > 0.0) || !(mtbi_s > 0.0)) return (double)NAN;
  return sqrt(2.0 * ckpt_s * mtbi_s);
}

double scale_energy_daly_interval_s(double ckpt_s, double mtbi_s) {
  if (!(ckpt_s > 0.0) || !(mtbi_s > 0.0)) return (double)NAN;
  if (ckpt_s >= 2.0 * mtbi_s) return mtbi_s; /* Daly: a dump as long as two MTBIs, every M */
  double x = ckpt_s / (2.0 * mtbi_s);
  return sqrt(2.0 * ckpt_s * mtbi_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - ckpt_s;
}

double scale_energy_goodput_frac(double interval_s, double ckpt_s, double restart_s,
                                 double mtbi_s) {
  if (!(interval_s > 0.0) || !(ckpt_s >= 0.0) || !(restart_s >= 0.0) || !(mtbi_s > 0.0))
    return (double)NAN;
  /* T_w / T_s = M e^(R/M) (e^((tau + delta)/M) - 1) / tau; expm1 keeps the small-x digits */
  double wall_per_useful =
      mtbi_s * exp(restart_s / mtbi_s) * expm1((interval_s + ckpt_s) / mtbi_s) / interval_s;
  return isfinite(wall_per_useful) && wall_per_useful > 0.0 ? 1.0 / wall_per_useful : 0.0;
}

/* ==== one run =============================================================================== */

scale_energy_run scale_energy_run_default(void) {
  scale_energy_run r;
  r.n_chips = r.useful_s = r.usd_per_chip_hour = r.chip_w = r.pue = r.grid_kg_per_kwh = (double)NAN;
  r.rate_per_chip_hour = r.ckpt_bytes = r.ckpt_write_bytes_per_s = r.restart_s = (double)NAN;
  r.node_overhead_w = 0.0;
  return r;
}

scale_energy_run scale_energy_run_of(const scale_chip *chip, double n_chips, double useful_s,
                                     const scale_energy_source *src) {
  scale_energy_run r = scale_energy_run_default();
  r.n_chips = n_chips;
  r.useful_s = useful_s;
  r.usd_per_chip_hour = chip->usd_per_hour;
  r.chip_w = isfinite(chip->training_draw_w) ? chip->training_draw_w : chip->tdp_w;
  r.node_overhead_w = isfinite(chip->node_overhead_w) ? chip->node_overhead_w : 0.0;
  if (src) {
    r.rate_per_chip_hour =
        scale_energy_rate_per_chip_hour(src->n_interruptions, src->n_chips, src->window_s);
    r.ckpt_write_bytes_per_s = src->ckpt_write_bytes_per_s;
  }
  return r;
}

/* The failure half: MTBI, checkpoint time, Daly's interval and the goodput (NaN when an input
 * is missing; a checkpoint that takes no time checkpoints every step: goodput from R alone). */
static void eval_failures(const scale_energy_run *run, scale_energy_result *out) {
  out->mtbi_s = scale_energy_mtbi_s(run->rate_per_chip_hour, run->n_chips);
  out->ckpt_s = scale_energy_ckpt_s(run->ckpt_bytes, run->ckpt_write_bytes_per_s);
  out->interval_s = scale_energy_daly_interval_s(out->ckpt_s, out->mtbi_s);
  out->goodput_frac =
      scale_energy_goodput_frac(out->interval_s, out->ckpt_s, run->restart_s, out->mtbi_s);
  out->elapsed_s = run->useful_s / out->goodput_frac;
  out->n_interruptions = out->elapsed_s / out->mtbi_s;
  /* no goodput, or so little that the run never ends in a double: no elapsed time */
  if (!(out->goodput_frac > 0.0) || !isfinite(out->elapsed_s))
    out->elapsed_s = out->n_interruptions = (double)NAN;
}

void scale_energy_eval(const scale_energy_run *run, scale_energy_result *out) {
  eval_failures(run, out);
  /* without a failure model the energy and cost are those of the useful time */
  bool failures = isfinite(out->goodput_frac);
  double elapsed_s = failures ? out->elapsed_s : run->useful_s;
  double it_j = scale_energy_run_j(run->n_chips, run->chip_w, run->node_overhead_w, elapsed_s, 1.0);
  out->it_kwh = scale_energy_kwh(it_j);
  out->facility_kwh = isnan(run->pue) ? (double)NAN : out->it_kwh * (run->pue >= 1.0 ? run->pue : (double)NAN);
  out->co2e_t = scale_energy_co2e_t(out->facility_kwh, run->grid_kg_per_kwh);
  out->cost_usd = run->usd_per_chip_hour >= 0.0 && run->n_chips >= 1.0 && elapsed_s >= 0.0
                      ? run->n_chips * elapsed_s / S_PER_HOUR * run->usd_per_chip_hour
                      : (double)NAN;
}

/* ==== published interruption records ======================================================= */

/* Strips leading and trailing blanks of 's' in place; returns its first non-blank. */
static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1]))
    s[--n] = '\0';
  return s;
}

/* The record member a key names (and its range), or NULL for an unknown key. */
static double *source_member(scale_energy_source *src, const char *key, double *lo, double *hi) {
  *lo = 0.0;
  *hi = 1e12;
  if (strcmp(key, "n_interruptions") == 0) return &src->n_interruptions;
  *lo = 1.0;
  if (strcmp(key, "n_chips") == 0) return &src->n_chips;
  if (strcmp(key, "window_s") == 0) return &src->window_s;
  *lo = 1e6;
  *hi = 1e15;
  if (strcmp(key, "ckpt_write_bytes_per_s") == 0) return &src->ckpt_write_bytes_per_s;
  return NULL;
}

/* One `key = value` line of the record being read: SCALE_OK or an error with its line. */
static scale_status source_line(const char *path, int line, char *text, scale_energy_source *src,
                                scale_diag *diag) {
  char *eq = strchr(text, '=');
  if (!eq) return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "expected key = value");
  *eq = '\0';
  const char *key = trim(text), *value = trim(eq + 1);
  double lo, hi, v;
  double *member = source_member(src, key, &lo, &hi);
  if (!member) return scale_diag_set(diag, SCALE_ERR_UNKNOWN_KEY, path, line, "unknown key '%s'", key);
  if (!isnan(*member))
    return scale_diag_set(diag, SCALE_ERR_DUPLICATE_KEY, path, line, "duplicate key '%s'", key);
  if (!scale_strict_number(value, &v))
    return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "%s: not a number '%s'", key, value);
  if (!(v >= lo && v <= hi))
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, line, "%s must be in [%g, %g], got %g",
                          key, lo, hi, v);
  *member = v;
  return SCALE_OK;
}

/* Reads the open file: the keys of section 'name' into 'out' (others' keys checked too). */
static scale_status source_read(FILE *f, const char *path, const char *name,
                                scale_energy_source *out, bool *found, scale_diag *diag) {
  char buf[256];
  int line = 0;
  bool mine = false, in_section = false;
  scale_energy_source other;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    char *s = trim(buf);
    if (!*s || *s == ';' || *s == '#') continue;
    if (*s == '[') {
      char *end = strchr(s, ']');
      if (!end || end[1] != '\0' || end == s + 1 || end - s > 63)
        return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "malformed section header");
      *end = '\0';
      mine = strcmp(s + 1, name) == 0;
      if (mine && *found)
        return scale_diag_set(diag, SCALE_ERR_DUPLICATE_KEY, path, line, "duplicate [%s]", name);
      *found = *found || mine;
      in_section = true;
      scale_energy_source *rec = mine ? out : &other;
      snprintf(rec->name, sizeof rec->name, "%s", s + 1);
      rec->n_interruptions = rec->n_chips = rec->window_s = rec->ckpt_write_bytes_per_s = (double)NAN;
      continue;
    }
    if (!in_section)
      return scale_diag_set(diag, SCALE_ERR_PARSE, path, line, "key outside a [section]");
    scale_status st = source_line(path, line, s, mine ? out : &other, diag);
    if (st) return st;
  }
  return SCALE_OK;
}

scale_status scale_energy_source_load(const char *path, const char *name,
                                      scale_energy_source *out, scale_diag *diag) {
  char def[1024];
  if (!path) {
    snprintf(def, sizeof def, "%s/measurements/reliability.ini", scale_data_dir());
    path = def;
  }
  if (!name || !*name) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "empty source name");
  FILE *f = fopen(path, "r");
  if (!f) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open");
  bool found = false;
  memset(out, 0, sizeof *out);
  scale_status st = source_read(f, path, name, out, &found, diag);
  fclose(f);
  if (st) return st;
  if (!found)
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, path, 0, "no interruption record '%s'", name);
  const char *missing = isnan(out->n_interruptions) ? "n_interruptions"
                        : isnan(out->n_chips)       ? "n_chips"
                        : isnan(out->window_s)      ? "window_s"
                                                    : NULL;
  if (missing)
    return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, path, 0, "[%s] lacks %s", name, missing);
  return SCALE_OK;
}
