/* book_bench.c — how `scale book` scales with the size of a chapter (issue 13, section 3).
 *
 * Generates one chapter of 1, 2, 5, 10 and 20 MB (many identical and distinct headings, a
 * value per citation, citations in prose and in tables, inline math), renders it with
 * `scale book --chapter` (KaTeX off, so only the renderer is timed) and prints its wall time and
 * CPU time (user + system) per MB, the best of --repeat renders: CPU time varies less on a
 * busy machine. A linear renderer keeps the per-MB columns flat from 1 MB to 20 MB.
 *
 * Usage: book_bench [--scale PATH] [--sizes 1,2,5] [--repeat N] [--timeout S]
 *   --scale    the command (default: ../scale beside this program, i.e. BUILD/scale)
 *   --sizes    chapter sizes in MB (default 1,2,5,10,20)
 *   --repeat   renders per size, the fastest reported (default 3)
 *   --timeout  seconds one render may take before it is killed and reported (default 300)
 * Not a test: timings vary with the machine. Exits 1 when a render fails.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** Counts of what one generated chapter holds. */
typedef struct {
  long headings;
  long values;
  long citations;
} chapter_counts;

/** Writes DIR/chapters/01-bench/bench.md of about 'bytes' and its bench.values. Each block has
 * an identical heading (anchor ids must be deduplicated), a distinct one, four cited values in
 * a paragraph, inline math and a two-row table citing two more. */
static int write_chapter(const char *dir, long bytes, chapter_counts *c) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/chapters", dir);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/chapters/01-bench", dir);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/chapters/01-bench/bench.md", dir);
  FILE *md = fopen(path, "w");
  snprintf(path, sizeof path, "%s/chapters/01-bench/bench.values", dir);
  FILE *values = fopen(path, "w");
  if (!md || !values) {
    if (md) fclose(md);
    if (values) fclose(values);
    return 1;
  }
  memset(c, 0, sizeof *c);
  fprintf(md, "# A generated chapter\n\nThis chapter exists to time the renderer.\n\n");
  for (long block = 0; ftell(md) < bytes; block++) {
    long v = c->values;
    fprintf(md,
            "## Results\n\nThe run reaches `=v%ld` at a batch of `=v%ld`, so the step takes "
            "`=v%ld` and costs `=v%ld`; the intensity $I_{%ld} = C / W$ is what matters here, "
            "and *emphasis* or `code` stays as it was.\n\n### Part %ld of the generated text\n\n"
            "| quantity | value |\n|---|---|\n| first | `=v%ld` |\n| second | `=v%ld` |\n\n",
            v, v + 1, v + 2, v + 3, block, block, v + 4, v + 5);
    for (int k = 0; k < 6; k++)
      fprintf(values, "v%ld\t%ld\tFLOP/s\t%ld FLOP/s\n", v + k, v + k, v + k);
    c->values += 6;
    c->citations += 6;
    c->headings += 2;
  }
  int bad = ferror(md) || ferror(values);
  bad |= fclose(md) != 0;
  bad |= fclose(values) != 0;
  return bad;
}

/** Runs scale book on DIR's chapter; returns the wall time in s and puts the CPU time in
 * *cpu_s, or returns -1 (failed) / -2 (killed after 'timeout_s'). */
static double render(const char *scale, const char *dir, unsigned timeout_s, double *cpu_s) {
  char chapters[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
  snprintf(chapters, sizeof chapters, "%s/chapters", dir);
  snprintf(out, sizeof out, "%s/site", dir);
  snprintf(log, sizeof log, "%s/render.log", dir);
  fflush(NULL);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(127);
    setenv("SCALE_KATEX", "none", 1);
    alarm(timeout_s); /* survives exec: a render that runs too long dies of SIGALRM */
    execl(scale, scale, "book", "--chapters", chapters, "--out", out, "--chapter", "01-bench",
          (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return -1;
  double dt = now_s() - t0;
  *cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) return -2;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? dt : -1;
}

/** BUILD/scale for this program at BUILD/tests/book_bench. */
static void default_scale(char *buf, size_t size) {
  char exe[PATH_MAX - 16];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  snprintf(buf, size, "%s/../scale", exe);
}

int main(int argc, char **argv) {
  char scale[PATH_MAX];
  default_scale(scale, sizeof scale);
  const char *sizes = "1,2,5,10,20";
  unsigned timeout_s = 300;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--scale") == 0)
      snprintf(scale, sizeof scale, "%s", argv[i + 1]);
    else if (strcmp(argv[i], "--sizes") == 0)
      sizes = argv[i + 1];
    else if (strcmp(argv[i], "--repeat") == 0)
      repeat = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--timeout") == 0)
      timeout_s = (unsigned)atoi(argv[i + 1]);
  }
  printf("%5s %9s %9s %10s %8s %10s %8s %10s\n", "MB", "headings", "values", "citations",
         "wall s", "ms per MB", "cpu s", "ms per MB");
  int rc = 0;
  for (const char *p = sizes; *p;) {
    char *end;
    long mb = strtol(p, &end, 10);
    p = *end == ',' ? end + 1 : end + strlen(end);
    if (mb <= 0) continue;
    char dir[] = "/tmp/scale-book-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    chapter_counts c;
    double dt = -1, cpu = 0;
    if (write_chapter(dir, mb << 20, &c) == 0) {
      for (int r = 0; r < repeat; r++) {
        double cpu_r = 0, t = render(scale, dir, timeout_s, &cpu_r);
        if (t < 0 || dt < 0 || t < dt) dt = t;
        if (r == 0 || cpu_r < cpu) cpu = cpu_r;
        if (t < 0) break;
      }
    }
    if (dt >= 0)
      printf("%5ld %9ld %9ld %10ld %8.2f %10.0f %8.2f %10.0f\n", mb, c.headings, c.values,
             c.citations, dt, dt * 1e3 / (double)mb, cpu, cpu * 1e3 / (double)mb);
    else
      printf("%5ld %9ld %9ld %10ld %8s\n", mb, c.headings, c.values, c.citations,
             dt == -2 ? "timeout" : "FAILED");
    fflush(stdout);
    if (dt == -1) {
      fprintf(stderr, "book_bench: the render failed; its errors are in %s/render.log\n", dir);
      rc = 1;
      continue;
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = 1;
  }
  return rc;
}
