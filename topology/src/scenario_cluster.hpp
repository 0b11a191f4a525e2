// The "cluster" section of a scenario file (private to the scenario loader): generator blocks and
// explicit racks, hosts, devices and links, read into a Topology with every problem recorded.
#pragma once

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/json_reader.hpp"

namespace ringlab::detail {

/// Reads the cluster object at `cluster` into `out` (which starts empty). Problems go to `reader`;
/// when there are none, `out` is complete and every GPU can reach every other.
void read_cluster(JsonReader& reader, const JsonNode& cluster, Topology& out);

}  // namespace ringlab::detail
