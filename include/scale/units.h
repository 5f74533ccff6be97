/* units.h — SI constants, element sizes of dtypes, display formatting and number parsing.
 *
 * Book: every chapter; "bf16 = 2 bytes", "int8 = 1 byte" (ch. 1), int4 = half a byte (ch. 7).
 * Everything in libscale is in SI base units; scaled units ("TFLOP/s", "GiB", "ms") exist only
 * in text produced by the formatters below and accepted by scale_parse_number().
 */
#ifndef SCALE_UNITS_H
#define SCALE_UNITS_H

#include <stddef.h>

#include "scale/status.h"

/* ---- SI and IEC multipliers ---------------------------------------------------------------- */
#define SCALE_KILO 1e3
#define SCALE_MEGA 1e6
#define SCALE_GIGA 1e9
#define SCALE_TERA 1e12
#define SCALE_PETA 1e15
#define SCALE_KIBI 1024.0
#define SCALE_MEBI 1048576.0
#define SCALE_GIBI 1073741824.0
#define SCALE_TEBI 1099511627776.0
#define SCALE_SECONDS_PER_HOUR 3600.0
#define SCALE_SECONDS_PER_DAY 86400.0
#define SCALE_SECONDS_PER_YEAR (365.25 * 86400.0) /**< Julian year */

/* ---- dtypes --------------------------------------------------------------------------------- */

/** Numeric formats of weights, activations, KV caches and matmul compute. */
typedef enum {
  SCALE_DTYPE_FP32 = 0,
  SCALE_DTYPE_BF16,
  SCALE_DTYPE_FP16,
  SCALE_DTYPE_FP8,
  SCALE_DTYPE_INT8,
  SCALE_DTYPE_INT4,
  SCALE_DTYPE_FP4, /**< NVFP4: e2m1 values, one e4m3 scale per 16 (4.5 bits each) */
  SCALE_DTYPE_COUNT
} scale_dtype;

/** Bytes per element of 'dtype' (fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5, fp4 0.5625: NVFP4
 * stores a one-byte scale per 16 four-bit values, (16 x 0.5 + 1) / 16; the per-tensor fp32
 * scale is negligible).
 *
 * Units:  -> [bytes/element].
 * Domain: a valid scale_dtype; NaN otherwise.
 */
double scale_dtype_bytes(scale_dtype dtype);

/** Short lowercase name of 'dtype' ("bf16"); "?" for an invalid value. Static storage. */
const char *scale_dtype_name(scale_dtype dtype);

/** Parses a dtype name: fp32|f32|float32, bf16|bfloat16, fp16|f16|float16, fp8|e4m3|e5m2,
 * int8|i8, int4|i4, fp4|nvfp4 (case-insensitive).
 *
 * Errors: SCALE_ERR_INVALID for anything else; *out untouched.
 */
scale_status scale_dtype_parse(const char *text, scale_dtype *out);

/* ---- display -------------------------------------------------------------------------------- */

/** Styles of scale_format(). All print three significant digits. */
typedef enum {
  SCALE_FMT_SI,    /**< SI prefix: 1.97e14 "FLOP/s" -> "197 TFLOP/s"; 4.5e-5 "s" -> "45 us"  */
  SCALE_FMT_SCI,   /**< exponent: "1.97e14 FLOP/s"; plain digits when 0.01 <= |v| < 1000       */
  SCALE_FMT_PLAIN, /**< "240 FLOP/byte"; integers up to 1e7 keep every digit ("71360"),     */
                   /**< beyond that falls back to SCALE_FMT_SCI                             */
  SCALE_FMT_TIME,  /**< seconds in the most readable unit: "3.2 ms", "12.5 min", "44.1 days"   */
  SCALE_FMT_IEC,   /**< binary prefixes for bytes: 8.6e10 "B" -> "80 GiB"                      */
  SCALE_FMT_USD,   /**< money, dollars: 1.65e7 -> "$16.5 M", 2400 -> "$2.40 k", 1.23e9 ->     */
                   /**< "$1.23 B", 0.389 -> "$0.389"; unit "USD" (or none) adds nothing,  */
                   /**< "USD/h" -> "$4.20/h", another unit follows after a space           */
  SCALE_FMT_PERCENT /**< a fraction as a percentage: 0.205 -> "20.5%", 1 -> "100%"           */
} scale_fmt;

/** One named quantity of a table a library function fills for a chapter to emit or a command
 * to print (the chip's summary in gpu.h, the serving tables in inference.h). */
typedef struct {
  char key[48];      /**< short name, unique in its table ("flops16", "r50.tput") */
  const char *label; /**< what it is, in a few words ("16-bit matmul peak") */
  double value;      /**< in SI base units of 'unit'; NaN where it does not apply */
  const char *unit;  /**< "FLOP/s", "B", "s", "" ... as scale_format() takes it */
  scale_fmt style;   /**< how it displays (scale_format) */
} scale_quantity;

/** Writes 'value' with 'unit' (may be "" or NULL) in 'style' into buf; unit is ignored by
 * SCALE_FMT_TIME and SCALE_FMT_PERCENT, and "%" follows its number without a space ("40%").
 * Money keeps its trailing zeros (three significant digits: "$2.40 k"); thousands, millions,
 * billions and trillions of dollars are k, M, B, T. NaN prints as "n/a", infinities as "inf"; callers that print answers must
 * check isfinite() first (DESIGN.md: no NaN is ever printed as an answer).
 *
 * Returns: buf, always NUL-terminated when size > 0 (truncated if too small).
 */
char *scale_format(char *buf, size_t size, double value, const char *unit, scale_fmt style);

/** Writes at most 'max_chars' characters of 'text' into buf for quoting in a one-line message:
 * newline, tab and carriage return as \n \t \r, other control bytes (< 0x20, 0x7f) as
 * \xHH, the rest as is; "..." marks text cut short (by max_chars or by the buffer, when it
 * has room for more than three characters). NULL text is written as "".
 *
 * Returns: buf, always NUL-terminated when size > 0.
 */
char *scale_escape(char *buf, size_t size, const char *text, size_t max_chars);

/** The XML entity that stands for 'c' in SVG and HTML text and attributes ("&amp;", "&lt;",
 * "&gt;", "&quot;", "&#39;"), or NULL for a character written as itself: the one rule plot.h
 * and diagram.h escape by. */
const char *scale_xml_entity(char c);

/* ---- parsing -------------------------------------------------------------------------------- */

/** Flags of scale_parse_number(); combine with |. */
enum {
  SCALE_NUM_NONNEG = 1u << 0,   /**< reject values < 0 */
  SCALE_NUM_POSITIVE = 1u << 1, /**< reject values <= 0 */
  SCALE_NUM_INTEGER = 1u << 2   /**< reject values with a fractional part (after the suffix) */
};

/** Parses a command-line number: a decimal with optional exponent ("15e12", "0.5"), then an
 * optional SI suffix k|K M G T P E (x1e3 ... x1e18) or IEC suffix Ki Mi Gi Ti Pi (x1024^n),
 * then nothing. "4M" = 4e6, "2.8T" = 2.8e12, "96G" = 9.6e10, "16Ki" = 16384.
 *
 * Errors: SCALE_ERR_PARSE for empty text, trailing junk, hex, inf or nan;
 *         SCALE_ERR_RANGE for a result that overflows or violates 'flags'.
 *         'diag' (may be NULL) gets a one-line message quoting the text (scale_escape()).
 */
scale_status scale_parse_number(const char *text, unsigned flags, double *out, scale_diag *diag);

#endif
