#define _GNU_SOURCE
#include <time.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <curl/curl.h>
#include "CTLSShims.h"

void curlew_sha256(const void *data, size_t length, unsigned char *digest) {
    SHA256(data, length, digest);
}

void curlew_sha1(const void *data, size_t length, unsigned char *digest) {
    SHA1(data, length, digest);
}

/// Encodes `certificate` and hands it to `visitor`; 1 on success, 0 when encoding fails.
static int visit_x509(X509 *certificate, curlew_certificate_visitor visitor, void *context) {
    unsigned char *der = NULL;
    unsigned char *spki = NULL;
    int der_length = i2d_X509(certificate, &der);
    int spki_length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &spki);
    char *subject = X509_NAME_oneline(X509_get_subject_name(certificate), NULL, 0);
    char *issuer = X509_NAME_oneline(X509_get_issuer_name(certificate), NULL, 0);
    int ok = der_length > 0 && spki_length > 0 && subject != NULL && issuer != NULL;
    if (ok) {
        visitor(context, der, (size_t)der_length, spki, (size_t)spki_length, subject, issuer);
    }
    OPENSSL_free(der);
    OPENSSL_free(spki);
    OPENSSL_free(subject);
    OPENSSL_free(issuer);
    return ok;
}

static int visit_stack(STACK_OF(X509) *chain, curlew_certificate_visitor visitor, void *context) {
    int count = sk_X509_num(chain);
    for (int index = 0; index < count; index++) {
        if (!visit_x509(sk_X509_value(chain, index), visitor, context)) return -3;
    }
    return count;
}

int curlew_tls_visit_peer_certificates(void *handle, curlew_peer_certificates which,
                                       curlew_certificate_visitor visitor, void *context) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return -1;
    if (info->backend != CURLSSLBACKEND_OPENSSL) return info->backend == CURLSSLBACKEND_NONE ? -1 : -2;
    SSL *ssl = info->internals;
    if (ssl == NULL) return -1;
    if (which == curlew_peer_verified_chain) {
        STACK_OF(X509) *chain = SSL_get0_verified_chain(ssl);
        if (chain != NULL && sk_X509_num(chain) > 0) return visit_stack(chain, visitor, context);
    } else if (which == curlew_peer_sent_chain) {
        STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
        if (chain != NULL && sk_X509_num(chain) > 0) return visit_stack(chain, visitor, context);
    }
    X509 *leaf = SSL_get0_peer_certificate(ssl);
    if (leaf == NULL) return -1;
    return visit_x509(leaf, visitor, context) ? 1 : -3;
}

int curlew_visit_certificate(const unsigned char *der, size_t der_length,
                             curlew_certificate_visitor visitor, void *context) {
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)der_length);
    if (certificate == NULL) return 0;
    int ok = cursor == der + der_length && visit_x509(certificate, visitor, context);
    X509_free(certificate);
    return ok;
}

int curlew_tls_connection(void *handle, const char **version, const char **cipher, const char **group,
                          const unsigned char **alpn, unsigned int *alpn_length) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return -1;
    if (info->backend != CURLSSLBACKEND_OPENSSL) return info->backend == CURLSSLBACKEND_NONE ? -1 : -2;
    SSL *ssl = info->internals;
    if (ssl == NULL) return -1;
    *version = SSL_get_version(ssl);
    *cipher = SSL_CIPHER_get_name(SSL_get_current_cipher(ssl));
    SSL_get0_alpn_selected(ssl, alpn, alpn_length);
    int nid = SSL_get_negotiated_group(ssl);
    *group = nid > 0 ? SSL_group_to_name(ssl, nid) : NULL;
    return 0;
}

int curlew_certificate_validity(const unsigned char *der, size_t der_length,
                                long long *not_before, long long *not_after) {
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)der_length);
    if (certificate == NULL) return 0;
    struct tm before, after;
    int ok = cursor == der + der_length
        && ASN1_TIME_to_tm(X509_get0_notBefore(certificate), &before) == 1
        && ASN1_TIME_to_tm(X509_get0_notAfter(certificate), &after) == 1;
    if (ok) {
        *not_before = (long long)timegm(&before);
        *not_after = (long long)timegm(&after);
    }
    X509_free(certificate);
    return ok;
}
