// The socket calls behind a session's connection ledger (see ConnectionLedger.swift):
// libcurl's open and close socket callbacks, and what a snapshot of the pool reads of a socket.
#ifndef CURLEW_CONNECTIONS_H
#define CURLEW_CONNECTIONS_H

#include <stdint.h>
#include <curl/curl.h>

/// Sets `CURLOPT_OPENSOCKETFUNCTION`, `CURLOPT_CLOSESOCKETFUNCTION` and their data (one pointer
/// for both) on an easy handle.
CURLcode curlew_easy_setopt_socket_callbacks(CURL *handle, curl_opensocket_callback open,
                                             curl_closesocket_callback close, void *data);

/// `socket(family, type | SOCK_CLOEXEC, protocol)`: -1 on failure.
int curlew_socket_open(int family, int type, int protocol);
/// `close(socket)`: 0, or 1 on failure (libcurl's close callback answer).
int curlew_socket_close(int socket);
/// `shutdown(socket, SHUT_RDWR)`: 0, or -1 on failure.
int curlew_socket_shutdown(int socket);

/// The file a descriptor names (`fstat`'s device and inode): a socket's stays the same while it
/// is open, and a descriptor reused for another file has another. 0 on success, -1 on failure.
int curlew_socket_identity(int socket, uint64_t *device, uint64_t *inode);

/// What a snapshot shows of a socket: its family, local port, and peer (an IP address as text,
/// or a Unix-domain socket's path) and port; `connected` is 0 while it has no peer yet.
struct curlew_socket_endpoints {
    int family;
    int connected;
    int local_port;
    int peer_port;
    char peer[112];
};
void curlew_socket_endpoints(int socket, struct curlew_socket_endpoints *endpoints);

/// A running transfer's connection as libcurl reports it (`CURLINFO_LOCAL_PORT`,
/// `CURLINFO_PRIMARY_PORT`, `CURLINFO_PRIMARY_IP`); ports 0 and an empty address while it has none.
void curlew_easy_connection_ports(CURL *handle, long *local_port, long *primary_port, const char **primary_ip);

#endif
