// EventQueue: radix heap of POD events with slot/generation cancellation (see event_queue.hpp).
#include "event_queue.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

namespace ringlab::sim::detail {
namespace {
constexpr int kGenerationShift = 32;
constexpr std::uint64_t kSlotMask = 0xffffffffULL;
}  // namespace

EventId EventQueue::schedule(Duration time, std::uint32_t target, std::uint32_t tag) {
  assert(time >= now_ && "time never runs backwards");
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = std::uint32_t(generation_.size());
    generation_.push_back(1);  // generation 0 is never live, so no EventId is kNoEvent
  }
  const std::uint32_t generation = generation_[slot];
  const Entry entry{time.picoseconds(), next_sequence_++, target, tag, slot, generation};
  if (entry.time < minimum_) {
    early_.push_back(entry);
    std::push_heap(early_.begin(), early_.end(), After{});
  } else {
    // An entry at minimum_ joins bucket 0 behind the others there: its sequence number is larger.
    buckets_[bucket_of(entry.time)].push_back(entry);
  }
  ++live_;
  return (EventId(generation) << kGenerationShift) | slot;
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint64_t slot = id & kSlotMask;
  return id != kNoEvent && slot < generation_.size() && generation_[slot] == std::uint32_t(id >> kGenerationShift);
}

void EventQueue::cancel(EventId id) {
  if (!is_pending(id)) return;
  const std::uint32_t slot = std::uint32_t(id & kSlotMask);
  // The entry stays queued and is skipped when it surfaces; the slot can be reused at once because
  // a reused slot carries a newer generation than the stale entry.
  if (++generation_[slot] == 0) generation_[slot] = 1;
  free_slots_.push_back(slot);
  --live_;
}

std::size_t EventQueue::bucket_of(std::int64_t time) const {
  const auto diff = std::uint64_t(time) ^ std::uint64_t(minimum_);
  return diff == 0 ? 0 : std::size_t(std::bit_width(diff));
}

bool EventQueue::refill() {
  buckets_[0].clear();
  front_ = 0;
  std::size_t i = 1;
  while (i < kBuckets && buckets_[i].empty()) ++i;
  if (i == kBuckets) return false;
  std::vector<Entry>& source = buckets_[i];
  std::int64_t least = source.front().time;
  for (const Entry& e : source) least = std::min(least, e.time);
  minimum_ = least;
  // Every entry of bucket i lands in a lower bucket relative to the new minimum; buckets above i
  // keep their place because the new minimum agrees with the old one on the bits above i - 1.
  for (const Entry& e : source) buckets_[bucket_of(e.time)].push_back(e);
  source.clear();
  std::sort(buckets_[0].begin(), buckets_[0].end(),
            [](const Entry& a, const Entry& b) { return a.sequence < b.sequence; });
  return true;
}

const EventQueue::Entry* EventQueue::peek() {
  while (!early_.empty()) {
    if (is_live(early_.front())) return &early_.front();
    std::pop_heap(early_.begin(), early_.end(), After{});
    early_.pop_back();
  }
  for (;;) {
    std::vector<Entry>& current = buckets_[0];
    while (front_ < current.size() && !is_live(current[front_])) ++front_;
    if (front_ < current.size()) return &current[front_];
    if (!refill()) return nullptr;
  }
}

void EventQueue::pop_peeked() {
  if (!early_.empty()) {
    std::pop_heap(early_.begin(), early_.end(), After{});
    early_.pop_back();
  } else {
    ++front_;
  }
}

std::optional<Duration> EventQueue::next_time() {
  const Entry* next = peek();
  if (!next) return std::nullopt;
  return Duration{next->time};
}

std::optional<Event> EventQueue::step() {
  const Entry* next = peek();
  if (!next) return std::nullopt;
  const Entry top = *next;
  pop_peeked();
  if (++generation_[top.slot] == 0) generation_[top.slot] = 1;
  free_slots_.push_back(top.slot);
  --live_;
  ++processed_;
  now_ = Duration{top.time};
  return Event{now_, (EventId(top.generation) << kGenerationShift) | top.slot, top.target, top.tag};
}

void EventQueue::reset() {
  for (std::vector<Entry>& bucket : buckets_) bucket.clear();
  early_.clear();
  front_ = 0;
  minimum_ = 0;
  // Bump every generation so that ids handed out before the reset stay dead.
  free_slots_.clear();
  for (std::uint32_t slot = 0; slot < generation_.size(); ++slot) {
    if (++generation_[slot] == 0) generation_[slot] = 1;
    free_slots_.push_back(std::uint32_t(generation_.size()) - 1 - slot);
  }
  now_ = Duration{};
  next_sequence_ = 0;
  live_ = 0;
  processed_ = 0;
}

}  // namespace ringlab::sim::detail
