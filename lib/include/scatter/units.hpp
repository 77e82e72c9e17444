#pragma once
/// How numbers are said: byte counts, times and medians, written once for every layer.

#include <cstdint>
#include <string>
#include <vector>

namespace scatter {

/// 512 bytes, 1.5 MiB, 2.00 GiB: powers of 1024, for memory limits and case sizes.
std::string binary_bytes(std::uint64_t bytes);
/// 512 B, 4.0 KB, 12.6 MB, 1.07 GB: powers of 1000, as GB/s are (traffic).
std::string decimal_bytes(double bytes);
/// 812 ns, 3.41 us, 12.3 ms, 1.20 s, 3.6e+05 s (an absurd time stays one short word).
std::string human_time(double seconds);
/// The median of samples (the mean of the middle two of an even count); 0 for none.
double median_of(std::vector<double> samples);

}  // namespace scatter
