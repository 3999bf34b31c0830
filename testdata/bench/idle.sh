#!/usr/bin/env bash
# idle.sh: what rostra costs while its workers are quiet, this tree beside
# an earlier commit, interleaved round by round in one run (docs/performance.md: "idle
# is silent", and docs/server.md's idle figures):
#
#   - the server with no client (rostra run --detach), 16 quiet panes
#     (12 `sleep`, 4 `cat` waiting for input): target <= 0.2 % of a core;
#   - the same with one idle client attached in an outer tmux (server's CPU
#     plus the client's): target <= 1 %;
#   - the direct UI (rostra run --no-server in the outer tmux): <= 0.1 %;
#   - 4 quiet isolated panes in a 5,000-file repository, with the CPU of the
#     git processes rostra runs for them (the live diff-stat).
#
# CPU is utime+stime of rostra's processes and their threads over 30 s
# (/proc/<pid>/stat), after 5 s to settle; the workers' own CPU is not
# rostra's.
#
#   bash testdata/bench/idle.sh                    # against a2ea9a0, 3 rounds
#   bash testdata/bench/idle.sh main -rounds 5     # against another ref
#   bash testdata/bench/idle.sh a2ea9a0 -only idle -idle 60
#
# Flags after the ref go to the peers harness (testdata/bench/peers). Run it
# on an otherwise idle machine: the load average is printed before and
# after, and figures taken under load are not final.
set -euo pipefail
cd "$(dirname "$0")/../.."
ref=${1:-a2ea9a0}
shift || true
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir "$bin/before-src"
git archive "$ref" | tar -x -C "$bin/before-src"
(cd "$bin/before-src" && go build -o "$bin/before" ./cmd/rostra)
go build -o "$bin/rostra" ./cmd/rostra
go build -o "$bin/peers" ./testdata/bench/peers
echo "# $(nproc) cores; before = $ref ($(git rev-parse --short "$ref")), after = this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', modified'))"
"$bin/peers" -rostra "$bin/rostra" -before "$bin/before" -peers rostra,rostra-direct,rostra-detached \
	-only idle,idle-iso -rounds 3 "$@"
