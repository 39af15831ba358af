"""The ledger on Redis (``redis://host:port/db``, or ``redis+cluster://host:port`` for a Redis Cluster).

Every replica shares one Redis; a move's compare-and-set is one Lua script
(atomic on the server), and all of a game's data is one hash under a key with
the game id as its hash tag (``af:{g-…}``), so on a cluster each game lives on
one node. Each process sends the calls that queued while its previous round
trip was under way as one script (one per slot on a cluster; the same
:class:`~referee.private.ledger.base.GroupCommit` as SQLite's), each call in it
still its own compare-and-set.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from referee.private.ledger.base import (
    AHEAD,
    APPLIED,
    CLUSTER_SCHEMES,
    GRACE,
    REPEATED,
    SENTINEL_SCHEMES,
    SKEWED,
    STALE,
    GroupCommit,
    LedgerOutcomeUnknown,
    LedgerUnavailable,
    OnBatch,
    Outcome,
    Work,
    deadline,
    replicas_of,
    sentinels,
    steady_ms,
    unobserved,
)

_T = TypeVar("_T")
LOG = logging.getLogger("referee.ledger")  # JSON lines once the service has configured its logs (logs.py)


# One script runs a batch of calls: KEYS holds each call's game hash, ARGV each call's name and then
# its arguments, in the same order. Each call runs in a protected call (pcall), so one that fails
# (a Redis out of memory refusing its write) fails alone, having written nothing, and answers
# {0, message}; the others answer {1, ...}:
# - start(token, ttl, only_new): a new game, its hash afresh at seq 0; with only_new 1, only if the key does
#   not exist. Answers {1, 1}, or {1, 0} when it existed (only_new).
# - record(seq, digest, token, ttl, sent): the move on seq; sent is the token it was made on, or ''.
#   Answers {1, kind, latest, token}: kind 1 applied, 2 repeated (token: the recorded one), 0 stale,
#   3 a game it does not hold, when sent is '' (the client then calls again with the token sent).
# - record_at(at, seq, digest, token, ttl, sent): record, for a move charged at ``at`` (ms, the replica's reading
#   of Redis's clock, docs/api.md §15): refused, {1, 4, now, '', now}, unless at is within CLOCK_BEHIND before
#   and CLOCK_AHEAD after Redis's TIME (now); else record's answer with now added.
# - stale(seq, digest): {1, latest} if a move by digest on seq would be refused, else {1, -1}.
# - latest(): {1, latest, token}, or {1} for a game it does not hold.
# - move(seq): {1, digest, token} of the move recorded as seq ('' for the deal's digest), or {1}.
# - now(): {1, ms}: Redis's TIME in milliseconds, the clock a game's moves are charged by (docs/api.md §15).
_BATCH = """
local calls = {}
local CLOCK_AHEAD, CLOCK_BEHIND = %d, %d

function calls.start(key, token, ttl, only_new)
  if only_new == '1' and redis.call('EXISTS', key) == 1 then return {1, 0} end
  redis.call('DEL', key)
  redis.call('HSET', key, 'latest', 0, 't:0', token)
  redis.call('EXPIRE', key, ttl)
  return {1, 1}
end

function calls.record(key, seq, digest, token, ttl, sent)
  seq = tonumber(seq)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then
    if sent == '' then return {1, 3, -1, ''} end
    redis.call('DEL', key)
    redis.call('HSET', key, 'latest', seq, 't:' .. seq, sent)
    latest = seq
  else
    latest = tonumber(latest)
  end
  if latest == seq then
    redis.call('HSET', key, 'latest', seq + 1, 'd:' .. (seq + 1), digest, 't:' .. (seq + 1), token)
    redis.call('EXPIRE', key, ttl)
    return {1, 1, seq + 1, ''}
  end
  if latest > seq and redis.call('HGET', key, 'd:' .. (seq + 1)) == digest then
    return {1, 2, latest, redis.call('HGET', key, 't:' .. (seq + 1))}
  end
  return {1, 0, latest, ''}
end

function calls.record_at(key, at, seq, digest, token, ttl, sent)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  at = tonumber(at)
  if at > now + CLOCK_AHEAD or at < now - CLOCK_BEHIND then return {1, 4, now, '', now} end
  local answer = calls.record(key, seq, digest, token, ttl, sent)
  answer[5] = now
  return answer
end

function calls.stale(key, seq, digest)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then return {1, -1} end
  latest = tonumber(latest)
  seq = tonumber(seq)
  if latest == seq then return {1, -1} end
  if latest > seq and redis.call('HGET', key, 'd:' .. (seq + 1)) == digest then return {1, -1} end
  return {1, latest}
end

function calls.latest(key)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then return {1} end
  return {1, tonumber(latest), redis.call('HGET', key, 't:' .. latest)}
end

function calls.move(key, seq)
  local token = redis.call('HGET', key, 't:' .. seq)
  if not token then return {1} end
  return {1, redis.call('HGET', key, 'd:' .. seq) or '', token}
end

function calls.now(key)
  local t = redis.call('TIME')
  return {1, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
end

local arity = {start = 3, record = 5, record_at = 6, stale = 2, latest = 0, move = 1, now = 0}
local answers, at = {}, 1
for i, key in ipairs(KEYS) do
  local name = ARGV[at]
  local n = arity[name]
  local ok, answer = pcall(calls[name], key, unpack(ARGV, at + 1, at + n))
  if not ok then
    answer = {0, type(answer) == 'table' and answer.err or tostring(answer)}
  end
  answers[i] = answer
  at = at + 1 + n
end
return answers
"""
# How far a move's time may be from Redis's TIME when its record runs (ms): after it (a replica's reading of
# Redis's clock runs a little ahead of it), and before it (the move waited for its turn in a batch, or its
# process was busy). Outside, the record is refused and the move made again at Redis's time.
CLOCK_AHEAD, CLOCK_BEHIND = 50, 2_000
_BATCH = _BATCH % (CLOCK_AHEAD, CLOCK_BEHIND)
# The script by its SHA-1, as Redis names it in its script cache (EVALSHA sends 40 bytes, not the script).
_BATCH_SHA = hashlib.sha1(_BATCH.encode()).hexdigest()


# Seconds a WAIT's answer is given to come back before its batch's first caller stops waiting.
WAIT_MARGIN = 0.1

# The calls that may write: one whose answer never came may have been recorded (outcome unknown), and
# with ?replicas=n each is answered only once n replicas hold it (WAIT).
WRITES = frozenset({"start", "record", "record_at"})


def _before_sending(error: Exception) -> bool:
    """Whether ``error`` came before anything was sent: redis-py's words for a connection not made
    ("Error 111 connecting to …", "Timeout connecting to server"). Any other error after a script
    was handed to the connection leaves its outcome unknown."""
    return "connecting to" in str(error)


def _noting_retry(retry_class: Any) -> Any:
    """redis-py's ``Retry``, noting in ``maybe_sent`` (of the class made here, one per client) each failed
    attempt that may have sent its command before it failed: its one retry of a failed call ends, when Redis is gone, with "Error … connecting
    to", though the first attempt may have reached a Redis that ran it and then died."""

    class NotingRetry(retry_class):  # type: ignore[misc]
        maybe_sent = False

        def call_with_retry(self, do: Any, fail: Any, *args: Any, **kwargs: Any) -> Any:
            def noting(error: Exception, *count: Any) -> Any:
                if not _before_sending(error) and not isinstance(error, OSError):
                    type(self).maybe_sent = True  # on the class: redis-py gives each connection a deep copy
                return fail(error, *count)

            return super().call_with_retry(do, noting, *args, **kwargs)

    return NotingRetry


class Unconfirmed:
    """A script's reply whose writes fewer replicas than ``?replicas=n`` confirmed (``WAIT``) in time."""

    __slots__ = ("confirmed", "reply")

    def __init__(self, reply: Any, confirmed: int):
        self.reply = reply
        self.confirmed = confirmed


def _moved(reply: Any) -> bool:
    """A cluster node's refusal of a script for a slot it does not hold (it ran nothing)."""
    return isinstance(reply, Exception) and str(reply).startswith(("MOVED", "ASK"))


def _said(error: Exception) -> str:
    """An error as a log line and an answer name it: its class and its message (never the URL's password:
    redis-py's messages name the host and port only)."""
    return f"{type(error).__name__}: {error}"


def game_key(game_id: str) -> str:
    """The hash of one game: its id as the hash tag, so a cluster keeps it on one node."""
    return "af:{" + game_id + "}"


class RedisLedger:
    """The ledger on Redis, shared by every replica: one Redis (``redis://``) or a Redis Cluster
    (``redis+cluster://``, any one node; the client finds the others and which node holds each game).

    Each process makes its own client on first use (gunicorn forks its workers after loading the app,
    and the gevent worker patches sockets after that), so its connections are cooperative ones. Its
    calls go through a :class:`GroupCommit`: the calls that queue while one is under way are sent
    together as one script (one per cluster slot), atomic on its node, each call in it still its own
    compare-and-set: one round trip, one script and one append to Redis's append-only file (one
    fsync) for them all.
    """

    def __init__(self, url: str, ttl: float, timeout: float, on_batch: OnBatch = unobserved):
        import redis
        import redis.exceptions
        from redis.crc import key_slot

        self._errors = (redis.RedisError, redis.exceptions.RedisClusterException, OSError)
        # The errors after which a script sent may still run: Redis read it, then was too slow to
        # answer (paused, overloaded) or the connection went. A refusal (MISCONF, NOSCRIPT) ran nothing.
        self._unanswered = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.RedisClusterException, OSError)
        self._no_script = redis.exceptions.NoScriptError
        self.url = url
        self._on_batch = on_batch
        self.cluster = urlsplit(url).scheme in CLUSTER_SCHEMES
        self.sentinel = urlsplit(url).scheme in SENTINEL_SCHEMES
        self.replicas = replicas_of(url)  # how many replicas must hold a write before it is answered (WAIT)
        # A script's keys must share a slot on a cluster: a batch is one script per slot there.
        self._slot: Callable[[str], int] = (lambda key: key_slot(key.encode())) if self.cluster else (lambda key: 0)
        self.ttl = max(1, int(ttl))
        self.timeout = timeout
        self._pid = -1
        self._redis: Any = None
        self._group: GroupCommit | None = None
        self.ahead_ms = AHEAD
        self._skew: int | None = None  # ms from this machine's monotonic clock to Redis's TIME, once read (``now``)
        self._retry: Any = None  # this process's client's Retry (see _noting_retry)

    def _client(self) -> Any:
        if self._pid != os.getpid():
            # Two first calls at once may each make a client (a cluster's asks its node for the slots,
            # a wait no lock may be held across under gevent); either one serves, and one is kept.
            client = self._connect()
            self._redis, self._group, self._pid = client, GroupCommit(self._send, on_batch=self._on_batch), os.getpid()
        return self._redis

    def _connect(self) -> Any:
        """A client for this process."""
        import redis
        import redis.cluster
        import redis.sentinel
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # Retried once on a lost connection only: a call that timed out is not sent again (the answer is
        # due within the timeout, docs/api.md §11), and the caller is told its outcome is unknown.
        self._retry = _noting_retry(Retry)(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
        options: dict[str, Any] = {
            "socket_timeout": self.timeout,
            "socket_connect_timeout": self.timeout,
            # One immediate retry of a failed connection (a pooled one Redis dropped on a restart): a
            # call takes at most twice the timeout. Sending a batch again is safe: the same action at
            # the same seq is the recorded answer.
            "retry": self._retry,
            "decode_responses": True,
        }
        url = self.url.partition("?")[0]  # ?replicas=n is the ledger's, not redis-py's
        scheme, _, rest = url.partition("://")
        if self.cluster:  # asks that node for the cluster's nodes and slots now
            return redis.cluster.RedisCluster.from_url(f"{CLUSTER_SCHEMES[scheme]}://{rest}", **options)
        if self.sentinel:
            # Each new connection asks the sentinels where the primary is now: after a failover the first
            # call that finds its connection gone reconnects to the promoted replica by itself.
            addresses, service = sentinels(url)
            parts = urlsplit(url)
            timeouts: dict[str, Any] = {"socket_timeout": self.timeout, "socket_connect_timeout": self.timeout}
            watchers = redis.sentinel.Sentinel(addresses, sentinel_kwargs=timeouts, **timeouts)
            if parts.password is not None:
                options["password"] = parts.password
            return watchers.master_for(service, ssl=SENTINEL_SCHEMES[scheme] == "rediss", **options)
        return redis.Redis.from_url(url, retry_on_timeout=False, **options)

    def _call(self, work: Callable[[], _T]) -> _T:
        try:
            return work()
        except self._errors as exc:
            LOG.warning("ledger call failed", extra={"store": "redis", "error": _said(exc)})
            raise LedgerUnavailable(f"Redis ledger: {_said(exc)}") from None

    def _script(self, name: str, game_id: str, *args: Any) -> list[Any]:
        """One call of the batch script on the game's one key, sent with this process's next batch;
        its answer without the leading 1."""
        self._call(self._client)
        assert self._group is not None
        answer: list[Any] = self._group.run((game_key(game_id), (name, *args)), deadline(self.timeout), name in WRITES)
        return answer

    def _send(self, batch: list[Work]) -> None:
        """Every call of ``batch`` in one round trip: one script per slot (one in all, off a cluster);
        each call's answer, or a :class:`LedgerUnavailable`, set on it.

        A Redis that has lost its script cache (it was restarted) refuses a
        script with ``NOSCRIPT``, having run nothing: it is given the script
        and those calls are sent once more.
        """
        by_slot: dict[int, list[Work]] = {}
        for item in batch:
            by_slot.setdefault(self._slot(item.work[0]), []).append(item)
        groups = list(by_slot.values())
        type(self._retry).maybe_sent = False
        try:
            replies = self._scripts(groups)
            again = [n for n, reply in enumerate(replies) if isinstance(reply, self._no_script)]
            if again:
                self._redis.script_load(_BATCH)
                for n, reply in zip(again, self._scripts([groups[n] for n in again]), strict=True):
                    replies[n] = reply
        except self._errors as exc:
            replies = [exc] * len(groups)
        failed = [reply for reply in replies if isinstance(reply, Exception)]
        if failed:  # one line a failed round trip (a batch), as SQLite logs a failed write: no traceback
            LOG.warning("ledger call failed", extra={"store": "redis", "calls": len(batch), "error": _said(failed[0])})
        for group, reply in zip(groups, replies, strict=True):
            for n, item in enumerate(group):
                if isinstance(reply, Unconfirmed):  # run, and not yet held by enough replicas
                    if item.work[1][0] in WRITES:
                        item.error = LedgerOutcomeUnknown(
                            f"Redis ledger: {reply.confirmed} of the {self.replicas} replicas asked for "
                            "confirmed the write in time"
                        )
                        continue
                    reply = reply.reply
                if isinstance(reply, Exception):  # the script's error: unreachable, cannot write (MISCONF)...
                    item.error = self._failure(reply, item.work[1][0])
                elif reply[n][0] == 1:
                    item.value = reply[n][1:]
                else:  # the call's own error (out of memory): it wrote nothing
                    item.error = LedgerUnavailable(f"Redis ledger: {reply[n][1]}")

    def _failure(self, error: Exception, call: str) -> LedgerUnavailable:
        """What a call's failure tells: nothing was applied, or, for a move that may have reached Redis
        and still run there, nothing is known (see :class:`~referee.private.ledger.base.LedgerOutcomeUnknown`)."""
        message = f"Redis ledger: {_said(error)}"
        if (
            call in WRITES
            and isinstance(error, self._unanswered)
            and (type(self._retry).maybe_sent or not _before_sending(error))
        ):
            return LedgerOutcomeUnknown(message)
        return LedgerUnavailable(message)

    def _scripts(self, groups: list[list[Work]]) -> list[Any]:
        """The replies to one batch script per group, sent in one pipeline (an error in its place); with
        ``?replicas=n`` and a write among them, a ``WAIT`` ends the pipeline, and a reply whose write
        fewer than n replicas confirmed is :class:`Unconfirmed`."""
        if self.replicas and self.cluster:
            return self._scripts_per_node(groups)
        return self._pipeline(self._redis, groups)

    def _pipeline(self, client: Any, groups: list[list[Work]]) -> list[Any]:
        """One pipeline on ``client`` (one connection: the one ``WAIT`` counts the writes of)."""
        pipe = client.pipeline(transaction=False)
        for group in groups:
            keys = [item.work[0] for item in group]
            pipe.execute_command("EVALSHA", _BATCH_SHA, len(keys), *keys, *(a for item in group for a in item.work[1]))
        waits = self.replicas > 0 and any(item.work[1][0] in WRITES for group in groups for item in group)
        if waits:
            pipe.execute_command("WAIT", self.replicas, self._wait_ms(groups))
        replies: list[Any] = pipe.execute(raise_on_error=False)
        if waits:
            confirmed = replies.pop()
            if not isinstance(confirmed, int) or confirmed < self.replicas:
                count = confirmed if isinstance(confirmed, int) else 0
                replies = [reply if isinstance(reply, Exception) else Unconfirmed(reply, count) for reply in replies]
        return replies

    def _wait_ms(self, groups: list[list[Work]]) -> int:
        """How long ``WAIT`` may wait for the replicas (ms): until shortly before the first of the batch's
        callers stops waiting (its deadline and the grace), at most 80% of the timeout (so that its answer
        comes before the socket's timeout), at least 1 ms (``WAIT`` with 0 would wait for ever)."""
        first = min(item.deadline for group in groups for item in group)
        due = first + GRACE - WAIT_MARGIN - time.monotonic()
        return max(1, int(min(due, 0.8 * self.timeout) * 1000))

    def _scripts_per_node(self, groups: list[list[Work]]) -> list[Any]:
        """On a cluster with ``?replicas=n``: each node's scripts and its ``WAIT`` on one connection to
        that node (a cluster pipeline may spread them over several). A node that is gone, or that no longer
        holds a slot (MOVED), has the cluster's map read again for the next batch."""
        by_node: dict[str, tuple[Any, list[int]]] = {}
        for n, group in enumerate(groups):
            node = self._redis.get_node_from_key(group[0].work[0])
            by_node.setdefault(node.name, (node, []))[1].append(n)
        replies: list[Any] = [None] * len(groups)
        for node, numbers in by_node.values():
            try:
                got = self._pipeline(self._redis.get_redis_connection(node), [groups[n] for n in numbers])
            except self._errors as exc:
                got = [exc] * len(numbers)
            if any(_moved(reply) or isinstance(reply, self._unanswered) for reply in got):
                self._remap()
            for n, reply in zip(numbers, got, strict=True):
                replies[n] = reply
        return replies

    def _remap(self) -> None:
        """Read the cluster's nodes and slots again (after a failover or a reshard); a cluster that cannot
        answer now is asked again after the next failure."""
        try:
            self._redis.nodes_manager.initialize()
        except self._errors as exc:
            LOG.warning("ledger cluster map not read", extra={"store": "redis", "error": _said(exc)})

    def start(self, game_id: str, token: str, only_new: bool = False) -> bool:
        return bool(self._script("start", game_id, token, self.ttl, int(only_new))[0])

    def record(self, game_id: str, seq: int, digest: str, token: str, sent: str, at: int | None = None) -> Outcome:
        # The token sent (5 KB) travels only for a game the ledger does not hold: a second, rare round trip.
        call: tuple[Any, ...] = ("record", game_id) if at is None else ("record_at", game_id, at - self.ahead_ms)
        kind, latest, recorded, *clock = self._script(*call, seq, digest, token, self.ttl, "")
        if kind == 3:
            kind, latest, recorded, *clock = self._script(*call, seq, digest, token, self.ttl, sent)
        if clock:
            self._skew = int(clock[0]) - steady_ms()  # Redis's TIME as this record read it
        if kind == 4:
            return Outcome(SKEWED, int(latest) + self.ahead_ms)
        if kind == 1:
            return Outcome(APPLIED, latest, token)
        if kind == 2:
            return Outcome(REPEATED, latest, recorded)
        return Outcome(STALE, latest)

    def stale(self, game_id: str, seq: int, digest: str) -> int | None:
        (latest,) = self._script("stale", game_id, seq, digest)
        return None if latest < 0 else int(latest)

    def latest(self, game_id: str) -> tuple[int, str] | None:
        found = self._script("latest", game_id)
        return (int(found[0]), found[1]) if found else None

    def move(self, game_id: str, seq: int) -> tuple[str, str] | None:
        found = self._script("move", game_id, seq)
        return (found[0], found[1]) if found else None

    def now(self, game_id: str) -> int:
        """Redis's clock: ``TIME``, read in the batch script, once; then this machine's clock plus the offset
        every timed record renews (it reads ``TIME`` too, and refuses a time too far from it: ``record``'s
        ``at``), so a move costs no second round trip."""
        if self._skew is None:
            before = steady_ms()
            (now,) = self._script("now", game_id)
            self._skew = int(now) - (before + steady_ms()) // 2
        return steady_ms() + self._skew + self.ahead_ms

    def ping(self) -> None:
        self._call(lambda: self._client().ping())

    def close(self) -> None:
        if self._pid == os.getpid():
            self._redis.close()
        self._pid, self._redis, self._group = -1, None, None

    def size(self, game_id: str) -> int:
        """Bytes Redis uses for one game (the benchmark's ledger size)."""
        return int(self._call(lambda: self._client().memory_usage(game_key(game_id), samples=0)) or 0)
