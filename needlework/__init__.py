"""needlework: long-context needle-in-a-haystack benchmarks as versioned Hugging Face datasets.

The top-level ``needlework`` package holds what builders and eval share (the version and the
tokenizer backends) and the command line; benchmarks live in ``generators``, ``builders`` and
``eval``.
"""

from importlib import metadata

try:
    __version__ = metadata.version("needlework")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
