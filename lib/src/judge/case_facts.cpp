// The facts of a case, each made once when first asked for, and shared by every backend's trial.

#include "scatter/case_facts.hpp"

#include <system_error>
#include <thread>
#include <vector>

#include "core/targets.hpp"
#include "scatter/reference.hpp"

namespace scatter {

const CaseFeatures& CaseFacts::features() const {
  std::call_once(features_once_, [&] { with_indices([&](const auto& idx) { features_ = features_of(case_, idx); }); });
  return *features_;
}

const std::vector<std::int64_t>& CaseFacts::indices() const {
  std::call_once(indices_once_, [&] { indices_ = detail::normalized_indices(case_); });
  return *indices_;
}

void CaseFacts::with_indices(const std::function<void(const std::vector<std::int64_t>&)>& use) const {
  if (share_indices_) return use(indices());
  use(detail::normalized_indices(case_));
}

const std::vector<std::uint32_t>& CaseFacts::hits() const {
  std::call_once(hits_once_, [&] { hits_ = detail::hits_per_element(case_, indices()); });
  return *hits_;
}

const Tensor& CaseFacts::reference() const {
  std::call_once(reference_once_, [&] {
    if (make_reference_) {
      try {
        reference_ = make_reference_(case_);
        return;
      } catch (...) {
        // An invalid case, or one the maker does not take: reference_scatter's answer, or its error.
      }
    }
    with_indices([&](const auto& idx) { reference_ = reference_scatter(case_, idx); });
  });
  return *reference_;
}

void CaseFacts::prepare() const noexcept {
  // Three chains, each one thread's seconds on a large case, side by side once the shared
  // normalized indices are made (the first to ask makes them, the others wait).
  const auto quietly = [](auto fact) {
    try {
      fact();
    } catch (...) {
    }
  };
  std::vector<std::thread> side;
  const auto beside = [&](auto fact) {
    try {
      side.emplace_back([=] { quietly(fact); });
    } catch (const std::system_error&) {
      quietly(fact);  // no thread to spare: here, in turn
    }
  };
  beside([this] { features(); });
  beside([this] { hits(); });
  if (!case_.expected) quietly([this] { reference(); });
  for (auto& t : side) t.join();
}

std::vector<std::string> CaseFacts::trap_names(bool invalid) const {
  std::vector<std::string> names;
  const auto& f = features();
  if (f.negative_indices) names.emplace_back("negative indices");
  if (f.duplicates) names.emplace_back("duplicate targets");
  if (f.empty_index_tuple) names.emplace_back("k = 0");
  if (!case_.attrs.use_init_val) names.emplace_back("use_init_val = false");
  if (case_.updates.numel() == 0) names.emplace_back("empty updates");
  if (invalid) names.emplace_back("invalid input (expect_error)");
  return names;
}

}  // namespace scatter
