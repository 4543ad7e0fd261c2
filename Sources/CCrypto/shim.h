#ifndef RECOUNT_CCRYPTO_SHIM_H
#define RECOUNT_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
