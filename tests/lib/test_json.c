/* test_json.c — the strict JSON reader (json.h) on RFC 8259's grammar, by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale/json.h"
#include "scale_check.h"

static scale_json *parse_ok(const char *text) {
  scale_json *j = NULL;
  scale_diag d = {0};
  ck_assert_msg(scale_json_parse(text, strlen(text), &j, &d) == SCALE_OK, "%s: %s", text,
                d.message);
  return j;
}

static void parse_bad(const char *text, scale_status want, const char *message) {
  scale_json *j = (scale_json *)1;
  scale_diag d = {0};
  ck_assert_int_eq(scale_json_parse(text, strlen(text), &j, &d), want);
  ck_assert_ptr_null(j);
  ck_assert_msg(strstr(d.message, message) != NULL, "%s: '%s' lacks '%s'", text, d.message,
                message);
}

START_TEST(values) {
  scale_json *j = parse_ok(" {\"hidden_size\": 8192, \"rope\": null, \"tie\": false,\n"
                           " \"eps\": 1e-05, \"neg\": -0.5, \"arch\": [\"LlamaForCausalLM\"],"
                           " \"s\": \"a\\u00e9\\n\\ud83d\\ude00\"} ");
  const scale_json_value *r = scale_json_root(j);
  ck_assert_int_eq(r->type, SCALE_JSON_OBJECT);
  scale_check_rel(scale_json_member(r, "hidden_size")->number, 8192, 0, "", "integer");
  scale_check_rel(scale_json_member(r, "eps")->number, 1e-5, 0, "", "exponent");
  scale_check_rel(scale_json_member(r, "neg")->number, -0.5, 0, "", "fraction");
  ck_assert_int_eq(scale_json_member(r, "rope")->type, SCALE_JSON_NULL);
  ck_assert(!scale_json_member(r, "tie")->boolean);
  const scale_json_value *a = scale_json_member(r, "arch");
  ck_assert_int_eq(a->type, SCALE_JSON_ARRAY);
  ck_assert_str_eq(a->child->str, "LlamaForCausalLM");
  ck_assert_ptr_null(a->child->next);
  /* a, e-acute (C3 A9), newline, U+1F600 from a surrogate pair (F0 9F 98 80). */
  ck_assert_str_eq(scale_json_member(r, "s")->str, "a\xc3\xa9\n\xf0\x9f\x98\x80");
  ck_assert_ptr_null(scale_json_member(r, "absent"));
  ck_assert_ptr_null(scale_json_member(a, "arch"));
  scale_json_free(j);
  j = parse_ok("[]");
  ck_assert_ptr_null(scale_json_root(j)->child);
  scale_json_free(j);
}
END_TEST

START_TEST(strictness) {
  parse_bad("{\"a\": 1,}", SCALE_ERR_PARSE, "member name");
  parse_bad("[1, 2,]", SCALE_ERR_PARSE, "expected a value");
  parse_bad("{\"a\": 01}", SCALE_ERR_PARSE, "malformed number");
  parse_bad("{\"a\": 1.}", SCALE_ERR_PARSE, "malformed number");
  parse_bad("{\"a\": NaN}", SCALE_ERR_PARSE, "expected a value");
  parse_bad("{\"a\": 1e999}", SCALE_ERR_RANGE, "too large");
  parse_bad("{\"a\": 1, \"a\": 2}", SCALE_ERR_DUPLICATE_KEY, "'a' given twice");
  parse_bad("{\"a\": \"\\ud800\"}", SCALE_ERR_PARSE, "bad escape");
  parse_bad("{\"a\": \"x\\u0000y\"}", SCALE_ERR_PARSE, "bad escape");
  parse_bad("{\"a\": \"tab\there\"}", SCALE_ERR_PARSE, "control character");
  parse_bad("{\"a\": 1} x", SCALE_ERR_PARSE, "text after the value");
  parse_bad("{\"a\" 1}", SCALE_ERR_PARSE, "expected ':'");
  parse_bad("\"open", SCALE_ERR_PARSE, "closing");
  parse_bad("", SCALE_ERR_PARSE, "the end");
  parse_bad("// comment\n{}", SCALE_ERR_PARSE, "expected a value");
  /* The line of the fault is named. */
  scale_json *j = NULL;
  scale_diag d = {0};
  const char *text = "{\n\"a\": 1,\n\"b\": tru\n}";
  ck_assert_int_eq(scale_json_parse(text, strlen(text), &j, &d), SCALE_ERR_PARSE);
  ck_assert_int_eq(d.line, 3);
}
END_TEST

START_TEST(bounds) {
  /* 65 nested arrays are one too many; 64 parse. */
  char deep[200];
  memset(deep, '[', 65), memset(deep + 65, ']', 65), deep[130] = '\0';
  parse_bad(deep, SCALE_ERR_RANGE, "64 levels");
  deep[129] = '\0';
  scale_json_free(parse_ok(deep + 1));
  /* An object of 4097 members is refused (the duplicate check is quadratic). */
  size_t cap = 4097 * 16 + 4, n = 0;
  char *big = malloc(cap);
  ck_assert_ptr_nonnull(big);
  big[n++] = '{';
  for (int i = 0; i < 4097; i++)
    n += (size_t)snprintf(big + n, cap - n, "%s\"k%d\":0", i ? "," : "", i);
  big[n++] = '}', big[n] = '\0';
  parse_bad(big, SCALE_ERR_RANGE, "4096 members");
  free(big);
  scale_json *j = (scale_json *)1;
  ck_assert_int_eq(scale_json_parse(NULL, 0, &j, NULL), SCALE_ERR_INVALID);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("json");
  const scale_check_case cases[] = {
      {"values", values}, {"strictness", strictness}, {"bounds", bounds}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(suite()); }
