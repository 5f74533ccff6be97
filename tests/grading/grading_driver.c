/* grading_driver.c — the student's side of grading_channel.h: main() of the exercise server.
 *
 * Linked with one chapter's generated dispatch table and the student's object. Reads calls on
 * fd 0 (scale grade: fd 4's other end; CTest: a pipe), answers each on fd 1, and exits 0 at end
 * of input. It runs inside the student's process, so nothing here is trusted: the checker
 * checks every reply. Anything the student's functions print goes to stderr's log, never to
 * the channel: fd 1 is moved out of the way before the first call.
 */
#define _POSIX_C_SOURCE 200809L /* F_DUPFD_CLOEXEC */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grading_channel.h"
#include "grading_io.h"

int main(void) {
  /* The channel moves off fds 0/1, which become /dev/null and stderr, so that a printf in an
   * exercise cannot corrupt a reply by accident. */
  int in = fcntl(0, F_DUPFD_CLOEXEC, 10), out = fcntl(1, F_DUPFD_CLOEXEC, 10);
  int devnull = open("/dev/null", O_RDONLY);
  if (in < 0 || out < 0 || devnull < 0) return 125;
  dup2(devnull, 0);
  dup2(2, 1);
  close(devnull);
  grading_request request;
  while (grading_read_full(in, &request, sizeof request)) {
    grading_reply reply;
    memset(&reply, 0, sizeof reply);
    reply.nonce = request.nonce;
    reply.seq = request.seq;
    reply.fn = request.fn;
    reply.value = NAN;
    if (request.fn < grading_n_functions &&
        request.n_args == grading_functions[request.fn].n_args) {
      const grading_function *f = &grading_functions[request.fn];
      if (f->choose) {
        reply.value = 0.0;
        reply.n_choice = f->n_choice;
        f->choose(request.args, reply.choice);
      } else {
        reply.value = f->call(request.args);
      }
    }
    if (!grading_write_full(out, &reply, sizeof reply)) return 125;
  }
  return 0;
}
