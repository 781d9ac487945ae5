"""An endpoint URL from the configuration: an http(s) URL with a host, or one line naming the setting."""

from __future__ import annotations

import pytest

from unitrag.errors import UserError
from unitrag.providers.endpoint import endpoint_url, plain_model_name
from unitrag.providers.llm.litellm import LiteLLMChat


@pytest.mark.parametrize("url", ["http://localhost:8000/v1", "https://api.example.com/v1", " https://[::1]:8443/v1 "])
def test_an_http_url_with_a_host_is_an_endpoint(url):
    assert endpoint_url(url, "UNITRAG_LLM_API_BASE") == url.strip()


@pytest.mark.parametrize("blank", [None, "", "  "])
def test_no_value_is_no_endpoint(blank):
    assert endpoint_url(blank, "UNITRAG_LLM_API_BASE") is None


@pytest.mark.parametrize("bad", ["not a url", "file:///etc/passwd", "ftp://x/", "http://", "localhost:8000",
                                 "http://host:99999/", "http://host:port/", "http://exa mple.com/", "http://host/\nx"])
def test_anything_else_is_one_line_naming_the_setting(bad):
    with pytest.raises(UserError) as raised:
        endpoint_url(bad, "UNITRAG_LLM_API_BASE")
    message = str(raised.value)
    assert message.startswith("UNITRAG_LLM_API_BASE: not an http(s) URL") and "\n" not in message


def test_a_password_in_a_bad_url_is_not_repeated():
    with pytest.raises(UserError) as raised:
        endpoint_url("ftp://user:S3cret@host/", "api_base")
    assert "S3cret" not in str(raised.value)


def test_the_llm_reads_its_endpoint_from_the_environment_strictly(monkeypatch):
    monkeypatch.setenv("UNITRAG_LLM_API_BASE", "http://localhost:8000/v1")
    assert LiteLLMChat("openai/fake").api_base == "http://localhost:8000/v1"
    monkeypatch.setenv("UNITRAG_LLM_API_BASE", "not a url")
    with pytest.raises(UserError, match="UNITRAG_LLM_API_BASE"):
        LiteLLMChat("openai/fake")


def test_a_model_name_is_one_word():
    assert plain_model_name("openai/gpt-4o-mini", "llm litellm") == "openai/gpt-4o-mini"
    with pytest.raises(UserError, match="no spaces or line breaks"):
        LiteLLMChat("openai/fa\nke")


@pytest.mark.parametrize(("make", "setting"), [
    ("unitrag.providers.embedders.litellm:LiteLLMEmbedder", "UNITRAG_EMBEDDER_API_BASE"),
    ("unitrag.providers.rerankers.litellm:LiteLLMReranker", "UNITRAG_RERANKER_API_BASE"),
])
def test_the_embedder_and_the_reranker_read_their_endpoints_as_strictly(monkeypatch, make, setting):
    import importlib

    module, _, name = make.partition(":")
    provider = getattr(importlib.import_module(module), name)
    monkeypatch.setenv(setting, "ftp://x/")
    with pytest.raises(UserError, match=setting):
        provider("openai/some-model")
