# syntax=docker/dockerfile:1
#
# One image for every svc command: `svc api`, `svc worker` and `svc migrate` in a deployment
# (see docker-compose.yml), and `svc dev` / `svc bootstrap` too.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t svc .

# --- build: the static binary, with the Makefile's flags (make build) ---
FROM golang:1.26-bookworm AS build
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
WORKDIR /src
COPY . .
ARG VERSION=dev
# `make build` is the one place the build flags live: go build -ldflags "-X …/buildinfo.Version=$(VERSION)" ./cmd/svc
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    make build VERSION="${VERSION}" && ./bin/svc version

# --- runtime: Debian, because the document pipeline runs Debian's OCR and PDF tools ---
FROM debian:bookworm-slim
# internal/documents/APT_PACKAGES is the one list of the programs docintel shells out to (tesseract, poppler-utils, qpdf, ...).
COPY internal/documents/APT_PACKAGES /tmp/APT_PACKAGES
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates $(grep -v '^[[:space:]]*#' /tmp/APT_PACKAGES) \
 && rm -rf /var/lib/apt/lists/* /tmp/APT_PACKAGES \
 && groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /var/lib/svc --shell /usr/sbin/nologin svc \
 && install -d -o svc -g svc -m 0700 /var/lib/svc /var/lib/svc/blobs
COPY --from=build /src/bin/svc /usr/local/bin/svc

# Image defaults: listen on every interface (the port below), keep data under /var/lib/svc.
# Everything else is configured with SVC_* variables (config/config.go lists every key).
ENV SVC_HTTP_ADDR=0.0.0.0:8080 \
    SVC_DATA_DIR=/var/lib/svc
USER 10001:10001
WORKDIR /var/lib/svc
EXPOSE 8080
ENTRYPOINT ["svc"]
CMD ["--help"]
