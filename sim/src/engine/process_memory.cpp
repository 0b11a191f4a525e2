// keep_large_blocks_mapped(): see ringlab/sim/process_memory.hpp.
#include "ringlab/sim/process_memory.hpp"

#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ringlab::sim {

void keep_large_blocks_mapped() {
#if defined(__GLIBC__)
  constexpr int kThresholdBytes = 128 * 1024;  // glibc's default (mallopt(3))
  mallopt(M_MMAP_THRESHOLD, kThresholdBytes);
#endif
}

}  // namespace ringlab::sim
