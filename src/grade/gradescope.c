/* gradescope.c — `scale grade --gradescope DIR`: a Gradescope autograder (see grade.h).
 *
 * Gradescope builds one image per assignment with setup.sh (as root, from the zip's contents in
 * /autograder/source), then runs run_autograder in a fresh container per submission, with the
 * student's files in /autograder/submission, and reads /autograder/results/results.json. The
 * container is the isolation Gradescope gives; scale grade's own sandbox runs inside it (its
 * namespaces where the container allows user namespaces, else Landlock under a uid of the
 * student's own: a Docker container runs as root), results.json says which, and the image
 * holds no solutions/ to read. Where neither works, run_autograder fails with scale grade's
 * one line rather than grade without a sandbox.
 */
#define _GNU_SOURCE /* nftw's FTW_PHYS, FTW_ACTIONRETVAL */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade.h"
#include "util.h"

/* ---- copying the source tree ---------------------------------------------------------------- */

/* nftw has no user pointer: the copy in progress. */
static struct {
  size_t source_len;
  const char *out_dir;
  bool failed;
  char failed_path[8192];
} copying;

/* Whether a top-level entry stays out of the autograder. The presets too: the autograder
 * configures without them, and their workflow presets need CMake 3.25 where Gradescope's
 * Ubuntu 22.04 has 3.22. */
static bool left_out(const char *relative) {
  static const char *const out[] = {"solutions", "book", "CMakePresets.json",
                                    "CMakeUserPresets.json"};
  if (relative[0] == '.') return true; /* .git, .ci, editor files */
  if (strncmp(relative, "build", 5) == 0) return true;
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
    size_t len = strlen(out[i]);
    if (strncmp(relative, out[i], len) == 0 && (relative[len] == '\0' || relative[len] == '/'))
      return true;
  }
  return false;
}

static int copy_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  const char *relative = path + copying.source_len;
  if (*relative == '/') relative++;
  if (ftw->level == 0) return FTW_CONTINUE;
  if (ftw->level == 1 && left_out(relative)) return FTW_SKIP_SUBTREE;
  if (ftw->level > 1 && ftw->base > 0 && path[ftw->base] == '.') return FTW_SKIP_SUBTREE;
  char dst[8192];
  snprintf(dst, sizeof dst, "%s/%s", copying.out_dir, relative);
  bool ok = true;
  if (flag == FTW_D)
    ok = mkdir(dst, 0755) == 0;
  else if (flag == FTW_F && S_ISREG(st->st_mode))
    ok = grade_copy_file_at(AT_FDCWD, path, dst, st->st_mode & 0755, (size_t)1 << 30);
  /* links and anything else: not copied */
  if (!ok) {
    copying.failed = true;
    snprintf(copying.failed_path, sizeof copying.failed_path, "%s", dst);
    return FTW_STOP;
  }
  return FTW_CONTINUE;
}

/* ---- the two scripts ------------------------------------------------------------------------ */

/* The build's packages: .ci/packages without those only the book, browser tests, fuzzing, the
 * mesh executor or the measurements need. */
static void build_packages(const char *source_dir, char *out, size_t size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/.ci/packages", source_dir);
  char *text = grade_read_all(path, 1 << 16, NULL);
  snprintf(out, size, "%s", "build-essential cmake pkg-config check");
  if (!text) return;
  static const char *const optional[] = {"chromium", "katex", "clang",    "lld",
                                         "wasi",     "mpi",   "openblas", "python3"};
  size_t len = 0;
  out[0] = '\0';
  for (char *save = NULL, *word = strtok_r(text, " \t\r\n", &save); word;
       word = strtok_r(NULL, " \t\r\n", &save)) {
    bool skip = false;
    for (size_t i = 0; i < sizeof optional / sizeof optional[0] && !skip; i++)
      skip = strstr(word, optional[i]) != NULL;
    if (!skip && len + strlen(word) + 2 < size)
      len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "", word);
  }
  free(text);
}

static bool write_script(const char *path, const char *text) {
  FILE *out = fopen(path, "w");
  if (!out) return false;
  bool ok = fputs(text, out) >= 0;
  ok = fclose(out) == 0 && ok;
  return ok && chmod(path, 0755) == 0;
}

static const char run_autograder[] =
    "#!/bin/sh\n"
    "# run_autograder — Gradescope runs this for each submission (written by `scale grade\n"
    "# --gradescope`). AUTOGRADER_ROOT and SCALE let a test run it outside Gradescope.\n"
    "root=${AUTOGRADER_ROOT:-/autograder}\n"
    "source_dir=\"$root/source\"\n"
    "scale=${SCALE:-$source_dir/build/scale}\n"
    "mkdir -p \"$root/results\"\n"
    "stage=$(mktemp -d) || exit 1\n"
    "# Every SLUG_ex.c of the submission, in any folder, goes to the chapter folder NN-SLUG.\n"
    "# The paths reach the loop as arguments (find -exec ... +), never as lines of text: a\n"
    "# newline or any other byte in a submitted name cannot make another path.\n"
    "find \"$root/submission\" -type f -name '*_ex.c' -exec sh -c '\n"
    "  stage=$1 source_dir=$2\n"
    "  shift 2\n"
    "  for file do\n"
    "    base=${file##*/}\n"
    "    slug=${base%_ex.c}\n"
    "    for chapter in \"$source_dir\"/exercises/*/; do\n"
    "      name=${chapter%/}\n"
    "      name=${name##*/}\n"
    "      if [ \"$(printf %s \"${name#*-}\" | tr - _)\" = \"$slug\" ]; then\n"
    "        mkdir -p \"$stage/$name\" && cp \"$file\" \"$stage/$name/$base\"\n"
    "      fi\n"
    "    done\n"
    "  done' sh \"$stage\" \"$source_dir\" {} +\n"
    "\"$scale\" grade --quiet --withhold-answers --source \"$source_dir\" --exercises \"$stage\" "
    "\\\n"
    "  --results \"$root/results/results.json\"\n"
    "status=$?\n"
    "rm -rf \"$stage\"\n"
    "exit $status\n";

scale_status scale_grade_package_gradescope(const char *source_dir, const char *out_dir,
                                            scale_diag *diag) {
  char path[4200], resolved[4096];
  snprintf(path, sizeof path, "%s/tests/rubric.tsv", source_dir);
  if (access(path, R_OK) != 0 || !realpath(source_dir, resolved))
    return scale_diag_set(diag, SCALE_ERR_NOT_FOUND, source_dir, 0,
                          "not a scale source tree (no %s)", "tests/rubric.tsv");
  if (mkdir(out_dir, 0755) != 0)
    return scale_diag_set(diag, SCALE_ERR_IO, out_dir, 0, "cannot make the autograder folder: %s%s",
                          strerror(errno), errno == EEXIST ? " (choose a new folder)" : "");
  copying.source_len = strlen(resolved);
  copying.out_dir = out_dir;
  copying.failed = false;
  if (nftw(resolved, copy_entry, 32, FTW_PHYS | FTW_ACTIONRETVAL) != 0 || copying.failed)
    return scale_diag_set(diag, SCALE_ERR_IO, copying.failed_path, 0,
                          "cannot copy the source tree here");
  char packages[2048], setup[4096];
  build_packages(resolved, packages, sizeof packages);
  snprintf(
      setup, sizeof setup,
      "#!/bin/sh\n"
      "# setup.sh — Gradescope builds the autograder image with this (written by `scale "
      "grade\n# --gradescope`): the build's Debian packages, then `scale` itself. Written for\n"
      "# the base image Ubuntu 22.04 (CMake 3.22, no presets); not tried on Gradescope itself.\n"
      "set -eu\n"
      "export DEBIAN_FRONTEND=noninteractive\n"
      "apt-get update -q\n"
      "apt-get install -y -q --no-install-recommends %s\n"
      "cd \"$(dirname \"$0\")\"\n"
      "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSCALE_EXERCISES_DIR=\"$PWD/exercises\"\n"
      "cmake --build build --target scale_cli -j \"$(nproc)\"\n",
      packages);
  snprintf(path, sizeof path, "%s/setup.sh", out_dir);
  if (!write_script(path, setup))
    return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot write: %s", strerror(errno));
  snprintf(path, sizeof path, "%s/run_autograder", out_dir);
  if (!write_script(path, run_autograder))
    return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot write: %s", strerror(errno));
  return SCALE_OK;
}
