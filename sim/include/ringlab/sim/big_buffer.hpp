// BigBufferAllocator: a std::allocator for the simulator's largest arrays (a schedule's ops and
// dependencies, the engine's per-op tables) that asks Linux for transparent huge pages.
//
// A 10M-op schedule is ~650 MB written once, front to back; in 4 KiB pages that is ~160,000 page
// faults, and building NCCL's 1,024-GPU schedule spent as much time in the kernel as in the builder.
// Allocations of kMinBytes or more are mapped directly and marked MADV_HUGEPAGE before any page is
// touched, which works where THP is "always" or "madvise" and is a no-op where it is "never".
// Smaller ones, and other systems, use operator new. Stateless: all instances compare equal.
#pragma once

#include <cstddef>
#include <new>

namespace ringlab::sim {

namespace detail {
/// Memory for `bytes` (huge pages where the system allows); throws std::bad_alloc.
void* allocate_big(std::size_t bytes);
void deallocate_big(void* p, std::size_t bytes) noexcept;
inline constexpr std::size_t kBigBufferMinBytes = std::size_t(32) << 20;
}  // namespace detail

template <class T>
struct BigBufferAllocator {
  using value_type = T;
  BigBufferAllocator() = default;
  template <class U>
  BigBufferAllocator(const BigBufferAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < detail::kBigBufferMinBytes) return static_cast<T*>(::operator new(bytes));
    return static_cast<T*>(detail::allocate_big(bytes));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < detail::kBigBufferMinBytes) {
      ::operator delete(p);
      return;
    }
    detail::deallocate_big(p, bytes);
  }
  template <class U>
  bool operator==(const BigBufferAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace ringlab::sim
