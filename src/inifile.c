/* inifile.c — strict, schema-driven reading of hardware/ and models/ files on top of inih.
 *
 * inih does the INI syntax; this file adds what a data file of ours must guarantee: every
 * key known, none twice, every value a finite number in base units, the line of every fault.
 * inih's handler gets no line number in Debian's build, so a custom line reader counts lines
 * (and rejects binary bytes and over-long lines, which inih would silently split).
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/units.h"

typedef struct {
  FILE *fp;
  const ini_field *fields;
  int n_fields;
  ini_file *file;
  int line;            /* line last handed to inih */
  scale_status status; /* first fault found by the reader or the handler */
  int fault_line;
  char fault[320];
  int seen[INI_MAX_ENTRIES]; /* per field: line of its entry, 0 if none (n_fields <= this) */
} reader_ctx;

static void fault(reader_ctx *ctx, scale_status status, const char *message) {
  if (ctx->status != SCALE_OK) return;
  ctx->status = status;
  ctx->fault_line = ctx->line;
  snprintf(ctx->fault, sizeof ctx->fault, "%s", message);
}

/* One line for inih, like fgets, counting lines and refusing binary or over-long lines. */
static char *read_line(char *str, int num, void *stream) {
  reader_ctx *ctx = stream;
  if (ctx->status != SCALE_OK) return NULL;
  int n = 0, c = EOF;
  while ((c = getc(ctx->fp)) != EOF) {
    if (c == '\n') break;
    if (c == 0 || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      ctx->line++;
      fault(ctx, SCALE_ERR_PARSE, "binary data (control byte) in a text file");
      return NULL;
    }
    if (n >= num - 2) {
      ctx->line++;
      char message[96];
      snprintf(message, sizeof message, "line longer than %d characters", num - 2);
      fault(ctx, SCALE_ERR_PARSE, message);
      return NULL;
    }
    str[n++] = (char)c;
  }
  if (c == EOF && n == 0) return NULL;
  ctx->line++;
  str[n++] = '\n';
  str[n] = '\0';
  return str;
}

static bool section_known(const reader_ctx *ctx, const char *section) {
  for (int i = 0; i < ctx->n_fields; i++)
    if (strcmp(ctx->fields[i].section, section) == 0) return true;
  return false;
}

static int handle(void *user, const char *section, const char *name, const char *value) {
  reader_ctx *ctx = user;
  char message[320];
  int field = ini_field_index(ctx->fields, ctx->n_fields, section, name);
  if (field < 0) {
    /* Quoted names with their control characters escaped: the message stays one line. */
    char qname[100], qsection[100];
    scale_escape(qname, sizeof qname, name, 60);
    scale_escape(qsection, sizeof qsection, section, 60);
    if (!section[0])
      snprintf(message, sizeof message, "key '%s' outside any [section]", qname);
    else if (!section_known(ctx, section))
      snprintf(message, sizeof message, "unknown section [%s]", qsection);
    else
      snprintf(message, sizeof message, "unknown key '%s' in [%s]", qname, qsection);
    fault(ctx, SCALE_ERR_UNKNOWN_KEY, message);
    return 0;
  }
  if (ctx->seen[field]) {
    snprintf(message, sizeof message,
             "duplicate key '%.60s' in [%.60s] (first set on line %d; indented lines continue "
             "the previous value)",
             name, section, ctx->seen[field]);
    fault(ctx, SCALE_ERR_DUPLICATE_KEY, message);
    return 0;
  }
  ini_file *file = ctx->file;
  if (file->n_entries >= INI_MAX_ENTRIES) {
    fault(ctx, SCALE_ERR_PARSE, "too many keys");
    return 0;
  }
  ctx->seen[field] = ctx->line;
  ini_entry *entry = &file->entries[file->n_entries++];
  entry->field = field;
  entry->line = ctx->line;
  snprintf(entry->value, sizeof entry->value, "%s", value);
  return 1;
}

scale_status ini_read(const char *path, const ini_field *fields, int n_fields, ini_file *file,
                      scale_diag *diag) {
  memset(file, 0, sizeof *file);
  snprintf(file->path, sizeof file->path, "%s", path);
  if (n_fields > INI_MAX_ENTRIES)
    return scale_diag_set(diag, SCALE_ERR_INVALID, path, 0, "schema too large");
  FILE *fp = fopen(path, "rb");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
  reader_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    fclose(fp);
    return scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "out of memory");
  }
  ctx->fp = fp;
  ctx->fields = fields;
  ctx->n_fields = n_fields;
  ctx->file = file;
  int rc = ini_parse_stream(read_line, ctx, handle, ctx);
  bool read_error = ferror(fp) != 0;
  fclose(fp);
  scale_status st = SCALE_OK;
  if (read_error) {
    st = scale_diag_set(diag, SCALE_ERR_IO, path, 0, "read error");
  } else if (ctx->status != SCALE_OK && (rc <= 0 || rc >= ctx->fault_line)) {
    st = scale_diag_set(diag, ctx->status, path, ctx->fault_line, "%s", ctx->fault);
  } else if (rc > 0) {
    st = scale_diag_set(diag, SCALE_ERR_PARSE, path, rc, "expected 'key = value' or '[section]'");
  } else if (rc < 0) {
    st = scale_diag_set(diag, SCALE_ERR_NOMEM, path, 0, "inih failed (%d)", rc);
  } else if (file->n_entries == 0) {
    st = scale_diag_set(diag, SCALE_ERR_PARSE, path, 0, "empty file: no keys");
  }
  free(ctx);
  return st;
}

bool scale_strict_number(const char *text, double *out) {
  while (isspace((unsigned char)*text))
    text++;
  /* Only decimal digits, sign, point and exponent: no hex, inf, nan. */
  for (const char *p = text; *p; p++)
    if (!strchr("0123456789+-.eE", *p) && !isspace((unsigned char)*p)) return false;
  if (!*text) return false;
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (end == text) return false;
  while (isspace((unsigned char)*end))
    end++;
  if (*end) return false;
  if (errno == ERANGE || !isfinite(value)) {
    *out = HUGE_VAL; /* callers report range */
    return true;
  }
  *out = value;
  return true;
}

/* A bound as people write it in the files: "1e16", "65536", "1e-10" (no "e+16"). */
static void format_bound(char *buf, size_t size, double value) {
  char raw[32];
  snprintf(raw, sizeof raw, "%g", value);
  size_t n = 0;
  for (const char *p = raw; *p && n + 1 < size; p++) {
    if (*p == '+' || (*p == '0' && p - raw >= 2 && (p[-1] == '+' || p[-1] == '-') && p[-2] == 'e'))
      continue; /* drop the '+' and a leading 0 of the exponent */
    buf[n++] = *p;
  }
  buf[n] = '\0';
}

/* Refuses 'value' outside [lo, hi], or a fraction in a count, naming the key and its range. */
static scale_status check_range(const ini_file *file, const ini_entry *entry,
                                const ini_field *field, double value, scale_diag *diag) {
  bool whole = field->kind == INI_WHOLE || field->kind == INI_COUNT;
  if (!(field->hi > field->lo)) /* a schema entry written without its range: refuse loudly */
    return scale_diag_set(diag, SCALE_ERR_INVALID, file->path, entry->line,
                          "schema error: '%s' has no range", field->key);
  if (value >= field->lo && value <= field->hi && (!whole || value == floor(value)))
    return SCALE_OK;
  char lo[32], hi[32];
  format_bound(lo, sizeof lo, field->lo);
  format_bound(hi, sizeof hi, field->hi);
  return scale_diag_set(diag, SCALE_ERR_RANGE, file->path, entry->line,
                        "%s must be %sin [%s, %s], got %.60s", field->key,
                        whole ? "a whole number " : "", lo, hi, entry->value);
}

static scale_status apply_one(const ini_file *file, const ini_entry *entry, const ini_field *field,
                              void *record, scale_diag *diag) {
  char *dst = (char *)record + field->offset;
  const char *path = file->path;
  if (field->kind == INI_CUSTOM) return SCALE_OK;
  if (field->kind == INI_STRING) {
    if (strlen(entry->value) >= 64 || !entry->value[0])
      return scale_diag_set(diag, SCALE_ERR_PARSE, path, entry->line,
                            "'%s' must be 1 to 63 characters", field->key);
    memcpy(dst, entry->value, strlen(entry->value) + 1);
    return SCALE_OK;
  }
  double value = 0;
  char quoted[256];
  scale_escape(quoted, sizeof quoted, entry->value, 60);
  if (!scale_strict_number(entry->value, &value))
    return scale_diag_set(diag, SCALE_ERR_PARSE, path, entry->line,
                          "'%s': '%s' is not a plain number in base units", field->key, quoted);
  if (value == HUGE_VAL)
    return scale_diag_set(diag, SCALE_ERR_RANGE, path, entry->line, "'%s': '%s' is out of range",
                          field->key, quoted);
  if (field->kind == INI_BOOL) {
    if (value != 0 && value != 1)
      return scale_diag_set(diag, SCALE_ERR_RANGE, path, entry->line, "'%s' must be 0 or 1",
                            field->key);
    bool flag = value == 1;
    memcpy(dst, &flag, sizeof flag);
    return SCALE_OK;
  }
  scale_status st = check_range(file, entry, field, value, diag);
  if (st) return st;
  if (field->kind == INI_COUNT) {
    int64_t count = (int64_t)value; /* exact: ranges stay far below 2^53 */
    memcpy(dst, &count, sizeof count);
  } else {
    memcpy(dst, &value, sizeof value);
  }
  return SCALE_OK;
}

scale_status ini_apply(const ini_file *file, const ini_field *fields, void *record,
                       scale_diag *diag) {
  for (int i = 0; i < file->n_entries; i++) {
    const ini_entry *entry = &file->entries[i];
    scale_status st = apply_one(file, entry, &fields[entry->field], record, diag);
    if (st) return st;
  }
  return SCALE_OK;
}

int ini_field_index(const ini_field *fields, int n_fields, const char *section, const char *key) {
  for (int i = 0; i < n_fields; i++)
    if (strcmp(fields[i].section, section) == 0 && strcmp(fields[i].key, key) == 0) return i;
  return -1;
}

int ini_find_key(const ini_file *file, const ini_field *fields, int n_fields, const char *section,
                 const char *key) {
  int field = ini_field_index(fields, n_fields, section, key);
  return field < 0 ? -1 : ini_find(file, field);
}

int ini_find(const ini_file *file, int field) {
  for (int i = 0; i < file->n_entries; i++)
    if (file->entries[i].field == field) return i;
  return -1;
}

scale_status ini_check_required(const ini_file *file, const ini_field *fields, int n_fields,
                                scale_diag *diag) {
  for (int i = 0; i < n_fields; i++)
    if (fields[i].required && ini_find(file, i) < 0)
      return scale_diag_set(diag, SCALE_ERR_MISSING_KEY, file->path, 0,
                            "missing required key '%s' in [%s]", fields[i].key, fields[i].section);
  return SCALE_OK;
}
