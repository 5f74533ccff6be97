/* test_prices.c — the prices table (prices.h): the shipped file reads and agrees with the
 * hardware files, the reader refuses bad rows by file:line, names resolve per chip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale/hardware.h"
#include "scale/prices.h"
#include "scale_check.h"

static scale_price rows[512];

/* Writes 'text' to a temporary file and reads it; returns the count (or -1). */
static int read_text(const char *text, scale_diag *diag) {
  char path[] = "/tmp/scale-prices-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq((long)write(fd, text, strlen(text)), (long)strlen(text));
  close(fd);
  int n = scale_prices_read(path, rows, 512, diag);
  unlink(path);
  return n;
}

#define HEADER "chip\tprovider\toffer\tusd_per_chip_hour\tdate\tsource\n"

/* Every shipped row names a hardware file, and the hardware file's default price (its [price]
 * usd_per_hour) is one of its chip's on-demand rows, so --price and the default cannot drift. */
START_TEST(test_shipped_table) {
  scale_diag diag;
  int n = scale_prices_read(NULL, rows, 512, &diag);
  ck_assert_msg(n >= 10, "%s:%d: %s", diag.file, diag.line, diag.message);
  for (int i = 0; i < n; i++) {
    scale_chip chip;
    ck_assert_msg(scale_chip_load(rows[i].chip, &chip, &diag) == SCALE_OK, "row %d: %s", i,
                  rows[i].chip);
    ck_assert_str_eq(chip.base, ""); /* a chip, not a system */
    bool on_demand_match = false;
    for (int k = 0; k < n; k++)
      on_demand_match |= !strcmp(rows[k].chip, rows[i].chip) &&
                         rows[k].offer == SCALE_OFFER_ON_DEMAND &&
                         rows[k].usd_per_chip_hour == chip.usd_per_hour;
    bool has_on_demand = false;
    for (int k = 0; k < n; k++)
      has_on_demand |= !strcmp(rows[k].chip, rows[i].chip) && rows[k].offer == SCALE_OFFER_ON_DEMAND;
    ck_assert_msg(!has_on_demand || on_demand_match, "%s: file price %g is no on-demand row",
                  rows[i].chip, chip.usd_per_hour);
  }
}
END_TEST

START_TEST(test_reader_refuses) {
  scale_diag diag;
  ck_assert_int_eq(read_text("# note\n\n" HEADER "a\tb\ton-demand\t1.5\t2025-02\tsrc\n", &diag), 1);
  ck_assert_str_eq(rows[0].chip, "a");
  ck_assert_int_eq(rows[0].offer, SCALE_OFFER_ON_DEMAND);
  ck_assert_double_eq(rows[0].usd_per_chip_hour, 1.5);
  static const struct {
    const char *row, *why;
  } bad[] = {
      {"a\tb\tcheap\t1\t2025-02\ts\n", "offer must be"},
      {"a\tb\tspot\t0\t2025-02\ts\n", "usd_per_chip_hour must be"},
      {"a\tb\tspot\tnan\t2025-02\ts\n", "usd_per_chip_hour must be"},
      {"a\tb\tspot\t1x\t2025-02\ts\n", "usd_per_chip_hour must be"},
      {"a\tb\tspot\t1\t2025-13\ts\n", "date must be"},
      {"a\tb\tspot\t1\tFeb 2025\ts\n", "date must be"},
      {"a\tb\tspot\t1\t2025-02\t\n", "source must be"},
      {"A\tb\tspot\t1\t2025-02\ts\n", "chip must be"},
      {"a\tb\tspot\t1\t2025-02\n", "5 tab-separated fields"},
      {"a\tb\tspot\t1\t2025-02\ts\tx\n", "7 tab-separated fields"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, HEADER "%s", bad[i].row);
    ck_assert_int_eq(read_text(text, &diag), -1);
    ck_assert_int_eq(diag.line, 2);
    ck_assert_msg(strstr(diag.message, bad[i].why), "row %zu: %s", i, diag.message);
  }
  ck_assert_int_eq(read_text(HEADER "a\tb\tspot\t1\t2025-02\ts\na\tb\tspot\t2\t2025-03\ts\n", &diag), -1);
  ck_assert_int_eq(diag.line, 3);
  ck_assert_int_eq(read_text("chip\tprovider\n", &diag), -1);
  ck_assert_int_eq(read_text("# only a note\n", &diag), -1);
  ck_assert_ptr_nonnull(strstr(diag.message, "no header"));
}
END_TEST

START_TEST(test_find) {
  scale_diag diag;
  int n = read_text(HEADER "x\tg\ton-demand\t3\t2025-02\ts\nx\tg\tcommitted-3y\t1\t2025-02\ts\n"
                           "x\ta\treserved\t2\t2024-12\ts\ny\tg\ton-demand\t5\t2025-02\ts\n",
                    &diag);
  ck_assert_int_eq(n, 4);
  char why[256];
  const scale_price *p = scale_price_find(rows, n, "x", "g:committed-3y", why, sizeof why);
  ck_assert_ptr_nonnull(p);
  ck_assert_double_eq(p->usd_per_chip_hour, 1);
  p = scale_price_find(rows, n, "x", "a", why, sizeof why); /* one offer: the provider alone */
  ck_assert_ptr_nonnull(p);
  ck_assert_double_eq(p->usd_per_chip_hour, 2);
  ck_assert_ptr_null(scale_price_find(rows, n, "x", "g", why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "2 offers"));
  ck_assert_ptr_null(scale_price_find(rows, n, "x", "g:spot", why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "no price 'g:spot' for x"));
  ck_assert_ptr_null(scale_price_find(rows, n, "z", "g:on-demand", why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "no price for z"));
  p = scale_price_find(rows, n, "y", "g:on-demand", why, sizeof why); /* chip, not just name */
  ck_assert_double_eq(p->usd_per_chip_hour, 5);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("prices");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, test_shipped_table);
  tcase_add_test(tc, test_reader_refuses);
  tcase_add_test(tc, test_find);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
