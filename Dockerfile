# The Hanafuda Referee service: gRPC on 50051, HTTP/JSON on 8080, settings from HANAFUDA_* and
# REDIS_URL (service/hanafuda_referee/config.py). Build from the repository root:
#
#   docker build -t hanafuda-referee .
#   docker run --rm -p 50051:50051 -p 8080:8080 --stop-timeout 20 hanafuda-referee
#
# Two stages on one base: the builder installs the project into a virtualenv, the final stage
# copies only that virtualenv, so no build tool, source tree or pip cache reaches the image.

# Pinned by tag, not digest: the digest of a tag can only be read from the registry, and this
# file was written without access to it. For reproducible builds, pin it at build time:
#   docker build --build-arg PYTHON_IMAGE=python:3.11-slim-bookworm@sha256:<digest> .
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore

# A virtualenv without pip of its own: the base image's pip installs into it (--python), so the
# copied environment holds the service and its dependencies and nothing to install more with.
RUN python -m venv --without-pip /opt/venv

WORKDIR /src

# The dependencies first, in a layer of their own that only a change to the lock rebuilds: exact
# versions, each file checked against its hash (scripts/lock-deps writes the lock), so two builds
# of one commit install the same files.
COPY deploy/requirements.lock ./
RUN pip --python /opt/venv/bin/python install --require-hashes --no-deps -r requirements.lock

# Then the project itself: the client distribution (clients/python: the generated stubs the
# service imports; on no index, so from the tree) and the service, regular (not editable)
# installs without the dev extras. pip compiles the bytecode here, so the read-only venv of the
# final stage needs no writes.
COPY pyproject.toml README.md ./
COPY service service
COPY clients/python clients/python
RUN pip --python /opt/venv/bin/python install --no-deps ./clients/python .


FROM ${PYTHON_IMAGE}

ARG PYTHON_IMAGE
LABEL org.opencontainers.image.title="hanafuda-referee" \
      org.opencontainers.image.description="A rules referee for the hanafuda games Koi-Koi and Hachi-Hachi: gRPC and HTTP/JSON" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.base.name="${PYTHON_IMAGE}"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    HANAFUDA_HOST=0.0.0.0

# A fixed UID and GID, so that volumes and Kubernetes' runAsNonRoot can rely on them.
RUN groupadd --gid 10001 referee \
    && useradd --uid 10001 --gid 10001 --no-log-init --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin referee

COPY --from=builder /opt/venv /opt/venv

USER 10001:10001

EXPOSE 50051 8080

# Liveness over HTTP with the interpreter the image already has (a slim image has no curl). It
# follows HANAFUDA_HTTP_PORT; a port set by a command-line flag instead is not seen here.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('HANAFUDA_HTTP_PORT', '8080'), timeout=4)"]

# The service drains in-flight calls on SIGTERM for HANAFUDA_SHUTDOWN_GRACE seconds (10 by
# default): give the container longer than that to stop (docker run --stop-timeout 20, or
# stop_grace_period in compose) or it is killed mid-drain.
STOPSIGNAL SIGTERM

# Exec form: the service is PID 1 and receives the signals itself, with no shell in between.
ENTRYPOINT ["hanafuda-referee"]
CMD ["serve"]
