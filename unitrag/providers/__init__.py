"""Providers: embedders (and later rerankers and LLMs) behind small interfaces, chosen by name."""
