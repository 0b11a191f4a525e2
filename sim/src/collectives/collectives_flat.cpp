// Flat collective algorithms, where every rank is a peer: ring, double binary tree, recursive
// halving-doubling, direct (all-to-all), reduce-broadcast, and the top-k sparse allreduce that
// rides on the allgather of ring, direct or halving-doubling.
#include <stdexcept>

#include "collectives/collectives_builder.hpp"

namespace ringlab::sim::detail {
namespace {

Range whole_buffer(const CollectiveSpec& spec) { return Range{Bytes{}, spec.message}; }
int rank_count(const Group& ranks) { return int(ranks.size()); }

/// Reserves the schedule for ring phases over `units`: every non-empty block moves p-1 times per
/// phase, each move adding about `ops` ops and `deps` dependencies (a capacity hint only).
void reserve_ring(Builder& b, std::span<const Unit> units, int p, std::size_t ops, std::size_t deps) {
  std::size_t blocks = 0;
  for (const Unit& u : units)
    for (const Range& r : u.blocks) blocks += r.empty() ? 0 : 1;
  const std::size_t moves = blocks * std::size_t(p - 1);
  b.sink().reserve(moves * ops, moves * deps);
}

}  // namespace

void build_ring(Builder& b, const Group& ranks, const CollectiveSpec& spec) {
  const Range whole = whole_buffer(spec);
  const int p = rank_count(ranks);
  const RingOrders orders = spec.channel_rings;
  switch (spec.collective) {
    case Collective::AllReduce: {
      const auto units = b.units(whole, p, spec.channels, spec.chunk, Layout::PieceMajor);
      // Reduce: send, recv, reduce (deps: producer, connection, recv); copy: send, recv.
      if (!b.payload().quantized()) reserve_ring(b, units, p, 3 + 2, 4 + 2);
      const std::uint32_t steps = ring_reduce_scatter(b, ranks, units, 0, orders);
      ring_allgather(b, ranks, units, steps, orders);
      return;
    }
    case Collective::ReduceScatter:
      ring_reduce_scatter(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor), 0,
                          orders);
      return;
    case Collective::AllGather:
      ring_allgather(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor), 0,
                     orders);
      return;
    case Collective::Broadcast:
      chain_broadcast(b, ranks, spec.root, b.pieces(whole, spec.channels, spec.chunk), 0, orders);
      return;
    case Collective::Reduce:
      chain_reduce(b, ranks, spec.root, b.pieces(whole, spec.channels, spec.chunk), 0, orders);
      return;
  }
}

void build_tree(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                std::span<const HostId> hosts) {
  const auto pieces = b.pieces(whole_buffer(spec), spec.channels, spec.chunk);
  switch (spec.collective) {
    case Collective::AllReduce:
      if (spec.host_chains && !spec.channel_rings.empty() && spec.inter == InterAlgorithm::InNetwork)
        collnet_chain_allreduce(b, topology, ranks, pieces, spec.channel_rings, hosts);
      else if (spec.host_chains && !spec.channel_rings.empty())
        host_chain_tree_allreduce(b, ranks, pieces, 0, spec.channel_rings, hosts);
      else
        tree_allreduce(b, ranks, pieces, 0);
      return;
    case Collective::Broadcast: tree_broadcast(b, ranks, spec.root, pieces, 0); return;
    case Collective::Reduce: tree_reduce(b, ranks, spec.root, pieces, 0); return;
    case Collective::ReduceScatter:
    case Collective::AllGather: break;
  }
  throw std::logic_error("tree: unsupported collective reached the builder");
}

void build_halving_doubling(Builder& b, const Group& ranks, const CollectiveSpec& spec) {
  const Range whole = whole_buffer(spec);
  const int p = rank_count(ranks);
  switch (spec.collective) {
    case Collective::AllReduce: {
      const auto units = b.units(whole, p, spec.channels, spec.chunk, Layout::PieceMajor);
      const std::uint32_t steps = hd_reduce_scatter(b, ranks, units, 0);
      hd_allgather(b, ranks, units, steps);
      return;
    }
    case Collective::ReduceScatter:
      hd_reduce_scatter(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor), 0);
      return;
    case Collective::AllGather:
      hd_allgather(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor), 0);
      return;
    case Collective::Broadcast:
    case Collective::Reduce: break;
  }
  throw std::logic_error("halving_doubling: unsupported collective reached the builder");
}

void build_direct(Builder& b, const Group& ranks, const CollectiveSpec& spec) {
  const Range whole = whole_buffer(spec);
  const int p = rank_count(ranks);
  switch (spec.collective) {
    case Collective::AllReduce: {
      const auto units = b.units(whole, p, spec.channels, spec.chunk, Layout::PieceMajor);
      const std::uint32_t steps = direct_reduce_scatter(b, ranks, units, 0);
      direct_allgather(b, ranks, units, steps);
      return;
    }
    case Collective::ReduceScatter:
      direct_reduce_scatter(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor),
                            0);
      return;
    case Collective::AllGather:
      direct_allgather(b, ranks, b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor), 0);
      return;
    case Collective::Broadcast:
      star_broadcast(b, ranks, spec.root, b.pieces(whole, spec.channels, spec.chunk), 0);
      return;
    case Collective::Reduce:
      star_reduce(b, ranks, spec.root, b.pieces(whole, spec.channels, spec.chunk), 0);
      return;
  }
}

void build_reduce_broadcast(Builder& b, const Group& ranks, const CollectiveSpec& spec) {
  const auto pieces = b.pieces(whole_buffer(spec), spec.channels, spec.chunk);
  switch (spec.collective) {
    case Collective::AllReduce: {
      const std::uint32_t steps = star_reduce(b, ranks, spec.root, pieces, 0);
      star_broadcast(b, ranks, spec.root, pieces, steps);
      return;
    }
    case Collective::Broadcast: star_broadcast(b, ranks, spec.root, pieces, 0); return;
    case Collective::Reduce: star_reduce(b, ranks, spec.root, pieces, 0); return;
    case Collective::ReduceScatter:
    case Collective::AllGather: break;
  }
  throw std::logic_error("reduce_broadcast: unsupported collective reached the builder");
}

void build_sparse_allreduce(Builder& b, const Group& ranks, const CollectiveSpec& spec, Algorithm algorithm) {
  const int p = rank_count(ranks);
  const Bytes part_bytes = b.payload().sparse_bytes(spec.message);
  const std::int64_t pair_bytes = b.elem() + kTopKIndexBytes;  // one (value, index) pair
  b.set_sparse_part(part_bytes);
  for (int r = 0; r < p; ++r) {
    // Top-k selection reads the dense gradient and writes this rank's sparse part.
    const Endpoint e = ranks[std::size_t(r)];
    const OpId encode =
        b.sink().add_local(OpKind::Encode, e, e, Buffer::Data, Buffer::Sparse, b.chunk(whole_buffer(spec)),
                           spec.message, {}, 0, 0);
    b.wrote_wire(e, b.sparse_slot(r), encode);
    // The rank's own part is scatter-added like every received one.
    const std::vector<OpId> deps{encode};
    b.sink().add_local(OpKind::Decode, e, e, Buffer::Sparse, Buffer::Data, b.sparse_chunk(b.sparse_slot(r)),
                       part_bytes, deps, 0, 0);
  }
  const Range slots{Bytes{}, part_bytes * p};
  const auto units = split_units(slots, p, spec.channels, spec.chunk, Layout::OwnerMajor, pair_bytes);
  switch (algorithm) {
    case Algorithm::Ring: ring_allgather(b, ranks, units, 0); return;
    case Algorithm::Direct: direct_allgather(b, ranks, units, 0); return;
    case Algorithm::HalvingDoubling: hd_allgather(b, ranks, units, 0); return;
    default: break;
  }
  throw std::logic_error("sparse allreduce: unsupported algorithm reached the builder");
}

}  // namespace ringlab::sim::detail
