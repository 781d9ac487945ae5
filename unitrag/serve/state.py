"""What every request of one server process shares: the settings, the knowledge base holder, the authenticator."""

from __future__ import annotations

from dataclasses import dataclass

from .auth import Authenticator
from .reload import KbHolder
from .settings import ServeSettings


@dataclass
class ServerState:
    settings: ServeSettings
    holder: KbHolder
    auth: Authenticator
