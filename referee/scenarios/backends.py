"""Where scenarios run: in this process (the engine), or against a service over HTTP.

Both backends take API-level data (NewGame, State, Action) and refuse the
same way, with a :class:`Refusal` that carries what an HTTP problem would:
status (400, 403, 413 or 422), code, detail, and rule / errors / violations.
They have one face, :class:`Backend`: everything that runs scenarios takes a
``Backend``, and mypy holds both classes to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, ParamSpec, Protocol, TypeVar

from referee.engine import (
    ActionDict,
    Catalog,
    EventDict,
    InvalidInput,
    RefereeError,
    RuleViolation,
    Session,
    StateDict,
    ViewDict,
    legal_actions,
)
from referee.engine.consistency import check_consistency
from referee.engine.labels import names_for
from referee.service.problems import problem_for

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Refusal(Exception):
    """The referee refused a request: a 422 violation or a 4xx input error."""

    def __init__(
        self,
        status: int,
        code: str | None,
        detail: str,
        *,
        rule: str | None = None,
        errors: dict[str, list[str]] | None = None,
        violations: list[dict[str, Any]] | None = None,
        index: int | None = None,
    ):
        self.status = status
        self.code = code
        self.detail = detail
        self.rule = rule
        self.errors = errors or {}
        self.violations = violations or []
        self.index = index
        super().__init__(detail)

    @classmethod
    def of_problem(cls, status: int, code: str | None, detail: str, members: dict[str, Any]) -> Refusal:
        """The refusal a problem answer says: its status and code, and its members (rule, errors...)."""
        return cls(
            status,
            code,
            detail,
            rule=members.get("rule"),
            errors=members.get("errors"),
            violations=members.get("violations"),
            index=members.get("index"),
        )

    @property
    def kind(self) -> str:
        return "violation" if self.status == 422 else "error"

    def describe(self) -> str:
        if self.kind == "violation":
            text = f"violation of rule {self.rule} ({self.code}): {self.detail}"
            others = list(self.violations[1:])
            if others:
                text += " — also " + "; ".join(f"{v.get('rule')} ({v.get('code')})" for v in others)
            return text
        text = f"error {self.status} ({self.code}): {self.detail}"
        return text


def _from_engine(exc: RefereeError) -> Refusal:
    """The refusal the service would answer with (the one mapping, ``problem_for``)."""
    p = problem_for(exc)
    return Refusal.of_problem(p.status, p.code, p.detail, p.extra)


class Trial(NamedTuple):
    """An action put to the referee on a copy of a state (for the invariants, referee/scenarios/invariants.py):
    its refusal (``None``: accepted) and the state the referee was left with (``None`` when it cannot say:
    a refusal over HTTP returns no state)."""

    refusal: Refusal | None
    state: StateDict | None


@dataclass
class BackendGame:
    """A game being played through a backend: its current state."""

    state: StateDict
    game: Any = None  # the engine's Session (in-process)
    events: list[EventDict] = field(default_factory=list)


class Backend(Protocol):
    """What a scenario, an invariant, a recheck or an expansion asks of where it runs: :class:`InProcess`
    or :class:`Http`, which refuse alike (:class:`Refusal`)."""

    @property
    def label(self) -> str: ...  # "in-process", or the service's URL

    @property
    def catalog(self) -> Catalog: ...

    @property
    def ref(self) -> Any: ...  # the catalog's id and digest, as a state names them

    @property
    def replays_in_one_request(self) -> bool: ...  # whether replay() is cheaper than apply() one by one

    @property
    def table_url(self) -> str | None: ...  # the table page of the referee (check's hints), if one serves it

    def new_game(self, game: Any) -> BackendGame: ...

    def load(self, state: Any) -> BackendGame: ...

    def apply(self, session: BackendGame, action: Any) -> list[EventDict]: ...

    def replay(self, session: BackendGame, actions: list[Any]) -> int: ...

    def legal_actions(self, state: StateDict, player: int | None) -> list[ActionDict]: ...

    def validate(self, state: StateDict, action: Any) -> Refusal | None: ...

    def trial(self, state: StateDict, action: Any) -> Trial: ...

    def view(self, state: StateDict, seat: int) -> ViewDict: ...

    def close(self) -> None: ...


class InProcess:
    """The engine, called directly: one catalog, one engine session per game."""

    label = "in-process"
    replays_in_one_request = False  # applying the actions one by one costs the same
    table_url: str | None = None  # no referee serves a table page here

    def __init__(self, catalog: Catalog, *, check_each_state: bool = True):
        self.catalog = catalog
        self.ref = catalog.ref
        self.check_each_state = check_each_state

    def trusting(self) -> InProcess:
        """This backend without the check of the state before each action: for replaying a game on
        states the engine made itself (``referee recheck``), as ``/v1/replay`` does; its caller checks
        the state the game ends on."""
        return InProcess(self.catalog, check_each_state=False)

    def new_game(self, game: Any) -> BackendGame:
        try:
            engine, events = Session.new(self.catalog, game)
        except (RuleViolation, InvalidInput) as exc:
            raise _from_engine(exc) from None
        return BackendGame(engine.state, engine, list(events))

    def load(self, state: Any) -> BackendGame:
        try:
            engine = Session.from_state(self.catalog, state)
        except InvalidInput as exc:
            raise _from_engine(exc) from None
        return BackendGame(engine.state, engine, [])

    def apply(self, session: BackendGame, action: Any) -> list[EventDict]:
        """Check and apply one action in place; the state is unchanged when it is refused.

        The state is checked for consistency (RULES 13.1) before every action, as the
        HTTP backend's service does with each request's state (unless :meth:`trusting`).
        """
        engine = session.game
        if self.check_each_state:
            self.refuse_inconsistent(engine.state)
        try:
            events = list(engine.apply(action).events)
        except RuleViolation as exc:  # named as the service names them: players and cards as the actor sees them
            player = action.get("player") if isinstance(action, dict) else None
            exc.params.setdefault("_names", names_for(self.catalog, engine.state, player))
            raise _from_engine(exc) from None
        except InvalidInput as exc:
            raise _from_engine(exc) from None
        session.events.extend(events)
        return events

    def replay(self, session: BackendGame, actions: list[Any]) -> int:
        """Each action applied in turn; a refusal carries the index of the illegal action (as /v1/replay's)."""
        for index, action in enumerate(actions):
            try:
                self.apply(session, action)
            except Refusal as refusal:
                refusal.index = index
                raise
        session.state = session.game.state
        return len(actions)

    def refuse_inconsistent(self, state: StateDict) -> None:
        """RULES 13.1 on a working state; the service's refusal (400, at ``state``) when it fails."""
        try:
            check_consistency(self.catalog, state)
        except InvalidInput as exc:
            raise _from_engine(exc.under("state")) from None

    def legal_actions(self, state: StateDict, player: int | None) -> list[ActionDict]:
        listed: list[Any] = legal_actions(self.catalog, state, player)  # the face's plain dicts: ActionDicts
        return listed

    # The invariants' questions (referee/scenarios/invariants.py), on states the engine made or checked.

    def validate(self, state: StateDict, action: Any) -> Refusal | None:
        try:
            violation = Session(self.catalog, state).validate(action)
        except InvalidInput as exc:
            return _from_engine(exc)
        return None if violation is None else _from_engine(violation)

    def trial(self, state: StateDict, action: Any) -> Trial:
        """``action`` applied to a copy of ``state``."""
        copy = Session(self.catalog, Session(self.catalog, state).snapshot())
        try:
            copy.apply(action)
        except (RuleViolation, InvalidInput) as exc:
            return Trial(_from_engine(exc), copy.state)
        return Trial(None, copy.state)

    def view(self, state: StateDict, seat: int) -> ViewDict:
        return Session(self.catalog, state).view(seat)

    def close(self) -> None:
        pass


class CatalogMismatch(Exception):
    """The catalog a service serves (``GET /v1/cards``) does not load here as the catalog it names."""


class PrivateService(Exception):
    """The service runs in private mode (docs/api.md §10): it deals its games itself and takes state tokens and
    seats, so the scenarios, which build and send plain states, cannot run against it."""

    def __init__(self, url: str):
        super().__init__(
            f"the service at {url} runs in private mode (it takes state tokens and seats, docs/api.md §10); "
            "scenarios send plain states, so run them against a referee in plain mode "
            "(started without REFEREE_STATE_KEY), or in-process without --url"
        )


def refuse_private(url: str, client: Any) -> None:
    """Raise :class:`PrivateService` when the service at ``url`` runs in private mode.

    One empty ``POST /v1/reveal`` tells: a plain-mode referee answers 400 ``private_mode_off`` whatever the
    body; a private one reads the body and refuses it otherwise. A service without the path (404) is taken
    as plain: the scenarios' own requests then say what is wrong.
    """
    from referee.client import RefereeHTTPError

    try:
        client.reveal("", [])
    except RefereeHTTPError as exc:
        if exc.code == "private_mode_off" or exc.status == 404:
            return
    raise PrivateService(url)


# What ``GET /v1/cards`` adds to each card of the catalog format (docs/api.md §8), computed by the service.
SERVED_ONLY_FIELDS = ("name_deck_limit",)


def served_catalog(url: str, body: dict[str, Any], formats: list[dict[str, Any]] | None = None) -> Catalog:
    """The catalog a service serves (its cards, and its formats from ``GET /v1/formats``), as this process
    loads it: the scenarios' filler cards and positions are built from it, so it must be the service's own
    to the digest, or the run stops with an error naming both (never a fallback to another catalog)."""
    ref = body["catalog"]
    named = f"{ref.get('id')} ({ref.get('digest')})"
    cards = [{k: v for k, v in card.items() if k not in SERVED_ONLY_FIELDS} for card in body["cards"]]
    data: dict[str, Any] = {"id": ref["id"], "cards": cards}
    if formats:
        data["formats"] = formats
    try:
        catalog = Catalog.from_data(data)
    except RefereeError as exc:
        raise CatalogMismatch(f"the service at {url} serves catalog {named}, which does not load here: {exc}") from None
    if catalog.ref != {"id": ref["id"], "digest": ref["digest"]}:
        raise CatalogMismatch(
            f"the service at {url} serves catalog {named}, but its cards load here as "
            f"{catalog.id} ({catalog.digest}): is the same version of the referee installed here?"
        )
    return catalog


class Http:
    """A running referee service, through :class:`referee.client.RefereeClient`."""

    replays_in_one_request = True  # one /v1/replay request instead of one request per action

    def __init__(self, url: str, timeout: float = 30.0, client: Any = None):
        from referee.client import RefereeClient

        self.client: RefereeClient = client or RefereeClient(url, timeout=timeout)
        self.label = url
        self.table_url = url.rstrip("/") + "/table"  # the table page of that referee (check's hints)
        self.timeout = timeout
        body = self.client.cards()
        refuse_private(url, self.client)
        self.ref = dict(body["catalog"])
        self.catalog = served_catalog(url, body, self._formats())

    def _formats(self) -> list[dict[str, Any]]:
        """The service's formats (docs/api.md §13); none from a service older than them (404)."""
        from referee.client import NotFound

        try:
            return self.client.formats()
        except NotFound:
            return []

    def _call(self, func: Callable[_P, _T], *args: _P.args, **kw: _P.kwargs) -> _T:
        from referee.client import RefereeHTTPError

        try:
            return func(*args, **kw)
        except RefereeHTTPError as exc:  # the answer's own status, code and members
            raise Refusal.of_problem(exc.status or 0, exc.code, exc.detail, exc.body) from None

    def new_game(self, game: Any) -> BackendGame:
        out = self._call(self.client.new_game, game)
        return BackendGame(out.state, None, list(out.events))

    def load(self, state: Any) -> BackendGame:
        # Any endpoint that takes a state checks it (RULES 13.1); legal-actions changes nothing.
        self._call(self.client.legal_actions, state)
        return BackendGame(state, None, [])

    def apply(self, session: BackendGame, action: Any) -> list[EventDict]:
        out = self._call(self.client.apply, session.state, action)
        session.state = out.state
        session.events.extend(out.events)
        return out.events

    def replay(self, session: BackendGame, actions: list[Any]) -> int:
        """All actions in one request; a refusal carries the index of the illegal action."""
        out = self._call(self.client.replay, actions, state=session.state)
        session.state = out.state
        return out.applied

    def legal_actions(self, state: StateDict, player: int | None) -> list[ActionDict]:
        return self._call(self.client.legal_actions, state, player)

    # The invariants' questions (referee/scenarios/invariants.py), each one request.

    def validate(self, state: StateDict, action: Any) -> Refusal | None:
        try:
            said = self._call(self.client.validate, state, action)
        except Refusal as refusal:  # an action not of the schema: a 400
            return refusal
        return None if said is None else Refusal(422, said.code, said.detail, rule=said.rule)

    def trial(self, state: StateDict, action: Any) -> Trial:
        """``action`` sent with ``state`` (the service keeps nothing); a refusal returns no state, so
        none is compared."""
        try:
            out = self._call(self.client.apply, state, action)
        except Refusal as refusal:
            return Trial(refusal, None)
        return Trial(None, out.state)

    def view(self, state: StateDict, seat: int) -> ViewDict:
        return self._call(self.client.view, state, seat)

    def close(self) -> None:
        self.client.close()
