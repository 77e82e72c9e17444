"""scatterctl's framework workers (docs/backends.md, "Framework workers (protocol 1)")."""
