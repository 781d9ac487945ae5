"""What every litellm-backed provider needs: a quiet, offline-safe import and readable errors."""

from __future__ import annotations

import os
import re
from typing import Any

from ..errors import UserError


def import_litellm(needed_by: str) -> Any:
    """litellm without its network fetch of the model price list and without its debug banners."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise UserError(f"{needed_by} needs the litellm package; install it with `pip install unitrag[api]`") from None
    litellm.suppress_debug_info = True
    return litellm


def error_reason(exc: BaseException) -> str:
    """The provider's message, minus litellm's ``litellm.XError: XError: OpenAIException -`` wrapping."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    text = text.split(" Original exception:")[0]
    for _ in range(3):  # litellm nests its wrappers: "litellm.APIError: APIError: OpenAIException - litellm.MockException: ..."
        text = re.sub(r"^(litellm\.\w+:\s*)?(\w+Error:\s*)?(\w+Exception\s*-\s*)?(litellm\.MockException:\s*)?", "", text.strip())
    return text.strip()[:300] or type(exc).__name__
