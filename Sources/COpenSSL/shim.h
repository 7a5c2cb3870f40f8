#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/sha.h>
#include <openssl/rand.h>

/* Deprecated since OpenSSL 3.0, hidden by OPENSSL_NO_DEPRECATED, yet still exported: the
   only call that gives a point other than a curve's own generator a precomputed table of
   multiples. StoreCrypto's P256KeyTable uses it for keys that sign many receipts. */
int EC_GROUP_precompute_mult(EC_GROUP *group, BN_CTX *ctx);

/* Deprecated and exported alike: a point's Jacobian coordinates (x = X/Z², y = Y/Z³), so that
   P256KeyTable can compare an ECDSA check's x with r without the inversion of Z. */
int EC_POINT_get_Jprojective_coordinates_GFp(const EC_GROUP *group, const EC_POINT *p, BIGNUM *x, BIGNUM *y,
                                             BIGNUM *z, BN_CTX *ctx);
