"""The access log never holds a question: a query string is personal data (a health question), so it is not logged."""

from __future__ import annotations

import io
import logging
import logging.config
import urllib.parse
import urllib.request

import pytest

from unitrag.serve.accesslog import ACCESS_LOGGER, NoQuery, log_config

from .conftest import live_server, sample_app

QUESTION = "am I pregnant vitamin B12 secret-question"


@pytest.fixture
def access_lines():
    """What uvicorn's access logger emits under ``unitrag serve``'s logging configuration, as text."""
    logger = logging.getLogger(ACCESS_LOGGER)
    saved = (logger.handlers[:], logger.filters[:], logger.level, logger.propagate, logger.disabled)
    config = log_config()
    stream = io.StringIO()
    config["handlers"]["access"] = {"formatter": "access", "class": "logging.StreamHandler", "stream": stream}
    logging.config.dictConfig(config)
    try:
        yield stream
    finally:
        logger.handlers[:], logger.filters[:] = saved[0], saved[1]
        logger.level, logger.propagate, logger.disabled = saved[2], saved[3], saved[4]


def test_a_question_in_the_query_string_never_reaches_the_access_log(sample_kb, access_lines):
    with live_server(sample_app(sample_kb), log_config=None) as url:
        logging.getLogger(ACCESS_LOGGER).setLevel(logging.INFO)  # the test server says only warnings
        query = urllib.parse.urlencode({"q": QUESTION, "k": 2})
        with urllib.request.urlopen(f"{url}/v1/search?{query}") as response:
            assert response.status == 200
    text = access_lines.getvalue()
    assert '"GET /v1/search HTTP/1.1" 200' in text, text  # method, path, status are logged
    assert "secret-question" not in text and "?" not in text and "q=" not in text
    assert "127.0.0.1" not in text  # nor the client's address
    assert text.startswith("20")  # the time


def test_the_filter_cuts_the_query_from_any_record_on_the_logger():
    record = logging.LogRecord(ACCESS_LOGGER, logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("10.0.0.1:5", "GET", "/v1/search?q=chest+pain", "1.1", 200), None)
    assert NoQuery().filter(record) and "chest" not in record.getMessage() and "/v1/search" in record.getMessage()
