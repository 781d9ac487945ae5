"""Text as every stage sees it: Unicode folding, scripts and language, tokens, citation tags."""
