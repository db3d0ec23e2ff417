/*
 * runstat: runs a command and writes one line "wall_seconds cpu_seconds max_rss_kib
 * exit_status" to OUTFILE, leaving the command's own output untouched.
 *
 *   runstat OUTFILE COMMAND [ARGS...]
 *
 * The figures come from clock_gettime(CLOCK_MONOTONIC) around fork/exec and wait4's
 * rusage, so they cover the command alone (children included), at microsecond resolution.
 * Build: gcc -O2 -o runstat runstat.c
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    struct rusage usage;
    int status = 0;
    double start, wall, cpu;
    pid_t child;
    FILE *out;

    if (argc < 3) {
        fprintf(stderr, "usage: runstat OUTFILE COMMAND [ARGS...]\n");
        return 2;
    }
    start = now_seconds();
    child = fork();
    if (child < 0) { perror("runstat: fork"); return 2; }
    if (child == 0) {
        execvp(argv[2], argv + 2);
        perror("runstat: exec");
        _exit(127);
    }
    if (wait4(child, &status, 0, &usage) < 0) { perror("runstat: wait4"); return 2; }
    wall = now_seconds() - start;
    cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
          (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    out = fopen(argv[1], "w");
    if (!out) { perror("runstat: output file"); return 2; }
    fprintf(out, "%.6f %.6f %ld %d\n", wall, cpu, usage.ru_maxrss,
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
