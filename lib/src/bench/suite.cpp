// The built-in benchmark suite: per op, launch-bound small cases, the documents'
// large examples, element and slice scatter (unique and with duplicates), contention,
// reductions over the common dtypes, int32 vs int64 indices, in place and out of place.

#include <algorithm>
#include <optional>
#include <string_view>
#include <tuple>

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

// Indices drawn as a real workload's are (docs/case-format.md, "Generators").
TensorDecl drawn(DType dtype, Shape shape, Generator::Distribution distribution, double alpha, bool broadcast,
                 std::uint64_t seed) {
  Generator g;
  g.kind = Generator::Kind::indices;
  g.distribution = distribution;
  g.alpha = alpha;
  g.broadcast = broadcast;
  g.seed = seed;
  return {dtype, std::move(shape), g};
}

TensorDecl positions(Shape shape) {  // 0, 1, 2, ...: a contiguous run of cache positions
  Generator g;
  g.kind = Generator::Kind::arange;
  return {DType::int64, std::move(shape), g};
}

TensorDecl ones(DType dtype, Shape shape) {
  Generator g;
  g.kind = Generator::Kind::fill;
  g.value = Scalar::of(1);
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

// The value for the size: small runs in seconds on a CPU, medium is the cited model's own shape
// where it fits, large is a bigger batch.
std::int64_t by_size(BenchSize size, std::int64_t small, std::int64_t medium, std::int64_t large) {
  return size == BenchSize::small ? small : size == BenchSize::medium ? medium : large;
}

// The scatters of real models (docs/benchmarks.md, "Workloads", which cites each source): their
// ops, dtypes, shapes and index distributions; sizes scale the batch, the rows or the tokens.
void workload_suite(Builder& b, BenchSize size) {
  using D = Generator::Distribution;
  const auto f32 = DType::float32;
  const auto bf16 = DType::bfloat16;
  const auto i64 = DType::int64;
  const auto i32 = DType::int32;

  // KV cache, HF StaticCache: k_out.index_copy_(2, cache_position, key_states) into
  // [B, 8 KV heads, L, 128] bf16 (Llama-3-8B), a prefill of L/2 contiguous positions.
  {
    const auto batch = by_size(size, 1, 1, 8);
    const auto len = by_size(size, 512, 4096, 4096);
    b.add("workload/kv_cache/index_copy_prefill/bf16", "workload", Op::scatter_update, Reduction::none, 2,
          uniform(bf16, {batch, 8, len, 128}, 1), positions({len / 2}), uniform(bf16, {batch, 8, len / 2, 128}, 3));
  }
  // KV cache, Qualcomm QEfficient CtxScatter: ScatterND with (batch, head, position) tuples,
  // k = 3, a 128-element head_dim slice each.
  {
    const auto batch = by_size(size, 1, 4, 32);
    const auto len = by_size(size, 512, 2048, 2048);
    const auto writes = batch * 8 * len / 4;
    b.add("workload/kv_cache/scatternd_k3/bf16", "workload", Op::scatter_nd, Reduction::none, 0,
          uniform(bf16, {batch, 8, len, 128}, 1), indices(i64, {writes, 3}, true, 2), uniform(bf16, {writes, 128}, 3));
  }
  // KV cache, ONNX TensorScatter-24 (the op ONNX added for this write): one decode token per batch
  // row into [B, 8, L, 128] bf16 at per-row positions, circular (a sliding-window cache). In place
  // too, as onnxruntime runs it (MayInplace): then only the token's bytes move.
  {
    const auto batch = by_size(size, 4, 32, 64);
    const auto len = by_size(size, 512, 2048, 4096);
    Generator positions_drawn;
    positions_drawn.kind = Generator::Kind::indices;
    positions_drawn.seed = 2;
    auto& item = b.add("workload/kv_cache/tensor_scatter_decode/bf16", "workload", Op::tensor_scatter, Reduction::none,
                       2, uniform(bf16, {batch, 8, len, 128}, 1), {i64, {batch}, positions_drawn},
                       uniform(bf16, {batch, 8, 1, 128}, 3));
    item.decl.attrs.mode = WriteMode::circular;
    b.both_ways();
  }
  // KV cache, paged (vLLM reshape_and_cache; plain ONNX ScatterND(pool, slot_mapping, kv)):
  // unique slots of a [blocks x 16, 8 x 128] bf16 pool.
  {
    const auto slots = by_size(size, 8192, 65536, 1 << 20);
    const auto tokens = by_size(size, 256, 2048, 16384);
    b.add("workload/kv_cache/paged_slots/bf16", "workload", Op::scatter_nd, Reduction::none, 0,
          uniform(bf16, {slots, 1024}, 1), indices(i64, {tokens, 1}, true, 2), uniform(bf16, {tokens, 1024}, 3));
  }
  // GNN aggregation, PyG: out.scatter_reduce_(0, index.view(-1, 1).expand(-1, F), x, ...): edges
  // into nodes, power-law in-degree (zipf 1.0), 3.5 edges a node as in a sampled Reddit batch
  // ([477263, 256] into [135361, 256], the large size).
  for (const auto r : {Reduction::add, Reduction::mean, Reduction::max}) {
    const auto nodes = by_size(size, 4096, 65536, 135361);
    const auto edges = by_size(size, 14336, 229376, 477263);
    const auto features = by_size(size, 32, 64, 256);
    b.add(fmt::format("workload/gnn/{}/f32", to_string(r)), "workload", Op::scatter_elements, r, 0,
          uniform(f32, {nodes, features}, 1), drawn(i64, {edges, features}, D::zipf, 1.0, true, 2),
          uniform(f32, {edges, features}, 3));
  }
  // Embedding backward: index_add_ of token rows into the vocabulary's, Zipf 1.15 (FBGEMM's
  // training value); 8,192 tokens, vocabulary 32,000 (Llama-2) or 128,256 (Llama-3, large).
  {
    const auto vocab = by_size(size, 32000, 32000, 128256);
    const auto hidden = by_size(size, 64, 1024, 4096);
    b.add("workload/embedding_backward/zipf1.15/f32", "workload", Op::scatter_nd, Reduction::add, 0,
          zeros(f32, {vocab, hidden}), drawn(i64, {8192, 1}, D::zipf, 1.15, false, 2), uniform(f32, {8192, hidden}, 3));
  }
  // MoE combine: every token row is hit exactly k times, k = 2 with H = 4096 (Mixtral-8x7B) and
  // k = 8 with H = 7168 (DeepSeek-V3), bf16.
  for (const auto& [k, hidden, tokens] :
       {std::tuple{2, std::int64_t{4096}, by_size(size, 256, 4096, 16384)},
        std::tuple{8, std::int64_t{7168}, by_size(size, 32, 512, 4096)}}) {
    b.add(fmt::format("workload/moe_combine/k{}/bf16", k), "workload", Op::scatter_nd, Reduction::add, 0,
          zeros(bf16, {tokens, hidden}), drawn(i32, {tokens * k, 1}, D::balanced, 1.0, false, 2),
          uniform(bf16, {tokens * k, hidden}, 3));
  }
  // Voxelization, PointPillars (mmdetection3d, KITTI): up to 40,000 pillars of 64 features into a
  // 496 x 432 canvas (a quarter of it, small), unique rows; and dynamic voxelization (mmcv
  // DynamicScatter, reduce max): 3 points a voxel on average, skewed (zipf 1.0).
  {
    const auto canvas = by_size(size, 248 * 216, 496 * 432, 8 * 496 * 432);
    const auto pillars = by_size(size, 5000, 40000, 320000);
    b.add("workload/voxel/pillars_scatter/f32", "workload", Op::scatter_nd, Reduction::none, 0, zeros(f32, {canvas, 64}),
          indices(i64, {pillars, 1}, true, 2), uniform(f32, {pillars, 64}, 3));
    b.add("workload/voxel/dynamic_max/f32", "workload", Op::scatter_elements, Reduction::max, 0,
          uniform(f32, {pillars, 64}, 1), drawn(i64, {3 * pillars, 64}, D::zipf, 1.0, true, 2),
          uniform(f32, {3 * pillars, 64}, 3));
  }
  // Histograms and bincount (pytorch#97090's 2^20 items; CuPy's 50M into 10 to 65k bins): ones
  // added into 100 and 65,536 int32 bins, uniform.
  for (const std::int64_t bins : {100, 65536}) {
    const auto items = by_size(size, 1 << 20, 1 << 24, 50'000'000);
    b.add(fmt::format("workload/histogram/{}_bins/i32", bins), "workload", Op::scatter_elements, Reduction::add, 0,
          zeros(i32, {bins}), indices(i64, {items}, false, 2), ones(i32, {items}));
  }
}

}  // namespace

const std::vector<std::string>& bench_mode_names() {
  static const std::vector<std::string> names{"nd", "elements", "update", "workload", "all"};
  return names;
}

std::optional<BenchMode> bench_mode_named(std::string_view name) {
  const auto& names = bench_mode_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<BenchMode>(it - names.begin());
}

std::vector<BenchItem> builtin_suite(BenchMode mode, BenchSize size) {
  Builder b;
  if (mode == BenchMode::nd || mode == BenchMode::all) nd_suite(b, size);
  if (mode == BenchMode::elements || mode == BenchMode::all) elements_suite(b, size);
  if (mode == BenchMode::update || mode == BenchMode::all) update_suite(b, size);
  if (mode == BenchMode::workload || mode == BenchMode::all) workload_suite(b, size);
  return b.items;
}

}  // namespace scatter
