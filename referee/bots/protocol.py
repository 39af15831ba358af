"""The bot protocol: a bot is a program in any language that talks JSON lines on stdin/stdout (docs/bots.md).

One game, one process. The referee writes one JSON object per line to the
bot's stdin; the bot answers each ``act`` with one line on its stdout:

- ``{"type": "start", "protocol": "ace-file-bot/1", "seat": 0, "catalog": {"id", "digest"},
  "deck": {"AF-001": 3, ...}, "options": {...}, "move_ms": 1000}`` — the game begins; ``deck`` is the bot's
  own deck list (the cards it owns: a player knows the deck they built). No answer.
- ``{"type": "act", "view": View, "events": [...], "legal": [{"index", "action", "label"}, ...],
  "time_left_ms": 987}`` — the bot's turn to choose: its seat's view (docs/api.md §5), the events its seat
  was told since its last decision (private mode's filter, §10), its legal actions, each with its index in
  the catalog's action space (:class:`referee.bots.actions.ActionSpace`) and its label. The bot answers
  ``{"index": i}`` (one of the listed indices) within ``time_left_ms``.
- ``{"type": "end", "result": {"winner", "reason"} or null, "you": 0}`` — the game is over; then stdin
  closes. No answer.

A bot that exits, answers late, answers something that is not one line of
``{"index": i}`` with a listed ``i``, or writes more than :data:`MAX_LINE`
bytes in a line, loses that game (a *forfeit*); the arena goes on. A bot's
stderr goes to a log file of the arena, never into the protocol.

:class:`ProcessBot` is the referee's side of one such process;
:class:`InProcessBot` puts one of the project's own bots behind the same
interface (``builtin:ismcts``).
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from referee.bots.actions import ActionSpace
from referee.bots.players import Bot, make_bot
from referee.engine import Catalog, ViewDict

PROTOCOL = "ace-file-bot/1"
MAX_LINE = 1 << 16  # bytes of one answer line
START_GRACE = 5.0  # seconds a process has, besides its first move's time, to start (node, python)


class Forfeit(Exception):
    """The bot loses this game: ``reason`` is ``crash``, ``timeout`` or ``illegal`` (with ``detail``)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line: compact JSON, UTF-8, ending in a newline."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def legal_entries(space: ActionSpace, view: ViewDict, labelled: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"index", "action", "label"}`` for each listed action (labels from the engine, as the seat sees them)."""
    plain: list[Any] = [  # each a listed action (ActionDict) without its label
        {k: v for k, v in a.items() if k != "label"} for a in labelled
    ]
    by_index = space.legal(plain, view)
    index_of = {id(a): i for i, a in by_index.items()}
    return [{"index": index_of[id(a)], "action": a, "label": full["label"]} for a, full in zip(plain, labelled)]


class Player:
    """One seat's bot for one game: :meth:`start`, :meth:`act` (the chosen index), :meth:`end`."""

    name = "bot"

    def start(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def act(self, message: dict[str, Any], deadline: float) -> int:
        raise NotImplementedError

    def end(self, message: dict[str, Any]) -> None:
        raise NotImplementedError


class InProcessBot(Player):
    """One of the project's bots (``builtin:NAME``, ``builtin:ismcts:N``), told what a process is told."""

    def __init__(self, name: str, catalog: Catalog, seed: str):
        self.name = "builtin:" + name
        self.bot: Bot = make_bot(name, catalog, seed)

    def start(self, message: dict[str, Any]) -> None:
        decks: list[Any] = [None, None]
        decks[message["seat"]] = dict(message["deck"])
        self.bot.start(message["seat"], decks, message["game"])

    def act(self, message: dict[str, Any], deadline: float) -> int:
        legal = message["legal"]
        self.bot.deadline = deadline
        chosen = self.bot.act(message["view"], message["events"], [e["action"] for e in legal])
        index: int = next(e["index"] for e in legal if e["action"] == chosen)
        return index

    def end(self, message: dict[str, Any]) -> None:
        pass


class ProcessBot(Player):
    """A program speaking the protocol on stdin/stdout; ``log`` receives its stderr."""

    def __init__(self, command: str, log: Path | None = None, cwd: str | None = None):
        self.name = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("an empty bot command")
        self.log = log
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        self.first = True

    def start(self, message: dict[str, Any]) -> None:
        err: IO[bytes] | int = subprocess.DEVNULL
        if self.log is not None:
            err = self.log.open("ab")
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=self.cwd
            )
        except OSError as exc:
            raise Forfeit("crash", f"cannot start {self.name!r}: {exc.strerror or exc}") from None
        finally:
            if not isinstance(err, int):
                err.close()
        assert self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)  # a bot that stops reading cannot stall the arena
        self._send(message, time.perf_counter() + START_GRACE)

    def _send(self, message: Mapping[str, Any], deadline: float) -> None:
        """Write one line to the bot by ``deadline``: one that does not read its input in time forfeits."""
        assert self.proc is not None and self.proc.stdin is not None
        data = memoryview(encode(message))
        fd = self.proc.stdin.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                left = deadline - time.perf_counter()
                if left <= 0 or not sel.select(left):
                    raise Forfeit("timeout", "it did not read its input in time")
                try:
                    data = data[os.write(fd, data) :]
                except BlockingIOError:
                    continue
                except OSError:
                    raise Forfeit("crash", f"the bot exited (status {self.proc.poll()})") from None

    def act(self, message: dict[str, Any], deadline: float) -> int:
        if self.first:  # a process's start-up is not its move's time
            deadline += START_GRACE
            self.first = False
        self._send(message, deadline)
        line = self._line(deadline)
        try:
            answer = json.loads(line)
        except ValueError:
            raise Forfeit("illegal", f"not JSON: {line[:80]!r}") from None
        index = answer.get("index") if isinstance(answer, dict) else None
        if type(index) is not int or all(e["index"] != index for e in message["legal"]):
            raise Forfeit("illegal", f"not one of the listed indices: {line[:80]!r}")
        return index

    def _line(self, deadline: float) -> bytes:
        """The next line of the bot's stdout, by ``deadline`` (a ``time.perf_counter()`` instant)."""
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        fd = out.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                if len(self.buffer) > MAX_LINE:
                    raise Forfeit("illegal", f"an answer line over {MAX_LINE} bytes")
                left = deadline - time.perf_counter()
                if left <= 0 or not sel.select(left):
                    raise Forfeit("timeout", "no answer in time")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise Forfeit("crash", f"the bot exited (status {self.proc.wait()})")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def end(self, message: dict[str, Any]) -> None:
        """Tell the result (if the bot still listens), close stdin, and make sure the process is gone."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                self._send(message, time.perf_counter() + 0.5)
            except Forfeit:
                pass  # it is over either way
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        self.proc = None
