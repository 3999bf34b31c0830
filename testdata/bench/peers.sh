#!/usr/bin/env bash
# peers.sh: rostra beside a bare pty drain, tmux and mprocs, interleaved in
# one run (docs/performance.md). Prints a Markdown table of medians and ratios.
#
#   bash testdata/bench/peers.sh                  # 5 rounds, every workload
#   bash testdata/bench/peers.sh -rounds 1 -only one,echo
#
# Flags go to the harness (testdata/bench/peers/main.go): -rounds N,
# -mib N (one pane; four panes cat N/2 each), -idle SECONDS, -settle SECONDS, -echo N,
# -only one,four,idle,idle-iso,rss,echo,echo-busy,hundred. Needs tmux; mprocs is used when it is on
# PATH, named by $MPROCS, or installable with npm (mprocs@0.9.6 ships a
# Linux binary). Run it on an otherwise idle machine: the numbers are wall
# times and CPU shares.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/rostra" ./cmd/rostra
go build -o "$bin/peers" ./testdata/bench/peers
mprocs=${MPROCS:-$(command -v mprocs || true)}
if [[ -z $mprocs ]] && command -v npm >/dev/null; then
	if (cd "$bin" && npm install --silent mprocs@0.9.6 >/dev/null 2>&1); then
		mprocs=$(find "$bin/node_modules/mprocs" -path '*linux-x86_64*' -name mprocs -type f | head -1)
	fi
fi
args=(-rostra "$bin/rostra" -rounds 5)
[[ -n $mprocs ]] && args+=(-mprocs "$mprocs")
echo "# $(nproc) cores; tmux $(tmux -V | cut -d' ' -f2); mprocs: ${mprocs:-not found}"
"$bin/peers" "${args[@]}" "$@"
