"""From sources to the text a reader gets: the prompt, the LLM or the extractive answer, and the citation check."""
