from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Structure(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STRUCTURE_UNSPECIFIED: _ClassVar[Structure]
    STRUCTURE_FIXED_LIMIT: _ClassVar[Structure]
    STRUCTURE_POT_LIMIT: _ClassVar[Structure]
    STRUCTURE_NO_LIMIT: _ClassVar[Structure]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_FOLD: _ClassVar[ActionKind]
    ACTION_KIND_CHECK: _ClassVar[ActionKind]
    ACTION_KIND_CALL: _ClassVar[ActionKind]
    ACTION_KIND_BRING_IN: _ClassVar[ActionKind]
    ACTION_KIND_COMPLETE: _ClassVar[ActionKind]
    ACTION_KIND_BET: _ClassVar[ActionKind]
    ACTION_KIND_RAISE: _ClassVar[ActionKind]
    ACTION_KIND_DRAW: _ClassVar[ActionKind]
    ACTION_KIND_TIMEOUT: _ClassVar[ActionKind]

class TimeoutOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_OUTCOME_UNSPECIFIED: _ClassVar[TimeoutOutcome]
    TIMEOUT_OUTCOME_CHECK: _ClassVar[TimeoutOutcome]
    TIMEOUT_OUTCOME_ALL_IN: _ClassVar[TimeoutOutcome]
    TIMEOUT_OUTCOME_FOLD: _ClassVar[TimeoutOutcome]
    TIMEOUT_OUTCOME_BRING_IN: _ClassVar[TimeoutOutcome]
    TIMEOUT_OUTCOME_STAND_PAT: _ClassVar[TimeoutOutcome]

class ForcedBetKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORCED_BET_KIND_UNSPECIFIED: _ClassVar[ForcedBetKind]
    FORCED_BET_KIND_ANTE: _ClassVar[ForcedBetKind]
    FORCED_BET_KIND_SMALL_BLIND: _ClassVar[ForcedBetKind]
    FORCED_BET_KIND_BIG_BLIND: _ClassVar[ForcedBetKind]
    FORCED_BET_KIND_DEAD_SMALL_BLIND: _ClassVar[ForcedBetKind]

class PotShare(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POT_SHARE_UNSPECIFIED: _ClassVar[PotShare]
    POT_SHARE_WHOLE: _ClassVar[PotShare]
    POT_SHARE_HIGH: _ClassVar[PotShare]
    POT_SHARE_LOW: _ClassVar[PotShare]

class TableKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_KIND_UNSPECIFIED: _ClassVar[TableKind]
    TABLE_KIND_CASH: _ClassVar[TableKind]
    TABLE_KIND_TOURNAMENT: _ClassVar[TableKind]

class SeatStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_STATUS_UNSPECIFIED: _ClassVar[SeatStatus]
    SEAT_STATUS_EMPTY: _ClassVar[SeatStatus]
    SEAT_STATUS_PLAYING: _ClassVar[SeatStatus]
    SEAT_STATUS_SITTING_OUT: _ClassVar[SeatStatus]
STRUCTURE_UNSPECIFIED: Structure
STRUCTURE_FIXED_LIMIT: Structure
STRUCTURE_POT_LIMIT: Structure
STRUCTURE_NO_LIMIT: Structure
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_FOLD: ActionKind
ACTION_KIND_CHECK: ActionKind
ACTION_KIND_CALL: ActionKind
ACTION_KIND_BRING_IN: ActionKind
ACTION_KIND_COMPLETE: ActionKind
ACTION_KIND_BET: ActionKind
ACTION_KIND_RAISE: ActionKind
ACTION_KIND_DRAW: ActionKind
ACTION_KIND_TIMEOUT: ActionKind
TIMEOUT_OUTCOME_UNSPECIFIED: TimeoutOutcome
TIMEOUT_OUTCOME_CHECK: TimeoutOutcome
TIMEOUT_OUTCOME_ALL_IN: TimeoutOutcome
TIMEOUT_OUTCOME_FOLD: TimeoutOutcome
TIMEOUT_OUTCOME_BRING_IN: TimeoutOutcome
TIMEOUT_OUTCOME_STAND_PAT: TimeoutOutcome
FORCED_BET_KIND_UNSPECIFIED: ForcedBetKind
FORCED_BET_KIND_ANTE: ForcedBetKind
FORCED_BET_KIND_SMALL_BLIND: ForcedBetKind
FORCED_BET_KIND_BIG_BLIND: ForcedBetKind
FORCED_BET_KIND_DEAD_SMALL_BLIND: ForcedBetKind
POT_SHARE_UNSPECIFIED: PotShare
POT_SHARE_WHOLE: PotShare
POT_SHARE_HIGH: PotShare
POT_SHARE_LOW: PotShare
TABLE_KIND_UNSPECIFIED: TableKind
TABLE_KIND_CASH: TableKind
TABLE_KIND_TOURNAMENT: TableKind
SEAT_STATUS_UNSPECIFIED: SeatStatus
SEAT_STATUS_EMPTY: SeatStatus
SEAT_STATUS_PLAYING: SeatStatus
SEAT_STATUS_SITTING_OUT: SeatStatus

class Stakes(_message.Message):
    __slots__ = ("small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind")
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    BRING_IN_FIELD_NUMBER: _ClassVar[int]
    SMALL_BLIND_FIELD_NUMBER: _ClassVar[int]
    BIG_BLIND_FIELD_NUMBER: _ClassVar[int]
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    small_blind: int
    big_blind: int
    def __init__(self, small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., ante: _Optional[int] = ..., bring_in: _Optional[int] = ..., small_blind: _Optional[int] = ..., big_blind: _Optional[int] = ...) -> None: ...

class TableOptions(_message.Message):
    __slots__ = ("game", "stakes", "structure", "open_pair", "heads_up_uncapped", "cap", "clock_seconds", "max_seats", "buy_in")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    STRUCTURE_FIELD_NUMBER: _ClassVar[int]
    OPEN_PAIR_FIELD_NUMBER: _ClassVar[int]
    HEADS_UP_UNCAPPED_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    CLOCK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    game: str
    stakes: Stakes
    structure: Structure
    open_pair: bool
    heads_up_uncapped: bool
    cap: int
    clock_seconds: float
    max_seats: int
    buy_in: int
    def __init__(self, game: _Optional[str] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ..., structure: _Optional[_Union[Structure, str]] = ..., open_pair: _Optional[bool] = ..., heads_up_uncapped: _Optional[bool] = ..., cap: _Optional[int] = ..., clock_seconds: _Optional[float] = ..., max_seats: _Optional[int] = ..., buy_in: _Optional[int] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("table_id", "options", "seed", "kind", "director_token", "hand_number")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DIRECTOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    options: TableOptions
    seed: int
    kind: TableKind
    director_token: str
    hand_number: int
    def __init__(self, table_id: _Optional[str] = ..., options: _Optional[_Union[TableOptions, _Mapping]] = ..., seed: _Optional[int] = ..., kind: _Optional[_Union[TableKind, str]] = ..., director_token: _Optional[str] = ..., hand_number: _Optional[int] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("game", "page_size", "page_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    page_size: int
    page_token: str
    def __init__(self, game: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables", "next_page_token")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableSummary]
    next_page_token: str
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "game", "structure", "stakes", "max_seats", "seats_taken", "hand_number", "hand_running", "closing", "posted_buy_in", "clock_seconds", "kind")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STRUCTURE_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    SEATS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_RUNNING_FIELD_NUMBER: _ClassVar[int]
    CLOSING_FIELD_NUMBER: _ClassVar[int]
    POSTED_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    CLOCK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: str
    structure: Structure
    stakes: Stakes
    max_seats: int
    seats_taken: int
    hand_number: int
    hand_running: bool
    closing: bool
    posted_buy_in: int
    clock_seconds: float
    kind: TableKind
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[str] = ..., structure: _Optional[_Union[Structure, str]] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ..., max_seats: _Optional[int] = ..., seats_taken: _Optional[int] = ..., hand_number: _Optional[int] = ..., hand_running: _Optional[bool] = ..., closing: _Optional[bool] = ..., posted_buy_in: _Optional[int] = ..., clock_seconds: _Optional[float] = ..., kind: _Optional[_Union[TableKind, str]] = ...) -> None: ...

class CloseTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class CloseTableResponse(_message.Message):
    __slots__ = ("closed", "seats_taken", "hand_running")
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    SEATS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_RUNNING_FIELD_NUMBER: _ClassVar[int]
    closed: bool
    seats_taken: int
    hand_running: bool
    def __init__(self, closed: _Optional[bool] = ..., seats_taken: _Optional[int] = ..., hand_running: _Optional[bool] = ...) -> None: ...

class SeatState(_message.Message):
    __slots__ = ("seat", "player_id", "stack", "status")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    stack: int
    status: SeatStatus
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., stack: _Optional[int] = ..., status: _Optional[_Union[SeatStatus, str]] = ...) -> None: ...

class TableState(_message.Message):
    __slots__ = ("table_id", "options", "seats", "hand_number", "hand_running", "last_seq", "posted_buy_in", "closing", "kind")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_RUNNING_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    POSTED_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    CLOSING_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    options: TableOptions
    seats: _containers.RepeatedCompositeFieldContainer[SeatState]
    hand_number: int
    hand_running: bool
    last_seq: int
    posted_buy_in: int
    closing: bool
    kind: TableKind
    def __init__(self, table_id: _Optional[str] = ..., options: _Optional[_Union[TableOptions, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatState, _Mapping]]] = ..., hand_number: _Optional[int] = ..., hand_running: _Optional[bool] = ..., last_seq: _Optional[int] = ..., posted_buy_in: _Optional[int] = ..., closing: _Optional[bool] = ..., kind: _Optional[_Union[TableKind, str]] = ...) -> None: ...

class SitDownRequest(_message.Message):
    __slots__ = ("table_id", "seat", "player_id", "buy_in", "post_to_play")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    POST_TO_PLAY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    player_id: str
    buy_in: int
    post_to_play: bool
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., player_id: _Optional[str] = ..., buy_in: _Optional[int] = ..., post_to_play: _Optional[bool] = ...) -> None: ...

class SitDownResponse(_message.Message):
    __slots__ = ("seat_token", "seat", "resume_after_seq")
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    seat_token: str
    seat: SeatState
    resume_after_seq: int
    def __init__(self, seat_token: _Optional[str] = ..., seat: _Optional[_Union[SeatState, _Mapping]] = ..., resume_after_seq: _Optional[int] = ...) -> None: ...

class SeatRequest(_message.Message):
    __slots__ = ("table_id", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SitInRequest(_message.Message):
    __slots__ = ("table_id", "seat", "post_to_play")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POST_TO_PLAY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    post_to_play: bool
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., post_to_play: _Optional[bool] = ...) -> None: ...

class SeatPlayerRequest(_message.Message):
    __slots__ = ("table_id", "seat", "player_id", "stack")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    player_id: str
    stack: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., player_id: _Optional[str] = ..., stack: _Optional[int] = ...) -> None: ...

class AddChipsRequest(_message.Message):
    __slots__ = ("table_id", "seat", "chips")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    chips: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., chips: _Optional[int] = ...) -> None: ...

class SetAwayRequest(_message.Message):
    __slots__ = ("table_id", "seat", "away")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    away: bool
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., away: _Optional[bool] = ...) -> None: ...

class DealHandRequest(_message.Message):
    __slots__ = ("table_id", "hand_number", "stakes")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_number: int
    stakes: Stakes
    def __init__(self, table_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ...) -> None: ...

class HandResult(_message.Message):
    __slots__ = ("table_id", "hand_number", "voided", "seats", "big_blind_order", "waiting_seats")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    BIG_BLIND_ORDER_FIELD_NUMBER: _ClassVar[int]
    WAITING_SEATS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_number: int
    voided: bool
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    big_blind_order: _containers.RepeatedScalarFieldContainer[int]
    waiting_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, table_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., voided: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., big_blind_order: _Optional[_Iterable[int]] = ..., waiting_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "player_id", "start", "end", "away")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    start: int
    end: int
    away: bool
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., start: _Optional[int] = ..., end: _Optional[int] = ..., away: _Optional[bool] = ...) -> None: ...

class StandUpResponse(_message.Message):
    __slots__ = ("chips",)
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    chips: int
    def __init__(self, chips: _Optional[int] = ...) -> None: ...

class History(_message.Message):
    __slots__ = ("hands",)
    HANDS_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[HandHistory]
    def __init__(self, hands: _Optional[_Iterable[_Union[HandHistory, _Mapping]]] = ...) -> None: ...

class HandHistory(_message.Message):
    __slots__ = ("hand_number", "voided", "events")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    voided: bool
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, hand_number: _Optional[int] = ..., voided: _Optional[bool] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("action_id", "kind", "amount", "discard", "table_id", "seat", "turn_seq")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_SEQ_FIELD_NUMBER: _ClassVar[int]
    action_id: str
    kind: ActionKind
    amount: int
    discard: _containers.RepeatedScalarFieldContainer[int]
    table_id: str
    seat: int
    turn_seq: int
    def __init__(self, action_id: _Optional[str] = ..., kind: _Optional[_Union[ActionKind, str]] = ..., amount: _Optional[int] = ..., discard: _Optional[_Iterable[int]] = ..., table_id: _Optional[str] = ..., seat: _Optional[int] = ..., turn_seq: _Optional[int] = ...) -> None: ...

class ActResult(_message.Message):
    __slots__ = ("action_id", "code", "message")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    action_id: str
    code: int
    message: str
    def __init__(self, action_id: _Optional[str] = ..., code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("kind", "min", "max")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    min: int
    max: int
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., min: _Optional[int] = ..., max: _Optional[int] = ...) -> None: ...

class ClientMessage(_message.Message):
    __slots__ = ("hello", "act", "ping")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    act: ActRequest
    ping: Ping
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., act: _Optional[_Union[ActRequest, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("table_id", "seat", "resume_after_seq")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    resume_after_seq: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., resume_after_seq: _Optional[int] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("events", "results", "your_turn", "pongs", "welcome")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    PONGS_FIELD_NUMBER: _ClassVar[int]
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    results: _containers.RepeatedCompositeFieldContainer[ActResult]
    your_turn: YourTurn
    pongs: _containers.RepeatedCompositeFieldContainer[Pong]
    welcome: Welcome
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[ActResult, _Mapping]]] = ..., your_turn: _Optional[_Union[YourTurn, _Mapping]] = ..., pongs: _Optional[_Iterable[_Union[Pong, _Mapping]]] = ..., welcome: _Optional[_Union[Welcome, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "table", "gap")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    GAP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    table: TableState
    gap: bool
    def __init__(self, seat: _Optional[int] = ..., table: _Optional[_Union[TableState, _Mapping]] = ..., gap: _Optional[bool] = ...) -> None: ...

class YourTurn(_message.Message):
    __slots__ = ("hand_number", "seq", "legal", "deadline_unix_ms")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    seq: int
    legal: _containers.RepeatedCompositeFieldContainer[LegalAction]
    deadline_unix_ms: int
    def __init__(self, hand_number: _Optional[int] = ..., seq: _Optional[int] = ..., legal: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., deadline_unix_ms: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "hand_number", "server_time_us", "hand_started", "forced_bet", "cards_dealt", "community_card", "reshuffled", "round_started", "acted", "timed_out", "drew", "cap_reached", "bet_returned", "pots_formed", "hand_shown", "hand_mucked", "pot_awarded", "hand_ended", "seat_changed", "hand_voided")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_US_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    FORCED_BET_FIELD_NUMBER: _ClassVar[int]
    CARDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    COMMUNITY_CARD_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLED_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ACTED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    DREW_FIELD_NUMBER: _ClassVar[int]
    CAP_REACHED_FIELD_NUMBER: _ClassVar[int]
    BET_RETURNED_FIELD_NUMBER: _ClassVar[int]
    POTS_FORMED_FIELD_NUMBER: _ClassVar[int]
    HAND_SHOWN_FIELD_NUMBER: _ClassVar[int]
    HAND_MUCKED_FIELD_NUMBER: _ClassVar[int]
    POT_AWARDED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    SEAT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    seq: int
    hand_number: int
    server_time_us: int
    hand_started: HandStarted
    forced_bet: ForcedBet
    cards_dealt: CardsDealt
    community_card: CommunityCard
    reshuffled: Reshuffled
    round_started: RoundStarted
    acted: Acted
    timed_out: TimedOut
    drew: Drew
    cap_reached: CapReached
    bet_returned: BetReturned
    pots_formed: PotsFormed
    hand_shown: HandShown
    hand_mucked: HandMucked
    pot_awarded: PotAwarded
    hand_ended: HandEnded
    seat_changed: SeatChanged
    hand_voided: HandVoided
    def __init__(self, seq: _Optional[int] = ..., hand_number: _Optional[int] = ..., server_time_us: _Optional[int] = ..., hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., forced_bet: _Optional[_Union[ForcedBet, _Mapping]] = ..., cards_dealt: _Optional[_Union[CardsDealt, _Mapping]] = ..., community_card: _Optional[_Union[CommunityCard, _Mapping]] = ..., reshuffled: _Optional[_Union[Reshuffled, _Mapping]] = ..., round_started: _Optional[_Union[RoundStarted, _Mapping]] = ..., acted: _Optional[_Union[Acted, _Mapping]] = ..., timed_out: _Optional[_Union[TimedOut, _Mapping]] = ..., drew: _Optional[_Union[Drew, _Mapping]] = ..., cap_reached: _Optional[_Union[CapReached, _Mapping]] = ..., bet_returned: _Optional[_Union[BetReturned, _Mapping]] = ..., pots_formed: _Optional[_Union[PotsFormed, _Mapping]] = ..., hand_shown: _Optional[_Union[HandShown, _Mapping]] = ..., hand_mucked: _Optional[_Union[HandMucked, _Mapping]] = ..., pot_awarded: _Optional[_Union[PotAwarded, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., seat_changed: _Optional[_Union[SeatChanged, _Mapping]] = ..., hand_voided: _Optional[_Union[HandVoided, _Mapping]] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("seats", "stacks", "button_seat", "deck_size")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    BUTTON_SEAT_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    button_seat: int
    deck_size: int
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., stacks: _Optional[_Iterable[int]] = ..., button_seat: _Optional[int] = ..., deck_size: _Optional[int] = ...) -> None: ...

class ForcedBet(_message.Message):
    __slots__ = ("seat", "kind", "amount", "live")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: ForcedBetKind
    amount: int
    live: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[ForcedBetKind, str]] = ..., amount: _Optional[int] = ..., live: _Optional[bool] = ...) -> None: ...

class CardsDealt(_message.Message):
    __slots__ = ("seat", "street", "down", "up")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    DOWN_FIELD_NUMBER: _ClassVar[int]
    UP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    street: int
    down: _containers.RepeatedScalarFieldContainer[int]
    up: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., street: _Optional[int] = ..., down: _Optional[_Iterable[int]] = ..., up: _Optional[_Iterable[int]] = ...) -> None: ...

class CommunityCard(_message.Message):
    __slots__ = ("street", "card")
    STREET_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    street: int
    card: int
    def __init__(self, street: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class Reshuffled(_message.Message):
    __slots__ = ("street", "cards")
    STREET_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    street: int
    cards: int
    def __init__(self, street: _Optional[int] = ..., cards: _Optional[int] = ...) -> None: ...

class RoundStarted(_message.Message):
    __slots__ = ("street", "first_seat")
    STREET_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    street: int
    first_seat: int
    def __init__(self, street: _Optional[int] = ..., first_seat: _Optional[int] = ...) -> None: ...

class Acted(_message.Message):
    __slots__ = ("seat", "kind", "to", "added", "all_in")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: ActionKind
    to: int
    added: int
    all_in: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[ActionKind, str]] = ..., to: _Optional[int] = ..., added: _Optional[int] = ..., all_in: _Optional[bool] = ...) -> None: ...

class TimedOut(_message.Message):
    __slots__ = ("seat", "outcome")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    outcome: TimeoutOutcome
    def __init__(self, seat: _Optional[int] = ..., outcome: _Optional[_Union[TimeoutOutcome, str]] = ...) -> None: ...

class Drew(_message.Message):
    __slots__ = ("seat", "discarded", "drawn")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    discarded: _containers.RepeatedScalarFieldContainer[int]
    drawn: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., discarded: _Optional[_Iterable[int]] = ..., drawn: _Optional[_Iterable[int]] = ...) -> None: ...

class CapReached(_message.Message):
    __slots__ = ("street",)
    STREET_FIELD_NUMBER: _ClassVar[int]
    street: int
    def __init__(self, street: _Optional[int] = ...) -> None: ...

class BetReturned(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class Pot(_message.Message):
    __slots__ = ("amount", "eligible_seats")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_SEATS_FIELD_NUMBER: _ClassVar[int]
    amount: int
    eligible_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, amount: _Optional[int] = ..., eligible_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class PotsFormed(_message.Message):
    __slots__ = ("street", "pots")
    STREET_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    street: int
    pots: _containers.RepeatedCompositeFieldContainer[Pot]
    def __init__(self, street: _Optional[int] = ..., pots: _Optional[_Iterable[_Union[Pot, _Mapping]]] = ...) -> None: ...

class HandShown(_message.Message):
    __slots__ = ("seat", "cards", "high", "low")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    high: int
    low: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ..., high: _Optional[int] = ..., low: _Optional[int] = ...) -> None: ...

class HandMucked(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PotAwarded(_message.Message):
    __slots__ = ("pot", "seat", "amount", "share")
    POT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    pot: int
    seat: int
    amount: int
    share: PotShare
    def __init__(self, pot: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., share: _Optional[_Union[PotShare, str]] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("seats", "stacks", "showdown")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    showdown: bool
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., stacks: _Optional[_Iterable[int]] = ..., showdown: _Optional[bool] = ...) -> None: ...

class SeatChanged(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: SeatState
    def __init__(self, seat: _Optional[_Union[SeatState, _Mapping]] = ...) -> None: ...

class HandVoided(_message.Message):
    __slots__ = ("seats", "stacks", "reason")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., stacks: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...
