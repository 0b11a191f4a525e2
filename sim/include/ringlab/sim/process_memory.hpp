// Process-wide memory setting for programs that run large simulations (the command line, the
// simulator benchmark). glibc raises its mmap threshold each time a mapped block is freed (up to
// 32 MiB), so after a run's first large free its big arrays (schedules, DAGs, flow tables) come from
// the brk heap instead, where freed blocks are kept and fragment: the peak of the same runs then
// depends on what was allocated before (docs/performance.md, "One path slot per connection, and
// large blocks in their own mappings").
#pragma once

namespace ringlab::sim {

/// Keeps every block of 128 KiB or more in a mapping of its own, returned to the system when freed
/// (glibc's M_MMAP_THRESHOLD fixed at its default, which also stops its dynamic adjustment). Call
/// once, at the start of main(). Does nothing where the C library is not glibc.
void keep_large_blocks_mapped();

}  // namespace ringlab::sim
