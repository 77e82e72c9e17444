// Fails every case with a last_error() of 50 MB: the row must carry the start of it, cut, not a
// protocol error about the line's length.
#include <string>

#include "test_plugin.hpp"

static const char* long_error() {
  static const std::string text = "the plugin's own words " + std::string(50u << 20, 'x');
  return text.c_str();
}

static sp_status run(const sp_case*) { return SP_ERROR; }

SCATTER_TEST_PLUGIN_WITH("long-error", run, table) { table.last_error = long_error; }
