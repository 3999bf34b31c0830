#!/usr/bin/env bash
# capture.sh regenerates the real-program streams of this corpus: each
# program runs under `script` (util-linux) at a fixed size and its raw
# output, with script's header and trailer lines cut off, is saved as
# NAME@COLSxROWS.bin. Keys are fed through script's stdin with pauses.
# The synthetic streams (synth-*) are written by synth.sh.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seq 1 300 | sed 's/^/line number /' >"$work/file.txt"
cp ../../terminal.go "$work/sample.go" 2>/dev/null || printf 'package main\n\nfunc main() {}\n' >"$work/sample.go"

# cap NAME COLS ROWS CMD [KEYS-SCRIPT]
cap() {
	local name=$1 cols=$2 rows=$3 cmd=$4 keys=${5:-true}
	(eval "$keys") | (cd "$work" && TERM=xterm-256color LANG=C.UTF-8 script -q -O "$work/raw" \
		-c "stty cols $cols rows $rows; $cmd" >/dev/null) || true # killed by timeout on purpose
	# Drop script's "Script started" first line and "Script done" last line.
	python3 - "$work/raw" "$name@${cols}x${rows}.bin" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
b = b[b.index(b'\n') + 1:]
i = b.rfind(b'\nScript done')
if i >= 0:
    b = b[:i]
open(sys.argv[2], 'wb').write(b)
PY
}

# Full-screen programs are stopped by timeout while still up, so the final
# screen is theirs; the *-quit variants also check leaving the alt screen.
cap vim-scroll 80 24 "timeout -s KILL 2 vim -n -u NONE -N file.txt" \
	"sleep 0.6; printf '\x06'; sleep 0.2; printf '\x06'; sleep 0.2; printf 'jjjjjj'; sleep 0.2; printf '\x15'; sleep 1.5"
cap vim-quit 80 24 "timeout -s KILL 3 vim -n -u NONE -N file.txt" \
	"sleep 0.6; printf '\x06'; sleep 0.2; printf ':q!\r'; sleep 0.3"
cap vim-syntax 100 30 "timeout -s KILL 2 vim -n -u NONE -N -c 'syntax on' -c 'set number' -c 'set cursorline' sample.go" \
	"sleep 0.6; printf '40G'; sleep 0.3; printf 'ihello\x1b'; sleep 1.5"
cap less 80 24 "timeout -s KILL 2 less file.txt" \
	"sleep 0.4; printf ' '; sleep 0.2; printf 'b'; sleep 0.2; printf '/number 4\r'; sleep 0.3; printf 'G'; sleep 1.5"
cap less-inline 80 24 "seq 1 500 | less -X -F -R" \
	"sleep 0.4; printf ' '; sleep 0.2; printf 'q'; sleep 0.2"
cap dialog 80 24 "timeout -s KILL 1.5 dialog --title 'rostra' --backtitle 'ncurses with line drawing' --checklist 'Pick workers:' 15 50 5 a 'claude implementer' on b 'codex verifier' off c 'shell checker' on" \
	"sleep 0.5; printf '\x1b[B'; sleep 0.2; printf ' '; sleep 1.2"
cap top-batch 120 40 "COLUMNS=120 top -b -n 1 -w 120 | head -60"
cap top 120 40 "timeout -s KILL 1.5 top -d 0.3" "sleep 2"
cap ls-color 100 30 "ls --color=always -la /usr/bin | head -80; ls --color=always /etc"
cap git-log 120 40 "git -C $(git rev-parse --show-toplevel) log --graph --color=always --decorate -n 30 --format='%C(yellow)%h%Creset %s %C(cyan)<%an>%Creset' | cat"
cap cjk-emoji 80 24 "printf '中文字符测试 日本語のテキスト 한국어 텍스트\r\n'; printf 'emoji: 😀😃😄 🎉 ✓ ✗ → ←\r\n'; printf 'wide at edge: %074d中文\r\n' 0; printf 'combining: e\xcc\x81 a\xcc\x88 n\xcc\x83 cafe\xcc\x81\r\n'; printf 'box: ┌──┐│ok│└──┘ ▁▂▃▄▅▆▇█\r\n'"
