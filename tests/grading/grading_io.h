/* grading_io.h — whole-message reads and writes on a pipe, shared by both ends of the grading
 * channel (grading_channel.h): the checker's grading_channel.c and the server's driver. */
#ifndef SCALE_GRADING_IO_H
#define SCALE_GRADING_IO_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* Reads exactly 'size' bytes; 0 at end of file or on an error. */
static inline int grading_read_full(int fd, void *buf, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, (char *)buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    got += (size_t)n;
  }
  return 1;
}

/* Writes all 'size' bytes; 0 on an error (a closed reader: EPIPE). */
static inline int grading_write_full(int fd, const void *buf, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, (const char *)buf + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    done += (size_t)n;
  }
  return 1;
}

#endif
