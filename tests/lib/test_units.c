/* test_units.c — dtype sizes, the display formatter and the command-line number parser. */
#include <math.h>
#include <string.h>

#include "scale.h"
#include "scale_check.h"

START_TEST(dtype_bytes) {
  /* Book ch. 1: bf16 = 2 bytes, int8 = 1 byte, fp32 = 4 bytes; ch. 7: int4 = half a byte. */
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_FP32), 4.0, 0, "B", "IEEE 754 binary32");
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_BF16), 2.0, 0, "B", "ch.1");
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_FP16), 2.0, 0, "B", "IEEE binary16");
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_FP8), 1.0, 0, "B", "e4m3/e5m2");
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_INT8), 1.0, 0, "B", "ch.1");
  scale_check_rel(scale_dtype_bytes(SCALE_DTYPE_INT4), 0.5, 0, "B", "ch.7");
  scale_check_nan(scale_dtype_bytes(SCALE_DTYPE_COUNT));
  scale_check_nan(scale_dtype_bytes((scale_dtype)-1));
}
END_TEST

START_TEST(dtype_parse) {
  scale_dtype d = SCALE_DTYPE_FP32;
  ck_assert_int_eq(scale_dtype_parse("bf16", &d), SCALE_OK);
  ck_assert_int_eq(d, SCALE_DTYPE_BF16);
  ck_assert_int_eq(scale_dtype_parse("INT8", &d), SCALE_OK);
  ck_assert_int_eq(d, SCALE_DTYPE_INT8);
  ck_assert_int_eq(scale_dtype_parse("e4m3", &d), SCALE_OK);
  ck_assert_int_eq(d, SCALE_DTYPE_FP8);
  ck_assert_int_eq(scale_dtype_parse("int3", &d), SCALE_ERR_INVALID);
  ck_assert_int_eq(d, SCALE_DTYPE_FP8); /* untouched on error */
  ck_assert_int_eq(scale_dtype_parse("", &d), SCALE_ERR_INVALID);
  ck_assert_str_eq(scale_dtype_name(SCALE_DTYPE_INT4), "int4");
}
END_TEST

/* Formats v and compares with the expected text. */
static void expect_fmt(double v, const char *unit, scale_fmt style, const char *expected) {
  char buf[64];
  scale_format(buf, sizeof buf, v, unit, style);
  ck_assert_msg(strcmp(buf, expected) == 0, "format(%.17g, %s, %d) = '%s', expected '%s'", v,
                unit ? unit : "", (int)style, buf, expected);
}

START_TEST(format_si) {
  expect_fmt(1.97e14, "FLOP/s", SCALE_FMT_SI, "197 TFLOP/s"); /* v5e bf16 peak, ch.2 */
  expect_fmt(8.2e11, "B/s", SCALE_FMT_SI, "820 GB/s");
  expect_fmt(4.5e-5, "s", SCALE_FMT_SI, "45 µs");
  expect_fmt(1.0, "s", SCALE_FMT_SI, "1 s");
  expect_fmt(999.7e3, "B", SCALE_FMT_SI, "1 MB");  /* rounds up into the next prefix */
  expect_fmt(123456.0, "B", SCALE_FMT_SI, "123 kB");
  expect_fmt(-2.5e9, "B", SCALE_FMT_SI, "-2.5 GB");
  expect_fmt(0.0, "B", SCALE_FMT_SI, "0 B");
}
END_TEST

START_TEST(format_sci_plain) {
  expect_fmt(1.97e14, "FLOP/s", SCALE_FMT_SCI, "1.97e14 FLOP/s");
  expect_fmt(240.0, "FLOP/byte", SCALE_FMT_SCI, "240 FLOP/byte");
  expect_fmt(4.6e-5, "s", SCALE_FMT_SCI, "4.6e-5 s");
  expect_fmt(9.999e14, "", SCALE_FMT_SCI, "1e15");
  expect_fmt(240.0, "FLOP/byte", SCALE_FMT_PLAIN, "240 FLOP/byte");
  expect_fmt(71360.0, "", SCALE_FMT_PLAIN, "71360"); /* integers keep their digits */
  expect_fmt(2.5, "", SCALE_FMT_PLAIN, "2.5");
  expect_fmt(0.0123456, "", SCALE_FMT_PLAIN, "0.0123");
  expect_fmt(6.3e24, "FLOPs", SCALE_FMT_PLAIN, "6.3e24 FLOPs");
}
END_TEST

START_TEST(format_time) {
  expect_fmt(44.1 * 86400.0, NULL, SCALE_FMT_TIME, "44.1 days");
  expect_fmt(3.2e-3, NULL, SCALE_FMT_TIME, "3.2 ms");
  expect_fmt(750.0, NULL, SCALE_FMT_TIME, "12.5 min");
  expect_fmt(5.0 * 3600.0, NULL, SCALE_FMT_TIME, "5 h");
  expect_fmt(2.0 * SCALE_SECONDS_PER_YEAR, NULL, SCALE_FMT_TIME, "2 years");
}
END_TEST

START_TEST(format_iec_and_special) {
  expect_fmt(80.0 * SCALE_GIBI, "B", SCALE_FMT_IEC, "80 GiB");
  expect_fmt(128.0 * SCALE_MEBI, "B", SCALE_FMT_IEC, "128 MiB");
  expect_fmt((double)NAN, "s", SCALE_FMT_SI, "n/a");
  expect_fmt((double)INFINITY, "s", SCALE_FMT_SI, "inf");
  char tiny[4];
  scale_format(tiny, sizeof tiny, 1.97e14, "FLOP/s", SCALE_FMT_SI);
  ck_assert_uint_eq(strlen(tiny), 3); /* truncated, still terminated */
}
END_TEST

START_TEST(format_money_percent) {
  /* Issue 17: one money format, three significant digits with their trailing zeros, groups of
   * three digits named k, M, B, T ($1.65e7 is 16.5 million dollars). */
  expect_fmt(1.65e7, NULL, SCALE_FMT_USD, "$16.5 M");
  expect_fmt(2400.0, "", SCALE_FMT_USD, "$2.40 k");
  expect_fmt(1.234e9, NULL, SCALE_FMT_USD, "$1.23 B");
  expect_fmt(7.5e12, NULL, SCALE_FMT_USD, "$7.50 T");
  expect_fmt(999.7e3, NULL, SCALE_FMT_USD, "$1.00 M"); /* rounds up into the next group */
  expect_fmt(4.2, "USD/h", SCALE_FMT_USD, "$4.20/h"); /* v5p's price per chip-hour */
  expect_fmt(1.44, "USD", SCALE_FMT_USD, "$1.44");
  expect_fmt(0.5, "per token", SCALE_FMT_USD, "$0.500 per token");
  expect_fmt(0.389, NULL, SCALE_FMT_USD, "$0.389");
  expect_fmt(0.015, NULL, SCALE_FMT_USD, "$0.0150");
  expect_fmt(250.0, NULL, SCALE_FMT_USD, "$250");
  expect_fmt(-3.1e6, NULL, SCALE_FMT_USD, "-$3.10 M");
  expect_fmt(0.0, NULL, SCALE_FMT_USD, "$0");
  expect_fmt(1.5e-5, NULL, SCALE_FMT_USD, "$1.5e-5");
  expect_fmt(2e18, NULL, SCALE_FMT_USD, "$2e18");
  expect_fmt((double)NAN, NULL, SCALE_FMT_USD, "n/a");
  /* A fraction of peak as a percentage: MFU 0.205 is 20.5%; "%" takes no space anywhere. */
  expect_fmt(0.205, NULL, SCALE_FMT_PERCENT, "20.5%");
  expect_fmt(1.0, NULL, SCALE_FMT_PERCENT, "100%");
  expect_fmt(0.00128, NULL, SCALE_FMT_PERCENT, "0.128%");
  expect_fmt(0.0, NULL, SCALE_FMT_PERCENT, "0%");
  expect_fmt(250.0, NULL, SCALE_FMT_PERCENT, "2.5e4%");
  expect_fmt(40.0, "%", SCALE_FMT_PLAIN, "40%");
}
END_TEST

/* Parses text, expecting success and a value. */
static void expect_num(const char *text, unsigned flags, double expected) {
  double v = -1;
  scale_diag diag;
  scale_status st = scale_parse_number(text, flags, &v, &diag);
  ck_assert_msg(st == SCALE_OK, "parse('%s') failed: %s", text, diag.message);
  scale_check_rel(v, expected, 1e-15, "", text);
}

static void expect_bad(const char *text, unsigned flags, scale_status expected) {
  double v = 42;
  scale_diag diag = {{0}, 0, {0}};
  scale_status st = scale_parse_number(text, flags, &v, &diag);
  ck_assert_msg(st == expected, "parse('%s') gave %s, expected %s", text, scale_status_str(st),
                scale_status_str(expected));
  ck_assert_msg(v == 42, "parse('%s') wrote the output on failure", text);
  ck_assert_msg(diag.message[0] && !strchr(diag.message, '\n'), "one-line message for '%s'",
                text);
}

START_TEST(parse_numbers) {
  expect_num("4M", 0, 4e6);
  expect_num("15e12", 0, 15e12);
  expect_num("2.8T", 0, 2.8e12);
  expect_num("96G", 0, 96e9);
  expect_num("16Ki", 0, 16384.0);
  expect_num("1Gi", 0, 1073741824.0);
  expect_num("0.5", 0, 0.5);
  expect_num("-3", 0, -3.0);
  expect_num("1k", SCALE_NUM_INTEGER | SCALE_NUM_POSITIVE, 1000.0);
  expect_num("1.5k", SCALE_NUM_INTEGER, 1500.0); /* whole after the suffix */
}
END_TEST

START_TEST(parse_rejects) {
  expect_bad("", 0, SCALE_ERR_PARSE);
  expect_bad("4MB", 0, SCALE_ERR_PARSE);
  expect_bad("12x", 0, SCALE_ERR_PARSE);
  expect_bad("4 M", 0, SCALE_ERR_PARSE);
  expect_bad("inf", 0, SCALE_ERR_PARSE);
  expect_bad("nan", 0, SCALE_ERR_PARSE);
  expect_bad("0x10", 0, SCALE_ERR_PARSE);
  expect_bad("1e", 0, SCALE_ERR_PARSE);
  expect_bad("4m", 0, SCALE_ERR_PARSE); /* milli is never meant on a command line */
  expect_bad("1e400", 0, SCALE_ERR_RANGE);
  expect_bad("-1", SCALE_NUM_NONNEG, SCALE_ERR_RANGE);
  expect_bad("0", SCALE_NUM_POSITIVE, SCALE_ERR_RANGE);
  expect_bad("2.5", SCALE_NUM_INTEGER, SCALE_ERR_RANGE);
}
END_TEST

/* Found by fuzz/fuzz_units.c (fuzz/regressions/units/subnormal-format): 10^e underflowed to 0
 * for a subnormal value and the formatter converted inf to int. Subnormals print like any
 * small number, in every style. */
START_TEST(format_subnormal) {
  expect_fmt(5e-324, "", SCALE_FMT_SCI, "4.94e-324");
  expect_fmt(-2.5e-310, "B", SCALE_FMT_PLAIN, "-2.5e-310 B");
  expect_fmt(1e-320, "s", SCALE_FMT_SI, "1e-320 s");
  expect_fmt(1e-320, "", SCALE_FMT_TIME, "1e-320 s");
  expect_fmt(1e-320, "B", SCALE_FMT_IEC, "1e-320 B");
}
END_TEST

/* Issue 13: a diagnostic is one line whatever the text it quotes holds. */
START_TEST(parse_diag_one_line) {
  double v = 0;
  scale_diag diag;
  ck_assert_int_eq(scale_parse_number("4\nM", 0, &v, &diag), SCALE_ERR_PARSE);
  ck_assert_str_eq(diag.message, "'4\\nM': unexpected '\\nM' (suffixes: k M G T P E, Ki Mi Gi Ti Pi)");
  ck_assert_int_eq(scale_parse_number("\x1b[2J", 0, &v, &diag), SCALE_ERR_PARSE);
  ck_assert_str_eq(diag.message, "'\\x1b[2J' is not a number");
  ck_assert_int_eq(scale_parse_number("-1\t", SCALE_NUM_NONNEG, &v, &diag), SCALE_ERR_PARSE);
  ck_assert_ptr_null(strchr(diag.message, '\t'));
}
END_TEST

START_TEST(escape) {
  char buf[32];
  ck_assert_str_eq(scale_escape(buf, sizeof buf, "a\nb\tc\rd\x7f\x01", 80), "a\\nb\\tc\\rd\\x7f\\x01");
  ck_assert_str_eq(scale_escape(buf, sizeof buf, "abcdef", 3), "abc...");
  ck_assert_str_eq(scale_escape(buf, sizeof buf, NULL, 3), "");
  ck_assert_str_eq(scale_escape(buf, 8, "abcdefghijkl", 80), "abcd...");
  ck_assert_str_eq(scale_escape(buf, 3, "abcdefghijkl", 80), "ab");
  ck_assert_str_eq(scale_escape(buf, 1, "abc", 80), "");
  ck_assert_str_eq(scale_escape(buf, sizeof buf, "UTF-8 \xc2\xb5s", 80), "UTF-8 \xc2\xb5s");
  /* XML: the five characters with entities, the rest (UTF-8 bytes too) as themselves. */
  ck_assert_str_eq(scale_xml_entity('&'), "&amp;");
  ck_assert_str_eq(scale_xml_entity('<'), "&lt;");
  ck_assert_str_eq(scale_xml_entity('>'), "&gt;");
  ck_assert_str_eq(scale_xml_entity('"'), "&quot;");
  ck_assert_str_eq(scale_xml_entity('\''), "&#39;");
  ck_assert_ptr_null(scale_xml_entity('a'));
  ck_assert_ptr_null(scale_xml_entity('\xc2'));
}
END_TEST

static Suite *units_suite(void) {
  Suite *s = suite_create("units");
  const scale_check_case cases[] = {{"dtype_bytes", dtype_bytes},   {"dtype_parse", dtype_parse},
               {"format_si", format_si},       {"format_sci_plain", format_sci_plain},
               {"format_time", format_time},   {"format_iec_and_special", format_iec_and_special},
               {"parse_numbers", parse_numbers}, {"parse_rejects", parse_rejects},
               {"format_subnormal", format_subnormal}, {"parse_diag_one_line", parse_diag_one_line},
               {"escape", escape}, {"format_money_percent", format_money_percent}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(units_suite()); }
