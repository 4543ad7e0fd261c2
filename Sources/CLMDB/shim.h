#ifndef RECOUNT_CLMDB_SHIM_H
#define RECOUNT_CLMDB_SHIM_H
#include <lmdb.h>
#endif
