#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "CCurlShims.h"

CURLcode curlew_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode curlew_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode curlew_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode curlew_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode curlew_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode curlew_easy_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}
CURLcode curlew_easy_setopt_data_callback(CURL *handle, CURLoption option, curlew_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
CURLcode curlew_easy_setopt_xferinfo_callback(CURL *handle, curlew_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
CURLcode curlew_easy_setopt_seek_callback(CURL *handle, curlew_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

CURLcode curlew_easy_setopt_debug_callback(CURL *handle, curlew_debug_callback callback) {
    // Verbose off first, so that a failed set leaves no trace on.
    CURLcode code = curl_easy_setopt(handle, CURLOPT_VERBOSE, 0L);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
    if (code != CURLE_OK || callback == NULL) return code;
    return curl_easy_setopt(handle, CURLOPT_VERBOSE, 1L);
}

CURLcode curlew_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode curlew_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode curlew_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
void curlew_easy_transfer_info(CURL *handle, struct curlew_transfer_info *info) {
    /* A value libcurl cannot give stays as the caller zeroed it. */
    curl_easy_getinfo(handle, CURLINFO_NAMELOOKUP_TIME_T, &info->name_lookup);
    curl_easy_getinfo(handle, CURLINFO_CONNECT_TIME_T, &info->connect);
    curl_easy_getinfo(handle, CURLINFO_APPCONNECT_TIME_T, &info->app_connect);
    curl_easy_getinfo(handle, CURLINFO_STARTTRANSFER_TIME_T, &info->start_transfer);
    curl_easy_getinfo(handle, CURLINFO_TOTAL_TIME_T, &info->total);
    curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &info->size_upload);
    curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, &info->size_download);
    curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &info->http_version);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_PORT, &info->primary_port);
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &info->num_connects);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_IP, &info->primary_ip);
}
CURLcode curlew_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

int curlew_easy_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    if(curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK) return -1;
    return socket == CURL_SOCKET_BAD ? -1 : (int)socket;
}

CURLMcode curlew_multi_setopt_socket_callback(CURLM *multi, curlew_socket_callback callback, void *userdata) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
    if(code != CURLM_OK) return code;
    return curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, userdata);
}

CURLMcode curlew_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
CURLSHcode curlew_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

CURLcode curlew_multi_message_result(const CURLMsg *message) {
    return message->data.result;
}

const unsigned long curlew_CURLAUTH_BASIC = CURLAUTH_BASIC;
const unsigned long curlew_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
const unsigned long curlew_CURLAUTH_NTLM = CURLAUTH_NTLM;
const unsigned long curlew_CURLAUTH_NEGOTIATE = CURLAUTH_NEGOTIATE;
const unsigned long curlew_CURLAUTH_ANY = CURLAUTH_ANY;
const unsigned long curlew_CURLAUTH_ANYSAFE = CURLAUTH_ANYSAFE;
int curlew_version_features(void) {
    return curl_version_info(CURLVERSION_NOW)->features;
}
const char *curlew_version_string(void) {
    return curl_version_info(CURLVERSION_NOW)->version;
}
const int curlew_CURL_VERSION_NTLM = CURL_VERSION_NTLM;
const int curlew_CURL_VERSION_HTTP3 = CURL_VERSION_HTTP3;
const long curlew_CURLALTSVC_H1 = CURLALTSVC_H1;
const long curlew_CURLALTSVC_H2 = CURLALTSVC_H2;
const long curlew_CURLALTSVC_H3 = CURLALTSVC_H3;
const long curlew_CURLALTSVC_READONLYFILE = CURLALTSVC_READONLYFILE;
const int curlew_CURL_VERSION_SPNEGO = CURL_VERSION_SPNEGO;

const size_t curlew_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
const size_t curlew_CURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
const size_t curlew_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
const int curlew_CURLPAUSE_CONT = CURLPAUSE_CONT;
const int curlew_CURLPAUSE_ALL = CURLPAUSE_ALL;
const int curlew_CURL_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
const int curlew_CURL_SEEKFUNC_FAIL = CURL_SEEKFUNC_FAIL;
const int curlew_CURL_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
const long curlew_CURLPIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
const long curlew_CURL_HTTP_VERSION_NONE = CURL_HTTP_VERSION_NONE;
const long curlew_CURL_HTTP_VERSION_1_1 = CURL_HTTP_VERSION_1_1;
const long curlew_CURL_HTTP_VERSION_2TLS = CURL_HTTP_VERSION_2TLS;
const long curlew_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
const long curlew_CURL_HTTP_VERSION_2_0 = CURL_HTTP_VERSION_2_0;
const long curlew_CURL_HTTP_VERSION_3 = CURL_HTTP_VERSION_3;
const int curlew_CURL_ERROR_SIZE = CURL_ERROR_SIZE;
const int curlew_CURL_GLOBAL_ALL = CURL_GLOBAL_ALL;

void curlew_name_current_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = '\0';
    pthread_setname_np(pthread_self(), shortened);
}

int curlew_wake_descriptor_open(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int curlew_wake_descriptor_signal(int descriptor) {
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(descriptor, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
    return written == (ssize_t)sizeof one ? 0 : -1;
}

int curlew_wake_descriptor_drain(int descriptor) {
    uint64_t count;
    ssize_t got;
    do {
        got = read(descriptor, &count, sizeof count);
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof count ? 0 : -1;
}

void curlew_wake_descriptor_close(int descriptor) {
    close(descriptor);
}

const int curlew_CURL_PREREQFUNC_OK = CURL_PREREQFUNC_OK;
const int curlew_CURL_PREREQFUNC_ABORT = CURL_PREREQFUNC_ABORT;

CURLcode curlew_easy_setopt_prereq_callback(CURL *handle, curlew_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}
