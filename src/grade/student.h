/* student.h — grading one student (student.c): the prepared harness that grade.c builds once
 * per class and hands to each student's run. Not installed.
 */
#ifndef SCALE_GRADE_STUDENT_H
#define SCALE_GRADE_STUDENT_H

#include <stdbool.h>

#include "grade.h"
#include "sandbox.h"

/** The processes a student's program may have at once (RLIMIT_NPROC of each step). */
#define GRADE_STUDENT_PROCS 64u
/** Bytes a student may keep in each of its writable folders (out, tmp) where the grader can
 * cap them (grader.disk_cap): 15 chapters of an object and a server at the 64 MiB file-size
 * limit would be 1.9 GiB a student; an honest chapter needs under 1 MiB. */
#define GRADE_STUDENT_DISK (256.0 * 1024 * 1024)

/** A prepared grading harness, shared by every student of a class: the configured and built
 * tests/grading tree (checkers, driver objects, recipes) and how students' code is confined. */
typedef struct {
  const scale_grade_options *options;
  char harness[4096]; /**< the harness build tree: recipe-NN-slug.tsv, checkers, drivers */
  sandbox_mode mode;  /**< the sandbox in use (sandbox_probe) */
  char isolation[256]; /**< the mode in words, for the reports (scale_grade_report) */
  double timeout_s;   /**< per exercise */
  bool disk_cap;      /**< each student's out and tmp folders are tmpfs of GRADE_STUDENT_DISK
                           bytes (root, where mount works), gone when the student is graded */
} grader;

/** Grades every chapter of 'report' for the student folder open as 'exercises_fd' (-1: every
 * row BUILD) in the fresh build tree 'build' (made here, so it must not exist; the grader's
 * own). 'outside_uid' is the uid the student's processes run as outside their namespace (root:
 * one of the student's own; else the grader's). False when the grader could not make the
 * build tree or a chapter's part of it: the grader's failure, not a verdict. */
bool grade_student(const grader *g, int exercises_fd, const char *build, unsigned outside_uid,
                   scale_grade_report *report);

#endif
