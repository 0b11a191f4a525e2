// BigBufferAllocator's large allocations: anonymous mappings marked for transparent huge pages
// (big_buffer.hpp says why).
#include "ringlab/sim/big_buffer.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ringlab::sim::detail {

#if defined(__linux__)
void* allocate_big(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages are ordinary ones
#endif
  return p;
}

void deallocate_big(void* p, std::size_t bytes) noexcept { munmap(p, bytes); }
#else
void* allocate_big(std::size_t bytes) { return ::operator new(bytes); }
void deallocate_big(void* p, std::size_t) noexcept { ::operator delete(p); }
#endif

}  // namespace ringlab::sim::detail
