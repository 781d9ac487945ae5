"""Where the runtime reads an artifact or a published database: vectors, BM25 postings, columns, texts, exemplars."""
