"""Evaluate models on published needlework releases: ``python -m eval run|score|report|judge|count``.

Light on purpose: it reads releases (manifest and Parquet shards), never the builders.
"""
