# syntax=docker/dockerfile:1
# The referee's HTTP service: gunicorn's own workers (gevent by default; sync behind the shipped nginx),
# docs/operations.md "Running it for real".
#
#   docker build -t ace-file-referee:0.1.0 .     (the tag is the package version, pyproject.toml)
#   docker run --rm -p 8000:8000 -e REFEREE_SECRET=... ace-file-referee:0.1.0
#
# Settings by environment: `docker run --rm ace-file-referee:0.1.0 --help` lists them
# (also docs/operations.md).

ARG PYTHON_VERSION=3.11

# -- build: a wheel of the project and of every dependency ----------------------
FROM python:${PYTHON_VERSION}-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY referee ./referee
COPY schemas ./schemas
RUN python -m pip wheel --wheel-dir /wheels .

# -- runtime: the wheels installed into a venv, run as a non-root user ----------
FROM python:${PYTHON_VERSION}-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/referee \
    PATH=/opt/referee/bin:$PATH \
    REFEREE_HOST=0.0.0.0 \
    REFEREE_PORT=8000 \
    REFEREE_WORKERS=2 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/referee-metrics
RUN groupadd --system --gid 10001 referee \
 && useradd --system --uid 10001 --gid referee --home-dir /nonexistent --shell /usr/sbin/nologin referee
COPY --from=build /wheels /wheels
RUN python -m venv "$VIRTUAL_ENV" \
 && "$VIRTUAL_ENV/bin/pip" install --no-index --find-links /wheels ace-file-referee \
 && rm -rf /wheels \
 && install -d -o referee -g referee "$PROMETHEUS_MULTIPROC_DIR"
USER 10001:10001
EXPOSE 8000
STOPSIGNAL SIGTERM
# GET /livez on the address the server listens on, read from the server's own environment (REFEREE_BIND), so
# a port set by REFEREE_PORT or by `--port` is followed (referee/service/healthcheck.py).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-m", "referee.service.healthcheck"]
# `referee serve` checks the settings, then execs gunicorn (PID 1 stays gunicorn).
ENTRYPOINT ["referee", "serve"]
CMD []
