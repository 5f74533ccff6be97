/* test_layers.c — libscale's include graph against src/LAYERS: every #include "..." of the
 * .c files of src/, src/internal.h and the headers of include/scale/ allowed by its module's
 * row, every row
 * pointing only down, and no cycle. A failure names file:line and the arrow.
 *
 * The checker runs first on small texts that break each rule (so a checker that accepts
 * everything fails here), then on the tree at SCALE_DATA_DIR.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale_check.h"

enum { MODULES_MAX = 64, NAME_MAX_LEN = 32, REPORT_MAX = 8192 };

/** A parsed src/LAYERS. */
typedef struct {
  int n;
  char name[MODULES_MAX][NAME_MAX_LEN];
  int layer[MODULES_MAX];
  bool may[MODULES_MAX][MODULES_MAX]; /**< may[a][b]: module a may include module b */
  bool uses[MODULES_MAX][MODULES_MAX]; /**< uses[a][b]: a file of a includes b */
} layers;

/** Failures, one line each. */
typedef struct {
  int n;
  char text[REPORT_MAX];
} report;

static void note(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(report *r, const char *fmt, ...) {
  size_t used = strlen(r->text);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->text + used, sizeof r->text - used, fmt, ap);
  va_end(ap);
  used = strlen(r->text);
  if (used + 1 < sizeof r->text) strcat(r->text, "\n");
  r->n++;
}

static int module_index(const layers *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->name[i], name) == 0) return i;
  return -1;
}

/* ---- the table -------------------------------------------------------------------------------- */

/* Reads rows "module layer dep dep ..."; '#' starts a comment. Names first, then arrows, so
 * a row may name a module of a later row (which is then an upward arrow, reported). */
static void parse_table(const char *text, const char *path, layers *t, report *r) {
  memset(t, 0, sizeof *t);
  for (int pass = 0; pass < 2; pass++) {
    const char *p = text;
    for (int line = 1; *p; line++) {
      const char *end = strchr(p, '\n');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      char buf[512];
      snprintf(buf, sizeof buf, "%.*s", (int)len, p);
      char *hash = strchr(buf, '#');
      if (hash) *hash = '\0';
      char *save = NULL, *name = strtok_r(buf, " \t", &save), *num = strtok_r(NULL, " \t", &save);
      if (name && pass == 0) {
        char *bad = NULL;
        long layer = num ? strtol(num, &bad, 10) : -1;
        if (!num || *bad || layer < 0 || t->n == MODULES_MAX || module_index(t, name) >= 0)
          note(r, "%s:%d: '%s' needs a unique name and a layer >= 0", path, line, name);
        else {
          snprintf(t->name[t->n], NAME_MAX_LEN, "%s", name);
          t->layer[t->n++] = (int)layer;
        }
      }
      int self = name && pass == 1 ? module_index(t, name) : -1;
      for (char *dep; self >= 0 && (dep = strtok_r(NULL, " \t", &save));) {
        int d = module_index(t, dep);
        if (d < 0)
          note(r, "%s:%d: %s may include '%s', which has no row", path, line, name, dep);
        else if (t->layer[d] >= t->layer[self])
          note(r, "%s:%d: %s may include %s, of its own layer or above (an upward reference)",
               path, line, name, dep);
        else
          t->may[self][d] = true;
      }
      p = end ? end + 1 : p + len;
    }
  }
}

/* ---- one file ---------------------------------------------------------------------------------- */

/* The module an include names: "internal.h" -> internal, "scale/X.h" -> X; NULL otherwise. */
static bool include_module(const char *target, char *out, size_t size) {
  if (strcmp(target, "internal.h") == 0) return snprintf(out, size, "internal"), true;
  size_t n = strlen(target);
  if (strncmp(target, "scale/", 6) != 0 || n < 9 || strcmp(target + n - 2, ".h") != 0)
    return false;
  snprintf(out, size, "%.*s", (int)(n - 8), target + 6);
  return true;
}

/* Checks every '#include "..."' of 'text', a file of module 'self'. */
static void check_file(layers *t, const char *self, const char *path, const char *text,
                       report *r) {
  int s = module_index(t, self);
  if (s < 0) {
    note(r, "%s: module '%s' has no row in src/LAYERS", path, self);
    return;
  }
  const char *p = text;
  for (int line = 1; *p; line++) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *q = p;
    while (q < p + len && (*q == ' ' || *q == '\t')) q++;
    char target[128], dep[NAME_MAX_LEN];
    if (sscanf(q, "#include \"%127[^\"]\"", target) == 1) {
      int d = include_module(target, dep, sizeof dep) ? module_index(t, dep) : -1;
      if (d < 0)
        note(r, "%s:%d: includes \"%s\", not a module of src/LAYERS", path, line, target);
      else if (d != s && !t->may[s][d])
        note(r, "%s:%d: %s includes %s, which its row of src/LAYERS does not allow%s", path, line,
             self, t->name[d], t->layer[d] >= t->layer[s] ? " (an upward reference)" : "");
      else if (d != s)
        t->uses[s][d] = true;
    }
    p = end ? end + 1 : p + len;
  }
}

/* ---- cycles -------------------------------------------------------------------------------------- */

/* Depth-first search over the arrows files draw; reports the first cycle met from 'at'. */
static bool cycle_from(const layers *t, int at, int *state, int *path, int depth, report *r) {
  state[at] = 1;
  path[depth] = at;
  for (int d = 0; d < t->n; d++) {
    if (!t->uses[at][d]) continue;
    if (state[d] == 1) {
      char chain[1024] = "";
      int from = depth;
      while (from > 0 && path[from] != d) from--; /* the cycle starts where d was entered */
      for (int i = from; i <= depth; i++) {
        strncat(chain, t->name[path[i]], sizeof chain - strlen(chain) - 1);
        strncat(chain, " -> ", sizeof chain - strlen(chain) - 1);
      }
      note(r, "cycle %s%s", chain, t->name[d]);
      return true;
    }
    if (state[d] == 0 && cycle_from(t, d, state, path, depth + 1, r)) return true;
  }
  state[at] = 2;
  return false;
}

static void check_cycles(const layers *t, report *r) {
  int state[MODULES_MAX] = {0}, path[MODULES_MAX];
  for (int i = 0; i < t->n; i++)
    if (state[i] == 0 && cycle_from(t, i, state, path, 0, r)) return;
}

/* ---- the tree ---------------------------------------------------------------------------------- */

static char *slurp(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text && fread(text, 1, (size_t)n, fp) != (size_t)n) text[0] = '\0';
  if (text) text[n] = '\0';
  fclose(fp);
  return text;
}

static const char *root(void) {
  const char *env = getenv("SCALE_DATA_DIR");
  return env && *env ? env : ".";
}

/* Checks every file of 'dir' ending in 'ext'; returns how many. */
static int check_dir(layers *t, const char *dir, const char *rel, const char *ext, report *r) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root(), dir);
  DIR *d = opendir(path);
  ck_assert_msg(d != NULL, "cannot open %s", path);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name), el = strlen(ext);
    if (len <= el || strcmp(e->d_name + len - el, ext) != 0) continue;
    char file[1400], shown[1400], self[NAME_MAX_LEN];
    snprintf(file, sizeof file, "%s/%s", path, e->d_name);
    snprintf(shown, sizeof shown, "%s/%s", rel, e->d_name);
    snprintf(self, sizeof self, "%.*s", (int)(len - el), e->d_name);
    char *text = slurp(file);
    ck_assert_msg(text != NULL, "cannot read %s", file);
    check_file(t, self, shown, text, r);
    free(text);
    n++;
  }
  closedir(d);
  return n;
}

/* ---- the checker on texts that break each rule ----------------------------------------------- */

static const char *const sample_table = "low 0\nmid 1 low\nhigh 2 mid low\n";

START_TEST(test_checker_rules) {
  layers t;
  report r = {0, ""};
  parse_table(sample_table, "LAYERS", &t, &r);
  ck_assert_msg(r.n == 0, "%s", r.text);
  check_file(&t, "high", "src/high.c", "#include \"scale/high.h\"\n#include \"scale/mid.h\"\n",
             &r);
  ck_assert_msg(r.n == 0, "%s", r.text);
  /* an upward include, named with its line */
  check_file(&t, "mid", "src/mid.c", "#include <stdio.h>\n\n#include \"scale/high.h\"\n", &r);
  ck_assert_int_eq(r.n, 1);
  ck_assert_msg(strstr(r.text, "src/mid.c:3: mid includes high") && strstr(r.text, "upward"),
                "%s", r.text);
  /* a downward include the row does not list, and a header of no module */
  r = (report){0, ""};
  parse_table("low 0\nmid 1\n", "LAYERS", &t, &r);
  check_file(&t, "mid", "src/mid.c", "#include \"scale/low.h\"\n#include \"other.h\"\n", &r);
  ck_assert_int_eq(r.n, 2);
  ck_assert_msg(strstr(r.text, "src/mid.c:1:") && strstr(r.text, "src/mid.c:2:"), "%s", r.text);
  /* a row pointing up, and a file of no row */
  r = (report){0, ""};
  parse_table("low 0 mid\nmid 1\n", "LAYERS", &t, &r);
  ck_assert_msg(r.n == 1 && strstr(r.text, "LAYERS:1: low may include mid"), "%s", r.text);
  check_file(&t, "stray", "src/stray.c", "", &r);
  ck_assert_int_eq(r.n, 2);
}
END_TEST

START_TEST(test_checker_cycle) {
  layers t;
  report r = {0, ""};
  parse_table(sample_table, "LAYERS", &t, &r);
  /* arrows the table would refuse, drawn directly: low -> mid -> high -> low */
  t.uses[0][1] = t.uses[1][2] = t.uses[2][0] = true;
  check_cycles(&t, &r);
  ck_assert_msg(r.n == 1 && strstr(r.text, "cycle low -> mid -> high -> low"), "%s", r.text);
}
END_TEST

/* ---- the library ------------------------------------------------------------------------------ */

START_TEST(test_library_layers) {
  char path[1024];
  snprintf(path, sizeof path, "%s/src/LAYERS", root());
  char *table = slurp(path);
  ck_assert_msg(table != NULL, "cannot read %s", path);
  layers t;
  report r = {0, ""};
  parse_table(table, "src/LAYERS", &t, &r);
  free(table);
  int n = check_dir(&t, "src", "src", ".c", &r) + check_dir(&t, "include/scale", "include/scale",
                                                             ".h", &r);
  char *internal = NULL;
  snprintf(path, sizeof path, "%s/src/internal.h", root());
  internal = slurp(path);
  ck_assert_msg(internal != NULL, "cannot read %s", path);
  check_file(&t, "internal", "src/internal.h", internal, &r);
  free(internal);
  check_cycles(&t, &r);
  ck_assert_msg(n > 40, "only %d files read under %s", n, root());
  ck_assert_msg(r.n == 0, "%d include(s) against src/LAYERS:\n%s", r.n, r.text);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("layers");
  TCase *tc = tcase_create("includes");
  tcase_add_test(tc, test_checker_rules);
  tcase_add_test(tc, test_checker_cycle);
  tcase_add_test(tc, test_library_layers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return scale_check_run(suite()); }
