#ifndef RECOUNT_CXXHASH_SHIM_H
#define RECOUNT_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
