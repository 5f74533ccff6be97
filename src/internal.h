/* internal.h — internals shared by libscale's sources; never installed, never included by
 * programs. */
#ifndef SCALE_INTERNAL_H
#define SCALE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "scale/status.h"

/* ---- arithmetic ------------------------------------------------------------------------------ */

/** Whether fmod(a, b) == 0, the same answer always, without fmod when a and b are integers
 * below 2^52 and b >= 1 (the degrees and shapes of a layout: an integer remainder is exact,
 * and much cheaper than libm's fmod on the planner's hot path). */
static inline bool scale_fmod_zero(double a, double b) {
  if (b >= 1.0 && b < 0x1p52 && a > -0x1p52 && a < 0x1p52) {
    long long ia = (long long)a, ib = (long long)b;
    if ((double)ia == a && (double)ib == b) return ia % ib == 0;
  }
  return fmod(a, b) == 0.0;
}

/* ---- strict INI loading (inih underneath) --------------------------------------------------- */

/** How a field's text is stored into the record. */
typedef enum {
  INI_DOUBLE, /**< a quantity in [lo, hi] into a double (base units) */
  INI_WHOLE,  /**< a whole number in [lo, hi] into a double (hardware counts) */
  INI_COUNT,  /**< a whole number in [lo, hi] into an int64_t (model counts) */
  INI_BOOL,   /**< 0 or 1 into a bool */
  INI_STRING,  /**< text (<= 63 bytes) into a char[64] */
  INI_CUSTOM   /**< checked for presence only; the caller converts it (enums) */
} ini_kind;

/** One key of a schema: where its value goes in the record, and the range a number must lie
 * in. The ranges are physical (a pod axis of 0.5 chips, an HBM of 1e-300 B/s break the model
 * downstream), so they are refused here, with the line, rather than as NaN or inf later. */
typedef struct {
  const char *section; /**< "chip" */
  const char *key;     /**< "hbm_bytes" */
  ini_kind kind;
  size_t offset; /**< offsetof(record, field) */
  bool required;
  double lo, hi; /**< inclusive range of a number (unused for bool, string, custom) */
} ini_field;

/** A key = value line, as read. */
typedef struct {
  int field; /**< index into the schema */
  int line;  /**< 1-based line */
  char value[200];
} ini_entry;

#define INI_MAX_ENTRIES 160

/** A parsed file: every entry validated against the schema, not yet applied. */
typedef struct {
  char path[256];
  int n_entries;
  ini_entry entries[INI_MAX_ENTRIES];
} ini_file;

/** Reads 'path' strictly against 'fields' into *file: unknown section or key, duplicate key,
 * a line that is not `key = value` or `[section]`, binary bytes, a line over 199 characters,
 * an empty file are errors with file and line. Values are not converted yet.
 */
scale_status ini_read(const char *path, const ini_field *fields, int n_fields, ini_file *file,
                      scale_diag *diag);

/** Converts and stores every entry of 'file' into 'record' (malformed numbers, numbers outside
 * the field's [lo, hi] and fractions in a count are errors with the entry's line, naming the
 * key and its range: "pod_x must be a whole number in [1, 65536], got 0.5"). */
scale_status ini_apply(const ini_file *file, const ini_field *fields, void *record,
                       scale_diag *diag);

/** Index in 'fields' of the key [section] key, or -1 when the schema has no such key. */
int ini_field_index(const ini_field *fields, int n_fields, const char *section, const char *key);

/** Index of the file's entry for [section] key, or -1 when the file does not set it. */
int ini_find_key(const ini_file *file, const ini_field *fields, int n_fields, const char *section,
                 const char *key);

/** Index of the entry for schema field 'field', or -1 when the file does not set it. */
int ini_find(const ini_file *file, int field);

/** Fails with SCALE_ERR_MISSING_KEY (line 0) for the first required field the file lacks. */
scale_status ini_check_required(const ini_file *file, const ini_field *fields, int n_fields,
                                scale_diag *diag);

/** Parses a whole decimal number (no suffix, finite, no junk). */
bool scale_strict_number(const char *text, double *out);

/* ---- constants of the step model shared by step.c and hybrid.c ------------------------------ */

/** Adam's HBM traffic per parameter: fp32 master, m, v read and written (24), the fp32
 * gradient read (4), the 16-bit weight written (2) [bytes]. */
#define ADAM_BYTES_PER_PARAM 30.0

/** Megatron DDP's gradient bucket: 40M 16-bit gradients [bytes]. */
#define GRAD_BUCKET_BYTES 8e7

#endif
