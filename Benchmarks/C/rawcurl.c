/*
 * rawcurl: the raw-libcurl ceiling of the Curlew benchmarks.
 *
 * One multi handle, `concurrency` easy handles created once and reused for every request
 * (removed from and re-added to the multi handle), at most `concurrency` connections,
 * curl_multi_poll, bodies discarded.
 * Prints one JSON line in the harness's result format.
 *
 *   rawcurl --scenario NAME --url URL [--count N] [--concurrency C] [--warmup W]
 *           [--cacert PEM] [--h2] [--buffer-size BYTES]
 *
 * Build: gcc -O2 -o rawcurl rawcurl.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct slot {
    CURL *easy;
    double started;
};

static long long body_bytes;

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    (void)user;
    body_bytes += (long long)(size * count);
    return size * count;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
           (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long value = 0;
    size_t n = strlen(field);
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, n) == 0) {
            value = strtol(line + n, NULL, 10);
            break;
        }
    }
    fclose(f);
    return value;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile_ms(double *sorted, long n, double percent) {
    long rank, index;
    if (n == 0) return 0;
    rank = (long)(percent / 100.0 * (double)n + 0.999999);
    index = rank - 1;
    if (index < 0) index = 0;
    if (index >= n) index = n - 1;
    return sorted[index] * 1000.0;
}

static void configure(CURL *easy, const char *url, const char *cacert, int h2, long buffer_size) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    if (buffer_size > 0) curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, buffer_size);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (cacert) curl_easy_setopt(easy, CURLOPT_CAINFO, cacert);
    if (h2) {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    } else {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    }
}

/* Runs `count` requests with `concurrency` in flight; fills latencies (seconds) if given.
 * Returns the number of failed requests. */
static long run(CURLM *multi, struct slot *slots, long concurrency, long count,
                double *latencies, long *done_out) {
    long started = 0, done = 0, failed = 0, i;
    int running = 0;
    for (i = 0; i < concurrency && started < count; i++, started++) {
        slots[i].started = now_seconds();
        curl_multi_add_handle(multi, slots[i].easy);
    }
    while (done < count) {
        CURLMsg *msg;
        int queued;
        if (curl_multi_perform(multi, &running) != CURLM_OK) return count;
        while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
            struct slot *slot = NULL;
            long code = 0;
            if (msg->msg != CURLMSG_DONE) continue;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
            if (msg->data.result != CURLE_OK || code < 200 || code >= 300) {
                if (failed == 0)
                    fprintf(stderr, "rawcurl: %s (HTTP %ld)\n",
                            curl_easy_strerror(msg->data.result), code);
                failed++;
            } else if (latencies) {
                latencies[done - failed] = now_seconds() - slot->started;
            }
            done++;
            curl_multi_remove_handle(multi, msg->easy_handle);
            if (started < count) {
                started++;
                slot->started = now_seconds();
                curl_multi_add_handle(multi, msg->easy_handle);
            }
        }
        if (done < count && curl_multi_poll(multi, NULL, 0, 1000, NULL) != CURLM_OK) return count;
    }
    *done_out = done;
    return failed;
}

int main(int argc, char **argv) {
    const char *scenario = "small-c1", *url = NULL, *cacert = NULL;
    long count = 1, concurrency = 1, warmup = 0, buffer_size = 0, i, done = 0, failed, ok;
    int h2 = 0;
    double t0, seconds, cpu0, cpu, *latencies;
    long baseline_kib, peak_kib;
    struct slot *slots;
    CURLM *multi;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--h2") == 0) { h2 = 1; continue; }
        if (i + 1 >= argc) { fprintf(stderr, "rawcurl: missing value for %s\n", argv[i]); return 2; }
        if (strcmp(argv[i], "--scenario") == 0) scenario = argv[++i];
        else if (strcmp(argv[i], "--url") == 0) url = argv[++i];
        else if (strcmp(argv[i], "--cacert") == 0) cacert = argv[++i];
        else if (strcmp(argv[i], "--count") == 0) count = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--concurrency") == 0) concurrency = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--buffer-size") == 0) buffer_size = strtol(argv[++i], NULL, 10);
        else { fprintf(stderr, "rawcurl: unknown option %s\n", argv[i]); return 2; }
    }
    if (!url || count < 1 || concurrency < 1 || warmup < 0) {
        fprintf(stderr, "rawcurl: --url and positive --count/--concurrency are required\n");
        return 2;
    }
    if (concurrency > count) concurrency = count;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    baseline_kib = status_kib("VmRSS:"); /* before any handle: comparable with the Swift clients */
    multi = curl_multi_init();
    /* At most `concurrency` connections, per host and in total, all kept when idle: the same
     * limit every client of the harness gets (the C loop's own easy handles bound it too). */
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, concurrency);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);
    slots = calloc((size_t)concurrency, sizeof *slots);
    latencies = calloc((size_t)count, sizeof *latencies);
    if (!multi || !slots || !latencies) { fprintf(stderr, "rawcurl: out of memory\n"); return 1; }
    for (i = 0; i < concurrency; i++) {
        slots[i].easy = curl_easy_init();
        configure(slots[i].easy, url, cacert, h2, buffer_size);
        curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, &slots[i]);
    }

    if (warmup > 0) {
        long warm_done = 0;
        run(multi, slots, concurrency < warmup ? concurrency : warmup, warmup, NULL, &warm_done);
    }
    body_bytes = 0;
    cpu0 = cpu_seconds();
    t0 = now_seconds();
    failed = run(multi, slots, concurrency, count, latencies, &done);
    seconds = now_seconds() - t0;
    cpu = cpu_seconds() - cpu0;
    peak_kib = status_kib("VmHWM:");
    ok = count - failed;
    qsort(latencies, (size_t)ok, sizeof *latencies, compare_doubles);

    printf("{\"client\":\"rawcurl\",\"scenario\":\"%s\",\"status\":\"%s\",\"count\":%ld,"
           "\"concurrency\":%ld,\"seconds\":%.6f,\"req_per_s\":%.1f,\"p50_ms\":%.4f,"
           "\"p99_ms\":%.4f,\"cpu_s_per_1000\":%.5f,\"bytes\":%lld,\"mb_per_s\":%.1f,"
           "\"peak_rss_kib\":%ld,\"errors\":%ld",
           scenario, failed ? "error" : "ok", count, concurrency, seconds, (double)ok / seconds,
           percentile_ms(latencies, ok, 50), percentile_ms(latencies, ok, 99),
           cpu / (double)count * 1000.0, body_bytes, (double)body_bytes / 1e6 / seconds,
           peak_kib, failed);
    if (strcmp(scenario, "many-streams") == 0) {
        double open_seconds = 0;
        for (i = 0; i < ok; i++) open_seconds += latencies[i];
        printf(",\"rss_per_stream_kib\":%.2f,\"mean_in_flight\":%.1f",
               (double)(peak_kib - baseline_kib) / (double)count, open_seconds / seconds);
    }
    printf("}\n");

    for (i = 0; i < concurrency; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
    }
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    free(slots);
    free(latencies);
    return failed ? 1 : 0;
}
