#!/usr/bin/env bash
# replay-vs-tmux.sh times `rostra replay` against tmux consuming the same
# 64 MiB of coloured logs through a 120x40 pane (stty raw -echo; cat), side
# by side (docs/performance.md). Usage: replay-vs-tmux.sh [ROSTRA_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
work=$(mktemp -d)
sock="rostra-bench-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin="$work/rostra"
	go build -o "$bin" ./cmd/rostra
fi
python3 - "$work/logs.bin" <<'PY'
import random, sys
random.seed(1)
words = ("request served cache miss upstream latency retry connection pool handler user session "
         "token refreshed queue depth worker started finished compile module package test").split()
levels = ["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"]
out, size, n = [], 0, 0
while size < 64 << 20:
    line = "\x1b[2m2026-11-30T06:%02d:%02d.%03dZ\x1b[0m %s \x1b[38;5;%dm[%s]\x1b[0m %s" % (
        n // 60 % 60, n % 60, n % 1000, random.choice(levels), 16 + random.randrange(216),
        random.choice(words), " ".join(random.choice(words) for _ in range(4 + random.randrange(10))))
    if n % 3 == 0:
        line += " \x1b[38;2;%d;%d;64mlatency=%dms\x1b[0m" % (128 + random.randrange(128), random.randrange(256), random.randrange(1000))
    line += "\r\n"
    out.append(line)
    size += len(line)
    n += 1
open(sys.argv[1], "wb").write("".join(out).encode())
PY
ls -l "$work/logs.bin" | awk '{printf "stream: %.1f MiB\n", $5/1048576}'

t0=$(date +%s.%N)
"$bin" replay --size 120x40 "$work/logs.bin" >/dev/null
t1=$(date +%s.%N)
echo "rostra replay: $(echo "$t1 - $t0" | bc) s"

tmux -L "$sock" -f /dev/null start-server \; set -g status off \; set -g exit-empty off
t0=$(date +%s.%N)
tmux -L "$sock" new-session -d -x 120 -y 40 "stty raw -echo; cat '$work/logs.bin'; printf '\\033]2;bench-done\\033\\\\'; exec sleep 600"
until [ "$(tmux -L "$sock" display -p '#{pane_title}')" = bench-done ]; do sleep 0.02; done
t1=$(date +%s.%N)
echo "tmux pane:     $(echo "$t1 - $t0" | bc) s"
