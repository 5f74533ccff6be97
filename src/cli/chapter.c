/* chapter.c — `scale chapter NN [ARGS...]`: runs a chapter's program (chapters/NN-slug/slug.c,
 * built as chapter_NN_slug next to this command's build), so that the book's "run it yourself"
 * lines work without knowing where the build put the programs.
 *
 * NN is the chapter's number ("1", "01"), its folder ("01-rooflines") or its slug ("rooflines").
 * ARGS go to the program unchanged: --values, --figures DIR, and each chapter's own options.
 * The programs' folder is $SCALE_CHAPTERS_DIR, else the build's chapters/ folder.
 *
 * The program's output is its own; its errors are relayed as this command's, one line each
 * ("scale: 01-rooflines: unknown option ..."), control characters replaced, and a program
 * that dies of a signal is reported in one line (exit 1), never as a shell's crash message.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen, strsignal */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#ifndef SCALE_CHAPTERS_BIN_DIR
#define SCALE_CHAPTERS_BIN_DIR "chapters"
#endif

static void usage(FILE *out) {
  fprintf(out, "usage: scale chapter NN [ARGS...]   (NN: 01, 1, 01-rooflines or rooflines)\n"
               "       scale chapter list\n\n"
               "Run a chapter's program: the walk-through; --values prints every number the\n"
               "page cites; --figures DIR draws its figures; each chapter takes options of its\n"
               "own (try `scale chapter 01 --help`).\n");
}

static const char *chapters_dir(void) {
  const char *dir = getenv("SCALE_CHAPTERS_DIR");
  return dir && *dir ? dir : SCALE_CHAPTERS_BIN_DIR;
}

/* Whether program name "chapter_01_rooflines" is chapter 'want'. */
static int matches(const char *program, const char *want) {
  const char *num = program + strlen("chapter_");
  const char *slug = num + 3; /* after "01_" */
  if (strlen(num) < 4 || num[2] != '_') return 0;
  char folder[300], dashed[256];
  snprintf(dashed, sizeof dashed, "%s", slug);
  for (char *c = dashed; *c; c++)
    if (*c == '_') *c = '-';
  snprintf(folder, sizeof folder, "%.2s-%s", num, dashed);
  char *end = NULL;
  long n = strtol(want, &end, 10);
  if (end != want && *end == '\0') return n == strtol(num, NULL, 10);
  return strcmp(want, folder) == 0 || strcmp(want, dashed) == 0 || strcmp(want, slug) == 0;
}

/* The chapter programs, sorted: 'names' gets up to 'max' of them; returns how many, or -1. */
static int list_programs(char names[][256], int max) {
  DIR *dir = opendir(chapters_dir());
  if (!dir) return -1;
  int n = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL && n < max) {
    char path[4096];
    if (strncmp(entry->d_name, "chapter_", 8) != 0 || strlen(entry->d_name) >= 256) continue;
    snprintf(path, sizeof path, "%s/%s", chapters_dir(), entry->d_name);
    if (access(path, X_OK) != 0) continue;
    snprintf(names[n++], 256, "%s", entry->d_name);
  }
  closedir(dir);
  qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  return n;
}

/* Copies the lines of 'fd' (the program's stderr) to ours as "scale: LINE", control
 * characters as '?'; a line that already starts with "scale: " keeps its one prefix. */
static void relay_errors(int fd) {
  FILE *in = fdopen(fd, "r");
  if (!in) return;
  char line[1024];
  bool line_start = true;
  while (fgets(line, sizeof line, in)) {
    size_t len = strcspn(line, "\n");
    bool ends = line[len] == '\n';
    line[len] = '\0';
    for (char *c = line; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    const char *text = line;
    if (line_start && strncmp(text, "scale: ", 7) == 0) text += 7;
    fprintf(stderr, "%s%s%s", line_start ? "scale: " : "", text, ends ? "\n" : "");
    line_start = ends;
  }
  if (!line_start) fputc('\n', stderr);
  fclose(in);
}

/* Runs chapter program 'path' with 'argv' (argv[0] the program): its exit status, or 1 with
 * one line when it could not run or died of a signal. */
static int run_program(const char *path, char **argv, const char *name) {
  int err[2];
  if (pipe(err) != 0) return cli_fail("chapter: cannot run %s: no pipe", name);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return cli_fail("chapter: cannot run %s: fork failed", name);
  if (pid == 0) {
    close(err[0]);
    dup2(err[1], 2);
    close(err[1]);
    execv(path, argv);
    fprintf(stderr, "chapter: cannot run %s\n", name);
    _exit(127);
  }
  close(err[1]);
  relay_errors(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return cli_fail("chapter: lost %s", name);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)
    return CLI_EXIT_FAIL; /* its reader left (`| head`): nothing went wrong to report */
  if (WIFSIGNALED(status))
    return cli_fail("chapter: %s died of signal %d (%s)", name, WTERMSIG(status),
                    strsignal(WTERMSIG(status)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_EXIT_FAIL;
}

int cli_cmd_chapter(int argc, char **argv) {
  if (argc < 2) return cli_usage("chapter: which chapter? (try: scale chapter list)");
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  static char names[64][256];
  int n = list_programs(names, 64);
  if (n < 0)
    return cli_fail("chapter: no chapter programs in %s (build them, or set SCALE_CHAPTERS_DIR)",
                    chapters_dir());
  if (strcmp(argv[1], "list") == 0) {
    for (int i = 0; i < n; i++)
      printf("%.2s  %s\n", names[i] + 8, names[i]);
    return CLI_EXIT_OK;
  }
  for (int i = 0; i < n; i++) {
    if (!matches(names[i], argv[1])) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", chapters_dir(), names[i]);
    argv[1] = path; /* the program's own argv[0]; the rest are its arguments */
    return run_program(path, argv + 1, names[i]);
  }
  return cli_usage("chapter: no chapter '%s' (try: scale chapter list)", argv[1]);
}
