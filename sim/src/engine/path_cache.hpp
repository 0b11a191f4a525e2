// PathCache: an open-addressing hash map from (source, destination, flow key) to a 32-bit index, with
// no allocation per lookup: the simulator's paths per run, the route memo's kept routes and the fold
// proof's connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

struct PathKey {
  DeviceId src = 0;
  DeviceId dst = 0;
  std::uint32_t flow_key = 0;
  bool operator==(const PathKey&) const = default;
};

/// Open-addressing hash map (src, dst, flow key) -> path index; no allocation per lookup.
class PathCache {
 public:
  static constexpr std::uint32_t kMissing = UINT32_MAX;

  std::uint32_t find(const PathKey& key) const {
    if (slots_.empty()) return kMissing;
    for (std::size_t i = hash(key) & mask(); ; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (slot.value == kMissing) return kMissing;
      if (slot.key == key) return slot.value;
    }
  }

  void insert(const PathKey& key, std::uint32_t value) {
    if ((size_ + 1) * kLoadDenominator > slots_.size() * kLoadNumerator) grow();
    place(key, value);
    ++size_;
  }

 private:
  struct Slot {
    PathKey key;
    std::uint32_t value = kMissing;
  };
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kLoadNumerator = 1;  ///< grow beyond a load factor of 1/2
  static constexpr std::size_t kLoadDenominator = 2;

  std::size_t mask() const { return slots_.size() - 1; }
  static std::size_t hash(const PathKey& key) {
    // splitmix64 finaliser over the packed key.
    std::uint64_t x = (std::uint64_t(key.src) << 32 | key.dst) ^ (std::uint64_t(key.flow_key) * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return std::size_t(x ^ (x >> 31));
  }
  void place(const PathKey& key, std::uint32_t value) {
    std::size_t i = hash(key) & mask();
    while (slots_[i].value != kMissing) i = (i + 1) & mask();
    slots_[i] = Slot{key, value};
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
    for (const Slot& slot : old)
      if (slot.value != kMissing) place(slot.key, slot.value);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace ringlab::sim::detail
