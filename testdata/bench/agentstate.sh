#!/usr/bin/env bash
# agentstate.sh: what following agents' states costs (docs/performance.md,
# "Agent state"): hook to state on screen (median, p95 over 80 samples),
# `rostra hook`'s own run time, and the idle CPU of the server and its
# attached client with 16 panes whose agents wait against 16 plain quiet
# panes. See testdata/bench/agentstate/main.go.
#
#   bash testdata/bench/agentstate.sh                  # both, 40+40 samples, 2 rounds of 30 s
#   bash testdata/bench/agentstate.sh -only idle -idle 60 -rounds 3
#
# Run it on an otherwise idle machine: the load average is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/rostra" ./cmd/rostra
go build -o "$bin/agentstate" ./testdata/bench/agentstate
echo "# this tree: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', modified')"
"$bin/agentstate" -rostra "$bin/rostra" "$@"
