"""needlework: long-context needle-in-a-haystack benchmarks as versioned Hugging Face datasets.

The ``needlework`` package is the ground floor that every layer may import and that imports none
of them: the error hierarchy (:mod:`needlework.errors`), the token-counting protocol and its
tokenizer backends (:mod:`needlework.tokens`, :mod:`needlework.tokenizers`), atomic file and folder
writes (:mod:`needlework.atomic`), signals that unwind a command (:mod:`needlework.interrupts`),
local release folders told apart from typos (:mod:`needlework.releases`), command-line helpers
(:mod:`needlework.cliutil`), joining a Ray cluster (:mod:`needlework.ray_cluster`), the one "must be one of" check (:mod:`needlework.checks`) and the version. Benchmarks live above it in ``generators``, ``builders`` and ``eval``; the ``needlework``
command is :mod:`builders.cli`.
"""

from importlib import metadata

try:
    __version__ = metadata.version("needlework")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
