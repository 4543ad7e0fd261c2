#ifndef RECOUNT_CXML2_SHIM_H
#define RECOUNT_CXML2_SHIM_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, and <libxml/encoding.h> then includes ICU's headers, which
// clash with the copy Foundation ships (`_FoundationICU`) in any module that sees both. Only
// `xmlCharEncodingHandler`'s private converter fields depend on it, and they are never touched.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

/// Replaces a parser context's SAX handler by a SAX2 handler with only element and error
/// callbacks: no tree is built, no DTD declaration is stored, no external entity is resolved.
static inline void recount_xml_use_handler(
    xmlParserCtxtPtr ctxt, void *userData, startElementNsSAX2Func start, endElementNsSAX2Func end,
    xmlStructuredErrorFunc error) {
    memset(ctxt->sax, 0, sizeof(xmlSAXHandler));
    ctxt->sax->initialized = XML_SAX2_MAGIC;
    ctxt->sax->startElementNs = start;
    ctxt->sax->endElementNs = end;
    ctxt->sax->serror = error;
    ctxt->userData = userData;
}

/// The line the parser is on (1-based), as `xmlSAX2GetLineNumber` reports it.
static inline long recount_xml_line(xmlParserCtxtPtr ctxt) {
    return ctxt->input != NULL ? (long)ctxt->input->line : 0;
}

/// The column the parser is on (1-based), as `xmlSAX2GetColumnNumber` reports it.
static inline long recount_xml_column(xmlParserCtxtPtr ctxt) {
    return ctxt->input != NULL ? (long)ctxt->input->col : 0;
}

/// The offset in the document of a byte of the parser's input buffer (as `xmlByteConsumed`
/// counts, for input read without conversion), or -1 when `pointer` is not in that buffer.
static inline long recount_xml_input_offset(xmlParserCtxtPtr ctxt, const xmlChar *pointer) {
    xmlParserInputPtr input = ctxt->input;
    if (input == NULL || input->base == NULL || (uintptr_t)pointer < (uintptr_t)input->base ||
        (uintptr_t)pointer >= (uintptr_t)input->end) {
        return -1;
    }
    return (long)input->consumed + (long)(pointer - input->base);
}

/// The version of the libxml2 loaded, as a number (20914 for 2.9.14).
static inline int recount_xml_runtime_version(void) { return atoi(xmlParserVersion); }

/// Whether the parser found the document well-formed so far.
static inline int recount_xml_well_formed(xmlParserCtxtPtr ctxt) { return ctxt->wellFormed; }
#endif
