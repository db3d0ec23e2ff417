#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "CurlewNetlink.h"

const uint32_t curlew_RTMGRP_LINK = RTMGRP_LINK;
const uint32_t curlew_RTMGRP_IPV4_IFADDR = RTMGRP_IPV4_IFADDR;
const uint32_t curlew_RTMGRP_IPV6_IFADDR = RTMGRP_IPV6_IFADDR;
const uint32_t curlew_RTMGRP_IPV4_ROUTE = RTMGRP_IPV4_ROUTE;
const uint32_t curlew_RTMGRP_IPV6_ROUTE = RTMGRP_IPV6_ROUTE;

const uint16_t curlew_NLMSG_NOOP = NLMSG_NOOP;
const uint16_t curlew_NLMSG_ERROR = NLMSG_ERROR;
const uint16_t curlew_NLMSG_DONE = NLMSG_DONE;
const uint16_t curlew_NLMSG_OVERRUN = NLMSG_OVERRUN;
const uint16_t curlew_RTM_NEWLINK = RTM_NEWLINK;
const uint16_t curlew_RTM_DELLINK = RTM_DELLINK;
const uint16_t curlew_RTM_GETLINK = RTM_GETLINK;
const uint16_t curlew_RTM_NEWADDR = RTM_NEWADDR;
const uint16_t curlew_RTM_DELADDR = RTM_DELADDR;
const uint16_t curlew_RTM_GETADDR = RTM_GETADDR;
const uint16_t curlew_RTM_NEWROUTE = RTM_NEWROUTE;
const uint16_t curlew_RTM_DELROUTE = RTM_DELROUTE;
const uint16_t curlew_RTM_GETROUTE = RTM_GETROUTE;
const uint16_t curlew_NLM_F_MULTI = NLM_F_MULTI;
const uint16_t curlew_NLM_F_DUMP_INTR = NLM_F_DUMP_INTR;
const uint16_t curlew_NLM_F_REPLACE = NLM_F_REPLACE;

const uint16_t curlew_NLA_TYPE_MASK = (uint16_t)NLA_TYPE_MASK;
const uint16_t curlew_IFLA_IFNAME = IFLA_IFNAME;
const uint16_t curlew_IFA_ADDRESS = IFA_ADDRESS;
const uint16_t curlew_IFA_LOCAL = IFA_LOCAL;
const uint16_t curlew_IFA_FLAGS = IFA_FLAGS;
const uint16_t curlew_RTA_DST = RTA_DST;
const uint16_t curlew_RTA_OIF = RTA_OIF;
const uint16_t curlew_RTA_GATEWAY = RTA_GATEWAY;
const uint16_t curlew_RTA_PRIORITY = RTA_PRIORITY;
const uint16_t curlew_RTA_MULTIPATH = RTA_MULTIPATH;
const uint16_t curlew_RTA_TABLE = RTA_TABLE;
const uint16_t curlew_RTA_NH_ID = RTA_NH_ID;

const uint32_t curlew_IFF_UP = IFF_UP;
const uint32_t curlew_IFF_RUNNING = IFF_RUNNING;
const uint32_t curlew_IFF_LOOPBACK = IFF_LOOPBACK;
const uint32_t curlew_IFF_LOWER_UP = IFF_LOWER_UP;
const uint32_t curlew_IFA_F_TENTATIVE = IFA_F_TENTATIVE;
const uint32_t curlew_IFA_F_DADFAILED = IFA_F_DADFAILED;
const uint8_t curlew_RTN_UNICAST = RTN_UNICAST;
const uint8_t curlew_RTN_LOCAL = RTN_LOCAL;
const uint8_t curlew_RT_TABLE_LOCAL = RT_TABLE_LOCAL;
const uint8_t curlew_RT_SCOPE_UNIVERSE = RT_SCOPE_UNIVERSE;
const uint8_t curlew_RT_SCOPE_SITE = RT_SCOPE_SITE;
const uint8_t curlew_RT_SCOPE_LINK = RT_SCOPE_LINK;
const uint8_t curlew_RT_SCOPE_HOST = RT_SCOPE_HOST;

const size_t curlew_sizeof_nlmsghdr = sizeof(struct nlmsghdr);
const size_t curlew_sizeof_nlmsgerr = sizeof(struct nlmsgerr);
const size_t curlew_sizeof_ifinfomsg = sizeof(struct ifinfomsg);
const size_t curlew_sizeof_ifaddrmsg = sizeof(struct ifaddrmsg);
const size_t curlew_sizeof_rtmsg = sizeof(struct rtmsg);
const size_t curlew_sizeof_rtattr = sizeof(struct rtattr);
const size_t curlew_sizeof_rtnexthop = sizeof(struct rtnexthop);

int curlew_netlink_open(uint32_t groups, uint32_t *port) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -errno;
    // Bursts (a link going down takes its addresses and routes with it) must not overflow the
    // buffer; the force variant needs CAP_NET_ADMIN and may fail, the plain one is capped.
    int size = 1 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    struct sockaddr_nl local;
    memset(&local, 0, sizeof local);
    local.nl_family = AF_NETLINK;
    local.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    socklen_t length = sizeof local;
    if (getsockname(fd, (struct sockaddr *)&local, &length) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    *port = local.nl_pid;
    return fd;
}

static int send_to_kernel(int fd, const void *message, size_t length) {
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    ssize_t sent;
    do {
        sent = sendto(fd, message, length, 0, (struct sockaddr *)&kernel, sizeof kernel);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) return -errno;
    return sent == (ssize_t)length ? 0 : -EMSGSIZE;
}

int curlew_netlink_request_dump(int fd, uint16_t type, uint32_t sequence) {
    struct {
        struct nlmsghdr header;
        union {
            struct ifinfomsg link;
            struct ifaddrmsg address;
            struct rtmsg route;
        } body;
    } request;
    memset(&request, 0, sizeof request);
    size_t bodyLength;
    switch (type) {
    case RTM_GETLINK: bodyLength = sizeof request.body.link; break;
    case RTM_GETADDR: bodyLength = sizeof request.body.address; break;
    case RTM_GETROUTE: bodyLength = sizeof request.body.route; break;
    default: return -EINVAL;
    }
    request.header.nlmsg_len = NLMSG_LENGTH(bodyLength);
    request.header.nlmsg_type = type;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    request.header.nlmsg_seq = sequence;
    // Every body starts with its family byte; AF_UNSPEC (0, from memset) asks for all families.
    return send_to_kernel(fd, &request, request.header.nlmsg_len);
}

int curlew_netlink_request_route(int fd, uint8_t family, const uint8_t *address, size_t length, uint32_t sequence) {
    if (!((family == AF_INET && length == 4) || (family == AF_INET6 && length == 16))) return -EINVAL;
    struct {
        struct nlmsghdr header;
        struct rtmsg route;
        char attributes[RTA_SPACE(16)];
    } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = NLMSG_LENGTH(sizeof request.route);
    request.header.nlmsg_type = RTM_GETROUTE;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    request.header.nlmsg_seq = sequence;
    request.route.rtm_family = family;
    request.route.rtm_dst_len = (unsigned char)(length * 8);
    struct rtattr *destination = (struct rtattr *)((char *)&request + NLMSG_ALIGN(request.header.nlmsg_len));
    destination->rta_type = RTA_DST;
    destination->rta_len = RTA_LENGTH(length);
    memcpy(RTA_DATA(destination), address, length);
    request.header.nlmsg_len = NLMSG_ALIGN(request.header.nlmsg_len) + RTA_SPACE(length);
    return send_to_kernel(fd, &request, request.header.nlmsg_len);
}

ssize_t curlew_netlink_receive(int fd, void *buffer, size_t capacity, int *truncated) {
    struct sockaddr_nl sender;
    struct iovec vector = {.iov_base = buffer, .iov_len = capacity};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_name = &sender;
    message.msg_namelen = sizeof sender;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    ssize_t received;
    do {
        received = recvmsg(fd, &message, 0);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -errno;
    *truncated = (message.msg_flags & MSG_TRUNC) != 0;
    // Only the kernel (port 0) speaks for the routing tables.
    if (message.msg_namelen != sizeof sender || sender.nl_pid != 0) return 0;
    return received;
}

int curlew_enter_network_namespace(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int result = setns(fd, CLONE_NEWNET) == 0 ? 0 : -errno;
    close(fd);
    return result;
}
