"""From a question to ranked sources: broadening, the query vector, dense + BM25 retrieval, cross-language offsets, roll-up and boosts."""
