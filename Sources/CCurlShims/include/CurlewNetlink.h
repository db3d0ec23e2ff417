// NETLINK_ROUTE for Curlew's reachability monitor: the kernel's constants and the socket calls
// Swift cannot express (`struct sockaddr_nl`, `setns`). Messages are parsed in Swift
// (Sources/Curlew/Network/NetlinkParser.swift), bounds-checked, from the layouts whose sizes are
// exported here. Internal to Curlew: not API.
#ifndef CURLEW_NETLINK_H
#define CURLEW_NETLINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// Multicast groups.
extern const uint32_t curlew_RTMGRP_LINK;
extern const uint32_t curlew_RTMGRP_IPV4_IFADDR;
extern const uint32_t curlew_RTMGRP_IPV6_IFADDR;
extern const uint32_t curlew_RTMGRP_IPV4_ROUTE;
extern const uint32_t curlew_RTMGRP_IPV6_ROUTE;

// Message types and header flags.
extern const uint16_t curlew_NLMSG_NOOP;
extern const uint16_t curlew_NLMSG_ERROR;
extern const uint16_t curlew_NLMSG_DONE;
extern const uint16_t curlew_NLMSG_OVERRUN;
extern const uint16_t curlew_RTM_NEWLINK;
extern const uint16_t curlew_RTM_DELLINK;
extern const uint16_t curlew_RTM_GETLINK;
extern const uint16_t curlew_RTM_NEWADDR;
extern const uint16_t curlew_RTM_DELADDR;
extern const uint16_t curlew_RTM_GETADDR;
extern const uint16_t curlew_RTM_NEWROUTE;
extern const uint16_t curlew_RTM_DELROUTE;
extern const uint16_t curlew_RTM_GETROUTE;
extern const uint16_t curlew_NLM_F_MULTI;
extern const uint16_t curlew_NLM_F_DUMP_INTR;
extern const uint16_t curlew_NLM_F_REPLACE;

// Attribute types (the type field of `struct rtattr`, under NLA_TYPE_MASK).
extern const uint16_t curlew_NLA_TYPE_MASK;
extern const uint16_t curlew_IFLA_IFNAME;
extern const uint16_t curlew_IFA_ADDRESS;
extern const uint16_t curlew_IFA_LOCAL;
extern const uint16_t curlew_IFA_FLAGS;
extern const uint16_t curlew_RTA_DST;
extern const uint16_t curlew_RTA_OIF;
extern const uint16_t curlew_RTA_GATEWAY;
extern const uint16_t curlew_RTA_PRIORITY;
extern const uint16_t curlew_RTA_MULTIPATH;
extern const uint16_t curlew_RTA_TABLE;
extern const uint16_t curlew_RTA_NH_ID;

// Interface flags, address flags, route types, tables and scopes.
extern const uint32_t curlew_IFF_UP;
extern const uint32_t curlew_IFF_RUNNING;
extern const uint32_t curlew_IFF_LOOPBACK;
extern const uint32_t curlew_IFF_LOWER_UP;
extern const uint32_t curlew_IFA_F_TENTATIVE;
extern const uint32_t curlew_IFA_F_DADFAILED;
extern const uint8_t curlew_RTN_UNICAST;
extern const uint8_t curlew_RTN_LOCAL;
extern const uint8_t curlew_RT_TABLE_LOCAL;
extern const uint8_t curlew_RT_SCOPE_UNIVERSE;
extern const uint8_t curlew_RT_SCOPE_SITE;
extern const uint8_t curlew_RT_SCOPE_LINK;
extern const uint8_t curlew_RT_SCOPE_HOST;

// The sizes of the structures the Swift parser reads by offset (a unit test compares them).
extern const size_t curlew_sizeof_nlmsghdr;
extern const size_t curlew_sizeof_nlmsgerr;
extern const size_t curlew_sizeof_ifinfomsg;
extern const size_t curlew_sizeof_ifaddrmsg;
extern const size_t curlew_sizeof_rtmsg;
extern const size_t curlew_sizeof_rtattr;
extern const size_t curlew_sizeof_rtnexthop;

/// Opens a close-on-exec NETLINK_ROUTE socket bound to the multicast `groups` (0 for none),
/// with a large receive buffer, and sets `*port` to the port id the kernel gave it (replies to
/// its requests carry it). Returns the descriptor, or -errno.
int curlew_netlink_open(uint32_t groups, uint32_t *port);

/// Asks for a dump of every link (RTM_GETLINK), address (RTM_GETADDR) or route (RTM_GETROUTE)
/// of all families. Returns 0, or -errno.
int curlew_netlink_request_dump(int fd, uint16_t type, uint32_t sequence);

/// Asks the kernel which route it would use to `address` (4 bytes for AF_INET, 16 for
/// AF_INET6): one RTM_GETROUTE request, answered by one RTM_NEWROUTE or an NLMSG_ERROR.
/// Returns 0, or -errno.
int curlew_netlink_request_route(int fd, uint8_t family, const uint8_t *address, size_t length, uint32_t sequence);

/// Receives one datagram of messages into `buffer`. Returns its length (0 when it did not come
/// from the kernel, and was dropped), or -errno (-ENOBUFS when the kernel dropped messages
/// because the socket's buffer was full). `*truncated` is set when the datagram did not fit.
ssize_t curlew_netlink_receive(int fd, void *buffer, size_t capacity, int *truncated);

/// Moves the calling thread into the network namespace at `path` (such as
/// `/run/netns/NAME`). Returns 0, or -errno. Used by tests, on threads of their own.
int curlew_enter_network_namespace(const char *path);

#endif
