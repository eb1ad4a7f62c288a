# mlsysd container image.
#
#   docker build -t mlsysd:0.1.0 \
#     --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg SOURCE=https://example.org/your/mlsysd .
#   docker run --rm -p 127.0.0.1:8080:8080 --read-only mlsysd:0.1.0
#
# Stages: build-deps (compiler and -dev packages, the slow part, cached on its own), build
# (compiles the daemon and runs its test suite: a failing test fails the image build) and
# runtime (only the runtime libraries and the stripped binary). See docs/deploy.md.

# ---------------------------------------------------------------------------------------------
FROM debian:bookworm-slim AS build-deps

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config \
      libmicrohttpd-dev libjansson-dev libyajl-dev libyaml-dev zlib1g-dev libcurl4-openssl-dev libcriterion-dev \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# ---------------------------------------------------------------------------------------------
FROM build-deps AS build

WORKDIR /src
COPY . .

# RUN_TESTS=0 skips the test suite (not recommended; CI always runs it).
# The golden-parity tests read tests/golden, so they run here too; the comparisons with the
# reference catalog look for ../shared (/shared here), which is absent, so they skip.
ARG RUN_TESTS=1
ARG REVISION=unknown
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLSYSD_GIT_REV="${REVISION}" \
 && cmake --build build -j"$(nproc)" \
 && if [ "$RUN_TESTS" = 1 ]; then ctest --test-dir build --output-on-failure; fi \
 && install -D -m 0755 -s build/mlsysd /out/usr/local/bin/mlsysd \
 && /out/usr/local/bin/mlsysd --version

# ---------------------------------------------------------------------------------------------
FROM debian:bookworm-slim AS runtime

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libyajl2 libyaml-0-2 zlib1g \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 mlsysd \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin mlsysd

COPY --from=build /out/ /

# Fail the build here, not at run time, if a shared library is missing from this stage.
RUN if ldd /usr/local/bin/mlsysd | grep -q 'not found'; then \
      ldd /usr/local/bin/mlsysd; exit 1; \
    fi \
 && /usr/local/bin/mlsysd --version

ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="mlsysd" \
      org.opencontainers.image.description="Stateless HTTP daemon answering ML-systems capacity questions" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="debian:bookworm-slim"

# Listen on every interface inside the container (the daemon's own default is 127.0.0.1).
# Drain settings sized for `docker stop`'s default 10 s grace period: 2 s drain delay plus at
# most 6 s for in-flight requests. Kubernetes sets its own (longer) values: deploy/k8s.
ENV MLSYSD_HOST=0.0.0.0 \
    MLSYSD_PORT=8080 \
    MLSYSD_DRAIN_DELAY=2 \
    MLSYSD_DRAIN_TIMEOUT=6

# Numeric uid:gid so that Kubernetes' runAsNonRoot can verify it without /etc/passwd.
USER 10001:10001
WORKDIR /
EXPOSE 8080
STOPSIGNAL SIGTERM

# Probes http://127.0.0.1:$MLSYSD_PORT/healthz from inside; exits 0 (healthy) or 1. No curl needed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/mlsysd", "--healthcheck"]

ENTRYPOINT ["/usr/local/bin/mlsysd"]
CMD []
