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

#include <dirent.h>
#include <errno.h>
#include <grp.h>
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

/* The program's own limits: what every process of it gets. RLIMIT_NPROC is 'n_procs' (0:
 * none), counted as the kernel counts it: the uid's processes, in its user namespace. */
static void apply_limits(const sandbox_spec *spec, unsigned n_procs) {
  set_limit(RLIMIT_CPU, ceil(spec->cpu_s));
  set_limit(RLIMIT_AS, spec->memory_bytes);
  set_limit(RLIMIT_FSIZE, spec->output_bytes);
  set_limit(RLIMIT_NOFILE, 256.0);
  if (n_procs) set_limit(RLIMIT_NPROC, (double)n_procs);
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

static void exec_program(const sandbox_spec *spec, unsigned n_procs) __attribute__((noreturn));

/* The limits come last: between them and execve nothing may allocate (a sanitizer's runtime in
 * the grader maps its shadow memory lazily, and RLIMIT_AS would refuse it). */
static void exec_program(const sandbox_spec *spec, unsigned n_procs) {
  if (spec->cwd && chdir(spec->cwd) != 0) {
    dprintf(2, "scale grade: cannot enter %s: %s\n", spec->cwd, strerror(errno));
    _exit(127);
  }
  apply_limits(spec, n_procs);
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
 * falls back to clone()); with 'no_sockets' (no network namespace around it) socket() gets
 * EACCES; everything else is allowed. */
static bool load_seccomp(bool no_sockets) {
  struct sock_filter prog[8 + 2 * (sizeof denied / sizeof denied[0]) + 10];
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
  if (no_sockets) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
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
static bool load_seccomp(bool no_sockets) {
  (void)no_sockets;
  return false;
}
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

/* ---- what every sandbox gives --------------------------------------------------------------- */

/* The system, read and run only: programs, libraries, the loader's cache, the compiler's
 * alternatives (sandbox_system_dirs()). */
static const char *const system_dirs[] = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                          "/lib64", "/libx32", "/etc",  NULL};
/* The devices, read and written. */
static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom"};

const char *const *sandbox_system_dirs(void) { return system_dirs; }

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
  for (size_t i = 0; system_dirs[i]; i++) {
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
} init_args;

static void confine_program(bool no_sockets) {
  if (!drop_capabilities() || prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 ||
      !load_seccomp(no_sockets)) {
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
  /* Raw system calls: this is a clone() of a grader that may have threads (OpenBLAS starts
   * some at load), and glibc's setresuid would wait for each of them to follow, forever. */
  if (syscall(SYS_setresgid, INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0 ||
      syscall(SYS_setresuid, INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0) {
    dprintf(2, "scale grade: the sandbox has no uid: %s\n", strerror(errno));
    _exit(125);
  }
  /* A raw fork, for the same reason: glibc's would wait on the grader's threads' locks. */
  pid_t program = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
  if (program < 0) _exit(125);
  if (program == 0) {
    close(a->status_fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L);
    install_fds(a->spec);
    confine_program(false);
    exec_program(a->spec, a->spec->n_procs); /* counted in this user namespace alone */
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
  init_args args = {spec, go[0], status[1]};
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
  proc->mode = SANDBOX_NAMESPACES;
  proc->uid = 0;
  return true;
}
#endif

/* ---- Landlock: confinement without namespaces ------------------------------------------------ */

#ifdef __linux__
/* The kernel's interface (linux/landlock.h), spelled out: the headers of older systems (Ubuntu
 * 22.04's 5.15) lack the later rights, and the attribute grew with each ABI. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_ALL_ABI1 ((1ULL << 13) - 1) /* execute .. make_sym */
#define LL_FS_REFER (1ULL << 13)          /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)       /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)      /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)       /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

typedef struct {
  uint64_t handled_access_fs, handled_access_net, scoped;
} ll_ruleset_attr;

typedef struct __attribute__((packed)) {
  uint64_t allowed_access;
  int32_t parent_fd;
} ll_path_beneath;

int sandbox_landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi > 0 ? (int)abi : 0;
}

/* Every file-system right the kernel of 'abi' knows. */
static uint64_t ll_fs_rights(int abi) {
  uint64_t all = LL_FS_ALL_ABI1;
  if (abi >= 2) all |= LL_FS_REFER;
  if (abi >= 3) all |= LL_FS_TRUNCATE;
  if (abi >= 5) all |= LL_FS_IOCTL_DEV;
  return all;
}

/* Allows 'rights' beneath 'path' (a folder, or a file: then only its file rights). A path that
 * does not exist here (/lib32 on most systems) is no error. */
static bool ll_allow(int ruleset, const char *path, uint64_t rights, uint64_t fs_all) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  struct stat st;
  uint64_t file_rights =
      LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= file_rights;
  ll_path_beneath rule = {rights & fs_all, fd};
  bool ok = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0U) == 0;
  close(fd);
  return ok;
}

/* The ruleset of 'spec': the system read and run, the devices, its folders; nothing else. */
static int ll_ruleset(const sandbox_spec *spec, int abi) {
  uint64_t fs_all = ll_fs_rights(abi);
  ll_ruleset_attr attr = {fs_all, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP,
                          LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL};
  size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0U);
  if (ruleset < 0) return -1;
  uint64_t read_run = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
  bool ok = true;
  for (size_t i = 0; system_dirs[i]; i++)
    ok = ok && ll_allow(ruleset, system_dirs[i], read_run, fs_all);
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
    ok = ok && ll_allow(ruleset, devices[i], LL_FS_READ_FILE | LL_FS_WRITE_FILE, fs_all);
  for (int i = 0; i < SANDBOX_MAX_DIRS; i++) {
    if (spec->writable[i]) ok = ok && ll_allow(ruleset, spec->writable[i], fs_all, fs_all);
    if (spec->readonly[i]) ok = ok && ll_allow(ruleset, spec->readonly[i], read_run, fs_all);
  }
  if (!ok) {
    close(ruleset);
    return -1;
  }
  return ruleset;
}

static void refuse_start(const char *what) __attribute__((noreturn));
static void refuse_start(const char *what) {
  dprintf(2, "scale grade: the sandbox could not %s: %s\n", what, strerror(errno));
  _exit(126);
}

/* The child of a confined start, up to exec: the rules are made while it may still open the
 * grader's folders (as root, whatever the modes above them), then it becomes the student. */
static void confine_landlock(const sandbox_spec *spec, unsigned uid, unsigned n_procs) {
  int abi = sandbox_landlock_abi();
  if (spec->cwd && chdir(spec->cwd) != 0) refuse_start("enter its folder");
  int ruleset = ll_ruleset(spec, abi);
  if (ruleset < 0) refuse_start("make its Landlock rules");
  for (int cap = 0; uid && cap <= 63; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0L, 0L, 0L) != 0 && errno == EINVAL) break;
  if (uid &&
      (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0))
    refuse_start("take the student's uid");
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L); /* after the uid: a change of it clears this */
  if (!drop_capabilities() || prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0)
    refuse_start("drop privileges");
  if (syscall(SYS_landlock_restrict_self, ruleset, 0U) != 0) refuse_start("apply Landlock");
  close(ruleset);
  if (!load_seccomp(true)) refuse_start("load its seccomp filter");
  apply_limits(spec, n_procs);
  execve(spec->argv[0], spec->argv, spec->envp);
  dprintf(2, "scale grade: cannot run %s: %s\n", spec->argv[0], strerror(errno));
  _exit(127);
}
#else
int sandbox_landlock_abi(void) { return 0; }
#endif

bool sandbox_mount_tmpfs(const char *dir, double bytes, unsigned uid) {
#ifdef __linux__
  char opts[128];
  snprintf(opts, sizeof opts, "size=%.0f,nr_inodes=16384,mode=0755,uid=%u,gid=%u", bytes, uid,
           uid);
  return getuid() == 0 && bytes >= 4096 &&
         mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) == 0;
#else
  (void)dir, (void)bytes, (void)uid;
  return false;
#endif
}

bool sandbox_private_mounts(void) {
#ifdef __linux__
  return getuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
         mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
#else
  return false;
#endif
}

void sandbox_unmount(const char *dir) {
#ifdef __linux__
  umount2(dir, MNT_DETACH);
#else
  (void)dir;
#endif
}

/* RLIMIT_NPROC of a program that runs as 'uid' outside any user namespace of its own: the
 * student's own uid carries n_procs alone; a uid shared with the grader (an unprivileged
 * teacher) counts the user's every process, so the limit is what runs now plus n_procs. */
static unsigned nproc_limit(const sandbox_spec *spec, unsigned uid) {
  if (!spec->n_procs) return 0;
  if (uid != 0) return spec->n_procs;
  if (getuid() == 0) return 0; /* root: RLIMIT_NPROC does not apply */
  return sandbox_user_tasks((unsigned)getuid()) + spec->n_procs;
}

/* ---- orphans ----------------------------------------------------------------------------------
 */

void sandbox_adopt_orphans(void) {
#ifdef __linux__
  prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
#endif
}

unsigned sandbox_user_tasks(unsigned uid) {
  DIR *proc = opendir("/proc");
  unsigned n = 0;
  for (struct dirent *entry; proc && (entry = readdir(proc)) != NULL;) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    char path[300], line[256];
    snprintf(path, sizeof path, "/proc/%s/status", entry->d_name);
    FILE *in = fopen(path, "r");
    if (!in) continue;
    unsigned real = ~0U, threads = 1;
    while (fgets(line, sizeof line, in)) {
      if (strncmp(line, "Uid:", 4) == 0) real = (unsigned)strtoul(line + 4, NULL, 10);
      if (strncmp(line, "Threads:", 8) == 0) threads = (unsigned)strtoul(line + 8, NULL, 10);
    }
    fclose(in);
    if (real == uid) n += threads;
  }
  if (proc) closedir(proc);
  return n;
}

/* The children of this process (every thread's) into 'pids' (at most 'cap'); how many. */
static size_t list_children(pid_t *pids, size_t cap) {
  size_t n = 0;
#ifdef __linux__
  DIR *tasks = opendir("/proc/self/task");
  for (struct dirent *task; tasks && (task = readdir(tasks)) != NULL;) {
    if (task->d_name[0] == '.') continue;
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/children", task->d_name);
    FILE *in = fopen(path, "r");
    long pid = 0;
    while (in && n < cap && fscanf(in, "%ld", &pid) == 1)
      pids[n++] = (pid_t)pid;
    if (in) fclose(in);
  }
  if (tasks) closedir(tasks);
#else
  (void)pids;
  (void)cap;
#endif
  return n;
}

/* Kills every process of 'uid' (the student's own): a child that takes the uid and signals
 * all it may (kill(-1) spares only itself), until none is left. */
static void kill_uid(unsigned uid) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) _exit(1);
    for (int round = 0; round < 3 && kill(-1, SIGKILL) == 0; round++) {
    } /* zombies answer too: the subreaper's rounds reap what this kills */
    _exit(0);
  }
  while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
}

void sandbox_reap_orphans(const pid_t *keep, size_t n_keep, unsigned uid) {
  if (uid != 0 && getuid() == 0) kill_uid(uid);
  pid_t pids[1024];
  for (int round = 0; round < 10000; round++) {
    size_t n = list_children(pids, sizeof pids / sizeof pids[0]), killed = 0;
    for (size_t i = 0; i < n; i++) {
      bool kept = false;
      for (size_t k = 0; k < n_keep && !kept; k++)
        kept = pids[i] == keep[k];
      if (kept) continue;
      kill(pids[i], SIGKILL);
      killed++;
    }
    if (killed == 0) break;
    for (size_t i = 0; i < n; i++) { /* their orphans come to us once they are reaped */
      bool kept = false;
      for (size_t k = 0; k < n_keep && !kept; k++)
        kept = pids[i] == keep[k];
      if (!kept) waitpid(pids[i], NULL, 0);
    }
  }
}

/* ---- plain processes ------------------------------------------------------------------------ */

/* A plain child in a process group of its own: under Landlock (spec->mode) confined as
 * above, with a root grader's student uid; else with the limits alone. */
static bool start_grouped(const sandbox_spec *spec, sandbox_proc *proc, char *why,
                          size_t why_size) {
  bool landlock = spec->mode == SANDBOX_LANDLOCK;
#ifndef __linux__
  if (landlock) {
    snprintf(why, why_size, "Landlock needs Linux");
    return false;
  }
#endif
  unsigned uid = landlock && getuid() == 0 ? spec->outside_uid : 0;
  unsigned n_procs = nproc_limit(spec, uid);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, why_size, "cannot fork: %s", strerror(errno));
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);
    install_fds(spec);
#ifdef __linux__
    if (landlock) confine_landlock(spec, uid, n_procs);
#endif
    exec_program(spec, n_procs);
  }
  setpgid(pid, pid);
  proc->pid = pid;
  proc->status_fd = -1;
  proc->mode = spec->mode;
  proc->uid = uid;
  return true;
}

bool sandbox_start(const sandbox_spec *spec, sandbox_proc *proc, char *why, size_t why_size) {
  snprintf(why, why_size, "%s", "");
#ifdef __linux__
  if (spec->mode == SANDBOX_NAMESPACES) return start_isolated(spec, proc, why, why_size);
#else
  if (spec->mode == SANDBOX_NAMESPACES) {
    snprintf(why, why_size, "isolation needs Linux namespaces");
    return false;
  }
#endif
  return start_grouped(spec, proc, why, why_size);
}

/* The result of an ended 'proc' whose own wait status is 'status'. */
static void finish(sandbox_proc *proc, int status, bool timed_out, sandbox_result *result) {
  int program = status;
  if (proc->mode == SANDBOX_NAMESPACES) {
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
  if (proc->mode != SANDBOX_NAMESPACES) kill(-proc->pid, SIGKILL); /* what it left in its group */
  finish(proc, status, false, result);
  return true;
}

void sandbox_kill(sandbox_proc *proc, sandbox_result *result) {
  if (proc->pid <= 0) return;
  if (proc->mode != SANDBOX_NAMESPACES) kill(-proc->pid, SIGKILL);
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
  if (spec->mode != SANDBOX_NAMESPACES) sandbox_reap_orphans(NULL, 0, proc.uid);
  return result;
}

/* ---- the probe ------------------------------------------------------------------------------ */

bool sandbox_probe(const char *dir, unsigned outside_uid, sandbox_mode mode) {
#ifdef __linux__
  if (mode == SANDBOX_NONE) return true;
  /* Landlock alone cannot keep an unprivileged grader's students from signalling its own
   * processes before ABI 6 (the signal scope); as root their uid does. */
  if (mode == SANDBOX_LANDLOCK && sandbox_landlock_abi() < (getuid() == 0 ? 1 : 6)) return false;
  /* The probe program is the shell: it must write inside, not see the grader's folder above
   * and fail to mount; what it writes beside its folder must not appear outside. */
  char inner[4096], root[4200], cmd[9000];
  snprintf(inner, sizeof inner, "%s/inner", dir);
  snprintf(root, sizeof root, "%s/root", dir);
  if (!make_dirs(inner) || !make_dirs(root)) return false;
  if (getuid() == 0 && (chown(inner, outside_uid, outside_uid) != 0)) return false;
  /* Relative paths: under Landlock a root grader's probe has the student's uid, which may not
   * cross the folders above 'dir' (a 0700 temporary folder); it starts in 'inner'. */
  snprintf(cmd, sizeof cmd, "%s",
           "touch in && { touch ../beside; true; } 2>/dev/null && ! ls ../root >/dev/null 2>&1 "
           "&& ! mount -t tmpfs none /tmp 2>/dev/null");
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
                       .mode = mode};
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
  return mode == SANDBOX_NONE;
#endif
}
