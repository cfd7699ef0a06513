# A static servesim binary in an empty image, for sweeps spread over a
# Kubernetes Indexed Job or a Slurm array (docs/scale-out.md).
#
#   docker build -t servesim .
#   docker run --rm servesim bench --num-prompts 1000
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/servesim ./cmd/servesim

# busybox, not scratch: a shard writes JSON to stdout, and a shell in the
# image lets a Job redirect it to a file (docs/scale-out.md).
FROM busybox:1.36
COPY --from=build /out/servesim /usr/local/bin/servesim
COPY examples/scenarios /scenarios
WORKDIR /work
ENTRYPOINT ["servesim"]
