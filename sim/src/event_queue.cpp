// EventQueue: 4-ary heap of 16-byte keys with per-slot payloads and lazy cancellation (see event_queue.hpp).
#include "event_queue.hpp"

#include <cassert>
#include <utility>

namespace ringlab::sim::detail {

EventId EventQueue::schedule(Duration time, std::uint32_t target, std::uint32_t tag) {
  assert(time >= now_ && "time never runs backwards");
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = std::uint32_t(payload_.size());
    assert(slot <= kSlotMask && "too many pending events");
    payload_.emplace_back();
  }
  const std::uint64_t key = next_sequence_++ << kSlotBits | slot;
  payload_[slot] = Payload{key, target, tag};
  heap_.push_back(Entry{time.picoseconds(), key});
  sift_up(heap_.size() - 1);
  ++live_;
  return key;
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint64_t slot = id & kSlotMask;
  return id != kNoEvent && slot < payload_.size() && payload_[slot].key == id;
}

void EventQueue::release(std::uint64_t key) {
  const auto slot = std::uint32_t(key & kSlotMask);
  payload_[slot].key = 0;
  free_slots_.push_back(slot);
  --live_;
}

void EventQueue::cancel(EventId id) {
  // The heap entry stays and is skipped when it surfaces: a reused slot holds a newer key.
  if (is_pending(id)) release(id);
}

void EventQueue::drop_dead_top() {
  while (!heap_.empty() && !is_live(heap_.front())) pop_top();
}

std::optional<Duration> EventQueue::next_time() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  return Duration{heap_.front().time};
}

std::optional<Event> EventQueue::step() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  const Entry top = heap_.front();
  pop_top();
  const Payload payload = payload_[top.key & kSlotMask];
  release(top.key);
  ++processed_;
  now_ = Duration{top.time};
  return Event{now_, top.key, payload.target, payload.tag};
}

void EventQueue::reset() {
  heap_.clear();
  // Keys keep growing across a reset, so ids handed out before it stay dead.
  free_slots_.clear();
  for (std::size_t slot = payload_.size(); slot-- > 0;) {
    payload_[slot].key = 0;
    free_slots_.push_back(std::uint32_t(slot));
  }
  now_ = Duration{};
  live_ = 0;
  processed_ = 0;
}

void EventQueue::pop_top() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first + kArity <= n) {  // all four children: a tournament of three comparisons
      const std::size_t low = before(heap_[first + 1], heap_[first]) ? first + 1 : first;
      const std::size_t high = before(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
      const std::size_t best = before(heap_[high], heap_[low]) ? high : low;
      heap_[i] = heap_[best];
      i = best;
      continue;
    }
    if (first >= n) break;
    std::size_t best = first;
    for (std::size_t c = first + 1; c < n; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    heap_[i] = heap_[best];
    i = best;
    break;  // a partial family is the last level
  }
  heap_[i] = last;
  sift_up(i);
}

void EventQueue::sift_up(std::size_t i) {
  const Entry moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

}  // namespace ringlab::sim::detail
