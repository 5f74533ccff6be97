#!/bin/sh
# check_attacks.sh SCALE ROOT — a hostile student costs only their own points (CTest
# grading.attacks, label grading; issue 13 §1).
#
# Each attacker is the chapter 1 stubs (every function returns NaN: 0 points when honest) with an
# attack run inside every exercise function, or in a constructor. Every attacker must score 0,
# with a verdict that says what happened; alice (solutions/) in the same class must keep full
# marks; the source tree, the built harness and a folder outside must not change; no process an
# attacker started may outlive the grading.
#   exit, _exit, quick_exit, atexit, execve, raise(SIGKILL), longjmp    end the process early
#   forge          writes fake results on every descriptor and to Check's old log variable
#   include        #include "../../solutions/..." and the absolute path of the reference
#   read           opens the reference at run time (exit 42 if it could)
#   escape         mount(MS_REMOUNT), unshare, writes to the source tree (exit 43-45 if any works)
#   symlink        02-tpus is a link to a folder outside; the code links ../02-tpus there too
#   forkbomb       forks (setsid, never exits) as often as it can: returns the count
#   fill           writes to /tmp until it cannot: the file-size limit (1 MiB) or /tmp (16 MiB)
#   disk           a 32 MiB object; returns the size of its folder's file system (root: 256 MiB)
#   kill           kill(-1), kill(getppid()), kill(1): the grader and its helpers live on
#   net            connects to a TCP listener of this script on 127.0.0.1 (exit 46 if it could)
#   ptrace         PTRACE_ATTACH to its parent and to pid 1 (exit 47 if it could)
#   peek           reads alice's files (her folder, her copy in the build tree), the stored
#                  answers of tests/grading/expected, and opens a checker for writing (48-50)
#   daemon         a setsid()-ed grandchild that outlives the exercise and keeps writing beside
#                  the outside folder's marker and over its class's results
# Every mode is run where it can be: the default (namespaces where the kernel gives them),
# SCALE_GRADE_NO_USERNS=1 (Landlock, as in a Docker-style container), and "--as-user UID" (a
# root caller re-runs this script as that unprivileged uid, with ulimit -u 400).
# Without user namespaces the class part is skipped (exit 77): `scale grade --class` refuses to
# run without its sandbox, and that refusal is checked instead.
# --as-user UID: this script again, as UID (root and setpriv needed; else skipped), with its
# own writable TMPDIR and a process limit a desktop could have.
if [ "$1" = --as-user ]; then
  uid=$2
  shift 2
  if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! command -v bash > /dev/null; then
    echo "check_attacks: skipped: --as-user needs root, setpriv and bash"
    exit 77
  fi
  if ! setpriv --reuid "$uid" --regid "$uid" --clear-groups test -x "$1" -a -r "$2/tests/rubric.tsv"; then
    echo "check_attacks: skipped: uid $uid cannot run $1 or read $2"
    exit 77
  fi
  home=$(mktemp -d /tmp/scale-as-user.XXXXXX) || exit 2 # not TMPDIR: it may be 0700
  chown "$uid:$uid" "$home" || exit 2
  setpriv --reuid "$uid" --regid "$uid" --clear-groups env HOME="$home" TMPDIR="$home" \
    bash -c 'ulimit -u 400 && exec sh "$0" "$@"' "$0" "$@"
  rc=$?
  rm -rf "$home"
  exit $rc
fi
. "$(dirname "$0")/check_lib.sh"
check_begin check_attacks "$@"
# The forkbomb's processes are named after this run alone (15 characters, the most a process
# name holds): counting and killing them never touches another checkout's run beside this one.
marker=scaleatk-$(printf '%s' "${tmp##*.}" | tr -cd 'A-Za-z0-9' | cut -c 1-6)
check_cleanup() {
  pkill -9 -x "$marker" 2>/dev/null
  [ -n "$listener" ] && kill "$listener" 2>/dev/null
}

stub="$root/exercises/01-rooflines/rooflines_ex.c"
ref="$root/solutions/01-rooflines/rooflines_ex.c"
outside="$tmp/outside"
mkdir -p "$outside"
echo "keep me" > "$outside/marker"
cp "$root/exercises/02-tpus/tpus_ex.c" "$outside/tpus_ex.c"

# attacker NAME PRELUDE ATTACK: the stubs, PRELUDE after the includes, and every 'return NAN;'
# replaced by a call of attack(), which runs ATTACK and then returns NaN. ROOT and OUTSIDE in
# either are replaced by the real paths, MARKER by this run's process name.
attacker() {
  dir="$class/$1/01-rooflines"
  mkdir -p "$dir"
  {
    printf '#define _GNU_SOURCE\n#include <fcntl.h>\n#include <setjmp.h>\n#include <signal.h>\n'
    printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n'
    printf '#include <sched.h>\n#include <sys/mount.h>\n#include <sys/prctl.h>\n'
    printf '#include <math.h>\n#include <sys/stat.h>\n#include <sys/ptrace.h>\n'
    printf '#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n'
    printf '%s\n' "$2"
    printf 'static double attack(void) {\n%s\n  return NAN;\n}\n' "$3"
    sed "s/return NAN;/return attack();/" "$stub"
  } | sed "s|ROOT|$root|g; s|OUTSIDE|$outside|g; s|MARKER|$marker|g; s|CLASS|$class|g;
      s|BUILD|$tmp/build|g; s|PORT|${port:-1}|g" > "$dir/rooflines_ex.c"
}

# score_of STUDENT, detail_of STUDENT ID: from the class JSON.
score_of() {
  awk -F'"' -v s="$1" '$2 == "student" {cur = $4} cur == s && $2 == "score" {print $3; exit}' \
    "$tmp/class.json" | tr -d ' :,'
}
detail_of() {
  awk -F'"' -v s="$1" -v id="$2" '$2 == "student" {cur = $4}
    cur == s && $2 == "name" && $4 == id {print; exit}' "$tmp/class.json"
}

# ---- 1. without the sandbox: an early exit is still no pass ---------------------------------
class="$tmp/single"
attacker exit "" "exit(0);"
stage "an early exit without the sandbox"
"$scale" grade --quiet --no-sandbox --source "$root" --exercises "$class/exit" --timeout 2 \
  rooflines > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 0 ]' "grade --no-sandbox exit status $rc: $(cat "$tmp/err")"
check 'grep -qx "total 0/26 .*" "$tmp/out"' "exit(0) scores 0 without the sandbox: $(tail -1 "$tmp/out")"
check 'grep -q "FAIL .*exercise exited before returning (exit status 0) during ex_rooflines" "$tmp/out"' \
  "the verdict says the exercise exited: $(grep FAIL "$tmp/out" | head -1)"

# ---- 1b. one student, as run_autograder grades: a daemon cannot outlive it ------------------
# It forks a setsid()-ed grandchild that keeps rewriting --results (as the one that rewrote
# results.json to a full score under Gradescope): the grader, its subreaper, kills it.
class="$tmp/single"
attacker daemon1 "" "if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, \"MARKER\", 0, 0, 0);
      for (int i = 0; i < 600; i++) {
        FILE *f = fopen(\"RESULTS\", \"w\");
        if (f) { fputs(\"{\\\"score\\\": 100}\", f); fclose(f); }
        usleep(100000);
      }
    }
    _exit(0);
  }"
sed -i "s|RESULTS|$tmp/results.json|g" "$class/daemon1/01-rooflines/rooflines_ex.c"
stage "a daemon beside one student"
"$scale" grade --quiet --source "$root" --exercises "$class/daemon1" --timeout 2 \
  --results "$tmp/results.json" rooflines.t_math_s > "$tmp/out" 2> "$tmp/err"
rc=$?
sleep 1
if [ "$rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
  skip
else
  check '[ "$rc" -eq 0 ] && grep -q "\"score\": 0," "$tmp/results.json"' \
  "the daemon did not rewrite results.json: exit $rc, $(head -c 200 "$tmp/results.json") $(cat "$tmp/err")"
  check '! pgrep -x "$marker" > /dev/null' "the daemon outlived one student's grading"
fi

# ---- 2. the class: every attack, and alice ----------------------------------------------------
class="$tmp/class"
mkdir -p "$class/alice"
cp -R "$root/solutions/01-rooflines" "$root/solutions/02-tpus" "$class/alice/"
stage "alice alone in the class (builds the harness)"
"$scale" grade --quiet --source "$root" --class "$class" --build-dir "$tmp/build" --jobs 2 \
  --timeout 5 --json "$tmp/class.json" rooflines tpus > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
  if grep -q "no sandbox works here" "$tmp/err"; then
    echo "check_attacks: no sandbox here ($(cat "$tmp/err")); class attacks skipped"
    skip
    check_end
  fi
  bad "grade --class (alice alone) exit status $rc: $(cat "$tmp/err")"
fi
# alice's full marks: the points of chapters 01 and 02 ("V" or "V+D" each).
full=$(rubric_points 01-rooflines 02-tpus)
check '[ "$(score_of alice)" = "$full" ]' "alice alone: $(score_of alice)/$full"
# The fingerprint of what must not change: the source tree, the built harness, the outside.
fingerprint() {
  (cd "$root" && find exercises solutions tests/grading tests/rubric.tsv -type f -exec sha256sum {} +) | sort
  (cd "$tmp/build/harness" && find . -type f \( -name 'grade_*' -o -name 'driver-*' -o -name 'recipe-*' \) -exec sha256sum {} +) | sort
  (cd "$outside" && find . -exec ls -ld {} + && sha256sum marker tpus_ex.c)
}
fingerprint > "$tmp/before"

attacker exit "" "exit(0);"
attacker _exit "" "_exit(0);"
attacker quick_exit "" "quick_exit(0);"
attacker atexit "static void forge(void) { _exit(0); }
__attribute__((constructor)) static void arm(void) { atexit(forge); }" "exit(3);"
attacker execve "" "execl(\"/bin/true\", \"true\", (char *)0);"
attacker raise "" "raise(SIGKILL);"
attacker longjmp "static jmp_buf jump;
__attribute__((constructor)) static void arm(void) { if (setjmp(jump)) _exit(0); }" \
  "longjmp(jump, 1);"
attacker forge "__attribute__((constructor)) static void forge(void) {
  static const char line[] = \"rooflines.t_math_s\\tok\\t\\n\";
  char blob[4096];
  memset(blob, 0, sizeof blob);
  for (int fd = 0; fd < 64; fd++) { (void)!write(fd, line, sizeof line - 1); (void)!write(fd, blob, sizeof blob); }
  const char *log = getenv(\"CK_XML_LOG_FILE_NAME\");
  if (log) { FILE *f = fopen(log, \"w\"); if (f) { fputs(\"<test result=\\\"success\\\">\", f); fclose(f); } }
}" ""
mkdir -p "$class/include/01-rooflines"
printf '#include "../../solutions/01-rooflines/rooflines_ex.c"\n#include "%s"\n' "$ref" \
  > "$class/include/01-rooflines/rooflines_ex.c"
attacker read "" "if (fopen(\"ROOT/solutions/01-rooflines/rooflines_ex.c\", \"r\")) exit(42);"
attacker escape "" "if (mount(NULL, \"/\", NULL, MS_REMOUNT | MS_BIND | MS_RELATIME, NULL) == 0) exit(43);
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) exit(44);
  int fd = open(\"ROOT/tests/rubric.tsv\", O_WRONLY | O_APPEND);
  if (fd >= 0 && write(fd, \"x\", 1) == 1) exit(45);"
attacker symlink "" "(void)!symlink(\"OUTSIDE\", \"../02-tpus\"); (void)!symlink(\"OUTSIDE\", \"/tmp/02-tpus\");
  (void)!remove(\"OUTSIDE/marker\");"
ln -s "$outside" "$class/symlink/02-tpus"
attacker forkbomb "" "int n = 0;
  for (int i = 0; i < 1000; i++) {
    pid_t pid = fork();
    if (pid == 0) { setsid(); prctl(PR_SET_NAME, \"MARKER\", 0, 0, 0); for (;;) pause(); }
    if (pid > 0) n++;
  }
  return n;"
attacker fill "" "FILE *f = fopen(\"/tmp/fill\", \"w\"); double n = 0; static char block[1 << 16];
  while (f && fwrite(block, 1, sizeof block, f) == sizeof block && n < 1e10) n += sizeof block;
  return n;"
# disk: a 32 MiB object (and server) at compile time, then the size of the file system its
# server lives on, returned as the answer: where the grader caps it (root), at most 256 MiB.
attacker disk "#include <sys/statvfs.h>
__asm__(\".pushsection .data\\n.fill 33554432,1,0\\n.popsection\");" "struct statvfs v;
  char exe[4096] = \"out\";
  ssize_t k = readlink(\"/proc/self/exe\", exe, sizeof exe - 1);
  if (k > 0) { exe[k] = 0; *strrchr(exe, '/') = 0; }
  return statvfs(exe, &v) == 0 ? (double)v.f_blocks * v.f_frsize : -1;"

# A TCP listener on 127.0.0.1 for net to reach (its port in $port), where python3 is at hand.
port=
if command -v python3 > /dev/null; then
  python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(600)' > "$tmp/port" &
  listener=$!
  for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$tmp/port" ] && break; sleep 0.2; done
  port=$(cat "$tmp/port")
fi
attacker kill "" "if (kill(-1, SIGKILL) == 0 && kill(getppid(), SIGKILL) == 0) {}
  (void)!kill(1, SIGKILL);"
attacker net "" "int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in to = {0};
  to.sin_family = AF_INET; to.sin_port = htons(PORT); to.sin_addr.s_addr = htonl(0x7f000001);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof to) == 0) exit(46);"
attacker ptrace "" "if (ptrace(PTRACE_ATTACH, getppid(), 0, 0) == 0) exit(47);
  if (ptrace(PTRACE_ATTACH, 1, 0, 0) == 0) exit(47);"
attacker peek "" "static const char *const theirs[] = {\"CLASS/alice/01-rooflines/rooflines_ex.c\",
    \"BUILD/students/000-alice/src/01-rooflines/rooflines_ex.c\",
    \"../000-alice/src/01-rooflines/rooflines_ex.c\", \"../../000-alice/src/01-rooflines/rooflines_ex.c\"};
  for (int i = 0; i < 4; i++) if (fopen(theirs[i], \"r\")) exit(48);
  if (fopen(\"ROOT/tests/grading/expected/01-rooflines.tsv\", \"r\")) exit(49);
  int fd = open(\"BUILD/harness/grade_01_rooflines\", O_WRONLY);
  if (fd >= 0) exit(50);"
attacker daemon "" "if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, \"MARKER\", 0, 0, 0);
      for (int i = 0; i < 600; i++) {
        FILE *f = fopen(\"OUTSIDE/daemon\", \"w\"); if (f) fclose(f);
        f = fopen(\"BUILD/results/000.rows\", \"w\"); if (f) fclose(f);
        usleep(100000);
      }
    }
    _exit(0);
  }"

stage "the class of 19 attackers and alice"
"$scale" grade --quiet --source "$root" --class "$class" --build-dir "$tmp/build" --jobs 2 \
  --timeout 5 --json "$tmp/class.json" rooflines tpus > "$tmp/out" 2> "$tmp/err"
rc=$?
stage "graded"
check '[ "$rc" -eq 0 ]' "grade --class with the attackers exit status $rc: $(cat "$tmp/err")"
sleep 1
fingerprint > "$tmp/after"
check 'cmp -s "$tmp/before" "$tmp/after"' \
  "the source tree, the harness or the outside folder changed: $(diff "$tmp/before" "$tmp/after" | head -5)"
check '! pgrep -x "$marker" > /dev/null' "attacker processes outlived the grading: $(pgrep -x "$marker" | wc -l)"

check '[ "$(score_of alice)" = "$full" ]' "alice keeps full marks beside the attackers: $(score_of alice)/$full"
for name in exit _exit quick_exit atexit execve raise longjmp forge include read escape symlink \
  forkbomb fill disk kill net ptrace peek daemon; do
  check '[ "$(score_of $name)" = 0 ]' "$name scores 0: $(score_of $name)"
done
# What each verdict says (a class withholds the expected values: "not the expected value").
check 'detail_of exit rooflines.t_math_s | grep -q "exited before returning (exit status 0)"' \
  "exit: $(detail_of exit rooflines.t_math_s)"
check 'detail_of quick_exit rooflines.t_math_s | grep -q "exited before returning"' \
  "quick_exit: $(detail_of quick_exit rooflines.t_math_s)"
check 'detail_of atexit rooflines.t_math_s | grep -q "exited before returning (exit status 0)"' \
  "atexit: $(detail_of atexit rooflines.t_math_s)"
check 'detail_of execve rooflines.t_math_s | grep -q "exited before returning (exit status 0)"' \
  "execve: $(detail_of execve rooflines.t_math_s)"
check 'detail_of raise rooflines.t_math_s | grep -q "\"CRASH\".*killed by signal 9"' \
  "raise: $(detail_of raise rooflines.t_math_s)"
check 'detail_of forge rooflines.t_math_s | grep -q "\"FAIL\""' "forge: $(detail_of forge rooflines.t_math_s)"
check 'detail_of include rooflines.t_math_s | grep -q "\"BUILD\".*No such file"' \
  "include: $(detail_of include rooflines.t_math_s)"
check 'detail_of read rooflines.t_math_s | grep -q "= nan s, not the expected value"' \
  "read: the reference is not there at run time: $(detail_of read rooflines.t_math_s)"
check 'detail_of escape rooflines.t_math_s | grep -q "= nan s, not the expected value"' \
  "escape: mount, unshare and writes fail: $(detail_of escape rooflines.t_math_s)"
check 'detail_of symlink tpus.pod_hosts | grep -q "symbolic link: not followed"' \
  "symlink: $(detail_of symlink tpus.pod_hosts)"
forks=$(detail_of forkbomb rooflines.t_math_s | sed -n 's/.*ex_rooflines_t_math_s([^)]*) = \([0-9]*\) s.*/\1/p')
check '[ -n "$forks" ] && [ "$forks" -lt 100 ]' "forkbomb: at most 64 processes: got $forks ($(detail_of forkbomb rooflines.t_math_s))"
filled=$(detail_of fill rooflines.t_math_s | sed -n 's/.*ex_rooflines_t_math_s([^)]*) = \([0-9.e+]*\) s.*/\1/p')
# Stopped by the file-size limit (1 MiB, SIGXFSZ), or by /tmp's 16 MiB if that came first.
check '{ [ -n "$filled" ] && awk -v n="$filled" "BEGIN {exit !(n <= 16777216)}"; } ||
  detail_of fill rooflines.t_math_s | grep -q "\"CRASH\".*signal 25"' \
  "fill: stopped at 1 MiB per file or 16 MiB of /tmp: $(detail_of fill rooflines.t_math_s)"

# As root, where the grader mounts them, each student's folders are a 256 MiB tmpfs, gone
# with the student (no mount of the build tree is left).
disk=$(detail_of disk rooflines.t_math_s | sed -n 's/.*ex_rooflines_t_math_s([^)]*) = \([0-9.e+-]*\) s.*/\1/p')
if grep -q "tmpfs per student folder" "$tmp/class.json"; then
  # (-1: the sandbox does not even let it look, as under Landlock, whose seccomp refuses statfs)
  check '[ -n "$disk" ] && awk -v n="$disk" "BEGIN {exit !(n <= 268435456)}"' \
    "disk: the student's folder is capped at 256 MiB: $(detail_of disk rooflines.t_math_s)"
fi
check '! grep -q "$tmp/build" /proc/mounts' "no student tmpfs left mounted: $(grep "$tmp/build" /proc/mounts | head -2)"
for name in kill net ptrace peek daemon; do
  check 'detail_of $name rooflines.t_math_s | grep -q "= nan s, not the expected value"' \
    "$name: the attack did nothing: $(detail_of $name rooflines.t_math_s)"
done
check '[ -n "$port" ]' "net: no listener (python3 missing?)"
check_end
