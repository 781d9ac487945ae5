"""The artifact as a publish reads it: registry hashes that see every change, computed fast."""

from __future__ import annotations

from unitrag.postgres.source import rows_digest


def test_a_registry_hash_sees_any_change_of_a_row_or_a_vector_component_and_not_key_order():
    rows = [{"rule_id": "r", "text": "t", "embedding": [0.1, 0.2, 0.3]}]
    assert rows_digest(rows) == rows_digest([{"embedding": [0.1, 0.2, 0.3], "text": "t", "rule_id": "r"}])
    for other in ([{**rows[0], "embedding": [0.1, 0.2, 0.30001]}], [{**rows[0], "text": "u"}], rows + rows, [],
                  [{**rows[0], "embedding": [0.1, 0.2]}], [{**rows[0], "weights": [0.1, 0.2, 0.3]}]):
        assert rows_digest(rows) != rows_digest(other), other
