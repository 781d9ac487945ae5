"""A citation reaches a caller only through content it may read: one that only clinician-only units cite is, for
anyone else, the same 404 as an id that does not exist (or absent from a list). A topic only they carry is listed as a
declared gap is (tests/serve/test_restricted_topics.py)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pyarrow as pa
import pytest

from unitrag.serve.visible import Visible

from .conftest import CLINICIAN_KEY

pytestmark = pytest.mark.e2e

KEY = {"authorization": f"Bearer {CLINICIAN_KEY}"}


@pytest.fixture(scope="module")
def restricted_citations(sample_kb) -> list[str]:
    """The citations no public chunk cites: only clinician-only units do."""
    store = sample_kb.store
    public = {c for ids, access in zip(store.columns["citation_ids"], store.access) if access == "public" for c in ids}
    only = sorted(set(store.citations) - public)
    assert only  # the sample has some (the clinician scenes' guidelines)
    return only


def test_a_citation_only_restricted_units_cite_is_not_found_for_anonymous_callers(client, restricted_citations):
    cid = restricted_citations[0]
    anonymous = client.get(f"/v1/citations/{cid}")
    assert anonymous.json() == {"error": f"no citation {cid!r}"} and anonymous.status_code == 404
    clinician = client.get(f"/v1/citations/{cid}", headers=KEY)
    assert clinician.status_code == 200 and clinician.json()["id"] == cid


def test_a_hidden_citation_and_a_missing_one_get_byte_identical_404s(client, restricted_citations):
    cid = restricted_citations[0]
    missing = cid[:-1] + ("x" if cid[-1] != "x" else "y")  # as long: the same bytes but for the id
    hidden, absent = client.get(f"/v1/citations/{cid}"), client.get(f"/v1/citations/{missing}")
    assert (hidden.status_code, dict(hidden.headers)) == (absent.status_code, dict(absent.headers))
    assert hidden.content.replace(cid.encode(), b"ID") == absent.content.replace(missing.encode(), b"ID")


def test_a_citation_a_public_unit_cites_is_served_to_anyone(client, sample_kb):
    cid = sample_kb.search("How is vitamin B12 deficiency treated?").sources[0].citation_ids[0]
    assert client.get(f"/v1/citations/{cid}").json()["title"] == sample_kb.store.citations[cid]["title"]


@pytest.mark.parametrize("path", ["/v1/about", "/v1/topics", "/v1/search?q=B12+injections+hydroxocobalamin+dose",
                                  "/v1/units/en-vitamin-b12", "/v1/health", "/v1/me"])
def test_no_listing_names_a_citation_only_restricted_units_cite(client, restricted_citations, sample_kb, path):
    response = client.get(path)
    assert response.status_code == 200
    text = json.dumps(response.json(), ensure_ascii=False)
    assert [c for c in restricted_citations if c in text] == []
    assert [sample_kb.store.citations[c]["title"] for c in restricted_citations
            if sample_kb.store.citations[c]["title"] in text] == []


def test_an_anonymous_answer_cites_nothing_only_restricted_units_cite(client, restricted_citations):
    body = client.post("/v1/ask", json={"question": "B12 injections hydroxocobalamin dose"}).json()
    assert not {c["id"] for c in body["citations"]} & set(restricted_citations)


# -- topics ------------------------------------------------------------------------------------


def fake_store(access: list[str | None], topics: list[list[str]], citations: list[list[str]]) -> SimpleNamespace:
    """The columns ``Visible`` reads, as a store holds them (access dictionary-encoded)."""
    lists = pa.list_(pa.string())
    return SimpleNamespace(columns={"access": SimpleNamespace(array=pa.array(access, pa.string()).dictionary_encode()),
                                    "topics": SimpleNamespace(array=pa.array(topics, lists)),
                                    "citation_ids": SimpleNamespace(array=pa.array(citations, lists))})


def test_a_citation_is_shown_only_through_a_unit_the_caller_may_read():
    """(The taxonomy is listed whole to every caller: tests/serve/test_restricted_topics.py.)"""
    store = fake_store(["public", "clinician", None], [["iron"], ["iron", "iv-iron"], ["secret"]],
                       [["who-2020"], ["esa-2013"], ["nobody-2000"]])
    visible = Visible.of(store)
    assert (visible.citation("who-2020", ()), visible.citation("esa-2013", ()), visible.citation("esa-2013", ("clinician",))) \
        == (True, False, True)
    assert not visible.citation("nobody-2000", ("clinician",))  # a chunk without a level: no role reads it
    assert not visible.citation("missing", ("clinician",))


def test_the_topics_endpoint_lists_what_the_caller_may_read(client, sample_kb):
    anonymous = {t["id"] for t in client.get("/v1/topics").json()["topics"]}
    assert anonymous == {t["id"] for t in sample_kb.store.topics}  # the sample tags no topic on clinician units alone
    assert client.get("/v1/topics", headers={"x-api-key": "wrong"}).status_code == 401
