// Certificate inspection for Curlew's trust policies, through the OpenSSL that libcurl's
// OpenSSL backend uses (Debian's libssl-dev). Internal to Curlew: not API.
#ifndef CTLSSHIMS_H
#define CTLSSHIMS_H

#include <stddef.h>

/// Receives one certificate: its DER, the DER of its SubjectPublicKeyInfo, and its subject and
/// issuer as one-line strings (`CN=…, O=…`). The pointers are valid during the call only.
typedef void (*curlew_certificate_visitor)(void *context, const unsigned char *der, size_t der_length,
                                           const unsigned char *spki, size_t spki_length,
                                           const char *subject, const char *issuer);

/// What `curlew_tls_visit_peer_certificates` visits.
typedef enum {
    /// The leaf certificate only.
    curlew_peer_leaf = 0,
    /// The chain OpenSSL verified, leaf first (the leaf alone when there is none, as after a
    /// resumed session).
    curlew_peer_verified_chain = 1,
    /// The certificates the server sent, leaf first, verified or not.
    curlew_peer_sent_chain = 2,
} curlew_peer_certificates;

/// Visits certificates of the TLS connection that `handle`'s transfer uses. Returns how many
/// were visited, -1 when the transfer has no TLS session, -2 when libcurl's TLS backend is not
/// OpenSSL, -3 when a certificate could not be encoded.
int curlew_tls_visit_peer_certificates(void *handle, curlew_peer_certificates which,
                                       curlew_certificate_visitor visitor, void *context);

/// Visits the certificate in `der` (one DER certificate). Returns 1, or 0 when `der` is not
/// exactly one certificate.
int curlew_visit_certificate(const unsigned char *der, size_t der_length,
                             curlew_certificate_visitor visitor, void *context);

/// The TLS version (`TLSv1.3`), cipher suite, key-exchange group (NULL when unknown) and ALPN
/// protocol of the connection `handle`'s transfer uses; the strings are OpenSSL's and live as
/// long as the connection. Returns 0, -1 when the transfer has no TLS session, -2 when
/// libcurl's TLS backend is not OpenSSL.
int curlew_tls_connection(void *handle, const char **version, const char **cipher, const char **group,
                          const unsigned char **alpn, unsigned int *alpn_length);
/// The validity period of one DER certificate, in seconds since 1970 (UTC). Returns 1, or 0
/// when `der` is not exactly one certificate.
int curlew_certificate_validity(const unsigned char *der, size_t der_length,
                                long long *not_before, long long *not_after);
/// SHA-256 (32 bytes) and SHA-1 (20 bytes) digests.
void curlew_sha256(const void *data, size_t length, unsigned char *digest);
void curlew_sha1(const void *data, size_t length, unsigned char *digest);

#endif
