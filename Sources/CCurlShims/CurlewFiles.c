#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include "CurlewFiles.h"

int curlew_mkstemp_cloexec(char *template_path) {
    return mkostemp(template_path, O_CLOEXEC);
}
