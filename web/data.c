/* data.c — the embedded data files behind fopen() in the WebAssembly module (web_data.h). */
#include <errno.h>
#include <string.h>

#include "web_data.h"

FILE *web_data_fopen(const char *path, const char *mode) {
  while (path[0] == '.' && path[1] == '/') path += 2; /* scale_data_dir() is "." here */
  if (strcmp(mode, "r") != 0 && strcmp(mode, "rb") != 0) {
    errno = EACCES;
    return NULL;
  }
  for (int i = 0; i < web_data_n_files; i++)
    if (strcmp(web_data_files[i].path, path) == 0)
      /* fmemopen's buffer is not const, but a stream opened "r" never writes to it. */
      return fmemopen((void *)(size_t)web_data_files[i].text, web_data_files[i].len, "r");
  errno = ENOENT;
  return NULL;
}

int web_data_stem(const char *dir, int i, char *buf, size_t size) {
  size_t dl = strlen(dir);
  for (int k = 0; k < web_data_n_files; k++) {
    const char *p = web_data_files[k].path;
    size_t pl = strlen(p);
    if (strncmp(p, dir, dl) != 0 || p[dl] != '/' || pl < dl + 5 || strcmp(p + pl - 4, ".ini"))
      continue;
    if (i-- > 0) continue;
    size_t stem = pl - dl - 1 - 4;
    if (stem + 1 > size) return 0;
    memcpy(buf, p + dl + 1, stem);
    buf[stem] = '\0';
    return 1;
  }
  return 0;
}
