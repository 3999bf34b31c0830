#!/usr/bin/env bash
# A scripted stand-in for an AI coding agent CLI. It prints coloured
# progress like the real ones, then ends the way DEMO_MODE says:
#   complete     writes its result and exits 0
#   implement    edits src/parser.go (a change to review and merge), then
#                writes its result and exits 0
#   flaky        attempt 1 exits 0 without a result; later attempts complete
#   alias        writes result.md (an alias) instead of result.json
#   crash        writes its result, then exits 1
#   interactive  waits for its prompt to be typed, then for a line you type
#                into its pane (i, then Enter; it goes on without one after
#                a while), writes the result and stays open, as an
#                interactive agent session does
# rostra gives it ROSTRA_WORKER, ROSTRA_ATTEMPT and the prompt. DEMO_STEP
# is the seconds each step of work takes: 1.5 by default, which paces the
# demo to about a minute, long enough to watch the tester's retry and to
# type into the pairer's pane; DEMO_STEP=0.05 runs it in a few seconds (the
# tests make it shorter still).
set -u
step=${DEMO_STEP:-1.5}
agent=$1
prompt=${2:-}
out="out/$ROSTRA_WORKER"
mkdir -p "$out"
rm -f "$out"/result.*   # a result left by an earlier run must not count for this one
bold=$'\e[1m' dim=$'\e[2m' green=$'\e[32m' yellow=$'\e[33m' red=$'\e[31m' cyan=$'\e[36m' reset=$'\e[0m'

say() { printf '%s\n' "$*"; }
work() {
	local steps=$1 i
	local what=("reading the code" "planning edits" "editing files" "running the tests" "checking the diff")
	for ((i = 1; i <= steps; i++)); do
		printf '%s[%s]%s step %d/%d %s%s%s\n' "$cyan" "$agent" "$reset" "$i" "$steps" "$dim" "${what[$(((i - 1) % 5))]}" "$reset"
		sleep "$step"
	done
}

say "${bold}${agent}${reset} · worker ${ROSTRA_WORKER} · attempt ${ROSTRA_ATTEMPT}"
case ${DEMO_MODE:-complete} in
complete)
	say "task: $prompt"
	work 30
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done${reset}: wrote $out/result.json"
	;;
implement)
	say "task: $prompt"
	work 36
	cat >>src/parser.go <<'GO'

// Count is how many words line holds.
func Count(line string) int { return len(Parse(line)) }
GO
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done${reset}: added Count to src/parser.go, wrote $out/result.json"
	;;
flaky)
	say "task: $prompt"
	work 12
	if [ "$ROSTRA_ATTEMPT" = 1 ]; then
		say "${yellow}lost the thread; ending without a result${reset}"
		exit 0
	fi
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done on attempt $ROSTRA_ATTEMPT${reset}"
	;;
alias)
	say "task: $prompt"
	work 20
	printf '# Review\n\nLooks good.\n' >"$out/result.md"
	say "${green}done${reset}: wrote $out/result.md"
	;;
crash)
	say "task: $prompt"
	work 24
	printf '{"worker":"%s","ok":true}\n' "$ROSTRA_WORKER" >"$out/result.json"
	say "${red}panic: telemetry upload failed${reset} (the result is written)"
	exit 1
	;;
interactive)
	say "${dim}interactive session; waiting for a task${reset}"
	printf '> '
	IFS= read -r task
	say "got task: $task"
	say "${bold}type a line for the docs into this pane${reset} (i, type, Enter; Ctrl-] gives the keys back),"
	say "or wait: it goes on without one in a while"
	printf '> '
	note="(none)"
	for ((i = 0; i < 20; i++)); do
		if IFS= read -r -t "$step" line; then
			note=$line
			say "got it: $note"
			break
		fi
	done
	[ "$note" = "(none)" ] && say "${dim}no line typed; going on${reset}"
	work 6
	printf '{"worker":"%s","task":"%s","note":"%s"}\n' "$ROSTRA_WORKER" "${task//\"/}" "${note//\"/}" >"$out/result.json"
	say "${green}wrote $out/result.json${reset}; session stays open"
	while IFS= read -r line; do say "you said: $line"; done
	;;
esac
