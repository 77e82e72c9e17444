#pragma once
/// Native plugins: a user's own scatter kernel, a shared library implementing the C ABI of
/// scatter/plugin_abi.h, run in process (`--backend plugin:PATH`) or in a child process
/// that serves worker protocol 1 (`--isolate`; docs/backends.md).

#include <memory>
#include <string>

#include "scatter/backend.hpp"

namespace scatter {

/// The backend "plugin:<path>": dlopens the library and checks its table. Never throws for a
/// bad plugin; availability() then says what is wrong. run() gives the plugin a copy of data
/// as `out` (with flags.in_place, that copy is passed as both data and out), times only the
/// plugin's run(), and fails with Error(backend) when the plugin changed an input or wrote
/// past the end of out.
std::unique_ptr<Backend> make_plugin_backend(const std::string& path);

/// The child side of `--isolate`: loads the plugin and serves worker protocol 1, requests on
/// fd_in and answers on fd_out, one JSON object a line. Returns the process's exit code:
/// 0 after `shutdown` or at the end of the requests, 1 when the channel breaks.
int serve_plugin(const std::string& path, int fd_in, int fd_out);
/// `scatterctl box-host plugin PATH`: the box's runtime beside a plugin, and `box-host builtin
/// NAME`: beside a built-in backend of this build (docs/backends.md, "The box"). Over fds 3, 4
/// and 5, box protocol 2; the kernel is loaded when scatterctl asks hello.
int serve_plugin_box(const std::string& path);
int serve_builtin_box(const std::string& name, int threads);

/// Whether a host keeps the last case for requests that say `same_inputs`: for scatterctl's own
/// backends only. A plugin gets its inputs afresh from the files every request, so that one
/// that changes them (past the fingerprints' size limit) cannot change the later calls' inputs.
enum class KeepCase { no, yes };

/// The same for any backend (`scatterctl backend-host NAME`, the far side of
/// `exe:PATH:NAME`): `capabilities` is its declaration as JSON text, "" for every case.
int serve_backend(Backend& backend, const std::string& capabilities, int fd_in, int fd_out,
                  KeepCase keep = KeepCase::no);

}  // namespace scatter
