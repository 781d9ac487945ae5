"""Evaluation: retrieval metrics (and, later, the BEIR runner behind ``unitrag eval``)."""
