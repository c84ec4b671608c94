"""The plan's forecast for the current minute of the day, as Prometheus gauges (``--serve-metrics``).

A dashboard draws the forecast beside what the table services measure (``tablestorm_hands_completed_total``
and the seated-player gauges of docs/table_service.md) on one panel; the gauges are computed at each
scrape from the minute of the day on this machine's clock (set ``TZ`` to the room's), so a
long-running ``tablestorm plan --serve-metrics`` follows the day. Every gauge (:data:`GAUGES`):

- ``tablestorm_forecast_minute_of_day``: the minute the other gauges are for (0-1439);
- ``tablestorm_forecast_tables{quantile}``, ``tablestorm_forecast_seated_players{quantile}``,
  ``tablestorm_forecast_hands_per_second{quantile}``: the schedule's band at ``quantile`` 0.5 and
  0.9 (its p50 and p90 over the replications);
- ``tablestorm_forecast_cores_needed{quantile}``, ``tablestorm_forecast_nodes_needed{quantile}``:
  the plan's cores (headroom included) and nodes for that band.

A minute past the schedule's last row forecasts zero. A recurring day's rows already hold the
evening's tail in their small hours; a single day's rows past 24:00 are not added to the next day's
first minutes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from tablestorm.sim.plan.inputs import ScheduleDemand
from tablestorm.sim.plan.sizing import MinuteSize

__all__ = ["BANDS", "GAUGES", "ForecastCollector", "serve"]

BANDS: Final = {"0.5": "p50", "0.9": "p90"}
"""The ``quantile`` label's values and the schedule's bands they name."""
GAUGES: Final = {
    "tablestorm_forecast_minute_of_day": "The minute of the day (this machine's clock) the forecast is for.",
    "tablestorm_forecast_tables": "Live tables the schedule forecasts for this minute.",
    "tablestorm_forecast_seated_players": "Seated players (Play streams) the schedule forecasts for this minute.",
    "tablestorm_forecast_hands_per_second": "Hands per second the schedule forecasts for this minute.",
    "tablestorm_forecast_cores_needed": "Table-host cores the plan needs for this minute (headroom included).",
    "tablestorm_forecast_nodes_needed": "Nodes the plan needs for this minute.",
}
_FROM_SCHEDULE: Final = {
    "tablestorm_forecast_tables": "tables",
    "tablestorm_forecast_seated_players": "seated_players",
    "tablestorm_forecast_hands_per_second": "hands_per_s",
}
_FROM_PLAN: Final = {"tablestorm_forecast_cores_needed": "cores", "tablestorm_forecast_nodes_needed": "nodes"}


def _local_now() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True, slots=True, eq=False)  # a registry keys its collectors by identity
class ForecastCollector(Collector):
    """Gauges for the current minute from a schedule's bands and the plan's sizes at each band."""

    schedule: ScheduleDemand
    sizes: Mapping[str, Sequence[MinuteSize]]
    """The plan's sizes per band (``p50``, ``p90``), a row per minute of the schedule."""
    now: Callable[[], datetime] = _local_now

    def collect(self) -> Iterator[GaugeMetricFamily]:
        moment = self.now()
        minute = 60 * moment.hour + moment.minute
        known = minute < len(self.schedule.minutes)
        yield GaugeMetricFamily("tablestorm_forecast_minute_of_day", GAUGES["tablestorm_forecast_minute_of_day"],
                                value=minute)
        for name, quantity in _FROM_SCHEDULE.items():
            family = GaugeMetricFamily(name, GAUGES[name], labels=["quantile"])
            for label, band in BANDS.items():
                family.add_metric([label], self.schedule.value(minute, quantity, band) if known else 0.0)
            yield family
        for name, field in _FROM_PLAN.items():
            family = GaugeMetricFamily(name, GAUGES[name], labels=["quantile"])
            for label, band in BANDS.items():
                family.add_metric([label], getattr(self.sizes[band][minute], field) if known else 0)
            yield family


def serve(collector: ForecastCollector, host: str, port: int) -> int:
    """Serve ``collector`` on ``host:port`` (0: a free one) in a daemon thread; returns the port."""
    registry = CollectorRegistry()
    registry.register(collector)
    server, _thread = start_http_server(port, host, registry=registry)
    bound: int = server.server_address[1]
    return bound
