"""Tournament values to protobuf and back: the structure, the director's events, the state.

The structure message and :class:`~.structure.TournamentStructure` convert both ways (a client
loads a structure file and sends it; the server checks what it receives, every error naming the
field by its path in the message: ``structure.levels[3].stakes.small_bet ...``). Every event of
the director's record has a wire form (:data:`EVENT_FIELDS`, checked by a test). Table ids on the
wire are the table service's (:func:`wire_table_id`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import events as ev
from tablestorm.services.director.director import Director, Placing, Standing
from tablestorm.services.director.structure import (
    AddOn,
    LateRegistration,
    Level,
    Payouts,
    Rebuys,
    Reentry,
    TournamentStructure,
)
from tablestorm.services.engine import VARIANTS, Stakes
from tablestorm.services.fields import FieldError
from tablestorm.services.table import convert as table_convert

DEFAULT_BUY_IN = 100
DEFAULT_CLOCK_SECONDS = 30.0
DEFAULT_PERCENT_PAID = 15.0
UNLIMITED_REBUYS = (1 << 31) - 1
"""``Rebuys.max_per_player`` 0 on the wire (unlimited), as the structure holds it."""
MAX_LEVELS = 1000
MAX_ENTRANTS = 100_000
_PATHS = {"addon": "add_on"}
"""Structure fields the message names otherwise (the structure file's ``addon`` is ``add_on``)."""


def wire_table_id(table_id: str) -> str:
    """The table service's id of a director's table ``"<tournament>/t<n>"``: ``"<tournament>.t<n>"``
    (table ids are ``[A-Za-z0-9_.-]``; a tournament id has no ``/``, so no two tables share one)."""
    return table_id.replace("/", ".")


# ----------------------------------------------------------------- the structure


def structure_from_proto(m: tpb.TournamentStructure) -> TournamentStructure:
    """Build and check a structure; a :class:`FieldError` names ``structure.<field path>``."""
    try:
        return _structure(m)
    except FieldError as exc:
        head, sep, rest = exc.field.partition(".")
        raise FieldError(f"structure.{_PATHS.get(head, head)}{sep}{rest}", exc.reason) from None


def _structure(m: tpb.TournamentStructure) -> TournamentStructure:
    if m.game not in VARIANTS:
        shown = m.game if len(m.game) <= table_convert.MAX_GAME_LENGTH else f"{m.game[:16]}..."
        raise FieldError("game", f"expected one of {', '.join(VARIANTS)}, got {shown!r}")
    game = VARIANTS[m.game]
    if m.betting not in table_convert.STRUCTURE_FROM_PB:
        raise FieldError("betting", f"unknown value {m.betting}")
    betting = table_convert.STRUCTURE_FROM_PB[m.betting]
    if not 1 <= len(m.levels) <= MAX_LEVELS:
        raise FieldError("levels", f"1 to {MAX_LEVELS} levels, got {len(m.levels)}")
    for name in ("starting_stack", "buy_in"):
        if getattr(m, name) > table_convert.MAX_CHIPS:
            raise FieldError(name, f"at most 2**{table_convert.MAX_CHIPS.bit_length() - 1}")
    clock = m.clock_seconds or DEFAULT_CLOCK_SECONDS
    if not table_convert.MIN_CLOCK_SECONDS <= clock <= table_convert.MAX_CLOCK_SECONDS:  # NaN too
        raise FieldError(
            "clock_seconds", f"must be between {table_convert.MIN_CLOCK_SECONDS:g} and"
            f" {table_convert.MAX_CLOCK_SECONDS:g} (0 = {DEFAULT_CLOCK_SECONDS:g}), got {clock}"
        )
    if m.max_entrants > MAX_ENTRANTS:
        raise FieldError("max_entrants", f"at most {MAX_ENTRANTS} (0 = unlimited), got {m.max_entrants}")
    levels = []
    for i, level in enumerate(m.levels):
        if level.break_s and (level.duration_s or level.HasField("stakes")):
            raise FieldError(f"levels[{i}]", "a play level (duration_s, stakes) or a break (break_s), not both")
        if level.break_s:
            levels.append(Level(level.break_s))
            continue
        if not level.HasField("stakes"):
            raise FieldError(f"levels[{i}].stakes", "required for a play level (or give break_s)")
        stakes = table_convert.stakes_as_given(level.stakes, f"levels[{i}].stakes")
        try:
            stakes.validate(game, betting)
        except FieldError as exc:  # stakes.<field>: the level's
            raise exc.within(f"levels[{i}].") from None
        levels.append(Level(level.duration_s, stakes))
    buy_in = m.buy_in or DEFAULT_BUY_IN
    structure = TournamentStructure(
        game=game,
        starting_stack=m.starting_stack,
        levels=tuple(levels),
        name=m.name,
        betting=betting,
        seats=m.seats,
        buy_in=buy_in,
        clock_seconds=clock,
        max_entrants=m.max_entrants,
        late_registration=LateRegistration(m.late_registration.until_level)
        if m.HasField("late_registration")
        else None,
        reentry=Reentry(m.reentry.max_entries) if m.HasField("reentry") else Reentry(),
        rebuys=Rebuys(
            until_level=m.rebuys.until_level,
            stack=m.rebuys.stack or m.starting_stack,
            cost=m.rebuys.cost or buy_in,
            threshold=m.rebuys.threshold,
            max_per_player=m.rebuys.max_per_player or UNLIMITED_REBUYS,
        )
        if m.HasField("rebuys")
        else None,
        addon=AddOn(m.add_on.after_level, m.add_on.stack or m.starting_stack, m.add_on.cost or buy_in)
        if m.HasField("add_on")
        else None,
        payouts=Payouts(
            percent_paid=m.payouts.percent_paid or DEFAULT_PERCENT_PAID, table=tuple(m.payouts.table) or None
        ),
    )
    table = structure.payouts.table
    if table is not None and structure.max_entrants and len(table) > structure.max_entrants:
        raise FieldError(
            "payouts.table", f"pays {len(table)} places but max_entrants is {structure.max_entrants}"
        )
    return structure


def structure_to_proto(s: TournamentStructure) -> tpb.TournamentStructure:
    m = tpb.TournamentStructure(
        name=s.name,
        game=s.game.code,
        betting=table_convert.STRUCTURE_TO_PB[s.betting],
        seats=s.seats,
        starting_stack=s.starting_stack,
        buy_in=s.buy_in,
        clock_seconds=s.clock_seconds,
        max_entrants=s.max_entrants,
        levels=[
            tpb.Level(break_s=level.duration_s)
            if level.stakes is None
            else tpb.Level(duration_s=level.duration_s, stakes=table_convert.stakes_to_proto(level.stakes))
            for level in s.levels
        ],
        payouts=tpb.Payouts(percent_paid=s.payouts.percent_paid, table=s.payouts.table or ()),
    )
    if s.late_registration is not None:
        m.late_registration.until_level = s.late_registration.until_level
    if s.reentry != Reentry():
        m.reentry.max_entries = s.reentry.max_entries
    if s.rebuys is not None:
        r = s.rebuys
        unlimited = r.max_per_player >= UNLIMITED_REBUYS
        m.rebuys.CopyFrom(
            tpb.Rebuys(
                until_level=r.until_level,
                threshold=r.threshold,
                max_per_player=0 if unlimited else r.max_per_player,
                stack=r.stack,
                cost=r.cost,
            )
        )
    if s.addon is not None:
        m.add_on.CopyFrom(tpb.AddOn(after_level=s.addon.after_level, stack=s.addon.stack, cost=s.addon.cost))
    return m


# ----------------------------------------------------------------- events


def _stakes(stakes: Stakes) -> Any:
    return table_convert.stakes_to_proto(stakes)


def _place(value: int | None) -> int:
    return 0 if value is None else value


EVENT_FIELDS: dict[type, Callable[[Any], dict[str, Any]]] = {
    ev.Registered: lambda e: {
        "registered": tpb.Registered(player_id=e.player_id, entry_id=e.entry_id, reentry=e.reentry)
    },
    ev.Unregistered: lambda e: {"unregistered": tpb.Unregistered(player_id=e.player_id)},
    ev.Started: lambda e: {"started": tpb.Started(entries=e.entries, tables=e.tables)},
    ev.Seated: lambda e: {
        "seated": tpb.Seated(
            entry_id=e.entry_id, table_id=wire_table_id(e.table_id), seat=e.seat, stack=e.stack, reason=e.reason
        )
    },
    ev.Moved: lambda e: {
        "moved": tpb.Moved(
            entry_id=e.entry_id,
            from_table=wire_table_id(e.from_table),
            from_seat=e.from_seat,
            to_table=wire_table_id(e.to_table),
            to_seat=e.to_seat,
            reason=e.reason,
        )
    },
    ev.TableBroken: lambda e: {"table_broken": tpb.TableBroken(table_id=wire_table_id(e.table_id))},
    ev.TableOpened: lambda e: {"table_opened": tpb.TableOpened(table_id=wire_table_id(e.table_id))},
    ev.LevelUp: lambda e: {
        "level_up": tpb.LevelUp(level=e.level, play_level=e.play_level, stakes=_stakes(e.stakes))
    },
    ev.BreakStarted: lambda e: {"break_started": tpb.BreakStarted(level=e.level, duration_s=e.duration_s)},
    ev.LateRegistrationClosed: lambda e: {
        "late_registration_closed": tpb.LateRegistrationClosed(entries=e.entries)
    },
    ev.AddOnWindow: lambda e: {"add_on_window": tpb.AddOnWindow(open=e.open)},
    ev.HandForHand: lambda e: {"hand_for_hand": tpb.HandForHand(on=e.on)},
    ev.Eliminated: lambda e: {
        "eliminated": tpb.Eliminated(
            entry_id=e.entry_id,
            player_id=e.player_id,
            table_id=wire_table_id(e.table_id),
            place=_place(e.place),
            prize=_place(e.prize),
        )
    },
    ev.Placed: lambda e: {"placed": tpb.Placed(entry_id=e.entry_id, place=e.place, prize=e.prize)},
    ev.Rebuy: lambda e: {"rebuy": tpb.RebuyTaken(entry_id=e.entry_id, chips=e.chips, cost=e.cost)},
    ev.AddOn: lambda e: {"add_on": tpb.AddOnTaken(entry_id=e.entry_id, chips=e.chips, cost=e.cost)},
    ev.Paused: lambda e: {"paused": tpb.Paused()},
    ev.Resumed: lambda e: {"resumed": tpb.Resumed()},
    ev.HandVoided: lambda e: {
        "hand_voided": tpb.TournamentHandVoided(table_id=wire_table_id(e.table_id), hand_number=e.hand_number)
    },
    ev.Finished: lambda e: {
        "finished": tpb.Finished(
            winner_entry_id=e.winner_entry_id, winner_player_id=e.winner_player_id, prize=e.prize
        )
    },
}
"""The wire form of every kind of the director's events."""


def event_to_proto(event: ev.TournamentEvent) -> tpb.TournamentEvent:
    """One director event as Watch carries it (its ``seq`` is the feed's to set)."""
    return tpb.TournamentEvent(at_s=event.at, **EVENT_FIELDS[type(event)](event))


# ----------------------------------------------------------------- state, standings, payouts

STATUS_TO_PB = {
    "registering": tpb.TOURNAMENT_STATUS_REGISTERING,
    "running": tpb.TOURNAMENT_STATUS_RUNNING,
    "paused": tpb.TOURNAMENT_STATUS_PAUSED,
    "finished": tpb.TOURNAMENT_STATUS_FINISHED,
}


def state_to_proto(
    director: Director, *, tournament_id: str, status: str, late_open: bool, last_seq: int, now: float
) -> tpb.TournamentState:
    """What GetTournament shows of a tournament at tournament time ``now``."""
    s = director.structure
    level = director.level
    state = tpb.TournamentState(
        tournament_id=tournament_id,
        name=s.name,
        game=s.game.code,
        status=STATUS_TO_PB[status],
        level=director.play_level if director.started else 0,
        on_break=director.started and level.is_break,
        time_left_s=0.0 if director.finished else director.time_left(now),
        entries=director.entries,
        players_left=director.players_left,
        tables=len(director.tables),
        average_stack=director.average_stack,
        largest_stack=director.largest_stack,
        prize_pool=director.prize_pool,
        places_paid=director.places_paid if director.entries >= 2 else 0,  # TOURN-9 pays from 2 entries
        in_the_money=director.in_the_money,
        hand_for_hand=director.hand_for_hand,
        late_registration_open=late_open,
        last_seq=last_seq,
        now_s=now,
    )
    if level.stakes is not None:
        state.stakes.CopyFrom(table_convert.stakes_to_proto(level.stakes))
    return state


def standing_to_proto(rank: int, s: Standing) -> tpb.Standing:
    return tpb.Standing(
        rank=rank, entry_id=s.entry_id, player_id=s.player_id, stack=s.stack, place=_place(s.place),
        prize=_place(s.prize),
    )


def placing_to_proto(p: Placing) -> tpb.Placing:
    return tpb.Placing(place=p.place, entry_id=p.entry_id, player_id=p.player_id, prize=p.prize)


def payouts_to_proto(director: Director) -> tpb.PayoutsResponse:
    """TOURN-9's prizes for the entries so far (none below two entries), and the finishing order."""
    prizes = director.payouts() if director.entries >= 2 else ()
    return tpb.PayoutsResponse(
        prizes=prizes,
        prize_pool=director.prize_pool,
        finishing_order=[placing_to_proto(p) for p in director.finishing_order()],
    )

