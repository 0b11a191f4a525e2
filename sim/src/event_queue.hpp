// EventQueue: the discrete-event core of the simulator (private to ringlab_sim).
//
// Events are small PODs (time, sequence, target, tag); the owner pops them with step() and dispatches
// on `tag` itself, so no callable is stored or allocated per event. Ties in time are broken by a
// sequence number, i.e. insertion order, which makes every run deterministic.
//
// Because time never runs backwards the queue is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990):
// 65 buckets by the highest bit in which an event's time differs from the last minimum, so an event
// moves down at most 64 times over its life and push is O(1). Bucket 0 holds the events at the current
// minimum time, kept in sequence order. Events scheduled below that minimum (possible after
// next_time() has looked ahead) go to a small binary heap that is always served first.
// Cancellation is lazy: an EventId names a recycled slot plus a generation; cancel() bumps the
// slot's generation and step() skips heap entries whose generation no longer matches. Memory is
// bounded by the events pending at once, not by the events ever scheduled. Time never runs
// backwards: scheduling before now() is a bug (asserted).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ringlab/topology/units.hpp"

namespace ringlab::sim::detail {

/// Identifies one scheduled event: (generation << 32) | slot. Never 0 for a scheduled event, so 0
/// can serve as "no event".
using EventId = std::uint64_t;
inline constexpr EventId kNoEvent = 0;

struct Event {
  Duration time;
  EventId id = kNoEvent;
  std::uint32_t target = 0;  ///< what the event is about (op id, flow id, ...), owner-defined
  std::uint32_t tag = 0;     ///< what happens (owner-defined kind)
};

class EventQueue {
 public:
  /// Schedules an event at absolute time `time`. Precondition: time >= now().
  EventId schedule(Duration time, std::uint32_t target, std::uint32_t tag);
  /// Cancels a pending event. Cancelling an event that already fired or was cancelled, or kNoEvent,
  /// is a no-op.
  void cancel(EventId id);
  /// True while the event is scheduled and neither fired nor cancelled.
  bool is_pending(EventId id) const;
  /// Pops the earliest live event, advances now() to its time and returns it; nullopt when empty.
  std::optional<Event> step();
  /// Time of the earliest live event, or nullopt when none is pending.
  std::optional<Duration> next_time();

  Duration now() const { return now_; }
  /// Live (not cancelled, not fired) events.
  std::size_t pending() const { return live_; }
  bool empty() const { return live_ == 0; }
  /// Events returned by step() since construction or reset().
  std::uint64_t processed() const { return processed_; }

  /// Back to time zero with no events; keeps the allocated capacity.
  void reset();

 private:
  struct Entry {
    std::int64_t time;
    std::uint64_t sequence;
    std::uint32_t target;
    std::uint32_t tag;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  static constexpr std::size_t kBuckets = 65;  ///< bucket 0 plus one per bit of a 64-bit time
  struct After {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time > b.time || (a.time == b.time && a.sequence > b.sequence);
    }
  };
  bool is_live(const Entry& e) const { return generation_[e.slot] == e.generation; }
  std::size_t bucket_of(std::int64_t time) const;
  /// The next live entry (dropping dead ones on the way), or nullptr when none is left.
  const Entry* peek();
  void pop_peeked();
  bool refill();

  std::vector<Entry> buckets_[kBuckets];
  std::size_t front_ = 0;        ///< next entry of bucket 0
  std::int64_t minimum_ = 0;     ///< time of bucket 0; every bucketed entry is >= it
  std::vector<Entry> early_;     ///< binary heap of entries scheduled below minimum_
  std::vector<std::uint32_t> generation_;  ///< per slot; an entry is live while its generation matches
  std::vector<std::uint32_t> free_slots_;
  Duration now_;
  std::uint64_t next_sequence_ = 0;
  std::size_t live_ = 0;
  std::uint64_t processed_ = 0;
};

}  // namespace ringlab::sim::detail
