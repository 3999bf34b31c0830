#!/usr/bin/env bash
# capture-agents.sh records the real agent CLIs (claude, codex, gemini, qwen)
# for the corpus and for the comparison with tmux, as testdata/term/README
# describes. Each CLI runs twice at the same 100x30 size, with a fresh HOME
# seeded past its first-run screens and a dummy API key (no service is
# reached):
#   - in rostra (rostra run --no-server, one worker on a pane, in a tmux
#     of 102x33 with extended-keys on, driven with tmux send-keys as a
#     person types): its output.log becomes agent-NAME@100x30.bin;
#   - directly in a tmux pane of 100x30, with the same keys: what tmux
#     got (pipe-pane) becomes agent-NAME-in-tmux@100x30.bin.
# After each step both screens are saved under $OUT (default
# /tmp/agents-capture) as NAME.{rostra,tmux}.STEP.txt, with the pane's modes
# and the rostra screen's pane text, for the comparison table.
#
# Usage: capture-agents.sh NPM_PREFIX [ROSTRA_BINARY] [CLI...]
#   NPM_PREFIX holds node_modules/.bin/{claude,codex,gemini,qwen}:
#   npm install --prefix NPM_PREFIX @anthropic-ai/claude-code @openai/codex \
#       @google/gemini-cli @qwen-code/qwen-code
set -euo pipefail
cd "$(dirname "$0")"
corpus=$(pwd)
npm=$(readlink -f "$1")
bin=${2:-}
shift $(( $# < 2 ? $# : 2 ))
clis=("$@")
[ ${#clis[@]} -eq 0 ] && clis=(claude codex gemini qwen)
B=$npm/node_modules/.bin
OUT=${OUT:-/tmp/agents-capture}
mkdir -p "$OUT"
work=$(mktemp -d)
sock="rostra-agents-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; tmux -L "$sock-r" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	bin="$work/rostra"
	(cd ../../../.. && go build -o "$bin" ./cmd/rostra)
fi

# keyenv NAME: the dummy credentials a CLI takes from its environment.
keyenv() {
	case $1 in
	claude) echo "ANTHROPIC_API_KEY=sk-ant-api03-dummy-key-for-rostra-tests" ;;
	codex) echo "OPENAI_API_KEY=sk-dummy-key-for-rostra-tests" ;;
	gemini) echo "GEMINI_API_KEY=dummy-key-for-rostra-tests" ;;
	qwen) echo "OPENAI_API_KEY=sk-dummy-key-for-rostra-tests OPENAI_BASE_URL=http://127.0.0.1:9/v1 OPENAI_MODEL=qwen3-coder-plus" ;;
	esac
}

# seed NAME HOME WS: a home past the CLI's first-run screens (theme,
# sign-in, trusting the folder), as a person leaves it after the first run.
seed() {
	local name=$1 home=$2 ws=$3
	mkdir -p "$home"
	case $name in
	claude)
		cat >"$home/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "theme": "dark",
 "customApiKeyResponses": {"approved": ["$(keyenv claude | cut -d= -f2 | tail -c 21)"], "rejected": []},
 "projects": {"$ws": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []}}}
JSON
		;;
	codex)
		mkdir -p "$home/.codex"
		printf '{"auth_mode": "apikey", "OPENAI_API_KEY": "%s"}\n' "$(keyenv codex | cut -d= -f2)" >"$home/.codex/auth.json"
		cat >"$home/.codex/config.toml" <<TOML
[tui]
screen_reader_detection_done = true

[tui.model_availability_nux]
"gpt-6.1-sol" = 1

[projects."$ws"]
trust_level = "trusted"
TOML
		;;
	gemini)
		mkdir -p "$home/.gemini"
		printf '{"%s": "TRUST_FOLDER"}\n' "$ws" >"$home/.gemini/trustedFolders.json"
		echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"ui":{"theme":"Default"}}' >"$home/.gemini/settings.json"
		;;
	qwen) ;;
	esac
}

# leftovers HOME: processes a CLI left running from HOME (codex's
# app-server daemon leaves its session) are listed and stopped.
leftovers() {
	local pids
	pids=$(ps -eo pid=,args= | awk -v h="$1" 'index($0, h) && !/awk/ {print $1}')
	if [ -n "$pids" ]; then
		echo "   left running after it: $(ps -o args= -p "$(echo $pids | tr ' ' ',')" | cut -c1-80 | paste -sd';')"
		kill $pids 2>/dev/null || true
		sleep 1
	fi
}

# ready NAME: what the CLI shows once its prompt takes keys.
ready() {
	case $1 in
	claude | codex) echo "for shortcuts" ;;
	gemini | qwen) echo "Type your message" ;;
	esac
}

# server SOCKET: a tmux server with no config that passes Shift+Enter and
# its kind on to a program that asks for extended keys, as a user sets it.
server() {
	tmux -L "$1" -f /dev/null start-server \; set -s extended-keys on \; set -g exit-empty off \; set -g status off
}

# waitfor SOCKET TARGET TEXT: until the pane shows TEXT (60 s at most).
waitfor() {
	for _ in $(seq 600); do
		tmux -L "$1" capture-pane -p -t "$2" | grep -qF -- "$3" && return 0
		sleep 0.1
	done
	echo "capture-agents: $2 never showed '$3'" >&2
	tmux -L "$1" capture-pane -p -t "$2" >&2
	return 1
}

# snap SOCKET TARGET FILE: the screen and the pane's modes.
snap() {
	# A CLI that ends by signalling its process group takes the pane's
	# shell with it, and the pane is gone.
	tmux -L "$1" capture-pane -p -t "$2" >"$3" 2>/dev/null || echo "(the pane has closed)" >"$3"
	tmux -L "$1" display -p -t "$2" 'alt=#{alternate_on} mouse=#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag} sgr=#{mouse_sgr_flag} appcursor=#{keypad_cursor_flag} title=#{pane_title}' >>"$3" 2>/dev/null || true
}

# script SOCKET TARGET PREFIX: the key script, a snapshot after each step.
# Shift+Enter goes as the outer terminal sends it (tmux passes it on as an
# extended key to a program that asked for extended keys: rostra does).
script() {
	local s=$1 t=$2 p=$3
	snap "$s" "$t" "$p.0-start.txt"
	tmux -L "$s" send-keys -t "$t" -l "hello rostra"
	sleep 1.5; snap "$s" "$t" "$p.1-typed.txt"
	tmux -L "$s" send-keys -t "$t" Left Left Left Left Left Left
	tmux -L "$s" send-keys -t "$t" -l "dear "
	tmux -L "$s" send-keys -t "$t" Right Up Down
	sleep 1.5; snap "$s" "$t" "$p.2-arrows.txt"
	# tmux 3.3a passes Shift+Enter on only to a program that asked for
	# extended keys (CSI > 4 ; 1|2 m) and drops it otherwise (send-keys
	# would type the words "S-Enter" instead): do as it does. rostra always
	# gets it (its UI asks for extended keys).
	if [ "$t" = ui ] || grep -qaE $'\x1b\\[>4;[12]m' "$OUT/$t.tmux.raw"; then
		tmux -L "$s" send-keys -t "$t" S-Enter
	else
		echo "   (tmux drops Shift+Enter: $t did not ask for extended keys)"
	fi
	tmux -L "$s" send-keys -t "$t" -l "second line"
	sleep 1.5; snap "$s" "$t" "$p.3-shift-enter.txt"
	tmux -L "$s" send-keys -t "$t" Escape
	sleep 1.5; snap "$s" "$t" "$p.4-esc.txt"
	tmux -L "$s" send-keys -t "$t" C-c
	sleep 1.5; snap "$s" "$t" "$p.5-ctrl-c.txt"
	tmux -L "$s" send-keys -t "$t" C-c
	sleep 0.3
	tmux -L "$s" send-keys -t "$t" C-c
	sleep 3; snap "$s" "$t" "$p.6-exit.txt"
}

for name in "${clis[@]}"; do
	echo "== $name ($("$B/$name" --version 2>/dev/null | head -1))"

	# Directly in tmux, 100x30. (Both runs use the same folders, so the
	# screens can be compared line for line.)
	ws="$work/$name/ws" home="$work/$name/home"
	rm -rf "$work/$name"
	mkdir -p "$ws" && (cd "$ws" && git init -q && echo "# demo" >README.md)
	seed "$name" "$home" "$ws"
	server "$sock"
	tmux -L "$sock" new-session -d -s "$name" -x 100 -y 30 -c "$ws" \
		"sleep 0.3; env -i PATH=$B:/usr/bin:/bin HOME=$home LANG=C.UTF-8 TERM=\$TERM TMUX=\$TMUX TMUX_PANE=\$TMUX_PANE COLORTERM=truecolor $(keyenv "$name") $B/$name; sleep 600"
	tmux -L "$sock" pipe-pane -O -t "$name" "cat >$OUT/$name.tmux.raw"
	waitfor "$sock" "$name" "$(ready "$name")"
	sleep 2
	script "$sock" "$name" "$OUT/$name.tmux"

	tmux -L "$sock" kill-session -t "$name" 2>/dev/null || true
	leftovers "$home"
	cp "$OUT/$name.tmux.raw" "$corpus/agent-$name-in-tmux@100x30.bin"

	# In rostra, a pane of 100x30 in a tmux of 102x33.
	rm -rf "$work/$name"
	mkdir -p "$ws" && (cd "$ws" && git init -q && echo "# demo" >README.md)
	seed "$name" "$home" "$ws"
	envyaml=$(keyenv "$name" | tr ' ' '\n' | sed 's/=/: "/; s/$/"/' | paste -sd, | sed 's/,/, /g')
	cat >"$ws/rostra.yaml" <<YAML
version: 1
name: agents
workspace: .
providers:
  $name: { command: ["$B/$name"] }
defaults: { max_attempts: 1, stop_grace: 2s, attention_after: 1h }
workers:
  - id: $name-agent
    role: agent
    surfaces: [pane]
    env: { $envyaml }
    completion: { result: out/never.txt }
YAML
	server "$sock-r"
	tmux -L "$sock-r" new-session -d -s ui -x 102 -y 33 -c "$ws" \
		"env -i PATH=$B:/usr/bin:/bin HOME=$home LANG=C.UTF-8 TERM=\$TERM $bin run --no-server; sleep 600"
	waitfor "$sock-r" ui "$(ready "$name")"
	sleep 2
	tmux -L "$sock-r" send-keys -t ui i
	script "$sock-r" ui "$OUT/$name.rostra"
	log=$(ls "$ws"/.rostra/agents/attempts/"$name"-agent/1/output.log)
	cp "$log" "$corpus/agent-$name@100x30.bin"
	tmux -L "$sock-r" send-keys -t ui q
	sleep 1
	tmux -L "$sock-r" send-keys -t ui y
	sleep 2
	tmux -L "$sock-r" kill-server 2>/dev/null || true
	leftovers "$home"
	echo "   agent-$name@100x30.bin: $(wc -c <"$corpus/agent-$name@100x30.bin") bytes"
	# The pane as rostra drew it against tmux's screen, step by step.
	for f in "$OUT/$name".tmux.*.txt; do
		r=${f/.tmux./.rostra.}
		head -30 "$f" | sed 's/ *$//' >"$work/t"
		sed -n '2,31p' "$r" | sed 's/^┃//; s/┃ *$//; s/ *$//' >"$work/r"
		if diff -q "$work/t" "$work/r" >/dev/null; then
			echo "   $(basename "$f" .txt | sed 's/.*tmux\.//'): same screen"
		else
			echo "   $(basename "$f" .txt | sed 's/.*tmux\.//'): differs"
			diff "$work/t" "$work/r" | sed 's/^/      /' | head -12 || true
		fi
	done
done
