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
 * Confined (SANDBOX_LANDLOCK: no user namespaces, as in a Docker-style container, or a teacher
 * whose kernel refuses them; Landlock ABI 1 as root, ABI 6 otherwise): the program is a plain
 * child in a process group of its own, with
 *   - a root grader: a uid and gid of the student's own (setgroups to none, setresgid,
 *     setresuid), so RLIMIT_NPROC counts only that student and kill(-1) as that uid ends every
 *     process the student left; no capabilities;
 *   - Landlock: the system folders read and run only, five device nodes, the named folders
 *     (read-only or writable); nothing else of the file system at all (no /proc, no /tmp, no
 *     source tree, no other student); no TCP bind or connect (ABI 4); no signal to, and no
 *     abstract socket of, a process outside (ABI 6);
 *   - PR_SET_NO_NEW_PRIVS, the seccomp filter above plus socket(): no network at all;
 *   - RLIMIT_CPU, AS, FSIZE, NOFILE and NPROC (an unprivileged grader shares its uid with the
 *     students: NPROC is then the uid's processes at the start plus n_procs, and the grader
 *     grades one student at a time).
 * What it does not have: its own PID namespace (without /proc it lists no process, and
 * Landlock or its uid keep it from signalling any outside), its own network namespace
 * (seccomp refuses sockets instead),
 * a private /tmp (TMPDIR is a writable folder the grader names), a bound total memory (each
 * process RLIMIT_AS). Nothing it starts outlives it: the grader is the subreaper of its
 * processes (PR_SET_CHILD_SUBREAPER) and kills every orphan after each run
 * (sandbox_reap_orphans), and a root grader kills by uid as well.
 *
 * Not isolated (SANDBOX_NONE: --no-sandbox): rlimits and a process group only. That protects
 * against accidents, not against hostile code; `scale grade --class` refuses it.
 */
#ifndef SCALE_GRADE_SANDBOX_H
#define SCALE_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SANDBOX_MAX_DIRS 4

/** How a program is confined, from the least to the most. */
typedef enum {
  SANDBOX_NONE = 0,  /**< rlimits and a process group only */
  SANDBOX_LANDLOCK,  /**< no namespaces: own uid (root), Landlock, seccomp, rlimits */
  SANDBOX_NAMESPACES /**< own namespaces and root, seccomp, rlimits */
} sandbox_mode;

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
  double tmp_bytes;     /**< size of its private /tmp (namespaces only; 0: 16 MiB) */
  unsigned n_procs;     /**< its processes at most (RLIMIT_NPROC; see above where the uid is
                             shared) */
  unsigned outside_uid; /**< the uid it runs as outside (root: the student's own) */
  sandbox_mode mode;
} sandbox_spec;

/** A started program. */
typedef struct {
  pid_t pid;     /**< the process to wait for: the namespace's first process, or the program */
  int status_fd; /**< namespaces: where the first process writes the program's wait status */
  sandbox_mode mode;
  unsigned uid; /**< the uid it runs as when that is the student's own (root), else 0 */
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

/** Whether 'mode' works here: a program confined to 'dir' (a fresh folder of the grader's,
 * removed again) can write in it, cannot write next to it, cannot mount, and cannot see '/'. */
bool sandbox_probe(const char *dir, unsigned outside_uid, sandbox_mode mode);

/** The system folders every sandbox lets its programs read and run (NULL-terminated). */
const char *const *sandbox_system_dirs(void);

/** The Landlock ABI of the kernel (0: none). */
int sandbox_landlock_abi(void);

/** Makes this process the subreaper of everything it starts (PR_SET_CHILD_SUBREAPER): an
 * orphan of a student's program comes back to it, never to init. */
void sandbox_adopt_orphans(void);

/** Kills and reaps every child of this process but the 'n_keep' in 'keep' (and so, round
 * after round as they come back, every orphan a program left); as root also every process of
 * 'uid' (nonzero: the student's own). */
void sandbox_reap_orphans(const pid_t *keep, size_t n_keep, unsigned uid);

/** Mounts a fresh tmpfs of at most 'bytes' (and 16384 files) on folder 'dir', owned by 'uid'
 * with mode 0755: a student's disk bound that holds whoever grades, since the kernel, not an
 * rlimit, refuses the write past it (ENOSPC). Root only (CAP_SYS_ADMIN: a Docker container
 * without it cannot): false when it cannot. */
bool sandbox_mount_tmpfs(const char *dir, double bytes, unsigned uid);

/** Gives this process a mount namespace of its own whose mounts do not propagate (root only):
 * what it mounts then goes with it, even when it is killed. False when it cannot. */
bool sandbox_private_mounts(void);

/** Detaches what is mounted on 'dir' (its files go with it). */
void sandbox_unmount(const char *dir);

/** The processes (tasks) of real uid 'uid' now: what RLIMIT_NPROC counts. */
unsigned sandbox_user_tasks(unsigned uid);

#endif
