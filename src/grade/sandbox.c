/* sandbox.c — see sandbox.h. Linux only for isolation; elsewhere sandbox_start() runs with
 * rlimits and a process group, and sandbox_probe() says isolation is unavailable.
 *
 * Isolated start, step by step:
 *   grader:  clone(new user, mount, PID, net, IPC, UTS namespaces) -> "init" (pid 1 inside);
 *            writes init's uid_map/gid_map (inside uid 1000 -> outside_uid) and lets it go on.
 *   init:    builds the new root (tmpfs, read-only system folders, devices, /proc, /tmp, the
 *            named folders), pivot_root()s into it, forks the program and waits for it, writes
 *            its wait status to status_fd and exits: the kernel then kills what is left.
 *   program: rlimits, no capabilities, no new privileges, seccomp, working directory, exec.
 * Inside uid 1000 is not root: exec drops every capability init held.
 */
#define _GNU_SOURCE /* clone(2), unshare, mount, pivot_root via syscall, close_range */

#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

/* The uid and gid of the program inside its user namespace: not 0, so exec drops capabilities;
 * and of a root grader inside it while the first process builds the root (not 0 either). */
#define INSIDE_ID 1000
#define GRADER_ID 2000

static void set_limit(int resource, double value) {
  if (!(value > 0.0)) return;
  struct rlimit limit = {(rlim_t)value, (rlim_t)value};
  setrlimit(resource, &limit);
}

/* Installs spec->fds as 0..5 and closes every other descriptor. */
static void install_fds(const sandbox_spec *spec) {
  int moved[6];
  for (int i = 0; i < 6; i++) /* above 5 first, so that dup2 below never clobbers a source */
    moved[i] = spec->fds[i] >= 0 ? fcntl(spec->fds[i], F_DUPFD, 10) : -1;
  for (int i = 0; i < 6; i++) {
    int fd = moved[i];
    if (fd < 0 && i <= 2) fd = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
    if (fd >= 0)
      dup2(fd, i);
    else
      close(i);
  }
#ifdef __linux__
  if (syscall(SYS_close_range, 6U, ~0U, 0U) == 0) return;
#endif
  for (int fd = 6; fd < 4096; fd++)
    close(fd);
}

/* The program's own limits: what every process of it gets. */
static void apply_limits(const sandbox_spec *spec, bool own_uid) {
  set_limit(RLIMIT_CPU, ceil(spec->cpu_s));
  set_limit(RLIMIT_AS, spec->memory_bytes);
  set_limit(RLIMIT_FSIZE, spec->output_bytes);
  set_limit(RLIMIT_NOFILE, 256.0);
  if (own_uid && spec->n_procs) set_limit(RLIMIT_NPROC, (double)spec->n_procs);
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

static void exec_program(const sandbox_spec *spec, bool own_uid) __attribute__((noreturn));

/* The limits come last: between them and execve nothing may allocate (a sanitizer's runtime in
 * the grader maps its shadow memory lazily, and RLIMIT_AS would refuse it). */
static void exec_program(const sandbox_spec *spec, bool own_uid) {
  if (spec->cwd && chdir(spec->cwd) != 0) {
    dprintf(2, "scale grade: cannot enter %s: %s\n", spec->cwd, strerror(errno));
    _exit(127);
  }
  apply_limits(spec, own_uid);
  execve(spec->argv[0], spec->argv, spec->envp);
  dprintf(2, "scale grade: cannot run %s: %s\n", spec->argv[0], strerror(errno));
  _exit(127);
}

#ifdef __linux__
/* ---- seccomp -------------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SANDBOX_AUDIT_ARCH
/* Syscalls that only change the system or other processes: refused with EPERM. */
static const long denied[] = {
    SYS_mount,
    SYS_umount2,
    SYS_pivot_root,
    SYS_chroot,
    SYS_unshare,
    SYS_setns,
    SYS_ptrace,
    SYS_process_vm_readv,
    SYS_process_vm_writev,
    SYS_kexec_load,
    SYS_init_module,
    SYS_finit_module,
    SYS_delete_module,
    SYS_keyctl,
    SYS_add_key,
    SYS_request_key,
    SYS_bpf,
    SYS_perf_event_open,
    SYS_userfaultfd,
    SYS_open_by_handle_at,
    SYS_name_to_handle_at,
    SYS_acct,
    SYS_swapon,
    SYS_swapoff,
    SYS_reboot,
    SYS_sethostname,
    SYS_setdomainname,
    SYS_syslog,
    SYS_quotactl,
    SYS_vhangup,
    SYS_personality,
#ifdef SYS_fsopen
    SYS_fsopen,
    SYS_fsmount,
    SYS_fsconfig,
    SYS_move_mount,
    SYS_open_tree,
    SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
#ifdef SYS_io_uring_setup
    SYS_io_uring_setup,
    SYS_io_uring_enter,
    SYS_io_uring_register,
#endif
#ifdef SYS_iopl
    SYS_iopl,
    SYS_ioperm,
#endif
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
};

#define NS_FLAGS                                                                                   \
  (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |       \
   CLONE_NEWCGROUP)

/* Loads the filter: wrong architecture kills; denied syscalls and clone() with a namespace flag
 * get EPERM; clone3() gets ENOSYS (its flags live in memory a filter cannot read: libc then
 * falls back to clone()); everything else is allowed. */
static bool load_seccomp(void) {
  struct sock_filter prog[8 + 2 * (sizeof denied / sizeof denied[0]) + 8];
  size_t n = 0;
#define EMIT(s) prog[n++] = (struct sock_filter)s
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
  EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1)); /* x32 calls */
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
#endif
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)denied[i], 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  }
#ifdef SYS_clone3
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
#endif
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3));
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
  EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef EMIT
  struct sock_fprog fprog = {(unsigned short)n, prog};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0L, 0L) == 0;
}
#else
static bool load_seccomp(void) { return false; }
#endif

/* Drops every capability: bounding set, ambient, effective, permitted, inheritable. */
static bool drop_capabilities(void) {
  for (int cap = 0; cap <= 63; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0L, 0L, 0L) != 0 && errno == EINVAL) break;
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0L, 0L, 0L);
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  return syscall(SYS_capset, &header, data) == 0;
}

/* ---- the new root --------------------------------------------------------------------------- */

static bool write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t len = strlen(text);
  bool ok = write(fd, text, len) == (ssize_t)len;
  return close(fd) == 0 && ok;
}

/* mkdir -p of 'path' (absolute). */
static bool make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return false;
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
      *p = '/';
    }
  return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* Binds 'src' on 'dst' (made as a folder or a file like 'src'), read-only if asked. A read-only
 * remount must restate the flags a user namespace may not drop. */
static bool bind(const char *src, const char *dst, bool readonly) {
  struct stat st;
  if (stat(src, &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) {
    if (!make_dirs(dst)) return false;
  } else {
    int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    close(fd);
  }
  if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0) return false;
  if (!readonly) return true;
  struct statvfs vfs;
  if (statvfs(dst, &vfs) != 0) return false;
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
  if (vfs.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (vfs.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (vfs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (vfs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (vfs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (vfs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return mount(NULL, dst, NULL, flags, NULL) == 0;
}

static void at_root(char *out, size_t size, const char *root, const char *path) {
  snprintf(out, size, "%s%s", root, path);
}

/* Builds the new root on spec->root_dir and moves into it. */
static bool build_root(const sandbox_spec *spec) {
  const char *root = spec->root_dir;
  char dst[4200];
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return false;
  if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755") != 0)
    return false;
  /* The system: programs, libraries, the loader's cache, the compiler's alternatives. */
  static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                            "/lib32", "/lib64", "/libx32", "/etc"};
  for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++) {
    struct stat st;
    if (lstat(system_dirs[i], &st) != 0) continue;
    at_root(dst, sizeof dst, root, system_dirs[i]);
    if (S_ISLNK(st.st_mode)) { /* merged /usr: /bin -> usr/bin */
      char target[4096];
      ssize_t len = readlink(system_dirs[i], target, sizeof target - 1);
      if (len < 0) return false;
      target[len] = '\0';
      if (symlink(target, dst) != 0) return false;
    } else if (S_ISDIR(st.st_mode) && !bind(system_dirs[i], dst, true)) {
      return false;
    }
  }
  static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                        "/dev/urandom"};
  at_root(dst, sizeof dst, root, "/dev");
  if (!make_dirs(dst)) return false;
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
    at_root(dst, sizeof dst, root, devices[i]);
    if (!bind(devices[i], dst, false)) return false;
  }
  char tmp_opts[64];
  double tmp_bytes = spec->tmp_bytes > 0.0 ? spec->tmp_bytes : 16.0 * 1024 * 1024;
  snprintf(tmp_opts, sizeof tmp_opts, "size=%.0f,nr_inodes=1024,mode=1777", tmp_bytes);
  at_root(dst, sizeof dst, root, "/tmp");
  if (!make_dirs(dst) || mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, tmp_opts) != 0)
    return false;
  for (int i = 0; i < SANDBOX_MAX_DIRS; i++) {
    if (spec->writable[i]) {
      at_root(dst, sizeof dst, root, spec->writable[i]);
      if (!bind(spec->writable[i], dst, false)) return false;
    }
    if (spec->readonly[i]) {
      at_root(dst, sizeof dst, root, spec->readonly[i]);
      if (!bind(spec->readonly[i], dst, true)) return false;
    }
  }
  /* Its own /proc (this process is the first of the PID namespace). A kernel that refuses it
   * (a /proc partly hidden by a container) leaves the folder empty: compilers do without. */
  at_root(dst, sizeof dst, root, "/proc");
  if (!make_dirs(dst)) return false;
  mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
  at_root(dst, sizeof dst, root, "/.old");
  if (mkdir(dst, 0700) != 0) return false;
  if (syscall(SYS_pivot_root, root, dst) != 0) return false;
  if (chdir("/") != 0 || umount2("/.old", MNT_DETACH) != 0) return false;
  rmdir("/.old");
  /* The root itself read-only: the program writes only in its folders and /tmp. */
  return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) == 0;
}

/* ---- the namespace's first process ---------------------------------------------------------- */

typedef struct {
  const sandbox_spec *spec;
  int go_fd;     /* read end: the grader wrote the id maps */
  int status_fd; /* write end: the program's wait status */
  bool own_uid;  /* the outside uid is the student's alone (a root grader): RLIMIT_NPROC applies */
} init_args;

static void confine_program(void) {
  if (!drop_capabilities() || prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 || !load_seccomp()) {
    dprintf(2, "scale grade: the sandbox could not drop privileges: %s\n", strerror(errno));
    _exit(126);
  }
}

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Closes every descriptor above 2 but the 'n' in 'keep': a clone holds a copy of all the
 * grader's, and one kept write end of a pipe would keep its reader from seeing the end. */
static void close_all_but(int *keep, size_t n) {
  qsort(keep, n, sizeof *keep, compare_ints);
  unsigned from = 3;
  for (size_t i = 0; i < n; i++) {
    if (keep[i] < (int)from) continue;
    if ((unsigned)keep[i] > from) syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0U);
    from = (unsigned)keep[i] + 1;
  }
  syscall(SYS_close_range, from, ~0U, 0U);
}

/* The first process is a copy of the grader, and its students can read /proc/1: its command
 * line (the grader's arguments: the source tree, the class folder) is blanked in its copy of
 * the memory it is read from; not being dumpable makes its environment, memory maps and links
 * (the host paths of the grader's program and folders) readable only by a process that may
 * ptrace it, which no student's can. After the id maps: they are written through /proc too. */
static void hide_grader(void) {
  prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L);
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char first[4096], rest[4096];
  ssize_t n = read(fd, first, sizeof first);
  size_t first_len = n > 0 ? (size_t)n : 0, total = first_len;
  while (n > 0 && (n = read(fd, rest, sizeof rest)) > 0)
    total += (size_t)n;
  close(fd);
  /* The arguments lie end to end from argv[0] (glibc's program_invocation_name) on. */
  char *args = program_invocation_name;
  if (args && first_len > 0 && memcmp(args, first, first_len) == 0) memset(args, 0, total);
}

/* pid 1 of the new namespaces. */
static int sandbox_init(void *arg) {
  const init_args *a = arg;
  int keep[8] = {a->go_fd, a->status_fd};
  for (int i = 0; i < 6; i++)
    keep[2 + i] = a->spec->fds[i];
  close_all_but(keep, 8);
  char go = 0;
  if (read(a->go_fd, &go, 1) != 1 || go != 'g') _exit(125);
  close(a->go_fd);
  hide_grader();
  /* The root is built while this process still has the grader's own uid outside (not yet
   * mapped inside: its files' owner checks pass), so the grader's folders are reached whatever
   * the modes of the folders above them; then it becomes the student's uid for good. */
  if (!build_root(a->spec)) {
    dprintf(2, "scale grade: the sandbox's root could not be built: %s\n", strerror(errno));
    _exit(125);
  }
  if (setresgid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0 ||
      setresuid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0) {
    dprintf(2, "scale grade: the sandbox has no uid: %s\n", strerror(errno));
    _exit(125);
  }
  pid_t program = fork();
  if (program < 0) _exit(125);
  if (program == 0) {
    close(a->status_fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L);
    install_fds(a->spec);
    confine_program();
    exec_program(a->spec, a->own_uid);
  }
  /* Reap everything (orphans come to us) until the program itself ends. */
  int status = 0;
  for (;;) {
    int st = 0;
    pid_t done = waitpid(-1, &st, 0);
    if (done == program) {
      status = st;
      break;
    }
    if (done < 0 && errno != EINTR) _exit(125);
  }
  ssize_t wrote = write(a->status_fd, &status, sizeof status);
  _exit(wrote == (ssize_t)sizeof status ? 0 : 125);
}

static bool start_isolated(const sandbox_spec *spec, sandbox_proc *proc, char *why,
                           size_t why_size) {
  int go[2], status[2];
  if (pipe2(go, O_CLOEXEC) != 0) return false;
  if (pipe2(status, O_CLOEXEC) != 0) {
    close(go[0]);
    close(go[1]);
    return false;
  }
  /* RLIMIT_NPROC counts every process of the outside uid: only a uid of the student's own
   * (given by a root grader) can carry it without starving the user's other programs. */
  init_args args = {spec, go[0], status[1], getuid() == 0 && spec->outside_uid != 0};
  size_t stack_size = (size_t)1 << 18;
  char *stack = malloc(stack_size);
  pid_t pid = -1;
  if (stack) {
    fflush(NULL);
    pid = clone(sandbox_init, stack + stack_size,
                CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                    CLONE_NEWUTS | SIGCHLD,
                &args);
  }
  int clone_errno = errno;
  free(stack);
  close(go[0]);
  close(status[1]);
  if (pid < 0) {
    snprintf(why, why_size, "cannot make namespaces: %s", strerror(clone_errno));
    close(go[1]);
    close(status[0]);
    return false;
  }
  char path[64], map[128];
  snprintf(path, sizeof path, "/proc/%ld/setgroups", (long)pid);
  write_text(path, "deny");
  bool mapped = true;
  /* The student is INSIDE_ID. A root grader also maps itself, as GRADER_ID (never 0): the first
   * process builds the root as the grader (the files it makes must have a mapped owner), then
   * leaves that uid for good; an unprivileged grader can map only its own uid, which is then
   * both. */
  if (getuid() == 0)
    snprintf(map, sizeof map, "%d %u 1\n%d 0 1\n", INSIDE_ID, spec->outside_uid, GRADER_ID);
  else
    snprintf(map, sizeof map, "%d %u 1\n", INSIDE_ID, (unsigned)getuid());
  snprintf(path, sizeof path, "/proc/%ld/uid_map", (long)pid);
  mapped = mapped && write_text(path, map);
  if (getuid() == 0)
    snprintf(map, sizeof map, "%d %u 1\n%d %u 1\n", INSIDE_ID, spec->outside_uid, GRADER_ID,
             (unsigned)getgid());
  else
    snprintf(map, sizeof map, "%d %u 1\n", INSIDE_ID, (unsigned)getgid());
  snprintf(path, sizeof path, "/proc/%ld/gid_map", (long)pid);
  mapped = mapped && write_text(path, map);
  if (!mapped || write(go[1], "g", 1) != 1) {
    snprintf(why, why_size, "cannot map the sandbox's uid: %s", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(go[1]);
    close(status[0]);
    return false;
  }
  close(go[1]);
  proc->pid = pid;
  proc->status_fd = status[0];
  proc->isolate = true;
  return true;
}
#endif

/* ---- plain processes ------------------------------------------------------------------------ */

static bool start_plain(const sandbox_spec *spec, sandbox_proc *proc, char *why, size_t why_size) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, why_size, "cannot fork: %s", strerror(errno));
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);
    install_fds(spec);
    exec_program(spec, false);
  }
  setpgid(pid, pid);
  proc->pid = pid;
  proc->status_fd = -1;
  proc->isolate = false;
  return true;
}

bool sandbox_start(const sandbox_spec *spec, sandbox_proc *proc, char *why, size_t why_size) {
  snprintf(why, why_size, "%s", "");
#ifdef __linux__
  if (spec->isolate) return start_isolated(spec, proc, why, why_size);
#else
  if (spec->isolate) {
    snprintf(why, why_size, "isolation needs Linux namespaces");
    return false;
  }
#endif
  return start_plain(spec, proc, why, why_size);
}

/* The result of an ended 'proc' whose own wait status is 'status'. */
static void finish(sandbox_proc *proc, int status, bool timed_out, sandbox_result *result) {
  int program = status;
  if (proc->isolate) {
    /* The first process relays the program's status; without it the program never ran to an
     * end of its own (killed with the namespace, or the sandbox failed: exit 125). */
    int relayed = 0;
    ssize_t got = read(proc->status_fd, &relayed, sizeof relayed);
    close(proc->status_fd);
    proc->status_fd = -1;
    if (got == (ssize_t)sizeof relayed) program = relayed;
  }
  result->started = true;
  result->timed_out = timed_out;
  result->exit_code = WIFEXITED(program) ? WEXITSTATUS(program) : 0;
  result->signal = WIFSIGNALED(program) ? WTERMSIG(program) : 0;
  if (!timed_out && result->exit_code == 127 && !result->signal) result->started = false;
  proc->pid = -1;
}

bool sandbox_poll(sandbox_proc *proc, sandbox_result *result) {
  if (proc->pid <= 0) return true;
  int status = 0;
  pid_t done = waitpid(proc->pid, &status, WNOHANG);
  if (done == 0 || (done < 0 && errno == EINTR)) return false;
  if (done < 0) status = 125 << 8;
  if (!proc->isolate) kill(-proc->pid, SIGKILL); /* what it left in its group */
  finish(proc, status, false, result);
  return true;
}

void sandbox_kill(sandbox_proc *proc, sandbox_result *result) {
  if (proc->pid <= 0) return;
  if (!proc->isolate) kill(-proc->pid, SIGKILL);
  kill(proc->pid, SIGKILL);
  int status = 0;
  while (waitpid(proc->pid, &status, 0) < 0 && errno == EINTR) {
  }
  finish(proc, status, true, result);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

sandbox_result sandbox_run(const sandbox_spec *spec, double wall_s, char *why, size_t why_size) {
  sandbox_result result = {false, false, 0, 0};
  sandbox_proc proc;
  if (!sandbox_start(spec, &proc, why, why_size)) return result;
  double start = now_s();
  struct timespec nap = {0, 2 * 1000 * 1000};
  while (!sandbox_poll(&proc, &result)) {
    double elapsed = now_s() - start;
    if (wall_s > 0.0 && elapsed > wall_s) {
      sandbox_kill(&proc, &result);
      break;
    }
    if (elapsed > 0.5) nap.tv_nsec = 20 * 1000 * 1000; /* most runs end within milliseconds */
    nanosleep(&nap, NULL);
  }
  return result;
}

/* ---- the probe ------------------------------------------------------------------------------ */

bool sandbox_probe(const char *dir, unsigned outside_uid) {
#ifdef __linux__
  /* The probe program is the shell: it must write inside, not see the grader's folder above
   * and fail to mount; what it writes beside its folder must not appear outside. */
  char inner[4096], root[4200], cmd[9000];
  snprintf(inner, sizeof inner, "%s/inner", dir);
  snprintf(root, sizeof root, "%s/root", dir);
  if (!make_dirs(inner) || !make_dirs(root)) return false;
  if (getuid() == 0 && (chown(inner, outside_uid, outside_uid) != 0)) return false;
  snprintf(cmd, sizeof cmd,
           "touch '%s/in' && { touch '%s/beside'; true; } 2>/dev/null && ! ls '%s' >/dev/null 2>&1 "
           "&& ! mount -t tmpfs none /tmp 2>/dev/null",
           inner, dir, root);
  char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  char *envp[] = {"PATH=/usr/bin:/bin", NULL};
  sandbox_spec spec = {.argv = argv,
                       .envp = envp,
                       .cwd = inner,
                       .root_dir = root,
                       .writable = {inner},
                       .fds = {-1, -1, -1, -1, -1, -1},
                       .cpu_s = 5.0,
                       .outside_uid = outside_uid,
                       .isolate = true};
  char why[256];
  sandbox_result r = sandbox_run(&spec, 10.0, why, sizeof why);
  char in[4200], beside[4200];
  snprintf(in, sizeof in, "%s/in", inner);
  snprintf(beside, sizeof beside, "%s/beside", dir);
  struct stat st;
  bool ok = r.started && !r.timed_out && !r.signal && r.exit_code == 0 && stat(in, &st) == 0 &&
            stat(beside, &st) != 0;
  remove(in);
  remove(beside);
  rmdir(inner);
  rmdir(root);
  rmdir(dir);
  return ok;
#else
  (void)dir;
  (void)outside_uid;
  return false;
#endif
}
