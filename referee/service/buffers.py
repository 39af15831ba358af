"""What the buffering worker (:mod:`referee.service.buffering`) keeps for each connection: the request's
bytes and where its body ends, and the answer gunicorn's ``Response`` writes."""

from __future__ import annotations

import socket
from typing import Any

HEAD_END = b"\r\n\r\n"


class Reply:
    """The socket gunicorn's ``Response`` writes to: it keeps the bytes for the loop to send."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.parts.append(bytes(data))

    send = sendall  # "100 Continue", when the loop has not sent it yet

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts = []
        return data


class Connection:
    """One client: what it has sent, what is owed to it, and until when it may take."""

    __slots__ = (
        "addr",
        "chunks",
        "continued",
        "data",
        "deadline",
        "eof",
        "head_end",
        "lingering",
        "listener",
        "need",
        "out",
        "scanned",
        "sock",
        "watched",
    )

    def __init__(self, sock: socket.socket, addr: Any, listener: Any, deadline: float) -> None:
        self.sock, self.addr, self.listener, self.deadline = sock, addr, listener, deadline
        self.data = bytearray()
        self.scanned = 0  # where to look for the end of the head next
        self.head_end = -1  # the body's offset in data, once the head is whole
        self.need: int | None = None  # bytes in data that make the request whole (Content-Length)
        self.chunks: ChunkScan | None = None  # or the chunked body's progress
        self.continued = False  # "100 Continue" sent
        self.out = b""  # the answer still to write
        self.eof = False
        self.watched = 0  # the selector events the loop waits for on it
        self.lingering = False  # answered; its unread body is being read and dropped before the close


class ChunkScan:
    """Where a chunked body ends, found as its bytes arrive (gunicorn's parser reads it afterwards)."""

    def __init__(self, start: int) -> None:
        self.pos = start  # the next chunk-size line
        self.done = False

    def advance(self, data: bytearray) -> bool:
        """True once the last chunk and the trailers are in ``data`` (or the framing is broken:
        the parser then answers for it)."""
        while not self.done:
            eol = data.find(b"\r\n", self.pos)
            if eol < 0:
                return False
            size_text = bytes(data[self.pos : eol]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                self.done = True  # not a chunk size: let the parser say so
                break
            if size == 0:  # the last chunk, then trailer lines (or none) and an empty line
                if data.find(HEAD_END, eol) < 0:
                    return False
                self.done = True
                break
            if len(data) < eol + 2 + size + 2:
                return False
            self.pos = eol + 2 + size + 2
        return True
