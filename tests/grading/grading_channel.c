/* grading_channel.c — the checker's side of grading_channel.h: the proxies' call, starting a
 * server in CTest runs, and the report to `scale grade`.
 */
#define _GNU_SOURCE /* getrandom, prctl, pipe2 */

#include "grading_channel.h"
#include "grading_io.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* The channel of this process (each forked Check test case has its own). */
static struct {
  pid_t owner;  /* the process that opened it: a forked case opens its own */
  int reply_fd; /* replies from the server */
  int request_fd;
  pid_t server; /* CTest runs: the server we started (0 when scale grade started it) */
  uint64_t nonce;
  uint32_t seq;
} channel = {0, -1, -1, 0, 0, 0};

static uint64_t fresh_nonce(void) {
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
    nonce = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
  return nonce | 1u; /* never 0: a zeroed reply is never valid */
}

/* CTest runs: starts SCALE_GRADE_SERVER with pipes; it dies with us (PDEATHSIG). */
static void start_server(const char *program) {
  int requests[2], replies[2];
  if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0)
    ck_abort_msg("grading: cannot make pipes: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) ck_abort_msg("grading: cannot fork: %s", strerror(errno));
  if (pid == 0) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L);
#endif
    dup2(requests[0], 0);
    dup2(replies[1], 1);
    char *argv[] = {(char *)(uintptr_t)program, NULL};
    execv(program, argv);
    _exit(127);
  }
  close(requests[0]);
  close(replies[1]);
  channel.server = pid;
  channel.reply_fd = replies[0];
  channel.request_fd = requests[1];
}

static void open_channel(void) {
  if (channel.owner == getpid()) return;
  signal(SIGPIPE, SIG_IGN); /* a dead server is EPIPE, not the checker's death */
  channel.owner = getpid();
  channel.nonce = fresh_nonce();
  channel.seq = 0;
  channel.server = 0;
  const char *fds = getenv("SCALE_GRADE_CHANNEL");
  const char *server = getenv("SCALE_GRADE_SERVER");
  int reply_fd = -1, request_fd = -1;
  if (fds && sscanf(fds, "%d,%d", &reply_fd, &request_fd) == 2) {
    channel.reply_fd = reply_fd;
    channel.request_fd = request_fd;
  } else if (server && *server) {
    start_server(server);
  } else {
    ck_abort_msg("grading: no exercise server (set SCALE_GRADE_SERVER, or run scale grade)");
  }
}

/* "ex_f(1, 2.5)" into 'out'. */
static void describe(char *out, size_t size, const char *name, const char *kinds,
                     const grading_value *args, uint32_t n_args) {
  size_t len = (size_t)snprintf(out, size, "%s(", name);
  for (uint32_t i = 0; i < n_args && len < size; i++) {
    const char *sep = i ? ", " : "";
    if (kinds[i] == 'd')
      len += (size_t)snprintf(out + len, size - len, "%s%g", sep, args[i].d);
    else
      len += (size_t)snprintf(out + len, size - len, "%s%lld", sep, (long long)args[i].l);
  }
  if (len < size) snprintf(out + len, size - len, ")");
}

/* CTest runs: what became of the server we started (scale grade finds out for itself). */
static void server_fate(char *out, size_t size) {
  out[0] = '\0';
  if (channel.server <= 0) return;
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 200 && done == 0; i++) { /* it just closed its pipe: at most 2 s */
    done = waitpid(channel.server, &status, WNOHANG);
    if (done == 0) usleep(10000);
  }
  if (done != channel.server) return;
  channel.server = 0;
  if (WIFSIGNALED(status))
    snprintf(out, size, ": it was killed by signal %d", WTERMSIG(status));
  else if (WIFEXITED(status))
    snprintf(out, size, ": it exited with status %d before returning", WEXITSTATUS(status));
}

/* Sends the call and reads a reply that answers it (nonce, sequence, function) and carries
 * 'n_choice' fields (0 for a double); anything else fails the case. */
static grading_reply exchange(uint32_t fn, const char *name, const char *arg_kinds,
                              const grading_value *args, uint32_t n_args, uint32_t n_choice) {
  open_channel();
  grading_request request;
  memset(&request, 0, sizeof request);
  request.nonce = channel.nonce;
  request.seq = ++channel.seq;
  request.fn = fn;
  request.n_args = n_args;
  for (uint32_t i = 0; i < n_args && i < GRADING_MAX_ARGS; i++)
    request.args[i] = args[i];
  grading_reply reply;
  char call[512], fate[128];
  if (!grading_write_full(channel.request_fd, &request, sizeof request) ||
      !grading_read_full(channel.reply_fd, &reply, sizeof reply)) {
    describe(call, sizeof call, name, arg_kinds, args, n_args);
    server_fate(fate, sizeof fate);
    ck_abort_msg("%s during %s%s", GRADING_NO_REPLY, call, fate);
  }
  if (reply.nonce != request.nonce || reply.seq != request.seq || reply.fn != fn) {
    describe(call, sizeof call, name, arg_kinds, args, n_args);
    ck_abort_msg("%s during %s: not the answer to this call (the exercise wrote to the "
                 "grading channel)",
                 GRADING_BAD_REPLY, call);
  }
  if (reply.n_choice != n_choice) {
    describe(call, sizeof call, name, arg_kinds, args, n_args);
    ck_abort_msg("%s during %s: %u fields where the contract has %u (the exercise wrote to "
                 "the grading channel)",
                 GRADING_BAD_REPLY, call, (unsigned)reply.n_choice, (unsigned)n_choice);
  }
  return reply;
}

double grading_call(uint32_t fn, const char *name, const char *arg_kinds, const grading_value *args,
                    uint32_t n_args) {
  return exchange(fn, name, arg_kinds, args, n_args, 0).value;
}

void grading_call_choice(uint32_t fn, const char *name, const char *arg_kinds,
                         const grading_value *args, uint32_t n_args, int64_t *choice,
                         uint32_t n_choice) {
  if (n_choice > GRADING_MAX_CHOICE) ck_abort_msg("grading: %s has too many fields", name);
  grading_reply reply = exchange(fn, name, arg_kinds, args, n_args, n_choice);
  memcpy(choice, reply.choice, n_choice * sizeof *choice);
}

void grading_report(void *runner_ptr, int fd) {
  SRunner *runner = runner_ptr;
  int n = srunner_ntests_run(runner);
  TestResult **results = srunner_results(runner);
  FILE *out = fdopen(fd, "w");
  if (!out) return;
  for (int i = 0; i < n && results; i++) {
    TestResult *r = results[i];
    int type = tr_rtype(r);
    const char *verdict = type == CK_PASS ? "ok" : type == CK_FAILURE ? "fail" : "error";
    /* The parts are known only for a case that ran to its end (not one a reply ended). */
    const char *msg = type == CK_PASS ? "" : tr_msg(r);
    int ended =
        type == CK_PASS || (msg && strncmp(msg, GRADING_NO_REPLY, strlen(GRADING_NO_REPLY)) &&
                            strncmp(msg, GRADING_BAD_REPLY, strlen(GRADING_BAD_REPLY)));
    fprintf(out, "%s\t%s\t%s\t", tr_tcname(r), verdict,
            ended && type != CK_ERROR ? grading_case_parts() : "value=fail");
    for (const char *m = type == CK_PASS ? "" : tr_msg(r); m && *m; m++)
      fputc(*m == '\t' || *m == '\n' || *m == '\r' ? ' ' : *m, out);
    fputc('\n', out);
  }
  free(results);
  fclose(out);
}
