"""Structured logs: one JSON object per line on stderr.

Log aggregation parses JSON without regexes, and fields passed with ``extra=`` (table id, counts)
stay machine-readable instead of being formatted into the message.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD:
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(level: str = "INFO") -> None:
    """Send every log record of the process to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


class Throttled:
    """A warning that any client can trigger (undecodable bytes, say): logged at most once per
    ``interval_s``, with the number of occurrences it stands for, so no client can fill the log."""

    def __init__(self, logger: logging.Logger, message: str, interval_s: float = 10.0) -> None:
        self._logger = logger
        self._message = message
        self._interval = interval_s
        self._next = 0.0
        self._count = 0

    def warn(self, **fields: Any) -> None:
        self._count += 1
        now = time.monotonic()
        if now >= self._next:
            self._logger.warning(self._message, extra={**fields, "occurrences": self._count})
            self._count = 0
            self._next = now + self._interval
