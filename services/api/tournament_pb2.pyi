from tablestorm.services.api import table_service_pb2 as _table_service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_REGISTERING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_PAUSED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_REGISTERING: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_PAUSED: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus

class TournamentStructure(_message.Message):
    __slots__ = ("name", "game", "betting", "seats", "starting_stack", "buy_in", "clock_seconds", "max_entrants", "levels", "late_registration", "reentry", "rebuys", "add_on", "payouts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    BETTING_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    CLOCK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    LATE_REGISTRATION_FIELD_NUMBER: _ClassVar[int]
    REENTRY_FIELD_NUMBER: _ClassVar[int]
    REBUYS_FIELD_NUMBER: _ClassVar[int]
    ADD_ON_FIELD_NUMBER: _ClassVar[int]
    PAYOUTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    game: str
    betting: _table_service_pb2.Structure
    seats: int
    starting_stack: int
    buy_in: int
    clock_seconds: float
    max_entrants: int
    levels: _containers.RepeatedCompositeFieldContainer[Level]
    late_registration: LateRegistration
    reentry: Reentry
    rebuys: Rebuys
    add_on: AddOn
    payouts: Payouts
    def __init__(self, name: _Optional[str] = ..., game: _Optional[str] = ..., betting: _Optional[_Union[_table_service_pb2.Structure, str]] = ..., seats: _Optional[int] = ..., starting_stack: _Optional[int] = ..., buy_in: _Optional[int] = ..., clock_seconds: _Optional[float] = ..., max_entrants: _Optional[int] = ..., levels: _Optional[_Iterable[_Union[Level, _Mapping]]] = ..., late_registration: _Optional[_Union[LateRegistration, _Mapping]] = ..., reentry: _Optional[_Union[Reentry, _Mapping]] = ..., rebuys: _Optional[_Union[Rebuys, _Mapping]] = ..., add_on: _Optional[_Union[AddOn, _Mapping]] = ..., payouts: _Optional[_Union[Payouts, _Mapping]] = ...) -> None: ...

class Level(_message.Message):
    __slots__ = ("duration_s", "stakes", "break_s")
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    BREAK_S_FIELD_NUMBER: _ClassVar[int]
    duration_s: float
    stakes: _table_service_pb2.Stakes
    break_s: float
    def __init__(self, duration_s: _Optional[float] = ..., stakes: _Optional[_Union[_table_service_pb2.Stakes, _Mapping]] = ..., break_s: _Optional[float] = ...) -> None: ...

class LateRegistration(_message.Message):
    __slots__ = ("until_level",)
    UNTIL_LEVEL_FIELD_NUMBER: _ClassVar[int]
    until_level: int
    def __init__(self, until_level: _Optional[int] = ...) -> None: ...

class Reentry(_message.Message):
    __slots__ = ("max_entries",)
    MAX_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    max_entries: int
    def __init__(self, max_entries: _Optional[int] = ...) -> None: ...

class Rebuys(_message.Message):
    __slots__ = ("until_level", "threshold", "max_per_player", "stack", "cost")
    UNTIL_LEVEL_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    MAX_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    until_level: int
    threshold: int
    max_per_player: int
    stack: int
    cost: int
    def __init__(self, until_level: _Optional[int] = ..., threshold: _Optional[int] = ..., max_per_player: _Optional[int] = ..., stack: _Optional[int] = ..., cost: _Optional[int] = ...) -> None: ...

class AddOn(_message.Message):
    __slots__ = ("after_level", "stack", "cost")
    AFTER_LEVEL_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    after_level: int
    stack: int
    cost: int
    def __init__(self, after_level: _Optional[int] = ..., stack: _Optional[int] = ..., cost: _Optional[int] = ...) -> None: ...

class Payouts(_message.Message):
    __slots__ = ("percent_paid", "table")
    PERCENT_PAID_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    percent_paid: float
    table: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, percent_paid: _Optional[float] = ..., table: _Optional[_Iterable[float]] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "structure", "seed")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STRUCTURE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    structure: TournamentStructure
    seed: int
    def __init__(self, tournament_id: _Optional[str] = ..., structure: _Optional[_Union[TournamentStructure, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...

class TournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentState]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentState, _Mapping]]] = ...) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "auto_rebuy")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AUTO_REBUY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    auto_rebuy: bool
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., auto_rebuy: _Optional[bool] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("entry_id", "player_token", "tournament")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    player_token: str
    tournament: TournamentState
    def __init__(self, entry_id: _Optional[str] = ..., player_token: _Optional[str] = ..., tournament: _Optional[_Union[TournamentState, _Mapping]] = ...) -> None: ...

class PlayerRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class PlayerAwayRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "away")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    away: bool
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., away: _Optional[bool] = ...) -> None: ...

class StandingsRequest(_message.Message):
    __slots__ = ("tournament_id", "page_size", "offset")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    page_size: int
    offset: int
    def __init__(self, tournament_id: _Optional[str] = ..., page_size: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class StandingsResponse(_message.Message):
    __slots__ = ("standings", "total")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    total: int
    def __init__(self, standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "entry_id", "player_id", "stack", "place", "prize")
    RANK_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    entry_id: str
    player_id: str
    stack: int
    place: int
    prize: int
    def __init__(self, rank: _Optional[int] = ..., entry_id: _Optional[str] = ..., player_id: _Optional[str] = ..., stack: _Optional[int] = ..., place: _Optional[int] = ..., prize: _Optional[int] = ...) -> None: ...

class PayoutsResponse(_message.Message):
    __slots__ = ("prizes", "prize_pool", "finishing_order")
    PRIZES_FIELD_NUMBER: _ClassVar[int]
    PRIZE_POOL_FIELD_NUMBER: _ClassVar[int]
    FINISHING_ORDER_FIELD_NUMBER: _ClassVar[int]
    prizes: _containers.RepeatedScalarFieldContainer[int]
    prize_pool: int
    finishing_order: _containers.RepeatedCompositeFieldContainer[Placing]
    def __init__(self, prizes: _Optional[_Iterable[int]] = ..., prize_pool: _Optional[int] = ..., finishing_order: _Optional[_Iterable[_Union[Placing, _Mapping]]] = ...) -> None: ...

class Placing(_message.Message):
    __slots__ = ("place", "entry_id", "player_id", "prize")
    PLACE_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    place: int
    entry_id: str
    player_id: str
    prize: int
    def __init__(self, place: _Optional[int] = ..., entry_id: _Optional[str] = ..., player_id: _Optional[str] = ..., prize: _Optional[int] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "resume_after_seq", "own_only")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    OWN_ONLY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    resume_after_seq: int
    own_only: bool
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., resume_after_seq: _Optional[int] = ..., own_only: _Optional[bool] = ...) -> None: ...

class TournamentState(_message.Message):
    __slots__ = ("tournament_id", "name", "game", "status", "level", "on_break", "stakes", "time_left_s", "entries", "players_left", "tables", "average_stack", "largest_stack", "prize_pool", "places_paid", "in_the_money", "hand_for_hand", "late_registration_open", "last_seq", "now_s")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    ON_BREAK_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_S_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_STACK_FIELD_NUMBER: _ClassVar[int]
    LARGEST_STACK_FIELD_NUMBER: _ClassVar[int]
    PRIZE_POOL_FIELD_NUMBER: _ClassVar[int]
    PLACES_PAID_FIELD_NUMBER: _ClassVar[int]
    IN_THE_MONEY_FIELD_NUMBER: _ClassVar[int]
    HAND_FOR_HAND_FIELD_NUMBER: _ClassVar[int]
    LATE_REGISTRATION_OPEN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    NOW_S_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    status: TournamentStatus
    level: int
    on_break: bool
    stakes: _table_service_pb2.Stakes
    time_left_s: float
    entries: int
    players_left: int
    tables: int
    average_stack: float
    largest_stack: int
    prize_pool: int
    places_paid: int
    in_the_money: bool
    hand_for_hand: bool
    late_registration_open: bool
    last_seq: int
    now_s: float
    def __init__(self, tournament_id: _Optional[str] = ..., name: _Optional[str] = ..., game: _Optional[str] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., level: _Optional[int] = ..., on_break: _Optional[bool] = ..., stakes: _Optional[_Union[_table_service_pb2.Stakes, _Mapping]] = ..., time_left_s: _Optional[float] = ..., entries: _Optional[int] = ..., players_left: _Optional[int] = ..., tables: _Optional[int] = ..., average_stack: _Optional[float] = ..., largest_stack: _Optional[int] = ..., prize_pool: _Optional[int] = ..., places_paid: _Optional[int] = ..., in_the_money: _Optional[bool] = ..., hand_for_hand: _Optional[bool] = ..., late_registration_open: _Optional[bool] = ..., last_seq: _Optional[int] = ..., now_s: _Optional[float] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("seq", "at_s", "registered", "unregistered", "started", "seated", "moved", "table_broken", "table_opened", "level_up", "break_started", "late_registration_closed", "add_on_window", "hand_for_hand", "eliminated", "placed", "rebuy", "add_on", "paused", "resumed", "hand_voided", "finished", "seat_assigned")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    AT_S_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    UNREGISTERED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    SEATED_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    TABLE_BROKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_OPENED_FIELD_NUMBER: _ClassVar[int]
    LEVEL_UP_FIELD_NUMBER: _ClassVar[int]
    BREAK_STARTED_FIELD_NUMBER: _ClassVar[int]
    LATE_REGISTRATION_CLOSED_FIELD_NUMBER: _ClassVar[int]
    ADD_ON_WINDOW_FIELD_NUMBER: _ClassVar[int]
    HAND_FOR_HAND_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    REBUY_FIELD_NUMBER: _ClassVar[int]
    ADD_ON_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    SEAT_ASSIGNED_FIELD_NUMBER: _ClassVar[int]
    seq: int
    at_s: float
    registered: Registered
    unregistered: Unregistered
    started: Started
    seated: Seated
    moved: Moved
    table_broken: TableBroken
    table_opened: TableOpened
    level_up: LevelUp
    break_started: BreakStarted
    late_registration_closed: LateRegistrationClosed
    add_on_window: AddOnWindow
    hand_for_hand: HandForHand
    eliminated: Eliminated
    placed: Placed
    rebuy: RebuyTaken
    add_on: AddOnTaken
    paused: Paused
    resumed: Resumed
    hand_voided: TournamentHandVoided
    finished: Finished
    seat_assigned: SeatAssigned
    def __init__(self, seq: _Optional[int] = ..., at_s: _Optional[float] = ..., registered: _Optional[_Union[Registered, _Mapping]] = ..., unregistered: _Optional[_Union[Unregistered, _Mapping]] = ..., started: _Optional[_Union[Started, _Mapping]] = ..., seated: _Optional[_Union[Seated, _Mapping]] = ..., moved: _Optional[_Union[Moved, _Mapping]] = ..., table_broken: _Optional[_Union[TableBroken, _Mapping]] = ..., table_opened: _Optional[_Union[TableOpened, _Mapping]] = ..., level_up: _Optional[_Union[LevelUp, _Mapping]] = ..., break_started: _Optional[_Union[BreakStarted, _Mapping]] = ..., late_registration_closed: _Optional[_Union[LateRegistrationClosed, _Mapping]] = ..., add_on_window: _Optional[_Union[AddOnWindow, _Mapping]] = ..., hand_for_hand: _Optional[_Union[HandForHand, _Mapping]] = ..., eliminated: _Optional[_Union[Eliminated, _Mapping]] = ..., placed: _Optional[_Union[Placed, _Mapping]] = ..., rebuy: _Optional[_Union[RebuyTaken, _Mapping]] = ..., add_on: _Optional[_Union[AddOnTaken, _Mapping]] = ..., paused: _Optional[_Union[Paused, _Mapping]] = ..., resumed: _Optional[_Union[Resumed, _Mapping]] = ..., hand_voided: _Optional[_Union[TournamentHandVoided, _Mapping]] = ..., finished: _Optional[_Union[Finished, _Mapping]] = ..., seat_assigned: _Optional[_Union[SeatAssigned, _Mapping]] = ...) -> None: ...

class Registered(_message.Message):
    __slots__ = ("player_id", "entry_id", "reentry")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REENTRY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    entry_id: str
    reentry: bool
    def __init__(self, player_id: _Optional[str] = ..., entry_id: _Optional[str] = ..., reentry: _Optional[bool] = ...) -> None: ...

class Unregistered(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class Started(_message.Message):
    __slots__ = ("entries", "tables")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    entries: int
    tables: int
    def __init__(self, entries: _Optional[int] = ..., tables: _Optional[int] = ...) -> None: ...

class Seated(_message.Message):
    __slots__ = ("entry_id", "table_id", "seat", "stack", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    table_id: str
    seat: int
    stack: int
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., table_id: _Optional[str] = ..., seat: _Optional[int] = ..., stack: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class Moved(_message.Message):
    __slots__ = ("entry_id", "from_table", "from_seat", "to_table", "to_seat", "reason")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_TABLE_FIELD_NUMBER: _ClassVar[int]
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_TABLE_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    reason: str
    def __init__(self, entry_id: _Optional[str] = ..., from_table: _Optional[str] = ..., from_seat: _Optional[int] = ..., to_table: _Optional[str] = ..., to_seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class TableBroken(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class TableOpened(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LevelUp(_message.Message):
    __slots__ = ("level", "play_level", "stakes")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    PLAY_LEVEL_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    level: int
    play_level: int
    stakes: _table_service_pb2.Stakes
    def __init__(self, level: _Optional[int] = ..., play_level: _Optional[int] = ..., stakes: _Optional[_Union[_table_service_pb2.Stakes, _Mapping]] = ...) -> None: ...

class BreakStarted(_message.Message):
    __slots__ = ("level", "duration_s")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    level: int
    duration_s: float
    def __init__(self, level: _Optional[int] = ..., duration_s: _Optional[float] = ...) -> None: ...

class LateRegistrationClosed(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: int
    def __init__(self, entries: _Optional[int] = ...) -> None: ...

class AddOnWindow(_message.Message):
    __slots__ = ("open",)
    OPEN_FIELD_NUMBER: _ClassVar[int]
    open: bool
    def __init__(self, open: _Optional[bool] = ...) -> None: ...

class HandForHand(_message.Message):
    __slots__ = ("on",)
    ON_FIELD_NUMBER: _ClassVar[int]
    on: bool
    def __init__(self, on: _Optional[bool] = ...) -> None: ...

class Eliminated(_message.Message):
    __slots__ = ("entry_id", "player_id", "table_id", "place", "prize")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    player_id: str
    table_id: str
    place: int
    prize: int
    def __init__(self, entry_id: _Optional[str] = ..., player_id: _Optional[str] = ..., table_id: _Optional[str] = ..., place: _Optional[int] = ..., prize: _Optional[int] = ...) -> None: ...

class Placed(_message.Message):
    __slots__ = ("entry_id", "place", "prize")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    place: int
    prize: int
    def __init__(self, entry_id: _Optional[str] = ..., place: _Optional[int] = ..., prize: _Optional[int] = ...) -> None: ...

class RebuyTaken(_message.Message):
    __slots__ = ("entry_id", "chips", "cost")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    chips: int
    cost: int
    def __init__(self, entry_id: _Optional[str] = ..., chips: _Optional[int] = ..., cost: _Optional[int] = ...) -> None: ...

class AddOnTaken(_message.Message):
    __slots__ = ("entry_id", "chips", "cost")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    chips: int
    cost: int
    def __init__(self, entry_id: _Optional[str] = ..., chips: _Optional[int] = ..., cost: _Optional[int] = ...) -> None: ...

class Paused(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Resumed(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TournamentHandVoided(_message.Message):
    __slots__ = ("table_id", "hand_number")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_number: int
    def __init__(self, table_id: _Optional[str] = ..., hand_number: _Optional[int] = ...) -> None: ...

class Finished(_message.Message):
    __slots__ = ("winner_entry_id", "winner_player_id", "prize")
    WINNER_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    WINNER_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    winner_entry_id: str
    winner_player_id: str
    prize: int
    def __init__(self, winner_entry_id: _Optional[str] = ..., winner_player_id: _Optional[str] = ..., prize: _Optional[int] = ...) -> None: ...

class SeatAssigned(_message.Message):
    __slots__ = ("entry_id", "table_id", "seat", "endpoint", "seat_token", "resume_after_seq")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    table_id: str
    seat: int
    endpoint: str
    seat_token: str
    resume_after_seq: int
    def __init__(self, entry_id: _Optional[str] = ..., table_id: _Optional[str] = ..., seat: _Optional[int] = ..., endpoint: _Optional[str] = ..., seat_token: _Optional[str] = ..., resume_after_seq: _Optional[int] = ...) -> None: ...
