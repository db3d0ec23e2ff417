#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <libxml/SAX2.h>
#include <libxml/xmlmemory.h>
#include <libxml/entities.h>
#include <libxml/encoding.h>

/// Calls libxml2's `xmlFree`, which is a mutable global function pointer that Swift 6 cannot
/// read without a concurrency diagnostic.
static inline void curlew_xml_free(void *pointer) {
    xmlFree(pointer);
}
