#pragma once
// What a framework worker and a box share as backends (docs/backends.md): a process started on
// first use and asked hello, whose answer says what the backend is; a crash or a time-out that
// costs the case in hand, and after three in a row, the backend.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "answers.hpp"
#include "process.hpp"
#include "scatter/backend.hpp"

namespace scatter::external {

class ProcessBackend : public Backend {
 public:
  explicit ProcessBackend(std::string name) : name_(std::move(name)) {}

  std::string_view name() const override { return name_; }
  Availability availability() const override {
    ensure_hello();
    return availability_;
  }
  std::string device() const override {
    ensure_hello();
    return device_;
  }
  const Capabilities* capabilities() const override {
    ensure_hello();
    return capabilities_ ? &*capabilities_ : nullptr;
  }
  std::string version() const override {
    ensure_hello();
    return version_;
  }
  std::vector<std::pair<std::string, std::string>> properties() const override {
    ensure_hello();
    return properties_;
  }

 protected:
  /// Starts the process and asks hello, once; sets availability_ and, through take_hello, the rest.
  virtual void ensure_hello() const = 0;
  /// The process for error messages ("the numpy worker", "the box of python:k.py").
  virtual std::string who() const = 0;

  void take_hello(Hello hello) const {
    version_ = std::move(hello.version);
    device_ = std::move(hello.device);
    threads_ = hello.threads;
    given_data_copy_ = hello.given_data_copy;
    properties_ = std::move(hello.properties);
    capabilities_ = std::move(hello.capabilities);
  }

  /// Before each case: throws when the backend is unavailable or gave up.
  void check_usable() const;

  /// The process died or timed out: this case is an error, and the next case starts a new one.
  /// A time-out counts towards giving up like a crash (a hung framework must not cost the full
  /// time-out on every case that follows); a broken protocol is the backend's fault.
  [[noreturn]] void on_failure(const ProcessFailure& failure, int protocol, const std::string& log) const;
  void succeeded() const { failures_in_a_row_ = 0; }

  std::string name_;
  mutable Availability availability_;
  mutable std::string version_;
  mutable std::string device_ = "?";
  mutable int threads_ = 1;
  mutable bool given_data_copy_ = false;
  mutable std::vector<std::pair<std::string, std::string>> properties_;
  mutable std::optional<Capabilities> capabilities_;

 private:
  mutable int failures_in_a_row_ = 0;  // crashes and time-outs
  mutable std::string last_failure_;
};

/// The last lines of a process's log for an error message ("; its log ends:\n..."), or "".
std::string log_excerpt(const WorkerProcess* process);

}  // namespace scatter::external
