"""``referee serve`` for an operator, against the real server: the metrics directory a
container's fresh ``/tmp`` lacks, and ``/metrics`` on a listener of its own.

What serve refuses (one line, no traceback) is in tests/test_service_cli.py; the
version /livez reports, in tests/test_packaging.py.
"""

from __future__ import annotations

import httpx
import pytest
from conftest import free_port

pytestmark = pytest.mark.e2e


def test_a_missing_metrics_dir_under_a_writable_parent_is_created(serve, tmp_path):
    # given /tmp just mounted empty, as compose's tmpfs and Kubernetes' emptyDir leave it
    fresh_tmp = tmp_path / "tmp"
    fresh_tmp.mkdir()
    metrics_dir = fresh_tmp / "referee-metrics"
    # when the server starts with the image's setting
    server = serve(env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)})
    # then it made the directory and its workers share metrics there
    assert metrics_dir.is_dir()
    httpx.get(server.url + "/v1/cards").raise_for_status()
    text = httpx.get(server.url + "/metrics").text
    assert 'referee_requests_total{endpoint="game.cards",method="GET",status="200"}' in text
    assert list(metrics_dir.glob("*.db"))


def test_metrics_on_their_own_port(serve):
    metrics_port = free_port()
    server = serve(workers=2, env={"REFEREE_METRICS_PORT": str(metrics_port)})
    metrics_url = f"http://127.0.0.1:{metrics_port}"
    with httpx.Client(base_url=server.url, timeout=10) as api:
        api.get("/v1/cards").raise_for_status()
        # the API port no longer serves them, even to a client that names the metrics port
        hidden = api.get("/metrics", headers={"Host": f"127.0.0.1:{metrics_port}"})
        assert hidden.status_code == 404
        assert hidden.headers["content-type"] == "application/problem+json"
    with httpx.Client(base_url=metrics_url, timeout=10) as scraper:
        scraped = scraper.get("/metrics")
        assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
        assert 'referee_requests_total{endpoint="game.cards",method="GET",status="200"}' in scraped.text
        # the metrics port serves nothing else
        assert scraper.get("/v1/cards").status_code == 404
        assert scraper.post("/metrics", content=b"").status_code == 404
