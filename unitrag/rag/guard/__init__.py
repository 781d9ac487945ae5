"""The first stage: red flags and out-of-scope requests, by pattern, by similarity, read against the framing."""
