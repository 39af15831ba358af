"""The metrics' fast path (samples written straight to their multiprocess slots) counts exactly what
prometheus_client's own inc()/observe() count, in every process, forked ones included."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import os, re
    from prometheus_client import CollectorRegistry, generate_latest, multiprocess
    from referee.service import metrics

    samples = [0.0004, 0.0005, 0.0015, 0.003, 0.02, 7.0, 0.0001]
    def by_fast_path(endpoint):
        for s in samples:
            metrics.record(endpoint, "POST", 200, s, None)
        metrics.record(endpoint, "POST", 422, 0.002, ("8.2", endpoint))
    def by_public_api(endpoint):
        for s in samples:
            metrics.REQUESTS.labels(endpoint, "POST", "200").inc()
            metrics.LATENCY.labels(endpoint).observe(s)
        metrics.REQUESTS.labels(endpoint, "POST", "422").inc()
        metrics.LATENCY.labels(endpoint).observe(0.002)
        metrics.VIOLATIONS.labels("8.2", endpoint).inc()

    by_fast_path("fast")            # the parent's slots are looked up before the fork
    pid = os.fork()
    if pid == 0:                    # a worker: its own file, its own slots
        by_fast_path("fast")
        by_public_api("public")
        os._exit(0)
    os.waitpid(pid, 0)
    by_public_api("public")
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    text = generate_latest(registry).decode()
    def values(endpoint):
        return sorted(re.sub(endpoint, "X", line) for line in text.splitlines()
                      if f'"{endpoint}"' in line)
    assert values("fast") == values("public"), (values("fast"), values("public"))
    assert 'referee_requests_total{endpoint="fast",method="POST",status="200"} 14.0' in text
    print("ok", len(values("fast")))
""")


def test_fast_path_counts_what_the_public_api_counts(tmp_path):
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok ")


def test_fast_path_is_used_in_multiprocess_mode(tmp_path):
    script = (
        "from referee.service import metrics\n"
        "metrics.record('e', 'GET', 200, 0.001, None)\n"
        "print(type(metrics._REQUESTS[('e', 'GET', 200)]).__name__)\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "function", out.stderr  # our slot writer, not prometheus_client's bound method
