/* replay.c — a plain main() for a fuzz target, for builds without libFuzzer (gcc, the default
 * and asan presets): runs the target's LLVMFuzzerTestOneInput once on every file named on the
 * command line and on every file of every folder named (sorted by name, not recursive).
 *
 * An input on which the code under test calls exit() is a finding too (exit status 3).
 * Files named pending-* are skipped with a note: they reproduce findings whose fix belongs to
 * another module and has not landed yet (fuzz/README.md "Findings"). A finding aborts the
 * process (sanitizer report, fuzz_fail() or a crash); the line before it names the input.
 *
 * Usage:  fuzz_replay_TARGET FILE|FOLDER...   (a path that does not exist is noted and skipped)
 * Exit:   0 when every input ran, 2 on a usage error or an unreadable input, 3 when the code
 *         under test called exit(); a finding aborts.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int n_run, n_pending;
static const char *running; /* the input being run, NULL between inputs */

/* The code under test must return, never end the process (libFuzzer reports "fuzz target
 * exited"; so does this). */
static void exit_check(void) {
  if (!running) return;
  fprintf(stderr, "replay: %s: the code under test called exit()\n", running);
  fflush(stderr);
  _Exit(3);
}

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 2;
  }
  size_t cap = 4096, len = 0;
  unsigned char *data = malloc(cap);
  size_t n;
  while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      unsigned char *bigger = realloc(data, cap *= 2);
      if (!bigger) free(data);
      data = bigger;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!data || bad) {
    free(data);
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 2;
  }
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
  fflush(stderr);
  /* An exact-size copy, so that AddressSanitizer sees a read past the input's end. */
  unsigned char *input = malloc(len ? len : 1);
  if (!input) {
    free(data);
    return 2;
  }
  if (len) memcpy(input, data, len);
  free(data);
  running = path;
  LLVMFuzzerTestOneInput(input, len);
  running = NULL;
  free(input);
  n_run++;
  return 0;
}

static int skip_name(const struct dirent *e) {
  return e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0;
}

static int replay_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) { /* a target without findings has no regressions/TARGET yet */
    fprintf(stderr, "replay: nothing at %s\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) return replay_file(path);
  struct dirent **names = NULL;
  int n = scandir(path, &names, skip_name, alphasort);
  if (n < 0) {
    fprintf(stderr, "replay: cannot read folder %s\n", path);
    return 2;
  }
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char child[4096];
    snprintf(child, sizeof child, "%s/%s", path, names[i]->d_name);
    if (strncmp(names[i]->d_name, "pending-", 8) == 0) {
      fprintf(stderr, "replay: skipped %s (a finding not fixed yet)\n", child);
      n_pending++;
    } else if (stat(child, &st) == 0 && S_ISREG(st.st_mode)) {
      if (replay_file(child)) rc = 2;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
    return 2;
  }
  atexit(exit_check);
  LLVMFuzzerInitialize(&argc, &argv);
  int rc = 0;
  for (int i = 1; i < argc; i++)
    if (replay_path(argv[i])) rc = 2;
  fprintf(stderr, "replay: %d inputs ran without a finding; %d pending skipped\n", n_run,
          n_pending);
  return rc;
}
