/* sandbox.h — running a student's program (compiler, linker, exercise server) where it can
 * neither see nor change anything but what the grader hands it, and nothing it starts outlives it.
 *
 * Isolated (the default where the kernel allows user namespaces): the program is the child of
 * the first process of new user, mount, PID, network, IPC and UTS namespaces. Its root is a fresh
 * tmpfs holding only the system folders (/usr, /lib*, /bin, /sbin, /etc) read-only, five device
 * nodes, its own /proc, a small private /tmp, and the folders the grader names (read-only or
 * writable) at their own paths: no source tree, no solutions, no harness but what is copied in.
 * It runs as an unprivileged uid (root outside maps it to a uid of its own per student, so
 * RLIMIT_NPROC counts only that student), without capabilities, with PR_SET_NO_NEW_PRIVS and a
 * seccomp filter that refuses mount, ptrace, unshare, setns, namespace clones, bpf, keyctl and
 * the like. The first process (pid 1 inside, a copy of the grader) blanks its command line and
 * is not dumpable: /proc/1 shows neither the grader's arguments nor its environment, maps or
 * links. (The mount table still names the bound folders' paths within their filesystem: the
 * kernel shows a bind mount's source; only a student tree on a filesystem of its own would
 * hide it.) When the first process of the PID namespace ends (the program ended, or the grader
 * killed it after its wall-clock limit) the kernel kills every process left in it.
 *
 * Not isolated (--no-sandbox, or no user namespaces): rlimits and a process group only. That
 * protects against accidents, not against hostile code; `scale grade --class` refuses it.
 */
#ifndef SCALE_GRADE_SANDBOX_H
#define SCALE_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SANDBOX_MAX_DIRS 4

/** What to run and how to confine it. */
typedef struct {
  char *const *argv;    /**< the program (an absolute path) and its arguments */
  char *const *envp;    /**< its whole environment (nothing is inherited) */
  const char *cwd;      /**< its working directory (inside a writable or read-only folder) */
  const char *root_dir; /**< an empty folder of the grader's: the mount point of the new root */
  const char *writable[SANDBOX_MAX_DIRS]; /**< folders bound writable at their own paths */
  const char *readonly[SANDBOX_MAX_DIRS]; /**< folders bound read-only at their own paths */
  int fds[6];           /**< its fds 0..5 (-1: /dev/null for 0-2, closed for 3-5) */
  double cpu_s;         /**< RLIMIT_CPU (0: none) */
  double memory_bytes;  /**< RLIMIT_AS (0: none) */
  double output_bytes;  /**< RLIMIT_FSIZE (0: none) */
  double tmp_bytes;     /**< size of its private /tmp (isolated only; 0: 16 MiB) */
  unsigned n_procs;     /**< RLIMIT_NPROC (isolated under a root grader only: the uid is then
                             the student's own; elsewhere it would count the user's programs) */
  unsigned outside_uid; /**< the uid its files belong to outside (root: a per-student uid) */
  bool isolate;         /**< namespaces as above; false: rlimits and a process group only */
} sandbox_spec;

/** A started program. */
typedef struct {
  pid_t pid;     /**< the process to wait for: the namespace's first process, or the program */
  int status_fd; /**< isolated: where the first process writes the program's wait status */
  bool isolate;
} sandbox_proc;

/** How a program ended. */
typedef struct {
  bool started;   /**< it was started and ran (an exec failure is exit status 127) */
  bool timed_out; /**< killed by the grader after its wall-clock limit */
  int exit_code;  /**< exit status, when it exited */
  int signal;     /**< the signal that ended it, 0 if none */
} sandbox_result;

/** Starts spec->argv under 'spec'. Returns false (with a reason in 'why') when it could not. */
bool sandbox_start(const sandbox_spec *spec, sandbox_proc *proc, char *why, size_t why_size);

/** Whether 'proc' has ended; if so fills 'result' (once). Never blocks. */
bool sandbox_poll(sandbox_proc *proc, sandbox_result *result);

/** Kills 'proc' and everything it started (the whole PID namespace, or the process group),
 * then reaps it into 'result' with timed_out set. */
void sandbox_kill(sandbox_proc *proc, sandbox_result *result);

/** Runs 'spec' to its end or for at most 'wall_s' seconds (0: no limit). */
sandbox_result sandbox_run(const sandbox_spec *spec, double wall_s, char *why, size_t why_size);

/** Whether isolation works here: a program confined to 'dir' (a fresh folder of the grader's,
 * removed again) can write in it, cannot write next to it, cannot mount, and cannot see '/'. */
bool sandbox_probe(const char *dir, unsigned outside_uid);

#endif
