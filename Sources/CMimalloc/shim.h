// mimalloc, linked into the executable so that its malloc and free replace glibc's for the
// whole process: screening allocates and frees small blocks on several threads at once,
// where glibc's allocator spent about a tenth of the CPU (perf on `screen` of 10^6 orders).
#include <mimalloc.h>
