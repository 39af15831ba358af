"""The request metrics (:func:`referee.service.metrics.record`, with its cached labelled children) count
exactly what prometheus_client's own inc()/observe() count, in every process, forked ones included."""

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


def test_metrics_use_only_prometheus_clients_public_api():
    """No private name of prometheus_client (``_pack_two_doubles``, ``_positions``, ``._value``...)."""
    import re
    from pathlib import Path

    import referee.service.metrics as metrics

    source = Path(metrics.__file__).read_text("utf-8")
    assert not re.findall(r"prometheus_client[\w.]*\._\w+|\.\_(?!_)\w+", source)


def test_a_dead_worker_leaves_no_gauge_file_behind(serve, tmp_path):
    """Given a server, when its worker dies and is replaced, then its live-gauge files are gone
    (``mark_process_dead`` in ``child_exit``) and /metrics still reports the catalog once."""
    import re
    import signal
    import time

    import httpx

    metrics_dir = tmp_path / "metrics"
    server = serve(env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)})
    [pid] = re.findall(r"Booting worker with pid: (\d+)", server.output())
    assert list(metrics_dir.glob(f"gauge_*_{pid}.db"))
    os.kill(int(pid), signal.SIGKILL)
    deadline = time.monotonic() + 30
    while len(re.findall(r"Booting worker with pid", server.output())) < 2:
        assert time.monotonic() < deadline, server.output()[-2000:]
        time.sleep(0.1)
    deadline = time.monotonic() + 10
    while list(metrics_dir.glob(f"gauge_*_{pid}.db")):
        assert time.monotonic() < deadline, sorted(p.name for p in metrics_dir.iterdir())
        time.sleep(0.1)
    text = httpx.get(server.url + "/metrics", timeout=10).text
    assert len([line for line in text.splitlines() if line.startswith("referee_catalog_info{")]) == 1
