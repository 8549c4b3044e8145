"""Each benchmark's build spec: the frozen dataclass whose fields are the ``needlework build <id>`` options.

A spec module imports no heavy library (no ``datasets``, pandas, polars, scikit-network, torch, bm25s):
the command line reads every spec to answer ``--help`` and to parse options, and loads the builder
module (:mod:`builders.registry`) only when a build runs. ``tests/builders/test_cli_imports.py`` pins it.
"""
