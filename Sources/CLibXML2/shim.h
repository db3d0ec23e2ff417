#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so <libxml/encoding.h> includes <unicode/ucnv.h>, whose
// `UErrorCode` clashes with Foundation's private `_FoundationICU` module in any Swift file
// that imports both Foundation and CLibXML2. Curlew never touches the ICU members of
// `xmlCharEncodingHandler` (it only passes pointers to it), so hiding them is harmless.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <libxml/SAX2.h>
#include <libxml/xmlmemory.h>
#include <libxml/entities.h>

/// Calls libxml2's `xmlFree`, which is a mutable global function pointer that Swift 6 cannot
/// read without a concurrency diagnostic.
static inline void curlew_xml_free(void *pointer) {
    xmlFree(pointer);
}
