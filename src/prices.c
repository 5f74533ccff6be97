/* prices.c — the strict reader of hardware/prices.tsv (contract in prices.h). */
#include "scale/prices.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/file.h"
#include "scale/hardware.h"

static const char *const offer_names[SCALE_OFFER_COUNT] = {"on-demand", "committed-1y",
                                                           "committed-3y", "spot", "reserved"};

const char *scale_offer_name(scale_offer offer) {
  return (unsigned)offer < SCALE_OFFER_COUNT ? offer_names[offer] : "?";
}

enum { N_FIELDS = 6 };
static const char *const header[N_FIELDS] = {"chip",      "provider", "offer", "usd_per_chip_hour",
                                             "date",      "source"};

/* Splits 'line' in place at tabs; returns the number of fields (up to N_FIELDS + 1). */
static int split(char *line, char *f[N_FIELDS + 1]) {
  int n = 0;
  for (char *p = line; n <= N_FIELDS;) {
    f[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    p = tab + 1;
  }
  return n;
}

static bool name_ok(const char *s, size_t cap) {
  size_t n = strlen(s);
  if (n == 0 || n >= cap) return false;
  for (size_t i = 0; i < n; i++)
    if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' ||
          s[i] == '.'))
      return false;
  return true;
}

/* YYYY-MM or YYYY-MM-DD with a plausible year and month. */
static bool date_ok(const char *s) {
  int y, m, d, k = 0;
  size_t n = strlen(s);
  if (n == 7 && sscanf(s, "%4d-%2d%n", &y, &m, &k) == 2 && k == 7) return y >= 2000 && m >= 1 && m <= 12;
  if (n == 10 && sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &k) == 3 && k == 10)
    return y >= 2000 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
  return false;
}

/* One data row into *out; 0 or the reason. */
static const char *parse_row(char **f, scale_price *out) {
  memset(out, 0, sizeof *out);
  if (!name_ok(f[0], sizeof out->chip)) return "chip must be a hardware file stem";
  if (!name_ok(f[1], sizeof out->provider)) return "provider must be lowercase [a-z0-9-]";
  out->offer = SCALE_OFFER_COUNT;
  for (int k = 0; k < SCALE_OFFER_COUNT; k++)
    if (strcmp(f[2], offer_names[k]) == 0) out->offer = (scale_offer)k;
  if (out->offer == SCALE_OFFER_COUNT)
    return "offer must be on-demand, committed-1y, committed-3y, spot or reserved";
  char *end;
  out->usd_per_chip_hour = strtod(f[3], &end);
  if (end == f[3] || *end || !(out->usd_per_chip_hour >= 0.001 && out->usd_per_chip_hour <= 1e6))
    return "usd_per_chip_hour must be a number in [0.001, 1e6]";
  if (!date_ok(f[4])) return "date must be YYYY-MM or YYYY-MM-DD";
  if (!*f[5] || strlen(f[5]) >= sizeof out->source) return "source must be a note of 1-159 bytes";
  snprintf(out->chip, sizeof out->chip, "%s", f[0]);
  snprintf(out->provider, sizeof out->provider, "%s", f[1]);
  snprintf(out->date, sizeof out->date, "%s", f[4]);
  snprintf(out->source, sizeof out->source, "%s", f[5]);
  return NULL;
}

static bool same_key(const scale_price *a, const scale_price *b) {
  return a->offer == b->offer && !strcmp(a->chip, b->chip) && !strcmp(a->provider, b->provider);
}

/* Checks one line (header or row) and appends a row; 0, or -1 with 'diag' set. */
static int take_line(char *line, const char *path, int lineno, bool *seen_header,
                     scale_price *rows, int *n, int cap, scale_diag *diag) {
  char *f[N_FIELDS + 1];
  int nf = split(line, f);
  if (nf != N_FIELDS)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno,
                          "%d tab-separated fields, expected %d", nf, N_FIELDS), -1;
  if (!*seen_header) {
    for (int k = 0; k < N_FIELDS; k++)
      if (strcmp(f[k], header[k]) != 0)
        return scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno,
                              "header field %d must be '%s'", k + 1, header[k]), -1;
    *seen_header = true;
    return 0;
  }
  if (*n >= cap)
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, lineno, "more than %d rows", cap), -1;
  const char *why = parse_row(f, &rows[*n]);
  if (why) return scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno, "%s", why), -1;
  for (int k = 0; k < *n; k++)
    if (same_key(&rows[k], &rows[*n]))
      return scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno,
                            "%s %s %s repeats line's row %d", rows[k].chip, rows[k].provider,
                            scale_offer_name(rows[k].offer), k + 1), -1;
  (*n)++;
  return 0;
}

int scale_prices_read(const char *path, scale_price *rows, int cap, scale_diag *diag) {
  char fallback[4096];
  if (!path) {
    snprintf(fallback, sizeof fallback, "%s/hardware/prices.tsv", scale_data_dir());
    path = fallback;
  }
  char *text;
  if (!rows || cap < 0 || scale_file_read(path, &text, NULL, diag)) {
    if (!rows || cap < 0) scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "prices: bad argument");
    return -1;
  }
  int n = 0, lineno = 0, rc = 0;
  bool seen_header = false;
  for (char *line = text, *next; line && rc == 0; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    lineno++;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r') line[--len] = '\0';
    if (len == 0 || line[0] == '#') continue;
    rc = take_line(line, path, lineno, &seen_header, rows, &n, cap, diag);
  }
  free(text);
  if (rc == 0 && !seen_header) {
    scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno, "no header line");
    rc = -1;
  }
  return rc ? -1 : n;
}

const scale_price *scale_price_find(const scale_price *rows, int n, const char *chip,
                                    const char *name, char *why, size_t size) {
  char buf[64];
  if (!rows || !chip || !name || strlen(name) >= sizeof buf) {
    if (why) snprintf(why, size, "a price name is PROVIDER:OFFER");
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", name);
  char *offer = strchr(buf, ':');
  if (offer) *offer++ = '\0';
  const scale_price *hit = NULL;
  int hits = 0, of_chip = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(rows[i].chip, chip) != 0) continue;
    of_chip++;
    if (strcmp(rows[i].provider, buf) != 0) continue;
    if (offer && strcmp(scale_offer_name(rows[i].offer), offer) != 0) continue;
    hit = &rows[i];
    hits++;
  }
  if (hits == 1) return hit;
  if (why) {
    if (hits > 1)
      snprintf(why, size, "%s sells %s in %d offers: name one (%s:OFFER)", buf, chip, hits, buf);
    else if (of_chip == 0)
      snprintf(why, size, "no price for %s in the prices table", chip);
    else
      snprintf(why, size, "no price '%s' for %s in the prices table (scale hw prices %s)", name,
               chip, chip);
  }
  return NULL;
}
