// Typed, non-variadic wrappers around libcurl's variadic API, plus curl's macros as
// constants; and (CurlewNetlink.h) the netlink calls of the reachability monitor, and
// (CurlewFiles.h) the file calls of downloads. Internal to Curlew: not API.
#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H

#include <curl/curl.h>
#include "CurlewNetlink.h"
#include "CurlewHeadBuffer.h"
#include "CurlewFiles.h"
#include "CurlewConnections.h"

typedef size_t (*curlew_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*curlew_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                        curl_off_t ultotal, curl_off_t ulnow);
typedef int (*curlew_seek_callback)(void *userdata, curl_off_t offset, int origin);
/// `CURLOPT_DEBUGFUNCTION`'s callback (libcurl's `curl_debug_callback`).
typedef int (*curlew_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);

CURLcode curlew_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode curlew_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode curlew_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode curlew_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode curlew_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode curlew_easy_setopt_share(CURL *handle, CURLSH *share);
CURLcode curlew_easy_setopt_data_callback(CURL *handle, CURLoption option, curlew_data_callback callback);
CURLcode curlew_easy_setopt_xferinfo_callback(CURL *handle, curlew_xferinfo_callback callback);
CURLcode curlew_easy_setopt_seek_callback(CURL *handle, curlew_seek_callback callback);
/// Sets `CURLOPT_DEBUGFUNCTION` (NULL removes it) and `CURLOPT_VERBOSE` (1 with a callback, 0
/// without): a wire trace, for the hops that ask for one.
CURLcode curlew_easy_setopt_debug_callback(CURL *handle, curlew_debug_callback callback);

CURLcode curlew_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode curlew_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode curlew_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode curlew_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
/// `CURLINFO_ACTIVESOCKET` (a `curl_socket_t`): the socket of a `CURLOPT_CONNECT_ONLY`
/// connection, or -1.
int curlew_easy_active_socket(CURL *handle);

/// `CURLMOPT_SOCKETFUNCTION` with its `CURLMOPT_SOCKETDATA`: a WebSocket's own multi handle
/// tells which sockets its connect-only transfer waits on.
typedef int (*curlew_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *userdata, void *socketdata);
CURLMcode curlew_multi_setopt_socket_callback(CURLM *multi, curlew_socket_callback callback, void *userdata);

/// What `TransferMetrics` reads of a finished hop, in one call rather than eleven through
/// Swift: times in microseconds, sizes in bytes; `primary_ip` points into the handle (valid
/// until its next transfer) and is NULL or empty when unknown.
struct curlew_transfer_info {
    curl_off_t name_lookup, connect, app_connect, start_transfer, total;
    curl_off_t size_upload, size_download;
    long http_version, primary_port, num_connects;
    const char *primary_ip;
};
void curlew_easy_transfer_info(CURL *handle, struct curlew_transfer_info *info);

CURLMcode curlew_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode curlew_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

/// The `CURLMsg.data.result` member of a `CURLMSG_DONE` message.
CURLcode curlew_multi_message_result(const CURLMsg *message);

// HTTP authentication: CURLOPT_HTTPAUTH bits (casts in curl's macros keep them from Swift)
// and the feature bits of the running libcurl.
extern const unsigned long curlew_CURLAUTH_BASIC;
extern const unsigned long curlew_CURLAUTH_DIGEST;
extern const unsigned long curlew_CURLAUTH_NTLM;
extern const unsigned long curlew_CURLAUTH_NEGOTIATE;
extern const unsigned long curlew_CURLAUTH_ANY;
extern const unsigned long curlew_CURLAUTH_ANYSAFE;
/// `curl_version_info(CURLVERSION_NOW)->features` and `->version` of the libcurl in use.
int curlew_version_features(void);
const char *curlew_version_string(void);
extern const int curlew_CURL_VERSION_NTLM;
extern const int curlew_CURL_VERSION_HTTP3;
/// The `CURLOPT_ALTSVC_CTRL` bits.
extern const long curlew_CURLALTSVC_H1;
extern const long curlew_CURLALTSVC_H2;
extern const long curlew_CURLALTSVC_H3;
extern const long curlew_CURLALTSVC_READONLYFILE;
extern const int curlew_CURL_VERSION_SPNEGO;

extern const size_t curlew_CURL_WRITEFUNC_PAUSE;
extern const size_t curlew_CURL_READFUNC_PAUSE;
extern const size_t curlew_CURL_READFUNC_ABORT;
extern const int curlew_CURLPAUSE_CONT;
extern const int curlew_CURLPAUSE_ALL;
extern const int curlew_CURL_SEEKFUNC_OK;
extern const int curlew_CURL_SEEKFUNC_FAIL;
extern const int curlew_CURL_SEEKFUNC_CANTSEEK;
extern const long curlew_CURLPIPE_MULTIPLEX;
extern const long curlew_CURL_HTTP_VERSION_NONE;
extern const long curlew_CURL_HTTP_VERSION_1_1;
extern const long curlew_CURL_HTTP_VERSION_2TLS;
extern const long curlew_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
extern const long curlew_CURL_HTTP_VERSION_2_0;
extern const long curlew_CURL_HTTP_VERSION_3;
extern const int curlew_CURL_ERROR_SIZE;
extern const int curlew_CURL_GLOBAL_ALL;


/// Names the calling thread for the OS (debuggers, profilers, `Thread.current.name`); at most
/// 15 bytes are kept.
void curlew_name_current_thread(const char *name);

/// The loop's wakeup descriptor (an eventfd, non-blocking): -1 when it cannot be made.
int curlew_wake_descriptor_open(void);
/// Adds one to the descriptor's counter: one write, retried on EINTR; 0 on success.
int curlew_wake_descriptor_signal(int descriptor);
/// Reads (and so resets) the counter: one read, retried on EINTR; 0 when it was non-zero.
int curlew_wake_descriptor_drain(int descriptor);
void curlew_wake_descriptor_close(int descriptor);

typedef int (*curlew_prereq_callback)(void *userdata, char *primary_ip, char *local_ip,
                                      int primary_port, int local_port);

/// Sets (or, with NULL, clears) `CURLOPT_PREREQFUNCTION`.
CURLcode curlew_easy_setopt_prereq_callback(CURL *handle, curlew_prereq_callback callback);

extern const int curlew_CURL_PREREQFUNC_OK;
extern const int curlew_CURL_PREREQFUNC_ABORT;

#endif
