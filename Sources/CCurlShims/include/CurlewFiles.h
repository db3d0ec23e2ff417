// File calls for Curlew's downloads that Swift's Glibc module does not import (it is built
// without _GNU_SOURCE). Internal to Curlew: not API.
#ifndef CURLEW_FILES_H
#define CURLEW_FILES_H

// mkstemp(3) whose descriptor is closed on exec from the start (mkostemp with O_CLOEXEC), so
// that no child process started meanwhile by another thread inherits it. Returns the
// descriptor, or -1 with errno set.
int curlew_mkstemp_cloexec(char *template_path);

#endif
