// EventQueue: the discrete-event core of the simulator (private to ringlab_sim).
//
// Events are small PODs (time, sequence, target, tag); the owner pops them with step() and dispatches
// on `tag` itself, so no callable is stored or allocated per event. Ties in time are broken by a
// sequence number, i.e. insertion order, which makes every run deterministic. Time never runs
// backwards: scheduling before now() is a bug (asserted).
//
// Storage batches events by instant: every distinct pending time has a bucket, a FIFO of event keys
// in sequence order, and a small min-heap orders the buckets by time; a hash map finds the bucket of
// a time when an event is scheduled. A collective's ranks move in lock step, so thousands of events
// share an instant: the heap sees one push and one pop per instant instead of per event, and the
// events of an instant are read sequentially. Ties are broken by sequence as before (a bucket is
// appended to in sequence order, including events scheduled at now() while its instant runs). The
// payload (target, tag) lives in a per-slot side table. Measured on ring1024 (1024-GPU ring, 5.5M
// events): the per-event 4-ary heap this replaces took ~28% of the run (sift-down on every pop).
//
// Each key's liveness is checked once: after a check the top is known clean until a pop or a
// cancellation, and runs of events at one instant skip the time index through a one-entry cache.
//
// An owner may also defer an event: reserve_sequence() takes the sequence a schedule() would take
// now, and schedule_reserved() later places the event in that order among its instant's events (the
// simulator re-arms a flow's completion that moved later this way, when the earlier event fires).
//
// Cancellation is lazy: an EventId is (sequence << 24 | slot) and a slot remembers the sequence of
// its live event; cancel() forgets it, and bucket entries whose sequence no longer matches their slot
// are skipped when they surface. Slots and buckets are recycled, so memory is bounded by the events
// and instants pending at once (at most 2^24 events), not by the events ever scheduled (2^40).
//
// A flow whose rate changes is rescheduled to an instant of its own, and the key it leaves may lie far
// in the future, alone in its bucket. When cancelled keys not yet surfaced outnumber the live ones
// (and are more than kCompactAfter), every bucket drops its dead keys and empty buckets leave the heap
// and the index: O(keys), paid for by the cancellations. Without this, a 216-GPU NCCL tree (each
// re-solve moving hundreds of flows) spent 56 % of its run popping dead instants.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ringlab/topology/units.hpp"

namespace ringlab::sim::detail {

/// Identifies one scheduled event: (sequence << 24) | slot, sequence counting from 1. Never 0 for
/// a scheduled event, so 0 can serve as "no event".
using EventId = std::uint64_t;
inline constexpr EventId kNoEvent = 0;

struct Event {
  Duration time;
  EventId id = kNoEvent;
  std::uint64_t target = 0;  ///< what the event is about (op id, flow id, ...), owner-defined
  std::uint32_t tag = 0;     ///< what happens (owner-defined kind)
};

class EventQueue {
 public:
  /// Schedules an event at absolute time `time`. Precondition: time >= now().
  EventId schedule(Duration time, std::uint64_t target, std::uint32_t tag);
  /// The sequence number the next schedule() would take, taken now without scheduling anything.
  std::uint64_t reserve_sequence() { return next_sequence_++; }
  /// Schedules an event with a sequence taken earlier by reserve_sequence(): among the events of its
  /// instant it runs where it would have had it been scheduled when the sequence was reserved.
  /// Precondition: time > now() (its instant has not started).
  EventId schedule_reserved(Duration time, std::uint64_t sequence, std::uint64_t target, std::uint32_t tag);
  /// Cancels a pending event. Cancelling an event that already fired or was cancelled, or kNoEvent,
  /// is a no-op.
  void cancel(EventId id);
  /// True while the event is scheduled and neither fired nor cancelled.
  bool is_pending(EventId id) const;
  /// Pops the earliest live event, advances now() to its time and returns it; nullopt when empty.
  std::optional<Event> step() {
    drop_dead_top();
    if (heap_.empty()) return std::nullopt;
    Bucket& bucket = buckets_[heap_.front().bucket];
    const std::uint64_t key = bucket.keys[bucket.head++];
    const Payload payload = payload_[key & kSlotMask];
    release(key);
    top_clean_ = false;
    ++processed_;
    now_ = Duration{bucket.time};
    return Event{now_, key, payload.target, payload.tag};
  }
  /// Time of the earliest live event, or nullopt when none is pending.
  std::optional<Duration> next_time() {
    drop_dead_top();
    if (heap_.empty()) return std::nullopt;
    return Duration{heap_.front().time};
  }

  Duration now() const { return now_; }
  /// Live (not cancelled, not fired) events.
  std::size_t pending() const { return live_; }
  bool empty() const { return live_ == 0; }
  /// Events returned by step() since construction or reset().
  std::uint64_t processed() const { return processed_; }

  /// Back to time zero with no events; keeps the allocated capacity.
  void reset();

  /// The pending events in the order step() would return them (time, then sequence), into `out`.
  void pending_events(std::vector<Event>& out) const;
  /// Removes every pending event and returns them in the order step() would have (time, then
  /// sequence); now() and processed() stay. With advance() and schedule() the owner can move them.
  std::vector<Event> take_pending();
  /// Moves the clock forward. Precondition: nothing pending, time >= now().
  void advance(Duration time);
  /// Adds events that the owner accounts as processed without stepping through them.
  void count_processed(std::uint64_t events) { processed_ += events; }

 private:
  struct Payload {
    std::uint64_t key = 0;  ///< key of the live event in this slot, 0 when the slot is free
    std::uint64_t target = 0;
    std::uint32_t tag = 0;
  };
  /// The events of one instant, in sequence order; keys[head..] are not yet popped.
  struct Bucket {
    std::int64_t time = 0;
    std::size_t head = 0;
    std::vector<std::uint64_t> keys;
  };
  struct HeapEntry {
    std::int64_t time;
    std::uint32_t bucket;
  };
  /// Open-addressing map time -> bucket (linear probing, backward-shift deletion).
  class TimeIndex {
   public:
    static constexpr std::uint32_t kMissing = UINT32_MAX;
    std::uint32_t find(std::int64_t time) const;
    void insert(std::int64_t time, std::uint32_t bucket);
    void erase(std::int64_t time);
    void clear();

   private:
    struct Slot {
      std::int64_t time = 0;
      std::uint32_t bucket = kMissing;
    };
    std::size_t home(std::int64_t time) const {
      return std::size_t((std::uint64_t(time) * 0x9e3779b97f4a7c15ULL) >> 20) & (slots_.size() - 1);
    }
    void grow();
    std::vector<Slot> slots_ = std::vector<Slot>(64);
    std::size_t size_ = 0;
  };
  static constexpr int kSlotBits = 24;
  /// Fewest cancelled keys worth a compaction (below, skipping them as they surface is cheap).
  static constexpr std::size_t kCompactAfter = 1024;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t(1) << kSlotBits) - 1;

  bool is_live(std::uint64_t key) const { return payload_[key & kSlotMask].key == key; }
  void release(std::uint64_t key) {
    const auto slot = std::uint32_t(key & kSlotMask);
    payload_[slot].key = 0;
    free_slots_.push_back(slot);
    --live_;
  }
  /// Drops cancelled keys and exhausted buckets from the top; afterwards the top bucket, if any,
  /// has a live key at its head. O(1) when nothing changed the top since the last call.
  void drop_dead_top() {
    if (!top_clean_) clean_top();
  }
  void clean_top();
  /// A free payload slot.
  std::uint32_t take_slot();
  /// Drops the cancelled keys from every bucket, and the buckets left empty from the heap and index.
  void compact();
  void clear_pending();
  std::uint32_t bucket_for(std::int64_t time);

  std::vector<HeapEntry> heap_;  ///< min-heap of the pending instants
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_buckets_;
  std::size_t dead_keys_ = 0;  ///< cancelled keys still in a bucket
  TimeIndex index_;
  /// The bucket that schedule() used last (events come in runs at one instant): skips the index.
  std::int64_t last_time_ = 0;
  std::uint32_t last_bucket_ = TimeIndex::kMissing;
  /// True when the top bucket's head is known live (or no bucket is pending): step() and
  /// next_time() then check each key once. Cleared by a pop and by a cancellation.
  bool top_clean_ = true;
  std::vector<Payload> payload_;  ///< per slot
  std::vector<std::uint32_t> free_slots_;
  Duration now_;
  std::uint64_t next_sequence_ = 1;
  std::size_t live_ = 0;
  std::uint64_t processed_ = 0;
};

}  // namespace ringlab::sim::detail
