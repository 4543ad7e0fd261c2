#ifndef RECOUNT_CARCHIVE_SHIM_H
#define RECOUNT_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
