// A shared library that is no plugin: it exports no scatter_plugin_get_api.
extern "C" int not_a_scatter_plugin() { return 1; }
