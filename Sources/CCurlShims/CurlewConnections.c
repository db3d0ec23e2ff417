#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "CurlewConnections.h"

CURLcode curlew_easy_setopt_socket_callbacks(CURL *handle, curl_opensocket_callback open,
                                             curl_closesocket_callback close, void *data) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open);
    if(code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, data);
    if(code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, close);
    if(code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, data);
}

int curlew_socket_open(int family, int type, int protocol) {
    return socket(family, type | SOCK_CLOEXEC, protocol);
}

int curlew_socket_close(int socket) {
    return close(socket) == 0 ? 0 : 1;
}

int curlew_socket_shutdown(int socket) {
    return shutdown(socket, SHUT_RDWR);
}

int curlew_socket_identity(int socket, uint64_t *device, uint64_t *inode) {
    struct stat status;
    if(fstat(socket, &status) != 0) return -1;
    *device = (uint64_t)status.st_dev;
    *inode = (uint64_t)status.st_ino;
    return 0;
}

static int port_of(const struct sockaddr_storage *address) {
    if(address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if(address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return 0;
}

void curlew_socket_endpoints(int socket, struct curlew_socket_endpoints *endpoints) {
    memset(endpoints, 0, sizeof *endpoints);
    struct sockaddr_storage local, peer;
    socklen_t length = sizeof local;
    if(getsockname(socket, (struct sockaddr *)&local, &length) == 0) {
        endpoints->family = local.ss_family;
        endpoints->local_port = port_of(&local);
    }
    length = sizeof peer;
    if(getpeername(socket, (struct sockaddr *)&peer, &length) != 0) return;
    endpoints->connected = 1;
    endpoints->peer_port = port_of(&peer);
    if(peer.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, endpoints->peer, sizeof endpoints->peer);
    } else if(peer.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, endpoints->peer, sizeof endpoints->peer);
    } else if(peer.ss_family == AF_UNIX && length > offsetof(struct sockaddr_un, sun_path)) {
        size_t size = length - offsetof(struct sockaddr_un, sun_path);
        if(size >= sizeof endpoints->peer) size = sizeof endpoints->peer - 1;
        memcpy(endpoints->peer, ((struct sockaddr_un *)&peer)->sun_path, size);
        endpoints->peer[size] = 0;
    }
}

void curlew_easy_connection_ports(CURL *handle, long *local_port, long *primary_port, const char **primary_ip) {
    *local_port = 0;
    *primary_port = 0;
    *primary_ip = NULL;
    curl_easy_getinfo(handle, CURLINFO_LOCAL_PORT, local_port);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_PORT, primary_port);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_IP, primary_ip);
}
