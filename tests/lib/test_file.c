/* test_file.c — the library's one file reader and section writer (file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale/file.h"
#include "scale_check.h"

START_TEST(test_read_whole_file) {
  char path[] = "/tmp/scale-file-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  /* larger than the first buffer (64 KiB), with a NUL byte inside */
  size_t n = 200000;
  char *data = malloc(n);
  for (size_t i = 0; i < n; i++) data[i] = (char)('a' + i % 26);
  data[1000] = '\0';
  ck_assert_int_eq((long)write(fd, data, n), (long)n);
  close(fd);
  char *text = NULL;
  size_t len = 0;
  scale_diag diag;
  ck_assert_int_eq(scale_file_read(path, &text, &len, &diag), SCALE_OK);
  ck_assert_uint_eq(len, n);
  ck_assert(memcmp(text, data, n) == 0);
  ck_assert_int_eq(text[n], '\0');
  free(text);
  unlink(path);
  free(data);
}
END_TEST

START_TEST(test_read_errors) {
  char *text = (char *)1;
  scale_diag diag;
  ck_assert_int_eq(scale_file_read("/nonexistent/scale-file", &text, NULL, &diag), SCALE_ERR_IO);
  ck_assert_ptr_null(text);
  ck_assert_str_eq(diag.file, "/nonexistent/scale-file");
  ck_assert_str_eq(diag.message, "cannot open");
  /* a folder opens but does not read */
  ck_assert_int_eq(scale_file_read("/tmp", &text, NULL, NULL), SCALE_ERR_IO);
  ck_assert_ptr_null(text);
}
END_TEST

static scale_status emit_new(FILE *fp, void *ctx) {
  (void)ctx;
  fputs("[new]\nk = 1\n", fp);
  return SCALE_OK;
}

/* Rewrites 'in' dropping [serve] (and [old]), the new text before [fit]; returns the result. */
static char *rewrite(const char *in, const char *before) {
  char path[] = "/tmp/scale-ini-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq((long)write(fd, in, strlen(in)), (long)strlen(in));
  close(fd);
  static const char *const drop[] = {"serve", "old"};
  ck_assert_int_eq(scale_file_rewrite_sections(path, path, drop, 2, before, emit_new, NULL, NULL),
                   SCALE_OK);
  char *text = NULL;
  ck_assert_int_eq(scale_file_read(path, &text, NULL, NULL), SCALE_OK);
  unlink(path);
  return text;
}

START_TEST(test_rewrite_sections) {
  /* where the dropped section stood, when a kept section follows it */
  char *t = rewrite("[chip]\na = 1\n\n[serve]\nx = 2\n\n[fit]\ny = 3\n", "fit");
  ck_assert_str_eq(t, "[chip]\na = 1\n\n[new]\nk = 1\n\n[fit]\ny = 3\n");
  free(t);
  /* the dropped section was last: before [fit]; trailing blank lines dropped */
  t = rewrite("[chip]\na = 1\n\n[fit]\ny = 3\n\n  [serve]\nx = 2\n\n\n", "fit");
  ck_assert_str_eq(t, "[chip]\na = 1\n\n[new]\nk = 1\n\n[fit]\ny = 3\n");
  free(t);
  /* no such section and no 'before': at the end, after one blank line; both dropped */
  t = rewrite("[chip]\na = 1\n[old]\nz = 0\n[serve]\nx = 2\n", NULL);
  ck_assert_str_eq(t, "[chip]\na = 1\n\n[new]\nk = 1\n");
  free(t);
  /* an empty file gets the section alone */
  t = rewrite("", "fit");
  ck_assert_str_eq(t, "[new]\nk = 1\n");
  free(t);
  scale_diag diag;
  static const char *const drop[] = {"serve"};
  ck_assert_int_eq(scale_file_rewrite_sections("/nonexistent/x.ini", "/tmp/unused.ini", drop, 1,
                                               NULL, emit_new, NULL, &diag),
                   SCALE_ERR_IO);
  ck_assert_str_eq(diag.message, "cannot open");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("file");
  TCase *tc = tcase_create("read");
  tcase_add_test(tc, test_read_whole_file);
  tcase_add_test(tc, test_read_errors);
  tcase_add_test(tc, test_rewrite_sections);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
