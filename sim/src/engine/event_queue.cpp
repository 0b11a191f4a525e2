// EventQueue: events batched per instant, a min-heap of instants, lazy cancellation (see event_queue.hpp).
#include "engine/event_queue.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace ringlab::sim::detail {
namespace {
struct LaterTime {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.time > b.time;
  }
};
}  // namespace

std::uint32_t EventQueue::TimeIndex::find(std::int64_t time) const {
  for (std::size_t i = home(time);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[i];
    if (slot.bucket == kMissing) return kMissing;
    if (slot.time == time) return slot.bucket;
  }
}

void EventQueue::TimeIndex::insert(std::int64_t time, std::uint32_t bucket) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  std::size_t i = home(time);
  while (slots_[i].bucket != kMissing) i = (i + 1) & (slots_.size() - 1);
  slots_[i] = Slot{time, bucket};
  ++size_;
}

void EventQueue::TimeIndex::erase(std::int64_t time) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = home(time);
  while (slots_[hole].time != time || slots_[hole].bucket == kMissing) hole = (hole + 1) & mask;
  --size_;
  for (std::size_t j = (hole + 1) & mask; slots_[j].bucket != kMissing; j = (j + 1) & mask) {
    const std::size_t want = home(slots_[j].time);
    // Leave j where it is when its home lies cyclically in (hole, j].
    const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Slot{};
}

void EventQueue::TimeIndex::clear() {
  std::fill(slots_.begin(), slots_.end(), Slot{});
  size_ = 0;
}

void EventQueue::TimeIndex::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_ = 0;
  for (const Slot& slot : old)
    if (slot.bucket != kMissing) insert(slot.time, slot.bucket);
}

std::uint32_t EventQueue::bucket_for(std::int64_t time) {
  if (last_bucket_ != TimeIndex::kMissing && last_time_ == time) return last_bucket_;
  const std::uint32_t found = index_.find(time);
  last_time_ = time;
  if (found != TimeIndex::kMissing) return last_bucket_ = found;
  std::uint32_t b;
  if (!free_buckets_.empty()) {
    b = free_buckets_.back();
    free_buckets_.pop_back();
  } else {
    b = std::uint32_t(buckets_.size());
    buckets_.emplace_back();
  }
  Bucket& bucket = buckets_[b];
  bucket.time = time;
  bucket.head = 0;
  bucket.keys.clear();
  index_.insert(time, b);
  heap_.push_back(HeapEntry{time, b});
  std::push_heap(heap_.begin(), heap_.end(), LaterTime{});
  return last_bucket_ = b;
}

std::uint32_t EventQueue::take_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  const auto slot = std::uint32_t(payload_.size());
  assert(slot <= kSlotMask && "too many pending events");
  payload_.emplace_back();
  return slot;
}

EventId EventQueue::schedule(Duration time, std::uint64_t target, std::uint32_t tag) {
  assert(time >= now_ && "time never runs backwards");
  const std::uint32_t slot = take_slot();
  const std::uint64_t key = next_sequence_++ << kSlotBits | slot;
  payload_[slot] = Payload{key, target, tag};
  buckets_[bucket_for(time.picoseconds())].keys.push_back(key);
  ++live_;
  return key;
}

EventId EventQueue::schedule_reserved(Duration time, std::uint64_t sequence, std::uint64_t target, std::uint32_t tag) {
  assert(time > now_ && sequence < next_sequence_);
  const std::uint32_t slot = take_slot();
  const std::uint64_t key = sequence << kSlotBits | slot;
  payload_[slot] = Payload{key, target, tag};
  // Keys are in sequence order (their high bits); the instant has not started, so its head is 0.
  std::vector<std::uint64_t>& keys = buckets_[bucket_for(time.picoseconds())].keys;
  keys.insert(std::upper_bound(keys.begin(), keys.end(), key,
                               [](std::uint64_t a, std::uint64_t b) { return a >> kSlotBits < b >> kSlotBits; }),
              key);
  ++live_;
  return key;
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint64_t slot = id & kSlotMask;
  return id != kNoEvent && slot < payload_.size() && payload_[slot].key == id;
}

void EventQueue::cancel(EventId id) {
  // The bucket entry stays and is skipped when it surfaces: a reused slot holds a newer key.
  if (!is_pending(id)) return;
  release(id);
  top_clean_ = false;
  if (++dead_keys_ > kCompactAfter && dead_keys_ > live_) compact();
}

void EventQueue::compact() {
  std::size_t kept = 0;
  for (const HeapEntry& entry : heap_) {
    Bucket& bucket = buckets_[entry.bucket];
    const auto first_dead = std::remove_if(bucket.keys.begin() + std::ptrdiff_t(bucket.head), bucket.keys.end(),
                                           [this](std::uint64_t key) { return !is_live(key); });
    bucket.keys.erase(first_dead, bucket.keys.end());
    if (bucket.head == bucket.keys.size()) {
      index_.erase(entry.time);
      free_buckets_.push_back(entry.bucket);
      continue;
    }
    heap_[kept++] = entry;
  }
  heap_.resize(kept);
  std::make_heap(heap_.begin(), heap_.end(), LaterTime{});
  dead_keys_ = 0;
  last_bucket_ = TimeIndex::kMissing;
}

void EventQueue::clean_top() {
  top_clean_ = true;
  while (!heap_.empty()) {
    const std::uint32_t b = heap_.front().bucket;
    Bucket& bucket = buckets_[b];
    while (bucket.head < bucket.keys.size() && !is_live(bucket.keys[bucket.head])) {
      ++bucket.head;
      assert(dead_keys_ > 0 && "every key skipped here was counted by cancel()");
      --dead_keys_;
    }
    if (bucket.head < bucket.keys.size()) return;
    std::pop_heap(heap_.begin(), heap_.end(), LaterTime{});
    heap_.pop_back();
    index_.erase(bucket.time);
    if (last_bucket_ == b) last_bucket_ = TimeIndex::kMissing;
    free_buckets_.push_back(b);
  }
}

void EventQueue::reset() {
  clear_pending();
  now_ = Duration{};
  processed_ = 0;
}

void EventQueue::pending_events(std::vector<Event>& out) const {
  std::vector<HeapEntry> instants = heap_;
  std::sort(instants.begin(), instants.end(), [](const HeapEntry& a, const HeapEntry& b) { return a.time < b.time; });
  out.clear();
  out.reserve(live_);
  for (const HeapEntry& instant : instants) {
    const Bucket& bucket = buckets_[instant.bucket];
    for (std::size_t i = bucket.head; i < bucket.keys.size(); ++i) {
      const std::uint64_t key = bucket.keys[i];
      if (!is_live(key)) continue;
      const Payload& payload = payload_[key & kSlotMask];
      out.push_back(Event{Duration{bucket.time}, key, payload.target, payload.tag});
    }
  }
}

std::vector<Event> EventQueue::take_pending() {
  std::vector<Event> out;
  pending_events(out);
  clear_pending();
  return out;
}

void EventQueue::advance(Duration time) {
  assert(live_ == 0 && time >= now_);
  now_ = time;
}

void EventQueue::clear_pending() {
  for (const HeapEntry& entry : heap_) free_buckets_.push_back(entry.bucket);
  heap_.clear();
  dead_keys_ = 0;
  index_.clear();
  last_bucket_ = TimeIndex::kMissing;
  top_clean_ = true;
  // Keys keep growing across a reset, so ids handed out before it stay dead.
  free_slots_.clear();
  for (std::size_t slot = payload_.size(); slot-- > 0;) {
    payload_[slot].key = 0;
    free_slots_.push_back(std::uint32_t(slot));
  }
  live_ = 0;
}

}  // namespace ringlab::sim::detail
