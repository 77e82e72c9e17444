#pragma once
/// Input variations: each timed call of an external backend in bench gets inputs that no
/// earlier call saw, so that an output memorised under a cheap key of the inputs is stale
/// and its audit fails (docs/benchmarks.md, "Measurements a kernel cannot game"). A
/// variation sets a few elements to new values where the reference's output of the new
/// inputs follows without running it again, or from a few of its steps: data where no update
/// lands, updates whose target takes no other, the indices of two such updates swapped (each
/// lands where the other did: the pattern and cost of the work stay), and where every element
/// takes several updates, some of those updates.

#include <cstdint>
#include <optional>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/tensor.hpp"

namespace scatter {

/// New bit patterns for some elements of one tensor: flat positions, and each element's
/// bytes as an unsigned integer of the element's width.
struct ElementDelta {
  std::vector<std::int64_t> at;
  std::vector<std::uint64_t> bits;
  bool empty() const { return at.empty(); }
};

/// What one call's inputs differ by from the case's own.
struct InputVariation {
  std::uint64_t number = 0;  ///< the call's variation, 1, 2, ... (0: none)
  ElementDelta data;
  ElementDelta updates;
  ElementDelta indices;  ///< index elements given another's value: two targets swapped
  bool empty() const { return data.empty() && updates.empty() && indices.empty(); }
};

/// The element's bytes as an unsigned integer (little-endian, as tensors are held).
std::uint64_t element_bits(const Tensor& t, std::int64_t at);
/// Writes `bits` into the element's bytes.
void set_element_bits(Tensor& t, std::int64_t at, std::uint64_t bits);
/// Sets every element the delta names; throws Error(backend) naming the position when one
/// lies outside the tensor (a delta read from a request is input).
void apply_delta(Tensor& t, const ElementDelta& delta);

/// A copy of the case with the variation's elements set (a backend that cannot change the
/// case it is given, an in-process plugin, runs on it).
Case varied_copy(const Case& c, const InputVariation& v);

/// Another value of the same dtype, never the same bits, of the same order of magnitude where
/// the value is a finite nonzero float or an integer (so that no kernel takes another path for
/// it): low significand bits flipped by `salt`; a zero, subnormal, infinity or NaN becomes a
/// number near 1 of its sign; bool flips.
std::uint64_t another_value(DType dtype, std::uint64_t bits, std::uint64_t salt);

/// A normal float's bits times 2^k, exactly (its exponent moved); nullopt for another dtype, for a
/// zero, subnormal, infinity or NaN, or where the result would leave the normal range.
std::optional<std::uint64_t> times_power_of_two(DType dtype, std::uint64_t bits, int k);
/// A float dtype's epsilon, 2^-(its significand bits).
double epsilon_bits(DType dtype);

}  // namespace scatter
