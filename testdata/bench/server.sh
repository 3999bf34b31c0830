#!/usr/bin/env bash
# server.sh: docs/server.md's numbers, side by side. The UI served to an attached
# client (rostra run) against the UI in rostra's own process (rostra run
# --no-server), and the server with no client (rostra run --detach):
#
#   - throughput of one flooding pane, attached vs direct (Go benchmark,
#     both drawing into io.Discard, interleaved run by run; then in a real
#     outer tmux, peers);
#   - how soon an attach shows all 16 busy panes (Go benchmark);
#   - CPU with 16 quiet panes: no client, one idle client, direct (peers);
#   - keystroke echo into cat (peers).
#
#   bash testdata/bench/server.sh                 # 5 rounds of peers
#   bash testdata/bench/server.sh -rounds 1       # flags go to peers
#
# Run it on an otherwise idle machine: the numbers are wall times and CPU
# shares.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "# $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
ROSTRA_BENCH_MIB=${ROSTRA_BENCH_MIB:-64} go test ./cmd/rostra -run '^$' \
	-bench 'BenchmarkAttachedThroughput$' -benchtime 8x | grep -E '^(Benchmark|one pane)'
go test ./cmd/rostra -run '^$' -bench 'BenchmarkAttachShowsEveryPane$' -benchtime 50x | grep -E '^(Benchmark|attach)'
bash testdata/bench/peers.sh -peers rostra,rostra-direct,rostra-detached -only one,idle,echo "$@"
