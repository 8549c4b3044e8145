"""EverMemBench-S (EMB-S): MemoryBank, queries with RefLists, collision-tested hard negatives, the corpus ladder.

The paper is ``../shared/papers/evermembench-s.md``; the implementation spec
``../shared/specs/evermembench-s.md``. Everything here is pure: the builder (``builders/embs.py``)
reads sources, tokenizes and retrieves, and eval imports the prompts and scorers from here.
"""
