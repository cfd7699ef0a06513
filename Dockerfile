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

FROM scratch
COPY --from=build /out/servesim /servesim
COPY examples/scenarios /scenarios
WORKDIR /work
ENTRYPOINT ["/servesim"]
