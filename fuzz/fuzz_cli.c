/* fuzz_cli.c — fuzz target: the argument parsing (and what follows it) of the subcommands of
 * the `scale` command that only read (an input naming `infer --svg` is skipped): not `book` and
 * `grade` (they write files and start processes), `calibrate` and `measure` (they write hardware
 * files, measure the machine), nor `validate` (one run refits the step model per group: tens of
 * seconds).
 *
 * Input: the arguments, separated by NUL bytes; the first is the subcommand (hw, model, train,
 * infer, roofline, collective, plan), as `scale` would pass argv + 1. Each argument is its own
 * allocation, so AddressSanitizer sees a read past any of them. Hardware and models are the
 * shipped ones (SCALE_DATA_DIR is the source tree), and the command runs in the source tree,
 * so that a seed can name a hostile data file of the corpus by a relative path
 * (`--hw ./fuzz/corpus/ini_hardware/hostile-pod_y-1e308`). stdout and stderr go to temporary
 * files.
 * Invariants (DESIGN.md "The command"): the exit status is 0, 1 or 2; a usage error (2) prints
 * nothing on stdout and exactly one line on stderr starting "scale: "; stderr never holds a
 * control character but the newlines ending its lines; stdout never prints nan or inf as an
 * answer; with --json, stdout is one JSON document (RFC 8259) unless it is the --help text;
 * no leak (LeakSanitizer), no crash, no undefined behaviour.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"

#ifndef FUZZ_SOURCE_DIR
#error "FUZZ_SOURCE_DIR must name the source tree (fuzz/CMakeLists.txt defines it)"
#endif

#define MAX_ARGS 64
#define MAX_SHOWN 4096

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} commands[] = {
    {"hw", cli_cmd_hw},       {"model", cli_cmd_model},       {"train", cli_cmd_train},
    {"infer", cli_cmd_infer}, {"roofline", cli_cmd_roofline}, {"collective", cli_cmd_collective},
    {"plan", cli_cmd_plan},
};

static int out_fd = -1, err_fd = -1;
static int source_fd = -1, cwd_fd = -1; /* the source tree; the fuzzer's own working folder */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("SCALE_DATA_DIR", FUZZ_SOURCE_DIR, 1);
  source_fd = open(FUZZ_SOURCE_DIR, O_RDONLY);
  cwd_fd = open(".", O_RDONLY);
  if (source_fd < 0 || cwd_fd < 0) fuzz_fail("cannot open %s or the working folder", FUZZ_SOURCE_DIR);
  fuzz_keep_reports();
  char dir[512], path[1024];
  fuzz_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/stdout", dir);
  out_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
  snprintf(path, sizeof path, "%s/stderr", dir);
  err_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
  if (out_fd < 0 || err_fd < 0) fuzz_fail("cannot create the capture files");
  return 0;
}

/* Reads what fd captured (at most MAX_SHOWN bytes) into buf; returns its full length. */
static size_t captured(int fd, char *buf) {
  struct stat st;
  if (fstat(fd, &st) != 0) fuzz_fail("fstat of a capture file failed");
  ssize_t n = pread(fd, buf, MAX_SHOWN, 0);
  buf[n > 0 ? n : 0] = '\0';
  return (size_t)st.st_size;
}

/* Whether 'text' holds 'word' not inside a longer word ("inf" but not "infer"). */
static int has_word(const char *text, const char *word) {
  size_t k = strlen(word);
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
    int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[k]) || p[k] == '_';
    if (!before && !after) return 1;
  }
  return 0;
}

/* ---- a strict JSON syntax check (RFC 8259) of what --json printed ---------------------------- */

typedef struct {
  const char *p, *end;
  int depth;
} json_in;

static void json_ws(json_in *in) {
  while (in->p < in->end && (*in->p == ' ' || *in->p == '\n' || *in->p == '\t' || *in->p == '\r'))
    in->p++;
}

static int json_lit(json_in *in, const char *word) {
  size_t k = strlen(word);
  if ((size_t)(in->end - in->p) < k || memcmp(in->p, word, k) != 0) return 0;
  in->p += k;
  return 1;
}

static int json_digits(json_in *in) {
  const char *start = in->p;
  while (in->p < in->end && isdigit((unsigned char)*in->p))
    in->p++;
  return in->p > start;
}

static int json_string(json_in *in) {
  if (in->p >= in->end || *in->p != '"') return 0;
  for (in->p++; in->p < in->end; in->p++) {
    unsigned char c = (unsigned char)*in->p;
    if (c == '"') {
      in->p++;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (++in->p >= in->end) return 0;
      if (*in->p == 'u') {
        for (int i = 0; i < 4; i++)
          if (++in->p >= in->end || !isxdigit((unsigned char)*in->p)) return 0;
      } else if (!strchr("\"\\/bfnrt", *in->p) || !*in->p) {
        return 0;
      }
    }
  }
  return 0;
}

static int json_value(json_in *in) {
  json_ws(in);
  if (in->p >= in->end || ++in->depth > 64) return 0;
  int ok = 0;
  char c = *in->p;
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    in->p++;
    json_ws(in);
    if (in->p < in->end && *in->p == close) {
      in->p++;
      ok = 1;
    } else {
      for (;;) {
        if (c == '{') {
          json_ws(in);
          if (!json_string(in)) break;
          json_ws(in);
          if (in->p >= in->end || *in->p++ != ':') break;
        }
        if (!json_value(in)) break;
        json_ws(in);
        if (in->p < in->end && *in->p == ',') {
          in->p++;
          continue;
        }
        ok = in->p < in->end && *in->p++ == close;
        break;
      }
    }
  } else if (c == '"') {
    ok = json_string(in);
  } else if (c == '-' || isdigit((unsigned char)c)) {
    if (c == '-') in->p++;
    if (in->p < in->end && *in->p == '0')
      in->p++;
    else if (!json_digits(in))
      return 0;
    ok = 1;
    if (in->p < in->end && *in->p == '.') in->p++, ok = json_digits(in);
    if (ok && in->p < in->end && (*in->p == 'e' || *in->p == 'E')) {
      in->p++;
      if (in->p < in->end && (*in->p == '+' || *in->p == '-')) in->p++;
      ok = json_digits(in);
    }
  } else {
    ok = json_lit(in, "true") || json_lit(in, "false") || json_lit(in, "null");
  }
  in->depth--;
  return ok;
}

/* Whether fd's whole content is one JSON value (then only whitespace). */
static int json_document(int fd, size_t len) {
  char *text = malloc(len ? len : 1);
  if (!text) fuzz_fail("out of memory");
  ssize_t n = pread(fd, text, len, 0);
  json_in in = {text, text + (n > 0 ? n : 0), 0};
  int ok = n == (ssize_t)len && json_value(&in);
  json_ws(&in);
  ok = ok && in.p == in.end;
  free(text);
  return ok;
}

static void check_output(const char *cmd, int rc, const char *out, size_t out_len,
                         const char *err, size_t err_len) {
  if (rc != CLI_EXIT_OK && rc != CLI_EXIT_FAIL && rc != CLI_EXIT_USAGE)
    fuzz_fail("%s: exit status %d", cmd, rc);
  if (fuzz_has_control(err, strlen(err), "\n"))
    fuzz_fail("%s: stderr holds a control character: \"%s\"", cmd, err);
  if (rc == CLI_EXIT_USAGE) {
    const char *nl = strchr(err, '\n');
    if (out_len != 0) fuzz_fail("%s: usage error with %zu bytes on stdout", cmd, out_len);
    if (strncmp(err, "scale: ", 7) != 0 || !nl || (size_t)(nl + 1 - err) != err_len)
      fuzz_fail("%s: usage error is not one line \"scale: ...\": \"%s\"", cmd, err);
  }
  if (has_word(out, "nan") || has_word(out, "inf") || has_word(out, "-nan"))
    fuzz_fail("%s: stdout prints nan or inf (exit %d): \"%.600s\"", cmd, rc, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  char *argv[MAX_ARGS + 1], *owned[MAX_ARGS];
  int argc = 0;
  for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
    const uint8_t *nul = i < size ? memchr(data + i, 0, size - i) : NULL;
    size_t end = nul ? (size_t)(nul - data) : size;
    if (i == size && argc > 0) break;
    owned[argc] = fuzz_cstr(data + i, end - i);
    argv[argc] = owned[argc];
    argc++;
    i = end + 1;
  }
  argv[argc] = NULL;
  int (*run)(int, char **) = NULL;
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
    if (strcmp(argv[0], commands[c].name) == 0) run = commands[c].run;
  /* `infer --svg FILE` writes a figure (getopt_long takes any unique prefix, "--sv" on): this
   * target runs commands that only read, so such an input is skipped, never run. */
  for (int a = 1; run && a < argc; a++)
    if (strcmp(argv[0], "infer") == 0 && strncmp(argv[a], "--sv", 4) == 0) run = NULL;
  if (run) {
    char cmd[32];
    snprintf(cmd, sizeof cmd, "%s", argv[0]);
    fflush(stdout), fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    if (ftruncate(out_fd, 0) || ftruncate(err_fd, 0)) fuzz_fail("cannot truncate the captures");
    dup2(out_fd, 1), dup2(err_fd, 2);
    /* In the source tree only while the command runs: libFuzzer's relative paths (corpus
     * folders, -jobs logs) stay relative to where it was started. */
    if (fchdir(source_fd) != 0) fuzz_fail("cannot enter %s", FUZZ_SOURCE_DIR);
    int rc = run(argc, argv);
    if (fchdir(cwd_fd) != 0) fuzz_fail("cannot return to the working folder");
    fflush(stdout), fflush(stderr);
    dup2(saved_out, 1), dup2(saved_err, 2);
    close(saved_out), close(saved_err);
    static char out[MAX_SHOWN + 1], err[MAX_SHOWN + 1];
    size_t out_len = captured(out_fd, out), err_len = captured(err_fd, err);
    check_output(cmd, rc, out, out_len, err, err_len);
    /* --json: what was printed is one JSON document (DESIGN.md "The command"), unless --help
     * (-h, maybe inside a cluster such as -h-hw) printed the usage instead. */
    int json = 0;
    for (int i = 1; i < argc; i++)
      json |= strcmp(owned[i], "--json") == 0;
    if (json && out_len && strncmp(out, "usage:", 6) != 0 && !json_document(out_fd, out_len))
      fuzz_fail("%s --json: stdout is not one JSON document (exit %d): \"%.600s\"", cmd, rc, out);
  }
  for (int i = 0; i < argc; i++)
    free(owned[i]);
  return 0;
}
