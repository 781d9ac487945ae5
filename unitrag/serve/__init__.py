"""``unitrag serve``: the knowledge base over HTTP (JSON API, Server-Sent Events) and a preview page.

Needs the ``serve`` extra (``pip install unitrag[serve]``): FastAPI and uvicorn.
"""

from __future__ import annotations

from .app import create_app
from .settings import ServeSettings, load_serve_settings

__all__ = ["ServeSettings", "create_app", "load_serve_settings"]
