"""A protocol bot for tests/test_arena.py: writes every byte it is sent to the file named by its first argument,
and answers the first listed index. With a second argument it misbehaves: ``crash`` (exits at its first move),
``garbage`` (answers a line that is not JSON), ``illegal`` (answers an index not listed), ``slow`` (answers its
first move, then never again)."""

import json
import sys
import time

log = open(sys.argv[1], "ab")  # noqa: SIM115 (kept open for the whole game)
mode = sys.argv[2] if len(sys.argv) > 2 else ""
moves = 0
for raw in sys.stdin.buffer:
    log.write(raw)
    log.flush()
    message = json.loads(raw)
    if message["type"] != "act":
        continue
    moves += 1
    if mode == "crash":
        sys.exit(3)
    if mode == "garbage":
        answer = "hello"
    elif mode == "illegal":
        answer = json.dumps({"index": -1})
    else:
        if mode == "slow" and moves > 1:
            time.sleep(60)
        answer = json.dumps({"index": message["legal"][0]["index"]})
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
