/* pthread.h — the WebAssembly build's stand-in (web/wasm/ comes first on its include path).
 *
 * The module runs on the page's one thread. plan.c starts helper threads with pthread_create()
 * and does a worker's share itself when one cannot start; this header says "cannot start"
 * (EAGAIN) every time, so the search runs single-threaded with no change to libscale.
 */
#ifndef SCALE_WEB_PTHREAD_H
#define SCALE_WEB_PTHREAD_H

#include <errno.h>

typedef int pthread_t;
typedef int pthread_attr_t;

static inline int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                 void *(*start)(void *), void *arg) {
  (void)thread, (void)attr, (void)start, (void)arg;
  return EAGAIN;
}

static inline int pthread_join(pthread_t thread, void **result) {
  (void)thread, (void)result;
  return ESRCH;
}

#endif
