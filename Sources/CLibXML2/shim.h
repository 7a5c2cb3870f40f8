#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its ICU types clash with Foundation's own copy. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/tree.h>
#include <libxml/SAX2.h>
