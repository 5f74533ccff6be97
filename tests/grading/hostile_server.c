/* hostile_server.c — a student's server that speaks the grading protocol (grading_channel.h)
 * with the right nonce, sequence and function, but answers what a decision exercise's proxy
 * must refuse: HOSTILE_FIELDS fields (default 3) in every reply, whatever the contract says,
 * with garbage in all sixteen. CTest grading.hostile-reply runs chapter 13's checker against
 * it: the case fails as a bad reply (no credit), never reads past the fields it expects.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grading_channel.h"
#include "grading_io.h"

int main(void) {
  const char *fields = getenv("HOSTILE_FIELDS");
  uint32_t n_choice = fields ? (uint32_t)strtoul(fields, NULL, 10) : 3u;
  grading_request request;
  while (grading_read_full(0, &request, sizeof request)) {
    grading_reply reply;
    memset(&reply, 0xff, sizeof reply);
    reply.nonce = request.nonce;
    reply.seq = request.seq;
    reply.fn = request.fn;
    reply.n_choice = n_choice;
    if (!grading_write_full(1, &reply, sizeof reply)) return 1;
  }
  return 0;
}
