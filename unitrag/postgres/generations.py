"""Publish generations: which chunk rows a reader sees, so a publish never shows half of itself.

Every completed publish is a generation, numbered in the manifest (``publish.generation``). A chunk
row records the generation that added it (``added_in``) and the one that removed it
(``removed_in``, NULL while current). A reader of generation ``g`` sees exactly the rows with
``added_in <= g`` and ``removed_in`` NULL or above ``g``: a publish writes its rows as generation
``g + 1`` (invisible to readers of ``g``), retires superseded rows by marking them (still visible to
them), and flips the manifest's number in its last transaction. Schema 4 added the two columns; a
database published before it holds generation 0 only and is read whole.
"""

from __future__ import annotations

from typing import Any

from .schema import CHUNKS

#: The migration that added ``added_in`` / ``removed_in`` (a database below it has no generations).
GENERATIONS_SCHEMA = 4


def live_generation(publish_state: dict[str, Any]) -> int:
    """The generation readers see: the last completed publish's (0 before schema 4 or any completed publish)."""
    return int(publish_state.get("generation") or 0)


def pending_generation(publish_state: dict[str, Any]) -> int:
    """The generation a publish writes: the one a killed publish left unfinished (resumed, so its committed
    batches count), else the next after the live one."""
    if publish_state.get("state") == "in_progress" and publish_state.get("pending_generation"):
        return int(publish_state["pending_generation"])
    return live_generation(publish_state) + 1


def visible_sql(schema: int, generation: int) -> str:
    """The condition on chunk rows that a reader of ``generation`` sees (empty before schema 4: every row)."""
    if schema < GENERATIONS_SCHEMA:
        return ""
    g = int(generation)
    return f"added_in <= {g} AND (removed_in IS NULL OR removed_in > {g})"


def writing_sql(schema: int) -> str:
    """The condition on chunk rows of the generation being written (what a publish diffs against)."""
    return "removed_in IS NULL" if schema >= GENERATIONS_SCHEMA else ""


def retire_chunks(conn: Any, ids: list[str], generation: int) -> int:
    """Take these chunks out of ``generation``: its own rows go, older ones are marked removed in it (readers
    of the live generation keep seeing them until the switch); returns the rows affected."""
    dropped = conn.execute(f"DELETE FROM {CHUNKS} WHERE chunk_id = ANY(%s) AND added_in = %s", [ids, generation])
    marked = conn.execute(f"UPDATE {CHUNKS} SET removed_in = %s WHERE chunk_id = ANY(%s) AND removed_in IS NULL",
                          [generation, ids])
    return int(dropped.rowcount) + int(marked.rowcount)


def prepare_generation(conn: Any, live: int, pending: int) -> int:
    """Before writing ``pending``: delete the rows no reader of ``live`` (or later) sees, those removed in it
    or before, and any row of a generation past ``pending`` (never made live); returns the rows deleted.

    Run when a publish starts, so a reader opened on the previous generation stays whole for one more
    publish interval (then it misses the rows replaced since; it is never shown new ones).
    """
    gone = conn.execute(f"DELETE FROM {CHUNKS} WHERE removed_in <= %s OR added_in > %s", [live, pending]).rowcount
    conn.execute(f"UPDATE {CHUNKS} SET removed_in = NULL WHERE removed_in > %s", [pending])
    return int(gone)
