"""Pure, deterministic benchmark generators: (inputs in memory, frozen spec, seed) -> rows.

Nothing in this package touches files, the network or the clock; tokenizers are injected.
"""
