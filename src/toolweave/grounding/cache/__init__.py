"""The gateway's search cache: results reused when a question is asked again, in the same words
(exact) or in other words (semantic, checked by the false-hit guard, grounding/guard.py).

    search_cache.py  SearchCache (lookup / store / stats), CacheHit, normalize_query, open_cache
    sqlite.py        SqliteCacheBackend: one file; processes on one host can share it
    redis.py         RedisCacheBackend: one Redis; replicas share exact and semantic entries
    vectors.py       each scope's query vectors in memory, and their stored bytes
    base.py          CacheEntry and the CacheBackend protocol, which every module above builds on

Imports point down that list; this file imports nothing, so importing a submodule loads only
what that submodule needs.
"""
