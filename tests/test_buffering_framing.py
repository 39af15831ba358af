"""Where a chunked body ends, as the buffering worker finds it while the bytes arrive (issue 8)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.service.buffers import ChunkScan

HEAD = b"POST /v1/apply HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunked(parts: list[bytes], trailers: list[bytes]) -> bytes:
    body = b"".join(
        b"%x;ext=1\r\n%s\r\n" % (len(p), p) if n % 2 else b"%X\r\n%s\r\n" % (len(p), p)
        for n, p in enumerate(parts)
        if p
    )
    return body + b"0\r\n" + b"".join(t + b"\r\n" for t in trailers) + b"\r\n"


@settings(deadline=None)  # a loaded machine must not fail it
@given(
    parts=st.lists(st.binary(max_size=40), max_size=6),
    trailers=st.lists(st.sampled_from([b"X-A: 1", b"X-Checksum: abc"]), max_size=2),
    cuts=st.lists(st.integers(min_value=1, max_value=30), max_size=20),
)
def test_a_chunked_body_is_whole_exactly_when_its_last_byte_arrives(parts, trailers, cuts):
    """Given a chunked body (extensions, trailers) arriving in arbitrary pieces,
    then the scan says "whole" at its last byte and never before."""
    message = HEAD + chunked(parts, trailers)
    scan, data, at = ChunkScan(len(HEAD)), bytearray(), 0
    for size in [*cuts, len(message)]:
        data += message[at : at + size]
        at = min(len(message), at + size)
        assert scan.advance(data) == (at == len(message))
        if at == len(message):
            break


def test_a_chunk_size_that_is_not_hexadecimal_ends_the_wait():
    """Then the parser, not the scan, answers for the broken framing (a 400)."""
    assert ChunkScan(len(HEAD)).advance(bytearray(HEAD + b"zz\r\nabc"))
