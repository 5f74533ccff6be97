/* grading_channel.h — how a grading suite calls a student's functions in another process.
 *
 * The suite (the trusted "checker": test_NN_slug.c, the reference solution and Check) never
 * links a student's code. Each ex_* function it calls is a generated proxy that sends the call
 * (function index and arguments) down a pipe to the student's "server" (the student's object
 * linked with grading_driver.c and a generated dispatch table) and reads the returned double
 * back, or a decision exercise's struct of int64_t fields. The checker alone compares values
 * and decides the verdict; the server's only power is the values it answers. A server that
 * ends, crashes or answers out of turn during a call scores nothing for that exercise:
 *   - end of file on the reply pipe: the proxy fails the case with GRADING_NO_REPLY;
 *   - a reply whose nonce, sequence number or function does not match the call just sent
 *     (bytes the student's code wrote itself), or whose number of fields is not the
 *     contract's: GRADING_BAD_REPLY.
 * A decision's fields themselves are checked by the suite against the allowed choices
 * (grading_decision.h): a huge, negative or otherwise unlisted value earns nothing.
 * The nonce is drawn per checker run from getrandom(); it tells a reply to this call apart
 * from stale or injected bytes, it is not a secret the verdict rests on.
 *
 * The server reads calls on its fd 0 and answers on its fd 1. Two ways to get one, per case:
 *   - `scale grade` starts the server in its sandbox and hands the checker the other ends as
 *     fds 3 (replies) and 4 (calls), with SCALE_GRADE_CHANNEL=3,4 in the checker's environment;
 *   - CTest (the grading.NN-slug tests of our own solutions) names the server program in
 *     SCALE_GRADE_SERVER, and each forked test case starts its own.
 */
#ifndef SCALE_GRADING_CHANNEL_H
#define SCALE_GRADING_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define GRADING_MAX_ARGS 16
/** Most int64 fields a decision exercise may return (a struct of int64_t fields: a layout's
 * degrees, a strategy's number). */
#define GRADING_MAX_CHOICE 16

/** Text that starts a failure message when the server gave no reply (scale grade looks for it
 * and names what happened to the server: exit, signal or timeout). */
#define GRADING_NO_REPLY "no reply from the exercise"
/** Text that starts a failure message when the server's reply was not the answer to the call. */
#define GRADING_BAD_REPLY "bad reply from the exercise"

/** One argument: every contract parameter is a double, an int64_t or an int (sent as int64). */
typedef union {
  double d;
  int64_t l;
} grading_value;

/** A call, checker -> server. */
typedef struct {
  uint64_t nonce;
  uint32_t seq;
  uint32_t fn;     /**< index into grading_functions[] */
  uint32_t n_args; /**< must equal the function's own count */
  uint32_t pad;
  grading_value args[GRADING_MAX_ARGS];
} grading_request;

/** Its answer, server -> checker: one size for every function. A function returning a double
 * answers 'value' with n_choice 0; a decision exercise (a struct of int64_t fields) answers its
 * fields in choice[0..n_choice), n_choice being the struct's field count. The checker accepts
 * nothing else: a count that is not the contract's is a bad reply. */
typedef struct {
  uint64_t nonce;
  uint32_t seq;
  uint32_t fn;
  double value;
  uint32_t n_choice;
  uint32_t pad;
  int64_t choice[GRADING_MAX_CHOICE];
} grading_reply;

/** One function of the contract, on the server's side (generated dispatch table): 'call' for a
 * function returning a double, 'choose' (writing n_choice fields) for a decision exercise. */
typedef struct {
  const char *name;
  uint32_t n_args;
  double (*call)(const grading_value *args);
  uint32_t n_choice;
  void (*choose)(const grading_value *args, int64_t *choice);
} grading_function;

extern const grading_function grading_functions[];
extern const size_t grading_n_functions;

/** The checker's side of a call: sends it, waits for the reply and returns its value; on no
 * reply or a bad one, fails the current Check test case (ck_abort_msg) naming 'name' and the
 * arguments. Used by the generated proxies only. */
double grading_call(uint32_t fn, const char *name, const char *arg_kinds,
                    const grading_value *args, uint32_t n_args);

/** The checker's side of a decision exercise: as grading_call(), the reply's n_choice fields
 * into 'choice'; a reply with another count fails the case as a bad reply. Used by the
 * generated proxies only (the checker validates the values themselves, grading.h). */
void grading_call_choice(uint32_t fn, const char *name, const char *arg_kinds,
                         const grading_value *args, uint32_t n_args, int64_t *choice,
                         uint32_t n_choice);

/** Writes the results of 'runner' (a Check SRunner, after srunner_run_all) to fd 'fd' as one
 * line per test case: "ID<TAB>ok|fail|error<TAB>PARTS<TAB>message", PARTS "value=fail",
 * "value=ok domain=fail" or "value=ok domain=ok" (grading.h), tabs and newlines of the message
 * turned into spaces. Used by grade_run() when scale grade runs the checker. */
void grading_report(void *runner, int fd);

/** The parts of the case that ran last (grading_expected.c). */
const char *grading_case_parts(void);

#endif
