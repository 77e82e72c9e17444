// The built-in benchmark suite: per op, launch-bound small cases, the documents'
// large examples, element and slice scatter (unique and with duplicates), contention,
// reductions over the common dtypes, int32 vs int64 indices, in place and out of place.

#include <fmt/format.h>

#include "scatter/bench.hpp"

namespace scatter {
namespace {

TensorDecl uniform(DType dtype, Shape shape, std::uint64_t seed) {
  Generator g;
  g.kind = Generator::Kind::uniform;
  g.low = dtype == DType::int32 ? Scalar::of(-100) : Scalar::of(-1);
  g.high = dtype == DType::int32 ? Scalar::of(100) : Scalar::of(1);
  g.seed = seed;
  return {dtype, std::move(shape), g};
}

TensorDecl indices(DType dtype, Shape shape, bool unique, std::uint64_t seed) {
  Generator g;
  g.kind = Generator::Kind::indices;
  g.unique = unique;
  g.seed = seed;
  return {dtype, std::move(shape), g};
}

TensorDecl zeros(DType dtype, Shape shape) {
  Generator g;
  g.kind = Generator::Kind::fill;
  g.value = Scalar::of(0);
  return {dtype, std::move(shape), g};
}

struct Builder {
  std::vector<BenchItem> items;

  BenchItem& add(std::string name, std::string group, Op op, Reduction reduction, std::int64_t axis, TensorDecl data,
                 TensorDecl idx, TensorDecl upd) {
    BenchItem item;
    item.name = std::move(name);
    item.group = std::move(group);
    item.decl.file = "builtin";
    item.decl.name = item.name;
    item.decl.attrs = {op, axis, reduction, true};
    item.decl.data = std::move(data);
    item.decl.indices = std::move(idx);
    item.decl.updates = std::move(upd);
    items.push_back(std::move(item));
    return items.back();
  }
  // In place and out of place of the last item.
  void both_ways() {
    auto copy = items.back();
    copy.name += "/in_place";
    copy.in_place = true;
    items.push_back(std::move(copy));
  }
};

// Output elements per size: small runs in seconds on a CPU, large is far past a GPU's L2.
std::int64_t base_elements(BenchSize size) {
  switch (size) {
    case BenchSize::small:
      return 1 << 20;
    case BenchSize::medium:
      return 1 << 24;
    case BenchSize::large:
      return 1 << 28;
  }
  return 1 << 20;
}

std::int64_t doc_batch(BenchSize size) { return size == BenchSize::small ? 8 : size == BenchSize::medium ? 100 : 1000; }

void nd_suite(Builder& b, BenchSize size) {
  const auto n = base_elements(size);
  const auto f32 = DType::float32;
  const auto i64 = DType::int64;
  b.add("nd/launch/f32", "launch", Op::scatter_nd, Reduction::none, 0, uniform(f32, {64}, 1), indices(i64, {4, 1}, true, 2),
        uniform(f32, {4}, 3));
  // The documents' data with 60-byte slices: tuples into [B, 256, 10], rows of 15 floats.
  const auto batch = doc_batch(size);
  b.add("nd/doc_60B_slices/f32", "doc", Op::scatter_nd, Reduction::none, 0, uniform(f32, {batch, 256, 10, 15}, 1),
        indices(i64, {batch * 250, 3}, true, 2), uniform(f32, {batch * 250, 15}, 3));
  b.add("nd/element/unique/f32", "element", Op::scatter_nd, Reduction::none, 0, uniform(f32, {n}, 1),
        indices(i64, {n / 4, 1}, true, 2), uniform(f32, {n / 4}, 3));
  b.both_ways();
  b.add("nd/element/unique/f32/i32_indices", "index_type", Op::scatter_nd, Reduction::none, 0, uniform(f32, {n}, 1),
        indices(DType::int32, {n / 4, 1}, true, 2), uniform(f32, {n / 4}, 3));
  b.add("nd/element/duplicates/f32", "element", Op::scatter_nd, Reduction::none, 0, uniform(f32, {n}, 1),
        indices(i64, {n, 1}, false, 2), uniform(f32, {n}, 3));
  for (std::int64_t row_bytes : {16, 256, 4096}) {
    const auto width = row_bytes / 4;
    const auto rows = n / width;
    b.add(fmt::format("nd/slice_{}B/unique/f32", row_bytes), "slice", Op::scatter_nd, Reduction::none, 0,
          uniform(f32, {rows, width}, 1), indices(i64, {rows / 2, 1}, true, 2), uniform(f32, {rows / 2, width}, 3));
    if (row_bytes == 256) b.both_ways();
  }
  b.add("nd/contention/one_element/add/f32", "contention", Op::scatter_nd, Reduction::add, 0, zeros(f32, {1024}),
        zeros(i64, {n / 4, 1}), uniform(f32, {n / 4}, 3));
  b.add("nd/contention/100_bins/add/f32", "contention", Op::scatter_nd, Reduction::add, 0, zeros(f32, {100}),
        indices(i64, {n / 4, 1}, false, 2), uniform(f32, {n / 4}, 3));
  for (auto r : {Reduction::add, Reduction::mul, Reduction::min, Reduction::max}) {
    for (auto d : {DType::float32, DType::float16, DType::bfloat16, DType::int32}) {
      b.add(fmt::format("nd/reduce/{}/{}", to_string(r), info_of(d).short_name), "reduction", Op::scatter_nd, r, 0,
            uniform(d, {n}, 1), indices(i64, {n / 4, 1}, false, 2), uniform(d, {n / 4}, 3));
    }
  }
  b.add("nd/reduce/add/f32/deterministic", "reduction", Op::scatter_nd, Reduction::add, 0, uniform(f32, {n}, 1),
        indices(i64, {n / 4, 1}, false, 2), uniform(f32, {n / 4}, 3))
      .deterministic = true;
}

void elements_suite(Builder& b, BenchSize size) {
  const auto n = base_elements(size);
  const auto f32 = DType::float32;
  const auto i64 = DType::int64;
  const std::int64_t cols = 1024;
  const auto rows = n / cols;
  b.add("elements/launch/f32", "launch", Op::scatter_elements, Reduction::none, 0, uniform(f32, {64}, 1),
        indices(i64, {4}, true, 2), uniform(f32, {4}, 3));
  const auto batch = doc_batch(size);
  b.add("elements/doc_example6/f32", "doc", Op::scatter_elements, Reduction::none, 0, uniform(f32, {batch, 256, 7, 7}, 1),
        indices(i64, {std::max<std::int64_t>(batch / 8, 1), 20, 7, 6}, false, 2),
        uniform(f32, {std::max<std::int64_t>(batch / 8, 1), 20, 7, 6}, 3));
  b.add("elements/unique/f32", "element", Op::scatter_elements, Reduction::none, 1, uniform(f32, {rows, cols}, 1),
        indices(i64, {rows, cols / 4}, true, 2), uniform(f32, {rows, cols / 4}, 3));
  b.both_ways();
  b.add("elements/unique/f32/i32_indices", "index_type", Op::scatter_elements, Reduction::none, 1,
        uniform(f32, {rows, cols}, 1), indices(DType::int32, {rows, cols / 4}, true, 2), uniform(f32, {rows, cols / 4}, 3));
  b.add("elements/duplicates/f32", "element", Op::scatter_elements, Reduction::none, 1, uniform(f32, {rows, cols}, 1),
        indices(i64, {rows, cols}, false, 2), uniform(f32, {rows, cols}, 3));
  b.add("elements/contention/one_element/add/f32", "contention", Op::scatter_elements, Reduction::add, 0,
        zeros(f32, {1}), zeros(i64, {n / 4}), uniform(f32, {n / 4}, 3));
  b.add("elements/contention/100_bins/add/f32", "contention", Op::scatter_elements, Reduction::add, 0,
        zeros(f32, {100}), indices(i64, {n / 4}, false, 2), uniform(f32, {n / 4}, 3));
  for (auto r : {Reduction::add, Reduction::mul, Reduction::min, Reduction::max, Reduction::mean}) {
    for (auto d : {DType::float32, DType::float16, DType::bfloat16, DType::int32}) {
      b.add(fmt::format("elements/reduce/{}/{}", to_string(r), info_of(d).short_name), "reduction", Op::scatter_elements, r, 1,
            uniform(d, {rows, cols}, 1), indices(i64, {rows, cols / 4}, false, 2), uniform(d, {rows, cols / 4}, 3));
    }
  }
}

void update_suite(Builder& b, BenchSize size) {
  const auto n = base_elements(size);
  const auto f32 = DType::float32;
  const auto i64 = DType::int64;
  b.add("update/launch/f32", "launch", Op::scatter_update, Reduction::none, 0, uniform(f32, {16, 4}, 1),
        indices(i64, {2}, true, 2), uniform(f32, {2, 4}, 3));
  // OpenVINO ScatterUpdate-3 example 1: 2500 indices into 256 rows (duplicates), axis 1.
  const auto batch = size == BenchSize::small ? 2 : size == BenchSize::medium ? 40 : 1000;
  b.add("update/doc_example1/f32", "doc", Op::scatter_update, Reduction::none, 1, uniform(f32, {batch, 256, 10, 15}, 1),
        indices(i64, {125, 20}, false, 2), uniform(f32, {batch, 125, 20, 10, 15}, 3));
  for (std::int64_t row_bytes : {16, 256, 4096}) {
    const auto width = row_bytes / 4;
    const auto rows = n / width;
    b.add(fmt::format("update/rows_{}B/unique/f32", row_bytes), "slice", Op::scatter_update, Reduction::none, 0,
          uniform(f32, {rows, width}, 1), indices(i64, {rows / 2}, true, 2), uniform(f32, {rows / 2, width}, 3));
    if (row_bytes == 256) b.both_ways();
  }
  b.add("update/rows_256B/unique/f32/i32_indices", "index_type", Op::scatter_update, Reduction::none, 0,
        uniform(f32, {n / 64, 64}, 1), indices(DType::int32, {n / 128}, true, 2), uniform(f32, {n / 128, 64}, 3));
}

}  // namespace

std::vector<BenchItem> builtin_suite(BenchMode mode, BenchSize size) {
  Builder b;
  if (mode == BenchMode::nd || mode == BenchMode::all) nd_suite(b, size);
  if (mode == BenchMode::elements || mode == BenchMode::all) elements_suite(b, size);
  if (mode == BenchMode::update || mode == BenchMode::all) update_suite(b, size);
  return b.items;
}

}  // namespace scatter
