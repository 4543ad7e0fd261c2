#ifndef RECOUNT_CCRYPTO_SHIM_H
#define RECOUNT_CCRYPTO_SHIM_H
/* SHA256_Init/Update/Final on a plain SHA256_CTX: OpenSSL 3.0 marks them deprecated in favour
   of EVP, whose context copies allocate (see SHA256.swift). They are declared at the 1.1.1 API
   level, where they carry no deprecation. */
#define OPENSSL_API_COMPAT 0x10101000L
#include <openssl/sha.h>
#endif
