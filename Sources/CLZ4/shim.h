#ifndef RECOUNT_CLZ4_SHIM_H
#define RECOUNT_CLZ4_SHIM_H
#include <lz4.h>
#endif
