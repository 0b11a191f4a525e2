// Reference executor: a walk over a Schedule (ExplicitDag, as the engines) that moves and sums real
// values (see the header).
#include "ringlab/sim/reference_executor.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>

#include "engine/explicit_dag.hpp"

namespace ringlab::sim {
namespace {

std::string op_label(OpId id, const Op& op) {
  return "op #" + std::to_string(id) + " (" + std::string(to_string(op.kind)) + " at endpoint " +
         std::to_string(op.at) + ")";
}

/// Per-endpoint storage. Inbox slots are created on first use; `filled` marks elements holding an
/// arrival not yet consumed.
struct Memory {
  struct Slot {
    std::vector<double> values;
    std::vector<bool> filled;
  };
  std::int64_t elements = 0;
  std::vector<std::vector<double>> own;   ///< Data (ranks) or Scratch (others)
  std::vector<std::vector<double>> wire;  ///< encoded forms (identity codec: the same values)
  std::map<std::pair<Endpoint, Endpoint>, Slot> inbox;

  Slot& slot(Endpoint at, Endpoint from) {
    Slot& s = inbox[{at, from}];
    if (s.values.empty()) {
      s.values.assign(std::size_t(elements), 0.0);
      s.filled.assign(std::size_t(elements), false);
    }
    return s;
  }
};

class Executor {
 public:
  Executor(const Schedule& s, std::span<const std::vector<double>> inputs) : s_(s) {
    mem_.elements = s.message().count() / s.payload().element_bytes();
    for (std::size_t e = 0; e < s.endpoints().size(); ++e) {
      if (e < inputs.size())
        mem_.own.push_back(inputs[e]);
      else
        mem_.own.emplace_back(std::size_t(mem_.elements), 0.0);
      mem_.wire.emplace_back(std::size_t(mem_.elements), 0.0);
    }
  }

  void run(const ExecOptions& options) {
    check_in_flight_ = options.check_in_flight;
    const std::size_t n = s_.ops().size();
    for (OpId id = 0; id < n; ++id) check_range(id, s_.op(id));
    detail::ExplicitDag dag(s_);  // the dependency walk the timing engines use
    std::vector<OpId> ready;
    dag.for_each_initial([&](OpId id) { ready.push_back(id); });
    std::mt19937_64 rng(options.seed);
    std::size_t done = 0;
    while (!ready.empty()) {
      std::size_t pick = 0;
      switch (options.order) {
        case ExecOrder::LowestFirst:
          pick = std::size_t(std::min_element(ready.begin(), ready.end()) - ready.begin());
          break;
        case ExecOrder::HighestFirst:
          pick = std::size_t(std::max_element(ready.begin(), ready.end()) - ready.begin());
          break;
        case ExecOrder::Random: pick = std::size_t(rng() % ready.size()); break;
      }
      const OpId id = ready[pick];
      ready[pick] = ready.back();
      ready.pop_back();
      execute(id);
      ++done;
      dag.for_each_ready_successor(id, [&](OpId next) { ready.push_back(next); });
    }
    if (done != n) throw ExecutionError("schedule has a dependency cycle: " + std::to_string(n - done) + " ops never ran");
  }

  std::vector<std::vector<double>> results() const {
    return {mem_.own.begin(), mem_.own.begin() + s_.rank_count()};
  }

 private:
  void check_range(OpId id, const Op& op) const {
    if (op.src == Buffer::Sparse || op.dst == Buffer::Sparse)
      throw ExecutionError(op_label(id, op) + ": top-k (sparse) schedules are not executable exactly");
    if (op.at >= s_.endpoints().size() || op.peer >= s_.endpoints().size())
      throw ExecutionError(op_label(id, op) + ": endpoint out of range");
    if (op.first < 0 || op.count < 0 || op.first + op.count > mem_.elements)
      throw ExecutionError(op_label(id, op) + ": range [" + std::to_string(op.first) + ", " +
                           std::to_string(op.first + op.count) + ") outside the buffer of " +
                           std::to_string(mem_.elements) + " elements");
  }

  /// The values of `buffer` at endpoint `at` (Inbox: the slot of sender `from`).
  std::vector<double>& values(Buffer buffer, Endpoint at, Endpoint from) {
    if (buffer == Buffer::Inbox) return mem_.slot(at, from).values;
    if (buffer == Buffer::Wire) return mem_.wire[at];
    return mem_.own[at];
  }

  /// Reads an Inbox range: every element must hold an arrival; `consume` clears it.
  void take_inbox(OpId id, const Op& op, bool consume) {
    Memory::Slot& slot = mem_.slot(op.at, op.peer);
    for (std::int64_t i = op.first; i < op.first + op.count; ++i) {
      if (!slot.filled[std::size_t(i)])
        throw ExecutionError(op_label(id, op) + ": reads element " + std::to_string(i) + " of the inbox from " +
                             std::to_string(op.peer) + " before anything arrived there");
      if (consume) slot.filled[std::size_t(i)] = false;
    }
  }

  void execute(OpId id) {
    const Op& op = s_.op(id);
    const auto first = std::ptrdiff_t(op.first);
    const auto last = std::ptrdiff_t(op.first + op.count);
    switch (op.kind) {
      case OpKind::Send: {
        const std::vector<double>& src = values(op.src, op.at, op.at);
        in_flight_[id].assign(src.begin() + first, src.begin() + last);
        return;
      }
      case OpKind::Recv: {
        auto flight = in_flight_.find(op.match);
        std::vector<double> arrived = std::move(flight->second);
        in_flight_.erase(flight);
        if (check_in_flight_) {
          const std::vector<double>& source = values(op.src, op.peer, op.peer);
          if (!std::equal(arrived.begin(), arrived.end(), source.begin() + first))
            throw ExecutionError(op_label(id, op) + ": the sender's range changed while the transfer was in flight "
                                 "(an op at endpoint " + std::to_string(op.peer) +
                                 " overwrote it without waiting for this recv)");
        }
        std::vector<double>& dst = values(op.dst, op.at, op.peer);
        if (op.dst == Buffer::Inbox) {
          Memory::Slot& slot = mem_.slot(op.at, op.peer);
          for (std::int64_t i = op.first; i < op.first + op.count; ++i) {
            if (slot.filled[std::size_t(i)])
              throw ExecutionError(op_label(id, op) + ": overwrites element " + std::to_string(i) +
                                   " of the inbox from " + std::to_string(op.peer) + " before it was consumed");
            slot.filled[std::size_t(i)] = true;
          }
        }
        for (std::size_t i = 0; i < arrived.size(); ++i) {
          double& d = dst[std::size_t(op.first) + i];
          d = op.mode == RecvMode::Reduce ? d + arrived[i] : arrived[i];
        }
        return;
      }
      case OpKind::Reduce:
      case OpKind::Copy:
      case OpKind::Decode:
      case OpKind::Encode: {
        // Encode/Decode: identity on values (see the header); Reduce sums, Copy copies.
        if (op.src == Buffer::Inbox) take_inbox(id, op, op.dst != Buffer::Inbox);
        if (op.src == op.dst) {  // in place (same endpoint, same slot)
          if (op.kind == OpKind::Reduce) throw ExecutionError(op_label(id, op) + ": reduces a range into itself");
          return;
        }
        const std::vector<double>& from = values(op.src, op.at, op.peer);
        const std::vector<double> src(from.begin() + first, from.begin() + last);
        std::vector<double>& dst = values(op.dst, op.at, op.peer);
        if (op.dst == Buffer::Inbox) mark_inbox(op);
        for (std::size_t i = 0; i < src.size(); ++i) {
          double& d = dst[std::size_t(op.first) + i];
          d = op.kind == OpKind::Reduce ? d + src[i] : src[i];
        }
        return;
      }
    }
  }

  void mark_inbox(const Op& op) {
    Memory::Slot& slot = mem_.slot(op.at, op.peer);
    for (std::int64_t i = op.first; i < op.first + op.count; ++i) slot.filled[std::size_t(i)] = true;
  }

  const Schedule& s_;
  Memory mem_;
  std::map<OpId, std::vector<double>> in_flight_;
  bool check_in_flight_ = true;
};

}  // namespace

std::vector<std::vector<double>> execute_schedule(const Schedule& schedule,
                                                  std::span<const std::vector<double>> inputs,
                                                  const ExecOptions& options) {
  const std::int64_t elements = schedule.message().count() / schedule.payload().element_bytes();
  if (inputs.size() != std::size_t(schedule.rank_count()))
    throw std::invalid_argument("execute_schedule: " + std::to_string(inputs.size()) + " inputs for " +
                                std::to_string(schedule.rank_count()) + " ranks");
  for (const auto& in : inputs)
    if (std::int64_t(in.size()) != elements)
      throw std::invalid_argument("execute_schedule: an input has " + std::to_string(in.size()) + " elements, not " +
                                  std::to_string(elements));
  Executor exec(schedule, inputs);
  exec.run(options);
  return exec.results();
}

}  // namespace ringlab::sim
